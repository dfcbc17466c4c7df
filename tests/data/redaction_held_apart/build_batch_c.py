"""Batch C of the held-apart redaction set: rewrites batch-c.jsonl beside this file.

Written 2026-12-02 from other tools' documentation, read for this batch only, by someone who did
not read wikimem's redaction rules, their rule data or the other held-apart files while writing it
(blind to the rules). Each row has the fields of the other held-apart files (`class`, `expect`,
`context` and `secret` or `value`) plus `source`, the address of the page the shape was written
from, and for look-alikes a `reason`. A context with two secrets gives two rows with the same
context. Every value is random (fixed seed) and fake; only values documented as examples by their
vendor (and marked so in `reason`) are copied, because they are the look-alike being tested.

Measure it with `python -m tests.test_redaction_batches c` (add `-v` for every miss); it is measured,
never fitted to: when a rule changes because of a row here, write a batch D from other pages.
"""

# ruff: noqa: E501  (each context stays as it appears in a log)

from __future__ import annotations

import base64
import json
import random
import string
import urllib.parse
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "batch-c.jsonl"
rng = random.Random(20261202_3)

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
UPDIG = UPPER + DIGITS


def r(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def pw(n: int = 16, symbols: str = "!#%*-_.") -> str:
    """A random password with every class in it."""
    chars = [rng.choice(LOWER), rng.choice(UPPER), rng.choice(DIGITS), rng.choice(symbols)]
    chars += [rng.choice(ALNUM + symbols) for _ in range(n - 4)]
    rng.shuffle(chars)
    return "".join(chars)


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def tg() -> str:
    """A Telegram bot token: bot id, colon, 35 characters starting with AA."""
    return f"{rng.randint(1_000_000_000, 9_999_999_999)}:AA{r(B64URL, 33)}"


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
DO_GG = "https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/digitalocean_personal_token_v1"
DO_MR = "https://gitlab.com/gitlab-org/security-products/analyzers/secrets/-/merge_requests/178"
DO_GIST = "https://gist.github.com/ivanvanderbyl/f6b4c03d8181411c2258"
VAULT_UP = "https://developer.hashicorp.com/vault/docs/upgrading/upgrade-to-1.0.0"
VAULT_JA = "https://ibm.github.io/japan-technology/onboarding-docs/vault/03_authentication/tokens"
VAULT_TUT = "https://developer.hashicorp.com/vault/tutorials/auth-methods/tokens/vault-deploy%3Ahcp"
GITLAB = "https://gitlab.com/gitlab-org/gitlab/-/issues/342327"
SHOPIFY = "https://shopify.dev/changelog/length-of-the-shopify-access-token-is-increasing"
SHOPIFY_AUTH = "https://shopify.dev/docs/api/usage/authentication"
DOPPLER = "https://docs.doppler.com/reference-link/api"
DOPPLER_NANGO = "https://nango.dev/docs/api-integrations/doppler/connect"
DOPPLER_GIST = "https://gist.github.com/ryan-blunden/2eb3c72bd58fdc1e17ee5dafe2a98981"
DOKPLOY = "https://docs.dokploy.com/docs/core/secrets-providers/doppler"
GRAFANA_HTTP = "https://www.grafana.com/docs/grafana-cloud/developer-resources/api-reference/http-api/authentication"
GRAFANA_CLOUD = (
    "https://Grafana.com/docs/grafana-cloud/developer-resources/api-reference/cloud-api/"
)
GRAFANA_SA = "https://www.pulumi.com/registry/packages/grafana/api-docs/oss/serviceaccounttoken/"
DYNATRACE = "https://docs.dynatrace.com/docs/shortlink/api-authentication"
DYNATRACE_CF = "https://github.com/cloudfoundry/java-buildpack/issues/967"
POSTMAN = "https://learning.postman.com/docs/reference/postman-api/authentication"
GROQ = "https://www.skills.sh/jeremylongshore/claude-code-plugins-plus-skills/groq-security-basics"
GROQ_ENV = "https://raw.githubusercontent.com/Krishiv-Thakuria/openflow/dad40074f9af02643f32494cdccfa61a17223f41/.env.example"
GROQ_APP = "https://huggingface.co/spaces/pasupuletkarthiksai/medico-bot/blob/main/src/auth_app.py"
SQUARE = "https://developer.squareup.com/docs/build-basics/access-tokens"
SQUARE_PHP = "https://developer.squareup.com/forums/t/php-initialization-for-square/1606/2"
SQUARE_APPID = (
    "https://developer.squareup.com/forums/t/where-do-i-put-the-production-access-token/2558/5"
)
SENTRY_MINT = "https://mintlify.com/getsentry/sentry/api/authentication"
SENTRY_TOKENS = "https://www.mintlify.com/getsentry/sentry/api/api-tokens"
SENTRY_AUTH = "https://docs.sentry.io/api/auth"
SENTRY_ORG = "https://docs.Sentry.io/product/accounts/auth-tokens/"
HF_MIX = "https://hexdocs.pm/huggingface_client/Mix.Tasks.Hf.Login.html"
HF_DOCS = "https://huggingface.co/docs/hub/security-tokens"
HF_R = "https://rdrr.io/cran/huggingfaceR/man/hf_set_token.html"
NOTION = "https://www.skills.sh/letta-ai/lettabot/notion"
NOTION_GG = "https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/notion_integration_token"
DOCKER_TOKEN = (
    "https://docs.docker.com/reference/api/hub/latest/operations/AuthCreateAccessToken.md"
)
DOCKER_PY = "https://pypi.org/project/pydockerhub/1.0.0"
STRIPE_WHMCS = "https://docs.whmcs.com/8-13/payments/payment-gateway-tutorials/add-restricted-api-keys-to-stripe/"
STRIPE_KEYS = "https://docs.stripe.com/keys?locale=en-US"
TG_CN = "https://www.cnblogs.com/Undefined443/p/18616128"
TG_SWIFT = "https://github.com/reneargento/swift-chat-bot"
TG_JAVA = "https://github.com/Harium/sunbot-telegram/blob/main/README.md"
TG_NOTIFY = "https://github.com/guanguans/notify/blob/main/src/Telegram/README.md"
TG_PASTE = "https://pastebin.com/HijYaMVt"
TF_LOGIN = "https://www.mintlify.com/hashicorp/terraform/cli/login"
PSCALE_TOK = "https://planetscale.com/docs/cli/service-tokens.md"
PSCALE_CONN = "https://PlanetScale.com/docs/concepts/connection-strings"
PSCALE_NODE = "https://www.npmjs.com/package/planetscale-node"
PSCALE_NPM = "https://socket.dev/npm/package/planetscale/overview/2.1.0"
FLY_SKILL = "https://raw.githubusercontent.com/jeremylongshore/claude-code-plugins-plus-skills/main/plugins/saas-packs/flyio-pack/skills/flyio-install-auth/SKILL.md"
FLY_DEPLOY = "https://Fly.io/docs/reference/deploy-tokens/"
FLY_ACTIONS = "https://github.com/superfly/flyctl-actions"
OPSGENIE = "https://dev.to/yathartha_shekhar/opsgenie-api-keys-docs-and-creating-alerts-5056"
OPSGENIE_HB = "https://thwack.solarwinds.com/kb/articles/227-opsgenie-api-https-monitor"
KLAVIYO = "https://developers.klaviyo.com/en/v2024-05-15/docs/authenticate"
KLAVIYO_KEYS = (
    "https://www.skills.sh/jeremylongshore/tons-of-skills-marketplace/klaviyo-security-basics"
)
PAYLOAD = (
    "https://payloadcms.com/community-help/discord/api-works-in-browser-but-throws-403-on-postman"
)
PAGERDUTY = "https://mcpservers.org/de/agent-skills/anthropic/pagerduty-api"
PAGERDUTY_JS = "https://raw.githubusercontent.com/PagerDuty/pdjs/HEAD/README.md"
SIGV4 = "https://docs.aws.amazon.com/es_es/IAM/latest/UserGuide/reference_sigv-authentication-methods.html"
SIGV4_R = "https://search.r-project.org/CRAN/refmans/aws.signature/html/signature_v4_auth.html"
CONTAINERS_AUTH = "https://man.cx/containers-auth.json(5)"
ZARF = "https://docs.zarf.dev/tutorials/publish_and_deploy_docker_config.html"
ECS_AUTH = "https://pkg.go.dev/github.com/meteor/amazon-ecs-agent@v1.5.0/agent/engine/dockerauth"
CRED_SIMPLE = "https://github.com/canghailan/docker-credential-simple"
GCHAT = "https://github.com/caronc/apprise/wiki/Notify_googlechat"
GCHAT_GG = "https://docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/google_chat_webhook_url"
GCHAT_KESTRA = "https://kestra.io/plugins/plugin-notifications/tasks/google/io.kestra.plugin.notifications.google.GoogleChatIncomingWebhook"
GCHAT_BROADCOM = "https://developer.broadcom.com/xapis/application-catalog/latest/data-structures/InlineGoogleChatNotificationProvider1"
DINGTALK = "https://blog.csdn.net/weixin_43692357/article/details/104432691"
DINGTALK_SDK = "https://app.unpkg.com/dingtalk-robot-sdk@1.1.0/files/src/robot.js"
DINGTALK_PY = (
    "https://huggingface.co/spaces/Ryan6677/airss/commit/fea685a2cee482a0a85c200ec49dce525f15eeed"
)
DINGTALK_PHP = "https://learnku.com/articles/68108"
WECOM = "https://docs.zhuonian.xyz/api/wecom-webhook.html"
FEISHU = "http://gantiao.com.cn/post/18861410.html"
DISCORD = (
    "https://github.com/Akizo96/de.isekaidev.discord.wbbBridge/wiki/How-to-get-Webhook-ID-&-Token"
)
DISCORD_PIPE = "https://github.com/Hexiro/discord-pipe-logger"
DISCORD_APPRISE = "https://github.com/sinspired/apprise_vercel/wiki/Discord"
DISCORD_WRAP = "https://github.com/knutkirkhorn/discord-webhook-wrapper"
SLACK = "https://containrrr.dev/shoutrrr/v0.4/services/slack"
SLACK_RACKN = "https://docs.rackn.io/dev/resources/objects/params/slack-service-url"
AZURE_CS = "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/storage/common/storage-configure-connection-string.md"
AZURE_EX = "https://hexdocs.pm/ex_microsoft_azure_storage/ExMicrosoftAzureStorage.Storage.html"
AZURE_RS = "https://docs.rs/crate/azure_storage/latest/source/src/connection_string.rs"
MSSQL = "https://cnblogs.com/hyouhaku/archive/2005/04/25/144975.html"
MSSQL_CN = "https://cnblogs.com/mc67/p/5021092.html"
PGPASS = "https://www.postgresql.org/docs/8.4/static/libpq-pgpass.html"
REDIS_AUTH = "https://redis.io/docs/latest/commands/AUTH/"
REDIS_TP = "https://tutorialspoint.com/redis/connection_auth.htm"
REDIS_RS = "https://docs.rs/embedded-redis/0.4.0/embedded_redis/commands/auth/index.html"
ORACLE_URL = "https://cnblogs.com/wucg/archive/2011/11/22/2259635.html"
ORACLE_JDBC = "https://docs.oracle.com/en/database/oracle/oracle-database/21/jajdb"
ORACLE_EZ = "https://cnblogs.com/tracy/p/1793367.html"
GO_DSN = "https://blog.csdn.net/weixin_30951231/article/details/97848326"
DSN_RS = "https://github.com/nbari/dsn"
GORM_DSN = "https://github.com/chenyusolar/framework/blob/4ca5139bebf9/database/gorm/dsn.go"
PG_JDBC = "https://riptutorial.com/postgresql/topic/9633/postgresql"
PG_DATADIRECT = "https://docs.progress.com/bundle/datadirect-postgresql-jdbc-60/page/Passing-the-connection-URL.html"
PG_JDBC_PROPS = "https://riptutorial.com/postgresql/example/29743/connecting-with-java-sql-drivermanager-and-properties"
PG_JDBC_CRUNCHY = "https://access.crunchydata.com/documentation/pgjdbc/42.3.3/connect.html"
QUARKUS_PG = "https://docs.redhat.com/zh-cn/documentation/red_hat_build_of_quarkus/3.20/html/configure_data_sources/postgresql-2"
CF_VCAP = "https://pastebin.com/xKww4wBR"
SSHPASS = "https://raw.githubusercontent.com/jaywcjlove/linux-command/master/command/sshpass.md"
SSHPASS_CN = "https://cnblogs.com/vman/p/5530375.html"
SSHPASS_CSDN = "https://blog.csdn.net/qiaomuv/article/details/135397970"
SSHPASS_LC = "https://www.cnblogs.com/hflinux/p/18258493"
LDAP_OBSD = "https://man.openbsd.org/OpenBSD-6.8/ldap.1"
LDAP_SBIND = "https://opensource.apple.com/source/OpenLDAP/OpenLDAP-143.2/OpenLDAP/libraries/libldap/sbind.c.auto.html"
SMBCLIENT = "https://www.unix.com/man-page/opensolaris/1/smbclient/"
SMBMOUNT = "https://www.unix.com/302261946-post1.html"
MYSQLDUMP = "https://riptutorial.com/mysql/example/1963/specifying-username-and-password"
HTPASSWD = "https://unix.com/man-page/debian/1/htpasswd/"
KUBECTL_CRED = "https://fig.io/manual/kubectl/config/set-credentials"
KUBECTL_OLD = (
    "https://github.com/elipapa/kubernetes/blob/release-0.16/docs/kubectl_config_set-credentials.md"
)
KUBEADM_USER = (
    "https://kubernetes.io/docs/reference/setup-tools/kubeadm/generated/kubeadm_kubeconfig_user"
)
KUBECONFIG_TPL = (
    "https://raw.githubusercontent.com/shamimice03/Kubernetes_RBAC/main/kubeconfig-template.yaml"
)
CARGO = "https://man.archlinux.org/man/cargo-login.1.en"
COMPOSER = "https://docs.rs/crate/composer-auth/latest/source/README.md"
RCLONE_OBSCURE = "https://rclone.org/commands/rclone_obscure/"
RCLONE_REDACT = "https://rclone.org/commands/rclone_config_redacted/"
RCLONE_GIST = "https://gist.github.com/csereno/e1f94a2388d2603d09e09250e537fd31"
S3CFG = "https://gist.github.com/greyhoundforty/a4a9d80a942d22a8a7bf838f7abbcab2"
S3CMD = "https://gist.github.com/ryanjones/68ec194f015a2114fa01f86ef1e3e46a"
MAVEN = "https://pastebin.com/TzumiPwP"
MAVEN_ENV = "https://android.googlesource.com/platform/external/guava/+/60d4589433bd6b2fe7d084d8c57bd65c77553335/util/settings.xml"
MAVEN_TPL = "https://gist.github.com/rmkanda/5728cf99b5dd86b33429777efd01d7cc"
YARNRC = "https://verdaccio.org/docs/setup-yarn/"
YARNRC_FA = "https://github.com/FortAwesome/Font-Awesome/issues/16156"
NPMRC = "https://gist.github.com/unicornware/bde825b68f0482de8a217a67f51cb79e"
NETRC = "https://everything.curl.dev/usingcurl/netrc"
NETRC_OPT = (
    "https://android.googlesource.com/platform/external/curl/+/011325ff2/docs/cmdline-opts/netrc.md"
)
YAML_BLOCK = "https://redocly.com/docs/yaml/blocks-and-flows/"
PWSH = "https://psmodule.io/PSCredential/Functions/New-PSCredential"
PWSH_GIST = "https://gist.github.com/magnetikonline/a6db9c3835a65685df86"
PWSH_CARBON = (
    "https://powershellgallery.com/packages/Carbon/1.9.0/Content/Security%5CNew-Credential.ps1"
)
PWSH_POSH = "https://www.powershellgallery.com/packages/PoshFunctions/2.2.4/Content/Functions%5CNew-Credential.ps1"
SRI_MDN = (
    "https://developer.mozilla.org/en-US/docs/Web/Security/Subresource_Integrity?retiredLocale=nl"
)
SRI_W3 = "https://W3schools.com/tags/att_script_integrity.asp"
SRI_NPM = "https://npmjs.com/package/@hint/hint-sri"
ANSIBLE_VAULT = "https://docs.ansible.com/ansible/2.9/user_guide/playbooks_vault.html"
ANALOGSEA = "https://rdrr.io/cran/analogsea/man/do_oauth.html"
DO_DART = (
    "https://pub.dev/documentation/digitalocean/latest/digitalocean/DigitalOcean/oAuthToken.html"
)
KESTRA = GCHAT_KESTRA
SALT_GCHAT = "https://docs.saltproject.io/en/3007/ref/modules/all/salt.modules.google_chat.html"
DOCL = "https://github.com/nathansamson/docl/issues/8"
REDIS_W3 = "https://w3resource.com/redis/redis-auth-password.php"
ZH_KUBEADM = "https://kubernetes.io/zh-cn/docs/reference/setup-tools/kubeadm/generated/kubeadm_kubeconfig_user/"
PT_KUBEADM = "https://kubernetes.io/pt-br/docs/reference/setup-tools/kubeadm/generated/kubeadm_kubeconfig_user"
DE_STRIPE = "https://dev.to/emree_demir/stripe-api-schlussel-erklart-test-vs-live-publishable-vs-secret-und-restricted-keys-44bd"
VI_STRIPE = "https://dev.to/sebbasstian/giai-thich-khoa-api-stripe-test-vs-live-publishable-vs-secret-va-restricted-keys-lni"
ES_SHOPIFY = "https://apidog.com/es/blog/shopify-api-3"
AR_NOTION = "https://apidog.com/ar/blog/how-to-work-with-notion-api-ar"
FR_AZURE = "https://docwiki.embarcadero.com/Libraries/Tokyo/fr/DSAzure.TAzureConnectionString.UseDefaultEndpoints"
DE_AZURE = "https://docwiki.embarcadero.com/Libraries/Alexandria/de/DSAzure.TAzureConnectionString.UseDefaultEndpoints"
RU_YAML = "https://gitverse.ru/githubmirror/libyaml/tag/0.2.2-pre1/examples/strings.yaml"
TR_PAGERDUTY = "https://mcpservers.org/tr/agent-skills/anthropic/pagerduty-api"
IT_SMB = "https://man.cx/smbclient(1)/it"
WECOM_CSDN = "https://blog.youkuaiyun.com/qq_16060605/article/details/149828606"
PD_REST = (
    "https://raw.githubusercontent.com/PagerDuty/developer-docs/main/docs/REST-API/01-Overview.md"
)

V = "vendor prefix"
A = "auth scheme or credential header"
W = "webhook URL"
C = "connection string"
F = "CLI password flag"
L = "source literal"
G = "config file"
E = "encoded"
N = "name in another language"
P = "prose and shell history"

# --- vendor prefixes -----------------------------------------------------------------------------
t = "dop_v1_" + r(HEX, 64)
s(V, f"2026-12-01T09:14:02Z DEBUG godo: using credential {t} for api.digitalocean.com", t, DO_GG)
t1, t2 = "doo_v1_" + r(HEX, 64), "dor_v1_" + r(HEX, 64)
ctx = f'{{"access_token":"{t1}","token_type":"bearer","expires_in":2592000,"refresh_token":"{t2}","scope":"read write"}}'
s(V, ctx, t1, DO_MR)
s(V, ctx, t2, DO_MR)
t = "hvs.CAESI" + r(B64URL, 86)
s(
    V,
    f"$ vault token lookup\nKey                 Value\n---                 -----\naccessor            {r(ALNUM, 24)}\ncreation_ttl        768h\ndisplay_name        token-myuser\nid                  {t}\npolicies            [default myapp-read]",
    t,
    VAULT_JA,
)
t = "hvb.AAAAAQ" + r(B64URL, 130)
s(
    V,
    f"Key                  Value\n---                  -----\ntoken                {t}\ntoken_accessor       n/a\ntoken_duration       20m\ntoken_renewable      false",
    t,
    VAULT_JA,
)
t = "s." + r(ALNUM, 24)
s(
    V,
    f"the nightly job still authenticates with the pre-1.0 service token {t} (no hvs. prefix yet)",
    t,
    VAULT_UP,
)
t = "glpat-" + r(B64URL, 20)
s(
    V,
    f"$ git remote -v\norigin\thttps://oauth2:{t}@gitlab.example.com/platform/api.git (fetch)",
    t,
    GITLAB,
)
t = "glpat-" + r(B64URL, 20)
s(V, f"Created personal access token 'ci-bot' (expires 2027-01-01): {t}", t, GITLAB)
t = "shpat_" + r(HEX, 32)
s(
    V,
    f"I, [2026-12-01T10:22:31] INFO -- shopify_app: installed on acme-store.myshopify.com, offline token {t}",
    t,
    SHOPIFY,
)
t = "shpca_" + r(HEX, 32)
s(
    V,
    f"session = ShopifyAPI::Auth::Session.new(shop: 'acme.myshopify.com', access_token: '{t}')",
    t,
    SHOPIFY,
)
t = "shppa_" + r(HEX, 32)
s(V, f"note: the legacy private app still signs in with {t}; migrate it before April", t, SHOPIFY)
t = "dp.st.prd." + r(ALNUM, 40)
s(V, f"$ DOPPLER_TOKEN={t} doppler run -- ./server", t, DOKPLOY)
t = "dp.pt." + r(ALNUM, 43)
s(
    V,
    f"$ doppler configure\nNAME     VALUE                                                SCOPE\ntoken    {t}    /",
    t,
    DOPPLER_NANGO,
)
t = "dp.sa." + r(ALNUM, 43)
s(
    V,
    f"kubectl create secret generic doppler-token-auth-api --from-literal=serviceToken={t}",
    t,
    DOPPLER_NANGO,
)
t = f"glsa_{r(ALNUM, 32)}_{r(HEX, 8)}"
s(
    V,
    f'provider "grafana" {{\n  url  = "https://acme.grafana.net/"\n  auth = "{t}"\n}}',
    t,
    GRAFANA_SA,
)
payload = json.dumps(
    {"o": "1234567", "n": "stack-890-alloy-write", "k": r(ALNUM, 32), "m": {"r": "prod-us-east-0"}},
    separators=(",", ":"),
)
t = "glc_" + b64(payload.encode())
s(
    V,
    f'prometheus.remote_write "cloud" {{\n  endpoint {{\n    url = "https://prometheus-prod-13-prod-us-east-0.grafana.net/api/prom/push"\n    basic_auth {{\n      username = "1234567"\n      password = "{t}"\n    }}\n  }}\n}}',
    t,
    GRAFANA_CLOUD,
)
pub, sec = r(UPDIG, 24), r(UPDIG, 64)
s(
    V,
    f"-----> Downloading Dynatrace OneAgent latest from https://abc12345.live.dynatrace.com/api/v1/deployment/installer/agent/unix/paas/latest?include=java&bitness=64&Api-Token=dt0c01.{pub}.{sec} (found in cache)",
    sec,
    DYNATRACE_CF,
)
pub, sec = r(UPDIG, 24), r(UPDIG, 64)
s(
    V,
    f"Use dt0s01.{pub}.{sec} as the platform token in the monitoring-as-code pipeline.",
    sec,
    DYNATRACE,
)
t = f"PMAK-{r(HEX, 24)}-{r(HEX, 34)}"
s(V, f"$ postman login --with-api-key {t}\nLogged in successfully.", t, POSTMAN)
t = "gsk_" + r(ALNUM, 52)
s(V, f'from groq import Groq\nclient = Groq(api_key="{t}")', t, GROQ)
t = "EAAA" + r(B64URL, 60)
s(
    V,
    f"square: 401 UNAUTHORIZED for EAAA token {t} at https://connect.squareup.com/v2/locations",
    t,
    SQUARE,
)
t = "sq0csp-" + r(B64URL, 43)
s(V, f"OAuth > Production Application secret: {t}", t, SQUARE)
t = "sntryu_" + r(HEX, 64)
s(V, f"$ sentry-cli --auth-token {t} releases list", t, SENTRY_TOKENS)
claims = json.dumps(
    {
        "iat": 1733040000.0,
        "url": "https://sentry.io",
        "region_url": "https://us.sentry.io",
        "org": "acme",
    },
    separators=(",", ":"),
)
t = "sntrys_" + b64(claims.encode()).rstrip("=") + "_" + r(B64, 43)
s(V, f"[defaults]\norg = acme\n\n[auth]\ntoken = {t}", t, SENTRY_ORG)
t = "hf_" + r(ALNUM, 34)
s(V, f"$ mix hf.login --token {t}\nToken saved to ~/.cache/huggingface/token", t, HF_MIX)
t = "hf_" + r(ALNUM, 34)
s(V, f"$ git clone https://jdoe:{t}@huggingface.co/spaces/acme/demo", t, HF_DOCS)
t = "ntn_" + r(ALNUM, 46)
s(V, f'mkdir -p ~/.config/notion\necho "{t}" > ~/.config/notion/api_key', t, NOTION)
t = "secret_" + r(ALNUM, 43)
s(V, f"notion integration 'wiki-sync' was created with {t} (legacy format)", t, NOTION_GG)
t = "dckr_pat_" + r(B64URL, 27)
s(V, f'{{\n  "username": "pinochcio",\n  "password": "{t}"\n}}', t, DOCKER_PY)
t = "rk_live_51" + r(ALNUM, 97)
s(
    V,
    f"Payment Gateways > Stripe\nStripe Publishable API Key: pk_live_51{r(ALNUM, 97)}\nStripe Secret API Key: {t}",
    t,
    STRIPE_WHMCS,
)
t = "whsec_" + r(ALNUM, 32)
s(
    V,
    f"$ stripe listen --forward-to localhost:4242/webhook\n> Ready! You are using Stripe API Version [2024-06-20]. Your webhook signing secret is {t} (^C to quit)",
    t,
    STRIPE_KEYS,
)
t = tg()
s(
    V,
    f"Done! Congratulations on your new bot. You will find it at t.me/acme_ops_bot.\nUse this token to access the HTTP API:\n{t}\nKeep your token secure and store it safely.",
    t,
    TG_CN,
)
t = "pscale_tkn_" + r(B64URL, 43)
s(
    V,
    f"$ pscale service-token create\nNAME           TOKEN\n-------------- ------------------------------------------\nnyprhd2z6bd3   {t}",
    t,
    PSCALE_TOK,
)
t = "fo1_" + r(B64URL, 43)
s(V, f"$ fly auth token\n{t}", t, FLY_SKILL)
t = "FlyV1 fm2_" + r(B64, 180)
s(V, f'$ export FLY_API_TOKEN="{t}"\n$ fly deploy', t[6:], FLY_DEPLOY)

# --- auth schemes and credential headers ---------------------------------------------------------
t = uid()
s(
    A,
    f"curl -X GET 'https://api.opsgenie.com/v2/heartbeats/web-01/ping' --header 'Authorization: GenieKey {t}'",
    t,
    OPSGENIE_HB,
)
t = "pk_" + r(HEX, 34)
s(
    A,
    f"curl --request GET --url https://a.klaviyo.com/api/lists/ --header 'Authorization: Klaviyo-API-Key {t}' --header 'revision: 2024-05-15'",
    t,
    KLAVIYO,
)
t = uid()
s(
    A,
    f"const response = await fetch('http://localhost:3000/api/pages', {{\n  headers: {{\n    Authorization: `users API-Key {t}`,\n  }},\n}})",
    t,
    PAYLOAD,
)
t = r(ALNUM + "_-", 20)
s(
    A,
    f'curl -s https://api.pagerduty.com/incidents -H "Accept: application/json" -H "Authorization: Token token={t}"',
    t,
    PAGERDUTY,
)
t = "hvs.CAESI" + r(B64URL, 86)
s(
    A,
    f'curl --header "X-Vault-Token: {t}" --request GET http://127.0.0.1:8200/v1/secret/data/app',
    t,
    VAULT_TUT,
)
t = "glpat-" + r(B64URL, 20)
s(A, f'curl --header "PRIVATE-TOKEN: {t}" "https://gitlab.example.com/api/v4/projects"', t, GITLAB)
t = "dp.ct." + r(ALNUM, 43)
s(
    A,
    f"curl -sS --request POST --url https://api.doppler.com/v3/configs/config/tokens --header 'Content-Type: application/json' --header \"api-key: {t}\"",
    t,
    DOPPLER_GIST,
)
t = f"PMAK-{r(HEX, 24)}-{r(HEX, 34)}"
s(A, f"GET /me HTTP/1.1\nHost: api.getpostman.com\nX-API-Key: {t}", t, POSTMAN)
pub, sec = r(UPDIG, 24), r(UPDIG, 64)
s(
    A,
    f"curl -H 'Authorization: Api-Token dt0c01.{pub}.{sec}' https://abc12345.live.dynatrace.com/api/v2/metrics",
    sec,
    DYNATRACE,
)
t = "shpat_" + r(HEX, 32)
s(
    A,
    f"curl -X GET https://acme.myshopify.com/admin/api/2024-10/shop.json -H 'X-Shopify-Access-Token: {t}'",
    t,
    SHOPIFY_AUTH,
)
t = "IQoJb3JpZ2luX2VjE" + r(B64, 380)
s(
    A,
    f"X-Amz-Date: 20130524T000000Z\nX-Amz-Security-Token: {t}\nAuthorization: AWS4-HMAC-SHA256 Credential=ASIA{r(UPDIG, 16)}/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature={r(HEX, 64)}",
    t,
    SIGV4_R,
)
t = b64(f"deploy:{pw(20)}".encode())
s(
    A,
    f"GET /v2/acme/api/manifests/latest HTTP/1.1\nHost: registry.example.com\nAuthorization: Basic {t}",
    t,
    CONTAINERS_AUTH,
)
t = b64(f"proxyuser:{pw(14)}".encode())
s(A, f"CONNECT pypi.org:443 HTTP/1.1\nProxy-Authorization: Basic {t}", t, CONTAINERS_AUTH)
inner = json.dumps({"k": r(ALNUM, 32), "n": "grafana-sync", "id": 1}, separators=(",", ":"))
t = b64(inner.encode()).rstrip("=")
s(
    A,
    f"GET http://your.grafana.com/api/dashboards/db/mydash HTTP/1.1\nAccept: application/json\nAuthorization: Bearer {t}",
    t,
    GRAFANA_HTTP,
)

# --- webhook URLs --------------------------------------------------------------------------------
t = r(B64URL, 43)
s(
    W,
    f"curl -X POST -H 'Content-Type: application/json' 'https://chat.googleapis.com/v1/spaces/AAAA{r(B64URL, 7)}/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={t}%3D' -d '{{\"text\": \"deploy done\"}}'",
    t,
    GCHAT_GG,
)
t = r(B64URL, 43)
s(
    W,
    f'errors:\n  - id: alert_on_failure\n    type: io.kestra.plugin.notifications.google.GoogleChatIncomingWebhook\n    url: "https://chat.googleapis.com/v1/spaces/AAAA{r(B64URL, 7)}/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={t}"',
    t,
    KESTRA,
)
t = r(HEX, 64)
s(
    W,
    f'curl \'https://oapi.dingtalk.com/robot/send?access_token={t}\' -H \'Content-Type: application/json\' -d \'{{"msgtype": "text","text": {{"content": "部署完成"}}}}\'',
    t,
    DINGTALK,
)
t = r(HEX, 64)
s(W, f"web_hook = 'https://oapi.dingtalk.com/robot/send?access_token={t}'", t, DINGTALK)
t = uid()
s(
    W,
    f'curl -X POST \'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={t}\' -H \'Content-Type: application/json\' -d \'{{"msgtype": "text", "text": {{"content": "hello"}}}}\'',
    t,
    WECOM,
)
t = uid()
s(
    W,
    f'curl -X POST -H "Content-Type: application/json" -d \'{{"msg_type":"text","content":{{"text":"request example"}}}}\' https://open.feishu.cn/open-apis/bot/v2/hook/{t}',
    t,
    FEISHU,
)
t = tg()
s(
    W,
    f"GET https://api.telegram.org/bot{t}/sendMessage?chat_id=@ops&text=backup+finished 200 OK",
    t,
    TG_NOTIFY,
)
t = tg()
s(
    W,
    f"2. Get a list of updates of your bot by accessing this URL: https://api.telegram.org/bot{t}/getUpdates",
    t,
    TG_SWIFT,
)
t = r(B64URL, 68)
s(
    W,
    f"webhook_url = https://discord.com/api/webhooks/{rng.randint(10**17, 10**18 - 1)}/{t}",
    t,
    DISCORD,
)
t = r(B64URL, 68)
s(
    W,
    f'$ make test | discord-pipe-logger "https://discordapp.com/api/webhooks/{rng.randint(10**17, 10**18 - 1)}/{t}"',
    t,
    DISCORD_PIPE,
)
t = r(ALNUM, 24)
s(
    W,
    f"SLACK_WEBHOOK=https://hooks.slack.com/services/T{r(UPDIG, 8)}/B{r(UPDIG, 10)}/{t}",
    t,
    SLACK_RACKN,
)
t = r(ALNUM, 24)
s(
    W,
    f"notifications:\n  url: slack://ShoutrrrBot@T{r(UPDIG, 8)}/B{r(UPDIG, 10)}/{t}?color=good&title=Great+News",
    t,
    SLACK,
)
t = r(B64URL, 68)
s(
    W,
    f"apprise -b 'disk full on web-02' discord://{rng.randint(10**17, 10**18 - 1)}/{t}",
    t,
    DISCORD_APPRISE,
)
t = r(B64URL, 43)
s(
    W,
    f"apprise -vv -b 'nightly ok' gchat://AAAA{r(B64URL, 7)}/AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI/{t}",
    t,
    GCHAT,
)

# --- connection strings --------------------------------------------------------------------------
t = b64(rng.randbytes(64))
s(
    C,
    f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={t};EndpointSuffix=core.windows.net",
    t,
    AZURE_CS,
)
t = b64(rng.randbytes(32)).rstrip("=")
s(
    C,
    f"BlobEndpoint=https://acmelogs.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={t}%3D",
    t,
    AZURE_CS,
)
t = b64(rng.randbytes(64))
s(
    C,
    f'iex> ExMicrosoftAzureStorage.Storage.new("DefaultEndpointsProtocol=https;AccountName=acmebackup;AccountKey={t};EndpointSuffix=core.windows.net")',
    t,
    AZURE_EX,
)
t = pw()
s(C, f'"Driver={{SQL Server}};Server=db01;Database=pubs;Uid=sa;Pwd={t};"', t, MSSQL)
t = pw()
s(
    C,
    f'"Provider=sqloledb;Data Source=190.190.200.100,1433;Network Library=DBMSSOCN;Initial Catalog=pubs;User ID=sa;Password={t};"',
    t,
    MSSQL_CN,
)
t = pw()
s(
    C,
    f"Server=tcp:acme.database.windows.net,1433;Database=orders;User ID=app;Password={t};Trusted_Connection=False;Encrypt=True;",
    t,
    MSSQL,
)
t1, t2 = pw(), pw(20)
ctx = f"$ cat ~/.pgpass\ndb.internal:5432:orders:app:{t1}\n*:*:*:replicator:{t2}"
s(C, ctx, t1, PGPASS)
s(C, ctx, t2, PGPASS)
t = pw()
s(C, f"redis 127.0.0.1:6379> AUTH {t}\nOK\nredis 127.0.0.1:6379> KEYS session:*", t, REDIS_TP)
t = pw(18)
s(C, f"127.0.0.1:6379> AUTH app-user {t}\nOK", t, REDIS_AUTH)
t = pw(14, "-_.")
s(
    C,
    f"spring.datasource.url=jdbc:oracle:thin:scott/{t}@//db.example.com:1521/ORCLPDB1",
    t,
    ORACLE_URL,
)
t = pw(12, "_")
s(C, f"jdbc:oracle:thin:Herong/{t}@localhost:1521:XE", t, ORACLE_URL)
t = pw(14, "_")
s(C, f"$ sqlplus system/{t}@//dbhost:1521/XEPDB1", t, ORACLE_EZ)
t = pw(16, "!#%*-_.")
s(C, f'db, err := sql.Open("mysql", "app:{t}@tcp(10.0.0.5:3306)/orders?parseTime=true")', t, GO_DSN)
t = pw(16, "-_.")
s(C, f"DSN=root:{t}@unix(/var/run/mysqld/mysqld.sock)/app?charset=utf8mb4", t, GO_DSN)
t = pw(16, "-_.")
s(C, f"pgsql://reporter:{t}@tcp(localhost:5555)/analytics", t, DSN_RS)
raw = r(ALNUM, 6) + "@" + r(ALNUM, 5) + '"' + r(ALNUM, 5)
t = urllib.parse.quote(raw, safe="")
s(C, f"mysql://root:{t}@tcp(10.0.0.1:3306)/test", t, DSN_RS)
t = pw(16, "-_.")
s(
    C,
    f"jdbc:postgresql://localhost/test?user=fred&password={t}&ssl&sslfactory=org.postgresql.ssl.NonValidatingFactory",
    t,
    PG_JDBC,
)
t = pw(16, "-_.!")
s(
    C,
    f'Connection conn = DriverManager.getConnection("jdbc:datadirect:postgresql://server1:5432;User=test;Password={t};");',
    t,
    PG_DATADIRECT,
)
t = pw(16, "-_.!")
s(
    C,
    f'$ psql "host=db.internal port=5432 dbname=orders user=app password={t} sslmode=require"',
    t,
    PG_JDBC_CRUNCHY,
)
t = pw(16, "-_.")
s(
    C,
    f"quarkus.datasource.reactive.url=postgresql://dbuser:{t}@database.server.com:5432/mydb",
    t,
    QUARKUS_PG,
)
t = pw(16, "-_")
s(
    C,
    f'{{\n  "host": "my.psql.host.com",\n  "jdbcUrl": "jdbc:postgresql://my.psql.host.com:5432/whatever",\n  "name": "cf_63f24e83",\n  "password": "{t}",\n  "port": 5432,\n  "uri": "postgresql://some_user:{t}@my.psql.host.com:5432/whatever", "username": "some_user"\n}}',
    t,
    CF_VCAP,
)
t = "pscale_pw_" + r(B64URL, 43)
s(
    C,
    f"DATABASE_URL='mysql://{r(LOWER + DIGITS, 12)}:{t}@aws.connect.psdb.cloud/app?sslaccept=strict'",
    t,
    PSCALE_CONN,
)
t = pw(16, "-_")
s(
    C,
    f"host=localhost user=gorm password={t} dbname=gorm port=9920 sslmode=disable TimeZone=Asia/Shanghai",
    t,
    GORM_DSN,
)

# --- CLI password flags --------------------------------------------------------------------------
t = pw(14, "!#%-_.")
s(F, f"sshpass -p '{t}' ssh aaronkilik@10.42.0.1 'df -h'", t, SSHPASS)
t = pw(14, "-_.")
s(F, f"$ sshpass -p {t} scp -P22 backup.tar.gz root@10.0.0.7:/srv/backups/", t, SSHPASS_LC)
t = pw(14, "-_.")
s(F, f'$ export SSHPASS="{t}"\n$ sshpass -e ssh username@x.x.x.x', t, SSHPASS_CN)
t = pw(14, "-_.")
s(
    F,
    f"$ ldap search -D cn=admin,dc=example,dc=com -w {t} -H ldaps://ldap.example.com '(uid=jdoe)' mail",
    t,
    LDAP_OBSD,
)
t = pw(14, "-_.!")
s(
    F,
    f"ldapsearch -x -H ldap://ldap.example.com -D \"cn=manager,dc=example,dc=com\" -w '{t}' -b dc=example,dc=com '(objectClass=person)'",
    t,
    LDAP_OBSD,
)
t = pw(14, "-_.!")
s(F, f"$ smbclient //fs01/finance -U 'EXAMPLE\\jdoe%{t}' -c 'ls'", t, SMBCLIENT)
t = pw(14, "-_.")
s(F, f"$ smbclient //fs01/public {t} -U guest -c 'get report.pdf'", t, SMBCLIENT)
t = pw(14, "-_.")
s(F, f"# smbmount //nas/backup /mnt/backup -o username=backup%{t},uid=1000", t, SMBMOUNT)
t = pw(14, "_")
s(F, f"$ mysqldump -u root -p{t} --single-transaction orders > orders.sql", t, MYSQLDUMP)
t = pw(14, "_-.")
s(F, f"$ mysqldump --user=backup --password={t} --all-databases | gzip > all.sql.gz", t, MYSQLDUMP)
t = f"{r(LOWER, 5)} {r(LOWER, 6)} {r(DIGITS, 2)} {r(LOWER, 7)}"
s(F, f'$ mysqldump --user=backup --password="{t}" shop > shop.sql', t, MYSQLDUMP)
t = pw(14, "-_.")
s(
    F,
    f"$ sudo htpasswd -b /etc/nginx/.htpasswd admin {t}\nAdding password for user admin",
    t,
    HTPASSWD,
)
t = pw(14, "-_.")
s(F, f"$ htpasswd -nbB ops {t}\nops:$2y$05${r(B64[:-2] + './', 53)}", t, HTPASSWD)
t = pw(15, "-_.")
s(
    F,
    f"$ kubectl config set-credentials cluster-admin --username=admin --password={t}",
    t,
    KUBECTL_OLD,
)
sec = r(LOWER + DIGITS, 16)
s(
    F,
    f"$ kubeadm kubeconfig user --client-name=ci-reader --token={r(LOWER + DIGITS, 6)}.{sec} > ci.kubeconfig",
    sec,
    KUBEADM_USER,
)
t = "fo1_" + r(B64URL, 43)
s(F, f"$ flyctl status -a billing-api --access-token {t}", t, FLY_DEPLOY)
t = r(HEX, 40)
s(
    F,
    f"$ pscale connect orders main --service-token {t} --service-token-id nyprhd2z6bd3 --org acme",
    t,
    PSCALE_TOK,
)
t = "cio" + r(ALNUM, 32)
s(F, f"$ cargo login {t}\n       Login token for `crates-io` saved", t, CARGO)
t = "cio" + r(ALNUM, 32)
s(F, f"$ cargo publish --token {t} --allow-dirty", t, CARGO)
t = pw(14, "-_.")
s(F, f"$ rclone obscure {t}\n{r(B64URL, 34)}", t, RCLONE_OBSCURE)
t = pw(14, "-_.")
s(F, f'$ echo "{t}" | rclone obscure -', t, RCLONE_OBSCURE)
t = pw(14, "-_.")
s(F, f"$ podman login -u jdoe -p {t} quay.io\nLogin Succeeded!", t, CONTAINERS_AUTH)
t = pw(14, "-_.")
s(F, f"$ buildah login --username jdoe --password {t} registry.example.com", t, CONTAINERS_AUTH)
t = pw(14, "-_.")
s(F, f"$ vault login -method=userpass username=jdoe password={t}", t, VAULT_TUT)
t = pw(14, "-_.")
s(F, f"$ vault write auth/userpass/users/jdoe password={t} policies=admins", t, VAULT_TUT)
t = pw(12, "-_.")
s(F, f"$ curl -u myself:{t} ftp://host.domain.com/pub/release.tar.gz -O", t, NETRC)
t = pw(14, "_")
s(F, f"$ mysql -h db.internal -uroot -p'{t}' -e 'show databases'", t, MYSQLDUMP)

# --- source literals -----------------------------------------------------------------------------
t = r(B64URL, 64)
s(
    L,
    f"if __name__ == '__main__':\n    access_token = 'ding{r(LOWER + DIGITS, 16)}'\n    secret = '{t}'  # 创建机器人时钉钉设置页面有提供\n    send_dingtalk_msg(access_token, secret)",
    t,
    DINGTALK_PY,
)
t = "sq0atp-" + r(B64URL, 22)
s(
    L,
    f"$client = new SquareClient([\n    'accessToken' => '{t}',\n    'environment' => Environment::PRODUCTION,\n]);",
    t,
    SQUARE_PHP,
)
t = pw(14, "!")
s(
    L,
    f'let command = AuthCommand::new(Some("user01"), "{t}");\nlet _ = client.send(command);',
    t,
    REDIS_RS,
)
t = pw(14, "!")
s(L, f'let command = AuthCommand::from(&Credentials::acl("user01", "{t}"));', t, REDIS_RS)
t = pw(14, "_")
s(
    L,
    f'import redis\nr = redis.Redis(decode_responses=True)\nres = r.auth(password="{t}", username="default")',
    t,
    REDIS_AUTH,
)
t = pw(14, "_")
s(L, f"const res2 = await client.auth({{ username: 'default', password: '{t}' }});", t, REDIS_AUTH)
t = pw(14, "-_.")
s(
    L,
    f'Connection db = DriverManager.getConnection("jdbc:postgresql://10.2.28.17:5432/postgres", "postgres", "{t}");',
    t,
    PG_JDBC_CRUNCHY,
)
t = pw(14, "-_.")
s(
    L,
    f'java.util.Properties props = new java.util.Properties();\nprops.setProperty("user", "reporting");\nprops.setProperty("password", "{t}");',
    t,
    PG_JDBC_PROPS,
)
t = pw(14, "-_.")
s(
    L,
    f'OracleDataSource ods = new OracleDataSource();\nods.setUser("scott");\nods.setPassword("{t}");\nods.setURL("jdbc:oracle:thin:@tcp://my-host:1522/my-service");',
    t,
    ORACLE_JDBC,
)
t = pw(14, "!#")
s(
    L,
    f'$password = "{t}" | ConvertTo-SecureString -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential($username,$password)',
    t,
    PWSH_GIST,
)
t = pw(14, "!#")
s(
    L,
    f"$VarCred = New-Object System.Management.Automation.PSCredential -ArgumentList @('EXAMPLE\\svc_sql',(ConvertTo-SecureString -String '{t}' -AsPlainText -Force))",
    t,
    PWSH,
)
t = pw(12, "!")
s(L, f"PS> $Credential = New-Credential -UserName 'donaldduck' -Password '{t}'", t, PWSH_POSH)
t = r(HEX, 64)
s(L, f"final client = DigitalOcean(oAuthToken: '{t}');", t, DO_DART)
t = r(HEX, 64)
s(L, f'Sys.setenv(DO_PAT = "{t}")\nlibrary(analogsea)\ndroplets()', t, ANALOGSEA)
t = r(HEX, 40)
s(
    L,
    f'const connection = await connect({{ db: "test", tokenName: "nyprhd2z6bd3", org: "acme", token: "{t}" }});',
    t,
    PSCALE_NPM,
)
t = r(HEX, 32)
s(
    L,
    f'ShopifyAPI::Context.setup(\n  api_key: "{r(HEX, 32)}",\n  api_secret_key: "{t}",\n  host: "https://acme-app.example.com",\n)',
    t,
    SHOPIFY_AUTH,
)
t = tg()
s(
    L,
    f'struct Constants {{\n    static let botToken = "{t}"\n    static let chatId = "1234"\n}}',
    t,
    TG_SWIFT,
)
t = tg()
s(
    L,
    f'String token = "{t}";\nTelegram telegram = new Telegram(token);\ntelegram.init();',
    t,
    TG_JAVA,
)
t = tg()
s(
    L,
    f"bot_token = '{t}'\nchat_id = 'USER_CHAT_ID'\nurl = f'https://api.telegram.org/bot{{bot_token}}/sendMessage'",
    t,
    TG_CN,
)
t = pw(14, "-_.")
s(
    L,
    f'#!/bin/bash\nPASSWORD="{t}"\nCOMMAND="ls /home/user"\nsshpass -p $PASSWORD ssh -o StrictHostKeyChecking=no $USER@$HOST $COMMAND',
    t,
    SSHPASS_CSDN,
)
t1, t2 = r(HEX, 64), "SEC" + r(HEX, 64)
ctx = f"'dingtalk' => [\n    'webhook' => 'https://oapi.dingtalk.com/robot/send?',\n    'access_token' => '{t1}',\n    'secret' => '{t2}',\n],"
s(L, ctx, t1, DINGTALK_PHP)
s(L, ctx, t2, DINGTALK_PHP)
t = pw(14, "-_.")
s(L, f'ldap_simple_bind( ld, "cn=manager, o=university of michigan, c=us", "{t}" );', t, LDAP_SBIND)
t = r(B64URL, 68)
s(
    L,
    f"const webhookClient = discordWebhookWrapper({{\n  discordWebhookId: '{rng.randint(10**17, 10**18 - 1)}',\n  discordWebhookToken: '{t}',\n}});",
    t,
    DISCORD_WRAP,
)
t = "SEC" + r(HEX, 64)
s(L, f"const robot = new Robot({{ accessToken: '{r(HEX, 64)}', secret: '{t}' }});", t, DINGTALK_SDK)

# --- config files --------------------------------------------------------------------------------
t = f"{r(ALNUM, 14)}.atlasv1.{r(ALNUM, 67)}"
s(
    G,
    f'$ cat ~/.terraform.d/credentials.tfrc.json\n{{\n  "credentials": {{\n    "app.terraform.io": {{\n      "token": "{t}"\n    }}\n  }}\n}}',
    t,
    TF_LOGIN,
)
t = r(B64URL, 44)
s(
    G,
    f'npmRegistries:\n  "https://registry.myverdaccio.org":\n    npmAlwaysAuth: true\n    npmAuthToken: {t}\nnpmScopes:\n  my-company:\n    npmRegistryServer: https://registry.myverdaccio.org',
    t,
    YARNRC,
)
t = uid().upper()
s(
    G,
    f'npmScopes:\n  fortawesome:\n    npmRegistryServer: "https://npm.fontawesome.com/"\n    npmAlwaysAuth: true\n    npmAuthToken: "{t}"',
    t,
    YARNRC_FA,
)
t = "npm_" + r(ALNUM, 36)
s(
    G,
    f"# Registry Configuration - npm\n//registry.npmjs.org/:_authToken={t}\nregistry=https://registry.npmjs.org/\nsave-exact=true",
    t,
    NPMRC,
)
t = b64(f"jdoe:{pw(14)}".encode())
s(
    G,
    f"registry=https://nexus.example.com/repository/npm-group/\n_auth={t}\nalways-auth=true",
    t,
    NPMRC,
)
t = b64(f"deploy:{pw(18)}".encode())
s(
    G,
    f'$ cat ~/.docker/config.json\n{{\n  "auths": {{\n    "https://index.docker.io/v1/": {{\n      "auth": "{t}"\n    }}\n  }}\n}}',
    t,
    ZARF,
)
t = b64(f"robot$ci:{r(ALNUM, 32)}".encode())
s(
    G,
    f'{{\n  "auths": {{\n    "quay.io": {{\n      "auth": "{t}"\n    }}\n  }}\n}}',
    t,
    CONTAINERS_AUTH,
)
hdr = (
    b64(json.dumps({"alg": "RS256", "kid": r(B64URL, 43)}).encode())
    .rstrip("=")
    .replace("+", "-")
    .replace("/", "_")
)
body = (
    b64(
        json.dumps(
            {
                "iss": "kubernetes/serviceaccount",
                "kubernetes.io/serviceaccount/namespace": "ci",
                "sub": "system:serviceaccount:ci:deployer",
            }
        ).encode()
    )
    .rstrip("=")
    .replace("+", "-")
    .replace("/", "_")
)
t = f"{hdr}.{body}.{r(B64URL, 342)}"
s(G, f"users:\n- name: deployer\n  user:\n    token: {t}", t, KUBECTL_CRED)
key_pem = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(b64(rng.randbytes(48)) for _ in range(6))
    + "\n-----END RSA PRIVATE KEY-----\n"
)
t = b64(key_pem.encode())
s(
    G,
    f"users:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM4akNDQWRxZ0F3SUJBZ0lJ\n    client-key-data: {t}",
    t,
    KUBECONFIG_TPL,
)
t = pw(15, "-_.")
s(
    G,
    f"users:\n- name: cluster-admin\n  user:\n    username: admin\n    password: {t}",
    t,
    KUBECTL_OLD,
)
t1, t2 = pw(14, "-_."), pw(20, "-_. ")
ctx = f"<settings>\n  <servers>\n    <server>\n      <id>repo1</id>\n      <username>repouser</username>\n      <password>{t1}</password>\n      <privateKey>/path/to/identity</privateKey>\n      <passphrase>{t2}</passphrase>\n    </server>\n  </servers>\n</settings>"
s(G, ctx, t1, MAVEN)
s(G, ctx, t2, MAVEN)
t = r(B64, 40)
s(
    G,
    f"[default]\naccess_key = AKIA{r(UPDIG, 16)}\naccess_token =\nbucket_location = US\nsecret_key = {t}\nhost_base = s3-api.us-geo.objectstorage.softlayer.net",
    t,
    S3CFG,
)
t1, t2 = r(B64, 40), r(B64URL, 24)
ctx = f"[s3]\ntype = s3\nprovider = AWS\nenv_auth = false\naccess_key_id = AKIA{r(UPDIG, 16)}\nsecret_access_key = {t1}\nregion = us-east-2\n\n[google]\ntype = drive\nclient_id = {r(DIGITS, 12)}-{r(LOWER + DIGITS, 32)}.apps.googleusercontent.com\nclient_secret = GOCSPX-{t2}"
s(G, ctx, t1, RCLONE_GIST)
s(G, ctx, "GOCSPX-" + t2, RCLONE_GIST)
t1, t2 = "ya29." + r(B64URL, 120), "1//" + r(B64URL, 100)
ctx = f'[gdrive]\ntype = drive\nscope = drive\ntoken = {{"access_token":"{t1}","token_type":"Bearer","refresh_token":"{t2}","expiry":"2026-12-02T16:04:11.123456+01:00"}}'
s(G, ctx, t1, RCLONE_GIST)
s(G, ctx, t2, RCLONE_GIST)
t = r(B64URL, 34)
s(
    G,
    f"[nas]\ntype = sftp\nhost = nas.local\nuser = backup\npass = {t}\nshell_type = unix",
    t,
    RCLONE_OBSCURE,
)
t = pw(14, "-_.")
s(G, f"$ cat ~/.netrc\nmachine host.domain.com login myself password {t}", t, NETRC_OPT)
t = pw(14, "-_.")
s(G, f"machine api.example.com\n  password {t}\n  login deploy", t, NETRC)
t = f"{r(LOWER, 6)} {r(ALNUM, 8)} {r(LOWER, 5)}"
s(G, f'machine ftp.example.com login "jdoe" password "{t}"', t, NETRC)
t = pw(18, "-_.")
s(
    G,
    f"database:\n  host: db.internal\n  user: app\n  password: >-\n    {t}\n  pool: 10",
    t,
    YAML_BLOCK,
)
t = r(ALNUM, 40)
s(G, f"integrations:\n  ci:\n    api_token: |\n      {t}\n    enabled: true", t, YAML_BLOCK)
t = "cio" + r(ALNUM, 32)
s(G, f'$ cat ~/.cargo/credentials.toml\n[registry]\ntoken = "{t}"', t, CARGO)
t = r(ALNUM, 40)
s(G, f'[registries.acme-internal]\ntoken = "{t}"', t, CARGO)
t = r(HEX, 40)
s(
    G,
    f"export PLANETSCALE_TOKEN='{t}'\nexport PLANETSCALE_TOKEN_NAME='nyprhd2z6bd3'\nexport PLANETSCALE_ORG='acme'",
    t,
    PSCALE_NODE,
)
t1, t2 = pw(14, "-_."), r(ALNUM, 40)
ctx = f'{{\n  "http-basic": {{\n    "repo.example.com": {{"username": "jdoe", "password": "{t1}"}}\n  }},\n  "bearer": {{\n    "packages.example.org": "{t2}"\n  }}\n}}'
s(G, ctx, t1, COMPOSER)
s(G, ctx, t2, COMPOSER)
t = r(B64URL, 20)
s(G, f'{{"gitlab-token": {{"gitlab.example.com": "{t}"}}}}', t, COMPOSER)
t = pw(14, "-_.")
s(
    G,
    f'ECS_ENGINE_AUTH_TYPE=docker\nECS_ENGINE_AUTH_DATA={{"my.registry.example.com":{{"username":"myUsername","password":"{t}"}}}}',
    t,
    ECS_AUTH,
)
t = pw(14, "-_.")
s(
    G,
    f'$ cat $HOME/.docker/creds.json\n{{\n  "ServerURL": "https://index.docker.io/v1",\n  "Username": "david",\n  "Secret": "{t}"\n}}',
    t,
    CRED_SIMPLE,
)
t = pw(14, "-_.")
s(G, f"$ cat ~/.smbcredentials\nusername = jdoe\npassword = {t}\ndomain = EXAMPLE", t, SMBCLIENT)

