"""Build classes.jsonl: secret shapes by class, written from each tool's documented synopsis.

Run `python tests/data/redaction/build_classes.py` to rewrite classes.jsonl. Each row has a
`class` (one per shape: a value after its name, a tool's password flag, SQL, ...), an `expect`
(`secret` or `benign`), a `context` and the `secret` (or, for benign rows, the `value` that must
survive). Benign rows are the look-alikes each class must leave alone: hashes, UUIDs, lockfile
integrity strings, base64 images, public keys, prompts that read a secret instead of taking it,
references such as `$TOKEN`. Output is deterministic (fixed seed); every secret is random and fake.
"""

# ruff: noqa: E501  (each context stays on one line, as it appears in a log)

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
rng = random.Random(20261201)
LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def rs(alphabet: str, n: int) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if (
            alphabet == HEX
            or n < 8
            or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s))
        ):
            return s


def pw() -> str:
    return rs(LOWER, 4).capitalize() + rs(DIGITS, 2) + rng.choice("!@#%^*-_") + rs(ALNUM, 5)


def b64(n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


def lines(text: str, width: int = 64) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


Row = dict[str, str]


def secret(cls: str, value: str, context: str) -> Row:
    assert value in context, (cls, value)
    return {"class": cls, "expect": "secret", "context": context, "secret": value}


def benign(cls: str, value: str, context: str) -> Row:
    assert value in context, (cls, value)
    return {"class": cls, "expect": "benign", "context": context, "value": value}


def positional() -> list[Row]:
    c = "positional value after its name"
    out = []
    for _ in range(3):
        s = rs(B64, 40)
        out.append(secret(c, s, f"$ aws configure set aws_secret_access_key {s} --profile ci\n"))
    s = b64(120)
    out.append(
        secret(c, s, f"aws configure set aws_session_token {s}\naws sts get-caller-identity\n")
    )
    for flag in ("--body", "-b", "--body="):
        s = rs(ALNUM, 24)
        sep = "" if flag.endswith("=") else " "
        out.append(
            secret(
                c,
                s,
                f"gh secret set DEPLOY_TOKEN {flag}{sep}{s} --repo acme/web\n✓ Set Actions secret DEPLOY_TOKEN for acme/web\n",
            )
        )
    s = "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 60)
    out.append(secret(c, s, f"poetry config pypi-token.pypi {s}\npoetry publish --build\n"))
    s = rs(ALNUM, 32)
    out.append(secret(c, s, f"poetry config pypi-token.testpypi {s}\n"))
    s = pw()
    out.append(secret(c, s, f"poetry config http-basic.acme deployer {s}\npoetry install\n"))
    s = str(uuid.UUID(int=rng.getrandbits(128)))
    out.append(secret(c, s, f"npm config set //registry.npmjs.org/:_authToken {s}\nnpm publish\n"))
    s = rs(B64, 44)
    out.append(secret(c, s, f"pnpm config set //npm.pkg.github.com/:_authToken {s}\n"))
    s = rs(ALNUM, 36)
    out.append(secret(c, s, f"yarn config set npmAuthToken {s}\n"))
    s = rs(ALNUM, 20)
    out.append(secret(c, s, f"git config --global sendemail.smtppass {s}\n"))
    negatives = [
        ("aws configure set region eu-west-1", "eu-west-1"),
        ("aws configure set default.output json", "json"),
        ("aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID", "$AWS_ACCESS_KEY_ID"),
        (
            'gh pr create --title "Fix build" --body "Pins bun to 1.1.30 so the lockfile stops drifting"',
            "Pins bun to 1.1.30",
        ),
        ('gh secret set DEPLOY_TOKEN --body "$DEPLOY_TOKEN"', "$DEPLOY_TOKEN"),
        ("gh secret set SSH_KEY < ~/.ssh/deploy_ed25519", "~/.ssh/deploy_ed25519"),
        ("npm config set registry https://registry.npmjs.org/", "https://registry.npmjs.org/"),
        ("poetry config virtualenvs.in-project true", "true"),
        ("git config --global user.email dev@acme.dev", "dev@acme.dev"),
        ("git config core.hooksPath .githooks", ".githooks"),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def tool_flags() -> list[Row]:
    c = "password flag or pipe of a common tool"
    out = []
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"echo '{s}' | docker login -u deployer --password-stdin registry.acme.dev\nLogin Succeeded\n",
        )
    )
    s = rs(ALNUM, 30)
    out.append(secret(c, s, f'echo "{s}" | helm registry login ghcr.io -u bot --password-stdin\n'))
    s = pw()
    out.append(
        secret(c, s, f"printf '%s' '{s}' | podman login quay.io -u acme+ci --password-stdin\n")
    )
    s = pw()
    out.append(secret(c, s, f"echo 'deploy:{s}' | chpasswd\n".replace(f"deploy:{s}", s)))
    s = rs(ALNUM, 16)
    out.append(
        secret(
            c,
            s,
            f"$ redis-cli -h cache.internal -p 6379 -a {s} ping\nWarning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\nPONG\n",
        )
    )
    s = rs(ALNUM, 12)
    out.append(secret(c, s, f"valkey-cli -a '{s}' --no-auth-warning INFO\n"))
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"ldapsearch -x -H ldap://ldap.acme.dev -D 'cn=admin,dc=acme,dc=dev' -w '{s}' -b 'dc=acme,dc=dev' '(uid=alice)'\n",
        )
    )
    s = pw()
    out.append(secret(c, s, f"ldapmodify -x -D cn=admin,dc=acme,dc=dev -w {s} -f change.ldif\n"))
    s = pw()
    out.append(
        secret(
            c, s, f"htpasswd -bc /etc/nginx/.htpasswd alice {s}\nAdding password for user alice\n"
        )
    )
    s = pw()
    out.append(secret(c, s, f"htpasswd -nbB admin {s} > auth\n"))
    s = pw()
    out.append(secret(c, s, f"smbclient //fs01.acme.local/finance -U alice%{s} -c 'ls'\n"))
    s = pw()
    out.append(secret(c, s, f"sudo mount -t cifs //nas/backup /mnt/backup --user=backup%{s}\n"))
    s = "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 70)
    out.append(
        secret(
            c,
            s,
            f"twine upload -u __token__ -p {s} dist/*\nUploading acme-1.4.2-py3-none-any.whl\n",
        )
    )
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"python -m twine upload --repository-url https://pypi.acme.dev -u ci -p '{s}' dist/*\n",
        )
    )
    s = b64(64)
    out.append(
        secret(
            c,
            s,
            f"az storage blob upload --account-name acmelogs --account-key {s} -c logs -f app.log -n app.log\n",
        )
    )
    s = "sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31&sig=" + rs(B64, 43) + "%3D"
    out.append(secret(c, s, f'az storage blob list --account-name acme -c x --sas-token "{s}"\n'))
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"az login --service-principal -u 3f1c2e9a-acme -p {s} --tenant acme.onmicrosoft.com\n",
        )
    )
    s = pw()
    out.append(secret(c, s, f"sqlcmd -S db.acme.local -U sa -P '{s}' -Q 'SELECT 1'\n"))
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"kubectl create secret generic db --from-literal=username=app --from-literal=password={s}\n",
        )
    )
    negatives = [
        ("cat ~/.docker-token | docker login -u deployer --password-stdin", "~/.docker-token"),
        ('echo "$CR_PAT" | docker login ghcr.io -u bot --password-stdin', "$CR_PAT"),
        ("echo 'Build finished' | tee -a build.log", "Build finished"),
        ("redis-cli -a $REDIS_PASSWORD ping", "$REDIS_PASSWORD"),
        ("redis-cli -h cache -p 6379 --scan --pattern 'session:*'", "session:*"),
        ("ldapsearch -x -W -D cn=admin,dc=acme -b dc=acme", "cn=admin,dc=acme"),
        ("ldapsearch -x -y /run/secrets/ldap -D cn=admin -b dc=acme", "/run/secrets/ldap"),
        ("htpasswd -c /etc/nginx/.htpasswd alice", "alice"),
        ("htpasswd -v /etc/nginx/.htpasswd alice", "/etc/nginx/.htpasswd"),
        ("smbclient -L //fs01 -U alice", "alice"),
        ("smbclient //fs01/share -U alice -c 'get 100%_report.pdf'", "100%_report.pdf"),
        ("twine upload -u __token__ -p $PYPI_TOKEN dist/*", "$PYPI_TOKEN"),
        ("twine check dist/*", "dist/*"),
        (
            'az storage blob list --account-name acme --account-key "$AZURE_STORAGE_KEY"',
            "$AZURE_STORAGE_KEY",
        ),
        ("ssh -p 2222 deploy@build.acme.dev", "2222"),
        ("psql -h db -p 5432 -U app", "5432"),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def sql() -> list[Row]:
    c = "SQL password clause"
    out = []
    for tpl in (
        "CREATE USER 'app'@'%' IDENTIFIED BY '{s}';",
        "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{s}';",
        "CREATE ROLE app LOGIN PASSWORD '{s}';",
        "ALTER ROLE app WITH PASSWORD '{s}';",
        "CREATE USER reporting WITH ENCRYPTED PASSWORD '{s}';",
        "CREATE LOGIN etl WITH PASSWORD = '{s}', CHECK_POLICY = OFF;",
        "SET PASSWORD FOR 'app'@'%' = PASSWORD('{s}');",
        "create user scott identified by {s};",
    ):
        s = pw() if "{s};" not in tpl else rs(ALNUM, 12)
        out.append(
            secret(c, s, "mysql> " + tpl.format(s=s) + "\nQuery OK, 0 rows affected (0.01 sec)\n")
        )
    negatives = [
        ("SELECT id FROM users WHERE password_hash IS NULL;", "password_hash IS NULL"),
        ("ALTER USER app PASSWORD NULL;", "NULL"),
        (
            "CREATE USER app IDENTIFIED BY PASSWORD '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19';",
            "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19",
        ),
        ("CREATE ROLE app LOGIN PASSWORD NULL;", "NULL"),
        ("-- rotate: ALTER ROLE app WITH PASSWORD '<new password>';", "<new password>"),
        ("UPDATE accounts SET password_changed_at = now() WHERE id = 42;", "password_changed_at"),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def escaped_json() -> list[Row]:
    c = "escaped JSON in a log line"
    out = []
    for name in ("password", "api_key", "client_secret", "accessToken", "db_password", "secret"):
        s = pw() if "pass" in name else rs(ALNUM, 32)
        out.append(
            secret(
                c,
                s,
                f'{{"level":"error","msg":"request failed","body":"{{\\"user\\":\\"bob\\",\\"{name}\\":\\"{s}\\",\\"remember\\":true}}"}}\n',
            )
        )
    negatives = [
        (
            '{"msg":"login","body":"{\\"user\\":\\"bob\\",\\"password\\":\\"********\\"}"}',
            "********",
        ),
        (
            '{"msg":"schema","body":"{\\"password\\":\\"string\\",\\"token\\":\\"string\\"}"}',
            '\\"string\\"',
        ),
        (
            '{"msg":"ok","body":"{\\"request_id\\":\\"7d2c9b1e-4a3f-4c2b-9e1d-5f6a7b8c9d0e\\"}"}',
            "7d2c9b1e-4a3f-4c2b-9e1d-5f6a7b8c9d0e",
        ),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def urls() -> list[Row]:
    c = "token in URL userinfo or URL-encoded query"
    out = []
    s = rs(ALNUM, 40)
    out.append(
        secret(c, s, f"git clone https://{s}@git.acme.dev/acme/api.git\nCloning into 'api'...\n")
    )
    s = rs(ALNUM, 32)
    out.append(secret(c, s, f"remote: https://{s}@bitbucket.org/acme/web.git\n"))
    s = rs(B64URL, 28)
    out.append(secret(c, s, f"pip install git+https://{s}@gitea.acme.dev/acme/lib.git@v2\n"))
    s = rs(ALNUM, 30)
    out.append(
        secret(
            c, s, f"GET /oauth/callback?next=%2Fapp%3Faccess_token%3D{s}%26state%3Dxyz HTTP/1.1\n"
        )
    )
    s = rs(ALNUM, 24)
    out.append(
        secret(
            c,
            s,
            f"Redirecting to https://sso.acme.dev/login?return=https%3A%2F%2Fapp.acme.dev%2Fcb%3Ftoken%3D{s}\n",
        )
    )
    s = rs(ALNUM, 12) + "%40" + rs(ALNUM, 6)
    out.append(secret(c, s, f"curl 'https://api.acme.dev/v1/login?user=bob&password={s}'\n"))
    s = rs(HEX, 40)
    out.append(secret(c, s, f"webhook: https://ci.acme.dev/hook?x=1%26api_key%3D{s}\n"))
    negatives = [
        ("git clone git@github.com:acme/api.git", "git@github.com"),
        ("ssh://git@gitlab.acme.dev:2222/acme/api.git", "git@gitlab.acme.dev"),
        ("https://registry.npmjs.org/@babel%2fcore/-/core-7.24.0.tgz", "@babel%2fcore"),
        ("https://acme.dev/search?q=token%3Dnone&page=2", "token%3Dnone"),
        ("mailto:ops-team-oncall-rotation@acme.dev", "ops-team-oncall-rotation@acme.dev"),
        (
            "https://cdn.acme.dev/app.js?v=3f2b9c1e8a7d6f5e4c3b2a1908f7e6d5c4b3a291",
            "3f2b9c1e8a7d6f5e4c3b2a1908f7e6d5c4b3a291",
        ),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def cut_keys() -> list[Row]:
    c = "key body whose BEGIN line was cut"
    out = []
    for label in ("RSA PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY"):
        body = lines(b64(rng.randrange(300, 900)))
        tail = body.split("\n", 3)[-1]
        out.append(
            secret(
                c,
                tail.split("\n")[-2] if "\n" in tail else tail,
                f"[... 1200 characters cut ...]\n{tail}\n-----END {label}-----\n$ ssh-add deploy_key\n",
            )
        )
    body = lines(b64(400))
    last = body.split("\n")[-2]
    out.append(
        secret(
            c,
            last,
            '{"output": "' + body.replace("\n", "\\n") + '\\n-----END PRIVATE KEY-----\\n"}\n',
        )
    )
    negatives = [
        (
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx8Wq1Zm9vYmFyYmF6cXV4\n-----END PUBLIC KEY-----",
            "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx8Wq1Zm9vYmFyYmF6cXV4",
        ),
        (
            "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
            "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ",
        ),
        (
            "Docs: a private key ends with a line like -----END PRIVATE KEY----- and starts with BEGIN.",
            "a private key ends with a line like",
        ),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def putty() -> list[Row]:
    c = "PuTTY private key"
    out = []
    for version, kind in (("2", "ssh-rsa"), ("3", "ssh-ed25519"), ("3", "ecdsa-sha2-nistp256")):
        public = lines(b64(200))
        private = lines(b64(rng.choice([48, 300, 600])))
        mac = rs(HEX, 64 if version == "3" else 40)
        extra = (
            f"Key-Derivation: Argon2id\nArgon2-Memory: 8192\nArgon2-Passes: 13\nArgon2-Parallelism: 1\nArgon2-Salt: {rs(HEX, 32)}\n"
            if version == "3" and kind == "ssh-ed25519"
            else ""
        )
        n_pub, n_priv = public.count("\n") + 1, private.count("\n") + 1
        enc = "aes256-cbc" if extra else "none"
        ctx = f"$ cat deploy.ppk\nPuTTY-User-Key-File-{version}: {kind}\nEncryption: {enc}\nComment: deploy@ci\nPublic-Lines: {n_pub}\n{public}\n{extra}Private-Lines: {n_priv}\n{private}\nPrivate-MAC: {mac}\n"
        out.append(secret(c, private.split("\n")[0], ctx))
    public = lines(b64(200))
    out.append(
        benign(
            c,
            public.split("\n")[0],
            f'---- BEGIN SSH2 PUBLIC KEY ----\nComment: "deploy@ci"\n{public}\n---- END SSH2 PUBLIC KEY ----\n',
        )
    )
    out.append(
        benign(
            c,
            "Public-Lines: 6",
            "PuTTYgen writes Public-Lines: 6 before the public half of a key.\n",
        )
    )
    return out


def split_pairs() -> list[Row]:
    c = "key/value split across fields, lines or columns"
    out = []
    s = pw()
    out.append(
        secret(
            c,
            s,
            f'    spec:\n      containers:\n        - name: api\n          env:\n            - name: DATABASE_PASSWORD\n              value: "{s}"\n            - name: LOG_LEVEL\n              value: info\n',
        )
    )
    s = rs(ALNUM, 32)
    out.append(secret(c, s, f"env:\n- name: STRIPE_SECRET\n  value: {s}\n"))
    s = rs(ALNUM, 24)
    out.append(
        secret(
            c,
            s,
            f'"environment": [{{"name": "API_TOKEN", "value": "{s}"}}, {{"name": "PORT", "value": "8080"}}]\n',
        )
    )
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"aws cloudformation deploy --parameter-overrides ParameterKey=DbPassword,ParameterValue={s}\n",
        )
    )
    s = pw()
    out.append(
        secret(
            c,
            s,
            f"$ vault kv get secret/app\n====== Data ======\nKey         Value\n---         -----\npassword    {s}\nusername    app\n",
        )
    )
    s = b64(64)
    out.append(
        secret(
            c,
            s,
            f"$ az storage account keys list -g rg -n acmelogs -o table\nKeyName    Permissions    Value\n---------  -------------  {'-' * 88}\nkey1       FULL           {s}\n",
        )
    )
    s = rs(ALNUM, 40)
    out.append(
        secret(
            c,
            s,
            f"| Setting | Value |\n|---------|-------|\n| region  | eu-west-1 |\n| api_key | {s} |\n",
        )
    )
    s = pw()
    out.append(
        secret(
            c, s, f"NAME             VALUE\nSMTP_HOST        smtp.acme.dev\nSMTP_PASSWORD    {s}\n"
        )
    )
    negatives = [
        (
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password\n",
            "secretKeyRef",
        ),
        ("env:\n- name: LOG_LEVEL\n  value: debug\n", "debug"),
        ("env:\n- name: API_TOKEN\n  value: $(API_TOKEN)\n", "$(API_TOKEN)"),
        (
            "Key                Value\n---                -----\ncreated_time       2026-11-30T10:02:11Z\nversion            3\n",
            "2026-11-30T10:02:11Z",
        ),
        (
            "| Key | Value |\n|-----|-------|\n| token_ttl | 3600 |\n| password_min_length | 12 |\n",
            "password_min_length",
        ),
        (
            "NAME     VALUE\nreplicas 3\nimage    ghcr.io/acme/api@sha256:"
            + hashlib.sha256(b"x").hexdigest()
            + "\n",
            hashlib.sha256(b"x").hexdigest(),
        ),
    ]
    out += [benign(c, v, ctx) for ctx, v in negatives]
    return out


def vendors() -> list[Row]:
    c = "vendor token by prefix"
    shapes = [
        "rubygems_" + rs(HEX, 48),
        "figd_" + rs(B64URL, 40),
        "oy2" + rs(LOWER + DIGITS, 43),
        "dt0c01." + rs(UPPER + DIGITS, 24) + "." + rs(UPPER + DIGITS, 64),
        "pnu_" + rs(ALNUM, 36),
        "nvapi-" + rs(B64URL, 64),
        "pcsk_" + rs(ALNUM, 6) + "_" + rs(ALNUM, 64),
        "rnd_" + rs(ALNUM, 32),
        "xkeysib-" + rs(HEX, 64) + "-" + rs(ALNUM, 16),
        "pat-na1-" + str(uuid.UUID(int=rng.getrandbits(128))),
        "AKCp" + rs(ALNUM, 69),
        "shippo_live_" + rs(HEX, 40),
        "CFPAT-" + rs(B64URL, 43),
        "ops_eyJ" + rs(B64URL, 200),
        "duffel_test_" + rs(B64URL, 43),
        "FLWSECK_TEST-" + rs(HEX, 32) + "-X",
        "phx_" + rs(ALNUM, 43),
        "EZAK" + rs(ALNUM, 54),
        "sl." + rs(B64URL, 138),
        "pat" + rs(ALNUM, 14) + "." + rs(HEX, 64),
        "sk.eyJ" + rs(B64URL, 60) + "." + rs(B64URL, 22),
        "sk-lf-" + str(uuid.UUID(int=rng.getrandbits(128))),
        "vcp_" + rs(ALNUM, 56),
    ]
    out = [
        secret(c, s, f"$ export DEPLOY_CREDENTIAL_SOURCE=vault\nusing {s} for the release job\n")
        for s in shapes
    ]
    negatives = [
        (
            "pk.eyJ1IjoiYWNtZSIsImEiOiJja2xtbm9wcXIifQ.publicMapboxTokenForTheBrowser",
            "pk.eyJ1IjoiYWNtZSIsImEiOiJja2xtbm9wcXIifQ",
        ),
        (
            "phc_" + "ProjectKeyIsPublicAndShipsInTheBrowser12345",
            "phc_ProjectKeyIsPublicAndShipsInTheBrowser12345",
        ),
        (
            "pk-lf-" + "1a2b3c4d-0000-4000-8000-000000000000",
            "pk-lf-1a2b3c4d-0000-4000-8000-000000000000",
        ),
        ("the function rnd_uniform draws from [0, 1)", "rnd_uniform"),
        ("sl.no column in the report", "sl.no"),
    ]
    out += [benign(c, v, ctx + "\n") for ctx, v in negatives]
    return out


def large_keys() -> list[Row]:
    c = "private key over 16 KB (PGP, encrypted PEM)"
    out = []
    body = lines(b64(14000))
    ctx = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: ci signing key\n\n{body}\n={rs(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n"
    out.append(secret(c, body.split("\n")[-3], ctx))
    body = lines(b64(13000))
    ctx = f"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,{rs(HEX, 32).upper()}\n\n{body}\n-----END RSA PRIVATE KEY-----\n"
    out.append(secret(c, body.split("\n")[-2], ctx))
    body = lines(b64(15000))
    ctx = f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{body}\n"  # END never came: the log was cut
    out.append(secret(c, body.split("\n")[-1], ctx))
    pub = lines(b64(14000))
    out.append(
        benign(
            c,
            pub.split("\n")[-2],
            f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{pub}\n-----END PGP PUBLIC KEY BLOCK-----\n",
        )
    )
    return out


def lookalikes() -> list[Row]:
    c = "look-alikes"
    out = []
    h = hashlib.sha1(rng.randbytes(8)).hexdigest()
    out.append(benign(c, h, f"commit {h}\nAuthor: Ada <ada@acme.dev>\n"))
    h = hashlib.sha256(rng.randbytes(8)).hexdigest()
    out.append(benign(c, h, f"sha256:{h}  dist/acme-1.4.2.tar.gz\n"))
    u = str(uuid.UUID(int=rng.getrandbits(128)))
    out.append(benign(c, u, f'{{"request_id": "{u}", "status": 200}}\n'))
    sri = "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(8)).digest()).decode()
    out.append(
        benign(
            c,
            sri,
            f'    "node_modules/zod": {{\n      "version": "3.23.8",\n      "integrity": "{sri}"\n    }}\n',
        )
    )
    img = b64(600)
    out.append(benign(c, img[:80], f'<img src="data:image/png;base64,{img}" alt="logo">\n'))
    key = "AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43)
    out.append(benign(c, key, f"ssh-ed25519 {key} deploy@ci\n"))
    key = "AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rs(B64, 340)
    out.append(benign(c, key, f"ssh-rsa {key} alice@laptop\n"))
    out.append(benign(c, u, f"Key    Value\n---    -----\nid     {u}\n"))
    return out


def main() -> None:
    rows = (
        positional()
        + tool_flags()
        + sql()
        + escaped_json()
        + urls()
        + cut_keys()
        + putty()
        + split_pairs()
        + vendors()
        + large_keys()
        + lookalikes()
    )
    with (HERE / "classes.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
