"""Secret redaction and bounding of run snapshots.

Owns the replacement of each secret by a `[REDACTED:<kind>]` marker, the cleaning of raw bytes
into text and the cutting of long text to a head and a tail; what counts as a secret lives in
`secret_kinds` (the rule table), `scanners`, `key_names` and `placeholders` (the placeholder
policy). Invariant: redaction is idempotent (markers are never matched again, nor is the cut
marker), and only the secret value is replaced: key names, URL schemes, users and hosts stay.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from wikimem.redaction import command_lines, config_lines, positions, principles, prose, vendored
from wikimem.redaction.decoding import decoded_views, encoded_views
from wikimem.redaction.key_names import (
    FOREIGN_NEEDLES,
    KEYWORDS,
    is_weak_name,
    named_kind,
    secret_name_kind,
)
from wikimem.redaction.layouts import (
    KEY_LIST_NEEDLES,
    READ_FILE_NEEDLES,
    SECTION_NEEDLES,
    scan_armoured_keys,
    scan_file_output,
    scan_key_bodies,
    scan_key_lists,
    scan_pairs,
    scan_prompts,
    scan_putty_keys,
    scan_section_entries,
    scan_tables,
)
from wikimem.redaction.placeholders import (
    is_placeholder,
    is_random,
    is_standin_secret,
    is_strong,
)
from wikimem.redaction.scanners import (
    scan_assignments,
    scan_azure_secrets,
    scan_k8s_secrets,
    scan_private_keys,
    scan_xml,
)
from wikimem.redaction.secret_kinds import RULES

MARKER = "[REDACTED:{kind}]"
CUT_MARKER = "\n[... {count} characters cut ...]\n"
_MARKER_RE = re.compile(r"\[(?:REDACTED:[a-z0-9-]{1,40}|\.\.\. \d+ characters cut \.\.\.)\]")


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int  # span of the secret value in the input text (the part that gets replaced)


# Each finder is (needles, scan): the scan runs only when one of its lowercase needles occurs
# in the text. Plain pairs rather than a dataclass: this module is on the hook's import path.
_Scan = Callable[[str], Iterator[tuple[str, int, int]]]
_KEYS: tuple[tuple[str, ...], _Scan] = (("-----begin",), scan_private_keys)
_FINDERS: list[tuple[tuple[str, ...], _Scan]] = (
    [_KEYS, (("-----end",), scan_key_bodies), (("private-lines",), scan_putty_keys)]
    + [(("-----begin",), scan_armoured_keys), (("]:",), scan_prompts)]
    + [(READ_FILE_NEEDLES, scan_file_output)]
    + [(rule.needles, rule.scan) for rule in RULES]
    + [(rule.needles, rule.scan) for rule in command_lines.RULES]
    + [(rule.needles, rule.scan) for rule in principles.RULES]
    + [(("@",), principles.scan_bare_userinfo), (("(",), principles.scan_secret_setters)]
    + [
        (("base64",), principles.scan_encoded_echoes),
        (("auth", "cred"), principles.scan_auth_pairs),
        (("echo", "printenv"), principles.scan_echoed_values),
        (principles.CREATED_NEEDLES, principles.scan_created_keys),
    ]
    + [
        (("identified", "password"), command_lines.scan_sql),
        (("value",), scan_pairs),
        (("value",), scan_tables),
        (SECTION_NEEDLES, scan_section_entries),
        (KEY_LIST_NEEDLES, scan_key_lists),
        (("q~",), scan_azure_secrets),
        (("kind:",), scan_k8s_secrets),
        (("</",), scan_xml),
        (KEYWORDS + FOREIGN_NEEDLES, scan_assignments),
        (config_lines.NEEDLES, config_lines.scan_config_lines),
        (config_lines.IPSEC_NEEDLES, config_lines.scan_ipsec_secrets),
        (("createuser",), config_lines.scan_snmp_users),
        (config_lines.KEY_FILE_NEEDLES, config_lines.scan_key_files),
    ]
    + [(rule.needles, rule.scan) for rule in positions.RULES]
    + [(("eyj",), positions.scan_wrapped_jwts), (("@tcp", "@unix", "@udp"), positions.scan_go_dsns)]
    + [(("(",), positions.scan_setter_calls), (("--",), positions.scan_listed_flags)]
    + [(("default",), positions.scan_declared_defaults)]
    + [((",",), positions.scan_byte_arrays)]
    + [(("nral",), positions.scan_newrelic_keys), (("conn",), positions.scan_connects)]
    + [(("{\n", "{\r\n", "{ \n"), positions.scan_secret_blocks)]
    + [(positions.AUTH_CALL_NEEDLES, positions.scan_auth_calls)]
    + [
        (
            positions.STORE_TOKEN_NEEDLES + positions.ACCOUNT_NEEDLES,
            positions.scan_cli_arguments,
        )
    ]
    + [(positions.NOTIFIER_NEEDLES, positions.scan_notifier_urls)]
    + [((": |", ":|", ": >", ":>"), positions.scan_block_scalars)]
    + [
        ((), prose.scan_prose),
        (("echo", "printf", "<<"), prose.scan_stdin),
        (("send",), prose.scan_expect),
        (prose.LOGIN_NEEDLES, prose.scan_login_pairs),
    ]
    + [(positions.WEBHOOK_NEEDLES, positions.scan_webhook_urls), ((), vendored.scan_vendored)]
    + [((), positions.scan_high_entropy)]
)


# --- public interface -------------------------------------------------------------------------


def find_secrets(text: str) -> list[Finding]:
    """Every secret in `text`, non-overlapping, sorted by start; existing markers are skipped.

    The text is scanned as it is, then as each round of decoding shows it (`decoding`): a secret
    found only in a decoded view is reported at the span of its encoded form.
    """
    if not text:
        return []
    starts: list[int] = []
    ends: list[int] = []
    for m in _MARKER_RE.finditer(text):
        starts.append(m.start())
        ends.append(m.end())
    found: list[Finding] = []
    where = _Where(text)
    if "${" in text:  # a shell reference with a default or message (`${PW:?must be set}`)
        for m in _SHELL_REFERENCE.finditer(text):
            default = _shell_default(m)
            if default:
                _add(found, starts, ends, where, *default)
                continue
            i = bisect.bisect_right(starts, m.start())
            if not (i and ends[i - 1] > m.start()) and not (
                i < len(starts) and starts[i] < m.end()
            ):
                starts.insert(i, m.start())
                ends.insert(i, m.end())
    for kind, start, end in _scan(text):
        _add(found, starts, ends, where, kind, start, end)
    for view, origin_starts, origin_ends in decoded_views(text) + encoded_views(text):
        for kind, start, end in _scan(view):
            if not _MARKER_RE.fullmatch(view, start, end):
                _add(found, starts, ends, where, kind, origin_starts[start], origin_ends[end - 1])
    for finding in list(found):
        for start, end in _repeats(text, finding):
            _add(found, starts, ends, where, finding.kind, start, end)
    found.sort(key=lambda f: f.start)
    return found


_REPEAT_REACH = 500


def _repeats(text: str, finding: Finding) -> Iterator[tuple[int, int]]:
    """Where the value of a secret found once stands again nearby, whole (wecom's `Key:` holding
    the key its webhook URL carries, a password set then echoed): a secret is one wherever it
    repeats, whatever stands beside the copy. Only a value of 12 characters or more with a
    digit in it, so no word repeated in prose is taken; looked for within 500 characters either
    side."""
    value = text[finding.start : finding.end]
    if len(value) < 12 or not any(c.isdigit() for c in value) or "\n" in value:
        return
    hi = min(finding.end + _REPEAT_REACH, len(text))
    pos = text.find(value, max(finding.start - _REPEAT_REACH, 0), hi)
    while pos >= 0:
        end = pos + len(value)
        whole = not (pos and text[pos - 1].isalnum()) and not text[end : end + 1].isalnum()
        if pos != finding.start and whole:
            yield pos, end
        pos = text.find(value, end, hi)


class _Where:
    """What `_add` asks of the text around each finding, answered without rescanning the text:
    line bounds by bisection over its newlines, and which of the slots that spare a value
    (envelopes, signature headers, client-side keys) occur in it at all. A text packed with
    secrets on one long line (minified JSON) made each finding scan the line: 2,000 findings in
    200 KB took seconds."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None
        self._public_words: list[int] | None = None
        lowered = text.lower()
        self.envelope = (
            "ENC[" in text or "secure" in text or "ENC(" in text or "{cipher}" in text
        ) or ("vault:v" in text or "encrypted:" in text or "EJ[" in text)
        self.template = "{{" in text
        self.signature = "signature" in lowered
        self.minisign = "minisign" in text
        self.flagsmith = "x-environment-key" in lowered
        self.appcast = "sparkle:" in text
        self.firebase = "apiKey" in text
        self.paddle = "Paddle." in text
        self.client = "client" in lowered
        self.redirect = "url" in lowered and (
            "redirect" in lowered
            or "return" in lowered
            or "checkout" in lowered
            or "pay" in lowered
        )
        self.client_side = self.client or any(
            w in lowered for w in ("public", "publish", "browser", "frontend", "anon")
        )
        self.blt = "blt" in text
        self.env_key = "env_key" in lowered or "environmentkey" in lowered
        self.arn = "arn:" in text
        self.authorize = "authori" in lowered
        self.hidden = "hidden" in lowered
        self.examples = (
            [m.start() for m in _EXAMPLE_KEY.finditer(text)] if "EXAMPLE" in text else []
        )

    def line(self, pos: int) -> tuple[int, int]:
        """The start and end of the line holding `pos` (its newline excluded)."""
        if self._newlines is None:
            self._newlines = [m.start() for m in _NEWLINE.finditer(self.text)]
        newlines = self._newlines
        i = bisect.bisect_left(newlines, pos)
        end = newlines[i] if i < len(newlines) else len(self.text)
        return (newlines[i - 1] + 1 if i else 0), end

    def public_word_near(self, start: int) -> bool:
        """Whether a word saying public or client stands within 120 characters before `start`
        or 40 after it (the text's such words found once, then looked up by bisection)."""
        if self._public_words is None:
            lowered, found = self.text.lower(), []
            for word in _PUBLIC_WORDS:
                at = lowered.find(word)
                while at >= 0:
                    found.append(at)
                    at = lowered.find(word, at + 1)
            self._public_words = sorted(found)
        i = bisect.bisect_left(self._public_words, start - 120)
        return i < len(self._public_words) and self._public_words[i] < start + 40

    def example_key_in(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.examples, start)
        return i < len(self.examples) and self.examples[i] < end


