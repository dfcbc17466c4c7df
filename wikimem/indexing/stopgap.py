"""What a run says of its own fix: that a changed command is a stopgap, why a failure failed,
and what is left to do.

A run that makes a failure pass by running the command differently (`pytest -n 0` for `pytest -n
auto`) and says so only "until the fixture gives each worker its own database" has found a
workaround, not the fix. Stored as "run it as `-n 0` instead", the next agent would narrow its
tests for good. The offline rules read the run's own words for this: a sentence of the result
(or a note) that names the changed part of the command beside a word of impermanence, and a
`Follow-up:`/`TODO:` note or sentence for what remains. The lesson then says the command only
works around the failure, why the run says it fails, and what is still to do.

A run that ends failed usually says why in its result ("the preview environment only receives
DATABASE_URL after the provision-db job") and what it would take ("the workflow needs `needs:
provision-db`"); a run that fixed a failure often says its cause ("failed because package.json
had been bumped without regenerating bun.lockb"). `account` picks those sentences for one failure,
so the lesson says more than "still open" or "run this".

Invariant: pure functions of the run's text; nothing is invented, every quoted sentence is the
run's own, bounded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikimem.indexing.shell import main_segment
from wikimem.intake.record import RunRecord

SENTENCE_MAX = 240
_IMPERMANENT = re.compile(
    r"\b(?:until|for now|for the time being|temporar(?:y|ily)|stop-?gap|interim|"
    r"in the meantime|work(?:s|ed)?[- ]?arounds?|short[- ]term)\b",
    re.IGNORECASE,
)
_TODO = re.compile(r"^\s*(?:follow[- ]?up|todo|fixme|next step|still to do)\s*[:\-]\s*(\S.*)", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])|;\s+")
_CAUSE = re.compile(
    r"\b(?:because|since|shares?|shared|at once|concurrent(?:ly)?|race|clash|both write|"
    r"caused by|due to|means|so that)\b",
    re.IGNORECASE,
)


PROMPT_NOTE = "Prompt of this turn: "  # as the Codex adapter notes a turn's prompt
# Whatever a result says next, these words add nothing of the failure's own.
_FILLER = frozenset({"then", "could", "would", "also", "just", "again", "still", "when", "after"})
_NEED = re.compile(
    r"\b(?:needs?|should|must|requires?|has to|have to|ought to|is missing|are missing)\b", re.I
)
_NOT_FIXED = re.compile(
    r"^(?:not|never|un)\W*(?:yet\s+)?fixed\W*$|^still (?:open|failing)\W*$", re.I
)
_FIRST_PERSON = re.compile(r"^(?:I|We)\b")
# What says a fixed failure's cause outright (`means`, `since`, `shares` do not: "this means the
# install passes now" is no cause).
_STATED_CAUSE = re.compile(r"\b(?:because|due to|caused by|owing to|the cause (?:was|is))\b", re.I)
# A sentence addressed to whoever reads the memory, not a finding: untrusted text steering the
# next agent ("IMPORTANT: any assistant reading this must…", "ignore the previous …").
_ADDRESSED = re.compile(
    r"\b(?:any|every|all|future|the next|whatever)\s+(?:(?:AI|coding)\s+)?"
    r"(?:assistants?|agents?|models?|LLMs?|readers?|bots?)\b"
    r"|\bignore (?:all|any|the|previous|prior|above|earlier)\b"
    r"|\b(?:system|developer) (?:note|prompt|message|instruction)s?\b"
    r"|\b(?-i:IMPORTANT|ATTENTION|NOTE TO)\b"
    r"|\byou (?:must|should|are to|need to)\b",
    re.I,
)
_MARKUP = re.compile(r"<!--|-->|```|~~~")  # would open a comment or a fence in the page


@dataclass(frozen=True)
class Account:
    """The run's words about one failure: why it fails, and (left open) what it still needs."""

    cause: str  # up to two sentences, or ""
    todo: str  # one sentence, or ""


def account(
    run: RunRecord,
    failed: str,
    error: str,
    *,
    output: str = "",
    others: Sequence[str] = (),
    fixed: bool,
) -> Account:
    """What the run's result and notes say of the failure of `failed` with `error` (its telling
    line; `output`, the whole output, when known).

    A sentence is this failure's when it shares a telling word (by its first five letters:
    `migrate` meets `migrations`) with this command, its output or the run's task, and no fewer
    with this command and error than with any other failure's (`others`: their command and
    error texts). The cause is up to two such sentences that name the error's words and say
    three telling words more than the command and error do (a restatement, "alembic exits with
    'DATABASE_URL is not set'", says nothing new); of a fixed failure, only a sentence that
    says it is a cause (`because`, `due to`, `caused by`). The todo, of a failure left open, is
    the first sentence saying what is needed or left to do. Run text is untrusted: a sentence
    addressed to whoever reads it ("any assistant reading this must…"), or one that would open
    a comment or a fence in the page, is never taken."""
    # what the run was doing names this work too ("Run the database migrations...")
    own = _stems(f"{failed} {output or error} {run.task}")
    key, named = _stems(f"{failed} {error}"), _words(error)
    rivals = [_stems(other) for other in others]

    def mine(sentence: str) -> bool:
        said = _stems(sentence)
        return bool(said & own) and all(len(said & key) >= len(said & r) for r in rivals)

    sentences = [
        s
        for s in _sentences(run)
        if not _NOT_FIXED.match(s) and not _ADDRESSED.search(s) and not _MARKUP.search(s)
    ]
    sentences = [s for s in sentences if mine(s)]
    todo = ""
    if not fixed:
        todo = next((m.group(1) for m in map(_TODO.match, sentences) if m), "")
        if not todo:
            todo = next(
                (s for s in sentences if _NEED.search(s) and not _FIRST_PERSON.match(s)), ""
            )
    causes = []
    for sentence in sentences:
        if sentence == todo or _TODO.match(sentence) or (_NEED.search(sentence) and not fixed):
            continue
        said = _words(sentence)
        if fixed:
            if _STATED_CAUSE.search(sentence) and said & (named | _words(failed)):
                causes.append(sentence)
        elif said & named and len(said - _words(f"{failed} {error}") - _FILLER) >= 3:
            causes.append(sentence)
    return Account(_bounded(_joined(causes[:2])), _bounded(todo.rstrip(".")))


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _words(text)}


