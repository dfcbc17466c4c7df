"""Build batch I of the held-apart redaction set (batch-i.jsonl), written blind.

The rules were not read while this file was written, and no row was run through them. Every shape
comes from a tool no earlier batch named, and each row keeps, in `source`, the page its shape is
from. 85 documentation pages were read for it, one per `source` URL, for 38 tools; where a page
shows only part of a shape, the rest follows what the tool documents. The tools: shipping, trading
and work APIs (Shippo, EasyPost, Alpaca, Pipedrive, Trello, Typeform, Dropbox, Twitch, Axiom,
Turso, Cloudinary, Bugsnag, Better Stack, Mailjet, Codefresh, Healthchecks.io, Pushover),
self-hosted applications' config (Strapi, Directus, Ghost, Hasura, Metabase, EdgeDB, Shuttle), CLIs
(PuTTY plink and pscp, Subversion, OpenShift oc, IBM cpd-cli, Hive beeline, Hasura CLI, cdsctl, the
Strapi, Directus, Ghost and Twitch CLIs), CI and deploy files (Buddy, Vela, OVH CDS, GoCD,
Codefresh, Kamal), webhooks (n8n, Healthchecks.io, Pushover, Better Stack, Mailjet), signing and
build tools (React Native, Cordova, Turborepo remote cache) and prose in other languages (Japanese,
Russian, German, Spanish, Chinese, French, Korean, Portuguese, Italian, Polish, Turkish, Dutch,
Swedish).

Every value is invented from a fixed seed: `python build_batch_i.py` rewrites batch-i.jsonl the
same way each time; `python build_batch_i.py --check` rebuilds it in memory, checks its rows
(keys, secret inside its context, distinct secrets, no placeholder as a secret, counts per
class) and that the file on disk is what the builder writes.
"""

# ruff: noqa: E501  (each context stays as it appears in a shell, file or log)

from __future__ import annotations

import base64
import json
import random
import re
import string
import sys
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
SYMBOLS = "!#%+-_.^~"

ROWS: list[dict[str, str]] = []

# The pages read, one constant each.
MAILJET = "https://docs.n8n.io/credentials/mailjet"
MAILJET_DART = "https://pub.dev/packages/mailjet"
MAILJET_RS = "https://docs.rs/crate/mailjet_client/latest/source/examples/simple_send_v3.rs"
PIPEDRIVE = "https://pipedrive.readme.io/docs/how-to-find-the-api-token"
PIPEDRIVE_POSTMAN = "https://pipedrive.readme.io/docs/run-pipedrive-api-in-postman-or-insomnia"
PIPEDRIVE_DE = (
    "https://docs.jitterbit.com/de/integration-studio/design/connectors/pipedrive/"
    "connection-details"
)
TRELLO = "https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/"
TRELLO_INTRO = "https://developer.atlassian.com/cloud/trello/guides/rest-api/api-introduction"
TRELLO_JS = "https://mrrefactoring.github.io/trello.js/guide/authentication"
TRELLO_JS_RU = "https://mrrefactoring.github.io/trello.js/ru/guide/authentication"
TRELLO_R = "https://rdrr.io/github/SymbolixAU/rtrello/man/trello.html"
SHIPPO = "https://docs.goshippo.com/docs/partner_integration/prereqs"
SHIPPO_QS = "https://docs.goshippo.com/docs/Guides_general/API_quickstart"
SHIPPO_AUTH = "https://docs.goshippo.com/docs/guides_general/authentication"
EASYPOST = "https://docs.easypost.com/docs/authentication"
EASYPOST_EX = "https://hexdocs.pm/ex_easypost/3.0.3/EasyPost.APIKey.html"
ALPACA = "https://docs.alpaca.markets/reference"
ALPACA_GS = "https://docs.alpaca.markets/docs/getting-started-with-trading-api"
ALPACA_RS = "https://docs.rs/crate/apca/latest/source/src/api/mod.rs"
DROPBOX = "https://riptutorial.com/dropbox-api/example/1369/listing-the-root-folder-via-curl"
DROPBOX_PHP = (
    "https://riptutorial.com/dropbox-api/example/28186/file-listing-using-php-and-curl-extension"
)
TWITCH_AUTH = "https://dev.twitch.tv/docs/authentication.md"
TWITCH_GS = "https://dev.twitch.tv/docs/api/get-started.md"
TWITCH_JA = "https://qiita.com/wol/items/599dea78c483ecffaee9"
TWITCH_HELIX = "https://twitch4j.github.io/rest-helix/"
TYPEFORM = "https://skills.sh/vm0-ai/vm0-skills/typeform"
TYPEFORM_JA = (
    "https://raw.githubusercontent.com/trocco-io/trocco-docs-md/refs/heads/main/trocco/"
    "connection-configuration-typeform.md"
)
TYPEFORM_FR = (
    "https://docs.gitguardian.com/fr/secrets-detection/secrets-detection-engine/detectors/"
    "specifics/typeform_api_token"
)
AXIOM = "https://axiom.co/docs/restapi/token"
AXIOM_INGEST = "https://axiom.co/docs/restapi/ingest"
AXIOM_API = "https://axiom.co/docs/restapi/introduction.md"
TURSO = "https://docs.turso.tech/sdk/authorization"
TURSO_ES = "https://docs.studiocms.dev/es/start-here/environment-variables"
SHUTTLE = "https://docs.shuttle.dev/integrations"
CLOUDINARY = "https://cloudinary.com/documentation/finding_your_credentials_tutorial"
CLOUDINARY_PHP = (
    "https://cloudinary.com/documentation/sdks/php/Cloudinary/Configuration/CloudConfig.html"
)
CLOUDINARY_DART = (
    "https://cloudinary.com/documentation/sdks/dart/url-gen/config_cloud_config/"
    "apiSecretKey-constant.html"
)
BUGSNAG_GO = "https://docs.bugsnag.com/platforms/go/configuration-options/"
BUGSNAG_NODE = "https://docs.bugsnag.com/platforms/nodejs/configuration-options/"
BUGSNAG_API = "https://docs.bugsnag.com/api/error-reporting"
BETTERSTACK = "https://betterstack.com/docs/logs/render/"
STRAPI_ENV = "https://docs.strapi.io/snippets/sample-env"
STRAPI_DOCKER = "https://docs.strapi.io/snippets/docker-env-table"
STRAPI_ADMIN = (
    "https://app.unpkg.com/create-strapi-app@5.33.3/files/templates/vanilla-js/config/admin.js"
)
DIRECTUS = (
    "https://github.com/directus/directus/blob/6c269691aa9d473c3c976d895524093c7b7ad9c6/"
    "docs/configuration/config-options.md"
)
GHOST = "https://gist.github.com/schneidmaster/824f0291c2b091bef0f7"
HASURA = "https://hasura.io/docs/latest/guides/docker-networking/"
HASURA_V1 = "https://hasura.io/docs/1.0/graphql/core/deployment/deployment-guides/docker.html"
METABASE_ENC = (
    "https://www.metabase.com/docs/v0.43/operations-guide/encrypting-database-details-at-rest"
)
METABASE_ENV = "https://www.metabase.com/docs/latest/operations-guide/environment-variables"
METABASE_SEC = (
    "https://www.metabase.com/docs/latest/installation-and-operation/"
    "security-best-practices-self-hosting"
)
EDGEDB = "https://docs.rs/edgedb-client/0.2.0/edgedb_client/struct.Builder.html"
EDGEDB_CRED = "https://docs.rs/crate/edgedb-tokio/0.5.1/source/tests/credentials1.json"
EDGEDB_KO = "https://mcpmarket.com/ko/server/edgedb"
PLINK = "https://linux.die.net/man/1/plink"
SVN = "https://riptutorial.com/svn/example/11384/using-a-password-protected-repository"
SVN_REF = "https://docs.huihoo.com/subversion/1.2/svn.ref.svn.c.checkout.html"
OC = "https://docs.openshift.com/container-platform/3.11/dev_guide/authentication.html"
CPD = "https://www.ibm.com/docs/SSQNUZ_4.7.x/cpd-cli/manage-login-to-ocp.html"
BEELINE = "https://blog.csdn.net/qq_41840884/article/details/102547343"
BEELINE_TC = "https://cloud.tencent.com/developer/article/2195590"
BUDDY = "https://buddy.works/docs/basics/secrets-encryption/yaml-encryption"
BUDDY_VARS = "https://buddy.works/docs/yaml/yaml-pipelines/yaml-actions/set-variables"
BUDDY_SECRETS = "https://www.buddy.works/docs/pipelines/handling-secrets"
VELA = "https://go-vela.github.io/docs/usage/examples/secrets_internal/"
VELA_TOUR = "https://go-vela.github.io/docs/tour/secrets"
CDS = "https://ovh.github.io/cds/docs/components/cdsctl/encrypt"
GOCD = "https://github.com/tomzo/gocd-yaml-config-plugin/issues/5"
CODEFRESH = "https://codefresh.io/docs/docs/integrations/codefresh-api"
CODEFRESH_SECRETS = "https://codefresh.io/docs/docs/integrations/secret-storage"
KAMAL = "https://smithery.ai/skills/protocollar/kamal"
KAMAL_JA = "https://zenn.dev/andhisan/articles/c6e80b1f0ddaac"
KAMAL_REGISTRY = "https://www.skills.sh/donnfelker/kamal-skills/registry"
N8N = "https://docs.n8n.io/integrations/builtin/core-nodes/n8n-nodes-base.webhook/common-issues/"
N8N_NODE = "https://docs.n8n.io/integrations/core-nodes/n8n-nodes-base.webhook/"
PUSHOVER = "https://pushover.net/api"
HEALTHCHECKS = "https://healthchecks.io/docs/slug_urls"
HEALTHCHECKS_API = "https://healthchecks.io/docs/http_api/"
REACT_NATIVE = "https://www.w3cschool.cn/doc_react_native/react_native-signed-apk-android.html"
NUMIC = "https://github.com/tobua/numic/blob/master/documentation/RELEASE.md"
CORDOVA = "https://gist.github.com/hdodov/b32bd2d293067106be30edd2ff3197c0"
TURBO = "https://github.com/penalosa/Turbo-R2-Archive"
TURBO_CACHE = "https://docs.memberjunction.org/v6.1/guides/turbo-remote-cache/"
PASSWD_DE = "https://wiki.ubuntuusers.de/passwd/a/export/html/"
LPI_FR = "https://learning.lpi.org/fr/learning-materials/010-160/5/5.2/5.2_01/"


