"""Key names that hold secrets: `DB_PASSWORD`, `apiKey`, `x-api-key`, `_authToken`.

Owns what the name in an assignment or a JSON key says about its value: whether it names a
secret, which kind, and whether its value must also look generated. Invariant: a name is judged
by its segments alone, and each name is worked out once (the answers are cached).
"""

from __future__ import annotations

import functools
import re

# fmt: off
_SECRET_SEGMENTS = frozenset({
    "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "PWD", "APIKEY",
    "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "PRIVKEY", "CREDENTIAL", "CREDENTIALS", "CREDS",
    "AUTH", "AUTHTOKEN", "ACCESSTOKEN", "PAT", "KEY", "PRIVATE", "SIGNATURE", "PSK", "AUTHTOK",
    "PW", "COMMUNITY", "COOKIE", "SALT", "BEARER",
})
# fmt: on
# Names ending so describe a secret (its id, file, lifetime) without holding it.
# fmt: off
_NOT_SECRET_TAILS = frozenset({
    "ID", "IDS", "NAME", "NAMES", "PATH", "FILE", "DIR", "URL", "URI", "ENDPOINT", "HOST",
    "PORT", "USER", "USERNAME", "EMAIL", "REGION", "TYPE", "LENGTH", "SIZE", "TTL", "EXPIRY",
    "EXPIRES", "EXPIRATION", "ALGORITHM", "ALG", "HEADER", "PREFIX", "VERSION", "ENABLED",
    "MODE", "COUNT", "MAX", "MIN", "TIMEOUT", "LIMIT", "SOCK", "ISSUER", "AUDIENCE", "SCOPE",
    "SCOPES", "METHOD", "PROVIDER", "DOMAIN", "HASH", "POLICY", "FORMAT", "LOCATION", "ARN",
    "REF", "STDIN", "RESET", "REQUIRED", "FIELD", "LABEL", "HINT", "PROMPT", "KIND", "ERROR",
    "ACCESSOR", "ENCRYPTION", "ENCODING",
})
# fmt: on
# A KEY after one of these is a lookup key, not a credential.
# fmt: off
_PLAIN_KEYS = frozenset({
    "SORT", "CACHE", "PRIMARY", "FOREIGN", "PARTITION", "PUBLIC", "PUB", "HOT", "IDEMPOTENCY",
    "LOOKUP", "ROUTING", "MAP", "DICT", "GROUP", "UNIQUE", "COMPOSITE", "SHORTCUT", "CONFIG",
    "PUBLISHABLE", "I18N", "TRANSLATION", "OBJECT", "S3", "REDIS",
})
# fmt: on
# A weak segment names a secret only at the end of a name (`API_KEY`, not `KeyError`) or before
# one of these (`CLIENT_KEY_DATA`); alone (`auth: ...`) its value must also look generated.
# fmt: off
_VALUE_TAILS = frozenset({
    "DATA", "VALUE", "B64", "BASE64", "BASE", "STRING", "RAW", "HEX", "PEM",
})
# fmt: on
_WEAK_NAMES = frozenset(
    {"AUTH", "PASS", "KEY", "PRIVATE", "PAT", "SIGNATURE", "SECRETS", "BEARER"}
)  # a log's `bearer=<token>`, but `{"bearer": "bearer-token"}` maps a scheme to a kind
# A name with one of these holds a secret only when its value looks generated: a licence key, an
# SNMP community or an Erlang cookie is a credential when it is `6o8aiqeaZfsEBBTL`, a label when
# it is `MIT` (`COOKIE_SAMESITE=Lax`).
# An application's salt (`SECURITY_SALT`, `hash_salt`) is a secret when it is generated, a
# setting when it is not (`SALT_ROUNDS=10`).
_GENERATED_ONLY = frozenset({"LICENSE", "LICENCE", "COMMUNITY", "COOKIE", "SALT"})
# Words ending in PASS or PW that are not a password (`BYPASS`, `COMPASS`, `getpass()`).
_NOT_PASS_WORDS = frozenset(
    {"BYPASS", "COMPASS", "SURPASS", "OVERPASS", "UNDERPASS", "TRESPASS", "GETPASS", "NOPASS"}
)
# A segment after which the name says the value is published or shared, not secret
# (`NEXT_PUBLIC_POSTHOG_KEY`, `PUBLIC_POSTHOG_PROJECT_KEY`, `PUBLISHABLE_KEY`).
# A LaunchDarkly-style `mobileKey` ships inside the app, as its documentation says.
_PUBLISHED = frozenset({"PUBLIC", "PUBLISHABLE", "PUB", "MOBILE"})
# A first segment that makes the name a reference to a secret held elsewhere (Drone's
# `from_secret: NAME`, Kubernetes' `valueFrom`), or a verb (`read_secret('db/root')`).
_REFERENCE_HEADS = frozenset({"FROM", "GET", "READ", "FETCH", "LOAD", "LOOKUP", "FIND", "HAS"})
# Segments split at ASCII punctuation and blanks, not at letters of other scripts (whose vowel
# signs `\W` would split at: `पासवर्ड`).
_SEPARATORS = r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f\s]+"
_SEGMENT_SPLIT = re.compile(_SEPARATORS + r"|(?<=[a-z0-9])(?=[A-Z])")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


