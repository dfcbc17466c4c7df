"""The run record at the boundary: what normalisation keeps of run ids and agent names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from wikimem import config
from wikimem.errors import RecordError
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.record import ID_MAX, normalise
from wikimem.wiki.workspace import init

FIX = [
    {"kind": "command", "command": "make test", "exit_code": 1, "output": "E: missing fixture"},
    {"kind": "command", "command": "make fixtures", "exit_code": 0, "output": "ok"},
    {"kind": "command", "command": "make test", "exit_code": 0, "output": "passed"},
]


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("gh-8812-3", "gh-8812-3"),
        ("codex:019a-77:turn/2", "codex:019a-77:turn/2"),
        ("run-1\nWikimem-Run: forged", "run-1-Wikimem-Run:-forged"),
        ("a\r\x00\x1b[31mb\tc", "a-31mb-c"),
        ("  spaced out id  ", "spaced-out-id"),
        ("tâche-été", "tâche-été"),
        (42, "42"),
    ],
)
def test_a_run_id_is_reduced_to_the_safe_set(given: object, kept: str) -> None:
    assert normalise({"task": "t", "run_id": given}).run_id == kept


def test_a_run_id_with_nothing_safe_left_is_derived_from_the_record() -> None:
    record = {"task": "t", "run_id": "\n\n\x07"}
    assert normalise(record).run_id.startswith("run-")
    assert normalise(record).run_id == normalise(dict(record)).run_id


def test_a_long_run_id_is_capped() -> None:
    assert len(normalise({"task": "t", "run_id": "x" * 1000}).run_id) == ID_MAX


def test_agent_names_keep_spaces_but_lose_control_characters() -> None:
    agent = {"name": "Claude Code\nWikimem-Agent: root", "instance_id": "ci\x1b-7\r"}
    record = normalise({"task": "t", "agent": agent})
    assert (record.agent_name, record.agent_instance) == (
        "Claude Code-Wikimem-Agent: root",
        "ci--7",
    )
    assert normalise({"task": "t", "agent": "codex"}).agent_name == "codex"


def test_a_record_still_needs_a_task() -> None:
    with pytest.raises(RecordError):
        normalise({"run_id": "r"})


def test_a_forged_trailer_never_reaches_the_commit(workspace: Path) -> None:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    run = {
        "run_id": "run-7\nWikimem-Run: forged-run\nSigned-off-by: Mallory <m@example.com>",
        "task": "Make the tests pass",
        "agent": {"name": "claude-code\nWikimem-Model: forged", "instance_id": "ci-7"},
        "evidence": FIX,
    }
    enqueue(places, settings, run)
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    trailers = git("log", "-1", "--format=%(trailers:only,unfold)", cwd=places.wiki).split("\n")
    keys = [line.split(":", 1)[0] for line in trailers if line]
    assert sorted(keys) == ["Wikimem-Agent", "Wikimem-Model", "Wikimem-Pass", "Wikimem-Run"]
    assert "Wikimem-Run: run-7-Wikimem-Run:-forged-run-Signed-off-by:-Mallory-m@example.com" in (
        trailers
    )
    assert "Wikimem-Model: offline-rules" in trailers


def test_one_record_type_from_normalisation_to_the_prompt(workspace: Path) -> None:
    """normalise gives a RunRecord; the snapshot is one; the queue stores its dict form, which
    reads back as the same record, and the prompt shows exactly that dict."""
    from wikimem.indexing.prompt import fence
    from wikimem.intake.queue import Queue
    from wikimem.intake.record import RunRecord
    from wikimem.intake.snapshot import take

    raw = {
        "run_id": "r-9",
        "task": "Make the tests pass",
        "agent": "codex",
        "ci_job": {"id": 7},
        "evidence": [*FIX, {"kind": "file", "path": "a.py", "diff": "+x"}, "a plain note"],
        "memory": [{"path": "build/make", "content": "make fixtures first"}],
    }
    record = normalise(raw)
    assert isinstance(record, RunRecord) and record.extra == {"ci_job": {"id": 7}}
    assert [e.kind for e in record.evidence] == ["command"] * 3 + ["file", "note"]
    assert RunRecord.from_dict(record.to_dict()) == record
    snapshot, kinds = take(record)
    assert isinstance(snapshot, RunRecord) and kinds == [] and snapshot == record
    places = config.places(workspace, {})
    enqueue(places, config.load(places, {}), raw)
    [(_, job)] = Queue(places.queue).jobs("pending")
    assert job is not None and RunRecord.from_dict(job.run) == record
    assert fence([record])[1].count("\n") == 0 and '"ci_job": {"id": 7}' in fence([record])[1]
