"""Cursor adapter: its agent hooks' payloads, gathered turn by turn, become run records.

Cursor's `stop` hook says only how a turn ended (`status`: completed, aborted, error); what the
turn did comes in hooks of its own, each naming the conversation (`conversation_id`) and the
turn (`generation_id`, new for each user message): `beforeSubmitPrompt` (the `prompt`),
`afterShellExecution` (`command`, `output`, `duration`; Cursor reports no exit code),
`afterFileEdit` (`file_path`, `edits` of `old_string`/`new_string`) and `afterAgentResponse`
(the reply's `text`). Each of those appends what it carries to the conversation's scratch file,
`state/cursor/<conversation>.jsonl` in the workspace of the payload's first `workspace_roots`;
`stop` adds how its turn ended (a `stop` line: aborted is status `interrupted`).

A turn is recorded once it is closed, not at its stop. Cursor fires `afterAgentResponse` after
each assistant message, and starts the last one's hook and the stop's at once, so either may run
first; and neither says how many messages the turn had (the reply's hook carries only `text` and
the common fields, no index or timestamp; the stop only `status` and `loop_count`, the count of
follow-ups a stop hook sent). A stop therefore cannot know whether a reply of its turn is still
on its way, and no reply's hook whether it is the last. What closes a turn is what Cursor does
after it: the first hook of a later turn (`generation_id` changes with every user message; a
stopped turn is recorded there, a turn with no stop at the later turn's `stop` or `preCompact`,
with a note and no status, as one whose stop never fired: Cursor quit, a hook timed out), the
conversation's `sessionEnd` (every turn left, the last one with its `final_status`), or, when
Cursor quit after the last turn, a later start of any runner in the workspace, which hands the
conversation on as its `sessionEnd` once the scratch file has been still for 30 minutes
(`wikimem.runners.cursor`). So a conversation's last turn is recorded at its `sessionEnd` or at
that later start. The record's result is the turn's last message; the earlier ones are notes. A
turn is keyed by its generation id; a hook of a turn already queued adds nothing (a reply whose
hook ends after the turn was recorded is dropped, never a second record), and lines of queued
turns are dropped from the scratch file at the next event, and the file goes with them. A Cursor
that sends no generation id gets its turn recorded at its stop: its turns cannot be told apart.
A hook that closes turns (but `sessionEnd`) leaves their queueing to a detached `wikimem hook`
(`queued_later`) and returns: Cursor waits for its hooks, `beforeSubmitPrompt` before the prompt
goes.

Cursor's transcript (`transcript_path`) is not read: its format is undocumented and it leaves
tool results out, which the hooks carry.

Invariant: never raises on a malformed payload or scratch file; standard library only (the
hook's path). A payload this module cannot place in a workspace costs only the evidence.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Collection, Mapping
from pathlib import Path, PurePath
from typing import Any

from wikimem.runners.transcripts import clip, nonempty_string, relative_to_cwd

RUNNER = "cursor"
GATHER = {
    "beforeSubmitPrompt": ("prompt",),
    "afterShellExecution": ("command", "output", "duration", "cwd"),
    "afterFileEdit": ("file_path", "edits"),
    "afterAgentResponse": ("text",),
}
STOP_FIELDS = ("status", "loop_count")  # what a stop leaves in the scratch file
# A hook's payload handed on to a detached `wikimem hook` that queues the turns it closes: its
# line is in the scratch file already (the hook appended it before it returned)
QUEUE_ONLY = "wikimem_queue_only"
TURN_EVENTS = frozenset({"stop", "preCompact", "sessionEnd"})
# Cursor's agent events (camelCase; Claude Code's and Gemini CLI's are capitalised)
EVENTS = frozenset(
    {
        *GATHER,
        *TURN_EVENTS,
        "sessionStart",
        "beforeShellExecution",
        "beforeMCPExecution",
        "afterMCPExecution",
        "beforeReadFile",
        "afterAgentThought",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "subagentStart",
        "subagentStop",
    }
)
STATUS = {"completed": "succeeded", "aborted": "interrupted", "error": "failed"}
SCRATCH_MAX = 16 * 1024 * 1024  # bytes of a conversation's scratch file; past it, no more lines
STALE_SECONDS = 30 * 86400  # a scratch file untouched this long goes when a new one is made
EARLIER = "The agent's message before its last in this turn: "
UNREPORTED = (
    "no Cursor stop hook reported this turn (Cursor quit, or a hook failed): gathered from its "
    "other hooks, its outcome unknown"
)


def is_cursor_payload(payload: Mapping[str, Any]) -> bool:
    """A Cursor agent hook payload: a Cursor event naming a conversation or workspace roots."""
    return payload.get("hook_event_name") in EVENTS and (
        "conversation_id" in payload or "workspace_roots" in payload or "cursor_version" in payload
    )


def session_of(payload: Mapping[str, Any]) -> str | None:
    conversation = _conversation(payload)
    return f"cursor-{conversation}" if conversation else None


def records_from_cursor(
    payload: Mapping[str, Any], env: Mapping[str, str], recorded: Collection[str] = ()
) -> list[tuple[str | None, dict[str, Any]]]:
    """(cursor key, run record) of each turn of the conversation not in `recorded`, oldest
    first; [] for an event that only adds to its turn (or reports none)."""
    event = payload.get("hook_event_name")
    if event not in GATHER and event not in TURN_EVENTS:
        return []
    conversation = _conversation(payload) or ""
    root = _root(payload, env)
    scratch = _scratch(root, conversation, env) if conversation else None
    current = nonempty_string(payload.get("generation_id"))
    gathers = event in GATHER or (event == "stop" and current)
    if scratch is not None and gathers and not payload.get(QUEUE_ONLY):
        _append(scratch, event, payload, recorded)  # a stop leaves its outcome (STOP_FIELDS)
    turns = _gathered(_read(scratch, recorded) if scratch is not None else [])
    if event == "stop" and (current is None or scratch is None):
        # no generation id (a Cursor before them): turns cannot be told apart, so the stop
        # records what there is, the newest turn as the one it reports; and with no scratch
        # file (no workspace) there is nowhere to keep the turn open
        current = current or (list(turns)[-1] if turns else "")
        turns.setdefault(current, [])
        reported = {current}
    elif current is None and event in GATHER:
        return []
    elif current and current in recorded and event != "sessionEnd":
        return []  # a late hook of a turn queued already closes none begun after it
    else:
        reported = set()
    order = list(turns)  # as the turns began: a turn's prompt hook ends before it runs
    begun = order.index(current) if current in turns else len(order)
    out: list[tuple[str | None, dict[str, Any]]] = []
    for n, (generation, items) in enumerate(turns.items()):
        if generation and generation in recorded:
            continue
        stopped = _stop_of(items) is not None
        if event == "sessionEnd":
            # the conversation ended: every turn, the last one with `final_status` (Cursor 2.7+)
            told = stopped or (generation == current and bool(payload.get("final_status")))
        elif generation in reported:
            told = True
        elif n >= begun:
            continue  # the event's own turn (more replies may come, even after its stop) or later
        elif stopped:
            told = True  # stopped, and a later turn has begun: closed
        elif event in TURN_EVENTS:
            told = False  # a later turn's stop or compaction, and no stop for this one
        else:
            continue  # its stop may still come (a later turn's first hooks)
        record = _record(payload, conversation, generation, items, told, root)
        if record is not None:
            out.append((generation or None, record))
    return out


# What the detached `wikimem hook` reads of a handed-on payload: the turns are in the scratch
# file already, so no output, edit or prompt travels (nor, unredacted, through the pipe).
HANDED_FIELDS = (
    *("hook_event_name", "conversation_id", "session_id", "generation_id", "workspace_roots"),
    *("status", "final_status", "cursor_version", "model"),
)


def queued_later(payload: Mapping[str, Any], env: Mapping[str, str] | None = None) -> bytes | None:
    """The payload a detached `wikimem hook` takes to queue the turns this Cursor hook closes,
    so that the hook returns at once (Cursor waits for it: `beforeSubmitPrompt` before the
    prompt goes, the others inside the agent's loop); None when the hook queues them itself:
    `sessionEnd` (the conversation's end: nothing comes after it to close what a lost detached
    process left), and a payload handed on already. The hook appended its own line before
    this is asked, so the detached one only queues (`QUEUE_ONLY`); under the session's lock it
    queues what the cursor still lacks, so a later hook that closed the same turns first
    leaves it nothing, and if it never runs the turns stay in the scratch file for the next
    event, `sessionEnd` or a later start."""
    if payload.get(QUEUE_ONLY) or payload.get("hook_event_name") == "sessionEnd":
        return None
    handed: dict[str, Any] = {k: payload[k] for k in HANDED_FIELDS if k in payload}
    root = _root(payload, env or {})
    if root:  # the folder this hook resolved, whatever environment the detached one gets
        handed["workspace_roots"] = [root]
    handed[QUEUE_ONLY] = True
    return json.dumps(handed, ensure_ascii=False).encode("utf-8", "surrogateescape")


def _gathered(lines: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The scratch file's lines by turn, in order; the same event twice (project and user
    hooks.json both installed) once."""
    turns: dict[str, list[dict[str, Any]]] = {}
    seen: set[str] = set()
    for line in lines:
        same = json.dumps({k: v for k, v in line.items() if k != "t"}, sort_keys=True)
        if same not in seen:
            seen.add(same)
            turns.setdefault(line["g"], []).append(line)
    return turns


def _stop_of(items: list[dict[str, Any]]) -> str | None:
    """The outcome a turn's stop gave (its line in the scratch file), or None: no stop yet."""
    for item in items:
        if item["e"] == "stop":
            return str(item.get("status") or "")
    return None


def _record(
    payload: Mapping[str, Any],
    conversation: str,
    generation: str,
    items: list[dict[str, Any]],
    reported: bool,
    root: str | None,
) -> dict[str, Any] | None:
    prompts = [i["prompt"] for i in items if isinstance(i.get("prompt"), str) and i["prompt"]]
    said = [i for i in items if i["e"] == "afterAgentResponse" and _text(i)]
    evidence: list[dict[str, Any]] = [] if reported else [{"kind": "note", "text": UNREPORTED}]
    for item in items:
        if item["e"] == "afterAgentResponse" and said and item is not said[-1] and _text(item):
            # a message before the turn's last: the result is the last, none is left out
            evidence.append({"kind": "note", "text": f"{EARLIER}{item['text']}"})
        elif item["e"] == "afterShellExecution":
            command = nonempty_string(item.get("command"))
            if command:
                step: dict[str, Any] = {"kind": "command", "command": command}
                output = item.get("output")
                if isinstance(output, str) and output:
                    step["output"] = output
                evidence.append(step)
        elif item["e"] == "afterFileEdit":
            path = nonempty_string(item.get("file_path"))
            if path:
                change: dict[str, Any] = {"kind": "file", "path": relative_to_cwd(path, root)}
                diff = _diff(item.get("edits"))
                if diff:
                    change["diff"] = clip(diff)
                evidence.append(change)
    if not reported and not (prompts or said or len(evidence) > 1):
        return None
    name = PurePath(root or ".").name or root or "a workspace"
    record: dict[str, Any] = {
        "run_id": f"{conversation}:{generation}" if generation else conversation,
        "task": prompts[0] if prompts else f"Cursor conversation in {name}",
        "agent": {"name": RUNNER, "instance_id": conversation},
        "evidence": evidence,
    }
    outcome = payload.get("status") if payload.get("hook_event_name") == "stop" else None
    outcome = _stop_of(items) or outcome or payload.get("final_status")
    status = STATUS.get(str(outcome or "")) if reported else None
    if status:
        record["status"] = status
    if said:
        record["result"] = said[-1]["text"]
    stamps = [i["t"] for i in items if isinstance(i.get("t"), (int, float))]
    stopped = [i["t"] for i in items if i["e"] == "stop" and isinstance(i.get("t"), (int, float))]
    if stamps:
        record["started_at"] = _iso(min(stamps))
        # when its stop came; a turn the event reports itself ends now
        end = stopped[0] if stopped else time.time() if reported else max(stamps)
        record["ended_at"] = _iso(max(end, min(stamps)))
    record["source"] = {
        k: v
        for k, v in {
            "runner": RUNNER,
            "event": payload.get("hook_event_name"),
            "conversation_id": conversation or None,
            "generation_id": generation or None,
            "cursor_version": nonempty_string(payload.get("cursor_version")),
            "model": nonempty_string(payload.get("model")),
        }.items()
        if v
    }
    return record


def _append(path: str, event: str, payload: Mapping[str, Any], recorded: Collection[str]) -> None:
    """Add what a gathering event carries to the conversation's scratch file."""
    line: dict[str, Any] = {"e": event, "g": nonempty_string(payload.get("generation_id")) or ""}
    if line["g"] and line["g"] in recorded:
        return  # a late event of a turn already queued
    line["t"] = time.time()
    for name in GATHER.get(event, STOP_FIELDS):
        value = payload.get(name)
        if isinstance(value, str):
            value = clip(value)
        elif name == "edits":
            value = _edits(value)
        if value is not None:
            line[name] = value
    data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    try:
        first = not os.path.exists(path)
        if not first and os.path.getsize(path) > SCRATCH_MAX:
            return
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, data)  # one write of one line: hooks of one turn may overlap
        finally:
            os.close(fd)
        if first:
            _prune(os.path.dirname(path))
    except OSError:
        return


