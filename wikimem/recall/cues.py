"""What the in-loop hooks read from the search index: the entries a prompt's words point to,
and the words and rows `symptoms` matches a failed command against.

A fenced speed trick: this module reads `.clarvis/state/search.sqlite` with sqlite3 alone and
folds words itself, because importing `wikimem.recall.search` costs a hook about 60 ms warm (it
loads the page parser and the wiki walk) and the failure hook's whole budget is 100 ms. The words
are cut and folded as `search.terms` does (a test holds the two equal), and SCHEMA must equal
`search.store.SCHEMA` (a test holds that too). The index is opened read-only and never
refreshed: every pass refreshes it after it commits.

Invariant: deterministic (ties broken on path and entry id), never writes, never raises on a
missing, busy or foreign index: no index means no entries.
"""

from __future__ import annotations

import math
import re
import sqlite3
import unicodedata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCHEMA = 4  # search.store.SCHEMA
WORD = re.compile(r"[^\W_]+")
# As search.terms cuts queries (a test holds the two equal).
STOP_LIST = (
    "a an and are as at be been but by can could did do does for from had has have how i if in"
    " into is it its me my no not of on or our so that the their them then there these they this"
    " to up us was we were what when where which who why will with would you your"
)
STOPWORDS = frozenset(STOP_LIST.split())
# Words that tell nothing about which lesson fits: every prompt and error has them.
COMMON_LIST = (
    "please fix make add use run let get see now try again just want need help also some any"
    " error errors failed fail fails failure exit code warning warn info line lines file files"
    " command not found cannot unable could true false null none yes ok done the new all one two"
    " check update change changes work working works issue problem"
)
COMMON = frozenset(COMMON_LIST.split())
CANDIDATES = 40
RARE_SHARE = 0.05  # a word in more than this share of the rows points nowhere in particular
COLUMNS = "d.path, d.entry, d.title, d.leaf_title, fts.body, fts.context"
SELECT = (
    f"SELECT {COLUMNS}, bm25(fts, 5.0, 3.0, 1.0, 0.5) AS rank"
    " FROM fts JOIN docs AS d ON d.id = fts.rowid WHERE fts MATCH ? AND d.entry != ''"
    " AND (d.expires IS NULL OR d.expires >= date('now'))"
    " ORDER BY round(rank, 6), d.path, d.entry LIMIT ?"
)


class Found:
    """One entry a hook may deliver, as the index holds it, with how strongly it matched."""

    __slots__ = ("path", "entry", "title", "leaf_title", "body", "score")

    def __init__(
        self, path: str, entry: str, title: str, leaf_title: str, body: str, score: float
    ) -> None:
        self.path, self.entry, self.title = path, entry, title
        self.leaf_title, self.body, self.score = leaf_title, body, score

    @property
    def ref(self) -> str:
        return f"{self.path}#{self.entry}"

    def __repr__(self) -> str:
        return f"Found({self.ref!r}, {self.score})"


def fold(word: str) -> str:
    if word.isascii():  # the common case, and the same result: nothing to decompose
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def words(text: str) -> list[str]:
    """The words of `text` as the index sees them (folded, 2+ characters, no stopwords)."""
    ascii_only = text.isascii()
    found = WORD.findall(text.lower()) if ascii_only else [fold(w) for w in WORD.findall(text)]
    return [w for w in found if len(w) >= 2 and w not in STOPWORDS]


def telling(text: str) -> list[str]:
    """Distinct words of `text` that could point to one lesson: no common words in any of
    their forms (`failing` is `fail`), no numbers."""
    kept = [
        w
        for w in words(text)
        if w not in COMMON and not w.isdigit() and len(w) >= 3 and stem(w) not in COMMON
    ]
    return list(dict.fromkeys(kept))


def quoted(terms: list[str], operator: str) -> str:
    return f" {operator} ".join(f'"{t}"*' for t in terms)


def open_index(index_file: Path) -> sqlite3.Connection | None:
    """The index read-only, or None when there is none of this schema (no pass yet)."""
    try:
        if not index_file.is_file():
            return None
        db = sqlite3.connect(f"{index_file.resolve().as_uri()}?mode=ro", uri=True, timeout=0.05)
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
            db.close()
            return None
    except (sqlite3.Error, OSError):
        return None
    return db


