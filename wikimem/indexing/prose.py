"""How an offline lesson reads: one-off values named, short headings, plain sentences.

A lesson outlives the run it came from, so the values only that run had (a lock id, a commit
hash, a timestamp or date, a PID, a random port, a temporary folder) become named placeholders
such as `<LOCK_ID>`, and a home folder becomes `~`; the same failure seen again, on another
machine too, then reads, and is keyed, the same.

Invariant: every function is pure; `placeholders` is idempotent and leaves stable values
(well-known ports, versions, paths in the project) alone.
"""

from __future__ import annotations

import re

from wikimem.wiki.markdown import slugify

MAX_ID = 48

_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,64}\b")
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
    r"(?:\s?(?:Z|UTC|[+-]\d{2}:?\d{2})(?:\s?UTC)?)?"
)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|(?<=date\()\d{4}, \d{1,2}, \d{1,2}(?=\))")
# A person's home folder differs from machine to machine; what is under it does not.
_HOME = re.compile(r"(?<![\w/~])/(?:home|Users)/[^/\s'\"`:;,)]+(?=/)|(?<![\w~])/root(?=/)")
_CLOCK = re.compile(r"(?<![\d:.])\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\d:])")
# A branch named in git's own words: a one-off name (`spotter-gqc`), not the lesson.
_BRANCH = re.compile(r"[Tt]he current branch ([\w./-]+) has no upstream branch")
_ERLANG_PID = re.compile(r"#PID<\d+\.\d+\.\d+>")
_PID = re.compile(r"\b((?i:pid|process)\s*[:=#]?\s*)\d{2,7}\b")
_PORT = re.compile(r"\b((?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):)(\d{5})\b")
_REVISION = re.compile(r"\b[a-z][a-z0-9-]*-\d{5}-[a-z0-9]{3}\b")  # Cloud Run's `api-00012-kav`
_TMP = re.compile(
    r"(?:/private)?/var/folders/[^\s'\"`:;,)]+|/tmp/[^\s'\"`:;,)]+"
    r"|[A-Za-z]:\\Users\\[^\s\\]+\\AppData\\Local\\Temp\\[^\s'\"`:;,)]+"
)
# Words that open a phrase: a heading cut inside the phrase is cut before it instead.
_BREAKS = frozenset(
    "after before when because for in on with if while since from by via".split()  # noqa: SIM905
)
# A heading's trailing words that leave it dangling once cut.
_DANGLING = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "but",
        "with",
        "by",
        "from",
        "is",
        "are",
        "was",
        "be",
        "been",
        "that",
        "which",
        "as",
    ]
)


def placeholders(text: str, context: str = "") -> str:
    """`text` with one-off values replaced by named placeholders.

    A UUID is a `<LOCK_ID>` when the text or its `context` (the failing output) speaks of a lock.
    """
    locking = "lock" in (text + context).lower()
    for branch in set(_BRANCH.findall(context + "\n" + text)):
        text = re.sub(rf"(?<![\w/.-]){re.escape(branch)}(?![\w/.-])", "<BRANCH>", text)
    text = _UUID.sub("<LOCK_ID>" if locking else "<UUID>", text)
    text = _TIMESTAMP.sub("<TIMESTAMP>", text)
    text = _DATE.sub("<DATE>", text)
    text = _HOME.sub("~", text)
    text = _CLOCK.sub("<TIME>", text)
    text = _HASH.sub("<HASH>", text)
    text = _REVISION.sub("<REVISION>", text)
    text = _ERLANG_PID.sub("<PID>", text)
    text = _PID.sub(lambda m: m.group(1) + "<PID>", text)
    text = _PORT.sub(
        lambda m: m.group(1) + ("<PORT>" if int(m.group(2)) >= 32768 else m.group(2)), text
    )
    return _TMP.sub("<TMP_PATH>", text)


def short_heading(text: str, limit: int = MAX_ID) -> str:
    """`text` cut on word boundaries so its slug (the entry id) has at most `limit` characters;
    a cut phrase goes whole ("after changing a response model"), not halfway."""
    words = " ".join(text.split()).split(" ")
    cut = False
    while len(words) > 1 and len(slugify(" ".join(words))) > limit:
        words.pop()
        cut = True
        while len(words) > 1 and words[-1].lower().strip(",;:.") in _DANGLING:
            words.pop()
    if cut:
        breaks = [k for k, w in enumerate(words) if k >= 3 and w.lower() in _BREAKS]
        if breaks:
            words = words[: breaks[-1]]
    heading = " ".join(words).rstrip(" ,;:-")
    if heading.count("`") % 2:  # a cut inside a code span would swallow the rest
        head, _, tail = heading.rpartition("`")
        heading = head + tail
    if len(slugify(heading)) > limit:  # one very long word
        heading = heading[:limit]
    return heading


def code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def fenced(text: str, lang: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def joined(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
