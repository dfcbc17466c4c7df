"""Secret redaction and bounding of run snapshots.

Owns the rule table that finds credentials in text, the replacement of each secret by a
`[REDACTED:<kind>]` marker, the cleaning of raw bytes into text and the cutting of long text to a
head and a tail. Invariant: redaction is idempotent (markers are never matched again, nor is the
cut marker), and only the secret value is replaced: key names, URL schemes, users and hosts stay.

Placeholder policy: a value that names a secret instead of carrying it is left alone. That is a
reference (`$TOKEN`, `${TOKEN}`, `${{ secrets.X }}`, `{{ .Values.x }}`, `%TOKEN%`, `<your-token>`,
an existing `[REDACTED:x]`), a mask (`****`, `xxxx`, `npm_xxx`), an elided example (`ghp_...`), a
literal (`null`, `true`, `inherit`, the bare words `password`, `secret`, `token`), a stand-in
(`your-api-key`, `KEY_HERE`), a file path, code (`password: str`, `token = get_token()`), or a
short number (a port, a TTL). A weak but real value such as `changeme`, `hunter2`, or the
`postgres` in `postgres://postgres:postgres@localhost` is redacted: a weak password is still a
password, and a rule that guessed which ones are harmless would leak the ones that are not.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

MARKER = "[REDACTED:{kind}]"
CUT_MARKER = "\n[... {count} characters cut ...]\n"
_MARKER_RE = re.compile(r"\[(?:REDACTED:[a-z0-9-]{1,40}|\.\.\. \d+ characters cut \.\.\.)\]")


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int  # span of the secret value in the input text (the part that gets replaced)


# --- what is not a secret -------------------------------------------------------------------

_REFERENCE = re.compile(
    r"""\$\{\{.*\}\}|\$\{[^}]*\}|\$[A-Za-z_(]|\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|%\([a-z_]+\)s
    |<[^<>]*>|\[REDACTED:|\#\{|@[A-Za-z_]+@|![A-Za-z]|.*(?:\.\.\.|…)$
    |\.{0,2}/[\w.@-]+/|~/|\.\.?/|[A-Za-z]:\\|file:""",
    re.X,
)
# fmt: off
_LITERALS = frozenset({
    "none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off", "empty",
    "n/a", "na", "tbd", "todo", "redacted", "masked", "hidden", "sensitive", "placeholder",
    "secret", "password", "token", "str", "string", "bytes", "int", "bool", "number", "any",
    "secretstr", "optional", "object", "unknown", "required", "inherit", "default", "auto",
})
# fmt: on
_STANDIN = re.compile(r"(?i)^(?:your|my|insert|enter|replace|put)[-_ ]|[-_ ](?:here|goes)$")


_RUN = re.compile(r"(.)\1{2,}")


def _is_mask(value: str) -> bool:
    """Mostly one character repeated: `****`, `xxxxxxxx`, `npm_xxx`, `0000-0000`."""
    if len(value) < 3:
        return True
    top = max(value.count(c) for c in set(value))
    if top * 10 >= len(value) * 6:
        return True
    longest = max((len(m.group()) for m in _RUN.finditer(value)), default=0)
    return longest * 10 >= len(value) * 4


def _is_placeholder(value: str) -> bool:
    """True when `value` names or masks a secret instead of carrying one (policy: module doc)."""
    value = value.strip().strip("\"'")
    if len(value) < 3 or value.lower() in _LITERALS:
        return True
    if _REFERENCE.match(value) or _STANDIN.search(value):
        return True
    if value.isdigit() and len(value) < 8:
        return True
    return _is_mask(value)


def _is_random(value: str) -> bool:
    """A token body looks generated: it mixes letters and digits."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _is_strong(value: str) -> bool:
    """A bare value in prose counts only if it looks like a credential rather than a word."""
    if len(value) >= 20:
        return True
    return len(value) >= 6 and (
        any(c.isdigit() for c in value) or any(c in "!@#$%^&*+=/~?" for c in value)
    )


_CODE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|.*[(\[].*")


def _is_code(value: str) -> bool:
    """`self.token`, `getpass()`, `Optional[str]`: an expression, not a literal."""
    return bool(_CODE.fullmatch(value))


# --- key names --------------------------------------------------------------------------------

# fmt: off
_SECRET_SEGMENTS = frozenset({
    "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "PWD", "APIKEY",
    "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "PRIVKEY", "CREDENTIAL", "CREDENTIALS", "CREDS",
    "AUTH", "AUTHTOKEN", "ACCESSTOKEN", "PAT", "KEY", "PRIVATE", "SIGNATURE",
})
# fmt: on
# Names ending so describe a secret (its id, file, lifetime) without holding it.
# fmt: off
_NOT_SECRET_TAILS = frozenset({
    "ID", "IDS", "NAME", "NAMES", "PATH", "FILE", "DIR", "URL", "URI", "ENDPOINT", "HOST",
    "PORT", "USER", "USERNAME", "EMAIL", "REGION", "TYPE", "LENGTH", "SIZE", "TTL", "EXPIRY",
    "EXPIRES", "EXPIRATION", "ALGORITHM", "ALG", "HEADER", "PREFIX", "VERSION", "ENABLED",
    "MODE", "COUNT", "MAX", "MIN", "TIMEOUT", "LIMIT", "SOCK", "ISSUER", "AUDIENCE", "SCOPE",
    "SCOPES", "METHOD", "PROVIDER", "DOMAIN", "HASH", "POLICY", "FORMAT", "LOCATION", "ARN",
    "REF", "STDIN", "RESET", "REQUIRED", "FIELD", "LABEL", "HINT", "PROMPT", "KIND", "ERROR",
})
# fmt: on
# A KEY after one of these is a lookup key, not a credential.
# fmt: off
_PLAIN_KEYS = frozenset({
    "SORT", "CACHE", "PRIMARY", "FOREIGN", "PARTITION", "PUBLIC", "PUB", "HOT", "IDEMPOTENCY",
    "LOOKUP", "ROUTING", "MAP", "DICT", "GROUP", "UNIQUE", "COMPOSITE", "SHORTCUT", "CONFIG",
    "LICENSE", "I18N", "TRANSLATION", "OBJECT", "S3", "REDIS",
})
# fmt: on
# A weak segment names a secret only at the end of a name (`API_KEY`, not `KeyError`) or before
# one of these (`CLIENT_KEY_DATA`); alone (`auth: ...`) its value must also look generated.
# fmt: off
_VALUE_TAILS = frozenset({
    "DATA", "VALUE", "B64", "BASE64", "BASE", "STRING", "RAW", "HEX", "PEM",
})
# fmt: on
_WEAK_NAMES = frozenset({"AUTH", "PASS", "KEY", "PRIVATE", "PAT", "SIGNATURE", "SECRETS"})
_SEGMENT_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


def _segments(name: str) -> list[str]:
    return [s.upper() for s in _SEGMENT_SPLIT.split(name) if s]


def _secret_name_kind(name: str) -> str | None:
    """The kind of a key name that holds a secret (`DB_PASSWORD`, `apiKey`), else None."""
    segments = _segments(name)
    if not segments or segments[-1] in _NOT_SECRET_TAILS:
        return None
    hit = False
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1 or segments[i + 1] in _VALUE_TAILS
        if seg in _WEAK_NAMES and not last:
            continue
        if seg == "KEY" and (len(segments) == 1 and not name.isupper()):
            continue
        if seg == "KEY" and i and segments[i - 1] in _PLAIN_KEYS:
            continue
        if (
            seg in _SECRET_SEGMENTS
            or "PASSWORD" in seg
            or "PASSWD" in seg
            or "SECRET" in seg
            or seg.endswith("TOKEN")
            and not seg.startswith("TOKENI")
        ):
            hit = True
    if not hit:
        return None
    if _ENV_NAME.fullmatch(name) and len(name) > 3:
        return "env-secret"
    if any("PASS" in s or s == "PWD" for s in segments):
        return "password-assignment"
    return "secret-assignment"


def _is_weak_name(name: str) -> bool:
    return all(s in _WEAK_NAMES for s in _segments(name))


# Key names whose values have a kind of their own, with the shape that value must have.
_NAMED_VALUES = [
    (
        re.compile(r".*(?:secret[_-]?access[_-]?key|aws[_-]?secret[_-]?(?:access[_-]?)?key)"),
        re.compile(r"[A-Za-z0-9/+]{40}"),
        "aws-secret-key",
    ),
    (
        re.compile(r".*(?:session|security)[_-]?token"),
        re.compile(r"[A-Za-z0-9/+=]{100,}"),
        "aws-session-token",
    ),
    (
        re.compile(r"twilio.*(?:auth[_-]?token|secret)"),
        re.compile(r"[0-9a-f]{32}"),
        "twilio-auth-token",
    ),
    (
        re.compile(r"heroku.*(?:api[_-]?key|token)"),
        re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        "heroku-key",
    ),
    (re.compile(r"_auth|_authtoken|_password"), None, "npmrc-auth"),
    (
        re.compile(
            r"x-api-key|api-key|x-auth-token|private-token|x-access-token|x-goog-api-key"
            r"|ocp-apim-subscription-key|x-functions-key|x-vault-token|x-figma-token"
            r"|x-shopify-access-token|x-dd-api-key|x-dd-application-key"
        ),
        None,
        "api-key-header",
    ),
]
_HEADER_KIND = "api-key-header"


def _named_kind(name: str, value: str) -> str | None:
    """The specific kind for `value` under key `name`, if the pair has one."""
    for value_re, kind in _named_rules(name):
        if value_re is None or value_re.fullmatch(value):
            return kind
    return None


# Key names repeat (a config, an env dump); what a name says is worked out once per name.
@functools.lru_cache(maxsize=4096)
def _named_rules(name: str) -> tuple[tuple[re.Pattern[str] | None, str], ...]:
    lowered = name.lower()
    return tuple((v, kind) for n, v, kind in _NAMED_VALUES if n.fullmatch(lowered))


@functools.lru_cache(maxsize=4096)
def _name_info(name: str) -> tuple[bool, str | None, bool]:
    """(has a keyword, kind of the name, weak name) for an assignment's key."""
    lowered = name.lower()
    if not any(k in lowered for k in _KEYWORDS):
        return False, None, False
    return True, _secret_name_kind(name), _is_weak_name(name)


# --- the rule table ---------------------------------------------------------------------------

Check = Callable[[str, "re.Match[str]", str], "str | None"]
_NEAR = 200  # how far a rule looks around a match for its line; keeps long lines linear
_DOC_MAX = 65536  # how far a Kubernetes Secret manifest may reach from its `kind: Secret`


def _line_before(text: str, pos: int) -> str:
    """The text from the start of `pos`'s line to `pos`, at most its last `_NEAR` characters."""
    start = max(pos - _NEAR, 0)
    newline = text.rfind("\n", start, pos)
    return text[newline + 1 if newline >= 0 else start : pos]


_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True)
class _Rule:
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
            if self.bounded and m.start() and text[m.start() - 1] in _WORD:
                continue
            group = next((g for g in groups if m.group(g) is not None), None)
            start, end = _trim(text, *(m.span(group) if group else m.span()))
            value = text[start:end]
            kind = self.check(value, m, text) if self.check else self.kind
            if kind and (self.check or not _is_mask(value)):
                yield kind, start, end


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a value.

    An ellipsis stays: `ghp_...` is an elided example, which `_is_placeholder` recognises.
    """
    while end > start and text[end - 1] in ")]}.:" and not text.endswith("..", start, end):
        closer = text[end - 1]
        opener = {")": "(", "]": "[", "}": "{"}.get(closer)
        if opener and text.count(opener, start, end) >= text.count(closer, start, end):
            break
        end -= 1
    return start, end


def _rule(
    kind: str, pattern: str, needles: str = "", check: Check | None = None, bounded: bool = False
) -> _Rule:
    words = tuple(needles.lower().split()) or _lead(pattern)
    return _Rule(kind, pattern, words, check, bounded)


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


def _when(test: Callable[[str], bool], kind: str) -> Check:
    return lambda value, m, text: kind if test(value) and not _is_mask(value) else None


def _unless_placeholder(kind: str) -> Check:
    return lambda value, m, text: None if _is_placeholder(value) else kind


def _pem_in_base64(value: str) -> bool:
    try:
        import base64  # only for the rare value that looks like a base64 PEM block

        head = base64.b64decode(value[:64] + "=" * (-len(value[:64]) % 4))
    except ValueError:  # binascii.Error is a ValueError
        return False
    return b"PRIVATE KEY" in head


def _discord_id(value: str) -> bool:
    """The first part of a Discord bot token is a user id (digits) in base64."""
    first = value.split(".", 1)[0]
    try:
        import base64

        return base64.b64decode(first + "=" * (-len(first) % 4), validate=True).isdigit()
    except ValueError:  # binascii.Error is a ValueError
        return False


def _sentry_host(value: str, m: re.Match[str], text: str) -> str | None:
    host = m.group("host").lower()
    return "sentry-dsn" if "sentry" in host or "ingest" in host else None


def _url_param(value: str, m: re.Match[str], text: str) -> str | None:
    if _is_placeholder(value):
        return None
    if m.group("name").lower() in ("key", "auth", "sig", "signature") and not _is_random(value):
        return None
    return "url-secret-param"


_SCHEMES = {"bearer": "bearer-token", "basic": "basic-auth"}
_NOT_CREDENTIALS = frozenset(
    {"bearer", "basic", "token", "digest", "aws4-hmac-sha256", "negotiate"}
)


def _auth_header(value: str, m: re.Match[str], text: str) -> str | None:
    if value.lower() in _NOT_CREDENTIALS or _is_placeholder(value):
        return None
    return _SCHEMES.get((m.group("scheme") or "").lower(), "auth-header")


def _bearer(value: str, m: re.Match[str], text: str) -> str | None:
    return "bearer-token" if _is_random(value) and not _is_placeholder(value) else None


def _at_line_start(kind: str) -> Check:
    """For headers as curl -v prints them: only prompt marks or spaces before the name."""

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        line = _line_before(text, m.start())
        if line.strip(" \t<>*") or _is_placeholder(value):
            return None
        return kind

    return check


def _on_curl_line(value: str, m: re.Match[str], text: str) -> str | None:
    line = _line_before(text, m.start()).lower()
    if not any(tool in line for tool in ("curl", "wget", "http")) or _is_placeholder(value):
        return None
    return "cli-password"


_QUOTED_OR_BARE = (
    r"""(?:"(?P<vd>[^"\n]{1,1000})"|'(?P<vs>[^'\n]{1,1000})'"""
    r"""|(?P<vb>[^\s"'`<>,;&\[({|-][^\s"'`<>,;&|]{0,1000}))"""
)
_E = r"(?![A-Za-z0-9_])"  # token end
_ED = r"(?![A-Za-z0-9_-])"  # token end where the alphabet has '-'
_CLI = _unless_placeholder("cli-password")


def _tok(prefix: str, rest: str) -> str:
    """A token pattern: literal-led, with the word boundary as a lookbehind after the prefix.

    A lookbehind first would cost the regex engine its fast skip to the literal; re-checking the
    prefix this way also keeps a run like `eyJeyJeyJ...` from being rescanned at every `eyJ`.
    """
    return prefix + r"(?<![A-Za-z0-9_]" + prefix + ")" + rest


# Order is priority: a vendor format names a secret better than the context around it does.
# fmt: off
_RULES = [
    _rule("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    _rule(
        "private-key",
        _tok("LS0tLS1CRUdJTi", r"[A-Za-z0-9+/]{20,8192}={0,2}"),
        "",
        _when(_pem_in_base64, "private-key"),
    ),
    _rule("aws-access-key", _tok(r"A(?:KIA|SIA|BIA|CCA)", r"[A-Z0-9]{16}" + _E)),
    _rule(
        "aws-secret-key",
        _tok(r"A(?:KIA|SIA)",
             r"[A-Z0-9]{16}[ \t]*[,:;|][ \t]*(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
    ),
    _rule("gcp-api-key", _tok("AIza", r"[0-9A-Za-z_-]{35}" + _ED)),
    _rule("google-oauth-token", _tok(r"ya29\.", r"[0-9A-Za-z_-]{20,4096}" + _ED)),
    _rule("google-oauth-token", _tok("1//0", r"[0-9A-Za-z_-]{40,1024}" + _ED)),
    _rule("google-client-secret", _tok("GOCSPX-", r"[0-9A-Za-z_-]{28}" + _ED)),
    _rule(
        "azure-storage-key",
        r"(?:AccountKey|SharedAccessKey)=(?P<v>[A-Za-z0-9+/]{20,1024}={0,2})",
    ),
    _rule("digitalocean-token", _tok("do[opr]_v1_", r"[a-f0-9]{64}" + _E)),
    _rule("github-token", _tok("gh[pousr]_", r"[A-Za-z0-9]{36,255}" + _E)),
    _rule("github-token", _tok("github_pat_", r"[A-Za-z0-9_]{50,255}" + _E)),
    _rule(
        "gitlab-token",
        _tok("gl", r"(?:pat|dt|rt|ptt|cbt|soat|ft|imt|oas|agent)-[A-Za-z0-9_-]{20,255}"
                   r"(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?" + _ED),
    ),
    _rule("gitlab-token", _tok("GR1348941", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    _rule("bitbucket-token", _tok("ATBB", r"[A-Za-z0-9]{28,255}" + _E)),
    _rule("atlassian-token", _tok("AT(?:ATT|CTT)3", r"[A-Za-z0-9_=-]{20,1024}" + _ED)),
    _rule("slack-token", _tok("xox[abposer]-", r"[A-Za-z0-9-]{10,255}" + _ED)),
    _rule("slack-token", _tok("xapp-", r"\d-[A-Z0-9]{1,32}-\d{1,32}-[a-f0-9]{1,128}" + _E)),
    _rule(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{20,255})",
    ),
    _rule(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/\d{1,32}/(?P<v>[A-Za-z0-9_-]{60,70})" + _ED,
    ),
    _rule(
        "discord-token",
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}" + _ED,
        "",
        _when(_discord_id, "discord-token"),
        True,
    ),
    _rule("telegram-bot-token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}" + _ED, ":aa", None, True),
    _rule("stripe-key", _tok("[sr]k_", r"(?:live|test)_[A-Za-z0-9]{24,247}" + _E)),
    _rule("stripe-webhook-secret", _tok("whsec_", r"[A-Za-z0-9+/=]{32,255}")),
    _rule("square-token", _tok("EAAA", r"[A-Za-z0-9_-]{60}" + _ED)),
    _rule("square-token", _tok("sq0", r"(?:atp|csp|idp)-[A-Za-z0-9_-]{22,43}" + _ED)),
    _rule("braintree-token", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    _rule("anthropic-key", _tok("sk-ant-", r"(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{32,255}" + _ED)),
    _rule("openrouter-key", _tok("sk-or-v1-", r"[a-f0-9]{64}" + _E)),
    _rule("openai-key", _tok("sk-", r"(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,255}" + _ED)),
    _rule(
        "openai-key",
        _tok("sk-", r"[A-Za-z0-9]{32,255}" + _E),
        "",
        _when(_is_random, "openai-key"),
    ),
    _rule(
        "huggingface-token",
        _tok("hf_", r"[A-Za-z0-9]{30,40}" + _E),
        "",
        _when(_is_random, "huggingface-token"),
    ),
    _rule(
        "huggingface-token",
        _tok("api_org_", r"[A-Za-z0-9]{30,40}" + _E),
        "",
        _when(_is_random, "huggingface-token"),
    ),
    _rule("groq-key", _tok("gsk_", r"[A-Za-z0-9]{48,56}" + _E)),
    _rule("replicate-token", _tok("r8_", r"[A-Za-z0-9]{37}" + _E)),
    _rule("perplexity-key", _tok("pplx-", r"[A-Za-z0-9]{40,60}" + _E)),
    _rule("xai-key", _tok("xai-", r"[A-Za-z0-9]{60,100}" + _E)),
    _rule("langsmith-key", _tok("lsv2_", r"(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _E)),
    _rule("tavily-key", _tok("tvly-", r"(?:dev-|prod-)?[A-Za-z0-9]{28,40}" + _E)),
    _rule("npm-token", _tok("npm_", r"[A-Za-z0-9]{36}" + _E)),
    _rule("pypi-token", _tok("pypi-AgE", r"[A-Za-z0-9_-]{50,1024}" + _ED)),
    _rule("docker-token", _tok("dckr_", r"(?:pat|oat)_[A-Za-z0-9_-]{20,255}" + _ED)),
    _rule("fly-token", _tok("fo1_", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    _rule("fly-token", r"FlyV1[ \t]+(?P<v>fm\d[a-z]?_[A-Za-z0-9+/=,_-]{20,4096})"),
    _rule("fly-token", _tok("fm[12]", r"[ar]?_[A-Za-z0-9+/=]{40,4096}")),
    _rule("heroku-key", _tok("HRKU-", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    _rule("twilio-api-key", _tok("SK", r"[0-9a-f]{32}" + _E)),
    _rule("twilio-sid", _tok("AC", r"[0-9a-f]{32}" + _E)),
    _rule("sendgrid-key", _tok(r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _ED)),
    _rule(
        "mailgun-key",
        r"key-(?<![\w-]key-)[0-9a-z]{32}" + _E,
        "",
        _when(_is_random, "mailgun-key"),
    ),
    _rule("mailchimp-key", r"[0-9a-f]{32}-us[0-9]{1,2}" + _E, "-us", None, True),
    _rule("shopify-token", _tok("shp", r"(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _E)),
    _rule(
        "jwt",
        _tok("eyJ", r"[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}"
             + _ED),
    ),
    _rule("vault-token", _tok(r"hv[sbr]\.", r"[A-Za-z0-9_-]{24,255}" + _ED)),
    _rule(
        "terraform-token",
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,255}" + _ED,
        "atlasv1",
        None,
        True,
    ),
    _rule("grafana-token", _tok("glsa_", r"[A-Za-z0-9]{32}_[a-f0-9]{8}" + _E)),
    _rule("grafana-token", _tok("glc_", r"[A-Za-z0-9+/]{32,1024}={0,2}")),
    _rule("sentry-token", _tok("sntry[su]_", r"[A-Za-z0-9+/=_]{40,1024}")),
    _rule("supabase-token", _tok("sbp_", r"[a-f0-9]{40}" + _E)),
    _rule("supabase-token", _tok("sb_secret_", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    _rule("databricks-token", _tok("dapi", r"[a-f0-9]{32}(?:-\d)?" + _E)),
    _rule("planetscale-token", _tok("pscale_", r"(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,255}")),
    _rule("pulumi-token", _tok("pul-", r"[a-f0-9]{40}" + _E)),
    _rule("linear-key", _tok("lin_", r"(?:api|oauth)_[A-Za-z0-9]{40}" + _E)),
    _rule(
        "notion-token",
        _tok("ntn_", r"[A-Za-z0-9]{40,50}" + _E),
        "",
        _when(_is_random, "notion-token"),
    ),
    _rule(
        "notion-token",
        _tok("secret_", r"[A-Za-z0-9]{43}" + _E),
        "",
        _when(_is_random, "notion-token"),
    ),
    _rule("postman-key", _tok("PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}" + _E)),
    _rule("doppler-token", _tok(r"dp\.", r"(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _E)),
    _rule("newrelic-key", _tok("NRAK-", r"[A-Z0-9]{27}" + _E)),
    _rule("netlify-token", _tok("nfp_", r"[A-Za-z0-9]{36}" + _E)),
    # Context: the secret is recognised by what stands next to it.
    _rule(
        "sentry-dsn",
        r"://(?P<v>[0-9a-f]{32}(?::[0-9a-f]{32})?)@(?P<host>[A-Za-z0-9.-]+)",
        "",
        _sentry_host,
    ),
    _rule(
        "url-credentials",
        r"://[^\s:/@?#\"'<>]*:(?P<v>[^\s/?\"'<>]+)@(?=[\w\[])",
        "",
        _unless_placeholder("url-credentials"),
    ),
    _rule(
        "url-secret-param",
        r"[?&](?P<name>(?i:access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|cl"
        r"ient_secret|secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-security-toke"
        r"n|session_token|private_token|auth))=(?P<v>[^&\s#\"'<>]+)",
        "=",
        _url_param,
    ),
    _rule(
        "auth-header",
        r"[Aa](?i:uthorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?P<scheme>(?i:bearer|basic|token|bo"
        r"t|apikey|api-key|key|sso-key|otp))[ \t]+)?(?P<v>[^\s\"',;]+)",
        "authorization",
        _auth_header,
    ),
    _rule("bearer-token", r"[Bb]earer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)", "bearer", _bearer),
    _rule("cookie", r"[Cc](?i:ookie):[ \t]*(?P<v>[^\r\n]+)", "cookie", _at_line_start("cookie")),
    _rule(
        "cookie",
        r"[Ss](?i:et-cookie):[ \t]*[^=;\s]+=(?P<v>[^;\s]+)",
        "set-cookie",
        _at_line_start("cookie"),
    ),
    _rule(
        "cli-password",
        r"-(?<![\w-]-)-?(?:password|passwd|pass|token|api-key|apikey|auth-token|access-token|clien"
        r"t-secret|secret-key|access-key|api-token|oauth-token|bot-token|private-token)(?:=|[ \t]+"
        r")" + _QUOTED_OR_BARE,
        "--",
        _CLI,
    ),
    _rule(
        "cli-password",
        r"(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|regctl)[ \t]+(?:[\w-]+[ \t]+)?lo"
        r"gin\b[^\n|;&]{0,200}?[ \t]-p[ \t]+" + _QUOTED_OR_BARE,
        "login",
        _CLI,
    ),
    _rule(
        "cli-password",
        r"(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh|mysqlimport|mysqlcheck)\b[^\n|;&]{0,200}?["
        r" \t]-p(?:'(?P<vs>[^'\n]+)'|\"(?P<vd>[^\"\n]+)\"|(?P<vb>[^\s'\"-]\S*))",
        "mysql mariadb",
        _CLI,
    ),
    _rule("cli-password", r"sshpass[ \t]+-p[ \t]*" + _QUOTED_OR_BARE, "", _CLI),
    _rule(
        "cli-password",
        r"-(?<![\w-]-)(?:u|-user)[ \t]+[\"']?[^\s:\"'@]+:(?P<v>[^\s\"'@]+)",
        "-u --user",
        _on_curl_line,
    ),
    _rule(
        "netrc-password",
        r"login[ \t]+\S+[ \t\r\n]+password[ \t]+(?P<v>\S+)",
        "",
        _unless_placeholder("netrc-password"),
    ),
]
# fmt: on

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----")
# A block cut short (by `head`, by a log limit): its header lines and base64 lines.
_PEM_LINES = re.compile(
    r"(?:(?:\\r)?(?:\\n|\r?\n)[ \t]*(?:[A-Za-z-]+: [^\r\n\\]*|[A-Za-z0-9+/=]{16,}))+"
)
_PEM_MAX = 16384


def _scan_private_keys(text: str) -> Iterator[tuple[str, int, int]]:
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
        if end is not None:
            pos = end.end()
            yield "private-key", begin.start(), pos


_AZURE_SECRET = re.compile(r"Q~[\w~.-]{31,34}(?![\w~.-])")
_AZURE_CHARS = _WORD | frozenset("~.-")


def _scan_azure_secrets(text: str) -> Iterator[tuple[str, int, int]]:
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

# Found separator first: `=` and `:` are rarer than the letters a key name starts with.
# Found separator first: `=` and `:` are rarer than the letters a key name starts with. The
# value is matched only once the name before it qualifies, so most separators cost next to nothing.
_SEPARATOR = re.compile(r":=|=>|=|:")
_VALUE = re.compile(r"[ \t]*" + _QUOTED_OR_BARE)
_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "priv", "pat", "signature")
_NAME_CHARS = _WORD | frozenset(".-")
_LINE_START = re.compile(
    r"[ \t]*(?:[-*+>][ \t]+)?(?:export[ \t]+|set[ \t]+|ENV[ \t]+|\$env:)?[{\[ \t\"',]*"
)
_REST_OF_LINE = re.compile(r"[ \t,;)}\]\r]*(?:#.*)?")


def _name_before(text: str, pos: int) -> tuple[int, int]:
    """Span of the key name that ends just before `pos` (skipping blanks and a closing quote)."""
    end = pos
    while end and text[end - 1] in " \t":
        end -= 1
    if end and text[end - 1] in "\"'":
        end -= 1
    start = end
    while start and end - start < 100 and text[start - 1] in _NAME_CHARS:
        start -= 1
    if start and text[start - 1] == "\\" and text[start] in "nrt":
        start += 1  # JSON-escaped text: `\nPGPASSWORD=` names PGPASSWORD
    return start, end


def _scan_assignments(text: str) -> Iterator[tuple[str, int, int]]:
    covered = 0  # separators inside a value already found are not looked at again
    for sep in _SEPARATOR.finditer(text):
        if sep.start() < covered:
            continue
        start, end = _name_before(text, sep.start())
        name = text[start:end].lstrip("-.")
        keyword, name_kind, weak = _name_info(name) if name else (False, None, False)
        if not keyword or (start and text[start - 1] == "$"):
            continue
        m = _VALUE.match(text, sep.end())
        if m is None:
            continue
        group = "vd" if m.group("vd") is not None else "vs" if m.group("vs") is not None else "vb"
        vstart, vend = _trim(text, *m.span(group))
        value = text[vstart:vend]
        kind = _named_kind(name, value)
        if kind and kind != _HEADER_KIND:
            if not _is_placeholder(value):
                covered = vend
                yield kind, vstart, vend
            continue
        kind = kind or name_kind
        if kind is None or _is_placeholder(value):
            continue
        if weak and not _is_random(value):
            continue
        if group == "vb" and not _bare_value_counts(text, (start, end), sep, kind, (vstart, vend)):
            continue
        covered = vend
        yield kind, vstart, vend


def _bare_value_counts(
    text: str, name: tuple[int, int], m: re.Match[str], kind: str, value: tuple[int, int]
) -> bool:
    """An unquoted value: lenient in `NAME=value` and in config lines, strict in prose."""
    literal = text[value[0] : value[1]]
    shell_style = kind == "env-secret" and m.group() == "=" and m.start() == name[1]
    if shell_style:
        return True
    if _is_code(literal):
        return False
    if kind == _HEADER_KIND:
        return True
    # `password: hunter2` alone on its line is config; `Password: see the vault` is prose.
    rest = text[value[1] : value[1] + _NEAR]
    rest = rest[: rest.find("\n")] if "\n" in rest else rest
    in_config = _LINE_START.fullmatch(_line_before(text, name[0])) and _REST_OF_LINE.fullmatch(rest)
    return bool(in_config) or _is_strong(literal)


_XML = re.compile(
    r"<(?P<key>[\w.:-]*(?i:password|passwd|secret|token|apikey|api-key|api_key|passphrase))>"
    r"(?P<v>[^<\s][^<\n]{0,500}?)</"
)


def _scan_xml(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _XML.finditer(text):
        kind = _secret_name_kind(m.group("key"))
        if kind and not _is_placeholder(m.group("v")):
            yield kind, *m.span("v")


# --- Kubernetes Secret manifests: every value under data/stringData -----------------------------

_K8S_SECRET = re.compile(r"kind:[ \t]*Secret[ \t]*$", re.M)
_K8S_DATA = re.compile(r"^(?P<indent>[ \t-]*)(?:data|stringData):[ \t]*$", re.M)
_K8S_ITEM = re.compile(
    r"(?P<indent>[ \t]+)[\w.-]+:[ \t]*[\"']?(?P<v>[^\s\"'|>][^\"'\r\n]*?)[\"']?[ \t]*$", re.M
)


def _scan_k8s_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    done = 0  # end of the last manifest scanned: each stretch of text is scanned once
    for doc in _K8S_SECRET.finditer(text):
        if doc.start() < done or _line_before(text, doc.start()).strip(" \t-"):
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
                if not item or len(item.group("indent")) <= depth:
                    break
                if not _is_placeholder(item.group("v")):
                    yield "k8s-secret", *item.span("v")
                pos = item.end() + 1


@dataclass(frozen=True)
class _Finder:
    needles: tuple[str, ...]
    scan: Callable[[str], Iterator[tuple[str, int, int]]]


_FINDERS = (
    [_Finder(("-----begin",), _scan_private_keys)]
    + [_Finder(rule.needles, rule.scan) for rule in _RULES]
    + [
        _Finder(("q~",), _scan_azure_secrets),
        _Finder(("kind:",), _scan_k8s_secrets),
        _Finder(("</",), _scan_xml),
        _Finder(_KEYWORDS, _scan_assignments),
    ]
)


# --- public interface -------------------------------------------------------------------------


def find_secrets(text: str) -> list[Finding]:
    """Every secret in `text`, non-overlapping, sorted by start; existing markers are skipped."""
    if not text:
        return []
    lowered = text.lower()
    starts: list[int] = []
    ends: list[int] = []
    for m in _MARKER_RE.finditer(text):
        starts.append(m.start())
        ends.append(m.end())
    found: list[Finding] = []
    for finder in _FINDERS:
        if finder.needles and not any(n in lowered for n in finder.needles):
            continue
        for kind, start, end in finder.scan(text):
            i = bisect.bisect_right(starts, start)
            if end <= start or (i and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
                continue
            starts.insert(i, start)
            ends.insert(i, end)
            found.append(Finding(kind, start, end))
    found.sort(key=lambda f: f.start)
    return found


def redact(text: str) -> tuple[str, list[str]]:
    """Replace each secret by `[REDACTED:<kind>]`; return the text and the kinds, in order."""
    findings = find_secrets(text)
    if not findings:
        return text, []
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(MARKER.format(kind=f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), [f.kind for f in findings]


def redact_value(value: object) -> tuple[object, list[str]]:
    """A redacted deep copy of JSON-like data (strings in values and keys) and the kinds found.

    A string under a key that names a secret (`{"DB_PASSWORD": "..."}`) is replaced whole, since
    the key that gives it away is not part of the string.
    """
    kinds: list[str] = []
    return _redact_any(value, kinds, None), kinds


def _redact_any(value: Any, kinds: list[str], key_kind: str | None) -> Any:
    if isinstance(value, str):
        text, found = redact(value)
        if not found and key_kind and "\n" not in value and not _is_placeholder(value):
            found, text = [key_kind], MARKER.format(kind=key_kind)
        kinds.extend(found)
        return text
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name_kind = None
            if isinstance(key, str):
                name_kind = _key_kind(key, item)
                key, found = redact(key)
                kinds.extend(found)
            out[key] = _redact_any(item, kinds, name_kind)
        return out
    if isinstance(value, (list, tuple)):
        items = [_redact_any(item, kinds, key_kind) for item in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _key_kind(key: str, item: object) -> str | None:
    """The kind a string under dict key `key` gets when it holds no recognisable secret itself."""
    if isinstance(item, str):
        named = _named_kind(key, item)
        if named:
            return named
    kind = _secret_name_kind(key)
    if kind and _is_weak_name(key) and not (isinstance(item, str) and _is_random(item)):
        return None
    return kind


_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\r\f\b\x1b") + b"\x7f"
_SURROGATES = re.compile("[\ud800-\udfff]")


def to_text(data: bytes | str) -> str:
    """Clean text: bytes decoded as UTF-8 (bad sequences replaced), binary summarised, NULs gone.

    Bytes count as binary when they hold a NUL, more than 30% control bytes, or decode to more
    than 30% replacement characters. A str loses NULs; lone surrogates become U+FFFD.
    """
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            data = _SURROGATES.sub("\ufffd", data)
        return data.replace("\x00", "") if "\x00" in data else data
    size = len(data)
    controls = size - len(data.translate(None, _CONTROL_BYTES))
    if b"\x00" in data or controls * 10 > size * 3:
        return f"[binary data: {size} bytes]"
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") * 10 > len(text) * 3:
        return f"[binary data: {size} bytes]"
    return text


def bound_text(text: str, head: int, tail: int) -> str:
    """`text` cut to its first `head` and last `tail` characters with a marker counting the cut.

    A cut never splits a `[REDACTED:...]` marker: the kept parts shrink to leave it out whole.
    """
    if head < 0 or tail < 0:
        raise ValueError("head and tail must not be negative")
    if len(text) <= head + tail:
        return text
    cut_from, cut_to = head, len(text) - tail
    for m in _MARKER_RE.finditer(text, max(cut_from - 64, 0), min(cut_from + 64, len(text))):
        if m.start() < cut_from < m.end():
            cut_from = m.start()
    for m in _MARKER_RE.finditer(text, max(cut_to - 64, 0), min(cut_to + 64, len(text))):
        if m.start() < cut_to < m.end():
            cut_to = m.end()
    removed = cut_to - cut_from
    return text[:cut_from] + CUT_MARKER.format(count=removed) + text[cut_to:]
