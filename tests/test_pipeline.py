"""The indexing pipeline end to end: intake, queue, pass, model (loopback), wiki, git."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import example_run, git, run_wikimem
from tests.openai_server import Reply
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue
from wikimem.wiki.workspace import init

FAKE_TOKEN = "ghp_" + "R8kq2Lw9ZtY3xVb7NcM1pQ4sD6fG0hJ5aE2u"
LESSON = {
    "summary": "Record the bun lockfile fix",
    "edits": [
        {
            "action": "add",
            "leaf": "build/bun",
            "entry": "lockfile-drift-on-ci",
            "title": "Lockfile drift on CI",
            "type": "procedural",
            "body": "`bun install --frozen-lockfile` fails when package.json changed without "
            "the lockfile. Run `bun install` and commit bun.lockb.",
            "reason": "verified fix, will recur",
        }
    ],
    "topics": [{"topic": "build", "summary": "How the web app is built."}],
}


def rich_run(run_id: str = "run-1", **extra: object) -> dict:
    return {
        "run_id": run_id,
        "task": "Fix the failing web build",
        "status": "succeeded",
        "result": "Regenerated the lockfile.",
        "agent": {"name": "claude-code", "instance_id": "ci-7"},
        "evidence": [
            {
                "kind": "command",
                "command": "bun install --frozen-lockfile",
                "exit_code": 1,
                "output": f"error: lockfile had changes\nAuthorization: Bearer {FAKE_TOKEN}\n",
            },
            {"kind": "command", "command": "bun install", "exit_code": 0, "output": "Saved"},
            {
                "kind": "command",
                "command": "bun install --frozen-lockfile",
                "exit_code": 0,
                "output": "no changes",
            },
        ],
        **extra,
    }


def setup(workspace: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    places = config.places(workspace, env or {})
    settings = config.load(places, env or {})
    init(places, settings)
    return places, settings


def model_env(server, **more: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
        **more,
    }


def commits(places: config.Places) -> list[str]:
    return git("log", "--format=%s", cwd=places.wiki).splitlines()


def test_offline_pass_commits_fix_with_trailers(workspace: Path) -> None:
    places, settings = setup(workspace)
    enqueue(places, settings, rich_run())
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    body = git("log", "-1", "--format=%B", cwd=places.wiki)
    assert "Wikimem-Run: run-1" in body and "Wikimem-Model: offline-rules" in body
    assert "Wikimem-Agent: claude-code/ci-7" in body
    leaf = (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert "bun install --frozen-lockfile" in leaf
    assert "build/TOPIC.md" in (places.wiki / "PROFILE.md").read_text()
    assert git("status", "--porcelain", cwd=places.wiki) == ""


def test_same_run_twice_is_indexed_once_and_rerun_changes_nothing(workspace: Path) -> None:
    places, settings = setup(workspace)
    first = enqueue(places, settings, rich_run())
    second = enqueue(places, settings, rich_run())
    assert first.job_id == second.job_id and second.duplicate
    drain(places, settings)
    before = commits(places)
    enqueue(places, settings, rich_run("run-2"))  # same lesson, another run
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["no change"]
    assert commits(places) == before


def test_run_that_cannot_teach_is_skipped_without_model_call(
    workspace: Path, openai_server
) -> None:
    places, settings = setup(workspace, model_env(openai_server))
    enqueue(places, settings, {"task": "rename a variable", "result": "done"})
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["skipped"]
    assert openai_server.requests == []


def test_model_plan_is_committed_and_request_carries_policies_and_profile(
    workspace: Path, openai_server, isolated_env: Path
) -> None:
    env = model_env(openai_server)
    places, settings = setup(workspace, env)
    places.global_policy.parent.mkdir(parents=True, exist_ok=True)
    places.global_policy.write_text("GLOBAL-RULE: never remember chit-chat.\n")
    places.workspace_policy.write_text("WORKSPACE-RULE: remember build fixes.\n")
    openai_server.script(Reply.plan(LESSON))
    enqueue(places, settings, rich_run())
    reports = drain(places, settings)
    outcome = reports[0].outcomes[0]
    assert outcome.outcome == "changed" and outcome.model == "memory-model"
    assert outcome.prompt_tokens and outcome.completion_tokens
    leaf = (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert "## Lockfile drift on CI" in leaf
    assert "How the web app is built." in (places.wiki / "build" / "TOPIC.md").read_text()
    request = json.dumps(openai_server.requests[-1].body)
    assert request.index("GLOBAL-RULE") < request.index("WORKSPACE-RULE")
    assert "## Topics" in request  # the profile's generated block
    assert "RUN-DATA-" in request
    body = git("log", "-1", "--format=%B", cwd=places.wiki)
    assert "Wikimem-Model: memory-model" in body


def test_policies_are_read_fresh_every_pass(workspace: Path, openai_server) -> None:
    places, settings = setup(workspace, model_env(openai_server))
    places.workspace_policy.write_text("FIRST-POLICY\n")
    enqueue(places, settings, rich_run("a"))
    drain(places, settings)
    places.workspace_policy.write_text("SECOND-POLICY\n")
    enqueue(places, settings, rich_run("b"))
    drain(places, settings)
    first, second = (json.dumps(r.body) for r in openai_server.requests[-2:])
    assert "FIRST-POLICY" in first and "SECOND-POLICY" in second and "FIRST" not in second


def test_empty_plan_writes_and_commits_nothing(workspace: Path, openai_server) -> None:
    places, settings = setup(workspace, model_env(openai_server))
    before = commits(places)
    openai_server.script(Reply.plan({"summary": "nothing", "edits": []}))
    enqueue(places, settings, rich_run())
    reports = drain(places, settings)
    # the offline rule for an explicit candidate is not involved: no candidates in this run
    assert [o.outcome for r in reports for o in r.outcomes] == ["no change"]
    assert commits(places) == before


def test_secrets_never_reach_queue_log_model_wiki_or_history(
    workspace: Path, openai_server
) -> None:
    places, settings = setup(workspace, model_env(openai_server))
    leaky = dict(LESSON, edits=[dict(LESSON["edits"][0], body=f"use token {FAKE_TOKEN}")])
    openai_server.script(Reply.plan(leaky))
    done = enqueue(
        places,
        settings,
        rich_run(
            memory=[{"path": "deploy/tokens", "content": f"the deploy token is {FAKE_TOKEN}"}]
        ),
    )
    assert "github-token" in " ".join(done.redactions) or done.redactions
    queued = (places.queue / "pending" / f"{done.job_id}.json").read_text()
    assert FAKE_TOKEN not in queued and "[REDACTED:" in queued
    reports = drain(places, settings)
    rejected = [n["reason"] for o in reports[0].outcomes for n in o.rejected]
    assert any("secret" in reason for reason in rejected)
    assert FAKE_TOKEN not in json.dumps([r.body for r in openai_server.requests])
    assert FAKE_TOKEN not in places.pass_log.read_text()
    for page in places.wiki.rglob("*.md"):
        assert FAKE_TOKEN not in page.read_text()
    history = subprocess.run(
        ["git", "log", "-p", "--all"], cwd=places.wiki, capture_output=True, text=True
    ).stdout
    assert FAKE_TOKEN not in history


def test_failing_model_retries_then_fails_job_and_warns(workspace: Path, openai_server) -> None:
    env = model_env(openai_server)
    places, settings = setup(workspace, env)
    path = places.workspace_config
    path.write_text("[model]\nmax_retries = 0\ntimeout = 5\n[queue]\nmax_attempts = 2\n")
    settings = config.load(places, env)
    openai_server.default = Reply.error(500, "boom")
    done = enqueue(places, settings, rich_run())
    drain(places, settings)
    queue = Queue(places.queue)
    assert queue.state_of(done.job_id) == "pending"
    job = next(j for _, j in queue.jobs("pending"))
    assert job.attempts == 1 and job.not_before > 0 and "500" in job.last_error
    # make it ready again and fail a second time: it moves to failed, kept
    (places.queue / "pending" / f"{done.job_id}.json").write_text(
        job.to_json().replace(f'"not_before": {job.not_before}', '"not_before": 0')
    )
    drain(places, settings)
    assert queue.state_of(done.job_id) == "failed"
    from wikimem.intake.passlog import failure_warning

    assert "last 2 passes failed" in (failure_warning(places.pass_log) or "")
    assert queue.retry_failed() == 1 and queue.state_of(done.job_id) == "pending"


def test_corrupt_job_is_set_aside_and_others_proceed(workspace: Path) -> None:
    places, settings = setup(workspace)
    (places.queue / "pending").mkdir(parents=True, exist_ok=True)
    (places.queue / "pending" / "0000bad.json").write_text("{not json")
    enqueue(places, settings, rich_run())
    warnings: list[str] = []
    reports = drain(places, settings, warn=warnings.append)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    assert (places.queue / "corrupt" / "0000bad.json").exists()
    assert any("corrupt" in w for w in warnings)


def test_crashed_pass_is_rolled_back_and_job_taken_again(workspace: Path) -> None:
    places, settings = setup(workspace)
    done = enqueue(places, settings, rich_run())
    queue = Queue(places.queue)
    queue.claim(1)  # a pass claimed it ...
    half = places.wiki / "build" / "bun" / "MEMORY.md"
    half.parent.mkdir(parents=True)
    half.write_text("half written")  # ... wrote a file and died
    (places.state / "journal.json").write_text(
        json.dumps({"pass_id": "dead", "files": ["build/bun/MEMORY.md"], "jobs": [done.job_id]})
    )
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    assert "half written" not in half.read_text()
    assert queue.state_of(done.job_id) == "done"
    assert not (places.state / "journal.json").exists()


def test_commit_landed_before_crash_marks_job_done_without_second_commit(workspace: Path) -> None:
    places, settings = setup(workspace)
    done = enqueue(places, settings, rich_run())
    drain(places, settings)
    queue = Queue(places.queue)
    pass_id = git(
        "log", "-1", "--format=%(trailers:key=Wikimem-Pass,valueonly)", cwd=places.wiki
    ).strip()
    # pretend the pass died after its commit but before marking the job done
    (places.queue / "done" / f"{done.job_id}.json").rename(
        places.queue / "active" / f"{done.job_id}.json"
    )
    (places.state / "journal.json").write_text(
        json.dumps({"pass_id": pass_id, "files": [], "jobs": [done.job_id]})
    )
    before = commits(places)
    drain(places, settings)
    assert queue.state_of(done.job_id) == "done"
    assert commits(places) == before


def test_mass_removal_is_held_for_review_then_approved(workspace: Path, openai_server) -> None:
    places, settings = setup(workspace, model_env(openai_server))
    three = {
        "summary": "three",
        "edits": [
            dict(
                LESSON["edits"][0],
                entry=f"e{i}",
                title=f"Rule {i}",
                body=f"Rule {i} of the web build: commit the lockfile `bun install` regenerated.",
            )
            for i in range(3)
        ],
    }
    openai_server.script(Reply.plan(three))
    enqueue(places, settings, rich_run("fill"))
    drain(places, settings)
    wipe = {
        "summary": "wipe",
        "edits": [
            {"action": "remove", "leaf": "build/bun", "entry": f"rule-{i}", "reason": "told to"}
            for i in range(3)
        ],
    }
    openai_server.script(Reply.plan(wipe))
    done = enqueue(places, settings, rich_run("wipe"))
    before = commits(places)
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["held"]
    assert commits(places) == before
    assert Queue(places.queue).state_of(done.job_id) == "review"
    from wikimem.indexing.indexer import approve

    sha = approve(places, settings, done.job_id[:6])
    # the leaf left with no entry goes, and so does its topic: nothing says "(0 leaves)"
    assert sha and not (places.wiki / "build").exists()
    assert "Build" not in (places.wiki / "PROFILE.md").read_text()


def test_hook_wait_subprocess_indexes_with_model(workspace: Path, openai_server) -> None:
    env = model_env(openai_server)
    openai_server.script(Reply.plan(LESSON))
    proc = run_wikimem("hook", "--wait", cwd=workspace, input=json.dumps(rich_run()), env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    assert "Lockfile drift on CI" in leaf.read_text()


def test_hook_fails_open_on_bad_input(workspace: Path) -> None:
    proc = run_wikimem("hook", cwd=workspace, input="{not json")
    assert proc.returncode == 0
    assert b"not valid JSON" in proc.stderr and b"Traceback" not in proc.stderr
    assert not (workspace / ".clarvis/state/queue/pending").exists() or not list(
        (workspace / ".clarvis/state/queue/pending").iterdir()
    )


@pytest.mark.parametrize(
    "payload,message",
    [
        ("{not json", "not valid JSON"),
        ('{"result": "x"}', "needs a non-empty 'task'"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_enqueue_is_strict(workspace: Path, cli, payload: str, message: str) -> None:
    source = workspace / "run.json"
    source.write_text(payload)
    result = cli("enqueue", str(source))
    assert result.code == 1 and message in result.err
    assert "Traceback" not in result.err
    assert not (workspace / ".clarvis/state/queue/pending").exists()


def test_enqueue_missing_file(workspace: Path, cli) -> None:
    result = cli("enqueue", "nope.json")
    assert result.code == 1 and "cannot read nope.json" in result.err


def test_demo_runs_offline_from_shipped_examples(tmp_path: Path) -> None:
    proc = run_wikimem("demo", "--keep", str(tmp_path / "demo"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "changed" in out and "git log:" in out
    wiki = tmp_path / "demo" / ".clarvis" / "memory"
    log = git("log", "--format=%B", cwd=wiki)
    assert "Wikimem-Run:" in log
    assert example_run("01")  # the examples ship inside the package


def test_hook_after_global_workspace_option_takes_the_same_path(tmp_path: Path, cli) -> None:
    """`wikimem -C DIR hook FILE` (fast path) and the hook reached through click in-process
    both queue the run in DIR, not wherever they were started."""
    target = tmp_path / "target"
    target.mkdir()
    source = tmp_path / "run.json"
    source.write_text(json.dumps(rich_run("via-global-c")))
    proc = run_wikimem("-C", str(target), "hook", "--wait", str(source), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    queue = Queue(target / ".clarvis/state/queue")
    assert queue.counts()["done"] == 1
    source.write_text(json.dumps(rich_run("via-click")))
    result = cli("-C", str(target), "hook", "--wait", "-q", str(source))
    assert result.code == 0, result.err
    assert queue.counts()["done"] == 2
    assert not (tmp_path / ".clarvis").exists()
    status = cli(
        "-C",
        str(target),
        "hook",
        "--from-command",
        "--task",
        "t",
        "--",
        sys.executable,
        "-c",
        "raise SystemExit(5)",
    )
    assert status.code == 5


def lesson_for(leaf: str, entry: str) -> dict:
    return {
        "summary": f"Remember {entry}",
        "edits": [
            {
                "action": "add",
                "leaf": leaf,
                "entry": entry,
                "title": entry.replace("-", " ").capitalize(),
                "type": "semantic",
                # what rich_run taught, as a model restates it
                "body": f"{entry}: `bun install --frozen-lockfile` fails with `lockfile had "
                "changes` until `bun install` regenerates the lockfile.",
                "reason": "test",
            }
        ],
    }


def test_a_poisoned_job_fails_alone_and_the_rest_of_its_batch_is_indexed(
    workspace: Path, openai_server
) -> None:
    env = model_env(openai_server)
    places, settings = setup(workspace, env)
    places.workspace_config.write_text("[model]\nmax_retries = 0\n")
    settings = config.load(places, env)
    # a file where the plan wants a folder: the edit cannot be written
    (places.wiki / "blocked").write_text("a file, not a topic\n")
    poison = lesson_for("blocked/page", "poison")
    openai_server.script(
        Reply.plan(poison),  # the batch of three: fails on writing
        Reply.plan(lesson_for("build/one", "first")),  # then each alone, oldest first
        Reply.plan(poison),
        Reply.plan(lesson_for("build/three", "third")),
    )
    jobs = [enqueue(places, settings, rich_run(f"run-{n}")).job_id for n in (1, 2, 3)]

    reports = drain(places, settings)

    outcomes = {o.job: o.outcome for r in reports for o in r.outcomes}
    assert outcomes == {jobs[0]: "changed", jobs[1]: "failed", jobs[2]: "changed"}
    queue = Queue(places.queue)
    assert [queue.state_of(j) for j in jobs] == ["done", "pending", "done"]
    charged = {j.id: j.attempts for _, j in queue.jobs("pending") if j}
    assert charged == {jobs[1]: 1}  # only the culprit paid an attempt
    assert (places.wiki / "build" / "one" / "MEMORY.md").is_file()
    assert (places.wiki / "build" / "three" / "MEMORY.md").is_file()
    assert openai_server.pending() == 0


def test_a_path_segment_too_long_for_the_disk_is_rejected_and_the_queue_moves_on(
    workspace: Path, openai_server
) -> None:
    env = model_env(openai_server)
    places, settings = setup(workspace, env)
    wedge = lesson_for("build/" + "a" * 300, "long-name")
    wedge["edits"].append(lesson_for("build/bun", "lockfile")["edits"][0])
    openai_server.script(Reply.plan(wedge))
    done = enqueue(places, settings, rich_run())

    reports = drain(places, settings)

    [outcome] = [o for r in reports for o in r.outcomes]
    assert outcome.outcome == "changed"
    # validation refuses the segment by its length; a name the disk refuses for another reason
    # would be refused when it is looked up ("cannot look up"): either way, alone
    assert any(
        "cannot look up" in n["reason"] or "a segment over" in n["reason"] for n in outcome.rejected
    )
    assert Queue(places.queue).state_of(done.job_id) == "done"
    assert (places.wiki / "build" / "bun" / "MEMORY.md").is_file()
    assert not list(Queue(places.queue).jobs("active"))


def test_a_pass_that_crashes_charges_its_jobs_an_attempt(workspace: Path) -> None:
    places, settings = setup(workspace)
    places.workspace_config.write_text("[queue]\nmax_attempts = 2\n")
    settings = config.load(places, {})
    done = enqueue(places, settings, rich_run())
    queue = Queue(places.queue)
    for _ in range(2):  # a pass claims the job and is killed, twice
        assert [j.id for j in queue.claim(1)[0]] == [done.job_id]
        queue.recover(settings.queue.max_attempts)
    assert queue.state_of(done.job_id) == "failed"
    [(_, job)] = list(queue.jobs("failed"))
    assert job is not None and job.attempts == 2 and "interrupted" in job.last_error


def test_queue_drop_keeps_the_job_in_dropped_and_it_is_never_indexed(workspace: Path, cli) -> None:
    places, settings = setup(workspace)
    done = enqueue(places, settings, rich_run())

    result = cli("queue", "drop", done.job_id[:6])

    assert result.code == 0, result.err
    assert f"dropped pending job {done.job_id[:6]} (run run-1)" in result.out
    queue = Queue(places.queue)
    assert queue.state_of(done.job_id) == "dropped"
    assert drain(places, settings) == []
    assert "dropped" in cli("queue").out
    # the same run sent again is known: not queued a second time
    assert enqueue(places, settings, rich_run()).duplicate
    missing = cli("queue", "drop", "ffffffff")
    assert missing.code == 1 and "no single" in missing.err


def test_finished_jobs_are_pruned_by_age_and_count(workspace: Path) -> None:
    import os
    import time

    places, settings = setup(workspace)
    places.workspace_config.write_text("[queue]\ndone_days = 7\ndone_max = 3\n")
    settings = config.load(places, {})
    for n in range(6):
        enqueue(places, settings, rich_run(f"run-{n}"))
    drain(places, settings)
    done = sorted((places.queue / "done").glob("*.json"))
    assert len(done) == 3  # the newest three
    old = time.time() - 8 * 86400
    os.utime(done[0], (old, old))

    assert Queue(places.queue).prune_done(7, 3) == 1
    assert len(list((places.queue / "done").glob("*.json"))) == 2
