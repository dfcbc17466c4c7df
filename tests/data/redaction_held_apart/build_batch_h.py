"""Build batch H of the held-apart redaction set (batch-h.jsonl), written blind.

The shapes come from tools' public documentation (each row keeps its page in `source`), not from
the redaction rules, which were not read while this file was written: model and agent APIs
(Replicate, OpenRouter, LangSmith, Langfuse, Tavily, Firecrawl, Apify, LlamaCloud, Cerebras,
Voyage, Jina, RunPod, ElevenLabs, Deepgram, AssemblyAI, Mistral, Cohere, Together, Fireworks,
DeepSeek, E2B, Browserbase, Modal, fal, Chroma, Qdrant), work and deploy tools (Figma, ClickUp,
HubSpot, Asana, Zoho, Terraform Cloud, Portainer, Octopus Deploy, Harness, Rancher, Codecov, Snyk,
Deno Deploy, Fastly, Akamai), notification services (ntfy, Pushbullet, Honeybadger, Feishu and
Lark, WeCom, IFTTT, Make, Zulip, Webex, Gotify, Bark, Server酱, Power Automate, Home Assistant),
payments and chains (Clerk, Stytch, Telnyx, Plaid, Etherscan, Infura, Alchemy), self-hosted
services' config (Synapse, Mastodon, Authelia, Vaultwarden, Paperless-ngx, Gitea, Nextcloud,
Syncthing, Sonarr, Transmission, Prometheus, Alertmanager, Telegraf, Zabbix, Graylog, Fluent Bit,
CrowdSec, hostapd, NetworkManager, iwd, Ceph, DRBD, cloud-init, kickstart, preseed, unattended
Windows setup, mail clients), CLIs (ipmitool, racadm, FreeRDP, x11vnc, lftp, aria2, Transmission,
mount.cifs, net use, cmdkey, schtasks, PsExec, sc, rpk, kcat, nmcli, iwctl, htpasswd, ssh-keygen,
unrar, pk12util, kopia, s3cmd, Sybase isql, Data Pump, evil-winrm, podman, skopeo, oras, regctl,
valkey-cli, HTTPie), database drivers (Npgsql, MySqlConnector, ODP.NET, Firebird, Db2, Teradata,
Informix, godror, DuckDB), web frameworks of several languages, CI systems (AppVeyor, Semaphore,
Tekton, Argo Workflows, Cloud Build, CodeBuild, Earthly, Taskfile, dev containers, Skaffold,
Helmfile, Kustomize, Dagger), logs, encodings, signing tools (cosign, Tauri, osslsigncode, jsign,
sbt-pgp, age, Nostr, Sparkle) and prose in other languages. Every value is invented from a fixed
seed, so the file is reproducible: run `python build_batch_h.py` to rewrite it.
"""

from __future__ import annotations

# ruff: noqa: E501  (each context stays as it appears in a shell, file or log)
import base64
import json
import random
import string
import uuid
from pathlib import Path
from urllib.parse import quote

RNG = random.Random(20261204)
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
ALNUM = LOWER + UPPER + DIGITS
URLSAFE = ALNUM + "-_"
SYMBOLS = "!#+-_.^~"

ROWS: list[dict[str, str]] = []
SLOT = "§"


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


def jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = json.dumps({"sub": uid(), "iat": RNG.randrange(1_700_000_000, 1_780_000_000)})
    claims = base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")
    return f"{head}.{claims}.{b64url(32)}"


def secret(cls: str, source: str, context: str, value: str) -> str:
    assert context.count(SLOT) >= 1, context
    ROWS.append(
        {
            "class": cls,
            "context": context.replace(SLOT, value),
            "expect": "secret",
            "secret": value,
            "source": source,
        }
    )
    return value


def benign(cls: str, source: str, context: str, value: str, reason: str) -> None:
    assert context.count(SLOT) >= 1, context
    ROWS.append(
        {
            "class": cls,
            "context": context.replace(SLOT, value),
            "expect": "benign",
            "value": value,
            "reason": reason,
            "source": source,
        }
    )


# -- vendor tokens -----------------------------------------------------------------------------

V = "vendor token"
secret(
    V,
    "https://replicate.com/docs/topics/security/api-tokens",
    "export REPLICATE_API_TOKEN=§",
    "r8_" + pick(ALNUM, 37),
)
secret(
    V,
    "https://replicate.com/docs/topics/security/api-tokens",
    "here is the token for the flux job: § (rotate after the demo)",
    "r8_" + pick(ALNUM, 37),
)
secret(
    V,
    "https://openrouter.ai/docs/api_reference/authentication",
    "OPENROUTER_API_KEY=§",
    "sk-or-v1-" + hexs(64),
)
secret(
    V,
    "https://openrouter.ai/docs/guides/overview/auth/api-keys",
    'client = OpenAI(base_url="https://openrouter.ai/api/v1", api_key="§")',
    "sk-or-v1-" + hexs(64),
)
secret(
    V,
    "https://docs.langchain.com/langsmith/create-account-api-key",
    "LANGSMITH_API_KEY=§\nLANGSMITH_TRACING=true",
    "lsv2_pt_" + hexs(32) + "_" + hexs(10),
)
secret(
    V,
    "https://docs.langchain.com/langsmith/create-account-api-key",
    "curl -H 'x-api-key: §' https://api.smith.langchain.com/api/v1/sessions",
    "lsv2_sk_" + hexs(32) + "_" + hexs(10),
)
secret(
    V,
    "https://langfuse.com/faq/all/lost-secret-key",
    "LANGFUSE_SECRET_KEY=§\nLANGFUSE_HOST=https://cloud.langfuse.com",
    "sk-lf-" + uid(),
)
secret(
    V,
    "https://langfuse.com/faq/all/lost-secret-key",
    "langfuse = Langfuse(public_key=os.environ['LANGFUSE_PUBLIC_KEY'], secret_key='§')",
    "sk-lf-" + uid(),
)
secret(
    V,
    "https://docs.tavily.com/guides/quickstart",
    'tavily_client = TavilyClient(api_key="§")',
    "tvly-dev-" + pick(ALNUM, 32),
)
secret(
    V,
    "https://docs.tavily.com/api-reference/introduction",
    '  "env": {\n    "TAVILY_API_KEY": "§"\n  }',
    "tvly-" + pick(ALNUM, 32),
)
secret(
    V,
    "https://docs.firecrawl.dev/introduction",
    "app = FirecrawlApp(api_key='§')",
    "fc-" + hexs(32),
)
secret(
    V,
    "https://docs.firecrawl.dev/introduction",
    "FIRECRAWL_API_KEY=§ npx -y firecrawl-mcp",
    "fc-" + hexs(32),
)
secret(
    V,
    "https://docs.apify.com/platform/integrations/api",
    "export APIFY_TOKEN=§",
    "apify_api_" + pick(ALNUM, 36),
)
secret(
    V,
    "https://docs.apify.com/cli/docs",
    "$ apify login -t §\nSuccess: You are logged in to Apify as jdoe.",
    "apify_api_" + pick(ALNUM, 36),
)
secret(
    V,
    "https://docs.cloud.llamaindex.ai/api_key",
    'LLAMA_CLOUD_API_KEY="§"',
    "llx-" + pick(ALNUM, 48),
)
secret(
    V,
    "https://inference-docs.cerebras.ai/quickstart",
    "export CEREBRAS_API_KEY=§",
    "csk-" + pick(LOWER + DIGITS, 48),
)
secret(
    V,
    "https://docs.voyageai.com/docs/api-key-and-installation",
    'vo = voyageai.Client(api_key="§")',
    "pa-" + pick(URLSAFE, 43),
)
secret(
    V,
    "https://jina.ai/reader/",
    "curl https://r.jina.ai/https://news.ycombinator.com -H 'Authorization: Bearer §'",
    "jina_" + pick(ALNUM, 60),
)
secret(
    V,
    "https://docs.runpod.io/get-started/api-keys",
    "runpodctl config --apiKey §",
    "rpa_" + pick(UPPER + DIGITS, 40),
)
secret(
    V,
    "https://elevenlabs.io/docs/api-reference/authentication",
    "ELEVENLABS_API_KEY=§",
    "sk_" + hexs(48),
)
secret(
    V,
    "https://docs.mistral.ai/getting-started/quickstart/",
    "export MISTRAL_API_KEY=§",
    pick(ALNUM, 32),
)
secret(
    V,
    "https://docs.together.ai/docs/quickstart",
    "TOGETHER_API_KEY=§",
    "tgp_v1_" + pick(URLSAFE, 43),
)
secret(
    V,
    "https://docs.fireworks.ai/getting-started/quickstart",
    "export FIREWORKS_API_KEY=§",
    "fw_" + pick(ALNUM, 24),
)
secret(
    V,
    "https://api-docs.deepseek.com/",
    'client = OpenAI(api_key="§", base_url="https://api.deepseek.com")',
    "sk-" + hexs(32),
)
secret(V, "https://e2b.dev/docs/quickstart", "E2B_API_KEY=§", "e2b_" + hexs(40))
secret(
    V,
    "https://docs.browserbase.com/introduction/getting-started",
    "BROWSERBASE_API_KEY=§\nBROWSERBASE_PROJECT_ID=" + uid(),
    "bb_live_" + pick(URLSAFE, 27),
)
secret(
    V,
    "https://www.figma.com/developers/api#access-tokens",
    "FIGMA_TOKEN=§ node export-icons.js",
    "figd_" + pick(URLSAFE, 40),
)
secret(
    V,
    "https://clickup.com/api/developer-portal/authentication/",
    "clickup:\n  token: §",
    "pk_" + pick(DIGITS, 8) + "_" + pick(UPPER + DIGITS, 32),
)
secret(
    V,
    "https://developers.hubspot.com/docs/api/private-apps",
    "HUBSPOT_ACCESS_TOKEN=§",
    "pat-na1-" + uid(),
)
secret(
    V,
    "https://developers.asana.com/docs/personal-access-token",
    'asana_pat = "§"',
    "2/" + pick(DIGITS, 16) + "/" + pick(DIGITS, 16) + ":" + hexs(32),
)
secret(
    V,
    "https://developer.hashicorp.com/terraform/cli/config/config-file#credentials",
    'credentials "app.terraform.io" {\n  token = "§"\n}',
    pick(ALNUM, 14) + ".atlasv1." + pick(ALNUM, 67),
)
secret(
    V,
    "https://docs.portainer.io/api/access",
    "PORTAINER_TOKEN=§ ./deploy-stack.sh",
    "ptr_" + pick(URLSAFE, 43),
)
secret(
    V,
    "https://docs.ntfy.sh/publish/#access-tokens",
    "curl -H 'Authorization: Bearer §' -d 'backup done' https://ntfy.sh/ops-7f3",
    "tk_" + pick(LOWER + DIGITS, 29),
)
secret(
    V, "https://docs.pushbullet.com/#api-quick-start", "PUSHBULLET_TOKEN=§", "o." + pick(ALNUM, 32)
)
secret(
    V,
    "https://docs.honeybadger.io/api/reporting-check-ins/",
    "honeybadger:\n  personal_auth_token: §",
    "hbp_" + pick(ALNUM, 36),
)
secret(
    V,
    "https://clerk.com/docs/deployments/clerk-environment-variables",
    "CLERK_SECRET_KEY=§",
    "sk_live_" + pick(ALNUM, 40),
)
secret(
    V,
    "https://stytch.com/docs/api/authentication",
    "STYTCH_SECRET=§\nSTYTCH_PROJECT_ID=project-live-" + uid(),
    "secret-live-" + pick(URLSAFE, 36) + "=",
)
secret(
    V,
    "https://developers.telnyx.com/docs/development/authentication",
    "TELNYX_API_KEY=§",
    "KEY" + pick("0123456789ABCDEF", 32) + "_" + pick(ALNUM, 22),
)
secret(
    V,
    "https://plaid.com/docs/quickstart/",
    "PLAID_CLIENT_ID=" + hexs(24) + "\nPLAID_SECRET=§\nPLAID_ENV=sandbox",
    hexs(30),
)
secret(
    V,
    "https://docs.etherscan.io/getting-started/viewing-api-usage-statistics",
    "ETHERSCAN_API_KEY=§ npx hardhat verify --network mainnet 0x5FbDB2315678afecb367f032d93F642f64180aa3",
    pick(UPPER + DIGITS, 34),
)
secret(
    V,
    "https://docs.infura.io/api/learn/authentication/api-key-secret",
    "curl --user :§ https://mainnet.infura.io/v3/" + hexs(32),
    hexs(32),
)
secret(
    V,
    "https://docs.alchemy.com/docs/alchemy-quickstart-guide",
    "ALCHEMY_API_KEY=§",
    pick(URLSAFE, 32),
)
secret(
    V,
    "https://docs.deno.com/deploy/manual/deployctl",
    "deployctl deploy --project=shop --token=§ main.ts",
    "ddp_" + pick(ALNUM, 36),
)
secret(V, "https://docs.codecov.com/docs/codecov-uploader", "./codecov -t § -f coverage.xml", uid())
secret(
    V,
    "https://docs.snyk.io/snyk-cli/commands/auth",
    "$ snyk auth §\nYour account has been authenticated.",
    uid(),
)
secret(
    V,
    "https://developer.harness.io/docs/platform/automation/api/add-and-manage-api-keys",
    "HARNESS_PLATFORM_API_KEY=§",
    "pat." + pick(URLSAFE, 22) + "." + hexs(24) + "." + pick(ALNUM, 20),
)
secret(
    V,
    "https://modal.com/docs/reference/modal.config",
    "[default]\ntoken_id = ak-" + pick(ALNUM, 22) + "\ntoken_secret = §",
    "as-" + pick(ALNUM, 22),
)
secret(
    V,
    "https://docs.trychroma.com/cloud/getting-started",
    "CHROMA_API_KEY=§",
    "ck-" + pick(ALNUM, 44),
)

