"""Secrets in running text and on a command's standard input.

Owns three classes no assignment syntax reaches:
- prose: a value right after a secret name and a copula or separator in a sentence, in the major
  languages (`the password is ...`, `la contraseña es ...`, `Passwort für root: ...`,
  `Пароль администратора: ...`, `密码是 ...`), with at most a short qualifier between the name and
  the verb (`for root`, `de acceso`, one word in a non-Latin script);
- a login written `USER / PASSWORD` after a word naming it (`the ops login is ops / ...`,
  radiusd's `Login incorrect: [jdoe/...]`);
- standard input: the producer of a pipe, a here-string or a here-document into a command that
  reads a password from stdin (`--password-stdin`, `--token-stdin`, `sudo -S`, `passwd --stdin`,
  `chpasswd`, `smbpasswd -s`, `--passphrase-fd 0`, `-passin stdin`), the `user NAME PW` line a
  heredoc feeds an FTP client, and the string an `expect` script sends at a password prompt.
Invariant: a prose value must look like a credential (`is_strong`) and not like code, a number,
a URL or a placeholder; needles are found with `str.find`, so the cost is per occurrence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from wikimem.redaction.key_names import FOREIGN_KEYS, FOREIGN_PASSWORDS, FOREIGN_SECRETS
from wikimem.redaction.placeholders import is_code, is_placeholder, is_random, is_strong
from wikimem.redaction.scanners import occurrences, trim


def _lazy(source: str) -> Callable[[], re.Pattern[str]]:
    """A pattern compiled on first use: this module is on the hook's import path."""
    return functools.cache(lambda: re.compile(source))


# --- prose ------------------------------------------------------------------------------------

# Secret names that start a sentence's subject (lowercase; found in the lowered text).
_NAMES_ENGLISH = (
    "password", "passwd", "passphrase", "passcode", "secret key", "secret", "api key", "api-key",
    "api token", "access token", "access key", "auth token", "token", "private key", "pin code",
)  # fmt: skip
_NAMES_FOREIGN: tuple[str, ...] = (
    "passwort", "kennwort", "contraseña", "contrasena", "clave", "mot de passe", "mot_de_passe",
    "senha", "hasło", "haslo", "wachtwoord", "lösenord", "salasana", "jelszó", "heslo", "parola",
    "chiave", "şifresi", "şifre", "sifre", "schlüssel", "clé privée", "clé api", "clé", "chave",
    "mật khẩu", "mat khau", "khóa api", "zugriffstoken", "secreto", "nyckel", "nøgle", "nøkkel",
)  # fmt: skip
# The Nordic words for key (Swedish `nyckel`, Danish `nøgle`, Norwegian `nøkkel`) head compounds
# (`Bugsnag-nyckeln`, `API-nøglen`): a key only when its value looks generated.
_KEY_WORDS = frozenset(("nyckel", "nøgle", "nøkkel", "κλειδί"))
_NAMES_SCRIPT: tuple[str, ...] = (
    "пароль", "ключ api", "ключ", "токен", "密码", "密碼", "口令", "密钥", "秘密鍵", "令牌",
    "パスワード", "トークン", "コミュニティ", "api 키", "키",
    "비밀번호", "암호", "κωδικός", "κλειδί", "كلمة المرور", "סיסמה",
)  # fmt: skip


def _lexicon(words: tuple[str, ...], latin: bool) -> tuple[str, ...]:
    """The shared lexicon's words (key_names) as prose writes them, longest first so that
    `kata sandi` is read before `sandi` would be."""
    spelled = {w.replace("_", " ") for w in words if (w.isascii() or w[0] <= "\u024f") == latin}
    return tuple(sorted(spelled, key=len, reverse=True))


