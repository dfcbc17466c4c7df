"""OpenCode adapter: the session's messages, as wikimem's plugin hands them over, become run
records; and the plugin itself.

OpenCode runs no commands as hooks: it loads JavaScript plugins from `.opencode/plugins/` (or
`~/.config/opencode/plugins/`). `wikimem install opencode` writes one (`PLUGIN`, in OpenCode
1.x's plugin API: OpenCode 2 runs only plugins of its new `Plugin.define` API): on the
`session.idle` event (the agent finished, or was stopped) and on `session.compacted` it asks
OpenCode's own client for the session's messages (`client.session.messages`) and pipes
`{"hook_event_name", "session_id", "cwd", "messages"}` to `wikimem hook` on stdin. Each message
is `{"info", "parts"}` as OpenCode's SDK gives it: a turn is one run of OpenCode's loop, a user
message and the assistant messages after it, with the user messages the person sent while it
ran (OpenCode answers them in the same run: see `_joins`; recorded as notes of the turn), keyed
by the first user message's id, so every turn is recorded once whichever events fire (the
session's cursor holds the keys). OpenCode fires nothing for a session it quit
or crashed in, so when it starts (and when a session is created) the plugin also hands on the
folder's sessions written last (`session.pickup`) among those not recorded in full (FINISHED,
which the hook keeps: `note_finished`): their finished turns are recorded then, and a turn cut
mid-way once the session has been still for IDLE_SECONDS, with a note. An assistant's
`tool` parts give the evidence: `bash` calls become commands (the exit code is the call's
`metadata.exit`), `edit`, `write` and `patch` calls file changes; its text parts the result. A
turn whose last assistant message ended with `MessageAbortedError` has status `interrupted`,
another error `failed`; one still running (its last step finished with tool calls, or not
finished) is left to a later event. `opencode export` output (`{"info", "messages"}`) is read
the same way. OpenCode takes no context from a plugin's event; for a project the plugin writes
`wikimem start`'s context to a file the project's OpenCode config lists in its `instructions`,
when OpenCode starts and when a session is created.

Invariant: never raises on a malformed payload; standard library only (the hook's path).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Collection, Mapping
from pathlib import Path, PurePath
from typing import Any

from wikimem.runners.transcripts import (
    IDLE_SECONDS,
    clip,
    marked_lines,
    nonempty_string,
    relative_to_cwd,
)

RUNNER = "opencode"
# not OpenCode's event: the plugin's, at a start, for the sessions it did not see end
PICKUP = "session.pickup"
EVENTS = frozenset({"session.idle", "session.compacted", PICKUP})
GOES_ON = ("tool-calls", "unknown")  # a step's `finish` after which OpenCode's loop goes on
UNREPORTED = (
    "no OpenCode event reported the end of this turn (OpenCode quit or crashed, or its hook "
    "failed): recorded from the session's messages later, its outcome unknown"
)
SHELL_TOOLS = {"bash"}
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
NOT_RUN = ("rejected", "aborted", "denied", "cancel")
MARKER = "// wikimem: OpenCode plugin written by `wikimem install opencode`"
# the sessions every turn of which is recorded, as {id: the session's time.updated then}, in
# the workspace's state folder: the plugin's pickup passes them by unless written since
FINISHED = "opencode-finished.json"
FINISHED_KEEP = 2000  # sessions kept, those updated last (one a pickup drops is handed again)


def is_opencode_payload(payload: Mapping[str, Any]) -> bool:
    """What wikimem's OpenCode plugin sends, or an `opencode export` document."""
    if not isinstance(payload.get("messages"), list):
        return False
    if payload.get("hook_event_name") in EVENTS:
        return True
    info = payload.get("info")
    return isinstance(info, dict) and str(info.get("id") or "").startswith("ses")


def session_of(payload: Mapping[str, Any]) -> str | None:
    session = _session(payload)
    return f"opencode-{session}" if session else None


