"""The edit plan: its JSON Schema, structural parsing, and validation against the wiki.

A plan is untrusted model output. `parse` only checks the outer shape (so a model can be asked
again); `validate` checks every edit against the wiki as it is and returns what to apply, what
was repaired and what was rejected, with reasons. Nothing here writes.

Invariant: every string a plan carries (summary, reason, titles, leaf title and summary, entry
id, topic summaries) is cleaned of control, bidirectional and zero-width characters and checked
for secrets and dangerous commands like a body, since each lands somewhere (a heading,
frontmatter, TOPIC.md, a commit message). A bad edit is rejected alone, before anything is
written: a body that would leave a comment or fence open, a name the file system refuses, a
path that leaves the wiki through a symlink. The leaf path is checked too: it becomes folder
names and commit subjects.

Strict validation (a pass's plans) refuses what only a confused model writes, each with its own
reason, instead of repairing it into a write: a one-segment leaf, a new leaf named with the
schema's own words (`add/general`, `entry/title`), an update of an entry that does not exist, a
title that copies the schema, a body too short to teach anything, more new topics than the plan
has runs, and a summary of a topic the plan writes no entry to. Given the runs' text, it also
refuses a new leaf copied from the schema's example path the run never mentions (`build/bun`
for a run without bun), a title, entry id or body that loops on one phrase, and a body sharing
too few of its words with the run. Edits the rules
proposed from a run's explicit candidates carry `BY_RULES` and are judged as before: a person or
agent asked for them in those words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wikimem.errors import PlanError, WikiError, WikimemError
from wikimem.indexing.answer import Malformed, malformed_in
from wikimem.indexing.guard import unverified
from wikimem.recall.search.terms import STOPWORDS
from wikimem.redaction.redact import find_secrets, redact
from wikimem.wiki.edit import SLUG, TYPES, Edit
from wikimem.wiki.markdown import entry_text, plain_line, slugify

ACTIONS = ("add", "update", "remove")
DEFAULT_SUMMARY = "Update memory"  # a plan's summary when the model gave none
ALREADY_SAID = "the entry already says this (no change)"  # an edit repeating an entry
ALREADY_IN = "already in the wiki: "  # how a plan that adds nothing names the entry holding it
SUBJECT_MAX = 72  # a plan's summary is its commit's subject line
MAX_DEPTH = 4
MAX_EDITS = 20
MAX_BODY = 4000
MAX_TITLE = 120
MAX_SUMMARY = 400
MAX_SEGMENT = 64  # characters in one segment of a wiki path (a folder name)
MAX_REASON = 200
GUARDED = 1000  # characters of a one-line field the command guard reads (more than any limit)
MIN_AROUND_SECRET = 60  # characters a body needs besides its [REDACTED:...] markers
REDACTED = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
# what a body needs under strict validation: "Use pnpm, never npm." is a lesson; "Fixed." or
# "Body 1." is not
MIN_BODY = 20  # characters
MIN_BODY_WORDS = 4
BY_RULES = "_by_rules"  # key on edits the rules proposed; a model's answer never carries it
RUNS = "_runs"  # on the rules' edits: the ids of the runs each came from; never a model's
# Words of the plan's own schema and the filler a model writes when it has nothing to say:
# as a segment of a new leaf or as a whole title they name nothing.
SCHEMA_WORDS = frozenset(
    {
        *("add", "update", "remove", "action", "actions", "confirm", "edit", "edits"),
        *("leaf", "leaves", "path", "paths", "entry", "entries", "id", "title", "body"),
        *("reason", "type", "types", "summary", "topic", "topics", "meta", "plan", "schema"),
        *("leaf-title", "leaf-summary", "review-by", "expires", "string", "object", "array"),
        *("semantic", "episodic", "procedural", "working", "identity", "null", "none"),
        *("general", "misc", "other", "default", "example", "untitled", "unknown"),
        *("new", "lesson", "lessons", "todo", "tbd", "slug", "segment"),
    }
)
# Words that may pad a title made of schema words ("The new entry", "A lesson of the topic").
_FILLER = frozenset({"a", "an", "the", "of", "for", "its", "my", "this", "to", "and", "in"})

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "wikimem edit plan",
    "type": "object",
    "additionalProperties": False,
    "required": ["summary", "edits"],
    "properties": {
        "summary": {"type": "string", "description": "One line: what this plan changes and why."},
        "edits": {
            "type": "array",
            "maxItems": MAX_EDITS,
            "description": "Empty when the run taught nothing durable (the preferred outcome).",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["action", "leaf", "entry", "reason"],
                "properties": {
                    "action": {"type": "string", "enum": list(ACTIONS)},
                    "leaf": {
                        "type": "string",
                        "description": "Wiki path: 2-4 lowercase slug "
                        "segments, topic first, e.g. build/bun.",
                    },
                    "entry": {"type": "string", "description": "Entry id (slug of its title)."},
                    "title": {"type": "string", "maxLength": MAX_TITLE},
                    "type": {"type": "string", "enum": list(TYPES)},
                    "body": {"type": "string", "maxLength": MAX_BODY},
                    "reason": {"type": "string"},
                    "leaf_title": {"type": "string"},
                    "leaf_summary": {"type": "string"},
                    "meta": {
                        "type": "object",
                        "description": "Optional dates (YYYY-MM-DD) for memory that should be "
                        "reviewed or that stops being true.",
                        "additionalProperties": False,
                        "properties": {
                            "review-by": {"type": "string"},
                            "expires": {"type": "string"},
                        },
                    },
                },
            },
        },
        "topics": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["topic", "summary"],
                "properties": {"topic": {"type": "string"}, "summary": {"type": "string"}},
            },
        },
    },
}


@dataclass(frozen=True)
class RawPlan:
    """A plan whose outer shape is right; its edits are still untrusted mappings."""

    summary: str
    edits: tuple[Mapping[str, Any], ...]
    topics: tuple[Mapping[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "edits": [dict(e) for e in self.edits],
            "topics": [dict(t) for t in self.topics],
        }


META_KEYS = ("review-by", "expires")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def clean_meta(raw: Any) -> tuple[tuple[str, str], ...]:
    """Only known keys with ISO dates survive: the meta line must stay a one-line comment."""
    if not isinstance(raw, Mapping):
        return ()
    return tuple((k, str(raw[k])) for k in META_KEYS if k in raw and DATE.match(str(raw[k])))


def wordy_date(raw: Any) -> str:
    """A date field filled with words (`"review-by": "npm ci"`), as `key 'value'`, or "": what a
    model writes when it fills every field it is shown, not a date it meant."""
    if not isinstance(raw, Mapping):
        return ""
    for key in META_KEYS:
        value = raw.get(key)
        if value not in (None, "") and not DATE.match(str(value)):
            return f"{key} {quoted(value)!r}"
    return ""


@dataclass(frozen=True)
class TopicSummary:
    topic: str
    summary: str


@dataclass(frozen=True)
class Note:
    """One repair or rejection, for the pass log."""

    index: int
    what: str
    reason: str


@dataclass(frozen=True)
class Plan:
    summary: str
    edits: tuple[Edit, ...]
    topics: tuple[TopicSummary, ...] = ()
    rejected: tuple[Note, ...] = ()
    repaired: tuple[Note, ...] = ()
    held: str = ""  # why the plan must wait for review, "" when it may be applied
    # entries an edit proposed word for word as they stand: no change, but a later run's
    # support for them, which the pass may record (`confirm` edits, see Indexer._confirmations)
    confirmed: tuple[Edit, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.edits and not self.topics


def parse(obj: Any) -> RawPlan:
    """Check the outer shape; raise PlanError so the model can be asked again."""
    if not isinstance(obj, Mapping):
        raise PlanError("the plan must be a JSON object")
    edits = obj.get("edits")
    if not isinstance(edits, list):
        raise PlanError("the plan needs an 'edits' list")
    topics = obj.get("topics") or []
    if isinstance(topics, Malformed):
        topics = []  # topic summaries are optional: the edits still stand
    if not isinstance(topics, list):
        raise PlanError("'topics' must be a list")
    summary = obj.get("summary", "")
    return RawPlan(
        summary=summary if isinstance(summary, str) and not isinstance(summary, Malformed) else "",
        edits=tuple(_sound(e) if isinstance(e, Mapping) else {"_invalid": e} for e in edits),
        topics=tuple(_sound(t) for t in topics if isinstance(t, Mapping)),
    )


def _sound(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """An edit or topic as given, or, when a value in it was past the answer reader's bounds,
    what names it plus `_malformed`: why, so it is rejected alone (and stays rejected when a
    held plan is read back from the queue, where the marker is plain text)."""
    why = malformed_in(item)
    if not why:
        return item
    names = ("action", "leaf", "entry", "topic")
    kept = {k: item[k] for k in names if isinstance(item.get(k), str) and not malformed_in(item[k])}
    return {**kept, "_malformed": why}


def parse_answer(obj: Any) -> RawPlan:
    """`parse` for a model's answer: a key the schema does not allow cannot pass an edit off
    as one the rules proposed."""
    raw = parse(obj)
    edits = tuple({k: v for k, v in e.items() if k not in (BY_RULES, RUNS)} for e in raw.edits)
    return RawPlan(raw.summary, edits, raw.topics)


def _runs(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The runs the rules name for their edit (a model's answer never carries the key)."""
    runs = raw.get(RUNS) if raw.get(BY_RULES) else None
    if not isinstance(runs, list | tuple):
        return ()
    return tuple(dict.fromkeys(r for r in runs if isinstance(r, str) and r and r.isprintable()))