def rarest(db: sqlite3.Connection, terms: list[str], keep: int) -> list[str]:
    """The `keep` rarest of `terms` found in the index, leaving out words in more than
    RARE_SHARE of its rows (rarest first, ties in the terms' order)."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)")
    rows = db.execute("SELECT count(*) FROM docs").fetchone()[0] or 1
    counted = []
    for n, term in enumerate(terms):
        root = stem(term)
        after = root[:-1] + chr(ord(root[-1]) + 1)
        found = db.execute(
            "SELECT sum(doc) FROM vocab WHERE term >= ? AND term < ?", (root, after)
        ).fetchone()[0]
        if found and found <= max(10, rows * RARE_SHARE):
            counted.append((found, n, term))
    counted.sort()
    return [term for _, _, term in counted[:keep]]


def candidates(db: sqlite3.Connection, expression: str, limit: int = CANDIDATES) -> list[Found]:
    return [
        Found(str(p), str(e), str(t), str(lt or p), str(b or ""), float(r))
        for p, e, t, lt, b, _c, r in db.execute(SELECT, (expression, limit)).fetchall()
    ]


SUFFIXES = (
    *("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion"),
    *("ers", "er", "ies", "es", "ed", "s"),
)


STEMS: dict[str, str] = {}


def stem(word: str) -> str:
    """A word without its inflection (`migrations` -> `migr`, `staging` -> `stag`, `lockfiles`
    -> `lockfile`), never shorter than four letters: a light stemmer for matching, not language."""
    known = STEMS.get(word)
    if known is not None:
        return known
    root = word
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            if suffix == "s" and word.endswith("ss"):
                continue
            if suffix == "es" and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
                continue  # `lockfiles` is `lockfile` + s (`lockfil` met `lockb`, `locked`)
            root = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(STEMS) < 100_000:
        STEMS[word] = root
    return root


# What may follow a stem of 4+ letters in another form of the same word (`migr` + `ate`,
# `config` + `ure`, `stag` + `e`): endings that make a form of a word, not another word
# (`list` + `en` is `listen`, `test` + `er` is a stem of its own).
ENDINGS = frozenset({"e", "y", "ate", "ize", "ise", "ure", "ion", "ive", "ic", "al", "ly"})


def alike(term: str, word: str) -> bool:
    """Whether `word` is a form of `term`: the same stem, or for stems of 4+ letters one that
    begins with the other and goes on by an ENDING (`migrate` is a form of `migrations`,
    `listen` never of `list`, `lib` never of `library`, `main` never of `maintain`)."""
    if term == word:
        return True
    a, b = stem(term), stem(word)
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short) and long_[len(short) :] in ENDINGS


def shared(terms: list[str], text: str) -> list[str]:
    """The terms `text` holds in some form (`alike`): `lockfile` finds `lockfiles`,
    `migrations` finds `migrate`, `lib` never finds `library`."""
    have = set(WORD.findall(text.lower())) if text.isascii() else set(map(fold, WORD.findall(text)))
    by_stem: dict[str, list[str]] = {}
    for w in have:
        by_stem.setdefault(stem(w)[:4], []).append(w)
    found = []
    joined = ""
    for term in terms:
        if " " in term:  # a compound the wiki writes apart (`compounds`): its words in a row
            if not joined:
                joined = " " + " ".join(WORD.findall(fold(text)))
            if f" {term}" in joined:
                found.append(term)
        elif term in have or any(alike(term, w) for w in by_stem.get(stem(term)[:4], ())):
            found.append(term)
    return found


# Words of a request to an agent that say what to do, not what it is about.
ASKING_LIST = (
    "start first next last task tasks details find show look ready available continue done"
    " implement work sure thing things way something anything everything ask doing going"
    " tell know think like go went let's lets good well right wrong still again back same"
    " report why seems seem maybe really very much"
    # what a contraction leaves once its apostrophe cuts it (`doesn't` is `doesn` and `t`)
    " doesn don isn didn wasn aren won shouldn couldn wouldn haven hasn"
    " each every off step steps create clear"
)
ASKING = frozenset(ASKING_LIST.split())
BRANCH_PREFIXES = frozenset({"feature", "feat", "fix", "bugfix", "hotfix", "chore", "topic"})
MAIN_BRANCHES = frozenset({"main", "master", "trunk", "develop", "dev", "head"})
PATHS = 8  # of the session's most recent paths
CLOSE = 0.65  # an entry scoring under this share of the best one is a weaker lead: left out
ENOUGH = 1.0  # evidence as strong as one word that only the entry holds
FOCUS = 8  # of the prompt's rarest words looked up
# A fenced speed trick: a word weighing less (in more than N^0.8 of N rows) is not looked up
# unless the prompt's such words could be ENOUGH together (in an entry's title and page). At
# 10,000 leaves `database` matched 17,000 rows, and ranking them was most of the prompt hook's
# in-process CPU: p50 21-23 -> 2.6 ms, p99 31-35 -> 11-12 ms, the same entries delivered.
LOOKED = 0.2
# An entry citing this many of the files the session is working on is a lead on the workspace's
# state alone, whatever the prompt says (`continue until all are done`): one file is often a
# hub every change touches (`mix.exs`), two name the same piece of work.
STATE_FILES = 2
# ... and together they must be rare in the wiki (`path_weights`): two hubs many notes cite
# (`lib/app/application.ex`, `lib/app_web/router.ex`) are no lead, two files of one piece of
# work are (a file one entry of 10,000 leaves cites weighs about 0.9).
STATE_WEIGHT = 1.2
SOUGHT = 0.5  # a path weighing less is not looked up (`prompt_entries`)
QUOTED_RUNS = 2  # runs of three words a prompt shares with an entry's quoted error: pasted


def branch_terms(branch: str) -> list[str]:
    """The telling words of a branch name (`fix/bun-lockfile` -> ["bun", "lockfile"]), none for
    a main branch; issue ids and prefixes like `feature/` say nothing about the topic."""
    if not branch or branch.lower() in MAIN_BRANCHES:
        return []
    found = [t for t in telling(re.sub(r"[/_.-]+", " ", branch)) if t not in BRANCH_PREFIXES]
    return [t for t in found if not any(c.isdigit() for c in t)]


def is_file(path: str) -> bool:
    """Whether a path names a file by its extension (`router.ex`, not `assets` nor `.git`)."""
    return "." in path.rsplit("/", 1)[-1].lstrip(".")


def phrase(path: str) -> str:
    """A path as an FTS5 phrase of all its tokens: `lib/a/is.ex` is "lib a is ex" (the
    tokenizer keeps one-letter parts and stopwords, so the phrase must too)."""
    return '"' + " ".join(WORD.findall(path.lower())) + '"'


def cited(paths: list[str], text: str, rarity: dict[str, float] | None = None) -> float:
    """How strongly `text` names the session's paths: 2 for a path itself, 1 for its folder
    (of two parts or more, `priv/static/assets` for `priv/static/assets/app.css`), each times
    the path's rarity when given (`path_weights`)."""
    strength = 0.0
    for path in paths:
        scale = rarity.get(path, 1.0) if rarity is not None else 1.0
        if path in text:
            strength += 2 * scale
            continue
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder.count("/") >= 1 and re.search(re.escape(folder) + r"(?:/|\b)", text):
            strength += scale
    return strength


CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)  # a fenced block: the output an entry quotes
PATH_WORD = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+")
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)
# A name the prompt gives one thing: a file (`conftest.py`), a symbol (`multiply_numbers`,
# `TranscriptRenderer`) or a package (`lazy-html`, `fly.io`), not a path (`prompt_paths`).
NAME = re.compile(
    r"(?<![\w./-])([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)"
    r"(?![\w/-])"
)


def names(text: str) -> list[str]:
    """The names `text` gives (lower-cased), as `NAME` finds them."""
    return list(dict.fromkeys(n.lower() for n in NAME.findall(URL.sub(" ", text))))


def named_in(wanted: list[str], body: str, quoted_text: str = "") -> list[str]:
    """The names of `wanted` that the entry's commands or its paths' file names give whole:
    `lazy_html` for `lazy_html` or `lib/lazy_html.ex`, never for `lazy` and `html` apart, nor
    `spotter-fum` for `spotter-fum.2` or a folder `spotter-fum/` (a folder is often the
    checkout the lesson was learned in, not what it is about)."""
    given = set()
    files = [path.rstrip("/").rsplit("/", 1)[-1] for path in PATH_WORD.findall(body)]
    # and the error it quotes: `ERR_PNPM_OUTDATED_LOCKFILE` in its title or output
    for span in CODE_SPAN.findall(body) + files + [quoted_text]:
        for name in names(span):
            given.add(name)
            stem_, dot, extension = name.rpartition(".")
            if dot and extension.isalpha():
                given.add(stem_)
    return [n for n in wanted if n in given]


