"""A session's cursor: which of its turns are already queued, so that every turn is recorded
exactly once whichever hook events fire.

Runners do not report every turn: Claude Code fires no Stop on an interrupt, a hook can crash or
time out, a compaction happens mid-session. So each hook that reads a session's transcript
records every turn of it the cursor does not hold yet, then adds them to the cursor. The cursor is
`state/sessions/<session>.json` in the workspace, one per session, holding the keys of the turns
queued (for Claude Code the uuid of the turn's prompt, which survives rewinds; for Codex the
turn's id or its position in the append-only rollout).

Invariant: the cursor is written only after the turns it names are durably queued, so a crash
between the two loses nothing: the next hook queues those turns again and the queue, whose job id
derives from the run id, takes each as the duplicate it is. Hooks of one session (a Stop racing
its SessionEnd) take the cursor's lock in turn. Standard library only: this is the hook's path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from wikimem.fsio import atomic_write_text, open_private

KEEP = 5000  # turn keys kept per session: a longer session re-reads the oldest, deduplicated
# A cursor untouched this long goes when a new session's is made: runners keep transcripts
# for less (Claude Code 30 days by default), so no hook can bring its turns back.
STALE_SECONDS = 90 * 86400
SAFE_NAME = re.compile(r"^[A-Za-z0-9._:-]{1,120}$")


def cursor_path(state: Path, session: str) -> Path:
    """The cursor file of `session`; an id unfit for a file name is hashed."""
    name = session.replace(":", "_")
    if not SAFE_NAME.match(session) or name.startswith("."):
        name = hashlib.sha256(session.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return state / "sessions" / f"{name}.json"


class Cursor:
    """The turns of one session already queued. Use as a context manager: it holds the
    session's lock from reading the cursor to writing it."""

    def __init__(self, state: Path, session: str) -> None:
        self.path = cursor_path(state, session)
        self.session = session
        self.recorded: list[str] = []
        self._fd: int | None = None

    def __enter__(self) -> Cursor:
        self._fd = open_private(self.path.with_suffix(".lock"), os.O_RDWR)
        with contextlib.suppress(ImportError):  # no fcntl (Windows): hooks then rarely race
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_EX)
        self.recorded = self._read()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock
            self._fd = None

    def __contains__(self, key: str) -> bool:
        return key in self.recorded

    def add(self, keys: Iterable[str]) -> None:
        """Add the keys of turns just queued (durably) and write the cursor atomically."""
        new = [k for k in keys if k not in self.recorded]
        if not new:
            return
        self.recorded = (self.recorded + new)[-KEEP:]
        first = not self.path.exists()
        data = {"session": self.session, "recorded": self.recorded, "updated_at": time.time()}
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False) + "\n")
        if first:
            prune(self.path.parent)

    def _read(self) -> list[str]:
        """The keys in the cursor; an unreadable cursor counts as empty (the queue dedups)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        keys = data.get("recorded") if isinstance(data, dict) else None
        return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []


def prune(folder: Path, now: float | None = None) -> None:
    """Remove the cursors (and their lock files) of sessions untouched for STALE_SECONDS."""
    limit = (time.time() if now is None else now) - STALE_SECONDS
    for path in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < limit:
                path.unlink()
                path.with_suffix(".lock").unlink(missing_ok=True)
