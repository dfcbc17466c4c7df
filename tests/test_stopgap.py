"""A changed command that the run itself calls temporary is kept as a stopgap, and a later run
that makes the real fix settles the same entry (offline rules, through the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import example_run, git, run_wikimem
from wikimem.indexing.offline import offline_plan, rules_wrote
from wikimem.indexing.stopgap import changed_words, stopgap
from wikimem.intake.record import normalise
from wikimem.intake.snapshot import take

WIKI = Path(".clarvis/memory")


def _later_real_fix() -> dict:
    """The same failure, fixed in the test fixture: each worker gets its own database."""
    return {
        "run_id": "local-2026-12-10-a",
        "task": "Give each xdist worker its own database so tests/integration runs in parallel.",
        "status": "succeeded",
        "result": "The db fixture now uses tmp_path, so each worker has its own SQLite file.",
        "started_at": "2026-12-10T09:00:00Z",
        "ended_at": "2026-12-10T09:12:00Z",
        "evidence": [
            {
                "kind": "command",
                "command": "pytest -n auto tests/integration -q",
                "exit_code": 1,
                "output": "E       sqlite3.OperationalError: database is locked\n3 failed\n",
            },
            {
                "kind": "file",
                "path": "tests/integration/conftest.py",
                "diff": "-    url = 'sqlite:///' + str(ROOT / 'test.db')\n"
                "+    url = 'sqlite:///' + str(tmp_path / 'test.db')\n",
            },
            {
                "kind": "command",
                "command": "pytest -n auto tests/integration -q",
                "exit_code": 0,
                "output": "18 passed in 2.10s\n",
            },
        ],
    }


def _index(workspace: Path, cli, run: dict) -> None:  # type: ignore[no-untyped-def]
    source = workspace / f"{run['run_id']}.json"
    source.write_text(json.dumps(run))
    assert cli("enqueue", str(source)).code == 0
    assert cli("index").code == 0


def test_a_stopgap_is_kept_as_one_then_the_real_fix_settles_it(workspace: Path, cli) -> None:
    cli("init")
    _index(workspace, cli, example_run("02-xdist"))
    page = workspace / WIKI / "testing/pytest/MEMORY.md"
    text = page.read_text()
    assert "`pytest -n 0 tests/integration -q` passes, but it only works around the failure" in text
    assert "run it as" not in text
    assert "Still to do: give each xdist worker its own database file" in text
    assert "review-by=2026-12-16" in text

    _index(workspace, cli, _later_real_fix())

    text = page.read_text()
    assert text.count("## pytest fails: database is locked") == 1  # the same entry, updated
    assert "edit `tests/integration/conftest.py`" in text
    assert "only works around" not in text and "review-by" not in text
    subjects = git("log", "--format=%s", cwd=workspace / WIKI).splitlines()
    assert subjects[0].startswith("Update testing/pytest: pytest fails: database is locked")


def test_the_failure_hook_hands_a_stopgap_over_as_one(workspace: Path, cli) -> None:
    cli("init")
    _index(workspace, cli, example_run("02-xdist"))
    payload = {
        "session_id": "s-1",
        "cwd": str(workspace),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -n auto tests/integration -q"},
        "error": "Exit code 1\nE       sqlite3.OperationalError: database is locked\n3 failed",
    }

    proc = run_wikimem("deliver", "--runner", "claude", cwd=workspace, input=json.dumps(payload))

    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "testing/pytest#pytest-fails-database-is-locked" in context
    assert "only works around the failure" in context and "Still to do:" in context
    assert "the fix recorded" not in context  # a stopgap is not handed over as the fix


def _run(result: str, notes: tuple[str, ...] = ()) -> object:
    evidence = [{"kind": "note", "text": n} for n in notes]
    return normalise({"run_id": "r", "task": "t", "result": result, "evidence": evidence}, "t")


def test_a_run_that_calls_the_change_the_fix_is_no_stopgap() -> None:
    run = _run("Integration tests run serially (`-n 0`): they share one database by design.")
    assert stopgap(run, "pytest -n auto", "pytest -n 0", "database is locked") is None


def test_a_stopgap_sentence_about_another_lessons_change_is_not_this_ones() -> None:
    run = _run("`npm ci` needs `--legacy-peer-deps` for now, until the plugin supports react 18.")
    found = stopgap(
        run, "pytest -x", "pytest -p no:randomly", "ImportError", others=["--legacy-peer-deps"]
    )
    assert found is None


def test_the_changed_part_of_a_command_is_a_flag_with_its_value() -> None:
    assert changed_words("pytest -n auto tests -q", "pytest -n 0 tests -q") == ("-n 0",)
    assert changed_words("npm ci", "npm ci --legacy-peer-deps") == ("--legacy-peer-deps",)


def test_a_stopgap_after_setup_steps_names_them_and_stays_the_rules_own() -> None:
    run = {
        "run_id": "ci-311-2",
        "task": "Get the e2e job green.",
        "status": "succeeded",
        "result": "The proxy blocks the webkit download, so for now CI runs chromium only "
        "(`--project=chromium`) until the proxy allows the CDN.",
        "evidence": [
            {
                "kind": "command",
                "command": "npx playwright test",
                "exit_code": 1,
                "output": "Error: browserType.launch: Executable doesn't exist\n",
            },
            {"kind": "command", "command": "npx playwright install chromium", "exit_code": 0},
            {
                "kind": "command",
                "command": "npx playwright test --project=chromium",
                "exit_code": 0,
            },
        ],
    }

    (edit,) = offline_plan([take(normalise(run, "t"))[0]]).edits

    assert edit["type"] == "working"
    assert (
        "Run `npx playwright install chromium`, then `npx playwright test --project=chromium`:"
        " that passes, but it only works around the failure." in edit["body"]
    )
    assert rules_wrote(edit["body"])  # so the run that fixes it may update it
