"""The words of a query and of indexed text, as the FTS5 tokenizer sees them: folding, tokens,
the safe MATCH expression, which terms a text matched and the snippet around the first match.

Invariant: query text is user input and never reaches FTS `MATCH` raw: it is cut into words,
each quoted; a term of 3+ characters matches as a prefix, everywhere (MATCH, vocabulary counts,
matched terms, snippets), a shorter one only as a whole word.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache

MAX_TERMS = 32
SNIPPET_CHARS = 200

# FTS5's unicode61 tokenizer splits on everything but letters and digits; so do we.
WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    }
)


@lru_cache(maxsize=1 << 16)  # the same words come back in every hit of every search
def fold(word: str) -> str:
    """Lowercase and drop diacritics, as FTS5's `unicode61 remove_diacritics 2` does."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def tokens(text: str) -> list[str]:
    """Words of `text` as queries see them: folded, at least 2 characters, no stopwords."""
    found = (fold(word) for word in WORD.findall(text))
    return [word for word in found if len(word) >= 2 and word not in STOPWORDS]


_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def query_terms(query: str) -> list[str]:
    """Distinct query words in first-seen order, capped so a pasted essay stays cheap."""
    return list(dict.fromkeys(tokens(query)))[:MAX_TERMS]


def match_expression(terms: list[str], operator: str) -> str:
    """A safe FTS5 expression: every term quoted; words of 3+ characters match as prefixes."""
    quoted = [f'"{term}"*' if len(term) >= 3 else f'"{term}"' for term in terms]
    return f" {operator} ".join(quoted)


def term_matches(term: str, word: str) -> bool:
    return word.startswith(term) if len(term) >= 3 else word == term


def matched_terms(terms: list[str], text: str) -> list[str]:
    words = sorted({fold(word) for word in WORD.findall(text)})
    exact = set(words)
    found = []
    for term in terms:
        if len(term) < 3:
            hit = term in exact
        else:  # words starting with `term` sort right after it: one bisection, not a scan
            at = bisect.bisect_left(words, term)
            hit = at < len(words) and words[at].startswith(term)
        if hit:
            found.append(term)
    return found


def readable(text: str) -> str:
    """Text as a reader sees it in a snippet: headings and HTML comments (wikimem's meta line)
    dropped, so a hit spends its room on what an entry says, never on `# Terraform`."""
    text = _COMMENT.sub("", text)
    return "\n".join(line for line in text.splitlines() if not _HEADING.match(line)).strip()


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of `text` on one line, around the first word matching a term."""
    line = " ".join(text.split())
    if len(line) <= width:
        return line
    first = next(
        (
            m.start()
            for m in WORD.finditer(line)
            if any(term_matches(term, fold(m.group())) for term in terms)
        ),
        0,
    )
    start = max(0, first - width // 4)
    if start:
        space = line.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and first - space <= width // 2 else start
    end = min(len(line), start + width)
    if end < len(line):
        space = line.rfind(" ", start, end)
        end = space if space > first else end
    return ("…" if start else "") + line[start:end].strip() + ("…" if end < len(line) else "")
