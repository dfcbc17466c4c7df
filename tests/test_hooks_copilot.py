"""GitHub Copilot: the documented hook payloads and the session's event log become run records,
every turn once; `wikimem install|uninstall copilot` edit .github/hooks/wikimem.json (or the
user's $COPILOT_HOME/hooks/) byte for byte; each installed command runs from a bare
environment, as Copilot starts it, and queues the right turns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, queued_runs
from tests.test_install_cli import ENTRY
from wikimem.runners import record_from_payload, records_from_payload, session_of
from wikimem.runners.copilot import UNREPORTED, event_of, is_copilot_payload
from wikimem.wiki.instructions import END, START

FIXTURES = Path(__file__).parent / "fixtures" / "runners" / "copilot"
CWD = "/home/ci/repo"  # the event log's session folder
LINES = (FIXTURES / "events.jsonl").read_text().splitlines(keepends=True)
# the event log's turns, each by its user message's id (the cursor key)
TURNS = {"e02": "run the tests", "e11": "fix it", "e29": "deploy it"}


def payload(name: str, **changes: object) -> dict:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data.update(changes)
    return data


def event_log(home: Path, lines: int | None = None, session: str = "c-1") -> Path:
    """The fixture log (its first `lines` lines) where Copilot CLI keeps it under `home`."""
    path = home / ".copilot" / "session-state" / session / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(LINES[:lines]))
    return path


def stop(path: Path, **changes: object) -> dict:
    return payload("agent-stop.json", transcriptPath=str(path), cwd=CWD, **changes)


def test_the_documented_payloads_are_told_apart_by_their_fields() -> None:
    assert event_of(payload("agent-stop.json")) == "agentStop"
    assert event_of(payload("session-end.json")) == "sessionEnd"
    assert event_of(payload("user-prompt-submitted.json")) == "userPromptSubmitted"
    assert event_of(payload("post-tool-use.json")) == "postToolUse"
    start = {"timestamp": 1704614400000, "cwd": "/p", "source": "new", "initialPrompt": "x"}
    assert event_of(start) == "sessionStart"
    error = {"timestamp": 1, "cwd": "/p", "error": {"message": "Network timeout"}}
    assert event_of(error) == "errorOccurred"
    compact = {
        "sessionId": "c",
        "timestamp": 1,
        "cwd": "/p",
        "transcriptPath": "/t",
        "trigger": "auto",
    }
    assert event_of(compact) == "preCompact"
    sub = {**payload("agent-stop.json"), "agentName": "explore"}
    assert event_of(sub) == "subagentStop"
    failure = {"timestamp": 1, "cwd": "/p", "toolName": "bash", "toolArgs": "{}", "error": "x"}
    assert event_of(failure) == "postToolUseFailure"
    # the VS Code compatible format, which Copilot CLI sends to .claude/settings.json's hooks
    pascal = {
        "hook_event_name": "Stop",
        "session_id": "c-1",
        "transcript_path": "/home/u/.copilot/session-state/c-1/events.jsonl",
    }
    assert event_of(pascal) == "agentStop" and session_of(pascal) == "copilot-c-1"
    claude = {**pascal, "transcript_path": "/home/u/.claude/projects/p/abc.jsonl"}
    assert not is_copilot_payload(claude) and session_of(claude) == "claude-c-1"
    assert not is_copilot_payload({"task": "a run record", "cwd": "/p", "timestamp": 1})
    assert session_of(payload("agent-stop.json")) == "copilot-c-1"
    assert session_of(payload("session-end.json")) is None  # the coding agent's: no session id


def test_agent_stop_records_the_turns_from_the_event_log(tmp_path: Path) -> None:
    path = event_log(tmp_path)

    turns = records_from_payload(stop(path), {})

    assert [key for key, _ in turns] == list(TURNS)
    (_, first), (_, second), (_, third) = turns
    assert [r["task"] for _, r in turns] == list(TURNS.values())
    assert first["run_id"] == "c-1:e02"
    assert first["agent"] == {"name": "copilot", "instance_id": "c-1"}
    assert first["status"] == "succeeded"  # the model ended it with a message asking for no tool
    assert first["result"] == "One test fails: test_login expects a token key."
    (failed,) = first["evidence"]
    assert failed["command"] == "pytest -q" and failed["exit_code"] == 1  # a failure
    assert "KeyError: 'token'" in failed["output"]
    assert first["source"] == {
        "runner": "copilot",
        "event": "agentStop",
        "session_id": "c-1",
        "transcript_path": str(path),
        "cwd": CWD,
    }
    change, passed, background, denied = second["evidence"]
    assert change == {
        "kind": "file",
        "path": "src/auth.py",
        "diff": '-    return {}\n+    return {"token": token}\n',
    }
    assert (passed["command"], passed["exit_code"]) == ("pytest -q", 0)
    assert background["command"] == "npm run dev" and background["running"] is True
    assert "exit_code" not in background  # started in the background: no false exit 0
    assert denied["command"] == "git push --force" and denied["ran"] is False
    assert "Denied by preToolUse hook" in denied["output"]
    assert second["result"] == "Fixed: login now returns the token; the tests pass."
    assert third["status"] == "interrupted"
    note, deploy = third["evidence"]
    assert note["kind"] == "note" and "interrupted" in note["text"]
    assert deploy == {"kind": "command", "command": "fly deploy", "ran": False}


def test_every_turn_once_whichever_events_fire(tmp_path: Path) -> None:
    cursor: list[str] = []
    env = {"HOME": str(tmp_path)}

    def fire(event: dict, lines: int | None) -> list[str]:
        path = event_log(tmp_path, lines)
        keys = [k for k, _ in records_from_payload({**event, "cwd": CWD}, env, cursor) if k]
        cursor.extend(keys)
        assert all(isinstance(k, str) for k in keys) and path.exists()
        return keys

    prompt = {"sessionId": "c-1", "timestamp": 1, "cwd": CWD, "prompt": "fix it"}
    # a build without agentStop (the coding agent documents none): the next prompt closes
    # the finished turn
    assert fire(prompt, 10) == ["e02"]
    # the prompt's own user message already written: it is not a turn to close yet
    assert fire(prompt, 11) == []
    # a message queued while the turn runs (tool calls pending) does not close it
    assert fire({**prompt, "prompt": "also the docs"}, 20) == []
    assert fire(stop(event_log(tmp_path, 28)), 28) == ["e11"]
    # a compaction leaves the running turn to its agentStop, unless it was interrupted
    compact = {"sessionId": "c-1", "timestamp": 2, "transcriptPath": "", "trigger": "auto"}
    assert fire(compact, 32) == []
    assert fire(compact, None) == ["e29"]
    end = {"sessionId": "c-1", "timestamp": 3, "reason": "user_exit"}
    assert fire(end, None) == []
    assert fire(stop(event_log(tmp_path)), None) == []


def test_the_first_fire_of_a_prompt_records_the_turns_before_it(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    event_log(tmp_path, 10)
    prompt = {"sessionId": "c-1", "timestamp": 1, "cwd": CWD, "prompt": "fix it"}
    ((key, record),) = records_from_payload(prompt, env)
    assert key == "e02" and record["status"] == "succeeded"
    assert record["source"]["event"] == "userPromptSubmitted"


def test_session_end_finds_the_log_and_says_what_it_does_not_know(tmp_path: Path) -> None:
    event_log(tmp_path, 32)  # the last turn mid-call, with no abort and no end
    end = {"sessionId": "c-1", "timestamp": 3, "cwd": CWD, "reason": "user_exit"}

    turns = records_from_payload(end, {"HOME": str(tmp_path)}, ["e02", "e11"])

    ((key, record),) = turns
    assert key == "e29" and "status" not in record
    note, deploy = record["evidence"]
    assert note == {"kind": "note", "text": UNREPORTED}
    assert deploy["running"] is True and "exit_code" not in deploy
    failed = records_from_payload({**end, "reason": "error"}, {"HOME": str(tmp_path)}, ["e02"])
    assert [r.get("status") for _, r in failed] == ["succeeded", "failed"]
    # $COPILOT_HOME, as Copilot CLI reads it, comes first
    moved = tmp_path / "elsewhere"
    path = event_log(tmp_path, None, "c-2")
    (moved / "session-state" / "c-2").mkdir(parents=True)
    path.rename(moved / "session-state" / "c-2" / "events.jsonl")
    env = {"HOME": str(tmp_path), "COPILOT_HOME": str(moved)}
    assert len(records_from_payload({**end, "sessionId": "c-2"}, env)) == 3


@pytest.mark.parametrize("session", ["../../c-1", "../c-1", "/etc", ".hidden", ""])
def test_a_session_id_is_never_a_path(tmp_path: Path, session: str) -> None:
    log = tmp_path / "a" / "c-1" / "events.jsonl"  # where "../../c-1" would lead
    log.parent.mkdir(parents=True)
    log.write_text("".join(LINES))
    env = {"COPILOT_HOME": str(tmp_path / "a" / "x")}
    end = {"sessionId": session, "timestamp": 3, "cwd": CWD, "reason": "complete"}
    assert records_from_payload(end, env) == []
    assert len(records_from_payload(stop(log), env)) == 3  # the log itself reads


def test_a_missing_or_broken_log_records_nothing_and_never_raises(tmp_path: Path) -> None:
    assert records_from_payload(stop(tmp_path / "gone.jsonl"), {}) == []
    broken = tmp_path / "events.jsonl"
    broken.write_text(
        'not json\n[1]\n{"type":"user.message","id":"u","data":"x"}\n'
        '{"type":"assistant.message","data":{"toolRequests":[null,{"toolCallId":"t",'
        '"name":"bash","arguments":"{\\"command\\": \\"make\\"}"}]}}\n'
        '{"type":"tool.execution_complete","data":{"toolCallId":"t","success":false,'
        '"error":{"message":"make: *** No rule","code":"failure"}}}\n'
        '{"type":"tool.execution_complete","data":{"toolCallId":7}}\n'
    )
    ((key, record),) = records_from_payload(stop(broken), {})
    assert key == "u" and record["task"] == "Copilot session in repo"
    (make,) = record["evidence"]
    assert make["command"] == "make" and make["exit_code"] == 1  # failed, no code: a failure
    assert make["output"].startswith("(Copilot reported this call failed, with no exit code)")
    for name in ("session-end.json", "user-prompt-submitted.json", "post-tool-use.json"):
        assert record_from_payload(payload(name), {"HOME": str(tmp_path)}) is None


def test_the_hook_path_imports_no_heavy_dependency(tmp_path: Path) -> None:
    data = stop(event_log(tmp_path))
    code = (
        "import json, sys\n"
        "from wikimem.runners import record_from_payload\n"
        f"p = json.loads({json.dumps(json.dumps(data))})\n"
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


def handler(timeout: int, command: str = "wikimem hook", powershell: bool = True) -> dict:
    found = {"type": "command", "bash": command}
    if powershell:
        found["powershell"] = command
    return {**found, "timeoutSec": timeout}


WANTED = {"agentStop": 30, "userPromptSubmitted": 30, "preCompact": 30, "sessionEnd": 60}
WANTED["sessionStart"] = 30


def test_install_writes_a_committable_hooks_file_and_is_idempotent(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    hooks = workspace / ".github" / "hooks" / "wikimem.json"

    first = cli("install", "copilot")

    assert first.code == 0, first.err
    assert first.out.startswith(f"wrote {hooks}:\n  agentStop: wikimem hook\n")
    assert "copilot-setup-steps.yml" in first.out
    assert json.loads(hooks.read_text()) == {
        "version": 1,
        "hooks": {event: [handler(timeout)] for event, timeout in WANTED.items()},
    }
    assert str(Path.home()) not in hooks.read_text()  # no personal path: it is committed
    status = git("status", "--porcelain", "--untracked-files=all", cwd=workspace)
    # not kept out of git: both are for Copilot to read from the repository
    assert status == "?? .github/copilot-instructions.md\n?? .github/hooks/wikimem.json\n"
    before = hooks.read_bytes()
    assert cli("install", "copilot").out.startswith(f"already installed in {hooks}\n")
    assert hooks.read_bytes() == before


def test_user_scope_honours_copilot_home(
    workspace: Path, isolated_env: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("install", "copilot", "--user").code == 0
    mine = json.loads((isolated_env / ".copilot" / "hooks" / "wikimem.json").read_text())
    assert mine["hooks"]["agentStop"] == [handler(30, f"{ENTRY} hook", powershell=False)]
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot-home"))
    assert cli("install", "copilot", "--user", "--command", "wikimem").code == 0
    moved = json.loads((tmp_path / "copilot-home" / "hooks" / "wikimem.json").read_text())
    assert moved["hooks"]["sessionEnd"] == [handler(60)]
    assert not (workspace / ".github").exists()
    shared = cli("install", "copilot", "--command", "/opt/wikimem/bin/wikimem")
    assert shared.code == 0 and "meant to be committed" in shared.err


def test_uninstall_gives_the_file_back_byte_for_byte(workspace: Path, cli) -> None:
    hooks = workspace / ".github" / "hooks" / "wikimem.json"
    hooks.parent.mkdir(parents=True)
    mine = (
        '{\n\t"version": 1,\n\t"hooks": {\n\t\t"sessionEnd": [\n'
        '\t\t\t{"type": "command", "bash": "./scripts/log.sh", "timeoutSec": 5}\n'
        "\t\t]\n\t}\n}"  # tabs, no final newline
    )
    hooks.write_text(mine)

    assert cli("install", "copilot").code == 0
    ends = json.loads(hooks.read_text())["hooks"]["sessionEnd"]
    assert [h["bash"] for h in ends] == ["./scripts/log.sh", "wikimem hook"]
    result = cli("uninstall", "copilot")

    assert result.out == (
        "removed sessionEnd, agentStop, userPromptSubmitted, preCompact, sessionStart"
        f" from {hooks}\n"
        f"removed the memory's profile from {workspace / '.github' / 'copilot-instructions.md'}\n"
    )
    assert hooks.read_text() == mine
    assert cli("uninstall", "copilot").out == f"nothing to remove in {hooks}\n"


def test_install_then_uninstall_leaves_no_trace(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    (workspace / ".github" / "hooks").mkdir(parents=True)
    other = workspace / ".github" / "hooks" / "audit.json"
    other.write_text('{"version": 1, "hooks": {}}\n')
    assert cli("install", "copilot").code == 0
    assert cli("uninstall", "copilot").code == 0
    assert sorted(p.name for p in (workspace / ".github" / "hooks").iterdir()) == ["audit.json"]
    other.unlink()
    assert cli("install", "copilot").code == 0
    assert cli("uninstall", "copilot").code == 0
    assert not (workspace / ".github").exists()  # emptied folders go too
    assert git("status", "--porcelain", "--untracked-files=all", cwd=workspace) == ""


def copilot_shell(
    command: str, cwd: Path, home: Path, stdin: str, path: str
) -> subprocess.CompletedProcess:
    """`command` through bash with nothing but PATH and HOME, as Copilot runs a hook's `bash`."""
    env = {
        "PATH": path,
        "HOME": str(home),
        "WIKIMEM_HOME": str(home / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }
    return subprocess.run(
        ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), "bash", "-c", command],
        cwd=cwd,
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
    )


