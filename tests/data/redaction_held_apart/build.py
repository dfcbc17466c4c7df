"""Build the held-apart redaction set: secret shapes and look-alikes the rules were not written from.

Run `python tests/data/redaction_held_apart/build.py` to rewrite cases.jsonl. Each row has a
`class`, `expect` ("secret" or "benign"), the `context` and either the `secret` (text that must
not survive redaction) or the `value` (text that must survive, with nothing in the context
redacted). The shapes follow each tool's own documentation (token prefixes, auth header schemes,
webhook URL layouts, connection string grammars, CLI synopses, config file formats); every value
is random and fake. The set is held apart: rules are measured on it, never fitted to a row of it.
When a rule is changed, add fresh rows from documentation not read while writing the rule.
"""

# ruff: noqa: E501  (each context stays on one line, as it appears in a log)

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
rng = random.Random(20261202)

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"

Row = dict[str, str]


def rs(alphabet: str, n: int) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        if (
            alphabet == HEX
            or n < 8
            or not mixed
            or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s))
        ):
            return s


def pw() -> str:
    return rs(LOWER, 4).capitalize() + rs(DIGITS, 3) + rng.choice("!@#%^*-_.") + rs(ALNUM, 6)


def b64(n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


def b64url(n: int) -> str:
    return base64.urlsafe_b64encode(rng.randbytes(n)).decode().rstrip("=")


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def secret(cls: str, value: str, context: str) -> Row:
    assert value in context, (cls, value)
    return {"class": cls, "expect": "secret", "context": context, "secret": value}


def benign(cls: str, value: str, context: str) -> Row:
    assert value in context, (cls, value)
    return {"class": cls, "expect": "benign", "context": context, "value": value}


def vendors() -> list[Row]:
    c = "vendor prefix"
    tokens = [
        ("sk-ant-oat01-" + rs(B64URL, 86) + "AA", "ANTHROPIC_AUTH_TOKEN={}"),
        ("sk-ant-api03-" + rs(B64URL, 93) + "AA", "export ANTHROPIC_API_KEY={}"),
        ("sk-ant-admin01-" + rs(B64URL, 93) + "AA", "admin key: {}"),
        (
            "squ_" + rs(HEX, 40),
            "sonar-scanner -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={}",
        ),
        ("sqp_" + rs(HEX, 40), "SONAR_TOKEN: {}"),
        ("sqa_" + rs(HEX, 40), "Generated global analysis token {} (expires in 30 days)"),
        ("hcaik_" + rs(ALNUM, 58).lower(), "HONEYCOMB_API_KEY={}"),
        ("hcxik_" + rs(ALNUM, 58).lower(), "otel exporter headers x-honeycomb-team={}"),
        (rs(ALNUM, 40), "CLOUDFLARE_API_TOKEN={}"),
        ("v1.0-" + rs(HEX, 24) + "-" + rs(HEX, 146), "origin_ca_key = {}"),
        ("bkua_" + rs(HEX, 40), "buildkite-agent api token {}"),
        ("bkct_" + rs(HEX, 40), "BUILDKITE_CLUSTER_TOKEN {}"),
        (
            "xoxc-" + "-".join([rs(DIGITS, 12), rs(DIGITS, 13), rs(DIGITS, 13), rs(HEX, 64)]),
            "slack client token {} from the browser",
        ),
        ("xoxd-" + rs(B64URL, 120), "cookie d={}"),
        ("xoxe.xoxp-1-" + rs(ALNUM, 140), "refreshed: {}"),
        (
            "xapp-1-A" + rs(UPPER + DIGITS, 10) + "-" + rs(DIGITS, 13) + "-" + rs(HEX, 64),
            "SLACK_APP_TOKEN={}",
        ),
        ("glrt-" + rs(B64URL, 20), "gitlab-runner register --token {}"),
        ("glcbt-" + rs(B64URL, 20), "trigger with {} now"),
        ("gldt-" + rs(B64URL, 20), "deploy token created: {}"),
        ("dp.st.prd." + rs(ALNUM, 43), "DOPPLER_TOKEN={}"),
        ("lin_api_" + rs(ALNUM, 40), "Linear key {}"),
        ("ntn_" + rs(DIGITS, 11) + rs(ALNUM, 35), "NOTION_TOKEN={}"),
        ("sbp_" + rs(HEX, 40), "supabase login --token {}"),
        (
            "glc_" + b64(60).replace("+", "A").replace("/", "B").rstrip("="),
            "grafana cloud access policy token {}",
        ),
        ("glsa_" + rs(ALNUM, 32) + "_" + rs(HEX, 8), "GF_SA_TOKEN={}"),
        ("dapi" + rs(HEX, 32), "databricks configure --token {}"),
        ("ATATT3xFfGF0" + rs(B64URL, 180) + "=" + rs(HEX.upper(), 8), "jira api token {}"),
        ("sntrys_" + b64url(120), "SENTRY_AUTH_TOKEN={}"),
        ("tskey-auth-k" + rs(ALNUM, 16) + "-" + rs(ALNUM, 33), "tailscale up --authkey={}"),
        ("FlyV1 fm2_" + b64url(180), 'fly tokens create deploy -> "{}"'),
        ("pul-" + rs(HEX, 40), "PULUMI_ACCESS_TOKEN={}"),
        (rs(ALNUM, 14) + ".atlasv1." + rs(ALNUM, 67), "TFE token {}"),
        ("r8_" + rs(ALNUM, 37), "REPLICATE_API_TOKEN={}"),
        ("gsk_" + rs(ALNUM, 52), "groq key {}"),
        ("pplx-" + rs(ALNUM, 48), "perplexity: {}"),
        ("xai-" + rs(ALNUM, 80), "XAI_API_KEY={}"),
        ("sk-or-v1-" + rs(HEX, 64), "openrouter {}"),
        ("dop_v1_" + rs(HEX, 64), "doctl auth init -t {}"),
        ("shpss_" + rs(HEX, 32), "shopify shared secret {}"),
        ("PMAK-" + rs(HEX, 24) + "-" + rs(HEX, 34), "postman api key {}"),
        ("AGE-SECRET-KEY-1" + rs(UPPER + DIGITS, 58), "# created: 2026-11-02\n{}"),
        ("NRAK-" + rs(UPPER + DIGITS, 27), "NEW_RELIC_API_KEY={}"),
        ("HRKU-" + uid(), "heroku authorizations:create -> Token: {}"),
        ("nfp_" + rs(ALNUM, 36), "netlify deploy --auth {}"),
        ("sgp_" + rs(HEX, 16) + "_" + rs(HEX, 40), "SRC_ACCESS_TOKEN={}"),
        ("ddp_" + rs(ALNUM, 36), "deployctl deploy --token={}"),
        ("rdme_" + rs(ALNUM, 70), "readme api key {}"),
        ("tfp_" + rs(ALNUM, 44) + "_" + rs(ALNUM, 14), "typeform token {}"),
        ("ico-" + rs(ALNUM, 32), "INFRACOST_API_KEY={}"),
        ("API-" + rs(UPPER + DIGITS, 27), "octo push --apiKey {}"),
        ("whsec_" + rs(ALNUM, 32), "Your webhook signing secret is {} (^C to quit)"),
        ("rk_live_" + rs(ALNUM, 99), "restricted key {}"),
        ("sk_live_" + rs(ALNUM, 48), "CLERK_SECRET_KEY={}"),
        (rs(DIGITS, 10) + ":AA" + rs(B64URL, 33), "telegram bot token {}"),
        ("pat" + rs(ALNUM, 14) + "." + rs(HEX, 64), "airtable personal access token {}"),
        ("ops_" + b64url(200), "OP_SERVICE_ACCOUNT_TOKEN={}"),
        ("hvs." + rs(ALNUM, 90), "vault token lookup {}"),
        ("glpat-" + rs(B64URL, 20), "git remote set-url origin https://ci:{}@gitlab.com/a/b.git"),
    ]
    return [secret(c, t, ctx.format(t)) for t, ctx in tokens]


def schemes() -> list[Row]:
    c = "auth scheme"
    t = [
        rs(ALNUM, 42),
        rs(ALNUM + "-_", 40),
        uid() + ":fx",
        rs(HEX, 40),
        b64(42),
        rs(ALNUM, 32),
        uid(),
        rs(ALNUM, 48),
        b64(30),
        rs(HEX, 32),
        rs(ALNUM, 26),
        rs(B64URL, 40),
        rs(ALNUM, 35),
        rs(HEX, 64),
        rs(ALNUM, 38),
    ]
    rows = [
        (t[0], 'curl -H "Authorization: SSWS {}" https://acme.okta.com/api/v1/users'),
        (t[1], "Authorization: Splunk {}"),
        (
            t[2],
            "curl -X POST https://api-free.deepl.com/v2/translate --header 'Authorization: DeepL-Auth-Key {}'",
        ),
        (t[3], "Authorization: Token {}"),
        (t[4], "Authorization: ApiKey {}"),
        (t[5], "Authorization: GenieKey {}"),
        (t[6], "Authorization: Klaviyo-API-Key {}"),
        (t[7], "Authorization: Bot {}"),
        (t[8], "authorization: Negotiate {}"),
        (
            t[9],
            'Authorization: Digest username="bob", realm="api", nonce="dcd98b", uri="/x", response="{}"',
        ),
        (t[10], "PRIVATE-TOKEN: {}"),
        (t[11], "X-Vault-Token: {}"),
        (t[12], "Ocp-Apim-Subscription-Key: {}"),
        (
            t[13],
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=host;x-amz-date, Signature={}",
        ),
        (t[14], 'requests.get(url, headers={{"X-Auth-Token": "{}"}})'),
    ]
    more = [rs(ALNUM, 40), rs(ALNUM, 32), rs(HEX, 40)]
    rows += [
        (more[0], "< api-key: {}"),
        (more[1], "-H 'X-Shopify-Access-Token: {}'"),
        (more[2], "Authorization: token {}"),
    ]
    return [secret(c, v, ctx.format(v)) for v, ctx in rows]


def webhooks() -> list[Row]:
    c = "webhook URL"
    rows: list[tuple[str, str]] = []
    teams_key = rs(HEX, 32)
    rows.append(
        (
            teams_key,
            f"POST https://acme.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{teams_key}/{uid()}/V2{rs(ALNUM, 40)}",
        )
    )
    sig = rs(B64URL, 43)
    rows.append(
        (
            sig,
            f"https://prod-27.westus.logic.azure.com:443/workflows/{rs(HEX, 32)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={sig}",
        )
    )
    mm = rs(LOWER + DIGITS, 26)
    rows.append(
        (
            mm,
            f"curl -i -X POST -H 'Content-Type: application/json' -d '{{\"text\": \"hi\"}}' https://chat.acme.io/hooks/{mm}",
        )
    )
    zap = rs(LOWER + DIGITS, 6) + "/"
    rows.append((f"{rs(DIGITS, 7)}/{zap}", ""))
    rows[-1] = (rows[-1][0], f"ZAP_URL=https://hooks.zapier.com/hooks/catch/{rows[-1][0]}")
    bot = rs(DIGITS, 10) + ":AA" + rs(B64URL, 33)
    rows.append(
        (bot, f"GET https://api.telegram.org/bot{bot}/sendMessage?chat_id=-100123&text=done")
    )
    disc = rs(B64URL, 68)
    rows.append((disc, f"https://discord.com/api/webhooks/{rs(DIGITS, 19)}/{disc}"))
    slack = rs(ALNUM, 24)
    rows.append(
        (
            slack,
            f"SLACK_WEBHOOK_URL: https://hooks.slack.com/services/T{rs(UPPER + DIGITS, 8)}/B{rs(UPPER + DIGITS, 10)}/{slack}",
        )
    )
    gkey, gtok = "AIza" + rs(B64URL, 35), rs(B64URL, 43) + "%3D"
    rows.append(
        (
            gtok,
            f"https://chat.googleapis.com/v1/spaces/AAAA{rs(ALNUM, 7)}/messages?key={gkey}&token={gtok}",
        )
    )
    ifttt = rs(B64URL, 22)
    rows.append(
        (ifttt, f"curl -X POST https://maker.ifttt.com/trigger/deploy_done/with/key/{ifttt}")
    )
    rc = rs(ALNUM, 48)
    rows.append((rc, f"https://rocket.acme.io/hooks/{rs(ALNUM, 17)}/{rc}"))
    make = rs(LOWER + DIGITS, 32)
    rows.append((make, f"webhook: https://hook.eu1.make.com/{make}"))
    ding = rs(HEX, 64)
    rows.append((ding, f"https://oapi.dingtalk.com/robot/send?access_token={ding}"))
    feishu = uid()
    rows.append(
        (
            feishu,
            f"curl -X POST -H 'Content-Type: application/json' https://open.feishu.cn/open-apis/bot/v2/hook/{feishu}",
        )
    )
    wecom = uid()
    rows.append((wecom, f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={wecom}"))
    jenkins = rs(ALNUM, 24)
    rows.append(
        (
            jenkins,
            f"curl -X POST 'https://ci.acme.io/buildByToken/build?job=deploy&token={jenkins}'",
        )
    )
    gl = "glptt-" + rs(HEX, 40)
    rows.append(
        (
            gl,
            f"curl -X POST --fail -F token={gl} -F ref=main https://gitlab.com/api/v4/projects/42/trigger/pipeline",
        )
    )
    return [secret(c, v, ctx) for v, ctx in rows]


def connections() -> list[Row]:
    c = "connection string without ://"
    rows: list[tuple[str, str]] = []
    p = [pw() for _ in range(20)]
    rows.append((p[0], f"url=jdbc:oracle:thin:scott/{p[0]}@db.acme.io:1521:ORCL"))
    rows.append((p[1], f"jdbc:oracle:thin:app/{p[1]}@//db.acme.io:1521/svc.acme"))
    rows.append((p[2], f'dsn := "app:{p[2]}@tcp(127.0.0.1:3306)/shop?parseTime=true"'))
    rows.append((p[3], f"DATABASE_DSN=root:{p[3]}@unix(/var/run/mysqld.sock)/app"))
    rows.append(
        (
            p[4],
            f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:db.acme.io,1433;Database=app;Uid=sa;Pwd={{{p[4]}}};Encrypt=yes;",
        )
    )
    rows.append(
        (
            p[5],
            f"Server=db.acme.io;Database=app;User Id=app;Password={p[5]};TrustServerCertificate=True",
        )
    )
    rows.append((p[6], f"$ cat ~/.pgpass\ndb.acme.io:5432:app:deploy:{p[6]}\n"))
    rows.append((p[7], f"127.0.0.1:6379> AUTH {p[7]}\nOK"))
    rows.append((p[8], f"127.0.0.1:6379> AUTH default {p[8]}\nOK"))
    rows.append(
        (
            p[9],
            f'conn = psycopg2.connect("host=db.acme.io dbname=app user=app password={p[9]} sslmode=require")',
        )
    )
    rows.append((p[10], f"sqlplus system/{p[10]}@//db.acme.io:1521/XEPDB1"))
    key = b64(64)
    rows.append(
        (
            key,
            f"DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={key};EndpointSuffix=core.windows.net",
        )
    )
    sak = b64(32)
    rows.append(
        (
            sak,
            f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={sak}",
        )
    )
    iot = b64(32)
    rows.append((iot, f"HostName=acme.azure-devices.net;DeviceId=dev1;SharedAccessKey={iot}"))
    rows.append(
        (
            p[11],
            f"DATABASE=sample;HOSTNAME=db2.acme.io;PORT=50000;PROTOCOL=TCPIP;UID=db2inst1;PWD={p[11]};",
        )
    )
    rows.append(
        (
            p[12],
            f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="{p[12]}";',
        )
    )
    rows.append(
        (
            p[13],
            f"jdbc:sqlserver://db.acme.io:1433;databaseName=app;user=sa;password={p[13]};encrypt=true",
        )
    )
    rows.append((p[14], f"jdbc:mysql://db.acme.io:3306/app?user=app&password={p[14]}&useSSL=true"))
    rows.append(
        (
            p[15],
            f"jdbc:snowflake://acme.snowflakecomputing.com/?user=etl&password={p[15]}&warehouse=wh",
        )
    )
    rows.append((p[16], f"Data Source=db.acme.io;Initial Catalog=app;User ID=app;Pwd={p[16]}"))
    return [secret(c, v, ctx) for v, ctx in rows]


def flags() -> list[Row]:
    c = "CLI password flag"
    p = [pw() for _ in range(44)]
    tok = rs(ALNUM, 40)
    t = [
        f"mongosh 'mongodb://db.acme.io/app' -u admin -p {p[0]}",
        f"mongosh --host db --username admin --password {p[1]} --authenticationDatabase admin",
        f"keytool -genkeypair -alias app -keystore app.jks -storepass {p[2]} -keypass {p[3]}",
        f"keytool -importcert -file ca.pem -keystore trust.jks -storepass {p[4]} -noprompt",
        f"zip -r -P {p[5]} backup.zip ./data",
        f"7z a -p{p[6]} -mhe=on secrets.7z secrets/",
        f"unzip -P {p[7]} backup.zip",
        f"openssl enc -aes-256-cbc -salt -in db.sql -out db.sql.enc -k {p[8]}",
        f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12 -passout pass:{p[9]}",
        f"openssl rsa -in enc.key -out plain.key -passin pass:{p[10]}",
        f"curl -u :{tok} https://api.acme.io/v1/me",
        f"curl -u deploy:{p[11]} https://repo.acme.io/upload",
        f"curl --user admin:{p[12]} -X PUT https://es.acme.io:9200/_cluster/settings",
        f"wget --user=ci --password={p[13]} https://repo.acme.io/artifact.tgz",
        f"wget --http-user=ci --http-password={p[14]} https://repo.acme.io/a.tgz",
        f"sshpass -p {p[15]} ssh deploy@10.0.0.5",
        f"rabbitmqctl add_user deployer {p[16]}",
        f"rabbitmqctl change_password guest {p[17]}",
        f"helm repo add private https://charts.acme.io --username ci --password {p[18]}",
        f"helm registry login registry.acme.io -u ci --password {p[19]}",
        f"docker login -u ci -p {p[20]} registry.acme.io",
        f"argocd login argocd.acme.io --username admin --password {p[21]}",
        f"mvn deploy -Drepo.password={p[22]}",
        f"./gradlew publish -PsonatypePassword={p[23]}",
        f"java -Djavax.net.ssl.keyStorePassword={p[24]} -jar app.jar",
        f"xfreerdp /v:10.0.0.9 /u:Administrator /p:{p[25]}",
        f"lftp -u deploy,{p[26]} sftp://files.acme.io",
        f"jarsigner -keystore release.jks -storepass {p[27]} app.apk release",
        f"gpg --batch --pinentry-mode loopback --passphrase {p[28]} -d notes.gpg",
        f"nmcli device wifi connect Office password {p[29]}",
        f"wpa_passphrase Office {p[30]} > /etc/wpa.conf",
        f"mount -t cifs //nas/share /mnt -o username=bob,password={p[31]}",
        f"net use Z: \\\\nas\\share {p[32]} /user:ACME\\bob",
        f"cqlsh cassandra.acme.io -u cassandra -p {p[33]}",
        f"cypher-shell -a neo4j://db:7687 -u neo4j -p {p[34]}",
        f"mysqladmin -u root -p{p[35]} status",
        f"az login --service-principal -u {uid()} -p {p[36]} --tenant acme.onmicrosoft.com",
        f"vault login -method=userpass username=bob password={p[37]}",
        f"mc alias set minio https://s3.acme.io admin {p[38]}",
        f"unrar x -p{p[39]} archive.rar",
        f"influx -username admin -password {p[40]} -execute 'SHOW DATABASES'",
        f"kubectl --token={tok[:20]}{p[41]} get pods",
        f"oc login https://api.acme.io:6443 --token=sha256~{rs(B64URL, 43)}",
        f"ldappasswd -x -D cn=admin,dc=acme -w {p[42]} -s {p[43]} uid=bob,dc=acme",
    ]
    rows: list[Row] = []
    for i, ctx in enumerate(t):
        if "sha256~" in ctx:
            rows.append(secret(c, ctx.split("sha256~")[1].split()[0], ctx))
        elif i == 10:
            rows.append(secret(c, tok, ctx))
        elif i == 41:
            rows.append(secret(c, tok[:20] + p[41], ctx))
        else:
            hit = [x for x in p if x in ctx]
            rows.append(secret(c, hit[-1], ctx))
    return rows


def source() -> list[Row]:
    c = "source literal"
    p = [pw() for _ in range(24)]
    k = [rs(ALNUM, 40) for _ in range(24)]
    t = [
        (k[0], f"app.config['SECRET_KEY'] = '{k[0]}'"),
        (k[1], f'app.secret_key = "{k[1]}"'),
        (p[0], f"os.environ['DB_PASSWORD'] = '{p[0]}'"),
        (k[2], f'client = OpenAI(api_key="{k[2]}")'),
        (k[3], f'stripe.api_key = "{k[3]}"'),
        (
            k[4],
            f"s3 = boto3.client('s3', aws_access_key_id='AKIA{rs(UPPER + DIGITS, 16)}', aws_secret_access_key='{k[4]}')",
        ),
        (p[1], f'private static final String DB_PASSWORD = "{p[1]}";'),
        (p[2], f'String password = "{p[2]}";'),
        (k[5], f'const apiToken = "{k[5]}"'),
        (k[6], f"const secret = '{k[6]}';"),
        (p[3], f"config.set('password', '{p[3]}')"),
        (p[4], f'user.setPassword("{p[4]}");'),
        (k[7] + k[8], f"config.secret_key_base = '{k[7]}{k[8]}'"),
        (p[5], f"define('DB_PASSWORD', '{p[5]}');"),
        (p[6], f"$password = '{p[6]}';"),
        (k[9], f'let token = "{k[9]}";'),
        (k[10], f'val apiKey = "{k[10]}"'),
        (k[11], f'let apiSecret = "{k[11]}"'),
        (p[7], f"creds = {{'user': 'svc', 'password': '{p[7]}'}}"),
        (p[8], f"ftp.login(user='deploy', passwd='{p[8]}')"),
        (p[9], f"r = requests.get(url, auth=('ci', '{p[9]}'))"),
        (k[12], f'headers.put("X-Api-Secret", "{k[12]}");'),
        (p[10], f'$secure = ConvertTo-SecureString "{p[10]}" -AsPlainText -Force'),
        (
            p[11],
            f'resource "aws_db_instance" "db" {{\n  username = "app"\n  password = "{p[11]}"\n}}',
        ),
        (k[13], f"ENV API_TOKEN={k[13]}"),
        (p[12], f'var conn = new NpgsqlConnection("Host=db;Username=app;Password={p[12]}");'),
        (p[13], f'db.connect(host="db", user="app", password="{p[13]}")'),
        (k[14], f"jwt.encode(payload, '{k[14]}', algorithm='HS256')"),
    ]
    return [secret(c, v, ctx) for v, ctx in t]


def configs() -> list[Row]:
    c = "config file"
    p = [pw() for _ in range(24)]
    k = [rs(ALNUM, 40) for _ in range(12)]
    ident = base64.b64encode(f"ci:{p[0]}".encode()).decode()
    t = [
        (ident, f'npmRegistries:\n  "https://npm.acme.io":\n    npmAuthIdent: "{ident}"\n'),
        (p[1], f"npmScopes:\n  acme:\n    npmAuthIdent: ci:{p[1]}\n"),
        (k[0], f'npmAuthToken: "{k[0]}"\n'),
        (k[1][:40], f"common: &default_settings\n  license_key: '{k[1][:40]}'\n  app_name: shop\n"),
        (p[2] + p[3], f"database:\n  password: >-\n    {p[2]}{p[3]}\n  host: db\n"),
        (k[2], f"api:\n  secret: |\n    {k[2]}\n"),
        (p[4], f"machine ftp.acme.io password {p[4]} login deploy\n"),
        (p[5], f"machine api.heroku.com\n  login bob@acme.io\n  password {p[5]}\n"),
        (k[3], f'[registries.acme]\ntoken = "{k[3]}"\n'),
        (p[6], f"[pypi]\nusername = __token__\npassword = {p[6]}\n"),
        (p[7], f"signing.keyId=24875D73\nsigning.password={p[7]}\n"),
        (b64(24), ""),
        (
            p[8],
            f"spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password={p[8]}\n",
        ),
        (k[4], f"define( 'AUTH_KEY', '{k[4]}' );"),
        (b64(600)[:200], ""),
        (p[9], f"ansible_become_pass: {p[9]}\n"),
        (k[5], f"[default]\naccess_key = AKIA{rs(UPPER + DIGITS, 16)}\nsecret_key = {k[5]}\n"),
        (
            p[10],
            f'{{"http-basic": {{"repo.acme.io": {{"username": "ci", "password": "{p[10]}"}}}}}}',
        ),
        (k[6], f'[registry]\ntoken = "{k[6]}"\n'),
        (k[7], f'credentials "app.terraform.io" {{\n  token = "{k[7]}"\n}}\n'),
        (
            p[11],
            f'<packageSourceCredentials><acme><add key="Username" value="ci" /><add key="ClearTextPassword" value="{p[11]}" /></acme></packageSourceCredentials>',
        ),
        (p[12], f'[mysql]\nuser = root\npassword = "{p[12]}"\n'),
        (p[13], f"[client]\npass = {p[13]}\n"),
        (k[8], f"host: circleci.com\ntoken: {k[8]}\n"),
    ]
    docker_auth = base64.b64encode(f"ci:{p[14]}".encode()).decode()
    t[11] = (docker_auth, f'{{"auths": {{"registry.acme.io": {{"auth": "{docker_auth}"}}}}}}')
    kube = b64(600)
    t[14] = (kube[:200], f"users:\n- name: admin\n  user:\n    client-key-data: {kube}\n")
    return [secret(c, v, ctx) for v, ctx in t]


def encodings() -> list[Row]:
    c = "encoded"
    p = [pw() for _ in range(14)]
    jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + b64url(150) + "." + b64url(32)
    wrapped = "\n".join(jwt[i : i + 76] for i in range(0, len(jwt), 76))
    mid = jwt[76:152]
    t = [
        (p[0], f"{{\\u0022password\\u0022:\\u0022{p[0]}\\u0022}}"),
        (p[1], f"data=&quot;{{&quot;password&quot;: &quot;{p[1]}&quot;}}&quot;"),
        (p[2], f"<pre>api_key=&#34;{p[2]}&#34;</pre>"),
        (p[3], f"&lt;password&gt;{p[3]}&lt;/password&gt;"),
        (
            p[4]
            .replace("!", "%2521")
            .replace("@", "%2540")
            .replace("#", "%2523")
            .replace("%", "%25", 0),
            "",
        ),
        (p[5], f"body=%7B%22password%22%3A%22{p[5]}%22%7D"),
        (mid, f"token:\n{wrapped}\n"),
        (p[6], f'log: "{{\\\\\\"secret\\\\\\": \\\\\\"{p[6]}\\\\\\"}}"'),
        (p[7], f"{{\\x22password\\x22: \\x22{p[7]}\\x22}}"),
        (p[8], f'"password":"{p[8]}"'.replace('"', "\\u0022")),
        (p[9], f"?redirect=%2Flogin%3Fpassword%3D{p[9]}%26next%3D%2F"),
        (p[10], f"Set-Cookie: sessionid={p[10]}rZ{rs(ALNUM, 20)}; HttpOnly"),
    ]
    dbl = "%2570assword%253D"
    raw = rs(ALNUM, 24)
    t[4] = (raw, f"GET /cb?next=%252Fapi%253Fpassword%253D{raw}%2526x%253D1")
    t[11] = (p[10], f'curl -d "password=%22{p[10]}%22" https://acme.io/login')
    del dbl
    return [secret(c, v, ctx) for v, ctx in t]


def languages() -> list[Row]:
    c = "name in another language"
    p = [pw() for _ in range(16)]
    t = [
        f"пароль: {p[0]}",
        f"Пароль = {p[1]}",
        f"密码：{p[2]}",
        f"数据库密码={p[3]}",
        f"Passwort: {p[4]}",
        f"Kennwort={p[5]}",
        f"contraseña: {p[6]}",
        f"mot de passe : {p[7]}",
        f"senha={p[8]}",
        f"パスワード: {p[9]}",
        f"비밀번호: {p[10]}",
        f"hasło: {p[11]}",
        f"wachtwoord = {p[12]}",
        f"şifre: {p[13]}",
        f"API-Schlüssel: {rs(ALNUM, 32)}",
        f"密钥: {rs(ALNUM, 32)}",
    ]
    rows = []
    for i, ctx in enumerate(t):
        val = p[i] if i < 14 else ctx.split(": ")[1]
        rows.append(secret(c, val, ctx))
    return rows


def lookalikes() -> list[Row]:
    rows: list[Row] = []
    code = "look-alike: code and references"
    for v, ctx in [
        ("currentMessage.value", "value: currentMessage.value,"),
        ("form.password.value", "const password = form.password.value;"),
        ('request.headers.get("Authorization")', 'token = request.headers.get("Authorization")'),
        (
            "${DB_PASSWORD:?DB_PASSWORD must be set}",
            'password: "${DB_PASSWORD:?DB_PASSWORD must be set}"',
        ),
        ("${API_TOKEN:-}", "API_TOKEN=${API_TOKEN:-}"),
        ("{{ .Values.db.password }}", "password: {{ .Values.db.password }}"),
        ("process.env.STRIPE_SECRET_KEY", "const secret = process.env.STRIPE_SECRET_KEY;"),
        ('Getenv("DB_PASS")', 'password := os.Getenv("DB_PASS")'),
        ("args.password", "login(user=args.user, password=args.password)"),
        ("self._token", "self.token = self._token"),
        ("password_hash", "hashed = bcrypt.hashpw(password, salt)  # stored in password_hash"),
        ("check_password", "if user.check_password(raw_password):"),
        ("token_type", '{"token_type": "bearer", "expires_in": 3600}'),
        ("Bearer {token}", 'headers = {"Authorization": f"Bearer {token}"}'),
        ("Bearer <token>", "Authorization: Bearer <token>"),
        ("secretKeyRef", "valueFrom:\n  secretKeyRef:\n    name: db-creds\n    key: password\n"),
        ("secretName: tls-acme", "tls:\n- hosts: [acme.io]\n  secretName: tls-acme\n"),
        ("password_file", "password_file: /run/secrets/db_password"),
        (":env STOREPASS", "keytool -list -keystore app.jks -storepass:env STOREPASS"),
        ("env:KEY_PASS", "openssl rsa -in enc.key -passin env:KEY_PASS -out plain.key"),
        ("file:pass.txt", "openssl pkcs12 -export -in c.pem -out c.p12 -passout file:pass.txt"),
        ("$USER:$TOKEN", 'curl -u "$USER:$TOKEN" https://api.acme.io'),
        ("Pwd=${DB_PWD}", "Driver={PostgreSQL};Server=db;Uid=app;Pwd=${DB_PWD};"),
        ("jdbc:oracle:thin:@db.acme.io:1521:ORCL", "url=jdbc:oracle:thin:@db.acme.io:1521:ORCL"),
        ("app@tcp(127.0.0.1:3306)/shop", 'dsn := "app@tcp(127.0.0.1:3306)/shop"'),
        (
            "secret_scanning: enabled",
            "security_and_analysis:\n  secret_scanning: enabled\n  secret_scanning_push_protection: enabled\n",
        ),
        ("passwordless: true", "auth:\n  passwordless: true\n"),
        ("max_tokens: 1024", "max_tokens: 1024\ntemperature: 0.2"),
        ("tokenizer: cl100k_base", "tokenizer: cl100k_base"),
        ("-p 8080:80", "docker run -d -p 8080:80 nginx"),
        ("-p 2222", "ssh -p 2222 deploy@10.0.0.5"),
        ("-p 5432", "psql -h db -p 5432 -U app app"),
        ("-P 3306", "mysql -h db -P 3306 -u app -p app"),
        ("zip -r site.zip", "zip -r site.zip public/"),
        ("-k https://localhost:8443", "curl -k https://localhost:8443/health"),
        (
            "--password-stdin",
            "cat pw.txt | helm registry login registry.acme.io -u ci --password-stdin",
        ),
        (
            "SSWS ${OKTA_TOKEN}",
            'curl -H "Authorization: SSWS ${OKTA_TOKEN}" https://acme.okta.com/api/v1/users',
        ),
        ("Token $DRF_TOKEN", "Authorization: Token $DRF_TOKEN"),
        ("AUTH <password>", "Use AUTH <password> to authenticate the connection."),
        (
            "app.config['SECRET_KEY'] = os.environ['SECRET_KEY']",
            "app.config['SECRET_KEY'] = os.environ['SECRET_KEY']",
        ),
        ("settings.SECRET_KEY", "key = settings.SECRET_KEY"),
        ("keyof typeof", "type Key = keyof typeof tokens;"),
        ("password: string;", "interface Login {\n  user: string;\n  password: string;\n}"),
        (
            "PasswordField",
            "password = forms.CharField(widget=forms.PasswordInput)  # PasswordField",
        ),
    ]:
        rows.append(benign(code, v, ctx))
    masked = "look-alike: masked or placeholder"
    for v, ctx in [
        ("********", "password: ********"),
        ("****************abcd", "Token: ****************abcd"),
        ("sk-...AbCd", "OPENAI_API_KEY: sk-...AbCd (set)"),
        ("[FILTERED]", 'Parameters: {"user"=>{"email"=>"a@b.c", "password"=>"[FILTERED]"}}'),
        ("<redacted>", "Authorization: <redacted>"),
        ("•••••••", "Passwort: •••••••"),
        ("xxxxxxxx-xxxx-xxxx", "license_key: xxxxxxxx-xxxx-xxxx"),
        ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
        (
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("your-api-key-here", "api_key = 'your-api-key-here'"),
        ("<YOUR_SONAR_TOKEN>", "sonar-scanner -Dsonar.token=<YOUR_SONAR_TOKEN>"),
        ("REPLACE_ME", "HONEYCOMB_API_KEY=REPLACE_ME"),
        (
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "url: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        ),
        ("bot<token>", "GET https://api.telegram.org/bot<token>/getMe"),
        (
            "bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
            "https://api.telegram.org/bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11/getMe",
        ),
        (
            "user:password@tcp(localhost:3306)/dbname",
            'db, err := sql.Open("mysql", "user:password@tcp(localhost:3306)/dbname")',
        ),
        ("hostname:port:database:username:password", "# hostname:port:database:username:password"),
        ("sk-ant-api03-...", "export ANTHROPIC_API_KEY=sk-ant-api03-..."),
        ("squ_XXXXXXXX", "SONAR_TOKEN=squ_XXXXXXXX"),
        ("pk_live_", ""),
        ("pk_test_", ""),
        ("publishable", ""),
        ("[REDACTED:github-token]", "token: [REDACTED:github-token]"),
        ("***", "Passwort: ***"),
        (
            "changeme-in-production",
            "# set SECRET_KEY (default changeme-in-production) before deploying",
        ),
        ("example", "password: example"),
        ("dummy", "password = 'dummy'  # tests only"),
        ("{password}", "mongosh -u admin -p {password}"),
        ("$MYSQL_PWD", 'mysqladmin -u root -p"$MYSQL_PWD" status'),
        ("%(password)s", "dsn = 'host=db user=app password=%(password)s'"),
    ]:
        if not ctx:
            continue
        rows.append(benign(masked, v, ctx))
    pk = "pk_live_" + rs(ALNUM, 99)
    rows.append(benign(masked, pk, f"STRIPE_PUBLISHABLE_KEY={pk}"))
    pkt = "pk_test_" + rs(ALNUM, 40)
    rows.append(benign(masked, pkt, f"Stripe('{pkt}')"))
    clerk = "pk_live_" + b64url(30)
    rows.append(benign(masked, clerk, f"NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={clerk}"))
    ids = "look-alike: hashes and ids"
    for _ in range(4):
        sha = rs(HEX, 40)
        rows.append(benign(ids, sha, f"commit {sha}\nAuthor: Ada <ada@acme.io>"))
    sha = rs(HEX, 40)
    rows.append(benign(ids, sha, f"- uses: actions/checkout@{sha} # v4.1.1"))
    sha = rs(HEX, 7)
    rows.append(benign(ids, sha, f"{sha} fix: keep the token name"))
    for _ in range(3):
        u = uid()
        rows.append(benign(ids, u, f"request_id={u} status=200"))
    u = uid()
    rows.append(benign(ids, u, f'  uid: {u}\n  resourceVersion: "48213"'))
    d = hashlib.sha256(rng.randbytes(16)).hexdigest()
    rows.append(benign(ids, d, f"Digest: sha256:{d}"))
    d = hashlib.sha256(rng.randbytes(16)).hexdigest()
    rows.append(benign(ids, d, f"requests==2.32.3 --hash=sha256:{d}"))
    d = rs(HEX, 64)
    rows.append(benign(ids, d, f"CONTAINER ID {d}"))
    integ = "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(8)).digest()).decode()
    rows.append(benign(ids, integ, f'"integrity": "{integ}"'))
    integ = "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(8)).digest()).decode()
    rows.append(benign(ids, integ, f"  integrity {integ}"))
    h1 = "h1:" + base64.b64encode(hashlib.sha256(rng.randbytes(8)).digest()).decode()
    rows.append(benign(ids, h1, f"golang.org/x/net v0.24.0 {h1}"))
    fp = "SHA256:" + base64.b64encode(hashlib.sha256(rng.randbytes(8)).digest()).decode().rstrip(
        "="
    )
    rows.append(benign(ids, fp, f"256 {fp} ada@acme.io (ED25519)"))
    etag = rs(HEX, 32)
    rows.append(benign(ids, etag, f'ETag: "{etag}"'))
    ray = rs(HEX, 16) + "-AMS"
    rows.append(benign(ids, ray, f"cf-ray: {ray}"))
    arn = f"arn:aws:iam::{rs(DIGITS, 12)}:role/deploy"
    rows.append(benign(ids, arn, f"RoleArn: {arn}"))
    amz = rs(UPPER + DIGITS, 16)
    rows.append(benign(ids, amz, f"x-amz-request-id: {amz}"))
    blobs = "look-alike: blobs and public keys"
    img = "data:image/png;base64," + b64(300)
    rows.append(benign(blobs, img, f'<img src="{img}">'))
    img = "data:image/svg+xml;base64," + b64(200)
    rows.append(benign(blobs, img, f"background: url({img});"))
    key = "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(24)[:43]
    rows.append(benign(blobs, key, f"ssh-ed25519 {key} ada@laptop"))
    key = "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(300)
    rows.append(benign(blobs, key, f"ssh-rsa {key} ci@build"))
    pub = (
        "-----BEGIN PUBLIC KEY-----\n"
        + "\n".join(b64(200)[i : i + 64] for i in range(0, 268, 64))
        + "\n-----END PUBLIC KEY-----"
    )
    rows.append(benign(blobs, pub, pub))
    cert = (
        "-----BEGIN CERTIFICATE-----\n"
        + "\n".join(b64(300)[i : i + 64] for i in range(0, 400, 64))
        + "\n-----END CERTIFICATE-----"
    )
    rows.append(benign(blobs, cert, cert))
    woff = "data:font/woff2;base64," + b64(240)
    rows.append(benign(blobs, woff, f"src: url({woff}) format('woff2');"))
    age = "age1" + rs(LOWER + DIGITS, 58)
    rows.append(benign(blobs, age, f"# public key: {age}"))
    minified = rs(ALNUM, 48)
    rows.append(
        benign(blobs, minified, f"sourceMappingURL=main.{minified[:8]}.js.map // build {minified}")
    )
    prose = "look-alike: prose and other languages"
    for v in [
        "Passwort vergessen?",
        "Введите пароль",
        "密码错误，请重试",
        "contraseña incorrecta",
        "Mot de passe oublié ?",
        "The password reset link was sent.",
        "Rotate the token every 90 days.",
        "Set SECRET_KEY in the environment, never in the repository.",
        "パスワードを入力してください",
        "secret santa draw is on Friday",
        "Token budget exceeded: 128000 tokens",
        "The key: consistency over cleverness.",
        "password: required, at least 12 characters",
        "login.password.label: Passwort",
        "Your webhook URL is shown once; copy it now.",
        "Zapier catches the hook and posts to Slack.",
    ]:
        rows.append(benign(prose, v, v))
    return rows


def fresh() -> list[Row]:
    """A second batch, written after the position rules and measured before any rule saw it."""
    rows: list[Row] = []
    c = "fresh: vendor or position"
    p = [pw() for _ in range(60)]
    k = [rs(ALNUM, 40) for _ in range(40)]
    cases = [
        (rs(HEX, 32) + "-us21", "mailchimp api key {}"),
        ("2/" + rs(DIGITS, 16) + "/" + rs(DIGITS, 16) + ":" + rs(HEX, 32), "ASANA_PAT={}"),
        (rs(ALNUM, 32), "Fastly-Key: {}"),
        ("dp.pt." + rs(ALNUM, 43), "doppler configure set token {}"),
        ("fo1_" + rs(B64URL, 43), "FLY_API_TOKEN={}"),
        ("lin_oauth_" + rs(HEX, 64), "linear oauth {}"),
        ("sk-" + rs(ALNUM, 48), "openai.api_key = '{}'"),
        ("xkeysib-" + rs(HEX, 64) + "-" + rs(ALNUM, 16), "sendinblue {}"),
        ("ya29." + rs(B64URL, 120), "gcloud auth print-access-token -> {}"),
        ("1//" + rs(B64URL, 60), "refresh_token: {}"),
        ("EAAC" + rs(ALNUM, 150), "fb access token {}"),
        ("AC" + rs(HEX, 32), "TWILIO_ACCOUNT_SID=AC00 TWILIO_AUTH_TOKEN={}"),
        ("shppa_" + rs(HEX, 32), "shopify private app {}"),
        ("CCIPAT_" + rs(ALNUM, 22) + "_" + rs(HEX, 40), "circleci token {}"),
        ("sntryu_" + rs(HEX, 64), "sentry user token {}"),
        ("NRII-" + rs(B64URL, 32), "insert key {}"),
        ("dt0c01." + rs(UPPER + DIGITS, 24) + "." + rs(UPPER + DIGITS, 64), "DT_API_TOKEN={}"),
        ("eyJrIjoi" + b64(60).rstrip("="), "grafana api key {}"),
        ("key-" + rs(HEX, 32), "mailgun {}"),
        ("SG." + rs(B64URL, 22) + "." + rs(B64URL, 43), "sendgrid: {}"),
        (rs(ALNUM, 64), "X-Algolia-API-Key: {}"),
        (rs(HEX, 40), "X-TrackerToken: {}"),
        (rs(ALNUM, 36), "x-pm-partner-key: {}"),
        (rs(HEX, 32), "DD_API_KEY={}"),
        (rs(HEX, 40), "DD_APP_KEY: {}"),
        (rs(ALNUM, 24), "Authorization: Zoho-oauthtoken {}"),
        (rs(ALNUM, 40), "Authorization: Key {}"),
        (rs(ALNUM, 32), "Authorization: OAuth {}"),
        (b64(24), "Authorization: NTLM {}"),
        (rs(ALNUM, 30), "Authorization: HMAC {}"),
        (p[0], "pg_dump 'host=db user=app password={} dbname=app'"),
        (p[1], "mysql --user=root --password={} app"),
        (p[2], "sqlcmd -S db -U sa -P {}"),
        (p[3], "psql postgresql://app@db/app?password={}"),
        (p[4], "Server=db;Database=app;Uid=app;Password='{}';"),
        (p[5], "clickhouse-client --host db --user default --password {}"),
        (p[6], "redis-cli -h cache --pass {}"),
        (p[7], "memcached-tool --sasl-pwd {}"),
        (p[8], "ncat --ssl db 5432 # PGPASSWORD={}"),
        (p[9], "git clone https://oauth2:{}@gitlab.acme.io/x.git"),
        (p[10], "smbpasswd -a bob -s <<< {}"),
        (p[11], "echo '{}' | sudo -S apt-get update"),
        (p[12], "ansible-playbook site.yml -e ansible_password={}"),
        (p[13], "terraform apply -var db_password={}"),
        (p[14], "helm install db bitnami/postgresql --set auth.postgresPassword={}"),
        (p[15], "kubectl create secret docker-registry reg --docker-password={}"),
        (p[16], "pip install --index-url https://ci:{}@pypi.acme.io/simple pkg"),
        (p[17], "svn checkout --username bob --password {} https://svn.acme.io/r"),
        (p[18], "ftp -n <<EOF\nuser bob {}\nEOF"),
        (p[19], "expect -c 'send \"{}\\r\"'  # ssh password"),
        (k[0], 'export const firebaseSecret = "{}";'),
        (k[1], "settings['api_secret'] = \"{}\""),
        (k[2], "SECRET_TOKEN: Final = '{}'"),
        (k[3], 'public const string ClientSecret = "{}";'),
        (k[4], '#define API_KEY "{}"'),
        (k[5], 'export TF_VAR_token="{}"'),
        (k[6], '<add key="ApiSecret" value="{}" />'),
        (k[7], 'config :app, MyApp.Repo, password: "{}"'),
        (k[8], "spring:\n  security:\n    oauth2:\n      client-secret: {}"),
        (k[9], "[auth]\nclient_secret={}"),
        (k[10], "token => '{}',"),
        (k[11], "'client_secret' => '{}',"),
        (p[20], 'DB_PASS: "{}"'),
        (p[21], "<Password>{}</Password>"),
        (p[22], "passwd: {}"),
        (p[23], "user_password = {}"),
        (p[24], "rootPassword: {}"),
        (p[25], "adminPass={}"),
        (p[26], "pass: {}"),
        (p[27], '{{"pwd": "{}"}}'),
        (p[28], "Пароль администратора: {}"),
        (p[29], "管理员密码: {}"),
        (p[30], "Passwort für root: {}"),
        (p[31], "clave de acceso: {}"),
        (p[32], 'password = "{}" # nosec'),
        (p[33], "la contraseña es {}"),
        (p[34], "%22password%22%3A%20%22{}%22"),
        (p[35], "&quot;passwd&quot;:&quot;{}&quot;"),
        (p[36], '\\"password\\":\\"{}\\"'),
        (p[37], "password%3D{}%26user%3Dbob"),
        (
            k[12],
            "https://hooks.slack.com/workflows/T"
            + rs(UPPER + DIGITS, 8)
            + "/A"
            + rs(UPPER + DIGITS, 10)
            + "/"
            + rs(DIGITS, 18)
            + "/{}",
        ),
        (k[13][:32], "https://api.pushover.net/1/messages.json?token={}&user=u"),
        (rs(ALNUM, 24), "https://webhook.site/#!/{}"),
        (uid(), "https://events.pagerduty.com/integration/{}/enqueue"),
        (rs(HEX, 32), "https://api.opsgenie.com/v1/json/cloudwatch?apiKey={}"),
        (rs(ALNUM, 40), "https://ntfy.sh/alerts?auth={}"),
        (
            rs(B64URL, 43),
            "https://prod-00.uksouth.logic.azure.com/workflows/x/triggers/manual/paths/invoke?sv=1.0&sig={}",
        ),
        (
            rs(ALNUM, 32),
            "https://outlook.office.com/webhook/" + uid() + "/IncomingWebhook/{}/" + uid(),
        ),
    ]
    for value, ctx in cases:
        rows.append(secret(c, value, ctx.format(value)))
    lc = "fresh: look-alike"
    for v in [
        "password: ${{ secrets.DB_PASSWORD }}",
        "password = getpass.getpass()",
        "password: !vault |",
        "pass: true",
        "secret: false",
        "token_url: https://oauth2.googleapis.com/token",
        "api_key_header: X-API-Key",
        "authorization_endpoint: https://acme.okta.com/oauth2/v1/authorize",
        "Authorization: Bearer ${TOKEN}",
        "Authorization: Basic $(echo -n $U:$P | base64)",
        "mysql -u root -p",
        "mysql --password",
        "psql -W",
        "sqlcmd -S db -U sa -P $SA_PASSWORD",
        "docker run -p 127.0.0.1:5432:5432 postgres",
        "ssh -p 22 -i ~/.ssh/id_ed25519 bob@host",
        "zip -P",
        'redis-cli -a "$REDIS_PASSWORD"',
        "AUTH $REDIS_PASSWORD",
        "jdbc:postgresql://db:5432/app?ssl=true",
        "Server=db;Database=app;Integrated Security=true;",
        "app:@tcp(db:3306)/app",
        "machine github.com login bob password $GH_TOKEN",
        "const passwordInput = document.querySelector('#password');",
        "if (!password) throw new Error('password required');",
        "setPassword(newPassword);",
        "user.set_password(form.cleaned_data['password'])",
        "SECRET_KEY = env('SECRET_KEY')",
        "api_key = settings.get('api_key')",
        "token = response.json()['access_token']",
        "Пароль должен содержать не менее 8 символов",
        "密码长度至少为8位",
        "Das Passwort ist abgelaufen.",
        "La contraseña ha caducado.",
        "tokens: 4096",
        "sha256:" + rs(HEX, 64),
        "git rev-parse HEAD # " + rs(HEX, 40),
        'ETag: W/"' + rs(HEX, 32) + '"',
        "x-request-id: " + uid(),
        "trace_id=" + rs(HEX, 32) + " span_id=" + rs(HEX, 16),
        'integrity="sha384-' + base64.b64encode(rng.randbytes(48)).decode() + '"',
        "npm notice shasum: " + rs(HEX, 40),
        'Cargo.lock checksum = "' + rs(HEX, 64) + '"',
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(24)[:43] + " bob@host",
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"
        + b64(48)
        + " host",
        "data:image/jpeg;base64," + b64(200),
        "pk_test_" + rs(ALNUM, 24),
        "NEXT_PUBLIC_SUPABASE_ANON_KEY_NAME=anon",
        "password: <your password>",
        "token: YOUR_TOKEN_HERE",
        "api_key: sk-xxxxxxxxxxxxxxxxxxxxxxxx",
        "SONAR_TOKEN=squ_****",
        "webhook: https://hooks.slack.com/services/XXX/YYY/ZZZ",
        "https://api.telegram.org/bot$TELEGRAM_TOKEN/sendMessage",
        "https://discord.com/api/webhooks/{id}/{token}",
        "password reset token expires in 24 hours",
        "The secret key is rotated weekly by the vault agent.",
        "-storepass:file store.pass",
        "openssl req -new -key key.pem -passin stdin",
        'curl -u "$CI_USER" https://api.acme.io',
    ]:
        rows.append(benign(lc, v, v))
    return rows


def main() -> None:
    rows = (
        vendors()
        + schemes()
        + webhooks()
        + connections()
        + flags()
        + source()
        + configs()
        + encodings()
        + languages()
        + lookalikes()
    )
    with (HERE / "cases.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    n = sum(r["expect"] == "secret" for r in rows)
    print(f"{n} secrets, {len(rows) - n} look-alikes")
    batch = fresh()
    with (HERE / "fresh.jsonl").open("w", encoding="utf-8") as out:
        for row in batch:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    n = sum(r["expect"] == "secret" for r in batch)
    print(f"fresh: {n} secrets, {len(batch) - n} look-alikes")


if __name__ == "__main__":
    main()
