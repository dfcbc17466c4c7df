# ruff: noqa: E501
"""Held-apart redaction batch Q.

Written blind to the redaction rules: the author did not read the redaction code, its tests,
its figures or any earlier batch. Every secret value is freshly generated with Python's secrets
module in the shape the tool or vendor uses, then written literally here; documented example
values appear only as look-alikes.

Families followed: HPC schedulers (Slurm slurmdbd), genomics data portals (NCBI E-utilities),
e-commerce and payments of Asia, Africa and the Middle East (Shopee, Safaricom M-Pesa Daraja,
VNPay, Zarinpal, Moyasar, LiqPay), SMS/telecom gateways (Termii, MSG91), airline booking (Duffel),
messaging platforms (LINE, WeCom, DingTalk, Feishu bots), identity providers (authentik), backup
tools (restic, autorestic), media servers (Jellyfin), ERP (ERPNext/Frappe), data flow (Apache NiFi),
network gear (Cisco/Dell SNMP and users, VyOS, Junos, Netgate TNSR), CI (Concourse, TeamCity),
embedded/firmware build and OTA signing (Yocto/BitBake, Mender), package signing (rpmsign, gpg,
Maven), 2FAuth, .netrc. Syntaxes: INI, .properties, slurmdbd.conf, XML, JSON, YAML, Kubernetes
Secret, Compose, Helm values, Ansible, BitBake, rpm macros, IOS/VyOS/TNSR CLI, shell, Python, Go,
Rust, Kotlin, Swift, C#, F#, Scala, Elixir, Clojure, Lua, R, Julia, Perl, PowerShell, Dart, PHP,
Ruby, Node. Prose in Chinese, Japanese, Korean, Vietnamese, Thai, Hindi, Persian, Arabic, Russian,
Ukrainian, German, Portuguese, Spanish, Italian, Indonesian, Turkish, Polish, Czech, Greek, Hebrew,
Dutch and French.

Pages read (every row's source is one of these):
- https://support.nlm.nih.gov/kbArticle/?pn=KA-05317
- https://support.nlm.nih.gov/knowledgebase/article/KA-05317
- https://www.pypi.org/project/eutils
- https://pypi.org/project/ncbi-mcp/
- https://ithelp.ithome.com.tw/articles/10285136
- https://blog.csdn.net/weixin_42351510/article/details/129432348
- https://github.com/syscage/sdk-shopee-php
- https://app.unpkg.com/shopee-openapi-v2@1.0.39/files/dist/utils/sign.js
- https://app.unpkg.com/shopee-open-api@1.0.5/files/dist/ShopeeOpenAPI.d.ts
- https://cloud.tencent.com/developer/ask/sof/106616335
- https://developers.termii.com/messaging-api
- https://developers.termii.com/number
- https://duffel.com/docs/api/overview/test-mode
- https://duffel.com/docs/api/overview/making-requests/authentication
- https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/duffel_apikey
- https://glama.ai/mcp/servers/@FortripEngineering/duffel-mcp/blob/f6ad8d8b4fe018dedd7f44933b1a32b124cf8ecd/duffel_mcp/api/client.py
- https://pypi.org/project/duffelbag/
- https://github.com/otienowilli/mwendo-moja-welfare/blob/HEAD/GET_DARAJA_CREDENTIALS.md
- https://developers.line.biz/en/docs/basics/channel-access-token
- https://github.com/jatu-studiobox/node-red-contrib-node-line-api/wiki/LINE-Messaging-API-Configuration-Node
- https://app.unpkg.com/@line/bot-sdk@11.0.0/files/lib/channel-access-token/model/issueChannelAccessTokenResponse.ts
- https://hexdocs.pm/linebot/Linebot.html
- https://docs.cloudera.com/cdf-datahub/7.2.10/nifi-toolkit-guide/topics/nifi-nifi-2.html
- https://docs.cloudera.com/cfm/2.1.3/nifi-admin-guide/topics/nifi-administration-guide-updating-the-sensitive-properties-key.html
- https://docs.cloudera.com/HDPDocuments/HDF3/HDF-3.2.0/nifi-system-properties/content/security-properties.html
- https://docs.cloudera.com/cfm/1.0.1/components-installation-and-upgrade/topics/cfm-migrating-dataflow-with-sensitive-properties.html
- https://docs.goauthentik.io/install-config/automated-install
- https://docs.ibracorp.io/authentik/~gitbook/pdf
- https://goauthentik.io/version/2026.2/lifecycle/container/compose.yml
- https://github.com/goauthentik/authentik/discussions/22605
- https://1library.net/article/command-server-community-dell-powerconnect-systems-guide-support.z1jpvopz
- https://online.documentine.com/local-user-command/1/snmp-server-user.html
- https://www.cisco.com/en/US/docs/storage/san_switches/mds9000/sw/rel_2_x/san-os/configuration/guide/snmp.html
- https://www.npmjs.com/package/msg91
- https://rubydoc.info/gems/msg91sms/1.0.1
- https://appwrite.io/integrations/phone-auth-msg91
- https://manpages.ubuntu.com/manpages/oracular/en/man5/slurmdbd.conf.5.html
- https://www.mail-archive.com/slurm-dev@schedmd.com/msg06769/slurmdbd.conf
- https://gist.github.com/stevenjswanson/84b31b5ae793379f16eff16678f75b47
- https://restic.readthedocs.io/en/latest/075_scripting.html
- https://github.com/restic/restic/blob/2d756ce7278cdd598ff08fc696cabded5f1630bf/doc/030_preparing_a_new_repo.rst
- https://raw.githubusercontent.com/cupcakearmy/autorestic/master/docs/pages/backend/env.md
- https://gist.github.com/BenjaminHerbert/641080e209139493a2082fd66a0407ce
- https://man.archlinux.org/man/restic-key-passwd.1.en
- https://gist.github.com/nielsvanvelzen/ea047d9028f676185832e51ffaf12a6f
- https://docs.eva-00.network/services/jellyfin/reference/
- https://www.mintlify.com/jellyfin/jellyfin/api/authentication/overview
- https://docs.2fauth.app/getting-started/installation/docker/docker-compose
- https://raw.githubusercontent.com/elie222/rakazo/master/docs/self-host-secrets.md
- https://jishuzhan.net/article/2007969004397838337
- https://hey99.cn/shot/CSDN_156989571
- https://gist.github.com/yamanyar/2325413
- https://gist.github.com/netskink/3d090630ccb44d9e58bbc5754538c3f2
- https://www.mintlify.com/frappe/erpnext/api/authentication
- https://nango.dev/docs/api-integrations/erpnext/connect
- https://docs.n8n.io/integrations/builtin/credentials/erpnext.md
- https://docs.ansible.com/ansible/latest/collections/vyos/vyos/vyos_user_module.html
- https://juniper.net/documentation/us/en/software/juniper-paragon-automation2.1.0/user-guide/topics/ref/set-system-login.html
- https://docs.netgate.com/tnsr/en/23.11/users/local.html
- https://sandbox.vnpayment.vn/apis/docs/huong-dan-tich-hop/
- https://sandbox.vnpayment.vn/apis/docs/chuyen-doi-thuat-toan/changeTypeHash.html
- https://sandbox.vnpayment.vn/apis/docs/thanh-toan-pay/pay.html
- https://next.zarinpal.com/paymentGateway/guide/
- https://www.zarinpal.com/docs/paymentGateway/connectToGateway.html
- https://docs.moyasar.com/api/authentication/
- https://docs.moyasar.com/guides/dashboard/get-your-api-keys
- https://docs.moyasar.com/assets/postman/moyasar_test_env.postman_environment.json
- https://pub.dev/documentation/liqpay/latest/liqpay/LiqPay/LiqPay.html
- https://rdoc.info/gems/liqpay/Liqpay/SignedPayload
- https://docs.mender.io/artifact-creation/create-an-artifact
- https://github.com/jumpnow/meta-bbb/commit/570d2af87adb8bc4b98676e68fe61686f4564341
- https://raw.githubusercontent.com/mendersoftware/meta-mender/master/meta-mender-core/classes/mender-artifactimg.bbclass
- https://github.com/mendersoftware/mender-docs/blob/1.6.x/07.Administration/03.Certificates-and-keys/docs.md
- https://www.github.com/mendersoftware/deviceauth
- https://keycloak.org/keys
- https://manpages.ubuntu.com/manpages/noble/man8/rpmsign.8.html
- https://www.concourse-ci.org/setting-pipelines.html
- https://github.com/mkb/airmarshal-concourse
- https://github.com/DandyDeveloper/concourse-pipeline-resource
- https://www.github.com/59s/concourse-pipeline-samples/blob/master/concourse-pipeline-patterns/vault-integration
- https://www.jetbrains.com/help/teamcity/kotlin-dsl-documentation/pipelines/pipeline/params.html
"""

import json
from pathlib import Path

OUT = Path(__file__).with_name("batch-q.jsonl")

NCBI_KB = "https://support.nlm.nih.gov/kbArticle/?pn=KA-05317"
NCBI_KB2 = "https://support.nlm.nih.gov/knowledgebase/article/KA-05317"
EUTILS = "https://www.pypi.org/project/eutils"
NCBI_MCP = "https://pypi.org/project/ncbi-mcp/"
SHOPEE_ITHOME = "https://ithelp.ithome.com.tw/articles/10285136"
SHOPEE_CSDN = "https://blog.csdn.net/weixin_42351510/article/details/129432348"
SHOPEE_PHP = "https://github.com/syscage/sdk-shopee-php"
SHOPEE_SIGN = "https://app.unpkg.com/shopee-openapi-v2@1.0.39/files/dist/utils/sign.js"
SHOPEE_TS = "https://app.unpkg.com/shopee-open-api@1.0.5/files/dist/ShopeeOpenAPI.d.ts"
SHOPEE_TENCENT = "https://cloud.tencent.com/developer/ask/sof/106616335"
TERMII_MSG = "https://developers.termii.com/messaging-api"
TERMII_NUM = "https://developers.termii.com/number"
DUFFEL_TEST = "https://duffel.com/docs/api/overview/test-mode"
DUFFEL_AUTH = "https://duffel.com/docs/api/overview/making-requests/authentication"
DUFFEL_GG = "https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/duffel_apikey"
DUFFEL_MCP = "https://glama.ai/mcp/servers/@FortripEngineering/duffel-mcp/blob/f6ad8d8b4fe018dedd7f44933b1a32b124cf8ecd/duffel_mcp/api/client.py"
DUFFELBAG = "https://pypi.org/project/duffelbag/"
DARAJA = "https://github.com/otienowilli/mwendo-moja-welfare/blob/HEAD/GET_DARAJA_CREDENTIALS.md"
LINE_TOKEN = "https://developers.line.biz/en/docs/basics/channel-access-token"
LINE_NODERED = "https://github.com/jatu-studiobox/node-red-contrib-node-line-api/wiki/LINE-Messaging-API-Configuration-Node"
LINE_SDK = "https://app.unpkg.com/@line/bot-sdk@11.0.0/files/lib/channel-access-token/model/issueChannelAccessTokenResponse.ts"
LINEBOT_EX = "https://hexdocs.pm/linebot/Linebot.html"
NIFI_TOOLKIT = (
    "https://docs.cloudera.com/cdf-datahub/7.2.10/nifi-toolkit-guide/topics/nifi-nifi-2.html"
)
NIFI_SETKEY = "https://docs.cloudera.com/cfm/2.1.3/nifi-admin-guide/topics/nifi-administration-guide-updating-the-sensitive-properties-key.html"
NIFI_PROPS = "https://docs.cloudera.com/HDPDocuments/HDF3/HDF-3.2.0/nifi-system-properties/content/security-properties.html"
NIFI_MIGRATE = "https://docs.cloudera.com/cfm/1.0.1/components-installation-and-upgrade/topics/cfm-migrating-dataflow-with-sensitive-properties.html"
AK_AUTO = "https://docs.goauthentik.io/install-config/automated-install"
AK_IBRA = "https://docs.ibracorp.io/authentik/~gitbook/pdf"
AK_COMPOSE = "https://goauthentik.io/version/2026.2/lifecycle/container/compose.yml"
AK_DISCUSS = "https://github.com/goauthentik/authentik/discussions/22605"
DELL_SNMP = "https://1library.net/article/command-server-community-dell-powerconnect-systems-guide-support.z1jpvopz"
SNMP_USER = "https://online.documentine.com/local-user-command/1/snmp-server-user.html"
MDS_SNMP = "https://www.cisco.com/en/US/docs/storage/san_switches/mds9000/sw/rel_2_x/san-os/configuration/guide/snmp.html"
MSG91_NPM = "https://www.npmjs.com/package/msg91"
MSG91_RUBY = "https://rubydoc.info/gems/msg91sms/1.0.1"
MSG91_APPWRITE = "https://appwrite.io/integrations/phone-auth-msg91"
SLURMDBD_UBUNTU = "https://manpages.ubuntu.com/manpages/oracular/en/man5/slurmdbd.conf.5.html"
SLURMDBD_LIST = "https://www.mail-archive.com/slurm-dev@schedmd.com/msg06769/slurmdbd.conf"
SLURMDBD_GIST = "https://gist.github.com/stevenjswanson/84b31b5ae793379f16eff16678f75b47"
RESTIC_ENV = "https://restic.readthedocs.io/en/latest/075_scripting.html"
RESTIC_INIT = "https://github.com/restic/restic/blob/2d756ce7278cdd598ff08fc696cabded5f1630bf/doc/030_preparing_a_new_repo.rst"
AUTORESTIC = (
    "https://raw.githubusercontent.com/cupcakearmy/autorestic/master/docs/pages/backend/env.md"
)
RESTIC_DE = "https://gist.github.com/BenjaminHerbert/641080e209139493a2082fd66a0407ce"
RESTIC_KEYPW = "https://man.archlinux.org/man/restic-key-passwd.1.en"
JELLY_GIST = "https://gist.github.com/nielsvanvelzen/ea047d9028f676185832e51ffaf12a6f"
JELLY_EVA = "https://docs.eva-00.network/services/jellyfin/reference/"
JELLY_MINT = "https://www.mintlify.com/jellyfin/jellyfin/api/authentication/overview"
TWOFAUTH = "https://docs.2fauth.app/getting-started/installation/docker/docker-compose"
RAKAZO = "https://raw.githubusercontent.com/elie222/rakazo/master/docs/self-host-secrets.md"
WECOM = "https://jishuzhan.net/article/2007969004397838337"
WECOM_MYNW = "https://hey99.cn/shot/CSDN_156989571"
NETRC_GIST = "https://gist.github.com/yamanyar/2325413"
YOCTO_GIST = "https://gist.github.com/netskink/3d090630ccb44d9e58bbc5754538c3f2"
FRAPPE_MINT = "https://www.mintlify.com/frappe/erpnext/api/authentication"
ERPNEXT_NANGO = "https://nango.dev/docs/api-integrations/erpnext/connect"
ERPNEXT_N8N = "https://docs.n8n.io/integrations/builtin/credentials/erpnext.md"
VYOS_ANSIBLE = "https://docs.ansible.com/ansible/latest/collections/vyos/vyos/vyos_user_module.html"
JUNIPER_LOGIN = "https://juniper.net/documentation/us/en/software/juniper-paragon-automation2.1.0/user-guide/topics/ref/set-system-login.html"
TNSR_USERS = "https://docs.netgate.com/tnsr/en/23.11/users/local.html"
VNPAY_GUIDE = "https://sandbox.vnpayment.vn/apis/docs/huong-dan-tich-hop/"
VNPAY_HASH = "https://sandbox.vnpayment.vn/apis/docs/chuyen-doi-thuat-toan/changeTypeHash.html"
VNPAY_PAY = "https://sandbox.vnpayment.vn/apis/docs/thanh-toan-pay/pay.html"
ZARINPAL = "https://next.zarinpal.com/paymentGateway/guide/"
ZARINPAL_DOCS = "https://www.zarinpal.com/docs/paymentGateway/connectToGateway.html"
MOYASAR_AUTH = "https://docs.moyasar.com/api/authentication/"
MOYASAR_KEYS = "https://docs.moyasar.com/guides/dashboard/get-your-api-keys"
MOYASAR_POSTMAN = (
    "https://docs.moyasar.com/assets/postman/moyasar_test_env.postman_environment.json"
)
LIQPAY_DART = "https://pub.dev/documentation/liqpay/latest/liqpay/LiqPay/LiqPay.html"
LIQPAY_RUBY = "https://rdoc.info/gems/liqpay/Liqpay/SignedPayload"
MENDER_CREATE = "https://docs.mender.io/artifact-creation/create-an-artifact"
MENDER_BBB = "https://github.com/jumpnow/meta-bbb/commit/570d2af87adb8bc4b98676e68fe61686f4564341"
MENDER_BBCLASS = "https://raw.githubusercontent.com/mendersoftware/meta-mender/master/meta-mender-core/classes/mender-artifactimg.bbclass"
MENDER_CERTS = "https://github.com/mendersoftware/mender-docs/blob/1.6.x/07.Administration/03.Certificates-and-keys/docs.md"
MENDER_DEVAUTH = "https://www.github.com/mendersoftware/deviceauth"
KEYCLOAK_KEYS = "https://keycloak.org/keys"
RPMSIGN = "https://manpages.ubuntu.com/manpages/noble/man8/rpmsign.8.html"
CONCOURSE_SET = "https://www.concourse-ci.org/setting-pipelines.html"
CONCOURSE_AIRM = "https://github.com/mkb/airmarshal-concourse"
CONCOURSE_RES = "https://github.com/DandyDeveloper/concourse-pipeline-resource"
CONCOURSE_VAULT = "https://www.github.com/59s/concourse-pipeline-samples/blob/master/concourse-pipeline-patterns/vault-integration"
TEAMCITY_PARAMS = "https://www.jetbrains.com/help/teamcity/kotlin-dsl-documentation/pipelines/pipeline/params.html"


