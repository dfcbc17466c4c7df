"""Hand-written text is the person's: an update or remove that would drop or rewrite lines a
person wrote in an entry since wikimem last wrote it waits for their approval (`queue approve`,
`queue drop`); an edit that only adds, or touches only wikimem's own lines, goes through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.openai_server import Reply
from tests.test_person_edits import Wikis, teaching_run
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue

FIRST = "`bun install --frozen-lockfile` fails; fix number 1."
MINE = "Ask Dana before touching the lockfile on release branches."


@pytest.fixture
def wikis(workspace: Path, openai_server: Any) -> Wikis:
    made = Wikis(workspace, openai_server, "wiki")  # wikimem wrote build/bun#fix-1
    assert FIRST in made.wiki.joinpath("build/bun/MEMORY.md").read_text()
    return made


def leaf(wikis: Wikis) -> Path:
    return wikis.wiki / "build" / "bun" / "MEMORY.md"


def add_my_line(wikis: Wikis) -> None:
    """The person adds a line to wikimem's entry in their editor (left uncommitted)."""
    text = leaf(wikis).read_text()
    leaf(wikis).write_text(text.replace(FIRST, f"{FIRST}\n{MINE}"))


def bun_in_prompt(wikis: Wikis) -> str:
    """The bun page's part of the last prompt, with the note after it."""
    prompt = wikis.server.completions[-1]["messages"][-1]["content"]
    return str(
        prompt.split("## build/bun/MEMORY.md in full")[1].split("\n````\n", 1)[1].split("\n## ")[0]
    )


def update(wikis: Wikis, body: str, n: int = 2) -> tuple[list[str], str]:
    """A run whose plan updates build/bun#fix-1 to `body`: its outcomes and its job id."""
    plan = {
        "summary": "Rewrite the bun fix",
        "edits": [
            {
                "action": "update",
                "leaf": "build/bun",
                "entry": "fix-1",
                "title": "Fix 1",
                "type": "procedural",
                "body": body,
                "reason": "verified fix",
            }
        ],
    }
    wikis.server.default = Reply.plan(plan)
    job = enqueue(wikis.places, wikis.settings, teaching_run(10 + n))
    outcomes = [o.outcome for r in drain(wikis.places, wikis.settings) for o in r.outcomes]
    return outcomes, job.job_id


def test_a_rewrite_of_the_persons_line_waits_then_approve_applies_it(wikis: Wikis, cli) -> None:
    add_my_line(wikis)
    outcomes, job = update(wikis, "Run `bun install` and commit the lockfile.")
    assert outcomes == ["held"]
    assert MINE in leaf(wikis).read_text()
    assert Queue(wikis.places.queue).state_of(job) == "review"
    held = Queue(wikis.places.queue).jobs("review")
    reason = next(j.held_reason for _, j in held if j is not None)
    assert "build/bun#fix-1" in reason and "Ask Dana" in reason
    shown = cli("status")
    assert shown.code == 0 and "held" in shown.out and "Ask Dana" in shown.out
    assert f"`wikimem review show {job}`, then `wikimem review approve`" in shown.out
    approved = cli("queue", "approve", job[:8])
    assert approved.code == 0, approved.err
    text = leaf(wikis).read_text()
    assert MINE not in text and "commit the lockfile" in text
    assert Queue(wikis.places.queue).state_of(job) == "done"


def test_a_dropped_rewrite_leaves_the_persons_text(wikis: Wikis, cli) -> None:
    add_my_line(wikis)
    outcomes, job = update(wikis, "Run `bun install` and commit the lockfile.")
    assert outcomes == ["held"]
    dropped = cli("queue", "drop", job[:8])
    assert dropped.code == 0, dropped.err
    text = leaf(wikis).read_text()
    assert MINE in text and "commit the lockfile" not in text
    assert Queue(wikis.places.queue).state_of(job) == "dropped"
    # the person's line is committed as theirs, and the next run that keeps it goes through
    outcomes, _ = update(wikis, f"{FIRST}\n{MINE}\nOr pin bun's version.", n=3)
    assert outcomes == ["changed"]
    assert "Or pin bun's version." in leaf(wikis).read_text()


def test_an_update_that_only_adds_goes_straight_through(wikis: Wikis) -> None:
    add_my_line(wikis)
    outcomes, _ = update(wikis, f"Before anything, read the log.\n{FIRST}\n{MINE}\nThen pin bun.")
    assert outcomes == ["changed"]
    text = leaf(wikis).read_text()
    assert MINE in text and "Then pin bun." in text
    # the model was told which entry holds the person's lines
    assert "lines a person wrote by hand: note, fix-1." in bun_in_prompt(wikis)
    assert not list(Queue(wikis.places.queue).jobs("review"))


def test_an_update_of_wikimem_s_own_lines_goes_through(wikis: Wikis) -> None:
    outcomes, _ = update(wikis, "Run `bun install` and commit the lockfile.")
    assert outcomes == ["changed"]
    assert "lines a person wrote by hand: note." in bun_in_prompt(wikis)  # not fix-1
    assert FIRST not in leaf(wikis).read_text()


def test_a_removal_of_an_entry_with_the_persons_line_waits(wikis: Wikis) -> None:
    add_my_line(wikis)
    plan = {
        "summary": "Forget the bun fix",
        "edits": [{"action": "remove", "leaf": "build/bun", "entry": "fix-1", "reason": "old"}],
    }
    wikis.server.default = Reply.plan(plan)
    enqueue(wikis.places, wikis.settings, teaching_run(20))
    outcomes = [o.outcome for r in drain(wikis.places, wikis.settings) for o in r.outcomes]
    assert outcomes == ["held"]
    assert MINE in leaf(wikis).read_text()


def test_the_offline_rules_explicit_candidate_over_the_persons_entry_waits(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_my_line(wikis)
    monkeypatch.delenv("WIKIMEM_MODEL", raising=False)
    offline = config.load(wikis.places, {})
    assert offline.model_settings().model is None
    run = {
        "run_id": "run-offline",
        "task": "Note the bun fix",
        "memory": [{"path": "build/bun", "title": "Fix 1", "content": "Just run `bun install`."}],
    }
    job = enqueue(wikis.places, offline, run)
    outcomes = [o.outcome for r in drain(wikis.places, offline) for o in r.outcomes]
    assert outcomes == ["held"]
    assert MINE in leaf(wikis).read_text()
    assert Queue(wikis.places.queue).state_of(job.job_id) == "review"
