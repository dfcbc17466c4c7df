"""Secrets handed to a command: a value after its name, a tool's password flag, a pipe, SQL.

Owns the rules written from each tool's own synopsis: `aws configure set NAME VALUE`, `poetry
config pypi-token.X TOKEN` and `http-basic.X USER PASSWORD`, `npm config set //host/:_authToken
TOKEN`, `gh secret set NAME --body VALUE`, `echo PW | docker login --password-stdin`,
`redis-cli -a PW`, `ldapsearch -w PW`, `htpasswd -b FILE USER PW`, `smbclient -U USER%PW`,
`twine upload -p PW`, `az ... --account-key KEY`, and SQL's `IDENTIFIED BY '...'` and `PASSWORD
'...'`. Invariant: only the value is replaced, never the command, the flag or the name; a value
that is a reference (`$TOKEN`, `"$(cat f)"`) is left alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from wikimem.redaction.key_names import secret_name_kind
from wikimem.redaction.placeholders import is_placeholder, is_random
from wikimem.redaction.scanners import QUOTED_OR_BARE, Rule, occurrences, rule

_ARG = r"(?:[ \t]+(?:-[-\w]+(?:=\S+)?|[\w.@:/%-]+))"  # one other argument of the same command


def _config_value(value: str, m: re.Match[str], text: str) -> str | None:
    """`config set NAME VALUE`: a value counts when NAME names a secret."""
    name = m.group("name").lower()
    if is_placeholder(value) or name.startswith(("set-", "get-", "delete-", "use-")):
        return None  # a subcommand (`kubectl config set-credentials NAME`), not a key
    if name.startswith(("pypi-token.", "http-basic.")) or name.endswith(
        ("_authtoken", ":_auth", ":_password", "npmauthtoken")
    ):
        return "cli-config-secret"
    if any(word in name.rsplit(".", 1)[-1] for word in ("pass", "token", "secret")):
        return "cli-config-secret"
    kind = secret_name_kind(m.group("name").replace(".", "_"))
    if kind is None or (name.split(".")[-1] in ("key", "auth", "pass") and not is_random(value)):
        return None
    return "cli-config-secret"


def _plain(kind: str):  # type: ignore[no-untyped-def]
    return lambda value, m, text: None if is_placeholder(value) else kind


_PASSWORD = _plain("cli-password")
_MYSQL_HASH = r"\*[0-9A-Fa-f]{40}"


def _sql_password(value: str, m: re.Match[str], text: str) -> str | None:
    """A password in a SQL statement; a stored hash (`BY PASSWORD '*2470...'`) is not one."""
    if is_placeholder(value) or re.fullmatch(_MYSQL_HASH, value):
        return None
    if m.group("vb") is not None and (value.isalpha() and value.isupper()):
        return None  # a keyword (`IDENTIFIED BY VALUES`), not a value
    return "sql-password"


# fmt: off
RULES: list[Rule] = [
    # aws configure set NAME VALUE; poetry config NAME VALUE; npm/yarn/pnpm config set NAME VALUE;
    # git config NAME VALUE; pip config set NAME VALUE; pulumi config set --secret NAME VALUE.
    # http-basic takes USER then PASSWORD. An option is never the NAME.
    rule(
        "cli-config-secret",
        r"(?:configure|config)(?:[ \t]+(?:set|--global|--local|--user|--site|-g|--json|--secret"
        r"|--plaintext|--location[= ][\w]+|--profile[= ][\w.-]+))*[ \t]+(?!-)"
        r"(?P<name>(?:http-basic\.[\w.-]+[ \t]+[^\s\"']+|[\w./:@-]{2,200}))[ \t]+" + QUOTED_OR_BARE,
        "config",
        _config_value,
    ),
    # gh secret set NAME --body VALUE (or -b VALUE, --body=VALUE)
    rule(
        "cli-password",
        r"(?:secret|secrets)[ \t]+set\b[^\n|;&]{0,200}?[ \t](?:--body|-b)(?:=|[ \t]+)"
        + QUOTED_OR_BARE,
        "secret",
        _PASSWORD,
    ),
    # echo PW | docker login --password-stdin; printf '%s' PW | chpasswd; ... | passwd --stdin
    rule(
        "cli-password",
        r"(?:echo|printf)(?:[ \t]+-[neE]{1,3})?(?:[ \t]+'%s(?:\\n)?')?[ \t]+" + QUOTED_OR_BARE
        + r"[ \t]*\|[ \t]*(?=[^\n]{0,200}?(?:-stdin|chpasswd|passwd|--stdin|[ \t]-i\b|login))",
        "echo printf",
        _PASSWORD,
    ),
    # redis-cli -a PW / --pass PW; ldapsearch/ldapmodify/... -w PW; twine/az/smbclient -p PW
    rule(
        "cli-password",
        r"(?:redis-cli|keydb-cli|valkey-cli)\b[^\n|;&]{0,200}?[ \t]-a(?:[ \t]+|(?=[^\s-]))"
        + QUOTED_OR_BARE,
        "-cli",
        _PASSWORD,
        True,
    ),
    rule(
        "cli-password",
        r"ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop|url)\b[^\n|;&]{0,300}?"
        r"[ \t]-w(?:[ \t]+|(?=[^\s-]))" + QUOTED_OR_BARE,
        "ldap",
        _PASSWORD,
        True,
    ),
    rule(
        "cli-password",
        r"(?:twine|az|psexec)\b[^\n|;&]{0,200}?[ \t]-p(?:[ \t]+|(?=[^\s-]))" + QUOTED_OR_BARE,
        "twine az psexec",
        _PASSWORD,
        True,
    ),
    rule(
        "cli-password",
        r"(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]{0,200}?[ \t]-P(?:[ \t]+|(?=[^\s-]))" + QUOTED_OR_BARE,
        "sqlcmd bcp osql isql",
        _PASSWORD,
        True,
    ),
    # htpasswd -b[c...] FILE USER PASSWORD; htpasswd -nb[...] USER PASSWORD
    rule(
        "cli-password",
        r"htpasswd(?P<flags>(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d+)?)+)[ \t]+[^\s\"'-]\S*"
        r"(?:[ \t]+[^\s\"'-]\S*)?[ \t]+" + QUOTED_OR_BARE,
        "htpasswd",
        lambda value, m, text: (
            None if is_placeholder(value) or "b" not in m.group("flags") else "cli-password"
        ),
        True,
    ),
    # smbclient -U USER%PW, --user=USER%PW (the Samba tools' user%password form)
    rule(
        "cli-password",
        r"(?:[ \t]-U|--user(?:name)?)(?:[ \t]+|=)[\"']?[^\s%\"'/]{1,100}%(?P<v>[^\s\"']+)",
        "smb rpcclient cifs crackmapexec nxc impacket wbinfo samba",
        lambda value, m, text: (
            None
            if is_placeholder(value)
            or not re.search(r"smb|rpcclient|net[ \t]|mount|cifs|crackmapexec|nxc|impacket|"
                             r"wbinfo|samba", text[max(m.start() - 200, 0) : m.start()])
            else "cli-password"
        ),
    ),
    # az ... --account-key KEY, --sas-token T; other clouds' key flags of the same kind
    rule(
        "cli-password",
        r"--(?:account-key|sas-token|storage-key|shared-key|master-key|primary-key|secondary-key"
        r"|key-secret|access-key-secret|connection-string|service-principal-secret)(?:=|[ \t]+)"
        + QUOTED_OR_BARE,
        "--",
        _PASSWORD,
    ),
    # kubectl create secret ... --from-literal=NAME=VALUE
    rule(
        "k8s-secret",
        r"--from-literal[= ][\w.-]+=" + QUOTED_OR_BARE,
        "--from-literal",
        _plain("k8s-secret"),
    ),
    # SQL: IDENTIFIED BY 'pw', IDENTIFIED WITH plugin BY 'pw', [WITH] [ENCRYPTED] PASSWORD 'pw',
    # PASSWORD = 'pw' (SQL Server), SET PASSWORD ... = PASSWORD('pw')
]
# fmt: on


# SQL: IDENTIFIED BY 'pw', IDENTIFIED WITH plugin BY 'pw', [WITH] [ENCRYPTED] PASSWORD 'pw',
# PASSWORD = 'pw' (SQL Server), SET PASSWORD [FOR x] = PASSWORD('pw'). No literal starts every
# form, so the scan jumps from keyword to keyword instead of letting the regex walk the text.
_SQL = (
    r"(?i:(?P<by>identified(?:[ \t]+with[ \t]+\w+)?[ \t]+by)(?:[ \t]+password)?"
    r"|(?:encrypted[ \t]+|with[ \t]+|login[ \t]+|set[ \t]+)password(?:[ \t]+for[ \t]+\S{1,200})?"
    r"(?:[ \t]*=[ \t]*(?:password[ \t]*\()?)?|password[ \t]*=[ \t]*(?=N?'))[ \t]*N?"
    r"(?:'(?P<vs>(?:[^'\n]|'')+)'|\"(?P<vd>[^\"\n]+)\"|(?<=[bB][yY] )(?P<vb>[^\s'\";]+))"
)
_SQL_WORDS = ("identified", "password")
_SQL_BACK = 10  # `encrypted ` is the longest word before PASSWORD


@functools.cache
def _sql() -> re.Pattern[str]:
    return re.compile(_SQL)  # compiled on first use: most hooks never meet a SQL keyword


def scan_sql(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    done = 0
    for word, pos in occurrences(lowered, _SQL_WORDS):
        start = max(
            pos - (_SQL_BACK if word == "password" else 0), done if word == "identified" else 0
        )
        m = _sql().search(text, start, pos + 400)
        if m and m.start() <= pos:
            group = next(g for g in ("vs", "vd", "vb") if m.group(g) is not None)
            kind = _sql_password(m.group(group), m, text)
            if kind:
                yield kind, *m.span(group)