def trigrams(text: str) -> set[tuple[str, str, str]]:
    """The runs of three words of `text`, as `words` has them, but those of common words only
    ("error command failed" says nothing)."""
    seq = words(text)
    return {
        (a, b, c) for a, b, c in zip(seq, seq[1:], seq[2:], strict=False) if not {a, b, c} <= COMMON
    }


def quoted_error(item: Found) -> str:
    """What an entry says of its failure in the failure's own words: its title and the output
    it quotes (its fenced blocks)."""
    return item.title + "\n" + "\n".join(FENCE.findall(item.body))


def symbol_parts(prompt: str) -> set[str]:
    """The words inside the prompt's snake_case symbols (`mix_audit`: `mix`, `audit`): a
    symbol names one thing, its parts are not the prompt's topic."""
    return {w for n in names(prompt) if "_" in n for w in words(n)}


def prompt_paths(prompt: str) -> list[str]:
    """The paths a prompt names (`tests/test_reports.py::test_daily_rollup` ->
    `tests/test_reports.py`)."""
    found = [m.split("::")[0].strip("`'\"(),.:;") for m in prompt.split()]
    return [p for p in found if "/" in p and not p.startswith(("http:", "https:"))]


def commands_named(prompt: str) -> list[tuple[str, str]]:
    """The commands a prompt quotes: their program and first two words (`npm ci`)."""
    found = []
    for span in CODE_SPAN.findall(prompt):
        head = [w for w in span.split() if not w.startswith("-")][:2]
        if len(head) == 2 and WORD.fullmatch(head[0]):
            found.append((fold(head[0]), " ".join(words(" ".join(head)))))
    return found


# What a prompt's word asks for, as the commands that do it (in their words: `python -m build`
# is "python build"): a person asks to "run the migrations" or "build the wheel", the wiki's
# entry quotes `alembic upgrade head` or `python -m build`. Keyed by the word's beginning.
# Only commands two words long or a program's own name, never a word of everyday prose.
COMMANDS_FOR: dict[str, tuple[str, ...]] = {
    "migrat": (
        *("alembic upgrade", "alembic downgrade", "ecto migrate", "ecto rollback", "db migrate"),
        *("manage py migrate", "prisma migrate", "flyway migrate", "knex migrate", "sqlx migrate"),
    ),
    "wheel": ("python build", "pip wheel", "poetry build", "hatch build", "uv build"),
    "sdist": ("python build", "poetry build", "hatch build", "uv build"),
    "lint": ("ruff check", "mix credo", "eslint", "flake8", "pylint", "golangci lint", "rubocop"),
    "typecheck": ("mypy", "pyright", "mix dialyzer", "tsc noemit"),
    "format": ("mix format", "ruff format", "prettier", "cargo fmt", "gofmt", "black check"),
}


def commands_meant(asked: list[str]) -> list[str]:
    """The commands the prompt's words ask for (`COMMANDS_FOR`: "migrations" asks for
    `alembic upgrade`, `mix ecto.migrate`, ...), as words."""
    found: list[str] = []
    for term in asked:
        for start, commands in COMMANDS_FOR.items():
            if term.startswith(start):
                found += commands
    return list(dict.fromkeys(found))


