"""Reading pages: the path check without resolving, and the per-process page cache, which must
never return a page's old text after a person changed it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikimem.errors import WikiError
from wikimem.wiki import pages as wiki_module
from wikimem.wiki.pages import PAGES, Wiki

PAGE = "---\ntitle: Bun\nsummary: How bun builds.\n---\n\n## Lockfile\n\nThe lockfile drifts.\n"


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Wiki:
    # Every file of a test is seconds old at most: trust stamps at once, as the cache does
    # for a page older than its racy window.
    monkeypatch.setattr(wiki_module.PageCache, "RACY_NS", -(10**18))
    PAGES.clear()
    root = tmp_path / "memory"
    (root / "build" / "bun").mkdir(parents=True)
    (root / "build" / "bun" / "MEMORY.md").write_text(PAGE, encoding="utf-8")
    return Wiki(root)


def tick(folder: Path) -> None:
    """Wait for the file system's clock to move on, so the next write gets a later stamp."""
    probe = folder / ".clock-probe"
    probe.write_bytes(b"0")
    first = probe.stat().st_ctime_ns
    for n in range(1_000_000):
        probe.write_bytes(str(n).encode())
        if probe.stat().st_ctime_ns > first:
            break
    probe.unlink()


def body(w: Wiki) -> str:
    leaf = w.read_leaf("build/bun")
    assert leaf is not None
    return leaf.page.entries[0].body


def test_cached_page_is_reread_after_an_edit_in_place_with_mtime_and_size_restored(
    wiki: Wiki,
) -> None:
    assert "drifts" in body(wiki)
    assert "drifts" in body(Wiki(wiki.root))  # served from the cache
    file = wiki.root / "build" / "bun" / "MEMORY.md"
    old = file.stat()
    tick(wiki.root)
    with open(file, "r+", encoding="utf-8") as handle:
        handle.write(PAGE.replace("drifts", "floats"))
    os.utime(file, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert (file.stat().st_size, file.stat().st_mtime_ns) == (old.st_size, old.st_mtime_ns)
    assert "floats" in body(Wiki(wiki.root))


def test_cached_page_replaced_by_rename_or_deleted(wiki: Wiki) -> None:
    assert "drifts" in body(wiki)
    file = wiki.root / "build" / "bun" / "MEMORY.md"
    spare = file.with_name("new.md")
    spare.write_text(PAGE.replace("drifts", "sinks!"), encoding="utf-8")
    os.replace(spare, file)  # what an editor's atomic save does: a new inode
    assert "sinks!" in body(Wiki(wiki.root))
    file.unlink()
    assert Wiki(wiki.root).read_leaf("build/bun") is None


def test_recent_pages_are_never_cached(wiki: Wiki, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wiki_module.PageCache, "RACY_NS", 10**18)
    assert "drifts" in body(wiki)
    assert str(wiki.root / "build" / "bun" / "MEMORY.md") not in PAGES._pages


def test_confine_fast_path_still_refuses_symlinks_and_dotdot(wiki: Wiki, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "leaf").mkdir(parents=True)
    (outside / "leaf" / "MEMORY.md").write_text(PAGE, encoding="utf-8")
    (wiki.root / "evil").symlink_to(outside, target_is_directory=True)
    for relpath in (
        "evil/leaf/MEMORY.md",
        "../outside/leaf/MEMORY.md",
        "build/../../outside/leaf/MEMORY.md",
        str(outside / "leaf" / "MEMORY.md"),
    ):
        with pytest.raises(WikiError, match="leaves the wiki"):
            wiki.confine(relpath)
    inside = wiki.root / "build" / "inner"
    inside.symlink_to(wiki.root / "build" / "bun", target_is_directory=True)
    assert wiki.confine("build/inner/MEMORY.md") == inside / "MEMORY.md"  # a link kept inside
    assert wiki.confine("new/leaf/MEMORY.md") == wiki.root / "new" / "leaf" / "MEMORY.md"
