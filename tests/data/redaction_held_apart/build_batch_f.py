"""Build batch F of the held-apart redaction set (batch-f.jsonl), blind to the rules.

Written from the public documentation of tools the earlier batches did not draw on (Tencent,
Yandex, Huawei and Naver clouds, Backblaze, Proxmox, OpenStack, Databricks, Snowflake, SAP HANA,
Trino, Couchbase, etcd, Airflow, dbt, Azure Service Bus, Meilisearch, Pinecone, Supabase, k3s,
kubeadm, Docker Swarm, age, ZeroMQ, minisign, Tailscale, ngrok, 1Password, Linear, Resend,
Brevo, Mollie, Paystack, Mercado Pago, Honeycomb, CircleCI, JFrog, Expo, Gradle signing, SteamCMD,
Mattermost, Rocket.Chat, Teams and Feishu webhooks), without reading the redaction rules. Each row
is a line of agent evidence: a command, its output, a config or CI snippet, a log line, code.

Secret values are invented in each vendor's documented shape from a seeded generator (the
``secrets`` module cannot be seeded, so a ``random.Random`` with a fixed seed stands in for it),
which keeps the file reproducible: ``python tests/data/redaction_held_apart/build_batch_f.py``
rewrites batch-f.jsonl, and a test checks the file is what this script writes.

A secret row holds ``secret``, text that must not survive redaction. A look-alike row holds
``value``, text that must survive, and its context must come through with nothing redacted.
"""

# ruff: noqa: E501
from __future__ import annotations

import base64
import json
import random
import string
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().with_name("batch-f.jsonl")
R = random.Random(20261203)
PLACEHOLDER_WORDS = ("example", "xxx", "changeme")

AL = string.ascii_letters + string.digits
LO = string.ascii_lowercase + string.digits
UP = string.ascii_uppercase + string.digits
HX = "0123456789abcdef"
URLSAFE = AL + "-_"
B32 = "abcdefghijklmnopqrstuvwxyz234567"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
WORDS = [
    "tundra",
    "maple",
    "copper",
    "falcon",
    "harbor",
    "quartz",
    "lantern",
    "meadow",
    "cobalt",
    "juniper",
    "orbit",
    "walnut",
    "saffron",
    "glacier",
    "pepper",
    "thistle",
    "rocket",
    "velvet",
    "canyon",
    "ember",
    "marble",
    "sparrow",
]


def pick(chars: str, n: int) -> str:
    while True:
        text = "".join(R.choice(chars) for _ in range(n))
        if not [w for w in PLACEHOLDER_WORDS if w in text.lower()]:
            return text


def raw(n: int) -> bytes:
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n: int) -> str:
    return base64.b64encode(raw(n)).decode()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def uid() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def password() -> str:
    if R.random() < 0.4:
        words = [R.choice(WORDS).capitalize() for _ in range(3)]
        return "-".join(words) + str(R.randint(10, 99)) + R.choice("!#%*")
    return pick(AL, 10) + R.choice("!#%*+=") + pick(AL, 5)


def jwt(payload: dict[str, object]) -> str:
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    return f"{head}.{body}.{b64url(raw(32))}"


# Vendor shapes, as each tool's documentation describes them.
def linear() -> str:
    return "lin_api_" + pick(AL, 40)


def resend() -> str:
    return "re_" + pick(AL, 8) + "_" + pick(AL, 24)


def brevo(kind: str = "xkeysib") -> str:
    return f"{kind}-" + pick(HX, 64) + "-" + pick(AL, 16)


def mollie(mode: str = "live") -> str:
    return f"{mode}_" + pick(AL, 30)


def paystack() -> str:
    return "sk_live_" + pick(HX, 40)


def mercadopago() -> str:
    digits = string.digits
    return f"APP_USR-{pick(digits, 16)}-{pick(digits, 6)}-{pick(HX, 32)}-{pick(digits, 9)}"


def tailscale(kind: str = "auth") -> str:
    return f"tskey-{kind}-k" + pick(AL, 11) + "CNTRL-" + pick(AL, 33)


def onepassword() -> str:
    return "ops_eyJ" + pick(URLSAFE, 320)


def databricks() -> str:
    return "dapi" + pick(HX, 32)


def supabase_service(ref: str) -> str:
    return jwt(
        {
            "iss": "supabase",
            "ref": ref,
            "role": "service_role",
            "iat": 1733000000,
            "exp": 2048576000,
        }
    )


def mapbox_secret() -> str:
    body = b64url(
        json.dumps({"u": "tallgrass-maps", "a": pick(LO, 25)}, separators=(",", ":")).encode()
    )
    return "sk." + body + "." + pick(URLSAFE, 22)


def pinecone() -> str:
    return "pcsk_" + pick(AL, 6) + "_" + pick(AL, 64)


def honeycomb() -> str:
    return "hcaik_" + pick(LO, 58)


def circleci(kind: str = "CCIPAT") -> str:
    return f"{kind}_" + pick(AL, 22) + "_" + pick(HX, 40)


def jfrog_key() -> str:
    return "AKCp" + pick(AL, 69)


def ngrok() -> str:
    return "2" + pick(AL, 26) + "_" + pick(AL, 21)


def cloudflare_token() -> str:
    return pick(URLSAFE, 40)


def tencent_id() -> str:
    return "AKID" + pick(AL, 32)


def yandex_secret() -> str:
    return "YC" + pick(URLSAFE, 38)


def b2_key() -> str:
    return "K005" + pick(AL, 27)


def k3s_token() -> str:
    return "K10" + pick(HX, 64) + "::server:" + pick(HX, 32)


def kubeadm_token() -> str:
    return pick(LO, 6) + "." + pick(LO, 16)


def swarm_token() -> str:
    return "SWMTKN-1-" + pick(LO, 50) + "-" + pick(LO, 25)


def age_secret() -> str:
    return "AGE-SECRET-KEY-1" + pick(BECH, 58).upper()


def age_public() -> str:
    return "age1" + pick(BECH, 58)


def azure_pat() -> str:
    return pick(B32, 52)


ROWS: list[dict[str, str]] = []


def secret(cls: str, source: str, context: str, value: str) -> None:
    assert "§" in context, context
    ROWS.append(
        {
            "class": cls,
            "expect": "secret",
            "context": context.replace("§", value),
            "secret": value,
            "source": source,
        }
    )


def benign(cls: str, source: str, context: str, value: str, reason: str) -> None:
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


# Sources: the documentation page each row was written from.
TCCLI = "https://tencentcloud.com/document/product/1013/52421"
TCCLI_GH = "https://github.com/TencentCloud/tencentcloud-cli-intl-en.git/"
YC = "https://yandex.cloud/en/docs/iam/cli-ref/access-key/create"
YC_RU = "https://yandex.cloud/ru/docs/iam/cli-ref/access-key/create"
TAILSCALE = "https://tailscale.com/docs/features/access-control/auth-keys/how-to.md"
TAILSCALE_GH = "https://github.com/tailscale/codespace/pull/51/files"
TAILSCALE_RS = "https://docs.rs/crate/tailscale-client/latest"
AGE = "https://man.archlinux.org/man/age-keygen.1.en"
AGE_ZH = "https://man.archlinux.org/man/rage-keygen.1.zh_CN"
OP = "https://developer.1password.com/docs/service-accounts/use-with-1password-cli"
LINEAR = "https://docs.blackbox.ai/features/integrations/linear"
KUBEADM = "https://man.archlinux.org/man/kubeadm-join.1.en"
KUBEADM_ZH = "https://kubernetes.io/zh-cn/docs/reference/setup-tools/kubeadm/kubeadm-join"
KUBEADM_TC = "https://cloud.tencent.com/developer/article/1361800"
SWARM = "https://pastebin.com/VDrFiLEs"
K3S = "https://docs.k3s.io/cli/token"
K3S_JA = "https://docs.k3s.io/ja/cli/token"
K3S_ZH = "https://docs.k3s.io/zh/cli/token"
PROXMOX = "https://ansible-community.github.io/package-doc-builds/collections/community/proxmox/docsite/guides.html"
PROXMOX_SKILL = "https://www.skills.sh/moltbot/skills/proxmox-full"
PROXMOX_RU = (
    "https://docs.altlinux.org/ru-RU/alt-server-v/11.2/html/alt-virtualization-pve/pve-users.html"
)
PROXMOX_PHP = "https://github.com/notbasetwo/pve2-api-php-client"
OPENSTACK = "https://docs.openstack.org/openstack-ansible-openstack_openrc/"
OPENSTACK_APP = "https://ansible-community.github.io/package-doc-builds/collections/openstack/cloud/application_credential_module.html"
UNDERSTACK = "https://github.com/rackerlabs/understack/pull/1255/files"
B2 = "https://www.backblaze.com/docs/cloud-storage-account-authorize-command"
B2_QS = "https://github.com/Backblaze/B2_Command_Line_Tool/blob/0d0878b63b3bcd97b42d4c345018eb39794dfb41/doc/source/quick_start.rst"
B2_API = "https://backblaze.com/apidocs/b2-authorize-account"
B2_R = "https://rdrr.io/cran/backblazer/man/b2AuthorizeAccount.html"
B2_EX = "https://hexdocs.pm/blazay/Blazay.B2.Account.Authorization.html"
WRANGLER_LEGACY = "https://developers.cloudflare.com/workers/wrangler-legacy/authentication/"
WRANGLER_CI = "https://developers.Cloudflare.com/workers/wrangler/ci-cd"
WRANGLER_GITLAB = "https://developers.cloudflare.com/workers/ci-cd/external-cicd/gitlab-cicd/"
DATABRICKS = "https://docs.databricks.com/en/dev-tools/cli/configure-commands.html"
DATABRICKS_ZH = "https://docs.azure.cn/zh-cn/databricks/dev-tools/auth/pat?language=Profile"
AIRFLOW_DATABRICKS = "https://airflow.apache.org/docs/apache-airflow-providers-databricks/2.0.0/connections/databricks.html"
SNOWSQL = "https://docs.snowflake.com/user-guide/snowsql-start"
SNOWSQL_CFG = "https://docs.snowflake.com/user-guide/snowsql-config"
SNOWSQL_DE = "https://docs.Snowflake.com/de/user-guide/snowsql-start"
SNOWFLAKE_ODBC = "https://docs.progress.com/bundle/datadirect-snowflake-odbc-80/page/User-ID-and-password-authentication.html"
SERVICEBUS = "https://learn.microsoft.com/en-us/javascript/api/@azure/service-bus/servicebusconnectionstringproperties?view=azure-node-latest"
SERVICEBUS_PY = "https://learn.microsoft.com/en-us/python/api/azure-servicebus/azure.servicebus.servicebusconnectionstringproperties?view=azure-python"
SERVICEBUS_IT = "https://learn.microsoft.com/it-it/javascript/api/@azure/service-bus/servicebusconnectionstringproperties?view=azure-node-latest"
SERVICEBUS_NET = "https://learn.microsoft.com/en-ca/dotnet/api/azure.messaging.servicebus.servicebusconnectionstringproperties?view=azure-dotnet"
NGROK = "https://pastebin.com/bn5mv6tL"
NGROK_ASPIRE = "https://aspire.dev/reference/api/typescript/communitytoolkit.aspire.hosting.ngrok/withauthtokenvalue/"
WANDB = "https://docs.wandb.ai/ref/cli/wandb-login/"
WANDB_KO = "https://docs.coreweave.com/ko/products/wandb/ref/python/functions/login"
MOLLIE = "https://docs.mollie.com/reference/authentication.md"
MOLLIE_HELP = "https://help.mollie.com/hc/en-us/articles/115000328205-Where-can-I-find-the-API-key-"
PAYSTACK = "https://github.com/PaystackOSS/doc-code-snippets/commit/97324a48d8fc0a18da0a3c909dd270fb9807e1b2"
PAYSTACK_DART = "https://pub.dev/documentation/pay_with_paystack/latest/model_paystack_config/PaystackConfig/secretKey.html"
PAYSTACK_RB = "https://rubydoc.info/gems/paystack/Paystack"
MP = "https://www.mercadopago.com.br/developers/en/docs/checkout-api-payments/best-practices/credentials-best-practices/secure-credentials.md"
MP_PT = "https://mercadopago.com.br/developers/pt/reference/oauth/_oauth_token/post"
MP_ES = "https://mercadopago.com.mx/developers/es/reference/oauth/_oauth_token/post"
BREVO = "https://developers.brevo.com/docs/api-key-authentication"
BREVO_DEV = "https://dev.to/omnigenz/send-transactional-email-with-the-brevo-api-and-plain-nodejs-fetch-no-sdk-56f4"
BREVO_REF = "https://developers.brevo.com/reference/quickstart-reference.md"
RESEND = "https://www.Github.com/resend/resend-java-legacy"
RESEND_AR = "https://apidog.com/ar/blog/resend-api-key/"
RESEND_AUTH = "https://resend.com/auth.md"
HONEYCOMB = "https://www.checklyhq.com/resolve/traces/export/honeycomb"
HONEYCOMB_OTEL = "https://oneuptime.com/blog/post/2026-02-06-otel-honeycomb-otlp-grpc/view"
HONEYCOMB_GO = "https://github.com/moov-io/base/blob/v0.49.3/telemetry/honey.go"
HONEYCOMB_RS = (
    "https://docs.rs/crate/apollo-opentelemetry/0.8.0/source/src/config/exporters/honeycomb.rs"
)
CIRCLECI = "https://circleci.com/docs/guides/toolkit/managing-api-tokens/index.md"
CIRCLECI_R = "https://docs.ropensci.org/circle/reference/browse_circle_token.html"
TRAVIS = "https://www.npmjs.com/package/travis-encrypt"
JFROG = "https://jfrog.com/help/r/jfrog-rest-apis/introduction-to-the-artifactory-rest-apis"
JFROG_GIST = "https://gist.github.com/cruepprich/c7f941fd7046d9f8b18d37196a8240c9"
GORELEASER = "https://goreleaser.com/cookbooks/using-jfrog-cli-to-publish-to-artifactory"
FASTLANE_ART = "https://docs.fastlane.tools/actions/artifactory/"
PIXI = "https://pixi.prefix.dev/v0.76.0/reference/cli/pixi/upload/artifactory/"
EXPO = "https://docs.expo.dev/accounts/programmatic-access/"
EXPO_CI = "https://docs.expo.dev/eas/simulators/how-to/run-in-ci/"
GRADLE = "https://vanniktech.github.io/gradle-maven-publish-plugin/api/plugin/com.vanniktech.maven.publish/-maven-publish-base-extension/sign-all-publications.html"
GRADLE_TPL = "https://github.com/Lenni0451/GradleTemplate"
STEAMCMD = "https://github.com/7thCore/arma3srv-script/wiki/Steam-configuration"
STEAMCMD_2FA = "https://github.com/Weilbyte/steamcmd-2fa"
PALWORLD = "https://github.com/thijsvanloef/palworld-server-docker/releases/tag/1.2.2"
OBSUTIL = "https://support.huaweicloud.com/intl/en-us/utiltg-obs/obs_11_0005.html"
OBSUTIL_ZH = "https://support.huaweicloud.com/utiltg-obs/obs_11_0023.md"
OBSUTIL_CFG = "https://support.huaweicloud.com/utiltg-obs/obs_11_0035.md"
ETCD = "https://etcd.io/docs/v3.6/demo/"
ETCD_BITNAMI = "https://docs.bitnami.com/aws/infrastructure/etcd/get-started/connect/"
ETCD_ZH = "https://cnblogs.com/determined-K/p/14756676.html"
HDBSQL = "https://learning.sap.com/courses/sap-hana-installation-and-administration/using-the-sap-hana-hdbsql-command-line-tool"
HDBSQL_ZH = "https://cnblogs.com/tingxin/p/12583111.html"
HANA_ANSIBLE = "https://ansible-community.github.io/package-doc-builds/collections/community/sap_libs/sap_hdbsql_module.html"
HANA_JDBC = "https://docs.progress.com/bundle/datadirect-sap-hana-jdbc-60/page/User-IDpassword-authentication.html"
HANA_CLI = "https://smithery.ai/skills/secondsky/sap-hana-cli"
TRINO = "https://trino.io/docs/current/client/cli.html"
TRINO_SECRETS = "https://trino.io/docs/current/security/secrets.html"
HARLEQUIN = "https://harlequin.sh/docs/trino.md"
TRINO_TOOLBOX = "https://googleapis.github.io/genai-toolbox/resources/sources/trino"
TRINO_MCP = "https://raw.githubusercontent.com/tuannvm/mcp-trino/main/docs/secrets.md"
AIRFLOW = "https://airflow.apache.org/docs/apache-airflow/2.2.3/howto/connection.html"
DBT = "https://gist.github.com/anna-geller/33952c140a2bff597852b9d694893964"
PREFECT_DBT = "https://docs.prefect.io/integrations/prefect-dbt/cli/credentials/"
SUPABASE = "https://Supabase.com/docs/guides/api/api-keys"
SUPABASE_JA = "https://qiita.com/syukan3/items/8ec9b7288834e4c95f3b"
SUPABASE_ZH = "https://blog.csdn.net/weixin_44903776/article/details/146584997"
SUPABASE_SWIFT = "https://supabase.com/docs/reference/swift/admin-api"
MEILI = "https://meilisearch.com/docs/learn/security/basic_security"
MEILI_API = "https://www.meilisearch.com/docs/reference/api/authorization.md"
MEILI_ZH = "https://blog.csdn.net/qq_32649581/article/details/139619662"
MEILI_KEYS = "https://meilisearch.com/docs/resources/self_hosting/security/master_api_keys"
ADO = "https://github.com/MicrosoftDocs/azure-devops-docs/pull/8552/files"
ADO_UPDATECLI = "https://www.updatecli.io/docs/plugins/_azuredevopsauth/"
ZMQ = "https://zeromq.github.io/libzmq/zmq_curve_keypair.html"
CBQ = "https://docs.couchbase.com/server/current/tools/cbq-shell.html"
CBCLI = "https://docs.huihoo.com/couchbase/couchbase-server/3.0/CLI/cbcli-intro.html"
CBQ_ZH = "https://blog.csdn.net/BQL_Email/article/details/88844389"
NCLOUD = "https://libraries.io/pypi/ncloud-sdk/1.1.9"
NCLOUD_K8S = "https://guide.ncloud-docs.com/release-20240125/docs/k8s-iam-auth-kubeconfig"
NCLOUD_API = "https://api.ncloud-docs.com/docs/en/common-ncpapi.md"
TEAMS = "https://containrrr.dev/shoutrrr/0.7/services/teams/"
TEAMS_NPM = "https://github.com/rocsys/node-ms-teams-webhook"
TEAMS_TESTKUBE = "https://docs.testkube.io/articles/teams-integration"
MATTERMOST = "https://developers.mattermost.com/integrate/webhooks/incoming/"
MATTERHOOK = "https://github.com/numberly/matterhook"
LARK = "https://beszel.dev/guide/notifications/lark"
OPENLARK = "https://docs.rs/crate/openlark-webhook/latest"
LARK_PY = "https://www.skills.sh/site/skills.volces.com/lark-custom-bot"
ROCKET = "https://docs.rocket.chat/docs/rocketchat-marketplace-integrations"
ROCKET_NPM = "https://www.npmjs.com/package/rocketchat-webhook"
ROCKET_LIBRENMS = "https://docs.librenms.org/Alerting/Transports/Rocket-Chat"
GOSUM = "https://godocs.io/golang.org/x/mod/sumdb/dirhash"
GOSUM_BOOK = (
    "https://livebook.manning.com/learn/concepts/go-sum--config/go-in-action-second-edition"
)
PIP_HASH = "https://raw.githubusercontent.com/pypa/pip/main/docs/html/topics/secure-installs.md"
SOPS = "https://github.com/felixfontein/sops/blob/main/example.yaml"
SOPS_ANSIBLE = "https://ansible-community.github.io/package-doc-builds/collections/community/sops/docsite/guide.html"
MINISIGN = "https://man.archlinux.org/man/minisign.1.en"
MAPBOX = "https://docs.mapbox.com/help/dive-deeper/access-tokens"
MAPBOX_JA = "https://docs.mapbox.com/api/ja/accounts/tokens"
PINECONE = "https://docs.pinecone.io/docs/authentication"
PINECONE_LC = "https://reference.langchain.com/python/langchain-pinecone/embeddings/PineconeEmbeddings/pinecone_api_key"
DYNACONF = "https://libraries.io/pypi/dynaconf/3.1.9"
GODOT = "https://github.com/godotengine/godot/issues/109551"
GODOT_CFG = "https://github.com/godotengine/godot-proposals/issues/1156"
BUTLER = "https://github.com/marketplace/actions/setup-butler"
BUTLERSWARM = "https://docs.rs/crate/butlerswarm/0.9.1"

