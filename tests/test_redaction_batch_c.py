"""Batch C of the held-apart redaction set (tests/data/redaction_held_apart/batch-c.jsonl).

Written from other tools' documentation without reading the rules (see build_batch_c.py); measured
with the same harness as the other held-apart sets. `python -m tests.test_redaction_batch_c` prints
the table per class (add `-v` for every miss and false positive). The test holds the figures to a
floor just under those SECURITY.md reports, so a rule change that loses ground here fails.
"""

from __future__ import annotations

import json
import sys

from tests.redaction_figures import HELD_APART, held_apart_misses, load, measure_classes, total

BATCH_C = HELD_APART.with_name("batch-c.jsonl")

# Measured blind on 2026-12-02 (186/208, 15/135); read and fixed by class after 16:15 that day,
# so the batch is fitted now: 208/208 and 1/135 (SECURITY.md). The bounds sit just outside.
BATCH_C_RECALL = 0.99
BATCH_C_FALSE_POSITIVES = 0.01


def test_batch_c_rows_are_well_formed() -> None:
    rows = load(BATCH_C)
    assert sum(row["expect"] == "secret" for row in rows) >= 150
    assert sum(row["expect"] == "benign" for row in rows) >= 100
    for row in rows:
        value = row["secret"] if row["expect"] == "secret" else row["value"]
        assert row["expect"] in ("secret", "benign") and value in row["context"], row
        assert row["source"].startswith(("http://", "https://")), row
        assert row["expect"] == "secret" or row["reason"], row


def test_batch_c_meets_its_floor() -> None:
    figures = total(measure_classes(BATCH_C))
    assert figures.caught / figures.secrets >= BATCH_C_RECALL, figures
    assert figures.false_positives / figures.benign <= BATCH_C_FALSE_POSITIVES, figures


def main(argv: list[str]) -> int:
    classes = measure_classes(BATCH_C)
    print("| class | removed | look-alikes wrongly removed |\n| --- | --- | --- |")
    for figures in classes + [total(classes)]:
        print(figures.row())
    if "-v" in argv:
        for row, text in held_apart_misses(BATCH_C):
            kind = "missed" if row["expect"] == "secret" else "false positive"
            print(f"{kind} [{row['class']}] {json.dumps(row['context'], ensure_ascii=False)[:160]}")
            print(f"  became {json.dumps(text, ensure_ascii=False)[:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
