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

A session that crashed (no SessionEnd, its last turns unreported) is picked up by a later
session's start in the same workspace: the cursor also keeps where the session's transcript is
(`origin`), and `left_behind` names each session whose transcript was written after its cursor
and has been still for IDLE_SECONDS, so that its turns are recorded as at a resume. The idle
time is what keeps a session running in another terminal from being recorded half-way: a live
turn writes its transcript at every message and tool result, and the longest it goes without
one is a single tool call (Claude Code's Bash stops at 10 minutes, Gemini CLI's shell after 5
without output; a Claude Code subagent writes its own transcript, which counts too). 30 minutes
is three times that; turns of a crashed session are then recorded at the first start after it.
Cursor's transcript is not read: for a Cursor conversation the scratch file its hooks append to
(`state/cursor/`) stands for the transcript, and the start hands it on as the conversation's
`sessionEnd`, which records the turns still open: those no `stop` reported, and the last one,
which only a later turn or a `sessionEnd` closes (a stop cannot tell whether more of its turn's
replies are to come). The hook that queues turns appends its own turn's line first, so a Cursor
scratch file older than its cursor is still handed on when it holds a line of a turn the cursor
does not.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from wikimem.fsio import atomic_write_text, open_private
from wikimem.runners.transcripts import IDLE_SECONDS  # still this long: no running turn (above)

KEEP = 5000  # turn keys kept per session: a longer session re-reads the oldest, deduplicated
# A cursor untouched this long goes when a new session's is made: runners keep transcripts
# for less (Claude Code 30 days by default), so no hook can bring its turns back.
STALE_SECONDS = 90 * 86400
SAFE_NAME = re.compile(r"^[A-Za-z0-9._:-]{1,120}$")
LOOK_AT = 16  # the newest cursors a start looks at
HAND_ON = 3  # sessions a start hands on at most (the rest wait for the next start)
LIST_MAX = 4096  # cursor files listed at most (prune keeps 90 days of sessions)
CURSOR_FIELDS = ("conversation_id", "workspace_roots", "cursor_version")  # Cursor's payloads
CLOSING = 60  # seconds after its SessionEnd in which a runner still writes its closing lines
TAIL = 4 * 1024 * 1024  # bytes of a Cursor scratch file read for turns its cursor lacks


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
        self._data: dict[str, Any] = {}
        self._fd: int | None = None

    def __enter__(self) -> Cursor:
        self._fd = open_private(self.path.with_suffix(".lock"), os.O_RDWR)
        with contextlib.suppress(ImportError):  # no fcntl (Windows): hooks then rarely race
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._data = _load(self.path)
        keys = self._data.get("recorded")
        self.recorded = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock
            self._fd = None

    def __contains__(self, key: str) -> bool:
        return key in self.recorded

    def add(self, keys: Iterable[str], payload: Mapping[str, Any] | None = None) -> None:
        """Add the keys of turns just queued (durably) and write the cursor atomically, with
        where the session's transcript is when the hook `payload` says, and when a SessionEnd
        came (even one that had nothing left to record: the session ended, it did not crash).
        A session's first hook writes its cursor even with nothing queued yet, when the payload
        says where to read it again: a crash in its first turn is then picked up like any other
        (a Cursor conversation's first `beforeSubmitPrompt`, before any `stop`). An OpenCode
        session whose every turn the cursor then holds goes into the workspace's record of
        finished sessions (`opencode.note_finished`), which the plugin's pickup passes by."""
        self._write(keys, payload)
        if self.session.startswith("opencode-") and payload and "messages" in payload:
            from wikimem.runners.opencode import note_finished  # the hook's path: OpenCode's

            note_finished(self.path.parent.parent, payload, self.recorded)

    def _write(self, keys: Iterable[str], payload: Mapping[str, Any] | None) -> None:
        new = [k for k in keys if k not in self.recorded]
        ended = (payload or {}).get("hook_event_name") in ("SessionEnd", "sessionEnd")
        where = origin(payload or {}, self.path)
        if not new and not (ended and self._data) and (self._data or not where):
            return
        self.recorded = (self.recorded + new)[-KEEP:]
        first = not self.path.exists()
        data = {**self._data, "session": self.session, "recorded": self.recorded}
        now = time.time()
        if new:
            data["updated_at"] = now
        if ended:
            data["ended_at"] = now
        if where:
            data["origin"] = where
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False) + "\n")
        self._data = data
        if first:
            prune(self.path.parent)


def origin(payload: Mapping[str, Any], cursor: Path | None = None) -> dict[str, str]:
    """What a later start needs to read the session again: its id, transcript and folder.
    For Cursor's payloads (whose own `transcript_path` no adapter reads) the conversation's
    scratch file beside the cursor `cursor` stands for its transcript: the hooks append to it."""
    if any(k in payload for k in CURSOR_FIELDS):
        roots = payload.get("workspace_roots")
        root = roots[0] if isinstance(roots, list) and roots else None
        conversation = payload.get("conversation_id") or payload.get("session_id")
        if cursor is None or not (isinstance(root, str) and root and isinstance(conversation, str)):
            return {}
        scratch = cursor.parent.parent / "cursor" / f"{cursor.stem}.jsonl"
        where = {"runner": "cursor", "session_id": conversation, "cwd": root}
        return where | {"transcript_path": str(scratch)}
    fields = {k: payload.get(k) for k in ("session_id", "transcript_path", "cwd")}
    if not (isinstance(fields["session_id"], str) and isinstance(fields["transcript_path"], str)):
        return {}
    return {k: v for k, v in fields.items() if isinstance(v, str) and v}