def pick(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def hexs(n: int) -> str:
    return pick(HEX, n)


def uid() -> str:
    return str(uuid.UUID(int=RNG.getrandbits(128), version=4))


def password(n: int = 16) -> str:
    """A password as a generator makes it: each character class present, in random order."""
    chars = [RNG.choice(UPPER), RNG.choice(LOWER), RNG.choice(DIGITS), RNG.choice(SYMBOLS)]
    chars += [RNG.choice(ALNUM + SYMBOLS) for _ in range(n - 4)]
    RNG.shuffle(chars)
    return "".join(chars)


def b64(n: int) -> str:
    return base64.b64encode(RNG.randbytes(n)).decode()


def b64url(n: int) -> str:
    return base64.urlsafe_b64encode(RNG.randbytes(n)).decode().rstrip("=")


def turso_jwt() -> str:
    """A Turso database token: an EdDSA JWT whose body names the access and the database."""
    head = base64.urlsafe_b64encode(b'{"alg":"EdDSA","typ":"JWT"}').decode().rstrip("=")
    claims = {"a": "rw", "iat": RNG.randrange(1_700_000_000, 1_780_000_000), "id": uid()}
    body = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode())
    return f"{head}.{body.decode().rstrip('=')}.{b64url(64)}"


def basic(user: str, secret: str) -> str:
    return base64.b64encode(f"{user}:{secret}".encode()).decode()


# Vendor token shapes, each as its tool documents it.
def shippo(live: bool = True) -> str:
    return ("shippo_live_" if live else "shippo_test_") + hexs(40)


def easypost(live: bool = True) -> str:
    return ("EZAK" if live else "EZTK") + hexs(54)


def alpaca_key_id() -> str:
    return "PK" + pick(UPPER + DIGITS, 18)


def alpaca_secret() -> str:
    return pick(ALNUM, 40)


def trello_token() -> str:
    return "ATTA" + hexs(64) + pick("0123456789ABCDEF", 8)


def typeform() -> str:
    return "tfp_" + hexs(40)


def dropbox() -> str:
    return "sl.B" + pick(URLSAFE, 136)


def twitch() -> str:
    return pick(LOWER + DIGITS, 30)


def axiom(personal: bool = False) -> str:
    return ("xapt-" if personal else "xaat-") + uid()


def cloudinary_secret() -> str:
    return pick(URLSAFE, 27)


def cloudinary_key() -> str:
    return str(RNG.randrange(100_000_000_000_000, 999_999_999_999_999))


def codefresh() -> str:
    return hexs(24) + "." + hexs(32)


def pushover(kind: str = "a") -> str:
    return kind + pick(LOWER + DIGITS, 29)


def openshift() -> str:
    return "sha256~" + b64url(32)


def strapi_secret() -> str:
    return b64(16)


def directus_secret() -> str:
    return pick(URLSAFE, 32)


def strapi_api_token() -> str:
    return hexs(256)


def secret(cls: str, context: str, value: str, source: str) -> None:
    ROWS.append(
        {"class": cls, "context": context, "expect": "secret", "secret": value, "source": source}
    )


def benign(cls: str, context: str, value: str, source: str) -> None:
    ROWS.append(
        {
            "class": cls,
            "context": context,
            "expect": "benign",
            "value": value,  # the look-alike that must come through unchanged
            "reason": "a look-alike in the shape its tool documents",
            "source": source,
        }
    )


def vendor_tokens() -> None:
    c = "vendor token"
    t = shippo()
    secret(c, f'export SHIPPO_API_TOKEN="{t}"', t, SHIPPO)
    t = shippo(live=False)
    secret(c, f"SHIPPO_TOKEN={t}\nSHIPPO_API_VERSION=2018-02-08", t, SHIPPO_AUTH)
    t = shippo()
    secret(
        c,
        f"Swapped the test token for the live one ({t}) so the label purchase goes through.",
        t,
        SHIPPO,
    )
    t = easypost()
    secret(c, f"export EASYPOST_API_KEY={t}", t, EASYPOST)
    t = easypost(live=False)
    secret(c, f'{{"easypost": {{"mode": "test", "api_key": "{t}"}}}}', t, EASYPOST)
    t = easypost()
    secret(c, f'config :ex_easypost, api_key: "{t}"', t, EASYPOST_EX)
    kid, t = alpaca_key_id(), alpaca_secret()
    secret(c, f"APCA_API_KEY_ID={kid}\nAPCA_API_SECRET_KEY={t}", t, ALPACA)
    kid, t = alpaca_key_id(), alpaca_secret()
    secret(
        c,
        f"$ alpaca-cli configure\nKey ID: {kid}\nSecret key: {t}\nSaved to ~/.alpaca/config.json",
        t,
        ALPACA,
    )
    t = alpaca_secret()
    secret(c, f'ALPACA_SECRET_KEY = "{t}"  # paper account', t, ALPACA)
    t = hexs(40)
    secret(c, f"PIPEDRIVE_API_TOKEN={t}", t, PIPEDRIVE)
    t = hexs(40)
    secret(
        c,
        f"GET https://acme.pipedrive.com/api/v1/deals?api_token={t}&limit=50 -> 200",
        t,
        PIPEDRIVE,
    )
    t = hexs(40)
    secret(c, f'pipedrive:\n  company_domain: acme\n  api_token: "{t}"', t, PIPEDRIVE)
    k, t = hexs(32), trello_token()
    secret(c, f"TRELLO_KEY={k}\nTRELLO_TOKEN={t}", t, TRELLO_JS)
    k, t = hexs(32), trello_token()
    secret(
        c,
        f"https://api.trello.com/1/members/me/boards?key={k}&token={t}",
        t,
        TRELLO,
    )
    t = trello_token()
    secret(c, f'{{"trello": {{"token": "{t}", "expiration": "never"}}}}', t, TRELLO)
    t = typeform()
    secret(c, f"export TYPEFORM_TOKEN={t}", t, TYPEFORM)
    t = typeform()
    secret(c, f'typeform_personal_token = "{t}"', t, TYPEFORM)
    t = typeform()
    secret(
        c, f"- name: typeform\n  token: {t}\n  scopes: [forms:read, responses:read]", t, TYPEFORM
    )
    t = dropbox()
    secret(c, f"DROPBOX_ACCESS_TOKEN={t}", t, DROPBOX)
    t = dropbox()
    secret(c, f'{{"access_token": "{t}", "token_type": "bearer", "expires_in": 14400}}', t, DROPBOX)
    t = pick(URLSAFE, 11)
    r = "".join(pick(URLSAFE, 60))
    t = t + "AAAAAAAAAA" + r
    secret(c, f'{{"refresh_token": "{t}", "uid": "{RNG.randrange(10**8, 10**9)}"}}', t, DROPBOX)
    t = twitch()
    secret(
        c, f'{{"access_token":"{t}","expires_in":5011271,"token_type":"bearer"}}', t, TWITCH_AUTH
    )
    t = twitch()
    secret(c, f"TWITCH_CLIENT_SECRET={t}", t, TWITCH_GS)
    t = twitch()
    secret(c, f"PASS oauth:{t}\nNICK streamhelper_bot\nJOIN #acmegames", t, TWITCH_AUTH)
    t = axiom()
    secret(c, f"AXIOM_TOKEN={t}\nAXIOM_DATASET=vercel-logs", t, AXIOM)
    t = axiom(personal=True)
    secret(c, f"export AXIOM_TOKEN={t}\nexport AXIOM_ORG_ID=acme-x3kd", t, AXIOM_INGEST)
    t = axiom()
    secret(c, f'{{"id": "{uid()}", "name": "otel-ingest", "token": "{t}"}}', t, AXIOM)
    t = turso_jwt()
    secret(c, f"$ turso db tokens create shop-prod\n{t}", t, TURSO)
    t = turso_jwt()
    secret(c, f"TURSO_AUTH_TOKEN={t}", t, TURSO)
    t = cloudinary_secret()
    secret(c, f"CLOUDINARY_API_SECRET={t}", t, CLOUDINARY)
    t = cloudinary_secret()
    secret(
        c,
        f"cloud_name: acme-media\napi_key: '{cloudinary_key()}'\napi_secret: '{t}'",
        t,
        CLOUDINARY,
    )
    t = cloudinary_secret()
    secret(c, f"API Secret   {t}   (created 2026-03-14, primary)", t, CLOUDINARY)
    t = hexs(32)
    secret(c, f"BUGSNAG_API_KEY={t}", t, BUGSNAG_GO)
    t = hexs(32)
    secret(c, f"bugsnag-cli upload android-proguard --api-key={t} app/build", t, BUGSNAG_API)
    t = pick(ALNUM, 24)
    secret(
        c,
        f"Log Endpoint: s1457221.eu-nbg-2.betterstackdata.com:6514\nToken:        {t}",
        t,
        BETTERSTACK,
    )
    t = pick(ALNUM, 24)
    secret(c, f"BETTER_STACK_SOURCE_TOKEN={t}", t, BETTERSTACK)
    k, t = hexs(32), hexs(32)
    secret(c, f"MJ_APIKEY_PUBLIC={k}\nMJ_APIKEY_PRIVATE={t}", t, MAILJET)
    k, t = hexs(32), hexs(32)
    secret(c, f"export MAILJET_API_KEY={k}\nexport MAILJET_SECRET_KEY={t}", t, MAILJET_RS)
    t = codefresh()
    secret(
        c, f"$ codefresh auth create-context --api-key {t}\nContext: default created", t, CODEFRESH
    )
    t = codefresh()
    secret(c, f"CF_API_KEY={t}", t, CODEFRESH)
    t = pick(ALNUM, 32)
    secret(c, f"HC_API_KEY={t}\nHC_API=https://healthchecks.io/api/v3", t, HEALTHCHECKS_API)
    t = pushover()
    secret(c, f"PUSHOVER_APP_TOKEN={t}", t, PUSHOVER)
    t = pushover()
    secret(
        c, f'{{"token": "{t}", "user": "{pushover("u")}", "message": "backup done"}}', t, PUSHOVER
    )
    t = strapi_api_token()
    secret(c, f"STRAPI_API_TOKEN={t}", t, STRAPI_ENV)
    t = directus_secret()
    secret(c, f'{{"id": "{uid()}", "email": "ci@acme.io", "token": "{t}"}}', t, DIRECTUS)


