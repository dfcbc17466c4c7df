"""Gemini CLI adapter: the `AfterAgent` hook payload, and the session file it names.

Gemini CLI fires `AfterAgent` once per turn with the person's request (`prompt`) and the final
text (`prompt_response`); those are the record's task and result. Each turn of the session is
recorded once whichever events fire: the session file names its turns (the id of each user
message, and a hash of its prompt: Gemini CLI rewrites the file after a compression, a masking
of tool output or a rollback, giving each message a new id), the session's cursor holds those
already queued, and AfterAgent, SessionEnd and
PreCompress each queue the turns it lacks (one no AfterAgent reported, interrupted or failed, is
recorded with a note and no status). Its `transcript_path` is the
session file under `~/.gemini/tmp/<project>/chats/`, in one of two shapes: one JSON document
(`session-*.json`, before 0.39, and what `/export-session` writes) or, since 0.39, a JSONL log
(`session-*.jsonl`): a metadata line, then each message appended whenever it changes (the last
copy of an id wins, in the place its first copy took), `{"$set": ...}` lines (a `messages` list
there replaces them all) and `{"$rewindTo": id}` lines (that message and all after it are gone),
as Gemini CLI's own loader reads it (packages/core/src/services/chatRecordingService.ts). Either
holds `user` and `gemini` messages (and `info`, `error`, `warning` notices); a `gemini` message
holds the turn's `toolCalls` (`name`, `args`, `status`, `result`), or, where a rewrite of the
file wrote it, `functionCall` parts whose results are the next user message's
`functionResponse` parts. That format is internal and
unversioned, so it is read defensively. A turn is a person's prompt and the messages after it:
a `user` message that carries a tool's result (`functionResponse` parts) or the session's
opening context (`<session_context>`) is no prompt, and a prompt after which nothing happened
(cancelled at once, a mode-switch notice) is no turn. Shell calls (`run_shell_command`) become
commands: the exit code is the output's `Exit Code:` line, which current versions write only
for a non-zero code, so a finished call without one exited 0; a call cancelled, denied or of an
unknown tool did not run. `write_file` / `replace` calls that succeeded become file changes
(with a diff: `replace`'s strings, or the content of a file `write_file` created); a
subagent's call (`delegate_to_agent`) leaves its report as a note under the turn. A
turn with `Request cancelled.` is `interrupted`; one that ends in an `error` notice `failed`. A
file that is missing, unreadable, too large or of an unknown shape costs only the evidence,
said in a note; the payload's prompt and response are still recorded.

Invariant: never raises on a malformed payload or session file; standard library only (this
is the hook's path).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from wikimem.runners.transcripts import (
    clip,
    marked_lines,
    nonempty_string,
    relative_to_cwd,
    text_of,
)

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
# A subagent's call: `delegate_to_agent` names it in `agent_name`; versions that expose each
# subagent as a tool of its own name are known by the output (`Subagent 'NAME' finished.`).
SUBAGENT_TOOLS = {"delegate_to_agent"}
SUBAGENT_DONE = re.compile(r"^Subagent '([^']+)' finished\.?[ \t]*\n?")
REPORT_CHARS = 2000  # of a subagent's report, as for Claude Code's
CREATED = re.compile(r"Successfully created")  # write_file's output for a file it made
SESSION_MAX = 64 * 1024 * 1024  # bytes of a session file read; a bigger one is not parsed
EXIT_CODE = re.compile(r"^Exit Code:\s*(-?\d+)\s*$", re.M | re.I)
NOT_RUN = {"cancelled", "canceled", "rejected"}
# A call that errored without running: an unknown tool, a policy's or the person's refusal.
REFUSED = re.compile(
    r"not found\. Did you mean|denied by policy|Tool execution denied|\[Operation Cancelled\]"
    r"|cancelled by user before it could",
    re.I,
)
BACKGROUND = re.compile(r"^(Command moved to background|Command is running in background)", re.M)
CANCELLED = re.compile(r"^Request cancelled", re.I)
OPENING = "<session_context>"  # the first user message: the session's context, not a prompt
# A compression's summary, sent as a user message before the turns it kept: no prompt.
SUMMARY = re.compile(r"<state_snapshot>")


def is_gemini_payload(payload: Mapping[str, Any]) -> bool:
    """A Gemini CLI hook payload: an event only Gemini CLI has, or a SessionEnd or
    SessionStart whose session file is Gemini CLI's (Claude Code's is `<uuid>.jsonl` under
    `~/.claude`)."""
    event = payload.get("hook_event_name")
    if event in EVENTS:
        return True
    path = payload.get("transcript_path")
    shared = event in ("SessionEnd", "SessionStart")
    return shared and isinstance(path, str) and _is_session_file(path)


def _is_session_file(path: str) -> bool:
    name = PurePath(path).name
    if not name.endswith((".json", ".jsonl")):
        return False
    return ".gemini" in PurePath(path).parts or name.startswith("session-")


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
    session = nonempty_string(payload.get("session_id")) or ""
    cwd = nonempty_string(payload.get("cwd"))
    path = nonempty_string(payload.get("transcript_path"))
    prompt = nonempty_string(payload.get("prompt"))
    response = nonempty_string(payload.get("prompt_response"))
    if event == END_EVENT and not (prompt or response):
        return []
    messages, rewritten, unread = _read_session(path)
    turns = _turns(messages, rewritten) if messages is not None else []
    if event == END_EVENT and not turns:
        turns = [Turn(None, prompt, [], None, None)]
    if event == "PreCompress":
        turns = turns[:-1]
    continued = bool(payload.get("stop_hook_active"))  # a turn an AfterAgent hook sent back
    done = _already_recorded(turns, recorded)
    out: list[tuple[str | None, dict[str, Any]]] = []
    for index, turn in enumerate(turns):
        reported = event == END_EVENT and index == len(turns) - 1
        if not (reported or turn.acted):
            continue  # nothing happened after the prompt (cancelled at once, a notice)
        key = turn.key
        if key and reported and continued and index in done:
            # a retry an AfterAgent hook forced, with no user message of its own in the file:
            # its own run (a retry that has one is simply the next turn)
            key = f"{turn.id}:continued"
            if key in recorded:
                continue
        elif index in done:
            continue
        task = (prompt if reported else None) or turn.prompt
        result = (response if reported else None) or turn.result
        if not (task or result or turn.messages):
            continue
        own = key.partition("#")[0] if key else None
        own = own or (nonempty_string(payload.get("timestamp")) if reported else None)
        record: dict[str, Any] = {
            "run_id": f"{session}:{own}" if session and own else session or own or "",
            "task": task or f"Gemini CLI session in {PurePath(cwd or '.').name or cwd}",
            "agent": {"name": RUNNER, "instance_id": session},
        }
        if turn.interrupted:
            record["status"] = "interrupted"
        elif turn.failed:
            record["status"] = "failed"
        elif reported:
            record["status"] = "succeeded"
        if result:
            record["result"] = result
        if turn.started_at:
            record["started_at"] = turn.started_at
        ended = (nonempty_string(payload.get("timestamp")) if reported else None) or turn.ended_at
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
    "read from the session file"
)


@dataclass
class Turn:
    """One turn of a session file: a person's prompt and the messages after it."""

    id: str | None  # the prompt message's id
    prompt: str | None
    messages: list[dict[str, Any]]
    started_at: str | None
    ended_at: str | None
    fingerprint: str = ""  # a hash of the prompt as sent: what a rewrite of the file keeps
    rewritten: bool = False  # the prompt comes from a rewrite of the file (new id, new time)

    @property
    def key(self) -> str | None:
        """The turn's cursor key: its prompt's id and, after `#`, its fingerprint. A turn
        cancelled or failed has none: Gemini CLI rolls such a turn out of its history, so no
        rewrite holds it, and the same prompt sent again is a new turn."""
        if not self.id:
            return None
        return self.id if self.interrupted or self.failed else f"{self.id}#{self.fingerprint}"

    @property
    def result(self) -> str | None:
        """The text of the turn's last model message that has any."""
        for message in reversed(self.messages):
            if message.get("type") == "gemini":
                text = _text(message.get("content"))
                if text:
                    return text
        return None

    @property
    def acted(self) -> bool:
        """The model answered or called a tool, or Gemini CLI reported an error."""
        return any(m.get("type") in ("gemini", "error") for m in self.messages)

    @property
    def interrupted(self) -> bool:
        """The person cancelled the request: Gemini CLI notes `Request cancelled.`, or the
        turn's last model message is a call that was cancelled."""
        if any(
            m.get("type") == "info" and CANCELLED.match(_text(m.get("content")))
            for m in self.messages
        ):
            return True
        gemini = [m for m in self.messages if m.get("type") == "gemini"]
        last: dict[str, Any] = gemini[-1] if gemini else {}
        calls = last.get("toolCalls")
        return not _text(last.get("content")) and any(
            isinstance(c, dict) and str(c.get("status") or "").lower() in NOT_RUN
            for c in (calls if isinstance(calls, list) else [])
        )

    @property
    def failed(self) -> bool:
        """The turn ended in an error notice (an API error): no model message after it."""
        kinds = [m.get("type") for m in self.messages if m.get("type") in ("gemini", "error")]
        return bool(kinds) and kinds[-1] == "error" and "gemini" not in kinds


