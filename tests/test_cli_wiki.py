"""The wiki's own commands as a person meets them: init, show, lint, log; and the git contract."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, git, run_wikimem

FIXTURES = Path(__file__).parent / "fixtures" / "wiki"


def test_init_in_empty_folder_then_show(workspace: Path, cli) -> None:
    result = cli("init")
    assert result.code == 0 and "PROFILE.md" in result.out
    assert (workspace / ".clarvis/memory/.git").is_dir()
    assert "Memory policy" in (workspace / ".clarvis/memory-policy.md").read_text()
    shown = cli("show")
    assert shown.code == 0 and "<!-- wikimem:begin -->" in shown.out
    log = git("log", "--format=%s%n%an", cwd=workspace / ".clarvis/memory")
    assert log.splitlines() == ["Start the wiki", "wikimem"]


def test_init_twice_changes_nothing(workspace: Path, cli) -> None:
    cli("init")
    wiki = workspace / ".clarvis/memory"
    before = {
        p: p.read_bytes()
        for p in workspace.rglob("*")
        if p.is_file() and ".git/" not in str(p) and "state" not in p.parts
    }
    head = git("rev-parse", "HEAD", cwd=wiki)
    again = cli("init")
    assert again.code == 0 and "already set up" in again.out
    after = {p: p.read_bytes() for p in before}
    assert after == before and git("rev-parse", "HEAD", cwd=wiki) == head


def test_init_inside_git_repo_leaves_status_and_index_alone(tmp_path: Path) -> None:
    repo = tmp_path / "project"
    (repo / "sub").mkdir(parents=True)
    git("init", "-q", cwd=repo)
    (repo / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=repo)
    git("commit", "-qm", "init", cwd=repo)
    (repo / "b.txt").write_text("b\n")
    git("add", "b.txt", cwd=repo)
    (repo / "a.txt").write_text("changed\n")
    status = git("status", "--porcelain", cwd=repo)
    index = (repo / ".git/index").read_bytes()
    proc = run_wikimem("init", cwd=repo / "sub")  # found upward through .git
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".clarvis/memory/PROFILE.md").exists()
    assert run_wikimem("show", cwd=repo).returncode == 0
    assert git("status", "--porcelain", cwd=repo) == status
    assert (repo / ".git/index").read_bytes() == index


def copy_fixture_wiki(workspace: Path) -> Path:
    wiki = workspace / ".clarvis" / "memory"
    shutil.copytree(FIXTURES, wiki)
    return wiki


def test_show_topic_leaf_entry_json_and_raw(workspace: Path, cli) -> None:
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    text = (
        "---\ntitle: Bun\nsummary: Bun rules.\ntype: procedural\nupdated: 2026-11-28\n---\n"
        "# Bun\n\n## Bun version is pinned\n\nPinned to 1.1.30.\n\n## Building locally\n\n"
        "```sh\nbun run build\n## not a heading\n```\n"
    )
    leaf.write_text(text)
    assert cli("show", "build/bun", "--raw").out == text
    entry = cli("show", "build/bun#bun-version-is-pinned")
    assert entry.out.startswith("## Bun version is pinned") and "Building" not in entry.out
    data = json.loads(cli("show", "build/bun", "--json").out)
    assert [e["id"] for e in data["entries"]] == ["bun-version-is-pinned", "building-locally"]
    assert data["meta"]["summary"] == "Bun rules."


def test_show_missing_path_suggests_nearest(workspace: Path, cli) -> None:
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("---\ntitle: Bun\nsummary: s\n---\n# Bun\n")
    result = cli("show", "build/bum")
    assert result.code == 1 and "did you mean: build/bun" in result.err
    assert "Traceback" not in result.err
    bad = cli("show", "../etc/passwd")
    assert bad.code == 2 and "not a wiki path" in bad.err


def test_show_before_init_is_one_clear_line(workspace: Path, cli) -> None:
    result = cli("show")
    assert result.code == 1 and result.err.count("\n") == 1 and "wikimem init" in result.err


def test_lint_reports_problems_as_file_line_and_exits_1(workspace: Path, cli) -> None:
    cli("init")
    wiki = workspace / ".clarvis/memory"
    (wiki / "Bad_Topic").mkdir()
    leaf = wiki / "build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("# Bun\n\nSee [missing](../nope/MEMORY.md).\n\n## One\n\ntext\n")
    result = cli("lint")
    lines = result.out.splitlines()
    assert result.code == 1
    assert (
        ".clarvis/memory/build/bun/MEMORY.md:1: page has no frontmatter [no-frontmatter]" in lines
    )
    assert ".clarvis/memory/build/bun/MEMORY.md:1: leaf has no summary [no-summary]" in lines
    assert (
        ".clarvis/memory/build/bun/MEMORY.md:3: broken link to ../nope/MEMORY.md [broken-link]"
        in lines
    )
    assert any("Bad_Topic:1: folder name is not a lowercase slug" in x for x in lines)
    assert any("build/TOPIC.md:1: topic has no TOPIC.md" in x for x in lines)


def test_lint_reports_a_badly_named_folder_and_the_problems_of_the_leaf_inside(
    workspace: Path, cli
) -> None:
    cli("init")
    wiki = workspace / ".clarvis/memory"
    broken = wiki / "Build Tools" / "bun" / "MEMORY.md"  # topic folder with a capital and a space
    broken.parent.mkdir(parents=True)
    broken.write_text("---\ntitle: [Bun\nsummary: Bun rules.\n---\n# Bun\n\n## One\n\ntext\n")
    twice = wiki / "build" / "Bun Cache" / "MEMORY.md"  # leaf folder with a capital and a space
    twice.parent.mkdir(parents=True)
    twice.write_text(
        "---\ntitle: Cache\nsummary: Cache rules.\n---\n# Cache\n\n"
        "## Cache key\n\nThe lockfile hash.\n\n## Cache key\n\nPer OS.\n"
    )
    result = cli("lint")
    lines = [line.removeprefix(".clarvis/memory/") for line in result.out.splitlines()]
    assert result.code == 1
    assert "Build Tools:1: folder name is not a lowercase slug [not-a-slug]" in lines
    assert "build/Bun Cache:1: folder name is not a lowercase slug [not-a-slug]" in lines
    assert any(
        line.startswith("Build Tools/bun/MEMORY.md:1: frontmatter is not valid YAML")
        for line in lines
    ), lines
    assert any(
        line.startswith("build/Bun Cache/MEMORY.md:11: duplicate entry id 'cache-key'")
        for line in lines
    ), lines


def test_lint_json_names_rule_file_line_and_message(workspace: Path, cli) -> None:
    cli("init")
    assert cli("lint", "--json").code == 0 and json.loads(cli("lint", "--json").out) == []
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("---\ntitle: Bun\n---\n# Bun\n\nSee [gone](../gone/MEMORY.md).\n")
    result = cli("lint", "--json")
    assert result.code == 1
    problems = json.loads(result.out)
    assert {"rule", "level", "file", "line", "message", "fix"} == set(problems[0])
    found = {(p["rule"], p["file"], p["line"]) for p in problems}
    assert ("no-summary", ".clarvis/memory/build/bun/MEMORY.md", 1) in found
    assert ("broken-link", ".clarvis/memory/build/bun/MEMORY.md", 6) in found
    assert ("no-topic-page", ".clarvis/memory/build/TOPIC.md", 1) in found
    from wikimem.wiki.lint import RULES

    assert {p["rule"] for p in problems} <= set(RULES)


def test_lint_reports_symlinked_and_unreadable_pages_and_goes_on(
    workspace: Path, cli, tmp_path: Path
) -> None:
    cli("init")
    wiki = workspace / ".clarvis/memory"
    outside = tmp_path / "outside.md"
    outside.write_text("---\ntitle: Secret\nsummary: not ours.\n---\n# Secret\n")
    (wiki / "build/out").mkdir(parents=True)
    (wiki / "build/out/MEMORY.md").symlink_to(outside)
    (wiki / "build/loop").mkdir()
    (wiki / "build/loop/MEMORY.md").symlink_to("MEMORY.md")  # a loop: reading it fails
    (wiki / "build/elsewhere").symlink_to(tmp_path, target_is_directory=True)
    huge = wiki / "build/huge/MEMORY.md"
    huge.parent.mkdir()
    huge.write_text("---\ntitle: Huge\nsummary: big.\n---\n# Huge\n\n" + "x" * 2_100_000)
    after = wiki / "build/zz-after/MEMORY.md"  # checked after all of them
    after.parent.mkdir()
    after.write_text("# After\n")
    result = cli("lint", "--json")
    assert result.code == 1 and "Traceback" not in result.err and result.err == ""
    found = {
        (p["rule"], p["file"].removeprefix(".clarvis/memory/")) for p in json.loads(result.out)
    }
    assert ("symlink", "build/out/MEMORY.md") in found
    assert ("symlink", "build/loop/MEMORY.md") in found
    assert ("symlink", "build/elsewhere") in found
    assert ("unreadable", "build/huge/MEMORY.md") in found
    assert ("no-frontmatter", "build/zz-after/MEMORY.md") in found
    assert not any("Secret" in p["message"] for p in json.loads(result.out))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a page whatever its mode")
def test_lint_reports_a_page_it_may_not_read(workspace: Path, cli) -> None:
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("---\ntitle: Bun\nsummary: s.\n---\n# Bun\n")
    leaf.chmod(0)
    try:
        result = cli("lint")
    finally:
        leaf.chmod(0o644)
    assert result.code == 1
    assert ".clarvis/memory/build/bun/MEMORY.md:1: cannot read: Permission denied [unreadable]" in (
        result.out.splitlines()
    )


def test_lint_clean_wiki_exits_0_and_fix_recompiles(workspace: Path, cli) -> None:
    cli("init")
    assert cli("lint").code == 0
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("---\ntitle: Bun\nsummary: Bun rules.\n---\n# Bun\n\n## One\n\ntext\n")
    assert cli("lint").code == 1
    fixed = cli("lint", "--fix")
    assert fixed.code == 0, fixed.out
    subjects = git("log", "--format=%s", cwd=workspace / ".clarvis/memory").splitlines()
    assert subjects[:2] == ["Recompile topics and profile", "Edit the wiki by hand"]


def test_recompile_keeps_hand_written_text_outside_markers(workspace: Path, cli) -> None:
    wiki = copy_fixture_wiki(workspace)
    topic = wiki / "build" / "TOPIC.md"
    before = topic.read_text()
    outside = before.split("<!-- wikimem:end -->")[1]
    assert outside.strip()  # the fixture has hand-written text below the markers
    assert cli("lint", "--fix").code in (0, 1)
    after = topic.read_text()
    assert after.split("<!-- wikimem:end -->")[1] == outside
    assert (
        after.split("<!-- wikimem:begin -->")[0].split("updated:")[0]
        == before.split("<!-- wikimem:begin -->")[0].split("updated:")[0]
    )


def test_person_edits_are_committed_separately_before_wikimem(workspace: Path, cli) -> None:
    cli("init")
    profile = workspace / ".clarvis/memory/PROFILE.md"
    profile.write_text(profile.read_text().replace("# ws", "# ws\n\nRelease train: Thursdays."))
    cli("lint", "--fix")
    wiki = workspace / ".clarvis/memory"
    rows = git("log", "--format=%an|%s", cwd=wiki).splitlines()
    assert "Ada Person|Edit the wiki by hand" in rows
    assert "Release train: Thursdays." in profile.read_text()
    assert git("status", "--porcelain", cwd=wiki) == ""


def test_log_of_wiki_and_page(workspace: Path, cli) -> None:
    from tests.test_pipeline import rich_run

    cli("init")
    source = workspace / "run.json"
    source.write_text(json.dumps(rich_run()))
    assert cli("enqueue", str(source)).code == 0
    assert cli("index").code == 0
    whole = cli("log").out.splitlines()
    assert len(whole) == 2 and "run run-1" in whole[0]
    page = cli("log", "build/bun", "--json")
    rows = json.loads(page.out)
    assert len(rows) == 1 and rows[0]["runs"] == ["run-1"]


def test_workspace_mode_commits_into_project_repo(tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=repo)
    git("commit", "-qm", "init", cwd=repo)
    git("checkout", "-qb", "feature", cwd=repo)
    (repo / "staged.txt").write_text("s\n")
    git("add", "staged.txt", cwd=repo)
    assert run_wikimem("config", "set", "wiki.commit_into", "workspace", cwd=repo).returncode == 0
    proc = run_wikimem("init", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=repo).strip() == "feature"
    assert git("log", "-1", "--format=%s", cwd=repo).strip() == "Start the wiki"
    assert git("diff", "--cached", "--name-only", cwd=repo).split() == ["staged.txt"]
    assert not (repo / ".clarvis/memory/.git").exists()


def test_errors_are_one_line_with_usage_exit_code(workspace: Path, cli) -> None:
    result = cli("show", "--nope")
    assert result.code == 2 and "Traceback" not in result.err
    assert result.err.count("\n") == 1 and "wikimem show --help" in result.err
    bad = cli("config", "set", "model.timeout", "soon")
    assert bad.code == 1 and "model.timeout" in bad.err and bad.err.count("\n") == 1
    assert "expected a number (got 'soon')" in bad.err
    # a negative number is a value the bounds refuse, not an unknown option
    negative = cli("config", "set", "queue.batch", "-1")
    assert (
        negative.code == 1
        and "queue.batch" in negative.err
        and "No such option" not in negative.err
    )
    unknown = cli("config", "set", "nope.key", "1")
    assert unknown.code == 2


@pytest.mark.slow
def test_wheel_ships_templates_and_renders_each(tmp_path: Path) -> None:
    """A plain (non-editable) install must find its templates."""
    out = tmp_path / "dist"
    # hatchling comes with the test extra: building in this environment needs no network
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    wheel = next(out.glob("wikimem-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    templates = sorted(n for n in names if n.startswith("wikimem/templates/"))
    assert "wikimem/templates/commit.j2" in templates
    assert any(n.startswith("wikimem/data/runs/") for n in names)
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    script = (
        "import wikimem.wiki.render as r, sys; "
        "assert r.packaged_dir() == r.PACKAGED, r.packaged_dir(); "
        "names = r.template_names(); print(len(names)); "
        "[r.environment(None).get_template(n) for n in names]"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) == len(templates)


def test_context_json_is_format_json(workspace: Path, cli) -> None:
    cli("init")
    as_json = cli("context", "--json")
    assert as_json.code == 0 and json.loads(as_json.out)
    assert as_json.out == cli("context", "--format", "json").out


def test_lint_warns_on_dates_and_fails_on_them_only_when_strict(workspace: Path, cli) -> None:
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text(
        "---\ntitle: Bun\nsummary: Bun rules.\nreview-by: 2001-01-01\n---\n# Bun\n\n"
        "## Old pin\n<!-- expires: 2002-02-02 -->\n\nPinned once.\n"
    )
    assert cli("lint", "--fix").code == 0
    result = cli("lint")
    assert result.code == 0, result.out  # time passing does not fail a commit
    assert "warning: leaf due for review (review-by: 2001-01-01" in result.out
    assert "[review-due]" in result.out
    strict = cli("lint", "--strict")
    assert strict.code == 1 and strict.out == result.out
    levels = {p["rule"]: p["level"] for p in json.loads(cli("lint", "--json").out)}
    assert levels["review-due"] == "warning"


def test_every_lint_problem_names_the_command_that_fixes_it(workspace: Path, cli) -> None:
    from wikimem.wiki.lint import FIXES, RULES

    assert set(FIXES) == set(RULES) and all("`" in fix for fix in FIXES.values())
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("---\ntitle: Bun\n---\n# Bun\n\n## One\n\nSee [y](./y.md).\n")
    cli("lint", "--fix")
    lines = cli("lint").out.splitlines()
    at = lines.index(".clarvis/memory/build/bun/MEMORY.md:1: leaf has no summary [no-summary]")
    assert lines[at + 1] == (
        "  fix: `$EDITOR .clarvis/memory/build/bun/MEMORY.md`: "
        "add `summary: <one line>` to its frontmatter"
    )
    fixes = {p["rule"]: p["fix"] for p in json.loads(cli("lint", "--json").out)}
    assert fixes["broken-link"].startswith("`$EDITOR .clarvis/memory/build/bun/MEMORY.md`")


def test_lint_without_a_wiki_has_nothing_to_check(workspace: Path, cli) -> None:
    result = cli("lint")
    assert result.code == 0 and "nothing to lint" in result.err
    assert not (workspace / ".clarvis/memory").exists()


def test_lint_allows_links_to_project_files_and_checks_they_exist(workspace: Path, cli) -> None:
    cli("init")
    (workspace / "src").mkdir()
    (workspace / "src/x.py").write_text("x = 1\n")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text(
        "---\ntitle: Bun\nsummary: Bun rules.\n---\n# Bun\n\n## One\n\n"
        "See [x](../../../../src/x.py), [y](../../../../src/y.py) and [out](../../../../../etc).\n"
    )
    cli("lint", "--fix")
    rules = {(p["rule"], p["message"]) for p in json.loads(cli("lint", "--json").out)}
    assert ("broken-link", "broken link to ../../../../src/y.py") in rules
    assert ("link-leaves-wiki", "link to ../../../../../etc leaves the project") in rules
    assert not any("src/x.py" in message for _, message in rules)


def _on_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run wikimem with a pseudo-terminal as stdout, as a person's shell does; what it shows."""
    import pty
    import subprocess
    import sys

    main, child = pty.openpty()
    os.set_blocking(main, True)
    full = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), **env}
    proc = subprocess.Popen(
        [sys.executable, "-m", "wikimem", *args],
        cwd=cwd,
        stdin=child,
        stdout=child,
        stderr=child,
        env=full,
    )
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(main)
    return out.decode("utf-8", "replace")