_NEWLINE = re.compile("\n")
_SHELL_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]{0,100}:?[-?+=][^{}\n]{0,400}\}")
# The default of a shell or Compose reference under a secret's name (`${DB_PASSWORD:-PW}`,
# `${API_TOKEN=TOKEN}`) is the secret whenever the variable is unset; a message (`:?`), an
# alternative (`:+`), a reference, a placeholder or a bare word there (`${PW:-<set me>}`,
# `${TOKEN:-}`, `${TOKEN-fallback}`) is not.
_SHELL_DEFAULT = re.compile(
    r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]{0,100}):?[-=](?P<v>[^{}\s\"'`$<>]{3,200})\}"
)


def _shell_default(m: re.Match[str]) -> tuple[str, int, int] | None:
    d = _SHELL_DEFAULT.fullmatch(m.group())
    if not d:
        return None
    name, value = d.group("name"), d.group("v")
    kind = secret_name_kind(name)
    if not kind or is_placeholder(value) or not is_strong(value):
        return None  # a word there (`${NPM_AUTH_TOKEN-fallback}`) says what the default is for
    if is_weak_name(name) and not is_random(value):
        return None
    return kind, m.start() + d.start("v"), m.start() + d.end("v")


# Values documented as public or as examples: a publishable key, AWS's keys that end `EXAMPLE`
# (`AKIAIOSFODNN7EXAMPLE`, `...EXAMPLEKEY`, the convention of its documentation).
# A Square application id (`sq0idp-`) is public too, as its documentation says, and so are
# New Relic's browser key (`NRJS-`, served in every page) and Flutterwave's `FLWPUBK`.
# Public keys by their documented prefix: age's recipient is `age1` and 58 bech32 characters
# (`age-keygen -y` prints it), and Tailscale prints the public halves of its keys as `nodekey:`,
# `discokey:`, `mkey:` and `nlpub:` (the private ones are `privkey:` and `nlpriv:`).
# A client key by its documented public prefix: a `_ck_`/`_gck_` (client key, beside the
# secret key's `_sk_`) ships in the checkout page; a public key of the `APP_USR-`/`TEST-` shape is a
# bare UUID after the prefix, as the access token is digits, a date, hex and a user id.
_PUBLIC = re.compile(
    r"pk_(?:live|test)_|sq0idp-|NRJS-|FLWPUBK|[A-Za-z0-9/+]{0,60}EXAMPLE(?:KEY)?\Z"
    r"|(?:live|test)_g?ck_|(?:APP_USR|TEST)-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\Z"
    r"|age1[02-9ac-hj-np-z]{58}\Z|(?:nodekey|discokey|mkey|nlpub):[0-9a-f]{64}\Z"
)
# Ciphertext in an envelope that names its cipher: every field of a sops value
# (`ENC[AES256_GCM,data:...,iv:...,tag:...,type:str]`) and a Travis `secure: "..."` blob are
# encrypted to a key that is not in the text, so they are safe to keep.
# So is a value in the other envelopes tools document: Jasypt's `ENC(...)`, Spring Cloud
# Config's `{cipher}...`, Vault transit's `vault:v1:...`.
# dotenvx's `KEY="encrypted:..."` (ECIES to the public key beside it, safe to commit as its
# documentation says) and ejson's `EJ[1:...]` are such envelopes too.
_ENVELOPE = re.compile(
    r"ENC\[[A-Z0-9_]{2,20},[^\]\n]{0,800}\Z|(?:^|[\s{,-])secure[ \t]*:[ \t]*[\"']?\Z"
    r"|ENC\(\Z|\{cipher\}\Z|\bvault:v\d{1,3}:\Z|(?<![\w-])encrypted:\Z|\bEJ\[\d:[^\]\n]{0,800}\Z"
)
# A value that is itself such an envelope, found whole under a secret's name
# (`DB_PASSWORD="encrypted:..."`, `password: ENC[AES256_GCM,data:...]`, `ENC(...)`,
# `vault:v1:...`): the name says what was encrypted, the value holds only ciphertext.
_ENVELOPE_VALUE = re.compile(
    r"(?:ENC\[[A-Z0-9_]{2,20},(?:data:)?|ENC\(|vault:v\d{1,3}:|encrypted:|EJ\[\d:|\{cipher\})"
    r"[A-Za-z0-9+/=]{16,}"
)
# minisign's manual: `-P` gives the public key to verify with, as a base64 string.
_PUBLIC_FLAG = re.compile(r"\bminisign[ \t][^\n]{0,300}[ \t]-P[ \t]+\Z")
# Client-side keys by where their vendor says to put them: Flagsmith's environment key in
# `X-Environment-Key` (its server-side keys start `ser.`, and still go), Paddle.js's client-side
# token (`live_` or `test_`) in `Paddle.Initialize({ token })` (its API keys are `pdl_...`).
_FLAGSMITH_SLOT = re.compile(r"(?i:x-environment-key)[ \t]*:[ \t]*\Z")
_PADDLE_SLOT = re.compile(
    r"\bPaddle\.(?:Initialize|Setup)\([^)\n]{0,200}\btoken[ \t]*:[ \t]*[\"']\Z"
)
_PADDLE_CLIENT_TOKEN = re.compile(r"(?:live|test)_[a-z0-9]{20,40}")
# Adyen's client key (`test_` or `live_`), in the `clientKey` of the checkout its web SDK builds:
# made for the browser, as its documentation says (its API key has no such prefix and goes).
_CLIENT_KEY_SLOT = re.compile(
    r"\b[A-Z]\w{0,40}\((?:[^()\n]{0,200}[{,])?[ \t]*clientKey[ \t]*:[ \t]*[\"']\Z"
)
_CLIENT_KEY = re.compile(r"(?:live|test)_[A-Z0-9]{20,40}")
# An OAuth client id under its own name (WorkOS's `WORKOS_CLIENT_ID=client_...`) names the
# application to every user who signs in; a `client_secret`, or a secret's shape there, goes.
_CLIENT_ID_SLOT = re.compile(r"(?i:client[_-]?id)[\"']?[ \t]*[=:][ \t]*[\"']?\Z")
_CLIENT_ID = re.compile(r"client_[0-9A-Za-z]{16,40}")
# A Contentstack UID (`blt` and 16 hex digits) names a stack, an entry or an asset: the stack's
# API key is such a UID, public by its documentation; the delivery token (`cs...`) still goes.
_CONTENTSTACK_UID = re.compile(r"blt[0-9a-f]{16}(?![\w-])")
# An environment key in a browser SDK's options (Mux Data's `{ data: { env_key: '...' } }`,
# Flagsmith's `environmentID`): it names the project's environment to every page that loads
# it; a server-side key (`ser.`, `sdk-`) in that slot still goes.
_ENV_KEY_SLOT = re.compile(r"[{,][ \t]*(?:env|environment)(?:_key|Key)[ \t]*:[ \t]*[\"']\Z")
_SERVER_KEY = ("ser.", "sdk-", "sk_", "sk-")
# Firebase's web config: its `apiKey` only identifies the project to Google, its documentation
# says, and ships in every page beside `authDomain`; an `apiKey` in any other object still goes.
_FIREBASE_SLOT = re.compile(r"\bapiKey[\"']?[ \t]*:[ \t]*[\"']\Z")
_FIREBASE_CONFIG = re.compile(r"\bauthDomain\b|\.firebaseapp\.com\b")
# An Amazon Resource Name identifies a resource (`arn:aws:secretsmanager:REGION:ACCOUNT:secret:
# NAME-abc123`): a span inside one is part of a name, not a credential, whatever it says.
_ARN = re.compile(r"\barn:aws[\w-]{0,12}:[a-z0-9-]{2,40}:[^\s\"'`,;]*\Z")


# The shown half of a pair whose other half is masked (Sonatype's user token, `Kf3uQz9a /
# ••••••••`, a name code then its hidden passcode): the page hides the secret half, and shows
# what names it.
_MASKED_HALF = re.compile(r"[ \t]*[/|][ \t]*(?:•{4,}|\*{4,}|●{4,})")


def _inside_template(text: str, before: str, end: int) -> bool:
    """Whether the span is inside a `{{ ... }}` expression (CloudFormation's
    `{{resolve:secretsmanager:NAME:SecretString:KEY}}`, a Helm or Jinja lookup): such an
    expression names where a value comes from, and the template is rendered elsewhere."""
    opened = before.rfind("{{")
    if opened < 0 or before.rfind("}}") > opened:
        return False
    close = text.find("}}", end, end + 400)
    return close >= 0 and "\n" not in text[end:close]


# Sparkle's appcast signs each download with `sparkle:edSignature` (or the older DSA one): a
# signature over a public file, checked with the public key the app ships.
_APPCAST_SIGNATURE = re.compile(r"\bsparkle:(?:ed|dsa)Signature=[\"']\Z")


# A request signature in a query (`signature=<hex>&timestamp=...`, Cloudinary's signed upload
# parameters): an HMAC over one request and its timestamp, as a signature header is.
_SIGNATURE_PARAM = re.compile(r"(?:^|[?&\s\"'])signature=\Z")
_HEX_RUN = re.compile(r"[0-9a-f]{32,128}(?![\w-])")
_TIMESTAMP_PARAM = re.compile(r"(?:^|[?&\s])timestamp=\d{9,13}(?![\w.])")
# OAuth's authorize URL carries the application's public key or client id to every user who
# signs in (`/1/authorize?...&response_type=token&key=...`, Trello's); its secret never goes
# there, and a `client_secret=` or a `token=` in it still goes.
_AUTHORIZE_KEY = re.compile(
    r"https?://[^\s\"'<>]{1,300}/(?:oauth2?/)?authori[sz]e\?[^\s\"'<>#]{0,800}[?&]"
    r"(?:key|api_key|client_id)=\Z"
)
# A page's hidden form field is served to every visitor: an all-digit key id there (Cloudinary's
# `api_key`, sent beside the server's signature in a signed upload form) is an account number;
# a generated key in that slot still goes.
_HIDDEN_FIELD = re.compile(
    r"<input\b[^<>]{0,200}\btype=[\"']hidden[\"'][^<>]{0,200}\bvalue=[\"']\Z"
)
_DIGITS = re.compile(r"\d{6,20}")


# Client-side keys by what they say they are: a value whose leading words say client, public,
# publishable, browser, frontend or anon (Statsig's `client-...`, whose server keys are
# `secret-...`; Midtrans' `SB-Mid-client-...` beside its `SB-Mid-server-...`; Supabase's
# `sb_publishable_`; not `pk_`, which is Klaviyo's private key), or a name that does
# (`VITE_X_CLIENT_KEY=`, `data-client-key=`, `merchantClientKey:`, `publishableKey`, `anonKey`,
# `browserKey`, `FRONTEND_TOKEN`). Vendors make these to ship in every page. A word of a server
# key among those words (`secret`, `server`, `private`, `sk`), a PEM key or its base64 (a TLS
# client key), a `client_token` (Vault's and Consul's login token) or a vendor's secret shape
# (its own rule's kind) still goes.
_PUBLIC_WORDS = frozenset({"client", "public", "publishable", "browser", "frontend", "anon"})
_SERVER_WORDS = frozenset(
    {"secret", "server", "private", "priv", "sk", "rk", "admin", "service", "master", "root"}
)
_GENERIC_KINDS = frozenset(
    {"secret-assignment", "env-secret", "high-entropy-token", "auth-header", "api-key-header"}
)
# A name's words saying the key ships to a browser: a bundler's public prefix (`VITE_`,
# `NEXT_PUBLIC_`, `REACT_APP_`, `EXPO_PUBLIC_`...), an HTML `data-` attribute, a payment
# gateway's merchant client key for its checkout page; `client` alone (`CLIENT_KEY`) says only
# which side of a connection holds it.
_BROWSER_WORDS = frozenset(
    {"vite", "next", "react", "expo", "nuxt", "gatsby", "vue", "public", "publishable",
     "browser", "frontend", "data", "web", "merchant"}
)  # fmt: skip
_WORD_PART = re.compile(r"[A-Za-z]{1,12}\Z")


def _client_only_name(before: str) -> bool:
    m = _PUBLIC_NAME.search(before[-120:])
    if not m:
        return False
    words = [w.lower() for w in _NAME_PARTS.split(m.group("name")) if w]
    return len(words) >= 2 and words[-2] == "client" and not _BROWSER_WORDS.intersection(words)


_ASCII_B64_HEAD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef")
_SERVER_INFIX = re.compile(r"[-_](?:secret|server|sk)[-_]")
_PUBLIC_NAME = re.compile(
    r"(?P<name>[A-Za-z_$@][\w.$-]{0,80})[\"'`]?\]?[ \t]*(?:[:=]|=>|\?=|:=)[ \t]*[\"'`]?\Z"
)
_NAME_PARTS = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def _public_value(value: str) -> bool:
    parts = re.split(r"[-_.]", value, maxsplit=4)
    if len(parts) < 2 or len(parts[-1]) < 8:
        return False
    words = [p.lower() for p in parts[:-1]]
    if not all(_WORD_PART.match(p) for p in parts[:-1]) or _SERVER_WORDS.intersection(words):
        return False
    return bool(_PUBLIC_WORDS.intersection(words))


def _public_name(before: str) -> bool:
    tail = before[-120:]
    lowered = tail.lower()
    if not any(w in lowered for w in _PUBLIC_WORDS):
        return False
    m = _PUBLIC_NAME.search(tail)
    if not m:
        return False
    words = [w.lower() for w in _NAME_PARTS.split(m.group("name")) if w]
    if len(words) < 2 or words[-1] not in ("key", "token", "apikey"):
        return False
    if _SERVER_WORDS.intersection(words) or "pass" in m.group("name").lower():
        return False
    if words[-1] == "token" and words[-2] == "client":
        return False  # Vault's and Consul's `client_token` is the login's own token
    return words[-2] in _PUBLIC_WORDS


def _client_side(before: str, value: str) -> bool:
    if value.startswith(("-----", "LS0t")):
        return False
    lowered = value.lower()
    if lowered.startswith(("sk_", "sk-", "sk.", "rk_", "ser.", "secret", "server")):
        return False
    if _SERVER_INFIX.search(lowered):
        return False
    if _public_value(value):
        return True
    # `client` alone in the name (`CLIENT_KEY`) spares a word or a reference, not a generated key
    return _public_name(before) and not (is_random(value) and _client_only_name(before))


_PASSWORD_BEFORE = re.compile(r"(?i)pass|pw|pwd")
# Base64 of ASCII text: each group of four starts with one of the first 32 letters of the
# alphabet (the byte's top bit is clear), so random base64 is turned away before decoding.
_BASE64_VALUE = re.compile(
    r"(?:[A-Za-f][A-Za-z0-9+/]{3}){3,100}(?:[A-Za-f][A-Za-z0-9+/](?:==|[A-Za-z0-9+/]=))?"
)


def _encodes_placeholder(value: str) -> bool:
    """A base64 value that decodes to `user:password` or `key:` whose every part is a
    placeholder (a page's Basic auth of its sample key, `U0ItTWlk...Ng6`): the sample encoded,
    not a credential; a real user or password in it still goes."""
    if not _BASE64_VALUE.fullmatch(value):
        return False
    import base64  # only for a base64 value that reached this far
    import binascii

    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        return False
    parts = [p for p in decoded.split(":") if p]
    return decoded.isprintable() and 0 < len(parts) <= 2 and all(is_placeholder(p) for p in parts)


# A checkout's transaction token that its response also puts in the payer's redirect URL
# (Midtrans Snap's `{"token": UUID, "redirect_url": ".../vtweb/UUID"}`): the URL is handed to the
# payer's browser, so the token names one payment page, not an account; a UUID under `token`
# without such a URL, or in a check-in URL (`ping_url`), still goes.
_UUID_VALUE = re.compile(r"[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}\Z")
_BROWSER_URL = (
    r"(?i)(?:redirect|return|checkout|payment|pay)_?url[\"']?[ \t]*[:=][ \t]*[\"']https?://"
    r"[^\s\"'<>]{0,300}/"
)


def _redirect_token(text: str, start: int, end: int) -> bool:
    value = text[start:end]
    if not _UUID_VALUE.match(value):
        return False
    window = text[max(start - 600, 0) : end + 600]
    return re.search(_BROWSER_URL + re.escape(value), window) is not None


# The name right before a value, across its quote and its `=`, `:` or `=>` (a macro's blank).
_NAME_BEFORE = re.compile(r"(?P<name>[A-Za-z_][\w.-]{0,80})[\"']?[ \t]*(?:=>|[:=])?[ \t]*[\"']?\Z")


def _spells_its_name(before: str, value: str) -> bool:
    """A value in letters that spells the end of its own name (`#define D_CMND_MQTTPASSWORD
    "MqttPassword"`, a command's or a field's name in code), not a secret."""
    if len(value) < 6 or not value.isalpha():
        return False
    m = _NAME_BEFORE.search(before[-120:])
    if m is None:
        return False
    name = re.sub(r"[^a-z]", "", m.group("name").lower())
    return name != value.lower() and name.endswith(value.lower())


def _spared_generic(where: _Where, before: str, start: int, end: int) -> bool:
    """The look-alikes a generic finding (a name's value, a high-entropy token) may be: a
    client-side key, an encoded sample, a checkout's token, a stand-in word, a value spelling
    its own name."""
    text = where.text
    value = text[start:end]
    if _spells_its_name(before, value):
        return True
    if where.client_side and where.public_word_near(start) and _client_side(before, value):
        return True
    if end - start <= 200 and text[start] in _ASCII_B64_HEAD and _encodes_placeholder(value):
        return True
    if end - start == 36 and where.redirect and _redirect_token(text, start, end):
        return True
    return (
        end - start <= 24 and is_standin_secret(value) and not _PASSWORD_BEFORE.search(before[-60:])
    )


def _client_key(where: _Where, before: str, start: int, end: int) -> bool:
    text = where.text
    if where.signature and _SIGNATURE_PARAM.search(before):
        hex_run = _HEX_RUN.match(text, start)
        if hex_run:
            line_start, line_end = where.line(start)
            return _TIMESTAMP_PARAM.search(text, line_start, line_end) is not None
    if where.authorize and _AUTHORIZE_KEY.search(before):
        return "response_type=" in before or "response_type=" in text[end : where.line(end)[1]]
    if where.hidden and _HIDDEN_FIELD.search(before):
        return _DIGITS.fullmatch(text, start, end) is not None
    if where.flagsmith and _FLAGSMITH_SLOT.search(before):
        return not text.startswith("ser.", start)
    if where.appcast and _APPCAST_SIGNATURE.search(before):
        return True
    if where.firebase and _FIREBASE_SLOT.search(before) and text.startswith("AIza", start):
        return _FIREBASE_CONFIG.search(text, max(start - 400, 0), end + 400) is not None
    if where.client and _CLIENT_KEY.fullmatch(text, start, end) and _CLIENT_KEY_SLOT.search(before):
        return True
    if where.client and _CLIENT_ID.fullmatch(text, start, end) and _CLIENT_ID_SLOT.search(before):
        return True
    if where.blt and _CONTENTSTACK_UID.match(text, start) and end - start == 19:
        return True
    if where.env_key and _ENV_KEY_SLOT.search(before):
        return not text.startswith(_SERVER_KEY, start)
    return bool(
        where.paddle
        and _PADDLE_SLOT.search(before)
        and _PADDLE_CLIENT_TOKEN.fullmatch(text, start, end)
    )


# A request signature header (`x-ncp-apigw-signature-v2: ...`) is an HMAC over one request and
# its timestamp: it cannot be replayed as a credential, and the key that made it is not in it.
_SIGNATURE_HEADER = re.compile(
    r"(?i)[A-Za-z0-9-]{0,40}-signature(?:-[A-Za-z0-9]{1,10})?[ \t]*:[ \t]*\Z"
)


# A line quoting one of AWS's documented example keys is documentation (the SigV4 example header
# signs with it), and a value right under a line that labels it an example (`Token example`).
_EXAMPLE_KEY = re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{0,16}EXAMPLE\b")
_EXAMPLE_LABEL = re.compile(r"(?i)[ \t#*>|-]*(?:[\w-]{1,30}[ \t]+){0,3}examples?[ \t]*:?[ \t]*")


def _anon_jwt(token: str) -> bool:
    """Supabase's anon key is a JWT whose role is `anon`: its documentation has it served to every
    browser, row-level security guarding the data; a `service_role` key is a secret."""
    import base64  # only for a JWT, which few texts hold
    import binascii
    import json

    parts = token.split(".")
    if len(parts) != 3:
        return False
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(claims, dict) and claims.get("role") == "anon"


def _documented_example(where: _Where, start: int) -> bool:
    text = where.text
    line_start, line_end = where.line(start)
    if where.examples and where.example_key_in(line_start, line_end):
        return True
    if line_start == 0 or "xample" not in text[max(line_start - 80, 0) : line_start]:
        return False
    previous = where.line(line_start - 1)[0]
    return _EXAMPLE_LABEL.fullmatch(text, previous, line_start - 1) is not None


def _scan(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    present: dict[str, bool] = {}  # rules share needles: search the text once for each
    for needles, scan in _FINDERS:
        if needles:
            for n in needles:
                hit = present.get(n)
                if hit is None:
                    hit = present[n] = n in lowered
                if hit:
                    break
            else:
                continue
        yield from scan(text)


def _debug_keystore(text: str) -> bool:
    return "debug.keystore" in text or "androiddebugkey" in text


def _add(
    found: list[Finding],
    starts: list[int],
    ends: list[int],
    where: _Where,
    kind: str,
    start: int,
    end: int,
) -> None:
    i = bisect.bisect_right(starts, start)
    if end <= start or (i and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
        return
    text = where.text
    if _PUBLIC.match(text, start, end) or _documented_example(where, start):
        return
    if end - start == 7 and text.startswith("android", start) and _debug_keystore(text):
        return  # the Android SDK's debug keystore: its password is `android`, published as such
    if text.startswith("eyJ", start) and _anon_jwt(text[start:end]):
        return
    newline = text.rfind("\n", max(start - 1000, 0), start)
    before = text[newline + 1 if newline >= 0 else max(start - 1000, 0) : start]
    if (
        (where.envelope and _ENVELOPE.search(before))
        or (where.signature and _SIGNATURE_HEADER.search(before))
        or (where.minisign and _PUBLIC_FLAG.search(before))
    ):
        return
    if _client_key(where, before, start, end):
        return
    if where.envelope and _ENVELOPE_VALUE.match(text, start, end):
        return
    if kind in _GENERIC_KINDS and _spared_generic(where, before, start, end):
        return
    if _MASKED_HALF.match(text, end):
        return
    if where.arn and _ARN.search(before):
        return
    if where.template and _inside_template(text, before, end):
        return
    starts.insert(i, start)
    ends.insert(i, end)
    found.append(Finding(kind, start, end))


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
        if not found and key_kind and "\n" not in value and not is_placeholder(value):
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
        named = named_kind(key, item)
        if named:
            return named
    kind = secret_name_kind(key)
    if kind and is_weak_name(key) and not (isinstance(item, str) and is_random(item)):
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
