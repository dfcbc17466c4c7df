"""Secrets laid out apart from their names, and key bodies without their first line.

Owns the scanners for a value whose name sits in another field or column: a Kubernetes or
ECS `name:`/`value:` pair, a CLI table with a key column (`vault kv get`, `az storage account
keys list -o table`, a Markdown table), an INI section that names what its entries hold
(CouchDB's `[admins]`), a YAML list under a name ending `keys` or `tokens`; and for key
material that no single pattern spans: a PuTTY `.ppk` body, a PEM body whose BEGIN line was
cut off (by `tail`, by a log limit), and a PEM block larger than the window the BEGIN scanner
looks through. Invariant: each yields the span of the value or the whole key body, never the
name, the header or the column title.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from wikimem.redaction.key_names import is_weak_name, secret_name_kind
from wikimem.redaction.placeholders import is_mask, is_placeholder, is_random, is_strong
from wikimem.redaction.scanners import QUOTED_OR_BARE, entropy, occurrences


@functools.cache
def _re(source: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(source, flags)  # compiled on first use: the hook pays only for what it meets


def _secret_name(name: str, value: str) -> bool:
    kind = secret_name_kind(name)
    if kind is None or is_placeholder(value) or is_mask(value):
        return False
    return not (is_weak_name(name) and not is_random(value))


# --- name/value pairs: Kubernetes env, ECS container definitions, CloudFormation parameters ----

_PAIR = (
    r"(?i:\b(?:name|key|parameterkey|variable))[\"']?[ \t]*[:=][ \t]*[\"']?(?P<name>[\w.-]{2,100})"
    r"[\"']?[ \t]*,?[ \t]*(?:\r?\n[ \t-]*)?[ \t]*"
    # up to three sibling fields between the name and its value (`"type":"string",`)
    r"(?:[\"']?(?!(?i:value|parametervalue)\b)[A-Za-z_]\w{0,30}[\"']?[ \t]*[:=][ \t]*"
    r"(?:\"[^\"\n]{0,100}\"|'[^'\n]{0,100}'|[\w.-]{1,40})"
    r"[ \t]*(?:,[ \t]*(?:\r?\n[ \t-]*)?|\r?\n[ \t-]*)){0,3}"
    r"[\"']?(?i:value|parametervalue)[\"']?[ \t]*[:=]"
    r"[ \t]*" + QUOTED_OR_BARE
)


def scan_pairs(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _re(_PAIR).finditer(text):
        group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
        value = m.group(group).rstrip(",}]")
        if _secret_name(m.group("name"), value):
            yield "env-secret", m.start(group), m.start(group) + len(value)


# --- tables with a key column ------------------------------------------------------------------

_HEADER = r"^[ \t|]*(?P<key>key|name|field|keyname|setting|variable)\b[^\n]*?\bvalue\b[^\n]*$"
_RULE_LINE = r"[ \t|:+=-]*"
_KEY_ROW = r"(?i)(?:primary|secondary)?[ _-]?key[ _-]?\d|(?:primary|secondary)key"


def _cells(line: str, piped: bool) -> list[tuple[int, int]]:
    """Spans of the cells of one row, split at `|` or at runs of two or more blanks."""
    sep = r"\|" if piped else r"[ \t]{2,}|\t"
    spans, pos = [], 0
    for m in re.finditer(sep, line):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(line)))
    out = []
    for a, b in spans:
        cell = line[a:b]
        stripped = cell.strip()
        if stripped:
            lead = len(cell) - len(cell.lstrip())
            out.append((a + lead, a + lead + len(stripped)))
    return out


def scan_tables(text: str) -> Iterator[tuple[str, int, int]]:
    for header in _re(_HEADER, re.I | re.M).finditer(text):
        line = header.group()
        piped = "|" in line
        titles = [line[a:b].lower() for a, b in _cells(line, piped)]
        value_col = next((i for i, t in enumerate(titles) if t == "value"), None)
        key_col = next((i for i, t in enumerate(titles) if t.startswith(header["key"].lower())), 0)
        if value_col is None:
            continue
        pos = header.end() + 1
        rows = 0
        while pos < len(text) and rows < 500:
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            row = text[pos:end].rstrip("\r")
            pos = end + 1
            if not row.strip():
                break
            if _re(_RULE_LINE).fullmatch(row):
                continue
            rows += 1
            cells = _cells(row, piped)
            if len(cells) <= max(value_col, key_col):
                continue
            name = row[slice(*cells[key_col])]
            a, b = cells[value_col]
            value = row[a:b]
            key_row = (
                _re(_KEY_ROW).fullmatch(name) and not is_placeholder(value) and len(value) >= 16
            )
            if key_row or _secret_name(name, value):
                yield "table-secret", end - len(row) + a, end - len(row) + b


# --- key bodies ---------------------------------------------------------------------------------

# A base64 line of a key body (or a PEM header line, or the blank line after the headers); the
# PGP checksum line `=AbCd` closes it.
_BODY_LINE = (
    r"[ \t]*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]{1,15}={1,2}|=[A-Za-z0-9+/]{4}"
    r"|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset): [^\r\n]*|)"
)
_PEM_END = r"-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"


def scan_key_bodies(text: str) -> Iterator[tuple[str, int, int]]:
    """A PEM private key body up to its END line, however long and wherever its BEGIN went."""
    for end in _re(_PEM_END).finditer(text):
        start = _body_start(text, end.start())
        if start < end.start():
            yield "private-key", start, end.end()


def _body_start(text: str, pos: int) -> int:
    """Walk back over body lines (base64, PEM headers, blank lines) from the END line at `pos`;
    stop at a BEGIN line (kept) or at the first line that is not key material."""
    start = pos
    line_re = _re(_BODY_LINE)
    while start > 0:
        cut = start
        # the newline (real or JSON-escaped) just before `start`
        if text.endswith("\\n", 0, cut):
            cut -= 2
            if text.endswith("\\r", 0, cut):
                cut -= 2
        elif text.endswith("\n", 0, cut):
            cut -= 1
            if text.endswith("\r", 0, cut):
                cut -= 1
        elif start != pos:
            break
        real = text.rfind("\n", 0, cut)
        escaped = text.rfind("\\n", 0, cut)
        begin = max(real + 1, escaped + 2 if escaped >= 0 else 0)
        line = text[begin:cut]
        if "-----BEGIN" in line:
            return start
        if not line_re.fullmatch(line):
            if start == pos and line.strip():
                # the body's last line shares its line with the END marker's prefix
                tail = re.search(r"[A-Za-z0-9+/=]+$", line)
                return begin + tail.start() if tail else start
            return start
        start = begin
    return start


_PUTTY = (
    r"PuTTY-User-Key-File-\d+:[^\r\n]*(?:\r?\n[^\r\n]*){0,40}?\r?\nPrivate-Lines:[ \t]*\d+"
    r"[ \t]*\r?\n(?P<v>(?:[A-Za-z0-9+/=]+[ \t]*\r?\n?){1,200}(?:Private-(?:MAC|Hash):[ \t]*"
    r"[0-9a-fA-F]+)?)"
)


def scan_putty_keys(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _re(_PUTTY).finditer(text):
        yield "private-key", m.start("v"), m.end("v")


# --- interactive prompts: `AWS Secret Access Key [None]: ...` ---------------------------------

# What `aws configure` and tools made after it print: a name, the current value in brackets
# (`[None]`, `[****************ABCD]`), a colon, then what the user typed.
_PROMPT = r"(?P<name>[A-Za-z][A-Za-z0-9 _-]{2,60}?)[ \t]*\[[^\]\n]{0,30}\]"
_TYPED = r":[ \t]*(?P<v>[^\s\"'`<>]{4,400})[ \t]*(?:\r?\n|$)"


def scan_prompts(text: str) -> Iterator[tuple[str, int, int]]:
    for _, pos in occurrences(text, ("]:",)):
        line_start = text.rfind("\n", max(pos - 120, 0), pos) + 1
        prompt = _re(_PROMPT).fullmatch(text, line_start, pos + 1)
        typed = _re(_TYPED).match(text, pos + 1) if prompt else None
        if prompt and typed and _secret_name(prompt["name"].replace(" ", "_"), typed["v"]):
            yield "secret-assignment", *typed.span("v")


# --- armoured key material other than PEM private keys ----------------------------------------

# `-----BEGIN OpenVPN Static key V1-----`, NATS' `-----BEGIN USER NKEY SEED-----`: a label that
# says key, seed or secret, and not one that says public or certificate.
_ARMOUR = r"-----BEGIN (?P<label>[A-Za-z0-9 ]{1,40})-----"
_ARMOUR_SECRET = re.compile(r"(?i)\b(?:key|seed|secret)\b")
_ARMOUR_BODY = re.compile(r"[A-Za-z0-9+/]{16}")
_ARMOUR_LINES = r"(?:(?:\\n|\r?\n)[A-Za-z0-9+/=]{16,400})+"
_ARMOUR_PUBLIC = re.compile(r"(?i)public|certificate|signature|message|private key")


def scan_armoured_keys(text: str) -> Iterator[tuple[str, int, int]]:
    for begin in _re(_ARMOUR).finditer(text):
        label = begin["label"]
        if not _ARMOUR_SECRET.search(label) or _ARMOUR_PUBLIC.search(label):
            continue  # PEM private keys have their own scanner; public blocks stay
        end = text.find("END " + label, begin.end(), begin.end() + 65536)
        if end < 0:  # cut short (by `head`, by a log limit): its body lines
            body = _re(_ARMOUR_LINES).match(text, begin.end())
            if body:
                yield "private-key", begin.start(), body.end()
            continue
        if _ARMOUR_BODY.search(text, begin.end(), end):  # a body, not `<removed real key>`
            stop = end + 4 + len(label)
            while stop < len(text) and text[stop] == "-":
                stop += 1
            yield "private-key", begin.start(), stop


# --- what a command printed from a file that holds a secret -----------------------------------

# `$ cat /etc/openvpn/auth.txt`, `$ wg genkey | tee privatekey`, `$ cat config/master.key`: the
# lines the command printed are the file's content. Only a prompt line (`$ `, `# `, `A# `, `>`)
# that reads such a file counts, and only short single-token lines after it are taken.
_READ_FILE = (
    r"[ \t]*(?:[A-Za-z0-9_@:~/.-]{0,40}[$#>%])[ \t]*(?:sudo[ \t]+)?"
    r"(?:(?:cat|type|more|less|head|tail|Get-Content)[ \t]+(?:-\S+[ \t]+)*(?P<file>\S{1,300})"
    r"|[^\n]{0,200}?\b(?P<gen>genkey|genpsk|gen-key|keygen)\b[^\n]{0,200})[ \t]*$"
)
_SECRET_FILE = re.compile(r"(?i)key|secret|cookie|credential|passw|_pass|\.pass|token|psk|auth")
_PUBLIC_FILE = re.compile(r"(?i)pub|\.crt$|\.cer$|cert|known_hosts|authorized_keys")


def is_secret_file(path: str) -> bool:
    """Whether a file's name says it holds a secret (`~/.vault_pass`, `master.key`, `auth.txt`)."""
    name = path.rsplit("/", 1)[-1]
    return bool(_SECRET_FILE.search(name)) and not _PUBLIC_FILE.search(name)


