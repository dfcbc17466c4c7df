"""Codex adapter: notify JSON and Stop payloads, evidence from a rollout found under CODEX_HOME."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import queued_runs, run_wikimem
from tests.test_install_cli import bare_shell
from wikimem.intake.queue import STATES, Queue
from wikimem.runners import record_from_payload
from wikimem.runners.codex import (
    find_rollout,
    is_codex_payload,
    record_from_codex,
    records_from_codex,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).parent / "fixtures" / "runners" / "codex"
THREAD = "0199aa00-0000-7000-8000-000000000001"
TASK = "test_parse_local_date fails on CI but passes on my laptop. Fix it."
ANSWER = (
    "The test assumed the machine's local zone; CI runs in Europe/Berlin where 02:30 on "
    "2026-03-29 does not exist (DST). I made the test zone-explicit and pinned TZ=UTC "
    "in conftest.py; `pytest -q` passes (42 passed)."
)
FIRST_TURN_EVIDENCE = [
    {
        "kind": "command",
        "command": "pytest -q tests/test_dates.py",
        "exit_code": 1,
        "output": "F.\nFAILED tests/test_dates.py::test_parse_local_date - AssertionError: "
        "2026-03-29 03:30 != 2026-03-29 02:30\n1 failed, 1 passed in 0.31s\n",
    },
    {
        "kind": "command",
        "command": "echo $TZ; date +%Z",
        "exit_code": 0,
        "output": "Europe/Berlin\nCEST\n",
    },
    {
        "kind": "file",
        "path": "tests/test_dates.py",
        "diff": "*** Update File: tests/test_dates.py\n@@ def test_parse_local_date():\n"
        "-    assert parse('2026-03-29 02:30') == datetime(2026, 3, 29, 2, 30)\n"
        "+    assert parse('2026-03-29 02:30', tz=UTC) == datetime(2026, 3, 29, 2, 30, "
        "tzinfo=UTC)\n",
    },
    {
        "kind": "file",
        "path": "tests/conftest.py",
        "diff": "*** Add File: tests/conftest.py\n+import os\n+os.environ['TZ'] = 'UTC'\n",
    },
    {"kind": "command", "command": "pytest -q", "exit_code": 0, "output": "42 passed in 1.20s\n"},
]


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    """A CODEX_HOME holding the session as it stood when the first turn completed."""
    lines = (FIXTURES / "rollout.jsonl").read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"task_complete"' in line) + 1
    day = tmp_path / "codex" / "sessions" / "2026" / "08" / "01"
    day.mkdir(parents=True)
    (day / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl").write_text("".join(lines[:cut]))
    (day / "rollout-2026-08-01T09-00-00-0199aa00-0000-7000-8000-00000000ffff.jsonl").write_text(
        "{}\n"
    )
    return tmp_path / "codex"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def test_notify_finds_the_rollout_under_codex_home(codex_home: Path) -> None:
    record = record_from_codex(fixture("notify.json"), {"CODEX_HOME": str(codex_home)})

    assert record == {
        "run_id": f"{THREAD}:turn-1",
        "task": TASK,
        "agent": {"name": "codex", "instance_id": THREAD},
        "status": "succeeded",
        "result": "Made the test zone-explicit; `pytest -q` passes (42 passed).",
        "started_at": "2026-08-01T10:00:01.100Z",
        "ended_at": "2026-08-01T10:00:12.100Z",
        "evidence": FIRST_TURN_EVIDENCE,
        "source": {
            "runner": "codex",
            "event": "agent-turn-complete",
            "thread_id": THREAD,
            "turn_id": "turn-1",
            "cwd": "/home/ci/repo",
            "client": "codex-tui",
            "rollout_path": str(
                codex_home
                / "sessions"
                / "2026"
                / "08"
                / "01"
                / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl"
            ),
        },
    }


def test_home_is_the_default_codex_home(codex_home: Path, tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    codex_home.rename(tmp_path / "home" / ".codex")

    found = find_rollout(THREAD, {"HOME": str(tmp_path / "home")})

    assert found is not None and found.name.endswith(f"-{THREAD}.jsonl")
    assert find_rollout(THREAD, {}) is None
    assert find_rollout("../../etc/passwd*", {"HOME": str(tmp_path / "home")}) is None


def test_notify_without_a_rollout_uses_its_own_fields(tmp_path: Path) -> None:
    record = record_from_codex(fixture("notify.json"), {"CODEX_HOME": str(tmp_path)})

    assert record["task"] == TASK
    assert record["result"] == "Made the test zone-explicit; `pytest -q` passes (42 passed)."
    assert record["evidence"] == []
    assert "rollout_path" not in record["source"]


def test_stop_hook_records_the_last_turn_from_transcript_path(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes((FIXTURES / "rollout.jsonl").read_bytes())
    stop = fixture("stop.json") | {"transcript_path": str(rollout)}

    record = record_from_codex(stop, {})

    assert record == {
        "run_id": f"{THREAD}:turn-2",
        "task": "Now run the linter too.",
        "agent": {"name": "codex", "instance_id": THREAD},
        "status": "succeeded",
        "result": "ruff reports one unsorted import in tests/conftest.py.",
        "started_at": "2026-08-01T10:01:00.100Z",
        "ended_at": "2026-08-01T10:01:05.000Z",
        "evidence": [
            {"kind": "note", "text": f"First request of the session: {TASK}"},
            {
                "kind": "command",
                "command": "ruff check tests/",
                "exit_code": 1,
                "output": "tests/conftest.py:1:1: I001 Import block is un-sorted\nFound 1 error.\n",
            },
        ],
        "source": {
            "runner": "codex",
            "event": "Stop",
            "thread_id": THREAD,
            "turn_id": "turn-2",
            "cwd": "/home/ci/repo",
            "rollout_path": str(rollout),
            "model": "gpt-5.5",
        },
    }


def test_forced_and_subagent_stops_are_skipped() -> None:
    assert record_from_codex(fixture("stop.json") | {"stop_hook_active": True}, {}) is None
    assert record_from_codex(fixture("stop.json") | {"hook_event_name": "SubagentStop"}, {}) is None


def test_an_interrupted_turn_is_interrupted(tmp_path: Path) -> None:
    rollout = tmp_path / "r.jsonl"
    rollout.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {
                    "timestamp": "t1",
                    "type": "event_msg",
                    "payload": {"type": "user_message", "message": "Upgrade the deps"},
                },
                {
                    "timestamp": "t2",
                    "type": "event_msg",
                    "payload": {"type": "turn_aborted", "reason": "interrupted"},
                },
            ]
        )
        + "\n"
    )

    record = record_from_codex(
        fixture("stop.json") | {"transcript_path": str(rollout), "last_assistant_message": None}, {}
    )

    assert record["status"] == "interrupted"
    assert record["task"] == "Upgrade the deps"
    assert "result" not in record


def test_detection_and_dispatch(codex_home: Path) -> None:
    assert is_codex_payload(fixture("notify.json"))
    assert is_codex_payload(fixture("stop.json"))
    assert is_codex_payload(
        {
            "hook_event_name": "Stop",
            "session_id": "x",
            "transcript_path": "/h/.codex/sessions/rollout-2026-x.jsonl",
        }
    )
    assert not is_codex_payload(
        {
            "hook_event_name": "Stop",
            "session_id": "x",
            "transcript_path": "/h/.claude/projects/p/x.jsonl",
        }
    )
    record = record_from_payload(fixture("notify.json"), {"CODEX_HOME": str(codex_home)})
    assert record["agent"]["name"] == "codex"


def rollout_line(kind: str, payload: dict, second: int = 0) -> str:
    return json.dumps(
        {"timestamp": f"2026-08-01T10:00:{second:02d}Z", "type": kind, "payload": payload}
    )


def call(call_id: str, name: str, arguments: dict, **extra: object) -> str:
    return rollout_line(
        "response_item",
        {
            "type": "function_call",
            "name": name,
            "arguments": json.dumps(arguments),
            "call_id": call_id,
        }
        | extra,
    )


def output(call_id: str, text: str) -> str:
    return rollout_line(
        "response_item", {"type": "function_call_output", "call_id": call_id, "output": text}
    )


def header(state: str, body: str) -> str:
    return (
        f"Chunk ID: 1f\nWall time: 10.0 seconds\n{state}\nOriginal token count: 9\nOutput:\n{body}"
    )


LONG_RUN = [
    rollout_line("session_meta", {"id": THREAD, "cwd": "/home/ci/repo"}),
    rollout_line("event_msg", {"type": "user_message", "message": "Make the build pass"}),
    call("c-1", "exec_command", {"cmd": "npm run build", "yield_time_ms": 10000}),
    output("c-1", header("Process running with session ID 31", "> vite build\n")),
    call("c-2", "write_stdin", {"session_id": 31, "chars": "", "yield_time_ms": 30000}),
    output("c-2", header("Process running with session ID 31", "transforming...\n")),
    call("c-3", "write_stdin", {"session_id": 31, "chars": ""}),
    output("c-3", header("Process exited with code 2", "error TS2345: bad argument\n")),
    call("c-4", "search", {"query": "vite ts2345"}, namespace="mcp__docs"),
    output("c-4", "3 results"),
    rollout_line(
        "response_item",
        {
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "TS2345 vite"},
        },
    ),
    call("c-5", "exec_command", {"cmd": "git push"}),
    output("c-5", "exec command rejected by user"),
    rollout_line(
        "event_msg", {"type": "task_complete", "last_agent_message": "The build fails: TS2345."}
    ),
]


def test_a_long_running_command_takes_its_exit_code_from_the_polls(tmp_path: Path) -> None:
    path = tmp_path / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl"
    path.write_text("\n".join(LONG_RUN) + "\n")

    record = record_from_codex(
        {
            "type": "agent-turn-complete",
            "thread-id": THREAD,
            "turn-id": "1",
            "transcript_path": str(path),
        }
    )

    assert record is not None
    assert record["evidence"] == [
        {
            "kind": "command",
            "command": "npm run build",
            "output": "> vite build\ntransforming...\nerror TS2345: bad argument\n",
            "exit_code": 2,
        },
        {"kind": "note", "text": 'Consulted MCP tool mcp__docs.search: {"query": "vite ts2345"}'},
        {"kind": "note", "text": "Consulted web search: TS2345 vite"},
        {
            "kind": "command",
            "command": "git push",
            "output": "exec command rejected by user",
            "ran": False,
        },
    ]
    assert record["result"] == "The build fails: TS2345."


def test_a_compressed_rollout_is_read(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    day = tmp_path / "sessions" / "2026" / "08" / "01"
    day.mkdir(parents=True)
    data = ("\n".join(LONG_RUN) + "\n").encode()
    (day / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress(data)
    )

    record = record_from_codex(
        {"type": "agent-turn-complete", "thread-id": THREAD, "turn-id": "1"},
        {"CODEX_HOME": str(tmp_path)},
    )

    assert record is not None
    assert record["task"] == "Make the build pass"
    assert record["evidence"][0]["exit_code"] == 2


def test_a_broken_compressed_rollout_is_a_note_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl.zst"
    path.write_bytes(b"not zstd at all")

    record = record_from_codex(
        {
            "type": "agent-turn-complete",
            "thread-id": THREAD,
            "turn-id": "1",
            "input-messages": ["Make the build pass"],
            "transcript_path": str(path),
        }
    )

    assert record is not None
    assert record["evidence"][0]["text"].startswith("The rollout could not be read:")


def rollout_line(kind: str, **payload: object) -> str:
    return json.dumps({"timestamp": "2026-08-01T10:00:00Z", "type": kind, "payload": payload})


def exec_call(call_id: str, cmd: str, output: str) -> list[str]:
    return [
        rollout_line(
            "response_item",
            type="function_call",
            name="exec_command",
            arguments=json.dumps({"cmd": cmd}),
            call_id=call_id,
        ),
        rollout_line(
            "response_item",
            type="function_call_output",
            call_id=call_id,
            output=f"Process exited with code 0\nOutput:\n{output}",
        ),
    ]


def test_a_message_sent_mid_turn_joins_the_turn_and_every_turn_is_recorded(
    tmp_path: Path,
) -> None:
    rollout = tmp_path / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl"
    rollout.write_text(
        "\n".join(
            [
                rollout_line("session_meta", id=THREAD, cwd="/home/ci/repo"),
                rollout_line("event_msg", type="task_started", turn_id="t-1"),
                rollout_line("event_msg", type="user_message", message="Fix the flaky test"),
                *exec_call("c1", "pytest -q", "1 failed"),
                rollout_line("event_msg", type="user_message", message="It only fails on CI"),
                *exec_call("c2", "TZ=Europe/Berlin pytest -q", "1 failed"),
                *exec_call("c3", "pytest -q", "42 passed"),
                rollout_line("event_msg", type="task_complete", last_agent_message="Fixed."),
                rollout_line("event_msg", type="task_started", turn_id="t-2"),
                rollout_line("event_msg", type="user_message", message="Now lint"),
                *exec_call("c4", "ruff check", "All checks passed!"),
            ]
        )
        + "\n"
    )
    stop = fixture("stop.json") | {
        "transcript_path": str(rollout),
        "turn_id": "t-2",
        "last_assistant_message": "Lint is clean.",
    }

    first, second = records_from_codex(stop, {})

    assert first[0] == "#0" and first[1]["run_id"] == f"{THREAD}:t-1"
    assert first[1]["task"] == "Fix the flaky test" and first[1]["status"] == "succeeded"
    assert [e["command"] for e in first[1]["evidence"] if e["kind"] == "command"] == [
        "pytest -q",
        "TZ=Europe/Berlin pytest -q",
        "pytest -q",
    ]
    assert {
        "kind": "note",
        "text": "Message the person sent during the turn: It only fails on CI",
    } in first[1]["evidence"]
    assert second[1]["run_id"] == f"{THREAD}:t-2" and second[1]["result"] == "Lint is clean."
    assert records_from_codex(stop, {}, recorded={"#0", "#1"}) == []
    # a compaction in the middle of the second turn records only the first
    compact = stop | {"hook_event_name": "PreCompact", "trigger": "auto"}
    assert [key for key, _ in records_from_codex(compact, {})] == ["#0"]


def test_notify_from_another_folder_records_in_the_payload_s_cwd(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".clarvis").mkdir(parents=True)
    notify = fixture("notify.json") | {"cwd": str(project)}

    proc = run_wikimem("hook", "-q", json.dumps(notify), cwd=tmp_path)

    assert proc.returncode == 0 and b"not in a project" not in proc.stderr, proc.stderr
    queue = Queue(project / ".clarvis" / "state" / "queue")
    assert [job.run["task"] for state in STATES for _, job in queue.jobs(state) if job] == [TASK]


def shell_call(call_id: str, command: object, output: object) -> list[str]:
    return [
        rollout_line(
            "response_item",
            type="function_call",
            name="shell",
            arguments=json.dumps({"command": command}),
            call_id=call_id,
        ),
        rollout_line("response_item", type="function_call_output", call_id=call_id, output=output),
    ]


def test_sandbox_denials_patches_through_the_shell_and_broken_calls(tmp_path: Path) -> None:
    """Codex 0.40's shapes: a denied command's exit_code is null, apply_patch runs through the
    shell, and some calls' arguments are not JSON."""
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-DEBUG = True\n+DEBUG = False\n"
        "*** End Patch"
    )
    rollout = tmp_path / f"rollout-2026-08-01T10-00-00-{THREAD}.jsonl"
    rollout.write_text(
        "\n".join(
            [
                rollout_line("session_meta", id=THREAD, cwd="/home/ci/repo"),
                rollout_line("event_msg", type="user_message", message="Turn debug off"),
                *shell_call(
                    "c1",
                    ["bash", "-lc", "touch /etc/app.conf"],
                    json.dumps(
                        {
                            "output": "touch: /etc/app.conf: Operation not permitted",
                            "metadata": {"exit_code": None, "duration_seconds": 0.1},
                        }
                    ),
                ),
                *shell_call(
                    "c2",
                    ["bash", "-lc", f"apply_patch <<'EOF'\n{patch}\nEOF"],
                    json.dumps({"output": "Done!", "metadata": {"exit_code": 0}}),
                ),
                rollout_line(
                    "response_item",
                    type="function_call",
                    name="shell",
                    arguments='{"command": ["bash", "-lc", "ls"',
                    call_id="c3",
                ),
                rollout_line(
                    "event_msg",
                    type="exec_command_end",
                    call_id="c4",
                    command=["bash", "-lc", "curl https://example.test"],
                    aggregated_output="",
                    exit_code=None,
                ),
            ]
        )
        + "\n"
    )
    stop = fixture("stop.json") | {"transcript_path": str(rollout), "turn_id": "t-1"}

    record = record_from_codex(stop, {})

    denied, change, broken, no_code = record["evidence"]
    assert denied == {
        "kind": "command",
        "command": "touch /etc/app.conf",
        "exit_code": 1,
        "output": "[denied by Codex's sandbox]\ntouch: /etc/app.conf: Operation not permitted",
    }
    assert change["kind"] == "file" and change["path"] == "src/app.py"
    assert "+DEBUG = False" in change["diff"]
    assert broken["kind"] == "note" and "did not parse" in broken["text"]
    assert no_code["command"] == "curl https://example.test" and no_code["exit_code"] == 1
    assert no_code["output"] == "[no exit code: it did not run to completion]"


