"""Two people changing the same text on two machines: after both sync, both versions are on the
page everywhere, marked for a person to settle, and lint says where."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import git, run_wikimem
from tests.test_confirmations import LEAF as PIN_LEAF
from tests.test_confirmations import PIN, remember, start
from tests.test_sync import checkout, entries, learn, make_workspace, remote, sync_in
from wikimem.intake.queue import Queue
from wikimem.lifecycle.merge import END_NOTE, Merger
from wikimem.lifecycle.sync import Synced
from wikimem.wiki import markdown
from wikimem.wiki.history import Commit, WikiRepo
from wikimem.wiki.lint import SYNC_NOTE

__all__ = ["remote"]  # the bare repository fixture

WIKI = Path(".clarvis", "memory")
LEAF = "build/bun/MEMORY.md"


def shared(tmp_path: Path, remote: Path) -> tuple[Path, Path]:
    """Machines a and b on one wiki, with a hand-written line on PROFILE.md and on a leaf."""
    a, b = make_workspace(tmp_path, "a"), make_workspace(tmp_path, "b")
    learn(a, ("build/bun", "Start"))
    edit(a, "PROFILE.md", "# a\n", "# a\n\nRelease train: Thursdays.\n")
    edit(a, LEAF, "# Bun\n", "# Bun\n\nCI installs with bun.\n\nThe lockfile is committed.\n")
    sync_in(a, "--remote", str(remote))
    git("clone", "--quiet", str(remote), str(b / WIKI), cwd=tmp_path)
    return a, b


def edit(workspace: Path, page: str, old: str, new: str) -> None:
    """A person's edit in their editor, left for wikimem to commit as theirs."""
    path = workspace / WIKI / page
    text = path.read_text(encoding="utf-8")
    assert old in text, text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def lint_rules(workspace: Path) -> list[tuple[str, str]]:
    done = run_wikimem("lint", "--json", cwd=workspace)
    found = json.loads(done.stdout)
    problems = found["problems"] if isinstance(found, dict) else found
    return [(p["rule"], p["file"].removeprefix(".clarvis/memory/")) for p in problems]


def both_edit_and_sync(a: Path, b: Path, page: str, old: str, ours: str, theirs: str) -> dict:
    """a and b each learn something and change `old` on `page`; a syncs, b, then a again."""
    learn(a, ("build/bun", "From a"), ("deploy/fly", "Regions"))
    learn(b, ("build/bun", "From b"))
    edit(a, page, old, theirs)
    edit(b, page, old, ours)
    sync_in(a)
    done = sync_in(b)
    assert sync_in(a)["received"]
    return done


def test_both_people_changing_a_profile_line_keep_both_everywhere(
    tmp_path: Path, remote: Path
) -> None:
    a, b = shared(tmp_path, remote)
    old = "Release train: Thursdays."
    done = both_edit_and_sync(a, b, "PROFILE.md", old, "Release train: Fridays.", "Train: Tue.")
    assert done["conflicts"] == ["PROFILE.md"]
    check = checkout(remote, tmp_path)
    for root in (a / WIKI, b / WIKI, check):
        text = (root / "PROFILE.md").read_text(encoding="utf-8")
        # the remote's line, then b's below a note naming b's commit, then the end note
        theirs, note = text.index("Train: Tue."), text.index(SYNC_NOTE)
        ours, end = text.index("Release train: Fridays."), text.index(END_NOTE)
        assert theirs < note < ours < end < text.index("<!-- wikimem:begin -->"), text
        assert "Edit the wiki by hand" in text[note:ours]
        assert old not in text
        assert "deploy/TOPIC.md" in text  # the block, regenerated from both sides' leaves
    assert git("rev-parse", "HEAD", cwd=a / WIKI) == git("rev-parse", "HEAD", cwd=b / WIKI)
    assert git("status", "--porcelain", cwd=b / WIKI) == ""
    for machine in (a, b):
        assert ("sync-conflict", "PROFILE.md") in lint_rules(machine)
        assert not [rule for rule, _ in lint_rules(machine) if rule == "stale-block"]
    assert entries(check, "build/bun") == ["start", "from-a", "from-b"]


