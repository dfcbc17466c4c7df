"""Lexical search over the wiki, backed by a derived SQLite FTS5 index.

The index file (`.clarvis/state/search.sqlite`) is a cache, never a source of truth: it holds one
row per leaf page (title, summary, head text) and one row per entry, and is rebuilt from the pages
whenever it is missing, corrupt or of another schema. `refresh()` re-reads only pages whose
(mtime_ns, size) changed, so a hand edit is picked up and a deleted page disappears. Query text
is user input and never reaches FTS `MATCH` raw: it is cut into words, each quoted.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import os
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from . import markdown
from .errors import WikiError
from .fsio import read_text
from .wiki import MAX_PAGE_BYTES

T = TypeVar("T")

SCHEMA = 3
LEAF_FILE = "MEMORY.md"
MAX_DEPTH = 4
MAX_TERMS = 32
BUSY_TIMEOUT = 10.0  # seconds to wait for another process's refresh to commit
SNIPPET_CHARS = 200
# Column weights for bm25(): a title match says more than a summary, a summary more than a body,
# and the leaf context (leaf title and path words on entry rows) least of all.
COLUMNS = ("title", "summary", "body", "context")
WEIGHTS = (5.0, 3.0, 1.0, 0.5)

SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# FTS5's unicode61 tokenizer splits on everything but letters and digits; so do we.
WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "no", "not", "of", "on", "or", "our", "so", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "to", "up", "us", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "would", "you", "your",
})


@lru_cache(maxsize=1 << 16)  # the same words come back in every hit of every search
def fold(word: str) -> str:
    """Lowercase and drop diacritics, as FTS5's `unicode61 remove_diacritics 2` does."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def tokens(text: str) -> list[str]:
    """Words of `text` as queries see them: folded, at least 2 characters, no stopwords."""
    found = (fold(word) for word in WORD.findall(text))
    return [word for word in found if len(word) >= 2 and word not in STOPWORDS]


def query_terms(query: str) -> list[str]:
    """Distinct query words in first-seen order, capped so a pasted essay stays cheap."""
    return list(dict.fromkeys(tokens(query)))[:MAX_TERMS]


def match_expression(terms: list[str], operator: str) -> str:
    """A safe FTS5 expression: every term quoted; words of 3+ characters match as prefixes."""
    quoted = [f'"{term}"*' if len(term) >= 3 else f'"{term}"' for term in terms]
    return f" {operator} ".join(quoted)


def term_matches(term: str, word: str) -> bool:
    return word.startswith(term) if len(term) >= 3 else word == term


def matched_terms(terms: list[str], text: str) -> list[str]:
    words = sorted({fold(word) for word in WORD.findall(text)})
    exact = set(words)
    found = []
    for term in terms:
        if len(term) < 3:
            hit = term in exact
        else:  # words starting with `term` sort right after it: one bisection, not a scan
            at = bisect.bisect_left(words, term)
            hit = at < len(words) and words[at].startswith(term)
        if hit:
            found.append(term)
    return found


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of `text` on one line, around the first word matching a term."""
    line = " ".join(text.split())
    if len(line) <= width:
        return line
    first = next((m.start() for m in WORD.finditer(line)
                  if any(term_matches(term, fold(m.group())) for term in terms)), 0)
    start = max(0, first - width // 4)
    if start:
        space = line.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and first - space <= width // 2 else start
    end = min(len(line), start + width)
    if end < len(line):
        space = line.rfind(" ", start, end)
        end = space if space > first else end
    return ("…" if start else "") + line[start:end].strip() + ("…" if end < len(line) else "")


def iso_date(value: Any) -> str | None:
    """A frontmatter or meta date as `YYYY-MM-DD`, or None when absent or unreadable."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10]).isoformat()
        except ValueError:
            return None
    return None


def earliest(*dates: str | None) -> str | None:
    present = [d for d in dates if d]
    return min(present) if present else None


def clean(text: Any) -> str:
    """Text sqlite can store: undecodable bytes (kept by read_text) become U+FFFD."""
    if text is None:
        return ""
    raw = str(text)
    return raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass(frozen=True)
class Hit:
    """One search result: a leaf page (entry None) or one of its entries."""

    path: str
    entry: str | None
    title: str
    snippet: str
    score: float
    type: str | None
    expired: bool
    due: bool
    why: str
    leaf_title: str = ""
    matched: tuple[str, ...] = ()

    def citation(self, commit: str | None) -> str:
        where = f"{self.path}#{self.entry}" if self.entry else self.path
        return f"{where}@{commit}" if commit else where


@dataclass(frozen=True)
class Row:
    """One document of the index, as built from a page."""

    path: str
    entry: str
    title: str
    summary: str
    body: str
    context: str
    leaf_title: str
    type: str | None
    expires: str | None
    review_by: str | None