REAL = Path(__file__).parent / "fixtures" / "runners" / "real"
PARENT = "019e1695-0522-7c83-8b39-0dd379793f80"
CHILD = "019e16a0-1c2d-7e10-9a4b-5f6e7d8c9b01"
CHILD_COMMANDS = [
    ("rg --files src/pages | rg -i analytics", 0),
    ("sed -n '1,40p' src/pages/analytics/Budgets.tsx", 0),
    ("test -f src/pages/analytics/Chargeback.tsx", 1),
]
REPORT = (
    "Two analytics pages: AnalyticsPage.tsx (usage charts) and Budgets.tsx (budget table). "
    "There is no Chargeback page."
)


def spawned_session(home: Path, *, child: bool = True) -> Path:
    """The real 0.128 rollout with a spawn_agent and a wait call put in its last turn, as
    Codex writes them, and (when `child`) the spawned agent's own rollout beside it."""
    lines = next(REAL.glob(f"codex-0.128.0-rollout-*-{PARENT}.jsonl")).read_text().splitlines()
    added = (FIXTURES / "subagent-parent-lines.jsonl").read_text().splitlines()
    at = len(lines) - 2  # before the last turn's final reasoning and answer
    day = home / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    parent = day / f"rollout-2026-05-11T13-28-45-{PARENT}.jsonl"
    parent.write_text("\n".join([*lines[:at], *added, *lines[at:]]) + "\n")
    if child:
        source = next(FIXTURES.glob(f"subagent-child-rollout-*-{CHILD}.jsonl"))
        (day / source.name.removeprefix("subagent-child-")).write_text(source.read_text())
    return parent