def begin(state: Path, session: str | None, payload: Mapping[str, Any]) -> None:
    """A session's start: write its cursor, with where its transcript is, before any hook of
    it queues a turn, so that a crash in its first turn is picked up by a later start like a
    crash in any other (a stat when the cursor is there already)."""
    if not session or cursor_path(state, session).exists() or not origin(payload, None):
        return
    with contextlib.suppress(OSError), Cursor(state, session) as cursor:
        cursor.add((), payload)


def _load(path: Path) -> dict[str, Any]:
    """A cursor's data; an unreadable cursor counts as empty (the queue dedups)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def left_behind(state: Path, current: str | None, now: float | None = None) -> list[dict]:
    """A resumed session's SessionStart payload for each session of this workspace (but
    `current`) that a hook left with its transcript written since, now still for
    IDLE_SECONDS: its turns no hook recorded (a crash) are recorded from it. Bounded: the
    LOOK_AT newest cursors, HAND_ON sessions. Each is marked `picked_at`, so the next start
    passes it by unless its transcript is written again."""
    now = time.time() if now is None else now
    found: list[tuple[float, str]] = []
    try:
        with os.scandir(state / "sessions") as listing:
            for n, entry in enumerate(listing):
                if n >= LIST_MAX:
                    break
                if entry.name.endswith(".json"):
                    with contextlib.suppress(OSError):
                        found.append((entry.stat().st_mtime, entry.path))
    except OSError:
        return []
    out: list[dict] = []
    for _, path in sorted(found, reverse=True)[:LOOK_AT]:
        payload = _left(Path(path), current, now)
        if payload is not None:
            out.append(payload)
            if len(out) >= HAND_ON:
                break
    return out


def _left(path: Path, current: str | None, now: float) -> dict[str, Any] | None:
    data = _load(path)
    where = data.get("origin")
    if data.get("session") == current or not isinstance(where, dict):
        return None
    transcript = where.get("transcript_path")
    if not isinstance(transcript, str) or not isinstance(where.get("session_id"), str):
        return None
    written = _written(transcript)
    seen = max(_number(data.get("updated_at")), _number(data.get("picked_at")))
    seen = max(seen, _number(data.get("ended_at")) + CLOSING) if data.get("ended_at") else seen
    if written is None or now - written < IDLE_SECONDS:
        return None  # gone, or the session may still be running
    if written <= seen and not (
        where.get("runner") == "cursor"
        and written > _number(data.get("picked_at"))
        and _unrecorded(transcript, data.get("recorded"))
    ):
        return None  # nothing new since a hook read it
    if not _mark(path, now):
        return None  # a hook of that session holds its cursor: it is alive, or next time
    if where.get("runner") == "cursor":  # Cursor quit or crashed: as if its session ended
        return {
            "hook_event_name": "sessionEnd",
            "conversation_id": where["session_id"],
            "workspace_roots": [where.get("cwd")],
            "reason": "picked up at a later start",
        }
    return {"hook_event_name": "SessionStart", "source": "resume", **where}


def _unrecorded(scratch: str, recorded: Any) -> bool:
    """Whether a Cursor scratch file holds a line of a turn the cursor does not: the hook that
    queued the turns before appends its own turn's line first, so the file can be older than
    the cursor and still hold that turn (when Cursor quit after that hook). Only the file's
    newest TAIL bytes are read: those lines were written last."""
    keys = set(recorded) if isinstance(recorded, list) else set()
    try:
        with open(scratch, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TAIL))
            data = handle.read(TAIL)  # the newest lines: those appended before the cursor moved
    except OSError:
        return False
    lines = data.splitlines()
    for raw in lines[1:] if size > TAIL else lines:  # the first may be cut
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("g"), str) and line["g"] not in keys:
            return True
    return False


def _written(transcript: str) -> float | None:
    """When the session last wrote: its transcript, or a subagent's transcript beside it
    (Claude Code's `<session>/subagents/`), whichever is newest; None when it is gone."""
    try:
        newest = os.stat(transcript).st_mtime
    except OSError:
        return None
    agents = Path(transcript).with_suffix("") / "subagents"
    with contextlib.suppress(OSError), os.scandir(agents) as listing:
        for n, entry in enumerate(listing):
            if n >= LOOK_AT * 16:
                break
            with contextlib.suppress(OSError):
                newest = max(newest, entry.stat().st_mtime)
    return newest


def _mark(path: Path, now: float) -> bool:
    """Note in the cursor that a start handed the session on; False when its lock is held."""
    try:
        fd = open_private(path.with_suffix(".lock"), os.O_RDWR)
    except OSError:
        return False
    try:
        with contextlib.suppress(ImportError):
            import fcntl

            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False
        data = _load(path)
        if not data:
            return False
        data["picked_at"] = now
        atomic_write_text(path, json.dumps(data, ensure_ascii=False) + "\n")
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def prune(folder: Path, now: float | None = None) -> None:
    """Remove the cursors (and their lock files) of sessions untouched for STALE_SECONDS."""
    limit = (time.time() if now is None else now) - STALE_SECONDS
    for path in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < limit:
                path.unlink()
                path.with_suffix(".lock").unlink(missing_ok=True)
