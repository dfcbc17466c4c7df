"""Build batch G of the held-apart redaction set (batch-g.jsonl), written blind.

The shapes come from tools' public documentation (each row keeps its page in `source`), not from
the redaction rules, which were not read while this file was written: mail, SMS and realtime APIs
(SendGrid, Vonage, Plivo, Mailchimp, Pusher), search and analytics SaaS (Algolia, PostHog,
Mixpanel, Amplitude, Segment, Honeycomb), feature flags (Flagsmith), auth (Auth0), hosting CLIs
(Netlify, Vercel, Heroku, Render, Railway), secrets managers' CLIs (Bitwarden Secrets Manager,
Infisical), serverless data (Upstash, Neon), package managers (cargo, NuGet, dart pub), registries
(Quay), bots and chat webhooks (Telegram, Discord, Google Chat), productivity APIs (Linear, Notion,
Airtable, Contentful), payments (Paddle, Checkout.com, Braintree), game servers (SteamCMD), IoT
(Particle), signing tools (signtool, notarytool, apksigner, electron-builder), database shells
(sqlcmd, sqlplus, vsql, arangosh, SurrealDB), config libraries of other languages (Elixir, HOCON,
.NET, Viper), CI files, logs, encodings and prose in other languages. Every value is invented
from a fixed seed, so the file is reproducible: run `python build_batch_g.py` to rewrite it.
"""

from __future__ import annotations

# ruff: noqa: E501  (each context stays as it appears in a shell, file or log)
import base64
import json
import random
import string
import uuid
from pathlib import Path
from urllib.parse import quote

RNG = random.Random(20261203)
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
ALNUM = LOWER + UPPER + DIGITS
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


def pick(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def mixed(n: int) -> str:
    """A password-like string with at least one lower, upper and digit."""
    while True:
        value = pick(ALNUM, n)
        kinds = (str.islower, str.isupper, str.isdigit)
        if all(any(kind(c) for c in value) for kind in kinds):
            return value


def uid() -> str:
    return str(uuid.UUID(int=RNG.getrandbits(128), version=4))


def password() -> str:
    return mixed(RNG.randint(6, 9)) + RNG.choice("!#%+=@^") + mixed(RNG.randint(4, 7))


def b64(n: int) -> str:
    return base64.b64encode(bytes(RNG.getrandbits(8) for _ in range(n))).decode()


def ed25519_public() -> str:
    """The base64 body of an OpenSSH ed25519 public key, well formed."""
    key = bytes(RNG.getrandbits(8) for _ in range(32))
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + key
    return base64.b64encode(blob).decode()


# -- value generators, each in its vendor's documented shape ------------------------------------
GEN = {
    "sendgrid": lambda: f"SG.{pick(URLSAFE, 22)}.{pick(URLSAFE, 43)}",
    "vonage_secret": lambda: mixed(16),
    "algolia_admin": lambda: pick(HEX, 32),
    "posthog_personal": lambda: "phx_" + pick(ALNUM, 47),
    "netlify": lambda: "nfp_" + pick(ALNUM, 36),
    "crates": lambda: "cio" + pick(ALNUM, 32),
    "nuget": lambda: "oy2" + pick(LOWER + DIGITS, 43),
    "auth0_secret": lambda: pick(URLSAFE, 64),
    "bws": lambda: f"0.{uid()}.{pick(ALNUM, 30)}:{pick(ALNUM, 22)}==",
    "infisical": lambda: f"st.{uid()}.{pick(HEX, 32)}.{pick(HEX, 32)}",
    "upstash": lambda: "A" + pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1) + pick(ALNUM, 58),
    "neon_pw": lambda: "npg_" + pick(ALNUM, 12),
    "telegram": lambda: f"{RNG.randint(1000000000, 7999999999)}:AA{pick(URLSAFE, 33)}",
    "vercel": lambda: "vca_" + pick(ALNUM, 56),
    "linear": lambda: "lin_api_" + pick(ALNUM, 40),
    "flagsmith_server": lambda: "ser." + pick(ALNUM, 22),
    "pusher_secret": lambda: pick(HEX, 20),
    "quay_robot": lambda: pick(UPPER + DIGITS, 64),
    "mailchimp": lambda: pick(HEX, 32) + f"-us{RNG.randint(2, 21)}",
    "discord_hook": lambda: pick(URLSAFE, 68),
    "gchat_token": lambda: pick(URLSAFE, 43) + "%3D",
    "plivo_token": lambda: pick(ALNUM, 40),
    "particle": lambda: pick(HEX, 40),
    "heroku": lambda: "HRKU-AA" + pick(URLSAFE, 58),
    "render": lambda: "rnd_" + pick(ALNUM, 32),
    "contentful": lambda: "CFPAT-" + pick(URLSAFE, 43),
    "airtable": lambda: f"pat{pick(ALNUM, 14)}.{pick(HEX, 64)}",
    "notion": lambda: "ntn_" + pick(ALNUM, 46),
    "rollbar": lambda: pick(HEX, 32),
    "honeycomb": lambda: "hcaik_" + pick(LOWER + DIGITS, 58),
    "pagerduty": lambda: "u+" + pick(URLSAFE, 18),
    "segment": lambda: pick(ALNUM, 32),
    "mixpanel_sa": lambda: pick(ALNUM, 32),
    "amplitude_secret": lambda: pick(HEX, 32),
    "paddle": lambda: (
        f"pdl_live_apikey_{pick(LOWER + DIGITS, 26)}_{pick(ALNUM, 22)}_{pick(ALNUM, 3)}"
    ),
    "checkout": lambda: "sk_sbox_" + pick(LOWER + DIGITS, 26),
    "braintree": lambda: pick(HEX, 32),
    "typesense": lambda: pick(ALNUM, 32),
    "pub_token": lambda: pick(URLSAFE, 40),
    "apple_app_pw": lambda: "-".join(pick(LOWER, 4) for _ in range(4)),
    "railway": uid,
    "password": password,
    "bitrise": lambda: pick(URLSAFE, 86),
    "codemagic": lambda: pick(URLSAFE, 43),
    "steam_pw": password,
}

