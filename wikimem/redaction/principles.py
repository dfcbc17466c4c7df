"""Secrets found by where any program or file puts one, not by one tool's or vendor's syntax.

Owns the rules written from misses that recurred across blind batches in tools no rule named: a
short password flag of any program (`-p`, `-P`, `-w`, `-k`, `-a`, Windows' `/p`) given a value
shaped as a chosen password; a flag whose name says password, secret, token, auth or key; a
secret-named key whose value sits in a child `value:` entry (a YAML variable block) or in an
element a `name=` attribute names; a `user:password@host` with no scheme; a table row naming a
secret; and the last argument of a subcommand that makes an account or a worker (`add`,
`create`, `upsert`, `register`). Invariant: a value must look chosen or generated (letters and
digits, and a sign or mixed case switching often); a port, a path, a file name, a host, an
e-mail address, a version, a reference or a placeholder stays, so the flag's other meanings
(`ssh -p 2222`, `mkdir -p dir`, `-w workdir`) are safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from wikimem.redaction.key_names import secret_name_kind
from wikimem.redaction.placeholders import is_code, is_placeholder
from wikimem.redaction.scanners import Rule, line_before, occurrences, rule

_SIGNS = frozenset("!@#$%^&*+=~?")  # `%` too: `%PW%` is refused first, as a reference
_CAMEL = re.compile(r"[a-z]*(?:[A-Z0-9]{1,4}[a-z]{2,}){2,}[A-Z0-9]{0,4}")
_FILE_NAME = re.compile(r"[\w-]+(?:\.[A-Za-z][A-Za-z0-9]{0,5})+")
_HOST_OR_MAIL = re.compile(r"(?:[\w.+-]+@)?[\w-]+(?:\.[\w-]+)+(?::\d+)?")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][\w.]+)?")
# A program whose `-P` or `-p` takes a pattern, not a password (`grep -P '\d+'`).
_PATTERN_TOOLS = re.compile(r"\b(?:grep|egrep|rg|ag|ack|perl|pcregrep|sed|awk|find|git)\b")


def _class_changes(value: str) -> int:
    kinds = [
        "u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "s" for c in value
    ]
    return sum(a != b for a, b in zip(kinds, kinds[1:], strict=False))


def _plain_shape(value: str) -> bool:
    """Not a path, a reference, an expression, a file, a host, an address, a version or a
    camel-case name."""
    if any(c.isspace() for c in value) or is_placeholder(value) or is_code(value):
        return False
    if "://" in value or value[0] in "/~$\\%@" or value.startswith(".."):
        return False  # a path, a reference, or a file named by `@` (`--proxyauth @htpasswd`)
    if any(c in value for c in "/\\(){}[]<>`"):
        return False
    return not any(
        shape.fullmatch(value) for shape in (_FILE_NAME, _HOST_OR_MAIL, _VERSION, _CAMEL)
    )


def named_password(value: str) -> bool:
    """A value where a name says password: looser than `password_shaped`, as the name already
    says what it is (`yxOkMYhnhxHy`, `aOqY.YUu!uCvtnXFIa`): 8 characters or more with a sign, or
    letters and digits, or both cases switching at least four times."""
    if not 8 <= len(value) <= 200 or not _plain_shape(value):
        return False
    if _SIGNS & set(value) and any(c.isalpha() for c in value):
        return True
    if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return True
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed and _class_changes(value) >= 4


def password_shaped(value: str) -> bool:
    """A value as a person or a generator makes a password: 8 to 128 characters with letters
    and digits, and a sign, or upper and lower case switching at least five times
    (`AHrf9ed_v6^s`, `nMmaPGDK2GHmdQRZ8FDEzv`); a word with a number (`release2024`, `app2`),
    a camel-case name, a path, a file, a host, an address or a version is not."""
    if not 8 <= len(value) <= 128 or any(c.isspace() for c in value):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    if is_placeholder(value) or is_code(value) or "://" in value:
        return False
    if value[0] in "/~$\\%" or value.startswith("..") or any(c in value for c in "/\\(){}[]<>`"):
        return False  # a path, a reference (`$PW`, `%PW%`) or an expression
    for shape in (_FILE_NAME, _HOST_OR_MAIL, _VERSION, _CAMEL):
        if shape.fullmatch(value):
            return False
    if _SIGNS & set(value):
        return True
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed and len(value) >= 10 and _class_changes(value) >= 5


_QUOTED = r"(?:\"(?P<vd>[^\"\n]{1,200})\"|'(?P<vs>[^'\n]{1,200})')"
# a bare value, a `user:` before it left out (`xh -a deploy:PW`: the user stays)
_BARE = r"(?:[A-Za-z][\w.@-]{0,60}:(?![/\d]))?(?P<vb>[^\s\"'`|;&<>()]{8,200})"


def _short_flag(value: str, m: re.Match[str], text: str) -> str | None:
    if _PATTERN_TOOLS.search(line_before(text, m.start())):
        return None
    if password_shaped(value) or _generated_run(value):
        return "cli-password"
    return None


def _generated_run(value: str) -> bool:
    """A token as a generator prints it, in one case: 24 letters and digits at least, switching
    between the two six times or more (`vybbo52vr6kk...`); a word, a name or a hash of one
    alphabet's half (hex) is not one."""
    return (
        len(value) >= 24
        and re.fullmatch(r"[A-Za-z0-9]+", value) is not None
        and re.fullmatch(r"[0-9a-fA-F]+", value) is None
        and _class_changes(value.lower()) >= 6
        and not is_placeholder(value)
    )


