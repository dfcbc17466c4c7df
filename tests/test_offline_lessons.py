"""The offline rules scored on a corpus of runs with the lessons a careful engineer keeps.

Each case in tests/data/offline_lessons/ holds runs (as a runner records them), the wiki pages
already stored, and what should come out: the lessons (leaf, words of the title and the body,
type and meta), strings no write may hold (the known wrong fixes, one-off paths) and, for a run
that adds nothing, the reason it must give. A write that matches no expected lesson is a wrong
write, as is one holding a forbidden string.

Run as a script (`python tests/test_offline_lessons.py`) it prints the figures.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikimem.indexing.offline import Known, offline_plan
from wikimem.indexing.plan import ALREADY_IN, ALREADY_SAID, validate
from wikimem.intake.record import normalise
from wikimem.intake.snapshot import take
from wikimem.wiki import markdown

CORPUS = Path(__file__).parent / "data" / "offline_lessons"


@dataclass
class Score:
    lessons: int = 0
    kept: int = 0
    wrong: int = 0
    quiet: int = 0
    quiet_ok: int = 0
    reasons: int = 0
    reasons_ok: int = 0
    misses: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"lessons kept {self.kept}/{self.lessons}, wrong writes {self.wrong},"
            f" quiet runs quiet {self.quiet_ok}/{self.quiet},"
            f" no-change reasons right {self.reasons_ok}/{self.reasons}"
        )


def cases() -> list[Path]:
    return sorted(CORPUS.glob("*.json"))


def outcome(data: dict[str, Any]) -> tuple[str, list[Any]]:
    """The plan summary and the validated edits the rules make of one case."""
    runs = [take(normalise(r, "case"))[0] for r in data["runs"]]
    pages = sorted(data["wiki"].items())
    known = Known.from_view([], pages)
    stored = {
        path.removesuffix("/MEMORY.md"): {e.id: e.body for e in markdown.parse_page(text).entries}
        for path, text in pages
    }
    plan = offline_plan(runs, known)
    checked = validate(plan, lambda leaf: stored.get(leaf, {}))
    said = [n.what.split(" ", 1)[-1] for n in checked.rejected if n.reason == ALREADY_SAID]
    if not checked.edits and said:  # as `wikimem run` reports it
        return ALREADY_IN + ", ".join(said), []
    return checked.summary, list(checked.edits)


def _matches(edit: Any, want: dict[str, Any]) -> bool:
    title, body = edit.title.lower(), edit.body.lower()
    return (
        edit.leaf == want["leaf"]
        and all(w.lower() in title for w in want["title"])
        and all(w.lower() in body for w in want["body"])
        and edit.type == want.get("type", edit.type)
        and all(dict(edit.meta).get(k) == v for k, v in (want.get("meta") or {}).items())
    )


def score_case(name: str, data: dict[str, Any], score: Score) -> None:
    expect = data["expect"]
    summary, edits = outcome(data)
    unmatched = list(edits)
    for want in expect["lessons"]:
        score.lessons += 1
        hit = next((e for e in unmatched if _matches(e, want)), None)
        if hit is None:
            score.misses.append(f"{name}: missed {want['leaf']} {want['title']}")
        else:
            score.kept += 1
            unmatched.remove(hit)
    for edit in edits:
        text = f"{edit.title}\n{edit.body}"
        bad = [s for s in expect["must_not_contain"] if s in text]
        if bad or edit in unmatched:
            score.wrong += 1
            why = f"holds {bad[0]!r}" if bad else "matches no lesson"
            score.misses.append(f"{name}: wrong write {edit.leaf}#{edit.entry} ({why})")
    if not expect["lessons"]:
        score.quiet += 1
        score.quiet_ok += not edits
    if "summary" in expect:
        score.reasons += 1
        ok = not edits and summary == expect["summary"]
        score.reasons_ok += ok
        if not ok:
            score.misses.append(f"{name}: reason {summary!r}")


def score_all() -> Score:
    score = Score()
    for path in cases():
        score_case(path.stem, json.loads(path.read_text(encoding="utf-8")), score)
    return score


def test_the_corpus_is_there():
    assert len(cases()) >= 30


def test_the_offline_rules_keep_the_lessons_and_write_nothing_wrong():
    score = score_all()

    assert score.wrong == 0, score.misses
    assert score.kept == score.lessons, score.misses
    assert score.quiet_ok == score.quiet, score.misses
    assert score.reasons_ok == score.reasons, score.misses


if __name__ == "__main__":
    result = score_all()
    print(result.line())
    for miss in result.misses if "-v" in sys.argv else ():
        print("  " + miss)
