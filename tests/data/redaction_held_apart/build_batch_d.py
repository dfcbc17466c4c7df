"""Batch D of the held-apart redaction set: rewrites batch-d.jsonl beside this file.

Written 2026-12-02 from other tools' documentation, read for this batch only, by someone who did
not read wikimem's redaction rules, their rule data or the other held-apart files while writing it
(written blind to the rules). Tools and vendors were chosen away from the obvious ones: email and
SMS services (Mailgun, Postmark, Twilio), feature flags and analytics (LaunchDarkly, DevCycle,
PostHog, New Relic), payments outside the US (Razorpay, Flutterwave), a regional cloud (Alibaba
Cloud), LLM vendors' newer keys (Perplexity, xAI), IaC credentials (Pulumi, Terraform), message
brokers (Kafka SASL/PLAIN, Mosquitto MQTT), VPNs (WireGuard, OpenVPN), Wi-Fi PSKs, SNMP, LDAP
binds (Hue, sssd, Jenkins, IBM MQ, PingDirectory), OIDC client secrets (Keycloak), SQL `IDENTIFIED
BY`, container registry auth files, systemd units, cookies, and secret names in other languages.

Each row has the fields of batch C (`class`, `expect`, `context` and `secret` or `value`, `source`,
and for look-alikes a `reason`). A context with two secrets gives two rows with the same context.
Every secret is random (fixed seed) and fake, of the documented alphabet and length; values copied
from a page are only look-alikes documented as public, placeholders or examples (the `reason` says
which), because they are the look-alike being tested.

Measure it with `python -m tests.test_redaction_batches d` (add `-v` for every miss); it is measured,
never fitted to: when a rule changes because of a row here, write a batch E from other pages.
"""

# ruff: noqa: E501  (each context stays as it appears in a file or a log)

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import urllib.parse
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "batch-d.jsonl"
rng = random.Random(20261202_4)

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
UPDIG = UPPER + DIGITS