def page_rows(path: str, text: str) -> list[Row]:
    """The leaf row and one row per entry; dates and type are inherited from the leaf."""
    page = markdown.parse_page(clean(text))
    meta: Mapping[str, Any] = page.meta if isinstance(page.meta, Mapping) else {}
    leaf_title = clean(page.title) or path
    leaf_type = clean(meta.get("type") or "").strip() or None
    leaf_expires = iso_date(meta.get("expires"))
    leaf_review = iso_date(meta.get("review-by"))
    context = f"{leaf_title} {path.replace('/', ' ')}"
    rows = [Row(path, "", leaf_title, clean(meta.get("summary") or "").strip(), page.head.strip(),
                path.replace("/", " "), leaf_title, leaf_type, leaf_expires, leaf_review)]
    for item in page.entries:
        rows.append(Row(
            path, item.id, item.title, "", item.body, context, leaf_title,
            item.meta.get("type") or leaf_type,
            earliest(leaf_expires, iso_date(item.meta.get("expires"))),
            earliest(leaf_review, iso_date(item.meta.get("review-by"))),
        ))
    return rows


def scan(wiki: Path) -> dict[str, tuple[int, int]]:
    """Wiki path -> (mtime_ns, size) of every leaf; dot-folders and non-slug folders are skipped."""
    found: dict[str, tuple[int, int]] = {}

    def walk(folder: str, parts: tuple[str, ...]) -> None:
        try:
            listing = list(os.scandir(folder))
        except OSError:
            return
        for item in listing:
            if item.name.startswith("."):
                continue
            try:
                if item.is_dir(follow_symlinks=False):
                    if len(parts) < MAX_DEPTH and SLUG.fullmatch(item.name):
                        walk(item.path, (*parts, item.name))
                elif parts and item.name == LEAF_FILE and item.is_file(follow_symlinks=False):
                    # a symlinked page may point outside the wiki; an oversized one is not
                    # memory (the pass refuses it too)
                    stat = item.stat(follow_symlinks=False)
                    if stat.st_size <= MAX_PAGE_BYTES:
                        found["/".join(parts)] = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                continue

    if wiki.is_dir():
        walk(str(wiki), ())
    return found


DDL = f"""
CREATE TABLE pages (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, entry TEXT NOT NULL, title TEXT NOT NULL,
    leaf_title TEXT NOT NULL, type TEXT, expires TEXT, review_by TEXT
);
CREATE INDEX docs_path ON docs (path);
CREATE VIRTUAL TABLE fts USING fts5 (
    {", ".join(COLUMNS)}, tokenize = 'unicode61 remove_diacritics 2'
);
PRAGMA user_version = {SCHEMA};
"""


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """True for a broken or foreign index file; False for a busy one (another process writes)."""
    text = str(exc).lower()
    return "locked" not in text and "busy" not in text


