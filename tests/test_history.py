"""Tests for wikimem.history on real temporary git repositories."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from wikimem.errors import HistoryError, NotFound
from wikimem.wiki import history
from wikimem.wiki.history import WIKIMEM, Identity, WikiRepo

MESSAGE = (
    "Record the bun lockfile fix\n"
    "\n"
    "Adds one entry to build/bun.\n"
    "\n"
    "Wikimem-Run: ci-4411-1\n"
    "Wikimem-Run: ci-4411-2\n"
    "Wikimem-Agent: claude-code\n"
)
HOOKS = (
    "pre-commit",
    "commit-msg",
    "prepare-commit-msg",
    "post-commit",
    "reference-transaction",
    "post-index-change",
)


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
    ):
        monkeypatch.delenv(var, raising=False)
    return home


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def person_repo(folder: Path) -> Path:
    """A workspace repository with a person's identity and one commit."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Ada Person")
    git(folder, "config", "user.email", "ada@example.org")
    write(folder / "README.md", "hello\n")
    git(folder, "add", "README.md")
    git(folder, "commit", "-q", "-m", "Start")
    return folder


def fail_hooks(git_dir: Path, marker: Path) -> None:
    for name in HOOKS:
        hook = write(git_dir / "hooks" / name, f"#!/bin/sh\necho {name} >> '{marker}'\nexit 1\n")
        hook.chmod(0o755)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return person_repo(tmp_path / "ws")


@pytest.fixture
def own(workspace: Path) -> WikiRepo:
    return WikiRepo(workspace / ".clarvis" / "memory", workspace)


@pytest.fixture
def shared(workspace: Path) -> WikiRepo:
    return WikiRepo(workspace / ".clarvis" / "memory", workspace, mode="workspace")


