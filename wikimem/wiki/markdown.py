"""Wiki pages as text: frontmatter + head + entries, split and edited without losing a byte.

Invariant: `parse_page(text).render() == text` for every string, and every edit returns a page
whose bytes outside the part it edits are the input's bytes (the result always re-parses).
An entry is a top-level `##` ATX section; its id is the GitHub anchor of its heading.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from wikimem.errors import NotFound, WikiError

BEGIN_MARKER = "<!-- wikimem:begin -->"
END_MARKER = "<!-- wikimem:end -->"

# markdown-it counts "\r\n", "\r" and "\n" as line breaks; line numbers must agree with it.
_BREAK = re.compile(r"\r\n|\r|\n")
_FM_FENCE = re.compile(r"-{3,}[ \t]*")  # python-frontmatter's boundary, restricted to one line
_FM_CLOSE = re.compile(r"(?<=[\r\n])-{3,}[ \t]*(?:\r\n|\r|\n|\Z)")
_META_LINE = re.compile(r"[ \t]*<!--[ \t]*wikimem:(.*?)-->[ \t]*")
_PAIR = re.compile(r"([A-Za-z0-9_.-]+)=(\S*)")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_MARKER = re.compile(
    r"(?:\A|(?<=[\r\n]))[ \t]*<!--[ \t]*wikimem:(begin|end)[ \t]*-->[ \t]*"
    r"(?:\r\n|\r|\n|\Z)"
)
_H1 = re.compile(r" {0,3}#(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])#+\Z")
_MARKUP_CHARS = frozenset("`*_[]<>&\\!")


@dataclass(frozen=True)
class Entry:
    """One `##` section of a page, exactly as written."""

    id: str
    title: str
    line: int
    text: str
    meta: Mapping[str, str] = field(default_factory=dict)

    @property
    def body(self) -> str:
        """The text after the heading and meta line, "\\n" newlines, no blank lines at the ends."""
        lines = _BREAK.split(self.text)[1:]
        first = next((i for i, line in enumerate(lines) if not _is_blank(line)), len(lines))
        if first < len(lines) and _parse_meta_line(lines[first]) is not None:
            lines = lines[first + 1 :]
        return "\n".join(_trim_blank(lines))

    @property
    def own_text(self) -> str:
        """The text from the heading through its last non-blank line, exactly as written:
        without the blank lines that only separate it from what follows."""
        return self.text[: _trailing_blank_start(self.text)]


@dataclass(frozen=True)
class Page:
    """A page split into its parts; `render()` gives back the exact text it came from."""

    frontmatter: str
    meta: Mapping[str, Any]
    head: str
    entries: tuple[Entry, ...]
    newline: str = "\n"
    frontmatter_error: str | None = None

    def render(self) -> str:
        return self.frontmatter + self.head + "".join(e.text for e in self.entries)

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    @property
    def title(self) -> str:
        title = self.meta.get("title")
        if title is not None and not isinstance(title, (dict, list)) and str(title).strip():
            return str(title).strip()
        return _first_h1(self.head)


# -- reading ---------------------------------------------------------------------------------


def parse_page(text: str) -> Page:
    """Split `text` into frontmatter, head and entries; never fails, never loses a byte."""
    fm_end, meta, error = _split_frontmatter(text)
    frontmatter, rest = text[:fm_end], text[fm_end:]
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf > text.count("\n") - crlf else "\n"
    headings = _h2_headings(_up_to_entry_cap(rest)) if "##" in rest else []
    if not headings:
        return Page(frontmatter, meta, rest, (), newline, error)
    starts = _line_starts(rest)
    offset = len(_BREAK.findall(frontmatter))
    ids = _dedupe(slugify(title) for _, title in headings)
    bounds = [starts[line] for line, _ in headings] + [len(rest)]
    entries = []
    for k, (line, title) in enumerate(headings):
        section = rest[bounds[k] : bounds[k + 1]]
        if _SURROGATE.search(title):  # bytes that are not UTF-8 stay in the text, not the title
            title = _SURROGATE.sub("\ufffd", title)
        entries.append(Entry(ids[k], title, offset + line + 1, section, _entry_meta(section)))
    return Page(frontmatter, meta, rest[: bounds[0]], tuple(entries), newline, error)


# Characters that change how a line reads without being seen: C0 and C1 controls,
# bidirectional overrides and isolates, zero-width characters.
_INVISIBLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)


def plain_line(text: str, limit: int) -> str:
    """`text` on one line without invisible characters, cut to `limit` characters (with …)."""
    line = " ".join(_INVISIBLE.sub("", " ".join(text.split())).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


@lru_cache(maxsize=4096)  # the same headings come back on every pass
def slugify(heading: str) -> str:
    """The GitHub anchor of a heading: text of its inline markup, lowercased, punctuation gone."""
    text = heading.strip()
    if any(ch in _MARKUP_CHARS for ch in text):
        text = _plain_text(text)
    return "".join(ch for ch in text.lower() if _kept_in_slug(ch)).replace(" ", "-")


def generated_block(text: str) -> tuple[int, int] | None:
    """Offsets of the text strictly between the begin and end marker lines, or None."""
    begin: int | None = None
    for match in _MARKER.finditer(text):
        if match.group(1) == "begin":
            begin = match.end()
        elif begin is not None:
            return begin, match.start()
    return None


# -- writing ---------------------------------------------------------------------------------


def entry_text(
    title: str, body: str, meta: Mapping[str, str] | None = None, newline: str = "\n"
) -> str:
    """The canonical text of an entry; the body cannot open a block that outlives the entry."""
    blocks = [("## " + _heading_text(title)).rstrip(" ")]
    if meta:
        blocks.append(_meta_line(meta))
    lines = _contain(_trim_blank(_BREAK.split(body)))
    if lines:
        blocks.append(newline.join(lines))
    return (newline + newline).join(blocks) + newline


def add_entry(page: Page, title: str, body: str, meta: Mapping[str, str] | None = None) -> Page:
    """Append an entry after a blank line; its id is its slug made unique on the page."""
    return add_entry_text(page, entry_text(title, body, meta, page.newline))


def add_entry_text(page: Page, text: str) -> Page:
    """Append an entry's exact text (say an `Entry.own_text`) after a blank line, byte for byte."""
    before = page.render()
    new = parse_page(before + _blank_line_join(before, page.newline) + text)
    if len(new.entries) != len(page.entries) + 1 or new.entries[-1].text != text:
        raise WikiError(
            "cannot add an entry: it would not read back as its own section "
            "(the page ends inside an open block?)"
        )
    return new