# ---------------------------------------------------------------------------------------------
# Vendor tokens: prefixed SaaS keys in commands and env lines.
V = "vendor token"
secret(
    V,
    LINEAR,
    """$ curl -s https://api.linear.app/graphql -H "Authorization: §" -H 'Content-Type: application/json' -d '{"query":"{ viewer { id name } }"}'""",
    linear(),
)
secret(
    V, LINEAR, "LINEAR_API_KEY=§ npx @linear/cli issue list --team ENG --state started", linear()
)
secret(
    V,
    RESEND_AUTH,
    """curl -X POST 'https://api.resend.com/emails' -H 'Authorization: Bearer §' -H 'Content-Type: application/json' -d '{"from":"ops@mail.tallgrass.io","to":["oncall@tallgrass.io"],"subject":"deploy ok","text":"done"}'""",
    resend(),
)
secret(
    V,
    BREVO_REF,
    'curl -s https://api.brevo.com/v3/account -H "api-key: §" -H "accept: application/json"',
    brevo(),
)
secret(
    V,
    BREVO_DEV,
    "const transport = nodemailer.createTransport({ host: 'smtp-relay.brevo.com', port: 587, auth: { user: '8a1f2c001@smtp-brevo.com', pass: '§' } });",
    brevo("xsmtpsib"),
)
secret(
    V,
    MOLLIE,
    '$ curl -X GET https://api.mollie.com/v2/payments?limit=5 -H "Authorization: Bearer §"',
    mollie(),
)
secret(V, MOLLIE_HELP, "MOLLIE_TEST_API_KEY=§", mollie("test"))
secret(
    V,
    PAYSTACK,
    """curl https://api.paystack.co/transaction/initialize -H "Authorization: Bearer §" -H "Content-Type: application/json" -d '{ "email": "ada@lagos-bikes.ng", "amount": "500000" }' -X POST""",
    paystack(),
)
secret(
    V, MP, "curl -H 'Authorization: Bearer §' https://api.mercadolibre.com/users/me", mercadopago()
)
secret(V, TAILSCALE, "$ sudo tailscale up --auth-key=§ --advertise-tags=tag:ci --ssh", tailscale())
secret(V, TAILSCALE_RS, "TS_API_KEY=§ terraform apply -target=tailscale_acl.main", tailscale("api"))
secret(V, OP, 'export OP_SERVICE_ACCOUNT_TOKEN="§"\nop vault list', onepassword())
secret(V, SUPABASE, "$ supabase login --token sbp_§", pick(HX, 40))
secret(
    V,
    SUPABASE,
    "SUPABASE_SECRET_KEY=sb_secret_§ node scripts/backfill-profiles.mjs",
    pick(URLSAFE, 31),
)
secret(V, MAPBOX, "# ~/.gradle/gradle.properties\nMAPBOX_DOWNLOADS_TOKEN=§", mapbox_secret())
secret(
    V,
    PINECONE,
    'curl https://api.pinecone.io/indexes -H "Api-Key: §" -H "X-Pinecone-Api-Version: 2025-10"',
    pinecone(),
)
secret(V, CIRCLECI, 'curl --header "Circle-Token: §" https://circleci.com/api/v2/me', circleci())
secret(
    V,
    JFROG_GIST,
    'curl -H "X-JFrog-Art-Api:§" -T build/app-1.4.2.tgz "https://tallgrass.jfrog.io/artifactory/generic-local/app/1.4.2/app-1.4.2.tgz"',
    jfrog_key(),
)
secret(
    V,
    EXPO,
    "EXPO_TOKEN=§ npx eas-cli@latest build --platform ios --non-interactive",
    pick(URLSAFE, 40),
)
secret(
    V,
    NGROK,
    "$ ngrok config add-authtoken §\nAuthtoken saved to configuration file: /home/dev/.config/ngrok/ngrok.yml",
    ngrok(),
)
secret(
    V,
    WRANGLER_CI,
    "CLOUDFLARE_ACCOUNT_ID=5b1c9e0d7a2f4e3b8c6d1a0f9e8b7c6d CLOUDFLARE_API_TOKEN=§ npx wrangler deploy --env production",
    cloudflare_token(),
)
secret(V, WRANGLER_LEGACY, "CF_EMAIL=ops@tallgrass.io CF_API_KEY=§ wrangler publish", pick(HX, 37))
secret(
    V,
    DATABRICKS,
    "export DATABRICKS_HOST=https://adb-4417283995331582.2.azuredatabricks.net\nexport DATABRICKS_TOKEN=§\ndatabricks clusters list",
    databricks(),
)
secret(
    V,
    HONEYCOMB_OTEL,
    'export OTEL_EXPORTER_OTLP_ENDPOINT="https://api.honeycomb.io:443"\nexport OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=§"',
    honeycomb(),
)

pk_body = b64url(
    json.dumps({"u": "tallgrass-maps", "a": pick(LO, 25)}, separators=(",", ":")).encode()
)
benign(
    V,
    MAPBOX,
    "MAPBOX_PUBLIC_TOKEN=" + (v := "pk." + pk_body + "." + pick(URLSAFE, 22)),
    v,
    "a pk. Mapbox token is the public kind the documentation says may be shipped in client code",
)
benign(
    V,
    PAYSTACK_RB,
    "PAYSTACK_PUBLIC_KEY=pk_live_3f9a1c77e0b24d5a8e61c0b9d2f4a6e8c1b3d5f7",
    "pk_live_3f9a1c77e0b24d5a8e61c0b9d2f4a6e8c1b3d5f7",
    "the public key is meant for the checkout page; only the sk_ key is secret",
)
benign(
    V,
    CIRCLECI,
    "$ circleci setup --no-prompt --host https://circleci.com\nToken has been set.",
    "Token has been set.",
    "the CLI's confirmation line, no token in it",
)
benign(
    V,
    TAILSCALE_GH,
    "sudo tailscale up --accept-routes --auth-key=$TS_AUTH_KEY",
    "--auth-key=$TS_AUTH_KEY",
    "the key comes from a variable; nothing secret is written",
)
benign(
    V,
    LINEAR,
    "Personal API keys are under Settings > Account > Security & Access > Personal API keys; copy the key when it is shown.",
    "Security & Access > Personal API keys",
    "instructions naming where the key lives",
)

