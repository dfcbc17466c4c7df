# ruff: noqa: E501
"""Build batch J of the held-apart redaction set (batch-j.jsonl).

Written blind to the redaction rules: shapes come from the documentation of tools that no
earlier batch names. 29 documentation pages were read for this batch (the WorkOS, Sanity,
Xata, Ghost, Atlantis, cabal/Hackage, Memgraph, Rundeck, Sumo Logic, Cohere, Svix,
Contentstack, Vagrant and TDengine pages cited in `source`); the rest of the rows follow what the cited tools document for their token,
password and configuration shapes. Every secret is fake, drawn from a seeded random.Random,
so the file is the same on every run.

Run `python tests/data/redaction_held_apart/build_batch_j.py` to write batch-j.jsonl next to
this file; `--check` verifies the file and the rows instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import string
import sys
import uuid
from pathlib import Path

OUT = Path(__file__).with_name("batch-j.jsonl")
rng = random.Random(20261203)

ALNUM = string.ascii_letters + string.digits
LOWER_NUM = string.ascii_lowercase + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
ULID = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32, as in WorkOS ids
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
MARK = "\u00a7"  # where the secret or the look-alike goes in a template

ROWS: list[dict[str, str]] = []


def r(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def pw(n: int = 16) -> str:
    """A password as people choose them for services: letters, digits, a few symbols."""
    while True:
        s = r(ALNUM + "!#%^*-_=+.", n)
        if any(c.isdigit() for c in s) and any(c in "!#%^*-_=+." for c in s):
            return s


def words_pw() -> str:
    w = ["orchard", "Velvet", "copper", "Lantern", "meadow", "Quartz", "harbor", "Tundra"]
    return rng.choice(w) + rng.choice("-_.") + rng.choice(w) + str(rng.randint(10, 9999))


def jwt() -> str:
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    return head + "." + "eyJ" + r(B64URL, 90) + "." + r(B64URL, 43)


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def sha256() -> str:
    return hashlib.sha256(r(ALNUM, 32).encode()).hexdigest()


def secret(cls: str, template: str, gen, source: str, reps: int = 2) -> None:
    for _ in range(reps):
        value = gen()
        ROWS.append(
            {
                "class": cls,
                "context": template.replace(MARK, value),
                "expect": "secret",
                "secret": value,
                "source": source,
            }
        )


def benign(cls: str, template: str, gen, reason: str, source: str, reps: int = 1) -> None:
    for _ in range(reps):
        value = gen() if callable(gen) else gen
        ROWS.append(
            {
                "class": cls,
                "context": template.replace(MARK, value),
                "expect": "benign",
                "value": value,
                "reason": reason,
                "source": source,
            }
        )


# ---------------------------------------------------------------- vendor token (30)
V = "vendor token"
secret(
    V,
    "WORKOS_API_KEY=§\nWORKOS_CLIENT_ID=client_01HZ3K8Q2V7M4N6P9R1S5T0W2X",
    lambda: "sk_test_" + r(B64URL, 56),
    "https://www.mintlify.com/workos/workos-node/api/workos-client",
)
secret(
    V,
    "const workos = new WorkOS('§');",
    lambda: "sk_live_" + r(ALNUM, 48),
    "https://nango.dev/docs/api-integrations/workos/connect",
)
secret(
    V,
    "$ sanity debug --secrets\nAuthentication:\n  User type: normal\n  Auth token: §",
    lambda: "sk" + r(ALNUM, 82),
    "https://www.sanity.io/docs/http-auth",
)
secret(
    V,
    "XATA_API_KEY=§\nXATA_BRANCH=main",
    lambda: "xau_" + r(ALNUM, 32),
    "https://xata.io/docs/api-reference.md",
)
secret(
    V,
    "GHOST_ADMIN_API_KEY=§\nGHOST_API_URL=https://studio-notes.ghost.io",
    lambda: r(HEX, 24) + ":" + r(HEX, 64),
    "https://docs.rs/ghost-io-api/0.2.0/ghost_io_api/auth/admin/struct.AdminApiKey.html",
)
secret(
    V,
    "export CO_API_KEY=§",
    lambda: r(ALNUM, 40),
    "https://www.apideck.com/blog/how-to-get-your-cohere-api-key",
)
secret(
    V,
    "MAILERSEND_API_KEY=§",
    lambda: "mlsn." + r(HEX, 64),
    "https://developers.mailersend.com/general.html#authentication",
)
secret(
    V,
    "CLOUDSMITH_API_KEY=§ cloudsmith push python acme/pkgs dist/acme-1.4.0.tar.gz",
    lambda: r(HEX, 40),
    "https://help.cloudsmith.io/docs/api-key",
)
secret(
    V,
    "# coralogix send-your-data key\nCORALOGIX_PRIVATE_KEY=§",
    lambda: "cxtp_" + r(ALNUM, 30),
    "https://coralogix.com/docs/user-guides/account-management/api-keys/send-your-data-api-key/",
)
secret(
    V,
    'config.appsignal.push_api_key = "§"',
    uid,
    "https://docs.appsignal.com/appsignal/terminology.html#push-api-key",
)
secret(
    V,
    "CHARGEBEE_SITE=acme-test\nCHARGEBEE_API_KEY=§",
    lambda: "test_" + r(ALNUM, 34),
    "https://apidocs.chargebee.com/docs/api/auth",
)
secret(
    V,
    "GOCARDLESS_ACCESS_TOKEN=§",
    lambda: "live_" + r(B64URL, 40),
    "https://developer.gocardless.com/getting-started/api/making-your-first-request/",
)
secret(
    V,
    "ADYEN_API_KEY=§",
    lambda: "AQE" + r(ALNUM, 20) + "+" + r(B64, 60) + "=-" + r(B64, 40) + "=-" + r(ALNUM, 14),
    "https://docs.adyen.com/development-resources/api-credentials/",
)
secret(
    V,
    "CONVEX_DEPLOY_KEY='§'",
    lambda: (
        "prod:"
        + rng.choice(["happy-otter", "quiet-heron", "brave-lynx"])
        + "-"
        + str(rng.randint(100, 999))
        + "|"
        + r(B64URL, 72)
    ),
    "https://docs.convex.dev/cli/deploy-key-types",
)
secret(
    V,
    "APPWRITE_API_KEY=§",
    lambda: "standard_" + r(HEX, 256),
    "https://appwrite.io/docs/advanced/platform/api-keys",
)

secret(
    V,
    "SVIX_WEBHOOK_SECRET=§",
    lambda: "whsec_" + r(ALNUM + "+/", 32),
    "https://docs.svix.com/receiving/verifying-payloads/how-manual",
)
secret(
    V,
    "CONTENTSTACK_API_KEY=blt4c2e9a1f7b3d5e60\nCONTENTSTACK_MANAGEMENT_TOKEN=§",
    lambda: "cs" + r(HEX, 32),
    "https://contentstack.com/docs/developers/create-tokens/overview-of-tokens/",
    reps=1,
)

# ---------------------------------------------------------------- config file (30)
C = "config file"
secret(
    C,
    "# ~/.cabal/config\nrepository hackage.haskell.org\n  url: http://hackage.haskell.org/\nusername: mkovacs\npassword: §",
    pw,
    "https://github.com/dcoutts/cabal/wiki/cabal-upload",
)
secret(
    C,
    "# atlantis server --config /etc/atlantis/config.yaml\ngh-user: ci-atlantis\ngh-token: §\nrepo-allowlist: github.com/acme/*",
    lambda: "ghp_" + r(ALNUM, 36),
    "https://www.runatlantis.io/docs/server-configuration",
)
secret(
    C,
    "gh-webhook-secret: §\nlog-level: info",
    lambda: r(HEX, 64),
    "https://www.runatlantis.io/docs/webhook-secrets",
)
secret(
    C,
    "; custom/conf/app.ini (Forgejo)\n[security]\nINSTALL_LOCK = true\nSECRET_KEY = §",
    lambda: r(ALNUM, 64),
    "https://forgejo.org/docs/latest/admin/config-cheat-sheet/",
)
secret(
    C,
    "[oauth2]\nJWT_SECRET = §",
    lambda: r(B64URL, 43),
    "https://forgejo.org/docs/latest/admin/config-cheat-sheet/",
)
secret(
    C,
    "# tokens.properties\nci-bot: §, admin",
    lambda: r(ALNUM, 32),
    "https://docs.rundeck.com/docs/api/",
)
secret(
    C,
    '// settings.pkl\namends "package://pkg.pkl-lang.org/acme/service@1.2.0#/Service.pkl"\ndatabase {\n  user = "orders"\n  password = "§"\n}',
    pw,
    "https://pkl-lang.org/main/current/language-reference/index.html",
)
secret(
    C,
    '// deploy.cue\npackage deploy\n\nsmtp: {\n\thost:     "smtp.mailersend.net"\n\tuser:     "MS_k2Pq9a@acme.test"\n\tpassword: "§"\n}',
    pw,
    "https://cuelang.org/docs/tour/basics/json-superset/",
)
secret(
    C,
    '-- config.dhall\n{ host = "db.internal"\n, port = 5433\n, user = "reporter"\n, password = "§"\n}',
    pw,
    "https://docs.dhall-lang.org/tutorials/Language-Tour.html",
)
secret(
    C,
    '// service.kdl\nsmtp host="mail.acme.test" port=587 {\n    username "notify"\n    password "§"\n}',
    pw,
    "https://kdl.dev/",
)
secret(
    C,
    '# application.conf (HOCON)\ndb.default {\n  url = "jdbc:postgresql://db.internal/orders"\n  username = orders\n  password = "§"\n}',
    pw,
    "https://github.com/lightbend/config/blob/main/HOCON.md",
)
secret(
    C,
    "// config.jsonnet\n{\n  grafana: {\n    adminUser: 'admin',\n    adminPassword: '§',\n  },\n}",
    pw,
    "https://jsonnet.org/learning/tutorial.html",
)
secret(
    C,
    "# .envrc\nexport COHERE_API_KEY=§\nuse flake",
    lambda: r(ALNUM, 40),
    "https://direnv.net/man/direnv-stdlib.1.html",
)
secret(
    C,
    "# ~/.pypirc\n[pypi]\n  username = __token__\n  password = §",
    lambda: "pypi-AgEIcHlwaS5vcmc" + r(B64URL, 120),
    "https://twine.readthedocs.io/en/stable/",
)
secret(
    C,
    '# variables.pkrvars.hcl\nssh_username = "packer"\nssh_password = "§"',
    pw,
    "https://developer.hashicorp.com/packer/guides/hcl/variables",
)

# ---------------------------------------------------------------- cli password flag (25)
P = "cli password flag"
secret(
    P,
    "$ cabal upload -u mkovacs -p § dist-newstyle/sdist/acme-json-0.3.1.tar.gz",
    pw,
    "https://github.com/dcoutts/cabal/wiki/cabal-upload",
)
secret(
    P,
    "$ cabal upload --token=§ --publish dist-newstyle/sdist/acme-json-0.3.1.tar.gz",
    lambda: r(HEX, 64),
    "https://gitlab.haskell.org/ghc/packages/Cabal/-/tree/a0d815c4773a9d7aa0f48cc5bd08947d282dc917",
)
secret(
    P,
    "$ docker run -it memgraph/mgconsole:latest --host 10.0.4.12 --username analyst --password §",
    pw,
    "https://memgraph.com/docs/getting-started/cli",
)
secret(
    P,
    "$ atlantis server --atlantis-url https://atlantis.acme.test --gh-user ci-atlantis --gh-token § --repo-allowlist 'github.com/acme/*'",
    lambda: "ghp_" + r(ALNUM, 36),
    "https://www.runatlantis.io/docs/server-configuration",
)
secret(
    P,
    "$ exaplus -c exa-prod.acme.test:8563 -u sys -p § -s analytics",
    pw,
    "https://docs.exasol.com/db/latest/connect_exasol/sql_clients/exaplus_cli/exaplus_cli.htm",
)
secret(P, "$ mycli -h db.internal -u reporter -p § orders", pw, "https://www.mycli.net/docs")
secret(
    P,
    "$ dolt sql-server --host 0.0.0.0 --port 3306 -u root -p §",
    pw,
    "https://docs.dolthub.com/cli-reference/cli",
)
secret(
    P,
    "$ immuadmin login immudb --password §",
    pw,
    "https://docs.immudb.io/master/connecting/clitools.html",
)
secret(
    P,
    "$ trivy image --username ci-reader --password § registry.acme.test/api:1.8.2",
    pw,
    "https://trivy.dev/latest/docs/advanced/private-registries/docker-hub/",
)
secret(
    P,
    "$ okteto context use https://okteto.acme.test --token §",
    lambda: r(ALNUM, 40),
    "https://www.okteto.com/docs/reference/okteto-cli/",
)
secret(
    P,
    "$ balena login --token §",
    lambda: r(ALNUM, 32),
    "https://docs.balena.io/reference/balena-cli/",
)
secret(
    P,
    "$ buildbot-worker create-worker worker buildmaster.acme.test:9989 linux-amd64 §",
    pw,
    "https://docs.buildbot.net/latest/manual/installation/worker.html",
)
secret(
    P,
    "$ forgejo-runner register --no-interactive --instance https://code.acme.test --token § --name rack-3",
    lambda: r(ALNUM, 40),
    "https://forgejo.org/docs/latest/admin/actions/runner-installation/",
    reps=1,
)

secret(
    P,
    "$ vagrant cloud auth login --token §",
    lambda: r(ALNUM, 14) + ".atlasv1." + r(ALNUM, 70),
    "https://developer.hashicorp.com/vagrant/docs/cli/cloud",
)

# ---------------------------------------------------------------- source literal (15)
L = "source literal"
secret(
    L,
    'client = cohere.ClientV2(api_key="§")',
    lambda: r(ALNUM, 40),
    "https://www.apideck.com/blog/how-to-get-your-cohere-api-key",
)
secret(
    L,
    "const client = createClient({\n  projectId: 'k7x2m9qa',\n  dataset: 'production',\n  token: '§',\n})",
    lambda: "sk" + r(ALNUM, 82),
    "https://www.sanity.io/answers/accessing-a-sanity-project-in-a-react-app-using-the-js-client-",
)
secret(
    L,
    'xata = XataClient(api_key="§", db_url="https://acme-k2j3m4.us-east-1.xata.sh/db/shop")',
    lambda: "xau_" + r(ALNUM, 32),
    "https://xata.io/docs/rest-api",
)
secret(
    L,
    'let key = AdminApiKey::new("§").unwrap();',
    lambda: r(HEX, 24) + ":" + r(HEX, 64),
    "https://docs.rs/ghost-io-api/0.2.0/ghost_io_api/auth/admin/struct.AdminApiKey.html",
)
secret(
    L,
    'db = Memgraph(host="10.0.4.12", port=7687, username="analyst", password="§")',
    pw,
    "https://memgraph.com/docs/gqlalchemy/how-to-guides/memgraph-binary-instance",
)
secret(
    L,
    'workos = WorkOSClient(api_key="§", client_id="client_01HZ3K8Q2V7M4N6P9R1S5T0W2X")',
    lambda: "sk_live_" + r(ALNUM, 48),
    "https://nango.dev/docs/api-integrations/workos/connect",
)
secret(
    L,
    "$mailersend = new MailerSend(['api_key' => '§']);",
    lambda: "mlsn." + r(HEX, 64),
    "https://developers.mailersend.com/general.html#authentication",
)
secret(
    L,
    'ChargeBee.configure(site: "acme", api_key: "§")',
    lambda: "live_" + r(ALNUM, 34),
    "https://apidocs.chargebee.com/docs/api/auth",
    reps=1,
)

# ---------------------------------------------------------------- http auth header (10)
H = "http auth header"
secret(
    H,
    "$ curl -H 'X-Rundeck-Auth-Token: §' -H 'Accept: application/json' https://rundeck.acme.test/api/41/projects",
    lambda: r(ALNUM, 32),
    "https://github.com/genadipost/rundeck-api-example",
)
secret(
    H,
    'curl -H "Authorization: Bearer §" https://k7x2m9qa.api.sanity.io/v2021-06-07/data/query/production',
    lambda: "sk" + r(ALNUM, 82),
    "https://www.sanity.io/docs/http-auth",
)
secret(
    H,
    "GET /v2/user/me HTTP/1.1\nHost: kapi.kakao.com\nAuthorization: KakaoAK §",
    lambda: r(HEX, 32),
    "https://developers.kakao.com/docs/latest/en/rest-api/getting-started",
)
secret(
    H,
    "POST /pa/send_message HTTP/1.1\nHost: chatapi.viber.com\nX-Viber-Auth-Token: §",
    lambda: r(HEX, 16) + "-" + r(HEX, 16) + "-" + r(HEX, 16),
    "https://developers.viber.com/docs/api/rest-bot-api/",
)
secret(
    H,
    "curl -H 'X-Bot-Token: §' https://api.revolt.chat/users/@me",
    lambda: r(ALNUM, 64),
    "https://developers.revolt.chat/developers/api/authentication",
)

secret(
    H,
    "curl -H 'api_key: blt4c2e9a1f7b3d5e60' -H 'authorization: §' https://eu-api.contentstack.com/v3/content_types",
    lambda: "cs" + r(HEX, 32),
    "https://contentstack.com/docs/developers/create-tokens/overview-of-tokens/",
)

# ---------------------------------------------------------------- ci and yaml (10)
Y = "ci and yaml"
secret(
    Y,
    "# .cirrus.yml\ntask:\n  name: publish\n  env:\n    TWINE_PASSWORD: §\n  script: twine upload dist/*",
    lambda: "pypi-AgEIcHlwaS5vcmc" + r(B64URL, 120),
    "https://cirrus-ci.org/guide/writing-tasks/#environment-variables",
)
secret(
    Y,
    "# .forgejo/workflows/deploy.yml\njobs:\n  deploy:\n    runs-on: docker\n    env:\n      SEMGREP_APP_TOKEN: §",
    lambda: r(HEX, 64),
    "https://semgrep.dev/docs/semgrep-ci/ci-environment-variables",
)
secret(
    Y,
    "# okteto.yml\ndeploy:\n  - name: migrate\n    command: ./migrate.sh\n    environment:\n      DB_PASSWORD: §",
    pw,
    "https://www.okteto.com/docs/reference/okteto-manifest/",
)
secret(
    Y,
    '# devspace.yaml\nvars:\n  REGISTRY_PASSWORD:\n    value: "§"',
    pw,
    "https://www.devspace.sh/docs/configuration/variables",
)
secret(
    Y,
    "# zuul.d/jobs.yaml (unencrypted by mistake)\n- secret:\n    name: site-upload\n    data:\n      username: zuul\n      password: §",
    pw,
    "https://zuul-ci.org/docs/zuul/latest/project-config.html#secret",
)

# ---------------------------------------------------------------- connection string (10)
N = "connection string"
secret(N, "$ pgcli postgres://reporter:§@pg.internal:5432/orders", pw, "https://www.pgcli.com/docs")
secret(N, "$ usql mysql://root:§@127.0.0.1:3306/dolt_shop", pw, "https://github.com/xo/usql")
secret(
    N,
    'QDB_CLIENT_CONF="https::addr=questdb.acme.test:9000;username=admin;password=§;"',
    pw,
    "https://questdb.com/docs/configuration-string/",
)
secret(
    N,
    "DATABASE_URL=postgres://tsdbadmin:§@k3j2h1g0f9.x8y7z6w5.tsdb.cloud.timescale.com:34567/tsdb?sslmode=require",
    lambda: r(ALNUM, 20),
    "https://docs.timescale.com/use-timescale/latest/integrations/",
)
secret(
    N,
    "duckdb 'md:analytics?motherduck_token=§'",
    jwt,
    "https://motherduck.com/docs/key-tasks/authenticating-and-connecting-to-motherduck/authenticating-to-motherduck/",
)

secret(
    N,
    'let taos = TaosBuilder::from_dsn("taos+ws://root:§@td-edge.acme.test:6041/meters")?.build()?;',
    pw,
    "https://docs.rs/crate/taos-query/latest/source/src/common/opts.rs",
)

# ---------------------------------------------------------------- other language (10)
OL = "other language"
secret(
    OL,
    '# Julia\nENV["COHERE_API_KEY"] = "§"\nusing HTTP',
    lambda: r(ALNUM, 40),
    "https://docs.julialang.org/en/v1/base/base/#Base.ENV",
    reps=1,
)
secret(
    OL,
    '# Nim\nlet client = newXataClient(apiKey = "§")',
    lambda: "xau_" + r(ALNUM, 32),
    "https://nim-lang.org/docs/os.html",
    reps=1,
)
secret(
    OL,
    '; project.clj (Clojure)\n:deploy-repositories [["clojars" {:url "https://repo.clojars.org" :username "mkovacs" :password "§"}]]',
    lambda: "CLOJARS_" + r(HEX, 60),
    "https://github.com/clojars/clojars-web/wiki/Deploy-Tokens",
    reps=1,
)
secret(
    OL,
    "Kunci API produksi untuk Cohere adalah § — jangan dibagikan ke luar tim.",
    lambda: r(ALNUM, 40),
    "https://www.apideck.com/blog/how-to-get-your-cohere-api-key",
    reps=1,
)
secret(
    OL,
    "Salasana tietokantaan on § ja käyttäjä on reporter.",
    pw,
    "https://www.pgcli.com/docs",
    reps=1,
)
secret(
    OL,
    "कृपया यह टोकन किसी से साझा न करें: §",
    lambda: "xau_" + r(ALNUM, 32),
    "https://xata.io/documentation/platform/api-key",
    reps=1,
)
secret(
    OL,
    "مفتاح الإدارة الخاص بـ Ghost هو § ويمنح صلاحية النشر الكاملة.",
    lambda: r(HEX, 24) + ":" + r(HEX, 64),
    "https://docs.stigg.io/documentation/workflows/ghost",
    reps=1,
)
secret(
    OL,
    "Ο κωδικός του Memgraph για τον χρήστη analyst: §",
    pw,
    "https://memgraph.com/docs/database-management/authentication-and-authorization/users",
    reps=1,
)
secret(
    OL,
    "סיסמה: § (חשבון ההעלאה ל-Hackage)",
    pw,
    "https://github.com/dcoutts/cabal/wiki/cabal-upload",
    reps=1,
)
secret(
    OL,
    "ตั้งค่า รหัสผ่าน ของ mgconsole เป็น § ก่อนรันสคริปต์",
    pw,
    "https://memgraph.com/docs/getting-started/cli",
    reps=1,
)
secret(
    OL,
    '# configurare.toml\n[bază_de_date]\nutilizator = "raportor"\nparolă = "§"',
    pw,
    "https://github.com/lightbend/config/blob/main/HOCON.md",
    reps=1,
)
secret(
    OL,
    "# beállítások.ini\n[adatbázis]\nfelhasználó = riport\njelszó = §",
    pw,
    "https://www.mycli.net/docs",
    reps=1,
)
secret(
    OL,
    "Токен Rundeck для CI: §, діє 30 днів.",
    lambda: r(ALNUM, 32),
    "https://docs.rundeck.com/docs/api/",
    reps=1,
)

# ---------------------------------------------------------------- log line (10)
G = "log line"
secret(
    G,
    "2026-11-30 08:14:02+0000 [-] worker linux-amd64 attached; password=§ (from master.cfg)",
    pw,
    "https://docs.buildbot.net/latest/manual/configuration/workers.html",
)
secret(
    G,
    '{"level":"debug","ts":"2026-11-30T08:14:02.113Z","caller":"server/server.go:412","msg":"using gh-token=§"}',
    lambda: "ghp_" + r(ALNUM, 36),
    "https://www.runatlantis.io/docs/server-configuration",
)
secret(
    G,
    "[2026-11-30 08:14:02,113] DEBUG api.TokenAuth - authenticated request with token §",
    lambda: r(ALNUM, 32),
    "https://docs.rundeck.com/docs/api/",
)
secret(
    G,
    "[memgraph_log] [info] Executing: CREATE USER analyst IDENTIFIED BY '§';",
    pw,
    "https://memgraph.com/docs/database-management/authentication-and-authorization/users",
)
secret(
    G,
    "2026/11/30 08:14:02 ...routers/install/install.go:412:SubmitInstall() [I] Saved INTERNAL_TOKEN=§",
    lambda: jwt(),
    "https://forgejo.org/docs/latest/admin/config-cheat-sheet/",
)


# ---------------------------------------------------------------- encoding (10)
def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


E = "encoding"
secret(
    E,
    "Authorization: Basic §",
    lambda: b64("acme-test:" + "test_" + r(ALNUM, 34)),
    "https://apidocs.chargebee.com/docs/api/auth",
)
secret(
    E,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: atlantis-vcs\ndata:\n  github_token: §",
    lambda: b64("ghp_" + r(ALNUM, 36)),
    "https://www.runatlantis.io/docs/server-configuration",
)
secret(
    E,
    "DATABASE_URL=postgres://reporter:§@pg.internal:5432/orders",
    lambda: r(ALNUM, 8) + "%40" + r(ALNUM, 6) + "%23" + r(ALNUM, 4),
    "https://www.pgcli.com/docs",
)
secret(
    E,
    '{"sanity":{"token":"§"}}',
    lambda: "sk" + r(ALNUM, 40) + "\\u002b" + r(ALNUM, 38),
    "https://www.sanity.io/docs/http-auth",
)
secret(
    E,
    '{\n  "auths": {\n    "registry.acme.test": { "auth": "§" }\n  }\n}',
    lambda: b64("ci-reader:" + pw()),
    "https://trivy.dev/latest/docs/advanced/private-registries/docker-hub/",
)

# ---------------------------------------------------------------- webhook url (10)
W = "webhook url"
secret(
    W,
    '[[outputs.sumologic]]\n  url = "§"\n  data_format = "carbon2"',
    lambda: (
        "https://endpoint4.collection.us2.sumologic.com/receiver/v1/http/" + r(B64URL, 110) + "=="
    ),
    "https://github.com/dstrelau/telegraf/blob/master/plugins/outputs/sumologic",
)
secret(
    W,
    "curl -X POST -d @build.json §",
    lambda: (
        "https://hooks.zapier.com/hooks/catch/"
        + str(rng.randint(1000000, 9999999))
        + "/"
        + r(LOWER_NUM, 7)
        + "/"
    ),
    "https://help.zapier.com/hc/en-us/articles/8496288690317",
)
secret(
    W,
    "FLOCK_WEBHOOK=§",
    lambda: "https://api.flock.com/hooks/sendMessage/" + uid(),
    "https://docs.flock.com/display/flockos/Incoming+Webhooks",
)
secret(
    W,
    'ALERT_URL="§"',
    lambda: (
        "https://prod-"
        + str(rng.randint(10, 99))
        + ".westeurope.logic.azure.com:443/workflows/"
        + r(HEX, 32)
        + "/triggers/manual/paths/invoke?api-version=2016-10-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig="
        + r(B64URL, 43)
    ),
    "https://learn.microsoft.com/en-us/azure/connectors/connectors-native-reqres",
)
secret(
    W,
    "PIPEDREAM_ENDPOINT=§",
    lambda: "https://eo" + r(LOWER_NUM, 14) + ".m.pipedream.net",
    "https://pipedream.com/docs/workflows/building-workflows/triggers/",
)

# ---------------------------------------------------------------- signing and build tools (10)
S = "signing and build tools"
secret(
    S,
    "$ jarsigner -keystore release.jks -storepass § build/libs/app.jar release",
    pw,
    "https://docs.oracle.com/en/java/javase/21/docs/specs/man/jarsigner.html",
)
secret(S, "$ PGP_PASSPHRASE='§' sbt publishSigned", words_pw, "https://github.com/sbt/sbt-pgp")
secret(
    S,
    "NFPM_RPM_PASSPHRASE=§ nfpm package --packager rpm --target dist/",
    pw,
    "https://nfpm.goreleaser.com/configuration/",
)
secret(
    S,
    "JRELEASER_GPG_PASSPHRASE=§\nJRELEASER_GPG_PUBLIC_KEY=build/keys/public.asc",
    words_pw,
    "https://jreleaser.org/guide/latest/reference/signing.html",
)
secret(
    S,
    "$ hatch publish --user __token__ --auth § dist/*",
    lambda: "pypi-AgEIcHlwaS5vcmc" + r(B64URL, 120),
    "https://hatch.pypa.io/latest/publish/",
    reps=1,
)
secret(
    S,
    "$ poetry config pypi-token.pypi §",
    lambda: "pypi-AgEIcHlwaS5vcmc" + r(B64URL, 120),
    "https://python-poetry.org/docs/repositories/#configuring-credentials",
    reps=1,
)

# ================================================================ benign rows
ID = "look-alike: ids and uuids"
benign(
    ID,
    "$ sanity tokens delete § --yes",
    lambda: "sil" + r(ALNUM, 11),
    "token id used to name the token, not its value",
    "https://sanity.io/docs/cli-reference/tokens",
    reps=2,
)
benign(
    ID,
    "$ curl -X POST -H 'X-Rundeck-Auth-Token: $RD_TOKEN' https://rundeck.acme.test/api/41/job/§/run",
    uid,
    "job UUID in the API path",
    "https://docs.rundeck.com/docs/api/",
    reps=2,
)
benign(
    ID,
    "org_id: §",
    lambda: "org_01" + r(ULID, 24),
    "WorkOS organization id",
    "https://www.mintlify.com/workos/workos-node/api/workos-client",
    reps=2,
)
benign(
    ID,
    "GET /ghost/api/admin/posts/§/ HTTP/1.1",
    lambda: r(HEX, 24),
    "Ghost post id",
    "https://docs.ghost.org/admin-api/",
    reps=2,
)
benign(
    ID,
    "zuul-executor: [e: 3f2a91c0] [build: §] Beginning job tox-py311",
    lambda: r(HEX, 32),
    "Zuul build uuid in a log line",
    "https://zuul-ci.org/docs/zuul/latest/",
    reps=2,
)
benign(
    ID,
    "$ balena device § --json",
    lambda: r(HEX, 32),
    "balena device uuid",
    "https://docs.balena.io/reference/balena-cli/",
    reps=2,
)
benign(
    ID,
    "mandate: §  status: active",
    lambda: "MD" + r(UPPER_NUM, 12),
    "GoCardless mandate id",
    "https://developer.gocardless.com/getting-started/api/making-your-first-request/",
    reps=1,
)
benign(
    ID,
    '"pspReference": "§", "resultCode": "Authorised"',
    lambda: str(rng.randint(10**15, 10**16 - 1)),
    "Adyen payment reference",
    "https://docs.adyen.com/development-resources/api-credentials/",
    reps=1,
)
benign(
    ID,
    "Collector id: § (hosted)",
    lambda: str(rng.randint(100000000, 999999999)),
    "Sumo Logic collector id",
    "https://www.sumologic.com/help/docs/send-data/hosted-collectors/http-source",
    reps=1,
)

benign(
    ID,
    '"svix-id": "§",',
    lambda: "msg_" + r(ALNUM, 24),
    "Svix message id header",
    "https://docs.svix.com/receiving/verifying-payloads/how-manual",
    reps=1,
)
benign(
    ID,
    "$ curl -H 'api_key: §' https://cdn.contentstack.io/v3/content_types?environment=production",
    lambda: "blt" + r(HEX, 16),
    "Contentstack stack API key identifies the stack; it needs a token to act",
    "https://contentstack.com/docs/developers/create-tokens/overview-of-tokens/",
    reps=1,
)

PH = "look-alike: placeholders and references"
benign(
    PH,
    "# beállítások.ini\njelszó = §",
    "<ide írd a jelszót>",
    "Hungarian placeholder",
    "https://www.mycli.net/docs",
)
benign(
    PH,
    "รหัสผ่าน: §",
    "<ใส่รหัสผ่านของคุณ>",
    "Thai placeholder",
    "https://memgraph.com/docs/getting-started/cli",
)
benign(
    PH,
    "$ vagrant login --token §",
    "ABCD1234",
    "example token from the vagrant docs",
    "https://developer.hashicorp.com/vagrant/docs/cli/login",
)
benign(
    PH,
    'curl -H "Authorization: Bearer §" https://<project>.api.sanity.io/v2021-06-07/data/query',
    "<token>",
    "placeholder in documented curl line",
    "https://www.sanity.io/docs/http-auth",
)
benign(
    PH,
    'curl https://api.xata.tech -H "Authorization: Bearer §"',
    "$XATA_API_KEY",
    "shell variable reference",
    "https://xata.io/docs/api-reference.md",
)
benign(
    PH,
    "      CLOUDSMITH_API_KEY: §",
    "${{ secrets.CLOUDSMITH_API_KEY }}",
    "CI secret reference",
    "https://forgejo.org/docs/latest/user/actions/",
)
benign(
    PH,
    "  TWINE_PASSWORD: §",
    "ENCRYPTED[9f3a2c71e04b8d5a6c1e2f3b4a5d6c7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9]",
    "Cirrus ciphertext reference, only decryptable by Cirrus for this repo",
    "https://cirrus-ci.org/guide/writing-tasks/#encrypted-variables",
)
benign(
    PH,
    "gh-token: §",
    "...",
    "elided value in documented config example",
    "https://www.runatlantis.io/docs/server-configuration",
)
benign(
    PH,
    "db.default.password = §",
    "${?DB_PASSWORD}",
    "HOCON optional env substitution",
    "https://github.com/lightbend/config/blob/main/HOCON.md",
)
benign(
    PH,
    "let apiKey = §",
    "env:COHERE_API_KEY as Text",
    "Dhall environment import",
    "https://docs.dhall-lang.org/tutorials/Language-Tour.html",
)
benign(
    PH,
    "  password = §",
    'read("env:DB_PASSWORD")',
    "Pkl reads the value from the environment",
    "https://pkl-lang.org/main/current/language-reference/index.html",
)
benign(
    PH,
    "  adminPassword: §,",
    "std.extVar('grafana_password')",
    "Jsonnet external variable",
    "https://jsonnet.org/learning/tutorial.html",
)
benign(
    PH,
    "export GHOST_ADMIN_API_KEY=§",
    "$(pass show ghost/admin-key)",
    "fetched from a password store at load time",
    "https://direnv.net/man/direnv-stdlib.1.html",
)
benign(
    PH,
    'TOKEN="§"',
    "x-rundeck-auth-token:<secret>",
    "angle-bracket placeholder",
    "https://docs.rundeck.com/docs/api/",
)
benign(
    PH,
    "COHERE_API_KEY=§",
    "your-cohere-api-key",
    "documentation placeholder",
    "https://www.apideck.com/blog/how-to-get-your-cohere-api-key",
)
benign(
    PH,
    "$ cabal upload -u mkovacs -p § dist/acme-0.1.tar.gz",
    "PASSWORD",
    "usage placeholder from cabal help",
    "https://github.com/dcoutts/cabal/wiki/cabal-upload",
)
benign(
    PH,
    "ssh_password = §",
    "var.ssh_password",
    "Packer variable reference",
    "https://developer.hashicorp.com/packer/guides/hcl/variables",
)
benign(
    PH,
    'url = "§"',
    "https://events.sumologic.net/receiver/v1/http/<UniqueHTTPCollectorCode>",
    "placeholder collector code",
    "https://github.com/dstrelau/telegraf/blob/master/plugins/outputs/sumologic",
)

CN = "look-alike: code naming a secret"
benign(
    CN,
    'apiKey := os.Getenv("§")',
    "WORKOS_API_KEY",
    "environment variable name",
    "https://www.mintlify.com/workos/workos-node/api/workos-client",
)
benign(
    CN,
    'let api_user = SecretString::from(env::var("§").expect("missing"));',
    "MAILERSEND_API_KEY",
    "environment variable name",
    "https://developers.mailersend.com/general.html#authentication",
)
benign(
    CN,
    'key = ENV["§"]  # Julia',
    "COHERE_API_KEY",
    "environment variable name",
    "https://docs.julialang.org/en/v1/base/base/#Base.ENV",
)
benign(
    CN,
    'let token = getEnv("§")  # Nim',
    "XATA_API_KEY",
    "environment variable name",
    "https://nim-lang.org/docs/os.html",
)
benign(
    CN,
    ':password (System/getenv "§")',
    "CLOJARS_DEPLOY_TOKEN",
    "environment variable name",
    "https://github.com/clojars/clojars-web/wiki/Deploy-Tokens",
)
benign(
    CN,
    'pgpPassphrase := sys.env.get("§").map(_.toArray)',
    "PGP_PASSPHRASE",
    "environment variable name",
    "https://github.com/sbt/sbt-pgp",
)
benign(
    CN,
    'const key = try std.process.getEnvVarOwned(allocator, "§");',
    "GHOST_ADMIN_API_KEY",
    "environment variable name",
    "https://ziglang.org/documentation/master/std/",
)
benign(
    CN,
    'variable "ssh_password" {\n  type      = string\n  sensitive = §\n}',
    "true",
    "declares the variable sensitive; no value",
    "https://developer.hashicorp.com/packer/guides/hcl/variables",
)
benign(
    CN,
    "def rotate_§(client): ...",
    "rundeck_api_token",
    "function name",
    "https://docs.rundeck.com/docs/api/",
)
benign(
    CN,
    'if !strings.HasPrefix(key, "§") { return ErrBadKey }',
    "sk_",
    "key prefix check",
    "https://nango.dev/docs/api-integrations/workos/connect",
)
benign(
    CN,
    "Error: --with-user-token specified, but no auth token could be found. Run `§`",
    "sanity login",
    "error message naming the login command",
    "https://app.unpkg.com/sanity@3.35.2/files/src/_internal/cli/threads/configClient.ts",
)
benign(
    CN,
    "ATLANTIS_GH_WEBHOOK_SECRET=$(§ -rsecurerandom -e 'puts SecureRandom.hex(32)')",
    "ruby",
    "command that generates the secret, not the secret",
    "https://www.runatlantis.io/docs/webhook-secrets",
)
benign(
    CN,
    "pub const MIN_KEY_LENGTH: usize = §;",
    "26",
    "key length constant",
    "https://docs.rs/ghost-io-api/0.2.0/ghost_io_api/auth/content/struct.ContentApiKey.html",
)
benign(
    CN,
    "String secretKey = §;",
    'System.getenv("MAILERSEND_SECRET")',
    "reads the secret at run time",
    "https://developers.mailersend.com/general.html#authentication",
)
benign(
    CN,
    "val password = §",
    'System.getenv("EXASOL_PASSWORD") ?: error("EXASOL_PASSWORD unset")',
    "Kotlin env lookup",
    "https://docs.exasol.com/db/latest/connect_exasol/sql_clients/exaplus_cli/exaplus_cli.htm",
)

PK = "look-alike: public keys and client-side keys"
benign(
    PK,
    "const api = new GhostContentAPI({ url: 'https://studio-notes.ghost.io', key: '§', version: 'v5.0' });",
    lambda: r(HEX, 26),
    "Ghost Content API key, documented safe for browsers",
    "https://docs.ghost.org/content-api/",
    reps=2,
)
benign(
    PK,
    "WORKOS_CLIENT_ID=§",
    lambda: "client_01" + r(ULID, 24),
    "WorkOS client id is public",
    "https://www.mintlify.com/workos/workos-node/api/workos-client",
    reps=2,
)
benign(
    PK,
    "NEXT_PUBLIC_SANITY_PROJECT_ID=§",
    lambda: r(LOWER_NUM, 8),
    "Sanity project id is public",
    "https://www.sanity.io/answers/accessing-a-sanity-project-in-a-react-app-using-the-js-client-",
    reps=2,
)
benign(
    PK,
    "Kakao.init('§'); // JavaScript key, restricted to registered domains",
    lambda: r(HEX, 32),
    "Kakao JavaScript key is client-side by design",
    "https://developers.kakao.com/docs/latest/en/javascript/getting-started",
    reps=2,
)
benign(
    PK,
    "const checkout = await AdyenCheckout({ clientKey: '§', environment: 'test' });",
    lambda: "test_" + r(UPPER_NUM, 32),
    "Adyen client key for the browser",
    "https://docs.adyen.com/development-resources/client-side-authentication/",
    reps=2,
)
benign(
    PK,
    "forgejo deploy key: §",
    lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43) + " ci@forgejo",
    "SSH public key",
    "https://forgejo.org/docs/latest/user/",
    reps=2,
)
benign(
    PK,
    "$ curl https://zuul.acme.test/api/tenant/acme/key/infra/deploy.pub\n-----BEGIN PUBLIC KEY-----\n§\n-----END PUBLIC KEY-----",
    lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + r(B64, 300) + "IDAQAB",
    "Zuul project public key used to encrypt secrets",
    "https://zuul-ci.org/docs/zuul/latest/project-config.html#secret",
    reps=1,
)
benign(
    PK,
    "gpg: using RSA key §",
    lambda: r("0123456789ABCDEF", 40),
    "public key fingerprint",
    "https://github.com/sbt/sbt-pgp",
    reps=1,
)
benign(
    PK,
    "VITE_CONVEX_URL=§",
    lambda: (
        "https://"
        + rng.choice(["happy-otter", "quiet-heron"])
        + "-"
        + str(rng.randint(100, 999))
        + ".convex.cloud"
    ),
    "public deployment URL",
    "https://docs.convex.dev/cli/deploy-key-types",
    reps=1,
)

HS = "look-alike: hashes and digests"
benign(
    HS,
    'source "qemu" "debian" {\n  iso_checksum = "sha256:§"\n}',
    sha256,
    "ISO checksum",
    "https://developer.hashicorp.com/packer/integrations/hashicorp/qemu",
    reps=2,
)
benign(
    HS,
    '[[deps.JSON3]]\ngit-tree-sha1 = "§"\nuuid = "0f8b85d8-7281-11e9-16c2-39a750bddbf1"',
    lambda: r(HEX, 40),
    "Julia Manifest tree hash",
    "https://pkgdocs.julialang.org/v1/toml-files/",
    reps=2,
)
benign(
    HS,
    '.dependencies = .{\n    .zap = .{\n        .url = "https://github.com/zigzap/zap/archive/v0.9.1.tar.gz",\n        .hash = "§",\n    },\n},',
    lambda: "1220" + r(HEX, 64),
    "Zig package content hash",
    "https://ziglang.org/documentation/master/",
    reps=2,
)
benign(
    HS,
    "Name: org/acme/App.class\nSHA-256-Digest: §",
    lambda: base64.b64encode(bytes(rng.getrandbits(8) for _ in range(32))).decode(),
    "jarsigner manifest digest",
    "https://docs.oracle.com/en/java/javase/21/docs/specs/man/jarsigner.html",
    reps=2,
)
benign(
    HS,
    'files = [\n    {file = "cohere-5.11.0-py3-none-any.whl", hash = "sha256:§"},\n]',
    sha256,
    "poetry.lock file hash",
    "https://python-poetry.org/docs/basic-usage/#installing-with-poetrylock",
    reps=2,
)
benign(
    HS,
    "$ dolt log -n 1\ncommit § (HEAD -> main)\nAuthor: mkovacs <mkovacs@acme.test>",
    lambda: r("0123456789abcdefghijklmnopqrstuv", 32),
    "Dolt commit hash",
    "https://docs.dolthub.com/cli-reference/cli",
    reps=2,
)
benign(
    HS,
    "registry.acme.test/api@sha256:§",
    sha256,
    "image digest",
    "https://trivy.dev/latest/docs/advanced/private-registries/docker-hub/",
    reps=2,
)
benign(
    HS,
    "Forgejo Actions: checked out § (refs/heads/main)",
    lambda: r(HEX, 40),
    "git commit id",
    "https://forgejo.org/docs/latest/user/actions/",
    reps=1,
)

MK = "look-alike: masked values"
benign(
    MK,
    "$ rd tokens list\n  ci-bot  token: §  roles: admin",
    lambda: r(ALNUM, 4) + "************************",
    "only the first characters are shown",
    "https://docs.rundeck.com/docs/api/",
    reps=2,
)
benign(
    MK,
    '{"level":"info","msg":"gh-token=§"}',
    "<redacted>",
    "Atlantis log with the value redacted",
    "https://www.runatlantis.io/docs/server-configuration",
)
benign(
    MK,
    "  env:\n    TWINE_PASSWORD: §",
    "[MASKED]",
    "CI output masks the value",
    "https://cirrus-ci.org/guide/writing-tasks/#encrypted-variables",
)
benign(
    MK,
    "ssh_password = §",
    "(sensitive value)",
    "Packer hides sensitive variables",
    "https://developer.hashicorp.com/packer/guides/hcl/variables",
)
benign(
    MK,
    "API Key: §",
    lambda: "sk_test_" + "\u2022" * 20 + r(ALNUM, 4),
    "WorkOS dashboard shows only the tail",
    "https://nango.dev/docs/api-integrations/workos/connect",
    reps=2,
)
benign(
    MK,
    "worker linux-amd64: password=§",
    "********",
    "Buildbot obfuscated password",
    "https://docs.buildbot.net/latest/manual/configuration/workers.html",
)
benign(
    MK,
    "$ balena whoami\nUSERNAME: mkovacs\nAPI KEY:  §",
    lambda: "\u2026" + r(ALNUM, 4),
    "truncated key",
    "https://docs.balena.io/reference/balena-cli/",
    reps=2,
)
benign(
    MK,
    'url = "https://endpoint4.collection.us2.sumologic.com/receiver/v1/http/§"',
    "****",
    "collector code masked in shared config",
    "https://www.sumologic.com/help/docs/send-data/hosted-collectors/http-source",
)
benign(
    MK,
    "Hackage token: §",
    lambda: r(HEX, 6) + "\u2026" + r(HEX, 4),
    "abbreviated token",
    "https://gitlab.haskell.org/ghc/packages/Cabal/-/tree/a0d815c4773a9d7aa0f48cc5bd08947d282dc917",
    reps=2,
)
benign(
    MK,
    "CHARGEBEE_API_KEY=§",
    lambda: "live_" + "X" * 30 + r(ALNUM, 4),
    "masked in a support ticket",
    "https://apidocs.chargebee.com/docs/api/auth",
    reps=2,
)
benign(
    MK,
    "mgconsole --username analyst --password §",
    "'*****'",
    "password typed as stars in the shell history dump",
    "https://memgraph.com/docs/getting-started/cli",
)


# A random value can spell a placeholder word ("XXX"); the harness refuses such a secret, so
# its letters are broken up in that row alone, leaving every other row's draw as it was.
for _row in ROWS:
    if _row["expect"] == "secret" and "xxx" in _row["secret"].lower():
        _fixed = re.sub("(?i)(x)(x)(x)", r"\1\2k", _row["secret"])
        _row["context"] = _row["context"].replace(_row["secret"], _fixed)
        _row["secret"] = _fixed


def check_rows(rows: list[dict[str, str]]) -> list[str]:
    errors = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        if row["expect"] == "secret":
            s = row["secret"]
            if s not in row["context"]:
                errors.append(f"row {i}: secret not in context")
            if s in seen:
                errors.append(f"row {i}: secret repeated")
            seen.add(s)
        else:
            if row["value"] not in row["context"]:
                errors.append(f"row {i}: value not in context")
        if not row["source"].startswith("https://"):
            errors.append(f"row {i}: source not https")
    return errors


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main(argv: list[str]) -> int:
    errors = check_rows(ROWS)
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != render(ROWS):
            errors.append(f"{OUT.name} is out of date; run this script")
        for e in errors:
            print(e, file=sys.stderr)
        return 1 if errors else 0
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return 1
    OUT.write_text(render(ROWS), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