# --- encodings -----------------------------------------------------------------------------------
t = pw(14, "_-")
s(
    E,
    f'{{"level":"debug","msg":"loaded","config":"{{\\u0022dbUser\\u0022: \\u0022app\\u0022, \\u0022dbPass\\u0022: \\u0022{t}\\u0022}}"}}',
    t,
    CF_VCAP,
)
t = "gsk_" + r(ALNUM, 52)
s(
    E,
    f'{{"request": {{"body": "{{\\"model\\":\\"llama-3.1-8b-instant\\",\\"api_key\\":\\"{t}\\"}}"}}}}',
    t,
    GROQ,
)
t = pw(14, "_-")
s(
    E,
    f"<pre>&lt;server&gt;\n  &lt;id&gt;nexus&lt;/id&gt;\n  &lt;username&gt;deployer&lt;/username&gt;\n  &lt;password&gt;{t}&lt;/password&gt;\n&lt;/server&gt;</pre>",
    t,
    MAVEN,
)
t = r(B64URL, 40)
s(E, f"<code>&#34;api_token&#34;: &#34;{t}&#34;</code>", t, YARNRC)
raw = pw(14, "!#%@&+")
t = urllib.parse.quote(raw, safe="")
s(
    E,
    f"POST /oauth/token HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=password&username=jdoe&password={t}&client_id=cli",
    t,
    CF_VCAP,
)
t = r(ALNUM, 40)
s(E, f"302 Location: /login?next=%2Fcallback%3Faccess_token%3D{t}%26state%3Dxyz", t, DINGTALK)
t = r(HEX, 64)
s(
    E,
    f'{{"webhook":"https:\\/\\/oapi.dingtalk.com\\/robot\\/send?access_token={t}","enabled":true}}',
    t,
    DINGTALK,
)
t = tg()
s(
    E,
    f'<a href="https://api.telegram.org/bot{t}/getMe?pretty=1&amp;x=1">check bot</a>',
    t,
    TG_NOTIFY,
)
cfg = json.dumps({"auths": {"registry.example.com": {"auth": b64(f"ci:{r(ALNUM, 32)}".encode())}}})
blob = b64(cfg.encode())
lines = [blob[i : i + 76] for i in range(0, len(blob), 76)]
s(
    E,
    "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: |\n    "
    + "\n    ".join(lines),
    lines[1],
    CONTAINERS_AUTH,
)
t = b64(pw(16, "-_.").encode())
s(
    E,
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ndata:\n  username: {b64(b'app')}\n  password: {t}",
    t,
    ZARF,
)
t = pw(14, "_-")
s(E, f'char *init = "user=app\\x26password\\x3d{t}";', t, PG_JDBC)

