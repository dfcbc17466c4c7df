"""Batch D of the held-apart redaction set (tests/data/redaction_held_apart/batch-d.jsonl).

Written from other tools' documentation without reading the rules (see build_batch_d.py). The
tests here only check that the rows are well formed; the batch is measured once, after the rule
changes it is held apart from have landed, with `python -m tests.test_redaction_batch_d` (add
`-v` for every miss and false positive), which prints recall and false positives per class with
the same harness as the other held-apart sets. No floor is set here until it has been measured.
"""

from __future__ import annotations

import sys

from tests.redaction_figures import (
    HELD_APART,
    check_batch_rows,
    check_builder_writes,
    check_distinct_rows,
    measure_classes,
    print_batch,
    total,
)

BATCH_D = HELD_APART.with_name("batch-d.jsonl")
BUILDER = HELD_APART.with_name("build_batch_d.py")


def test_batch_d_rows_are_well_formed() -> None:
    check_batch_rows(BATCH_D, secrets=160, benign=110)


def test_batch_d_rows_are_distinct_and_look_alikes_hold_no_secret() -> None:
    check_distinct_rows(BATCH_D)


def test_batch_d_file_is_what_its_builder_writes() -> None:
    check_builder_writes(BATCH_D, BUILDER)


# Measured once, blind, on 2026-12-02 at 49f2b61 after the rules of that day had landed:
# 158/207 removed (76.3 %), 15/173 look-alikes wrongly removed (8.7 %). Its misses were then read
# and fixed by class on 2026-12-03, so the batch is fitted now: 207/207 and 1/173 (SECURITY.md).
# The bounds sit just outside, so a rule change that loses ground here fails.
BATCH_D_RECALL = 0.99
BATCH_D_FALSE_POSITIVES = 0.01


def test_batch_d_holds_its_blind_figures() -> None:
    figures = total(measure_classes(BATCH_D))
    assert figures.caught / figures.secrets >= BATCH_D_RECALL, figures
    assert figures.false_positives / figures.benign <= BATCH_D_FALSE_POSITIVES, figures


def main(argv: list[str] | None = None) -> int:
    return print_batch(BATCH_D, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