def add_entries_text(page: Page, texts: Sequence[str]) -> Page:
    """`add_entry_text` for many entries, parsing the page once (not once per entry)."""
    text = page.render()
    for item in texts:
        text += _blank_line_join(text, page.newline) + item
    new = parse_page(text)
    added = new.entries[len(page.entries) :]
    if len(added) != len(texts) or any(
        e.own_text != t[: _trailing_blank_start(t)] for e, t in zip(added, texts, strict=True)
    ):
        raise WikiError(
            "cannot add the entries: one would not read back as its own section "
            "(the page ends inside an open block?)"
        )
    return new


def remove_entries(page: Page, entry_ids: Collection[str]) -> Page:
    """Drop the entries of these ids at once: one parse for the page, whatever their number."""
    gone = set(entry_ids)
    kept = [e for e in page.entries if e.id not in gone]
    if len(kept) == len(page.entries):
        return page
    new = parse_page(page.frontmatter + page.head + "".join(e.text for e in kept))
    if [e.text for e in new.entries] != [e.text for e in kept]:
        raise WikiError("cannot remove those entries: the page would change shape")
    return new


def replace_entry(
    page: Page, entry_id: str, title: str, body: str, meta: Mapping[str, str] | None = None
) -> Page:
    """Rewrite one entry; the blank lines that separated it from the next entry stay."""
    return replace_entry_text(page, entry_id, entry_text(title, body, meta, page.newline))


def replace_entry_text(page: Page, entry_id: str, text: str) -> Page:
    """Put an entry's exact text (say an `Entry.own_text`) in the place of entry `entry_id`;
    the blank lines that separated that entry from the next one stay."""
    index = _index_of(page, entry_id)
    old = page.entries[index]
    cut = _trailing_blank_start(old.text)
    spacing = old.text[cut:]
    if index + 1 < len(page.entries):
        if not text.endswith(("\n", "\r")):  # an entry that ended its file ends its line now
            text += page.newline
        spacing = spacing or page.newline
    replacement = text + spacing
    new = _splice(page, index, replacement)
    if len(new.entries) != len(page.entries) or new.entries[index].text != replacement:
        raise WikiError(f"cannot replace entry {entry_id!r}: the new text breaks the page")
    return new