S = {
    "sendgrid": "https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication",
    "vonage": "https://developer.vonage.com/account/code-snippets/create-a-secret",
    "vonage_auth": "https://developer.vonage.com/de/concepts/guides/authentication",
    "algolia": "https://www.algolia.com/doc/guides/security/api-keys",
    "posthog": "https://www.mintlify.com/PostHog/posthog/api/authentication",
    "netlify": "https://docs.netlify.com/api-and-cli-guides/cli-guides/get-started-with-cli.md",
    "cargo": "https://doc.rust-lang.org/cargo/commands/cargo-login.html",
    "nuget": "https://learn.microsoft.com/en-us/nuget/reference/cli-reference/cli-ref-setapikey",
    "auth0": "https://www.auth0.com/docs/secure/tokens/access-tokens/management-api-access-tokens/get-management-api-access-tokens-for-production",
    "auth0_rotate": "https://auth0.com/docs/configure/applications/rotate-client-secret",
    "bws": "https://bitwarden.com/de-de/help/secrets-manager-cli.md",
    "infisical": "https://infisical.com/docs/cli/usage",
    "upstash": "https://upstash.com/docs/redis/api",
    "neon": "https://neon.com/docs/get-started/connect-neon",
    "telegram": "https://core.telegram.org/bots/api",
    "vercel": "https://vercel.com/docs/cli/global-options",
    "linear": "https://linear.app/developers/graphql",
    "flagsmith": "https://docs.flagsmith.com/integration-approaches",
    "flagsmith_auth": "https://docs.flagsmith.com/integrating-with-flagsmith/flagsmith-api-overview/flags-api/authentication",
    "pusher": "https://pusher.com/glossary/",
    "pusher_swift": "https://pusher.github.io/pusher-http-swift/Structs/PusherClientOptions.html",
    "steamcmd": "https://developer.valvesoftware.com/wiki/SteamCMD",
    "dart": "https://dart.dev/tools/pub/cmd/pub-token",
    "dart_custom": "https://dart.dev/tools/pub/custom-package-repositories",
    "quay": "https://docs.redhat.com/ja/documentation/red_hat_quay/3.15/html/managing_access_and_permissions/creating-robot-account-api",
    "mailchimp": "https://mailchimp.com/developer/marketing/guides/quick-start/",
    "discord": "https://discord.com/developers/docs/resources/webhook",
    "gchat": "https://developers.google.com/workspace/chat/quickstart/webhooks",
    "plivo": "https://www.plivo.com/docs/sms/api/overview/",
    "particle": "https://docs.particle.io/reference/cloud-apis/access-tokens/",
    "heroku": "https://devcenter.heroku.com/articles/authentication",
    "render": "https://render.com/docs/api",
    "railway": "https://docs.railway.com/guides/cli",
    "contentful": "https://www.contentful.com/developers/docs/references/authentication/",
    "airtable": "https://airtable.com/developers/web/guides/personal-access-tokens",
    "notion": "https://developers.notion.com/docs/authorization",
    "rollbar": "https://docs.rollbar.com/docs/access-tokens",
    "honeycomb": "https://docs.honeycomb.io/get-started/configure/environments/manage-api-keys/",
    "pagerduty": "https://developer.pagerduty.com/docs/authentication",
    "segment": "https://segment.com/docs/connections/find-writekey/",
    "mixpanel": "https://docs.mixpanel.com/docs/orgs-and-projects/service-accounts",
    "amplitude": "https://amplitude.com/docs/apis/authentication",
    "paddle": "https://developer.paddle.com/api-reference/about/api-keys",
    "paddle_client": "https://developer.paddle.com/paddlejs/client-side-tokens",
    "checkout": "https://www.checkout.com/docs/developer-resources/api/manage-your-api-keys",
    "braintree": "https://developer.paypal.com/braintree/articles/control-panel/important-gateway-credentials",
    "typesense": "https://typesense.org/docs/latest/api/api-keys.html",
    "sqlcmd": "https://learn.microsoft.com/en-us/sql/tools/sqlcmd/sqlcmd-utility",
    "sqlplus": "https://docs.oracle.com/en/database/oracle/oracle-database/19/sqpug/SQL-Plus-quick-start.html",
    "vsql": "https://docs.vertica.com/latest/en/connecting-to/using-vsql/vsql-command-line-options/",
    "arangosh": "https://docs.arangodb.com/stable/components/tools/arangodb-shell/options/",
    "surreal": "https://surrealdb.com/docs/surrealdb/cli/sql",
    "signtool": "https://learn.microsoft.com/en-us/windows/win32/seccrypto/signtool",
    "notarytool": "https://developer.apple.com/documentation/security/customizing-the-notarization-workflow",
    "apksigner": "https://developer.android.com/tools/apksigner",
    "electron": "https://www.electron.build/code-signing",
    "bitrise": "https://devcenter.bitrise.io/en/accounts/personal-access-tokens.html",
    "codemagic": "https://docs.codemagic.io/rest-api/codemagic-rest-api/",
    "elixir": "https://hexdocs.pm/ecto_sql/Ecto.Adapters.Postgres.html",
    "hocon": "https://www.playframework.com/documentation/3.0.x/ApplicationSecret",
    "dotnet": "https://learn.microsoft.com/en-us/ef/core/miscellaneous/connection-strings",
    "viper": "https://github.com/spf13/viper",
    "gh_actions": "https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions",
    "bitbucket": "https://support.atlassian.com/bitbucket-cloud/docs/variables-and-secrets/",
    "azure_pipelines": "https://learn.microsoft.com/en-us/azure/devops/pipelines/process/set-secret-variables",
    "compose": "https://docs.docker.com/compose/how-tos/environment-variables/set-environment-variables/",
    "k8s_secret": "https://kubernetes.io/docs/concepts/configuration/secret/",
    "git_sha": "https://git-scm.com/docs/git-rev-parse",
    "npm_integrity": "https://docs.npmjs.com/cli/v10/configuring-npm/package-lock-json",
    "cargo_lock": "https://doc.rust-lang.org/cargo/guide/cargo-toml-vs-cargo-lock.html",
    "gosum": "https://go.dev/ref/mod#go-sum-files",
    "pip_hash": "https://pip.pypa.io/en/stable/topics/secure-installs/",
    "oci_digest": "https://github.com/opencontainers/image-spec/blob/main/descriptor.md",
    "ssh_pub": "https://man.openbsd.org/sshd.8#AUTHORIZED_KEYS_FILE_FORMAT",
    "gpg": "https://www.gnupg.org/documentation/manuals/gnupg/Operational-GPG-Commands.html",
    "jwks": "https://datatracker.ietf.org/doc/html/rfc7517",
    "telegram_chat": "https://core.telegram.org/bots/api#sendmessage",
}

