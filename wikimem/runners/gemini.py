"""Gemini CLI adapter: the `AfterAgent` hook payload, and the session file it names.

Gemini CLI fires `AfterAgent` once per turn with the person's request (`prompt`) and the final
text (`prompt_response`); those are the record's task and result. Its `transcript_path` is the
session file, one JSON document (not JSONL) under `~/.gemini/tmp/<project>/chats/`: a
`messages` list of `user` and `gemini` messages, the latter holding the turn's `toolCalls`
(`name`, `args`, `status`, `result`). That format is internal and unversioned, so it is read
defensively: the turn is the messages after the last user message, shell calls
(`run_shell_command`) become commands, `write_file` / `replace` calls file changes. A file that
is missing, unreadable, too large or of an unknown shape costs only the evidence, said in a note;
the payload's prompt and response are still recorded.

Invariant: never raises on a malformed payload or session file; standard library only (this
is the hook's path).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from pathlib import PurePath
from typing import Any

from wikimem.runners.transcripts import clip, text_of

RUNNER = "gemini-cli"
END_EVENT = "AfterAgent"
# Gemini CLI's own events: none but AfterAgent reports a finished turn (SessionEnd is best
# effort and carries no turn), so the others are SKIPs.
EVENTS = frozenset(
    {
        "AfterAgent",
        "BeforeAgent",
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
        "BeforeTool",
        "AfterTool",
        "PreCompress",
        "Notification",
    }
)
SHELL_TOOLS = {"run_shell_command"}
EDIT_TOOLS = {"write_file", "replace", "edit"}
SESSION_MAX = 64 * 1024 * 1024  # bytes of a session file read; a bigger one is not parsed
EXIT_CODE = re.compile(r"^Exit Code:\s*(-?\d+)\s*$", re.M | re.I)
NOT_RUN = {"cancelled", "canceled", "rejected"}


def is_gemini_payload(payload: Mapping[str, Any]) -> bool:
    """A Gemini CLI hook payload: an event only Gemini CLI has, or a SessionEnd whose
    session file is JSON (Claude Code's is JSONL)."""
    event = payload.get("hook_event_name")
    if event in EVENTS:
        return True
    path = payload.get("transcript_path")
    return event == "SessionEnd" and isinstance(path, str) and _is_session_file(path)


def _is_session_file(path: str) -> bool:
    name = PurePath(path).name
    return name.endswith(".json") and (".gemini" in PurePath(path).parts or "session-" in name)


def records_from_gemini(
    payload: Mapping[str, Any], recorded: Collection[str] = ()
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of the turn an AfterAgent payload reports; [] for any other
    event, or a turn already in `recorded` (the session's cursor)."""
    if payload.get("hook_event_name") != END_EVENT:
        return []
    prompt = _string(payload.get("prompt"))
    response = _string(payload.get("prompt_response"))
    session = _string(payload.get("session_id")) or ""
    cwd = _string(payload.get("cwd"))
    path = _string(payload.get("transcript_path"))
    if not (prompt or response):
        return []
    messages, unread = _read_session(path)
    turn, prompt_id = _last_turn(messages) if messages is not None else ([], None)
    continued = bool(payload.get("stop_hook_active"))  # a turn an AfterAgent hook sent back
    own = prompt_id or _string(payload.get("timestamp"))
    key = prompt_id and (f"{prompt_id}:continued" if continued else prompt_id)
    if key and key in recorded:
        return []
    record: dict[str, Any] = {
        "run_id": f"{session}:{key or own}" if session and (key or own) else session or own or "",
        "task": prompt or f"Gemini CLI session in {PurePath(cwd or '.').name or cwd}",
        "agent": {"name": RUNNER, "instance_id": session},
        "status": "succeeded",
    }
    if response:
        record["result"] = response
    timestamp = _string(payload.get("timestamp"))
    if timestamp:
        record["ended_at"] = timestamp
    notes = []
    if unread:
        notes.append({"kind": "note", "text": f"{unread}; the commands it ran are not recorded"})
    record["evidence"] = notes + _evidence(turn, cwd)
    record["source"] = {
        k: v
        for k, v in {
            "runner": RUNNER,
            "event": END_EVENT,
            "session_id": session or None,
            "transcript_path": path,
            "cwd": cwd,
        }.items()
        if v
    }
    return [(key or None, record)]


def _read_session(path: str | None) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The session file's messages, or None and why they could not be read."""
    if not path:
        return None, "the payload names no Gemini CLI session file"
    try:
        with open(path, "rb") as handle:
            data = handle.read(SESSION_MAX + 1)
    except OSError as exc:
        return None, f"the Gemini CLI session file could not be read ({exc.strerror or exc})"
    if len(data) > SESSION_MAX:
        return None, f"the Gemini CLI session file is over {SESSION_MAX // 2**20} MB"
    try:
        document = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None, "the Gemini CLI session file is not JSON (still being written?)"
    messages = document.get("messages") if isinstance(document, dict) else None
    if not isinstance(messages, list):
        return None, "the Gemini CLI session file has no messages list (an unknown format)"
    return [m for m in messages if isinstance(m, dict)], None


def _last_turn(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The messages after the last user message, and that message's id."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("type") == "user":
            return messages[index + 1 :], _string(messages[index].get("id"))
    return messages, None


def _evidence(turn: list[dict[str, Any]], cwd: str | None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in turn:
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if not isinstance(call, dict):
                continue
            item = _item(call, cwd)
            if item is not None:
                items.append(item)
    return items


def _item(call: Mapping[str, Any], cwd: str | None) -> dict[str, Any] | None:
    name = call.get("name")
    raw = call.get("args")
    args: dict[str, Any] = raw if isinstance(raw, dict) else {}
    status = str(call.get("status") or "").lower()
    if name in SHELL_TOOLS:
        command = _string(args.get("command"))
        if not command:
            return None
        item: dict[str, Any] = {"kind": "command", "command": command}
        if status in NOT_RUN:
            item["ran"] = False
            return item
        output = _output(call)
        match = EXIT_CODE.search(output)
        if match:
            item["exit_code"] = int(match.group(1))
        elif status == "error":
            item["exit_code"] = 1  # Gemini CLI marks the call failed without a code
        if output:
            item["output"] = clip(output)
        return item
    if name in EDIT_TOOLS and status not in NOT_RUN and status != "error":
        path = _string(args.get("file_path")) or _string(args.get("path"))
        if not path:
            return None
        item = {"kind": "file", "path": _relative(path, cwd)}
        old, new = _string(args.get("old_string")), _string(args.get("new_string"))
        if old is not None or new is not None:
            item["diff"] = clip(_lines("-", old or "") + _lines("+", new or ""))
        return item
    return None


def _output(call: Mapping[str, Any]) -> str:
    """A tool call's output text: its function response's output, else its display."""
    parts = call.get("result")
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else [parts]:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            wrapper = part.get("functionResponse")
            response = wrapper.get("response") if isinstance(wrapper, dict) else None
            if isinstance(response, dict):
                value = response.get("output", response.get("error"))
                if isinstance(value, str):
                    texts.append(value)
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
    text = "\n".join(t for t in texts if t)
    if not text:
        display = call.get("resultDisplay")
        text = display if isinstance(display, str) else text_of(display)
    return text


def _lines(mark: str, text: str) -> str:
    return "".join(f"{mark}{line}\n" for line in text.splitlines())


def _relative(path: str, cwd: str | None) -> str:
    if cwd:
        try:
            return PurePath(path).relative_to(cwd).as_posix()
        except ValueError:
            pass
    return path


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