# Trailing segments that name the environment, the slot or the generation a secret is for
# (dotenvx's `DOTENV_PRIVATE_KEY_PRODUCTION`, `API_KEY_STAGING`, `JWT_SECRET_2`, `KEY_OLD`): the
# name is judged without them, as if it ended before them.
# fmt: off
_QUALIFIER_TAILS = frozenset({
    "PROD", "PRODUCTION", "STAGING", "STAGE", "DEV", "DEVELOPMENT", "TEST", "TESTING", "CI",
    "LOCAL", "QA", "UAT", "SANDBOX", "LIVE", "PREVIEW", "OLD", "NEW", "PRIMARY", "SECONDARY",
    "BACKUP", "NEXT", "PREVIOUS", "PREV", "CURRENT", "ROTATED",
})
# fmt: on


def _segments(name: str) -> list[str]:
    segments = [s.upper() for s in _SEGMENT_SPLIT.split(name) if s]
    while len(segments) > 1 and (segments[-1] in _QUALIFIER_TAILS or segments[-1].isdigit()):
        segments.pop()
    return segments


# The words for a password, a passphrase, a token, a secret or a credential in the most spoken
# languages (Spanish, Portuguese, French, German, Russian and Ukrainian, Chinese, Japanese,
# Korean, Indonesian and Malay, Turkish, Dutch, Polish, Italian and Romanian, Vietnamese, Thai,
# Arabic, Persian, Urdu, Hindi, Bengali, Tamil, Swedish, Danish and Norwegian, Finnish,
# Hungarian, Czech and Slovak, Serbo-Croatian, Bulgarian, Greek, Hebrew, Swahili; Vietnamese's
# `mã truy cập`, access code, is its word for an access token), as a key name
# writes them (lowercase, words joined by `_`). Latin-script words match a whole segment of the
# name or its end (`datenbank_passwort`, `adminwachtwoord`); words of other scripts match
# anywhere, as those scripts compound without separators (`数据库密码`).
# fmt: off
FOREIGN_PASSWORDS = (
    "contraseña", "contrasena", "senha", "mot_de_passe", "motdepasse", "passwort", "kennwort",
    "kata_sandi", "katasandi", "kata_laluan", "katalaluan", "şifre", "sifre", "şifresi",
    "wachtwoord", "hasło", "haslo", "parola", "parolă", "mật_khẩu", "mat_khau", "matkhau",
    "lösenord", "losenord", "adgangskode", "passord", "salasana", "jelszó", "jelszo", "heslo",
    "lozinka", "nenosiri", "palavra_passe", "clave_de_acceso", "contrasinal", "pasahitza",
    "sandi", "tunnussana",
    "пароль", "парола", "лозинка", "密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호",
    "รหัสผ่าน", "كلمة_المرور", "كلمة_السر", "رمز_عبور", "گذرواژه", "پاس_ورڈ", "पासवर्ड",
    "कूटशब्द", "পাসওয়ার্ড", "கடவுச்சொல்", "κωδικός", "κωδικος", "συνθηματικό", "סיסמה", "סיסמא",
    # the smaller languages of Europe, the Caucasus, Central, South and Southeast Asia and
    # Africa (Catalan, Lithuanian, Estonian, Slovenian, Icelandic, Albanian, Welsh, Irish,
    # Afrikaans, Zulu, Esperanto, Azerbaijani; Ukrainian, Georgian, Armenian, Amharic, Kazakh,
    # Mongolian, Sinhala, Khmer, Lao, Burmese, Malayalam, Telugu, Kannada, Gujarati, Punjabi)
    "contrasenya", "slaptažodis", "slaptazodis", "parool", "geslo", "lykilorð", "fjalëkalim",
    "fjalëkalimi", "cyfrinair", "pasfhocal", "wagwoord", "iphasiwedi", "pasvorto", "şifrə",
    "гасло", "პაროლი", "գաղտնաբառ", "የይለፍ_ቃል", "құпия_сөз", "нууц_үг", "මුරපදය",
    "ពាក្យសម្ងាត់", "ລະຫັດຜ່ານ", "စကားဝှက်", "പാസ്‌വേഡ്", "పాస్‌వర్డ్", "ಪಾಸ್‌ವರ್ಡ್", "પાસવર્ડ", "ਪਾਸਵਰਡ",
)
FOREIGN_SECRETS = (
    "jeton", "geheimnis", "zugangsschlüssel", "zugriffstoken", "secreto", "segredo", "segreto",
    "sekret", "gizli_anahtar", "kunci_rahasia", "rahasia", "bí_mật", "clé_secrète",
    "clave_secreta", "chave_secreta", "chave_de_acesso", "clave_api", "chave_api", "clé_api",
    "токен", "секрет", "секретный_ключ", "令牌", "密钥", "秘钥", "密鑰", "秘密鍵", "トークン",
    "シークレット", "토큰", "비밀_키", "비밀키", "توكن", "رمز_مميز", "मुख्य_कुंजी", "टोकन",
    "mã_truy_cập", "ma_truy_cap",
    # the word for secret in more scripts, and English's spelled in them (Korean 시크릿,
    # Thai ซีเคร็ต); Thai's secret key and secret code
    "시크릿", "비밀", "秘密", "シークレットキー", "คีย์ลับ", "รหัสลับ", "ความลับ", "โทเค็น", "ซีเคร็ต",
    "गुप्त", "গোপন", "μυστικό", "μυστικο", "סוד", "السري",
)
# A key in another language is a credential only when its value looks generated (`clave: MIT`).
FOREIGN_KEYS = (
    "clave", "chave", "schlüssel", "clé", "chiave", "sleutel", "klucz", "nyckel", "anahtar",
    "kunci", "khóa", "ключ", "キー", "키", "مفتاح", "कुंजी", "ufunguo", "کلید", "kľúč", "klíč",
    "clau", "raktas", "atslēga", "võti", "ključ", "lykill", "çelës", "çelësi", "allwedd", "açar",
    "kalit", "kulcs", "avain", "გასაღები", "բանալի", "ቁልፍ", "кілт", "түлхүүр", "চাবি", "กุญแจ",
    "מפתח", "คีย์",
)
# fmt: on
_FOREIGN_SEPARATORS = re.compile(_SEPARATORS)


