"""Draining the queue: as many passes as it takes, and, for the background pass, staying for
the retries of failed jobs that come due soon.

Invariants: one pass at a time holds the workspace lock, and a pass that finds it taken leaves
its jobs to the holder, which looks at the queue again after letting go; at most one process a
workspace waits for retries (RETRY_LOCK), without the workspace lock; a job failing on every
retry still ends in failed/ after `queue.max_attempts`.
"""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from collections.abc import Callable

from wikimem.config import Places, Settings
from wikimem.errors import LockBusy, WikimemError
from wikimem.fsio import workspace_lock
from wikimem.indexing.indexer import Pass, PassReport, Progress, Warn
from wikimem.intake.background import RETRY_LOCK
from wikimem.intake.queue import Queue


def drain(
    places: Places,
    settings: Settings,
    *,
    wait: bool = False,
    until_due: bool = False,
    progress: Progress | None = None,
    warn: Warn = lambda _: None,
    after_commits: Callable[[], object] | None = None,
) -> list[PassReport]:
    """Run passes until no ready job is left. LockBusy when another pass holds the lock and
    `wait` is false; the holder will see our jobs, since it re-checks after releasing.
    `after_commits` runs under the lock when a pass committed (the CLI pushes the wiki there).
    With `until_due` (the background pass), stay for retries coming due (see `_stay`)."""
    queue = Queue(places.queue)
    try:
        reports = _passes(places, settings, queue, wait, -1, progress, warn, after_commits)
    except LockBusy:
        if not until_due:
            raise
        reports = []  # the holder runs what is ready; a retry it fails may still need a waiter
        busy = True
    else:
        busy = False
    if until_due:
        reports += _stay(places, settings, queue, progress, warn, after_commits)
        if busy and not reports:
            raise LockBusy("a pass is already running in this workspace")
    if any(r.commit for r in reports):
        _refresh_standing(places, settings, warn)
    queue.prune_done(settings.queue.done_days, settings.queue.done_max)
    return reports


def _refresh_standing(places: Places, settings: Settings, warn: Warn) -> None:
    """Bring the standing in step with what the passes wrote, while git is loaded anyway: else
    the next session start quotes the new entries with "origin not recorded yet" and leaves
    the refresh to a process of its own. Derived state: a refresh that cannot run is left to
    that start."""
    from wikimem.recall import standing

    try:
        with workspace_lock(places.state / standing.LOCK, busy="a refresh is running"):
            standing.refresh(places, settings)
    except LockBusy:
        pass  # the one running brings it up to date
    except (OSError, sqlite3.Error, WikimemError) as error:
        warn(f"wikimem: the entries' standing was not refreshed ({error}); the next start will")


def _passes(
    places: Places,
    settings: Settings,
    queue: Queue,
    wait: bool,
    timeout: float,
    progress: Progress | None,
    warn: Warn,
    after_commits: Callable[[], object] | None,
) -> list[PassReport]:
    """Passes under the workspace lock until no ready job is left (see `drain`)."""
    reports: list[PassReport] = []
    batch = max(int(settings.queue.batch), 1)
    while True:
        try:
            with workspace_lock(places.lock, wait=wait, timeout=timeout):
                work = Pass(places, settings, warn)
                work.recover()
                while True:
                    jobs, notes = queue.claim(batch)
                    for note in notes:
                        warn(f"wikimem: {note}")
                    if not jobs:
                        break
                    report = work.run(jobs)
                    reports.append(report)
                    if progress:
                        progress(len(jobs))
                    if all_failed(report):
                        break  # the model or the disk is failing: leave the rest for later
                if after_commits and any(r.commit for r in reports):
                    after_commits()
        except LockBusy:
            if not reports:
                raise
            break
        if not queue.pending_ready() or (reports and all_failed(reports[-1])):
            break
    return reports


# ---- staying for retries -------------------------------------------------------------------
# A job that failed waits in pending until `not_before`. The background pass that a hook, the
# listener or the MCP server starts does not leave it to the next hook: it stays, without the
# workspace lock, until the first retry is due, runs it, and repeats; it leaves once no pending
# job is due within `queue.retry_wait` seconds. One process per workspace does this (it holds
# RETRY_LOCK); a job failing on every retry still ends in failed/ after `queue.max_attempts`.

LOOK_EVERY = 30.0  # seconds between looks at the queue while waiting (a job dropped, edited)


class _Stopped(BaseException):
    """SIGTERM while waiting for a retry: leave at once (no pass is running then)."""


def _stay(
    places: Places,
    settings: Settings,
    queue: Queue,
    progress: Progress | None,
    warn: Warn,
    after_commits: Callable[[], object] | None,
) -> list[PassReport]:
    """Wait for and run due retries while one is due within `queue.retry_wait`; nothing when
    another process already waits for this workspace's retries."""
    bound = settings.queue.retry_wait
    reports: list[PassReport] = []
    # Looking again after letting go of the lock: a pass that failed a job while we held it
    # found the lock taken and left, trusting us with a retry we had decided not to wait for.
    while bound > 0 and _next_retry(places, queue, bound) is not None:
        try:
            # taking it also lets go of the hook's "a pass is starting" claim (wikimem.fsio),
            # so the hooks that come while we sleep start passes of their own
            with workspace_lock(
                places.state / RETRY_LOCK, busy="another pass waits for this workspace's retries"
            ):
                _retries(places, settings, queue, bound, reports, (progress, warn, after_commits))
        except (LockBusy, _Stopped):
            break  # LockBusy: that waiter runs our retries too
    return reports


def _retries(
    places: Places,
    settings: Settings,
    queue: Queue,
    bound: int,
    reports: list[PassReport],
    hooks: tuple[Progress | None, Warn, Callable[[], object] | None],
) -> None:
    """Sleep until the next retry is due, run the passes, repeat; each pass's report goes into
    `reports` (the caller holds RETRY_LOCK)."""
    warn = hooks[1]
    idle = False  # the last passes found nothing ready although a job was due
    said = 0.0
    while (due := _next_retry(places, queue, bound)) is not None:
        delay = due - time.time()
        if delay > 0:
            if due != said:
                warn(
                    f"wikimem: waiting for a retry due in {delay:.0f} s (queue.retry_wait {bound})"
                )
                said = due
            _sleep(min(delay, LOOK_EVERY))
            idle = False
            continue
        if idle:
            break  # due but never claimed: leave it to the next pass rather than spin
        try:
            more = _passes(places, settings, queue, True, bound, *hooks)
        except LockBusy:
            break  # a pass held the lock all along: it re-checks the queue when it is done
        idle = not more
        reports += more


def _next_retry(places: Places, queue: Queue, bound: int) -> float | None:
    """When the first pending job is due (epoch seconds, maybe past); None when none is due
    within `bound` seconds, or the wiki is gone (a waiter never recreates a deleted wiki)."""
    if not places.wiki.is_dir():
        return None
    due = queue.next_due()
    return due if due is not None and due - time.time() <= bound else None


def _sleep(seconds: float) -> None:
    """Sleep; SIGTERM meanwhile raises _Stopped (a pass is then killed as any pass is)."""
    if threading.current_thread() is not threading.main_thread():
        time.sleep(seconds)
        return

    def stop(_signum: int, _frame: object) -> None:
        raise _Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        time.sleep(seconds)
    finally:
        signal.signal(signal.SIGTERM, previous)


def all_failed(report: PassReport) -> bool:
    """Every job of the pass failed: the model or the disk is failing, not one job."""
    return bool(report.outcomes) and all(o.outcome == "failed" for o in report.outcomes)