def config_files() -> None:
    c = "config file"
    keys = [strapi_secret() for _ in range(4)]
    k = ",".join(keys)
    secret(c, f"# Secrets\nAPP_KEYS={k}\nAPI_TOKEN_SALT=", k, STRAPI_ENV)
    t = strapi_secret()
    secret(c, f"API_TOKEN_SALT={t}\nADMIN_JWT_SECRET=", t, STRAPI_ENV)
    t = strapi_secret()
    secret(c, f"ADMIN_JWT_SECRET={t}", t, STRAPI_ENV)
    t = strapi_secret()
    secret(c, f"TRANSFER_TOKEN_SALT={t}\nENCRYPTION_KEY=", t, STRAPI_ENV)
    t = strapi_secret()
    secret(c, f"JWT_SECRET={t}", t, STRAPI_DOCKER)
    t = strapi_secret()
    secret(c, f"ENCRYPTION_KEY={t}\n# Database\nDATABASE_CLIENT=postgres", t, STRAPI_ENV)
    t = password(18)
    secret(
        c,
        f"DATABASE_HOST=db.internal\nDATABASE_NAME=strapi\nDATABASE_USERNAME=strapi\n"
        f"DATABASE_PASSWORD={t}\nDATABASE_SSL=true",
        t,
        STRAPI_ENV,
    )
    t = directus_secret()
    secret(c, f'SECRET="{t}"\nDB_CLIENT="pg"', t, DIRECTUS)
    t = password(20)
    secret(
        c, f'DB_HOST="localhost"\nDB_PORT=5432\nDB_USER="directus"\nDB_PASSWORD="{t}"', t, DIRECTUS
    )
    t = password(14)
    secret(c, f"ADMIN_EMAIL: admin@acme.io\nADMIN_PASSWORD: {t}", t, DIRECTUS)
    t = password(16)
    secret(c, f'{{\n  "PORT": 8055,\n  "EMAIL_SMTP_PASSWORD": "{t}"\n}}', t, DIRECTUS)
    t = directus_secret()
    secret(
        c, f"module.exports = function (env) {{\n  return {{ SECRET: '{t}' }};\n}};", t, DIRECTUS
    )
    t = password(16)
    secret(
        c,
        f'"database": {{\n  "client": "mysql",\n  "connection": {{\n    "host": "127.0.0.1",\n'
        f'    "user": "ghost_prod",\n    "password": "{t}",\n    "database": "ghost_prod"\n  }}\n}}',
        t,
        GHOST,
    )
    t = password(22)
    secret(
        c,
        f'"mail": {{"transport": "SMTP", "options": {{"service": "Mailgun", "auth": '
        f'{{"user": "postmaster@mg.acme.io", "pass": "{t}"}}}}}}',
        t,
        GHOST,
    )
    t = password(12)
    secret(c, f"auth: {{\n  user: 'blog@acme.io',\n  pass: '{t}'\n}}", t, GHOST)
    t = password(16)
    secret(c, f'    "password": "{t}",\n    "database": "ghost_staging",', t, GHOST)
    t = pick(ALNUM, 40)
    secret(c, f"HASURA_GRAPHQL_ADMIN_SECRET={t}\nHASURA_GRAPHQL_ENABLE_CONSOLE=false", t, HASURA)
    t = b64(48)
    secret(c, f'HASURA_GRAPHQL_JWT_SECRET=\'{{"type":"HS256","key":"{t}"}}\'', t, HASURA)
    t = pick(ALNUM + "-_", 36)
    secret(c, f"      HASURA_GRAPHQL_ADMIN_SECRET: {t}", t, HASURA)
    t = pick(ALNUM, 32)
    secret(
        c,
        f"version: 3\nendpoint: https://gql.acme.io\nadmin_secret: {t}\nmetadata_directory: metadata",
        t,
        HASURA,
    )
    t = password(18)
    secret(
        c,
        f"export MB_DB_TYPE=postgres\nexport MB_DB_USER=metabase\nexport MB_DB_PASS={t}",
        t,
        METABASE_ENV,
    )
    t = b64(32)
    secret(c, f'MB_ENCRYPTION_SECRET_KEY="{t}"', t, METABASE_ENC)
    t = b64(32)
    secret(c, f"MB_SESSION_SECRET_KEY={t}", t, METABASE_SEC)
    t = b64(32)
    secret(
        c,
        f"      MB_ENCRYPTION_SECRET_KEY: {t}\n      MB_SITE_URL: https://bi.acme.io",
        t,
        METABASE_ENC,
    )
    t = password(20)
    secret(c, f'$env:MB_DB_PASS="{t}"\njava -jar metabase.jar', t, METABASE_ENV)
    t = turso_jwt()
    secret(
        c,
        f"# Secrets.toml\nTURSO_ADDR = 'libsql://shop-acme.turso.io'\nTURSO_TOKEN = '{t}'",
        t,
        SHUTTLE,
    )
    t = turso_jwt()
    secret(c, f'# Secrets.dev.toml\nTURSO_DB_TOKEN = "{t}"', t, SHUTTLE)
    t = password(24)
    secret(
        c,
        f"# .kamal/secrets\nKAMAL_REGISTRY_PASSWORD={t}\nRAILS_MASTER_KEY=$(cat config/master.key)",
        t,
        KAMAL,
    )
    t = hexs(32)
    secret(c, f"RAILS_MASTER_KEY={t}", t, KAMAL)
    t = password(20)
    secret(
        c,
        f"# .env.kamal.staging\nKAMAL_REGISTRY_SERVER=registry.acme.io\nKAMAL_REGISTRY_PASSWORD={t}",
        t,
        KAMAL_JA,
    )
    t = axiom(personal=True)
    secret(
        c,
        f'[deployments.acme]\nurl = "https://api.axiom.co"\ntoken = "{t}"\norg_id = "acme-x3kd"',
        t,
        AXIOM_API,
    )
    t = axiom()
    secret(c, f"[deployments.staging]\ntoken = '{t}'", t, AXIOM_API)
    t = pick(ALNUM, 24)
    secret(
        c,
        f'{{\n  "port": 10702,\n  "user": "edgedb",\n  "password": "{t}",\n  "database": "edgedb"\n}}',
        t,
        EDGEDB_CRED,
    )
    t = pick(ALNUM, 24)
    secret(c, f"EDGEDB_USER=app\nEDGEDB_PASSWORD={t}\nEDGEDB_HOST=db.acme.internal", t, EDGEDB)
    t = cloudinary_secret()
    secret(
        c,
        f"Configuration::instance(['cloud' => ['cloud_name' => 'acme', 'api_key' => "
        f"'{cloudinary_key()}', 'api_secret' => '{t}']]);",
        t,
        CLOUDINARY_PHP,
    )
    t = cloudinary_secret()
    secret(c, f"cloudinary:\n  cloud_name: acme-prod\n  api_secret: {t}", t, CLOUDINARY_PHP)
    t = hexs(32)
    secret(
        c,
        f"# .env.production\nBUGSNAG_API_KEY={t}\nBUGSNAG_RELEASE_STAGE=production",
        t,
        BUGSNAG_GO,
    )
    t = twitch()
    secret(c, f"TWITCH_CLIENT_ID={twitch()}\nTWITCH_CLIENT_SECRET={t}", t, TWITCH_GS)
    t = twitch()
    secret(c, f"[twitch]\nclient_id = {twitch()}\nclient_secret = {t}", t, TWITCH_HELIX)
    t = pushover()
    secret(c, f"# ~/.config/pushover.conf\nAPP_TOKEN={t}\nUSER_KEY={pushover('u')}", t, PUSHOVER)
    t = alpaca_secret()
    secret(c, f'APCA-API-KEY-ID = "{alpaca_key_id()}"\nAPCA-API-SECRET-KEY = "{t}"', t, ALPACA)
    t = alpaca_secret()
    secret(c, f"[paper]\nkey_id = {alpaca_key_id()}\nsecret_key = {t}", t, ALPACA)
    t = b64(32)
    secret(c, f"N8N_ENCRYPTION_KEY={t}\nWEBHOOK_URL=https://n8n.acme.io/", t, N8N_NODE)
    t = codefresh()
    secret(
        c,
        f"# ~/.cfconfig\ncontexts:\n  default:\n    type: APIKey\n    name: default\n"
        f"    url: https://g.codefresh.io\n    token: {t}\ncurrent-context: default",
        t,
        CODEFRESH,
    )
    t = pick(ALNUM, 24)
    secret(
        c,
        f'[sinks.better_stack]\ntype = "http"\nuri = "https://in.logs.betterstack.com/"\n'
        f'auth.strategy = "bearer"\nauth.token = "{t}"',
        t,
        BETTERSTACK,
    )


