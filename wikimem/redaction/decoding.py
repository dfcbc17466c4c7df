"""Views of a text with its escapes decoded, each character mapped back to where it came from.

Owns decoding before scanning: JSON and `\\u`/`\\x` escapes, backslash-escaped quotes at any depth,
HTML entities, quoted-printable's `=3D` and URL encoding (up to three rounds, for double
encoding), and base64 handed to a decoder (PowerShell's `-EncodedCommand`, `echo ... | base64
-d`), marked as base64 (`<Pass encoding="base64">`, YAML's `!!binary`) or encoding a JSON object
wherever it stands, whose decoded characters all map to the whole encoded value. A rule then
sees `{"password": "..."}` however the log escaped it, and the span it reports is mapped back to
the encoded text so that exactly the encoded value is replaced.
Invariant: one regex pass per round, so decoding is linear in the text.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(
    r"\\u(?P<u>[0-9a-fA-F]{4})|\\x(?P<x>[0-9a-fA-F]{2})|\\+(?P<q>[\"'/])"
    r"|&(?P<e>quot|apos|lt|gt|amp|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});|%(?P<p>[0-9A-Fa-f]{2})"
    r"|(?P<qp>=3D)"
)
_ENTITIES = {"quot": '"', "apos": "'", "lt": "<", "gt": ">", "amp": "&"}
# Cheap test for whether a text holds anything to decode at all.
_HINT = re.compile(
    r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\\\+\"|&(?:quot|apos|lt|gt|amp|#)|%[0-9A-Fa-f]{2}|=3D"
)
ROUNDS = 3


def _char(m: re.Match[str]) -> str:
    if m.group("u"):
        return chr(int(m.group("u"), 16))
    if m.group("x"):
        return chr(int(m.group("x"), 16))
    if m.group("q"):
        return m.group("q")
    if m.group("qp"):  # quoted-printable's `=` (a mail's body, a MIME part)
        return "="
    if m.group("e"):
        e = m.group("e")
        if e[0] != "#":
            return _ENTITIES[e]
        code = int(e[2:], 16) if e[1] in "xX" else int(e[1:])
        return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"
    return chr(int(m.group("p"), 16))


def _decode_once(text: str) -> tuple[str, list[int], list[int]] | None:
    """`text` decoded once, and for each decoded character the start and end it came from."""
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(text):
        if m.start() > pos:
            parts.append(text[pos : m.start()])
            starts.extend(range(pos, m.start()))
            ends.extend(range(pos + 1, m.start() + 1))
        parts.append(_char(m))
        starts.append(m.start())
        ends.append(m.end())
        pos = m.end()
    if not parts:
        return None
    parts.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(parts), starts, ends


def decoded_views(text: str) -> list[tuple[str, list[int], list[int]]]:
    """Each round of decoding of the lines of `text` that hold an escape, with maps into `text`.

    Only those lines are decoded (a log is mostly plain), each view is their decoded text joined
    by newlines, and the maps give for each of its characters the start and end in `text`.
    """
    segments: list[tuple[int, int]] = []
    for m in _HINT.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if segments and start <= segments[-1][1]:
            continue
        end = text.find("\n", m.end())
        segments.append((start, len(text) if end < 0 else end))
    if not segments:
        return []
    views: list[tuple[str, list[int], list[int]]] = []
    current = "\n".join(text[a:b] for a, b in segments)
    starts: list[int] = []
    ends: list[int] = []
    for a, b in segments:
        if starts:  # the joining newline maps to the end of the previous segment
            starts.append(ends[-1])
            ends.append(ends[-1])
        starts.extend(range(a, b))
        ends.extend(range(a + 1, b + 1))
    for _ in range(ROUNDS):
        once = _decode_once(current)
        if once is None or once[0] == current:
            break
        current, s, e = once
        starts = [starts[i] for i in s]
        ends = [ends[i - 1] for i in e]
        views.append((current, starts, ends))
        if not _HINT.search(current):
            break
    return views


# Base64 handed to something that decodes it: PowerShell's -EncodedCommand takes UTF-16LE, a pipe
# into `base64 -d` gives bytes (read as UTF-8).
_ENCODED = re.compile(
    r"\b(?:pwsh|powershell)(?:\.exe)?\b[^\n|;&]{0,200}?[ \t]-(?i:encodedcommand|enc|ec|e)[ \t]+"
    r"(?P<ps>[A-Za-z0-9+/]{16,8000}={0,2})"
    r"|(?:echo|printf)(?:[ \t]+-n)?[ \t]+[\"']?(?P<b64>[A-Za-z0-9+/]{12,8000}={0,2})[\"']?[ \t]*"
    r"\|[ \t]*base64[ \t]+(?:-d|--decode|-D)\b"
    r"|(?:b64decode|b64_decode|base64_decode|decode64|decodeBase64|atob|FromBase64String"
    r"|Base64\.decode|getDecoder\(\)\.decode|base64\.StdEncoding\.DecodeString)\("
    r"[ \t]*[\"'](?P<call>[A-Za-z0-9+/_-]{12,8000}={0,2})[\"']"
    r"|\b(?i:encoding)=[\"']base64[\"'][^<>\n]{0,200}>(?P<attr>[A-Za-z0-9+/]{8,8000}={0,2})<"
)
# YAML's `!!binary` tag says the same; and base64 whose first characters encode `{"`, `{\n` or
# `{ ` is a JSON object encoded (a config, a credentials file), whoever decodes it: each is read
# decoded, found from its literal by `str.find`. A JWT's parts are joined by dots, so none is
# taken for one.
_TAGGED = re.compile(
    r"(?P<yb>!!binary[ \t]+[A-Za-z0-9+/]{8,8000}={0,2})"
    r"|(?<![\w.+/=-])(?P<json>e(?:yJ|wo|yA)[A-Za-z0-9+/]{13,8000}={0,2})(?![\w.+/=-])"
)
_TAGGED_LEADS = ("!!binary", "eyJ", "ewo", "eyA")
_GROUPS = ("ps", "b64", "call", "attr", "yb", "json")
# A decoder named in any language: Python's `b64decode`, PHP's `base64_decode`, Ruby's
# `decode64`, JavaScript's `atob`, .NET's `FromBase64String`, Java's and Go's decoders; or an XML
# element that says its text is base64 (FileZilla's `<Pass encoding="base64">`).
_ENCODED_HINT = re.compile(r"(?i)pwsh|powershell|b64|base64|decode64|atob")


def _encoded(text: str) -> list[re.Match[str]]:
    """Each encoded value in the order of the text, none overlapping another."""
    found = list(_ENCODED.finditer(text)) if _ENCODED_HINT.search(text) else []
    for lead in _TAGGED_LEADS:
        pos = text.find(lead)
        while pos >= 0:
            m = _TAGGED.match(text, pos)
            if m is not None:
                found.append(m)
            pos = text.find(lead, pos + len(lead))
    found.sort(key=lambda m: m.start())
    kept: list[re.Match[str]] = []
    for m in found:
        if not kept or m.start() >= kept[-1].end():
            kept.append(m)
    return kept


def encoded_views(text: str) -> list[tuple[str, list[int], list[int]]]:
    """The lines of `text` that hand base64 to a decoder, each value replaced by what it decodes
    to; every decoded character maps to the whole encoded value, so a secret inside replaces all
    of it. Only those lines are in the view, as in `decoded_views`."""
    matches = _encoded(text)
    if not matches:
        return []
    import base64  # only for a text that hands base64 to a decoder

    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def keep(a: int, b: int) -> None:  # text[a:b] as it is
        parts.append(text[a:b])
        starts.extend(range(a, b))
        ends.extend(range(a + 1, b + 1))

    pos = 0
    line_end = -1  # end of the line the view has reached
    for m in matches:
        group = next(g for g in _GROUPS if g in m.re.groupindex and m.group(g))
        a, b = m.span(group)
        value = m.group(group)
        if group == "call":
            value = value.replace("-", "+").replace("_", "/")  # the URL-safe alphabet
        elif group == "yb":
            value = value[8:].lstrip(" \t")  # the tag goes with its value
        try:
            raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
            plain = raw.decode("utf-16-le" if group == "ps" else "utf-8")
        except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
            continue
        if not all(c.isprintable() or c in "\n\r\t" for c in plain):
            continue  # bytes, not text: nothing a rule could read
        if group == "json" and not plain.rstrip().endswith("}"):
            continue  # not a whole JSON object
        if a < line_end:  # another value on the line already in the view
            keep(pos, a)
        else:
            if parts:  # close the previous line; a newline joins it to this one
                keep(pos, line_end)
                parts.append("\n")
                starts.append(ends[-1])
                ends.append(ends[-1])
            line_start = text.rfind("\n", 0, a) + 1
            found = text.find("\n", b)
            line_end = len(text) if found < 0 else found
            keep(line_start, a)
        parts.append(plain)
        starts.extend([a] * len(plain))
        ends.extend([b] * len(plain))
        pos = b
    if not parts:
        return []
    keep(pos, line_end)
    return [("".join(parts), starts, ends)]