# --- secret names in other languages -------------------------------------------------------------
t = pw(14, "_-.")
s(N, f"服务器: 10.0.0.12\n用户名: root\n密码: {t}", t, SSHPASS)
t = pw(14, "_-.")
s(N, f"数据库密码：{t}", t, MSSQL_CN)
t = r(ALNUM, 40)
s(N, f"APIトークン：{t}", t, VAULT_JA)
t = pw(14, "_-.")
s(N, f"[Datenbank]\nBenutzer=app\nKennwort={t}", t, DE_AZURE)
t = r(ALNUM, 40)
s(N, f"API-Schlüssel: {t}", t, DE_STRIPE)
t = pw(14, "_-.")
s(N, f"base_de_datos:\n  usuario: app\n  contraseña: {t}", t, ES_SHOPIFY)
t = pw(14, "_-.")
s(N, f"база: orders\nпользователь: app\nпароль: {t}", t, RU_YAML)
t = r(ALNUM, 40)
s(N, f"khóa bí mật: {t}", t, VI_STRIPE)
t = pw(14, "_-.")
s(N, f"اسم المستخدم: admin\nكلمة المرور: {t}", t, AR_NOTION)
t = pw(14, "_-.")
s(N, f"utilisateur : admin\nmot de passe : {t}", t, FR_AZURE)
t = pw(14, "_-.")
s(N, f"usuário: admin\nsenha: {t}", t, PT_KUBEADM)
t = r(LOWER + DIGITS, 6) + "." + r(LOWER + DIGITS, 16)
s(N, f"kubeadm join 10.0.0.1:6443 的令牌: {t}", t, ZH_KUBEADM)
t = uid()
s(N, f"企业微信机器人密钥：{t}", t, WECOM_CSDN)
t = pw(14, "_-.")
s(N, f"kullanıcı: admin\nşifre: {t}", t, TR_PAGERDUTY)

