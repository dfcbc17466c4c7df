"""Claude Code adapter: hook payloads plus transcripts with rewinds, noise and broken lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_wikimem
from wikimem import config
from wikimem.errors import RecordError
from wikimem.intake.accept import accept
from wikimem.intake.queue import STATES, Queue
from wikimem.runners import record_from_payload
from wikimem.runners.claude import is_claude_payload, record_from_claude, records_from_claude

FIXTURES = Path(__file__).parent / "fixtures" / "runners" / "claude"
SESSION = "7c1e9a52-0000-4000-8000-000000000001"
FIRST_PROMPT = "The web build is red on main. Find out why and fix it."
FINAL = (
    "Bumped zod to 3.24.1 and regenerated bun.lockb; `bun install --frozen-lockfile` is "
    "clean again. Pushing was denied, so the commit is local."
)


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_bytes((FIXTURES / "transcript.jsonl").read_bytes())
    return path


def payload(transcript: Path, **changes: object) -> dict:
    data = json.loads((FIXTURES / "stop.json").read_text())
    data["transcript_path"] = str(transcript)
    data.update(changes)
    return data


def test_stop_records_the_last_turn_of_the_active_branch(transcript: Path) -> None:
    record = record_from_claude(payload(transcript))

    assert record == {
        "run_id": f"{SESSION}:u-07",
        "task": "Bump zod properly and regenerate the lockfile, then make the build pass.",
        "agent": {"name": "claude-code", "instance_id": SESSION},
        "status": "succeeded",
        "result": FINAL,
        "started_at": "2026-08-01T10:02:00.000Z",
        "ended_at": "2026-08-01T10:02:20.100Z",
        "evidence": [
            {"kind": "note", "text": f"First request of the session: {FIRST_PROMPT}"},
            {
                "kind": "file",
                "path": "package.json",
                "diff": '@@ -1 +1 @@\n-    "zod": "3.23.8",\n+    "zod": "3.24.1",\n',
            },
            {
                "kind": "command",
                "command": "bun install --frozen-lockfile",
                "exit_code": 2,
                "output": "bun install v1.1.30 (7b5a6c6f)\nerror: lockfile had changes, but "
                "lockfile is frozen\nnote: try re-running without --frozen-lockfile "
                "and commit the updated lockfile",
            },
            {
                "kind": "command",
                "command": "bun install",
                "exit_code": 0,
                "output": "bun install v1.1.30 (7b5a6c6f)\n + zod@3.24.1\n 412 packages "
                "installed [1.92s]\nSaved lockfile",
            },
            {
                "kind": "command",
                "command": "git push origin HEAD",
                "ran": False,
                "output": "Permission to use Bash with command git push origin HEAD has been "
                "denied.",
            },
        ],
        "source": {
            "runner": "claude-code",
            "event": "Stop",
            "session_id": SESSION,
            "transcript_path": str(transcript),
            "cwd": "/home/ci/repo",
            "permission_mode": "acceptEdits",
        },
    }


def test_abandoned_branch_and_sidechain_leave_no_evidence(transcript: Path) -> None:
    commands = [e.get("command") for e in record_from_claude(payload(transcript))["evidence"]]

    assert "rm -rf node_modules bun.lockb && bun install" not in commands
    assert "grep -rn zod src" not in commands


def test_first_turn_alone_when_stop_fires_before_the_second(tmp_path: Path) -> None:
    lines = (FIXTURES / "transcript.jsonl").read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"uuid": "a-03"' in line) + 1
    path = tmp_path / "t.jsonl"
    path.write_text("".join(lines[:cut]))

    record = record_from_claude(payload(path, last_assistant_message="zod/v4 needs 3.24."))

    assert record["run_id"] == f"{SESSION}:u-03"
    assert record["task"] == FIRST_PROMPT
    assert record["evidence"] == [
        {
            "kind": "command",
            "command": "bun run build",
            "exit_code": 1,
            "output": "$ vite build\nerror: Cannot find module 'zod/v4' from 'src/schema.ts'\n"
            'error: script "build" exited with code 1',
        },
    ]


def test_session_end_builds_the_same_run_without_a_status(transcript: Path) -> None:
    end = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": "/home/ci/repo",
        "hook_event_name": "SessionEnd",
        "reason": "other",
    }

    record = record_from_claude(end)

    assert record["run_id"] == record_from_claude(payload(transcript))["run_id"]
    assert "status" not in record
    assert record["result"] == FINAL.replace("; `bun", ";\n`bun")  # joined transcript lines
    assert record["source"]["reason"] == "other"


def test_stop_failure_is_a_failed_run_with_the_error_noted(transcript: Path) -> None:
    record = record_from_claude(
        payload(
            transcript,
            hook_event_name="StopFailure",
            error="rate_limit",
            error_details="429 Too Many Requests",
            last_assistant_message="API Error: 429",
        )
    )

    assert record["status"] == "failed"
    assert record["result"] == "API Error: 429"
    assert {
        "kind": "note",
        "text": "The turn ended on an API error: rate_limit 429 Too Many Requests",
    } in record["evidence"]


def test_a_forced_continuation_is_its_own_run_and_subagent_stops_are_skipped(
    transcript: Path,
) -> None:
    continued = record_from_claude(
        payload(
            transcript,
            stop_hook_active=True,
            **{"last_assistant_message": "Also ran the tests: 42 passed."},
        )
    )

    assert continued is not None
    assert continued["run_id"] == f"{SESSION}:u-07:continued"
    assert continued["result"] == "Also ran the tests: 42 passed."
    assert (
        record_from_claude(
            payload(
                transcript,
                hook_event_name="SubagentStop",
                agent_id="a91f",
                agent_type="Explore",
                agent_transcript_path=str(transcript),
            )
        )
        is None
    )


def test_unreadable_transcript_still_records_the_result(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    record = record_from_claude(payload(missing))

    assert record["task"] == "Claude Code session in repo"
    assert record["result"] == FINAL
    assert record["run_id"] == f"{SESSION}:0b7d3c1e-0000-4000-8000-00000000abcd"
    assert record["evidence"] == [
        {
            "kind": "note",
            "text": (
                "No task or tool evidence from the transcript: it could not be read "
                f"({missing}: No such file or directory); only the hook payload was recorded."
            ),
        }
    ]


def missing_evidence(record: dict) -> str:
    """The note saying the transcript could not be read (the record holds only that note)."""
    [note] = record["evidence"]
    assert note["kind"] == "note" and "could not be read" in note["text"], note
    return note["text"]


def test_a_transcript_that_is_a_folder_is_said_to_be_unreadable(tmp_path: Path) -> None:
    record = record_from_claude(payload(tmp_path))
    assert record["result"] == FINAL and "Is a directory" in missing_evidence(record)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_transcript_without_read_permission_is_said_to_be_unreadable(transcript: Path) -> None:
    transcript.chmod(0)
    try:
        record = record_from_claude(payload(transcript))
    finally:
        transcript.chmod(0o600)
    assert record["result"] == FINAL and "Permission denied" in missing_evidence(record)


def test_a_payload_without_transcript_path_says_so(transcript: Path) -> None:
    event = payload(transcript)
    del event["transcript_path"]
    record = record_from_claude(event)
    assert "names no transcript_path" in missing_evidence(record)
    assert "could not be read" not in str(record_from_claude(payload(transcript))["evidence"])


def test_stop_hook_with_a_missing_transcript_queues_the_run_with_the_note(tmp_path: Path) -> None:
    from tests.conftest import run_wikimem
    from wikimem.intake.queue import Queue

    workspace = tmp_path / "ws"
    (workspace / ".clarvis").mkdir(parents=True)  # a project: a hook records runs only there
    event = payload(tmp_path / "gone.jsonl")
    proc = run_wikimem("hook", "--wait", "-q", cwd=workspace, input=json.dumps(event))
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    [job] = [
        job
        for state in ("done", "failed", "review", "pending")
        for _, job in queue.jobs(state)
        if job is not None
    ]
    assert job.run["result"] == FINAL
    assert "gone.jsonl: No such file or directory" in missing_evidence(job.run)


def test_nothing_to_record_without_task_or_result(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"type":"queue-operation","operation":"dequeue"}\n{broken\n')

    assert record_from_claude(payload(empty, last_assistant_message="")) is None


def line(**fields: object) -> str:
    base = {"isSidechain": False, "sessionId": "S", "timestamp": "2026-08-01T11:00:00Z"}
    return json.dumps(base | fields) + "\n"


def test_compaction_keeps_the_task_from_before_the_boundary(tmp_path: Path) -> None:
    path = tmp_path / "compacted.jsonl"
    path.write_text(
        "".join(
            [
                line(
                    type="user",
                    uuid="u1",
                    parentUuid=None,
                    message={"role": "user", "content": [{"type": "text", "text": "Speed up CI"}]},
                ),
                line(
                    type="assistant",
                    uuid="a1",
                    parentUuid="u1",
                    message={
                        "id": "m1",
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Looking"}],
                    },
                ),
                line(
                    type="system",
                    subtype="compact_boundary",
                    uuid="c1",
                    parentUuid=None,
                    logicalParentUuid="a1",
                    content="Conversation compacted",
                    compactMetadata={"trigger": "auto", "preTokens": 160000},
                ),
                line(
                    type="user",
                    uuid="u2",
                    parentUuid="c1",
                    isCompactSummary=True,
                    message={"role": "user", "content": "This session is being continued ..."},
                ),
                line(
                    type="assistant",
                    uuid="a2",
                    parentUuid="u2",
                    message={
                        "id": "m2",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": "t1",
                                "name": "Bash",
                                "input": {"command": "make ci"},
                            }
                        ],
                    },
                ),
                line(
                    type="user",
                    uuid="u3",
                    parentUuid="a2",
                    message={
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
                    },
                ),
            ]
        )
    )

    record = record_from_claude(
        {
            "session_id": "S",
            "transcript_path": str(path),
            "hook_event_name": "Stop",
            "last_assistant_message": "Done",
        }
    )

    assert record["task"] == "Speed up CI"
    assert record["run_id"] == "S:u1"
    assert record["evidence"] == [
        {"kind": "command", "command": "make ci", "exit_code": 0, "output": "ok"}
    ]


def test_huge_tool_output_is_clipped_head_and_tail(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    big = "BEGIN" + "x" * 100_000 + "END"
    path.write_text(
        "".join(
            [
                line(
                    type="user",
                    uuid="u1",
                    parentUuid=None,
                    message={"role": "user", "content": "Print the log"},
                ),
                line(
                    type="assistant",
                    uuid="a1",
                    parentUuid="u1",
                    message={
                        "id": "m1",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": "t1",
                                "name": "Bash",
                                "input": {"command": "cat big.log"},
                            }
                        ],
                    },
                ),
                line(
                    type="user",
                    uuid="u2",
                    parentUuid="a1",
                    message={
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}],
                    },
                ),
            ]
        )
    )

    record = record_from_claude(
        {"session_id": "S", "transcript_path": str(path), "hook_event_name": "Stop"}
    )

    output = record["evidence"][0]["output"]
    assert 20_000 <= len(output) < 20_100
    assert output.startswith("BEGIN") and output.endswith("END")
    assert "characters omitted" in output


def test_detection_tells_claude_from_codex_and_other_events(transcript: Path) -> None:
    assert is_claude_payload(payload(transcript))
    assert is_claude_payload({"session_id": SESSION, "hook_event_name": "SessionEnd"})
    assert not is_claude_payload(payload(transcript, turn_id="turn-2"))  # Codex's Stop
    assert not is_claude_payload({"session_id": SESSION, "hook_event_name": "PostToolUse"})
    assert not is_claude_payload({"task": "x"})


def test_dispatch_by_payload_shape(transcript: Path) -> None:
    env: dict[str, str] = {}
    assert record_from_payload(payload(transcript), env)["agent"]["name"] == "claude-code"
    assert record_from_payload({"task": "Rename foo", "status": "succeeded"}, env) == {
        "task": "Rename foo",
        "status": "succeeded",
    }
    assert record_from_payload({"session_id": "S", "hook_event_name": "SubagentStart"}, env) is None
    with pytest.raises(RecordError):
        record_from_payload({"hello": "world"}, env)


def test_the_hook_path_imports_no_heavy_dependency(transcript: Path) -> None:
    code = (
        "import json, sys\n"
        "from wikimem.runners import record_from_payload\n"
        f"p = json.loads({json.dumps(json.dumps(payload(transcript)))})\n"
        "assert record_from_payload(p, {})\n"
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


def test_session_end_hook_hands_off_and_the_run_lands(transcript: Path, tmp_path: Path) -> None:
    """SessionEnd leaves ~1.5 s: the hook hands the payload to a detached process through a
    pipe and returns; the run is queued and indexed in the background, no secret on disk."""
    import time

    from tests.conftest import run_wikimem
    from wikimem.intake.queue import Queue

    workspace = tmp_path / "ws"
    (workspace / ".clarvis").mkdir(parents=True)  # a project: a hook records runs only there
    token = "ghp_" + "Zq8Lw2Rt6Yb0Nc4Vx7Mk1Pj5Hg9Fd3Sa2Ue6"
    event = payload(
        transcript,
        hook_event_name="SessionEnd",
        reason="exit",
        last_assistant_message=f"Done. The token was {token}.",
    )
    proc = run_wikimem("hook", cwd=workspace, input=json.dumps(event))
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    deadline = time.monotonic() + 60
    while queue.counts()["done"] < 1:  # the detached process finishes on its own
        assert time.monotonic() < deadline, workspace / ".clarvis/state/background.log"
        time.sleep(0.05)
    job = next(j for _, j in queue.jobs("done"))
    assert job is not None and job.run["task"] == FIRST_PROMPT
    assert token not in json.dumps(job.run)
    for path in (workspace / ".clarvis").rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert token.encode() not in path.read_bytes(), path


def entry(uuid: str, parent: str | None, kind: str, content: object, **extra: object) -> str:
    """One transcript line in the shape Claude Code writes (only the fields the adapter reads)."""
    message: dict[str, object] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = extra.pop("message_id", f"msg-{uuid}")
    data = {
        "parentUuid": parent,
        "isSidechain": extra.pop("sidechain", False),
        "sessionId": SESSION,
        "uuid": uuid,
        "timestamp": f"2026-08-01T10:00:{len(uuid):02d}.000Z",
        "type": kind,
        "message": message,
    }
    data.update(extra)
    return json.dumps(data)


def use(tool_id: str, command: str) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}


def result(tool_id: str, text: str, error: bool = False) -> list[dict]:
    return [{"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}]


def record_of(tmp_path: Path, lines: list[str], **changes: object) -> dict:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    record = record_from_claude(payload(path, cwd="/home/ci/repo", **changes))
    assert record is not None
    return record


def test_parallel_results_on_sibling_branches_are_joined_in_file_order(tmp_path: Path) -> None:
    # One API response written as three lines; each result hangs off the line of its own call,
    # so the parentUuid chain from the last line passes through only one of them.
    edit = {
        "type": "tool_use",
        "id": "t-edit",
        "name": "Edit",
        "input": {"file_path": "/home/ci/repo/Makefile", "old_string": "a", "new_string": "b"},
    }
    lines = [
        entry("p1", None, "user", "Make the build pass"),
        entry("a1", "p1", "assistant", [use("t-1", "make build")], message_id="m1"),
        entry("r1", "a1", "user", result("t-1", "Exit code 2\nmissing target", True)),
        entry("a2", "r1", "assistant", [edit], message_id="m2"),
        entry("a3", "a2", "assistant", [use("t-2", "make build")], message_id="m2"),
        entry("a4", "a3", "assistant", [use("t-3", "git push")], message_id="m2"),
        entry("r2", "a2", "user", result("t-edit", "The file has been updated.")),
        entry("r3", "a3", "user", result("t-2", "built")),
        entry(
            "r4",
            "a4",
            "user",
            result(
                "t-3",
                "The user doesn't want to proceed with this tool use. The tool use was rejected.",
                True,
            ),
        ),
        entry("a5", "r4", "assistant", [{"type": "text", "text": "Fixed the Makefile."}]),
    ]

    evidence = record_of(tmp_path, lines)["evidence"]

    assert [(e["kind"], e.get("command") or e.get("path")) for e in evidence] == [
        ("command", "make build"),
        ("file", "Makefile"),
        ("command", "make build"),
        ("command", "git push"),
    ]
    assert [e.get("exit_code") for e in evidence] == [2, None, 0, None]
    assert evidence[2]["output"] == "built"
    assert evidence[3]["ran"] is False and "exit_code" not in evidence[3]


def test_a_slash_command_s_arguments_are_the_task(tmp_path: Path) -> None:
    prompt = (
        "<command-message>fix-issue</command-message>\n<command-name>/fix-issue</command-name>\n"
        "<command-args>the login form rejects valid emails</command-args>"
    )
    lines = [
        entry("p1", None, "user", prompt),
        entry("m1", "p1", "user", "Expanded command body", isMeta=True),
        entry("a1", "m1", "assistant", [{"type": "text", "text": "Done."}]),
    ]

    assert record_of(tmp_path, lines)["task"] == "the login form rejects valid emails"


def test_a_continued_turn_starts_at_the_stop_hook_feedback(tmp_path: Path) -> None:
    lines = [
        entry("p1", None, "user", "Fix the flaky test"),
        entry("a1", "p1", "assistant", [use("t-1", "pytest -q")]),
        entry("r1", "a1", "user", result("t-1", "1 failed", True)),
        entry("a2", "r1", "assistant", [{"type": "text", "text": "It is flaky."}]),
        entry("f1", "a2", "user", "Stop hook feedback:\n[check]: tests still fail"),
        entry("a3", "f1", "assistant", [use("t-2", "pytest -q -p no:randomly")]),
        entry("r2", "a3", "user", result("t-2", "42 passed")),
        entry("a4", "r2", "assistant", [{"type": "text", "text": "Pinned the seed."}]),
    ]

    first = record_of(tmp_path, lines[:4])
    continued = record_of(tmp_path, lines, stop_hook_active=True, last_assistant_message=None)

    assert first["run_id"] == f"{SESSION}:p1"
    assert continued["run_id"] == f"{SESSION}:f1"
    assert continued["task"] == "Fix the flaky test"
    assert continued["result"] == "Pinned the seed."
    assert [e.get("command") for e in continued["evidence"] if e["kind"] == "command"] == [
        "pytest -q -p no:randomly"
    ]
    assert {
        "kind": "note",
        "text": "A Stop hook continued the turn: [check]: tests still fail",
    } in (continued["evidence"])


def test_an_interrupted_command_is_not_run(tmp_path: Path) -> None:
    lines = [
        entry("p1", None, "user", "Run the slow suite"),
        entry("a1", "p1", "assistant", [use("t-1", "make e2e")]),
        entry(
            "r1",
            "a1",
            "user",
            result("t-1", "[Request interrupted by user for tool use]", True),
            toolUseResult={"stdout": "", "stderr": "", "interrupted": True},
        ),
    ]

    (command,) = [e for e in record_of(tmp_path, lines)["evidence"] if e["kind"] == "command"]

    assert command["ran"] is False and "exit_code" not in command


def test_a_not_run_command_survives_intake_and_is_no_failure(tmp_path: Path) -> None:
    from wikimem.indexing.offline import find_fixes
    from wikimem.intake.record import normalise
    from wikimem.intake.snapshot import take

    lines = [
        entry("p1", None, "user", "Deploy it"),
        entry("a1", "p1", "assistant", [use("t-1", "fly deploy")]),
        entry(
            "r1",
            "a1",
            "user",
            result("t-1", "The user doesn't want to proceed with this tool use.", True),
        ),
        entry("a2", "r1", "assistant", [use("t-2", "fly deploy --dry-run")]),
        entry("r2", "a2", "user", result("t-2", "ok")),
    ]
    run, _ = take(normalise(record_of(tmp_path, lines)))

    rejected, dry = [e for e in run.evidence if e.kind == "command"]
    assert (rejected.ran, rejected.exit_code, dry.ran, dry.exit_code) == (False, None, True, 0)
    assert find_fixes(run.evidence) == []  # a rejected command is not a failure later fixed


def interrupted_session() -> list[str]:
    """Two turns the person interrupted (no Stop fires for them), then one that ended."""
    stopped = "[Request interrupted by user for tool use]"
    return [
        entry("p1", None, "user", "Run the slow suite"),
        entry("a1", "p1", "assistant", [use("t-1", "pytest -x tests/slow")]),
        entry(
            "r1",
            "a1",
            "user",
            result("t-1", stopped, True),
            toolUseResult={"stdout": "", "stderr": "", "interrupted": True},
        ),
        entry("i1", "r1", "user", [{"type": "text", "text": stopped}]),
        entry("p2", "i1", "user", "Only the fast tests then"),
        entry("a2", "p2", "assistant", [use("t-2", "pytest -m fast")]),
        entry("r2", "a2", "user", result("t-2", "3 passed")),
        entry("a3", "r2", "assistant", [{"type": "text", "text": "\n\n"}]),
        entry("i2", "a3", "user", [{"type": "text", "text": "[Request interrupted by user]"}]),
        entry("p3", "i2", "user", "Commit it"),
        entry("a4", "p3", "assistant", [use("t-3", "git commit -am wip")]),
        entry("r3", "a4", "user", result("t-3", "[main 1a2b3c4] wip")),
        entry("a5", "r3", "assistant", [{"type": "text", "text": "Committed."}]),
    ]


def queued_runs(workspace: Path) -> list[dict]:
    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    return [job.run for state in STATES for _, job in queue.jobs(state) if job is not None]


def test_interrupted_turns_are_recorded_with_what_they_did(tmp_path: Path) -> None:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(interrupted_session()) + "\n")

    records = records_from_claude(payload(path, last_assistant_message="Committed."))

    assert [(key, r["status"], r["task"]) for key, r in records] == [
        ("p1", "interrupted", "Run the slow suite"),
        ("p2", "interrupted", "Only the fast tests then"),
        ("p3", "succeeded", "Commit it"),
    ]
    first, second, last = (r for _, r in records)
    assert [e.get("command") for e in first["evidence"] if e["kind"] == "command"] == [
        "pytest -x tests/slow"
    ]
    assert {"kind": "note", "text": "The person interrupted this turn before it finished."} in (
        first["evidence"]
    )
    assert "result" not in second  # an interrupt leaves "\n\n", which is no answer
    assert {
        "kind": "command",
        "command": "pytest -m fast",
        "exit_code": 0,
        "output": "3 passed",
    } in (second["evidence"])
    assert last["result"] == "Committed."


def test_every_turn_is_queued_once_whichever_hooks_fire(workspace: Path, tmp_path: Path) -> None:
    path = tmp_path / f"{SESSION}.jsonl"
    lines = interrupted_session()
    path.write_text("\n".join(lines[:9]) + "\n")  # the first two turns, both interrupted: no Stop
    places = config.places(workspace, {})

    compacting = accept(
        places, {}, json.dumps(payload(path, hook_event_name="PreCompact")).encode()
    )
    path.write_text("\n".join(lines) + "\n")
    stop = accept(
        places, {}, json.dumps(payload(path, last_assistant_message="Committed.")).encode()
    )
    end = accept(
        places, {}, json.dumps(payload(path, hook_event_name="SessionEnd", reason="exit")).encode()
    )

    # PreCompact took the two interrupted turns (the second had ended: it was interrupted),
    # Stop the turn it reports, SessionEnd found nothing left.
    runs = queued_runs(workspace)
    assert sorted(r["run_id"] for r in runs) == [f"{SESSION}:p1", f"{SESSION}:p2", f"{SESSION}:p3"]
    assert compacting.run_id == f"{SESSION}:p2" and stop.run_id == f"{SESSION}:p3"
    assert end.job is None and end.skipped
    cursor = json.loads((places.state / "sessions" / f"claude-{SESSION}.json").read_text())
    assert cursor["recorded"] == ["p1", "p2", "p3"]


def test_a_crash_before_the_cursor_is_written_loses_no_turn(
    workspace: Path, tmp_path: Path
) -> None:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(interrupted_session()) + "\n")
    event = json.dumps(payload(path, last_assistant_message="Committed."))
    cursor = workspace / ".clarvis" / "state" / "sessions" / f"claude-{SESSION}.json"

    # Checkpoints 1-6: the three jobs' writes; the 7th is the cursor's rename.
    crashed = run_wikimem(
        "hook", "-q", cwd=workspace, input=event, env={"WIKIMEM_CRASH_AFTER": "7"}
    )
    assert crashed.returncode != 0 and b"checkpoint 7" in crashed.stderr
    assert len(queued_runs(workspace)) == 3 and not cursor.exists()

    again = run_wikimem("hook", "-q", cwd=workspace, input=event)
    assert again.returncode == 0, again.stderr
    assert len(queued_runs(workspace)) == 3  # the same three, taken as duplicates
    assert json.loads(cursor.read_text())["recorded"] == ["p1", "p2", "p3"]


def test_a_background_command_has_its_later_outcome_or_is_running(tmp_path: Path) -> None:
    background = {"type": "tool_use", "id": "t-1", "name": "Bash"}
    lines = [
        entry("p1", None, "user", "Start the dev server and run the suite"),
        entry(
            "a1",
            "p1",
            "assistant",
            [background | {"input": {"command": "npm run dev", "run_in_background": True}}],
        ),
        entry(
            "r1",
            "a1",
            "user",
            result("t-1", "Command running in background with ID: bash_1"),
            toolUseResult={"stdout": "", "stderr": "", "backgroundTaskId": "bash_1"},
        ),
        entry("a2", "r1", "assistant", [use("t-2", "npx vitest run")]),
        entry(
            "r2",
            "a2",
            "user",
            result("t-2", "Command was manually backgrounded by user with ID: bash_2"),
        ),
        entry(
            "a3",
            "r2",
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "t-3",
                    "name": "BashOutput",
                    "input": {"bash_id": "bash_2"},
                }
            ],
        ),
        entry(
            "r3",
            "a3",
            "user",
            result(
                "t-3",
                "<status>completed</status>\n\n<exit_code>1</exit_code>\n\n"
                "<stdout>\n1 failed, 41 passed\n</stdout>",
            ),
        ),
        entry("a4", "r3", "assistant", [{"type": "text", "text": "One test fails."}]),
    ]

    server, suite = [e for e in record_of(tmp_path, lines)["evidence"] if e["kind"] == "command"]

    assert server == {
        "kind": "command",
        "command": "npm run dev",
        "running": True,
        "output": "Command running in background with ID: bash_1",
    }
    assert suite["exit_code"] == 1 and suite["output"].endswith("1 failed, 41 passed")
    from wikimem.intake.record import normalise

    kept = normalise(record_of(tmp_path, lines)).evidence
    assert [(e.exit_code, e.running) for e in kept if e.kind == "command"] == [
        (None, True),
        (1, False),
    ]


def test_a_subagent_s_commands_and_report_are_recorded_under_the_parent(tmp_path: Path) -> None:
    task = {
        "type": "tool_use",
        "id": "t-task",
        "name": "Task",
        "input": {
            "subagent_type": "Explore",
            "description": "Find the failing test",
            "prompt": "Run the suite and find which test fails",
        },
    }
    lines = [
        entry("p1", None, "user", "Why is CI red?"),
        entry("a1", "p1", "assistant", [task]),
        entry(
            "r1",
            "a1",
            "user",
            result("t-task", "test_dates fails: it assumes the local zone."),
            toolUseResult={"status": "completed", "agentId": "a91f", "totalToolUseCount": 2},
        ),
        entry("a2", "r1", "assistant", [{"type": "text", "text": "The date test is zone-bound."}]),
    ]
    own = tmp_path / SESSION / "subagents" / "agent-a91f.jsonl"
    own.parent.mkdir(parents=True)
    own.write_text(
        "\n".join(
            [
                entry(
                    "s1", None, "user", "Run the suite and find which test fails", sidechain=True
                ),
                entry("s2", "s1", "assistant", [use("t-s1", "pytest -q")], sidechain=True),
                entry(
                    "s3",
                    "s2",
                    "user",
                    result("t-s1", "Exit code 1\n1 failed", True),
                    sidechain=True,
                ),
                entry(
                    "s4",
                    "s3",
                    "assistant",
                    [use("t-s2", "pytest -q tests/test_dates.py")],
                    sidechain=True,
                ),
                entry(
                    "s5",
                    "s4",
                    "user",
                    result("t-s2", "Exit code 1\n1 failed", True),
                    sidechain=True,
                ),
            ]
        )
        + "\n"
    )

    evidence = record_of(tmp_path, lines)["evidence"]

    assert evidence == [
        {
            "kind": "command",
            "command": "pytest -q",
            "exit_code": 1,
            "output": "1 failed",
            "subagent": "Explore",
        },
        {
            "kind": "command",
            "command": "pytest -q tests/test_dates.py",
            "exit_code": 1,
            "output": "1 failed",
            "subagent": "Explore",
        },
        {
            "kind": "note",
            "text": "Subagent Explore (Find the failing test) reported: test_dates fails: it "
            "assumes the local zone.",
        },
    ]
    from wikimem.intake.record import normalise

    kept = normalise(record_of(tmp_path, lines)).evidence
    assert [e.subagent for e in kept] == ["Explore", "Explore", ""]


def test_a_resumed_session_records_the_turns_no_hook_did(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session crashed after two interrupted turns and a third whose Stop never came:
    the SessionStart of its resume hands the payload to a detached hook, which records all."""
    from wikimem.cli import start
    from wikimem.intake import background

    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(interrupted_session()) + "\n")
    resumed = {
        "session_id": SESSION,
        "transcript_path": str(path),
        "cwd": str(workspace),
        "hook_event_name": "SessionStart",
        "source": "resume",
    }
    handed: list[tuple[list[str], bytes | None]] = []
    monkeypatch.setattr(
        background, "spawn", lambda args, log, data=None: handed.append((args, data))
    )

    start.context({}, resumed, False)
    start.context({}, resumed | {"source": "startup"}, False)  # a new session: nothing to do

    [(args, data)] = handed
    assert args[:2] == ["hook", "--handoff"] and json.loads(data or b"") == resumed
    places = config.places(workspace, {})
    done = accept(places, {}, data or b"")
    assert done.job and len(queued_runs(workspace)) == 3
    statuses = sorted(str(r.get("status") or "") for r in queued_runs(workspace))
    assert statuses == [
        "",  # the third: no Stop said how it ended
        "interrupted",
        "interrupted",
    ]  # the third: no Stop said how it ended


