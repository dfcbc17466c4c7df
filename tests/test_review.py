"""The review inbox: in review.mode = all every change waits; a person sees it as a diff,
approves it (one commit naming the run), edits it, or drops it, and a dropped lesson is not
held again when a later run teaches it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import example_run, git


def _queue(cli, tmp_path: Path, name: str, run_id: str) -> None:
    run = tmp_path / f"{run_id}.json"
    run.write_text(json.dumps(dict(example_run(name), run_id=run_id)))
    assert cli("enqueue", str(run)).code == 0


def _waiting(cli) -> list[dict]:
    result = cli("review", "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_every_change_waits_is_shown_as_a_diff_and_approved_in_one_commit(
    workspace: Path, cli, tmp_path: Path
) -> None:
    cli("init")
    assert cli("config", "set", "review.mode", "all").code == 0
    wiki = workspace / ".clarvis/memory"
    before = git("rev-parse", "HEAD", cwd=wiki)
    _queue(cli, tmp_path, "01", "run-review-1")
    cli("index")
    assert git("rev-parse", "HEAD", cwd=wiki) == before  # nothing written yet
    [item] = _waiting(cli)
    assert item["run_id"] == "run-review-1" and "review.mode is all" in item["reason"]
    listing = cli("review").out
    assert item["job"] in listing and "edit(s)" in listing
    shown = cli("review", "show", item["job"][:8])
    assert shown.code == 0
    assert "run     run-review-1" in shown.out and "+## " in shown.out
    assert "by      offline-rules" in shown.out
    assert "b/" in shown.out and "/MEMORY.md" in shown.out
    # where the lesson came from: who proposed it, from which run, on what evidence
    assert "source  offline rules; run run-review-1" in shown.out
    assert "$ uv sync --locked  (exit 2)" in shown.out
    approved = cli("review", "approve", item["job"][:8])
    assert approved.code == 0 and "in commit" in approved.out
    assert _waiting(cli) == []
    message = git("log", "-1", "--format=%B", cwd=wiki)
    assert "run-review-1" in message
    # the commit names who proposed it (so the entry's source stays the rules') and who approved
    assert "Wikimem-Model: offline-rules" in message and "Wikimem-Approved-By: " in message
    ref = f"{item['plan']['edits'][0]['leaf']}#{item['plan']['edits'][0]['entry']}"
    assert "source rule" in cli("show", "--why", ref).out


def test_a_dropped_lesson_is_not_held_again(workspace: Path, cli, tmp_path: Path) -> None:
    cli("init")
    assert cli("config", "set", "review.mode", "all").code == 0
    _queue(cli, tmp_path, "01", "run-drop-1")
    cli("index")
    [item] = _waiting(cli)
    dropped = cli("review", "drop", item["job"])
    assert dropped.code == 0 and "will not be held again" in dropped.out
    _queue(cli, tmp_path, "01", "run-drop-2")  # the same lesson, from a later run
    again = cli("index")
    assert _waiting(cli) == [], again.out + again.err


def test_risky_mode_lets_an_ordinary_lesson_through_and_off_is_a_known_value(
    workspace: Path, cli, tmp_path: Path
) -> None:
    cli("init")
    _queue(cli, tmp_path, "01", "run-risky-1")
    cli("index")
    assert _waiting(cli) == []
    assert cli("review").out.startswith("nothing waits for review (review.mode = risky)")
    bad = cli("config", "set", "review.mode", "sometimes")
    assert bad.code == 1 and "expected 'off', 'risky' or 'all'" in bad.err


def test_an_edited_plan_is_applied_as_edited(
    workspace: Path, cli, tmp_path: Path, monkeypatch
) -> None:
    cli("init")
    assert cli("config", "set", "review.mode", "all").code == 0
    _queue(cli, tmp_path, "01", "run-edit-1")
    cli("index")
    [item] = _waiting(cli)
    editor = tmp_path / "editor.py"  # an editor that retitles every edit, as a person might
    editor.write_text(
        "import json, sys\n"
        "path = sys.argv[1]\n"
        "plan = json.load(open(path))\n"
        "for edit in plan['edits']:\n"
        "    edit['title'] = 'Retitled by a person'\n"
        "    edit['entry'] = 'retitled-by-a-person'\n"
        "json.dump(plan, open(path, 'w'))\n"
    )
    import sys

    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    edited = cli("review", "edit", item["job"])
    assert edited.code == 0 and "edited" in edited.out, edited.err
    assert cli("review", "approve", item["job"]).code == 0
    leaves = list((workspace / ".clarvis/memory").rglob("MEMORY.md"))
    assert any("## Retitled by a person" in p.read_text() for p in leaves)


def test_off_mode_lets_a_mass_removal_through(workspace: Path, openai_server) -> None:
    from tests.openai_server import Reply
    from tests.test_pipeline import LESSON, model_env, rich_run, setup
    from wikimem.indexing.drain import drain
    from wikimem.intake.accept import enqueue

    places, settings = setup(workspace, model_env(openai_server))
    settings = settings.override("review.mode", "off", "test")
    edits = [
        dict(
            LESSON["edits"][0],
            entry=f"e{i}",
            title=f"Rule {i}",
            body=f"Rule {i} of the web build: commit the lockfile `bun install` regenerated.",
        )
        for i in range(3)
    ]
    openai_server.script(Reply.plan({"summary": "three", "edits": edits}))
    enqueue(places, settings, rich_run("fill"))
    assert [o.outcome for r in drain(places, settings) for o in r.outcomes] == ["changed"]
    wipe = [
        {"action": "remove", "leaf": "build/bun", "entry": f"rule-{i}", "reason": "told to"}
        for i in range(3)
    ]
    openai_server.script(Reply.plan({"summary": "wipe", "edits": wipe}))
    enqueue(places, settings, rich_run("wipe"))
    # risky mode holds a removal of every entry; off lets it through
    assert [o.outcome for r in drain(places, settings) for o in r.outcomes] == ["changed"]