# --- prose and shell history ---------------------------------------------------------------------
t = pw(14, "_")
s(
    P,
    f"$ history | tail -3\n  501  mysql -uroot -p{t} orders\n  502  cd /srv/app\n  503  history | tail -3",
    t,
    MYSQLDUMP,
)
t = "dp.st.dev." + r(ALNUM, 40)
s(P, f"  733  export DOPPLER_TOKEN={t}\n  734  doppler secrets", t, DOKPLOY)
t = pw(14, "-_.")
s(P, f"The password for the staging box is {t}, please rotate it after the demo.", t, SSHPASS_CN)
t = pw(14, "-_.")
s(P, f'redis 127.0.0.1:6379> CONFIG SET requirepass "{t}"\nOK', t, REDIS_W3)
t = pw(14, "-_.")
s(P, f"use login `deploy` and password `{t}` for the Nexus repo", t, MAVEN)
t = pw(14, "-_.")
s(P, f"   88  sudo htpasswd -b /etc/nginx/.htpasswd ops {t}", t, HTPASSWD)
t = pw(14, "-_.")
s(P, f": 1733045123:0;sshpass -p '{t}' ssh root@192.168.10.10 poweroff", t, SSHPASS_LC)
t1, t2 = b64(rng.randbytes(33)), "hvs." + r(ALNUM, 24)
ctx = f"$ vault operator init -key-shares=1 -key-threshold=1\nUnseal Key 1: {t1}\n\nInitial Root Token: {t2}\n\nVault initialized with 1 key shares and a key threshold of 1."
s(P, ctx, t1, VAULT_TUT)
s(P, ctx, t2, VAULT_TUT)
t = pw(14, "-_.")
s(P, f"reset the ops account for you (pw: {t}) - change it at first login", t, SSHPASS)
t = pw(12, "!")
s(
    P,
    f"PS> Get-History\n  Id CommandLine\n  -- -----------\n  12 $cred = New-Credential -User ENTERPRISE\\picard -Password '{t}'",
    t,
    PWSH_CARBON,
)
t = r(HEX, 64)
s(
    P,
    f"$ docl authorize\nYou'll need to enter your DigitalOcean Private Access Token.\nEnter your DO Token: {t}",
    t,
    DOCL,
)

