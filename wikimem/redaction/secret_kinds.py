"""The secret kinds wikimem recognises by their own shape or by what stands next to them.

Owns the rule table: each vendor token format and each context (a URL's userinfo, an
`Authorization` header, a `--password` flag) as a `Rule`, with the check that tells a real value
from a placeholder. Invariant: order is priority; a vendor format names a secret better than the
context around it does, so vendor rules come first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wikimem.redaction.placeholders import is_mask, is_placeholder, is_random
from wikimem.redaction.scanners import QUOTED_OR_BARE, Check, line_before, rule


def _when(test: Callable[[str], bool], kind: str) -> Check:
    return lambda value, m, text: kind if test(value) and not is_mask(value) else None


def _unless_placeholder(kind: str) -> Check:
    return lambda value, m, text: None if is_placeholder(value) else kind


def _url_password(value: str, m: re.Match[str], text: str) -> str | None:
    """A URL's password, which may hold a `?` as generated passwords do; a `?` that starts a
    query (`:8080?next=a@b`, `?a&b@c`) or follows a port is no password's."""
    if "?" in value:
        head, _, query = value.partition("?")
        if "=" in query or "&" in query or head.isdigit():
            return None
    user = m.group()[3 : m.start("v") - m.start() - 1]
    host = _HOST_PART.match(text, m.end())
    if all(_TEMPLATE_PART.fullmatch(part) for part in (user, value, host.group() if host else "")):
        return None  # every part a capital word (`ecto://USER:PASS@HOST/DB`): a URL's template
    return None if is_placeholder(value) else "url-credentials"


_HOST_PART = re.compile(r"[^\s:/@?#\"'<>]*")
# A capital word in any script, as templates name a URL's parts (`USER`, `PASS`, `CONTRASEÑA`).
_TEMPLATE_PART = re.compile(r"(?=[^\W\d]{2,24}\Z)[^\W\d_a-z]+(?:_[^\W\d_a-z]+)*")


def _pem_in_base64(value: str) -> bool:
    try:
        import base64  # only for the rare value that looks like a base64 PEM block

        head = base64.b64decode(value[:64] + "=" * (-len(value[:64]) % 4))
    except ValueError:  # binascii.Error is a ValueError
        return False
    return b"PRIVATE KEY" in head


def _discord_id(value: str) -> bool:
    """The first part of a Discord bot token is a user id (digits) in base64."""
    first = value.split(".", 1)[0]
    try:
        import base64  # the hook's path: only for the rare value that looks like an id

        return base64.b64decode(first + "=" * (-len(first) % 4), validate=True).isdigit()
    except ValueError:  # binascii.Error is a ValueError
        return False


def _sentry_host(value: str, m: re.Match[str], text: str) -> str | None:
    host = m.group("host").lower()
    return "sentry-dsn" if "sentry" in host or "ingest" in host else None


def _url_param(value: str, m: re.Match[str], text: str) -> str | None:
    if is_placeholder(value):
        return None
    if m.group("name").lower() in ("key", "auth", "sig", "signature", "appid") and not is_random(
        value
    ):
        return None
    return "url-secret-param"


_SCHEMES = {"bearer": "bearer-token", "basic": "basic-auth"}
_NOT_CREDENTIALS = frozenset(
    {"bearer", "basic", "token", "digest", "aws4-hmac-sha256", "negotiate"}
)


_SCHEME_WORD = re.compile(r"`?[A-Za-z][A-Za-z-]{0,40}")
_MORE_ON_LINE = re.compile(r"[ \t]+[^\s\"'`,;]")


_ANGLED = re.compile(r"<[^<>\n]{1,100}>")  # `<your SendGrid API key>`, blanks and all


def _auth_header(value: str, m: re.Match[str], text: str) -> str | None:
    if value.lower() in _NOT_CREDENTIALS or is_placeholder(value):
        return None
    if _ANGLED.match(text, m.start("v")):
        return None  # a placeholder in angle brackets, cut at its first blank by the pattern
    if _SCHEME_WORD.fullmatch(value) and _MORE_ON_LINE.match(text, m.end()):
        return None  # a scheme word (`Klaviyo-API-Key ...`): the credential is what follows
    return _SCHEMES.get((m.group("scheme") or "").lower(), "auth-header")


def _bearer(value: str, m: re.Match[str], text: str) -> str | None:
    return "bearer-token" if is_random(value) and not is_placeholder(value) else None


def _not_in_path(kind: str) -> Check:
    return lambda value, m, text: None if text[m.start() - 1 : m.start()] == "/" else kind