def remove_entry(page: Page, entry_id: str) -> Page:
    """Drop one entry's text (heading through its trailing blank lines)."""
    index = _index_of(page, entry_id)
    new = _splice(page, index, "")
    if len(new.entries) != len(page.entries) - 1:
        raise WikiError(f"cannot remove entry {entry_id!r}: the page would change shape")
    return new


def with_meta(page: Page, key: str, value: Any) -> Page:
    """Set one frontmatter field, rewriting only its line (and its continuation lines)."""
    if not _KEY.fullmatch(key):
        raise WikiError(f"not a simple frontmatter key: {key!r}")
    nl = page.newline
    line = f"{key}: {_yaml_value(value)}"
    if not page.frontmatter:
        head = page.head
        bom = "\ufeff" if head.startswith("\ufeff") else ""
        text = f"{bom}---{nl}{line}{nl}---{nl}{head[len(bom) :]}"
        return parse_page(text + "".join(e.text for e in page.entries))
    lines = _split_keepends(page.frontmatter)
    own = re.compile(re.escape(key) + r"[ \t]*:(?:[ \t\r\n]|$)")
    found = next((i for i in range(1, len(lines) - 1) if own.match(lines[i])), None)
    if found is None:
        lines.insert(len(lines) - 1, line + nl)
    else:
        end = found + 1
        while end < len(lines) - 1 and _continues_value(lines[end]):
            end += 1
        while end > found + 1 and _is_blank(lines[end - 1]):
            end -= 1
        ending = lines[found][len(lines[found].rstrip("\r\n")) :] or nl
        lines[found:end] = [line + ending]
    return parse_page("".join(lines) + page.head + "".join(e.text for e in page.entries))


def new_page(meta: Mapping[str, Any], heading: str, intro: str = "", newline: str = "\n") -> Page:
    """A fresh page: frontmatter in the given key order, `# heading`, then the intro."""
    lines: list[str] = []
    if meta:
        lines.append("---")
        lines.extend(_yaml_field(key, value) for key, value in meta.items())
        lines.append("---")
    lines.append(("# " + _heading_text(heading)).rstrip(" "))
    intro_lines = _trim_blank(_BREAK.split(intro))
    if intro_lines:
        lines.append("")
        lines.extend(intro_lines)
    text = "\n".join(lines) + "\n"  # a dumped YAML value may hold "\n" itself
    return parse_page(text.replace("\n", newline) if newline != "\n" else text)


def replace_generated(text: str, content: str, newline: str = "\n") -> str:
    """Put `content` between the markers; bytes outside them never change."""
    inner = _BREAK.sub(newline, content)
    if inner and not inner.endswith(newline):
        inner += newline
    span = generated_block(text)
    if span is not None:
        return text[: span[0]] + inner + text[span[1] :]
    join = _blank_line_join(text, newline)
    return f"{text}{join}{BEGIN_MARKER}{newline}{inner}{END_MARKER}{newline}"


# -- internals -------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _markdown() -> Any:
    # Imported on first use: markdown-it costs tens of milliseconds to import.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.disable(["inline", "text_join"])  # only block structure is needed; inline on demand
    return md


@lru_cache(maxsize=1)
def _yaml_handler() -> Any:
    from frontmatter.default_handlers import YAMLHandler

    return YAMLHandler()


MAX_ENTRIES = 2000  # `##` sections a page may have; later ones fold into the last entry
_H2_CANDIDATE = re.compile(r"^ {0,3}##(?:[ \t]|$)", re.M)


def _up_to_entry_cap(text: str) -> str:
    """`text` cut before its (MAX_ENTRIES + 1)th `##` line, so parsing stays bounded on a page
    of 200,000 headings; what follows belongs to the last entry, byte for byte."""
    for count, m in enumerate(_H2_CANDIDATE.finditer(text), 1):
        if count > MAX_ENTRIES:
            return text[: m.start()]
    return text


def _h2_headings(text: str) -> list[tuple[int, str]]:
    """(0-based line, heading text) of each top-level `##` ATX heading."""
    tokens = _markdown().parse(text)
    return [
        (tok.map[0], tokens[i + 1].content)
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.level == 0 and tok.markup == "##" and tok.map
    ]


def _split_frontmatter(text: str) -> tuple[int, dict[str, Any], str | None]:
    start = 1 if text.startswith("\ufeff") else 0
    first = _BREAK.search(text, start)
    if first is None or not _FM_FENCE.fullmatch(text, start, first.start()):
        return 0, {}, None
    close = _FM_CLOSE.search(text, first.end())
    if close is None:
        return 0, {}, None
    meta, error = _load_yaml(text[first.end() : close.start()])
    return close.end(), meta, error