# === look-alikes =================================================================================
H = "look-alike: hashes and ids"
BL = "look-alike: integrity, blobs and public keys"
PH = "look-alike: placeholders and documented examples"
MK = "look-alike: masked values"
CR = "look-alike: references and code"
PR = "look-alike: prose and other languages"

v = r(HEX, 40)
b(
    H,
    f"commit {v}\nAuthor: Jane Doe <jane@example.com>\nDate:   Tue Dec 1 10:00:00 2026 +0000",
    v,
    "a git commit id",
    GCHAT,
)
v = r(HEX, 64)
b(H, f"FROM nginx@sha256:{v}", v, "an image digest", ZARF)
v = r(HEX, 64)
b(
    H,
    f"CONTAINER ID                                                       IMAGE\n{v}   redis:7",
    v,
    "a container id",
    REDIS_AUTH,
)
v = uid()
b(
    H,
    f'{{"result": "Request will be processed", "took": 0.302, "requestId": "{v}"}}',
    v,
    "an Opsgenie request id returned by the API, not the GenieKey",
    OPSGENIE,
)
v = uid()
b(H, f"X-Request-Id: {v}", v, "a request id", POSTMAN)
v1 = f"00-{r(HEX, 32)}-{r(HEX, 16)}-01"
b(H, f"traceparent: {v1}", v1, "a W3C trace context id", DYNATRACE)
v = "arn:aws:iam::123456789012:role/deploy"
b(H, f"assumed {v} for session ci-4711", v, "an ARN", SIGV4)
v = "h1:" + b64(rng.randbytes(32))
b(H, f"golang.org/x/text v0.14.0 {v}", v, "a go.sum module hash", GO_DSN)
v = r(HEX, 64)
b(
    H,
    f'[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{v}"',
    v,
    "a Cargo.lock checksum",
    CARGO,
)
v = r(HEX, 64)
b(H, f"requests==2.32.3 \\\n    --hash=sha256:{v}", v, "a pip hash", DSN_RS)
v = "dt0c01." + r(UPDIG, 24)
b(
    H,
    f"token identifier {v} was used for staging the app",
    v,
    "the public identifier of a Dynatrace token, documented as safe to display and log",
    DYNATRACE,
)
v = "sq0idp-" + r(B64URL, 22)
b(
    H,
    f"const appId = '{v}';\nconst locationId = 'L{r(UPDIG, 12)}';",
    v,
    "a Square application id, used in the browser",
    SQUARE_APPID,
)
v = r(HEX, 24)
b(H, f'db.orders.find({{ _id: ObjectId("{v}") }})', v, "a MongoDB ObjectId", PG_JDBC)
v = "SHA256:" + b64(rng.randbytes(32)).rstrip("=")
b(
    H,
    f"ED25519 key fingerprint is {v}.\nAre you sure you want to continue connecting (yes/no)?",
    v,
    "an SSH host key fingerprint",
    SSHPASS_CN,
)
v = " ".join(r("0123456789ABCDEF", 4) for _ in range(10))
b(H, f"      Key fingerprint = {v}", v, "a PGP key fingerprint", ANSIBLE_VAULT)
v = f'W/"{r(HEX, 32)}"'
b(H, f"ETag: {v}", v, "an HTTP entity tag", POSTMAN)
v = f"main.{r(HEX, 8)}.js"
b(
    H,
    f'<script src="/static/js/{v}"></script>',
    v,
    "a bundle file name with a content hash",
    SRI_MDN,
)
v = "0x" + r(HEX, 64)
b(H, f"tx {v} confirmed in block 19000001", v, "a transaction hash", SRI_MDN)
v = "nyprhd2z6bd3"
b(
    H,
    f"$ pscale service-token show-access {v} --org acme\nDATABASE   ACCESSES\norders     connect_production_branch",
    v,
    "a PlanetScale service token id (the NAME column), not the token",
    PSCALE_NODE,
)
v = r(HEX, 32)
b(
    H,
    f'{{"event_id": "{v}", "level": "error", "platform": "python"}}',
    v,
    "a Sentry event id",
    SENTRY_AUTH,
)
v = uid()
b(H, f'  lineage = "{v}"\n  serial  = 42', v, "a Terraform state lineage", TF_LOGIN)
v = f"{rng.randint(10**17, 10**18 - 1)}"
b(H, f"Webhook ID: {v}", v, "a Discord webhook id alone; the token is the secret part", DISCORD)

