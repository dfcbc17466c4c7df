"""Asking the index: the rarest telling words of a long query, the two-tier bm25 search (every
word, then some), and each result turned into a Hit that says why it matched and how to cite it.

Invariant: results come best first in a stable order (rounded bm25 rank, then path, then
entry), each (path, entry) at most once, at most `limit` of them; only quoted terms reach
`MATCH` (see `terms.match_expression`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from wikimem.recall.search.store import COLUMNS, WEIGHTS
from wikimem.recall.search.terms import match_expression, matched_terms, readable, snippet


@dataclass(frozen=True)
class Hit:
    """One search result: a leaf page (entry None) or one of its entries."""

    path: str
    entry: str | None
    title: str
    snippet: str
    score: float
    type: str | None
    expired: bool
    due: bool
    why: str
    leaf_title: str = ""
    matched: tuple[str, ...] = ()

    def citation(self, commit: str | None) -> str:
        where = f"{self.path}#{self.entry}" if self.entry else self.path
        return f"{where}@{commit}" if commit else where


def focused_terms(db: sqlite3.Connection, terms: list[str], keep: int) -> str:
    """The `keep` rarest of `terms` that occur in the index, rarest first (see
    `SearchIndex.focused`)."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)")
    counted = []
    for n, term in enumerate(terms):
        if len(term) >= 3:  # matched as a prefix, as match_expression does
            after = term[:-1] + chr(ord(term[-1]) + 1)
            row = db.execute(
                "SELECT sum(doc) FROM vocab WHERE term >= ? AND term < ?", (term, after)
            ).fetchone()
        else:
            row = db.execute("SELECT doc FROM vocab WHERE term = ?", (term,)).fetchone()
        if row and row[0]:
            counted.append((row[0], n, term))
    counted.sort()
    # bm25 gives a word in half the rows or more no weight (FTS5 floors its idf), so
    # such a word only widens the OR to most of the index: drop it, keep the rarest.
    rows = db.execute("SELECT count(*) FROM docs").fetchone()[0]
    telling = [item for item in counted if item[0] * 2 < rows] or counted[:1]
    return " ".join(term for _, _, term in telling[:keep])


def find(
    db: sqlite3.Connection, terms: list[str], limit: int, include_expired: bool, day: str
) -> list[Hit]:
    """Hits matching every term first, then (for several terms) those matching some."""
    tiers = ["AND", "OR"] if len(terms) > 1 else ["AND"]
    hits: list[Hit] = []
    seen: set[tuple[str, str]] = set()
    for operator in tiers:
        rows = matches(
            db, match_expression(terms, operator), limit + len(seen), include_expired, day
        )
        for row in rows:
            key = (row["path"], row["entry"])
            if key not in seen and len(hits) < limit:
                seen.add(key)
                hits.append(hit_of(row, terms, day))
        if len(hits) >= limit:
            break
    return hits


def matches(
    db: sqlite3.Connection, expression: str, limit: int, include_expired: bool, day: str
) -> list[sqlite3.Row]:
    weights = ", ".join(str(w) for w in WEIGHTS)
    sql = (
        f"SELECT d.path, d.entry, d.title AS name, d.leaf_title, d.type, d.expires,"
        f" d.review_by, fts.title, fts.summary, fts.body, fts.context,"
        f" bm25(fts, {weights}) AS rank"
        f" FROM fts JOIN docs AS d ON d.id = fts.rowid WHERE fts MATCH ?"
        + ("" if include_expired else " AND (d.expires IS NULL OR d.expires >= ?)")
        + " ORDER BY round(rank, 6), d.path, d.entry LIMIT ?"
    )
    params: tuple[Any, ...] = (expression, limit) if include_expired else (expression, day, limit)
    db.row_factory = sqlite3.Row
    return db.execute(sql, params).fetchall()


def hit_of(row: sqlite3.Row, terms: list[str], day: str) -> Hit:
    per_column = {name: matched_terms(terms, row[name]) for name in COLUMNS}
    matched = tuple(t for t in terms if any(t in found for found in per_column.values()))
    # The entry's own words first (where the terms are, else its first lines), then the summary;
    # the title is the hit's heading already, so it is the snippet only when nothing else is.
    body = readable(row["body"])
    summary = row["summary"].strip()
    source = (
        (body if per_column["body"] or not (per_column["summary"] and summary) else "")
        or summary
        or body
        or row["title"]
    )
    parts = [f"{name}: {', '.join(found)}" for name, found in per_column.items() if found]
    coverage = (
        "all terms" if len(matched) == len(terms) else f"{len(matched)} of {len(terms)} terms"
    )
    why = f"bm25 {row['rank']:.3f}; {'; '.join(parts) or 'no direct match'}; {coverage}"
    return Hit(
        path=row["path"],
        entry=row["entry"] or None,
        title=row["name"],
        snippet=snippet(source, terms),
        score=round(-row["rank"], 6),
        type=row["type"],
        expired=bool(row["expires"] and row["expires"] < day),
        due=bool(row["review_by"] and row["review_by"] < day),
        why=why,
        leaf_title=row["leaf_title"],
        matched=matched,
    )
