"""What is not a secret: the placeholder policy and the value shapes the rules rely on.

Owns the judgement of a candidate value on its own, without the text around it. Invariant: these
are pure predicates on a string; no rule decides by itself that a value is a placeholder.

Placeholder policy: a value that names a secret instead of carrying it is left alone. That is a
reference (`$TOKEN`, `${TOKEN}`, `${{ secrets.X }}`, `{{ .Values.x }}`, `%TOKEN%`, `<your-token>`,
`%{hiera('x')}`, TeamCity's `credentialsJSON:...`, systemd's `ID:/path/file`, an existing
`[REDACTED:x]`), an encrypted value (Maven's `{...=}`), a mask (`****`, `xxxx`, `npm_xxx`), an
elided example (`ghp_...`), a literal (`null`, `true`, `inherit`, the bare words `password`,
`secret`, `token`), a stand-in (`your-api-key`, `KEY_HERE`, `myPassword`), a file path, code
(`password: str`, `token = get_token()`), or a short number (a port, a TTL). A weak but real
value such as `changeme`, `hunter2`, or the `postgres` in `postgres://postgres:postgres@localhost`
is redacted: a weak password is still a password, and a rule that guessed which ones are
harmless would leak the ones that are not.
"""

from __future__ import annotations

import re

_REFERENCE = re.compile(
    r"""\$\{\{.*\}\}|\$\{[^}]*\}|\$[A-Za-z_({]|\{[A-Za-z_][\w.-]{0,60}\}|\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|%\([a-z_]+\)s
    |<[^<>]*>|【[^【】\n]{1,60}】|〈[^〈〉\n]{1,60}〉|\[(?:REDACTED|FILTERED|MASKED|HIDDEN)[:\]]|.*(?:\.\.\.|…)|\#\{|@[A-Za-z_]+@|![A-Za-z][A-Za-z:]*(?:\s|\Z)|.*(?:\.\.\.|…)$
    |\.{0,2}/[\w.@-]+/|~/|\.\.?/|[A-Za-z]:\\|file:
    |%\{|credentialsJSON:|[\w.@-]{1,60}:/(?!/)[\w.@-]+/|\{[A-Za-z0-9+/]{10,}={0,2}\}$
    |@(?:vault|format|jinja|get)(?:[ \t]|$)|op://[^/\s]{1,100}/|[A-Za-z][\w-]{0,40}=\$[A-Za-z_{(]
    |\$\$(?:[A-Z_][A-Z0-9_]{0,100}\Z|\{)|@\{[\w-]{1,60}:[\w.-]{1,100}\}|env:[A-Za-z_]\w{0,100}\Z
    |[a-z][\w-]{0,60}(?:/[\w-]{1,60}){1,8}:[a-z][\w-]{0,60}\Z
    |vault:[\w.-]{1,60}/|projects/[\w.-]{1,100}/secrets/[\w.-]|@Microsoft\.KeyVault\(
    |(?:vault|awssm|gcpsm|azkv|doppler|infisical|bws|keyring|secretsmanager|ssm)://
    |[^\s<>]{1,80}[:=\ ]<[A-Za-z][\w\ -]{0,40}>\Z""",
    re.X,
)
# A header or key name, then `<secret>` (`x-rundeck-auth-token:<secret>`): the value's tail
# names what goes there. A reference is also a name in the corner brackets Japanese and
# Chinese documentation frame a placeholder with (`【アクセストークン】`), as English
# writes `<access-token>`;
# dynaconf's `@vault path#key` (and its `@format`, `@jinja`, `@get` tokens), a 1Password
# `op://vault/item/field`, and a scheme or name whose value is a variable (Proxmox's
# `PVEAPIToken=$PVE_TOKEN`). Also Cloud Build's escaped `$$NAME`, Telegraf's secret-store
# `@{store:key}`, Dagger's `env:NAME` provider, and a secrets manager's `path/to/secret:json-key`
# (CodeBuild's `secrets-manager:` entries). And a secret store's address by its documented shape:
# Vault's `vault:path#key` (Bank-Vaults, external-secrets), Google Secret Manager's
# `projects/P/secrets/NAME`, App Service's `@Microsoft.KeyVault(...)`, and the `scheme://` of a
# secrets manager's provider (`vault://`, `awssm://`, `doppler://`).
# fmt: off
_LITERALS = frozenset({
    "none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off", "empty",
    "n/a", "na", "tbd", "todo", "redacted", "masked", "hidden", "sensitive", "placeholder",
    "secret", "password", "token", "str", "string", "bytes", "int", "bool", "number", "any",
    "secretstr", "optional", "object", "unknown", "required", "inherit", "default", "auto",
    "enabled", "disabled", "example", "dummy", "sample", "filtered", "read", "write", "removed",
})
# fmt: on
_STANDIN = re.compile(
    r"(?i)^(?:your|my|insert|enter|replace|put)[-_ ]|[-_ ](?:here|goes)$|^here[-_ ]your[-_ ]"
    r"|^to[-_ ]?be[-_ ]?(?:modified|changed|replaced|set|filled|defined|updated|configured)$"
)
# A template's `tobemodified` (Strapi's `.env.example`), `to_be_changed`: words saying the value
# is still to be set. (`changeme` is not one: it is a password that works until changed.)
# connectionstrings.com's convention: `myPassword`, `myUsername`, `yourApiKey`.
_CAMEL_STANDIN = re.compile(r"(?:my|your)[A-Z][a-z]{2,}(?:[A-Z][a-z]+){0,3}")