# -- HTTP auth headers -------------------------------------------------------------------------

H = "http auth header"
secret(
    H,
    "https://developers.deepgram.com/reference/authentication",
    "curl -X POST -H 'Authorization: Token §' -H 'Content-Type: audio/wav' --data-binary @call.wav https://api.deepgram.com/v1/listen",
    hexs(40),
)
secret(
    H,
    "https://www.assemblyai.com/docs/api-reference/overview",
    'curl https://api.assemblyai.com/v2/transcript -H "authorization: §" -d \'{"audio_url": "https://cdn.acme.io/a.mp3"}\'',
    hexs(32),
)
secret(
    H,
    "https://elevenlabs.io/docs/api-reference/authentication",
    'curl https://api.elevenlabs.io/v1/voices -H "xi-api-key: §"',
    "sk_" + hexs(48),
)
secret(
    H,
    "https://docs.trychroma.com/cloud/getting-started",
    "GET /api/v2/heartbeat HTTP/1.1\nHost: api.trychroma.com\nX-Chroma-Token: §",
    "ck-" + pick(ALNUM, 44),
)
secret(
    H,
    "https://qdrant.tech/documentation/cloud/authentication/",
    "curl -X GET https://xyz-example.eu-central.aws.cloud.qdrant.io:6333/collections --header 'api-key: §'",
    pick(URLSAFE, 48),
)
secret(
    H,
    "https://octopus.com/docs/octopus-rest-api/getting-started",
    'Invoke-RestMethod -Uri $octopusURL/api/projects -Headers @{ "X-Octopus-ApiKey" = "§" }',
    "API-" + pick(UPPER + DIGITS, 27),
)
secret(
    H,
    "https://www.fastly.com/documentation/reference/api/auth-tokens/",
    'curl -X POST -H "Fastly-Key: §" https://api.fastly.com/service/SU1Z0isxPaozGVKXdv0eY/purge_all',
    pick(URLSAFE, 32),
)
secret(
    H,
    "https://www.zoho.com/crm/developer/docs/api/v6/oauth-overview.html",
    "Authorization: Zoho-oauthtoken §",
    "1000." + hexs(32) + "." + hexs(32),
)
secret(
    H,
    "https://wiki.servarr.com/sonarr/settings#security",
    "curl -H 'X-Api-Key: §' http://nas.lan:8989/api/v3/series",
    hexs(32),
)
secret(
    H,
    "https://developer.zendesk.com/api-reference/introduction/security-and-auth/",
    "Authorization: Basic §",
    base64.b64encode(("agent@acme.io/token:" + pick(ALNUM, 40)).encode()).decode(),
)
secret(
    H,
    "https://ranchermanager.docs.rancher.com/reference-guides/user-settings/api-keys",
    "curl -H 'Authorization: Bearer §' https://rancher.acme.io/v3/clusters",
    "token-" + pick(LOWER + DIGITS, 5) + ":" + pick(LOWER + DIGITS, 54),
)
secret(
    H,
    "https://techdocs.akamai.com/developer/docs/authenticate-with-edgegrid",
    "Authorization: EG1-HMAC-SHA256 client_token=akab-"
    + pick(LOWER + DIGITS, 16)
    + "-"
    + pick(LOWER + DIGITS, 16)
    + ";access_token=§;timestamp=20261204T09:14:07+0000;nonce="
    + uid()
    + ";signature="
    + b64(32),
    "akab-" + pick(LOWER + DIGITS, 16) + "-" + pick(LOWER + DIGITS, 16),
)
secret(
    H,
    "https://docs.fal.ai/model-apis/authentication",
    'curl -X POST https://fal.run/fal-ai/flux/dev -H "Authorization: Key §"',
    uid() + ":" + hexs(32),
)
secret(
    H,
    "https://www.figma.com/developers/api#authentication",
    "curl -H 'X-Figma-Token: §' 'https://api.figma.com/v1/files/" + pick(ALNUM, 22) + "'",
    "figd_" + pick(URLSAFE, 40),
)
secret(
    H,
    "https://docs.gitea.com/development/api-usage",
    'curl -H "Authorization: token §" https://git.acme.io/api/v1/user/repos',
    hexs(40),
)
secret(
    H,
    "https://apidocs.harness.io/",
    "curl -H 'x-api-key: §' 'https://app.harness.io/ng/api/projects?accountIdentifier="
    + pick(URLSAFE, 22)
    + "'",
    "pat." + pick(URLSAFE, 22) + "." + hexs(24) + "." + pick(ALNUM, 20),
)

# -- webhook URLs ------------------------------------------------------------------------------

W = "webhook url"
secret(
    W,
    "https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot",
    'curl -X POST -H \'Content-Type: application/json\' -d \'{"msg_type":"text","content":{"text":"deploy ok"}}\' §',
    "https://open.feishu.cn/open-apis/bot/v2/hook/" + uid(),
)
secret(
    W,
    "https://open.larksuite.com/document/client-docs/bot-v3/add-custom-bot",
    "LARK_WEBHOOK=§",
    "https://open.larksuite.com/open-apis/bot/v2/hook/" + uid(),
)
secret(
    W,
    "https://developer.work.weixin.qq.com/document/path/91770",
    "webhook_url: §",
    "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=" + uid(),
)
secret(
    W,
    "https://help.ifttt.com/hc/en-us/articles/115010230347",
    "curl -X POST §",
    "https://maker.ifttt.com/trigger/door_open/with/key/" + pick(URLSAFE, 22),
)
secret(
    W,
    "https://www.make.com/en/help/tools/webhooks",
    "MAKE_HOOK=§",
    "https://hook.eu1.make.com/" + pick(LOWER + DIGITS, 32),
)
secret(
    W,
    "https://zulip.com/integrations/slack_incoming",
    "SLACK_WEBHOOK_URL=§",
    "https://acme.zulipchat.com/api/v1/external/slack_incoming?api_key="
    + pick(ALNUM, 32)
    + "&stream=alerts",
)
secret(
    W,
    "https://apphub.webex.com/applications/incoming-webhooks-cisco-systems-38054-23307",
    'requests.post("§", json={"markdown": "**build failed**"})',
    "https://webexapis.com/v1/webhooks/incoming/" + b64url(60),
)
secret(
    W,
    "https://gotify.net/docs/pushmsg",
    'curl "§" -F "title=disk" -F "message=92% full"',
    "https://push.acme.lan/message?token=" + pick(ALNUM + "._-", 15),
)
secret(
    W,
    "https://bark.day.app/#/tutorial",
    "curl §",
    "https://api.day.app/" + pick(ALNUM, 22) + "/backup%20finished",
)
secret(
    W,
    "https://sct.ftqq.com/sendkey",
    "requests.get('§', params={'title': '任务完成'})",
    "https://sctapi.ftqq.com/SCT" + pick(DIGITS, 6) + "T" + pick(ALNUM, 30) + ".send",
)
secret(
    W,
    "https://learn.microsoft.com/en-us/power-automate/triggers-introduction",
    "flow_url = '§'",
    "https://prod-27.westeurope.logic.azure.com:443/workflows/"
    + hexs(32)
    + "/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig="
    + pick(URLSAFE, 43),
)
secret(
    W,
    "https://www.home-assistant.io/docs/automation/trigger/#webhook-trigger",
    'curl -X POST -d \'{"state":"on"}\' §',
    "https://ha.vdberg-home.duckdns.org/api/webhook/" + pick(URLSAFE, 40),
)

# -- connection strings without :// --------------------------------------------------------------