def _set_cookie(value: str, m: re.Match[str], text: str) -> str | None:
    """A cookie set to a plain word (`theme=dark`, `lang=de-DE`) is a preference, not a session."""
    if not is_random(value) and len(value) < 20:
        return None
    return _at_line_start("cookie")(value, m, text)


def _at_line_start(kind: str) -> Check:
    """For headers as curl -v prints them: only prompt marks or spaces before the name."""

    def check(value: str, m: re.Match[str], text: str) -> str | None:
        line = line_before(text, m.start())
        if line.strip(" \t<>*") or is_placeholder(value):
            return None
        return kind

    return check


def _on_curl_line(value: str, m: re.Match[str], text: str) -> str | None:
    line = line_before(text, m.start()).lower()
    if not any(tool in line for tool in ("curl", "wget", "http")) or is_placeholder(value):
        return None
    if text.startswith(("'$", '"$', "$"), m.end()):
        return None  # a literal glued to a shell argument (`api:key-'$1'`): a template
    return "cli-password"


_E = r"(?![A-Za-z0-9_])"  # token end
_ED = r"(?![A-Za-z0-9_-])"  # token end where the alphabet has '-'
_CLI = _unless_placeholder("cli-password")


def _metavar_flag(value: str, m: re.Match[str], text: str) -> str | None:
    """`--password PASS`, `--api-key KEY` in a tool's help: a bare upper-case word that the
    flag's own name holds is the option's metavariable, not its value."""
    bare = m.group("vb")
    if bare is not None and bare.isalpha() and bare.isupper():
        name = m.group().split(bare, 1)[0].strip(" \t=-").replace("-", "").upper()
        if bare.replace("_", "") in name:
            return None
    return _CLI(value, m, text)


_UUID = r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"


def _tok(prefix: str, rest: str) -> str:
    """A token pattern: literal-led, with the word boundary as a lookbehind after the prefix.

    A lookbehind first would cost the regex engine its fast skip to the literal; re-checking the
    prefix this way also keeps a run like `eyJeyJeyJ...` from being rescanned at every `eyJ`.
    """
    return prefix + r"(?<![A-Za-z0-9_]" + prefix + ")" + rest


