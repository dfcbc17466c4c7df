"""Cursor: a turn's hook payloads (the docs' own examples) become one run record when it stops,
every turn once through the session's cursor; `wikimem install|uninstall cursor` edit
.cursor/hooks.json byte for byte; every installed command runs from a bare shell, as Cursor
starts it, and the turn is queued once with its prompt, command, edit and reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, queued_runs
from tests.test_install_cli import ENTRY, PROFILE
from wikimem.runners import record_from_payload, records_from_payload, session_of
from wikimem.runners.claude import is_claude_payload
from wikimem.runners.cursor_agent import is_cursor_payload, records_from_cursor

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


def test_the_docs_turn_becomes_one_run_at_its_stop(workspace: Path) -> None:
    *gathering, stop = turn(workspace)
    assert replay(gathering, []) == []  # each only adds to its turn

    ((key, record),) = records_from_payload(stop, {})

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
    assert record["source"]["event"] == "stop"
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

    # the first turn's stop never fires (Cursor quit); the second is stopped by the person
    done = replay(first[1:-1] + second[1:], recorded)

    assert [(k, r["task"]) for k, r in done] == [
        ("gen-456", "Fix the bug in main.ts"),
        ("gen-457", "now run the tests"),
    ]
    unreported, stopped = (r for _, r in done)
    assert "status" not in unreported and "no Cursor stop hook" in unreported["evidence"][0]["text"]
    assert stopped["status"] == "interrupted"
    assert [e["command"] for e in stopped["evidence"] if e["kind"] == "command"] == ["npm test"]
    # a compaction mid-turn leaves the running turn to its stop; sessionEnd has nothing left
    assert replay(third[1:3] + [{**third[-1], "hook_event_name": "preCompact"}], recorded) == []
    # completed with no reply gathered: it waits for its reply's hook, or the next event
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
    replay(gathering, [])
    (scratch,) = (workspace / ".clarvis" / "state" / "cursor").glob("*.jsonl")
    with scratch.open("a") as handle:
        handle.write('{"e": "afterShellExecution", "g": "gen-456", "command": \n[1]\n{"g": 3}\n')
    ((_, record),) = records_from_payload(stop, {})
    assert [e["kind"] for e in record["evidence"]] == ["command", "file"]


def test_detection_and_dispatch(workspace: Path) -> None:
    stop = turn(workspace)[-1]
    assert is_cursor_payload(stop) and session_of(stop) == "cursor-conv-123"
    assert record_from_payload(stop, {})["agent"]["name"] == "cursor"
    # sessionStart, and events wikimem does not install, record nothing
    for event in ("sessionStart", "beforeShellExecution", "afterAgentThought"):
        assert records_from_cursor({**stop, "hook_event_name": event}, {}) == []
    claude = {"session_id": "s", "hook_event_name": "Stop", "transcript_path": "/t/a.jsonl"}
    assert not is_cursor_payload(claude) and is_claude_payload(claude)
    copilot = {"sessionId": "s", "hook_event_name": "sessionStart", "cwd": "/w"}
    assert not is_cursor_payload(copilot)


def test_the_hook_path_imports_no_heavy_dependency(workspace: Path) -> None:
    stop = turn(workspace)[-1]
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


def cursor_shell(command: str, cwd: Path, home: Path, stdin: str) -> subprocess.CompletedProcess:
    """`command` through /bin/sh with a minimal PATH and no venv, as Cursor starts a hook (it
    sets CURSOR_PROJECT_DIR to the workspace root)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "WIKIMEM_HOME": str(home / ".clarvis"),
        "WIKIMEM_LINGER": "0",
        "CURSOR_PROJECT_DIR": str(cwd),
    }
    return subprocess.run(
        ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c", command],
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

    assert handed == []


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
    quit (no stop, no sessionEnd). Once its scratch file has been still for 30 minutes, the
    next start of any runner hands the conversation on once, as its end: the second turn is
    queued once, said to be unreported, and a later start hands on nothing."""
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
    for payload in second:
        assert accept(places, {}, json.dumps(payload).encode()).job is None  # gathered only
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


def test_a_reply_whose_hook_ends_after_the_stop_s_is_the_turn_s_result(workspace: Path) -> None:
    """Cursor starts afterAgentResponse and stop at the end of a turn without waiting for the
    first: in a turn's first hooks (no warm listener yet) the stop's hook often takes the
    session's lock first. The completed turn is then recorded when its reply comes, with the
    stop's outcome, once; a turn whose reply never comes is recorded at the next stop."""
    session_start, *gathering, reply, stop = turn(workspace)
    recorded: list[str] = []

    assert replay([*gathering, stop], recorded) == []  # completed, and no reply yet: it waits
    ((key, record),) = replay([reply], recorded)

    assert key == "gen-456" and record["status"] == "succeeded"
    assert record["result"] == "Fixed: foo is now 2, and express is installed."
    assert record["source"]["event"] == "afterAgentResponse"
    assert [e["kind"] for e in record["evidence"]] == ["command", "file"]  # no note: reported
    assert replay([reply, stop], recorded) == []  # late and repeated hooks: queued already
    second = turn(workspace, generation_id="gen-457")
    assert replay([second[1], second[-1]], recorded) == []  # no reply either, so far
    third = turn(workspace, generation_id="gen-458")
    ((k2, quiet), (k3, _)) = replay(third[1:], recorded)
    assert (k2, k3) == ("gen-457", "gen-458")
    assert quiet["status"] == "succeeded" and "result" not in quiet
    assert [e["kind"] for e in quiet["evidence"]] == []  # reported by its stop: no note


def test_the_installed_hooks_keep_the_reply_when_the_stop_s_hook_ends_first(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """The docs' first turn through the installed commands from a bare shell, the stop's hook
    before the reply's (as a race of the two often ends when no listener is warm yet): one run,
    with the reply as its result and the stop's outcome."""
    git("init", "-q", cwd=workspace)
    assert cli("install", "cursor").code == 0
    hooks = workspace / ".cursor" / "hooks.json"
    _start, *gathering, reply, stop = turn(workspace)
    for payload in [*gathering, stop, reply]:
        for command in commands(hooks, payload["hook_event_name"]):
            done = cursor_shell(command, workspace, isolated_env, json.dumps(payload))
            assert done.returncode == 0, done.stderr

    (run,) = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert run["result"] == "Fixed: foo is now 2, and express is installed."
    assert run["status"] == "succeeded"
    assert [e["kind"] for e in run["evidence"]] == ["command", "file"]