C = "connection string"
secret(
    C,
    "https://www.npgsql.org/doc/connection-string-parameters.html",
    '"ConnectionStrings": { "Default": "Host=db.internal;Database=orders;Username=orders_app;Password=§" }',
    password(),
)
secret(
    C,
    "https://mysqlconnector.net/connection-options/",
    'var cs = "Server=mysql01;User ID=reporting;Password=§;Database=bi";',
    password(),
)
secret(
    C,
    "https://docs.oracle.com/en/database/oracle/oracle-database/23/odpnt/featConnecting.html",
    '<add name="Hr" connectionString="User Id=hr;Password=§;Data Source=dbhost:1521/FREEPDB1" />',
    password(),
)
secret(
    C,
    "https://github.com/FirebirdSQL/NETProvider/blob/master/docs/ado-net.md",
    'new FbConnection("User=SYSDBA;Password=§;Database=/data/erp.fdb;DataSource=fb01;Port=3050")',
    password(),
)
secret(
    C,
    "https://www.ibm.com/docs/en/db2/11.5?topic=file-data-server-driver-configuration-keywords",
    'DB2_CONN = "DATABASE=SAMPLE;HOSTNAME=db2.corp;PORT=50000;PROTOCOL=TCPIP;UID=db2inst1;PWD=§;"',
    password(),
)
secret(
    C,
    "https://docs.teradata.com/r/Basic-Teradata-Query-Reference",
    ".LOGON tdprod/dbc,§;\nSELECT COUNT(*) FROM sales.orders;",
    password(),
)
secret(
    C,
    "https://www.ibm.com/docs/en/informix-servers/14.10?topic=odbc-connection-string-keywords",
    "Driver={IBM INFORMIX ODBC DRIVER};Host=ifx01;Server=ol_ifx;Service=9088;Protocol=onsoctcp;Database=stores;UID=informix;PWD=§",
    password(),
)
secret(
    C,
    "https://godror.github.io/godror/doc/connection.html",
    'db, err := sql.Open("godror", `user="scott" password="§" connectString="dbhost:1521/orclpdb1"`)',
    password(),
)
secret(
    C,
    "https://duckdb.org/docs/extensions/postgres.html",
    "ATTACH 'dbname=analytics user=duck host=10.0.4.12 password=§' AS pg (TYPE postgres);",
    password(),
)
secret(
    C,
    "https://duckdb.org/docs/configuration/secrets_manager.html",
    "CREATE SECRET s3_prod (TYPE s3, KEY_ID 'AKIA"
    + pick(UPPER + DIGITS, 16)
    + "', SECRET '§', REGION 'eu-west-1');",
    pick(ALNUM + "+/", 40),
)
secret(
    C,
    "https://docs.redpanda.com/current/manage/security/authentication/",
    'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="ingest" password="§";',
    password(),
)
secret(
    C,
    "https://zookeeper.apache.org/doc/current/zookeeperProgrammers.html#sc_ZooKeeperAccessControl",
    "[zk: localhost:2181(CONNECTED) 0] addauth digest super:§",
    password(),
)
secret(
    C,
    "https://learn.microsoft.com/en-us/sql/connect/oledb/applications/using-connection-string-keywords-with-oledb-driver-for-sql-server",
    "Provider=MSOLEDBSQL19;Data Source=sql02;Initial Catalog=Payroll;User ID=payroll_ro;Password=§;Encrypt=Mandatory",
    password(),
)
secret(
    C,
    "https://docs.oracle.com/en/database/oracle/oracle-database/23/jjdbc/data-sources-and-URLs.html",
    "spring.datasource.url=jdbc:oracle:thin:app_owner/§@db-scan.corp:1521/SALES",
    password(),
)
secret(
    C,
    "https://www.pgbouncer.org/config.html#authentication-file-format",
    '"orders_app" "§"\n"metrics" "SCRAM-SHA-256$4096:'
    + b64(16)
    + "$"
    + b64(32)
    + ":"
    + b64(32)
    + '"',
    password(),
)

# -- CLI password flags --------------------------------------------------------------------------

F = "cli password flag"
secret(
    F,
    "https://linux.die.net/man/1/ipmitool",
    "ipmitool -I lanplus -H 10.20.0.41 -U ADMIN -P § chassis power cycle",
    password(12),
)
secret(
    F,
    "https://www.dell.com/support/manuals/en-us/idrac9-lifecycle-controller-v5.x-series/idrac9_5.xx_racadm_pub/",
    "racadm -r 10.20.0.52 -u root -p § serveraction powercycle",
    password(12),
)
secret(
    F,
    "https://github.com/FreeRDP/FreeRDP/wiki/CommandLineInterface",
    "xfreerdp /v:ts01.corp /u:CORP\\\\jdoe /p:§ /dynamic-resolution",
    password(),
)
secret(
    F,
    "https://linux.die.net/man/1/rdesktop",
    "rdesktop -u administrator -p § -g 1600x900 win2019",
    password(),
)
secret(
    F,
    "https://linux.die.net/man/1/x11vnc",
    "x11vnc -display :0 -passwd § -forever -shared",
    password(8),
)
secret(
    F,
    "https://lftp.yar.ru/lftp-man.html",
    "lftp -u deploy,§ sftp://files.acme.io -e 'mirror -R dist /var/www; quit'",
    password(),
)
secret(
    F,
    "https://aria2.github.io/manual/en/html/aria2c.html#cmdoption-http-passwd",
    "aria2c --http-user=mirror --http-passwd=§ https://mirror.corp/iso/rhel9.iso",
    password(),
)
secret(
    F,
    "https://aria2.github.io/manual/en/html/aria2c.html#cmdoption-rpc-secret",
    "aria2c --enable-rpc --rpc-listen-all --rpc-secret=§",
    pick(ALNUM, 24),
)
secret(
    F,
    "https://linux.die.net/man/1/transmission-remote",
    "transmission-remote 192.168.1.20:9091 -n admin:§ -l",
    password(),
)
secret(
    F,
    "https://linux.die.net/man/8/mount.cifs",
    "mount -t cifs //nas/backup /mnt/backup -o username=svc_backup,password=§,vers=3.0",
    password(),
)
secret(
    F,
    "https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2012-r2-and-2012/gg651155(v=ws.11)",
    "net use Z: \\\\fs01\\projects § /user:CORP\\svc_build /persistent:no",
    password(),
)
secret(
    F,
    "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/cmdkey",
    "cmdkey /add:ts01.corp /user:CORP\\jdoe /pass:§",
    password(),
)
secret(
    F,
    "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/schtasks-create",
    "schtasks /create /tn NightlyExport /tr C:\\jobs\\export.cmd /sc daily /st 02:00 /ru CORP\\svc_export /rp §",
    password(),
)
secret(
    F,
    "https://learn.microsoft.com/en-us/sysinternals/downloads/psexec",
    "psexec \\\\app07 -u CORP\\admin -p § -h cmd /c ipconfig /all",
    password(),
)
secret(
    F,
    "https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/sc-config",
    "sc.exe config MSSQLSERVER obj= CORP\\svc_sql password= §",
    password(),
)
secret(
    F,
    "https://docs.redpanda.com/current/reference/rpk/rpk-topic/rpk-topic-produce/",
    "rpk topic produce orders --user ingest --password § --sasl-mechanism SCRAM-SHA-256",
    password(),
)
secret(
    F,
    "https://github.com/edenhill/kcat#examples",
    "kcat -b broker:9093 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=reader -X sasl.password=§ -C -t events",
    password(),
)
secret(
    F,
    "https://networkmanager.dev/docs/api/latest/nmcli.html",
    "nmcli device wifi connect Office-5G password § ifname wlan0",
    password(14),
)
secret(
    F,
    "https://iwd.wiki.kernel.org/gettingstarted",
    "iwctl --passphrase § station wlan0 connect HomeNet",
    password(14),
)
secret(
    F,
    "https://httpd.apache.org/docs/2.4/programs/htpasswd.html",
    "htpasswd -b -c /etc/nginx/.htpasswd grafana §",
    password(),
)
secret(
    F,
    "https://man.openbsd.org/ssh-keygen.1",
    "ssh-keygen -t ed25519 -N '§' -f ~/.ssh/deploy_ed25519 -C deploy@ci",
    password(),
)
secret(
    F,
    "https://documentation.help/WinRAR/HELPSwP.htm",
    "unrar x -p§ invoices-2026.rar /tmp/invoices/",
    password(),
)
secret(
    F,
    "https://firefox-source-docs.mozilla.org/security/nss/legacy/tools/nss_tools_pk12util/index.html",
    "pk12util -i client.p12 -d sql:$HOME/.pki/nssdb -W §",
    password(),
)
secret(
    F,
    "https://kopia.io/docs/reference/command-line/common/repository-connect-s3/",
    "kopia repository connect s3 --bucket=kopia-prod --access-key=AKIA"
    + pick(UPPER + DIGITS, 16)
    + " --secret-access-key="
    + pick(ALNUM + "+/", 40)
    + " --password=§",
    password(),
)
secret(
    F,
    "https://s3tools.org/usage",
    "s3cmd --access_key=AKIA" + pick(UPPER + DIGITS, 16) + " --secret_key=§ ls s3://logs-archive",
    pick(ALNUM + "+/", 40),
)
secret(
    F,
    "https://infocenter.sybase.com/help/topic/com.sybase.infocenter.dc30191.1570/html/utilityguide/X30446.htm",
    "isql -Usa -P§ -SASE01 -i nightly.sql",
    password(),
)
secret(
    F,
    "https://docs.oracle.com/en/database/oracle/oracle-database/23/sutil/oracle-data-pump-export-utility.html",
    "expdp system/§@ORCLPDB1 schemas=HR directory=DP_DIR dumpfile=hr.dmp",
    password(),
)
secret(
    F,
    "https://github.com/Hackplayers/evil-winrm#usage",
    "evil-winrm -i 10.10.11.42 -u svc_mssql -p '§'",
    password(),
)
secret(
    F,
    "https://docs.podman.io/en/latest/markdown/podman-login.1.html",
    "podman login -u robot -p § registry.corp.io",
    password(),
)
secret(
    F,
    "https://github.com/containers/skopeo/blob/main/docs/skopeo-copy.1.md",
    "skopeo copy --dest-creds mirror:§ docker://alpine:3.20 docker://registry.corp.io/mirror/alpine:3.20",
    password(),
)
secret(F, "https://oras.land/docs/commands/oras_login", "oras login -u ci -p § ghcr.io", password())
secret(
    F,
    "https://regclient.org/cli/regctl/registry/login/",
    "regctl registry login registry.corp.io -u ci --pass §",
    password(),
)
secret(
    F,
    "https://valkey.io/topics/cli/",
    "valkey-cli -h cache01 -p 6379 -a § --no-auth-warning INFO replication",
    password(20),
)
secret(
    F,
    "https://httpie.io/docs/cli/basic-auth",
    "http -a ops:§ PUT https://api.acme.io/v2/flags/beta enabled:=true",
    password(),
)
secret(
    F,
    "https://modal.com/docs/reference/cli/token",
    "modal token set --token-id ak-" + pick(ALNUM, 22) + " --token-secret §",
    "as-" + pick(ALNUM, 22),
)

# -- source literals -----------------------------------------------------------------------------