def test_show_pages_long_output_on_a_terminal_and_honours_no_pager_and_no_color(
    workspace: Path, cli, tmp_path: Path
) -> None:
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    body = "".join(f"## Step {n}\n\nline {n}\n\n" for n in range(80))
    leaf.write_text(f"---\ntitle: Bun\nsummary: Bun rules.\n---\n# Bun\n\n{body}")
    seen = tmp_path / "paged.txt"
    script = tmp_path / "pager.sh"  # a pager that keeps what it was given
    script.write_text(f"#!/bin/sh\ncat > {seen}\n")
    script.chmod(0o755)
    pager = {"PAGER": str(script), "LINES": "24", "COLUMNS": "80"}
    _on_a_terminal(["show", "build/bun"], workspace, pager)
    assert "## Step 79" in seen.read_text()  # the pager got the page
    seen.unlink()
    straight = _on_a_terminal(["--no-pager", "show", "build/bun"], workspace, pager)
    assert not seen.exists() and "## Step 79" in straight
    assert "\x1b[" in straight  # headings styled on a terminal
    plain = _on_a_terminal(
        ["--no-pager", "show", "build/bun"], workspace, {**pager, "NO_COLOR": "1"}
    )
    assert "## Step 79" in plain and "\x1b[" not in plain
    flagged = _on_a_terminal(["--no-pager", "--no-color", "show", "build/bun"], workspace, pager)
    assert "\x1b[" not in flagged