@functools.lru_cache(maxsize=4096)
def foreign_name_kind(name: str) -> tuple[str, bool] | None:
    """(kind, weak) of a key name that says password, secret or key in another language."""
    norm = "_" + _FOREIGN_SEPARATORS.sub("_", name.lower()).strip("_") + "_"
    if norm == "__":
        return None
    for words, kind, weak in (
        (FOREIGN_PASSWORDS, "password-assignment", False),
        (FOREIGN_SECRETS, "secret-assignment", False),
        (FOREIGN_KEYS, "secret-assignment", True),
    ):
        for word in words:
            if word.isascii() or word[0] <= "\u024f":
                at = norm.find(word)
                while at >= 0:
                    if norm[at + len(word)] == "_" and (norm[at - 1] == "_" or not weak):
                        return kind, weak
                    at = norm.find(word, at + 1)
            elif word in norm:
                return kind, weak
    return None


def secret_name_kind(name: str) -> str | None:
    """The kind of a key name that holds a secret (`DB_PASSWORD`, `apiKey`), else None."""
    segments = _segments(name)
    if not segments or segments[-1] in _NOT_SECRET_TAILS or _PUBLISHED.intersection(segments):
        return None
    kind = _english_kind(name, segments)
    if kind is None:
        foreign = foreign_name_kind(name)
        if foreign is None:
            return None
        kind = "env-secret" if _ENV_NAME.fullmatch(name) and len(name) > 3 else foreign[0]
    return kind


_PUBLIC_HEADS = ("PUBLIC", "PUBLISHABLE", "CLIENT", "ANON", "BROWSER", "FRONTEND")
_GLUED_KEYS = ("APIKEY", "ACCESSKEY", "SECRETKEY", "AUTHKEY", "PRIVATEKEY", "SIGNINGKEY")


