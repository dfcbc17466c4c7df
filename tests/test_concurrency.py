"""Concurrency: passes racing each other, hooks arriving mid-pass, a person saving mid-pass.

Whatever the interleaving: every job lands exactly once, none is stranded, history is linear and
each commit's tree holds exactly the entries of the runs its trailers (and its ancestors') name.
Waiting is by polling the queue and the lock against a deadline, never by sleeping blindly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, git, run_wikimem
from tests.openai_server import OpenAIServer
from wikimem import config
from wikimem.errors import LockBusy
from wikimem.fsio import workspace_lock
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue
from wikimem.wiki import markdown
from wikimem.wiki.workspace import init

DEADLINE = 90.0


def fact_run(i: int, leaves: int = 3) -> dict:
    return {
        "run_id": f"run-{i}",
        "task": f"Task {i}",
        "memory": [
            {
                "path": f"load/leaf-{i % leaves}",
                "title": f"Fact {i}",
                "content": f"Body of fact {i}.",
            }
        ],
    }


def setup(
    workspace: Path, env: dict[str, str] | None = None, extra_config: str = ""
) -> tuple[config.Places, config.Settings]:
    places = config.places(workspace, env or {})
    init(places, config.load(places, env or {}))
    if extra_config:
        places.workspace_config.write_text(extra_config)
    return places, config.load(places, env or {})


def model_env(server: OpenAIServer) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }


def lock_free(places: config.Places) -> bool:
    try:
        with workspace_lock(places.lock):
            return True
    except LockBusy:
        return False


def wait_until(condition: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def settled(places: config.Places, count: int) -> Callable[[], bool]:
    queue = Queue(places.queue)

    def check() -> bool:
        counts = queue.counts()
        return (
            counts["done"] == count
            and counts["pending"] == counts["active"] == 0
            and lock_free(places)
        )

    return check


def check_history(places: config.Places, runs: int | list[int]) -> None:
    """Linear history; each run in exactly one commit; each commit's tree holds one entry per
    run named so far, so no commit carries half of another pass's change."""
    wiki = places.wiki
    numbers = list(range(runs)) if isinstance(runs, int) else runs
    assert git("rev-list", "--min-parents=2", "HEAD", cwd=wiki) == ""
    assert git("status", "--porcelain", "--untracked-files=all", cwd=wiki) == ""
    log = git(
        "log",
        "--reverse",
        "--format=%H%x1f%(trailers:key=Wikimem-Run,valueonly,separator=%x2C)",
        cwd=wiki,
    ).splitlines()
    landed: set[str] = set()
    for line in log:
        sha, _, names = line.partition("\x1f")
        named = {n for n in names.split(",") if n}
        assert not named & landed, f"{named & landed} landed twice"
        landed |= named
        grep = subprocess.run(
            ["git", "grep", "-h", "-c", "-e", "^## Fact ", sha, "--", "*MEMORY.md"],
            cwd=wiki,
            capture_output=True,
            text=True,
        )
        entries = sum(int(n) for n in grep.stdout.split())
        assert entries == len(landed), f"commit {sha[:7]}: {entries} entries, {len(landed)} runs"
    assert landed == {f"run-{i}" for i in numbers}
    text = "".join(p.read_text() for p in wiki.rglob("MEMORY.md"))
    for i in numbers:
        assert text.count(f"## Fact {i}\n") == 1