class SearchIndex:
    """The search index of one wiki; opens its file lazily, rebuilds it when it is unusable."""

    def __init__(self, wiki: Path, index_file: Path | None) -> None:
        self.wiki = Path(wiki)
        self.index_file = Path(index_file) if index_file is not None else None
        self._db: sqlite3.Connection | None = None
        self._refreshed = False

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- the file ---------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self.index_file is None:
            return sqlite3.connect(":memory:")
        self.index_file.parent.mkdir(parents=True, exist_ok=True)
        return sqlite3.connect(self.index_file, timeout=BUSY_TIMEOUT)

    def _discard(self) -> None:
        """Forget the index file entirely; the next use rebuilds it from the pages."""
        self.close()
        if self.index_file is not None:
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.index_file}{suffix}")

    def _connection(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        for attempt in (1, 2):
            db = self._open()
            try:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if version == SCHEMA:
                    db.execute("SELECT count(*) FROM pages").fetchone()
                elif tables == 0:
                    db.executescript(DDL)
                else:
                    raise sqlite3.DatabaseError("index schema mismatch")
            except sqlite3.DatabaseError as exc:
                db.close()
                if attempt == 2 or not damaged(exc):
                    raise
                self._discard()
                continue
            self._db = db
            return db
        raise AssertionError("unreachable")

    def _healed(self, work: Callable[[], T]) -> T:
        """Run `work`; if the index proves damaged, discard it and run `work` once more."""
        try:
            return work()
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise WikiError(f"search index {self.index_file} is busy: {exc}") from exc
            self._discard()
            self._refreshed = False
        return work()

    # -- refresh ----------------------------------------------------------------------------

    def refresh(self) -> int:
        """Re-index changed and new pages, drop deleted ones; return how many pages were read."""
        return self._healed(self._refresh)

    def _refresh(self) -> int:
        db = self._connection()
        self._refreshed = True
        known = {path: (mtime, size) for path, mtime, size in db.execute("SELECT * FROM pages")}
        on_disk = scan(self.wiki)
        gone = [path for path in known if path not in on_disk]
        changed = sorted(path for path, stamp in on_disk.items() if known.get(path) != stamp)
        if not gone and not changed:
            return 0
        read = 0
        with db:
            for path in gone + changed:
                db.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)",
                           (path,))
                db.execute("DELETE FROM docs WHERE path = ?", (path,))
                db.execute("DELETE FROM pages WHERE path = ?", (path,))
            for path in changed:
                try:
                    text = read_text(self.wiki.joinpath(*path.split("/"), LEAF_FILE))
                except OSError:
                    continue  # vanished since the scan; the next refresh settles it
                self._insert(db, page_rows(path, text))
                db.execute("INSERT INTO pages VALUES (?, ?, ?)", (path, *on_disk[path]))
                read += 1
        return read

    @staticmethod
    def _insert(db: sqlite3.Connection, rows: list[Row]) -> None:
        for row in rows:
            cursor = db.execute(
                "INSERT INTO docs (path, entry, title, leaf_title, type, expires, review_by)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (row.path, row.entry, row.title, row.leaf_title, row.type, row.expires,
                 row.review_by),
            )
            db.execute("INSERT INTO fts (rowid, title, summary, body, context)"
                       " VALUES (?, ?, ?, ?, ?)",
                       (cursor.lastrowid, row.title, row.summary, row.body, row.context))

    # -- search -----------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10, *, include_expired: bool = True,
               today: dt.date | None = None) -> list[Hit]:
        """Best hits first: those matching every query word, then those matching some.

        A fresh instance refreshes once before its first search; long-lived callers call
        `refresh()` themselves when they want to see newer edits.
        """
        terms = query_terms(query)
        if not terms or limit <= 0:
            return []
        day = (today or dt.date.today()).isoformat()

        def work() -> list[Hit]:
            if not self._refreshed:
                self._refresh()
            return self._search(terms, limit, include_expired, day)

        return self._healed(work)

    def _search(self, terms: list[str], limit: int, include_expired: bool, day: str) -> list[Hit]:
        tiers = ["AND", "OR"] if len(terms) > 1 else ["AND"]
        hits: list[Hit] = []
        seen: set[tuple[str, str]] = set()
        for operator in tiers:
            rows = self._matches(match_expression(terms, operator), limit + len(seen),
                                 include_expired, day)
            for row in rows:
                key = (row["path"], row["entry"])
                if key not in seen and len(hits) < limit:
                    seen.add(key)
                    hits.append(self._hit(row, terms, day))
            if len(hits) >= limit:
                break
        return hits

    def _matches(self, expression: str, limit: int, include_expired: bool,
                 day: str) -> list[sqlite3.Row]:
        weights = ", ".join(str(w) for w in WEIGHTS)
        sql = (
            f"SELECT d.path, d.entry, d.title AS name, d.leaf_title, d.type, d.expires,"
            f" d.review_by, fts.title, fts.summary, fts.body, fts.context,"
            f" bm25(fts, {weights}) AS rank"
            f" FROM fts JOIN docs AS d ON d.id = fts.rowid WHERE fts MATCH ?"
            + ("" if include_expired else " AND (d.expires IS NULL OR d.expires >= ?)")
            + " ORDER BY round(rank, 6), d.path, d.entry LIMIT ?"
        )
        params: tuple[Any, ...] = (
            (expression, limit) if include_expired else (expression, day, limit)
        )
        db = self._connection()
        db.row_factory = sqlite3.Row
        return db.execute(sql, params).fetchall()

    @staticmethod
    def _hit(row: sqlite3.Row, terms: list[str], day: str) -> Hit:
        per_column = {name: matched_terms(terms, row[name]) for name in COLUMNS}
        matched = tuple(t for t in terms if any(t in found for found in per_column.values()))
        source = next((row[c] for c in ("body", "summary", "title") if per_column[c]),
                      row["body"] or row["summary"] or row["title"])
        parts = [f"{name}: {', '.join(found)}" for name, found in per_column.items() if found]
        coverage = ("all terms" if len(matched) == len(terms)
                    else f"{len(matched)} of {len(terms)} terms")
        why = f"bm25 {row['rank']:.3f}; {'; '.join(parts) or 'no direct match'}; {coverage}"
        return Hit(
            path=row["path"],
            entry=row["entry"] or None,
            title=row["name"],
            snippet=snippet(source, terms),
            score=round(-row["rank"], 6),
            type=row["type"],
            expired=bool(row["expires"] and row["expires"] < day),
            due=bool(row["review_by"] and row["review_by"] < day),
            why=why,
            leaf_title=row["leaf_title"],
            matched=matched,
        )
