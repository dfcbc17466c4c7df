"""Secrets found by where they stand rather than by what they look like.

Owns the rules that generalise beyond known vendor formats: the value after a secret-like name in
any syntax (a source literal, a call argument, a connection string key, a header, a CLI flag that
takes a password, a name in another language), connection strings without `://`, webhook URLs
whose path is the credential, and the vendor prefixes learnt from other tools' documentation.
Invariant: every rule anchors on a literal (its needle) and uses bounded repeats only, so a
pathological input costs linear time; a value that is a placeholder is never reported.
"""

# ruff: noqa: E501  (each rule stays on one line, its pattern read whole)

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from wikimem.redaction.key_names import is_weak_name, secret_name_kind
from wikimem.redaction.layouts import is_secret_file
from wikimem.redaction.placeholders import is_code, is_placeholder, is_random, is_strong
from wikimem.redaction.scanners import (
    WORD,
    Check,
    Rule,
    is_generated_key,
    line_before,
    occurrences,
    rule,
)

# Documentation examples that look real (the Telegram Bot API's sample token, AWS's example keys).
_EXAMPLES = ("123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11", "T00000000", "B00000000")


_V = r"(?P<v>[^\s\"'`<>;,&|]{4,400})"  # a bare value
_Q = r"(?:\"(?P<vd>[^\"\n]{1,400})\"|'(?P<vs>[^'\n]{1,400})')"  # a quoted value


# Keywords that start an expression, then the expression (Swift's `try`, `await`, `new`):
# the value is computed, not written.
_EXPRESSION_KEYWORDS = frozenset(
    ("try", "try!", "try?", "await", "new", "yield", "typeof", "sizeof", "lambda", "async",
     "function", "require")
)  # fmt: skip
_EXPRESSION_AFTER = re.compile(r"[ \t]+[A-Za-z_$][\w$]*(?:[.(\[]|::|[ \t]*\()")


def _code(value: str, m: re.Match[str], text: str) -> bool:
    """`form.password.value`, `forms.CharField(...)`: an expression, not a literal. A dotted
    value with a digit (`Mryb927.Rh2Ldr`) is taken for a password."""
    if text.startswith("(", m.end()) or (
        value.endswith(("]", ")")) and any(c in value for c in "[(")
    ):
        return True
    if value in _EXPRESSION_KEYWORDS and _EXPRESSION_AFTER.match(text, m.end()):
        return True  # `let password = try keychain.get(...)`, `pw = await vault.read(...)`
    return is_code(value) and not any(c.isdigit() for c in value)


def _real(kind: str) -> Check:
    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if is_placeholder(value):  # whole, before its braces go: `{{ .Env.X }}` is a template
            return None
        value = value.strip("{}\"'")
        if is_placeholder(value) or _code(value, m, text) or any(e in value for e in _EXAMPLES):
            return None
        return kind

    return check


def _strong(kind: str) -> Check:
    """For a bare word after a flag or in prose: it must look like a credential, not a word."""

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if is_placeholder(value):
            return None
        value = value.strip("{}\"'")
        if is_placeholder(value) or _code(value, m, text) or not is_strong(value):
            return None
        if "://" in value or "%{" in value:
            return None
        return None if any(e in value for e in _EXAMPLES) else kind

    return check


def _on_line(tool: str) -> Check:
    """A short flag that takes a password only for one tool (`zip -P`, `openssl -k`)."""
    pattern = re.compile(tool)
    strong = _strong("cli-password")

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if not pattern.search(line_before(text, m.start())):
            return None
        return strong(value, m, text)

    return check


_JWT_HEAD = re.compile(r"eyJ[A-Za-z0-9_-]{8,}")
_WRAP_LINE = re.compile(r"[A-Za-z0-9_.=-]{1,400}")


def scan_wrapped_jwts(text: str) -> Iterator[tuple[str, int, int]]:
    """A JWT wrapped at a fixed width (76 columns, as base64 tools wrap): its lines together."""
    resume = 0
    for m in _JWT_HEAD.finditer(text):
        if m.start() < resume:
            continue
        line_end = text.find("\n", m.start())
        if line_end < 0:
            continue
        width = line_end - text.rfind("\n", 0, m.start()) - 1
        if width < 40 or not _WRAP_LINE.fullmatch(text, m.start(), line_end):
            continue
        end = line_end
        while end < len(text):  # take the following lines while each is as wide as the first
            nxt = text.find("\n", end + 1)
            nxt = len(text) if nxt < 0 else nxt
            if not _WRAP_LINE.fullmatch(text, end + 1, nxt) or nxt - end - 1 > width:
                break
            full = nxt - end - 1 == width
            end = nxt
            if not full:
                break
        resume = end
        if end > line_end and text.count(".", m.start(), end) == 2:
            yield "jwt", m.start(), end


_GO_DSN = re.compile(r"@(?:tcp6?|udp|unix)\(")
_GO_USERINFO = re.compile(r"(?:^|[\s\"'=`])[A-Za-z0-9_.-]{1,60}:(?P<v>[^\s\"'()`]{1,200})\Z")
_connection_check = _real("connection-password")


def scan_go_dsns(text: str) -> Iterator[tuple[str, int, int]]:
    """A Go driver DSN, `user:password@tcp(host:port)/db`: no scheme, the password before `@tcp(`."""
    for m in _GO_DSN.finditer(text):
        before = line_before(text, m.start())
        found = _GO_USERINFO.search(before)
        if found:
            start = m.start() - len(before) + found.start("v")
            if _connection_check(text[start : m.start()], m, text):
                yield "connection-password", start, m.start()


_WORD = re.compile(r"[^\W\d](?:[^\W\d]|-)*")  # letters of any script (`hasło`), `_` and `-`


def _lazy(source: str) -> Callable[[], re.Pattern[str]]:
    """A pattern compiled on first use: this module is on the hook's import path."""
    return functools.cache(lambda: re.compile(source))


def _named_literal(kind: str) -> Check:
    """A bare value at the start of a config line: a word (`await`, `AuthTypes`), an expression
    or a list item (`auth,`) is code, not a credential."""
    named = _named(kind)

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if value.endswith((",", ";")) or _WORD.fullmatch(value) or any(c in value for c in "([{"):
            return None
        return named(value, m, text)

    return check


_CALL = re.compile(r"\([ \t]*" + _Q + r"[ \t]*\)")
_BLOCK = re.compile(r":[ \t]*[|>][-+]?[ \t]*\n[ \t]+(?P<v>[^\n]{4,400})")
_NAME_AT_END = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,60}\Z")


def _name_before(text: str, pos: int) -> str:
    found = _NAME_AT_END.search(line_before(text, pos))
    return found.group() if found else ""


# A client constructor or a secret wrapper: `pushover.New(...)`, `vendor.NewClient(...)`,
# `Client::new(...)`, Rust's `SecretString::from(...)`.
_CONSTRUCTOR = re.compile(
    r"\b(?P<recv>[A-Z]\w{0,40}(?:::[A-Z]\w{0,40}){0,3})(?:\.|::)(?:new|New)\Z"
    r"|\b[A-Za-z_]\w{0,40}(?:\.|::)(?:New(?:[A-Z]\w{0,30})?Client|New|new)\Z"
    r"|\bnew[ \t]+\\?(?P<cls>[A-Z][\w.\\]{0,60})\Z"
    r"|(?:^|[=(,:\[][ \t]*|\breturn[ \t]+)(?P<bare>[A-Z][A-Za-z0-9]{2,40})\Z"
    r"|\b(?P<factory>[A-Z]\w{0,40}\.(?:[Cc]reate\w{0,20}|[Ff]rom\w{0,30}|[Ww]ith\w{0,20}|[Bb]uild|init))\Z"
)
# A callee named for a digest, an id or a value object takes one (`Commit("<sha>")`,
# `ObjectId("...")`, `UUID("...")`), not a key.
_NOT_KEY_CALLEE = re.compile(
    r"Hash|Sha|SHA|Digest|Commit|Oid|Id(?![a-z])|ID|Uuid|UUID|Guid|GUID|Rev|Version|Checksum|Hex"
    r"|Tx|Block|Address|Object|Etag|ETag|Colou?r|Fingerprint"
)
_HEX_KEY = re.compile(r"[0-9a-f]{32,64}|[0-9A-F]{32,64}")
_SECRET_WRAPPER = re.compile(r"\bSecret(?:String|Box|Vec)?::(?:from|new)\Z")
_KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,200}")


def _constructor_key(text: str, pos: int, value: str) -> bool:
    """The only argument of a secret wrapper, or of a client constructor when it is shaped as a
    generated key (a git digest handed to `NewHash`, a message to `errors.New` or a version
    string stay)."""
    before = line_before(text, pos)[-60:]
    if _SECRET_WRAPPER.search(before):
        return True  # the wrapper says secret, as a setter's name does
    call = _CONSTRUCTOR.search(before)
    if call is None or _NOT_KEY_CALLEE.search(call.group()):
        return False
    if value.lower().startswith(("public", "pub_", "pub-", "pk_live_", "pk_test_")):
        return False  # a key that says it is public (Stytch's `public-token-live-...`, Stripe's
        # publishable `pk_live_`); a bare `pk_` is a private key as often (Klaviyo's)
    if call.group("bare") is not None and _UUID().search(value):
        return False  # a class given a UUID (`Config("mob-<uuid>")`): an id as often
    if _HEX_KEY.fullmatch(value):
        # a class built from one hex string (`SparkPost('<40 hex>')`, `new TodoistApi(...)`,
        # Ruby's `Acme::API.new(...)`): a vendor's key; a Go `pkg.New` stays held to the mixed
        # shape below
        return any(call.group(g) is not None for g in ("cls", "bare", "recv"))
    if not _KEY_SHAPE.fullmatch(value) or _CAMEL.fullmatch(value):
        return False
    digits = sum(c.isdigit() for c in value)
    return 3 <= digits <= len(value) - 3 and _entropy(value) >= 3.2


def scan_setter_calls(text: str) -> Iterator[tuple[str, int, int]]:
    """A literal passed alone to a call named for a secret (`setPassword("...")`), or a generated
    key passed alone to a client constructor (`pushover.New("...")`)."""
    for m in _CALL.finditer(text):
        group = "vd" if m.group("vd") is not None else "vs"
        value = m.group(group)
        name = _name_before(text, m.start())
        if not name or is_placeholder(value) or _code(value, m, text):
            continue
        if secret_name_kind(name) or _constructor_key(text, m.start(), value):
            yield "secret-assignment", m.start(group), m.end(group)


# A default given beside a secret's name in one declaration: a call's `default=` (Python's
# `Field(default=..., env="API_KEY")`, click's `option("--token", default=...)`, decouple's
# `config("DB_PASSWORD", default=...)`) and a Go struct tag's `default:` or `envDefault:` after
# its `env:` or `envconfig:` name; the name is the call's or the tag's quoted secret name.
_CALL_DEFAULT = _lazy(r"default[ \t]*=[ \t]*" + _Q)
_TAG_DEFAULT = _lazy(
    r"env(?:config)?:\"(?P<name>[A-Za-z_][\w.-]{0,100})\"[^`\n]{0,200}?[ \t](?:default|envDefault):"
    r"\"(?P<vd>[^\"\n]{1,400})\""
)
_QUOTED_NAME = _lazy(r"[\"'](?:--?)?(?P<name>[A-Za-z_][\w.-]{1,100})[\"']")


def scan_declared_defaults(text: str) -> Iterator[tuple[str, int, int]]:
    """The default of a setting declared under a secret's name (see `_CALL_DEFAULT`)."""
    for m in _CALL_DEFAULT().finditer(text):
        group = "vd" if m.group("vd") is not None else "vs"
        value = m.group(group)
        if is_placeholder(value) or not is_strong(value):
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        opened = text.rfind("(", line_start, m.start())
        closed = text.find(")", m.end())
        if opened < 0 or (closed >= 0 and "\n" in text[m.end() : closed]):
            continue
        call = text[opened : closed if closed >= 0 else m.end()]
        for q in _QUOTED_NAME().finditer(call):
            name = q.group("name")
            if name == value or not secret_name_kind(name):
                continue
            if not is_weak_name(name) or is_random(value):
                yield "secret-assignment", m.start(group), m.end(group)
            break
    if "default:" in text or "envDefault:" in text:
        for m in _TAG_DEFAULT().finditer(text):
            name, value = m.group("name"), m.group("vd")
            if (
                secret_name_kind(name)
                and not is_placeholder(value)
                and is_strong(value)
                and (not is_weak_name(name) or is_random(value))
            ):
                yield "secret-assignment", m.start("vd"), m.end("vd")


def scan_block_scalars(text: str) -> Iterator[tuple[str, int, int]]:
    """A YAML block scalar under a secret name: `password: >-` then the value on the next line."""
    for m in _BLOCK.finditer(text):
        name = _name_before(text, m.start()).strip()
        value = m.group("v").strip()
        if name and secret_name_kind(name) and not is_placeholder(value) and not is_code(value):
            yield "secret-assignment", m.start("v"), m.start("v") + len(m.group("v").rstrip())


def _named(kind: str) -> Check:
    """The value of a literal whose name (group `name`) says secret."""

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        name = m.group("name")
        if not secret_name_kind(name) or is_placeholder(value) or _code(value, m, text):
            return None
        if name.upper().endswith("COOKIE") and "=" in value:  # a header's `sid=...; Path=/`
            value = value.split(";", 1)[0].split("=", 1)[1]
        return None if is_weak_name(name) and not is_random(value) else kind

    return check


def _declared(kind: str) -> Check:
    """A literal in a typed declaration: the name is the identifier before the type."""

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        name = _name_before(text, m.start())
        if not name or not secret_name_kind(name) or is_placeholder(value) or _code(value, m, text):
            return None
        return None if _WORD.fullmatch(value) else kind  # a word (`"x-mcp-header"`) is a label

    return check


