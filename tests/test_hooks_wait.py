"""`hook --wait` says its own run's outcome, even when a background pass took the job first,
and a person's hook (on a terminal) says in one line what it did with the run.

The race is made certain, not left to luck: a background `wikimem index` is held mid-model-call
(the model server answers once the test lets it) while the hook queues its run and waits; the
background pass, still holding the workspace lock, claims the hook's job too and indexes it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.conftest import ROOT, run_wikimem
from tests.openai_server import OpenAIServer, Reply
from tests.test_pipeline import model_env
from wikimem.intake.queue import Queue, job_id

DEADLINE = 60.0


def taught(run_id: str) -> str:
    evidence = [
        {"kind": "command", "command": f"make {run_id}", "exit_code": 2,
         "output": f"make: *** No rule to make target '{run_id}'.  Stop."},
        {"kind": "command", "command": f"make -C web {run_id}", "exit_code": 0, "output": "ok"},
    ]  # fmt: skip
    return json.dumps({"run_id": run_id, "task": f"build {run_id}", "evidence": evidence})


def adding(entry: str, gate: threading.Event | None = None) -> Reply:
    # the lesson of `taught`, in its words: the target's rule lives in web/
    body = f"The {entry} target is built from web/: plain make stops with `No rule to make target`."
    edit = {"action": "add", "leaf": "build/make", "entry": entry, "title": entry.title(),
            "type": "semantic", "body": body, "reason": "seen"}  # fmt: skip
    return Reply.plan({"summary": f"Record {entry}", "edits": [edit]}, gate=gate)


def wikimem(*args: str, env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "wikimem", *args],
        cwd=cwd,
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_wait_reports_its_own_outcome_when_a_background_pass_took_the_job(
    workspace: Path, openai_server: OpenAIServer
) -> None:
    env = model_env(openai_server)
    assert run_wikimem("init", cwd=workspace, env=env).returncode == 0
    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    for round in range(3):
        first, mine = f"bg-{round}", f"mine-{round}"
        gate = threading.Event()
        openai_server.reset()
        openai_server.script(adding(f"bg{round}", gate=gate), adding(f"mine{round}"))
        queued = run_wikimem("enqueue", "-", cwd=workspace, input=taught(first), env=env)
        assert queued.returncode == 0, queued.stderr
        background = wikimem("index", env=env, cwd=workspace)
        openai_server.wait_for_requests(1, timeout=DEADLINE)  # it holds the lock, mid-call
        record = workspace.parent / f"{mine}.json"
        record.write_text(taught(mine), encoding="utf-8")
        hook = wikimem("hook", "--wait", str(record), env=env, cwd=workspace)
        jid = job_id(mine)
        until(lambda: queue.state_of(jid) is not None, "the hook to queue its run")  # noqa: B023
        gate.set()
        _, hook_err = hook.communicate(timeout=DEADLINE)
        bg_out, bg_err = background.communicate(timeout=DEADLINE)
        said = hook_err.decode()
        assert hook.returncode == 0, said
        assert queue.state_of(job_id(mine)) == "done"
        assert re.search(rf"^{mine}: changed in commit [0-9a-f]{{7}}$", said, re.M), (said, bg_err)
        assert "sent before" not in said
        # the background pass, not the hook, indexed it
        assert mine in (bg_out + bg_err).decode(), (bg_out, bg_err)


def test_a_person_at_a_terminal_hears_one_line_and_a_runner_nothing(workspace: Path) -> None:
    from tests.test_cli_wiki import _on_a_terminal

    assert run_wikimem("init", cwd=workspace).returncode == 0
    item = {"path": "build/make", "title": "Make", "content": "`make` builds the app."}
    runs = {}
    for name in ("t1", "t2", "t3"):
        runs[name] = workspace.parent / f"{name}.json"
        record = {"run_id": name, "task": "build", "memory": [{**item, "title": name}]}
        runs[name].write_text(json.dumps(record), encoding="utf-8")

    shown = _on_a_terminal(["hook", str(runs["t1"])], workspace, {}).strip()
    assert shown == "wikimem: queued run t1; indexing in the background", shown
    again = _on_a_terminal(["hook", str(runs["t1"])], workspace, {}).strip()
    assert again == "wikimem: run t1 was queued before; nothing new to index", again
    assert _on_a_terminal(["hook", "--quiet", str(runs["t2"])], workspace, {}).strip() == ""
    piped = run_wikimem("hook", str(runs["t3"]), cwd=workspace)  # as a runner calls it
    assert piped.returncode == 0 and piped.stderr == b"", piped.stderr

    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    until(lambda: queue.counts()["done"] == 3, "the background passes")


def test_a_job_done_before_the_hook_looks_is_its_outcome_not_sent_before(workspace: Path) -> None:
    from tests.test_concurrency import fact_run, setup
    from wikimem.foreground import index_until_done
    from wikimem.indexing.drain import drain
    from wikimem.intake import passlog
    from wikimem.intake.accept import enqueue

    places, settings = setup(workspace)
    mark = passlog.mark(places.pass_log)
    queued = enqueue(places, settings, fact_run(1))
    drain(places, settings)  # the background pass: it took and finished the job first
    said: list[str] = []
    state = index_until_done(places, settings, queued.job_id, said.append, log_mark=mark)
    assert state == "done"
    assert len(said) == 1 and re.match(r"^run-1: changed in commit [0-9a-f]{7}$", said[0]), said

    resent: list[str] = []
    index_until_done(places, settings, queued.job_id, resent.append, sent_before=True)
    assert resent == [f"job {queued.job_id[:12]}: already indexed; this run was sent before"]


def test_the_pass_log_since_a_mark_survives_a_rotation(tmp_path: Path) -> None:
    from wikimem.intake import passlog
    from wikimem.intake.passlog import Outcome

    log = tmp_path / "passes.jsonl"
    passlog.append(log, [Outcome("t", "p", "old", "r0", "changed")])
    mark = passlog.mark(log)
    passlog.append(log, [Outcome("t", "p", "a", "r1", "changed")])
    log.rename(log.with_name("passes.1.jsonl"))  # as `_rotate` does past ROTATE_BYTES
    # the new generation grows past the old mark: the mark still knows its own file
    passlog.append(log, [Outcome("t", "p", j, "r2", "held") for j in ("b", "c", "d")])
    assert [i["job"] for i in passlog.since(log, mark)] == ["a", "b", "c", "d"]
    assert [i["job"] for i in passlog.since(log, passlog.mark(log))] == []