# ---------------------------------------------------------------------------------------------
# Cloud credentials: access key pairs and API tokens of clouds outside the big three.
C = "cloud credential"
tid, tkey = tencent_id(), pick(AL, 32)
tc_ctx = "$ tccli configure\nTencentCloud API secretId [None]:§1\nTencentCloud API secretKey [None]:§2\nregion: ap-guangzhou\noutput[json]:"
secret(C, TCCLI, tc_ctx.replace("§2", tkey).replace("§1", "§"), tid)
secret(C, TCCLI, tc_ctx.replace("§1", tid).replace("§2", "§"), tkey)
secret(
    C,
    TCCLI_GH,
    "export TENCENTCLOUD_SECRET_ID=AKIDq3lF0mT7bYw2Rz8vNc4kXp1sGh6dJe9a\nexport TENCENTCLOUD_SECRET_KEY=§\ntccli cvm DescribeInstances --region ap-shanghai",
    pick(AL, 32),
)
ycs = yandex_secret()
secret(
    C,
    YC,
    '$ yc iam access-key create --service-account-name s3-uploader\naccess_key:\n  id: aje6t3vsbj8l5j3hb2qd\n  service_account_id: ajepg0mjt06siua65usm\n  created_at: "2026-11-30T09:12:44.215Z"\n  key_id: YCAJEk2Hq8Wd1sT0pR7vN3mZb\nsecret: §',
    ycs,
)
secret(
    C,
    YC,
    'curl -H "Authorization: Api-Key AQVN§" https://llm.api.cloud.yandex.net/foundationModels/v1/completion -d @prompt.json',
    pick(URLSAFE, 36),
)
secret(C, YC, "$ yc config set token y0_Ag§", pick(URLSAFE, 56))
hak = pick(UP, 20)
secret(
    C,
    OBSUTIL,
    f"./obsutil config -i={hak} -k=§ -e=https://obs.ap-southeast-1.myhuaweicloud.com",
    pick(AL, 40),
)
secret(
    C,
    OBSUTIL,
    "./obsutil config -i=§ -k=$HW_SK -e=https://obs.cn-north-4.myhuaweicloud.com",
    pick(UP, 20),
)
secret(
    C,
    NCLOUD_K8S,
    "export NCLOUD_ACCESS_KEY=3vQxPb7TnR2kLw9ZcY4m\nexport NCLOUD_SECRET_KEY=§\nexport NCLOUD_API_GW=https://ncloud.apigw.ntruss.com",
    pick(AL, 40),
)
secret(
    C,
    B2_QS,
    "$ b2 account authorize 0055c1e9a8f2d3b0000000004 §\nUsing https://api.backblazeb2.com",
    b2_key(),
)
secret(
    C,
    B2,
    "export B2_APPLICATION_KEY_ID=0055c1e9a8f2d3b0000000007\nexport B2_APPLICATION_KEY=§\nb2 sync ./backups b2://tg-backups/nightly",
    b2_key(),
)
secret(
    C,
    OPENSTACK,
    "export OS_AUTH_URL=https://keystone.tallgrass.io:5000/v3\nexport OS_USERNAME=admin\nexport OS_PASSWORD=§\nexport OS_PROJECT_NAME=admin",
    password(),
)
secret(
    C,
    PROXMOX_SKILL,
    'curl -s -H "Authorization: PVEAPIToken=root@pam!ci=§" https://pve1.lab.internal:8006/api2/json/nodes',
    uid(),
)
secret(
    C,
    PROXMOX_SKILL,
    'export PVE_URL="https://192.168.10.5:8006"\nexport PVE_TOKEN="automation@pve!deploy=§"',
    uid(),
)
secret(
    C,
    WRANGLER_LEGACY,
    'curl -H "X-Auth-Email: ops@tallgrass.io" -H "X-Auth-Key: §" https://api.cloudflare.com/client/v4/zones',
    pick(HX, 37),
)
secret(
    C,
    WRANGLER_CI,
    'curl https://api.cloudflare.com/client/v4/user/tokens/verify -H "Authorization: Bearer §"',
    cloudflare_token(),
)

benign(
    C,
    YC,
    "$ yc iam access-key list --service-account-name s3-uploader\n+----------------------+----------------------+---------------------------+\n|          ID          |  SERVICE ACCOUNT ID  |          KEY ID           |\n+----------------------+----------------------+---------------------------+\n| aje6t3vsbj8l5j3hb2qd | ajepg0mjt06siua65usm | YCAJEk2Hq8Wd1sT0pR7vN3mZb |",
    "YCAJEk2Hq8Wd1sT0pR7vN3mZb",
    "the listing shows key ids only; the secret is printed once, at creation",
)
benign(
    C,
    YC,
    "$ yc config set folder-id b1gq90dgh25bebiu75o",
    "b1gq90dgh25bebiu75o",
    "a folder id, not a credential",
)
benign(
    C,
    TCCLI,
    'tccli cvm RunInstances --InstanceType S1.SMALL1 --ImageId img-8toqc6s3 --Placement \'{"Zone":"ap-guangzhou-2"}\'',
    "img-8toqc6s3",
    "an image id",
)
benign(
    C,
    B2_API,
    '{"accountId": "5c1e9a8f2d3b", "apiInfo": {"storageApi": {"apiUrl": "https://api005.backblazeb2.com", "bucketName": null}}, "applicationKeyExpirationTimestamp": null}',
    "https://api005.backblazeb2.com",
    "the authorize response's URLs, no token in this part",
)
benign(
    C,
    OPENSTACK,
    'openrc_os_auth_url: "http://127.0.0.1:5000"\nopenrc_region_name: RegionOne\nopenrc_os_domain_name: Default',
    "openrc_region_name: RegionOne",
    "openrc role defaults with no password",
)
benign(
    C,
    NCLOUD_API,
    "curl -H 'x-ncp-apigw-timestamp: 1764748800123' -H 'x-ncp-apigw-signature-v2: 9kLz0QeYt3mB6vXc1nWq8RsU2dHfJa5gPoKiT7yE4lM=' https://ncloud.apigw.ntruss.com/server/v2/getZoneList",
    "9kLz0QeYt3mB6vXc1nWq8RsU2dHfJa5gPoKiT7yE4lM=",
    "a per-request HMAC signature, not the key that made it",
)

# ---------------------------------------------------------------------------------------------
# Password flags of database and server CLIs.
F = "cli password flag"
secret(
    F,
    HDBSQL,
    'hdbsql -n hana-prd.internal:30015 -i 00 -u SYSTEM -p § -d SYSTEMDB "SELECT DATABASE_NAME, ACTIVE_STATUS FROM M_DATABASES"',
    password(),
)
secret(F, HDBSQL, "hdbsql=> \\c -n 10.20.4.11:30013 -i 00 -u DBADMIN -p §", password())
secret(
    F, HDBSQL, "hdbuserstore SET BACKUPKEY hana-prd.internal:30013 BACKUP_OPERATOR §", password()
)
secret(
    F,
    ETCD,
    'etcdctl --endpoints=https://10.0.3.7:2379 --user=root:§ put /config/feature-flags "on"',
    password(),
)
secret(F, ETCD_BITNAMI, "$ etcdctl -u root:§ ls /registry", password())
secret(
    F,
    CBQ,
    '/opt/couchbase/bin/cbq -e couchbase://cb-node-1.internal -u Administrator -p § -s "SELECT COUNT(*) FROM `travel-sample`"',
    password(),
)
secret(F, CBCLI, "couchbase-cli bucket-list -c localhost:8091 -u Administrator -p §", password())
secret(
    F,
    CBCLI,
    "couchbase-cli cluster-init -c 127.0.0.1 --cluster-username Administrator --cluster-password § --services data,index,query --cluster-ramsize 2048",
    password(),
)
secret(
    F,
    TRINO_MCP,
    "TRINO_PASSWORD='§' ./trino --server https://trino.tallgrass.io:8443 --user analyst --password --execute 'SHOW CATALOGS'",
    password(),
)
secret(
    F,
    HARLEQUIN,
    "harlequin -a trino -h trino-gw.internal -p 8443 -U etl_bot --password § --require_auth password",
    password(),
)
secret(
    F,
    STEAMCMD,
    "./steamcmd.sh +force_install_dir /srv/arma3srv/server/ +login tg_dedicated § +app_update 233780 validate +quit",
    password(),
)
secret(
    F,
    STEAMCMD_2FA,
    'steamcmd-2fa --path /home/steam/steamcmd --username tg_builds --password § --secret "$STEAM_SHARED_SECRET" --args "+quit"',
    password(),
)
secret(
    F,
    MEILI,
    './meilisearch --env production --master-key="§" --db-path /var/lib/meili/data.ms',
    pick(URLSAFE, 32),
)
secret(
    F,
    WANDB,
    "$ wandb login --relogin §\nwandb: Appending key for api.wandb.ai to your netrc file: /home/ml/.netrc",
    pick(HX, 40),
)
secret(
    F,
    SNOWSQL,
    "SNOWSQL_PWD='§' snowsql -a xy12345.eu-central-1 -u LOADER -d RAW -w LOAD_WH -f load_orders.sql",
    password(),
)
secret(
    F,
    GRADLE,
    "./gradlew publishToMavenCentral -PmavenCentralUsername=tgbuild -PmavenCentralPassword=§ --no-configuration-cache",
    pick(AL, 44),
)
secret(
    F,
    PIXI,
    "pixi upload artifactory --url https://tallgrass.jfrog.io --channel conda-local --username ci-bot --password §",
    password(),
)

benign(
    F,
    HDBSQL,
    "hdbsql -U BACKUPKEY \"BACKUP DATA USING FILE ('weekly')\"",
    "-U BACKUPKEY",
    "a user-store key name; the password stays in the store",
)
benign(
    F,
    TRINO,
    "./trino --server https://trino.tallgrass.io:8443 --user analyst --password",
    "--user analyst --password",
    "--password alone makes the CLI prompt; no value is given",
)
benign(
    F,
    HARLEQUIN,
    "harlequin -a trino -h localhost -p 8080 -U my_user",
    "-p 8080",
    "-p is the port here",
)
benign(
    F,
    ETCD,
    "etcdctl --endpoints=${ENDPOINTS} user add user0 --interactive=false < /dev/stdin",
    "user add user0",
    "the password comes from stdin",
)
benign(
    F,
    SNOWSQL,
    "snowsql -a xy12345.eu-central-1 -u LOADER --authenticator externalbrowser",
    "--authenticator externalbrowser",
    "browser SSO, no password",
)
benign(
    F,
    B2_QS,
    '$ export B2_APPLICATION_KEY_ID="$(<file-with-key-id.txt)"\n$ b2 account authorize\nUsing https://api.backblazeb2.com',
    "b2 account authorize",
    "credentials come from files named in the command",
)
benign(
    F,
    CBQ,
    "cbq -e http://localhost:8091 -u Administrator\nEnter Password:",
    "Enter Password:",
    "the shell prompts for the password",
)
benign(
    F,
    STEAMCMD,
    "./steamcmd.sh +login anonymous +app_update 896660 validate +quit",
    "+login anonymous",
    "anonymous login has no password",
)

# ---------------------------------------------------------------------------------------------
# Config files of CLIs and SDKs.
G = "config file"
secret(
    G,
    DATABRICKS,
    "$ cat ~/.databrickscfg\n[DEFAULT]\nhost  = https://adb-4417283995331582.2.azuredatabricks.net\ntoken = §",
    databricks(),
)
secret(
    G,
    DATABRICKS_ZH,
    "[PROD]\nhost = https://adb-7730192283114509.9.azuredatabricks.net\ntoken = §\njobs-api-version = 2.1",
    databricks(),
)
secret(
    G,
    NCLOUD,
    "$ cat ~/.ncloud/configure\n[DEFAULT]\nncloud_access_key_id = C7mQ2vLx9TbR4nKp8WzA\nncloud_secret_access_key = §\nncloud_api_url = https://ncloud.apigw.ntruss.com",
    pick(AL, 40),
)
secret(
    G,
    OBSUTIL_CFG,
    "endpoint=https://obs.cn-north-4.myhuaweicloud.com\nak="
    + pick(UP, 20)
    + "\nsk=§\ntoken=\nconnectTimeout=30",
    pick(AL, 40),
)
secret(
    G,
    SNOWSQL_CFG,
    "[connections.prod]\naccountname = xy12345.eu-central-1\nusername = LOADER\npassword = §\ndbname = RAW\nwarehousename = LOAD_WH",
    password(),
)
secret(
    G,
    UNDERSTACK,
    'clouds:\n  tallgrass-app:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: https://keystone.tallgrass.io:5000/v3\n      application_credential_id: "8c1e4b2f0d9a47e6b3c5a1f8e2d7c9b0"\n      application_credential_secret: "§"\n    region_name: RegionOne',
    pick(URLSAFE, 86),
)
secret(
    G,
    DBT,
    "jaffle_shop:\n  outputs:\n    dev:\n      type: postgres\n      host: pg-dev.internal\n      user: dbt_winnie\n      password: §\n      port: 5432\n      dbname: analytics\n      schema: dbt_winnie\n  target: dev",
    password(),
)
secret(
    G,
    DBT,
    'snowflake_prod:\n  target: prod\n  outputs:\n    prod:\n      type: snowflake\n      account: xy12345.eu-central-1\n      user: DBT_PROD\n      password: "§"\n      role: TRANSFORMER',
    password(),
)
secret(
    G,
    NGROK,
    'version: "2"\nauthtoken: §\ntunnels:\n  api:\n    proto: http\n    addr: 8080',
    ngrok(),
)
secret(
    G,
    CIRCLECI_R,
    "$ cat ~/.circleci/cli.yml\nhost: https://circleci.com\nendpoint: graphql-unstable\ntoken: §",
    pick(HX, 40),
)
secret(
    G,
    GRADLE,
    "signing.keyId=24875D73\nsigning.password=§\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
    password(),
)
secret(
    G,
    GRADLE_TPL,
    "# ~/.gradle/gradle.properties\nossrhUsername=tgbuild\nossrhPassword=§",
    password(),
)
secret(
    G,
    PROXMOX,
    "api_host: 10.0.0.1\napi_token_id: automation@pve!ansible\napi_token_secret: §\nvalidate_certs: true",
    uid(),
)
secret(
    G,
    MEILI_KEYS,
    '# /etc/meilisearch.toml\nenv = "production"\nmaster_key = "§"\ndb_path = "/var/lib/meilisearch/data"',
    pick(URLSAFE, 40),
)
secret(
    G,
    STEAMCMD,
    "$ cat /srv/arma3srv/config/arma3srv-steam.conf\nsteamcmd_username=tg_dedicated\nsteamcmd_password=§\nsteamcmd_beta_branch=0",
    password(),
)
secret(
    G,
    TRINO_SECRETS,
    "# etc/catalog/orders.properties\nconnector.name=postgresql\nconnection-url=jdbc:postgresql://pg-orders.internal:5432/orders\nconnection-user=trino_ro\nconnection-password=§",
    password(),
)
secret(
    G,
    TCCLI,
    '$ cat ~/.tccli/default.credential\n{\n    "secretId": "AKIDm4Qw9Zt2Lb7Xc1Vn8Rk5Hp3Jf6Gs0Yd2",\n    "secretKey": "§",\n    "token": ""\n}',
    pick(AL, 32),
)

