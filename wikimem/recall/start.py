"""What a runner's SessionStart hook adds to the agent's context: the bounded profile, the
entries the workspace hints at, then the strongest entries, none of them contradicted by the
code as it is now, each marked with where it came from.

The hints are what the start offers before any prompt: the payload's prompt when a runner
sends one, the branch checked out (read from `.git/HEAD`, without git), and the task of the
newest run queued in this workspace. Entries come from `context.relevant` and are checked with
`verify.check_text`: one citing a file, script or target that no longer exists is left out,
and a last line says how many were, so the agent never starts from a claim the code already
contradicts. The budget follows the start's `source`: a resumed session already holds what its
start printed, so it gets the smaller budget.

The room left is filled with the strongest entries, as `recall.standing` ranks them (a
person's, then an explicit candidate's, a model's, an offline rule's; then confirmations and
uses), so a start without hints teaches too. Each entry printed says where it came from
(`— from a person`, `— learned from run r-1, confirmed 2×`). None is printed twice (nor the
same words from two leaves, nor an entry beside its leaf's summary), none whose page no longer
holds the text the index has (updated or removed since), and an `identity` entry only when a
person wrote it: a planted or model-written one never reaches the agent from here.

Invariants: the text never exceeds the budget; the same wiki, workspace and hints give the
same bytes (the standing being state too); reading never writes the wiki nor the index.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wikimem.fsio import read_text
from wikimem.recall.context import (
    FIRST_LINES,
    MAX_ENTRIES,
    NO_PROFILE,
    PROFILE_FILE,
    ContextEntry,
    assemble,
    distinct,
    opening,
    plain,
    profile_parts,
)
from wikimem.recall.search.hits import focused_terms, matches
from wikimem.recall.search.store import SCHEMA
from wikimem.recall.search.terms import match_expression, query_terms, readable
from wikimem.recall.standing import Standing, index_head, page_digest, uses_mark
from wikimem.recall.verify import Workspace, check_text
from wikimem.wiki import markdown

SOURCES = ("startup", "resume", "clear", "compact")
RESUMED = frozenset({"resume"})
QUERY_WORDS = 12
MAIN_BRANCHES = frozenset({"main", "master", "trunk", "develop", "dev"})
TASK_CHARS = 300
STALE = (
    "\n(Left out {n} memory entr{ies} whose citations no longer match the workspace: "
    "wikimem verify)\n"
)
JOB_STATES = ("pending", "active", "done")
FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
PLAIN_FIELD = re.compile(r"([A-Za-z_][\w-]*):[ \t]+([^\s'\"\[\]{}>|&*!%@`#,?:-][^\n]*?)[ \t]*")
FIRST_ENTRY = (
    "SELECT d.title, fts.body FROM docs AS d JOIN fts ON fts.rowid = d.id"
    " WHERE d.path = ? AND d.entry != '' AND (d.expires IS NULL OR d.expires >= ?)"
    " AND d.type IS NOT 'identity' ORDER BY d.id LIMIT 1"
)
ENTRY_ROW = (
    "SELECT d.path, d.entry, d.title AS name, d.leaf_title, d.type, d.expires, fts.body"
    " FROM docs AS d JOIN fts ON fts.rowid = d.id WHERE d.path = ? AND d.entry = ?"
)
ANY_ENTRIES = (
    "SELECT path, entry FROM docs WHERE entry != '' AND (expires IS NULL OR expires >= ?)"
    " ORDER BY path, entry LIMIT ?"
)
STRONG_ROWS = 60  # candidates read for the strongest entries: more than a budget holds
SOURCES_SAID = {
    "person": "from a person",
    "candidate": "asked for by run {run}",
    "model": "learned from run {run}",
    "rule": "offline rule, run {run}",
}
UNSAID = {"candidate": "asked for by a run", "model": "learned by a model", "rule": "offline rule"}
YAML_WORDS = frozenset({"null", "~", "true", "false", "yes", "no", "on", "off", ".nan", ".inf"})


@dataclass(frozen=True)
class Start:
    """The text to print and what was left out, for tests and `--json`."""

    text: str
    entries: tuple[ContextEntry, ...]
    stale: tuple[str, ...]
    query: str
    refresh: bool = False  # the standing is behind the index or a page: refresh it


def budget_for(source: Any, start_budget: int, resume_budget: int) -> int:
    """The budget of this start: resumed sessions already hold the context of their start."""
    return resume_budget if source in RESUMED else start_budget


def hints(payload: Mapping[str, Any], workspace: Path, queue: Path) -> str:
    """Words that say what this session is likely about: a prompt, the branch, a recent task."""
    parts = [
        str(payload[k]) for k in ("prompt", "initial_prompt") if isinstance(payload.get(k), str)
    ]
    branch = current_branch(workspace)
    if branch and branch not in MAIN_BRANCHES:
        parts.append(re.sub(r"[/_.-]+", " ", branch))
    task = recent_task(queue)
    if task:
        parts.append(task[:TASK_CHARS])
    return " ".join(p.strip() for p in parts if p.strip())


def current_branch(workspace: Path) -> str | None:
    """The branch checked out in `workspace`, read from its HEAD file (worktrees included)."""
    dot_git = workspace / ".git"
    try:
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            pointer = dot_git.read_text(encoding="utf-8").strip()
            if not pointer.startswith("gitdir:"):
                return None
            dot_git = (workspace / pointer.removeprefix("gitdir:").strip()).resolve()
        head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None


def recent_task(queue: Path) -> str | None:
    """The task of the newest run queued in this workspace (already redacted when queued)."""
    newest: tuple[float, Path] | None = None
    for state in JOB_STATES:
        try:
            with_times = [(p.stat().st_mtime, p) for p in (queue / state).glob("*.json")]
        except OSError:
            continue
        for item in with_times:
            if newest is None or item > newest:
                newest = item
    if newest is None:
        return None
    try:
        task = json.loads(newest[1].read_text(encoding="utf-8"))["run"]["task"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return task if isinstance(task, str) else None


def start_context(
    wiki: Path,
    workspace: Path,
    index_file: Path | None,
    query: str,
    budget: int,
    state: Path | None = None,
) -> Start:
    """The profile, then the fresh entries `query` finds, then the strongest entries the
    standing ranks (`recall.standing`, read from `state`), within `budget` characters."""
    budget = max(0, budget)
    profile = profile_summary(wiki)
    standing = Standing(state)
    try:
        return teach(wiki, workspace, index_file, query, budget, profile, standing, state)
    finally:
        standing.close()


def teach(
    wiki: Path,
    workspace: Path,
    index_file: Path | None,
    query: str,
    budget: int,
    profile: str,
    standing: Standing,
    state: Path | None,
) -> Start:
    hits, more, strong, head = gathered(index_file, query, standing, budget - len(profile))
    check = Checks(wiki, Workspace(workspace), standing)
    fresh: list[ContextEntry] = []
    bodies: set[str] = set()
    for hit in hits:
        if check.shown(hit) and not (hit.entry and hit.body.strip() in bodies):
            fresh.append(mark(hit, check))
            bodies.update([hit.body.strip()] if hit.entry else [])
    shown = {e.source for e in fresh}
    summaries = {e.path for e in fresh if e.entry is None}
    fill: list[ContextEntry] = []
    room = budget - len(profile) - sum(len(e.render()) for e in fresh)
    for item in strong:
        if room <= 0:
            break
        if item.source in shown or item.path in summaries or item.body.strip() in bodies:
            continue  # printed already, or its leaf's summary (a hit) quotes the page
        if not check.shown(item):
            continue
        item = mark(item, check)
        shown.add(item.source)
        bodies.add(item.body.strip())
        fill.append(item)
        room -= len(item.render())
    dropped = tuple(check.stale)
    note = STALE.format(n=len(dropped), ies="y" if len(dropped) == 1 else "ies") if dropped else ""
    if len(note) > budget:
        note = ""
    built = assemble(profile, fresh, budget - len(note), more, fill)
    behind = bool(
        index_file is not None
        and index_file.is_file()
        and (
            not standing
            or standing.marks.get("head") != head
            or (state is not None and standing.marks.get("uses") != uses_mark(state))
            or check.behind
        )
    )
    return Start(built.text + note, built.entries, dropped, query, behind)


class Checks:
    """What a start asks of each entry before it prints it, reading each page once."""

    def __init__(self, wiki: Path, ws: Workspace, standing: Standing) -> None:
        self.wiki, self.ws, self.standing = wiki, ws, standing
        self.pages: dict[str, tuple[str, str] | None] = {}
        self.stale: list[str] = []
        self.behind = False
        self.seen: dict[str, bool] = {}

    def page(self, path: str) -> tuple[str, str] | None:
        """The page's text as an entry's body appears in it, and its digest; None if gone."""
        if path not in self.pages:
            try:
                text = read_text(self.wiki.joinpath(*path.split("/"), "MEMORY.md"))
            except OSError:
                self.pages[path] = None
            else:
                self.pages[path] = (plain(text), page_digest(text))
            found = self.pages[path]
            if found is not None and self.standing.digest(path) != found[1]:
                self.behind = True  # the standing has not seen this page as it is
        return self.pages[path]

    def origin(self, item: ContextEntry) -> Mapping[str, Any] | None:
        """What the standing says of the entry, if it was refreshed since the page changed."""
        page = self.page(item.path)
        if page is None or item.entry is None or self.standing.digest(item.path) != page[1]:
            return None
        return self.standing.entry(item.path, item.entry)

    def shown(self, item: ContextEntry) -> bool:
        """Whether the entry may be printed: its page still holds it as indexed (an update
        since would make this text superseded), an identity entry is a person's own, and
        `verify` finds none of its citations broken (those are counted in `stale`, once)."""
        if item.source not in self.seen:
            self.seen[item.source] = self.allowed(item)
        return self.seen[item.source]

    def allowed(self, item: ContextEntry) -> bool:
        page = self.page(item.path)
        if page is None or (item.entry and item.body.strip() not in page[0]):
            return False
        if item.type == "identity" and item.entry is None:
            return False  # a leaf's summary has no one author to vouch for it
        if item.type == "identity" and (self.origin(item) or {}).get("source") != "person":
            return False
        if stale(item, self.ws, self.wiki):
            self.stale.append(item.source)
            return False
        return True


def mark(item: ContextEntry, check: Checks) -> ContextEntry:
    """The entry with where it came from, as the agent should weigh it."""
    if item.entry is None:
        return item
    found = check.origin(item)
    source = str((found or {}).get("source") or "")
    run = str((found or {}).get("run") or "")
    if source in SOURCES_SAID and (run or source == "person"):
        said = SOURCES_SAID[source].format(run=run)
    else:
        said = UNSAID.get(source, "origin not recorded yet")
    confirmed = int((found or {}).get("confirmed") or 0)
    used = (found or {}).get("used")
    parts = [said]
    if confirmed:
        parts.append(f"confirmed {confirmed}×")
    if isinstance(used, int) and used > 0:
        parts.append(f"used {used}×")
    return replace(item, mark=", ".join(parts))


def stale(entry: ContextEntry, ws: Workspace, wiki: Path) -> bool:
    """Whether the entry cites something `wikimem verify` finds broken."""
    return next(check_text(entry.body, ws, wiki / entry.path), None) is not None


def profile_summary(wiki: Path) -> str:
    """`context.profile_text`, reading only PROFILE.md's frontmatter and head as a page: the
    generated block is taken as it stands, so no Markdown parser is loaded for it (the parser's
    import alone costs a session start about 60 ms)."""
    path = wiki / PROFILE_FILE
    if not path.is_file():
        return NO_PROFILE
    text = plain(read_text(path))
    span = markdown.generated_block(text)
    meta = plain_meta(text)
    if meta is not None and meta.get("title"):
        title = meta["title"]
    else:
        page = markdown.parse_page(text[: span[0]] if span else text)
        meta = dict(page.meta) if isinstance(page.meta, Mapping) else {}
        title = page.title
    block = text[span[0] : span[1]] if span else markdown.parse_page(text).head
    return profile_parts(title, meta.get("summary"), block)


def plain_meta(text: str) -> dict[str, str] | None:
    """The frontmatter when every line is `key: plain text`, as wikimem writes PROFILE.md; None
    for anything YAML could read differently (quotes, lists, comments, null...).

    A fenced speed trick: loading the YAML parser costs a session start about 30 ms of its
    ~150 (bench/start.py); a frontmatter this cannot read goes through the page parser."""
    match = FRONTMATTER.match(text)
    if match is None:
        return None
    meta: dict[str, str] = {}
    for line in match.group(1).splitlines():
        field_match = PLAIN_FIELD.fullmatch(line)
        if field_match is None:
            return None
        value = field_match.group(2)
        if ": " in value or " #" in value or value.lower() in YAML_WORDS:
            return None
        meta[field_match.group(1)] = value
    return meta


def indexed(index_file: Path | None, query: str) -> tuple[list[ContextEntry], bool]:
    """Unexpired entries for `query`, best first, as the search index holds them; whether
    there were more (see `gathered`)."""
    hits, more, _, _ = gathered(index_file, query, None)
    return hits, more


def gathered(
    index_file: Path | None, query: str, standing: Standing | None, room: int = 0
) -> tuple[list[ContextEntry], bool, list[ContextEntry], str]:
    """The entries `query` finds (best first, whether there were more), then, unless
    `standing` is None, the candidates for the strongest entries in the standing's order (in
    path order when there is no standing yet), and the index's head mark.

    The index is opened read-only and never refreshed here: checking 10,000 leaves for changes
    takes about half a second and rebuilding them seconds, while a session start must be quick.
    Every pass refreshes the index after it commits and the index keeps each entry's body as
    the page had it, so what a start misses is at most a person's edits since the last pass or
    search. Without an index file (no pass or search yet) there are no entries, only the
    profile."""
    if index_file is None or not index_file.is_file():
        return [], False, [], ""
    try:
        db = sqlite3.connect(f"{index_file.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return [], False, [], ""
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
            return [], False, [], ""
        terms = query_terms(focused_terms(db, query_terms(query), QUERY_WORDS)) if query else []
        rows = best_rows(db, terms, MAX_ENTRIES + 1) if terms else []
        found = distinct([entry_of(db, row) for row in rows[:MAX_ENTRIES]])
        strong = strongest(db, standing, room) if standing is not None else []
        head = index_head(db)
    except sqlite3.Error:
        return [], False, [], ""  # busy or damaged: the next search rebuilds it
    finally:
        db.close()
    return found, len(rows) > MAX_ENTRIES, strong, head


def strongest(db: sqlite3.Connection, standing: Standing, room: int) -> list[ContextEntry]:
    """Unexpired entries, strongest first as the standing ranks them (in path order while
    there is no standing yet), until they hold twice the `room` left for them."""
    day = dt.date.today().isoformat()
    db.row_factory = sqlite3.Row
    order = standing.order(STRONG_ROWS)
    if not order:  # keys first: a join with the text table would scan all of it
        order = [(str(p), str(e)) for p, e in db.execute(ANY_ENTRIES, (day, STRONG_ROWS))]
    rows: Iterator[sqlite3.Row | None] = (db.execute(ENTRY_ROW, key).fetchone() for key in order)
    found: list[ContextEntry] = []
    held = 0
    for row in rows:
        if held > 2 * room:
            break
        if row is not None and (row["expires"] is None or row["expires"] >= day):
            found.append(entry_of(db, row))
            held += len(found[-1].body) + len(found[-1].title) + 40
    return found


def best_rows(db: sqlite3.Connection, terms: list[str], limit: int) -> list[sqlite3.Row]:
    """Rows matching every term first, then those matching some (as `hits.find` ranks)."""
    day = dt.date.today().isoformat()
    found: list[sqlite3.Row] = []
    seen: set[tuple[str, str]] = set()
    for operator in ["AND", "OR"] if len(terms) > 1 else ["AND"]:
        for row in matches(db, match_expression(terms, operator), limit + len(seen), False, day):
            key = (row["path"], row["entry"])
            if key not in seen and len(found) < limit:
                seen.add(key)
                found.append(row)
        if len(found) >= limit:
            break
    return found


def entry_of(db: sqlite3.Connection, row: sqlite3.Row) -> ContextEntry:
    """What `context.context_entry` makes of the page, from the rows indexed from that page
    (the same titles and bodies; a test holds the two equal)."""
    path, leaf_title = str(row["path"]), str(row["leaf_title"] or row["path"])
    if row["entry"]:
        title, body = str(row["name"]).strip(), plain(str(row["body"]))
        return ContextEntry(path, str(row["entry"]), title, leaf_title, body, row["type"])
    parts = [str(row["summary"] or "").strip(), readable(plain(str(row["body"] or "")))]
    if not parts[1]:  # a head that is only its title: context shows the first entry's opening
        first = db.execute(FIRST_ENTRY, (path, dt.date.today().isoformat())).fetchone()
        if first is not None:
            parts.append(f"{str(first[0]).strip()}: {opening(plain(str(first[1])), FIRST_LINES)}")
    body = "\n\n".join(p for p in parts if p)
    return ContextEntry(path, None, leaf_title, leaf_title, body, row["type"])