def test_completion_script_and_wiki_paths_complete(workspace: Path, cli) -> None:
    from tests.conftest import run_wikimem

    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text(
        "---\ntitle: Bun\nsummary: Bun rules.\n---\n# Bun\n\n## Pin bun\n\nx\n\n## Port\n\ny\n"
    )
    for shell in ("bash", "zsh", "fish"):
        script = run_wikimem("completion", shell, cwd=workspace)
        assert script.returncode == 0 and b"_WIKIMEM_COMPLETE" in script.stdout

    def complete(*words: str) -> list[str]:
        env = {
            "COMP_WORDS": " ".join(("wikimem", *words)),
            "COMP_CWORD": str(len(words)),
            "_WIKIMEM_COMPLETE": "bash_complete",
        }
        out = run_wikimem(cwd=workspace, env=env).stdout.decode()
        return [line.split(",", 1)[1] for line in out.splitlines() if "," in line]

    assert complete("show", "bu") == ["build", "build/bun"]
    assert complete("show", "build/bun#p") == ["build/bun#pin-bun", "build/bun#port"]
    assert complete("forget", "nothing") == []
    assert "show" in complete("sh")


def test_a_long_lint_report_is_paged_on_a_terminal(workspace: Path, cli, tmp_path: Path) -> None:
    cli("init")
    leaf = workspace / ".clarvis/memory/build/bun/MEMORY.md"
    leaf.parent.mkdir(parents=True)
    links = "".join(f"[l{n}](./gone-{n}.md)\n" for n in range(30))
    leaf.write_text(f"---\ntitle: Bun\nsummary: Bun rules.\n---\n# Bun\n\n## One\n\n{links}")
    cli("lint", "--fix")
    seen = tmp_path / "paged.txt"
    script = tmp_path / "pager.sh"
    script.write_text(f"#!/bin/sh\ncat > {seen}\n")
    script.chmod(0o755)
    _on_a_terminal(["lint"], workspace, {"PAGER": str(script), "LINES": "24"})
    assert "broken link to ./gone-29.md [broken-link]" in seen.read_text()
    assert cli("lint").out.count("[broken-link]") == 30  # a pipe: printed straight
