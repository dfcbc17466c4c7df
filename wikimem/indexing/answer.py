"""A model's answer read as JSON with bounds, so one bad value spoils only the edit holding it.

The standard reader fails a whole answer on what one edit carries: nesting deep enough to
exhaust the recursion limit, an integer past Python's digit limit (ValueError), or an escape
such as `\\ud800` that decodes to a lone surrogate no file or HTTP body can hold. `loads`
reads the answer anyway and puts a `Malformed` marker where such a value was; the plan's
parser turns an edit holding one into a rejection with its reason (see `plan.parse`).

Invariant: time and recursion are linear in, and bounded by, the answer's length: the depth
is measured by one regular-expression scan before the standard reader runs.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 32  # a plan is four levels deep; meta is the fifth
MAX_NUMBER = 64  # characters of one number
# A string literal (closed or running to the end of the text), or a bracket.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
_DEEP = "\x00wikimem:nested-too-deep\x00"  # what a too-deep value is read as, then marked


class Malformed(str):
    """Where a value the answer could not carry was; the text says why."""

    __slots__ = ()


def loads(text: str) -> Any:
    """`json.loads` with bounds; raises json.JSONDecodeError like it when `text` is not JSON."""
    return mark(json.loads(flatten(text), parse_int=_int, parse_float=_float, parse_constant=_odd))


def raw_decode(text: str) -> tuple[Any, int]:
    """`json.JSONDecoder.raw_decode` with the same bounds (the end is in `flatten(text)`)."""
    decoder = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_odd)
    value, end = decoder.raw_decode(flatten(text))
    return mark(value), end


def flatten(text: str) -> str:
    """`text` with every value nested deeper than MAX_DEPTH replaced by a marker string."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                start = match.start()
        elif depth > 0:
            if depth == MAX_DEPTH + 1:
                spans.append((start, match.end()))
            depth -= 1
    if depth > MAX_DEPTH:
        spans.append((start, len(text)))
    if not spans:
        return text
    parts, at = [], 0
    for begin, end in spans:
        parts += [text[at:begin], json.dumps(_DEEP)]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def mark(value: Any) -> Any:
    """Markers for strings holding a lone surrogate and for values cut by `flatten`; keys
    with a lone surrogate get U+FFFD in its place. Depth is bounded by `flatten`."""
    if isinstance(value, Malformed):
        return value
    if isinstance(value, str):
        if value == _DEEP:
            return Malformed(f"a value nested deeper than {MAX_DEPTH} levels")
        if _SURROGATE.search(value):
            return Malformed("a string with an unpaired surrogate escape (such as \\ud800)")
        return value
    if isinstance(value, list):
        return [mark(item) for item in value]
    if isinstance(value, dict):
        return {_SURROGATE.sub("\ufffd", k): mark(v) for k, v in value.items()}
    return value


def malformed_in(value: Any) -> str:
    """Why `value` or anything inside it is malformed ("" when nothing is)."""
    if isinstance(value, Malformed):
        return str(value)
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            why = malformed_in(item)
            if why:
                return why
    return ""


def _int(text: str) -> int | Malformed:
    if len(text) > MAX_NUMBER:
        return Malformed(f"a number of {len(text)} digits (at most {MAX_NUMBER})")
    return int(text)


def _float(text: str) -> float | Malformed:
    if len(text) > MAX_NUMBER:
        return Malformed(f"a number of {len(text)} characters (at most {MAX_NUMBER})")
    return float(text)


def _odd(text: str) -> Malformed:
    return Malformed(f"{text}, which is not a JSON number")
