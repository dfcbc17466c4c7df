"""Failing models through the whole pass and CLI: retried with backoff, then the fallback chain,
then the job waits in the queue (never lost), and two failed passes in a row are announced."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import git
from tests.openai_server import OpenAIServer, Reply
from wikimem.fsio import atomic_write_text
from wikimem.intake.queue import Queue

PLAN = {
    "summary": "Record the cache fix",
    "edits": [
        {
            "action": "add",
            "leaf": "build/cache",
            "entry": "",
            "title": "Stale cache on CI",
            "type": "procedural",
            "body": "Clear `.cache/build` when the toolchain version changes.",
            "reason": "verified",
        }
    ],
}
QUEUE = Path(".clarvis/state/queue")


def a_run(run_id: str) -> dict:
    return {
        "run_id": run_id,
        "task": "Fix the build",
        "evidence": [
            {"kind": "command", "command": "make", "exit_code": 2, "output": "stale cache"},
            {
                "kind": "command",
                "command": "rm -rf .cache/build && make",
                "exit_code": 0,
                "output": "ok",
            },
        ],
    }


def use_model(
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    base_url: str,
    env_fallbacks: str | None = None,
    **model: str,
) -> dict[str, str]:
    env = {
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }
    if env_fallbacks is not None:
        env["WIKIMEM_FALLBACK_MODELS"] = env_fallbacks
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (workspace / ".clarvis").mkdir(exist_ok=True)
    settings = {"timeout": "5", "max_retries": "0", **model}
    (workspace / ".clarvis" / "config.toml").write_text(
        "[model]\n" + "".join(f"{key} = {value}\n" for key, value in settings.items())
    )
    return env


def queue_one(cli, workspace: Path, run_id: str = "run-1") -> str:  # type: ignore[no-untyped-def]
    assert cli("init").code == 0
    source = workspace / f"{run_id}.json"
    source.write_text(json.dumps(a_run(run_id)))
    result = cli("enqueue", str(source))
    assert result.code == 0, result.err
    return result.out.strip()


def landed(workspace: Path) -> str:
    leaf = workspace / ".clarvis/memory/build/cache/MEMORY.md"
    assert "## Stale cache on CI" in leaf.read_text()
    return git(
        "log",
        "-1",
        "--format=%(trailers:key=Wikimem-Model,valueonly)",
        cwd=workspace / ".clarvis/memory",
    ).strip()


def test_rate_limit_waits_for_retry_after_then_lands(
    workspace: Path, cli, openai_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_model(monkeypatch, workspace, openai_server.base_url, max_retries="2")
    queue_one(cli, workspace)
    openai_server.script(Reply.error(429, headers={"retry-after": "1"}), Reply.plan(PLAN))
    result = cli("index")
    assert result.code == 0, result.err
    first, second = openai_server.completions
    assert second.received - first.received >= 0.9  # the server's Retry-After was honoured
    assert landed(workspace) == "memory-model"


def test_server_errors_are_retried_with_backoff(
    workspace: Path, cli, openai_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_model(monkeypatch, workspace, openai_server.base_url, max_retries="2")
    queue_one(cli, workspace)
    quick = {"retry-after-ms": "20"}
    openai_server.script(
        Reply.error(500, headers=quick), Reply.error(503, headers=quick), Reply.plan(PLAN)
    )
    assert cli("index").code == 0
    assert len(openai_server.completions) == 3
    assert landed(workspace) == "memory-model"


def test_timeout_falls_back_to_the_next_model(
    workspace: Path, cli, openai_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_model(
        monkeypatch, workspace, openai_server.base_url, timeout="0.5", env_fallbacks="backup-model"
    )
    queue_one(cli, workspace)
    openai_server.script(Reply(hang=True), Reply.plan(PLAN))
    assert cli("index").code == 0
    assert [r["model"] for r in openai_server.completions] == ["memory-model", "backup-model"]
    assert landed(workspace) == "backup-model"


def test_unusable_answers_walk_the_fallback_chain_from_config(
    workspace: Path, cli, openai_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_model(
        monkeypatch, workspace, openai_server.base_url, fallbacks='["refusing-model", "good-model"]'
    )
    queue_one(cli, workspace)
    openai_server.script(
        Reply(content='{"summary": "x", "edits": [{"action": "ad', finish_reason="length"),
        Reply(content='{"summary": "x", "edits": "none of them"}'),  # breaks the schema
        Reply(refusal="I can't help with that."),
        Reply(refusal="I can't help with that."),
        Reply.plan(PLAN),
    )
    result = cli("index")
    assert result.code == 0, result.err
    models = [r["model"] for r in openai_server.completions]
    assert models == ["memory-model"] * 2 + ["refusing-model"] * 2 + ["good-model"]
    assert landed(workspace) == "good-model"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_keeps_the_job_queued(
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_model(monkeypatch, workspace, f"http://127.0.0.1:{closed_port()}/v1")
    jid = queue_one(cli, workspace)
    result = cli("index")
    assert result.code == 1
    assert "cannot connect" in result.err and "Traceback" not in result.err
    job = next(j for _, j in Queue(workspace / QUEUE).jobs("pending"))
    assert job.id == jid and job.attempts == 1 and job.not_before > 0


def hook(cli, workspace: Path, run_id: str) -> str:  # type: ignore[no-untyped-def]
    """`wikimem hook --wait` in-process: the same decisions as the fast path, no start-up."""
    source = workspace / f"{run_id}.json"
    source.write_text(json.dumps(a_run(run_id)))
    result = cli("hook", "--wait", str(source))
    assert result.code == 0  # a hook fails open, whatever the model does
    assert "Traceback" not in result.err
    return result.err


def test_two_failed_passes_warn_on_the_next_hook_and_jobs_land_later(
    workspace: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    use_model(monkeypatch, workspace, openai_server.base_url)
    openai_server.default = Reply.error(500, "upstream exploded")
    queue = Queue(workspace / QUEUE)
    first = hook(cli, workspace, "run-1")
    assert "the pass failed; the run stays queued" in first
    assert [(j.run_id, j.attempts) for _, j in queue.jobs("pending")] == [("run-1", 1)]
    second = hook(cli, workspace, "run-2")  # run-1 is backing off; run-2's pass fails too
    assert "passes failed" not in second
    assert sorted((j.run_id, j.attempts) for _, j in queue.jobs("pending")) == [
        ("run-1", 1),
        ("run-2", 1),
    ]
    third = hook(cli, workspace, "run-3")
    assert "wikimem: the last 2 passes failed" in third and "500" in third
    status = cli("status")
    assert "passes failed" in status.out + status.err
    # the model recovers and the backoff runs out: every waiting job lands, none was lost
    openai_server.default = Reply.plan(PLAN)
    for path, job in list(queue.jobs("pending")):
        assert job is not None
        atomic_write_text(path, replace(job, not_before=0.0).to_json())
    index = cli("index")
    assert index.code == 0, index.err
    assert queue.counts()["pending"] == 0 and queue.counts()["done"] == 3
    landed(workspace)
