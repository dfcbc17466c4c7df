"""The durable queue of jobs: one JSON file per job, moved between state folders by rename.

States: pending → active (claimed by a pass) → done | failed | review; unreadable files go to
corrupt; a person may drop a job they do not want indexed (kept in dropped). Finished jobs in
done are pruned by age and count (`queue.done_days`, `queue.done_max`); a done job's id still
says "already indexed" while it is kept. A job's id is derived from its run_id, so the same
run enqueued twice is one job. A failed attempt puts a job back in pending with `not_before`
(backoff from BACKOFF_BASE doubling up to BACKOFF_MAX); the background pass stays for it when
it comes due within `queue.retry_wait` (wikimem.indexing.indexer).
Invariant: a job file is only ever written atomically, and only a pass holding the workspace
lock moves files out of pending or active.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wikimem.errors import NotFound, RecordError
from wikimem.fsio import atomic_write_text, move

SCHEMA = 1
STATES = ("pending", "active", "done", "failed", "review", "corrupt", "dropped")
DROPPABLE = ("pending", "failed", "review", "corrupt")
INTERRUPTED = "the pass holding this job was interrupted"
BACKOFF_BASE = 30.0  # seconds; doubles with every failed attempt
BACKOFF_MAX = 3600.0


@dataclass(frozen=True)
class Job:
    id: str
    run: dict[str, Any]
    enqueued_at: float
    attempts: int = 0
    not_before: float = 0.0
    last_error: str = ""
    redactions: tuple[str, ...] = ()
    held_plan: dict[str, Any] | None = None  # a plan kept for review
    held_reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    provider: str = "wiki"  # the memory provider the job was made for (memory.provider)

    @property
    def run_id(self) -> str:
        return str(self.run.get("run_id", ""))

    def to_json(self) -> str:
        data = {
            "schema": SCHEMA,
            "id": self.id,
            "enqueued_at": self.enqueued_at,
            "attempts": self.attempts,
            "not_before": self.not_before,
            "last_error": self.last_error,
            "redactions": list(self.redactions),
            "run": self.run,
            "provider": self.provider,
        }
        if self.held_plan is not None:
            data["held_plan"] = self.held_plan
            data["held_reason"] = self.held_reason
        return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Job:
        try:
            data = json.loads(text)
            if data.get("schema") != SCHEMA:
                raise ValueError(f"unknown schema {data.get('schema')!r}")
            return cls(
                id=str(data["id"]),
                run=dict(data["run"]),
                enqueued_at=float(data["enqueued_at"]),
                attempts=int(data.get("attempts", 0)),
                not_before=float(data.get("not_before", 0)),
                last_error=str(data.get("last_error", "")),
                redactions=tuple(data.get("redactions", ())),
                held_plan=data.get("held_plan"),
                held_reason=str(data.get("held_reason", "")),
                provider=str(data.get("provider") or "wiki"),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise RecordError(f"corrupt job file: {exc}") from exc


def job_id(run_id: str) -> str:
    return hashlib.sha256(run_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class Queue:
    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, state: str) -> Path:
        return self.root / state

    def path(self, state: str, jid: str) -> Path:
        return self.folder(state) / f"{jid}.json"

    def state_of(self, jid: str) -> str | None:
        for state in STATES:
            if self.path(state, jid).exists():
                return state
        return None

    def enqueue(
        self,
        snapshot: dict[str, Any],
        redactions: list[str],
        now: float | None = None,
        provider: str = "wiki",
    ) -> tuple[str, bool]:
        """Write a job durably; return (job id, False) or (id, True) when already known."""
        jid = job_id(str(snapshot["run_id"]))
        if self.state_of(jid) is not None:
            return jid, True
        job = Job(
            id=jid,
            run=snapshot,
            enqueued_at=time.time() if now is None else now,
            redactions=tuple(sorted(set(redactions))),
            provider=provider,
        )
        atomic_write_text(self.path("pending", jid), job.to_json())
        return jid, False

    def _read(self, path: Path) -> Job:
        return Job.from_json(path.read_text(encoding="utf-8"))

    def jobs(self, state: str) -> Iterator[tuple[Path, Job | None]]:
        folder = self.folder(state)
        if not folder.is_dir():
            return
        for path in sorted(folder.glob("*.json")):
            try:
                yield path, self._read(path)
            except (RecordError, OSError, UnicodeDecodeError):
                yield path, None

    def recover(self, max_attempts: int, now: float | None = None) -> int:
        """Put jobs a crashed pass had claimed back in pending (caller holds the lock). The
        crash counts as an attempt of each: a job that crashes every pass that takes it ends
        in failed after `max_attempts`, instead of wedging the queue."""
        count = 0
        for path, job in list(self.jobs("active")):
            if job is None:
                move(path, self.folder("corrupt") / path.name)
            else:
                # no backoff: the interruption may be a person's ^C, not the job's fault
                self.fail(job, INTERRUPTED, max_attempts, now, backoff=False)
            count += 1
        return count

    def claim(self, limit: int, now: float | None = None) -> tuple[list[Job], list[str]]:
        """Move up to `limit` ready jobs to active, oldest first; set aside corrupt files."""
        now = time.time() if now is None else now
        ready: list[Job] = []
        warnings: list[str] = []
        for path, job in list(self.jobs("pending")):
            if job is None:
                move(path, self.folder("corrupt") / path.name)
                warnings.append(f"set aside corrupt job file {path.name} in queue/corrupt/")
                continue
            if job.not_before <= now:
                ready.append(job)
        ready.sort(key=lambda j: (j.enqueued_at, j.id))
        claimed = ready[:limit]
        for job in claimed:
            move(self.path("pending", job.id), self.path("active", job.id))
        return claimed, warnings

    def finish(self, job: Job, state: str = "done") -> None:
        """Move a claimed job to its final state, rewriting it first when it changed."""
        target = self.path(state, job.id)
        atomic_write_text(self.path("active", job.id), job.to_json())
        move(self.path("active", job.id), target)

    def fail(
        self,
        job: Job,
        error: str,
        max_attempts: int,
        now: float | None = None,
        backoff: bool = True,
    ) -> str:
        """Record a failed attempt: back to pending with backoff, or to failed after N tries."""
        now = time.time() if now is None else now
        attempts = job.attempts + 1
        delay = min(BACKOFF_BASE * 2 ** (attempts - 1), BACKOFF_MAX) if backoff else 0.0
        failed = replace(job, attempts=attempts, last_error=error[:500], not_before=now + delay)
        state = "failed" if attempts >= max_attempts else "pending"
        self.finish(failed, state)
        return state

    def hold(self, job: Job, plan: dict[str, Any], reason: str) -> None:
        self.finish(replace(job, held_plan=plan, held_reason=reason), "review")

    def pending_ready(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        return sum(1 for _, job in self.jobs("pending") if job is None or job.not_before <= now)

    def counts(self) -> dict[str, int]:
        return {
            s: len(list(self.folder(s).glob("*.json"))) if self.folder(s).is_dir() else 0
            for s in STATES
        }

    def next_due(self) -> float | None:
        """When the first pending job is due (epoch seconds; in the past when one is ready),
        None when pending holds no readable job."""
        times = [job.not_before for _, job in self.jobs("pending") if job is not None]
        return min(times) if times else None

    def drop(self, jid: str) -> tuple[Job | None, str]:
        """Move one job (by id or unique prefix) to dropped, where it is kept but never indexed;
        the job (None if unreadable) and the state it left. Caller holds the lock."""
        matches = [
            (state, path)
            for state in DROPPABLE
            for path in (self.folder(state).glob(f"{jid}*.json") if jid else ())
        ]
        if len(matches) != 1:
            raise NotFound(
                f"no single pending, failed, held or corrupt job matches {jid!r} "
                "(see `wikimem queue`)"
            )
        state, path = matches[0]
        try:
            job: Job | None = self._read(path)
        except (RecordError, OSError, UnicodeDecodeError):
            job = None
        move(path, self.folder("dropped") / path.name)
        return job, state

    def prune_done(self, max_days: int, max_count: int, now: float | None = None) -> int:
        """Remove finished jobs older than `max_days` (0: any age) and beyond the newest
        `max_count`; how many went. Done jobs are a record, not memory: the wiki's history
        keeps what they taught."""
        now = time.time() if now is None else now
        folder = self.folder("done")
        if not folder.is_dir():
            return 0
        stamped = []
        for path in folder.glob("*.json"):
            try:
                stamped.append((path.stat().st_mtime, path))
            except OSError:
                continue
        stamped.sort(reverse=True)
        removed = 0
        for rank, (mtime, path) in enumerate(stamped):
            too_old = max_days > 0 and now - mtime > max_days * 86400
            if (max_count > 0 and rank >= max_count) or too_old:
                path.unlink(missing_ok=True)
                removed += 1
        return removed

    def retry_failed(self) -> int:
        count = 0
        for path, job in list(self.jobs("failed")):
            if job is None:
                continue
            atomic_write_text(path, replace(job, attempts=0, not_before=0.0).to_json())
            move(path, self.path("pending", job.id))
            count += 1
        return count

    def take_held(self, jid: str) -> Job:
        """Claim a job held for review (approve): review → active."""
        matches = [p for p in self.folder("review").glob(f"{jid}*.json")] if jid else []
        if len(matches) != 1:
            raise NotFound(f"no single held job matches {jid!r} (see `wikimem review`)")
        job = self._read(matches[0])
        move(matches[0], self.path("active", job.id))
        return job