_FLAG_WORDS = re.compile(r"(?i)pass|pwd|secret|token|auth|cred|apikey|api[-_]key|(?:^|[-_])key$")
# A flag naming where the secret is or how it is used, not the secret (`--token-file`,
# `--auth-type`, `--key-id`, `--password-env`).
_FLAG_NOT_VALUE = re.compile(
    r"(?i)(?:file|path|dir|env|var|name|id|ids|type|url|uri|method|mode|header|length|size|alg"
    r"|algorithm|format|scheme|provider|plugin|source|stdin|prompt|command|cmd|helper|policy"
    r"|store|ttl|expiry|expires|timeout|endpoint|server|host|port|user|username|login|ref|refs"
    r"|profile|alias|level|audience|vault|size|backend|cert|ring|or|ority|ors)$"
    r"|(?:ssh|public|pub)[-_]?keys?$|key[-_]?pairs?$"
    r"|(?i:hint|label|message|msg|error|title|text|help|field|column|col|input|placeholder"
    r"|description|desc|regex|pattern|rule|min|max|len|count|hash|digest)$"
)


def _secret_flag(value: str, m: re.Match[str], text: str) -> str | None:
    flag = m.group("flag")
    if not _FLAG_WORDS.search(flag) or _FLAG_NOT_VALUE.search(flag):
        return None
    return "cli-password" if named_password(value) else None


def _nested_value(value: str, m: re.Match[str], text: str) -> str | None:
    if secret_name_kind(m.group("name").replace("-", "_")) is None or is_placeholder(value):
        return None
    if is_code(value) or value.startswith(("$", "%", "{{", "<")):
        return None
    return "secret-assignment"


def _named_element(value: str, m: re.Match[str], text: str) -> str | None:
    return _nested_value(value, m, text) if m.group("tag") == m.group("close") else None


# A user and password before `@host`, with no scheme in front (Asterisk's `register =>
# USER:PW@host`, a DSN's tail `user:PW@10.0.0.5:5432/db`): found back from each `@`.
_USERINFO_TAIL = re.compile(
    r"(?:^|[\s=>\"'(,])[A-Za-z0-9][\w.-]{0,60}:(?P<v>[^\s:@/\"'`<>]{6,200})\Z"
)
_HOST_AFTER = re.compile(
    r"(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,63}\b|\d{1,3}(?:\.\d{1,3}){3}\b|localhost\b"
)


_URI_SCHEMES = frozenset(
    ("mailto", "sip", "sips", "tel", "xmpp", "urn", "git", "ssh", "im", "news", "acct", "did")
)
_WORD_NUMBER = re.compile(r"[A-Za-z]+[-_.]?\d{1,4}")


