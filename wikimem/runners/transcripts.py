"""What the runner adapters share: reading a runner's JSONL files defensively, the text of a
message, and clipping a tool output. Standard library only: it is on the hook's path."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

OUTPUT_LIMIT = 20_000
"""Characters of one tool output an adapter keeps (head and tail)."""
IDLE_SECONDS = 30 * 60
"""How long a session's transcript is still before no running turn can own it (the reasons
are in wikimem.runners.cursor, which picks crashed sessions up after it)."""


def relative_to_cwd(path: str, cwd: str | None) -> str:
    """`path` relative to the session's folder when it lies under it, as a checkout names it."""
    if cwd:
        try:
            return PurePath(path).relative_to(cwd).as_posix()
        except ValueError:
            pass
    return path


def nonempty_string(value: Any) -> str | None:
    """`value` when it is a non-empty string: payload fields come in any type, or none."""
    return value if isinstance(value, str) and value else None


def marked_lines(mark: str, text: Any) -> str:
    """Each line of `text` after `mark` (a diff's `+`/`-`); "" for what is not text."""
    if not isinstance(text, str):
        return ""
    return "".join(f"{mark}{line}\n" for line in text.splitlines())


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