def cli_flags() -> None:
    c = "cli password flag"
    t = password(14)
    secret(c, f"plink -batch -ssh -l deploy -pw {t} build01.acme.lan uptime", t, PLINK)
    t = password(12)
    secret(c, f'plink.exe -pw "{t}" admin@10.20.0.14 "systemctl restart nginx"', t, PLINK)
    t = password(16)
    secret(c, f"C:\\> plink -P 2222 -l backup -pw {t} nas.local -m cleanup.txt", t, PLINK)
    t = password(10)
    secret(c, f"echo y | plink -ssh root@192.168.1.1 -pw {t} exit", t, PLINK)
    t = password(15)
    secret(c, f"pscp -pw {t} release.zip deploy@files.acme.lan:/srv/releases/", t, PLINK)
    t = password(12)
    secret(
        c,
        f"$ svn checkout https://svn.acme.io/repos/app/trunk --username joe --password {t}",
        t,
        SVN,
    )
    t = password(14)
    secret(
        c,
        f"svn co --non-interactive --no-auth-cache --username ci --password '{t}' "
        "https://svn.acme.io/repos/tools/trunk tools",
        t,
        SVN_REF,
    )
    t = password(11)
    secret(c, f"svn commit -m 'bump version' --username release --password {t}", t, SVN_REF)
    t = password(15)
    secret(
        c,
        f"svn info https://svn.acme.io/repos/app --username ci --password {t} --trust-server-cert",
        t,
        SVN_REF,
    )
    t = password(13)
    secret(c, f'svn export --force --password="{t}" --username build {uid()[:8]} out/', t, SVN_REF)
    t = password(14)
    secret(c, f"$ oc login -u developer -p {t} https://api.ocp.acme.io:6443", t, OC)
    t = password(16)
    secret(
        c,
        f"oc login --username=kubeadmin --password={t} --server=https://api.crc.testing:6443",
        t,
        OC,
    )
    t = password(12)
    secret(c, f"oc login -u=admin -p='{t}' -s=https://master.acme.lan:8443 -n ops", t, OC)
    t = openshift()
    secret(c, f"oc login --token={t} --server=https://api.ocp.acme.io:6443", t, OC)
    t = openshift()
    secret(
        c, f"$ oc login https://api.c1.acme.io:6443 --token {t} --insecure-skip-tls-verify", t, OC
    )
    t = password(18)
    secret(
        c,
        f"cpd-cli manage login-to-ocp --username=ocpadmin --password={t} "
        "--server=https://api.ocp.acme.io:6443",
        t,
        CPD,
    )
    t = password(12)
    secret(c, f"beeline -u jdbc:hive2://hs2.acme.lan:10000/default -n etl -p {t}", t, BEELINE)
    t = password(14)
    secret(
        c,
        f"beeline -n analyst -p '{t}' -u jdbc:hive2://10.0.3.21:10000/sales -e 'show tables'",
        t,
        BEELINE_TC,
    )
    t = password(10)
    secret(
        c,
        f'$ beeline -u "jdbc:hive2://hive.acme.io:10001/;transportMode=http" -n hdfs -p {t} -f daily.hql',
        t,
        BEELINE,
    )
    t = pick(ALNUM, 32)
    secret(c, f"hasura migrate apply --endpoint https://gql.acme.io --admin-secret {t}", t, HASURA)
    t = pick(ALNUM, 40)
    secret(c, f"hasura metadata export --admin-secret={t} --project ./hasura", t, HASURA)
    t = pick(ALNUM, 28)
    secret(c, f"hasura console --endpoint http://localhost:8080 --admin-secret '{t}'", t, HASURA)
    t = password(18)
    secret(c, f"$ cdsctl encrypt SHOP db-password {t}\ndb-password: 01{hexs(30)}", t, CDS)
    t = password(20)
    secret(c, f"cdsctl encrypt MYPROJECT registry-token '{t}'", t, CDS)
    t = password(16)
    secret(c, f"java -DMB_DB_PASS={t} -DMB_DB_USER=metabase -jar metabase.jar", t, METABASE_ENV)
    t = password(16)
    secret(
        c,
        f"docker run -d -p 3000:3000 -e MB_DB_PASS='{t}' --name metabase metabase/metabase",
        t,
        METABASE_ENV,
    )
    k, t = twitch(), twitch()
    secret(c, f"twitch configure --client-id {k} --client-secret {t}", t, TWITCH_GS)
    k, t = twitch(), twitch()
    secret(c, f"twitch token -u -s 'chat:read' --client-id={k} --client-secret={t}", t, TWITCH_AUTH)
    t = password(14)
    secret(
        c,
        f"npx strapi admin:create-user --firstname=Ops --email=ops@acme.io --password={t}",
        t,
        STRAPI_DOCKER,
    )
    t = password(16)
    secret(
        c,
        f"npm run strapi admin:reset-user-password -- --email=ops@acme.io --password '{t}'",
        t,
        STRAPI_DOCKER,
    )
    t = password(14)
    secret(
        c,
        f"npx directus users create --email admin@acme.io --password {t} --role {uid()}",
        t,
        DIRECTUS,
    )
    t = password(12)
    secret(c, f"npx directus users passwd --email editor@acme.io --password '{t}'", t, DIRECTUS)
    t = password(16)
    secret(
        c,
        f"ghost install --url https://blog.acme.io --db mysql --dbhost localhost --dbuser ghost "
        f"--dbpass {t} --dbname ghost_prod",
        t,
        GHOST,
    )
    t = password(14)
    secret(c, f"ghost config --dbpass '{t}' --no-prompt", t, GHOST)
    t = password(12)
    secret(
        c,
        f"cordova run android --release -- --keystore=shop.keystore --storePassword={t} --alias=shop",
        t,
        CORDOVA,
    )


def source_literals() -> None:
    c = "source literal"
    t = hexs(32)
    secret(c, f'bugsnag.Configure(bugsnag.Configuration{{\n\tAPIKey: "{t}",\n}})', t, BUGSNAG_GO)
    t = hexs(32)
    secret(c, f"Bugsnag.start({{ apiKey: '{t}', appVersion: '2.4.1' }})", t, BUGSNAG_NODE)
    t = shippo()
    secret(c, f'shippo_sdk = Shippo(api_key_header="ShippoToken {t}")', t, SHIPPO_QS)
    t = easypost()
    secret(c, f'client = easypost.EasyPostClient("{t}")', t, EASYPOST)
    t = easypost()
    secret(c, f'EasyPost.api_key = "{t}"', t, EASYPOST)
    t = alpaca_secret()
    secret(c, f'trading_client = TradingClient("{alpaca_key_id()}", "{t}", paper=True)', t, ALPACA)
    t = alpaca_secret()
    secret(
        c,
        f'var client = Environments.Paper.GetAlpacaTradingClient(new SecretKey("{alpaca_key_id()}", "{t}"));',
        t,
        ALPACA,
    )
    t = dropbox()
    secret(c, f'dbx = dropbox.Dropbox("{t}")\ndbx.users_get_current_account()', t, DROPBOX)
    t = dropbox()
    secret(
        c,
        f'$headers = array("Authorization: Bearer {t}", "Content-Type: application/json");',
        t,
        DROPBOX_PHP,
    )
    t = trello_token()
    secret(
        c,
        f"const trello = createTrelloClient({{\n  apiKey: '{hexs(32)}',\n  apiToken: '{t}',\n}});",
        t,
        TRELLO_JS,
    )
    t = trello_token()
    secret(c, f'trello <- trello(key = "{hexs(32)}", token = "{t}")', t, TRELLO_R)
    k, t = hexs(32), hexs(32)
    secret(
        c, f'MailJet mailJet = MailJet(\n  apiKey: "{k}",\n  secretKey: "{t}",\n);', t, MAILJET_DART
    )
    k, t = hexs(32), hexs(32)
    secret(
        c,
        f'let client = MailjetClientBuilder::new(SecretString::from("{k}"), '
        f'SecretString::from("{t}")).build()?;',
        t,
        MAILJET_RS,
    )
    t = turso_jwt()
    secret(
        c,
        f'const db = createClient({{\n  url: "libsql://shop-acme.turso.io",\n  authToken: "{t}",\n}});',
        t,
        TURSO,
    )
    t = cloudinary_secret()
    secret(
        c,
        f"cloudinary.v2.config({{ cloud_name: 'acme', api_key: '{cloudinary_key()}', api_secret: '{t}' }});",
        t,
        CLOUDINARY,
    )
    t = twitch()
    secret(c, f'val credential = OAuth2Credential("twitch", "{t}")', t, TWITCH_HELIX)
    t = twitch()
    secret(
        c,
        f"const twitchApi = new TwitchHelix({{ clientId: '{twitch()}', clientSecret: '{t}' }})",
        t,
        TWITCH_HELIX,
    )
    t = axiom()
    secret(c, f"const axiom = new Axiom({{ token: '{t}', orgId: 'acme-x3kd' }});", t, AXIOM_INGEST)
    t = pushover()
    secret(c, f'po := pushover.New("{t}")', t, PUSHOVER)
    t = hexs(40)
    secret(c, f'defaultClient.authentications.api_key.apiKey = "{t}";', t, PIPEDRIVE)


def http_headers() -> None:
    c = "http auth header"
    t = shippo()
    secret(c, f"Authorization: ShippoToken {t}", t, SHIPPO)
    t = shippo(live=False)
    secret(
        c,
        f'curl https://api.goshippo.com/addresses/ \\\n   -H "Authorization: ShippoToken {t}" \\\n   -d name="Shawn Ippotle"',
        t,
        SHIPPO_QS,
    )
    t = alpaca_secret()
    secret(
        c,
        f'curl -X GET \\\n    -H "APCA-API-KEY-ID: {alpaca_key_id()}" \\\n    -H "APCA-API-SECRET-KEY: {t}" \\\n    https://paper-api.alpaca.markets/v2/account',
        t,
        ALPACA,
    )
    t = alpaca_secret()
    secret(c, f"> APCA-API-SECRET-KEY: {t}", t, ALPACA)
    t = twitch()
    secret(
        c,
        f"curl -H 'Client-ID: {twitch()}' \\\n-H 'Authorization: Bearer {t}' \\\n-X GET 'https://api.twitch.tv/helix/streams?game_id=33214'",
        t,
        TWITCH_JA,
    )
    t = twitch()
    secret(c, f"Authorization: OAuth {t}", t, TWITCH_AUTH)
    t = dropbox()
    secret(
        c,
        f'curl -X POST https://api.dropboxapi.com/2/files/list_folder \\\n--header "Authorization: Bearer {t}" \\\n--header "Content-Type: application/json"',
        t,
        DROPBOX,
    )
    t = dropbox()
    secret(
        c, f"> POST /2/users/get_current_account HTTP/1.1\n> Authorization: Bearer {t}", t, DROPBOX
    )
    t = axiom()
    secret(
        c,
        f"curl -X 'POST' 'https://api.axiom.co/v1/datasets/web/ingest' \\\n  -H 'Authorization: Bearer {t}' \\\n  -H 'Content-Type: application/json'",
        t,
        AXIOM_API,
    )
    t = axiom(personal=True)
    secret(c, f"Authorization: Bearer {t}\nX-Axiom-Org-Id: acme-x3kd", t, AXIOM)
    t = typeform()
    secret(c, f'curl https://api.typeform.com/forms -H "Authorization: Bearer {t}"', t, TYPEFORM)
    t = hexs(40)
    secret(c, f"x-api-token: {t}", t, PIPEDRIVE_POSTMAN)
    t = pick(ALNUM, 24)
    secret(
        c,
        f"curl -X POST https://in.logs.betterstack.com -H 'Authorization: Bearer {t}' -d '{{\"message\":\"up\"}}'",
        t,
        BETTERSTACK,
    )
    t = turso_jwt()
    secret(
        c,
        f"POST /v2/pipeline HTTP/1.1\nHost: shop-acme.turso.io\nAuthorization: Bearer {t}",
        t,
        TURSO,
    )
    t = codefresh()
    secret(c, f'curl -H "Authorization: {t}" https://g.codefresh.io/api/builds', t, CODEFRESH)
    t = hexs(32)
    secret(c, f"Bugsnag-Api-Key: {t}\nBugsnag-Payload-Version: 5", t, BUGSNAG_API)


