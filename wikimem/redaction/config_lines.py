"""Secrets in `name value` config lines, where a blank rather than `=` or `:` ends the name.

Owns the configuration syntaxes of network gear and daemons: Cisco IOS (`enable secret 9 ...`,
`username x password 7 ...`, `snmp-server community ...`, `key 0 ...`), Junos (`authentication-key
"$9$..."`, `pre-shared-key ascii-text "..."`), redis.conf (`requirepass ...`), keepalived,
mosquitto bridges, haproxy userlists, Gradle signing configs, snmpd.conf and snmp.conf; and two
layouts with no name before the value: strongSwan's ipsec.secrets (`: PSK "..."`) and Net-SNMP's
`createUser NAME SHA PW AES PW`. Invariant: the name must be one the shared lexicon calls secret
(`key_names`), the line must read as config (few words before the name, none a function word, few
after the value), and a bare value must look like a credential; names are found with `str.find`,
so the cost is per occurrence of a keyword.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from wikimem.redaction.key_names import foreign_name_kind, name_info
from wikimem.redaction.placeholders import is_code, is_placeholder, is_random, is_strong
from wikimem.redaction.scanners import WORD, line_before, trim


def _lazy(source: str) -> Callable[[], re.Pattern[str]]:
    """A pattern compiled on first use: this module is on the hook's import path."""
    return functools.cache(lambda: re.compile(source))


# The parts of a name a keyword may sit in; `str.find` looks for each in the lowered text.
NEEDLES = ("pass", "pw", "secret", "psk", "key", "community", "token", "authtok")
_NAME_CHARS = WORD | frozenset(".-")
# Between the name and its value, Cisco and Junos write the value's encoding or a key id:
# `secret 9`, `password 7`, `message-digest-key 1 md5`, `pre-shared-key ascii-text`,
# `authentication-key 2 type md5 value`.
_AFTER_NAME = _lazy(
    r"[ \t]+(?:(?:\d{1,3}|(?i:md5|sha-?\d{0,3}|hmac-[a-z0-9-]{1,20}|ascii-text|hexadecimal"
    r"|plain-text|cleartext|encrypted|type|value))[ \t]+){0,4}"
    r"(?:\"(?P<vd>[^\"\n]{1,400})\"|'(?P<vs>[^'\n]{1,400})'|(?P<vb>[^\s\"'`<>|;{}()\[\]][^\s\"'`<>|;{}]{3,400}))"
    r"(?P<rest>[ \t;]*(?:[^\n]{0,200}))"
)
# A word right before the name that makes the line prose, not config (`the password ...`).
# fmt: off
_PROSE_BEFORE = frozenset({
    "the", "a", "an", "your", "my", "our", "his", "her", "their", "its", "this", "that", "new",
    "old", "with", "and", "or", "no", "is", "of", "for", "to", "by", "wrong", "invalid", "bad",
    "correct", "same", "which", "what", "if", "when", "enter", "type", "reset", "change", "as",
})
# fmt: on
# An option of the command the name is an argument of (`infisical secrets get NAME --env=prod`).
_OPTION = _lazy(r"--[a-z][a-z-]{0,40}(?:=|\Z)")
# kubectl's and oc's verbs that take a resource type and its name (`get secret b2-creds`).
_RESOURCE_VERBS = frozenset({"get", "describe", "delete", "edit", "label", "annotate", "patch"})
_CLUSTER_CLI = frozenset({"kubectl", "oc", "k3s", "microk8s"})
_MAX_WORDS_BEFORE = 12  # `set security ike policy NAME pre-shared-key ...`; a syslog header
_MAX_WORDS_AFTER = 3  # `RO 10` after a community, `127.0.0.1 .1.3.6` in snmpd.conf
_LINE_MARKS = " \t#>*-"
_KEY_TYPE = _lazy(r"[ \t]+[07][ \t]+\S")  # IOS writes a key's encoding, 0 or 7, before it
# A relative or absolute path to a file with an extension (`dist/acme-0.1.tar.gz`): never the
# secret.
_FILE_PATH = _lazy(
    r"(?:~|\.{1,2})?/?(?:[\w.-]{1,100}/){1,20}[\w-]{1,100}(?:[.-][\w]{1,20})*\.[a-z][a-z0-9]{0,5}"
)
_ASSIGNMENT = _lazy(
    r"[A-Za-z_][\w.-]{0,60}="
)  # indentation, a comment sign or a prompt before the first word


