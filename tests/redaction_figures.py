"""Recall and false positives of `wikimem.redact` on the corpus in tests/data/redaction/.

Run `python -m tests.redaction_figures` (add `-v` to list every miss, `--classes` for the table
of secret shapes by class in classes.jsonl, `--held-apart` for the held-apart set in
tests/data/redaction_held_apart/, shapes from other tools' documentation that no rule was written
from, `--fresh` for its second batch). Recall is the share of secrets whose exact text no
longer appears after redaction; a false positive is a benign item whose value does not survive
intact or whose context was redacted at all.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from wikimem.redaction.redact import redact

CORPUS = Path(__file__).resolve().parent / "data" / "redaction"
HELD_APART = Path(__file__).resolve().parent / "data" / "redaction_held_apart" / "cases.jsonl"
# A second batch written after the position rules, measured before any rule was changed for it.
FRESH = HELD_APART.with_name("fresh.jsonl")


@dataclass(frozen=True)
class Figures:
    secrets: int
    caught: int
    kinds: int
    benign: int
    false_positives: int
    missed: list[dict[str, str]] = field(default_factory=list)
    flagged: list[tuple[dict[str, str], str]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.caught / self.secrets

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.benign

    def summary(self) -> str:
        return (
            f"recall {self.caught}/{self.secrets} ({self.recall:.1%}) over {self.kinds} kinds, "
            f"false positives {self.false_positives}/{self.benign} ({self.false_positive_rate:.1%})"
        )


def load(name: str | Path) -> list[dict[str, str]]:
    with (CORPUS / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def measure() -> Figures:
    secrets, benign = load("secrets.jsonl"), load("benign.jsonl")
    missed = [row for row in secrets if row["secret"] in redact(row["context"])[0]]
    flagged = []
    for row in benign:
        text, kinds = redact(row["context"])
        if kinds or row["value"] not in text:
            flagged.append((row, text))
    return Figures(
        secrets=len(secrets),
        caught=len(secrets) - len(missed),
        kinds=len({row["kind"] for row in secrets}),
        benign=len(benign),
        false_positives=len(flagged),
        missed=missed,
        flagged=flagged,
    )


@dataclass(frozen=True)
class ClassFigures:
    name: str
    secrets: int
    caught: int
    benign: int
    false_positives: int

    def row(self) -> str:
        return (
            f"| {self.name} | {self.caught}/{self.secrets} | {self.false_positives}/{self.benign} |"
        )


def measure_classes(name: str | Path = "classes.jsonl") -> list[ClassFigures]:
    """Recall and false positives per class of a class file, in the file's order."""
    tally: dict[str, list[int]] = {}
    for row in load(name):
        counts = tally.setdefault(row["class"], [0, 0, 0, 0])
        text, kinds = redact(row["context"])
        if row["expect"] == "secret":
            counts[0] += 1
            counts[1] += row["secret"] not in text
        else:
            counts[2] += 1
            counts[3] += bool(kinds) or row["value"] not in text
    return [ClassFigures(name, *counts) for name, counts in tally.items()]


def total(classes: list[ClassFigures]) -> ClassFigures:
    """The figures of all classes together."""
    return ClassFigures(
        "all",
        sum(c.secrets for c in classes),
        sum(c.caught for c in classes),
        sum(c.benign for c in classes),
        sum(c.false_positives for c in classes),
    )


def held_apart_misses(path: Path = HELD_APART) -> list[tuple[dict[str, str], str]]:
    """Each held-apart row redaction got wrong, with the text it became."""
    wrong = []
    for row in load(path):
        text, kinds = redact(row["context"])
        kept = row["secret"] in text if row["expect"] == "secret" else False
        damaged = row["expect"] == "benign" and (bool(kinds) or row["value"] not in text)
        if kept or damaged:
            wrong.append((row, text))
    return wrong


# -- the checks and the printer every blind batch (D, E, F...) shares ---------------------------

PLACEHOLDER_WORDS = ("example", "xxx", "changeme")