def ci_yaml() -> None:
    c = "ci and yaml"
    t = password(16)
    secret(
        c,
        f'- action: "Upload files to prod"\n  type: "SFTP"\n  host: "files.acme.io"\n  login: "deploy"\n  password: "{t}"',
        t,
        BUDDY,
    )
    t = password(18)
    secret(
        c, f'variables:\n- key: "DB_PASSWORD"\n  value: "{t}"\n  encrypted: false', t, BUDDY_VARS
    )
    t = pick(ALNUM, 36)
    secret(
        c,
        f'  - action: "Notify"\n    type: "HTTP"\n    headers:\n      X-Deploy-Key: "{t}"',
        t,
        BUDDY_SECRETS,
    )
    t = password(16)
    secret(
        c,
        f"steps:\n  - name: publish\n    image: target/vela-kaniko\n    parameters:\n      registry: index.docker.io\n      username: acmebot\n      password: {t}",
        t,
        VELA_TOUR,
    )
    t = password(20)
    secret(c, f'    environment:\n      DOCKER_PASSWORD: "{t}"', t, VELA)
    t = password(14)
    secret(c, f"name: staging\nvalues:\n  db-password:\n    type: password\n    value: {t}", t, CDS)
    t = password(22)
    secret(c, f'  registry-password:\n    type: password\n    value: "{t}"', t, CDS)
    t = password(16)
    secret(
        c,
        f"pipelines:\n  deploy:\n    environment_variables:\n      DEPLOY_USER: ci\n      DEPLOY_PASSWORD: {t}",
        t,
        GOCD,
    )
    t = password(18)
    secret(c, f"    environment_variables:\n      NEXUS_PASSWORD: '{t}'", t, GOCD)
    t = codefresh()
    secret(
        c,
        f"steps:\n  trigger_e2e:\n    image: codefresh/cli\n    commands:\n      - codefresh auth create-context --api-key {t}",
        t,
        CODEFRESH,
    )
    t = password(16)
    secret(
        c,
        f"  push_image:\n    type: push\n    registry: acme-harbor\n    credentials:\n      username: robot$ci\n      password: {t}",
        t,
        CODEFRESH_SECRETS,
    )
    t = password(24)
    secret(c, f"registry:\n  server: ghcr.io\n  username: acmebot\n  password: {t}", t, KAMAL)
    t = hexs(32)
    secret(
        c,
        f"env:\n  clear:\n    RAILS_ENV: production\n  secret:\n    - RAILS_MASTER_KEY\n# RAILS_MASTER_KEY={t}",
        t,
        KAMAL,
    )
    t = password(18)
    secret(
        c,
        f"accessories:\n  db:\n    image: postgres:16\n    env:\n      clear:\n        POSTGRES_PASSWORD: {t}",
        t,
        KAMAL_REGISTRY,
    )
    t = password(16)
    secret(
        c,
        f"  - name: db-migrate\n    image: hasura/graphql-engine:v2.36.0.cli-migrations-v3\n    environment:\n      HASURA_GRAPHQL_ADMIN_SECRET: {t}",
        t,
        HASURA,
    )
    t = b64(32)
    secret(
        c,
        f'  metabase:\n    image: metabase/metabase:v0.50.3\n    environment:\n      MB_ENCRYPTION_SECRET_KEY: "{t}"',
        t,
        METABASE_ENC,
    )


def connection_strings() -> None:
    c = "connection string"
    t = turso_jwt()
    secret(c, f"libsql://shop-acme.turso.io?authToken={t}", t, TURSO)
    t = turso_jwt()
    secret(
        c, f"DATABASE_URL=libsql://analytics-acme.aws-eu-west-1.turso.io?authToken={t}", t, SHUTTLE
    )
    t = password(16).replace("%", "").replace("#", "")
    secret(c, f"HASURA_GRAPHQL_DATABASE_URL: postgres://hasura:{t}@postgres:5432/hasura", t, HASURA)
    t = pick(ALNUM, 20)
    secret(
        c,
        f"-e HASURA_GRAPHQL_DATABASE_URL=postgres://admin:{t}@db.acme.lan:5432/my-db \\",
        t,
        HASURA_V1,
    )
    t = pick(ALNUM, 24)
    secret(c, f"EDGEDB_DSN=edgedb://app:{t}@db.acme.internal:5656/main", t, EDGEDB)
    t = pick(ALNUM, 24)
    secret(c, f"edgedb://edgedb:{t}@localhost:10702/edgedb?tls_security=insecure", t, EDGEDB)
    k, t = cloudinary_key(), cloudinary_secret()
    secret(c, f"CLOUDINARY_URL=cloudinary://{k}:{t}@acme-media", t, CLOUDINARY)
    k, t = cloudinary_key(), cloudinary_secret()
    secret(c, f"cloudinary://{k}:{t}@acme-prod?secure=true", t, CLOUDINARY_PHP)
    t = pick(ALNUM, 18)
    secret(
        c,
        f'MB_DB_CONNECTION_URI="postgres://bi.acme.lan:5432/metabase?user=metabase&password={t}"',
        t,
        METABASE_ENV,
    )
    t = pick(ALNUM, 18)
    secret(
        c,
        f"MB_DB_CONNECTION_URI=mysql://metabase:{t}@mysql.acme.lan:3306/metabase",
        t,
        METABASE_ENV,
    )
    t = pick(ALNUM, 14)
    secret(
        c, f'!connect "jdbc:hive2://hs2.acme.lan:10000/default;user=etl;password={t}"', t, BEELINE
    )
    t = pick(ALNUM, 16)
    secret(
        c,
        f"jdbc:hive2://zk1:2181,zk2:2181/;serviceDiscoveryMode=zooKeeper;user=hive;password={t}",
        t,
        BEELINE_TC,
    )
    t = pick(ALNUM, 20)
    secret(c, f"DATABASE_URL=postgres://strapi:{t}@db.acme.lan:5432/strapi", t, STRAPI_DOCKER)
    t = pick(ALNUM, 20)
    secret(
        c, f'DB_CONNECTION_STRING="postgresql://directus:{t}@10.0.4.12:5432/directus"', t, DIRECTUS
    )
    t = pick(ALNUM, 22)
    secret(c, f"DATABASE_URL=postgres://app:{t}@shop-db:5432/shop_production", t, KAMAL)


def other_language() -> None:
    c = "other language"
    t = typeform()
    secret(
        c, f"TypeformのPersonal Tokenは {t} です。第三者に公開しないでください。", t, TYPEFORM_JA
    )
    t = twitch()
    secret(c, f'アクセストークン取得: {{"access_token":"{t}","expires_in":5184000}}', t, TWITCH_JA)
    t = password(20)
    secret(c, f"# ステージングのレジストリのパスワード\nKAMAL_REGISTRY_PASSWORD={t}", t, KAMAL_JA)
    t = trello_token()
    secret(c, f"Токен для нашего бота Trello: {t} — не коммитьте его.", t, TRELLO_JS_RU)
    t = hexs(40)
    secret(
        c,
        f"Das API-Token für Pipedrive lautet {t}, bitte im Passwortmanager ablegen.",
        t,
        PIPEDRIVE_DE,
    )
    t = password(14)
    secret(c, f"[Zugang]\nBenutzername=backup\nPasswort={t}", t, PASSWD_DE)
    t = turso_jwt()
    secret(c, f"# token de autenticación de Turso\nCMS_LIBSQL_AUTH_TOKEN={t}", t, TURSO_ES)
    t = password(12)
    secret(
        c,
        f"La contraseña del usuario etl en Hive es {t}; cámbiala después del despliegue.",
        t,
        BEELINE,
    )
    t = password(12)
    secret(c, f"beeline 连接参数:用户名 etl,密码:{t},端口 10000", t, BEELINE)
    t = password(16)
    secret(c, f"数据库配置\n用户名 = metabase\n密码 = {t}", t, BEELINE_TC)
    t = typeform()
    secret(
        c, f"Le jeton Typeform de l'équipe est {t}, à révoquer si jamais il fuite.", t, TYPEFORM_FR
    )
    t = password(14)
    secret(c, f"utilisateur: frank\nmot_de_passe: {t}", t, LPI_FR)
    t = pick(ALNUM, 24)
    secret(c, f"EdgeDB 접속 정보 — 사용자: edgedb, 비밀번호: {t}", t, EDGEDB_KO)
    t = password(16)
    secret(c, f"A senha do banco do Metabase é {t} (usuário metabase).", t, METABASE_ENV)
    t = password(14)
    secret(c, f"La password del database di Ghost è {t}, non condividerla.", t, GHOST)
    t = password(12)
    secret(c, f"Hasło do repozytorium SVN dla użytkownika joe: {t}", t, SVN)
    t = password(12)
    secret(c, f"Sunucu şifresi: {t} (kullanıcı: deploy, plink ile bağlanın)", t, PLINK)
    t = password(14)
    secret(
        c,
        f"DATABASE_USERNAME=strapi\n# wachtwoord van de database\nDATABASE_PASSWORD={t}",
        t,
        STRAPI_ENV,
    )
    t = hexs(32)
    secret(c, f"Bugsnag-nyckeln för appen är {t}, lägg den i valvet.", t, BUGSNAG_GO)


def log_lines() -> None:
    c = "log line"
    t = password(16)
    secret(
        c,
        f'2026-11-03 05:01:01,399 DEBUG metabase.db :: Connecting with {{:user "metabase", '
        f':password "{t}", :subname "//db:5432/metabase"}}',
        t,
        METABASE_ENC,
    )
    t = pick(ALNUM, 32)
    secret(
        c,
        f'{{"type":"startup","timestamp":"2026-11-03T05:01:02.118+0000","level":"info",'
        f'"detail":{{"kind":"server_configuration","info":{{"admin_secret_set":true,'
        f'"admin_secret":"{t}"}}}}}}',
        t,
        HASURA,
    )
    t = password(18)
    secret(
        c,
        f"[2026-11-03 05:02:11.904] error: Could not connect to the database "
        f"postgres://strapi:{t}@db:5432/strapi (ECONNREFUSED)",
        t,
        STRAPI_DOCKER,
    )
    t = password(14)
    secret(
        c,
        f'{{"level":30,"time":1762146131,"msg":"smtp configured","EMAIL_SMTP_PASSWORD":"{t}"}}',
        t,
        DIRECTUS,
    )
    t = password(20)
    secret(
        c, f"  INFO [ssh] Running docker login ghcr.io -u acmebot -p {t} on 203.0.113.10", t, KAMAL
    )
    t = hexs(32)
    secret(
        c,
        f"[bugsnag] 2026/11/03 05:02:13 Notifying https://notify.bugsnag.com with apiKey {t}",
        t,
        BUGSNAG_GO,
    )
    t = openshift()
    secret(
        c,
        f"I1103 05:02:14.118 round_trippers.go:466] curl -v -XGET -H \"Authorization: Bearer {t}\" 'https://api.ocp.acme.io:6443/apis/user.openshift.io/v1/users/~'",
        t,
        OC,
    )
    t = pick(ALNUM, 14)
    secret(
        c,
        f"Connecting to jdbc:hive2://hs2.acme.lan:10000/default;user=etl;password={t}\nConnected to: Apache Hive (version 3.1.3)",
        t,
        BEELINE,
    )
    t = shippo()
    secret(
        c,
        f"DEBUG:urllib3: send: b'GET /shipments/ HTTP/1.1\\r\\nAuthorization: ShippoToken {t}\\r\\n'",
        t,
        SHIPPO_AUTH,
    )
    t = easypost()
    secret(c, f"2026-11-03T05:02:16Z WARN easypost request failed key={t} status=401", t, EASYPOST)
    t = twitch()
    secret(
        c, f"05:02:17 [helix] GET /helix/users?login=acme token={t} -> 200 (83ms)", t, TWITCH_HELIX
    )
    t = pick(ALNUM, 24)
    secret(
        c,
        f"turbo 2.0.9\n• Remote caching enabled\nDEBUG turbo: TURBO_TOKEN={t} TURBO_TEAM=team_acme",
        t,
        TURBO,
    )
    t = dropbox()
    secret(
        c,
        f"dropbox.exceptions.AuthError: AuthError('{uid()}', token='{t}', expired_access_token)",
        t,
        DROPBOX,
    )