def records_from_opencode(
    payload: Mapping[str, Any], recorded: Collection[str] = ()
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of each finished turn of the session not in `recorded`, oldest
    first."""
    session = _session(payload) or ""
    cwd = nonempty_string(payload.get("cwd"))
    info = payload.get("info")
    if cwd is None and isinstance(info, dict):
        cwd = nonempty_string(info.get("directory"))
    event = nonempty_string(payload.get("hook_event_name")) or "export"
    found = payload.get("subagents")
    subagents: dict[str, Any] = found if isinstance(found, dict) else {}
    messages = payload.get("messages") or []
    turns = _turns(messages if isinstance(messages, list) else [], payload.get("before"))
    still = time.time() - _latest(messages, subagents) >= IDLE_SECONDS
    out: list[tuple[str | None, dict[str, Any]]] = []
    for n, turn in enumerate(turns):
        key = nonempty_string(turn[0].get("id"))
        if key and key in recorded:
            continue
        record = _record(turn, session, cwd, event, subagents, n < len(turns) - 1, still)
        if record is not None:
            out.append((key, record))
    return out


def finished(payload: Mapping[str, Any], recorded: Collection[str]) -> int | None:
    """The session's `updated` (ms, as the plugin read it before the messages) when every turn
    of the messages given is in `recorded` or is no turn (a compaction's own request), so that
    nothing of the session is left for a later pickup; None otherwise (a turn not recorded,
    a prompt not answered yet, no `updated` given)."""
    updated = payload.get("updated")
    messages = payload.get("messages")
    if not isinstance(updated, int) or isinstance(updated, bool) or not messages:
        return None
    turns = _turns(messages if isinstance(messages, list) else [], payload.get("before"))
    for turn in turns:
        if turn[0].get("id") in recorded:
            continue
        steps = [m for m in turn[1:] if m.get("role") == "assistant"]
        if not steps or any(not m.get("summary") for m in steps):
            return None  # not answered yet, or answered and not recorded: still to come
    return updated


def note_finished(state: Path, payload: Mapping[str, Any], recorded: Collection[str]) -> None:
    """Add the session to the workspace's record of finished sessions (FINISHED) once its
    cursor holds every turn (`finished`): called after the cursor is written, so the record
    never names a session whose turns are not durably queued. One small file, under its own
    lock (hooks of several sessions may finish at once); a failure only costs a later pickup
    one more hand-on."""
    session = _session(payload)
    updated = finished(payload, recorded) if session else None
    if session is None or updated is None:
        return
    from wikimem.fsio import atomic_write_text, open_private  # only when a session finished

    path = state / FINISHED
    with contextlib.suppress(OSError, ValueError):
        fd = open_private(path.with_suffix(".lock"), os.O_RDWR)
        try:
            with contextlib.suppress(ImportError):
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            sessions = finished_sessions(path)
            if sessions.get(session, -1) >= updated:
                return
            sessions[session] = updated
            kept = sorted(sessions.items(), key=lambda item: item[1])[-FINISHED_KEEP:]
            text = json.dumps({"version": 1, "sessions": dict(kept)}, ensure_ascii=False)
            atomic_write_text(path, text + "\n")
        finally:
            os.close(fd)


def finished_sessions(path: Path) -> dict[str, int]:
    """The record of finished sessions; an unreadable one is empty (pickup hands more on)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("sessions") if isinstance(data, dict) else None
    return {
        k: v
        for k, v in (found.items() if isinstance(found, dict) else ())
        if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
    }


def _ending(last: Mapping[str, Any], event: str, later: bool, still: bool) -> str | None:
    """How a turn whose last answer is `last` ended: "error", "done", "unreported" (its end
    unknown, and nothing of it can still be running), or None while it may still run.

    OpenCode's loop ends a turn at a step whose `finish` is not GOES_ON; a step that
    finished with tool calls is followed by the next. At `session.idle` the loop has ended, so
    a finished step ends the turn, and a turn a later prompt followed is over. A session the
    plugin hands on at a start (PICKUP) that has been `still` for IDLE_SECONDS (the longest a
    live turn goes without writing a message or a part, as for the other runners' crashed
    sessions) runs nothing: its last turn ended when OpenCode quit or crashed."""
    if last.get("error"):
        return "error"
    completed = _time(last, "completed") is not None
    if completed and last.get("finish") not in GOES_ON:
        return "done"
    if event == "session.idle" and completed:
        return "done"
    if (event == "session.idle" and later) or (event == PICKUP and still):
        return "unreported"
    return None


def _latest(messages: Any, subagents: Mapping[str, Any]) -> float:
    """When the session (or a subagent's session) last wrote a message or a part, in seconds;
    0 when no time is given."""
    newest = 0.0
    for group in [messages, *subagents.values()]:
        for message in group if isinstance(group, list) else []:
            if not isinstance(message, dict):
                continue
            parts = message.get("parts")
            for holder in [message.get("info"), *(parts if isinstance(parts, list) else [])]:
                if not isinstance(holder, dict):
                    continue
                state = holder.get("state")
                for times in (
                    holder.get("time"),
                    state.get("time") if isinstance(state, dict) else None,
                ):
                    for value in times.values() if isinstance(times, dict) else ():
                        if isinstance(value, (int, float)) and not isinstance(value, bool):
                            newest = max(newest, value / 1000)
    return newest


def _turns(messages: list[Any], before: Any = None) -> list[list[dict[str, Any]]]:
    """Each turn: its user message's info, then (info, parts) of the messages of the same run of
    OpenCode's loop after it: the assistant messages and the user messages the person sent while
    it ran (see `_joins`); the parts are kept under "parts" in each info copy. `before` is the
    info of the message before the first one given (the plugin sends the session's last
    messages): a run that began before them is no turn here, its head was recorded earlier."""
    turns: list[list[dict[str, Any]]] = []
    if isinstance(before, dict) and before.get("role") == "assistant":
        turns.append([{}, {**before, "parts": []}])  # a run whose user message is not given
    for message in messages:
        if not isinstance(message, dict):
            continue
        info = message.get("info")
        parts = message.get("parts")
        if not isinstance(info, dict):
            continue
        entry = {**info, "parts": parts if isinstance(parts, list) else []}
        if info.get("role") == "user":
            if turns and _joins(turns[-1], entry):
                turns[-1].append(entry)
            else:
                turns.append([entry])
        elif info.get("role") == "assistant":
            if not turns:
                turns.append([{}])
            turns[-1].append(entry)
    return [turn for turn in turns if turn[0].get("role") == "user"]


def _joins(turn: list[dict[str, Any]], user: Mapping[str, Any]) -> bool:
    """Whether OpenCode's loop was still running `turn` when the person sent `user`, so that
    the same run takes it up. A prompt sent while the session is busy is stored at once and
    joins the running loop, which reads the messages again before each step and answers the
    newest user message (that step's assistant message names it as `parentID`); the loop ends,
    and the session goes idle, only after a step that finished with no tool calls and no newer
    user message. (sst/opencode `packages/opencode/src/session/prompt.ts` at
    `00d0a710e3c90c3661126ded4df5302d54a8c6e6`: `prompt` calls `loop`, which joins a running
    one through `state.ensureRunning`, and `runLoop` breaks only when the last assistant's
    `finish` is not "tool-calls"/"unknown" and its `parentID` is the last user message's id;
    at anomalyco/opencode `c47941910e12e2af43c3feb3f81b6e3b676d375f` a busy session's prompt
    is queued, and the loop goes on while a queued message is newer than the last answer.)
    So the message joins when the turn's last answer was still being written when it came
    (finished later than the message's `time.created`), or had finished with a step the loop
    goes on from. An answer not finished yet is decided once it is: a live step completes
    before the next one starts, and one never completed was cut off by a crash, after which a
    message begins a new run."""
    answers = [m for m in turn[1:] if m.get("role") == "assistant" and not m.get("summary")]
    if not answers:
        return False  # no step of the run yet (or no run): the message is the next prompt
    last = answers[-1]
    completed = _time(last, "completed")
    if completed is None:
        return False
    sent = _time(user, "created")
    if sent is not None and sent <= completed:
        return True
    return not last.get("error") and last.get("finish") in GOES_ON


def _record(
    turn: list[dict[str, Any]],
    session: str,
    cwd: str | None,
    event: str,
    subagents: Mapping[str, Any],
    later: bool = False,
    still: bool = False,
) -> dict[str, Any] | None:
    user, rest = turn[0], turn[1:]
    answers = [m for m in rest if m.get("role") == "assistant" and not m.get("summary")]
    if not answers:
        return None  # a compaction's own request, or a prompt not answered yet
    prompt = _text(user["parts"])
    last = answers[-1]
    ending = _ending(last, event, later, still)
    if ending is None:
        return None  # still running: the next session.idle records it
    name = PurePath(cwd or ".").name or cwd or "a project"
    record: dict[str, Any] = {
        "run_id": f"{session}:{user.get('id')}" if user.get("id") else session,
        "task": prompt or f"OpenCode session in {name}",
        "agent": {"name": RUNNER, "instance_id": session},
    }
    error = last.get("error")
    notes: list[dict[str, Any]] = []
    if isinstance(error, dict):
        kind = str(error.get("name") or "")
        record["status"] = "interrupted" if kind == "MessageAbortedError" else "failed"
        data = error.get("data")
        message = data.get("message") if isinstance(data, dict) else None
        if kind != "MessageAbortedError":
            notes.append({"kind": "note", "text": clip(f"{kind}: {message or ''}".strip(": "))})
    elif ending == "done":
        record["status"] = "succeeded"
    else:
        notes.append({"kind": "note", "text": UNREPORTED})
    notes.extend(
        {"kind": "note", "text": clip(f"Message the person sent during the turn: {text}")}
        for text in (_text(m["parts"]) for m in rest if m.get("role") == "user")
        if text
    )
    result = ""
    for answer in reversed(answers):
        result = _text(answer["parts"])
        if result:
            break
    if result:
        record["result"] = result
    started, ended = _time(user, "created"), _time(last, "completed") or _time(last, "created")
    if ending == "unreported":
        ended = _latest([{"info": m, "parts": m["parts"]} for m in answers], {}) or ended
    if started:
        record["started_at"] = _iso(started)
    if ended:
        record["ended_at"] = _iso(ended)
    items: list[dict[str, Any]] = []
    for answer in answers:
        for part in answer["parts"]:
            if isinstance(part, dict) and part.get("type") == "tool":
                items.extend(_items(part, cwd))
                if part.get("tool") == "task":
                    items.extend(_subagent(part, subagents, cwd))
    record["evidence"] = notes + items
    model = nonempty_string(last.get("modelID"))
    record["source"] = {
        k: v
        for k, v in {
            "runner": RUNNER,
            "event": event,
            "session_id": session or None,
            "cwd": cwd,
            "model": model,
        }.items()
        if v
    }
    return record


def _items(part: Mapping[str, Any], cwd: str | None) -> list[dict[str, Any]]:
    tool = part.get("tool")
    raw = part.get("state")
    state: dict[str, Any] = raw if isinstance(raw, dict) else {}
    given = state.get("input")
    args: dict[str, Any] = given if isinstance(given, dict) else {}
    status = str(state.get("status") or "")
    error = nonempty_string(state.get("error")) or ""
    if tool in SHELL_TOOLS:
        command = nonempty_string(args.get("command"))
        if not command:
            return []
        item: dict[str, Any] = {"kind": "command", "command": command}
        found = state.get("metadata")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        output = nonempty_string(state.get("output")) or nonempty_string(meta.get("output")) or ""
        if status == "error":
            if any(word in error.lower() for word in NOT_RUN):
                item["ran"] = False
            else:
                item["exit_code"] = 1  # OpenCode marks the call failed without a code
            output = error or output
        elif status in ("pending", "running"):
            item["running"] = True  # no outcome yet: never a false exit 0
        elif isinstance(meta.get("exit"), int) and not isinstance(meta.get("exit"), bool):
            item["exit_code"] = meta["exit"]
        if output:
            item["output"] = clip(output)
        return [item]
    if status != "completed":
        return []
    if tool in ("edit", "write"):
        path = nonempty_string(args.get("filePath")) or nonempty_string(args.get("path"))
        if not path:
            return []
        change: dict[str, Any] = {"kind": "file", "path": relative_to_cwd(path, cwd)}
        if tool == "edit":
            diff = marked_lines("-", args.get("oldString")) + marked_lines(
                "+", args.get("newString")
            )
        else:
            diff = marked_lines("+", args.get("content"))
        if diff:
            change["diff"] = clip(diff)
        return [change]
    if tool in ("patch", "apply_patch"):
        text = nonempty_string(args.get("patchText")) or nonempty_string(args.get("patch")) or ""
        return [
            {"kind": "file", "path": relative_to_cwd(path.strip(), cwd), "diff": clip(text)}
            for path in PATCH_FILE.findall(text)
        ]
    return []


def _subagent(
    part: Mapping[str, Any], subagents: Mapping[str, Any], cwd: str | None
) -> list[dict[str, Any]]:
    """A `task` call: the subagent's report as a note, then the commands and edits of its own
    session (the plugin hands them over under `subagents`), marked as the subagent's."""
    state = _mapping(part.get("state"))
    args, meta = _mapping(state.get("input")), _mapping(state.get("metadata"))
    kind = nonempty_string(args.get("subagent_type")) or "subagent"
    about = nonempty_string(args.get("description")) or ""
    report = nonempty_string(state.get("output")) or nonempty_string(state.get("error")) or ""
    text = f"subagent {kind}" + (f" ({about})" if about else "")
    text += f" reported: {report}" if report else ": no report"
    items: list[dict[str, Any]] = [{"kind": "note", "text": clip(text)}]
    child = nonempty_string(meta.get("sessionId")) or nonempty_string(meta.get("sessionID"))
    messages = subagents.get(child) if child else None
    for message in messages if isinstance(messages, list) else []:
        info = message.get("info") if isinstance(message, dict) else None
        parts = message.get("parts") if isinstance(message, dict) else None
        if not (isinstance(info, dict) and info.get("role") == "assistant"):
            continue
        for inner in parts if isinstance(parts, list) else []:
            if isinstance(inner, dict) and inner.get("type") == "tool":
                for item in _items(inner, cwd):
                    items.append({**item, "subagent": kind})
    return items


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(parts: list[Any]) -> str:
    """The text of a message's own text parts (not the synthetic ones OpenCode adds)."""
    texts = [
        p["text"]
        for p in parts
        if isinstance(p, dict)
        and p.get("type") == "text"
        and not p.get("synthetic")
        and isinstance(p.get("text"), str)
    ]
    return "\n".join(t for t in texts if t.strip())


def _time(info: Mapping[str, Any], name: str) -> float | None:
    times = info.get("time")
    value = times.get(name) if isinstance(times, dict) else None
    return value / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _session(payload: Mapping[str, Any]) -> str | None:
    session = nonempty_string(payload.get("session_id"))
    info = payload.get("info")
    if session is None and isinstance(info, dict):
        session = nonempty_string(info.get("id"))
    return session


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def plugin_text(entry: list[str], context: str | None = None) -> str:
    """The plugin `install opencode` writes: it runs `entry hook` with the session's messages,
    and writes `entry start`'s context to the file `context` (None: no context file)."""
    return (
        PLUGIN.replace("__COMMAND__", json.dumps([*entry, "hook"]))
        .replace("__START__", json.dumps([*entry, "start", "--runner", "opencode"]))
        .replace("__CONTEXT__", json.dumps(context))
        .replace("__FINISHED__", json.dumps(FINISHED))
    )


PLUGIN = (
    MARKER
    + """ (remove it with
// `wikimem uninstall opencode`). When a session goes idle (its turn finished or was stopped)
// or is compacted, it hands the session's messages to `wikimem hook` on stdin, which records
// each turn not recorded yet in this project's memory. When OpenCode starts and when a session
// is created it writes `wikimem start`'s context to CONTEXT, a file OpenCode reads through its
// `instructions`, and hands on the sessions written last the same way, so that the turns of a
// session OpenCode quit or crashed in are recorded too. It never throws: memory must never
// break the agent.
import { spawn } from "node:child_process"
import { readFile, realpath, rename, stat, writeFile } from "node:fs/promises"
import { homedir } from "node:os"
import { dirname, join, sep } from "node:path"

const COMMAND = __COMMAND__
const START = __START__
const CONTEXT = __CONTEXT__ // null: no context file (an install for all projects)
const EVENTS = new Set(["session.idle", "session.compacted"])
const LAST = 400 // messages sent at most: older turns were recorded at earlier events
const CHILDREN = 20 // subagent sessions whose messages are sent with the turn
const PICK_UP = 3 // sessions handed on at a start: those written last not recorded in full
const FINISHED = __FINISHED__ // in the workspace's state folder, written by `wikimem hook`

// OpenCode's client answers { data } (or the value itself, by its responseStyle)
async function ask(method, id, directory, wanted) {
  const forms = id
    ? [{ path: { id }, query: { directory } }, { sessionID: id }]
    : [{ query: { directory } }, { directory }] // a list of sessions
  for (const args of forms) {
    try {
      const reply = await method(args)
      const value = reply && typeof reply === "object" && "data" in reply ? reply.data : reply
      if (wanted(value)) return value
    } catch {}
  }
  return null
}

function messagesOf(client, id, directory) {
  return ask((args) => client.session.messages(args), id, directory, Array.isArray)
}

function sessionOf(client, id, directory) {
  if (!client.session.get) return null
  return ask((args) => client.session.get(args), id, directory, (v) => !!v && !!v.id)
}

// run `command` with `payload` as JSON on stdin (killed after `timeout` ms): whether it
// exited 0, and its stdout. Not exported: OpenCode runs every function a plugin file exports
function send(command, payload, cwd, timeout = 60000) {
  return new Promise((resolve) => {
    let child
    const out = []
    try {
      const options = { cwd, timeout, stdio: ["pipe", "pipe", "ignore"] }
      child = spawn(command[0], command.slice(1), options)
    } catch {
      resolve({ ok: false, out: "" })
      return
    }
    child.stdout.on("data", (chunk) => out.push(chunk))
    child.on("error", () => resolve({ ok: false, out: "" }))
    child.on("close", (code) => resolve({ ok: code === 0, out: Buffer.concat(out).toString() }))
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

// the memory's context for the sessions to come, where OpenCode's instructions name it
async function refresh(directory) {
  if (!CONTEXT) return
  const start = { hook_event_name: "SessionStart", source: "startup", cwd: directory }
  const { ok, out } = await send(START, start, directory, 10000)
  if (!ok) return
  const temporary = `${CONTEXT}.${process.pid}.tmp`
  await writeFile(temporary, out)
  await rename(temporary, CONTEXT)
}

// the session's messages (the last LAST) and its subagents' sessions, to `wikimem hook` as
// `type`; `updated` is the session's time.updated, read before its messages
async function report(client, id, directory, type, updated) {
  const messages = await messagesOf(client, id, directory)
  if (!messages) return
  const recent = messages.slice(-LAST)
  const subagents = {}
  for (const message of recent) {
    for (const part of (message && message.parts) || []) {
      const meta = part && part.tool === "task" && part.state && part.state.metadata
      const child = meta && (meta.sessionId || meta.sessionID)
      if (!child || child in subagents || Object.keys(subagents).length >= CHILDREN) continue
      subagents[child] = ((await messagesOf(client, child, directory)) || []).slice(-LAST)
    }
  }
  const payload = { hook_event_name: type, session_id: id, cwd: directory, messages: recent }
  payload.subagents = subagents
  if (typeof updated === "number") payload.updated = updated // a finished one is noted so
  // the message before them, without its parts: whether the first one continues a turn
  const earlier = messages[messages.length - recent.length - 1]
  if (earlier && earlier.info) payload.before = earlier.info
  await send(COMMAND, payload, directory)
}

// The workspace `wikimem hook` finds for `directory` (as wikimem's locate does: the folder
// holding a `.clarvis` the path runs through, else the nearest one up holding `.clarvis/` or
// `.git`, not past HOME), and its record of the sessions every turn of which is recorded:
// { id: the session's time.updated then }. {} when there is none (then pickup hands on the
// sessions written last, finished or not).
async function finishedSessions(directory) {
  const there = async (path, folder) => {
    try {
      const found = await stat(path)
      return folder ? found.isDirectory() : true
    } catch {
      return false
    }
  }
  let workspace = process.env.WIKIMEM_WORKSPACE || null
  if (!workspace) {
    const home = await realpath(process.env.HOME || homedir()).catch(() => null)
    let folder = await realpath(directory)
    const parts = folder.split(sep)
    if (parts.includes(".clarvis")) {
      workspace = parts.slice(0, parts.indexOf(".clarvis")).join(sep) || sep
    }
    while (!workspace && folder !== home) {
      if ((await there(join(folder, ".clarvis"), true)) || (await there(join(folder, ".git")))) {
        workspace = folder
      } else if (dirname(folder) === folder) {
        break
      } else {
        folder = dirname(folder)
      }
    }
  }
  if (!workspace) return {}
  const text = await readFile(join(workspace, ".clarvis", "state", FINISHED), "utf8")
  const record = JSON.parse(text)
  return (record && typeof record.sessions === "object" && record.sessions) || {}
}

// OpenCode fires no event for a session it quit or crashed in: when it starts, and when a
// session is created, the PICK_UP sessions of this folder written last (but `except`) of
// those not recorded in full (the record `wikimem hook` keeps, FINISHED: a session written
// since it was noted there is handed on again) go to `wikimem hook`, whose cursor records
// what of them no session.idle did (a turn still running is left alone until it has been
// still for 30 minutes). One pass at a time; at most PICK_UP sessions' messages asked for.
let picking = null
function pickUp(client, directory, except) {
  if (picking || !client.session.list) return picking
  picking = (async () => {
    const listed = await ask((args) => client.session.list(args), null, directory, Array.isArray)
    const ours = (s) => s && s.id && !s.parentID && (!s.directory || s.directory === directory)
    const roots = (listed || []).filter((s) => ours(s) && s.id !== except)
    const updated = (s) => (s.time && typeof s.time.updated === "number" ? s.time.updated : 0)
    const done = await finishedSessions(directory).catch(() => ({}))
    const left = roots.filter((s) => !(typeof done[s.id] === "number" && done[s.id] >= updated(s)))
    left.sort((a, b) => updated(b) - updated(a))
    for (const session of left.slice(0, PICK_UP)) {
      const at = session.time && session.time.updated
      await report(client, session.id, directory, "session.pickup", at).catch(() => {})
    }
  })()
    .catch(() => {})
    .finally(() => {
      picking = null
    })
  return picking
}

export const WikimemPlugin = async ({ client, directory }) => {
  await refresh(directory).catch(() => {})
  pickUp(client, directory, null) // not awaited: OpenCode's start never waits for memory
  return { event: async ({ event }) => {
    try {
      if (event && event.type === "session.created") {
        const info = event.properties && event.properties.info
        if (info && info.parentID) return // a subagent's session
        await refresh(directory)
        pickUp(client, directory, info && info.id)
        return
      }
      if (!event || !EVENTS.has(event.type)) return
      const id = event.properties && event.properties.sessionID
      if (!id) return
      const session = await sessionOf(client, id, directory)
      if (session && session.parentID) return // a subagent's session: its parent's turn has it
      const at = session && session.time && session.time.updated
      await report(client, id, directory, event.type, at)
    } catch {}
  } }
}
"""
)
