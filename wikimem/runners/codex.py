"""Codex adapter: the `notify` program's JSON, the Stop hook payload, rollouts, `exec --json`.

The result comes from the payload (`last-assistant-message` / `last_assistant_message`); the
session rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, an
unstable internal format) gives the task and the evidence. Commands come from
`exec_command_end` events when the rollout has them; recent Codex versions no longer persist
those, so a shell call's `function_call` joined to its `function_call_output` by `call_id` is
read as well, its exit code parsed from the output's header. Files come from apply_patch calls.

One record describes one turn (the evidence after the last user message); the task is the
session's first user message. Invariant: a missing, late or half-written rollout only costs
evidence; it never raises.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from wikimem.runners.transcripts import clip, read_jsonl, text_of

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
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$")
THREAD_ID = re.compile(r"^[A-Za-z0-9-]+$")


@dataclass
class Summary:
    """What a rollout or an event stream says about its session and last turn."""

    task: str | None = None
    prompt: str | None = None
    result: str | None = None
    thread_id: str | None = None
    cwd: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    failed: bool = False
    prompt_events: bool = False
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)

    def new_turn(self, prompt: str, timestamp: str | None, *, event: bool = False) -> None:
        # `user_message` events hold exactly what the person typed; raw user messages are
        # only a fallback (they also carry injected context), so the first event wins.
        if event and not self.prompt_events:
            self.task, self.prompt_events = prompt, True
        self.task = self.task or prompt
        # The raw message and its event repeat one prompt; only a new prompt starts a turn.
        if prompt != self.prompt or self.calls or self.files:
            self.prompt, self.started_at, self.failed = prompt, timestamp, False
            self.calls, self.files = {}, {}

    def evidence(self) -> list[dict[str, Any]]:
        items = [
            {k: v for k, v in call.items() if not k.startswith("_")}
            for call in self.calls.values()
            if "command" in call
        ]
        for path, diffs in self.files.items():
            item: dict[str, Any] = {"kind": "file", "path": _relative(path, self.cwd)}
            if diffs:
                item["diff"] = clip("".join(diffs))
            items.append(item)
        return items


def is_codex_payload(payload: Mapping[str, Any]) -> bool:
    """The `notify` JSON, or a Codex hook payload (which, unlike Claude's, has a turn_id)."""
    if payload.get("type") == "agent-turn-complete":
        return True
    if payload.get("hook_event_name") not in ("Stop", "SubagentStop", "StopFailure"):
        return False
    path = payload.get("transcript_path")
    return "turn_id" in payload or (
        isinstance(path, str) and PurePath(path).name.startswith("rollout-")
    )


def record_from_codex(
    payload: Mapping[str, Any], env: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """The run record of the turn Codex reports, or None (a subagent's or a forced stop)."""
    notify = payload.get("type") == "agent-turn-complete"
    if not notify and (
        payload.get("hook_event_name") == "SubagentStop" or payload.get("stop_hook_active")
    ):
        return None
    thread = _string(payload.get("thread-id" if notify else "session_id"))
    turn_id = _string(payload.get("turn-id" if notify else "turn_id"))
    result = _string(payload.get("last-assistant-message" if notify else "last_assistant_message"))
    path = _string(payload.get("transcript_path")) or find_rollout(thread, env or {})
    summary = summarise_rollout(read_jsonl(path)) if path else Summary()
    summary.cwd = _string(payload.get("cwd")) or summary.cwd
    inputs = [m for m in payload.get("input-messages") or [] if isinstance(m, str) and m]
    if summary.task is None and inputs:
        summary.task, summary.prompt = inputs[0], inputs[-1]
    record = record_from_summary(summary, result)
    if record is None:
        return None
    record["run_id"] = f"{thread}:{turn_id}" if thread and turn_id else thread or turn_id or ""
    record["status"] = "failed" if summary.failed else "succeeded"
    record["source"] = {
        k: v
        for k, v in {
            "runner": "codex",
            "event": "agent-turn-complete" if notify else payload.get("hook_event_name"),
            "thread_id": thread,
            "turn_id": turn_id,
            "cwd": summary.cwd,
            "rollout_path": str(path) if path else None,
            "client": payload.get("client"),
            "model": payload.get("model"),
        }.items()
        if isinstance(v, str) and v
    }
    return record


def record_from_summary(summary: Summary, result: str | None = None) -> dict[str, Any] | None:
    """A run record (without run_id or source) from a summary; None when it holds nothing."""
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
    if summary.prompt and summary.prompt != summary.task:
        notes.append({"kind": "note", "text": f"Prompt of this turn: {summary.prompt}"})
    record["evidence"] = notes + summary.evidence()
    return record


def find_rollout(thread: str | None, env: Mapping[str, str]) -> Path | None:
    """The newest rollout file of `thread` under CODEX_HOME (default ~/.codex), if any."""
    home = env.get("CODEX_HOME") or (env.get("HOME") and str(Path(env["HOME"], ".codex")))
    if not thread or not home or not THREAD_ID.match(thread):
        return None
    found = sorted(Path(home, "sessions").glob(f"*/*/*/rollout-*-{thread}.jsonl"))
    return found[-1] if found else None


def summarise_rollout(lines: Iterable[Mapping[str, Any]]) -> Summary:
    """Read a rollout's lines in order, keeping the session's task and its last turn."""
    summary = Summary()
    for line in lines:
        payload = line.get("payload")
        if not isinstance(payload, Mapping):
            continue
        stamp = _string(line.get("timestamp"))
        summary.ended_at = stamp or summary.ended_at
        kind, sub = line.get("type"), payload.get("type")
        if kind == "session_meta":
            summary.thread_id = _string(payload.get("id")) or summary.thread_id
            summary.cwd = _string(payload.get("cwd")) or summary.cwd
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
            summary.thread_id = _string(event.get("thread_id"))
        elif kind in ("turn.failed", "error"):
            summary.failed = True
        elif kind == "item.completed" and isinstance(item, Mapping):
            itype = item.get("type")
            if itype == "agent_message" and _string(item.get("text")):
                summary.result = item["text"]
            elif itype == "command_execution" and _string(item.get("command")):
                call = {
                    "kind": "command",
                    "command": _unwrap(item["command"]),
                    "output": clip(str(item.get("aggregated_output") or "")),
                }
                if isinstance(item.get("exit_code"), int):
                    call["exit_code"] = item["exit_code"]
                summary.calls[str(item.get("id", len(summary.calls)))] = call
            elif itype == "file_change":
                for change in item.get("changes") or []:
                    if isinstance(change, Mapping) and _string(change.get("path")):
                        summary.files.setdefault(change["path"], [])
    return summary


def _read_event(summary: Summary, sub: Any, payload: Mapping[str, Any], stamp: str | None) -> None:
    if sub == "user_message" and _string(payload.get("message")):
        summary.new_turn(payload["message"], stamp, event=True)
    elif sub == "task_complete" and _string(payload.get("last_agent_message")):
        summary.result = payload["last_agent_message"]
    elif sub == "agent_message" and _string(payload.get("message")):
        summary.result = payload["message"]
    elif sub == "turn_aborted":
        summary.failed = True
    elif sub == "exec_command_end":
        call = summary.calls.setdefault(str(payload.get("call_id", "")), {"kind": "command"})
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
        arguments = _arguments(payload)
        if payload.get("name") == "apply_patch":
            patch = arguments.get("input") or payload.get("input")
            _read_patch(summary, patch if isinstance(patch, str) else "")
        elif sub == "local_shell_call" or payload.get("name") in SHELL_TOOLS:
            command = _command(arguments.get("cmd") or arguments.get("command"))
            if command:
                summary.calls.setdefault(call_id, {"kind": "command", "command": command})
    elif sub == "function_call_output" and call_id in summary.calls:
        call = summary.calls[call_id]
        if not call.pop("_final", False):
            call.update(_parse_output(payload.get("output")))


def _arguments(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """Function arguments are a JSON string; local shell calls carry an `action` object."""
    if isinstance(payload.get("action"), Mapping):
        return payload["action"]
    raw = payload.get("arguments")
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return value if isinstance(value, Mapping) else {}


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
    match = EXIT_HEADER.search(head) if marker else None
    if match:
        return _outcome(body, int(match.group(1)))
    return _outcome(text, None)


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
            current = summary.files.setdefault(match.group(1).strip(), [])
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


def _relative(path: str, cwd: str | None) -> str:
    if cwd:
        try:
            return PurePath(path).relative_to(cwd).as_posix()
        except ValueError:
            pass
    return path


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
