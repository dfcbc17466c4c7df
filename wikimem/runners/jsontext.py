"""Edits of a JSON file's text that leave every other byte alone.

Install adds a handler to a runner's settings file and uninstall removes it; rewriting the
whole document with `json.dumps` would re-indent a person's file and reorder nothing but still
change its bytes. So an edit here locates values by their position in the text (`parse`) and
splices: `append` inserts a member or element after the last one, copying the indentation of
its siblings, and `remove` cuts one out with the separator before it. Removing what `append`
inserted gives back the bytes there were before.

The text must already be valid JSON (the caller has checked it with `json.loads`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

SPACE = re.compile(r"[ \t\r\n]*")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
SCALAR = re.compile(r"[^,\]\}\s]+")


@dataclass
class Node:
    """A value's span in the text; an object's or array's members in order."""

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    keys: list[str | None] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # where each member starts (its key)
    values: list[Node] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        return self.values[self.keys.index(key)] if key in self.keys else None


def parse(text: str) -> Node:
    node, _ = _value(text, SPACE.match(text, 0).end())  # type: ignore[union-attr]
    return node


def _value(text: str, at: int) -> tuple[Node, int]:
    char = text[at]
    if char in "{[":
        node = Node(at, at, "object" if char == "{" else "array")
        close = "}" if char == "{" else "]"
        at = _skip(text, at + 1)
        while text[at] != close:
            start = at
            key = None
            if node.kind == "object":
                match = STRING.match(text, at)
                assert match is not None
                key = json.loads(match.group())
                at = _skip(text, match.end())
                at = _skip(text, at + 1)  # the colon
            value, at = _value(text, at)
            node.keys.append(key)
            node.starts.append(start)
            node.values.append(value)
            at = _skip(text, at)
            if text[at] == ",":
                at = _skip(text, at + 1)
        node.end = at + 1
        return node, at + 1
    match = (STRING if char == '"' else SCALAR).match(text, at)
    assert match is not None
    return Node(at, match.end(), "scalar"), match.end()


def _skip(text: str, at: int) -> int:
    return SPACE.match(text, at).end()  # type: ignore[union-attr]


def remove(text: str, container: Node, index: int) -> str:
    """The text without the container's member `index` and one separator next to it."""
    count = len(container.values)
    if count == 1:
        return text[: container.start + 1] + text[container.end - 1 :]
    if index > 0:  # from the end of the previous member: the comma and the space before it
        return text[: container.values[index - 1].end] + text[container.values[index].end :]
    return text[: container.starts[0]] + text[container.starts[1] :]


def append(text: str, container: Node, value: Any, key: str | None = None) -> str:
    """The text with `value` (under `key` in an object) after the container's last member,
    laid out like its siblings: the same indentation, one level deeper than the container."""
    line_start = text.rfind("\n", 0, container.start) + 1
    base = re.match(r"[ \t]*", text[line_start:]).group()  # type: ignore[union-attr]
    step = _step(text)
    if container.values:
        last = container.starts[-1]
        previous_line = text.rfind("\n", 0, last)
        inline = previous_line < container.start
        indent = "" if inline else text[previous_line + 1 : last]
        if indent.strip():  # something else shares the line: indent one level deeper
            indent = base + step
    else:
        inline = False
        indent = base + step
    body = json.dumps(value, indent=step if not inline else None, ensure_ascii=False)
    if not inline:
        body = body.replace("\n", "\n" + indent)
    member = (json.dumps(key, ensure_ascii=False) + ": " if key is not None else "") + body
    if container.values:
        end = container.values[-1].end
        return text[:end] + ("," + (" " if inline else "\n" + indent)) + member + text[end:]
    return (
        text[: container.start + 1]
        + "\n"
        + indent
        + member
        + "\n"
        + base
        + text[container.end - 1 :]
    )


def _step(text: str) -> str:
    """The file's own indentation unit (two spaces when it has none)."""
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "
