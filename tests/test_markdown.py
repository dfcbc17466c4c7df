"""Pages survive parsing byte for byte, and every edit touches only the bytes it must."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikimem.errors import NotFound, WikiError
from wikimem.wiki import markdown
from wikimem.wiki.markdown import (
    Page,
    add_entry,
    entry_text,
    generated_block,
    new_page,
    parse_page,
    remove_entry,
    replace_entry,
    replace_generated,
    slugify,
    with_meta,
)

WIKI = Path(__file__).parent / "fixtures" / "wiki"
FIXTURES = sorted(p.relative_to(WIKI).as_posix() for p in WIKI.rglob("*.md"))
BREAK = re.compile(r"\r\n|\r|\n")


def read(relpath: str) -> str:
    return (WIKI / relpath).read_bytes().decode("utf-8")


def reparses(page: Page) -> Page:
    """Every page an operation returns must be exactly what parsing its text gives."""
    assert parse_page(page.render()) == page
    return page


def outside(text: str, page: Page, entry_id: str) -> tuple[str, str]:
    """The bytes before and after one entry."""
    index = [e.id for e in page.entries].index(entry_id)
    start = len(page.frontmatter + page.head) + sum(len(e.text) for e in page.entries[:index])
    return text[:start], text[start + len(page.entries[index].text) :]


# -- fixtures ----------------------------------------------------------------------------------


def test_fixture_wiki_is_complete() -> None:
    assert "PROFILE.md" in FIXTURES and len(FIXTURES) >= 10


@pytest.mark.parametrize("relpath", FIXTURES)
def test_fixture_round_trips_byte_for_byte(relpath: str) -> None:
    text = read(relpath)
    page = parse_page(text)
    assert page.render() == text
    assert page.frontmatter + page.head + "".join(e.text for e in page.entries) == text
    lines = BREAK.split(text)
    for entry in page.entries:
        assert lines[entry.line - 1] == BREAK.split(entry.text)[0]
        assert entry.text.lstrip(" ").startswith("## ")


def test_fixture_bytes_were_not_normalised_by_git() -> None:
    crlf = (WIKI / "deploy/fly/MEMORY.md").read_bytes()
    assert crlf.count(b"\r\n") == crlf.count(b"\n") > 10
    assert not (WIKI / "testing/flaky/MEMORY.md").read_bytes().endswith(b"\n")
    assert b"trailing spaces kept.   \n" in (WIKI / "testing/pytest/MEMORY.md").read_bytes()


EXPECTED_IDS = {
    "PROFILE.md": ["topics"],
    "build/TOPIC.md": [],
    "build/bun/MEMORY.md": ["bun-version-is-pinned", "building-locally"],
    "deploy/fly/MEMORY.md": ["staging-app", "deploy-token"],
    "misc/broken/MEMORY.md": ["still-an-entry"],
    "testing/flaky/MEMORY.md": [
        "timezone",
        "timezone-1",
        "why-tzutc-matters-",
        "überblick-café--crème",
        "closing-hashes",
    ],
    "testing/pytest/MEMORY.md": ["run-the-suite", "slow-tests"],
}


@pytest.mark.parametrize("relpath", sorted(EXPECTED_IDS))
def test_entry_ids(relpath: str) -> None:
    assert [e.id for e in parse_page(read(relpath)).entries] == EXPECTED_IDS[relpath]


def test_code_fences_html_blocks_setext_and_subsections_stay_in_their_entry() -> None:
    page = parse_page(read("build/bun/MEMORY.md"))
    pinned, building = page.entries
    assert "### Upgrading" in pinned.body
    for inside in (
        "## this line is inside a code block",
        "Setup notes\n-----------",
        "## an HTML comment is not a heading",
        "## nor is a line inside an HTML block",
        "## tilde fences count too",
    ):
        assert inside in building.body
    assert building.text.endswith("~~~\n")
    assert page.head == "# Bun\n\nCI installs with `bun install --frozen-lockfile`.\n\n"


def test_titles_lines_and_meta() -> None:
    page = parse_page(read("testing/flaky/MEMORY.md"))
    assert [e.title for e in page.entries] == [
        "Timezone",
        "Timezone",
        "Why `TZ=UTC` matters?! 🚀",
        "Überblick: café & crème",
        "Closing hashes",
    ]
    assert [e.line for e in page.entries] == [12, 16, 20, 24, 28]
    assert page.entries[-1].body == "The id ignores the closing sequence."
    assert page.head.startswith("Flaky tests\n===========\n\nText before the first entry")
    pinned = parse_page(read("build/bun/MEMORY.md")).entries[0]
    assert pinned.meta == {"type": "semantic", "review-by": "2027-03-01"}
    assert pinned.body.startswith("The repository pins Bun")
    assert "wikimem:" not in pinned.body


def test_crlf_page() -> None:
    page = parse_page(read("deploy/fly/MEMORY.md"))
    assert page.newline == "\r\n"
    token = page.entry("deploy-token")
    assert token is not None and token.meta == {"type": "procedural", "expires": "2027-01-31"}
    assert (
        token.body == "`FLY_API_TOKEN` comes from the CI secret store; never paste it into a page."
    )
    assert page.frontmatter.endswith("---\r\n") and page.meta["title"] == "fly.io"
    assert "\r" not in page.entries[0].body and page.entries[0].text.endswith("\r\n\r\n")


def test_page_without_frontmatter_keeps_trailing_spaces() -> None:
    text = read("testing/pytest/MEMORY.md")
    page = parse_page(text)
    assert (page.frontmatter, page.meta, page.frontmatter_error) == ("", {}, None)
    assert page.title == "pytest"
    assert page.entries[0].title == "Run the suite"
    assert page.entries[0].text.startswith("## Run the suite   \n")


# -- frontmatter and titles --------------------------------------------------------------------


def test_frontmatter_is_exact_and_parsed() -> None:
    page = parse_page(read("build/bun/MEMORY.md"))
    assert page.frontmatter == (
        "---\ntitle: Bun\nsummary: Installing and building with Bun; "
        "lockfile rules.\ntype: procedural\nupdated: 2026-11-28\n---\n"
    )
    assert page.meta["updated"] == date(2026, 11, 28)
    assert page.title == "Bun"


def test_broken_frontmatter_is_kept_verbatim() -> None:
    text = read("misc/broken/MEMORY.md")
    page = parse_page(text)
    assert page.meta == {}
    assert page.frontmatter.startswith("---\ntitle: [unclosed\n") and page.frontmatter.endswith(
        "---\n"
    )
    assert page.frontmatter_error and "\n" not in page.frontmatter_error
    assert page.title == "Broken"
    assert page.render() == text


@pytest.mark.parametrize(
    ("text", "frontmatter", "meta", "error"),
    [
        ("---\n---\n# T\n", "---\n---\n", {}, False),
        ("---\njust a string\n---\n", "---\njust a string\n---\n", {}, True),
        ("---\na: 1\n---", "---\na: 1\n---", {"a": 1}, False),
        ("\ufeff---\na: 1\n----  \nbody", "\ufeff---\na: 1\n----  \n", {"a": 1}, False),
        ("---\n# a thematic break, never closed\n", "", {}, False),
        ("text\n---\na: 1\n---\n", "", {}, False),
        ("--- x\na: 1\n---\n", "", {}, False),
    ],
)
def test_frontmatter_detection(text: str, frontmatter: str, meta: dict, error: bool) -> None:
    page = parse_page(text)
    assert (page.frontmatter, page.meta, page.frontmatter_error is not None) == (
        frontmatter,
        meta,
        error,
    )
    assert page.render() == text


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("---\ntitle: From meta\n---\n# From head\n", "From meta"),
        ("---\ntitle: 2026\n---\n", "2026"),
        ("intro\n\n# From head ##\n\n## Entry\n", "From head"),
        ("```sh\n# a shell comment\n```\n# Real\n", "Real"),
        ("#NotAHeading\n\n## Entry\n# In an entry\n", ""),
        ("", ""),
    ],
)
def test_page_title(text: str, title: str) -> None:
    assert parse_page(text).title == title


def test_newline_follows_the_majority() -> None:
    assert parse_page("a\r\nb\r\nc\n").newline == "\r\n"
    assert parse_page("a\r\nb\nc\n").newline == "\n"
    assert parse_page("no newline").newline == "\n"


# -- entries -----------------------------------------------------------------------------------


def test_entry_detection_edge_cases() -> None:
    text = (
        "  ## Indented heading\n"
        "    ## indented code\n"
        "> ## quoted\n"
        "- ## in a list\n"
        "##no space\n"
        "## Empty ##\n"
        "##\n"
        "## a\n## A\n## a-1\n"
    )
    page = parse_page(text)
    assert [e.id for e in page.entries] == ["indented-heading", "empty", "", "a", "a-1", "a-1-1"]
    assert page.entries[0].line == 1 and page.entries[2].text == "##\n"


def test_lone_carriage_returns_count_as_line_breaks() -> None:
    text = "intro\r## One\rbody\r\n## Two\n"
    page = parse_page(text)
    assert [(e.id, e.line) for e in page.entries] == [("one", 2), ("two", 4)]
    assert page.entries[0].body == "body"


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Lockfile drift on CI", "lockfile-drift-on-ci"),
        ("Why `TZ=UTC` matters?! 🚀", "why-tzutc-matters-"),
        ("🚀 Launch", "-launch"),
        ("Überblick: café & crème", "überblick-café--crème"),
        ("snake_case and _emphasis_ and *stars*", "snake_case-and-emphasis-and-stars"),
        ("See [the docs](https://example.com/a.md)", "see-the-docs"),
        ("![logo](x.png) Logo", "-logo"),
        ("A &amp; B", "a--b"),
        ("日本語の見出し", "日本語の見出し"),
        ("  padded  ", "padded"),
        ("C++ / C#", "c--c"),
    ],
)
def test_slugify(heading: str, slug: str) -> None:
    assert slugify(heading) == slug


def test_entry_text_format() -> None:
    text = entry_text(
        "Lockfile drift",
        "\n\nline one\r\nline two\n\n",
        {"type": "procedural", "review-by": "2027-01-01"},
    )
    assert text == (
        "## Lockfile drift\n\n<!-- wikimem: review-by=2027-01-01 type=procedural -->"
        "\n\nline one\nline two\n"
    )
    assert entry_text("T", "b", newline="\r\n") == "## T\r\n\r\nb\r\n"
    assert entry_text("T", "") == "## T\n"
    entry = parse_page(text).entries[0]
    assert (entry.title, entry.body, entry.meta) == (
        "Lockfile drift",
        "line one\nline two",
        {"type": "procedural", "review-by": "2027-01-01"},
    )


@pytest.mark.parametrize("title", ["Issue #", "#", "C#", "a\nb", "  spaced  out  "])
def test_entry_text_titles_read_back(title: str) -> None:
    entry = parse_page(entry_text(title, "x")).entries[0]
    assert entry.title == " ".join(part.strip() for part in title.strip().split("\n"))


def test_entry_text_keeps_the_body_inside_the_entry() -> None:
    text = entry_text("T", "intro\n## Sub\n```py\nx = 1\n## not a heading")
    assert "### Sub" in text and text.endswith("## not a heading\n```\n")
    page = parse_page(text + "\n## Next\n")
    assert [e.id for e in page.entries] == ["t", "next"]
    with pytest.raises(WikiError):
        entry_text("T", "<!-- a comment never closed")
    with pytest.raises(WikiError):
        entry_text("T", "x", {"type": "two words"})


# -- operations --------------------------------------------------------------------------------


def test_add_entry_appends_after_a_blank_line() -> None:
    text = read("testing/flaky/MEMORY.md")  # no final newline
    page = reparses(add_entry(parse_page(text), "Timezone", "Third time.", {"type": "episodic"}))
    assert page.render() == text + "\n\n" + entry_text(
        "Timezone", "Third time.", {"type": "episodic"}
    )
    assert page.entries[-1].id == "timezone-2"
    assert page.entries[-1].meta == {"type": "episodic"}
    for existing in ("## a\n\n", "## a\n  \n"):
        assert add_entry(parse_page(existing), "B", "b").render() == existing + "## B\n\nb\n"
    assert add_entry(parse_page("## a\n"), "B", "b").render() == "## a\n\n## B\n\nb\n"
    assert add_entry(parse_page(""), "B", "b").render() == "## B\n\nb\n"


def test_add_entry_keeps_crlf() -> None:
    text = read("deploy/fly/MEMORY.md")
    page = reparses(add_entry(parse_page(text), "Regions", "ams\nfra"))
    assert page.render() == text + "\r\n## Regions\r\n\r\nams\r\nfra\r\n"
    assert "\n" not in page.render().replace("\r\n", "")


def test_add_entry_refuses_a_page_left_open() -> None:
    with pytest.raises(WikiError):
        add_entry(parse_page("## a\n\n```\nnever closed\n"), "B", "b")


def test_replace_entry_touches_only_that_entry() -> None:
    text = read("testing/flaky/MEMORY.md")
    page = parse_page(text)
    before, after = outside(text, page, "timezone-1")
    new = reparses(
        replace_entry(page, "timezone-1", "DST switch", "Runs at 02:30 fail.", {"type": "episodic"})
    )
    assert (
        new.render()
        == before
        + entry_text("DST switch", "Runs at 02:30 fail.", {"type": "episodic"})
        + "\n"
        + after
    )
    assert [e.id for e in new.entries] == [
        "timezone",
        "dst-switch",
        "why-tzutc-matters-",
        "überblick-café--crème",
        "closing-hashes",
    ]
    assert [e.text for e in new.entries[2:]] == [e.text for e in page.entries[2:]]
    last = reparses(replace_entry(page, "closing-hashes", "Closing hashes", "New."))
    assert last.render() == text[: text.index("## Closing")] + "## Closing hashes\n\nNew.\n"


def test_replace_entry_keeps_spacing_and_crlf() -> None:
    text = read("testing/pytest/MEMORY.md")  # two blank lines after the first entry
    page = parse_page(text)
    new = reparses(replace_entry(page, "run-the-suite", "Run the suite", "`pytest -q`"))
    assert new.render() == "".join(
        [page.head, "## Run the suite\n\n`pytest -q`\n\n\n", page.entries[1].text]
    )
    fly = parse_page(read("deploy/fly/MEMORY.md"))
    new = reparses(replace_entry(fly, "staging-app", "Staging app", "a\nb"))
    assert new.entries[0].text == "## Staging app\r\n\r\na\r\nb\r\n\r\n"
    assert new.entries[1].text == fly.entries[1].text and new.head == fly.head
    glued = parse_page("## a\nx\n## b\ny\n")
    assert replace_entry(glued, "a", "a", "z").render() == "## a\n\nz\n\n## b\ny\n"


def test_remove_entry() -> None:
    text = read("testing/flaky/MEMORY.md")
    page = parse_page(text)
    before, after = outside(text, page, "timezone")
    new = reparses(remove_entry(page, "timezone"))
    assert new.render() == before + after
    assert [e.id for e in new.entries][:1] == ["timezone"]  # the duplicate takes the plain id
    assert (
        reparses(remove_entry(new, "closing-hashes"))
        .render()
        .endswith("crème\n\nUnicode letters stay in the id.\n\n")
    )


def test_missing_entry_is_not_found() -> None:
    page = parse_page(read("build/bun/MEMORY.md"))
    with pytest.raises(NotFound):
        replace_entry(page, "nope", "T", "b")
    with pytest.raises(NotFound):
        remove_entry(page, "nope")


def changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    return [x for x in a if x not in b], [x for x in b if x not in a]


def test_with_meta_replaces_one_line() -> None:
    text = read("build/bun/MEMORY.md")
    page = reparses(with_meta(parse_page(text), "updated", "2026-12-01"))
    assert changed_lines(text, page.render()) == (
        ["updated: 2026-11-28\n"],
        ["updated: 2026-12-01\n"],
    )
    assert page.meta["updated"] == date(2026, 12, 1)
    page = reparses(with_meta(page, "owner", "dana"))
    assert page.frontmatter.endswith("updated: 2026-12-01\nowner: dana\n---\n")
    assert page.render().endswith(
        parse_page(text).head + "".join(e.text for e in parse_page(text).entries)
    )


def test_with_meta_keeps_crlf_and_broken_frontmatter_lines() -> None:
    text = read("deploy/fly/MEMORY.md")
    page = reparses(with_meta(parse_page(text), "summary", "Deploys: API"))
    assert changed_lines(text, page.render()) == (
        ["summary: Deploying the API to fly.io.\r\n"],
        ['summary: "Deploys: API"\r\n'],
    )
    broken = read("misc/broken/MEMORY.md")
    page = reparses(with_meta(parse_page(broken), "updated", "2026-12-01"))
    assert page.render() == broken.replace("valid YAML\n", "valid YAML\nupdated: 2026-12-01\n")


def test_with_meta_creates_frontmatter_and_replaces_block_values() -> None:
    text = read("testing/pytest/MEMORY.md")
    page = reparses(with_meta(parse_page(text), "title", "pytest"))
    assert page.render() == "---\ntitle: pytest\n---\n" + text
    crlf = with_meta(parse_page("# T\r\n\r\n## a\r\n"), "k", "v").render()
    assert crlf == "---\r\nk: v\r\n---\r\n# T\r\n\r\n## a\r\n"
    block = "---\ntags:\n  - a\n  - b\n\nnext: 1\n---\nbody\n"
    assert with_meta(parse_page(block), "tags", "none").render() == (
        "---\ntags: none\n\nnext: 1\n---\nbody\n"
    )
    assert with_meta(parse_page("---\ntitled: x\n---\n"), "title", "y").meta == {
        "titled": "x",
        "title": "y",
    }
    with pytest.raises(WikiError):
        with_meta(page, "two words", "x")


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("plain words", "plain words"),
        ("2026-11-28", "2026-11-28"),
        ("42", "42"),
        ("", '""'),
        ("true", '"true"'),
        ("null", '"null"'),
        ("a: b", '"a: b"'),
        ("x # y", '"x # y"'),
        ("[list]", '"[list]"'),
        (" padded", '" padded"'),
        ('quote " inside', 'quote " inside'),
        ("'single'", "\"'single'\""),
        ("0x10", '"0x10"'),
    ],
)
def test_with_meta_quotes_when_needed(value: str, written: str) -> None:
    page = with_meta(parse_page("---\na: 1\n---\n"), "k", value)
    assert page.frontmatter == f"---\na: 1\nk: {written}\n---\n"
    assert str(page.meta["k"]) == value


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30))
def test_with_meta_values_read_back(value: str) -> None:
    page = with_meta(parse_page("---\na: 1\n---\n## e\n"), "k", value)
    assert page.frontmatter_error is None and page.frontmatter.count("\n") == 4
    loaded = page.meta["k"]
    assert loaded == value if isinstance(loaded, str) else str(loaded) == value
    assert page.entries[0].id == "e"


def test_new_page() -> None:
    page = reparses(
        new_page(
            {
                "title": "Bun",
                "summary": "Lockfile: rules",
                "type": "procedural",
                "updated": "2026-12-01",
                "tags": ["ci", "bun"],
            },
            "Bun",
            "\nHow we build.\n",
        )
    )
    assert page.render() == (
        '---\ntitle: Bun\nsummary: "Lockfile: rules"\ntype: procedural\n'
        "updated: 2026-12-01\ntags:\n- ci\n- bun\n---\n# Bun\n\n"
        "How we build.\n"
    )
    assert list(page.meta) == ["title", "summary", "type", "updated", "tags"]
    assert page.title == "Bun" and page.entries == ()
    crlf = new_page({"title": "T"}, "T", newline="\r\n").render()
    assert crlf == "---\r\ntitle: T\r\n---\r\n# T\r\n"
    assert new_page({}, "Bare").render() == "# Bare\n"


# -- generated blocks --------------------------------------------------------------------------


@pytest.mark.parametrize("relpath", ["PROFILE.md", "build/TOPIC.md", "testing/TOPIC.md"])
def test_replace_generated_keeps_every_byte_outside(relpath: str) -> None:
    text = read(relpath)
    span = generated_block(text)
    assert span is not None
    start, end = span
    assert text[:start].endswith("<!-- wikimem:begin -->\n")
    assert text[end:].startswith("<!-- wikimem:end -->")
    new = replace_generated(text, "- one\n- two")
    assert new == text[:start] + "- one\n- two\n" + text[end:]
    assert replace_generated(new, text[start:end]) == text
    assert replace_generated(text, "") == text[:start] + text[end:]


def test_replace_generated_hand_text_survives() -> None:
    new = replace_generated(read("build/TOPIC.md"), "- [X](x/MEMORY.md)")
    assert new.endswith(
        "<!-- wikimem:end -->\n\nWritten by hand below the markers: ask in #web "
        "before upgrading Vite.\n"
    )
    profile = replace_generated(read("PROFILE.md"), "## Topics\n")
    assert "release train leaves on Thursdays" in profile
    assert profile.endswith(
        "<!-- wikimem:end -->\n\nHand-written footer: ask Dana before changing the release train.\n"
    )


def test_replace_generated_without_markers_appends_a_block() -> None:
    assert replace_generated("# T\nhand", "gen\n") == (
        "# T\nhand\n\n<!-- wikimem:begin -->\ngen\n<!-- wikimem:end -->\n"
    )
    assert replace_generated("", "a\nb", "\r\n") == (
        "<!-- wikimem:begin -->\r\na\r\nb\r\n<!-- wikimem:end -->\r\n"
    )
    once = replace_generated("# T\n", "x")
    assert replace_generated(once, "x") == once


def test_generated_block_edge_cases() -> None:
    assert generated_block("no markers") is None
    assert generated_block("<!-- wikimem:begin -->\nnever ended\n") is None
    text = (
        "<!-- wikimem:begin -->\norphan\n\n<!-- wikimem:begin -->\r\nreal\r\n"
        "  <!-- wikimem:end -->  \r\n"
    )
    start, end = generated_block(text) or (0, 0)
    assert text[start:end] == "real\r\n"
    assert replace_generated(text, "new", "\r\n") == text.replace("real", "new")


# -- generated texts ---------------------------------------------------------------------------

FRAGMENTS = [
    "## Title",
    "## Title",
    "##",
    "## a ##",
    "##x",
    "# H1",
    "### sub",
    "```",
    "~~~",
    "```sh",
    "    ## code",
    "> ## quote",
    "- ## item",
    "<!--",
    "-->",
    "<div>",
    "</div>",
    "---",
    "===",
    "title: x",
    "bad: [",
    "<!-- wikimem: type=semantic -->",
    "<!-- wikimem:begin -->",
    "<!-- wikimem:end -->",
    "text  ",
    "",
    "",
    " ",
    "\t",
    "| a | b |",
    "Ünïcode 🚀 `code`",
    "&amp; \\#",
]
NEWLINES = ["\n", "\n", "\n", "\r\n", "\r\n", "\r"]
lines = st.lists(
    st.tuples(
        st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), st.sampled_from(NEWLINES)
    ),
    max_size=25,
)


@st.composite
def markdownish(draw: st.DrawFn) -> str:
    text = "".join(line + newline for line, newline in draw(lines))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish())
def test_any_text_round_trips(text: str) -> None:
    page = parse_page(text)
    assert page.render() == text
    ids = [e.id for e in page.entries]
    assert len(set(ids)) == len(ids)
    all_lines = BREAK.split(text)
    for entry in page.entries:
        heading = BREAK.split(entry.text)[0]
        assert all_lines[entry.line - 1] == heading and heading.lstrip(" ").startswith("##")
        assert "\r" not in entry.body
    assert parse_page(page.render()) == page


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish(), st.sampled_from(FRAGMENTS), st.text(max_size=40))
def test_operations_on_any_text(text: str, title: str, body: str) -> None:
    page = parse_page(text)
    try:
        added = reparses(add_entry(page, title, body, {"type": "working"}))
    except WikiError:
        return  # the page ends inside an open block; refusing is the contract
    assert added.render().startswith(text)
    new = added.entries[-1]
    assert new.meta == {"type": "working"}
    for entry in page.entries:
        after = reparses(replace_entry(page, entry.id, "Replaced", body))
        before_text, after_text = outside(text, page, entry.id)
        assert after.render().startswith(before_text) and after.render().endswith(after_text)
        removed = reparses(remove_entry(page, entry.id))
        assert removed.render() == before_text + after_text
    assert reparses(remove_entry(added, new.id)).render() == added.render()[: -len(new.text)]


# -- cost --------------------------------------------------------------------------------------


def test_importing_the_module_loads_no_parser() -> None:
    code = (
        "import sys, wikimem.wiki.markdown; "
        "print([m for m in ('markdown_it', 'yaml', 'frontmatter') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert out.stdout.strip() == "[]"


def test_pages_without_entries_skip_markdown_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> None:
        raise AssertionError("markdown-it was called")

    monkeypatch.setattr(markdown, "_markdown", fail)
    page = parse_page("---\ntitle: T\n---\n# T\n\nNo entries, `#` only.\n")
    assert page.entries == () and page.title == "T"


ALIAS_BOMB = (
    "---\n"
    + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 9) if p else ', '.join(['lol'] * 9)}]\n"
        for p, c in zip(["", "a", "b", "c", "d", "e", "f", "g"], "abcdefgh", strict=True)
    )
    + "title: Bomb\nsummary: boom\n---\n# Bomb\n\n## One\n\ntext\n"
)


def test_yaml_aliases_are_refused_before_anything_expands_them() -> None:
    assert len(ALIAS_BOMB.encode()) < 600
    page = markdown.parse_page(ALIAS_BOMB)
    assert page.meta == {} and "aliases" in (page.frontmatter_error or "")
    assert [e.id for e in page.entries] == ["one"] and page.render() == ALIAS_BOMB


def test_a_plain_star_or_ampersand_is_not_an_alias() -> None:
    text = "---\ntitle: Fix *all* the R&D builds\nsummary: '&a *a'\n---\n# X\n"
    page = markdown.parse_page(text)
    assert page.frontmatter_error is None and page.meta["title"] == "Fix *all* the R&D builds"


@pytest.mark.parametrize(
    "field",
    ["title: [a, b]", "title: {x: 1}", "summary: " + "s" * 1001, "title: " + "t" * 201],
)
def test_title_and_summary_must_be_short_strings(field: str) -> None:
    page = markdown.parse_page(f"---\n{field}\ntype: semantic\n---\n# X\n")
    key = field.split(":")[0]
    assert key not in page.meta and page.meta["type"] == "semantic"
    assert "must be a string" in (page.frontmatter_error or "")
    assert markdown.parse_page("---\ntitle: 2024\n---\n").meta["title"] == "2024"


def test_bytes_that_are_not_utf8_never_reach_a_title() -> None:
    raw = b"---\ntitle: Bad \xff\xfe\nsummary: s\n---\n# T\n\n## Entry \xff one\n\nbody \xfe\n"
    text = raw.decode("utf-8", "surrogateescape")
    page = markdown.parse_page(text)
    assert page.meta == {} and page.frontmatter_error == "frontmatter is not valid UTF-8"
    [entry] = page.entries
    assert entry.title == "Entry \ufffd one" and entry.title.encode("utf-8")
    assert page.render().encode("utf-8", "surrogateescape") == raw  # the bytes stay


def test_a_page_of_200000_headings_parses_in_bounded_time() -> None:
    import time

    text = "---\ntitle: Many\n---\n# Many\n\n" + "## h\n" * 200_000
    started = time.process_time()
    page = markdown.parse_page(text)
    spent = time.process_time() - started
    assert len(page.entries) == markdown.MAX_ENTRIES and page.render() == text
    assert spent < 3.0, spent
