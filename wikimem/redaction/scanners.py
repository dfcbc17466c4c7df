"""How secrets are scanned for: one-pattern rules, and the scanners no single pattern expresses.

Owns `Rule` (a pattern compiled on first use, skipped unless one of its needles occurs in the
text) and the scanners for PEM blocks, Entra ID client secrets, assignments (`KEY=value`,
`key: value`, `"key": "value"`), XML elements and Kubernetes Secret manifests. Invariant: every
scanner yields `(kind, start, end)` spans of the secret value only; key names, schemes, users
and hosts stay outside the span.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from wikimem.redaction.key_names import HEADER_KIND, name_info, named_kind
from wikimem.redaction.placeholders import is_code, is_mask, is_placeholder, is_random, is_strong

# --- rules: one pattern each ----------------------------------------------------------------

Check = Callable[[str, "re.Match[str]", str], "str | None"]
NEAR = 200  # how far a rule looks around a match for its line; keeps long lines linear
_DOC_MAX = 65536  # how far a Kubernetes Secret manifest may reach from its `kind: Secret`


def line_before(text: str, pos: int) -> str:
    """The text from the start of `pos`'s line to `pos`, at most its last `NEAR` characters."""
    start = max(pos - NEAR, 0)
    newline = text.rfind("\n", start, pos)
    return text[newline + 1 if newline >= 0 else start : pos]


