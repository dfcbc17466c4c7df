"""Adapters from agent runners' formats to the run record, and what they share.

Each runner gets one small module (`claude`, `codex`, `github`, `command`); this package
detects which one a payload belongs to and holds the two things they all need: reading a
JSONL file defensively and clipping a tool output.

Invariant: adapters return plain dicts shaped like the run record (or None), never raise on
a malformed runner file, and never redact: the core parses, redacts and bounds afterwards.
This module is the hook's fast path, so it imports only the standard library, and each
runner module is imported only when a payload needs it.

SKIP: `record_from_payload` returns None when the event carries nothing to record (a
subagent's stop, a stop that a Stop hook forced to continue, an empty turn). The hook then
exits 0 without queueing anything; None is an expected outcome, not an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from wikimem.errors import RecordError

OUTPUT_LIMIT = 20_000
"""Characters of one tool output an adapter keeps (head and tail)."""


def record_from_payload(payload: Mapping[str, Any], env: Mapping[str, str]) -> dict | None:
    """Turn one hook payload (Claude Code, Codex, or a run record) into a run record.

    Returns None to SKIP (see the module docstring). Raises RecordError for a payload that
    is none of the known shapes, so the caller can say so on stderr and still exit 0.
    """
    from wikimem.runners import (
        codex,  # Codex first: its Stop payload looks like Claude's plus turn_id
    )

    if codex.is_codex_payload(payload):
        return codex.record_from_codex(payload, env)
    from wikimem.runners import claude

    if claude.is_claude_payload(payload):
        return claude.record_from_claude(payload)
    if isinstance(payload.get("task"), str):
        return dict(payload)
    if "hook_event_name" in payload:
        return None  # another event of a known runner (SubagentStart, PostToolUse, ...)
    raise RecordError("not a Claude Code or Codex hook payload, nor a run record with a task")


def clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """Keep the head and tail of `text` within about `limit` characters."""
    if len(text) <= limit:
        return text
    half = limit // 2
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n[... {omitted} characters omitted ...]\n{text[-half:]}"


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield each JSON object of a JSONL file, line by line; skip broken or non-object lines.

    A missing or unreadable file yields nothing: runner files are written asynchronously and
    may be gone, late or half-written when a hook runs.
    """
    try:
        handle = open(Path(path), encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError:
        return
    with handle:
        yield from parse_jsonl(handle)


def parse_jsonl(lines: Iterator[str] | list[str]) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects among `lines`, skipping blank, broken and non-object lines."""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def text_of(content: Any) -> str:
    """The text of a message content: a string, or the `text` of its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block.get("text", "")
            for block in content
            if isinstance(block, dict)
            and block.get("type") in ("text", "input_text", "output_text")
        ]
        return "\n".join(part for part in parts if isinstance(part, str) and part)
    return ""
