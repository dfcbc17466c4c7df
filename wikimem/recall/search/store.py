"""The index file: its schema, opening it (rebuilding it when it is missing, corrupt or of
another schema), removing it, and the rows a page puts in it.

Invariant: the file is a cache, never a source of truth: a damaged or foreign file is removed
and rebuilt from the pages; a busy one (another process is writing) is waited for up to
BUSY_TIMEOUT and never removed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from wikimem.fsio import open_private
from wikimem.recall.search.rows import Row

SCHEMA = 4
BUSY_TIMEOUT = 10.0  # seconds to wait for another process's refresh to commit
# Column weights for bm25(): a title match says more than a summary, a summary more than a body,
# and the leaf context (leaf title and path words on entry rows) least of all.
COLUMNS = ("title", "summary", "body", "context")
WEIGHTS = (5.0, 3.0, 1.0, 0.5)

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


def connect(index_file: Path | None) -> sqlite3.Connection:
    if index_file is None:
        return sqlite3.connect(":memory:")
    # Created 0600 before sqlite opens it (its journals take the file's mode): the index holds
    # every page's text, as private as the rest of the state.
    os.close(open_private(index_file, os.O_RDWR))
    return sqlite3.connect(index_file, timeout=BUSY_TIMEOUT)


def remove(index_file: Path | None) -> None:
    """Delete the index file and sqlite's companions; the next open rebuilds it."""
    if index_file is not None:
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{index_file}{suffix}")


def open_index(index_file: Path | None) -> sqlite3.Connection:
    """A connection to a usable index of this schema, creating or rebuilding the file if need be."""
    for attempt in (1, 2):
        db = connect(index_file)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if version == SCHEMA:
                db.execute("SELECT count(*) FROM pages").fetchone()
            elif tables == 0:
                db.executescript(f"BEGIN;\n{DDL}\nCOMMIT;")  # one fsync, not one per table
            else:
                raise sqlite3.DatabaseError("index schema mismatch")
        except sqlite3.DatabaseError as exc:
            db.close()
            if attempt == 2 or not damaged(exc):
                raise
            remove(index_file)
            continue
        return db
    raise AssertionError("unreachable")


def head_mark(db: sqlite3.Connection) -> str | None:
    """The commit the index was last said to match, if any."""
    row = db.execute("SELECT value FROM marks WHERE name = 'head'").fetchone()
    return str(row[0]) if row else None


def insert(db: sqlite3.Connection, rows: list[Row]) -> None:
    for row in rows:
        cursor = db.execute(
            "INSERT INTO docs (path, entry, title, leaf_title, type, expires, review_by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.path, row.entry, row.title, row.leaf_title, row.type, row.expires, row.review_by),
        )
        db.execute(
            "INSERT INTO fts (rowid, title, summary, body, context) VALUES (?, ?, ?, ?, ?)",
            (cursor.lastrowid, row.title, row.summary, row.body, row.context),
        )
