"""The snapshot: a normalised run record with secrets removed and every text bounded.

The redaction engine walks JSON-like values, so the record is taken apart into its dict form
here and put back together as a RunRecord.

Invariant: the snapshot is the only form of a run that is written to disk or sent anywhere.
Order matters: text is cleaned, then redacted, then bounded, so a secret straddling a cut is
never left half-visible and the cut marker itself is never mistaken for a secret. A huge text
(a 20 MB build log) has only its two ends redacted, each far longer than what is kept of it: the
middle is cut unread, so a hook never spends seconds scanning what it throws away.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from wikimem.intake.record import RunRecord
from wikimem.redaction.redact import CUT_MARKER, bound_text, redact, redact_value, to_text

# Fields that are not evidence output get caps of their own: a task or result is prose.
TASK_MAX = 4000
RESULT_MAX = 12000
MEMORY_MAX = 8000
COMMAND_MAX = 4000  # a command, a file's path, a candidate's path or title
SHORT_MAX = 400  # status, times
# A text longer than twice ENDS has only its first and last ENDS characters redacted. An end is
# used only when, redacted, it still holds GUARD characters beyond what is kept of it: no secret,
# with the name before it that gives it away, is that long, so nothing that straddles where the
# end was cut can reach what is kept. Otherwise the whole text is redacted, as before.
ENDS = 32_768
GUARD = 16_384
_CUT_HEAD = CUT_MARKER.split("{count}")[0]
_CUT_TAIL = CUT_MARKER.split("{count}")[1]


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


def ends_bounded(text: str, head: int, tail: int) -> tuple[str, list[str]] | None:
    """`text` redacted and bounded to `head` + `tail` characters from its two ends alone, or
    None when it is short enough to redact whole, or an end lost too much to redaction."""
    if len(text) <= 2 * ENDS:
        return None
    first, first_kinds = redact(text[:ENDS])
    last, last_kinds = redact(text[-ENDS:])
    if len(first) < head + GUARD or len(last) < tail + GUARD:
        return None
    # bound_text keeps a redaction marker whole; its own cut marker closes the head, opens the tail
    kept_head = bound_text(first, head, 0)
    kept_head, head_cut = kept_head[: kept_head.rindex(_CUT_HEAD)], len(first)
    kept_tail = bound_text(last, 0, tail)
    kept_tail = kept_tail[kept_tail.index(_CUT_TAIL) + len(_CUT_TAIL) :]
    removed = head_cut - len(kept_head) + len(text) - 2 * ENDS + len(last) - len(kept_tail)
    return kept_head + CUT_MARKER.format(count=removed) + kept_tail, first_kinds + last_kinds


def _bounds(record: dict[str, Any], caps: Caps) -> dict[tuple[str, int, str], tuple[int, int]]:
    """Where each bounded text of the record is, and the (head, tail) it is bounded to."""
    half = TASK_MAX // 2, TASK_MAX // 2
    places: dict[tuple[str, int, str], tuple[int, int]] = {
        ("", 0, "task"): half,
        ("", 0, "result"): (RESULT_MAX // 2, RESULT_MAX // 2),
    }
    for i in range(len(record.get("evidence") or [])):
        for name in ("output", "diff", "text"):
            places[("evidence", i, name)] = (caps.output_head, caps.output_tail)
    for i in range(len(record.get("memory") or [])):
        places[("memory", i, "content")] = (MEMORY_MAX // 2, MEMORY_MAX // 2)
    return places


def _ends_first(
    record: dict[str, Any], caps: Caps
) -> tuple[dict[tuple[str, int, str], str], list[str]]:
    """Take each huge bounded text out of `record`, redacted and bounded from its ends; the
    texts left in are redacted whole."""
    done: dict[tuple[str, int, str], str] = {}
    kinds: list[str] = []
    for (group, i, name), (head, tail) in _bounds(record, caps).items():
        holder = record if not group else record[group][i]
        value = holder.get(name) if isinstance(holder, dict) else None
        if not isinstance(value, str):
            continue
        bounded = ends_bounded(value, head, tail)
        if bounded is not None:
            done[(group, i, name)], found = bounded
            kinds.extend(found)
            holder[name] = ""
    return done, kinds


def take(record: RunRecord, caps: Caps = Caps()) -> tuple[RunRecord, list[str]]:
    """Return (snapshot, kinds of secrets removed) for a normalised record."""
    cleaned = _clean(record.to_dict())
    huge, huge_kinds = _ends_first(cleaned, caps)
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
    for (group, i, name), text in huge.items():  # already bounded: back after the cuts
        (snap if not group else snap[group][i])[name] = text
    _shrink(snap, caps.snapshot_max)
    return RunRecord.from_dict(snap), huge_kinds + list(kinds)
