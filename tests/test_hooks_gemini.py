"""Gemini CLI: the AfterAgent payload (the docs' own example) and its session file become a run
record, every turn of the session once; `wikimem install|uninstall gemini` edit
.gemini/settings.json; the installed hook runs from a bare shell, as Gemini CLI starts it, and
queues each turn once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import git, queued_runs
from tests.test_deliver import context_of, learn_from
from tests.test_install_cli import ENTRY, LEAF, PROFILE, bare_shell, hook_commands
from tests.test_real_sessions import an_hour_on, handed_on, new_session
from wikimem import config
from wikimem.intake.accept import accept
from wikimem.recall.events import read_event
from wikimem.runners import record_from_payload, records_from_payload, session_of
from wikimem.runners.claude import is_claude_payload
from wikimem.runners.gemini import is_gemini_payload, records_from_gemini

FIXTURES = Path(__file__).parent / "fixtures" / "runners" / "gemini"
CWD = "/home/ci/repo"  # the example payload's, which the session file's paths are under


def example(**changes: object) -> dict:
    payload = json.loads((FIXTURES / "after-agent.json").read_text(encoding="utf-8"))
    payload.update(changes)
    return payload


def ident(key: str | None) -> str | None:
    """The prompt's id in a cursor key (`<id>#<fingerprint of the prompt>`)."""
    return key.partition("#")[0] if key else key


def session_file(tmp_path: Path, text: str | None = None) -> Path:
    path = tmp_path / ".gemini" / "tmp" / "abc" / "chats" / "session-2026-08-01T09-58-g1.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text is not None else (FIXTURES / "session.json").read_text())
    return path


def test_the_docs_example_alone_records_prompt_and_response() -> None:
    ((key, record),) = records_from_payload(example(), {})

    assert key is None  # no session file to name the turn: nothing for the cursor
    assert record["task"] == "add a CHANGELOG entry"
    assert record["result"] == "Added entry under 1.4.0."
    assert record["agent"] == {"name": "gemini-cli", "instance_id": "g-1"}
    assert record["status"] == "succeeded"
    assert record["run_id"] == "g-1:2026-08-01T10:00:00Z"
    assert record["source"]["runner"] == "gemini-cli"
    assert record["source"]["event"] == "AfterAgent"
    (note,) = record["evidence"]
    assert note["kind"] == "note" and "could not be read" in note["text"]


def test_the_session_file_gives_the_turn_s_commands_and_edits(tmp_path: Path) -> None:
    path = session_file(tmp_path)

    (first, (key, record)) = records_from_payload(example(transcript_path=str(path)), {})

    assert ident(key) == "m-3" and record["run_id"] == "g-1:m-3"
    assert record["task"] == "add a CHANGELOG entry"
    assert record["status"] == "succeeded"
    commands = [e for e in record["evidence"] if e["kind"] == "command"]
    assert [c["command"] for c in commands] == ["git log --oneline -3", "rm -rf build"]
    assert commands[0]["exit_code"] == 128
    assert "fatal: not a git repository" in commands[0]["output"]
    assert commands[1] == {"kind": "command", "command": "rm -rf build", "ran": False}
    (change,) = [e for e in record["evidence"] if e["kind"] == "file"]
    assert change["path"] == "CHANGELOG.md"  # relative to the payload's cwd
    assert change["diff"] == "-## 1.4.0\n+## 1.4.0\n+\n+- Entry.\n"
    assert not [e for e in record["evidence"] if e["kind"] == "note"]
    # the turn before it, which no AfterAgent reported (the install came later): from the file
    key, earlier = first
    assert ident(key) == "m-1" and earlier["run_id"] == "g-1:m-1"
    assert (earlier["task"], earlier["result"]) == ("run the tests", "They pass.")
    assert "status" not in earlier  # its outcome is unknown
    note, command = earlier["evidence"]
    assert note["kind"] == "note" and "no AfterAgent" in note["text"]
    assert (command["command"], command["exit_code"]) == ("pytest -q", 0)


def test_every_turn_once_whichever_events_fire(tmp_path: Path) -> None:
    path = str(session_file(tmp_path))
    compress = {"session_id": "g-1", "hook_event_name": "PreCompress", "transcript_path": path}
    end = {**compress, "hook_event_name": "SessionEnd", "reason": "exit"}
    cursor: list[str] = []

    def fire(payload: dict) -> list[str]:
        keys = [k for k, _ in records_from_payload(payload, {}, cursor) if k]
        cursor.extend(keys)
        return [ident(k) for k in keys]

    assert fire(compress) == ["m-1"]  # the running turn is left to its AfterAgent
    assert fire(example(transcript_path=path)) == ["m-3"]
    assert fire(end) == []
    resumed = {**compress, "hook_event_name": "SessionStart", "source": "resume"}
    assert is_gemini_payload(resumed) and session_of(resumed) == "gemini-g-1"
    assert records_from_payload({**resumed, "source": "startup"}, {}) == []
    assert [ident(k) for k, _ in records_from_payload(resumed, {}, ["m-1"])] == ["m-3"]
    assert fire({**end, "session_id": "g-2"}) == []  # nothing new: the cursor is the caller's
    cursor.clear()
    ((_, interrupted),) = records_from_payload(end, {}, ["m-1"])  # no AfterAgent for m-3
    assert interrupted["task"] == "add a CHANGELOG entry" and "status" not in interrupted
    assert interrupted["result"] == "Added entry under 1.4.0."  # the turn's last model text


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"sessionId": "g-1", "messa', "not JSON"),
        ('{"sessionId": "g-1", "history": []}', "unknown format"),
        ('[{"type": "user"}]', "unknown format"),
        ('{"type": "user", "content": "x"}\n{"type": "gemini"}\n', "not JSON"),
    ],
)
def test_an_unknown_session_file_costs_only_the_evidence(
    tmp_path: Path, text: str, why: str
) -> None:
    path = session_file(tmp_path, text)

    ((key, record),) = records_from_payload(example(transcript_path=str(path)), {})

    assert key is None
    assert record["task"] == "add a CHANGELOG entry"
    assert record["result"] == "Added entry under 1.4.0."
    (note,) = record["evidence"]
    assert why in note["text"]