def scan_bare_userinfo(text: str) -> Iterator[tuple[str, int, int]]:
    for _, pos in occurrences(text, ("@",)):
        if not _HOST_AFTER.match(text, pos + 1):
            continue
        m = _USERINFO_TAIL.search(text, max(pos - 270, 0), pos)
        if m is None or "://" in text[max(m.start() - 12, 0) : m.start("v")]:
            continue  # a URL's userinfo is the URL rules'
        value = m.group("v")
        user = text[m.start() : m.start("v") - 1].lstrip(" \t\r\n=>\"'(,").lower()
        if user in _URI_SCHEMES or _WORD_NUMBER.fullmatch(value):
            continue  # `mailto:support2024@host`: a scheme and an address, no password
        if re.fullmatch(r"[0-9a-f]+", value):
            continue  # a digest before `@` (`commit:<sha>@host`), not a password
        if named_password(value) or _generated(value):  # the position says password
            yield "connection-string", m.start("v"), pos


def _table_cell(value: str, m: re.Match[str], text: str) -> str | None:
    if secret_name_kind(m.group("name").replace("-", "_").replace(" ", "_")) is None:
        return None
    return "secret-assignment" if password_shaped(value) or _generated(value) else None


def _generated(value: str) -> bool:
    """A key as a generator prints one: 20 letters and digits at least, both present."""
    return (
        len(value) >= 20
        and re.fullmatch(r"[A-Za-z0-9_+/=.-]+", value) is not None
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not is_placeholder(value)
        and not _CAMEL.fullmatch(value)
    )


_SECRET_CONSTANT = re.compile(
    r"(?i)pass(?:wd|word|phrase)?|pwd|secret|token|api_?key|userpwd|credential"
)


def _constant_argument(value: str, m: re.Match[str], text: str) -> str | None:
    """A literal right after an argument naming a secret (`CURLOPT_USERPWD`, `LDAP_OPT_PASSWORD`,
    `Option.PASSWORD`, `PASSWORD_KEY`)."""
    name = m.group("name").rsplit(".", 1)[-1].rsplit(":", 1)[-1].lstrip("$")
    if not _SECRET_CONSTANT.search(name) or _FLAG_NOT_VALUE.search(name):
        return None
    if secret_name_kind(name) is None and not name.isupper():
        return None  # a variable (`password_field`), not a name for the slot
    return "secret-assignment" if password_shaped(value) or _generated(value) else None


def _subscript_value(value: str, m: re.Match[str], text: str) -> str | None:
    if secret_name_kind(m.group("name").replace(".", "_").replace("-", "_")) is None:
        return None
    if not (named_password(value) or _generated(value)):
        return None  # a word (`stash[some_key] = "value"`, `["Bearer"] = "Bearer"`)
    return _nested_value(value, m, text)


def _setter_last(value: str, m: re.Match[str], text: str) -> str | None:
    return "secret-assignment" if named_password(value) or _generated(value) else None


# A setter named for a secret, its last literal argument (`keyring.set_password(SVC, USER,
# "PW")`, `vault.store_secret("name", "...")`): found from the secret's word and its bracket by
# `str.find` on the lowered text, the verb checked behind it.
_SETTER_WORDS = ("password(", "passwd(", "secret(", "token(", "apikey(", "api_key(", "credential(")
_SETTER_VERB = re.compile(r"(?i:set|store|save|add|put)_?(?i:api_?)?\Z")
_SETTER_ARGS = re.compile(
    r"(?:[^()\n\"']{0,100}[\"'][^\"'\n]{0,200}[\"'][ \t]*,[ \t]*){1,4}[^()\n\"',]{0,60}"
    + _QUOTED
    + r"[ \t]*\)"
)


