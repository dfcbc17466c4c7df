# ruff: noqa: E501
"""Build batch K of the held-apart redaction set (batch-k.jsonl).

Written blind to the redaction rules: shapes come from the documentation of tools that no
earlier batch names. 8 documentation pages were read for this batch (the Todoist, Mux,
bunny.net, SparkPost, Weaviate, Anaconda, CouchDB and Woodpecker kaniko pages cited in
`source`); the rest of the rows follow what the cited tools document for their token,
password or config shape. About 20 rows cite tools an earlier batch also cites (the
Woodpecker kaniko plugin, Mailchimp Transactional, fastlane, Gradle and Android signing,
Kubernetes Secrets, GnuPG, ssh-keygen, cosign, GitHub Actions, RabbitMQ URIs); all other
rows come from tools no earlier batch names. Secrets come from a seeded generator, so
they look real, are fake, and the file is the same on every run.

Run `python tests/data/redaction_held_apart/build_batch_k.py` to write batch-k.jsonl next to
this file; `--check` verifies the file and the rows instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import sys
import uuid
from pathlib import Path

OUT = Path(__file__).with_name("batch-k.jsonl")
rng = random.Random(20261204)

ALNUM = string.ascii_letters + string.digits
LOWER_NUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"
PW = ALNUM + "!#%+-.:=@^_~"
BANNED = ("example", "xxx", "changeme")

SECRET_CLASSES = (
    "vendor token",
    "config file",
    "cli password flag",
    "source literal",
    "http auth header",
    "ci and yaml",
    "connection string",
    "other language",
    "log line",
    "encoding",
    "webhook url",
    "signing and build tools",
)
BENIGN_CLASSES = (
    "look-alike: ids and uuids",
    "look-alike: placeholders and references",
    "look-alike: code naming a secret",
    "look-alike: public keys and client-side keys",
    "look-alike: hashes and digests",
    "look-alike: masked values",
)

_seen: set[str] = set()


def tok(alphabet: str, n: int, prefix: str = "") -> str:
    """A fresh fake secret: never a banned substring, never one already used."""
    while True:
        s = prefix + "".join(rng.choice(alphabet) for _ in range(n))
        if not any(b in s.lower() for b in BANNED) and s not in _seen:
            _seen.add(s)
            return s


def pw(n: int = 18) -> str:
    """A password with letters, digits and punctuation."""
    while True:
        s = tok(PW, n)
        if any(c.isdigit() for c in s) and any(c in "!#%+-.:=@^_~" for c in s):
            return s


def hexs(n: int) -> str:
    return tok(HEX, n)


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


ROWS: list[dict[str, str]] = []


def sec(cls: str, source: str, template: str, secret: str) -> None:
    ROWS.append(
        {
            "class": cls,
            "context": template.replace("{s}", secret),
            "expect": "secret",
            "secret": secret,
            "source": source,
        }
    )


def ben(cls: str, source: str, context: str, value: str, reason: str) -> None:
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


TODOIST = "https://doist.github.io/todoist-api-typescript/authorization"
MUX = "https://www.mux.com/docs/core/make-api-requests"
MUXF = "https://www.mux.com/docs/core/mux-fundamentals"
BUNNY = "https://docs.bunny.net/api-reference/authentication"
BUNNYTF = "https://docs.bunny.net/terraform/authentication"
SPARK = "https://pypi.org/project/sparkpost/1.0.3/"
WEAV = "https://docs.weaviate.io/weaviate/client-libraries/python/notes-best-practices"
CONDA = "https://www.anaconda.com/docs/cli-reference/anaconda-auth/commands/token-set"
COUCH = "https://docs.couchdb.org/en/stable/config/auth.html"
KANIKO = "https://woodpecker-ci.org/plugins/kaniko"
PLAUS = "https://plausible.io/docs/stats-api"
INTERCOM = "https://developers.intercom.com/docs/build-an-integration/learn-more/authentication"
POCKET = "https://pocketbase.io/docs/authentication/"
ZITADEL = "https://zitadel.com/docs/guides/integrate/service-users/personal-access-token"
FUSION = "https://fusionauth.io/docs/apis/authentication"
MILVUS = "https://milvus.io/docs/authenticate.md"
MANDRILL = "https://mailchimp.com/developer/transactional/guides/quick-start/"
MBIRD = "https://developers.messagebird.com/api/#authentication"
SINCH = "https://developers.sinch.com/docs/sms/api-reference/authentication"
DWOLLA = "https://developers.dwolla.com/docs/balance/basics"
KLARNA = "https://docs.klarna.com/api/authentication/"
LEMON = "https://docs.lemonsqueezy.com/api#authentication"
CIVO = "https://www.civo.com/docs/account/api-keys"
UPCLOUD = "https://upcloud.com/docs/guides/getting-started-upcloud-api/"
WASABI = "https://docs.wasabi.com/docs/how-do-i-use-aws-cli-with-wasabi"
YUGA = "https://docs.yugabyte.com/preview/reference/configuration/yugabyted/"
SCYLLA = "https://opensource.docs.scylladb.com/stable/operating-scylla/security/authentication.html"
RAVEN = "https://ravendb.net/docs/article-page/6.0/csharp/client-api/creating-document-store"
DGRAPH = "https://dgraph.io/docs/cloud/admin/authentication/"
DUPLICITY = "https://duplicity.gitlab.io/stable/duplicity.1.html"
LEIN = "https://codeberg.org/leiningen/leiningen/src/branch/main/doc/DEPLOY.md"
PODS = "https://guides.cocoapods.org/making/getting-setup-with-trunk.html"
PDM = "https://pdm-project.org/latest/reference/configuration/"
NEXUS = "https://help.sonatype.com/en/user-tokens.html"
BUILDAH = "https://github.com/containers/buildah/blob/main/docs/buildah-push.1.md"
BAMBOO = "https://confluence.atlassian.com/bamboo/bamboo-specs-encryption-970268127.html"
PNPM = "https://pnpm.io/npmrc"
REBAR = "https://rebar3.org/docs/package_management/publishing-packages/"
SHARDS = "https://crystal-lang.org/reference/1.14/man/shards/index.html"
OPAM = "https://opam.ocaml.org/doc/Manual.html"
LERNA = "https://lerna.js.org/docs/features/version-and-publish"
RUSH = "https://rushjs.io/pages/maintainer/publishing/"
BANDW = "https://dev.bandwidth.com/docs/credentials/"
LOOPS = "https://loops.so/docs/api-reference/intro"
REVAI = "https://docs.rev.ai/api/asynchronous/get-started/"
NHOST = "https://docs.nhost.io/products/auth/overview"
CONDARC = "https://docs.conda.io/projects/conda/en/latest/user-guide/configuration/use-condarc.html"
WAYPOINT = "https://developer.hashicorp.com/waypoint/commands/login"

V, CF, CLI, SRC, HDR, CI, CONN, LANG, LOG, ENC, HOOK, SIGN = SECRET_CLASSES
IDS, PH, CODE, PUB, HASH, MASK = BENIGN_CLASSES

# ---------------------------------------------------------------- vendor token (25)
sec(V, TODOIST, "export TODOIST_API_TOKEN={s}", hexs(40))
sec(V, TODOIST, "todoist-cli: using token {s} from ~/.config/todoist/config.json", hexs(40))
sec(V, MUX, "export MUX_TOKEN_SECRET={s}", tok(B64URL + "/+", 75))
sec(V, MUXF, "Stream key: {s}  (paste into OBS > Settings > Stream)", uid())
sec(V, BUNNYTF, 'export BUNNYNET_API_KEY="{s}"', uid() + "-" + uid()[:18])
sec(V, BUNNY, "BUNNY_STORAGE_PASSWORD={s}", uid() + "-" + hexs(4) + "-" + hexs(4))
sec(
    V,
    SPARK,
    "$ docker run --rm -e SPARKPOST_API_KEY={s} acme/mailer:2.3 send --to ops@acme.io",
    hexs(40),
)
sec(V, WEAV, "WEAVIATE_API_KEY={s}", tok(ALNUM, 48))
sec(V, CONDA, "$ anaconda token set {s} --org acme-research", tok(LOWER_NUM + "-", 40))
sec(V, PLAUS, "PS C:\\> $env:PLAUSIBLE_API_KEY = '{s}'", tok(B64URL, 64))
sec(V, INTERCOM, "set -gx INTERCOM_ACCESS_TOKEN {s}", tok(ALNUM, 56) + "=")
sec(V, ZITADEL, "[Service]\nEnvironment=ZITADEL_PAT={s}", tok(B64URL, 64))
sec(
    V,
    FUSION,
    '{"id": "3c7a1e90-5b2f-4d86-a1c4-9e0f2b7d6a13", "key": "{s}", "metaData": {"attributes": {"description": "CI"}}}',
    tok(B64URL, 60),
)
sec(V, MANDRILL, "C:\\acme> set MANDRILL_API_KEY={s}", tok(B64URL, 22))
sec(V, MBIRD, "MESSAGEBIRD_ACCESS_KEY={s}", tok(ALNUM, 25))
sec(V, SINCH, '        - name: SINCH_API_TOKEN\n          value: "{s}"', hexs(32))
sec(V, DWOLLA, "# .envrc\nexport DWOLLA_APP_SECRET='{s}'", tok(ALNUM, 50))
sec(
    V,
    KLARNA,
    "klarna:\n  username: K500746_4e2a91c3f7\n  password: {s}",
    tok(ALNUM, 20) + "_" + tok(ALNUM, 10),
)
sec(
    V,
    LEMON,
    "LEMONSQUEEZY_API_KEY={s}",
    "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9." + tok(B64URL, 120) + "." + tok(B64URL, 86),
)
sec(V, CIVO, "civo apikey save prod {s}", tok(ALNUM, 50))
sec(V, UPCLOUD, "UPCLOUD_TOKEN=ucat_{s}", tok(ALNUM, 36))
sec(V, LOOPS, "$ loops-cli auth status\nLogged in with key {s} (team: acme)", hexs(32))
sec(V, REVAI, "REVAI_ACCESS_TOKEN={s}", "02" + tok(ALNUM + "-_", 60))
sec(V, BANDW, "BW_PASSWORD={s}", pw(20))
sec(V, NHOST, "NHOST_ADMIN_SECRET={s}", tok(ALNUM + "'-_", 32))

# ---------------------------------------------------------------- config file (25)
sec(CF, COUCH, "[admins]\nadmin = {s}", pw(16))
sec(CF, COUCH, "[chttpd_auth]\nsecret = {s}", hexs(32))
sec(
    CF,
    CONDARC,
    "channels:\n  - https://repo.acme.internal/t/{s}/conda-forge\n  - defaults",
    tok(B64URL, 40),
)
sec(CF, BUNNYTF, 'provider "bunnynet" {\n  api_key = "{s}"\n}', uid() + "-" + uid()[:18])
sec(
    CF,
    PDM,
    '[repository.private]\nurl = "https://pypi.acme.internal/simple"\nusername = "ci"\npassword = "{s}"',
    pw(22),
)
sec(CF, PDM, '[pypi]\nusername = "__token__"\npassword = "{s}"', "pypi-" + tok(B64URL, 150))
sec(
    CF,
    LEIN,
    ';; ~/.lein/credentials.clj\n{#"my\\.datomic\\.com" {:username "dev@acme.io" :password "{s}"}}',
    uid(),
)
sec(CF, PNPM, "//npm.acme.internal/:_authToken={s}", uid())
sec(
    CF,
    PNPM,
    "@acme:registry=https://npm.pkg.acme.internal/\n//npm.pkg.acme.internal/:_password={s}",
    base64.b64encode(pw(16).encode()).decode(),
)
sec(
    CF,
    NEXUS,
    "<server>\n  <id>nexus-releases</id>\n  <username>Kf3uQz9a</username>\n  <password>{s}</password>\n</server>",
    tok(ALNUM + "+/", 44),
)
sec(
    CF,
    WASABI,
    "[wasabi]\naws_access_key_id = 7JQ2W9RZK4N8VXTB3M1D\naws_secret_access_key = {s}",
    tok(ALNUM, 40),
)
sec(CF, DUPLICITY, "# /etc/duplicity/env\nPASSPHRASE='{s}'", pw(24))
sec(
    CF,
    RAVEN,
    '"RavenSettings": {\n  "Urls": ["https://a.acme.ravendb.cloud"],\n  "CertificatePassword": "{s}"\n}',
    pw(18),
)
sec(CF, SCYLLA, "# cqlshrc\n[authentication]\nusername = scylla_app\npassword = {s}", pw(15))
sec(
    CF,
    MILVUS,
    "# milvus.yaml\ncommon:\n  security:\n    authorizationEnabled: true\n    defaultRootPassword: {s}",
    pw(17),
)
sec(
    CF,
    WEAV,
    "# docker-compose.yml\n      AUTHENTICATION_APIKEY_ALLOWED_KEYS: '{s}'\n      AUTHENTICATION_APIKEY_USERS: 'jane@acme.io'",
    tok(ALNUM, 32),
)
sec(
    CF,
    POCKET,
    "# .env.production\nPB_SUPERUSER_EMAIL=ops@acme.io\nPB_SUPERUSER_PASSWORD={s}",
    pw(19),
)
sec(CF, YUGA, '# ~/.yugabyted.conf\n{\n  "ysql_password": "{s}",\n  "secure": true\n}', pw(16))
sec(
    CF,
    DGRAPH,
    "# config.yml\nacl:\n  secret-file: /run/secrets/hmac\nsecurity:\n  token: {s}",
    tok(ALNUM, 36),
)
sec(CF, OPAM, "# ~/.config/opam-publish/token\n{s}", "ghp_" + tok(ALNUM, 36))
sec(
    CF,
    SHARDS,
    "# ~/.netrc (used by shards for private deps)\nmachine git.acme.internal\n  login deploy\n  password {s}",
    pw(20),
)
sec(
    CF,
    REBAR,
    '%% ~/.config/rebar3/hex.config\n#{<<"hexpm">> => #{api_key => <<"{s}">>, username => <<"acme">>}}.',
    hexs(32),
)
sec(
    CF,
    MUX,
    '# config/runtime.exs\nconfig :mux,\n  access_token_id: "4f1c0a7e-3b2d-4c55-9a0e-2d6b8e1f7c30",\n  access_token_secret: "{s}"',
    tok(ALNUM + "/+", 75),
)
sec(
    CF,
    SPARK,
    "# settings.py\nSPARKPOST_API_KEY = '{s}'\nEMAIL_BACKEND = 'sparkpost.django.email_backend.SparkPostEmailBackend'",
    hexs(40),
)
sec(
    CF,
    ZITADEL,
    "# ~/.config/zitadel/cli.yaml\ninstance: https://acme-k3f9.zitadel.cloud\npat: {s}",
    tok(B64URL, 64),
)

# ---------------------------------------------------------------- cli password flag (25)
sec(
    CLI,
    "https://docs.couchdb.org/en/stable/intro/curl.html",
    "$ curl -X PUT http://admin:{s}@127.0.0.1:5984/invoices",
    pw(14).replace("@", "^"),
)
sec(
    CLI,
    BUILDAH,
    "$ buildah push --creds builder:{s} localhost/app:1.4 docker://quay.acme.internal/app:1.4",
    pw(20).replace(":", "!"),
)
sec(
    CLI,
    "https://github.com/containers/buildah/blob/main/docs/buildah-login.1.md",
    "$ buildah login -u ci -p {s} registry.acme.internal",
    pw(18),
)
sec(
    CLI,
    "https://docs.yugabyte.com/preview/admin/ysqlsh/",
    "$ PGPASSWORD={s} ysqlsh -h 10.0.4.12 -U yugabyte",
    pw(16),
)
sec(
    CLI,
    "https://opensource.docs.scylladb.com/stable/cql/cqlsh.html",
    "$ cqlsh 10.0.7.3 9042 -u cassandra -p {s}",
    pw(15),
)
sec(
    CLI,
    "https://milvus.io/docs/cli_commands.md",
    "milvus_cli > connect -uri https://in03.acme.zillizcloud.com -t root:{s}",
    pw(17).replace(":", "#"),
)
sec(
    CLI,
    DUPLICITY,
    "$ PASSPHRASE='{s}' duplicity /srv/data b2://acct@bucket/backups",
    pw(22).replace("'", "#"),
)
sec(
    CLI,
    "https://dgraph.io/docs/enterprise-features/access-control-lists/",
    "$ dgraph acl add -u alice -p {s} --guardian-creds 'user=groot;password=Pq7t-secure'",
    pw(16).replace(";", "+"),
)
sec(
    CLI,
    "https://www.civo.com/docs/overview/civo-cli",
    "$ civo apikey add ci-runner {s}",
    tok(ALNUM, 50),
)
sec(
    CLI,
    "https://pocketbase.io/docs/going-to-production/",
    "$ ./pocketbase superuser upsert ops@acme.io {s}",
    pw(18),
)
sec(
    CLI,
    "https://fusionauth.io/docs/operate/deploy/silent-mode",
    "$ docker run -e FUSIONAUTH_APP_KICKSTART_FILE=/k.json -e FUSIONAUTH_API_KEY={s} fusionauth/fusionauth-app",
    tok(B64URL, 60),
)
sec(
    CLI,
    "https://mailchimp.com/developer/transactional/api/users/ping/",
    '$ curl -X POST https://mandrillapp.com/api/1.0/users/ping -d \'{"key":"{s}"}\'',
    tok(B64URL, 22),
)
sec(
    CLI,
    "https://docs.lemonsqueezy.com/help/lemonjs/what-is-lemonjs",
    "$ lmsqueezy login --api-key {s}",
    tok(ALNUM, 48),
)
sec(
    CLI,
    "https://rebar3.org/docs/package_management/hex_package_management/",
    "$ HEX_API_KEY={s} rebar3 hex publish --yes",
    hexs(32),
)
sec(CLI, PODS, "$ COCOAPODS_TRUNK_TOKEN={s} pod trunk push Acme.podspec", hexs(32))
sec(
    CLI,
    "https://pdm-project.org/latest/usage/publish/",
    "$ pdm publish -r private -u ci -P {s}",
    pw(21),
)
sec(
    CLI,
    "https://pnpm.io/cli/publish",
    "$ pnpm publish --//registry.npmjs.org/:_authToken={s}",
    "npm_" + tok(ALNUM, 36),
)
sec(
    CLI,
    "https://docs.ravendb.net/server/security/authentication/certificate-management",
    "$ rvn admin-channel --cert-pass {s}",
    pw(17),
)
sec(
    CLI,
    WASABI,
    "$ aws configure set aws_secret_access_key {s} --profile wasabi",
    tok(ALNUM + "/+", 40),
)
sec(
    CLI,
    "https://upcloud.com/docs/guides/get-started-upcloud-command-line-interface/",
    "$ upctl account show --token {s}",
    "ucat_" + tok(ALNUM, 36),
)
sec(
    CLI,
    "https://docs.nhost.io/development/cli/overview",
    "$ nhost config set --admin-secret '{s}'",
    tok(ALNUM + "-_", 32),
)
sec(
    CLI,
    "https://developer.hashicorp.com/waypoint/commands/login",
    "$ waypoint login -token={s} waypoint.acme.internal:9701",
    tok(ALNUM, 96),
)
sec(
    CLI,
    "https://developers.sinch.com/docs/sms/getting-started/curl/send-sms",
    "$ curl -H 'Authorization: Bearer {s}' https://us.sms.api.sinch.com/xms/v1/7a2c9f/batches",
    hexs(32),
)
sec(
    CLI,
    "https://opam.ocaml.org/doc/Manual.html",
    "$ OPAMFETCH='curl -u deploy:{s} -o %{out}% %{url}%' opam install acme-core",
    pw(16).replace(":", "~"),
)
sec(
    CLI,
    "https://rushjs.io/pages/commands/rush_publish/",
    "$ rush publish --publish --npm-auth-token {s}",
    "npm_" + tok(ALNUM, 36),
)

# ---------------------------------------------------------------- source literal (15)
sec(
    SRC,
    WEAV,
    'client = weaviate.connect_to_weaviate_cloud(\n    cluster_url="https://acme-k9.c0.europe-west3.gcp.weaviate.cloud",\n    auth_credentials=Auth.api_key("{s}"),\n)',
    tok(ALNUM, 48),
)
sec(SRC, SPARK, "sp = SparkPost('{s}')", hexs(40))
sec(SRC, TODOIST, "const api = new TodoistApi('{s}')", hexs(40))
sec(
    SRC,
    "https://github.com/muxinc/mux-node-sdk",
    "const mux = new Mux({ tokenId: 'b1f2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', tokenSecret: '{s}' });",
    tok(ALNUM + "/+", 75),
)
sec(
    SRC,
    "https://www.rubydoc.info/gems/bunbun/file/README.md",
    "client = BunBun::Client.new(access_key: '{s}')",
    uid() + "-" + uid()[:18],
)
sec(
    SRC,
    "https://github.com/pocketbase/js-sdk",
    "await pb.collection('_superusers').authWithPassword('ops@acme.io', '{s}');",
    pw(18).replace("'", "!"),
)
sec(
    SRC,
    "https://milvus.io/docs/authenticate.md",
    'client = MilvusClient(uri="https://in03-7c.api.gcp-us-west1.zillizcloud.com", token="{s}")',
    hexs(104),
)
sec(
    SRC,
    "https://github.com/intercom/intercom-node",
    'const client = new IntercomClient({ token: "{s}" });',
    tok(ALNUM, 56) + "=",
)
sec(
    SRC,
    "https://fusionauth.io/docs/sdks/go",
    'client := fusionauth.NewClient(httpClient, baseURL, "{s}")',
    tok(B64URL, 60),
)
sec(
    SRC,
    "https://github.com/messagebird/csharp-rest-api",
    'var client = Client.CreateDefault("{s}");',
    tok(ALNUM, 25),
)
sec(
    SRC,
    "https://github.com/Dwolla/dwolla-v2-python",
    "client = dwollav2.Client(key='Hq4mY7vR2', secret='{s}', environment='sandbox')",
    tok(ALNUM, 50),
)
sec(
    SRC,
    "https://docs.ravendb.net/client-api/setting-up-authentication-and-authorization",
    'Certificate = new X509Certificate2("/run/certs/client.pfx", "{s}")',
    pw(16).replace('"', "#"),
)
sec(
    SRC,
    "https://github.com/scylladb/gocql",
    'cluster.Authenticator = gocql.PasswordAuthenticator{Username: "scylla_app", Password: "{s}"}',
    pw(15).replace('"', "#"),
)
sec(
    SRC,
    "https://github.com/dgraph-io/pydgraph",
    'client_stub = pydgraph.DgraphClientStub.from_cloud("https://blue.us-east-1.aws.cloud.dgraph.io/graphql", "{s}")',
    tok(ALNUM + "=", 44),
)
sec(
    SRC,
    "https://docs.rev.ai/sdk/python/",
    'client = apiclient.RevAiAPIClient("{s}")',
    "02" + tok(ALNUM + "-_", 60),
)

# ---------------------------------------------------------------- http auth header (10)
sec(
    HDR,
    BUNNY,
    "> GET /pullzone HTTP/2\n> Host: api.bunny.net\n> AccessKey: {s}",
    uid() + "-" + uid()[:18],
)
sec(HDR, TODOIST, "Authorization: Bearer {s}", hexs(40))
sec(
    HDR,
    MUX,
    "> Authorization: Basic {s}",
    base64.b64encode(f"{uid()}:{tok(ALNUM, 60)}".encode()).decode(),
)
sec(
    HDR,
    PLAUS,
    "curl https://plausible.io/api/v2/query -H 'Authorization: Bearer {s}' -d @q.json",
    tok(B64URL, 64),
)
sec(
    HDR,
    SPARK,
    '-H "Authorization: {s}" \\\n-X POST https://api.sparkpost.com/api/v1/transmissions',
    hexs(40),
)
sec(
    HDR,
    "https://ravendb.net/docs/article-page/6.0/csharp/server/security/authentication/certificate-configuration",
    "X-Raven-Api-Key: {s}",
    tok(ALNUM, 40),
)
sec(HDR, MBIRD, "Authorization: AccessKey {s}", tok(ALNUM, 25))
sec(HDR, NHOST, "x-hasura-admin-secret: {s}", tok(ALNUM + "-_", 32))
sec(
    HDR,
    KLARNA,
    "Authorization: Basic {s}",
    base64.b64encode(f"K500746_{hexs(10)}:{tok(ALNUM, 32)}".encode()).decode(),
)
sec(HDR, DGRAPH, "Dg-Auth: {s}", tok(ALNUM + "=", 44))

# ---------------------------------------------------------------- ci and yaml (10)
sec(
    CI,
    KANIKO,
    "steps:\n  publish:\n    image: woodpeckerci/plugin-kaniko\n    settings:\n      repo: acme/api\n      username: acmebot\n      password: {s}",
    "dckr_pat_" + tok(B64URL, 27),
)
sec(CI, BAMBOO, "variables:\n  deploy.password: {s}\n", pw(18))
sec(
    CI,
    "https://docs.bunny.net/docs/github-actions",
    "      - uses: BunnyWay/actions/deploy-script@main\n        with:\n          api_key: {s}",
    uid() + "-" + uid()[:18],
)
sec(
    CI,
    "https://docs.weaviate.io/deploy/installation-guides/k8s-installation",
    "# values.yaml\nauthentication:\n  apikey:\n    enabled: true\n    allowed_keys:\n      - {s}",
    tok(ALNUM, 32),
)
sec(
    CI,
    "https://lerna.js.org/docs/recipes/gitlab-ci",
    'publish:\n  script:\n    - echo "//registry.npmjs.org/:_authToken=npm_{s}" > .npmrc\n    - npx lerna publish from-package --yes',
    tok(ALNUM, 36),
)
sec(
    CI,
    "https://milvus.io/docs/install_cluster-helm.md",
    "# milvus values.yaml\nextraConfigFiles:\n  user.yaml: |+\n    common:\n      security:\n        superUsers: root\n        defaultRootPassword: {s}",
    pw(17),
)
sec(
    CI,
    "https://docs.screwdriver.cd/user-guide/configuration/secrets",
    '$ curl -X POST https://api.screwdriver.acme.internal/v4/secrets -d \'{"pipelineId": 1042, "name": "NPM_TOKEN", "value": "{s}", "allowInPR": false}\'',
    "npm_" + tok(ALNUM, 36),
)
sec(
    CI,
    "https://docs.yugabyte.com/preview/deploy/kubernetes/single-zone/oss/helm-chart/",
    "authCredentials:\n  ysql:\n    user: app\n    password: {s}",
    pw(16),
)
sec(
    CI,
    "https://www.civo.com/docs/kubernetes/kubernetes-ci-cd",
    "env:\n  CIVO_TOKEN: {s}\n  CIVO_REGION: LON1",
    tok(ALNUM, 50),
)
sec(
    CI,
    "https://pocketbase.io/docs/going-to-production/",
    "services:\n  pocketbase:\n    environment:\n      - PB_ADMIN_PASSWORD={s}",
    pw(19),
)

# ---------------------------------------------------------------- connection string (10)
sec(
    CONN,
    "https://docs.couchdb.org/en/stable/replication/intro.html",
    '{"source": "http://repl:{s}@db1.acme.internal:5984/orders", "target": "orders"}',
    pw(14).replace("@", "^").replace(":", "~"),
)
sec(
    CONN,
    "https://docs.yugabyte.com/preview/drivers-orms/python/yugabyte-psycopg2/",
    "postgresql://yugabyte:{s}@10.0.4.12:5433/yugabyte?load_balance=true",
    pw(16).replace("@", "^").replace(":", "~"),
)
sec(
    CONN,
    "https://milvus.io/docs/authenticate.md",
    "MILVUS_URI=https://root:{s}@in03-7c.api.gcp-us-west1.zillizcloud.com:19530",
    pw(17).replace("@", "^").replace(":", "~"),
)
sec(
    CONN,
    "https://ravendb.net/docs/article-page/6.0/csharp/server/ongoing-tasks/etl/sql",
    "Server=sql01;Database=Orders;User Id=raven_etl;Password={s};",
    pw(18).replace(";", "!"),
)
sec(
    CONN,
    "https://opensource.docs.scylladb.com/stable/using-scylla/drivers/",
    "scylla://scylla_app:{s}@10.0.7.3:9042/analytics",
    pw(15).replace("@", "^").replace(":", "~"),
)
sec(
    CONN,
    DUPLICITY,
    "$ duplicity /home sftp://backup:{s}@nas.lan//volume1/dup",
    pw(16).replace("@", "^").replace(":", "~"),
)
sec(
    CONN,
    WASABI,
    "s3://AKWASABI7Q2ZK4N8VXTB:{s}@s3.eu-central-2.wasabisys.com/acme-backups",
    tok(ALNUM, 40),
)
sec(
    CONN,
    "https://docs.nhost.io/products/database/overview",
    "HASURA_GRAPHQL_DATABASE_URL=postgres://postgres:{s}@db.kq9z.eu-central-1.nhost.run:5432/kq9z",
    tok(ALNUM, 24),
)
sec(
    CONN,
    "https://www.rabbitmq.com/docs/uri-spec",
    "AMQP_URL=amqps://svc:{s}@mq.acme.internal/%2f",
    pw(17).replace("@", "^").replace(":", "~"),
)
sec(
    CONN,
    "https://dgraph.io/docs/dql/clients/go/",
    'dg, _ := dgo.Open("dgraph://groot:{s}@cloud.dgraph.io:443?sslmode=verify-ca")',
    pw(15).replace("@", "^").replace(":", "~"),
)

# ---------------------------------------------------------------- other language (10)
sec(LANG, TODOIST, "Mã truy cập Todoist của bạn: {s} (đừng chia sẻ mã này)", hexs(40))
sec(LANG, MUX, "Kata laluan token Mux: {s}", tok(ALNUM + "/+", 75))
sec(
    LANG,
    BUNNY,
    "Ufunguo wa API wa bunny.net ni {s} — usiushiriki na mtu yeyote.",
    uid() + "-" + uid()[:18],
)
sec(LANG, SPARK, "کلید API اسپارک‌پست: {s}", hexs(40))
sec(LANG, WEAV, "Weaviate API কী: {s}", tok(ALNUM, 48))
sec(LANG, COUCH, "CouchDB நிர்வாகி கடவுச்சொல்: {s}", pw(16))
sec(LANG, CIVO, "heslo_k_api = {s}  # klíč pro Civo, neposílat dál", tok(ALNUM, 50))
sec(LANG, POCKET, "Heslo správcu PocketBase je {s}", pw(18))
sec(LANG, SCYLLA, "парола_на_базата = {s}", pw(15))
sec(LANG, MILVUS, "lozinka za Milvus korisnika root: {s}", pw(17))

# ---------------------------------------------------------------- log line (10)
sec(
    LOG,
    COUCH,
    "[notice] 2026-12-03T10:14:07.118Z couchdb@127.0.0.1 <0.912.0> -------- 10.0.2.9 - - GET /_session?name=admin&password={s} 200",
    pw(14).replace("&", "+"),
)
sec(
    LOG,
    "https://www.mux.com/docs/guides/debug-webhooks",
    "DEBUG mux.client request POST https://api.mux.com/video/v1/assets auth=('0c9b2e71-4d0a-4f6e-9a3b-7e5c1d2f8a64', '{s}')",
    tok(ALNUM + "/+", 75),
)
sec(
    LOG,
    "https://pocketbase.io/docs/logs/",
    '{"level":"ERROR","message":"auth failed","data":{"identity":"ops@acme.io","password":"{s}"}}',
    pw(18).replace('"', "#"),
)
sec(
    LOG,
    "https://fusionauth.io/docs/operate/troubleshooting/troubleshooting",
    "2026-12-03 09:02:11.552 AM DEBUG io.fusionauth.api - Authorization header [{s}] did not match any API key",
    tok(B64URL, 60),
)
sec(
    LOG,
    "https://docs.bunny.net/cdn/logging",
    'time=2026-12-03T08:41:00Z level=warn msg="storage upload retry" url=https://storage.bunnycdn.com/acme-assets/ key={s}',
    uid() + "-" + hexs(4) + "-" + hexs(4),
)
sec(
    LOG,
    "https://milvus.io/docs/configure_log.md",
    '[2026/12/03 11:20:45.301 +00:00] [WARN] [proxy/authentication_interceptor.go:71] ["invalid credential"] [token=root:{s}]',
    pw(17).replace("]", "}"),
)
sec(
    LOG,
    "https://docs.onedev.io/tutorials/cicd/job-secrets",
    '12:04:31 [build #318] Running step "publish" with env REGISTRY_PASSWORD={s}',
    pw(20).replace('"', "#"),
)
sec(
    LOG,
    "https://docs.yugabyte.com/preview/reference/configuration/yugabyted/",
    "I1203 12:01:33.447 yugabyted] Setting ysql password to {s} for user yugabyte",
    pw(16),
)
sec(
    LOG,
    "https://www.sinch.com/docs/sms/api-reference/",
    "2026-12-03T13:05:12Z sms-gateway http_request method=POST url=https://us.sms.api.sinch.com/xms/v1/7a2c9f/batches bearer={s}",
    hexs(32),
)
sec(
    LOG,
    "https://dwolla.com/docs/balance/basics",
    "INFO  dwolla.auth  POST /token grant_type=client_credentials client_id=Hq4mY7vR2 client_secret={s} -> 200",
    tok(ALNUM, 50),
)

# ---------------------------------------------------------------- encoding (10)
sec(
    ENC,
    KANIKO,
    '{"auths": {"https://index.docker.io/v1/": {"auth": "{s}"}}}',
    base64.b64encode(f"acmebot:{pw(20)}".encode()).decode(),
)
sec(
    ENC,
    "https://docs.couchdb.org/en/stable/api/server/authn.html",
    "Cookie: AuthSession={s}",
    base64.urlsafe_b64encode(f"admin:6792{hexs(4)}:{hexs(20)}".encode()).decode().rstrip("="),
)
sec(
    ENC,
    "https://kubernetes.io/docs/concepts/configuration/secret/",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: weaviate-api-keys\ndata:\n  AUTHENTICATION_APIKEY_ALLOWED_KEYS: {s}",
    base64.b64encode(tok(ALNUM, 32).encode()).decode(),
)
sec(
    ENC,
    MUX,
    "MUX_CREDENTIALS_B64={s}",
    base64.b64encode(f"{uid()}:{tok(ALNUM, 60)}".encode()).decode(),
)
sec(
    ENC,
    "https://github.com/containers/image/blob/main/docs/containers-auth.json.5.md",
    '{"auths": {"quay.acme.internal": {"auth": "{s}"}}}',
    base64.b64encode(f"builder:{pw(18)}".encode()).decode(),
)
sec(
    ENC,
    "https://pnpm.io/npmrc",
    "//npm.acme.internal/:_auth={s}",
    base64.b64encode(f"ci:{pw(17)}".encode()).decode(),
)
sec(
    ENC,
    "https://dgraph.io/docs/cloud/admin/authentication/",
    "DGRAPH_API_KEY_B64={s}",
    base64.b64encode(tok(ALNUM, 40).encode()).decode(),
)
sec(
    ENC,
    "https://fusionauth.io/docs/apis/authentication",
    "FUSIONAUTH_KICKSTART_KEY=%22{s}%22",
    tok(ALNUM, 50),
)
sec(
    ENC,
    "https://upcloud.com/docs/guides/getting-started-upcloud-api/",
    "Authorization: Basic {s}",
    base64.b64encode(f"apiuser:{pw(18)}".encode()).decode(),
)
sec(
    ENC,
    "https://docs.nhost.io/products/auth/overview",
    'NHOST_JWT_SECRET=\'{"type":"HS256","key":"{s}"}\'',
    hexs(64),
)

# ---------------------------------------------------------------- webhook url (10)
sec(
    HOOK,
    "https://docs.screwdriver.cd/user-guide/configuration/settings",
    "    settings:\n      slack:\n        channels: [deploys]\n      webhooks: https://hooks.acme.internal/sd?token={s}",
    tok(ALNUM, 32),
)
sec(
    HOOK,
    "https://docs.bunny.net/docs/stream-webhook",
    "Webhook URL: https://api.acme.io/bunny/stream?secret={s}",
    hexs(32),
)
sec(
    HOOK,
    "https://www.mux.com/docs/core/listen-for-webhooks",
    "MUX_WEBHOOK_SECRET={s}",
    tok(LOWER_NUM, 32),
)
sec(HOOK, "https://docs.lemonsqueezy.com/help/webhooks", "LEMONSQUEEZY_WEBHOOK_SECRET={s}", pw(24))
sec(
    HOOK,
    "https://fusionauth.io/docs/extend/events-and-webhooks/",
    "POST https://api.acme.io/fusion/events?auth={s}",
    tok(B64URL, 40),
)
sec(
    HOOK,
    "https://developers.intercom.com/docs/webhooks",
    "https://hooks.acme.io/intercom/inbound/{s}",
    tok(ALNUM, 40),
)
sec(
    HOOK,
    "https://developer.todoist.com/appconsole.html",
    "todoist app webhook callback: https://tasks.acme.io/hook?client_secret={s}",
    hexs(32),
)
sec(
    HOOK,
    "https://developers.messagebird.com/api/conversations/#webhooks",
    "statusReportUrl: https://sms.acme.io/mb/status/{s}",
    tok(ALNUM, 36),
)
sec(
    HOOK,
    "https://pocketbase.io/docs/js-routing/",
    "https://pb.acme.io/api/hooks/deploy?key={s}",
    tok(ALNUM, 48),
)
sec(
    HOOK,
    "https://developers.sinch.com/docs/sms/api-reference/sms/tag/Batches/#callbacks",
    "callback_url: https://api.acme.io/sinch/dlr?sig={s}",
    hexs(40),
)

# ---------------------------------------------------------------- signing and build tools (10)
sec(SIGN, "https://docs.fastlane.tools/actions/match/", "MATCH_PASSWORD={s}", pw(22))
sec(SIGN, PODS, "machine trunk.cocoapods.org\n  login dev@acme.io\n  password {s}", hexs(32))
sec(
    SIGN,
    "https://leiningen.org/deploy.html",
    "$ lein deploy clojars\nUsername: acme\nPassword: {s}",
    "CLOJARS_" + hexs(60),
)
sec(
    SIGN,
    "https://rebar3.org/docs/package_management/publishing-packages/",
    "$ rebar3 hex user key generate\nGenerated key: {s}",
    hexs(32),
)
sec(
    SIGN,
    "https://docs.gradle.org/current/userguide/signing_plugin.html",
    "signing.keyId=4F2A91C3\nsigning.password={s}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
    pw(20),
)
sec(
    SIGN,
    "https://developer.android.com/studio/publish/app-signing",
    "storePassword={s}\nkeyAlias=upload",
    pw(18),
)
sec(
    SIGN,
    "https://github.com/containers/buildah/blob/main/docs/buildah-push.1.md",
    "$ buildah push --sign-passphrase-file /dev/stdin <<< '{s}' app:1.4",
    pw(20).replace("'", "#"),
)
sec(
    SIGN,
    "https://crystal-lang.org/reference/1.14/guides/writing_shards.html",
    "SHARDS_GIT_TOKEN={s}",
    "glpat-" + tok(B64URL, 20),
)
sec(
    SIGN,
    "https://opam.ocaml.org/doc/Packaging.html",
    "opam-publish: using GitHub token {s}",
    "github_pat_" + tok(ALNUM, 22) + "_" + tok(ALNUM, 59),
)
sec(
    SIGN,
    "https://help.sonatype.com/en/user-tokens.html",
    "mavenCentralPassword={s}",
    tok(ALNUM + "+/", 44),
)

# ================================================================ benign
# ids and uuids (14)
ben(
    IDS,
    MUXF,
    "Playback ID: {v}".replace("{v}", v := tok(ALNUM, 44)),
    v,
    "public playback id for a stream URL",
)
ben(
    IDS,
    MUX,
    "  asset_id: {v}".replace("{v}", v := tok(ALNUM, 38)),
    v,
    "Mux asset id, not a credential",
)
ben(
    IDS,
    BUNNY,
    '"Id": 1234, "Name": "my-pull-zone", "Guid": "{v}"'.replace("{v}", v := uid()),
    v,
    "resource guid in a listing",
)
ben(
    IDS,
    TODOIST,
    '{"id": "{v}", "content": "Buy groceries", "priority": 4}'.replace(
        "{v}", v := tok(LOWER_NUM, 16)
    ),
    v,
    "task id",
)
ben(
    IDS,
    COUCH,
    '{"ok":true,"id":"{v}","rev":"1-967a00dff5e02add41819138abb3284d"}'.replace(
        "{v}", v := hexs(32)
    ),
    v,
    "CouchDB document id",
)
ben(IDS, COUCH, "uuid = {v}".replace("{v}", v := hexs(32)), v, "CouchDB node uuid")
ben(
    IDS,
    SPARK,
    "# outputs {'total_accepted_recipients': 1, 'id': '{v}'}".replace(
        "{v}", v := str(rng.randrange(10**16, 10**17))
    ),
    v,
    "transmission id",
)
ben(
    IDS,
    WEAV,
    'uuid = "{v}"  # object id returned by collection.data.insert'.replace("{v}", v := uid()),
    v,
    "Weaviate object uuid",
)
ben(
    IDS,
    ZITADEL,
    "Project ID: {v}".replace("{v}", v := str(rng.randrange(10**17, 10**18))),
    v,
    "numeric project id",
)
ben(
    IDS,
    INTERCOM,
    '"type": "contact", "id": "{v}", "workspace_id": "ecahpwf5"'.replace("{v}", v := hexs(24)),
    v,
    "contact object id",
)
ben(
    IDS,
    "https://docs.screwdriver.cd/user-guide/environment-variables",
    "SD_BUILD_SHA={v}".replace("{v}", v := hexs(40)),
    v,
    "commit sha",
)
ben(
    IDS,
    DWOLLA,
    "Location: https://api.dwolla.com/customers/{v}".replace("{v}", v := uid()),
    v,
    "customer resource id",
)
ben(
    IDS,
    "https://docs.rev.ai/api/asynchronous/reference/",
    '{"id": "{v}", "status": "in_progress"}'.replace("{v}", v := tok(ALNUM, 12)),
    v,
    "job id",
)
ben(
    IDS,
    SINCH,
    "service_plan_id: {v}".replace("{v}", v := hexs(32)),
    v,
    "service plan id, paired with a token elsewhere",
)

# placeholders and references (14)
ben(PH, BUNNY, "--header 'AccessKey: YOUR_API_KEY'", "YOUR_API_KEY", "documentation placeholder")
ben(
    PH,
    MUX,
    "-u ${MUX_TOKEN_ID}:${MUX_TOKEN_SECRET}",
    "${MUX_TOKEN_SECRET}",
    "shell variable reference",
)
ben(
    PH,
    KANIKO,
    "      password:\n        from_secret: docker_password",
    "docker_password",
    "name of a stored secret",
)
ben(
    PH,
    CONDA,
    "anaconda token set <TOKEN> --org my-organization",
    "<TOKEN>",
    "angle-bracket placeholder",
)
ben(PH, SPARK, "SPARKPOST_API_KEY = 'API_KEY'", "API_KEY", "literal placeholder word")
ben(
    PH,
    WEAV,
    'weaviate_api_key = os.environ["WEAVIATE_API_KEY"]',
    'os.environ["WEAVIATE_API_KEY"]',
    "read from the environment",
)
ben(
    PH,
    BUNNYTF,
    "api_key = var.bunnynet_api_key",
    "var.bunnynet_api_key",
    "Terraform variable reference",
)
ben(
    PH,
    "https://docs.github.com/en/actions/security-guides/using-secrets-in-github-actions",
    "          api_key: ${{ secrets.CIVO_TOKEN }}",
    "${{ secrets.CIVO_TOKEN }}",
    "CI secret reference",
)
ben(
    PH,
    BAMBOO,
    "password: ${bamboo.deploy.password}",
    "${bamboo.deploy.password}",
    "Bamboo variable reference",
)
ben(
    PH,
    PDM,
    'password = "${PDM_PUBLISH_PASSWORD}"',
    "${PDM_PUBLISH_PASSWORD}",
    "environment interpolation",
)
ben(
    PH,
    "https://github.com/apache/couchdb-docker",
    "    environment:\n      - COUCHDB_USER=admin\n      - COUCHDB_PASSWORD=${COUCHDB_PASSWORD:?set in .env}",
    "${COUCHDB_PASSWORD:?set in .env}",
    "compose variable with a required-check",
)
ben(
    PH,
    MILVUS,
    'client = MilvusClient(uri=CLUSTER_ENDPOINT, token="<username>:<password>")',
    "<username>:<password>",
    "angle-bracket placeholder pair",
)
ben(
    PH,
    "https://docs.yugabyte.com/preview/secure/enable-authentication/authentication-ysql/",
    "PGPASSWORD=$(cat /run/secrets/ysql_password) ysqlsh -h db",
    "$(cat /run/secrets/ysql_password)",
    "command substitution from a file",
)
ben(
    PH,
    NHOST,
    "NHOST_ADMIN_SECRET={{ secrets.NHOST_ADMIN_SECRET }}",
    "{{ secrets.NHOST_ADMIN_SECRET }}",
    "template reference",
)

# code naming a secret (14)
ben(
    CODE,
    "https://github.com/muxinc/mux-node-sdk",
    "tokenSecret?: string | null | undefined;",
    "tokenSecret",
    "type declaration of a field",
)
ben(
    CODE,
    WEAV,
    "auth_credentials=Auth.api_key(weaviate_api_key),",
    "weaviate_api_key",
    "variable name",
)
ben(
    CODE,
    "https://github.com/pocketbase/js-sdk",
    "const { token, record } = await pb.collection('users').authWithPassword(email, password);",
    "authWithPassword",
    "method name",
)
ben(
    CODE,
    "https://fusionauth.io/docs/sdks/typescript",
    "public async retrieveAPIKey(keyId: UUID): Promise<ClientResponse<APIKeyResponse>> {",
    "retrieveAPIKey",
    "method signature",
)
ben(
    CODE,
    TODOIST,
    "revokeAuthToken()- Revokes an access token",
    "revokeAuthToken",
    "function name in docs",
)
ben(
    CODE,
    "https://pypi.org/project/sparkpost/",
    "def __init__(self, api_key=None, base_uri=None, version='1'):",
    "api_key=None",
    "default argument",
)
ben(
    CODE,
    "https://github.com/Dwolla/dwolla-v2-python",
    "if not self.secret:\n    raise ValueError('secret is required')",
    "self.secret",
    "attribute access",
)
ben(
    CODE,
    "https://docs.rs/scylla/latest/scylla/",
    '.user("username", &password)',
    "&password",
    "reference to a variable",
)
ben(
    CODE,
    "https://github.com/dgraph-io/pydgraph",
    "def login(self, userid, password, namespace=0):",
    "password",
    "parameter name",
)
ben(
    CODE,
    "https://pnpm.io/npmrc",
    "//npm.acme.internal/:_authToken=${NPM_TOKEN}",
    "${NPM_TOKEN}",
    "env var expansion in npmrc",
)
ben(
    CODE,
    "https://github.com/intercom/intercom-node",
    "const token = process.env.INTERCOM_TOKEN ?? '';",
    "process.env.INTERCOM_TOKEN",
    "environment lookup",
)
ben(
    CODE,
    "https://github.com/messagebird/csharp-rest-api",
    "public static Client CreateDefault(string accessKey, IProxyConfigurationInjector proxy = null)",
    "string accessKey",
    "parameter declaration",
)
ben(
    CODE,
    "https://ravendb.net/docs/article-page/6.0/csharp/client-api/creating-document-store",
    "store.Certificate = LoadCertificate(certPath, certPassword);",
    "certPassword",
    "variable name",
)
ben(
    CODE,
    "https://hexdocs.pm/mux/Mux.html",
    "token_secret = Application.fetch_env!(:mux, :access_token_secret)",
    "Application.fetch_env!(:mux, :access_token_secret)",
    "config lookup",
)

# public keys and client-side keys (14)
ben(
    PUB,
    "https://plausible.io/docs/plausible-script",
    '<script defer data-domain="acme.io" src="https://plausible.io/js/script.js"></script>',
    "acme.io",
    "public site domain for the tracker",
)
ben(
    PUB,
    "https://developers.intercom.com/installing-intercom/web/installation",
    "window.intercomSettings = { api_base: 'https://api-iam.intercom.io', app_id: '{v}' };".replace(
        "{v}", v := tok(LOWER_NUM, 8)
    ),
    v,
    "Intercom app id is embedded in every page",
)
ben(
    PUB,
    "https://docs.klarna.com/conversion-boosters/on-site-messaging/",
    '<script data-client-id="{v}" src="https://js.klarna.com/web-sdk/v1/klarna.js"></script>'.replace(
        "{v}", v := uid()
    ),
    v,
    "client id for the browser SDK",
)
ben(
    PUB,
    "https://www.mux.com/docs/guides/mux-data-playback",
    "mux.monitor('#video', { data: { env_key: '{v}' } });".replace("{v}", v := tok(LOWER_NUM, 26)),
    v,
    "Mux Data env key is public",
)
ben(
    PUB,
    "https://docs.nhost.io/reference/javascript/nhost-js/main",
    "const nhost = createClient({ subdomain: '{v}', region: 'eu-central-1' })".replace(
        "{v}", v := tok(LOWER_NUM, 20)
    ),
    v,
    "project subdomain",
)
ben(
    PUB,
    "https://zitadel.com/docs/sdk-examples/react",
    "client_id: '{v}@acme',".replace("{v}", v := str(rng.randrange(10**17, 10**18))),
    v,
    "OIDC client id for a SPA",
)
ben(
    PUB,
    "https://lemonsqueezy.com/docs/lemonjs",
    '<a href="https://acme.lemonsqueezy.com/buy/{v}" class="lemonsqueezy-button">Buy</a>'.replace(
        "{v}", v := uid()
    ),
    v,
    "public checkout link",
)
ben(
    PUB,
    "https://docs.sigstore.dev/cosign/key_management/signing_with_self-managed_keys/",
    "-----BEGIN PUBLIC KEY-----\n{v}\n-----END PUBLIC KEY-----".replace(
        "{v}", v := "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + tok(ALNUM + "+/", 52) + "=="
    ),
    v,
    "public key",
)
ben(
    PUB,
    "https://man.openbsd.org/ssh-keygen",
    "ssh-ed25519 {v} ci@acme".replace(
        "{v}", v := "AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(ALNUM + "+/", 43)
    ),
    v,
    "SSH public key",
)
ben(
    PUB,
    "https://docs.couchdb.org/en/stable/config/auth.html",
    "[jwt_keys]\nrsa:_default = -----BEGIN PUBLIC KEY-----\\n{v}\\n-----END PUBLIC KEY-----".replace(
        "{v}", v := "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + tok(ALNUM + "+/", 60)
    ),
    v,
    "JWT verification public key",
)
ben(
    PUB,
    "https://www.gnupg.org/documentation/manuals/gnupg/Operational-GPG-Commands.html",
    "pub   ed25519 2026-01-14 [SC]\n      {v}".replace("{v}", v := tok("0123456789ABCDEF", 40)),
    v,
    "OpenPGP fingerprint",
)
ben(
    PUB,
    "https://pocketbase.io/docs/client-side-sdks/",
    "const pb = new PocketBase('https://pb.acme.io');",
    "https://pb.acme.io",
    "public server URL",
)
ben(
    PUB,
    "https://docs.bunny.net/stream/embedding-videos",
    '<iframe src="https://iframe.mediadelivery.net/embed/{v}/8f2e1c9a-44b1-4d0f-9f65-3a0c7e2b1d54"></iframe>'.replace(
        "{v}", v := str(rng.randrange(100000, 999999))
    ),
    v,
    "public library id in an embed",
)
ben(
    PUB,
    "https://docs.weaviate.io/weaviate/configuration/authentication",
    "AUTHENTICATION_OIDC_CLIENT_ID: wcs",
    "wcs",
    "OIDC client id, public",
)

# hashes and digests (14)
ben(
    HASH,
    COUCH,
    "admin = -pbkdf2-{v},921a12f74df0c1052b3e562a23cd227f,10000".replace("{v}", v := hexs(40)),
    v,
    "stored PBKDF2 hash, not the password",
)
ben(
    HASH,
    COUCH,
    '{"ok":true,"id":"invoice-17","rev":"2-{v}"}'.replace("{v}", v := hexs(32)),
    v,
    "document revision hash",
)
ben(
    HASH,
    KANIKO,
    "gcr.io/kaniko-project/executor@sha256:{v}".replace(
        "{v}", v := hashlib.sha256(b"kaniko-k").hexdigest()
    ),
    v,
    "image digest",
)
ben(
    HASH,
    "https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html",
    "https://conda.anaconda.org/conda-forge/linux-64/numpy-2.1.3-py312h58c1407_0.conda#{v}".replace(
        "{v}", v := hashlib.md5(b"numpy-k").hexdigest()
    ),
    v,
    "package md5 in an explicit lockfile",
)
ben(
    HASH,
    "https://pdm-project.org/latest/usage/lockfile/",
    '    {file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:{v}"},'.replace(
        "{v}", v := hashlib.sha256(b"requests-k").hexdigest()
    ),
    v,
    "wheel hash in pdm.lock",
)
ben(
    HASH,
    "https://pnpm.io/git",
    "      integrity: sha512-{v}".replace(
        "{v}", v := base64.b64encode(hashlib.sha512(b"lodash-k").digest()).decode()
    ),
    v,
    "subresource integrity",
)
ben(
    HASH,
    "https://rebar3.org/docs/configuration/dependencies/",
    '{<<"cowboy">>,{pkg,<<"cowboy">>,<<"2.12.0">>},0}.\n[{pkg_hash,[{<<"cowboy">>, <<"{v}">>}]}]'.replace(
        "{v}", v := hashlib.sha256(b"cowboy-k").hexdigest().upper()
    ),
    v,
    "package hash in rebar.lock",
)
ben(
    HASH,
    "https://crystal-lang.org/reference/1.14/man/shards/index.html",
    "  kemal:\n    git: https://github.com/kemalcr/kemal.git\n    version: 1.6.0+git.commit.{v}".replace(
        "{v}", v := hexs(40)
    ),
    v,
    "commit in shard.lock",
)
ben(
    HASH,
    "https://opam.ocaml.org/doc/Manual.html",
    'checksum: ["sha512={v}"]'.replace("{v}", v := hashlib.sha512(b"opam-k").hexdigest()),
    v,
    "archive checksum in an opam file",
)
ben(
    HASH,
    PODS,
    "SPEC CHECKSUMS:\n  Alamofire: {v}".replace(
        "{v}", v := hashlib.sha1(b"alamofire-k").hexdigest()
    ),
    v,
    "Podfile.lock spec checksum",
)
ben(
    HASH,
    "https://leiningen.org/",
    "Retrieving clj-http/clj-http/3.13.0/clj-http-3.13.0.jar.sha1 ({v})".replace(
        "{v}", v := hashlib.sha1(b"clj-http-k").hexdigest()
    ),
    v,
    "artifact sha1",
)
ben(
    HASH,
    "https://www.mux.com/docs/core/listen-for-webhooks",
    "Mux-Signature: t=1765000000,v1={v}".replace(
        "{v}", v := hashlib.sha256(b"mux-sig-k").hexdigest()
    ),
    v,
    "HMAC signature of one delivery, not the key",
)
ben(
    HASH,
    DUPLICITY,
    "duplicity-full-signatures.20261203T020000Z.sigtar.gpg  sha1 {v}".replace(
        "{v}", v := hashlib.sha1(b"dup-k").hexdigest()
    ),
    v,
    "file checksum",
)
ben(
    HASH,
    "https://docs.onedev.io/appendix/job-variables",
    "@commit_hash@ resolved to {v}".replace("{v}", v := hexs(40)),
    v,
    "commit hash from a job variable",
)

# masked values (14)
ben(
    MASK,
    "https://docs.onedev.io/tutorials/cicd/job-secrets",
    "+ echo $NPM_TOKEN\n********",
    "********",
    "CI log masks the secret",
)
ben(
    MASK,
    SPARK,
    "$sparky = new SparkPost($httpClient, ['key'=>'**********']);",
    "**********",
    "masked in a bug report",
)
ben(
    MASK,
    BUNNY,
    "API key: ••••••••-••••-••••-••••-••••••••••••",
    "••••••••-••••-••••-••••-••••••••••••",
    "dashboard shows dots until revealed",
)
ben(
    MASK,
    MUX,
    "Token secret: ****************************3f9a",
    "****************************3f9a",
    "last four only",
)
ben(
    MASK,
    WEAV,
    'my_secret_key = weaviate.AuthApiKey(api_key="4jne...9me1")',
    "4jne...9me1",
    "elided in documentation",
)
ben(
    MASK,
    "https://fusionauth.io/docs/apis/api-keys",
    '"key": "bm9...Zg==", "metaData": {"attributes": {"description": "CI"}}',
    "bm9...Zg==",
    "truncated key in a listing",
)
ben(
    MASK,
    "https://docs.lemonsqueezy.com/api/webhooks/retrieve-webhook",
    '"secret": "[REDACTED]"',
    "[REDACTED]",
    "API redacts stored secret",
)
ben(
    MASK,
    "https://www.civo.com/docs/overview/civo-cli",
    "+---------+------------------------+\n| Name    | Key                    |\n+---------+------------------------+\n| prod    | Hk7s************Qw2    |",
    "Hk7s************Qw2",
    "CLI shows a masked key",
)
ben(
    MASK,
    "https://docs.yugabyte.com/preview/reference/configuration/yugabyted/",
    "ysql_password: <hidden>",
    "<hidden>",
    "status output hides it",
)
ben(
    MASK,
    "https://developers.messagebird.com/api/#authentication",
    "Live key: live_••••••••••••••••gT4",
    "live_••••••••••••••••gT4",
    "masked in the dashboard",
)
ben(
    MASK,
    "https://dgraph.io/docs/deploy/cli-command-reference/",
    '--acl "secret-file=/run/secrets/hmac; access-ttl=6h" (secret: *****)',
    "*****",
    "flag value masked in startup banner",
)
ben(MASK, "https://pocketbase.io/docs/logs/", '"password": "***"', "***", "log masks password")
ben(
    MASK,
    "https://kubernetes.io/docs/reference/kubectl/generated/kubectl_describe/",
    "Data\n====\nAUTHENTICATION_APIKEY_ALLOWED_KEYS:  32 bytes",
    "32 bytes",
    "kubectl describe shows only the size",
)
ben(
    MASK,
    "https://help.sonatype.com/en/user-tokens.html",
    "User token: Kf3uQz9a / ••••••••••••",
    "••••••••••••",
    "token passcode hidden after creation",
)


def check_rows(rows: list[dict[str, str]]) -> list[str]:
    """Return a list of problems with the rows (empty when all is well)."""
    problems: list[str] = []
    secrets = [r["secret"] for r in rows if r["expect"] == "secret"]
    if len(secrets) != len(set(secrets)):
        problems.append("duplicate secrets")
    for i, r in enumerate(rows):
        if r["expect"] == "secret":
            if (
                set(r) != {"class", "context", "expect", "secret", "source"}
                or r["class"] not in SECRET_CLASSES
            ):
                problems.append(f"row {i}: bad secret row keys or class")
            if r["secret"] not in r["context"]:
                problems.append(f"row {i}: secret not in context")
            if any(b in r["secret"].lower() for b in BANNED):
                problems.append(f"row {i}: banned substring in secret")
        else:
            if (
                set(r) != {"class", "context", "expect", "value", "reason", "source"}
                or r["class"] not in BENIGN_CLASSES
            ):
                problems.append(f"row {i}: bad benign row keys or class")
            if r["value"] not in r["context"]:
                problems.append(f"row {i}: value not in context")
        if not r["source"].startswith("https://"):
            problems.append(f"row {i}: source is not https")
    n_secret = len(secrets)
    n_benign = len(rows) - n_secret
    if n_secret < 160 or n_benign < 80:
        problems.append(f"too few rows: {n_secret} secret, {n_benign} benign")
    return problems


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str]) -> int:
    problems = check_rows(ROWS)
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != render(ROWS):
            problems.append(f"{OUT.name} is missing or differs from the rows")
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{len(ROWS)} rows, {'ok' if not problems else 'FAILED'}")
        return 1 if problems else 0
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return 1
    OUT.write_text(render(ROWS), encoding="utf-8")
    print(f"wrote {len(ROWS)} rows to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
