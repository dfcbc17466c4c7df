# ruff: noqa: E501
"""Build batch N of the held-apart redaction set.

Written blind to the redaction rules: the author read neither the rules, nor their tests, nor
any earlier batch. The rows come from the documentation of tools that no earlier batch names:
telephony (Asterisk, Kamailio), e-commerce and ERP (Magento, WooCommerce, Shopware, Frappe /
ERPNext, Dolibarr, TYPO3), hypervisors, firewalls and routers (Proxmox VE, OPNsense, MikroTik
RouterOS), HPC (Slurm), backup and NAS (Bacula, Synology Chat), game servers (Minecraft RCON,
Pterodactyl), geocoding (OpenCage), monitoring (Uptime Kuma), desktop clients (FileZilla,
WinSCP), embedded and firmware tooling (PlatformIO, Tasmota, MCUboot imgtool) and Windows
installer builders (Inno Setup, InstallShield iSign).

Pages actually read (through the search tool):
  docs.asterisk.org Configuring-Outbound-Registrations and AMI_Actions/PJSIPRegister;
  blog.csdn.net/radkitty/article/details/4958952 (Asterisk sip.conf options, register => line);
  gist.github.com/matt-bailey/3768af1d9c6c372fc20deaec4ccac3cc (Magento 2 env.php) and
  github.com/magento/ece-tools/issues/814 (crypt key);
  developer.woocommerce.com/docs/apis/rest-api/authentication/ and
  woocommerce.github.io/woocommerce-rest-api-docs/wp-api-v2.html;
  github.com/FreshPerf/PVE4J/wiki/Authentication (Proxmox USER@REALM!TOKENID=SECRET);
  slurm.schedmd.com/slurmdbd.conf.html; pterodactyl-api-docs.netvpx.com/docs/authentication;
  help.mikrotik.com/docs/display/ROS/User and the PPP AAA page; docs.opnsense.org
  development/how-tos/api.html and development/api.html; pypi.org/project/opn-cli/0.4.0/;
  pastebin.com/t1W219zz (FileZilla sitemanager.xml base64 Pass); winscp.net/eng/docs/
  scriptcommand_open; github.com/itzg/docker-minecraft-server (RCON_PASSWORD) and
  github.com/jedie/PyRconShell (server.properties); opencagedata.com/api;
  bacula.org/15.0.x-manuals/en/main/Configuring_Director.html and github.com/glenonmateus/
  bacula-dir; the Kamailio sipcapture README (sr-dev mail-archive msg32280) and
  github.com/kamailio/kamailio/issues/3433 (kamctlrc); docs.shopware.com integrations (en, de)
  and forum.shopware.com/t/admin-api-access/65882; docs.platformio.org pio account token and
  pio account login; github.com/TYPO3/typo3 advisory GHSA-h47m-3f78-qp9g and
  packagist.org/packages/aerticket/configuration-blinder; tasmota.github.io/docs/Commands/ and
  docs/MQTT; kb.synology.com/es-es/DSM/help/Chat/chat_integration, github.com/bitcanon/synochat
  and github.com/caronc/apprise/wiki/Notify_synology_chat; docs.frappe.io token based
  authentication and frappe.io/docs/user/en/api/rest; wiki.dolibarr.org Module Web Services API
  REST (developer); jrsoftware.org/ishelp topic_setup_signtool.htm and topic_issigtool.htm;
  docs.revenera.com InstallShield iSign.htm; docs.mcuboot.com/imgtool and
  docs.zephyrproject.org west sign; github.com/louislam/uptime-kuma/wiki/Internal-API and
  metacpan.org WebService-UptimeKuma-Push kuma-push.

Rows whose source starts with "follows" use a form the tool documents on a page that was not
read here (FreeSWITCH gateways, PrestaShop webservice keys, TrueNAS API keys, FortiGate and
UniFi API keys, HERE / TomTom / Geoapify keys, Godot Android export presets, Pterodactyl Wings
config, Slurm JWT, Frappe bench, Magento setup:install and composer auth, Squadcast and Pumble
webhooks, espota); they were written from general knowledge of those tools.

Every secret is fake: it comes from a seeded generator, so the file is the same on every run.

Usage: python tests/data/redaction_held_apart/build_batch_n.py writes batch-n.jsonl;
--check verifies that the file equals the rows and that the rows are valid, printing
"N rows, ok" (exit 0) or the problems (exit 1).
"""

from __future__ import annotations

import base64
import html
import json
import random
import string
import sys
import urllib.parse
from pathlib import Path

OUT = Path(__file__).with_name("batch-n.jsonl")
rng = random.Random(20261204)

BANNED = ("example", "xxx", "changeme")
USED: set[str] = set()

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
PWCH = ALNUM + "!#%*+-._~"


def banned(s: str) -> bool:
    low = s.lower()
    return any(b in low for b in BANNED)


def tok(alphabet: str, n: int, prefix: str = "") -> str:
    """A fresh random string: never one containing a banned word, never one already used."""
    while True:
        s = prefix + "".join(rng.choice(alphabet) for _ in range(n))
        if not banned(s) and s not in USED:
            USED.add(s)
            return s


def pw(n: int | None = None) -> str:
    """A password-like value with at least one digit and one symbol."""
    n = n or rng.randint(12, 20)
    while True:
        s = tok(PWCH, n)
        if any(c.isdigit() for c in s) and any(c in "!#%*+-._~" for c in s):
            return s


def hexs(n: int) -> str:
    return tok(HEX, n)