def _turns(messages: list[dict[str, Any]], rewritten: Collection[str] = ()) -> list[Turn]:
    """The session's turns: each prompt and the messages up to the next one. Messages before
    the first prompt (the session's opening context, notices) belong to no turn."""
    turns: list[Turn] = []
    for message in messages:
        stamp = nonempty_string(message.get("timestamp"))
        text = _prompt_text(message)
        if text is not None:
            ident = nonempty_string(message.get("id"))
            turns.append(
                Turn(ident, text, [], stamp, stamp, _fingerprint(message), ident in rewritten)
            )
        elif turns:
            turns[-1].messages.append(message)
            turns[-1].ended_at = stamp or turns[-1].ended_at
    return turns


def _fingerprint(message: Mapping[str, Any]) -> str:
    """A hash of the prompt as sent (`content`, whitespace folded): a rewrite keeps that, while
    it drops `displayContent` and gives the message a new id and timestamp."""
    text = " ".join(_text(message.get("content")).split())
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _already_recorded(turns: list[Turn], recorded: Collection[str]) -> set[int]:
    """The indexes of the turns the cursor holds. A turn is held by its prompt's id; a prompt
    that a rewrite of the file gave a new id (Gemini CLI's `updateMessagesFromHistory`, after a
    compression, a masking of tool output or a rollback, writes the messages anew) is held by
    its fingerprint: the first one the cursor holds, in the cursor's order, after the last turn
    matched, that no other turn took. A rewrite keeps the turns' order, so matching in order
    finds each again, and the running turn, after every one matched, is new even when its
    prompt repeats one before. A prompt sent again after a rewind is no rewrite: its new id is
    a new turn."""
    entries = [(k.partition("#")[0], k.partition("#")[2]) for k in recorded]
    where = {ident: n for n, (ident, _) in enumerate(entries)}
    done: set[int] = set()
    taken: set[int] = set()
    last = -1
    for index, turn in enumerate(turns):
        if turn.id and turn.id in where:
            done.add(index)
            taken.add(where[turn.id])
            last = max(last, where[turn.id])
        elif turn.rewritten:
            for n in range(last + 1, len(entries)):
                if n not in taken and entries[n][1] and entries[n][1] == turn.fingerprint:
                    done.add(index)
                    taken.add(n)
                    last = n
                    break
    return done