L = "source literal"
secret(
    L,
    "https://docs.nestjs.com/security/authentication#jwt-token",
    "JwtModule.register({\n  global: true,\n  secret: '§',\n  signOptions: { expiresIn: '60s' },\n})",
    pick(ALNUM, 32),
)
secret(
    L,
    "https://expressjs.com/en/resources/middleware/session.html",
    "app.use(session({ secret: '§', resave: false, saveUninitialized: true }))",
    pick(ALNUM + SYMBOLS, 28),
)
secret(L, "https://koajs.com/#app-keys-", "app.keys = ['§', 'im a newer secret'];", pick(ALNUM, 30))
secret(
    L,
    "https://github.com/fastify/fastify-cookie#options",
    "fastify.register(require('@fastify/cookie'), { secret: \"§\" })",
    pick(ALNUM, 32),
)
secret(
    L,
    "https://codeigniter.com/user_guide/libraries/encryption.html",
    "public string $key = 'hex2bin:§';",
    hexs(64),
)
secret(
    L,
    "https://book.cakephp.org/5/en/development/configuration.html",
    "'Security' => [\n    'salt' => env('SECURITY_SALT', '§'),\n],",
    hexs(64),
)
secret(
    L,
    "https://www.yiiframework.com/doc/guide/2.0/en/security-cryptography",
    "'request' => [\n    'cookieValidationKey' => '§',\n],",
    pick(URLSAFE, 32),
)
secret(
    L,
    "https://www.drupal.org/docs/getting-started/installing-drupal/step-3-create-settingsphp-and-the-files-directory",
    "$settings['hash_salt'] = '§';",
    b64url(55),
)
secret(
    L,
    "https://docs.joomla.org/Configuration.php",
    "\tpublic $password = '§';\n\tpublic $db = 'joomla_prod';",
    password(),
)
secret(L, "https://www.mediawiki.org/wiki/Manual:$wgSecretKey", '$wgSecretKey = "§";', hexs(64))
secret(
    L,
    "https://www.phpbb.com/support/docs/en/3.3/kb/article/rebuilding-config.php/",
    "$dbuser = 'phpbb';\n$dbpasswd = '§';",
    password(),
)
secret(
    L,
    "https://experienceleague.adobe.com/en/docs/commerce-operations/configuration-guide/files/config-reference-envphp",
    "'crypt' => [\n    'key' => 'base64§'\n],",
    b64(32),
)
secret(
    L,
    "https://ktor.io/docs/server-jwt.html",
    'val token = JWT.create().withAudience(audience).withIssuer(issuer).sign(Algorithm.HMAC256("§"))',
    pick(ALNUM, 32),
)
secret(
    L,
    "https://superset.apache.org/docs/configuration/configuring-superset/",
    "# superset_config.py\nSECRET_KEY = '§'",
    b64(42),
)
secret(
    L,
    "https://learn.microsoft.com/en-us/dotnet/api/system.net.networkcredential",
    'client.Credentials = new NetworkCredential("svc_mail", "§");',
    password(),
)
secret(
    L,
    "https://pkg.go.dev/net/smtp#PlainAuth",
    'auth := smtp.PlainAuth("", "alerts@acme.io", "§", "smtp.acme.io")',
    password(),
)
secret(
    L,
    "https://docs.rs/reqwest/latest/reqwest/struct.RequestBuilder.html#method.basic_auth",
    'let resp = client.get(url).basic_auth("exporter", Some("§")).send().await?;',
    password(),
)
secret(
    L,
    "https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/net/PasswordAuthentication.html",
    'return new PasswordAuthentication("proxyuser", "§".toCharArray());',
    password(),
)
secret(
    L,
    "https://ruby-doc.org/3.3/gems/net-smtp/Net/SMTP.html",
    "Net::SMTP.start('smtp.acme.io', 587, 'acme.io', 'mailer', '§', :plain) do |smtp|",
    password(),
)

# -- config files --------------------------------------------------------------------------------

G = "config file"
secret(
    G,
    "https://element-hq.github.io/synapse/latest/usage/configuration/config_documentation.html#registration_shared_secret",
    'enable_registration: false\nregistration_shared_secret: "§"',
    pick(ALNUM + "~;:.,=", 50),
)
secret(
    G,
    "https://element-hq.github.io/synapse/latest/usage/configuration/config_documentation.html#macaroon_secret_key",
    'macaroon_secret_key: "§"\nform_secret: "' + pick(ALNUM, 50) + '"',
    pick(ALNUM + "~.#", 50),
)
secret(
    G, "https://docs.joinmastodon.org/admin/config/#secret_key_base", "SECRET_KEY_BASE=§", hexs(128)
)
secret(G, "https://docs.joinmastodon.org/admin/config/#otp_secret", "OTP_SECRET=§", hexs(128))
secret(
    G, "https://docs.joinmastodon.org/admin/config/#vapid", "VAPID_PRIVATE_KEY=§", b64url(32) + "="
)
secret(
    G,
    "https://www.authelia.com/configuration/identity-validation/reset-password/",
    "identity_validation:\n  reset_password:\n    jwt_secret: '§'",
    pick(ALNUM, 64),
)
secret(
    G,
    "https://www.authelia.com/configuration/storage/introduction/",
    "storage:\n  encryption_key: §\n  local:\n    path: /config/db.sqlite3",
    pick(ALNUM, 64),
)
secret(
    G,
    "https://github.com/dani-garcia/vaultwarden/wiki/Enabling-admin-page",
    "ADMIN_TOKEN=§",
    b64(48),
)
secret(
    G,
    "https://docs.paperless-ngx.com/configuration/#PAPERLESS_SECRET_KEY",
    "PAPERLESS_SECRET_KEY=§",
    pick(ALNUM + "!^-_", 50),
)
secret(
    G,
    "https://docs.gitea.com/administration/config-cheat-sheet#security-security",
    "[security]\nINSTALL_LOCK = true\nINTERNAL_TOKEN = §",
    jwt(),
)
secret(
    G,
    "https://docs.gitea.com/administration/config-cheat-sheet#database-database",
    "[database]\nDB_TYPE = postgres\nHOST = 127.0.0.1:5432\nUSER = gitea\nPASSWD = `§`",
    password(),
)
secret(
    G,
    "https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/config_sample_php_parameters.html",
    "  'dbuser' => 'nextcloud',\n  'dbpassword' => '§',",
    password(),
)
secret(
    G,
    "https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/config_sample_php_parameters.html",
    "  'passwordsalt' => '" + pick(ALNUM + "/+", 30) + "',\n  'secret' => '§',",
    pick(ALNUM + "/+", 48),
)
secret(
    G,
    "https://github.com/transmission/transmission/blob/main/docs/Editing-Configuration-Files.md",
    '    "rpc-authentication-required": true,\n    "rpc-password": "§",\n    "rpc-username": "admin",',
    password(),
)
secret(
    G,
    "https://docs.syncthing.net/users/config.html",
    '<gui enabled="true" tls="false">\n    <address>127.0.0.1:8384</address>\n    <apikey>§</apikey>\n</gui>',
    pick(ALNUM, 32),
)
secret(
    G,
    "https://wiki.servarr.com/sonarr/faq",
    "<Config>\n  <Port>8989</Port>\n  <ApiKey>§</ApiKey>\n</Config>",
    hexs(32),
)
secret(
    G,
    "https://prometheus.io/docs/prometheus/latest/configuration/configuration/#scrape_config",
    "  - job_name: node\n    basic_auth:\n      username: prom\n      password: §",
    password(),
)
secret(
    G,
    "https://prometheus.io/docs/alerting/latest/configuration/",
    "global:\n  smtp_smarthost: 'smtp.acme.io:587'\n  smtp_auth_username: 'alerts@acme.io'\n  smtp_auth_password: '§'",
    password(),
)
secret(
    G,
    "https://docs.influxdata.com/telegraf/v1/output-plugins/influxdb_v2/",
    '[[outputs.influxdb_v2]]\n  urls = ["http://influx:8086"]\n  token = "§"\n  organization = "ops"',
    b64(64),
)
secret(
    G,
    "https://www.zabbix.com/documentation/current/en/manual/appendix/config/zabbix_server",
    "DBHost=localhost\nDBName=zabbix\nDBUser=zabbix\nDBPassword=§",
    password(),
)
secret(
    G,
    "https://go2docs.graylog.org/current/setting_up_graylog/server.conf.html",
    "password_secret = §",
    pick(ALNUM, 96),
)
secret(
    G,
    "https://docs.fluentbit.io/manual/pipeline/outputs/http",
    "[OUTPUT]\n    Name        http\n    Host        logs.acme.io\n    HTTP_User   fluent\n    HTTP_Passwd §",
    password(),
)
secret(
    G,
    "https://docs.crowdsec.net/u/bouncers/firewall",
    "api_url: http://127.0.0.1:8080/\napi_key: §",
    pick(ALNUM + "+/", 32),
)
secret(
    G,
    "https://w1.fi/cgit/hostap/plain/hostapd/hostapd.conf",
    "ssid=Guest-Lobby\nwpa=2\nwpa_key_mgmt=WPA-PSK\nwpa_passphrase=§",
    password(14),
)
secret(
    G,
    "https://networkmanager.dev/docs/api/latest/nm-settings-keyfile.html",
    "[wifi-security]\nkey-mgmt=wpa-psk\npsk=§",
    password(14),
)
secret(
    G,
    "https://iwd.wiki.kernel.org/networkconfigurationsettings",
    "[Security]\nPassphrase=§",
    password(14),
)
secret(
    G,
    "https://docs.ceph.com/en/latest/rados/operations/user-management/#keyring-management",
    '[client.rbd-mirror]\n\tkey = §\n\tcaps mon = "profile rbd-mirror"',
    "AQ" + b64(38)[:38],
)
secret(
    G,
    "https://linbit.com/drbd-user-guide/drbd-guide-9_0-en/#s-configure-net",
    'net {\n    cram-hmac-alg sha1;\n    shared-secret "§";\n}',
    password(),
)
secret(
    G,
    "https://cloudinit.readthedocs.io/en/latest/reference/modules.html#set-passwords",
    "chpasswd:\n  expire: false\n  users:\n    - name: ubuntu\n      password: §\n      type: text",
    password(),
)
secret(
    G,
    "https://pykickstart.readthedocs.io/en/latest/kickstart-docs.html#rootpw",
    "lang en_US.UTF-8\nrootpw --plaintext §\ntimezone Europe/Berlin",
    password(),
)
secret(
    G,
    "https://www.debian.org/releases/stable/amd64/apbs04.en.html#preseed-account",
    "d-i passwd/user-password password §\nd-i passwd/user-password-again password §",
    password(),
)
secret(
    G,
    "https://learn.microsoft.com/en-us/windows-hardware/customize/desktop/unattend/microsoft-windows-shell-setup-useraccounts-administratorpassword",
    "<AdministratorPassword>\n    <Value>§</Value>\n    <PlainText>true</PlainText>\n</AdministratorPassword>",
    password(),
)
secret(
    G,
    "https://isync.sourceforge.io/mbsync.html",
    "IMAPAccount work\nHost imap.fastmail.com\nUser jdoe@fastmail.com\nPass §\nTLSType IMAPS",
    password(),
)
secret(
    G,
    "https://www.offlineimap.org/doc/offlineimap.html",
    "[Repository Remote]\ntype = IMAP\nremoteuser = jdoe\nremotepass = §",
    password(),
)
secret(
    G,
    "https://www.fetchmail.info/fetchmail-man.html#the-run-control-file",
    'poll pop.acme.io protocol pop3 user "jdoe" password "§" is jdoe here',
    password(),
)
secret(
    G,
    "https://neomutt.org/guide/reference#smtp-pass",
    'set smtp_url = "smtp://jdoe@smtp.acme.io:587/"\nset smtp_pass = "§"',
    password(),
)
secret(
    G,
    "https://aria2.github.io/manual/en/html/aria2c.html#aria2-conf",
    "enable-rpc=true\nrpc-listen-port=6800\nrpc-secret=§",
    pick(ALNUM, 24),
)
secret(
    G,
    "https://s3tools.org/kb/item14.htm",
    "[default]\naccess_key = AKIA"
    + pick(UPPER + DIGITS, 16)
    + "\nsecret_key = §\nhost_base = s3.amazonaws.com",
    pick(ALNUM + "+/", 40),
)
secret(
    G, "https://www.kaggle.com/docs/api#authentication", '{"username":"jdoe","key":"§"}', hexs(32)
)
secret(
    G,
    "https://clear.ml/docs/latest/docs/configs/clearml_conf",
    'api {\n    credentials {\n        "access_key" = "'
    + pick(UPPER + DIGITS, 30)
    + '"\n        "secret_key" = "§"\n    }\n}',
    pick(ALNUM, 50),
)
secret(
    G,
    "https://www.home-assistant.io/docs/configuration/secrets/",
    "# secrets.yaml\nmqtt_password: §\nlatitude_home: 52.37",
    password(),
)
secret(
    G,
    "https://nodered.org/docs/user-guide/runtime/securing-node-red",
    'module.exports = {\n    credentialSecret: "§",\n    uiPort: 1880,',
    password(24),
)
secret(
    G,
    "https://goharbor.io/docs/2.11.0/install-config/configure-yml-file/",
    "hostname: registry.corp.io\nharbor_admin_password: §\ndatabase:\n  password: " + password(),
    password(),
)
secret(
    G,
    "https://www.odoo.com/documentation/17.0/administration/on_premise/deploy.html",
    "[options]\nadmin_passwd = §\ndb_host = localhost\ndb_user = odoo",
    password(),
)
secret(
    G,
    "https://docs.sonarsource.com/sonarqube-server/latest/setup-and-upgrade/configure-and-operate-a-server/environment-variables/",
    "sonar.jdbc.username=sonar\nsonar.jdbc.password=§",
    password(),
)
secret(
    G,
    "https://weechat.org/files/doc/weechat/stable/weechat_user.en.html#irc_sasl_authentication",
    '/set irc.server.libera.sasl_username "jdoe"\n/set irc.server.libera.sasl_password "§"',
    password(),
)