def scan_config_lines(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    seen: set[int] = set()
    for needle in NEEDLES:
        pos = lowered.find(needle)
        while pos >= 0:
            start = pos
            while start and pos - start < 60 and text[start - 1] in _NAME_CHARS:
                start -= 1
            end = pos + len(needle)
            while end < len(text) and end - start < 80 and text[end] in _NAME_CHARS:
                end += 1
            pos = lowered.find(needle, end)
            if start in seen or end >= len(text) or text[end] not in " \t":
                continue
            seen.add(start)
            found = _value_after(text, start, end)
            if found:
                yield found


_WORD_SHAPE = _lazy(r"[A-Z]?[a-z]+|[A-Z]+")


def _mixed_password(kind: str, value: str) -> bool:
    """Under a password name, letters alone count when their case is not a word's
    (keepalived's `auth_pass jSYuriAR`, its 8-character limit); `required`, `PASS` stay."""
    return (
        kind == "password-assignment" and len(value) >= 6 and value.isalpha()
        and not _WORD_SHAPE().fullmatch(value)
    )  # fmt: skip


_WORDS = re.compile(r"[^\W\d_]+[.,:;?!]?")


def _value_after(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    if text[start] == "-" or (start and text[start - 1] not in " \t\n#{\"'"):
        return None  # a flag (the flag rules decide) or part of a value (`-method=userpass`)
    name = text[start:end].strip(".")
    keyword, kind, weak = name_info(name) if name else (False, None, False)
    if kind is None and name.lower() == "key" and _KEY_TYPE().match(text, end):
        keyword, kind, weak = True, "secret-assignment", True  # IOS `key 0 ...`, `key 7 ...`
    if not keyword or kind is None:
        return None
    before = line_before(text, start).lstrip(_LINE_MARKS).split()
    if len(before) > _MAX_WORDS_BEFORE or (before and before[-1].lower() in _PROSE_BEFORE):
        return None
    if any(word.endswith((".", ",", ":", "?", "!")) for word in before):
        return None  # a sentence or a log message, which the prose scanner reads
    if before and before[-1].lower() in _RESOURCE_VERBS and _CLUSTER_CLI & set(before):
        return None  # `kubectl describe secret NAME`: the word after `secret` names an object
    if before and before[-1].startswith("-") and is_placeholder(name):
        return None  # `cabal upload -p PASSWORD FILE`: the name is a flag's placeholder value
    m = _AFTER_NAME().match(text, end)
    if m is None:
        return None
    group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
    # a `;` after the value ends the command, so the words after it are the next command's
    # (Tasmota's `Backlog MqttUser u; MqttPassword PW; Topic t`, a router's joined commands)
    if not text[m.end(group) : m.end()].lstrip(" \t\"'").startswith(";") and (
        len(m.group("rest").split()) > _MAX_WORDS_AFTER
    ):
        return None
    vstart, vend = trim(text, *m.span(group))
    value = text[vstart:vend]
    if is_placeholder(value) or (weak and not is_random(value)):
        return None
    if group == "vb" and _WORDS.fullmatch(value) and foreign_name_kind(name):
        return None  # `Passwort vergessen?`: a foreign name, then a word of a sentence
    if group == "vb" and (
        not (is_strong(value) or _mixed_password(kind, value))
        or is_code(value)
        or "://" in value
        or _ASSIGNMENT().match(value)
        or _OPTION().match(value)
        or _FILE_PATH().fullmatch(value)
    ):
        return None  # a word, an expression, a URL or another `name=value` is not the value
    return kind, vstart, vend


# strongSwan's ipsec.secrets: `[selectors] : PSK "secret"`, `: XAUTH user "secret"`, `: EAP ...`.
_IPSEC = _lazy(
    r":[ \t]+(?:PSK|XAUTH|EAP|NTLM|PIN)[ \t]+(?:[^\s\"']{1,100}[ \t]+)?"
    r"(?:\"(?P<vd>[^\"\n]{1,400})\"|'(?P<vs>[^'\n]{1,400})'|(?P<vb>0[xs][A-Za-z0-9+/=]{8,400}))"
)
IPSEC_NEEDLES = ("psk", "xauth", "eap", "ntlm", "pin")


def scan_ipsec_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _IPSEC().finditer(text):  # led by the literal `:`, which the regex engine skips to
        if m.start() and text[m.start() - 1] not in " \t\n":
            continue
        group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
        if not is_placeholder(m.group(group)):
            yield "secret-assignment", *m.span(group)


# Net-SNMP's snmpd.conf and net-snmp-config: `createUser [-e ID] NAME (MD5|SHA...) AUTHPASS
# [(DES|AES...) [PRIVPASS]]`; both passphrases stand by position, after their protocol.
_CREATE_USER = _lazy(
    r"createUser[ \t]+(?:-e[ \t]+\S{1,100}[ \t]+)?[^\s\"']{1,100}[ \t]+(?i:MD5|SHA[-\d]{0,4})[ \t]+"
    r"(?:\"(?P<ad>[^\"\n]{1,400})\"|'(?P<as>[^'\n]{1,400})'|(?P<ab>[^\s\"']{1,400}))"
    r"(?:[ \t]+(?i:DES|AES[-\d]{0,4})[ \t]+"
    r"(?:\"(?P<pd>[^\"\n]{1,400})\"|'(?P<ps>[^'\n]{1,400})'|(?P<pb>[^\s\"']{1,400})))?"
)


def scan_snmp_users(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _CREATE_USER().finditer(text):
        for groups in (("ad", "as", "ab"), ("pd", "ps", "pb")):
            group = next((g for g in groups if m.group(g) is not None), None)
            if group and not is_placeholder(m.group(group)):
                yield "cli-password", *m.span(group)


# ntpd's and chronyd's key files, `KEYID TYPE KEY` a line (`1 SHA1 099acd...`), and Postfix's
# sasl_passwd, `[host]:port user:password`: files whose every line is a credential.
_KEY_FILE_LINE = _lazy(
    r"(?m)^[ \t]*\d{1,5}[ \t]+(?i:md5|sha1|sha256|sha512|aes128cmac|m|sha)[ \t]+"
    r"(?:HEX:|ASCII:)?(?P<v>[^\s#]{8,400})[ \t]*$"
)
_SASL_LINE = _lazy(
    r"(?m)^[ \t]*\[?[A-Za-z0-9.-]{1,253}\]?(?::\d{1,5})?[ \t]+[^\s:]{1,200}:(?P<v>\S{1,400})[ \t]*$"
)
KEY_FILE_NEEDLES = ("ntp.keys", "chrony.keys", "ntp.conf", "chrony.conf", "sasl_passwd")


def scan_key_files(text: str) -> Iterator[tuple[str, int, int]]:
    if "ntp" in text or "chrony" in text:  # the files' own names, lowercase on every system
        for m in _KEY_FILE_LINE().finditer(text):
            if not is_placeholder(m.group("v")):
                yield "secret-assignment", *m.span("v")
    if "sasl_passwd" in text:
        for m in _SASL_LINE().finditer(text):
            if not is_placeholder(m.group("v")):
                yield "connection-password", *m.span("v")
