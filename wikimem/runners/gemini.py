"""Gemini CLI adapter: the `AfterAgent` hook payload, and the session file it names.

Gemini CLI fires `AfterAgent` once per turn with the person's request (`prompt`) and the final
text (`prompt_response`); those are the record's task and result. Each turn of the session is
recorded once whichever events fire: the session file names its turns (the id of each user
message), the session's cursor holds those already queued, and AfterAgent, SessionEnd and
PreCompress each queue the turns it lacks (one no AfterAgent reported, interrupted or failed, is
recorded with a note and no status). Its `transcript_path` is the
session file, one JSON document (not JSONL) under `~/.gemini/tmp/<project>/chats/`: a
`messages` list of `user` and `gemini` messages, the latter holding the turn's `toolCalls`
(`name`, `args`, `status`, `result`). That format is internal and unversioned, so it is read
defensively: a turn is a user message and the messages after it, shell calls
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
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from wikimem.runners.transcripts import clip, text_of

RUNNER = "gemini-cli"
END_EVENT = "AfterAgent"
TURN_EVENTS = frozenset({"AfterAgent", "SessionEnd", "PreCompress", "SessionStart"})
# Gemini CLI's own events (SessionEnd it shares with Claude Code): AfterAgent reports a
# finished turn, SessionEnd and PreCompress the turns so far; the others are SKIPs.
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
    """A Gemini CLI hook payload: an event only Gemini CLI has, or a SessionEnd or
    SessionStart whose session file is JSON (Claude Code's is JSONL)."""
    event = payload.get("hook_event_name")
    if event in EVENTS:
        return True
    path = payload.get("transcript_path")
    shared = event in ("SessionEnd", "SessionStart")
    return shared and isinstance(path, str) and _is_session_file(path)


def _is_session_file(path: str) -> bool:
    name = PurePath(path).name
    return name.endswith(".json") and (".gemini" in PurePath(path).parts or "session-" in name)


def records_from_gemini(
    payload: Mapping[str, Any], recorded: Collection[str] = ()
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of each turn of the session not in `recorded` (the session's
    cursor), oldest first; [] for an event that reports no turn.

    AfterAgent reports the session's last turn (its prompt and response come from the payload);
    the turns before it that no AfterAgent reported (interrupted, failed, or from before the
    install) come from the session file. SessionEnd, and the start of a resumed session, record
    those and the last one; at
    PreCompress the last turn is still running, so it is left to its AfterAgent."""
    event = payload.get("hook_event_name")
    if event not in TURN_EVENTS or (event == "SessionStart" and payload.get("source") != "resume"):
        return []  # a resumed session's start (`wikimem start` hands it over) records the rest
    session = _string(payload.get("session_id")) or ""
    cwd = _string(payload.get("cwd"))
    path = _string(payload.get("transcript_path"))
    prompt = _string(payload.get("prompt"))
    response = _string(payload.get("prompt_response"))
    if event == END_EVENT and not (prompt or response):
        return []
    messages, unread = _read_session(path)
    turns = _turns(messages) if messages is not None else []
    if event == END_EVENT and not turns:
        turns = [Turn(None, prompt, [], None, None)]
    if event == "PreCompress":
        turns = turns[:-1]
    continued = bool(payload.get("stop_hook_active"))  # a turn an AfterAgent hook sent back
    out: list[tuple[str | None, dict[str, Any]]] = []
    for index, turn in enumerate(turns):
        reported = event == END_EVENT and index == len(turns) - 1
        key = turn.key
        if key and reported and continued and key in recorded:
            # a retry an AfterAgent hook forced, with no user message of its own in the file:
            # its own run (a retry that has one is simply the next turn)
            key += ":continued"
        if key and key in recorded:
            continue
        task = (prompt if reported else None) or turn.prompt
        result = (response if reported else None) or turn.result
        if not (task or result or turn.messages):
            continue
        own = key or (_string(payload.get("timestamp")) if reported else None)
        record: dict[str, Any] = {
            "run_id": f"{session}:{own}" if session and own else session or own or "",
            "task": task or f"Gemini CLI session in {PurePath(cwd or '.').name or cwd}",
            "agent": {"name": RUNNER, "instance_id": session},
        }
        if reported:
            record["status"] = "succeeded"
        if result:
            record["result"] = result
        if turn.started_at:
            record["started_at"] = turn.started_at
        ended = (_string(payload.get("timestamp")) if reported else None) or turn.ended_at
        if ended:
            record["ended_at"] = ended
        notes = []
        if unread:
            notes.append(
                {"kind": "note", "text": f"{unread}; the commands it ran are not recorded"}
            )
        if not reported:
            notes.append({"kind": "note", "text": UNREPORTED})
        record["evidence"] = notes + _evidence(turn.messages, cwd)
        record["source"] = {
            k: v
            for k, v in {
                "runner": RUNNER,
                "event": event,
                "session_id": session or None,
                "transcript_path": path,
                "cwd": cwd,
            }.items()
            if v
        }
        out.append((key or None, record))
    return out


UNREPORTED = (
    "no AfterAgent hook reported this turn (interrupted, failed, or before the install): "
    "read from the session file, its outcome unknown"
)


@dataclass
class Turn:
    """One turn of a session file: a user message and the messages after it."""

    key: str | None  # the user message's id
    prompt: str | None
    messages: list[dict[str, Any]]
    started_at: str | None
    ended_at: str | None

    @property
    def result(self) -> str | None:
        """The text of the turn's last model message that has any."""
        for message in reversed(self.messages):
            if message.get("type") == "gemini":
                text = _text(message.get("content"))
                if text:
                    return text
        return None


def _turns(messages: list[dict[str, Any]]) -> list[Turn]:
    """The session's turns: each user message and the messages up to the next one."""
    turns: list[Turn] = []
    for message in messages:
        stamp = _string(message.get("timestamp"))
        if message.get("type") == "user":
            text = _text(message.get("content"))
            turns.append(Turn(_string(message.get("id")), text or None, [], stamp, stamp))
        elif turns:
            turns[-1].messages.append(message)
            turns[-1].ended_at = stamp or turns[-1].ended_at
    return turns


def _text(content: Any) -> str:
    """A message's text: a string, or its parts' `text` joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return ""


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
        elif args.get("is_background") is True:
            item["running"] = True  # started in the background: no outcome yet, never exit 0
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
