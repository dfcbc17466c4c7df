"""Cursor: a turn's hook payloads (the docs' own examples) become one run record when it stops,
every turn once through the session's cursor; `wikimem install|uninstall cursor` edit
.cursor/hooks.json byte for byte; every installed command runs from a bare shell, as Cursor
starts it, and the turn is queued once with its prompt, command, edit and reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import git, queued_runs
from tests.test_install_cli import ENTRY, PROFILE
from wikimem.intake.accept import HANDED
from wikimem.runners import record_from_payload, records_from_payload, session_of
from wikimem.runners.claude import is_claude_payload
from wikimem.runners.cursor_agent import (
    EARLIER,
    QUEUE_ONLY,
    is_cursor_payload,
    queued_later,
    records_from_cursor,
)

FIXTURES = Path(__file__).parent / "fixtures" / "runners" / "cursor"
DOCS_ROOT = "/path/to/project"  # the docs' example workspace root


def turn(root: Path, **changes: object) -> list[dict]:
    """The docs' example turn, event by event, in the workspace `root`."""
    text = (FIXTURES / "turn.json").read_text(encoding="utf-8").replace(DOCS_ROOT, str(root))
    payloads = json.loads(text)
    for payload in payloads:
        payload.update(changes)
    return payloads


def replay(payloads: list[dict], recorded: list[str]) -> list[tuple[str | None, dict]]:
    """Each payload through the adapter as the hook would, the cursor moving as it queues."""
    out = []
    for payload in payloads:
        records = records_from_payload(payload, {}, recorded)
        recorded.extend(key for key, _ in records if key)
        out.extend(records)
    return out


def next_prompt(root: Path, generation: str = "gen-999") -> dict:
    """The first hook of a later turn: it closes the turns before it."""
    payload = turn(root, generation_id=generation)[1]
    return {**payload, "prompt": "and now the docs"}


def session_cursor(workspace: Path, conversation: str) -> list[str]:
    """The turns the conversation's cursor holds (queued)."""
    from wikimem.runners.cursor import cursor_path

    path = cursor_path(workspace / ".clarvis" / "state", f"cursor-{conversation}")
    try:
        return json.loads(path.read_text())["recorded"]
    except (OSError, ValueError, KeyError):
        return []


def queued_by_a_detached_hook(workspace: Path, conversation: str, *turns: str) -> None:
    """Wait for the detached `wikimem hook` a Cursor hook handed its closed turns to: until the
    conversation's cursor holds `turns` (it moves only once they are queued)."""
    end = time.monotonic() + 60
    while not set(turns) <= set(session_cursor(workspace, conversation)):
        assert time.monotonic() < end, f"no detached hook queued {turns} of {conversation}"
        time.sleep(0.02)


def test_the_docs_turn_becomes_one_run_once_a_later_turn_begins(workspace: Path) -> None:
    *gathering, stop = turn(workspace)
    recorded: list[str] = []
    assert replay(gathering, recorded) == []  # each only adds to its turn
    assert replay([stop], recorded) == []  # a reply of the turn may still come

    ((key, record),) = records_from_payload(next_prompt(workspace), {})

    assert key == "gen-456" and record["run_id"] == "conv-123:gen-456"
    assert record["task"] == "Fix the bug in main.ts"
    assert record["result"] == "Fixed: foo is now 2, and express is installed."
    assert record["status"] == "succeeded"
    assert record["agent"] == {"name": "cursor", "instance_id": "conv-123"}
    assert record["evidence"] == [
        {"kind": "command", "command": "npm install express", "output": "added 64 packages in 2s"},
        {"kind": "file", "path": "main.ts", "diff": "-const foo = 1\n+const foo = 2\n"},
    ]
    assert record["source"]["cursor_version"] == "2.0.77"
    assert record["source"]["event"] == "beforeSubmitPrompt"
    assert record["started_at"] <= record["ended_at"]


