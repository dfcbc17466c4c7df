"""What may reach a terminal: every line the command line prints passes through here."""

from __future__ import annotations

import re
from typing import Any, TextIO

# What may reach a terminal: text, newlines, tabs and colour (SGR) codes. Every other control
# character goes (an escape sequence from task text can set the clipboard or hide lines), and so
# do bidirectional overrides; bytes that were not UTF-8 print as U+FFFD.
_TERMINAL_UNSAFE = re.compile(
    "(\x1b\\[[0-9;]*m)|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
    "|[\ud800-\udfff]"
)


def visible(text: str) -> str:
    """`text` safe to print to a terminal (see `_TERMINAL_UNSAFE`)."""
    return _TERMINAL_UNSAFE.sub(_keep_colour, text)


def _keep_colour(m: re.Match[str]) -> str:
    if m.group(1):
        return m.group(1)
    return "\ufffd" if "\ud800" <= m.group() <= "\udfff" else ""


class VisibleStream:
    """A text stream that passes only `visible` text to the one it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError("text only")  # click probes for binary streams this way
        self._stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
