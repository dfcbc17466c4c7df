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

from wikimem.fsio import open_private

OUTCOMES = ("changed", "no change", "skipped", "failed", "held")
TAIL_BYTES = 256_000  # what readers (status, the hook's failure warning) read: the file's end
ROTATE_BYTES = 4_000_000  # past this, passes.jsonl becomes passes.1.jsonl (one generation kept)
NOTES_MAX = 40  # rejected or repaired notes kept per outcome
TEXT_MAX = 500  # characters of any one string in a line (an error, a note's reason)


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
    data = "".join(
        json.dumps(_bounded(asdict(o)), ensure_ascii=False, sort_keys=True) + "\n" for o in outcomes
    )
    _rotate(path)
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _bounded(line: dict[str, Any]) -> dict[str, Any]:
    """A line of bounded size: notes past `NOTES_MAX` counted, not kept; strings cut."""
    for key in ("rejected", "repaired"):
        notes = line.get(key) or []
        if len(notes) > NOTES_MAX:
            line[f"{key}_not_listed"] = len(notes) - NOTES_MAX
            notes = notes[:NOTES_MAX]
        line[key] = [{k: _cut(v) for k, v in note.items()} for note in notes]
    return {k: _cut(v) for k, v in line.items()}


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > TEXT_MAX:
        return value[: TEXT_MAX - 1] + "…"
    return value


def _rotate(path: Path) -> None:
    """Keep the log under `ROTATE_BYTES`: the old one becomes passes.1.jsonl (replacing the
    previous generation). Readers only want recent lines; `wikimem status` reads the tail."""
    try:
        size = os.lstat(path).st_size
    except FileNotFoundError:
        return
    if size > ROTATE_BYTES:
        os.replace(path, path.with_name(f"{path.stem}.1{path.suffix}"))


def read(path: Path, tail_only: bool = True) -> Iterator[dict[str, Any]]:
    """Recent log lines, oldest first (only the file's last `TAIL_BYTES` when `tail_only`:
    a hook reads this, and reading stays the same cost however long the log grows)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        cut = tail_only and size > TAIL_BYTES
        if cut:
            handle.seek(size - TAIL_BYTES)
        raw = handle.read()
    text = raw.decode("utf-8", "replace")
    if cut:
        text = text.split("\n", 1)[-1]
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict):
            yield item


Mark = tuple[int, int]  # (inode, size) of the log at some moment


def mark(path: Path) -> Mark:
    """Where the log ends now: `since(path, mark)` reads only the lines written after it."""
    try:
        info = os.lstat(path)
    except OSError:
        return (0, 0)
    return (info.st_ino, info.st_size)


def since(path: Path, start: Mark) -> Iterator[dict[str, Any]]:
    """The lines written after `start` (a `mark`), oldest first; when the log was rotated
    meanwhile, the rest of the rotated generation comes first."""
    inode, offset = start
    if mark(path)[0] != inode:
        rotated = path.with_name(f"{path.stem}.1{path.suffix}")
        if inode and mark(rotated)[0] == inode:
            yield from _lines_from(rotated, offset)
        offset = 0
    yield from _lines_from(path, offset)


def _lines_from(path: Path, start: int) -> Iterator[dict[str, Any]]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    with os.fdopen(fd, "rb") as handle:
        handle.seek(start)
        raw = handle.read()
    for line in raw.decode("utf-8", "replace").splitlines():
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
