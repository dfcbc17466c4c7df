"""Retries come due without a new hook: the background pass (`index --until-due`, what a hook
starts) stays, without the workspace lock, for a failed job's retry due within
`queue.retry_wait`, runs it, and leaves; one such waiter per workspace; a person's `index`
never waits.

Real processes in real temp workspaces (the offline extractor needs no model; the failing one
is the loopback server). Waiting is on the processes the tests start, with a timeout, or on the
queue against a deadline; never a blind sleep.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import git, run_wikimem
from tests.openai_server import OpenAIServer, Reply
from tests.test_concurrency import lock_free, popen_wikimem, wait_until
from wikimem import config
from wikimem.errors import LockBusy
from wikimem.fsio import atomic_write_text, workspace_lock
from wikimem.intake.accept import enqueue
from wikimem.intake.background import RETRY_LOCK
from wikimem.intake.queue import Job, Queue
from wikimem.wiki.workspace import init

DEADLINE = 60.0


@pytest.fixture(autouse=True)
def retry_wait_from_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' environment turns waiting off (conftest); here each workspace's config says."""
    monkeypatch.delenv("WIKIMEM_RETRY_WAIT", raising=False)


WAITING = b"waiting for a retry due in"


def fact_run(run_id: str) -> dict:
    return {
        "run_id": run_id,
        "task": f"Remember {run_id}",
        "memory": [
            {"path": "ops/retries", "title": f"Fact of {run_id}", "content": f"Body {run_id}."}
        ],
    }


def setup(workspace: Path, retry_wait: int, env: dict[str, str] | None = None) -> config.Places:
    places = config.places(workspace, env or {})
    init(places, config.load(places, env or {}))
    extra = "[model]\ntimeout = 5\nmax_retries = 0\n" if env else ""
    places.workspace_config.write_text(f"[queue]\nretry_wait = {retry_wait}\n{extra}")
    return places


def backing_off(places: config.Places, run_id: str, due_in: float, attempts: int = 1) -> Job:
    """A job that failed `attempts` times and is due `due_in` seconds from now."""
    settings = config.load(places, {})
    jid = enqueue(places, settings, fact_run(run_id)).job_id
    queue = Queue(places.queue)
    job = replace(
        queue._read(queue.path("pending", jid)),
        attempts=attempts,
        not_before=time.time() + due_in,
        last_error="the model was unreachable",
    )
    atomic_write_text(queue.path("pending", jid), job.to_json())
    return job


def head(places: config.Places) -> str:
    return git("rev-parse", "HEAD", cwd=places.wiki).strip()


def pending(places: config.Places) -> list[Job]:
    return [job for _, job in Queue(places.queue).jobs("pending") if job is not None]


def until_waiting(proc: subprocess.Popen) -> bytes:
    """Read the process's stderr until it says it waits for a retry (or exits, or the deadline
    passes); what it said."""
    assert proc.stderr is not None
    said = b""
    end = time.monotonic() + DEADLINE
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stderr, selectors.EVENT_READ)
        while WAITING not in said and time.monotonic() < end:
            if selector.select(timeout=end - time.monotonic()):
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break  # it exited
                said += chunk
    return said