_LEXICON = FOREIGN_PASSWORDS + FOREIGN_SECRETS
_NAMES_FOREIGN += tuple(w for w in _lexicon(_LEXICON, True) if w not in _NAMES_FOREIGN)
_NAMES_SCRIPT += tuple(w for w in _lexicon(_LEXICON, False) if w not in _NAMES_SCRIPT)
# The lexicon's words for key not yet above (Arabic `مفتاح`, Dutch `sleutel`, Polish `klucz`...):
# like the Nordic ones, a key only when its value looks generated.
_NEW_KEYS = tuple(w for w in FOREIGN_KEYS if w not in _NAMES_FOREIGN + _NAMES_SCRIPT)
_KEY_WORDS |= frozenset(_NEW_KEYS)
_NAMES_FOREIGN += _lexicon(_NEW_KEYS, True)
_NAMES_SCRIPT += _lexicon(_NEW_KEYS, False)
_NAMES_LATIN = _NAMES_ENGLISH + _NAMES_FOREIGN
# Languages that inflect change a name's ending (Czech `hesla`, Russian `пароля`, `ключа`,
# Hungarian `jelszava`, Greek `κωδικού`, Turkish `parolamız`, Estonian `parooli`): each
# one-word name is found by its stem, without its last vowels (or Baltic `-is`, `-as`), then an
# ending led by a vowel (or a Nordic article, `-en`, `-et`, `-n`), in the name's own script, of
# up to four letters before the word ends. The full word is its stem and such an ending, so
# only the stem is searched for (`sandbox` does not read as `sandi`: `box` is no ending).
_VOWELS = "aeiouyáéíóúàèìòùâêîôûäëïöüąęåøæőűıаеёиоуыэюяьйάέήίόύώαεηιουωςό"


def _stem(name: str) -> str:
    if name.endswith(("is", "as", "us", "os")) and name.isalpha():
        name = name[:-2]
    return name.rstrip(_VOWELS) if len(name.rstrip(_VOWELS)) >= 4 else name


_STEMS = {
    _stem(w): w
    for w in _NAMES_FOREIGN + _NAMES_SCRIPT
    if " " not in w and _stem(w) not in _NAMES_LATIN + _NAMES_SCRIPT + (w,)
}
_STEMMED = frozenset(_STEMS.values())
_NAMES_LATIN = tuple(w for w in _NAMES_LATIN if w not in _STEMMED)
_NAMES_SCRIPT = tuple(w for w in _NAMES_SCRIPT if w not in _STEMMED)
# An ending is written in its name's script: Latin, Cyrillic or Greek (kana, Han and Hangul do
# not inflect; their particles are `_COPULA`'s).
_ENDINGS = {
    "latin": _lazy(
        r"(?:[aeiouyáéíóúàèìòùâêîôûäëïöüąęåøæőűı][a-zß-ɏ]{0,3}|s|n|t|et|en|ns|nya)(?![^\W\d_])"
    ),
    "cyrillic": _lazy(r"[аеёиоуыэюяьй][\u0400-\u04ff]{0,3}(?![^\W\d_])"),
    "greek": _lazy(r"[αεηιουωάέήίόύώς][\u0370-\u03ff\u1f00-\u1fff]{0,3}(?![^\W\d_])"),
}


def _ending(name: str) -> Callable[[], re.Pattern[str]] | None:
    last = name[-1]
    if last <= "\u024f":
        return _ENDINGS["latin"]
    if "\u0400" <= last <= "\u04ff":
        return _ENDINGS["cyrillic"]
    if "\u0370" <= last <= "\u03ff" or "\u1f00" <= last <= "\u1fff":
        return _ENDINGS["greek"]
    return None