# Order is priority: a vendor format names a secret better than the context around it does.
# fmt: off
RULES = [
    rule("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    rule(
        "private-key",
        _tok("LS0tLS1CRUdJTi", r"[A-Za-z0-9+/]{20,8192}={0,2}"),
        "",
        _when(_pem_in_base64, "private-key"),
    ),
    rule("aws-access-key", _tok(r"A(?:KIA|SIA|BIA|CCA)", r"[A-Z0-9]{16}" + _E)),
    rule(
        "aws-secret-key",
        _tok(r"A(?:KIA|SIA)",
             r"[A-Z0-9]{16}[ \t]*[,:;|][ \t]*(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
    ),
    rule("gcp-api-key", _tok("AIza", r"[0-9A-Za-z_-]{35}" + _ED)),
    rule("google-oauth-token", _tok(r"ya29\.", r"[0-9A-Za-z_-]{20,4096}" + _ED)),
    rule("google-oauth-token", _tok("1//0", r"[0-9A-Za-z_-]{40,1024}" + _ED)),
    rule("google-client-secret", _tok("GOCSPX-", r"[0-9A-Za-z_-]{28}" + _ED)),
    rule(
        "azure-storage-key",
        r"(?:AccountKey|SharedAccessKey)=(?P<v>[A-Za-z0-9+/]{20,1024}={0,2})",
    ),
    rule("digitalocean-token", _tok("do[opr]_v1_", r"[a-f0-9]{64}" + _E)),
    rule("github-token", _tok("gh[pousr]_", r"[A-Za-z0-9]{36,255}" + _E)),
    rule("github-token", _tok("github_pat_", r"[A-Za-z0-9_]{50,255}" + _E)),
    rule(
        "gitlab-token",
        _tok("gl", r"(?:pat|dt|rt|ptt|cbt|soat|ft|imt|oas|agent)-[A-Za-z0-9_-]{20,255}"
                   r"(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?" + _ED),
    ),
    rule("gitlab-token", _tok("GR1348941", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    rule("bitbucket-token", _tok("ATBB", r"[A-Za-z0-9]{28,255}" + _E)),
    rule("atlassian-token", _tok("AT(?:ATT|CTT)3", r"[A-Za-z0-9_=-]{20,1024}" + _ED)),
    rule("slack-token", _tok("xox[abposer]-", r"[A-Za-z0-9-]{10,255}" + _ED)),
    rule("slack-token", _tok("xapp-", r"\d-[A-Z0-9]{1,32}-\d{1,32}-[a-f0-9]{1,128}" + _E)),
    rule(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{20,255})",
    ),
    rule(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/\d{1,32}/(?P<v>[A-Za-z0-9_-]{60,70})" + _ED,
    ),
    rule(
        "discord-token",
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}" + _ED,
        "",
        _when(_discord_id, "discord-token"),
        True,
    ),
    rule("telegram-bot-token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}" + _ED, ":aa", None, True),
    rule("stripe-key", _tok("[sr]k_", r"(?:live|test)_[A-Za-z0-9]{24,247}" + _E)),
    rule("stripe-webhook-secret", _tok("whsec_", r"[A-Za-z0-9+/=]{32,255}")),
    # WooCommerce's REST API consumer key and secret (ck_, cs_ and 40 hex digits); Pterodactyl's
    # application and client API keys (ptla_, ptlc_ and 43 letters and digits)
    rule("woocommerce-key", _tok("ck_", r"[0-9a-f]{40}" + _E)),
    rule("woocommerce-key", _tok("cs_", r"[0-9a-f]{40}" + _E)),
    rule("pterodactyl-key", _tok("ptl[ac]_", r"[A-Za-z0-9]{43}" + _E)),
    rule("square-token", _tok("EAAA", r"[A-Za-z0-9_-]{60}" + _ED)),
    rule("square-token", _tok("sq0", r"(?:atp|csp|idp)-[A-Za-z0-9_-]{22,43}" + _ED)),
    rule("braintree-token", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    rule("anthropic-key", _tok("sk-ant-", r"(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{32,255}" + _ED)),
    rule("openrouter-key", _tok("sk-or-v1-", r"[a-f0-9]{64}" + _E)),
    rule("openai-key", _tok("sk-", r"(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,255}" + _ED)),
    rule(
        "openai-key",
        _tok("sk-", r"[A-Za-z0-9]{32,255}" + _E),
        "",
        _when(is_random, "openai-key"),
    ),
    rule(
        "huggingface-token",
        _tok("hf_", r"[A-Za-z0-9]{30,40}" + _E),
        "",
        _when(is_random, "huggingface-token"),
    ),
    rule(
        "huggingface-token",
        _tok("api_org_", r"[A-Za-z0-9]{30,40}" + _E),
        "",
        _when(is_random, "huggingface-token"),
    ),
    rule("groq-key", _tok("gsk_", r"[A-Za-z0-9]{48,56}" + _E)),
    rule("replicate-token", _tok("r8_", r"[A-Za-z0-9]{37}" + _E)),
    rule("perplexity-key", _tok("pplx-", r"[A-Za-z0-9]{40,60}" + _E)),
    rule("xai-key", _tok("xai-", r"[A-Za-z0-9]{60,100}" + _E)),
    rule("langsmith-key", _tok("lsv2_", r"(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _E)),
    rule("tavily-key", _tok("tvly-", r"(?:dev-|prod-)?[A-Za-z0-9]{28,40}" + _E)),
    rule("npm-token", _tok("npm_", r"[A-Za-z0-9]{36}" + _E)),
    rule("pypi-token", _tok("pypi-AgE", r"[A-Za-z0-9_-]{50,1024}" + _ED)),
    rule("docker-token", _tok("dckr_", r"(?:pat|oat)_[A-Za-z0-9_-]{20,255}" + _ED)),
    rule("fly-token", _tok("fo1_", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    rule("fly-token", r"FlyV1[ \t]+(?P<v>fm\d[a-z]?_[A-Za-z0-9+/=,_-]{20,4096})"),
    rule("fly-token", _tok("fm[12]", r"[ar]?_[A-Za-z0-9+/=]{40,4096}")),
    rule("heroku-key", _tok("HRKU-", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    rule("twilio-api-key", _tok("SK", r"[0-9a-f]{32}" + _E)),
    # An account SID in a URL's path (`/Accounts/AC.../Messages.json`) names the account the
    # request is for, as every Twilio API URL does; a SID standing alone may be a credential's half.
    rule("twilio-sid", _tok("AC", r"[0-9a-f]{32}" + _E), "", _not_in_path("twilio-sid")),
    rule("sendgrid-key", _tok(r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _ED)),
    rule(
        "mailgun-key",
        r"key-(?<![\w-]key-)[0-9a-z]{32}" + _E,
        "",
        _when(is_random, "mailgun-key"),
    ),
    rule("mailchimp-key", r"[0-9a-f]{32}-us[0-9]{1,2}" + _E, "-us", None, True),
    rule("shopify-token", _tok("shp", r"(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _E)),
    rule(
        "jwt",
        _tok("eyJ", r"[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}"
             + _ED),
    ),
    rule("vault-token", _tok(r"hv[sbr]\.", r"[A-Za-z0-9_-]{24,255}" + _ED)),
    rule(
        "terraform-token",
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,255}" + _ED,
        "atlasv1",
        None,
        True,
    ),
    rule("grafana-token", _tok("glsa_", r"[A-Za-z0-9]{32}_[a-f0-9]{8}" + _E)),
    rule("grafana-token", _tok("glc_", r"[A-Za-z0-9+/]{32,1024}={0,2}")),
    rule("sentry-token", _tok("sntry[su]_", r"[A-Za-z0-9+/=_]{40,1024}")),
    rule("supabase-token", _tok("sbp_", r"[a-f0-9]{40}" + _E)),
    rule("supabase-token", _tok("sb_secret_", r"[A-Za-z0-9_-]{20,255}" + _ED)),
    rule("databricks-token", _tok("dapi", r"[a-f0-9]{32}(?:-\d)?" + _E)),
    rule("planetscale-token", _tok("pscale_", r"(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,255}")),
    rule("pulumi-token", _tok("pul-", r"[a-f0-9]{40}" + _E)),
    rule("linear-key", _tok("lin_", r"(?:api|oauth)_[A-Za-z0-9]{40}" + _E)),
    rule(
        "notion-token",
        _tok("ntn_", r"[A-Za-z0-9]{40,50}" + _E),
        "",
        _when(is_random, "notion-token"),
    ),
    rule(
        "notion-token",
        _tok("secret_", r"[A-Za-z0-9]{43}" + _E),
        "",
        _when(is_random, "notion-token"),
    ),
    rule("postman-key", _tok("PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}" + _E)),
    rule("doppler-token", _tok(r"dp\.", r"(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _E)),
    rule("newrelic-key", _tok("NRAK-", r"[A-Z0-9]{27}" + _E)),
    rule("netlify-token", _tok("nfp_", r"[A-Za-z0-9]{36}" + _E)),
    # Prefixes from each vendor's token format documentation.
    rule("rubygems-key", _tok("rubygems_", r"[a-f0-9]{48}" + _E)),
    rule("figma-token", _tok("figd_", r"[A-Za-z0-9_-]{38,60}" + _ED)),
    rule("nuget-key", _tok("oy2", r"[a-z0-9]{43}" + _E), "", _when(is_random, "nuget-key")),
    rule("dynatrace-token", _tok(r"dt0[a-z]\d{2}\.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}" + _E)),
    rule("prefect-key", _tok("pnu_", r"[A-Za-z0-9]{36}" + _E)),
    rule("nvidia-key", _tok("nvapi-", r"[A-Za-z0-9_-]{60,70}" + _ED)),
    rule("pinecone-key", _tok("pcsk_", r"[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,80}" + _E)),
    rule(
        "render-key", _tok("rnd_", r"[A-Za-z0-9]{28,40}" + _E), "", _when(is_random, "render-key")
    ),
    rule("brevo-key", _tok("xkeysib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}" + _E)),
    rule("hubspot-token", _tok("pat-", r"(?:na|eu|ap)\d-" + _UUID + _E)),
    rule("jfrog-key", _tok("AKCp", r"[A-Za-z0-9]{64,80}" + _E)),
    rule("jfrog-key", _tok("cmVmdGtuOjAxOj", r"[A-Za-z0-9+/=]{40,80}")),
    rule("shippo-token", _tok("shippo_", r"(?:live|test)_[a-f0-9]{40}" + _E)),
    rule("contentful-token", _tok("CFPAT-", r"[A-Za-z0-9_-]{40,50}" + _ED)),
    rule("onepassword-token", _tok("ops_", r"eyJ[A-Za-z0-9+/=_-]{40,4096}")),
    rule("duffel-token", _tok("duffel_", r"(?:live|test)_[A-Za-z0-9_=-]{40,50}" + _ED)),
    rule("flutterwave-key", _tok("FLWSECK", r"(?:_TEST)?-[a-f0-9]{32}-X" + _E)),
    rule("posthog-key", _tok("phx_", r"[A-Za-z0-9]{40,50}" + _E)),
    rule("easypost-key", _tok("EZ[AT]K", r"[A-Za-z0-9]{50,60}" + _E), "ezak eztk"),
    rule(
        "dropbox-token",
        _tok(r"sl\.", r"[A-Za-z0-9_=-]{100,1400}" + _ED),
        "",
        _when(is_random, "dropbox-token"),
    ),
    rule("airtable-token", _tok("pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _E)),
    rule("mapbox-token", _tok(r"sk\.eyJ", r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}" + _ED)),
    rule("langfuse-key", _tok("sk-lf-", _UUID + _E)),
    rule("vercel-token", _tok("vc[pika]_", r"[A-Za-z0-9]{40,80}" + _E), "vcp_ vci_ vck_ vca_"),
    rule(
        "scaleway-key", _tok("SCW", r"[A-Z0-9]{17}" + _E), "", _when(is_random, "scaleway-key")
    ),
    # Context: the secret is recognised by what stands next to it.
    rule(
        "sentry-dsn",
        r"://(?P<v>[0-9a-f]{32}(?::[0-9a-f]{32})?)@(?P<host>[A-Za-z0-9.-]+)",
        "",
        _sentry_host,
    ),
    rule(
        "url-credentials",
        # a `?` may stand inside a password before the `@`, not a query's `?a=b`
        r"://[^\s:/@?#\"'<>]*:(?P<v>[^\s/\"'<>]+)@(?=[\w\[])",
        "",
        _url_password,
    ),
    rule(
        "url-credentials",
        # a token as the user, its password empty (Gemfury's `https://TOKEN:@pypi.fury.io/`)
        r"://(?P<v>[A-Za-z0-9_.~%+-]{20,512}):?@(?=[\w\[])",
        "",
        lambda value, m, text: (
            "url-credentials" if is_random(value) and not is_placeholder(value) else None
        ),
    ),
    rule(
        "url-secret-param",
        r"(?:%3[Ff]|%26|[?&])(?P<name>(?i:access_token|refresh_token|id_token|token|api_key|apikey|ap"
        r"i-key|client_secret|secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-secu"
        r"rity-token|session_token|private_token|auth|key))%3[Dd](?P<v>(?:(?!%26)[^&\s#\"'<>])+)",
        "%3d",
        _url_param,
    ),
    rule(
        "url-secret-param",
        r"[?&](?P<name>(?i:access_token|refresh_token|id_token|token|api_key|apikey|api-key|appid|key|cl"
        r"ient_secret|secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-security-toke"
        r"n|session_token|private_token|auth))=(?P<v>[^&\s#\"'<>]+)",
        "=",
        _url_param,
    ),
    rule(
        "auth-header",
        r"[Aa](?i:uthorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?P<scheme>(?i:bearer|basic|token|bo"
        r"t|apikey|api-key|key|sso-key|otp))[ \t]+)?(?P<v>[^\s\"',;]+)",
        "authorization",
        _auth_header,
    ),
    rule("bearer-token", r"[Bb]earer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)", "bearer", _bearer),
    rule("cookie", r"[Cc](?i:ookie):[ \t]*(?P<v>[^\r\n]+)", "cookie", _at_line_start("cookie")),
    rule(
        "cookie",
        r"[Ss](?i:et-cookie):[ \t]*[^=;\s]+=(?P<v>[^;\s]+)",
        "set-cookie",
        _set_cookie,
    ),
    rule(
        "cli-password",
        r"-(?<![\w-]-)-?(?:password|passwd|pass|token|api-key|apikey|auth-token|access-token|clien"
        r"t-secret|secret-key|access-key|api-token|oauth-token|bot-token|private-token)(?:=|[ \t]+"
        r")" + QUOTED_OR_BARE,
        "--",
        _metavar_flag,
    ),
    # `-p PW` and `-p=PW`: the flag library these clients share takes either spelling
    rule(
        "cli-password",
        r"(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|regctl)[ \t]+(?:[\w-]+[ \t]+)?lo"
        r"gin\b[^\n|;&]{0,200}?[ \t]-p(?:[ \t]+|=)" + QUOTED_OR_BARE,
        "login",
        _CLI,
    ),
    rule(
        "cli-password",
        r"(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh|mysqlimport|mysqlcheck)\b[^\n|;&]{0,200}?["
        r" \t]-p(?:'(?P<vs>[^'\n]+)'|\"(?P<vd>[^\"\n]+)\"|(?P<vb>[^\s'\"-]\S*))",
        "mysql mariadb",
        _CLI,
    ),
    rule("cli-password", r"sshpass[ \t]+-p[ \t]*" + QUOTED_OR_BARE, "", _CLI),
    rule(
        "cli-password",
        r"-(?<![\w-]-)(?:u|-user)[ \t]+[\"']?[^\s:\"'@]+:(?P<v>[^\s\"'@]+)",
        "-u --user",
        _on_curl_line,
    ),
    rule(
        "netrc-password",
        r"login[ \t]+\S+[ \t\r\n]+password[ \t]+(?P<v>\S+)",
        "",
        _unless_placeholder("netrc-password"),
    ),
]
# fmt: on
