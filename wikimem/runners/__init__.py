"""Adapters from agent runners' formats to the run record, and what they share.

Each runner gets one small module (`claude`, `codex`, `github`, `command`); this package
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

from collections.abc import Mapping
from typing import Any

from wikimem.errors import RecordError


def record_from_payload(payload: Mapping[str, Any], env: Mapping[str, str]) -> dict | None:
    """Turn one hook payload (Claude Code, Codex, or a run record) into a run record.

    Returns None to SKIP (see the module docstring). Raises RecordError for a payload that
    is none of the known shapes, so the caller can say so on stderr and still exit 0.
    """
    # the hook's path: only the adapter a payload needs. Codex first: its Stop payload looks
    # like Claude's plus turn_id
    from wikimem.runners import codex

    if codex.is_codex_payload(payload):
        return codex.record_from_codex(payload, env)
    from wikimem.runners import claude  # the hook's path (see above)

    if claude.is_claude_payload(payload):
        return claude.record_from_claude(payload)
    if isinstance(payload.get("task"), str):
        return dict(payload)
    if "hook_event_name" in payload:
        return None  # another event of a known runner (SubagentStart, PostToolUse, ...)
    raise RecordError("not a Claude Code or Codex hook payload, nor a run record with a task")
