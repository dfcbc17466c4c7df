"""Search over real wiki folders written to disk, with a real SQLite index file."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from pathlib import Path

import pytest

from wikimem.errors import WikiError
from wikimem.recall.search import Hit, SearchIndex, snippet, stamps, store, tokens

TODAY = dt.date(2026, 12, 1)


def write_leaf(
    wiki: Path,
    path: str,
    title: str,
    summary: str,
    entries: list[tuple[str, str] | tuple[str, str, str]],
    *,
    head: str = "",
    extra: str = "",
) -> Path:
    """Write `<wiki>/<path>/MEMORY.md`; an entry is (title, body) or (title, body, meta line)."""
    parts = [
        f"---\ntitle: {title}\nsummary: {summary}\ntype: semantic\nupdated: 2026-11-29\n"
        f"{extra}---\n"
    ]
    if head:
        parts.append(f"\n{head}\n")
    for item in entries:
        heading, body = item[0], item[1]
        meta = f"<!-- wikimem: {item[2]} -->\n" if len(item) > 2 else ""
        parts.append(f"\n## {heading}\n{meta}\n{body}\n")
    file = wiki.joinpath(*path.split("/"), "MEMORY.md")
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("".join(parts), encoding="utf-8")
    return file


def sample_wiki(wiki: Path) -> None:
    write_leaf(
        wiki,
        "build/bun",
        "Bun",
        "How bun builds the web app.",
        [
            (
                "Lockfile drift on CI",
                "`bun install --frozen-lockfile` fails when bun.lockb is stale. Run `bun install` "
                "locally and commit bun.lockb.",
                "type=procedural",
            ),
            (
                "Pinned version",
                "Bun is pinned to 1.1.30 in package.json because 1.1.31 broke workspaces.",
            ),
        ],
    )
    write_leaf(
        wiki,
        "testing/pytest",
        "Pytest",
        "Running the Python test suite.",
        [
            ("Slow fixtures", "The database fixture is session scoped; tests must not commit."),
            ("Markers", "Use the slow marker for end to end tests."),
        ],
    )
    write_leaf(
        wiki,
        "deploy/docker",
        "Docker images",
        "Building and pushing images.",
        [
            ("Cache mounts", "Use BuildKit cache mounts for the pip cache."),
        ],
    )


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    root = tmp_path / ".clarvis" / "memory"
    sample_wiki(root)
    return root


@pytest.fixture
def index(wiki: Path, tmp_path: Path):
    with SearchIndex(wiki, tmp_path / ".clarvis" / "state" / "search.sqlite") as idx:
        yield idx


def keys(hits: list[Hit]) -> list[tuple[str, str | None]]:
    return [(h.path, h.entry) for h in hits]


def touch_later(file: Path, text: str) -> None:
    """Rewrite `file` and push its mtime forward, so a refresh cannot miss the change."""
    before = file.stat().st_mtime_ns
    file.write_text(text, encoding="utf-8")
    os.utime(file, ns=(before + 5_000_000_000, before + 5_000_000_000))


def test_tokens_fold_and_drop_short_words_and_stopwords() -> None:
    assert tokens("C++ and the Bun-lockfile, Café!") == ["bun", "lockfile", "cafe"]
    assert tokens('"" -- *') == []


def test_obvious_entry_ranks_first(index: SearchIndex) -> None:
    hits = index.search("lockfile drift")
    assert hits[0].path == "build/bun"
    assert hits[0].entry == "lockfile-drift-on-ci"
    assert hits[0].title == "Lockfile drift on CI"
    assert hits[0].type == "procedural"
    assert hits[0].score > 0
    assert index.search("database fixture")[0].entry == "slow-fixtures"


def test_entries_matching_every_word_come_before_partial_matches(
    wiki: Path, index: SearchIndex
) -> None:
    write_leaf(
        wiki,
        "misc/noise",
        "Noise",
        "Unrelated.",
        [
            ("Cache cache cache", "cache cache cache cache cache cache cache"),
        ],
    )
    index.refresh()
    hits = index.search("cache pip")
    assert hits[0].entry == "cache-mounts"
    assert "all terms" in hits[0].why
    assert ("misc/noise", "cache-cache-cache") in keys(hits)


def test_leaf_level_hit_from_summary(index: SearchIndex) -> None:
    hits = index.search("pushing")
    assert keys(hits) == [("deploy/docker", None)]
    assert hits[0].title == "Docker images"
    assert hits[0].citation("abc1234") == "deploy/docker@abc1234"


def test_snippet_is_one_line_around_the_match(wiki: Path, index: SearchIndex) -> None:
    filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n" * 12
    write_leaf(
        wiki,
        "build/vite",
        "Vite",
        "Bundler.",
        [
            ("Long notes", f"{filler}The chunk size warning is harmless here.\n{filler}"),
        ],
    )
    index.refresh()
    hit = index.search("chunk warning")[0]
    assert hit.entry == "long-notes"
    assert "chunk size warning" in hit.snippet
    assert "\n" not in hit.snippet
    assert len(hit.snippet) <= 202
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")


def test_snippet_short_text_is_whole() -> None:
    assert snippet("one\n two   three", ["two"]) == "one two three"


def test_citation_format(index: SearchIndex) -> None:
    hit = index.search("lockfile")[0]
    assert hit.citation("abc1234") == "build/bun#lockfile-drift-on-ci@abc1234"
    assert hit.citation(None) == "build/bun#lockfile-drift-on-ci"


def test_why_names_columns_terms_and_bm25(index: SearchIndex) -> None:
    hit = index.search("lockfile drift")[0]
    assert "bm25 -" in hit.why
    assert "title: lockfile, drift" in hit.why
    assert "body: lockfile" in hit.why
    assert hit.matched == ("lockfile", "drift")


@pytest.mark.parametrize(
    "query",
    [
        "C++",
        '"',
        "-",
        "--frozen-lockfile",
        'lockfile"',
        '"unclosed lockfile',
        "a AND OR NOT",
        "NEAR(bun lockfile)",
        "*",
        "title:bun",
        "^bun",
        "'; DROP TABLE docs; --",
        "(",
        ")",
        "",
        "   ",
        "bun* +lockfile",
        "{bun}",
        "bun:lockfile",
        "🙂 bun",
        "\x00bun",
        "a b c d",
    ],
)
def test_punctuation_heavy_queries_never_raise(index: SearchIndex, query: str) -> None:
    hits = index.search(query)
    assert isinstance(hits, list)
    if "bun" in query or "lockfile" in query:
        assert hits and hits[0].path == "build/bun"


def test_long_pasted_query_stays_usable(index: SearchIndex) -> None:
    query = "Fix the failing web build: bun install --frozen-lockfile exits 1 on CI " * 20
    assert index.search(query)[0].entry == "lockfile-drift-on-ci"


def test_refresh_counts_pages_and_is_a_noop_when_nothing_changed(index: SearchIndex) -> None:
    assert index.refresh() == 3
    assert index.refresh() == 0


def test_refresh_picks_up_a_hand_edit(wiki: Path, index: SearchIndex) -> None:
    assert index.search("workspaces")
    file = wiki / "build" / "bun" / "MEMORY.md"
    touch_later(
        file,
        file.read_text(encoding="utf-8").replace("workspaces", "monorepos")
        + "\n## Zebra stripes\n\nA hand-written note about zebras.\n",
    )
    assert index.refresh() == 1
    assert index.search("workspaces") == []
    assert keys(index.search("zebras")) == [("build/bun", "zebra-stripes")]


def test_same_size_edit_is_seen_through_mtime(wiki: Path, index: SearchIndex) -> None:
    index.refresh()
    file = wiki / "deploy" / "docker" / "MEMORY.md"
    text = file.read_text(encoding="utf-8")
    touch_later(file, text.replace("BuildKit", "KitBuild"))
    assert file.stat().st_size == len(text.encode())
    assert index.refresh() == 1
    assert index.search("kitbuild")


def test_deleted_page_disappears(wiki: Path, index: SearchIndex) -> None:
    assert index.search("fixture")
    (wiki / "testing" / "pytest" / "MEMORY.md").unlink()
    assert index.refresh() == 0
    assert index.search("fixture") == []
    assert index.search("pytest") == []


def test_dot_folders_and_non_wiki_paths_are_never_indexed(wiki: Path, index: SearchIndex) -> None:
    write_leaf(wiki / ".trash", "build/old", "Old", "Trashed page.", [("Gone", "platypus")])
    write_leaf(wiki, ".git/objects", "Git", "Not a page.", [("Blob", "platypus")])
    write_leaf(wiki, "Build/Upper", "Upper", "Not a slug.", [("Shout", "platypus")])
    write_leaf(wiki, "a/b/c/d/e", "Deep", "Too deep.", [("Deep", "platypus")])
    write_leaf(wiki, "a/b/c/d", "Deepest", "Four levels.", [("Fine", "platypus")])
    (wiki / "MEMORY.md").write_text("---\ntitle: Root\n---\n\n## X\n\nplatypus\n")
    index.refresh()
    assert keys(index.search("platypus")) == [("a/b/c/d", "fine")]


def test_corrupt_index_file_is_rebuilt(wiki: Path, tmp_path: Path) -> None:
    file = tmp_path / "state" / "search.sqlite"
    file.parent.mkdir()
    file.write_bytes(b"this is not a database at all" * 100)
    with SearchIndex(wiki, file) as idx:
        assert idx.search("lockfile")[0].path == "build/bun"
    with sqlite3.connect(file) as db:
        assert db.execute("SELECT count(*) FROM pages").fetchone()[0] == 3


def test_schema_mismatch_is_rebuilt(wiki: Path, tmp_path: Path) -> None:
    file = tmp_path / "search.sqlite"
    with sqlite3.connect(file) as db:
        db.execute("CREATE TABLE pages (x)")
        db.execute("PRAGMA user_version = 99")
    with SearchIndex(wiki, file) as idx:
        assert idx.refresh() == 3
        assert idx.search("docker")


def test_index_damaged_while_open_heals(wiki: Path, tmp_path: Path) -> None:
    file = tmp_path / "search.sqlite"
    with SearchIndex(wiki, file) as idx:
        idx.refresh()
        idx._connection().execute("DROP TABLE docs")
        assert idx.search("lockfile")[0].entry == "lockfile-drift-on-ci"


def test_deleted_index_file_is_rebuilt_by_a_new_instance(wiki: Path, tmp_path: Path) -> None:
    file = tmp_path / "search.sqlite"
    with SearchIndex(wiki, file) as idx:
        first = idx.search("bun")
    file.unlink()
    with SearchIndex(wiki, file) as idx:
        assert idx.search("bun") == first


def test_index_busy_in_another_process_is_a_wiki_error(
    wiki: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.05)
    file = tmp_path / "search.sqlite"
    with SearchIndex(wiki, file) as idx:
        idx.refresh()
    holder = sqlite3.connect(file)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with SearchIndex(wiki, file) as idx, pytest.raises(WikiError, match="busy"):
            idx.refresh()
    finally:
        holder.rollback()
        holder.close()
    assert file.stat().st_size > 0  # a busy index is waited for, never discarded


def test_expired_and_due_flags(wiki: Path, index: SearchIndex) -> None:
    write_leaf(
        wiki,
        "ops/oncall",
        "On call",
        "Rotation notes.",
        [
            ("Old rotation", "Alice covers weekends.", "type=working expires=2026-11-30"),
            ("Pager", "Alice owns the pager.", "review-by=2026-11-15"),
            ("Later", "Alice will hand over.", "expires=2027-06-30 review-by=2027-01-31"),
        ],
    )
    write_leaf(
        wiki,
        "ops/legacy",
        "Legacy",
        "Old notes.",
        [("Servers", "Alice racked them.")],
        extra="expires: 2025-01-01\n",
    )
    index.refresh()
    hits = {h.entry or h.path: h for h in index.search("alice", today=TODAY)}
    assert hits["old-rotation"].expired and not hits["old-rotation"].due
    assert hits["old-rotation"].type == "working"
    assert hits["pager"].due and not hits["pager"].expired
    assert not hits["later"].expired and not hits["later"].due
    assert hits["servers"].expired  # inherited from the leaf's frontmatter
    live = {h.entry for h in index.search("alice", today=TODAY, include_expired=False)}
    assert live == {"pager", "later"}
    assert hits["later"].expired is False
    later = index.search("alice", today=dt.date(2028, 1, 1), include_expired=False)
    assert keys(later) == [("ops/oncall", "pager")]


def test_odd_pages_are_indexed_without_crashing(wiki: Path, index: SearchIndex) -> None:
    crlf = wiki / "odd" / "crlf" / "MEMORY.md"
    crlf.parent.mkdir(parents=True)
    crlf.write_bytes(
        b"---\r\ntitle: Crlf\r\nsummary: Windows page.\r\n---\r\n\r\n"
        b"## Line endings\r\n\r\nGit autocrlf flips them.\r\n"
    )
    broken = wiki / "odd" / "bytes" / "MEMORY.md"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"---\ntitle: [unclosed\n---\n\n## Binary\n\nbad \xff\xfe byte quokka\n")
    assert index.refresh() == 5
    assert index.search("autocrlf")[0].path == "odd/crlf"
    assert index.search("quokka")[0].path == "odd/bytes"


def test_limit_is_respected(index: SearchIndex) -> None:
    assert len(index.search("bun lockfile pinned fixture docker", limit=2)) == 2
    assert index.search("bun", limit=0) == []


def generate_wiki(wiki: Path, leaves: int) -> None:
    """A wiki of `leaves` leaves under 20 topics, each with three entries."""
    for n in range(leaves):
        write_leaf(
            wiki,
            f"topic-{n % 20}/leaf-{n}",
            f"Leaf {n}",
            f"Summary of leaf number {n}.",
            [
                (f"Entry alpha {n}", f"Common words about builds and tests, marker m{n}x."),
                (f"Entry beta {n}", "Deploy notes shared by every leaf in the wiki."),
                (f"Entry gamma {n}", f"Procedure {n}: run the tool, then check the output."),
            ],
        )


def test_two_thousand_leaves_refresh_and_search(tmp_path: Path) -> None:
    wiki = tmp_path / "memory"
    generate_wiki(wiki, 2000)
    with SearchIndex(wiki, tmp_path / "search.sqlite") as idx:
        assert idx.refresh() == 2000
        assert idx.refresh() == 0
        hits = idx.search("m1234x")
        assert keys(hits) == [("topic-14/leaf-1234", "entry-alpha-1234")]
        assert len(idx.search("deploy notes", limit=10)) == 10


# -- staleness: the cheap full check and the pass's git-guided refresh ---------------------------


def settled(index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """Refresh trusting every stamp (as if every file were older than the racy window), then
    wait for the file system's clock to tick, so any later change gets a later time stamp."""
    monkeypatch.setattr(stamps, "RACY_NS", -(10**18))
    index.refresh()
    probe = index.wiki.parent / "clock-probe"
    probe.write_bytes(b"0")
    first = probe.stat().st_ctime_ns
    for n in range(1_000_000):  # a coarse clock ticks within milliseconds
        probe.write_bytes(str(n).encode())
        if probe.stat().st_ctime_ns > first:
            break
    probe.unlink()