def popen_wikimem(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: bool = False
) -> subprocess.Popen:
    full = {
        **os.environ,
        **(env or {}),
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "wikimem", *args],
        cwd=cwd,
        env=full,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_two_index_at_once_land_every_job_once(workspace: Path) -> None:
    places, settings = setup(workspace, extra_config="[queue]\nbatch = 2\n")
    for i in range(6):
        enqueue(places, settings, fact_run(i))
    procs = [popen_wikimem("index", cwd=workspace) for _ in range(2)]
    outputs = [p.communicate(timeout=DEADLINE) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert all(b"Traceback" not in err for _, err in outputs)
    wait_until(settled(places, 6), "both passes")
    check_history(places, 6)


def test_hooks_arriving_during_a_pass_are_taken_by_it(
    workspace: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = model_env(openai_server)
    places, settings = setup(workspace, env)
    release = threading.Event()
    answer = openai_server._next_reply
    calls: list[int] = []

    def gated(request):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            release.wait(DEADLINE)  # hold the first pass inside its model call
        return answer(request)

    monkeypatch.setattr(openai_server, "_next_reply", gated)
    enqueue(places, settings, fact_run(0))
    first = popen_wikimem("index", "-q", cwd=workspace, env=env)
    try:
        openai_server.wait_for_requests(1, timeout=30)
        assert not lock_free(places)  # the pass is running, holding the lock
        hooks = [
            run_wikimem("hook", cwd=workspace, input=json.dumps(fact_run(i)), env=env)
            for i in (1, 2, 3)
        ]
        assert all(h.returncode == 0 and b"Traceback" not in h.stderr for h in hooks)
        assert Queue(places.queue).counts()["pending"] == 3  # queued while the pass ran
    finally:
        release.set()
    assert first.wait(timeout=DEADLINE) == 0
    wait_until(settled(places, 4), "the hooks' jobs")
    check_history(places, 4)
    assert len(openai_server.completions) >= 2  # the hooks' runs went to the model too


@pytest.mark.slow
def test_fifty_hooks_at_once_each_land_exactly_once(workspace: Path) -> None:
    places, _ = setup(workspace)
    procs = []
    for i in range(50):
        proc = popen_wikimem("hook", "-q", cwd=workspace, stdin=True)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(fact_run(i, leaves=5)).encode())
        proc.stdin.close()
        procs.append(proc)
    for proc in procs:
        assert proc.wait(timeout=DEADLINE) == 0
        assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
        proc.stderr.close()
        assert proc.stdout is not None
        proc.stdout.close()
    wait_until(settled(places, 50), "the background passes")
    check_history(places, 50)
    failed = Queue(places.queue).counts()
    assert failed["failed"] == failed["corrupt"] == failed["review"] == 0


PERSON_LINE = "A line Ada saved while the pass ran."


def person_saves(
    path: Path, times: int, original: Callable, monkeypatch: pytest.MonkeyPatch, name: str
) -> list[int]:
    """Make markdown.`name` save `path` as a person would, the first `times` times it runs."""
    calls: list[int] = []

    def saving(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) <= times:
            text = path.read_text() if path.exists() else ""
            path.write_text(text.replace("\n\n", f"\n\n{PERSON_LINE} ({len(calls)})\n\n", 1))
        return original(*args, **kwargs)

    monkeypatch.setattr(markdown, name, saving)
    return calls


def seed_leaf(places: config.Places, settings: config.Settings) -> Path:
    enqueue(places, settings, fact_run(0))
    drain(places, settings)
    return places.wiki / "load" / "leaf-0" / "MEMORY.md"


def test_person_saving_a_leaf_mid_pass_keeps_the_save_and_the_change(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    places, settings = setup(workspace)
    leaf = seed_leaf(places, settings)
    calls = person_saves(leaf, 1, markdown.add_entry, monkeypatch, "add_entry")
    enqueue(places, settings, fact_run(3))  # same leaf as run-0
    warnings: list[str] = []
    reports = drain(places, settings, warn=warnings.append)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    assert len(calls) == 2  # the plan was applied again on top of the save
    text = leaf.read_text()
    assert f"{PERSON_LINE} (1)" in text and "## Fact 3" in text and "## Fact 0" in text
    assert any("changed on disk" in w for w in warnings)
    log = git("log", "--format=%an|%s", cwd=places.wiki).splitlines()
    assert log[0].startswith("wikimem|") and log[1] == "Ada Person|Edit the wiki by hand"
    check_history(places, [0, 3])


def test_person_saving_a_topic_mid_pass_rolls_back_only_the_pass(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    places, settings = setup(workspace)
    seed_leaf(places, settings)
    topic = places.wiki / "load" / "TOPIC.md"
    calls = person_saves(topic, 1, markdown.replace_generated, monkeypatch, "replace_generated")
    enqueue(places, settings, fact_run(1))
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    assert len(calls) >= 2
    assert f"{PERSON_LINE} (1)" in topic.read_text()
    assert "leaf-1" in topic.read_text()  # recompiled on top of the person's save
    check_history(places, 2)


def test_person_saving_on_every_try_fails_the_pass_and_keeps_every_save(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    places, settings = setup(workspace)
    leaf = seed_leaf(places, settings)
    before = git("rev-list", "--count", "HEAD", cwd=places.wiki)
    person_saves(leaf, 99, markdown.add_entry, monkeypatch, "add_entry")
    done = enqueue(places, settings, fact_run(3))
    reports = drain(places, settings)
    outcome = reports[0].outcomes[0]
    assert outcome.outcome == "failed" and "changed on disk" in outcome.error
    job = next(j for _, j in Queue(places.queue).jobs("pending"))
    assert job.id == done.job_id and job.attempts == 1  # retried later, never lost
    text = leaf.read_text()
    assert f"{PERSON_LINE} (2)" in text and "## Fact 3" not in text
    # only the person's first save was committed (as theirs); the second is still theirs on disk
    assert int(git("rev-list", "--count", "HEAD", cwd=places.wiki)) == int(before) + 1
    assert git("log", "-1", "--format=%an", cwd=places.wiki).strip() == "Ada Person"