# Runs typed into a documented example (`001aabbccddeeff123456789...`), not generated.
_TYPED_RUNS = ("12345678", "aabbccdd", "abcdef12")


def _positional(kind: str) -> Check:
    """A value in a synopsis's secret position: any literal, unless it is a typed example."""
    real = _real(kind)

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if any(run in value.lower() for run in _TYPED_RUNS):
            return None
        return real(value, m, text)

    return check


def _encoded_secret(value: str, m: re.Match[str], text: str) -> str | None:
    """The output of `printf %s "$NAME" | xxd -p` (or base64) when NAME names a secret."""
    if not secret_name_kind(m.group("name")) or is_placeholder(value):
        return None
    return "encoded-secret"


def _random(kind: str) -> Check:
    def check(value: str, m: re.Match[str], text: str) -> str | None:
        return kind if is_random(value) and not is_placeholder(value) else None

    return check


def _random_label(kind: str) -> Check:
    """A host's first label that was generated: letters and digits, not a hex account id."""

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if value.isalpha() or value.isdigit() or re.fullmatch(r"[0-9a-f]+", value):
            return None
        return kind if is_random(value) else None

    return check


_USER_BEFORE = _lazy(
    r"(?:\busername=|\buser=|[ \t]-U[ \t]*|[ \t]--user[= \t])[\"']?[A-Za-z0-9_.\\@-]{1,60}\Z"
)


def _after_user(kind: str) -> Check:
    """`user%password` as smbclient's `-U` and mount.cifs's `username=` take it."""
    real = _real(kind)

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if not _USER_BEFORE().search(text, max(m.start() - 80, 0), m.start()):
            return None
        return real(value, m, text)

    return check


_JDBC_LINE = _lazy(r"\bjdbc:|\bbeeline\b")


def _after_jdbc_user(kind: str) -> Check:
    """`-n USER -p PW` names a user and a password only for a JDBC client (elsewhere `-n` is a
    namespace and `-p` a pod or a port): the line must name one."""
    strong = _strong(kind)

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        if not _JDBC_LINE().search(text, start, len(text) if end < 0 else end):
            return None
        return strong(value, m, text)

    return check


def _named_generated(value: str, m: re.Match[str], text: str) -> str | None:
    """A generated value right after a word naming a secret: not a word, and not a digest
    unless the word is a strong one (`using token <40 hex>`, Todoist's token is 40 hex digits);
    after `key` alone (`Logged in with key ...`) it must look generated by itself."""
    name = m.group("name")
    if name.lower() == "key":
        return "secret-assignment" if is_generated_key(value) else None
    if not secret_name_kind(name) or _CAMEL.fullmatch(value):
        return None
    if _HEX().fullmatch(value) and is_weak_name(name):
        return None
    if not is_random(value) or is_placeholder(value) or _entropy(value) < 3.2:
        return None
    return "secret-assignment"


_URL_BESIDE = re.compile(r"(?im)^[ \t]*(?:url|endpoint|api_url|host|server)[ \t]*[:=]")
_DIGEST_WORDS = re.compile(r"sha|md5|hash|blake|crc|commit|rev|digest|sum")
# `pk_live_`, `pk_test_`: Stripe's, Clerk's and Paystack's publishable keys; a bare `pk_` is not
# one (Klaviyo's private API key starts `pk_`).
_PUBLIC_HALF = ("pk_live_", "pk_test_", "pkey_", "pub_", "public_", "publishable_", "client_")


def _beside_url(value: str, m: re.Match[str], text: str) -> str | None:
    if line_before(text, m.start()).strip():
        return None  # `key` must start its line (found from the literal, so the engine skips)
    window = text[max(m.start() - 400, 0) : m.end() + 400]
    return "secret-assignment" if _URL_BESIDE.search(window) else None


def _prefixed_key(value: str, m: re.Match[str], text: str) -> str | None:
    """A vendor's prefix then a generated body: hex of 32 or more, or letters and digits that
    look generated; a public half (`pkey_`, `pk_`) or a typed sample stays."""
    if value.lower().startswith(_PUBLIC_HALF) or is_placeholder(value):
        return None
    body = value.rsplit("_", 1)[-1]
    if _DIGEST_WORDS.search(value[: -len(body)]) or len(body) == 40:
        return None  # `sha256_<hex>`, `rev_<git sha>`: a digest named
    if re.fullmatch(r"[0-9a-f]{32,}", body) or (
        is_random(body) and len(body) >= 16 and _class_changes(body) >= 6
    ):
        return "secret-assignment"
    return None


def _labelled(value: str, m: re.Match[str], text: str) -> str | None:
    """A label's words read as a key name (`Stream key` as `Stream_key`); its value a generated
    key, a UUID or a long hex run, not a placeholder."""
    name = "_".join(m.group("name").split())
    if not secret_name_kind(name) or is_placeholder(value):
        return None
    if is_generated_key(value) or _UUID().fullmatch(value) or _HEX_KEY.fullmatch(value):
        return "secret-assignment"
    return None


_LABEL_ABOVE = _lazy(
    r"[ \t>#*-]*(?P<name>(?:[A-Z][A-Za-z]{1,20}[ \t]+(?:[a-z]{2,20}[ \t]+){0,2})?"
    r"(?i:key|token|secret|password|passphrase|credentials))[ \t]*\Z"
)


def _labelled_above(value: str, m: re.Match[str], text: str) -> str | None:
    """A value alone under its label (found from the label's colon, so the regex engine skips
    ahead to one): a key as `_labelled` takes it, or a long blob (a macaroon's base64) that
    mixes letters and digits and no word or sentence could be."""
    label = _LABEL_ABOVE().match(line_before(text, m.start()))
    if label is None:
        return None
    name = "_".join(label.group("name").split())
    if not secret_name_kind(name) or is_placeholder(value):
        return None
    if is_generated_key(value) or _UUID().fullmatch(value) or _HEX_KEY.fullmatch(value):
        return "secret-assignment"
    if len(value) < 40:
        return None
    return "secret-assignment" if is_random(value) and _entropy(value) >= 4.5 else None


def _client_url_key(value: str, m: re.Match[str], text: str) -> str | None:
    """The literal after an endpoint's URL in a call that builds a client: a capitalised class
    or factory (`DgraphClientStub.from_cloud`), or a name saying client or connect."""
    callee = _name_before(text, m.start())
    if not callee or not (
        re.search(r"(?:^|\.)[A-Z]", callee) or re.search(r"(?i)client|connect", callee)
    ):
        return None
    if is_placeholder(value) or not (is_generated_key(value) or _HEX_KEY.fullmatch(value)):
        return None
    return "secret-assignment"


_CLIENT_CALLEE = re.compile(r"(?i)client|api|connect|session|ssh|ftp|smtp|imap|pop3|database|\bdb")


