"""Small promises the CLI keeps: exit codes that mean one thing, refusals that queue nothing,
config files that stay out of git, clear errors for outputs and history, checked settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_wikimem
from tests.recall_support import BUN, learn, setup


@pytest.fixture
def learned(workspace: Path):  # type: ignore[no-untyped-def]
    places, settings = setup(workspace)
    learn(places, settings, "run-1", BUN)
    return places, settings


# 2: the command was called wrongly; 1: a well-formed request for something that is not there
EXIT_CODES = [
    (("show", "--nope"), 2),
    (("search",), 2),
    (("log", "-n", "0"), 2),
    (("show", "../etc/passwd"), 2),
    (("log", "Not A Path"), 2),
    (("config", "get", "nope.key"), 2),
    (("config", "set", "nope.key", "1"), 2),
    (("forget", "../etc"), 2),
    (("show", "build/nope"), 1),
    (("show", "build/bun#no-such-entry"), 1),
    (("show", "build/bun@no-such-commit"), 1),
    (("log", "build/bun#no-such-entry"), 1),
    (("undo", "deadbeef"), 1),
    (("forget", "build/nope"), 1),
    (("restore", "build/bun"), 1),
    (("enqueue", "missing.json"), 1),
    (("import", "missing.jsonl"), 1),
    (("export", "-o", "."), 1),
    (("config", "set", "model.timeout", "soon"), 1),
]


@pytest.mark.parametrize(
    ("args", "code"), EXIT_CODES, ids=lambda v: " ".join(v) if isinstance(v, tuple) else str(v)
)
def test_exit_codes_mean_usage_or_failure(learned, cli, args: tuple[str, ...], code: int) -> None:
    result = cli(*args)
    assert result.code == code, result.err
    assert result.err.startswith("wikimem: error: ") and result.err.count("\n") == 1
    assert "unexpected" not in result.err


def test_an_import_file_that_is_not_json_lines_is_a_failure_not_a_usage_error(
    learned, cli, workspace: Path
) -> None:
    bad = workspace / "bad.jsonl"
    bad.write_text("{not json\n")
    result = cli("import", str(bad))
    assert result.code == 1 and "line 1 is not JSON" in result.err


def test_enqueue_refuses_while_memory_is_paused(learned, cli, workspace: Path) -> None:
    places, _ = learned
    run = workspace / "run.json"
    run.write_text('{"run_id": "run-2", "task": "t", "status": "succeeded"}')
    assert cli("pause").code == 0
    refused = cli("enqueue", str(run))
    assert refused.code == 1 and refused.out == ""
    assert refused.err.count("\n") == 1 and "paused" in refused.err
    assert "`wikimem resume`" in refused.err
    assert not list((places.queue / "pending").glob("*"))
    assert cli("resume").code == 0
    assert cli("enqueue", str(run)).code == 0
    assert len(list((places.queue / "pending").glob("*"))) == 1


def test_enqueue_refuses_when_memory_is_off_for_the_run(learned, workspace: Path) -> None:
    places, _ = learned
    run = '{"run_id": "run-3", "task": "t", "status": "succeeded"}'
    off = run_wikimem("enqueue", cwd=workspace, input=run, env={"WIKIMEM_MEMORY": "off"})
    assert off.returncode == 1 and off.stdout == b""
    assert off.stderr.decode().count("\n") == 1 and b"unset WIKIMEM_MEMORY" in off.stderr
    assert not list((places.queue / "pending").glob("*"))
    on = run_wikimem("enqueue", cwd=workspace, input=run)
    assert on.returncode == 0, on.stderr
    assert len(list((places.queue / "pending").glob("*"))) == 1


def test_config_set_keeps_the_workspace_config_out_of_git(workspace: Path) -> None:
    git("init", "--quiet", cwd=workspace)
    (workspace / "app.py").write_text("print('hi')\n")
    done = run_wikimem("config", "set", "model.api_key", "sk-test-0123456789abcdef", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert (workspace / ".clarvis" / "config.toml").is_file()
    status = git("status", "--porcelain", "--untracked-files=all", cwd=workspace)
    assert status.splitlines() == ["?? app.py"]
    git("add", "-A", cwd=workspace)
    assert git("diff", "--cached", "--name-only", cwd=workspace).split() == ["app.py"]
    exclude = (workspace / ".git" / "info" / "exclude").read_text()
    assert exclude.count("/.clarvis/config.toml\n") == 1
    # again, then with the wiki set up: still one line, and the wiki's own files stay out too
    assert run_wikimem("config", "set", "queue.batch", "4", cwd=workspace).returncode == 0
    assert run_wikimem("init", cwd=workspace).returncode == 0
    status = git("status", "--porcelain", "--untracked-files=all", cwd=workspace)
    assert status.splitlines() == ["A  app.py"]
    exclude = (workspace / ".git" / "info" / "exclude").read_text()
    assert exclude.count("/.clarvis/config.toml\n") == 1


def test_config_set_global_and_outside_a_repository_touch_no_exclude(workspace: Path, cli) -> None:
    assert cli("config", "set", "queue.batch", "4").code == 0
    assert (workspace / ".clarvis" / "config.toml").is_file()
    assert not (workspace / ".git").exists()
    git("init", "--quiet", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before = exclude.read_text() if exclude.exists() else ""
    assert cli("config", "set", "--global", "queue.batch", "3").code == 0
    assert (exclude.read_text() if exclude.exists() else "") == before


def test_export_to_a_folder_or_a_missing_folder_is_one_clear_error(
    learned, cli, workspace: Path
) -> None:
    (workspace / "out").mkdir()
    folder = cli("export", "-o", str(workspace / "out"))
    assert folder.code == 1 and folder.err.count("\n") == 1
    assert folder.err.startswith("wikimem: error: cannot write ") and "is a folder" in folder.err
    missing = cli("export", "-o", "nowhere/deeper/memory.jsonl")
    assert missing.code == 1 and missing.err.count("\n") == 1
    assert f"the folder {workspace / 'nowhere' / 'deeper'} does not exist" in missing.err
    assert not (workspace / "nowhere").exists()
    (workspace / "notes.txt").write_text("x\n")
    under_file = cli("export", "-o", "notes.txt/memory.jsonl")
    assert under_file.code == 1 and "is not a folder" in under_file.err
    written = cli("export", "-o", "out/memory.jsonl")
    assert (
        written.code == 0
        and '"entry": "lockfile-drift-on-ci"' in (workspace / "out" / "memory.jsonl").read_text()
    )


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs a read-only /proc")
def test_export_to_an_unwritable_place_is_one_clear_error(learned, cli) -> None:
    result = cli("export", "-o", "/proc/memory.jsonl")
    assert result.code == 1 and result.err.count("\n") == 1
    assert result.err.startswith("wikimem: error: cannot write /proc/memory.jsonl: ")
    assert "unexpected" not in result.err


def test_log_of_a_page_that_never_was_says_so(learned, cli) -> None:
    places, _ = learned
    missing = cli("log", "nope/x")
    assert missing.code == 1 and missing.out == ""
    assert missing.err == "wikimem: error: no page at nope/x in the wiki or its history\n"
    near = cli("log", "build/bum")
    assert near.code == 1 and "did you mean: build/bun" in near.err
    page = cli("log", "build/bun")
    assert page.code == 0 and "no history yet" not in page.out and "run run-1" in page.out
    topic = cli("log", "build")
    assert topic.code == 0 and "run run-1" in topic.out


def test_log_says_no_history_yet_only_for_an_empty_history(workspace: Path, cli) -> None:
    (workspace / ".clarvis" / "memory").mkdir(parents=True)
    for args in (("log",), ("log", "nope/x")):
        result = cli(*args)
        assert result.code == 0 and result.out == "no history yet\n"
    assert cli("log", "Nope X").code == 2  # not a path at all, history or not


def test_show_an_entry_missing_at_a_commit_names_the_commit(learned, cli) -> None:
    places, _ = learned
    first = git("rev-list", "--max-parents=0", "HEAD", cwd=places.wiki).strip()[:7]
    head = git("rev-parse", "--short", "HEAD", cwd=places.wiki).strip()
    result = cli("show", f"build/bun#lockfile-drift-on-ci@{head}")
    assert result.code == 0 and "frozen-lockfile" in result.out
    gone = cli("show", f"build/bun#no-such-entry@{head}")
    assert gone.code == 1
    assert gone.err.startswith(f"wikimem: error: no entry 'no-such-entry' in build/bun at {head}")
    before = cli("show", f"build/bun#lockfile-drift-on-ci@{first}")
    assert before.code == 1 and first in before.err
    now = cli("show", "build/bun#no-such-entry")
    assert now.code == 1 and " at " not in now.err


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("queue.batch", "0", "must be at least 1 (got 0)"),
        ("queue.max_attempts", "0", "must be at least 1 (got 0)"),
        ("wiki.profile_max", "0", "must be at least 1 (got 0)"),
        ("prompt.budget", "0", "must be at least 1 (got 0)"),
        ("capture.output_head", "0", "must be at least 1 (got 0)"),
        ("capture.output_tail", "0", "must be at least 1 (got 0)"),
        ("capture.snapshot_max", "0", "must be at least 1 (got 0)"),
        ("model.timeout", "0", "must be more than 0 (got 0)"),
        ("model.timeout", "nan", "expected a finite number"),
        ("review.max_remove_share", "1.5", "must be at most 1 (got 1.5)"),
        ("review.max_remove_share", "-0.1", "must not be negative (got -0.1)"),
        ("hook.linger", "-1", "must not be negative (got -1)"),
        ("queue.batch", "2.5", "expected a whole number (got 2.5)"),
    ],
)
def test_config_set_refuses_numbers_out_of_range(
    workspace: Path, cli, key: str, value: str, message: str
) -> None:
    result = cli("config", "set", "--", key, value)  # `--`: "-1" is a value, not an option
    assert result.code == 1 and result.err.count("\n") == 1
    assert result.err == f"wikimem: error: config set: {key}: {message}\n"
    assert not (workspace / ".clarvis" / "config.toml").exists()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hook.linger", "0"),
        ("model.max_retries", "0"),
        ("review.max_remove_share", "0"),
        ("review.max_remove_share", "1"),
        ("queue.batch", "1"),
        ("model.timeout", "0.5"),
    ],
)
def test_zero_and_the_edges_stay_valid_where_they_mean_something(
    workspace: Path, cli, key: str, value: str
) -> None:
    assert cli("config", "set", key, value).code == 0
    assert float(cli("config", "get", key).out.split()[0]) == float(value)


def test_config_files_and_environment_are_checked_naming_where_the_value_came_from(
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = workspace / ".clarvis" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text("[queue]\nbatch = 0\n")
    result = cli("status")
    assert result.code == 1
    assert result.err == (f"wikimem: error: {path}: queue.batch: must be at least 1 (got 0)\n")
    path.write_text("[queue]\nbatch = true\n")
    assert "queue.batch: expected a number" in cli("status").err
    path.write_text("[review]\nmax_remove_share = 2.0\n")
    assert f"{path}: review.max_remove_share: must be at most 1" in cli("config").err
    path.unlink()
    monkeypatch.setenv("WIKIMEM_LINGER", "-5")
    result = cli("config", "get", "hook.linger")
    assert result.code == 1
    assert (
        result.err == "wikimem: error: WIKIMEM_LINGER: hook.linger: must not be negative (got -5)\n"
    )


# -- well-formed requests that cannot be met, and files that cannot be used: 1, not 2 ----------


def one_error(result, code: int, says: str) -> None:  # type: ignore[no-untyped-def]
    assert result.code == code, result.err
    assert result.err.startswith("wikimem: error: ") and result.err.count("\n") == 1
    assert says in result.err and "unexpected" not in result.err


def test_undo_of_a_commit_off_the_branch_or_of_nothing_is_a_failure(
    learned, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikimem.wiki.history import WikiRepo

    places, _ = learned
    wiki = places.wiki
    head = git("rev-parse", "HEAD", cwd=wiki).strip()
    first = git("rev-list", "--max-parents=0", "HEAD", cwd=wiki).strip()
    one_error(cli("undo", first), 1, "cannot undo the wiki's first commit")
    side = git("commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "Side", cwd=wiki).strip()
    one_error(cli("undo", side), 1, f"{side[:12]} is not in the history of the wiki's current")
    # git's path-limited log already hides commits that change nothing in the wiki: a guard
    monkeypatch.setattr(WikiRepo, "changed_paths", lambda self, rev: [])
    one_error(cli("undo", head), 1, "changed nothing in the wiki")
    assert git("rev-parse", "HEAD", cwd=wiki).strip() == head  # nothing was committed


def test_a_commit_missing_from_a_pages_history_is_not_found(learned) -> None:
    from wikimem.errors import NotFound
    from wikimem.lifecycle.undo import later_commits
    from wikimem.wiki.workspace import open_repo

    places, settings = learned
    side = git("commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "Side", cwd=places.wiki).strip()
    with pytest.raises(NotFound, match="is not in the history") as missing:
        later_commits(open_repo(places, settings), "build/bun/MEMORY.md", side)
    assert missing.value.exit_code == 1


def test_approving_a_job_that_is_not_held_is_a_failure(learned, cli) -> None:
    one_error(cli("queue", "approve", "nope"), 1, "no single held job matches 'nope'")


def test_an_eval_corpus_that_cannot_be_used_is_a_failure(workspace: Path, cli) -> None:
    one_error(cli("eval", "--cases", str(workspace / "missing.jsonl")), 1, "cannot read eval cases")
    bad = workspace / "cases.jsonl"
    bad.write_text("{not json\n")
    one_error(cli("eval", "--cases", str(bad), "--offline"), 1, "eval cases line 1: not JSON")
    bad.write_text('{"id": "x", "category": "weird", "run": {}, "expect": {"change": false}}\n')
    one_error(cli("eval", "--cases", str(bad), "--offline"), 1, "unknown category 'weird'")
    assert cli("eval", "--category", "weird", "--offline").code == 2  # the option is wrong


@pytest.mark.parametrize(
    ("runner", "option", "name", "text", "says"),
    [
        ("claude", "--settings", "settings.json", '{"hooks": []}', '"hooks" is not an object'),
        (
            "claude",
            "--settings",
            "settings.json",
            '{"hooks": {"Stop": {}}}',
            '"hooks.Stop" is not a list',
        ),
        ("claude", "--settings", "settings.json", "[1, 2]", "does not hold a JSON object"),
        ("codex", "--config", "config.toml", "notify = [", "is not valid TOML"),
    ],
)
def test_install_into_a_settings_file_it_cannot_edit_is_a_failure(
    workspace: Path, cli, runner: str, option: str, name: str, text: str, says: str
) -> None:
    target = workspace / name
    target.write_text(text)
    one_error(cli("install", runner, option, str(target)), 1, says)
    assert target.read_text() == text


def test_a_workspace_variable_naming_no_folder_is_a_failure_and_a_wrong_c_is_usage(
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = workspace / "gone"
    one_error(cli("-C", str(missing), "status"), 2, f"workspace {missing} is not a folder")
    monkeypatch.setenv("WIKIMEM_WORKSPACE", str(missing))
    one_error(cli("status"), 1, f"WIKIMEM_WORKSPACE={missing} is not a folder")
    assert cli("-C", str(workspace), "status").code == 0  # -C wins over the variable
    done = run_wikimem("status", cwd=workspace)
    assert done.returncode == 1 and b"WIKIMEM_WORKSPACE=" in done.stderr


def test_the_global_folder_follows_the_home_of_the_environment_it_is_given() -> None:
    from wikimem import config

    assert config.global_dir({"HOME": "/home/hook"}) == Path("/home/hook/.clarvis")
    assert config.global_dir({"HOME": "/home/hook", "WIKIMEM_HOME": "~/memory"}) == Path(
        "/home/hook/memory"
    )
    assert config.global_dir({"HOME": "/home/hook", "WIKIMEM_HOME": "/srv/w"}) == Path("/srv/w")


def test_commands_know_where_they_are(
    workspace: Path, isolated_env: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the wiki folder, from HOME and from a loose folder."""
    assert cli("init").code == 0
    wiki = workspace / ".clarvis" / "memory"
    # inside the wiki (its own .git) and the state: the workspace, never a wiki in the wiki
    for inside in (wiki, wiki / "PROFILE.md", workspace / ".clarvis" / "state"):
        folder = inside if inside.is_dir() else inside.parent
        folder.mkdir(parents=True, exist_ok=True)
        monkeypatch.chdir(folder)
        shown = cli("status")
        assert shown.code == 0 and f"workspace  {workspace}" in shown.out
    # HOME holds the global folder: no workspace, and read commands say so (exit 1)
    (isolated_env / ".clarvis").mkdir(exist_ok=True)
    loose = isolated_env / "notes"
    loose.mkdir()
    # the global folder beside a workspace's marker is not one, HOME itself is no project
    (isolated_env / ".git").mkdir()
    for folder in (isolated_env, loose):
        monkeypatch.chdir(folder)
        for command in (["status"], ["log"], ["verify"], ["export"]):
            done = cli(*command)
            assert done.code == 1 and "in no workspace" in done.err, command
        paused = cli("pause")
        assert paused.code == 1 and not (folder / ".clarvis" / "state").exists()
        set_here = cli("config", "set", "queue.batch", "2")
        assert set_here.code == 1
    monkeypatch.chdir(isolated_env)  # HOME: `init` would make a wiki inside the global folder
    refused = cli("init")
    assert refused.code == 2 and "is the global folder" in refused.err
    assert not (isolated_env / ".clarvis" / "memory-policy.md").exists()
    assert not (isolated_env / ".clarvis" / "memory").exists()
    # a hook in a folder of no project records nothing, says so once, exits 0
    monkeypatch.chdir(loose)
    hooked = subprocess.run(
        [sys.executable, "-m", "wikimem", "hook", "-q"],
        input=b'{"run_id": "r", "task": "t", "result": "x"}',
        capture_output=True,
        cwd=loose,
    )
    assert hooked.returncode == 0 and hooked.stderr.decode().count("\n") == 1
    assert "not in a project" in hooked.stderr.decode() and not (loose / ".clarvis").exists()
    # in the workspace, `config set` writes the workspace's file and says which
    monkeypatch.chdir(workspace)
    written = cli("config", "set", "queue.batch", "2")
    assert written.code == 0 and str(workspace / ".clarvis" / "config.toml") in written.out