def scan_secret_setters(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    for word, pos in occurrences(lowered, _SETTER_WORDS):
        if not _SETTER_VERB.search(text, max(pos - 8, 0), pos):
            continue
        m = _SETTER_ARGS.match(text, pos + len(word))
        if m is None:
            continue
        group = "vd" if m.group("vd") is not None else "vs"
        if _setter_last(m.group(group), m, text):
            yield "secret-assignment", *m.span(group)


def _account_argument(value: str, m: re.Match[str], text: str) -> str | None:
    if "@" in value and _HOST_OR_MAIL.fullmatch(value):
        return None
    return "cli-password" if password_shaped(value) else None


def _echoed_value(value: str, m: re.Match[str], text: str) -> str | None:
    if secret_name_kind(m.group("name")) is None or is_placeholder(value) or is_code(value):
        return None
    if value.startswith(("+", "$", "%")):
        return None  # the next traced command, or a prompt
    return "secret-assignment" if named_password(value) or _generated(value) else None


# A secret's variable echoed, and the line after it, which is what the echo printed: a shell's
# trace (`+ echo $DOCKER_PASSWORD` under `set -x`), a prompt (`$ echo $API_TOKEN`), `printenv
# NAME`; found from each command word by `str.find`, matched from its line's start.
_ECHOED = re.compile(
    r"(?m)[ \t]*(?:\+{1,3}|[$#>%][ \t]*)?[ \t]*(?:echo(?:[ \t]+-[neE])?[ \t]+[\"']?\$"
    r"|printenv[ \t]+)\{?(?P<name>[A-Za-z_][A-Za-z0-9_]{1,80})\}?[\"']?[ \t]*\r?\n"
    r"(?P<v>[^\s]{6,200})[ \t]*(?=\r?\n|$)"
)


def scan_echoed_values(text: str) -> Iterator[tuple[str, int, int]]:
    for _, pos in occurrences(text, ("echo", "printenv")):
        start = text.rfind("\n", max(pos - 12, 0), pos) + 1
        if start == 0 and pos > 12:
            continue  # the command word well into its line: not a command
        m = _ECHOED.match(text, start)
        if m is not None and m.start("name") > pos and _echoed_value(m.group("v"), m, text):
            yield "secret-assignment", *m.span("v")


def _stored_value(value: str, m: re.Match[str], text: str) -> str | None:
    if not _plain_shape(value):
        return None
    return "cli-password" if named_password(value) or _generated(value) else None


# `echo -n 'VALUE' | base64` and the line it printed: a value encoded to go in a secret store
# (a Kubernetes Secret's `data:`), and its encoding, checked to decode to it.
_ENCODED_ECHO = re.compile(
    r"(?m)echo(?:[ \t]+-n)?[ \t]+(?:" + _QUOTED + r"|(?P<vb>[^\s\"'`|;&<>()$]{8,200}))"
    r"[ \t]*\|[ \t]*base64(?:[ \t]+-w[ \t]*0)?[ \t]*\r?\n(?P<out>[A-Za-z0-9+/]{8,400}={0,2})[ \t]*$"
)


def scan_encoded_echoes(text: str) -> Iterator[tuple[str, int, int]]:
    import base64  # only for the rare text that pipes an echo to base64
    import binascii

    for _, pos in occurrences(text, ("echo",)):
        m = _ENCODED_ECHO.match(text, pos)
        if m is None or (pos and text[pos - 1].isalnum()):
            continue
        group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
        value = m.group(group)
        if not (named_password(value) or _generated(value)):
            continue  # a user name or a host is encoded beside the password, and stays
        try:
            decoded = base64.b64decode(m.group("out"), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if decoded.rstrip("\n") == value:
            yield "secret-assignment", *m.span(group)
            yield "secret-assignment", *m.span("out")


# A key that names a record or a slot, not a credential (`created cache key key=<sha256>`).
_RECORD_KEY = re.compile(
    r"(?i)\b(?:cache|idempotency|object|partition|primary|foreign|public|routing|sort|lookup"
    r"|dedup|row|s3|bucket|storage|index)\b"
)


# A `user:secret` literal under a name saying auth or credentials (`authStr = @"app:<uuid>"`,
# `basicAuth = "svc:PW"`, `creds := "ci:..."`): the pair a Basic header is built from, in any
# language; found from each `auth`/`cred` by `str.find`.
_AUTH_PAIR = re.compile(
    r"(?:auth|cred)\w{0,30}[ \t]*(?::[^=\n]{0,40})?(?::=|=)[ \t]*@?[\"']"
    r"[\w.@-]{1,80}:(?P<v>[^\"'\s:@/]{8,200})[\"']",
    re.IGNORECASE,
)


def scan_auth_pairs(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    for _, pos in occurrences(lowered, ("auth", "cred")):
        if lowered.startswith("author", pos):
            continue
        m = _AUTH_PAIR.match(text, pos)
        if m is None:
            continue
        value = m.group("v")
        if not is_placeholder(value) and (named_password(value) or _generated(value)):
            yield "secret-assignment", *m.span("v")


# A log line saying a key or token was made, and its `key=`/`token=` field: the new secret
# (`created pre auth key key=<hex>`, `generated api token token=...`), whatever the server;
# found from each verb by `str.find`.
_CREATED_VERBS = ("created ", "generated ", "issued ", "minted ")
CREATED_NEEDLES = tuple(verb.strip() for verb in _CREATED_VERBS)
_CREATED = re.compile(
    r"(?i)(?:created|generated|issued|minted)[ \t][^\n=]{0,60}?\b(?:key|token|secret)\b"
    r"[^\n]{0,80}?[ \t](?:key|token|secret)[=:][ \t]*[\"']?(?P<v>[A-Za-z0-9_+/=.-]{24,200})"
)


def scan_created_keys(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    for _, pos in occurrences(lowered, _CREATED_VERBS):
        if pos and lowered[pos - 1].isalnum():
            continue
        m = _CREATED.match(text, pos)
        if m is not None and _created_key(m.group("v"), m, text):
            yield "secret-assignment", *m.span("v")


def _created_key(value: str, m: re.Match[str], text: str) -> str | None:
    if _RECORD_KEY.search(m.group(), 0, m.start("v") - m.start()):
        return None
    if re.fullmatch(r"[0-9a-fA-F]{32,128}", value) or _generated(value):
        return None if is_placeholder(value) else "secret-assignment"
    return None


# fmt: off
RULES: list[Rule] = [
    # the value flag of a subcommand that stores a secret (`secret add|set|create|put|update`,
    # `secrets set`): its `--value`, `--data` or `--secret-value` is the secret, whatever the
    # tool (a CI's CLI, a vault's, a platform's)
    rule(
        "cli-password",
        r"\bsecrets?[ \t]+(?:add|set|create|put|update|edit|write)\b[^\n|;&]{0,300}?[ \t]"
        r"--?(?:value|data|secret-value|secret-string|content)(?:=|[ \t]+)"
        r"(?:" + _QUOTED + r"|(?P<vb>[^\s\"'`|;&<>()]{6,200}))(?=[ \t]|$|\r?\n)",
        "secret",
        _stored_value,
    ),
    # any program's short password flag: `-p PW`, `-P 'PW'`, `-w PW`, `-p=PW`, `/p PW`, `/p:PW`
    # (beeline, oc, pdm, security, iSign, keystore generators...)
    rule(
        "cli-password",
        r"[ \t](?:-[pPwka](?:[ \t]+|=)|/[pP](?::|[ \t]+))"
        r"(?:" + _QUOTED + "|" + _BARE + r")(?=[ \t]|$|\n|\r)",
        "-p -w -k -a /p",
        _short_flag,
    ),
    # any program's flag whose name says password, secret, token, auth or key, its value next
    # or after `=`, a `user:` before it dropped (`--upstream-auth svc:PW`, `--auth=PW`,
    # `-keypass PW`, `-storepass PW`)
    rule(
        "cli-password",
        r"[ \t]--?(?=[\w-]{0,40}?(?i:pass|pwd|secret|token|auth|cred|key))"
        r"(?P<flag>[A-Za-z][\w-]{1,40})(?:=|[ \t]+)(?:" + _QUOTED
        + r"|(?:[A-Za-z][\w.@-]{0,60}:(?![/\d]))?(?P<vb>[^\s\"'`|;&<>()]{6,200}))"
        r"(?=[ \t]|$|\n|\r)",
        "pass pwd secret token auth cred key",
        _secret_flag,
    ),
    # a secret's name whose value is a child `value:` entry, a sibling `type:` or
    # `description:` line allowed between (`REGISTRY_PASSWORD:` then `  value: "PW"`)
    rule(
        "secret-assignment",
        r"(?m)^(?P<i>[ \t]*)(?P<name>[A-Za-z_][\w.-]{1,80})[ \t]*:[ \t]*\r?\n"
        r"(?P=i)(?P<j>[ \t]+)"
        r"(?:(?!value\b)[\w-]{1,30}[ \t]*:[ \t]*\S[^\n]{0,200}\n(?P=i)(?P=j)){0,3}"
        r"value[ \t]*:[ \t]*(?:" + _QUOTED + r"|(?P<vb>[^\s\"'#][^\s]{0,400}))",
        "value:",
        _nested_value,
    ),
    # an element named by an attribute that says secret (Maven's, Ant's, Hibernate's
    # `<property name="db.password">PW</property>`, `<entry key="apiToken">...</entry>`)
    rule(
        "secret-assignment",
        r"<(?P<tag>[A-Za-z][\w:.-]{0,40})[ \t][^<>\n]{0,200}?\b(?:name|key|id)[ \t]*=[ \t]*"
        r"[\"'](?P<name>[^\"'<>\n]{2,80})[\"'][^<>\n]{0,200}>(?P<v>[^<>\s\"']{1,400})"
        r"</(?P<close>[A-Za-z][\w:.-]{0,40})>",
        "name= key= id=",
        _named_element,
    ),
    # a table's row whose first cell names a secret and whose next holds it (`| api_token | V |`)
    rule(
        "secret-assignment",
        r"(?m)^[ \t]*\|[ \t]*`?(?P<name>[A-Za-z][\w .-]{1,60}?)`?[ \t]*\|[ \t]*`?"
        r"(?P<v>[^\s|`]{8,200})`?[ \t]*\|",
        "|",
        _table_cell,
    ),
    # a call's argument naming the slot, then the literal for it (PHP's `curl_setopt($ch,
    # CURLOPT_USERPWD, "user:PW")`, `ldap_set_option($c, LDAP_OPT_PASSWORD, "PW")`, Java's
    # `opts.add(Option.PASSWORD, "PW")`); a `user:` before the value stays
    rule(
        "secret-assignment",
        r"[(,][ \t]*(?P<name>[A-Za-z_$][\w$]{0,60}(?:(?:\.|::)[A-Za-z_]\w{0,60}){0,3})[ \t]*,[ \t]*"
        r"[\"'](?:[A-Za-z][\w.@-]{0,60}:)?(?P<v>[^\"'\n]{1,400})[\"'][ \t]*[,)]",
        "pass pwd secret token key cred",
        _constant_argument,
    ),
    # a subscript naming a secret, assigned a literal (Perl's `$ENV{DB_PASSWORD} = "PW"`,
    # `cfg[:api_token] = "..."`)
    rule(
        "secret-assignment",
        r"[\[{][ \t]*[\"':]?(?P<name>[A-Za-z_][\w.-]{1,80})[\"']?[ \t]*[\]}][ \t]*"
        r"(?:=|:=|\|\|=)[ \t]*" + _QUOTED,
        "pass pwd secret token key cred auth",
        _subscript_value,
    ),
    # the last argument of a subcommand making an account or a worker, after one to four
    # others (`create-worker DIR HOST NAME PW`, `superuser upsert EMAIL PW`, `kamctl add USER PW`)
    rule(
        "cli-password",
        r"[ \t](?:add|create|upsert|register|create-worker|create-user|useradd"
        r"|adduser|add-user|set-password|setpassword)"
        r"(?:[ \t]+[^\s\"'|;&<>-][^\s\"'|;&<>]{0,200}){1,4}[ \t]+"
        r"(?:" + _QUOTED + r"|(?P<vb>[^\s\"'`|;&<>()-][^\s\"'`|;&<>()]{7,200}))"
        r"[ \t]*(?=$|\r?\n|[|;&])",
        "add create upsert register useradd adduser password",
        _account_argument,
    ),
]
# fmt: on