def encodings() -> None:
    c = "encoding"
    k, t = hexs(32), hexs(32)
    secret(c, f"Authorization: Basic {basic(k, t)}", basic(k, t), MAILJET)
    k, t = hexs(32), hexs(32)
    e = basic(k, t)
    secret(
        c,
        f'curl -s -H "Authorization: Basic {e}" https://api.mailjet.com/v3/REST/contact',
        e,
        MAILJET,
    )
    e = basic(easypost(), "")
    secret(c, f"Authorization: Basic {e}", e, EASYPOST)
    e = base64.b64encode(b64(32).encode()).decode()
    secret(
        c,
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: metabase\ndata:\n  MB_ENCRYPTION_SECRET_KEY: {e}",
        e,
        METABASE_ENC,
    )
    e = base64.b64encode(password(18).encode()).decode()
    secret(c, f"data:\n  MB_DB_PASS: {e}\n  MB_DB_USER: bWV0YWJhc2U=", e, METABASE_ENV)
    e = base64.b64encode(",".join(strapi_secret() for _ in range(4)).encode()).decode()
    secret(c, f"kind: Secret\ntype: Opaque\ndata:\n  APP_KEYS: {e}", e, STRAPI_DOCKER)
    p = "Zq#9" + password(12) + "@!/"
    e = quote(p, safe="")
    secret(
        c, f"HASURA_GRAPHQL_DATABASE_URL=postgres://hasura:{e}@postgres:5432/hasura", e, HASURA_V1
    )
    p = "p@ss:" + password(14) + "%"
    e = quote(p, safe="")
    secret(c, f"HASURA_GRAPHQL_METADATA_DATABASE_URL: postgres://meta:{e}@db:5432/meta", e, HASURA)
    p = password(12) + '"\\' + password(6)
    e = json.dumps(p)[1:-1]
    secret(c, f'{{"DB_PASSWORD": "{e}", "DB_USER": "directus"}}', e, DIRECTUS)
    e = basic("acmebot", password(24))
    secret(
        c,
        f'{{\n  "auths": {{\n    "registry.acme.io": {{\n      "auth": "{e}"\n    }}\n  }}\n}}',
        e,
        KAMAL_REGISTRY,
    )
    e = base64.b64encode(hexs(32).encode()).decode()
    secret(c, f"bugsnag:\n  apiKeyB64: {e}", e, BUGSNAG_NODE)
    t = twitch()
    e = quote(f"oauth:{t}", safe="")
    secret(c, f"wss://irc-ws.chat.twitch.tv/?pass={e}&nick=acmebot", e, TWITCH_AUTH)
    e = quote("/" + cloudinary_secret() + "+=", safe="")
    secret(c, f"CLOUDINARY_URL=cloudinary://{cloudinary_key()}:{e}@acme-media", e, CLOUDINARY)


def webhooks() -> None:
    c = "webhook url"
    t = uid()
    secret(
        c,
        f"curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/{t}",
        f"https://hc-ping.com/{t}",
        HEALTHCHECKS,
    )
    t = uid()
    secret(
        c,
        f"0 3 * * * /usr/local/bin/backup.sh && curl -fsS https://hc-ping.com/{t}/0",
        f"https://hc-ping.com/{t}",
        HEALTHCHECKS,
    )
    t = uid()
    secret(
        c, f"HEALTHCHECK_URL=https://hc-ping.com/{t}", f"https://hc-ping.com/{t}", HEALTHCHECKS_API
    )
    t = pick(URLSAFE, 22)
    secret(c, f"curl -fsS https://hc-ping.com/{t}/db-backup/start", t, HEALTHCHECKS)
    t = pick(URLSAFE, 22)
    secret(
        c,
        f"HC_PING_KEY={t}\ncurl https://hc-ping.com/$HC_PING_KEY/nightly-report?create=1",
        t,
        HEALTHCHECKS_API,
    )
    t = uid()
    secret(
        c,
        f"curl -X POST https://n8n.acme.io/webhook/{t} -H 'Content-Type: application/json' -d '{{\"order\": 1042}}'",
        f"https://n8n.acme.io/webhook/{t}",
        N8N,
    )
    t = uid()
    secret(
        c,
        f"N8N_ORDER_WEBHOOK=https://automation.acme.io/webhook/{t}",
        f"https://automation.acme.io/webhook/{t}",
        N8N_NODE,
    )
    t = password(20)
    secret(
        c,
        f"curl --request GET https://n8n.acme.io/webhook/deploy-done --header 'X-N8N-Token: {t}'",
        t,
        N8N,
    )
    t = pushover()
    secret(
        c,
        f"https://api.pushover.net/1/messages.json?token={t}&user={pushover('u')}&message=disk+full",
        t,
        PUSHOVER,
    )
    t = pushover()
    secret(
        c,
        f'curl -s --form-string "token={t}" --form-string "user={pushover("u")}" --form-string "message=hello" https://api.pushover.net/1/messages.json',
        t,
        PUSHOVER,
    )
    t = pick(ALNUM, 24)
    secret(
        c,
        f"curl https://uptime.betterstack.com/api/v1/heartbeat/{t}",
        f"https://uptime.betterstack.com/api/v1/heartbeat/{t}",
        BETTERSTACK,
    )
    t = password(16).replace("@", "").replace("/", "").replace("#", "").replace("%", "")
    secret(c, f"Event callback URL: https://mjhooks:{t}@hooks.acme.io/mailjet/events", t, MAILJET)


def signing() -> None:
    c = "signing and build tools"
    t = password(16)
    secret(
        c,
        f"MYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\nMYAPP_UPLOAD_KEY_ALIAS=my-key-alias\nMYAPP_UPLOAD_STORE_PASSWORD={t}",
        t,
        NUMIC,
    )
    t = password(14)
    secret(
        c, f"MYAPP_RELEASE_KEY_ALIAS=shop-release\nMYAPP_RELEASE_KEY_PASSWORD={t}", t, REACT_NATIVE
    )
    t = password(18)
    secret(
        c,
        f"signingConfigs {{\n    release {{\n        storeFile file('shop.keystore')\n        storePassword '{t}'\n        keyAlias 'shop'\n    }}\n}}",
        t,
        REACT_NATIVE,
    )
    t = password(16)
    secret(
        c,
        f'{{\n  "android": {{\n    "release": {{\n      "keystore": "shop.keystore",\n      "storePassword": "{t}",\n      "alias": "shop"\n    }}\n  }}\n}}',
        t,
        CORDOVA,
    )
    t = password(14)
    secret(
        c,
        f'      "alias": "shop",\n      "password" : "{t}",\n      "keystoreType": ""',
        t,
        CORDOVA,
    )
    t = password(16)
    secret(
        c,
        f"storeFile=/home/ci/shop.keystore\nkeyAlias=shop\nstorePassword={t}\nkeyPassword={password(16)}",
        t,
        CORDOVA,
    )
    t = pick(ALNUM, 24)
    secret(
        c, f"TURBO_API=https://turbo-cache.acme.io\nTURBO_TEAM=team_acme\nTURBO_TOKEN={t}", t, TURBO
    )
    t = hexs(64)
    secret(c, f"TURBO_REMOTE_CACHE_SIGNATURE_KEY={t}", t, TURBO)
    t = pick(ALNUM, 48)
    secret(c, f"pnpm exec turbo run build --token={t} --team=team_acme", t, TURBO_CACHE)
    t = password(18)
    secret(
        c,
        f"keytool -genkeypair -v -keystore shop.keystore -alias shop -keyalg RSA -storepass {t}",
        t,
        REACT_NATIVE,
    )


def lookalike_ids() -> None:
    c = "look-alike: ids and uuids"
    v = hexs(24)
    benign(c, f"https://api.trello.com/1/boards/{v}", v, TRELLO_INTRO)
    v = hexs(32)
    benign(c, f"< HTTP/1.1 403 Forbidden\n< X-Request-ID: {v}", v, ALPACA_GS)
    v = hexs(32)
    benign(c, f'{{"object_id": "{v}", "object_state": "VALID", "status": "SUCCESS"}}', v, SHIPPO_QS)
    v = "shp_" + hexs(32)
    benign(c, f'{{"id": "{v}", "object": "Shipment", "mode": "test"}}', v, EASYPOST)
    v = "id:" + pick(URLSAFE, 22)
    benign(c, f'{{".tag": "file", "name": "report.pdf", "id": "{v}"}}', v, DROPBOX)
    v = str(RNG.randrange(10**8, 10**9))
    benign(
        c,
        f'{{"data":[{{"id":"{v}","login":"acmegames","broadcaster_type":"partner"}}]}}',
        v,
        TWITCH_GS,
    )
    v = pick(ALNUM, 8)
    benign(c, f"https://acme.typeform.com/to/{v}", v, TYPEFORM)
    v = uid()
    benign(c, f'{{"id": "{v}", "name": "shop-prod", "group": "default"}}', v, TURSO)
    v = hexs(32)
    benign(
        c, f'{{"asset_id": "{v}", "public_id": "products/shoe_42", "format": "jpg"}}', v, CLOUDINARY
    )
    v = hexs(24)
    benign(c, f"https://app.bugsnag.com/acme/web/errors/{v}", v, BUGSNAG_API)
    v = uid()
    benign(c, f'{{"data": {{"id": "{v}", "title": "Hello", "status": "published"}}}}', v, DIRECTUS)
    v = pick(LOWER + DIGITS, 24)
    benign(
        c, f'{{"data": {{"id": 7, "documentId": "{v}", "title": "Spring sale"}}}}', v, STRAPI_ENV
    )
    v = hexs(24)
    benign(c, f"Build {v} started (pipeline acme/web/ci)", v, CODEFRESH)
    v = uid()
    benign(c, f'metadata:\n  name: api\n  uid: {v}\n  resourceVersion: "88231"', v, OC)
    v = uid()
    benign(c, f'{{"id": "{v}", "__type__": "default::User"}}', v, EDGEDB)
    v = str(RNG.randrange(10**6, 10**7))
    benign(c, f"GET https://acme.pipedrive.com/deal/{v}", v, PIPEDRIVE)
    v = uid()
    benign(c, f'{{"request_id": "{v}", "status": 200, "url": "/v1/graphql"}}', v, HASURA)
    v = uid()
    benign(c, f"https://bi.acme.io/public/dashboard/{v}", v, METABASE_ENV)
    v = "r" + str(RNG.randrange(10_000, 99_999))
    benign(c, f"Checked out revision {v[1:]}.\n$ svn log -{v} --limit 1", v, SVN_REF)
    v = "acme-" + pick(LOWER + DIGITS, 4)
    benign(c, f"AXIOM_ORG_ID={v}", v, AXIOM_INGEST)
    v = hexs(12)
    benign(c, f"  INFO Container {v} is healthy on 203.0.113.10", v, KAMAL)