def _secret(cls: str, context: str, secret: str, source: str) -> dict[str, str]:
    return {
        "class": cls,
        "context": context,
        "expect": "secret",
        "secret": secret,
        "source": source,
    }


def _benign(cls: str, context: str, value: str, reason: str, source: str) -> dict[str, str]:
    return {
        "class": "look-alike: " + cls,
        "context": context,
        "expect": "benign",
        "reason": reason,
        "source": source,
        "value": value,
    }


VT = "vendor token"
HA = "http auth header"
CF = "config file"
CLI = "cli password flag"
CI = "ci and yaml"
CS = "connection string"
OL = "other language"
LOG = "log line"
ENC = "encoding"
WH = "webhook url"
SIGN = "signing and build tools"
SRC = "source literal"

PH = "placeholders and references"
IDS = "ids and uuids"
CODE = "code naming a secret"
HASH = "hashes and digests"
MASK = "masked values"
PUB = "public keys and client-side keys"

ROWS: list[dict[str, str]] = [
    # ---- vendor token ----
    _secret(
        VT,
        "$ export DUFFEL_ACCESS_TOKEN=duffel_test_FJpCAval6u29NtFL50J-tevChddPuecjqSx8m9qqgQo\n$ python search_offers.py --origin NBO --destination LOS",
        "duffel_test_FJpCAval6u29NtFL50J-tevChddPuecjqSx8m9qqgQo",
        DUFFEL_TEST,
    ),
    _secret(
        VT,
        'client = Duffel(access_token="duffel_live_3m_YW4YmM3DIpOL1yND-rbGDbR3lWjWCcvXFWabA_Qr")  # prod booking worker',
        "duffel_live_3m_YW4YmM3DIpOL1yND-rbGDbR3lWjWCcvXFWabA_Qr",
        DUFFEL_GG,
    ),
    _secret(
        VT,
        "NCBI_API_KEY=4115a99886494816bdfc75d9886c67ef78ce\nNCBI_EMAIL=lab-bioinfo@example.org",
        "4115a99886494816bdfc75d9886c67ef78ce",
        EUTILS,
    ),
    _secret(
        VT,
        "$ curl 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=gene&term=TNF&api_key=993df0c4780a041a8ae7476ecb0e12acfa72'",
        "993df0c4780a041a8ae7476ecb0e12acfa72",
        NCBI_KB,
    ),
    _secret(
        VT,
        '{"to": "2348031234567", "from": "Kwikship", "sms": "Your parcel is out for delivery", "type": "plain", "channel": "generic", "api_key": "TLOGH9cXuCxWxAApSNSpZDMsw75SElIDEubdACUrykwzhQqQWAFWdYSDLq76"}',
        "TLOGH9cXuCxWxAApSNSpZDMsw75SElIDEubdACUrykwzhQqQWAFWdYSDLq76",
        TERMII_MSG,
    ),
    _secret(
        VT,
        "MSG91_AUTH_KEY=662691A1lIIwi51KFKGrKGNg\nMSG91_SENDER_ID=PTSHOP\nMSG91_TEMPLATE_ID=65f1c0d3d6fc05321a2b7c44",
        "662691A1lIIwi51KFKGrKGNg",
        MSG91_APPWRITE,
    ),
    _secret(
        VT,
        "MOYASAR_SECRET_KEY=sk_test_Q4U20I9lgtjgwgT4pHhTZwicRwjA9b743xoM7Uq5",
        "sk_test_Q4U20I9lgtjgwgT4pHhTZwicRwjA9b743xoM7Uq5",
        MOYASAR_AUTH,
    ),
    _secret(
        VT,
        '  "secret_key": "sk_live_5xj6WWDsRIRH5vASoyC48y8IrLF1tuMhnbimvE9o",',
        "sk_live_5xj6WWDsRIRH5vASoyC48y8IrLF1tuMhnbimvE9o",
        MOYASAR_KEYS,
    ),
    _secret(
        VT,
        "LINE_CHANNEL_SECRET=45873b0ae257a6f6cd38ae3e2f059619\nLINE_CHANNEL_ID=2006512345",
        "45873b0ae257a6f6cd38ae3e2f059619",
        LINE_NODERED,
    ),
    _secret(
        VT,
        "JELLYFIN_URL=http://192.168.1.114:8096\nJELLYFIN_API_KEY=586d1931a49f0f7ea2ed15b82805dc69",
        "586d1931a49f0f7ea2ed15b82805dc69",
        JELLY_EVA,
    ),
    _secret(
        VT,
        "MPESA_CONSUMER_KEY=lzCWHThMXMPwZ7BPQDH8x5M3mzAFGnucwzUlZBPOyAXj1gnf\nMPESA_BUSINESS_SHORT_CODE=174379\nMPESA_ENVIRONMENT=sandbox",
        "lzCWHThMXMPwZ7BPQDH8x5M3mzAFGnucwzUlZBPOyAXj1gnf",
        DARAJA,
    ),
    _secret(
        VT,
        "MPESA_CONSUMER_SECRET=JhnuocaOV82A4zfuhFfT5sZfEtIt32YUZzQ7QrBusviEfUcmARnbBCW1QghHtrGS\nMPESA_CALLBACK_URL=https://duka.example.co.ke/api/mpesa/callback",
        "JhnuocaOV82A4zfuhFfT5sZfEtIt32YUZzQ7QrBusviEfUcmARnbBCW1QghHtrGS",
        DARAJA,
    ),
    _secret(
        VT,
        "SHOPEE_PARTNER_ID=2001887\nSHOPEE_PARTNER_KEY=shpkCtKrK7pvagQlzWpQrmBC68T6eN53q0P9QCbBG0QlJBt37lH2mqFyAxG0Wy9U",
        "shpkCtKrK7pvagQlzWpQrmBC68T6eN53q0P9QCbBG0QlJBt37lH2mqFyAxG0Wy9U",
        SHOPEE_PHP,
    ),
    _secret(
        VT,
        'AUTHENTIK_TOKEN=uJT50XNZyIEV38i43WECLJ2KLQK4fB7vUApBI4GG0PWpzwbpTpKgCLbolbfU\n$ curl -s https://auth.example.net/api/v3/core/users/ -H "Accept: application/json" -H "Authorization: Bearer $AUTHENTIK_TOKEN"',
        "uJT50XNZyIEV38i43WECLJ2KLQK4fB7vUApBI4GG0PWpzwbpTpKgCLbolbfU",
        AK_AUTO,
    ),
    _secret(
        VT,
        "liqpay:\n  public_key: sandbox_i75917799886\n  private_key: sandbox_RfUignr2IBUPJO6hk2D4d3N28YfQ2GqEKdbAPqGx",
        "sandbox_RfUignr2IBUPJO6hk2D4d3N28YfQ2GqEKdbAPqGx",
        LIQPAY_RUBY,
    ),
    # ---- http auth header ----
    _secret(
        HA,
        "> GET /air/offers?offer_request_id=orq_0000AgmX4pLvV HTTP/2\n> Host: api.duffel.com\n> Authorization: Bearer duffel_test_NQILxoLDCeubV3vnkM5xX1aOiMBghPFTVfcJcTUHH8E\n> Duffel-Version: v2",
        "duffel_test_NQILxoLDCeubV3vnkM5xX1aOiMBghPFTVfcJcTUHH8E",
        DUFFEL_AUTH,
    ),
    _secret(
        HA,
        'curl -s -H \'Authorization: MediaBrowser Token="bd234ab741ab086390f8cb5d52a31aa7", Client="nightly-scan"\' http://jellyfin.lan:8096/Library/Refresh -X POST',
        "bd234ab741ab086390f8cb5d52a31aa7",
        JELLY_GIST,
    ),
    _secret(
        HA,
        "curl -s http://media.home:8096/System/Info -H 'X-Emby-Token: 4716cbd6cf5d69b91322d5f19bccb1ad'",
        "4716cbd6cf5d69b91322d5f19bccb1ad",
        JELLY_GIST,
    ),
    _secret(
        HA,
        "curl -X GET 'https://erp.example.com/api/resource/Customer' -H 'Authorization: token acddb81204f1aa8:306724e784ee8f8'",
        "acddb81204f1aa8:306724e784ee8f8",
        FRAPPE_MINT,
    ),
    _secret(
        HA,
        "GET /api/resource/Sales%20Invoice?limit=20 HTTP/1.1\nHost: tokoku.frappe.cloud\nAuthorization: token 4023e04abe5a317:84ce0c74a7573c2\nAccept: application/json",
        "4023e04abe5a317:84ce0c74a7573c2",
        ERPNEXT_NANGO,
    ),
    _secret(
        HA,
        "POST /v2/bot/message/push HTTP/1.1\nHost: api.line.me\nAuthorization: Bearer +MqxphPA+WBu8OmsHihCrztEs1vkXq8iv/d28ObqunrylFPM+VfRPlgnCqxSXRTNxYesnKYu0ybVtbE1InDvSK6Hsb47tPS76mYDoRZttwWghRLHgOinS2iUgf61s7t6Tgny6v4YV6jFkQIWLQYoQ9V424q3Bpjgb7/eHZ8eVtx0\nContent-Type: application/json",
        "+MqxphPA+WBu8OmsHihCrztEs1vkXq8iv/d28ObqunrylFPM+VfRPlgnCqxSXRTNxYesnKYu0ybVtbE1InDvSK6Hsb47tPS76mYDoRZttwWghRLHgOinS2iUgf61s7t6Tgny6v4YV6jFkQIWLQYoQ9V424q3Bpjgb7/eHZ8eVtx0",
        LINE_TOKEN,
    ),
    _secret(
        HA,
        "$ curl https://api.moyasar.com/v1/payments -u sk_test_zax0jGVc3DEdV28iQ4rAVrNtYlQx40BJ4WNOX5UW:",
        "sk_test_zax0jGVc3DEdV28iQ4rAVrNtYlQx40BJ4WNOX5UW",
        MOYASAR_AUTH,
    ),
    _secret(
        HA,
        "GET /v1/payments/3a1f0b9e-6c2d-4e8a-9b57-2f4c6d8e0a13 HTTP/1.1\nHost: api.moyasar.com\nAuthorization: Basic snI0XQB3x46iCKE+QOVqt4k4b6AC3CwEH1gmLAB4OgS2kXHvSHISUfY3qpv17lXA",
        "snI0XQB3x46iCKE+QOVqt4k4b6AC3CwEH1gmLAB4OgS2kXHvSHISUfY3qpv17lXA",
        MOYASAR_AUTH,
    ),
    _secret(
        HA,
        "curl -X GET 'https://sandbox.safaricom.co.ke/oauth/v1/generate?grant_type=client_credentials' -H 'Authorization: Basic 0NhidiR+2Bian+3n6gH39v5B4llcF9qldcmWajZCMJXU88mq6MG7xqSDgNmGH05MB0eg5z9/MQs7NbFHA1PKI8KM/e1bgkzhvuD8B+XE9TFDSWQ0'",
        "0NhidiR+2Bian+3n6gH39v5B4llcF9qldcmWajZCMJXU88mq6MG7xqSDgNmGH05MB0eg5z9/MQs7NbFHA1PKI8KM/e1bgkzhvuD8B+XE9TFDSWQ0",
        DARAJA,
    ),
    _secret(
        HA,
        "POST /mpesa/stkpush/v1/processrequest HTTP/1.1\nHost: sandbox.safaricom.co.ke\nAuthorization: Bearer PGcsR10rSUv9rEqMpN1F7crwVLZ2\nContent-Type: application/json",
        "PGcsR10rSUv9rEqMpN1F7crwVLZ2",
        DARAJA,
    ),
    _secret(
        HA,
        'curl -s -H "Authorization: Bearer 9lqB9DCraSqJ4MGBL7fhcJQapC5ZtPqtHlpNYzgTlO5FixaX94xH1W1V31FT" https://sso.example.org/api/v3/flows/instances/',
        "9lqB9DCraSqJ4MGBL7fhcJQapC5ZtPqtHlpNYzgTlO5FixaX94xH1W1V31FT",
        AK_AUTO,
    ),
    _secret(
        HA,
        'curl -X POST https://control.msg91.com/api/v5/flow/ -H \'authkey: 658949AUO9Ob1atxs4r83vSp\' -H \'content-type: application/json\' -d \'{"template_id":"6523f0a1d6fc0577a81c9e22","recipients":[{"mobiles":"919999999999"}]}\'',
        "658949AUO9Ob1atxs4r83vSp",
        MSG91_NPM,
    ),
    _secret(
        HA,
        'requests.get(url, headers={"Authorization": "Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIyNDYwMCIsImlhdCI6MTc2NDg5ODIzNiwianRpIjoiYzI4M2M2M2E2ODg0NTc5YSJ9.N_XUo5O2oKm139Job4Lo-Uf8lVJG4Sc-Rlcp7WP9u6sNJMtRIxp9GHayReS2DNxGHTSL62fILFlTtuoRBzgjvQ"}, timeout=10)  # mender management API',
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIyNDYwMCIsImlhdCI6MTc2NDg5ODIzNiwianRpIjoiYzI4M2M2M2E2ODg0NTc5YSJ9.N_XUo5O2oKm139Job4Lo-Uf8lVJG4Sc-Rlcp7WP9u6sNJMtRIxp9GHayReS2DNxGHTSL62fILFlTtuoRBzgjvQ",
        MENDER_DEVAUTH,
    ),
    _secret(
        HA,
        'Authorization: MediaBrowser Client="Kodi", Device="livingroom", DeviceId="kodi-7f3a", Version="10.9.2", Token="97bf924e641667e8dd106be47b76a7d0"',
        "97bf924e641667e8dd106be47b76a7d0",
        JELLY_MINT,
    ),
    _secret(
        HA,
        '< HTTP/1.1 200 OK\n< content-type: application/json\n{"access_token":"ZNg+ga2W72i+fvV1rYCwZTwCZE5Q6ZYzkHxClrVCaBDLTLFxjw0Yd+hMUnQi3CbnctjpwNSEBoJ+B6jogO3pPA++5ZSLIbkXCJtn7md3EOvphn7HcN5o/oeO9HtOaxd/+qFN8jn8tMlm5H+cLTM38QqBSi4nV7eCS5hqWy2XGkdj","expires_in":2592000,"token_type":"Bearer","key_id":"sDTOzw5wIfxxxxPEzcmeQA"}',
        "ZNg+ga2W72i+fvV1rYCwZTwCZE5Q6ZYzkHxClrVCaBDLTLFxjw0Yd+hMUnQi3CbnctjpwNSEBoJ+B6jogO3pPA++5ZSLIbkXCJtn7md3EOvphn7HcN5o/oeO9HtOaxd/+qFN8jn8tMlm5H+cLTM38QqBSi4nV7eCS5hqWy2XGkdj",
        LINE_SDK,
    ),
    # ---- config file ----
    _secret(
        CF,
        "# security properties #\nnifi.sensitive.props.key=N36a3Pk7jYaO6zqS1qNK5FyO\nnifi.sensitive.props.algorithm=NIFI_PBKDF2_AES_GCM_256\nnifi.sensitive.props.additional.keys=",
        "N36a3Pk7jYaO6zqS1qNK5FyO",
        NIFI_PROPS,
    ),
    _secret(
        CF,
        "nifi.security.keystore=/opt/nifi/conf/keystore.p12\nnifi.security.keystoreType=PKCS12\nnifi.security.keystorePasswd=kartofelMonsoon25%",
        "kartofelMonsoon25%",
        NIFI_TOOLKIT,
    ),
    _secret(
        CF,
        "# Database info\nStorageType=accounting_storage/mysql\nStorageHost=dbd01.hpc.internal\nStorageUser=slurm\nStoragePass=Istanbul?155\nStorageLoc=slurm_acct_db",
        "Istanbul?155",
        SLURMDBD_UBUNTU,
    ),
    _secret(
        CF,
        "AuthType=auth/munge\nDbdHost=appmaster\nSlurmUser=slurm\nStoragePass=od8AEXPbPiT2tsQhiYrm\nStorageUser=slurm",
        "od8AEXPbPiT2tsQhiYrm",
        SLURMDBD_LIST,
    ),
    _secret(
        CF,
        "PG_PASS=Dslp2szEJHFrWEGZVGj7HLVyGgTZhc8nMLALH5ff\nAUTHENTIK_ERROR_REPORTING__ENABLED=true",
        "Dslp2szEJHFrWEGZVGj7HLVyGgTZhc8nMLALH5ff",
        AK_IBRA,
    ),
    _secret(
        CF,
        "AUTHENTIK_SECRET_KEY=nXtbvVdSjOakXz4dLOz0fzIWzUFwXMqdaPeEJVFbQbVFunzeDD\nAUTHENTIK_PORT_HTTP=9000\nAUTHENTIK_PORT_HTTPS=9443",
        "nXtbvVdSjOakXz4dLOz0fzIWzUFwXMqdaPeEJVFbQbVFunzeDD",
        AK_IBRA,
    ),
    _secret(
        CF,
        "machine git.firmware-lab.internal\nlogin buildbot\npassword Monsoon5174+",
        "Monsoon5174+",
        NETRC_GIST,
    ),
    _secret(
        CF,
        "APP_URL=https://2fa.example.com\nAPP_KEY=base64:W0mNRkGsn8mGJ2+yJArOSFkZ9SJaZzJGmRXuIXzpZ3M=\nDB_CONNECTION=sqlite",
        "base64:W0mNRkGsn8mGJ2+yJArOSFkZ9SJaZzJGmRXuIXzpZ3M=",
        TWOFAUTH,
    ),
    _secret(
        CF,
        "!\nhostname core-sw01\nsnmp-server community SYv6KbJCztsBnp9Y RO 10\nsnmp-server location DC2-rack14\n!",
        "SYv6KbJCztsBnp9Y",
        DELL_SNMP,
    ),
    _secret(
        CF,
        "username netops privilege 15 secret 0 Dragonfruit@369\n!\nline vty 0 4\n login local",
        "Dragonfruit@369",
        DELL_SNMP,
    ),
    _secret(
        CF,
        "snmp-server user nms-poller NMSGROUP v3 auth sha kYkMvXjsns3ywceFV7gc\nsnmp-server host 10.20.0.5 version 3 auth nms-poller",
        "kYkMvXjsns3ywceFV7gc",
        SNMP_USER,
    ),
    _secret(
        CF,
        "set system login user ops authentication plaintext-password 'Istanbul%5400'\nset system login user ops level admin",
        "Istanbul%5400",
        VYOS_ANSIBLE,
    ),
    _secret(
        CF,
        '{\n  "db_host": "mariadb",\n  "db_name": "_a1b2c3d4e5f60718",\n  "db_password": "GnM3EorGJwntsGcP"\n}',
        "GnM3EorGJwntsGcP",
        ERPNEXT_N8N,
    ),
    _secret(
        CF,
        '<?xml version="1.0"?>\n<ServerConfiguration>\n  <EnableLegacyAuthorization>true</EnableLegacyAuthorization>\n  <SmtpPassword>tulipan-Lisboa-82</SmtpPassword>\n</ServerConfiguration>',
        "tulipan-Lisboa-82",
        JELLY_GIST,
    ),
    _secret(
        CF,
        "[global]\nrepository = sftp:backup@nas01:/srv/restic\npassword = Marzipan-2060\nkeep-daily = 7",
        "Marzipan-2060",
        RESTIC_ENV,
    ),
    # ---- cli password flag ----
    _secret(
        CLI,
        "$ ./bin/nifi.sh set-sensitive-properties-key dJUJ2jwLcVCII5mIdrJh\nSensitive Properties Key applied to /opt/nifi/conf/flow.json.gz",
        "dJUJ2jwLcVCII5mIdrJh",
        NIFI_SETKEY,
    ),
    _secret(
        CLI,
        "$ ./nifi-toolkit-1.23.2/bin/encrypt-config.sh -f conf/flow.xml.gz -g conf/flow.new.xml.gz -s Zanzibar5555? -n conf/nifi.properties -o conf/nifi.new.properties -x",
        "Zanzibar5555?",
        NIFI_MIGRATE,
    ),
    _secret(
        CLI,
        "$ encrypt-config.sh -b bootstrap.conf -k 1A928003691A30FDC771DC4543271BD80F3C6E786ED877BFDA5A433E9D8BC718 -n nifi.properties",
        "1A928003691A30FDC771DC4543271BD80F3C6E786ED877BFDA5A433E9D8BC718",
        NIFI_TOOLKIT,
    ),
    _secret(
        CLI,
        '$ fly -t ci set-pipeline -p airmarshal -c pipeline.yml --var "docker-hub-password=kartofel-Chuoi-14"',
        "kartofel-Chuoi-14",
        CONCOURSE_SET,
    ),
    _secret(
        CLI,
        "$ fly -t main login -c https://ci.example.io -u admin -p baobabMonsoon63.\nlogging in to team 'main'\n\ntarget saved",
        "baobabMonsoon63.",
        CONCOURSE_AIRM,
    ),
    _secret(
        CLI,
        "$ mysql -h dbd01 -u slurm -pTulipan%6817 slurm_acct_db -e 'select count(*) from cluster_job_table'",
        "Tulipan%6817",
        SLURMDBD_GIST,
    ),
    _secret(
        CLI, "$ snmpwalk -v2c -c umqOL9TzAThQYS 10.20.0.1 1.3.6.1.2.1.1", "umqOL9TzAThQYS", MDS_SNMP
    ),
    _secret(
        CLI,
        "$ ansible-playbook site.yml -l edge-routers -e vyos_configured_password=Osaka882-",
        "Osaka882-",
        VYOS_ANSIBLE,
    ),
    _secret(
        CLI,
        "tnsr(config)# auth user deploy\ntnsr(config-auth)# password hanoi-Paprika-22\ntnsr(config-auth)# exit",
        "hanoi-Paprika-22",
        TNSR_USERS,
    ),
    _secret(
        CLI,
        "$ bench --site erp.example.com set-admin-password pierogi-Marzipan-17",
        "pierogi-Marzipan-17",
        FRAPPE_MINT,
    ),
    _secret(
        CLI,
        "$ mender-cli login --server https://hosted.mender.io --username ops@example.com --password pelangiKopi35?",
        "pelangiKopi35?",
        MENDER_CREATE,
    ),
    _secret(
        CLI,
        "$ RESTIC_PASSWORD=falafel-Pierogi-51 restic -r /srv/restic-repo snapshots",
        "falafel-Pierogi-51",
        RESTIC_ENV,
    ),
    _secret(
        CLI,
        "$ AUTORESTIC_NAS_RESTIC_PASSWORD=mYPq5x9WUZpyq6pSUbusKSdPVNnHdDNF autorestic backup -a",
        "mYPq5x9WUZpyq6pSUbusKSdPVNnHdDNF",
        AUTORESTIC,
    ),
    _secret(
        CLI,
        "$ curl -u admin:kraken-Zanzibar-63 -X POST http://nifi01:8080/nifi-api/access/token",
        "kraken-Zanzibar-63",
        NIFI_PROPS,
    ),
    _secret(
        CLI,
        "$ sshpass -p 'volga-Monsoon-69' ssh netops@core-sw01 'show running-config | include snmp'",
        "volga-Monsoon-69",
        DELL_SNMP,
    ),
    # ---- ci and yaml ----
    _secret(
        CI,
        "resources:\n- name: my-pipelines\n  type: concourse-pipeline\n  source:\n    target: https://ci.example.io\n    teams:\n    - name: main\n      username: admin\n      password: istanbulKartofel69*",
        "istanbulKartofel69*",
        CONCOURSE_RES,
    ),
    _secret(
        CI,
        "# credentials.yml -- do not commit\ndocker-hub-email: releases@example.com\ndocker-hub-password: Bratislava%7877",
        "Bratislava%7877",
        CONCOURSE_AIRM,
    ),
    _secret(
        CI,
        "aws_default_region: eu-west-1\naws_access_key: ((aws-access-key-id))\naws_secret_key: Hv4y9q7ELrAUcOH26aj3xmxAUyRTIYe3nXg-MvlE",
        "Hv4y9q7ELrAUcOH26aj3xmxAUyRTIYe3nXg-MvlE",
        CONCOURSE_VAULT,
    ),
    _secret(
        CI,
        'authentik:\n  secret_key: "YgUfoqCdBrVH8fSmOuk6Gg0ma06XudQI1vOJ0VXlYwv7c5bkZM"\n  error_reporting:\n    enabled: false',
        "YgUfoqCdBrVH8fSmOuk6Gg0ma06XudQI1vOJ0VXlYwv7c5bkZM",
        AK_AUTO,
    ),
    _secret(
        CI,
        "authentik:\n  bootstrap_token: YCREnIcXKZ9sl1Z0GrHvhkGrQaONuNg5W5GBxNCDjXx1fcc6NiiGDHKBg7QT\n  bootstrap_email: admin@example.org",
        "YCREnIcXKZ9sl1Z0GrHvhkGrQaONuNg5W5GBxNCDjXx1fcc6NiiGDHKBg7QT",
        AK_AUTO,
    ),
    _secret(
        CI,
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: authentik-bootstrap\nstringData:\n  AUTHENTIK_BOOTSTRAP_PASSWORD: "Volga-658"',
        "Volga-658",
        AK_AUTO,
    ),
    _secret(
        CI,
        "services:\n  postgresql:\n    image: docker.io/library/postgres:16-alpine\n    environment:\n      POSTGRES_PASSWORD: AbXhxflZUqvhtBCtZNpXU0GogB5YBXexlHB4DP7P\n      POSTGRES_USER: authentik",
        "AbXhxflZUqvhtBCtZNpXU0GogB5YBXexlHB4DP7P",
        AK_COMPOSE,
    ),
    _secret(
        CI,
        'services:\n  2fauth:\n    image: 2fauth/2fauth:latest\n    environment:\n      APP_KEY: "base64:jhlZX2XfU71MhMqNi8Qgza8tc8PNG0bi+FVMOK4pfBs="\n      APP_ENV: production',
        "base64:jhlZX2XfU71MhMqNi8Qgza8tc8PNG0bi+FVMOK4pfBs=",
        TWOFAUTH,
    ),
    _secret(
        CI,
        '- name: Configure local users\n  vyos.vyos.vyos_user:\n    name: ansible\n    configured_password: "Hanoi1318!"\n    level: admin\n    state: present',
        "Hanoi1318!",
        VYOS_ANSIBLE,
    ),
    _secret(
        CI,
        "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      DUFFEL_ACCESS_TOKEN: duffel_test_yZ6X9I4HBVYZe38o8h2uhsQONcxud_2AnUINtVFwFht\n    steps:\n      - run: pytest tests/integration",
        "duffel_test_yZ6X9I4HBVYZe38o8h2uhsQONcxud_2AnUINtVFwFht",
        DUFFELBAG,
    ),
    _secret(
        CI,
        "jellyfin:\n  ingress:\n    enabled: true\n  extraEnv:\n    JELLYFIN_PublishedServerUrl: https://media.example.net\n    JF_SMTP_PASSWORD: falafel-Zitrone-29",
        "falafel-Zitrone-29",
        JELLY_MINT,
    ),
    _secret(
        CI,
        "backend:\n  nas:\n    type: sftp\n    path: backup@nas01:/srv/restic\n    key: 6S3jVKu4ccxD5jV6YL4VqGtfh5TKD3uF",
        "6S3jVKu4ccxD5jV6YL4VqGtfh5TKD3uF",
        AUTORESTIC,
    ),
    _secret(
        CI,
        'params {\n    password("env.MENDER_PASSWORD", "kraken-Istanbul-43", display = ParameterDisplay.HIDDEN)\n}',
        "kraken-Istanbul-43",
        TEAMCITY_PARAMS,
    ),
    _secret(
        CI,
        'variables:\n  MSG91_AUTHKEY: "536975AfV2cP1l7oAw6s5r75"\nstages: [test, deploy]',
        "536975AfV2cP1l7oAw6s5r75",
        MSG91_RUBY,
    ),
    # ---- connection string ----
    _secret(
        CS, "sftp:backup:Nairobi*1248@nas01.home.arpa:/srv/restic", "Nairobi*1248", RESTIC_INIT
    ),
    _secret(
        CS,
        "RESTIC_REPOSITORY=rest:https://restic:vofuIpNZ7Uqp3lIKtHidLxEu@backup.example.net:8000/laptop",
        "vofuIpNZ7Uqp3lIKtHidLxEu",
        RESTIC_ENV,
    ),
    _secret(
        CS,
        "AUTHENTIK_POSTGRESQL__URL=postgresql://authentik:IwR924G6rGvV9EcVFi8fitoz5cfsUpwF3wY1aoyF@postgresql:5432/authentik",
        "IwR924G6rGvV9EcVFi8fitoz5cfsUpwF3wY1aoyF",
        AK_COMPOSE,
    ),
    _secret(
        CS,
        "sqlalchemy.url = mysql+pymysql://slurm:istanbulAndes51!@dbd01.hpc.internal:3306/slurm_acct_db",
        "istanbulAndes51!",
        SLURMDBD_UBUNTU,
    ),
    _secret(
        CS,
        'SRC_URI = "git://builder:girasol-Nairobi-74@git.firmware-lab.internal/bsp/u-boot.git;protocol=https;branch=lts"',
        "girasol-Nairobi-74",
        YOCTO_GIST,
    ),
    _secret(
        CS,
        "redis://:De3n6fY15HymNoJnxdoLTSfKccQbJJHX@authentik-cache:6379/0",
        "De3n6fY15HymNoJnxdoLTSfKccQbJJHX",
        AK_IBRA,
    ),
    _secret(
        CS,
        "ERPNEXT_DB=mariadb://_a1b2c3d4e5f60718:mGTMgSgw9uTH2Q5C@mariadb:3306/_a1b2c3d4e5f60718",
        "mGTMgSgw9uTH2Q5C",
        ERPNEXT_N8N,
    ),
    _secret(
        CS,
        "jdbc:mysql://dbd01:3306/slurm_acct_db?user=slurm&password=Mangga.377&useSSL=true",
        "Mangga.377",
        SLURMDBD_LIST,
    ),
    _secret(
        CS,
        "amqps://nifi-flow:ZBn5zzDv0qC2r12KIKdMLQat@mq.example.com:5671/%2Fingest",
        "ZBn5zzDv0qC2r12KIKdMLQat",
        NIFI_PROPS,
    ),
    _secret(
        CS,
        "https://jf-admin:falafelIstanbul12!@media.home.arpa:8920/web/index.html",
        "falafelIstanbul12!",
        JELLY_MINT,
    ),
    _secret(
        CS,
        "ftp://mirror:chuoiKopi72#@mirror.firmware-lab.internal/yocto_source_mirror/",
        "chuoiKopi72#",
        YOCTO_GIST,
    ),
    _secret(
        CS,
        "mongodb+srv://shopee-sync:bduWL3oTRzzuWJfAMz2Lce8c@cluster0.ab1cd.mongodb.net/orders?retryWrites=true",
        "bduWL3oTRzzuWJfAMz2Lce8c",
        SHOPEE_PHP,
    ),
    _secret(
        CS,
        "Server=sql01;Database=VnpayOrders;User Id=vnpay_app;Password=Sunflower?6271;TrustServerCertificate=True",
        "Sunflower?6271",
        VNPAY_PAY,
    ),
    _secret(
        CS,
        "s3:https://minio.lab.internal/restic?access_key=backup&secret_key=chK4C1u1oW3iC6ba7Aeb8oop5iwhC5XWTpWrnVIx",
        "chK4C1u1oW3iC6ba7Aeb8oop5iwhC5XWTpWrnVIx",
        AUTORESTIC,
    ),
    # ---- other language ----
    _secret(
        OL,
        '# 蝦皮串接設定(正式區)\npartner_id = 2001887\npartner_key = "8ac524d13a3dd1079586f6ab7e3bf7b2f498f1298d2150a27e298ff23f195cf4"  # 測試區跟正式區不能混用',
        "8ac524d13a3dd1079586f6ab7e3bf7b2f498f1298d2150a27e298ff23f195cf4",
        SHOPEE_ITHOME,
    ),
    _secret(
        OL,
        "记录测试 partner_id 和 key:\nsecret_key = 'bb48ee28ac55db2f5b8c13dd3579f725e5825117c447fdff4c2d30eae59123ca'\n# 不要提交到公共代码仓库",
        "bb48ee28ac55db2f5b8c13dd3579f725e5825117c447fdff4c2d30eae59123ca",
        SHOPEE_CSDN,
    ),
    _secret(
        OL,
        "企业微信机器人密钥已更新,新的 webhook key:2af954ad-5682-43e9-8cbc-7a0ad0e28c65,旧的请立即停用。",
        "2af954ad-5682-43e9-8cbc-7a0ad0e28c65",
        WECOM,
    ),
    _secret(
        OL,
        "LINE チャネルシークレット: c91128e985d1633cf6d0d3c8b739593d\n(Basic settings タブに表示されている値です)",
        "c91128e985d1633cf6d0d3c8b739593d",
        LINE_NODERED,
    ),
    _secret(
        OL,
        "NCBI API 密钥(请勿外传):7ab677516dc9f90669df8e107e4a104bfa61",
        "7ab677516dc9f90669df8e107e4a104bfa61",
        NCBI_MCP,
    ),
    _secret(
        OL,
        "vnp_TmnCode=DEMOV210\nvnp_HashSecret=6GMLIPV9N2PRV0M2UWA8CU405O2N6GBX  # Chuỗi bí mật tạo checksum, không chia sẻ",
        "6GMLIPV9N2PRV0M2UWA8CU405O2N6GBX",
        VNPAY_GUIDE,
    ),
    _secret(
        OL,
        "Mật khẩu quản trị Jellyfin mới: sakura-Kilimanjaro-29 (đổi sau lần đăng nhập đầu tiên)",
        "sakura-Kilimanjaro-29",
        JELLY_MINT,
    ),
    _secret(
        OL,
        "کلید مخفی درگاه پرداخت (sk): sk_live_vDLlNd3PmDTFcZ8W06z8TxOuUpDuHZeqHBJ2CpKN — این کلید را در کد سمت کاربر قرار ندهید",
        "sk_live_vDLlNd3PmDTFcZ8W06z8TxOuUpDuHZeqHBJ2CpKN",
        MOYASAR_KEYS,
    ),
    _secret(
        OL,
        "مفتاح ميسر السري للاختبار: sk_test_w7IS5Saat519uCSGJmEGSxohXl8isxn1xEoFxTAW\nلا تشاركه مع أحد",
        "sk_test_w7IS5Saat519uCSGJmEGSxohXl8isxn1xEoFxTAW",
        MOYASAR_AUTH,
    ),
    _secret(
        OL,
        "LiqPay: приватний ключ магазину — sandbox_elDf9GYEaR5oYr7VKdVjnCFU4hBQNcVlfBqKNezP; публічний ключ можна показувати у формі.",
        "sandbox_elDf9GYEaR5oYr7VKdVjnCFU4hBQNcVlfBqKNezP",
        LIQPAY_DART,
    ),
    _secret(
        OL,
        "Пароль к базе учёта Slurm: Paprika.155 (пользователь slurm, хост dbd01)",
        "Paprika.155",
        SLURMDBD_UBUNTU,
    ),
    _secret(
        OL,
        "Das Passwort für das restic-Repository lautet marzipanTango82% und liegt auch in .resticpassword",
        "marzipanTango82%",
        RESTIC_DE,
    ),
    _secret(
        OL,
        "Senha do banco do authentik: tMyBKzfzSQWRPf029QilojCa6fcYmhVOmKfrvQ0Y (gerada com pwgen -s 40 1)",
        "tMyBKzfzSQWRPf029QilojCa6fcYmhVOmKfrvQ0Y",
        AK_IBRA,
    ),
    _secret(
        OL,
        "Contraseña SNMP de la comunidad de escritura: dZGLpw6YH5BeQWWw — cambiarla tras la auditoría",
        "dZGLpw6YH5BeQWWw",
        DELL_SNMP,
    ),
    _secret(
        OL,
        "Chiave API Termii per gli SMS di consegna: TLWv5yx5FfgLA2EG83TrH0fDePU5PrMLmvErcE5IhF1FrdDmGIvsDU4kS9Nd",
        "TLWv5yx5FfgLA2EG83TrH0fDePU5PrMLmvErcE5IhF1FrdDmGIvsDU4kS9Nd",
        TERMII_NUM,
    ),
    _secret(
        OL,
        "Kunci rahasia Daraja (consumer secret) untuk toko: yQV6ossRFvRxTVshaxxkP7LUAwpZiEOv2impTIIU58yB0Mv7sVYgKiA3N2uoGuCP",
        "yQV6ossRFvRxTVshaxxkP7LUAwpZiEOv2impTIIU58yB0Mv7sVYgKiA3N2uoGuCP",
        DARAJA,
    ),
    _secret(
        OL,
        "Şifre: Osaka@5146 — ERPNext yönetici hesabı için geçici şifre",
        "Osaka@5146",
        ERPNEXT_NANGO,
    ),
    _secret(
        OL, "Hasło do repozytorium kopii zapasowych: Monsoon4267*", "Monsoon4267*", RESTIC_KEYPW
    ),
    _secret(OL, "Heslo k účtu netops na přepínači: Zanzibar8482!", "Zanzibar8482!", TNSR_USERS),
    _secret(
        OL,
        "मेरा MSG91 authkey: 110064A2i8Ta4LZkaB97C1wi है, इसे किसी के साथ साझा न करें",
        "110064A2i8Ta4LZkaB97C1wi",
        MSG91_APPWRITE,
    ),
    _secret(
        OL,
        "รหัสผ่านผู้ดูแลระบบ NiFi: sakura-Kopi-87 (ใช้เฉพาะเครื่อง staging)",
        "sakura-Kopi-87",
        NIFI_PROPS,
    ),
    _secret(
        OL,
        "LINE 채널 액세스 토큰: MEAmeil1g4DtiYPudMXsE9W2wvSQhckGYXhm4Hws6FVvztkHCJaemosfd+iYjxYqYmr5vFKvlD5YV+ciuyKxyF5DW3kUwpvUJd+rn9sQw7nN9eQy5HuMCuuLHHTki3zWo3XJNJ/hOSXVOf4/2MZCp2ADh6z9YbI0HU/2rLs8nj+b",
        "MEAmeil1g4DtiYPudMXsE9W2wvSQhckGYXhm4Hws6FVvztkHCJaemosfd+iYjxYqYmr5vFKvlD5YV+ciuyKxyF5DW3kUwpvUJd+rn9sQw7nN9eQy5HuMCuuLHHTki3zWo3XJNJ/hOSXVOf4/2MZCp2ADh6z9YbI0HU/2rLs8nj+b",
        LINE_TOKEN,
    ),
    _secret(
        OL,
        "Κωδικός πρόσβασης για τον χρήστη ops στο VyOS: Kraken6469@",
        "Kraken6469@",
        VYOS_ANSIBLE,
    ),
    _secret(OL, "הסיסמה למאגר הגיבוי החדש: Mangga_8284", "Mangga_8284", RESTIC_ENV),
    _secret(
        OL,
        "Het wachtwoord van de Concourse-team 'main' is pelangi-Kartofel-84",
        "pelangi-Kartofel-84",
        CONCOURSE_RES,
    ),
    _secret(
        OL,
        "Mot de passe de la clé de signature Mender : pierogi-Pierogi-74",
        "pierogi-Pierogi-74",
        MENDER_BBB,
    ),
    # ---- log line ----
    _secret(
        LOG,
        '2026-05-24T17:41:18Z worker {"event":"bootstrap","level":"debug","AUTHENTIK_BOOTSTRAP_TOKEN":"6mB3yU7QA0DG5uKZd5SdU7Q5LhT5SH658bECS2gJjffle1yUr62OD3z5prFi","timestamp":"2026-05-24T17:41:18Z"}',
        "6mB3yU7QA0DG5uKZd5SdU7Q5LhT5SH658bECS2gJjffle1yUr62OD3z5prFi",
        AK_DISCUSS,
    ),
    _secret(
        LOG,
        "[2026-03-02 10:14:55] DEBUG Jellyfin.Api.Auth.CustomAuthenticationHandler: Authenticating request with token 437e9404c6e3c6b23a267e39f2289970 from 192.168.1.40",
        "437e9404c6e3c6b23a267e39f2289970",
        JELLY_GIST,
    ),
    _secret(
        LOG,
        "[Jellyfin.Server] INFO GET /Items?api_key=0848efe48825f8f9b4f1a84c80139d03&recursive=true 200 14ms",
        "0848efe48825f8f9b4f1a84c80139d03",
        JELLY_EVA,
    ),
    _secret(
        LOG,
        "2026-01-18 03:19:05,551 INFO shopee.client POST /api/v2/auth/token/get partner_key=d37aefc5d79a773fa3b518c9ce36893ef9f7a7b5dbe0f507967374dd0912d799 shop_id=801234567",
        "d37aefc5d79a773fa3b518c9ce36893ef9f7a7b5dbe0f507967374dd0912d799",
        SHOPEE_TENCENT,
    ),
    _secret(
        LOG,
        "I, [2026-04-02T09:12:31.442] INFO -- : Msg91sms request authkey=901442AzZZCAZjFeEaR8cs5W mobile=917234567891 sender=PTSHOP",
        "901442AzZZCAZjFeEaR8cs5W",
        MSG91_RUBY,
    ),
    _secret(
        LOG,
        "slurmdbd: debug:  mysql_db_get_db_connection: host=dbd01 user=slurm pass=Paprika3056- db=slurm_acct_db",
        "Paprika3056-",
        SLURMDBD_LIST,
    ),
    _secret(
        LOG,
        "2026-02-11 08:00:01 backup.sh[4242]: + export RESTIC_PASSWORD=Hanoi2556*",
        "Hanoi2556*",
        RESTIC_DE,
    ),
    _secret(
        LOG,
        "WARN [duffel] 401 Unauthorized for token duffel_test_NHJQC_Uc6Gw_14EBW0BDay8eBoOxxT4QVhS3vaIJah1 (x-request-id: Fs1f0Zp8kQ2bLxAAAB6h)",
        "duffel_test_NHJQC_Uc6Gw_14EBW0BDay8eBoOxxT4QVhS3vaIJah1",
        DUFFEL_AUTH,
    ),
    _secret(
        LOG,
        '2026-06-01 12:00:03.118 DEBUG [termii-client] payload={"to":"2347089509111","sms":"OTP 482913","api_key":"TLjNXYPO5KdE3rnfXTavV6OMO6LhYlnUp5ilkwnkKhq957CaLg7M2ofqVj8W"}',
        "TLjNXYPO5KdE3rnfXTavV6OMO6LhYlnUp5ilkwnkKhq957CaLg7M2ofqVj8W",
        TERMII_NUM,
    ),
    _secret(
        LOG,
        "Mar 03 14:22:10 mpesa-gw node[917]: STK push password built from shortcode 174379 passkey f50ae44709a6a62337e446e1b3c326177dfecb730d556332475e172c46176891 timestamp 20260303142210",
        "f50ae44709a6a62337e446e1b3c326177dfecb730d556332475e172c46176891",
        DARAJA,
    ),
    _secret(
        LOG,
        "2026-05-01 09:30:12,004 DEBUG o.a.n.c.FlowController Loaded sensitive props key from env NIFI_SENSITIVE_PROPS_KEY=Is6O5BhAcsvHbeTW0T87kG1u",
        "Is6O5BhAcsvHbeTW0T87kG1u",
        NIFI_SETKEY,
    ),
    _secret(
        LOG,
        'time=2026-07-04T10:11:12Z level=debug msg="line webhook verified" channel_secret=bdbfa8fc4f83e4b363260cd7ea9a4d7e',
        "bdbfa8fc4f83e4b363260cd7ea9a4d7e",
        LINE_NODERED,
    ),
    _secret(
        LOG,
        "Jun 14 02:10:44 core-sw01 %PARSER-5-CFGLOG_LOGGEDCMD: User:netops logged command:snmp-server community jkX2uvOZOHUIovmq RW",
        "jkX2uvOZOHUIovmq",
        DELL_SNMP,
    ),
    _secret(
        LOG,
        "frappe.log: 2026-02-01 10:22:19 INFO api call user=integrations@example.com auth='token 2e17862033d8081:ed9dc2df36d5e34'",
        "2e17862033d8081:ed9dc2df36d5e34",
        ERPNEXT_NANGO,
    ),
    # ---- encoding ----
    _secret(
        ENC,
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: slurmdbd-db\ntype: Opaque\ndata:\n  StoragePass: Vm9sZ2E/MTc4NQ==",
        "Vm9sZ2E/MTc4NQ==",
        SLURMDBD_UBUNTU,
    ),
    _secret(
        ENC,
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: restic-repo\ndata:\n  RESTIC_PASSWORD: TWFuZ2dhNTQ1OF8=\n  RESTIC_REPOSITORY: czM6aHR0cHM6Ly9taW5pby5sYWIvcmVzdGlj",
        "TWFuZ2dhNTQ1OF8=",
        RESTIC_ENV,
    ),
    _secret(
        ENC,
        "AUTHENTIK_POSTGRESQL__URL=postgresql://authentik:Sakura%2F805%3FX5Gk@postgresql:5432/authentik",
        "Sakura%2F805%3FX5Gk",
        AK_COMPOSE,
    ),
    _secret(
        ENC,
        "$ restic -r 'rest:https://laptop:Kilimanjaro%3A914%3FNxUq@backup.example.net:8000/laptop/' check",
        "Kilimanjaro%3A914%3FNxUq",
        RESTIC_INIT,
    ),
    _secret(
        ENC,
        '<property name="Password">Dragonfruit&amp;751?mml4</property>\n<property name="Username">nifi-flow</property>',
        "Dragonfruit&amp;751?mml4",
        NIFI_PROPS,
    ),
    _secret(
        ENC,
        '$ php -r \'echo json_encode($tok);\'\n{"access_token":"4qzE18p8nkkOVyZ4+oPeCWUr1N7oyt+TTe6FedFw6Ft1sF7PYJqPtq2xRDcj6X2YNCHETKyitlryIcQTQZnTAsu8MSuPfitXZ62nW8BU+y5KWgLt\\/n5CcFRn\\/MNE0FDZTFjppDdAg3S6BaVM0fA5xo4HYRFWaNXY3GuOrs+1sKiy","expires_in":2592000,"token_type":"Bearer"}',
        "4qzE18p8nkkOVyZ4+oPeCWUr1N7oyt+TTe6FedFw6Ft1sF7PYJqPtq2xRDcj6X2YNCHETKyitlryIcQTQZnTAsu8MSuPfitXZ62nW8BU+y5KWgLt\\/n5CcFRn\\/MNE0FDZTFjppDdAg3S6BaVM0fA5xo4HYRFWaNXY3GuOrs+1sKiy",
        LINE_SDK,
    ),
    _secret(
        ENC,
        '{"level":"debug","msg":"config loaded","smtp":{"user":"noreply@example.org","password":"Lisboa\\\\243\\"6cQ4g"}}',
        'Lisboa\\\\243\\"6cQ4g',
        AK_DISCUSS,
    ),
    _secret(
        ENC,
        '"{\\"api_key\\": \\"TL28vNzfJ67ITkI7SI4bOu6oBP4NwszPR2Rr6BCcwHG0PoZFs2hjD1n6oapG\\", \\"to\\": \\"2347880234567\\"}"',
        "TL28vNzfJ67ITkI7SI4bOu6oBP4NwszPR2Rr6BCcwHG0PoZFs2hjD1n6oapG",
        TERMII_MSG,
    ),
    _secret(
        ENC,
        "$ curl -X POST https://api.line.me/v2/oauth/revoke -H 'Content-Type: application/x-www-form-urlencoded' -d 'access_token=%2FPg1mNkfk5JXXeWmzaim5mTxmy8zc%2BfT0eKApPEk132W9i7Qb4l3jCz%2F3znkKTSAN0L9wLMi9vNGy2Lgp0K0BH2DCBulYCCQOxGLi0nZqssc0Lw26ykiTeYKij827EZkNlteIBFQ%2FAV7ynzzscT4URcz8Uq9kF9%2Fji9eyP3%2B4jY3'",
        "%2FPg1mNkfk5JXXeWmzaim5mTxmy8zc%2BfT0eKApPEk132W9i7Qb4l3jCz%2F3znkKTSAN0L9wLMi9vNGy2Lgp0K0BH2DCBulYCCQOxGLi0nZqssc0Lw26ykiTeYKij827EZkNlteIBFQ%2FAV7ynzzscT4URcz8Uq9kF9%2Fji9eyP3%2B4jY3",
        LINE_TOKEN,
    ),
    _secret(
        ENC,
        "Authorization: Basic c5C+eeBVL5pV/5jDYDJJ1yD7bmLxRISI72pBl9bkiTrDkJID3xGGVl1bk7Wmx2fA\n# base64(consumer_key:consumer_secret) for the Daraja OAuth call",
        "c5C+eeBVL5pV/5jDYDJJ1yD7bmLxRISI72pBl9bkiTrDkJID3xGGVl1bk7Wmx2fA",
        DARAJA,
    ),
    _secret(
        ENC,
        "<ServerConfiguration>\n  <SmtpUsername>jellyfin@example.org</SmtpUsername>\n  <SmtpPassword>Kartofel%136&amp;L4Nb</SmtpPassword>\n</ServerConfiguration>",
        "Kartofel%136&amp;L4Nb",
        JELLY_GIST,
    ),
    _secret(
        ENC,
        "echo 'cGVsYW5naS1Jc3RhbmJ1bC03NA==' | base64 -d > /etc/restic/password && chmod 600 /etc/restic/password",
        "cGVsYW5naS1Jc3RhbmJ1bC03NA==",
        RESTIC_ENV,
    ),
    _secret(
        ENC,
        "curl 'https://api.line.me/v2/oauth/accessToken' -d 'grant_type=client_credentials&client_id=2006512345&client_secret=a6731adb93bd06ae4ae15d1292643e6d'",
        "a6731adb93bd06ae4ae15d1292643e6d",
        LINE_TOKEN,
    ),
    _secret(
        ENC,
        'jellyfin_password=$\'pelangiKartofel17!\'\\ncurl -d "{\\"Username\\":\\"admin\\",\\"Pw\\":\\"$jellyfin_password\\"}" ...',
        "pelangiKartofel17!",
        JELLY_MINT,
    ),
    _secret(
        ENC,
        "PASSWORD_B64=S2FydG9mZWxANzI5\n# decoded at start by entrypoint.sh before calling slurmdbd",
        "S2FydG9mZWxANzI5",
        SLURMDBD_GIST,
    ),
    # ---- webhook url ----
    _secret(
        WH,
        "WECOM_WEBHOOK=https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=c39a9cbc-497f-40a1-8b5f-cc0bcb9b1f14",
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=c39a9cbc-497f-40a1-8b5f-cc0bcb9b1f14",
        WECOM_MYNW,
    ),
    _secret(
        WH,
        'curl -X POST \'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=cdb05864-5da9-4e68-9935-ced81c929427\' -H \'Content-Type: application/json\' -d \'{"msgtype":"text","text":{"content":"部署完成"}}\'',
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=cdb05864-5da9-4e68-9935-ced81c929427",
        WECOM,
    ),
    _secret(
        WH,
        'requests.post("https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=0a03312c-7f2d-4def-aa20-6edee442435b", json=payload, timeout=5)',
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=0a03312c-7f2d-4def-aa20-6edee442435b",
        WECOM_MYNW,
    ),
    _secret(
        WH,
        "ALERT_URL=https://oapi.dingtalk.com/robot/send?access_token=e244ee4d2b9ab56399c33e754dcde1f9e4a2b9fdc67ec04880aa3b07073c9911",
        "https://oapi.dingtalk.com/robot/send?access_token=e244ee4d2b9ab56399c33e754dcde1f9e4a2b9fdc67ec04880aa3b07073c9911",
        WECOM,
    ),
    _secret(
        WH,
        "notify:\n  feishu: https://open.feishu.cn/open-apis/bot/v2/hook/d0ee053d-61eb-49f0-9f59-72b123ca5326",
        "https://open.feishu.cn/open-apis/bot/v2/hook/d0ee053d-61eb-49f0-9f59-72b123ca5326",
        WECOM,
    ),
    _secret(
        WH,
        "vnp_ReturnUrl=https://shop.example.vn/vnpay/return?token=wokrXICQfq6tjTbGUsL9UdYY74ZSDHqd",
        "wokrXICQfq6tjTbGUsL9UdYY74ZSDHqd",
        VNPAY_PAY,
    ),
    _secret(
        WH,
        '"callback_url": "https://duka.shopmtaani.co.ke/api/mpesa/callback/6wWycZGAPNc4iv_PJPj6eRAUTbA7af04RrSec-ZR",',
        "https://duka.shopmtaani.co.ke/api/mpesa/callback/6wWycZGAPNc4iv_PJPj6eRAUTbA7af04RrSec-ZR",
        DARAJA,
    ),
    _secret(
        WH,
        "Moyasar webhook endpoint: https://hooks.example.sa/moyasar?secret_token=RSXX7vyTTJOBxh2qUdD9A0w3dNQNgOzG",
        "RSXX7vyTTJOBxh2qUdD9A0w3dNQNgOzG",
        MOYASAR_KEYS,
    ),
    _secret(
        WH,
        "server_url: https://api.example.ua/liqpay/callback?sig_key=mdQNpf0DiZCE3XKZWuayoyUrMetPt24E",
        "mdQNpf0DiZCE3XKZWuayoyUrMetPt24E",
        LIQPAY_RUBY,
    ),
    _secret(
        WH,
        "- name: notify\n  put: slack-alert\n  params:\n    url: https://hooks.slack.com/services/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",
        "https://hooks.slack.com/services/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",
        CONCOURSE_SET,
    ),
    _secret(
        WH,
        "Jellyfin Webhook plugin > Discord: https://discord.com/api/webhooks/3937057844413489141/vq44XRMBqQk923cW6xcPbTLuc0dwe85EC-CWWbfMufaQ5X2QfX3SZBZA9-mqqcTzt0a6",
        "https://discord.com/api/webhooks/3937057844413489141/vq44XRMBqQk923cW6xcPbTLuc0dwe85EC-CWWbfMufaQ5X2QfX3SZBZA9-mqqcTzt0a6",
        JELLY_EVA,
    ),
    _secret(
        WH,
        "ERPNext Webhook -> https://erp-sync.example.com/hooks/frappe?auth=f0fe0da0432af6d50e9a210e16f92e1cd6dee30a",
        "f0fe0da0432af6d50e9a210e16f92e1cd6dee30a",
        FRAPPE_MINT,
    ),
    _secret(
        WH,
        'slurm epilog: curl -s -X POST https://ntfy.example.org/hpc-jobs?auth=ADHEWaWM_zRMwq4aCv7-BxPy0_rDNFeaTKNg0kIk -d "job $SLURM_JOB_ID done"',
        "ADHEWaWM_zRMwq4aCv7-BxPy0_rDNFeaTKNg0kIk",
        SLURMDBD_UBUNTU,
    ),
    _secret(
        WH,
        "shopee push callback: https://sync.example.tw/shopee/push?verify=cdbfba01a87e96e865b890e0e26aac97",
        "cdbfba01a87e96e865b890e0e26aac97",
        SHOPEE_PHP,
    ),
    # ---- signing and build tools ----
    _secret(
        SIGN,
        "$ mender-artifact sign artifact.mender -k private.key\n$ cat private.key\n-----BEGIN EC PRIVATE KEY-----\nI01k6r1W6a267nnSHRDIH83Tz3wBn2Kj42wNY+5TVUFayS0eizkoTm9wMZIPNEjG\nN3a4a9glMmE5ZFLZXxRP/BtmGM0BY62l1GQvFGZfvdnMx8ZsaL2Y1VobHzU7p8n2\n8DFTycsGGJgVsVKznzV81MpmT5EWOwjGjA==\n-----END EC PRIVATE KEY-----",
        "-----BEGIN EC PRIVATE KEY-----\nI01k6r1W6a267nnSHRDIH83Tz3wBn2Kj42wNY+5TVUFayS0eizkoTm9wMZIPNEjG\nN3a4a9glMmE5ZFLZXxRP/BtmGM0BY62l1GQvFGZfvdnMx8ZsaL2Y1VobHzU7p8n2\n8DFTycsGGJgVsVKznzV81MpmT5EWOwjGjA==\n-----END EC PRIVATE KEY-----",
        MENDER_BBB,
    ),
    _secret(
        SIGN,
        'MENDER_ARTIFACT_SIGNING_KEY = "${TOPDIR}/keys/private.key"\nMENDER_TENANT_TOKEN = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI5MjgzOTMiLCJpYXQiOjE3NjUxODQ3NDIsImp0aSI6ImM4YzU2MjU0MTMxYWRjZjMifQ.i4VJwip7b3RpXHAZLJzgTX6CN8Gcd4Rb6gNAf_r96dBBPddtmNe5A_y5TFGGSpS-meQjVd8i2o3J5l1Cr8yk_5cfcwps-USfCEkxCvJxCkd9Gg_2enc"',
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI5MjgzOTMiLCJpYXQiOjE3NjUxODQ3NDIsImp0aSI6ImM4YzU2MjU0MTMxYWRjZjMifQ.i4VJwip7b3RpXHAZLJzgTX6CN8Gcd4Rb6gNAf_r96dBBPddtmNe5A_y5TFGGSpS-meQjVd8i2o3J5l1Cr8yk_5cfcwps-USfCEkxCvJxCkd9Gg_2enc",
        MENDER_BBCLASS,
    ),
    _secret(
        SIGN,
        "$ rpm --define '_gpg_name Build Signing <release@example.org>' --define '_gpg_sign_cmd_extra_args --batch --pinentry-mode loopback --passphrase Zitrone6384.' --addsign dist/*.rpm",
        "Zitrone6384.",
        RPMSIGN,
    ),
    _secret(
        SIGN,
        "%_gpg_name Build Signing <release@example.org>\n%_gpg_passphrase Zanzibar8871!",
        "Zanzibar8871!",
        RPMSIGN,
    ),
    _secret(
        SIGN,
        "$ echo 'kopi-Falafel-75' | gpg --batch --passphrase-fd 0 --pinentry-mode loopback --detach-sign repodata/repomd.xml",
        "kopi-Falafel-75",
        RPMSIGN,
    ),
    _secret(
        SIGN,
        '# local.conf\nMENDER_SERVER_URL = "https://hosted.mender.io"\nMENDER_TENANT_TOKEN = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI4MTI4MjciLCJpYXQiOjE3NjUwNjcwOTAsImp0aSI6ImE3YmE5ZGU5NWM0ZTQzMzYifQ.ZjZjHPqPg7dXzjQNi7uP6tiMtrseErABD_K6qM6sh-fd6aIcd13B9T2bVMTIcWr05gSqXlsZ224ZmNnlDgR9fqWFNY9eSbC8YN9EQe1MaLDXjHh-kCs"',
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI4MTI4MjciLCJpYXQiOjE3NjUwNjcwOTAsImp0aSI6ImE3YmE5ZGU5NWM0ZTQzMzYifQ.ZjZjHPqPg7dXzjQNi7uP6tiMtrseErABD_K6qM6sh-fd6aIcd13B9T2bVMTIcWr05gSqXlsZ224ZmNnlDgR9fqWFNY9eSbC8YN9EQe1MaLDXjHh-kCs",
        MENDER_CREATE,
    ),
    _secret(
        SIGN,
        "$ openssl ec -in private-and-params.key -out private.key -passout pass:mangga-Zanzibar-69",
        "mangga-Zanzibar-69",
        MENDER_BBB,
    ),
    _secret(
        SIGN,
        'signing {\n    keyId = "0x5A1B2C3D"\n    password = "Dragonfruit6702."\n    secretKeyRingFile = "/home/ci/.gnupg/secring.gpg"\n}',
        "Dragonfruit6702.",
        KEYCLOAK_KEYS,
    ),
    _secret(
        SIGN,
        "<profile>\n  <id>release</id>\n  <properties>\n    <gpg.keyname>861AB50E</gpg.keyname>\n    <gpg.passphrase>Bratislava5589.</gpg.passphrase>\n  </properties>\n</profile>",
        "Bratislava5589.",
        KEYCLOAK_KEYS,
    ),
    _secret(
        SIGN,
        'MENDER_ARTIFACT_EXTRA_ARGS = "--key-pass istanbulGirasol51$"',
        "istanbulGirasol51$",
        MENDER_BBCLASS,
    ),
    _secret(
        SIGN,
        "$ ssh-keygen -b 3072 -t rsa -f signkey -N 'dragonfruitSakura66*'\n$ ./mender-artifact write rootfs-image --key signkey -o test.mender",
        "dragonfruitSakura66*",
        MENDER_CERTS,
    ),
    _secret(
        SIGN,
        'bitbake: PREMIRRORS:prepend = "git://.*/.* https://ci-bot:m4aFAf1g1Wi7JCIu9FICZC9LLrV43Dhn@artifactory.cluster/yocto_source_mirror/"',
        "m4aFAf1g1Wi7JCIu9FICZC9LLrV43Dhn",
        YOCTO_GIST,
    ),
    _secret(
        SIGN,
        "$ export GPG_PASSPHRASE='sunflowerOsaka53-'\n$ rpmsign --addsign --key-id 7F4A1C22 build/RPMS/x86_64/*.rpm",
        "sunflowerOsaka53-",
        RPMSIGN,
    ),
    _secret(
        SIGN,
        "$ gpg --batch --pinentry-mode loopback --passphrase 'Sakura8547-' --quick-gen-key 'Build Signing <release@example.org>' rsa4096 sign 2y",
        "Sakura8547-",
        RPMSIGN,
    ),
    # ---- source literal ----
    _secret(
        SRC,
        'const val DUFFEL_TOKEN = "duffel_live_yGDlgNqS4MIs4VyVZS_D8lSZsF5-v-YraHIUzfVNj09"  // Kotlin, booking-service/Config.kt',
        "duffel_live_yGDlgNqS4MIs4VyVZS_D8lSZsF5-v-YraHIUzfVNj09",
        DUFFEL_MCP,
    ),
    _secret(
        SRC,
        'let moyasarSecret = "sk_live_JLGyITOjFMW6UYaRgZhwOql4dPe6oSBg7a1SMo55"  // Swift, PaymentsAPI.swift',
        "sk_live_JLGyITOjFMW6UYaRgZhwOql4dPe6oSBg7a1SMo55",
        MOYASAR_AUTH,
    ),
    _secret(
        SRC,
        'var partnerKey = []byte("8c6bb624ae1f9207bef608b48154319cf7b7bfe7204171fd8839e962402fcfe5") // Go: shopee/sign.go\nmac := hmac.New(sha256.New, partnerKey)',
        "8c6bb624ae1f9207bef608b48154319cf7b7bfe7204171fd8839e962402fcfe5",
        SHOPEE_SIGN,
    ),
    _secret(
        SRC,
        'const NCBI_API_KEY: &str = "72f708d9c1080b3015ad3e5974bb09ae9d2d"; // Rust, src/entrez.rs',
        "72f708d9c1080b3015ad3e5974bb09ae9d2d",
        EUTILS,
    ),
    _secret(
        SRC,
        'private const string VnpHashSecret = "YF1B87107UA7TWU2PWXKUVTF3Y2H81P4"; // C#, VnPayLibrary.cs',
        "YF1B87107UA7TWU2PWXKUVTF3Y2H81P4",
        VNPAY_HASH,
    ),
    _secret(
        SRC,
        'let termiiKey = "TLGxEISdMfSo4zdm936RSOnmcmRrPwPmnSOrQJQQizo1BOxczlZ6M9UQ6UKG" // F#, Sms.fs',
        "TLGxEISdMfSo4zdm936RSOnmcmRrPwPmnSOrQJQQizo1BOxczlZ6M9UQ6UKG",
        TERMII_MSG,
    ),
    _secret(
        SRC,
        'val jellyfinApiKey = "8eb70b8cfd9d38e5798f300cbe120e1d" // Scala, MediaSync.scala',
        "8eb70b8cfd9d38e5798f300cbe120e1d",
        JELLY_GIST,
    ),
    _secret(
        SRC,
        'config :linebot, channel_secret: "a956a9c56310b52b3febbf35d3f5b635"  # Elixir, config/prod.exs',
        "a956a9c56310b52b3febbf35d3f5b635",
        LINEBOT_EX,
    ),
    _secret(
        SRC,
        '(def mpesa-passkey "327eb22a95e3ebf97a359462af151b051793ead9e11cbad9a45f19d451f0040d") ; Clojure, src/payments/mpesa.clj',
        "327eb22a95e3ebf97a359462af151b051793ead9e11cbad9a45f19d451f0040d",
        DARAJA,
    ),
    _secret(
        SRC,
        'local msg91_authkey = "181110Appyo2glyu6kYehtA6" -- Lua, otp.lua',
        "181110Appyo2glyu6kYehtA6",
        MSG91_NPM,
    ),
    _secret(
        SRC,
        'Sys.setenv(ENTREZ_KEY = "a4425eb3cb2c9bdb3ae0227e40cd00b0d0cc")  # R, analysis/fetch_genes.R',
        "a4425eb3cb2c9bdb3ae0227e40cd00b0d0cc",
        NCBI_KB2,
    ),
    _secret(
        SRC,
        'const STORAGE_PASS = "Bratislava2680+"  # Julia, scripts/slurm_report.jl',
        "Bratislava2680+",
        SLURMDBD_UBUNTU,
    ),
    _secret(
        SRC,
        "my $liqpay_private = 'sandbox_me8Gphzt0r3r8K7xpHSWFZtdASRbDihoBDCwblOt';  # Perl, lib/Shop/Pay.pm",
        "sandbox_me8Gphzt0r3r8K7xpHSWFZtdASRbDihoBDCwblOt",
        LIQPAY_RUBY,
    ),
    _secret(
        SRC,
        "$resticPassword = ConvertTo-SecureString 'monsoonKopi34$' -AsPlainText -Force  # PowerShell, backup.ps1",
        "monsoonKopi34$",
        RESTIC_ENV,
    ),
    _secret(
        SRC,
        "final liqPay = LiqPay('sandbox_i36127916617', 'sandbox_SJXUc2l0dDKapaPU3ojClZYrWw5WO3OjbDf40iDi'); // Dart",
        "sandbox_SJXUc2l0dDKapaPU3ojClZYrWw5WO3OjbDf40iDi",
        LIQPAY_DART,
    ),
    _secret(
        SRC,
        "$partnerKey = '82660344139fb5598ca8ba004908ae1f6445f50b330b8ef74681bc5ac14f69ef'; // PHP\n$sign = hash_hmac('sha256', $base_string, $partnerKey, false);",
        "82660344139fb5598ca8ba004908ae1f6445f50b330b8ef74681bc5ac14f69ef",
        SHOPEE_ITHOME,
    ),
    _secret(
        SRC,
        'Msg91sms.configure do |config|\n  config.authkey = "457726AC7BEHLqfX5Ace0cVZ"\nend',
        "457726AC7BEHLqfX5Ace0cVZ",
        MSG91_RUBY,
    ),
    _secret(
        SRC,
        'client = FrappeClient(url="https://erp.example.com", api_key=os.environ["ERP_API_KEY"], api_secret="ad83b365c14e0fa")',
        "ad83b365c14e0fa",
        FRAPPE_MINT,
    ),
    # ==== look-alikes: placeholders and references ====
    _benign(
        PH,
        '{"to": "2347089509111", "sms": "Hi there, testing Termii", "api_key": "Your API Key"}',
        "Your API Key",
        "Documentation placeholder text in the api_key field, not a key.",
        TERMII_NUM,
    ),
    _benign(
        PH,
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/einfo.fcgi?db=pubmed&api_key=ABCD123",
        "ABCD123",
        "The documented example value from the NCBI help article; too short and published as an illustration.",
        NCBI_KB,
    ),
    _benign(
        PH,
        '"env": {\n  "API_KEY": "YOUR_NCBI_API_KEY"\n}',
        "YOUR_NCBI_API_KEY",
        "Upper-case placeholder naming what to paste.",
        NCBI_MCP,
    ),
    _benign(
        PH,
        "Authorization: Bearer <YOUR_ACCESS_TOKEN>\nDuffel-Version: v2",
        "<YOUR_ACCESS_TOKEN>",
        "Angle-bracket placeholder in the Duffel request template.",
        DUFFEL_AUTH,
    ),
    _benign(
        PH,
        "MPESA_CONSUMER_KEY=paste_your_consumer_key_here\nMPESA_CONSUMER_SECRET=paste_your_consumer_secret_here",
        "paste_your_consumer_secret_here",
        "Instructional placeholder in an .env template.",
        DARAJA,
    ),
    _benign(
        PH,
        '{"key": "secret_key", "value": "sk_test_xxx", "type": "secret", "enabled": true}',
        "sk_test_xxx",
        "Moyasar's published Postman environment uses xxx as a stand-in after the prefix.",
        MOYASAR_POSTMAN,
    ),
    _benign(
        PH,
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        "UUID-shaped mask of x characters in a how-to article.",
        WECOM_MYNW,
    ),
    _benign(
        PH,
        "AUTHENTIK_SECRET_KEY: ${AUTHENTIK_SECRET_KEY:?secret key required}\nAUTHENTIK_POSTGRESQL__PASSWORD: ${PG_PASS}",
        "${AUTHENTIK_SECRET_KEY:?secret key required}",
        "Compose variable interpolation; the value comes from .env at run time.",
        AK_COMPOSE,
    ),
    _benign(
        PH,
        "source:\n  uri: git@github.com:example/private-repo.git\n  private_key: ((private-repo-key))",
        "((private-repo-key))",
        "Concourse var reference resolved from a credential manager.",
        CONCOURSE_SET,
    ),
    _benign(
        PH,
        'curl -s -H "Authorization: MediaBrowser Token=$JELLYFIN_API_KEY" http://192.168.1.114:8096/System/Info',
        "$JELLYFIN_API_KEY",
        "Shell variable reference, not the key itself.",
        JELLY_EVA,
    ),
    _benign(
        PH,
        "headers = {'Authorization': \"token <api_key>:<api_secret>\"}",
        "token <api_key>:<api_secret>",
        "Frappe documentation template with angle-bracket placeholders.",
        FRAPPE_MINT,
    ),
    _benign(
        PH,
        'Msg91sms.configure do |config|\n  config.authkey = "Put your msg94 authkey here"\nend',
        "Put your msg94 authkey here",
        "Placeholder sentence from the gem README.",
        MSG91_RUBY,
    ),
    _benign(
        PH,
        "StoragePass=password\n#StorageLoc=slurm_acct_db",
        "password",
        "The literal word 'password' left in a published example slurmdbd.conf.",
        SLURMDBD_GIST,
    ),
    _benign(
        PH,
        'partner_key = ""\nbase_string = "%s%s%s"%(partner_id, path, timest)',
        'partner_key = ""',
        "Empty string assignment; no key present.",
        SHOPEE_TENCENT,
    ),
    _benign(
        PH,
        "channel_secret: 请在此填写您的频道密钥\nchannel_access_token: 请在此填写访问令牌",
        "请在此填写您的频道密钥",
        "Chinese placeholder text ('fill in your channel secret here').",
        LINE_NODERED,
    ),
    _benign(
        PH,
        "LINE_CHANNEL_SECRET=ここにチャネルシークレットを入力",
        "ここにチャネルシークレットを入力",
        "Japanese placeholder ('enter the channel secret here').",
        LINE_TOKEN,
    ),
    _benign(
        PH,
        "vnp_HashSecret=CHUOI_BI_MAT_CUA_BAN  # thay bằng chuỗi bí mật do VNPAY cấp",
        "CHUOI_BI_MAT_CUA_BAN",
        "Vietnamese upper-case placeholder ('your secret string').",
        VNPAY_GUIDE,
    ),
    _benign(
        PH,
        '"merchant_id": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",\n"amount": "1100",',
        "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        "Masked merchant id in the Zarinpal PHP sample.",
        ZARINPAL_DOCS,
    ),
    _benign(
        PH,
        "RESTIC_PASSWORD=ваш_пароль_здесь\nRESTIC_REPOSITORY=/srv/restic-repo",
        "ваш_пароль_здесь",
        "Russian placeholder ('your password here').",
        RESTIC_ENV,
    ),
    _benign(
        PH,
        'MENDER_ARTIFACT_SIGNING_KEY ?= ""\nMENDER_ARTIFACT_EXTRA_ARGS ?= ""',
        'MENDER_ARTIFACT_SIGNING_KEY ?= ""',
        "BitBake weak default of an empty value.",
        MENDER_BBCLASS,
    ),
    _benign(
        PH,
        "MPESA_BUSINESS_SHORT_CODE=174379\nMPESA_PASSKEY=bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919  # Daraja sandbox default",
        "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
        "The well-known public sandbox passkey for shortcode 174379, published for every Daraja developer.",
        DARAJA,
    ),
    # ==== look-alikes: ids and uuids ====
    _benign(
        IDS,
        '{\n  "request_id": "5e82043c27318f70007e4aca894f1365",\n  "error": "error_auth"\n}',
        "5e82043c27318f70007e4aca894f1365",
        "Shopee request id echoed in an error body for support tracing.",
        SHOPEE_TENCENT,
    ),
    _benign(
        IDS,
        '{"message"=>"37666d6d4b4a364443303836", "type"=>"success"}',
        "37666d6d4b4a364443303836",
        "MSG91 message id returned on success.",
        MSG91_RUBY,
    ),
    _benign(
        IDS,
        "$ restic init --repo /tmp/backup\ncreated restic backend 085b3c76b9 at /tmp/backup",
        "085b3c76b9",
        "Short repository id printed by restic init.",
        RESTIC_INIT,
    ),
    _benign(
        IDS,
        '{"User": {"Name": "admin", "Id": "b572b3ae-a09a-4757-a12d-e5e1eccb7563", "HasPassword": true}}',
        "b572b3ae-a09a-4757-a12d-e5e1eccb7563",
        "Jellyfin user id; identifies the account, grants nothing.",
        JELLY_MINT,
    ),
    _benign(
        IDS,
        "vnp_TmnCode=DEMOV210&vnp_TxnRef=5&vnp_Version=2.1.0",
        "DEMOV210",
        "VNPay terminal (merchant website) code, sent in every public payment URL.",
        VNPAY_GUIDE,
    ),
    _benign(
        IDS,
        "partner_id=2001887&shop_id=801234567&timestamp=1594897040",
        "2001887",
        "Shopee partner id, public in the authorization URL.",
        SHOPEE_ITHOME,
    ),
    _benign(
        IDS,
        "x-request-id: Fs1f0Zp8kQ2bLxAAAB6h",
        "Fs1f0Zp8kQ2bLxAAAB6h",
        "Per-response request id header from Duffel.",
        DUFFEL_AUTH,
    ),
    _benign(
        IDS,
        '"id": "off_0000IEFCFL79RAQ2L6DUKJ", "total_amount": "412.90", "total_currency": "GBP"',
        "off_0000IEFCFL79RAQ2L6DUKJ",
        "Duffel offer id, an object identifier.",
        DUFFELBAG,
    ),
    _benign(
        IDS,
        '{"merchant_id": "1344b5d4-0048-11e8-94db-005056a205be", "amount": 10000}',
        "1344b5d4-0048-11e8-94db-005056a205be",
        "Merchant id printed in Zarinpal's public documentation sample.",
        ZARINPAL,
    ),
    _benign(
        IDS,
        "Submitted batch job 4821937\n$ sacct -j 4821937 --format=JobID,State,Elapsed",
        "4821937",
        "Slurm job id.",
        SLURMDBD_UBUNTU,
    ),
    _benign(
        IDS,
        "Device ID: 0eb013372d45deacb6fff168  status: accepted  device_type: beaglebone",
        "0eb013372d45deacb6fff168",
        "Mender device id shown in the device list.",
        MENDER_DEVAUTH,
    ),
    _benign(
        IDS,
        'Authorization: MediaBrowser Client="MyApp", Device="MyDevice", DeviceId="5504302c8352ab216e6e9270ae01cab8", Version="1.0.0"',
        "5504302c8352ab216e6e9270ae01cab8",
        "Client-generated device id; the header carries no token here.",
        JELLY_GIST,
    ),
    _benign(
        IDS,
        "GET /api/resource/Sales%20Invoice/ACC-SINV-2026-00042 HTTP/1.1",
        "ACC-SINV-2026-00042",
        "ERPNext document name.",
        ERPNEXT_NANGO,
    ),
    _benign(
        IDS,
        '"key_id": "QULdXfa8z92NIciCQJdCKE", "expires_in": 2592000',
        "QULdXfa8z92NIciCQJdCKE",
        "LINE key_id identifies which channel access token was issued; it is not the token.",
        LINE_SDK,
    ),
    _benign(
        IDS,
        '{"id": "4009fc22-9268-450d-8b31-243b3ea27f52", "status": "paid", "amount": 10000, "currency": "SAR"}',
        "4009fc22-9268-450d-8b31-243b3ea27f52",
        "Moyasar payment id used for reconciliation.",
        MOYASAR_KEYS,
    ),
    _benign(
        IDS,
        '"authority": "A00000000000000000000000000217885159", "code": 100',
        "A00000000000000000000000000217885159",
        "Zarinpal payment authority, a per-transaction reference.",
        ZARINPAL_DOCS,
    ),
    _benign(
        IDS,
        "CheckoutRequestID: ws_CO_18070912259983972694\nMerchantRequestID: 29115-34620561-1",
        "ws_CO_18070912259983972694",
        "M-Pesa STK push request id.",
        DARAJA,
    ),
    _benign(
        IDS,
        "channel: LINE Messaging API  Channel ID: 2006512345",
        "2006512345",
        "Numeric LINE channel id, shown alongside but distinct from the channel secret.",
        LINE_NODERED,
    ),
    # ==== look-alikes: code naming a secret ====
    _benign(
        CODE,
        "$credentials = new Credentials(\n    partnerId: 2001887,\n    partnerKey: getenv('SHOPEE_PARTNER_KEY'),\n);",
        "getenv('SHOPEE_PARTNER_KEY')",
        "Reads the partner key from the environment; no value in source.",
        SHOPEE_PHP,
    ),
    _benign(
        CODE,
        'ec = Client(api_key=os.environ.get("NCBI_API_KEY", None))',
        'os.environ.get("NCBI_API_KEY", None)',
        "Environment lookup of the NCBI key.",
        EUTILS,
    ),
    _benign(
        CODE,
        'const signRequest = (partner_key, params) => {\n  return crypto.createHmac("sha256", partner_key).update(baseString).digest("hex");\n};',
        'crypto.createHmac("sha256", partner_key)',
        "Parameter named partner_key passed through; no literal.",
        SHOPEE_SIGN,
    ),
    _benign(
        CODE,
        "constructor({ host, partner_id, partner_key, redirect }: {\n  partner_key: string;\n  redirect: string;\n});",
        "partner_key: string;",
        "TypeScript type declaration of a field.",
        SHOPEE_TS,
    ),
    _benign(
        CODE,
        'def get_headers() -> dict[str, str]:\n    return {"Authorization": f"Bearer {get_api_token()}", "Duffel-Version": API_VERSION}',
        'f"Bearer {get_api_token()}"',
        "f-string that calls a getter at run time.",
        DUFFEL_MCP,
    ),
    _benign(
        CODE,
        "Linebot.channel_secret()\nLinebot.channel_access_token()",
        "Linebot.channel_secret()",
        "Elixir function names from the linebot docs.",
        LINEBOT_EX,
    ),
    _benign(
        CODE,
        "LiqPay(this.publicKey, this.privateKey);\nfinal String privateKey;",
        "final String privateKey;",
        "Dart field declaration.",
        LIQPAY_DART,
    ),
    _benign(
        CODE,
        "def initialize(options = {})\n  @public_key = options[:public_key]\n  @private_key = options[:private_key]\nend",
        "@private_key = options[:private_key]",
        "Ruby instance variable assigned from an options hash.",
        LIQPAY_RUBY,
    ),
    _benign(
        CODE,
        'RESTIC_PASSWORD_COMMAND="pass show infra/restic/nas01"',
        "pass show infra/restic/nas01",
        "Command that prints the password at run time; the path names an entry.",
        RESTIC_ENV,
    ),
    _benign(
        CODE,
        "$ restic -r /srv/restic-repo --password-file /etc/restic/password backup /home",
        "--password-file /etc/restic/password",
        "Path to a password file, not its content.",
        RESTIC_ENV,
    ),
    _benign(
        CODE,
        "nifi.security.keystorePasswd=\nnifi.security.keyPasswd=\nnifi.security.truststorePasswd=",
        "nifi.security.keystorePasswd=",
        "Empty property left blank by default.",
        NIFI_PROPS,
    ),
    _benign(
        CODE,
        'params {\n    password("password", "credentialsJson:abc")\n}',
        "credentialsJson:abc",
        "TeamCity secure-value reference token from the docs, pointing at stored credentials.",
        TEAMCITY_PARAMS,
    ),
    _benign(
        CODE,
        "jobs:\n- name: hello-world\n  plan:\n  - task: say-hello\n    params:\n      SYS_PASSWORD: ((vault-system-password))",
        "((vault-system-password))",
        "Concourse var resolved from Vault.",
        CONCOURSE_VAULT,
    ),
    _benign(
        CODE,
        "POSTGRES_PASSWORD: ${PG_PASS:?database password required}",
        "${PG_PASS:?database password required}",
        "Required-variable expansion with an error message.",
        AK_COMPOSE,
    ),
    _benign(
        CODE,
        'echo "PG_PASS=$(pwgen -s 40 1)" >> .env\necho "AUTHENTIK_SECRET_KEY=$(pwgen -s 50 1)" >> .env',
        "$(pwgen -s 50 1)",
        "Command substitution that generates the key when run.",
        AK_IBRA,
    ),
    _benign(
        CODE,
        "openssl rand -hex 32 # BETTER_AUTH_SECRET, ENCRYPTION_KEY, SCREEN_PROXY_SECRET",
        "openssl rand -hex 32",
        "Generator command, not a generated value.",
        RAKAZO,
    ),
    _benign(
        CODE,
        "msg91.initialize({authKey: process.env.MSG91_AUTH_KEY});",
        "process.env.MSG91_AUTH_KEY",
        "Node environment lookup.",
        MSG91_NPM,
    ),
    # ==== look-alikes: hashes and digests ====
    _benign(
        HASH,
        "vnp_TxnRef=5&vnp_Version=2.1.0&vnp_SecureHash=c6df9753ad53b2860a14247782d91f395c2655b832fc5c00b92fb29ff56639786b3b0912aad840d32abcc795b8d57ca6bba66f22a7703e50f876d3fe23b0a508",
        "c6df9753ad53b2860a14247782d91f395c2655b832fc5c00b92fb29ff56639786b3b0912aad840d32abcc795b8d57ca6bba66f22a7703e50f876d3fe23b0a508",
        "HMAC-SHA512 checksum of the query; sent openly in the payment URL, it does not reveal the hash secret.",
        VNPAY_HASH,
    ),
    _benign(
        HASH,
        "https://partner.shopeemobile.com/api/v2/shop/auth_partner?partner_id=2001887&redirect=https://www.example.com/&sign=d93052a78687092b5173c17c094b57518cb8413c1b0adcf977507f887f0c3bc3&timestamp=1594897040",
        "d93052a78687092b5173c17c094b57518cb8413c1b0adcf977507f887f0c3bc3",
        "HMAC-SHA256 request signature; valid only for this timestamp and path.",
        SHOPEE_ITHOME,
    ),
    _benign(
        HASH,
        "commit 570d2af87adb8bc4b98676e68fe61686f4564341\nAuthor: Scott Ellis",
        "570d2af87adb8bc4b98676e68fe61686f4564341",
        "Git commit SHA.",
        MENDER_BBB,
    ),
    _benign(
        HASH,
        "861ab50e8cc6611fb6bc01a6b8f12ea26fd6eeba  Keycloak Bot keycloak.bot@gmail.com  Maven artifacts after January 2024",
        "861ab50e8cc6611fb6bc01a6b8f12ea26fd6eeba",
        "OpenPGP key fingerprint of a public signing key.",
        KEYCLOAK_KEYS,
    ),
    _benign(
        HASH,
        "enable secret 9 $9$HLzLU7uZP/kODo$c5b38kY4IwyhskyvtobVbDyNvXTkBfZrN43HZ7wuCT4",
        "$9$HLzLU7uZP/kODo$c5b38kY4IwyhskyvtobVbDyNvXTkBfZrN43HZ7wuCT4",
        "Type 9 (scrypt) password hash stored by IOS; not the password.",
        DELL_SNMP,
    ),
    _benign(
        HASH,
        "set system login user ops authentication encrypted-password '$6$zXLbvTzsNTbn2b1Y$rTtuzcAk0ntAvT9OSgap2VMyZGnxTGdrjA/cgJddvt61XtfW7XDLKp7htKNotg0UG.QaRROPYAeTNZkikHmzEQ'",
        "$6$zXLbvTzsNTbn2b1Y$rTtuzcAk0ntAvT9OSgap2VMyZGnxTGdrjA/cgJddvt61XtfW7XDLKp7htKNotg0UG.QaRROPYAeTNZkikHmzEQ",
        "SHA-512 crypt hash as Junos/VyOS store it.",
        JUNIPER_LOGIN,
    ),
    _benign(
        HASH,
        "4138f423759165cf02d7fbb2bb7758876485e5fb32d2f32d9c6c3a35cc6c539d  core-image-full-cmdline-raspberrypi3.ext4",
        "4138f423759165cf02d7fbb2bb7758876485e5fb32d2f32d9c6c3a35cc6c539d",
        "sha256sum line for a rootfs image.",
        MENDER_CREATE,
    ),
    _benign(
        HASH,
        "<input type='hidden' name='signature' value='vOFEkkVvalKIY7P8QZUzanNGJc8='/>",
        "vOFEkkVvalKIY7P8QZUzanNGJc8=",
        "LiqPay form signature: base64 SHA-1 digest over the payload.",
        LIQPAY_RUBY,
    ),
    _benign(
        HASH,
        "image: ghcr.io/goauthentik/server@sha256:2120be43661ceeac71829c035d139fbb6d79f8dfbf5c1b1c729b9b3cfdf8e565",
        "sha256:2120be43661ceeac71829c035d139fbb6d79f8dfbf5c1b1c729b9b3cfdf8e565",
        "Container image digest.",
        AK_COMPOSE,
    ),
    _benign(
        HASH,
        "dist/widget-2.1.0-1.x86_64.rpm: digests signatures OK\n    Header SHA256 digest: OK (0eed2df3d483b406c2360290c4718a7eddea88730ecb00fdc1f4b73d15301c06)",
        "0eed2df3d483b406c2360290c4718a7eddea88730ecb00fdc1f4b73d15301c06",
        "RPM header digest printed by rpm -K.",
        RPMSIGN,
    ),
    _benign(
        HASH,
        "ERROR: pcmx-1.0.0+gitAUTOINC+d09e0b91ae_d09e0b91ae-r0 do_fetch: Function failed: base_do_fetch",
        "d09e0b91ae",
        "Abbreviated git revision inside a BitBake package version.",
        YOCTO_GIST,
    ),
    _benign(
        HASH,
        '"md5": "a00079db8c3d1f11f97ea06a0d703eda", "base64": "BASE64_ENCODED_IMAGE"',
        "a00079db8c3d1f11f97ea06a0d703eda",
        "MD5 of an image payload in a WeCom bot message.",
        WECOM,
    ),
    _benign(
        HASH,
        'SRCREV = "72efd591c4e42ee3214b40ca1f446d93e06557b8"\nPV = "1.0.0+git${SRCPV}"',
        "72efd591c4e42ee3214b40ca1f446d93e06557b8",
        "Pinned git revision in a BitBake recipe.",
        YOCTO_GIST,
    ),
    _benign(
        HASH,
        '<script src="https://cdn.jsdelivr.net/npm/moyasar-payment-form@2.0.16/dist/moyasar.umd.min.js" integrity="sha384-ZaD3kDzfZKM7xywA4XVJhe9+K8IIXoIkoXUuuzNx+Tdca3nWfsX1naJsD8cEnXIH" crossorigin="anonymous"></script>',
        "sha384-ZaD3kDzfZKM7xywA4XVJhe9+K8IIXoIkoXUuuzNx+Tdca3nWfsX1naJsD8cEnXIH",
        "Subresource integrity hash of a public script.",
        MOYASAR_AUTH,
    ),
    _benign(
        HASH,
        "$ rpm -qi widget | grep Signature\nSignature   : RSA/SHA256, Tue 03 Mar 2026 10:11:12 AM UTC, Key ID dacbbb54424a48b0",
        "dacbbb54424a48b0",
        "OpenPGP key id of the signing key, printed for every signed package.",
        RPMSIGN,
    ),
    _benign(
        HASH,
        '"checksum": "sha256:888646b1b8bb6e9f2b0a2856e3c9d0a330533c28c476fd5dd7e443699f8d65dd", "name": "release-1", "device_types": ["beaglebone"]',
        "sha256:888646b1b8bb6e9f2b0a2856e3c9d0a330533c28c476fd5dd7e443699f8d65dd",
        "Artifact payload checksum in Mender metadata.",
        MENDER_CREATE,
    ),
    _benign(
        HASH,
        "restic snapshots\nID        Time                 Host   Paths\nad5f754a  2026-03-05 13:24:10  osw    /var/www/standard",
        "ad5f754a",
        "Short snapshot id (a prefix of the snapshot hash).",
        RESTIC_INIT,
    ),
    # ==== look-alikes: masked values ====
    _benign(
        MASK,
        "MOYASAR_SECRET_KEY=sk_live_****************************************",
        "sk_live_****************************************",
        "Prefix followed only by asterisks; the key body is hidden.",
        MOYASAR_KEYS,
    ),
    _benign(
        MASK,
        "Consumer Secret: ****************************************************************  [Copy Button]",
        "****************************************************************",
        "Dashboard shows the consumer secret masked.",
        DARAJA,
    ),
    _benign(
        MASK,
        '- name: Configure users\n  vyos.vyos.vyos_user: ...\nok: [edge1] => {"configured_password": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"}',
        "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER",
        "Ansible no_log mask in module output.",
        VYOS_ANSIBLE,
    ),
    _benign(
        MASK,
        "Run python search_offers.py\n  env:\n    DUFFEL_ACCESS_TOKEN: ***",
        "***",
        "CI log mask applied by the runner.",
        DUFFELBAG,
    ),
    _benign(
        MASK,
        "nifi.sensitive.props.key=********\nnifi.sensitive.props.algorithm=NIFI_PBKDF2_AES_GCM_256",
        "********",
        "Masked property in a support bundle.",
        NIFI_PROPS,
    ),
    _benign(
        MASK,
        "StoragePass=<redacted>\nStorageUser=slurm",
        "<redacted>",
        "Already redacted in a pasted config.",
        SLURMDBD_LIST,
    ),
    _benign(
        MASK,
        "api_key: TL••••••••••••••••a91c (created 2026-01-12)",
        "TL••••••••••••••••a91c",
        "Dashboard display keeps a short prefix and suffix; the middle is dots.",
        TERMII_MSG,
    ),
    _benign(
        MASK,
        "repository a59cec13 opened (version 2, compression level auto)\nenter password for repository: \npassword is correct",
        "password is correct",
        "restic status message after reading a password from the prompt.",
        RESTIC_KEYPW,
    ),
    _benign(
        MASK,
        'Authorization: MediaBrowser Token="[REDACTED]", Client="nightly-scan"',
        "[REDACTED]",
        "Redaction marker in a shared log.",
        JELLY_GIST,
    ),
    _benign(
        MASK,
        'partner_key = "shpk••••••••••••••••••••"  # rotated 2026-02',
        "shpk••••••••••••••••••••",
        "Masked partner key in a code review comment.",
        SHOPEE_PHP,
    ),
    _benign(
        MASK,
        "snmp-server community ***** RO 10",
        "*****",
        "Community string masked by show running-config with password masking enabled.",
        DELL_SNMP,
    ),
    _benign(
        MASK,
        "LINE_CHANNEL_SECRET=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "32 x characters in the hex-secret slot.",
        LINE_NODERED,
    ),
    _benign(
        MASK,
        "Authorization: token 5f1c2a3b4d6e7f8:***************",
        "***************",
        "Secret half of the ERPNext token masked.",
        ERPNEXT_N8N,
    ),
    _benign(
        MASK,
        "Mender tenant token: eyJhbGciOi…(hidden)…",
        "eyJhbGciOi…(hidden)…",
        "JWT truncated to its header prefix and marked hidden.",
        MENDER_CREATE,
    ),
    _benign(
        MASK,
        "Пароль: ●●●●●●●● (скрыт)",
        "●●●●●●●●",
        "Masked password with a Russian note ('hidden').",
        SLURMDBD_UBUNTU,
    ),
    _benign(
        MASK,
        "AUTHENTIK_BOOTSTRAP_TOKEN=<hidden: 60 chars>",
        "<hidden: 60 chars>",
        "Length note in place of the value.",
        AK_AUTO,
    ),
    _benign(
        MASK,
        "vnp_HashSecret=****************************** (đã ẩn)",
        "******************************",
        "Vietnamese note that the value is hidden.",
        VNPAY_PAY,
    ),
    # ==== look-alikes: public keys and client-side keys ====
    _benign(
        PUB,
        'const form = Moyasar.init({ publishable_api_key: "pk_test_s0lxYxDTSObuhuWGfYznwwFFFrOZY87FmvLQCsCO", amount: 10000 });',
        "pk_test_s0lxYxDTSObuhuWGfYznwwFFFrOZY87FmvLQCsCO",
        "Moyasar publishable key, made to ship in browser code.",
        MOYASAR_AUTH,
    ),
    _benign(
        PUB,
        "MOYASAR_PUBLISHABLE_KEY=pk_live_Ps7WoGRmWqGzIQd6OM1XvCFzHs3ql3rWBgY1AhKh",
        "pk_live_Ps7WoGRmWqGzIQd6OM1XvCFzHs3ql3rWBgY1AhKh",
        "Publishable key can only create payments; documented as safe for clients.",
        MOYASAR_KEYS,
    ),
    _benign(
        PUB,
        '<input type="hidden" name="public_key" value="sandbox_i46653617341"/>',
        "sandbox_i46653617341",
        "LiqPay public key, sent in the checkout form.",
        LIQPAY_RUBY,
    ),
    _benign(
        PUB,
        'public static final String PUBLIC_KEY = "i80325724977";',
        "i80325724977",
        "LiqPay merchant public key.",
        LIQPAY_DART,
    ),
    _benign(
        PUB,
        'set system login user ops authentication ssh-ed25519 "AAAAC3NzaC1lZDI1NTE5AAAAIDosnl+6PTmT63A+68Xbn6PQYcVqjH+NduVD+vKFqH67"',
        "AAAAC3NzaC1lZDI1NTE5AAAAIDosnl+6PTmT63A+68Xbn6PQYcVqjH+NduVD+vKFqH67",
        "SSH public key in a login stanza.",
        JUNIPER_LOGIN,
    ),
    _benign(
        PUB,
        "tnsr(config-auth)# user-key laptop ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKMr7E/SF0UYzpPr6Sr2JqpYx7r5uO/rgLNx4svsGa80 ops@laptop",
        "AAAAC3NzaC1lZDI1NTE5AAAAIKMr7E/SF0UYzpPr6Sr2JqpYx7r5uO/rgLNx4svsGa80",
        "User public key for TNSR login.",
        TNSR_USERS,
    ),
    _benign(
        PUB,
        "$ cat meta-bbb/recipes-mender/mender/files/artifact-verify-key.pem\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBA46NoNZd1BshVnbYgC6tQ5ACkHJNwNTCq/Qv3Xn+aoV6wUShATf5pFG1xtD5SBoOuz0OIlsmD7cgVh7JiNmHw==\n-----END PUBLIC KEY-----",
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBA46NoNZd1BshVnbYgC6tQ5ACkHJNwNTCq/Qv3Xn+aoV6wUShATf5pFG1xtD5SBoOuz0OIlsmD7cgVh7JiNmHw==",
        "Artifact verification public key installed on devices.",
        MENDER_BBB,
    ),
    _benign(
        PUB,
        "$ openssl ec -in private-and-params.key -pubout -out public.key\nread EC key\nwriting EC key\n$ base64 -w0 public.key\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE3cZAY+RamBunerV0EJMdxUU1O+LLJelZd9eOOcyzFWngYQCiU0Wy9PazEHwx2REHqsSD6me3fmByTtqtTX9jxw==",
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE3cZAY+RamBunerV0EJMdxUU1O+LLJelZd9eOOcyzFWngYQCiU0Wy9PazEHwx2REHqsSD6me3fmByTtqtTX9jxw==",
        "Base64 of the public half (SPKI), printed after exporting.",
        MENDER_BBB,
    ),
    _benign(
        PUB,
        "$ rpm --import RPM-GPG-KEY-example\n$ rpm -q gpg-pubkey --qf '%{NAME}-%{VERSION}-%{RELEASE}\\n'\ngpg-pubkey-af9d7a50-48058853",
        "gpg-pubkey-af9d7a50-48058853",
        "Imported OpenPGP public key package name.",
        RPMSIGN,
    ),
    _benign(
        PUB,
        "Device identity key (public):\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAHb7WX6FSjMZ3pnaO38Jww9KOKtOhJX03wIIY7+MCnzT6p0XKzbPyFn+yGPvqbo4cw+OVi6rLzJRvtArRkqfvg==\n-----END PUBLIC KEY-----",
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAHb7WX6FSjMZ3pnaO38Jww9KOKtOhJX03wIIY7+MCnzT6p0XKzbPyFn+yGPvqbo4cw+OVi6rLzJRvtArRkqfvg==",
        "Mender device authentication public key shown in the UI.",
        MENDER_DEVAUTH,
    ),
    _benign(
        PUB,
        "LINE_CHANNEL_ID=2006512345\nLIFF_ID=2006512345-XoWM6xm6",
        "2006512345-XoWM6xm6",
        "LIFF app id, embedded in front-end pages.",
        LINE_TOKEN,
    ),
    _benign(
        PUB,
        "NEXT_PUBLIC_MOYASAR_KEY=pk_test_w0ohtwtGEhMMXLkzUIPQyeKyhjBeTtFCvYbsioVD",
        "pk_test_w0ohtwtGEhMMXLkzUIPQyeKyhjBeTtFCvYbsioVD",
        "Public env var for the browser bundle; a publishable key.",
        MOYASAR_AUTH,
    ),
    _benign(
        PUB,
        "Publishable key: pk_live_dY0mKANzGct0Y56ItFS4mnvJcmhcqzbjiBYJ70np (safe to use in mobile apps)",
        "pk_live_dY0mKANzGct0Y56ItFS4mnvJcmhcqzbjiBYJ70np",
        "Moyasar states publishable keys are safe in client code.",
        MOYASAR_KEYS,
    ),
    _benign(
        PUB,
        '<form action="/pay">\n  <input type="hidden" name="publishable_api_key" value="pk_test_KEziM6Ps0ArivOmO3xE3x5oYmTlzd6YmfLutRQ7M">\n</form>',
        "pk_test_KEziM6Ps0ArivOmO3xE3x5oYmTlzd6YmfLutRQ7M",
        "Moyasar documents the publishable key as fit for an HTML hidden field.",
        MOYASAR_KEYS,
    ),
    _benign(
        PUB,
        "$ cat ~/.ssh/id_ed25519.pub >> /srv/backup/.ssh/authorized_keys   # on nas01\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOn5/DP4FaNhzCsgFhcISEYxm9eswMaUsn5lQM61NvF8 restic@laptop",
        "AAAAC3NzaC1lZDI1NTE5AAAAIOn5/DP4FaNhzCsgFhcISEYxm9eswMaUsn5lQM61NvF8",
        "Public key installed for passwordless restic SFTP login.",
        RESTIC_INIT,
    ),
    _benign(
        PUB,
        "d77f6183986627e454951a5ca63faed146e27e2a  Keycloak Terraform Team  Terraform provider  asc",
        "d77f6183986627e454951a5ca63faed146e27e2a",
        "Public signing key id listed on the project's keys page.",
        KEYCLOAK_KEYS,
    ),
    _benign(
        PUB,
        "snmp-server engineID local 800000090300B4C66B40212C",
        "800000090300B4C66B40212C",
        "SNMP engine id, derived from a MAC address and sent in every v3 message.",
        SNMP_USER,
    ),
]


if __name__ == "__main__":
    with OUT.open("w", encoding="utf-8") as fh:
        for row in ROWS:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