ROWS: list[dict[str, str]] = []


def secret(cls: str, source: str, gen: str, contexts: list[str], times: int = 3) -> None:
    for i in range(times):
        value = GEN[gen]()
        context = contexts[i % len(contexts)].replace("{v}", value)
        ROWS.append(
            {
                "expect": "secret",
                "class": cls,
                "context": context,
                "secret": value,
                "source": source,
            }
        )


def benign(cls: str, source: str, make, contexts: list[str], reason: str, times: int = 3) -> None:
    if isinstance(make, list):
        times = max(len(make), len(contexts))
    for i in range(times):
        value = make[i % len(make)] if isinstance(make, list) else make()
        context = contexts[i % len(contexts)].replace("{v}", value)
        ROWS.append(
            {
                "expect": "benign",
                "class": cls,
                "context": context,
                "value": value,
                "source": source,
                "reason": reason,
            }
        )


# == secrets ==================================================================================
V = "vendor token"
secret(
    V,
    S["sendgrid"],
    "sendgrid",
    [
        "$ export SENDGRID_API_KEY={v}",
        "sendgrid_client = SendGridAPIClient('{v}')",
        "SENDGRID_API_KEY={v} node scripts/send-digest.js --dry-run",
    ],
)
secret(
    V,
    S["posthog"],
    "posthog_personal",
    [
        "curl -s https://us.posthog.com/api/projects/ -H 'Authorization: Bearer {v}' | jq '.results[].id'",
        "POSTHOG_PERSONAL_API_KEY={v}",
    ],
)
secret(
    V,
    S["netlify"],
    "netlify",
    [
        "$ NETLIFY_AUTH_TOKEN={v} netlify deploy --prod --dir=dist",
        "netlify deploy --auth {v} --site 3f1c2b9e --prod",
    ],
)
secret(
    V,
    S["vercel"],
    "vercel",
    [
        "$ vercel deploy --prod --token {v}",
        'export VERCEL_TOKEN="{v}"',
    ],
)
secret(
    V,
    S["linear"],
    "linear",
    [
        "curl -s -X POST https://api.linear.app/graphql -H 'Authorization: {v}' -H 'Content-Type: application/json' -d '{\"query\":\"{ viewer { id } }\"}'",
        'const linear = new LinearClient({ apiKey: "{v}" });',
    ],
)
secret(
    V,
    S["flagsmith"],
    "flagsmith_server",
    [
        'flagsmith = Flagsmith(environment_key="{v}", enable_local_evaluation=True)',
        "FLAGSMITH_SERVER_SIDE_ENVIRONMENT_KEY={v}",
    ],
)
secret(
    V,
    S["heroku"],
    "heroku",
    [
        "$ HEROKU_API_KEY={v} heroku apps:info -a billing-worker",
        "machine api.heroku.com\n  login ops@shop.test\n  password {v}",
    ],
)
secret(
    V,
    S["render"],
    "render",
    [
        "curl -H 'Authorization: Bearer {v}' https://api.render.com/v1/services?limit=20",
        "RENDER_API_KEY={v}",
    ],
)
secret(
    V,
    S["railway"],
    "railway",
    [
        "$ RAILWAY_TOKEN={v} railway up --service api --detach",
    ],
)
secret(
    V,
    S["contentful"],
    "contentful",
    [
        "contentful space export --space-id 7b1kq2m9xz --management-token {v}",
        "CONTENTFUL_MANAGEMENT_TOKEN={v}",
    ],
)
secret(
    V,
    S["airtable"],
    "airtable",
    [
        'curl https://api.airtable.com/v0/appQ3kd81JxPzA/Tasks -H "Authorization: Bearer {v}"',
        "AIRTABLE_PAT={v}",
    ],
)
secret(
    V,
    S["notion"],
    "notion",
    [
        'const notion = new Client({ auth: "{v}" })',
        "NOTION_TOKEN={v} python sync_notion.py --db tasks",
    ],
)
secret(
    V,
    S["honeycomb"],
    "honeycomb",
    [
        "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={v}",
        "HONEYCOMB_API_KEY={v}",
    ],
)
secret(
    V,
    S["paddle"],
    "paddle",
    [
        'curl https://api.paddle.com/products -H "Authorization: Bearer {v}"',
        "PADDLE_API_KEY={v}",
    ],
)
secret(
    V,
    S["checkout"],
    "checkout",
    [
        "curl https://api.sandbox.checkout.com/payments -H 'Authorization: Bearer {v}' -d @payment.json",
        "CKO_SECRET_KEY={v}",
    ],
)
secret(
    V,
    S["mailchimp"],
    "mailchimp",
    [
        'mailchimp.setConfig({ apiKey: "{v}", server: "us6" });',
        "MAILCHIMP_API_KEY={v}",
    ],
)
secret(
    V,
    S["particle"],
    "particle",
    [
        "$ particle call e00fce68a1b2c3d4 digitalwrite D7,HIGH --access_token {v}",
        'curl https://api.particle.io/v1/devices -H "Authorization: Bearer {v}"',
    ],
)
secret(
    V,
    S["mixpanel"],
    "mixpanel_sa",
    [
        "curl -u 'ingest-bot.3c1d9e.mp-service-account:{v}' https://mixpanel.com/api/app/me",
    ],
)
secret(
    V,
    S["amplitude"],
    "amplitude_secret",
    [
        "curl -u '6b2f0c51d7e94a08b3c2e1f0a9d8c7b6:{v}' 'https://amplitude.com/api/2/export?start=20261101T00&end=20261102T00'",
    ],
)

