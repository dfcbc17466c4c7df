"""GitHub Copilot adapter (Copilot CLI, and the coding agent, which reads the same hook files):
its hook payloads, and the session's event log they point to.

Copilot's hook payloads name no event (the camelCase format carries only the event's fields),
so the event is read from its fields: `stopReason` is agentStop, `trigger` preCompact,
`reason` sessionEnd, `source` sessionStart, `prompt` userPromptSubmitted. None of them carries
the person's request and the turn's work together: the turn is read from the session's event
log, `events.jsonl` (the payload's `transcriptPath`, else
`$COPILOT_HOME/session-state/<sessionId>/events.jsonl`, else, for a payload naming no session
as the coding agent's are documented, the newest log there whose session started in the
payload's folder), one JSON event a line: `user.message`
starts a turn, `assistant.message` holds the model's text and tool requests,
`tool.execution_start` / `tool.execution_complete` a call and its result, `abort` an interrupt.
That format is internal and unversioned, so it is read defensively.

Turn boundaries: Copilot CLI fires agentStop when the main agent finishes a turn; it reports
the last turn. A turn it did not report (interrupted, crashed, or from a build without
agentStop, like the coding agent's documented events) is recorded by the next event that
closes it: the next userPromptSubmitted, preCompact (every turn but the running one), sessionEnd
or a resumed sessionStart. The session's cursor (the ids of the turns' user messages) makes each
turn one run whichever of these fire.

A `user.message` Copilot injects itself (its `source` says so: `skill-<name>` for a skill's
instructions, `agent-<id>` for an inter-agent prompt) is part of the running turn, not a new one.

Shell calls (`bash`, `powershell`) are commands; their exit code is the result's `shell_exit`
(or `terminal`) content block's `exitCode` (Copilot CLI 1.0), else the `<shellId: N completed
with exit code M>` or `<exited with exit code N>` line Copilot appends to the result. A failed
call without one is recorded as exit 1 with the result type said in its output, a denied one
as not run, one started in the background (`mode` async or detached) as running: never a false
exit 0. A shell that outlives its wait (`<command with shellId: N is still running after ...>`)
takes the exit code and output of the `read_bash` call that later reads it by that id; one a
`stop_bash` call stopped has no exit code and says so; one no later call reads is running.
`edit` and `create` calls are file changes, and so is each file of an `apply_patch` call (its
arguments are the patch), with its section of the patch as the diff.

Invariant: never raises on a malformed payload or event log; standard library only (this is the
hook's path).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from wikimem.runners.transcripts import clip, marked_lines, nonempty_string, relative_to_cwd

RUNNER = "copilot"
SHELL_TOOLS = {"bash", "powershell"}
# the calls that read or stop a shell started earlier, by its `shellId`
POLL_TOOLS = {"read_bash", "read_powershell"}
STOP_TOOLS = {"stop_bash", "stop_powershell"}
STILL_RUNNING = re.compile(r"<command with shellId: (\S+) is still running after")
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$")  # apply_patch's sections
EDIT_TOOLS = {"edit", "create", "str_replace_editor"}
EXIT_CODE = re.compile(r"<(?:exited|shellId: \S+ completed) with exit code (-?\d+)>")
INJECTED = ("skill-", "agent-")  # a user.message's `source` when Copilot wrote it, not the person
NOT_RUN = {"denied", "rejected"}
BACKGROUND = {"async", "detached"}
# The VS Code compatible format (PascalCase events, snake_case fields), which Copilot CLI
# also sends to the hooks it reads from .claude/settings.json: known by its events.jsonl.
PASCAL = {
    "Stop": "agentStop",
    "SubagentStop": "subagentStop",
    "PreCompact": "preCompact",
    "SessionEnd": "sessionEnd",
    "SessionStart": "sessionStart",
    "UserPromptSubmit": "userPromptSubmitted",
    "PreToolUse": "preToolUse",
    "PostToolUse": "postToolUse",
    "PostToolUseFailure": "postToolUseFailure",
    "ErrorOccurred": "errorOccurred",
    "Notification": "notification",
}
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
NEWEST = 8  # event logs looked at, newest first, for a payload naming no session


def event_of(payload: Mapping[str, Any]) -> str | None:
    """The Copilot hook event a payload is for, by its fields (None: not Copilot's)."""
    if "task" in payload:
        return None  # a run record
    named = payload.get("hook_event_name")
    if named is not None:
        path = payload.get("transcript_path")
        if named == "Notification" and "sessionId" in payload:
            return "notification"
        if isinstance(path, str) and _is_event_log(path):
            return PASCAL.get(str(named))
        return None
    if not isinstance(payload.get("cwd"), str) or "timestamp" not in payload:
        return None
    if "stopReason" in payload:
        return "subagentStop" if "agentName" in payload else "agentStop"
    if "agentName" in payload:
        return "subagentStart"
    if "trigger" in payload:
        return "preCompact"
    if "toolResult" in payload:
        return "postToolUse"
    if "toolName" in payload:
        return "postToolUseFailure" if "error" in payload else "preToolUse"
    if "reason" in payload:
        return "sessionEnd"
    if "source" in payload:
        return "sessionStart"
    if "prompt" in payload:
        return "userPromptSubmitted"
    if "error" in payload:
        return "errorOccurred"
    return None


def is_copilot_payload(payload: Mapping[str, Any]) -> bool:
    return event_of(payload) is not None


def session_id(payload: Mapping[str, Any]) -> str | None:
    value = payload.get("sessionId", payload.get("session_id"))
    return value if isinstance(value, str) and value else None


def _is_event_log(path: str) -> bool:
    parts = PurePath(path).parts
    return PurePath(path).name == "events.jsonl" and "session-state" in parts


def records_from_copilot(
    payload: Mapping[str, Any], env: Mapping[str, str], recorded: Collection[str] = ()
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of each turn of the session not in `recorded`, oldest first;
    [] for an event that closes no turn, or when the session's event log cannot be read."""
    event = event_of(payload) or ""
    resumed = event == "sessionStart" and payload.get("source") == "resume"
    if (
        event not in ("agentStop", "preCompact", "sessionEnd", "userPromptSubmitted")
        and not resumed
    ):
        return []
    cwd = nonempty_string(payload.get("cwd"))
    path = _event_log(payload, env)
    if path is None:
        return []
    recorded = set(recorded)
    session, start_cwd, turns = _read(path, recorded)
    session = session_id(payload) or session
    cwd = cwd or start_cwd
    if not turns:
        return []
    last = turns[-1]
    if event == "preCompact" and not last.aborted:
        turns = turns[:-1]  # still running: its agentStop records it
    elif event == "userPromptSubmitted":
        prompt = nonempty_string(payload.get("prompt"))
        new = last.prompt == prompt and not last.calls and last.result is None
        if new or not (last.finished or last.aborted):
            turns = turns[:-1]  # the prompt's own turn, or one still running (a queued message)
    out: list[tuple[str | None, dict[str, Any]]] = []
    for index, turn in enumerate(turns):
        if turn.key in recorded:
            continue
        last_one = index == len(turns) - 1
        ended = payload.get("reason") if event == "sessionEnd" and last_one else None
        record = _record(turn, session, cwd, path, event, event == "agentStop" and last_one, ended)
        if record is not None:
            out.append((turn.key, record))
    return out


def _record(
    turn: Turn,
    session: str | None,
    cwd: str | None,
    path: str,
    event: str,
    reported: bool,
    ended: Any = None,  # why the session ended, for its last turn
) -> dict[str, Any] | None:
    calls = [turn.calls[call_id] for call_id in turn.order]
    items = [item for call in calls for item in _items(call, cwd, turn.aborted)]
    if not (turn.prompt or turn.result or items):
        return None
    record: dict[str, Any] = {
        "run_id": f"{session}:{turn.key}" if session else turn.key,
        "task": turn.prompt or f"Copilot session in {PurePath(cwd or '.').name or cwd}",
        "agent": {"name": RUNNER, "instance_id": session or ""},
    }
    notes: list[dict[str, Any]] = []
    if turn.aborted:
        record["status"] = "interrupted"
        notes.append({"kind": "note", "text": "the person interrupted this turn (abort)"})
    elif reported or turn.finished:
        record["status"] = "succeeded"
    elif ended in ("error", "timeout"):
        record["status"] = "failed"
        notes.append({"kind": "note", "text": f"the session ended: {ended}"})
    else:
        notes.append({"kind": "note", "text": UNREPORTED})
    if turn.result:
        record["result"] = turn.result
    if turn.started_at:
        record["started_at"] = turn.started_at
    if turn.ended_at:
        record["ended_at"] = turn.ended_at
    record["evidence"] = notes + items
    record["source"] = {
        k: v
        for k, v in {
            "runner": RUNNER,
            "event": event,
            "session_id": session,
            "transcript_path": path,
            "cwd": cwd,
        }.items()
        if v
    }
    return record


UNREPORTED = (
    "no agentStop reported this turn and its event log shows no end (crashed, or the session "
    "closed mid-turn): read from the event log, its outcome unknown"
)


@dataclass
class Call:
    name: str
    args: dict[str, Any]
    done: bool = False
    success: bool | None = None
    text: str = ""
    error_code: str = ""
    exit_code: int | None = None  # the result's shell_exit / terminal block's exitCode
    stopped: bool = False  # a stop_bash call stopped it before it finished
    patch: str = ""  # an apply_patch call's patch (its arguments are the patch's text)
    subagent: str = ""  # the subagent (a `task` call's agent) that made this call


@dataclass
class Turn:
    """A user message and the events after it, up to the next one."""

    key: str
    prompt: str | None
    started_at: str | None
    ended_at: str | None = None
    result: str | None = None
    calls: dict[str, Call] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    shells: dict[str, str] = field(default_factory=dict)  # a shell call's shellId: its call id
    pending: bool = False  # the last model message asked for tools
    finished: bool = False  # the model ended the turn with a message asking for no tool
    aborted: bool = False

    def call(self, call_id: str, name: Any, args: Any) -> Call:
        found = self.calls.get(call_id)
        if found is None:
            found = self.calls[call_id] = Call(name if isinstance(name, str) else "", _args(args))
            self.order.append(call_id)
        else:
            if isinstance(name, str) and name and not found.name:
                found.name = name
            if not found.args:
                found.args = _args(args)
        if isinstance(args, str) and "*** Begin Patch" in args and not found.patch:
            found.patch = args  # apply_patch: its arguments are the patch itself
        return found


def _events(path: str, skip: Collection[str]) -> Iterator[dict[str, Any]]:
    """The log's events, except those of a turn in `skip`: those lines are not even parsed
    (a long session's log runs to megabytes, and a hook reads it at every prompt)."""
    try:
        handle = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError:
        return
    skipping = False
    with handle:
        for raw in handle:
            marked = '"user.message"' in raw or '"session.start"' in raw
            if skipping and not marked:
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict):
                continue
            if line.get("type") == "user.message" and not _injected(line):
                skipping = line.get("id") in skip
            elif skipping:
                continue
            yield line


def _read(path: str, skip: Collection[str] = ()) -> tuple[str | None, str | None, list[Turn]]:
    """The session id and folder the log's session.start names, and its turns (those in
    `skip` with their prompt only)."""
    session = cwd = None
    turns: list[Turn] = []
    for line in _events(path, skip):
        kind = line.get("type")
        data = line.get("data")
        data = data if isinstance(data, dict) else {}
        stamp = nonempty_string(line.get("timestamp"))
        if kind == "session.start":
            session = nonempty_string(data.get("sessionId")) or session
            context = data.get("context")
            if isinstance(context, dict):
                cwd = nonempty_string(context.get("cwd")) or cwd
            continue
        if kind == "user.message" and not (turns and _injected(line)):
            key = nonempty_string(line.get("id")) or f"line-{len(turns)}"
            turns.append(Turn(key, nonempty_string(data.get("content")), stamp, stamp))
            continue
        if not turns:
            continue
        turn = turns[-1]
        turn.ended_at = stamp or turn.ended_at
        if kind == "assistant.message":
            text = nonempty_string(data.get("content"))
            if text and text.strip():
                turn.result = text
            requests = data.get("toolRequests")
            requests = requests if isinstance(requests, list) else []
            turn.pending = bool(requests)
            turn.finished = False
            for request in requests:
                if isinstance(request, dict) and nonempty_string(request.get("toolCallId")):
                    turn.call(request["toolCallId"], request.get("name"), request.get("arguments"))
        elif kind == "tool.execution_start":
            call_id = nonempty_string(data.get("toolCallId"))
            if call_id:
                call = turn.call(call_id, data.get("toolName"), data.get("arguments"))
                shell = call.args.get("shellId")
                if call.name in SHELL_TOOLS and isinstance(shell, str) and shell:
                    turn.shells[shell] = call_id
                parent = turn.calls.get(str(data.get("parentToolCallId") or ""))
                if parent is not None and parent is not call:
                    agent = parent.args.get("agent_type") or parent.args.get("name")
                    call.subagent = agent if isinstance(agent, str) and agent else parent.name
        elif kind == "tool.execution_complete":
            call_id = nonempty_string(data.get("toolCallId"))
            if call_id:
                call = turn.call(call_id, data.get("toolName"), None)
                call.done = True
                success = data.get("success")
                call.success = success if isinstance(success, bool) else None
                call.text = _result_text(data)
                call.exit_code = _exit_code(data)
                running = STILL_RUNNING.search(call.text)
                if call.name in SHELL_TOOLS and running:  # its shell id, when Copilot gave it one
                    turn.shells.setdefault(running.group(1), call_id)
                error = data.get("error")
                if isinstance(error, dict):
                    call.error_code = str(error.get("code") or "")
                _poll(turn, call)
        elif kind == "assistant.turn_end":
            turn.finished = not turn.pending
        elif kind == "abort":
            turn.aborted = True
    return session, cwd, turns


def _poll(turn: Turn, call: Call) -> None:
    """A read_bash / stop_bash call's news of the shell call it names (by `shellId`): the
    exit code and output of one that outlived its first wait, or that it was stopped."""
    if call.name not in POLL_TOOLS | STOP_TOOLS:
        return
    shell = turn.calls.get(turn.shells.get(str(call.args.get("shellId") or ""), ""))
    if shell is None:
        return
    if call.name in STOP_TOOLS:
        shell.stopped = shell.exit_code is None and not EXIT_CODE.search(shell.text)
        return
    codes = EXIT_CODE.findall(call.text)
    code = call.exit_code if call.exit_code is not None else int(codes[-1]) if codes else None
    if code is not None or len(call.text) > len(shell.text):
        shell.text = call.text  # what the shell printed so far, from its start
    if code is not None:
        shell.exit_code = code


def _injected(line: Mapping[str, Any]) -> bool:
    """A user.message Copilot wrote into the turn itself (a skill's instructions, another
    agent's prompt), by its `source`."""
    data = line.get("data")
    source = data.get("source") if isinstance(data, dict) else None
    return isinstance(source, str) and source.startswith(INJECTED)


def _exit_code(data: Mapping[str, Any]) -> int | None:
    """The exit code a completed shell call's result gives in its content blocks."""
    result = data.get("result")
    blocks = result.get("contents") if isinstance(result, dict) else None
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") in ("shell_exit", "terminal"):
            code = block.get("exitCode")
            if isinstance(code, int) and not isinstance(code, bool):
                return code
    return None


def _result_text(data: Mapping[str, Any]) -> str:
    """A call's result: its detailed content (which keeps the exit code line), else its
    content, else its error's message."""
    result = data.get("result")
    if isinstance(result, dict):
        for key in ("detailedContent", "content"):
            text = result.get(key)
            if isinstance(text, str) and text:
                return text
    elif isinstance(result, str) and result:
        return result
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return error if isinstance(error, str) else ""


def _items(call: Call, cwd: str | None, aborted: bool = False) -> list[dict[str, Any]]:
    """A call's evidence: an apply_patch call's files, each with its section of the patch as
    the diff, else the one item of `_item`."""
    if call.name != "apply_patch" or not call.patch:
        item = _item(call, cwd, aborted)
        return [item] if item is not None else []
    if not call.done or call.success is False:
        return []
    files: list[dict[str, Any]] = []
    lines: list[str] = []
    for line in call.patch.splitlines(keepends=True):
        match = PATCH_FILE.match(line.rstrip("\r\n"))
        if match:
            path = relative_to_cwd(match.group(1).strip(), cwd)
            if not (files and files[-1]["path"] == path):
                files.append({"kind": "file", "path": path})
                lines = []
            lines.append(line if line.endswith("\n") else line + "\n")
            files[-1]["diff"] = lines
        elif line.startswith("*** End Patch"):
            lines = []
        elif files and lines:
            lines.append(line if line.endswith("\n") else line + "\n")
    for item in files:
        item["diff"] = clip("".join(item["diff"]))
        if call.subagent:
            item["subagent"] = call.subagent
    return files


def _item(call: Call, cwd: str | None, aborted: bool = False) -> dict[str, Any] | None:
    args = call.args
    if call.name in SHELL_TOOLS:
        command = nonempty_string(args.get("command"))
        if not command:
            return None
        item: dict[str, Any] = {"kind": "command", "command": command}
        output = call.text
        codes = EXIT_CODE.findall(output)
        if call.exit_code is not None:
            item["exit_code"] = call.exit_code
        elif codes:
            item["exit_code"] = int(codes[-1])
        elif call.done and call.success is False:
            if call.error_code in NOT_RUN or output.lower().startswith("denied"):
                item["ran"] = False  # refused before it ran: the reason is its output
            else:
                item["exit_code"] = 1  # failed, and Copilot gave no exit code
                output = "(Copilot reported this call failed, with no exit code)\n" + output
        elif not call.done and aborted:
            item["ran"] = False  # the person stopped the turn before the call returned
        elif call.stopped:
            output = "(stopped with stop_bash before it finished: no exit code)\n" + output
        elif STILL_RUNNING.search(output):
            item["running"] = True  # outlived its wait and no later read gave its end
        elif not call.done or args.get("mode") in BACKGROUND:
            item["running"] = True  # no outcome in the log: never a false exit 0
        if output:
            item["output"] = clip(output)
        if call.subagent:
            item["subagent"] = call.subagent
        return item
    if call.name == "task" and call.done and call.text:  # a subagent's report to the turn
        agent = args.get("agent_type") or args.get("name") or "subagent"
        return {"kind": "note", "text": clip(f"the {agent} subagent reported: {call.text}", 4000)}
    if call.name in EDIT_TOOLS and call.done and call.success is not False:
        path = nonempty_string(args.get("path")) or nonempty_string(args.get("file_path"))
        if not path:
            return None
        item = {"kind": "file", "path": relative_to_cwd(path, cwd)}
        old, new = nonempty_string(args.get("old_str")), nonempty_string(args.get("new_str"))
        text = nonempty_string(args.get("file_text"))
        if old is not None or new is not None:
            item["diff"] = clip(marked_lines("-", old or "") + marked_lines("+", new or ""))
        elif text is not None:
            item["diff"] = clip(marked_lines("+", text))
        if call.subagent:
            item["subagent"] = call.subagent
        return item
    return None


def _event_log(payload: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    """The session's events.jsonl: the payload's transcript path, else the one Copilot CLI
    keeps for the payload's session id under $COPILOT_HOME (default ~/.copilot)."""
    path = nonempty_string(payload.get("transcriptPath")) or nonempty_string(
        payload.get("transcript_path")
    )
    if path:
        return path
    home = env.get("COPILOT_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".copilot"
    )
    if "sessionId" not in payload and "session_id" not in payload:
        return _newest_log(os.path.join(home, "session-state"), nonempty_string(payload.get("cwd")))
    session = session_id(payload)
    if session is None or not SAFE_ID.match(session):
        return None
    return os.path.join(home, "session-state", session, "events.jsonl")


def _newest_log(folder: str, cwd: str | None) -> str | None:
    """For a payload naming no session (the coding agent documents none): the newest event log
    among the last few sessions whose session.start names the payload's folder."""
    if not cwd:
        return None
    logs = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                path = os.path.join(entry.path, "events.jsonl")
                try:
                    logs.append((os.stat(path).st_mtime, path))
                except OSError:
                    continue
    except OSError:
        return None
    for _, path in sorted(logs, reverse=True)[:NEWEST]:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                first = json.loads(handle.readline() or "null")
        except (OSError, ValueError):
            continue
        data = first.get("data") if isinstance(first, dict) else None
        context = data.get("context") if isinstance(data, dict) else None
        if isinstance(context, dict) and _same_folder(context.get("cwd"), cwd):
            return path
    return None


def _same_folder(one: Any, other: str) -> bool:
    if not isinstance(one, str):
        return False
    try:
        return os.path.realpath(one) == os.path.realpath(other)
    except (OSError, ValueError):
        return one == other


def _args(value: Any) -> dict[str, Any]:
    """A tool call's arguments: an object, or the JSON string of one (`toolArgs`)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}