_OUTPUT_LINE = r"[ \t]*(?P<v>[^\s$#>][^\s]{0,400})[ \t]*\r?(?:\n|$)"
# A keys file's line, fields then the key (`001 web-01 any <hex>`, an agent's id, name and host;
# `user:uid <base64>`): its last field, a long hex or base64 value, is the secret.
_KEYS_LINE = (
    r"[ \t]*[^\s$#>][^\n]{0,200}?[ \t](?P<v>[0-9A-Fa-f]{32,256}"
    r"|(?=[A-Za-z+/]*[0-9])(?=[0-9+/]*[A-Za-z])[A-Za-z0-9+/]{24,400}={0,2})[ \t]*\r?(?:\n|$)"
)


READ_FILE_NEEDLES = (
    "cat ", "type ", "more ", "less ", "head ", "tail ", "get-content", "genkey", "genpsk",
    "keygen", "gen-key",
)  # fmt: skip


def _commands(text: str) -> Iterator[re.Match[str]]:
    """Lines that read a file or generate a key, found from each command word by `str.find`."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    starts: set[int] = set()
    for _, pos in occurrences(lowered, READ_FILE_NEEDLES):
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        if start not in starts and any(c in text[start : start + 42] for c in "$#>%"):
            starts.add(start)  # a prompt mark near the line's start, or no command line
            m = _re(_READ_FILE).fullmatch(text, start, len(text) if end < 0 else end)
            if m:
                yield m


def scan_file_output(text: str) -> Iterator[tuple[str, int, int]]:
    for command in _commands(text):
        if command["gen"] is None and not is_secret_file(command["file"]):
            continue
        if command["gen"] and "pub" in command.group().lower():
            continue  # `wg pubkey`: what it prints is public
        pos = command.end() + 1
        for _ in range(4):
            line = _re(_OUTPUT_LINE).match(text, pos) or _re(_KEYS_LINE).match(text, pos)
            if line is None or "-----" in line["v"]:
                break  # a prompt, a blank line, prose or a PEM block (its own scanner)
            if len(line["v"]) >= 8 and not is_placeholder(line["v"]):  # not the user name
                yield "secret-file-content", *line.span("v")
            pos = line.end()


# --- entries named by their section: CouchDB's `[admins]`, each `user = password` ---------------

SECTION_NEEDLES = ("[admins]", "[passwords]", "[credentials]", "[secrets]", "[tokens]", "[users]")
_ENTRY = (
    r"(?m)^[ \t]*[^\s=#;\[][^=\n]{0,100}?[ \t]*=[ \t]*(?P<v>[^\s,#;]{1,400})[ \t]*(?:,[^\n]*)?$"
)
# A stored hash, as CouchDB writes back an admin's password once it has read it
# (`-pbkdf2-HASH,SALT,ROUNDS`): a hash, for the hash rules to judge, not the password.
_STORED = ("-pbkdf2-", "-hashed-", "-pbkdf2:")


def scan_section_entries(text: str) -> Iterator[tuple[str, int, int]]:
    """Each entry's value in a section whose name says what they are (`[admins]` then
    `admin = PW`, Shiro's `[users]` then `root = PW, role`), up to the next section."""
    lowered = text.lower()
    for _, pos in occurrences(lowered, SECTION_NEEDLES):
        if pos and text[pos - 1] != "\n":
            continue
        start = text.find("\n", pos)
        if start < 0:
            continue
        following = text.find("\n[", start)
        end = len(text) if following < 0 else following
        for m in _re(_ENTRY).finditer(text, start + 1, end):
            value = m.group("v")
            if value.startswith(_STORED) or is_placeholder(value) or not is_strong(value):
                continue
            yield "password-assignment", *m.span("v")


