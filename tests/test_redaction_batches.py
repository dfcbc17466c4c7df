"""The blind batches of the held-apart redaction set (tests/data/redaction_held_apart/).

Each batch was written from other tools' documentation by someone who had not read the rules (see
its `build_batch_*.py`), measured once, blind, with the same harness as the other held-apart sets,
then fitted by class. One row of `BATCHES` holds what a batch must satisfy: the least number of
secrets, look-alikes and classes its rows have, and the recall floor and false-positive ceiling it
is held to, with how those figures were measured; every batch's rows are also checked to be
distinct, its secrets free of placeholder words and its file what its builder writes. The bounds
sit just outside the figures SECURITY.md reports, so a rule change that loses ground on any batch
fails. Adding a batch is one row.

    python -m tests.test_redaction_batches BATCH [-v]

prints recall and false positives per class of batch BATCH (`c`, `d`, ...; `-v` lists every miss
and false positive).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.redaction_figures import (
    HELD_APART,
    check_batch_rows,
    check_builder_writes,
    check_distinct_rows,
    check_no_placeholder_secrets,
    measure_classes,
    print_batch,
    total,
)


@dataclass(frozen=True)
class Batch:
    name: str
    secrets: int  # at least this many secret rows
    benign: int  # at least this many look-alike rows
    classes: int  # at least this many classes
    recall: float  # the floor of secrets removed
    false_positives: float  # the ceiling of look-alikes wrongly removed

    @property
    def path(self) -> Path:
        return HELD_APART.with_name(f"batch-{self.name}.jsonl")

    @property
    def builder(self) -> Path:
        return HELD_APART.with_name(f"build_batch_{self.name}.py")


BATCHES = [
    # Batch C: measured blind on 2026-12-02 (186/208, 15/135); read and fixed by class after
    # 16:15 that day, so the batch is fitted now: 208/208 and 1/135 (SECURITY.md).
    Batch("c", 150, 100, 1, recall=0.99, false_positives=0.01),
    # Batch D: measured once, blind, on 2026-12-02 at 49f2b61 after the rules of that day had
    # landed: 158/207 removed (76.3 %), 15/173 look-alikes wrongly removed (8.7 %). Its misses
    # were then read and fixed by class on 2026-12-03, so the batch is fitted now: 207/207 and
    # 1/173 (SECURITY.md).
    Batch("d", 160, 110, 1, recall=0.99, false_positives=0.01),
    # Batch E: measured once, blind, on 2026-12-02 at 54dd93e (no rule change of that day had
    # landed yet): 221/285 removed (77.5 %), 14/233 look-alikes wrongly removed (6.0 %). Its
    # misses were then read and fixed by class on 2026-12-03, so the batch is fitted now:
    # 279/285 and 3/233 (SECURITY.md).
    Batch("e", 200, 150, 1, recall=0.97, false_positives=0.015),
    # Batch F: measured once, blind, on 2026-12-03 at 6d0ac9b after the rules of that day had
    # landed: 199/211 removed (94.3 %), 23/175 look-alikes wrongly removed (13.1 %). Fitted
    # 2026-12-03 by look-alike class: 199/211 (94.3 %) and 2/175 (1.1 %); then its misses by
    # class, with rules by position: 210/211 (99.5 %) and 2/175 (1.1 %).
    Batch("f", 170, 120, 12, recall=0.99, false_positives=0.015),
    # Batch G: measured once, blind, on 2026-12-03 at 42cdbdf after the rules fitted to batches
    # D, E and F had landed: 235/255 removed (92.2 %), 10/120 look-alikes wrongly removed
    # (8.3 %). Fitted 2026-12-03: 255/255 (100 %) and 0/120 (0.0 %).
    Batch("g", 160, 110, 12, recall=0.995, false_positives=0.005),
    # Batch H: measured once, blind, on 2026-12-03 at ef45bf3 after the rules fitted to batches
    # D to G had landed: 221/257 removed (86.0 %), 11/121 look-alikes wrongly removed (9.1 %).
    # Fitted 2026-12-03: 257/257 (100 %) and 0/121 (0.0 %).
    Batch("h", 250, 120, 18, recall=0.995, false_positives=0.005),
    # Batch I: measured once, blind, on 2026-12-03 at f1e6531 after the rules fitted to batch H
    # and the position rules of three development batches had landed: 243/259 removed (93.8 %),
    # 7/124 look-alikes wrongly removed (5.6 %). Fitted 2026-12-03 by class: 259/259 (100 %) and
    # 0/124 (0.0 %).
    Batch("i", 250, 120, 18, recall=0.995, false_positives=0.005),
    # Batch J: measured once, blind, on 2026-12-03 at 7e91e25 after the rules fitted to batch I
    # had landed: 178/192 removed (92.7 %), 7/96 look-alikes wrongly removed (7.3 %).
    # Fitted 2026-12-03 by class: 192/192 (100 %) and 0/96 (0.0 %).
    Batch("j", 180, 90, 18, recall=0.995, false_positives=0.005),
    # Batch K: measured once, blind, on 2026-12-03 at 62e97c8 after the rules fitted to batch J
    # had landed: 144/170 removed (84.7 %), 3/84 look-alikes wrongly removed (3.6 %).
    # Fitted 2026-12-04 by class: 170/170 (100 %) and 0/84 (0.0 %).
    Batch("k", 160, 80, 18, recall=0.995, false_positives=0.005),
    # Batch L: measured once, blind, on 2026-12-04 at 5e2add3 after the rules fitted to batch K
    # had landed: 169/182 removed (92.9 %), 13/106 look-alikes wrongly removed (12.3 %).
    # Fitted 2026-12-04 by class: 182/182 (100 %) and 0/106 (0.0 %).
    Batch("l", 170, 100, 18, recall=0.995, false_positives=0.005),
    # Batch M: measured once, blind, on 2026-12-04 at 42af2f6 after the rules fitted to batch L
    # had landed: 161/191 removed (84.3 %), 5/109 look-alikes wrongly removed (4.6 %).
    # Fitted 2026-12-04 by class: 191/191 and 0/109.
    Batch("m", 180, 100, 18, recall=0.995, false_positives=0.005),
    # Batch N: measured once, blind, on 2026-12-04 at f547b5a after the rules fitted to batch M
    # had landed: 159/178 removed (89.3 %), 8/106 look-alikes wrongly removed (7.5 %).
    # Fitted 2026-12-04 by class: 174/178 and 3/106.
    Batch("n", 170, 100, 18, recall=0.975, false_positives=0.03),
    # Batch O: measured once, blind, on 2026-12-04 at 035e2f4 after the rules fitted to batch N
    # had landed: 166/185 removed (89.7 %), 6/102 look-alikes wrongly removed (5.9 %).
    # Fitted 2026-12-04 by class: 182/185 and 1/102.
    Batch("o", 180, 100, 18, recall=0.98, false_positives=0.01),
    # Batch P: measured once, blind, on 2026-12-04 at 3066db9 after the rules fitted to batch O
    # and the rules by principle from the pooled blind misses of I to O had landed: 187/199
    # removed (94.0 %), 10/119 look-alikes wrongly removed (8.4 %).
    # Fitted 2026-12-04 by principle: 197/199 and 0/119.
    Batch("p", 190, 110, 18, recall=0.985, false_positives=0.005),
    # Batch Q: measured once, blind, on 2026-12-04 at 1b59e1a after the rules fitted to batch P
    # had landed: 171/189 removed (90.5 %), 9/107 look-alikes wrongly removed (8.4 %). Not fitted.
    Batch("q", 180, 100, 18, recall=0.9, false_positives=0.09),
]
BY_NAME = {batch.name: batch for batch in BATCHES}
_IDS = [batch.name for batch in BATCHES]


@pytest.mark.parametrize("batch", BATCHES, ids=_IDS)
def test_rows_are_well_formed(batch: Batch) -> None:
    check_batch_rows(batch.path, secrets=batch.secrets, benign=batch.benign, classes=batch.classes)


@pytest.mark.parametrize("batch", BATCHES, ids=_IDS)
def test_secrets_are_not_placeholders(batch: Batch) -> None:
    check_no_placeholder_secrets(batch.path)


@pytest.mark.parametrize("batch", BATCHES, ids=_IDS)
def test_rows_are_distinct_and_look_alikes_hold_no_secret(batch: Batch) -> None:
    check_distinct_rows(batch.path)


@pytest.mark.parametrize("batch", BATCHES, ids=_IDS)
def test_file_is_what_its_builder_writes(batch: Batch) -> None:
    check_builder_writes(batch.path, batch.builder)


@pytest.mark.parametrize("batch", BATCHES, ids=_IDS)
def test_batch_holds_its_bounds(batch: Batch) -> None:
    figures = total(measure_classes(batch.path))
    assert figures.caught / figures.secrets >= batch.recall, figures
    assert figures.false_positives / figures.benign <= batch.false_positives, figures


# The first held-apart set (cases.jsonl, fitted while the position rules were written: 236/236
# and 0/120) and the second batch (fresh.jsonl, measured before any change for it at 69/88 and
# 1/60, fitted by class to 87/88 and 0/60), held at those figures: (file, caught, wrongly removed).
FIRST_SETS = [("cases.jsonl", 236, 0), ("fresh.jsonl", 87, 0)]


@pytest.mark.parametrize("first", FIRST_SETS, ids=lambda f: f[0])
def test_first_sets_hold_their_figures(first: tuple[str, int, int]) -> None:
    figures = total(measure_classes(HELD_APART.with_name(first[0])))
    assert figures.caught >= first[1] and figures.false_positives <= first[2], figures


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    names = [arg.lower().removeprefix("batch-") for arg in args if not arg.startswith("-")]
    if len(names) != 1 or names[0] not in BY_NAME:
        print(f"usage: python -m tests.test_redaction_batches {{{','.join(BY_NAME)}}} [-v]")
        return 2
    return print_batch(BY_NAME[names[0]].path, args)


if __name__ == "__main__":
    raise SystemExit(main())
