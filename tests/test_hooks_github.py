"""GitHub Actions adapter: provenance from GITHUB_* and every agent output a CI step may hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikimem.runners.github import provenance_from_env, record_from_output

RUNNERS = Path(__file__).parent / "fixtures" / "runners"
FIXTURES = RUNNERS / "github"
SESSION = "4b2f0c11-0000-4000-8000-000000000042"
MIGRATION = (
    "The migration failed because DATABASE_URL was unset in the job; I added it from "
    "the repository secret and `alembic upgrade head` now runs."
)


@pytest.fixture
def env() -> dict[str, str]:
    return json.loads((FIXTURES / "env.json").read_text())


@pytest.fixture
def provenance() -> dict[str, str]:
    return {
        "run_id": "8812",
        "run_attempt": "3",
        "run_number": "412",
        "repository": "acme/web",
        "workflow": "agent-fix",
        "job": "fix",
        "sha": "9c1e2f0a7d3b4c5e6f708192a3b4c5d6e7f80912",
        "ref": "refs/heads/main",
        "event": "workflow_dispatch",
        "actor": "octocat",
        "runner_name": "GitHub Actions 7",
        "url": "https://github.com/acme/web/actions/runs/8812",
    }


def output(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_provenance_names_the_run_and_links_to_it(env: dict, provenance: dict) -> None:
    assert provenance_from_env(env) == provenance
    assert provenance_from_env(
        {
            "GITHUB_SERVER_URL": "https://ghe.acme.dev/",
            "GITHUB_REPOSITORY": "a/b",
            "GITHUB_RUN_ID": "7",
        }
    ) == {"repository": "a/b", "run_id": "7", "url": "https://ghe.acme.dev/a/b/actions/runs/7"}
    assert provenance_from_env({"HOME": "/root"}) == {}


def test_claude_print_json(env: dict, provenance: dict) -> None:
    assert record_from_output(output("claude-json.json"), env) == {
        "run_id": "gh-8812-3",
        "task": "CI agent step agent-fix/fix",
        "agent": {"name": "claude-code", "instance_id": SESSION},
        "status": "succeeded",
        "result": MIGRATION,
        "evidence": [],
        "source": {"format": "claude-json", "session_id": SESSION, "github": provenance},
    }


def test_claude_stream_json_keeps_main_thread_tools(env: dict, provenance: dict) -> None:
    env["WIKIMEM_TASK"] = "Make the migrate job pass"

    assert record_from_output(output("claude-stream.jsonl"), env) == {
        "run_id": "gh-8812-3",
        "task": "Make the migrate job pass",
        "agent": {"name": "claude-code", "instance_id": SESSION},
        "status": "succeeded",
        "result": MIGRATION,
        "evidence": [
            {
                "kind": "command",
                "command": "alembic upgrade head",
                "exit_code": 1,
                "output": "sqlalchemy.exc.ArgumentError: Could not parse SQLAlchemy URL from "
                "string ''",
            },
            {
                "kind": "note",
                "text": "Subagent Explore (Find env usage) reported: alembic/env.py reads "
                "DATABASE_URL",
            },
            {
                "kind": "file",
                "path": ".github/workflows/migrate.yml",
                "diff": "@@ -2 +2,2 @@\n       PYTHONUNBUFFERED: 1\n"
                "+      DATABASE_URL: ${{ secrets.DATABASE_URL }}\n",
            },
            {
                "kind": "command",
                "command": "DATABASE_URL=sqlite:///ci.db alembic upgrade head",
                "exit_code": 0,
                "output": "INFO  [alembic.runtime.migration] Running upgrade  -> 3f2a, create "
                "users",
            },
        ],
        "source": {"format": "claude-stream-json", "session_id": SESSION, "github": provenance},
    }


def test_claude_verbose_json_array_reads_like_the_stream(env: dict) -> None:
    events = [json.loads(line) for line in output("claude-stream.jsonl").splitlines()]

    record = record_from_output(json.dumps(events, indent=2), env)

    assert [e.get("command") for e in record["evidence"]] == [
        "alembic upgrade head",
        None,  # the subagent's report
        None,
        "DATABASE_URL=sqlite:///ci.db alembic upgrade head",
    ]


def test_claude_error_result_is_a_failed_run(env: dict) -> None:
    result = json.loads(output("claude-json.json")) | {
        "subtype": "error_max_turns",
        "is_error": True,
        "result": None,
    }

    record = record_from_output(json.dumps(result), env)

    assert record["status"] == "failed"
    assert "result" not in record
    assert record["evidence"] == [
        {"kind": "note", "text": "Claude Code ended with error_max_turns."}
    ]


def test_codex_exec_json(env: dict, provenance: dict) -> None:
    thread = "0199bb00-0000-7000-8000-000000000007"

    assert record_from_output(output("codex-exec.jsonl"), env) == {
        "run_id": "gh-8812-3",
        "task": "CI agent step agent-fix/fix",
        "agent": {"name": "codex", "instance_id": thread},
        "status": "succeeded",
        "result": "The deploy step had no FLY_API_TOKEN; I passed it from secrets in "
        "deploy.yml. actionlint is clean.",
        "evidence": [
            {
                "kind": "command",
                "command": "fly deploy --remote-only",
                "exit_code": 1,
                "output": "Error: no access token available. Please login with 'flyctl auth "
                "login'\n",
            },
            {"kind": "file", "path": ".github/workflows/deploy.yml"},
            {
                "kind": "command",
                "command": "actionlint .github/workflows/deploy.yml",
                "exit_code": 0,
                "output": "",
            },
        ],
        "source": {"format": "codex-exec-json", "thread_id": thread, "github": provenance},
    }


def test_codex_exec_failed_turn(env: dict) -> None:
    text = (
        '{"type":"thread.started","thread_id":"t"}\n'
        '{"type":"turn.failed","error":{"message":"stream disconnected"}}\n'
    )

    assert record_from_output(text, env)["status"] == "failed"


def test_codex_rollout(env: dict) -> None:
    record = record_from_output((RUNNERS / "codex" / "rollout.jsonl").read_text(), env)

    assert record["task"] == ("test_parse_local_date fails on CI but passes on my laptop. Fix it.")
    assert record["result"] == "ruff reports one unsorted import in tests/conftest.py."
    assert record["source"]["format"] == "codex-rollout"


def test_claude_transcript_follows_its_active_branch(env: dict) -> None:
    record = record_from_output((RUNNERS / "claude" / "transcript.jsonl").read_text(), env)

    assert record["task"] == "The web build is red on main. Find out why and fix it."
    assert record["source"]["format"] == "claude-transcript"
    assert "rm -rf node_modules bun.lockb && bun install" not in [
        e.get("command") for e in record["evidence"]
    ]


def test_run_record_keeps_its_own_identity(env: dict, provenance: dict) -> None:
    mine = {
        "run_id": "ci-4411-1",
        "task": "Fix the web build",
        "status": "succeeded",
        "source": {"tool": "my-runner"},
    }

    record = record_from_output(json.dumps(mine), env)

    assert record == mine | {"source": {"tool": "my-runner", "github": provenance}}


def test_plain_log_keeps_its_tail_from_a_whole_line(env: dict, provenance: dict) -> None:
    record = record_from_output(output("agent.log"), env)

    assert record["run_id"] == "gh-8812-3"
    assert record["task"] == "CI agent step agent-fix/fix"
    assert record["source"] == {"format": "log", "github": provenance}
    [note] = record["evidence"]
    text = note["text"]
    assert text.startswith("End of the agent step's log:\n2026-08-01T10:")
    assert text.endswith("##[error]Process completed with exit code 1.\n")
    assert len(text) <= 20_000 + len("End of the agent step's log:\n")


def test_log_outside_actions_has_no_github_provenance() -> None:
    record = record_from_output("{not json\nplain line\n", {})

    assert record == {
        "task": "CI agent step",
        "source": {"format": "log"},
        "evidence": [
            {"kind": "note", "text": "End of the agent step's log:\n{not json\nplain line\n"}
        ],
    }
