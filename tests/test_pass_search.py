"""The pass's search index: refreshed from what git says changed, never stale for a person's
edits (in place, new leaf, deleted leaf, renamed leaf), and its query kept to the rarest words."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import git
from wikimem import config
from wikimem.indexing.indexer import Pass
from wikimem.recall.search import SearchIndex
from wikimem.wiki.workspace import init


def leaf(wiki: Path, path: str, body: str) -> Path:
    file = wiki.joinpath(*path.split("/"), "MEMORY.md")
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(
        f"---\ntitle: {path}\nsummary: {path}\n---\n\n## Note\n\n{body}\n", encoding="utf-8"
    )
    return file


def open_pass(workspace: Path) -> Pass:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    return Pass(places, settings, lambda _: None)


def search(work: Pass, query: str) -> list[str]:
    """What a pass sees: the person's edits committed first, then the pass's own search."""
    work.repo.commit_person_edits()
    return work._search(query, 10)


def index_head(work: Pass) -> str | None:
    with SearchIndex(work.places.wiki, work.places.state / "search.sqlite") as index:
        return index.head()


def test_person_edits_between_passes_are_seen_by_the_next_pass(workspace: Path) -> None:
    work = open_pass(workspace)
    wiki = work.places.wiki
    leaf(wiki, "build/bun", "The lockfile drifts on CI.")
    leaf(wiki, "testing/pytest", "Fixtures are session scoped.")
    leaf(wiki, "deploy/docker", "BuildKit cache mounts.")
    assert search(work, "lockfile") == ["build/bun"]
    assert index_head(work) == work.repo.head()  # the pass marked the commit it matched

    # in place, with a new mtime
    bun = wiki / "build" / "bun" / "MEMORY.md"
    bun.write_text(
        bun.read_text(encoding="utf-8").replace("lockfile", "capybara"), encoding="utf-8"
    )
    # a new leaf folder, a deleted leaf, a renamed leaf
    leaf(wiki, "ops/pager", "The narwhal rota.")
    (wiki / "testing" / "pytest" / "MEMORY.md").unlink()
    (wiki / "deploy" / "docker").rename(wiki / "deploy" / "images")

    assert search(work, "capybara") == ["build/bun"]
    assert search(work, "lockfile") == []
    assert search(work, "narwhal") == ["ops/pager"]
    assert search(work, "fixtures session") == []
    assert search(work, "buildkit") == ["deploy/images"]
    assert index_head(work) == work.repo.head()


def test_an_edit_undone_before_the_next_pass_is_not_left_stale(workspace: Path) -> None:
    work = open_pass(workspace)
    wiki = work.places.wiki
    file = leaf(wiki, "build/bun", "The lockfile drifts on CI.")
    assert search(work, "lockfile") == ["build/bun"]
    original = file.read_text(encoding="utf-8")
    file.write_text(original.replace("lockfile", "capybara"), encoding="utf-8")
    # a person's `wikimem search` indexes the edit (a full check) ...
    with SearchIndex(wiki, work.places.state / "search.sqlite") as index:
        assert [h.path for h in index.search("capybara")] == ["build/bun"]
    file.write_text(original, encoding="utf-8")  # ... and the edit is undone, never committed
    assert search(work, "capybara") == []
    assert search(work, "lockfile") == ["build/bun"]


def test_history_rewritten_under_the_index_falls_back_to_a_full_check(workspace: Path) -> None:
    work = open_pass(workspace)
    wiki = work.places.wiki
    leaf(wiki, "build/bun", "The lockfile drifts on CI.")
    assert search(work, "lockfile") == ["build/bun"]
    marked = index_head(work)
    git("reset", "-q", "--hard", "HEAD~1", cwd=wiki)  # the marked commit leaves the branch
    git("reflog", "expire", "--expire=now", "--all", cwd=wiki)
    git("gc", "-q", "--prune=now", cwd=wiki)
    gone = subprocess.run(["git", "cat-file", "-e", f"{marked}^{{commit}}"], cwd=wiki)
    assert gone.returncode != 0
    assert search(work, "lockfile") == []
    leaf(wiki, "ops/pager", "The narwhal rota.")
    assert search(work, "narwhal") == ["ops/pager"]


def test_a_broken_index_file_is_rebuilt_by_the_pass(workspace: Path) -> None:
    work = open_pass(workspace)
    leaf(work.places.wiki, "build/bun", "The lockfile drifts on CI.")
    assert search(work, "lockfile") == ["build/bun"]
    (work.places.state / "search.sqlite").write_bytes(b"not a database" * 100)
    assert search(work, "lockfile") == ["build/bun"]


def test_the_pass_query_keeps_the_rarest_words_the_index_knows(workspace: Path) -> None:
    work = open_pass(workspace)
    wiki = work.places.wiki
    for n in range(12):
        leaf(wiki, f"common/leaf-{n}", "gradle cache config step failed")
    leaf(wiki, "build/bun", "gradle cache config: the okapi key was stale")
    with SearchIndex(wiki, work.places.state / "search.sqlite") as index:
        # words in half the rows or more carry no bm25 weight: dropped
        assert index.focused("gradle cache okapi config zzzunknown", 5) == "okapi"
        assert index.focused("gradle cache config", 5) in ("gradle", "cache", "config")
        # equally rare words keep their query order
        assert index.focused("common okapi stale", 2) == "okapi stale"
        assert "zzzunknown" not in index.focused("gradle cache okapi config zzzunknown", 10)
        assert index.focused("zzzunknown", 5) == ""
    query = "gradle cache config step failed okapi " + " ".join(f"w{n}" for n in range(40))
    assert search(work, query)[0] == "build/bun"


def test_whole_folder_copied_in_by_hand_is_found(workspace: Path, tmp_path: Path) -> None:
    work = open_pass(workspace)
    wiki = work.places.wiki
    leaf(wiki, "build/bun", "The lockfile drifts on CI.")
    assert search(work, "lockfile") == ["build/bun"]
    other = tmp_path / "other"
    leaf(other, "infra/terraform", "State locks in the tapir bucket.")
    shutil.copytree(other / "infra", wiki / "infra")
    assert search(work, "tapir") == ["infra/terraform"]