v = "sha384-" + b64(rng.randbytes(48))
b(
    BL,
    f'<script src="https://example.com/example-framework.js" integrity="{v}" crossorigin="anonymous"></script>',
    v,
    "a subresource integrity hash",
    SRI_MDN,
)
v = "sha256-" + b64(rng.randbytes(32))
b(
    BL,
    f'<link rel="stylesheet" href="https://cdn.example.com/app.css" integrity="{v}" crossorigin="anonymous">',
    v,
    "a subresource integrity hash",
    SRI_NPM,
)
v = "sha512-" + b64(rng.randbytes(64))
b(
    BL,
    f'"node_modules/ms": {{\n  "version": "2.1.3",\n  "resolved": "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz",\n  "integrity": "{v}"\n}}',
    v,
    "a package-lock integrity string",
    SRI_W3,
)
v = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ" + b64(rng.randbytes(150))
b(BL, f'<img alt="logo" src="data:image/png;base64,{v}">', v, "an inline image", SRI_MDN)
v = "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(rng.randbytes(32))[:43]
b(BL, f"ssh-ed25519 {v} deploy@ci", v, "an SSH public key", SSHPASS_CN)
v = "AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + b64(rng.randbytes(256))
b(BL, f"$ cat ~/.ssh/id_rsa.pub\nssh-rsa {v} jdoe@laptop", v, "an SSH public key", SSHPASS_LC)
body_lines = "\n".join(b64(rng.randbytes(48)) for _ in range(5))
v = body_lines.splitlines()[2]
b(
    BL,
    f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body_lines}\n=Ab1c\n-----END PGP PUBLIC KEY BLOCK-----",
    v,
    "a PGP public key",
    ANSIBLE_VAULT,
)
cert_lines = "\n".join(b64(rng.randbytes(48)) for _ in range(6))
v = cert_lines.splitlines()[3]
b(
    BL,
    f"-----BEGIN CERTIFICATE-----\n{cert_lines}\n-----END CERTIFICATE-----",
    v,
    "a certificate",
    KUBECONFIG_TPL,
)
v = b64(
    (
        "-----BEGIN CERTIFICATE-----\n" + b64(rng.randbytes(120)) + "\n-----END CERTIFICATE-----\n"
    ).encode()
)
b(
    BL,
    f"clusters:\n- cluster:\n    certificate-authority-data: {v}\n    server: https://10.0.0.1:6443\n  name: kubernetes",
    v,
    "a cluster CA certificate",
    KUBECONFIG_TPL,
)
v = b64(
    (
        "-----BEGIN CERTIFICATE-----\n" + b64(rng.randbytes(120)) + "\n-----END CERTIFICATE-----\n"
    ).encode()
)
b(
    BL,
    f"users:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: {v}",
    v,
    "a client certificate (the key is the secret, not the certificate)",
    KUBECONFIG_TPL,
)
v = "age1" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
b(BL, f"# public key: {v}", v, "an age public key", ANSIBLE_VAULT)
v = b64(rng.randbytes(32))
b(
    BL,
    f"[Peer]\nPublicKey = {v}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.example.com:51820",
    v,
    "a WireGuard public key",
    SSHPASS,
)
vault_lines = "\n".join("          " + r(HEX, 80) for _ in range(4))
v = vault_lines.splitlines()[1].strip()
b(
    BL,
    f"db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n{vault_lines}",
    v,
    "Ansible Vault ciphertext, documented as safe to commit",
    ANSIBLE_VAULT,
)
v = r(B64URL, 342)
b(
    BL,
    f'{{"keys": [{{"kty": "RSA", "kid": "{r(B64URL, 20)}", "use": "sig", "n": "{v}", "e": "AQAB"}}]}}',
    v,
    "a public JWK modulus",
    KUBECTL_CRED,
)
v = "d09GMgABAAAAA" + b64(rng.randbytes(120))
b(
    BL,
    f"@font-face {{ font-family: 'Icons'; src: url(data:font/woff2;base64,{v}) format('woff2'); }}",
    v,
    "an inline font",
    SRI_W3,
)

