"""How firmly each entry is held, kept where a session start can read it without git: its
source (person > explicit candidate > model > offline rule, from `recall.provenance`), the
runs that confirmed it since, and how often the agent used it (`recall.uses`), with the
entries ranked strongest first, in `.clarvis/state/standing.json`.

Provenance lives in the wiki's git history, which a session start cannot afford to read (it
runs inside the agent's loop and imports no git). So the start reads this file, and when it is
older than the index (another pass committed since), than a page it is about to quote, or than
the runs and deliveries the uses are counted from, the start spawns `wikimem start
--refresh-standing` detached to bring it up to date for the next start. A refresh reads the
history only of the leaves whose text changed since the last one.

Invariants: the file is derived state, never a source of truth (a missing or unreadable one is
an empty standing); `read` is json only; the same wiki, index and queue give the same file.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

FILE = "standing.json"
LOCK = "standing.lock"
SCHEMA = 1
RANKED = 200  # entries kept in the ranked order: far more than any start's budget shows
RANK = {"person": 3, "candidate": 2, "model": 1, "rule": 0}
CHECKPOINT = 500  # leaves read between two writes, so a long first refresh keeps its work
JOB_STATES = ("pending", "active", "done")


def read(state: Path) -> dict[str, Any]:
    """The standing as last refreshed; {} when there is none or it cannot be read."""
    try:
        data = json.loads((state / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return {}
    return data


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


def refresh(places: Any, settings: Any) -> dict[str, Any]:
    """Bring the standing in step with the index and the pages; write it; return it."""
    from wikimem.fsio import read_text
    from wikimem.recall import uses
    from wikimem.recall.provenance import origins

    state = places.state
    index_file = state / "search.sqlite"
    old = read(state)
    mark = uses_mark(state)
    try:
        db = sqlite3.connect(f"{index_file.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return old
    try:
        head = index_head(db)
        rows = db.execute(
            "SELECT path, entry, type FROM docs WHERE entry != '' ORDER BY path, entry"
        ).fetchall()
    except sqlite3.Error:
        return old
    finally:
        db.close()
    by_leaf: dict[str, list[str]] = {}
    for path, entry, _ in rows:
        by_leaf.setdefault(str(path), []).append(str(entry))
    known: dict[str, Any] = old.get("leaves", {}) if isinstance(old.get("leaves"), dict) else {}
    leaves: dict[str, Any] = {}
    fresh = 0
    for path, ids in by_leaf.items():
        try:
            text = read_text(places.wiki.joinpath(*path.split("/"), "MEMORY.md"))
        except OSError:
            continue
        digest = page_digest(text)
        before = known.get(path)
        if isinstance(before, dict) and before.get("digest") == digest:
            leaves[path] = before
            continue
        found = origins(places, settings, [f"{path}#{i}" for i in ids])
        entries = {}
        for entry_id in ids:
            came = found[f"{path}#{entry_id}"]
            run, confirmed = confirmations(came.steps)
            entries[entry_id] = {"source": came.source, "run": run, "confirmed": confirmed}
        leaves[path] = {"digest": digest, "entries": entries}
        fresh += 1
        if fresh % CHECKPOINT == 0:
            kept = {"order": old.get("order", []), "used": old.get("used", {})}
            write(state, {"schema": SCHEMA, "head": "", "leaves": {**known, **leaves}, **kept})
    used = {u.ref: u.used for u in uses.counts(state, places.queue, index_file) if u.used > 0}
    ranked = sorted(
        (
            key(f"{path}#{entry_id}", info, used.get(f"{path}#{entry_id}", 0))
            for path, leaf in leaves.items()
            for entry_id, info in leaf["entries"].items()
        )
    )
    data = {
        "schema": SCHEMA,
        "head": head,
        "uses": mark,
        "leaves": leaves,
        "used": dict(sorted(used.items())),
        "order": [ref for *_, ref in ranked[:RANKED]],
    }
    write(state, data)
    return data


def write(state: Path, data: dict[str, Any]) -> None:
    from wikimem.fsio import atomic_write_text

    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    atomic_write_text(state / FILE, text + "\n", durable=False)