# Between the name and the verb: a preposition and up to six words (`for root`, `de la base de
# datos de producción`, `für den alten Server`, French elision `de l'API` or `d'accès de
# Acme`, Slovak `pre Acme`, Swahili `wa API wa bunny.net`), or one word in a non-Latin script
# and up to two Latin ones it governs (`администратора`, `пользователя sa`), or, for a name in
# another language, up to three words before a colon (`mật khẩu quản trị: ...`, `Mã truy cập
# Todoist của bạn: ...`).
# A word between a name and its verb; a dot inside it joins a host's labels (`bunny.net`).
_WORD_IN = r"[^\s:=：,.;!?\"'`()]{1,24}(?:\.[^\s:=：,.;!?\"'`()]{1,24}){0,3}"
_PREPOSITION = (
    r"[ \t]+(?:(?i:for|of|to|de|del|da|do|di|du|des|para|pour|für|fur|van|voor|för|til"
    r"|dla|для|от|на|za|na|k|ke|pro|pre|pentru|per|por|wa|ya|cho|của)"
    r"(?:[ \t]+(?:[lLdD]')?" + _WORD_IN + r"){1,6}"
    r"|[lLdD]'" + _WORD_IN + r"(?:[ \t]+(?:[lLdD]')?" + _WORD_IN + r"){0,6})"
)
_QUALIFIER = (
    r"(?P<qual>" + _PREPOSITION + r"|(?P<qualc>(?:[ \t]+" + _WORD_IN + r"){1,3}(?=[ \t]*[:：]))"
    r"|[ \t]+[^\x00-\u024f\s:=：,.;!?\"'`()]{1,24}(?:[ \t]+[A-Za-z0-9_.-]{1,24}){0,2})?"
)
# An aside in brackets before the separator (`Token de API de Fleetrun (no compartir): ...`,
# `senha do token pessoal (Planning Center): ...`, `API Key(API 密钥): ...`): it names whose
# secret or warns about it; the value still follows.
_ASIDE = r"(?P<aside>[ \t]*[(（][^()（）\n:：=]{1,40}[)）](?=[ \t]*[:：]))?"
# An aside saying the key is public is a public key's label, in any of these languages.
_PUBLIC_ASIDE = re.compile(
    r"(?i)public|publishable|client-side|öffentlich|públic|publique|pubblic|公开|公開|публичн"
)
# The verb or separator, then the value (quoted or bare).
_COPULA = _ASIDE + (
    r"(?:[ \t]*(?P<colon>[:：=])[ \t]*|[ \t]*(?:은|는|は|是|为|為|：|คือ|เป็น|→|⇒)[ \t]*"
    r"|[ \t]+(?i:is now|was set to|has been set to|is set to|set to|is|was|are|es|era|será"
    r"|ist|lautet|war|est|était|é|è|jest|je|е|är|er|on|это|—|to|là|είναι|هي|هو|היא|הוא|है"
    r"|হলো|হল|adalah|ialah|este|ni|ndiyo|yra|és|yw|ydy|është|estas|ay|არის|է|ነው)[ \t]*:?[ \t]+)"
)
_VALUE = (
    r"(?:«[ \t\u00a0\u202f]?(?P<vg>[^\s»]{4,200})[ \t\u00a0\u202f]?»"
    r"|[\"'`«“„](?P<vq>[^\s\"'`»”“]{4,200})[\"'`»”“]|(?P<v>[^\s\"'`<>»”“&]{4,200}))"
)
# A name may carry an ending: a plural, or the article other languages glue to it (Swedish
# `lösenordet`, `nyckeln`, Danish `adgangskoden`, Indonesian `sandinya`).
_AFTER_NAME = _lazy(r"(?:e?s|et|en|nya|n)?" + _QUALIFIER + _COPULA + _VALUE)
# A language that inflects instead of a preposition puts one or two bare words between a Latin
# name and the verb (Finnish `Salasana tietokantaan on ...`, password into-the-database is;
# Slovak `Heslo správcu PocketBase je ...`, the administrator's password), then perhaps a
# preposition's phrase (`Kľúč API pre Acme je ...`, `clé API pour Acme est ...`); after a name
# in another script, up to six words of any script (Arabic `مفتاح الإدارة الخاص بـ Ghost هو ...`,
# Greek `κωδικός του Memgraph για τον χρήστη analyst: ...`).
_AFTER_WORD = _lazy(
    r"(?:e?s|et|en|nya|n)?(?:[ \t]+[^\s:=：,.;!?\"'`()]{1,24}){1,2}(?:"
    + _PREPOSITION
    + r")?"
    + _COPULA
    + _VALUE
)
_AFTER_WORDS = _lazy(r"(?:[ \t]+[^\s:=：,.;!?\"'`()]{1,24}){1,6}?" + _COPULA + _VALUE)
# A name then the value in backticks, as chat and Markdown write it (``password `...` ``,
# ``token: `...` ``).
# Or quoted right after the name, as a message quotes what it got (`invalid password '...'`), or
# in the corner brackets Japanese and Chinese quote with (`パスワード「...」`).
_QUOTED_NEXT = _lazy(
    r"(?:e?s)?(?:[ \t]+(?P<q>[\"'])(?P<vq>[^\s\"'`]{4,200})(?P=q)(?![\w])"
    r"|[ \t]*[「『](?P<vc>[^\s」』]{4,200})[」』])"
)
_BACKTICKED = _lazy(r"(?:e?s)?(?:[ \t]*[:=：][ \t]*|[ \t]+)`(?P<vq>[^\s`]{4,200})`")
# In another language a name may also be assigned to (`Passwort=...`), as config files write it,
# the name the head of a compound (`コミュニティー文字列 = ...`, community string).
# The rest of the name may join its words with `_`, as code does (`$секретный_код = '...'`).
_EQUALS = _lazy(r"(?:[^\x00-\u024f\s:=：]|_){0,16}[ \t]*=[ \t]*[\"']?(?P<v>[^\s\"'`<>&]{4,200})")
# Or written with a blank alone, in languages that put the verb last or leave it out
# (`パスワード ... でログイン`, `şifresi ... olarak güncellendi`); `_value_counts` still
# demands a credential's shape.
_SPACED = _lazy(r"(?:[ \t]*\([^()\n]{1,40}\))?[ \t]+(?P<v>[^\s\"'`<>&]{6,200})(?=[ \t]|$|\n)")
_ENGLISH = frozenset(_NAMES_ENGLISH)
_WORD_CHARS = _lazy(r"\w")
_NUMBER = _lazy(r"[\d.,:/%+-]+[a-zA-Z]{0,3}")  # `3600s`, `12,345`, `10:30`, `42%`, `8KB`


