"""Indexing in the foreground: passes until a given job has left the queue (`hook --wait`, a
handed-off SessionEnd hook), and the lines a foreground pass reports.

Invariant: it returns once the job is done, failed, held, or waiting on a backoff; a pass that
committed pushes the wiki when `wiki.push` is on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wikimem.config import Places, Settings
from wikimem.indexing.drain import drain
from wikimem.indexing.indexer import PassReport
from wikimem.indexing.plan import ALREADY_SAID
from wikimem.intake.passlog import Outcome
from wikimem.intake.queue import Queue
from wikimem.lifecycle.sync import after_pass

Say = Callable[[str], None]


def pusher(places: Places, settings: Settings, say: Say) -> Callable[[], object]:
    """What a pass does after it committed: push the wiki when `wiki.push` is on."""
    return lambda: after_pass(places, settings, say)


def index_until_done(
    places: Places, settings: Settings, job_id: str, say: Say, quiet: bool = False
) -> str:
    """Run passes (waiting for a running one) until `job_id` has left the queue's open states;
    its state then. `say` takes each line for the person (stderr)."""
    queue = Queue(places.queue)
    state = queue.state_of(job_id)
    heard: Say = (lambda _: None) if quiet else say
    if state in ("done", "dropped", "review", "failed"):
        known = {"done": "already indexed", "dropped": "dropped", "review": "held for review"}
        said = known.get(state, "failed (`wikimem queue retry`)")
        heard(f"job {job_id[:12]}: {said}; this run was sent before")
    while state in ("pending", "active"):
        reports = drain(
            places, settings, wait=True, warn=heard, after_commits=pusher(places, settings, heard)
        )
        report(reports, heard)
        new_state = queue.state_of(job_id)
        if new_state == "pending" and any(
            o.outcome == "failed" for r in reports for o in r.outcomes
        ):
            say("wikimem: the pass failed; the run stays queued and will be retried")
            return "pending"
        if new_state == state == "pending" and not reports:
            break  # waiting on a backoff: nothing more to do now
        state = new_state
    return state or "unknown"


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
