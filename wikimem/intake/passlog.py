"""The pass log: one JSON line per job outcome, under `.clarvis/state/`, never in the wiki.

Outcomes: changed, no change, skipped, failed, held. Readers (status, the failure warning)
tolerate broken lines, because a crash may cut the last one short.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wikimem.fsio import read_text

OUTCOMES = ("changed", "no change", "skipped", "failed", "held")
TAIL_BYTES = 256_000


@dataclass(frozen=True)
class Outcome:
    time: str
    pass_id: str
    job: str
    run_id: str
    outcome: str
    commit: str | None = None
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    edits: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)
    repaired: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    note: str = ""


def append(path: Path, outcomes: list[Outcome]) -> None:
    """Append whole lines with one write and fsync: a crash cuts at most the last line."""
    if not outcomes:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(
        json.dumps(asdict(o), ensure_ascii=False, sort_keys=True) + "\n" for o in outcomes
    )
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def read(path: Path, tail_only: bool = True) -> Iterator[dict[str, Any]]:
    """Recent log lines, oldest first (only the file's tail when `tail_only`)."""
    if not path.is_file():
        return
    text = read_text(path)
    if tail_only and len(text) > TAIL_BYTES:
        text = text[-TAIL_BYTES:].split("\n", 1)[-1]
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict):
            yield item


def passes(path: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    """Group recent lines by pass, oldest first."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for item in read(path):
        grouped.setdefault(str(item.get("pass_id")), []).append(item)
    return list(grouped.items())


def failed_in_a_row(path: Path) -> int:
    """How many of the most recent passes failed outright (every job failed)."""
    count = 0
    for _, items in reversed(passes(path)):
        if items and all(i.get("outcome") == "failed" for i in items):
            count += 1
        else:
            break
    return count


def failure_warning(path: Path) -> str | None:
    n = failed_in_a_row(path)
    if n < 2:
        return None
    last = next(
        (i.get("error") for _, items in reversed(passes(path)) for i in items if i.get("error")), ""
    )
    return f"wikimem: the last {n} passes failed ({last}); see `wikimem status`"
