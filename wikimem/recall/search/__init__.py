"""Lexical search over the wiki, backed by a derived SQLite FTS5 index: SearchIndex, the one door.

The index file (`.clarvis/state/search.sqlite`) is a cache, never a source of truth: it holds one
row per leaf page (title, summary, head text) and one row per entry, and is rebuilt from the pages
whenever it is missing, corrupt or of another schema. `refresh()` re-reads only pages whose
stamp (mtime, ctime, size, inode) changed, and lists only folders whose own stamp changed, so a
hand edit, a new, renamed or deleted leaf is picked up; anything changed within the last two
seconds is looked at again next time, since file times are coarser than edits. A pass, which
knows the wiki equals a commit, refreshes just what git says changed since the last such
commit. Query text is user input and never reaches FTS `MATCH` raw: it is cut into words, each
quoted.

The package's modules: `terms` (words, folding, the MATCH expression, snippets), `rows` (the
documents a page makes), `stamps` (page and folder stamps, the walk of the wiki), `store` (the
index file, its schema and rebuilding), `upkeep` (full and git-guided refresh), `hits`
(focused terms, bm25 search, Hit and its citation).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from wikimem.errors import WikiError
from wikimem.recall.search import store
from wikimem.recall.search.hits import Hit, find, focused_terms
from wikimem.recall.search.rows import Row, clean, page_rows
from wikimem.recall.search.stamps import LEAF_FILE, MAX_DEPTH, Listing, leaf_of, scan
from wikimem.recall.search.store import SCHEMA, damaged
from wikimem.recall.search.terms import (
    fold,
    match_expression,
    matched_terms,
    query_terms,
    readable,
    snippet,
    tokens,
)
from wikimem.recall.search.upkeep import update

__all__ = [
    "LEAF_FILE",
    "MAX_DEPTH",
    "SCHEMA",
    "Hit",
    "Listing",
    "Row",
    "SearchIndex",
    "clean",
    "fold",
    "leaf_of",
    "match_expression",
    "matched_terms",
    "page_rows",
    "query_terms",
    "readable",
    "scan",
    "snippet",
    "tokens",
]

T = TypeVar("T")


class SearchIndex:
    """The search index of one wiki; opens its file lazily, rebuilds it when it is unusable."""

    def __init__(self, wiki: Path, index_file: Path | None) -> None:
        self.wiki = Path(wiki)
        self.index_file = Path(index_file) if index_file is not None else None
        self._db: sqlite3.Connection | None = None
        self._refreshed = False

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- the file ---------------------------------------------------------------------------

    def _discard(self) -> None:
        """Forget the index file entirely; the next use rebuilds it from the pages."""
        self.close()
        store.remove(self.index_file)

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = store.open_index(self.index_file)
        return self._db

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
        return self._healed(lambda: store.head_mark(self._connection()))

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
        return update(db, self.wiki, changed, head)

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
            return focused_terms(self._connection(), terms, keep)

        return self._healed(work)

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        include_expired: bool = True,
        today: dt.date | None = None,
    ) -> list[Hit]:
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
            return find(self._connection(), terms, limit, include_expired, day)

        return self._healed(work)
