"""Indexing in the foreground: passes until a given job has left the queue (`hook --wait`, a
handed-off SessionEnd hook), and the lines a foreground pass reports.

Invariant: it returns once the job is done, failed, held, or waiting on a backoff; a pass that
committed pushes the wiki when `wiki.push` is on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from wikimem.config import Places, Settings
from wikimem.errors import LockBusy
from wikimem.fsio import workspace_lock
from wikimem.indexing.drain import drain
from wikimem.indexing.indexer import PassReport
from wikimem.indexing.plan import ALREADY_SAID
from wikimem.intake import passlog
from wikimem.intake.passlog import Outcome
from wikimem.intake.queue import Queue
from wikimem.lifecycle.sync import after_pass

Say = Callable[[str], None]
WAIT_FOR_LOG = 60.0  # seconds: at most one pass's length, for the line of a job it finished


def pusher(places: Places, settings: Settings, say: Say) -> Callable[[], object]:
    """What a pass does after it committed: push the wiki when `wiki.push` is on."""
    return lambda: after_pass(places, settings, say)


def index_until_done(
    places: Places,
    settings: Settings,
    job_id: str,
    say: Say,
    quiet: bool = False,
    sent_before: bool = False,
    log_mark: tuple[int, int] | None = None,
) -> str:
    """Run passes (waiting for a running one) until `job_id` has left the queue's open states;
    its state then. `say` takes each line for the person (stderr). The job's outcome is said
    even when another pass (the background one) took it: the pass log's lines after
    `log_mark` (where it ended before the job was queued) hold it."""
    queue = Queue(places.queue)
    start = passlog.mark(places.pass_log) if log_mark is None else log_mark
    state = queue.state_of(job_id)
    heard: Say = (lambda _: None) if quiet else say
    if sent_before and state in ("done", "dropped", "review", "failed"):
        known = {"done": "already indexed", "dropped": "dropped", "review": "held for review"}
        said = known.get(state, "failed (`wikimem queue retry`)")
        heard(f"job {job_id[:12]}: {said}; this run was sent before")
        return state
    told = False  # a pass of ours reported the job's outcome
    while state in ("pending", "active"):
        reports = drain(
            places, settings, wait=True, warn=heard, after_commits=pusher(places, settings, heard)
        )
        report(reports, heard)
        told = told or any(o.job == job_id for r in reports for o in r.outcomes)
        new_state = queue.state_of(job_id)
        if new_state == "pending" and any(
            o.outcome == "failed" for r in reports for o in r.outcomes
        ):
            say("wikimem: the pass failed; the run stays queued and will be retried")
            return "pending"
        if new_state == state == "pending" and not reports:
            break  # waiting on a backoff: nothing more to do now
        state = new_state
    if not told:
        _tell_from_log(places, job_id, start, state, heard)
    return state or "unknown"


def _tell_from_log(
    places: Places, job_id: str, start: passlog.Mark, state: str | None, say: Say
) -> None:
    """The outcome another pass logged for `job_id` after `start`. A pass moves a job out of
    active before it logs the outcome, both under the workspace lock: holding that lock a
    moment means the line is written, if a pass wrote one."""
    lines = [i for i in passlog.since(places.pass_log, start) if i.get("job") == job_id]
    if not lines and state not in ("pending", "active"):
        try:
            with workspace_lock(places.lock, wait=True, timeout=WAIT_FOR_LOG):
                pass
        except LockBusy:
            pass  # a pass longer than that: say what the queue knows
        lines = [i for i in passlog.since(places.pass_log, start) if i.get("job") == job_id]
    if not lines:
        where = {
            "done": "indexed by another pass",
            "review": "held for review (`wikimem queue`)",
            "dropped": "dropped",
            "failed": "failed (`wikimem queue retry`)",
            "pending": "waiting in the queue for a retry (`wikimem queue`)",
        }
        say(f"job {job_id[:12]}: {where.get(state or '', state or 'no longer queued')}")
        return
    fields = {f.name for f in dataclasses.fields(Outcome)}
    last = lines[-1]
    known = {k: v for k, v in last.items() if k in fields}
    outcome = Outcome(**{"time": "", "pass_id": "", "job": job_id, "run_id": job_id, **known})
    say(f"{outcome.run_id}: {describe(outcome)}")


def report(reports: Sequence[PassReport], say: Say) -> None:
    """Each pass's warnings (once each) and each run's outcome."""
    seen: set[str] = set()
    for done in reports:
        for message in done.warnings:
            if message not in seen:
                say(message if message.startswith("wikimem") else f"wikimem: {message}")
                seen.add(message)
        for outcome in done.outcomes:
            say(f"{outcome.run_id}: {describe(outcome)}")


def describe(outcome: Outcome) -> str:
    """What happened to one run, and why: the commit, the rule that skipped it, the reason
    each edit was rejected, the error of a failed pass."""
    # an edit repeating what an entry says is no change, not a rejected edit
    said = ", ".join(
        str(r.get("what", "")).split(" ", 1)[-1]
        for r in outcome.rejected
        if r.get("reason") == ALREADY_SAID
    )
    rejected = "; ".join(
        f"{r.get('what', '')} {r.get('reason', '')}".strip()
        for r in outcome.rejected
        if r.get("reason") != ALREADY_SAID
    )
    already = f"already in the wiki: {said}" if said else ""
    if outcome.outcome == "changed":
        extra = "; ".join(
            filter(None, (f"edits rejected: {rejected}" if rejected else "", already))
        )
        # another memory provider has no commit: its note names the change
        where = f" in commit {outcome.commit[:7]}" if outcome.commit else f": {outcome.note}"
        return f"changed{where if where != ': ' else ''}" + (f" ({extra})" if extra else "")
    if outcome.outcome == "no change":
        if rejected:
            return f"edits rejected: {rejected}" + (f"; {already}" if already else "")
        if already:
            return f"no change: {already}"
        return f"no change: {outcome.note}" if outcome.note else "no change (no edit proposed)"
    if outcome.outcome == "failed":
        return f"failed: {outcome.error}" + (f" ({outcome.note})" if outcome.note else "")
    return f"{outcome.outcome}" + (f": {outcome.note}" if outcome.note else "")