F = "cli password flag"
secret(
    F,
    S["vonage"],
    "vonage_secret",
    [
        "$ vonage auth set --api-key=8c1f3a2b --api-secret={v}",
        "curl -X POST https://api.nexmo.com/accounts/8c1f3a2b/secrets -u \"8c1f3a2b:{v}\" -H 'Content-Type: application/json' -d '{}'",
    ],
)
secret(
    F,
    S["nuget"],
    "nuget",
    [
        "$ nuget setapikey {v} -Source https://api.nuget.org/v3/index.json",
        "dotnet nuget push bin/Release/Acme.Core.2.4.0.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json",
    ],
)
secret(
    F,
    S["cargo"],
    "crates",
    [
        "$ cargo login {v}",
        "cargo publish --token {v} --allow-dirty",
    ],
)
secret(
    F,
    S["steamcmd"],
    "steam_pw",
    [
        "$ ./steamcmd.sh +force_install_dir /srv/cs2 +login deploybot {v} +app_update 730 validate +quit",
        "steamcmd +login buildsvc {v} +run_app_build ../scripts/app_build_1000.vdf +quit",
    ],
)
secret(
    F,
    S["quay"],
    "quay_robot",
    [
        "$ docker login -u='acme+ci_pusher' -p='{v}' quay.io",
        "podman login quay.io --username acme+deployer --password {v}",
    ],
)
secret(
    F,
    S["sqlcmd"],
    "password",
    [
        "$ sqlcmd -S tcp:db01.corp.test,1433 -U sa -P '{v}' -Q \"SELECT @@VERSION\"",
        "sqlcmd -S localhost -U app_reader -P {v} -d Inventory -i migrate.sql",
    ],
)
secret(
    F,
    S["sqlplus"],
    "password",
    [
        "$ sqlplus scott/{v}@//orcl.corp.test:1521/PDB1",
        "sqlplus -s hr/{v}@XEPDB1 @report.sql",
    ],
)
secret(
    F,
    S["vsql"],
    "password",
    [
        "$ vsql -h vertica01 -U dbadmin -w '{v}' -c 'SELECT version();'",
    ],
)
secret(
    F,
    S["arangosh"],
    "password",
    [
        "$ arangosh --server.endpoint tcp://127.0.0.1:8529 --server.username root --server.password '{v}'",
    ],
)
secret(
    F,
    S["surreal"],
    "password",
    [
        "$ surreal sql --endpoint http://localhost:8000 --user root --pass '{v}' --ns shop --db main",
        "surreal start --user root --pass {v} rocksdb:/var/lib/surreal",
    ],
)
secret(
    F,
    S["particle"],
    "password",
    [
        "$ particle login --username maker@lab.test --password '{v}'",
    ],
    times=1,
)

C = "config file"
secret(
    C,
    S["cargo"],
    "crates",
    [
        '# ~/.cargo/credentials.toml\n[registry]\ntoken = "{v}"',
        '[registries.crates-io]\ntoken = "{v}"',
    ],
)
secret(
    C,
    S["nuget"],
    "nuget",
    [
        '<apikeys>\n  <add key="https://www.nuget.org/api/v2/package" value="{v}" />\n</apikeys>',
    ],
)
secret(
    C,
    S["pusher"],
    "pusher_secret",
    [
        "PUSHER_APP_ID=1846203\nPUSHER_APP_KEY=5c0e8f1a2b3d4c6e7f80\nPUSHER_APP_SECRET={v}\nPUSHER_APP_CLUSTER=eu",
        "'pusher' => ['app_id' => '1846203', 'secret' => '{v}', 'cluster' => 'ap1'],",
    ],
)
secret(
    C,
    S["algolia"],
    "algolia_admin",
    [
        "ALGOLIA_APP_ID=QX7KD2M1PL\nALGOLIA_ADMIN_KEY={v}",
        "algolia:\n  application_id: QX7KD2M1PL\n  admin_api_key: {v}",
    ],
)
secret(
    C,
    S["auth0"],
    "auth0_secret",
    [
        "AUTH0_DOMAIN=shop-prod.eu.auth0.com\nAUTH0_CLIENT_ID=Kx2b9QzT1mLw8vN4pR6sY3cJ0hF5dG7a\nAUTH0_CLIENT_SECRET={v}",
        '{\n  "domain": "shop-prod.eu.auth0.com",\n  "clientSecret": "{v}"\n}',
    ],
)
secret(
    C,
    S["typesense"],
    "typesense",
    [
        "# typesense-server.ini\n[server]\napi-key = {v}\ndata-dir = /var/lib/typesense",
        "TYPESENSE_API_KEY={v}",
    ],
)
secret(
    C,
    S["braintree"],
    "braintree",
    [
        "braintree:\n  environment: production\n  merchant_id: 7xq2m9kd3zp4\n  public_key: hk83nf7w2q9b\n  private_key: {v}",
    ],
)
secret(
    C,
    S["rollbar"],
    "rollbar",
    [
        "rollbar:\n  access_token: {v}\n  environment: production",
    ],
)
secret(
    C,
    S["segment"],
    "segment",
    [
        "SEGMENT_WRITE_KEY={v}   # server-side source for the billing service",
    ],
)
secret(
    C,
    S["elixir"],
    "password",
    [
        'config :shop, Shop.Repo,\n  username: "shop",\n  password: "{v}",\n  hostname: "db.internal"',
        '# config/runtime.exs\nconfig :shop, Shop.Repo, password: "{v}", pool_size: 10',
    ],
)
secret(
    C,
    S["hocon"],
    "codemagic",
    [
        'play.http.secret.key = "{v}"',
        '# conf/application.conf\nplay.http.secret.key="{v}"\nplay.i18n.langs=["en"]',
    ],
)
secret(
    C,
    S["viper"],
    "password",
    [
        "# config.yaml read by viper\ndatabase:\n  host: pg.internal\n  user: orders\n  password: {v}",
    ],
)

N = "connection string"
secret(
    N,
    S["neon"],
    "neon_pw",
    [
        'DATABASE_URL="postgresql://neondb_owner:{v}@ep-quiet-river-a5k2m9.eu-central-1.aws.neon.tech/neondb?sslmode=require&channel_binding=require"',
        "psql 'postgresql://neondb_owner:{v}@ep-bold-sun-b7q1x3-pooler.us-east-2.aws.neon.tech/app?sslmode=require'",
    ],
)
secret(
    N,
    S["upstash"],
    "password",
    [
        "REDIS_URL=rediss://default:{v}@eu1-lasting-koi-40123.upstash.io:6379",
    ],
)
secret(
    N,
    S["dotnet"],
    "password",
    [
        '"ConnectionStrings": { "Shop": "Server=tcp:sql01.corp.test,1433;Database=Shop;User ID=shop_app;Password={v};Encrypt=True" }',
        "Data Source=orcl.corp.test:1521/PDB1;User Id=reporting;Password={v};",
    ],
)
secret(
    N,
    S["arangosh"],
    "password",
    [
        "ARANGO_URL=http://root:{v}@arangodb.internal:8529/_db/catalog",
    ],
)
secret(
    N,
    S["surreal"],
    "password",
    [
        "SURREAL_URL=ws://root:{v}@surreal.internal:8000/rpc",
    ],
    times=2,
)