BACKGROUND = "Command: npm run dev\nExit Code: (none)\nBackground PIDs: 4321"


def test_odd_tool_calls_are_skipped_not_fatal(tmp_path: Path) -> None:
    messages = [
        {"id": "u", "type": "user", "content": "x"},
        {"type": "gemini", "toolCalls": "no"},
        {"type": "gemini", "toolCalls": [None, {"name": "run_shell_command", "args": "ls"}]},
        {
            "type": "gemini",
            "toolCalls": [
                {
                    "name": "run_shell_command",
                    "args": {"command": "make"},
                    "status": "error",
                    "resultDisplay": "make: *** No rule",
                },
                {
                    "name": "run_shell_command",
                    "args": {"command": "npm run dev", "is_background": True},
                    "status": "success",
                    "result": [{"functionResponse": {"response": {"output": BACKGROUND}}}],
                },
            ],
        },
    ]
    path = session_file(tmp_path, json.dumps({"messages": messages}))

    ((_, record),) = records_from_payload(example(transcript_path=str(path)), {})

    assert record["evidence"] == [
        {"kind": "command", "command": "make", "exit_code": 1, "output": "make: *** No rule"},
        {"kind": "command", "command": "npm run dev", "running": True, "output": BACKGROUND},
    ]


def test_detection_and_dispatch(tmp_path: Path) -> None:
    path = str(session_file(tmp_path))
    assert is_gemini_payload(example())
    assert session_of(example()) == "gemini-g-1"
    assert record_from_payload(example(), {})["agent"]["name"] == "gemini-cli"
    for event in ("AfterTool", "BeforeAgent", "PreCompress"):  # no turn, or none it can read
        assert record_from_payload(example(hook_event_name=event), {}) is None
    gemini_end = {"session_id": "g-1", "hook_event_name": "SessionEnd", "transcript_path": path}
    assert is_gemini_payload(gemini_end)
    assert record_from_payload(gemini_end, {})["agent"]["name"] == "gemini-cli"
    claude_end = {**gemini_end, "transcript_path": str(tmp_path / "abc.jsonl")}
    assert not is_gemini_payload(claude_end) and is_claude_payload(claude_end)
    assert records_from_gemini(example(prompt="", prompt_response="")) == []


def test_a_turn_in_the_cursor_is_not_recorded_again(tmp_path: Path) -> None:
    payload = example(transcript_path=str(session_file(tmp_path)))
    assert records_from_gemini(payload, ["m-1", "m-3"]) == []
    ((key, record),) = records_from_gemini({**payload, "stop_hook_active": True}, ["m-1", "m-3"])
    assert ident(key) == "m-3:continued" and record["run_id"] == "g-1:m-3:continued"
    # a retry whose turn no hook recorded yet is that turn, so SessionEnd does not repeat it
    ((key, _),) = records_from_gemini({**payload, "stop_hook_active": True}, ["m-1"])
    assert ident(key) == "m-3"