def lookalike_placeholders() -> None:
    c = "look-alike: placeholders and references"
    v = "<API_TOKEN>"
    benign(
        c,
        f'curl https://api.goshippo.com/addresses/ \\\n   -H "Authorization: ShippoToken {v}"',
        v,
        SHIPPO_QS,
    )
    v = "<ACCESS_TOKEN>"
    benign(c, f'--header "Authorization: Bearer {v}"', v, DROPBOX)
    v = "{YOUR_API_SECRET_KEY}"
    benign(c, f'-H "APCA-API-SECRET-KEY: {v}"', v, ALPACA)
    v = "【アクセストークン】"
    benign(c, f"-H 'Authorization: Bearer {v}'", v, TWITCH_JA)
    v = "postgres://<username>:<password>@hostname:<port>/<dbname>"
    benign(c, f"-e HASURA_GRAPHQL_DATABASE_URL={v} \\", v, HASURA_V1)
    v = "env('ADMIN_JWT_SECRET')"
    benign(c, f"auth: {{\n  secret: {v},\n}},", v, STRAPI_ADMIN)
    v = "tobemodified"
    benign(c, f"API_TOKEN_SALT={v}\nADMIN_JWT_SECRET={v}", v, STRAPI_ENV)
    v = "- KAMAL_REGISTRY_PASSWORD"
    benign(c, f"registry:\n  username: acmebot\n  password:\n    {v}", v, KAMAL)
    v = "$(kamal secrets extract RAILS_MASTER_KEY $SECRETS)"
    benign(c, f"RAILS_MASTER_KEY={v}", v, KAMAL)
    v = "secrets: [ docker_username, docker_password ]"
    benign(
        c, f"  - name: publish hello world\n    image: target/vela-docker:latest\n    {v}", v, VELA
    )
    v = "$SFTP_PASSWORD"
    benign(c, f'  login: "deploy"\n  password: "{v}"', v, BUDDY)
    v = "${{DOCKER_PASSWORD}}"
    benign(c, f"      - docker login -u acmebot -p {v} registry.acme.io", v, CODEFRESH_SECRETS)
    v = '"${DB_PASSWORD}"'
    benign(c, f"DB_PASSWORD={v}", v, DIRECTUS)
    v = "${MB_DB_PASS}"
    benign(c, f"      MB_DB_PASS: {v}", v, METABASE_ENV)
    v = "<https://your-n8n.url/webhook/path>"
    benign(c, f"curl --request GET {v}", v, N8N)
    v = "cloudinary://<api_key>:<api_secret>@<cloud_name>"
    benign(c, f"CLOUDINARY_URL={v}", v, CLOUDINARY)
    v = "api_token=YOUR_API_TOKEN"
    benign(c, f"https://companydomain.pipedrive.com/v1/deals?{v}", v, PIPEDRIVE)
    v = "key=YOUR_KEY"
    benign(
        c,
        f"https://trello.com/1/authorize?expiration=never&name=YourApp&scope=read,write&response_type=token&{v}",
        v,
        TRELLO_JS,
    )
    v = "process.env.TURSO_AUTH_TOKEN"
    benign(c, f"  authToken: {v},", v, TURSO)
    v = "<token-de-autenticación>"
    benign(c, f"CMS_LIBSQL_AUTH_TOKEN={v} (opcional)", v, TURSO_ES)
    v = "$HC_PING_KEY"
    benign(c, f"https://hc-ping.com/{v}/<slug>", v, HEALTHCHECKS_API)


def lookalike_code() -> None:
    c = "look-alike: code naming a secret"
    v = 'HDR_SECRET: &str = "APCA-API-SECRET-KEY"'
    benign(
        c, f"/// The HTTP header representing the secret key.\npub(crate) const {v};", v, ALPACA_RS
    )
    v = 'apiSecretKey =\n"api_secret"'
    benign(c, f"const\nString\n{v}\n;", v, CLOUDINARY_DART)
    v = "storePassword MYAPP_UPLOAD_STORE_PASSWORD"
    benign(
        c,
        f"if (project.hasProperty('MYAPP_UPLOAD_STORE_FILE')) {{\n    storeFile file(MYAPP_UPLOAD_STORE_FILE)\n    {v}\n}}",
        v,
        NUMIC,
    )
    v = 'os.Getenv("BUGSNAG_API_KEY")'
    benign(c, f"bugsnag.Configure(bugsnag.Configuration{{APIKey: {v}}})", v, BUGSNAG_GO)
    v = "encryptionKey: env('ENCRYPTION_KEY')"
    benign(c, f"secrets: {{\n  {v},\n}},", v, STRAPI_ADMIN)
    v = 'env::var("MAILJET_SECRET_KEY")'
    benign(
        c,
        f'let api_key = SecretString::from(\n    {v}.expect("Missing MAILJET_SECRET_KEY env variable"),\n);',
        v,
        MAILJET_RS,
    )
    v = "def rotate_api_token(self, user_id: int) -> str:"
    benign(c, f"class PipedriveAdmin:\n    {v}\n        ...", v, PIPEDRIVE)
    v = "password_reset_token_ttl"
    benign(c, f"AUTH_{v.upper()}=15m", v.upper(), DIRECTUS)
    v = "get_client(api_key: String, user_agent: Option<String>)"
    benign(c, f"pub fn {v} -> Result<ManageClient, HealthchecksConfigError>", v, HEALTHCHECKS_API)
    v = "if api_key.is_empty()"
    benign(c, f"    {v} {{\n        Err(HealthchecksConfigError::EmptyApiKey)", v, HEALTHCHECKS_API)
    v = "apiToken: process.env.TRELLO_TOKEN!"
    benign(
        c,
        f"const trello = createTrelloClient({{\n  apiKey: process.env.TRELLO_KEY!,\n  {v},\n}});",
        v,
        TRELLO_JS,
    )
    v = "SHIPPO_API_KEY = os.environ['SHIPPO_API_KEY']"
    benign(c, v, v, SHIPPO_QS)
    v = "curl_setopt($ch, CURLOPT_USERPWD, $this->key . ':' . $this->secret );"
    benign(c, f"# Mailjet credentials\n{v}", v, MAILJET)
    v = "--password-file the password file to read password from"
    benign(c, f"-w (or) {v}", v, BEELINE)
    v = "-pw password"
    benign(c, f"{v}\n    Set remote password to password.", v, PLINK)
    v = "--password PASS"
    benign(c, f"--username USER\n{v}\n--no-auth-cache", v, SVN_REF)
    v = "HASURA_GRAPHQL_ADMIN_SECRET is not set"
    benign(c, f"WARN: {v}; the console and API are open", v, HASURA)
    v = "if (!process.env.AXIOM_TOKEN) throw new Error('AXIOM_TOKEN is required');"
    benign(c, v, v, AXIOM_INGEST)
    v = "TWITCH_CLIENT_SECRET: z.string().min(30)"
    benign(c, f"const env = z.object({{\n  {v},\n}}).parse(process.env);", v, TWITCH_GS)
    v = "validate_api_key = true"
    benign(c, f".configure({v}) {{|configuration| ... }}", v, BUGSNAG_API)
    v = "Bugsnag.start({ apiKey: process.env.BUGSNAG_API_KEY })"
    benign(c, v, v, BUGSNAG_NODE)


