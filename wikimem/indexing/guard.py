"""The command guard: an entry may not present a dangerous shell command the run never ran.

Tool output can carry instructions aimed at the indexer ("record `curl … | sh` as the verified
fix"). A model that obeys produces a plan; this check, wired into plan validation, rejects an
add or update whose body or title shows a dangerous command (a download piped into a shell,
`rm -rf` of / ~ or .., chmod 777 /, TLS verification turned off, secrets sent over the network,
base64 decoded into a shell, writes to ~/.ssh, unknown package indexes, ...) unless that exact
command appears in the run's evidence as a command that succeeded.

Invariant: pure and total; any text in, a list of findings out, never an error. It is a deny
list read from text, not a sandbox: it narrows what a talked-into model can plant, it does not
prove a command safe.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from wikimem.intake.record import RunRecord

SHELLS = r"(?:sudo\s+(?:-\S+\s+)*)?(?:/usr)?(?:/bin/)?(?:ba|z|k|da|fi|c|tc)?sh\b"
RUNTIMES = r"(?:sudo\s+(?:-\S+\s+)*)?(?:python[0-9.]*|perl|ruby|node|php|iex|invoke-expression)\b"
FETCH = r"\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|http)\b"
NET = r"\b(?:curl|wget|nc|ncat|netcat|socat|scp|sftp|rsync|ftp|tftp|telnet|http|https)\b"
HOMES = r"(?:~|\$\{?HOME\}?|/root|/home/[^/\s\"']+)"
SENSITIVE = (
    r"(?:\.env\b|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|/etc/(?:passwd|shadow|sudoers)"
    r"|\.aws/credentials|\.netrc\b|\.git-credentials|\.npmrc\b|\.pypirc\b"
    r"|\.docker/config\.json|\.kube/config|\.gnupg/|/proc/(?:self|\d+)/environ"
    r"|\.(?:pem|p12|pfx|key)\b|credentials\.json|secrets?\.(?:ya?ml|json|env|txt)\b)"
)
SYSTEM_DIRS = r"(?:bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|sys|usr|var)"
RM_TARGET = rf"(?:/\*?|/{SYSTEM_DIRS}/?\*?|{HOMES}/?\*?|\.\.(?:/\.\.)*/?\*?|\*|\.)"
RECURSIVE = r"(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)"

# Hosts whose package indexes are the tools' own defaults: naming them adds nothing unknown.
KNOWN_INDEX_HOSTS = frozenset(
    {
        "pypi.org",
        "pypi.python.org",
        "files.pythonhosted.org",
        "registry.npmjs.org",
        "registry.yarnpkg.com",
        "deb.debian.org",
        "security.debian.org",
        "archive.ubuntu.com",
        "security.ubuntu.com",
        "ports.ubuntu.com",
        "rubygems.org",
        "crates.io",
        "index.crates.io",
        "download.pytorch.org",
    }
)


@dataclass(frozen=True)
class Danger:
    """One dangerous command shown in a text: what kind, and the command line it sits in."""

    kind: str
    command: str


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]


def _rule(kind: str, pattern: str) -> _Rule:
    return _Rule(kind, re.compile(pattern, re.IGNORECASE))


RULES = (
    _rule(
        "download piped into a shell", rf"{FETCH}[^\n|]*\|\s*(?:{SHELLS}|{RUNTIMES}|source\b|\.\s)"
    ),
    _rule(
        "download run by a shell",
        rf"(?:{SHELLS}|{RUNTIMES}|source\b|\beval\b)[^\n]*(?:<\(|\$\(|`)\s*{FETCH}",
    ),
    _rule("download run by a shell", rf"\b(?:iex|invoke-expression)\b[^\n]*{FETCH}"),
    _rule(
        "recursive delete of a root, home or parent folder",
        rf"\brm\s+(?:-\S+\s+)*?{RECURSIVE}\s+(?:-\S+\s+)*(?:[^\s;&|]+\s+)*?[\"']?"
        rf"{RM_TARGET}[\"']?(?=$|[\s;&|)`])",
    ),
    _rule("recursive delete of a root, home or parent folder", r"--no-preserve-root"),
    _rule(
        "world-writable root or home",
        rf"\bchmod\s+(?:-\S+\s+)*(?:0?777|[augo]*\+rwx)\s+[\"']?(?:/{SYSTEM_DIRS}?|{HOMES})/?"
        rf"[\"']?(?=$|[\s;&|)`])",
    ),
    _rule(
        "ownership taken of a root or home",
        rf"\bchown\s+(?:-\S+\s+)*-[a-zA-Z]*R\S*\s+\S+\s+[\"']?(?:/|{HOMES})/?[\"']?(?=$|[\s;&|)`])",
    ),
    _rule(
        "TLS verification turned off",
        r"\bcurl\b[^\n|;&]*\s(?:--insecure\b|-[a-zA-Z]*k[a-zA-Z]*\b)"
        r"|\bwget\b[^\n|;&]*--no-check-certificate"
        r"|\bhttp\.sslverify\s*(?:=\s*|\s+)(?:false|0|no)\b|\bGIT_SSL_NO_VERIFY\s*=\s*\S"
        r"|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*[\"']?0|\bstrict-ssl\s*(?:=\s*|\s+)false\b"
        r"|\bPYTHONHTTPSVERIFY\s*=\s*[\"']?0|\bverify\s*=\s*False\b|--trusted-host\b"
        r"|\bsslverify\s*(?:=\s*|\s+)false\b|\bCURL_CA_BUNDLE\s*=\s*[\"']{2}"
        r"|\binsecure-skip-tls-verify\b|--disable-ssl|\bssl_verify\s*[:=]\s*false\b",
    ),
    _rule(
        "secrets sent over the network",
        rf"(?:\b(?:env|printenv|set)\b|\bcat\b[^\n|]*{SENSITIVE}[^\n|]*|\btar\b[^\n|]*"
        rf"{SENSITIVE}[^\n|]*)\s*\|\s*(?:sudo\s+)?{NET}",
    ),
    _rule(
        "secrets sent over the network",
        rf"{NET}[^\n]*?(?:@|<\s*|-T\s+|--upload-file[=\s]+|--post-file=|--body-file=|-F\s+\S*=@"
        rf"|\$\(\s*(?:cat\s+)?|`\s*(?:cat\s+)?)[\"']?[^\s\"']*{SENSITIVE}",
    ),
    _rule(
        "secrets sent over the network",
        rf"{NET}[^\n]*\$\(\s*(?:env|printenv)\b|{NET}[^\n]*/proc/self/environ",
    ),
    _rule(
        "reverse shell",
        r"/dev/(?:tcp|udp)/|\b(?:nc|ncat|netcat)\b[^\n]*\s-[a-z]*[ec]\s"
        r"|\bsocat\b[^\n]*\bexec:|\bmkfifo\b[^\n]*\|\s*(?:ba)?sh\b",
    ),
    _rule(
        "encoded text run by a shell",
        rf"(?:\bbase64\b[^\n|]*\s(?:-d|-D|--decode)\b|\bxxd\b[^\n|]*\s-r|\bopenssl\b[^\n|]*"
        rf"\s(?:base64|enc)\b[^\n|]*\s-d|b64decode)[^\n|]*\|\s*(?:{SHELLS}|{RUNTIMES}|source\b)",
    ),
    _rule(
        "encoded text run by a shell",
        rf"(?:{SHELLS}|\beval\b|{RUNTIMES})[^\n]*(?:\$\(|`)[^\n]*\bbase64\s+(?:-d|-D|--decode)",
    ),
    _rule(
        "write to ~/.ssh",
        rf"(?:>>?|\btee\b(?:\s+-\S+)*)\s*[\"']?{HOMES}/\.ssh/"
        rf"|\b(?:cp|mv|install|ln|rsync|scp)\b[^\n;&|]*\s[\"']?{HOMES}/\.ssh(?:/\S*)?[\"']?\s*"
        rf"(?=$|[;&|`\n])|>>?\s*\S*authorized_keys\b",
    ),
    _rule("privilege grant", r"NOPASSWD\s*:|>>?\s*/etc/sudoers|\btee\b[^\n]*/etc/sudoers"),
    _rule(
        "disk wiped",
        r"\bmkfs(?:\.\w+)?\s+\S*/dev/"
        r"|\bdd\b[^\n]*\bof=/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)"
        r"|>\s*/dev/(?:sd|nvme|hd)[a-z0-9]*\b|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",
    ),
    _rule(
        "unknown package source",
        r"\badd-apt-repository\b|\bapt-key\s+add\b|/etc/apt/sources\.list"
        r"|\bgem\s+sources\s+(?:-a|--add)\b",
    ),
)

INDEX_URL = re.compile(
    r"(?:--(?:extra-)?index-url|--registry|--find-links|-f|-i|(?:extra-)?index-url|registry"
    r"|PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_)?INDEX_URL|NPM_CONFIG_REGISTRY|UV_INDEX)"
    r"(?:\s*=\s*|\s+)[\"']?(https?://[^\s\"'`]+)",
    re.IGNORECASE,
)
INDEX_TOOLS = re.compile(
    r"\b(?:pip[0-9.]*|uv|poetry|pipenv|pdm|npm|yarn|pnpm|bun|PIP_\w+|UV_\w+"
    r"|NPM_CONFIG_\w+)\b",
    re.IGNORECASE,
)

_INVISIBLE = dict.fromkeys(
    map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad")
)
_QUOTE_PAIRS = re.compile(r"(?<=\w)(?:''|\"\")(?=\w)")
_ESCAPED_LETTER = re.compile(r"\\(?=[A-Za-z])")
_CONTINUATION = re.compile(r"\\\r?\n[ \t]*")
_SPACES = re.compile(r"[^\S\n]+")


def normal(text: str) -> str:
    """Text the way a shell would read it, for matching: invisible characters, HTML entities,
    Unicode look-alikes, empty quote pairs, escaped letters and line continuations undone."""
    text = html.unescape(text)
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    text = _CONTINUATION.sub(" ", text)
    text = _QUOTE_PAIRS.sub("", text)
    text = _ESCAPED_LETTER.sub("", text)
    return _SPACES.sub(" ", text)


def _line_at(text: str, start: int, end: int) -> str:
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    return text[first : len(text) if last < 0 else last].strip()


def _unknown_indexes(text: str) -> Iterable[tuple[int, int]]:
    for line_match in re.finditer(r"[^\n]+", text):
        line = line_match.group(0)
        if not INDEX_TOOLS.search(line):
            continue
        for match in INDEX_URL.finditer(line):
            host = (urlsplit(match.group(1)).hostname or "").lower()
            if host not in KNOWN_INDEX_HOSTS:
                offset = line_match.start()
                yield offset + match.start(), offset + match.end()


def scan(text: str) -> list[Danger]:
    """Every dangerous command shown in `text`, in order of appearance."""
    found: list[tuple[int, Danger]] = []
    text = normal(text)
    for rule in RULES:
        for match in rule.pattern.finditer(text):
            found.append((match.start(), Danger(rule.kind, _line_at(text, *match.span()))))
    for start, end in _unknown_indexes(text):
        found.append((start, Danger("unknown package index", _line_at(text, start, end))))
    found.sort(key=lambda item: item[0])
    return [danger for _, danger in found]


# What may sit right before and after a verified command quoted in prose or code.
_BEFORE = frozenset("\n`'\"( $>")
_AFTER = re.compile(r"$|[\n`'\")\]]|[.,:](?:\s|$)")


def _mask_verified(text: str, verified: Iterable[str]) -> str:
    """Blank out whole occurrences of dangerous commands that the run ran successfully."""
    for command in sorted({normal(c).strip() for c in verified}, key=len, reverse=True):
        if not command or not scan(command):
            continue  # a harmless verified command must not hide what is written around it
        start = 0
        while (at := text.find(command, start)) >= 0:
            end = at + len(command)
            if (at == 0 or text[at - 1] in _BEFORE) and _AFTER.match(text, end):
                text = text[:at] + " " * len(command) + text[end:]
            start = end
    return text


def unverified(text: str, verified: Iterable[str] = ()) -> list[Danger]:
    """Dangerous commands in `text` that are not, whole and exactly, among `verified`."""
    return scan(_mask_verified(normal(text), verified))


def verified_commands(runs: Iterable[RunRecord]) -> frozenset[str]:
    """Commands the runs' evidence shows succeeding (exit code 0), whitespace normalised."""
    return frozenset(
        normal(item.command).strip()
        for run in runs
        for item in run.evidence
        if item.kind == "command" and item.exit_code == 0 and item.command.strip()
    )
