"""Codex adapter: the `notify` program's JSON, the Stop hook payload, rollouts, `exec --json`.

The result comes from the payload (`last-assistant-message` / `last_assistant_message`); the
session rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, an
unstable internal format) gives the task and the evidence. Commands come from
`exec_command_end` events when the rollout has them; recent Codex versions no longer persist
those, so a shell call's `function_call` joined to its `function_call_output` by `call_id` is
read as well, its exit code parsed from the output's header. A command still running when its
first call returns ("Process running with session ID N") takes its later output and its real
exit code from the `write_stdin` calls that poll session N. Files come from apply_patch calls;
MCP tool calls and web searches are kept as short notes of what was consulted. An agent the
session spawned (`spawn_agent`) writes its own rollout: its commands and edits are read from it
(found by the thread id the call returned) into the parent's turn that learnt it had finished
(a `wait` reporting it completed, or its `close_agent`), whichever turn spawned it, marked
`"subagent"`, with its report as a note; each such turn takes the agent's turns begun since the
previous one, so none is recorded twice. `send_input` is a note of what the agent was sent. Its
own rollout is never a run of its own. Evidence keeps
the rollout's order. Rollouts stored compressed (`.jsonl.zst`) are read with the interpreter's
zstd module or the `zstandard` package (the `zstd` extra).

One record describes one turn (the evidence after the last user message); the task is the
session's first user message. Invariant: a missing, late or half-written rollout only costs
evidence; it never raises.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from wikimem.runners.transcripts import (
    clip,
    nonempty_string,
    parse_jsonl,
    read_jsonl,
    relative_to_cwd,
    text_of,
)

SHELLS = {"bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell"}
SHELL_TOOLS = {"shell", "container.exec", "exec_command", "shell_command", "local_shell"}
# User messages Codex injects before the real prompt.
INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
)
EXIT_HEADER = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)\s*$", re.M)
RUNNING = re.compile(r"^Process running with session ID\s*(\d+)\s*$", re.M)
HEADER_LINE = re.compile(r"^(?:Chunk ID|Wall time|Original token count|Exit code|Process )")
NOT_RUN = re.compile(r"rejected by user|aborted by user|declined by (?:the )?user", re.I)
POLL_TOOLS = {"write_stdin"}
SPAWN_TOOLS = {"spawn_agent"}
WAIT_TOOLS = {"wait", "wait_agent"}
SEND_TOOLS = {"send_input"}
CLOSE_TOOLS = {"close_agent"}
OVER = ("shutdown", "not_found")  # an agent's AgentStatus (snake_case) once it runs no more
NOTE_CHARS = 300
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$")
THREAD_ID = re.compile(r"^[A-Za-z0-9-]+$")


@dataclass
class Summary:
    """What a rollout or an event stream says about its session and its turns: the fields of
    the turn being read, and the turns read before it in `finished`."""

    task: str | None = None
    prompt: str | None = None
    result: str | None = None
    thread_id: str | None = None
    cwd: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    failed: bool = False
    prompt_events: bool = False
    unread: str | None = None  # why the rollout could not be read, when it could not
    items: list[dict[str, Any]] = field(default_factory=list)  # the turn's evidence, in order
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # call_id -> its item
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)  # exec session -> item
    polls: dict[str, dict[str, Any]] = field(default_factory=dict)  # poll call_id -> item
    turn_id: str | None = None
    state: str = "open"  # "open" (running or unknown), "complete", "interrupted" or "failed"
    lifecycle: bool = False  # the rollout marks turns (task_started / task_complete events)
    queued: list[str] = field(default_factory=list)  # messages sent while the turn ran
    finished: list[Summary] = field(default_factory=list)  # the turns before this one
    parent: str | None = None  # the thread that spawned this one (session_meta source subagent)
    spawns: dict[str, dict[str, Any]] = field(default_factory=dict)  # spawn call_id -> item
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)  # child thread -> item
    waits: set[str] = field(default_factory=set)  # wait call_ids
    closes: dict[str, str] = field(default_factory=dict)  # close_agent call_id -> child thread
    # every agent the session spawned, by thread (its spawn item), kept across turns: a later
    # turn may wait for it, send it input or close it
    known: dict[str, dict[str, Any]] = field(default_factory=dict)

    def turns(self) -> list[Summary]:
        """Every turn, oldest first (the one being read last, when it holds anything)."""
        current = [self] if self.prompt or self.items or self.result else []
        return [*self.finished, *current]

    def begin(self, timestamp: str | None, turn_id: str | None = None) -> None:
        """A new turn starts (Codex's task_started): the one read so far is finished."""
        self.lifecycle = True
        if self.prompt or self.items or self.result:
            self._close()
        self.turn_id, self.started_at = turn_id or self.turn_id, timestamp or self.started_at

    def end(self, state: str) -> None:
        self.lifecycle = True
        self.state = state

    def new_turn(self, prompt: str, timestamp: str | None, *, event: bool = False) -> None:
        # `user_message` events hold exactly what the person typed; raw user messages are
        # only a fallback (they also carry injected context), so the first event wins.
        if event and not self.prompt_events:
            self.task, self.prompt_events = prompt, True
        self.task = self.task or prompt
        if self.lifecycle and self.state == "open" and (self.prompt or self.items):
            # Codex's own turn is still running: a message sent now joins it (never resets it)
            if prompt != self.prompt and prompt not in self.queued:
                self.queued.append(prompt)
            return
        # The raw message and its event repeat one prompt; only a new prompt starts a turn.
        if prompt != self.prompt or self.items:
            if self.prompt or self.items or self.result:
                self._close()
            self.prompt, self.started_at = prompt, timestamp

    def _close(self) -> None:
        done = replace(self, finished=[])
        self.finished.append(done)
        self.prompt = self.result = self.turn_id = None
        self.started_at = None
        self.failed, self.state = False, "open"
        self.items, self.calls, self.sessions, self.polls, self.queued = [], {}, {}, {}, []
        self.spawns, self.agents, self.waits, self.closes = {}, {}, set(), {}

    def add(self, item: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
        self.items.append(item)
        if call_id is not None:
            self.calls[call_id] = item
        return item

    def add_file(self, path: str, lines: list[str]) -> list[str]:
        """The diff lines of `path`, one item for successive changes of the same file."""
        last = self.items[-1] if self.items else None
        if not (last and last["kind"] == "file" and last["path"] == path):
            last = self.add({"kind": "file", "path": path, "_diff": []})
        last["_diff"].extend(lines)
        return last["_diff"]

    def evidence(self) -> list[dict[str, Any]]:
        items = []
        running = {id(item) for item in self.sessions.values()}
        for item in self.items:
            if item["kind"] == "command" and "command" not in item:
                continue
            if item["kind"] == "_agent":
                items.extend(_agent_evidence(item, self.items))
                continue
            if item["kind"] == "_collect":
                items.extend(_collected_evidence(item))
                continue
            clean = {k: v for k, v in item.items() if not k.startswith("_")}
            if item["kind"] == "command" and "exit_code" not in item and item.get("ran", True):
                if id(item) in running:
                    clean["running"] = True  # still running when the turn was recorded
                elif "output" in item:
                    clean.update(_no_exit_code(item))
            if item["kind"] == "file":
                clean["path"] = relative_to_cwd(item["path"], self.cwd)
                if item.get("_diff"):
                    clean["diff"] = clip("".join(item["_diff"]))
            items.append(clean)
        return items


def is_codex_payload(payload: Mapping[str, Any]) -> bool:
    """The `notify` JSON, or a Codex hook payload (which, unlike Claude's, has a turn_id)."""
    if payload.get("type") == "agent-turn-complete":
        return True
    event = payload.get("hook_event_name")
    resumed = event == "SessionStart" and payload.get("source") == "resume"
    if not resumed and event not in (
        "Stop",
        "SubagentStop",
        "StopFailure",
        "PreCompact",
        "PostCompact",
    ):
        return False
    path = payload.get("transcript_path")
    return "turn_id" in payload or (
        isinstance(path, str) and PurePath(path).name.startswith("rollout-")
    )


def record_from_codex(
    payload: Mapping[str, Any], env: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """The run record of the turn Codex reports, or None (a subagent's or a forced stop)."""
    records = records_from_codex(payload, env or {}, (), every=False)
    return records[-1][1] if records else None


TURN_OVER = frozenset({"agent-turn-complete", "Stop", "StopFailure"})
ALL_OVER = TURN_OVER | {"SessionStart"}  # a resumed session: every turn before it is over


def records_from_codex(
    payload: Mapping[str, Any],
    env: Mapping[str, str],
    recorded: Collection[str] = (),
    *,
    every: bool = True,
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of each turn of the rollout not in `recorded`, oldest first.

    The last turn is the one the event reports (its id and result come from the payload); at a
    compaction it is still running, so it is left to its Stop. The cursor's key is the turn's
    position in the rollout, which only grows; None when there is no rollout to count in."""
    notify = payload.get("type") == "agent-turn-complete"
    event = "agent-turn-complete" if notify else payload.get("hook_event_name")
    if not notify and (event == "SubagentStop" or payload.get("stop_hook_active")):
        return []
    thread = nonempty_string(payload.get("thread-id" if notify else "session_id"))
    turn_id = nonempty_string(payload.get("turn-id" if notify else "turn_id"))
    result = nonempty_string(
        payload.get("last-assistant-message" if notify else "last_assistant_message")
    )
    path = nonempty_string(payload.get("transcript_path")) or find_rollout(thread, env)
    summary = read_rollout(path) if path else Summary()
    if summary.parent:
        return []  # a spawned agent's own rollout: its parent's turn records its work
    cwd = nonempty_string(payload.get("cwd")) or summary.cwd
    inputs = [m for m in payload.get("input-messages") or [] if isinstance(m, str) and m]
    turns = summary.turns()
    if not turns and inputs:
        summary.task, summary.prompt = inputs[0], inputs[-1]
        turns = [summary]
    turns = turns or [summary]
    first = summary.task
    read: dict[str, Summary | None] = {}  # agents' rollouts, read once for every turn
    out: list[tuple[str | None, dict[str, Any]]] = []
    for index, turn in enumerate(turns):
        last = index == len(turns) - 1
        key = f"#{index}" if path and not summary.unread and (turn.prompt or turn.items) else None
        if (not last and not every) or (key is not None and key in recorded):
            continue
        if last and event not in ALL_OVER and turn.state == "open":
            continue  # PreCompact / PostCompact: the running turn is its Stop's to record
        turn.cwd, turn.thread_id, turn.unread = cwd, summary.thread_id, summary.unread
        turn.task = turn.prompt or first
        _read_children(turn, path, env, read)
        record = record_from_summary(turn, result if last else None, first)
        if record is None:
            continue
        own = (turn_id if last and event in TURN_OVER else None) or turn.turn_id or key
        record["run_id"] = f"{thread}:{own}" if thread and own else thread or own or ""
        state = turn.state
        if last and event in TURN_OVER and state == "open":
            state = "complete"  # the event says the turn ended; the rollout lags behind it
        if state == "interrupted":
            record["status"] = "interrupted"
        elif turn.failed or state == "failed" or (last and event == "StopFailure"):
            record["status"] = "failed"
        elif state == "complete":
            record["status"] = "succeeded"
        record["source"] = {
            k: v
            for k, v in {
                "runner": "codex",
                "event": event,
                "thread_id": thread,
                "turn_id": own if last else turn.turn_id,
                "cwd": cwd,
                "rollout_path": str(path) if path else None,
                "client": payload.get("client"),
                "model": payload.get("model"),
            }.items()
            if isinstance(v, str) and v
        }
        out.append((key, record))
    return out


def record_from_summary(
    summary: Summary, result: str | None = None, first: str | None = None
) -> dict[str, Any] | None:
    """A run record (without run_id or source) from a summary's turn; None when it holds
    nothing. `first` is the session's first request, noted when the turn asks another."""
    result = result or summary.result
    if summary.task is None and not result:
        return None
    record: dict[str, Any] = {
        "task": summary.task or "Codex session",
        "agent": {"name": "codex", "instance_id": summary.thread_id or ""},
    }
    if result:
        record["result"] = result
    if summary.started_at:
        record["started_at"] = summary.started_at
    if summary.ended_at:
        record["ended_at"] = summary.ended_at
    notes = []
    if summary.unread:
        notes.append({"kind": "note", "text": f"The rollout could not be read: {summary.unread}"})
    if first and summary.task and first != summary.task:
        notes.append({"kind": "note", "text": f"First request of the session: {first}"})
    elif summary.prompt and summary.prompt != summary.task:
        notes.append({"kind": "note", "text": f"Prompt of this turn: {summary.prompt}"})
    if summary.state == "interrupted":
        notes.append(
            {"kind": "note", "text": "The person interrupted this turn before it finished."}
        )
    notes.extend(
        {"kind": "note", "text": f"Message the person sent during the turn: {text}"}
        for text in summary.queued
    )
    record["evidence"] = notes + summary.evidence()
    return record


def find_rollout(thread: str | None, env: Mapping[str, str]) -> Path | None:
    """The newest rollout file of `thread` under CODEX_HOME (default ~/.codex), if any."""
    home = env.get("CODEX_HOME") or (env.get("HOME") and str(Path(env["HOME"], ".codex")))
    if not thread or not home or not THREAD_ID.match(thread):
        return None
    sessions = Path(home, "sessions")
    found = sorted(
        [
            *sessions.glob(f"*/*/*/rollout-*-{thread}.jsonl"),
            *sessions.glob(f"*/*/*/rollout-*-{thread}.jsonl.zst"),
        ],
        key=lambda p: p.name.removesuffix(".zst"),
    )
    return found[-1] if found else None


def read_rollout(path: str | Path) -> Summary:
    """The summary of a rollout file, plain or zstd-compressed."""
    if not str(path).endswith(".zst"):
        return summarise_rollout(read_jsonl(path))
    try:
        lines = list(_zstd_lines(Path(path)))
    except Exception as exc:  # each zstd module has its own error class; a bad file never raises
        summary = Summary()
        summary.unread = f"{Path(path).name}: {exc}"
        return summary
    return summarise_rollout(parse_jsonl(lines))


def _zstd_lines(path: Path) -> Iterator[str]:
    """The lines of a .zst file (compression.zstd from Python 3.14, else `zstandard`)."""
    try:
        from compression import zstd  # type: ignore[import-not-found]

        with zstd.open(path, "rt", encoding="utf-8", errors="replace") as handle:
            yield from handle
        return
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        raise ImportError(
            "no zstd module in this Python; install the `zstandard` package "
            "(pip install 'wikimem[zstd]')"
        ) from None
    with open(path, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as reader:
        yield from io.TextIOWrapper(reader, encoding="utf-8", errors="replace")


def summarise_rollout(lines: Iterable[Mapping[str, Any]]) -> Summary:
    """Read a rollout's lines in order, keeping the session's task and its last turn."""
    summary = Summary()
    for line in lines:
        payload = line.get("payload")
        if not isinstance(payload, Mapping):
            continue
        stamp = nonempty_string(line.get("timestamp"))
        summary.ended_at = stamp or summary.ended_at
        kind, sub = line.get("type"), payload.get("type")
        if kind == "session_meta":
            summary.thread_id = nonempty_string(payload.get("id")) or summary.thread_id
            summary.parent = summary.parent or _spawned_by(payload)
            summary.cwd = nonempty_string(payload.get("cwd")) or summary.cwd
        elif kind == "turn_context" and not summary.turn_id:
            summary.turn_id = nonempty_string(payload.get("turn_id"))
        elif kind == "event_msg":
            _read_event(summary, sub, payload, stamp)
        elif kind == "response_item":
            _read_item(summary, sub, payload, stamp)
    return summary


def summarise_exec_events(events: Iterable[Mapping[str, Any]]) -> Summary:
    """Read `codex exec --json` events: command_execution, file_change, agent_message items."""
    summary = Summary()
    for event in events:
        kind = event.get("type")
        item = event.get("item")
        if kind == "thread.started":
            summary.thread_id = nonempty_string(event.get("thread_id"))
        elif kind in ("turn.failed", "error"):
            summary.failed = True
        elif kind == "item.completed" and isinstance(item, Mapping):
            itype = item.get("type")
            if itype == "agent_message" and nonempty_string(item.get("text")):
                summary.result = item["text"]
            elif itype == "command_execution" and nonempty_string(item.get("command")):
                call = {
                    "kind": "command",
                    "command": _unwrap(item["command"]),
                    "output": clip(str(item.get("aggregated_output") or "")),
                }
                if isinstance(item.get("exit_code"), int):
                    call["exit_code"] = item["exit_code"]
                summary.add(call, str(item.get("id", len(summary.items))))
            elif itype == "file_change":
                for change in item.get("changes") or []:
                    if isinstance(change, Mapping) and nonempty_string(change.get("path")):
                        summary.add_file(change["path"], [])
            elif itype == "mcp_tool_call":
                name = ".".join(str(item.get(k)) for k in ("server", "tool") if item.get(k))
                summary.add(_consulted(f"MCP tool {name}", item.get("arguments")))
            elif itype == "web_search" and nonempty_string(item.get("query")):
                summary.add(_consulted("web search", item["query"]))
    return summary


def _read_event(summary: Summary, sub: Any, payload: Mapping[str, Any], stamp: str | None) -> None:
    if sub == "user_message" and nonempty_string(payload.get("message")):
        summary.new_turn(payload["message"], stamp, event=True)
    elif sub == "task_started":
        summary.begin(stamp, nonempty_string(payload.get("turn_id")))
    elif sub == "task_complete":
        summary.result = nonempty_string(payload.get("last_agent_message")) or summary.result
        summary.end("complete")
    elif sub == "agent_message" and nonempty_string(payload.get("message")):
        summary.result = payload["message"]
    elif sub == "turn_aborted":
        interrupted = payload.get("reason") in ("interrupted", None)
        summary.failed = not interrupted
        summary.end("interrupted" if interrupted else "failed")
    elif sub == "exec_command_end":
        call_id = str(payload.get("call_id", ""))
        call = summary.calls.get(call_id) or summary.add({"kind": "command"}, call_id)
        call["command"] = _command(payload.get("command")) or call.get("command", "")
        output = payload.get("aggregated_output") or "\n".join(
            part
            for part in (payload.get("stdout"), payload.get("stderr"))
            if isinstance(part, str) and part
        )
        call["output"] = clip(str(output or ""))
        if isinstance(payload.get("exit_code"), int):
            call["exit_code"] = payload["exit_code"]
        call["_final"] = True


def _read_item(summary: Summary, sub: Any, payload: Mapping[str, Any], stamp: str | None) -> None:
    call_id = str(payload.get("call_id", ""))
    if sub == "message" and payload.get("role") == "user":
        text = text_of(payload.get("content")).strip()
        if text and not summary.prompt_events and not text.startswith(INJECTED):
            summary.new_turn(text, stamp)
    elif sub == "message" and payload.get("role") == "assistant":
        summary.result = text_of(payload.get("content")) or summary.result
    elif sub in ("function_call", "custom_tool_call", "local_shell_call"):
        _read_call(summary, sub, payload, call_id)
    elif sub == "web_search_call":
        action = payload.get("action")
        query = action.get("query") if isinstance(action, Mapping) else None
        if nonempty_string(query):
            summary.add(_consulted("web search", query))
    elif sub in ("function_call_output", "custom_tool_call_output"):
        _read_output(summary, call_id, payload.get("output"), stamp)


def _read_call(summary: Summary, sub: Any, payload: Mapping[str, Any], call_id: str) -> None:
    parsed = _arguments(payload)
    arguments = parsed if parsed is not None else {}
    name = str(payload.get("name") or "")
    if parsed is None and (name in SHELL_TOOLS or name == "apply_patch"):
        raw = " ".join(str(payload.get("arguments"))[:NOTE_CHARS].split())
        summary.add({"kind": "note", "text": f"A {name} call whose arguments did not parse: {raw}"})
    if name == "apply_patch":
        patch = arguments.get("input") or payload.get("input")
        _read_patch(summary, patch if isinstance(patch, str) else "")
    elif sub == "local_shell_call" or name in SHELL_TOOLS:
        command = _command(arguments.get("cmd") or arguments.get("command"))
        patch = _shell_patch(command)
        if patch is not None:  # apply_patch run through the shell: a file change
            _read_patch(summary, patch)
        elif command and call_id not in summary.calls:
            summary.add({"kind": "command", "command": command}, call_id)
    elif name in SPAWN_TOOLS:
        role = nonempty_string(arguments.get("agent_type"))
        task = nonempty_string(arguments.get("message")) or ""
        summary.spawns[call_id] = summary.add(
            {"kind": "_agent", "_name": role or "subagent", "_task": task}
        )
    elif name in WAIT_TOOLS:
        summary.waits.add(call_id)
    elif name in SEND_TOOLS:
        _read_send(summary, arguments)
    elif name in CLOSE_TOOLS:
        closed = nonempty_string(arguments.get("target")) or nonempty_string(arguments.get("id"))
        summary.closes[call_id] = closed or ""
    elif name in POLL_TOOLS or ("session_id" in arguments and "cmd" not in arguments):
        target = summary.sessions.get(str(arguments.get("session_id")))
        if target is not None:
            summary.polls[call_id] = target
    elif name.startswith("mcp__") or str(payload.get("namespace") or "").startswith("mcp"):
        tool = f"{payload['namespace']}.{name}" if payload.get("namespace") else name
        summary.add(_consulted(f"MCP tool {tool}", payload.get("arguments")))


def _read_output(summary: Summary, call_id: str, raw: Any, stamp: str | None = None) -> None:
    """A call's output: a command's outcome, or the next chunk of a command still running."""
    if call_id in summary.spawns:
        _read_spawned(summary, summary.spawns.pop(call_id), raw)
        return
    if call_id in summary.waits:
        summary.waits.discard(call_id)
        _read_wait(summary, raw, stamp)
        return
    if call_id in summary.closes:
        _read_close(summary, summary.closes.pop(call_id), raw, stamp)
        return
    target = summary.polls.pop(call_id, None)
    call = target or summary.calls.get(call_id)
    if call is None or call["kind"] != "command" or call.get("_final"):
        return
    parsed = _parse_output(raw)
    session = parsed.pop("_session", None)
    if target is not None:  # a poll: its output continues the command's
        before = call.get("output") or ""
        parsed["output"] = clip(before + parsed["output"]) if before else parsed["output"]
    call.update(parsed)
    if session is not None:
        summary.sessions[session] = call
    elif "exit_code" in call or call.get("ran") is False:
        summary.sessions = {k: v for k, v in summary.sessions.items() if v is not call}


def _spawned_by(meta: Mapping[str, Any]) -> str | None:
    """The parent thread of a rollout Codex wrote for a spawned agent (spawn_agent), else None:
    its session_meta `source` is `{"subagent": {"thread_spawn": {"parent_thread_id": ...}}}`."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, Mapping) else None
    if sub is None and isinstance(source, Mapping):
        sub = source.get("subAgent")
    if not sub:
        return None
    spawn = (
        (sub.get("thread_spawn") or sub.get("threadSpawn")) if isinstance(sub, Mapping) else None
    )
    if isinstance(spawn, Mapping):
        parent = spawn.get("parent_thread_id") or spawn.get("parentThreadId")
        if nonempty_string(parent):
            return str(parent)
    return None  # a review or compaction thread: nobody's child here, read as before


def _json(raw: Any) -> Any:
    text = raw if isinstance(raw, str) else text_of(raw)
    if isinstance(raw, Mapping):
        text = str(raw.get("content") or raw.get("output") or "")
    try:
        return json.loads(text)
    except ValueError:
        return None


def _read_spawned(summary: Summary, item: dict[str, Any], raw: Any) -> None:
    """spawn_agent's output, `{"agent_id": "<thread id>", "nickname": ...}`: the child."""
    value = _json(raw)
    agent = value.get("agent_id") if isinstance(value, Mapping) else None
    if not nonempty_string(agent) or not THREAD_ID.match(str(agent)):
        item["_failed"] = " ".join(str(text_of(raw) if not isinstance(raw, str) else raw).split())
        return
    item["_thread"] = str(agent)
    nickname = nonempty_string(value.get("nickname"))
    if nickname and item["_name"] == "subagent":
        item["_name"] = nickname
    summary.agents[str(agent)] = item
    summary.known[str(agent)] = item


def _read_wait(summary: Summary, raw: Any, stamp: str | None) -> None:
    """wait's output, `{"status": {"<thread id>": {"completed": "<last message>"}}, ...}`: each
    agent that finished is collected here (its work up to now, and its report), whichever turn
    spawned it. An agent still running (the wait timed out) is left to a later wait."""
    value = _json(raw)
    status = value.get("status") if isinstance(value, Mapping) else None
    for thread, state in (status or {}).items() if isinstance(status, Mapping) else ():
        done = isinstance(state, Mapping) and ("completed" in state or "errored" in state)
        if done or state in OVER:
            _collect(summary, str(thread), state, stamp)


def _read_close(summary: Summary, thread: str, raw: Any, stamp: str | None) -> None:
    """close_agent's output, `{"previous_status": <AgentStatus>}`: the agent runs no more, so
    what it did up to now is collected here, as at a wait."""
    value = _json(raw)
    state = value.get("previous_status") if isinstance(value, Mapping) else None
    if thread:
        _collect(summary, thread, state, stamp, closed=True)


def _read_send(summary: Summary, arguments: Mapping[str, Any]) -> None:
    """send_input: a note of what the agent was sent (the work it does for it is collected by
    the next wait or close_agent, with its earlier work)."""
    target = nonempty_string(arguments.get("target")) or nonempty_string(arguments.get("id"))
    known = summary.known.get(target or "")
    name = known["_name"] if known else f"agent {target or '(unnamed)'}"
    message = " ".join(str(arguments.get("message") or "").split())
    if not message and isinstance(arguments.get("items"), list):
        message = " ".join(text_of(arguments["items"]).split())
    if len(message) > NOTE_CHARS:
        message = message[: NOTE_CHARS - 1] + "…"
    text = f"Sent subagent {name}" if known else f"Sent {name}"
    text += " (interrupting it)" if arguments.get("interrupt") is True else ""
    summary.add({"kind": "note", "text": f"{text}: {message}" if message else text})


def _collect(
    summary: Summary, thread: str, state: Any, stamp: str | None, *, closed: bool = False
) -> None:
    """An item, where the parent learnt that the agent finished (a wait's status, its
    close_agent), that takes the agent's turns begun since the previous such item of the
    session up to now: so each of its turns is in exactly one of the parent's turns, the one
    that waited for it, however many turns after its spawn."""
    spawn = summary.known.get(thread)
    if spawn is None:
        if closed:
            summary.add({"kind": "note", "text": f"Closed agent {thread}"})
        return
    since = spawn.get("_collected")
    spawn["_collected"] = stamp or since
    item: dict[str, Any] = {
        "kind": "_collect",
        "_thread": thread,
        "_name": spawn["_name"],
        "_task": spawn.get("_task") or "",
        "_since": since,
        "_until": stamp,
        "_earlier": thread not in summary.agents,  # spawned in an earlier turn
        "_closed": closed,
    }
    if isinstance(state, Mapping) and nonempty_string(state.get("completed")):
        item["_report"] = state["completed"]
    elif isinstance(state, Mapping) and nonempty_string(state.get("errored")):
        item["_error"] = state["errored"]
    elif isinstance(state, str):
        item["_state"] = state
    summary.add(item)


def _read_children(
    turn: Summary,
    path: str | Path | None,
    env: Mapping[str, str],
    read: dict[str, Summary | None] | None = None,
) -> None:
    """The commands and edits of each agent the turn collected (a wait for it, its
    close_agent), from the agent's own rollout (beside the parent's): its turns begun since the
    session's previous collection of it, up to this one. `read` caches the rollouts read."""
    read = {} if read is None else read
    for item in turn.items:
        if item["kind"] != "_collect":
            continue
        thread = item["_thread"]
        if thread not in read:
            found = _child_rollout(thread, path, env)
            read[thread] = read_rollout(found) if found is not None else None
        child = read[thread]
        if child is None:
            continue
        child.cwd = child.cwd or turn.cwd
        turns = child.turns()
        # spawned with fork_context, the child's rollout opens with a copy of the parent's
        # history: its own work starts at the turn asking what spawn_agent asked
        own = [i for i, t in enumerate(turns) if t.prompt and t.prompt == item.get("_task")]
        turns = turns[own[0] :] if own else turns
        since, until = item.get("_since"), item.get("_until")
        turns = [
            t
            for t in turns
            if (since is None or (t.started_at or "") >= since)
            and (until is None or (t.started_at or "") < until)
        ]
        evidence = [e for t in turns for e in _child_evidence(t, turn.cwd)]
        item["_evidence"] = [e | {"subagent": item["_name"]} for e in evidence]
        results = [t.result for t in turns if t.result]
        item["_report"] = item.get("_report") or (results[-1] if results else None)


def _child_rollout(thread: str, path: str | Path | None, env: Mapping[str, str]) -> Path | None:
    """A spawned agent's rollout: beside its parent's, else in the same sessions/YYYY/MM/DD
    tree, else under CODEX_HOME."""
    found = None
    if path:
        day = Path(path).parent
        found = _newest([*day.glob(f"rollout-*-{thread}.jsonl*")])
        if found is None and len(day.parents) > 2 and day.parents[2].name == "sessions":
            found = _newest([*day.parents[2].glob(f"*/*/*/rollout-*-{thread}.jsonl*")])
    return found or find_rollout(thread, env)


def _child_evidence(turn: Summary, cwd: str | None) -> list[dict[str, Any]]:
    turn.cwd = cwd or turn.cwd
    return turn.evidence()


def _newest(paths: list[Path]) -> Path | None:
    paths = [p for p in paths if p.name.endswith((".jsonl", ".jsonl.zst"))]
    return max(paths, key=lambda p: p.name.removesuffix(".zst")) if paths else None


def _agent_evidence(item: Mapping[str, Any], turn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A spawned agent in the turn that spawned it: what it was asked (its work and report are
    where a wait or close_agent collects it, in this turn or a later one)."""
    name = item["_name"]
    if "_failed" in item:
        text = f"Spawning subagent {name} failed: {item['_failed']}"
        return [{"kind": "note", "text": text[:NOTE_CHARS]}]
    task = _short(item.get("_task"))
    text = f"Subagent {name} was asked: {task}" if task else f"Subagent {name} was spawned"
    out = [{"kind": "note", "text": text}]
    thread = item.get("_thread")
    if thread and not any(i["kind"] == "_collect" and i["_thread"] == thread for i in turn):
        out.append(
            {
                "kind": "note",
                "text": f"Subagent {name} ({thread}) was not waited for in this turn: its "
                "work is recorded with the turn that waits for it or closes it.",
            }
        )
    return out


def _collected_evidence(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An agent collected (a wait for it, its close_agent): its work since it was last
    collected, marked as its, and its report."""
    name = item["_name"]
    state = f" (it was {item['_state']})" if item.get("_state") else ""
    if item.get("_closed") and item.get("_evidence") == []:
        # nothing done since it was last collected: its work and report are there
        return [{"kind": "note", "text": f"Subagent {name} was closed{state}"}]
    out: list[dict[str, Any]] = []
    if item.get("_earlier"):
        task = _short(item.get("_task"))
        text = f"Subagent {name}, spawned in an earlier turn"
        out.append({"kind": "note", "text": f"{text} (asked: {task})" if task else text})
    if "_evidence" not in item:
        out.append(
            {
                "kind": "note",
                "text": f"Subagent {name}'s rollout ({item['_thread']}) "
                "was not found: its commands are not recorded.",
            }
        )
    out.extend(item.get("_evidence") or [])
    if item.get("_report"):
        out.append({"kind": "note", "text": f"Report of subagent {name}: {item['_report']}"})
    elif item.get("_error"):
        out.append({"kind": "note", "text": f"Subagent {name} failed: {item['_error']}"})
    if item.get("_closed"):
        out.append({"kind": "note", "text": f"Subagent {name} was closed{state}"})
    return out


def _short(text: Any) -> str:
    task = " ".join(str(text or "").split())
    return task[: NOTE_CHARS - 1] + "…" if len(task) > NOTE_CHARS else task


def _consulted(what: str, detail: Any) -> dict[str, Any]:
    """A short note of a tool the agent consulted (its answer is not kept)."""
    text = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
    text = " ".join(text.split())
    if len(text) > NOTE_CHARS:
        text = text[: NOTE_CHARS - 1] + "…"
    return {"kind": "note", "text": f"Consulted {what}: {text}" if text else f"Consulted {what}"}


def _arguments(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Function arguments are a JSON string; local shell calls carry an `action` object.
    None when there are arguments that do not parse (the caller leaves a note)."""
    if isinstance(payload.get("action"), Mapping):
        return payload["action"]
    raw = payload.get("arguments")
    if raw is None:
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None


def _shell_patch(command: str | None) -> str | None:
    """The patch of `apply_patch <<'EOF' ... EOF` (or `apply_patch '<patch>'`) run through the
    shell, as Codex's model often does; None for any other command."""
    if not command or "apply_patch" not in command[:200] or "*** Begin Patch" not in command:
        return None
    start = command.index("*** Begin Patch")
    end = command.find("*** End Patch", start)
    return command[start : end + len("*** End Patch") if end >= 0 else len(command)]


def _parse_output(raw: Any) -> dict[str, Any]:
    """Exit code and output from a shell call's output, in the formats Codex has used."""
    text = raw if isinstance(raw, str) else text_of(raw)
    if isinstance(raw, Mapping):
        text = str(raw.get("content") or raw.get("output") or "")
    try:
        value = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        value = None
    if isinstance(value, Mapping) and isinstance(value.get("output"), str):
        metadata = value.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, Mapping) else None
        return _outcome(value["output"], code)
    head, marker, body = text.partition("Output:\n")
    if not marker and all(HEADER_LINE.match(line) for line in text.strip().splitlines() or ["-"]):
        head, body = text, ""  # a header with no output at all
    elif not marker or not all(HEADER_LINE.match(line) for line in head.strip().splitlines()):
        head, body = "", text
    exit_code, running = EXIT_HEADER.search(head), RUNNING.search(head)
    result = _outcome(body, int(exit_code.group(1)) if exit_code else None)
    if running:
        result["_session"] = running.group(1)
    elif exit_code is None and NOT_RUN.search(body[:500]):
        result["ran"] = False
    return result


SANDBOX = re.compile(
    r"sandbox|seatbelt|landlock|seccomp|operation not permitted|permission denied", re.I
)


def _no_exit_code(item: Mapping[str, Any]) -> dict[str, Any]:
    """A command that answered without an exit code: Codex gives none when its sandbox denied
    the command (exit_code null in 0.40) or it could not start. It did not succeed: a failure
    whose output says why, so the fixed-failure rule sees it."""
    output = str(item.get("output") or "")
    why = (
        "denied by Codex's sandbox"
        if SANDBOX.search(output[:2000]) or item.get("_denied")
        else "no exit code: it did not run to completion"
    )
    return {"exit_code": 1, "output": f"[{why}]\n{output}" if output else f"[{why}]"}


def _outcome(output: str, code: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"output": clip(output)}
    if isinstance(code, int):
        result["exit_code"] = code
    return result


def _read_patch(summary: Summary, patch: str) -> None:
    """Each file an apply_patch touched, with the patch's own section for it as the diff."""
    current: list[str] | None = None
    for line in patch.splitlines(keepends=True):
        match = PATCH_FILE.match(line.rstrip("\r\n"))
        if match:
            current = summary.add_file(match.group(1).strip(), [])
            current.append(line if line.endswith("\n") else line + "\n")
        elif line.startswith("*** End Patch"):
            current = None
        elif current is not None:
            current.append(line if line.endswith("\n") else line + "\n")


def _command(value: Any) -> str | None:
    """A command as a person would type it: the script of `bash -lc <script>`, else joined."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value) or not value:
        return None
    if len(value) >= 3 and PurePath(value[0]).name in SHELLS and value[-2] in ("-lc", "-c"):
        return value[-1]
    return shlex.join(value)


def _unwrap(command: str) -> str:
    """`bash -lc '<script>'` as its script; anything else unchanged."""
    try:
        return _command(shlex.split(command)) or command
    except ValueError:
        return command
