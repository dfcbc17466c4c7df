"""Development cases for redaction rules by position: rewrites batch-dev-1.jsonl beside this file.

Unlike the held-apart batches, these rows are written to develop rules against, and measured
before and after each change (`python -m tests.test_redaction_dev -v`). Each row has the fields of
the held-apart files (`class`, `expect`, `context`, `secret` or `value`, `source`, and a `reason`
for a look-alike); each shape comes from the documentation page in `source`, with fresh random
values (fixed seed). The classes are positions a secret takes in tool output whatever the tool:
a secret-like name in another language, an unknown tool's password flag, a password by position
in a client call, config statements of other languages, an answer file, a URL path segment,
base64 handed to a decoder, a UUID after a secret flag; and the look-alikes those positions must
spare: public keys in their slots, secret-store references, masks, ids, flags that take no secret.
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
OUT = HERE / "batch-dev-1.jsonl"
rng = random.Random(20261203_1)
ALNUM = string.ascii_letters + string.digits


def token(n: int = 32) -> str:
    return "".join(rng.choice(ALNUM) for _ in range(n))


def password() -> str:
    """A password a person picks: a word, digits and a symbol, or a random run."""
    words = ("Harbor", "Velvet", "Quartz", "Mango", "Falcon", "Cobalt", "Tundra", "Saffron")
    if rng.random() < 0.5:
        return f"{rng.choice(words)}{rng.randrange(10, 9999)}{rng.choice('!#%&*+@?')}{rng.choice(words).lower()}"
    return "".join(rng.choice(ALNUM + "!#%&*+-_") for _ in range(rng.randrange(14, 22)))


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


# --- secret-like names in other languages: key names and prose -----------------------------
LANG = "https://en.wikipedia.org/wiki/List_of_languages_by_total_number_of_speakers"
# (name in a config key, a phrase "the password is" in the same language)
NAMES = [
    ("contraseña", "la contraseña es"),  # Spanish
    ("senha", "a senha é"),  # Portuguese
    ("mot_de_passe", "le mot de passe est"),  # French
    ("passwort", "das Passwort lautet"),  # German
    ("пароль", "пароль:"),  # Russian
    ("密码", "密码是"),  # Chinese
    ("パスワード", "パスワードは"),  # Japanese
    ("비밀번호", "비밀번호는"),  # Korean
    ("kata_sandi", "kata sandinya adalah"),  # Indonesian
    ("şifre", "şifre şu:"),  # Turkish
    ("wachtwoord", "het wachtwoord is"),  # Dutch
    ("hasło", "hasło to"),  # Polish
    ("parola", "la password è"),  # Italian / Romanian key
    ("mật_khẩu", "mật khẩu là"),  # Vietnamese
    ("รหัสผ่าน", "รหัสผ่านคือ"),  # Thai
    ("كلمة_المرور", "كلمة المرور هي"),  # Arabic
    ("पासवर्ड", "पासवर्ड है"),  # Hindi
    ("পাসওয়ার্ড", "পাসওয়ার্ড হলো"),  # Bengali
    ("lösenord", "lösenordet är"),  # Swedish
    ("salasana", "salasana on"),  # Finnish
    ("jelszó", "a jelszó:"),  # Hungarian
    ("пароль_доступу", "пароль доступу —"),  # Ukrainian
    ("סיסמה", "הסיסמה היא"),  # Hebrew
    ("κωδικός", "ο κωδικός είναι"),  # Greek
    ("adgangskode", "adgangskoden er"),  # Danish
    ("kata_laluan", "kata laluan ialah"),  # Malay
    ("رمز_عبور", "رمز عبور:"),  # Persian
    ("கடவுச்சொல்", "கடவுச்சொல்:"),  # Tamil
    ("heslo", "heslo je"),  # Czech
    ("lozinka", "lozinka je"),  # Croatian/Serbian
]
for name, phrase in NAMES:
    value = password()
    secret("name in another language", f"{name}={value}", value, LANG)
    value = password()
    secret("name in another language", f'  "{name}": "{value}",', value, LANG)
    value = password()
    secret("prose in another language", f"{phrase} {value}", value, LANG)
TOKEN_WORDS = [
    ("clave_api", "es"),
    ("chave_de_acesso", "pt"),
    ("jeton", "fr"),
    ("zugangsschlüssel", "de"),
    ("токен", "ru"),
    ("令牌", "zh"),
    ("トークン", "ja"),
    ("토큰", "ko"),
    ("kunci_rahasia", "id"),
    ("gizli_anahtar", "tr"),
]
for name, _ in TOKEN_WORDS:
    value = token(rng.randrange(24, 40))
    secret("name in another language", f"{name}: {value}", value, LANG)

# --- an unknown tool's password, token or secret flag -----------------------------------------
CLI = "https://www.gnu.org/software/libc/manual/html_node/Argument-Syntax.html"
for flag in (
    "--db-pass",
    "--admin-password",
    "--api-token",
    "--auth-token",
    "--client-secret",
    "--master-passphrase",
    "--registry-token",
    "--smtp-pass",
    "--bind-secret",
    "--vault-token",
):
    value = password() if "pass" in flag else token(rng.randrange(20, 40))
    sep = rng.choice(["=", " "])
    secret(
        "unknown tool's secret flag",
        f"$ acmectl deploy --host db.internal {flag}{sep}{value} --verbose",
        value,
        CLI,
    )
for tool in ("fooctl", "relayd", "backupper", "syncmgr"):
    value = password()
    secret("unknown tool's secret flag", f"{tool} -u admin -p {value} --host 10.0.4.12", value, CLI)
    value = token(32)
    secret("unknown tool's secret flag", f"{tool} login --token {value}", value, CLI)

# --- UUID-shaped tokens after a secret flag or name ----------------------------------------
HEROKU = "https://devcenter.heroku.com/articles/authentication"
for flag in ("--token", "--api-key", "-t", "--auth", "--secret"):
    value = uid()
    secret("uuid token", f"uploader {flag} {value} ./dist", value, HEROKU)
for name in ("HEROKU_API_KEY", "SNYK_TOKEN", "CODECOV_TOKEN", "API_SECRET"):
    value = uid()
    secret("uuid token", f"export {name}={value}", value, HEROKU)

# --- a password by position in a client call -------------------------------------------------
DBI = "https://metacpan.org/pod/DBI#connect"
for call in (
    'DBI->connect("dbi:Pg:dbname=app;host=db", "app", "{pw}")',
    'mysqli_connect("db.internal", "app", "{pw}", "shop")',
    'pymysql.connect(host="db", user="app", password="{pw}")',
    'new PDO("mysql:host=db;dbname=shop", "app", "{pw}")',
    'ftp.login("deploy", "{pw}")',
    'smtp.login("alerts@acme.test", "{pw}")',
    'client:auth("{pw}")',
    'redis.StrictRedis(host="cache", port=6379, password="{pw}")',
    'ldap.simple_bind_s("cn=admin,dc=acme,dc=test", "{pw}")',
    'imaplib.IMAP4_SSL("imap.acme.test").login("ops", "{pw}")',
):
    value = password()
    secret("password by position", call.replace("{pw}", value), value, DBI)

# --- config statements of other languages ---------------------------------------------------
PHP = "https://developer.wordpress.org/advanced-administration/wordpress/wp-config/"
for stmt in (
    "define('DB_PASSWORD', '{v}');",
    "define( 'AUTH_KEY', '{v}' );",
    "$db_password = '{v}';",
    "$config['smtp_pass'] = '{v}';",
    "'password' => '{v}',",
    'const apiSecret = "{v}";',
    "let dbPassword = '{v}';",
    "module.exports = {{ secret: '{v}' }};",
    'config.secret_key_base = "{v}"',
    "ENV['MAIL_PASSWORD'] ||= '{v}'",
    'local password = "{v}"',
    "my $password = '{v}';",
    'our $api_token = "{v}";',
    "set -g @db_pass '{v}'",
    'password := "{v}"',
):
    value = password() if "pass" in stmt.lower() else token(rng.randrange(24, 48))
    secret("config statement", stmt.format(v=value), value, PHP)

# --- Windows answer files --------------------------------------------------------------------
UNATTEND = "https://learn.microsoft.com/en-us/windows-hardware/customize/desktop/unattend/microsoft-windows-shell-setup-autologon-password"
for tag in ("AutoLogon", "AdministratorPassword", "LocalAccount"):
    value = password()
    if tag == "AutoLogon":
        ctx = f"<AutoLogon>\n  <Password>\n    <Value>{value}</Value>\n    <PlainText>true</PlainText>\n  </Password>\n  <Username>Administrator</Username>\n</AutoLogon>"
    elif tag == "AdministratorPassword":
        ctx = f"<UserAccounts><AdministratorPassword><Value>{value}</Value><PlainText>true</PlainText></AdministratorPassword></UserAccounts>"
    else:
        ctx = f'<LocalAccount wcm:action="add"><Password><Value>{value}</Value><PlainText>true</PlainText></Password><Name>svc</Name></LocalAccount>'
    secret("answer file", ctx, value, UNATTEND)
value = base64.b64encode((password() + "Password").encode("utf-16-le")).decode()
secret(
    "answer file",
    f"<Password>\n  <Value>{value}</Value>\n  <PlainText>false</PlainText>\n</Password>",
    value,
    UNATTEND,
)
value = password()
secret(
    "answer file",
    f"[GuiUnattended]\nAdminPassword={value}\nAutoLogon=Yes",
    value,
    "https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2003/cc757642(v=ws.10)",
)
value = password()
secret(
    "answer file",
    f"<Credentials><Domain>corp</Domain><Password>{value}</Password><Username>joiner</Username></Credentials>",
    value,
    UNATTEND,
)

# --- secret-bearing URL path segments ------------------------------------------------------
URLS = "https://api.slack.com/messaging/webhooks"
for url in (
    "https://hooks.acme-chat.test/hooks/{t}",
    "https://push.notify.test/api/v1/send/{t}/alert",
    "https://api.telegram.org/bot{bot}/sendMessage",
    "https://ci.acme.test/generic-webhook-trigger/invoke?token={t}",
    "https://status.acme.test/api/push/{t}?status=up",
):
    value = token(rng.randrange(24, 40))
    if "{bot}" in url:
        value = f"{rng.randrange(10**9, 10**10)}:AA{token(33)}"
        ctx = url.replace("{bot}", value)
    else:
        ctx = url.replace("{t}", value)
    secret("url path secret", f"curl -X POST {ctx}", value, URLS)

# --- base64 handed to a decoder ------------------------------------------------------------
B64 = "https://developer.mozilla.org/en-US/docs/Web/API/Window/atob"
for shape in (
    'atob("{b}")',
    "Buffer.from('{b}', 'base64').toString()",
    'base64.b64decode("{b}")',
    "[System.Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('{b}'))",
    "base64 --decode <<< {b}",
):
    value = base64.b64encode(f"password={password()}".encode()).decode()
    secret("base64 to a decoder", shape.format(b=value), value, B64)

# === look-alikes ========================================================================
PUB = "https://man.openbsd.org/ssh-keygen"
for i in range(4):
    value = "AAAAC3NzaC1lZDI1NTE5AAAAI" + token(43)
    benign(
        "look-alike: public key in its slot",
        f"ssh-ed25519 {value} deploy@ci-{i}",
        value,
        "an SSH public key",
        PUB,
    )
value = token(43) + "="
benign(
    "look-alike: public key in its slot",
    f"PublicKey = {value}",
    value,
    "a WireGuard peer's public key",
    "https://www.wireguard.com/quickstart/",
)
value = "BP" + token(85)
benign(
    "look-alike: public key in its slot",
    f"VAPID_PUBLIC_KEY={value}",
    value,
    "a VAPID public key is served to browsers",
    "https://web.dev/articles/push-notifications-web-push-protocol",
)
value = "pk_live_" + token(24)
benign(
    "look-alike: public key in its slot",
    f"NEXT_PUBLIC_STRIPE_KEY={value}",
    value,
    "a publishable key",
    "https://docs.stripe.com/keys",
)
REFS = "https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions"
for ctx, value, reason, src in (
    (
        "password: ${{ secrets.DB_PASSWORD }}",
        "${{ secrets.DB_PASSWORD }}",
        "a GitHub Actions secret reference",
        REFS,
    ),
    (
        "  GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "${{ secrets.GITHUB_TOKEN }}",
        "a GitHub Actions secret reference",
        REFS,
    ),
    (
        "DB_PASSWORD=op://prod/postgres/password",
        "op://prod/postgres/password",
        "a 1Password secret reference",
        "https://developer.1password.com/docs/cli/secret-reference-syntax",
    ),
    (
        "api_key: vault:secret/data/payments#api_key",
        "vault:secret/data/payments#api_key",
        "a Vault path reference",
        "https://developer.hashicorp.com/vault/docs/secrets/kv",
    ),
    (
        "--secret-id arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
        "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
        "an AWS secret's ARN",
        "https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_iam-permissions.html",
    ),
    (
        "password: !vault |",
        "!vault |",
        "an Ansible vault tag",
        "https://docs.ansible.com/ansible/latest/vault_guide/vault_using_encrypted_content.html",
    ),
    (
        'token = "${var.api_token}"',
        "${var.api_token}",
        "a Terraform variable reference",
        "https://developer.hashicorp.com/terraform/language/values/variables",
    ),
    (
        "DATABASE_PASSWORD=${DATABASE_PASSWORD}",
        "${DATABASE_PASSWORD}",
        "a shell variable reference",
        "https://docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/",
    ),
    (
        "password = {{ pillar['db']['password'] }}",
        "{{ pillar['db']['password'] }}",
        "a Salt pillar lookup",
        "https://docs.saltproject.io/en/latest/topics/pillar/index.html",
    ),
    (
        "secret: projects/acme/secrets/db-pass/versions/latest",
        "projects/acme/secrets/db-pass/versions/latest",
        "a Secret Manager resource name",
        "https://cloud.google.com/secret-manager/docs/access-secret-version",
    ),
    (
        "SECRET_KEY=@Microsoft.KeyVault(SecretUri=https://acme.vault.azure.net/secrets/app/)",
        "@Microsoft.KeyVault(SecretUri=https://acme.vault.azure.net/secrets/app/)",
        "an App Service Key Vault reference",
        "https://learn.microsoft.com/en-us/azure/app-service/app-service-key-vault-references",
    ),
):
    benign("look-alike: secret-store reference", ctx, value, reason, src)
MASKS = "https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions#redacting-secrets-from-workflow-run-logs"
for ctx, value in (
    ("password=***", "***"),
    ("DB_PASSWORD: (removed)", "(removed)"),
    ("api_key=<redacted>", "<redacted>"),
    ("token: [hidden]", "[hidden]"),
    ("password: ••••••••", "••••••••"),
    ("secret=********", "********"),
    ("Authorization: Bearer ****", "****"),
    ("--password=[MASKED]", "[MASKED]"),
):
    benign("look-alike: mask", ctx, value, "a masked value", MASKS)
IDS = "https://www.rfc-editor.org/rfc/rfc9562"
for ctx in (
    "request_id={u} status=200",
    "--request-id {u}",
    "Trace-Id: {u}",
    "deployment {u} finished",
    "--project-id {u} --region eu",
    "commit {h}",
):
    value = uid() if "{u}" in ctx else "".join(rng.choice("0123456789abcdef") for _ in range(40))
    benign("look-alike: id", ctx.format(u=value, h=value), value, "an id names an object", IDS)
FLAGS = "https://docs.docker.com/reference/cli/docker/container/run/"
for ctx, value, reason in (
    ("docker run -p 8080:80 nginx", "8080:80", "-p publishes a port"),
    ("ssh -p 2222 deploy@host", "2222", "-p is ssh's port"),
    ("mkdir -p /var/lib/app/data", "/var/lib/app/data", "-p makes parents"),
    ("mysql -u app -p -h db.internal", "db.internal", "-p with no value prompts"),
    ("vault login -method=userpass username=ops", "username=ops", "no password given"),
    (
        "acmectl deploy --password-file /run/secrets/db_pass",
        "/run/secrets/db_pass",
        "a path to a secret file",
    ),
    ("acmectl login --token-stdin < token.txt", "token.txt", "the token comes from stdin"),
    (
        "openssl genrsa -aes256 -passout file:/run/keys/pass 4096",
        "file:/run/keys/pass",
        "a passphrase source",
    ),
    ("--token-ttl 3600 --token-type bearer", "bearer", "token options that are not tokens"),
    ("pg_dump --no-password -h db app", "app", "a flag saying no password"),
):
    benign("look-alike: flag with no secret", ctx, value, reason, FLAGS)
CODE = "https://docs.python.org/3/library/getpass.html"
for ctx, value in (
    ("password = getpass.getpass()", "getpass.getpass()"),
    ("const token = process.env.API_TOKEN;", "process.env.API_TOKEN"),
    ("$password = getenv('DB_PASSWORD');", "getenv('DB_PASSWORD')"),
    ("password_field = forms.CharField(widget=forms.PasswordInput)", "forms.PasswordInput"),
    ("la contraseña debe tener al menos 12 caracteres", "12"),
    ("das Passwort wurde erfolgreich geändert", "erfolgreich"),
    ("密码错误,请重试", "请重试"),
    ("パスワードを忘れた場合", "忘れた場合"),
):
    benign(
        "look-alike: code or prose naming a secret", ctx, value, "names a secret, holds none", CODE
    )


def main() -> None:
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
