"""A person's hand edits are committed as theirs, on their own, before a pass's commit: edits in
place (even with size and mtime put back), new pages, deleted pages, renamed folders, and edits
made while a pass runs, in both repository modes. The look for them (`git status`) runs in the
background while the pass reads; these tests pin down that this changed nothing a person sees.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.openai_server import Reply, serve
from tests.test_pass_search import leaf as page
from wikimem import config
from wikimem.errors import HistoryError, ModelError
from wikimem.indexing import indexer
from wikimem.indexing.drain import drain
from wikimem.indexing.indexer import Pass
from wikimem.intake.accept import enqueue
from wikimem.recall.search import SearchIndex
from wikimem.wiki import change as change_module
from wikimem.wiki.history import PersonEdits, WikiRepo
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import init, open_repo

PASS_FILES = {"build/bun/MEMORY.md", "build/TOPIC.md", "PROFILE.md"}


def lesson(n: int) -> dict[str, Any]:
    return {
        "summary": f"Record bun fix {n}",
        "edits": [
            {
                "action": "add",
                "leaf": "build/bun",
                "entry": f"fix-{n}",
                "title": f"Fix {n}",
                "type": "procedural",
                "body": f"`bun install --frozen-lockfile` fails; fix number {n}.",
                "reason": "verified fix",
            }
        ],
    }


def teaching_run(n: int) -> dict[str, Any]:
    return {
        "run_id": f"run-{n}",
        "task": "Fix the failing bun build",
        "status": "succeeded",
        "result": "Regenerated the lockfile.",
        "evidence": [
            {
                "kind": "command",
                "command": "bun install --frozen-lockfile",
                "exit_code": 1,
                "output": "error: lockfile had changes\n",
            },
            {"kind": "command", "command": "bun install", "exit_code": 0, "output": "Saved"},
        ],
    }


TEMPLATES: dict[str, Path] = {}  # mode -> a workspace as `Wikis` first makes it, per process


class Wikis:
    """A workspace with a small wiki, in either mode, and a loopback model to teach it. The
    first test of a mode makes it in a folder of its own (its first pass taught by a model of
    its own); every test then works on a copy: the same files, repositories and state."""

    def __init__(self, workspace: Path, server: Any, mode: str, spare: Path | None = None) -> None:
        self.server = server
        self.passes = 0
        if mode not in TEMPLATES:
            template = (spare or workspace.parent) / f"template-{mode}"
            template.mkdir()
            with serve() as own:  # a model of its own: a test's model sees only its test's asks
                self.server = own
                self._open(template, mode)
                self._make(template, mode)
            self.server = server
            TEMPLATES[mode] = template
        shutil.copytree(TEMPLATES[mode], workspace, symlinks=True, dirs_exist_ok=True)
        self._open(workspace, mode)
        self.repo = open_repo(self.places, self.settings)
        self.passes = 1
        self.server.default = Reply.plan(lesson(self.passes))  # as the first pass left it

    def _open(self, workspace: Path, mode: str) -> None:
        env = {
            "OPENAI_BASE_URL": self.server.base_url,
            "OPENAI_API_KEY": "sk-test-key-123456",
            "WIKIMEM_MODEL": "memory-model",
        }
        self.places = config.places(workspace, env)
        self.settings = config.load(self.places, env)
        self.wiki = self.places.wiki
        self.top = workspace if mode == "workspace" else self.wiki
        self.prefix = ".clarvis/memory/" if mode == "workspace" else ""

    def _make(self, workspace: Path, mode: str) -> None:
        if mode == "workspace":
            git("init", "-q", "-b", "main", cwd=workspace)
            (workspace / "README.md").write_text("hello\n")
            git("add", "README.md", cwd=workspace)
            git("commit", "-q", "-m", "Start", cwd=workspace)
            (workspace / ".clarvis").mkdir(exist_ok=True)
            (workspace / ".clarvis" / "config.toml").write_text(
                '[wiki]\ncommit_into = "workspace"\n'
            )
            self._open(workspace, mode)  # the settings with that config
        init(self.places, self.settings)
        for leaf, body in (
            ("build/bun", "The lockfile drifts."),
            ("testing/pytest", "Fixtures are session scoped."),
            ("deploy/docker", "BuildKit cache mounts."),
            ("deploy/helm", "Charts pin their versions."),
        ):
            page(self.wiki, leaf, body)
        assert open_repo(self.places, self.settings).commit_person_edits() is not None
        self.teach()  # a first pass: the search index exists and follows git from here on

    def teach(self) -> list[str]:
        """One pass teaching `lesson(n)`; the model answers it however often it is asked."""
        self.passes += 1
        self.server.default = Reply.plan(lesson(self.passes))
        enqueue(self.places, self.settings, teaching_run(self.passes))
        return [o.outcome for r in drain(self.places, self.settings) for o in r.outcomes]

    def commits(self, count: int) -> list[tuple[str, str, set[str]]]:
        """The newest commits touching the wiki: (author, subject, wiki paths)."""
        out = git(
            "log",
            f"-{count}",
            "--format=%x1e%an%x1f%s",
            "--name-only",
            "--no-renames",
            "--",
            self.prefix or ".",
            cwd=self.top,
        )
        found = []
        for chunk in out.split("\x1e")[1:]:
            head, _, names = chunk.partition("\n")
            author, subject = head.split("\x1f")
            found.append((author, subject, {n[len(self.prefix) :] for n in names.split()}))
        return found

    def clean(self) -> bool:
        return (
            git(
                "status",
                "--porcelain",
                "--untracked-files=all",
                "--",
                self.prefix or ".",
                cwd=self.top,
            )
            == ""
        )

    def index_head(self) -> str | None:
        with SearchIndex(self.wiki, self.places.state / "search.sqlite") as index:
            return index.head()


@pytest.fixture(params=["wiki", "workspace"])
def wikis(
    request: pytest.FixtureRequest,
    workspace: Path,
    openai_server: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Wikis:
    return Wikis(workspace, openai_server, request.param, tmp_path_factory.mktemp("wikis"))


def hand_edits(wiki: Path) -> set[str]:
    """One of every kind of hand edit; the wiki paths they change."""
    pytest_page = wiki / "testing" / "pytest" / "MEMORY.md"
    before = os.stat(pytest_page)
    text = pytest_page.read_text(encoding="utf-8")
    pytest_page.write_text(text.replace("session", "modules"), encoding="utf-8")  # same size
    os.utime(pytest_page, ns=(before.st_atime_ns, before.st_mtime_ns))  # and mtime put back
    page(wiki, "ops/pager", "The narwhal rota.")  # a new page in a new folder
    (wiki / "deploy" / "helm" / "MEMORY.md").unlink()  # a deleted page
    (wiki / "deploy" / "docker").rename(wiki / "deploy" / "images")  # a renamed folder
    return {
        "testing/pytest/MEMORY.md",
        "ops/pager/MEMORY.md",
        "deploy/helm/MEMORY.md",
        "deploy/docker/MEMORY.md",
        "deploy/images/MEMORY.md",
    }


def test_every_kind_of_hand_edit_is_committed_as_the_person_before_the_pass(wikis: Wikis) -> None:
    edited = hand_edits(wikis.wiki)

    assert wikis.teach() == ["changed"]

    (ours, ours_subject, ours_paths), (theirs, subject, paths) = wikis.commits(2)
    assert (ours, ours_subject) == ("wikimem", "Add build/bun: Fix 2")
    assert ours_paths <= PASS_FILES and "build/bun/MEMORY.md" in ours_paths
    assert (theirs, subject, paths) == ("Ada Person", "Edit the wiki by hand", edited)
    assert wikis.clean()
    # the search index followed the person's commit, then the pass's own (refreshed right after
    # it commits, so the in-loop hooks read what this pass learned)
    assert wikis.index_head() == git("rev-parse", "HEAD", cwd=wikis.top).strip()


def test_a_pass_with_no_hand_edits_makes_one_commit_and_asks_once(wikis: Wikis) -> None:
    before = git("rev-parse", "HEAD", cwd=wikis.top).strip()
    asked = len(wikis.server.completions)

    assert wikis.teach() == ["changed"]

    assert git("rev-parse", "HEAD~1", cwd=wikis.top).strip() == before
    [(author, _, _)] = wikis.commits(1)
    assert author == "wikimem" and wikis.clean()
    assert len(wikis.server.completions) == asked + 1


def test_the_model_is_asked_again_when_hand_edits_change_what_it_is_shown(wikis: Wikis) -> None:
    page(
        wikis.wiki,
        "build/frozen",
        "`bun install --frozen-lockfile` fails on lockfile "
        "changes: run bun install and commit the lockfile.",
    )
    asked = len(wikis.server.completions)
    # the first answer was given before the new page was searchable: it must not be used
    wikis.server.script(Reply.plan(lesson(99)))

    assert wikis.teach() == ["changed"]

    prompts = [str(r.body) for r in wikis.server.completions[asked:]]
    assert len(prompts) == 2 and "build/frozen" in prompts[1]
    text = (wikis.wiki / "build" / "bun" / "MEMORY.md").read_text(encoding="utf-8")
    assert "fix number 2" in text and "fix number 99" not in text
    (ours, _, _), (theirs, _, paths) = wikis.commits(2)
    assert (ours, theirs, paths) == ("wikimem", "Ada Person", {"build/frozen/MEMORY.md"})


def test_hand_edits_are_committed_even_when_the_model_fails(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    page(wikis.wiki, "testing/pytest", "Edited by hand.")

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ModelError("the model is down")

    monkeypatch.setattr(indexer, "extract", down)

    assert wikis.teach() == ["failed"]

    [(author, subject, paths)] = wikis.commits(1)
    assert (author, subject, paths) == (
        "Ada Person",
        "Edit the wiki by hand",
        {"testing/pytest/MEMORY.md"},
    )
    assert wikis.clean()


def during(
    monkeypatch: pytest.MonkeyPatch, target: Any, name: str, edit: Callable[[], None]
) -> None:
    """Make a person's edit the first time `target.name` is called (by the first pass)."""
    original = getattr(target, name)
    done: list[bool] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(True)
            edit()
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, wrapper)