def path_weights(db: sqlite3.Connection, paths: list[str]) -> dict[str, float]:
    """Each path's rarity over the index's rows, as `weights` has it for words, with the rows
    holding its rarest part as its df (an upper bound of the rows citing it): a hub every
    note names (`lib/app/router.ex`, `mix.exs`) weighs little, a file one lesson cites ~1."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)")
    rows = db.execute("SELECT count(*) FROM docs").fetchone()[0] or 1
    scale = math.log(rows) if rows > 1 else 1.0
    found: dict[str, float] = {}
    for path in dict.fromkeys(paths):
        df = rows
        for part in dict.fromkeys(WORD.findall(path.lower())):
            got = db.execute("SELECT doc FROM vocab WHERE term = ?", (part,)).fetchone()
            df = min(df, got[0] if got else 0)
        found[path] = max(0.0, min(1.0, math.log(rows / max(df, 1)) / scale))
    return found


def forms(db: sqlite3.Connection, term: str) -> dict[str, int]:
    """The index's words that are forms of `term` (`alike`), each with the rows holding it:
    `dist` finds `dist`, never `distinct` nor `distribution`, which a prefix would."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)")
    root = stem(term)
    root = root[: max(4, len(root) - 3)] if len(root) > 4 else root
    after = root[:-1] + chr(ord(root[-1]) + 1)
    rows = db.execute("SELECT term, doc FROM vocab WHERE term >= ? AND term < ?", (root, after))
    return {str(w): int(n) for w, n in rows.fetchall() if alike(term, str(w))}