b(
    PH,
    'export FLY_API_TOKEN="fo1_your_token_here"',
    "fo1_your_token_here",
    "a placeholder with the vendor prefix",
    FLY_SKILL,
)
b(
    PH,
    "GROQ_API_KEY=gsk_your_key_here",
    "gsk_your_key_here",
    "a placeholder with the vendor prefix",
    GROQ_ENV,
)
b(
    PH,
    'echo "ntn_your_key_here" > ~/.config/notion/api_key',
    "ntn_your_key_here",
    "a placeholder with the vendor prefix",
    NOTION,
)
b(
    PH,
    "curl 'https://oapi.dingtalk.com/robot/send?access_token=XXXXXX'",
    "access_token=XXXXXX",
    "a placeholder",
    DINGTALK,
)
b(
    PH,
    "Slack Webhook URL:\nhttps://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "XXXXXXXXXXXXXXXXXXXXXXXX",
    "the documented example URL",
    SLACK,
)
b(
    PH,
    "https://chat.googleapis.com/v1/spaces/WORKSPACE/messages?key=WEBHOOK_KEY&token=WEBHOOK_TOKEN",
    "token=WEBHOOK_TOKEN",
    "a placeholder",
    GCHAT,
)
b(PH, "https://api.telegram.org/bot<token>/METHOD_NAME", "bot<token>", "a placeholder", TG_CN)
b(
    PH,
    "- https://api.telegram.org/botxxx:yyy/sendMessage?chat_id=xx&text=text",
    "botxxx:yyy",
    "a placeholder",
    TG_NOTIFY,
)
b(
    PH,
    "DefaultEndpointsProtocol=https;AccountName=YOUR_ACCOUNT_NAME;AccountKey=YOUR_ACCOUNT_KEY;EndpointSuffix=core.windows.net",
    "AccountKey=YOUR_ACCOUNT_KEY",
    "a placeholder",
    AZURE_EX,
)
b(
    PH,
    'Standard Security:"Driver={SQL Server};Server=Your_Server_Name;Database=Your_Database_Name;Uid=Your_Username;Pwd=Your_Password;"',
    "Pwd=Your_Password",
    "a placeholder",
    MSSQL,
)
b(
    PH,
    "This file should contain lines of the following format:\nhostname:port:database:username:password",
    "hostname:port:database:username:password",
    "the documented format line",
    PGPASS,
)
b(
    PH,
    "redis 127.0.0.1:6379> AUTH PASSWORD\n(error) ERR Client sent AUTH, but no password is set",
    "AUTH PASSWORD",
    "the documented syntax",
    REDIS_TP,
)
b(
    PH,
    "jdbc:oracle:thin:[user/password]@[host][:port]:SID",
    "[user/password]",
    "the documented syntax",
    ORACLE_URL,
)
b(
    PH,
    "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
    "AKIAIOSFODNN7EXAMPLE",
    "AWS's documented example key id and signature",
    SIGV4,
)
b(
    PH,
    "secretAccessKey | wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY |",
    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "AWS's documented example secret",
    SIGV4_R,
)
b(
    PH,
    "Token example\ndt0s01.ST2EY72KQINMH574WMNVI7YN.G3DFPBEJYMODIDAEX454M7YWBUVEFOWKPRVMWFASS64NFH52PX6BNDVFFM572RZM",
    "G3DFPBEJYMODIDAEX454M7YWBUVEFOWKPRVMWFASS64NFH52PX6BNDVFFM572RZM",
    "Dynatrace's documented example token",
    DYNATRACE,
)
b(
    PH,
    '  "identifier": "myusername",\n  "secret": "dckr_pat_124509ugsdjga93"',
    "dckr_pat_124509ugsdjga93",
    "Docker's documented example",
    DOCKER_TOKEN,
)
b(
    PH,
    'curl https://sentry.io/api/0/organizations/ \\\n  -H "Authorization: Bearer sntryu_YOUR_TOKEN_HERE"',
    "sntryu_YOUR_TOKEN_HERE",
    "a placeholder with the vendor prefix",
    SENTRY_MINT,
)
b(
    PH,
    "curl -H 'Authorization: Bearer {TOKEN}' https://sentry.io/api/0/organizations/{organization_slug}/projects/",
    "Bearer {TOKEN}",
    "a placeholder",
    SENTRY_AUTH,
)
b(
    PH,
    'npmRegistries:\n  "https://registry.myverdaccio.org":\n    npmAlwaysAuth: true\n    npmAuthToken: <TOKEN>',
    "<TOKEN>",
    "a placeholder",
    YARNRC,
)
b(
    PH,
    'npmScopes:\n  fortawesome:\n    npmAlwaysAuth: true\n    npmAuthToken: "YOUR-TOKEN"',
    "YOUR-TOKEN",
    "a placeholder",
    YARNRC_FA,
)
b(
    PH,
    "<server>\n  <id>releases</id>\n  <username>LOGIN_NAME</username>\n  <password>LOGIN_PASS</password>\n</server>",
    "LOGIN_PASS",
    "a placeholder",
    MAVEN_TPL,
)
b(
    PH,
    "[default]\naccess_key = <ACCESS KEY FROM PORTAL>\nsecret_key = <SECRET KEY FROM PORTAL>",
    "<SECRET KEY FROM PORTAL>",
    "a placeholder",
    S3CFG,
)
b(
    PH,
    "[kinabalu-backup]\ntype = s3\naccess_key_id = A1234567890\nsecret_access_key = whatever-get-it-from-AWS",
    "whatever-get-it-from-AWS",
    "a placeholder in words",
    RCLONE_GIST,
)
b(
    PH,
    "[google]\ntype = drive\nclient_id = xxxxxxxxx.apps.googleusercontent.com\nclient_secret = xxxxxxxxxxxxx",
    "xxxxxxxxxxxxx",
    "a placeholder",
    RCLONE_GIST,
)
b(
    PH,
    '# Set token for current session only\nhf_set_token("hf_xxxxxxxxxxxxx")',
    "hf_xxxxxxxxxxxxx",
    "a placeholder with the vendor prefix",
    HF_R,
)
b(
    PH,
    "$client = new SquareClient([\n'accessToken' => 'YOUR SANDBOX ACCESS TOKEN HERE',\n'environment' => Environment::SANDBOX,\n]);",
    "YOUR SANDBOX ACCESS TOKEN HERE",
    "a placeholder",
    SQUARE_PHP,
)
b(
    PH,
    "users:\n- name:\n  user:\n    client-certificate-data:\n    client-key-data:",
    "client-key-data:",
    "an empty template",
    KUBECONFIG_TPL,
)
b(
    PH,
    '{\n  "credentials": {\n    "app.terraform.io": {\n      "token": "your-api-token-here"\n    }\n  }\n}',
    "your-api-token-here",
    "a placeholder",
    TF_LOGIN,
)
b(
    PH,
    "Authorization: Klaviyo-API-Key your-private-api-key",
    "your-private-api-key",
    "a placeholder",
    KLAVIYO,
)
b(
    PH,
    "sshpass -p 'my_pass_here' ssh aaronkilik@10.42.0.1 'df -h'",
    "my_pass_here",
    "the documented example placeholder",
    SSHPASS,
)
b(
    PH,
    "curl --url https://a.klaviyo.com/api/{endpoint}/ --header 'Authorization: Klaviyo-API-Key <shpat_...>'",
    "<shpat_...>",
    "an elided placeholder",
    KLAVIYO_KEYS,
)

b(MK, "Enter your DO Token: 58f6412345[redacted]", "58f6412345[redacted]", "already masked", DOCL)
b(
    MK,
    "Therefore, a better way of logging the API token would be like so:\ndt0c01.NDL63DNEONLLGXTYFDMZ4J47.<masked>",
    "dt0c01.NDL63DNEONLLGXTYFDMZ4J47.<masked>",
    "the secret portion is masked",
    DYNATRACE_CF,
)
b(
    MK,
    '{\n    "masked_space_id": "********Qku",\n    "masked_key": "************************************w9h",\n    "masked_token": "****************************************45I"\n}',
    "****************************************45I",
    "masked, last three characters shown",
    GCHAT_BROADCOM,
)
b(
    MK,
    "$ rclone config redacted s3\n[s3]\ntype = s3\naccess_key_id = XXX\nsecret_access_key = XXX",
    "secret_access_key = XXX",
    "redacted by rclone",
    RCLONE_REDACT,
)
b(
    MK,
    "export PLANETSCALE_TOKEN='[REDACTED]'\nexport PLANETSCALE_TOKEN_NAME='nyprhd2z6bd3'",
    "[REDACTED]",
    "already redacted",
    PSCALE_NODE,
)
b(
    MK,
    "New settings:\n  Access Key: AKIAJF2FTOVxxxxx\n  Secret Key: RcxCU6j9frycCK7uXFIneWZ/z5y+Txxxx",
    "RcxCU6j9frycCK7uXFIneWZ/z5y+Txxxx",
    "truncated and masked in the documentation",
    S3CMD,
)
b(MK, "password: '********'", "********", "masked", KUBECTL_CRED)
b(
    MK,
    '- https://api.telegram.org/bot187976149:AAGgl9VtPkDxh*********/sendMessage?chat_id=@test&text="hellow!"',
    "AAGgl9VtPkDxh*********",
    "the token's tail is masked",
    TG_PASTE,
)
b(
    MK,
    '{"name": "ci", "token": "glpat-********************", "expires_at": "2027-01-01"}',
    "glpat-********************",
    "masked by the API",
    GITLAB,
)
b(
    MK,
    "SENTRY_DSN=https://****@o0.ingest.sentry.io/0",
    "https://****@o0.ingest.sentry.io/0",
    "masked",
    SENTRY_MINT,
)
b(
    MK,
    "$ pscale service-token create\nNAME           TOKEN\n-------------- ------------------------------------------\nnyprhd2z6bd3   [REDACTED]",
    "[REDACTED]",
    "redacted in the documentation",
    PSCALE_NODE,
)

