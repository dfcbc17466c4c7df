"""Key names that hold secrets: `DB_PASSWORD`, `apiKey`, `x-api-key`, `_authToken`.

Owns what the name in an assignment or a JSON key says about its value: whether it names a
secret, which kind, and whether its value must also look generated. Invariant: a name is judged
by its segments alone, and each name is worked out once (the answers are cached).
"""

from __future__ import annotations

import functools
import re

# fmt: off
_SECRET_SEGMENTS = frozenset({
    "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "PWD", "APIKEY",
    "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "PRIVKEY", "CREDENTIAL", "CREDENTIALS", "CREDS",
    "AUTH", "AUTHTOKEN", "ACCESSTOKEN", "PAT", "KEY", "PRIVATE", "SIGNATURE", "PSK", "AUTHTOK",
    "PW", "COMMUNITY", "COOKIE", "SALT",
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
    "ACCESSOR", "ENCRYPTION", "ENCODING",
})
# fmt: on
# A KEY after one of these is a lookup key, not a credential.
# fmt: off
_PLAIN_KEYS = frozenset({
    "SORT", "CACHE", "PRIMARY", "FOREIGN", "PARTITION", "PUBLIC", "PUB", "HOT", "IDEMPOTENCY",
    "LOOKUP", "ROUTING", "MAP", "DICT", "GROUP", "UNIQUE", "COMPOSITE", "SHORTCUT", "CONFIG",
    "PUBLISHABLE", "I18N", "TRANSLATION", "OBJECT", "S3", "REDIS",
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
# A name with one of these holds a secret only when its value looks generated: a licence key, an
# SNMP community or an Erlang cookie is a credential when it is `6o8aiqeaZfsEBBTL`, a label when
# it is `MIT` (`COOKIE_SAMESITE=Lax`).
# An application's salt (`SECURITY_SALT`, `hash_salt`) is a secret when it is generated, a
# setting when it is not (`SALT_ROUNDS=10`).
_GENERATED_ONLY = frozenset({"LICENSE", "LICENCE", "COMMUNITY", "COOKIE", "SALT"})
# Words ending in PASS or PW that are not a password (`BYPASS`, `COMPASS`, `getpass()`).
_NOT_PASS_WORDS = frozenset(
    {"BYPASS", "COMPASS", "SURPASS", "OVERPASS", "UNDERPASS", "TRESPASS", "GETPASS", "NOPASS"}
)
# A segment after which the name says the value is published or shared, not secret
# (`NEXT_PUBLIC_POSTHOG_KEY`, `PUBLIC_POSTHOG_PROJECT_KEY`, `PUBLISHABLE_KEY`).
# A LaunchDarkly-style `mobileKey` ships inside the app, as its documentation says.
_PUBLISHED = frozenset({"PUBLIC", "PUBLISHABLE", "PUB", "MOBILE"})
# A first segment that makes the name a reference to a secret held elsewhere (Drone's
# `from_secret: NAME`, Kubernetes' `valueFrom`), or a verb (`read_secret('db/root')`).
_REFERENCE_HEADS = frozenset({"FROM", "GET", "READ", "FETCH", "LOAD", "LOOKUP", "FIND", "HAS"})
_SEGMENT_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


def _segments(name: str) -> list[str]:
    return [s.upper() for s in _SEGMENT_SPLIT.split(name) if s]


def secret_name_kind(name: str) -> str | None:
    """The kind of a key name that holds a secret (`DB_PASSWORD`, `apiKey`), else None."""
    segments = _segments(name)
    if not segments or segments[-1] in _NOT_SECRET_TAILS or _PUBLISHED.intersection(segments):
        return None
    if segments[0] in _REFERENCE_HEADS and len(segments) > 1:
        return None
    hit = False
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1 or segments[i + 1] in _VALUE_TAILS
        if seg == "PASS" and i + 1 < len(segments) and segments[i + 1] == "PHRASE":
            hit = True  # `pass_phrase` (OCI's config) spells PASSPHRASE in two segments
            continue
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
            # `requirepass`, `rpcpass`, `bindpw`, `rootpw`: a password glued to what it opens
            or seg.endswith("COMMUNITY")
            or seg.endswith(("PASS", "PW"))
            and len(seg) > 4
            and seg not in _NOT_PASS_WORDS
        ):
            hit = True
    if not hit:
        return None
    if _ENV_NAME.fullmatch(name) and len(name) > 3:
        return "env-secret"
    if any("PASS" in s or s in ("PWD", "PW") or s.endswith("PW") for s in segments):
        return "password-assignment"
    return "secret-assignment"


def is_weak_name(name: str) -> bool:
    """Whether a value under `name` must also look generated to count (`auth`, `key`,
    `license_key`, `rocommunity`); `auth_pass` (keepalived) names a password outright."""
    segments = _segments(name)
    if _GENERATED_ONLY.intersection(segments) or any(s.endswith("COMMUNITY") for s in segments):
        return True
    return all(s in _WEAK_NAMES for s in segments) and not (
        len(segments) > 1 and segments[-1] == "PASS"
    )


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
HEADER_KIND = "api-key-header"


def named_kind(name: str, value: str) -> str | None:
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


# A key name is looked at only when it holds one of these.
KEYWORDS = (
    "pass", "pwd", "secret", "token", "key", "cred", "auth", "priv", "pat", "signature", "psk",
    "pw", "community", "cookie", "salt",
)  # fmt: skip


@functools.lru_cache(maxsize=4096)
def name_info(name: str) -> tuple[bool, str | None, bool]:
    """(has a keyword, kind of the name, weak name) for an assignment's key."""
    lowered = name.lower()
    if not any(k in lowered for k in KEYWORDS):
        return False, None, False
    return True, secret_name_kind(name), is_weak_name(name)