def r(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def pw(n: int = 16, symbols: str = "!#%*-_.@") -> str:
    """A random password with every class in it."""
    chars = [rng.choice(LOWER), rng.choice(UPPER), rng.choice(DIGITS), rng.choice(symbols)]
    chars += [rng.choice(ALNUM + symbols) for _ in range(n - 4)]
    rng.shuffle(chars)
    return "".join(chars)


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def key32() -> str:
    """A WireGuard key: base64 of 32 random bytes."""
    return b64(rng.randbytes(32))


ROWS: list[dict[str, str]] = []


def s(cls: str, context: str, secret: str, source: str) -> None:
    assert secret in context, (secret, context)
    ROWS.append(
        {"class": cls, "expect": "secret", "context": context, "secret": secret, "source": source}
    )


def b(cls: str, context: str, value: str, reason: str, source: str) -> None:
    assert value in context, (value, context)
    ROWS.append(
        {
            "class": cls,
            "expect": "benign",
            "context": context,
            "value": value,
            "reason": reason,
            "source": source,
        }
    )


# --- sources -----------------------------------------------------------------------------------
MAILGUN = "https://documentation.mailgun.com/docs/mailgun/api-reference/authentication"
MAILGUN_VAL = "https://documentation.mailgun.com/docs/validate/api-overview"
MAILGUN_GIST = "https://gist.github.com/ruslander/6482081"
MAILGUN_GG = "https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/mailgun_primary_key"
TWILIO = "https://www.twilio.com/docs/usage/secure-credentials"
TWILIO_SG = "https://www.github.com/sendgrid/sendgrid-python/blob/main/use_cases/twilio-setup.md"
TWILIO_R = "https://rdrr.io/github/workingamerica/twilio/man/tw.auth.html"
TWILIO_RENV = "https://rdrr.io/github/seankross/twilio/src/R/get_env.R"
LD_KEYS = "https://launchdarkly.com/docs/home/account/environment/keys.md"
LD_JS = "https://launchdarkly.com/docs/home/onboarding/javascript"
DEVCYCLE = "https://docs.devcycle.com/essentials/keys"
POSTHOG_SEC = (
    "https://skills.sh/jeremylongshore/claude-code-plugins-plus-skills/posthog-security-basics"
)
POSTHOG_API = "https://www.mintlify.com/PostHog/posthog/api/authentication"
POSTHOG_RERUN = "https://ref.rerun.io/docs/rust/stable/re_analytics/posthog/constant.PUBLIC_POSTHOG_PROJECT_KEY.html"
POSTHOG_MINT = "https://github.com/mintlify/docs/pull/6920/files"
NR_KEYS = "https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys.md"
NR_JP = "https://newrelic.com/jp/blog/how-to-relic/new-relic-user-key-vs-license-key-guide"
NR_QIITA = "https://qiita.com/kooohei/items/00da439f280adc44cdca"
NR_PULUMI = "https://pulumi.com/registry/packages/newrelic/api-docs/apiaccesskey"
WG_FBSD = "https://forums.freebsd.org/goto/post?id=683399"
WG_XNET = (
    "https://fggck848wc40w8480sc84gsc.xnet.rs/en/blog/wireguard-configuration-fields-explained"
)
WG_NETBSD = "https://nxr.netbsd.org/xref/src/share/man/man4/wg.4?r=1.2"
KAFKA_RH = "https://docs.redhat.com/en/documentation/red_hat_streams_for_apache_kafka/2.7/html/streams_for_apache_kafka_api_reference/type-KafkaClientAuthenticationPlain-reference"
KAFKA_CNB = "https://cnblogs.com/felixzh/p/11507043.html"
KAFKA_CONFLUENT = (
    "https://docs.confluent.io/legacy/platform/4.1.3/kafka/authentication_sasl_plain.html"
)
KAFKA_GREPP = "https://github.com/grepplabs/kafka-sasl-plain"
KAFKA_LAB = "https://gist.github.com/gilmacieljr/1a4bdcea9fe15a56da675e7ade3bcf71"
AIRLOCK = "https://docs.airlock.com/iam/latest/plugins/com.airlock.iam.servicecontainer.app.application.configuration.event.kafka.KafkaSaslPlainAuthenticationConfig.html"
MQTT_BRIDGE = "https://gist.github.com/philipz/478a3da08129973216b1"
MQTT_NIX = "https://wiki.nixos.org/w/index.php?oldid=10587&title=Mosquitto"
MQTT_URL = "https://github.com/sebbo2002/ble2mqtt/issues/120"
MQTT_RPI = "https://gist.github.com/7wells/d0d7ba1c51386dc617ef7721e3398e04"
MQTT_TABLE = "https://gist.github.com/crotel/72d677b0a8cc36c9a3fd79017273ee98"
OVPN_GIST = "https://gist.github.com/WallaceTan/616a186db1cc6f05bbf5cebeb91add18"
OVPN_SHILL = "https://chromium.googlesource.com/chromium/src/+/2639e878336ccd138e0ab20a3daea375998c3a81/chromeos/test/data/network/shill_openvpn.json"
OVPN_ONC = "https://chromium.googlesource.com/chromium/src/+/9bff19fab288d866bc33607ca02f59f76b0e2981/chromeos/test/data/network/valid_openvpn.onc"
OVPN_PASTE = "https://pastebin.com/tEpr2igE"
OVPN_REMOVED = "https://pastebin.com/tBU6Buqr"
OVPN_LOG = "https://pastebin.com/iFUA9Ze6"
OVPN_PR = "https://github.com/OpenVPN/openvpn/pull/172.patch"
ORA_IDENT = "https://docs.oracle.com/en/database/oracle/oracle-database/19/dbseg/creating-password-using-identified-clause.html"
ORA_BDD = "https://docs.oracle.com/cd/E57471_01/bigData.100/install_deploy_bdd/src/rins_prereq_db_sql.html"
ORA_SUN = "https://docs.oracle.com/cd/E19957-01/820-3750/ggreh/index.html"
MYSQL_CSDN = "https://blog.csdn.net/weixin_39616686/article/details/113599051"
MYSQL_CSDN2 = "https://blog.csdn.net/u014374031/article/details/45484105"
MYSQL_NETKILLER = "https://netkiller.sourceforge.net/mysql/administration/index.html"
MYSQL_WIKI = "https://github.com/cdhop/General/wiki/Create-a-user-in-MySQL"
WPA_PASTE = "https://pastebin.com/C8CcH6tU"
WPA_PASTE2 = "https://pastebin.com/6tVyTXPy"
WPA_PLACE = "https://pastebin.com/PVnzY8B7"
WPA_MAN = "https://unix.com/man-page/suse/8/wpa_passphrase/"
WPA_ANDROID = "https://android.googlesource.com/platform/external/wpa_supplicant/+/4c23cb0c024c3573b8fa8a77d9c109657f329543/examples/wpa-psk-tkip.conf"
WPA_GIST = "https://gist.github.com/scarytom/6403898"
ALI_CLI = "https://www.alibabacloud.com/help/en/alibaba-cloud-cli/latest/configure-cli"
ALI_ZH = "https://help.aliyun.com/zh/cli/configure-cli"
ALI_SLS = "https://help.aliyun.com/en/sls/developer-reference/access-key"
ALI_DEVS = "https://github.com/devsapp/fc/blob/main/docs/zh/config.md"
KC_ANSIBLE = "https://docs.ansible.com/ansible/latest/modules/keycloak_client_module.html"
KC_CLIENT = "https://wjw465150.gitbooks.io/keycloak-documentation/securing_apps/topics/oidc/java/client-authentication.html"
KC_SAML = "https://www.pulumi.com/docs/reference/pkg/keycloak/saml/client/"
KC_OIDC = "https://www.pulumi.com/docs/reference/pkg/keycloak/openid/client/"
KC_PY = "https://www.github.com/ddtxra/python-console-keycloak-example"
VAULT_KC = "https://developer.hashicorp.com/vault/docs/v1.14.x/auth/jwt/oidc-providers/keycloak"
SNMP_ARCH = "https://wiki.archlinux.org/title/Snmpd"
SNMP_RH = "https://docs.redhat.com/ja/documentation/Red_Hat_Enterprise_linux/6/html/deployment_guide/sect-System_Monitoring_Tools-Net-SNMP-Configuring-Authentication"
SNMP_LIBRENMS = "https://gist.github.com/dlangille/37790c43c8e2fdbdbf1a"
SNMP_NETKILLER = "https://netkiller.sourceforge.net/zh-tw/linux/network/snmp.v3.html"
SNMP_JUNOS = "https://gist.github.com/rendoaw/541c41527d9c576305dd"
SNMP_ILOM = "https://docs.oracle.com/cd/E37444_01/html/E37449/z40029e51011868.html"
SNMP_XML = "https://github.com/iTransformers/snmp2xml4j/blob/master/conf/bat/Readme.md"
SNMP_GIST = "https://gist.github.com/goffinet/44e323864d0ed936b1a9faaea5428beb"
RZP_AUTH = "https://razorpay.com/docs/api/authentication"
RZP_KEYS = "https://razorpay.com/docs/payments/dashboard/account-settings/api-keys.md"
FLW = "https://developer.flutterwave.com/docs/integration-guides/authentication"
POSTMARK = "https://postmarkapp.com/developer/api/overview"
POSTMARK_GB = "https://gobackup.github.io/configuration/notifiers/postmark"
POSTMARK_HUMIO = (
    "https://library.humio.com/falcon-logscale-self-hosted/envar-postmark-server-secret.html"
)
POSTMARK_AUTHMD = "https://postmarkapp.com/auth.md"
POSTMARK_AUDIT = "https://skills.sh/sales-skills/sales/sales-postmark/security/agent-trust-hub"
PULUMI_API = "https://www.pulumi.com/docs/pulumi-cloud/reference/api-basics"
PULUMI_GG = "https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/pulumi_access_token"
PULUMI_CREDS = "https://gist.github.com/jaxxstorm/b7672567bf76bcf64c41d8150b6afaea"
PULUMI_SVC = "https://pulumi.com/registry/packages/pulumiservice/installation-configuration"
TF_LOGIN = "https://www.mintlify.com/hashicorp/terraform/cli/login"
PPLX = "https://docs.perplexity.ai/docs/getting-started/quickstart"
XAI_KW = "https://docs.keywordsai.co/integration/providers/xAI"
PPLX_KW = "https://docs.keywordsai.co/integration/providers/perplexity"
AUTHJSON = "https://man.cx/containers-auth.json(5)"
ZARF = "https://docs.zarf.dev/tutorials/publish_and_deploy_docker_config.html"
DOCKER_GIST = "https://gist.github.com/janeczku/574ccac575d010c326dd5ce8eee8f9ea"
LDAP_HUE = "https://docs.cloudera.com/HDPDocuments/HDP2/HDP-2.6.4/bk_security/content/bind_credentials.html"
LDAP_IBM = "https://www.ibm.com/docs/en/mq-appliance/9.4.x?topic=commands-mc-ldap-bind-password"
LDAP_PING = "https://developer.pingidentity.com/reference/pingdirectory/10.3.0.0/cli/authrate.html"
LDAP_SSSD = "https://gist.github.com/ryanycoleman/0a444e4dfdb568eb3080a9e038347e41"
LDAP_JUNOS = "https://juniper.net/documentation/software/junos-es/junos-es93/junos-es-swcmdref/admin-search.html"
LDAP_PASTE = "https://pastebin.com/y4zvfweP"
LDAP_SEARCH = "https://pastebin.com/gr0r0bPY"
JENKINS_LDAP = "https://gist.github.com/mllrjb/60909ace821652ab93794d5285398842"
SYSTEMD_DEV = "https://dev.to/lyraalishaikh/stop-putting-secrets-in-environment-variables-practical-systemd-creds-on-linux-4gfi"
SYSTEMD_CSDN = "https://blog.csdn.net/macaiyun0629/article/details/127592771"
SYSTEMD_MATRIX = "https://github.com/matrix-org/sliding-sync/issues/415"
SYSTEMD_NIX = "https://discourse.nixos.org/t/how-to-set-an-agenix-secret-as-an-environment-variable-in-systemd-service/50047"
PATRONI = "https://github.com/zalando/patroni/pull/746"
SRI_MDN = "https://developer.mozilla.org/docs/web/Security/Subresource_Integrity"
SRI_GITLAB = "https://docs.gitlab.com/ee/user/application_security/dast/checks/829.2.html"
COOKIE_MDN = "https://developer.mozilla.org/zh-CN/docs/web/http/headers/set-cookie"
COOKIE_PASTE = "https://pastebin.com/j1J6hiAi"
COOKIE_CODEQL = (
    "https://codeql.github.com/codeql-query-help/java/java-sensitive-cookie-not-httponly"
)
COOKIE_HINT = "https://npmjs.com/package/@hint/hint-validate-set-cookie-header"
KC_SKILL = "https://raw.githubusercontent.com/Lucas-magalhaes1/keycloak-power/e75af747284e66633e388740a0c6ba9047d0a040/skills/setup-client/SKILL.md"
ASPOSE_RU = "https://reference.aspose.com/email/ru/net/aspose.email.clients.deliveryservice.mailgun/mailgunclientoptions"
KAFKA_ZH = "https://docs.redhat.com/zh-cn/documentation/red_hat_streams_for_apache_kafka/2.8/html/streams_for_apache_kafka_api_reference/type-kafkaclientauthenticationplain-reference"
ALI_ES = "https://www.alibabacloud.com/help/es/ram/product-overview/quick-start-create-and-use-accesskey-pairs-for-programmatic-calls"
WG_FR = "https://downcodes.com/fr/download/205791.html"
APIDOG_PT = "https://apidog.com/pt/blog/perplexity-ai-api/"
APIDOG_AR = "https://apidog.com/ar/blog/perplexity-ai-api/"
APIDOG_KR = "https://apidog.com/kr/blog/perplexity-ai-api/"
APIDOG_VI = "https://apidog.com/vi/blog/perplexity-ai-api-vi"
COOKIE_FX = "https://searchfox.org/mozilla-central/source/devtools/client/netmonitor/src/har/test/sjs_cookies-test-server.sjs"

# --- classes -----------------------------------------------------------------------------------
VP = "vendor prefix"
HDR = "auth header"
BROKER = "broker and connection"
CLI = "cli flag"
CONF = "config file"
SQL = "sql"
URLQ = "url query and cookie"
KEYBLK = "key block"
LOG = "log and trace"
LANG = "other language"
HASH = "hash and id"

# === secrets: vendor prefixes ==================================================================
for _ in range(3):
    k = "key-" + r(HEX, 32)
    s(
        VP,
        f"curl -s --user 'api:{k}' https://api.mailgun.net/v3/mg.example.org/messages",
        k,
        MAILGUN_GIST,
    )
k = "key-" + r(HEX, 32)
s(VP, f'-define(ApiKey, "api:{k}").', k, MAILGUN_GIST)
k = "key-" + r(HEX, 32)
s(VP, f"Mailgun.configure do |config|\n  config.api_key = '{k}'\nend", k, MAILGUN_GG)
for _ in range(2):
    k = "phx_" + r(ALNUM, 47)
    s(
        VP,
        f"curl -X GET 'https://us.posthog.com/api/projects/' -H 'Authorization: Bearer {k}'",
        k,
        POSTHOG_API,
    )
k = "phx_" + r(ALNUM, 47)
s(VP, f"POSTHOG_PERSONAL_API_KEY={k} # Server-only", k, POSTHOG_SEC)
k = "phx_" + r(ALNUM, 47)
s(VP, f"posthog.personal_api_key = {k!r}", k, POSTHOG_SEC)
for _ in range(2):
    k = "sdk-" + uid()
    s(VP, f"LAUNCHDARKLY_SDK_KEY={k}", k, LD_KEYS)
k = "sdk-" + uid()
s(VP, f'ldclient.set_config(Config("{k}"))', k, LD_KEYS)
k = "sdk-" + uid()
s(VP, f"  launchdarkly:\n    sdkKey: {k}\n    offline: false", k, LD_KEYS)
k = "dvc_server_" + r(HEX, 8) + "_" + r(HEX, 32)
s(VP, f"DEVCYCLE_SERVER_SDK_KEY={k}", k, DEVCYCLE)
k = "NRAK-" + r(UPDIG, 27)
s(VP, f'curl -X POST https://api.newrelic.com/graphql -H "API-Key: {k}" -d @query.json', k, NR_KEYS)
k = "NRAK-" + r(UPDIG, 27)
s(VP, f"export NEW_RELIC_API_KEY={k}", k, NR_JP)
k = r(HEX, 36) + "NRAL"
s(VP, f"license_key: {k}", k, NR_JP)
k = r(HEX, 36) + "NRAL"
s(VP, f"export NEW_RELIC_LICENSE_KEY={k}", k, NR_QIITA)
k = r(HEX, 36) + "NRAL"
s(VP, f"newrelic.ini:\n[newrelic]\nlicense_key = {k}\napp_name = billing", k, NR_KEYS)
k = "NRII-" + r(B64URL, 32)
s(VP, f"X-Insert-Key: {k}", k, NR_KEYS)
for _ in range(2):
    ks = r(ALNUM, 24)
    s(VP, f"RAZORPAY_KEY_ID=rzp_live_{r(ALNUM, 14)}\nRAZORPAY_KEY_SECRET={ks}", ks, RZP_KEYS)
ks = r(ALNUM, 24)
kid = "rzp_test_" + r(ALNUM, 14)
s(VP, f'client = razorpay.Client(auth=("{kid}", "{ks}"))', ks, RZP_AUTH)
for _ in range(2):
    k = "FLWSECK_TEST-" + r(HEX, 32) + "-X"
    s(VP, f"FLW_SECRET_KEY={k}", k, FLW)
k = "FLWSECK-" + r(HEX, 32) + "-X"
s(VP, f"const flw = new Flutterwave(process.env.FLW_PUBLIC_KEY, '{k}');", k, FLW)
k = "FLWSECK_TEST" + r(HEX, 12)
s(VP, f"FLW_ENCRYPTION_KEY={k}", k, FLW)
for _ in range(2):
    k = "pul-" + r(HEX, 40)
    s(VP, f"$ export PULUMI_ACCESS_TOKEN={k}", k, PULUMI_SVC)
k = "pul-" + r(HEX, 40)
s(VP, f'> $env:PULUMI_ACCESS_TOKEN = "{k}"', k, PULUMI_SVC)
for _ in range(2):
    k = "pplx-" + r(ALNUM, 48)
    s(VP, f"PERPLEXITY_API_KEY={k}", k, PPLX)
k = "pplx-" + r(ALNUM, 48)
s(VP, f'client = OpenAI(api_key="{k}", base_url="https://api.perplexity.ai")', k, PPLX)
for _ in range(2):
    k = "xai-" + r(ALNUM, 80)
    s(VP, f'"customer_credentials": {{"xai": {{"api_key": "{k}"}}}}', k, XAI_KW)
k = "xai-" + r(ALNUM, 80)
s(VP, f"export XAI_API_KEY={k}", k, XAI_KW)
for _ in range(2):
    ks = r(ALNUM, 30)
    s(
        VP,
        f"aliyun configure set --profile akProfile --mode AK --region cn-hangzhou --access-key-id LTAI{r(ALNUM, 20)} --access-key-secret {ks}",
        ks,
        ALI_CLI,
    )
ks = r(ALNUM, 30)
s(
    VP,
    f"Aliyun Access Key ID [None]: LTAI{r(ALNUM, 20)}\nAliyun Access Key Secret [None]: {ks}",
    ks,
    ALI_ZH,
)
ks = r(ALNUM, 30)
s(
    VP,
    f"export ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI{r(ALNUM, 20)}\nexport ALIBABA_CLOUD_ACCESS_KEY_SECRET={ks}",
    ks,
    ALI_DEVS,
)
ks = r(ALNUM, 30)
s(VP, f"$ s config add --AccessKeyID LTAI{r(ALNUM, 20)} --AccessKeySecret {ks}", ks, ALI_DEVS)
for _ in range(2):
    tok = r(HEX, 32)
    s(VP, f"echo \"export TWILIO_AUTH_TOKEN='{tok}'\" >> .env", tok, TWILIO)
tok = r(HEX, 32)
s(VP, f"TWILIO_ACCOUNT_SID = AC{r(HEX, 32)} TWILIO_AUTH_TOKEN = {tok}", tok, TWILIO_R)
tok = r(ALNUM, 32)
s(VP, f'setx TWILIO_API_KEY "SK{r(HEX, 32)}"\nsetx TWILIO_API_SECRET "{tok}"', tok, TWILIO_SG)
tok = r(HEX, 32)
s(VP, f'tw.auth(sid="AC{r(HEX, 32)}", token="{tok}")', tok, TWILIO_R)

# === secrets: authentication headers ===========================================================
for _ in range(3):
    t = uid()
    s(
        HDR,
        f'curl "https://api.postmarkapp.com/email" -H "Accept: application/json" -H "X-Postmark-Server-Token: {t}" -d @mail.json',
        t,
        POSTMARK,
    )
t = uid()
s(HDR, f"X-Postmark-Account-Token: {t}", t, POSTMARK)
t = uid()
s(
    HDR,
    f"    notifiers:\n      postmark:\n        type: postmark\n        token: {t}",
    t,
    POSTMARK_GB,
)
t = uid()
s(HDR, f"POSTMARK_SERVER_SECRET={t}", t, POSTMARK_HUMIO)
for _ in range(2):
    t = "pul-" + r(HEX, 40)
    s(HDR, f"Authorization: token {t}", t, PULUMI_API)
t = r(HEX, 40)
s(
    HDR,
    f"curl -H 'Accept: application/vnd.pulumi+8' -H 'Authorization: token {t}' https://api.pulumi.com/api/user/stacks",
    t,
    PULUMI_API,
)
for _ in range(3):
    kid, ks = "rzp_live_" + r(ALNUM, 14), r(ALNUM, 24)
    tok = b64(f"{kid}:{ks}".encode())
    s(HDR, f"Authorization: Basic {tok}", tok, RZP_AUTH)
k = "key-" + r(HEX, 32)
tok = b64(f"api:{k}".encode())
s(HDR, f'[{{ "Authorization", "Basic "++"{tok}" }}]', tok, MAILGUN_GIST)
t = r(HEX, 32)
s(HDR, f"requests.get(url, auth=('AC{r(HEX, 32)}', '{t}'))", t, TWILIO_R)
k = "sdk-" + uid()
s(HDR, f"GET /sdk/latest-all HTTP/1.1\nHost: sdk.launchdarkly.com\nAuthorization: {k}", k, LD_KEYS)

# === secrets: brokers and connection strings ===================================================
for _ in range(3):
    p = pw(18)
    s(
        BROKER,
        f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="{p}";',
        p,
        KAFKA_CNB,
    )
p = pw(16)
s(
    BROKER,
    f'KafkaServer {{\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  username="admin"\n  password="{p}"\n  user_admin="{p}";\n}};',
    p,
    KAFKA_GREPP,
)
p1, p2 = pw(14), pw(14)
ctx = f'KafkaServer {{\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  username="admin" password="{p1}"\n  user_admin="{p1}"\n  user_alice="{p2}";\n}};'
s(BROKER, ctx, p1, KAFKA_CONFLUENT)
s(BROKER, ctx, p2, KAFKA_CONFLUENT)
p = pw(16)
s(
    BROKER,
    f'// Zookeeper server authentication\nServer {{\norg.apache.kafka.common.security.plain.PlainLoginModule required\nusername="admin"\npassword="{p}";\n}};',
    p,
    KAFKA_LAB,
)
p = pw(20)
s(
    BROKER,
    f"type: KafkaSaslPlainAuthentication\nid: KafkaSaslPlainAuthentication-a1b2c3\nproperties:\n  password: {p}\n  username: svc-events",
    p,
    AIRLOCK,
)
p = pw(16)
s(
    BROKER,
    f"connection tradingbot\naddress 192.168.2.18:1883\ntopic # both 2\nremote_username bridge01\nremote_password {p}",
    p,
    MQTT_BRIDGE,
)
p = pw(14)
s(
    BROKER,
    f"connection br-me-to-broker0\naddress broker0.lan:8883\nusername edge7\npassword {p}",
    p,
    MQTT_TABLE,
)
for _ in range(2):
    p = pw(14, "-_.")
    s(BROKER, f"MQTT_URL=mqtts://ble2mqtt:{p}@broker.home.arpa:8883", p, MQTT_URL)
p = pw(12)
s(BROKER, f"mqtt:\n  broker: core-mosquitto\n  username: mosquitto\n  password: {p}", p, MQTT_NIX)
p = pw(16)
s(
    BROKER,
    f"bootstrap.servers=pkc-41wq6.eu-west-2.aws.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.username=ZX4GQ7RM2KJ3LP5A\nsasl.password={p}",
    p,
    KAFKA_CONFLUENT,
)

# === secrets: CLI flags ========================================================================
for _ in range(2):
    a, x = pw(12), pw(12)
    ctx = f"snmpwalk -v3 -l authPriv -u MyRoGroup -a SHA -A '{a}' -x AES -X '{x}' 10.0.4.2 SNMPv2-MIB::sysDescr.0"
    s(CLI, ctx, a, SNMP_LIBRENMS)
    s(CLI, ctx, x, SNMP_LIBRENMS)
a, x = pw(12), pw(12)
ctx = f"net-snmp-config --create-snmpv3-user -ro -A '{a}' -X '{x}' -a SHA -x AES MyRoGroup"
s(CLI, ctx, a, SNMP_LIBRENMS)
s(CLI, ctx, x, SNMP_LIBRENMS)
a = pw(12)
s(
    CLI,
    f"snmpget -v 3 -u netadmin -l authNoPriv -a MD5 -A {a} 127.0.0.1 sysUpTime.0",
    a,
    SNMP_NETKILLER,
)
c = r(ALNUM, 14)
s(CLI, f"snmpwalk -v2c -c {c} localhost system", c, SNMP_RH)
c = r(ALNUM, 12)
s(
    CLI,
    f"snmpwalk.sh -md $SNMP2XML4J/mibs -v 2 -a 195.218.195.228 -P 161 -pr udp -c {c} -t 1000 -r 1 -o sysDescr,sysName",
    c,
    SNMP_XML,
)
p = pw(14)
s(
    CLI,
    f'ldapsearch -x -D "CN=jenkins,OU=ServiceAccounts,DC=dev,DC=net" -w {p} -H ldaps://dc01.dev.net -b "DC=dev,DC=net" "(uid=boardstretcher)"',
    p,
    LDAP_SEARCH,
)
p = pw(14)
s(
    CLI,
    f'authrate --hostname server.example.com --port 389 --bindDN uid=admin,dc=example,dc=com --bindPassword {p} --baseDN dc=example,dc=com --filter "(uid=user.[1-1000000])"',
    p,
    LDAP_PING,
)
p = pw(12)
s(CLI, f'# mc-ldap-bind-dn "cn=proxyuser"\n# mc-ldap-bind-password {p}', p, LDAP_IBM)
p = pw(12)
s(CLI, f"mosquitto_sub -h 192.168.1.10 -t 'home/#' -u pi -P {p}", p, MQTT_RPI)
p = pw(12)
s(CLI, f"mosquitto_pub -h localhost -t test -m hello -u root -P '{p}'", p, MQTT_NIX)
k = "key-" + r(HEX, 32)
s(
    CLI,
    f"curl --user 'api:{k}' -X POST https://api.mailgun.net/v1/inspect/accessibility",
    k,
    MAILGUN_VAL,
)
ks = r(ALNUM, 24)
s(
    CLI,
    f"curl -u rzp_test_{r(ALNUM, 14)}:{ks} -X POST https://api.razorpay.com/v1/orders",
    ks,
    RZP_AUTH,
)
t = r(HEX, 32)
s(
    CLI,
    f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{r(HEX, 32)}/Messages.json -u AC{r(HEX, 32)}:{t}",
    t,
    TWILIO,
)
p = pw(14)
s(CLI, f"wpa_passphrase HomeNet '{p}' >> /etc/wpa_supplicant/wpa_supplicant.conf", p, WPA_MAN)
p = pw(16)
s(
    CLI,
    f"oc create secret generic my-connect-secret-name --from-literal=my-password-field-name='{p}'",
    p,
    KAFKA_RH,
)
p = pw(14)
s(CLI, f"$ mosquitto_passwd -b /etc/mosquitto/passwd sensor01 '{p}'", p, MQTT_RPI)

# === secrets: config files =====================================================================
for _ in range(2):
    p = pw(18, " -_.!")
    s(
        CONF,
        f'network={{\n    ssid="home"\n    scan_ssid=0\n    key_mgmt=WPA-PSK\n    psk="{p}"\n}}',
        p,
        WPA_PASTE2,
    )
psk = r(HEX, 64)
s(CONF, f'network={{\n ssid="JT-WLAN"\n psk={psk}\n}}', psk, WPA_PASTE)
psk = r(HEX, 64)
s(CONF, f'network={{\n ssid="Phoenix"\n #proto=RSN\n psk={psk}\n}}', psk, WPA_PASTE)
p = pw(16)
s(
    CONF,
    f"interface=wlan0\nssid=Lab-AP\nwpa=2\nwpa_key_mgmt=WPA-PSK\nwpa_passphrase={p}\nrsn_pairwise=CCMP",
    p,
    WPA_MAN,
)
p = pw(14)
s(CONF, f"auto wlan0\niface wlan0 inet dhcp\n    wpa-ssid Office-5G\n    wpa-psk {p}", p, WPA_GIST)
for _ in range(2):
    k = key32()
    s(
        CONF,
        f"[Interface]\nPrivateKey = {k}\nAddress = 10.0.0.1/24\nListenPort = 51820\nDNS = 1.1.1.1",
        k,
        WG_XNET,
    )
k, pk, psk = key32(), key32(), key32()
ctx = f"[Interface]\nPrivateKey = {k}\nAddress = 10.8.0.2/32\n\n[Peer]\nPublicKey = {pk}\nPresharedKey = {psk}\nAllowedIPs = 0.0.0.0/0\nEndpoint = vpn.example.com:51820"
s(CONF, ctx, k, WG_FBSD)
s(CONF, ctx, psk, WG_FBSD)
k = key32()
s(CONF, f"wg set wg0 private-key <(echo {k})", k, WG_FBSD)
u, p = "vpnuser" + r(DIGITS, 3), pw(16)
s(CONF, f"$ cat /jffs/openvpn/client-credentials.txt\n{u}\n{p}", p, OVPN_GIST)
p = pw(14)
s(
    CONF,
    f'"OpenVPN": {{\n  "AuthRetry": "interact",\n  "Password": "{p}",\n  "Username": "j.doe"\n}}',
    p,
    OVPN_ONC,
)
p = pw(14)
s(CONF, f'"OpenVPN.Password": "{p}",\n"OpenVPN.User": "j.doe",', p, OVPN_SHILL)
c = r(ALNUM, 16)
s(CONF, f"# /etc/snmp/snmpd.conf\nrocommunity {c} 127.0.0.1 .1.3.6.1.2.1.1", c, SNMP_RH)
c = r(ALNUM, 16)
s(CONF, f"rwcommunity {c}", c, SNMP_ARCH)
a = pw(14)
s(CONF, f'createUser netadmin MD5 "{a}" DES', a, SNMP_NETKILLER)
a = pw(14)
s(
    CONF,
    f"defSecurityName netadmin\ndefAuthType MD5\ndefSecurityLevel authNoPriv\ndefAuthPassphrase {a}\ndefVersion 3",
    a,
    SNMP_NETKILLER,
)
j = "$9$" + r(ALNUM + "./-", 96)
s(
    CONF,
    f'user user2_authnopriv {{\n  authentication-md5 {{\n    authentication-key "{j}"; ## SECRET-DATA\n  }}\n}}',
    j,
    SNMP_JUNOS,
)
p = pw(14)
s(
    CONF,
    f"-> create /SP/services/snmp/users/monitor authenticationprotocol=SHA authenticationpassword={p} permission=ro",
    p,
    SNMP_ILOM,
)
p = pw(16)
s(
    CONF,
    f'# Password of the bind user\nbind_password={p}\nbind_dn="CN=ServiceAccount,DC=mycompany,DC=com"',
    p,
    LDAP_HUE,
)
p = pw(16)
s(
    CONF,
    f"[domain/LDAP]\nldap_default_bind_dn = cn=sssd,ou=svc,dc=corp,dc=lan\nldap_default_authtok_type = password\nldap_default_authtok = {p}",
    p,
    LDAP_SSSD,
)
p = pw(14)
s(
    CONF,
    f"<binddn>CN=Donald Richardson,OU=staff,DC=2s,DC=lan</binddn>\n<bindpw>{p}</bindpw>",
    p,
    LDAP_PASTE,
)
p = pw(14)
s(
    CONF,
    f'admin-search {{\n    distinguished-name cn=admin,dc=example,dc=com;\n    password "{p}";\n}}',
    p,
    LDAP_JUNOS,
)
p = pw(16)
s(
    CONF,
    f"String bindDn = 'cn=jenkins,ou=svc,o=example.com'\nString bindPassword = '{p}'",
    p,
    JENKINS_LDAP,
)
sec = uid()
s(CONF, f'"credentials": {{\n    "secret": "{sec}"\n}}', sec, KC_CLIENT)
sec = r(ALNUM, 32)
s(
    CONF,
    f"- name: Create or update Keycloak client\n  community.general.keycloak_client:\n    client_id: portal\n    secret: {sec}\n    public_client: false",
    sec,
    KC_ANSIBLE,
)
sec = r(ALNUM, 32)
s(
    CONF,
    f'{{\n  "realm": "demo",\n  "auth-server-url": "https://sso.example.com/",\n  "resource": "console-client",\n  "credentials": {{ "secret": "{sec}" }}\n}}',
    sec,
    KC_PY,
)
sec = r(ALNUM, 32)
s(
    CONF,
    f'vault write auth/oidc/config oidc_discovery_url="https://kc.example.com/realms/demo" oidc_client_id="vault" oidc_client_secret="{sec}" default_role="reader"',
    sec,
    VAULT_KC,
)
sec = r(ALNUM, 32)
s(
    CONF,
    f'openid_client = keycloak.openid.Client("openidClient",\n    access_type="CONFIDENTIAL",\n    client_id="test-client",\n    client_secret="{sec}",\n    realm_id=realm.id)',
    sec,
    KC_OIDC,
)
for _ in range(2):
    user, p = "svc" + r(DIGITS, 3), pw(16)
    tok = b64(f"{user}:{p}".encode())
    s(
        CONF,
        f'{{\n  "auths": {{\n    "registry.example.io": {{\n      "auth": "{tok}"\n    }}\n  }}\n}}',
        tok,
        AUTHJSON,
    )
user, p = "ci-bot", pw(16)
tok = b64(f"{user}:{p}".encode())
s(
    CONF,
    f'$ cat ~/.docker/config.json\n{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{tok}"}}}}}}',
    tok,
    ZARF,
)
t = r(ALNUM, 14) + ".atlasv1." + r(ALNUM, 67)
s(
    CONF,
    f'{{\n  "credentials": {{\n    "app.terraform.io": {{\n      "token": "{t}"\n    }}\n  }}\n}}',
    t,
    TF_LOGIN,
)
t = r(ALNUM, 14) + ".atlasv1." + r(ALNUM, 67)
s(CONF, f'credentials "app.terraform.io" {{\n  token = "{t}"\n}}', t, TF_LOGIN)
t = "pul-" + r(HEX, 40)
s(
    CONF,
    f'{{\n  "current": "https://api.pulumi.com",\n  "accessTokens": {{\n    "https://api.pulumi.com": "{t}"\n  }}\n}}',
    t,
    PULUMI_CREDS,
)
p = r(ALNUM, 32)
s(CONF, f'[Service]\nEnvironment="SECRET={p}"', p, SYSTEMD_CSDN)
p = r(ALNUM, 32)
s(CONF, f'[Service]\nEnvironment="ANOTHER_SECRET={p}"', p, SYSTEMD_CSDN)
p = r(ALNUM, 40)
s(
    CONF,
    f"[Service]\nEnvironment=SYNCV3_SERVER=https://matrix.example.org\nEnvironment=SYNCV3_SECRET={p}\nExecStart=/usr/bin/syncv3",
    p,
    SYSTEMD_MATRIX,
)
p = pw(18)
s(
    CONF,
    f"# /etc/patroni/patroni.env\nPATRONI_SUPERUSER_USERNAME=postgres\nPATRONI_SUPERUSER_PASSWORD={p}",
    p,
    PATRONI,
)
p = pw(18)
s(
    CONF,
    f"*/15 * * * * PGPASSWORD='{p}' pg_dump -h db1 -U backup app | gzip > /var/backups/app.sql.gz",
    p,
    SYSTEMD_NIX,
)
p = pw(16)
enc = b64(p.encode())
s(
    CONF,
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: my-connect-secret-name\ntype: Opaque\ndata:\n  my-password-field-name: {enc}",
    enc,
    KAFKA_RH,
)
p = pw(16)
enc = b64(p.encode())
s(
    CONF,
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: mqtt-bridge\nstringData: {{}}\ndata:\n  remote_password: {enc}",
    enc,
    MQTT_BRIDGE,
)
t = uid()
s(CONF, f'# terraform.tfvars\npostmark_server_token = "{t}"\nregion = "eu-west-1"', t, POSTMARK)
k = r(HEX, 36) + "NRAL"
s(
    CONF,
    f"# values.yaml for the newrelic-bundle chart\nglobal:\n  licenseKey: {k}\n  cluster: prod-eu",
    k,
    NR_PULUMI,
)
ks = r(ALNUM, 30)
s(
    CONF,
    f'# group_vars/all.yml\nalicloud_access_key: LTAI{r(ALNUM, 20)}\nalicloud_secret_key: "{ks}"',
    ks,
    ALI_SLS,
)
t = r(HEX, 32)
s(CONF, f"TWILIO_SID=AC{r(HEX, 32)}\nTWILIO_TOKEN={t}", t, TWILIO_RENV)

# === secrets: SQL ==============================================================================
sql_forms = [
    ("CREATE USER psmith IDENTIFIED BY {p};", ORA_IDENT),
    ("GRANT CREATE SESSION TO psmith IDENTIFIED BY {p};", ORA_IDENT),
    ("ALTER USER psmith IDENTIFIED BY {p};", ORA_IDENT),
    ("CREATE DATABASE LINK sales AUTHENTICATED BY psmith IDENTIFIED BY {p};", ORA_IDENT),
    (
        'CREATE USER bdd PROFILE "DEFAULT" IDENTIFIED BY {p} DEFAULT TABLESPACE "USERS" ACCOUNT UNLOCK;',
        ORA_BDD,
    ),
    ("SQL> create user musicdbuser identified by {p};", ORA_SUN),
    ("CREATE USER 'dog'@'localhost' IDENTIFIED BY '{p}';", MYSQL_CSDN2),
    ("CREATE USER 'pig'@'%' IDENTIFIED BY '{p}';", MYSQL_CSDN2),
    ("mysql> CREATE USER 'username'@'%' IDENTIFIED BY '{p}';", MYSQL_WIKI),
    (
        "GRANT ALL PRIVILEGES ON opencart.* TO 'neo'@'localhost' IDENTIFIED BY '{p}' WITH GRANT OPTION;",
        MYSQL_NETKILLER,
    ),
    (
        "mysql> CREATE USER 'root'@'%' IDENTIFIED WITH mysql_native_password BY '{p}';",
        MYSQL_NETKILLER,
    ),
    ("create user '{{u}}'@'%' identified by '{p}';\ngrant all on bdd.* to '{{u}}'@'%';", ORA_BDD),
    ("SET PASSWORD FOR 'jeffrey'@'localhost' = '{p}';", MYSQL_CSDN),
    ("ALTER USER 'jeffrey'@'localhost' IDENTIFIED BY '{p}' PASSWORD EXPIRE NEVER;", MYSQL_CSDN),
]
for form, src in sql_forms:
    p = pw(14, "#%*_") if "'" in form else pw(14, "#_")
    ctx = form.format(p=p).replace("{u}", "etl" + r(DIGITS, 2))
    s(SQL, ctx, p, src)

# === secrets: URL query parameters and cookies =================================================
k = "key-" + r(HEX, 32)
s(
    URLQ,
    f"GET https://api.mailgun.net/v4/address/validate?address=a@example.org&api_key={k}",
    k,
    MAILGUN_VAL,
)
t = r(B64URL, 43)
s(
    URLQ,
    f"https://app.example.com/callback#access_token={t}&token_type=Bearer&expires_in=300&state=xyz",
    t,
    KC_SKILL,
)
k = "pplx-" + r(ALNUM, 48)
s(URLQ, f"wss://proxy.internal/pplx?model=sonar&api-key={k}", k, PPLX)
k = "sdk-" + uid()
s(URLQ, f"https://stream.launchdarkly.com/all?sdkKey={k}", k, LD_KEYS)
k = r(HEX, 36) + "NRAL"
s(URLQ, f"https://log-api.eu.newrelic.com/log/v1?Api-Key={k}", k, NR_KEYS)
p = pw(14, "-_.")
q = urllib.parse.quote(p, safe="")
s(URLQ, f"https://portal.example.com/login?user=ops&password={q}&next=%2Fdash", q, COOKIE_HINT)
for _ in range(2):
    sid = r(B64URL, 43)
    s(
        URLQ,
        f"Set-Cookie: session={sid}; Domain=app.example.com; Path=/; Secure; HttpOnly; SameSite=Lax",
        sid,
        COOKIE_MDN,
    )
sid = r(HEX, 32)
s(URLQ, f"Set-Cookie: SessionId={sid}; path=/; secure; HttpOnly", sid, COOKIE_PASTE)
sid = r(HEX, 32)
s(URLQ, f"< HTTP/1.1 200 OK\n< Set-Cookie: PHPSESSID={sid}; path=/; HttpOnly", sid, COOKIE_HINT)
jwt_parts = [
    base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    .decode()
    .rstrip("="),
    base64.urlsafe_b64encode(json.dumps({"sub": uid(), "iat": 1764660000}).encode())
    .decode()
    .rstrip("="),
    r(B64URL, 43),
]
jwt = ".".join(jwt_parts)
s(URLQ, f'Cookie jwtCookie = new Cookie("jwt_token", "{jwt}");', jwt, COOKIE_CODEQL)
sid = r(B64URL, 32)
s(
    URLQ,
    f'response.setHeader("Set-Cookie", "auth_secure={sid}; SameSite=None; HttpOnly; Secure", true);',
    sid,
    COOKIE_FX,
)
sid = r(HEX, 64)
s(URLQ, f"Cookie: csrftoken=Xy1; sessionid={sid}", sid, COOKIE_MDN)

# === secrets: key blocks in odd wrappers =======================================================
for src in (OVPN_PASTE, OVPN_SHILL):
    lines = [r(HEX, 32) for _ in range(16)]
    body = "\n".join(lines)
    if src == OVPN_SHILL:
        ctx = (
            '"OpenVPN.TLSAuthContents":"-----BEGIN OpenVPN Static key V1-----\\n'
            + "\\n".join(lines)
            + '\\n-----END OpenVPN Static key V1-----\\n",'
        )
        s(KEYBLK, ctx, "\\n".join(lines[4:8]), src)
    else:
        ctx = f"key-direction 1\n<tls-auth>\n#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n{body}\n-----END OpenVPN Static key V1-----\n</tls-auth>"
        s(KEYBLK, ctx, lines[5], src)
raw = b64(rng.randbytes(121))
wrapped = "\n".join(raw[i : i + 64] for i in range(0, len(raw), 64))
ctx = f"<key>\n-----BEGIN EC PRIVATE KEY-----\n{wrapped}\n-----END EC PRIVATE KEY-----\n</key>"
s(KEYBLK, ctx, wrapped.split("\n")[1], OVPN_REMOVED)
raw = b64(rng.randbytes(1190))
lines = [raw[i : i + 64] for i in range(0, len(raw), 64)]
yaml_block = "\n".join("    " + line for line in lines)
ctx = f"samlClient:\n  signingPrivateKey: |\n    -----BEGIN PRIVATE KEY-----\n{yaml_block}\n    -----END PRIVATE KEY-----"
s(KEYBLK, ctx, lines[3], KC_SAML)
raw = b64(rng.randbytes(1190))
lines = [raw[i : i + 64] for i in range(0, len(raw), 64)]
ctx = json.dumps(
    {
        "type": "service_account",
        "private_key": "-----BEGIN PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END PRIVATE KEY-----\n",
    }
)
s(KEYBLK, ctx, lines[2], KC_SAML)
raw = b64(rng.randbytes(600))
lines = [raw[i : i + 64] for i in range(0, len(raw), 64)]
ctx = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
    + "\n".join(lines)
    + "\n="
    + r(B64, 4)
    + "\n-----END PGP PRIVATE KEY BLOCK-----"
)
s(KEYBLK, ctx, lines[1], SYSTEMD_DEV)
raw = b64(rng.randbytes(400))
lines = [raw[i : i + 70] for i in range(0, len(raw), 70)]
ctx = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    + "\n".join(lines)
    + "\n-----END OPENSSH PRIVATE KEY-----"
)
s(KEYBLK, "# ~/.ssh/id_ed25519 pasted into a ticket\n" + ctx, lines[2], SYSTEMD_DEV)
k = key32()
s(KEYBLK, f"A# wg-keygen > /etc/wireguard/wg0\nA# cat /etc/wireguard/wg0\n{k}", k, WG_NETBSD)