# -- CI and YAML ---------------------------------------------------------------------------------

Y = "ci and yaml"
secret(
    Y,
    "https://www.appveyor.com/docs/environment-variables/",
    "environment:\n  NUGET_FEED: https://nuget.corp.io/v3/index.json\n  NUGET_API_KEY: §",
    "oy2" + pick(LOWER + DIGITS, 43),
)
secret(
    Y,
    "https://docs.semaphoreci.com/reference/pipeline-yaml#env_vars",
    "    env_vars:\n      - name: DATABASE_PASSWORD\n        value: §",
    password(),
)
secret(
    Y,
    "https://tekton.dev/docs/pipelines/auth/",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: git-basic\n  annotations:\n    tekton.dev/git-0: https://github.com\ntype: kubernetes.io/basic-auth\nstringData:\n  username: ci-bot\n  password: §",
    "ghp_" + pick(ALNUM, 36),
)
secret(
    Y,
    "https://argo-workflows.readthedocs.io/en/latest/fields/",
    '      container:\n        image: postgres:16\n        env:\n          - name: PGPASSWORD\n            value: "§"',
    password(),
)
secret(
    Y,
    "https://cloud.google.com/build/docs/build-config-file-schema#env",
    "steps:\n- name: 'gcr.io/cloud-builders/npm'\n  args: ['publish']\n  env:\n  - 'NPM_TOKEN=§'",
    "npm_" + pick(ALNUM, 36),
)
secret(
    Y,
    "https://docs.aws.amazon.com/codebuild/latest/userguide/build-spec-ref.html#build-spec.env.variables",
    'version: 0.2\nenv:\n  variables:\n    SONAR_TOKEN: "§"\nphases:\n  build:\n    commands:\n      - mvn verify sonar:sonar',
    "squ_" + hexs(40),
)
secret(
    Y,
    "https://docs.earthly.dev/docs/earthfile#env",
    "build:\n    FROM node:20\n    ENV SENTRY_AUTH_TOKEN=§\n    RUN npm run build",
    "sntryu_" + hexs(64),
)
secret(
    Y,
    "https://taskfile.dev/usage/#environment-variables",
    "version: '3'\nenv:\n  PULUMI_CONFIG_PASSPHRASE: §\ntasks:\n  up:\n    cmds: [pulumi up --yes]",
    password(20),
)
secret(
    Y,
    "https://containers.dev/implementors/json_reference/#general-properties",
    '"containerEnv": {\n    "OPENAI_API_KEY": "§"\n}',
    "sk-proj-" + pick(URLSAFE, 48),
)
secret(
    Y,
    "https://www.gitpod.io/docs/configure/workspaces/tasks",
    "tasks:\n  - init: npm ci\n    command: DB_PASSWORD=§ npm run dev",
    password(),
)
secret(
    Y,
    "https://skaffold.dev/docs/builders/builder-types/docker/",
    "build:\n  artifacts:\n  - image: api\n    docker:\n      buildArgs:\n        GH_PACKAGES_TOKEN: §",
    "ghp_" + pick(ALNUM, 36),
)
secret(
    Y,
    "https://helmfile.readthedocs.io/en/latest/#configuration",
    "releases:\n- name: keycloak-db\n  chart: bitnami/postgresql\n  set:\n  - name: auth.postgresPassword\n    value: §",
    password(),
)
secret(
    Y,
    "https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/secretgenerator/",
    "secretGenerator:\n- name: app-creds\n  literals:\n  - username=app\n  - password=§",
    password(),
)
secret(
    Y,
    "https://docs.dagger.io/api/secrets",
    'token = dag.set_secret("gh", "§")',
    "github_pat_" + pick(ALNUM, 22) + "_" + pick(ALNUM, 59),
)
secret(
    Y,
    "https://www.serverless.com/framework/docs/providers/aws/guide/variables",
    "provider:\n  name: aws\n  environment:\n    STRIPE_SECRET_KEY: §",
    "sk_live_" + pick(ALNUM, 99),
)
secret(
    Y,
    "https://docs.drone.io/pipeline/environment/syntax/",
    "steps:\n- name: notify\n  image: plugins/webhook\n  settings:\n    password: §",
    password(),
)

# -- log lines -----------------------------------------------------------------------------------

LG = "log line"
secret(
    LG,
    "https://caddyserver.com/docs/logging",
    '{"level":"info","ts":1764838447.1,"logger":"http.log.access","msg":"handled request","request":{"method":"GET","uri":"/api/me","headers":{"Authorization":["Bearer §"]}},"status":200}',
    jwt(),
)
secret(
    LG,
    "https://www.envoyproxy.io/docs/envoy/latest/configuration/observability/access_log/usage",
    '[2026-12-04T09:12:44.310Z] "GET /v1/orders HTTP/1.1" 200 - 0 512 14 12 "-" "curl/8.5.0" "9f1c-4a" "orders" "10.0.3.7:8080" x-api-key=§',
    pick(ALNUM, 40),
)
secret(
    LG,
    "https://wiki.squid-cache.org/Features/LogFormat",
    "1764838447.512    231 10.0.5.23 TCP_MISS/200 4012 GET http://maps.internal/api/tiles?apikey=§&z=12 - HIER_DIRECT/10.0.9.4 application/json",
    pick(ALNUM, 32),
)
secret(
    LG,
    "https://www.uvicorn.org/settings/#logging",
    'INFO:     10.0.0.14:53122 - "GET /export?token=§ HTTP/1.1" 200 OK',
    pick(URLSAFE, 43),
)
secret(
    LG,
    "https://docs.celeryq.dev/en/stable/getting-started/first-steps-with-celery.html",
    "[config]\n.> app:         tasks:0x7f3c\n.> transport:   amqp://worker:§@rabbit01:5672//\n.> results:     redis://cache01:6379/1",
    password(),
)
secret(
    LG,
    "https://www.freedesktop.org/software/systemd/man/latest/journalctl.html",
    "Dec 04 09:14:07 build02 sudo[41822]:   jenkins : TTY=unknown ; PWD=/var/lib/jenkins ; USER=root ; COMMAND=/usr/bin/mysqldump -u backup -p§ --all-databases",
    password(),
)
secret(
    LG,
    "https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/",
    '{"kind":"Event","verb":"create","objectRef":{"resource":"secrets","name":"smtp"},"requestObject":{"kind":"Secret","stringData":{"SMTP_PASSWORD":"§"}}}',
    password(),
)
secret(
    LG,
    "https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/logging_configuration.html",
    '{"reqId":"Yx2kLq","level":3,"app":"user_ldap","method":"POST","message":"Bind failed","exception":{"args":["cn=svc-nc,ou=svc,dc=corp","§"]}}',
    password(),
)
secret(
    LG,
    "https://www.home-assistant.io/integrations/logger/",
    "2026-12-04 09:15:02.113 ERROR (MainThread) [homeassistant.components.rest] Error fetching data: https://api.weather.corp/v1/now?appid=§ failed with 401",
    hexs(32),
)
secret(
    LG,
    "https://docs.gitea.com/administration/logging-config",
    "2026/12/04 09:16:11 ...routers/web/repo/http.go:512:serviceRPC() [E] Fail to serve RPC(upload-pack) in /data/git/a.git: remote: https://mirror:§@git.upstream.io/a.git",
    "glpat-" + pick(URLSAFE, 20),
)
secret(
    LG,
    "https://docs.fluentbit.io/manual/pipeline/outputs/standard-output",
    '[0] app.auth: [1764838447.000000000, {"event"=>"login", "user"=>"jdoe", "password"=>"§"}]',
    password(),
)
secret(
    LG,
    "https://vector.dev/docs/reference/configuration/sinks/console/",
    '{"host":"web03","message":"POST /oauth/token grant_type=client_credentials&client_id=svc-report&client_secret=§","timestamp":"2026-12-04T09:17:03Z"}',
    pick(URLSAFE, 40),
)
secret(
    LG,
    "https://github.com/sidekiq/sidekiq/wiki/Logging",
    "2026-12-04T09:18:21.554Z pid=812 tid=ox4 class=SyncCrmJob jid="
    + hexs(24)
    + ' INFO: args=["acct_81", {"api_token"=>"§"}]',
    "pat-eu1-" + uid(),
)

# -- encodings -----------------------------------------------------------------------------------

E = "encoding"
pw = password()
secret(
    E,
    "https://kubernetes.io/docs/concepts/configuration/secret/#editing-a-secret",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: zabbix-db\ndata:\n  DB_PASSWORD: §",
    base64.b64encode(pw.encode()).decode(),
)
secret(
    E,
    "https://www.json.org/json-en.html",
    'payload = "{\\"grant_type\\":\\"password\\",\\"username\\":\\"svc\\",\\"password\\":\\"§\\"}"',
    password(),
)
secret(
    E,
    "https://262.ecma-international.org/#sec-literals-string-literals",
    'const cfg = "\\u0022api_key\\u0022:\\u0022§\\u0022";',
    pick(ALNUM, 32),
)
secret(
    E,
    "https://www.w3.org/TR/xml/#sec-predefined-ent",
    '<setting name="Credentials" value="{&quot;user&quot;:&quot;svc&quot;,&quot;password&quot;:&quot;§&quot;}" />',
    password(),
)
secret(
    E,
    "https://datatracker.ietf.org/doc/html/rfc3986#section-2.1",
    "POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nusername=jdoe&password=§",
    quote(password() + "&=", safe=""),
)
secret(
    E,
    "https://learn.microsoft.com/en-us/powershell/module/microsoft.powershell.core/about/about_pwsh#-encodedcommand--e--ec",
    "pwsh -NoProfile -EncodedCommand §",
    base64.b64encode(
        ("$p = ConvertTo-SecureString '" + password() + "' -AsPlainText -Force").encode("utf-16-le")
    ).decode(),
)
secret(
    E,
    "https://docs.python.org/3/reference/lexical_analysis.html#escape-sequences",
    "token = b'§'.decode()",
    "".join(f"\\x{b:02x}" for b in ("tvly-" + pick(ALNUM, 24)).encode()),
)
secret(
    E,
    "https://www.gnu.org/software/bash/manual/bash.html#Escape-Character",
    "export SANITY_API_TOKEN=§",
    "sk" + pick(ALNUM, 40) + "\\\n" + pick(ALNUM, 40),
)
secret(
    E,
    "https://yaml.org/spec/1.2.2/#folded-style",
    "deepgram:\n  api_key: >-\n    §",
    hexs(20) + "\n    " + hexs(20),
)
token = jwt()
secret(
    E,
    "https://datatracker.ietf.org/doc/html/rfc7519",
    "Authorization: Bearer §",
    token[:60] + "\n " + token[60:],
)
secret(
    E,
    "https://datatracker.ietf.org/doc/html/rfc3986#section-2.4",
    "GET /cb?next=%2Fhook%3Ftoken%3D§ HTTP/1.1",
    quote(quote("tk_" + pick(LOWER + DIGITS, 29), safe=""), safe=""),
)
secret(
    E,
    "https://docs.python.org/3/library/functions.html#repr",
    "DEBUG settings: {'DATABASES': {'default': {'USER': 'app', 'PASSWORD': '§', 'HOST': 'db'}}}",
    password(8) + "\\'" + password(8),
)
secret(
    E,
    "https://www.rfc-editor.org/rfc/rfc4648#section-4",
    "echo § | base64 -d > ~/.config/rclone/pass",
    base64.b64encode(("pass=" + password()).encode()).decode(),
)