def _read(path: str, recorded: Collection[str]) -> list[dict[str, Any]]:
    """The scratch file's lines of turns not in `recorded`; drop the others from the file."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(SCRATCH_MAX + 1024 * 1024)
    except OSError:
        return []
    kept: list[dict[str, Any]] = []
    dropped = False
    for raw in data.decode("utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a torn line: skipped
        if not (isinstance(line, dict) and isinstance(line.get("g"), str) and line.get("e")):
            continue
        if line["g"] and line["g"] in recorded:
            dropped = True
            continue
        kept.append(line)
    if dropped:
        try:
            if kept:
                text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in kept)
                temporary = f"{path}.{os.getpid()}.tmp"
                # the lines hold prompts and outputs not yet redacted: the owner's alone
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
                    handle.write(text)
                os.replace(temporary, path)
            else:
                os.unlink(path)
        except OSError:
            pass
    return kept


def _prune(folder: str, now: float | None = None) -> None:
    limit = (time.time() if now is None else now) - STALE_SECONDS
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name.endswith(".jsonl") and os.stat(path).st_mtime < limit:
                os.unlink(path)
        except OSError:
            continue


def _root(payload: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    roots = payload.get("workspace_roots")
    if isinstance(roots, list):
        for root in roots:
            if isinstance(root, str) and root:
                return root
    return nonempty_string(env.get("CURSOR_PROJECT_DIR"))


def _scratch(root: str | None, conversation: str, env: Mapping[str, str]) -> str | None:
    """The conversation's scratch file in the workspace holding `root`, or None."""
    from wikimem import locate  # plain os.path: the hook's path
    from wikimem.runners.cursor import cursor_path

    if not root or not os.path.isabs(root) or not os.path.isdir(root):
        return None
    try:
        workspace = locate.project_dir(cwd=root, env=env)
    except Exception:  # a WIKIMEM_WORKSPACE that is no folder: the hook says so itself
        return None
    if workspace is None:
        return None
    state = locate.state_dir(workspace)
    name = cursor_path(Path(state), f"cursor-{conversation}").stem
    return os.path.join(state, "cursor", f"{name}.jsonl")


def _edits(value: Any) -> list[dict[str, str]] | None:
    if not isinstance(value, list):
        return None
    edits = []
    for edit in value[:200]:
        if isinstance(edit, dict):
            old, new = edit.get("old_string"), edit.get("new_string")
            edits.append(
                {
                    "old_string": clip(old) if isinstance(old, str) else "",
                    "new_string": clip(new) if isinstance(new, str) else "",
                }
            )
    return edits


def _diff(edits: Any) -> str:
    if not isinstance(edits, list):
        return ""
    parts = []
    for edit in edits:
        if isinstance(edit, dict):
            for mark, name in (("-", "old_string"), ("+", "new_string")):
                text = edit.get(name)
                if isinstance(text, str):
                    parts.append("".join(f"{mark}{line}\n" for line in text.splitlines()))
    return "".join(parts)


def _text(item: Mapping[str, Any]) -> bool:
    return isinstance(item.get("text"), str) and bool(item["text"])


def _conversation(payload: Mapping[str, Any]) -> str | None:
    return nonempty_string(payload.get("conversation_id")) or nonempty_string(
        payload.get("session_id")
    )


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))