def lookalike_public() -> None:
    c = "look-alike: public keys and client-side keys"
    v = hexs(32)
    benign(
        c,
        f"https://trello.com/1/authorize?expiration=1day&name=Acme&scope=read&response_type=token&key={v}",
        v,
        TRELLO_INTRO,
    )
    v = hexs(32)
    benign(c, f"Trello API key (public, meant for the Power-Up): {v}", v, TRELLO_JS)
    v = twitch()
    benign(c, f"Client IDs are public: our extension ships with client_id={v}", v, TWITCH_HELIX)
    v = twitch()
    benign(
        c,
        f"https://id.twitch.tv/oauth2/authorize?response_type=code&client_id={v}&redirect_uri=http://localhost:3000&scope=user:read:email",
        v,
        TWITCH_AUTH,
    )
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + RNG.randbytes(32)
    v = "ssh-ed25519 " + base64.b64encode(blob).decode() + " deploy@kamal"
    benign(
        c,
        f"ssh:\n  user: deploy\n  keys:\n    # public key installed on the hosts\n    # {v}",
        v,
        KAMAL,
    )
    v = "SHA256:" + b64(32).rstrip("=")
    benign(
        c,
        f"The host key is not cached for this server:\n  build01.acme.lan (port 22)\nssh-ed25519 255 {v}",
        v,
        PLINK,
    )
    v = "SHA256:" + b64(32).rstrip("=")
    benign(c, f"plink -hostkey {v} deploy@build01.acme.lan uptime", v, PLINK)
    v = ":".join(pick("0123456789ABCDEF", 2) for _ in range(32))
    benign(
        c,
        f"Certificate fingerprints:\n\t SHA256: {v}\nSignature algorithm name: SHA256withRSA",
        v,
        REACT_NATIVE,
    )
    v = ":".join(pick("0123456789ABCDEF", 2) for _ in range(20))
    benign(c, f"\t SHA1: {v}", v, REACT_NATIVE)
    v = "acme-media"
    benign(c, f"const cld = new Cloudinary({{ cloud: {{ cloudName: '{v}' }} }});", v, CLOUDINARY)
    v = "unsigned_" + pick(LOWER, 8)
    benign(c, f"formData.append('upload_preset', '{v}');", v, CLOUDINARY)
    v = "https://acme.typeform.com/to/" + pick(ALNUM, 8)
    benign(c, f'<div data-tf-live="{v[-8:]}"></div>', v[-8:], TYPEFORM)
    der = bytes.fromhex("302a300506032b6570032100") + RNG.randbytes(32)
    v = f"-----BEGIN PUBLIC KEY-----\n{base64.b64encode(der).decode()}\n-----END PUBLIC KEY-----"
    benign(c, f"# Turso JWKS public key for self-signed tokens\n{v}", v, TURSO)
    v = hexs(40).upper()
    benign(c, f"gpg --recv-keys {v}", v, SVN_REF)
    v = "PK" + pick(UPPER + DIGITS, 18)
    benign(c, f"Key ID {v} (the secret key is shown once, in the dashboard)", v, ALPACA)
    v = str(RNG.randrange(100_000_000_000_000, 999_999_999_999_999))
    benign(
        c,
        f'<input type="hidden" name="api_key" value="{v}"> <!-- signed upload, signature from server -->',
        v,
        CLOUDINARY,
    )
    v = pick(LOWER + DIGITS, 10)
    benign(c, f"Ingesting host: {v}.eu-nbg-2.betterstackdata.com", v, BETTERSTACK)
    v = "eyJhbGciOiJub25lIn0"
    benign(c, f'header segment {v} decodes to {{"alg":"none"}}', v, TURSO)
    v = "age1" + pick("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
    benign(c, f"# recipient for the Kamal secrets file\n{v}", v, KAMAL)
    v = "https://" + pick(LOWER, 6) + ".ingest.axiom.co"
    benign(c, f"NEXT_PUBLIC_AXIOM_INGEST_ENDPOINT={v}", v, AXIOM_INGEST)


def lookalike_hashes() -> None:
    c = "look-alike: hashes and digests"
    v = "sha256:" + hexs(64)
    benign(c, f"image: hasura/graphql-engine:v2.36.0@{v}", v, HASURA)
    v = "sha256:" + hexs(64)
    benign(c, f"  INFO Pushed ghcr.io/acme/shop@{v}", v, KAMAL)
    v = hexs(64)
    benign(c, f"$ sha256sum metabase.jar\n{v}  metabase.jar", v, METABASE_ENV)
    v = "sha512-" + b64(64)
    benign(
        c,
        f'"node_modules/@strapi/strapi": {{\n  "version": "5.3.0",\n  "integrity": "{v}"\n}}',
        v,
        STRAPI_ENV,
    )
    v = hexs(40)
    benign(c, f"commit {v}\nAuthor: ci <ci@acme.io>", v, GOCD)
    v = hexs(32)
    benign(c, f'{{"public_id": "shoe_42", "etag": "{v}", "bytes": 120331}}', v, CLOUDINARY)
    v = hexs(40)
    benign(c, f"signature={v}&timestamp=1762146131&public_id=shoe_42", v, CLOUDINARY)
    v = hexs(16)
    benign(c, f"web:build: cache hit, replaying logs {v}", v, TURBO_CACHE)
    v = "sha256:" + hexs(64)
    benign(c, f"cryptography==43.0.1 \\\n    --hash={v}", v, BUGSNAG_API)
    v = hexs(64)
    benign(c, f'[[package]]\nname = "libsql"\nversion = "0.6.0"\nchecksum = "{v}"', v, SHUTTLE)
    v = hexs(40)
    benign(c, f'{{"hash": "shoe_42_{v[:10]}", "sha256": "{v}"}}', v, STRAPI_DOCKER)
    v = "SHA256 " + hexs(64)
    benign(c, f"Hashes for HealthCheck_Pinger-0.0.6.tar.gz\n{v}", v, HEALTHCHECKS)
    v = hexs(32)
    benign(c, f"MD5 {v}", v, HEALTHCHECKS)
    v = hexs(64)
    benign(c, f'<sha256 value="{v}" origin="Generated by Gradle"/>', v, REACT_NATIVE)
    v = "sha1:" + hexs(40)
    benign(c, f"app-release.apk  {v}", v, CORDOVA)
    v = hexs(64)
    benign(c, f"{uid()}  checksum {v}  report.pdf", v, DIRECTUS)
    v = "image-registry.openshift-image-registry.svc:5000/shop/api@sha256:" + hexs(64)
    benign(c, f"  dockerImageReference: {v}", v, OC)
    v = hexs(40)
    benign(c, f"Revision: {v}\nBranch: main", v, CODEFRESH)
    v = hexs(64)
    benign(
        c,
        f"bugsnag-cli upload js --bundle dist/main.js --source-map dist/main.js.map  # sourcemap sha256 {v}",
        v,
        BUGSNAG_API,
    )
    v = hexs(32)
    benign(c, f'ETag: "{v}"\nContent-Type: application/json', v, DROPBOX)


def lookalike_masked() -> None:
    c = "look-alike: masked values"
    v = "MYAPP_UPLOAD_STORE_PASSWORD=*****"
    benign(c, f"MYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\n{v}", v, NUMIC)
    v = "[REDACTED]"
    benign(
        c, f"  INFO [ssh] Running docker login ghcr.io -u acmebot -p {v} on 203.0.113.10", v, KAMAL
    )
    v = "shippo_live_••••••••••••••••••••••••••••••••" + hexs(4)
    benign(c, f"Live token  {v}  created 2026-02-01", v, SHIPPO_AUTH)
    v = "EZAK" + "•" * 20 + hexs(4)
    benign(c, f"Production key {v} (active)", v, EASYPOST)
    v = "xaat-****-****-****-" + hexs(4)
    benign(c, f"$ axiom auth status\nacme-x3kd  token {v}  valid", v, AXIOM)
    v = "********"
    benign(c, f"Client ID:     {twitch()}\nClient Secret: {v}", v, TWITCH_GS)
    v = "API Secret: **********"
    benign(c, f"Cloud name: acme-media\nAPI Key: {cloudinary_key()}\n{v}", v, CLOUDINARY)
    v = "echo ***"
    benign(c, f"+ {v}\n***", v, VELA_TOUR)
    v = "DB_PASSWORD=******"
    benign(c, f"Set variables: DB_USER=ci, {v}", v, BUDDY_SECRETS)
    v = "password: ******"
    benign(c, f"[Pipeline] sh\n+ deploy --user ci\n  {v}", v, GOCD)
    v = "HASURA_GRAPHQL_ADMIN_SECRET: <hidden>"
    benign(c, f"Env vars:\n  {v}\n  HASURA_GRAPHQL_ENABLE_CONSOLE: false", v, HASURA)
    v = "Saved credentials encryption is DISABLED for this Metabase instance."
    benign(c, f"09-26 15:42:49 INFO util.encryption :: {v}", v, METABASE_ENC)
    v = "Password for 'JoeUser':"
    benign(
        c, f"$ svn checkout https://svn.example.com/MyRepo/trunk --username JoeUser\n{v}", v, SVN
    )
    v = "Enter password for jdbc:hive2://bigdata01:10006:"
    benign(c, f"Enter username for jdbc:hive2://bigdata01:10006: hdfs\n{v}", v, BEELINE)
    v = "token: REDACTED"
    benign(c, f"users:\n- name: developer/api-ocp-acme-io:6443\n  user:\n    {v}", v, OC)
    v = "TURBO_TOKEN=***"
    benign(c, f"env: TURBO_TEAM=team_acme {v}", v, TURBO_CACHE)
    v = '"api_secret": "[FILTERED]"'
    benign(c, f'Parameters: {{"cloud_name": "acme", {v}}}', v, CLOUDINARY)
    v = "tfp_…" + hexs(4)
    benign(c, f"Token {v} last used 3 days ago", v, TYPEFORM)
    v = "https://hc-ping.com/" + "•" * 8 + "-••••-••••-••••-" + "•" * 8 + hexs(4)
    benign(c, f"Ping URL {v} (click to reveal)", v, HEALTHCHECKS)
    v = '"password": "<redacted>"'
    benign(c, f'{{"user": "edgedb", {v}, "port": 10702}}', v, EDGEDB_CRED)
    v = "Bugsnag-Api-Key: ****" + hexs(4)
    benign(c, f"> POST /notify\n> {v}", v, BUGSNAG_API)


BUILDERS = (
    vendor_tokens,
    config_files,
    cli_flags,
    source_literals,
    http_headers,
    ci_yaml,
    connection_strings,
    other_language,
    log_lines,
    encodings,
    webhooks,
    signing,
    lookalike_ids,
    lookalike_placeholders,
    lookalike_code,
    lookalike_public,
    lookalike_hashes,
    lookalike_masked,
)

MINIMUM = {
    "vendor token": 45,
    "config file": 45,
    "cli password flag": 35,
    "source literal": 20,
    "http auth header": 16,
    "ci and yaml": 16,
    "connection string": 15,
    "other language": 15,
    "log line": 13,
    "encoding": 13,
    "webhook url": 12,
    "signing and build tools": 10,
    "look-alike: ids and uuids": 20,
    "look-alike: placeholders and references": 20,
    "look-alike: code naming a secret": 20,
    "look-alike: public keys and client-side keys": 20,
    "look-alike: hashes and digests": 20,
    "look-alike: masked values": 20,
}
PLACEHOLDER = re.compile(r"xxx|<[a-z_ -]*token[a-z_ -]*>|changeme|your[-_ ]?key|\*\*\*\*", re.I)


def build() -> list[dict[str, str]]:
    if not ROWS:  # built once, at import, as the other batches' builders are
        for builder in BUILDERS:
            builder()
    return ROWS


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def problems(rows: list[dict[str, str]]) -> list[str]:
    found = []
    keys = {"class", "context", "expect", "secret", "source"}
    benign_keys = {"class", "context", "expect", "value", "reason", "source"}
    secrets = [row["secret"] for row in rows if row["expect"] == "secret"]
    for n, row in enumerate(rows, 1):
        if set(row) != (keys if row["expect"] == "secret" else benign_keys):
            found.append(f"row {n}: keys {sorted(row)}")
        if row.get("secret", row.get("value", "")) not in row["context"]:
            found.append(f"row {n}: its secret is not in its context")
        if row["expect"] not in ("secret", "benign"):
            found.append(f"row {n}: expect {row['expect']!r}")
        if row["class"] not in MINIMUM:
            found.append(f"row {n}: class {row['class']!r}")
        if not row["source"].startswith("https://"):
            found.append(f"row {n}: source {row['source']!r}")
        if row["expect"] == "secret" and PLACEHOLDER.search(row["secret"]):
            found.append(f"row {n}: the secret reads as a placeholder")
        if row["expect"] == "secret" and row["class"].startswith("look-alike"):
            found.append(f"row {n}: a secret row in a look-alike class")
        if row["expect"] == "benign" and any(s in row["context"] for s in secrets):
            found.append(f"row {n}: a benign context holds a secret of another row")
    if len(secrets) != len(set(secrets)):
        found.append("secrets repeat")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["class"]] = counts.get(row["class"], 0) + 1
    for cls, least in MINIMUM.items():
        if counts.get(cls, 0) < least:
            found.append(f"{cls}: {counts.get(cls, 0)} rows, fewer than {least}")
    if len(secrets) < 250 or len(rows) - len(secrets) < 120:
        found.append(f"{len(secrets)} secret and {len(rows) - len(secrets)} benign rows")
    return found


build()


def main() -> int:
    rows = build()
    out = Path(__file__).with_name("batch-i.jsonl")
    text = render(rows)
    if "--check" in sys.argv[1:]:
        found = problems(rows)
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            found.append(f"{out.name} is not what this builder writes")
        for line in found:
            print(line)
        return 1 if found else 0
    out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
