# ruff: noqa: E501
"""Build batch O of the held-apart redaction set.

Written blind to the redaction rules: the author did not read the redaction code, its tests, its
figures or any earlier batch. The rows follow the documentation of tools that no earlier batch
names (education platforms, e-signature, travel booking, shipping, accounting, church software,
translation and localisation, audio streaming, fleet telematics, weather, self-hosted wikis,
Android signing for Flutter, chat webhooks). The pages actually read are the `source` of each row:

- Canvas LMS: github.com/jczstudios/canvastools wiki (access_token query), rdrr.io cnvs_token and
  vvcanvas canvas_authenticate, skills.sh canvas-parent-api (Bearer header), npm kth-canvas-api.
- Moodle: docs.huihoo.com phpdoc of webservice/rest/server.php, login/token.php, webservice/lib.php;
  sourceforge moodlerestjava.
- DeepL: developers.deepl.com auth, first API request, and the auth_key deprecation notice;
  tryagi.github.io DeepL authentication.
- Crowdin: rubydoc.info crowdin-cli 0.3.3, pyOpenSci python-package-guide PR 473 diff, npm
  @cadolabs/crowdin-cli.
- Lokalise and Localizely and Localazy: smithery.ai lokalise-common-errors, skills.sh lokalise
  skill, python-lokalise-api.readthedocs.io, github.com/bavdh/localizely-client-go,
  localazy.com quick-start-api and api/authentication.
- OpenWeatherMap: grantwinney 15-apis-in-15-days day 12, hackage openweathermap-0.1.0, cnblogs
  wjhfree post.
- Wiki.js: requarks/wiki config.sample.yml; CapRover one-click gist (hivivo).
- BookStack: BookStackApp .env.example, hassio-addons addon-bookstack PR 32 diff.
- DocuSign: developers.docusign.com esign101 auth, require-access-code how-to; ruby-toolbox
  docusigner; pastebin m6qY321W (legacy password grant).
- Amadeus: developers.amadeus.com authorization guide; TheLOGOGuy developer-guides authorization;
  gist siddydutta; volcengine article 2575693.
- ShipEngine / ShipStation API: docs.shipstation.com curl guide and on-behalf-of page, ShipEngine
  shipengine-js README and shipengine-java README, Broadleaf ShipEngine integration page.
- Navidrome and Last.fm: build.opensuse.org navidrome.toml, 2sek homeserver navidrome compose,
  rowkavdev nowplaying wiki (salted Subsonic token), foxxmd multi-scrobbler Last.fm page,
  hexdocs lastfm_archive setup, pastebin f49509cfd (Last.fm servers XML).
- Icecast: build.opensuse.org multimedia:xiph icecast.xml, pastebin se9s88kY (masked passwords).
- Samsara: pypi.org samsara-api 13.55.0.  Wialon Fleetrun: help.wialon.com API tokens (en, es).
  Pleos Fleet API getting started.
- Planning Center: github.com/planningcenter/developers, pco_api_oauth_example_sinatra_ruby,
  pub.dev planningcenter_api 0.9.9 example, npm pco-tokens, gist jwmoss.  Pushpay: pushpay.io
  security.
- Xero: hexdocs xeroxero Tokens, unpkg xero-node 15.0.0 XeroClient.d.ts, gist channeladam,
  tessl airbyte source-xero configuration.
- Zoom: developers.zoom.us chatbot tokens-and-identifiers and webhook URL validation changelog,
  skills.sh hookdeck zoom-webhooks.  Calendly: developer.calendly.com personal-access-tokens.
- Amazon Chime webhooks: docs.aws.amazon.com chatbot create-chime-webhook-configuration, Airflow
  Amazon Chime connection, github Ornpreeyaa amazon-chime-github-webhook.  TeamDynamix web API
  integrations webhook.  Shortcut outgoing webhooks API.
- Flutter Android signing: TheNightmanCodeth/DitRa wiki key.properties, cosmicsarthak
  foodie-rush-app, francisrod01 dio-flashlight-app, pub.dev keystore_generator and
  flutter_auto_sign 0.0.1, gist kunny build.gradle.

Every secret comes from a seeded generator: the values are fake, and the file is the same on
every run.

Usage: `python tests/data/redaction_held_apart/build_batch_o.py` writes batch-o.jsonl;
`--check` verifies the file equals the rows and the rows are valid, printing "N rows, ok"
(exit 0) or the problems (exit 1).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import sys
from pathlib import Path

OUT = Path(__file__).with_name("batch-o.jsonl")
rng = random.Random(20261204)

BANNED = ("example", "xxx", "changeme")
AN = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64URL = AN + "-_"
_used: set[str] = set()


def tok(alphabet: str, n: int, prefix: str = "") -> str:
    """A fresh random string: never one already returned, never one holding a banned word."""
    while True:
        value = prefix + "".join(rng.choice(alphabet) for _ in range(n))
        if value not in _used and not any(b in value.lower() for b in BANNED):
            _used.add(value)
            return value


def pw() -> str:
    """A password of letters, digits and a few punctuation marks that survive most quoting."""
    while True:
        value = tok(AN + "-_.!*^~", rng.randint(14, 22))
        if any(c.isdigit() for c in value) and any(c.isupper() for c in value):
            return value


def hexs(n: int) -> str:
    return tok(HEX, n)


def uid() -> str:
    h = hexs(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def jwt() -> str:
    return tok(B64URL, 26, "eyJ") + "." + tok(B64URL, 70, "eyJ") + "." + tok(B64URL, 43)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


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

# Pages read.
CANVAS_TOOLS = "https://github.com/jczstudios/canvastools/wiki/%5BApplications%5D-Register"
CANVAS_CNVS = "https://rdrr.io/github/cwickham/cnvs/man/cnvs_token.html"
CANVAS_R = "https://rdrr.io/cran/vvcanvas/man/canvas_authenticate.html"
CANVAS_CURL = "https://www.skills.sh/site/clawhub.ai/canvas-parent-api"
CANVAS_NPM = "https://npmjs.com/package/kth-canvas-api"
MOODLE_SERVER = (
    "https://docs.huihoo.com/phpdoc/moodle/2.8/xref/webservice/rest/server.php.source.txt"
)
MOODLE_LOGIN = "https://docs.huihoo.com/phpdoc/moodle/2.8/xref/login/token.php.source.txt"
MOODLE_LIB = "https://docs.huihoo.com/phpdoc/moodle/2.8/xref/webservice/lib.php.source.txt"
MOODLE_JAVA = "https://www.sourceforge.net/projects/moodlerestjava/files/V0.1"
MOODLE_COMMIT = "https://github.com/moodle/moodle/commit/d8f85b6e8b4807333a84db2ce00fc41c0e667dc0"
DEEPL_AUTH = "https://developers.deepl.com/docs/getting-started/auth"
DEEPL_FIRST = "https://developers.deepl.com/docs/id/getting-started/your-first-api-request"
DEEPL_LEGACY = "https://developers.deepl.com/docs/resources/breaking-changes-change-notices/november-2025-deprecation-of-legacy-auth-methods"
DEEPL_CS = "https://tryagi.github.io/DeepL/guides/authentication"
CROWDIN_RUBY = "https://www.rubydoc.info/gems/crowdin-cli/0.3.3"
CROWDIN_GHA = "https://github.com/pyOpenSci/python-package-guide/pull/473.diff"
CROWDIN_CADO = "https://npmjs.com/package/@cadolabs/crowdin-cli"
LOKALISE_ERR = "https://smithery.ai/skills/jeremylongshore/lokalise-common-errors"
LOKALISE_CLI = "https://skills.sh/cbarbera80/localize-skill/lokalise"
LOKALISE_PY = "https://python-lokalise-api.readthedocs.io/"
LOKALISE_HELLO = "https://smithery.ai/skills/jeremylongshore/lokalise-hello-world"
LOCALIZELY = "https://github.com/bavdh/localizely-client-go"
LOCALAZY = "https://localazy.com/docs/integrations/quick-start-api"
OWM_DAY12 = "https://github.com/grantwinney/15-apis-in-15-days/blob/master/Day%2012%20-%20OpenWeatherMap%20API.md"
OWM_HS = "https://hackage.haskell.org/package/openweathermap-0.1.0/docs/Web-OpenWeatherMap-API.html"
OWM_CN = "https://www.cnblogs.com/wjhfree/p/19229994"
WIKIJS = "https://raw.githubusercontent.com/requarks/wiki/main/config.sample.yml"
WIKIJS_CAP = "https://gist.github.com/hivivo/7a513b1ab6a98a1f3c4795f9b963cb5a"
BOOKSTACK = "https://github.com/BookStackApp/BookStack/blob/development/.env.example"
BOOKSTACK_HA = "https://github.com/hassio-addons/addon-bookstack/pull/32.diff"
DOCUSIGN_AUTH = "https://developers.docusign.com/docs/esign-rest-api/esign101/auth/"
DOCUSIGN_CODE = (
    "https://developers.docusign.com/docs/esign-rest-api/how-to/require-access-code-recipient"
)
DOCUSIGN_RUBY = "https://ruby-toolbox.com/projects/docusigner"
DOCUSIGN_LEGACY = "https://pastebin.com/m6qY321W"
AMADEUS = "https://developers.amadeus.com/self-service/apis-docs/guides/authorization"
AMADEUS_GUIDE = "https://github.com/TheLOGOGuy/developer-guides/blob/master/guides/authorization.md"
AMADEUS_PY = "https://gist.github.com/siddydutta/7f06b3ba2d13d48f30f5fe4709e7372c"
AMADEUS_JS = "https://www.volcengine.com/article/2575693"
SHIP_CURL = "https://docs.shipstation.com/apis/shipengine/docs/guides/curl.md"
SHIP_OBO = "https://docs.shipstation.com/apis/shipengine/docs/partners/on-behalf-of"
SHIP_JS = "https://github.com/ShipEngine/shipengine-js/blob/b544d3e5a1c07605588c81dba66326dabc892b98/README.md"
SHIP_JAVA = "https://github.com/ShipEngine/shipengine-java"
SHIP_BROADLEAF = (
    "https://developer.broadleafcommerce.com/services/shipping-services/integrations/shipengine"
)
NAVIDROME_TOML = "https://build.opensuse.org/projects/home:illuusio:golang/packages/navidrome/files/navidrome.toml?expand=0"
NAVIDROME_COMPOSE = (
    "https://raw.githubusercontent.com/2sek/homeserver-docker/main/navidrome/docker-compose.yml"
)
NAVIDROME_SUBSONIC = "https://github.com/rowkavdev/nowplaying/wiki/Connect-Navidrome"
LASTFM_MS = "https://foxxmd.github.io/multi-scrobbler/configuration/clients/lastfm/"
LASTFM_EX = "https://hexdocs.pm/lastfm_archive/setup.html"
LASTFM_XML = "https://pastebin.com/f49509cfd"
ICECAST = "https://build.opensuse.org/projects/multimedia:xiph/packages/icecast/files/icecast.xml?expand=1"
ICECAST_MASKED = "https://pastebin.com/se9s88kY"
SAMSARA = "https://pypi.org/project/samsara-api/13.55.0/"
WIALON = "https://help.wialon.com/en/fleetrun/user-guide/administrator-interface/api-tokens"
WIALON_ES = "https://help.wialon.com/es/fleetrun/user-guide/administrator-interface/api-tokens"
PLEOS = "https://pleos.ai/playground/resources/en/api-reference/fleet-api/getting-started"
PCO = "https://github.com/planningcenter/developers"
PCO_SINATRA = "https://github.com/planningcenter/pco_api_oauth_example_sinatra_ruby"
PCO_DART = "https://pub.dev/packages/planningcenter_api/versions/0.9.9/example"
PCO_TOKENS = "https://www.npmjs.com/package/pco-tokens"
PCO_GIST = "https://gist.github.com/jwmoss/7781b5b41639f22ac117e50ff7e0399c"
PUSHPAY = "https://pushpay.io/docs/security"
XERO_EX = "https://hexdocs.pm/xeroxero/XeroXero.CoreApi.Tokens.html"
XERO_TS = "https://unpkg.com/xero-node@15.0.0/dist/XeroClient.d.ts"
XERO_GIST = "https://gist.github.com/channeladam/5d4d88d44a9853d00537318a8d2b47fd"
XERO_AIRBYTE = (
    "https://tessl.io/registry/tessl/pypi-airbyte-source-xero/1.0.0/files/docs/configuration.md"
)
ZOOM_TOKENS = "https://developers.zoom.us/docs/chat/chatbot/extend/tokens-and-identifiers/"
ZOOM_VALIDATION = "https://developers.zoom.us/changelog/platform/webhook-url-validation.md"
ZOOM_HOOKDECK = "https://www.skills.sh/hookdeck/webhook-skills/zoom-webhooks"
CALENDLY = "https://developer.calendly.com/personal-access-tokens"
CHIME_CLI = "https://docs.aws.amazon.com/en_us/cli/latest/reference/chatbot/create-chime-webhook-configuration.html"
CHIME_AIRFLOW = (
    "https://airflow.apache.org/docs/apache-airflow-providers-amazon/stable/connections/chime.html"
)
CHIME_GHA = "https://github.com/Ornpreeyaa/amazon-chime-github-webhook"
TDX = "https://solutions.teamdynamix.com/TDWebApi/Home/section/IntegrationsWebhook"
SHORTCUT = "https://help.shortcut.com/hc/en-us/articles/34734717380756"
FLUTTER_DITRA = "https://github.com/TheNightmanCodeth/DitRa/wiki/Creating-a-key.properties-file"
FLUTTER_FOODIE = "https://github.com/cosmicsarthak/foodie-rush-app"
FLUTTER_DIO = "https://github.com/francisrod01/dio-flashlight-app"
FLUTTER_KSGEN = "https://pub.dev/documentation/keystore_generator"
FLUTTER_AUTOSIGN = "https://pub.dev/packages/flutter_auto_sign/versions/0.0.1"
FLUTTER_GRADLE = "https://gist.github.com/kunny/34799bc511ba987eb0a8a0ce06583909"

ROWS: list[dict[str, str]] = []


def sec(cls: str, source: str, template: str, secret: str) -> None:
    """A secret row; a `{p}` in the template is a second, unlabelled generated password."""
    if "{p}" in template:
        template = template.replace("{p}", pw())
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
        }
        | {"source": source}
    )


def deepl_key() -> str:
    return uid() + ":fx"


def ship_key() -> str:
    return tok(AN, 43, "TEST_")


def chime_token() -> str:
    return tok(AN + "-", 44)


# ---- vendor token ---------------------------------------------------------------------------
V = "vendor token"
sec(
    V,
    DEEPL_AUTH,
    "$ export DEEPL_AUTH_KEY={s}\n$ python translate.py --target DE README.md",
    deepl_key(),
)
sec(V, DEEPL_CS, "DEEPL_API_KEY={s}", uid())
sec(V, LOKALISE_HELLO, "$ export LOKALISE_API_TOKEN={s}\n$ node list-projects.mjs", hexs(40))
sec(
    V,
    CANVAS_CNVS,
    "CANVAS_DOMAIN=https://canvas.instructure.com\nCANVAS_API_TOKEN={s}",
    tok(AN, 64),
)
sec(V, CANVAS_R, 'Sys.setenv(CANVAS_API_KEY = "{s}")', tok(AN, 64))
sec(V, SHIP_JS, "$ export SHIPENGINE_API_KEY={s}\n$ npm test -- --grep labels", ship_key())
sec(V, AMADEUS_PY, "AMADEUS_API_SECRET={s}", tok(AN, 16))
sec(V, PCO_SINATRA, "export OAUTH_APP_ID=3f1d0a7c\nexport OAUTH_SECRET={s}\nruby app.rb", hexs(64))
sec(V, LASTFM_MS, "LASTFM_API_KEY=9d3b7e61c0a2f4d8\nLASTFM_SECRET={s}", hexs(32))
sec(V, LASTFM_EX, "LB_LFM_API_KEY={s}", hexs(32))
sec(V, CROWDIN_GHA, "$ export CROWDIN_PERSONAL_TOKEN={s}\n$ crowdin upload sources", hexs(80))
sec(V, OWM_DAY12, "$ export OPENWEATHERMAP_APPID={s}", hexs(32))
sec(
    V,
    XERO_GIST,
    "XERO_CLIENT_ID=2B7E93C1F0A84D6B9E15C3A7D4F8B2E1\nXERO_CLIENT_SECRET={s}",
    tok(B64URL, 48),
)
sec(V, CALENDLY, "CALENDLY_PERSONAL_ACCESS_TOKEN={s}", jwt())
sec(V, WIALON, "FLEETRUN_API_TOKEN={s}", hexs(72))
sec(V, ZOOM_TOKENS, "ZOOM_CLIENT_ID=Qw3rTy9uIoP1aSdF\nZOOM_CLIENT_SECRET={s}", tok(AN, 32))

# ---- config file ----------------------------------------------------------------------------
C = "config file"
sec(
    C,
    WIKIJS,
    "port: 3000\ndb:\n  type: postgres\n  host: localhost\n  port: 5432\n  user: wikijs\n  pass: {s}\n  db: wiki\n  ssl: false",
    pw(),
)
sec(
    C,
    WIKIJS,
    "db:\n  type: mysql\n  host: db.internal\n  port: 3306\n  user: wiki\n  pass: '{s}'\n  db: wiki",
    pw(),
)
sec(
    C,
    BOOKSTACK,
    "APP_URL=https://docs.school.internal\nDB_HOST=localhost\nDB_DATABASE=bookstack\nDB_USERNAME=bookstack\nDB_PASSWORD={s}",
    pw(),
)
sec(
    C,
    BOOKSTACK,
    "MAIL_DRIVER=smtp\nMAIL_HOST=smtp.mailhost.net\nMAIL_PORT=587\nMAIL_USERNAME=wiki@school.internal\nMAIL_PASSWORD={s}",
    pw(),
)
sec(C, BOOKSTACK, "# Application key\nAPP_KEY=base64:{s}", b64(tok(AN, 32)))
sec(
    C,
    ICECAST,
    "<authentication>\n    <!-- Sources log in with username 'source' -->\n    <source-password>{s}</source-password>",
    pw(),
)
sec(
    C,
    ICECAST,
    "    <!-- Relays log in username 'relay' -->\n    <relay-password>{s}</relay-password>",
    pw(),
)
sec(
    C,
    ICECAST,
    "    <admin-user>admin</admin-user>\n    <admin-password>{s}</admin-password>\n</authentication>",
    pw(),
)
sec(
    C,
    CROWDIN_RUBY,
    "---\nproject_identifier: chorale-site\napi_key: {s}\nbase_url: https://api.crowdin.com\nbase_path: .",
    hexs(32),
)
sec(
    C,
    CROWDIN_GHA,
    'project_id: 785976\napi_token: "{s}"\nfiles:\n  - source: /locales/en/*.po',
    hexs(80),
)
sec(
    C,
    CANVAS_CURL,
    "# ~/.hermes/.env\nCANVAS_BASE_URL=https://district.instructure.com\nCANVAS_TOKEN={s}",
    tok(AN, 64),
)
sec(
    C,
    LASTFM_MS,
    '[{\n  "name": "myLastFm",\n  "data": {\n    "apiKey": "c81f7a0b3e2d",\n    "secret": "{s}",\n    "redirectUri": "http://192.168.0.100:9078/lastfm/callback"\n  }\n}]',
    hexs(32),
)
sec(
    C,
    LASTFM_XML,
    '<?xml version="1.0" encoding="UTF-8"?>\n<servers version="1" revision="1">\n  <server>\n    <name>Last.fm</name>\n    <ws_base_url>http://ws.audioscrobbler.com/</ws_base_url>\n    <api_key>5be1c07d</api_key>\n    <api_secret>{s}</api_secret>\n  </server>\n</servers>',
    hexs(32),
)
sec(C, ZOOM_TOKENS, "ZOOM_BOT_JID=v1qk3h2ad7@xmpp.zoom.us\nZOOM_SECRET_TOKEN={s}", tok(B64URL, 22))
sec(
    C,
    XERO_AIRBYTE,
    '{\n  "access_token": "{s}",\n  "tenant_id": "5f3c8a1e-0d2b-4c7e-9a61-2b8d4e7f1c90",\n  "start_date": "2022-03-01T00:00:00Z"\n}',
    jwt(),
)

# ---- cli password flag ----------------------------------------------------------------------
F = "cli password flag"
sec(
    F,
    LOKALISE_CLI,
    "$ lokalise2 --token {s} --project-id 3281642760b3f3d3ecb3d4.77215376 file download --format json --unzip-to ./locales",
    hexs(40),
)
sec(F, LOKALISE_HELLO, "$ lokalise2 --token {s} project list", hexs(40))
sec(
    F,
    LOKALISE_CLI,
    "lokalise2 --token={s} --project-id=abc123def:feature/my-branch file upload --file=en.json --lang-iso=en --poll=true",
    hexs(40),
)
sec(F, CROWDIN_CADO, "$ crowdin init --token {s}\nToken saved to .crowdin", hexs(80))
sec(
    F, PCO, "$ curl -u 4c0e9b2f7a1d:{s} https://api.planningcenteronline.com/services/v2/", hexs(64)
)
sec(
    F,
    PCO,
    "curl -s -u \"$PCO_APP_ID:{s}\" 'https://api.planningcenteronline.com/people/v2/people?per_page=1' | jq .",
    hexs(64),
)
sec(
    F,
    AMADEUS,
    'curl "https://test.api.amadeus.com/v1/security/oauth2/token" \\\n     -H "Content-Type: application/x-www-form-urlencoded" \\\n     -d "grant_type=client_credentials&client_id=Rk3Lm9Pq2Ws8Xz1V&client_secret={s}"',
    tok(AN, 16),
)
sec(
    F,
    AMADEUS,
    "curl https://api.amadeus.com/v1/security/oauth2/token -d grant_type=client_credentials -d client_id=hT5yN2bQ8eW1kR7u -d client_secret={s}",
    tok(AN, 16),
)
sec(
    F,
    MOODLE_LOGIN,
    "$ curl 'https://moodle.college.internal/login/token.php?username=teacher1&password={s}&service=moodle_mobile_app'",
    pw(),
)
sec(
    F,
    DOCUSIGN_LEGACY,
    "curl -X POST https://demo.docusign.net/restapi/v2/oauth2/token -H 'Accept: application/json' -d 'grant_type=password&client_id=8a41c0de&username=ops@firm.law&password={s}&scope=api'",
    pw(),
)
sec(
    F,
    ZOOM_TOKENS,
    "$ curl -X POST -u 'Qw3rTy9uIoP1aSdF:{s}' 'https://zoom.us/oauth/token?grant_type=client_credentials'",
    tok(AN, 32),
)
sec(
    F,
    XERO_EX,
    "curl -X POST https://identity.xero.com/connect/token -u 2B7E93C1F0A84D6B9E15C3A7D4F8B2E1:{s} -d grant_type=refresh_token -d refresh_token=$REFRESH",
    tok(B64URL, 48),
)
sec(F, FLUTTER_KSGEN, "$ flutter pub run keystore_generator -a release -p {s} -y", pw())
sec(F, FLUTTER_AUTOSIGN, "$ flutter_auto_sign -k /home/ci/upload.jks -p {s} -a upload -w {p}", pw())
sec(
    F,
    FLUTTER_DIO,
    "keytool -genkey -keystore ./upload-keystore.jks -alias upload -keypass {s} -storepass {s} -keyalg RSA -keysize 2048 -validity 2000",
    pw(),
)

# ---- source literal -------------------------------------------------------------------------
L = "source literal"
sec(
    L,
    DEEPL_FIRST,
    'import deepl\n\nauth_key = "{s}"\ntranslator = deepl.Translator(auth_key)',
    deepl_key(),
)
sec(L, DEEPL_FIRST, '$authKey = "{s}";\n$translator = new \\DeepL\\Translator($authKey);', uid())
sec(L, DEEPL_FIRST, 'var authKey = "{s}";\nvar translator = new Translator(authKey);', deepl_key())
sec(
    L,
    LOKALISE_PY,
    "import lokalise\nclient = lokalise.Client('{s}')\nproject = client.project('123.abc')",
    hexs(40),
)
sec(
    L, SAMSARA, 'from samsara import Samsara\n\nclient = Samsara(\n    token="{s}",\n)', tok(AN, 40)
)
sec(L, SHIP_JAVA, 'ShipEngine shipengine = new ShipEngine("{s}");', ship_key())
sec(
    L,
    SHIP_JS,
    'const ShipEngine = require("shipengine");\nconst shipengine = new ShipEngine("{s}");',
    ship_key(),
)
sec(
    L,
    OWM_HS,
    'main = do\n  mgr <- newManager tlsManagerSettings\n  r <- runClientM (weatherByName (Just "Moscow,ru") (Just "{s}")) (mkClientEnv mgr api)\n  print r',
    hexs(32),
)
sec(
    L,
    XERO_EX,
    'XeroXero.CoreApi.Tokens.refresh_token(refresh, "2B7E93C1F0A84D6B9E15C3A7D4F8B2E1", "{s}")',
    tok(B64URL, 48),
)
sec(
    L, LASTFM_EX, 'System.put_env("LB_LFM_API_KEY", "{s}")\nLastfmArchive.Livebook.info()', hexs(32)
)
sec(L, PCO_DART, "// secrets.dart\nconst appid = 'c1e8a7f03b2d';\nconst secret = '{s}';", hexs(64))
sec(
    L,
    CANVAS_R,
    'api_key <- "{s}"\nbase_url <- "https://canvas.uni.internal"\ncanvas <- canvas_authenticate(api_key, base_url)',
    tok(AN, 64),
)
sec(
    L,
    CANVAS_NPM,
    "const accessToken = '{s}'\nconst apiUrl = 'https://kth.test.instructure.com/api/v1'\nconst canvasApi = new CanvasApi(apiUrl, accessToken)",
    tok(AN, 64),
)
sec(
    L,
    XERO_TS,
    "const xero = new XeroClient({\n  clientId: '2B7E93C1F0A84D6B9E15C3A7D4F8B2E1',\n  clientSecret: '{s}',\n  redirectUris: ['http://localhost:5000/callback'],\n});",
    tok(B64URL, 48),
)
sec(
    L,
    LOCALIZELY,
    'cfg := localizely.NewConfiguration()\ncfg.AddDefaultHeader("X-Api-Token", "{s}")',
    hexs(64),
)
sec(
    L,
    DOCUSIGN_RUBY,
    'Docusigner::Base.authentication = {\n  :username => "ops@firm.law",\n  :password => "{s}",\n  :integrator_key => "TEST-8a41c0de"\n}',
    pw(),
)
sec(
    L,
    AMADEUS_JS,
    "const amadeus = new Amadeus({\n  clientId: 'Rk3Lm9Pq2Ws8Xz1V',\n  clientSecret: '{s}'\n});",
    tok(AN, 16),
)
sec(
    L,
    MOODLE_JAVA,
    'MoodleRestWebService.init("https://moodle.college.internal/webservice/rest/server.php", "{s}");',
    hexs(32),
)

# ---- http auth header -----------------------------------------------------------------------
H = "http auth header"
sec(
    H,
    DEEPL_LEGACY,
    "$ curl -X POST https://api-free.deepl.com/v2/translate -H 'Authorization: DeepL-Auth-Key {s}' -d 'text=Hello' -d 'target_lang=DE'",
    deepl_key(),
)
sec(
    H,
    DEEPL_FIRST,
    "POST /v2/translate HTTP/2\nHost: api.deepl.com\nAuthorization: DeepL-Auth-Key {s}\nUser-Agent: YourApp/1.2.3\nContent-Type: application/json",
    uid(),
)
sec(
    H,
    SHIP_CURL,
    "curl -iX GET https://api.shipengine.com/v1/labels?page_size=1 \\\n  -H 'API-Key: {s}'",
    ship_key(),
)
sec(
    H,
    SHIP_OBO,
    "POST /v1/labels HTTP/1.1\nHost: api.shipengine.com\nAPI-Key: {s}\nOn-Behalf-Of: se-4417203\nContent-Type: application/json",
    tok(AN + "/+", 43),
)
sec(
    H,
    LOKALISE_ERR,
    'curl -s -o /dev/null -w "%{http_code}" \\\n  -H "X-Api-Token: {s}" \\\n  "https://api.lokalise.com/api2/teams"',
    hexs(40),
)
sec(
    H,
    LOCALIZELY,
    "curl -X GET 'https://api.localizely.com/v1/projects/7d2f/branches' -H 'X-Api-Token: {s}'",
    hexs(64),
)
sec(
    H,
    LOCALAZY,
    "curl --request GET \\\n  --url 'https://api.localazy.com/projects' \\\n  --header 'Authorization: Bearer {s}'",
    tok(AN, 64, "a8"),
)
sec(
    H,
    ZOOM_TOKENS,
    "POST https://zoom.us/oauth/token?grant_type=client_credentials\nAuthorization: Basic {s}",
    b64("Qw3rTy9uIoP1aSdF:" + tok(AN, 32)),
)
sec(
    H,
    PUSHPAY,
    "GET /v1/merchants HTTP/1.1\nHost: api.pushpay.com\nAuthorization: Bearer {s}",
    jwt(),
)
sec(
    H,
    CANVAS_CURL,
    'curl -s -H "Authorization: Bearer {s}" "$CANVAS_BASE_URL/api/v1/users/self/observees"',
    tok(AN, 64),
)
sec(
    H,
    AMADEUS_JS,
    "curl 'https://test.api.amadeus.com/v1/shopping/flight-destinations?origin=MAD' -H 'Authorization: Bearer {s}'",
    tok(AN, 28),
)
sec(
    H,
    DOCUSIGN_RUBY,
    'X-DocuSign-Authentication: {"Username":"ops@firm.law","Password":"{s}","IntegratorKey":"TEST-8a41c0de"}',
    pw(),
)
sec(
    H,
    SHORTCUT,
    "POST https://api.app.shortcut.com/api/v3/integrations/webhook\nShortcut-Token: {s}\nContent-Type: application/json",
    uid(),
)
sec(
    H,
    PCO_GIST,
    "curl --request GET --url https://api.planningcenteronline.com/api/v2/personal_access_tokens --header 'authorization: Bearer {s}'",
    hexs(64),
)
sec(
    H,
    SAMSARA,
    "GET /fleet/vehicles HTTP/1.1\nHost: api.samsara.com\nAuthorization: Bearer {s}",
    tok(AN, 40),
)
sec(
    H,
    XERO_GIST,
    "GET https://api.xero.com/api.xro/2.0/Invoices\nAuthorization: Bearer {s}\nxero-tenant-id: 5f3c8a1e-0d2b-4c7e-9a61-2b8d4e7f1c90",
    jwt(),
)

# ---- ci and yaml ----------------------------------------------------------------------------
Y = "ci and yaml"
sec(
    Y,
    CROWDIN_GHA,
    "      - uses: crowdin/github-action@v2\n        with:\n          upload_sources: true\n        env:\n          CROWDIN_PERSONAL_TOKEN: {s}",
    hexs(80),
)
sec(
    Y,
    WIKIJS_CAP,
    "services:\n  wiki:\n    image: requarks/wiki:2\n    environment:\n      DB_TYPE: postgres\n      DB_HOST: db\n      DB_USER: wikijs\n      DB_PASS: {s}",
    pw(),
)
sec(
    Y,
    NAVIDROME_COMPOSE,
    "    labels:\n      homepage.widget.type: navidrome\n      homepage.widget.url: http://navidrome:4533\n      homepage.widget.user: admin\n      homepage.widget.token: {s}\n      homepage.widget.salt: k3j9d2",
    hexs(32),
)
sec(
    Y,
    BOOKSTACK_HA,
    "envvars:\n  - name: MAIL_PASSWORD\n    value: {s}\n  - name: SESSION_COOKIE_NAME\n    value: bookstack_session",
    pw(),
)
sec(
    Y,
    LOKALISE_CLI,
    "sync-translations:\n  stage: i18n\n  variables:\n    LOKALISE_TOKEN: {s}\n  script:\n    - lokalise2 --token $LOKALISE_TOKEN --project-id $PID file download --format json --unzip-to src/locales",
    hexs(40),
)
sec(
    Y,
    SHIP_JS,
    "jobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n      SHIPENGINE_API_KEY: {s}\n    steps:\n      - run: npm test",
    ship_key(),
)
sec(
    Y,
    CANVAS_R,
    "env:\n  CANVAS_BASE_URL: https://canvas.uni.internal\n  CANVAS_API_KEY: {s}\nsteps:\n  - run: Rscript -e 'vvcanvas::canvas_authenticate()'",
    tok(AN, 64),
)
sec(
    Y,
    SAMSARA,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: samsara\ntype: Opaque\nstringData:\n  SAMSARA_API_TOKEN: {s}",
    tok(AN, 40),
)
sec(
    Y,
    DEEPL_AUTH,
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: deepl\nstringData:\n  DEEPL_AUTH_KEY: "{s}"',
    deepl_key(),
)
sec(
    Y,
    AMADEUS_PY,
    "  - name: Search flights\n    env:\n      AMADEUS_API_KEY: Rk3Lm9Pq2Ws8Xz1V\n      AMADEUS_API_SECRET: {s}\n    run: python search.py",
    tok(AN, 16),
)
sec(
    Y,
    ZOOM_HOOKDECK,
    "services:\n  zoom-hooks:\n    build: .\n    environment:\n      - ZOOM_WEBHOOK_SECRET={s}\n      - PORT=3000",
    tok(B64URL, 22),
)
sec(
    Y,
    PLEOS,
    "fleet:\n  gateway_host: https://gw.fleet.internal\n  client_id: pleos-dispatch-01\n  secret: {s}\n  identifier: prj-20481",
    tok(AN, 40),
)
sec(Y, WIALON, 'fleetrun:\n  api_url: https://fleetrun.wialon.com/api\n  token: "{s}"', hexs(72))
sec(
    Y,
    OWM_DAY12,
    "weather_sensor:\n  provider: openweathermap\n  zip: 44113,US\n  appid: {s}",
    hexs(32),
)
sec(
    Y,
    CHIME_GHA,
    '- name: Send message to Amazon Chime chat room\n  uses: aws-actions/amazon-chime-github-webhook@v1\n  with:\n    webhook: https://hooks.chime.aws/incomingwebhooks/0b1c7e52-9d3a-4f1e-8c2b-6a7d5e4f3c21?token={s}\n    message: "Whoohoo!"',
    chime_token(),
)

# ---- connection string ----------------------------------------------------------------------
K = "connection string"
sec(K, WIKIJS, "DATABASE_URL=postgres://wikijs:{s}@localhost:5432/wiki", pw())
sec(K, WIKIJS, "mysql://wiki:{s}@db.internal:3306/wiki?ssl=false", pw())
sec(K, WIKIJS, "Server=sql01;Database=wiki;User Id=wikijs;Password={s};Encrypt=true", pw())
sec(K, BOOKSTACK, "mysql://bookstack:{s}@127.0.0.1:3306/bookstack", pw())
sec(
    K,
    ICECAST,
    "$ ffmpeg -re -i set.flac -c:a libvorbis -f ogg icecast://source:{s}@radio.parish.internal:8000/live.ogg",
    pw(),
)
sec(K, ICECAST, "$ curl -s http://admin:{s}@localhost:8000/admin/stats.xml | head", pw())
sec(K, ICECAST, "relay source: http://relay:{s}@origin.stream.internal:8000/main.ogg", pw())
sec(
    K,
    MOODLE_SERVER,
    "https://moodle.college.internal/webservice/rest/server.php?wstoken={s}&wsfunction=core_course_get_courses&moodlewsrestformat=json",
    hexs(32),
)
sec(K, CANVAS_TOOLS, "https://canvas.instructure.com/api/v1/courses?access_token={s}", tok(AN, 64))
sec(K, OWM_CN, "https://api.openweathermap.org/data/2.5/forecast?q=Beijing&appid={s}", hexs(32))
sec(
    K,
    OWM_DAY12,
    "GET http://api.openweathermap.org/data/2.5/weather?lat=41.4984174&lon=-81.6937287&APPID={s}",
    hexs(32),
)
sec(K, DEEPL_LEGACY, "https://api-free.deepl.com/v2/usage?auth_key={s}", deepl_key())
sec(
    K, PCO, "https://4c0e9b2f7a1d:{s}@api.planningcenteronline.com/check-ins/v2/check_ins", hexs(64)
)
sec(
    K,
    NAVIDROME_SUBSONIC,
    "http://192.168.1.20:4533/rest/getNowPlaying.view?u=admin&t={s}&s=c19b2d&v=1.16.1&c=nowplaying&f=json",
    hexs(32),
)
sec(K, BOOKSTACK, "smtp://wiki%40school.internal:{s}@smtp.mailhost.net:587", pw())

# ---- other language -------------------------------------------------------------------------
OL = "other language"
sec(OL, DEEPL_AUTH, "DeepL-Schlüssel für die Übersetzung: {s}", deepl_key())
sec(OL, ICECAST, "<!-- mot de passe des sources -->\n<source-password>{s}</source-password>", pw())
sec(OL, WIALON_ES, "Token de API de Fleetrun (no compartir): {s}", hexs(72))
sec(OL, OWM_CN, "2.获取 API Key(API 密钥): {s}", hexs(32))
sec(OL, WIKIJS, "# データベースのパスワード\npass: {s}", pw())
sec(OL, BOOKSTACK, "# 메일 비밀번호\nMAIL_PASSWORD={s}", pw())
sec(OL, LOKALISE_CLI, "токен Lokalise: {s}", hexs(40))
sec(OL, SAMSARA, "رمز واجهة برمجة Samsara: {s}", tok(AN, 40))
sec(OL, PCO, "senha do token pessoal (Planning Center): {s}", hexs(64))
sec(OL, CROWDIN_RUBY, "chiave_api_crowdin: {s}", hexs(32))
sec(OL, AMADEUS, "Κλειδί API Amadeus (μυστικό): {s}", tok(AN, 16))
sec(OL, SHIP_CURL, "शिपइंजन API कुंजी: {s}", ship_key())
sec(OL, MOODLE_LOGIN, "Moodle şifresi: {s}", pw())
sec(OL, XERO_GIST, "hasło klienta Xero={s}", tok(B64URL, 48))
sec(OL, DOCUSIGN_CODE, "אסימון גישה של DocuSign: {s}", jwt())

# ---- log line -------------------------------------------------------------------------------
G = "log line"
sec(
    G,
    DEEPL_FIRST,
    "2026-12-04T02:11:09Z DEBUG deepl.http POST https://api.deepl.com/v2/translate headers={'Authorization': 'DeepL-Auth-Key {s}', 'User-Agent': 'deepl-python/1.16'}",
    uid(),
)
sec(
    G,
    MOODLE_SERVER,
    '10.0.4.17 - - [04/Dec/2026:02:14:55 +0000] "GET /webservice/rest/server.php?wstoken={s}&wsfunction=core_user_get_users HTTP/1.1" 200 5121',
    hexs(32),
)
sec(
    G,
    CANVAS_TOOLS,
    "canvas-sync[3312]: GET https://canvas.instructure.com/api/v1/courses?access_token={s} -> 200 (41 courses)",
    tok(AN, 64),
)
sec(
    G,
    OWM_DAY12,
    '172.18.0.4 - - [04/Dec/2026:01:02:33 +0000] "GET /data/2.5/weather?zip=44113,US&APPID={s} HTTP/1.1" 200 512',
    hexs(32),
)
sec(
    G,
    AMADEUS_GUIDE,
    'INFO token response: {"type":"amadeusOAuth2Token","username":"dev@trips.internal","application_name":"trip-planner","client_id":"Rk3Lm9Pq2Ws8Xz1V","token_type":"Bearer","access_token":"{s}","expires_in":1799,"state":"approved"}',
    tok(AN, 28),
)
sec(
    G,
    ZOOM_TOKENS,
    'zoom-bot | token ok {"access_token":"{s}","token_type":"bearer","expires_in":3600,"scope":"imchat:bot","api_url":"https://api.zoom.us"}',
    jwt(),
)
sec(
    G,
    DOCUSIGN_AUTH,
    'DEBUG esign.auth: {"access_token":"{s}","token_type":"Bearer","expires_in":28800}',
    jwt(),
)
sec(
    G,
    SAMSARA,
    "DEBUG:urllib3.connectionpool:https://api.samsara.com:443 \"GET /fleet/vehicles HTTP/1.1\" 200 None headers={'Authorization': 'Bearer {s}'}",
    tok(AN, 40),
)
sec(
    G,
    SHIP_CURL,
    "> GET /v1/labels?page_size=1 HTTP/2\n> Host: api.shipengine.com\n> user-agent: curl/8.5.0\n> API-Key: {s}\n< HTTP/2 200",
    ship_key(),
)
sec(
    G,
    PCO,
    "> GET /services/v2/ HTTP/1.1\n> Host: api.planningcenteronline.com\n> Authorization: Basic {s}\n< HTTP/1.1 200 OK",
    b64("4c0e9b2f7a1d:" + hexs(64)),
)
sec(
    G, LOKALISE_ERR, "[lokalise] 401 Invalid `X-Api-Token` header (sent X-Api-Token: {s})", hexs(40)
)
sec(
    G,
    NAVIDROME_SUBSONIC,
    'time="2026-12-04T02:20:11Z" level=debug msg="API: New request /rest/stream.view" requestId=ab12 client=nowplaying username=admin t={s} s=f0c3aa',
    hexs(32),
)
sec(
    G,
    XERO_TS,
    "tokenSet: TokenSet { id_token: undefined, access_token: '{s}', expires_at: 1796342400, token_type: 'Bearer', scope: 'accounting.transactions offline_access' }",
    jwt(),
)
sec(
    G,
    PUSHPAY,
    "2026-12-04 02:31:07 WARN PushpayClient retrying 401 with Authorization: Bearer {s}",
    jwt(),
)
sec(G, CALENDLY, "calendly-sync: using personal access token {s} for user me", jwt())

# ---- encoding -------------------------------------------------------------------------------
E = "encoding"
_p = pw()
sec(E, WIKIJS, '{"db":{"type":"postgres","user":"wikijs","pass":"{s}"}}', _p[:6] + "\\/" + _p[6:])
_p = pw()
sec(
    E,
    AMADEUS,
    '{"grant_type":"client_credentials","client_secret":"{s}"}',
    _p[:5] + "\\u0026" + _p[5:],
)
sec(
    E,
    AMADEUS,
    "-d 'grant_type=client_credentials&client_id=Rk3Lm9Pq2Ws8Xz1V&client_secret={s}'",
    tok(AN, 6) + "%2B" + tok(AN, 5) + "%21" + tok(AN, 4),
)
sec(E, ICECAST, "<admin-password>{s}</admin-password>", tok(AN, 7) + "&amp;" + tok(AN, 8))
sec(
    E,
    DOCUSIGN_LEGACY,
    "grant_type=password&client_id=8a41c0de&username=ops%40firm.law&password={s}&scope=api",
    tok(AN, 6) + "%26" + tok(AN, 5) + "%3D" + tok(AN, 4),
)
sec(
    E,
    DEEPL_AUTH,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: deepl\ndata:\n  DEEPL_AUTH_KEY: {s}",
    b64(deepl_key()),
)
sec(
    E,
    SHIP_BROADLEAF,
    "broadleaf.shipengine.api-key=TEST_{s}\nbroadleaf.shipengine.default-from-address.city=Austin",
    tok(AN, 8) + "\\:" + tok(AN, 10) + "\\=" + tok(AN, 9),
)
sec(E, CROWDIN_GHA, "api_token: >-\n  {s}\nfiles:\n  - source: /docs/**/*.po", hexs(80))
sec(E, BOOKSTACK_HA, 'value: "{s}"', tok(AN, 7) + '\\"' + tok(AN, 8) + "\\\\" + tok(AN, 3))
sec(E, WIKIJS, "pass: '{s}'", tok(AN, 6) + "''" + tok(AN, 9))
sec(
    E,
    WIKIJS,
    "postgres://wikijs:{s}@db:5432/wiki",
    tok(AN, 6) + "%40" + tok(AN, 5) + "%3A" + tok(AN, 5),
)
sec(
    E,
    LASTFM_XML,
    "<server>\n  <name>Last.fm</name>\n  <api_key>c81f7a0b3e2d</api_key>\n  <api_secret><![CDATA[{s}]]></api_secret>\n</server>",
    hexs(32),
)
sec(
    E,
    BOOKSTACK,
    "Subject: BookStack SMTP credentials\nContent-Transfer-Encoding: quoted-printable\n\nMAIL_PASSWORD=3D{s}",
    tok(AN, 8) + "=3D" + tok(AN, 9),
)
sec(E, LOKALISE_PY, '"{\\"apiKey\\":\\"{s}\\",\\"project\\":\\"123.abc\\"}"', hexs(40))
sec(E, PCO_TOKENS, "PCO_SECRET='{s}'", tok(AN, 10) + "'\\''" + tok(AN, 10))

# ---- webhook url ----------------------------------------------------------------------------
W = "webhook url"
sec(
    W,
    CHIME_CLI,
    "$ aws chatbot create-chime-webhook-configuration --webhook-description Ops/Alerts --webhook-url 'https://hooks.chime.aws/incomingwebhooks/3c9e1f70-2b4d-4a8e-9f61-7d2c5b8a0e13?token={s}' --sns-topic-arns arn:aws:sns:us-east-1:123456789012:alerts --iam-role-arn arn:aws:iam::123456789012:role/chatbot --configuration-name ops",
    chime_token(),
)
sec(
    W,
    CHIME_CLI,
    "curl -X POST -H 'Content-Type: application/json' -d '{\"Content\":\"deploy done\"}' 'https://hooks.chime.aws/incomingwebhooks/a61d2e08-5f3b-4c7a-8e91-0b4d6f2c9a57?token={s}'",
    chime_token(),
)
sec(
    W,
    CHIME_AIRFLOW,
    'AIRFLOW_CONN_CHIME_DEFAULT=\'{"conn_type": "chime", "host": "hooks.chime.aws", "password": "incomingwebhooks/5e8b2c14-7a0d-4f3e-b6c9-1d2a3f4e5b60?token={s}", "schema": "https"}\'',
    chime_token(),
)
sec(
    W,
    CHIME_AIRFLOW,
    "Chime Webhook Token: 9f0a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b?token={s}",
    chime_token(),
)
sec(
    W,
    CHIME_GHA,
    "CHIME_WEBHOOK=https://hooks.chime.aws/incomingwebhooks/b2c3d4e5-f607-4819-a2b3-c4d5e6f70819?token={s}",
    chime_token(),
)
sec(
    W,
    CHIME_CLI,
    'webhook_url = "https://hooks.chime.aws/incomingwebhooks/c7d8e9f0-1a2b-4c3d-9e4f-5a6b7c8d9e0f?token={s}"\nrequests.post(webhook_url, json={"Content": msg}).raise_for_status()',
    chime_token(),
)
sec(
    W,
    CHIME_CLI,
    "[notify]\nchime = https://hooks.chime.aws/incomingwebhooks/d0e1f2a3-b4c5-4d6e-8f70-8192a3b4c5d6?token={s}",
    chime_token(),
)
sec(
    W,
    CHIME_GHA,
    "Run aws-actions/amazon-chime-github-webhook@v1\n  with:\n    webhook: https://hooks.chime.aws/incomingwebhooks/e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7?token={s}",
    chime_token(),
)
sec(
    W,
    TDX,
    "POST https://solutions.teamdynamix.com/TDWebApi/api/integrations/webhook?token={s}",
    uid(),
)
sec(
    W,
    TDX,
    "curl -X POST 'https://itsm.college.internal/TDWebApi/api/integrations/webhook?token={s}' -H 'Content-Type: application/json' -d @event.json",
    uid(),
)
sec(
    W,
    TDX,
    "TDX_WEBHOOK_URL=https://solutions.teamdynamix.com/TDWebApi/api/integrations/webhook?token={s}",
    hexs(32),
)
sec(
    W,
    TDX,
    "ticket-bridge: forwarding alert to https://solutions.teamdynamix.com/TDWebApi/api/integrations/webhook?token={s} (200)",
    uid(),
)
sec(
    W,
    CHIME_AIRFLOW,
    "airflow connections add chime_default --conn-type chime --conn-host hooks.chime.aws --conn-password 'f2a3b4c5-d6e7-4f80-91a2-b3c4d5e6f708?token={s}' --conn-schema https",
    chime_token(),
)
sec(
    W,
    CHIME_CLI,
    '"WebhookUrl": "https://hooks.chime.aws/incomingwebhooks/0a9b8c7d-6e5f-4a3b-8c1d-0e9f8a7b6c5d?token={s}"',
    chime_token(),
)
sec(
    W,
    TDX,
    "Webhook target (TeamDynamix): https://td.health.internal/TDWebApi/api/integrations/webhook?token={s}",
    hexs(40),
)

# ---- signing and build tools ----------------------------------------------------------------
S = "signing and build tools"
sec(
    S,
    FLUTTER_FOODIE,
    "# android/key.properties\nstorePassword={s}\nkeyPassword={p}\nkeyAlias=upload\nstoreFile=/home/dev/upload-keystore.jks",
    pw(),
)
sec(
    S,
    FLUTTER_FOODIE,
    "storePassword={p}\nkeyPassword={s}\nkeyAlias=upload\nstoreFile=../upload-keystore.jks",
    pw(),
)
sec(
    S,
    FLUTTER_DITRA,
    "storepassword={s}\nkeypassword={p}\nkeyalias=ditra\nstorefile=/home/joe/ditra.jks",
    pw(),
)
sec(
    S,
    FLUTTER_DIO,
    "MYAPP_UPLOAD_STORE_PASSWORD={s}\nMYAPP_UPLOAD_KEY_PASSWORD={p}\nMYAPP_UPLOAD_KEY_ALIAS=upload\nMYAPP_UPLOAD_STORE_FILE=./upload-keystore.jks",
    pw(),
)
sec(
    S,
    FLUTTER_DIO,
    "MYAPP_UPLOAD_STORE_FILE=./upload-keystore.jks\nMYAPP_UPLOAD_KEY_PASSWORD={s}",
    pw(),
)
sec(
    S,
    FLUTTER_GRADLE,
    "signingConfigs {\n    release {\n        keyAlias 'upload'\n        keyPassword '{s}'\n        storeFile file('upload-keystore.jks')\n        storePassword '{p}'\n    }\n}",
    pw(),
)
sec(
    S,
    FLUTTER_GRADLE,
    'signingConfigs {\n    create("release") {\n        keyAlias = "upload"\n        keyPassword = "{p}"\n        storeFile = file("upload-keystore.jks")\n        storePassword = "{s}"\n    }\n}',
    pw(),
)
sec(
    S,
    FLUTTER_AUTOSIGN,
    "$ flutter_auto_sign --keystorePath android/app/upload.jks --keyAlias upload --keyPassword {s}",
    pw(),
)
sec(
    S,
    FLUTTER_AUTOSIGN,
    "$ flutter_auto_sign -k /path/to/keystore.jks -p {p} -a keyAlias -w {s}",
    pw(),
)
sec(
    S,
    FLUTTER_KSGEN,
    "flutter pub run keystore_generator -a test -p {s} -y\nKeystore written to keys/KEYSTORE_NAME.keystore",
    pw(),
)
sec(
    S,
    FLUTTER_DIO,
    'echo y | keytool -genkey -keystore ./upload-keystore.jks -dname "CN=Ana, O=InfoTech, C=BR" -alias upload -keypass {p} -storepass {s} -keyalg RSA',
    pw(),
)
sec(
    S,
    ZOOM_HOOKDECK,
    "const expected = 'v0=' + crypto.createHmac('sha256', '{s}').update(`v0:${ts}:${raw}`).digest('hex');",
    tok(B64URL, 22),
)
sec(
    S,
    ZOOM_VALIDATION,
    'encryptedToken = hmac.new(b"{s}", plain_token.encode(), hashlib.sha256).hexdigest()',
    tok(B64URL, 22),
)
sec(
    S,
    SHORTCUT,
    'POST https://api.app.shortcut.com/api/v3/integrations/webhook\n{"webhook_url": "https://ci.build.internal/shortcut", "secret": "{s}"}',
    pw(),
)
sec(
    S,
    WIKIJS,
    "  sslOptions:\n    auto: false\n    cert: /etc/wiki/cert.crt\n    key: /etc/wiki/key.pem\n    passphrase: {s}",
    pw(),
)

# ---- look-alike: ids and uuids --------------------------------------------------------------
ID = "look-alike: ids and uuids"
for ctx, val, why, src in (
    (
        "xero-tenant-id: 5f3c8a1e-0d2b-4c7e-9a61-2b8d4e7f1c90",
        "5f3c8a1e-0d2b-4c7e-9a61-2b8d4e7f1c90",
        "Xero organisation (tenant) id, sent alongside the token, not a credential",
        XERO_GIST,
    ),
    (
        '"shipment_id": "se-202902255", "carrier_id": "se-123890"',
        "se-202902255",
        "ShipEngine shipment id",
        SHIP_JS,
    ),
    (
        'external_shipment_id: "6801bdc2-ed1d-472f-8108-fcc3c163a172"',
        "6801bdc2-ed1d-472f-8108-fcc3c163a172",
        "merchant's own shipment uuid",
        SHIP_JS,
    ),
    (
        "On-Behalf-Of: se-4417203",
        "se-4417203",
        "ShipEngine child account id, not the key",
        SHIP_OBO,
    ),
    (
        "API_ACCOUNT_ID=0c9d2f6e-41b8-4a57-9d13-7e2a8b5c4f10",
        "0c9d2f6e-41b8-4a57-9d13-7e2a8b5c4f10",
        "DocuSign API account GUID identifies the account",
        DOCUSIGN_CODE,
    ),
    ("project_id: 785976", "785976", "Crowdin numeric project id", CROWDIN_GHA),
    (
        "--project-id 3281642760b3f3d3ecb3d4.77215376",
        "3281642760b3f3d3ecb3d4.77215376",
        "Lokalise project id",
        LOKALISE_CLI,
    ),
    (
        "ZOOM_BOT_JID=v1qk3h2ad7@xmpp.zoom.us",
        "v1qk3h2ad7@xmpp.zoom.us",
        "Zoom chatbot JID is an address",
        ZOOM_TOKENS,
    ),
    (
        "userID: 57831, tokenID: 902, canvasDomain: https://canvas.instructure.com",
        "57831",
        "Canvas user id",
        CANVAS_TOOLS,
    ),
    ("service=moodle_mobile_app", "moodle_mobile_app", "Moodle service short name", MOODLE_LOGIN),
    (
        'vehicle = client.vehicles.get(id="281474979457024")',
        "281474979457024",
        "Samsara vehicle id",
        SAMSARA,
    ),
    ('"identifier": "prj-20481"', "prj-20481", "Pleos project id", PLEOS),
    (
        "Request-ID: 3b1f0c6a-98d2-4e57-b1a4-6c2f9e0d8a73",
        "3b1f0c6a-98d2-4e57-b1a4-6c2f9e0d8a73",
        "request correlation id",
        AMADEUS,
    ),
    ("/weather?id=2643743", "2643743", "OpenWeather city id", OWM_CN),
    (
        'DataFolder  = "/var/lib/navidrome"\n# requestId=ab12-7f3e-99c1',
        "ab12-7f3e-99c1",
        "log request id",
        NAVIDROME_TOML,
    ),
    (
        '"recipientId": "1", "envelopeId": "4b7a1d2e-0c39-4f6b-a8e5-93d1c2b0f7a6"',
        "4b7a1d2e-0c39-4f6b-a8e5-93d1c2b0f7a6",
        "DocuSign envelope id",
        DOCUSIGN_CODE,
    ),
    (
        "wsfunction=core_course_get_courses&courseid=2041",
        "core_course_get_courses",
        "Moodle function name",
        MOODLE_SERVER,
    ),
):
    ben(ID, src, ctx, val, why)

# ---- look-alike: placeholders and references ------------------------------------------------
P = "look-alike: placeholders and references"
for ctx, val, why, src in (
    (
        "Authorization: DeepL-Auth-Key [yourAuthKey]",
        "[yourAuthKey]",
        "documented placeholder",
        DEEPL_LEGACY,
    ),
    (
        "-H 'API-Key: __YOUR_API_KEY_HERE__'",
        "__YOUR_API_KEY_HERE__",
        "documented placeholder",
        SHIP_CURL,
    ),
    (
        '-H "X-Api-Token: ${LOKALISE_API_TOKEN}"',
        "${LOKALISE_API_TOKEN}",
        "shell variable reference",
        LOKALISE_ERR,
    ),
    (
        'api_token: "${{ secrets.CROWDIN_PERSONAL_TOKEN }}"',
        "${{ secrets.CROWDIN_PERSONAL_TOKEN }}",
        "GitHub Actions secret reference",
        CROWDIN_GHA,
    ),
    (
        "lokalise2 --token $LOKALISE_TOKEN --project-id <project_id>",
        "$LOKALISE_TOKEN",
        "variable reference",
        LOKALISE_CLI,
    ),
    (
        '-d "grant_type=client_credentials&client_id={client_id}&client_secret={client_secret}"',
        "{client_secret}",
        "template placeholder",
        AMADEUS,
    ),
    (
        "homepage.widget.token: ${NAVIDROME_API_TOKEN}",
        "${NAVIDROME_API_TOKEN}",
        "compose variable reference",
        NAVIDROME_COMPOSE,
    ),
    ("DB_PASS: $$cap_DB_PASS", "$$cap_DB_PASS", "CapRover template variable", WIKIJS_CAP),
    (
        "APP_KEY=SomeRandomString",
        "SomeRandomString",
        "shipped placeholder in .env.example",
        BOOKSTACK,
    ),
    (
        'const shipengine = new ShipEngine("___YOUR_API_KEY_HERE__");',
        "___YOUR_API_KEY_HERE__",
        "README placeholder",
        SHIP_JS,
    ),
    ('client = Samsara(\n    token="YOUR_TOKEN",\n)', "YOUR_TOKEN", "README placeholder", SAMSARA),
    (
        "storePassword=<password-from-previous-step>",
        "<password-from-previous-step>",
        "documented placeholder",
        FLUTTER_FOODIE,
    ),
    (
        "storepassword=$YOUR_STOREPASSWORD",
        "$YOUR_STOREPASSWORD",
        "placeholder variable",
        FLUTTER_DITRA,
    ),
    (
        '"client_secret": os.getenv("AMADEUS_API_SECRET"),',
        'os.getenv("AMADEUS_API_SECRET")',
        "read from the environment",
        AMADEUS_PY,
    ),
    ("pcoSecret: '<SOME_SECRET>'", "<SOME_SECRET>", "README placeholder", PCO_TOKENS),
    (
        "GET http://api.openweathermap.org/data/2.5/weather?zip=44113,US&APPID=<your-app-key>",
        "<your-app-key>",
        "placeholder",
        OWM_DAY12,
    ),
    ("crowin init --token <crowdin_token>", "<crowdin_token>", "placeholder", CROWDIN_CADO),
    (
        "const amadeus = new Amadeus({\n    clientId: '你的实际API Key',\n    clientSecret: '你的实际API Secret'\n});",
        "你的实际API Secret",
        "placeholder written in Chinese",
        AMADEUS_JS,
    ),
    (
        "-H 'Authorization: Bearer 实际的token字符串'",
        "实际的token字符串",
        "placeholder written in Chinese",
        AMADEUS_JS,
    ),
    (
        'ShipEngine shipengine = new ShipEngine("<YOUR_API_KEY_HERE>");',
        "<YOUR_API_KEY_HERE>",
        "README placeholder",
        SHIP_JAVA,
    ),
    (
        "client = lokalise.OAuthClient('YOUR_OAUTH2_API_TOKEN')",
        "YOUR_OAUTH2_API_TOKEN",
        "README placeholder",
        LOKALISE_PY,
    ),
    ("export LOKALISE_TOKEN=your_token_here", "your_token_here", "placeholder", LOKALISE_CLI),
    (
        "Authorization: Bearer {{token}}",
        "{{token}}",
        "template placeholder",
        "https://localazy.com/docs/api/authentication",
    ),
    (
        "curl -u application_id:secret https://api.planningcenteronline.com/services/v2/",
        "application_id:secret",
        "the words of the placeholder",
        PCO,
    ),
):
    ben(P, src, ctx, val, why)

# ---- look-alike: code naming a secret -------------------------------------------------------
N = "look-alike: code naming a secret"
for ctx, val, why, src in (
    (
        "keyPassword keystoreProperties['keyPassword']",
        "keystoreProperties['keyPassword']",
        "reads the value from key.properties",
        FLUTTER_GRADLE,
    ),
    (
        "storePassword keystoreProperties['storePassword']",
        "keystoreProperties['storePassword']",
        "reads the value from key.properties",
        FLUTTER_GRADLE,
    ),
    (
        "refresh_token(refresh_token, client_id, client_secret)",
        "client_secret",
        "parameter name",
        XERO_EX,
    ),
    (
        "export interface IXeroClientConfig {\n    clientId: string;\n    clientSecret: string;",
        "clientSecret: string;",
        "type declaration",
        XERO_TS,
    ),
    (
        "$password = required_param('password', PARAM_RAW);",
        "required_param('password', PARAM_RAW)",
        "reads a request parameter",
        MOODLE_LOGIN,
    ),
    (
        "if (!$token = $DB->get_record('external_tokens', array('token' => $token))) {",
        "$DB->get_record('external_tokens', array('token' => $token))",
        "database lookup",
        MOODLE_LIB,
    ),
    (
        "define('WEBSERVICE_AUTHMETHOD_PERMANENT_TOKEN', 1);",
        "WEBSERVICE_AUTHMETHOD_PERMANENT_TOKEN",
        "constant name",
        MOODLE_LIB,
    ),
    (
        "const client = new LokaliseApi({ apiKey: process.env.LOKALISE_API_TOKEN! });",
        "process.env.LOKALISE_API_TOKEN!",
        "environment lookup",
        LOKALISE_HELLO,
    ),
    (
        'var client = new DeepLClient(apiKey: Environment.GetEnvironmentVariable("DEEPL_API_KEY")!);',
        'Environment.GetEnvironmentVariable("DEEPL_API_KEY")!',
        "environment lookup",
        DEEPL_CS,
    ),
    (
        'headers = {"Authorization": f"Bearer {access_token}"}',
        'f"Bearer {access_token}"',
        "f-string over a variable",
        AMADEUS_PY,
    ),
    (
        'access_token = response.json().get("access_token")',
        'response.json().get("access_token")',
        "reads the response",
        AMADEUS_PY,
    ),
    (
        '"access_token": {\n  "type": "string",\n  "airbyte_secret": True,',
        '"airbyte_secret": True',
        "schema flag",
        XERO_AIRBYTE,
    ),
    (
        "| `ZOOM_SECRET_TOKEN` | Recommended | Event/webhook signature verification |",
        "ZOOM_SECRET_TOKEN",
        "variable name in a table",
        ZOOM_TOKENS,
    ),
    (
        "if (!crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) return res.sendStatus(401);",
        "crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected))",
        "comparison code",
        ZOOM_HOOKDECK,
    ),
    (
        "canvas_authenticate(api_key = canvas_api_key(), base_url = canvas_base_url())",
        "canvas_api_key()",
        "function call",
        CANVAS_R,
    ),
    (
        "storeFile keystoreProperties['storeFile'] ? file(keystoreProperties['storeFile']) : null",
        "keystoreProperties['storeFile']",
        "path lookup",
        FLUTTER_GRADLE,
    ),
    (
        "$server = new webservice_rest_server(WEBSERVICE_AUTHMETHOD_PERMANENT_TOKEN);",
        "WEBSERVICE_AUTHMETHOD_PERMANENT_TOKEN",
        "constant name",
        MOODLE_SERVER,
    ),
):
    ben(N, src, ctx, val, why)

# ---- look-alike: public keys and client-side keys -------------------------------------------
Q = "look-alike: public keys and client-side keys"
_cert = base64.b64encode(bytes(rng.randrange(256) for _ in range(48))).decode()
for ctx, val, why, src in (
    (
        "https://login.xero.com/identity/connect/authorize?response_type=code&client_id=2B7E93C1F0A84D6B9E15C3A7D4F8B2E1&redirect_uri=http://localhost&scope=offline_access openid",
        "2B7E93C1F0A84D6B9E15C3A7D4F8B2E1",
        "OAuth client id travels in the browser",
        XERO_GIST,
    ),
    (
        "https://account-d.docusign.com/oauth/auth?response_type=code&scope=signature&client_id=8a41c0de-73b2-4f19-9c55-2e6d0a1b7f34&redirect_uri=http://localhost:8080/callback",
        "8a41c0de-73b2-4f19-9c55-2e6d0a1b7f34",
        "integration key (client id) is public in the authorize URL",
        DOCUSIGN_AUTH,
    ),
    (
        "https://zoom.us/oauth/authorize?response_type=code&client_id=Qw3rTy9uIoP1aSdF&redirect_uri=https://bot.parish.internal/auth",
        "Qw3rTy9uIoP1aSdF",
        "client id in the authorize URL",
        ZOOM_TOKENS,
    ),
    (
        "https://api.planningcenteronline.com/oauth/authorize?client_id=0d2e4f6a8b1c3e5f7a9b0c2d4e6f8a1b3c5e7f9a0b2c4d6e8f1a3b5c7d9e0f2a4&redirect_uri=http://localhost:4567/auth/complete&response_type=code&scope=people",
        "0d2e4f6a8b1c3e5f7a9b0c2d4e6f8a1b3c5e7f9a0b2c4d6e8f1a3b5c7d9e0f2a4",
        "OAuth application id, public half",
        PCO_SINATRA,
    ),
    ("ZOOM_CLIENT_ID=Qw3rTy9uIoP1aSdF", "Qw3rTy9uIoP1aSdF", "client id alone", ZOOM_TOKENS),
    (
        "XERO_CLIENT_ID=2B7E93C1F0A84D6B9E15C3A7D4F8B2E1  # desktop app, PKCE, no client secret",
        "2B7E93C1F0A84D6B9E15C3A7D4F8B2E1",
        "PKCE client id is public",
        XERO_GIST,
    ),
    (
        "-----BEGIN CERTIFICATE-----\n" + _cert + "\n-----END CERTIFICATE-----",
        _cert,
        "exported upload certificate is public",
        FLUTTER_DIO,
    ),
    (
        "keytool -exportcert -alias upload -keystore upload-keystore.jks -rfc > upload_certificate.pem",
        "upload_certificate.pem",
        "public certificate file name",
        FLUTTER_DIO,
    ),
    (
        "Alias name: upload\nEntry type: PrivateKeyEntry\nOwner: CN=Francis Rodrigues, OU=Engineering, O=InfoTech",
        "CN=Francis Rodrigues, OU=Engineering, O=InfoTech",
        "certificate subject",
        FLUTTER_DIO,
    ),
    ('"client_id": "pleos-dispatch-01"', "pleos-dispatch-01", "issued client id", PLEOS),
):
    ben(Q, src, ctx, val, why)

# ---- look-alike: hashes and digests ---------------------------------------------------------
D = "look-alike: hashes and digests"
_s512 = base64.b64encode(hashlib.sha512(b"@lokalise/node-api@15.6.0").digest()).decode()
_sha_nav = hashlib.sha256(b"deluan/navidrome:0.64.2").hexdigest()
_sha_wiki = hashlib.sha256(b"wiki-js.tar.gz 2.5.300").hexdigest()
_sha_pip = hashlib.sha256(b"samsara_api-13.55.0-py3-none-any.whl").hexdigest()
_zm = hashlib.sha256(b"v0:1796342400:{}").hexdigest()
_fp = ":".join(
    hashlib.sha256(b"upload-cert").hexdigest().upper()[i : i + 2] for i in range(0, 64, 2)
)
_fp1 = ":".join(
    hashlib.sha1(b"upload-cert").hexdigest().upper()[i : i + 2] for i in range(0, 40, 2)
)
_etag = hashlib.md5(b"labels page 1").hexdigest()
_moodle_hash = hashlib.sha1(b"lesson.pdf").hexdigest()
for ctx, val, why, src in (
    (
        "Merged branch 's11_MDL-27552_token_master' d8f85b6e8b4807333a84db2ce00fc41c0e667dc0",
        "d8f85b6e8b4807333a84db2ce00fc41c0e667dc0",
        "git commit SHA",
        MOODLE_COMMIT,
    ),
    (
        "github.com/ShipEngine/shipengine-js/blob/b544d3e5a1c07605588c81dba66326dabc892b98/README.md",
        "b544d3e5a1c07605588c81dba66326dabc892b98",
        "commit SHA in a permalink",
        SHIP_JS,
    ),
    (f"image: deluan/navidrome@sha256:{_sha_nav}", _sha_nav, "image digest", NAVIDROME_COMPOSE),
    (f'"integrity": "sha512-{_s512}"', f"sha512-{_s512}", "npm integrity hash", LOKALISE_HELLO),
    (f"{_sha_wiki}  wiki-js.tar.gz", _sha_wiki, "release checksum", WIKIJS),
    (f"samsara-api==13.55.0 --hash=sha256:{_sha_pip}", _sha_pip, "pip hash pin", SAMSARA),
    (f"x-zm-signature: v0={_zm}", f"v0={_zm}", "HMAC signature output, not the key", ZOOM_HOOKDECK),
    (f"Certificate fingerprints:\n\t SHA256: {_fp}", _fp, "certificate fingerprint", FLUTTER_DIO),
    (f"\t SHA1: {_fp1}", _fp1, "certificate fingerprint", FLUTTER_DIO),
    (f'ETag: "{_etag}"', _etag, "HTTP entity tag", SHIP_CURL),
    (f"contenthash: {_moodle_hash}", _moodle_hash, "file content hash", MOODLE_LIB),
    (
        "commit 71daa4a6d678dab1822ad7d54ade02158e706641 webservice/lib.php",
        "71daa4a6d678dab1822ad7d54ade02158e706641",
        "commit SHA",
        MOODLE_LIB,
    ),
    ("requarks/wiki@3.0.0-beta.583 (sha 9e1c0b7)", "9e1c0b7", "short commit", WIKIJS),
    (
        f"sha256sum navidrome_0.64.2_linux_amd64.tar.gz\n{hashlib.sha256(b'nd-tar').hexdigest()}",
        hashlib.sha256(b"nd-tar").hexdigest(),
        "download checksum",
        NAVIDROME_TOML,
    ),
    (
        f"Digest: sha256:{hashlib.sha256(b'bookstack-img').hexdigest()}",
        f"sha256:{hashlib.sha256(b'bookstack-img').hexdigest()}",
        "image digest printed by docker pull",
        BOOKSTACK_HA,
    ),
    (
        f'<script src="/js/canvas.js" integrity="sha384-{base64.b64encode(hashlib.sha384(b"canvas.js").digest()).decode()}"></script>',
        f"sha384-{base64.b64encode(hashlib.sha384(b'canvas.js').digest()).decode()}",
        "subresource integrity",
        CANVAS_NPM,
    ),
    (
        f"git rev-parse HEAD\n{hashlib.sha1(b'crowdin head').hexdigest()}",
        hashlib.sha1(b"crowdin head").hexdigest(),
        "commit SHA",
        CROWDIN_GHA,
    ),
):
    ben(D, src, ctx, val, why)

# ---- look-alike: masked values --------------------------------------------------------------
M = "look-alike: masked values"
for ctx, val, why, src in (
    (
        "<source-password>*********</source-password>",
        "*********",
        "masked before posting",
        ICECAST_MASKED,
    ),
    ("<admin-password>********</admin-password>", "********", "masked", ICECAST_MASKED),
    (
        'auth_key = "f63c02c5-f056-..."  # Replace with your key',
        "f63c02c5-f056-...",
        "truncated documentation key",
        DEEPL_FIRST,
    ),
    (
        "Lokalise token: ************************************3f9a",
        "************************************3f9a",
        "masked, last four only",
        LOKALISE_CLI,
    ),
    ("api_token: ********", "********", "masked", CROWDIN_RUBY),
    ("  env:\n    CROWDIN_PERSONAL_TOKEN: ***", "***", "GitHub Actions log mask", CROWDIN_GHA),
    ("DB_PASSWORD=[hidden]", "[hidden]", "masked by the tool", BOOKSTACK),
    ("Secret Token: ••••••••••••", "••••••••••••", "masked in the Marketplace page", ZOOM_TOKENS),
    (
        '"Password":"[REDACTED]","IntegratorKey":"TEST-8a41c0de"',
        "[REDACTED]",
        "already redacted",
        DOCUSIGN_RUBY,
    ),
    ("client_secret=REDACTED", "REDACTED", "already redacted", AMADEUS),
    ("secret: <hidden>", "<hidden>", "masked", PCO),
    (
        "API-Key: TEST_****************************",
        "TEST_****************************",
        "masked sandbox key",
        SHIP_CURL,
    ),
    ("Fleetrun token  ...c41d  Last used 2026-12-01", "...c41d", "only a suffix shown", WIALON),
    ("appid=••••••••••••••••", "••••••••••••••••", "masked", OWM_DAY12),
    ("SAMSARA_API_TOKEN=••••••••••", "••••••••••", "masked", SAMSARA),
    ("pass: '********'  # set in the secret store", "********", "masked", WIKIJS),
    (
        "MAIL_PASSWORD=(set, 18 chars)",
        "(set, 18 chars)",
        "describes a value without showing it",
        BOOKSTACK,
    ),
):
    ben(M, src, ctx, val, why)


def check_rows(rows: list[dict[str, str]]) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    secret_keys = {"class", "context", "expect", "secret", "source"}
    benign_keys = {"class", "context", "expect", "value", "reason", "source"}
    n_secret = n_benign = 0
    for i, r in enumerate(rows):
        where = f"row {i + 1}"
        if not r.get("source", "").startswith("https://"):
            problems.append(f"{where}: source does not start with https://")
        if r.get("expect") == "secret":
            n_secret += 1
            if set(r) != secret_keys:
                problems.append(f"{where}: keys {sorted(r)}")
                continue
            if r["class"] not in SECRET_CLASSES:
                problems.append(f"{where}: unknown class {r['class']!r}")
            s = r["secret"]
            if s in seen:
                problems.append(f"{where}: duplicate secret")
            seen.add(s)
            if s not in r["context"]:
                problems.append(f"{where}: secret not in its context")
            if any(b in s.lower() for b in BANNED):
                problems.append(f"{where}: banned word in secret")
        elif r.get("expect") == "benign":
            n_benign += 1
            if set(r) != benign_keys:
                problems.append(f"{where}: keys {sorted(r)}")
                continue
            if r["class"] not in BENIGN_CLASSES:
                problems.append(f"{where}: unknown class {r['class']!r}")
            if r["value"] not in r["context"]:
                problems.append(f"{where}: value not in its context")
        else:
            problems.append(f"{where}: expect is {r.get('expect')!r}")
    if n_secret < 170:
        problems.append(f"only {n_secret} secret rows")
    if n_benign < 100:
        problems.append(f"only {n_benign} benign rows")
    for cls in SECRET_CLASSES + BENIGN_CLASSES:
        n = sum(1 for r in rows if r.get("class") == cls)
        if n < 6:
            problems.append(f"class {cls!r} has {n} rows")
    return problems


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str]) -> int:
    problems = check_rows(ROWS)
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != render(ROWS):
            problems.append(f"{OUT.name} differs from the rows; run the builder")
        if problems:
            print("\n".join(problems))
            return 1
        print(f"{len(ROWS)} rows, ok")
        return 0
    if problems:
        print("\n".join(problems))
        return 1
    OUT.write_text(render(ROWS), encoding="utf-8")
    print(f"wrote {len(ROWS)} rows to {OUT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