benign(
    G,
    TRINO_SECRETS,
    "connection-password=${ENV:DB_PASSWORD}",
    "${ENV:DB_PASSWORD}",
    "a reference Trino resolves from the environment",
)
benign(
    G,
    PREFECT_DBT,
    "      password: \"{{ env_var('SNOWFLAKE_SANDBOX_PASSWORD') }}\"",
    "{{ env_var('SNOWFLAKE_SANDBOX_PASSWORD') }}",
    "a dbt env_var reference",
)
benign(
    G,
    SNOWSQL_CFG,
    "[connections]\n#If a connection doesn't specify a value, it will default to these\n#accountname = defaultaccount\n#region = defaultregion",
    "#accountname = defaultaccount",
    "the commented defaults SnowSQL writes",
)
benign(
    G,
    UNDERSTACK,
    "      application_credential_id: ${FROM_ABOVE}\n      application_credential_secret: ${FROM_ABOVE}",
    "${FROM_ABOVE}",
    "a template placeholder",
)
benign(
    G,
    DATABRICKS,
    "[DEFAULT]\nhost      = https://adb-4417283995331582.2.azuredatabricks.net\nauth_type = databricks-cli",
    "auth_type = databricks-cli",
    "an OAuth profile holds no token",
)
benign(
    G,
    GRADLE,
    "signing.keyId=24875D73\nsigning.secretKeyRingFile=/Users/me/.gnupg/secring.gpg",
    "signing.keyId=24875D73",
    "a public key id and a file path",
)
benign(
    G,
    OBSUTIL_CFG,
    "connectTimeout=30\nsocketTimeout=310\nmaxRetryCount=3\nmaxConnections=1000\ndefaultBigfileThreshold=52428800",
    "defaultBigfileThreshold=52428800",
    "obsutil tuning values",
)

# Config libraries and game builds.
secret(
    G,
    DYNACONF,
    '$ cat .secrets.toml\n[default]\nDB_PASSWORD = "§"\n\n[production]\nSTRIPE_WEBHOOK_SECRET = "whsec_'
    + pick(AL, 32)
    + '"',
    password(),
)
secret(
    G,
    DYNACONF,
    '$ cat .secrets.toml\n[production]\nREDIS_URL = "redis://default:§@cache-prod.internal:6379/0"',
    password(),
)
secret(
    G,
    GODOT_CFG,
    '[preset.1.options]\nkeystore/release="/home/ci/keys/release.keystore"\nkeystore/release_user="tallgrass"\nkeystore/release_password="§"',
    password(),
)
secret(
    G,
    GODOT,
    "GODOT_ANDROID_KEYSTORE_RELEASE_PATH=/home/ci/keys/release.keystore GODOT_ANDROID_KEYSTORE_RELEASE_USER=tallgrass GODOT_ANDROID_KEYSTORE_RELEASE_PASSWORD=§ godot --headless --export-release android build/tallgrass.aab",
    password(),
)
secret(
    G,
    BUTLERSWARM,
    "BUTLER_API_KEY=§ butler push build/windows tallgrass/meadow-run:windows --userversion 1.4.2",
    pick(AL, 40),
)
secret(
    G,
    BUTLER,
    "      - name: Upload to itch.io\n        run: butler push build/html5 tallgrass/meadow-run:html5\n        env:\n          BUTLER_API_KEY: §",
    pick(AL, 40),
)
benign(
    G,
    DYNACONF,
    '$ cat settings.toml\n[default]\nDEBUG = false\nDB_HOST = "pg-prod.internal"\nDB_PASSWORD = "@vault secret/data/app#db_password"',
    "@vault secret/data/app#db_password",
    "a reference to a vault path",
)
benign(
    G,
    GODOT_CFG,
    '[preset.1.options]\nkeystore/release=""\nkeystore/release_user=""\nkeystore/release_password=""',
    'keystore/release_password=""',
    "empty values; the credentials live elsewhere",
)
benign(
    G,
    BUTLER,
    "        env:\n          BUTLER_API_KEY: ${{ secrets.BUTLER_API_KEY }}",
    "${{ secrets.BUTLER_API_KEY }}",
    "a reference to a repository secret",
)

# ---------------------------------------------------------------------------------------------
# Connection strings and URIs.
S = "connection string"
secret(
    S,
    SERVICEBUS,
    "SERVICEBUS_CONNECTION_STRING=Endpoint=sb://tg-orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=§",
    b64(32),
)
secret(
    S,
    SERVICEBUS_NET,
    '"ConnectionStrings": {\n  "Orders": "Endpoint=sb://tg-orders.servicebus.windows.net/;SharedAccessKeyName=send-only;SharedAccessKey=§;EntityPath=payments"\n}',
    b64(32),
)
secret(
    S,
    AIRFLOW,
    "export AIRFLOW_CONN_WAREHOUSE='postgresql://etl_user:§@pg-warehouse.internal:5432/analytics'",
    password(),
)
secret(
    S,
    AIRFLOW,
    "airflow connections add 'orders_db' --conn-uri 'mysql://svc_airflow:§@mysql-prod.internal:3306/orders'",
    password(),
)
secret(
    S,
    AIRFLOW_DATABRICKS,
    "export AIRFLOW_CONN_DATABRICKS_DEFAULT='databricks://@adb-4417283995331582.2.azuredatabricks.net?token=§'",
    databricks(),
)
secret(
    S,
    HANA_JDBC,
    'Connection conn = DriverManager.getConnection("jdbc:datadirect:saphana://hana-prd.internal:30015;User=SAPABAP1;Password=§;");',
    password(),
)
secret(
    S,
    SNOWFLAKE_ODBC,
    "DRIVER=DataDirect 8.0 Snowflake;AccountName=xy12345.eu-central-1;DatabaseName=RAW;Schema=PUBLIC;Warehouse=LOAD_WH;User=LOADER;Password=§",
    password(),
)
secret(
    S,
    TRINO,
    "jdbc:trino://trino.tallgrass.io:8443/hive/default?user=analyst&password=§&SSL=true",
    password(),
)
secret(
    S,
    DATABRICKS_ZH,
    "jdbc:databricks://adb-7730192283114509.9.azuredatabricks.net:443/default;transportMode=http;ssl=1;httpPath=/sql/1.0/warehouses/9e1b2c3d4e5f6a7b;AuthMech=3;UID=token;PWD=§",
    databricks(),
)
secret(
    S,
    PREFECT_DBT,
    "engine = create_engine('snowflake://LOADER:§@xy12345.eu-central-1/RAW/PUBLIC?warehouse=LOAD_WH&role=LOADER_ROLE')",
    password(),
)
secret(
    S, HANA_CLI, 'hana-cli connect -n "hana-dev.internal:39015" -u DBADMIN -p § --save', password()
)

benign(
    S,
    SERVICEBUS_PY,
    "SERVICEBUS_CONNECTION=Endpoint=sb://tg-orders.servicebus.windows.net/;Authentication=Managed Identity",
    "Authentication=Managed Identity",
    "managed identity, no key in the string",
)
benign(
    S,
    AIRFLOW,
    "export AIRFLOW_CONN_WAREHOUSE_RO='postgresql://etl_reader@pg-warehouse.internal:5432/analytics?sslmode=verify-full'",
    "postgresql://etl_reader@pg-warehouse.internal:5432/analytics?sslmode=verify-full",
    "a URI with a user and no password",
)
benign(
    S,
    TRINO,
    "./trino --server https://trino.tallgrass.io:8443 --catalog hive --schema default",
    "--catalog hive --schema default",
    "server, catalog and schema only",
)
benign(
    S,
    SERVICEBUS,
    "fullyQualifiedNamespace: tg-orders.servicebus.windows.net\nentityPath: payments",
    "tg-orders.servicebus.windows.net",
    "the parsed namespace, without the key",
)

# ---------------------------------------------------------------------------------------------
# HTTP authentication headers and query parameters.
H = "http auth"
secret(
    H, HONEYCOMB, 'curl -s https://api.honeycomb.io/1/auth -H "X-Honeycomb-Team: §"', pick(AL, 22)
)
secret(
    H,
    CIRCLECI,
    'curl -s -H "Circle-Token: §" https://circleci.com/api/v1.1/project/gh/tallgrass/api/tree/main',
    circleci("CCIPRJ"),
)
secret(
    H,
    JFROG,
    "curl -L -X PUT 'https://tallgrass.jfrog.io/artifactory/api/build' -H 'Content-Type: application/json' -H 'Authorization: Bearer eyJ2ZXIiOiIyIiwidHlwIjoiSldUIiwiYWxnIjoiUlMyNTYiLCJraWQiOi§' -d @build-info.json",
    pick(URLSAFE, 180),
)
secret(
    H,
    MEILI_API,
    "curl -X GET 'https://search.tallgrass.io/keys' -H 'Authorization: Bearer §'",
    pick(URLSAFE, 32),
)
secret(
    H,
    SUPABASE,
    'curl "https://qzcxbyaewvtkhjdlmnop.supabase.co/rest/v1/profiles?select=id" -H "apikey: §"',
    supabase_service("qzcxbyaewvtkhjdlmnop"),
)
secret(
    H,
    EXPO,
    'curl -H "Authorization: Bearer §" -H "Content-Type: application/json" https://exp.host/--/api/v2/push/send -d @push.json',
    pick(URLSAFE, 40),
)
secret(
    H,
    MAPBOX_JA,
    "GET https://api.mapbox.com/tokens/v2/tallgrass-maps?access_token=§",
    mapbox_secret(),
)
secret(
    H,
    PROXMOX_PHP,
    'AUTH="Authorization: PVEAPIToken=backup@pam!backup-service=§"\ncurl -k -H "$AUTH" https://pve2.lab.internal:8006/api2/json/cluster/backup',
    uid(),
)
secret(
    H,
    RESEND,
    "POST /emails HTTP/1.1\nHost: api.resend.com\nAuthorization: Bearer §\nContent-Type: application/json",
    resend(),
)
secret(
    H,
    BREVO_DEV,
    "GET /v3/account HTTP/1.1\nHost: api.brevo.com\napi-key: §\naccept: application/json",
    brevo(),
)

benign(
    H,
    MATTERMOST,
    "HTTP/1.1 200 OK\nContent-Type: text/plain\nX-Request-Id: hoan6o9ws7rp5xj7wu9rmysrte\nX-Version-Id: 4.7.1.dev.12799cd77e172e8a2eba0f9091ec1471.false",
    "hoan6o9ws7rp5xj7wu9rmysrte",
    "a request id in a response header",
)
benign(
    H,
    PINECONE,
    'curl https://api.pinecone.io/indexes -H "Api-Key: $PINECONE_API_KEY" -H "X-Pinecone-Api-Version: 2025-10"',
    "$PINECONE_API_KEY",
    "the key comes from a variable",
)
benign(
    H,
    MEILI_API,
    "curl -X GET 'MEILISEARCH_URL/keys' -H 'Authorization: Bearer MASTER_KEY'",
    "Bearer MASTER_KEY",
    "the documentation's placeholder",
)
benign(
    H,
    HONEYCOMB,
    "x-honeycomb-dataset: checkly-traces\ncontent-type: application/x-protobuf",
    "x-honeycomb-dataset: checkly-traces",
    "a dataset name header",
)
benign(
    H,
    PROXMOX_SKILL,
    'AUTH="Authorization: PVEAPIToken=$PVE_TOKEN"',
    "PVEAPIToken=$PVE_TOKEN",
    "the token comes from a variable",
)

# ---------------------------------------------------------------------------------------------
# Webhook URLs whose path is the credential.
W = "webhook url"
secret(
    W,
    MATTERMOST,
    "curl -i -X POST -H 'Content-Type: application/json' -d '{\"text\": \"deploy of api 1.4.2 finished\"}' https://chat.tallgrass.io/hooks/§",
    pick(LO, 26),
)
secret(
    W,
    MATTERHOOK,
    "mwh = Webhook('https://mattermost.tallgrass.io', '§')\nmwh.send('nightly backup done', channel='ops')",
    pick(LO, 26),
)
secret(
    W,
    TEAMS_NPM,
    f"MS_TEAMS_WEBHOOK_URL=https://tallgrass.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/§/{uid()}/V2"
    + pick(URLSAFE, 43),
    pick(HX, 32),
)
secret(
    W, TEAMS, f"teams://{uid()}@{uid()}/§/{uid()}?host=tallgrass.webhook.office.com", pick(HX, 32)
)
secret(
    W,
    OPENLARK,
    'curl -X POST -H "Content-Type: application/json" -d \'{"msg_type":"text","content":{"text":"build 381 failed"}}\' https://open.feishu.cn/open-apis/bot/v2/hook/§',
    uid(),
)
lark_tok = uid()
secret(W, LARK, "lark://open.larksuite.com/§?secret=" + pick(AL, 22), lark_tok)
secret(W, LARK, f"lark://open.larksuite.com/{uid()}?secret=§", pick(AL, 22))
secret(
    W,
    ROCKET,
    "curl -X POST -H 'Content-Type: application/json' --data '{\"text\":\"nightly build failed\"}' https://chat.tallgrass.io/hooks/"
    + pick(AL, 17)
    + "/§",
    pick(AL, 48),
)
secret(
    W,
    ROCKET_NPM,
    "rcWebhook.sendMessage('https://rc.tallgrass.io', '§', 'backup finished', cb);",
    pick(AL, 17) + "/" + pick(AL, 48),
)
secret(
    W,
    TEAMS_TESTKUBE,
    f"spec:\n  events:\n  - end-testworkflow-failed\n  uri: https://tallgrass.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/§",
    pick(HX, 32) + "/" + uid() + "/V2" + pick(URLSAFE, 43),
)

