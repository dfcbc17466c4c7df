"""The SessionStart context: the same profile and entries `wikimem context` gives, read without
a Markdown parser or an index refresh, stale entries left out, hints from the workspace."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import git
from wikimem.recall.context import profile_text, relevant
from wikimem.recall.search import SearchIndex
from wikimem.recall.start import (
    budget_for,
    current_branch,
    hints,
    indexed,
    profile_summary,
    recent_task,
    start_context,
)

WIKI = Path(__file__).parent / "fixtures" / "wiki"


@pytest.mark.parametrize(
    "frontmatter",
    [
        "title: acme-web\nsummary: Web shop front end.\nupdated: 2026-11-28\n",
        "title: 'acme: web'\nsummary: \"quoted, with: a colon\"\n",
        "title: null\nsummary: [a, list]\n",
        "summary: no title here # a comment\n",
        "title: acme\nsummary: >\n  folded\n  text\n",
    ],
)
def test_the_profile_reads_as_wikimem_context_prints_it(tmp_path: Path, frontmatter: str) -> None:
    assert profile_summary(WIKI) == profile_text(WIKI)
    assert profile_summary(tmp_path) == profile_text(tmp_path)  # no PROFILE.md yet
    body = "# Heading\n\n<!-- wikimem:begin -->\n## Topics\n\n- build\n<!-- wikimem:end -->\n"
    (tmp_path / "PROFILE.md").write_text(f"---\n{frontmatter}---\n{body}")
    assert profile_summary(tmp_path) == profile_text(tmp_path)


def test_entries_from_the_index_are_those_context_reads_from_the_pages(tmp_path: Path) -> None:
    wiki = tmp_path / "memory"
    shutil.copytree(WIKI, wiki)
    index_file = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index_file) as index:
        expected = relevant(wiki, index, "pytest flaky")

    assert indexed(index_file, "pytest flaky") == expected
    leaf = wiki / "deploy" / "terraform" / "MEMORY.md"  # a head that is only its title
    leaf.parent.mkdir()
    leaf.write_text(
        "---\ntitle: Terraform\nsummary: State and plans.\ntype: procedural\n"
        "updated: 2026-11-28\n---\n# Terraform\n\n## State lock\n\nRun `terraform force-unlock`"
        " only when no apply is running.\n\n## Plans\n\nAlways plan before apply.\n"
    )
    with SearchIndex(wiki, index_file) as index:
        expected = relevant(wiki, index, "terraform")
    found = [e.source for e in expected[0] if e.path == "deploy/terraform"]
    assert "deploy/terraform#state-lock" in found and "deploy/terraform" not in found  # once
    assert indexed(index_file, "terraform") == expected
    assert expected[0]  # the query finds something, so the comparison means something
    assert indexed(tmp_path / "missing.sqlite", "pytest flaky") == ([], False)
    (tmp_path / "broken.sqlite").write_bytes(b"not a database")
    assert indexed(tmp_path / "broken.sqlite", "pytest flaky") == ([], False)


def test_start_context_stays_within_the_budget_and_drops_stale_entries(tmp_path: Path) -> None:
    wiki = tmp_path / ".clarvis" / "memory"
    shutil.copytree(WIKI, wiki)
    index_file = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index_file) as index:
        index.refresh()
    (tmp_path / "package.json").write_text('{"scripts": {"dev": "vite"}}')  # no build script

    built = start_context(wiki, tmp_path, index_file, "bun build", 3000)

    assert len(built.text) <= 3000
    assert built.stale and all(s.startswith("build/bun") for s in built.stale)
    assert "bun run build" not in built.text
    assert "whose citations no longer match the workspace" in built.text
    for budget in (0, 10, 200, 800):
        assert len(start_context(wiki, tmp_path, index_file, "bun build", budget).text) <= budget


def test_hints_come_from_the_branch_and_the_newest_run(tmp_path: Path) -> None:
    git("init", "-q", "-b", "fix/web_build", cwd=tmp_path)
    queue = tmp_path / "queue"
    (queue / "done").mkdir(parents=True)
    (queue / "done" / "a.json").write_text(json.dumps({"run": {"task": "Pin bun"}}))

    assert current_branch(tmp_path) == "fix/web_build"
    assert recent_task(queue) == "Pin bun"
    assert (
        hints({"prompt": "why is CI red"}, tmp_path, queue) == "why is CI red fix web build Pin bun"
    )
    git("checkout", "-q", "-b", "main", cwd=tmp_path)
    assert hints({}, tmp_path, tmp_path / "no-queue") == ""


def test_a_worktree_s_branch_is_read_through_its_git_file(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git("init", "-q", "-b", "main", cwd=main)
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=main)
    git("worktree", "add", "-q", "-b", "feature/x", str(tmp_path / "wt"), cwd=main)

    assert current_branch(tmp_path / "wt") == "feature/x"
    assert current_branch(tmp_path / "nowhere") is None


def test_a_resumed_session_gets_the_smaller_budget() -> None:
    assert budget_for("resume", 6000, 1500) == 1500
    assert [budget_for(s, 6000, 1500) for s in ("startup", "clear", "compact", None)] == [6000] * 4


def test_no_entry_twice_and_no_expired_entry_quoted(tmp_path: Path) -> None:
    wiki = tmp_path / "memory"
    leaf = wiki / "build" / "bun" / "MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text(
        "---\ntitle: Bun\nsummary: Bun lockfile rules.\ntype: procedural\nupdated: 2026-11-28\n"
        "---\n# Bun\n\n## Old lockfile advice\n\n<!-- wikimem: expires=2020-01-01 -->\n\n"
        "Delete bun.lockb when the lockfile breaks.\n\n## Lockfile drift on CI\n\n"
        "Run `bun install` and commit the lockfile.\n"
    )
    index_file = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index_file) as index:
        expected, _ = relevant(wiki, index, "bun lockfile")

    found, _ = indexed(index_file, "bun lockfile")

    assert found == expected
    sources = [e.source for e in found]
    assert sources == ["build/bun#lockfile-drift-on-ci"]  # the leaf's summary would repeat it
    assert not any("Delete bun.lockb" in e.body for e in found)
    only_leaf, _ = indexed(index_file, "rules")  # the leaf alone: it quotes a live entry
    assert [e.source for e in only_leaf] == ["build/bun"]
    assert "Lockfile drift on CI" in only_leaf[0].body and "Delete" not in only_leaf[0].body