def by_rules(raw: RawPlan) -> RawPlan:
    """The plan with each edit marked as the rules' own."""
    return RawPlan(raw.summary, tuple({**e, BY_RULES: True} for e in raw.edits), raw.topics)


def one_line(text: str, limit: int) -> str:
    """`text` on one line, without control, bidirectional or zero-width characters, cut to
    `limit` characters."""
    return plain_line(text, limit)


# Folder names Windows refuses whatever their extension; a wiki is shared through git.
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(10)]
)


def quoted(raw: Any, limit: int = 80) -> str:
    """A raw value as a note may quote it: secrets removed, on one line, short. Notes repeat
    once per job in the pass log, so an answer's raw values must not travel whole."""
    text = raw if isinstance(raw, str) else repr(raw)
    return one_line(redact(text)[0], limit)


def clean_path(raw: Any) -> tuple[str | None, str]:
    """Return (wiki path, "") or (a repaired path, what was repaired) or (None, why rejected)."""
    if not isinstance(raw, str) or not raw.strip():
        return None, "missing leaf path"
    text = raw.strip()
    if text.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", text):
        return None, f"absolute path {quoted(raw)!r}"
    parts = [p for p in text.replace("\\", "/").split("/") if p]
    if any(p in {".", ".."} for p in parts):
        return None, f"path {quoted(raw)!r} leaves its folder"
    if parts and parts[-1].lower() in {"memory.md", "topic.md"}:
        parts = parts[:-1]
    fixed = [slugify(p.replace("_", "-")).strip("-") for p in parts]
    if not fixed or not all(SLUG.match(p) for p in fixed):
        return None, f"path {quoted(raw)!r} is not lowercase slug segments"
    if len(fixed) > MAX_DEPTH:
        return None, f"path {quoted(raw)!r} is deeper than {MAX_DEPTH} segments"
    if any(len(p) > MAX_SEGMENT for p in fixed):
        return None, f"path {quoted(raw)!r} has a segment over {MAX_SEGMENT} characters"
    if any(p in _RESERVED for p in fixed):
        return None, f"path {quoted(raw)!r} has a name the file system refuses"
    if len(fixed) == 1:
        fixed.append("general")
    path = "/".join(fixed)
    return path, "" if path == text else f"path {quoted(raw)!r} repaired to {path!r}"


