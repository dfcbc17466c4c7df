"""The log of what the in-loop hooks delivered: one JSON line per injection (when, which event,
which entries) in `.clarvis/state/injections/<session>.jsonl`, so a session is never handed
the same entry twice and `status` can say what reached the agent.

It lives under state/, never in the wiki: recall still never writes a page. A line is appended
with one write on a file opened for appending, which POSIX keeps whole for lines this short.

Invariant: a log that cannot be read or written never stops a delivery (fails open).
"""

from __future__ import annotations

import json
import os
import re
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

FOLDER = "injections"
SCHEMA = 1
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def log_file(state: Path, session: str) -> Path:
    name = UNSAFE.sub("-", session).strip(".-")[:100] or "no-session"
    return state / FOLDER / f"{name}.jsonl"


def delivered(state: Path, session: str) -> set[str]:
    """The entries (`path#entry`) already delivered in this session."""
    if not session:
        return set()
    refs: set[str] = set()
    try:
        lines = log_file(state, session).read_text(encoding="utf-8").splitlines()
    except OSError:
        return refs
    for line in lines:
        try:
            refs.update(str(r) for r in json.loads(line).get("entries", ()))
        except (ValueError, AttributeError, TypeError):
            continue
    return refs


def record(state: Path, session: str, event: str, runner: str, refs: list[str]) -> None:
    """Append one injection to the session's log."""
    line = {
        "v": SCHEMA,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "session": session,
        "event": event,
        "runner": runner,
        "entries": refs,
    }
    path = log_file(state, session)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass  # the agent still gets its context; only the count misses one


def read_all(state: Path) -> list[dict[str, object]]:
    """Every logged injection of the workspace, oldest file first (for status and counts)."""
    found: list[dict[str, object]] = []
    folder = state / FOLDER
    try:
        files = sorted(folder.glob("*.jsonl"))
    except OSError:
        return found
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found
