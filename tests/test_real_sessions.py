"""The adapters on output of real sessions (see tests/fixtures/runners/real/README.md): no command
whose result is in the file loses its outcome, order follows the file, task and answer are right."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import queued_runs
from wikimem import config
from wikimem.intake.accept import accept
from wikimem.runners.claude import active_branch, entry_from_line, evidence_from, record_from_claude
from wikimem.runners.codex import SHELL_TOOLS, _command, read_rollout
from wikimem.runners.github import record_from_output
from wikimem.runners.transcripts import read_jsonl

REAL = Path(__file__).parent / "fixtures" / "runners" / "real"
CLAUDE = REAL / "claude-2.1.14-parallel-stop-hook.jsonl"
SESSION = "c64cc478-3430-40fe-8e9c-4ee9986e9754"
TASK = (
    "Add a function called multiply_numbers(a: int, b: int) -> int that multiplies two numbers "
    "together. Add a test for it."
)


def tool_calls(path: Path) -> tuple[list[tuple[str, str, dict]], dict[str, dict]]:
    """Every tool call of the main thread in file order, and every tool result by call id."""
    calls, results = [], {}
    for line in read_jsonl(path):
        content = (line.get("message") or {}).get("content")
        if line.get("isSidechain") or not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                calls.append((block["id"], block["name"], block["input"]))
            elif block.get("type") == "tool_result":
                results[block["tool_use_id"]] = block
    return calls, results


def test_every_call_of_a_parallel_response_is_joined_to_its_result() -> None:
    branch = active_branch(e for line in read_jsonl(CLAUDE) if (e := entry_from_line(line)))
    joined = {r.tool_use_id for entry in branch for r in entry.tool_results}
    calls, results = tool_calls(CLAUDE)

    # Two of the file's results hang off a sibling of the last line's parentUuid chain.
    assert {call_id for call_id, _, _ in calls} == set(results) == joined


def test_every_command_with_a_result_has_its_outcome_in_file_order() -> None:
    branch = active_branch(e for line in read_jsonl(CLAUDE) if (e := entry_from_line(line)))
    evidence = evidence_from(branch, "/tmp/tmpw6sk2trg")
    calls, _ = tool_calls(CLAUDE)
    wanted = [
        ("command", use["command"]) if name == "Bash" else ("file", use["file_path"][17:])
        for _, name, use in calls
        if name in ("Bash", "Edit")
    ]

    # The two edits of one response come before the commands that followed them, as in the file.
    assert [(e["kind"], e.get("command") or e["path"]) for e in evidence] == wanted
    assert wanted[:2] == [("file", "src/math_utils.py"), ("file", "tests/test_math_utils.py")]
    commands = [e for e in evidence if e["kind"] == "command"]
    assert len(commands) == sum(1 for _, name, _ in calls if name == "Bash")
    assert all("exit_code" in c and c["output"] for c in commands)
    assert [c["exit_code"] for c in commands] == [0, 0, 0, 0, 1]
    assert commands[1]["output"].endswith("2 passed in 0.00s ===============================")


def test_the_stop_after_a_stop_hook_continuation_is_its_own_run() -> None:
    final = (
        "The `.gitignore` was already committed (a hook or linter committed it). The working "
        "tree is now clean with all generated files properly ignored. The task is complete."
    )
    payload = {
        "session_id": SESSION,
        "transcript_path": str(CLAUDE),
        "cwd": "/tmp/tmpw6sk2trg",
        "hook_event_name": "Stop",
        "stop_hook_active": True,
        "last_assistant_message": final,
    }

    record = record_from_claude(payload)

    assert record is not None
    assert record["task"] == TASK
    assert record["result"] == final
    assert record["run_id"] == f"{SESSION}:cc8325f0-bbf3-40a4-8438-f14639128bf2"
    assert record["evidence"][0]["text"].startswith("A Stop hook continued the turn: [")
    assert [(e["kind"], e.get("command", e.get("path"))) for e in record["evidence"][1:]] == [
        ("file", ".gitignore"),
        ("command", "git status"),
        ("command", record["evidence"][3]["command"]),
    ]
    assert record["evidence"][3]["command"].startswith("git add .gitignore && git commit")
    assert record["evidence"][3]["exit_code"] == 1


def test_a_real_codex_exec_stream_keeps_the_command_and_the_mcp_call() -> None:
    command = record_from_output((REAL / "codex-exec-0.149.0-command.jsonl").read_text(), {})
    mcp = record_from_output((REAL / "codex-exec-0.149.0-mcp.jsonl").read_text(), {})

    (run,) = command["evidence"]
    assert run["command"] == "sed -n '1,240p' ~/.agents/skills/using-superpowers/SKILL.md"
    assert run["exit_code"] == 0 and run["output"].startswith("---\nname: using-superpowers")
    assert json.loads(command["result"]) == {"answer": "Два плюс два — четыре.", "n": 4}
    assert mcp["evidence"] == [
        {"kind": "note", "text": 'Consulted MCP tool probe.echo: {"message": "ping"}'}
    ]
    assert mcp["result"] == "ping"


def test_every_turn_of_the_real_session_is_queued_once_whatever_hooks_fire(
    workspace: Path, tmp_path: Path
) -> None:
    """Replay the real session's hooks as Claude Code fired them (a Stop at the end of each
    turn, the later ones continued by its Stop hook), then a SessionEnd and a compaction on
    top: each of its three turns is one job, and the cursor holds all three."""
    lines = CLAUDE.read_text().splitlines(keepends=True)
    heads = [
        "1b4951f2-dc07-4bb4-9740-777baa85b06e",  # the person's prompt
        "e6e29cbd-ee75-4ba7-b04c-450d4aaa5cbb",  # the Stop hook's first continuation
        "cc8325f0-bbf3-40a4-8438-f14639128bf2",  # and its second
    ]
    cuts = [next(i for i, ln in enumerate(lines) if h in ln and '"uuid"' in ln) for h in heads]
    transcript = tmp_path / f"{SESSION}.jsonl"
    places = config.places(workspace, {})
    base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": "/tmp/tmpw6sk2trg"}
    queued: list[str] = []
    for n, end in enumerate([*cuts[1:], len(lines)]):
        transcript.write_text("".join(lines[:end]))
        stop = base | {"hook_event_name": "Stop", "stop_hook_active": n > 0}
        done = accept(places, {}, json.dumps(stop).encode())
        assert done.job and not done.duplicate
        queued.append(done.run_id)
    for extra in ("SessionEnd", "PreCompact", "PostCompact"):
        again = accept(places, {}, json.dumps(base | {"hook_event_name": extra}).encode())
        assert again.job is None  # nothing left to record

    assert queued == [f"{SESSION}:{h}" for h in heads]
    jobs = list((workspace / ".clarvis" / "state" / "queue").glob("*/*.json"))
    assert sorted(json.loads(j.read_text())["run"]["run_id"] for j in jobs) == sorted(queued)


REAL_CLAUDE = sorted(REAL.glob("claude-*.jsonl"))


@pytest.mark.parametrize("path", REAL_CLAUDE, ids=[p.stem for p in REAL_CLAUDE])
def test_every_turn_of_every_real_transcript_is_recorded_exactly_once(
    path: Path, workspace: Path, tmp_path: Path
) -> None:
    """A Stop at the end of each turn, then SessionEnd and a compaction: as many jobs as the
    transcript has turns, and every main-thread command with a result in exactly one of them."""
    lines = path.read_text().splitlines(keepends=True)
    entries = active_branch(e for line in read_jsonl(path) if (e := entry_from_line(line)))
    heads = [e.uuid for e in entries if e.prompt or e.feedback]
    session = json.loads(lines[-1])["sessionId"]
    transcript = tmp_path / f"{session}.jsonl"
    places = config.places(workspace, {})
    base = {"session_id": session, "transcript_path": str(transcript), "cwd": "/tmp/x"}
    cuts = [next(i for i, ln in enumerate(lines) if f'"uuid":"{h}"' in ln) for h in heads[1:]]
    for n, end in enumerate([*cuts, len(lines)]):
        transcript.write_text("".join(lines[:end]))
        stop = base | {"hook_event_name": "Stop", "stop_hook_active": n > 0}
        assert accept(places, {}, json.dumps(stop).encode()).job
    for extra in ("SessionEnd", "PreCompact", "PostCompact"):
        assert (
            accept(places, {}, json.dumps(base | {"hook_event_name": extra}).encode()).job is None
        )

    queue = workspace / ".clarvis" / "state" / "queue"
    runs = queued_runs(queue)
    assert sorted(r["run_id"] for r in runs) == sorted(f"{session}:{h}" for h in heads)
    recorded = [e["command"] for r in runs for e in r["evidence"] if e["kind"] == "command"]
    calls, results = tool_calls(path)
    ran = [use["command"] for call_id, name, use in calls if name == "Bash" and call_id in results]
    assert sorted(recorded) == sorted(ran)
    notes = [e["text"] for r in runs for e in r["evidence"] if e["kind"] == "note"]
    reports = [text for text in notes if text.startswith("Subagent ")]
    assert len(reports) == sum(1 for _, name, _ in calls if name == "Task")


REAL_CODEX = sorted(REAL.glob("codex-*-rollout-*.jsonl"))


@pytest.mark.parametrize("path", REAL_CODEX, ids=[p.name.split("-rollout-")[0] for p in REAL_CODEX])
def test_every_turn_of_every_real_rollout_is_recorded_exactly_once(
    path: Path, workspace: Path
) -> None:
    """Codex's Stop, then its notify and a compaction: one job per turn of the rollout, and
    every shell call with an output in exactly one of them, as a command (or a file change)."""
    thread = path.stem.split("-rollout-")[1][20:]
    places = config.places(workspace, {})
    stop = {
        "hook_event_name": "Stop",
        "session_id": thread,
        "turn_id": "last",
        "transcript_path": str(path),
        "cwd": "/tmp",
        "stop_hook_active": False,
    }
    turns = read_rollout(path).turns()

    first = accept(places, {}, json.dumps(stop).encode())
    for again in (stop, stop | {"hook_event_name": "PreCompact", "trigger": "auto"}):
        assert accept(places, {}, json.dumps(again).encode()).job is None

    assert first.job and first.run_id == f"{thread}:last"
    queue = workspace / ".clarvis" / "state" / "queue"
    runs = queued_runs(queue)
    assert len(runs) == len(turns) == len({r["run_id"] for r in runs})
    calls, outputs = {}, set()
    for line in read_jsonl(path):
        item = line.get("payload") or {}
        if item.get("type") == "function_call" and item.get("name") in SHELL_TOOLS:
            calls[item["call_id"]] = json.loads(item["arguments"])
        elif item.get("type") == "function_call_output":
            outputs.add(item["call_id"])
    wanted = [_command(a.get("cmd") or a.get("command")) for c, a in calls.items() if c in outputs]
    recorded = [e["command"] for r in runs for e in r["evidence"] if e["kind"] == "command"]
    shell_patches = [c for c in wanted if c and "*** Begin Patch" in c]
    assert sorted(recorded) == sorted(c for c in wanted if c not in shell_patches)
    assert all("exit_code" in e for r in runs for e in r["evidence"] if e["kind"] == "command")


def handed_on(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """What `wikimem start` hands to detached hooks, caught instead of spawned."""
    from wikimem.intake import background

    handed: list[dict] = []

    def spawn(args: list[str], log: str, data: bytes | None = None) -> None:
        assert args[:2] == ["hook", "--handoff"]
        handed.append(json.loads(data or b""))

    monkeypatch.setattr(background, "spawn", spawn)
    return handed


def an_hour_on(monkeypatch: pytest.MonkeyPatch, written: Path) -> None:
    """The starts below come an hour after `written` was last written: its mtime is set a
    second on (file clocks tick coarser than time.time), the cursor's clock an hour later."""
    from wikimem.runners import cursor

    then = time.time() + 1
    os.utime(written, (then, then))
    monkeypatch.setattr(cursor, "time", SimpleNamespace(time=lambda: then + 3600))