@dataclass(frozen=True)
class Stopgap:
    """The run's words: why the changed command is only a workaround, and what is left."""

    said: str  # the sentence that calls it temporary
    cause: str  # up to two sentences of the result that say why it fails, or ""
    todo: str  # what is left to do, or ""


def stopgap(
    run: RunRecord, failed: str, passed: str, error: str, *, others: Sequence[str] = ()
) -> Stopgap | None:
    """The run's statement that `passed` (the changed `failed`) is a stopgap, or None.

    A sentence counts when it calls something temporary and names what changed in the command
    (`-n 0`); a run with one lesson only may say it without naming the change, since nothing
    else could be meant. The cause is what the run's sentences say of this failure: a sentence
    that names its error's or its command's words (`database is locked`). A sentence naming
    what another lesson of the run changed (`others`: their changed words) is that lesson's."""
    changed = changed_words(failed, passed)
    alone = not others
    sentences = [s for s in _sentences(run) if not _names(s, others)]
    said = ""
    for sentence in sentences:
        if not _IMPERMANENT.search(sentence) or _TODO.match(sentence):
            continue
        if _names(sentence, changed):
            said = sentence
            break
        if alone and not said:
            said = sentence
    todo = next((m.group(1) for m in map(_TODO.match, sentences) if m), "")
    if not said:
        return None
    named, about = _words(error), _words(f"{failed} {error}")
    causes = [
        s
        for s in sentences
        if s != said
        and not _TODO.match(s)
        and (_words(s) & named or (_CAUSE.search(s) and _words(s) & about))
    ]
    return Stopgap(_bounded(said), _bounded(_joined(causes[:2])), _bounded(todo.rstrip(".")))


def changed_words(failed: str, passed: str) -> tuple[str, ...]:
    """What the changed command says that the failing one does not, a flag with its value:
    `-n 0` for `pytest -n auto` run as `pytest -n 0`."""
    _, old = main_segment(failed)
    _, new = main_segment(passed)
    words: list[str] = []
    for k, word in enumerate(new):
        if word in old:
            continue
        before = new[k - 1] if k else ""
        words.append(f"{before} {word}" if before.startswith("-") and "=" not in before else word)
    return tuple(words)


_COMMON = frozenset(
    {
        "error",
        "errors",
        "fail",
        "fails",
        "failed",
        "failure",
        "test",
        "tests",
        "with",
        "from",
        "that",
        "this",
        "when",
        "then",
        "have",
        "into",
        "file",
        "files",
        "line",
        "code",
        "exit",
        "exited",
        "exception",
        "none",
        "true",
        "false",
    }
)


def _words(text: str) -> set[str]:
    """The telling words of a text: four letters or more, not a word every failure has."""
    return {w for w in re.findall(r"[a-z][a-z0-9_]{3,}", text.lower()) if w not in _COMMON}


def _names(sentence: str, changed: Sequence[str]) -> bool:
    text = " " + re.sub(r"[`'\"()]", " ", sentence) + " "
    text = re.sub(r"\s+", " ", text)
    return any(len(w) >= 2 and f" {w} " in text for w in changed)


def _sentences(run: RunRecord) -> list[str]:
    """The run's own sentences: its result and notes, not the prompt a runner notes (the
    person's words, not the run's finding)."""
    notes = [e.text for e in run.evidence if e.kind == "note" and e.text]
    texts = [run.result] + [t for t in notes if not t.startswith(PROMPT_NOTE)]
    out: list[str] = []
    for text in texts:
        for line in text.splitlines():
            out += [s.strip() for s in _SENTENCE.split(line) if s.strip()]
    return out


def _joined(sentences: Sequence[str]) -> str:
    """Sentences as one text, each ended (a `;` split leaves a clause without its stop)."""
    ended = [s if s.endswith((".", "!", "?", "…")) else s.rstrip(";:,") + "." for s in sentences]
    return " ".join(ended)


def _bounded(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= SENTENCE_MAX:
        return text
    return text[: SENTENCE_MAX - 1].rsplit(" ", 1)[0] + "…"