def test_every_turn_once_whichever_events_fire(workspace: Path) -> None:
    first = turn(workspace)
    second = turn(workspace, generation_id="gen-457")
    second[1]["prompt"] = "now run the tests"
    second[2].update(command="npm test", output="1 failing")
    second[-1]["status"] = "aborted"
    third = turn(workspace, generation_id="gen-458")
    third[1]["prompt"] = "try again"
    recorded: list[str] = []

    # the first turn's stop never fires (Cursor quit); the second is stopped by the person:
    # its stop records the first, unreported, and leaves its own turn open
    done = replay(first[1:-1] + second[1:], recorded)

    assert [(k, r["task"]) for k, r in done] == [("gen-456", "Fix the bug in main.ts")]
    ((_, unreported),) = done
    assert "status" not in unreported and "no Cursor stop hook" in unreported["evidence"][0]["text"]
    # the third turn's prompt closes the second
    ((key, stopped),) = replay(third[1:3], recorded)
    assert key == "gen-457" and stopped["status"] == "interrupted"
    assert [e["command"] for e in stopped["evidence"] if e["kind"] == "command"] == ["npm test"]
    assert stopped["result"] == "Fixed: foo is now 2, and express is installed."
    # a compaction mid-turn leaves the running turn open, and so does its stop
    assert replay([{**third[-1], "hook_event_name": "preCompact"}], recorded) == []
    assert replay([third[-1]], recorded) == []
    ((key, quiet),) = replay([{**third[-1], "hook_event_name": "sessionEnd"}], recorded)
    assert key == "gen-458" and quiet["status"] == "succeeded"  # as its stop said
    assert replay([{**third[-1], "hook_event_name": "sessionEnd"}], recorded) == []
    assert replay([first[-1], second[-1]], recorded) == []  # a repeated stop: already queued
    # the scratch file holds only turns not queued yet: none
    assert not list((workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl"))


def test_session_end_records_the_turn_no_stop_reported(workspace: Path) -> None:
    payloads = turn(workspace)
    end = {**payloads[-1], "hook_event_name": "sessionEnd", "reason": "window_close"}
    del end["status"]

    ((key, record),) = replay(payloads[1:-1] + [end], [])

    assert key == "gen-456" and "status" not in record
    assert record["result"].startswith("Fixed")


def test_the_shapes_of_real_cursor_2_7_payloads(workspace: Path) -> None:
    """A turn in the shapes a public log of real Cursor 2.7 payloads shows (fixture README):
    no stop fired; sessionEnd's final_status gives the last turn's outcome."""
    text = (FIXTURES / "real-shapes.json").read_text(encoding="utf-8")
    payloads = json.loads(text.replace(DOCS_ROOT, str(workspace)))
    end = payloads[-1]
    assert is_cursor_payload(end) and session_of(end) == f"cursor-{end['conversation_id']}"

    ((key, record),) = replay(payloads, [])

    assert key == end["generation_id"]
    assert record["task"] == "run the web app"
    assert record["status"] == "succeeded"  # final_status: completed
    assert record["source"]["event"] == "sessionEnd"
    # beforeShellExecution is not installed (afterShellExecution carries the output): no command
    assert record["evidence"] == [
        {
            "kind": "file",
            "path": "src/Welcome.tsx",
            "diff": "+      color: theme.colors.success.text,\n",
        }
    ]
    without = {k: v for k, v in end.items() if k != "final_status"}
    ((_, unknown),) = replay(payloads[:-1] + [without], [])
    assert "status" not in unknown and "no Cursor stop hook" in unknown["evidence"][0]["text"]


def test_a_payload_outside_any_project_costs_only_the_evidence(tmp_path: Path) -> None:
    *gathering, stop = turn(tmp_path / "nowhere")
    assert replay(gathering, []) == []
    ((_, record),) = records_from_payload(stop, {})
    assert record["task"] == "Cursor conversation in nowhere" and record["evidence"] == []
    assert record["status"] == "succeeded"


def test_a_broken_scratch_file_is_skipped_not_fatal(workspace: Path) -> None:
    *gathering, stop = turn(workspace)
    replay([*gathering, stop], [])
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    with scratch.open("a") as handle:
        handle.write('{"e": "afterShellExecution", "g": "gen-456", "command": \n[1]\n{"g": 3}\n')
    ((_, record),) = records_from_payload({**stop, "hook_event_name": "sessionEnd"}, {})
    assert [e["kind"] for e in record["evidence"]] == ["command", "file"]


def test_detection_and_dispatch(workspace: Path) -> None:
    *gathering, stop = turn(workspace)
    assert is_cursor_payload(stop) and session_of(stop) == "cursor-conv-123"
    replay(gathering, [])
    assert record_from_payload({**stop, "hook_event_name": "sessionEnd"}, {})["agent"] == {
        "name": "cursor",
        "instance_id": "conv-123",
    }
    # sessionStart, and events wikimem does not install, record nothing
    for event in ("sessionStart", "beforeShellExecution", "afterAgentThought"):
        assert records_from_cursor({**stop, "hook_event_name": event}, {}) == []
    claude = {"session_id": "s", "hook_event_name": "Stop", "transcript_path": "/t/a.jsonl"}
    assert not is_cursor_payload(claude) and is_claude_payload(claude)
    copilot = {"sessionId": "s", "hook_event_name": "sessionStart", "cwd": "/w"}
    assert not is_cursor_payload(copilot)


def test_the_hook_path_imports_no_heavy_dependency(tmp_path: Path) -> None:
    stop = turn(tmp_path / "nowhere")[-1]  # no workspace to keep the turn open in: recorded
    code = (
        "import json, sys\n"
        "from wikimem.runners import record_from_payload\n"
        f"p = json.loads({json.dumps(json.dumps(stop))})\n"
        "assert record_from_payload(p, {})['status'] == 'succeeded'\n"
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


def commands(path: Path, event: str) -> list[str]:
    return [h["command"] for h in json.loads(path.read_text())["hooks"][event]]


def test_install_writes_cursor_hooks_json_and_is_idempotent(workspace: Path, cli) -> None:
    hooks = workspace / ".cursor" / "hooks.json"

    first = cli("install", "cursor")

    assert first.code == 0, first.err
    assert first.out.splitlines()[:3] == [
        f"wrote {hooks}:",
        f"  sessionStart: {ENTRY} start --runner cursor",
        f"  beforeSubmitPrompt: {ENTRY} hook",
    ]
    data = json.loads(hooks.read_text())
    assert data["version"] == 1
    assert list(data["hooks"]) == [
        "sessionStart",
        "beforeSubmitPrompt",
        "afterShellExecution",
        "afterFileEdit",
        "afterAgentResponse",
        "stop",
        "preCompact",
        "sessionEnd",
    ]
    assert data["hooks"]["stop"] == [{"command": f"{ENTRY} hook", "timeout": 30}]
    before = hooks.read_bytes()
    assert cli("install", "cursor").out == f"already installed in {hooks}\n"
    assert hooks.read_bytes() == before


def test_user_scope_goes_to_the_project_cursor_names(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "cursor", "--user").code == 0
    hooks = isolated_env / ".cursor" / "hooks.json"
    assert commands(hooks, "stop") == [f'cd "${{CURSOR_PROJECT_DIR:-.}}" && {ENTRY} hook']
    assert not (workspace / ".cursor").exists()
    assert cli("uninstall", "cursor", "--user").code == 0
    assert not hooks.exists() and not hooks.parent.exists()


def test_uninstall_gives_the_file_back_byte_for_byte(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before_exclude = exclude.read_bytes()
    hooks = workspace / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    mine = (
        '{\n\t"version": 1,\n\t"hooks": {\n\t\t"afterFileEdit": [\n'
        '\t\t\t{"command": "./hooks/format.sh", "matcher": "Write", "timeout": 10}\n'
        "\t\t]\n\t}\n}"  # tabs, no final newline
    )
    hooks.write_text(mine)

    assert cli("install", "cursor").code == 0
    assert commands(hooks, "afterFileEdit") == ["./hooks/format.sh", f"{ENTRY} hook"]
    assert git("check-ignore", ".cursor/hooks.json", cwd=workspace).strip()
    result = cli("uninstall", "cursor")

    assert result.out.startswith("removed afterFileEdit, sessionStart, beforeSubmitPrompt")
    assert hooks.read_text() == mine
    assert exclude.read_bytes() == before_exclude
    assert cli("uninstall", "cursor").out == f"nothing to remove in {hooks}\n"


def test_install_then_uninstall_in_a_fresh_repository_leaves_no_trace(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before = exclude.read_bytes()

    assert cli("install", "cursor").code == 0
    assert git("status", "--porcelain", "--untracked-files=all", cwd=workspace) == ""
    assert cli("uninstall", "cursor").code == 0

    assert exclude.read_bytes() == before
    assert not (workspace / ".cursor").exists()


def test_a_tracked_hooks_file_gets_a_warning_not_an_exclusion(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    hooks = workspace / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {}}\n')
    git("add", ".cursor/hooks.json", cwd=workspace)

    result = cli("install", "cursor")

    assert result.code == 0
    assert "git tracks" in result.err and "--command wikimem" in result.err
    assert ".cursor" not in (workspace / ".git" / "info" / "exclude").read_text()


def bare_hook(command: str, cwd: Path, home: Path) -> list[str]:
    """The argv of `command` through /bin/sh with a minimal PATH and no venv, as Cursor starts
    a hook (it sets CURSOR_PROJECT_DIR to the workspace root)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "WIKIMEM_HOME": str(home / ".clarvis"),
        "WIKIMEM_LINGER": "0",
        "CURSOR_PROJECT_DIR": str(cwd),
    }
    return ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c", command]


def cursor_shell(command: str, cwd: Path, home: Path, stdin: str) -> subprocess.CompletedProcess:
    """`command` run as Cursor runs a hook (see bare_hook), its payload on stdin."""
    return subprocess.run(
        bare_hook(command, cwd, home),
        cwd=cwd if "CURSOR_PROJECT_DIR" not in command else home,
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
    )


def test_every_installed_command_runs_bare_and_the_turn_is_queued_once(
    workspace: Path, isolated_env: Path, cli
) -> None:
    git("init", "-q", cwd=workspace)
    wiki = workspace / ".clarvis" / "memory"
    wiki.mkdir()
    (wiki / "PROFILE.md").write_text(PROFILE)
    assert cli("install", "cursor").code == 0
    assert cli("install", "cursor", "--user").code == 0  # both: a run is still queued once
    queue = workspace / ".clarvis" / "state" / "queue"
    files = [workspace / ".cursor" / "hooks.json", isolated_env / ".cursor" / "hooks.json"]
    fired = set()

    def runs() -> list[dict]:
        return queued_runs(queue)

    for payload in turn(workspace):
        for hooks in files:
            for command in commands(hooks, payload["hook_event_name"]):
                done = cursor_shell(command, workspace, isolated_env, json.dumps(payload))
                assert done.returncode == 0, done.stderr
                fired.add(payload["hook_event_name"])
                if payload["hook_event_name"] == "sessionStart":
                    shown = json.loads(done.stdout)  # Cursor reads only JSON here
                    assert shown["additional_context"].startswith("# acme-web\n")
                else:
                    assert done.stdout == b""
    end = {**turn(workspace)[-1], "hook_event_name": "sessionEnd", "reason": "completed"}
    for hooks in files:
        (command,) = commands(hooks, "sessionEnd")
        assert cursor_shell(command, workspace, isolated_env, json.dumps(end)).returncode == 0
        (command,) = commands(hooks, "preCompact")
        pre = {**end, "hook_event_name": "preCompact"}
        assert cursor_shell(command, workspace, isolated_env, json.dumps(pre)).returncode == 0

    assert fired | {"preCompact", "sessionEnd"} == set(json.loads(files[0].read_text())["hooks"])
    (run,) = runs()
    assert run["task"] == "Fix the bug in main.ts"
    assert run["status"] == "succeeded"
    assert run["result"] == "Fixed: foo is now 2, and express is installed."
    assert run["agent"] == {"name": "cursor", "instance_id": "conv-123"}
    assert [(e["kind"], e.get("command") or e.get("path")) for e in run["evidence"]] == [
        ("command", "npm install express"),
        ("file", "main.ts"),
    ]
    assert os.path.exists(workspace / ".clarvis" / "state" / "sessions")


def test_a_cursor_session_is_never_handed_on_as_another_runner_s(
    workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    """Cursor's payloads may carry a `session_id` and a `transcript_path` (its common fields),
    but its transcript is not read: a later start must not hand its session on as a resumed
    session of another runner, whose adapter would read that file as its own."""
    from tests.test_real_sessions import an_hour_on, handed_on, new_session
    from wikimem import config
    from wikimem.cli import start
    from wikimem.intake.accept import accept

    transcript = tmp_path / "agent-transcripts" / "conv-123.jsonl"
    transcript.parent.mkdir()
    transcript.write_text('{"role": "user", "message": {"content": "Fix the bug"}}\n')
    places = config.places(workspace, {})
    common = {"session_id": "conv-123", "transcript_path": str(transcript)}
    for payload in turn(workspace, **common):
        accept(places, {}, json.dumps(payload).encode())
    transcript.write_text(transcript.read_text() + '{"role": "assistant"}\n')
    handed = handed_on(monkeypatch)
    an_hour_on(monkeypatch, transcript)

    start.context({}, new_session(workspace, tmp_path), False)

    # its last turn, stopped but never closed, is handed on as the conversation's end, once
    assert handed == [
        {
            "hook_event_name": "sessionEnd",
            "conversation_id": "conv-123",
            "workspace_roots": [str(workspace)],
            "reason": "picked up at a later start",
        }
    ]
    ((_, record),) = records_from_payload(handed[0], {})
    assert record["task"] == "Fix the bug in main.ts" and record["status"] == "succeeded"


def test_cursor_s_session_start_picks_up_a_crashed_session_as_claude_code_s_does(
    workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    """A real Claude Code session of the workspace crashed after its first turn's Stop; the
    next session to start is Cursor's (its `sessionStart`, camelCase): it hands the crashed
    session on once, as a start of any other runner would."""
    from tests.test_real_sessions import CLAUDE, SESSION, an_hour_on, handed_on
    from wikimem import config
    from wikimem.cli import start
    from wikimem.intake.accept import accept

    lines = CLAUDE.read_text().splitlines(keepends=True)
    second = next(i for i, ln in enumerate(lines) if "e6e29cbd-ee75-4ba7" in ln and '"uuid"' in ln)
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text("".join(lines[:second]))
    stop = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(workspace),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    assert accept(config.places(workspace, {}), {}, json.dumps(stop).encode()).job
    transcript.write_text("".join(lines))  # its later turns, then the crash
    handed = handed_on(monkeypatch)
    an_hour_on(monkeypatch, transcript)
    session_start = turn(workspace)[0]
    assert session_start["hook_event_name"] == "sessionStart"

    start.context({"--runner": "cursor"}, session_start, False)
    start.context({"--runner": "cursor"}, session_start, False)

    assert [(h["session_id"], h["source"]) for h in handed] == [(SESSION, "resume")]


def test_a_cursor_conversation_that_quit_mid_turn_is_recorded_at_a_later_start(
    workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    """The docs' turn stopped; a second turn gathered its prompt and a command, then Cursor
    quit (no stop, no sessionEnd). The second turn's prompt closes the first; once the scratch
    file has been still for 30 minutes, the next start of any runner hands the conversation on
    once, as its end: the second turn is queued once, said to be unreported, and a later start
    hands on nothing."""
    from tests.test_real_sessions import an_hour_on, handed_on, new_session
    from wikimem import config
    from wikimem.cli import start
    from wikimem.intake.accept import accept

    places = config.places(workspace, {})
    first = turn(workspace)
    for payload in first:
        accept(places, {}, json.dumps(payload).encode())
    second = [
        {**first[1], "generation_id": "gen-2", "prompt": "Now run the tests"},
        {**first[2], "generation_id": "gen-2", "command": "npm test", "output": "1 failing"},
    ]
    assert accept(places, {}, json.dumps(second[0]).encode()).skipped == HANDED
    queued_by_a_detached_hook(workspace, "conv-123", "gen-456")
    assert accept(places, {}, json.dumps(second[1]).encode()).job is None  # gathered only
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    handed = handed_on(monkeypatch)

    start.context({}, new_session(workspace, tmp_path), False)
    assert handed == []  # written a moment ago: Cursor may still be running the turn
    an_hour_on(monkeypatch, scratch)
    start.context({}, new_session(workspace, tmp_path), False)
    start.context({"--runner": "cursor"}, {**first[0], "conversation_id": "conv-9"}, False)

    assert [(h["hook_event_name"], h["conversation_id"]) for h in handed] == [
        ("sessionEnd", "conv-123")
    ]
    done = accept(places, {}, json.dumps(handed[0]).encode())
    assert done.job and not done.duplicate
    assert accept(places, {}, json.dumps(handed[0]).encode()).job is None
    queue = workspace / ".clarvis" / "state" / "queue"
    runs = {
        r["task"]: r for r in (json.loads(j.read_text())["run"] for j in queue.glob("*/*.json"))
    }
    assert sorted(runs) == ["Fix the bug in main.ts", "Now run the tests"]
    late = runs["Now run the tests"]
    assert not late.get("status")  # its outcome unknown
    assert "no Cursor stop hook" in late["evidence"][0]["text"]
    assert [e.get("command") for e in late["evidence"] if e["kind"] == "command"] == ["npm test"]


def test_a_conversation_that_quit_in_its_first_turn_is_recorded_at_a_later_start(
    workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    """Cursor quit during a conversation's first turn (its prompt, a command and an edit
    gathered; no stop, no sessionEnd): no turn of it was ever queued, yet the next start of any
    runner once the scratch file has been still for 30 minutes hands it on once, and the turn
    is queued once, said to be unreported."""
    from tests.test_real_sessions import an_hour_on, handed_on, new_session
    from wikimem import config
    from wikimem.cli import start
    from wikimem.intake.accept import accept

    places = config.places(workspace, {})
    session_start, *gathering, _reply, _stop = turn(workspace)
    start.context({"--runner": "cursor"}, session_start, False)
    for payload in gathering:
        assert accept(places, {}, json.dumps(payload).encode()).job is None  # gathered only
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    handed = handed_on(monkeypatch)

    start.context({}, new_session(workspace, tmp_path), False)
    assert handed == []  # written a moment ago: Cursor may still be running the turn
    an_hour_on(monkeypatch, scratch)
    start.context({}, new_session(workspace, tmp_path), False)
    start.context({}, new_session(workspace, tmp_path, "b9c3e2d1-another"), False)

    assert [(h["hook_event_name"], h["conversation_id"]) for h in handed] == [
        ("sessionEnd", "conv-123")
    ]
    done = accept(places, {}, json.dumps(handed[0]).encode())
    assert done.job and not done.duplicate and done.run_id == "conv-123:gen-456"
    assert accept(places, {}, json.dumps(handed[0]).encode()).job is None
    (run,) = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert run["task"] == "Fix the bug in main.ts" and not run.get("status")
    assert "no Cursor stop hook" in run["evidence"][0]["text"]
    assert [e["kind"] for e in run["evidence"][1:]] == ["command", "file"]


REPLIES = (
    "Looking at main.ts first.",
    "foo was 1; setting it to 2 and installing express.",
    "Fixed: foo is now 2, and express is installed.",
)


def conversation(root: Path, name: str, replies: int) -> tuple[list, list, list]:
    """The docs' turn in conversation `name` with its last `replies` messages (Cursor fires
    afterAgentResponse after each): what comes before the turn's end, its end (the last
    reply's hook and the stop's, which Cursor starts at once), and a second turn, closed by
    the conversation's sessionEnd."""
    _start, prompt, shell, edit, reply, stop = turn(root, conversation_id=name)
    said = [{**reply, "text": text} for text in REPLIES[-replies:]]
    second = {"generation_id": f"{name}-2"}
    later = [
        {**prompt, **second, "prompt": "and now the docs"},
        {**reply, **second, "text": "The docs say so now."},
        {**stop, **second},
        {**stop, **second, "hook_event_name": "sessionEnd", "final_status": "completed"},
    ]
    return [prompt, said[0], shell, *said[1:-1], edit], [said[-1], stop], later


def test_a_turn_with_several_replies_keeps_every_one_whichever_hook_ends_first(
    workspace: Path,
) -> None:
    """Neither a stop nor a reply says whether another reply of its turn is to come, so the
    turn stays open through both, in either order, and the next turn's prompt records it:
    every message once (the last as the result, the earlier as notes), with the stop's
    outcome; a reply whose hook ends after that adds nothing."""
    for replies in (1, 2, 3):
        for order in ("stop first", "reply first"):
            name = f"conv-{replies}-{order.split()[0]}"
            before, (last, stop), later = conversation(workspace, name, replies)
            recorded: list[str] = []
            end = [stop, last] if order == "stop first" else [last, stop]
            assert replay([*before, *end], recorded) == [], (replies, order)
            ((key, record),) = replay(later[:1], recorded)

            assert key == "gen-456" and record["status"] == "succeeded"
            assert record["result"] == REPLIES[-1]
            notes = [e["text"] for e in record["evidence"] if e["kind"] == "note"]
            assert notes == [f"{EARLIER}{text}" for text in REPLIES[-replies:-1]]
            assert [e["kind"] for e in record["evidence"] if e["kind"] != "note"] == [
                "command",
                "file",
            ]
            assert replay([last, stop], recorded) == []  # late, repeated: queued already
            assert [k for k, _ in replay(later[1:], recorded)] == [f"{name}-2"]


def hook_process(command: str, cwd: Path, home: Path) -> subprocess.Popen:
    """`command` started as Cursor starts a hook (see cursor_shell), its payload not written
    yet: it waits on its stdin, so that hooks started one after the other read theirs at once."""
    return subprocess.Popen(
        bare_hook(command, cwd, home),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def fire(hooks: Path, payloads: list[dict], cwd: Path, home: Path, together: bool) -> None:
    """Each payload through its installed command: one after the other, or `together`: every
    process started, then every payload written (the processes race for the session's lock,
    as hooks Cursor starts at once do)."""
    if not together:
        for payload in payloads:
            for command in commands(hooks, payload["hook_event_name"]):
                done = cursor_shell(command, cwd, home, json.dumps(payload))
                assert done.returncode == 0, done.stderr
        return
    started = [
        (hook_process(command, cwd, home), payload)
        for payload in payloads
        for command in commands(hooks, payload["hook_event_name"])
    ]
    for process, payload in started:
        assert process.stdin is not None
        process.stdin.write(json.dumps(payload).encode())
        process.stdin.close()
    for process, _ in started:
        assert process.stderr is not None
        err = process.stderr.read()
        assert process.wait(timeout=120) == 0, err


RACES = int(os.environ.get("WIKIMEM_CURSOR_RACES", "1"))  # runs of each concurrent case


def test_the_installed_hooks_record_every_reply_once_in_any_order_and_together(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """Turns of 1, 2 and 3 replies through the installed commands from a bare shell, the
    turn's end (its last reply's hook and its stop's) in both orders and started together
    (RACES times each), then a second turn and the conversation's end, and the last reply's
    hook once more, late: every reply is in exactly one run, every turn queued once, with its
    stop's outcome."""
    git("init", "-q", cwd=workspace)
    assert cli("install", "cursor").code == 0
    hooks = workspace / ".cursor" / "hooks.json"
    cases = []
    for replies in (1, 2, 3):
        for order in ("stop first", "reply first", "together"):
            for race in range(RACES if order == "together" else 1):
                name = f"conv-{replies}-{order.split()[0]}-{race}"
                before, (last, stop), later = conversation(workspace, name, replies)
                fire(hooks, before, workspace, isolated_env, False)
                end = [stop, last] if order == "stop first" else [last, stop]
                fire(hooks, end, workspace, isolated_env, order == "together")
                fire(hooks, later, workspace, isolated_env, False)
                fire(hooks, [last], workspace, isolated_env, False)  # late again: adds nothing
                cases.append((name, replies))

    runs = queued_runs(workspace / ".clarvis" / "state" / "queue")
    lost = duplicated = unrecorded = 0
    for name, replies in cases:
        mine = {r["run_id"]: r for r in runs if r["agent"]["instance_id"] == name}
        assert len(mine) == len([r for r in runs if r["agent"]["instance_id"] == name])
        unrecorded += len({f"{name}:gen-456", f"{name}:{name}-2"} - set(mine))
        first = mine.get(f"{name}:gen-456", {})
        assert first.get("status", "succeeded") == "succeeded"
        said = [
            [r.get("result", "")] + [e.get("text", "") for e in r["evidence"]]
            for r in mine.values()
        ]
        for text in REPLIES[-replies:]:
            holding = sum(any(text in part for part in parts) for parts in said)
            lost += holding == 0
            duplicated += holding > 1
            if holding != 1:
                print(f"{name}: {'last' if text == REPLIES[-1] else 'earlier'} reply {holding}")
    print(
        f"cursor races: {len(cases)} conversations, {lost} replies lost, {duplicated} twice,"
        f" {unrecorded} turns unrecorded"
    )
    assert (lost, duplicated, unrecorded) == (0, 0, 0)


def test_a_last_turn_cursor_left_open_is_recorded_at_a_later_start(
    workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    """Cursor quit after a second turn's prompt (no stop, no sessionEnd): the prompt's hook
    queued the first turn, and its own line went into the scratch file before the cursor
    moved, so the file is older than the cursor; a later start still hands the conversation
    on, once, and its second turn is queued once, unreported."""
    from types import SimpleNamespace

    from tests.test_real_sessions import handed_on, new_session
    from wikimem import config
    from wikimem.cli import start
    from wikimem.intake.accept import accept
    from wikimem.runners import cursor

    places = config.places(workspace, {})
    before, end, later = conversation(workspace, "conv-123", 2)
    for payload in [*before, *end]:
        assert accept(places, {}, json.dumps(payload).encode()).job is None  # kept open
    assert accept(places, {}, json.dumps(later[0]).encode()).skipped == HANDED
    queued_by_a_detached_hook(workspace, "conv-123", "gen-456")
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    (state,) = (workspace / ".clarvis" / "state" / "sessions").glob("*.json")
    moved = json.loads(state.read_text())["updated_at"]
    os.utime(scratch, (moved - 5, moved - 5))
    handed = handed_on(monkeypatch)
    monkeypatch.setattr(cursor, "time", SimpleNamespace(time=lambda: moved + 3600))

    start.context({}, new_session(workspace, tmp_path), False)
    start.context({}, new_session(workspace, tmp_path, "b9c3e2d1-another"), False)

    assert [(h["hook_event_name"], h["conversation_id"]) for h in handed] == [
        ("sessionEnd", "conv-123")
    ]
    assert accept(places, {}, json.dumps(handed[0]).encode()).run_id == "conv-123:conv-123-2"
    assert accept(places, {}, json.dumps(handed[0]).encode()).job is None
    runs = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert sorted(r["run_id"] for r in runs) == ["conv-123:conv-123-2", "conv-123:gen-456"]
    (late,) = (r for r in runs if r["run_id"] == "conv-123:conv-123-2")
    assert late["task"] == "and now the docs" and not late.get("status")


def test_a_scratch_file_older_than_its_cursor_is_read_from_its_end(
    tmp_path: Path, monkeypatch
) -> None:
    """What a start reads of such a file is bounded: its newest lines, where the line appended
    before the cursor moved is; a line cut by the bound is skipped, not misread."""
    from wikimem.runners import cursor

    monkeypatch.setattr(cursor, "TAIL", 200)
    scratch = tmp_path / "conv.jsonl"
    queued = "".join(json.dumps({"e": "stop", "g": f"gen-{n}"}) + "\n" for n in range(40))
    scratch.write_text(queued + json.dumps({"e": "beforeSubmitPrompt", "g": "gen-new"}) + "\n")
    everything = [f"gen-{n}" for n in range(40)]

    assert cursor._unrecorded(str(scratch), everything)
    assert not cursor._unrecorded(str(scratch), [*everything, "gen-new"])
    scratch.write_text(json.dumps({"e": "stop", "g": "gen-old"}) + "\n" + queued)
    assert not cursor._unrecorded(str(scratch), everything)  # past the bound: not read
    assert not cursor._unrecorded(str(tmp_path / "gone.jsonl"), [])


def test_a_hook_that_closes_a_turn_hands_the_queueing_on_and_returns(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """The next turn's prompt, command and reply hooks, through the installed commands from a
    bare shell and started together, each close the stopped turn before them: none queues it
    (Cursor waits for these hooks, the prompt's before the prompt goes); each hands it to a
    detached `wikimem hook`, and those race for the session's lock. The turn is queued once,
    whole; the new turn's lines stay for its own end, which records it once."""
    git("init", "-q", cwd=workspace)
    assert cli("install", "cursor").code == 0
    hooks = workspace / ".cursor" / "hooks.json"
    first = turn(workspace)
    fire(hooks, first[1:], workspace, isolated_env, False)
    second = turn(workspace, generation_id="gen-2")
    _start, prompt, shell, _edit, reply, stop = second
    prompt["prompt"] = "and now the docs"
    shell.update(command="npm run docs", output="built 3 pages")
    reply["text"] = "The docs are built."

    fire(hooks, [prompt, shell, reply], workspace, isolated_env, True)

    queued_by_a_detached_hook(workspace, "conv-123", "gen-456")
    queue = workspace / ".clarvis" / "state" / "queue"
    (run,) = queued_runs(queue)
    assert run["run_id"] == "conv-123:gen-456" and run["status"] == "succeeded"
    assert run["result"] == "Fixed: foo is now 2, and express is installed."
    assert [e["kind"] for e in run["evidence"]] == ["command", "file"]
    fire(hooks, [stop, {**stop, "hook_event_name": "sessionEnd"}], workspace, isolated_env, False)
    runs = {r["run_id"]: r for r in queued_runs(queue)}
    assert sorted(runs) == ["conv-123:gen-2", "conv-123:gen-456"]
    later = runs["conv-123:gen-2"]
    assert later["task"] == "and now the docs" and later["result"] == "The docs are built."
    assert [e["command"] for e in later["evidence"] if e["kind"] == "command"] == ["npm run docs"]
    log = workspace / ".clarvis" / "state" / "background.log"
    assert "Traceback" not in (log.read_text() if log.exists() else "")


def test_the_handed_on_payload_only_queues(workspace: Path) -> None:
    """What the detached hook takes: the hook's payload marked QUEUE_ONLY, whose line is in the
    scratch file already, so it appends nothing and closes what the hook closed; sessionEnd
    (nothing after it would close what a lost detached process left) and a payload handed on
    already are queued where they are."""
    first = turn(workspace)
    replay(first[1:], [])
    prompt = next_prompt(workspace)
    (closed,) = records_from_cursor(prompt, {})  # the hook: its line appended, gen-456 closed
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    lines = scratch.read_text()

    handed = json.loads(queued_later(prompt) or b"{}")
    ((key, record),) = records_from_cursor(handed, {})

    # only what the detached hook reads: no prompt or output travels through the pipe
    assert handed == {
        **{k: prompt[k] for k in ("hook_event_name", "conversation_id", "generation_id")},
        **{k: prompt[k] for k in ("cursor_version", "model") if k in prompt},
        "workspace_roots": [str(workspace)],
        QUEUE_ONLY: True,
    }
    assert (key, record["evidence"]) == (closed[0], closed[1]["evidence"])
    assert scratch.read_text() == lines  # nothing appended
    assert queued_later(handed) is None
    assert queued_later({**prompt, "hook_event_name": "sessionEnd"}) is None


def test_the_detached_hook_gets_the_hook_s_environment_not_its_parent_s(
    workspace: Path, monkeypatch
) -> None:
    """A warm listener runs with its own environment and hands a hook's closed turns on: the
    detached hook must resolve the workspace as the hook did (here through CURSOR_PROJECT_DIR,
    the payload naming no workspace_roots), or it finds no scratch file and records the next
    stop's turn empty."""
    from wikimem import config
    from wikimem.intake.accept import accept

    monkeypatch.delenv("CURSOR_PROJECT_DIR", raising=False)  # the listener's environment
    hook_env = {**os.environ, "CURSOR_PROJECT_DIR": str(workspace), "WIKIMEM_LINGER": "0"}
    places = config.places(workspace, hook_env)
    first = [{k: v for k, v in p.items() if k != "workspace_roots"} for p in turn(workspace)]
    for payload in first[1:]:
        assert accept(places, hook_env, json.dumps(payload).encode()).job is None
    later = {k: v for k, v in next_prompt(workspace).items() if k != "workspace_roots"}
    assert accept(places, hook_env, json.dumps(later).encode()).skipped == HANDED
    queued_by_a_detached_hook(workspace, "conv-123", "gen-456")
    (run,) = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert run["run_id"] == "conv-123:gen-456"
    assert [e["kind"] for e in run["evidence"]] == ["command", "file"]
    assert run["result"] == "Fixed: foo is now 2, and express is installed."
    # the lines left (the new turn's prompt) were rewritten as the owner's alone: they are
    # prompts and outputs not yet redacted
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    assert "and now the docs" in scratch.read_text()
    assert scratch.stat().st_mode & 0o077 == 0