def test_both_people_changing_a_leaf_head_keep_both_everywhere(
    tmp_path: Path, remote: Path
) -> None:
    a, b = shared(tmp_path, remote)
    old = "CI installs with bun."
    done = both_edit_and_sync(a, b, LEAF, old, "CI installs with bun 1.1.", "CI uses bun ci.")
    assert done["conflicts"] == [LEAF]
    said = Synced("origin", "main", None, 1, True, conflicts=tuple(done["conflicts"])).line()
    assert f"kept both sides' text, marked, in {LEAF}" in said and "wikimem lint" in said
    for root in (a / WIKI, b / WIKI, checkout(remote, tmp_path)):
        page = markdown.parse_page((root / LEAF).read_text(encoding="utf-8"))
        head = page.head
        assert head.index("CI uses bun ci.") < head.index(SYNC_NOTE), head
        assert (
            head.index(SYNC_NOTE) < head.index("CI installs with bun 1.1.") < head.index(END_NOTE)
        )
        assert [e.id for e in page.entries] == ["start", "from-a", "from-b"]
    assert ("sync-conflict", LEAF) in lint_rules(b)


def test_edits_that_do_not_clash_merge_cleanly_without_a_note(tmp_path: Path, remote: Path) -> None:
    a, b = shared(tmp_path, remote)
    learn(a, ("build/bun", "From a"), ("deploy/fly", "Regions"))
    learn(b, ("build/bun", "From b"))
    # both generated blocks changed (a clash git cannot merge); the hand text did not clash
    edit(a, "PROFILE.md", "Release train: Thursdays.", "Release train: Tuesdays.")
    edit(b, "PROFILE.md", "<!-- wikimem:end -->\n", "<!-- wikimem:end -->\n\nAsk Ada first.\n")
    edit(a, LEAF, "CI installs with bun.", "CI installs with bun, frozen.")
    edit(b, LEAF, "The lockfile is committed.", "The lockfile is committed; see deploy.")
    sync_in(a)
    assert sync_in(b)["conflicts"] == []
    sync_in(a)
    for root in (a / WIKI, b / WIKI):
        profile = (root / "PROFILE.md").read_text(encoding="utf-8")
        assert "Release train: Tuesdays." in profile and "Ask Ada first." in profile
        leaf = (root / LEAF).read_text(encoding="utf-8")
        assert "CI installs with bun, frozen." in leaf and "committed; see deploy." in leaf
        assert SYNC_NOTE not in profile + leaf
    assert "sync-conflict" not in [rule for rule, _ in lint_rules(a)]


def merger(tmp_path: Path) -> Merger:
    git("init", "--quiet", str(tmp_path / "repo"), cwd=tmp_path)
    repo = WikiRepo(tmp_path / "repo", tmp_path / "repo", "wiki", tmp_path / "state")
    commit = Commit("f" * 40, "fffffff", "2026-01-01", "Ada Person", "Edit by hand", "", {})
    return Merger(repo, commit)


def test_entries_our_commit_touched_win_and_the_rest_come_from_theirs(tmp_path: Path) -> None:
    head = "---\ntitle: Bun\nupdated: 2026-01-01\n---\n# Bun\n\n"
    base = head + "## Keep\n\nold keep\n\n## Drop\n\ndrop me\n"
    ours = head.replace("01-01", "01-03") + "## Keep\n\nnew keep\n\n## Mine\n\nmine\n"
    theirs = head.replace("01-01", "01-02") + (
        "## Keep\n\nold keep\n\n## Drop\n\ndrop me\n\n## Theirs\n\ntheirs\n"
    )
    merged = markdown.parse_page(merger(tmp_path).merge_entries(base, ours, theirs))
    assert [(e.id, e.body) for e in merged.entries] == [
        ("keep", "new keep"),
        ("theirs", "theirs"),
        ("mine", "mine"),
    ]
    assert str(merged.meta["updated"]) == "2026-01-03"


def test_an_entry_both_sides_changed_keeps_both_versions(tmp_path: Path) -> None:
    head = "---\ntitle: Bun\nsummary: Bun.\nupdated: 2026-01-01\n---\n# Bun\n\n"
    base = head + "## Keep\n\nfirst line\nold\n"
    ours = head.replace("Bun.", "Bun, pinned.") + "## Keep\n\nfirst line, ours\nold\n"
    theirs = head.replace("01-01", "01-02") + "## Keep\n\nfirst line, theirs\nold\nmore\n"
    merging = merger(tmp_path)
    merged = markdown.parse_page(merging.merge("a/b/MEMORY.md", base, ours, theirs))
    assert merging.conflicts == ["a/b/MEMORY.md"] and merging.merged == ["a/b/MEMORY.md"]
    body = merged.entries[0].body
    assert body.index("first line, theirs") < body.index(SYNC_NOTE) < body.index("ours")
    assert "more" in body and "Ada Person (fffffff, Edit by hand)" in body
    # frontmatter merged by line: our summary, their date
    assert merged.meta["summary"] == "Bun, pinned." and str(merged.meta["updated"]) == "2026-01-02"