# === secrets: logs, traces, dict reprs =========================================================
p = pw(16)
s(
    LOG,
    f"DEBUG urllib3.connectionpool: send: b'GET /v3/domains HTTP/1.1\\r\\nHost: api.mailgun.net\\r\\nAuthorization: Basic {b64(('api:key-' + p).encode())}\\r\\n'",
    b64(("api:key-" + p).encode()),
    MAILGUN,
)
t = uid()
s(
    LOG,
    f"> POST /email HTTP/1.1\n> Host: api.postmarkapp.com\n> X-Postmark-Server-Token: {t}\n> Content-Type: application/json",
    t,
    POSTMARK,
)
p = pw(16)
s(
    LOG,
    f"KeyError: 'topic'\n  config = {{'bootstrap.servers': 'kafka:9093', 'sasl.mechanism': 'PLAIN', 'sasl.username': 'svc', 'sasl.password': '{p}'}}",
    p,
    KAFKA_CONFLUENT,
)
p = pw(16)
s(
    LOG,
    f"ldap3.core.exceptions.LDAPBindError: automatic bind not successful - invalidCredentials\n  Connection(server=Server(host='ldap.corp', port=636), user='cn=svc,dc=corp', password='{p}')",
    p,
    LDAP_HUE,
)
sec = r(ALNUM, 32)
s(
    LOG,
    f"Out[7]: {{'client_id': 'console-client', 'client_secret': '{sec}', 'grant_type': 'client_credentials'}}",
    sec,
    KC_PY,
)
p = pw(14)
s(
    LOG,
    f"Jul 20 07:08:33 ubnt openvpn[25203]: Options: --auth-user-pass inline user=ops pass={p}",
    p,
    OVPN_LOG,
)
t = "pul-" + r(HEX, 40)
s(
    LOG,
    f"2026-12-01T10:02:11Z DEBUG http: request headers: map[Accept:[application/vnd.pulumi+8] Authorization:[token {t}]]",
    t,
    PULUMI_API,
)
ks = r(ALNUM, 30)
s(
    LOG,
    f"RamRoleArnCredential{{accessKeyId='LTAI{r(ALNUM, 20)}', accessKeySecret='{ks}', roleArn='acs:ram::1234:role/ops'}}",
    ks,
    ALI_SLS,
)
k = "phx_" + r(ALNUM, 47)
s(
    LOG,
    f"httpx - INFO - HTTP Request: GET https://eu.posthog.com/api/projects/@current/ \"200 OK\" headers={{'authorization': 'Bearer {k}'}}",
    k,
    POSTHOG_API,
)
p = pw(16)
s(
    LOG,
    f'Caused by: org.apache.kafka.common.KafkaException: Failed to construct kafka producer\n\tproperties: {{sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="svc" password="{p}";}}',
    p,
    KAFKA_CNB,
)