def uid() -> str:
    h = hexs(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"


def fresh(s: str) -> str:
    """Register a derived (encoded) secret, refusing banned words and repeats."""
    if banned(s) or s in USED:
        raise ValueError(f"derived secret not usable: {s!r}")
    USED.add(s)
    return s


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def jwt() -> str:
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    return fresh(f"{head}.{tok(URLSAFE, 86)}.{tok(URLSAFE, 43)}")


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

ROWS: list[dict[str, str]] = []


def cited(source: str) -> str:
    """A source as the held-apart harness takes it: a page's address with its scheme; a row
    written from what a tool documents on a page not read says "follows …"."""
    if source.startswith(("http://", "https://", "follows ")):
        return source
    return "https://" + source


def sec(cls: str, source: str, template: str, secret: str) -> None:
    source = cited(source)
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
    source = cited(source)
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


# Sources read.
S_AST = "docs.asterisk.org/Configuration/Channel-Drivers/SIP/Configuring-res_pjsip/Configuring-Outbound-Registrations/"
S_AMI = "docs.asterisk.org/Latest_API/API_Documentation/AMI_Actions/PJSIPRegister/"
S_SIPCONF = "blog.csdn.net/radkitty/article/details/4958952 (Asterisk sip.conf)"
S_MAG = "gist.github.com/matt-bailey/3768af1d9c6c372fc20deaec4ccac3cc (Magento 2 env.php)"
S_MAGCK = "github.com/magento/ece-tools/issues/814 (Magento crypt key)"
S_WOO = "developer.woocommerce.com/docs/apis/rest-api/authentication/"
S_WOO2 = "woocommerce.github.io/woocommerce-rest-api-docs/wp-api-v2.html"
S_PVE = "github.com/FreshPerf/PVE4J/wiki/Authentication (Proxmox VE API tokens)"
S_SLURM = "slurm.schedmd.com/slurmdbd.conf.html"
S_PTERO = "pterodactyl-api-docs.netvpx.com/docs/authentication"
S_MTU = "help.mikrotik.com/docs/display/ROS/User"
S_MTP = "help.mikrotik.com/docs/x/u4AqCw (RouterOS PPP AAA)"
S_OPN = "docs.opnsense.org/development/how-tos/api.html"
S_OPNAPI = "docs.opnsense.org/development/api.html"
S_OPNCLI = "pypi.org/project/opn-cli/0.4.0/"
S_FZ = "pastebin.com/t1W219zz (FileZilla sitemanager.xml, Pass encoding=base64)"
S_WINSCP = "winscp.net/eng/docs/scriptcommand_open"
S_MC = "github.com/itzg/docker-minecraft-server (docs/configuration/server-properties.md, RCON)"
S_MC2 = "github.com/jedie/PyRconShell (server.properties rcon settings)"
S_OC = "opencagedata.com/api"
S_BAC = "bacula.org/15.0.x-manuals/en/main/Configuring_Director.html"
S_BACD = "github.com/glenonmateus/bacula-dir (BACULA_* environment)"
S_KAM = "mail-archive.com/sr-dev@lists.kamailio.org/msg32280.html (Kamailio sipcapture db_url)"
S_KAMRC = "github.com/kamailio/kamailio/issues/3433 (kamctlrc DBRWPW)"
S_SW = "docs.shopware.com/en/shopware-6-en/settings/system/integrationen"
S_SWDE = "docs.shopware.com/de/shopware-6-de/einstellungen/system/integrationen"
S_SWF = "forum.shopware.com/t/admin-api-access/65882"
S_PIOT = "docs.platformio.org/en/latest/core/userguide/account/cmd_token.html"
S_PIOL = "docs.platformio.org/en/latest/core/userguide/account/cmd_login.html"
S_T3 = "github.com/TYPO3/typo3/security/advisories/GHSA-h47m-3f78-qp9g (encryptionKey)"
S_T3B = "packagist.org/packages/aerticket/configuration-blinder"
S_TAS = "tasmota.github.io/docs/Commands/"
S_TASM = "tasmota.github.io/docs/MQTT"
S_SYNO = "kb.synology.com/es-es/DSM/help/Chat/chat_integration"
S_SYNOPY = "github.com/bitcanon/synochat"
S_APPRISE = "github.com/caronc/apprise/wiki/Notify_synology_chat"
S_FR = "docs.frappe.io/framework/user/en/guides/integration/rest_api/token_based_authentication"
S_FRR = "frappe.io/docs/user/en/api/rest"
S_DOLI = "wiki.dolibarr.org/index.php/Module_Web_Services_API_REST_(developer)"
S_INNO = "jrsoftware.org/ishelp/topic_setup_signtool.htm"
S_INNOSIG = "jrsoftware.org/ishelp/topic_issigtool.htm"
S_ISIGN = "docs.revenera.com/installshield26helplib/helplibrary/iSign.htm"
S_MCU = "docs.mcuboot.com/imgtool"
S_WEST = "docs.zephyrproject.org/2.0.0/guides/west/sign.html"
S_KUMA = "github.com/louislam/uptime-kuma/wiki/Internal-API"
S_KUMAP = "metacpan.org/dist/WebService-UptimeKuma-Push/view/bin/kuma-push"
# Forms documented elsewhere (pages not read here).
F_FS = "follows FreeSWITCH sofia gateway docs (not read)"
F_PS = "follows PrestaShop webservice docs (not read)"
F_TN = "follows TrueNAS API key docs (not read)"
F_FG = "follows FortiGate REST API docs (not read)"
F_UNIFI = "follows UniFi Network API docs (not read)"
F_HERE = "follows HERE Geocoding API docs (not read)"
F_TT = "follows TomTom Search API docs (not read)"
F_GEO = "follows Geoapify docs (not read)"
F_GODOT = "follows Godot export_presets.cfg Android keystore docs (not read)"
F_WINGS = "follows Pterodactyl Wings config.yml docs (not read)"
F_SJWT = "follows Slurm jwt / slurmrestd docs (not read)"
F_BENCH = "follows Frappe bench CLI docs (not read)"
F_MAGCLI = "follows Magento setup:install and composer auth docs (not read)"
F_SQ = "follows Squadcast incident webhook docs (not read)"
F_PUMBLE = "follows Pumble incoming webhook docs (not read)"
F_ESPOTA = "follows PlatformIO espressif OTA upload_flags docs (not read)"


# ---------------------------------------------------------------- vendor token
V = "vendor token"
sec(
    V,
    S_PTERO,
    'curl "https://panel.spielwiese.net/api/client" -H "Authorization: Bearer {s}" -H "Accept: Application/vnd.pterodactyl.v1+json"',
    tok(ALNUM, 43, "ptlc_"),
)
sec(V, S_PTERO, "PTERO_APP_KEY={s}\nPTERO_URL=https://games.lanparty.fi", tok(ALNUM, 43, "ptla_"))
sec(
    V,
    S_OC,
    '$ curl -s \'https://api.opencagedata.com/geocode/v1/json?q=Frauenplan+1%2C+99423+Weimar&key={s}&limit=1\' | jq .status\n{"code": 200, "message": "OK"}',
    hexs(32),
)
sec(V, S_OC, "export OPENCAGE_API_KEY={s}\nraco test geocode.rkt", hexs(32))
sec(V, S_PVE, "PVE_TOKEN='automation@pve!terraform={s}'", uid())
sec(
    V,
    S_WOO,
    "WC_CONSUMER_KEY=ck_{k}\nWC_CONSUMER_SECRET={s}".replace("{k}", hexs(40)),
    tok(HEX, 40, "cs_"),
)
sec(
    V,
    S_SW,
    "Zugangs-ID: {a}\nSecret access key: {s}".replace("{a}", tok(UPPER, 22, "SWIA")),
    tok(ALNUM, 52),
)
sec(
    V,
    S_KUMA,
    "$ curl -su :{s} https://status.hausnetz.de/metrics | head -3",
    tok(URLSAFE, 32, "uk2_"),
)
sec(
    V,
    S_PIOT,
    '$ pio account token --json-output\n{"status": "success", "result": "{s}"}',
    tok(ALNUM, 48),
)
sec(
    V,
    S_DOLI,
    '$ export DOLAPIKEY={s}\n$ curl -s -H "DOLAPIKEY: $DOLAPIKEY" https://erp.moebel-lutz.at/api/index.php/thirdparties',
    tok(ALNUM, 32),
)
sec(V, F_TN, 'truenas_api_key = "{s}"', tok(ALNUM, 64, f"{rng.randint(2, 9)}-"))
sec(V, F_PS, "PS_WEBSERVICE_KEY={s} php bin/sync-stock.php --shop=boutique-lyon", tok(UPPER, 32))
sec(
    V,
    F_HERE,
    "GET https://geocode.search.hereapi.com/v1/geocode?q=Invalidenstr+117+Berlin&apiKey={s}",
    tok(URLSAFE, 43),
)
sec(V, F_TT, "tomtom:\n  search_key: {s}\n  language: nl-NL", tok(ALNUM, 32))
sec(
    V,
    F_GEO,
    "fetch(`https://api.geoapify.com/v1/geocode/search?text=${q}&apiKey={s}`) // server-side batch job",
    hexs(32),
)
sec(
    V,
    F_FG,
    "$ curl -k -H 'Authorization: Bearer {s}' https://fw-edge01:8443/api/v2/cmdb/firewall/address",
    tok(ALNUM, 30),
)

# ---------------------------------------------------------------- config file
C = "config file"
sec(
    C,
    S_AST,
    "[provider-trunk]\ntype=auth\nauth_type=userpass\nusername=4921155501\npassword={s}",
    pw(),
)
sec(
    C,
    S_SIPCONF,
    "[general]\nbindport=5060\nregister => 4930991234:{s}@sip.telefonica-voz.es/4930991234",
    tok(ALNUM, 16),
)
sec(
    C,
    S_AMI,
    "; /etc/asterisk/manager.conf\n[general]\nenabled = yes\nport = 5038\n\n[crm-bridge]\nsecret = {s}\nread = call,agent\nwrite = originate",
    pw(),
)
sec(
    C,
    S_MAG,
    "'db' => [\n    'connection' => [\n        'default' => [\n            'host' => 'mysql-primary',\n            'dbname' => 'magento',\n            'username' => 'magento',\n            'password' => '{s}',",
    pw(),
)
sec(C, S_MAGCK, "'crypt' => [\n    'key' => '{s}'\n],", hexs(32))
sec(
    C,
    S_SLURM,
    "# /etc/slurm/slurmdbd.conf\nStorageType=accounting_storage/mysql\nStorageHost=db01\nStorageUser=slurm\nStoragePass={s}\nStorageLoc=slurm_acct_db",
    pw(),
)
sec(
    C,
    S_BAC,
    'Director {\n  Name = nas-dir\n  DIRport = 9101\n  Password = "{s}"         # Console password\n  Messages = Daemon\n}',
    tok(B64, 44),
)
sec(
    C,
    S_BAC,
    'Catalog {\n  Name = MyCatalog\n  dbname = "bacula"; dbuser = "bacula"; dbpassword = "{s}"\n}',
    pw(),
)
sec(
    C,
    S_MC2,
    "enable-rcon=true\nrcon.port=25575\nrcon.password={s}\nserver-port=25565\nmotd=Survival Nord",
    tok(ALNUM, 14),
)
sec(
    C,
    S_KAMRC,
    '## database read/write user\nDBRWUSER="kamailio"\n## password for database read/write user\nDBRWPW="{s}"',
    tok(ALNUM, 24),
)
sec(
    C,
    S_OPN,
    "$ cat ~/Downloads/apikey.txt\nkey={k}\nsecret={s}".replace("{k}", tok(B64, 48)),
    tok(B64, 56),
)
sec(
    C,
    S_T3,
    "return [\n    'SYS' => [\n        'encryptionKey' => '{s}',\n        'sitename' => 'Stadtwerke Portal',",
    hexs(96),
)
sec(
    C,
    S_SW,
    "# shopware/.env.local\nAPP_ENV=prod\nAPP_SECRET={s}\nAPP_URL=https://shop.gartenhaus24.de",
    hexs(64),
)
sec(
    C,
    F_GODOT,
    '[preset.0.options]\nkeystore/release="/home/dev/keys/release.keystore"\nkeystore/release_user="upload"\nkeystore/release_password="{s}"',
    pw(),
)
sec(
    C,
    F_FS,
    '<gateway name="sipgate">\n  <param name="username" value="2471563e0"/>\n  <param name="password" value="{s}"/>\n  <param name="realm" value="sipgate.de"/>\n</gateway>',
    tok(ALNUM, 12),
)
sec(
    C,
    F_WINGS,
    "api:\n  host: 0.0.0.0\n  port: 8080\ntoken_id: {t}\ntoken: {s}".replace("{t}", tok(ALNUM, 16)),
    tok(ALNUM, 64),
)

# ---------------------------------------------------------------- cli password flag
P = "cli password flag"
sec(
    P,
    S_WINSCP,
    '$ winscp.com /command "open sftp://deploy@files.kanzlei-weber.de/ -password={s} -hostkey=*" "put build.zip /incoming/" "exit"',
    pw(),
)
sec(
    P,
    S_PIOL,
    "$ pio account login -u firmware@bienenstock.io -p '{s}'\nSuccessfully logged in!",
    pw(),
)
sec(
    P,
    S_OPNCLI,
    "$ opn-cli --api-key {k} --api-secret '{s}' --url https://10.0.0.1/api firewall alias list".replace(
        "{k}", tok(B64, 48)
    ),
    tok(B64, 56),
)
sec(
    P,
    S_MTU,
    "[admin@MikroTik] > /user add name=noc-backup group=read password={s} address=10.20.0.0/16",
    pw(),
)
sec(
    P,
    S_MTP,
    "[admin@core-rtr] > /ppp secret add name=filiale-graz password={s} service=l2tp profile=vpn-site remote-address=172.16.9.2",
    tok(ALNUM, 16),
)
sec(
    P,
    S_ISIGN,
    'iSign.exe -pfx "C:\\Certs\\codesign.pfx" -p "{s}" "C:\\Build\\Media\\Release 1\\Disk Images\\Disk1\\data1.hdr"',
    pw(),
)
sec(
    P,
    S_MC,
    "$ docker run -d -p 25565:25565 -e EULA=TRUE -e ENABLE_RCON=true -e RCON_PASSWORD={s} itzg/minecraft-server",
    tok(ALNUM, 18),
)
sec(P, S_MC, "$ docker exec mc rcon-cli --password {s} save-all flush", tok(ALNUM, 20))
sec(
    P,
    S_KAMRC,
    "$ kamctl add 1001@voip.stadtnetz.de {s}\nnew user '1001@voip.stadtnetz.de' added",
    tok(ALNUM, 14),
)
sec(
    P,
    F_MAGCLI,
    "$ bin/magento setup:install --base-url=https://shop.teehaus.de/ --db-host=db --db-name=magento --db-user=magento --db-password='{s}' --admin-user=ops --admin-password='{a}'".replace(
        "{a}", pw()
    ),
    pw(),
)
sec(
    P,
    F_BENCH,
    "$ bench new-site erp.zementwerk.local --admin-password '{s}' --mariadb-root-password '{r}'".replace(
        "{r}", pw()
    ),
    pw(),
)
sec(
    P,
    S_PVE,
    "$ pvesm add cifs nas-backup --server 192.168.10.5 --share pve --username backup --password '{s}'",
    pw(),
)
sec(
    P,
    S_SW,
    "$ bin/console user:create ops-admin --admin --email=ops@moebel.de --password='{s}'",
    pw(),
)
sec(
    P,
    F_ESPOTA,
    "$ python3 espota.py -i 192.168.1.57 -p 3232 --auth={s} -f .pio/build/esp32dev/firmware.bin",
    tok(ALNUM, 12),
)
sec(
    P,
    S_TASM,
    "$ mosquitto_pub -h broker.lan -u tasmota -P '{s}' -t cmnd/kueche/Power -m TOGGLE",
    pw(),
)

# ---------------------------------------------------------------- source literal
L = "source literal"
sec(
    L,
    S_WOO2,
    "$woocommerce = new Client(\n    'https://shop.kaffeeroesterei.at',\n    'ck_{k}',\n    '{s}',\n    ['version' => 'wc/v3']\n);".replace(
        "{k}", hexs(40)
    ),
    tok(HEX, 40, "cs_"),
)
sec(
    L,
    S_PVE,
    'String token = "backup@pam!nightly={s}";\nProxmoxClient client = ProxmoxClient.withToken("pve01.lab", 8006, token);',
    uid(),
)
sec(
    L,
    S_PVE,
    "proxmox = ProxmoxAPI('pve1.dc2', user='root@pam', token_name='ansible', token_value='{s}', verify_ssl=False)",
    uid(),
)
sec(
    L,
    S_OPN,
    "api_key = '{k}'\napi_secret = '{s}'\nr = requests.get(url, auth=(api_key, api_secret), verify='/etc/ssl/opn.pem')".replace(
        "{k}", tok(B64, 48)
    ),
    tok(B64, 56),
)
sec(
    L,
    S_PTERO,
    "const client = new Pterodactyl.Builder()\n  .setURL('https://panel.blockhub.gg/')\n  .setAPIKey('{s}')\n  .asAdmin();",
    tok(ALNUM, 43, "ptla_"),
)
sec(
    L,
    S_PTERO,
    "PteroClient client = PteroClient.generate(\n  url: 'https://panel.craftnet.eu',\n  key: '{s}',\n);",
    tok(ALNUM, 43, "ptlc_"),
)
sec(L, S_OC, 'myDeveloperkey :: T.Text\nmyDeveloperkey = T.pack "{s}"', hexs(32))
sec(L, S_OC, "Geokit::Geocoders::OpencageGeocoder.key = '{s}'", hexs(32))
sec(
    L,
    S_FRR,
    "fetch('https://erp.holzbau-kern.de/api/method/frappe.auth.get_logged_user', {\n  headers: { 'Authorization': 'token {k}:{s}' }\n})".replace(
        "{k}", tok(LOWER, 15)
    ),
    tok(LOWER, 15),
)
sec(L, S_TASM, '#undef  MQTT_PASS\n#define MQTT_PASS         "{s}"   // [MqttPassword]', pw())
sec(
    L,
    F_ESPOTA,
    'ArduinoOTA.setHostname("gewaechshaus");\nArduinoOTA.setPassword("{s}");\nArduinoOTA.begin();',
    tok(ALNUM, 14),
)
sec(
    L,
    S_DOLI,
    "$ch = curl_init('https://crm.weingut-moser.at/api/index.php/invoices');\ncurl_setopt($ch, CURLOPT_HTTPHEADER, ['DOLAPIKEY: {s}', 'Accept: application/json']);",
    tok(ALNUM, 32),
)
sec(
    L,
    S_SYNOPY,
    "from synochat.webhooks import IncomingWebhook\nwebhook = IncomingWebhook('chat.familie-berg.de', '{s}', port=5001)",
    tok(ALNUM, 64),
)
sec(
    L,
    S_KUMAP,
    "my $push = WebService::UptimeKuma::Push->new(url => 'https://kuma.hof.de/api/push/{s}');",
    tok(ALNUM, 32),
)
sec(
    L,
    S_SW,
    'var client = new ShopwareClient("https://b2b.werkzeug.ch", "{a}", "{s}");'.replace(
        "{a}", tok(UPPER, 22, "SWIA")
    ),
    tok(ALNUM, 52),
)

# ---------------------------------------------------------------- http auth header
H = "http auth header"
_ck, _cs = tok(HEX, 40, "ck_"), tok(HEX, 40, "cs_")
sec(
    H,
    S_WOO,
    "> GET /wp-json/wc/v3/orders?status=processing HTTP/1.1\n> Host: laden.fahrradwerk.de\n> Authorization: Basic {s}",
    fresh(b64(f"{_ck}:{_cs}")),
)
sec(
    H,
    S_PTERO,
    "Authorization: Bearer {s}\nContent-Type: application/json\nAccept: Application/vnd.pterodactyl.v1+json",
    tok(ALNUM, 43, "ptlc_"),
)
sec(
    H,
    S_PVE,
    "$ curl -k -H 'Authorization: PVEAPIToken=root@pam!monitoring={s}' https://10.1.1.2:8006/api2/json/nodes",
    uid(),
)
sec(
    H,
    S_FR,
    'curl http://erp.local:8000/api/resource/Customer -H "Authorization: token {k}:{s}"'.replace(
        "{k}", tok(LOWER, 15)
    ),
    tok(LOWER, 15),
)
sec(
    H,
    S_DOLI,
    "GET /api/index.php/products HTTP/1.1\nHost: dolibarr.baeckerei.fr\nDOLAPIKEY: {s}\nDOLAPIENTITY: 2",
    tok(ALNUM, 32),
)
sec(
    H,
    S_SWF,
    "POST /api/search/product HTTP/1.1\nHost: shop.uhrmacher.de\nAuthorization: Bearer {s}",
    jwt(),
)
_ok, _os = tok(B64, 48), tok(B64, 56)
sec(
    H,
    S_OPNAPI,
    "> POST /api/core/firmware/status HTTP/1.1\n> Authorization: Basic {s}",
    fresh(b64(f"{_ok}:{_os}")),
)
sec(
    H,
    S_KUMA,
    "GET /metrics HTTP/1.1\nHost: kuma.intra\nAuthorization: Basic {s}",
    fresh(b64(":" + tok(URLSAFE, 32, "uk3_"))),
)
sec(
    H,
    F_TN,
    "$ curl -H 'Authorization: Bearer {s}' https://nas01.lan/api/v2.0/pool",
    tok(ALNUM, 64, "1-"),
)
sec(
    H,
    F_UNIFI,
    "$ curl -k -H 'X-API-KEY: {s}' https://unifi.buero:8443/proxy/network/integration/v1/sites",
    tok(URLSAFE, 32),
)
sec(
    H,
    F_SJWT,
    "$ curl -s -H X-SLURM-USER-NAME:hpcops -H X-SLURM-USER-TOKEN:{s} http://slurmrestd:6820/slurm/v0.0.40/jobs",
    jwt(),
)
sec(
    H,
    F_MAGCLI,
    "curl -X GET 'https://moda.lojaverde.com.br/rest/V1/orders?searchCriteria[pageSize]=20' -H 'Authorization: Bearer {s}'",
    tok(LOWER, 32),
)
sec(H, F_PS, "Authorization: Basic {s}\nOutput-Format: JSON", fresh(b64(tok(UPPER, 32) + ":")))
sec(
    H,
    F_FG,
    "GET /api/v2/monitor/system/status HTTP/1.1\nHost: 10.99.0.1\nAuthorization: Bearer {s}",
    tok(ALNUM, 30),
)
sec(H, S_SYNO, "X-Synology-Token: {s}", tok(URLSAFE, 40))

# ---------------------------------------------------------------- ci and yaml
Y = "ci and yaml"
sec(
    Y,
    S_PIOT,
    "jobs:\n  build:\n    runs-on: ubuntu-latest\n    env:\n      PLATFORMIO_AUTH_TOKEN: {s}\n    steps:\n      - run: pio remote run -e nodemcuv2",
    tok(ALNUM, 48),
)
sec(
    Y,
    S_MC,
    'services:\n  mc:\n    image: itzg/minecraft-server\n    environment:\n      EULA: "TRUE"\n      RCON_PASSWORD: "{s}"',
    tok(ALNUM, 20),
)
sec(
    Y,
    S_BACD,
    "  bacula-dir:\n    image: glenonmateus/bacula-dir:9.4.4\n    environment:\n      - BACULA_DBPASSWORD={s}\n      - BACULA_FDPASSWORD={f}".replace(
        "{f}", tok(ALNUM, 24)
    ),
    tok(ALNUM, 24),
)
sec(
    Y,
    S_OPNCLI,
    "---\napi_key: {k}\napi_secret: {s}\nurl: https://fw.kita-sonnenschein.de/api\nssl_verify: true".replace(
        "{k}", tok(B64, 48)
    ),
    tok(B64, 56),
)
sec(
    Y,
    S_PVE,
    "proxmox:\n  api_host: 10.0.0.1\n  api_token_id: terraform@pve!ci\n  api_token_secret: {s}",
    uid(),
)
sec(
    Y,
    S_SYNOPY,
    "notify:\n  synology_chat:\n    incoming_url: https://chat.praxis-lehmann.de/webapi/entry.cgi?api=SYNO.Chat.External&method=incoming&version=2&token=%22{s}%22",
    tok(ALNUM, 64),
)
sec(
    Y,
    S_KUMAP,
    'backup:\n  stage: nightly\n  script:\n    - restic backup /srv\n    - curl -fsS "https://kuma.ops.net/api/push/{s}?status=up&msg=OK&ping="',
    tok(ALNUM, 32),
)
sec(
    Y,
    S_SLURM,
    'slurm_dbd:\n  storage_host: db.hpc.uni-x.de\n  storage_user: slurm\n  storage_pass: "{s}"',
    pw(),
)
sec(
    Y,
    F_MAGCLI,
    'variables:\n  COMPOSER_AUTH: \'{"http-basic": {"repo.magento.com": {"username": "{u}", "password": "{s}"}}}\''.replace(
        "{u}", hexs(32)
    ),
    hexs(32),
)
sec(
    Y,
    S_SW,
    "env:\n  SHOPWARE_ACCESS_KEY: {a}\n  SHOPWARE_SECRET_KEY: {s}".replace(
        "{a}", tok(UPPER, 22, "SWIA")
    ),
    tok(ALNUM, 52),
)
sec(
    Y,
    S_TAS,
    '- platform: mqtt\n  broker: 192.168.178.2\n  username: homeassistant\n  password: "{s}"',
    pw(),
)
sec(
    Y,
    S_PTERO,
    "pterodactyl:\n  panel_url: https://panel.zockerhafen.de\n  client_key: {s}",
    tok(ALNUM, 43, "ptlc_"),
)
sec(
    Y,
    S_DOLI,
    "- name: sync invoices\n  uri:\n    url: https://erp.fleurs.fr/api/index.php/invoices\n    headers:\n      DOLAPIKEY: {s}",
    tok(ALNUM, 32),
)
sec(
    Y,
    S_INNO,
    '- name: Build installer\n  run: iscc /Ssigntool="signtool.exe sign /f cert.pfx /p {s} /fd sha256 $f" setup.iss',
    pw(),
)
sec(
    Y,
    F_GODOT,
    "env:\n  GODOT_ANDROID_KEYSTORE_RELEASE_PATH: release.keystore\n  GODOT_ANDROID_KEYSTORE_RELEASE_USER: upload\n  GODOT_ANDROID_KEYSTORE_RELEASE_PASSWORD: {s}",
    pw(),
)

# ---------------------------------------------------------------- connection string
N = "connection string"
sec(
    N,
    S_KAM,
    'modparam("sipcapture", "db_url", "mysql://homer:{s}@10.3.0.8/homer_data")',
    tok(ALNUM, 18),
)
sec(N, S_KAM, '#!define DBURL "mysql://kamailio:{s}@localhost/kamailio"', tok(ALNUM, 16))
sec(
    N,
    S_KAM,
    'modparam("usrloc", "db_url", "postgres://kamailio:{s}@pg-voice.internal:5432/kamailio")',
    tok(ALNUM, 20),
)
sec(
    N,
    S_WINSCP,
    "winscp> open ftpes://webmaster:{s}@ftp.tischlerei-huber.at/ -explicit",
    tok(ALNUM, 15),
)
sec(
    N,
    S_WINSCP,
    '"C:\\Program Files (x86)\\WinSCP\\WinSCP.com" /command "open scp://root:{s}@192.168.50.2/" "ls /var/log"',
    tok(ALNUM, 16),
)
sec(N, S_FZ, "$ filezilla sftp://upload:{s}@ftp.druckerei-zeller.de:22/html", tok(ALNUM, 14))
sec(N, S_TASM, "MQTT_URL=mqtt://tasmota:{s}@192.168.0.20:1883", tok(ALNUM, 18))
sec(N, S_SW, "DATABASE_URL=mysql://shopware:{s}@database:3306/shopware", tok(ALNUM, 22))
sec(N, S_SW, "OPENSEARCH_URL=https://admin:{s}@opensearch.intern:9200", tok(ALNUM, 20))
sec(
    N,
    S_MAG,
    "'session' => [\n    'save' => 'redis',\n    'redis' => ['host' => 'redis-session', 'port' => '6379', 'password' => '{s}']\n],",
    tok(ALNUM, 24),
)
sec(
    N,
    F_BENCH,
    '{\n "redis_cache": "redis://:{s}@127.0.0.1:13000",\n "db_name": "_a7f2c19e"\n}',
    tok(ALNUM, 24),
)
sec(
    N,
    S_AMI,
    "[asterisk]\nenabled => yes\ndsn => asterisk-connector\nusername => asterisk\npassword => {s}\npre-connect => yes",
    pw(),
)
sec(
    N,
    S_AMI,
    "Driver={MariaDB ODBC 3.1 Driver};Server=db-pbx;Database=asteriskcdrdb;Uid=cdr;Pwd={s};",
    tok(ALNUM, 18),
)
sec(
    N,
    S_APPRISE,
    "apprise -b 'Backup fertig' 'synologys://ops:{s}@nas.fam-ito.jp:5001/{t}'".replace(
        "{t}", tok(ALNUM, 64)
    ),
    tok(ALNUM, 16),
)
sec(
    N,
    S_SLURM,
    "$ mysql 'mysql://slurm:{s}@db01:3306/slurm_acct_db' -e 'select count(*) from cluster_job_table'",
    tok(ALNUM, 18),
)

# ---------------------------------------------------------------- other language
LANG = "other language"
sec(
    LANG,
    S_SWDE,
    "Zugangs-ID: {a}\nSicherheitsschlüssel: {s}".replace("{a}", tok(UPPER, 22, "SWIA")),
    tok(ALNUM, 52),
)
sec(
    LANG,
    S_SYNO,
    "URL del webhook entrante (¡no la compartas!):\nhttps://nas.bodega-rioja.es:5001/webapi/entry.cgi?api=SYNO.Chat.External&method=incoming&version=2&token=%22{s}%22",
    tok(ALNUM, 64),
)
sec(
    LANG,
    S_MTP,
    "# tambah akun PPPoE pelanggan\n/ppp secret add name=pelanggan-017 password={s} service=pppoe profile=paket-20m  # kata sandi awal",
    tok(ALNUM, 12),
)
sec(
    LANG,
    S_AST,
    "; Учётная запись провайдера (логин и пароль от оператора)\n[rt-trunk]\ntype=auth\nusername=74951234567\npassword={s} ; пароль",
    tok(ALNUM, 14),
)
sec(LANG, S_MAG, "// 数据库连接配置\n'password' => '{s}', // 数据库密码", pw())
sec(LANG, S_SLURM, "# 計算クラスタ会計DB\nStorageUser=slurm\n# パスワード\nStoragePass={s}", pw())
sec(LANG, S_MC2, "# 서버 설정\nrcon.password={s}\n# 비밀번호는 공유하지 마세요", tok(ALNUM, 16))
sec(
    LANG,
    S_OPN,
    "Chave de API: {k}\nSegredo (senha da API): {s}".replace("{k}", tok(B64, 48)),
    tok(B64, 56),
)
sec(
    LANG,
    S_WOO,
    "Clé client : ck_{k}\nSecret client : {s}".replace("{k}", hexs(40)),
    tok(HEX, 40, "cs_"),
)
sec(
    LANG,
    S_BAC,
    'Director {\n  Name = yedek-dir\n  Password = "{s}"   # konsol şifresi\n}',
    tok(B64, 44),
)
sec(
    LANG,
    S_PIOL,
    "# Đăng nhập PlatformIO\n$ pio account login -u kythuat@nhamay.vn -p '{s}'  # mật khẩu",
    pw(),
)
sec(
    LANG,
    S_TAS,
    "Backlog MqttHost 10.0.0.5; MqttUser domotica; MqttPassword {s}; Topic cucina  // contraseña del broker",
    tok(ALNUM, 16),
)
sec(LANG, S_PVE, "Token-ID: root@pam!sicherung\nGeheimnis (nur einmal angezeigt): {s}", uid())
sec(LANG, S_DOLI, "Clé pour l'API (utilisateur « compta ») : {s}", tok(ALNUM, 32))
sec(LANG, S_KAMRC, '## كلمة مرور قاعدة البيانات\nDBRWPW="{s}"', tok(ALNUM, 20))

# ---------------------------------------------------------------- log line
G = "log line"
sec(
    G,
    S_AMI,
    "<-- Sent to 127.0.0.1:5038 -->\nAction: Login\nUsername: crm-bridge\nSecret: {s}\n\nResponse: Success\nMessage: Authentication accepted",
    pw(),
)
sec(
    G,
    S_TAS,
    '192.168.1.77 - - [04/Dec/2026:01:12:09 +0100] "GET /cm?user=admin&password={s}&cmnd=Power%20Toggle HTTP/1.1" 200 17',
    tok(ALNUM, 12),
)
sec(
    G,
    S_KUMAP,
    '10.0.4.2 - - [04/Dec/2026:02:00:01 +0000] "GET /api/push/{s}?status=up&msg=OK&ping= HTTP/1.1" 200 11 "-" "curl/8.5.0"',
    tok(ALNUM, 32),
)
sec(
    G,
    S_OC,
    '2026-12-04 01:22:13 DEBUG urllib3.connectionpool: https://api.opencagedata.com:443 "GET /geocode/v1/json?q=Sarzeau&key={s}&no_annotations=1 HTTP/1.1" 200 1834',
    hexs(32),
)
sec(
    G,
    S_DOLI,
    '203.0.113.9 - - [03/Dec/2026:23:51:40 +0100] "GET /api/index.php/invoices?DOLAPIKEY={s}&limit=100 HTTP/1.1" 200 48211',
    tok(ALNUM, 32),
)
sec(
    G,
    S_MAG,
    "#0 vendor/magento/framework/DB/Adapter/Pdo/Mysql.php(428): PDO->__construct('mysql:host=db;dbname=magento', 'magento', '{s}', Array)\n#1 vendor/magento/zendframework1/library/Zend/Db/Adapter/Abstract.php(460): Zend_Db_Adapter_Pdo_Abstract->_connect()",
    pw(),
)
sec(
    G,
    S_WOO2,
    "[2026-12-04T00:14:55+00:00] DEBUG wc-sync: GET https://shop.kerzenwelt.de/wp-json/wc/v3/products?consumer_key=ck_{k}&consumer_secret={s}&per_page=100".replace(
        "{k}", hexs(40)
    ),
    tok(HEX, 40, "cs_"),
)
sec(
    G,
    S_PIOL,
    'Uploading .pio/build/d1_mini/firmware.bin\n"/home/ci/.platformio/packages/framework-arduinoespressif8266/tools/espota.py" --debug --progress -i 192.168.1.61 --auth={s} -f .pio/build/d1_mini/firmware.bin',
    tok(ALNUM, 14),
)
sec(
    G,
    S_SWF,
    '[2026-12-04 01:02:11] request.INFO: Matched route "api.oauth.token". {"request_body":{"client_id":"{a}","client_secret":"{s}","grant_type":"client_credentials"}}'.replace(
        "{a}", tok(UPPER, 22, "SWIA")
    ),
    tok(ALNUM, 52),
)
sec(
    G,
    S_PTERO,
    '[2026-12-04 00:33:17] production.ERROR: cURL error 28 {"headers":{"Authorization":["Bearer {s}"],"Accept":["application/json"]}}',
    tok(ALNUM, 43, "ptla_"),
)
sec(
    G,
    S_PVE,
    "Dec 04 01:00:02 cron[2211]: (root) CMD (curl -sk -H 'Authorization: PVEAPIToken=backup@pve!cron={s}' https://localhost:8006/api2/json/cluster/backup)",
    uid(),
)
sec(
    G,
    S_KAM,
    " 0(2411) DEBUG: db_mysql [km_my_con.c:84]: db_mysql_new_connection(): connecting to mysql://kamailio:{s}@10.3.0.7:3306/kamailio",
    tok(ALNUM, 16),
)
sec(
    G,
    S_FR,
    "frappe.exceptions.AuthenticationError: Invalid token\n  headers = {'Authorization': 'token {k}:{s}', 'Accept': 'application/json'}".replace(
        "{k}", tok(LOWER, 15)
    ),
    tok(LOWER, 15),
)
sec(
    G,
    S_WINSCP,
    '. 2026-12-04 01:40:22.114 Command-line: "WinSCP.exe" /console /command "open sftp://ftpuser:{s}@backup.ost.local/"',
    tok(ALNUM, 15),
)
sec(
    G,
    S_SYNOPY,
    "INFO:synochat:POST https://nas.local:5001/webapi/entry.cgi?api=SYNO.Chat.External&method=incoming&version=2&token=%22{s}%22 -> 200",
    tok(ALNUM, 64),
)

# ---------------------------------------------------------------- encoding
E = "encoding"
_fz1, _fz2 = pw(), pw()
sec(
    E,
    S_FZ,
    '<Server>\n  <Host>ftp.schreinerei-vogt.ch</Host>\n  <Port>21</Port>\n  <User>vogt_web</User>\n  <Pass encoding="base64">{s}</Pass>\n  <Logontype>1</Logontype>',
    fresh(b64(_fz1)),
)
sec(
    E,
    S_FZ,
    "$ grep -A1 '<User>' ~/.config/filezilla/recentservers.xml\n    <User>deploy</User>\n    <Pass encoding=\"base64\">{s}</Pass>",
    fresh(b64(_fz2)),
)
_raw = tok(B64, 56)
sec(
    E,
    S_OPNAPI,
    '{"status":"ok","key":"' + tok(B64, 48).replace("/", "\\/") + '","secret":"{s}"}',
    fresh(_raw.replace("/", "\\/")),
)
_raw2 = tok(B64, 56)
sec(
    E,
    S_OPNAPI,
    "GET /api/diagnostics/interface/getArp?api_key=k1&api_secret={s} HTTP/1.1",
    fresh(urllib.parse.quote(_raw2, safe="")),
)
_amp = tok(ALNUM, 6) + "&" + tok(ALNUM, 5) + "<" + tok(ALNUM, 6)
sec(
    E,
    S_T3,
    '<input type="text" name="install[values][DB][Connections][Default][password]" value="{s}" />',
    fresh(html.escape(_amp)),
)
_q = tok(B64, 43) + "="
sec(
    E,
    S_BAC,
    'Content-Transfer-Encoding: quoted-printable\n\nDirector {\n  Name =3D backup-dir\n  Password =3D "{s}"\n}',
    fresh(_q.replace("=", "=3D")),
)
sec(
    E,
    S_SWF,
    '{\\"client_id\\":\\"'
    + tok(UPPER, 22, "SWIA")
    + '\\",\\"client_secret\\":\\"{s}\\",\\"grant_type\\":\\"client_credentials\\"}',
    tok(ALNUM, 52),
)
sec(
    E,
    S_WOO,
    '"authorization": "Basic {s}"',
    fresh(b64(f"{tok(HEX, 40, 'ck_')}:{tok(HEX, 40, 'cs_')}")),
)
_u = "p@ss:" + tok(ALNUM, 10) + "/" + tok(ALNUM, 4)
sec(
    E,
    S_WINSCP,
    "open sftp://martin:{s}@files.verein-tus.de/",
    fresh(urllib.parse.quote(_u, safe="")),
)
sec(E, S_KUMA, "data:\n  KUMA_PUSH_TOKEN: {s}", fresh(b64(tok(ALNUM, 32))))
_tj = tok(ALNUM, 10) + "\u00e4" + tok(ALNUM, 8)
sec(E, S_PIOT, '{"status": "success", "result": "{s}"}', fresh(json.dumps(_tj)[1:-1]))
_mq = tok(ALNUM, 8) + "+" + tok(ALNUM, 6) + " " + tok(ALNUM, 4)
sec(
    E,
    S_TAS,
    "http://192.168.1.30/cm?cmnd=Backlog%20MqttUser%20iot%3B%20MqttPassword%20{s}",
    fresh(urllib.parse.quote(_mq, safe="")),
)
_he = tok(ALNUM, 8) + '"' + tok(ALNUM, 8)
sec(
    E,
    S_DOLI,
    '<td class="titlefield">Clé pour l\'API</td><td><input name="api_key" value="{s}"></td>',
    fresh(html.escape(_he, quote=True)),
)
sec(E, S_MC, "rcon.password={s}", fresh(tok(ALNUM, 9) + "\\=" + tok(ALNUM, 7)))
sec(E, S_SYNO, "payload=%7B%22text%22%3A%22deploy%22%7D&token=%22{s}%22", tok(ALNUM, 64))

# ---------------------------------------------------------------- webhook url
W = "webhook url"
sec(
    W,
    S_SYNO,
    "curl -X POST 'https://nas.gaertnerei.de:5001/webapi/entry.cgi?api=SYNO.Chat.External&method=incoming&version=2&token=%22{s}%22' -d 'payload={\"text\": \"Backup OK\"}'",
    tok(ALNUM, 64),
)
sec(
    W,
    S_SYNO,
    "SYNOLOGY_CHAT_INCOMING_URL=https://chat.kanzlei.local/webapi/entry.cgi?api=SYNO.Chat.External&method=incoming&version=2&token=%22{s}%22",
    tok(ALNUM, 64),
)
sec(
    W,
    S_APPRISE,
    "$ apprise -vv -t 'Disk' -b 'sda SMART warning' synologys://nas.hof-meier.de:5001/{s}",
    tok(ALNUM, 64),
)
sec(
    W,
    S_KUMAP,
    "$ kuma-push --url 'https://status.agentur-blau.de/api/push/{s}?status=up&msg=OK&ping=' -- /usr/local/bin/db-dump.sh",
    tok(ALNUM, 32),
)
sec(
    W,
    S_KUMAP,
    'UPTIME_KUMA_PUSH_URL="https://uptime.werkstatt.io/api/push/{s}?status=up&msg=OK&ping="',
    tok(ALNUM, 32),
)
sec(
    W,
    S_KUMA,
    "*/5 * * * * curl -fsS -m 10 https://kuma.lan:3001/api/push/{s}?status=up >/dev/null",
    tok(ALNUM, 10),
)
sec(
    W, S_KUMA, "PUSH_URL=https://uptime.pferdehof.ch/api/push/{s}\nPUSH_INTERVAL=60", tok(ALNUM, 32)
)
sec(W, F_SQ, "webhook: https://api.squadcast.com/v2/incidents/api/{s}", hexs(40))
sec(
    W,
    F_PUMBLE,
    "curl -X POST -H 'Content-Type: application/json' -d '{\"text\":\"deploy done\"}' https://api.pumble.com/workspaces/{w}/incomingWebhooks/postMessage/{s}".replace(
        "{w}", hexs(24)
    ),
    tok(ALNUM, 24),
)
sec(
    W,
    S_SYNOPY,
    "webhook = IncomingWebhook('nas.lab', '{s}', port=5001, verify_ssl=False)  # token = 64 chars at end of the webhook URL",
    tok(ALNUM, 64),
)
sec(
    W,
    S_KUMAP,
    "$ KUMA_PUSH_URL=https://kuma.rz-nord.de/api/push/{s} kuma-push --msg 'nightly ok'",
    tok(ALNUM, 32),
)
sec(
    W,
    S_SYNO,
    "→ Synology Chat: https://192.168.2.10:5001/webapi/entry.cgi?api=SYNO.Chat.External&method=incoming&version=2&token=%22{s}%22",
    tok(ALNUM, 64),
)

# ---------------------------------------------------------------- signing and build tools
B = "signing and build tools"
sec(
    B,
    S_INNO,
    "[Setup]\nAppName=Lagerverwaltung\nSignTool=byparam signtool.exe sign /f $qC:\\certs\\firma.pfx$q /p {s} /t http://timestamp.digicert.com $f",
    pw(),
)
sec(
    B,
    S_INNO,
    'ISCC.exe "/Smystandard=signtool.exe sign /f codesign.pfx /p {s} /fd sha256 /tr http://ts.ssl.com /td sha256 $f" installer.iss',
    pw(),
)
sec(
    B,
    S_INNO,
    "; Tools | Configure Sign Tools\nmycustom=signtool.exe sign /f D:\\keys\\ev.pfx /p {s} $p",
    pw(),
)
sec(
    B,
    S_ISIGN,
    'C:\\Program Files (x86)\\InstallShield\\2020\\System> iSign.exe -pfx "\\\\build\\certs\\release.pfx" -p "{s}" "Disk1\\data1.hdr"',
    pw(),
)
sec(
    B,
    S_PIOL,
    "[env:esp32-ota]\nplatform = espressif32\nupload_protocol = espota\nupload_port = 192.168.1.42\nupload_flags =\n    --auth={s}",
    tok(ALNUM, 16),
)
sec(
    B,
    S_PIOT,
    "$ PLATFORMIO_AUTH_TOKEN={s} pio pkg publish --owner bienenstock ./lib/scale-hx711",
    tok(ALNUM, 48),
)
sec(
    B,
    F_MAGCLI,
    "$ composer config --global http-basic.repo.magento.com {u} {s}".replace("{u}", hexs(32)),
    hexs(32),
)
sec(
    B,
    F_MAGCLI,
    '{\n    "http-basic": {\n        "repo.magento.com": {\n            "username": "{u}",\n            "password": "{s}"\n        }\n    }\n}'.replace(
        "{u}", hexs(32)
    ),
    hexs(32),
)
sec(
    B,
    F_GODOT,
    "$ godot --headless --export-release Android build/app.aab  # GODOT_ANDROID_KEYSTORE_RELEASE_PASSWORD={s}",
    pw(),
)
sec(
    B,
    F_GODOT,
    'keystore/debug="res://debug.keystore"\nkeystore/debug_user="androiddebugkey"\nkeystore/release_password="{s}"',
    pw(),
)
sec(
    B,
    S_INNOSIG,
    '$ set ISSIGTOOL_KEY_FILE=keys\\release.isprivatekey\n$ set SIGN_PFX_PASS={s}\n$ iscc /Ssigntool="signtool.exe sign /f cert.pfx /p %SIGN_PFX_PASS% $f" setup.iss',
    pw(),
)
sec(B, S_SW, "$ composer config bearer.packages.shopware.com {s}", tok(ALNUM, 40))
sec(
    B,
    S_WEST,
    "$ openssl ec -in keys/prod-ec256.enc.pem -passin pass:{s} -out /tmp/prod.pem && west sign -t imgtool -d build -- --key /tmp/prod.pem",
    pw(),
)
sec(B, S_ISIGN, 'Signing.Arguments = -pfx "$(CertDir)\\app.pfx" -p "{s}"', pw())

# ================================================================ benign rows
IDS = "look-alike: ids and uuids"
_cid, _br = uid(), "z9hG4bKPj" + uid()
ben(
    IDS,
    S_AST,
    f"REGISTER sip:registrar.telekom.de SIP/2.0\nVia: SIP/2.0/UDP 10.24.20.249:5060;rport;branch={_br}\nCall-ID: {_cid}",
    _cid,
    "SIP Call-ID of one REGISTER transaction",
)
ben(
    IDS,
    S_AST,
    f"Via: SIP/2.0/UDP 10.24.20.249:5060;rport;branch={_br}",
    _br,
    "SIP Via branch parameter: a transaction id",
)
_upid = f"UPID:pve1:{hexs(8).upper()}:{hexs(8).upper()}:{hexs(8).upper()}:vzdump:101:root@pam:"
ben(IDS, S_PVE, f"$ pvesh get /nodes/pve1/tasks --limit 1\n{_upid}  OK", _upid, "Proxmox task UPID")
ben(
    IDS,
    S_PVE,
    "Token ID: root@pam!automation  (Privilege Separation: yes)",
    "root@pam!automation",
    "Proxmox token id names the token, the secret is separate",
)
_jid = str(rng.randint(1000000, 9999999))
ben(IDS, S_SLURM, f"$ sbatch train.sh\nSubmitted batch job {_jid}", _jid, "Slurm job id")
_sid = hexs(8)
ben(
    IDS,
    S_PTERO,
    f'{{"object":"server","attributes":{{"identifier":"{_sid}","uuid":"{_sid}{uid()[8:]}","name":"Survival"}}}}',
    _sid,
    "Pterodactyl short server identifier",
)
_swid = hexs(32)
ben(
    IDS,
    S_SWF,
    f'{{"data":[{{"id":"{_swid}","type":"product","attributes":{{"productNumber":"SW10001"}}}}]}}',
    _swid,
    "Shopware entity id (32 hex, a primary key)",
)
ben(
    IDS,
    S_FRR,
    '{"data": {"name": "ACC-SINV-2026-00412", "customer": "Holzbau Kern", "docstatus": 1}}',
    "ACC-SINV-2026-00412",
    "ERPNext document name",
)
_mtid = f"{tok(UPPER, 4)}-{tok(UPPER, 4)}"
ben(
    IDS,
    S_MTU,
    f"# dec/04/2026 01:36:12 by RouterOS 7.16\n# software id = {_mtid}\n# model = RB5009UG+S+",
    _mtid,
    "RouterOS software id printed in exports",
)
_bj = f"BackupClient1.2026-12-04_01.05.00_{rng.randint(10, 99)}"
ben(
    IDS,
    S_BAC,
    f"04-Dec 01:05 nas-dir JobId 812: Start Backup JobId 812, Job={_bj}",
    _bj,
    "Bacula unique job name",
)
_ouid = uid()
ben(
    IDS,
    S_OPNAPI,
    f'{{"result":"saved","uuid":"{_ouid}"}}',
    _ouid,
    "OPNsense model item uuid returned by the API",
)
_mcu = uid()
ben(
    IDS,
    S_MC,
    f"[01:14:02] [User Authenticator #3/INFO]: UUID of player Steve_92 is {_mcu}",
    _mcu,
    "Minecraft player UUID",
)
ben(IDS, S_KUMA, '{"msg":"Added Successfully.","monitorId":17}', "17", "Uptime Kuma monitor id")
_req = uid()
ben(
    IDS,
    S_DOLI,
    f"HTTP/1.1 200 OK\nX-Request-Id: {_req}\nContent-Type: application/json",
    _req,
    "request id header",
)
_cid2 = hexs(32) + "@10.0.0.12"
ben(
    IDS,
    S_KAM,
    f"INFO: <script>: REGISTER from sip:1001@voip.stadtnetz.de callid={_cid2}",
    _cid2,
    "SIP Call-ID in a Kamailio log",
)
ben(
    IDS,
    S_SYNOPY,
    '{"success":true,"data":{"user_id":4,"channel_id":12,"post_id":30021}}',
    "30021",
    "Synology Chat post id",
)
ben(
    IDS,
    S_WOO2,
    '{"id":727,"number":"727","status":"processing","currency":"EUR"}',
    "727",
    "WooCommerce order id",
)
_git = hexs(40)
ben(
    IDS,
    S_T3,
    f"$ composer show typo3/cms-core | grep source\nsource   : [git] https://github.com/TYPO3-CMS/core.git {_git}",
    _git,
    "git commit id of a package source",
)

R = "look-alike: placeholders and references"
ben(
    R,
    S_OC,
    "https://api.opencagedata.com/geocode/v1/json?q=52.3877830%2C9.7334394&key=YOUR-API-KEY",
    "YOUR-API-KEY",
    "documented placeholder",
)
ben(
    R,
    S_PTERO,
    "PteroClient client = PteroClient.generate(url: 'https://panel.yourdomain.com', key: '<api-key>');",
    "<api-key>",
    "angle-bracket placeholder",
)
ben(
    R,
    S_PVE,
    'api_token_secret: "{{ vault_proxmox_token_secret }}"',
    "{{ vault_proxmox_token_secret }}",
    "Ansible vault variable reference",
)
ben(
    R,
    S_PIOT,
    "env:\n  PLATFORMIO_AUTH_TOKEN: ${{ secrets.PLATFORMIO_AUTH_TOKEN }}",
    "${{ secrets.PLATFORMIO_AUTH_TOKEN }}",
    "CI secret reference",
)
ben(
    R,
    S_OPNCLI,
    "---\napi_key: your_api_key\napi_secret: your_api_secret\nurl: https://opnsense.lan/api",
    "your_api_secret",
    "documented placeholder",
)
ben(
    R,
    S_INNO,
    "SetupSignTool = signtool.exe sign /f \"{#GetEnv('SigningCertificate')}\" /p \"{#GetEnv('SigningCertificatePassword')}\" $f",
    "{#GetEnv('SigningCertificatePassword')}",
    "Inno Setup preprocessor reads the password from the environment",
)
ben(
    R,
    S_MC,
    "    environment:\n      RCON_PASSWORD: ${RCON_PASSWORD:?set in .env}",
    "${RCON_PASSWORD:?set in .env}",
    "compose variable reference",
)
ben(
    R,
    S_SW,
    "framework:\n    secret: '%env(APP_SECRET)%'",
    "%env(APP_SECRET)%",
    "Symfony environment reference",
)
ben(
    R,
    S_OPN,
    "api_secret: \"{{ lookup('env', 'OPNSENSE_API_SECRET') }}\"",
    "{{ lookup('env', 'OPNSENSE_API_SECRET') }}",
    "lookup of an environment variable",
)
ben(
    R,
    S_MAG,
    "'crypt' => [\n    'key' => '<KEY>',\n],",
    "<KEY>",
    "template placeholder in an env.php template",
)
ben(
    R,
    S_FR,
    "headers = {'Authorization': \"token <api_key>:<api_secret>\"}",
    "<api_key>:<api_secret>",
    "documented placeholder",
)
ben(
    R,
    S_BACD,
    "BACULA_DBPASSWORD\nBacula catalog database user password (default bacula)",
    "BACULA_DBPASSWORD",
    "variable name in documentation",
)
ben(
    R,
    S_DOLI,
    'The API key must be provided as a HTTP header "DOLAPIKEY: apikey".',
    "DOLAPIKEY: apikey",
    "documentation text with a placeholder",
)
ben(
    R,
    S_KUMAP,
    "--url url\n    The push URL of the monitor. Defaults to the KUMA_PUSH_URL environment variable.",
    "KUMA_PUSH_URL",
    "environment variable name",
)
ben(
    R,
    S_SWF,
    '{\n  "client_id": "Access key ID",\n  "client_secret": "Secret access key",\n  "grant_type": "client_credentials"\n}',
    "Secret access key",
    "label used as a placeholder",
)
ben(
    R,
    S_TAS,
    "Backlog MqttHost <broker>; MqttUser <user>; MqttPassword <password>; Topic <topic>",
    "<password>",
    "placeholder in a command template",
)
ben(
    R,
    S_WINSCP,
    'open sftp://user@host/ -password="%SFTP_PASSWORD%" -passwordsfromfiles',
    "%SFTP_PASSWORD%",
    "Windows environment variable reference",
)
ben(
    R,
    S_ISIGN,
    'iSign.exe -pfx "$(CertPath)" -p "$(CertPassword)" "Disk1\\data1.hdr"',
    "$(CertPassword)",
    "MSBuild property reference",
)

K = "look-alike: code naming a secret"
ben(
    K,
    S_MAGCK,
    "if (!empty($this->configReader->read()['crypt']['key'])) {\n    return;\n}",
    "['crypt']['key']",
    "code reading the crypt key, no value",
)
ben(K, S_WOO, "consumerSecret ↔ String\n  getter/setter pair", "consumerSecret", "property name")
ben(
    K,
    S_SLURM,
    "StoragePass\n    Define the password used to gain access to the database to store the job accounting data.",
    "StoragePass",
    "option name in a man page",
)
ben(
    K,
    S_MC,
    "def rotate_rcon_password(server: Server, length: int = 24) -> str:",
    "rotate_rcon_password",
    "function name",
)
ben(
    K,
    S_T3,
    "$GLOBALS['TYPO3_CONF_VARS']['SYS']['encryptionKey'] must never be sent within any request",
    "['SYS']['encryptionKey']",
    "configuration path named in an advisory",
)
ben(
    K,
    S_OPN,
    "api_secret = os.environ['OPN_API_SECRET']",
    "OPN_API_SECRET",
    "environment variable name",
)
ben(
    K,
    S_PVE,
    "    private final String tokenSecret;\n    public String getTokenSecret() { return tokenSecret; }",
    "getTokenSecret",
    "getter name",
)
ben(
    K,
    S_KAMRC,
    "## password for database read only user\n# DBROPW=",
    "DBROPW",
    "commented-out option with no value",
)
ben(
    K,
    S_TAS,
    '#define D_CMND_MQTTPASSWORD "MqttPassword"',
    "D_CMND_MQTTPASSWORD",
    "command name constant",
)
ben(
    K,
    S_FR,
    "api_secret = frappe.utils.password.get_decrypted_password('User', user, 'api_secret')",
    "get_decrypted_password",
    "function call naming the field",
)
ben(
    K,
    S_WINSCP,
    "-passwordsfromfiles  Interpret values of -password, -passphrase and in general all passwords from all sources as paths to files",
    "-passwordsfromfiles",
    "switch name",
)
ben(
    K,
    S_SW,
    "$integration->setSecretAccessKey($secretAccessKey);",
    "setSecretAccessKey",
    "setter name",
)
ben(
    K,
    S_BAC,
    "Password = UA-password\n    Specifies the password that must be supplied for the default Bacula Console to be authorized.",
    "UA-password",
    "syntax placeholder in the manual",
)
ben(
    K,
    S_PTERO,
    "if (! str_starts_with($apiKey, 'ptlc_')) { throw new InvalidApiKeyException(); }",
    "InvalidApiKeyException",
    "exception class name",
)
ben(K, S_MTP, "RADIUS_SECRET_MIN_LENGTH = 16", "RADIUS_SECRET_MIN_LENGTH", "constant name")
ben(
    K,
    S_DOLI,
    "$apikey = GETPOST('DOLAPIKEY', 'alpha');",
    "GETPOST('DOLAPIKEY', 'alpha')",
    "reads the header, no value",
)
ben(
    K,
    S_INNOSIG,
    "--key-file=<filename> Specifies the private key filename required for signing.",
    "--key-file=<filename>",
    "option syntax",
)
ben(
    K,
    S_SYNOPY,
    "Important! Do not include %22 surrounding the token in the URL",
    "%22 surrounding the token",
    "documentation sentence",
)

U = "look-alike: public keys and client-side keys"
_ed = "AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(B64, 43)
ben(
    U,
    S_PVE,
    f"$ cat /etc/pve/priv/authorized_keys\nssh-ed25519 {_ed} root@pve1",
    _ed,
    "SSH public key",
)
_ed2 = "AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(B64, 43)
ben(
    U,
    S_MTU,
    f"[admin@MikroTik] > /user ssh-keys print\n 0 user=noc key-owner=noc@laptop bits=256 key=ssh-ed25519 {_ed2}",
    _ed2,
    "SSH public key registered for a router user",
)
_mcub = ", ".join(f"0x{hexs(2)}" for _ in range(8))
ben(
    U,
    S_MCU,
    f"const unsigned char ecdsa_pub_key[] = {{\n    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86,\n    {_mcub},\n}};",
    _mcub,
    "MCUboot public key compiled into the bootloader",
)
_pem = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + tok(B64, 52) + "=="
ben(
    U,
    S_MCU,
    f"$ imgtool getpub -k prod.pem -e pem\n-----BEGIN PUBLIC KEY-----\n{_pem}\n-----END PUBLIC KEY-----",
    _pem,
    "PEM public key",
)
_isp = tok(HEX, 64)
ben(
    U,
    S_INNOSIG,
    f'$ issigtool --key-file="MyKey.isprivatekey" export-public-key "MyKey.ispublickey"\n$ type MyKey.ispublickey\nformat issig-public-key\nkey-id {_isp}',
    _isp,
    "Inno Setup public key id",
)
_rsa = "AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + tok(B64, 60)
ben(U, S_WINSCP, f"ssh-rsa 2048 {_rsa} deploy@ci", _rsa, "SSH public key")
_gpg = tok("0123456789ABCDEF", 40)
ben(
    U,
    S_BAC,
    f"$ gpg --list-keys backup@nas\npub   rsa4096 2025-03-01 [SC]\n      {_gpg}",
    _gpg,
    "OpenPGP public key fingerprint",
)
_age = "age1" + tok("023456789acdefghjklmnpqrstuvwxyz", 58)
ben(
    U, S_SLURM, f"# recipients for encrypted accounting dumps\n{_age}", _age, "age public recipient"
)
_wgp = tok(B64, 43) + "="
ben(
    U,
    S_OPN,
    f"[Peer]\nPublicKey = {_wgp}\nAllowedIPs = 10.9.0.2/32",
    _wgp,
    "WireGuard peer public key",
)
_cert = "MIIDdzCCAl+gAwIBAgIU" + tok(B64, 44)
ben(
    U,
    S_ISIGN,
    f"-----BEGIN CERTIFICATE-----\n{_cert}\n-----END CERTIFICATE-----",
    _cert,
    "code signing certificate (public)",
)
_ed3 = "AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(B64, 43)
ben(U, S_PTERO, f"SFTP keys for user ops: ssh-ed25519 {_ed3} ops@laptop", _ed3, "SSH public key")
_mcp = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + tok(B64, 52) + "=="
ben(
    U,
    S_WEST,
    f"CONFIG_MCUBOOT_SIGNATURE_KEY_FILE verifies with the public half:\n{_mcp}",
    _mcp,
    "public half of the signing key",
)
_ed4 = "AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(B64, 43)
ben(U, S_FZ, f"Trust this host key? ssh-ed25519 {_ed4}", _ed4, "server SSH public key")
_tls = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + tok(B64, 40)
ben(
    U,
    S_KAM,
    f'modparam("tls", "ca_list", "/etc/kamailio/ca.pem")\n# pinned public key: {_tls}',
    _tls,
    "pinned public key",
)
_gpg2 = tok("0123456789ABCDEF", 16)
ben(
    U,
    S_TAS,
    f"gpg: Signature made Wed Dec  2 10:00:01 2026 CET using RSA key ID {_gpg2}",
    _gpg2,
    "OpenPGP key id",
)
_ed5 = "AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(B64, 43)
ben(U, S_KUMA, f"authorized_keys: |\n  ssh-ed25519 {_ed5} kuma-probe", _ed5, "SSH public key")

D = "look-alike: hashes and digests"
_hk = tok(B64, 43)
ben(
    D,
    S_WINSCP,
    f'open sftp://deploy@files.lan/ -hostkey="ssh-ed25519 255 SHA256:{_hk}"',
    f"SHA256:{_hk}",
    "host key fingerprint",
)
_rp = hexs(40)
ben(
    D,
    S_MC2,
    f"resource-pack=https://cdn.craftnet.eu/pack.zip\nresource-pack-sha1={_rp}",
    _rp,
    "SHA-1 of a resource pack",
)
_fw = hexs(64)
ben(
    D,
    S_PIOL,
    f"$ sha256sum .pio/build/esp32dev/firmware.bin\n{_fw}  .pio/build/esp32dev/firmware.bin",
    _fw,
    "firmware digest",
)
_dg = hexs(64)
ben(
    D,
    S_KUMA,
    f"image: louislam/uptime-kuma@sha256:{_dg}",
    f"sha256:{_dg}",
    "container image digest",
)
_int = "sha512-" + tok(B64, 86) + "=="
ben(
    D,
    S_PTERO,
    f'"node_modules/axios": {{\n  "version": "1.7.9",\n  "integrity": "{_int}"\n}}',
    _int,
    "npm integrity string",
)
_t3 = "bacb98acf97e0b6112b1d1b650b84971"
ben(
    D,
    S_T3,
    f"// Default password is \"joh316\" :\n$TYPO3_CONF_VARS['BE']['installToolPassword'] = '{_t3}';",
    _t3,
    "md5 of the publicly documented default install tool password",
)
_iso = hexs(64)
ben(D, S_PVE, f"proxmox-ve_8.3-1.iso  SHA256SUM: {_iso}", _iso, "ISO checksum")
_tlv = " ".join(hexs(4) for _ in range(6))
ben(
    D,
    S_MCU,
    f"$ xxd -s 0xf0c8 -l 32 zephyr.signed.bin\n0000f0c8: 0769 2800 1000 2000 {_tlv}",
    _tlv,
    "hex dump of the image SHA256 TLV",
)
_cl = hexs(40)
ben(
    D,
    S_SW,
    f'"dist": {{\n    "type": "zip",\n    "url": "https://api.github.com/repos/shopware/core/zipball/{_cl}",\n    "reference": "{_cl}"\n}}',
    _cl,
    "composer.lock commit reference",
)
_dr = hexs(32)
ben(
    D,
    S_AST,
    f'Authorization: Digest username="6001", realm="asterisk", nonce="{hexs(16)}", uri="sip:10.0.0.5", response="{_dr}", algorithm=MD5',
    _dr,
    "digest response: a nonce-bound hash, not the password",
)
_md5 = hexs(32)
ben(
    D,
    S_BAC,
    f"$ bls -V Vol-0042 -j /srv/bacula\n  MD5: {_md5}  /etc/hosts",
    _md5,
    "file digest stored by Bacula",
)
_sri = "sha384-" + tok(B64, 64)
ben(
    D,
    S_DOLI,
    f'<script src="/includes/jquery/js/jquery.min.js" integrity="{_sri}" crossorigin="anonymous"></script>',
    _sri,
    "subresource integrity",
)
_ak = hexs(64)
ben(
    D,
    S_OPN,
    f"$ pkg info -d opnsense | head -2\nopnsense-24.7.10  checksum: {_ak}",
    _ak,
    "package checksum",
)
_gh = hexs(40)
ben(
    D,
    S_FR,
    f"$ bench version\nfrappe 15.50.0 ({_gh[:7]})\n$ git -C apps/frappe rev-parse HEAD\n{_gh}",
    _gh,
    "git commit SHA",
)
_etag = hexs(32)
ben(D, S_OC, f'HTTP/2 200\ncontent-type: application/json\netag: "{_etag}"', _etag, "HTTP ETag")
_sha1 = hexs(40)
ben(D, S_AMI, f"asterisk-22.1.0.tar.gz.sha1: {_sha1}", _sha1, "release tarball checksum")
_mqh = hexs(64)
ben(D, S_TAS, f"tasmota32.bin  SHA256 {_mqh}", _mqh, "firmware release checksum")
_kc = hexs(12)
ben(
    D,
    S_MAG,
    f"$ git log --oneline -1\n{_kc} Update env.php template for staging",
    _kc,
    "abbreviated commit id",
)

M = "look-alike: masked values"
ben(
    M,
    S_SIPCONF,
    "[tammari]\ntype=friend\nusername=tammari\nhost=dynamic\nsecret=********\nregcontext=tammari-internal",
    "********",
    "masked secret",
)
ben(
    M,
    S_T3B,
    "$GLOBALS['TYPO3_CONF_VARS']['EXTCONF']['my_extension']['my_secret_key'] = '******';",
    "******",
    "blinded configuration value",
)
ben(
    M,
    S_TAS,
    '18:22:41.035 MQT: stat/kueche/RESULT = {"MqttPassword":"****"}',
    "****",
    "Tasmota echoes the password masked",
)
ben(
    M,
    S_MAG,
    "$ bin/magento config:show payment/braintree/private_key\n******",
    "******",
    "masked sensitive config value",
)
ben(
    M,
    S_FRR,
    '{"data": {"name": "api-bot", "api_key": "a1b2c3", "api_secret": "*****"}}',
    "*****",
    "Frappe masks password fields",
)
ben(
    M,
    S_OPN,
    "API keys for user backup:\n  key: w86X…QsBw   secret: (shown only once, not stored)",
    "(shown only once, not stored)",
    "no secret shown",
)
ben(
    M,
    S_PTERO,
    "API Credentials\n  ptlc_Ab3d••••••••••  Last used: 2 days ago",
    "ptlc_Ab3d••••••••••",
    "masked key in the panel",
)
ben(
    M,
    S_SW,
    "Secret access key: ••••••••••••••••  [Regenerate API access key]",
    "••••••••••••••••",
    "masked key in the admin UI",
)
ben(M, S_DOLI, "DOLAPIKEY: [REDACTED]", "[REDACTED]", "redacted header")
ben(
    M,
    S_WINSCP,
    '. 2026-12-04 01:40:22.114 Command-line: "WinSCP.exe" /console /command "open sftp://ftpuser:***@backup.ost.local/"',
    "ftpuser:***@",
    "WinSCP masks the password in its log",
)
ben(
    M,
    S_SYNO,
    'Incoming webhook "backup-bot"  Token: ●●●●●●●●●●●●  [Show]',
    "●●●●●●●●●●●●",
    "token hidden in the DSM dialog",
)
ben(
    M,
    S_PVE,
    "Token: root@pam!ci  Secret: xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "documented masked token secret",
)
ben(
    M,
    S_SLURM,
    "$ scontrol show config | grep -i AccountingStoragePass\nAccountingStoragePass   = (null)",
    "(null)",
    "no password configured",
)
ben(
    M,
    S_KUMAP,
    "PUSH_URL=https://uptime.werk.io/api/push/<redacted>?status=up",
    "<redacted>",
    "redacted push token",
)
ben(M, S_SYNO, "token=%22****************%22", "****************", "masked webhook token")
ben(
    M,
    S_BAC,
    'Director {\n  Name = bacula-dir\n  Password = "[hidden]"\n}',
    "[hidden]",
    "hidden password",
)
ben(M, S_MC, "rcon.password=[censored]", "[censored]", "censored value")
ben(M, S_KAMRC, 'DBRWPW="********"', "********", "masked password")


# ---------------------------------------------------------------- checks
SEC_KEYS = {"class", "context", "expect", "secret", "source"}
BEN_KEYS = {"class", "context", "expect", "value", "reason", "source"}


def check_rows(rows: list[dict[str, str]]) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    n_sec = n_ben = 0
    for i, r in enumerate(rows):
        exp = r.get("expect")
        if exp == "secret":
            n_sec += 1
            if set(r) != SEC_KEYS:
                problems.append(f"row {i}: keys {sorted(r)}")
            if r.get("class") not in SECRET_CLASSES:
                problems.append(f"row {i}: class {r.get('class')!r}")
            s = r.get("secret", "")
            if not s or s not in r.get("context", ""):
                problems.append(f"row {i}: secret not in context")
            if s in seen:
                problems.append(f"row {i}: duplicate secret {s!r}")
            seen.add(s)
            if banned(s):
                problems.append(f"row {i}: banned substring in secret {s!r}")
        elif exp == "benign":
            n_ben += 1
            if set(r) != BEN_KEYS:
                problems.append(f"row {i}: keys {sorted(r)}")
            if r.get("class") not in BENIGN_CLASSES:
                problems.append(f"row {i}: class {r.get('class')!r}")
            v = r.get("value", "")
            if not v or v not in r.get("context", ""):
                problems.append(f"row {i}: value not in context")
        else:
            problems.append(f"row {i}: expect {exp!r}")
    if n_sec < 170:
        problems.append(f"only {n_sec} secret rows")
    if n_ben < 100:
        problems.append(f"only {n_ben} benign rows")
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
    print(f"wrote {len(ROWS)} rows to {OUT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