def occurrences(haystack: str, words: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Each word of `words` and each position where it occurs in `haystack`, word by word.

    The scanners start from a literal found this way rather than from a scan of the text: over
    1 MB of log, `str.find` for prose's 65 names takes 43 ms where one alternation regex of them
    takes 83 ms."""
    for word in words:
        pos = haystack.find(word)
        while pos >= 0:
            yield word, pos
            pos = haystack.find(word, pos + len(word))


WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True)
class Rule:
    """One pattern. Patterns start with a literal where they can (the regex engine then skips
    ahead fast); the word boundary before a token is checked here rather than by a lookbehind,
    which would disable that skip."""

    kind: str
    source: str  # compiled on first use: the hook pays only for rules whose needles occur
    needles: tuple[str, ...]  # lowercase; the rule is skipped when none occurs in the text
    check: Check | None
    bounded: bool  # the match must not follow a word character

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compile(self.source)

    def scan(self, text: str) -> Iterator[tuple[str, int, int]]:
        pattern = self.pattern
        groups = [g for g in pattern.groupindex if g.startswith("v")]
        for m in pattern.finditer(text):
            if self.bounded and m.start() and text[m.start() - 1] in WORD:
                continue
            group = next((g for g in groups if m.group(g) is not None), None)
            start, end = trim(text, *(m.span(group) if group else m.span()))
            value = text[start:end]
            kind = self.check(value, m, text) if self.check else self.kind
            if kind and (self.check or not is_mask(value)):
                yield kind, start, end


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a value.

    An ellipsis stays: `ghp_...` is an elided example, which `is_placeholder` recognises.
    """
    while end > start and text[end - 1] in ")]}.:" and not text.endswith("..", start, end):
        closer = text[end - 1]
        opener = {")": "(", "]": "[", "}": "{"}.get(closer)
        if opener and text.count(opener, start, end) >= text.count(closer, start, end):
            break
        end -= 1
    return start, end


def rule(
    kind: str, pattern: str, needles: str = "", check: Check | None = None, bounded: bool = False
) -> Rule:
    if _WORD_START.match(pattern):
        # `\bnet use`: a leading `\b` keeps the regex engine from skipping ahead to the
        # literal, so each position of the text is tried; the same boundary, checked by `scan`
        # on each match, lets it skip (1 MB of log: 15 ms to 1 ms for such a rule)
        pattern, bounded = pattern[2:], True
    words = tuple(needles.lower().split()) or _lead(pattern)
    return Rule(kind, pattern, words, check, bounded)


_WORD_START = re.compile(r"\\b[A-Za-z0-9]")


_LEAD = re.compile(r"(?:[A-Za-z0-9_\-/:]|\\\.)+")


def _lead(pattern: str) -> tuple[str, ...]:
    """The literal a pattern starts with, as its needle: a rule whose literal is absent from a
    text cannot match it, so it is not even compiled (this keeps `wikimem hook` fast)."""
    match = _LEAD.match(pattern)
    literal = match.group().replace("\\.", ".").lower() if match else ""
    return (literal,) if len(literal) >= 3 else ()


@functools.cache
def _compile(source: str) -> re.Pattern[str]:
    return re.compile(source)


QUOTED_OR_BARE = (
    r"""(?:"(?P<vd>[^"\n]{1,1000})"|'(?P<vs>[^'\n]{1,1000})'"""
    r"""|(?P<vb>[^\s"'`<>,;&\[({|-][^\s"'`<>,;&|]{0,1000}))"""
)


# --- PEM blocks and Entra ID client secrets ---------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----")
# A block cut short (by `head`, by a log limit): its header lines and base64 lines.
# Blank lines count: PGP and encrypted PEM blocks have one after their header lines.
_PEM_LINES = re.compile(
    r"(?:(?:\\r)?(?:\\n|\r?\n)[ \t]*(?:[A-Za-z-]+: [^\r\n\\]*|[A-Za-z0-9+/]{16,}={0,2}"
    r"|[A-Za-z0-9+/]{1,15}={1,2}|=[A-Za-z0-9+/]{4}|(?=(?:\\r)?(?:\\n|\r?\n))))+"
)
_PEM_BODY = re.compile(r"[A-Za-z0-9+/]{16}")  # one run of key material, however short the key
_PEM_MAX = 1 << 20  # a 4096-bit PGP key with subkeys runs past 16 KB; keys are not that large


def scan_private_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """PEM private key blocks, BEGIN through END, with real or JSON-escaped newlines."""
    pos = 0
    for begin in _PEM_BEGIN.finditer(text):
        if begin.start() < pos:
            continue
        limit = min(len(text), begin.end() + _PEM_MAX)
        following = text.find("-----BEGIN", begin.end(), limit)
        end = _PEM_END.search(text, begin.end(), following if following >= 0 else limit)
        if end is None:
            end = _PEM_LINES.match(text, begin.end())
        elif not _PEM_BODY.search(text, begin.end(), end.start()):
            pos = end.end()
            continue  # a block whose body was taken out (`<removed real key>`, `...`)
        if end is not None:
            pos = end.end()
            yield "private-key", begin.start(), pos


_AZURE_SECRET = re.compile(r"Q~[\w~.-]{31,34}(?![\w~.-])")
_AZURE_CHARS = WORD | frozenset("~.-")


def scan_azure_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    """Entra ID client secrets: three characters, a digit, `Q~`, then 31 to 34 more."""
    for m in _AZURE_SECRET.finditer(text):
        start = m.start() - 4
        if start < 0 or not text[m.start() - 1].isdigit():
            continue
        if any(c not in _AZURE_CHARS for c in text[start : m.start()]):
            continue
        if start and text[start - 1] in _AZURE_CHARS:
            continue
        yield "azure-client-secret", start, m.end()


# --- assignments: KEY=value, key: value, "key": "value", <password>value</password> -------------

# Found separator first: `=` and `:` are rarer than the letters a key name starts with. The
# value is matched only once the name before it qualifies, so most separators cost next to nothing.
_SEPARATOR = re.compile(r":=|=>|=|:")
# An escaped quote first: JSON inside a JSON string (a log line) quotes as `\"value\"`.
# A string prefix (`b"..."`, `r'...'`, `u"..."`, C#'s `@"..."`) or Erlang's binary brackets
# (`<<"...">>`, rebar3's `api_key => <<"...">>`) are the literal's syntax, not its value, and
# so is a string conversion around it (Haskell's `T.pack "..."`, Rust's `String::from("...")`,
# Python's `str("...")`, Qt's `QStringLiteral("...")`, C++'s `std::string("...")`).
_VALUE = re.compile(
    r"[ \t]*(?:(?=[TpSsQ])(?:T\.pack|pack|String::from|str|String|QStringLiteral|QString"
    r"|std::string)(?:[ \t]+|[ \t]*\([ \t]*)(?=[\"']))?"
    r'(?:[bBrRuU]{1,2}(?=["\'])|<<(?=")|@(?="))?(?:\\"(?P<ve>(?:[^"\\\n]|\\[^"])+)\\"|'
    + QUOTED_OR_BARE[3:]
)
# A bare value may start with `-` after `=` (`authenticationpassword=-P!8f...`): no flag stands
# there. It must not read as an option (`--verbose`) or a negative number; `_DASH_VALUE` has the
# same groups as `_VALUE`, so the rest of the scanner treats it alike.
_DASH_VALUE = re.compile(
    r"(?P<ve>(?!))?(?P<vd>(?!))?(?P<vs>(?!))?(?!--?[a-z][a-z-]*(?:[\s=]|\Z)|-\d+(?:\.\d+)?\b)"
    r"(?P<vb>-[^\s\"'`<>,;&|]{5,400})"
)
_NAME_CHARS = WORD | frozenset(".-")
_LINE_START = re.compile(
    r"[ \t]*(?:[-*+>][ \t]+)?(?:export[ \t]+|set[ \t]+|ENV[ \t]+|\$env:)?[{\[ \t\"',]*"
)
_REST_OF_LINE = re.compile(r"[ \t,;)}\]\r]*(?:#.*)?")


def _letter(c: str) -> bool:
    """A letter or a mark of another script (`ñ`, `密`, the vowel signs of `पासवर्ड`)."""
    return c.isalnum() or (not c.isspace() and c.isprintable() and not _PUNCTUATION.match(c))


_PUNCTUATION = re.compile(r"[\u2000-\u206f\u3000-\u303f\uff00-\uff0f\uff1a-\uff20«»]")


def _name_before(text: str, pos: int) -> tuple[int, int]:
    """Span of the key name that ends just before `pos` (skipping blanks and a closing quote)."""
    end = pos
    while end and text[end - 1] in " \t":
        end -= 1
    if end and text[end - 1] == ")":  # a gloss between name and value: `ApiKey (API key) = ...`
        opening = text.rfind("(", max(end - 60, 0), end)
        if opening > 0 and "\n" not in text[opening:end] and text[opening - 1] in " \t":
            end = opening
            while end and text[end - 1] in " \t":
                end -= 1
    if end and text[end - 1] in "\"'":
        end -= 1
    start = end
    while (
        start
        and end - start < 100
        and (
            text[start - 1] in _NAME_CHARS
            or (text[start - 1] > "\x7f" and _letter(text[start - 1]))
        )
    ):
        start -= 1
    if start and text[start - 1] == "\\" and text[start] in "nrt":
        start += 1  # JSON-escaped text: `\nPGPASSWORD=` names PGPASSWORD
    return start, end


def scan_assignments(text: str) -> Iterator[tuple[str, int, int]]:
    covered = 0  # separators inside a value already found are not looked at again
    for sep in _SEPARATOR.finditer(text):
        if sep.start() < covered:
            continue
        at = sep.start()
        if text[at - 1 : at] == '"' and text[at - 2 : at - 1] == "\\":
            at -= 2  # an escaped quote: `{\"password\":\"...\"}` in a JSON string
        elif sep.group() == "=" and text[at - 1 : at] in ("|", "?", "+", ".", "&"):
            # a compound assignment: Ruby's `||=`, JavaScript's and PHP's `??=`, Make's `?=`,
            # PHP's `.=`, `+=`; the name stands before the operator
            at -= 2 if text[at - 2 : at] in ("||", "??", "&&") else 1
        while at and text[at - 1] in " \t":
            at -= 1
        if text[at - 1 : at] == "]" and text[at - 2 : at - 1] in ("'", '"'):
            at -= 1  # an index by a quoted key: `ENV['MAIL_PASSWORD'] ||= ...`
        start, end = _name_before(text, at)
        name = text[start:end].lstrip("-.")
        keyword, name_kind, weak = name_info(name) if name else (False, None, False)
        if not keyword or (start and text[start - 1] == "$"):
            continue
        m = _VALUE.match(text, sep.end())
        if m is None and sep.group() == "=":
            m = _DASH_VALUE.match(text, sep.end())
        if m is None:
            continue
        group = next(g for g in ("ve", "vd", "vs", "vb") if m.group(g) is not None)
        vstart, vend = trim(text, *m.span(group))
        value = text[vstart:vend]
        kind = named_kind(name, value)
        if kind and kind != HEADER_KIND:
            if not is_placeholder(value):
                covered = vend
                yield kind, vstart, vend
            continue
        kind = kind or name_kind or (_BARE_KEY if name in ("key", "Key") else None)
        if kind is None or is_placeholder(value):
            continue
        if kind is _BARE_KEY and not _bare_key_counts(text, start, value):
            continue
        if (
            kind is _BARE_KEY
            and group == "vb"
            and sep.group() == ":"
            and value[:1].isupper()
            and _ANNOTATION_AFTER.match(text, vend)
        ):
            continue  # a parameter's type (`key: Ed25519PrivateKey | None`), not its value
        if weak and not is_random(value):
            continue
        if group == "vb" and not _bare_value_counts(text, (start, end), sep, kind, (vstart, vend)):
            continue
        covered = vend
        yield kind, vstart, vend


_BARE_KEY = "secret-assignment"
_KEY_BODY = re.compile(r"[A-Za-z0-9_+/=-]{16,200}")
_DIGEST = re.compile(
    r"[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"
)


def is_generated_key(value: str) -> bool:
    """A value under a bare `key` (Mandrill's `{"key": "..."}`, a log's `key=...`) that was
    generated: 16 or more characters of a token's alphabet mixing letters and digits, with a
    token's entropy; a git or SHA-256 digest or a lone UUID there names an object, and a value
    ending `xxxx` is masked."""
    if not _KEY_BODY.fullmatch(value) or _DIGEST.fullmatch(value) or not is_random(value):
        return False
    if value.endswith(("xxxx", "XXXX")):
        return False  # masked at its end, as `aws configure list` prints a key
    digits = sum(c.isdigit() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (mixed or 3 <= digits <= len(value) - 3) and entropy(value) >= 3.2


_WORD_BEFORE = re.compile(r"([A-Za-z]{2,30})[ \t_-]\Z")
_HEX_ONLY = re.compile(r"[0-9a-fA-F]{16,200}")
_ANNOTATION_AFTER = re.compile(r"[ \t]*[|,)=\]]")
_KEY_ID_PREFIX = re.compile(r"[a-z]{2,8}_(?:test|live)_")  # Razorpay's `rzp_test_` key id
_SECRET_BESIDE = re.compile(r"(?i)secret")


def _bare_key_counts(text: str, start: int, value: str) -> bool:
    """`key` alone names a lookup as often as a credential: its value must look generated and
    not be hex (a digest, a cache key, an id as often), nor masked at its end; the word before
    it must make a secret's name with it (`Secret Key`, not `public key` or `cache key`), and
    a `secret` beside it makes it the pair's id (`key = "EXO..."` then `secret...`)."""
    if not is_generated_key(value) or _HEX_ONLY.fullmatch(value) or _KEY_ID_PREFIX.match(value):
        return False
    word = _WORD_BEFORE.search(text, max(start - 31, 0), start)
    if word and not name_info(word.group(1) + "_key")[1]:
        return False
    near = text[max(start - 200, 0) : start + len(value) + 200]
    return _SECRET_BESIDE.search(near) is None


def entropy(value: str) -> float:
    """Shannon entropy of `value` in bits per character."""
    import math  # the hook's path: only for the rare candidate that gets this far

    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in map(value.count, set(value)))


def _bare_value_counts(
    text: str, name: tuple[int, int], m: re.Match[str], kind: str, value: tuple[int, int]
) -> bool:
    """An unquoted value: lenient in `NAME=value` and in config lines, strict in prose."""
    literal = text[value[0] : value[1]]
    shell_style = kind == "env-secret" and m.group() == "=" and m.start() == name[1]
    if shell_style:
        return True
    if is_code(literal):
        return False
    if kind == HEADER_KIND:
        return True
    # `password: hunter2` alone on its line is config; `Password: see the vault` is prose.
    rest = text[value[1] : value[1] + NEAR]
    rest = rest[: rest.find("\n")] if "\n" in rest else rest
    in_config = _LINE_START.fullmatch(line_before(text, name[0])) and _REST_OF_LINE.fullmatch(rest)
    return bool(in_config) or is_strong(literal)


# Any element whose name the shared lexicon calls secret (`<password>`, `<bindpw>`, `<psk>`):
# the tag is found first and judged by `name_info` (cached), so most elements cost one lookup. Its
# attributes may follow the name (FileZilla's `<Pass encoding="base64">`); `<password/>` is empty.
_XML_TAG = re.compile(r"<(?P<key>[A-Za-z_][\w.:-]{0,60})(?:[ \t][^<>\n]{0,200}(?<!/))?>")
_XML_VALUE = re.compile(r"(?P<v>[^<\s][^<\n]{0,500}?)</")
# A value in a CDATA section (`<api_secret><![CDATA[...]]></api_secret>`): the section is the
# element's text, written so that no character in it needs escaping.
_XML_CDATA = re.compile(r"<!\[CDATA\[(?P<v>[^\s\]][^\]\n]{0,500}?)\]\]>")


def scan_xml(text: str) -> Iterator[tuple[str, int, int]]:
    for tag in _XML_TAG.finditer(text):
        keyword, kind, weak = name_info(tag.group("key"))
        if not keyword or kind is None:
            continue
        m = _XML_VALUE.match(text, tag.end())
        if text.startswith("<![CDATA[", tag.end()):
            m = _XML_CDATA.match(text, tag.end())
        if m is None or is_placeholder(m.group("v")) or (weak and not is_random(m.group("v"))):
            continue
        yield kind, *m.span("v")


# --- Kubernetes Secret manifests: every value under data/stringData -----------------------------

_K8S_SECRET = re.compile(r"kind:[ \t]*Secret[ \t]*$", re.M)
_K8S_DATA = re.compile(r"^(?P<indent>[ \t-]*)(?:data|stringData):[ \t]*$", re.M)
_K8S_ITEM = re.compile(
    r"(?P<indent>[ \t]+)[\w.-]+:[ \t]*[\"']?(?P<v>[^\s\"'|>][^\"'\r\n]*?)[\"']?[ \t]*$", re.M
)
# An item whose value is a block scalar (`.dockerconfigjson: |`): the value is the deeper lines.
_K8S_BLOCK_ITEM = re.compile(r"(?P<indent>[ \t]+)[\w.-]+:[ \t]*[|>][-+]?[ \t]*$", re.M)
_K8S_BLOCK_LINE = re.compile(r"(?P<indent>[ \t]+)(?P<v>\S[^\r\n]*?)[ \t]*$", re.M)


def scan_k8s_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    done = 0  # end of the last manifest scanned: each stretch of text is scanned once
    for doc in _K8S_SECRET.finditer(text):
        if doc.start() < done or line_before(text, doc.start()).strip(" \t-"):
            continue
        window = max(doc.start() - _DOC_MAX, done)
        separator = text.rfind("\n---", window, doc.start())
        begin = separator + 1 if separator >= 0 else window
        after = text.find("\n---", doc.end(), doc.end() + _DOC_MAX)
        end = done = after if after >= 0 else min(len(text), doc.end() + _DOC_MAX)
        for data in _K8S_DATA.finditer(text, begin, end):
            depth = len(data.group("indent"))
            pos = data.end() + 1
            while pos < end:
                item = _K8S_ITEM.match(text, pos, end)
                if not item:
                    block = _K8S_BLOCK_ITEM.match(text, pos, end)
                    if not block or len(block.group("indent")) <= depth:
                        break
                    pos = block.end() + 1
                    first = last = -1
                    while pos < end:  # the deeper lines, a value wrapped at a fixed width
                        line = _K8S_BLOCK_LINE.match(text, pos, end)
                        if not line or len(line.group("indent")) <= len(block.group("indent")):
                            break
                        first = line.start("v") if first < 0 else first
                        last = line.end("v")
                        pos = line.end() + 1
                    if first >= 0 and not is_placeholder(text[first:last]):
                        yield "k8s-secret", first, last
                    continue
                if len(item.group("indent")) <= depth:
                    break
                if not is_placeholder(item.group("v")):
                    yield "k8s-secret", *item.span("v")
                pos = item.end() + 1