# A stand-in spelled as words ending in what it stands for (`mynodetoken`, `veryLongAPIToken`,
# `yourtoken`): a generated token or key holds digits; a password is chosen, so it is not
# judged by its words (`mysecretpassword` stays a password).
_NAMED_STANDIN = re.compile(r"[A-Za-z]{0,40}(?:[Tt]oken|TOKEN|[Kk]ey|KEY)")
# `mysecret`, `yoursecret`, `some_secret`: a stand-in for a generated secret's value (DVC's
# `secret_access_key 'mysecret'`). A password is chosen, so under a password's name such a word
# is judged as a password (`is_standin_secret` is asked only elsewhere).
_SECRET_STANDIN = re.compile(
    r"(?i)(?:my|your|some|the)[-_]?(?:secret|api[-_]?secret|client[-_]?secret|secret[-_]?key"
    r"|access[-_]?key|api[-_]?key|token)s?"
)


def is_standin_secret(value: str) -> bool:
    """`mysecret`, `your_api_secret`: words standing for a generated secret."""
    return _SECRET_STANDIN.fullmatch(value) is not None


# Runs from the start of the alphabet or of the digits (`abcdef.1234567890abcdef`, kubeadm's
# documented bootstrap token): typed, not generated.
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "01234567890"


def _ascending(value: str) -> bool:
    parts = [p for p in re.split(r"[^A-Za-z0-9]", value.lower()) if p]
    runs = 0
    for part in parts:
        i = 0
        while i < len(part):
            j = i + 1
            source = _DIGITS if part[i].isdigit() else _ALPHABET
            while j < len(part) and part[i : j + 1] in source:
                j += 1
            if j - i < 4 or part[i] not in "a01":
                return False
            runs += 1
            i = j
    return runs > 0 and len(value) >= 8


def _typed_runs(body: str) -> bool:
    """Three or more runs of the alphabet or the digits, each of three or more, and nothing else
    (`abc123cde456`, `xyz789abc`): typed to fill a slot, not generated."""
    runs, i = 0, 0
    lowered = body.lower()
    while i < len(lowered):
        j = i + 1
        while j < len(lowered) and ord(lowered[j]) == ord(lowered[j - 1]) + 1:
            j += 1
        if j - i < 3:
            return False
        runs, i = runs + 1, j
    return runs >= 3


# A vendor's prefix in words, then a body typed in runs (`SB-Mid-server-abc123cde456`): a
# documented sample key whose prefix is real and whose body is not.
_PREFIXED_BODY = re.compile(r"(?:[A-Za-z]{1,12}[-_.]){1,4}(?P<body>[A-Za-z0-9]{9,40})")


