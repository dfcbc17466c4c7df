"""Validate variants.jsonl and print how many rows each lesson has of each kind.

Run from anywhere: ``python tests/data/replay_variants/check.py [path]``.
Exits 1 and names each problem when a row is malformed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
LESSONS = HERE.parent / "offline_lessons"
KEYS = ("id", "lesson", "kind", "command", "error", "source", "note")
KINDS = ("same-failure", "other-failure")
MAX_ERROR = 2500


def problems_in(row: object, line: int, stems: set[str], seen: set[str]) -> list[str]:
    """Every problem with one parsed row, as lines naming the row."""
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
    if "source" in good and not good["source"].startswith("https://"):
        found.append(f"{where}: source must start with https://")
    if len(good.get("error", "")) > MAX_ERROR:
        found.append(f"{where}: error is {len(good['error'])} characters (> {MAX_ERROR})")
    return found


def check(path: Path) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of the file and the problems found in it."""
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
    for stem in lessons:
        same, other = counts[(stem, KINDS[0])], counts[(stem, KINDS[1])]
        lines.append(f"{stem:<{width}}  {same:>4}  {other:>5}")
    kinds = Counter(r["kind"] for r in rows)
    total = f"{kinds[KINDS[0]]:>4}  {kinds[KINDS[1]]:>5}  ({len(rows)} rows)"
    lines.append(f"{'total':<{width}}  {total}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else HERE / "variants.jsonl"
    rows, found = check(path)
    print(report(rows) if rows else "no valid rows")
    for problem in found:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