def _prompt_text(message: Mapping[str, Any]) -> str | None:
    """The prompt a `user` message carries, or None: a tool's result and the opening context
    are user messages but no prompt. What the person typed (`displayContent`) is preferred to
    the content sent (which inlines the files an `@path` names)."""
    if message.get("type") != "user":
        return None
    content = message.get("content")
    parts = content if isinstance(content, list) else [content]
    if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
        return None
    text = _text(message.get("displayContent")) or _text(content)
    if not text.strip() or text.lstrip().startswith(OPENING) or SUMMARY.search(text):
        return None
    return text


def _text(content: Any) -> str:
    """A message's text: a string, or its parts' `text` joined (a model's thoughts left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        parts = [
            p.get("text") for p in content if isinstance(p, dict) and p.get("thought") is not True
        ]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return ""


Read = tuple[list[dict[str, Any]] | None, set[str], str | None]


def _read_session(path: str | None) -> Read:
    """The session file's messages, the ids of those a rewrite of the file wrote (see
    `_replay_log`), or None and why they could not be read."""
    if not path:
        return None, set(), "the payload names no Gemini CLI session file"
    try:
        with open(path, "rb") as handle:
            data = handle.read(SESSION_MAX + 1)
    except OSError as exc:
        why = f"the Gemini CLI session file could not be read ({exc.strerror or exc})"
        return None, set(), why
    if len(data) > SESSION_MAX:
        return None, set(), f"the Gemini CLI session file is over {SESSION_MAX // 2**20} MB"
    text = data.decode("utf-8", errors="replace")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return [m for m in document["messages"] if isinstance(m, dict)], set(), None
    replayed = _replay_log(text)
    if replayed is not None:
        return replayed[0], replayed[1], None
    if document is None:
        why = "the Gemini CLI session file is not JSON nor its JSONL log (being written?)"
        return None, set(), why
    return None, set(), "the Gemini CLI session file has no messages list (an unknown format)"


def _replay_log(text: str) -> tuple[list[dict[str, Any]], set[str]] | None:
    """The messages of a JSONL session log as Gemini CLI loads it, and the ids of those its
    last rewrite wrote, or None when no line is its metadata record (`sessionId` and
    `projectHash`). A rewrite is a `$set` of `messages` (Gemini CLI's
    `updateMessagesFromHistory`): the messages anew, each one not kept by id with a new id and
    timestamp and only its `content` (a model message's calls as `functionCall` parts). A line
    that does not parse (the one being written) is skipped, as Gemini CLI skips it."""
    found = False
    messages: dict[str, dict[str, Any]] = {}
    rewritten: set[str] = set()
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        rewind = record.get("$rewindTo")
        update = record.get("$set")
        if isinstance(rewind, str):
            ids = list(messages)
            for gone in ids[ids.index(rewind) :] if rewind in messages else ids:
                del messages[gone]
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record  # a later copy replaces it in its first place
        elif isinstance(update, dict):
            if isinstance(update.get("messages"), list):  # a checkpoint: the messages anew
                messages = {m["id"]: m for m in update["messages"] if _is_message(m)}
                rewritten = set(messages)
        elif isinstance(record.get("sessionId"), str) and isinstance(
            record.get("projectHash"), str
        ):
            found = True
            for message in record.get("messages") or []:
                if _is_message(message):
                    messages[message["id"]] = message
    return (list(messages.values()), rewritten) if found else None


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str)


def _evidence(turn: list[dict[str, Any]], cwd: str | None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in turn:
        if message.get("type") == "error":
            text = _text(message.get("content"))
            if text:
                items.append({"kind": "note", "text": clip(f"Gemini CLI error: {text}", 2000)})
            continue
        calls = message.get("toolCalls")
        if not isinstance(calls, list) and message.get("type") == "gemini":
            calls = _part_calls(message, turn)
        for call in calls if isinstance(calls, list) else []:
            if not isinstance(call, dict):
                continue
            item = _item(call, cwd)
            if item is not None:
                items.append(item)
    return items


def _parts(content: Any) -> list[dict[str, Any]]:
    parts = content if isinstance(content, list) else [content]
    return [p for p in parts if isinstance(p, dict)]


def _part_calls(message: Mapping[str, Any], turn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A model message's calls read from its `functionCall` parts (how a rewrite of the file
    writes them: the message's content as the API holds it, no `toolCalls`), each with the
    `functionResponse` of its id from the turn's user messages, in the shape of a recorded
    call: a response with an `error` is a failed call, one without a call whose outcome is
    unknown."""
    responses = [
        p["functionResponse"]
        for m in turn
        if m.get("type") == "user"
        for p in _parts(m.get("content"))
        if isinstance(p.get("functionResponse"), dict)
    ]
    calls: list[dict[str, Any]] = []
    for part in _parts(message.get("content")):
        called = part.get("functionCall")
        if not isinstance(called, dict):
            continue
        call: dict[str, Any] = {k: called.get(k) for k in ("id", "name", "args")}
        own = [r for r in responses if call["id"] and r.get("id") == call["id"]]
        if own:
            response = own[0].get("response")
            failed = isinstance(response, dict) and response.get("error")
            call["status"] = "error" if failed else "success"
            call["result"] = [{"functionResponse": own[0]}]
        calls.append(call)
    return calls


def _item(call: Mapping[str, Any], cwd: str | None) -> dict[str, Any] | None:
    name = call.get("name")
    raw = call.get("args")
    args: dict[str, Any] = raw if isinstance(raw, dict) else {}
    status = str(call.get("status") or "").lower()
    if name in SHELL_TOOLS:
        command = nonempty_string(args.get("command"))
        if not command:
            return None
        item: dict[str, Any] = {"kind": "command", "command": command}
        output, error = _output(call)
        text = output or error
        match = EXIT_CODE.search(text)
        if status in NOT_RUN or (not match and REFUSED.search(text)):
            item["ran"] = False  # cancelled, refused, or a tool the session did not have
        elif match:
            item["exit_code"] = int(match.group(1))
        elif status == "error":
            item["exit_code"] = 1  # Gemini CLI marks the call failed without a code
        elif args.get("is_background") is True or BACKGROUND.search(text):
            item["running"] = True  # started in the background: no outcome yet, never exit 0
        elif status == "success":
            item["exit_code"] = 0  # Gemini CLI writes `Exit Code:` only for a non-zero code
        if text:
            item["output"] = clip(text)
        return item
    if name in EDIT_TOOLS and status not in NOT_RUN and status != "error":
        path = nonempty_string(args.get("file_path")) or nonempty_string(args.get("path"))
        if not path:
            return None
        item = {"kind": "file", "path": relative_to_cwd(path, cwd)}
        old, new = nonempty_string(args.get("old_string")), nonempty_string(args.get("new_string"))
        content = nonempty_string(args.get("content"))
        if old is not None or new is not None:
            item["diff"] = clip(marked_lines("-", old or "") + marked_lines("+", new or ""))
        elif content is not None and CREATED.match(_output(call)[0]):
            item["diff"] = clip(marked_lines("+", content))  # a new file: its content is the diff
        return item
    output = _output(call)[0] if status not in NOT_RUN else ""
    done = SUBAGENT_DONE.match(output)
    if output and (name in SUBAGENT_TOOLS or done):
        who = nonempty_string(args.get("agent_name")) or (done.group(1) if done else str(name))
        report = " ".join(output[done.end() :].split() if done else output.split())
        if len(report) > REPORT_CHARS:
            report = report[: REPORT_CHARS - 1] + "…"
        return {"kind": "note", "text": f"Subagent {who} reported: {report}"}
    return None


def _output(call: Mapping[str, Any]) -> tuple[str, str]:
    """A tool call's output and error text, from its function response (the one with the
    call's id: some versions give each call of a message every response of it), else its
    display."""
    parts = call.get("result")
    responses = [
        p["functionResponse"]
        for p in (parts if isinstance(parts, list) else [parts])
        if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
    ]
    own = [r for r in responses if r.get("id") == call.get("id")] or [
        r for r in responses if r.get("name") == call.get("name")
    ]
    outputs: list[str] = []
    errors: list[str] = []
    for wrapper in own[:1] if own else responses:
        response = wrapper.get("response")
        if isinstance(response, dict):
            for key, texts in (("output", outputs), ("error", errors)):
                if isinstance(response.get(key), str) and response[key]:
                    texts.append(response[key])
    for part in parts if isinstance(parts, list) else [parts]:
        if isinstance(part, str):
            outputs.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            outputs.append(part["text"])
    output, error = "\n".join(t for t in outputs if t), "\n".join(t for t in errors if t)
    if not (output or error):
        display = call.get("resultDisplay")
        output = display if isinstance(display, str) else text_of(display)
    return output, error
