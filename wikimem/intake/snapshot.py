"""The snapshot: a normalised run record with secrets removed and every text bounded.

The redaction engine walks JSON-like values, so the record is taken apart into its dict form
here and put back together as a RunRecord.

Invariant: the snapshot is the only form of a run that is written to disk or sent anywhere.
Order matters: text is cleaned, then redacted, then bounded, so a secret straddling a cut is
never left half-visible and the cut marker itself is never mistaken for a secret.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from wikimem.intake.record import RunRecord
from wikimem.redaction.redact import bound_text, redact_value, to_text

# Fields that are not evidence output get caps of their own: a task or result is prose.
TASK_MAX = 4000
RESULT_MAX = 12000
MEMORY_MAX = 8000
COMMAND_MAX = 4000  # a command, a file's path, a candidate's path or title
SHORT_MAX = 400  # status, times


@dataclass(frozen=True)
class Caps:
    output_head: int = 2000
    output_tail: int = 2000
    snapshot_max: int = 60000


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return to_text(value)
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if isinstance(value, dict):
        return {to_text(str(k)): _clean(v) for k, v in value.items()}
    return value


def _cut(text: str, limit: int) -> str:
    half = max(limit // 2, 1)
    return bound_text(text, half, half)


def _size(record: dict[str, Any]) -> int:
    return len(json.dumps(record, ensure_ascii=False))


def _shrink(record: dict[str, Any], cap: int) -> None:
    """Halve the largest evidence texts until the whole snapshot fits under `cap`."""
    fields = ("output", "diff", "text")
    while _size(record) > cap:
        sized = [
            (len(item.get(f, "")), i, f)
            for i, item in enumerate(record["evidence"])
            for f in fields
            if len(item.get(f, "")) > 200
        ]
        if not sized:
            break
        length, index, name = max(sized)
        record["evidence"][index][name] = _cut(record["evidence"][index][name], length // 2)
    while _size(record) > cap and len(record["evidence"]) > 2:
        # Keep the first and the last items: the failure and how the run ended.
        dropped = record["evidence"].pop(len(record["evidence"]) // 2)
        record.setdefault("evidence_dropped", 0)
        record["evidence_dropped"] += 1
        del dropped
    if _size(record) > cap:
        record["result"] = _cut(record["result"], max(cap // 4, 200))


def take(record: RunRecord, caps: Caps = Caps()) -> tuple[RunRecord, list[str]]:
    """Return (snapshot, kinds of secrets removed) for a normalised record."""
    cleaned = _clean(record.to_dict())
    redacted, kinds = redact_value(cleaned)
    snap: dict[str, Any] = redacted  # type: ignore[assignment]
    snap["task"] = _cut(snap["task"], TASK_MAX)
    snap["result"] = _cut(snap["result"], RESULT_MAX)
    for name in ("status", "started_at", "ended_at"):
        snap[name] = _cut(snap[name], SHORT_MAX)
    for item in snap["evidence"]:
        for name in ("command", "path"):
            if len(item.get(name) or "") > COMMAND_MAX:
                item[name] = _cut(item[name], COMMAND_MAX)
        for name in ("output", "diff", "text"):
            if item.get(name):
                item[name] = bound_text(item[name], caps.output_head, caps.output_tail)
    for item in snap["memory"]:
        item["content"] = _cut(item["content"], MEMORY_MAX)
        for name in ("path", "title", "type"):
            item[name] = _cut(item[name], COMMAND_MAX)
    _shrink(snap, caps.snapshot_max)
    return RunRecord.from_dict(snap), list(kinds)
