"""How firmly each entry is held, kept where a session start can read it without git: its
source (person > explicit candidate > model > offline rule, from `recall.provenance`), the
runs that confirmed it since, and how often the agent used it (`recall.uses`), with the
entries ranked strongest first, in `.clarvis/state/standing.sqlite`.

Provenance lives in the wiki's git history, which a session start cannot afford to read (it
runs inside the agent's loop and imports no git). So the start reads this file, and when it is
older than the index (another pass committed since), than a page it is about to quote, or than
the runs and deliveries the uses are counted from, the start spawns `wikimem start
--refresh-standing` detached to bring it up to date for the next start. A refresh reads the
history only of the leaves whose text changed since the last one (and of a leaf one commit
wrote, not even that: one log of the wiki says so).

Invariants: the file is derived state, never a source of truth: a missing or unreadable one is
an empty standing, and a refresh replaces it whole. Reading is sqlite, read-only, by key. The
same wiki, index and queue give the same standing.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

FILE = "standing.sqlite"
LOCK = "standing.lock"
SCHEMA = 2  # 2: leaves keep the stat their digest was read at
RACY_NS = 2_000_000_000  # a page changed this recently is read again, whatever its stat
RANKED = 200  # entries kept in the ranked order: far more than any start's budget shows
RANK = {"person": 3, "candidate": 2, "model": 1, "rule": 0}
BULK = 20  # changed leaves from which one log of the whole wiki is cheaper than one per leaf
LOG_LIMIT = 100_000
JOB_STATES = ("pending", "active", "done")
DDL = f"""
CREATE TABLE marks (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE leaves (path TEXT PRIMARY KEY, digest TEXT NOT NULL, stat TEXT NOT NULL);
CREATE TABLE entries (
    path TEXT NOT NULL, entry TEXT NOT NULL, source TEXT NOT NULL, run TEXT NOT NULL,
    confirmed INTEGER NOT NULL, used INTEGER NOT NULL, rank INTEGER,
    PRIMARY KEY (path, entry)
);
CREATE INDEX entries_rank ON entries (rank) WHERE rank IS NOT NULL;
PRAGMA user_version = {SCHEMA};
"""


class Standing:
    """The standing as last refreshed, read-only and by key; false when there is none."""

    def __init__(self, state: Path | None) -> None:
        self.db: sqlite3.Connection | None = None
        self.marks: dict[str, str] = {}
        file = state / FILE if state is not None else None
        if file is None or not file.is_file():
            return
        try:
            db = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                db.close()
                return
            self.marks = {str(k): str(v) for k, v in db.execute("SELECT name, value FROM marks")}
        except sqlite3.Error:
            return
        self.db = db

    def __bool__(self) -> bool:
        return self.db is not None

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def order(self, limit: int) -> list[tuple[str, str]]:
        """(path, entry) of the strongest entries, strongest first."""
        if self.db is None:
            return []
        try:
            rows = self.db.execute(
                "SELECT path, entry FROM entries WHERE rank IS NOT NULL ORDER BY rank LIMIT ?",
                (limit,),
            ).fetchall()
        except sqlite3.Error:
            return []
        return [(str(p), str(e)) for p, e in rows]

    def digest(self, path: str) -> str | None:
        """The page's digest when the standing was refreshed, if it knew the leaf."""
        if self.db is None:
            return None
        try:
            row = self.db.execute("SELECT digest FROM leaves WHERE path = ?", (path,)).fetchone()
        except sqlite3.Error:
            return None
        return str(row[0]) if row else None

    def entry(self, path: str, entry: str) -> dict[str, Any] | None:
        """source, run, confirmed and used of one entry, if the standing knew it."""
        if self.db is None:
            return None
        try:
            row = self.db.execute(
                "SELECT source, run, confirmed, used FROM entries WHERE path = ? AND entry = ?",
                (path, entry),
            ).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        return {"source": row[0], "run": row[1], "confirmed": row[2], "used": row[3]}


def uses_mark(state: Path) -> str:
    """What the use counts depend on, cheaply: the times of the folders a new session's
    injection log or a newly recorded run appears in."""
    parts = []
    for folder in [state / "injections", *(state / "queue" / s for s in JOB_STATES)]:
        try:
            parts.append(str(os.stat(folder).st_mtime_ns))
        except OSError:
            parts.append("-")
    return ":".join(parts)


def index_head(db: sqlite3.Connection) -> str:
    row = db.execute("SELECT value FROM marks WHERE name = 'head'").fetchone()
    return str(row[0]) if row else ""


def page_digest(text: str) -> str:
    """The page's digest as the search index computes it (recall.search.stamps.digest)."""
    import hashlib

    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def key(ref: str, info: dict[str, Any], used: int) -> tuple[int, int, int, str]:
    """Strongest first: the source, then the confirming runs, then the uses; ties by ref."""
    return (-RANK.get(str(info.get("source")), -1), -int(info.get("confirmed", 0)), -used, ref)


def confirmations(steps: tuple[Any, ...]) -> tuple[str, int]:
    """The first run of the strongest source and how many other runs confirmed it since."""
    if not steps:
        return "", 0
    best = max(RANK.get(s.source, -1) for s in steps)
    first = next(i for i, s in enumerate(steps) if RANK.get(s.source, -1) == best)
    own = steps[first].runs
    later = {run for s in steps[first + 1 :] for run in s.runs} - set(own)
    return (own[0] if own else ""), len(later)


Known = dict[str, tuple[str, str, dict[str, dict[str, Any]]]]


def committed_blobs(places: Any, settings: Any) -> dict[str, str]:
    """Leaf path -> the object id of its page in the wiki's HEAD, from one `git ls-tree`."""
    from wikimem.wiki.history.session import split_z
    from wikimem.wiki.workspace import open_repo

    found: dict[str, str] = {}
    with open_repo(places, settings).session() as s:
        if not s.head():
            return found
        for item in split_z(s.run("ls-tree", "-r", "-z", "HEAD", "--", s.scope)):
            meta, _, name = item.partition("\t")
            (wiki_name,) = s.wiki_paths([name]) or ("",)
            if wiki_name.endswith("/MEMORY.md") and meta.split(" ")[1:2] == ["blob"]:
                found[wiki_name[: -len("/MEMORY.md")]] = meta.split(" ")[2]
    return found


def blob_id(file: Path) -> str:
    """The object id git gives these bytes (SHA-1 repositories; any other never matches)."""
    import hashlib

    try:
        data = file.read_bytes()
    except OSError:
        return ""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def known_leaves(state: Path) -> Known:
    """What the last refresh found, leaf by leaf: (digest, stat, entry id -> its standing)."""
    old = Standing(state)
    found: Known = {}
    if old.db is None:
        return found
    try:
        for path, digest, stat in old.db.execute("SELECT path, digest, stat FROM leaves"):
            found[str(path)] = (str(digest), str(stat), {})
        for path, entry, source, run, confirmed in old.db.execute(
            "SELECT path, entry, source, run, confirmed FROM entries"
        ):
            if str(path) in found:
                info = {"source": source, "run": run, "confirmed": confirmed}
                found[str(path)][2][str(entry)] = info
    except sqlite3.Error:
        return {}
    finally:
        old.close()
    return found


def refresh(places: Any, settings: Any) -> list[str]:
    """Bring the standing in step with the index and the pages; replace the file with it;
    return the ranked refs (`path#entry`)."""
    from wikimem.fsio import read_text
    from wikimem.recall import uses
    from wikimem.recall.provenance import origins, source_of
    from wikimem.wiki.workspace import open_repo

    state = places.state
    index_file = state / "search.sqlite"
    mark = uses_mark(state)
    try:
        db = sqlite3.connect(f"{index_file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            head = index_head(db)
            rows = db.execute(
                "SELECT path, entry, type FROM docs WHERE entry != '' ORDER BY path, entry"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    by_leaf: dict[str, list[str]] = {}
    identity: set[str] = set()  # leaves with an identity entry: their history is read in full
    for path, entry, kind in rows:
        by_leaf.setdefault(str(path), []).append(str(entry))
        if kind == "identity":
            identity.add(str(path))
    known = known_leaves(state)
    digests: dict[str, str] = {}
    stats: dict[str, str] = {}
    racy = time.time_ns() - RACY_NS
    for path in by_leaf:
        file = places.wiki.joinpath(*path.split("/"), "MEMORY.md")
        try:
            st = os.stat(file)
            stats[path] = f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_size}:{st.st_ino}"
            if path in known and known[path][1] == stats[path] and st.st_mtime_ns < racy:
                digests[path] = known[path][0]  # not changed since it was read
            else:
                digests[path] = page_digest(read_text(file))
        except OSError:
            continue
    changed = [p for p in digests if p not in known or known[p][0] != digests[p]]
    # A leaf only one commit ever wrote needs no page versions read: that commit wrote each of
    # its entries. Which leaves are such is one log of the whole wiki away.
    single: dict[str, Any] = {}
    if len(changed) >= BULK:
        writers: dict[str, list[Any]] = {}
        for commit in open_repo(places, settings).log(None, limit=LOG_LIMIT, with_paths=True):
            for name in commit.paths:
                if name.endswith("/MEMORY.md"):
                    writers.setdefault(name[: -len("/MEMORY.md")], []).append(commit)
        single = {p: c[0] for p, c in writers.items() if len(c) == 1}
        # Identity memory only when the page is still that commit's, byte for byte: an entry
        # added by hand since is no one's yet.
        held = committed_blobs(places, settings) if identity & set(single) else {}
        for path in identity & set(single):
            file = places.wiki.joinpath(*path.split("/"), "MEMORY.md")
            if held.get(path) != blob_id(file):
                del single[path]
    leaves: dict[str, dict[str, dict[str, Any]]] = {}
    for path in digests:
        ids = by_leaf[path]
        if path not in changed:
            leaves[path] = known[path][2]
            continue
        entries: dict[str, dict[str, Any]] = {}
        if path in single:
            commit = single[path]
            runs = commit.trailers.get("Wikimem-Run", ())
            for entry_id in ids:
                source = source_of(commit, f"{path}#{entry_id}")
                entries[entry_id] = {
                    "source": source,
                    "run": runs[0] if runs else "",
                    "confirmed": 0,
                }
        else:
            found = origins(places, settings, [f"{path}#{i}" for i in ids])
            for entry_id in ids:
                came = found[f"{path}#{entry_id}"]
                run, confirmed = confirmations(came.steps)
                entries[entry_id] = {"source": came.source, "run": run, "confirmed": confirmed}
        leaves[path] = entries
    used = {u.ref: u.used for u in uses.counts(state, places.queue, index_file) if u.used > 0}
    ranked = sorted(
        key(f"{path}#{entry_id}", info, used.get(f"{path}#{entry_id}", 0))
        for path, entries in leaves.items()
        for entry_id, info in entries.items()
    )
    order = [ref for *_, ref in ranked[:RANKED]]
    write(state, {"head": head, "uses": mark}, digests, stats, leaves, used, order)
    return order


def write(
    state: Path,
    marks: dict[str, str],
    digests: dict[str, str],
    stats: dict[str, str],
    leaves: dict[str, dict[str, dict[str, Any]]],
    used: dict[str, int],
    order: list[str],
) -> None:
    """A new standing file, in place of the old one at once (readers see one or the other)."""
    from wikimem.fsio import ensure_dir

    ensure_dir(state)
    tmp = state / f".{FILE}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    rank = {ref: i for i, ref in enumerate(order)}
    try:
        db = sqlite3.connect(tmp)
        try:
            db.executescript(f"BEGIN;\n{DDL}\nCOMMIT;")  # one fsync, not one per table
            db.executemany("INSERT INTO marks VALUES (?, ?)", sorted(marks.items()))
            db.executemany(
                "INSERT INTO leaves VALUES (?, ?, ?)",
                [(p, digests[p], stats[p]) for p in sorted(leaves)],
            )
            db.executemany(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        path,
                        entry_id,
                        str(info["source"]),
                        str(info["run"]),
                        int(info["confirmed"]),
                        used.get(f"{path}#{entry_id}", 0),
                        rank.get(f"{path}#{entry_id}"),
                    )
                    for path in sorted(leaves)
                    for entry_id, info in sorted(leaves[path].items())
                ],
            )
            db.commit()
        finally:
            db.close()
        os.replace(tmp, state / FILE)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
