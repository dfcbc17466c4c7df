"""Intake: a run record in, a durable job out. The hook's fast path.

Invariant: nothing is written before the record is normalised, redacted and bounded; the only
write is the atomic job file. No model, no git, no templates are imported here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from wikimem.config import Places, Settings, load, memory_disabled
from wikimem.errors import RecordError
from wikimem.intake.passlog import failure_warning
from wikimem.intake.queue import Queue
from wikimem.intake.record import normalise, parse_json
from wikimem.intake.snapshot import Caps, take
from wikimem.redaction.redact import to_text
from wikimem.runners import records_from_payload, session_of
from wikimem.runners.cursor import Cursor

HANDED = "its turns are queued by a detached hook"


@dataclass(frozen=True)
class Enqueued:
    job_id: str
    run_id: str
    duplicate: bool
    redactions: tuple[str, ...]


@dataclass(frozen=True)
class Accepted:
    """What a hook reports of a run: its job (None when skipped), the secret kinds removed,
    a failing-passes warning, or why the run was skipped."""

    job: str | None = None
    run_id: str = ""
    duplicate: bool = False
    redactions: tuple[str, ...] = ()
    warning: str | None = None
    skipped: str | None = None

    def wire(self) -> dict[str, Any]:
        """The listener's reply to a hook: a plain table that `marshal` carries."""
        if self.job is None:
            return {"ok": True, "skipped": self.skipped}
        return {
            "ok": True,
            "job": self.job,
            "run": self.run_id,
            "duplicate": self.duplicate,
            "redactions": list(self.redactions),
            "warning": self.warning,
        }


def caps(settings: Settings) -> Caps:
    return Caps(
        settings.capture.output_head,
        settings.capture.output_tail,
        settings.capture.snapshot_max,
    )


def decode(data: bytes, source: str) -> dict[str, Any]:
    """Bytes from a file or stdin to a JSON object; invalid UTF-8 is replaced, not fatal."""
    text = to_text(data)
    if text.startswith("[binary data"):
        raise RecordError(f"{source}: binary data, not a JSON run record")
    if not text.strip():
        raise RecordError(f"{source}: empty input, expected a JSON run record")
    return parse_json(text, source)


def record_from_bytes(
    data: bytes, source: str, github: bool, env: Mapping[str, str]
) -> dict[str, Any] | None:
    """What a hook was handed (a run record, a runner's hook payload, or a GitHub agent step's
    output) as a run record; None when the payload is not a run worth keeping."""
    if github:
        # the hook's path: only a GitHub step's output needs the GitHub adapter's parsers
        from wikimem.runners.github import record_from_output

        return record_from_output(to_text(data), env)
    records = _adapt(decode(data, source), source, env, ())
    return records[-1][1] if records else None


def _adapt(
    payload: dict[str, Any], source: str, env: Mapping[str, str], recorded: Collection[str]
) -> list[tuple[str | None, dict[str, Any]]]:
    try:
        return records_from_payload(payload, env, recorded)
    except (KeyError, TypeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        raise RecordError(f"{source}: unreadable hook payload ({exc})") from exc


def _hand_on(places: Places, session: str, payload: dict[str, Any], env: Mapping[str, str]) -> bool:
    """Whether the turns this hook closes are handed to a detached `wikimem hook` to queue
    (the runner's adapter says which hooks hand theirs on: `cursor_agent.queued_later`). The
    detached one gets the hook's environment, not this process's: in the warm listener the
    two differ, and the workspace and settings must be the hook's."""
    if not session.startswith("cursor-"):
        return False
    from wikimem.intake.background import spawn
    from wikimem.runners.cursor_agent import queued_later

    data = queued_later(payload, env)
    if data is None:
        return False
    try:
        spawn(
            ["hook", "--quiet", "-C", str(places.workspace), "-"],
            str(places.background_log),
            data,
            env=env,
        )
    except OSError:
        return False  # queued here then
    return True


def enqueue(
    places: Places, settings: Settings, record: dict[str, Any], source: str = "input"
) -> Enqueued:
    try:
        canonical = normalise(record, source)
        snapshot, kinds = take(canonical, caps(settings))
    except RecursionError as exc:
        raise RecordError(f"{source}: run record nested too deeply") from exc
    provider = (settings.memory.provider or "wiki").strip().lower()  # as provider_name() says
    jid, duplicate = Queue(places.queue).enqueue(snapshot.to_dict(), kinds, provider=provider)
    return Enqueued(jid, snapshot.run_id, duplicate, tuple(sorted(set(kinds))))


def accept(
    places: Places,
    env: Mapping[str, str],
    data: bytes = b"",
    source: str = "input",
    github: bool = False,
    record: dict[str, Any] | None = None,
    settings: Settings | None = None,
) -> Accepted:
    """What a hook does with a run, in its own process or in the warm listener: adapt `data`
    (unless given the `record`), redact, bound and enqueue it."""
    if memory_disabled(env) or places.paused_flag.exists():
        return Accepted(skipped="memory is off or paused")
    if record is not None or github:
        record = record if record is not None else record_from_bytes(data, source, github, env)
        if record is None:
            return Accepted(skipped="not a run to remember")
        one = enqueue(places, load(places, env) if settings is None else settings, record)
        return Accepted(
            one.job_id, one.run_id, one.duplicate, one.redactions, failure_warning(places.pass_log)
        )
    payload = decode(data, source)
    session = session_of(payload)
    lock = Cursor(places.state, session) if session else None
    with lock or contextlib.nullcontext():
        turns = _adapt(payload, source, env, lock.recorded if lock else ())
        handed = bool(turns) and bool(session) and _hand_on(places, str(session), payload, env)
        if not turns or handed:  # handed: a detached hook queues them, this one returns at once
            if lock is not None:
                lock.add((), payload)  # a SessionEnd is noted: the session did not crash
            return Accepted(skipped=HANDED if handed else "not a run to remember")
        settings = load(places, env) if settings is None else settings
        # Every turn the cursor lacks is queued, then the cursor moves: a crash in between
        # queues them again next time, and the queue takes them as the duplicates they are.
        done = [enqueue(places, settings, record) for _, record in turns]
        if lock is not None:
            lock.add((key for key, _ in turns if key is not None), payload)
    last = done[-1]
    return Accepted(
        last.job_id,
        last.run_id,
        all(d.duplicate for d in done),
        tuple(sorted({kind for d in done for kind in d.redactions})),
        failure_warning(places.pass_log),
    )