def segments(raw: Any) -> list[str]:
    """The segments of a raw leaf path as written, MEMORY.md or TOPIC.md left out."""
    if not isinstance(raw, str):
        return []
    parts = [p for p in raw.strip().replace("\\", "/").split("/") if p]
    if parts and parts[-1].lower() in {"memory.md", "topic.md"}:
        parts = parts[:-1]
    return parts


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower())


def _schema_texts(node: Any) -> Iterable[str]:
    """Every description in the schema, which a lost model copies into its fields."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in ("description", "title") and isinstance(value, str):
                yield value
            else:
                yield from _schema_texts(value)


_SCHEMA_PHRASES = tuple(" ".join(_words(t)) for t in _schema_texts(SCHEMA))


def copies_schema(text: str) -> bool:
    """Whether a title or entry id says nothing but the schema's words, or quotes its text."""
    words = _words(text.replace("_", "-"))
    if not words:
        return False
    if all(w in SCHEMA_WORDS or w in _FILLER or w.isdigit() for w in words):
        return True
    said = " ".join(words)
    return any(len(said) >= 12 and (said in p or p in said) for p in _SCHEMA_PHRASES)


def repeats_itself(body: str) -> bool:
    """Whether a body is one sentence said again and again: a weak model's loop ("The plan is
    now the plan." eight times), where a lesson says each thing once. Sentences of three
    words or more, compared without case or spacing; one said three times or more, or fewer
    distinct sentences than half of them, is a loop."""
    sentences = [
        " ".join(part.lower().split())
        for part in re.split(r"[.!?;\n]+", body)
        if len(part.split()) >= 3
    ]
    if len(sentences) < 3:
        return False
    most = max(sentences.count(s) for s in set(sentences))
    return most >= 3 or len(set(sentences)) * 2 < len(sentences)


