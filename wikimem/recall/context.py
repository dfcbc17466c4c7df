"""What a runner injects at the start of a run: the profile, then entries relevant to a query.

Invariants: the text never exceeds the budget (final line included); it is cut on entry
boundaries (an entry is whole or absent) and on line boundaries within the profile; the same wiki
and query give the same bytes (no clock, ties broken on path and entry id), so prompt caches hit.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.fsio import read_text
from wikimem.recall.search import LEAF_FILE, SearchIndex, clean, readable
from wikimem.recall.search.rows import iso_date
from wikimem.wiki import markdown

DEFAULT_BUDGET = 4000
MAX_ENTRIES = 20
FIRST_LINES = 300  # of a leaf's first entry, when a hit is the leaf and its head is a title
PROFILE_FILE = "PROFILE.md"
HEADING = "\n## Relevant memory\n"
STRONGEST = "\n## Strongest memory\n"
MORE = "\nMore in memory: wikimem show PATH, wikimem search QUERY\n"
EMPTY = "Memory is empty: nothing has been recorded in this workspace yet.\n"
NO_PROFILE = "No memory profile yet: PROFILE.md has not been written.\n"
TITLE_CHARS = 80
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# Rules and marks an output banner or a log line wraps its words in: box-drawing and line
# characters of any length, ASCII rules of three or more, and single status glyphs.
RULE = (
    r"[\u2500-\u259f\u23af\u2015\u2014\u2013\u25a0-\u25ff\u2190-\u21ff]+|[-=_*#~.]{3,}"
    r"|[\u2713-\u2718\u00d7\u2022\u25ba\u25b6\u276f>|]"
)
BANNER_END = re.compile(rf"\A(?:\s|{RULE})+|(?:\s|{RULE})+\Z")
LOG_LEVEL = re.compile(
    r"\A(?:npm\s+ERR!|\[?(?:error|err|fatal|warning|warn|fail|failed)\]?\s*[:!]"
    r"|\[(?:error|fatal|warning|warn|fail)\])\s*",
    re.I,
)
TIMESTAMP = re.compile(r"\A\[?\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\]?\s*|\A\[\d\d:\d\d(?::\d\d)?\]\s*")


@dataclass(frozen=True)
class ContextEntry:
    """One entry (or, with `entry` None, one leaf's summary) as it appears in the context."""

    path: str
    entry: str | None
    title: str
    leaf_title: str
    body: str
    type: str | None
    mark: str = ""  # where it came from, for the agent to weigh it ("from a person")

    @property
    def source(self) -> str:
        return f"{self.path}#{self.entry}" if self.entry else self.path

    def render(self) -> str:
        leaf = heading_title(self.leaf_title, self.path)
        heading = f"{leaf} › {heading_title(self.title, self.entry or '')}" if self.entry else leaf
        body = f"{self.body}\n\n" if self.body else ""
        mark = f" — {self.mark}" if self.mark else ""
        return f"\n### {heading}\n\n{body}(wikimem show {self.source}{mark})\n"


def heading_title(title: str, fallback: str) -> str:
    """The heading as a person would write it: a raw output banner (`⎯⎯⎯ Failed Tests 1 ⎯⎯⎯`)
    or a log line (`error: lockfile had changes`) loses its rules, level and time stamp, and a
    long one is cut on a word. Only what is printed changes, never the wiki."""
    text = " ".join(ANSI.sub("", title).split())
    bare = BANNER_END.sub("", text)
    if bare != text and re.search(r"[\u2500-\u259f\u23af]|[-=_*#~.]{3,}", text):
        bare = re.sub(r"\s+\d+\Z", "", bare)  # the banner's count: "Failed Tests 1"
    bare = BANNER_END.sub("", LOG_LEVEL.sub("", TIMESTAMP.sub("", bare)))
    if len(bare) > TITLE_CHARS:
        bare = bare[: TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    if bare.isupper() and len(bare) > 3:  # a shouted banner: "FAILURES"
        bare = bare.capitalize()
    if not bare:
        bare = fallback.replace("-", " ").replace("/", " › ").strip() or title.strip()
    return bare[:1].upper() + bare[1:] if bare[:1].islower() else bare


@dataclass(frozen=True)
class Context:
    text: str
    entries: tuple[ContextEntry, ...]
    truncated: bool
    profile: str = ""

    @property
    def chars(self) -> int:
        return len(self.text)


def plain(text: str) -> str:
    """Normalised newlines so a CRLF page renders the same as an LF one."""
    return clean(text).replace("\r\n", "\n").replace("\r", "\n")


def profile_text(wiki: Path) -> str:
    """PROFILE.md's title and summary from frontmatter, then its generated block."""
    path = wiki / PROFILE_FILE
    if not path.is_file():
        return NO_PROFILE
    text = plain(read_text(path))
    page = markdown.parse_page(text)
    meta: Mapping[str, Any] = page.meta if isinstance(page.meta, Mapping) else {}
    span = markdown.generated_block(text)
    block = text[span[0] : span[1]] if span else page.head
    return profile_parts(page.title, meta.get("summary"), block)


def profile_parts(title: str | None, summary: Any, block: str) -> str:
    """The profile an agent is shown: `# title`, the summary, then the generated block."""
    parts = [f"# {title or 'Project memory'}"]
    if summary:
        parts.append(plain(str(summary)).strip())
    if block.strip():
        parts.append(block.strip())
    return "\n\n".join(parts) + "\n"


def relevant(
    wiki: Path, index: SearchIndex, query: str, state: Path | None = None
) -> tuple[list[ContextEntry], bool]:
    """Unexpired entries for `query`, best first, read from the pages themselves; an identity
    entry only when the standing in `state` says a person wrote it (see `vouched`).

    Returns the entries and whether the search had more than MAX_ENTRIES to offer.
    """
    index.refresh()
    hits = index.search(query, MAX_ENTRIES + 1, include_expired=False)
    pages: dict[str, tuple[markdown.Page, str] | None] = {}
    found: list[ContextEntry] = []
    for hit in hits[:MAX_ENTRIES]:
        if hit.path not in pages:
            try:
                raw = read_text(wiki.joinpath(*hit.path.split("/"), LEAF_FILE))
            except OSError:
                pages[hit.path] = None
            else:
                pages[hit.path] = (markdown.parse_page(plain(raw)), raw)
        page = pages[hit.path]
        if page is not None:
            item = context_entry(hit.path, hit.entry, page[0])
            if item is not None and (item.type != "identity" or vouched(item, page[1], state)):
                found.append(item)
    return distinct(found), len(hits) > MAX_ENTRIES


def vouched(item: ContextEntry, page_text: str, state: Path | None) -> bool:
    """Whether an identity entry may be shown: a person wrote it, as the standing (refreshed
    from git after each pass, `recall.standing`) knows it for the page as it is now. Who the
    owner is and what they allow is what a planted entry would claim, so an entry no one
    vouches for (a model's from before such writes were held, or one the standing has not
    seen yet) is left out, as `wikimem start` leaves it out."""
    from wikimem.recall.standing import Standing, page_digest

    if item.entry is None:
        return False  # a leaf's summary has no one author to vouch for it
    standing = Standing(state)
    try:
        if standing.digest(item.path) != page_digest(page_text):
            return False
        return (standing.entry(item.path, item.entry) or {}).get("source") == "person"
    finally:
        standing.close()


def context_entry(path: str, entry_id: str | None, page: markdown.Page) -> ContextEntry | None:
    meta: Mapping[str, Any] = page.meta if isinstance(page.meta, Mapping) else {}
    leaf_title = page.title or path
    leaf_type = str(meta["type"]) if meta.get("type") else None
    if entry_id is None:
        parts = [str(meta.get("summary") or "").strip(), readable(page.head)]
        live = [
            e
            for e in page.entries
            if not expired(e.meta.get("expires"))
            and (e.meta.get("type") or leaf_type) != "identity"  # never quoted unvouched
        ]
        if live and not parts[1]:  # a head that is only its title: show what follows
            first = live[0]
            parts.append(f"{first.title.strip()}: {opening(first.body, FIRST_LINES)}")
        body = "\n\n".join(p for p in parts if p)
        return ContextEntry(path, None, leaf_title, leaf_title, body, leaf_type)
    item = page.entry(entry_id)
    if item is None:
        return None  # the index is older than the page; the entry is gone
    kind = item.meta.get("type") or leaf_type
    return ContextEntry(path, item.id, item.title.strip(), leaf_title, item.body, kind)


def expired(value: Any) -> bool:
    """Whether an entry's `expires` date has passed (an unreadable one never expires it)."""
    day = iso_date(value)
    return day is not None and day < dt.date.today().isoformat()


def distinct(entries: list[ContextEntry]) -> list[ContextEntry]:
    """Each entry once: a leaf's summary is left out when one of its entries is there too
    (it would quote that entry's opening a second time)."""
    with_entries = {e.path for e in entries if e.entry}
    seen: set[str] = set()
    kept = []
    for item in entries:
        if item.source in seen or (item.entry is None and item.path in with_entries):
            continue
        seen.add(item.source)
        kept.append(item)
    return kept


def opening(text: str, room: int) -> str:
    """The first lines of `text` within `room` characters, the first line cut if it is longer."""
    text = readable(text)
    kept = fit_lines(text, room).rstrip()
    if kept or not text:
        return kept
    return text[: room - 1].rsplit(" ", 1)[0] + "…"


def fit_lines(text: str, room: int) -> str:
    """The longest run of whole lines from the start of `text` within `room` characters."""
    kept, used = [], 0
    for line in text.splitlines(keepends=True):
        if used + len(line) > room:
            break
        kept.append(line)
        used += len(line)
    return "".join(kept)


def assemble(
    profile: str,
    entries: list[ContextEntry],
    budget: int,
    more: bool,
    fill: list[ContextEntry] | None = None,
) -> Context:
    """The profile and `entries` (what a query found) within `budget`; then, in the room left
    with the profile whole, as many of `fill` (the strongest entries, best first) as fit."""
    fill = fill or []
    blocks = [item.render() for item in entries]
    extra = [item.render() for item in fill]
    full = (
        profile
        + (HEADING + "".join(blocks) if blocks else "")
        + (STRONGEST + "".join(extra) if extra else "")
    )
    if not more and len(full) <= budget:
        return Context(full, (*entries, *fill), False, profile)
    room = budget - len(MORE) if budget >= len(MORE) else budget
    # With a query, the profile may take at most half the room first, so the entries the
    # query found are not crowded out; it gets back whatever they leave unused.
    cap = room // 2 if blocks else room
    head = profile if len(profile) <= cap else fit_lines(profile, cap)
    used = len(head)
    kept: list[tuple[ContextEntry, str]] = []
    for item, block in zip(entries, blocks, strict=True):
        cost = len(block) + (0 if kept else len(HEADING))
        if used + cost <= room:
            kept.append((item, block))
            used += cost
    body = HEADING + "".join(block for _, block in kept) if kept else ""
    if len(head) < len(profile):
        spare = room - len(body)
        head = profile if len(profile) <= spare else fit_lines(profile, spare)
    used = len(head) + len(body)
    filled: list[tuple[ContextEntry, str]] = []
    for item, block in zip(fill, extra, strict=True):
        cost = len(block) + (0 if filled else len(STRONGEST))
        if used + cost <= room:
            filled.append((item, block))
            used += cost
    body += STRONGEST + "".join(block for _, block in filled) if filled else ""
    tail = "" if budget < len(MORE) else (MORE if head or body else MORE.lstrip("\n"))
    shown = tuple(item for item, _ in [*kept, *filled])
    return Context(head + body + tail, shown, True, head)


def build_context(
    wiki: Path,
    index: SearchIndex | None,
    *,
    budget: int = DEFAULT_BUDGET,
    query: str | None = None,
    first: Collection[str] = (),
    state: Path | None = None,
) -> Context:
    """The start-of-run context for `wiki`, never longer than `budget` characters; entries
    whose ref (`path#entry`, or `path`) is in `first` lead, in their order of relevance;
    identity entries only as `vouched` by the standing in `state`."""
    budget = max(0, budget)
    if not Path(wiki).is_dir():
        return assemble(EMPTY, [], budget, False)
    profile = profile_text(Path(wiki))
    entries: list[ContextEntry] = []
    more = False
    if query and query.strip():
        if index is None:
            with SearchIndex(Path(wiki), None) as scratch:
                entries, more = relevant(Path(wiki), scratch, query, state)
        else:
            entries, more = relevant(Path(wiki), index, query, state)
    if first:
        entries.sort(key=lambda e: (f"{e.path}#{e.entry}" if e.entry else e.path) not in first)
    return assemble(profile, entries, budget, more)


def render_json(ctx: Context, budget: int) -> str:
    data = {
        "profile": ctx.profile,
        "entries": [
            {"path": e.path, "entry": e.entry, "title": e.title, "body": e.body, "type": e.type}
            for e in ctx.entries
        ],
        "truncated": ctx.truncated,
        "budget": budget,
        "chars": ctx.chars,
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
