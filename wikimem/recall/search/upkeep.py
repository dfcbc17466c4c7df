"""Keeping the index in step with the pages: the full check (a walk that trusts unchanged folder
and page stamps) and the git-guided one (just the files a diff names), then one transaction
that re-indexes, restamps and drops what changed.

Invariant: a page is re-indexed only when its text changed (an UNSURE or changed stamp makes it
read again, its digest decides); the `head` mark is set only on the caller's word that the wiki
equals that commit, and any content change made without that word drops the mark, so a page
edited and then put back can never stay stale behind it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from wikimem.fsio import read_text
from wikimem.recall.search.rows import page_rows
from wikimem.recall.search.stamps import (
    LEAF_FILE,
    UNSURE,
    Stamp,
    digest,
    leaf_of,
    leaf_stat,
    racy_since,
    scan,
    stamp_of,
)
from wikimem.recall.search.store import head_mark, insert


@dataclass
class Check:
    """What a check found: the stamps the index holds and those on disk for the leaves it
    looked at, the leaves gone from disk, and the folder stamps that moved or vanished."""

    known: dict[str, Stamp]
    on_disk: dict[str, Stamp]
    gone: list[str]
    moved_folders: dict[str, tuple[Stamp, bool]]
    dropped_folders: list[str]


def full_check(db: sqlite3.Connection, wiki: Path, since: int) -> Check:
    known: dict[str, Stamp] = dict(db.execute("SELECT path, stamp FROM pages"))
    before = {
        path: (stamp, bool(page))
        for path, stamp, page in db.execute("SELECT path, stamp, has_page FROM folders")
    }
    listing = scan(wiki, before, since)
    on_disk, folders = listing.pages, listing.folders
    gone = [path for path in known if path not in on_disk]
    moved = {path: value for path, value in folders.items() if before.get(path) != value}
    dropped = [p for p in before if p not in folders]
    return Check(known, on_disk, gone, moved, dropped)


def guided_check(db: sqlite3.Connection, wiki: Path, changed: list[str], since: int) -> Check:
    leaves = sorted({leaf for leaf in map(leaf_of, changed) if leaf})
    known: dict[str, Stamp] = {}
    for leaf in leaves:
        row = db.execute("SELECT stamp FROM pages WHERE path = ?", (leaf,)).fetchone()
        if row:
            known[leaf] = row[0]
    on_disk: dict[str, Stamp] = {}
    for leaf in leaves:
        stat = leaf_stat(wiki, leaf)
        if stat is not None:
            on_disk[leaf] = stamp_of(stat, since)
    gone = [leaf for leaf in known if leaf not in on_disk]
    return Check(known, on_disk, gone, {}, [])


def read_pages(
    db: sqlite3.Connection, wiki: Path, check: Check
) -> tuple[list[tuple[str, Stamp]], list[tuple[str, Stamp, str, str]]]:
    """(pages to restamp, pages to re-index with their digest and text); a page that vanished
    since the check is added to `check.gone`."""
    # Unsure stamps are read again: the text decides whether anything changed.
    todo = sorted(
        path
        for path, stamp in check.on_disk.items()
        if stamp == UNSURE or check.known.get(path) != stamp
    )
    restamp: list[tuple[str, Stamp]] = []
    reindex: list[tuple[str, Stamp, str, str]] = []
    for path in todo:
        try:
            text = read_text(wiki.joinpath(*path.split("/"), LEAF_FILE))
        except OSError:
            if path in check.known:
                check.gone.append(path)  # vanished since the scan; the next refresh settles it
            continue
        mark = digest(text)
        row = db.execute("SELECT digest FROM pages WHERE path = ?", (path,)).fetchone()
        if row and row[0] == mark:
            restamp.append((path, check.on_disk[path]))
        else:
            reindex.append((path, check.on_disk[path], mark, text))
    return restamp, reindex


def update(db: sqlite3.Connection, wiki: Path, changed: list[str] | None, head: str | None) -> int:
    """Bring the index in step with the pages (all of them, or the `changed` files); return how
    many pages were re-indexed. See `SearchIndex.refresh` for `changed` and `head`."""
    since = racy_since()
    check = (
        full_check(db, wiki, since) if changed is None else guided_check(db, wiki, changed, since)
    )
    restamp, reindex = read_pages(db, wiki, check)
    content_changed = bool(check.gone or reindex)
    if not (content_changed or restamp or check.moved_folders or check.dropped_folders) and (
        head is None or head == head_mark(db)
    ):
        return 0
    with db:
        for path in check.gone + [item[0] for item in reindex]:
            db.execute(
                "DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)", (path,)
            )
            db.execute("DELETE FROM docs WHERE path = ?", (path,))
            db.execute("DELETE FROM pages WHERE path = ?", (path,))
        for path, stamp, mark, text in reindex:
            insert(db, page_rows(path, text))
            db.execute("INSERT INTO pages VALUES (?, ?, ?)", (path, stamp, mark))
        db.executemany(
            "UPDATE pages SET stamp = ? WHERE path = ?", [(stamp, path) for path, stamp in restamp]
        )
        db.executemany("DELETE FROM folders WHERE path = ?", [(p,) for p in check.dropped_folders])
        db.executemany(
            "INSERT OR REPLACE INTO folders VALUES (?, ?, ?)",
            [
                (path, stamp, int(has_page))
                for path, (stamp, has_page) in check.moved_folders.items()
            ],
        )
        if head is not None:
            db.execute("INSERT OR REPLACE INTO marks VALUES ('head', ?)", (head,))
        elif content_changed:
            db.execute("DELETE FROM marks WHERE name = 'head'")
    return len(reindex)
