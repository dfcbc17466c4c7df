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
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def words(text: str) -> list[str]:
    """The words of `text` as the index sees them (folded, 2+ characters, no stopwords)."""
    found = (fold(w) for w in WORD.findall(text))
    return [w for w in found if len(w) >= 2 and w not in STOPWORDS]


def telling(text: str) -> list[str]:
    """Distinct words of `text` that could point to one lesson: no common words, no numbers."""
    kept = [w for w in words(text) if w not in COMMON and not w.isdigit() and len(w) >= 3]
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
        after = term[:-1] + chr(ord(term[-1]) + 1)
        found = db.execute(
            "SELECT sum(doc) FROM vocab WHERE term >= ? AND term < ?", (term, after)
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


def shared(terms: list[str], text: str) -> list[str]:
    """The terms `text` holds: the word itself, or for a term of 4+ characters a word it
    begins with at most 3 more (`lockfile` finds `lockfiles`; `lib` never finds `library`)."""
    have = sorted({fold(w) for w in WORD.findall(text)})
    import bisect  # only when there are candidates to score

    found = []
    for term in terms:
        at = bisect.bisect_left(have, term)
        while at < len(have) and have[at].startswith(term):
            if have[at] == term or (len(term) >= 4 and len(have[at]) - len(term) <= 3):
                found.append(term)
                break
            at += 1
    return found


def prompt_entries(index_file: Path, prompt: str, limit: int = 3) -> list[Found]:
    """Entries the prompt's telling words point to: at least two of them in the entry (its
    title, body or leaf), or the only telling word of a short prompt in its title."""
    terms = telling(prompt)
    if not terms:
        return []
    db = open_index(index_file)
    if db is None:
        return []
    try:
        focus = rarest(db, terms, 8)
        if not focus:
            return []
        found = []
        for item in candidates(db, quoted(focus, "OR")):
            text = f"{item.title}\n{item.leaf_title}\n{item.path.replace('/', ' ')}\n{item.body}"
            hits = shared(focus, text)
            in_title = shared(focus, item.title)
            if len(hits) >= 2 or (len(focus) == 1 and in_title):
                item.score = len(hits) + 0.5 * len(in_title)
                found.append(item)
    except sqlite3.Error:
        return []
    finally:
        db.close()
    found.sort(key=lambda f: (-f.score, f.path, f.entry))
    return found[:limit]
