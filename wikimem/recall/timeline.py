"""The wiki's dated history: which run changed what, when, and what the episodic entries say.

A read path over the wiki's git history: each commit is an event (date, runs, author) with the
entries it added, updated or removed; an episodic entry's text comes with it, since that text is
what happened. Episodic entries dated in their heading or metadata (`date=2026-04-12`) are
events of their own on that day. Invariant: nothing here writes; events come newest first, and
a query's time expression filters by day while its other words filter by text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from wikimem.config import Places, Settings
from wikimem.recall.when import Window, split_when
from wikimem.wiki import markdown
from wikimem.wiki.pages import LEAF_FILE, Wiki
from wikimem.wiki.workspace import open_repo

if TYPE_CHECKING:  # `context` runs at the start of every agent run: git loads only when asked
    from wikimem.wiki.history import WikiRepo
    from wikimem.wiki.history.commits import Commit

SCAN = 5000  # commits read at most: years of passes, in one `git log`
EXAMINE = 400  # events looked into (entries read from git) for one query at most
TEXT_CHARS = 300
# words a question wraps around what it asks
_STOP = (
    "a about an and at did do does for how in is it of on or the to was we what when which who with"
)
STOP = frozenset(_STOP.split())
_DATED = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class Touched:
    """One entry (or a whole leaf, entry "") an event added, updated or removed."""

    ref: str
    action: str
    title: str
    type: str
    text: str = ""


@dataclass(frozen=True)
class Event:
    date: str
    commit: str
    subject: str
    author: str = ""
    runs: tuple[str, ...] = ()
    changes: tuple[Touched, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def haystack(self) -> str:
        parts = [self.subject, " ".join(self.runs)]
        parts += [f"{c.ref} {c.title} {c.text}" for c in self.changes]
        return " ".join(parts).lower()


@dataclass(frozen=True)
class Timeline:
    window: Window | None
    words: tuple[str, ...]
    events: tuple[Event, ...] = field(default=())


def words_of(text: str) -> tuple[str, ...]:
    return tuple(w for w in re.findall(r"[\w./-]+", text.lower()) if w not in STOP)


def timeline(
    places: Places,
    settings: Settings,
    query: str = "",
    limit: int = 20,
    today: dt.date | None = None,
) -> Timeline:
    """Events matching `query` (a time expression and/or words), newest first, at most `limit`."""
    today = today or dt.datetime.now(dt.timezone.utc).date()
    window, rest = split_when(query, today)
    words = words_of(rest)
    found: list[Event] = []
    for n, event in enumerate(events(places, settings, window)):
        if n >= EXAMINE:
            break  # a word found nowhere must not read years of history entry by entry
        if all(w in event.haystack() for w in words):
            found.append(event)
            if len(found) >= limit:
                break
    return Timeline(window, words, tuple(found))


def events(places: Places, settings: Settings, window: Window | None) -> Iterator[Event]:
    """Every event in `window` (or all), newest first: commits, and dated episodic entries."""
    repo = open_repo(places, settings)
    dated = sorted(dated_entries(Wiki(places.wiki), window), key=lambda e: e.date, reverse=True)
    # git lists by commit date; a timeline goes by when the change was made (the author date)
    commits = [
        c for c in repo.log(limit=SCAN, with_paths=True) if window is None or window.holds(c.date)
    ]
    commits.sort(key=lambda c: dt.datetime.fromisoformat(c.date), reverse=True)
    for commit in commits:
        while dated and dated[0].date > commit.date[:10]:
            yield dated.pop(0)
        yield commit_event(repo, commit)
    yield from dated


def commit_event(repo: WikiRepo, commit: Commit) -> Event:
    changes: list[Touched] = []
    parent = repo.parent(commit.sha)
    for path in commit.paths:
        if path.endswith("/" + LEAF_FILE) and not path.startswith("."):
            changes.extend(leaf_changes(repo, parent, commit.sha, path[: -len(LEAF_FILE) - 1]))
    return Event(
        commit.date,
        commit.short,
        commit.subject,
        commit.author,
        tuple(commit.trailers.get("Wikimem-Run", ())),
        tuple(changes),
    )


def leaf_changes(repo: WikiRepo, old: str | None, new: str, leaf: str) -> Iterator[Touched]:
    """The entries of `leaf` that differ between commits `old` and `new`."""
    file = f"{leaf}/{LEAF_FILE}"
    before = markdown.parse_page(repo.read(old, file) or "") if old else None
    after_text = repo.read(new, file)
    after = markdown.parse_page(after_text) if after_text is not None else None
    either = after or before
    leaf_type = str(either.meta.get("type") or "") if either else ""
    old_entries = {e.id: e for e in before.entries} if before else {}
    new_entries = {e.id: e for e in after.entries} if after else {}
    for entry_id, entry in new_entries.items():
        was = old_entries.get(entry_id)
        if was is None or was.body != entry.body or was.title != entry.title:
            yield touched(leaf, entry, "added" if was is None else "updated", leaf_type)
    for entry_id, entry in old_entries.items():
        if entry_id not in new_entries:
            yield touched(leaf, entry, "removed", leaf_type)


def touched(leaf: str, entry: markdown.Entry, action: str, leaf_type: str) -> Touched:
    kind = entry.meta.get("type") or leaf_type
    # what happened is the text of an episodic entry; other types are named by their title
    text = " ".join(entry.body.split())[:TEXT_CHARS] if kind == "episodic" else ""
    return Touched(f"{leaf}#{entry.id}", action, entry.title.strip(), kind, text)


def dated_entries(wiki: Wiki, window: Window | None) -> Iterator[Event]:
    """Episodic entries of today's wiki that carry their own day (meta `date=`, or a heading
    starting with an ISO date)."""
    for path in wiki.leaves():
        page = wiki.read_page(wiki.leaf_file(path))
        if page is None:
            continue
        leaf_type = str(page.meta.get("type") or "")
        for entry in page.entries:
            kind = entry.meta.get("type") or leaf_type
            if kind != "episodic":
                continue
            m = _DATED.match(entry.meta.get("date", "")) or _DATED.match(entry.title.strip())
            if m is None or (window is not None and not window.holds(m.group(1))):
                continue
            change = touched(path, entry, "happened", leaf_type)
            yield Event(m.group(1), "", entry.title.strip(), changes=(change,))


def changed_in(places: Places, settings: Settings, window: Window) -> set[str]:
    """Refs (`leaf#entry`, and `leaf` alone) of what changed or happened within `window`."""
    refs: set[str] = set()
    for event in events(places, settings, window):
        for change in event.changes:
            refs.update((change.ref, change.ref.split("#", 1)[0]))
    return refs


def time_slice(
    places: Places, settings: Settings, query: str, today: dt.date | None = None
) -> tuple[str, set[str]]:
    """For `search` and `context`: the query's words without its time expression, and the refs
    changed in that time (to show first); the query as it is and no refs when it names none.
    A query that is only a time expression keeps its words: there is nothing else to search."""
    window, rest = split_when(query, today or dt.datetime.now(dt.timezone.utc).date())
    if window is None:
        return query, set()
    return rest or query, changed_in(places, settings, window)