# === secrets: names in other languages =========================================================
lang_forms = [
    ("Пароль: {p}", ASPOSE_RU),
    ("ApiKey (Закрытый ключ API) = {p}", ASPOSE_RU),
    ("数据库密码：{p}", ALI_ZH),
    ("AccessKey密钥={p}", ALI_ZH),
    ("SASL PLAIN 密码: {p}", KAFKA_ZH),
    ("パスワード: {p}", SNMP_RH),
    ("コミュニティー文字列 = {p}", SNMP_RH),
    ("비밀번호={p}", APIDOG_KR),
    ("API 키: {p}", APIDOG_KR),
    ("contraseña: {p}", ALI_ES),
    ("secreto de AccessKey = {p}", ALI_ES),
    ("mot de passe : {p}", WG_FR),
    ("clé privée = {p}", WG_FR),
    ("senha: {p}", APIDOG_PT),
    ("chave de API = {p}", APIDOG_PT),
    ("كلمة المرور: {p}", APIDOG_AR),
    ("mật khẩu: {p}", APIDOG_VI),
    ("密碼 = {p}", SNMP_NETKILLER),
]
for form, src in lang_forms:
    p = pw(14)
    s(LANG, form.format(p=p), p, src)
p = pw(14)
s(LANG, f"用户名：admin\n密码：{p}\n地址：10.0.0.5", p, MYSQL_CSDN2)
p = pw(14)
s(LANG, f"ユーザー名 monitor / パスワード {p} でログインしてください", p, SNMP_RH)