_RUN = re.compile(r"(.)\1{2,}")
# The name of a variable or constant standing for the value (`WEBHOOK_TOKEN`, `LOGIN_PASS`).
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# A documented example: the marker vendors put in their sample values (`AKIAIOSFODNN7EXAMPLE`).
_EXAMPLE_MARK = re.compile(r"EXAMPLE|(?i:example)")
# A phrase standing in for a value (`whatever-get-it-from-AWS`): words joined by hyphens or
# underscores, one of them a function word no generated secret holds.
_PHRASE = re.compile(r"[A-Za-z]{1,20}(?:[-_][A-Za-z]{1,20}){2,8}")
# fmt: off
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "it", "is", "to", "from", "for", "of", "in", "on", "at", "with", "your",
    "my", "our", "their", "get", "put", "use", "here", "there", "this", "that", "whatever", "goes",
})
# fmt: on


# A masked value keeps a prefix or a last few characters around its mask (`APP_USR-****-7f3e`,
# `tskey-api-XXXXXX`); a word repeated (`SECRETKEYSECRETKEY...`) is a stand-in typed to length
# (letters only: a test key may repeat a hex block, and is still a key).
# Upper-case words between asterisks are a mask too (`*SENSITIVE*DATA*DELETED*`, what Windows
# Setup writes in place of an unattend file's passwords).
_MASKED = re.compile(r"\*{3,}|•{3,}|[-_.](?:X{4,}|x{4,})\Z|\*(?:[A-Z]{3,12}\*){2,4}\Z")
_REPEATED = re.compile(r"([A-Za-z]{2,12}?)\1{2,}[A-Za-z]{0,11}")


def is_mask(value: str) -> bool:
    """Mostly one character repeated: `****`, `xxxxxxxx`, `npm_xxx`, `0000-0000`."""
    if len(value) < 3 or _MASKED.search(value) or _REPEATED.fullmatch(value):
        return True
    top = max(value.count(c) for c in set(value))
    if top * 10 >= len(value) * 6:
        return True
    longest = max((len(m.group()) for m in _RUN.finditer(value)), default=0)
    return longest * 10 >= len(value) * 4


# A stand-in word inside a frame (`-- REDACTED --`, `** hidden **`, a URL template's
# `[password]`): the frame marks it as text about a value, not the value.
_FRAMED = re.compile(r"[-*#=\[( ]{1,6}(?P<word>[A-Za-z]{3,20})[-*#=\]) ]{1,6}")


def is_placeholder(value: str) -> bool:
    """True when `value` names or masks a secret instead of carrying one (policy: module doc)."""
    value = value.strip().strip("\"'").rstrip(";,")
    if len(value) < 3 or value.lower() in _LITERALS:
        return True
    if _REFERENCE.match(value) or _STANDIN.search(value) or _CAMEL_STANDIN.fullmatch(value):
        return True
    framed = _FRAMED.fullmatch(value)
    if framed and framed.group("word").lower() in _LITERALS:
        return True
    if value.isdigit() and len(value) < 8:
        return True
    if _CONSTANT.fullmatch(value) and sum(c.isdigit() for c in value) <= 2:
        return True
    if _EXAMPLE_MARK.search(value):
        return True
    if _NAMED_STANDIN.fullmatch(value) or _ascending(value):
        return True
    prefixed = _PREFIXED_BODY.fullmatch(value)
    if prefixed and _typed_runs(prefixed.group("body")):
        return True
    if _PHRASE.fullmatch(value) and _FUNCTION_WORDS & set(re.split(r"[-_]", value.lower())):
        return True
    return is_mask(value)


def is_random(value: str) -> bool:
    """A token body looks generated: it mixes letters and digits."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def is_strong(value: str) -> bool:
    """A bare value in prose counts only if it looks like a credential rather than a word."""
    if len(value) >= 20:
        return True
    return len(value) >= 6 and (
        any(c.isdigit() for c in value) or any(c in "!@#$%^&*+=/~?" for c in value)
    )


_CODE = re.compile(
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|.*[(\[].*|(?:[A-Za-z_$][\w$]*\.)+(?:[A-Z][A-Z0-9_]*|env\.\w+)!"
)


def is_code(value: str) -> bool:
    """`self.token`, `getpass()`, `Optional[str]`, TypeScript's `process.env.API_KEY!` (its `!`
    says not null): an expression, not a literal."""
    return bool(_CODE.fullmatch(value))