def _host_user_password(value: str, m: re.Match[str], text: str) -> str | None:
    """The last literal of a client's constructor whose first is a host, once a user-like
    literal stands between them; it must look like a password (`_password_like`)."""
    callee = _name_before(text, m.start())
    if not callee or not _CLIENT_CALLEE.search(callee):
        return None
    middle = text[m.start() : m.start("vd" if m.group("vd") is not None else "vs")]
    if not re.search(r"[,(][ \t]*[\"'][A-Za-z][\w.@-]{0,60}[\"'][ \t]*,[^,]*\Z", middle):
        return None  # no user before the password
    if re.fullmatch(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?", value):
        return None  # a version (`1.25.3-alpine`), as an image or a protocol client takes one
    return "secret-assignment" if _password_like(value) else None


def _key_list(value: str, m: re.Match[str], text: str) -> str | None:
    """Each item generated (`k/lyem80a1+vVz...==`), under a name that is not a public one."""
    if "PUBLIC" in m.group("name") or is_placeholder(value):
        return None
    return "env-secret" if all(is_random(item) for item in value.split(",")) else None


def _into_secret_file(value: str, m: re.Match[str], text: str) -> str | None:
    if not is_secret_file(m.group("file")) or is_placeholder(value) or value.startswith("$"):
        return None
    return "secret-assignment"


def _bind_password(value: str, m: re.Match[str], text: str) -> str | None:
    """The literal after a bind DN, unless it is a search filter or another DN (`(uid=bob)`)."""
    if "=" in value or value.startswith("("):
        return None
    return _strong("secret-assignment")(value, m, text)


_STORED_HASH = re.compile(r"md5[0-9a-f]{32}|SCRAM-SHA-256\$")


def _auth_file_password(value: str, m: re.Match[str], text: str) -> str | None:
    """pgbouncer's `"user" "password"` line: a password, unless it is the stored hash."""
    if _STORED_HASH.match(value) or not is_strong(value):
        return None
    return _real("connection-password")(value, m, text)


def _in_jaas(value: str, m: re.Match[str], text: str) -> str | None:
    """Inside a JAAS section (`KafkaServer { ...LoginModule required ... };`)."""
    if "LoginModule" not in text[max(m.start() - 2000, 0) : m.start()] or is_placeholder(value):
        return None
    return "secret-assignment"


_PUBLIC_KEY_PREFIXES = ("pkey_", "pk_test_", "pk_live_", "pub_", "public_", "publishable_")


def _token_user(value: str, m: re.Match[str], text: str) -> str | None:
    """A generated user with an empty password is an API key (`-u skey_test_KEY:`); a key pair's
    public half there (Omise's `pkey_`, Stripe's `pk_test_`), used to make card tokens, stays."""
    if value.lower().startswith(_PUBLIC_KEY_PREFIXES) or is_placeholder(value):
        return None
    return "cli-password" if is_random(value) else None


def _generated_user(value: str, m: re.Match[str], text: str) -> str | None:
    """A user name that no one chose: upper case, lower case and digits, switching six times
    or more (`2IG5H2YOPbwHjFUUWz7s`, a device's access token as its MQTT user); `deploybot`,
    `ServiceAccount2024` or an upper-case id stay."""
    if not (_UPPER.search(value) and _LOWER.search(value) and _DIGIT.search(value)):
        return None
    if _class_changes(value) < 6 or _CAMEL.fullmatch(value) or is_placeholder(value):
        return None
    return "cli-password"


def _after_user_colon(value: str, m: re.Match[str], text: str) -> str | None:
    return "password-hash" if text[m.start() - 1 : m.start()] == ":" else None


_WEAK_FLAG_TAILS = ("KEY", "AUTH", "PAT")  # `--key server.pem`, `--key 2813...` (mix hex.*)


def _named_flag(kind: str) -> Check:
    """`--bindPassword PW`, `--AccessKeySecret KEY`: the flag's name, read by the shared lexicon,
    says a secret follows. A name ending in KEY (`--ssh-key deploy@laptop`) or AUTH names
    something else as often, so its value must also look generated."""
    strong = _strong(kind)

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        name = m.group("name")
        if not secret_name_kind(name) and name.lower() != "key":  # `--key` alone: below
            return None
        tail = name.replace("_", "-").upper().rsplit("-", 1)[-1]
        if tail.endswith(_WEAK_FLAG_TAILS) and not is_random(value.strip("\"'")):
            return None
        return strong(value, m, text)

    return check


# (flag, needles, tool): a short flag that takes a password or community only for that tool.
# fmt: off
_TOOL_FLAGS = [
    ("A", "snmp", r"\bsnmp[a-z]{0,12}(?:\.sh)?\b|\bnet-snmp-config\b"),  # SNMPv3 auth passphrase
    ("X", "snmp", r"\bsnmp[a-z]{0,12}(?:\.sh)?\b|\bnet-snmp-config\b"),  # SNMPv3 privacy passphrase
    ("c", "snmp", r"\bsnmp[a-z]{0,12}(?:\.sh)?\b"),  # SNMPv1/v2c community
    ("P", "mosquitto ipmitool mssql-cli", r"\bmosquitto_(?:pub|sub|rr)\b|\bipmitool\b|\bmssql-cli\b"),
    ("p", "cqlsh altool conan", r"\bcqlsh\b|\baltool\b|\bconan[ \t]+(?:remote[ \t]+login|user)\b"),
    ("i", "obsutil", r"\bobsutil(?:\.exe)?[ \t]+config\b"),  # Huawei OBS access key ID
    ("k", "obsutil", r"\bobsutil(?:\.exe)?[ \t]+config\b"),  # Huawei OBS secret access key
    ("w", "vsql", r"\bvsql\b"),  # Vertica's vsql: -w is the password (-W prompts for it)
    ("t", "codecov", r"\bcodecov(?:cli)?\b"),  # the upload token (a UUID)
    ("N", "ssh-keygen", r"\bssh-keygen\b"),  # the new passphrase (`-N ''` is none)
    ("P", "ssh-keygen", r"\bssh-keygen\b"),  # the old passphrase, with -p
    ("W", "pk12util", r"\bpk12util\b"),  # the PKCS #12 file's password (-w names a file)
    ("K", "pk12util", r"\bpk12util\b"),  # the key database's password (-k names a file)
    ("pass", "osslsigncode", r"\bosslsigncode\b"),  # the PKCS #12 file's password
    ("p", "vsce ovsx", r"\b(?:vsce|ovsx)\b"),  # VS Code's and Open VSX's publish token (--pat)
    ("t", "tfx", r"\btfx\b"),  # Azure DevOps' extension tool: its token
    ("p", "twine", r"\btwine\b"),  # the index's password (or an API token)
    ("p", "keychain", r"\bsecurity[ \t]+[a-z-]{0,30}keychain\b"),  # macOS: the keychain's password
    ("P", "security", r"\bsecurity[ \t]+import\b"),  # macOS: the imported .p12's passphrase
    ("k", "security", r"\bsecurity[ \t]+set-key-partition-list\b"),  # the keychain's password
    ("p", "login", r"\blogin\b"),  # a registry's or a platform's `login -u USER -p PW`
    ("p", "pfx p12", r"\.(?i:pfx|p12)\b"),  # a line naming a PKCS #12 file: -p is its password (iSign)
    # a line naming a Java keystore (Flutter's keystore_generator, flutter_auto_sign's `-k
    # FILE.jks`): -p is the store's password, -w the key's
    ("p", "keystore jks", r"(?i:keystore|\.jks\b)"),
    ("w", "keystore jks", r"(?i:keystore|\.jks\b)"),
    ("-auth", "espota", r"\bespota(?:\.py)?\b"),  # the ESP boards' OTA uploader: its password
    ("a", "espota", r"\bespota(?:\.py)?\b"),
]
# (head, needles): an environment lookup, each led by a literal so the regex engine skips ahead
# to it (`getenv`, `os.environ.get`, `env::var`, `process.env`, Laravel's `env(`; C#'s
# `GetEnvironmentVariable`; Ruby's `ENV[`, `ENV.fetch`)
_ENV_LOOKUPS = [
    (r"env(?:iron)?(?:\.get)?|env::var", "getenv environ env::var env. env[ env("),
    (r"EnvironmentVariable", "environmentvariable"),
    (r"ENV(?:\.fetch)?", "env[ env.fetch"),
]
# (call, needles): client constructors whose arguments are an application id, then a key.
_ID_KEY_CONSTRUCTORS = [
    (r"\balgoliasearch", "algoliasearch"),  # Algolia's JavaScript client
    (r"\bsearch\.NewClient", "search.newclient"),  # Algolia's Go client
    (r"\bSearchClient(?:\.create|::create|\.Create)?", "searchclient"),  # Algolia's other clients
]
# (call, needles, arguments before the password): calls that take a password by position.
_PASSWORD_ARGUMENTS = [
    (r"\bsmtp\.PlainAuth", "plainauth", 2),  # Go: PlainAuth(identity, username, password, host)
    (r"\bPasswordAuthentication", "passwordauthentication", 1),  # Java: (user, password chars)
    (r"\bNet::SMTP\.start", "net::smtp", 4),  # Ruby: start(address, port, helo, user, secret, ...)
    (r"\bDriverManager\.getConnection", "drivermanager", 2),  # Java: (url, user, password)
    (r"\bnew[ \t]+PDO", "pdo", 2),  # PHP: new PDO($dsn, $user, $password)
    (r"\b(?:mysqli_connect|new[ \t]+mysqli)", "mysqli", 2),  # PHP: (host, user, password, db)
    (r"\.login", ".login", 1),  # smtplib, imaplib, poplib, ftplib: login(user, password)
    (r"PDO->__construct", "pdo->__construct", 2),  # PHP's stack trace prints the call's arguments
]
# Windows tools take options after a slash; these slash flags take a password.
_SLASH_FLAGS = [
    ("p", "signtool", r"\bsigntool(?:\.exe)?\b"),  # the .pfx file's password
    ("rp", "schtasks", r"\bschtasks(?:\.exe)?\b"),  # the run-as user's password (`/rp *` prompts)
    ("p", "schtasks", r"\bschtasks(?:\.exe)?\b"),  # the remote user's password, with /s and /u
]
# fmt: on


# A generated value that happens to start with a dash (keytool's `-storepass -UwTZzrXB3-jZrx`):
# nine or more letters and digits mixing both cases and a digit, or a sign no flag holds
# (`-!ZdS6C`); a flag's name (`-Xmx512m`, `-DskipTests`) has no such run.
_DASH_LED = (
    r"-(?:(?=[A-Za-z0-9]{9})(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z])"
    r"(?=[A-Za-z0-9]*[a-z][A-Za-z0-9]*[a-z])|(?=[!^~*#%@+]))"
)


# One literal argument before the one that matters: a string, a number or a name.
_ARGUMENT = r"(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[\w.$:@]{1,100})"


def _keyed(kind: str, names: tuple[str, ...], named: bool) -> Check:
    """A literal under one of `names` when it looks generated (Koa's `app.keys = ['...']`,
    CodeIgniter's `public string $key = '...'`), or, when `named`, under a name that says secret."""
    by_name = _named(kind)

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if m.group("name").rsplit(".", 1)[-1].lower() in names:
            return kind if is_random(value) and not is_placeholder(value) else None
        return by_name(value, m, text) if named else None

    return check


def _tool_flag(tool: str) -> Check:
    """The flag's value when the line runs `tool`: a quoted value, or a bare one that is not a
    plain lowercase word (`-c public` is the documented default community)."""
    pattern = re.compile(tool)
    real = _real("cli-password")

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        if not pattern.search(line_before(text, m.start())):
            return None
        if value.isalpha() and value.islower() and m.group("vb") is not None:
            return None
        return real(value, m, text)

    return check


# Headers whose value is an API key though their name says no token, key or secret.
_KEY_HEADERS = (
    "x-honeycomb-team",  # Honeycomb's API key, as its API reference sends it
)

# fmt: off
RULES: list[Rule] = [
    # --- vendor prefixes ------------------------------------------------------------------------
    rule("sonarqube-token", r"sq[apu]_(?P<v>[0-9a-f]{40})\b", "sqa_ sqp_ squ_", bounded=True),
    rule("honeycomb-key", r"hc[a-z]{1,2}ik_[0-9a-z]{50,70}\b", "ik_", bounded=True),
    rule("buildkite-token", r"bk(?:ua|ct|at)_[0-9a-f]{40}\b", "bkua_ bkct_ bkat_", bounded=True),
    rule("slack-token", r"xox[cd]-[A-Za-z0-9%_.-]{20,400}", "xoxc- xoxd-", bounded=True),
    rule("tailscale-key", r"tskey-[a-z]{3,8}-[A-Za-z0-9]{8,40}-[A-Za-z0-9]{20,60}", "tskey-"),
    rule("readme-key", r"rdme_[a-z0-9]{60,80}\b", "rdme_", _random("readme-key"), bounded=True),
    rule("readme-key", r"rdme_[A-Za-z0-9]{60,80}\b", "rdme_", _random("readme-key"), bounded=True),
    rule("typeform-token", r"tfp_[A-Za-z0-9_-]{40,70}", "tfp_", _random("typeform-token"), bounded=True),
    rule("octopus-key", r"API-[A-Z0-9]{25,32}\b", "api-", _random("octopus-key"), bounded=True),
    rule("telegram-bot-token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{32,33}", ":aa", _real("telegram-bot-token")),
    rule("gitlab-token", r"gl(?:ptt|rt|cbt|dt|ft|imt|agent|oas|soat|ffct)-[A-Za-z0-9_-]{20,64}", "gl", bounded=True),
    # LaunchDarkly's server-side SDK key is `sdk-` and a UUID (the `mob-` mobile key is public)
    rule("launchdarkly-key", r"sdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "sdk-", bounded=True),
    # --- HTTP auth schemes and credential headers ----------------------------------------------
    rule(
        "auth-header",
        r"[Aa](?i:uthorization)[\"']?[ \t]*[:=][ \t]*[\"'`]?(?!(?i:bearer|basic|digest|aws4)\b)"
        r"(?:[A-Za-z][A-Za-z0-9-]{1,30}[ \t]+){1,3}(?P<v>[A-Za-z0-9+/=._~:-]{12,400})",
        "authorization", _real("auth-header"),
    ),
    rule("auth-header", r"(?i:response|signature)=\"?(?P<v>[0-9a-f]{32,128})", "response= signature=", _real("auth-header")),
    rule(
        "auth-header",
        r"(?m)^[<> \t]*(?P<name>(?i:x-)?[A-Za-z][A-Za-z0-9-]{0,40}(?i:token|key|secret|auth))"
        r"[ \t]*:[ \t]*(?P<v>[A-Za-z0-9+/=._~-]{12,400})",
        "token key secret auth", _named("auth-header"),
    ),
    rule(
        "auth-header",
        r"(?P<q>[\"'])(?P<name>[Xx]-[A-Za-z0-9-]{1,40})(?P=q)[ \t]*[:,][ \t]*" + _Q,
        "x-", _named("auth-header"),
    ),
    # headers whose name does not say they carry a key, though they do
    rule("auth-header", r"(?i:" + "|".join(_KEY_HEADERS) + r")[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[A-Za-z0-9_-]{12,200})", " ".join(_KEY_HEADERS), _real("auth-header")),
    # --- webhook URLs whose path is the credential ----------------------------------------------
    rule("webhook-url", r"\.webhook\.office\.com/webhookb2/(?P<v>[^\s\"'<>]{20,800})", "webhook.office.com"),
    rule("webhook-url", r"[?&]sig=(?P<v>[A-Za-z0-9%_-]{20,200})", "sig=", _real("webhook-url")),
    rule("webhook-url", r"https?://[A-Za-z0-9.-]{1,200}(?::\d+)?/hooks/(?P<v>[A-Za-z0-9]{15,60}(?:/[A-Za-z0-9]{15,80})?)", "/hooks/", _real("webhook-url")),
    rule("webhook-url", r"hooks\.zapier\.com/hooks/catch/(?P<v>\d{3,12}/[a-z0-9]{4,12})", "hooks.zapier.com"),
    rule("webhook-url", r"/with/key/(?P<v>[A-Za-z0-9_-]{12,60})", "/with/key/", _real("webhook-url")),
    rule("webhook-url", r"hook\.[a-z0-9]{2,8}\.make\.com/(?P<v>[a-z0-9]{20,40})", "make.com"),
    rule("webhook-url", r"/open-apis/bot/v2/hook/(?P<v>[A-Za-z0-9-]{20,60})", "/open-apis/bot/"),
    rule("webhook-url", r"/bot(?P<v>\d{6,12}:[A-Za-z0-9_-]{30,40})", "/bot", _real("webhook-url")),
    rule("webhook-url", r"\bapi\.day\.app/(?P<v>[A-Za-z0-9]{16,40})(?=[/?#\s\"']|$)", "api.day.app", _real("webhook-url")),
    rule("webhook-url", r"https?://[A-Za-z0-9.-]{1,200}/(?P<v>[A-Za-z0-9_-]{20,100})\.send\b", ".send", _random("webhook-url")),
    rule("webhook-url", r"/api/webhooks/\d{6,20}/(?P<v>[A-Za-z0-9_-]{30,100})", "/api/webhooks/"),
    # an endpoint whose random subdomain is its key (Pipedream's `https://ID.m.pipedream.net`),
    # under a name that says endpoint or webhook; an account id in hex, or a word, stays
    rule("webhook-url", r"(?i:endpoint|webhook|hook_url)\w{0,30}[\"']?[ \t]*[=:][ \t]*[\"']?https?://(?P<v>[a-z0-9]{16,40})\.(?:[a-z0-9-]{1,63}\.){1,3}[a-z]{2,24}(?=[/:\"'\s?#]|$)", "endpoint webhook hook_url", _random_label("webhook-url")),
    # a key's constructor given the key (`AdminApiKey::new("ID:SECRET")`, `Token::from("...")`)
    rule("secret-assignment", r"\b\w{0,30}(?:Api[Kk]ey|Token|Secret)(?:::|\.)(?:new|from|parse)\([ \t]*\"(?P<v>[^\"\s]{16,400})\"", "key::new key::from key::parse token::new token::from secret::new secret::from key.new token.new", _random("secret-assignment")),
    # Buildbot's `create-worker BASEDIR MASTER NAME PASSWORD` (and the older `create-slave`)
    rule("cli-password", r"\bcreate-(?:worker|slave)(?:[ \t]+-[-\w=]{1,40})*(?:[ \t]+[^\s\"'`<>|;&-][^\s|;&]{0,200}){3}[ \t]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{2,200})", "create-worker create-slave", _real("cli-password")),
    # a YAML key that says secret whose only child is its value (DevSpace's `vars: NAME: value:`)
    rule("password-assignment", r"(?m)^[ \t]*(?P<name>[A-Za-z_][\w.-]{0,60}):[ \t]*\n[ \t]+value:[ \t]*" + _Q, "value:", _named("password-assignment")),
    # --- connection strings without :// -------------------------------------------------------
    rule("connection-password", r":thin:[A-Za-z0-9_$#.-]{1,60}/(?P<v>[^@\s\"']{1,200})@", ":thin:", _real("connection-password")),
    rule("connection-password", r"\b(?:sqlplus|expdp|impdp|sqlldr|dgmgrl|rman[ \t]+target)[ \t]+(?:-\S{1,20}[ \t]+){0,4}(?:userid=)?[A-Za-z0-9_$#.-]{1,60}/(?P<v>[^@\s\"'/]{1,200})@", "sqlplus expdp impdp sqlldr dgmgrl rman", _real("connection-password")),
    rule(
        "connection-password",
        r"(?<![A-Za-z0-9_.])(?i:pwd|password|passwd|pass)[ \t]*=[ \t]*(?:\{(?P<vb>[^}\n]{1,200})\}|\"(?P<vd>[^\"\n]{1,200})\"|'(?P<vs>[^'\n]{1,200})'|(?P<v>[^\s\"'`<>;,&|{}()]{3,200}))",
        "pwd password passwd pass", _real("connection-password"),
    ),
    rule("connection-password", r"(?m)^[A-Za-z0-9_.*\[\]:-]{1,200}:(?:\d{1,5}|\*):[^\s:#]{1,100}:[^\s:]{1,100}:(?P<v>[^\s]{1,200})$", ":", _real("connection-password")),
    rule("connection-password", r"(?m)(?:^|> ?)[ \t]*AUTH[ \t]+(?:[A-Za-z0-9_.-]{1,60}[ \t]+)?(?P<v>[^\s<>]{1,200})[ \t]*$", "auth", _real("connection-password")),
    # Teradata BTEQ's `.LOGON tdpid/user,password;` (without the password BTEQ prompts for it)
    rule("connection-password", r"(?im)^[ \t]*\.logon[ \t]+(?:[\w.-]{1,100}/)?[\w$#.-]{1,60},(?P<v>[^\s;]{1,200})", ".logon", _real("connection-password")),
    # ZooKeeper's `addauth digest user:password` (`setAcl ... digest:user:HASH:cdrwa` is a hash)
    rule("connection-password", r"\baddauth[ \t]+digest[ \t]+[^\s:]{1,60}:(?P<v>[^\s]{1,200})", "addauth", _real("connection-password")),
    # pgbouncer's auth_file: a line of `"user" "password"`; a stored md5 or SCRAM hash stays
    rule("connection-password", r"(?m)^\"[A-Za-z0-9_.@-]{1,63}\"[ \t]+\"(?P<v>[^\"\s]{6,200})\"[ \t]*$", "\"", _auth_file_password),
    # --- CLI flags that take a password --------------------------------------------------------
    rule(
        "cli-password",
        r"[ \t]--?(?:(?:src|dest|new)?(?:store|key)pass|passphrase|password|http-password|proxy-password)[ \t=]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200})",
        "pass", _strong("cli-password"),
    ),
    rule(
        "cli-password",
        r"[ \t]--?(?:[a-z0-9]{1,20}-){1,3}(?:pwd|pass|passwd|password|passphrase|secret|token)[ \t=]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200})",
        "pwd pass secret token", _strong("cli-password"),
    ),
    rule("cli-password", r"[ \t]-pass(?:in|out)[ \t]+pass:(?P<v>[^\s\"'`<>|;&]{1,200})", "pass:", _real("cli-password")),
    rule("cli-password", r"[ \t]-k[ \t]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200})", "openssl", _on_line(r"\bopenssl\b")),
    rule("cli-password", r"[ \t]-P[ \t]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200})", "zip", _on_line(r"\b(?:un)?zip\b")),
    # short flags that take a password only for some tools, from each tool's manual page; led
    # by the flag's literal, so the regex engine skips ahead to it
    *[
        rule("cli-password", "-" + flag + r"(?<=[ \t]-" + flag + r")(?:[ \t]+|=)(?:" + _Q[3:-1] + r"|(?P<vb>(?:[^\s\"'`<>|;&$-]|-(?![A-Za-z-]))[^\s\"'`<>|;&]{2,200}))", needles, _tool_flag(tool))
        for flag, needles, tool in _TOOL_FLAGS
    ],
    *[
        rule("cli-password", r"[ \t]/" + flag + r"[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`<>|;&$/-][^\s\"'`<>|;&]{2,200}))", needles, _tool_flag(tool))
        for flag, needles, tool in _SLASH_FLAGS
    ],
    rule("cli-password", r"[ \t]-[wsy][ \t]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200})", "ldap", _on_line(r"\bldap[a-z]{0,12}\b")),
    rule("cli-password", r"(?:^|\s)-(?:u|-username|-user)[ \t]+[^\s-]\S{0,60}[ \t]+-[pP][ \t]+(?:" + _Q[3:-1] + r"|(?P<v>[^\s\"'`<>|;&$][^\s\"'`<>|;&]{3,200}))", "-p", _strong("cli-password")),
    # `-u=USER -p=PW` (OpenShift's `oc login`), `-n USER -p PW` (a JDBC client's user and
    # password, Hive's beeline): the password slot after a user flag; `-n NS -p POD` stays weak
    rule("cli-password", r"(?:^|\s)-u=[^\s=-]\S{0,60}[ \t]+-p=(?:" + _Q[3:-1] + r"|(?P<v>[^\s\"'`<>|;&$][^\s\"'`<>|;&]{3,200}))", "-p=", _strong("cli-password")),
    rule("cli-password", r"(?:^|\s)-n[ \t]+[^\s-]\S{0,60}[ \t]+-p[ \t]+(?:" + _Q[3:-1] + r"|(?P<v>[^\s\"'`<>|;&$][^\s\"'`<>|;&]{3,200}))", "-p", _after_jdbc_user("cli-password")),
    # Kamailio's and OpenSIPS' `kamctl add USER PASSWORD`, `opensipsctl passwd USER PASSWORD`
    rule("cli-password", r"\b(?:kamctl|opensipsctl|opensips-cli[ \t]+-x[ \t]+user)[ \t]+(?:add|passwd)[ \t]+[^\s\"'-]\S{0,100}[ \t]+(?:" + _Q[3:-1] + r"|(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200}))", "kamctl opensips", _real("cli-password")),
    # Asterisk's sip.conf and iax.conf: `register => USER:SECRET@HOST[/EXTENSION]`
    rule("connection-password", r"\bregister[ \t]*=>[ \t]*[^\s:@/]{1,100}:(?P<v>[^\s:@/]{3,200})(?::[^\s:@/]{1,100})?@", "register", _real("connection-password")),
    rule("cli-password", r"\b(?:7z|7za|unrar|rar)[ \t][^\n]{0,200}?[ \t]-p(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200})", "7z rar", _strong("cli-password")),
    rule("cli-password", r"\bsshpass[ \t]+-p[ \t]*(?P<v>[^\s\"'`<>|;&$][^\s\"'`<>|;&]{2,200})", "sshpass", _real("cli-password")),
    rule("cli-password", r"(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"'$]{0,60}:(?P<v>[^\s\"'$][^\s\"']{3,400})", "-u --user", _strong("cli-password")),
    # a token as the user, its password empty (curl's `-u sk_test_KEY:`, as Stripe-like APIs
    # document it), and a generated value as the user (an MQTT device's access token); a name
    # there (`-u deploy:`, `-u admin`) stays
    rule("cli-password", r"(?:-u|--user)(?:[ \t]+|=)[\"']?(?P<v>[A-Za-z0-9_.-]{16,200}):(?![^\s\"'\\])", "-u --user", _token_user),
    rule("cli-password", r"-(?<=[ \t]-)(?:u|-user(?:name)?|-?username)(?:[ \t]*[=:][ \t]*|[ \t]+)[\"']?(?P<v>[A-Za-z0-9]{16,100})(?![\w.@-])", "-u --user -username", _generated_user),
    rule("cli-password", r"sername(?<=\b[Uu]sername)(?:[ \t]*[=:][ \t]*|[ \t]+)[\"']?(?P<v>[A-Za-z0-9]{16,100})(?![\w.@-])", "username", _generated_user),
    # a long flag naming auth or credentials that takes `user:password` (mitmproxy's
    # `--upstream-auth`, `--proxy-auth`, `--basic-auth`, `--creds`), curl's `-U` (`--proxy-user`)
    # and ApacheBench's `-A` and `-P`: the password after the colon
    rule("cli-password", r"--(?:[a-z0-9]{1,20}-){0,2}(?:auth|proxy-user|creds|credentials|userpass|user-pass)(?:[ \t]+|=)[\"']?[^\s:\"'$/-][^\s:\"'/]{0,60}:(?P<v>[^\s\"'$/][^\s\"']{2,400})", "auth proxy-user creds credentials userpass user-pass", _strong("cli-password"), bounded=True),
    rule("cli-password", r"-[UAP][ \t]+[\"']?[^\s:\"'$/-][^\s:\"'/]{0,60}:(?P<v>[^\s\"'$/][^\s\"']{2,400})", "curl ab", _on_line(r"\bcurl\b|\bab\b"), bounded=True),
    rule("cli-password", r"\b(?:https?|xhs?)(?:[ \t][^\n|;&]{0,200}?)?[ \t](?:-a|--auth)(?:=|[ \t]+)[\"']?[^\s:\"'$-][^\s:\"']{0,60}:(?P<v>[^\s\"'$][^\s\"']{2,400})", "http xh", _real("cli-password")),
    rule("cli-password", r"\btransmission-remote\b[^\n|;&]{0,200}?[ \t](?:-n|--auth)(?:=|[ \t]+)[\"']?[^\s:\"'$-][^\s:\"']{0,60}:(?P<v>[^\s\"'$][^\s\"']{2,400})", "transmission-remote", _real("cli-password")),
    rule("cli-password", r"\blftp[ \t]+(?:-\S{1,10}[ \t]+){0,4}-u[ \t]+[^\s,]{1,60},(?P<v>[^\s\"']{3,200})", "lftp", _real("cli-password")),
    rule("cli-password", r"[ \t]/p:(?P<v>[^\s\"']{3,200})", "/p:", _strong("cli-password")),
    # the password by position: `rabbitmqctl add_user NAME PW`, `wpa_passphrase SSID PW`,
    # `mosquitto_passwd -b FILE USER PW`; quoted or bare, as their synopses allow
    rule("cli-password", r"\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S{1,60}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$][^\s\"']{2,200}))", "rabbitmqctl", _real("cli-password")),
    rule("cli-password", r"\bwpa_passphrase[ \t]+\S{1,60}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$][^\s\"']{7,200}))", "wpa_passphrase", _real("cli-password")),
    # `b2 account authorize KEY_ID APP_KEY` (and the older `b2 authorize-account`),
    # `wandb login [--relogin] KEY`, `steamcmd +login USER PASSWORD`, SAP HANA's
    # `hdbuserstore SET KEY HOST:PORT USER PASSWORD`: each synopsis puts the secret last
    rule("cli-password", r"\bb2[ \t]+(?:account[ \t]+authorize|authorize-account|authorize_account)[ \t]+[^\s\"'$-]\S{0,60}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$-][^\s\"']{7,200}))", "b2", _positional("cli-password")),
    rule("cli-password", r"\bsnyk[ \t]+auth(?:[ \t]+--[\w-]{1,30}(?:=\S{1,60})?)*[ \t]+(?P<v>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", "snyk", _positional("cli-password")),
    rule("cli-password", r"\bwandb[ \t]+login(?:[ \t]+--?(?:relogin|anonymously|verify|cloud)\b)*[ \t]+(?P<v>[A-Za-z0-9_-]{32,120})(?![^\s;&|])", "wandb", _positional("cli-password")),
    rule("cli-password", r"\bsteamcmd[^\n]{0,300}?[ \t]\+login[ \t]+[^\s+\"'$]\S{0,60}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s+\"'$][^\s\"']{2,200}))", "steamcmd", _positional("cli-password")),
    rule("cli-password", r"\bhdbuserstore(?:[ \t]+-\S{1,20})*[ \t]+(?i:set)[ \t]+\S{1,60}[ \t]+\S{1,300}[ \t]+\S{1,100}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$][^\s\"']{2,200}))", "hdbuserstore", _positional("cli-password")),
    # a bootstrap token, in kubeadm's shape, where kubeadm prints it (`kubeadm token list`'s
    # table, `token create`'s line); its secret half must look generated
    rule("join-token", r"(?<![\w.-])(?P<v>[a-z0-9]{6}\.[a-z0-9]{16})(?![\w.-])", "kubeadm", lambda value, m, text: "join-token" if is_random(value[7:]) and not is_placeholder(value) else None),
    # a secret-named variable hex- or base64-encoded on screen: the next line is the secret
    rule("encoded-secret", r"(?m)(?:echo|printf)(?:[ \t]+-[neE]{1,3})?(?:[ \t]+'%s')?[ \t]+\"?\$\{?(?P<name>[A-Za-z_][A-Za-z0-9_]{0,60})\}?\"?[ \t]*\|[ \t]*(?:xxd[ \t]+-p|base64|basenc[ \t]+--base16|od[ \t]+-A[ \t]*n[ \t]+-t[ \t]*x1)[^\n]{0,40}\n(?P<v>[A-Za-z0-9+/=]{16,400})$", "xxd base64 basenc od", _encoded_secret),
    # the Python client's `wandb.login(key="...")`: `key` alone is too weak a name elsewhere
    rule("cli-password", r"\bwandb\.login\([^)\n]{0,200}?\bkey[ \t]*=[ \t]*" + _Q, "wandb.login", _positional("cli-password")),
    rule("cli-password", r"mosquitto_passwd[ \t]+-b[ \t]+\S{1,300}[ \t]+\S{1,100}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$][^\s\"']{2,200}))", "mosquitto_passwd", _real("cli-password"), bounded=True),
    # a flag whose own name the shared lexicon calls secret, in any case (`--bindPassword`,
    # `--AccessKeySecret`); a name ending in KEY or AUTH needs a generated-looking value
    rule("cli-password", r"-(?<=[ \t]-)-?(?P<name>[A-Za-z][A-Za-z0-9]{1,40}(?:[-_][A-Za-z0-9]{1,30}){0,4})(?:=|[ \t]+)(?:" + _Q[3:-1] + r"|(?P<vb>(?:[^\s\"'`<>|;&$-]|" + _DASH_LED + r")[^\s\"'`<>|;&]{3,200}))", "-", _named_flag("cli-password")),
    # a client built from (application id, key), as each vendor's quickstart writes it: the
    # second literal is the API key; it must look generated, so `'YOUR_API_KEY'` stays
    *[
        rule("secret-assignment", call + r"\([ \t]*[\"'][A-Za-z0-9_-]{4,60}[\"'][ \t]*,[ \t]*" + _Q + r"[ \t]*[,)]", needles, _random("secret-assignment"))
        for call, needles in _ID_KEY_CONSTRUCTORS
    ],
    # an application id that is the API key (OpenWeatherMap's appid, 32 hex): a WeChat or
    # Facebook app id (`wx` and hex, digits) has another shape and stays
    rule("secret-assignment", r"(?:appid|APPID|AppId|appId)(?<![A-Za-z0-9][A-Za-z]{5})[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[0-9a-f]{32})(?![\w-])", "appid", _random("secret-assignment")),
    # the Subsonic API's token auth (Navidrome, Airsonic, Gonic): u=USER, t=md5(password+salt)
    # and its salt s=, in a URL's query or a server's log; the token is the password's stand-in
    rule("secret-assignment", r"t=(?<![\w.-]t=)(?P<v>[0-9a-f]{32})(?![\w-])(?=[^\n]{0,300}?[&\s]s=\w)", "&t= t=", _on_line(r"(?:[?&\s]u|username)=\w")),
    # an HMAC's key given as a literal, where each language's call takes it: Node's
    # createHmac(ALG, KEY), Ruby's OpenSSL::HMAC.hexdigest(ALG, KEY, DATA), Python's
    # hmac.new(KEY, ...), Go's hmac.New(HASH, []byte(KEY)), Java's new SecretKeySpec(KEY...),
    # PHP's hash_hmac(ALG, DATA, KEY); `'secret'` or `process.env.X` there stays
    rule("secret-assignment", r"(?:createHmac|HMAC\.(?:hexdigest|digest|base64digest))\([ \t]*[\"'][\w-]{2,20}[\"'][ \t]*,[ \t]*" + _Q, "hmac", _real("secret-assignment")),
    rule("secret-assignment", r"hmac(?<![\w.]hmac)\.new\([ \t]*(?:[bB](?=[\"']))?" + _Q, "hmac.new", _real("secret-assignment")),
    rule("secret-assignment", r"hmac(?<![\w.]hmac)\.New\([ \t]*[\w.]{1,40}[ \t]*,[ \t]*\[\]byte\([ \t]*" + _Q, "hmac.new", _real("secret-assignment")),
    rule("secret-assignment", r"SecretKeySpec\((?<=\bnew SecretKeySpec\()[ \t]*" + _Q, "secretkeyspec", _real("secret-assignment")),
    rule("secret-assignment", r"hash_hmac(?<![\w.]hash_hmac)\([ \t]*[\"'][\w-]{2,20}[\"'][ \t]*,[ \t]*[^,\n]{1,200},[ \t]*" + _Q, "hash_hmac", _real("secret-assignment")),
    # a dotted long flag read by its last part (`arangosh --server.password PW`): the section
    # before the dot names where the option lives, the last part what it holds
    rule("cli-password", r"[ \t]--(?:[A-Za-z][A-Za-z0-9-]{0,40}\.){1,4}(?P<name>[A-Za-z][A-Za-z0-9]{1,40}(?:[-_][A-Za-z0-9]{1,30}){0,4})(?:=|[ \t]+)(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{3,200}))", "--", _named_flag("cli-password")),
    rule("cli-password", r"\bnmcli\b[^\n]{0,200}?[ \t]password[ \t]+(?P<v>[^\s\"'$][^\s\"']{2,200})", "nmcli", _real("cli-password")),
    rule("cli-password", r"\bnet[ \t]+use[ \t]+(?:[A-Za-z]:[ \t]+)?\\\\\S{1,200}[ \t]+(?:/user:\S{1,200}[ \t]+)?(?P<v>[^\s/\"'$][^\s\"']{2,200})", "net use", _real("cli-password")),
    rule("cli-password", r"\bmc[ \t]+alias[ \t]+set[ \t]+\S{1,60}[ \t]+\S{1,300}[ \t]+\S{1,200}[ \t]+(?P<v>[^\s\"'$][^\s\"']{2,200})", "mc alias", _real("cli-password")),
    rule("cli-password", r"-D[A-Za-z0-9_.]{0,100}(?i:password|secret|token)[ \t]*=(?P<v>[^\s\"'$][^\s\"']{2,200})", "-d", _real("cli-password")),
    rule("cli-password", r"\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?" + _Q, "convertto-securestring", _real("cli-password")),
    # a quoted value after a flag that takes a password (PowerShell's `-Password '...'`)
    rule("cli-password", r"[ \t]--?(?i:password|passphrase|secret|token|apikey|api-key|accesstoken|access-token|pwd)[ \t]+" + _Q, "password passphrase secret token apikey api-key accesstoken access-token pwd", _real("cli-password")),
    # environment variables a tool reads its password from (`sshpass -e`, smbclient, rsync)
    rule("cli-password", r"\b(?:SSHPASS|SMBPASS|PASSWD|RSYNC_PASSWORD|ISPASS)[ \t]*=[ \t]*(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`$;&|]{3,200}))", "sshpass smbpass passwd rsync_password", _real("cli-password")),
    # smbclient //server/share PASSWORD; -U user%password; -o username=user%password
    rule("cli-password", r"\bsmbclient[ \t]+(?:-\S{1,40}[ \t]+)*(?://|\\\\)\S{1,200}[ \t]+(?P<v>[^\s\"'`$<>|;&-][^\s\"'`<>|;&]{2,200})", "smbclient", _strong("cli-password")),
    rule("cli-password", r"(?<=[A-Za-z0-9_.@-])%(?P<v>[^\s,\"'%][^\s,\"']{2,200})", "%", _after_user("cli-password")),
    # rclone obscure PASSWORD (the plain password it is asked to obscure)
    rule("cli-password", r"\brclone[ \t]+obscure[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`$<>|;&-][^\s\"'`<>|;&]{2,200}))", "obscure", _real("cli-password")),
    # Redis: CONFIG SET requirepass "..." / masterauth
    rule("cli-password", r"(?i:config[ \t]+set)[ \t]+(?i:requirepass|masterauth)[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`$<>|;&][^\s\"'`<>|;&]{2,200}))", "requirepass masterauth", _real("cli-password")),
    # a short note in parentheses: `(pw: ...)`, `(pass = ...)`
    rule("prose-secret", r"\((?i:pw|pwd|pass|passwd|password)[ \t]*[:=][ \t]*(?P<v>[^\s)\"'`,;]{4,200})", "(pw (pwd (pass", _strong("prose-secret")),
    # --- source literals: a secret name as a key or argument, the value beside it ---------------
    rule(
        "secret-assignment",
        r"(?P<q>[\"'])(?P<name>[A-Za-z][A-Za-z0-9_.-]{1,60})(?P=q)[ \t]*(?:\][ \t]*=|,|=>|:)[ \t]*" + _Q,
        "' \"", _named_literal("secret-assignment"),
    ),
    # a map under a secret name keyed by host (Composer's `{"gitlab-token": {"host": "..."}}`)
    rule(
        "secret-assignment",
        r"\"(?P<name>[A-Za-z][A-Za-z0-9_.-]{1,60})\"[ \t]*:[ \t]*\{[ \t\r\n]*\"[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,6}(?::\d{1,5})?\"[ \t]*:[ \t]*" + _Q,
        "{", _named("secret-assignment"),
    ),
    rule("secret-assignment", r"\bauth=\([ \t]*[\"'][^\"'\n]{1,60}[\"'],[ \t]*" + _Q, "auth=(", _real("secret-assignment")),
    rule("secret-assignment", r"\b(?:jwt\.encode|hmac\.new|HMAC)\([^,\n]{1,80},[ \t]*" + _Q, "jwt.encode hmac", _random("secret-assignment")),
    # C and C++ macros, typed declarations: `#define API_KEY "..."`, `Const ApiKey As String = "..."`,
    # `let apiKey: String = "..."`, `const API_KEY: &str = "..."`
    rule("secret-assignment", r"#[ \t]*define[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]{0,60})[ \t]+(?:L|u8|u|U)?(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`<>;,&|(]{4,400})(?=[ \t]*(?:$|\n|//|/\*)))", "define", _named_literal("secret-assignment")),
    rule("secret-assignment", r"(?:[ \t]+As[ \t]+[A-Za-z_][\w.]{0,40}|[ \t]*:[ \t]*&?(?:'static[ \t]+)?[A-Za-z_][\w.<>\[\]]{0,40}\??)[ \t]*=[ \t]*" + _Q, ": as", _declared("secret-assignment")),
    # PHP: `$dbpasswd = '...';`, `public string $key = '...';` (a statement, not a comparison)
    rule("secret-assignment", r"(?m)(?:^|[;{])[ \t]*(?:(?:public|private|protected|var|static|readonly)[ \t]+)*(?:\??[A-Za-z_][\w\\]{0,40}[ \t]+)?\$(?P<name>[A-Za-z_]\w{0,60})[ \t]*=[ \t]*" + _Q + r"[ \t]*;", "$", _keyed("secret-assignment", ("key",), True)),
    # a list of signing keys under a secret's name (Koa's `app.keys = ['...', ...]`)
    rule("secret-assignment", r"(?P<name>(?i:keys|secrets))[\"']?[ \t]*[=:][ \t]*\[[ \t]*" + _Q, "keys secrets", _keyed("secret-assignment", ("keys", "secrets"), False), bounded=True),
    # the default of an environment lookup: `env('SECURITY_SALT', '...')`, `os.getenv("X", "...")`
    rule("secret-assignment", r"\b(?:env|getenv|os\.getenv|os\.environ\.get|ENV\.fetch|System\.getenv|Deno\.env\.get)\([ \t]*[\"'](?P<name>[A-Za-z_][\w.]{0,60})[\"'][ \t]*,[ \t]*" + _Q, "env(", _named("secret-assignment")),
    # a password in its documented argument slot of a client call (Go's smtp.PlainAuth, ...)
    *[
        rule("secret-assignment", call + r"\([ \t]*(?:" + _ARGUMENT + r"[ \t]*,[ \t]*){" + str(index) + r"}" + _Q, needles, _real("secret-assignment"))
        for call, needles, index in _PASSWORD_ARGUMENTS
    ],
    # a bind DN then a literal in one argument list: the bind's password (python-ldap's
    # `simple_bind_s(dn, pw)`, PHP's `ldap_bind($c, dn, pw)`, a log's `"args":[dn, pw]`)
    rule("secret-assignment", r"[\[(,][ \t]*[\"'](?i:cn|uid)=[^\"'\n]{1,200}[\"'][ \t]*,[ \t]*" + _Q, "cn= uid=", _bind_password),
    # --- config files --------------------------------------------------------------------------
    # kickstart's `rootpw [--plaintext] PW` (`--iscrypted` gives a hash, `--lock` none)
    rule("secret-assignment", r"(?m)^[ \t]*rootpw[ \t]+(?:--(?:plaintext|allow-ssh)[ \t]+)*(?P<v>[^\s-][^\s]{2,200})", "rootpw", _real("secret-assignment")),
    # Windows unattended setup: `<AdministratorPassword><Value>PW</Value>` (base64 when
    # `<PlainText>false`, which decodes back to the password, so it goes too)
    # an HTML form's field whose name's last part says secret, then its value (an installer's
    # `name="install[db][password]" value="..."`), entities and all
    rule("secret-assignment", r"<input\b[^<>]{0,300}?[ \t]name=[\"'](?:[^\"'<>]{0,200}[\[.])?(?P<name>[\w-]{1,60})\]?[\"'][^<>]{0,300}?[ \t]value=" + _Q, "<input", _named("secret-assignment")),
    rule("secret-assignment", r"<(?P<name>[A-Za-z]{0,40}Password)>\s{0,200}<Value>(?P<v>[^<\s][^<]{0,400})</Value>", "password>", _real("secret-assignment")),
    # a `key` beside a `username` in one JSON object (kaggle.json's API credentials)
    rule("secret-assignment", r"\"username\"[ \t]*:[ \t]*\"[^\"\n]{1,100}\"[ \t]*,[ \t\n]*\"key\"[ \t]*:[ \t]*" + _Q, "username", _random("secret-assignment")),
    # hardhat's and foundry's `accounts: ["0x..."]`: a network's signing private keys
    rule("secret-assignment", r"\baccounts[\"']?[ \t]*:[ \t]*\[[ \t]*[\"'](?P<v>(?:0x)?[0-9a-fA-F]{64})[\"']", "accounts", _real("secret-assignment")),
    rule("secret-assignment", r"\bnpmAuth(?:Ident|Token)[ \t]*:[ \t]*[\"']?(?P<v>[^\s\"']{4,400})", "npmauth", _real("secret-assignment")),
    rule("secret-assignment", r"\blicense_key[ \t]*[:=][ \t]*[\"']?(?P<v>[A-Za-z0-9_-]{20,80})", "license_key", _random("secret-assignment")),
    rule("secret-assignment", r"\bmachine[ \t]+\S{1,200}(?:[ \t\n]+(?:login|account)[ \t]+\S{1,200})?[ \t\n]+password[ \t]+(?P<v>\S{1,200})", "machine", _real("secret-assignment")),
    rule(
        "secret-assignment",
        r"(?m)^[ \t]*(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,60})[ \t]*[=:][ \t]*[\"']?(?P<v>[^\s\"'`<][^\s\"'`]{3,400})",
        "pass secret token key", _named_literal("secret-assignment"),
    ),
    # `echo 'PW' > ~/.vault_pass`: a literal written to a file whose name says it holds a secret
    rule("secret-assignment", r"echo(?:[ \t]+-[neE]{1,3})?[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`$<>|;&-][^\s\"'`<>|;&]{3,200}))[ \t]*>>?[ \t]*(?P<file>[^\s;&|<>]{1,300})", "echo", _into_secret_file, bounded=True),
    rule("secret-assignment", r"printf(?:[ \t]+-[neE]{1,3})?[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'`$<>|;&-][^\s\"'`<>|;&]{3,200}))[ \t]*>>?[ \t]*(?P<file>[^\s;&|<>]{1,300})", "printf", _into_secret_file, bounded=True),
    # Ruby's Net::HTTP `req.basic_auth USER, PASSWORD`, with or without parentheses
    rule("secret-assignment", r"basic_auth[ \t(]+(?:\"[^\"\n]{0,100}\"|'[^'\n]{0,100}'|[\w.@]{1,100})[ \t]*,[ \t]*(?:Some\([ \t]*)?" + _Q, "basic_auth", _real("secret-assignment")),
    # a JAAS login module's `user_NAME="PASSWORD"` (Kafka's PlainLoginModule): each user's password
    rule("secret-assignment", r"user_[A-Za-z0-9_.-]{1,60}[ \t]*=[ \t]*" + _Q, "loginmodule", _in_jaas, bounded=True),
    # a value under an ID that is the credential itself: Consul's and Nomad's `SecretID`, Vault
    # AppRole's `secret_id`; a UUID is the shape they document
    rule("secret-assignment", r"[Ss](?i:ecret[ _-]?id)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", "secretid secret_id secret id secret-id", _real("secret-assignment")),
    # `NAME_USER=user:password` (Concourse's `CONCOURSE_ADD_LOCAL_USER=ops:...`)
    rule("secret-assignment", r"_USERS?[ \t]*=[ \t]*[\"']?[A-Za-z0-9_.@-]{1,60}:(?P<v>[^\s\"',]{6,200})", "_user", _strong("secret-assignment")),
    # the plain text handed to a tool that encrypts it: `ansible-vault encrypt_string 'PW'`,
    # `eyaml encrypt -s 'PW'`
    rule("cli-password", r"encrypt_string[ \t]+(?:--?[\w-]{1,30}(?:[ \t=]+[^\s'\"-]\S{0,100})?[ \t]+){0,4}(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$<|-][^\s\"'<|]{2,200}))", "encrypt_string", _real("cli-password")),
    rule("cli-password", r"eyaml[ \t]+encrypt\b[^\n|;&]{0,200}?[ \t]-s[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'$<|-][^\s\"'<|]{2,200}))", "eyaml", _real("cli-password"), bounded=True),
    # a password hash in crypt(3) form after `user:` (htpasswd, Traefik's basicauth users): an
    # offline attack recovers weak passwords from it, so it goes as the password would
    rule("password-hash", r"\$(?:apr1|[156])\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{20,90}", "$apr1$ $1$ $5$ $6$", _after_user_colon),
    rule("password-hash", r"\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}", "$2a$ $2b$ $2x$ $2y$", _after_user_colon),
    # a log line's `with apiKey VALUE` / `using token VALUE`: a secret's name, then a generated value
    rule("secret-assignment", r"(?:[Ww]ith|[Uu]sing)[ \t]+(?P<name>[A-Za-z][A-Za-z_-]{1,30})[ \t]+(?P<v>[A-Za-z0-9_-]{20,200})(?![\w.-])", "with using", _named_generated, bounded=True),
    # a typed entry's `type: password` (or secret), then its `value:` on the next line (Buddy's
    # variables); the value of any other type stays
    rule("secret-assignment", r"(?m)^(?P<i>[ \t]*)type:[ \t]*[\"']?(?i:password|secret|secret_text|secure)[\"']?[ \t]*\r?\n(?P=i)value:[ \t]*(?:" + _Q[3:-1] + r"|(?P<vb>[^\s\"'#][^\s]{0,400}))", "type:", _real("secret-assignment")),
    # a list of generated keys under a name ending KEYS (Strapi's `APP_KEYS=k1,k2,...`)
    rule("env-secret", r"(?m)(?:^|[ \t])(?:export[ \t]+)?(?P<name>[A-Z][A-Z0-9_]{0,60}_KEYS)[ \t]*=[ \t]*[\"']?(?P<v>[A-Za-z0-9+/_-]{16,200}={0,2}(?:,[A-Za-z0-9+/_-]{16,200}={0,2})+)", "_keys", _key_list),
    # a label then a generated value, as a tool prints what it made or a page shows it
    # (`Stream key: ...`, `Generated key: ...`): the label's words read as a key's name
    rule("secret-assignment", r"(?m)^[ \t>#*-]*(?P<name>(?:[A-Z][A-Za-z]{1,20}[ \t]+){1,3}(?i:key|token|secret|password|passphrase))[ \t]*:[ \t]*(?P<v>[A-Za-z0-9_+/=-]{16,200})(?![^\s,;)])", "key: token: secret: password: passphrase:", _labelled),
    # the same label alone on its line, the value on the next (`snapcraft export-login`'s
    # `Exported login credentials:` then the macaroon, a console's `Your API token:`)
    rule("secret-assignment", r"(?m):[ \t]*\r?\n[ \t]*(?P<v>[A-Za-z0-9_+/=.-]{32,4000})[ \t]*$", "key: token: secret: password: passphrase: credentials:", _labelled_above),
    # a bare `key` beside a `url` in one client's file (Copernicus' `~/.cdsapirc`: `url:` then
    # `key: UID:UUID` or `key: UUID`); a UUID under `key` elsewhere may name a record
    rule("secret-assignment", r"(?m)key[ \t]*[:=][ \t]*[\"']?(?P<v>(?:\d{1,12}:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12})[\"']?[ \t]*$", "key", _beside_url),
    # a call given a name, then a key in a vendor's prefixed shape (`AfricasTalking('user',
    # 'atsk_<hex>')`, `Client("app", "skey_test_...")`); a key pair's public half stays
    rule("secret-assignment", r"\([ \t]*[\"'][\w.@-]{1,60}[\"'][ \t]*,[ \t]*[\"'](?P<v>[a-z]{2,8}_(?:[a-z]{2,8}_)?[A-Za-z0-9]{20,200})[\"'][ \t]*[,)]", "(", _prefixed_key),
    # `user:password` after a connect command's token flag (Milvus's `connect -t root:PW`)
    rule("cli-password", r"[ \t]-(?:t|-token)(?:=|[ \t]+)[\"']?[A-Za-z][\w.@-]{0,60}:(?P<v>[^\s\"'$][^\s\"']{5,300})", "connect login logon auth", _on_line(r"\b(?:connect|login|logon|signin|auth)\b")),
    # Windows' `net user NAME PASSWORD [/add] [/domain]` (`*` prompts for it)
    rule("cli-password", r"net[ \t]+user[ \t]+[^\s/\"'*][^\s/\"']{0,100}[ \t]+(?:" + _Q[3:-1] + r"|(?P<vb>[^\s/\"'*$%][^\s\"']{2,200}))(?=[ \t]+/|[ \t]*$|[ \t]*\n)", "net", _strong("cli-password"), bounded=True),
    # a client built from its endpoint and its key (`DgraphClientStub.from_cloud(URL, KEY)`)
    rule("secret-assignment", r"\([ \t]*[\"']https?://[^\"'\s]{1,300}[\"'][ \t]*,[ \t]*" + _Q + r"[ \t]*[,)]", "://", _client_url_key),
    # a client built from (host, [port,] user, ..., password), as an SFTP, a database or a
    # hypervisor's API client takes them (`Client('sftp.internal', 22, 'deploy', 'PW')`)
    rule("secret-assignment", r"\([ \t]*[\"'](?:[\d.:]{7,45}|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+)[\"'][ \t]*,(?:[ \t]*" + _ARGUMENT + r"[ \t]*,){1,4}[ \t]*" + _Q + r"[ \t]*\)", "(", _host_user_password),
    # a key store's password right after its path (`new X509Certificate2("c.pfx", "PW")`, Java's
    # `ks.load(new FileInputStream("s.jks"), "PW".toCharArray())`)
    rule("secret-assignment", r"[\"'][^\"'\n]{1,300}\.(?:pfx|p12|jks|keystore|bks|bcfks)[\"'][ \t]*\)?[ \t]*,[ \t]*(?:[bBuU@](?=[\"']))?" + _Q, ".pfx .p12 .jks .keystore .bks .bcfks", _real("secret-assignment")),
    # the default of an environment lookup under a secret's name, which is used whenever the
    # variable is unset (Gradle's `System.getenv("STORE_PASSWORD") ?: "PW"`, Python's
    # `os.environ.get("X") or "PW"`, `process.env.X || "PW"`, Ruby's `ENV["X"] || "PW"`, C#'s
    # `?? "PW"`, Rust's `env::var("X").unwrap_or("PW")`, Go's `cmp.Or(os.Getenv("X"), "PW")`)
    *[
        rule("secret-assignment", "(?:" + head + r")[ \t]*[(\[.][ \t]*[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_]{1,100})[\"']?[ \t]*[)\]]?[ \t]*\)?[ \t]*(?:,[ \t]*(?:default[ \t]*=[ \t]*)?|\?:|\|\||\?\?|or[ \t]|\{|\.unwrap_or(?:_else)?\((?:\|_\|[ \t]*)?|\.orElse\(|\.getOrDefault\()[ \t]*" + _Q, needles, _named("secret-assignment"))
        for head, needles in _ENV_LOOKUPS
    ],
    # names in other languages: `prose.scan_prose`, which finds each name with `str.find`
]
# fmt: on


# --- webhook URLs of any service: a random path segment under a host or path that says hook ---

_URL = _lazy(
    r"https?://(?P<host>[A-Za-z0-9.-]{1,253})(?::\d{1,5})?(?P<path>[/#][^\s\"'<>`\\]{0,1000})"
)
# A path word that says the next segment authenticates a push or names a key (Uptime Kuma's
# `/api/push/TOKEN`, `/token/...`, `/apikey/...`, conda's `/t/TOKEN/channel`), or a receiver
# or collector's ingest path (Sumo Logic's `/receiver/v1/http/CODE`), counts as much as `hook`
# does.
_HOOKISH = _lazy(
    r"(?i)hook|integration|incoming|trigger|notif|alert|enqueue|callback|events?[./]"
    r"|/receivers?/|/collectors?/|/push/|/tokens?/|/t/|/p/|/secrets?/|/api[-_]?keys?/|/keys?/|/heartbeats?/"
    r"|/ping/|/check-?ins?/|/beats?/|/signals?/"
)
# A path whose slot holds a device's token or a REST hook's key: only that slot is judged, so a
# UUID or an object id elsewhere in a REST API's path stays.
_SLOT_PATH = _lazy(
    r"/(?:telemetry|attributes|rpc|measurements|metrics|ingest|readings|datapoints)\b|/rest/\d"
)
# A URL under a name saying the service calls it back with a status or a report
# (MessageBird's `statusReportUrl`, `callbackUrl`, `notifyUrl`): as much as `hook` in it.
_CALLED_BACK = _lazy(
    r"(?i)(?:callback|report|status|notify|notification|ping|heartbeat|check[-_]?in|healthcheck|monitor)"
    r"[\w-]{0,20}ur[li][\"']?[ \t]*[:=][ \t]*[\"']?\Z"
)
# A monitoring host whose name says ping, heartbeat or cron (`hc-ping.com`, `ping.example.net`,
# `heartbeat.acme.io`, Cronitor's `cronitor.link/p/KEY/job`, `cronhub.io`): a cron job's
# check-in URL, whose UUID or slug is its key.
_PING_HOST = _lazy(r"(?i)(?:^|[.-])(?:ping|heartbeats?|cron[a-z]{0,8}|check-?ins?)[.-]")
_SEGMENT = _lazy(r"[A-Za-z0-9_-]{20,200}")
_UUID = _lazy(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_HEX = _lazy(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a git or SHA-256 digest, not a key
# Path words after which a segment names a revision, a file or a run, not a credential.
_NOT_CREDENTIAL_AFTER = frozenset(
    ("commit", "commits", "blob", "tree", "compare", "raw", "releases", "tag", "tags", "runs",
     "jobs", "issues", "pull", "pulls", "deliveries", "docs", "doc", "blog", "packages", "package")
)  # fmt: skip
WEBHOOK_NEEDLES = (
    "hook",
    "integration",
    "incoming",
    "trigger",
    "notif",
    "alert",
    "enqueue",
    "callback",
    "event",
    "/receiver",
    "/collector",
    "/push/",
    "/t/",
    "url",
    "/token",
    "/secret",
    "/api",
    "ping",
    "heartbeat",
    "/p/",
    "cron",
    "checkin",
    "check-in",
    "/beat",
    "/signal",
    "/telemetry",
    "/attributes",
    "/rpc",
    "/measurements",
    "/metrics",
    "/ingest",
    "/readings",
    "/datapoints",
    "/rest/",
)


# Path words after which a segment is a job's or a monitor's push key (Uptime Kuma's
# `/api/push/KEY?status=up`, Healthchecks' `/ping/UUID`).
_CHECK_IN_WORDS = frozenset(
    ("heartbeat", "heartbeats", "ping", "checkin", "check-in", "beat", "push", "pushes")
)
# Path words a device sends under its own token (ThingsBoard's `/api/v1/TOKEN/telemetry`,
# `/attributes`, `/rpc`; a collector's `/TOKEN/metrics`, `/ingest`, `/measurements`).
_DEVICE_DATA_WORDS = frozenset(
    ("telemetry", "attributes", "rpc", "claim", "provision", "measurements", "metrics",
     "ingest", "readings", "datapoints", "samples")
)  # fmt: skip
_HOOK_WORDS = frozenset(
    ("webhook", "webhooks", "hook", "hooks", "incoming", "incoming-webhook", "incomingwebhook",
     "incomingwebhooks", "incoming_webhook")
)  # fmt: skip
_HEX_RUN_ANY = _lazy(r"[0-9a-f]+|[0-9A-F]+")
_SLOT_TOKEN = _lazy(r"[A-Za-z0-9]{10,200}")


def _class_changes(word: str) -> int:
    kinds = ["u" if c.isupper() else "l" if c.islower() else "d" for c in word]
    return sum(a != b for a, b in zip(kinds, kinds[1:], strict=False))


def _slot_token(word: str) -> bool:
    """A shorter key where a check-in or device slot puts it: ten letters and digits at least,
    switching between upper case, lower case and digits four times or more (`htMBXjaTF7`,
    `xmexpsn2dxsbit9o`); a name, a version or `release2024` stays."""
    return (
        _SLOT_TOKEN().fullmatch(word) is not None
        and is_random(word)
        and not _CAMEL.fullmatch(word)
        and _class_changes(word) >= 4
        and not _HEX_RUN_ANY().fullmatch(word)  # an object id (`5f3a9c2b...`), not a key
    )


# A request line's path, as an access log or a proxy prints it without its host
# (`"POST /api/v1/TOKEN/telemetry HTTP/1.1"`): judged as the URL would be.
_REQUEST_LINE = _lazy(
    r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)[ \t]+(?P<host>)(?P<path>/[^\s\"'<>`\\]{0,1000})"
    r"[ \t]+HTTP/\d"
)


def _device_slot(segments: list[re.Match[str]], i: int) -> bool:
    """A device's slot before what it sends, or a REST hook's after its user's id."""
    following = segments[i + 1].group().lower() if i + 1 < len(segments) else ""
    previous = segments[i - 1].group() if i else ""
    return following in _DEVICE_DATA_WORDS or (
        previous.isdigit() and i >= 2 and segments[i - 2].group().lower() == "rest"
    )


def _slot_keys(m: re.Match[str]) -> Iterator[tuple[str, int, int]]:
    """In a URL that says no hook, only a device's or a REST hook's slot, and only a key in it."""
    path_start = m.start("path")
    segments = list(re.finditer(r"[^/#!@]+", m.group("path").split("?", 1)[0]))
    for i, seg in enumerate(segments):
        if (
            _device_slot(segments, i)
            and _slot_token(seg.group())
            and not is_placeholder(seg.group())
        ):
            yield "webhook-url", path_start + seg.start(), path_start + seg.end()


def _urls(text: str) -> Iterator[re.Match[str]]:
    pos = 0
    while (m := _URL().search(text, pos)) is not None:
        yield m
        nested = text.find("://", m.start("path"), m.end())
        pos = nested - 5 if nested >= 0 else m.end()
    at = text.find(" HTTP/")
    while at >= 0:  # each request line found from its protocol, by `str.find`
        line_start = text.rfind("\n", max(at - 1100, 0), at) + 1
        request = _REQUEST_LINE().search(text, line_start, at + 7)
        if request is not None:
            yield request
        at = text.find(" HTTP/", at + 6)


def scan_webhook_urls(text: str) -> Iterator[tuple[str, int, int]]:
    """A URL whose host or path says webhook and whose path holds a UUID or a generated token:
    the path is the credential (PagerDuty, webhook.site, Office 365 connectors...). A URL
    inside another's query (a relay's `?target=https://...`) is judged on its own too."""
    for m in _urls(text):
        host = m.group("host")
        if (
            not _HOOKISH().search(host)
            and not _HOOKISH().search(m.group("path"))
            and not _PING_HOST().search(host)
            and not _CALLED_BACK().search(line_before(text, m.start()))
        ):
            if _SLOT_PATH().search(m.group("path")):
                yield from _slot_keys(m)
            continue
        path_start = m.start("path")
        path = m.group("path").split("?", 1)[0]
        first = last = -1
        previous = ""
        ping_host = _PING_HOST().search(host) is not None
        segments = list(re.finditer(r"[^/#!@]+", path))
        for i, seg in enumerate(segments):
            word = seg.group()
            if word.endswith("=") and len(word) > 22:
                word = word.rstrip("=")  # a base64 code's padding (`...Dj==`)
            # a check-in slot: the first segment under a ping host, after a ping or push path
            # word, or a device's or a REST hook's slot
            check_in = (
                (ping_host and first < 0 and seg.start() <= 1)
                or previous.lower() in _CHECK_IN_WORDS
                or _device_slot(segments, i)
            )
            # the last of three or more segments under a hook's path word, where incoming
            # webhooks put their key (Pumble's `/incomingWebhooks/postMessage/KEY`): a long one
            # or the segment right after a path word saying hook, in any vendor's URL
            # (`/webhook/KEY`, `/hooks/KEY`, `/incoming/KEY`)
            last_slot = previous.lower() in _HOOK_WORDS or bool(
                i >= 2 and i == len(segments) - 1 and _HOOKISH().search(path[: seg.start()])
            )
            credential = (
                previous.lower() not in _NOT_CREDENTIAL_AFTER
                and not is_placeholder(word)
                # a digest's length is a hook's id too right after the hook's path word (a
                # home server's `/api/webhook/<64 hex>`)
                and (not _HEX().fullmatch(word) or previous.lower() in _HOOK_WORDS)
                and (
                    _UUID().fullmatch(word) is not None
                    or (
                        _SEGMENT().fullmatch(word) is not None
                        and is_random(word)
                        and "--" not in word
                        and (
                            _looks_generated(word)
                            or re.fullmatch(r"[0-9a-f]{32}", word) is not None
                            or ((check_in or last_slot) and not _CAMEL.fullmatch(word))
                        )
                    )
                    or (check_in and _slot_token(word))
                )
            )
            if credential:
                first = seg.start() if first < 0 else first
                last = seg.end()
            previous = word
        if first >= 0:
            yield "webhook-url", path_start + first, path_start + last


# --- high-entropy tokens ----------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+/_.~-]{31,400}={0,2}")
# A token in the base64 alphabet that a `+` or padding marks as base64, or with few slashes
# (`ro3b/AaCp.../9HCWl...=`, a WireGuard key): judged whole rather than split like a path.
_BASE64_WHOLE = re.compile(
    r"(?=[^\n]*[+=])[A-Za-z0-9+/]{32,400}={0,2}|(?:[A-Za-z0-9+]{6,}/){1,2}[A-Za-z0-9+]{6,}"
)
# Text just before a token that says what it is when that is not a secret: a hash, an id (or a
# name ending in one, `asset_id`, but not `secret_id`), a blob,
# a public key or a peer's (WireGuard's `PublicKey =`, `wg show`'s `public key:`, `add peer B`),
# or ciphertext (hiera-eyaml's and sops' `ENC[PKCS7,...]`).
_NOT_SECRET_BEFORE = re.compile(
    r"(?i)(?:sha-?\d{1,3}[-:=]{1,2}|md5[-:]|h1:|base64,|ssh-[a-z0-9]{2,10} |ecdsa-[a-z0-9-]{1,30} "
    r"|sk-[a-z0-9-]{1,20}@openssh\.com |enc\[[a-z0-9_]{2,20},(?:data:)?"
    r"|\b(?:id|ids|hash|digest|checksum|sum|etag|nonce|build"
    r"|commit|trace|span|request|revision|rev|fingerprint|integrity|uid|guid|uuid|ref|version"
    r"|(?:event|room|message|correlation)[_-]?id|site[_-]?key|kid|x5t"
    r"|sourcemappingurl|public[ _-]?key|pubkey|pub|peer(?:[ \t]+[\w.-]{1,30})?)\b[^A-Za-z0-9\n]{0,4}"
    r"|(?<=_)public[_-]?key[^A-Za-z0-9\n]{0,4}|(?<!secret)(?<=[a-z0-9])[_-]ids?\b[^A-Za-z0-9\n]{0,4})"
    r"[\"'(]?[$!]?\Z"
)
# A method that looks a record up or acts on it takes the record's id (an SDK's
# `payments.retrieve("...")`, `orders.cancel("...")`), not a credential.
_RECORD_CALL = re.compile(r"\.(?:retrieve|fetch|find|lookup|cancel|refund|capture|void|expire)\(\Z")
_JWK_PUBLIC = re.compile(r"\"(?:n|e|x|y|x5c|x5t|x5t#S256)\"[ \t]*:[ \t]*\[?\"\Z")
_DIGEST_PREFIX = re.compile(r"(?i)(?:sha\d{1,3}|md5|h1|blake2b?)[-:]")
# Keys made to ship in a browser: Mapbox `pk.`, Stripe-style `pk_live_` and `pk_test_`, PostHog
# `phc_`; a bare `pk_` is a private key as often (Klaviyo's).
_PUBLIC_PREFIXES = ("pk.", "pk_live_", "pk_test_", "phc_")
_PUBLIC_BEGIN = re.compile(r"BEGIN [A-Z0-9 ]{0,30}(?:PUBLIC KEY|CERTIFICATE|X509)")
_UPPER = re.compile(r"[A-Z]")
_LOWER = re.compile(r"[a-z]")
_DIGIT = re.compile(r"[0-9]")


def _entropy(value: str) -> float:
    import math  # the hook's path: only for the rare candidate that gets this far

    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in map(value.count, set(value)))


def _public_blocks(text: str) -> list[tuple[int, int]]:
    """Spans of certificate and public key blocks (PEM, SSH2, PGP), END line included."""
    spans = []
    for m in _PUBLIC_BEGIN.finditer(text):
        end = text.find("END ", m.end())
        spans.append((m.start(), len(text) if end < 0 else end))
    return spans


def scan_high_entropy(text: str) -> Iterator[tuple[str, int, int]]:
    """A long token mixing upper case, lower case and digits with the entropy of a generated
    credential, unless what stands before it says it is a hash, an id or a public blob.

    Hex (hashes, ids) and UUIDs never mix cases, so they are never candidates; a token with a
    dot (a host, a file, a version) must hold a part that qualifies on its own."""
    blocks: list[tuple[int, int]] | None = None
    jwk: bool | None = None  # whether the text holds a JSON Web Key, looked up once
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        if start and (text[start - 1].isalnum() or text[start - 1] in "_-/+.%\\\\"):
            continue
        value = m.group()
        parts = (
            [part for part in re.split(r"[./~]", value) if len(part) >= 32]
            if "." in value or "/" in value or "~" in value
            else [value]
        )
        generated = any(_looks_generated(part) for part in parts) or (
            "/" in value  # base64 with `/` in it is one token, not a path
            and _BASE64_WHOLE.fullmatch(value) is not None
            and _looks_generated(value.rstrip("="))
        )
        if not generated or _DIGEST_PREFIX.match(value):
            continue
        if (
            value.startswith(("AAAA", *_PUBLIC_PREFIXES))
            or "EXAMPLE" in value
            or is_placeholder(value)
        ):
            continue
        # a JWT cut after its header (`eyJhbGciOi...J9.…`): the header says only its algorithm
        if _encodes_prose(value.rstrip(".")) or any(
            e in text[max(start - 8, 0) : end] for e in _EXAMPLES
        ):
            continue
        if value.rstrip("=").endswith(_MASK_ENDS):
            continue
        if _printed_public(text, start):
            continue
        if _NOT_SECRET_BEFORE.search(line_before(text, start)[-48:]):
            continue
        if (
            start > 1
            and text[start - 1] in "\"'"
            and _RECORD_CALL.search(text, max(start - 40, 0), start - 1)
        ):
            continue
        if jwk is None:
            jwk = '"kty"' in text
        if jwk and _JWK_PUBLIC.search(text[max(start - 12, 0) : start]):
            continue  # a JSON Web Key's public members (`n`, `e`, `x`, `y`), not its `d`
        if blocks is None:
            blocks = _public_blocks(text) if "BEGIN " in text else []
        if any(a <= start < b for a, b in blocks):
            continue
        yield "high-entropy-token", start, end


# A value masked at its end (`RcxCU6j9...Txxxx`), as `aws configure list` prints a key.
_MASK_ENDS = ("xxxx", "XXXX", "***")
_PUBLIC_WORDS = (".pub", "pubkey", "public")


def _printed_public(text: str, start: int) -> bool:
    """A token alone on the line after a command that prints a public key (`cat wg0.pub`,
    `wg pubkey < privatekey`), or in a property list's `<string>` under a `<key>` saying public
    (Sparkle's `SUPublicEDKey`)."""
    line_start = text.rfind("\n", 0, start) + 1
    if line_start == 0 or text[line_start:start].strip() not in ("", "<string>"):
        return False
    previous = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].lower()
    return "pub" in previous and any(word in previous for word in _PUBLIC_WORDS)


def _encodes_prose(value: str) -> bool:
    """Base64 of words or JSON (`echo ... | base64 -d` of a message), not of a credential."""
    import base64  # the hook's path: only for the rare candidate that gets this far
    import binascii

    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    if not raw or any(b < 9 or 13 < b < 32 or b > 126 for b in raw):
        return False
    if b"://" in raw and b"@" not in raw and b"?" not in raw:
        return True  # a URL without credentials (a k8s Secret's `data:` holding a host)
    return b" " in raw or b'"' in raw


# An identifier in CamelCase (`V1OrganizationKeysRequest`) or an alphabet table, not a token.
_CAMEL = re.compile(r"(?:[A-Z0-9]{1,4}[a-z]{2,}){3,}[A-Z0-9]{0,4}")
_ALPHABETS = ("ABCDEFG", "abcdefg", "0123456")


def _looks_generated(value: str) -> bool:
    if _CAMEL.fullmatch(value) or any(a in value for a in _ALPHABETS):
        return False
    upper = len(_UPPER.findall(value))
    lower = len(_LOWER.findall(value))
    digits = len(_DIGIT.findall(value))
    n = len(value)
    if min(upper, lower, digits) == 0 or upper * 10 < n or lower * 10 < n:
        return False
    return _entropy(value) >= 4.3


# --- notification URLs: `slack://`, `discord://`, `gchat://`... whose path holds the token -----

# fmt: off
_NOTIFIER_SCHEMES = (
    "slack", "discord", "gchat", "googlechat", "teams", "msteams", "telegram", "tgram",
    "pushover", "pover", "gotify", "mattermost", "mmost", "rocketchat", "rocket", "matrix",
    "pushbullet", "pbul", "zulip", "opsgenie", "ifttt", "join", "ntfy", "signal", "pagerduty",
    "webex", "wxteams", "lark", "feishu", "dingtalk", "wecombot", "bark", "pushdeer", "ses", "sns",
    "mailgun", "sendgrid", "spark", "line", "twilio", "flock", "guilded", "revolt", "ryver",
    "workflows", "splunk", "victorops",
)
# fmt: on
NOTIFIER_NEEDLES = tuple(f"{scheme}://" for scheme in _NOTIFIER_SCHEMES)
_NOTIFIER_SCHEME_SET = frozenset(_NOTIFIER_SCHEMES)
_SCHEME_AT_END = _lazy(r"(?<![A-Za-z0-9+.-])(?P<s>[a-z]{2,12})\Z")
_NOTIFIER_REST = _lazy(r"[^\s\"'<>`\\]{1,1000}")
_NOTIFIER_PART = _lazy(r"[^/@:?#&]+")


def scan_notifier_urls(text: str) -> Iterator[tuple[str, int, int]]:
    """A notification service URL (Shoutrrr's and Apprise's `slack://bot@T.../B.../TOKEN`,
    `discord://ID/TOKEN`): each generated part of its path is a credential. Found from each
    `://` by `str.find`, the scheme read before it."""
    for _, pos in occurrences(text, ("://",)):
        scheme = _SCHEME_AT_END().search(text, max(pos - 13, 0), pos)
        rest = _NOTIFIER_REST().match(text, pos + 3) if scheme else None
        # the scheme as written (`teams`) or with a TLS `s` (`slacks`): a lazy match took `team`
        name = scheme.group("s") if scheme else ""
        known = name in _NOTIFIER_SCHEME_SET or name.removesuffix("s") in _NOTIFIER_SCHEME_SET
        if scheme and rest and known:
            base = rest.start()
            for part in _NOTIFIER_PART().finditer(rest.group().split("?", 1)[0]):
                word = part.group()
                if len(word) >= 16 and is_random(word) and not is_placeholder(word):
                    yield "webhook-url", base + part.start(), base + part.end()


# --- a password passed by position to a call that authenticates -----------------------------

# Anchored on the word that says the call authenticates (found in the lowered text), so the
# cost is per occurrence; then the rest of the name and the arguments.
# `new PDO(dsn, user, password)`: PHP's connection is a constructor named for its layer.
_AUTH_WORD = _lazy(r"auth|login|logon|signin|sign_in|credential|bind|connect|pdo")
_AUTH_WORD_ANY_CASE = _lazy(r"(?i:auth|login|logon|signin|sign_in|credential|bind|connect|pdo)")
# the arguments may run over lines, as a long call is wrapped (`DBI->connect( "dbi:...",\n
# "user", "PW", {...} )`)
_AUTH_ARGS = _lazy(
    r"[\w.:]{0,40}[ \t]*\((?P<args>[^()]{0,400}(?:\([^()\n]{0,200}\)[^()]{0,400}){0,3})\)"
)
_LITERAL = _lazy(r"\"(?P<vd>[^\"\\\n]{1,200})\"|'(?P<vs>[^'\\\n]{1,200})'")
AUTH_CALL_NEEDLES = (
    "auth", "login", "logon", "signin", "sign_in", "credential", "bind", "connect", "pdo",
)  # fmt: skip


def _commas_before(args: str, end: int) -> int:
    """How many argument separators stand before `end` in the innermost call holding it; -1
    when that is a dictionary or a list, not a call."""
    counts = [0]
    openers = [""]
    quote = ""
    for c in args[:end]:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([{":
            counts.append(0)
            openers.append(c)
        elif c in ")]}" and len(counts) > 1:
            counts.pop()
            openers.pop()
        elif c == ",":
            counts[-1] += 1
    return -1 if openers[-1] in ("[", "{") else counts[-1]


_SNAKE = _lazy(r"[a-z]{1,30}(?:_[a-z]{1,30}){1,8}")  # a name (`previous_response_id`)
_HOST_LIKE = _lazy(r"[\d.:]{7,45}|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}")


def _password_like(value: str) -> bool:
    return not (
        is_placeholder(value)
        or not is_strong(value)
        or any(c.isspace() for c in value)
        or "://" in value
        or value.startswith(("/", "."))
        or (is_code(value) and not any(c.isdigit() for c in value))
        or not any(c.isdigit() or c in "!@#$%^&*+=~?_-." for c in value)
        or _HOST_LIKE().fullmatch(value) is not None
        or _SNAKE().fullmatch(value) is not None
    )


def scan_auth_calls(text: str) -> Iterator[tuple[str, int, int]]:
    """A password passed by position to a call that logs in, binds or connects: the last
    literal argument when another argument (the user) comes before it (`getConnection(url,
    user, "...")`, `ldap_simple_bind(ld, dn, "...")`, `Credentials::acl("user", "...")`), or a
    literal from the third argument on with more after it (`mysqli_connect(host, user, "...",
    db)`); it must look like a password, not a host, a path or a word."""
    lowered = text.lower()
    words = (
        _AUTH_WORD().finditer(lowered)
        if len(lowered) == len(text)
        else _AUTH_WORD_ANY_CASE().finditer(text)
    )
    resume = 0
    for word in words:
        if word.start() < resume:
            continue
        m = _AUTH_ARGS().match(text, word.end())
        if m is None:
            continue
        resume = m.end()
        args = m.group("args")
        literals = list(_LITERAL().finditer(args))
        for i, literal in enumerate(literals):
            group = "vd" if literal.group("vd") is not None else "vs"
            value = literal.group(group)
            position = _commas_before(args, literal.start())
            is_last = i == len(literals) - 1 and not args[literal.end() :].strip(") ")
            if position < (1 if is_last else 2) or not _password_like(value):
                continue
            start = m.start("args") + literal.start(group)
            yield "secret-assignment", start, start + len(value)
            break


# --- a CLI's argument by position, found from its subcommand by `str.find` ------------------------

_OPTIONS = r"(?:[ \t]+--?[\w-]{1,30}(?:=\S{1,100})?)*"
# A CLI that stores a token given as its argument (`anaconda token set TOKEN`, `ngrok config
# add-authtoken TOKEN`, `... set-token TOKEN`): the subcommand, then options, then the token.
STORE_TOKEN_NEEDLES = (
    "token set", "token add", "token save", "token store", "api-key set", "api_key set",
    "apikey set", "add-authtoken", "set-authtoken", "add-token", "set-token", "save-token",
    "add-api-key", "set-api-key", "add-apikey", "set-apikey",
)  # fmt: skip
_STORE_TOKEN = _lazy(_OPTIONS + r"[ \t]+(?P<v>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{15,400})")
# A CLI that creates or updates an account takes its user, then its password (PocketBase's
# `superuser upsert EMAIL PASS`, `admin create USER PASS`): the object word, then the verb.
ACCOUNT_NEEDLES = ("superuser", "admin", "user", "account")
_ACCOUNT = _lazy(
    r"s?[ \t]+(?:create|upsert|add|update|set-password|passwd)"
    + _OPTIONS
    + r"[ \t]+[^\s\"'$<-][^\s\"']{0,100}[ \t]+(?:"
    + _Q[3:-1]
    + r"|(?P<vb>[^\s\"'`<>|;&$-][^\s\"'`<>|;&]{5,200}))(?=[ \t]*(?:$|[\n;&|#]))"
)
_account_check = _strong("cli-password")


def scan_cli_arguments(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    for needle, pos in occurrences(lowered, STORE_TOKEN_NEEDLES):
        if pos and text[pos - 1] in WORD:
            continue
        m = _STORE_TOKEN().match(text, pos + len(needle))
        if m:
            value = m.group("v")
            if not is_placeholder(value) and is_random(value) and _entropy(value) >= 3.2:
                yield "cli-password", *m.span("v")
    for needle, pos in occurrences(lowered, ACCOUNT_NEEDLES):
        if pos and text[pos - 1] in WORD:
            continue
        m = _ACCOUNT().match(text, pos + len(needle))
        if m:
            group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
            if _account_check(m.group(group), m, text):
                yield "cli-password", *m.span(group)


# --- found from a literal by `str.find`: no pattern walks the whole text ----------------------

_NRAL_BODY = _lazy(r"[0-9a-f]{36}")


def scan_newrelic_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """New Relic's license (ingest) key: 36 hex digits then `NRAL`, as its agent docs show it."""
    pos = text.find("NRAL", 36)
    while pos >= 0:
        start = pos - 36
        if (
            _NRAL_BODY().fullmatch(text, start, pos)
            and not (start and text[start - 1] in WORD)
            and not (pos + 4 < len(text) and text[pos + 4] in WORD)
        ):
            yield "newrelic-key", start, pos + 4
        pos = text.find("NRAL", pos + 4)


# SQL*Plus's `CONNECT user/password@db` and DB2's `CONNECT TO db USER name USING password`.
_CONNECT = _lazy(
    r"(?i)conn(?:ect)?[ \t]+(?:[A-Za-z0-9_$#.-]{1,60}/(?P<v>[^@\s\"'/]{1,200})@"
    r"|to[ \t]+\S{1,60}[ \t]+user[ \t]+\S{1,60}[ \t]+using[ \t]+(?:"
    + _Q[3:-1]
    + r"|(?P<vb>[^\s\"';$][^\s\"';]{2,200})))"
)
_connect_check = _real("connection-password")


# --- a flag and its value as two items of an argument list -------------------------------------

# Compose's `command: ["server", "--requirepass", "..."]`, a container's `args:` sequence, a
# subprocess call's list: the flag names the secret and the next item is its value.
_LISTED_FLAG = _lazy(
    r"(?P<q>[\"'])--?(?P<name>[A-Za-z][\w.-]{1,60})(?P=q)[ \t]*,[ \t]*(?P<qv>[\"'])"
    r"(?P<v>[^\"'\n]{4,400})(?P=qv)"
    r"|(?m:^[ \t]*-[ \t]+(?P<qs>[\"']?)--?(?P<sname>[A-Za-z][\w.-]{1,60})(?P=qs)[ \t]*\r?\n"
    r"[ \t]*-[ \t]+(?P<qw>[\"']?)(?P<w>[^\s\"'#][^\s\"']{3,400})(?P=qw)[ \t]*$)"
)


def scan_listed_flags(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _LISTED_FLAG().finditer(text):
        group = "v" if m.group("v") is not None else "w"
        name = (m.group("name") or m.group("sname")).replace("-", "_").replace(".", "_")
        value = m.group(group)
        if not secret_name_kind(name) or value.startswith("-") or is_placeholder(value):
            continue
        if is_code(value) or (is_weak_name(name) and not is_random(value)):
            continue
        yield "cli-password", *m.span(group)


def scan_connects(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    for _, pos in occurrences(lowered, ("conn",)):
        m = None if pos and text[pos - 1] in WORD else _CONNECT().match(text, pos)
        if m:
            group = next(g for g in ("v", "vd", "vs", "vb") if m.group(g) is not None)
            start, end = m.span(group)
            if _connect_check(text[start:end], m, text):
                yield "connection-password", start, end


# --- a block under a secret name: Consul's `tokens { agent = "..." }` ---------------------------

_BLOCK_NAME = _lazy(r"(?P<name>[A-Za-z_][A-Za-z0-9_-]{0,60})[ \t]*=?[ \t]*\Z")
_NEWLINE_AFTER = _lazy(r"[ \t]*\r?\n")
_BLOCK_ITEM = _lazy(r"[ \t]+[A-Za-z_][\w.-]{0,60}[ \t]*[=:][ \t]*" + _Q + r"[ \t,]*\r?\n")


def scan_secret_blocks(text: str) -> Iterator[tuple[str, int, int]]:
    """Each quoted value directly inside a block whose name says it holds secrets (HCL's
    `tokens { agent = "..." }`, a `credentials {` block): the children are the secrets."""
    brace = text.find("{")
    while brace >= 0:  # from each `{` by `str.find`: no pattern walks the text
        at, brace = brace, text.find("{", brace + 1)
        newline = _NEWLINE_AFTER().match(text, at + 1)
        found = _BLOCK_NAME().search(line_before(text, at)) if newline else None
        if found is None or newline is None:
            continue
        name = found.group("name")
        if not secret_name_kind(name) and not secret_name_kind(name.rstrip("sS")):
            continue
        pos = newline.end()
        for _ in range(50):
            item = _BLOCK_ITEM().match(text, pos)
            if item is None:
                break
            group = "vd" if item.group("vd") is not None else "vs"
            value = item.group(group)
            if not is_placeholder(value) and not _code(value, item, text):
                yield "secret-assignment", *item.span(group)
            pos = item.end()


# --- a key written as its bytes: a list of 16 or more byte values under a secret's name --------

# Zigbee2MQTT's `network_key: [94, 230, ...]`, ESPHome's `NOISE_PSK[32] = {0x0a, ...}`, Go's
# `[]byte{...}`, Python's `bytes([...])`, JavaScript's `new Uint8Array([...])`.
_BYTE = r"(?:0[xX][0-9a-fA-F]{1,2}|\d{1,3})"
_BYTE_LIST = _lazy(  # led by its bracket, so the regex engine skips ahead to one
    r"[\[{(][ \t]*(?:\r?\n[ \t]*)?(?P<list>"
    + _BYTE
    + r"(?:[ \t]*,[ \t]*(?:\r?\n[ \t]*)?"
    + _BYTE
    + r"){15,})"
)
_BYTES_NAME = _lazy(
    r"(?P<name>[A-Za-z_][\w-]{0,60})(?:\[[\w ]{0,10}\])*[\"']?[ \t]*(?::|=|:=|=>)[ \t]*"
    r"[\w:<>\[\]. \t]{0,30}[\[{(]{1,2}[ \t]*\Z"
)


def scan_byte_arrays(text: str) -> Iterator[tuple[str, int, int]]:
    """Sixteen or more byte values whose name says secret: a key written out as its bytes. The
    values must be bytes and varied, so a list of ports, a range or a table of zeros stays."""
    for m in _BYTE_LIST().finditer(text):
        named = _BYTES_NAME().search(line_before(text, m.start("list")))
        if not named or not (
            secret_name_kind(named.group("name")) or named.group("name").lower() == "key"
        ):
            continue
        values = [int(v, 0) for v in re.split(r"[ \t]*,\s*", m.group("list"))]
        if max(values) > 255 or len(set(values)) < len(values) // 2:
            continue
        if all(b - a == 1 for a, b in zip(values, values[1:], strict=False)):
            continue
        yield "secret-assignment", m.start("list"), m.end("list")