# Paths the schema and prompt give as examples: a model with nothing to say copies them.
EXAMPLE_LEAVES = tuple(
    dict.fromkeys(
        re.findall(r"e\.g\. ([a-z0-9-]+(?:/[a-z0-9-]+)+)", " ".join(_schema_texts(SCHEMA)))
    )
)
# Words that carry no subject (the search index's, and the words of any task): a body sharing
# only these with the run is about nothing in it.
STOP_WORDS = STOPWORDS | frozenset(
    [
        "about",
        "after",
        "again",
        "all",
        "also",
        "always",
        "any",
        "because",
        "before",
        "being",
        "cannot",
        "doing",
        "done",
        "each",
        "either",
        "ever",
        "every",
        "first",
        "get",
        "got",
        "having",
        "here",
        "it's",
        "just",
        "like",
        "made",
        "make",
        "may",
        "more",
        "most",
        "must",
        "need",
        "needs",
        "never",
        "new",
        "now",
        "once",
        "one",
        "only",
        "other",
        "out",
        "over",
        "ran",
        "run",
        "runs",
        "same",
        "should",
        "some",
        "such",
        "than",
        "thing",
        "things",
        "those",
        "through",
        "too",
        "under",
        "until",
        "use",
        "used",
        "uses",
        "using",
        "very",
        "way",
        "well",
        "while",
        "without",
        "yes",
    ]
)
# Share of a body's content words the run's text must hold: a lesson restates the run, so
# most of its subject words come from it; junk shares a word or two by chance.
MIN_SHARED = 0.3
MIN_SHARED_WORDS = 2
DUPLICATE_SHARE = 0.6  # of a new entry's content words a namesake's entry holds: the same lesson


def _stem(word: str) -> str:
    """A light stem, so "installs" meets "install" and "frozen" is not needed for "freeze"."""
    return word[:5]