benign(
    W,
    ROCKET_LIBRENMS,
    "Webhook URL: https://rocket.tallgrass.io/api/v1/chat.postMessage\nRocket.chat Options: channel=#Alerting",
    "https://rocket.tallgrass.io/api/v1/chat.postMessage",
    "a REST endpoint with no token in the path",
)
benign(
    W,
    MATTERMOST,
    "HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\nok",
    "Content-Length: 2",
    "the hook's reply",
)
benign(
    W,
    LARK,
    "App ID (format: cli_a5f3c2e18b79d00c) and App Secret are under Credentials & Basic Info.",
    "cli_a5f3c2e18b79d00c",
    "an app id, public",
)
benign(
    W,
    TEAMS,
    "teams://group@tenant/altId/groupOwner?host=example.webhook.office.com",
    "teams://group@tenant/altId/groupOwner",
    "the URL format from the documentation",
)

# ---------------------------------------------------------------------------------------------
# Secrets behind an encoding or an escape.
E = "encoding and escape"
ado_pat = azure_pat()
ado_b64 = base64.b64encode(f"pat:{ado_pat}".encode()).decode()
secret(
    E,
    ADO,
    'git -c http.extraHeader="Authorization: Basic §" clone https://dev.azure.com/tallgrass/platform/_git/infra',
    ado_b64,
)
reftkn = (
    base64.b64encode(f"reftkn:01:{pick(string.digits, 10)}:{pick(AL, 27)}".encode())
    .decode()
    .rstrip("=")
)
secret(
    E,
    JFROG,
    "jf config add prod --url=https://tallgrass.jfrog.io --access-token=§ --interactive=false",
    reftkn,
)
sig = pick(AL + "+/", 43) + "="
sig_enc = sig.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
secret(
    E,
    SERVICEBUS_PY,
    "SharedAccessSignature sr=https%3A%2F%2Ftg-orders.servicebus.windows.net%2Fpayments&sig=§&se=1764932400&skn=send-only",
    sig_enc,
)
pw_enc = pick(AL, 6) + "%40" + pick(AL, 5) + "%2F" + pick(AL, 4)
secret(
    E,
    AIRFLOW,
    "export AIRFLOW_CONN_PG_LEGACY='postgres://etl:§@pg-legacy.internal:5432/billing'",
    pw_enc,
)
dtok = base64.b64encode(databricks().encode()).decode()
secret(
    E,
    DATABRICKS,
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: databricks-token\ntype: Opaque\ndata:\n  DATABRICKS_TOKEN: §",
    dtok,
)
secret(
    E,
    NGROK_ASPIRE,
    'kubectl create secret generic ngrok --from-literal=config.json="{\\"authtoken\\":\\"§\\",\\"region\\":\\"eu\\"}"',
    ngrok(),
)
docker_auth = base64.b64encode(f"ci-bot:{jfrog_key()}".encode()).decode()
secret(E, JFROG, '{"auths": {"tallgrass.jfrog.io": {"auth": "§"}}}', docker_auth)
etcd_basic = base64.b64encode(f"root:{password()}".encode()).decode()
secret(
    E,
    ETCD_BITNAMI,
    'curl -s -H "Authorization: Basic §" https://10.0.3.7:2379/v2/keys/config',
    etcd_basic,
)
dollar_pw = pick(AL, 5) + "$$" + pick(AL, 8)
secret(
    E,
    TRINO_TOOLBOX,
    'services:\n  toolbox:\n    environment:\n      TRINO_USER: analyst\n      TRINO_PASSWORD: "§"',
    dollar_pw,
)
hexkey = pick(AL, 24).encode().hex()
secret(E, MEILI_KEYS, "$ printf '%s' \"$MEILI_MASTER_KEY\" | xxd -p\n§", hexkey)
b2_b64 = base64.b64encode(f"0055c1e9a8f2d3b0000000004:{b2_key()}".encode()).decode()
secret(
    E,
    B2_API,
    'curl -s https://api.backblazeb2.com/b2api/v3/b2_authorize_account -H "Authorization: Basic §"',
    b2_b64,
)

benign(
    E,
    ADO,
    'B64_PAT=$(echo "pat:$MY_PAT" | base64)\ngit -c http.extraHeader="Authorization: Basic ${B64_PAT}" clone https://dev.azure.com/yourOrgName/yourProjectName/_git/yourRepoName',
    "${B64_PAT}",
    "the encoded value is computed from a variable",
)
benign(
    E,
    SERVICEBUS_PY,
    "sr=https%3A%2F%2Ftg-orders.servicebus.windows.net%2Fpayments&se=1764932400&skn=send-only",
    "https%3A%2F%2Ftg-orders.servicebus.windows.net%2Fpayments",
    "a URL-encoded resource URI without the signature",
)
benign(
    E,
    DATABRICKS,
    "data:\n  DATABRICKS_HOST: aHR0cHM6Ly9hZGItNDQxNzI4Mzk5NTMzMTU4Mi4yLmF6dXJlZGF0YWJyaWNrcy5uZXQ=",
    "aHR0cHM6Ly9hZGItNDQxNzI4Mzk5NTMzMTU4Mi4yLmF6dXJlZGF0YWJyaWNrcy5uZXQ=",
    "the base64 of the workspace URL, not a credential",
)

# ---------------------------------------------------------------------------------------------
# Secrets next to prose and config keys in other languages.
L = "other language"
secret(
    L, TCCLI_GH, "# 腾讯云 API 密钥，勿提交到仓库\nexport TENCENTCLOUD_SECRET_KEY=§", pick(AL, 32)
)
secret(
    L,
    YC_RU,
    "# секретный ключ сервисного аккаунта, не коммитить\nAWS_ACCESS_KEY_ID=YCAJEq7Nv2Lm9Kx4Tb1Rz8Wc3\nAWS_SECRET_ACCESS_KEY=§",
    yandex_secret(),
)
secret(
    L,
    SUPABASE_JA,
    "# service_role キーはサーバー側だけで使う\nSUPABASE_SERVICE_ROLE_KEY=§",
    supabase_service("hnqwplmzcxvbtyuioeas"),
)
secret(
    L,
    NCLOUD,
    "# 인증키 (Secret Key) — 외부에 노출하지 마세요\nncloud_secret_access_key = §",
    pick(AL, 40),
)
secret(
    L,
    MP_PT,
    '// credenciais de produção – não expor no front-end\nconst accessToken = "§";',
    mercadopago(),
)
secret(
    L,
    MP_ES,
    "# clave privada de la aplicación\nclient_id: 8456312098765432\nclient_secret: §",
    pick(AL, 32),
)
secret(
    L,
    OBSUTIL_CFG,
    "# 认证用的ak和sk不要硬编码到代码中\nak=" + pick(UP, 20) + "\nsk=§",
    pick(AL, 40),
)
secret(
    L, SNOWSQL_DE, "# Passwort für den Ladebenutzer (nicht einchecken)\npassword = §", password()
)
secret(
    L,
    ETCD_ZH,
    '#作role权限赋予user\netcdctl ${ep} user grant-role test test --user="root" --password="§"',
    password(),
)
secret(
    L,
    HDBSQL_ZH,
    "#登录方法1\nhdbsql -n hana01.internal -i 00 -u SYSTEM -p § -d SYSTEMDB",
    password(),
)
secret(L, CBQ_ZH, "使用cmd运行cbq.exe时可带参数:\ncbq.exe -u Administrator -p §", password())
secret(
    L,
    MEILI_ZH,
    "curl -X GET 'http://127.0.0.1:7700/keys' -H 'Authorization: Bearer §'   # 正确的写法",
    pick(URLSAFE, 32),
)
secret(L, K3S_JA, "# サーバートークン（クラスターへの管理者権限と同じ）\nK3S_TOKEN=§", k3s_token())
secret(L, WANDB_KO, 'wandb.login(key="§")  # API 키를 직접 전달', pick(HX, 40))
secret(
    L,
    SERVICEBUS_IT,
    '// stringa di connessione del bus di servizio\nconst cs = "Endpoint=sb://tg-ordini.servicebus.windows.net/;SharedAccessKeyName=invio;SharedAccessKey=§";',
    b64(32),
)
secret(L, RESEND_AR, "# مفتاح API الخاص بـ Resend\nRESEND_API_KEY=§", resend())
secret(L, PROXMOX_RU, "# API-токен для автоматизации\nPVE_TOKEN='terraform@pve!tf=§'", uid())
secret(
    L,
    SUPABASE_ZH,
    "VITE_SUPABASE_SERVICE_ROLE_KEY=§  # 服务角色密钥,需保密",
    supabase_service("rtyuqwepoiasdfghjklz"),
)
secret(
    L,
    AGE_ZH,
    "$ rage-keygen\n# 已创建: 2026-11-30T10:02:11+01:00\n# 公钥: " + age_public() + "\n§",
    age_secret(),
)

benign(
    L,
    SUPABASE_JA,
    "# anon key はクライアントに置いてもよい (RLS で保護する)\nSUPABASE_URL=https://hnqwplmzcxvbtyuioeas.supabase.co",
    "https://hnqwplmzcxvbtyuioeas.supabase.co",
    "a project URL",
)
benign(
    L,
    OBSUTIL_CFG,
    "# 认证用的ak和sk硬编码到代码中或者明文存储都有很大的安全风险",
    "认证用的ak和sk硬编码到代码中或者明文存储都有很大的安全风险",
    "a warning that names the keys",
)
benign(
    L,
    YC_RU,
    "Ключи доступа можно создать только для сервисного аккаунта.",
    "Ключи доступа можно создать только для сервисного аккаунта.",
    "prose",
)
benign(
    L,
    NCLOUD,
    "인증키는 포털의 마이페이지 > 계정관리 > 인증키 관리 메뉴에서 확인할 수 있습니다.",
    "인증키 관리",
    "instructions",
)
benign(
    L,
    MP,
    "Nunca exponha seu Access Token em parâmetros de URL; envie-o no header Authorization.",
    "Nunca exponha seu Access Token",
    "advice",
)
benign(
    L,
    SNOWSQL_DE,
    "Bemerkung: Das Passwort wird in dieser Datei im Klartext gespeichert.",
    "im Klartext gespeichert",
    "a warning",
)
benign(
    L,
    K3S_ZH,
    "K3s Token 可以使用安全(secure)或短(short)格式。",
    "安全(secure)或短(short)格式",
    "prose about token formats",
)

# ---------------------------------------------------------------------------------------------
# Logs, traces and debug output.
T = "log and trace"
secret(
    T,
    MOLLIE,
    'Traceback (most recent call last):\n  File "/srv/shop/payments.py", line 41, in refund\n    resp = session.post(url, headers={"Authorization": "Bearer §"}, timeout=5)\nrequests.exceptions.ReadTimeout: HTTPSConnectionPool(host=\'api.mollie.com\', port=443): Read timed out. (read timeout=5)',
    mollie(),
)
secret(
    T,
    HANA_JDBC,
    "java.sql.SQLException: [DataDirect][SAP HANA JDBC Driver]Connection refused: jdbc:datadirect:saphana://hana-prd.internal:30015;User=SAPABAP1;Password=§;\n\tat com.ddtek.jdbc.saphana.SAPHanaDriver.connect(Unknown Source)",
    password(),
)
secret(
    T,
    AIRFLOW,
    "[2026-11-30, 02:00:14 UTC] {sql.py:418} INFO - Connecting with conn_uri=postgresql://etl_user:§@pg-warehouse.internal:5432/analytics",
    password(),
)
secret(
    T,
    CIRCLECI,
    "> GET /api/v2/me HTTP/2\n> Host: circleci.com\n> circle-token: §\n> user-agent: curl/8.5.0\n> accept: */*",
    circleci(),
)
secret(
    T,
    ETCD,
    "panic: dial tcp 10.0.3.7:2379: connect: connection refused\n\ngoroutine 1 [running]:\nmain.mustConnect({Endpoints:[https://10.0.3.7:2379] Username:root Password:§ DialTimeout:5s})",
    password(),
)
secret(
    T,
    RESEND_AUTH,
    'Error: 401 Unauthorized {"name":"validation_error","message":"API key is invalid"}\n    at Resend.fetchRequest (/app/node_modules/resend/dist/index.js:212:15) {\n  apiKey: \'§\'\n}',
    resend(),
)
secret(
    T,
    K3S,
    "Nov 30 08:11:02 edge-7 k3s[1123]: Environment: K3S_URL=https://10.0.2.15:6443 K3S_TOKEN=§",
    k3s_token(),
)
secret(
    T,
    MAPBOX_JA,
    '10.0.8.14 - - [30/Nov/2026:09:14:02 +0000] "GET /styles/v1/tallgrass-maps/ck9/tiles/256/12/2048/1361?access_token=§ HTTP/1.1" 200 18234',
    mapbox_secret(),
)
secret(
    T, WRANGLER_GITLAB, "$ echo $CLOUDFLARE_API_TOKEN\n§\n$ npx wrangler deploy", cloudflare_token()
)
secret(
    T,
    PROXMOX,
    'ok: [pve1] => {"changed": false, "invocation": {"module_args": {"api_host": "10.0.0.1", "api_token_id": "automation@pve!ansible", "api_token_secret": "§"}}}',
    uid(),
)
secret(
    T,
    GRADLE,
    "> Task :publishToMavenCentral FAILED\nCould not PUT 'https://central.sonatype.com/api/v1/publisher/upload'. Received status code 401 from server: Unauthorized (credentials tgbuild:§)",
    pick(AL, 44),
)
secret(
    T,
    JFROG_GIST,
    "+ curl -H 'X-JFrog-Art-Api:§' -O https://tallgrass.jfrog.io/artifactory/generic-local/sqlcl/sqlcl-21.2.2.zip",
    jfrog_key(),
)

