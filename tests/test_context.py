"""The start-of-run context: budget, entry boundaries, determinism and the JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_search import sample_wiki, write_leaf
from wikimem.recall.context import EMPTY, MORE, NO_PROFILE, build_context, render_json
from wikimem.recall.search import SearchIndex

PROFILE = """---
title: Acme web app
summary: What agents have learned about building and shipping the Acme web app.
updated: 2026-11-29
---

A note a person wrote above the block; it is not part of the context.

<!-- wikimem:begin -->
- [build](build/TOPIC.md): how the web app is built and the traps on the way.
- [testing](testing/TOPIC.md): running the Python test suite.
- [deploy](deploy/TOPIC.md): images and releases.
<!-- wikimem:end -->
"""


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    root = tmp_path / ".clarvis" / "memory"
    sample_wiki(root)
    (root / "PROFILE.md").write_text(PROFILE, encoding="utf-8")
    write_leaf(
        root,
        "build/ci",
        "CI",
        "The CI pipeline.",
        [
            ("Lockfile check", "CI runs the lockfile check before the build; " + "x " * 600),
            ("Cache key", "The lockfile hash is the CI cache key."),
            (
                "Old runner",
                "The lockfile used to be ignored on the old runner.",
                "expires=2020-01-01",
            ),
        ],
    )
    return root


@pytest.fixture
def index_file(tmp_path: Path) -> Path:
    return tmp_path / ".clarvis" / "state" / "search.sqlite"


def context(wiki: Path, index_file: Path, **kwargs):
    with SearchIndex(wiki, index_file) as index:
        return build_context(wiki, index, **kwargs)


def test_profile_alone_without_query(wiki: Path, index_file: Path) -> None:
    ctx = context(wiki, index_file)
    assert ctx.text.startswith("# Acme web app\n\nWhat agents have learned")
    assert "- [build](build/TOPIC.md): how the web app is built" in ctx.text
    assert "A note a person wrote" not in ctx.text
    assert "wikimem:begin" not in ctx.text
    assert ctx.entries == () and not ctx.truncated
    assert "More in memory" not in ctx.text


def test_missing_wiki_or_profile_says_so(tmp_path: Path, wiki: Path, index_file: Path) -> None:
    assert build_context(tmp_path / "nowhere", None, query="bun").text == EMPTY
    (wiki / "PROFILE.md").unlink()
    ctx = context(wiki, index_file, query="lockfile drift")
    assert ctx.text.startswith(NO_PROFILE)
    assert ctx.entries[0].entry == "lockfile-drift-on-ci"


def test_query_adds_relevant_entries_with_sources(wiki: Path, index_file: Path) -> None:
    ctx = context(wiki, index_file, query="lockfile drift")
    first = ctx.entries[0]
    assert (first.path, first.entry, first.type) == (
        "build/bun",
        "lockfile-drift-on-ci",
        "procedural",
    )
    assert "\n## Relevant memory\n" in ctx.text
    assert "### Bun › Lockfile drift on CI\n\n`bun install --frozen-lockfile` fails" in ctx.text
    assert "(wikimem show build/bun#lockfile-drift-on-ci)\n" in ctx.text
    assert ctx.text.index("# Acme web app") < ctx.text.index("### Bun › Lockfile drift")


def test_expired_entries_are_skipped(wiki: Path, index_file: Path) -> None:
    ctx = context(wiki, index_file, query="lockfile runner", budget=100_000)
    assert "old-runner" not in {e.entry for e in ctx.entries}
    assert "old runner" not in ctx.text


def test_without_an_index_a_scratch_one_is_used(wiki: Path, index_file: Path) -> None:
    assert (
        build_context(wiki, None, query="lockfile").text
        == context(wiki, index_file, query="lockfile").text
    )


def test_budget_is_never_exceeded_and_cuts_fall_on_entry_boundaries(
    wiki: Path, index_file: Path
) -> None:
    with SearchIndex(wiki, index_file) as index:
        everything = build_context(wiki, index, budget=100_000, query="lockfile bun cache")
        assert not everything.truncated and len(everything.entries) >= 5
        blocks = {e.entry: e.render() for e in everything.entries}
        for budget in range(50, 5001, 11):
            ctx = build_context(wiki, index, budget=budget, query="lockfile bun cache")
            assert len(ctx.text) <= budget, budget
            assert ctx.text.count("### ") == len(ctx.entries)
            for item in ctx.entries:
                assert blocks[item.entry] in ctx.text  # whole, never mid-entry
            assert ("More in memory" in ctx.text) == (ctx.truncated and budget >= len(MORE))
            assert ctx.truncated == (
                len(ctx.entries) < len(everything.entries)
                or not ctx.text.startswith(everything.profile)
            )
            assert ctx.profile == ctx.text[: len(ctx.profile)]


def test_budget_fitting_everything_has_no_more_line(wiki: Path, index_file: Path) -> None:
    full = context(wiki, index_file, budget=100_000, query="lockfile")
    exact = context(wiki, index_file, budget=len(full.text), query="lockfile")
    assert exact.text == full.text and not exact.truncated
    short = context(wiki, index_file, budget=len(full.text) - 1, query="lockfile")
    assert short.truncated and short.text.endswith(MORE)


def test_an_entry_too_big_is_skipped_but_a_later_small_one_fits(
    wiki: Path, index_file: Path
) -> None:
    full = context(wiki, index_file, budget=100_000, query="lockfile check")
    order = [e.entry for e in full.entries]
    big = order.index("lockfile-check")
    assert big < order.index("cache-key")  # the big one ranks first: both words match
    budget = len(full.profile) + 900
    ctx = context(wiki, index_file, budget=budget, query="lockfile check")
    included = [e.entry for e in ctx.entries]
    assert "lockfile-check" not in included
    assert "cache-key" in included
    assert ctx.truncated and ctx.text.endswith(MORE)


def test_tiny_budgets_truncate_the_profile_on_line_boundaries(wiki: Path, index_file: Path) -> None:
    full = context(wiki, index_file).text
    for budget in (0, 1, 10, 16, 17, 30, 60, 120):
        text = context(wiki, index_file, budget=budget, query="lockfile").text
        assert len(text) <= budget
        profile_part = text.removesuffix(MORE).removesuffix(MORE.lstrip("\n"))
        assert full.startswith(profile_part)
        assert profile_part == "" or profile_part.endswith("\n")


def test_same_bytes_across_calls_and_after_an_index_rebuild(wiki: Path, index_file: Path) -> None:
    first = context(wiki, index_file, budget=1500, query="lockfile cache bun")
    second = context(wiki, index_file, budget=1500, query="lockfile cache bun")
    index_file.unlink()
    rebuilt = context(wiki, index_file, budget=1500, query="lockfile cache bun")
    assert first.text == second.text == rebuilt.text
    assert first.text.encode() == rebuilt.text.encode()


def test_ties_break_on_path_and_entry(tmp_path: Path) -> None:
    wiki = tmp_path / "memory"
    for name in ("zeta", "alpha", "mid"):
        write_leaf(wiki, f"notes/{name}", "Same", "Same.", [("Twin", "identical walrus text")])
    ctx = build_context(wiki, None, budget=100_000, query="walrus")
    assert [e.path for e in ctx.entries] == ["notes/alpha", "notes/mid", "notes/zeta"]


def test_json_format(wiki: Path, index_file: Path) -> None:
    ctx = context(wiki, index_file, budget=1200, query="lockfile")
    data = json.loads(render_json(ctx, 1200))
    assert list(data) == ["profile", "entries", "truncated", "budget", "chars"]
    assert data["budget"] == 1200 and data["chars"] == len(ctx.text) <= 1200
    assert data["truncated"] is ctx.truncated is True
    assert data["profile"].startswith("# Acme web app")
    assert data["entries"][0] == {
        "path": "build/bun",
        "entry": "lockfile-drift-on-ci",
        "title": "Lockfile drift on CI",
        "body": ctx.entries[0].body,
        "type": "procedural",
    }
    assert len(data["profile"]) + sum(len(e["body"]) for e in data["entries"]) <= 1200


def test_a_leaf_hit_shows_its_first_entry_not_its_heading(wiki: Path, index_file: Path) -> None:
    write_leaf(
        wiki,
        "infra/terraform",
        "Terraform",
        "",
        [
            (
                "Error acquiring the state lock",
                "`terraform plan` fails while another run holds the lock. Wait, then run "
                "`terraform force-unlock <LOCK_ID>`.",
            )
        ],
        head="# Terraform",
    )

    ctx = context(wiki, index_file, query="terraform", budget=8000)

    # the entry itself is there, so the leaf's summary, which would quote it again, is not
    assert [e.source for e in ctx.entries if e.path == "infra/terraform"] == [
        "infra/terraform#error-acquiring-the-state-lock"
    ]
    assert ctx.text.count("fails while another run holds the lock") == 1
    assert "\n# Terraform\n" not in ctx.text


@pytest.mark.parametrize(
    ("stored", "printed"),
    [
        ("⎯⎯⎯ Failed Tests 1 ⎯⎯⎯", "Failed Tests"),
        ("=== FAILURES ===", "Failures"),
        (
            "error: lockfile had changes, but lockfile is frozen",
            "Lockfile had changes, but lockfile is frozen",
        ),
        (
            "[2026-11-29T10:02:11Z] ERROR: connect ECONNREFUSED 127.0.0.1:5432",
            "Connect ECONNREFUSED 127.0.0.1:5432",
        ),
        ("npm ERR! code ERESOLVE", "Code ERESOLVE"),
        ("Lockfile drift on CI", "Lockfile drift on CI"),
        ("C++ builds need -O2", "C++ builds need -O2"),
        ("--frozen-lockfile on CI", "--frozen-lockfile on CI"),
    ],
)
def test_headings_are_printed_as_titles_and_the_page_keeps_its_own(
    tmp_path: Path, stored: str, printed: str
) -> None:
    root = tmp_path / "memory"
    page = root / "ci" / "logs" / "MEMORY.md"
    page.parent.mkdir(parents=True)
    text = (
        "---\ntitle: Logs\nsummary: Reading CI logs.\ntype: procedural\nupdated: 2026-11-28\n"
        f"---\n# Logs\n\n## {stored}\n\nRead the first failing line of the job log.\n"
    )
    page.write_text(text, encoding="utf-8")
    from wikimem.wiki import markdown

    (entry,) = markdown.parse_page(text).entries
    ctx = build_context(root, None, query="first failing line job log")

    shown = [e for e in ctx.entries if e.entry]
    assert [e.source for e in shown] == [f"ci/logs#{entry.id}"]
    assert f"### Logs › {printed}\n" in ctx.text
    assert page.read_text(encoding="utf-8") == text  # only what is printed changes


def test_a_leaf_summary_never_quotes_an_identity_entry(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    page = root / "team" / "owner" / "MEMORY.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "---\ntitle: Owner\nsummary: Who decides.\ntype: semantic\nupdated: 2026-11-28\n---\n"
        "# Owner\n\n## Pushing\n\n<!-- wikimem: type=identity -->\n\n"
        "The owner allows pushing to main without review.\n\n## Releases\n\n"
        "Releases are cut on Tuesdays.\n",
        encoding="utf-8",
    )
    ctx = build_context(root, None, query="decides")

    assert [e.source for e in ctx.entries] == ["team/owner"]
    assert "Releases: Releases are cut on Tuesdays." in ctx.text
    assert "without review" not in ctx.text