# --- a YAML list of keys: `allowed_keys:` then `- KEY` items -------------------------------------

KEY_LIST_NEEDLES = ("keys:", "tokens:", "secrets:", "passwords:")
_LIST_NAME = r"(?P<name>[A-Za-z_][\w.-]{0,60}?)s:[ \t]*\r?\n"
_LIST_ITEM = r"(?P<i>[ \t]*)-[ \t]+(?P<q>[\"']?)(?P<v>[^\s\"'#]{16,400})(?P=q)[ \t]*(?:\r?\n|\Z)"


def scan_key_lists(text: str) -> Iterator[tuple[str, int, int]]:
    """Each generated item of a YAML list under a name that, singular, names a secret
    (`allowed_keys:`, `api_tokens:`), as a chart's values list the keys a service accepts;
    `public_keys:` or a list of words stays."""
    lowered = text.lower()
    for _, pos in occurrences(lowered, KEY_LIST_NEEDLES):
        line_start = text.rfind("\n", 0, pos) + 1
        head = _re(r"[ \t]*(?:-[ \t]+)?" + _LIST_NAME).match(text, line_start)
        if head is None or head.end("name") + 2 != text.find(":", pos) + 1:
            continue
        name = head.group("name")
        # `keys:` alone lists cache keys as often (CircleCI's `v1-deps-<checksum>`): its items
        # must mix cases as a generated key does
        bare = name.lower() == "key"
        if secret_name_kind(name) is None and not bare:
            continue
        at = head.end()
        while True:
            item = _re(_LIST_ITEM).match(text, at)
            if item is None:
                break
            value = item.group("v")
            mixed = value.lower() != value and value.upper() != value
            generated = is_random(value) and entropy(value) >= 3.2 and not is_placeholder(value)
            if generated and (mixed or not bare):
                yield "secret-assignment", *item.span("v")
            at = item.end()