benign(
    T,
    MEILI,
    "A master key has been set. Requests to Meilisearch won't be authorized unless you provide an authentication key.",
    "A master key has been set.",
    "the startup line, with no key in it",
)
benign(
    T,
    OBSUTIL,
    "Config file url:\n  /home/ops/.obsutilconfig\nUpdate config file successfully!",
    "Update config file successfully!",
    "obsutil's confirmation",
)
benign(
    T,
    AIRFLOW,
    "[2026-11-30, 02:00:13 UTC] {base.py:73} INFO - Using connection ID 'warehouse' for task execution.",
    "Using connection ID 'warehouse'",
    "a connection id in a task log",
)
benign(
    T,
    WANDB,
    "wandb: Currently logged in as: tg-ml (tallgrass). Use `wandb login --relogin` to force relogin",
    "Currently logged in as: tg-ml (tallgrass)",
    "a login status line",
)
benign(
    T,
    ETCD,
    '{"level":"warn","msg":"authentication failed","user-name":"user0","error":"etcdserver: authentication failed, invalid user ID or password"}',
    "invalid user ID or password",
    "an auth failure that names no password",
)
benign(
    T,
    K3S,
    'Nov 30 08:11:03 edge-7 k3s[1123]: level=info msg="Using private registry config file at /etc/rancher/k3s/registries.yaml"',
    "/etc/rancher/k3s/registries.yaml",
    "a path in a log",
)

# ---------------------------------------------------------------------------------------------
# CI pipelines, compose files and manifests.
Y = "ci and yaml"
secret(
    Y,
    WRANGLER_CI,
    "      - name: Deploy\n        uses: cloudflare/wrangler-action@v3\n        with:\n          apiToken: §\n          accountId: 5b1c9e0d7a2f4e3b8c6d1a0f9e8b7c6d",
    cloudflare_token(),
)
secret(
    Y,
    WRANGLER_GITLAB,
    'deploy:\n  stage: deploy\n  image: node:22\n  variables:\n    CLOUDFLARE_API_TOKEN: "§"\n  script:\n    - npx wrangler deploy',
    cloudflare_token(),
)
secret(
    Y,
    TAILSCALE,
    "      - uses: tailscale/github-action@v3\n        with:\n          oauth-client-id: kQ7vXz2mN4CNTRL\n          oauth-secret: §\n          tags: tag:ci",
    tailscale("client"),
)
secret(
    Y,
    EXPO_CI,
    "jobs:\n  build:\n    runs-on: ubuntu-latest\n    env:\n      EXPO_TOKEN: §\n    steps:\n      - run: npx eas-cli build --platform android --non-interactive",
    pick(URLSAFE, 40),
)
secret(
    Y,
    CIRCLECI,
    "jobs:\n  publish:\n    docker:\n      - image: cimg/node:22.11\n    environment:\n      JFROG_API_KEY: §",
    jfrog_key(),
)
secret(Y, TRAVIS, "env:\n  global:\n    - DOCKER_USER=tgbuild\n    - DOCKER_PASS=§", password())
secret(
    Y,
    MEILI,
    'services:\n  meilisearch:\n    image: getmeili/meilisearch:v1.11\n    environment:\n      MEILI_ENV: production\n      MEILI_MASTER_KEY: "§"',
    pick(URLSAFE, 32),
)
secret(
    Y,
    PINECONE_LC,
    '        env:\n        - name: PINECONE_API_KEY\n          value: "§"\n        - name: PINECONE_INDEX\n          value: docs-prod',
    pinecone(),
)
secret(
    Y,
    MATTERMOST,
    "alerting:\n  mattermost:\n    enabled: true\n    webhookUrl: https://chat.tallgrass.io/hooks/§\n    channel: ops-alerts",
    pick(LO, 26),
)
secret(
    Y,
    TAILSCALE_GH,
    "- name: Run tailscale up with pre-authentication\n  command: tailscale up --authkey=§\n  register: tailscale_result",
    tailscale(),
)
secret(
    Y,
    SERVICEBUS_NET,
    "variables:\n  - name: servicebusConnection\n    value: 'Endpoint=sb://tg-orders.servicebus.windows.net/;SharedAccessKeyName=ci;SharedAccessKey=§'",
    b64(32),
)
secret(
    Y,
    FASTLANE_ART,
    'artifactory(\n  api_key: "§",\n  endpoint: "https://tallgrass.jfrog.io/artifactory/",\n  file: "build/TallGrass.ipa",\n  repo: "mobile_artifacts"\n)',
    jfrog_key(),
)
secret(
    Y,
    GORELEASER,
    'publishers:\n  - name: artifactory\n    cmd: >-\n      jfrog rt u "{{ .ArtifactName }}" "my-repository/{{ .ProjectName }}/{{ .Version }}/" --api-key "§"',
    jfrog_key(),
)
secret(
    Y,
    PALWORLD,
    "    environment:\n      - PUID=1000\n      - STEAM_USERNAME=tg_dedicated\n      - STEAM_PASSWORD=§\n      - TARGET_MANIFEST_ID=1254352473389743092",
    password(),
)

benign(
    Y,
    WRANGLER_CI,
    "        with:\n          apiToken: ${{ secrets.CLOUDFLARE_API_TOKEN }}\n          accountId: ${{ secrets.CLOUDFLARE_ACCOUNT_ID }}",
    "${{ secrets.CLOUDFLARE_API_TOKEN }}",
    "a reference to a repository secret",
)
benign(
    Y,
    EXPO_CI,
    "    env:\n      EXPO_TOKEN: ${{ secrets.EXPO_TOKEN }}",
    "${{ secrets.EXPO_TOKEN }}",
    "a reference to a repository secret",
)
benign(
    Y,
    GORELEASER,
    '      jfrog rt u "{{ .ArtifactName }}" "my-repository/" --api-key "{{ .Env.ARTIFACTORY_API_KEY }}"',
    "{{ .Env.ARTIFACTORY_API_KEY }}",
    "a template reference",
)
benign(
    Y,
    TAILSCALE_GH,
    "      command: tailscale up --authkey={{ vault_tailscale_authkey }}",
    "{{ vault_tailscale_authkey }}",
    "an Ansible vault variable",
)
benign(
    Y,
    PINECONE_LC,
    "        - name: PINECONE_API_KEY\n          valueFrom:\n            secretKeyRef:\n              name: pinecone\n              key: api-key",
    "secretKeyRef",
    "a Kubernetes secret reference",
)
benign(
    Y,
    EXPO_CI,
    "permissions:\n  contents: read\n  id-token: write",
    "id-token: write",
    "a permission name",
)

# ---------------------------------------------------------------------------------------------
# Literals in source code, many languages.
P = "source literal"
secret(P, PINECONE, 'from pinecone import Pinecone\npc = Pinecone(api_key="§")', pinecone())
secret(P, TAILSCALE_RS, 'let client = TailscaleClient::new("§".to_string());', tailscale("api"))
secret(
    P,
    HONEYCOMB_GO,
    'otlptracegrpc.WithHeaders(map[string]string{\n\t"x-honeycomb-team": "§",\n}),',
    honeycomb(),
)
secret(
    P, RESEND, 'builder.setSecurity(new Security() {{\n    bearerAuth = "Bearer §";\n}});', resend()
)
secret(
    P, MOLLIE, '$mollie = new \\Mollie\\Api\\MollieApiClient();\n$mollie->setApiKey("§");', mollie()
)
secret(
    P,
    PAYSTACK_DART,
    "final config = PaystackConfig(\n  secretKey: '§',\n  currency: 'NGN',\n);",
    paystack(),
)
secret(
    P,
    MEILI_API,
    "const client = new MeiliSearch({ host: 'https://search.tallgrass.io', apiKey: '§' })",
    pick(URLSAFE, 32),
)
secret(
    P,
    SERVICEBUS_NET,
    'await using var client = new ServiceBusClient("Endpoint=sb://tg-orders.servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=§");',
    b64(32),
)
secret(P, MAPBOX, 'MapboxOptions.accessToken = "§"', mapbox_secret())
secret(
    P, MOLLIE_HELP, "Mollie::Client.configure do |config|\n  config.api_key = '§'\nend", mollie()
)
secret(
    P,
    B2_EX,
    'config :blazay, Blazay,\n  account_id: "5c1e9a8f2d3b",\n  application_key: "§"',
    b2_key(),
)
secret(
    P,
    B2_R,
    'auth <- b2AuthorizeAccount("https://api.backblazeb2.com/b2api/v1/b2_authorize_account",\n  accountId = "5c1e9a8f2d3b", authorizationKey = "§")',
    b2_key(),
)
secret(
    P,
    SUPABASE_SWIFT,
    'let supabase = SupabaseClient(\n  supabaseURL: URL(string: "https://qzcxbyaewvtkhjdlmnop.supabase.co")!,\n  supabaseKey: "§"\n)',
    supabase_service("qzcxbyaewvtkhjdlmnop"),
)
secret(
    P,
    LARK_PY,
    'bot = LarkCustomBot(\n    webhook="https://open.feishu.cn/open-apis/bot/v2/hook/'
    + uid()
    + '",\n    secret="§",\n)',
    pick(AL, 22),
)
secret(
    P,
    PREFECT_DBT,
    'credentials = SnowflakeCredentials(\n    user="LOADER",\n    password="§",\n    account="xy12345.eu-central-1",\n    role="LOADER_ROLE",\n)',
    password(),
)
secret(
    P, B2_API, 'b2_api.authorize_account("production", "0055c1e9a8f2d3b0000000004", "§")', b2_key()
)
secret(
    P,
    PROXMOX_PHP,
    '$pve2 = new PVE2_API("pve1.lab.internal", "automation", "pve", "deploy", "§");',
    uid(),
)
secret(
    P,
    ZMQ,
    'server = ctx.socket(zmq.ROUTER)\nserver.curve_secretkey = b"§"\nserver.curve_server = True',
    pick(Z85, 40),
)

benign(
    P,
    PINECONE_LC,
    "pinecone_api_key: SecretStr = Field(\n    default_factory=secret_from_env('PINECONE_API_KEY', error_message='Pinecone API key not found.'),\n    alias='pinecone_api_key',\n)",
    "secret_from_env('PINECONE_API_KEY'",
    "code that reads the key from the environment",
)
benign(
    P,
    TEAMS_NPM,
    'const url = process.env.MS_TEAMS_WEBHOOK_URL;\nif (!url) {\n  throw new Error("MS_TEAMS_WEBHOOK_URL is required");\n}',
    "MS_TEAMS_WEBHOOK_URL is required",
    "code naming the variable",
)
benign(
    P,
    HONEYCOMB_GO,
    'func isHoneycombEnvironmentSet() bool {\n\treturn os.Getenv("HONEYCOMB_API_KEY") != ""\n}',
    'os.Getenv("HONEYCOMB_API_KEY")',
    "an environment lookup",
)
benign(
    P,
    ZMQ,
    "char public_key [41];\nchar secret_key [41];\nint rc = zmq_curve_keypair (public_key, secret_key);\nassert (rc == 0);",
    "zmq_curve_keypair (public_key, secret_key)",
    "buffers named after keys",
)

# ---------------------------------------------------------------------------------------------
# Shell history, exports and env files.
X = "shell and env"
secret(X, ADO, 'MY_PAT=§\nB64_PAT=$(echo "pat:$MY_PAT" | base64)', azure_pat())
secret(
    X,
    SUPABASE,
    "$ cat .env.local\nNEXT_PUBLIC_SUPABASE_URL=https://qzcxbyaewvtkhjdlmnop.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=§",
    supabase_service("qzcxbyaewvtkhjdlmnop"),
)
secret(
    X,
    B2,
    "kubectl -n backups create secret generic b2-creds --from-literal=B2_APPLICATION_KEY_ID=0055c1e9a8f2d3b0000000004 --from-literal=B2_APPLICATION_KEY=§",
    b2_key(),
)
secret(
    X,
    MEILI,
    "docker run -d --name meili -p 7700:7700 -e MEILI_MASTER_KEY='§' getmeili/meilisearch:v1.11",
    pick(URLSAFE, 32),
)
secret(
    X,
    WANDB,
    "cat >> ~/.netrc <<EOF\nmachine api.wandb.ai\n  login user\n  password §\nEOF",
    pick(HX, 40),
)
secret(
    X,
    B2_QS,
    "$ history | tail -3\n 1041  cd ~/backups\n 1042  export B2_APPLICATION_KEY=§\n 1043  b2 bucket list",
    b2_key(),
)
secret(X, OP, "set -gx OP_SERVICE_ACCOUNT_TOKEN §\nop whoami", onepassword())
secret(X, WRANGLER_CI, '$env:CLOUDFLARE_API_TOKEN = "§"\nnpx wrangler whoami', cloudflare_token())
secret(
    X, TAILSCALE, "$ cat .envrc\nexport TS_AUTHKEY=§\nexport TS_HOSTNAME=ci-runner-3", tailscale()
)
secret(
    X,
    HONEYCOMB_RS,
    "$ env | grep -i honeycomb\nHONEYCOMB_API_KEY=§\nHONEYCOMB_DATASET=api-prod",
    honeycomb(),
)
secret(X, EXPO, "$ export EXPO_TOKEN=§ && eas whoami", pick(URLSAFE, 40))
secret(
    X,
    DATABRICKS,
    "$ databricks configure --host https://adb-4417283995331582.2.azuredatabricks.net\n? Personal Access Token: §",
    databricks(),
)

benign(
    X,
    OP,
    'export OP_SERVICE_ACCOUNT_TOKEN="$(op read op://ci/sa-token/credential)"',
    "op://ci/sa-token/credential",
    "a 1Password reference, resolved at run time",
)
benign(
    X,
    B2_QS,
    '$ export B2_APPLICATION_KEY="$(<file-with-key.txt)"',
    "$(<file-with-key.txt)",
    "read from a file",
)
benign(
    X,
    UNDERSTACK,
    "export OS_CLOUD=tallgrass-app\nopenstack server list",
    "OS_CLOUD=tallgrass-app",
    "a cloud name",
)
benign(
    X,
    OPENSTACK,
    'echo "Please enter your OpenStack Password for project $OS_PROJECT_NAME as user $OS_USERNAME: "\nread -sr OS_PASSWORD_INPUT\nexport OS_PASSWORD=$OS_PASSWORD_INPUT',
    "export OS_PASSWORD=$OS_PASSWORD_INPUT",
    "the openrc prompt; the value is typed, not written",
)
benign(
    X,
    DATABRICKS,
    "$ databricks auth profiles\nName     Host                                                  Valid\nDEFAULT  https://adb-4417283995331582.2.azuredatabricks.net   YES",
    "https://adb-4417283995331582.2.azuredatabricks.net   YES",
    "profile listing without tokens",
)