# === look-alikes ===============================================================================
# hashes, digests, integrity strings
sri = "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"
b(
    HASH,
    f'<script src="https://example.com/example-framework.js" integrity="{sri}" crossorigin="anonymous"></script>',
    sri,
    "an SRI integrity hash (MDN's documented example)",
    SRI_MDN,
)
h = "sha384-" + b64(hashlib.sha384(rng.randbytes(50)).digest())
b(
    HASH,
    f'<link rel="stylesheet" href="https://cdn.example.net/ui@3.1.0/ui.min.css" integrity="{h}" crossorigin="anonymous">',
    h,
    "an SRI integrity hash",
    SRI_GITLAB,
)
h = "sha512-" + b64(hashlib.sha512(rng.randbytes(50)).digest())
b(
    HASH,
    f'"node_modules/postmark": {{\n  "version": "3.0.12",\n  "resolved": "https://registry.npmjs.org/postmark/-/postmark-3.0.12.tgz",\n  "integrity": "{h}"\n}}',
    h,
    "an npm lockfile integrity hash",
    POSTMARK_AUDIT,
)
h = hashlib.sha256(rng.randbytes(40)).hexdigest()
b(HASH, f"{h}  aliyun-cli-linux-3.3.0-amd64.tgz", h, "a sha256sum line", ALI_CLI)
h = hashlib.sha256(rng.randbytes(40)).hexdigest()
b(HASH, f"docker pull confluentinc/cp-kafka@sha256:{h}", h, "an image digest", KAFKA_CONFLUENT)
h = hashlib.sha1(rng.randbytes(40)).hexdigest()
b(
    HASH,
    f"commit {h}\nAuthor: Samuli Seppänen\nDate:   Wed Apr 6 13:11:04 2022 +0300\n\n    Describe limitations of auth-user-pass more clearly",
    h,
    "a git commit id",
    OVPN_PR,
)
h = "2639e878336ccd138e0ab20a3daea375998c3a81"
b(HASH, f"See {OVPN_SHILL}", h, "a commit id in a URL", OVPN_SHILL)
h = "4c23cb0c024c3573b8fa8a77d9c109657f329543"
b(
    HASH,
    f"Example from {WPA_ANDROID} (blob 93d7fc2444ea4aed887c511d7ea1a6ae3c70fb8a)",
    h,
    "commit and blob ids in a URL",
    WPA_ANDROID,
)
h = "h1:" + b64(hashlib.sha256(rng.randbytes(30)).digest())
b(HASH, f"github.com/newrelic/go-agent/v3 v3.35.1 {h}", h, "a go.sum hash", NR_KEYS)
h = hashlib.md5(rng.randbytes(20)).hexdigest()
b(HASH, f'ETag: "{h}"', h, "an ETag", POSTMARK)
h = r(HEX, 40)
b(HASH, f"BuildID[sha1]={h}, for GNU/Linux 3.2.0, stripped", h, "an ELF build id", OVPN_LOG)
h = "sha256:" + hashlib.sha256(rng.randbytes(30)).hexdigest()
b(
    HASH,
    f'"config": {{"digest": "{h}", "mediaType": "application/vnd.oci.image.config.v1+json"}}',
    h,
    "an OCI manifest digest",
    AUTHJSON,
)
fp = " ".join(r(UPPER[:6] + DIGITS, 4) for _ in range(10))
b(HASH, f"Key fingerprint = {fp}", fp, "a GPG key fingerprint", SYSTEMD_DEV)
fp = "SHA256:" + b64(hashlib.sha256(rng.randbytes(30)).digest()).rstrip("=")
b(HASH, f"ED25519 key fingerprint is {fp}.", fp, "an SSH host key fingerprint", SYSTEMD_DEV)