# -- other languages -----------------------------------------------------------------------------

N = "other language"
secret(N, "https://en.wiktionary.org/wiki/パスワード", "サーバーのパスワード: §", password())
secret(N, "https://en.wiktionary.org/wiki/비밀번호", "관리자 비밀번호는 § 입니다", password())
secret(N, "https://en.wiktionary.org/wiki/senha", "usuário: admin / senha: §", password())
secret(
    N,
    "https://en.wiktionary.org/wiki/mot_de_passe",
    "Le mot de passe du compte de service est « § ».",
    password(),
)
secret(
    N,
    "https://en.wiktionary.org/wiki/password",
    "la password del database è §, non condividerla",
    password(),
)
secret(N, "https://en.wiktionary.org/wiki/şifre", "Wi-Fi şifresi: §", password(12))
secret(N, "https://en.wiktionary.org/wiki/hasło", "hasło do VPN: §", password())
secret(N, "https://en.wiktionary.org/wiki/mật_khẩu", "mật khẩu quản trị: §", password())
secret(N, "https://en.wiktionary.org/wiki/wachtwoord", "wachtwoord = §", password())
secret(N, "https://en.wiktionary.org/wiki/كلمة_المرور", "كلمة المرور: §", password())
secret(N, "https://en.wiktionary.org/wiki/heslo", "heslo k databázi je §", password())
secret(N, "https://en.wiktionary.org/wiki/lösenord", "lösenord: §", password())
secret(N, "https://en.wiktionary.org/wiki/κωδικός_πρόσβασης", "κωδικός πρόσβασης: §", password())
secret(N, "https://en.wiktionary.org/wiki/密钥", "API 密钥：§", pick(ALNUM, 32))

# -- signing and build tools ---------------------------------------------------------------------

S = "signing and build tools"
secret(
    S,
    "https://docs.sigstore.dev/cosign/signing/signing_with_containers/",
    "COSIGN_PASSWORD=§ cosign sign --key cosign.key registry.corp.io/api@sha256:" + hexs(64),
    password(),
)
secret(
    S,
    "https://v2.tauri.app/plugin/updater/#signing-updates",
    "export TAURI_SIGNING_PRIVATE_KEY_PASSWORD=§\nnpm run tauri build",
    password(),
)
secret(
    S,
    "https://v2.tauri.app/plugin/updater/#signing-updates",
    "TAURI_SIGNING_PRIVATE_KEY=§",
    base64.b64encode(
        ("untrusted comment: rsign encrypted secret key\nRWRTY0Iy" + b64(150)).encode()
    ).decode(),
)
secret(
    S,
    "https://github.com/mtrojnar/osslsigncode#usage",
    "osslsigncode sign -pkcs12 codesign.pfx -pass § -t http://timestamp.digicert.com -in app.exe -out app-signed.exe",
    password(),
)
secret(
    S,
    "https://ebourg.github.io/jsign/",
    "jsign --keystore codesign.p12 --storepass § --alias release --tsaurl http://timestamp.sectigo.com app.exe",
    password(),
)
secret(
    S, "https://github.com/sbt/sbt-ci-release#gpg", "PGP_PASSPHRASE=§ sbt ci-release", password()
)
secret(
    S,
    "https://github.com/FiloSottile/age#usage",
    "# created: 2026-12-04T09:20:11Z\n# public key: age1"
    + pick("023456789acdefghjklmnpqrstuvwxyz", 58)
    + "\n§",
    "AGE-SECRET-KEY-1" + pick("023456789ACDEFGHJKLMNPQRSTUVWXYZ", 58),
)
secret(
    S,
    "https://github.com/nostr-protocol/nips/blob/master/19.md",
    "NOSTR_PRIVATE_KEY=§",
    "nsec1" + pick("023456789acdefghjklmnpqrstuvwxyz", 58),
)
secret(
    S,
    "https://hardhat.org/hardhat-runner/docs/config#networks-configuration",
    'networks: { sepolia: { url: SEPOLIA_RPC, accounts: ["§"] } }',
    "0x" + hexs(64),
)
secret(
    S,
    "https://sparkle-project.org/documentation/eddsa-migration/",
    "./bin/sign_update -s § MyApp-2.4.dmg",
    b64(32),
)

# -- look-alikes: hashes and digests -------------------------------------------------------------

LH = "look-alike: hashes and digests"
benign(
    LH,
    "https://docs.docker.com/reference/cli/docker/image/pull/#pull-an-image-by-digest-immutable-identifier",
    "docker pull ghcr.io/paperless-ngx/paperless-ngx@§",
    "sha256:" + hexs(64),
    "an image digest names public content",
)
benign(
    LH,
    "https://nix.dev/manual/nix/2.24/language/builtins.html#builtins-fetchTarball",
    'src = fetchTarball { url = "https://github.com/NixOS/nixpkgs/archive/nixos-24.11.tar.gz"; sha256 = "§"; };',
    pick("0123456789abcdfghijklmnpqrsvwxyz", 52),
    "a Nix content hash of a public tarball",
)
benign(
    LH,
    "https://go.dev/ref/mod#go-sum-files",
    "github.com/stretchr/testify v1.9.0 §",
    "h1:" + b64(32),
    "a go.sum module hash",
)
benign(
    LH,
    "https://doc.rust-lang.org/cargo/guide/cargo-toml-vs-cargo-lock.html",
    '[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "§"',
    hexs(64),
    "a Cargo.lock checksum of a published crate",
)
benign(
    LH,
    "https://pip.pypa.io/en/stable/topics/secure-installs/#hash-checking-mode",
    "requests==2.32.3 \\\n    --hash=§",
    "sha256:" + hexs(64),
    "a pip hash pin of a public wheel",
)
benign(
    LH,
    "https://classic.yarnpkg.com/en/docs/yarn-lock",
    'lodash@^4.17.21:\n  version "4.17.21"\n  integrity §',
    "sha512-" + b64(64),
    "a lockfile integrity string",
)
benign(
    LH,
    "https://developer.hashicorp.com/terraform/language/files/dependency-lock",
    'provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.80.0"\n  hashes = [\n    "§",\n  ]\n}',
    "h1:" + b64(32),
    "a provider package hash in the dependency lock file",
)
benign(
    LH,
    "https://bazel.build/rules/lib/repo/http",
    'http_archive(\n    name = "rules_python",\n    sha256 = "§",\n    strip_prefix = "rules_python-0.40.0",\n)',
    hexs(64),
    "the checksum of a public archive",
)
benign(
    LH,
    "https://docs.brew.sh/Formula-Cookbook",
    'url "https://github.com/BurntSushi/ripgrep/archive/refs/tags/14.1.1.tar.gz"\n  sha256 "§"',
    hexs(64),
    "a Homebrew formula checksum",
)
benign(
    LH,
    "https://git-scm.com/docs/git-log",
    "commit §\nAuthor: Jane Doe <jane@acme.io>\n\n    fix: retry on 503",
    hexs(40),
    "a git commit id",
)
benign(
    LH,
    "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/ETag",
    'HTTP/1.1 200 OK\nETag: "§"\nCache-Control: max-age=3600',
    hexs(32),
    "an ETag of a public response",
)
benign(
    LH,
    "https://docs.gradle.org/current/userguide/dependency_verification.html",
    '<component group="com.google.guava" name="guava" version="33.3.1-jre">\n   <artifact name="guava-33.3.1-jre.jar">\n      <sha256 value="§" origin="Generated by Gradle"/>',
    hexs(64),
    "a dependency verification checksum",
)
benign(
    LH,
    "https://git-lfs.com/spec/v1",
    "version https://git-lfs.github.com/spec/v1\noid sha256:§\nsize 48213",
    hexs(64),
    "a Git LFS object id",
)
benign(
    LH,
    "https://github.com/BLAKE3-team/BLAKE3#usage",
    "$ b3sum release.tar.zst\n§  release.tar.zst",
    hexs(64),
    "a BLAKE3 checksum of a release",
)
benign(
    LH,
    "https://www.gnu.org/software/coreutils/manual/html_node/md5sum-invocation.html",
    "§  ubuntu-24.04.1-live-server-amd64.iso",
    hexs(32),
    "an MD5 checksum of a public ISO",
)
benign(
    LH,
    "https://helm.sh/docs/helm/helm_pull/",
    "Pulled: registry.corp.io/charts/api:1.4.2\nDigest: §",
    "sha256:" + hexs(64),
    "an OCI chart digest",
)
benign(
    LH,
    "https://wiki.debian.org/DebianRepository/Format#MD5Sum.2C_SHA1.2C_SHA256",
    "SHA256:\n §  1284520 main/binary-amd64/Packages.xz",
    hexs(64),
    "a checksum in a public repository's Release file",
)
benign(
    LH,
    "https://docs.sigstore.dev/cosign/verifying/verify/",
    "Verification for registry.corp.io/api@§ --\nThe following checks were performed on each of these signatures:",
    "sha256:" + hexs(64),
    "a signed image's digest in cosign's output",
)

# -- look-alikes: ids and uuids ------------------------------------------------------------------