def _english_kind(name: str, segments: list[str]) -> str | None:
    if segments[0] in _REFERENCE_HEADS and len(segments) > 1:
        return None
    hit = False
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1 or segments[i + 1] in _VALUE_TAILS
        if seg == "PASS" and i + 1 < len(segments) and segments[i + 1] == "PHRASE":
            hit = True  # `pass_phrase` (OCI's config) spells PASSPHRASE in two segments
            continue
        if seg in _WEAK_NAMES and not last:
            continue
        if seg == "KEY" and (len(segments) == 1 and not name.isupper()):
            continue
        if seg == "KEY" and i and segments[i - 1] in _PLAIN_KEYS:
            continue
        if (
            seg in _SECRET_SEGMENTS
            or "PASSWORD" in seg
            or "PASSWD" in seg
            or "SECRET" in seg
            or seg.endswith("TOKEN")
            and not seg.startswith("TOKENI")
            # `requirepass`, `rpcpass`, `bindpw`, `rootpw`: a password glued to what it opens
            or seg.endswith("COMMUNITY")
            # a key glued to its vendor's name (ThingSpeak's `THINGSPEAKAPIKEY` header)
            or (seg.endswith(_GLUED_KEYS) and not seg.startswith(_PUBLIC_HEADS))
            or seg == "SKEY"
            or seg.endswith(("PASS", "PW"))
            and len(seg) > 4
            and seg not in _NOT_PASS_WORDS
        ):
            hit = True
    if not hit:
        return None
    if _ENV_NAME.fullmatch(name) and len(name) > 3:
        return "env-secret"
    if any("PASS" in s or s in ("PWD", "PW") or s.endswith("PW") for s in segments):
        return "password-assignment"
    return "secret-assignment"


def is_weak_name(name: str) -> bool:
    """Whether a value under `name` must also look generated to count (`auth`, `key`,
    `license_key`, `rocommunity`, `clave`); `auth_pass` (keepalived) names a password outright."""
    segments = _segments(name)
    if segments and _english_kind(name, segments) is None:
        foreign = foreign_name_kind(name)
        return bool(foreign and foreign[1])
    if _GENERATED_ONLY.intersection(segments) or any(s.endswith("COMMUNITY") for s in segments):
        return True
    return all(s in _WEAK_NAMES for s in segments) and not (
        len(segments) > 1 and segments[-1] == "PASS"
    )


# Key names whose values have a kind of their own, with the shape that value must have.
_NAMED_VALUES = [
    (
        re.compile(r".*(?:secret[_-]?access[_-]?key|aws[_-]?secret[_-]?(?:access[_-]?)?key)"),
        re.compile(r"[A-Za-z0-9/+]{40}"),
        "aws-secret-key",
    ),
    (
        re.compile(r".*(?:session|security)[_-]?token"),
        re.compile(r"[A-Za-z0-9/+=]{100,}"),
        "aws-session-token",
    ),
    (
        re.compile(r"twilio.*(?:auth[_-]?token|secret)"),
        re.compile(r"[0-9a-f]{32}"),
        "twilio-auth-token",
    ),
    (
        re.compile(r"heroku.*(?:api[_-]?key|token)"),
        re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        "heroku-key",
    ),
    (re.compile(r"_auth|_authtoken|_password"), None, "npmrc-auth"),
    (
        re.compile(
            r"x-api-key|api-key|x-auth-token|private-token|x-access-token|x-goog-api-key"
            r"|ocp-apim-subscription-key|x-functions-key|x-vault-token|x-figma-token"
            r"|x-shopify-access-token|x-dd-api-key|x-dd-application-key"
        ),
        None,
        "api-key-header",
    ),
]
HEADER_KIND = "api-key-header"


def named_kind(name: str, value: str) -> str | None:
    """The specific kind for `value` under key `name`, if the pair has one."""
    for value_re, kind in _named_rules(name):
        if value_re is None or value_re.fullmatch(value):
            return kind
    return None


# Key names repeat (a config, an env dump); what a name says is worked out once per name.
@functools.lru_cache(maxsize=4096)
def _named_rules(name: str) -> tuple[tuple[re.Pattern[str] | None, str], ...]:
    lowered = name.lower()
    return tuple((v, kind) for n, v, kind in _NAMED_VALUES if n.fullmatch(lowered))


# A key name is looked at only when it holds one of these.
KEYWORDS = (
    "pass", "pwd", "secret", "token", "key", "cred", "auth", "priv", "pat", "signature", "psk",
    "pw", "community", "cookie", "salt", "bearer",
)  # fmt: skip


# What a text must hold for a foreign name to be in it: the longest word of each.
FOREIGN_NEEDLES = tuple(
    sorted({max(w.split("_"), key=len) for w in FOREIGN_PASSWORDS + FOREIGN_SECRETS + FOREIGN_KEYS})
)


@functools.lru_cache(maxsize=4096)
def name_info(name: str) -> tuple[bool, str | None, bool]:
    """(has a keyword, kind of the name, weak name) for an assignment's key."""
    lowered = name.lower()
    if not any(k in lowered for k in KEYWORDS) and not any(k in lowered for k in FOREIGN_NEEDLES):
        return False, None, False
    return True, secret_name_kind(name), is_weak_name(name)
