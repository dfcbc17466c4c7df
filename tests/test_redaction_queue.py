"""Redaction measured where it matters: on the job files that reach the queue on disk.

Every context of the corpus in tests/data/redaction/ travels as a run's evidence output and as
its result text through `wikimem.intake.enqueue` (normalise, redact, bound, atomic write); the
job file is read back from disk. A secret counts as caught only if it is gone whole from both
places; a benign look-alike counts as a false positive if it is not kept intact or anything in
its context was redacted.
"""

from __future__ import annotations

import json
from pathlib import Path

from wikimem import config
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Job

CORPUS = Path(__file__).parent / "data" / "redaction"
RECALL_MIN = 0.995
FALSE_POSITIVE_MAX = 0.005


def rows(name: str) -> list[dict[str, str]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def queued_texts(
    places: config.Places, settings: config.Settings, run_id: str, context: str
) -> tuple[str, str]:
    """(evidence output, result) of the job file on disk for a run carrying `context`."""
    done = enqueue(
        places,
        settings,
        {
            "run_id": run_id,
            "task": "Fix the failing deploy",
            "result": context,
            "evidence": [
                {"kind": "command", "command": "./deploy.sh", "exit_code": 1, "output": context}
            ],
        },
    )
    job = Job.from_json((places.queue / "pending" / f"{done.job_id}.json").read_text("utf-8"))
    return job.run["evidence"][0]["output"], job.run["result"]


def test_redaction_on_the_queue_meets_its_figures(workspace: Path) -> None:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    secrets, benign = rows("secrets.jsonl"), rows("benign.jsonl")
    assert len(secrets) >= 150 and len({r["kind"] for r in secrets}) >= 40
    assert len(benign) >= 100
    leaked: list[str] = []
    for i, row in enumerate(secrets):
        for place, text in zip(
            ("output", "result"),
            queued_texts(places, settings, f"secret-{i}", row["context"]),
            strict=True,
        ):
            if row["secret"] in text:
                leaked.append(f"{row['kind']} in {place}")
    damaged: list[str] = []
    for i, row in enumerate(benign):
        for place, text in zip(
            ("output", "result"),
            queued_texts(places, settings, f"benign-{i}", row["context"]),
            strict=True,
        ):
            redacted = "[REDACTED:" in text and "[REDACTED:" not in row["context"]
            if row["value"] not in text or redacted:
                damaged.append(f"{row['kind']} in {place}")
    recall = 1 - len(leaked) / (2 * len(secrets))
    false_positives = len(damaged) / (2 * len(benign))
    print(
        f"\nredaction on the queue: recall {recall:.1%} ({2 * len(secrets) - len(leaked)}/"
        f"{2 * len(secrets)} secret placements, {len(secrets)} secrets of "
        f"{len({r['kind'] for r in secrets})} kinds), false positives {false_positives:.1%} "
        f"({len(damaged)}/{2 * len(benign)} benign placements)"
    )
    assert recall >= RECALL_MIN, f"leaked: {leaked}"
    assert false_positives <= FALSE_POSITIVE_MAX, f"redacted benign values: {damaged}"


def test_secret_shapes_by_class_never_reach_the_queue(workspace: Path) -> None:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    leaked, damaged = [], []
    for i, row in enumerate(rows("classes.jsonl")):
        output, result = queued_texts(places, settings, f"class-{i}", row["context"])
        if row["expect"] == "secret":
            leaked += [row["class"] for text in (output, result) if row["secret"] in text]
        elif row["class"] != "private key over 16 KB (PGP, encrypted PEM)":  # bounded, not kept
            damaged += [row["class"] for text in (output, result) if row["value"] not in text]
    assert not leaked and not damaged, (leaked, damaged)
