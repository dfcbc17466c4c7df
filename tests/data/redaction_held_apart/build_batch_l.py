# ruff: noqa: E501
"""Build batch L of the held-apart redaction set.

Written blind to the redaction rules: without reading the redaction code, its tests, its
development rows or the rows of any earlier batch. The rows follow the documentation of tools no
earlier batch names (OpenAI, Anthropic, Sourcegraph, Gemfury, Unleash, Matomo, Midtrans, PayMongo,
Statsig, ngrok, LINE Notify, Cronitor, Laravel Forge, sourcehut and hut, Prisma, dotenvx, DVC,
sshpass, ipmitool, mitmproxy, pino, Flutter and Cordova release signing, Notation, Flatpak and
Alpine abuild). The pages actually read are the `source` of each row; they are:

- ezdoc.cn/docs/openai/api/authentication and w3cschool.cn/openai_api/openai-api-validation.html
- docs.anthropic.com/fr/api/getting-started and docs.anthropic.com/ja/api/overview
- sourcegraph.com/docs/cli/how-tos/creating-an-access-token and github.com/sourcegraph/src-cli/pull/205/files
- gemfury.com/help/upload-packages, gemfury.com/help/git-push-package/ and ruby-toolbox.com/projects/gemfury
- docs.getunleash.io/concepts/api-tokens-and-client-keys and docs.getunleash.io/api
- matomo.org/faq/general/faq_114, developer.matomo.org/guides/authentication-in-depth,
  github.com/matomo-org/matomo (plugins/API/lang/es.json), github.com/RobBrazier/Laravel_Piwik (a commit)
- docs.midtrans.com/reference-link/authorization, docs.midtrans.com/docs/access-keys,
  docs.midtrans.com/docs/api-authorization-headers, pastebin.com/xp9ARVBa,
  pub.dev/documentation/midtrans_plugin (MidtransConfig.merchantClientKey)
- developers.paymongo.com/docs/account-settings-api-keys, developers.paymongo.com/docs/make-your-first-api-call,
  pub.dev/documentation/paymongo_sdk (PayMongoSDK class)
- docs.statsig.com/en/access-management/api-keys, docs.statsig.com/http-api,
  docs.statsig.com/feature-flags/implement/http-api, docs.statsig.com/api/content/sdks/quickstart
- pastebin.com/A8wjks9r and pastebin.com/03xN09fD (ngrok authtoken commands)
- gist.github.com/clarencetw/374166625bb6647dee63613ce16ccd1f, gist.github.com/amaotone/2eea52379d559a4dc60e6c6c76085b7b,
  rdrr.io/github/fisproject/lineNotify/man/notify_msg.html (LINE Notify)
- cronitor.io/docs/telemetry-api.md, cronitor.io/docs/api, gist.github.com/trekdemo/16b380cf9db61aaaf4a6,
  github.com/gonace/Cronitor/wiki/Telemetry, readme.hex.pm/cronitor/1.1.0
- laravel.com/forge/docs/api-reference/deployments/get-the-deployment-trigger-url,
  github.com/PropFuel/laravel-forge-deploy-action, gist.github.com/LukaSikic/9a55e07f18a3781f8c1c927d3e269cfd,
  gist.github.com/masterix21/96d2d330715a6d9087c5814cb80147b4, packagist.org/packages/tobischulz/artisan-forge-deploy
- tangled.org/mitchellh.com/tack/raw/main/docs/sourcehut.md, manpages.ubuntu.com/manpages/resolute/man1/hut.1.html,
  tangled.org/tjh.dev/nixpkgs (nixos/tests/sourcehut/git.nix)
- www.prisma.io/docs/reference/database-reference/connection-urls/ and
  www.prisma.io/docs/getting-started/setup-prisma/start-from-scratch/connect-your-database-node-postgres/
- tessl.io/registry/tessl/npm-dotenvx--dotenvx/1.49.0/files/docs/encryption-security.md,
  docs.rs/crate/dotenvx-rs/0.2.0/source/.env.example, skills.sh/mizchi/skills/dotenvx
- dvc.org/doc/user-guide/data-management/remote-storage/amazon-s3
- manpages.ubuntu.com/manpages/focal/man1/sshpass.1.html and man.archlinux.org/man/ipmitool.1.en.txt
- manpages.ubuntu.com/manpages/bionic/man1/mitmdump.1.html
- raw.githubusercontent.com/pinojs/pino/main/docs/redaction.md
- github.com/cosmicsarthak/foodie-rush-app, github.com/francisrod01/dio-flashlight-app,
  gist.github.com/kunny/34799bc511ba987eb0a8a0ce06583909 (Flutter release signing)
- pastebin.com/ZSNxDxMb, gist.github.com/aaccurso/8e0f3819d18b636e1501626872a6577b,
  gist.github.com/j3k0/28f60a7d5622508634d09f94c59d6dfc (Cordova release signing)
- manpages.ubuntu.com/manpages/resolute/man1/notation.1.html and
  newreleases.io/project/github/notaryproject/notation/release/v1.0.0-rc.1, packages.debian.org/en/forky/amd64/notation,
  github.com/junczhu/notation/releases (NOTATION_USERNAME and NOTATION_PASSWORD)
- build.opensuse.org (FlatpakBuilder flatpak.yaml template) and docs.rs/flatpak-rs (FlatpakSource)
- wiki.alpinelinux.org/wiki/APKBUILD_Reference, pastebin.com/95CtsYmr, pkgs.alpinelinux.org/package/v3.24/main/x86_64/abuild
- docs.rs/agent-first-http/0.8.0 (shared::redact) and github.com/google/go-containerregistry/pull/864

Every secret is fake: it comes from a seeded generator, so the file is the same on every run.

Usage: `python tests/data/redaction_held_apart/build_batch_l.py` writes batch-l.jsonl;
`--check` verifies the file equals the rows and the rows are valid, printing "N rows, ok" (exit 0)
or the problems (exit 1).
"""

from __future__ import annotations

import base64
import json
import random
import sys
from pathlib import Path
from urllib.parse import quote

OUT = Path(__file__).with_name("batch-l.jsonl")
rng = random.Random(20261204)

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

HEX = "0123456789abcdef"
DIGITS = "0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
B62 = DIGITS + UPPER + UPPER.lower()
B64URL = B62 + "-_"
B64 = B62 + "+/"
PWCHARS = B62 + "!#%*-_.~^"

_used: set[str] = set()


def tok(alphabet: str, n: int, prefix: str = "") -> str:
    """A fresh random string: never one already used, never one holding a banned word."""
    while True:
        value = prefix + "".join(rng.choice(alphabet) for _ in range(n))
        low = value.lower()
        if value not in _used and not any(word in low for word in BANNED):
            _used.add(value)
            return value


def pw(n: int = 18) -> str:
    return tok(PWCHARS, n)


def hexs(n: int) -> str:
    return tok(HEX, n)