b(
    CR,
    "password = request.form['password']",
    "request.form['password']",
    "code reading a form field",
    PG_JDBC_PROPS,
)
b(CR, "token = get_token()", "get_token()", "a call", GROQ_APP)
b(
    CR,
    "const accessToken = await pd.rawAccessToken",
    "pd.rawAccessToken",
    "a property reference",
    DOPPLER,
)
b(
    CR,
    'sshpass -p "$SSH_PASSWD" ssh root@"$host" -o StrictHostKeyChecking=no "$@" 2>/dev/null',
    '"$SSH_PASSWD"',
    "a shell variable",
    SSHPASS_CN,
)
b(
    CR,
    "$> sshpass -e ssh username@x.x.x.x",
    "sshpass -e",
    "the password comes from the environment",
    SSHPASS_CN,
)
b(
    CR,
    "PASSWORD=$(cat /run/secrets/db_password)",
    "$(cat /run/secrets/db_password)",
    "a command substitution",
    ZARF,
)
b(
    CR,
    "    url: \"{{ secret('GOOGLE_WEBHOOK') }}\"",
    "{{ secret('GOOGLE_WEBHOOK') }}",
    "a template reference",
    KESTRA,
)
b(
    CR,
    "      - run: flyctl deploy --remote-only\n        env:\n          FLY_API_TOKEN: ${{ secrets.FLY_API_TOKEN }}",
    "${{ secrets.FLY_API_TOKEN }}",
    "a CI secret reference",
    FLY_ACTIONS,
)
b(
    CR,
    "<server>\n  <id>sonatype-nexus-snapshots</id>\n  <username>${env.CI_DEPLOY_USERNAME}</username>\n  <password>${env.CI_DEPLOY_PASSWORD}</password>\n</server>",
    "${env.CI_DEPLOY_PASSWORD}",
    "an environment reference",
    MAVEN_ENV,
)
b(
    CR,
    "npmScopes:\n  fortawesome:\n    npmAuthToken: ${FONT_AWESOME_AUTH_TOKEN}",
    "${FONT_AWESOME_AUTH_TOKEN}",
    "an environment reference",
    YARNRC_FA,
)
b(
    CR,
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "${NPM_TOKEN}",
    "an environment reference",
    NPMRC,
)
b(
    CR,
    "DATABASE_URL=${{vault.doppler-prd.DATABASE_URL}}\nSTRIPE_KEY=${{vault.doppler-prd.STRIPE_KEY}}",
    "${{vault.doppler-prd.STRIPE_KEY}}",
    "a secret-manager reference",
    DOKPLOY,
)
b(
    CR,
    '$ AUTH=$(echo -n "$REGISTRY_USERNAME:$REGISTRY_SECRET" | base64)',
    '"$REGISTRY_USERNAME:$REGISTRY_SECRET"',
    "variables",
    ZARF,
)
b(
    CR,
    '{\n  "auths": {\n    "$REGISTRY": {\n      "auth": "$AUTH"\n    }\n  }\n}',
    '"auth": "$AUTH"',
    "a variable",
    ZARF,
)
b(
    CR,
    "ods.setUser(userName);\nods.setPassword(password);",
    "ods.setPassword(password);",
    "a variable",
    ORACLE_JDBC,
)
b(
    CR,
    "Connection db = DriverManager.getConnection(url, username, password);",
    "getConnection(url, username, password)",
    "variables",
    PG_JDBC_CRUNCHY,
)
b(
    CR,
    "$secureString = ConvertTo-SecureString -AsPlainText -Force -String $PASSWORD",
    "-String $PASSWORD",
    "a variable",
    PWSH_GIST,
)
b(
    CR,
    'api_key_input = gr.Textbox(label="Groq Cloud API Key", type="password", placeholder="sk-...")',
    'type="password"',
    "a widget type and placeholder",
    GROQ_APP,
)
b(
    CR,
    'res = r.auth(password=os.environ["REDIS_PASSWORD"])',
    'os.environ["REDIS_PASSWORD"]',
    "an environment lookup",
    REDIS_AUTH,
)
b(
    CR,
    "this.webhook = `https://oapi.dingtalk.com/robot/send?access_token=${this.accessToken}`;",
    "${this.accessToken}",
    "a template variable",
    DINGTALK_SDK,
)
b(
    CR,
    "headers: {\n  Authorization: `Bearer ${this.figma.$auth.oauth_access_token}`,\n},",
    "${this.figma.$auth.oauth_access_token}",
    "a template variable",
    DOPPLER_GIST,
)
b(
    CR,
    'return fmt.Sprintf("%s:%s@tcp(%s:%d)/%s?charset=%s",\n\tconfig.Username, config.Password, host, config.Port, config.Database, charset)',
    "config.Password",
    "a struct field",
    GORM_DSN,
)
b(
    CR,
    '$ echo "$PAT" | docker login -u jdoe --password-stdin',
    "--password-stdin",
    "the password is read from stdin",
    CONTAINERS_AUTH,
)
b(CR, 'read -s -p "Password: " PASSWORD', "PASSWORD", "a prompt", SSHPASS_CSDN)
b(
    CR,
    "$ kubectl config set-credentials cluster-admin --client-key=~/.kube/admin.key",
    "--client-key=~/.kube/admin.key",
    "a path to a key, not the key",
    KUBECTL_OLD,
)
b(CR, "$ smbclient //server/share -N", "-N", "no password", SMBCLIENT)
b(
    CR,
    "> mysqldump -u username -p [other options]\nEnter password:",
    "-p [other options]",
    "-p without a value prompts",
    MYSQLDUMP,
)
b(CR, "$ ssh -p 2222 deploy@bastion.example.com", "-p 2222", "a port", SSHPASS_LC)
b(CR, "$ redis-cli -p 6380 -h cache.internal ping", "-p 6380", "a port", REDIS_AUTH)
b(
    CR,
    "$ htpasswd -c /etc/nginx/.htpasswd admin\nNew password:",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "the password is prompted",
    HTPASSWD,
)
b(
    CR,
    '{"access_token_ttl": 3600, "token_type": "bearer", "password_min_length": 12}',
    '"token_type": "bearer"',
    "settings, not secrets",
    DO_MR,
)
b(
    CR,
    "Passwd    string            // Password (requires User)",
    "// Password (requires User)",
    "a struct field and comment",
    GO_DSN,
)
b(
    CR,
    'pub const ACCOUNT_KEY_KEY_NAME: &str = "AccountKey";\npub const SAS_KEY_NAME: &str = "SharedAccessSignature";',
    '"SharedAccessSignature"',
    "key names",
    AZURE_RS,
)
b(CR, "final String oAuthToken;", "oAuthToken", "a declaration", DO_DART)
b(
    CR,
    "$ sshpass -f password_filename ssh aaronkilik@10.42.0.1 'df -h'",
    "password_filename",
    "a file holding the password",
    SSHPASS,
)
b(
    CR,
    "$ vault login -method=userpass username=jdoe\nPassword (will be hidden):",
    "username=jdoe",
    "the password is prompted",
    VAULT_TUT,
)

b(
    PR,
    "The password must be at least 12 characters long and contain a digit.",
    "at least 12 characters",
    "prose",
    HTPASSWD,
)
b(
    PR,
    "Tokens are valid for 20 years by default. We recommend using a shorter expiry if practical.",
    "valid for 20 years",
    "prose",
    FLY_DEPLOY,
)
b(
    PR,
    "注意:请保管好此Webhook 地址,不要公布在外部网站上,泄露后有安全风险。",
    "请保管好此Webhook 地址",
    "prose in Chinese",
    DINGTALK,
)
b(
    PR,
    "トークンは、Vaultへのアクセスを認証するための文字列です。",
    "トークン",
    "prose in Japanese",
    VAULT_JA,
)
b(
    PR,
    "Jede Stripe-Integration beginnt mit derselben Frage: Welcher Schlüssel gehört wohin?",
    "Welcher Schlüssel gehört wohin?",
    "prose in German",
    DE_STRIPE,
)
b(
    PR,
    "Giải thích khóa API Stripe: Test vs Live, Publishable vs Secret và Restricted Keys",
    "khóa API",
    "prose in Vietnamese",
    VI_STRIPE,
)
b(
    PR,
    "Take care to keep the token secret, it should not be shared with anyone else.",
    "keep the token secret",
    "prose",
    CARGO,
)
b(
    PR,
    "Many equally important things (like access tokens) are not obscured in the config file. However it is very hard to shoulder surf a 64 character hex token.",
    "64 character hex token",
    "prose",
    RCLONE_OBSCURE,
)
b(
    PR,
    "--password=: password for the user entry in kubeconfig\n--token=: token for the user entry in kubeconfig",
    "--password=: password for the user entry",
    "help text",
    KUBECTL_OLD,
)
b(
    PR,
    "-p password  Provide password as argument (security unwise)",
    "-p password",
    "help text",
    SSHPASS_CN,
)
b(
    PR,
    "ldap search [-LvWxZ] [-b basedn] [-D binddn] [-H host] [-w secret] [-y secretfile]",
    "[-w secret]",
    "a synopsis",
    LDAP_OBSD,
)
b(
    PR,
    "smbclient {servicename} [password] [-b <buffer size>] [-d debuglevel] [-U username]",
    "[password]",
    "a synopsis",
    SMBCLIENT,
)
b(
    PR,
    "htpasswd -b [ -c ] [ -m | -d | -p | -s ] passwdfile username password",
    "passwdfile username password",
    "a synopsis",
    HTPASSWD,
)
b(
    PR,
    "password è la password richiesta per accedere al servizio sul server indicato.",
    "password è la password",
    "prose in Italian",
    IT_SMB,
)
b(PR, "Enter your DO Token:", "DO Token:", "a prompt", DOCL)
b(
    PR,
    "The key parameter of the URL is shared by all Google Chat webhooks, the secret part is the token parameter.",
    "the secret part is the token parameter",
    "prose",
    GCHAT_GG,
)
b(
    PR,
    "Authentication tokens are passed using an auth header, and are used to authenticate as a user or organization account with the API.",
    "Authentication tokens are passed",
    "prose",
    SENTRY_AUTH,
)
b(
    PR,
    "PagerDuty exposes two distinct APIs: the REST API and the Events API v2 (routing key in the body, no Authorization header).",
    "routing key in the body",
    "prose",
    PD_REST,
)
b(
    PR,
    "Die Token-Authentifizierung ist aktiviert; das Kennwort wird nie protokolliert.",
    "das Kennwort wird nie protokolliert",
    "prose in German",
    DE_AZURE,
)


def main() -> None:
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    secrets = sum(row["expect"] == "secret" for row in ROWS)
    print(f"{OUT.name}: {secrets} secrets, {len(ROWS) - secrets} look-alikes")


if __name__ == "__main__":
    main()
