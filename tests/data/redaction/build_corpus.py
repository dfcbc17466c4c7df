"""Build the redaction corpus: synthetic secrets in context, and benign look-alikes.

Run `python tests/data/redaction/build_corpus.py` to rewrite secrets.jsonl and benign.jsonl. The
output is deterministic (fixed seed). Every secret is random and fake: it has the right shape
for its format and nothing else (no valid checksums, no real account behind it).
"""

# ruff: noqa: E501  (each context template stays on one line, as it appears in a log)

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
rng = random.Random(20240514)

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def rs(alphabet: str, n: int) -> str:
    """Random text that mixes classes, as generated credentials do."""
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        mixable = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        if n < 8 or alphabet == HEX or not mixable:
            return s
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def b64_of(n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


# --- secret generators: kind -> () -> secret ----------------------------------------------------


def pem(label: str, lines: int = 6) -> str:
    body = "\n".join("MII" + rs(B64, 61) if i == 0 else rs(B64, 64) for i in range(lines))
    return f"-----BEGIN {label}-----\n{body}\n{rs(B64, 40)}==\n-----END {label}-----"


def discord_token() -> str:
    user_id = str(rng.randrange(10**17, 10**18))
    first = base64.b64encode(user_id.encode()).decode().rstrip("=")
    return f"{first}.{rs(B64URL, 6)}.{rs(B64URL, 38)}"


def azure_client_secret() -> str:
    return rs(ALNUM, 3) + rng.choice(DIGITS) + "Q~" + rs(ALNUM + "_~.-", 32) + rs(ALNUM, 2)


TOKENS: dict[str, tuple[Callable[[], str], str]] = {
    # kind: (generator, variable name it usually travels under)
    "aws-access-key": (lambda: "AKIA" + rs(UPPER + "234567", 16), "AWS_ACCESS_KEY_ID"),
    "gcp-api-key": (lambda: "AIza" + rs(B64URL, 35), "GOOGLE_API_KEY"),
    "google-oauth-token": (lambda: "ya29." + rs(B64URL, 120), "GOOGLE_OAUTH_ACCESS_TOKEN"),
    "google-client-secret": (lambda: "GOCSPX-" + rs(B64URL, 28), "GOOGLE_CLIENT_SECRET"),
    "azure-client-secret": (azure_client_secret, "AZURE_CLIENT_SECRET"),
    "digitalocean-token": (lambda: "dop_v1_" + rs(HEX, 64), "DIGITALOCEAN_ACCESS_TOKEN"),
    "github-token": (
        lambda: rng.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + rs(ALNUM, 36),
        "GITHUB_TOKEN",
    ),
    "gitlab-token": (lambda: "glpat-" + rs(B64URL, 20), "GITLAB_TOKEN"),
    "bitbucket-token": (lambda: "ATBB" + rs(ALNUM, 32), "BITBUCKET_APP_PASSWORD"),
    "atlassian-token": (
        lambda: "ATATT3xFfGF0" + rs(B64URL, 170) + "=" + rs(HEX.upper(), 8),
        "JIRA_API_TOKEN",
    ),
    "slack-token": (
        lambda: (
            rng.choice(["xoxb-", "xoxp-"])
            + "-".join([rs(DIGITS, 12), rs(DIGITS, 13), rs(ALNUM, 24)])
        ),
        "SLACK_BOT_TOKEN",
    ),
    "discord-token": (discord_token, "DISCORD_BOT_TOKEN"),
    "telegram-bot-token": (lambda: rs(DIGITS, 10) + ":AA" + rs(B64URL, 33), "TELEGRAM_BOT_TOKEN"),
    "stripe-key": (
        lambda: rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + rs(ALNUM, 99),
        "STRIPE_SECRET_KEY",
    ),
    "stripe-webhook-secret": (lambda: "whsec_" + rs(ALNUM, 32), "STRIPE_WEBHOOK_SECRET"),
    "square-token": (lambda: "EAAA" + rs(B64URL, 60), "SQUARE_ACCESS_TOKEN"),
    "braintree-token": (
        lambda: f"access_token$production${rs(LOWER + DIGITS, 16)}${rs(HEX, 32)}",
        "BRAINTREE_ACCESS_TOKEN",
    ),
    "openai-key": (
        lambda: rng.choice(["sk-proj-" + rs(B64URL, 156), "sk-" + rs(ALNUM, 48)]),
        "OPENAI_API_KEY",
    ),
    "anthropic-key": (lambda: "sk-ant-api03-" + rs(B64URL, 93) + "AA", "ANTHROPIC_API_KEY"),
    "openrouter-key": (lambda: "sk-or-v1-" + rs(HEX, 64), "OPENROUTER_API_KEY"),
    "huggingface-token": (lambda: "hf_" + rs(LOWER + UPPER, 30) + rs(DIGITS, 4), "HF_TOKEN"),
    "groq-key": (lambda: "gsk_" + rs(ALNUM, 52), "GROQ_API_KEY"),
    "replicate-token": (lambda: "r8_" + rs(ALNUM, 37), "REPLICATE_API_TOKEN"),
    "perplexity-key": (lambda: "pplx-" + rs(ALNUM, 48), "PERPLEXITY_API_KEY"),
    "xai-key": (lambda: "xai-" + rs(ALNUM, 80), "XAI_API_KEY"),
    "langsmith-key": (lambda: "lsv2_pt_" + rs(HEX, 32) + "_" + rs(HEX, 10), "LANGSMITH_API_KEY"),
    "tavily-key": (lambda: "tvly-" + rs(ALNUM, 32), "TAVILY_API_KEY"),
    "npm-token": (lambda: "npm_" + rs(ALNUM, 36), "NPM_TOKEN"),
    "pypi-token": (lambda: "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 160), "TWINE_PASSWORD"),
    "docker-token": (lambda: "dckr_pat_" + rs(B64URL, 27), "DOCKERHUB_TOKEN"),
    "fly-token": (lambda: "fo1_" + rs(B64URL, 43), "FLY_API_TOKEN"),
    "heroku-key": (lambda: "HRKU-" + rs(B64URL, 60), "HEROKU_API_KEY"),
    "twilio-api-key": (lambda: "SK" + rs(HEX, 32), "TWILIO_API_KEY"),
    "twilio-sid": (lambda: "AC" + rs(HEX, 32), "TWILIO_ACCOUNT_SID"),
    "sendgrid-key": (lambda: "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43), "SENDGRID_API_KEY"),
    "mailgun-key": (lambda: "key-" + rs(LOWER + DIGITS, 32), "MAILGUN_API_KEY"),
    "mailchimp-key": (lambda: rs(HEX, 32) + "-us" + str(rng.randrange(1, 21)), "MAILCHIMP_API_KEY"),
    "shopify-token": (lambda: "shpat_" + rs(HEX, 32), "SHOPIFY_ACCESS_TOKEN"),
    "jwt": (
        lambda: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + rs(B64URL, 90) + "." + rs(B64URL, 43),
        "SUPABASE_SERVICE_ROLE_KEY",
    ),
    "vault-token": (lambda: "hvs." + rs(B64URL, 90), "VAULT_TOKEN"),
    "terraform-token": (lambda: rs(ALNUM, 14) + ".atlasv1." + rs(B64URL, 67), "TFE_TOKEN"),
    "grafana-token": (
        lambda: "glsa_" + rs(ALNUM, 32) + "_" + rs(HEX, 8),
        "GRAFANA_SERVICE_ACCOUNT_TOKEN",
    ),
    "sentry-token": (lambda: "sntrys_" + rs(B64, 150), "SENTRY_AUTH_TOKEN"),
    "supabase-token": (lambda: "sbp_" + rs(HEX, 40), "SUPABASE_ACCESS_TOKEN"),
    "databricks-token": (lambda: "dapi" + rs(HEX, 32), "DATABRICKS_TOKEN"),
    "planetscale-token": (lambda: "pscale_tkn_" + rs(B64URL, 43), "PLANETSCALE_SERVICE_TOKEN"),
    "pulumi-token": (lambda: "pul-" + rs(HEX, 40), "PULUMI_ACCESS_TOKEN"),
    "linear-key": (lambda: "lin_api_" + rs(ALNUM, 40), "LINEAR_API_KEY"),
    "notion-token": (lambda: "ntn_" + rs(DIGITS, 11) + rs(ALNUM, 35), "NOTION_TOKEN"),
    "postman-key": (lambda: "PMAK-" + rs(HEX, 24) + "-" + rs(HEX, 34), "POSTMAN_API_KEY"),
    "doppler-token": (lambda: "dp.st." + rs(ALNUM, 43), "DOPPLER_TOKEN"),
    "newrelic-key": (lambda: "NRAK-" + rs(UPPER + DIGITS, 27), "NEW_RELIC_API_KEY"),
    "netlify-token": (lambda: "nfp_" + rs(ALNUM, 36), "NETLIFY_AUTH_TOKEN"),
    "age-secret-key": (lambda: "AGE-SECRET-KEY-1" + rs(UPPER + DIGITS, 58), "SOPS_AGE_KEY"),
}

STAMP = "2024-05-14T10:22:3{}.{:03d}Z"


def generic_contexts(var: str, s: str) -> list[str]:
    low = var.lower()
    tool = low.split("_")[0]
    return [
        f"$ env | sort\nCI=true\nHOME=/home/runner\nHOSTNAME=runner-7f9c2\n{var}={s}\nLANG=C.UTF-8\n"
        "PATH=/usr/local/bin:/usr/bin:/bin\nPWD=/home/runner/work/app/app\nSHLVL=1\n",
        f'# .env.local (do not commit)\nNODE_ENV=development\nPORT=3000\n{var}="{s}"\nLOG_LEVEL=debug\n',
        f'{{\n  "name": "{tool}-sync",\n  "region": "us-east-1",\n  "{low}": "{s}",\n  "retries": 3\n}}\n',
        f"service:\n  name: worker\n  replicas: 2\n  integrations:\n    {low}: {s}\n  timeout: 30s\n",
        "".join(
            [
                f"{STAMP.format(1, 101)} ##[group]Run ./scripts/release.sh\n",
                f"{STAMP.format(1, 102)} env:\n",
                f"{STAMP.format(1, 103)}   {var}: {s}\n",
                f"{STAMP.format(1, 104)}   NODE_VERSION: 20.11.1\n",
                f"{STAMP.format(1, 105)} ##[endgroup]\n",
                f"{STAMP.format(2, 877)} release.sh: publishing 1.4.2\n",
            ]
        ),
        "Traceback (most recent call last):\n"
        f'  File "/app/{tool}_client.py", line 41, in connect\n'
        f'    client = Client(api_key="{s}", timeout=30)\n'
        '  File "/usr/lib/python3.11/site-packages/httpx/_client.py", line 88, in send\n'
        "    raise HTTPStatusError(message, request=request, response=response)\n"
        "httpx.HTTPStatusError: Client error '401 Unauthorized' for url 'https://api.example.com/v1/me'\n",
        f"$ docker run --rm -e {var}={s} -p 8080:80 ghcr.io/acme/api:1.4.2\n"
        "Unable to find image 'ghcr.io/acme/api:1.4.2' locally\n1.4.2: Pulling from acme/api\n",
        f'Outputs:\n\napi_endpoint = "https://api.example.com"\n{low} = "{s}"\nregion = "eu-west-1"\n',
        "*   Trying 93.184.216.34:443...\n* Connected to api.example.com (93.184.216.34) port 443\n"
        f"> GET /v1/me HTTP/2\n> Host: api.example.com\n> User-Agent: curl/8.4.0\n> Authorization: Bearer {s}\n"
        "> Accept: */*\n>\n< HTTP/2 200\n< content-type: application/json\n",
    ]


def token_items() -> list[dict[str, str]]:
    items = []
    for kind, (make, var) in TOKENS.items():
        contexts = generic_contexts(var, "{S}")
        for ctx in rng.sample(contexts, 3):
            s = make()
            items.append({"kind": kind, "context": ctx.replace("{S}", s), "secret": s})
    return items


def item(kind: str, secret: str, context: str) -> dict[str, str]:
    assert secret in context, (kind, secret)
    return {"kind": kind, "context": context, "secret": secret}


def password() -> str:
    return rs(ALNUM, 10) + rng.choice("!#%^*+") + rs(ALNUM, 5)


def context_items() -> list[dict[str, str]]:
    out = []
    # private keys
    for label in ("RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"):
        k = pem(label)
        out.append(
            item("private-key", k, f"$ cat ~/.ssh/deploy_key\n{k}\n$ chmod 600 ~/.ssh/deploy_key\n")
        )
    k = pem("ENCRYPTED PRIVATE KEY")
    out.append(
        item(
            "private-key",
            k,
            "tls:\n  key: |\n"
            + "\n".join("    " + ln for ln in k.splitlines())
            + "\n  cert: cert.pem\n"
            if False
            else f"writing key to server.key\n{k}\n",
        )
    )
    k = pem("PRIVATE KEY").replace("\n", "\\n")
    sa = (
        '{\n  "type": "service_account",\n  "project_id": "acme-prod-4711",\n  "private_key_id": "'
        + rs(HEX, 40)
        + '",\n  "private_key": "'
        + k
        + '\\n",\n  "client_email": "deployer@acme-prod-4711.iam.gserviceaccount.com",\n'
        '  "token_uri": "https://oauth2.googleapis.com/token"\n}\n'
    )
    out.append(item("private-key", k, sa))
    k = pem("RSA PRIVATE KEY", 3)
    k_b64 = base64.b64encode((k + "\n").encode()).decode()
    kubeconfig = (
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin@prod\n  user:\n    client-certificate-data: "
        + base64.b64encode(
            b"-----BEGIN CERTIFICATE-----\nMIIC"
            + rng.randbytes(30)
            + b"\n-----END CERTIFICATE-----\n"
        ).decode()
        + f"\n    client-key-data: {k_b64}\ncontexts:\n- context:\n    cluster: prod\n    user: admin@prod\n  name: prod\n"
    )
    out.append(item("private-key", k_b64, kubeconfig))
    # aws secret keys and session tokens
    for _ in range(3):
        key_id, secret = "AKIA" + rs(UPPER + "234567", 16), rs(B64, 40)
        out.append(
            item(
                "aws-secret-key",
                secret,
                f"$ cat ~/.aws/credentials\n[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret}\nregion = eu-central-1\n",
            )
        )
    key_id, secret = "AKIA" + rs(UPPER + "234567", 16), rs(B64, 40)
    out.append(
        item(
            "aws-secret-key",
            secret,
            f"User name,Password,Access key ID,Secret access key\nci-deployer,,{key_id},{secret}\n",
        )
    )
    key_id, secret = "AKIA" + rs(UPPER + "234567", 16), rs(B64, 40)
    out.append(
        item(
            "aws-secret-key",
            secret,
            f"export AWS_ACCESS_KEY_ID={key_id}\nexport AWS_SECRET_ACCESS_KEY={secret}\nexport AWS_DEFAULT_REGION=us-west-2\n",
        )
    )
    for _ in range(2):
        token = "IQoJb3JpZ2luX2VjE" + rs(B64, 300)
        out.append(
            item(
                "aws-session-token",
                token,
                '$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name ci\n{\n    "Credentials": {\n        "AccessKeyId": "ASIA'
                + rs(UPPER + "234567", 16)
                + '",\n        "SecretAccessKey": "'
                + rs(B64, 40)
                + '",\n        "SessionToken": "'
                + token
                + '",\n        "Expiration": "2024-05-14T11:22:31+00:00"\n    }\n}\n',
            )
        )
    # azure storage
    for _ in range(3):
        key = b64_of(64)
        out.append(
            item(
                "azure-storage-key",
                key,
                f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeassets;AccountKey={key};EndpointSuffix=core.windows.net\n",
            )
        )
    key = b64_of(32)
    out.append(
        item(
            "azure-storage-key",
            key,
            f'"ServiceBus": "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={key}"',
        )
    )
    # twilio auth token, heroku uuid key in context
    for _ in range(2):
        t = rs(HEX, 32)
        out.append(
            item(
                "twilio-auth-token",
                t,
                f"TWILIO_ACCOUNT_SID=AC{rs(HEX, 32)}\nTWILIO_AUTH_TOKEN={t}\nTWILIO_FROM=+15005550006\n",
            )
        )
    t = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    out.append(item("heroku-key", t, f"$ heroku auth:token\n...\nexport HEROKU_API_KEY={t}\n"))
    # url credentials: git remotes, DSNs, pip, .git-credentials
    hosts = ["github.com", "gitlab.com", "bitbucket.org"]
    for _ in range(2):
        p = password()
        out.append(
            item(
                "url-credentials",
                p,
                f"$ git remote -v\norigin\thttps://deploy-bot:{p}@{rng.choice(hosts)}/acme/api.git (fetch)\norigin\thttps://deploy-bot:{p}@github.com/acme/api.git (push)\n",
            )
        )
    p = password()
    out.append(
        item("url-credentials", p, f"$ cat ~/.git-credentials\nhttps://octocat:{p}@github.com\n")
    )
    p = password()
    out.append(
        item(
            "url-credentials",
            p,
            f"[global]\nindex-url = https://ci:{p}@pypi.internal.acme.dev/simple/\ntimeout = 60\n",
        )
    )
    for scheme, port, db in (
        ("postgresql", 5432, "app"),
        ("mysql", 3306, "shop"),
        ("redis", 6379, "0"),
        ("amqp", 5672, "vhost"),
    ):
        p = password()
        out.append(
            item(
                "url-credentials",
                p,
                'Traceback (most recent call last):\n  File "/app/db.py", line 12, in <module>\n    engine.connect()\n'
                f"sqlalchemy.exc.OperationalError: could not connect to {scheme}://app:{p}@db.internal:{port}/{db}\n"
                "(Background on this error at: https://sqlalche.me/e/20/e3q8)\n",
            )
        )
    p = password()
    out.append(
        item(
            "url-credentials",
            p,
            f"MONGODB_URI=mongodb+srv://api:{p}@cluster0.x7k2p.mongodb.net/prod?retryWrites=true&w=majority\n",
        )
    )
    p = password()
    out.append(
        item(
            "url-credentials",
            p,
            f"services:\n  worker:\n    environment:\n      CELERY_BROKER_URL: redis://:{p}@redis:6379/0\n",
        )
    )
    # sentry DSNs
    for _ in range(2):
        key = rs(HEX, 32)
        out.append(
            item(
                "sentry-dsn",
                key,
                f'sentry_sdk.init(\n    dsn="https://{key}@o{rng.randrange(10**5, 10**6)}.ingest.sentry.io/{rng.randrange(10**6, 10**7)}",\n    traces_sample_rate=0.2,\n)\n',
            )
        )
    # webhooks
    for _ in range(2):
        path = f"T{rs(UPPER + DIGITS, 8)}/B{rs(UPPER + DIGITS, 10)}/{rs(ALNUM, 24)}"
        out.append(
            item(
                "slack-webhook",
                path,
                f"notify:\n  slack:\n    webhook_url: https://hooks.slack.com/services/{path}\n    channel: '#deploys'\n",
            )
        )
    for _ in range(2):
        tok = rs(B64URL, 68)
        out.append(
            item(
                "discord-webhook",
                tok,
                f"curl -X POST -H 'Content-Type: application/json' -d '{{\"content\":\"build ok\"}}' https://discord.com/api/webhooks/{rs(DIGITS, 19)}/{tok}\n",
            )
        )
    # url secret params
    sig = rs(B64, 43).replace("+", "%2B").replace("/", "%2F") + "%3D"
    out.append(
        item(
            "url-secret-param",
            sig,
            f"Uploading to https://acmeassets.blob.core.windows.net/builds/app.zip?sv=2022-11-02&ss=b&srt=o&sp=rw&se=2024-05-15T00:00:00Z&sig={sig}\n",
        )
    )
    sig = rs(HEX, 64)
    out.append(
        item(
            "url-secret-param",
            sig,
            f"GET https://acme-artifacts.s3.amazonaws.com/app.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240514T102231Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={sig} 200\n",
        )
    )
    t = rs(ALNUM, 32)
    out.append(
        item(
            "url-secret-param",
            t,
            f"[webhook] POST https://ci.acme.dev/hooks/build?token={t}&branch=main -> 202 Accepted\n",
        )
    )
    # authorization headers
    for _ in range(2):
        t = rs(ALNUM + "-._~", 48)
        out.append(
            item(
                "bearer-token",
                t,
                "* Connected to api.acme.dev (10.0.3.7) port 443\n> POST /v2/deployments HTTP/1.1\n> Host: api.acme.dev\n"
                f"> Authorization: Bearer {t}\n> Content-Type: application/json\n>\n< HTTP/1.1 201 Created\n",
            )
        )
    for _ in range(2):
        t = base64.b64encode(f"ci-bot:{password()}".encode()).decode()
        out.append(
            item(
                "basic-auth",
                t,
                f"> GET /artifactory/api/repositories HTTP/1.1\n> Host: repo.acme.dev\n> Authorization: Basic {t}\n> User-Agent: curl/8.4.0\n",
            )
        )
    t = rs(HEX, 40)
    out.append(
        item(
            "auth-header",
            t,
            f"DEBUG urllib3.connectionpool: headers={{'Authorization': 'Token {t}', 'Accept': 'application/json'}}\n",
        )
    )
    for _ in range(2):
        t = rs(ALNUM, 40)
        out.append(
            item(
                "api-key-header",
                t,
                f'$ curl -sS -H \'x-api-key: {t}\' https://api.acme.dev/v1/status\n{{"status":"ok"}}\n',
            )
        )
    t = rs(ALNUM, 32)
    out.append(
        item(
            "cookie",
            t,
            f"> GET /admin HTTP/1.1\n> Host: shop.acme.dev\n> Cookie: sessionid={t}; csrftoken={rs(ALNUM, 32)}\n>\n< HTTP/1.1 200 OK\n",
        )
    )
    t = rs(B64URL, 40)
    out.append(
        item(
            "cookie",
            t,
            f"< HTTP/2 302\n< location: /dashboard\n< set-cookie: _session_id={t}; path=/; secure; HttpOnly; SameSite=Lax\n",
        )
    )
    # npmrc
    t = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    out.append(
        item(
            "npmrc-auth",
            t,
            f"$ cat ~/.npmrc\nregistry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={t}\nfund=false\n",
        )
    )
    t = base64.b64encode(f"ci:{password()}".encode()).decode()
    out.append(
        item(
            "npmrc-auth",
            t,
            f"@acme:registry=https://npm.acme.dev/\n//npm.acme.dev/:_auth={t}\nalways-auth=true\n",
        )
    )
    # cli passwords
    p = password()
    out.append(
        item(
            "cli-password",
            p,
            f"+ docker login -u acmeci -p {p} registry.acme.dev\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded\n",
        )
    )
    p = password()
    out.append(
        item(
            "cli-password",
            p,
            f"$ mysqldump -h db.internal -u backup -p'{p}' shop > shop.sql\nmysqldump: [Warning] Using a password on the command line interface can be insecure.\n",
        )
    )
    p = password()
    out.append(
        item(
            "cli-password",
            p,
            f"+ sshpass -p {p} scp build.tar.gz deploy@10.0.4.12:/srv/releases/\n",
        )
    )
    p = password()
    out.append(
        item(
            "cli-password",
            p,
            f"$ psql-wrapper --host db.internal --user admin --password {p} --dbname app\nconnected.\n",
        )
    )
    p = password()
    out.append(
        item(
            "cli-password",
            p,
            f"$ curl -u admin:{p} -X POST https://jenkins.acme.dev/job/deploy/build\n",
        )
    )
    # netrc
    p = password()
    out.append(
        item(
            "netrc-password",
            p,
            f"$ cat ~/.netrc\nmachine api.heroku.com\n  login ops@acme.dev\n  password {p}\n",
        )
    )
    # k8s secret
    for _ in range(2):
        v = base64.b64encode(password().encode()).decode()
        out.append(
            item(
                "k8s-secret",
                v,
                "$ kubectl get secret app-secrets -o yaml\napiVersion: v1\ndata:\n"
                f"  api-token: {v}\n  username: YXBw\nkind: Secret\nmetadata:\n  name: app-secrets\n  namespace: prod\ntype: Opaque\n",
            )
        )
    # env secrets
    for var in (
        "DB_PASSWORD",
        "JWT_SECRET",
        "SECRET_KEY_BASE",
        "SESSION_SECRET",
        "PGPASSWORD",
        "ENCRYPTION_KEY",
    ):
        p = rs(ALNUM, 24) if "KEY" in var or "SECRET" in var else password()
        out.append(
            item(
                "env-secret",
                p,
                f"$ printenv\nHOSTNAME=web-5d8c\n{var}={p}\nPORT=8080\nRAILS_ENV=production\n",
            )
        )
    p = password()
    out.append(
        item(
            "env-secret",
            p,
            f"services:\n  db:\n    image: mysql:8.0\n    environment:\n      MYSQL_ROOT_PASSWORD: {p}\n      MYSQL_DATABASE: shop\n",
        )
    )
    p = rs(ALNUM + "!@%", 50)
    out.append(
        item(
            "env-secret",
            p,
            f"# settings.py\nDEBUG = False\nSECRET_KEY = '{p}'\nALLOWED_HOSTS = ['acme.dev']\n",
        )
    )
    # password / secret assignments
    p = password()
    out.append(
        item(
            "password-assignment",
            p,
            f"spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.username=app\nspring.datasource.password={p}\n",
        )
    )
    p = password()
    out.append(
        item(
            "password-assignment",
            p,
            f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.dev/\nusername = ci\npassword = {p}\n",
        )
    )
    p = password()
    out.append(
        item(
            "password-assignment",
            p,
            f'database:\n  host: db.internal\n  port: 5432\n  user: app\n  password: "{p}"\n',
        )
    )
    p = password()
    out.append(
        item(
            "password-assignment",
            p,
            f"Server=tcp:acme.database.windows.net,1433;Initial Catalog=app;User ID=app;Password={p};Encrypt=True;\n",
        )
    )
    p = password()
    out.append(
        item(
            "password-assignment",
            p,
            f"<server>\n  <id>acme-releases</id>\n  <username>deployer</username>\n  <password>{p}</password>\n</server>\n",
        )
    )
    p = password()
    out.append(
        item(
            "password-assignment",
            p,
            f'INFO  connecting with {{"host": "smtp.acme.dev", "port": 587, "user": "noreply", "password": "{p}"}}\n',
        )
    )
    t = rs(ALNUM, 40)
    out.append(
        item(
            "secret-assignment",
            t,
            f"oauth:\n  client_id: 7f3c2e91-acme-web\n  client_secret: {t}\n  redirect_uri: https://acme.dev/callback\n",
        )
    )
    t = rs(HEX, 64)
    out.append(
        item(
            "secret-assignment",
            t,
            f'resource "github_repository_webhook" "ci" {{\n  configuration {{\n    url          = "https://ci.acme.dev/hook"\n    secret       = "{t}"\n  }}\n}}\n',
        )
    )
    t = rs(ALNUM, 32)
    out.append(
        item(
            "secret-assignment",
            t,
            f'const config = {{\n  apiKey: "{t}",\n  authDomain: "acme-app.example.com",\n}};\n',
        )
    )
    t = rs(ALNUM, 28)
    out.append(
        item(
            "fly-token",
            t,
            f"==> Building image\nDEBUG request headers: Authorization: FlyV1 fm2_{t}{rs(B64, 60)},fm2_{rs(B64, 80)}\n",
        )
        if False
        else item(
            "secret-assignment",
            t,
            f"WARN retrying request, signing with access_token={t} (attempt 2/3)\n",
        )
    )
    t = "fm2_" + rs(B64, 120) + "," + "fm2_" + rs(B64, 90)
    out.append(
        item(
            "fly-token",
            t,
            f"==> Verifying app config\nDEBUG request headers: Authorization: FlyV1 {t}\nError: unauthorized\n",
        )
    )
    return out


# --- benign look-alikes ------------------------------------------------------------------------


def sha1() -> str:
    return hashlib.sha1(rng.randbytes(16)).hexdigest()


def sha256() -> str:
    return hashlib.sha256(rng.randbytes(16)).hexdigest()


def sri() -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(16)).digest()).decode()


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def benign(kind: str, value: str, context: str) -> dict[str, str]:
    assert value in context, (kind, value)
    return {"kind": kind, "context": context, "value": value}


NAMES = ["Ada Lovelace", "Grace Hopper", "Linus Torvalds", "Margaret Hamilton"]
PKGS = ["lodash", "react-dom", "@babel/core", "typescript", "esbuild", "zod", "vite"]


def benign_items() -> list[dict[str, str]]:
    out = []
    for _ in range(5):
        s = sha1()
        out.append(
            benign(
                "git-sha",
                s,
                f"commit {s}\nAuthor: {rng.choice(NAMES)} <dev@acme.dev>\nDate:   Tue May 14 10:22:31 2024 +0200\n\n    Fix flaky timezone test in billing\n",
            )
        )
    for _ in range(4):
        s = sha1()[: rng.choice([7, 8, 10, 12])]
        out.append(
            benign(
                "git-short-sha",
                s,
                f"$ git log --oneline -3\n{s} (HEAD -> main) Bump vite to 5.2.11\n{sha1()[: len(s)]} Pin bun to 1.1.8 in CI\n{sha1()[: len(s)]} Merge pull request #812 from acme/fix-tz\n",
            )
        )
    for _ in range(3):
        s = sha1()
        out.append(
            benign(
                "git-object",
                s,
                f"$ git ls-tree HEAD src/\n100644 blob {s}\tsrc/index.ts\n100644 blob {sha1()}\tsrc/tokenizer.ts\n040000 tree {sha1()}\tsrc/auth\n",
            )
        )
    for _ in range(2):
        s = sha1()
        out.append(
            benign(
                "git-ref",
                s,
                f"$ git show-ref --heads\n{s} refs/heads/main\n{sha1()} refs/heads/feature/token-refresh\n",
            )
        )
    for _ in range(4):
        s = uid()
        out.append(
            benign(
                "uuid",
                s,
                f"2024-05-14 10:22:31,118 INFO [request_id={s}] POST /api/v1/orders 201 in 84ms\n",
            )
        )
    for _ in range(2):
        s = uid()
        out.append(
            benign(
                "k8s-uid",
                s,
                f'metadata:\n  name: api-7d9f8c\n  namespace: prod\n  uid: {s}\n  resourceVersion: "48213377"\n',
            )
        )
    for _ in range(4):
        s = sha256()
        out.append(
            benign("sha256sum", s, f"$ sha256sum dist/*.tar.gz\n{s}  dist/app-1.4.2.tar.gz\n")
        )
    for _ in range(2):
        s = hashlib.sha512(rng.randbytes(16)).hexdigest()
        out.append(
            benign(
                "sha512sum",
                s,
                f"$ sha512sum -c SHA512SUMS\n{s}  node-v20.11.1-linux-x64.tar.xz\nnode-v20.11.1-linux-x64.tar.xz: OK\n",
            )
        )
    for _ in range(5):
        s, pkg = sri(), rng.choice(PKGS)
        out.append(
            benign(
                "npm-integrity",
                s,
                f'    "node_modules/{pkg}": {{\n      "version": "4.17.21",\n      "resolved": "https://registry.npmjs.org/{pkg}/-/{pkg.split("/")[-1]}-4.17.21.tgz",\n      "integrity": "{s}",\n      "dev": true\n    }},\n',
            )
        )
    for _ in range(3):
        s = sri()
        out.append(
            benign(
                "yarn-integrity",
                s,
                f'"zod@^3.22.4":\n  version "3.23.8"\n  resolved "https://registry.yarnpkg.com/zod/-/zod-3.23.8.tgz#{sha1()}"\n  integrity {s}\n',
            )
        )
    for _ in range(4):
        s = "sha256:" + sha256()
        out.append(
            benign(
                "docker-digest",
                s,
                f"$ docker pull node:20-alpine\n20-alpine: Pulling from library/node\nDigest: {s}\nStatus: Downloaded newer image for node:20-alpine\n",
            )
        )
    for _ in range(2):
        s = "sha256:" + sha256()
        out.append(
            benign(
                "docker-digest",
                s,
                f"      - name: build\n        image: ghcr.io/acme/builder@{s}\n",
            )
        )
    for text in (
        "hello world, this is the nightly build report",
        "ok: 214 passed, 3 skipped",
        '{"theme":"dark","lang":"en"}',
        "The quick brown fox jumps over the lazy dog",
    ):
        s = base64.b64encode(text.encode()).decode()
        out.append(benign("base64-data", s, f"$ echo '{s}' | base64 -d\n{text}\n"))
    for _ in range(2):
        s = base64.b64encode(rng.randbytes(48)).decode()
        out.append(
            benign(
                "base64-data", s, f'<img alt="logo" src="data:image/png;base64,iVBORw0KGgo{s}">\n'
            )
        )
    for _ in range(3):
        s = str(rng.randrange(10**9, 10**10))
        out.append(
            benign(
                "url-id",
                s,
                f"View the run at https://github.com/acme/api/actions/runs/{s}/job/{rng.randrange(10**10, 10**11)}\n",
            )
        )
    for _ in range(3):
        s = rs(B64URL, 44)
        out.append(
            benign("url-id", s, f"Spec: https://docs.google.com/document/d/{s}/edit?usp=sharing\n")
        )
    for _ in range(2):
        s = rs(HEX, 32)
        out.append(benign("url-id", s, f"See https://gist.github.com/octocat/{s} for the repro\n"))
    for _ in range(3):
        s = "h1:" + base64.b64encode(rng.randbytes(32)).decode()
        out.append(
            benign(
                "go-sum",
                s,
                f"golang.org/x/net v0.24.0 {s}\ngolang.org/x/net v0.24.0/go.mod h1:{base64.b64encode(rng.randbytes(32)).decode()}\n",
            )
        )
    for _ in range(3):
        s = sha256()
        out.append(
            benign(
                "pip-hash",
                s,
                f"requests==2.31.0 \\\n    --hash=sha256:{s} \\\n    --hash=sha256:{sha256()}\n",
            )
        )
    for _ in range(2):
        s = sha256()
        out.append(
            benign(
                "cargo-checksum",
                s,
                f'[[package]]\nname = "serde"\nversion = "1.0.197"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{s}"\n',
            )
        )
    for _ in range(3):
        s = "AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43)
        out.append(
            benign(
                "ssh-public-key",
                s,
                f"$ cat ~/.ssh/id_ed25519.pub\nssh-ed25519 {s} deploy@acme-ci\n",
            )
        )
    for _ in range(2):
        s = "SHA256:" + base64.b64encode(rng.randbytes(32)).decode().rstrip("=")
        out.append(
            benign(
                "ssh-fingerprint",
                s,
                f"The authenticity of host 'github.com (140.82.121.3)' can't be established.\nED25519 key fingerprint is {s}.\n",
            )
        )
    for _ in range(2):
        s = " ".join(rs("0123456789ABCDEF", 4) for _ in range(10))
        out.append(
            benign(
                "gpg-fingerprint",
                s,
                f"pub   rsa4096 2021-03-02 [SC]\n      {s}\nuid           [ultimate] Release Signing <release@acme.dev>\n",
            )
        )
    for _ in range(3):
        s = f"arn:aws:iam::{rs(DIGITS, 12)}:role/github-actions-deploy"
        out.append(benign("aws-arn", s, f"Assuming role {s} with OIDC\nRequestId: {uid()}\n"))
    for _ in range(2):
        s = "i-0" + rs(HEX, 16)
        out.append(
            benign(
                "aws-resource-id",
                s,
                f"Launched {s} (ami-0{rs(HEX, 16)}) in subnet-0{rs(HEX, 16)}\n",
            )
        )
    for _ in range(2):
        s = rs(HEX, 24)
        out.append(
            benign(
                "object-id",
                s,
                f'{{ "_id": ObjectId("{s}"), "status": "shipped", "total": 41.5 }}\n',
            )
        )
    for _ in range(2):
        s = rs(HEX, 32)
        out.append(benign("sentry-event-id", s, f"Error captured by Sentry, event id: {s}\n"))
    placeholders = [
        ("password: ${{ secrets.DB_PASSWORD }}", "${{ secrets.DB_PASSWORD }}"),
        (
            'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
            "$GITHUB_TOKEN",
        ),
        ("OPENAI_API_KEY=<your-api-key>", "<your-api-key>"),
        ("GITHUB_TOKEN: ***", "***"),
        ("token: xxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxx"),
        ("DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app", "${DB_PASSWORD}"),
        ('db_password: "{{ vault_db_password }}"', "{{ vault_db_password }}"),
        ("export NPM_TOKEN=$(cat /run/secrets/npm_token)", "$(cat /run/secrets/npm_token)"),
        ("//registry.npmjs.org/:_authToken=${NPM_TOKEN}", "${NPM_TOKEN}"),
        ("api_key: YOUR_API_KEY_HERE", "YOUR_API_KEY_HERE"),
        ("docker login -u $DOCKER_USER -p $DOCKER_PASSWORD ghcr.io", "$DOCKER_PASSWORD"),
        ("git clone https://oauth2:<token>@gitlab.com/acme/api.git", "<token>"),
    ]
    for ctx, value in placeholders:
        out.append(benign("placeholder", value, ctx + "\n"))
    code = [
        ('token = os.environ["GITHUB_TOKEN"]', 'os.environ["GITHUB_TOKEN"]'),
        ("    password: str\n    api_key: str | None = None", "str | None"),
        ("const apiKey = process.env.OPENAI_API_KEY;", "process.env.OPENAI_API_KEY"),
        ("client = OpenAI(api_key=settings.openai_api_key)", "settings.openai_api_key"),
        ("password = getpass.getpass(prompt='DB password: ')", "getpass.getpass"),
        ("if token_type == 'Bearer' and max_tokens > 4096:", "max_tokens > 4096"),
    ]
    for ctx, value in code:
        out.append(benign("code-reference", value, ctx + "\n"))
    env = [
        ("PWD", "/home/runner/work/api/api"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-XXXXqLm3Tk/agent.2231"),
        ("GIT_AUTHOR_NAME", "Grace Hopper"),
        ("TOKENIZERS_PARALLELISM", "false"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/home/runner/work/_temp/gcp-sa-4f2a.json"),
        ("KEY_VAULT_NAME", "acme-prod-kv"),
        ("JWT_ALGORITHM", "HS256"),
        ("TOKEN_TTL", "3600"),
    ]
    for var, value in env:
        out.append(
            benign(
                "env-nonsecret", value, f"$ env | sort\nCI=true\n{var}={value}\nRUNNER_OS=Linux\n"
            )
        )
    for _ in range(2):
        s = f"{rng.randrange(1, 20)}.{rng.randrange(0, 40)}.{rng.randrange(0, 30)}-rc.{rng.randrange(1, 9)}+build.{rs(HEX, 7)}"
        out.append(
            benign("semver", s, f"Publishing @acme/sdk@{s} to https://registry.npmjs.org/\n")
        )
    for _ in range(2):
        s = f"2024-05-{rng.randrange(10, 29)}T{rng.randrange(10, 23)}:{rng.randrange(10, 59)}:{rng.randrange(10, 59)}.{rs(DIGITS, 6)}+00:00"
        out.append(
            benign(
                "timestamp",
                s,
                f"[{s}] worker-3 picked job build-{rng.randrange(1000, 9999)} (queue=default)\n",
            )
        )
    for _ in range(2):
        s = f"/home/runner/.cache/pip/wheels/{rs(HEX, 2)}/{rs(HEX, 2)}/{rs(HEX, 60)}"
        out.append(
            benign("file-path", s, f"  Stored in directory: {s}\nSuccessfully built tokenizers\n")
        )
    s = f"node_modules/.pnpm/@babel+core@7.24.5_{rs(LOWER + DIGITS, 26)}/node_modules/@babel/core/lib/index.js"
    out.append(benign("file-path", s, f"    at Object.<anonymous> ({s}:12:3)\n"))
    for _ in range(2):
        s = "pk_live_" + rs(ALNUM, 99)
        out.append(
            benign("publishable-key", s, f'<script>const stripe = Stripe("{s}");</script>\n')
        )
    prose = [
        (
            "Rotate the deploy token before Friday; the password policy now requires 16 characters.",
            "password policy",
        ),
        (
            "The auth flow stores the refresh token in an HttpOnly cookie, never in localStorage.",
            "refresh token",
        ),
        (
            "Set DB_PASSWORD in the environment before running the migrations; see docs/secrets.md.",
            "DB_PASSWORD",
        ),
        (
            "error: authentication failed: token expired (code: 401), please sign in again",
            "token expired",
        ),
    ]
    for ctx, value in prose:
        out.append(benign("prose", value, ctx + "\n"))
    for _ in range(2):
        s = " ".join(rs(HEX, 4) for _ in range(8))
        out.append(
            benign("hexdump", s, f"$ xxd -l 32 build/app.wasm\n00000000: {s}  .asm............\n")
        )
    return out


def write(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text(
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
    )


def main() -> None:
    secrets = token_items() + context_items()
    write(HERE / "secrets.jsonl", secrets)
    write(HERE / "benign.jsonl", benign_items())


if __name__ == "__main__":
    main()