def test_a_side_that_only_removed_lines_adds_no_note(tmp_path: Path) -> None:
    base = "# T\n\nkeep\nmiddle\nkeep too\n"
    merging = merger(tmp_path)
    assert merging.keep_both(base, "# T\n\nkeep\nkeep too\n", "# T\n\nkeep\nmid\nkeep too\n") == (
        "# T\n\nkeep\nmid\nkeep too\n"
    )
    assert merging.kept == 0


def test_a_merge_in_diff3_style_keeps_the_base_out_of_both_versions(
    tmp_path: Path, monkeypatch
) -> None:
    merging = merger(tmp_path)
    base, ours, theirs = "a\nx\nb\n", "a\ny\nb\n", "a\nz\nb\n"
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    # what git writes when its config asks for the base too (merge.conflictStyle = diff3)
    labels = ["-L", "ours", "-L", "base", "-L", "theirs", "ours", "base", "theirs"]
    diff3 = subprocess.run(
        ["git", "merge-file", "-p", "--diff3", "--marker-size=24", *labels],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    ).stdout
    assert "|" * 24 in diff3
    monkeypatch.setattr(WikiRepo, "merge_text", lambda *args, **kwargs: diff3)
    assert merging.keep_both(base, ours, theirs) == f"a\nz\n{merging.note()}\ny\n{END_NOTE}\nb\n"


def test_an_entry_holding_a_sync_conflict_is_not_rewritten_until_settled(workspace: Path) -> None:
    """A pass may not pick one of the two versions for the person: it waits for review."""
    places, settings = start(workspace)
    remember(places, settings, "r1")
    leaf = places.wiki / PIN_LEAF
    note = (
        "<!-- sync conflict to settle: Ada (abc1234, Pin bun) changed the lines above "
        "differently; their version follows, up to the end note: keep what is right and "
        "delete both notes -->"
    )
    theirs = "Pin bun to 1.1.29 on the release branch."
    leaf.write_text(
        leaf.read_text(encoding="utf-8").replace(
            PIN, f"{PIN}\n{note}\n{theirs}\n<!-- end of sync conflict -->"
        )
    )
    git("commit", "-qam", "a sync's merge", "--author=wikimem <wikimem@localhost>",
        cwd=places.wiki)  # fmt: skip

    newer = "Pin bun to 1.1.31 now that the ESM bug is fixed upstream."
    assert remember(places, settings, "r2", newer) == ["held"]
    text = leaf.read_text(encoding="utf-8")
    assert theirs in text and newer not in text  # both versions wait for the person
    [(path, _)] = list(Queue(places.queue).jobs("review"))
    assert "holds a sync conflict to settle first" in path.read_text(encoding="utf-8")


def test_frontmatter_both_sides_changed_keeps_ours_as_yaml_comments(tmp_path: Path) -> None:
    head = "---\ntitle: Bun\nsummary: Bun.\nupdated: 2026-01-01\n---\n# Bun\n\n## Keep\n\nkeep\n"
    ours = head.replace("summary: Bun.", "summary: Bun, pinned to 1.1.30.")
    theirs = head.replace("summary: Bun.", "summary: Bun, on 1.2.").replace("01-01", "01-02")
    merging = merger(tmp_path)
    text = merging.merge("a/b/MEMORY.md", head, ours, theirs)
    assert text is not None and merging.conflicts == ["a/b/MEMORY.md"]
    page = markdown.parse_page(text)
    assert page.meta["summary"] == "Bun, on 1.2."  # YAML holds one value: theirs
    assert "# summary: Bun, pinned to 1.1.30." in page.frontmatter  # ours, kept as a comment
    assert page.frontmatter.index(SYNC_NOTE) < page.frontmatter.index("# summary: Bun, pinned")
    assert [e.id for e in page.entries] == ["keep"]
    assert page.frontmatter_error is None
    # lint reports it like any conflict, and a later write of the key keeps the comment
    again = markdown.with_meta(page, "summary", "Bun, settled.")
    assert "# summary: Bun, pinned to 1.1.30." in again.frontmatter
    from wikimem.wiki.lint import SYNC_CONFLICT

    assert any(SYNC_CONFLICT.match(line) for line in text.splitlines()[:8])