def test_purge_answered_no_purges_nothing_and_exits_1(workspace: Path, cli) -> None:
    places, settings = setup(workspace)
    learn(places, settings, "run-1", BUN)
    assert cli("forget", "build/bun").code == 0
    import wikimem.cli.recall as recall_cli

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(recall_cli.click, "confirm", lambda *a, **k: False)
        done = cli("purge")
    assert done.code == 1 and "nothing purged" in done.err
    assert "build/bun" in cli("trash").out


def test_bare_wikimem_is_help_in_sections_and_exits_zero(workspace: Path) -> None:
    result = run_wikimem(cwd=workspace)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    sections = ["Daily commands:", "Wiki care:", "Agent runners:", "Plumbing:"]
    assert [out.index(s) for s in sections] == sorted(out.index(s) for s in sections)
    daily = out[out.index("Daily commands:") : out.index("Wiki care:")]
    assert "  show " in daily and "  enqueue " not in daily
    assert "  enqueue " in out[out.index("Plumbing:") :]


def test_a_mistyped_command_is_one_line_with_a_suggestion(workspace: Path) -> None:
    result = run_wikimem("shwo", cwd=workspace)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.count("\n") == 1 and "Did you mean `show`?" in err


@pytest.mark.parametrize(
    "args",
    [("index",), ("queue",), ("trash",), ("context",), ("status",), ("config",), ("show",)],
    ids=" ".join,
)
def test_outside_a_workspace_a_command_exits_1_and_makes_nothing(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    result = run_wikimem(*args, cwd=loose)
    err = result.stderr.decode()
    assert result.returncode == 1 and "is in no workspace" in err and err.count("\n") == 1
    assert list(loose.iterdir()) == []  # no .clarvis/state left in a loose folder


def test_outside_a_workspace_the_global_config_and_help_still_work(tmp_path: Path) -> None:
    assert run_wikimem("config", "--global", "get", "queue.batch", cwd=tmp_path).returncode == 0
    assert run_wikimem("index", "--help", cwd=tmp_path).returncode == 0
    assert run_wikimem("schema", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("runner", ["claude", "gemini", "cursor", "copilot", "opencode"])
def test_outside_a_workspace_a_project_install_exits_1_and_writes_nothing(
    tmp_path: Path, runner: str
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    result = run_wikimem("install", runner, cwd=loose)
    err = result.stderr.decode()
    assert result.returncode == 1 and "is in no workspace" in err and err.count("\n") == 1
    assert list(loose.iterdir()) == []  # no hook file a loose folder would never use
    elsewhere = tmp_path / "hooks.json"  # an explicit file needs no workspace
    option = "--plugin" if runner == "opencode" else "--settings"
    assert run_wikimem("install", runner, option, str(elsewhere), cwd=loose).returncode == 0