def check_batch_rows(path: Path, secrets: int, benign: int, classes: int = 1) -> None:
    """A batch's rows are well formed: enough of each, each value in its context, a class, a
    documentation source, and a reason for every look-alike."""
    rows = load(path)
    assert sum(row["expect"] == "secret" for row in rows) >= secrets
    assert sum(row["expect"] == "benign" for row in rows) >= benign
    assert len({row["class"] for row in rows}) >= classes
    for row in rows:
        assert row["expect"] in ("secret", "benign"), row
        value = row["secret"] if row["expect"] == "secret" else row["value"]
        assert value and value in row["context"], row
        assert row["class"], row
        # a page's address, or "follows …" for a row written from what a tool documents on a
        # page its author did not read (batch N says which)
        assert row["source"].startswith(("http://", "https://", "follows ")), row
        assert row["expect"] == "secret" or row["reason"], row


def check_no_placeholder_secrets(path: Path) -> None:
    """Placeholder-looking values are left alone on purpose; a secret row holding one would
    measure that choice instead of the rules."""
    for row in load(path):
        if row["expect"] == "secret":
            assert not [w for w in PLACEHOLDER_WORDS if w in row["secret"].lower()], row


def check_distinct_rows(path: Path) -> None:
    """No row twice, and no look-alike's context holds one of the batch's secrets."""
    rows = load(path)
    keys = Counter((row["context"], row.get("secret", row.get("value"))) for row in rows)
    assert max(keys.values()) == 1, [key for key, n in keys.items() if n > 1]
    secrets = {row["secret"] for row in rows if row["expect"] == "secret"}
    for row in rows:
        if row["expect"] == "benign":
            assert not [value for value in secrets if value in row["context"]], row


def check_builder_writes(path: Path, builder: Path) -> None:
    """The batch's file is what its builder script writes."""
    spec = importlib.util.spec_from_file_location(builder.stem, builder)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert load(path) == module.ROWS


def print_batch(path: Path, argv: list[str]) -> int:
    """Recall and false positives per class of one batch, as a Markdown table; with -v every
    miss and false positive."""
    classes = measure_classes(path)
    print("| class | removed (recall) | look-alikes wrongly removed |\n| --- | --- | --- |")
    for figures in classes + [total(classes)]:
        recall = f"{figures.caught / figures.secrets:.1%}" if figures.secrets else "-"
        wrong = f"{figures.false_positives / figures.benign:.1%}" if figures.benign else "-"
        print(
            f"| {figures.name} | {figures.caught}/{figures.secrets} ({recall}) "
            f"| {figures.false_positives}/{figures.benign} ({wrong}) |"
        )
    if "-v" in argv:
        for row, text in held_apart_misses(path):
            kind = "missed" if row["expect"] == "secret" else "false positive"
            print(f"{kind} [{row['class']}] {json.dumps(row['context'], ensure_ascii=False)[:160]}")
            print(f"  became {json.dumps(text, ensure_ascii=False)[:160]}")
    return 0


def main(argv: list[str]) -> int:
    if {"--classes", "--held-apart", "--fresh"} & set(argv):
        path: str | Path = "classes.jsonl"
        if "--held-apart" in argv or "--fresh" in argv:
            path = FRESH if "--fresh" in argv else HELD_APART
        classes = measure_classes(path)
        print("| class | recall | false positives |\n| --- | --- | --- |")
        for figures_of_class in classes + [total(classes)]:
            print(figures_of_class.row())
        if "-v" in argv and isinstance(path, Path):
            for row, text in held_apart_misses(path):
                print(f"{row['expect']} {row['class']}: {row['context']!r}\n  became {text!r}")
        return 0
    figures = measure()
    print(figures.summary())
    if "-v" in argv:
        for row in figures.missed:
            print(f"missed {row['kind']}: {row['secret']!r}\n  in {row['context']!r}")
        for row, text in figures.flagged:
            print(f"false positive {row['kind']}: {row['value']!r}\n  became {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
