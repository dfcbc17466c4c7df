"""The command guard: an entry may not present a dangerous shell command the run never ran.

Tool output can carry instructions aimed at the indexer ("record `curl … | sh` as the verified
fix"). A model that obeys produces a plan; this check, wired into plan validation, rejects an
add or update whose body or title shows a dangerous command (a download piped into a shell,
`rm -rf` of / ~ or .., chmod 777 /, TLS verification turned off, secrets sent over the network,
base64 decoded into a shell, writes to ~/.ssh, unknown package indexes, ...) unless that exact
command appears in the run's evidence as a command that succeeded.

Rules go by class (a download reaching an interpreter however it is piped or substituted, an
override of a package manager's registry, proxy or TLS check, credentials sent off the machine,
a reverse shell, a recursive removal of / or HOME however it is spelled), each with look-alikes
that must pass beside it in tests/test_guard.py.

Invariant: pure and total; any text in, a list of findings out, never an error; time linear in
the text (long lines are scanned in overlapping windows, see `_windows`). It is a deny
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

# What may stand before an interpreter: sudo or doas with options (and their values, `-u root`),
# `env` with assignments, `exec`, `command`.
RUNNER = (  # bounded repeats: tried wherever a command may start, it must not run on
    r"(?:(?:sudo|doas)[ \t]+(?:-[A-Za-z]+[ \t]+(?:[\w.@][\w.@-]*[ \t]+)?|--[\w-]+(?:=\S+)?[ \t]+)"
    r"{0,8}|(?:/usr)?(?:/bin/)?env[ \t]+(?:-\S+[ \t]+|\w+=\S*[ \t]+){0,8}|exec[ \t]+|command[ \t]+)"
    r"{0,3}"
)
SHELLS = rf"{RUNNER}(?:/usr)?(?:/local)?(?:/bin/)?(?:ba|z|k|da|fi|c|tc|a)?sh\b"
RUNTIMES = (
    rf"{RUNNER}(?:/usr)?(?:/local)?(?:/bin/)?"
    r"(?:python[0-9.]*|perl|ruby|node|php|deno|bun|pwsh|powershell|iex|invoke-expression)\b"
)
FETCH = (
    r"\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|http"
    r"|downloadstring|downloadfile|downloaddata|net\.webclient|start-bitstransfer)\b"
)
NET = r"\b(?:curl|wget|nc|ncat|netcat|socat|scp|sftp|rsync|rclone|ftp|tftp|telnet|http|https)\b"
# Every spelling of the home folder: ~, $HOME, ${HOME}, ${HOME:?msg}, ${HOME:-x}, "$HOME"...
HOMES = r"(?:~|\$\{HOME(?:[:?+-][^}\s]*)?\}|\$HOME\b|/root|/home/[^/\s\"']+)"
SENSITIVE = (
    r"(?:\.env\b|\.ssh(?:/|\b)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|/etc/(?:passwd|shadow|sudoers)"
    r"|\.aws(?:/|\b)|\.netrc\b|\.git-credentials|\.npmrc\b|\.pypirc\b"
    r"|\.docker/config\.json|\.kube/config|\.gnupg/|/proc/(?:self|\d+)/environ"
    r"|\.(?:pem|p12|pfx|key)\b|credentials\.json|secrets?\.(?:ya?ml|json|env|txt)\b)"
)
SYSTEM_DIRS = r"(?:bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|sys|usr|var)"
_Q = r"[\"']?"  # a quote may open or close anywhere in a target: "$HOME"/, "${HOME:?}"/*
RM_TARGET = (
    rf"{_Q}(?:/{_Q}\*?|/{SYSTEM_DIRS}{_Q}/?\*?|{HOMES}{_Q}/?{_Q}\*?|\.\.(?:/\.\.)*/?\*?|\*|\.){_Q}"
)
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
    # through any number of pipes and tees (`| tee x | sh`, `|& bash`) to an interpreter
    _rule(
        "download piped into a shell",
        rf"{FETCH}[^\n;]*?\|&?\s*(?:{SHELLS}|{RUNTIMES}|source\b|\.(?=\s))",
    ),
    _rule(
        "download run by a shell",
        rf"(?:{SHELLS}|{RUNTIMES}|source\b|\beval\b|(?:^|(?<=[\s;&|(`]))\.(?=\s))"
        rf"[^\n]*?(?:<\(|\$\(|`)\s*{FETCH}",
    ),
    _rule("download run by a shell", rf"\b(?:iex|invoke-expression)\b[^\n]{{0,200}}?{FETCH}"),
    _rule(
        "registry, proxy or TLS override of a package manager",
        r"\b(?:npm|yarn|pnpm|bun)\s+config\s+set\s+(?:[\w@/:.-]*:)?"
        r"(?:https?-)?proxy\b|\b(?:npm|yarn)\S*\s[^\n;|]*\bnpmRegistryServer\b\s*[= ]\s*\S"
        r"|\benableStrictSsl\s*[= ]\s*false\b|\bunsafeHttpWhitelist\b"
        r"|(?:\b|_)strict[-_]ssl\s*(?:=\s*|\s+)[\"']?false\b|\bssl_verify\s+(?:false|no|0)\b"
        r"|\bpip[0-9.]*\s+(?:config\s+set\s+\S*(?:trusted-host|proxy)\b|[^\n;|]*\s--proxy[=\s])"
        r"|\bPIP_(?:TRUSTED_HOST|PROXY)\s*="
        r"|--allow-insecure-host\b|\bUV_INSECURE_HOST\s*="
        r"|\bGO(?:INSECURE|NOSUMDB|NOSUMCHECK)\s*=|\bGOSUMDB\s*=\s*[\"']?off\b"
        r"|\bGOFLAGS\s*=\s*[\"']?[^\n]*-insecure\b"
        r"|\bconda\s+config\s+[^\n;|]*(?:--add\s+channels\s+[\"']?https?://|channel_alias\b)"
        r"|\bhttps?\.proxy\b\s*(?:=\s*|\s+)[\"']?\w+://"
        r"|\burl\.[\"']?(?:https?|git|ssh)://"
        r"(?!(?:[^\s\"'/@]*@)?(?:github\.com|gitlab\.com|bitbucket\.org)[/:\"'])"
        r"[^\s\"']+[\"']?\.insteadof\b"
        r"|\bbundle\s+config\s+(?:set\s+)?(?:--\w+\s+)?mirror\.",
    ),
    _rule(
        "registry, proxy or TLS override of a package manager",
        r"\bGOPROXY\s*=\s*[\"']?(?!(?:https://proxy\.golang\.org|direct|off)"
        r"(?:[,|](?:https://proxy\.golang\.org|direct|off))*[\"']?(?=[\s\"'`;)]|$))\S",
    ),
    _rule(  # a credentials folder or file as what a copy tool sends (not its `-i` key)
        "secrets sent over the network",
        r"\b(?:scp|rsync|rclone\s+(?:copy|sync|move)|(?:aws\s+s3|gsutil|gcloud\s+storage)"
        rf"\s+(?:cp|sync|mv))\b[^\n;|]*?\s(?<!-[iFoSJe]\s)[\"']?(?:{HOMES}/)?\.(?:ssh|aws|gnupg"
        r"|kube|docker|netrc|git-credentials|npmrc|pypirc)\b",
    ),
    _rule(  # a credentials file read, then piped on to the network
        "secrets sent over the network",
        rf"{SENSITIVE}[^\n;]*?\|\s*(?:[^\n;|]*\|\s*)*?(?:sudo\s+)?{NET}",
    ),
    _rule(
        "secrets sent over the network",
        rf"\bwget\b[^\n]*?--post-file[=\s]+[\"']?[^\s\"']*{SENSITIVE}",
    ),
    _rule(
        "reverse shell",
        r"\b(?:nc|ncat|netcat)\b[^\n]*\s--(?:sh-|lua-)?exec\b|\bsocat\b[^\n]*\bsystem:"
        rf"|\b(?:nc|ncat|netcat|telnet|socat)\b[^\n;]*\|\s*{SHELLS}"
        r"|\bsocket\b[^\n]*?(?:\bdup2\b|\bpty\.spawn\b)|\buse socket\b[^\n]*?\bexec\b"
        r"|\bfsockopen\s*\(|\bnet\.sockets\.tcpclient\b",
    ),
    _rule(
        "recursive delete of a root, home or parent folder",
        rf"\bfind\s+{_Q}(?:/|{HOMES}){_Q}/?{_Q}\s(?:[^\n;|&]*\s)?(?:-delete\b|-exec\s+rm\b)"
        r"|\bremove-item\b[^\n;|]*-recurse\b[^\n;|]*\s[\"']?(?:[a-z]:\\?|\$env:(?:userprofile|home"
        r"|systemdrive)|~)[\"']?(?=$|[\s;|)`])",
    ),
    _rule(
        "recursive delete of a root, home or parent folder",
        # one reading of the flags (a lookahead finds the recursive one): no backtracking
        rf"\brm\s+(?=(?:-\S+\s+)*?{RECURSIVE}\s)(?:-\S+\s+)*(?:[^\s;&|-][^\s;&|]*\s+)*?[\"']?"
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
        rf"\b(?:env|printenv|set)\b\s*\|\s*(?:sudo\s+)?{NET}",
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
    r"(?:--(?:extra-)?index-url|--default-index|--index|UV_DEFAULT_INDEX|--registry|--find-links|-f|-i|(?:extra-)?index-url|registry"
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


# A line is scanned in windows of WINDOW characters, each overlapping the next by OVERLAP: the
# rules look ahead along a line from each place a command may start, so a 100 KB line of `curl `
# took a minute. A command up to OVERLAP characters long is seen whole in some window.
WINDOW = 800
OVERLAP = 400


def _windows(text: str) -> str:
    """`text` with each line longer than WINDOW cut into overlapping windows, one a line."""
    if len(text) <= WINDOW or all(len(line) <= WINDOW for line in text.split("\n")):
        return text
    lines = []
    for line in text.split("\n"):
        if len(line) <= WINDOW:
            lines.append(line)
            continue
        step = WINDOW - OVERLAP
        lines += [line[i : i + WINDOW] for i in range(0, len(line) - OVERLAP, step)]
    return "\n".join(lines)


def scan(text: str) -> list[Danger]:
    """Every dangerous command shown in `text`, in order of appearance (time linear in `text`)."""
    found: list[tuple[int, Danger]] = []
    text = _windows(normal(text))
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