# UUIDs, ULIDs, trace and request ids
u = uid()
b(HASH, f"X-Request-Id: {u}", u, "a request id", POSTMARK)
u = uid()
b(
    HASH,
    f'{{"ErrorCode": 0, "Message": "OK", "MessageID": "{u}", "SubmittedAt": "2026-12-01T10:00:00Z"}}',
    u,
    "a Postmark message id in a response",
    POSTMARK,
)
u = "{" + uid() + "}"
b(CONF, f'"GUID": "{u}",\n"Name": "my vpn",\n"Type": "VPN",', u, "a network GUID", OVPN_ONC)
t = "00-" + r(HEX, 32) + "-" + r(HEX, 16) + "-01"
b(HASH, f"traceparent: {t}", t, "a W3C trace context header", NR_KEYS)
ulid = r("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)
b(HASH, f'{{"event": "order.paid", "id": "{ulid}"}}', ulid, "a ULID event id", RZP_AUTH)
oid = "order_" + r(ALNUM, 14)
b(
    URLQ,
    f"GET https://api.razorpay.com/v1/orders/{oid}/payments",
    oid,
    "a Razorpay order id",
    RZP_AUTH,
)
ac = "AC" + r(HEX, 32)
b(
    URLQ,
    f"https://api.twilio.com/2010-04-01/Accounts/{ac}/Messages.json?PageSize=20",
    ac,
    "an account SID in a resource path (an identifier, not the token)",
    TWILIO,
)
m = "SM" + r(HEX, 32)
b(HASH, f'{{"sid": "{m}", "status": "queued", "num_segments": "1"}}', m, "a message SID", TWILIO)
u = uid()
b(
    CONF,
    f'resource "newrelic_api_access_key" "foobar" {{\n  account_id = 1234567\n  key_type   = "INGEST"\n}}\n# imported as {u}',
    u,
    "a resource id",
    NR_PULUMI,
)
u = r(DIGITS, 10)
b(
    CONF,
    f'userId: "{u}",\nname: "User API Key for Admin Access",',
    u,
    "a numeric user id",
    NR_PULUMI,
)

# broker look-alikes
b(
    BROKER,
    "Yes, you can specify username and password normally in the URL: mqtts://username:password@broker",
    "mqtts://username:password@broker",
    "a documented placeholder",
    MQTT_URL,
)
b(
    BROKER,
    "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nssl.endpoint.identification.algorithm=https",
    "sasl.mechanism=PLAIN",
    "settings without a credential",
    KAFKA_CONFLUENT,
)
b(
    BROKER,
    "listener 8883\ncafile /etc/mosquitto/certs/ca.crt\nkeyfile /etc/mosquitto/certs/server.key\nallow_anonymous false",
    "keyfile /etc/mosquitto/certs/server.key",
    "a path to a key",
    MQTT_TABLE,
)
b(
    BROKER,
    "authentication:\n  type: plain\n  username: my-connect-username\n  passwordSecret:\n    secretName: my-connect-secret-name\n    password: my-password-field-name",
    "secretName: my-connect-secret-name",
    "a reference to a Secret",
    KAFKA_ZH,
)
b(
    BROKER,
    'KafkaClient {\n  com.sun.security.auth.module.Krb5LoginModule required\n  useKeyTab=true\n  storeKey=true\n  principal="kafka-client-1@EXAMPLE.COM";\n};',
    'principal="kafka-client-1@EXAMPLE.COM"',
    "a Kerberos principal, no password",
    KAFKA_CNB,
)

# public keys and certificates
for src in (WG_XNET, WG_FBSD):
    pk = key32()
    b(
        KEYBLK,
        f"[Peer]\nPublicKey = {pk}\nAllowedIPs = 10.0.0.2/32\nEndpoint = vpn.example.com:51820",
        pk,
        "a WireGuard public key",
        src,
    )
pk = "X7EGm3T3IfodBcyilkaC89j0SH3XD6+/pwvp7Dgp5SU="
b(
    KEYBLK,
    f"B# cat /etc/wireguard/wg0.pub\n{pk}",
    pk,
    "a WireGuard public key (the man page's example, .pub file)",
    WG_NETBSD,
)
pk = key32()
b(
    KEYBLK,
    f"A# wgconfig wg0 add peer B {pk} --allowed-ips=10.0.1.1/32",
    pk,
    "a peer public key",
    WG_NETBSD,
)
pk = "AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43)
b(KEYBLK, f"ssh-ed25519 {pk} deploy@ci", pk, "an SSH public key", SYSTEMD_DEV)
raw = b64(b"\x30\x82\x01\x22" + rng.randbytes(290))
lines = [raw[i : i + 64] for i in range(0, len(raw), 64)]
b(
    KEYBLK,
    "-----BEGIN PUBLIC KEY-----\n" + "\n".join(lines) + "\n-----END PUBLIC KEY-----",
    lines[1],
    "a public key block",
    KC_CLIENT,
)
raw = b64(b"\x30\x82\x05\x0a" + rng.randbytes(900))
lines = [raw[i : i + 64] for i in range(0, len(raw), 64)]
b(
    KEYBLK,
    "<ca>\n-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n</ca>",
    lines[2],
    "a CA certificate in an .ovpn file",
    OVPN_PASTE,
)
raw = b64(b"\x30\x82\x03\x0a" + rng.randbytes(600))
lines = [raw[i : i + 64] for i in range(0, len(raw), 64)]
b(
    KEYBLK,
    "signing_certificate: |\n  -----BEGIN CERTIFICATE-----\n  "
    + "\n  ".join(lines)
    + "\n  -----END CERTIFICATE-----",
    lines[3],
    "a SAML signing certificate",
    KC_SAML,
)
age = "age1" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
b(KEYBLK, f"# public key: {age}", age, "an age public key (recipient)", SYSTEMD_DEV)
b(
    KEYBLK,
    "-----BEGIN OpenVPN Static key V1-----\n<removed real key>\n-----END OpenVPN Static key V1-----",
    "<removed real key>",
    "an already removed key",
    OVPN_REMOVED,
)
b(
    KEYBLK,
    "<key>\n-----BEGIN RSA PRIVATE KEY-----\n<removed real key>\n-----END RSA PRIVATE KEY-----\n</key>",
    "-----BEGIN RSA PRIVATE KEY-----",
    "the armour of a removed key",
    OVPN_REMOVED,
)

# placeholders documented as such
b(
    VP,
    "curl --user 'api:YOUR_API_KEY' -X POST https://api.mailgun.net/v1/inspect/accessibility",
    "YOUR_API_KEY",
    "a placeholder",
    MAILGUN_VAL,
)
b(
    VP,
    "echo \"export TWILIO_ACCOUNT_SID='ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX'\" > .env",
    "ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "a placeholder of x's",
    TWILIO,
)
b(
    VP,
    "echo \"export TWILIO_AUTH_TOKEN='your_auth_token'\" >> .env",
    "your_auth_token",
    "a placeholder",
    TWILIO,
)
b(
    VP,
    "TWILIO_ACCOUNT_SID=ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxx TWILIO_AUTH_TOKEN=yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    "a placeholder of y's",
    TWILIO_R,
)
b(
    VP,
    "export TWILIO_AUTH_TOKEN='################################'",
    "################################",
    "a placeholder of hashes",
    TWILIO,
)
b(
    VP,
    'setx TWILIO_API_SECRET "YOUR_TWILIO_API_SECRET"',
    "YOUR_TWILIO_API_SECRET",
    "a placeholder",
    TWILIO_SG,
)
b(
    VP,
    "const client = LDClient.initialize('YOUR_CLIENT_SIDE_ID', context);",
    "YOUR_CLIENT_SIDE_ID",
    "a placeholder",
    LD_JS,
)
b(
    VP,
    "Aliyun Access Key ID [None]: <Your AccessKey ID>\nAliyun Access Key Secret [None]: <Your AccessKey Secret>",
    "<Your AccessKey Secret>",
    "a placeholder",
    ALI_CLI,
)
b(
    VP,
    "$ s config add --AccessKeyID ****** --AccessKeySecret ******",
    "--AccessKeySecret ******",
    "masked",
    ALI_DEVS,
)
b(VP, "default * | AK:***f9b | Valid | cn-beijing | zh", "AK:***f9b", "masked by the CLI", ALI_CLI)
b(
    VP,
    "$ export PULUMI_ACCESS_TOKEN=<PULUMI_ACCESS_TOKEN>",
    "<PULUMI_ACCESS_TOKEN>",
    "a placeholder",
    PULUMI_SVC,
)
b(
    VP,
    '"customer_credentials": {"perplexity": {"api_key": "YOUR_PERPLEXITY_API_KEY"}}',
    "YOUR_PERPLEXITY_API_KEY",
    "a placeholder",
    PPLX_KW,
)
b(
    VP,
    'client = OpenAI(base_url="https://api.keywordsai.co/api/", api_key="YOUR_KEYWORDSAI_API_KEY")',
    "YOUR_KEYWORDSAI_API_KEY",
    "a placeholder",
    XAI_KW,
)
b(VP, "license_key: YOUR_LICENSE_KEY", "YOUR_LICENSE_KEY", "a placeholder", NR_JP)
b(
    VP,
    "NEXT_PUBLIC_POSTHOG_KEY=phc_abc123 # Safe for frontend",
    "phc_abc123",
    "a documented public project key placeholder",
    POSTHOG_SEC,
)
b(
    VP,
    "Basic auth requires [YOUR_KEY_ID] and [YOUR_KEY_SECRET]; base64token is YOUR_KEY_ID:YOUR_KEY_SECRET.",
    "YOUR_KEY_ID:YOUR_KEY_SECRET",
    "a placeholder",
    RZP_AUTH,
)
b(
    VP,
    'Invalid headers: BASIC base64token, basic base64token, Basic "base64token" and Basic $base64token.',
    "Basic $base64token",
    "a documented placeholder",
    RZP_AUTH,
)
b(HDR, "Authorization: Bearer YOUR_API_KEY", "YOUR_API_KEY", "a placeholder", POSTHOG_API)
b(HDR, "Authorization: token {token}", "{token}", "a template placeholder", PULUMI_API)
b(
    HDR,
    'curl -X POST "https://us.posthog.com/api/personal_api_keys/" -H "Authorization: Bearer $POSTHOG_PERSONAL_API_KEY"',
    "$POSTHOG_PERSONAL_API_KEY",
    "an env reference",
    POSTHOG_SEC,
)
b(
    HDR,
    "token: xxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "xxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "a placeholder of x's",
    POSTMARK_GB,
)
b(
    HDR,
    "X-Postmark-Server-Token: POSTMARK_API_TEST",
    "POSTMARK_API_TEST",
    "Postmark's documented public test token",
    POSTMARK_AUDIT,
)
b(
    HDR,
    '{ "SERVER_API_TOKEN" : "<token>", "ACCOUNT_API_TOKEN" : "<token>", "API_URL" : "https://api.postmarkapp.com" }',
    '"<token>"',
    "a placeholder",
    POSTMARK,
)
b(
    HDR,
    "Accept: application/vnd.pulumi+8\nContent-Type: application/json",
    "application/vnd.pulumi+8",
    "a media type",
    PULUMI_API,
)
b(
    HDR,
    "Do not send `Authorization: Bearer …`. Postmark ignores it and you will get a `401`.",
    "Authorization: Bearer …",
    "prose with an ellipsis",
    POSTMARK_AUTHMD,
)
b(
    CONF,
    '{\n  "credentials": {\n    "app.terraform.io": {\n      "token": "your-api-token-here"\n    }\n  }\n}',
    "your-api-token-here",
    "a placeholder",
    TF_LOGIN,
)
b(
    CONF,
    '"accessTokens": {\n  "https://api.pulumi.com": "<my-access-token>",\n  "s3://an-oss-state-bucket/vpc": ""\n}',
    "<my-access-token>",
    "a placeholder",
    PULUMI_CREDS,
)
b(
    CONF,
    '"auths": {\n  "https://index.docker.io/v1/": {\n    "auth": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx="\n  }\n}',
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx=",
    "a placeholder of x's",
    DOCKER_GIST,
)
b(
    CONF,
    '"auth": "<base64 encoded Docker username:password>",',
    "<base64 encoded Docker username:password>",
    "a placeholder",
    DOCKER_GIST,
)
b(
    CONF,
    '$ AUTH=$(echo -n "$REGISTRY_USERNAME:$REGISTRY_SECRET" | base64)',
    "$REGISTRY_USERNAME:$REGISTRY_SECRET",
    "env references",
    ZARF,
)
b(CONF, '"auths": {"$REGISTRY": {"auth": "$AUTH"}}', '"auth": "$AUTH"', "an env reference", ZARF)
b(
    CONF,
    'network={\n ssid="here your SSID"\n key_mgmt=WPA-PSK\n psk="here your passphrase"\n}',
    "here your passphrase",
    "a placeholder",
    WPA_PLACE,
)
b(
    CONF,
    'network={\n ssid="myessid"\n scan_ssid=1\n psk=XXXX\n}',
    "psk=XXXX",
    "a placeholder",
    WPA_GIST,
)
b(CONF, 'network={\n ssid="vhs"\n psk="<REDACTED>"\n}', "<REDACTED>", "already redacted", WPA_PASTE)
b(
    CONF,
    'network={\n ssid="987654321"\n psk=xxxxxxsecretxxxxxx\n}',
    "xxxxxxsecretxxxxxx",
    "a placeholder of x's",
    WPA_ANDROID,
)
b(
    CONF,
    "[Interface]\nPrivateKey = <contents-of-server-privatekey>\nAddress = 10.0.0.1/24",
    "<contents-of-server-privatekey>",
    "a placeholder",
    WG_FBSD,
)
b(
    CONF,
    "PrivateKey — a base64 private key generated by wg genkey. Required.",
    "a base64 private key generated by wg genkey",
    "prose from a man page",
    WG_FBSD,
)
b(
    CONF,
    "A# wgconfig wg0 set private-key /etc/wireguard/wg0",
    "private-key /etc/wireguard/wg0",
    "a path to a key",
    WG_NETBSD,
)
b(
    CONF,
    "auth-user-pass /etc/openvpn/GR28_TCP.auth",
    "/etc/openvpn/GR28_TCP.auth",
    "a path to a credentials file",
    OVPN_PASTE,
)
b(
    CONF,
    "Add a file /etc/openvpn/auth.txt with two lines:\nyour_username\nyour_password",
    "your_password",
    "a placeholder",
    OVPN_GIST,
)
b(
    CONF,
    '"OpenVPN.User": "abc ${LOGIN_EMAIL} def",',
    "${LOGIN_EMAIL}",
    "a substitution variable",
    OVPN_SHILL,
)
b(
    CONF,
    '"OpenVPN.StaticChallenge": "Please enter token OTP",',
    "Please enter token OTP",
    "a prompt",
    OVPN_SHILL,
)
b(CONF, "ldap_default_authtok => $ldap_password,", "$ldap_password", "a Puppet variable", LDAP_SSSD)
b(
    CONF,
    "$ldap_password = hiera('profile::sssd_ldap::ldap_password'),",
    "hiera('profile::sssd_ldap::ldap_password')",
    "a lookup, not a value",
    LDAP_SSSD,
)
b(CONF, "bind_password=your_password", "your_password", "a placeholder", LDAP_HUE)
b(
    CONF,
    "String bindPassword = env.LDAP_BIND_PASSWORD;",
    "env.LDAP_BIND_PASSWORD",
    "an env reference",
    JENKINS_LDAP,
)
b(
    CONF,
    "passwordSecret:\n  secretName: my-connect-secret-name\n  password: my-password-field-name",
    "my-password-field-name",
    "the name of a key in a Secret, not a password",
    KAFKA_RH,
)
b(
    CONF,
    "properties:\n  password:\n  username:",
    "password:\n  username:",
    "an empty template",
    AIRLOCK,
)
b(CONF, "username XXXX\npassword XXXX", "password XXXX", "a placeholder", MQTT_BRIDGE)
b(
    CONF,
    "password_file C:\\...\\mosquitto\\passwordfile.pwd",
    "passwordfile.pwd",
    "a path",
    MQTT_TABLE,
)
b(
    CONF,
    "EnvironmentFile=-/etc/patroni/patroni.env\nExecStart=/usr/bin/patroni /etc/patroni.yml",
    "EnvironmentFile=-/etc/patroni/patroni.env",
    "a path to an env file",
    PATRONI,
)
b(
    CONF,
    "[Service]\nLoadCredential=db-password:/etc/credstore/db-password\nExecStart=/usr/bin/app --password-file=${CREDENTIALS_DIRECTORY}/db-password",
    "${CREDENTIALS_DIRECTORY}/db-password",
    "a credentials path",
    SYSTEMD_DEV,
)
b(
    CONF,
    'PGPASSWORD = "${pkgs.coreutils}/bin/cat ${ config.age.secrets.secret.path}";',
    "${ config.age.secrets.secret.path}",
    "a Nix reference to a secret file",
    SYSTEMD_NIX,
)
b(
    CONF,
    "sops.secrets.service-password = {};",
    "sops.secrets.service-password",
    "a secret's name",
    SYSTEMD_NIX,
)
b(
    CONF,
    'credentials "app.terraform.io" {\n  token = var.tfe_token\n}',
    "var.tfe_token",
    "a variable reference",
    TF_LOGIN,
)
b(
    CONF,
    "global:\n  licenseKey: ${NEW_RELIC_LICENSE_KEY}\n  cluster: prod-eu",
    "${NEW_RELIC_LICENSE_KEY}",
    "an env reference",
    NR_PULUMI,
)
b(
    CONF,
    "account_sid = ENV['TWILIO_ACCOUNT_SID']\nauth_token = ENV['TWILIO_AUTH_TOKEN']",
    "ENV['TWILIO_AUTH_TOKEN']",
    "an env reference",
    TWILIO,
)
b(
    CONF,
    'token <- Sys.getenv("TWILIO_TOKEN")',
    'Sys.getenv("TWILIO_TOKEN")',
    "an env reference",
    TWILIO_RENV,
)
b(
    CONF,
    "secret: \"{{ lookup('env', 'KC_CLIENT_SECRET') }}\"",
    "lookup('env', 'KC_CLIENT_SECRET')",
    "an Ansible lookup",
    KC_ANSIBLE,
)
b(
    CONF,
    'signing_private_key=(lambda path: open(path).read())("saml-key.pem"))',
    '"saml-key.pem"',
    "a file name",
    KC_SAML,
)
b(
    CONF,
    "key_mgmt=WPA-PSK\npairwise=CCMP TKIP\ngroup=CCMP TKIP WEP104 WEP40",
    "key_mgmt=WPA-PSK",
    "a setting name",
    WPA_ANDROID,
)
b(CONF, "authentication-none;\nprivacy-none;", "authentication-none;", "a setting", SNMP_JUNOS)

# public ids documented as public
k = "phc_" + r(ALNUM, 43)
b(
    VP,
    f"posthog.init('{k}', {{ api_host: 'https://eu.i.posthog.com' }})",
    k,
    "a PostHog project key, documented as public",
    POSTHOG_MINT,
)
k = "phc_sgKidIE4WYYFSJHd8LEYY1UZqASpnfQKeMqlJfSXwqg"
b(
    VP,
    f'pub const PUBLIC_POSTHOG_PROJECT_KEY: &str = "{k}";',
    k,
    "a public project key published in docs.rs",
    POSTHOG_RERUN,
)
k = r(HEX, 24)
b(
    VP,
    f"const client = createClient('{k}', context);",
    k,
    "a LaunchDarkly client-side ID, documented as not secret",
    LD_KEYS,
)
k = "mob-" + uid()
b(
    VP,
    f'LDConfig(mobileKey: "{k}", autoEnvAttributes: .enabled)',
    k,
    "a LaunchDarkly mobile key, documented as not needing to be secret",
    LD_KEYS,
)
k = "FLWPUBK_TEST-32193bba8dab84e3d9c4525c85ea7a12-X"
b(
    VP,
    f'FlutterwaveCheckout({{ public_key: "{k}", tx_ref: "txref-81123" }})',
    k,
    "Flutterwave's documented public key example",
    FLW,
)
k = "rzp_test_" + r(ALNUM, 14)
b(
    VP,
    f'var options = {{ "key": "{k}", "amount": "50000", "currency": "INR", "order_id": "order_{r(ALNUM, 14)}" }};',
    k,
    "a Razorpay key_id in checkout.js, public",
    RZP_KEYS,
)
k = "NRJS-" + r(HEX, 19)
b(
    VP,
    f'window.NREUM.loader_config = {{ accountID: "1234567", licenseKey: "{k}", applicationID: "601"}};',
    k,
    "a New Relic browser key, shipped in every page",
    NR_KEYS,
)
k = "dvc_client_" + r(HEX, 8) + "_" + r(HEX, 32)
b(
    VP,
    f"const devcycleClient = initializeDevCycle('{k}', user)",
    k,
    "a DevCycle client key, for client-side use",
    DEVCYCLE,
)
k = "LTAI" + r(ALNUM, 20)
b(
    VP,
    f"AccessKey ID (public identifier): {k}",
    k,
    "an AccessKey ID alone, documented as the public identifier",
    ALI_SLS,
)

# code identifiers, names, versions, colours, base64 of public data
b(
    LOG,
    "RestClient requires an Account SID and Auth Token set explicitly or via the TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN environment variables",
    "TWILIO_AUTH_TOKEN",
    "an env variable name",
    TWILIO,
)
b(
    LOG,
    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule",
    "PlainLoginModule",
    "a class name",
    KAFKA_CNB,
)
b(
    LOG,
    "-Djava.security.auth.login.config=/etc/kafka/kafka_client_jaas.conf",
    "/etc/kafka/kafka_client_jaas.conf",
    "a path",
    KAFKA_CNB,
)
b(
    LOG,
    'keyTab="/etc/security/keytabs/kafka_client.keytab"\nprincipal="kafka-client-1@EXAMPLE.COM";',
    "kafka_client.keytab",
    "a keytab path",
    KAFKA_CNB,
)
b(
    LOG,
    "token_endpoint_auth_method: client_secret_basic",
    "client_secret_basic",
    "an OIDC method name",
    KC_CLIENT,
)
b(
    LOG,
    "SecurityRealm ldap_realm = new LDAPSecurityRealm(server, rootDN, userSearchBase, userSearch, groupSearchBase, bindDn, bindPassword, inhibitInferRootDN)",
    "bindPassword",
    "a parameter name",
    JENKINS_LDAP,
)
b(
    LOG,
    "Jul 20 07:08:33 ubnt openvpn[25204]: WARNING: this configuration may cache passwords in memory -- use the auth-nocache option to prevent this",
    "auth-nocache",
    "a warning in a log",
    OVPN_LOG,
)
b(
    LOG,
    "Control Channel Authentication: using '/config/auth/integrity/tls.key' as a OpenVPN static key file",
    "/config/auth/integrity/tls.key",
    "a path in a log",
    OVPN_LOG,
)
b(
    LOG,
    "OpenVPN 2.5.3 arm-buildroot-linux-gnueabi [SSL (OpenSSL)] [LZO] [LZ4] [EPOLL] [MH/PKTINFO] [AEAD] built on Aug 6 2021",
    "2.5.3",
    "a version string",
    OVPN_GIST,
)
b(
    LOG,
    "Viewing docs for New Relic v5.72.2 published on Tuesday, Jun 23, 2026 by Pulumi",
    "v5.72.2",
    "a version",
    NR_PULUMI,
)
b(
    LOG,
    "snmpget: Authentication failure (incorrect password, community or key) (Sub-id not found: (top) -> sysUpTime)",
    "incorrect password, community or key",
    "an error message",
    SNMP_NETKILLER,
)
b(
    LOG,
    "SNMPv2-MIB::sysObjectID.0 = OID: NET-SNMP-MIB::netSnmpAgentOIDs.10\nDISMAN-EVENT-MIB::sysUpTimeInstance = Timeticks: (158357) 0:26:23.57",
    "NET-SNMP-MIB::netSnmpAgentOIDs.10",
    "SNMP output",
    SNMP_RH,
)
b(
    LOG,
    "TLS: Initial packet from [AF_INET]155.4.14.28:1196, sid=c65c0bd2 f03b51df",
    "sid=c65c0bd2 f03b51df",
    "a TLS session id in a log",
    OVPN_LOG,
)
b(
    LOG,
    ".btn-primary { color: #1a73e8; background: #f4f6fa; border-color: #0b57d0; }",
    "#0b57d0",
    "CSS colours",
    COOKIE_HINT,
)
png = b64(b"\x89PNG\r\n\x1a\n" + rng.randbytes(90))
b(LOG, f'<img alt="logo" src="data:image/png;base64,{png}">', png, "a base64 image", SRI_MDN)
font = b64(b"wOF2" + rng.randbytes(120))
b(
    LOG,
    f"@font-face {{ font-family: Inter; src: url(data:font/woff2;base64,{font}) format('woff2'); }}",
    font,
    "a base64 font",
    SRI_MDN,
)
blob = b64(b'{"type":"service_account","project_id":"demo"}')
b(LOG, f"echo {blob} | base64 -d", blob, "base64 of a non-secret JSON fragment", AUTHJSON)
b(
    LOG,
    "Client-side IDs are alphanumeric and do not contain dashes.",
    "Client-side IDs",
    "prose",
    LD_KEYS,
)
b(
    LOG,
    "SDK keys always start with the prefix `sdk-`. Mobile keys always start with the prefix `mob-`.",
    "`sdk-`",
    "prose naming a prefix",
    LD_KEYS,
)
b(LOG, "Test keys will always have _TEST in the prefix", "_TEST", "prose", FLW)
b(
    LOG,
    "License Key: The primary key for ingesting data into New Relic. This 40-character key is account-wide.",
    "40-character key",
    "prose",
    NR_KEYS,
)

# SQL look-alikes
b(
    SQL,
    'CREATE USER <username> PROFILE "DEFAULT" IDENTIFIED BY <password> DEFAULT TABLESPACE "USERS";',
    "IDENTIFIED BY <password>",
    "a placeholder",
    ORA_BDD,
)
b(
    SQL,
    "create user '<username>'@'%' identified by '<password>';",
    "'<password>'",
    "a placeholder",
    ORA_BDD,
)
b(SQL, "create user <USER> identified by <PASSWorD>;", "<PASSWorD>", "a placeholder", MYSQL_CSDN)
b(
    SQL,
    "CREATE USER ops$jdoe IDENTIFIED EXTERNALLY;",
    "IDENTIFIED EXTERNALLY",
    "no password",
    ORA_IDENT,
)
b(
    SQL,
    "CREATE USER 'app'@'localhost' IDENTIFIED WITH auth_socket;",
    "IDENTIFIED WITH auth_socket",
    "a plugin, no password",
    MYSQL_NETKILLER,
)
b(
    SQL,
    "GRANT SELECT ON db2.invoice TO 'jeffrey'@'localhost';",
    "GRANT SELECT ON db2.invoice",
    "a grant without a password",
    MYSQL_CSDN,
)
b(
    SQL,
    "GRANT USAGE ON *.* TO 'jeffrey'@'localhost' WITH MAX_QUERIES_PER_HOUR 90;",
    "MAX_QUERIES_PER_HOUR 90",
    "a grant without a password",
    MYSQL_CSDN,
)
b(
    SQL,
    "mysql> select host, user, password from user;",
    "select host, user, password from user",
    "a query naming a column",
    MYSQL_WIKI,
)
b(
    SQL,
    "CREATE USER 'pig'@'%' IDENTIFIED BY '';",
    "IDENTIFIED BY ''",
    "an empty password",
    MYSQL_CSDN2,
)
b(
    SQL,
    "ALTER USER psmith IDENTIFIED BY VALUES 'S:' || :hash;",
    ":hash",
    "a bind variable",
    ORA_IDENT,
)

# URL and cookie look-alikes
b(
    URLQ,
    "https://api.example.com/v1/orders?page=2&per_page=100&sort=created_at",
    "per_page=100",
    "paging parameters",
    RZP_AUTH,
)
b(
    URLQ,
    "https://postmarkapp.com/developer/api/overview?utm_source=docs&utm_medium=link#authentication",
    "utm_source=docs",
    "tracking parameters",
    POSTMARK,
)
b(
    URLQ,
    "https://app.posthog.com/project/settings#project-api-key",
    "#project-api-key",
    "an anchor named after a key",
    POSTHOG_RERUN,
)
b(
    URLQ,
    "GET https://api.mailgun.net/v4/address/validate?address=a@example.org&api_key=YOUR_API_KEY",
    "api_key=YOUR_API_KEY",
    "a placeholder",
    MAILGUN_VAL,
)
b(
    URLQ,
    "https://login.example.com/authorize?response_type=code&client_id=portal&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&state=af0ifjsldkj",
    "client_id=portal",
    "an authorization request (public client id)",
    KC_OIDC,
)
b(
    URLQ,
    "Set-Cookie: <cookie-name>=<cookie-value>; Domain=<domain-value>; Secure; HttpOnly",
    "<cookie-value>",
    "syntax placeholders",
    COOKIE_MDN,
)
b(
    URLQ,
    'response.setHeader("Set-Cookie", "tom=cool; Max-Age=10; HttpOnly", true);',
    "tom=cool",
    "a non-secret cookie in a test",
    COOKIE_FX,
)
b(
    URLQ,
    "Set-Cookie: theme=dark; Path=/; Max-Age=31536000; SameSite=Lax",
    "theme=dark",
    "a preference cookie",
    COOKIE_HINT,
)
b(URLQ, "Set-Cookie: lang=de-DE; Path=/", "lang=de-DE", "a preference cookie", COOKIE_MDN)
b(
    URLQ,
    "Set-Cookie: your.cookie.name=some-hash-uuid-here; domain=your-backend-hostname.com; path=/; HttpOnly; secure",
    "some-hash-uuid-here",
    "a placeholder",
    COOKIE_PASTE,
)
b(
    URLQ,
    "https://help.aliyun.com/zh/cli/configure-cli?spm=a2c4g.11186623.0.0.5f2e1c7dQx9mZb",
    "spm=a2c4g.11186623.0.0.5f2e1c7dQx9mZb",
    "an analytics parameter",
    ALI_ZH,
)

# CLI look-alikes
b(
    CLI,
    "snmpwalk -v3 -l authPriv -u $USER -a MD5 -A $PASSWORD -x DES -X $SECRET $HOST",
    "-A $PASSWORD",
    "env references",
    SNMP_GIST,
)
b(
    CLI,
    "snmpwalk -v 3 -a md5 -A PASSWORD -l authNoPriv -u MYUSERNAME IP.ADD.RE.SS",
    "-A PASSWORD",
    "a placeholder",
    SNMP_NETKILLER,
)
b(
    CLI,
    'ldapsearch -x -D "CN=jenkins,OU=ServiceAccounts,DC=dev,DC=net" -W -H ldaps://dc01.dev.net',
    " -W ",
    "prompts for the password",
    LDAP_SEARCH,
)
b(
    CLI,
    "sudo mosquitto_passwd -c /etc/mosquitto/passwd YOUR_USERNAME",
    "YOUR_USERNAME",
    "a placeholder",
    MQTT_RPI,
)
b(CLI, "mc-ldap-bind-password password", "mc-ldap-bind-password password", "a synopsis", LDAP_IBM)
b(CLI, "wpa_passphrase [ ssid ] [ passphrase ]", "[ passphrase ]", "a synopsis", WPA_MAN)
b(
    CLI,
    "curl -s --user api:key-'$1' https://api.mailgun.net/v2/$2.mailgun.org/messages",
    "key-'$1'",
    "a shell positional parameter",
    MAILGUN_GIST,
)
b(CLI, "aliyun configure --mode OAuth --profile default", "--mode OAuth", "no credential", ALI_ZH)
b(CLI, "echo -n <password> > <my_password>.txt", "<password>", "a placeholder", KAFKA_RH)
b(
    CLI,
    "snmpwalk -v2c -c $COMMUNITY -On 192.168.1.161 hrStorageAllocationUnits",
    "-c $COMMUNITY",
    "an env reference",
    SNMP_RH,
)

# other-language look-alikes
b(
    LANG,
    "云账号 AccessKey 是您访问阿里云 API 的密钥,具有该账户完全的权限,请您务必妥善保管!",
    "请您务必妥善保管",
    "prose in Chinese",
    ALI_DEVS,
)
b(
    LANG,
    "この文字列は、ネットワーク上でクリアテキストで渡されますが、安全であるとはみなされません。",
    "安全であるとはみなされません",
    "prose in Japanese",
    SNMP_RH,
)
b(
    LANG,
    "La API key de tu proyecto de PostHog. Debe empezar con `phc_`.",
    "Debe empezar con `phc_`",
    "prose in Spanish",
    POSTHOG_MINT,
)
b(
    LANG,
    "Cette clé est un jeton côté client destiné à être public.",
    "destiné à être public",
    "prose in French",
    POSTHOG_MINT,
)
b(
    LANG,
    "Пароль: (не задан, используется Kerberos)",
    "(не задан, используется Kerberos)",
    "no password, in Russian",
    ASPOSE_RU,
)
b(LANG, "密码：请向管理员索取", "请向管理员索取", "no value, in Chinese", MYSQL_CSDN2)
b(
    LANG,
    "SASL PLAIN 机制将以明文形式通过网络传输用户名和密码。",
    "以明文形式通过网络传输用户名和密码",
    "prose in Chinese",
    KAFKA_ZH,
)
b(
    LANG,
    "1단계: 공식 Perplexity AI API 키 받기",
    "공식 Perplexity AI API 키 받기",
    "a heading in Korean",
    APIDOG_KR,
)
b(
    LANG,
    "ライセンスキーとは: 40 文字の 16 進数文字列",
    "40 文字の 16 進数文字列",
    "prose in Japanese",
    NR_QIITA,
)
b(LANG, "Contraseña: ********", "********", "masked, in Spanish", ALI_ES)


def main() -> None:
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    secrets = sum(row["expect"] == "secret" for row in ROWS)
    print(f"{OUT.name}: {secrets} secrets, {len(ROWS) - secrets} look-alikes")


if __name__ == "__main__":
    main()