# ---------------------------------------------------------------------------------------------
# Private keys and cluster join tokens.
K = "key material and join token"
age_sk = age_secret()
secret(
    K,
    AGE,
    f"$ age-keygen\n# created: 2026-11-30T10:02:11+01:00\n# public key: {age_public()}\n§",
    age_sk,
)
secret(
    K,
    SOPS_ANSIBLE,
    "export SOPS_AGE_KEY=§\nsops --decrypt secrets/prod.enc.yaml > /tmp/prod.yaml",
    age_secret(),
)
secret(
    K,
    ZMQ,
    '# curve.cfg\ncurve_publickey = "' + pick(Z85, 40) + '"\ncurve_secretkey = "§"',
    pick(Z85, 40),
)
ktok = kubeadm_token()
secret(
    K,
    KUBEADM,
    "kubeadm join 10.0.1.234:6443 --token § \\\n    --discovery-token-ca-cert-hash sha256:"
    + pick(HX, 64),
    ktok,
)
secret(
    K,
    KUBEADM,
    "kubeadm join 10.0.1.10:6443 --token "
    + kubeadm_token()
    + " --control-plane --certificate-key §",
    pick(HX, 64),
)
secret(
    K,
    KUBEADM_TC,
    "$ kubeadm token list\nTOKEN                     TTL   EXPIRES                USAGES                   DESCRIPTION\n§   23h   2026-12-01T09:12:44Z   authentication,signing   The default bootstrap token generated by 'kubeadm init'.",
    kubeadm_token(),
)
secret(
    K,
    K3S,
    "curl -sfL https://get.k3s.io | K3S_URL=https://10.0.2.15:6443 K3S_TOKEN=§ sh -",
    k3s_token(),
)
secret(K, K3S, "$ sudo cat /var/lib/rancher/k3s/server/node-token\n§", k3s_token())
secret(K, K3S_ZH, "k3s server --cluster-init --token=§", pick(AL, 24))
secret(K, SWARM, "docker swarm join --token § 10.132.96.204:2377", swarm_token())
secret(
    K,
    SWARM,
    "$ docker swarm join-token worker\nTo add a worker to this swarm, run the following command:\n\n    docker swarm join --token § 192.168.65.3:2377",
    swarm_token(),
)
secret(
    K,
    MINISIGN,
    "$ cat ~/.minisign/minisign.key\nuntrusted comment: minisign encrypted secret key\nRWRTY0Iy§",
    b64(150),
)
secret(
    K,
    GRADLE,
    "ORG_GRADLE_PROJECT_signingInMemoryKey=lQdGBF§\nORG_GRADLE_PROJECT_signingInMemoryKeyPassword="
    + password(),
    b64(240),
)
secret(
    K,
    STEAMCMD_2FA,
    'STEAM_SHARED_SECRET="§" steamcmd-2fa --path /home/steam/steamcmd --username tg_builds --password "$STEAM_PASSWORD" --args "+quit"',
    b64(20),
)

benign(K, AGE, "$ age-keygen -y key.txt\n" + (v := age_public()), v, "a recipient public key")
benign(
    K,
    KUBEADM_ZH,
    "kubeadm join --discovery-token abcdef.1234567890abcdef 1.2.3.4:6443",
    "abcdef.1234567890abcdef",
    "the documentation's sample token",
)
benign(
    K,
    KUBEADM,
    "kubeadm join 10.0.1.234:6443 --discovery-file https://cluster-info.tallgrass.io/discovery.conf",
    "--discovery-file https://cluster-info.tallgrass.io/discovery.conf",
    "file discovery, no token",
)
benign(
    K,
    K3S,
    "curl -sfL https://get.k3s.io | K3S_URL=https://myserver:6443 K3S_TOKEN=mynodetoken sh -",
    "K3S_TOKEN=mynodetoken",
    "the documentation's placeholder",
)
benign(
    K,
    MINISIGN,
    "$ cat minisign.pub\nuntrusted comment: minisign public key 7A2F0C1D9E4B3A65\nRWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3",
    "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3",
    "a public key",
)

# ---------------------------------------------------------------------------------------------
# Look-alikes: hashes and digests.
LH = "look-alike: hashes and digests"


def h1() -> str:
    return "h1:" + b64(32)


benign(
    LH,
    GOSUM_BOOK,
    (v := f"github.com/gorilla/mux v1.8.0 {h1()}")
    + f"\ngithub.com/gorilla/mux v1.8.0/go.mod {h1()}",
    v.split()[-1],
    "go.sum module checksum",
)
benign(
    LH,
    GOSUM,
    (v := h1()) and f"github.com/google/uuid v1.6.0/go.mod {v}",
    v,
    "go.sum go.mod checksum",
)
benign(
    LH,
    PIP_HASH,
    f"FooProject == 1.2 \\\n    --hash=sha256:{(v := pick(HX, 64))}",
    v,
    "a pip hash-checking digest",
)
benign(
    LH,
    PIP_HASH,
    f"$ python -m pip hash ./pip_downloads/SomePackage-2.2.tar.gz\n./pip_downloads/SomePackage-2.2.tar.gz:\n--hash=sha256:{(v := pick(HX, 64))}",
    v,
    "pip hash output",
)
benign(
    LH,
    KUBEADM_TC,
    f"$ openssl x509 -in /etc/kubernetes/pki/ca.crt -noout -pubkey | openssl rsa -pubin -outform DER 2>/dev/null | sha256sum | cut -d' ' -f1\n{(v := pick(HX, 64))}",
    v,
    "the CA public key hash that kubeadm join pins",
)
benign(
    LH,
    K3S,
    f"$ sha256sum /var/lib/rancher/k3s/server/tls/server-ca.crt\n{(v := pick(HX, 64))}  /var/lib/rancher/k3s/server/tls/server-ca.crt",
    v,
    "the CA certificate hash, public",
)
benign(
    LH,
    MEILI,
    f"docker pull getmeili/meilisearch@sha256:{(v := pick(HX, 64))}",
    v,
    "an image digest",
)
benign(
    LH,
    GOSUM_BOOK,
    f"commit {(v := pick(HX, 40))}\nAuthor: Dana Ruiz <dana@tallgrass.io>\nDate:   Sun Nov 30 10:12:44 2026 +0100\n\n    bump gorilla/mux to v1.8.0",
    v,
    "a commit id",
)
benign(
    LH,
    GOSUM,
    f'[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{(v := pick(HX, 64))}"',
    v,
    "a Cargo.lock checksum",
)
benign(
    LH,
    GOSUM,
    f'provider "registry.terraform.io/cloudflare/cloudflare" {{\n  version = "4.48.0"\n  hashes = [\n    "{(v := h1())}",\n    "zh:{pick(HX, 64)}",\n  ]\n}}',
    v,
    "a Terraform lock file hash",
)
benign(
    LH,
    GRADLE,
    f'<component group="com.squareup.okhttp3" name="okhttp" version="4.12.0">\n   <artifact name="okhttp-4.12.0.jar">\n      <sha256 value="{(v := pick(HX, 64))}" origin="Generated by Gradle"/>\n   </artifact>\n</component>',
    v,
    "Gradle dependency verification metadata",
)
benign(
    LH,
    GRADLE,
    f"$ gpg --list-keys --keyid-format long\npub   ed25519/{(v := pick(HX, 16).upper())} 2026-01-10 [SC]\n      {pick(HX, 24).upper()}{v}\nuid                 [ultimate] TallGrass Releases <release@tallgrass.io>",
    v,
    "a public key id",
)
benign(
    LH,
    STEAMCMD_2FA,
    f"$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:{(v := b64(32).rstrip('='))} steam@build-3 (ED25519)",
    v,
    "a key fingerprint",
)
benign(
    LH,
    B2_API,
    f'{{\n  "fileName": "nightly/db-2026-11-30.sql.gz",\n  "contentSha1": "{(v := pick(HX, 40))}",\n  "contentLength": 81723344\n}}',
    v,
    "an upload checksum",
)
benign(
    LH,
    OBSUTIL,
    f'Upload successfully, 1.42GB, n/a, /data/backup.tar --> obs://tg-backup/backup.tar, cost [33012], status [200], request id [0000018D3E4C2A1B9F]\nETag: "{(v := pick(HX, 32))}"',
    v,
    "an object ETag (MD5)",
)
benign(
    LH,
    MEILI,
    f"resolution: {{integrity: sha512-{(v := b64(64))}}}",
    v,
    "a pnpm lock integrity value",
)
benign(
    LH,
    CIRCLECI,
    f"- restore_cache:\n    keys:\n      - v1-deps-{(v := pick(HX, 40))}",
    v,
    "a cache key built from a checksum",
)

# ---------------------------------------------------------------------------------------------
# Look-alikes: identifiers and UUIDs.
LI = "look-alike: ids and uuids"
benign(
    LI,
    WRANGLER_CI,
    f'name = "edge-api"\nmain = "src/index.ts"\naccount_id = "{(v := pick(HX, 32))}"',
    v,
    "a Cloudflare account id",
)
benign(
    LI,
    WRANGLER_LEGACY,
    f"curl https://api.cloudflare.com/client/v4/zones/{(v := pick(HX, 32))}/dns_records?type=A",
    v,
    "a zone id in a path",
)
benign(LI, YC, f"  service_account_id: {(v := 'aje' + pick(LO, 17))}", v, "a service account id")
benign(
    LI, DATABRICKS_ZH, f"httpPath=/sql/1.0/warehouses/{(v := pick(HX, 16))}", v, "a warehouse id"
)
benign(
    LI,
    SNOWSQL,
    f"Query ID: {(v := pick(HX, 8) + '-0602-4f1a-0000-' + pick(HX, 12))}\n+-------+\n| COUNT |\n|-------|\n| 18231 |",
    v,
    "a query id",
)
benign(
    LI,
    SUPABASE,
    f"$ supabase link --project-ref {(v := pick(string.ascii_lowercase, 20))}",
    v,
    "a project ref",
)
benign(
    LI,
    MOLLIE,
    f'{{"resource": "payment", "id": "tr_{(v := pick(AL, 10))}", "mode": "live", "amount": {{"value": "10.00", "currency": "EUR"}}}}',
    "tr_" + v,
    "a payment id",
)
benign(
    LI,
    PAYSTACK,
    f'{{"status": true, "message": "Authorization URL created", "data": {{"access_code": "0peioxfhpn", "reference": "{(v := pick(AL, 20))}"}}}}',
    v,
    "a transaction reference",
)
benign(
    LI,
    EXPO,
    f'"extra": {{\n  "eas": {{\n    "projectId": "{(v := uid())}"\n  }}\n}}',
    v,
    "an EAS project id",
)
benign(
    LI,
    PROXMOX,
    "$ pveum user token list automation@pve\n┌─────────┬─────────┬────────┬─────────┐\n│ tokenid │ comment │ expire │ privsep │\n╞═════════╪═════════╪════════╪═════════╡\n│ deploy  │ CI      │      0 │       1 │",
    "│ deploy  │ CI      │",
    "token names, no secrets",
)
benign(
    LI,
    OPENSTACK_APP,
    f"| id           | {(v := pick(HX, 32))} |\n| name         | ci-deployer                      |\n| expires_at   | None                             |",
    v,
    "an application credential id",
)
benign(
    LI,
    KUBEADM_TC,
    f"metadata:\n  creationTimestamp: 2026-10-12T03:19:19Z\n  name: bootstrap-token-a5gkfo\n  uid: {(v := uid())}",
    v,
    "an object uid",
)
benign(
    LI,
    TAILSCALE,
    f'"Self": {{\n  "ID": "{(v := "n" + pick(AL, 10) + "CNTRL")}",\n  "HostName": "ci-runner-3",\n  "OS": "linux"\n}}',
    v,
    "a node id",
)
benign(
    LI,
    HONEYCOMB,
    f"traceparent: 00-{(v := pick(HX, 32))}-{pick(HX, 16)}-01",
    v,
    "a trace context id",
)
benign(
    LI,
    OP,
    f"$ op item get {(v := pick(string.ascii_lowercase + '234567', 26))} --fields label=username\nsvc-deployer",
    v,
    "an item id",
)
benign(LI, CIRCLECI, f"Pipeline {(v := uid())} created, number 4211", v, "a pipeline id")
benign(
    LI,
    WANDB,
    f"wandb: Run data is saved locally in /home/ml/wandb/run-20261130_101500-{(v := pick(LO, 8))}",
    v,
    "a run id",
)
benign(
    LI,
    LINEAR,
    f'{{"data": {{"viewer": {{"id": "{(v := uid())}", "name": "Dana Ruiz"}}}}}}',
    v,
    "a user id",
)
benign(
    LI,
    MP_ES,
    f"client_id: {(v := pick(string.digits, 16))}\ngrant_type: client_credentials",
    v,
    "an application id",
)