MAX_FRONTMATTER = 65536  # characters; frontmatter is a handful of one-line fields
MAX_TITLE = 200  # characters of a page's frontmatter title
MAX_SUMMARY = 1000  # characters of a page's frontmatter summary
_SURROGATE = re.compile("[\ud800-\udfff]")


def _load_yaml(source: str) -> tuple[dict[str, Any], str | None]:
    """Frontmatter as a mapping, or ({}, why not). Refused before parsing: more than
    `MAX_FRONTMATTER` characters, bytes that are not UTF-8, YAML aliases (437 bytes of nested
    aliases expand to gigabytes in whoever serialises the result)."""
    if not source.strip():
        return {}, None
    if len(source) > MAX_FRONTMATTER:
        return {}, f"frontmatter is over {MAX_FRONTMATTER} characters"
    if _SURROGATE.search(source):
        return {}, "frontmatter is not valid UTF-8"
    import yaml

    # libyaml's C loader where PyYAML was built with it: the same safe subset, ~10× faster
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        if "*" in source and "&" in source and _has_alias(source, loader):
            return {}, "frontmatter uses YAML aliases (&anchor / *alias); write values out"
        data = _yaml_handler().load(source, Loader=loader)
    except yaml.YAMLError as exc:
        return {}, "invalid YAML frontmatter: " + " ".join(str(exc).split())
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"frontmatter is a {type(data).__name__}, not a mapping"
    return _short_strings(data)


def _has_alias(source: str, loader: Any) -> bool:
    import yaml

    return any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(source, Loader=loader))


def _short_strings(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """`title` and `summary` must be short strings; a page whose are not loses them."""
    error = None
    for key, limit in (("title", MAX_TITLE), ("summary", MAX_SUMMARY)):
        value = data.get(key)
        if value is None or (isinstance(value, str) and len(value) <= limit):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            data[key] = str(value)  # `title: 2024` is a title
            continue
        data.pop(key)
        error = error or f"frontmatter {key} must be a string of at most {limit} characters"
    return data, error


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _BREAK.finditer(text))]


def _split_keepends(text: str) -> list[str]:
    starts = _line_starts(text)
    if starts[-1] == len(text):
        starts.pop()
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def _is_blank(line: str) -> bool:
    return not line.strip(" \t\r\n")


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and _is_blank(lines[start]):
        start += 1
    while end > start and _is_blank(lines[end - 1]):
        end -= 1
    return lines[start:end]


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in _BREAK.split(text.strip()))


def _heading_text(title: str) -> str:
    """`title` on one line, written so an ATX heading reads it back unchanged."""
    text = _one_line(title)
    if _CLOSING_HASHES.search(text):
        text += " #"  # otherwise the trailing #'s would be read as a closing sequence
    return text


def _dedupe(slugs: Iterable[str]) -> list[str]:
    """GitHub's rule: the second `x` becomes `x-1`, skipping ids already taken."""
    seen: dict[str, int] = {}
    out = []
    for slug in slugs:
        result = slug
        while result in seen:
            seen[slug] += 1
            result = f"{slug}-{seen[slug]}"
        seen[result] = 0
        out.append(result)
    return out