def _value_counts(value: str) -> bool:
    if is_placeholder(value) or not is_strong(value) or "://" in value:
        return False
    if not any(c.isdigit() or c in "!@#$%^&*+=~?" for c in value):
        return False  # a long word or identifier (`authorization_code`), not a credential
    if _NUMBER().fullmatch(value) or (is_code(value) and not any(c.isdigit() for c in value)):
        return False
    if any(c in value for c in "{}[]()"):
        return False  # a format field or an expression (`{curve.name!r}`, `1].type`)
    return not value.endswith((":", "…"))


# English that puts the value before the name: `use VALUE as the password`, `VALUE is the new
# admin password`; the value must still have a credential's shape (`_value_counts`).
_SECRET_NOUN = r"(?i:password|passphrase|passcode|passwd|secret|token|api[ -]key|access key)"
_NOUNS: tuple[str, ...] = (
    "password",
    "passphrase",
    "passcode",
    "passwd",
    "secret",
    "token",
    "api key",
    "api-key",
)
_NOUNS += ("access key",)
_VALUE_FIRST = _lazy(
    r"\b(?i:use|using|with|enter|type|try)[ \t]+[\"'`]?(?P<a>[^\s\"'`]{4,200}?)[\"'`]?[ \t]+"
    r"(?i:as)[ \t]+(?:(?i:the|my|our|your|a|an)[ \t]+)?(?:[\w-]{1,20}[ \t]+){0,3}"
    + _SECRET_NOUN
    + r"\b|(?:^|(?<=[\s(]))[\"'`]?(?P<b>[^\s\"'`]{4,200}?)[\"'`]?[ \t]+(?i:is|was|will be)[ \t]+"
    r"(?:(?i:the|my|our|your)[ \t]+)?(?:[\w-]{1,20}[ \t]+){0,3}" + _SECRET_NOUN + r"\b"
)


def _values_first(text: str, lowered: str) -> Iterator[tuple[str, int, int]]:
    """Found back from each noun (`str.find`), in the 260 characters of its line before it: a
    scan of the whole text would try the value-first pattern at every word. Overlapping
    windows are merged and each is scanned once, so a noun repeated (`token(=` x 30,000) keeps
    the scan linear."""
    windows: list[list[int]] = []
    for _, pos in sorted(occurrences(lowered, _NOUNS), key=lambda hit: hit[1]):
        line_start = text.rfind("\n", max(pos - 260, 0), pos) + 1 or max(pos - 260, 0)
        line_end = text.find("\n", pos, pos + 40)
        stop = line_end if line_end >= 0 else min(pos + 40, len(text))
        if windows and line_start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], stop)
        else:
            windows.append([line_start, stop])
    for start_at, stop_at in windows:
        for m in _VALUE_FIRST().finditer(text, start_at, stop_at):
            group = "a" if m.group("a") is not None else "b"
            start, stop = m.span(group)
            if _value_counts(text[start:stop]):
                yield "prose-secret", start, stop