def test_each_installed_hook_queues_the_right_turns_without_the_venv(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "copilot").code == 0
    config = json.loads((workspace / ".github" / "hooks" / "wikimem.json").read_text())
    queue = workspace / ".clarvis" / "state" / "queue"
    tools = str(Path(ENTRY).parent)  # wikimem installed as a tool: on PATH, its venv not active
    session = {"sessionId": "c-1", "cwd": str(workspace)}

    def fire(event: str, data: dict, lines: int | None = None) -> list[dict]:
        event_log(isolated_env, lines)
        (entry,) = config["hooks"][event]
        done = copilot_shell(
            entry["bash"], workspace, isolated_env, json.dumps(data), f"{tools}:/usr/bin:/bin"
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == b""  # agentStop reads stdout as a decision: nothing at all
        return queued_runs(queue)

    start = {**session, "timestamp": 1, "source": "new", "initialPrompt": "fix it"}
    assert fire("sessionStart", start) == []  # a new session: nothing to record
    prompt = {**session, "timestamp": 2, "prompt": "deploy it"}
    runs = fire("userPromptSubmitted", prompt, 28)
    assert sorted(run["task"] for run in runs) == ["fix it", "run the tests"]
    (tests,) = [run for run in runs if run["task"] == "run the tests"]
    (failed,) = [e for e in tests["evidence"] if e["kind"] == "command"]
    assert (failed["command"], failed["exit_code"]) == ("pytest -q", 1)  # a failure, recorded
    stopped = {**session, "timestamp": 3, "transcriptPath": "", "stopReason": "end_turn"}
    assert len(fire("agentStop", stopped, 28)) == 2  # the cursor holds both
    compact = {**session, "timestamp": 4, "transcriptPath": "", "trigger": "auto"}
    runs = fire("preCompact", compact)
    assert len(runs) == 3
    (deploy,) = [run for run in runs if run["task"] == "deploy it"]
    assert deploy["status"] == "interrupted"
    end = {**session, "timestamp": 5, "reason": "user_exit"}
    assert len(fire("sessionEnd", end)) == 3
    # without wikimem on PATH the hook cannot run: what the docs tell the person to fix
    (entry,) = config["hooks"]["sessionEnd"]
    bare = copilot_shell(entry["bash"], workspace, isolated_env, "{}", "/usr/bin:/bin")
    assert bare.returncode == 127


PROFILE = """---
title: acme-web
summary: Web shop front end built with Bun.
updated: 2026-11-28
---
# acme-web

<!-- wikimem:begin -->
## Topics

- [build](build/TOPIC.md) — How the web app is built. (1 leaf)
<!-- wikimem:end -->
"""


def test_the_profile_goes_where_copilot_reads_instructions_and_leaves_byte_for_byte(
    workspace: Path, cli
) -> None:
    wiki = workspace / ".clarvis" / "memory"
    wiki.mkdir()
    (wiki / "PROFILE.md").write_text(PROFILE)
    instructions = workspace / ".github" / "copilot-instructions.md"
    instructions.parent.mkdir()
    mine = "# Conventions\n\nUse tabs."  # a person's own, with no final newline
    instructions.write_text(mine)

    result = cli("install", "copilot")

    assert result.code == 0 and str(instructions) in result.out
    text = instructions.read_text()
    assert text.startswith(mine + "\n" + START + "\n## Project memory\n")
    assert "`.clarvis/memory/PROFILE.md`" in text
    assert "Web shop front end built with Bun." in text
    assert "### Topics\n\n- [build](build/TOPIC.md)" in text  # its headings under the block's
    assert text.endswith(END)  # no final newline, as the person's file had none
    assert cli("install", "copilot").code == 0
    assert instructions.read_text() == text  # idempotent
    assert cli("uninstall", "copilot").code == 0
    assert instructions.read_text() == mine
    instructions.unlink()
    assert cli("install", "copilot").code == 0
    assert instructions.read_text().startswith(START) and instructions.read_text().endswith("\n")
    assert cli("uninstall", "copilot").code == 0
    assert not (workspace / ".github").exists()
    assert cli("install", "copilot", "--user").code == 0
    assert not instructions.exists()  # a personal install leaves the repository alone


def test_each_pass_keeps_the_profile_in_step(workspace: Path, tmp_path: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    assert cli("init").code == 0
    assert cli("install", "copilot").code == 0
    instructions = workspace / ".github" / "copilot-instructions.md"
    before = instructions.read_text()
    assert "Nothing remembered yet" in before
    (instructions.parent / "notes.md").write_text("x")  # something of the person's beside it
    record = tmp_path / "run.json"
    record.write_text(
        json.dumps(
            {
                "task": "fix the build",
                "status": "succeeded",
                "memory": [
                    {
                        "path": "build/bun",
                        "title": "Lockfile drift",
                        "content": "Run `bun install` and commit `bun.lockb` when it drifts.",
                    }
                ],
            }
        )
    )

    assert cli("enqueue", str(record)).code == 0
    assert cli("index").code == 0  # a pass: offline rules keep the explicit candidate

    after = instructions.read_text()
    assert "Nothing remembered yet" not in after and "(build/TOPIC.md)" in after
    assert after.startswith(START + "\n") and after.endswith(END + "\n")
    assert (instructions.parent / "notes.md").read_text() == "x"


def test_a_payload_naming_no_session_reads_the_newest_log_of_its_folder(tmp_path: Path) -> None:
    import os

    mine = event_log(tmp_path, None, "older")
    other = event_log(tmp_path, None, "newer")
    other.write_text(other.read_text().replace(CWD, "/home/ci/elsewhere", 1))
    os.utime(mine, (1_000_000, 1_000_000))  # the other session's log is the newest
    end = {**payload("session-end.json"), "cwd": CWD}  # the docs' example: no sessionId

    turns = records_from_payload(end, {"HOME": str(tmp_path)})

    assert [key for key, _ in turns] == list(TURNS)
    assert turns[0][1]["source"]["transcript_path"] == str(mine)
    assert turns[0][1]["run_id"] == "c-1:e02"  # the session the log names
    assert session_of(end) is None  # no cursor: the queue dedups by run id
    assert records_from_payload({**end, "cwd": "/home/ci/third"}, {"HOME": str(tmp_path)}) == []


def test_copilot_running_claude_code_hooks_shares_the_session_s_cursor(tmp_path: Path) -> None:
    """Copilot CLI also runs .claude/settings.json's hooks, in the VS Code compatible format:
    the same session, the same turn keys, so both installs record each turn once."""
    path = event_log(tmp_path)
    pascal = {
        "hook_event_name": "Stop",
        "session_id": "c-1",
        "timestamp": "2026-08-01T10:02:05Z",
        "cwd": CWD,
        "transcript_path": str(path),
        "stop_reason": "end_turn",
    }
    assert session_of(pascal) == session_of(stop(path)) == "copilot-c-1"
    keys = [k for k, _ in records_from_payload(pascal, {})]
    assert keys == [k for k, _ in records_from_payload(stop(path), {})] == list(TURNS)
    assert records_from_payload(pascal, {}, keys) == []


def test_a_subagent_s_calls_are_recorded_under_the_parent_as_its(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    events = [
        {"type": "user.message", "id": "u1", "data": {"content": "find the flaky test"}},
        {
            "type": "tool.execution_start",
            "data": {
                "toolCallId": "task-1",
                "toolName": "task",
                "arguments": {"agent_type": "explore", "prompt": "look for flaky tests"},
            },
        },
        {
            "type": "tool.execution_start",
            "data": {
                "toolCallId": "b1",
                "toolName": "bash",
                "arguments": {"command": "pytest -q --count 3"},
                "parentToolCallId": "task-1",
            },
        },
        {
            "type": "tool.execution_complete",
            "data": {
                "toolCallId": "b1",
                "success": True,
                "result": {"content": "1 failed\n<exited with exit code 1>"},
            },
        },
        {
            "type": "tool.execution_complete",
            "data": {"toolCallId": "task-1", "success": True, "result": {"content": "test_x"}},
        },
        {"type": "assistant.message", "data": {"content": "test_x is flaky.", "toolRequests": []}},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in events))

    ((_, record),) = records_from_payload(stop(log), {})

    report, command = record["evidence"]
    assert report == {"kind": "note", "text": "the explore subagent reported: test_x"}
    assert command["command"] == "pytest -q --count 3" and command["exit_code"] == 1
    assert command["subagent"] == "explore"
    assert record["result"] == "test_x is flaky."


# A real Copilot CLI 1.0.76 session (`copilot -p ... --output-format json`, the same events its
# events.jsonl holds): one prompt that loads two skills (each a `user.message` Copilot injects,
# `source: skill-...`), 14 bash calls whose exit codes are in `shell_exit` blocks and
# `<shellId: N completed with exit code M>` lines, three of them 1, then an abort.
REAL = FIXTURES / "real" / "copilot-cli-1.0.76-shepherd-task.jsonl"
REAL_SESSION = "1402e0e2-bfa1-4118-8169-1665f1f04b04"
REAL_CWD = (
    "/home/edburns/workareas/copilot-sdk/1917-java-embed-rust-cli-runtime-remove-before-merge"  # noqa: E501
)


def real_log(home: Path) -> Path:
    path = home / ".copilot" / "session-state" / REAL_SESSION / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(REAL.read_bytes())
    return path


def test_a_real_session_is_one_turn_with_every_command_and_its_exit_code(tmp_path: Path) -> None:
    path = real_log(tmp_path)
    data = {"sessionId": REAL_SESSION, "timestamp": 1785376802733, "cwd": REAL_CWD}
    runs = records_from_payload(
        {**data, "transcriptPath": str(path), "stopReason": "end_turn"}, {"HOME": str(tmp_path)}
    )
    (key, run), *rest = runs
    assert rest == []  # the skills' injected instructions start no turn of their own
    assert key == "fbd95f73-9158-45c1-8a8b-94be477c8ea6"
    assert run["task"].startswith("Invoke skill `shepherd-task-from-ready-to-merged-to-base`")
    assert "PR_NUMBER: 2152" in run["task"]
    assert run["status"] == "interrupted"  # the log ends in two aborts (user_initiated)
    assert run["result"] == "**Step 20: Close the task issue.**"
    commands = [e for e in run["evidence"] if e["kind"] == "command"]
    assert len(commands) == 14
    assert [c["exit_code"] for c in commands] == [0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0]
    merges = [(c["command"], c["exit_code"]) for c in commands if "pr merge" in c["command"]]
    assert merges == [
        ("gh pr merge 2152 -R github/copilot-sdk --merge --delete-branch 2>&1", 1),
        ("gh pr merge 2152 -R github/copilot-sdk --squash --delete-branch 2>&1", 0),
    ]
    assert "Merge commits are not allowed" in commands[11]["output"]
    assert commands[-1]["command"] == "gh issue close 2144 -R github/copilot-sdk 2>&1"
    assert not any(c.get("running") or c.get("ran") is False for c in commands)
    assert not [e for e in run["evidence"] if e["kind"] == "file"]  # it changed no file
    assert (run["started_at"], run["ended_at"]) == (
        "2026-07-30T01:58:09.450Z",
        "2026-07-30T02:00:02.733Z",
    )
    # the session's end finds the turn in the cursor: nothing twice
    end = {**data, "reason": "user_exit"}
    assert records_from_payload(end, {"HOME": str(tmp_path)}, [key]) == []


def test_the_installed_agent_stop_hook_queues_the_real_session_once(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "copilot").code == 0
    config = json.loads((workspace / ".github" / "hooks" / "wikimem.json").read_text())
    queue = workspace / ".clarvis" / "state" / "queue"
    tools = str(Path(ENTRY).parent)
    real_log(isolated_env)
    session = {"sessionId": REAL_SESSION, "cwd": str(workspace)}

    def fire(event: str, data: dict) -> list[dict]:
        (entry,) = config["hooks"][event]
        done = copilot_shell(
            entry["bash"], workspace, isolated_env, json.dumps(data), f"{tools}:/usr/bin:/bin"
        )
        assert done.returncode == 0, done.stderr
        return queued_runs(queue)

    stopped = {**session, "timestamp": 1785376802733, "transcriptPath": ""}
    stopped["stopReason"] = "end_turn"
    (run,) = fire("agentStop", stopped)
    assert run["status"] == "interrupted"
    assert sum(e["kind"] == "command" for e in run["evidence"]) == 14
    assert len(fire("sessionEnd", {**session, "timestamp": 1785376802800, "reason": "abort"})) == 1


# A second real session (Copilot CLI 1.0.77, same repository): one prompt and three skills'
# injected instructions, 26 bash calls (exit 1 four times), two apply_patch calls that change
# two files, and a shell that outlives its wait, whose id Copilot assigns ("22") and whose end
# a read_bash call reads (exit 1).
REVIEW = FIXTURES / "real" / "copilot-cli-1.0.77-review-fixes.jsonl"
WORKTREE = "/home/edburns/workareas/review-copilot-pr-2173/java/sdk/src/"


def review_lines(lines: int | None = None) -> list[str]:
    return REVIEW.read_text().splitlines(keepends=True)[:lines]


def review_run(tmp_path: Path, lines: list[str]) -> dict:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(lines))
    data = {"sessionId": "ceca8a72", "timestamp": 1, "cwd": REAL_CWD, "transcriptPath": str(path)}
    ((_, run),) = records_from_payload({**data, "stopReason": "end_turn"}, {})
    return run


def test_a_real_session_s_patches_and_a_shell_read_later_are_recorded(tmp_path: Path) -> None:
    run = review_run(tmp_path, review_lines())
    assert run["task"].startswith("Invoke skill `shepherd-task-from-ready-to-merged-to-base`")
    assert "TASK_ISSUE: 2168" in run["task"]
    assert run["status"] == "succeeded"
    assert run["result"].startswith("**SHEPHERD FAILED:** Copilot’s follow-up review did not post")
    commands = [e for e in run["evidence"] if e["kind"] == "command"]
    assert len(commands) == 26
    codes = [c.get("exit_code") for c in commands]
    assert [i for i, code in enumerate(codes) if code != 0] == [1, 2, 17, 22]
    waited = commands[22]  # outlived its 600 s wait; read_bash of shell 22 gave its end
    assert waited["command"].startswith("SINCE='2026-07-30T20:14:00Z'; TIMEOUT=600")
    assert "follow-up review did not post within 10 minutes" in waited["output"]
    assert not any(c.get("running") for c in commands)
    files = [e for e in run["evidence"] if e["kind"] == "file"]
    assert [f["path"].removeprefix(WORKTREE) for f in files] == [
        "main/java/com/github/copilot/ffi/PlatformDetector.java",
        "test/java/com/github/copilot/ffi/PlatformDetectorTest.java",
        "test/java/com/github/copilot/ffi/PlatformDetectorTest.java",
    ]  # the two files the session's own result line lists as modified
    assert files[0]["diff"].startswith("*** Update File: /home/edburns/")
    assert "+    private static final int ELF32_PROGRAM_HEADER_SIZE = 32;\n" in files[0]["diff"]
    assert "*** Update File" not in files[0]["diff"].partition("\n")[2]  # its own section only


def test_a_shell_still_running_when_the_log_ends_is_running_not_exit_0(tmp_path: Path) -> None:
    lines = review_lines()
    cut = next(i for i, line in enumerate(lines) if "shellId: 22 is still running" in line)
    run = review_run(tmp_path, lines[: cut + 1])  # the log as a crash then would leave it
    *_, last = [e for e in run["evidence"] if e["kind"] == "command"]
    assert last["running"] is True and "exit_code" not in last
    # stopped with stop_bash instead (a call in the shape Copilot CLI logs it): no exit code
    stop = [
        {"type": "tool.execution_start", "data": {"toolCallId": "s-1", "toolName": "stop_bash",
         "arguments": {"shellId": "22"}}, "id": "x-1", "timestamp": "2026-07-30T20:30:00.000Z"},
        {"type": "tool.execution_complete", "data": {"toolCallId": "s-1", "success": True,
         "result": {"content": "<command with id: 22 stopped>"}}, "id": "x-2",
         "timestamp": "2026-07-30T20:30:01.000Z"},
    ]  # fmt: skip
    run = review_run(tmp_path, [*lines[: cut + 1], *(json.dumps(e) + "\n" for e in stop)])
    *_, last = [e for e in run["evidence"] if e["kind"] == "command"]
    assert "exit_code" not in last and not last.get("running")
    assert last["output"].startswith("(stopped with stop_bash before it finished")