def test_edits_made_while_the_look_runs_are_never_folded_into_the_pass(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = wikis.wiki
    looks: list[PersonEdits] = []
    started = PersonEdits.__init__

    def look(self: PersonEdits, *args: Any, **kwargs: Any) -> None:
        started(self, *args, **kwargs)
        looks.append(self)

    monkeypatch.setattr(PersonEdits, "__init__", look)

    def edit() -> None:
        # The pass's look (`git status`, in the background) has run to its end and written
        # back what it learnt into the index: the person saves right then, before the pass
        # takes the look's answer. Waiting on the process, not on a clock, fixes the order.
        [running] = looks
        running.process.proc.wait()
        page(wiki, "deploy/docker", "Edited while the pass read.")
        page(wiki, "ops/new", "Created while the pass read.")
        (wiki / "deploy" / "helm" / "MEMORY.md").unlink()

    during(monkeypatch, indexer, "extract", edit)

    assert wikis.teach() == ["changed"]

    late = {"deploy/docker/MEMORY.md", "ops/new/MEMORY.md", "deploy/helm/MEMORY.md"}
    ours, earlier = wikis.commits(2)
    assert ours[0] == "wikimem" and not ours[2] & late
    assert earlier[0] == "wikimem"  # the look saw none of them: no commit of the person's
    # every later look sees all of them, the page in a folder made since included
    assert set(wikis.repo.dirty_paths()) == late

    assert wikis.teach() == ["changed"]
    committed = {
        p for author, _, paths in wikis.commits(4) if author == "Ada Person" for p in paths
    }
    assert late <= committed and wikis.clean()


def test_edits_made_after_the_look_wait_for_the_next_pass(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = wikis.wiki
    # made once the look is over: left alone by this pass, and committed by the next
    during(
        monkeypatch,
        Pass,
        "settle",
        lambda: page(wiki, "testing/pytest", "Edited while the pass wrote."),
    )

    assert wikis.teach() == ["changed"]

    [(author, _, paths)] = wikis.commits(1)
    assert author == "wikimem" and "testing/pytest/MEMORY.md" not in paths
    assert wikis.repo.dirty_paths() == ["testing/pytest/MEMORY.md"]

    assert wikis.teach() == ["changed"]
    (ours, _, _), (theirs, _, person_paths) = wikis.commits(2)
    assert ours == "wikimem" and theirs == "Ada Person"
    assert person_paths == {"testing/pytest/MEMORY.md"} and wikis.clean()


def test_a_save_of_the_page_the_pass_is_writing_is_committed_first_as_the_person(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = wikis.wiki
    # saved between the pass reading the page to edit it and writing it back
    during(
        monkeypatch,
        Wiki,
        "_apply_one",
        lambda: page(wiki, "build/bun", "Saved by hand while the pass edited."),
    )

    assert wikis.teach() == ["changed"]

    (ours, _, ours_paths), (theirs, subject, paths) = wikis.commits(2)
    assert ours == "wikimem" and "build/bun/MEMORY.md" in ours_paths
    assert (theirs, subject, paths) == (
        "Ada Person",
        "Edit the wiki by hand",
        {"build/bun/MEMORY.md"},
    )
    text = (wiki / "build" / "bun" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Saved by hand" in text and "fix number 2" in text  # both kept
    assert wikis.clean()


# -- PersonEdits on its own ------------------------------------------------------------------


@pytest.fixture
def own(workspace: Path) -> WikiRepo:
    repo = WikiRepo(workspace / ".clarvis" / "memory", workspace)
    page(repo.wiki, "build/bun", "The lockfile drifts.")
    repo.commit("Start")
    return repo


def test_the_look_finds_what_status_finds_and_commits_once(own: WikiRepo) -> None:
    page(own.wiki, "build/bun", "Edited.")
    page(own.wiki, "ops/pager", "New.")

    with own.person_edits() as edits:
        assert edits.paths() == own.dirty_paths() == ["build/bun/MEMORY.md", "ops/pager/MEMORY.md"]
        sha = edits.commit()
        assert sha is not None and edits.commit() is None

    assert own.head() == sha and own.dirty_paths() == []
    assert own.log(limit=1)[0].author == "Ada Person"


def test_a_look_closed_unused_commits_nothing(own: WikiRepo) -> None:
    head = own.head()
    page(own.wiki, "build/bun", "Edited.")

    edits = own.person_edits()
    edits.close()
    edits.close()  # twice is fine

    assert own.head() == head and own.dirty_paths() == ["build/bun/MEMORY.md"]


def test_a_failing_look_is_a_history_error(own: WikiRepo) -> None:
    (own.wiki / ".git" / "index").write_bytes(b"not an index")

    with pytest.raises(HistoryError, match="git status failed"), own.person_edits() as edits:
        edits.commit()


def test_before_any_repository_the_look_lists_the_files(tmp_path: Path) -> None:
    repo = WikiRepo(tmp_path / "wiki", tmp_path)
    page(repo.wiki, "build/bun", "By hand.")

    assert PersonEdits(repo).paths() == ["build/bun/MEMORY.md"]


# -- the index update that runs while a commit is written ------------------------------------


def test_a_failed_commit_gives_the_index_back(
    own: WikiRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    page(own.wiki, "build/bun", "Written by a pass.")
    page(own.wiki, "build/new", "A new page of the pass.")
    head = own.head()

    def fail(*args: Any, **kwargs: Any) -> str:
        raise HistoryError("git update-ref failed: someone moved the branch")

    with monkeypatch.context() as patched, pytest.raises(HistoryError, match="update-ref"):
        patched.setattr(WikiRepo, "write_commit", staticmethod(fail))
        own.commit("Record", paths=["build/bun/MEMORY.md", "build/new/MEMORY.md"])

    assert own.head() == head
    assert git("diff", "--cached", "--name-only", cwd=own.wiki) == ""  # nothing left staged
    assert own.dirty_paths() == ["build/bun/MEMORY.md", "build/new/MEMORY.md"]


def test_the_index_matches_each_commit_in_the_wikis_own_repository(own: WikiRepo) -> None:
    for n in range(3):
        page(own.wiki, "build/bun", f"Version {n}.")
        page(own.wiki, f"build/leaf-{n}", "New.")
        assert own.commit(f"Record {n}", paths=["build/bun/MEMORY.md", f"build/leaf-{n}/MEMORY.md"])
        assert git("diff", "--cached", "--name-only", cwd=own.wiki) == ""
        assert git("diff-files", "--name-only", cwd=own.wiki) == ""  # stat data is current
    (own.wiki / "build" / "leaf-0" / "MEMORY.md").unlink()
    assert own.commit("Remove", paths=["build/leaf-0/MEMORY.md"])
    assert git("status", "--porcelain", cwd=own.wiki) == ""


def test_comparing_commits_never_reads_the_index(own: WikiRepo) -> None:
    start = own.head()
    page(own.wiki, "build/bun", "Edited.")
    own.commit("Edit", paths=["build/bun/MEMORY.md"])
    index = own.wiki / ".git" / "index"
    kept = index.read_bytes()
    index.write_bytes(b"not an index")  # any command reading it would fail
    try:
        head, changed = own.changes_since(start)
        assert (head, changed) == (own.head(), ["build/bun/MEMORY.md"])
        assert own.changed_paths("HEAD") == ["build/bun/MEMORY.md"]
    finally:
        index.write_bytes(kept)
    assert not (own.wiki / ".git" / "wikimem-no-index").exists()
    assert subprocess.run(["git", "status"], cwd=own.wiki, capture_output=True).returncode == 0


# -- a save of a page the pass writes, made after the look -------------------------------------


LATE_SAVE = "Saved by hand after the look."


def assert_late_save_is_the_persons(wikis: Wikis) -> None:
    """The late save of build/bun is a commit of the person's; wikimem's commit on top of it
    adds only its entry to the page."""
    (ours, ours_subject, ours_paths), (theirs, subject, paths) = wikis.commits(2)
    assert (ours, ours_subject) == ("wikimem", "Add build/bun: Fix 2")
    assert "build/bun/MEMORY.md" in ours_paths
    assert (theirs, subject, paths) == (
        "Ada Person",
        "Edit the wiki by hand",
        {"build/bun/MEMORY.md"},
    )
    leaf = f"{wikis.prefix}build/bun/MEMORY.md"
    assert LATE_SAVE in git("show", f"HEAD~1:{leaf}", cwd=wikis.top)
    diff = git("show", "--format=", "-U0", "HEAD", "--", leaf, cwd=wikis.top).splitlines()
    changed = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed and all(line.startswith("+") for line in changed), changed
    assert "+## Fix 2" in changed and not any(LATE_SAVE in line for line in changed)
    text = (wikis.wiki / "build" / "bun" / "MEMORY.md").read_text(encoding="utf-8")
    assert LATE_SAVE in text and "fix number 2" in text
    assert wikis.clean()


def test_a_save_of_the_page_to_write_during_the_model_call_is_committed_as_the_person(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = wikis.wiki
    looks: list[list[str]] = []
    start_look = WikiRepo.person_edits

    def look_at_once(repo: WikiRepo, paths: Any = None) -> PersonEdits:
        edits = start_look(repo, paths)
        if paths is None:
            looks.append(edits.paths())  # the whole wiki's look is over before the model call
        return edits

    answer = wikis.server._next_reply
    saves: list[int] = []

    def save_then_answer(request: Any) -> Reply:
        if looks and not saves:  # while the pass waits for the model's answer
            saves.append(1)
            page(wiki, "build/bun", LATE_SAVE)
        return answer(request)

    monkeypatch.setattr(WikiRepo, "person_edits", look_at_once)
    monkeypatch.setattr(wikis.server, "_next_reply", save_then_answer)

    assert wikis.teach() == ["changed"]

    assert looks == [[]] and saves == [1]  # the look found nothing: the save came after it
    assert len(wikis.server.completions) == 1  # once by this pass (the first one's is Wikis')
    assert_late_save_is_the_persons(wikis)


def test_a_save_after_the_pass_committed_the_persons_edits_is_not_built_on(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = wikis.wiki
    # after the pass committed a person's edits of its pages, before it reads the page to edit
    during(monkeypatch, Wiki, "apply", lambda *_: page(wiki, "build/bun", LATE_SAVE))
    warnings: list[str] = []
    wikis.server.default = Reply.plan(lesson(2))
    enqueue(wikis.places, wikis.settings, teaching_run(2))

    reports = drain(wikis.places, wikis.settings, warn=warnings.append)

    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"]
    assert any("just before wikimem edited it" in w for w in warnings)  # applied again
    assert_late_save_is_the_persons(wikis)


def test_the_look_at_a_pass_s_own_files_sees_only_those(own: WikiRepo) -> None:
    page(own.wiki, "build/bun", "Edited.")
    page(own.wiki, "build/new", "New, in its own folder.")
    page(own.wiki, "ops/pager", "Not one of the pass's files.")

    with own.person_edits(
        ["build/bun/MEMORY.md", "build/new/MEMORY.md", "build/TOPIC.md"]
    ) as edits:
        assert edits.paths() == ["build/bun/MEMORY.md", "build/new/MEMORY.md"]
    assert own.person_edits([]).paths() == []
    assert own.commit_person_edits(paths=["build/bun/MEMORY.md"]) is not None

    assert own.dirty_paths() == ["build/new/MEMORY.md", "ops/pager/MEMORY.md"]
    [commit] = own.log(limit=1, with_paths=True)
    assert (commit.author, commit.paths) == ("Ada Person", ("build/bun/MEMORY.md",))


# -- a save landing between wikimem's write and its commit -------------------------------------


def persons_commits(wikis: Wikis, count: int) -> set[str]:
    return {p for author, _, paths in wikis.commits(count) if author == "Ada Person" for p in paths}


@pytest.mark.parametrize("how", ["by hand", "in an index"])
@pytest.mark.parametrize("edit", ["save", "delete"])
def test_a_save_between_the_write_and_the_commit_stays_out_of_wikimem_s_commit(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch, how: str, edit: str
) -> None:
    wiki = wikis.wiki
    leaf = wiki / "build" / "bun" / "MEMORY.md"
    if how == "in an index":  # the general commit path, through a private index
        monkeypatch.setattr(WikiRepo, "tree_by_hand", staticmethod(lambda *_, **__: None))
    # the commit message is rendered after every page is written, right before the commit
    during(
        monkeypatch,
        indexer,
        "render",
        lambda: page(wiki, "build/bun", LATE_SAVE) if edit == "save" else leaf.unlink(),
    )

    assert wikis.teach() == ["changed"]

    [(author, subject, paths)] = wikis.commits(1)
    assert (author, subject) == ("wikimem", "Add build/bun: Fix 2")
    assert "build/bun/MEMORY.md" in paths
    committed = git("show", f"HEAD:{wikis.prefix}build/bun/MEMORY.md", cwd=wikis.top)
    assert "fix number 2" in committed and LATE_SAVE not in committed
    # the difference stays visible (the index did not take the disk's file as the commit's)
    assert wikis.repo.dirty_paths() == ["build/bun/MEMORY.md"]
    assert not wikis.clean()

    assert wikis.teach() == ["changed"]
    (ours, _, _), (theirs, person_subject, person_paths) = wikis.commits(2)
    assert (ours, theirs, person_subject) == ("wikimem", "Ada Person", "Edit the wiki by hand")
    assert person_paths == {"build/bun/MEMORY.md"}
    text = leaf.read_text(encoding="utf-8")
    assert "fix number 3" in text and (LATE_SAVE in text) == (edit == "save")
    assert "fix number 2" not in text
    assert wikis.clean()


def test_commit_takes_the_given_bytes_not_the_disk_s(own: WikiRepo, tmp_path: Path) -> None:
    page(own.wiki, "build/bun", "On disk.")
    page(own.wiki, "build/new", "Also on disk.")
    written = b"---\ntitle: build/bun\n---\n\n## Note\n\nAs written.\n"

    sha = own.commit(
        "Record",
        paths=["build/bun/MEMORY.md", "build/new/MEMORY.md"],
        contents={"build/bun/MEMORY.md": written},
    )

    assert sha is not None
    assert own.show(sha, "build/bun/MEMORY.md") == written.decode()
    assert "Also on disk." in own.show(sha, "build/new/MEMORY.md")  # not given: from disk
    assert own.dirty_paths() == ["build/bun/MEMORY.md"]
    # the person's file is what the index holds (staged), never hidden behind the commit's
    assert git("diff", "--cached", "--name-only", cwd=own.wiki) == "build/bun/MEMORY.md\n"
    # a given deletion of a file still on disk
    assert own.commit(
        "Remove", paths=["build/new/MEMORY.md"], contents={"build/new/MEMORY.md": None}
    )
    assert own.read("HEAD", "build/new/MEMORY.md") is None
    assert (own.wiki / "build" / "new" / "MEMORY.md").exists()
    assert set(own.dirty_paths()) == {"build/bun/MEMORY.md", "build/new/MEMORY.md"}


# -- recompiling topics and the profile --------------------------------------------------------


HAND_NOTE = "A note written by hand under the topic."


def test_recompile_holds_the_pages_it_rewrites_and_commits_a_save_as_the_person(
    wikis: Wikis, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = wikis.wiki
    page(wiki, "build/cache", "A leaf added by hand.")
    topic = wiki / "build" / "TOPIC.md"

    def save_topic() -> None:  # after the person's edits were committed, before rewriting
        topic.write_text(topic.read_text(encoding="utf-8") + f"\n{HAND_NOTE}\n", encoding="utf-8")

    during(monkeypatch, change_module, "compile_topic", save_topic)

    sha = indexer.recompile(wikis.places, wikis.settings)

    assert sha is not None
    (ours, subject, ours_paths), (theirs, _, paths), (first, _, first_paths) = wikis.commits(3)
    assert (ours, subject) == ("wikimem", "Recompile topics and profile")
    assert "build/TOPIC.md" in ours_paths
    assert (theirs, paths) == ("Ada Person", {"build/TOPIC.md"})
    assert (first, first_paths) == ("Ada Person", {"build/cache/MEMORY.md"})
    assert HAND_NOTE in git("show", f"HEAD~1:{wikis.prefix}build/TOPIC.md", cwd=wikis.top)
    diff = git(
        "show", "--format=", "-U0", "HEAD", "--", f"{wikis.prefix}build/TOPIC.md", cwd=wikis.top
    ).splitlines()
    changed = "\n".join(line for line in diff if line[:1] in "+-")
    assert HAND_NOTE not in changed and "build/cache" in changed
    text = topic.read_text(encoding="utf-8")
    assert HAND_NOTE in text and "build/cache" in text
    assert wikis.clean()
