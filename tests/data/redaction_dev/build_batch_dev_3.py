"""Third development batch for redaction rules by position: rewrites batch-dev-3.jsonl here.

Written after the rules developed on batch-dev-2 had landed and measured once before any rule
was changed for it (figures in tests/test_redaction_dev.py). Same row format. Shapes: shell
dialects' variables, Make assignments, database shells' user commands, login subcommands,
exception messages, foreign keys in YAML and INI, corner-bracket and full-width prose; look-alikes:
settings whose names contain a secret word, literals, auth method names, masks in other scripts.
"""

# ruff: noqa: E501  (each context stays as it appears in a log)

from __future__ import annotations

import json
import random
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "batch-dev-3.jsonl"
rng = random.Random(20261203_3)
ALNUM = string.ascii_letters + string.digits


def password() -> str:
    while True:
        value = "".join(rng.choice(ALNUM + "!#%*+-_") for _ in range(rng.randrange(14, 22)))
        if "xxx" not in value.lower() and any(c.isdigit() for c in value):
            return value


def token(n: int = 32) -> str:
    while True:
        value = "".join(rng.choice(ALNUM) for _ in range(n))
        if "xxx" not in value.lower():
            return value


ROWS: list[dict[str, str]] = []


def secret(cls: str, context: str, value: str, source: str) -> None:
    assert value in context, (context, value)
    ROWS.append(
        {"class": cls, "context": context, "expect": "secret", "secret": value, "source": source}
    )


def benign(cls: str, context: str, value: str, reason: str, source: str) -> None:
    assert value in context, (context, value)
    ROWS.append(
        {
            "class": cls,
            "context": context,
            "expect": "benign",
            "value": value,
            "reason": reason,
            "source": source,
        }
    )


SHELLS = "https://fishshell.com/docs/current/cmds/set.html"
for shape in (
    'set "DB_PASS={v}"',
    '$env:API_KEY = "{t}"',
    "set -x API_TOKEN {t}",
    "setenv DB_PASSWORD {v}",
    "PASSWORD ?= {v}",
    "export DEPLOY_TOKEN := {t}",
    "declare -x SECRET_KEY='{t}'",
    "typeset -x DB_PASSWORD={v}",
):
    value = password() if "{v}" in shape else token(rng.randrange(28, 40))
    secret("shell and make variables", shape.format(v=value, t=value), value, SHELLS)

SQL = "https://learn.microsoft.com/en-us/sql/t-sql/statements/create-login-transact-sql"
for shape in (
    "CREATE LOGIN reporter WITH PASSWORD = '{v}';",
    "SET PASSWORD FOR 'app'@'%' = '{v}';",
    'db.createUser({{user: "app", pwd: "{v}", roles: ["readWrite"]}})',
    'db.auth("app", "{v}")',
    "ALTER ROLE app WITH LOGIN PASSWORD '{v}';",
    'CREATE USER etl IDENTIFIED BY "{v}";',
):
    value = password()
    secret("database shell", shape.format(v=value), value, SQL)

LOGIN = "https://docs.cloudfoundry.org/cf-cli/getting-started.html"
for shape in (
    "cf login -a https://api.sys.acme.test -u ops -p {v}",
    "oc login https://api.ocp.acme.test:6443 -u kubeadmin -p {v}",
    "argocd login argocd.acme.test --username admin --password {v}",
    "vault login -method=userpass username=ops password={v}",
    "mc alias set minio http://minio:9000 admin {v}",
    "gh auth login --with-token <<< {t}",
):
    value = token(40) if "{t}" in shape else password()
    secret("login subcommand", shape.format(v=value, t=value), value, LOGIN)

EXC = "https://docs.python.org/3/library/exceptions.html"
for shape in (
    "ValueError: invalid password '{v}' for user 'app'",
    "AuthenticationError: token {t} was rejected",
    "WARN login failed user=ops pass={v} ip=10.0.0.4",
    'psql: error: FATAL: password authentication failed for user "app" (password={v})',
):
    value = token(36) if "{t}" in shape else password()
    secret("log and exception", shape.format(v=value, t=value), value, EXC)

FOREIGN = "https://yaml.org/spec/1.2.2/"
for shape in (
    "contraseña: {v}",
    "[base]\nmot_de_passe = {v}",
    "パスワード「{v}」でログインしてください",
    "密码：{v}",
    'Passwort: "{v}"',
    "senha_do_banco: '{v}'",
    "пароль администратора — {v}",
    "비밀번호: {v}",
):
    value = password()
    secret("foreign keys and prose", shape.format(v=value), value, FOREIGN)

for ctx, value, reason in (
    ("password_reset_token_ttl: 3600", "3600", "a lifetime"),
    ('"passwordPolicy": {"minLength": 12}', "12", "a policy"),
    ("contraseña: ${CONTRASENA}", "${CONTRASENA}", "a variable"),
    ("パスワード: ********", "********", "a mask"),
    ("token: null", "null", "a literal"),
    ("secret: false", "false", "a literal"),
    (
        "token_endpoint_auth_method: client_secret_basic",
        "client_secret_basic",
        "an auth method's name",
    ),
    ("tokenizer=bpe", "bpe", "a tokenizer"),
    ("keyboard=us", "us", "a keyboard layout"),
    ("passthrough: true", "true", "a literal"),
    ("Authorization: Bearer <token>", "<token>", "a placeholder"),
    ("--token-type=Bearer", "Bearer", "a token type"),
    ("mot_de_passe = %(DB_PASS)s", "%(DB_PASS)s", "an interpolation"),
    ("密码：请输入", "请输入", "a prompt"),
    ("gh auth login --with-token < token.txt", "token.txt", "a file"),
    ("vault login -method=userpass username=ops", "username=ops", "no password"),
    ("CREATE LOGIN reporter FROM WINDOWS;", "WINDOWS", "no password"),
    ("WARN login failed user=ops ip=10.0.0.4", "10.0.0.4", "no password"),
    ("SET PASSWORD FOR 'app'@'%' = PASSWORD(@new);", "PASSWORD(@new)", "an expression"),
    ("setenv DB_PASSWORD_FILE /run/secrets/db", "/run/secrets/db", "a path"),
):
    benign("look-alike", ctx, value, reason, "https://en.wikipedia.org/wiki/Configuration_file")


def main() -> None:
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