def compounds(db: sqlite3.Connection, prompt: list[str], asked: list[str]) -> dict[str, float]:
    """The prompt's words the wiki writes otherwise, weighed as `weights` does: a word it runs
    together that the wiki splits (`healthchecks` is the wiki's `health checks`, a phrase of
    two words the index holds), and two words in a row it writes as one (`lock file` is
    `lockfile`). Only for words the wiki lacks as written, so each costs a lookup or two."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)")
    rows = db.execute("SELECT count(*) FROM docs").fetchone()[0] or 1
    scale = math.log(rows) if rows > 1 else 1.0
    vocab = "SELECT doc FROM vocab WHERE term = ?"
    found: dict[str, float] = {}

    def weigh(term: str, df: int) -> None:
        if df:
            found[term] = max(0.0, min(1.0, math.log(rows / min(df, rows)) / scale))

    for term in asked:
        if len(term) < 8 or not term.isalpha() or db.execute(vocab, (term,)).fetchone():
            continue
        for cut in range(4, len(term) - 3):
            head, tail = term[:cut], term[cut:]
            if db.execute(vocab, (head,)).fetchone() and db.execute(vocab, (tail,)).fetchone():
                split = f"{head} {tail}"
                phrase_rows = "SELECT count(*) FROM fts WHERE fts MATCH ?"
                weigh(split, db.execute(phrase_rows, (f'"{split}"',)).fetchone()[0])
                if split in found:
                    break
    for head, tail in zip(prompt, prompt[1:], strict=False):
        joined = head + tail
        if joined in asked or len(joined) < 7:
            continue
        got = db.execute(vocab, (joined,)).fetchone()
        weigh(joined, int(got[0]) if got else 0)
    return found


def weights(
    db: sqlite3.Connection, terms: list[str], known: dict[str, dict[str, int]] | None = None
) -> dict[str, float]:
    """Each term's rarity over the index's rows, as evidence: ln(N/df) / ln(N), where df counts
    the rows holding any form `alike` accepts (`forms`; an upper bound when a row holds two). A
    word in every row weighs 0, one in a single row 1; terms the index lacks are left out. The
    forms found are kept in `known` when given, to look them up."""
    rows = db.execute("SELECT count(*) FROM docs").fetchone()[0] or 1
    scale = math.log(rows) if rows > 1 else 1.0
    found: dict[str, float] = {}
    for term in dict.fromkeys(terms):
        seen = forms(db, term)
        if known is not None:
            known[term] = seen
        df = sum(seen.values())
        if df:
            found[term] = max(0.0, min(1.0, math.log(rows / min(df, rows)) / scale))
    return found


def prompt_entries(
    index_file: Path,
    prompt: str,
    limit: int = 3,
    branch: str = "",
    paths: list[str] | None = None,
) -> list[Found]:
    """Entries the prompt and the workspace's state point to.

    Evidence, each piece weighed by how rare it is in the wiki (`weights`: a word in one row
    of N weighs 1, one in every row 0): the prompt's telling words (in full in the entry's title,
    leaf or path, half in its body), the branch's words (the same, but never alone), a command
    the prompt quotes (`npm ci`) found in the entry (1), or one the prompt's words ask for
    (`commands_meant`: "run the migrations" asks for `alembic upgrade`; 1, once), a name the
    prompt gives (`lazy_html`, `Spotter.Router`, `conftest.py`) that the entry's commands or
    file names give whole
    (`named_in`: 1, and it counts as a word of the prompt; its title's and quoted output's
    names too: `ERR_PNPM_OUTDATED_LOCKFILE`), an error the prompt pastes that the entry quotes
    (two runs of three of its words in the entry's title or fenced output: 1, and two pieces,
    as a word of the prompt), and the paths the prompt or the
    session's recent tool calls named that the entry cites (`cited`: 1 for a path, 1/2 for its
    folder). An entry needs two pieces of it weighing ENOUGH together, as much as one word that
    names that entry alone, one piece in its title, page, paths or commands, and one a word of
    the prompt itself: so a prompt unrelated to everything gets nothing, whatever the branch and
    the paths, and common words (`function`, `test`) add up to little however many. The one
    exception is the workspace's state: an entry citing STATE_FILES of those paths whole, as
    files, is a lead whatever the prompt says (`continue until all are done`). A word
    naming both the entry's title and its page counts in each (and as two pieces when it is
    the prompt's one word). A URL's words and the parts of a snake_case symbol are not the
    prompt's words (`mix_audit` is not about `mix`). Then the entries scoring under CLOSE of
    the best one the prompt's words point to (of the best of all when none) are left out."""
    asked = [t for t in telling(URL.sub(" ", prompt)) if t not in ASKING and stem(t) not in ASKING]
    inside = symbol_parts(prompt) - set(words(NAME.sub(" ", URL.sub(" ", prompt))))
    asked = [t for t in asked if t not in inside]
    given_names = [n for n in names(prompt) if len(n) >= 4 and "/" not in n]
    named = [t for t in branch_terms(branch) if t not in asked]
    quoted_commands = commands_named(prompt)
    meant = [c for c in commands_meant(asked) if c not in {q for _, q in quoted_commands}]
    recent = [p.strip("./") for p in prompt_paths(prompt) + (paths or [])[-PATHS:]]
    recent = list(dict.fromkeys(p for p in recent if "/" in p and len(p) >= 6))
    files = [p for p in recent if is_file(p)]
    if not asked and not given_names and len(files) < STATE_FILES:
        return []
    db = open_index(index_file)
    if db is None:
        return []
    try:
        known: dict[str, dict[str, int]] = {}
        weight = weights(db, asked + named, known)
        written = compounds(db, words(URL.sub(" ", prompt)), asked)
        weight.update(written)
        asked += [t for t in written if t not in asked]
        rarity = path_weights(db, recent) if recent else {}
        by_rarity = sorted(weight, key=lambda t: -weight[t])
        focus = [t for t in by_rarity if t in asked][:FOCUS]
        also = [t for t in by_rarity if t in named][:4] if focus or recent else []
        looked = [t for t in focus + also if weight[t] >= LOOKED]
        common = [t for t in focus + also if weight[t] < LOOKED]
        if 2 * sum(weight[t] for t in common) >= ENOUGH:
            looked += common  # together they could be enough: an entry may hold only them
        # each word's own forms, not a prefix (`"dist"*` found every `distinct`)
        looked_up = sorted({w for t in looked for w in known.get(t, {t: 0})})
        parts = [" OR ".join(f'"{w}"' for w in looked_up)] if looked_up else []
        # a hub many notes cite is not looked up (at 10,000 leaves its rows filled the
        # CANDIDATES, pushing out the one entry citing two rare files); it still counts,
        # weighed, in an entry found otherwise
        sought = [p for p in recent if WORD.search(p) and rarity[p] >= SOUGHT]
        parts += [phrase(p) for p in sought]
        parts += [f'"{" ".join(WORD.findall(n))}"' for n in given_names]
        # "python build" is `python -m build`: the index keeps the `m`, so not as a phrase
        parts += ["(" + " AND ".join(f'"{w}"' for w in c.split()) + ")" for c in meant]
        items = candidates(db, " OR ".join(parts)) if parts else []
        if len(files) >= STATE_FILES:  # the entries citing what the session works on
            ids = {f.ref for f in items}
            phrases = " OR ".join(phrase(p) for p in files if p in sought)
            items += [f for f in candidates(db, phrases) if f.ref not in ids] if phrases else []
    except sqlite3.Error:
        return []
    finally:
        db.close()
    terms = focus + also
    programs = {program for program, _ in quoted_commands}
    runs = trigrams(URL.sub(" ", prompt))  # a pasted error's runs of words
    found = []
    exact: set[str] = set()
    working: set[str] = set()  # led to by the files the session works on
    bar = 0.0
    for item in items:
        page_text = f"{item.leaf_title}\n{item.path.replace('/', ' ')}"
        said = " ".join(words(f"{item.title}\n{page_text}\n{item.body}"))
        if programs and not programs & set(said.split()):
            continue  # the prompt quotes a command: an entry must be about its program
        titled, paged = shared(terms, item.title), shared(terms, page_text)
        # the output an entry quotes is the failure in its own words, as telling as its title
        told = [t for t in shared(terms, "\n".join(FENCE.findall(item.body))) if t not in titled]
        titled += told
        strong = list(dict.fromkeys(titled + paged))
        weak = [t for t in shared(terms, item.body) if t not in strong]
        raw = cited(recent, item.body) / 2 if recent else 0.0  # pieces: how many paths
        on_paths = cited(recent, item.body, rarity) / 2 if recent else 0.0  # their weight
        state = [p for p in files if p in item.body] if len(files) >= STATE_FILES else []
        by_state = len(state) >= STATE_FILES and sum(rarity[p] for p in state) >= STATE_WEIGHT
        commands = [c for _, c in quoted_commands if f" {c} " in f" {said} "]
        if meant:  # in the entry's title or body, not across its page's name (`build/poetry`)
            quoting = (" ".join(words(item.title)), " ".join(words(item.body)))
            commands += [c for c in meant if any(f" {c} " in f" {q} " for q in quoting)][:1]
        error = quoted_error(item)
        cites = named_in(given_names, item.body, error) if given_names else []
        # the prompt pastes the failure the entry quotes: two runs of its words
        pasted = len(runs & trigrams(error)) >= QUOTED_RUNS if runs else False
        evidence = (
            sum(weight[t] for t in titled + paged)
            + 0.5 * sum(weight[t] for t in weak)
            + on_paths
            + len(commands)
            + len(cites)
            + pasted
        )
        pieces = len(strong) + len(weak) + (raw > 0) + (raw >= 1) + len(commands) + len(cites)
        pieces += 2 * pasted
        if len(asked) == 1 and titled and paged:
            pieces += 1  # a one-topic prompt naming both the page and the entry's title
        worded = (
            pieces >= 2
            and evidence >= ENOUGH
            and (strong or on_paths or commands or cites or pasted)
            and (cites or pasted or any(t in asked for t in strong + weak))
        )
        if worded or by_state:
            item.score = round(evidence, 6)
            found.append(item)
            bar = max(bar, item.score) if worded else bar
            if pasted:
                exact.add(item.ref)
            if by_state:
                working.add(item.ref)
    if exact:  # the prompt pastes the failures these quote: others share loose words only
        found = [f for f in found if f.ref in exact or f.ref in working]
        bar = max(f.score for f in found if f.ref in exact)
    found.sort(key=lambda f: (-f.score, f.path, f.entry))
    # the best lead of the prompt's own words sets the bar: files cited on the side (scoring
    # 1 each) never push it out
    bar = bar or (found[0].score if found else 0.0)
    # and an entry the workspace's state leads to is a lead of its own, whatever the prompt's
    return [f for f in found if f.score >= bar * CLOSE or f.ref in working][:limit]
