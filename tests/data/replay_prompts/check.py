"""Validate prompts.jsonl and print how many rows each lesson has of each kind.

Run from anywhere: ``python tests/data/replay_prompts/check.py [path]``.
Exits 1 and names each problem when a row is malformed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
LESSONS = HERE.parent / "offline_lessons"
KEYS = ("id", "lesson", "kind", "prompt", "source", "note")
KINDS = ("same-problem", "other-problem")
MAX_PROMPT = 300


def problems_in(row: object, line: int, stems: set[str], seen: set[str]) -> list[str]:
    """Every problem with one parsed row, each a line naming the row."""
    where = f"line {line}"
    if not isinstance(row, dict):
        return [f"{where}: not a JSON object"]
    found = []
    missing = [k for k in KEYS if k not in row]
    extra = sorted(set(row) - set(KEYS))
    if missing:
        found.append(f"{where}: missing keys {missing}")
    if extra:
        found.append(f"{where}: unknown keys {extra}")
    good = {k: v for k, v in row.items() if k in KEYS and isinstance(v, str) and v.strip()}
    empty = [k for k in KEYS if k in row and k not in good]
    found += [f"{where}: {k} must be a non-empty string" for k in empty]
    if "id" in good:
        where = f"line {line} ({good['id']})"
        if good["id"] in seen:
            found.append(f"{where}: duplicate id")
        seen.add(good["id"])
    if "kind" in good and good["kind"] not in KINDS:
        found.append(f"{where}: kind {good['kind']!r} is not one of {KINDS}")
    if "lesson" in good and good["lesson"] != "none" and good["lesson"] not in stems:
        found.append(f"{where}: no lesson case {good['lesson']}.json")
    if good.get("lesson") == "none" and good.get("kind") == "same-problem":
        found.append(f"{where}: a same-problem row needs a lesson")
    if "source" in good and not good["source"].startswith("https://"):
        found.append(f"{where}: source must start with https://")
    if len(good.get("prompt", "")) > MAX_PROMPT:
        found.append(f"{where}: prompt is {len(good['prompt'])} characters (> {MAX_PROMPT})")
    if "\n" in good.get("note", ""):
        found.append(f"{where}: note must be one line")
    return found


def check(path: Path) -> tuple[list[dict[str, str]], list[str]]:
    """The well-formed rows of the file and the problems found in it."""
    stems = {p.stem for p in LESSONS.glob("*.json")}
    rows: list[dict[str, str]] = []
    found: list[str] = []
    seen: set[str] = set()
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            found.append(f"line {line}: blank line")
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            found.append(f"line {line}: not JSON ({exc.msg})")
            continue
        row_problems = problems_in(row, line, stems, seen)
        found.extend(row_problems)
        if not row_problems:
            rows.append(row)
    if not rows and not found:
        found.append(f"{path}: no rows")
    return rows, found


def report(rows: list[dict[str, str]]) -> str:
    """A table of counts per lesson and kind, with totals."""
    counts = Counter((r["lesson"], r["kind"]) for r in rows)
    lessons = sorted({r["lesson"] for r in rows})
    width = max(len("lesson"), *(len(s) for s in lessons))
    lines = [f"{'lesson':<{width}}  same  other"]
    for lesson in lessons:
        same, other = counts[(lesson, KINDS[0])], counts[(lesson, KINDS[1])]
        lines.append(f"{lesson:<{width}}  {same:>4}  {other:>5}")
    total_same = sum(n for (_, kind), n in counts.items() if kind == KINDS[0])
    total_other = sum(n for (_, kind), n in counts.items() if kind == KINDS[1])
    lines.append(f"{'total':<{width}}  {total_same:>4}  {total_other:>5}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else HERE / "prompts.jsonl"
    rows, found = check(path)
    print(report(rows) if rows else "no valid rows")
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
