"""Second development batch for redaction rules by position: rewrites batch-dev-2.jsonl here.

Written after the rules of batch-dev-1 had landed and measured once before any rule was changed
for it (the figures are in tests/test_redaction_dev.py), then used to develop rules like the
first. Same row format. Shapes: a flag and its value as separate items of an argument list, a
password given by keyword or tuple to a client, config statements of more languages and
container files, Windows commands, key-bearing URL paths, more decoders, foreign names as
flags, English prose that puts the value first; look-alikes: ciphertext envelopes, template and
CloudFormation references, ports after `-p`/`-P`, Kubernetes secret names and key selectors.
"""

# ruff: noqa: E501  (each context stays as it appears in a log)

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "batch-dev-2.jsonl"
rng = random.Random(20261203_2)
ALNUM = string.ascii_letters + string.digits


def token(n: int = 32) -> str:
    while True:  # a placeholder word by chance (`xxx`) would measure the placeholder policy
        value = "".join(rng.choice(ALNUM) for _ in range(n))
        if "xxx" not in value.lower():
            return value


def password() -> str:
    words = ("Lantern", "Osprey", "Juniper", "Basalt", "Meadow", "Cinder", "Harrow", "Pebble")
    if rng.random() < 0.5:
        return f"{rng.choice(words)}{rng.randrange(10, 9999)}{rng.choice('!#%*+@?')}{rng.choice(words).lower()}"
    while True:
        value = "".join(rng.choice(ALNUM + "!#%*+-_") for _ in range(rng.randrange(14, 22)))
        if "xxx" not in value.lower():
            return value


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


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


COMPOSE = "https://docs.docker.com/reference/compose-file/services/#command"
K8S_ARGS = (
    "https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/"
)
for flag in (
    "--requirepass",
    "--db-password",
    "--api-key",
    "--auth-token",
    "--admin-secret",
    "--passphrase",
):
    value = password() if "pass" in flag else token(28)
    secret(
        "flag and value as list items", f'command: ["server", "{flag}", "{value}"]', value, COMPOSE
    )
    value = password() if "pass" in flag else token(28)
    secret(
        "flag and value as list items",
        f"args:\n  - {flag}\n  - {value}\n  - --verbose",
        value,
        K8S_ARGS,
    )
    value = password() if "pass" in flag else token(28)
    secret(
        "flag and value as list items",
        f"subprocess.run(['tool', '{flag}', '{value}'], check=True)",
        value,
        "https://docs.python.org/3/library/subprocess.html#subprocess.run",
    )

REQ = "https://requests.readthedocs.io/en/latest/user/authentication/"
for shape in (
    'requests.get(url, auth=("deploy", "{pw}"))',
    "HTTPBasicAuth('deploy', '{pw}')",
    "Net::SSH.start('build.internal', 'deploy', password: '{pw}')",
    'psycopg2.connect("dbname=app user=app password={pw} host=db")',
    "Client('sftp.internal', 22, 'deploy', '{pw}')",
    "conn.connect({{ host: 'bastion', username: 'ops', password: '{pw}' }})",
    'smtplib.SMTP_SSL("smtp.acme.test").login("noreply@acme.test", "{pw}")',
    'DriverManager.getConnection(jdbcUrl, "report", "{pw}")',
):
    value = password()
    secret("password to a client", shape.format(pw=value), value, REQ)

LANGS = "https://rosettacode.org/wiki/Variables"
for stmt in (
    'config :app, App.Repo, username: "app", password: "{v}"',
    '\tPassword: "{v}",',
    'val apiKey = "{t}"',
    'let apiSecret = "{t}"',
    'private const string ApiKey = "{t}";',
    'String dbPassword = "{v}";',
    "$Password = '{v}'",
    "set DB_PASSWORD={v}",
    "ENV DB_PASSWORD {v}",
    "ARG NPM_TOKEN={t}",
    "SetEnv DB_PASS {v}",
    'Environment="API_KEY={t}"',
    "docker run -e DB_PASSWORD={v} postgres:16",
    "kubectl create secret generic db --from-literal=password={v}",
    "helm upgrade app ./chart --set auth.password={v}",
    '    "password" => "{v}",',
):
    value = password() if "{v}" in stmt else token(rng.randrange(28, 44))
    secret("config statement", stmt.format(v=value, t=value), value, LANGS)

