"""Claude Code adapter: a Stop / StopFailure / SessionEnd hook payload plus its transcript.

The result comes from the payload (`last_assistant_message`), because the transcript is
written asynchronously and may lack the final turn when Stop fires. The transcript (JSONL,
an internal format that changes between versions) gives the task and the tool evidence; it
is read line by line, unknown record types and broken lines are skipped, and only the active
branch counts: the `parentUuid` chain walked back from the last message, so messages left
behind by a rewind are ignored. A compaction starts a new root whose `logicalParentUuid`
points at the message before it; the walk follows that link when the message is still there.
A transcript that cannot be read (gone, no permission) still gives a record from the payload,
whose first evidence item is a note saying so: missing evidence is not the same as none.

One record describes one turn: the evidence from the turn's prompt onward, the session's
first prompt as the task. Its run_id, `<session>:<uuid of the turn's prompt>`, is the same
whether Stop or SessionEnd builds it, so a turn reported twice is one run.

Tool results are joined to their calls by `tool_use_id`, not along the chain: when Claude runs
tools in parallel, one API response is written as several lines and the results hang off sibling
branches. Lines of the same response (`message.id`) and the results answering the branch's calls
belong to the branch; sidechains (subagents) never do. Evidence keeps the file's order: commands
and edits interleaved, as they happened. A call the person rejected or interrupted is recorded as
not run (`"ran": false`, no exit code), never as a failure.

SubagentStop yields None: a subagent works for its parent, whose Stop records the whole turn,
so a subagent's stop never writes memory on its own authority. A Stop that a Stop hook forced
(`stop_hook_active`) records the continued turn under its own run id (the uuid of the hook's
feedback line, which starts that turn), so each continuation is one run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from wikimem.runners.transcripts import clip, nonempty_string, parse_jsonl, relative_to_cwd, text_of

END_EVENTS = frozenset(
    {"Stop", "StopFailure", "SubagentStop", "SessionEnd", "PreCompact", "PostCompact"}
)
# SessionStart of a resumed session (handed on by `wikimem start`): every turn before it is over
RESUMED = "SessionStart"
FILE_TOOLS = {
    "Edit": "file_path",
    "Write": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
# Text Claude Code injects as a user message: slash commands, their output, reminders.
NOT_PROMPTS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-",
    "<system-reminder>",
    "<task-notification>",
    "<user-prompt-submit-hook>",
    "Caveat: The messages below",
    "[Request interrupted by user",
)
EXIT_CODE = re.compile(r"\A\s*(?:Error: )?Exit code (-?\d+)[^\n]*\n?")
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
STOP_FEEDBACK = "Stop hook feedback:"
INTERRUPTED = "[Request interrupted by user"
# What Claude Code answers instead of running a call: a rejection, an interrupt, a denial, a
# validation error or a blocking PreToolUse hook.
NOT_RUN = re.compile(
    r"The user doesn't want to (?:proceed|take this action)|tool use was rejected"
    r"|\[Request interrupted by user|Permission to use [^\n]{0,400}? has been denied"
    r"|haven't granted it yet|<tool_use_error>|hook (?:returned )?blocking error"
)


# A command moved to the background answers with its task id; its outcome comes later, from
# the tool that reads a background task's output (BashOutput, TaskOutput) or a notification.
BACKGROUND = re.compile(
    r"(?:running in (?:the )?background|backgrounded)[^\n]*?ID:?\s*([\w-]+)", re.I
)
POLL_TOOLS = frozenset({"BashOutput", "TaskOutput"})
POLL_IDS = ("bash_id", "shell_id", "task_id")
INPUT_KEYS = ("command", "description", "file_path", "notebook_path", "subagent_type")
TAG = r"<{0}>\s*(.*?)\s*</{0}>"


@dataclass(frozen=True)
class ToolUse:
    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    is_error: bool
    text: str
    stdout: str | None = None
    stderr: str | None = None
    interrupted: bool = False
    background_id: str | None = None  # the task id of a command moved to the background
    agent_id: str | None = None  # the subagent a Task/Agent call started (its transcript's id)


@dataclass(frozen=True)
class Entry:
    """The part of one transcript line the adapter needs, tool outputs already clipped."""

    type: str
    uuid: str | None = None
    parent: str | None = None
    sidechain: bool = False
    timestamp: str | None = None
    prompt: str | None = None
    feedback: str | None = None  # a Stop hook's reason to continue: starts a continued turn
    interrupt: bool = False  # the person stopped the turn ("[Request interrupted by user")
    notification: str | None = None  # a background task's <task-notification>
    queued: str | None = None  # a message the person typed while the turn ran (attachment)
    message_id: str | None = None
    text: str = ""
    tool_uses: tuple[ToolUse, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True)
class Turn:
    """What the active branch says about the run: task, the turn's prompt, evidence."""

    task: str | None = None
    prompt: str | None = None
    prompt_uuid: str | None = None
    result: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    feedback: str | None = None  # set when the turn is one a Stop hook continued
    evidence: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False  # the person stopped it before it ended
    queued: tuple[str, ...] = ()  # messages the person sent while the turn was running
    last: bool = False  # the branch's last turn (the one a Stop reports)