def marked(evidence: list[dict]) -> list[tuple[str, int]]:
    return [(e["command"], e["exit_code"]) for e in evidence if e.get("subagent") == "explorer"]


def test_a_spawned_agent_s_commands_and_report_are_in_its_parent_s_turn(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    parent = spawned_session(home)
    stop = fixture("stop.json") | {
        "session_id": PARENT,
        "turn_id": "t-3",
        "transcript_path": str(parent),
        "cwd": "/Users/Sample_User/naya",
    }

    records = [record for _, record in records_from_codex(stop, {"CODEX_HOME": str(home)})]

    evidence = [e for record in records for e in record["evidence"]]
    assert marked(evidence) == CHILD_COMMANDS
    last = records[-1]["evidence"]
    assert marked(last) == CHILD_COMMANDS  # in the turn that spawned it, nowhere else
    notes = [e["text"] for e in last if e["kind"] == "note"]
    assert (
        "Subagent explorer was asked: List the analytics pages under src/pages and what each "
        "renders." in notes
    )
    assert f"Report of subagent explorer: {REPORT}" in notes
    assert sum(REPORT in text for text in notes) == 1
    # the agent's own rollout, reported by its own Stop or notify, is no run of its own
    child = next((home / "sessions").glob(f"*/*/*/rollout-*-{CHILD}.jsonl"))
    own = {"session_id": CHILD, "turn_id": "c-1", "transcript_path": str(child)}
    assert records_from_codex(fixture("stop.json") | own, {}) == []
    notify = fixture("notify.json") | {"thread-id": CHILD}
    assert records_from_codex(notify, {"CODEX_HOME": str(home)}) == []


def test_a_forked_agent_s_copy_of_its_parent_s_history_is_not_its_work(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    parent = spawned_session(home)
    child = next((home / "sessions").glob(f"*/*/*/rollout-*-{CHILD}.jsonl"))
    meta, *rest = child.read_text().splitlines()
    copied = [  # spawn_agent with fork_context: the parent's turns come first
        rollout_line("event_msg", type="user_message", message="Earlier request"),
        *exec_call("call_parent_copy", "git status", "clean"),
    ]
    child.write_text("\n".join([meta, *copied, *rest]) + "\n")
    stop = fixture("stop.json") | {"session_id": PARENT, "transcript_path": str(parent)}

    last = records_from_codex(stop, {})[-1][1]["evidence"]

    assert marked(last) == CHILD_COMMANDS


def test_a_spawned_agent_whose_rollout_is_missing_leaves_its_report(tmp_path: Path) -> None:
    parent = spawned_session(tmp_path / "codex", child=False)
    stop = fixture("stop.json") | {"session_id": PARENT, "transcript_path": str(parent)}

    last = records_from_codex(stop, {})[-1][1]["evidence"]

    assert not [e for e in last if "subagent" in e]
    notes = [e["text"] for e in last if e["kind"] == "note"]
    assert f"Report of subagent explorer: {REPORT}" in notes
    assert any(f"rollout ({CHILD}) was not found" in text for text in notes)


def test_the_installed_notify_records_a_spawned_agent_once(
    workspace: Path, isolated_env: Path
) -> None:
    """`install codex`'s notify, run bare as Codex runs it, for the agent's turn and then its
    parent's (twice): the agent's commands are queued once, in the parent's turn, marked."""
    home = isolated_env / ".codex"
    assert (
        run_wikimem("install", "codex", cwd=workspace, env={"HOME": str(isolated_env)}).returncode
        == 0
    )
    notify = tomllib.loads((home / "config.toml").read_text())["notify"]
    spawned_session(home)
    base = fixture("notify.json") | {"cwd": str(workspace)}
    for payload in (
        base | {"thread-id": CHILD, "turn-id": "c-1", "input-messages": ["List the pages"]},
        base | {"thread-id": PARENT, "turn-id": "t-3"},
        base | {"thread-id": PARENT, "turn-id": "t-3"},
    ):
        done = bare_shell(shlex.join([*notify, json.dumps(payload)]), workspace, isolated_env, "")
        assert done.returncode == 0 and done.stdout == b"", done.stderr

    runs = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert runs and all(run["source"]["thread_id"] == PARENT for run in runs)
    assert len({run["run_id"] for run in runs}) == len(runs)
    assert [m for run in runs for m in marked(run["evidence"])] == CHILD_COMMANDS
    reports = [e for run in runs for e in run["evidence"] if REPORT in e.get("text", "")]
    assert len(reports) == 1


LATER_REPORT = "Budgets.tsx has no default export: it exports Budgets by name."
LATER_COMMAND = ("rg -n 'export default' src/pages/analytics/Budgets.tsx", 1)


def later_session(home: Path, turns: int | None = None) -> Path:
    """The real 0.128 rollout whose last turn spawns the explorer and does not wait for it (the
    fixture's spawn_agent call and output only), then the fixture's two later turns: the next
    waits for it; the one after sends it more work (send_input), waits again and closes it. The
    agent's rollout beside it: its first turn, then the one send_input started. `turns`: the
    parent's turns written so far (3: up to the spawn; 4: and the first wait's; None: all),
    the agent's rollout as far as it had got then (mid-way through its first turn at 3)."""
    lines = next(REAL.glob(f"codex-0.128.0-rollout-*-{PARENT}.jsonl")).read_text().splitlines()
    spawn = (FIXTURES / "subagent-parent-lines.jsonl").read_text().splitlines()[:2]
    later = (FIXTURES / "subagent-later-parent-turns.jsonl").read_text().splitlines()
    first = next(FIXTURES.glob(f"subagent-child-rollout-*-{CHILD}.jsonl"))
    own = first.read_text().splitlines()
    second = (FIXTURES / "subagent-later-child-turn.jsonl").read_text().splitlines()
    at = len(lines) - 2
    parent_lines = [*lines[:at], *spawn, *lines[at:]]
    if turns == 3:
        child_lines = own[:5]  # its first command's call and output: the rest still to come
    elif turns == 4:
        parent_lines, child_lines = parent_lines + later[:4], own
    else:
        parent_lines, child_lines = parent_lines + later, own + second
    day = home / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True, exist_ok=True)
    parent = day / f"rollout-2026-05-11T13-28-45-{PARENT}.jsonl"
    parent.write_text("\n".join(parent_lines) + "\n")
    (day / first.name.removeprefix("subagent-child-")).write_text("\n".join(child_lines) + "\n")
    return parent


def notes_of(evidence: list[dict]) -> list[str]:
    return [e["text"] for e in evidence if e["kind"] == "note"]


def test_an_agent_waited_for_in_a_later_turn_is_recorded_in_the_turn_that_waited(
    tmp_path: Path,
) -> None:
    """The turn that spawns the agent does not wait for it; the next turn does: the agent's
    work is in that turn, marked, with its report; the turn after sends it more work, waits and
    closes it: that work is in that turn. Each of its commands is in one record only."""
    home = tmp_path / "codex"
    parent = later_session(home)
    stop = fixture("stop.json") | {
        "session_id": PARENT,
        "turn_id": "t-5",
        "transcript_path": str(parent),
        "cwd": "/Users/Sample_User/naya",
    }

    records = [record for _, record in records_from_codex(stop, {"CODEX_HOME": str(home)})]

    assert len(records) == 5
    spawning, waited, sent = (r["evidence"] for r in records[2:])
    assert marked(spawning) == [] and not [e for r in records[:2] for e in marked(r["evidence"])]
    asked = "Subagent explorer was asked: List the analytics pages under src/pages and what each"
    assert f"{asked} renders." in notes_of(spawning)
    assert any("was not waited for in this turn" in text for text in notes_of(spawning))
    assert marked(waited) == CHILD_COMMANDS
    assert f"Report of subagent explorer: {REPORT}" in notes_of(waited)
    assert any("spawned in an earlier turn" in text for text in notes_of(waited))
    assert marked(sent) == [LATER_COMMAND]
    assert "Sent subagent explorer: Also check whether Budgets.tsx exports a default." in notes_of(
        sent
    )
    assert sum(LATER_REPORT in text for text in notes_of(sent)) == 1
    assert "Subagent explorer was closed" in notes_of(sent)
    everything = [m for r in records for m in marked(r["evidence"])]
    assert everything == [*CHILD_COMMANDS, LATER_COMMAND]


def test_close_agent_and_send_input_of_an_unknown_agent_are_notes(tmp_path: Path) -> None:
    """A send_input or close_agent naming no agent the session spawned (a rollout cut before
    its spawn) is kept as a note, not dropped."""
    other = "019e16a0-9999-7e10-9a4b-5f6e7d8c9b09"
    lines = [
        rollout_line("event_msg", type="user_message", message="Close the old helper"),
        rollout_line(
            "response_item",
            type="function_call",
            name="send_input",
            arguments=json.dumps({"target": other, "message": "Stop now", "interrupt": True}),
            call_id="s1",
        ),
        rollout_line(
            "response_item",
            type="function_call",
            name="close_agent",
            arguments=json.dumps({"target": other}),
            call_id="c1",
        ),
        rollout_line(
            "response_item",
            type="function_call_output",
            call_id="c1",
            output=json.dumps({"previous_status": "running"}),
        ),
    ]
    path = tmp_path / f"rollout-2026-05-11T13-28-45-{PARENT}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    stop = fixture("stop.json") | {"session_id": PARENT, "transcript_path": str(path)}

    (record,) = [r for _, r in records_from_codex(stop, {})]

    assert notes_of(record["evidence"])[-2:] == [
        f"Sent agent {other} (interrupting it): Stop now",
        f"Closed agent {other}",
    ]


def test_the_installed_notify_records_a_later_waited_agent_once(
    workspace: Path, isolated_env: Path
) -> None:
    """`install codex`'s notify, run bare as Codex runs it, at the end of each of the parent's
    turns as its rollout and the agent's grew (the spawning turn while the agent was mid-way,
    the turn that waited, the turn that sent it more and closed it, and that one again): every
    command of the agent is queued once, in the turn that waited for it, marked."""
    home = isolated_env / ".codex"
    assert (
        run_wikimem("install", "codex", cwd=workspace, env={"HOME": str(isolated_env)}).returncode
        == 0
    )
    notify = tomllib.loads((home / "config.toml").read_text())["notify"]
    base = fixture("notify.json") | {"cwd": str(workspace), "thread-id": PARENT}
    for turns, turn_id in ((3, "t-3"), (4, "t-4"), (None, "t-5"), (None, "t-5")):
        later_session(home, turns)
        payload = base | {"turn-id": turn_id}
        done = bare_shell(shlex.join([*notify, json.dumps(payload)]), workspace, isolated_env, "")
        assert done.returncode == 0 and done.stdout == b"", done.stderr

    runs = {r["run_id"]: r for r in queued_runs(workspace / ".clarvis" / "state" / "queue")}
    assert len(runs) == 5
    assert marked(runs[f"{PARENT}:t-3"]["evidence"]) == []  # spawned: not waited for there
    assert marked(runs[f"{PARENT}:t-4"]["evidence"]) == CHILD_COMMANDS
    assert marked(runs[f"{PARENT}:t-5"]["evidence"]) == [LATER_COMMAND]
    reports = [t for r in runs.values() for t in notes_of(r["evidence"]) if "Report of" in t]
    assert reports == [
        f"Report of subagent explorer: {REPORT}",
        f"Report of subagent explorer: {LATER_REPORT}",
    ]