def uid() -> str:
    h = tok(HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def openai_key() -> str:
    return tok(B64URL, 48, "sk-proj-") + tok(B62, 20)


def anthropic_key() -> str:
    return tok(B64URL, 93, "sk-ant-api03-") + "AA"


def sourcegraph_token() -> str:
    return tok(HEX, 16, "sgp_") + "_" + hexs(40)


def unleash_backend(project: str = "*", env: str = "production") -> str:
    return tok(HEX, 56, f"{project}:{env}.")


def midtrans_server(sandbox: bool = True) -> str:
    return tok(B62, 24, "SB-Mid-server-" if sandbox else "Mid-server-")


def midtrans_client(sandbox: bool = True) -> str:
    return tok(B62, 16, "SB-Mid-client-" if sandbox else "Mid-client-")


def paymongo(kind: str) -> str:
    return tok(B62, 24, kind)


def statsig(kind: str) -> str:
    return tok(B62, 43, kind)


def ngrok_token() -> str:
    return tok(B62, 27) + "_" + tok(B62, 21)


def forge_token() -> str:
    return "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJ" + tok(B64URL, 160) + "." + tok(B64URL, 86)


def aws_secret() -> str:
    return tok(B64, 40)


def aws_id() -> str:
    return tok(UPPER + "234567", 16, "AKIA")


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


OPENAI = "https://ezdoc.cn/docs/openai/api/authentication"
OPENAI_ZH = "https://w3cschool.cn/openai_api/openai-api-validation.html"
ANTHROPIC = "https://docs.anthropic.com/fr/api/getting-started"
ANTHROPIC_JA = "https://docs.anthropic.com/ja/api/overview"
SRC = "https://sourcegraph.com/docs/cli/how-tos/creating-an-access-token"
SRC_README = "https://github.com/sourcegraph/src-cli/pull/205/files"
FURY = "https://gemfury.com/help/upload-packages"
FURY_GIT = "https://gemfury.com/help/git-push-package/"
FURY_RUBY = "https://ruby-toolbox.com/projects/gemfury"
UNLEASH = "https://docs.getunleash.io/concepts/api-tokens-and-client-keys"
UNLEASH_API = "https://docs.getunleash.io/api"
MATOMO = "https://matomo.org/faq/general/faq_114"
MATOMO_DEV = "https://developer.matomo.org/guides/authentication-in-depth"
MATOMO_ES = "https://github.com/matomo-org/matomo/blob/5a91ccbad4839adee86b1d48b95caeb8001d9ebd/plugins/API/lang/es.json"
MATOMO_PIWIK = (
    "https://github.com/RobBrazier/Laravel_Piwik/commit/a101e276331ccaf9dd683c703f60e9d02203e05b"
)
MIDTRANS = "https://docs.midtrans.com/reference-link/authorization"
MIDTRANS_KEYS = "https://docs.midtrans.com/docs/access-keys"
MIDTRANS_HDR = "https://docs.midtrans.com/docs/api-authorization-headers"
MIDTRANS_CS = "https://pastebin.com/xp9ARVBa"
MIDTRANS_PUB = "https://pub.dev/documentation/midtrans_plugin/1.0.0/models_midtrans_config/MidtransConfig/merchantClientKey.html"
PAYMONGO = "https://developers.paymongo.com/docs/account-settings-api-keys"
PAYMONGO_CALL = "https://developers.paymongo.com/docs/make-your-first-api-call"
PAYMONGO_SDK = (
    "https://pub.dev/documentation/paymongo_sdk/latest/paymongo_sdk/PayMongoSDK-class.html"
)
STATSIG = "https://docs.statsig.com/en/access-management/api-keys"
STATSIG_HTTP = "https://docs.statsig.com/http-api"
STATSIG_GATE = "https://docs.statsig.com/feature-flags/implement/http-api"
STATSIG_QS = "https://docs.statsig.com/api/content/sdks/quickstart"
NGROK = "https://pastebin.com/A8wjks9r"
NGROK2 = "https://pastebin.com/03xN09fD"
LINE = "https://gist.github.com/clarencetw/374166625bb6647dee63613ce16ccd1f"
LINE_PY = "https://gist.github.com/amaotone/2eea52379d559a4dc60e6c6c76085b7b"
LINE_R = "https://rdrr.io/github/fisproject/lineNotify/man/notify_msg.html"
CRONITOR = "https://cronitor.io/docs/telemetry-api.md"
CRONITOR_API = "https://cronitor.io/docs/api"
CRONITOR_SH = "https://gist.github.com/trekdemo/16b380cf9db61aaaf4a6"
CRONITOR_CS = "https://github.com/gonace/Cronitor/wiki/Telemetry"
CRONITOR_EX = "https://readme.hex.pm/cronitor/1.1.0"
FORGE = "https://laravel.com/forge/docs/api-reference/deployments/get-the-deployment-trigger-url"
FORGE_ACTION = "https://github.com/PropFuel/laravel-forge-deploy-action"
FORGE_SH = "https://gist.github.com/LukaSikic/9a55e07f18a3781f8c1c927d3e269cfd"
FORGE_GHA = "https://gist.github.com/masterix21/96d2d330715a6d9087c5814cb80147b4"
FORGE_ARTISAN = "https://packagist.org/packages/tobischulz/artisan-forge-deploy"
SRHT = "https://tangled.org/mitchellh.com/tack/raw/main/docs/sourcehut.md"
HUT = "https://manpages.ubuntu.com/manpages/resolute/man1/hut.1.html"
HUT_NIX = "https://tangled.org/tjh.dev/nixpkgs/raw/lib-types-attrNamesToTrue/nixos/tests/sourcehut/git.nix"
PRISMA = "https://www.prisma.io/docs/reference/database-reference/connection-urls/"
PRISMA_PG = "https://www.prisma.io/docs/getting-started/setup-prisma/start-from-scratch/connect-your-database-node-postgres/"
DOTENVX = (
    "https://tessl.io/registry/tessl/npm-dotenvx--dotenvx/1.49.0/files/docs/encryption-security.md"
)
DOTENVX_RS = "https://docs.rs/crate/dotenvx-rs/0.2.0/source/.env.example"
DOTENVX_SKILL = "https://skills.sh/mizchi/skills/dotenvx"
DVC = "https://dvc.org/doc/user-guide/data-management/remote-storage/amazon-s3"
SSHPASS = "https://manpages.ubuntu.com/manpages/focal/man1/sshpass.1.html"
IPMI = "https://man.archlinux.org/man/ipmitool.1.en.txt"
MITM = "https://manpages.ubuntu.com/manpages/bionic/man1/mitmdump.1.html"
PINO = "https://raw.githubusercontent.com/pinojs/pino/main/docs/redaction.md"
FLUTTER = "https://github.com/cosmicsarthak/foodie-rush-app"
FLUTTER_PROPS = "https://github.com/francisrod01/dio-flashlight-app"
FLUTTER_GRADLE = "https://gist.github.com/kunny/34799bc511ba987eb0a8a0ce06583909"
CORDOVA = "https://pastebin.com/ZSNxDxMb"
CORDOVA_PROPS = "https://gist.github.com/aaccurso/8e0f3819d18b636e1501626872a6577b"
CORDOVA_SH = "https://gist.github.com/j3k0/28f60a7d5622508634d09f94c59d6dfc"
NOTATION = "https://manpages.ubuntu.com/manpages/resolute/man1/notation.1.html"
NOTATION_REL = "https://newreleases.io/project/github/notaryproject/notation/release/v1.0.0-rc.1"
NOTATION_DEB = "https://packages.debian.org/en/forky/amd64/notation"
NOTATION_ENV = "https://github.com/junczhu/notation/releases"
FLATPAK = "https://build.opensuse.org/projects/home:holden:branches:OBS:Flatpak:Templates/packages/FlatpakBuilder/files/flatpak.yaml?expand=0"
FLATPAK_RS = "https://docs.rs/flatpak-rs/latest/flatpak_rs/source/struct.FlatpakSource.html"
APK = "https://wiki.alpinelinux.org/wiki/APKBUILD_Reference"
APK_LOG = "https://pastebin.com/95CtsYmr"
APK_PKG = "https://pkgs.alpinelinux.org/package/v3.24/main/x86_64/abuild"
AFHTTP = "https://docs.rs/agent-first-http/0.8.0/agent_first_http/shared/redact/index.html"
GGCR = "https://github.com/google/go-containerregistry/pull/864"


def pem_body(lines: int) -> str:
    return "\n".join(tok(B64, 64) for _ in range(lines)) + "\n" + tok(B64, 24) + "=="


# --- vendor token ---------------------------------------------------------------------------
V = "vendor token"
sec(
    V,
    OPENAI,
    '$ export OPENAI_API_KEY="{s}"\n$ python summarize.py --model gpt-4o-mini notes/*.md',
    openai_key(),
)
sec(V, OPENAI, "OPENAI_API_KEY={s}\nOPENAI_BASE_URL=https://api.openai.com/v1\n", openai_key())
sec(
    V,
    ANTHROPIC,
    "# .env.local\nANTHROPIC_API_KEY={s}\nANTHROPIC_MODEL=claude-sonnet-4-5",
    anthropic_key(),
)
sec(
    V, ANTHROPIC, "$ ANTHROPIC_API_KEY='{s}' npx tsx scripts/eval.ts --suite smoke", anthropic_key()
)
sec(
    V,
    SRC,
    "$ SRC_ENDPOINT=https://sourcegraph.acme-corp.io SRC_ACCESS_TOKEN={s} src search 'repo:^infra$ lang:go os.Getenv'",
    sourcegraph_token(),
)
sec(
    V,
    SRC,
    "export SRC_ENDPOINT=https://sourcegraph.acme-corp.io\nexport SRC_ACCESS_TOKEN='{s}'\nsrc batch preview -f bump-go.batch.yaml",
    sourcegraph_token(),
)
sec(
    V,
    FURY,
    "$ curl -F package=@dist/acme-billing-1.4.0.tgz https://ops-bot:{s}@push.fury.io/acme/\nok",
    tok(B62, 20),
)
sec(
    V,
    FURY,
    "[global]\nextra-index-url = https://{s}:@pypi.fury.io/acme/\ntimeout = 30",
    tok(B62, 20),
)
sec(
    V,
    UNLEASH,
    "UNLEASH_URL=https://unleash.acme.io/api/\nUNLEASH_API_TOKEN={s}\nUNLEASH_APP_NAME=billing-api",
    unleash_backend(),
)
sec(
    V,
    UNLEASH,
    "$ export UNLEASH_API_TOKEN='{s}'\n$ ./gradlew bootRun --args='--spring.profiles.active=dev'",
    unleash_backend("default", "development"),
)
sec(
    V,
    NGROK,
    "$ ngrok config add-authtoken {s}\nAuthtoken saved to configuration file: /home/dev/.config/ngrok/ngrok.yml",
    ngrok_token(),
)
sec(V, NGROK2, "C:\\tools> ngrok.exe authtoken {s}", ngrok_token())
sec(
    V,
    LINE_R,
    "LINE_NOTIFY_TOKEN={s}\nLINE_NOTIFY_ENDPOINT=https://notify-api.line.me/api/notify",
    tok(B62, 43),
)
sec(V, STATSIG, "STATSIG_SERVER_SECRET={s}\nSTATSIG_ENVIRONMENT=production", statsig("secret-"))
sec(
    V,
    PAYMONGO,
    "PAYMONGO_SECRET_KEY={s}\nPAYMONGO_WEBHOOK_URL=https://shop.acme.ph/hooks/paymongo",
    paymongo("sk_live_"),
)
sec(V, MIDTRANS_KEYS, "MIDTRANS_IS_PRODUCTION=false\nMIDTRANS_SERVER_KEY={s}", midtrans_server())

# --- config file ----------------------------------------------------------------------------
C = "config file"
sec(
    C,
    NGROK,
    'version: "2"\nauthtoken: {s}\ntunnels:\n  web:\n    proto: http\n    addr: 8080',
    ngrok_token(),
)
sec(
    C,
    SRC_README,
    '$ cat ~/src-config.json\n{"endpoint": "https://sourcegraph.acme-corp.io", "accessToken": "{s}"}',
    sourcegraph_token(),
)
sec(
    C,
    DVC,
    "$ cat .dvc/config.local\n['remote \"storage\"']\n    access_key_id = "
    + aws_id()
    + "\n    secret_access_key = {s}",
    aws_secret(),
)
sec(
    C,
    DVC,
    "['remote \"azstore\"']\n    account_name = acmemldata\n    account_key = {s}",
    tok(B64, 86) + "==",
)
sec(
    C,
    DVC,
    "['remote \"nas\"']\n    url = ssh://nas.lab.local/srv/dvc\n    user = ml\n    password = {s}",
    pw(),
)
sec(
    C,
    DOTENVX,
    '#/------------------!DOTENV_PRIVATE_KEYS!-------------------/\n#/ private decryption keys. DO NOT commit to source control /\n#/----------------------------------------------------------/\n\n# .env\nDOTENV_PRIVATE_KEY="{s}"',
    hexs(64),
)
sec(C, DOTENVX_SKILL, '# .env.production\nDOTENV_PRIVATE_KEY_PRODUCTION="{s}"', hexs(64))
sec(
    C,
    HUT_NIX,
    '$ cat ~/.config/hut/config\ninstance "sr.ht" {\n    access-token "{s}"\n}',
    tok(B64, 100),
)
sec(
    C,
    MIDTRANS_KEYS,
    "midtrans:\n  is-production: false\n  server-key: {s}\n  merchant-id: G" + tok(DIGITS, 9),
    midtrans_server(),
)
sec(C, STATSIG, '[statsig]\nserver_secret = "{s}"\ninit_timeout_ms = 3000', statsig("secret-"))
sec(
    C,
    ANTHROPIC,
    '{\n  "env": {\n    "ANTHROPIC_API_KEY": "{s}",\n    "DISABLE_TELEMETRY": "1"\n  }\n}',
    anthropic_key(),
)
sec(
    C,
    OPENAI_ZH,
    "llm:\n  provider: openai\n  api_key: {s}\n  organization: org-" + tok(B62, 24),
    openai_key(),
)
sec(
    C,
    CRONITOR_API,
    '$ cat /etc/cronitor/cronitor.json\n{\n  "CRONITOR_API_KEY": "{s}",\n  "CRONITOR_HOSTNAME": "batch-01"\n}',
    tok(B62, 32),
)
sec(
    C,
    FURY,
    "; .npmrc\nregistry=https://npm.fury.io/acme/\n//npm.fury.io/acme/:_authToken={s}\nalways-auth=true",
    tok(B62, 20),
)
sec(
    C,
    MATOMO_PIWIK,
    "<?php\nreturn [\n    'piwik_url' => 'https://matomo.acme.io',\n    'token_auth' => '{s}',\n    'site_id' => 4,\n];",
    hexs(32),
)

# --- cli password flag ----------------------------------------------------------------------
P = "cli password flag"
sec(P, SSHPASS, "$ sshpass -p '{s}' ssh deploy@10.20.0.14 'sudo systemctl restart api'", pw())
sec(P, SSHPASS, "$ sshpass -p{s} scp build/release.tgz ops@bastion.acme.io:/srv/releases/", pw(16))
sec(P, SSHPASS, "$ SSHPASS='{s}' sshpass -e rsync -az ./dist/ web@10.0.3.7:/var/www/app/", pw())
sec(
    P,
    IPMI,
    "$ ipmitool -I lanplus -H 10.1.4.21 -U ADMIN -P '{s}' chassis power status\nChassis Power is on",
    pw(14),
)
sec(P, IPMI, "$ ipmitool -I lan -H bmc-rack3-07 -U root -P {s} sol activate", pw(12))
sec(
    P,
    IPMI,
    "$ IPMI_PASSWORD={s} ipmitool -I lanplus -E -H 10.1.4.22 -U admin sensor list | head",
    pw(14),
)
sec(
    P,
    CORDOVA,
    '$ cordova build android --release -- --keystore=release.keystore --storePassword={s} --alias=upload --password="$KEY_PASS"',
    pw(),
)
sec(
    P,
    CORDOVA,
    '$ cordova run android --release -- --keystore=app.keystore --storePassword="$STORE_PASS" --alias=app --password={s}',
    pw(),
)
sec(
    P,
    NOTATION,
    "$ notation login --username ci-bot --password {s} registry.acme.io\nLogin Succeeded",
    pw(20),
)
sec(P, NOTATION, "$ notation login -u admin -p '{s}' localhost:5000", pw(20))
sec(
    P,
    MITM,
    "$ mitmdump -p 8081 --mode upstream:http://proxy.corp:3128 --upstream-auth svc-scan:{s} -w flows.mitm",
    pw(),
)
sec(P, DVC, "$ dvc remote modify --local nas password {s}", pw())
sec(
    P,
    DVC,
    "$ dvc remote modify --local storage secret_access_key '{s}'\n$ dvc push -r storage",
    aws_secret(),
)
sec(
    P,
    CRONITOR_API,
    "$ curl -s https://cronitor.io/api/monitors -u {s}: | jq '.monitors[].key'",
    tok(B62, 32),
)
sec(
    P,
    PAYMONGO_CALL,
    "$ curl https://api.paymongo.com/v1/payment_intents/pi_" + tok(B62, 24) + " -u {s}:",
    paymongo("sk_test_"),
)
sec(P, NGROK2, "$ ngrok http 3000 --basic-auth 'qa:{s}'", pw(16))

# --- source literal -------------------------------------------------------------------------
L = "source literal"
sec(L, OPENAI, 'import openai\n\nopenai.api_key = "{s}"\nopenai.Model.list()', openai_key())
sec(
    L,
    OPENAI,
    'import OpenAI from "openai";\n\nconst openai = new OpenAI({ apiKey: "{s}" });',
    openai_key(),
)
sec(
    L,
    ANTHROPIC,
    'import anthropic\n\nclient = anthropic.Anthropic(api_key="{s}")\nprint(client.models.list())',
    anthropic_key(),
)
sec(
    L,
    MATOMO_PIWIK,
    "<?php\n$matomo_url = 'https://matomo.acme.io';\n$token = '{s}';\n$query_factory->set('idSite', 1)->set('token_auth', $token);",
    hexs(32),
)
sec(
    L,
    MIDTRANS,
    "<?php\n\\Midtrans\\Config::$serverKey = '{s}';\n\\Midtrans\\Config::$isProduction = false;",
    midtrans_server(),
)
sec(
    L,
    MIDTRANS_CS,
    'public static class MidtransConfig\n{\n    public const string URL = "https://app.sandbox.midtrans.com/snap/v1/";\n    public const string ServerKey = "{s}";\n}',
    midtrans_server(),
)
sec(
    L,
    LINE_PY,
    "import requests\n\ntoken = '{s}'\napi = 'https://notify-api.line.me/api/notify'\nheaders = {'Authorization': 'Bearer ' + token}",
    tok(B62, 43),
)
sec(
    L,
    STATSIG,
    'err := statsig.InitializeWithOptions("{s}", &statsig.Options{Environment: statsig.Environment{Tier: "production"}})',
    statsig("secret-"),
)
sec(
    L,
    PAYMONGO_SDK,
    "final secretKeyClient = PayMongoSDK('{s}');\nfinal intent = await secretKeyClient.post(options);",
    paymongo("sk_test_"),
)
sec(
    L,
    FURY_RUBY,
    "require 'gemfury'\n\nclient = Gemfury::Client.new(user_api_key: \"{s}\")\nputs client.list",
    tok(B62, 20),
)
sec(
    L,
    UNLEASH,
    "const unleash = initialize({\n  url: 'https://unleash.acme.io/api/',\n  appName: 'checkout',\n  customHeaders: { Authorization: '{s}' },\n});",
    unleash_backend(),
)
sec(
    L,
    DOTENVX_RS,
    'fn main() {\n    std::env::set_var("DOTENV_PRIVATE_KEY", "{s}");\n    dotenvx::dotenv().ok();\n}',
    hexs(64),
)
sec(
    L,
    CRONITOR_CS,
    'public SomeClass()\n{\n    _client = new TelemetryClient("{s}");\n}',
    tok(B62, 32),
)
sec(L, CRONITOR_EX, 'Cronitor.run "nightly-export", auth_key: "{s}"', tok(B62, 32))
sec(
    L,
    PAYMONGO,
    'public final class PayMongoKeys {\n    static final String SECRET_KEY = "{s}";\n}',
    paymongo("sk_live_"),
)
sec(
    L,
    LINE_R,
    'Sys.setenv(LINE_API_TOKEN = "{s}")\nnotify_msg("nightly model run finished")',
    tok(B62, 43),
)

# --- http auth header -----------------------------------------------------------------------
H = "http auth header"
sec(
    H,
    OPENAI,
    'curl https://api.openai.com/v1/models \\\n  -H "Authorization: Bearer {s}" \\\n  -H "OpenAI-Organization: org-'
    + tok(B62, 24)
    + '"',
    openai_key(),
)
sec(
    H,
    ANTHROPIC,
    "curl https://api.anthropic.com/v1/messages \\\n  -H 'x-api-key: {s}' \\\n  -H 'anthropic-version: 2023-06-01' \\\n  -H 'content-type: application/json' -d @req.json",
    anthropic_key(),
)
sec(
    H,
    ANTHROPIC,
    "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: {s}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n",
    anthropic_key(),
)
sec(
    H,
    LINE,
    "curl -X POST -H 'Authorization: Bearer {s}' -F 'message=deploy finished' https://notify-api.line.me/api/notify",
    tok(B62, 43),
)
sec(
    H,
    FORGE,
    "curl --request POST \\\n  --url https://forge.laravel.com/api/orgs/acme/servers/812345/sites/2093417/deployments \\\n  --header 'Authorization: Bearer {s}'",
    forge_token(),
)
sec(
    H,
    FORGE_SH,
    'curl -Li -X POST https://forge.laravel.com/api/v1/servers/812345/sites/2093417/deployment/deploy -H "Accept: application/json" -H "Authorization: Bearer {s}"',
    forge_token(),
)
sec(
    H,
    SRC,
    "curl -H 'Authorization: token {s}' -d '{\"query\":\"query { currentUser { username } }\"}' https://sourcegraph.acme-corp.io/.api/graphql",
    sourcegraph_token(),
)
sec(
    H,
    UNLEASH_API,
    'curl -s https://unleash.acme.io/api/client/features -H "Authorization: {s}"',
    unleash_backend(),
)
sec(
    H,
    STATSIG_GATE,
    'curl -X POST https://api.statsig.com/v1/check_gate \\\n  -H \'statsig-api-key: {s}\' \\\n  -d \'{"user":{"userID":"42"},"gateName":"new_checkout"}\'',
    statsig("secret-"),
)
sec(
    H,
    OPENAI,
    "http POST api.openai.com/v1/embeddings Authorization:'Bearer {s}' model=text-embedding-3-small input=hello",
    openai_key(),
)
sec(
    H,
    ANTHROPIC,
    "const res = await fetch('https://api.anthropic.com/v1/messages', {\n  method: 'POST',\n  headers: { 'x-api-key': '{s}', 'anthropic-version': '2023-06-01' },\n  body,\n});",
    anthropic_key(),
)
sec(
    H,
    FORGE,
    'req.Header.Add("Authorization", "Bearer {s}")\nres, _ := http.DefaultClient.Do(req)',
    forge_token(),
)
sec(
    H,
    OPENAI,
    'Invoke-RestMethod -Uri https://api.openai.com/v1/models -Headers @{ Authorization = "Bearer {s}" }',
    openai_key(),
)
sec(
    H,
    ANTHROPIC,
    'location /llm/ {\n    proxy_pass https://api.anthropic.com/;\n    proxy_set_header x-api-key "{s}";\n}',
    anthropic_key(),
)
sec(
    H,
    LINE_PY,
    "> POST /api/notify HTTP/1.1\n> Host: notify-api.line.me\n> Authorization: Bearer {s}\n> Content-Type: application/x-www-form-urlencoded",
    tok(B62, 43),
)

# --- ci and yaml ----------------------------------------------------------------------------
Y = "ci and yaml"
sec(
    Y,
    FORGE_ACTION,
    "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: PropFuel/laravel-forge-deploy-action@v1.0.1\n        with:\n          forge-api-token: {s}\n          forge-server-id: 812345\n          forge-site-id: 2093417",
    forge_token(),
)
sec(
    Y,
    OPENAI,
    "jobs:\n  eval:\n    runs-on: ubuntu-latest\n    env:\n      OPENAI_API_KEY: {s}\n    steps:\n      - run: pytest tests/eval -q",
    openai_key(),
)
sec(
    Y,
    SRHT,
    "image: alpine/edge\nenvironment:\n  ANTHROPIC_API_KEY: {s}\nsources:\n  - https://git.sr.ht/~acme/agent\ntasks:\n  - test: |\n      cd agent && make test",
    anthropic_key(),
)
sec(
    Y,
    SRHT,
    'when:\n  - event: ["push"]\n    branch: ["main"]\nengine: tack\nenvironment:\n  TACK_SOURCEHUT_TOKEN: "{s}"',
    tok(B64, 100),
)
sec(
    Y,
    UNLEASH,
    "services:\n  api:\n    image: acme/billing:1.9\n    environment:\n      - UNLEASH_URL=https://unleash.acme.io/api/\n      - UNLEASH_API_TOKEN={s}",
    unleash_backend(),
)
sec(
    Y,
    LINE_R,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: line-notify\ntype: Opaque\nstringData:\n  LINE_NOTIFY_TOKEN: {s}",
    tok(B62, 43),
)
sec(
    Y,
    PAYMONGO,
    "paymongo:\n  publicKey: pk_live_" + tok(B62, 24) + "\n  secretKey: {s}\nreplicaCount: 2",
    paymongo("sk_live_"),
)
sec(
    Y,
    CRONITOR,
    "- name: Install cronitor\n  hosts: batch\n  vars:\n    cronitor_api_key: {s}\n  roles:\n    - cronitor",
    tok(B62, 32),
)
sec(
    Y,
    FORGE_GHA,
    "      - name: Webhook Trigger\n        uses: zzzze/webhook-trigger@v1.0.0\n        with:\n          webhook_url: https://forge.laravel.com/servers/812345/sites/2093417/deploy/http?token={s}",
    tok(B62, 40),
)
sec(
    Y,
    SRC,
    "variables:\n  SRC_ENDPOINT: https://sourcegraph.acme-corp.io\n  SRC_ACCESS_TOKEN: '{s}'\nsteps:\n  - script: src batch apply -f batch.yaml",
    sourcegraph_token(),
)
sec(
    Y,
    SSHPASS,
    "      - name: Deploy\n        run: sshpass -p '{s}' ssh -o StrictHostKeyChecking=no deploy@203.0.113.40 ./deploy.sh",
    pw(),
)
sec(
    Y,
    FLUTTER,
    '      - name: Write key.properties\n        run: |\n          echo "storePassword={s}" >> android/key.properties\n          echo "keyAlias=upload" >> android/key.properties',
    pw(),
)
sec(Y, STATSIG, "env:\n  STATSIG_SERVER_SECRET: {s}\n  NODE_ENV: production", statsig("secret-"))
sec(
    Y,
    DOTENVX_SKILL,
    "    steps:\n      - uses: actions/checkout@v4\n      - run: npx @dotenvx/dotenvx run -f .env.ci -- npm test\n        env:\n          DOTENV_PRIVATE_KEY_CI: {s}",
    hexs(64),
)

# --- connection string ----------------------------------------------------------------------
D = "connection string"
sec(D, PRISMA_PG, 'DATABASE_URL="postgresql://johndoe:{s}@localhost:5432/mydb?schema=public"', pw())
sec(D, PRISMA, 'DATABASE_URL="mysql://root:{s}@db.internal:3306/shop"', pw())
sec(
    D,
    PRISMA,
    'DATABASE_URL="sqlserver://sql.acme.local:1433;database=orders;user=sa;password={s};encrypt=true"',
    pw(),
)
sec(
    D,
    PRISMA,
    'DATABASE_URL="mongodb+srv://app:{s}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true&w=majority"',
    pw(),
)
sec(
    D,
    PRISMA,
    'DATABASE_URL="postgresql://maxroach:{s}@crdb.acme.io:26257/defaultdb?sslmode=verify-full"',
    pw(),
)
sec(
    D,
    PRISMA,
    'datasource db {\n  provider = "postgresql"\n  url      = "postgresql://app:{s}@10.0.0.5:5432/app"\n}',
    pw(),
)
sec(D, PRISMA, 'SHADOW_DATABASE_URL="postgresql://shadow:{s}@localhost:5433/shadow_db"', pw())
sec(
    D,
    PRISMA_PG,
    'DATABASE_URL="postgresql://opnmyfngbknppm:{s}@ec2-46-137-91-216.eu-west-1.compute.amazonaws.com:5432/d50rgmkqi2ipus?schema=hello-prisma"',
    hexs(64),
)
sec(
    D,
    PRISMA,
    "const prisma = new PrismaClient({\n  datasources: { db: { url: 'mysql://reporting:{s}@replica.acme.io:3306/analytics' } },\n});",
    pw(),
)
sec(
    D,
    PRISMA,
    'DATABASE_URL="postgresql://pooler:{s}@pg-pool.acme.io:6543/app?pgbouncer=true&connection_limit=1"',
    pw(),
)
sec(
    D,
    PRISMA,
    'DATABASE_URL="mongodb://admin:{s}@mongo-0.mongo:27017,mongo-1.mongo:27017/app?authSource=admin&replicaSet=rs0"',
    pw(),
)
sec(
    D,
    PRISMA,
    'DATABASE_URL="sqlserver://localhost:1433;initial catalog=sample;user=sa;password={s};trustServerCertificate=true"',
    pw(),
)
sec(
    D,
    PRISMA,
    "Error: P1001: Can't reach database server at `db.acme.io:5432`\nDATABASE_URL was postgresql://migrator:{s}@db.acme.io:5432/app",
    pw(),
)
sec(
    D,
    PRISMA,
    "export default defineConfig({\n  schema: 'prisma/schema.prisma',\n  datasource: { url: 'postgresql://ci:{s}@localhost:5432/test' },\n});",
    pw(),
)
sec(
    D,
    FURY_GIT,
    "$ git remote add fury https://{s}@git.fury.io/acme/billing-client.git",
    tok(B62, 20),
)

# --- other language -------------------------------------------------------------------------
OL = "other language"
sec(OL, PRISMA, "# Datenbank-Passwort für die Prisma-Migrationen\nDB_PASSWORT={s}", pw())
sec(
    OL,
    MIDTRANS_KEYS,
    "# Kunci server Midtrans, rahasia, jangan dibagikan\nKUNCI_SERVER_MIDTRANS={s}",
    midtrans_server(sandbox=False),
)
sec(
    OL,
    PAYMONGO,
    "# Lihim na susi ng PayMongo, huwag ibahagi\nLIHIM_NA_SUSI_PAYMONGO={s}",
    paymongo("sk_live_"),
)
sec(OL, NGROK, "ngrok:\n  認証トークン: {s}\n  リージョン: jp", ngrok_token())
sec(OL, OPENAI_ZH, '# OpenAI API 密钥,不要与他人共享\nopenai_密钥 = "{s}"', openai_key())
sec(
    OL,
    MATOMO_ES,
    '; Este token_auth es tan secreto como su contraseña\ntoken_secreto_matomo = "{s}"',
    hexs(32),
)
sec(
    OL,
    IPMI,
    'mot_de_passe_ipmi="{s}"\nipmitool -I lanplus -H 10.1.4.21 -U admin -P "$mot_de_passe_ipmi" power cycle',
    pw(14),
)
sec(
    OL,
    CORDOVA,
    '{\n  "android": {\n    "release": {\n      "keystore": "../android.keystore",\n      "пароль_хранилища": "{s}",\n      "alias": "release"\n    }\n  }\n}',
    pw(),
)
sec(
    OL,
    SSHPASS,
    '# 서버 비밀번호 (sshpass 용)\n비밀번호={s}\nsshpass -p "$비밀번호" ssh ubuntu@10.0.1.5',
    pw(),
)
sec(
    OL,
    FLUTTER,
    "# senha do keystore de upload\nsenha_do_keystore={s}\napelido_da_chave=upload",
    pw(),
)
sec(OL, NOTATION, "kayit_defteri: registry.acme.com.tr\nkullanici: ci\nparola: {s}", pw())
sec(OL, DVC, '# mật khẩu cho remote DVC\nmat_khau_dvc = "{s}"', pw())
sec(OL, STATSIG, "statsig:\n  geheime_sleutel: {s}\n  omgeving: productie", statsig("secret-"))
sec(OL, ANTHROPIC_JA, '# Anthropic の API キー(秘密)\nAPIキー = "{s}"', anthropic_key())
sec(
    OL,
    PRISMA,
    'DATABASE_URL="postgresql://aplikacja:{s}@baza.acme.pl:5432/sklep"  # hasło bazy danych',
    pw(),
)

# --- log line -------------------------------------------------------------------------------
G = "log line"
sec(
    G,
    MITM,
    "127.0.0.1:51234: POST https://api.openai.com/v1/chat/completions\n    Host: api.openai.com\n    Authorization: Bearer {s}\n    Content-Type: application/json\n << 200 OK 1.2k",
    openai_key(),
)
sec(
    G,
    MITM,
    "10.0.2.15:40112: POST https://api.anthropic.com/v1/messages\n    x-api-key: {s}\n    anthropic-version: 2023-06-01\n << 200 OK 3.4k",
    anthropic_key(),
)
sec(
    G,
    PINO,
    '{"level":30,"time":1733281200123,"pid":4121,"hostname":"api-7f9c","req":{"method":"POST","url":"/v1/charge","headers":{"host":"pay.acme.ph","authorization":"Bearer {s}"}},"msg":"request completed"}',
    paymongo("sk_live_"),
)
sec(
    G,
    PINO,
    '{"level":20,"time":1733281201456,"pid":4121,"hostname":"api-7f9c","config":{"statsigSecret":"{s}","region":"ap-southeast-1"},"msg":"loaded config"}',
    statsig("secret-"),
)
sec(
    G,
    CRONITOR_SH,
    "Sending signal to - https://cronitor.link/p/{s}/nightly-backup?state=run",
    tok(B62, 32),
)
sec(
    G,
    MATOMO_DEV,
    '10.0.0.8 - - [04/Dec/2026:01:12:44 +0000] "GET /index.php?module=API&method=VisitsSummary.get&idSite=1&period=day&date=yesterday&format=JSON&token_auth={s} HTTP/1.1" 200 512 "-" "curl/8.5.0"',
    hexs(32),
)
sec(
    G,
    DOTENVX,
    "+ export DOTENV_PRIVATE_KEY={s}\n+ npx dotenvx run -- node index.js\n[dotenvx@1.49.0] injecting env (4) from .env",
    hexs(64),
)
sec(
    G,
    SSHPASS,
    "$ ps aux | grep sshpass\ndeploy   31337  0.0  0.0   4368   812 pts/1    S+   01:14   0:00 sshpass -p {s} ssh backup@10.0.4.2",
    pw(),
)
sec(
    G,
    IPMI,
    "root      2291  0.1  0.0  18844  4120 ?  S  01:02  0:00 ipmitool -I lanplus -H 10.1.4.30 -U ADMIN -P {s} sdr elist",
    pw(12),
)
sec(
    G,
    FORGE_ARTISAN,
    "$ php artisan forge:deploy\nTriggering https://forge.laravel.com/servers/812345/sites/2093417/deploy/http?token={s} ... queued",
    tok(B62, 40),
)
sec(
    G,
    LINE_PY,
    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://notify-api.line.me/api/notify\n  request headers: {'Authorization': 'Bearer {s}', 'Content-Type': 'application/x-www-form-urlencoded'}",
    tok(B62, 43),
)
sec(
    G,
    SRC_README,
    "$ src api -get-curl -query 'query { site { productVersion } }'\ncurl -H 'Authorization: token {s}' -d '{\"query\":\"query { site { productVersion } }\",\"variables\":{}}' https://sourcegraph.acme-corp.io/.api/graphql",
    sourcegraph_token(),
)
sec(
    G,
    FORGE_ACTION,
    "Run PropFuel/laravel-forge-deploy-action@v1.0.1\n  with:\n    forge-api-token: {s}\n    forge-server-id: 812345\n    forge-site-id: 2093417",
    forge_token(),
)
sec(
    G,
    UNLEASH_API,
    'unleash:repository fetching https://unleash.acme.io/api/client/features headers={"Authorization":"{s}","UNLEASH-APPNAME":"billing"}',
    unleash_backend(),
)
sec(
    G,
    DVC,
    "2026-12-04 01:20:11,532 DEBUG: remote config: {'url': 's3://ml-data/store', 'access_key_id': '"
    + aws_id()
    + "', 'secret_access_key': '{s}'}",
    aws_secret(),
)

# --- encoding -------------------------------------------------------------------------------
E = "encoding"
sec(
    E,
    MIDTRANS,
    "curl -X POST https://app.sandbox.midtrans.com/snap/v1/transactions \\\n  -H 'Accept: application/json' -H 'Content-Type: application/json' \\\n  -H 'Authorization: Basic {s}' -d @order.json",
    b64(midtrans_server() + ":"),
)
sec(
    E,
    MIDTRANS_HDR,
    'req.AddHeader("Authorization", "Basic {s}");',
    b64(midtrans_server(sandbox=False) + ":"),
)
sec(
    E,
    PAYMONGO_CALL,
    "GET /v1/payment_intents HTTP/1.1\nHost: api.paymongo.com\nAuthorization: Basic {s}",
    b64(paymongo("sk_test_") + ":"),
)
sec(
    E,
    CRONITOR_API,
    "> GET /api/monitors HTTP/2\n> Host: cronitor.io\n> authorization: Basic {s}\n> user-agent: curl/8.5.0",
    b64(tok(B62, 32) + ":"),
)
_raw = tok(B62, 6) + "@" + tok(B62, 5) + "$$" + tok(B62, 4) + "/" + tok(B62, 3)
sec(
    E,
    PRISMA,
    'DATABASE_URL="postgresql://app:{s}@localhost:5432/app"  # special characters percent-encoded',
    quote(_raw, safe=""),
)
_raw = tok(B62, 5) + "#" + tok(B62, 5) + ":" + tok(B62, 4) + "%" + tok(B62, 4)
sec(E, PRISMA, 'DATABASE_URL="mysql://shop:{s}@db.acme.io:3306/shop"', quote(_raw, safe=""))
sec(
    E,
    SRC_README,
    '{"endpoint":"https:\\/\\/sourcegraph.acme-corp.io","accessToken":"{s}"}',
    tok(B62, 6) + '\\"' + tok(B62, 7) + "\\/" + tok(B62, 8),
)
sec(E, NOTATION, '{"auths":{"registry.acme.io":{"auth":"{s}"}}}', b64("ci-bot:" + pw(20)))
sec(
    E,
    IPMI,
    '<add key="IpmiPassword" value="{s}" />',
    tok(B62, 6) + "&amp;" + tok(B62, 6) + "&lt;" + tok(B62, 4),
)
sec(
    E,
    MATOMO_DEV,
    '<iframe src="https://matomo.acme.io/index.php?module=Widgetize&amp;action=iframe&amp;moduleToWidgetize=Dashboard&amp;idSite=1&amp;period=week&amp;date=today&amp;token_auth={s}" frameborder="0"></iframe>',
    hexs(32),
)
sec(
    E,
    OPENAI,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: openai\ndata:\n  OPENAI_API_KEY: {s}",
    b64(openai_key()),
)
_raw = tok(B62, 7) + " " + tok(B62, 4) + "&" + tok(B62, 5) + "=" + tok(B62, 3) + "+"
sec(
    E,
    MATOMO_PIWIK,
    "curl -X POST https://matomo.acme.io/index.php -d 'module=API&method=UsersManager.createAppSpecificTokenAuth&userLogin=admin&passwordConfirmation={s}&description=ci&format=json'",
    quote(_raw, safe=""),
)
sec(
    E,
    DOTENVX,
    'DOTENV_PRIVATE_KEY_B64={s}\n# decode with: echo "$DOTENV_PRIVATE_KEY_B64" | base64 -d',
    b64(hexs(64)),
)
sec(
    E,
    CRONITOR,
    "https://relay.acme.io/forward?target=https%3A%2F%2Fcronitor.link%2Fp%2F{s}%2Fdb-backup%3Fstate%3Dcomplete",
    tok(B62, 32),
)
sec(E, FURY, "Authorization: Basic {s}", b64(tok(B62, 20) + ":"))
sec(
    E,
    DVC,
    '{"remote": {"nas": {"password": "{s}"}}}',
    tok(B62, 6) + "\\\\" + tok(B62, 6) + "\\u0026" + tok(B62, 5),
)

# --- webhook url ----------------------------------------------------------------------------
W = "webhook url"
sec(
    W,
    FORGE_ARTISAN,
    "FORGE_DEPLOY_URL=https://forge.laravel.com/servers/812345/sites/2093417/deploy/http?token={s}",
    tok(B62, 40),
)
sec(
    W,
    FORGE,
    "$ curl -X POST 'https://forge.laravel.com/servers/812345/sites/2093417/deploy/http?token={s}&tag=v2.3.0'",
    tok(B62, 40),
)
sec(
    W,
    FORGE_GHA,
    "Settings > Secrets > FORGE_DEPLOY_TRIGGER_URL = https://forge.laravel.com/servers/77120/sites/190244/deploy/http?token={s}",
    tok(B62, 40),
)
sec(
    W,
    FORGE,
    "'deploy_hook' => 'https://forge.laravel.com/servers/812345/sites/2093418/deploy/http?token={s}',",
    tok(B62, 40),
)
sec(
    W,
    CRONITOR,
    "0 2 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 'https://cronitor.link/p/{s}/nightly-backup?state=complete'",
    tok(B62, 32),
)
sec(W, CRONITOR, "curl https://cronitor.link/p/{s}/airflow-heartbeat", tok(B62, 32))
sec(
    W,
    CRONITOR,
    "curl 'https://cronitor.link/p/{s}/address-verification-counts?metric=count:100&metric=error_count:2'",
    tok(B62, 32),
)
sec(
    W,
    CRONITOR,
    "HEALTHCHECK CMD curl -fsS https://cronitor.link/p/{s}/worker-heartbeat || exit 1",
    tok(B62, 32),
)
sec(
    W,
    CRONITOR_SH,
    'PING_URL="https://cronitor.link/p/{s}/sync-users"\ncurl -m 10 "$PING_URL?state=run"',
    tok(B62, 32),
)
sec(
    W,
    MATOMO_DEV,
    "https://matomo.acme.io/matomo.php?idsite=3&rec=1&action_name=Signup&token_auth={s}&cip=203.0.113.9",
    hexs(32),
)
sec(
    W,
    MATOMO_DEV,
    "https://matomo.acme.io/index.php?module=Widgetize&action=iframe&moduleToWidgetize=Dashboard&idSite=1&period=week&date=today&token_auth={s}",
    hexs(32),
)
sec(
    W,
    MATOMO,
    'report_url = "https://matomo.acme.io/index.php?module=API&method=Actions.getPageUrls&idSite=2&period=month&date=today&format=CSV&token_auth={s}"',
    hexs(32),
)
sec(W, FURY, "PUSH_URL=https://ops:{s}@push.fury.io/acme/", tok(B62, 20))
sec(W, FURY_GIT, "$ git push https://{s}@git.fury.io/acme/acme-cli.git master", tok(B62, 20))

# --- signing and build tools ----------------------------------------------------------------
S = "signing and build tools"
sec(
    S,
    FLUTTER,
    "# android/key.properties\nstorePassword={s}\nkeyAlias=upload\nstoreFile=/home/ci/upload-keystore.jks",
    pw(),
)
sec(S, FLUTTER, "storeFile=../upload-keystore.jks\nkeyAlias=upload\nkeyPassword={s}", pw())
sec(
    S,
    FLUTTER_PROPS,
    "MYAPP_UPLOAD_STORE_FILE=./upload-keystore.jks\nMYAPP_UPLOAD_KEY_ALIAS=upload\nMYAPP_UPLOAD_STORE_PASSWORD={s}",
    pw(),
)
sec(S, FLUTTER_PROPS, "MYAPP_UPLOAD_KEY_PASSWORD={s}", pw())
sec(
    S,
    FLUTTER_GRADLE,
    'signingConfigs {\n    release {\n        keyAlias "upload"\n        storeFile file("upload-keystore.jks")\n        storePassword "{s}"\n    }\n}',
    pw(),
)
sec(
    S,
    FLUTTER_GRADLE,
    'signingConfigs {\n    create("release") {\n        keyAlias = "upload"\n        keyPassword = "{s}"\n        storeFile = file("upload.jks")\n    }\n}',
    pw(),
)
sec(
    S,
    CORDOVA,
    '{ "android": { "release": { "keystore": "../android.keystore", "storePassword": "{s}", "alias": "mykey2", "keystoreType": "" } } }',
    pw(),
)
sec(
    S,
    CORDOVA,
    '{\n  "android": {\n    "release": {\n      "keystore": "release.keystore",\n      "alias": "shop",\n      "password" : "{s}"\n    }\n  }\n}',
    pw(),
)
sec(
    S,
    CORDOVA_PROPS,
    "storeFile=/builds/app/release.keystore\nstorePassword={s}\nkeyAlias=shop",
    pw(),
)
sec(
    S,
    APK,
    "$ cat ~/.abuild/ops@acme.io-6750f2a1.rsa\n-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----",
    pem_body(6),
)
sec(
    S,
    NOTATION_ENV,
    "$ NOTATION_USERNAME=ci-bot NOTATION_PASSWORD={s} notation sign --key release registry.acme.io/api@sha256:"
    + hexs(64),
    pw(20),
)
sec(
    S,
    DOTENVX_SKILL,
    'DOTENV_PRIVATE_KEY_PRODUCTION="{s}" npx dotenvx run -f .env.production -- npm run build',
    hexs(64),
)
sec(S, FLUTTER_GRADLE, 'storePassword System.getenv("STORE_PASSWORD") ?: "{s}"', pw())
sec(
    S,
    PAYMONGO_SDK,
    "$ flutter build appbundle --release --dart-define=PAYMONGO_SECRET={s}",
    paymongo("sk_live_"),
)
sec(
    S,
    CORDOVA_SH,
    'KEYSTORE_PASSWORD="{s}"\ncordova build android --release -- --keystore="$KEYSTORE" --alias="$KEYSTORE_ALIAS" --storePassword="$KEYSTORE_PASSWORD"',
    pw(),
)

# --- look-alike: ids and uuids --------------------------------------------------------------
IDS = "look-alike: ids and uuids"
_v = "org-" + tok(B62, 24)
ben(
    IDS,
    OPENAI_ZH,
    'curl https://api.openai.com/v1/models \\\n  -H "Authorization: Bearer $OPENAI_API_KEY" \\\n  -H "OpenAI-Organization: '
    + _v
    + '"',
    _v,
    "an organization ID names the billing organization; the docs print it next to an environment reference for the key",
)
_v = "org-" + tok(B62, 24)
ben(
    IDS,
    OPENAI_ZH,
    'openai.organization = "' + _v + '"\nopenai.api_key = os.getenv("OPENAI_API_KEY")',
    _v,
    "an OpenAI organization ID, found on the settings page; it grants nothing without a key",
)
_v = "org-" + tok(B62, 24)
ben(
    IDS,
    OPENAI,
    'const configuration = new Configuration({\n  organization: "'
    + _v
    + '",\n  apiKey: process.env.OPENAI_API_KEY,\n});',
    _v,
    "organization ID, an identifier",
)
_v = "req_" + tok(B62, 24)
ben(
    IDS,
    ANTHROPIC_JA,
    "< HTTP/2 200\n< content-type: application/json\n< request-id: "
    + _v
    + "\n< anthropic-organization-id: "
    + uid(),
    _v,
    "the globally unique request identifier Anthropic returns on every response",
)
_v = "req_" + tok(B62, 24)
ben(
    IDS,
    ANTHROPIC_JA,
    'anthropic.RateLimitError: 429 {"type":"error","error":{"type":"rate_limit_error"}} (request-id: '
    + _v
    + ")",
    _v,
    "a request ID quoted in an error, for support",
)
_v = uid()
ben(
    IDS,
    ANTHROPIC_JA,
    "anthropic-organization-id: " + _v,
    _v,
    "the organization ID header of a response, a UUID",
)
_v = "G" + tok(DIGITS, 9)
ben(
    IDS,
    MIDTRANS_KEYS,
    "Merchant ID: " + _v + "\nUse this Merchant ID when contacting Midtrans support.",
    _v,
    "the merchant identifier, shown for support and sales, not a credential",
)
_v = uid()
ben(
    IDS,
    MIDTRANS_KEYS,
    '{\n  "token": "'
    + _v
    + '",\n  "redirect_url": "https://app.sandbox.midtrans.com/snap/v2/vtweb/'
    + _v
    + '"\n}',
    _v,
    "a Snap transaction token handed to the browser to open one payment page",
)
_v = uid()
ben(
    IDS,
    MIDTRANS_KEYS,
    '{"transaction_id":"'
    + _v
    + '","order_id":"ORDER-2026-1204-0042","status_code":"201","transaction_status":"pending"}',
    _v,
    "a transaction ID in a notification body",
)
_v = hexs(40)
ben(
    IDS,
    APK_PKG,
    "| Commit | " + _v + " |\n| Build log | Build log |",
    _v,
    "a git commit SHA of the aports tree",
)
_v = "2093417"
ben(
    IDS,
    FORGE_ACTION,
    "FORGE_SERVER_ID=812345\nFORGE_SITE_ID=" + _v,
    _v,
    "a Forge site ID, found in the site's detail panel",
)
_v = uid()
ben(
    IDS,
    MITM,
    "$ mitmdump -r flows.mitm --set flow_detail=0\n[" + _v + "] GET https://api.acme.io/health 200",
    _v,
    "a flow ID in a dump listing",
)
_v = uid()
ben(
    IDS,
    PINO,
    '{"level":30,"time":1733281200123,"pid":4121,"reqId":"'
    + _v
    + '","msg":"request completed","responseTime":41}',
    _v,
    "a request ID in a log line",
)
_v = uid()
ben(
    IDS,
    UNLEASH_API,
    "POST /api/client/register\nUNLEASH-APPNAME: billing\nUNLEASH-INSTANCEID: " + _v,
    _v,
    "an SDK instance ID sent at registration",
)
_v = "pi_" + tok(B62, 24)
ben(
    IDS,
    PAYMONGO_CALL,
    "$ curl https://api.paymongo.com/v1/payment_intents/" + _v + ' -u "$PAYMONGO_SECRET_KEY":',
    _v,
    "a payment intent ID in a URL path; the key is an environment reference",
)
_v = "a7Fq9z"
ben(
    IDS,
    CRONITOR_SH,
    'cronitor "complete" "' + _v + '"',
    _v,
    "a Cronitor monitor key, the public name of a monitor in the ping URL",
)
_v = "#" + tok(DIGITS, 7)
ben(
    IDS,
    HUT,
    "$ hut builds show " + _v[1:] + "\n" + _v + " SUCCESS alpine/edge  ~acme/agent",
    _v,
    "a build job number",
)

# --- look-alike: placeholders and references ------------------------------------------------
R = "look-alike: placeholders and references"
ben(R, OPENAI, "Authorization: Bearer YOUR_API_KEY", "YOUR_API_KEY", "a documented placeholder")
ben(
    R,
    OPENAI,
    'curl https://api.openai.com/v1/models -H "Authorization: Bearer $OPENAI_API_KEY"',
    "$OPENAI_API_KEY",
    "a shell variable reference",
)
ben(
    R,
    FORGE,
    "curl --request GET \\\n  --url https://forge.laravel.com/api/orgs/{organization}/servers/{server}/sites/{site}/deployments/deploy-hook \\\n  --header 'Authorization: Bearer <token>'",
    "<token>",
    "a placeholder in the API reference",
)
ben(
    R,
    CRONITOR,
    "curl https://cronitor.link/p/<API-KEY>/nightly-job?state=run",
    "https://cronitor.link/p/<API-KEY>/nightly-job?state=run",
    "a ping URL with a placeholder for the key",
)
ben(
    R,
    CRONITOR,
    "# Base Telemetry URL\nhttps://cronitor.link/p/:apiKey/:monitorKey",
    "https://cronitor.link/p/:apiKey/:monitorKey",
    "a URL template with named parameters",
)
ben(
    R,
    FORGE_GHA,
    "with:\n  webhook_url: ${{ secrets.FORGE_DEPLOY_TRIGGER_URL }}",
    "${{ secrets.FORGE_DEPLOY_TRIGGER_URL }}",
    "a reference to an encrypted CI secret",
)
ben(
    R,
    FORGE_ACTION,
    "with:\n  forge-api-token: ${{ secrets.FORGE_API_TOKEN }}\n  forge-server-id: ${{ secrets.FORGE_SERVER_ID }}",
    "${{ secrets.FORGE_API_TOKEN }}",
    "a reference to an encrypted CI secret",
)
ben(
    R,
    PAYMONGO_CALL,
    "curl https://api.paymongo.com/v2/accounts/{id} \\\n  -u sk_live_YOUR_SECRET_KEY:",
    "sk_live_YOUR_SECRET_KEY",
    "a placeholder that keeps the live-key prefix",
)
ben(
    R,
    MIDTRANS,
    "Server Key: SB-Mid-server-abc123cde456\nBASIC AUTH for the key: U0ItTWlkLXNlcnZlci1hYmMxMjNjZGU0NTY6",
    "SB-Mid-server-abc123cde456",
    "the documentation's sample key, abc123cde456",
)
ben(
    R,
    FLUTTER,
    "storePassword=<password-from-previous-step>\nkeyPassword=<password-from-previous-step>\nkeyAlias=upload\nstoreFile=<keystore-file-location>",
    "<password-from-previous-step>",
    "angle-bracket placeholders from the Flutter guide",
)
ben(
    R,
    FLUTTER,
    "storepassword=$YOUR_STOREPASSWORD\nkeypassword=$YOUR_KEYPASSWORD",
    "$YOUR_STOREPASSWORD",
    "a placeholder to be filled in",
)
ben(
    R,
    SRC_README,
    '-config=$HOME/src-config.json specifies a file containing {"accessToken": "<secret>", "endpoint": "https://sourcegraph.com"}',
    "<secret>",
    "a placeholder in usage text",
)
ben(
    R,
    DVC,
    "$ dvc remote modify --local myremote access_key_id 'mykey'\n$ dvc remote modify --local myremote secret_access_key 'mysecret'",
    "mysecret",
    "the docs' stand-in value",
)
ben(
    R,
    PRISMA_PG,
    "postgresql://USER:PASSWORD@HOST:PORT/DATABASE?schema=SCHEMA",
    "postgresql://USER:PASSWORD@HOST:PORT/DATABASE?schema=SCHEMA",
    "an all-uppercase template of a connection URL",
)
ben(
    R,
    PRISMA_PG,
    'datasource db {\n  provider = "postgresql"\n  url      = env("DATABASE_URL")\n}',
    'env("DATABASE_URL")',
    "the schema reads the URL from the environment",
)
ben(
    R,
    IPMI,
    "ipmitool -I lan -U root -P $PASSWORDVALUE -A PASSWORD -R 10 -H 192.168.10.231 chassis status",
    "$PASSWORDVALUE",
    "a shell variable reference",
)
ben(
    R,
    LINE_PY,
    "token = YOUR_ACCESS_TOKEN  # deactivate when the competition is over",
    "YOUR_ACCESS_TOKEN",
    "a placeholder name",
)
ben(
    R,
    FURY_RUBY,
    'client = Gemfury::Client.new(user_api_key: "YOUR API TOKEN")',
    "YOUR API TOKEN",
    "a placeholder",
)
ben(
    R,
    STATSIG_GATE,
    'curl --header "statsig-api-key: <CLIENT-SDK-KEY>" --request POST "https://api.statsig.com/v1/log_event"',
    "<CLIENT-SDK-KEY>",
    "a placeholder",
)
ben(
    R,
    STATSIG_QS,
    '<StatsigProvider\n  sdkKey={"client-MY-STATSIG-CLIENT-KEY"}\n  user={{ userID: "quickstart-user" }}>',
    "client-MY-STATSIG-CLIENT-KEY",
    "the quickstart's placeholder with the client-key prefix",
)
ben(
    R,
    DOTENVX_SKILL,
    "      - run: npx @dotenvx/dotenvx run -- npm test\n        env:\n          DOTENV_PRIVATE_KEY: ${{ secrets.DOTENV_PRIVATE_KEY }}",
    "${{ secrets.DOTENV_PRIVATE_KEY }}",
    "a reference to a CI secret",
)

# --- look-alike: code naming a secret -------------------------------------------------------
N = "look-alike: code naming a secret"
ben(
    N,
    OPENAI,
    'openai.api_key = os.getenv("OPENAI_API_KEY")',
    'os.getenv("OPENAI_API_KEY")',
    "reads the key from the environment",
)
ben(
    N,
    OPENAI,
    "const openai = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });",
    "process.env.OPENAI_API_KEY",
    "reads the key from the environment",
)
ben(
    N,
    ANTHROPIC,
    'headers["x-api-key"] = settings.anthropic_api_key',
    "settings.anthropic_api_key",
    "names a settings field",
)
ben(
    N,
    FLUTTER_GRADLE,
    "storePassword keystoreProperties['storePassword']",
    "keystoreProperties['storePassword']",
    "reads the password from key.properties",
)
ben(
    N,
    FLUTTER_GRADLE,
    "keyPassword keystoreProperties['keyPassword']",
    "keystoreProperties['keyPassword']",
    "reads the password from key.properties",
)
ben(
    N,
    DOTENVX,
    "const privateKey = dotenvx.keypair('.env', 'DOTENV_PRIVATE_KEY')",
    "dotenvx.keypair('.env', 'DOTENV_PRIVATE_KEY')",
    "a call that fetches a key by name",
)
ben(
    N,
    PINO,
    "const logger = pino({ redact: ['req.headers.authorization', 'req.headers[\"x-api-key\"]'] })",
    "req.headers.authorization",
    "a path naming what to redact",
)
ben(
    N,
    MIDTRANS_CS,
    "string auth = AppSettings.MidtransConfig.ServerKey.ToString();",
    "AppSettings.MidtransConfig.ServerKey",
    "names a settings property",
)
ben(
    N,
    MIDTRANS_CS,
    'rest.Authenticator = new HttpBasicAuthenticator(AppSettings.MidtransConfig.ServerKey, "");',
    'HttpBasicAuthenticator(AppSettings.MidtransConfig.ServerKey, "")',
    "passes a settings property",
)
ben(
    N,
    PAYMONGO_SDK,
    "final secretKeyClient = PayMongoSDK(secretKey);",
    "PayMongoSDK(secretKey)",
    "passes a variable",
)
ben(N, MATOMO_PIWIK, "->set('token_auth', $token);", "$token", "a PHP variable")
ben(
    N,
    LINE_PY,
    "headers = {'Authorization': 'Bearer {}'.format(token)}",
    "'Bearer {}'.format(token)",
    "formats a variable into the header",
)
ben(
    N,
    CRONITOR_CS,
    '.UseCronitor((context) => context.Configuration.GetValue<string>("Cronitor:ApiKey"))',
    'GetValue<string>("Cronitor:ApiKey")',
    "reads a configuration key by name",
)
ben(
    N,
    LINE_R,
    'notify_msg(message, token = Sys.getenv("LINE_API_TOKEN"))',
    'Sys.getenv("LINE_API_TOKEN")',
    "reads the token from the environment",
)
ben(
    N,
    FORGE_SH,
    'req.Header.Add("Authorization", "Bearer "+os.Getenv("FORGE_TOKEN"))',
    'os.Getenv("FORGE_TOKEN")',
    "reads the token from the environment",
)
ben(
    N,
    CORDOVA_SH,
    'if test -z "$KEYSTORE_PASSWORD"; then\n  read -p "Please enter keystore password:" KEYSTORE_PASSWORD\nfi',
    "KEYSTORE_PASSWORD",
    "a variable name that the script prompts for",
)
ben(
    N,
    SSHPASS,
    "sshpass -f ~/.ssh/bastion.pass ssh ops@bastion.acme.io uptime",
    "~/.ssh/bastion.pass",
    "the path of a password file, not the password",
)
ben(
    N,
    APK,
    'PACKAGER_PRIVKEY="$HOME/.abuild/ops@acme.io-6750f2a1.rsa"',
    "$HOME/.abuild/ops@acme.io-6750f2a1.rsa",
    "the path of the signing key",
)

# --- look-alike: public keys and client-side keys -------------------------------------------
K = "look-alike: public keys and client-side keys"
_v = statsig("client-")
ben(
    K,
    STATSIG,
    "const client = new StatsigClient('"
    + _v
    + "', { userID: user.id });\nawait client.initializeAsync();",
    _v,
    "a Statsig client API key, meant for browsers and apps where it cannot be secret",
)
_v = statsig("client-")
ben(
    K,
    STATSIG,
    "VITE_STATSIG_CLIENT_KEY=" + _v,
    _v,
    "a client SDK key, safe to embed in front-end code",
)
_v = statsig("client-")
ben(
    K,
    STATSIG_HTTP,
    "<key>StatsigClientKey</key>\n<string>" + _v + "</string>",
    _v,
    "a client SDK key in an app's Info.plist",
)
_v = paymongo("pk_test_")
ben(
    K,
    PAYMONGO,
    "const paymongo = window.PayMongo('"
    + _v
    + "');\nconst method = await paymongo.createPaymentMethod(card);",
    _v,
    "a PayMongo public key, documented as safe to expose",
)
_v = paymongo("pk_live_")
ben(
    K,
    PAYMONGO,
    "NEXT_PUBLIC_PAYMONGO_PUBLIC_KEY=" + _v,
    _v,
    "a public live key, client-side by design",
)
_v = paymongo("pk_test_")
ben(
    K,
    PAYMONGO_SDK,
    "final publicKeyClient = PayMongoSDK('" + _v + "');",
    _v,
    "a public key for the client SDK",
)
_v = midtrans_client()
ben(
    K,
    MIDTRANS_KEYS,
    '<script src="https://app.sandbox.midtrans.com/snap/snap.js" data-client-key="'
    + _v
    + '"></script>',
    _v,
    "the Midtrans client key, used for client-side integration",
)
_v = midtrans_client(sandbox=False)
ben(
    K,
    MIDTRANS_PUB,
    "MidtransConfig(\n  merchantClientKey: '"
    + _v
    + "',\n  merchantBaseUrl: 'https://api.acme.id/midtrans/',\n)",
    _v,
    "a client key in a mobile app",
)
_v = midtrans_client()
ben(K, MIDTRANS_KEYS, "NEXT_PUBLIC_MIDTRANS_CLIENT_KEY=" + _v, _v, "a client key for the browser")
_v = "03" + hexs(64)
ben(
    K,
    DOTENVX_RS,
    '#/-------------------[DOTENV_PUBLIC_KEY]--------------------/\n#/            public-key encryption for .env files          /\nDOTENV_PUBLIC_KEY="'
    + _v
    + '"',
    _v,
    "the dotenvx public key, stored inside the .env file for encryption",
)
_v = "02" + hexs(64)
ben(
    K,
    DOTENVX_SKILL,
    '# .env.production\nDOTENV_PUBLIC_KEY_PRODUCTION="'
    + _v
    + '"\nDATABASE_URL="encrypted:'
    + tok(B64, 120)
    + '"',
    _v,
    "a public key for encrypting values",
)
_v = tok(B64, 64) + "\n" + tok(B64, 64) + "\n" + tok(B64, 64) + "\n" + tok(B64, 24)
ben(
    K,
    APK,
    "$ cat /etc/apk/keys/ops@acme.io-6750f2a1.rsa.pub\n-----BEGIN PUBLIC KEY-----\n"
    + _v
    + "\n-----END PUBLIC KEY-----",
    _v,
    "the public half of the packager key, installed on every machine that trusts the repository",
)
_v = tok(B64, 64) + "\n" + tok(B64, 64) + "\n" + tok(B64, 40)
ben(
    K,
    NOTATION_REL,
    "$ notation certificate add --type ca --store acme acme-ca.crt\n$ cat acme-ca.crt\n-----BEGIN CERTIFICATE-----\n"
    + _v
    + "\n-----END CERTIFICATE-----",
    _v,
    "a CA certificate for the trust store, public",
)
_v = statsig("client-")
ben(
    K,
    STATSIG,
    '<StatsigProvider sdkKey="' + _v + "\" user={{ userID: 'a-user' }}>",
    _v,
    "a client SDK key in a React component",
)
_v = paymongo("pk_live_")
ben(K, PAYMONGO, "paymongo:\n  publicKey: " + _v, _v, "the public key of a PayMongo account")
_v = statsig("client-")
ben(
    K,
    STATSIG_GATE,
    'curl \\\n  --header "statsig-api-key: '
    + _v
    + '" \\\n  --header "Content-Type: application/json" \\\n  --request POST \\\n  --data \'{"user": {"userID": "42"}, "gateName": "new_checkout"}\' \\\n  "https://api.statsig.com/v1/check_gate"',
    _v,
    "the docs call check_gate with the client SDK key, which is safe to embed",
)
_v = midtrans_client(sandbox=False)
ben(
    K,
    MIDTRANS_KEYS,
    "snap.pay(token, { clientKey: '" + _v + "' })",
    _v,
    "the client key passed to the browser SDK",
)

# --- look-alike: hashes and digests ---------------------------------------------------------
X = "look-alike: hashes and digests"
_v = hexs(64)
ben(
    X,
    FLATPAK,
    "  sources:\n  - type: archive\n    url: https://download.gnome.org/sources/gnome-mahjongg/3.38/gnome-mahjongg-3.38.2.tar.xz\n    sha256: '"
    + _v
    + "'",
    _v,
    "the checksum flatpak-builder verifies",
)
_v = hexs(64)
ben(
    X,
    FLATPAK,
    "      - type: file\n        url: https://github.com/acme/lapse/releases/download/v0.4.1/lapse-0.4.1-linux-x86_64.tar.gz\n        sha256: "
    + _v,
    _v,
    "a source checksum in a manifest",
)
_v = hexs(128)
ben(
    X,
    FLATPAK_RS,
    "      - type: archive\n        url: https://download.acme.org/easytag-2.4.3.tar.xz\n        sha512: "
    + _v,
    _v,
    "a sha512 checksum of a source archive",
)
_v = hexs(40)
ben(
    X,
    FLATPAK_RS,
    "      - type: git\n        url: https://gitlab.gnome.org/GNOME/easytag.git\n        tag: easytag-2.4.3\n        commit: "
    + _v,
    _v,
    "a git commit pinned in a manifest",
)
_v = hexs(32)
ben(
    X,
    FLATPAK_RS,
    "      - type: file\n        path: org.acme.Tool.desktop\n        md5: " + _v,
    _v,
    "an md5 checksum field",
)
_v = hexs(128)
ben(
    X,
    APK,
    'sha512sums="\n' + _v + '  dillo-3.0.5.tar.bz2\n"',
    _v,
    "the sha512sums line abuild checksum writes",
)
_v = hexs(128)
ben(
    X,
    APK_LOG,
    'sha512sums="\n' + hexs(128) + "  dillo-3.0.5.tar.bz2\n" + _v + '  dillo.desktop\n"',
    _v,
    "a source file checksum in an APKBUILD",
)
_v = "sha256:" + hexs(64)
ben(
    X,
    NOTATION_REL,
    "$ notation sign --key myKey localhost:5000/net-monitor@" + _v,
    _v,
    "an image digest being signed",
)
_v = "sha256:" + hexs(64)
ben(
    X,
    NOTATION_REL,
    "$ notation verify registry.acme.io/net-monitor@"
    + _v
    + "\nSuccessfully verified signature for registry.acme.io/net-monitor@"
    + _v,
    _v,
    "a content digest",
)
_v = "sha256:" + hexs(64)
ben(
    X,
    NOTATION,
    "$ notation list registry.acme.io/api:1.9\nregistry.acme.io/api@sha256:"
    + hexs(64)
    + "\n└── application/vnd.cncf.notary.signature\n    └── "
    + _v,
    _v,
    "the digest of a signature manifest",
)
_v = hexs(64)
ben(
    X,
    NOTATION_REL,
    "$ sha256sum -c notation_1.0.0-rc.1_checksums.txt\n"
    + _v
    + "  notation_1.0.0-rc.1_linux_amd64.tar.gz",
    _v,
    "a release checksum",
)
_v = hexs(64)
ben(
    X,
    NOTATION_DEB,
    "Checksums-Sha256:\n " + _v + " 1987654 golang-github-notaryproject-notation_1.3.2.orig.tar.gz",
    _v,
    "a Debian source checksum",
)
_v = hexs(32)
ben(
    X,
    DVC,
    "outs:\n- md5: " + _v + "\n  size: 14445097\n  hash: md5\n  path: data.xml",
    _v,
    "the md5 DVC records for a tracked file",
)
_v = hexs(32) + ".dir"
ben(
    X,
    DVC,
    "stages:\n  train:\n    cmd: python train.py\n    deps:\n    - path: data/prepared\n      md5: "
    + _v,
    _v,
    "a directory hash in dvc.lock",
)
_v = hexs(40)
ben(X, APK_PKG, "$ git -C aports log -1 --format=%H main/abuild\n" + _v, _v, "a commit SHA")
_v = "sha256:" + hexs(64)
ben(X, NOTATION, "$ notation inspect registry.acme.io/api@" + _v, _v, "a digest reference")

# --- look-alike: masked values --------------------------------------------------------------
M = "look-alike: masked values"
ben(
    M,
    PINO,
    '{"level":30,"time":1527777350011,"pid":3186,"hostname":"api-7f9c","req":{"headers":{"authorization":"[Redacted]"}},"msg":"request"}',
    "[Redacted]",
    "pino's redaction marker",
)
ben(
    M,
    PINO,
    '{"level":30,"time":1527778563934,"pid":3847,"key":"**GDPR COMPLIANT**","path":{"to":{"key":"**GDPR COMPLIANT**","another":"thing"}}}',
    "**GDPR COMPLIANT**",
    "a custom censor string",
)
ben(
    M,
    FORGE_ACTION,
    "Run PropFuel/laravel-forge-deploy-action@v1.0.1\n  with:\n    forge-api-token: ***\n    forge-server-id: ***",
    "***",
    "a CI log mask",
)
_v = "sk-...." + tok(B62, 4)
ben(
    M,
    OPENAI,
    "NAME        SECRET KEY   CREATED\nci-evals    " + _v + "  Dec 1, 2026",
    _v,
    "the dashboard shows only the last four characters of a key",
)
_v = "sk_live_••••••••••••" + tok(B62, 4)
ben(M, PAYMONGO, "Secret key  " + _v + "  [Reveal]", _v, "a masked key in a dashboard")
_v = "SB-Mid-server-****************" + tok(B62, 4)
ben(M, MIDTRANS_KEYS, "Server Key: " + _v, _v, "a masked server key")
_v = "secret-••••••••••••••••" + tok(B62, 4)
ben(M, STATSIG, "Server Secret Key   " + _v + "   Production", _v, "a masked server key")
ben(
    M,
    AFHTTP,
    '{"request":{"headers":{"authorization":"[redacted]","x-api-token":"[redacted]","accept":"application/json"}}}',
    "[redacted]",
    "a redaction sentinel",
)
ben(
    M,
    GGCR,
    "2026/12/04 01:22:10 --> GET https://registry.acme.io/v2/api/manifests/1.9\n2026/12/04 01:22:10 GET /v2/api/manifests/1.9 HTTP/1.1\nAuthorization: <redacted>",
    "<redacted>",
    "a debug log that hides the header",
)
ben(
    M,
    PRISMA_PG,
    'Datasource "db": PostgreSQL database "mydb", schema "public" at "postgresql://johndoe:****@localhost:5432/mydb"',
    "postgresql://johndoe:****@localhost:5432/mydb",
    "a URL with the password masked",
)
ben(
    M,
    CRONITOR_API,
    "API Keys\n  Telemetry        ****************************" + "a1b2" + "  monitor:telemetry",
    "****************************a1b2",
    "a masked key",
)
ben(
    M,
    NGROK,
    "$ ngrok config check\nValid configuration file at /home/dev/.config/ngrok/ngrok.yml\nauthtoken: ********",
    "********",
    "a masked token",
)
_v = "encrypted:" + tok(B64, 120) + "="
ben(
    M,
    DOTENVX_RS,
    "HELLO=" + _v,
    _v,
    "a dotenvx ciphertext, meant to be committed; only the private key opens it",
)
ben(M, LINE_R, "LINE_NOTIFY_TOKEN=[REDACTED]", "[REDACTED]", "a redaction marker")
ben(
    M,
    SRC,
    "Access tokens\n  src-cli   created 3 days ago   sgp_****************",
    "sgp_****************",
    "a token list that masks the value",
)
ben(
    M,
    UNLEASH,
    "Token: *:production.********************************",
    "*:production.********************************",
    "a masked backend token",
)
ben(
    M,
    FORGE_ARTISAN,
    "FORGE_DEPLOY_URL=https://forge.laravel.com/servers/812345/sites/2093417/deploy/http?token=••••••••",
    "https://forge.laravel.com/servers/812345/sites/2093417/deploy/http?token=••••••••",
    "a masked deploy URL",
)


def check_rows(rows: list[dict[str, str]]) -> list[str]:
    problems: list[str] = []
    secret_keys = {"class", "context", "expect", "secret", "source"}
    benign_keys = {"class", "context", "expect", "value", "reason", "source"}
    seen: set[str] = set()
    counts: dict[str, int] = {}
    for n, row in enumerate(rows, 1):
        cls = row.get("class", "")
        counts[cls] = counts.get(cls, 0) + 1
        if row.get("expect") == "secret":
            if set(row) != secret_keys:
                problems.append(f"row {n}: keys {sorted(row)}")
            if cls not in SECRET_CLASSES:
                problems.append(f"row {n}: class {cls!r}")
            secret = row.get("secret", "")
            if not secret or secret not in row.get("context", ""):
                problems.append(f"row {n}: secret not in its context")
            if secret in seen:
                problems.append(f"row {n}: duplicate secret")
            seen.add(secret)
            if any(word in secret.lower() for word in BANNED):
                problems.append(f"row {n}: banned word in secret")
        elif row.get("expect") == "benign":
            if set(row) != benign_keys:
                problems.append(f"row {n}: keys {sorted(row)}")
            if cls not in BENIGN_CLASSES:
                problems.append(f"row {n}: class {cls!r}")
            if not row.get("value") or row["value"] not in row.get("context", ""):
                problems.append(f"row {n}: value not in its context")
        else:
            problems.append(f"row {n}: expect {row.get('expect')!r}")
        if not row.get("source", "").startswith("https://"):
            problems.append(f"row {n}: source {row.get('source')!r}")
    for cls in SECRET_CLASSES + BENIGN_CLASSES:
        if counts.get(cls, 0) < 6:
            problems.append(f"class {cls!r}: {counts.get(cls, 0)} rows")
    n_secret = sum(1 for r in rows if r.get("expect") == "secret")
    n_benign = sum(1 for r in rows if r.get("expect") == "benign")
    if n_secret < 170:
        problems.append(f"{n_secret} secret rows, fewer than 170")
    if n_benign < 100:
        problems.append(f"{n_benign} benign rows, fewer than 100")
    return problems


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str]) -> int:
    problems = check_rows(ROWS)
    if argv[1:] == ["--check"]:
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
    sys.exit(main(sys.argv))