# ---------------------------------------------------------------------------------------------
# Look-alikes: public keys and ciphertext.
LP = "look-alike: public keys and ciphertext"
benign(
    LP,
    SOPS_ANSIBLE,
    f"creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: {(v := age_public())}",
    v,
    "an age recipient",
)
benign(LP, ZMQ, f'client.curve_serverkey = b"{(v := pick(Z85, 40))}"', v, "the server's public key")
benign(
    LP,
    MINISIGN,
    f"minisign -Vm release.tar.gz -P {(v := 'RWQ' + b64(39).rstrip('='))}",
    v,
    "a public key on the command line",
)
benign(
    LP,
    SOPS,
    f"app2:\n    db:\n        password: {(v := 'ENC[AES256_GCM,data:' + b64(8) + ',iv:' + b64(32) + ',tag:' + b64(16) + ',type:str]')}",
    v,
    "a SOPS ciphertext",
)
benign(LP, TRAVIS, f'env:\n  global:\n    - secure: "{(v := b64(256))}"', v, "a Travis ciphertext")
benign(
    LP,
    STEAMCMD_2FA,
    f"$ cat ~/.ssh/authorized_keys\nssh-ed25519 {(v := 'AAAAC3NzaC1lZDI1NTE5AAAAI' + b64(32)[:43])} steam@build-3",
    v,
    "a public key",
)
benign(
    LP,
    TAILSCALE,
    f'$ tailscale debug prefs | grep -i key\n  "NodeKey": "nodekey:{(v := pick(HX, 64))}",',
    v,
    "a node public key",
)
benign(
    LP,
    GRADLE,
    f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{(v := 'mDMEZ' + b64(60))}\n-----END PGP PUBLIC KEY BLOCK-----",
    v,
    "a public key block",
)
benign(
    LP,
    K3S,
    f"-----BEGIN CERTIFICATE-----\n{(v := 'MIIBdzCCAR2gAwIBAgIBADAKBggqhkjOPQQDAjAjMSEwHwYDVQQDDBhrM3Mtc2Vy' + b64(33))}\n-----END CERTIFICATE-----",
    v,
    "a certificate",
)
anon = jwt(
    {
        "iss": "supabase",
        "ref": "hnqwplmzcxvbtyuioeas",
        "role": "anon",
        "iat": 1733000000,
        "exp": 2048576000,
    }
)
benign(
    LP,
    SUPABASE,
    f"const supabase = createClient('https://hnqwplmzcxvbtyuioeas.supabase.co', '{anon}')",
    anon,
    "the anon key, public by design (access is limited by row level security)",
)
benign(
    LP,
    MAPBOX_JA,
    f'{{"keys": [{{"kty": "RSA", "kid": "mapbox-2026", "alg": "RS256", "n": "{(v := b64url(raw(128)))}", "e": "AQAB"}}]}}',
    v,
    "a JWKS public modulus",
)
benign(
    LP,
    AGE,
    f"$ age -r {(v := age_public())} -o data.tar.gz.age data.tar.gz",
    v,
    "encrypting to a recipient",
)

# ---------------------------------------------------------------------------------------------
# Look-alikes: placeholders, documented examples and references.
LR = "look-alike: placeholders and references"
benign(
    LR,
    TRINO_MCP,
    "TRINO_HOST=op://Engineering/Trino/host\nTRINO_PASSWORD=op://Engineering/Trino/password",
    "op://Engineering/Trino/password",
    "a 1Password reference",
)
benign(
    LR,
    MATTERMOST,
    "https://your-mattermost-server.com/hooks/xxx-generatedkey-xxx",
    "xxx-generatedkey-xxx",
    "the documentation's placeholder",
)
benign(
    LR,
    OPENLARK,
    '"https://open.feishu.cn/open-apis/bot/v2/hook/YOUR_WEBHOOK_KEY".to_string()',
    "YOUR_WEBHOOK_KEY",
    "a placeholder",
)
benign(
    LR,
    TEAMS,
    "WebhookUrl = https://outlook.office.com/webhook/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "a placeholder UUID",
)
benign(
    LR,
    PAYSTACK,
    'curl https://api.paystack.co/transaction/initialize -H "Authorization: Bearer YOUR_SECRET_KEY" -H "Content-Type: application/json"',
    "Bearer YOUR_SECRET_KEY",
    "a placeholder",
)
benign(
    LR,
    PINECONE,
    'PINECONE_API_KEY="{{YOUR_API_KEY}}"',
    "{{YOUR_API_KEY}}",
    "a template placeholder",
)
benign(
    LR,
    PROXMOX,
    "api_token_id: username@realm!tokenid\napi_token_secret: xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "api_token_secret: xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "a placeholder",
)
benign(
    LR,
    TAILSCALE_RS,
    'let api_key = "tskey-api-XXXXXX".to_string();',
    "tskey-api-XXXXXX",
    "a placeholder with the real prefix",
)
benign(
    LR, OBSUTIL, "./obsutil config -i=xxxxx -k=xxxx -e=xxxxx", "-i=xxxxx -k=xxxx", "placeholders"
)
benign(
    LR,
    BREVO_REF,
    'curl https://api.brevo.com/v3/account \\\n     -H "api-key: <apiKey>"',
    "<apiKey>",
    "a placeholder",
)
benign(
    LR,
    MP,
    "curl -H 'Authorization: Bearer APP_USR-12345678-031820-X-12345678' https://api.mercadolibre.com/users/me",
    "APP_USR-12345678-031820-X-12345678",
    "the documentation's sample token",
)
benign(
    LR,
    B2_QS,
    "$ b2 account authorize 4ab123456789 001aabbccddeeff123456789012345678901234567\nUsing https://api.backblazeb2.com",
    "001aabbccddeeff123456789012345678901234567",
    "the documentation's sample key",
)
benign(
    LR,
    AGE,
    "AGE-SECRET-KEY-1N9JEPW6DWJ0ZQUDX63F5A03GX8QUW7PXDE39N8UYF82VZ9PC8UFS3M7XA9",
    "AGE-SECRET-KEY-1N9JEPW6DWJ0ZQUDX63F5A03GX8QUW7PXDE39N8UYF82VZ9PC8UFS3M7XA9",
    "the identity printed in the age-keygen man page, published to everyone",
)
benign(
    LR,
    NCLOUD_K8S,
    "[DEFAULT]\nncloud_access_key_id = ACCESSKEYACCESSKEYAC\nncloud_secret_access_key = SECRETKEYSECRETKEYSECRETKEYSECRETKEYSECR",
    "SECRETKEYSECRETKEYSECRETKEYSECRETKEYSECR",
    "the guide's filler key",
)
benign(
    LR,
    WRANGLER_LEGACY,
    "$ CF_ACCOUNT_ID=accountID CF_API_TOKEN=veryLongAPIToken wrangler publish",
    "CF_API_TOKEN=veryLongAPIToken",
    "the documentation's placeholder",
)
benign(
    LR,
    SUPABASE_ZH,
    "const supabaseAnonKey = import.meta.env.VITE_SUPABASE_ANON_KEY",
    "import.meta.env.VITE_SUPABASE_ANON_KEY",
    "a reference to an env variable",
)
benign(
    LR,
    MEILI_KEYS,
    'meilisearch --master-key="your-master-key-here"',
    "your-master-key-here",
    "a placeholder",
)
benign(LR, HANA_CLI, 'export HANA_PASSWORD="your-password"', "your-password", "a placeholder")
benign(
    LR,
    DATABRICKS,
    "export AIRFLOW_CONN_DATABRICKS_DEFAULT='databricks://@host-url?token=yourtoken'",
    "token=yourtoken",
    "a placeholder",
)

# ---------------------------------------------------------------------------------------------
# Look-alikes: masked and truncated values.
LM = "look-alike: masked values"
benign(
    LM,
    TCCLI,
    "TencentCloud API secretId [*afcQ]:\nTencentCloud API secretKey [*ArFd]:",
    "[*ArFd]",
    "the last four characters shown as a hint",
)
benign(
    LM,
    TCCLI,
    "TencentCloud API secretId [None]:AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******",
    "AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******",
    "a masked id from the documentation",
)
benign(
    LM,
    WRANGLER_CI,
    "Run npx wrangler deploy\n  env:\n    CLOUDFLARE_API_TOKEN: ***\n    CLOUDFLARE_ACCOUNT_ID: ***",
    "CLOUDFLARE_API_TOKEN: ***",
    "the runner's mask",
)
benign(
    LM,
    DATABRICKS,
    "$ databricks auth describe\nHost: https://adb-4417283995331582.2.azuredatabricks.net\nAuthenticated with: pat\nToken: dapi********************************",
    "dapi********************************",
    "a masked token",
)
benign(
    LM,
    OP,
    "$ op item get ykotmj6kefdcsnbt2tgh6nfjiy --fields label=password\n[use 'op item get ykotmj6kefdcsnbt2tgh6nfjiy --reveal' to reveal]",
    "--reveal' to reveal]",
    "the CLI hides concealed fields",
)
benign(
    LM,
    MP,
    "Access Token: APP_USR-****-****-****-7f3e",
    "APP_USR-****-****-****-7f3e",
    "a masked token",
)
benign(
    LM,
    RESEND,
    "re_••••••••••••••••••QpZ4   Full access   Created 2 days ago",
    "re_••••••••••••••••••QpZ4",
    "the dashboard's masked key",
)
benign(
    LM,
    PAYSTACK,
    "Secret Key: sk_live_**********************************a1b2",
    "sk_live_**********************************a1b2",
    "a masked key",
)
benign(
    LM,
    SNOWSQL_CFG,
    "[connections.prod]\nusername = LOADER\npassword = ********",
    "password = ********",
    "a masked value",
)
benign(
    LM,
    PROXMOX,
    'ok: [pve1] => {"censored": "the output has been hidden due to the fact that \'no_log: true\' was specified for this result", "changed": false}',
    "the output has been hidden",
    "Ansible hid the result",
)
benign(
    LM,
    UNDERSTACK,
    '  + resource "openstack_identity_application_credential_v3" "ci" {\n      + name   = "ci-deployer"\n      + secret = (sensitive value)\n    }',
    "(sensitive value)",
    "Terraform hides the value",
)
benign(
    LM,
    B2,
    "$ kubectl -n backups describe secret b2-creds\nData\n====\nB2_APPLICATION_KEY:     31 bytes\nB2_APPLICATION_KEY_ID:  25 bytes",
    "B2_APPLICATION_KEY:     31 bytes",
    "kubectl shows sizes, not values",
)
benign(
    LM,
    CIRCLECI,
    "Token         CCIPAT_Wq…  (expires 2027-11-30)",
    "CCIPAT_Wq…",
    "a truncated token in a listing",
)
benign(LM, JFROG, "> X-JFrog-Art-Api: [REDACTED]", "[REDACTED]", "already redacted")

# ---------------------------------------------------------------------------------------------
# Look-alikes: code and text that name a secret without holding one.
LC = "look-alike: code naming a secret"
benign(
    LC,
    OP,
    'if not os.environ.get("OP_SERVICE_ACCOUNT_TOKEN"):\n    sys.exit("set OP_SERVICE_ACCOUNT_TOKEN first")',
    'os.environ.get("OP_SERVICE_ACCOUNT_TOKEN")',
    "an environment check",
)
benign(
    LC,
    HONEYCOMB_RS,
    "    /// Honeycomb API key.\n    #[config(required)]\n    pub(crate) api_key: Redacted<HeaderValue>,",
    "pub(crate) api_key: Redacted<HeaderValue>",
    "a typed field",
)
benign(
    LC,
    STEAMCMD_2FA,
    "  -p, --password <PASSWORD>  Password to log in with\n  -s, --secret <SECRET>      2FA shared_secret (must be base64 encoded)",
    "--secret <SECRET>",
    "help text",
)
benign(
    LC,
    CBCLI,
    "| -u USERNAME, --user=USERNAME | Admin username of the cluster |\n| -p PASSWORD, --password=PASSWORD | Admin password of the cluster |",
    "--password=PASSWORD",
    "an option table",
)
benign(
    LC,
    PROXMOX,
    'variable "proxmox_api_token_secret" {\n  type      = string\n  sensitive = true\n}',
    'variable "proxmox_api_token_secret"',
    "a variable declaration",
)
benign(
    LC,
    SUPABASE_JA,
    'create policy "Public profiles are visible to everyone."\non profiles for select\nto anon\nusing ( true );',
    "to anon",
    "SQL naming a role",
)
benign(
    LC,
    GRADLE,
    'def signingKey = System.getenv("PGP_SECRET")\ndef signingPassword = System.getenv("PGP_PASSPHRASE")\nuseInMemoryPgpKeys(signingKey, signingPassword)',
    'System.getenv("PGP_PASSPHRASE")',
    "environment lookups",
)
benign(
    LC,
    EXPO,
    "export const EXPO_ACCESS_TOKEN = process.env.EXPO_ACCESS_TOKEN;",
    "process.env.EXPO_ACCESS_TOKEN",
    "an environment lookup",
)
benign(
    LC,
    AIRFLOW,
    'hook = PostgresHook(postgres_conn_id="warehouse")\npw = hook.get_connection("warehouse").password',
    '.get_connection("warehouse").password',
    "an attribute access",
)
benign(
    LC,
    MEILI,
    "Error: The master key must be at least 16 bytes in a production environment.",
    "must be at least 16 bytes",
    "a validation message",
)
benign(
    LC,
    TRINO_MCP,
    "| TRINO_PASSWORD | No | Trino password (optional, depends on your authentication setup) |",
    "Trino password (optional",
    "a configuration table",
)
benign(
    LC,
    PROXMOX_PHP,
    "$proxmox->setPM_PASS($_GET['PM_PASS']);",
    "setPM_PASS($_GET['PM_PASS'])",
    "code passing a request field",
)
benign(
    LC,
    MAPBOX,
    "val token = BuildConfig.MAPBOX_ACCESS_TOKEN",
    "BuildConfig.MAPBOX_ACCESS_TOKEN",
    "a build constant name",
)
benign(
    LC,
    ADO_UPDATECLI,
    '      token: "{{ requiredEnv `UPDATECLI_AZURE_DEVOPS_TOKEN` }}"\n      username: "{{ requiredEnv `UPDATECLI_AZURE_DEVOPS_USERNAME` }}"',
    "requiredEnv `UPDATECLI_AZURE_DEVOPS_TOKEN`",
    "a template lookup",
)
benign(
    LC,
    ZMQ,
    "The caller provides two buffers, each at least 41 octets large, in which this method will store the keys.",
    "at least 41 octets large",
    "prose about key buffers",
)
benign(
    LC,
    HANA_ANSIBLE,
    "password: The password to connect to the database. Since the passwords have to be passed as command line arguments, userstore=true should be used whenever possible.",
    "userstore=true should be used",
    "module documentation",
)


def main() -> None:
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    secrets_n = sum(row["expect"] == "secret" for row in ROWS)
    print(f"wrote {len(ROWS)} rows ({secrets_n} secrets) to {OUT}")


if __name__ == "__main__":
    main()