def scan_prose(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    names = _NAMES_LATIN if text.isascii() else _NAMES_LATIN + _NAMES_SCRIPT
    names += tuple(_STEMS)
    covered = -1
    # in the text's order, so that one name's finding further on hides no other name before it
    for found, pos in sorted(occurrences(lowered, names), key=lambda hit: hit[1]):
        name = _STEMS.get(found, found)
        end = pos + len(found)
        inflects = None if name in _ENGLISH else _ending(found)
        if inflects is not None and (ending := inflects().match(lowered, end)) is not None:
            end = ending.end()  # an inflected ending (`hesla`, `пароля`, `parolamız`)
        elif found != name:
            continue  # a stem alone, not a word
        if (pos and _WORD_CHARS().match(text, pos - 1) and name.isascii()) or pos < covered:
            continue
        m = _AFTER_NAME().match(text, end)
        if (
            m
            and name in _ENGLISH
            and m.group("colon")
            and m.group("qual") is None
            and m.group("aside") is None
        ):
            m = None  # `password: ...` is an assignment: the assignment scanners decide
        if m and name in _ENGLISH and m.group("qualc"):
            m = None  # `password manager: 1Password` names a product, not a value
        if m is None and name not in _ENGLISH:
            words = _AFTER_WORD if name.isascii() or name[0] <= "\u024f" else _AFTER_WORDS
            m = words().match(text, end)
        if m is None and name not in _ENGLISH:
            m = _EQUALS().match(text, end) or _SPACED().match(text, end)
        if m is None:
            m = _BACKTICKED().match(text, end)
        if m is None and not text[pos:end].isupper():  # SQL's `PASSWORD '<hash>'` is a keyword
            m = _QUOTED_NEXT().match(text, end)
        if m:
            group = next(
                g
                for g in ("vg", "vq", "vc", "v")
                if g in m.re.groupindex and m.group(g) is not None
            )
            start, stop = m.span(group)
            if group == "v":
                start, stop = trim(text, start, stop)
                while stop > start and text[stop - 1] in ",;!?":
                    stop -= 1
            value = text[start:stop]
            if "aside" in m.re.groupindex and _PUBLIC_ASIDE.search(m.group("aside") or ""):
                continue  # `Trello API key (public, meant for the Power-Up): ...`
            if name in _KEY_WORDS and (len(value) < 16 or not is_random(value)):
                continue
            if _value_counts(value):
                covered = stop
                yield "prose-secret", start, stop
    yield from _values_first(text, lowered)


# --- a login given as USER / PASSWORD -----------------------------------------------------------

# A sentence or a log that names a login, then `USER / PASSWORD` (`the shared ops login is ops /
# ...`, `login with ops / ...`), or `[USER/PASSWORD]` in brackets (radiusd's `Login incorrect:
# [jdoe/...]`): the second half is the password.
LOGIN_NEEDLES = ("login", "log in", "logon", "credential", "creds")
_LOGIN_PAIR = _lazy(
    r"[^\n/]{0,40}?(?:[ \t](?P<user>[A-Za-z][\w.@-]{0,40})[ \t]+/[ \t]+(?P<v>[^\s/\"'`]{6,200})"
    r"|[ \t][\[(](?P<buser>[A-Za-z][\w.@-]{0,40})/(?P<bv>[^\s/\])\"'`]{6,200})[\])])"
)


def scan_login_pairs(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        return  # a character that lengthens when lowered: positions would not line up
    done = -1
    for needle, pos in occurrences(lowered, LOGIN_NEEDLES):
        if pos < done or (pos and _WORD_CHARS().match(text, pos - 1)):
            continue
        m = _LOGIN_PAIR().match(text, pos + len(needle))
        if m is None:
            continue
        group = "v" if m.group("v") is not None else "bv"
        start, stop = m.span(group)
        if group == "v":
            start, stop = trim(text, start, stop)
            while stop > start and text[stop - 1] in ",;!?":
                stop -= 1
        if _value_counts(text[start:stop]):
            done = stop
            yield "prose-secret", start, stop


# --- standard input ---------------------------------------------------------------------------

# A command that reads a password or token from its standard input, or given `/dev/stdin` (or
# `-`) as the file of its secret (`buildah push --sign-passphrase-file /dev/stdin <<< ...`).
_READS_STDIN = _lazy(
    r"-stdin\b|--stdin\b|\bchpasswd\b|\bsmbpasswd\b[^\n|;&]{0,80}?[ \t]-[a-zA-Z]*s\b"
    r"|\bsudo\b[^\n|;&]{0,80}?[ \t]-[a-zA-Z]*S\b|-fd[ \t=]+0\b|-pass(?:in|out)[ \t]+stdin\b"
    r"|\brclone[ \t]+obscure[ \t]+-(?![\w-])"
    r"|(?:pass|token|secret|key|pw)[\w-]{0,20}-file[ \t=]+(?:/dev/stdin|-)(?![\w/-])"
    r"|\b(?:docker|podman|helm|buildah|skopeo|oras|crane|regctl|nerdctl)\b[^\n|;&]{0,120}?\blogin\b"
)
_PRODUCER = _lazy(
    r"(?:echo|printf)(?:[ \t]+-[neE]{1,3})?(?:[ \t]+(?:'%s(?:\\n)?'|\"%s(?:\\n)?\"))?[ \t]+"
    r"(?:\"(?P<vd>[^\"\n]{1,400})\"|'(?P<vs>[^'\n]{1,400})'|(?P<vb>[^\s\"'`|;&<>-][^\s\"'`|;&<>]{0,400}))"
    r"[ \t]*\|(?![|])"
)
_HERE_STRING = _lazy(
    r"<<<[ \t]*(?:\"(?P<vd>[^\"\n]{1,400})\"|'(?P<vs>[^'\n]{1,400})'|(?P<vb>[^\s\"'`|;&<>]{1,400}))"
)
_HEREDOC = _lazy(r"<<-?[ \t]*[\"']?(?P<tag>[A-Za-z_][A-Za-z0-9_]{0,20})[\"']?[^\n]{0,200}\n")
_FTP_CLIENT = _lazy(r"\b(?:ftp|lftp|ncftp|tnftp|pftp)\b")
_FTP_USER = _lazy(
    r"(?m)^[ \t]*(?:user[ \t]+\S{1,100}[ \t]+(?P<v>\S{1,200})|pass[ \t]+(?P<p>\S{1,200}))[ \t]*$"
)
_EXPECT_SEND = _lazy(r"\bsend[ \t]+(?:--[ \t]+)?\"(?P<v>[^\"\\\n]{3,200})(?:\\r|\\n)\"")
_PROMPT_WORDS = _lazy(r"(?i)assword|passphrase|\bpin\b|token|secret")


def _is_reference(value: str) -> bool:
    return is_placeholder(value) or value.startswith(("$", "`")) or "$(" in value


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _producers(text: str) -> Iterator[re.Match[str]]:
    """`echo ... |` and `printf ... |`, found by `str.find` rather than a scan of the text."""
    for _, pos in occurrences(text, ("echo", "printf")):
        if not (pos and _WORD_CHARS().match(text, pos - 1)):
            m = _PRODUCER().match(text, pos)
            if m:
                yield m


def scan_stdin(text: str) -> Iterator[tuple[str, int, int]]:
    if "|" in text:
        for m in _producers(text):
            if _READS_STDIN().search(text, m.end(), min(_line_end(text, m.end()), m.end() + 300)):
                group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
                if not _is_reference(m.group(group)):
                    yield "stdin-password", *m.span(group)
    if "<<" not in text:
        return
    for m in _HERE_STRING().finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if _READS_STDIN().search(text, max(line_start, m.start() - 300), m.start()):
            group = next(g for g in ("vd", "vs", "vb") if m.group(g) is not None)
            if not _is_reference(m.group(group)):
                yield "stdin-password", *m.span(group)
    for m in _HEREDOC().finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        command = text[max(line_start, m.start() - 300) : m.end()]
        close = re.compile(r"(?m)^[ \t]*" + re.escape(m.group("tag")) + r"[ \t]*$")
        end = close.search(text, m.end(), m.end() + 4096)
        if end is None:
            continue
        if _READS_STDIN().search(command):
            body = text[m.end() : end.start()]
            first = m.end() + len(body) - len(body.lstrip())
            stop = first + len(text[first : _line_end(text, first)].rstrip())
            if first < stop <= end.start() and not _is_reference(text[first:stop]):
                yield "stdin-password", first, stop
        elif _FTP_CLIENT().search(command):
            for line in _FTP_USER().finditer(text, m.end(), end.start()):
                group = "v" if line.group("v") is not None else "p"
                if not _is_reference(line.group(group)):
                    yield "stdin-password", *line.span(group)


def scan_expect(text: str) -> Iterator[tuple[str, int, int]]:
    """`send "PW\\r"` in an expect script, at a password prompt or beside a comment saying so."""
    for m in _EXPECT_SEND().finditer(text):
        around = text[max(m.start() - 200, 0) : min(_line_end(text, m.end()), m.end() + 200)]
        value = m.group("v")
        if _PROMPT_WORDS().search(around) and not _is_reference(value) and is_strong(value):
            yield "stdin-password", *m.span("v")