L = "source literal"
secret(
    L,
    S["pusher_swift"],
    "pusher_secret",
    [
        "pusher = pusher.Pusher(app_id='1846203', key='5c0e8f1a2b3d4c6e7f80', secret='{v}', cluster='eu')",
        'let options = PusherClientOptions(appId: 1846203, key: "5c0e8f1a2b3d4c6e7f80", secret: "{v}", cluster: "eu")',
    ],
)
secret(
    L,
    S["vonage"],
    "vonage_secret",
    [
        'const vonage = new Vonage({ apiKey: "8c1f3a2b", apiSecret: "{v}" });',
        'client = vonage.Client(key="8c1f3a2b", secret="{v}")',
    ],
)
secret(
    L,
    S["algolia"],
    "algolia_admin",
    [
        'client := search.NewClient("QX7KD2M1PL", "{v}")',
        "const client = algoliasearch('QX7KD2M1PL', '{v}');",
    ],
)
secret(
    L,
    S["auth0"],
    "auth0_secret",
    [
        "const management = new ManagementClient({ domain: 'shop.eu.auth0.com', clientId: 'Kx2b9QzT1mLw8vN4pR6sY3cJ0hF5dG7a', clientSecret: '{v}' });",
    ],
)
secret(
    L,
    S["plivo"],
    "plivo_token",
    [
        "client = plivo.RestClient(auth_id='MAZDQ1ZJIYMDZKMMZ', auth_token='{v}')",
        'plivo.NewClient("MAZDQ1ZJIYMDZKMMZ", "{v}", &plivo.ClientOptions{})',
    ],
)
secret(
    L,
    S["braintree"],
    "braintree",
    [
        "gateway = braintree.BraintreeGateway(braintree.Configuration(braintree.Environment.Production, merchant_id='7xq2m9kd3zp4', public_key='hk83nf7w2q9b', private_key='{v}'))",
    ],
    times=2,
)
secret(
    L,
    S["upstash"],
    "upstash",
    [
        'const redis = new Redis({ url: "https://eu1-lasting-koi-40123.upstash.io", token: "{v}" });',
    ],
    times=2,
)

H = "http auth header"
secret(
    H,
    S["sendgrid"],
    "sendgrid",
    [
        "> GET /v3/templates HTTP/1.1\n> Host: api.sendgrid.com\n> Authorization: Bearer {v}",
    ],
    times=2,
)
secret(
    H,
    S["upstash"],
    "upstash",
    [
        'curl https://eu1-lasting-koi-40123.upstash.io/set/foo/bar -H "Authorization: Bearer {v}"',
        'curl "https://eu1-lasting-koi-40123.upstash.io/get/foo?_token={v}"',
    ],
)
secret(
    H,
    S["typesense"],
    "typesense",
    [
        "curl 'http://localhost:8108/collections' -H \"X-TYPESENSE-API-KEY: {v}\"",
    ],
    times=2,
)
secret(
    H,
    S["algolia"],
    "algolia_admin",
    [
        "curl -X GET -H 'X-Algolia-API-Key: {v}' -H 'X-Algolia-Application-Id: QX7KD2M1PL' https://QX7KD2M1PL.algolia.net/1/keys",
    ],
    times=2,
)
secret(
    H,
    S["rollbar"],
    "rollbar",
    [
        "curl https://api.rollbar.com/api/1/items -H 'X-Rollbar-Access-Token: {v}'",
    ],
    times=2,
)
secret(
    H,
    S["pagerduty"],
    "pagerduty",
    [
        "curl -H 'Authorization: Token token={v}' -H 'Accept: application/vnd.pagerduty+json;version=2' https://api.pagerduty.com/incidents",
    ],
    times=2,
)
secret(
    H,
    S["honeycomb"],
    "honeycomb",
    [
        "curl https://api.honeycomb.io/1/auth -H 'X-Honeycomb-Team: {v}'",
    ],
    times=2,
)

W = "webhook url"
for _ in range(3):
    hook_id = str(RNG.randint(10**17, 10**18 - 1))
    token = GEN["discord_hook"]()
    ROWS.append(
        {
            "expect": "secret",
            "class": W,
            "context": f"DISCORD_WEBHOOK_URL=https://discord.com/api/webhooks/{hook_id}/{token}",
            "secret": token,
            "source": S["discord"],
        }
    )
secret(
    W,
    S["telegram"],
    "telegram",
    [
        "curl -s \"https://api.telegram.org/bot{v}/sendMessage\" -d chat_id=-1001234567890 -d text='deploy ok'",
        "TELEGRAM_BOT_TOKEN={v}",
        'requests.post(f"https://api.telegram.org/bot{v}/getUpdates")',
    ],
)
secret(
    W,
    S["gchat"],
    "gchat_token",
    [
        "curl -X POST 'https://chat.googleapis.com/v1/spaces/AAQAk3m9zP0/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={v}' -H 'Content-Type: application/json' -d '{\"text\":\"build green\"}'",
    ],
    times=2,
)

E = "encoding"
for user, gen, src in (
    ("8c1f3a2b", "vonage_secret", S["vonage_auth"]),
    ("acme+ci_pusher", "quay_robot", S["quay"]),
    ("ingest-bot.3c1d9e.mp-service-account", "mixpanel_sa", S["mixpanel"]),
    ("6b2f0c51d7e94a08b3c2e1f0a9d8c7b6", "amplitude_secret", S["amplitude"]),
):
    raw = f"{user}:{GEN[gen]()}"
    enc = base64.b64encode(raw.encode()).decode()
    ROWS.append(
        {
            "expect": "secret",
            "class": E,
            "context": f"> Authorization: Basic {enc}",
            "secret": enc,
            "source": src,
        }
    )