def is_claude_payload(payload: Mapping[str, Any]) -> bool:
    """A Claude Code end-of-turn or end-of-session hook payload (not Codex's look-alike)."""
    event = payload.get("hook_event_name")
    return (
        (event in END_EVENTS or (event == RESUMED and payload.get("source") == "resume"))
        and ("session_id" in payload or "transcript_path" in payload)
        and "turn_id" not in payload
        and not PurePath(str(payload.get("transcript_path") or "")).name.startswith("rollout-")
    )


def record_from_claude(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The run record of the turn a Claude Code hook reports (the branch's last), or None."""
    records = records_from_claude(payload, (), every=False)
    return records[-1][1] if records else None


# Events after which the branch's last turn is over; at a compaction it is still running.
TURN_OVER = frozenset({"Stop", "StopFailure", "SessionEnd", "SessionStart"})


def records_from_claude(
    payload: Mapping[str, Any], recorded: Collection[str] = (), *, every: bool = True
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of each turn of the session not in `recorded`, oldest first.

    Stop reports only the turn that ended; the transcript also holds the turns no hook
    reported (interrupted, crashed), so each hook records them all (`every`). At a compaction
    the last turn is still running: its Stop records it, unless the person interrupted it. A
    key of None is a record the cursor cannot track (no transcript to read)."""
    event = payload.get("hook_event_name")
    if event == "SubagentStop":
        return []
    session = str(payload.get("session_id") or "")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    path = payload.get("transcript_path")
    if isinstance(path, str) and path:
        entries, unread = load_transcript(path)
    else:
        entries, unread = [], "the payload names no transcript_path"
    loader = _subagents(path, session) if isinstance(path, str) and path else None
    turns = split_turns(entries, cwd, loader) or [Turn(last=True)]
    out: list[tuple[str | None, dict[str, Any]]] = []
    for index, turn in enumerate(turns):
        if not turn.last and not every:
            continue
        if turn.last and event not in TURN_OVER and not turn.interrupted:
            continue  # PreCompact / PostCompact: the running turn is its Stop's to record
        key = turn.prompt_uuid or (f"#{index}" if turn.prompt or turn.feedback else None)
        if key is not None and key in recorded:
            continue
        record = _record(payload, turn, unread if turn.last else None, session, cwd)
        if record is None:
            continue
        if turn.last and payload.get("stop_hook_active") and turn.feedback is None and key:
            key += ":continued"  # the feedback line is not written yet: still its own run
            if key in recorded:
                continue
            record["run_id"] = _run_id(session, key)
        out.append((key if turn.prompt_uuid or turn.feedback or turn.prompt else None, record))
    return out


def _record(
    payload: Mapping[str, Any],
    turn: Turn,
    unread: str | None,
    session: str,
    cwd: str | None,
) -> dict[str, Any] | None:
    event = payload.get("hook_event_name")
    reported = turn.last and event in ("Stop", "StopFailure")
    answer = nonempty_string(payload.get("last_assistant_message")) if turn.last else None
    result = (answer if event in TURN_OVER else None) or turn.result
    if turn.task is None and not result:
        return None
    turn_id = turn.prompt_uuid or (nonempty_string(payload.get("prompt_id")) if turn.last else None)
    record: dict[str, Any] = {
        "run_id": _run_id(session, turn_id),
        "task": turn.prompt
        or turn.task
        or f"Claude Code session in {PurePath(cwd or '.').name or cwd}",
        "agent": {
            "name": "claude-code",
            "instance_id": nonempty_string(payload.get("agent_id")) or session,
        },
    }
    if turn.interrupted:
        record["status"] = "interrupted"
    elif reported:
        record["status"] = "succeeded" if event == "Stop" else "failed"
    if result:
        record["result"] = result
    if turn.started_at:
        record["started_at"] = turn.started_at
    if turn.ended_at:
        record["ended_at"] = turn.ended_at
    record["evidence"] = _notes(payload, turn, unread) + turn.evidence
    record["source"] = _source(payload)
    return record


def _subagents(path: str, session: str) -> Callable[[str], list[Entry]]:
    """Where a subagent's transcript is: `<session>/subagents/agent-<id>.jsonl` beside the
    session's (current versions), else `agent-<id>.jsonl` beside it (older ones)."""
    folder = PurePath(path).parent

    def load(agent_id: str) -> list[Entry]:
        if not re.fullmatch(r"[\w-]{1,80}", agent_id):
            return []
        stem = PurePath(path).stem or session
        for candidate in (
            folder / stem / "subagents" / f"agent-{agent_id}.jsonl",
            folder / f"agent-{agent_id}.jsonl",
        ):
            try:
                with open(candidate, encoding="utf-8", errors="replace") as handle:
                    lines = parse_jsonl(handle)
                    return [e for line in lines if (e := entry_from_line(line))]
            except OSError:
                continue
        return []

    return load


def read_transcript(path: str) -> list[Entry]:
    """The entries on the transcript's active branch, root first (none if it cannot be read)."""
    return load_transcript(path)[0]


def load_transcript(path: str) -> tuple[list[Entry], str | None]:
    """Like `read_transcript`, and why the file could not be read (None when it could).

    The hook still records the turn from its payload (fail open); the reason goes into the
    record so that a run without evidence says the evidence is missing, not that there was
    none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = parse_jsonl(handle)  # streamed: a transcript can be large
            return active_branch(e for line in lines if (e := entry_from_line(line))), None
    except OSError as exc:
        return [], f"{path}: {exc.strerror or type(exc).__name__}"


def entry_from_line(line: Mapping[str, Any]) -> Entry | None:
    """Project one transcript or stream-json line; None for types that carry no message."""
    kind = line.get("type")
    message = line.get("message")
    attachment = line.get("attachment")
    if kind == "attachment" and isinstance(attachment, Mapping):
        return _attachment(line, attachment)
    if kind not in ("user", "assistant", "system") or (
        kind != "system" and not isinstance(message, Mapping)
    ):
        # Lines without a message may still hold the chain together (compact boundaries).
        return (
            Entry(type=str(kind), uuid=nonempty_string(line.get("uuid")), parent=_parent(line))
            if line.get("uuid")
            else None
        )
    common: dict[str, Any] = {
        "type": kind,
        "uuid": nonempty_string(line.get("uuid")),
        "parent": _parent(line),
        "sidechain": bool(line.get("isSidechain")),
        "timestamp": nonempty_string(line.get("timestamp")),
    }
    if kind == "system" or not isinstance(message, Mapping):
        return Entry(**common)
    content = message.get("content")
    if kind == "assistant":
        blocks = content if isinstance(content, list) else []
        uses = tuple(
            ToolUse(str(b.get("id", "")), str(b.get("name", "")), _slim_input(b.get("input")))
            for b in blocks
            if isinstance(b, Mapping) and b.get("type") == "tool_use"
        )
        return Entry(
            **common,
            message_id=nonempty_string(message.get("id")),
            text=text_of(content),
            tool_uses=uses,
        )
    results = _tool_results(content, line.get("toolUseResult", line.get("tool_use_result")))
    if results:
        stopped = any(r.interrupted or r.text.startswith(INTERRUPTED) for r in results)
        return Entry(**common, tool_results=results, interrupt=stopped)
    text = text_of(content).strip()
    if text.startswith(INTERRUPTED):
        return Entry(**common, interrupt=True)
    if text.startswith("<task-notification>"):
        return Entry(**common, notification=clip(text))
    if text.startswith(STOP_FEEDBACK):
        return Entry(**common, feedback=text[len(STOP_FEEDBACK) :].strip() or text)
    return Entry(**common, prompt=_prompt(line, text))


def _attachment(line: Mapping[str, Any], attachment: Mapping[str, Any]) -> Entry | None:
    """Claude Code folds what arrives mid-turn into the turn as a `queued_command` attachment:
    a message the person typed (commandMode "prompt") or a background task's notification."""
    uuid, parent = nonempty_string(line.get("uuid")), _parent(line)
    if attachment.get("type") != "queued_command" or attachment.get("isMeta"):
        return Entry(type="attachment", uuid=uuid, parent=parent) if uuid else None
    text = text_of(attachment.get("prompt")).strip()
    mode = attachment.get("commandMode")
    origin = attachment.get("origin")
    human = not isinstance(origin, Mapping) or origin.get("kind", "human") == "human"
    common: dict[str, Any] = {"type": "attachment", "uuid": uuid, "parent": parent}
    if mode == "task-notification" or text.startswith("<task-notification>"):
        return Entry(**common, notification=clip(text))
    if mode in ("prompt", None) and human and text:
        return Entry(**common, queued=clip(text, 4000))
    return Entry(**common) if uuid else None


def active_branch(entries: Iterable[Entry]) -> list[Entry]:
    """The active branch in file order: the `parentUuid` path from the last main-thread
    message back to the root, with the lines of its parallel tool calls that hang off it."""
    by_uuid: dict[str, Entry] = {}
    kept: list[Entry] = []
    leaf: Entry | None = None
    for entry in entries:
        if entry.sidechain:
            continue
        kept.append(entry)
        if entry.uuid:
            by_uuid[entry.uuid] = entry
        if entry.type in ("user", "assistant"):
            leaf = entry
    if leaf is None:
        return []
    if not leaf.uuid:  # a format without uuids (stream-json): the order is the branch
        return [e for e in kept if not e.uuid and e.type in ("user", "assistant")]
    seen: set[str] = set()
    current: Entry | None = leaf
    while current is not None and current.uuid and current.uuid not in seen:
        seen.add(current.uuid)
        current = by_uuid.get(current.parent) if current.parent else None
    return _with_siblings([e for e in kept if e.uuid in seen], kept, seen)


def _with_siblings(path: list[Entry], kept: list[Entry], seen: set[str]) -> list[Entry]:
    """Add the off-path lines of the path's API responses, then the results of their calls."""
    responses = {e.message_id for e in path if e.message_id}
    calls = {use.id for e in path for use in e.tool_uses}
    joined = set(seen)
    for entry in kept:
        if entry.uuid not in joined and entry.message_id in responses and entry.message_id:
            joined.add(entry.uuid or "")
            calls.update(use.id for use in entry.tool_uses)
    for entry in kept:
        if entry.uuid not in joined and any(r.tool_use_id in calls for r in entry.tool_results):
            joined.add(entry.uuid or "")
    chosen: list[Entry] = []
    for entry in kept:  # file order; a line written twice counts once
        if entry.uuid in joined:
            joined.discard(entry.uuid)
            chosen.append(entry)
    return chosen


def summarise(entries: Sequence[Entry], cwd: str | None = None) -> Turn:
    """The branch's last turn, with the session's first prompt as its task."""
    turns = split_turns(entries, cwd)
    return turns[-1] if turns else Turn()


def split_turns(
    entries: Sequence[Entry],
    cwd: str | None = None,
    subagent: Callable[[str], list[Entry]] | None = None,
) -> list[Turn]:
    """The branch's turns in order, as Claude Code delimits them: a prompt (or a Stop hook's
    feedback) starts one, unless it arrives while the turn is still running: a message the
    person queued mid-turn is written after a tool result and joins the turn."""
    if not entries:
        return []
    starts: list[int] = []
    queued: dict[int, list[str]] = {}
    previous: Entry | None = None
    for i, entry in enumerate(entries):
        if entry.queued:
            if starts:
                queued.setdefault(starts[-1], []).append(entry.queued)
            continue
        if entry.prompt or entry.feedback:
            running = (
                entry.prompt is not None
                and previous is not None
                and bool(previous.tool_results)
                and not previous.interrupt
                and bool(starts)
            )
            if running:
                queued.setdefault(starts[-1], []).append(entry.prompt or "")
            else:
                starts.append(i)
        if entry.type in ("user", "assistant"):
            previous = entry
    prompts = [i for i in starts if entries[i].prompt]
    task = entries[prompts[0]].prompt if prompts else None
    heads = starts or [0]
    # a background command's outcome may be read in a later turn than the one that started it
    results = {r.tool_use_id: r for e in entries for r in e.tool_results}
    later = _later_outcomes(
        [use for e in entries for use in e.tool_uses],
        results,
        [e.notification for e in entries if e.notification],
    )
    turns = []
    prompt: str | None = None
    for n, head_at in enumerate(heads):
        begin = 0 if n == 0 else head_at  # what precedes the first prompt belongs to it
        part = entries[begin : heads[n + 1] if n + 1 < len(heads) else len(entries)]
        head = entries[head_at]
        prompt = head.prompt or prompt  # a continued turn answers the prompt before it
        turns.append(
            Turn(
                task=task,
                prompt=prompt,
                prompt_uuid=head.uuid if starts else None,
                result=_last_text(part),
                started_at=head.timestamp or part[0].timestamp,
                ended_at=next((e.timestamp for e in reversed(part) if e.timestamp), None),
                feedback=head.feedback,
                evidence=evidence_from(part, cwd, later, subagent),
                interrupted=any(e.interrupt for e in part),
                queued=tuple(queued.get(head_at, ())),
                last=n + 1 == len(heads),
            )
        )
    return turns


SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
REPORT_CHARS = 2000


def evidence_from(
    entries: Iterable[Entry],
    cwd: str | None = None,
    later: Mapping[str, Mapping[str, Any]] | None = None,
    subagent: Callable[[str], list[Entry]] | None = None,
) -> list[dict[str, Any]]:
    """Bash commands with their outcomes and file edits, in the order they were called.

    An edit whose call failed (rejected, or its text not found) changed nothing and is left
    out; successive edits of one file merge into one item. A subagent's work is the parent's:
    its report (the Task/Agent call's result) is a note, and the commands and edits in its own
    transcript (`subagent(agent_id)`) follow, each marked as the subagent's."""
    calls: list[ToolUse] = []
    results: dict[str, ToolResult] = {}
    notes: list[str] = []
    for entry in entries:
        calls.extend(entry.tool_uses)
        for answer in entry.tool_results:
            results.setdefault(answer.tool_use_id, answer)
        if entry.notification:
            notes.append(entry.notification)
    if later is None:
        later = _later_outcomes(calls, results, notes)
    evidence: list[dict[str, Any]] = []
    diffs: dict[int, list[str]] = {}
    done: set[str] = set()
    for use in calls:
        result = results.get(use.id)
        if use.id in done:
            continue
        done.add(use.id)
        if use.name == "Bash" and isinstance(use.input.get("command"), str):
            item = {"kind": "command", "command": use.input["command"]}
            outcome = _outcome(result) if result else {}
            task = result.background_id if result else None
            if task or (use.input.get("run_in_background") and result and not result.is_error):
                seen = later.get(task or "") or later.get(use.id)
                outcome = _background(result.text if result else "", seen)
            evidence.append(item | outcome)
        elif use.name in FILE_TOOLS and isinstance(use.input.get(FILE_TOOLS[use.name]), str):
            if result is not None and result.is_error:
                continue
            path = relative_to_cwd(use.input[FILE_TOOLS[use.name]], cwd)
            last = evidence[-1] if evidence else None
            if not (last and last["kind"] == "file" and last["path"] == path):
                evidence.append({"kind": "file", "path": path})
            diffs.setdefault(len(evidence) - 1, []).extend(_diffs(use))
        elif use.name in SUBAGENT_TOOLS and result is not None:
            who = str(use.input.get("subagent_type") or "general-purpose")
            what = str(use.input.get("description") or "")
            own = subagent(result.agent_id) if subagent and result.agent_id else []
            for item in evidence_from(own, cwd):
                if item["kind"] != "note":
                    evidence.append(item | {"subagent": who})
            report = " ".join(result.text.split())
            if len(report) > REPORT_CHARS:
                report = report[: REPORT_CHARS - 1] + "…"
            evidence.append(
                {
                    "kind": "note",
                    "text": f"Subagent {who}{f' ({what})' if what else ''} reported: {report}",
                }
            )
    for index, parts in diffs.items():
        if parts:
            evidence[index]["diff"] = clip("".join(parts))
    return evidence


def _outcome(result: ToolResult) -> dict[str, Any]:
    """Exit code and output of a Bash result; the transcript has no numeric exit status."""
    if result.interrupted or (result.is_error and NOT_RUN.search(result.text[:2000])):
        return {"ran": False, "output": clip(result.text)}
    if result.is_error:
        match = EXIT_CODE.match(result.text)
        code = int(match.group(1)) if match else 1
        output = result.text[match.end() :] if match else result.text
        return {"exit_code": code, "output": clip(output)}
    if result.stdout is not None or result.stderr is not None:
        output = "\n".join(part for part in (result.stdout, result.stderr) if part)
    else:
        output = result.text
    return {"exit_code": 0, "output": clip(output)}


def _background(first: str, later: Mapping[str, Any] | None) -> dict[str, Any]:
    """A background command's outcome: the later one when the transcript has it, else
    "running" (its first answer says only that it started: no exit code 0)."""
    status = (later or {}).get("status", "")
    code = (later or {}).get("exit_code")
    if code is None and status in ("completed", "failed"):
        code = 0 if status == "completed" else 1
    output = "\n".join([first, *(later or {}).get("output", [])]).strip("\n")
    if code is None:
        return {"running": True, "output": clip(output)}
    return {"exit_code": code, "output": clip(output)}


def _tool_results(content: Any, structured: Any) -> tuple[ToolResult, ...]:
    blocks = (
        [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result"]
        if isinstance(content, list)
        else []
    )
    # The structured result sits on the line, so it is only unambiguous for a lone result.
    streams = structured if isinstance(structured, Mapping) and len(blocks) == 1 else {}
    return tuple(
        ToolResult(
            tool_use_id=str(b.get("tool_use_id", "")),
            is_error=bool(b.get("is_error")),
            text=clip(text_of(b.get("content"))),
            stdout=_clipped(streams.get("stdout")),
            stderr=_clipped(streams.get("stderr")),
            interrupted=streams.get("interrupted") is True,
            background_id=_background_id(streams, text_of(b.get("content"))),
            agent_id=nonempty_string(streams.get("agentId"))
            or nonempty_string(streams.get("agent_id")),
        )
        for b in blocks
    )


def _background_id(streams: Mapping[str, Any], text: str) -> str | None:
    for key in ("backgroundTaskId", "background_task_id", "shellId"):
        if isinstance(streams.get(key), str) and streams[key]:
            return str(streams[key])
    match = BACKGROUND.search(text[:500])
    return match.group(1) if match else None


def _later_outcomes(
    calls: list[ToolUse], results: dict[str, ToolResult], notes: list[str]
) -> dict[str, dict[str, Any]]:
    """What the transcript says later of each background task, by task id: the last poll's
    or notification's status, exit code and output."""
    texts: list[tuple[str | None, str]] = []
    for use in calls:
        if use.name in POLL_TOOLS and use.id in results:
            task = next((str(use.input[k]) for k in POLL_IDS if use.input.get(k)), None)
            texts.append((task, results[use.id].text))
    for note in notes:
        for name in ("task-id", "tool-use-id"):
            tag = re.search(TAG.format(name), note, re.S)
            if tag:
                texts.append((tag.group(1), note))
    found: dict[str, dict[str, Any]] = {}
    for task, text in texts:
        if not task:
            continue
        seen = found.setdefault(task, {"output": []})
        status = re.search(TAG.format("status"), text, re.S)
        code = re.search(TAG.format("exit[_-]code"), text, re.S)
        if status:
            seen["status"] = status.group(1).strip().lower()
        if code and re.fullmatch(r"-?\d+", code.group(1).strip()):
            seen["exit_code"] = int(code.group(1))
        for name in ("stdout", "stderr", "output"):
            part = re.search(TAG.format(name), text, re.S)
            if part and part.group(1):
                seen["output"].append(part.group(1))
    return found


def _prompt(line: Mapping[str, Any], text: str) -> str | None:
    """The request a user line makes; for a slash command, the text of its arguments."""
    if line.get("isMeta") or line.get("isCompactSummary") or line.get("isVisibleInTranscriptOnly"):
        return None
    if text.startswith(("<command-name>", "<command-message>")):
        args = COMMAND_ARGS.search(text)
        return args.group(1).strip() or None if args else None
    if not text or text.startswith(NOT_PROMPTS):
        return None
    return text


def _slim_input(value: Any) -> Mapping[str, Any]:
    """Keep only the tool input fields evidence uses, clipped (Write contents can be huge)."""
    if not isinstance(value, Mapping):
        return {}
    kept: dict[str, Any] = {
        k: value[k]
        for k in (
            "command",
            "description",
            "file_path",
            "notebook_path",
            "subagent_type",
            *POLL_IDS,
        )
        if isinstance(value.get(k), str)
    }
    if value.get("run_in_background") is True:
        kept["run_in_background"] = True
    for key in ("old_string", "new_string"):
        if isinstance(value.get(key), str):
            kept[key] = clip(value[key], 4000)
    if isinstance(value.get("edits"), list):
        kept["edits"] = [
            {k: clip(e[k], 4000) for k in ("old_string", "new_string") if isinstance(e.get(k), str)}
            for e in value["edits"]
            if isinstance(e, Mapping)
        ]
    return kept


def _diffs(use: ToolUse) -> list[str]:
    """A unified diff of each replacement an Edit or MultiEdit made (Write has none)."""
    import difflib  # the hook's path: only Edit and MultiEdit calls need it

    pairs = use.input.get("edits") if use.name == "MultiEdit" else [use.input]
    diffs = []
    for pair in pairs or []:
        old, new = pair.get("old_string"), pair.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), n=1, lineterm=""))
            if lines:  # the first two are the empty ---/+++ file headers
                diffs.append("\n".join(lines[2:]) + "\n")
    return diffs


def _last_text(entries: Sequence[Entry]) -> str | None:
    """The text of the last assistant message; one message may span several lines."""
    last_id: str | None = None
    parts: list[str] = []
    for entry in entries:
        if entry.type != "assistant" or not entry.text.strip():  # an interrupt leaves "\n\n"
            continue
        if entry.message_id is None or entry.message_id != last_id:
            parts = []
        last_id = entry.message_id
        parts.append(entry.text)
    return "\n".join(parts) or None


def _notes(payload: Mapping[str, Any], turn: Turn, unread: str | None) -> list[dict[str, Any]]:
    notes = []
    if unread:
        notes.append(
            {
                "kind": "note",
                "text": "No task or tool evidence from the transcript: it "
                f"could not be read ({unread}); only the hook payload was recorded.",
            }
        )
    if turn.task and turn.prompt and turn.prompt != turn.task:
        notes.append({"kind": "note", "text": f"First request of the session: {turn.task}"})
    if turn.interrupted:
        notes.append(
            {"kind": "note", "text": "The person interrupted this turn before it finished."}
        )
    elif not turn.last:
        event = payload.get("hook_event_name")
        notes.append(
            {
                "kind": "note",
                "text": f"No hook reported the end of this turn; recorded from the transcript "
                f"at {event}.",
            }
        )
    notes.extend(
        {"kind": "note", "text": f"Message the person sent during the turn: {text}"}
        for text in turn.queued
    )
    if turn.feedback:
        notes.append({"kind": "note", "text": f"A Stop hook continued the turn: {turn.feedback}"})
    if payload.get("hook_event_name") == "StopFailure":
        error = " ".join(str(payload[k]) for k in ("error", "error_details") if payload.get(k))
        notes.append({"kind": "note", "text": f"The turn ended on an API error: {error}"})
    return notes


def _source(payload: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("session_id", "transcript_path", "cwd", "reason", "agent_type", "permission_mode")
    source = {"runner": "claude-code", "event": payload.get("hook_event_name")}
    source.update({k: payload[k] for k in keys if isinstance(payload.get(k), str)})
    return source


def _run_id(session: str, turn: str | None) -> str:
    return f"{session}:{turn}" if session and turn else session or turn or ""


def _parent(line: Mapping[str, Any]) -> str | None:
    return nonempty_string(line.get("parentUuid")) or nonempty_string(line.get("logicalParentUuid"))


def _clipped(value: Any) -> str | None:
    return clip(value) if isinstance(value, str) else None