WIN = "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/net-user"
value = password()
secret("windows command", f"net user svc_backup {value} /add /domain", value, WIN)
value = password()
secret(
    "windows command",
    f"sc.exe config BackupSvc obj= .\\svc_backup password= {value}",
    value,
    "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/sc-config",
)
value = password()
secret(
    "windows command",
    f"net use Z: \\\\files\\share {value} /user:CORP\\ops",
    value,
    "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/net-use",
)
value = password()
secret(
    "windows command",
    f"runas /savecred /user:admin cmd & echo {value}| clip",
    value,
    "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/runas",
)

URLK = "https://help.ifttt.com/hc/en-us/articles/115010230347"
for url in (
    "https://maker.ifttt.com/trigger/deploy_done/with/key/{t}",
    "https://api.acme.test/v2/key/{t}/events",
    "https://notify.acme.test/send?apikey={t}&msg=done",
    "https://hc-ping.com/{u}",
    "wss://stream.acme.test/socket?access_token={t}",
):
    value = uid() if "{u}" in url else token(rng.randrange(22, 36))
    secret("key in a url", f"curl -s {url.format(t=value, u=value)}", value, URLK)

DEC = "https://www.openssl.org/docs/manmaster/man1/openssl-enc.html"
for shape in (
    "echo {b} | openssl base64 -d",
    "echo {b} | base64 -di > creds.txt",
    "certutil -decodehex {h} out.bin",
    'Base64.getDecoder().decode("{b}")',
    "base64_decode('{b}')",
):
    raw = f"password={password()}"
    value = raw.encode().hex() if "{h}" in shape else base64.b64encode(raw.encode()).decode()
    secret("base64 to a decoder", shape.format(b=value, h=value), value, DEC)

FLAGLANG = "https://www.gnu.org/software/libc/manual/html_node/Argument-Syntax.html"
for flag in ("--contraseña", "--passwort", "--senha", "--mot-de-passe", "--пароль", "--wachtwoord"):
    value = password()
    secret("foreign name as a flag", f"tool sync {flag}={value} --host nas", value, FLAGLANG)

PROSE = "https://en.wikipedia.org/wiki/Password"
for shape in (
    "use {v} as the password for the staging box",
    "{v} is the new admin password",
    "I set the wifi password to {v} yesterday",
    "password (new): {v}",
    "login with ops / {v}",
    "the API key → {v}",
):
    value = password() if "key" not in shape else token(30)
    secret("english prose", shape.format(v=value), value, PROSE)