for _ in range(3):
    pw = GEN["password"]()
    enc = base64.b64encode(pw.encode()).decode()
    ROWS.append(
        {
            "expect": "secret",
            "class": E,
            "context": f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: arangodb-root\ntype: Opaque\ndata:\n  password: {enc}",
            "secret": enc,
            "source": S["k8s_secret"],
        }
    )
for _ in range(2):
    auth = base64.b64encode(f"acme+deployer:{GEN['quay_robot']()}".encode()).decode()
    ROWS.append(
        {
            "expect": "secret",
            "class": E,
            "context": json.dumps({"auths": {"quay.io": {"auth": auth, "email": ""}}}),
            "secret": auth,
            "source": S["quay"],
        }
    )
for _ in range(2):
    quoted = quote(GEN["password"]() + "/" + mixed(4), safe="")
    ROWS.append(
        {
            "expect": "secret",
            "class": E,
            "context": f"postgresql://neondb_owner:{quoted}@ep-quiet-river-a5k2m9.eu-central-1.aws.neon.tech/neondb",
            "secret": quoted,
            "source": S["neon"],
        }
    )
secret(
    E,
    S["sendgrid"],
    "sendgrid",
    [
        '{"env": {"SENDGRID_API_KEY": "{v}", "FROM": "noreply@shop.test"}}',
        '"SENDGRID_API_KEY\\u003d{v}"',
    ],
)

OL = "other language"
secret(
    OL,
    S["bws"],
    "bws",
    [
        "Sie können eine CLI-Sitzung so authentifizieren: export BWS_ACCESS_TOKEN={v}",
        "Das Zugriffstoken für den Build-Server lautet {v}, bitte nicht weitergeben.",
    ],
)
secret(
    OL,
    S["telegram"],
    "telegram",
    [
        "你会得到 Bot 的 Token：{v}，请妥善保管。",
        "ボットのトークンは {v} です。",
    ],
)
secret(
    OL,
    S["vonage_auth"],
    "vonage_secret",
    [
        "La clave de la API es 8c1f3a2b y el secreto de la API es {v}.",
        "Le secret de l'API Vonage est {v} (ne pas le committer).",
    ],
)
secret(
    OL,
    S["sqlcmd"],
    "password",
    [
        "Пароль пользователя sa: {v}",
        "数据库密码：{v}",
    ],
)

G = "log line"
secret(
    G,
    S["infisical"],
    "infisical",
    [
        "2026-12-01T09:14:03Z DEBUG infisical: using service token INFISICAL_TOKEN={v}",
        "[entrypoint] exec infisical run --token {v} --env=prod -- node server.js",
    ],
)
secret(
    G,
    S["bws"],
    "bws",
    [
        "+ bws secret list --access-token {v} --output json",
        'level=debug msg="login with access token" token={v}',
    ],
)
secret(
    G,
    S["dart"],
    "pub_token",
    [
        "+ echo {v} | dart pub token add https://pub.acme.test/api/packages/acme/pub",
        "2026-11-30 12:00:41 INFO pub: PUB_TOKEN={v} exported for publish step",
    ],
)
secret(
    G,
    S["linear"],
    "linear",
    [
        "urllib3.connectionpool DEBUG send: b'POST /graphql HTTP/1.1\\r\\nHost: api.linear.app\\r\\nAuthorization: {v}\\r\\n'",
    ],
    times=2,
)
secret(
    G,
    S["auth0_rotate"],
    "auth0_secret",
    [
        '{"client_id":"Kx2b9QzT1mLw8vN4pR6sY3cJ0hF5dG7a","name":"billing-m2m","client_secret":"{v}","app_type":"non_interactive"}',
    ],
    times=2,
)
secret(
    G,
    S["quay"],
    "quay_robot",
    [
        '{"name": "acme+ci_pusher", "created": "Fri, 10 May 2024 15:11:00 -0000", "last_accessed": null, "description": "", "token": "{v}"}',
    ],
    times=2,
)

Y = "ci and yaml"
secret(
    Y,
    S["gh_actions"],
    "netlify",
    [
        "      - run: npx netlify-cli deploy --prod --dir=build\n        env:\n          NETLIFY_AUTH_TOKEN: {v}\n          NETLIFY_SITE_ID: 9d6b41c2-8a1e-4f3d-b0c7-2e5f6a7d8c9b",
    ],
)
secret(
    Y,
    S["bitbucket"],
    "vercel",
    [
        "pipelines:\n  default:\n    - step:\n        script:\n          - vercel deploy --prod --token={v}",
    ],
)
secret(
    Y,
    S["azure_pipelines"],
    "nuget",
    [
        "- script: dotnet nuget push **/*.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json\n  displayName: Publish",
    ],
)
secret(
    Y,
    S["compose"],
    "password",
    [
        "services:\n  surrealdb:\n    image: surrealdb/surrealdb:latest\n    command: start --user root --pass {v}",
        "  arangodb:\n    image: arangodb:3.12\n    environment:\n      ARANGO_ROOT_PASSWORD: {v}",
    ],
)
secret(
    Y,
    S["gh_actions"],
    "crates",
    [
        "      - run: cargo publish\n        env:\n          CARGO_REGISTRY_TOKEN: {v}",
    ],
)
secret(
    Y,
    S["dart_custom"],
    "pub_token",
    [
        "    env:\n      PUB_TOKEN: {v}\n    steps:\n      - run: dart pub token add https://pub.acme.test --env-var PUB_TOKEN",
    ],
)
secret(
    Y,
    S["codemagic"],
    "codemagic",
    [
        "workflows:\n  ios-release:\n    environment:\n      vars:\n        CM_API_TOKEN: {v}",
    ],
)
secret(
    Y,
    S["bitrise"],
    "bitrise",
    [
        "curl -H 'Authorization: {v}' https://api.bitrise.io/v0.1/apps",
    ],
    times=1,
)

