"""Adapters from agent runners' formats to the run record, and what they share.

Each runner gets one small module (`claude`, `codex`, `gemini`, `cursor_agent`, `opencode`,
`github`, `command`); this package
detects which one a payload belongs to. What they all need (reading a JSONL file defensively,
clipping a tool output) is in `transcripts`.

Invariant: adapters return plain dicts shaped like the run record (or None), never raise on
a malformed runner file, and never redact: the core parses, redacts and bounds afterwards.
This module is the hook's fast path, so it imports only the standard library, and each
runner module is imported only when a payload needs it.

SKIP: `record_from_payload` returns None when the event carries nothing to record (a
subagent's stop, a stop that a Stop hook forced to continue, an empty turn). The hook then
exits 0 without queueing anything; None is an expected outcome, not an error.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from wikimem.errors import RecordError


def record_from_payload(payload: Mapping[str, Any], env: Mapping[str, str]) -> dict | None:
    """The run record of the turn a payload reports (Claude Code, Codex, Gemini CLI, or a run
    record).

    Returns None to SKIP (see the module docstring). Raises RecordError for a payload that
    is none of the known shapes."""
    records = records_from_payload(payload, env)
    return records[-1][1] if records else None


def session_of(payload: Mapping[str, Any]) -> str | None:
    """The runner session a payload belongs to, as the cursor names it (None: no cursor)."""
    if payload.get("type") == "agent-turn-complete":
        thread = payload.get("thread-id")
        return f"codex-{thread}" if isinstance(thread, str) and thread else None
    if "conversation_id" in payload or "workspace_roots" in payload:
        from wikimem.runners import cursor_agent  # the hook's path (see below)

        if cursor_agent.is_cursor_payload(payload):
            return cursor_agent.session_of(payload)
    if "messages" in payload:
        from wikimem.runners import opencode  # the hook's path (see below)

        if opencode.is_opencode_payload(payload):
            return opencode.session_of(payload)
    from wikimem.runners import copilot  # the hook's path (see below)

    if copilot.is_copilot_payload(payload):  # camelCase: no hook_event_name, a sessionId
        found = copilot.session_id(payload)
        return f"copilot-{found}" if found else None
    session = payload.get("session_id")
    if not isinstance(session, str) or not session or "hook_event_name" not in payload:
        return None
    from wikimem.runners import codex, gemini  # the hook's path (see below)

    if gemini.is_gemini_payload(payload):
        return f"gemini-{session}"
    return f"{'codex' if codex.is_codex_payload(payload) else 'claude'}-{session}"


def records_from_payload(
    payload: Mapping[str, Any], env: Mapping[str, str], recorded: Collection[str] = ()
) -> list[tuple[str | None, dict[str, Any]]]:
    """Every turn of the payload's session not in `recorded` (the session's cursor), oldest
    first, each with its cursor key; the last is the one the event reports when it reports
    one. An empty list is a SKIP. Raises RecordError for a payload of no known shape."""
    # the hook's path: only the adapter a payload needs. Cursor's camelCase events first (it
    # may send a session_id too); then Codex: its Stop payload looks like Claude's plus turn_id
    if "conversation_id" in payload or "workspace_roots" in payload:
        from wikimem.runners import cursor_agent

        if cursor_agent.is_cursor_payload(payload):
            return cursor_agent.records_from_cursor(payload, env, recorded)
    if "messages" in payload:  # what wikimem's OpenCode plugin sends, or `opencode export`
        from wikimem.runners import opencode

        if opencode.is_opencode_payload(payload):
            return opencode.records_from_opencode(payload, recorded)
    from wikimem.runners import codex

    if codex.is_codex_payload(payload):
        return codex.records_from_codex(payload, env, recorded)
    from wikimem.runners import copilot  # the hook's path (see above)

    if copilot.is_copilot_payload(payload):  # before Claude: Copilot CLI also runs its hooks
        return copilot.records_from_copilot(payload, env, recorded)
    from wikimem.runners import gemini  # the hook's path (see above)

    if gemini.is_gemini_payload(payload):  # before Claude: both have SessionEnd
        return gemini.records_from_gemini(payload, recorded)
    from wikimem.runners import claude  # the hook's path (see above)

    if claude.is_claude_payload(payload):
        return claude.records_from_claude(payload, recorded)
    if isinstance(payload.get("task"), str):
        return [(None, dict(payload))]
    if "hook_event_name" in payload:
        return []  # another event of a known runner (SubagentStart, PostToolUse, ...)
    raise RecordError(
        "not a Claude Code, Codex, Gemini CLI, Cursor or OpenCode hook payload, nor a run record "
        "with a task"
    )