def test_the_hook_path_imports_no_heavy_dependency(tmp_path: Path) -> None:
    payload = example(transcript_path=str(session_file(tmp_path)))
    code = (
        "import json, sys\n"
        "from wikimem.runners import record_from_payload\n"
        f"p = json.loads({json.dumps(json.dumps(payload))})\n"
        "assert record_from_payload(p, {})['evidence']\n"
        "heavy = {'openai', 'git', 'click', 'jinja2', 'frontmatter', 'filelock', 'httpx'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert out.stdout.strip() == "[]"


def test_install_writes_the_after_agent_hook_and_is_idempotent(workspace: Path, cli) -> None:
    settings = workspace / ".gemini" / "settings.json"

    first = cli("install", "gemini")

    assert first.code == 0, first.err
    assert first.out == (
        f"wrote {settings}:\n  AfterAgent: {ENTRY} hook\n  PreCompress: {ENTRY} hook\n"
        f"  SessionEnd: {ENTRY} hook\n  SessionStart: {ENTRY} start --runner gemini\n"
        f"  BeforeAgent: {ENTRY} deliver --runner gemini\n"
        f"  AfterTool: {ENTRY} deliver --runner gemini\n"
    )

    def group(timeout: int, sub: str = "hook") -> list[dict]:
        handler = {"type": "command", "command": f"{ENTRY} {sub}", "timeout": timeout}
        return [{"hooks": [handler]}]

    assert json.loads(settings.read_text()) == {
        "hooks": {
            "AfterAgent": group(30000),
            "PreCompress": group(30000),
            "SessionEnd": group(60000),  # milliseconds, as Gemini CLI reads them
            "SessionStart": group(10000, "start --runner gemini"),
            "BeforeAgent": group(10000, "deliver --runner gemini"),
            "AfterTool": [
                {"matcher": "run_shell_command", **group(10000, "deliver --runner gemini")[0]}
            ],
        }
    }
    before = settings.read_bytes()
    assert cli("install", "gemini").out == f"already installed in {settings}\n"
    assert settings.read_bytes() == before


def test_user_scope_and_an_explicit_file(workspace: Path, isolated_env: Path, cli) -> None:
    assert cli("install", "gemini", "--user").code == 0
    assert hook_commands(isolated_env / ".gemini" / "settings.json", "AfterAgent") == [
        f"{ENTRY} hook"
    ]
    target = workspace / "elsewhere.json"
    assert cli("install", "gemini", "--settings", str(target), "--command", "wikimem").code == 0
    assert hook_commands(target, "AfterAgent") == ["wikimem hook"]
    assert not (workspace / ".gemini").exists()


def test_uninstall_gives_the_file_back_byte_for_byte(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before_exclude = exclude.read_bytes()
    settings = workspace / ".gemini" / "settings.json"
    settings.parent.mkdir()
    mine = (
        '{\n\t"model": {"name": "gemini-2.5-pro"},\n\t"hooks": {\n\t\t"AfterTool": [\n'
        '\t\t\t{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}\n'
        "\t\t]\n\t}\n}"  # tabs, no final newline
    )
    settings.write_text(mine)

    assert cli("install", "gemini").code == 0
    assert hook_commands(settings, "AfterTool") == ["lint", f"{ENTRY} deliver --runner gemini"]
    assert hook_commands(settings, "AfterAgent") == [f"{ENTRY} hook"]
    assert git("check-ignore", ".gemini/settings.json", cwd=workspace).strip()
    result = cli("uninstall", "gemini")

    assert result.out == (
        "removed AfterTool, AfterAgent, PreCompress, SessionEnd, SessionStart, BeforeAgent"
        f" from {settings}\n"
    )
    assert settings.read_text() == mine
    assert exclude.read_bytes() == before_exclude
    assert cli("uninstall", "gemini").out == f"nothing to remove in {settings}\n"


def test_install_then_uninstall_in_a_fresh_repository_leaves_no_trace(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before = exclude.read_bytes()

    assert cli("install", "gemini").code == 0
    assert git("status", "--porcelain", "--untracked-files=all", cwd=workspace) == ""
    assert cli("uninstall", "gemini").code == 0

    assert exclude.read_bytes() == before
    assert not (workspace / ".gemini").exists()


def test_a_tracked_settings_file_gets_a_warning_not_an_exclusion(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    settings = workspace / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    git("add", ".gemini/settings.json", cwd=workspace)

    result = cli("install", "gemini")

    assert result.code == 0
    assert "git tracks" in result.err and "--command wikimem" in result.err
    assert ".gemini" not in (workspace / ".git" / "info" / "exclude").read_text()


def test_the_installed_hooks_queue_each_turn_once_without_the_venv(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "gemini").code == 0
    settings = workspace / ".gemini" / "settings.json"
    path = str(session_file(isolated_env))
    turn = example(transcript_path=path, cwd=str(workspace))
    compress = {
        "session_id": "g-1",
        "transcript_path": path,
        "cwd": str(workspace),
        "hook_event_name": "PreCompress",
        "trigger": "auto",
    }
    queue = workspace / ".clarvis" / "state" / "queue"

    def fire(event: str, payload: dict) -> list[dict]:
        (command,) = hook_commands(settings, event)
        done = bare_shell(command, workspace, isolated_env, json.dumps(payload))
        assert done.returncode == 0, done.stderr
        assert done.stdout == b""  # exit 0: Gemini CLI reads stdout as JSON, so nothing else
        return queued_runs(queue)

    assert [run["task"] for run in fire("PreCompress", compress)] == ["run the tests"]
    runs = sorted(fire("AfterAgent", turn), key=lambda run: run["task"])
    assert [run["task"] for run in runs] == ["add a CHANGELOG entry", "run the tests"]
    run = runs[0]
    assert run["agent"]["name"] == "gemini-cli"
    assert [e["command"] for e in run["evidence"] if e["kind"] == "command"] == [
        "git log --oneline -3",
        "rm -rf build",
    ]
    assert len(fire("AfterAgent", turn)) == 2  # the cursor holds both turns
    # SessionEnd hands the payload off at once (Gemini CLI does not wait for it)
    fire("SessionEnd", {**compress, "hook_event_name": "SessionEnd", "reason": "exit"})


def test_the_installed_session_start_prints_the_context_as_gemini_json(
    workspace: Path, isolated_env: Path, cli
) -> None:
    git("init", "-q", "-b", "bun-lockfile", cwd=workspace)
    (workspace / "package.json").write_text('{"scripts": {"build": "vite build"}}')
    (workspace / "bun.lockb").write_bytes(b"")
    wiki = workspace / ".clarvis" / "memory"
    (wiki / "build" / "bun").mkdir(parents=True)
    (wiki / "PROFILE.md").write_text(PROFILE)
    (wiki / "build" / "bun" / "MEMORY.md").write_text(LEAF)
    assert cli("search", "lockfile").code == 0
    assert cli("install", "gemini").code == 0
    (command,) = hook_commands(workspace / ".gemini" / "settings.json", "SessionStart")
    payload = {
        "session_id": "g-2",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": str(workspace),
        "timestamp": "2026-08-01T10:00:00Z",
    }

    shown = bare_shell(command, workspace, isolated_env, json.dumps(payload))

    assert shown.returncode == 0 and shown.stderr == b""
    output = json.loads(shown.stdout)  # stdout is only JSON, as Gemini CLI requires
    assert list(output) == ["hookSpecificOutput"]
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = output["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("# acme-web\n") and "Lockfile drift" in text
    assert "build:legacy" not in text
    (wiki / "PROFILE.md").unlink()
    (wiki / "build" / "bun" / "MEMORY.md").unlink()
    assert cli("pause").code == 0
    quiet = bare_shell(command, workspace, isolated_env, json.dumps(payload))
    assert quiet.returncode == 0 and quiet.stdout == b""  # nothing to say: no output at all


SHELL_FAILED = {
    "session_id": "g-3",
    "transcript_path": "/home/ci/.gemini/tmp/abc/chats/session-2026-08-01T10-00-g3.json",
    "cwd": "/home/ci/web",
    "hook_event_name": "AfterTool",
    "timestamp": "2026-08-01T10:00:00Z",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "bun install --frozen-lockfile"},
    "tool_response": {
        "llmContent": "Command: bun install --frozen-lockfile\nDirectory: (root)\nOutput: bun "
        "install v1.1.30 (7b5a6c6f)\nerror: lockfile had changes, but lockfile is frozen\n"
        "note: try re-running without --frozen-lockfile and commit the updated lockfile\n"
        "Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)",
        "returnDisplay": "error: lockfile had changes, but lockfile is frozen",
    },
}


def test_gemini_in_loop_events_are_read() -> None:
    failed = read_event(SHELL_FAILED)
    assert (failed.kind, failed.command) == ("failure", "bun install --frozen-lockfile")
    assert "lockfile had changes" in failed.error
    ok = {**SHELL_FAILED, "tool_response": {"llmContent": "Output: ok\nExit Code: 0"}}
    assert read_event(ok).kind == "other"
    refused = {**SHELL_FAILED, "tool_response": {"llmContent": "", "error": "denied by policy"}}
    assert (read_event(refused).kind, read_event(refused).error) == ("failure", "denied by policy")
    assert read_event({**SHELL_FAILED, "tool_name": "read_file"}).kind == "other"
    prompt = {"hook_event_name": "BeforeAgent", "session_id": "g-3", "prompt": "bun lockfile"}
    assert read_event(prompt).kind == "prompt"


def test_the_installed_in_loop_hooks_answer_a_failure_seen_before(
    workspace: Path, isolated_env: Path, cli
) -> None:
    places = learn_from(workspace, "01-bun-lockfile.json", "06-fly-port.json")
    assert cli("install", "gemini").code == 0
    settings = workspace / ".gemini" / "settings.json"
    (command,) = hook_commands(settings, "AfterTool")
    assert hook_commands(settings, "BeforeAgent") == [command]

    shown = bare_shell(command, workspace, isolated_env, json.dumps(SHELL_FAILED))

    assert shown.returncode == 0 and shown.stderr == b""
    text = context_of(shown.stdout.decode(), "AfterTool")  # stdout is only JSON
    assert "build/bun#" in text and "bun install" in text
    assert places.state.joinpath("injections").is_dir()
    ok = {**SHELL_FAILED, "tool_response": {"llmContent": "Exit Code: 0"}}
    assert bare_shell(command, workspace, isolated_env, json.dumps(ok)).stdout == b""


def log_line(**record: object) -> str:
    return json.dumps(record) + "\n"


def test_the_jsonl_log_is_read_as_gemini_cli_loads_it(tmp_path: Path) -> None:
    """Since 0.39 the session file is a log: a message's later copy replaces it in place, a
    `$rewindTo` drops that message and all after it, a line being written is skipped."""
    shell = {"id": "c1", "name": "run_shell_command", "args": {"command": "npm test"}}
    done = {
        **shell,
        "status": "success",
        "result": [
            {
                "functionResponse": {
                    "id": "c1",
                    "name": "run_shell_command",
                    "response": {"output": "Output: ok\nExit Code: 3"},
                }
            }
        ],
    }
    text = (
        log_line(sessionId="g-1", projectHash="h", startTime="t", kind="main")
        + log_line(id="u1", type="user", content=[{"text": "run the tests"}], timestamp="1")
        + log_line(id="g1", type="gemini", content="", toolCalls=[{**shell, "status": "executing"}])
        + log_line(**{"$set": {"lastUpdated": "2"}})
        + log_line(id="g1", type="gemini", content="", toolCalls=[done])
        + log_line(id="g2", type="gemini", content="Tests fail: 3.", timestamp="3")
        + log_line(id="u2", type="user", content="delete build/", timestamp="4")
        + log_line(id="g3", type="gemini", content="Deleted.")
        + log_line(**{"$rewindTo": "u2"})  # the person rewound the second prompt away
        + log_line(id="u3", type="user", content="list build/", timestamp="5")
        + log_line(
            id="g4",
            type="gemini",
            content=[{"text": "thinking", "thought": True}, {"text": "It is empty."}],
        )
        + '{"id": "g5", "type": "gemi'  # the line Gemini CLI is writing
    )
    path = tmp_path / ".gemini" / "tmp" / "p" / "chats" / "session-2026-08-01T09-58-g1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    end = {"session_id": "g-1", "hook_event_name": "SessionEnd", "transcript_path": str(path)}

    assert is_gemini_payload(end)
    first, second = records_from_payload(end, {})

    assert (ident(first[0]), ident(second[0])) == ("u1", "u3")  # u2 and its answer are gone
    assert first[1]["result"] == "Tests fail: 3."
    assert [e for e in first[1]["evidence"] if e["kind"] == "command"] == [
        {
            "kind": "command",
            "command": "npm test",
            "exit_code": 3,
            "output": "Output: ok\nExit Code: 3",
        }
    ]
    assert second[1]["task"] == "list build/" and second[1]["result"] == "It is empty."


def test_each_call_takes_its_own_response(tmp_path: Path) -> None:
    """Some versions give every call of a message all of that message's responses (seen in
    public exports of mid-2026 sessions): each call's outcome is the response with its id. A
    finished call with no `Exit Code:` line exited 0; a tool the session lacks did not run."""
    responses = [
        {
            "functionResponse": {
                "id": "a",
                "name": "run_shell_command",
                "response": {"output": "Output: boom\nExit Code: 2"},
            }
        },
        {
            "functionResponse": {
                "id": "b",
                "name": "run_shell_command",
                "response": {"output": "Output: fine\nProcess Group PGID: 9"},
            }
        },
        {
            "functionResponse": {
                "id": "c",
                "name": "run_shell_command",
                "response": {
                    "error": 'Tool "run_shell_command" not found. Did you mean one of: "replace"?'
                },
            }
        },
    ]
    calls = [
        {
            "id": i,
            "name": "run_shell_command",
            "args": {"command": cmd},
            "status": status,
            "result": responses,
        }
        for i, cmd, status in (
            ("a", "make", "success"),
            ("b", "ls", "success"),
            ("c", "pwd", "error"),
        )
    ]
    messages = [
        {"id": "o", "type": "user", "content": [{"text": "<session_context>\nThis is..."}]},
        {"id": "u", "type": "user", "content": [{"text": "build"}], "displayContent": "build"},
        {"id": "g", "type": "gemini", "content": "", "toolCalls": calls},
        {"id": "r", "type": "user", "content": responses},  # the results: no prompt
        {"id": "g2", "type": "gemini", "content": "Done."},
    ]
    path = session_file(tmp_path, json.dumps({"messages": messages}))

    ((key, record),) = records_from_payload(example(transcript_path=str(path)), {})

    assert ident(key) == "u" and record["task"] == "add a CHANGELOG entry"  # the payload's prompt
    assert [(e["command"], e.get("exit_code"), e.get("ran")) for e in record["evidence"]] == [
        ("make", 2, None),
        ("ls", 0, None),
        ("pwd", None, False),
    ]


# A session log written by hand in the shape Gemini CLI 0.39+ writes (no licensed real one was
# found to copy; see tests/fixtures/runners/gemini/README.md): its metadata line, each message
# appended as it changes (a model message first while its calls run, then again finished), a
# `$set` of lastUpdated after each, the calls' results again as user messages, a `$rewindTo`.
LOG = FIXTURES / "session-log.jsonl"
LOG_CWD = "/home/dev/invoice-tool"
TURNS = [  # each turn's prompt id and how it ended, read off the file
    ("u-1", "succeeded"),  # a test fails (`Exit Code: 1`), an edit, the tests pass (no line)
    ("u-2", "interrupted"),  # the person denied `ruff check .`, then `Request cancelled.`
    ("u-3", "succeeded"),  # Plan Mode denied the write: no file change
    ("u-4", "succeeded"),  # two calls carrying both responses, then a write
    ("u-5", "succeeded"),  # reported, then rewound away by the person
    ("u-6", "succeeded"),  # a call of a tool the session lacks
    ("u-7", "failed"),  # an API error (429) and nothing from the model
    ("u-8", "succeeded"),  # then a slash command's error notice
]


def log_records() -> list[dict]:
    return [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]


def loaded(records: list[dict]) -> list[dict]:
    """The messages of log records as Gemini CLI loads them, read here without the adapter:
    the last copy of an id in its first place; a `$rewindTo` drops that message and all after;
    a `$set` of `messages` replaces them all."""
    messages: dict[str, dict] = {}
    for record in records:
        if "$rewindTo" in record:
            ids = list(messages)
            for gone in ids[ids.index(record["$rewindTo"]) :]:
                del messages[gone]
        elif "id" in record:
            messages[record["id"]] = record
        elif "messages" in record.get("$set", {}):  # a rewrite: the messages anew
            messages = {m["id"]: m for m in record["$set"]["messages"]}
    return list(messages.values())


def is_person(record: dict) -> bool:
    """A user message the person sent (a prompt or a mode-switch notice): not a tool's result,
    not the opening context."""
    content = record.get("content")
    return (
        record.get("type") == "user"
        and isinstance(content, list)
        and not any("functionResponse" in part for part in content)
        and not content[0].get("text", "").startswith("<session_context>")
    )


def turn_ends(records: list[dict]) -> dict[str, int]:
    """How many of the log's lines were written when each prompt's turn ended: up to the next
    message of the person's or rewind."""
    marks = [i for i, r in enumerate(records) if is_person(r) or "$rewindTo" in r]
    return {
        records[i]["id"]: next((m for m in marks if m > i), len(records))
        for i in marks
        if "id" in records[i]
    }


def write_session(path: Path, shape: str, records: list[dict], session: str) -> None:
    meta = records[0] | {"sessionId": session}
    if shape == "jsonl":
        lines = [meta, *records[1:]]
        path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    else:  # the JSON document of Gemini CLI before 0.39, and of `/export-session`
        path.write_text(json.dumps(meta | {"messages": loaded(records)}), encoding="utf-8")


@pytest.mark.parametrize("shape", ["jsonl", "document"])
def test_every_turn_of_a_session_log_is_recorded_once(
    shape: str, workspace: Path, tmp_path: Path
) -> None:
    """Replay the log as Gemini CLI fires its hooks: an AfterAgent when each turn that finished
    ends (none for a cancelled or failed one), then SessionEnd and a compression. Each turn is
    one job with its prompt, a rewound one too; every shell call is there in order, with its
    exit code or as not run; every edit that succeeded is a file change."""
    records = log_records()
    session = records[0]["sessionId"]
    ends = turn_ends(records)
    prompts = {r["id"]: r["content"][0]["text"] for r in records if is_person(r)}
    path = tmp_path / ".gemini" / "tmp" / "invoice-tool" / "chats"
    path.mkdir(parents=True)
    path /= f"session-2026-08-03T09-12-{session[:8]}.json{'l' if shape == 'jsonl' else ''}"
    places = config.places(workspace, {})
    base = {"session_id": session, "transcript_path": str(path), "cwd": LOG_CWD}

    for key, status in TURNS:
        if status != "succeeded":
            continue  # Gemini CLI fires no AfterAgent for a cancelled or failed request
        written = records[: ends[key]]
        write_session(path, shape, written, session)
        answer = [m["content"] for m in loaded(written) if m["type"] == "gemini"][-1]
        after = base | {
            "hook_event_name": "AfterAgent",
            "prompt": prompts[key],
            "prompt_response": answer,
            "stop_hook_active": False,
            "timestamp": written[-1].get("timestamp") or written[-2]["timestamp"],
        }
        assert answer and accept(places, {}, json.dumps(after).encode()).job
    write_session(path, shape, records, session)
    for event in ("SessionEnd", "PreCompress"):
        accept(places, {}, json.dumps(base | {"hook_event_name": event}).encode())
    again = accept(places, {}, json.dumps(base | {"hook_event_name": "SessionEnd"}).encode())
    assert again.job is None

    runs = sorted(
        (json.loads(job.read_text())["run"] for job in places.state.glob("queue/*/*.json")),
        key=lambda r: r["started_at"],
    )
    assert "u-5" not in [m["id"] for m in loaded(records)]  # the file holds a rewind
    assert [r["run_id"] for r in runs] == [f"{session}:{key}" for key, _ in TURNS]
    assert [r["task"] for r in runs] == [prompts[key] for key, _ in TURNS]
    assert [r.get("status") for r in runs] == [status for _, status in TURNS]
    (note,) = [e["text"] for e in runs[6]["evidence"] if e["kind"] == "note" and "API" in e["text"]]
    assert note.startswith("Gemini CLI error: [API Error:") and '"code": 429' in note
    commands = [
        (e["command"], "not run" if e.get("ran") is False else e["exit_code"])
        for r in runs
        for e in r["evidence"]
        if e["kind"] == "command"
    ]
    assert commands == [
        ("pytest -q", 1),
        ("pytest -q", 0),  # no `Exit Code:` line: Gemini CLI writes it only when not 0
        ("ruff check .", "not run"),  # the person denied it
        ("git log --oneline -1", 0),
        ("git diff --stat", 0),
        ("rm -rf build", 0),  # in the rewound turn, recorded when it ended
        ("git diff", "not run"),  # no such tool in the session
    ]
    files = [e for r in runs for e in r["evidence"] if e["kind"] == "file"]
    # the replace in turn 1 and the write in turn 4; the write Plan Mode denied is no change
    assert [e["path"] for e in files] == ["invoice/totals.py", "CHANGELOG.md"]
    assert files[0]["diff"] == "-ROUND_HALF_EVEN))\n+ROUND_HALF_UP))\n"


def test_a_crashed_gemini_session_is_picked_up_and_a_live_one_is_left_alone(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two Gemini CLI sessions with the log: the one still for an hour is handed on and its
    turns after the third are queued once; the one written a minute ago (a session running in
    another terminal) is not touched; neither is the starting one."""
    from wikimem.cli import start

    records = log_records()
    cut = turn_ends(records)["u-3"]
    places = config.places(workspace, {})
    chats = tmp_path / ".gemini" / "tmp" / "invoice-tool" / "chats"
    chats.mkdir(parents=True)
    paths = {}
    for name in ("crashed", "live"):
        session = f"{name}-{records[0]['sessionId'][8:]}"
        path = chats / f"session-2026-08-03T09-12-{name}.jsonl"
        write_session(path, "jsonl", records[:cut], session)
        after = {
            "session_id": session,
            "transcript_path": str(path),
            "cwd": LOG_CWD,
            "hook_event_name": "AfterAgent",
            "prompt": "add a CHANGELOG entry for the fix",
            "prompt_response": "Plan Mode does not let me write CHANGELOG.md.",
        }
        assert accept(places, {}, json.dumps(after).encode()).job  # its first three turns
        write_session(path, "jsonl", records, session)
        paths[name] = (session, path)
    handed = handed_on(monkeypatch)
    an_hour_on(monkeypatch, paths["crashed"][1])
    soon = time.time() + 3600 - 60  # the live one wrote a minute before the start
    os.utime(paths["live"][1], (soon, soon))
    starting = {**new_session(workspace, tmp_path, paths["live"][0]), "transcript_path": ""}

    start.context({}, starting | {"session_id": "g-new"}, False)
    start.context({}, starting | {"session_id": "g-new"}, False)

    session, path = paths["crashed"]
    assert [(h["session_id"], h["transcript_path"]) for h in handed] == [(session, str(path))]
    assert accept(places, {}, json.dumps(handed[0]).encode()).job
    assert accept(places, {}, json.dumps(handed[0]).encode()).job is None
    runs = [json.loads(job.read_text())["run"] for job in places.state.glob("queue/*/*.json")]
    crashed = sorted(r["run_id"] for r in runs if r["run_id"].startswith(session))
    # every turn the file holds; the one rewound away while no hook ran is gone with it
    assert crashed == sorted(f"{session}:{key}" for key, _ in TURNS if key != "u-5")
    assert len([r for r in runs if r["run_id"].startswith(paths["live"][0])]) == 3


def as_history(messages: list[dict], stamp: str) -> list[dict]:
    """Messages as a rewrite of the log writes them (Gemini CLI's `updateMessagesFromHistory`
    after `setHistory` of plain contents): only what the model's history holds, each with a new
    id and timestamp and only its `content`, a model message's calls as `functionCall` parts.
    Turns cancelled or failed are not there: Gemini CLI rolled them out of the history."""
    out: list[dict] = []
    for message in messages:
        if message["type"] not in ("user", "gemini"):
            continue
        content = message["content"]
        parts = content if isinstance(content, list) else [{"text": content}] if content else []
        calls = message.get("toolCalls") or []
        parts = parts + [
            {"functionCall": {"id": c["id"], "name": c["name"], "args": c["args"]}} for c in calls
        ]
        out.append({"id": str(uuid.uuid4()), "timestamp": stamp, "type": message["type"]})
        out[-1]["content"] = parts
    return out


def rolled_back(records: list[dict], keys: set[str]) -> list[dict]:
    """The loaded messages without the turns of `keys` (from each prompt to the next)."""
    kept: list[dict] = []
    dropping = False
    for message in loaded(records):
        if is_person(message):
            dropping = message["id"] in keys
        if not dropping:
            kept.append(message)
    return kept


@pytest.mark.parametrize("rewrite", ["masking", "compression"])
def test_a_rewrite_of_the_log_records_no_turn_again(
    rewrite: str, workspace: Path, tmp_path: Path
) -> None:
    """Mid-turn, Gemini CLI writes the messages anew as a `$set` of `messages`: new ids, new
    timestamps, calls as `functionCall` parts (a masking of bulky tool output keeps every turn;
    a compression keeps the latest behind a `<state_snapshot>` summary). The turns recorded
    before it are not queued again; the running turn, whose prompt repeats the failed one's,
    and a turn after the rewrite are each queued once."""
    records = log_records()
    session = records[0]["sessionId"]
    ends = turn_ends(records)
    running = ends["u-7"]  # the next record is u-8's prompt: "summarise the changes" again
    path = tmp_path / ".gemini" / "tmp" / "invoice-tool" / "chats" / "session-x.jsonl"
    path.parent.mkdir(parents=True)
    places = config.places(workspace, {})
    base = {"session_id": session, "transcript_path": str(path), "cwd": LOG_CWD}

    def fire(event: str, **fields: object) -> None:
        accept(places, {}, json.dumps(base | {"hook_event_name": event} | fields).encode())

    write_session(path, "jsonl", records[: running + 1], session)
    fire("PreCompress", trigger="auto")  # every turn but the running one
    history = rolled_back(records[: running + 1], {"u-2", "u-7"})
    if rewrite == "compression":
        summary = [
            {"type": "user", "content": "<state_snapshot>\n<overall_goal>fix</overall_goal>"},
            {"type": "gemini", "content": "Got it. Thanks for the additional context!"},
        ]
        history = history[:1] + summary + history[[m["id"] for m in history].index("u-6") :]
    anew = as_history(history, "2026-08-03T09:15:45.000Z")
    with path.open("a", encoding="utf-8") as log:
        for message in anew:  # each written as it is recorded, then the checkpoint
            log.write(json.dumps(message) + "\n")
        log.write(json.dumps({"$set": {"messages": anew, "lastUpdated": "x"}}) + "\n")
        for record in records[running + 1 : ends["u-8"]]:  # the rest of the running turn
            if record.get("type") != "user":
                log.write(json.dumps(record) + "\n")
    assert "u-8" not in [m["id"] for m in loaded(log_records_of(path))]  # its id is new
    fire("AfterAgent", prompt="summarise the changes", prompt_response="Fixed rounding.")
    with path.open("a", encoding="utf-8") as log:
        log.write(log_line(id="u-9", type="user", content=[{"text": "thanks"}], timestamp="z"))
        log.write(log_line(id="g-9", type="gemini", content="You're welcome.", timestamp="z"))
    fire("AfterAgent", prompt="thanks", prompt_response="You're welcome.")
    fire("SessionEnd", reason="exit")
    fire("PreCompress", trigger="manual")

    runs = [json.loads(job.read_text())["run"] for job in places.state.glob("queue/*/*.json")]
    tasks = sorted(r["task"] for r in runs)
    prompts = {r["id"]: r["content"][0]["text"] for r in records if is_person(r)}
    expected = [prompts[k] for k in ("u-1", "u-2", "u-3", "u-4", "u-6", "u-7", "u-8")]
    assert tasks == sorted([*expected, "thanks"])  # each once; the summary is no prompt
    again = [r.get("status") for r in runs if r["task"] == "summarise the changes"]
    assert sorted(again) == ["failed", "succeeded"]  # the failed turn, and the one retried


def log_records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_function_call_parts_are_the_turn_s_tool_calls(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """A message a rewrite wrote holds its calls as `functionCall` parts and their results as
    the next user message's `functionResponse` parts: the installed hook, run from a bare
    shell, reads them as the turn's commands and edits, each with its own response."""
    assert cli("install", "gemini").code == 0
    settings = workspace / ".gemini" / "settings.json"
    calls = [
        ("c-1", "run_shell_command", {"command": "make"}),
        ("c-2", "write_file", {"file_path": str(workspace / "NOTES.md"), "content": "x"}),
        ("c-3", "run_shell_command", {"command": "make install"}),
        ("c-4", "run_shell_command", {"command": "ls"}),
    ]
    responses = {
        "c-1": {"output": "Output: make: *** [all] Error 2\nExit Code: 2"},
        "c-2": {"output": "Successfully created and wrote to new file"},
        "c-3": {"error": "Tool execution denied by policy."},
    }  # c-4 has none yet
    messages = [
        {"id": "a", "type": "user", "content": [{"text": "build it"}], "timestamp": "t1"},
        {
            "id": "b",
            "type": "gemini",
            "timestamp": "t2",
            "content": [{"text": "Building."}]
            + [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls],
        },
        {
            "id": "c",
            "type": "user",
            "timestamp": "t3",
            "content": [
                {"functionResponse": {"id": i, "name": "run_shell_command", "response": r}}
                for i, r in responses.items()
            ],
        },
        {"id": "d", "type": "gemini", "content": [{"text": "make fails."}], "timestamp": "t4"},
    ]
    path = isolated_env / ".gemini" / "tmp" / "p" / "chats" / "session-2026-08-01T09-58-g1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(
        log_line(sessionId="g-1", projectHash="h", startTime="t0")
        + log_line(**{"$set": {"messages": messages}})
    )
    turn = example(transcript_path=str(path), cwd=str(workspace), prompt="build it")
    (command,) = hook_commands(settings, "AfterAgent")

    done = bare_shell(command, workspace, isolated_env, json.dumps(turn))

    assert done.returncode == 0, done.stderr
    (job,) = (workspace / ".clarvis" / "state" / "queue").glob("*/*.json")
    run = json.loads(job.read_text())["run"]
    assert run["task"] == "build it"
    assert [
        (e["kind"], e.get("command") or e.get("path"), e.get("exit_code"), e.get("ran"))
        for e in run["evidence"]
    ] == [
        ("command", "make", 2, None),
        ("file", "NOTES.md", None, None),
        ("command", "make install", None, False),  # refused: it did not run
        ("command", "ls", None, None),  # no response yet: no outcome
    ]


# Two real Gemini CLI sessions (the JSON document of versions before the JSONL log), as
# codemie-ai/codemie-code publishes them: see real/SOURCES.md. Neither ran a shell command.
REAL = FIXTURES / "real"
FILE_OPS = REAL / "session-2026-01-16T11-01-file-ops-37b7abef.json"
FILE_OPS_CWD = "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"
LEAD = REAL / "session-2025-12-01T21-45-5b959dae.json"
LEAD_CWD = "/Users/Jane_Smith/Documents/projects/epm-cdme/assistants"


def after_agent(path: Path, cwd: str) -> dict:
    """The AfterAgent payload (the docs' fields) for the session's last turn, with its values."""
    session = json.loads(path.read_text(encoding="utf-8"))
    messages = session["messages"]
    return example(
        session_id=session["sessionId"],
        transcript_path=str(path),
        cwd=cwd,
        timestamp=session["lastUpdated"],
        prompt=[m for m in messages if m["type"] == "user"][-1]["content"],
        prompt_response=[m for m in messages if m["type"] == "gemini"][-1]["content"],
    )


def test_a_real_session_gives_each_turn_its_prompt_answer_and_file_changes() -> None:
    runs = records_from_payload(after_agent(FILE_OPS, FILE_OPS_CWD), {})
    assert [run["task"] for _, run in runs] == [
        "show tools",
        "expore repository and figure out issues. focus on adaptability and security",
        "create hello.md file",
        "add 5 lines of random text",
        "remove 2 and 3 line",
    ]
    assert [ident(key) for key, _ in runs][-1] == "ee039ccd-6fdd-45ef-be76-3dca818a9db2"
    *earlier, (_, last) = runs
    assert last["status"] == "succeeded"
    assert last["result"] == "I have removed the 2nd and 3rd lines from `hello.md`."
    for _, run in earlier:  # installed after them: read from the file, and said so
        assert "status" not in run
        assert "no AfterAgent" in run["evidence"][0]["text"]
    assert earlier[2][1]["result"] == "I've created the `hello.md` file for you."
    files = [[e for e in run["evidence"] if e["kind"] == "file"] for _, run in runs]
    assert files[:2] == [[], []]  # read, searched and delegated: no file changed
    assert files[2] == [{"kind": "file", "path": "hello.md", "diff": "+# Hello World\n"}]
    assert files[3] == files[4] == [{"kind": "file", "path": "hello.md"}]  # overwrites
    assert not [e for _, run in runs for e in run["evidence"] if e["kind"] == "command"]


def test_a_real_subagent_s_report_is_recorded_under_its_turn() -> None:
    """The real session's second turn delegated to `codebase_investigator`: its report back
    is a note of that turn, once, named for the subagent, without Gemini CLI's own header."""
    runs = records_from_payload(after_agent(FILE_OPS, FILE_OPS_CWD), {})
    reports = [
        (n, e["text"])
        for n, (_, run) in enumerate(runs)
        for e in run["evidence"]
        if e["kind"] == "note" and e["text"].startswith("Subagent ")
    ]
    ((turn, text),) = reports
    assert turn == 1
    assert text.startswith("Subagent codebase_investigator reported: Termination Reason: GOAL")
    assert "hardcoded into their respective registries" in text and len(text) <= 2100


def test_a_real_created_then_replaced_file_has_both_diffs() -> None:
    runs = records_from_payload(after_agent(LEAD, LEAD_CWD), {})
    assert [run["task"] for _, run in runs][:2] == ["hi", "Explain what this is"]
    (_, last) = runs[-1]
    assert last["task"].startswith("Make a copy of lead_memory.txt name it as lead_gemini.txt")
    assert last["result"].startswith("I've created the `lead_gemini.txt` file")
    created, replaced = [e for e in last["evidence"] if e["kind"] == "file"]
    assert created["path"] == replaced["path"] == "lead_gemini.txt"
    assert created["diff"].startswith("+## Core Function\n+\n+Support Team Lead in managing")
    assert replaced["diff"].startswith("-## Core Function\n")
    assert "+Support Team Lead with feedback and Jira tasks using Memory MCP." in replaced["diff"]


def test_the_installed_after_agent_hook_queues_a_real_session_once(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "gemini").code == 0
    settings = workspace / ".gemini" / "settings.json"
    path = isolated_env / ".gemini" / "tmp" / "907f2064" / "chats" / FILE_OPS.name
    path.parent.mkdir(parents=True)
    path.write_bytes(FILE_OPS.read_bytes())
    turn = {**after_agent(path, FILE_OPS_CWD), "cwd": str(workspace)}
    queue = workspace / ".clarvis" / "state" / "queue"

    def fire(event: str, payload: dict) -> list[dict]:
        (command,) = hook_commands(settings, event)
        done = bare_shell(command, workspace, isolated_env, json.dumps(payload))
        assert done.returncode == 0, done.stderr
        assert done.stdout == b""
        return queued_runs(queue)

    runs = fire("AfterAgent", turn)
    assert sorted(run["task"] for run in runs)[0] == "add 5 lines of random text"
    assert len(runs) == 5
    assert len(fire("AfterAgent", turn)) == 5  # the cursor holds every turn