def test_a_message_queued_mid_turn_and_a_folded_notification_join_the_turn(
    tmp_path: Path,
) -> None:
    """Claude Code folds what arrives while the turn runs into it as `queued_command`
    attachments: the person's message, and a background command's notification."""

    def attachment(uuid: str, parent: str, **fields: object) -> str:
        return json.dumps(
            {
                "type": "attachment",
                "uuid": uuid,
                "parentUuid": parent,
                "isSidechain": False,
                "sessionId": SESSION,
                "attachment": {"type": "queued_command", **fields},
            }
        )

    background = {"command": "npm run e2e", "run_in_background": True}
    lines = [
        entry("p1", None, "user", "Run the e2e suite"),
        entry(
            "a1",
            "p1",
            "assistant",
            [{"type": "tool_use", "id": "t-1", "name": "Bash", "input": background}],
        ),
        entry("r1", "a1", "user", result("t-1", "Command running in background with ID: b1")),
        attachment(
            "q1", "r1", commandMode="prompt", origin={"kind": "human"}, prompt="only the login spec"
        ),
        attachment(
            "q2",
            "q1",
            commandMode="task-notification",
            prompt="<task-notification><tool-use-id>t-1</tool-use-id><status>failed</status>"
            "<exit-code>2</exit-code></task-notification>",
        ),
        entry("a2", "q2", "assistant", [{"type": "text", "text": "The e2e suite failed."}]),
    ]

    records = records_from_claude(payload(_write(tmp_path, lines), cwd="/home/ci/repo"))

    [(key, record)] = records  # one turn: neither attachment starts another
    assert key == "p1"
    [command] = [e for e in record["evidence"] if e["kind"] == "command"]
    assert command["exit_code"] == 2 and "running" not in command
    assert {
        "kind": "note",
        "text": "Message the person sent during the turn: only the login spec",
    } in record["evidence"]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_new_session_s_cursor_prunes_the_cursors_of_long_gone_sessions(tmp_path: Path) -> None:
    from wikimem.runners.cursor import STALE_SECONDS, Cursor

    state = tmp_path / ".clarvis" / "state"
    with Cursor(state, "claude-old") as old:
        old.add(["u-1"])
    with Cursor(state, "claude-recent") as recent:
        recent.add(["u-1"])
    gone = time.time() - STALE_SECONDS - 60
    os.utime(old.path, (gone, gone))

    with Cursor(state, "claude-new") as new:
        new.add(["u-1"])

    assert not old.path.exists() and not old.path.with_suffix(".lock").exists()
    assert recent.path.exists() and new.path.exists()
    with Cursor(state, "claude-recent") as again:
        assert "u-1" in again
