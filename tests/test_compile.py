"""Compiled pages: a topic's summary says what its leaves hold; titles keep acronyms."""

from __future__ import annotations

from pathlib import Path

from wikimem.wiki.compile import (
    MAX_ABOUT,
    LeafLine,
    about,
    compile_profile,
    compile_topic,
)
from wikimem.wiki.pages import Wiki, title_from_slug


def leaf(path: str, summary: str, title: str = "") -> str:
    title = title or path.rsplit("/", 1)[-1]
    return (
        f"---\ntitle: {title}\nsummary: {summary}\ntype: procedural\n---\n# {title}\n\n## A\n\nb\n"
    )


def test_a_topic_without_a_summary_is_about_its_leaves(tmp_path: Path) -> None:
    wiki = Wiki(tmp_path)
    wiki.write(
        "build/bun/MEMORY.md", leaf("build/bun", "Installing with Bun; lockfile rules.", "Bun")
    )
    wiki.write("build/uv/MEMORY.md", leaf("build/uv", "Locking Python dependencies", "uv"))

    compile_topic(wiki, "build", "2026-12-01")
    compile_profile(wiki, "2026-12-01", 2000, "acme")

    page = wiki.read_page("build/TOPIC.md")
    assert page is not None
    assert (
        page.meta["about"]
        == "Installing with Bun; lockfile rules. uv: Locking Python dependencies."
    )
    assert "summary" not in page.meta
    profile = (tmp_path / "PROFILE.md").read_text()
    assert "— Installing with Bun; lockfile rules. uv: Locking Python dependencies." in profile

    wiki.write(
        "build/cargo/MEMORY.md", leaf("build/cargo", "Rust builds and abi3 wheels.", "Cargo")
    )
    assert compile_topic(wiki, "build", "2026-12-02") == "build/TOPIC.md"
    again = wiki.read_page("build/TOPIC.md")
    assert again is not None and "Cargo: Rust builds and abi3 wheels." in again.meta["about"]


def test_a_summary_a_person_or_the_model_set_wins(tmp_path: Path) -> None:
    wiki = Wiki(tmp_path)
    wiki.write("build/bun/MEMORY.md", leaf("build/bun", "Installing with Bun."))

    compile_topic(wiki, "build", "2026-12-01", "How the web app is built.")
    compile_profile(wiki, "2026-12-01", 2000, "acme")

    assert "— How the web app is built." in (tmp_path / "PROFILE.md").read_text()


def test_leaves_summarised_alike_make_one_sentence() -> None:
    """The offline rules summarise each leaf "<Tool> failures and the fixes that worked.": a
    topic of three reads as a person would write it, not as three sentences."""
    lines = [
        LeafLine(f"build/{t.lower()}", t, f"{t} failures and the fixes that worked.", (), 0)
        for t in ("Bun", "npm", "Poetry")
    ]
    lines.insert(1, LeafLine("build/uv", "uv", "Locking Python dependencies", (), 0))

    assert about(lines) == (
        "Bun, npm and Poetry failures and the fixes that worked. uv: Locking Python dependencies."
    )


def test_a_long_list_of_alike_leaves_names_a_few_and_counts_leaves() -> None:
    many = [
        LeafLine(f"t/tool{i}", f"Tool{i}", f"Tool{i} failures and the fixes that worked.", (), 0)
        for i in range(40)
    ]
    assert about(many) == (
        "Tool0, Tool1, Tool2, Tool3, Tool4 and 35 more failures and the fixes that worked."
    )
    first = LeafLine("t/notes", "Notes", "N" * 250, (), 0)
    text = about([first, *many])
    assert text.endswith("And 40 more.")  # leaves, not the one sentence they share


def test_about_stays_within_its_cap() -> None:
    lines = [LeafLine(f"l{i}", f"Leaf {i}", "x" * 60, (), 0) for i in range(20)]

    text = about(lines)

    assert len(text) <= MAX_ABOUT
    assert text.endswith("more.")


def test_titles_from_slugs_keep_acronyms() -> None:
    assert title_from_slug("ci") == "CI"
    assert title_from_slug("ffi") == "FFI"
    assert title_from_slug("api-design") == "API design"
    assert title_from_slug("build") == "Build"
    assert title_from_slug("github-actions") == "GitHub actions"
    assert title_from_slug("npm") == "npm" and title_from_slug("use-pnpm") == "Use pnpm"