def test_a_retry_coming_due_is_indexed_by_the_background_pass(workspace: Path) -> None:
    places = setup(workspace, retry_wait=60)
    before = head(places)
    job = backing_off(places, "run-retry", due_in=2.0)  # once the process is up, still ahead
    done = run_wikimem("index", "--until-due", cwd=workspace, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    assert WAITING in done.stderr and b"Traceback" not in done.stderr
    assert Queue(places.queue).state_of(job.id) == "done"
    assert head(places) != before
    leaf = places.wiki / "ops" / "retries" / "MEMORY.md"
    assert "## Fact of run-retry" in leaf.read_text()
    trailers = git("log", "-1", "--format=%(trailers:key=Wikimem-Run,valueonly)", cwd=places.wiki)
    assert trailers.strip() == "run-retry"


def test_a_hooks_background_pass_stays_for_an_earlier_jobs_retry(workspace: Path) -> None:
    places = setup(workspace, retry_wait=30)
    waiting = backing_off(places, "run-earlier", due_in=2.0)
    hook = run_wikimem("hook", cwd=workspace, input=json.dumps(fact_run("run-new")))
    assert hook.returncode == 0 and b"Traceback" not in hook.stderr
    queue = Queue(places.queue)
    # no other hook, no `index`: the pass the hook started takes the retry when it is due
    wait_until(lambda: queue.counts()["done"] == 2, "the retry to land", DEADLINE)
    assert queue.state_of(waiting.id) == "done"
    text = (places.wiki / "ops" / "retries" / "MEMORY.md").read_text()
    assert "## Fact of run-earlier" in text and "## Fact of run-new" in text

    def gone() -> bool:  # the detached pass left: neither lock is held
        try:
            with workspace_lock(places.state / RETRY_LOCK):
                return lock_free(places)
        except LockBusy:
            return False

    wait_until(gone, "the background pass to leave", DEADLINE)
    log = places.background_log.read_text() if places.background_log.exists() else ""
    assert "Traceback" not in log and "waiting" not in log  # quiet in the background


def test_a_retry_due_beyond_the_bound_is_left_pending(workspace: Path) -> None:
    places = setup(workspace, retry_wait=5)
    before = head(places)
    job = backing_off(places, "run-later", due_in=3600)
    started = time.monotonic()
    done = run_wikimem("index", "--until-due", cwd=workspace, timeout=30)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 30  # it did not wait the hour
    assert WAITING not in done.stderr
    assert [(j.id, j.attempts) for j in pending(places)] == [(job.id, 1)]
    assert head(places) == before


def test_zero_retry_wait_never_waits(workspace: Path) -> None:
    places = setup(workspace, retry_wait=600)
    job = backing_off(places, "run-soon", due_in=20)
    env = {"WIKIMEM_RETRY_WAIT": "0"}  # over the config's 600
    done = run_wikimem("index", "--until-due", cwd=workspace, env=env, timeout=15)
    assert done.returncode == 0 and WAITING not in done.stderr, done.stderr
    assert [j.id for j in pending(places)] == [job.id]


def test_a_failing_retry_is_charged_and_never_loops(
    workspace: Path, openai_server: OpenAIServer
) -> None:
    env = {
        "OPENAI_BASE_URL": openai_server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }
    openai_server.default = Reply.error(500, "upstream exploded")
    places = setup(workspace, retry_wait=20, env=env)
    before = head(places)
    again = backing_off(places, "run-again", due_in=0.5, attempts=1)
    last = backing_off(places, "run-last", due_in=0.5, attempts=4)  # queue.max_attempts is 5
    done = run_wikimem("index", "--quiet", "--until-due", cwd=workspace, env=env, timeout=DEADLINE)
    assert b"Traceback" not in done.stderr
    queue = Queue(places.queue)
    # the last attempt ends in failed/; the other's next backoff (60 s) is beyond the bound
    assert queue.state_of(last.id) == "failed"
    [retried] = pending(places)
    assert retried.id == again.id and retried.attempts == 2
    assert retried.not_before - time.time() > 20
    assert head(places) == before
    assert len(openai_server.completions) >= 2  # each was asked for, alone after the batch


def test_a_persons_index_does_not_wait(workspace: Path) -> None:
    places = setup(workspace, retry_wait=600)
    job = backing_off(places, "run-soon", due_in=30)
    done = run_wikimem("index", cwd=workspace, timeout=15)
    assert done.returncode == 0, done.stderr
    assert b"queue empty" in done.stdout and WAITING not in done.stderr
    assert [j.id for j in pending(places)] == [job.id]


def test_one_waiter_without_the_lock_and_sigterm_ends_it(workspace: Path) -> None:
    places = setup(workspace, retry_wait=120)
    job = backing_off(places, "run-later", due_in=60)
    first = popen_wikimem("index", "--until-due", cwd=workspace)
    try:
        said = until_waiting(first)
        assert WAITING in said, said
        # a second would-be waiter runs its pass and leaves at once
        second = run_wikimem("index", "--until-due", cwd=workspace, timeout=20)
        assert second.returncode == 0 and WAITING not in second.stderr, second.stderr
        # the waiter does not hold the workspace lock: a command needing it goes on
        assert lock_free(places)
        assert pending(places)[0].attempts == 1
        status = run_wikimem("status", cwd=workspace, timeout=20).stdout.decode()
        assert "retry    the next is due in" in status, status
        assert "a background pass waits for it" in status
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=DEADLINE)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert b"Traceback" not in said + err
    assert [(j.id, j.attempts) for j in pending(places)] == [(job.id, 1)]
    with workspace_lock(places.state / RETRY_LOCK):  # let go of on the way out
        pass
    alone = run_wikimem("status", cwd=workspace, timeout=20).stdout.decode()
    assert "the next hook or `wikimem index` takes it" in alone, alone


def test_jobs_dropped_or_edited_while_waiting_are_not_indexed(workspace: Path) -> None:
    places = setup(workspace, retry_wait=60)
    before = head(places)
    unwanted = backing_off(places, "run-unwanted", due_in=4.0)
    later = backing_off(places, "run-later", due_in=4.0)
    waiter = popen_wikimem("index", "--until-due", cwd=workspace)
    try:
        said = until_waiting(waiter)
        assert WAITING in said, said
        queue = Queue(places.queue)
        with workspace_lock(places.lock, wait=True, timeout=5):  # as `wikimem queue drop`
            queue.drop(unwanted.id)
        pushed = replace(later, not_before=time.time() + 3600)  # beyond the bound now
        atomic_write_text(queue.path("pending", later.id), pushed.to_json())
        _, err = waiter.communicate(timeout=DEADLINE)
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    assert waiter.returncode == 0, err
    assert queue.state_of(unwanted.id) == "dropped"
    assert [(j.id, j.not_before) for j in pending(places)] == [(later.id, pushed.not_before)]
    assert head(places) == before