def content_words(text: str) -> set[str]:
    """The stems of a text's words that say something (three letters or more, no stop words)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {_stem(w) for w in words if len(w) >= 3 and w not in STOP_WORDS and not w.isdigit()}


def unrelated(body: str, run_text: str) -> bool:
    """Whether a body shares too little with the run it was drawn from: fewer than
    MIN_SHARED_WORDS of its content words, or under MIN_SHARED of them, appear in the run."""
    said = content_words(body)
    if not said:
        return True
    shared = said & content_words(run_text)
    return len(shared) < min(MIN_SHARED_WORDS, len(said)) or len(shared) < MIN_SHARED * len(said)


def copies_example(leaf: str, run_text: str) -> str:
    """The example path a leaf copies from the schema or prompt when the run never mentions
    its words ("" when it copies none, or there is no run text to judge by): `build/bun` for
    a run that never ran bun."""
    if not run_text:
        return ""
    words = set(_words(run_text.replace("/", " ")))
    for example in EXAMPLE_LEAVES:
        parts = example.split("/")
        if leaf.split("/")[: len(parts)] == parts and not all(p in words for p in parts):
            return example
    return ""


def loops(text: str) -> bool:
    """Whether a text says one phrase over and over ("the reason is that the reason is
    that ...", "fix-bun-bun-bun"): a word said five times or more that is over a third of
    the words, or a three-word phrase said four times or more."""
    words = _words(text.replace("-", " ").replace("/", " "))
    if len(words) < 6:
        return False
    most = max(words.count(w) for w in set(words))
    if most >= 5 and most * 3 > len(words):
        return True
    grams = [" ".join(words[i : i + 3]) for i in range(len(words) - 2)]
    return max(grams.count(g) for g in set(grams)) >= 4


def clean_body(body: str) -> tuple[str, bool]:
    """Demote `#`/`##` headings so a body can never split into new entries."""
    lines = body.replace("\r\n", "\n").strip("\n").split("\n")
    fence = False
    changed = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        elif not fence and re.match(r"^ {0,3}#{1,2}(\s|$)", line):
            lines[i] = "###" + line.lstrip().lstrip("#")
            changed = True
        if "<!-- wikimem" in lines[i]:
            lines[i] = lines[i].replace("<!-- wikimem", "<!-- ")
            changed = True
    return "\n".join(lines).strip(), changed


_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})")


def structure_problem(body: str) -> str:
    """Why `body` would break the page it lands in ("" when it would not): an HTML comment
    left open swallows every entry after it, and so does an unclosed code fence."""
    opened = body.rfind("<!--")
    if opened >= 0 and body.find("-->", opened + 4) < 0:
        return "body leaves an HTML comment open (<!--)"
    fence = ""
    for line in body.split("\n"):
        m = _FENCE_LINE.match(line)
        if not m:
            continue
        mark = m.group(1)
        if not fence:
            fence = mark
        elif mark[0] == fence[0] and len(mark) >= len(fence) and not line[m.end() :].strip():
            fence = ""
    if fence:
        return "body leaves a code fence open"
    return ""


def _contained(title: str, body: str) -> str:
    """Why the page could not hold `body` as one entry ("" when it can): an HTML block left
    open (`<pre>`, `<script>`, `<div>` up to a blank line...) would swallow the entries after
    it, and writing the page refuses it; found here, it fails this edit alone."""
    try:
        entry_text(title, body)
    except WikiError as exc:
        return str(exc)
    return ""


def line_problem(texts: Iterable[str], verified: Collection[str]) -> str:
    """Why one-line fields (titles, reason, summaries) cannot be kept ("" when they can)."""
    texts = [t for t in texts if t]
    joined = "\n".join(texts)
    if not joined:
        return ""
    secrets = find_secrets(joined)
    if secrets:
        return f"a title, reason or summary holds what looks like a secret ({secrets[0].kind})"
    if "<!--" in joined or "-->" in joined:
        return "a title, reason or summary holds an HTML comment marker"
    # Only up to its limit lands, so only that is checked for commands (the guard's time
    # grows with the text, and a field can be 500 KB); secrets are looked for in all of it.
    if unverified("\n".join(t[:GUARDED] for t in texts if t), verified):
        return "a title, reason or summary presents a dangerous command"
    return ""


Confine = Callable[[str], object]  # wiki-relative path -> its place, or WikimemError if outside


EntryLookup = Callable[[str], "Mapping[str, str] | None"]  # leaf -> {entry id: body} or None


@dataclass
class _Checker:
    lookup: EntryLookup
    verified: Collection[str] = ()
    confine: Confine | None = None
    # False when another memory provider holds the entries: `lookup` cannot say which exist
    entries_known: bool = True
    strict: bool = False
    run_text: str = ""  # the runs' task, result and evidence: what a lesson must come from
    # the wiki's leaves named like a leaf (`infra/terraform` for `build/terraform`)
    namesakes: Callable[[str], Sequence[str]] | None = None
    repaired: list[Note] = field(default_factory=list)
    rejected: list[Note] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)
    confirmed: list[Edit] = field(default_factory=list)

    def _held_elsewhere(self, leaf: str, found: object, text: str) -> str:
        """The entry (`leaf#entry`) of a same-named leaf elsewhere that says what a new leaf's
        entry says (most of its content words): the lesson filed under another topic, as a
        model that missed the page it was shown writes it. "" when none, or the leaf exists."""
        if found is not None or self.namesakes is None:
            return ""
        said = content_words(text)
        if len(said) < MIN_SHARED_WORDS:
            return ""
        for other in self.namesakes(leaf):
            try:
                entries = self.lookup(other) or {}
            except (WikimemError, OSError):
                continue
            for entry, body in entries.items():
                if len(said & content_words(f"{entry.replace('-', ' ')}\n{body}")) >= (
                    DUPLICATE_SHARE * len(said)
                ):
                    return f"{other}#{entry}"
        return ""

    def check(self, index: int, raw: Mapping[str, Any]) -> Edit | None:
        what = quoted(f"{raw.get('action', '?')} {raw.get('leaf', '?')}#{raw.get('entry', '?')}")

        def reject(reason: str) -> Edit | None:
            self.rejected.append(Note(index, what, reason))
            return None

        def repair(reason: str) -> None:
            self.repaired.append(Note(index, what, reason))

        if raw.get("_malformed"):
            return reject(f"the answer gave it {quoted(raw['_malformed'], 120)}")
        action = raw.get("action")
        if action not in ACTIONS:
            return reject(f"unknown action {quoted(action)!r}")
        strict = self.strict and not raw.get(BY_RULES)
        leaf, note = clean_path(raw.get("leaf"))
        if leaf is None:
            return reject(note)
        # the path becomes folder names and commit subjects: checked like a title, raw and
        # as cleaned (a slug may join what the raw text kept apart)
        secrets = find_secrets(f"{raw.get('leaf')}\n{leaf}")
        if secrets:
            return reject(f"leaf path holds what looks like a secret ({secrets[0].kind})")
        outside = self._outside(leaf)
        if outside:
            return reject(outside)
        if strict and len(segments(raw.get("leaf"))) == 1:
            return reject(f"leaf {quoted(raw.get('leaf'))!r} is one segment, not <topic>/<name>")
        if note:
            repair(note)
        given = raw.get("title")
        title = one_line(given, MAX_TITLE) if isinstance(given, str) else ""
        entry = raw.get("entry")
        fields = [str(raw.get(k) or "") for k in ("reason", "leaf_title", "leaf_summary")]
        problem = line_problem(
            [given if isinstance(given, str) else "", str(entry), *fields], self.verified
        )
        if problem:
            return reject(problem)
        if strict and title and copies_schema(title):
            return reject(f"title {quoted(title)!r} copies the plan's schema, not a lesson")
        if strict and not title and isinstance(entry, str) and copies_schema(entry):
            return reject(f"entry id {quoted(entry)!r} copies the plan's schema, not a lesson")
        if strict and any(loops(t) for t in (title, str(entry or ""))):
            return reject("title or entry id says one word or phrase over and over")
        entry_id = slugify(str(entry)) if isinstance(entry, str) and entry.strip() else ""
        if not entry_id and title:
            entry_id = slugify(title)
        if not entry_id:
            return reject("no entry id and no title")
        if (leaf, entry_id) in self.seen:
            return reject("a second edit of the same entry in one plan")
        try:
            found = self.lookup(leaf)
            existing = found or {}
        except (WikimemError, OSError) as exc:
            # a name too long for the file system, a path turned into a symlink: this edit
            # alone cannot be looked up, so it alone is rejected
            return reject(f"cannot look up {leaf}: {one_line(str(exc), 120)}")
        named = [p for p in leaf.split("/") if p in SCHEMA_WORDS]
        if strict and found is None and named and action != "remove":
            return reject(f"new leaf {leaf!r} is named with the schema word {named[0]!r}")
        # a leaf the wiki already has was not copied from the example, whatever the run says
        example = copies_example(leaf, self.run_text) if found is None and strict else ""
        if example:
            return reject(
                f"new leaf {leaf!r} copies the example {example!r}; the run never mentions it"
            )
        kind = raw.get("type") if raw.get("type") in TYPES else "semantic"
        body_raw = raw.get("body")
        body, demoted = clean_body(body_raw) if isinstance(body_raw, str) else ("", False)
        if action == "remove":
            if self.entries_known and entry_id not in existing:
                return reject(f"no entry {entry_id!r} in {leaf}")
            self.seen.add((leaf, entry_id))
            return Edit(
                "remove", leaf, entry_id, reason=one_line(str(raw.get("reason") or ""), MAX_REASON)
            )
        if not body:
            return reject("an add or update needs a body")
        broken = structure_problem(body) or _contained(title or entry_id, body)
        if broken:
            return reject(broken)
        if len(body) > MAX_BODY:
            return reject(f"body of {len(body)} characters is over the {MAX_BODY} limit")
        secrets = find_secrets(body + "\n" + title)
        if secrets:
            return reject(f"body holds what looks like a secret ({secrets[0].kind})")
        if "[REDACTED:" in body and len(REDACTED.sub("", body).strip()) < MIN_AROUND_SECRET:
            # "the staging key is [REDACTED]" remembers nothing but where a secret was
            return reject("body is little more than a removed secret")
        dangers = unverified(body + "\n" + title, self.verified)
        if dangers:
            # The command itself is not quoted: the reason lands in the log and git history.
            return reject(
                f"body presents a dangerous command the run did not run successfully"
                f" ({dangers[0].kind})"
            )
        if strict and (
            len(" ".join(body.split())) < MIN_BODY or len(body.split()) < MIN_BODY_WORDS
        ):
            return reject(
                f"body of {len(body.split())} words is below the minimum of {MIN_BODY_WORDS}"
                f" words and {MIN_BODY} characters"
            )
        if strict and copies_schema(body):
            return reject("body copies the plan's schema, not a lesson")
        if strict and wordy_date(raw.get("meta")):
            return reject(f"meta {wordy_date(raw.get('meta'))} is not a date (YYYY-MM-DD)")
        if strict and (repeats_itself(body) or loops(body)):
            return reject("body says one sentence over and over, not a lesson")
        if strict and self.run_text and unrelated(body, self.run_text):
            return reject("body shares too few words with the run to be a lesson of it")
        held = self._held_elsewhere(leaf, found, f"{title}\n{body}") if strict else ""
        if held:
            return reject(f"new leaf {leaf!r} repeats {held}, which the wiki already holds")
        if demoted:
            repair("headings inside the body demoted to ###")
        if raw.get("type") not in TYPES:
            repair(f"type {quoted(raw.get('type'))!r} replaced by 'semantic'")
        if action == "update" and entry_id not in existing and self.entries_known:
            if strict:
                return reject(f"update of missing entry {entry_id!r} in {leaf}")
            action = "add"
            repair(f"update of missing entry {entry_id!r} turned into an add")
        if action == "add" and slugify(title) and slugify(title) != entry_id:
            # an entry's id is the slug of its heading: the heading decides
            repair(f"entry id {entry_id!r} follows its title: {slugify(title)!r}")
            entry_id = slugify(title)
            if (leaf, entry_id) in self.seen:
                return reject("a second edit of the same entry in one plan")
        if action == "add" and entry_id in existing:
            action = "update"
            repair(f"add of existing entry {entry_id!r} turned into an update")
        if action == "update" and existing.get(entry_id, "").strip() == body:
            reason = one_line(str(raw.get("reason") or ""), MAX_REASON)
            self.confirmed.append(
                Edit("confirm", leaf, entry_id, title=title, reason=reason, runs=_runs(raw))
            )
            return reject(ALREADY_SAID)
        self.seen.add((leaf, entry_id))
        return Edit(
            action,
            leaf,
            entry_id,
            title=title or entry_id.replace("-", " ").capitalize(),
            type=str(kind),
            body=body,
            reason=one_line(str(raw.get("reason") or ""), MAX_REASON),
            leaf_title=one_line(str(raw.get("leaf_title") or ""), MAX_TITLE),
            leaf_summary=one_line(str(raw.get("leaf_summary") or ""), MAX_SUMMARY),
            meta=clean_meta(raw.get("meta")),
            runs=_runs(raw),
        )

    def _outside(self, leaf: str) -> str:
        """Why the leaf's page or its topic's page is out of bounds ("" when both are inside)."""
        if self.confine is None:
            return ""

        topic = leaf.split("/", 1)[0]
        try:
            self.confine(f"{leaf}/MEMORY.md")
            self.confine(f"{topic}/TOPIC.md")
        except WikimemError as exc:
            return f"path leaves the wiki: {exc}"
        return ""


def validate(
    raw: RawPlan,
    lookup: EntryLookup,
    *,
    total_entries: int = 0,
    max_remove_share: float = 0.5,
    verified: Collection[str] = (),
    confine: Confine | None = None,
    entries_known: bool = True,
    strict: bool = False,
    topics: Collection[str] | None = None,
    new_topics: int | None = None,
    run_text: str = "",
    namesakes: Callable[[str], Sequence[str]] | None = None,
) -> Plan:
    """Turn an untrusted plan into edits safe to apply (paths, sizes, secrets, entries,
    dangerous commands, page structure). `verified`: commands the runs' evidence shows
    succeeding, the only dangerous commands an entry may present (see `wikimem.guard`).
    `confine`: the wiki's path check, so a path through a symlink is rejected here, alone,
    rather than failing the whole pass when it is written. `entries_known` False: another
    memory provider holds the entries, so an update or remove of one the wiki lacks stands.
    `strict`: refuse what only a confused model writes (see the module's notes). `topics`:
    the wiki's topics; with it, at most `new_topics` new ones (one per run) are started, the
    edits of any further new topic are rejected, and so are summaries of topics that neither
    exist nor get an edit. `run_text`: the runs' own words; with it, strict validation also
    refuses a leaf copied from the schema's example the run never mentions and a body that
    shares too little with the run. `namesakes`: the wiki's leaves named like a leaf; with it,
    strict validation refuses a new leaf whose entry repeats one a namesake holds."""
    checker = _Checker(lookup, verified, confine, entries_known, strict, run_text, namesakes)
    edits: list[Edit] = []
    started: list[str] = []
    for index, item in enumerate(raw.edits):
        if index >= MAX_EDITS:
            checker.rejected.append(Note(index, "edit", f"more than {MAX_EDITS} edits in a plan"))
            continue
        edit = checker.check(index, item)
        if edit is None:
            continue
        topic = edit.leaf.split("/", 1)[0]
        if topics is not None and topic not in topics and not item.get(BY_RULES):
            if topic not in started and new_topics is not None and len(started) >= new_topics:
                what = quoted(f"{edit.action} {edit.leaf}#{edit.entry}")
                checker.rejected.append(
                    Note(index, what, f"starts a new topic {topic!r} beyond the {new_topics}"
                         f" this plan's runs allow ({', '.join(started) or 'none'} already)")
                )  # fmt: skip
                checker.seen.discard((edit.leaf, edit.entry))
                continue
            if topic not in started:
                started.append(topic)
        edits.append(edit)
    written = {e.leaf.split("/", 1)[0] for e in edits}
    summaries = []
    for index, item in enumerate(raw.topics):
        name, summary = item.get("topic"), item.get("summary")
        if item.get("_malformed"):
            why = f"the answer gave it {quoted(item['_malformed'], 120)}"
            checker.rejected.append(Note(index, f"topic {quoted(name)!r}", why))
        elif not isinstance(name, str) or not SLUG.match(name) or not isinstance(summary, str):
            checker.rejected.append(Note(index, f"topic {quoted(name)!r}", "bad topic or summary"))
        elif find_secrets(name):
            checker.rejected.append(
                Note(
                    index, "topic", f"topic name looks like a secret ({find_secrets(name)[0].kind})"
                )
            )
        elif topics is not None and name not in topics and name not in written:
            # not named: a name the wiki lacks was never checked as a folder name was
            checker.rejected.append(Note(index, "topic", "summary of a topic not in the wiki"))
        elif len(name) > MAX_SEGMENT or name in _RESERVED:
            checker.rejected.append(Note(index, f"topic {name}", "bad topic name"))
        elif strict and name not in written:
            # a topic's summary follows its entries; rewriting one the plan leaves alone is a
            # confused (or steered) model's move, and TOPIC.md reaches every session's start
            why = "summary of a topic this plan writes no entry to"
            checker.rejected.append(Note(index, f"topic {name}", why))
        elif strict and loops(summary):
            checker.rejected.append(Note(index, f"topic {name}", "the summary loops on a phrase"))
        elif line_problem([summary], verified) or checker._outside(f"{name}/general"):
            why = line_problem([summary], verified) or checker._outside(f"{name}/general")
            checker.rejected.append(Note(index, f"topic {name}", why))
        elif summary.strip():
            summaries.append(TopicSummary(name, one_line(summary, MAX_SUMMARY)))
    # a commit's subject line is short; a plan that adds nothing says why in full instead,
    # down to the entry that already holds the lesson (`already in the wiki: PATH#ENTRY`)
    limit = MAX_SUMMARY if not edits and raw.summary.startswith(ALREADY_IN) else SUBJECT_MAX
    summary = one_line(raw.summary or DEFAULT_SUMMARY, limit)
    if line_problem([raw.summary or "", summary], verified):
        summary = DEFAULT_SUMMARY
    return Plan(
        summary=summary,
        edits=tuple(edits),
        topics=tuple(summaries),
        rejected=tuple(checker.rejected),
        repaired=tuple(checker.repaired),
        held=_held(edits, lookup, total_entries, max_remove_share),
        confirmed=tuple(checker.confirmed),
    )


def _held(edits: list[Edit], lookup: EntryLookup, total: int, share: float) -> str:
    """Mass removal is held for a person to approve: it is what an injected plan looks like."""
    removes: dict[str, int] = {}
    for edit in edits:
        if edit.action == "remove":
            removes[edit.leaf] = removes.get(edit.leaf, 0) + 1
    for leaf, count in sorted(removes.items()):
        size = len(lookup(leaf) or {})
        if size >= 2 and count / size > share:
            return f"removes {count} of {size} entries in {leaf}"
    count = sum(removes.values())
    if total >= 4 and count / total > share:
        return f"removes {count} of {total} entries in the wiki"
    return ""