def _kept_in_slug(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum() or ch in " -_"
    return unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc"


def _plain_text(source: str) -> str:
    """The text a reader sees: code spans keep their content, links their label, images go."""
    md = _markdown()
    tokens: list[Any] = []
    md.inline.parse(source, md, {}, tokens)
    parts = []
    for tok in tokens:  # an image is one token (its alt text is in its children): skipped
        if tok.type in ("text", "text_special", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _parse_meta_line(line: str) -> dict[str, str] | None:
    match = _META_LINE.fullmatch(line)
    if match is None:
        return None
    pairs = match.group(1).split()
    found = [_PAIR.fullmatch(pair) for pair in pairs]
    if not pairs or any(m is None for m in found):
        return None
    return {m.group(1): m.group(2) for m in found if m is not None}


def _entry_meta(text: str) -> dict[str, str]:
    for line in _BREAK.split(text)[1:]:
        if not _is_blank(line):
            return _parse_meta_line(line) or {}
    return {}


def _meta_line(meta: Mapping[str, str]) -> str:
    for key, value in meta.items():
        if not _PAIR.fullmatch(f"{key}={value}") or "-->" in str(value):
            raise WikiError(f"entry metadata must be key=value tokens without spaces: {key!r}")
    return "<!-- wikimem: " + " ".join(f"{k}={meta[k]}" for k in sorted(meta)) + " -->"


def _contain(lines: list[str]) -> list[str]:
    """Keep a body inside its entry: demote its `##` headings, close a fence left open."""
    if not any(mark in line for line in lines for mark in ("##", "`", "~", "<")):
        return lines
    lines = list(lines)
    for _ in range(2):
        tokens = _markdown().parse("\n".join(lines) + "\n\n## end\n")
        probe_seen = False  # the `## end` after the body is a heading only if nothing leaked
        for tok in tokens:
            if tok.level != 0 or not tok.map:
                continue
            if tok.type == "heading_open" and tok.markup == "##":
                if tok.map[0] < len(lines):
                    lines[tok.map[0]] = lines[tok.map[0]].replace("##", "###", 1)
                else:
                    probe_seen = True
            elif tok.type == "fence" and tok.map[1] > len(lines):
                lines.append(tok.markup)
                break
        else:
            if probe_seen:
                return lines
            raise WikiError("entry body leaves an HTML block open")
    raise WikiError("entry body leaves a block open")


def _trailing_blank_start(text: str) -> int:
    """Offset where the blank lines at the end of an entry begin (len(text) if none)."""
    lines = _split_keepends(text)
    cut = len(text)
    for line in reversed(lines[1:]):
        if not _is_blank(line):
            break
        cut -= len(line)
    return cut


def _blank_line_join(text: str, newline: str) -> str:
    """What to put after `text` so that it ends with a blank line (nothing for empty text)."""
    if not text:
        return ""
    content = text.rstrip(" \t\r\n")
    wanted = 2 if content else 1  # only blank lines so far: just end the last one
    join = ""
    # counted on the joined text: a lone "\r" followed by "\n" makes one break, not two
    while len(_BREAK.findall(text[len(content) :] + join)) < wanted or (
        (text + join)[-1] not in "\r\n"
    ):
        join += newline
    return join


def _index_of(page: Page, entry_id: str) -> int:
    for index, entry in enumerate(page.entries):
        if entry.id == entry_id:
            return index
    raise NotFound(f"no entry {entry_id!r} on this page")


def _splice(page: Page, index: int, text: str) -> Page:
    before = "".join(e.text for e in page.entries[:index])
    after = "".join(e.text for e in page.entries[index + 1 :])
    return parse_page(page.frontmatter + page.head + before + text + after)


def _continues_value(line: str) -> bool:
    """A line that belongs to the previous key's value: indented, a list item, or blank."""
    return line[:1] in (" ", "\t", "-") or _is_blank(line)


def _yaml_value(value: Any) -> str:
    """`value` as a one-line YAML scalar that reads back as the same text (quoted if needed)."""
    if not isinstance(value, str):
        import yaml

        dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 30)
        return dumped.removesuffix("\n...\n").strip()
    if value and value == value.strip() and not _BREAK.search(value) and value.isprintable():
        import yaml

        try:
            loaded = _yaml_handler().load(f"k: {value}")
        except yaml.YAMLError:
            loaded = None
        if isinstance(loaded, dict) and list(loaded) == ["k"] and _reads_as(loaded["k"], value):
            return value
    return _double_quoted(value)


def _double_quoted(value: str) -> str:
    """A YAML double-quoted scalar; anything Python will not print is escaped by code point."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _reads_as(loaded: Any, text: str) -> bool:
    """Plain YAML is fine when it loads as the text itself, or a number/date printed the same."""
    if isinstance(loaded, str):
        return loaded == text
    if isinstance(loaded, (bool, dict, list)) or loaded is None:
        return False
    return str(loaded) == text


def _yaml_field(key: Any, value: Any) -> str:
    if isinstance(key, str) and _KEY.fullmatch(key) and not isinstance(value, (dict, list)):
        return f"{key}: {_yaml_value(value)}"
    import yaml

    dumped = yaml.safe_dump(
        {key: value}, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1 << 30
    )
    return dumped.rstrip("\n")


def _first_h1(head: str) -> str:
    """The text of the first `# ` heading outside fenced code, or ""."""
    fence = ""
    for line in _BREAK.split(head):
        if fence:
            stripped = line.strip(" ")
            if stripped.startswith(fence) and not stripped.strip(fence[0]).strip(" \t"):
                fence = ""
            continue
        opened = _FENCE_OPEN.match(line)
        if opened:
            fence = opened.group(1)
            continue
        match = _H1.fullmatch(line)
        if match:
            return (match.group(1) or "").strip()
    return ""