# === look-alikes ===
for ctx, value, reason, src in (
    (
        "spring.datasource.password=ENC(G6N718UuyPE5bHyWKyuLQSm02auQPUtm)",
        "ENC(G6N718UuyPE5bHyWKyuLQSm02auQPUtm)",
        "a Jasypt ciphertext",
        "http://www.jasypt.org/encrypting-configuration.html",
    ),
    (
        "MasterUserPassword: !Ref DbPassword",
        "!Ref DbPassword",
        "a CloudFormation reference",
        "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/intrinsic-function-reference-ref.html",
    ),
    (
        "password: '{{resolve:secretsmanager:prod/db:SecretString:password}}'",
        "{{resolve:secretsmanager:prod/db:SecretString:password}}",
        "a dynamic reference",
        "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/dynamic-references.html",
    ),
    (
        'password: "{{ .Values.db.password }}"',
        "{{ .Values.db.password }}",
        "a Helm template",
        "https://helm.sh/docs/chart_template_guide/values_files/",
    ),
    (
        'api_key = os.environ["API_KEY"]',
        'os.environ["API_KEY"]',
        "an environment lookup",
        "https://docs.python.org/3/library/os.html#os.environ",
    ),
    (
        "secretName: db-credentials",
        "db-credentials",
        "a Secret's name",
        "https://kubernetes.io/docs/concepts/configuration/secret/",
    ),
    (
        "secretKeyRef:\n  name: db-credentials\n  key: password",
        "password",
        "a key selector names the key",
        "https://kubernetes.io/docs/concepts/configuration/secret/",
    ),
    (
        "token_type: bearer\nexpires_in: 3600",
        "bearer",
        "a token response's metadata",
        "https://www.rfc-editor.org/rfc/rfc6749#section-5.1",
    ),
    (
        "PASSWORD_MIN_LENGTH=12",
        "12",
        "a password policy",
        "https://docs.djangoproject.com/en/5.0/topics/auth/passwords/",
    ),
    ("password: <hidden>", "<hidden>", "a mask", "https://docs.github.com/en/actions"),
    (
        "token=[FILTERED]",
        "[FILTERED]",
        "Rails' filtered parameter",
        "https://guides.rubyonrails.org/configuring.html#config-filter-parameters",
    ),
    (
        "psql -h db -p 5433 -U app",
        "5433",
        "-p is psql's port",
        "https://www.postgresql.org/docs/current/app-psql.html",
    ),
    (
        "redis-cli -h cache -p 6380 ping",
        "6380",
        "-p is redis-cli's port",
        "https://redis.io/docs/latest/develop/tools/cli/",
    ),
    (
        "mysql -h db -P 3307 -u app -p",
        "3307",
        "-P is mysql's port",
        "https://dev.mysql.com/doc/refman/8.0/en/connecting.html",
    ),
    (
        "docker login --password-stdin -u ci registry.acme.test",
        "registry.acme.test",
        "the password comes from stdin",
        "https://docs.docker.com/reference/cli/docker/login/",
    ),
    (
        "client_id=0oa1b2c3d4e5f6g7h8i9",
        "0oa1b2c3d4e5f6g7h8i9",
        "an OAuth client id is public",
        "https://www.rfc-editor.org/rfc/rfc6749#section-2.2",
    ),
    (
        '"kid": "NjVBRjY5MDlCMUIwNzU4RTA2QzZFMDQ4QzQ2MDAyQjVDNjk1RTM2Qg"',
        "NjVBRjY5MDlCMUIwNzU4RTA2QzZFMDQ4QzQ2MDAyQjVDNjk1RTM2Qg",
        "a key id",
        "https://www.rfc-editor.org/rfc/rfc7517#section-4.5",
    ),
    (
        "Passwort vergessen? Link zum Zurücksetzen gesendet",
        "Zurücksetzen",
        "prose about a password",
        "https://support.google.com/accounts/answer/41078?hl=de",
    ),
    (
        "token expired at 2026-12-03T10:00:00Z, refreshing",
        "2026-12-03T10:00:00Z",
        "a log about a token",
        "https://www.rfc-editor.org/rfc/rfc6749#section-6",
    ),
    (
        'args: ["--port", "8443", "--password-file", "/etc/app/pass"]',
        "/etc/app/pass",
        "a password file path",
        COMPOSE,
    ),
    (
        'command: ["server", "--requirepass", "${REDIS_PASSWORD}"]',
        "${REDIS_PASSWORD}",
        "a variable",
        COMPOSE,
    ),
    (
        "ENV DB_PASSWORD_FILE /run/secrets/db",
        "/run/secrets/db",
        "a path",
        "https://docs.docker.com/reference/dockerfile/#env",
    ),
    (
        "helm upgrade app ./chart --set auth.existingSecret=db-creds",
        "db-creds",
        "a Secret's name",
        "https://helm.sh/docs/helm/helm_upgrade/",
    ),
    (
        "kubectl create secret generic db --from-file=password=./pw.txt",
        "./pw.txt",
        "a file path",
        "https://kubernetes.io/docs/tasks/configmap-secret/managing-secret-using-kubectl/",
    ),
    ("net user svc_backup /delete", "/delete", "no password", WIN),
    ("https://hc-ping.com/status", "status", "a path word", "https://healthchecks.io/docs/"),
    ("I reset the wifi password yesterday", "yesterday", "prose without a value", PROSE),
    ("password (new): ********", "********", "a mask", PROSE),
    (
        "jdbc:postgresql://db:5432/app?user=app&password=${DB_PASS}",
        "${DB_PASS}",
        "a variable",
        "https://jdbc.postgresql.org/documentation/use/",
    ),
    (
        "sha256sum: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "a digest",
        "https://www.gnu.org/software/coreutils/manual/html_node/sha2-utilities.html",
    ),
):
    benign("look-alike", ctx, value, reason, src)


def main() -> None:
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