M = "signing and build tools"
secret(
    M,
    S["signtool"],
    "password",
    [
        "> signtool sign /f C:\\certs\\acme-codesign.pfx /p {v} /fd SHA256 /tr http://timestamp.digicert.com /td SHA256 dist\\setup.exe",
        'signtool.exe sign /fd sha256 /f codesign.pfx /p "{v}" build\\App.msix',
    ],
)
secret(
    M,
    S["notarytool"],
    "apple_app_pw",
    [
        "$ xcrun notarytool store-credentials AC_NOTARY --apple-id dev@acme.test --team-id 7QK2M9ZX4D --password {v}",
        "xcrun notarytool submit Acme.zip --apple-id dev@acme.test --password {v} --team-id 7QK2M9ZX4D --wait",
    ],
)
secret(
    M,
    S["apksigner"],
    "password",
    [
        "$ apksigner sign --ks release.jks --ks-key-alias upload --ks-pass pass:{v} app-release.apk",
        "apksigner sign --ks upload.keystore --ks-pass pass:{v} --key-pass pass:{v} app.apk",
    ],
)
secret(
    M,
    S["electron"],
    "password",
    [
        "CSC_LINK=./certs/win.p12 CSC_KEY_PASSWORD={v} npx electron-builder --win",
        "export WIN_CSC_KEY_PASSWORD='{v}'",
    ],
)

# == look-alikes ==============================================================================
HA = "look-alike: hashes and digests"
benign(
    HA,
    S["git_sha"],
    lambda: pick(HEX, 40),
    [
        "$ git rev-parse HEAD\n{v}",
        "commit {v}\nAuthor: Dev <dev@acme.test>",
    ],
    "a git commit id: a content hash, public in the repository",
)
benign(
    HA,
    S["npm_integrity"],
    lambda: "sha512-" + b64(64),
    [
        '"integrity": "{v}",',
    ],
    "a package-lock integrity digest of a public tarball",
)
benign(
    HA,
    S["cargo_lock"],
    lambda: pick(HEX, 64),
    [
        '[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{v}"',
    ],
    "a Cargo.lock checksum: the sha256 of a public crate",
)
benign(
    HA,
    S["gosum"],
    lambda: "h1:" + b64(32),
    [
        "github.com/spf13/viper v1.19.0 {v}",
    ],
    "a go.sum module hash",
)
benign(
    HA,
    S["pip_hash"],
    lambda: pick(HEX, 64),
    [
        "requests==2.32.3 --hash=sha256:{v}",
    ],
    "a pip --hash pin: the sha256 of a public wheel",
)
benign(
    HA,
    S["oci_digest"],
    lambda: "sha256:" + pick(HEX, 64),
    [
        "quay.io/acme/api@{v}",
        "Digest: {v}\nStatus: Downloaded newer image for surrealdb/surrealdb:latest",
    ],
    "an image digest: a content address, not a credential",
)

ID = "look-alike: ids and uuids"
benign(
    ID,
    S["netlify"],
    uid,
    [
        "NETLIFY_SITE_ID={v}",
        "netlify link --id {v}",
    ],
    "a Netlify site (project) id: an identifier, documented as not sensitive",
)
benign(
    ID,
    S["bws"],
    uid,
    [
        "$ bws secret get {v}",
        "bws project list | jq '.[] | select(.id==\"{v}\")'",
    ],
    "a Bitwarden Secrets Manager secret or project id, not the secret itself",
)
benign(
    ID,
    S["infisical"],
    uid,
    [
        '{"workspaceId": "{v}", "defaultEnvironment": "dev"}',
    ],
    "the workspace id in .infisical.json, which the docs say may be committed",
)
benign(
    ID,
    S["pusher"],
    lambda: str(RNG.randint(1000000, 1999999)),
    [
        "PUSHER_APP_ID={v}",
    ],
    "a Pusher app id: a numeric identifier",
)
benign(
    ID,
    S["algolia"],
    lambda: pick(UPPER + DIGITS, 10),
    [
        "ALGOLIA_APPLICATION_ID={v}",
        "https://{v}-dsn.algolia.net/1/indexes/products/query",
    ],
    "an Algolia application id: identifies the app, grants nothing",
)
benign(
    ID,
    S["telegram_chat"],
    lambda: "-100" + str(RNG.randint(10**9, 10**10 - 1)),
    [
        "TELEGRAM_CHAT_ID={v}",
    ],
    "a Telegram chat id: an address, not a credential",
)
benign(
    ID,
    S["airtable"],
    lambda: "app" + pick(ALNUM, 14),
    [
        'curl https://api.airtable.com/v0/{v}/Tasks -H "Authorization: Bearer $AIRTABLE_PAT"',
    ],
    "an Airtable base id; the token is an unexpanded variable",
)
benign(
    ID,
    S["steamcmd"],
    lambda: str(RNG.randint(200000, 3000000)),
    [
        "steamcmd +login anonymous +app_update {v} validate +quit",
    ],
    "a Steam app id with the anonymous login",
)
benign(
    ID,
    S["discord"],
    lambda: str(RNG.randint(10**17, 10**18 - 1)),
    [
        "channel_id: {v}  # #deploys",
    ],
    "a Discord channel id (a snowflake), not a webhook token",
)

PK = "look-alike: public keys and client-side keys"
benign(
    PK,
    S["posthog"],
    lambda: "phc_" + pick(ALNUM, 43),
    [
        "posthog.init('{v}', { api_host: 'https://eu.i.posthog.com' })",
        "NEXT_PUBLIC_POSTHOG_KEY={v}",
    ],
    "a PostHog project API key, documented as public and safe for front-end code",
)
benign(
    PK,
    S["flagsmith_auth"],
    lambda: pick(ALNUM, 22),
    [
        "flagsmith.init({ environmentID: '{v}' })",
        "curl https://edge.api.flagsmith.com/api/v1/flags/ -H 'X-Environment-Key: {v}'",
    ],
    "a Flagsmith client-side environment key, documented as non-secret",
)
benign(
    PK,
    S["pusher"],
    lambda: pick(HEX, 20),
    [
        "const pusher = new Pusher('{v}', { cluster: 'eu' });",
    ],
    "a Pusher app key: the client-side identifier, not the app secret",
)
benign(
    PK,
    S["paddle_client"],
    lambda: "live_" + pick(LOWER + DIGITS, 27),
    [
        "Paddle.Initialize({ token: '{v}' });",
    ],
    "a Paddle client-side token, made for use in the browser",
)
benign(
    PK,
    S["ssh_pub"],
    ed25519_public,
    [
        "ssh-ed25519 {v} deploy@ci",
    ],
    "an OpenSSH public key in authorized_keys",
)
benign(
    PK,
    S["gpg"],
    lambda: " ".join(pick("0123456789ABCDEF", 4) for _ in range(10)),
    [
        "pub   ed25519 2026-01-04 [SC]\n      Key fingerprint = {v}",
    ],
    "a PGP key fingerprint: public",
)
benign(
    PK,
    S["jwks"],
    lambda: pick(URLSAFE, 86),
    [
        '{"kty":"RSA","kid":"k1","use":"sig","e":"AQAB","n":"{v}"}',
    ],
    "the modulus of a public JWK from a JWKS endpoint",
)

