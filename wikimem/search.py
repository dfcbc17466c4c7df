"""Lexical search over the wiki, backed by a derived SQLite FTS5 index.

The index file (`.clarvis/state/search.sqlite`) is a cache, never a source of truth: it holds one
row per leaf page (title, summary, head text) and one row per entry, and is rebuilt from the pages
whenever it is missing, corrupt or of another schema. `refresh()` re-reads only pages whose
stamp (mtime, ctime, size, inode) changed, and lists only folders whose own stamp changed, so a
hand edit, a new, renamed or deleted leaf is picked up; anything changed within the last two
seconds is looked at again next time, since file times are coarser than edits. A pass, which
knows the wiki equals a commit, refreshes just what git says changed since the last such
commit. Query text is user input and never reaches FTS `MATCH` raw: it is cut into words, each
quoted.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import hashlib
import os
import re
import sqlite3
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from types import TracebackType
from typing import Any, TypeVar

from . import markdown
from .errors import WikiError
from .fsio import read_text
from .wiki import MAX_PAGE_BYTES

T = TypeVar("T")

SCHEMA = 4
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


# A stamp is the hash of (mtime_ns, ctime_ns, size, inode): one integer to store and compare
# (CPython hashes tuples of ints the same way in every process, and a new Python that hashes
# differently only makes every page read once more, when its text is found unchanged).
Stamp = int
# A stamp no file has (hash() never returns -1): stored for what changed too recently to trust.
UNSURE: Stamp = -1
# Timestamps come from a coarse kernel clock: a second change within the same tick as a scan
# leaves the stamp the scan saw. Anything changed this recently is looked at again next time.
RACY_NS = 2_000_000_000


def stamp_of(stat: os.stat_result, since_ns: int) -> Stamp:
    """What identifies this version of a file or folder; UNSURE when it changed too recently.

    ctime is in it because a person can restore an edited file's mtime, never its ctime; the
    inode because a rename over a page keeps neither."""
    if stat.st_ctime_ns >= since_ns or stat.st_mtime_ns >= since_ns:
        return UNSURE
    return hash((stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino))


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


@dataclass
class Listing:
    """What a walk of the wiki found: leaf path -> stamp of its page, folder -> (stamp, whether
    it holds a page). Folders are wiki-relative ("" is the wiki itself)."""

    pages: dict[str, Stamp]
    folders: dict[str, tuple[Stamp, bool]]


def page_stat(path: str) -> os.stat_result | None:
    """The stat of a page file that counts: a regular file (never a symlink) within the size cap."""
    try:
        stat = os.lstat(path)
    except OSError:
        return None
    if not S_ISREG(stat.st_mode) or stat.st_size > MAX_PAGE_BYTES:
        return None  # a symlinked page may point outside the wiki; an oversized one is no memory
    return stat


def scan(wiki: Path, known: Mapping[str, tuple[Stamp, bool]] | None = None,
         since_ns: int | None = None) -> Listing:
    """Every leaf of the wiki with its stamp; dot-folders, non-slug folders and folders deeper
    than MAX_DEPTH are skipped, as are symlinks.

    With `known` (the folders of an earlier scan), a folder whose stamp is unchanged is not
    listed again: creating, removing or renaming anything in a folder changes the folder's own
    mtime, so its sub-folders and whether it holds a page are as known, and only the page
    itself is stat-ed (an edit in place changes the page's stamp, not the folder's)."""
    since = time.time_ns() - RACY_NS if since_ns is None else since_ns
    known = known or {}
    children: dict[str, list[str]] = {}
    for folder in known:
        if folder:
            parent, _, _ = folder.rpartition("/")
            children.setdefault(parent, []).append(folder)
    pages: dict[str, Stamp] = {}
    folders: dict[str, tuple[Stamp, bool]] = {}
    base = str(wiki)
    lstat, fullmatch, leaf_name = os.lstat, SLUG.fullmatch, "/" + LEAF_FILE
    # Tens of thousands of folders on a large wiki: one loop, no recursion, few calls a folder.
    todo: list[tuple[str, int]] = [("", 0)]
    while todo:
        folder, depth = todo.pop()
        where = f"{base}/{folder}" if folder else base
        try:
            stat = lstat(where) if folder else os.stat(where)  # the wiki itself may be a link
        except OSError:
            continue
        if not S_ISDIR(stat.st_mode):
            continue
        if stat.st_ctime_ns >= since or stat.st_mtime_ns >= since:
            stamp = UNSURE
        else:
            stamp = hash((stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino))
        before = known.get(folder)
        if stamp != UNSURE and before is not None and before[0] == stamp:
            has_page = before[1]
            subfolders = children.get(folder, ())
        else:
            has_page, found = False, []
            try:
                with os.scandir(where) as listing:
                    for item in listing:
                        name = item.name
                        if name.startswith("."):
                            continue
                        try:
                            if item.is_dir(follow_symlinks=False):
                                if depth < MAX_DEPTH and fullmatch(name):
                                    found.append(f"{folder}/{name}" if folder else name)
                            elif depth and name == LEAF_FILE:
                                has_page = True
                        except OSError:
                            continue
            except OSError:
                continue
            subfolders = found
        folders[folder] = (stamp, has_page)
        if has_page:
            page = page_stat(where + leaf_name)
            if page is not None:
                pages[folder] = stamp_of(page, since)
        todo.extend((sub, depth + 1) for sub in subfolders)
    return Listing(pages, folders)


def leaf_of(wiki_file: str) -> str | None:
    """The leaf path of a wiki-relative file if it is a leaf's page (`a/b/MEMORY.md` -> `a/b`)."""
    folder, _, name = wiki_file.replace("\\", "/").strip("/").rpartition("/")
    parts = folder.split("/") if folder else []
    if name != LEAF_FILE or not 1 <= len(parts) <= MAX_DEPTH:
        return None
    if not all(SLUG.fullmatch(part) for part in parts):
        return None
    return folder