def new_session(workspace: Path, tmp_path: Path, session: str = "d2a1f0c4-new") -> dict:
    return {
        "session_id": session,
        "transcript_path": str(tmp_path / f"{session}.jsonl"),
        "cwd": str(workspace),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }


def test_a_crashed_session_s_turns_are_recorded_at_the_next_session_s_start(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real three-turn session: its Stop fired for the first turn only, then it crashed
    (the transcript holds turns 2 and 3, no hook reported them). A new session's start in
    the workspace hands it on once; its turns 2 and 3 are queued once, and nothing more on a
    second start or a second handing-on."""
    from wikimem.cli import start

    lines = CLAUDE.read_text().splitlines(keepends=True)
    second = next(i for i, ln in enumerate(lines) if "e6e29cbd-ee75-4ba7" in ln and '"uuid"' in ln)
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text("".join(lines[:second]))
    places = config.places(workspace, {})
    stop = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": "/tmp/tmpw6sk2trg",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    assert accept(places, {}, json.dumps(stop).encode()).job
    transcript.write_text("".join(lines))  # turns 2 and 3, then the crash: no hook fired
    # another session of the workspace ended as sessions do: its Stop, its SessionEnd, then
    # the runner's closing lines in its transcript
    ended = tmp_path / "ended.jsonl"
    ended.write_text((REAL / "claude-2.1.14-hello-world.jsonl").read_text())
    done = {"session_id": "ended", "transcript_path": str(ended), "cwd": "/tmp/x"}
    assert accept(places, {}, json.dumps(done | {"hook_event_name": "Stop"}).encode()).job
    assert (
        accept(places, {}, json.dumps(done | {"hook_event_name": "SessionEnd"}).encode()).job
        is None
    )
    ended.write_text(ended.read_text() + "\n")
    handed = handed_on(monkeypatch)

    start.context({}, new_session(workspace, tmp_path), False)
    assert handed == []  # written a moment ago: the session may still be running
    an_hour_on(monkeypatch, transcript)
    start.context({}, new_session(workspace, tmp_path), False)
    start.context({}, new_session(workspace, tmp_path, "b9c3e2d1-another"), False)

    assert handed == [
        {
            "hook_event_name": "SessionStart",
            "source": "resume",
            "session_id": SESSION,
            "transcript_path": str(transcript),
            "cwd": "/tmp/tmpw6sk2trg",
        }
    ]  # once: the second start finds it handed on already; the ended session not at all
    first = accept(places, {}, json.dumps(handed[0]).encode())
    assert first.job and not first.duplicate
    assert accept(places, {}, json.dumps(handed[0]).encode()).job is None
    queue = workspace / ".clarvis" / "state" / "queue"
    runs = queued_runs(queue)
    assert sorted(r["run_id"] for r in runs if r["run_id"].startswith(SESSION)) == sorted(
        f"{SESSION}:{h}"
        for h in (
            "1b4951f2-dc07-4bb4-9740-777baa85b06e",
            "e6e29cbd-ee75-4ba7-b04c-450d4aaa5cbb",
            "cc8325f0-bbf3-40a4-8438-f14639128bf2",
        )
    )


def test_a_crashed_codex_session_is_picked_up_the_same_way(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real two-turn Codex rollout: Stop for the first turn, a crash in the second; the
    next session's start hands it on as resumed, and the second turn is queued once."""
    from wikimem.cli import start

    real = REAL_CODEX[0]
    lines = real.read_text().splitlines(keepends=True)
    second = [i for i, ln in enumerate(lines) if '"turn_context"' in ln or '"task_started"' in ln]
    rollout = (
        tmp_path / real.name.split("-", 2)[2]
    )  # rollout-<time>-<thread>.jsonl, as Codex names it
    rollout.write_text("".join(lines[: second[2]]))  # the first turn, as its Stop read it
    thread = real.stem.split("-rollout-")[1][20:]
    stop = {
        "hook_event_name": "Stop",
        "session_id": thread,
        "turn_id": "t1",
        "transcript_path": str(rollout),
        "cwd": "/tmp",
        "stop_hook_active": False,
    }
    places = config.places(workspace, {})
    assert accept(places, {}, json.dumps(stop).encode()).run_id == f"{thread}:t1"
    rollout.write_text("".join(lines))
    handed = handed_on(monkeypatch)
    an_hour_on(monkeypatch, rollout)

    start.context({}, new_session(workspace, tmp_path), False)
    start.context({}, new_session(workspace, tmp_path), False)

    assert [h["session_id"] for h in handed] == [thread]
    assert accept(places, {}, json.dumps(handed[0]).encode()).job
    queue = workspace / ".clarvis" / "state" / "queue"
    runs = queued_runs(queue)
    assert len(runs) == len(read_rollout(rollout).turns()) == 2


def other_runners_real_sessions(tmp_path: Path) -> dict[str, tuple[list[dict], int]]:
    """Each real session kept beside the other runners' fixtures, as the hook payloads that
    report it (the turn's end, then the same again, then a compaction and the session's end),
    with the number of turns it holds."""
    from tests import test_hooks_copilot as copilot
    from tests import test_hooks_gemini as gemini
    from tests import test_hooks_opencode as opencode

    sessions: dict[str, tuple[list[dict], int]] = {}
    for path, turns in ((gemini.FILE_OPS, 5), (gemini.LEAD, 3)):
        end = gemini.after_agent(path, "/tmp/x")
        rest = [{**end, "hook_event_name": e} for e in ("PreCompress", "SessionEnd")]
        sessions[path.stem] = ([end, end, *rest], turns)
    for path in sorted((copilot.FIXTURES / "real").glob("*.jsonl")):
        log = tmp_path / path.stem / "events.jsonl"
        log.parent.mkdir()
        log.write_bytes(path.read_bytes())
        base = {"sessionId": path.stem, "timestamp": 1, "cwd": "/tmp/x", "transcriptPath": str(log)}
        end = {**base, "stopReason": "end_turn"}
        sessions[path.stem] = ([end, end, {**base, "trigger": "auto"}], 1)
    for path in (opencode.INTERRUPTION, opencode.PARALLEL):
        idle = opencode.plugin_payload(opencode.bus_session(path))
        sessions[path.stem] = ([idle, idle, {**idle, "hook_event_name": "session.compacted"}], 1)
    return sessions


OTHER_REAL = [
    "session-2026-01-16T11-01-file-ops-37b7abef",
    "session-2025-12-01T21-45-5b959dae",
    "copilot-cli-1.0.76-shepherd-task",
    "copilot-cli-1.0.77-review-fixes",
    "kimaki-real-session-task-user-interruption",
    "kimaki-real-session-task-three-parallel-sleeps",
]


@pytest.mark.parametrize("name", OTHER_REAL)
def test_every_turn_of_every_other_runner_s_real_session_is_recorded_exactly_once(
    name: str, workspace: Path, tmp_path: Path
) -> None:
    """Gemini CLI, Copilot CLI and OpenCode: the first report of the session queues each of
    its turns, every later one (the same again, a compaction, the session's end) nothing."""
    payloads, turns = other_runners_real_sessions(tmp_path)[name]
    places = config.places(workspace, {})
    env = {"HOME": str(tmp_path)}

    first = accept(places, env, json.dumps(payloads[0]).encode())
    assert first.job and not first.duplicate, first
    for again in payloads[1:]:
        assert accept(places, env, json.dumps(again).encode()).job is None

    queue = workspace / ".clarvis" / "state" / "queue"
    runs = queued_runs(queue)
    assert len(runs) == len({r["run_id"] for r in runs}) == turns


def test_every_real_fixture_is_replayed_above() -> None:
    """A real session added beside any runner's fixtures joins one of the replays above."""
    runners = REAL.parent
    kept = {p for p in [*REAL.glob("*.jsonl"), *runners.glob("*/real/*.json*")]}
    exec_streams = set(REAL.glob("codex-exec-*.jsonl"))  # one run each, read whole above
    replayed = {*REAL_CLAUDE, *REAL_CODEX, *exec_streams}
    assert {p.stem for p in kept - replayed} == set(OTHER_REAL)


def test_a_session_that_crashed_in_its_first_turn_is_picked_up_too(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real two-turn session crashed in its first turn (a Write and a Bash call written,
    no Stop): no hook had queued any turn of it, but its SessionStart ran `wikimem start`, which
    notes where its transcript is. The next session's start, once it has been still, hands it
    on once, and its first turn is queued once."""
    from wikimem.cli import start

    real = REAL / "claude-2.1.14-hello-world.jsonl"
    lines = real.read_text().splitlines(keepends=True)
    session = json.loads(lines[1])["sessionId"]
    transcript = tmp_path / f"{session}.jsonl"
    begun = new_session(workspace, tmp_path, session) | {"transcript_path": str(transcript)}
    handed = handed_on(monkeypatch)
    start.context({}, begun, False)  # Claude Code writes the transcript after its start
    transcript.write_text("".join(lines[:6]))  # the prompt, both calls and results: the crash

    start.context({}, new_session(workspace, tmp_path), False)
    assert handed == []  # written a moment ago: the session may still be running
    an_hour_on(monkeypatch, transcript)
    start.context({}, new_session(workspace, tmp_path), False)
    start.context({}, new_session(workspace, tmp_path, "b9c3e2d1-another"), False)

    assert [(h["session_id"], h["source"]) for h in handed] == [(session, "resume")]
    places = config.places(workspace, {})
    assert accept(places, {}, json.dumps(handed[0]).encode()).job
    assert accept(places, {}, json.dumps(handed[0]).encode()).job is None
    (run,) = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert run["run_id"] == f"{session}:{json.loads(lines[1])['uuid']}"
    assert [e["command"] for e in run["evidence"] if e["kind"] == "command"]


def test_a_start_in_a_folder_of_no_project_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikimem.cli import start

    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    start.context({}, new_session(plain, tmp_path), False)
    assert list(plain.iterdir()) == []