def test_first_commit_creates_the_wikis_own_repository(own: WikiRepo) -> None:
    assert own.head() is None and own.log() == []
    write(own.wiki / "PROFILE.md", "# Profile\n")
    write(own.wiki / "build" / "bun" / "MEMORY.md", "## Lockfile drift\n")

    sha = own.commit(MESSAGE)

    assert sha is not None and own.head() == sha
    assert (own.wiki / ".git").is_dir()
    assert git(own.wiki, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert git(own.wiki, "log", "-1", "--format=%B", sha) == MESSAGE + "\n"
    assert git(own.wiki, "log", "-1", "--format=%an <%ae>|%cn <%ce>", sha).strip() == (
        "wikimem <wikimem@localhost>|wikimem <wikimem@localhost>"
    )
    assert git(own.wiki, "rev-list", "--count", "HEAD").strip() == "1"
    [commit] = own.log(with_paths=True)
    assert (commit.sha, commit.subject, commit.author) == (
        sha,
        "Record the bun lockfile fix",
        "wikimem",
    )
    assert commit.body == "Adds one entry to build/bun."
    assert commit.trailers == {
        "Wikimem-Run": ("ci-4411-1", "ci-4411-2"),
        "Wikimem-Agent": ("claude-code",),
    }
    assert commit.paths == ("PROFILE.md", "build/bun/MEMORY.md")
    assert commit.date.startswith("20") and "T" in commit.date


def test_no_change_makes_no_commit(own: WikiRepo) -> None:
    assert own.commit(MESSAGE) is None  # an empty wiki on an unborn branch
    write(own.wiki / "PROFILE.md", "# Profile\n")
    first = own.commit(MESSAGE)

    assert own.commit("Again") is None
    assert own.commit("Again", paths=["PROFILE.md", "never/existed/MEMORY.md"]) is None
    assert own.head() == first
    assert git(own.wiki, "rev-list", "--count", "HEAD").strip() == "1"


def test_commit_stages_only_the_given_paths_including_deletions(own: WikiRepo) -> None:
    write(own.wiki / "a" / "x" / "MEMORY.md", "a\n")
    write(own.wiki / "b" / "y" / "MEMORY.md", "b\n")
    own.commit("Start")
    (own.wiki / "a" / "x" / "MEMORY.md").unlink()
    (own.wiki / "a" / "x").rmdir()
    write(own.wiki / "b" / "y" / "MEMORY.md", "b changed\n")
    write(own.wiki / "c" / "z" / "MEMORY.md", "new\n")

    sha = own.commit("Remove a/x, add c/z", paths=["a/x", "c/z/MEMORY.md"])

    assert sha is not None
    assert own.changed_paths(sha) == ["a/x/MEMORY.md", "c/z/MEMORY.md"]
    assert own.dirty_paths() == ["b/y/MEMORY.md"]
    assert git(own.wiki, "status", "--porcelain").strip() == "M b/y/MEMORY.md"


def test_dirty_paths_lists_every_kind_of_change_but_not_ignored_files(own: WikiRepo) -> None:
    write(own.wiki / ".gitignore", "*.tmp\n")
    write(own.wiki / "kept.md", "1\n")
    write(own.wiki / "gone.md", "1\n")
    write(own.wiki / "staged.md", "1\n")
    own.commit("Start")
    write(own.wiki / "kept.md", "2\n")
    (own.wiki / "gone.md").unlink()
    write(own.wiki / "staged.md", "2\n")
    git(own.wiki, "add", "staged.md")
    write(own.wiki / "deep" / "new" / "MEMORY.md", "new\n")
    write(own.wiki / "scratch.tmp", "ignored\n")

    assert own.dirty_paths() == ["deep/new/MEMORY.md", "gone.md", "kept.md", "staged.md"]


def test_person_edits_are_committed_first_and_as_the_person(
    own: WikiRepo, isolated_git: Path, workspace: Path
) -> None:
    git(workspace, "config", "--global", "user.name", "Grace Editor")
    git(workspace, "config", "--global", "user.email", "grace@example.org")
    write(own.wiki / "PROFILE.md", "# Profile\n")
    own.commit("Start")
    write(own.wiki / "PROFILE.md", "# Profile\n\nGrace was here.\n")

    person = own.commit_person_edits()
    write(own.wiki / "build" / "bun" / "MEMORY.md", "## Entry\n")
    ours = own.commit(MESSAGE, paths=["build/bun/MEMORY.md"])

    newest, theirs, _ = own.log(with_paths=True)
    assert (newest.sha, theirs.sha) == (ours, person)
    assert (theirs.author, theirs.email) == ("Grace Editor", "grace@example.org")
    assert theirs.subject == "Edit the wiki by hand" and theirs.paths == ("PROFILE.md",)
    assert newest.author == "wikimem" and newest.paths == ("build/bun/MEMORY.md",)
    assert own.commit_person_edits() is None


def test_person_without_identity_is_the_wiki_editor(own: WikiRepo) -> None:
    write(own.wiki / "notes" / "mine" / "MEMORY.md", "by hand\n")  # before any repository

    sha = own.commit_person_edits("Keep my notes")

    [commit] = own.log()
    assert commit.sha == sha and commit.subject == "Keep my notes"
    assert (commit.author, commit.email) == ("wiki editor", "editor@localhost")
    assert own.person() == Identity("wiki editor", "editor@localhost")


def test_workspace_mode_leaves_the_persons_index_and_branch_alone(
    shared: WikiRepo, workspace: Path
) -> None:
    git(workspace, "checkout", "-q", "-b", "feature")
    write(workspace / "README.md", "hello\nstaged line\n")
    git(workspace, "add", "README.md")
    write(workspace / "README.md", "hello\nstaged line\nunstaged line\n")
    write(workspace / "todo.txt", "untracked\n")
    cached_before = git(workspace, "diff", "--cached")
    old_head = git(workspace, "rev-parse", "HEAD").strip()
    shared.ensure()
    write(shared.wiki / "build" / "bun" / "MEMORY.md", "## Entry\n")
    write(shared.wiki / "PROFILE.md", "# Profile\n")

    sha = shared.commit(MESSAGE)

    assert sha == git(workspace, "rev-parse", "HEAD").strip()
    assert git(workspace, "rev-parse", "HEAD~1").strip() == old_head
    assert git(workspace, "symbolic-ref", "HEAD").strip() == "refs/heads/feature"
    assert git(workspace, "diff", "--cached") == cached_before
    assert git(workspace, "diff-tree", "-r", "--name-only", "--no-commit-id", sha).split() == [
        ".clarvis/memory/PROFILE.md",
        ".clarvis/memory/build/bun/MEMORY.md",
    ]
    assert git(workspace, "status", "--porcelain", "--", ".clarvis").strip() == ""
    assert git(workspace, "status", "--porcelain").splitlines() == ["MM README.md", "?? todo.txt"]
    assert (workspace / "README.md").read_text() == "hello\nstaged line\nunstaged line\n"
    assert shared.changed_paths(sha) == ["PROFILE.md", "build/bun/MEMORY.md"]
    assert [c.sha for c in shared.log()] == [sha]  # the person's own commits are not the wiki's


def test_workspace_mode_on_an_unborn_branch(tmp_path: Path) -> None:
    workspace = tmp_path / "fresh"
    workspace.mkdir()
    git(workspace, "init", "-q", "-b", "trunk")
    write(workspace / "app.py", "print()\n")
    git(workspace, "add", "app.py")
    repo = WikiRepo(workspace / ".clarvis" / "memory", workspace, mode="workspace")
    repo.ensure()
    assert repo.head() is None
    write(repo.wiki / "PROFILE.md", "# Profile\n")

    sha = repo.commit(MESSAGE)

    assert git(workspace, "rev-parse", "refs/heads/trunk").strip() == sha
    assert git(workspace, "rev-list", "--parents", "-n", "1", sha).split() == [sha]
    assert git(workspace, "ls-tree", "-r", "--name-only", sha).split() == [
        ".clarvis/memory/PROFILE.md"
    ]
    assert git(workspace, "status", "--porcelain").splitlines() == ["A  app.py"]


def test_workspace_mode_commits_deletions_and_large_changes(
    shared: WikiRepo, workspace: Path
) -> None:
    shared.ensure()
    for n in range(600):  # more than one batch of pathspecs: the whole-wiki staging route
        write(shared.wiki / "bulk" / f"leaf{n}" / "MEMORY.md", f"{n}\n")
    write(shared.wiki / "PROFILE.md", "# Profile\n")
    first = shared.commit("Bulk")
    (shared.wiki / "PROFILE.md").unlink()
    write(shared.wiki / "bulk" / "leaf7" / "MEMORY.md", "changed\n")

    second = shared.commit("Drop the profile")

    assert first is not None and len(shared.changed_paths(first)) == 601
    assert second is not None
    assert shared.changed_paths(second) == ["PROFILE.md", "bulk/leaf7/MEMORY.md"]
    assert git(workspace, "status", "--porcelain") == ""
    assert ".clarvis/memory/PROFILE.md" not in git(workspace, "ls-files")


@pytest.mark.parametrize("mode", ["wiki", "workspace"])
def test_no_hook_runs_or_blocks_a_commit(workspace: Path, tmp_path: Path, mode: str) -> None:
    repo = WikiRepo(workspace / ".clarvis" / "memory", workspace, mode=mode)
    repo.ensure()
    write(repo.wiki / "PROFILE.md", "# Profile\n")
    marker = tmp_path / "hooks-ran"
    fail_hooks(workspace / ".git", marker)
    if mode == "wiki":
        repo.commit("Start")
        fail_hooks(repo.wiki / ".git", marker)
    write(repo.wiki / "PROFILE.md", "# Profile\n\nMore.\n")

    sha = repo.commit(MESSAGE)

    assert sha is not None and repo.head() == sha
    assert not marker.exists()


def test_ensure_keeps_the_wiki_and_state_out_of_the_workspace_status(
    own: WikiRepo, workspace: Path
) -> None:
    own.ensure()
    write(own.wiki / "PROFILE.md", "# Profile\n")
    own.commit("Start")
    write(own.state / "queue" / "job.json", "{}\n")
    write(workspace / ".clarvis" / "memory-policy.md", "Remember builds.\n")

    own.ensure()
    own.ensure()

    exclude = (workspace / ".git" / "info" / "exclude").read_text().splitlines()
    assert exclude.count("/.clarvis/memory/") == 1 and exclude.count("/.clarvis/state/") == 1
    assert git(workspace, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        "?? .clarvis/memory-policy.md"
    ]  # the policy may be versioned with the project
    assert git(workspace, "diff", "HEAD", "--stat") == ""  # tracked files untouched


def test_switching_to_workspace_mode_stops_ignoring_the_wiki(workspace: Path) -> None:
    WikiRepo(workspace / ".clarvis" / "memory", workspace).exclude()
    shared = WikiRepo(workspace / ".clarvis" / "memory", workspace, mode="workspace")
    shared.ensure()
    write(shared.wiki / "PROFILE.md", "# Profile\n")

    assert shared.commit("Start") is not None
    exclude = (workspace / ".git" / "info" / "exclude").read_text().splitlines()
    assert "/.clarvis/memory/" not in exclude and exclude.count("/.clarvis/state/") == 1


def test_ensure_writes_the_exclude_of_a_linked_worktree(workspace: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(workspace, "worktree", "add", "-q", "-b", "side", str(linked))
    repo = WikiRepo(linked / ".clarvis" / "memory", linked)
    write(repo.wiki / "PROFILE.md", "# Profile\n")
    repo.commit("Start")

    assert (linked / ".git").is_file()
    assert "/.clarvis/memory/" in (workspace / ".git" / "info" / "exclude").read_text()
    assert git(linked, "status", "--porcelain") == ""


def test_restore_rolls_back_modified_new_and_deleted_files(own: WikiRepo) -> None:
    write(own.wiki / "a" / "x" / "MEMORY.md", "original\n")
    write(own.wiki / "a" / "gone" / "MEMORY.md", "keep me\n")
    own.commit("Start")
    write(own.wiki / "a" / "x" / "MEMORY.md", "half-written")
    write(own.wiki / "b" / "new" / "MEMORY.md", "new\n")
    (own.wiki / "a" / "gone" / "MEMORY.md").unlink()

    own.restore(["a/x/MEMORY.md", "b/new/MEMORY.md", "a/gone"])

    assert (own.wiki / "a" / "x" / "MEMORY.md").read_text() == "original\n"
    assert (own.wiki / "a" / "gone" / "MEMORY.md").read_text() == "keep me\n"
    assert not (own.wiki / "b").exists()
    assert own.dirty_paths() == []
    assert (own.wiki / ".git").is_dir()


def test_restore_before_any_commit_deletes_what_the_pass_wrote(
    shared: WikiRepo, workspace: Path
) -> None:
    write(shared.wiki / "t" / "l" / "MEMORY.md", "crashed\n")

    shared.restore(["t/l/MEMORY.md"])

    assert not (shared.wiki / "t").exists()
    assert git(workspace, "status", "--porcelain") == ""


def test_log_filters_by_wiki_path(own: WikiRepo) -> None:
    write(own.wiki / "build" / "bun" / "MEMORY.md", "1\n")
    first = own.commit("Add bun\n\nWikimem-Run: r1\n")
    write(own.wiki / "deploy" / "fly" / "MEMORY.md", "1\n")
    second = own.commit("Add fly\n\nWikimem-Run: r2\n")
    write(own.wiki / "build" / "bun" / "MEMORY.md", "2\n")
    third = own.commit("Update bun\n\nWhy it changed.\n\nWikimem-Run: r3\n")

    assert [c.sha for c in own.log("build/bun/MEMORY.md")] == [third, first]
    assert [c.sha for c in own.log("build")] == [third, first]
    assert [c.sha for c in own.log("deploy/fly")] == [second]
    assert [c.sha for c in own.log(limit=2)] == [third, second]
    newest = own.log("build", with_paths=True)[0]
    assert newest.body == "Why it changed." and newest.trailers == {"Wikimem-Run": ("r3",)}
    assert newest.paths == ("build/bun/MEMORY.md",)
    assert own.log("nothing/here") == []


def test_show_reads_a_file_at_an_old_revision_byte_for_byte(own: WikiRepo) -> None:
    write(own.wiki / "PROFILE.md", "line one\r\nline two\r\n")
    old = own.commit("Start")
    write(own.wiki / "PROFILE.md", "rewritten\n")
    own.commit("Rewrite")

    assert own.show(old, "PROFILE.md") == "line one\r\nline two\r\n"
    assert own.show("HEAD", "PROFILE.md") == "rewritten\n"
    assert own.resolve(old[:8]) == old
    with pytest.raises(NotFound):
        own.show(old, "build/none/MEMORY.md")
    with pytest.raises(NotFound):
        own.show("no-such-rev", "PROFILE.md")
    with pytest.raises(NotFound):
        own.resolve("--all")


def test_revert_undoes_one_commit_and_only_once(shared: WikiRepo, workspace: Path) -> None:
    write(shared.wiki / "build" / "bun" / "MEMORY.md", "## One\n\nkeep\n")
    shared.commit("Start")
    write(shared.wiki / "build" / "bun" / "MEMORY.md", "## One\n\nkeep\n\n## Two\n\nwrong\n")
    write(shared.wiki / "build" / "new" / "MEMORY.md", "## Also wrong\n")
    bad = shared.commit("Add two")
    write(shared.wiki / "PROFILE.md", "# Profile\n")
    shared.commit("Profile")

    undo = shared.revert(bad, "Undo add two\n\nReverts: " + bad + "\n")

    assert undo is not None and shared.head() == undo
    assert (shared.wiki / "build" / "bun" / "MEMORY.md").read_text() == "## One\n\nkeep\n"
    assert not (shared.wiki / "build" / "new" / "MEMORY.md").exists()
    assert (shared.wiki / "PROFILE.md").exists()
    assert sorted(shared.changed_paths(undo)) == ["build/bun/MEMORY.md", "build/new/MEMORY.md"]
    assert shared.log()[0].trailers == {"Reverts": (bad,)}
    assert shared.revert(bad, "Undo again") is None
    assert git(workspace, "status", "--porcelain") == ""


def test_revert_that_conflicts_with_later_edits_fails_clearly(own: WikiRepo) -> None:
    write(own.wiki / "PROFILE.md", "a\n")
    own.commit("Start")
    write(own.wiki / "PROFILE.md", "b\n")
    middle = own.commit("B")
    write(own.wiki / "PROFILE.md", "c\n")
    last = own.commit("C")

    with pytest.raises(HistoryError, match="cannot revert"):
        own.revert(middle, "Undo B")
    assert own.head() == last and (own.wiki / "PROFILE.md").read_text() == "c\n"


def test_inherited_git_variables_cannot_redirect_commits(
    own: WikiRepo, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace_head = git(workspace, "rev-parse", "HEAD").strip()
    write(own.wiki / "PROFILE.md", "# Profile\n")
    with monkeypatch.context() as env:  # as if started from a git hook of the workspace
        env.setenv("GIT_DIR", str(workspace / ".git"))
        env.setenv("GIT_INDEX_FILE", str(workspace / ".git" / "index"))
        sha = own.commit("Start")
    assert git(workspace, "rev-parse", "HEAD").strip() == workspace_head
    assert git(own.wiki, "rev-parse", "HEAD").strip() == sha


def test_refusals_are_history_errors(tmp_path: Path, workspace: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(HistoryError, match="not a git repository"):
        WikiRepo(plain / ".clarvis" / "memory", plain, mode="workspace").ensure()
    with pytest.raises(HistoryError, match="commit_into"):
        WikiRepo(plain / "w", plain, mode="elsewhere")
    ignoring = person_repo(tmp_path / "ignoring")
    write(ignoring / ".gitignore", ".clarvis/\n")
    with pytest.raises(HistoryError, match="workspace ignores .clarvis/memory/"):
        WikiRepo(ignoring / ".clarvis" / "memory", ignoring, mode="workspace").ensure()
    own = WikiRepo(workspace / ".clarvis" / "memory", workspace)
    write(own.wiki / "PROFILE.md", "# Profile\n")
    own.commit("Start")
    with pytest.raises(HistoryError, match="own repository"):
        WikiRepo(own.wiki, workspace, mode="workspace").ensure()
    for bad in ("../README.md", "/etc/passwd", ".git/config"):
        with pytest.raises(HistoryError, match="not a wiki path"):
            own.commit("Bad", paths=[bad])
    git(own.wiki, "checkout", "-q", "--detach")
    write(own.wiki / "PROFILE.md", "# Changed\n")
    with pytest.raises(HistoryError, match="detached"):
        own.commit("Detached")
    assert Identity("wikimem", "wikimem@localhost") == WIKIMEM


@pytest.mark.parametrize("mode", ["wiki", "workspace"])
def test_commit_leaves_the_index_with_stat_data_for_exactly_its_paths(
    tmp_path: Path, mode: str
) -> None:
    ws = person_repo(tmp_path / "ws")
    wiki = ws / ".clarvis" / "memory"
    write(ws / "notes.txt", "the person's own file\n")
    git(ws, "add", "notes.txt")
    repo = WikiRepo(wiki, ws, mode)
    write(wiki / "build" / "bun" / "MEMORY.md", "# Bun\n")
    write(wiki / "testing" / "MEMORY.md", "# Testing\n")
    repo.commit(MESSAGE, paths=["build/bun/MEMORY.md", "testing/MEMORY.md"])
    write(wiki / "build" / "bun" / "MEMORY.md", "# Bun, again\n")
    (wiki / "testing" / "MEMORY.md").unlink()
    repo.commit(MESSAGE, paths=["build/bun/MEMORY.md", "testing/MEMORY.md"])
    where = wiki if mode == "wiki" else ws
    # diff-files compares stat data only: an entry without it would be listed
    assert git(where, "diff-files", "--name-only") == ""
    assert git(where, "status", "--porcelain") == ("" if mode == "wiki" else "A  notes.txt\n")
    assert git(where, "ls-files", "-s", "--", ".").count("MEMORY.md") == 1
    assert repo.dirty_paths() == []


def test_own_repository_status_writes_back_refreshed_stat_data(tmp_path: Path) -> None:
    wiki = tmp_path / "ws" / ".clarvis" / "memory"
    repo = WikiRepo(wiki, tmp_path / "ws", "wiki")
    for n in range(5):
        write(wiki / "build" / f"leaf-{n}" / "MEMORY.md", f"# Leaf {n}\n")
    repo.commit(MESSAGE)
    copy = tmp_path / "copy" / ".clarvis" / "memory"
    import shutil

    shutil.copytree(wiki, copy)  # every file a new inode: the index's stat data is stale
    assert git(copy, "diff-files", "--name-only").count("MEMORY.md") == 5
    moved = WikiRepo(copy, tmp_path / "copy", "wiki")
    write(copy / "build" / "leaf-1" / "MEMORY.md", "# Leaf 1, edited\n")
    write(copy / "build" / "leaf-9" / "MEMORY.md", "# New\n")
    assert moved.dirty_paths() == ["build/leaf-1/MEMORY.md", "build/leaf-9/MEMORY.md"]
    assert git(copy, "diff-files", "--name-only") == "build/leaf-1/MEMORY.md\n"


def tree_by_git(where: Path, parent: str, paths: list[str], tmp: Path) -> str:
    """The tree `git add -A -- paths` in a fresh index of `parent` gives: what commits built
    in a private index always were."""
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp / "expected-index")}
    for args in (["read-tree", parent], ["add", "-A", "--", *paths]):
        subprocess.run(["git", *args], cwd=where, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["git", "write-tree"], cwd=where, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    original = history.session.call

    def spy(cmd, args, env, stdin=None):  # type: ignore[no-untyped-def]
        names.append(args[0])
        return original(cmd, args, env, stdin)

    monkeypatch.setattr(history.session, "call", spy)
    return names


@pytest.mark.parametrize("mode", ["wiki", "workspace"])
def test_small_commits_build_the_same_trees_without_an_index(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = person_repo(tmp_path / "ws")
    wiki = ws / ".clarvis" / "memory"
    repo = WikiRepo(wiki, ws, mode)
    where = wiki if mode == "wiki" else ws
    prefix = "" if mode == "wiki" else ".clarvis/memory/"
    write(wiki / "PROFILE.md", "# Profile\n")
    for topic in ("build", "testing"):
        write(wiki / topic / "TOPIC.md", f"# {topic}\n")
        for leaf in ("bun", "pytest", "z-last"):
            write(wiki / topic / leaf / "MEMORY.md", f"# {topic}/{leaf}\n")
    write(wiki / "build" / "bun" / "notes b.md", "a name with a space\n")
    repo.commit("Start")  # unborn: the private index builds the first tree
    calls = git_calls(monkeypatch)
    steps: list[tuple[list[str], dict[str, str | None]]] = [
        # an entry added to a nested leaf and its topic page, like a pass does
        (
            ["build/bun/MEMORY.md", "build/TOPIC.md"],
            {"build/bun/MEMORY.md": "# build/bun\n\n## New\n", "build/TOPIC.md": "# build!\n"},
        ),
        # a new topic folder with a new leaf, and the profile
        (
            ["deploy/TOPIC.md", "deploy/k8s/MEMORY.md", "PROFILE.md"],
            {
                "deploy/TOPIC.md": "# deploy\n",
                "deploy/k8s/MEMORY.md": "# k8s\n",
                "PROFILE.md": "# Profile, longer\n",
            },
        ),
        # a leaf deleted (its folder goes too), a file in a leaf deleted, names that sort
        # around folders ("bun" folder vs "bun.md" file), a path that never existed
        (
            ["testing/pytest/MEMORY.md", "build/bun/notes b.md", "build/bun.md", "never/there.md"],
            {
                "testing/pytest/MEMORY.md": None,
                "build/bun/notes b.md": None,
                "build/bun.md": "# beside the folder\n",
            },
        ),
        # the last leaf of a topic deleted with the topic page: the topic folder goes
        (
            ["deploy/k8s/MEMORY.md", "deploy/TOPIC.md"],
            {"deploy/k8s/MEMORY.md": None, "deploy/TOPIC.md": None},
        ),
        # non-ASCII names
        (["testing/ünïcode/MEMORY.md"], {"testing/ünïcode/MEMORY.md": "# ü\n"}),
    ]
    for paths, changes in steps:
        parent = git(where, "rev-parse", "HEAD").strip()
        for path, text in changes.items():
            if text is None:
                (wiki / path).unlink()
                history.WikiRepo.prune_parents(repo, wiki / path)
            else:
                write(wiki / path, text)
        calls.clear()

        sha = repo.commit("Step", paths=paths)

        assert sha is not None and "read-tree" not in calls
        expected = tree_by_git(
            where, parent, [prefix + p for p in paths if p != "never/there.md"], tmp_path
        )
        assert git(where, "rev-parse", f"{sha}^{{tree}}").strip() == expected
        assert git(where, "rev-parse", f"{sha}^").strip() == parent
        assert repo.changed_paths(sha) == sorted(p for p in paths if p != "never/there.md")
        # the index agrees with the commit, stat data included
        assert git(where, "diff-files", "--name-only") == ""
        assert git(where, "diff-index", "--cached", "--name-only", "HEAD") == ""
        assert repo.dirty_paths() == []
    assert repo.commit("Nothing", paths=["build/TOPIC.md"]) is None
    assert not (wiki / "deploy").exists()
    assert git(where, "ls-tree", "-r", "--name-only", "HEAD", "--", prefix + "deploy") == ""
    subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=where, check=True, capture_output=True
    )


def test_unusual_paths_take_the_private_index(
    own: WikiRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = own.wiki
    write(wiki / "build" / "bun" / "MEMORY.md", "# bun\n")
    write(wiki / "build" / "old" / "MEMORY.md", "# old\n")
    write(wiki / "tool.sh", "#!/bin/sh\n")
    own.commit("Start")
    calls = git_calls(monkeypatch)

    def delete_folder() -> None:
        (wiki / "build" / "old" / "MEMORY.md").unlink()
        (wiki / "build" / "old").rmdir()

    def file_to_folder() -> None:
        (wiki / "tool.sh").unlink()
        write(wiki / "tool.sh" / "MEMORY.md", "# now a folder\n")

    cases: list[tuple[list[str], Callable[[], object]]] = [
        (["tool.sh"], lambda: (wiki / "tool.sh").chmod(0o755)),  # executable
        (["link.md"], lambda: (wiki / "link.md").symlink_to("tool.sh")),  # a link
        (["build/old"], delete_folder),  # a whole folder deleted
        (["build/new"], lambda: write(wiki / "build" / "new" / "MEMORY.md", "# new\n")),
        (["tool.sh"], file_to_folder),  # a folder where a file was
    ]
    for paths, change in cases:
        parent = git(wiki, "rev-parse", "HEAD").strip()
        change()
        calls.clear()

        sha = own.commit("Unusual", paths=paths)

        assert sha is not None and "read-tree" in calls
        assert git(wiki, "rev-parse", f"{sha}^{{tree}}").strip() == tree_by_git(
            wiki, parent, paths, tmp_path
        )
        assert git(wiki, "status", "--porcelain") == ""
    assert git(wiki, "ls-tree", "HEAD", "link.md").startswith("120000 ")


def test_an_ignored_new_file_is_refused_as_before(own: WikiRepo) -> None:
    write(own.wiki / "PROFILE.md", "# Profile\n")
    write(own.wiki / ".gitignore", "*.tmp\n")
    own.commit("Start")
    write(own.wiki / "scratch.tmp", "not memory\n")
    head = own.head()

    with pytest.raises(HistoryError, match="ignored"):
        own.commit("Ignored", paths=["scratch.tmp"])
    assert own.head() == head


def test_own_status_sees_every_kind_of_change_after_writing_back_stat_data(own: WikiRepo) -> None:
    for n in range(3):
        write(own.wiki / "build" / f"leaf-{n}" / "MEMORY.md", f"# {n}\n")
    own.commit("Start")
    assert own.dirty_paths() == []
    assert own.dirty_paths() == []  # stat data written back by the first status
    with (own.wiki / "build" / "leaf-0" / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write("in place\n")  # an in-place edit: no folder changes
    (own.wiki / "build" / "leaf-1" / "MEMORY.md").rename(own.wiki / "build" / "leaf-1" / "M.md")
    (own.wiki / "build" / "leaf-2" / "MEMORY.md").unlink()
    write(own.wiki / "build" / "leaf-3" / "deep" / "MEMORY.md", "# new, nested\n")

    assert own.dirty_paths() == [
        "build/leaf-0/MEMORY.md",
        "build/leaf-1/M.md",
        "build/leaf-1/MEMORY.md",
        "build/leaf-2/MEMORY.md",
        "build/leaf-3/deep/MEMORY.md",
    ]
    assert own.commit_person_edits() is not None
    assert own.dirty_paths() == []
    write(own.wiki / "build" / "leaf-3" / "deep" / "more.md", "# another\n")
    assert own.dirty_paths() == ["build/leaf-3/deep/more.md"]


def test_head_read_from_the_files_is_what_git_says_and_git_is_asked_otherwise(
    tmp_path: Path,
) -> None:
    import zlib

    from wikimem.wiki.history.session import open_session

    def run(*args: str) -> str:
        who = ["-c", "user.name=Ada Person", "-c", "user.email=ada@example.test"]
        return subprocess.run(
            ["git", *who, *args], cwd=tmp_path, check=True, capture_output=True, text=True
        ).stdout.strip()

    def heads() -> tuple[str | None, str | None]:
        with open_session(tmp_path, tmp_path, "wiki") as s:
            return s.loose_head(), s.head()

    run("init", "-q", "-b", "main")
    assert heads() == (None, None)  # no commit yet
    (tmp_path / "f").write_text("one\n")
    run("add", "f")
    run("commit", "-q", "-m", "one")
    first = run("rev-parse", "HEAD")
    assert heads() == (first, first)  # read from the files, no git started
    run("pack-refs", "--all")
    assert heads() == (None, first)  # a packed ref: git answers
    (tmp_path / "f").write_text("two\n")
    run("commit", "-q", "-a", "-m", "two")
    second = run("rev-parse", "HEAD")
    assert heads() == (second, second)
    run("checkout", "-q", "--detach")
    assert heads() == (None, second)  # detached: git answers
    run("checkout", "-q", "main")
    run("gc", "-q")
    assert heads() == (None, second)  # a packed object: git answers
    (tmp_path / "f").write_text("three\n")
    run("commit", "-q", "-a", "-m", "three")
    third = run("rev-parse", "HEAD")
    assert heads() == (third, third)
    loose = tmp_path / ".git" / "objects" / third[:2] / third[2:]
    data = zlib.decompress(loose.read_bytes()).replace(b"three", b"thrEE")
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(data))  # a commit whose bytes no longer match its name
    assert heads() == (None, None)  # as `git rev-parse --verify HEAD^{commit}` finds it