DDL = f"""
CREATE TABLE pages (path TEXT PRIMARY KEY, stamp INTEGER NOT NULL, digest TEXT NOT NULL);
CREATE TABLE folders (path TEXT PRIMARY KEY, stamp INTEGER NOT NULL, has_page INTEGER NOT NULL);
CREATE TABLE marks (name TEXT PRIMARY KEY, value TEXT NOT NULL);
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

    def head(self) -> str | None:
        """The commit the index was last said to match (see `refresh`), if any."""
        def work() -> str | None:
            row = self._connection().execute(
                "SELECT value FROM marks WHERE name = 'head'").fetchone()
            return str(row[0]) if row else None

        return self._healed(work)

    def forget_head(self) -> None:
        """Drop the commit `head()` names: the next pass's refresh is a full check."""
        def work() -> None:
            with self._connection() as db:
                db.execute("DELETE FROM marks WHERE name = 'head'")

        self._healed(work)

    def refresh(self, changed: Iterable[str] | None = None, *, head: str | None = None) -> int:
        """Re-index changed and new pages, drop deleted ones; return how many were re-indexed.

        Without `changed`, every leaf is checked (cheaply, see `scan`). With `changed`
        (wiki-relative files, as `git diff --name-only` lists them), only those are: the caller
        knows that nothing else changed since the commit `head()` returned. `head` is the
        caller's word that the wiki's files equal that commit now (a pass, right after
        committing a person's edits); it is remembered so the next pass can ask git what
        changed since. A refresh that changes the index without that word forgets the mark,
        so a page edited and then put back can never stay stale behind it.
        """
        paths = None if changed is None else list(changed)
        return self._healed(lambda: self._refresh(paths, head))

    def _refresh(self, changed: list[str] | None = None, head: str | None = None) -> int:
        db = self._connection()
        self._refreshed = True
        since = time.time_ns() - RACY_NS
        folders: dict[str, tuple[Stamp, bool]] | None = None
        before: dict[str, tuple[Stamp, bool]] = {}
        if changed is None:
            known: dict[str, Stamp] = dict(db.execute("SELECT path, stamp FROM pages"))
            before = {path: (stamp, bool(page)) for path, stamp, page in
                      db.execute("SELECT path, stamp, has_page FROM folders")}
            listing = scan(self.wiki, before, since)
            on_disk, folders = listing.pages, listing.folders
            gone = [path for path in known if path not in on_disk]
        else:
            leaves = sorted({leaf for leaf in map(leaf_of, changed) if leaf})
            known = {}
            for leaf in leaves:
                row = db.execute("SELECT stamp FROM pages WHERE path = ?", (leaf,)).fetchone()
                if row:
                    known[leaf] = row[0]
            on_disk = {}
            for leaf in leaves:
                stat = self._leaf_stat(leaf)
                if stat is not None:
                    on_disk[leaf] = stamp_of(stat, since)
            gone = [leaf for leaf in known if leaf not in on_disk]
        # Unsure stamps are read again: the text decides whether anything changed.
        todo = sorted(path for path, stamp in on_disk.items()
                      if stamp == UNSURE or known.get(path) != stamp)
        restamp: list[tuple[str, Stamp]] = []
        reindex: list[tuple[str, Stamp, str, str]] = []
        for path in todo:
            try:
                text = read_text(self.wiki.joinpath(*path.split("/"), LEAF_FILE))
            except OSError:
                if path in known:
                    gone.append(path)  # vanished since the scan; the next refresh settles it
                continue
            mark = digest(text)
            row = db.execute("SELECT digest FROM pages WHERE path = ?", (path,)).fetchone()
            if row and row[0] == mark:
                restamp.append((path, on_disk[path]))
            else:
                reindex.append((path, on_disk[path], mark, text))
        moved_folders = {} if folders is None else {
            path: value for path, value in folders.items() if before.get(path) != value}
        dropped_folders = [] if folders is None else [p for p in before if p not in folders]
        content_changed = bool(gone or reindex)
        if not (content_changed or restamp or moved_folders or dropped_folders) and (
                head is None or head == self._mark(db)):
            return 0
        with db:
            for path in gone + [item[0] for item in reindex]:
                db.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)",
                           (path,))
                db.execute("DELETE FROM docs WHERE path = ?", (path,))
                db.execute("DELETE FROM pages WHERE path = ?", (path,))
            for path, stamp, mark, text in reindex:
                self._insert(db, page_rows(path, text))
                db.execute("INSERT INTO pages VALUES (?, ?, ?)", (path, stamp, mark))
            db.executemany("UPDATE pages SET stamp = ? WHERE path = ?",
                           [(stamp, path) for path, stamp in restamp])
            db.executemany("DELETE FROM folders WHERE path = ?", [(p,) for p in dropped_folders])
            db.executemany("INSERT OR REPLACE INTO folders VALUES (?, ?, ?)",
                           [(path, stamp, int(has_page))
                            for path, (stamp, has_page) in moved_folders.items()])
            if head is not None:
                db.execute("INSERT OR REPLACE INTO marks VALUES ('head', ?)", (head,))
            elif content_changed:
                db.execute("DELETE FROM marks WHERE name = 'head'")
        return len(reindex)

    @staticmethod
    def _mark(db: sqlite3.Connection) -> str | None:
        row = db.execute("SELECT value FROM marks WHERE name = 'head'").fetchone()
        return str(row[0]) if row else None

    def _leaf_stat(self, leaf: str) -> os.stat_result | None:
        """The page of one leaf as a full scan would see it: every folder on the way a real
        folder (no symlink, no dot-folder: `leaf_of` checked the names), the page a real file."""
        where = str(self.wiki)
        try:
            if not S_ISDIR(os.stat(where).st_mode):
                return None
            for part in leaf.split("/"):
                where = os.path.join(where, part)
                if not S_ISDIR(os.lstat(where).st_mode):
                    return None
        except OSError:
            return None
        return page_stat(os.path.join(where, LEAF_FILE))

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

    def focused(self, query: str, keep: int) -> str:
        """The `keep` rarest words of `query` that occur in the index, rarest first.

        For long machine-made queries (a pass asks about a whole run): OR-ing thirty common
        words makes bm25 rank most of the index, while the rare ones carry the relevance. Words
        the index lacks are dropped, and so are words in half its rows or more unless no other
        word is left; two words of equal rarity keep their query order."""
        terms = query_terms(query)
        if not terms or keep <= 0:
            return ""

        def work() -> str:
            if not self._refreshed:
                self._refresh()
            db = self._connection()
            db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab"
                       " USING fts5vocab(main, fts, row)")
            counted = []
            for n, term in enumerate(terms):
                if len(term) >= 3:  # matched as a prefix, as match_expression does
                    after = term[:-1] + chr(ord(term[-1]) + 1)
                    row = db.execute("SELECT sum(doc) FROM vocab WHERE term >= ? AND term < ?",
                                     (term, after)).fetchone()
                else:
                    row = db.execute("SELECT doc FROM vocab WHERE term = ?", (term,)).fetchone()
                if row and row[0]:
                    counted.append((row[0], n, term))
            counted.sort()
            # bm25 gives a word in half the rows or more no weight (FTS5 floors its idf), so
            # such a word only widens the OR to most of the index: drop it, keep the rarest.
            rows = db.execute("SELECT count(*) FROM docs").fetchone()[0]
            telling = [item for item in counted if item[0] * 2 < rows] or counted[:1]
            return " ".join(term for _, _, term in telling[:keep])

        return self._healed(work)

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
