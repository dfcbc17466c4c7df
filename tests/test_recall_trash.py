"""Forget, trash, restore, purge and undo on real wiki repositories."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import git
from tests.recall_support import BUN, CACHE, PYTEST, learn, setup
from wikimem.wiki.markdown import slugify


@pytest.fixture
def learned(workspace: Path):  # type: ignore[no-untyped-def]
    places, settings = setup(workspace)
    learn(places, settings, "run-1", BUN, CACHE, PYTEST)
    return places, settings


def count(places) -> int:  # type: ignore[no-untyped-def]
    return int(git("rev-list", "--count", "HEAD", cwd=places.wiki))


def test_forget_an_entry_hides_it_everywhere_in_one_commit(learned, cli) -> None:
    places, _ = learned
    before = count(places)
    done = cli("forget", "build/bun#cache-key")
    assert done.code == 0 and done.out.startswith("forgot build/bun#cache-key (1 entry)")
    assert count(places) == before + 1
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    changed = git("show", "--name-only", "--format=", "HEAD", cwd=places.wiki).split()
    assert set(changed) == {".trash/build/bun/MEMORY.md", "build/TOPIC.md", "build/bun/MEMORY.md"}
    assert "Cache key" not in (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert "Cache key" not in (places.wiki / "build" / "TOPIC.md").read_text()
    assert json.loads(cli("search", "cache", "key", "--json").out) == []
    assert "Cache key" not in cli("context", "--query", "cache key").out
    assert cli("lint").code == 0
    assert cli("trash").out == "build/bun#cache-key  Cache key\n"

    back = cli("restore", "build/bun#cache-key")
    assert back.code == 0 and count(places) == before + 2
    assert cli("trash").out == "the trash is empty\n"
    assert "cache-key" in cli("search", "cache", "key").out
    assert not (places.wiki / ".trash").exists()


def test_forget_a_leaf_and_restore_it_byte_for_byte(learned, cli) -> None:
    places, _ = learned
    leaf = places.wiki / "testing" / "pytest" / "MEMORY.md"
    original = leaf.read_bytes()
    assert cli("forget", "testing/pytest").code == 0
    assert not leaf.exists()
    # its topic had no other leaf and no text of a person's: it goes too
    assert not (places.wiki / "testing").exists()
    profile = (places.wiki / "PROFILE.md").read_text()
    assert "sqlite" not in profile.lower() and "Testing" not in profile
    assert cli("lint").code == 0
    assert "sqlite" not in cli("context", "--query", "sqlite xdist").out.lower()
    assert cli("restore", "testing/pytest").code == 0
    assert leaf.read_bytes() == original
    assert "leaves: 1" in (places.wiki / "testing" / "TOPIC.md").read_text()


def test_forgotten_text_does_not_survive_in_summaries(learned, cli) -> None:
    places, _ = learned
    assert "Lockfile drift" in (places.wiki / "PROFILE.md").read_text()
    assert cli("forget", "build/bun#lockfile-drift-on-ci").code == 0
    for page in ("PROFILE.md", "build/TOPIC.md", "build/bun/MEMORY.md"):
        assert "Lockfile drift" not in (places.wiki / page).read_text(), page
    assert "summary: Cache key" in (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert "Lockfile drift" not in cli("context").out


def test_forget_and_restore_refuse_what_is_not_there(learned, cli) -> None:
    places, _ = learned
    before = count(places)
    missing = cli("forget", "build/bun#no-such-entry")
    assert missing.code == 1
    assert missing.err.startswith("wikimem: error: no entry 'no-such-entry' in build/bun")
    assert cli("forget", "build/nope").code == 1
    assert cli("forget", "../etc").code == 2
    assert cli("restore", "build/bun").err.startswith("wikimem: error: nothing from build/bun")
    assert count(places) == before
    assert git("status", "--porcelain", cwd=places.wiki) == ""


def test_restore_refuses_to_overwrite_an_entry_written_again(learned, cli) -> None:
    places, settings = learned
    cli("forget", "build/bun#cache-key")
    learn(places, settings, "run-2", ("build/bun", "Cache key", "The cache key is now per OS."))
    clash = cli("restore", "build/bun#cache-key")
    assert clash.code == 1 and "exists again with other text" in clash.err
    assert "per OS" in (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert git("status", "--porcelain", cwd=places.wiki) == ""


def test_purge_empties_the_trash_and_says_history_keeps_the_text(learned, cli) -> None:
    places, _ = learned
    assert cli("purge").out == "the trash is empty\n"
    cli("forget", "build/bun#cache-key")
    cli("forget", "testing/pytest")
    before = count(places)
    done = cli("purge", "--yes")
    assert done.code == 0 and count(places) == before + 1
    assert "purged 2 item(s)" in done.out
    assert "Git history still holds their text" in done.out
    assert f"git -C {places.wiki} filter-repo --invert-paths --path .trash/" in done.out
    assert not (places.wiki / ".trash").exists()
    assert cli("trash").out == "the trash is empty\n"
    assert cli("restore", "testing/pytest").code == 1
    # the text is still in history, as the message says
    assert "Cache key" in git("log", "-p", cwd=places.wiki)


def test_undo_reverts_a_pass_and_recompiles(learned, cli) -> None:
    places, settings = learned
    sha = learn(places, settings, "run-2", ("deploy/cloud-run", "Port", "Listen on $PORT."))
    assert "deploy" in (places.wiki / "PROFILE.md").read_text()
    done = cli("undo", sha[:7])
    assert done.code == 0 and "deploy/cloud-run#port" in done.out
    assert not (places.wiki / "deploy" / "cloud-run" / "MEMORY.md").exists()
    assert json.loads(cli("search", "port", "--json").out) == []
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    body = git("log", "-1", "--format=%B", cwd=places.wiki)
    assert f"Wikimem-Undo: {sha}" in body
    assert cli("lint").code in (0, 1)  # an empty topic may remain; no crash


def test_undo_is_entry_level_and_refuses_overlapping_later_changes(learned, cli) -> None:
    places, settings = learned
    leaf = places.wiki / "build" / "bun" / "MEMORY.md"
    first = learn(places, settings, "run-2", ("build/bun", "Cache key", "Per OS cache key."))
    learn(places, settings, "run-3", ("build/bun", "Registry", "Use the internal registry."))
    # the later commit touched the same page but another entry: the undo goes through
    done = cli("undo", first)
    assert done.code == 0, done.err
    text = leaf.read_text()
    assert "The lockfile hash is the CI cache key" in text and "Per OS" not in text
    assert "Use the internal registry." in text

    second = learn(places, settings, "run-4", ("build/bun", "Registry", "Use the mirror."))
    learn(places, settings, "run-5", ("build/bun", "Registry", "Use the public registry."))
    before = count(places)
    refused = cli("undo", second)
    assert refused.code == 1
    assert "changed build/bun#registry" in refused.err and "Traceback" not in refused.err
    assert count(places) == before and "public registry" in leaf.read_text()


def test_undo_of_a_forget_brings_the_entry_back(learned, cli) -> None:
    places, _ = learned
    cli("forget", "build/bun#cache-key")
    sha = git("rev-parse", "HEAD", cwd=places.wiki).strip()
    assert cli("undo", sha).code == 0
    assert "Cache key" in (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert cli("trash").out == "the trash is empty\n"
    assert cli("undo", "no-such-commit").code == 1
    first = git("rev-list", "--max-parents=0", "HEAD", cwd=places.wiki).strip()
    assert "first commit" in cli("undo", first).err


# -- hand-written entries come back byte for byte -------------------------------------------

UPDATED = re.compile(r"^updated: .*$", re.M)
META = "<!-- wikimem: type=procedural review-by=2027-01-31 -->"
FIRST = "## Keep me\n\nThe page starts with this entry.\n"
TIGHT = f"## Frozen lockfile\n{META}\nRun `bun install` first.\n  trailing spaces stay  \n"
LOOSE = f"## Cache key\n\n\n{META}\n\nThe lockfile hash is the key.\n"
PLAIN = "## Plain note\nNo meta line,\n\n\nand odd spacing.\n"
LAST = "## Last words\nNo newline at the end of the file."


def page_text(entries: list[str], nl: str) -> str:
    """A leaf a person wrote: entries separated by one blank line, in newline style `nl`."""
    head = "---\ntitle: Bun\nsummary: Bun builds\nupdated: 2020-01-01\n---\n# Bun\n\n"
    return (head + "\n".join(entries)).replace("\n", nl)


@pytest.mark.parametrize(
    ("entries", "index", "nl"),
    [
        ([FIRST, TIGHT], 1, "\n"),
        ([FIRST, LOOSE], 1, "\n"),
        ([FIRST, PLAIN], 1, "\n"),
        ([FIRST, TIGHT], 1, "\r\n"),
        ([FIRST, TIGHT, LAST], 2, "\n"),
        ([FIRST, TIGHT, LAST], 2, "\r\n"),
        ([FIRST, TIGHT, PLAIN], 1, "\n"),
        ([FIRST, LOOSE, LAST], 1, "\r\n"),
    ],
    ids=[
        "meta-tight",
        "meta-loose",
        "no-meta",
        "crlf",
        "end-no-newline",
        "crlf-end-no-newline",
        "middle",
        "crlf-middle",
    ],
)
def test_forget_then_restore_gives_a_hand_written_entry_back_byte_for_byte(
    workspace: Path, cli, entries: list[str], index: int, nl: str
) -> None:
    places, _ = setup(workspace)
    leaf = places.wiki / "build" / "bun" / "MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_bytes(page_text(entries, nl).encode())
    gone = slugify(entries[index].split("\n", 1)[0].removeprefix("## "))
    forgotten = entries[index].replace("\n", nl)

    assert cli("forget", f"build/bun#{gone}").code == 0
    assert forgotten not in leaf.read_bytes().decode()
    trashed = (places.wiki / ".trash" / "build" / "bun" / "MEMORY.md").read_bytes().decode()
    assert forgotten in trashed
    assert nl == "\n" or "\n" not in trashed.replace("\r\n", "")  # one newline style
    assert cli("restore", f"build/bun#{gone}").code == 0
    assert git("status", "--porcelain", cwd=places.wiki) == ""

    # the entry goes back at the end of the page after one blank line, exactly as written
    kept = page_text([text for i, text in enumerate(entries) if i != index], nl)
    expected = kept + (nl if kept.endswith(nl) else nl + nl) + forgotten
    if index == len(entries) - 1:
        assert expected == page_text(entries, nl)  # the page as a whole is back as it was
    restored = leaf.read_bytes().decode()
    assert restored.endswith(forgotten)
    assert UPDATED.sub("", restored) == UPDATED.sub("", expected)


def test_forgetting_an_entry_again_replaces_it_in_the_trash_as_written(
    workspace: Path, cli
) -> None:
    places, _ = setup(workspace)
    leaf = places.wiki / "build" / "bun" / "MEMORY.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_bytes(page_text([FIRST, TIGHT, PLAIN], "\n").encode())
    assert cli("forget", "build/bun#frozen-lockfile").code == 0
    assert cli("forget", "build/bun#plain-note").code == 0
    again = f"## Frozen lockfile\n{META}\nNow `bun install --frozen-lockfile` passes.\n"
    leaf.write_bytes(leaf.read_bytes() + again.encode())
    assert cli("forget", "build/bun#frozen-lockfile").code == 0

    trashed = (places.wiki / ".trash" / "build" / "bun" / "MEMORY.md").read_text()
    assert again + "\n" + PLAIN in trashed and TIGHT not in trashed  # in place, as written
    assert cli("trash").out.splitlines() == [
        "build/bun#frozen-lockfile  Frozen lockfile",
        "build/bun#plain-note  Plain note",
    ]
    assert cli("restore", "build/bun#frozen-lockfile").code == 0
    assert leaf.read_text().endswith("\n\n" + again)
