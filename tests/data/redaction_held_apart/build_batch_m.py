# ruff: noqa: E501
"""Build batch M of the held-apart redaction set.

Written blind to the redaction rules: the rows were composed without
opening the redaction code, its tests, its figures or any earlier batch,
from the documentation of tools that no earlier batch names (regional
payment and messaging providers, IoT and home automation, LLM gateways,
scientific and data tools, game and media platforms, signing and store
publishing tools).  Every secret is drawn from a seeded generator, so the
values are fake and the file is the same on every run.

Pages actually read (through a documentation search), and the rows that
follow them:

- Xendit: archive.developers.xendit.co/api-reference/ (Basic auth with the
  secret key as user name, base64 of "key:"), docs.xendit.co/api-integration/api-keys/
  (secret against public key), docs.xendit.co/apidocs/quick-setup.md.
- Omise: docs.omise.co/api-authentication (skey_/pkey_, "-u skey_test_...:"),
  docs.omise.co/ja/quick-start-guide/japan (OMISE_KEY_SECRET),
  docs.omise.co/how-to-access-omise-api-keys (live key hidden behind asterisks).
- Infobip: www.infobip.com/auth.md ("Authorization: App ..."),
  .../essentials/api-essentials/api-authentication.md (Basic),
  .../developer-resources/authentication-and-access/api-authentication.md
  (the Base URL is not a secret).
- Chatwork: rubydoc.info nautilfer Chatwork adapter and rubydoc.info/gems/chatwork
  (X-ChatWorkToken, CHATWORK_API_TOKEN), qiita.com/ekzemplaro (room ids).
- LINE Messaging API: zenn.dev/kou_pg_0131/articles/line-push-text-message.
- Africa's Talking: rubydoc.info africa_talking Client (apiKey header),
  docs.communityhealthtoolkit.org africas-talking (callback ?key=, openssl rand -hex 32),
  pub.dev africas_talking, libraries.io smsframework-africastalking.
- Adafruit IO: unifyapps.com adafruit-io (X-AIO-Key, ?x-aio-key=),
  github.com/josejuansanchez/NanoPlayBoard-Node-Red (MQTT user and key).
- ThingsBoard: thingsboard.io/docs/reference/http-api/getting-connected/ (token in
  the URL path), thingsboard.io/docs/pe/reference/mqtt-api/ (token as MQTT user name).
- ESPHome: esphome.io/guides/security_best_practices (api encryption key,
  !secret), esphome.io/components/ota.html, github.com/jwillikers/esphome-config.
- Zigbee2MQTT: zigbee2mqtt.io/advanced/zigbee/03_secure_network.html (network_key,
  GENERATE), github.com/Koenkk/zigbee2mqtt.io configuration.md (mqtt user/password).
- LiteLLM: docs.litellm.ai/docs/proxy/configs.md (master_key, os.environ/...),
  docs.litellm.ai/docs/proxy/api_key_auth.md (virtual keys, <your-virtual-key>).
- Helicone: docs.helicone.ai/helicone-headers/helicone-auth.md, docs.helicone.ai/faq/secret-vs-public-key.
- DataStax Astra: docs.datastax.com/en/astra-cli/getting-started.html (AstraCS: tokens).
- Snapcraft: documentation.ubuntu.com/snapcraft/stable/how-to/publishing/authenticate.
- notarytool: github.com/love-actions/xcode-notarizer (apple-id, app password, team id).
- Jupyter Server: jupyter_server docs/source/operators/security.rst, jupyter/notebook pull 1994 (logged token URLs, "..." when the token comes from config).
- Logz.io: docs.envzero.com logzio, influxdata telegraf outputs.logzio README, pulumi logzio LogShippingToken.
- Datasette: datasette.io/plugins/datasette-auth-tokens.
- TMDB: developer.themoviedb.org/docs/authentication-application.
- Culqi: docs.culqi.com sdk_python, github.com/culqi/culqi-go-demo-checkoutv4-culqi3ds,
  github.com/culqi/culqi-php-demo-checkoutv4-culqi3ds.
- Blynk: wokwi.com/projects/450840897590568961 (BLYNK_TEMPLATE_ID, BLYNK_AUTH_TOKEN).
- Open VSX: github.com/eclipse/openvsx cli README (--pat/-p, OVSX_PAT);
  vsce: fig.io/manual/vsce/verify-pat; Cake.VsCode: cakebuild.net VscePublishSettings.
- Bitrix24: apidocs.bitrix24.ru local-webhooks and first-rest-api-call (rest/<user>/<code>/).
- Uptime Kuma: github.com/louislam/uptime-kuma/wiki/Internal-API (push token, API keys as Basic password).
- ThingSpeak: uk.mathworks.com/help/thingspeak/channel-control.html, ww2.mathworks.cn writedata and thingspeakwrite.
- LiveKit: docs.livekit.io/home/cli/cli-setup/, docs.livekit.io/home/server/generating-tokens.
- Roblox Open Cloud: mintlify.com RoZod opencloud-keys (x-api-key).
- Neptune: docs.neptune.ai/setup/setting_api_token/.

Rows whose source is one of the following follow what the tool documents
elsewhere, not a page read for this batch: Groq (console.groq.com), Quay
(docs.quay.io), Netdata (learn.netdata.cloud), Dify (docs.dify.ai), Label
Studio (labelstud.io), Zenodo (developers.zenodo.org), Copernicus CDS
(cds.climate.copernicus.eu), MLflow (mlflow.org), phpMyAdmin
(docs.phpmyadmin.net), iyzico (docs.iyzico.com), AzureSignTool
(github.com/vcsjones/AzureSignTool), Agora (docs.agora.io), Storj
(docs.storj.io), Frigate (docs.frigate.video), bundletool
(developer.android.com/tools/bundletool), Shorebird (docs.shorebird.dev),
macOS security (ss64.com/mac/security.html), LINE LIFF, Blynk HTTPS API,
Datasette settings and introspection pages.

Usage: ``python tests/data/redaction_held_apart/build_batch_m.py`` writes
batch-m.jsonl; ``--check`` verifies that the file equals the rows and that
the rows are valid, printing "N rows, ok" (exit 0) or the problems (exit 1).
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
import urllib.parse
from pathlib import Path

OUT = Path(__file__).with_name("batch-m.jsonl")
rng = random.Random(20261204)

BANNED = ("example", "xxx", "changeme")
_USED: set[str] = set()

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = string.ascii_letters + DIGITS
LOWNUM = LOWER + DIGITS
UPNUM = UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
B32L = LOWER + "234567"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _banned(s: str) -> bool:
    low = s.lower()
    return any(b in low for b in BANNED)


def tok(alphabet: str, n: int, prefix: str = "") -> str:
    """Return prefix + n characters of alphabet, never banned nor reused."""
    while True:
        s = prefix + "".join(rng.choice(alphabet) for _ in range(n))
        if not _banned(s) and s not in _USED:
            _USED.add(s)
            return s


def pw() -> str:
    """A password as people write them: letters, digits and a few marks."""
    marks = "!#%*+-.=?@^_~"
    while True:
        n = rng.randint(14, 20)
        chars = [rng.choice(ALNUM) for _ in range(n)]
        for _ in range(rng.randint(1, 3)):
            chars[rng.randrange(n)] = rng.choice(marks)
        chars[rng.randrange(n)] = rng.choice(DIGITS)
        s = "".join(chars)
        if not _banned(s) and s not in _USED:
            _USED.add(s)
            return s


def hexs(n: int) -> str:
    return tok(HEX, n)


def uid() -> str:
    h = hexs(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:32]}"


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def fresh(s: str) -> str:
    """Register a derived value (an encoding) so it cannot repeat."""
    if s in _USED and s != "":
        raise ValueError(f"derived value repeats: {s}")
    _USED.add(s)
    return s


# Token shapes, after the pages listed in the docstring.
def xendit(mode: str = "development") -> str:
    return tok(B64, 56, f"xnd_{mode}_") + "=="


def omise_sk(test: bool = True) -> str:
    return tok(LOWNUM, 19, "skey_test_" if test else "skey_")


def infobip_key() -> str:
    return f"{hexs(32)}-{uid()}"


def line_token() -> str:
    return tok(B64, 171) + "="


def at_key() -> str:
    return tok(HEX, 64, "atsk_")


def aio_key() -> str:
    return tok(ALNUM, 28, "aio_")


def tb_token() -> str:
    return tok(ALNUM, 20)


def esphome_key() -> str:
    return fresh(base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode())


def litellm_key() -> str:
    return tok(URLSAFE, 22, "sk-")


def helicone_key() -> str:
    return "sk-helicone-" + "-".join(tok(LOWNUM, 7) for _ in range(4))


def astra_token() -> str:
    return f"AstraCS:{tok(ALNUM, 24)}:{hexs(64)}"


def snap_creds() -> str:
    raw = json.dumps({"t": "u1-macaroon", "v": {"r": tok(URLSAFE, 120), "d": tok(URLSAFE, 90)}})
    return fresh(b64(raw))


def apple_app_pw() -> str:
    return "-".join(tok(LOWER, 4) for _ in range(4))


def logzio_token() -> str:
    return tok(string.ascii_letters, 32)


def dstok() -> str:
    body = b64(json.dumps({"a": "root", "t": rng.randint(1700000000, 1800000000)})).rstrip("=")
    return fresh(f"dstok_{body}.{tok(URLSAFE, 27)}")


def jwt(payload: dict[str, object]) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256"}').decode().rstrip("=")
    body = (
        base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )
    return fresh(f"{head}.{body}.{tok(URLSAFE, 43)}")


def tmdb_read_token() -> str:
    return jwt(
        {
            "aud": hexs(32),
            "nbf": rng.randint(1700000000, 1800000000),
            "sub": hexs(24),
            "scopes": ["api_read"],
            "version": 1,
        }
    )


def culqi_sk(live: bool = True) -> str:
    return tok(ALNUM, 24, "sk_live_" if live else "sk_test_")


def blynk_token() -> str:
    return tok(URLSAFE, 32)


def vsce_pat() -> str:
    return tok(B32L, 52)


def bitrix_code() -> str:
    return tok(LOWNUM, 16)


def kuma_push() -> str:
    return tok(ALNUM, 10)


def tspeak_key() -> str:
    return tok(UPNUM, 16)


def livekit_secret() -> str:
    return tok(ALNUM, 43)


def roblox_key() -> str:
    return tok(B64, 46) + "=="


def neptune_token() -> str:
    raw = json.dumps(
        {
            "api_address": "https://app.neptune.ai",
            "api_url": "https://app.neptune.ai",
            "api_key": uid(),
        }
    )
    return fresh(b64(raw))


def groq_key() -> str:
    return tok(ALNUM, 52, "gsk_")


def quay_token() -> str:
    return tok(UPNUM, 64)


def netdata_claim() -> str:
    return tok(URLSAFE, 135)


def dify_key() -> str:
    return tok(ALNUM, 24, "app-")


def zenodo_token() -> str:
    return tok(ALNUM, 60)


def storj_grant() -> str:
    return tok(B58, 180, "1")


def iyzico_key() -> str:
    return tok(ALNUM, 32, "sandbox-")


def azure_client_secret() -> str:
    return tok(ALNUM, 3) + "8Q~" + tok(URLSAFE + ".~", 34)


# Sources.
XENDIT_ARCH = "https://archive.developers.xendit.co/api-reference/"
XENDIT_KEYS = "https://docs.xendit.co/api-integration/api-keys/"
XENDIT_QS = "https://docs.xendit.co/apidocs/quick-setup.md"
OMISE = "https://docs.omise.co/api-authentication"
OMISE_JA = "https://docs.omise.co/ja/quick-start-guide/japan"
OMISE_HELP = "https://docs.omise.co/how-to-access-omise-api-keys"
INFOBIP_AUTH = "https://www.infobip.com/auth.md"
INFOBIP_BASIC = "https://www.infobip.com/docs/essentials/api-essentials/api-authentication.md"
INFOBIP_NEW = "https://www.infobip.com/docs/developer-resources/authentication-and-access/api-authentication.md"
CHATWORK = "https://www.rubydoc.info/gems/nautilfer/Nautilfer/Adapters/Chatwork"
CHATWORK_GEM = "https://rubydoc.info/gems/chatwork"
CHATWORK_QIITA = "https://qiita.com/ekzemplaro/items/ddf760c3fbe283a060e2"
CHATWORK_CPAN = "https://metacpan.org/pod/WebService::ChatWorkApi::UserAgent"
LINE = "https://zenn.dev/kou_pg_0131/articles/line-push-text-message"
LINE_NOTES = "https://zenn.dev/shibata/articles/e068e8e7064d0d"
LIFF = "https://developers.line.biz/en/docs/liff/developing-liff-apps/"
AT_RUBY = "https://www.rubydoc.info/gems/africa_talking/0.1.0/AfricaTalking/Client"
AT_CHT = "https://docs.communityhealthtoolkit.org/building/messaging/gateways/africas-talking/"
AT_DART = (
    "https://pub.dev/documentation/africas_talking/latest/africas_talking/AfricasTalking-class.html"
)
AT_SMSFW = "https://libraries.io/pypi/smsframework-africastalking/1.0.0"
AT_AFTALK = "https://www.rubydoc.info/gems/aftalk/0.2.0"
AIO = "https://www.unifyapps.com/docs/unify-integrations/adafruit-io"
AIO_MQTT = "https://www.github.com/josejuansanchez/NanoPlayBoard-Node-Red"
AIO_GIST = "https://gist.github.com/katiemicak"
TB_HTTP = "https://thingsboard.io/docs/reference/http-api/getting-connected/"
TB_MQTT = "https://thingsboard.io/docs/pe/reference/mqtt-api/"
ESPH_SEC = "https://www.esphome.io/guides/security_best_practices"
ESPH_OTA = "https://esphome.io/components/ota.html"
ESPH_REPO = "https://github.com/jwillikers/esphome-config"
Z2M_SEC = "https://Zigbee2mqtt.io/advanced/zigbee/03_secure_network.html"
Z2M_CFG = "https://github.com/Koenkk/zigbee2mqtt.io/blob/351f24ce4a77ceae7a0fc22c436fa710a64e4b1e/docs/information/configuration.md"
Z2M_PASTE = "https://pastebin.com/T0CrbDQi"
LITELLM_CFG = "https://docs.litellm.ai/docs/proxy/configs.md"
LITELLM_KEY = "https://docs.litellm.ai/docs/proxy/api_key_auth.md"
HELICONE = "https://docs.helicone.ai/helicone-headers/helicone-auth.md"
HELICONE_FAQ = "https://docs.helicone.ai/faq/secret-vs-public-key"
ASTRA = "https://docs.datastax.com/en/astra-cli/getting-started.html"
SNAP = "https://documentation.ubuntu.com/snapcraft/stable/how-to/publishing/authenticate"
NOTARY = "https://github.com/love-actions/xcode-notarizer"
JUPYTER = (
    "https://github.com/jupyter-server/jupyter_server/blob/main/docs/source/operators/security.rst"
)
JUPYTER_PATCH = "https://github.com/jupyter/notebook/pull/1994.diff"
LOGZIO = "https://docs.envzero.com/guides/integrations/logs-forwarding/logzio"
LOGZIO_TG = (
    "https://github.com/influxdata/telegraf/blob/release-1.30/plugins/outputs/logzio/README.md"
)
LOGZIO_PULUMI = "https://www.pulumi.com/registry/packages/logzio/api-docs/logshippingtoken"
DATASETTE = "https://datasette.io/plugins/datasette-auth-tokens"
DATASETTE_SET = "https://docs.datasette.io/en/stable/settings.html"
DATASETTE_INTRO = "https://docs.datasette.io/en/stable/introspection.html"
TMDB = "https://developer.themoviedb.org/docs/authentication-application"
CULQI = "https://docs.culqi.com/es/documentacion/librerias/backend/sdk_python/"
CULQI_GO = "https://github.com/culqi/culqi-go-demo-checkoutv4-culqi3ds"
CULQI_PHP = "https://github.com/culqi/culqi-php-demo-checkoutv4-culqi3ds"
BLYNK = "https://wokwi.com/projects/450840897590568961"
BLYNK_HTTP = "https://docs.blynk.io/en/blynk.cloud/device-https-api"
OVSX = "https://github.com/eclipse/openvsx/blob/master/cli/README.md"
VSCE = "https://fig.io/manual/vsce/verify-pat"
CAKE_VSCE = "https://cakebuild.net/api/Cake.VsCode/VscePublishSettings/2C4F9319"
BITRIX = "https://apidocs.bitrix24.ru/local-integrations/local-webhooks.html"
BITRIX_FIRST = "https://apidocs.bitrix24.ru/first-steps/first-rest-api-call.html"
KUMA = "https://github.com/louislam/uptime-kuma/wiki/Internal-API"
TSPEAK = "https://uk.mathworks.com/help/thingspeak/channel-control.html"
TSPEAK_W = "https://ww2.mathworks.cn/help/thingspeak/writedata.html"
TSPEAK_ML = "https://ww2.mathworks.cn/help/matlab/ref/thingspeakwrite.html"
TSPEAK_ARD = "https://github.com/OpenLab-SI/ThingSpeak-Arduino"
LIVEKIT = "https://docs.livekit.io/home/cli/cli-setup/"
LIVEKIT_TOK = "https://docs.livekit.io/home/server/generating-tokens"
LIVEKIT_GO = "https://docs.livekit.io/getting-started/quickstarts/go/"
ROBLOX = "https://www.mintlify.com/AlroviOfficial/RoZod/auth/opencloud-keys"
NEPTUNE = "https://docs.neptune.ai/setup/setting_api_token/"
GROQ = "https://console.groq.com/docs/quickstart"
QUAY = "https://docs.quay.io/glossary/robot-accounts.html"
NETDATA = "https://learn.netdata.cloud/docs/netdata-cloud/connect-agent"
DIFY = "https://docs.dify.ai/guides/application-publishing/developing-with-apis"
LABELSTUDIO = "https://labelstud.io/guide/access_tokens"
ZENODO = "https://developers.zenodo.org/#authentication"
CDS = "https://cds.climate.copernicus.eu/how-to-api"
MLFLOW = "https://mlflow.org/docs/latest/auth/index.html"
PMA = "https://docs.phpmyadmin.net/en/latest/config.html"
IYZICO = "https://docs.iyzico.com/en/getting-started/preliminaries/authentication"
AZSIGN = "https://github.com/vcsjones/AzureSignTool"
AGORA = "https://docs.agora.io/en/video-calling/get-started/manage-agora-account"
STORJ = "https://docs.storj.io/dcs/api/uplink-cli/access-command"
FRIGATE = "https://docs.frigate.video/configuration/cameras"
BUNDLETOOL = "https://developer.android.com/tools/bundletool"
SHOREBIRD = "https://docs.shorebird.dev/ci/"
MAC_SECURITY = "https://ss64.com/mac/security.html"

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
SECRET_KEYS = {"class", "context", "expect", "secret", "source"}
BENIGN_KEYS = {"class", "context", "expect", "value", "reason", "source"}

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


# ---------------------------------------------------------------- vendor token
C = "vendor token"
sec(
    C,
    GROQ,
    "$ export GROQ_API_KEY={s}\n$ python chat.py --model llama-3.3-70b-versatile",
    groq_key(),
)
sec(
    C,
    ASTRA,
    "# .env for the ingestion worker\nASTRA_DB_API_ENDPOINT=https://{db}-us-east1.apps.astra.datastax.com\nASTRA_DB_APPLICATION_TOKEN={s}\n".replace(
        "{db}", uid()
    ),
    astra_token(),
)
sec(
    C,
    OMISE_JA,
    "export OMISE_KEY_PUBLIC=pkey_test_{p}\nexport OMISE_KEY_SECRET={s}".replace(
        "{p}", tok(LOWNUM, 19)
    ),
    omise_sk(),
)
sec(C, XENDIT_KEYS, "XENDIT_SECRET_KEY={s}\nXENDIT_CALLBACK_VERIFICATION=on", xendit("production"))
sec(C, AT_AFTALK, "AFRICAS_TALKING_API_KEY={s}\nAFRICAS_TALKING_USER_NAME=clinic_sms\n", at_key())
sec(
    C,
    AIO,
    "(venv) pi@greenhouse:~ $ export ADAFRUIT_IO_USERNAME=greenhouse_pi ADAFRUIT_IO_KEY={s}\n(venv) pi@greenhouse:~ $ python3 publish_moisture.py",
    aio_key(),
)
sec(
    C,
    LITELLM_CFG,
    "$ docker run -e LITELLM_MASTER_KEY={s} -p 4000:4000 ghcr.io/berriai/litellm:main-stable --config /app/config.yaml",
    litellm_key(),
)
sec(C, HELICONE, "OPENAI_API_KEY=${OPENAI_API_KEY}\nHELICONE_API_KEY={s}\n", helicone_key())
sec(
    C,
    NEPTUNE,
    'export NEPTUNE_PROJECT="vision-lab/segmentation"\nexport NEPTUNE_API_TOKEN="{s}"',
    neptune_token(),
)
sec(C, DATASETTE, "$ datasette create-token root --secret $DATASETTE_SECRET\n{s}", dstok())
sec(C, DIFY, "DIFY_BASE_URL=https://dify.intra.lan/v1\nDIFY_API_KEY={s}", dify_key())
sec(C, LABELSTUDIO, "LABEL_STUDIO_URL=http://label.lab:8080\nLABEL_STUDIO_API_KEY={s}", hexs(40))
sec(C, TMDB, "# streaming-bot\nTMDB_API_KEY={s}\nTMDB_LANGUAGE=pt-BR", hexs(32))
sec(
    C,
    CHATWORK_GEM,
    "$ CHATWORK_API_TOKEN={s} bundle exec ruby notify_deploy.rb --room 3481122",
    hexs(32),
)
sec(
    C,
    LINE,
    "[Service]\nEnvironment=LINE_CHANNEL_ACCESS_TOKEN={s}\nExecStart=/opt/linebot/bin/bot",
    line_token(),
)
sec(C, ROBLOX, "ROBLOX_OPEN_CLOUD_API_KEY={s}\nROBLOX_UNIVERSE_ID=4829103311", roblox_key())
sec(
    C,
    INFOBIP_AUTH,
    "export INFOBIP_URL=https://4ek9dq.api.infobip.com\nexport INFOBIP_KEY={s}",
    infobip_key(),
)

# ----------------------------------------------------------------- config file
C = "config file"
sec(
    C,
    ESPH_SEC,
    '# secrets.yaml\nwifi_ssid: "attic-iot"\nwifi_password: "{w}"\nboiler_api_key: "{s}"'.replace(
        "{w}", pw()
    ),
    esphome_key(),
)
sec(
    C,
    ESPH_OTA,
    'esphome:\n  name: garage-door\n\nota:\n  - platform: esphome\n    password: "{s}"\n',
    pw(),
)
sec(
    C,
    ESPH_SEC,
    'wifi:\n  ssid: !secret wifi_ssid\n  password: !secret wifi_password\n  ap:\n    ssid: "Garage Fallback"\n    password: "{s}"',
    pw(),
)
sec(
    C,
    Z2M_CFG,
    "mqtt:\n  base_topic: zigbee2mqtt\n  server: 'mqtt://192.168.1.10:1883'\n  user: z2m\n  password: '{s}'\nserial:\n  port: /dev/ttyACM0",
    pw(),
)
sec(
    C,
    Z2M_SEC,
    "advanced:\n  log_level: warn\n  pan_id: 6754\n  network_key: {s}\n",
    "[" + ", ".join(str(rng.randrange(256)) for _ in range(16)) + "]",
)
sec(
    C,
    LITELLM_CFG,
    "model_list:\n  - model_name: gpt-4o\n    litellm_params:\n      model: openai/gpt-4o\n      api_key: os.environ/OPENAI_API_KEY\n\ngeneral_settings:\n  master_key: {s}\n",
    litellm_key(),
)
sec(
    C,
    LITELLM_CFG,
    "model_list:\n  - model_name: llama-70b\n    litellm_params:\n      model: groq/llama-3.3-70b-versatile\n      api_key: {s}\n      rpm: 30",
    groq_key(),
)
sec(C, CDS, "$ cat ~/.cdsapirc\nurl: https://cds.climate.copernicus.eu/api\nkey: {s}", uid())
sec(
    C,
    PMA,
    "<?php\n$cfg['blowfish_secret'] = '{s}';\n$i = 0;\n$i++;\n$cfg['Servers'][$i]['auth_type'] = 'cookie';",
    tok(ALNUM + "!@#%^&*", 32),
)
sec(
    C,
    LOGZIO_TG,
    '[[outputs.logzio]]\n  ## Logz.io account token\n  token = "{s}"\n  url = "https://listener-eu.logz.io:8071"',
    logzio_token(),
)
sec(
    C,
    JUPYTER,
    "# ~/.jupyter/jupyter_server_config.py\nc.ServerApp.ip = '0.0.0.0'\nc.ServerApp.open_browser = False\nc.ServerApp.token = '{s}'",
    hexs(48),
)
sec(
    C,
    DATASETTE,
    '{\n  "plugins": {\n    "datasette-auth-tokens": {\n      "tokens": [\n        {"token": "{s}", "actor": {"bot_id": "nightly-export"}}\n      ]\n    }\n  }\n}',
    hexs(64),
)
sec(
    C,
    MLFLOW,
    "[mlflow]\ndefault_permission = READ\ndatabase_uri = sqlite:///basic_auth.db\nadmin_username = admin\nadmin_password = {s}\nauthorization_function = mlflow.server.auth:authenticate_request_basic_auth",
    pw(),
)
sec(
    C,
    NETDATA,
    "# /etc/netdata/claim.conf\n[global]\n    url = https://app.netdata.cloud\n    token = {s}\n    rooms = {r}".replace(
        "{r}", uid()
    ),
    netdata_claim(),
)
sec(
    C,
    TB_MQTT,
    "thingsboard:\n  host: mqtt.thingsboard.cloud\n  port: 1883\n  security:\n    type: accessToken\n    accessToken: {s}\nstorage:\n  type: memory",
    tb_token(),
)
sec(
    C,
    IYZICO,
    "# config/iyzipay.yml\nsandbox:\n  api_key: {k}\n  secret_key: {s}\n  base_url: https://sandbox-api.iyzipay.com".replace(
        "{k}", iyzico_key()
    ),
    iyzico_key(),
)

# ----------------------------------------------------------- cli password flag
C = "cli password flag"
sec(
    C,
    LIVEKIT,
    "$ lk token create \\\n  --api-key APIk3Tq8wLmZp2Rv --api-secret {s} \\\n  --join --room standup --identity ana \\\n  --valid-for 24h",
    livekit_secret(),
)
sec(
    C,
    LIVEKIT,
    "livekit-cli join-room --url wss://meet-prod.livekit.cloud --api-key APIx7hQ2mN9cVbT --api-secret {s} --room demo-room --identity bot --publish ./intro.ivf",
    livekit_secret(),
)
sec(
    C,
    QUAY,
    '$ docker login -u="acme+ci_deployer" -p="{s}" quay.io\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded',
    quay_token(),
)
sec(
    C,
    OVSX,
    "$ npx ovsx publish ./dist/rainbow-brackets-2.4.1.vsix -p {s}\n Publishing acme.rainbow-brackets v2.4.1...",
    uid(),
)
sec(C, VSCE, "PS C:\\src\\ext> vsce publish minor -p {s}", vsce_pat())
sec(
    C,
    JUPYTER,
    "$ jupyter lab --no-browser --ip=0.0.0.0 --port=8890 --ServerApp.token={s}",
    hexs(48),
)
sec(
    C,
    ASTRA,
    "$ astra setup --token {s}\n[OK]    Configuration has been saved.\n[OK]    Setup completed.",
    astra_token(),
)
sec(
    C,
    OMISE,
    'curl https://api.omise.co/charges \\\n  -X POST \\\n  -u {s}: \\\n  -d "amount=100000" \\\n  -d "currency=thb"',
    omise_sk(),
)
sec(
    C,
    XENDIT_ARCH,
    "curl https://api.xendit.co/balance -u {s}: -H 'for-user-id: 5f3c1a2b9d8e7f6a5b4c3d2e'",
    xendit(),
)
sec(
    C,
    NETDATA,
    "sudo netdata-claim.sh -token={s} -rooms={r} -url=https://app.netdata.cloud".replace(
        "{r}", uid()
    ),
    netdata_claim(),
)
sec(
    C,
    DATASETTE_SET,
    "$ datasette serve fixtures.db --secret {s} --setting default_page_size 50",
    hexs(64),
)
sec(
    C,
    TB_MQTT,
    'mosquitto_pub -d -q 1 -h mqtt.thingsboard.cloud -p 1883 -t v1/devices/me/telemetry -u "{s}" -m \'{"temperature":25}\'',
    tb_token(),
)
sec(
    C,
    AIO_MQTT,
    "mosquitto_sub -h io.adafruit.com -p 8883 --capath /etc/ssl/certs -u greenhouse_pi -P {s} -t greenhouse_pi/feeds/soil-moisture",
    aio_key(),
)
sec(
    C,
    LABELSTUDIO,
    "label-studio start --host 0.0.0.0 --port 8080 --username admin@annot.lab --password '{s}'",
    pw(),
)
sec(
    C, STORJ, "uplink cp ./exports/2026-12.parquet sj://research-dumps/ --access {s}", storj_grant()
)
sec(C, QUAY, "podman login quay.io --username acme+nightly --password {s}", quay_token())

# --------------------------------------------------------------- source literal
C = "source literal"
sec(
    C,
    HELICONE_FAQ,
    'from openai import OpenAI\n\nHELICONE_KEY = "{s}"\nclient = OpenAI(base_url="https://oai.helicone.ai/v1", default_headers={"Helicone-Auth": f"Bearer {HELICONE_KEY}"})',
    helicone_key(),
)
sec(
    C,
    CULQI_GO,
    'package config\n\nvar pk string = "pk_live_{p}"\nvar sk string = "{s}"\nvar Puerto string = ":3000"'.replace(
        "{p}", tok(ALNUM, 24)
    ),
    culqi_sk(),
)
sec(
    C,
    CULQI_PHP,
    "<?php\ndefine('PUBLIC_KEY', 'pk_test_{p}');\ndefine('SECRET_KEY', \"{s}\");".replace(
        "{p}", tok(ALNUM, 24)
    ),
    culqi_sk(live=False),
)
sec(
    C,
    CHATWORK_GEM,
    'require "chatwork"\n\nChatWork.api_key = "{s}"\nChatWork::Message.create(room_id: 3481122, body: "deploy finished")',
    hexs(32),
)
sec(
    C,
    BLYNK,
    '#define BLYNK_TEMPLATE_ID "TMPL6aQ2vRkLz"\n#define BLYNK_TEMPLATE_NAME "Pump"\n#define BLYNK_AUTH_TOKEN "{s}"\n#include <BlynkSimpleEsp32.h>',
    blynk_token(),
)
sec(
    C,
    AIO,
    '#define IO_USERNAME "greenhouse_pi"\n#define IO_KEY "{s}"\n#include "AdafruitIO_WiFi.h"\nAdafruitIO_WiFi io(IO_USERNAME, IO_KEY, WIFI_SSID, WIFI_PASS);',
    aio_key(),
)
sec(
    C,
    TMDB,
    'const apiKey = "{s}";\nconst res = await fetch(`https://api.themoviedb.org/3/movie/${id}?api_key=${apiKey}`);',
    hexs(32),
)
sec(
    C,
    INFOBIP_AUTH,
    "import { Infobip, AuthType } from '@infobip-api/sdk';\nconst infobipClient = new Infobip({\n  baseUrl: 'https://4ek9dq.api.infobip.com',\n  apiKey: '{s}',\n  authType: AuthType.ApiKey,\n});",
    infobip_key(),
)
sec(
    C,
    AT_DART,
    "final at = AfricasTalking('clinic_sms', '{s}');\nawait at.sms('AFRICASTKNG').send(message: 'Reminder', recipients: ['+254711000000']);",
    at_key(),
)
sec(
    C,
    ASTRA,
    'let token = "{s}";\nlet client = DataApiClient::new(&endpoint, token)?;',
    astra_token(),
)
sec(
    C,
    LINE,
    'object LineConfig {\n    const val CHANNEL_ID = "1657289341"\n    const val CHANNEL_SECRET = "{s}"\n}',
    hexs(32),
)
sec(C, TMDB, 'struct TMDBClient {\n    static let readAccessToken = "{s}"\n}', tmdb_read_token())
sec(
    C,
    OMISE,
    'var client = new Omise.Client(pkey: "pkey_test_{p}", skey: "{s}");'.replace(
        "{p}", tok(LOWNUM, 19)
    ),
    omise_sk(),
)
sec(
    C,
    ROBLOX,
    'local HttpService = game:GetService("HttpService")\nlocal API_KEY = "{s}"\nlocal headers = { ["x-api-key"] = API_KEY }',
    roblox_key(),
)
sec(
    C,
    TSPEAK_ML,
    "channelID = 2284193;\nwriteKey = '{s}';\nthingSpeakWrite(channelID, [21.4, 63], 'WriteKey', writeKey);",
    tspeak_key(),
)
sec(
    C,
    ESPH_SEC,
    'from aioesphomeapi import APIClient\n\napi = APIClient("192.168.1.40", 6053, None, noise_psk="{s}")\nawait api.connect(login=True)',
    esphome_key(),
)
sec(
    C,
    LIVEKIT_TOK,
    'AccessToken token = new AccessToken("APIb4Nq7sKd2Wx9", "{s}");\ntoken.setIdentity("kiosk-3");',
    livekit_secret(),
)

# ------------------------------------------------------------- http auth header
C = "http auth header"
sec(
    C,
    CHATWORK,
    "curl -X POST -H 'X-ChatWorkToken: {s}' -d 'body=nightly build green' https://api.chatwork.com/v2/rooms/3481122/messages",
    hexs(32),
)
sec(
    C,
    INFOBIP_AUTH,
    "POST /sms/3/messages HTTP/1.1\nHost: 4ek9dq.api.infobip.com\nAuthorization: App {s}\nContent-Type: application/json",
    infobip_key(),
)
sec(
    C,
    AIO,
    'curl -H "X-AIO-Key: {s}" https://io.adafruit.com/api/v2/greenhouse_pi/feeds/soil-moisture/data/last',
    aio_key(),
)
sec(
    C,
    AT_RUBY,
    "POST /version1/messaging HTTP/1.1\nHost: api.africastalking.com\nAccept: application/json\nContent-Type: application/x-www-form-urlencoded\napiKey: {s}",
    at_key(),
)
sec(
    C,
    HELICONE,
    'curl https://oai.helicone.ai/v1/chat/completions \\\n  -H "Authorization: Bearer $OPENAI_API_KEY" \\\n  -H "Helicone-Auth: Bearer {s}" \\\n  -d @req.json',
    helicone_key(),
)
sec(
    C,
    TMDB,
    "curl --request GET \\\n  --url 'https://api.themoviedb.org/3/movie/11' \\\n  --header 'Authorization: Bearer {s}'",
    tmdb_read_token(),
)
sec(
    C,
    LINE,
    "curl -i -X POST https://api.line.me/v2/bot/message/push \\\n-H 'Content-Type: application/json' \\\n-H 'Authorization: Bearer {s}' \\\n-d @push.json",
    line_token(),
)
sec(
    C,
    DATASETTE,
    "curl -H 'Authorization: Bearer {s}' 'http://127.0.0.1:8001/-/actor.json'",
    dstok(),
)
sec(
    C,
    ROBLOX,
    "curl -X POST 'https://apis.roblox.com/cloud/v2/universes/4829103311:restartServers' -H 'x-api-key: {s}' -H 'Content-Type: application/json' -d '{}'",
    roblox_key(),
)
sec(
    C,
    LABELSTUDIO,
    "GET /api/projects/ HTTP/1.1\nHost: label.lab:8080\nAuthorization: Token {s}",
    hexs(40),
)
sec(
    C,
    LITELLM_KEY,
    'curl "$LITELLM_PROXY_URL/v1/chat/completions" -H "Authorization: Bearer {s}" -H "Content-Type: application/json" -d \'{"model": "gpt-4o", "messages": []}\'',
    litellm_key(),
)
sec(
    C,
    CULQI,
    "curl -X POST https://api.culqi.com/v2/charges -H 'Authorization: Bearer {s}' -H 'Content-Type: application/json' -d @cargo.json",
    culqi_sk(),
)
sec(
    C,
    DIFY,
    "curl -X POST 'https://api.dify.ai/v1/chat-messages' --header 'Authorization: Bearer {s}' --header 'Content-Type: application/json'",
    dify_key(),
)
sec(
    C,
    TSPEAK_W,
    "POST /update.json HTTP/1.1\nHost: api.thingspeak.com\nTHINGSPEAKAPIKEY: {s}\nContent-Type: application/x-www-form-urlencoded\n\nfield1=21.4",
    tspeak_key(),
)
sec(
    C,
    ZENODO,
    "requests.get('https://zenodo.org/api/deposit/depositions', headers={'Authorization': 'Bearer {s}'})",
    zenodo_token(),
)
sec(
    C,
    GROQ,
    "fetch('https://api.groq.com/openai/v1/models', { headers: { Authorization: 'Bearer {s}' } })",
    groq_key(),
)

# ------------------------------------------------------------------- ci and yaml
C = "ci and yaml"
sec(
    C,
    OVSX,
    "jobs:\n  publish:\n    runs-on: ubuntu-latest\n    env:\n      OVSX_PAT: {s}\n    steps:\n      - run: npx ovsx publish *.vsix",
    uid(),
)
sec(
    C,
    VSCE,
    "- name: Publish to Marketplace\n  env:\n    VSCE_PAT: {s}\n  run: npx @vscode/vsce publish",
    vsce_pat(),
)
sec(
    C,
    SNAP,
    'snap-release:\n  stage: deploy\n  variables:\n    SNAPCRAFT_STORE_CREDENTIALS: "{s}"\n  script:\n    - snapcraft upload --release=edge *.snap',
    snap_creds(),
)
sec(
    C,
    LOGZIO,
    "steps:\n  deploy:\n    image: env0/cli\n    environment:\n      ENV0_LOGZIO_HOST: listener.logz.io\n      ENV0_LOGZIO_TOKEN: {s}",
    logzio_token(),
)
sec(
    C,
    NEPTUNE,
    "pipelines:\n  default:\n    - step:\n        script:\n          - export NEPTUNE_API_TOKEN={s}\n          - python train.py --epochs 40",
    neptune_token(),
)
sec(
    C,
    LITELLM_CFG,
    'services:\n  litellm:\n    image: ghcr.io/berriai/litellm:main-stable\n    environment:\n      LITELLM_MASTER_KEY: "{s}"\n      LITELLM_SALT_KEY: "sk-salt-pinned"',
    litellm_key(),
)
sec(
    C,
    LITELLM_CFG,
    '    environment:\n      LITELLM_MASTER_KEY: ${LITELLM_MASTER_KEY}\n      LITELLM_SALT_KEY: "{s}"\n      DATABASE_URL: ${DATABASE_URL}',
    litellm_key(),
)
sec(
    C,
    ASTRA,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: astra-credentials\ntype: Opaque\nstringData:\n  ASTRA_DB_APPLICATION_TOKEN: {s}",
    astra_token(),
)
sec(
    C,
    Z2M_CFG,
    "# values.yaml for the zigbee2mqtt chart\nzigbee2mqtt:\n  mqtt:\n    server: mqtt://mosquitto.home.svc:1883\n    user: z2m\n    password: {s}",
    pw(),
)
sec(
    C,
    MLFLOW,
    "variables:\n  MLFLOW_TRACKING_URI: https://mlflow.lab.internal\n  MLFLOW_TRACKING_USERNAME: ci-bot\n  MLFLOW_TRACKING_PASSWORD: {s}",
    pw(),
)
sec(
    C,
    NOTARY,
    "- name: Notarize product\n  uses: love-actions/xcode-notarizer@v1\n  with:\n    product-path: ./dist/Recorder.app\n    apple-id: release@studio.io\n    app-password: {s}\n    team-id: 7QX2K9M4PL",
    apple_app_pw(),
)
sec(
    C,
    ESPH_OTA,
    '# group_vars/esphome.yml\nesphome_ota_password: "{s}"\nesphome_web_server_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256',
    pw(),
)
sec(
    C,
    AT_CHT,
    "on: workflow_dispatch\njobs:\n  sms-smoke:\n    runs-on: ubuntu-latest\n    env:\n      AT_USERNAME: sandbox\n      AT_API_KEY: {s}",
    at_key(),
)
sec(
    C,
    HELICONE,
    "steps:\n  - name: eval\n    image: python:3.12\n    environment:\n      HELICONE_API_KEY: {s}\n    commands:\n      - python evals/run.py",
    helicone_key(),
)
sec(
    C,
    QUAY,
    "version: '3'\nenv:\n  QUAY_ROBOT: acme+ci_deployer\n  QUAY_ROBOT_TOKEN: {s}\ntasks:\n  push:\n    cmds:\n      - docker push quay.io/acme/api:{{.TAG}}",
    quay_token(),
)
sec(
    C,
    CDS,
    "env:\n  CDSAPI_URL: https://cds.climate.copernicus.eu/api\n  CDSAPI_KEY: {s}\nsteps:\n  - run: python fetch_era5.py",
    uid(),
)

# ------------------------------------------------------------- connection string
C = "connection string"
sec(C, AIO_MQTT, "MQTT_URL=mqtts://greenhouse_pi:{s}@io.adafruit.com:8883", aio_key())
sec(
    C, Z2M_CFG, "mqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://z2m:{s}@192.168.1.10:1883", pw()
)
sec(C, LITELLM_CFG, "DATABASE_URL=postgresql://llmproxy:{s}@db:5432/litellm", pw())
sec(
    C,
    LITELLM_CFG,
    "litellm_settings:\n  cache: true\n  cache_params:\n    type: redis\n    url: redis://default:{s}@redis:6379/0",
    pw(),
)
sec(C, MLFLOW, "export MLFLOW_TRACKING_URI=https://ci-bot:{s}@mlflow.lab.internal", pw())
sec(
    C,
    MLFLOW,
    "mlflow server --backend-store-uri postgresql://mlflow:{s}@pg.lab.internal:5432/mlflow --artifacts-destination s3://mlflow-artifacts",
    pw(),
)
sec(
    C,
    QUAY,
    "DB_URI: postgresql://quayuser:{s}@quay-db.registry.svc:5432/quay\nSERVER_HOSTNAME: quay.acme.io",
    pw(),
)
sec(
    C,
    TB_HTTP,
    "SPRING_DATASOURCE_URL=jdbc:postgresql://postgres:5432/thingsboard?user=tb&password={s}",
    pw(),
)
sec(C, ZENODO, 'SQLALCHEMY_DATABASE_URI = "postgresql+psycopg2://zenodo:{s}@db/zenodo"', pw())
sec(
    C,
    FRIGATE,
    "cameras:\n  driveway:\n    ffmpeg:\n      inputs:\n        - path: rtsp://admin:{s}@192.168.1.64:554/Streaming/Channels/101\n          roles: [detect]",
    pw(),
)
sec(
    C,
    FRIGATE,
    "go2rtc:\n  streams:\n    porch: \n      - rtsp://viewer:{s}@10.0.20.31:554/cam/realmonitor?channel=1&subtype=0",
    pw(),
)
sec(
    C, TB_MQTT, "const client = mqtt.connect('mqtt://{s}@mqtt.thingsboard.cloud:1883');", tb_token()
)
sec(C, DIFY, "CELERY_BROKER_URL=redis://:{s}@redis:6379/1", pw())
sec(C, HELICONE, "CLICKHOUSE_URL=http://default:{s}@clickhouse:8123", pw())
sec(
    C,
    Z2M_CFG,
    "mqtt:\n  server: mqtts://ha-bridge:{s}@mqtt.home.lan:8883\n  ca: /etc/ssl/mqtt-ca.crt",
    pw(),
)

# --------------------------------------------------------------- other language
C = "other language"
sec(
    C,
    CHATWORK_QIITA,
    'チャットワークのトークン = "{s}"\nヘッダー = {"X-ChatWorkToken": チャットワークのトークン}',
    hexs(32),
)
sec(C, CHATWORK_QIITA, "# 接続情報 - Chatwork\nAPIトークン: {s}\nルームID: 11111178", hexs(32))
sec(
    C,
    OMISE,
    'const คีย์ลับ = "{s}";\nconst omise = require("omise")({ secretKey: คีย์ลับ });',
    omise_sk(test=False),
)
sec(
    C,
    XENDIT_KEYS,
    "# kunci rahasia Xendit, jangan dibagikan\nKUNCI_RAHASIA_XENDIT={s}",
    xendit("production"),
)
sec(
    C,
    CULQI,
    'llave_publica = "pk_live_{p}"\nllave_secreta = "{s}"\nculqi = Culqi(llave_publica, llave_secreta)'.replace(
        "{p}", tok(ALNUM, 24)
    ),
    culqi_sk(),
)
sec(
    C,
    BITRIX_FIRST,
    "<?php\n// секретный код входящего вебхука\n$секретный_код = '{s}';\n$портал = 'https://roga-kopyta.bitrix24.ru';",
    bitrix_code(),
)
sec(
    C,
    AT_CHT,
    'jina_la_mtumiaji = "kliniki"\nufunguo_wa_siri = "{s}"\nafricastalking.initialize(jina_la_mtumiaji, ufunguo_wa_siri)',
    at_key(),
)
sec(
    C,
    IYZICO,
    'Options options = new Options();\nString apiAnahtari = "{k}";\nString gizliAnahtar = "{s}";\noptions.setSecretKey(gizliAnahtar);'.replace(
        "{k}", iyzico_key()
    ),
    iyzico_key(),
)
sec(C, TB_MQTT, '# 设备连接配置\n设备令牌: "{s}"\n服务器: mqtt.thingsboard.cloud', tb_token())
sec(
    C,
    LINE,
    'val 채널시크릿 = "{s}"\nval 클라이언트 = LineMessagingClient.builder(채널액세스토큰).build()',
    hexs(32),
)
sec(
    C,
    ESPH_OTA,
    '# secrets.yaml (Dachboden)\nwlan_passwort: "{w}"\nota_passwort: "{s}"'.replace("{w}", pw()),
    pw(),
)
sec(
    C,
    TMDB,
    'chave_api_tmdb = "{s}"  # não compartilhe\nresposta = requests.get(URL, params={"api_key": chave_api_tmdb, "language": "pt-BR"})',
    hexs(32),
)
sec(
    C,
    NEPTUNE,
    'jeton_neptune = "{s}"\nrun = neptune.init_run(project="labo/vision", api_token=jeton_neptune)',
    neptune_token(),
)
sec(C, ROBLOX, 'local khoa_api = "{s}" -- khóa bí mật, đừng đưa vào client', roblox_key())
sec(C, LITELLM_KEY, '{"उपयोगकर्ता": "seema", "गुप्त_कुंजी": "{s}"}', litellm_key())
sec(C, INFOBIP_AUTH, '# المفتاح السري لخدمة الرسائل\nالمفتاح_السري = "{s}"', infobip_key())

# ------------------------------------------------------------------------ log line
C = "log line"
sec(
    C,
    JUPYTER,
    "[I 2026-11-20 09:14:03.511 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2026-11-20 09:14:03.511 ServerApp] http://127.0.0.1:8888/lab?token={s}",
    hexs(48),
)
sec(
    C,
    JUPYTER,
    "$ jupyter server list\nCurrently running servers:\nhttp://localhost:8888/?token={s} :: /home/ana/notebooks",
    hexs(48),
)
sec(
    C,
    JUPYTER_PATCH,
    "[C 06:30:58.798 NotebookApp]\n\n    Copy/paste this URL into your browser when you connect for the first time,\n    to login with a token:\n        http://0.0.0.0:6910/?token={s}",
    hexs(48),
)
sec(
    C,
    LITELLM_KEY,
    "14:02:11 - LiteLLM Proxy:DEBUG: user_api_key_auth.py:512 - api_key received in request headers: Bearer {s}",
    litellm_key(),
)
sec(
    C,
    TB_MQTT,
    "2026-12-01 07:55:12,041 - INFO - tb_device_mqtt - Connecting to mqtt.thingsboard.cloud:1883 with username {s}",
    tb_token(),
)
sec(
    C,
    AT_RUBY,
    "DEBUG:urllib3: POST https://api.sandbox.africastalking.com/version1/messaging headers={'apiKey': '{s}', 'Accept': 'application/json'}",
    at_key(),
)
sec(
    C,
    KUMA,
    "2026-12-02T03:00:01Z WARN [backup] heartbeat failed: GET https://status.lab.net/api/push/{s}?status=down&msg=dump%20failed -> 502",
    kuma_push(),
)
sec(
    C,
    ESPH_SEC,
    "$ esphome config boiler.yaml --show-secrets\nINFO ESPHome 2026.11.0\nINFO Reading configuration boiler.yaml...\napi:\n  encryption:\n    key: {s}\n  port: 6053",
    esphome_key(),
)
sec(
    C,
    HELICONE,
    "> POST /v1/chat/completions HTTP/2\n> Host: oai.helicone.ai\n> helicone-auth: Bearer {s}\n> content-type: application/json",
    helicone_key(),
)
sec(
    C,
    CHATWORK,
    "> POST /v2/rooms/3481122/messages HTTP/1.1\n> Host: api.chatwork.com\n> X-ChatWorkToken: {s}\n< HTTP/1.1 200 OK",
    hexs(32),
)
sec(
    C,
    TB_HTTP,
    '10.0.3.17 - - [02/Dec/2026:11:04:55 +0000] "POST /api/v1/{s}/telemetry HTTP/1.1" 200 0 "-" "ESP32HTTPClient"',
    tb_token(),
)
sec(
    C,
    TMDB,
    '172.18.0.4 - - [02/Dec/2026:11:05:01 +0000] "GET /3/movie/550?api_key={s}&language=en-US HTTP/1.1" 200 5123',
    hexs(32),
)
sec(
    C,
    INFOBIP_BASIC,
    "send: b'POST /sms/3/messages HTTP/1.1\\r\\nHost: 4ek9dq.api.infobip.com\\r\\nAuthorization: App {s}\\r\\nContent-Length: 212\\r\\n\\r\\n'",
    infobip_key(),
)
sec(
    C,
    LOGZIO,
    "logzio-sender 2026-12-03 01:11:09 DEBUG Sending bulk of 312 logs to https://listener.logz.io:8071/?token={s}&type=nginx",
    logzio_token(),
)
sec(
    C,
    Z2M_CFG,
    'Dec 04 01:12:44 pi zigbee2mqtt[812]: [2026-12-04 01:12:44] debug: z2m: Loaded settings mqtt: {"server":"mqtt://192.168.1.10","user":"z2m","password":"{s}"}',
    pw(),
)
sec(
    C,
    AIO,
    "WARNING:adafruit_io.client:retrying GET /api/v2/greenhouse_pi/feeds?x-aio-key={s} after 429",
    aio_key(),
)

# ------------------------------------------------------------------------ encoding
C = "encoding"
k = xendit()
sec(C, XENDIT_ARCH, "Authorization: Basic {s}", fresh(b64(k + ":")))
k = omise_sk()
sec(
    C, OMISE, "curl https://api.omise.co/account -H 'Authorization: Basic {s}'", fresh(b64(k + ":"))
)
k = xendit()
k = k[:30] + "/" + k[31:] if "/" not in k else k
sec(C, XENDIT_QS, '{"provider": "xendit", "secret_key": "{s}"}', fresh(k.replace("/", "\\/")))
k = xendit("production")
sec(
    C,
    XENDIT_QS,
    "POST /integrations/xendit HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nmode=live&secret_key={s}",
    fresh(urllib.parse.quote(k, safe="")),
)
k = xendit()
sec(
    C,
    XENDIT_KEYS,
    '<input type="hidden" name="xendit_key" value="{s}">',
    fresh(k.replace("+", "&#43;").replace("/", "&#x2F;").replace("=", "&#61;")),
)
sec(
    C,
    KUMA,
    "curl -s http://kuma.lab:3001/metrics -H 'Authorization: Basic {s}'",
    fresh(b64(":" + tok(ALNUM, 32, "uk3_"))),
)
k = helicone_key()
sec(C, HELICONE, '{"headers": {"Helicone-Auth": "Bearer {s}"}}', fresh(k.replace("-", "\\u002d")))
sec(
    C,
    ASTRA,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: astra-token\ndata:\n  token: {s}",
    fresh(b64(astra_token())),
)
sec(
    C,
    LITELLM_CFG,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: litellm-master\ndata:\n  LITELLM_MASTER_KEY: {s}",
    fresh(b64(litellm_key())),
)
sec(
    C,
    QUAY,
    '{\n  "auths": {\n    "quay.io": {\n      "auth": "{s}"\n    }\n  }\n}',
    fresh(b64("acme+ci_deployer:" + quay_token())),
)
p = pw() + "@/"
sec(
    C,
    Z2M_CFG,
    "mqtt:\n  server: mqtt://z2m:{s}@192.168.1.10:1883",
    fresh(urllib.parse.quote(p, safe="")),
)
key_bytes = base64.b64decode(esphome_key())
sec(
    C,
    ESPH_SEC,
    "static const uint8_t NOISE_PSK[32] = {{s}};",
    fresh(", ".join(f"0x{b:02x}" for b in key_bytes)),
)
sec(C, INFOBIP_BASIC, "Authorization: Basic {s}", fresh(b64("ops.bot:" + pw())))
k = line_token()
sec(
    C,
    LINE,
    "curl -X POST https://api.line.me/v2/oauth/revoke -H 'Content-Type: application/x-www-form-urlencoded' --data 'access_token={s}'",
    fresh(urllib.parse.quote(k, safe="")),
)
k = roblox_key()
sec(
    C,
    ROBLOX,
    "https://relay.games.lan/cloud?key={s}&universe=4829103311",
    fresh(urllib.parse.quote(k, safe="")),
)
sec(
    C,
    AT_RUBY,
    '$ printf \'%s:%s\' "$AT_USER" "$AT_KEY" | base64 -w0\n{s}',
    fresh(b64("clinic_sms:" + at_key())),
)

# --------------------------------------------------------------------- webhook url
C = "webhook url"
sec(
    C,
    BITRIX,
    "curl -s 'https://roga-kopyta.bitrix24.ru/rest/1/{s}/crm.lead.add.json' -d 'fields[TITLE]=Заявка с сайта'",
    bitrix_code(),
)
sec(
    C,
    BITRIX_FIRST,
    'WEBHOOK = "https://studio-nord.bitrix24.com/rest/13/{s}/"\nrequests.post(WEBHOOK + "tasks.task.add", json=task)',
    bitrix_code(),
)
sec(C, KUMA, "PUSH_URL=https://status.lab.net/api/push/{s}?status=up&msg=OK&ping=", kuma_push())
sec(
    C,
    KUMA,
    '*/5 * * * * /usr/local/bin/backup.sh && curl -fsS "https://kuma.home.arpa/api/push/{s}?status=up" >/dev/null',
    kuma_push(),
)
sec(
    C,
    TSPEAK_W,
    "GET https://api.thingspeak.com/update?api_key={s}&field1=23.4&field2=61",
    tspeak_key(),
)
sec(
    C,
    TB_HTTP,
    "curl -v -X POST https://thingsboard.cloud/api/v1/{s}/telemetry --header Content-Type:application/json -d '{\"humidity\":48}'",
    tb_token(),
)
sec(C, TB_HTTP, 'http.begin("http://tb.factory.lan:8080/api/v1/{s}/attributes");', tb_token())
sec(
    C,
    AT_CHT,
    "Incoming Messages callback: https://cht.clinic-ke.org/api/v1/sms/africastalking/incoming-messages?key={s}",
    hexs(64),
)
sec(
    C,
    AT_CHT,
    "Delivery Reports: https://cht.clinic-ke.org/api/v1/sms/africastalking/delivery-reports?key={s}",
    hexs(64),
)
sec(
    C,
    AIO,
    "https://io.adafruit.com/api/v2/greenhouse_pi/feeds/soil-moisture/data?x-aio-key={s}",
    aio_key(),
)
sec(C, BLYNK_HTTP, "curl 'https://blynk.cloud/external/api/update?token={s}&V1=1'", blynk_token())
sec(C, JUPYTER, "Open the notebook here: http://10.0.0.5:8888/tree?token={s}", hexs(48))
sec(
    C,
    LOGZIO,
    "curl -X POST 'https://listener.logz.io:8071/?token={s}&type=deploy' -d '{\"message\":\"release 4.2\"}'",
    logzio_token(),
)
sec(C, TMDB, "https://api.themoviedb.org/3/search/movie?api_key={s}&query=Heat", hexs(32))
sec(C, ZENODO, "curl 'https://zenodo.org/api/deposit/depositions?access_token={s}'", zenodo_token())

# --------------------------------------------------------- signing and build tools
C = "signing and build tools"
sec(
    C,
    NOTARY,
    "xcrun notarytool submit Recorder.zip --apple-id release@studio.io --team-id 7QX2K9M4PL --password {s} --wait",
    apple_app_pw(),
)
sec(
    C,
    NOTARY,
    'xcrun notarytool store-credentials "notary-ci" --apple-id "release@studio.io" --team-id "7QX2K9M4PL" --password "{s}"',
    apple_app_pw(),
)
sec(
    C,
    NOTARY,
    "#!/bin/sh\nexport APPLE_ID=release@studio.io\nexport APPLE_APP_SPECIFIC_PASSWORD={s}\nexport APPLE_TEAM_ID=7QX2K9M4PL\n./scripts/notarize.sh",
    apple_app_pw(),
)
sec(C, SNAP, "$ export SNAPCRAFT_STORE_CREDENTIALS={s}\n$ snapcraft whoami", snap_creds())
sec(
    C,
    SNAP,
    "$ snapcraft export-login --snaps=weatherd --channels=edge -\nEmail: release@studio.io\nPassword: \n\nExported login credentials:\n{s}",
    snap_creds(),
)
sec(
    C,
    AZSIGN,
    'AzureSignTool sign -kvu https://codesign-kv.vault.azure.net -kvi {i} -kvt {t} -kvs "{s}" -kvc release-cert -tr http://timestamp.digicert.com -v Setup.exe'.replace(
        "{i}", uid()
    ).replace("{t}", uid()),
    azure_client_secret(),
)
sec(
    C,
    MAC_SECURITY,
    'security create-keychain -p "$KC_PW" build.keychain\nsecurity unlock-keychain -p {s} build.keychain',
    pw(),
)
sec(
    C,
    MAC_SECURITY,
    "security import signing.p12 -k build.keychain -P '{s}' -T /usr/bin/codesign",
    pw(),
)
sec(C, OVSX, "ovsx publish dist/rainbow-brackets-2.4.1.vsix --pat {s}", uid())
sec(C, VSCE, "vsce publish --packagePath rainbow-brackets-2.4.1.vsix --pat {s}", vsce_pat())
sec(
    C,
    VSCE,
    "$ vsce verify-pat acme -p {s}\nThe Personal Access Token verification succeeded for the publisher 'acme'.",
    vsce_pat(),
)
sec(
    C,
    BUNDLETOOL,
    "java -jar bundletool.jar build-apks --bundle=app-release.aab --output=app.apks --ks=upload.jks --ks-pass=pass:{s} --ks-key-alias=upload",
    pw(),
)
sec(
    C,
    BUNDLETOOL,
    "java -jar bundletool.jar build-apks --bundle=app.aab --output=app.apks --ks=upload.jks --ks-pass=file:ks.pass --ks-key-alias=upload --key-pass=pass:{s}",
    pw(),
)
sec(
    C,
    SHOREBIRD,
    "- name: Shorebird release\n  env:\n    SHOREBIRD_TOKEN: {s}\n  run: shorebird release android",
    fresh(b64(json.dumps({"refresh_token": tok(URLSAFE, 96), "provider": "google"}))),
)
sec(
    C,
    CAKE_VSCE,
    'VscePublish(new VscePublishSettings {\n    PersonalAccessToken = "{s}",\n    Packages = new[] { "rainbow-brackets-2.4.1.vsix" }\n});',
    vsce_pat(),
)

# ------------------------------------------------------------------ benign: ids
C = "look-alike: ids and uuids"
v = tok(HEX, 24)
ben(
    C,
    XENDIT_ARCH,
    '{"id": "' + v + '", "external_id": "invoice-2026-1187", "status": "PENDING"}',
    v,
    "Xendit object id returned by the API, not a credential",
)
v = tok(LOWNUM, 19, "cust_test_")
ben(
    C,
    OMISE,
    f"curl https://api.omise.co/customers/{v}/cards -X GET -u $OMISE_SECRET_KEY:",
    v,
    "Omise customer id in the path; the key is an env reference",
)
v = tok(LOWNUM, 19, "chrg_test_")
ben(
    C,
    OMISE,
    '{"object": "charge", "id": "' + v + '", "amount": 100000, "currency": "thb"}',
    v,
    "Omise charge id in a response body",
)
v = tok(ALNUM, 16, "chr_live_")
ben(
    C,
    CULQI,
    '{"object": "charge", "id": "' + v + '", "amount": 3500, "currency_code": "PEN"}',
    v,
    "Culqi charge id in a response body",
)
v = "U" + hexs(32)
ben(
    C,
    LINE,
    '{ "to": "' + v + '", "messages": [{ "type": "text", "text": "Hello, world" }] }',
    v,
    "LINE user id of the message recipient",
)
v = uid()
ben(
    C,
    LINE_NOTES,
    f"HTTP/2 200\nx-line-request-id: {v}\ncontent-type: application/json",
    v,
    "LINE request id response header, a UUID",
)
v = uid()
ben(
    C,
    TB_HTTP,
    f"GET /api/device/{v}/credentials HTTP/1.1\nX-Authorization: Bearer $TB_JWT",
    v,
    "ThingsBoard device id (UUID) in the path; the JWT is a reference",
)
v = "TMPL" + tok(ALNUM, 9)
ben(
    C,
    BLYNK,
    f'#define BLYNK_TEMPLATE_ID "{v}"\n#define BLYNK_TEMPLATE_NAME "wokwi led"',
    v,
    "Blynk template id, an identifier shown in the console",
)
v = uid()
ben(
    C,
    INFOBIP_AUTH,
    '{"bulkId": "'
    + v
    + '", "messages": [{"messageId": "'
    + uid()
    + '", "status": {"groupName": "PENDING"}}]}',
    v,
    "Infobip bulk id in a send response",
)
v = uid()
ben(
    C,
    ASTRA,
    f"ASTRA_DB_API_ENDPOINT=https://{v}-us-east1.apps.astra.datastax.com",
    v,
    "Astra database id inside the endpoint host name",
)
v = tok(ALNUM, 12, "RM_")
ben(
    C,
    LIVEKIT_TOK,
    '{"room": {"sid": "' + v + '", "name": "standup", "num_participants": 3}}',
    v,
    "LiveKit room SID",
)
v = uid()
ben(
    C,
    NOTARY,
    f"Conducting pre-submission checks for Recorder.zip and initiating connection to the Apple notary service...\nSubmission ID received\n  id: {v}\nSuccessfully uploaded file",
    v,
    "notarytool submission id, a UUID",
)
v = tok(UPNUM, 10)
ben(
    C,
    NOTARY,
    f"    team-id: {v}\n    apple-id: ${{{{ secrets.APPLE_ID }}}}",
    v,
    "Apple developer Team ID, a public account identifier",
)
v = "CLS-" + str(rng.randint(1000, 9999))
ben(
    C,
    NEPTUNE,
    f'run = neptune.init_run(with_id="{v}", project="vision-lab/segmentation")',
    v,
    "Neptune run id",
)
v = f"10.5281/zenodo.{rng.randint(7000000, 9999999)}"
ben(
    C,
    ZENODO,
    f'"doi": "{v}", "conceptrecid": "{rng.randint(7000000, 9999999)}"',
    v,
    "Zenodo DOI of a published record",
)
v = str(rng.randint(1000000000, 9999999999))
ben(
    C,
    ROBLOX,
    f"const universeInfo = await fetchApi(v2.getCloudV2UniversesUniverseId, {{ universe_id: '{v}' }});",
    v,
    "Roblox universe id",
)
v = uid()
ben(
    C,
    LITELLM_KEY,
    f"< HTTP/1.1 200 OK\n< x-litellm-call-id: {v}\n< x-litellm-model-id: deployment-1",
    v,
    "LiteLLM call id response header",
)
v = uid()
ben(
    C,
    HELICONE,
    f"< helicone-id: {v}\n< helicone-cache: MISS",
    v,
    "Helicone request id response header",
)
v = str(rng.randint(10000000, 99999999))
ben(
    C,
    CHATWORK_QIITA,
    f'const url_aa = "https://api.chatwork.com/v2/rooms/{v}/messages?force=1"',
    v,
    "Chatwork room id in the URL",
)

# ------------------------------------------------------ benign: placeholders
C = "look-alike: placeholders and references"
ben(
    C,
    LITELLM_CFG,
    "  - model_name: gpt-4\n    litellm_params:\n      model: openai/gpt-4\n      api_key: os.environ/OPENAI_API_KEY",
    "os.environ/OPENAI_API_KEY",
    "LiteLLM reference to an environment variable",
)
ben(
    C,
    ESPH_SEC,
    "api:\n  encryption:\n    key: !secret device_name_api_key",
    "!secret device_name_api_key",
    "ESPHome !secret reference into secrets.yaml",
)
ben(
    C,
    ESPH_OTA,
    "ota:\n  - platform: esphome\n    password: !secret ota_password",
    "!secret ota_password",
    "ESPHome !secret reference",
)
ben(
    C,
    Z2M_SEC,
    "advanced:\n  network_key: GENERATE\n  pan_id: GENERATE",
    "network_key: GENERATE",
    "Zigbee2MQTT asks to generate the key; no key present",
)
ben(
    C,
    LITELLM_KEY,
    'export LITELLM_PROXY_URL="https://litellm.internal"\nexport LITELLM_API_KEY="<your-virtual-key>"',
    "<your-virtual-key>",
    "angle-bracket placeholder",
)
ben(
    C,
    TMDB,
    "curl --request GET \\\n  --url 'https://api.themoviedb.org/3/movie/11' \\\n  --header 'Authorization: Bearer <<access_token>>'",
    "<<access_token>>",
    "TMDB documentation placeholder",
)
ben(
    C,
    TB_HTTP,
    "curl -v -X POST -d @telemetry-data.json http://$THINGSBOARD_HOST:$THINGSBOARD_PORT/api/v1/$ACCESS_TOKEN/telemetry",
    "$ACCESS_TOKEN",
    "shell variable in the token position",
)
ben(
    C,
    OMISE_JA,
    '  -X POST \\\n  -u "$OMISE_KEY_SECRET": \\\n  -d "amount=100"',
    '"$OMISE_KEY_SECRET"',
    "shell variable instead of the Omise secret key",
)
ben(
    C,
    DATASETTE,
    '"token": {\n    "$env": "BOT_TOKEN"\n},\n"actor": {"bot_id": "my-bot"}',
    '"$env": "BOT_TOKEN"',
    "Datasette secret configuration reference",
)
ben(
    C,
    LIVEKIT,
    "lk token create \\\n--api-key <PROJECT_KEY> --api-secret <PROJECT_SECRET> \\\n--join --room test_room --identity test_user",
    "<PROJECT_SECRET>",
    "documentation placeholder",
)
ben(
    C,
    NOTARY,
    "  with:\n    apple-id: ${{ secrets.APPLE_ID }}\n    app-password: ${{ secrets.APP_PASSWORD }}\n    team-id: ${{ secrets.TEAM_ID }}",
    "${{ secrets.APP_PASSWORD }}",
    "GitHub Actions secret reference",
)
ben(
    C,
    SNAP,
    "export SNAPCRAFT_STORE_CREDENTIALS=$(cat <credentials-filename>)",
    "$(cat <credentials-filename>)",
    "command substitution with a placeholder file name",
)
ben(
    C,
    ASTRA,
    "astra setup --token APPLICATION_TOKEN",
    "APPLICATION_TOKEN",
    "upper-case placeholder word from the Astra CLI guide",
)
ben(
    C,
    HELICONE_FAQ,
    'defaultHeaders: {\n    "Helicone-Auth": `Bearer ${HELICONE_SECRET_API_KEY}`,\n},',
    "${HELICONE_SECRET_API_KEY}",
    "template-literal reference",
)
ben(
    C,
    KUMA,
    "environment:\n  - PUSH_URL=https://uptime.internal/api/push/YOUR_TOKEN_HERE\n  - PUSH_INTERVAL=60",
    "YOUR_TOKEN_HERE",
    "placeholder in the push URL",
)
ben(
    C,
    INFOBIP_AUTH,
    "Include the API key in the Authorization header of every request:\n\nAuthorization: App {YOUR_API_KEY}",
    "{YOUR_API_KEY}",
    "brace placeholder",
)
ben(
    C,
    CULQI_PHP,
    "define('SECRET_KEY', \"Llave secreta del comercio (sk_test_xxxxxxxxx)\");",
    "sk_test_xxxxxxxxx",
    "Culqi demo placeholder with x filler",
)
ben(
    C,
    CHATWORK_GEM,
    'ChatWork.api_key = ENV["CHATWORK_API_TOKEN"]',
    'ENV["CHATWORK_API_TOKEN"]',
    "Ruby environment lookup",
)
ben(
    C,
    OVSX,
    "- run: npx ovsx publish -p ${{ secrets.OVSX_PAT }}",
    "${{ secrets.OVSX_PAT }}",
    "GitHub Actions secret reference",
)

# ------------------------------------------------------ benign: code naming
C = "look-alike: code naming a secret"
ben(
    C,
    NEPTUNE,
    'import os\nfrom getpass import getpass\nos.environ["NEPTUNE_API_TOKEN"] = getpass("Enter your Neptune API token: ")',
    'os.environ["NEPTUNE_API_TOKEN"]',
    "names the variable; the value is typed in",
)
ben(
    C,
    CHATWORK,
    "def headers\n  { 'X-ChatWorkToken' => api_token, 'Content-Type' => 'application/x-www-form-urlencoded' }\nend",
    "'X-ChatWorkToken' => api_token",
    "header built from a variable",
)
ben(
    C,
    LIVEKIT_GO,
    'at := auth.NewAccessToken(os.Getenv("LIVEKIT_API_KEY"), os.Getenv("LIVEKIT_API_SECRET"))',
    'os.Getenv("LIVEKIT_API_SECRET")',
    "reads the secret from the environment",
)
ben(
    C,
    AT_DART,
    "AfricasTalking.new(String username, String apiKey)",
    "String apiKey",
    "constructor signature naming the key",
)
ben(
    C,
    TSPEAK_ARD,
    "client.setChannel(String key);\nSets the channel API key.",
    "client.setChannel(String key);",
    "library method signature",
)
ben(
    C,
    LITELLM_CFG,
    'master_key = general_settings.get("master_key", None)\nif master_key is None:\n    raise ValueError("set general_settings.master_key")',
    'general_settings.get("master_key", None)',
    "code reading the setting",
)
ben(
    C,
    HELICONE,
    'helicone_auth = f"Bearer {settings.HELICONE_API_KEY}"',
    "{settings.HELICONE_API_KEY}",
    "f-string naming a settings field",
)
ben(
    C,
    LINE,
    "val channelSecret = BuildConfig.LINE_CHANNEL_SECRET",
    "BuildConfig.LINE_CHANNEL_SECRET",
    "build-time constant reference",
)
ben(
    C,
    PMA,
    "$cfg['blowfish_secret'] = getenv('PMA_BLOWFISH_SECRET');",
    "getenv('PMA_BLOWFISH_SECRET')",
    "reads the secret from the environment",
)
ben(
    C,
    CULQI,
    'String secret = System.getenv("CULQI_SECRET_KEY");',
    'System.getenv("CULQI_SECRET_KEY")',
    "environment lookup in Java",
)
ben(
    C,
    LOGZIO_PULUMI,
    'resource "logzio_log_shipping_token" "ci" {\n  name = "ci-shipping"\n}\n\noutput "shipping_token" {\n  value     = logzio_log_shipping_token.ci.token\n  sensitive = true\n}',
    "logzio_log_shipping_token.ci.token",
    "Terraform attribute reference",
)
ben(
    C,
    ROBLOX,
    'local key = HttpService:GetSecret("open_cloud_key")',
    'HttpService:GetSecret("open_cloud_key")',
    "reads a named secret at run time",
)
ben(
    C,
    LITELLM_KEY,
    '[ -n "$OPENAI_API_KEY" ] && echo set',
    '"$OPENAI_API_KEY"',
    "checks that a variable is set without printing it",
)
ben(
    C,
    JUPYTER,
    'jupyter_token = os.environ.get("JUPYTER_TOKEN", "")',
    'os.environ.get("JUPYTER_TOKEN", "")',
    "environment lookup",
)
ben(
    C,
    NOTARY,
    'let password = try keychain.get("AC_PASSWORD")',
    'keychain.get("AC_PASSWORD")',
    "keychain lookup by item name",
)
ben(
    C,
    CAKE_VSCE,
    "public string PersonalAccessToken { get; set; }",
    "public string PersonalAccessToken { get; set; }",
    "property declaration",
)
ben(
    C,
    VSCE,
    "-p, --pat <token> | Personal Access Token (defaults to VSCE_PAT environment variable) |",
    "VSCE_PAT",
    "help text naming the variable",
)
ben(
    C,
    CHATWORK_CPAN,
    "my $ua = WebService::ChatWorkApi::UserAgent->new( api_token => $api_token, );",
    "api_token => $api_token",
    "Perl variable passed along",
)

# ------------------------------------------------ benign: public / client keys
C = "look-alike: public keys and client-side keys"
for _ in range(2):
    v = tok(LOWNUM, 19, "pkey_test_")
    ben(
        C,
        OMISE,
        f'<script src="https://cdn.omise.co/omise.js"></script>\n<script>Omise.setPublicKey("{v}");</script>',
        v,
        "Omise public key, documented as safe on a web page",
    )
v = tok(LOWNUM, 19, "pkey_")
ben(
    C,
    OMISE,
    f"curl https://vault.omise.co/tokens -X POST -u {v}: -d 'card[name]=Somchai Prasert'",
    v,
    "Omise live public key; only creates tokens",
)
for mode in ("test", "live", "live"):
    v = tok(ALNUM, 24, f"pk_{mode}_")
    ben(
        C,
        CULQI,
        f'Culqi.publicKey = "{v}";\nCulqi.settings({{ currency: "PEN", amount: 3500 }});',
        v,
        "Culqi public key used in the browser checkout",
    )
for mode in ("development", "production", "development"):
    v = tok(B64, 56, f"xnd_public_{mode}_") + "=="
    ben(
        C,
        XENDIT_KEYS,
        f"Xendit.setPublishableKey('{v}');",
        v,
        "Xendit public key, safe in JavaScript or apps; only tokenizes cards",
    )
body = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + tok(B64, 64)
ben(
    C,
    CULQI,
    f"RSA_PUBLIC_KEY = '''-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----'''",
    body,
    "RSA public key used to encrypt the payload",
)
v = tok(LOWNUM, 6)
ben(
    C,
    INFOBIP_NEW,
    f"Base URL: https://{v}.api.infobip.com",
    f"https://{v}.api.infobip.com",
    "Infobip documents the Base URL as not a secret",
)
v = tok(LOWNUM, 6)
ben(
    C,
    INFOBIP_NEW,
    f"INFOBIP_BASE_URL=https://{v}.api.infobip.com  # routing only, not a secret",
    f"https://{v}.api.infobip.com",
    "Infobip Base URL",
)
v = tok(ALNUM, 21, "API")
ben(
    C,
    LIVEKIT_TOK,
    '{"exp": 1621657263, "iss": "'
    + v
    + '", "sub": "myidentity", "video": {"room": "myroom", "roomJoin": true}}',
    v,
    "LiveKit API key id as the issuer of a decoded token; the secret is not in it",
)
v = hexs(32)
ben(
    C,
    AGORA,
    f'const client = AgoraRTC.createClient({{ mode: "rtc", codec: "vp8" }});\nawait client.join("{v}", "lobby", token, null);',
    v,
    "Agora App ID passed in browser code; the App Certificate stays on the server",
)
v = f"{rng.randint(1000000000, 2099999999)}-{tok(ALNUM, 8)}"
ben(C, LIFF, f'liff.init({{ liffId: "{v}" }});', v, "LINE LIFF app id, used in front-end code")
v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(B64, 43) + " deploy@quay-mirror"
ben(C, QUAY, f"$ cat ~/.ssh/id_ed25519.pub\n{v}", v, "an SSH public key")
v = "age1" + tok("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
ben(
    C,
    SNAP,
    f"# recipients for the store credential backup\n{v}",
    v,
    "an age public recipient, safe to publish",
)

# ------------------------------------------------------- benign: hashes
C = "look-alike: hashes and digests"
v = "sha256:" + hexs(64)
ben(C, QUAY, f"docker pull quay.io/acme/api@{v}", v, "image digest")
v = hexs(32)
ben(
    C,
    ESPH_OTA,
    f"$ cat .esphome/build/garage-door/.pioenvs/garage-door/firmware.bin.md5\n{v}",
    v,
    "MD5 checksum of a firmware image",
)
v = "sha256:" + hexs(64)
ben(C, LITELLM_CFG, f"litellm==1.55.8 \\\n    --hash={v}", v, "pip hash pin")
v = "sha512-" + fresh(base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode())
ben(
    C,
    OVSX,
    f'"node_modules/ovsx": {{\n  "version": "0.10.1",\n  "integrity": "{v}"\n}}',
    v,
    "npm integrity string",
)
v = hexs(40)
ben(C, ESPH_REPO, f"$ git log -1 --format=%H\n{v}", v, "git commit SHA")
v = hexs(96)
ben(
    C,
    SNAP,
    f"type: snap-revision\nsnap-sha3-384: {v}\nsnap-revision: 42",
    v,
    "snap revision digest in an assertion",
)
v = hexs(40)
ben(
    C,
    NOTARY,
    f"$ codesign -dvvv Recorder.app 2>&1 | grep CDHash\nCDHash={v}",
    v,
    "code directory hash",
)
v = "md5:" + hexs(32)
ben(
    C,
    ZENODO,
    '{"key": "era5_subset.nc", "size": 48213376, "checksum": "' + v + '"}',
    v,
    "file checksum in a record",
)
v = hexs(64)
ben(
    C,
    DATASETTE_INTRO,
    '{"name": "fixtures", "path": "fixtures.db", "hash": "' + v + '", "is_mutable": false}',
    v,
    "database content hash",
)
v = hexs(64)
ben(
    C,
    LITELLM_KEY,
    f'litellm=# SELECT token, key_alias FROM "LiteLLM_VerificationToken" LIMIT 1;\n {v} | ci-bot',
    v,
    "stored hash of a virtual key, not the key itself",
)
v = "sha256:" + hexs(64)
ben(
    C,
    TB_HTTP,
    f"thingsboard/tb-postgres   4.0.1   {v}   3 weeks ago   1.2GB",
    v,
    "image digest in docker images --digests",
)
v = "sha256:" + hexs(64)
ben(
    C,
    KUMA,
    f"dependencies:\n- name: uptime-kuma\n  repository: https://helm.irsigler.cloud\n  version: 2.21.2\ndigest: {v}",
    v,
    "Chart.lock digest",
)
v = "sha384-" + fresh(base64.b64encode(bytes(rng.randrange(256) for _ in range(48))).decode())
ben(
    C,
    CULQI,
    f'<script src="https://js.culqi.com/checkout-js" integrity="{v}" crossorigin="anonymous"></script>',
    v,
    "subresource integrity hash",
)
v = hexs(64)
ben(
    C,
    TB_HTTP,
    '{"title": "fw-esp32", "version": "1.4.0", "checksumAlgorithm": "SHA256", "checksum": "'
    + v
    + '"}',
    v,
    "OTA package checksum",
)
v = "h1:" + fresh(base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode())
ben(C, LIVEKIT_GO, f"github.com/livekit/protocol v1.29.4 {v}", v, "go.sum module hash")
v = hexs(64)
ben(
    C,
    LIVEKIT_TOK,
    f'[[package]]\nname = "livekit-api"\nversion = "0.4.1"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{v}"',
    v,
    "Cargo.lock checksum",
)
v = hexs(64)
ben(C, LIVEKIT, f'  sha256 arm64_sonoma: "{v}"', v, "Homebrew bottle checksum")
v = hexs(40)
ben(
    C,
    BITRIX,
    f'HTTP/1.1 200 OK\nETag: "{v}"\nContent-Type: application/json',
    v,
    "ETag content hash",
)

# ------------------------------------------------------- benign: masked
C = "look-alike: masked values"
v = "skey_5" + "*" * 18
ben(
    C,
    OMISE_HELP,
    f"Secret key  {v}  (hidden after 15 minutes; roll the key to see a new one)",
    v,
    "Omise dashboard shows the live key behind asterisks",
)
ben(
    C,
    JUPYTER_PATCH,
    "[I 10:01:44.210 NotebookApp] The Jupyter Notebook is running at: http://localhost:8888/?token=...",
    "?token=...",
    "token logged as ... because it came from config",
)
ben(
    C,
    AIO_GIST,
    '#define IO_USERNAME "**************"\n#define IO_KEY "********************************"',
    '"********************************"',
    "key replaced by asterisks",
)
ben(
    C,
    Z2M_PASTE,
    '"mqtt": {\n  "base_topic": "zigbee2mqtt",\n  "user": "***************",\n  "password": "**************"\n}',
    '"**************"',
    "password replaced by asterisks",
)
v = "sk-..." + tok(ALNUM, 4)
ben(
    C,
    LITELLM_KEY,
    f"key_alias   key_name      spend\nci-bot      {v}    0.42",
    v,
    "key shown by its last characters only",
)
ben(
    C,
    JUPYTER,
    "INFO jupyter_mcp_server: Connecting to Jupyter server - URL: http://localhost:8888, Token: ***",
    "Token: ***",
    "token masked in the log line",
)
ben(
    C,
    OVSX,
    "Run npx ovsx publish -p ***\n  env:\n    OVSX_PAT: ***",
    "OVSX_PAT: ***",
    "CI log masks the secret",
)
v = hexs(4) + "*" * 28 + "-****-****-****-********" + hexs(4)
ben(C, INFOBIP_AUTH, f"API key      {v}   expires 2027-03-01", v, "portal shows a masked key")
ben(
    C,
    ASTRA,
    "$ astra config list\n| configuration | email             | token           |\n| default       | ana@lab.org       | AstraCS:******  |",
    "AstraCS:******",
    "token masked by the CLI",
)
ben(
    C,
    AT_SMSFW,
    "gateway.add_provider('africas_talking', AfricasTalkingProvider,\n    username='sandbox',\n    api_key='\\*\\*\\*'\n)",
    "api_key='\\*\\*\\*'",
    "key shown as escaped asterisks",
)
v = "xnd_production_" + "•" * 16 + tok(ALNUM, 3)
ben(
    C,
    XENDIT_KEYS,
    f"Secret keys\n  ops-disbursement   {v}   Write: Disbursement",
    v,
    "dashboard bullet mask",
)
v = "sk-helicone-*******-*******-*******-" + tok(LOWNUM, 7)
ben(C, HELICONE, f"Keys\n  eval-runner   {v}   read+write", v, "key shown with its last group only")
ben(
    C,
    CHATWORK_QIITA,
    "req.headers['X-ChatWorkToken'] = '********************************'",
    "'********************************'",
    "token replaced by asterisks before sharing",
)
ben(
    C,
    SNAP,
    "$ snapcraft export-login creds.txt\nEmail: release@studio.io\nPassword: ********\nSecond-factor auth: ******",
    "Password: ********",
    "prompt echo masked",
)
v = "•" * 12 + tok(URLSAFE, 3)
ben(C, NETDATA, f"Claim token   {v}   [Copy]", v, "UI shows a masked claim token")
v = "*" * 28 + hexs(4)
ben(C, TMDB, f"API Key\n{v}", v, "settings page shows the last characters only")
ben(
    C,
    QUAY,
    "Robot Account: acme+ci_deployer\nToken: ••••••••••••••••   [Regenerate]",
    "••••••••••••••••",
    "masked robot token",
)
ben(
    C,
    KUMA,
    "API Keys\n  metrics-scraper   uk3_****************   Active",
    "uk3_****************",
    "masked API key in the settings list",
)


def check_rows(rows: list[dict[str, str]]) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    n_secret = n_benign = 0
    counts: dict[str, int] = {}
    for i, r in enumerate(rows):
        cls = r.get("class", "")
        counts[cls] = counts.get(cls, 0) + 1
        if r.get("expect") == "secret":
            n_secret += 1
            if set(r) != SECRET_KEYS:
                problems.append(f"row {i}: keys {sorted(r)}")
            if cls not in SECRET_CLASSES:
                problems.append(f"row {i}: bad secret class {cls!r}")
            s = r.get("secret", "")
            if not s:
                problems.append(f"row {i}: empty secret")
            if s in seen:
                problems.append(f"row {i}: duplicate secret {s!r}")
            seen.add(s)
            if s not in r.get("context", ""):
                problems.append(f"row {i}: secret not in context")
            if _banned(s):
                problems.append(f"row {i}: banned word in secret {s!r}")
        elif r.get("expect") == "benign":
            n_benign += 1
            if set(r) != BENIGN_KEYS:
                problems.append(f"row {i}: keys {sorted(r)}")
            if cls not in BENIGN_CLASSES:
                problems.append(f"row {i}: bad benign class {cls!r}")
            if not r.get("value") or r["value"] not in r.get("context", ""):
                problems.append(f"row {i}: value not in context")
        else:
            problems.append(f"row {i}: bad expect {r.get('expect')!r}")
        if not r.get("source", "").startswith("https://"):
            problems.append(f"row {i}: source is not a URL")
    for cls in SECRET_CLASSES + BENIGN_CLASSES:
        if counts.get(cls, 0) < 6:
            problems.append(f"class {cls!r} has {counts.get(cls, 0)} rows")
    if n_secret < 170:
        problems.append(f"only {n_secret} secret rows")
    if n_benign < 100:
        problems.append(f"only {n_benign} benign rows")
    return problems


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str]) -> int:
    text = render(ROWS)
    if "--check" in argv:
        problems = check_rows(ROWS)
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            problems.append(f"{OUT.name} differs from the rows; run the builder")
        if problems:
            print("\n".join(problems))
            return 1
        print(f"{len(ROWS)} rows, ok")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(ROWS)} rows to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