LI = "look-alike: ids and uuids"
benign(
    LI,
    "https://docs.syncthing.net/dev/device-ids.html",
    '<device id="§" name="nas" compression="metadata">',
    "-".join(pick(UPPER + "234567", 7) for _ in range(8)),
    "a Syncthing device id is public by design",
)
benign(
    LI,
    "https://spec.matrix.org/latest/appendices/#room-ids",
    'room_id: "§"',
    "!" + pick(ALNUM, 18) + ":matrix.org",
    "a Matrix room id",
)
benign(
    LI,
    "https://spec.matrix.org/latest/appendices/#event-ids",
    '{"event_id": "§", "type": "m.room.message"}',
    "$" + b64url(32),
    "a Matrix event id",
)
benign(
    LI,
    "https://www.w3.org/TR/trace-context/#traceparent-header",
    "traceparent: §",
    "00-" + hexs(32) + "-" + hexs(16) + "-01",
    "a W3C trace context header",
)
benign(
    LI,
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids",
    "metadata:\n  name: api-7c9f\n  uid: §",
    uid(),
    "a Kubernetes object uid",
)
benign(
    LI,
    "https://docs.sentry.io/product/issues/issue-details/",
    "Sentry event id: §",
    hexs(32),
    "a Sentry event id",
)
benign(
    LI,
    "https://github.com/ulid/spec",
    'order_id = "§"',
    pick("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26),
    "a ULID",
)
benign(LI, "https://github.com/segmentio/ksuid", "ksuid: §", pick(ALNUM, 27), "a KSUID")
benign(
    LI,
    "https://developer.hashicorp.com/terraform/cloud-docs/api-docs/workspaces",
    'workspace_id = "ws-§"',
    pick(ALNUM, 16),
    "a Terraform workspace id",
)
benign(
    LI,
    "https://developer.hashicorp.com/terraform/cloud-docs/api-docs/run",
    "Run run-§ queued for workspace prod-network",
    pick(ALNUM, 16),
    "a Terraform run id",
)
benign(
    LI,
    "https://cloud.google.com/build/docs/view-build-results",
    "BUILD ID: §\nSTATUS: SUCCESS",
    uid(),
    "a Cloud Build id",
)
benign(
    LI,
    "https://docs.docker.com/reference/cli/docker/container/ls/",
    "$ docker ps --no-trunc -q\n§",
    hexs(64),
    "a container id",
)
benign(
    LI,
    "https://elevenlabs.io/docs/api-reference/text-to-speech/convert",
    'curl https://api.elevenlabs.io/v1/text-to-speech/§ -H "xi-api-key: $ELEVENLABS_API_KEY"',
    pick(ALNUM, 20),
    "a voice id names a public voice",
)
benign(
    LI,
    "https://replicate.com/docs/reference/http#predictions.get",
    '{"id": "§", "model": "black-forest-labs/flux-schnell", "status": "succeeded"}',
    pick(LOWER + DIGITS, 26),
    "a prediction id",
)
benign(
    LI,
    "https://docs.langchain.com/langsmith/observability-concepts",
    "run_id: §  parent_run_id: null",
    uid(),
    "a trace run id",
)
benign(
    LI,
    "https://developers.deepgram.com/docs/metadata",
    '"metadata": {"request_id": "§", "channels": 1}',
    uid(),
    "a Deepgram request id",
)
benign(
    LI,
    "https://developers.hubspot.com/docs/api/overview",
    "https://app.hubspot.com/contacts/§/objects/0-1/views/all/list",
    pick(DIGITS, 8),
    "a HubSpot portal id",
)
benign(
    LI,
    "https://developers.asana.com/docs/object-hierarchy",
    '{"data": {"gid": "§", "resource_type": "task"}}',
    pick(DIGITS, 16),
    "an Asana object gid",
)
benign(
    LI,
    "https://octopus.com/docs/octopus-rest-api/examples/deployments",
    "GET /api/Spaces-1/deployments/Deployments-§",
    pick(DIGITS, 5),
    "an Octopus resource id",
)
benign(
    LI,
    "https://docs.aws.amazon.com/xray/latest/devguide/xray-api-sendingdata.html#xray-api-traceids",
    "X-Amzn-Trace-Id: Root=§",
    "1-" + hexs(8) + "-" + hexs(24),
    "an X-Ray trace id",
)
benign(
    LI,
    "https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/config_sample_php_parameters.html#instanceid",
    "  'instanceid' => '§',",
    "oc" + pick(LOWER + DIGITS, 10),
    "Nextcloud's instance id names the installation, not a credential",
)

# -- look-alikes: public keys and client-side keys ------------------------------------------------

LP = "look-alike: public keys and client-side keys"
benign(
    LP,
    "https://github.com/FiloSottile/age#usage",
    "age -r § -o backup.tar.age backup.tar",
    "age1" + pick("023456789acdefghjklmnpqrstuvwxyz", 58),
    "an age recipient is a public key",
)
benign(
    LP,
    "https://github.com/nostr-protocol/nips/blob/master/19.md",
    "follow me on nostr: §",
    "npub1" + pick("023456789acdefghjklmnpqrstuvwxyz", 58),
    "a Nostr npub is a public key",
)
benign(
    LP,
    "https://ethereum.org/en/developers/docs/accounts/",
    "Send the refund to §",
    "0x" + pick("0123456789abcdefABCDEF", 40),
    "an Ethereum address is public",
)
benign(
    LP,
    "https://en.bitcoin.it/wiki/Bech32",
    "donations: §",
    "bc1q" + pick("023456789acdefghjklmnpqrstuvwxyz", 38),
    "a Bitcoin address is public",
)
benign(
    LP,
    "https://clerk.com/docs/deployments/clerk-environment-variables",
    "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=§",
    "pk_live_" + base64.b64encode(b"clerk.shop.acme.io$").decode().rstrip("="),
    "Clerk documents the publishable key as safe in the browser",
)
benign(
    LP,
    "https://langfuse.com/docs/sdk/typescript/guide",
    "LANGFUSE_PUBLIC_KEY=§",
    "pk-lf-" + uid(),
    "Langfuse's public key is the non-secret half of the pair",
)
benign(
    LP,
    "https://stytch.com/docs/sdks/javascript-sdk/installation",
    "const stytch = new StytchUIClient('§');",
    "public-token-live-" + uid(),
    "Stytch's public token is meant for the frontend",
)
benign(
    LP,
    "https://developers.google.com/recaptcha/docs/display",
    '<div class="g-recaptcha" data-sitekey="§"></div>',
    "6L" + pick(URLSAFE, 38),
    "a reCAPTCHA site key is public",
)
benign(
    LP,
    "https://docs.hcaptcha.com/#add-the-hcaptcha-widget-to-your-webpage",
    '<div class="h-captcha" data-sitekey="§"></div>',
    uid(),
    "an hCaptcha site key is public",
)
benign(
    LP,
    "https://developers.cloudflare.com/turnstile/get-started/client-side-rendering/",
    "turnstile.render('#cf', { sitekey: '§' });",
    "0x4AAAAAAA" + pick(URLSAFE, 14),
    "a Turnstile site key is public",
)
benign(
    LP,
    "https://docs.joinmastodon.org/admin/config/#vapid",
    "VAPID_PUBLIC_KEY=§",
    "B" + b64url(64),
    "the VAPID public key is sent to browsers",
)
benign(
    LP,
    "https://man.openbsd.org/ssh-keygen.1",
    "§ deploy@ci",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(32)[:43],
    "an SSH public key",
)
benign(
    LP,
    "https://man.openbsd.org/signify",
    "untrusted comment: signify public key\n§",
    "RWS" + b64(39),
    "a signify public key",
)
benign(
    LP,
    "https://v2.tauri.app/plugin/updater/#signing-updates",
    '"plugins": { "updater": { "pubkey": "§" } }',
    base64.b64encode(
        (
            "untrusted comment: minisign public key: "
            + pick("0123456789ABCDEF", 16)
            + "\nRWT"
            + b64(39)
        ).encode()
    ).decode(),
    "the updater's public key ships in the app",
)
benign(
    LP,
    "https://sparkle-project.org/documentation/#3-segue-for-security-concerns",
    "<key>SUPublicEDKey</key>\n<string>§</string>",
    b64(32),
    "Sparkle's public EdDSA key ships in Info.plist",
)
benign(
    LP,
    "https://docs.sigstore.dev/cosign/key_management/signing_with_self-managed_keys/",
    "-----BEGIN PUBLIC KEY-----\n§\n-----END PUBLIC KEY-----",
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + b64(48)[:52],
    "a cosign public key",
)
benign(
    LP,
    "https://documentation.onesignal.com/docs/keys-and-ids",
    'OneSignal.init({ appId: "§" });',
    uid(),
    "OneSignal's app id is public",
)
benign(
    LP,
    "https://firebase.google.com/docs/projects/api-keys",
    'const firebaseConfig = {\n  apiKey: "§",\n  authDomain: "shop-acme.firebaseapp.com",',
    "AIza" + pick(URLSAFE, 35),
    "Firebase documents the web config's API key as not secret",
)
benign(
    LP,
    "https://umami.is/docs/collect-data",
    '<script defer src="https://cloud.umami.is/script.js" data-website-id="§"></script>',
    uid(),
    "an analytics website id is public",
)

# -- look-alikes: placeholders and references -----------------------------------------------------

LR = "look-alike: placeholders and references"
benign(
    LR,
    "https://developers.deepgram.com/reference/authentication",
    "Authorization: Token §",
    "<YOUR_DEEPGRAM_API_KEY>",
    "a documented placeholder",
)
benign(
    LR,
    "https://docs.tavily.com/guides/quickstart",
    'TavilyClient(api_key="§")',
    "tvly-YOUR_API_KEY",
    "the documentation's placeholder",
)
benign(
    LR,
    "https://openrouter.ai/docs/api_reference/authentication",
    "OPENROUTER_API_KEY=§",
    "sk-or-v1-...",
    "an elided placeholder",
)
benign(
    LR,
    "https://tekton.dev/docs/pipelines/variables/",
    'args: ["--token", "§"]',
    "$(params.registry-token)",
    "a Tekton parameter reference",
)
benign(
    LR,
    "https://argo-workflows.readthedocs.io/en/latest/variables/",
    'value: "§"',
    "{{workflow.parameters.db-password}}",
    "an Argo workflow parameter reference",
)
benign(
    LR,
    "https://cloud.google.com/build/docs/securing-builds/use-secrets",
    "  entrypoint: bash\n  args: ['-c', 'npm publish --//registry.npmjs.org/:_authToken=§']\n  secretEnv: ['NPM_TOKEN']",
    "$$NPM_TOKEN",
    "a Cloud Build secretEnv reference",
)
benign(
    LR,
    "https://docs.aws.amazon.com/codebuild/latest/userguide/build-spec-ref.html#build-spec.env.secrets-manager",
    "env:\n  secrets-manager:\n    DB_PASSWORD: §",
    "prod/orders/db:password",
    "a Secrets Manager reference, not the value",
)
benign(
    LR,
    "https://www.appveyor.com/docs/build-configuration/#secure-variables",
    "environment:\n  NUGET_API_KEY:\n    secure: §",
    b64(48),
    "AppVeyor's secure value is ciphertext only its server decrypts",
)
benign(
    LR,
    "https://element-hq.github.io/synapse/latest/usage/configuration/config_documentation.html#registration_shared_secret_path",
    "registration_shared_secret_path: §",
    "/run/secrets/synapse_registration",
    "a path to the secret, not the secret",
)
benign(
    LR,
    "https://www.authelia.com/configuration/methods/secrets/",
    "AUTHELIA_IDENTITY_VALIDATION_RESET_PASSWORD_JWT_SECRET_FILE=§",
    "/secrets/jwt",
    "a file reference",
)
benign(
    LR,
    "https://helmfile.readthedocs.io/en/latest/#environment-values",
    "  - name: auth.postgresPassword\n    value: §",
    '{{ requiredEnv "PG_PASSWORD" }}',
    "a Helmfile template reading the environment",
)
benign(
    LR,
    "https://taskfile.dev/usage/#variables",
    "cmds:\n  - curl -H 'Authorization: Bearer §' $API/deploy",
    "{{.DEPLOY_TOKEN}}",
    "a Taskfile variable",
)
benign(
    LR,
    "https://containers.dev/implementors/json_reference/#variables-in-devcontainerjson",
    '"remoteEnv": { "GITHUB_TOKEN": "§" }',
    "${localEnv:GITHUB_TOKEN}",
    "a dev container variable",
)
benign(
    LR,
    "https://docs.gitea.com/administration/config-cheat-sheet#security-security",
    "INTERNAL_TOKEN_URI = §",
    "file:/etc/gitea/internal_token",
    "a URI pointing at the token file",
)
benign(
    LR,
    "https://docs.influxdata.com/telegraf/v1/configuration/#secret-store-secrets",
    '  token = "§"',
    "@{vault:influx_token}",
    "a Telegraf secret-store reference",
)
benign(
    LR,
    "https://docs.influxdata.com/telegraf/v1/configuration/#environment-variables",
    '  password = "§"',
    "${MQTT_PASSWORD}",
    "an environment reference",
)
benign(
    LR,
    "https://prometheus.io/docs/prometheus/latest/configuration/configuration/#http_config",
    "basic_auth:\n  username: prom\n  password_file: §",
    "/etc/prometheus/scrape.pw",
    "a password file path",
)
benign(
    LR,
    "https://isync.sourceforge.io/mbsync.html",
    'PassCmd "§"',
    "pass show mail/work",
    "a command that fetches the password",
)
benign(
    LR,
    "https://pykickstart.readthedocs.io/en/latest/kickstart-docs.html#rootpw",
    "rootpw §",
    "--lock",
    "locks the account, no password",
)
benign(
    LR,
    "https://cloudinit.readthedocs.io/en/latest/reference/modules.html#users-and-groups",
    "users:\n  - name: deploy\n    lock_passwd: §",
    "true",
    "a switch, no password",
)
benign(
    LR,
    "https://docs.dagger.io/api/secrets",
    "dagger call publish --token=§",
    "env:GH_TOKEN",
    "a Dagger secret provider reference",
)
benign(
    LR,
    "https://docs.semaphoreci.com/using-semaphore/secrets",
    "    secrets:\n      - name: §",
    "dockerhub-credentials",
    "the name of a stored secret",
)

# -- look-alikes: masked values ------------------------------------------------------------------

LM = "look-alike: masked values"
benign(
    LM,
    "https://developers.deepgram.com/cli/authentication",
    "Logged in as: you@company.com\nAPI Key: §\nSource: ~/.config/deepgram/credentials",
    "sk_live_...1234",
    "a key masked by the CLI",
)
benign(
    LM,
    "https://langfuse.com/faq/all/lost-secret-key",
    '{"public_key": "pk-lf-' + uid() + '", "display_secret_key": "§"}',
    "sk-lf-...a91c",
    "Langfuse's masked preview of the secret",
)
benign(
    LM,
    "https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets",
    "Name:         smtp\nType:  Opaque\n\nData\n====\npassword:  §",
    "16 bytes",
    "kubectl describe shows sizes, not values",
)
benign(
    LM,
    "https://developer.hashicorp.com/terraform/language/values/outputs#sensitive-suppressing-values-in-cli-output",
    "  + admin_password = §",
    "(sensitive value)",
    "Terraform hides sensitive values",
)
benign(
    LM,
    "https://docs.ansible.com/ansible/latest/reference_appendices/logging.html",
    'ok: [db01] => {"censored": "§", "changed": false}',
    "the output has been hidden due to the fact that 'no_log: true' was specified for this result",
    "Ansible's no_log notice",
)
benign(
    LM,
    "https://octopus.com/docs/projects/variables/sensitive-variables",
    "Variable DbPassword = §",
    "********",
    "Octopus masks sensitive variables",
)
benign(
    LM,
    "https://docs.semaphoreci.com/using-semaphore/secrets",
    "export DOCKER_PASSWORD=§",
    "[FILTERED]",
    "a filtered log value",
)
benign(
    LM,
    "https://www.appveyor.com/docs/build-configuration/#secure-variables",
    "Environment: NUGET_API_KEY=§",
    "<secure>",
    "AppVeyor's masked log entry",
)
benign(
    LM,
    "https://caddyserver.com/docs/caddyfile/directives/log#filters",
    '"headers":{"Authorization":["§"]}',
    "REDACTED",
    "Caddy's log filter output",
)
benign(
    LM,
    "https://docs.gitea.com/administration/config-cheat-sheet",
    "PASSWD = §",
    "******",
    "a masked password in an admin view",
)
benign(
    LM,
    "https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/occ_command.html#config-commands",
    '$ occ config:list system\n    "dbpassword": "§",',
    "***REMOVED SENSITIVE VALUE***",
    "occ removes sensitive values",
)
benign(
    LM,
    "https://docs.syncthing.net/rest/system-config-get.html",
    '"apiKey": "§"',
    "<redacted>",
    "a redacted support bundle field",
)
benign(
    LM,
    "https://docs.gitlab.com/ci/variables/#mask-a-cicd-variable",
    "$ echo $HARBOR_PASSWORD\n§",
    "[MASKED]",
    "a masked CI log line",
)
benign(
    LM,
    "https://www.zabbix.com/documentation/current/en/manual/config/macros/user_macros#secret-macros",
    "{$DB.PASSWORD} = §",
    "******",
    "Zabbix shows secret macros masked",
)

# -- look-alikes: code naming a secret -----------------------------------------------------------

LC = "look-alike: code naming a secret"
benign(
    LC,
    "https://docs.python.org/3/library/getpass.html",
    "password = §",
    'getpass.getpass("Vault password: ")',
    "reads a password, holds none",
)
benign(
    LC,
    "https://replicate.com/docs/get-started/python",
    "api_token = §",
    'os.environ["REPLICATE_API_TOKEN"]',
    "reads the token from the environment",
)
benign(
    LC,
    "https://docs.firecrawl.dev/sdks/node",
    "const app = new FirecrawlApp({ apiKey: § });",
    "process.env.FIRECRAWL_API_KEY",
    "an environment reference",
)
benign(
    LC,
    "https://docs.spring.io/spring-framework/reference/core/beans/annotation-config/value-annotations.html",
    '@Value("§")\nprivate String jwtSecret;',
    "${jwt.secret}",
    "a property placeholder",
)
benign(
    LC,
    "https://docs.nestjs.com/techniques/configuration#using-the-configservice",
    "secret: §,",
    "configService.get<string>('JWT_SECRET')",
    "a config lookup",
)
benign(
    LC,
    "https://laravel.com/docs/11.x/requests#retrieving-input",
    "$password = §;",
    "$request->input('password')",
    "request input, no value",
)
benign(
    LC,
    "https://fastapi.tiangolo.com/reference/security/#fastapi.security.APIKeyHeader",
    "api_key_header = §",
    'APIKeyHeader(name="X-API-Key")',
    "declares a header name",
)
benign(
    LC,
    "https://docs.djangoproject.com/en/5.1/ref/settings/#password-reset-timeout",
    "PASSWORD_RESET_TIMEOUT = §",
    "259200",
    "a timeout in seconds",
)
benign(
    LC,
    "https://datatracker.ietf.org/doc/html/rfc6749#section-5.1",
    '{"access_token": "<issued>", "token_type": "§", "expires_in": 3600}',
    "Bearer",
    "a token type name",
)
benign(
    LC,
    "https://doc.rust-lang.org/std/env/fn.var.html",
    "let secret = §;",
    'env::var("JWT_SECRET")?',
    "reads the environment",
)
benign(
    LC,
    "https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables",
    "        valueFrom:\n          secretKeyRef:\n            name: db-creds\n            key: §",
    "password",
    "names a key of a Secret",
)
benign(
    LC,
    "https://docs.djangoproject.com/en/5.1/ref/forms/widgets/#passwordinput",
    "password = §",
    "forms.CharField(widget=forms.PasswordInput)",
    "a form field",
)
benign(
    LC,
    "https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/io/Console.html#readPassword()",
    "char[] password = §;",
    'System.console().readPassword("Password: ")',
    "reads a password interactively",
)
benign(
    LC,
    "https://www.gnu.org/software/bash/manual/bash.html#index-read",
    "§",
    'read -rs -p "Password: " PASSWORD',
    "prompts for a password",
)
benign(
    LC,
    "https://argon2-cffi.readthedocs.io/en/stable/api.html",
    "hashed = §",
    "ph.hash(password)",
    "hashes a variable",
)
benign(
    LC,
    "https://ktor.io/docs/server-jwt.html",
    "val secret = §",
    'environment.config.property("jwt.secret").getString()',
    "a config lookup",
)
benign(
    LC,
    "https://developers.deepgram.com/docs/python-sdk",
    "deepgram = DeepgramClient(§)",
    "settings.DEEPGRAM_API_KEY",
    "a settings attribute",
)
benign(
    LC,
    "https://www.postgresql.org/docs/current/sql-createrole.html",
    "ALTER ROLE app WITH LOGIN §;",
    "PASSWORD NULL",
    "removes the password",
)
benign(
    LC,
    "https://docs.sqlalchemy.org/en/20/core/type_basics.html",
    "    password_hash = §",
    "Column(String(128), nullable=False)",
    "a column declaration",
)

# -- more look-alikes, one per class where the position is common --------------------------------

benign(
    LI,
    "https://www.figma.com/developers/api#files-endpoints",
    "mockups: https://www.figma.com/design/§/Checkout-flow?node-id=12-480",
    pick(ALNUM, 22),
    "a file key in a share link names the file; access is by permission",
)
benign(
    LI,
    "https://developer.harness.io/docs/platform/get-started/key-concepts#account",
    "https://app.harness.io/ng/account/§/all/cd/orgs/default/projects",
    pick(URLSAFE, 22),
    "a Harness account identifier",
)
benign(
    LH,
    "https://sparkle-project.org/documentation/publishing/",
    '<enclosure url="https://downloads.acme.io/MyApp-2.4.dmg" sparkle:edSignature="§" length="48213441" type="application/octet-stream"/>',
    b64(64),
    "a signature over a public download",
)
benign(
    LP,
    "https://docs.reown.com/cloud/relay",
    "createAppKit({ projectId: '§', networks: [mainnet] })",
    hexs(32),
    "a WalletConnect project id is public in the dapp",
)
benign(
    LC,
    "https://docs.python.org/3/library/functions.html#len",
    "if len(password) < §:\n    raise ValueError('too short')",
    "MIN_PASSWORD_LENGTH",
    "a constant's name",
)
benign(
    LR,
    "https://docs.joinmastodon.org/admin/install/#generating-a-configuration",
    "SECRET_KEY_BASE=§",
    "$(bundle exec rails secret)",
    "a command that generates the value",
)
benign(
    LM,
    "https://wiki.servarr.com/sonarr/troubleshooting#logging-and-log-files",
    "[Info] RssSyncService: GET https://indexer.lan/api?t=tvsearch&apikey=§",
    "(removed)",
    "Sonarr cleanses keys from its logs",
)
benign(
    LC,
    "https://zulip.com/api/configuring-python-bindings",
    "client = zulip.Client(config_file=§)",
    '"~/.zuliprc"',
    "a path to the config file",
)


def main() -> None:
    out = Path(__file__).with_name("batch-h.jsonl")
    with out.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