PH = "look-alike: placeholders and references"
benign(
    PH,
    S["gh_actions"],
    ["NETLIFY_AUTH_TOKEN", "VERCEL_TOKEN", "CARGO_REGISTRY_TOKEN", "NUGET_API_KEY"],
    [
        "          token: ${{ secrets.{v} }}",
    ],
    "a reference to a CI secret, not its value",
)
benign(
    PH,
    S["vonage"],
    ["$VONAGE_API_SECRET", "$ACCOUNT_SECRET_VALUE", "${VONAGE_API_SECRET}"],
    [
        'curl -u "$VONAGE_API_KEY:{v}" https://api.nexmo.com/accounts/$ACCOUNT_ID/secrets',
    ],
    "an unexpanded shell variable, as in the vendor's snippet",
)
benign(
    PH,
    S["sendgrid"],
    ["<Your-API-Key-Here>", "Your.API.Key-HERE", "<your SendGrid API key>"],
    [
        "Authorization: Bearer {v}",
    ],
    "the documented placeholder of the vendor's example",
)
benign(
    PH,
    S["bws"],
    ["<your-access-token>", "$BWS_ACCESS_TOKEN", "${BWS_ACCESS_TOKEN}"],
    [
        "export BWS_ACCESS_TOKEN={v}",
    ],
    "a placeholder or variable for the access token",
)
benign(
    PH,
    S["infisical"],
    ["DATABASE_PASSWORD", "STRIPE_KEY", "JWT_SIGNING_KEY"],
    [
        "infisical secrets get {v} --env=prod --plain",
    ],
    "the name of a secret in the store, not its value",
)
benign(
    PH,
    S["pusher"],
    ["env('PUSHER_APP_SECRET')", "env('PUSHER_SECRET')", "getenv('PUSHER_APP_SECRET')"],
    [
        "'secret' => {v},",
    ],
    "reads the secret from the environment",
)
benign(
    PH,
    S["upstash"],
    ["UPSTASH_REDIS_REST_TOKEN", "process.env.UPSTASH_REDIS_REST_TOKEN"],
    [
        'const redis = new Redis({ url: "UPSTASH_REDIS_REST_URL", token: {v} });',
    ],
    "the vendor's placeholder or an environment reference",
)
benign(
    PH,
    S["dart"],
    ["PUB_TOKEN", "MY_PUB_SECRET", "PRIVATE_PUB_TOKEN"],
    [
        "$ dart pub token add https://pub.acme.test --env-var {v}",
    ],
    "names the variable that holds the token",
)
benign(
    PH,
    S["neon"],
    ["[password]", "<password>"],
    [
        "postgresql://[user]:{v}@[neon_hostname]/[dbname]?sslmode=verify-full",
    ],
    "the documented template of a connection string",
)

MA = "look-alike: masked values"
benign(
    MA,
    S["gh_actions"],
    ["***"],
    [
        "Run vercel deploy --prod --token {v}",
        "  NETLIFY_AUTH_TOKEN: {v}",
    ],
    "GitHub Actions masks secrets as ***",
)
benign(
    MA,
    S["heroku"],
    lambda: "HRKU-" + "*" * RNG.randint(8, 20),
    [
        "HEROKU_API_KEY={v}",
    ],
    "a masked key with only its prefix left",
)
benign(
    MA,
    S["bws"],
    ["-- REDACTED --", "[REDACTED]", "<redacted>"],
    [
        'const accessToken = "{v}";',
    ],
    "a value already redacted in the docs",
)
benign(
    MA,
    S["paddle"],
    lambda: "pdl_live_apikey_…" + pick(LOWER + DIGITS, 4),
    [
        "API key {v} (created 2026-10-02, last used today)",
    ],
    "a dashboard listing that shows only the last characters",
)
benign(
    MA,
    S["algolia"],
    ["<redacted>", "********"],
    [
        '{"value": "3f8a…", "description": "{v}", "acl": ["search"]}',
    ],
    "the description the API returns in place of another key's",
)

CN = "look-alike: code naming a secret"
benign(
    CN,
    S["linear"],
    ["LINEAR_API_KEY", "LINEAR_TOKEN"],
    [
        'api_key = os.environ["{v}"]',
        'if not os.getenv("{v}"):\n    raise SystemExit("set {v}")',
    ],
    "code that reads a secret by name",
)
benign(
    CN,
    S["pusher_swift"],
    ["encryptionMasterKey", "secret", "appSecret"],
    [
        "public let {v}: String",
    ],
    "a declaration of a field that will hold a secret",
)
benign(
    CN,
    S["auth0_rotate"],
    ["rotate_client_secret", "rotateClientSecret", "RotateSecret"],
    [
        "def {v}(client_id: str) -> None:",
        "await management.clients.{v}({ id: clientId });",
    ],
    "a function that names the secret it rotates",
)
benign(
    CN,
    S["elixir"],
    ["DATABASE_PASSWORD", "REPO_PASSWORD"],
    [
        'password: System.fetch_env!("{v}"),',
    ],
    "Elixir runtime config reading the password from the environment",
)
benign(
    CN,
    S["k8s_secret"],
    ["password", "api-key", "client-secret"],
    [
        "        valueFrom:\n          secretKeyRef:\n            name: app-secrets\n            key: {v}",
    ],
    "a reference to a key inside a Kubernetes Secret",
)
benign(
    CN,
    S["sqlcmd"],
    ["password_hash", "api_key_digest"],
    [
        "ALTER TABLE users ADD {v} VARBINARY(64) NOT NULL;",
    ],
    "a column named after a secret, with no value",
)


def main() -> None:
    out = Path(__file__).with_name("batch-g.jsonl")
    with out.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
