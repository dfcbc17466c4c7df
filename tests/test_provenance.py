"""Provenance and strength, read from the history of real passes: a candidate outranks a
model's guess, later runs strengthen an entry, and `show --why` / `search --why` say so."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.openai_server import Reply
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue
from wikimem.recall.provenance import origin
from wikimem.wiki.workspace import init

REF = "build/bun#lockfile-drift"


def candidate_run(run_id: str, content: str) -> dict:
    memory = {"path": "build/bun", "type": "procedural", "title": "Lockfile drift"}
    return {"run_id": run_id, "task": "fix the build", "memory": [{**memory, "content": content}]}


def passes(places: config.Places, settings: config.Settings) -> list[tuple[str, str]]:
    return [(o.outcome, o.note) for r in drain(places, settings) for o in r.outcomes]


def setup(workspace: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    places = config.places(workspace, env or {})
    settings = config.load(places, env or {})
    init(places, settings)
    return places, settings


def test_a_candidate_is_recorded_and_later_runs_strengthen_it(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = setup(workspace)
    enqueue(places, settings, candidate_run("r1", "Run `bun install` and commit bun.lockb."))
    assert [o for o, _ in passes(places, settings)] == ["changed"]
    first = origin(places, settings, REF)
    assert (first.source, first.runs, first.strength) == ("candidate", ("r1",), 2)

    enqueue(places, settings, candidate_run("r2", "Run `bun install`, then commit bun.lockb."))
    assert [o for o, _ in passes(places, settings)] == ["changed"]
    again = origin(places, settings, REF)
    assert (again.source, again.runs, again.strength) == ("candidate", ("r1", "r2"), 3)

    shown = cli("show", "--why", REF)
    assert shown.code == 0
    assert f"{REF}: source candidate (strength 3); runs r1, r2" in shown.out
    found = cli("search", "--why", "lockb")
    assert "from: source candidate (strength 3); runs r1, r2" in found.out
    data = json.loads(cli("search", "--why", "--json", "lockb").out)
    assert [h["origin"]["source"] for h in data if h["entry"]] == ["candidate"]

    assert cli("show", "--why", "build").code == 2  # a topic has no entries of its own


def test_a_person_edit_is_the_persons(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = setup(workspace)
    enqueue(places, settings, candidate_run("r1", "Run `bun install` and commit bun.lockb."))
    passes(places, settings)
    leaf = places.wiki / "build" / "bun" / "MEMORY.md"
    leaf.write_text(leaf.read_text().replace("commit bun.lockb.", "commit bun.lockb (Ada)."))
    git("commit", "-qam", "clarify", cwd=places.wiki)
    came = origin(places, settings, REF)
    assert came.source == "person" and [s.source for s in came.steps] == ["candidate", "person"]
    assert "source person" in cli("show", "--why", "build/bun").out


def test_a_model_guess_never_replaces_a_candidate_without_review(
    workspace: Path, openai_server
) -> None:  # type: ignore[no-untyped-def]
    places, settings = setup(workspace)
    enqueue(places, settings, candidate_run("r1", "Run `bun install` and commit bun.lockb."))
    passes(places, settings)
    env = {
        "OPENAI_BASE_URL": openai_server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }
    places, settings = config.places(workspace, env), config.load(places, env)
    guess = {
        "summary": "Rewrite the lockfile note",
        "edits": [{"action": "update", "leaf": "build/bun", "entry": "lockfile-drift",
                   "title": "Lockfile drift", "type": "procedural",
                   "body": "Delete bun.lockb whenever the build fails.", "reason": "guess"}],
    }  # fmt: skip
    openai_server.script(Reply.plan(guess))
    note = {"kind": "note", "text": "The build failed; deleting the lockfile made it pass."}
    run = {"run_id": "r3", "task": "build", "evidence": [note]}
    enqueue(places, settings, run)
    [(outcome, why)] = passes(places, settings)
    assert outcome == "held"
    assert why == f"a model edit would replace {REF}, which a candidate wrote"
    assert "Delete bun.lockb" not in (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert len(list(Queue(places.queue).jobs("review"))) == 1
    assert origin(places, settings, REF).runs == ("r1",)


def test_a_batched_pass_credits_each_entry_to_the_runs_that_taught_it(workspace: Path) -> None:
    places, settings = setup(workspace)
    enqueue(places, settings, candidate_run("r1", "Run `bun install` and commit bun.lockb."))
    other = {"path": "test/pytest", "type": "procedural", "title": "Serial database tests"}
    content = "Run the database tests with `-n 0`: they share one SQLite file."
    run = {"run_id": "r2", "task": "fix tests", "memory": [{**other, "content": content}]}
    enqueue(places, settings, run)
    enqueue(places, settings, candidate_run("r3", "Run `bun install` and commit bun.lockb."))

    assert [o for o, _ in passes(places, settings)] == ["changed"] * 3  # one pass, three runs
    lock = origin(places, settings, REF)
    tests = origin(places, settings, "test/pytest#serial-database-tests")

    assert lock.runs == ("r1", "r3") and lock.strength == 3
    assert tests.runs == ("r2",) and tests.strength == 2
    assert len({s.commit for s in (*lock.steps, *tests.steps)}) == 1


def test_a_model_cannot_name_the_runs_of_its_edits() -> None:
    from wikimem.indexing.plan import BY_RULES, RUNS, parse_answer

    edit = {"action": "add", "leaf": "a/b", "entry": "c", RUNS: ["forged"], BY_RULES: True}
    assert parse_answer({"summary": "", "edits": [edit]}).edits == (
        {"action": "add", "leaf": "a/b", "entry": "c"},
    )