def test_edit_in_place_with_mtime_and_size_restored_is_seen(
    wiki: Path, index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled(index, monkeypatch)
    file = wiki / "deploy" / "docker" / "MEMORY.md"
    old = file.stat()
    text = file.read_text(encoding="utf-8")
    with open(file, "r+", encoding="utf-8") as handle:  # in place: same inode, same size
        handle.write(text.replace("BuildKit", "KitBuild"))
    os.utime(file, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert (file.stat().st_mtime_ns, file.stat().st_size) == (old.st_mtime_ns, old.st_size)
    assert index.refresh() == 1  # ctime moved
    assert index.search("kitbuild") and not index.search("buildkit")


def test_new_leaf_folder_nested_leaf_and_renamed_leaf_are_seen(
    wiki: Path, index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled(index, monkeypatch)
    write_leaf(wiki, "ops/pager", "Pager", "On call.", [("Rota", "The narwhal rota.")])
    write_leaf(wiki, "build/bun/workspaces", "Workspaces", "Nested.", [("Links", "ocelot")])
    (wiki / "testing" / "pytest").rename(wiki / "testing" / "unit")
    assert index.refresh() == 3
    assert keys(index.search("narwhal")) == [("ops/pager", "rota")]
    assert keys(index.search("ocelot")) == [("build/bun/workspaces", "links")]
    assert {h.path for h in index.search("fixture")} == {"testing/unit"}
    assert index.refresh() == 0


def test_deleted_leaf_and_topic_disappear_with_trusted_folder_stamps(
    wiki: Path, index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled(index, monkeypatch)
    (wiki / "deploy" / "docker" / "MEMORY.md").unlink()
    import shutil

    shutil.rmtree(wiki / "testing")
    index.refresh()
    assert index.search("buildkit") == [] and index.search("fixture") == []
    assert index.search("lockfile")


def test_page_replaced_by_a_symlink_or_grown_past_the_cap_is_dropped_and_comes_back(
    wiki: Path, index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled(index, monkeypatch)
    file = wiki / "deploy" / "docker" / "MEMORY.md"
    text = file.read_text(encoding="utf-8")
    monkeypatch.setattr(stamps, "MAX_PAGE_BYTES", len(text) - 1)
    index.refresh()
    assert index.search("buildkit") == []
    monkeypatch.setattr(stamps, "MAX_PAGE_BYTES", 2_000_000)
    index.refresh()  # the folder did not change: the page is still stat-ed
    assert index.search("buildkit")
    outside = wiki.parent / "outside.md"
    outside.write_text(text.replace("BuildKit", "Smuggled"), encoding="utf-8")
    file.unlink()
    file.symlink_to(outside)
    index.refresh()
    assert index.search("smuggled") == [] and index.search("buildkit") == []


def test_recent_changes_are_looked_at_again_until_they_settle(
    wiki: Path, index: SearchIndex
) -> None:
    # Everything in the fixture was just written: nothing is trusted, every page is read
    # again, yet only a changed text counts (and re-indexes).
    assert index.refresh() == 3
    file = wiki / "build" / "bun" / "MEMORY.md"
    stat = file.stat()
    file.write_text(
        file.read_text(encoding="utf-8").replace("workspaces", "monoliths"), encoding="utf-8"
    )
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same tick as far as mtime goes
    assert index.refresh() == 1
    assert index.search("monoliths")
    assert index.refresh() == 0


def test_refresh_of_named_paths_reads_only_those_and_keeps_the_head_mark(
    wiki: Path, index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled(index, monkeypatch)
    index.refresh(head="c1")
    assert index.head() == "c1"
    bun = wiki / "build" / "bun" / "MEMORY.md"
    touch_later(bun, bun.read_text(encoding="utf-8").replace("workspaces", "monoliths"))
    docker = wiki / "deploy" / "docker" / "MEMORY.md"
    touch_later(docker, docker.read_text(encoding="utf-8").replace("BuildKit", "KitBuild"))
    write_leaf(wiki, "ops/pager", "Pager", "On call.", [("Rota", "The narwhal rota.")])
    (wiki / "testing" / "pytest" / "MEMORY.md").unlink()
    changed = [
        "build/bun/MEMORY.md",
        "ops/pager/MEMORY.md",
        "testing/pytest/MEMORY.md",
        "build/TOPIC.md",
        "PROFILE.md",
        "../escape/MEMORY.md",
        ".trash/x/MEMORY.md",
    ]
    assert index.refresh(changed, head="c2") == 2
    assert index.head() == "c2"
    assert index.search("monoliths") and index.search("narwhal")
    assert index.search("fixture") == []
    assert index.search("buildkit")  # not named: left alone, as the caller promised
    # A full check (what search and context do) still finds it, and drops the head mark,
    # because the index no longer matches c2.
    assert index.refresh() == 1
    assert index.search("kitbuild") and index.head() is None


def test_a_full_check_that_changes_nothing_keeps_the_head_mark(
    index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled(index, monkeypatch)
    index.refresh(head="c1")
    assert index.refresh() == 0
    assert index.head() == "c1"


def test_named_path_through_a_symlinked_folder_is_not_indexed(
    wiki: Path, index: SearchIndex, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere" / "leaf"
    write_leaf(elsewhere.parent, "leaf", "Out", "Outside.", [("Secret", "wombat")])
    (wiki / "linked").symlink_to(elsewhere.parent, target_is_directory=True)
    index.refresh(["linked/leaf/MEMORY.md"])
    assert index.search("wombat") == []
    index.refresh()
    assert index.search("wombat") == []


def test_a_hit_shows_the_entrys_first_lines_never_a_bare_heading(
    wiki: Path, index: SearchIndex
) -> None:
    write_leaf(
        wiki,
        "infra/terraform",
        "Terraform",
        "",
        [
            (
                "Error acquiring the state lock",
                "`terraform plan` fails while another run holds the lock. Wait for it, then run "
                "`terraform force-unlock <LOCK_ID>`.",
                "type=procedural",
            )
        ],
        head="# Terraform",
    )
    index.refresh()

    hits = {(h.path, h.entry): h for h in index.search("terraform")}

    leaf = hits[("infra/terraform", None)]
    assert "#" not in leaf.snippet
    entry = hits[("infra/terraform", "error-acquiring-the-state-lock")]
    assert entry.snippet.startswith("`terraform plan` fails while another run holds the lock.")
    assert "wikimem:" not in entry.snippet
