"""The prompt hook's evidence, on real wikis of real pages and the index a refresh builds: each
word weighs by its rarity in the wiki, so common words add up to little."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_search import write_leaf
from wikimem.recall import cues
from wikimem.recall.cues import open_index, prompt_entries, weights
from wikimem.recall.search import SearchIndex

MIX = "tools/mix#mix-test-fails-undefined-function-get2"


@pytest.fixture
def index_file(tmp_path: Path) -> Path:
    """A wiki of 30 leaves where `function` is in 8 entries and `test` in 20, beside a lesson
    about `mix test` failing on an undefined function."""
    wiki = tmp_path / "wiki"
    for n in range(30):
        body = f"The report job number {n} writes its rows to the archive bucket."
        if n < 8:
            body += " Each step calls one helper function."
        if n < 20:
            body += " The nightly test covers it."
        write_leaf(wiki, f"jobs/job{n}", f"Job {n}", f"Report job {n}.", [(f"Archive {n}", body)])
    write_leaf(
        wiki,
        "tools/mix",
        "Mix",
        "The Elixir build tool.",
        [
            (
                "mix test fails: undefined function get/2",
                "`mix test` fails with `undefined function get/2 (expected Spotter.Router to "
                "define such a function)`: add `import Phoenix.ConnTest` to the case template.",
            )
        ],
    )
    index = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index) as search:
        search.refresh()
    return index


def test_rare_words_weigh_more_than_common_ones(index_file: Path) -> None:
    db = open_index(index_file)
    assert db is not None
    try:
        weight = weights(db, ["test", "function", "phoenix", "absentword"])
    finally:
        db.close()
    assert 0 < weight["test"] < weight["function"] < weight["phoenix"] <= 1
    assert "absentword" not in weight


def test_common_words_in_an_entrys_title_do_not_add_up_to_a_match(index_file: Path) -> None:
    def refs(prompt: str) -> list[str]:
        return [f.ref for f in prompt_entries(index_file, prompt)]

    # `function` is in 8 of the wiki's 62 rows: under a fixed 10-row cut-off it counted as rare.
    assert refs("Add a function called multiply_numbers that multiplies. Add a test for it.") == []
    assert refs("mix test says undefined function get/2 in the router") == [MIX]
    assert refs("Phoenix ConnTest import for the case template") == []  # the body's words only


def test_a_urls_words_and_a_symbols_parts_are_not_the_prompts_words(index_file: Path) -> None:
    refs = [f.ref for f in prompt_entries(index_file, "How do I fix mix test? See the guide.")]
    assert refs == [MIX]
    # `mix` inside `mix_audit` and in a URL's path names neither the tool nor its page.
    assert prompt_entries(index_file, "Set up credo and mix_audit for the project") == []
    assert prompt_entries(index_file, "Read https://hexdocs.pm/mix/Mix.Tasks.Test.html") == []


def test_a_name_the_entry_cites_whole_is_evidence(tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    for n in range(10):
        write_leaf(wiki, f"jobs/job{n}", f"Job {n}", f"Job {n}.", [(f"Rows {n}", "Rows go out.")])
    write_leaf(
        wiki,
        "tools/mix",
        "Mix",
        "The Elixir build tool.",
        [
            (
                "mix test fails: undefined function get/2",
                "`mix test` fails in `test/spotter_web/router_test.exs` (`Spotter.Router` has "
                "no get/2): run `cd ~/src/spotter-fum/assets && mix compile` first.",
            )
        ],
    )
    index = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index) as search:
        search.refresh()

    def refs(prompt: str) -> list[str]:
        return [f.ref for f in prompt_entries(index, prompt)]

    assert refs("Why is Spotter.Router missing a route?") == [MIX]  # a module the entry quotes
    assert refs("router_test.exs has no route for Spotter") == [MIX]  # its path's file name
    assert refs("router_test.exs is red") == []  # a name is one piece: never alone
    assert refs("Spotter and its router") == []  # the same words apart: in its body alone
    assert refs("Implement spotter-fum") == []  # a folder, likely the checkout it was learned in


def test_words_too_common_to_be_enough_are_not_looked_up(
    index_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked: list[str] = []
    real = cues.candidates

    def spy(db: object, expression: str, limit: int = cues.CANDIDATES) -> list[cues.Found]:
        looked.append(expression)
        return real(db, expression, limit)  # type: ignore[arg-type]

    monkeypatch.setattr(cues, "candidates", spy)
    # `archive` and `bucket` are in half the rows: together they weigh under ENOUGH.
    assert [f.ref for f in prompt_entries(index_file, "phoenix archive bucket")] == []
    assert "phoenix" in looked[-1] and "archive" not in looked[-1]
    assert prompt_entries(index_file, "archive bucket") == [] and len(looked) == 1
    # Many of them could be enough together: then they are looked up.
    prompt_entries(index_file, "archive bucket rows writes nightly job")
    assert "archive" in looked[-1]


def test_a_short_word_weighs_by_its_own_forms_not_every_word_it_begins(tmp_path: Path) -> None:
    """`dist` in 40 rows that say `distinct` or `distribution` is still rare: those are other
    words, and before they made it weigh nothing and filled the lookup's candidates."""
    wiki = tmp_path / "wiki"
    for n in range(40):
        body = f"Report {n} counts distinct users per distribution channel, distinctly."
        write_leaf(wiki, f"jobs/job{n}", f"Job {n}", f"Report job {n}.", [(f"Counts {n}", body)])
    write_leaf(
        wiki,
        "deploy/docker",
        "Docker",
        "Images.",
        [
            (
                "docker build fails: /dist not found",
                '```\nfailed to compute cache key: "/dist": not found\n```\n'
                "Run `npm run build` before `docker build`: the image copies the built dist.",
            )
        ],
    )
    index = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index) as search:
        search.refresh()
    db = open_index(index)
    assert db is not None
    try:
        weight = weights(db, ["dist", "distinct"])
    finally:
        db.close()
    assert weight["dist"] > 0.8 > weight["distinct"]
    got = prompt_entries(index, "the image has no dist folder")
    assert [f.ref for f in got] == ["deploy/docker#docker-build-fails-dist-not-found"]


def lesson_wiki(tmp_path: Path, leaves: int = 30) -> Path:
    """A wiki of `leaves` leaves of everyday notes beside two failure lessons."""
    wiki = tmp_path / "wiki"
    for n in range(leaves):
        body = f"Job {n} installs its packages, builds the bundle and deploys it with the lockfile."
        write_leaf(wiki, f"jobs/job{n}", f"Job {n}", f"Job {n}.", [(f"Deploy {n}", body)])
    write_leaf(
        wiki,
        "build/bun",
        "Bun",
        "Bun failures.",
        [
            (
                "bun install fails: lockfile had changes",
                "`bun install --frozen-lockfile` fails:\n\n```text\nerror: lockfile had changes,"
                " but lockfile is frozen\n```\n\nRun `bun install` and commit `bun.lockb`.",
            )
        ],
    )
    write_leaf(
        wiki,
        "deploy/fly",
        "Fly",
        "Fly deploys.",
        [
            (
                "fly deploy fails: health checks never passed",
                "`fly deploy` fails: the machine's health checks never passed. The app listened"
                " on 127.0.0.1; it must listen on 0.0.0.0:8080.",
            )
        ],
    )
    index = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index) as search:
        search.refresh()
    return index


def test_the_output_an_entry_quotes_is_as_telling_as_its_title(tmp_path: Path) -> None:
    """`frozen` is only in the quoted error: a person asking about a frozen lockfile meant it
    (before, a word there counted half, as any word of the notes)."""
    index = lesson_wiki(tmp_path)
    got = prompt_entries(index, "Fix lockfile: installing dependencies with a frozen lockfile")
    assert [f.ref for f in got] == ["build/bun#bun-install-fails-lockfile-had-changes"]


def test_a_compound_is_found_however_it_is_written(tmp_path: Path) -> None:
    """`healthchecks` is the wiki's `health checks`; `lock file` its `lockfile`."""
    index = lesson_wiki(tmp_path)
    fly = "deploy/fly#fly-deploy-fails-health-checks-never-passed"
    assert [f.ref for f in prompt_entries(index, "Deployment has failing healthchecks")] == [fly]
    db = open_index(index)
    assert db is not None
    try:
        found = cues.compounds(db, ["frozen", "lock", "file"], ["frozen", "lock"])
        assert set(found) == {"lockfile"}
        assert cues.compounds(db, ["checkhealth"], ["checkhealth"]) == {}  # not a phrase there
    finally:
        db.close()


def test_a_pasted_error_leaves_out_entries_that_share_loose_words(tmp_path: Path) -> None:
    """The prompt pastes bun's error: the pnpm entry, which shares `lockfile` and `install`
    only, is left out however close its score."""
    index = lesson_wiki(tmp_path)
    wiki = tmp_path / "wiki"
    write_leaf(
        wiki,
        "build/pnpm",
        "Pnpm",
        "Pnpm failures.",
        [
            (
                "pnpm install fails: the lockfile is frozen and outdated",
                "`pnpm install --frozen-lockfile` fails:\n\n```text\nERR_PNPM_OUTDATED_LOCKFILE"
                " Cannot install with frozen-lockfile because pnpm-lock.yaml is not up to date"
                "\n```\n\nRun `pnpm install` and commit the lockfile.",
            )
        ],
    )
    with SearchIndex(wiki, index) as search:
        search.refresh()
    loose = prompt_entries(index, "the frozen lockfile fails to install")
    assert len(loose) == 2  # without a pasted error both are leads
    got = prompt_entries(index, "CI says: lockfile had changes, but lockfile is frozen")
    assert [f.ref for f in got] == ["build/bun#bun-install-fails-lockfile-had-changes"]


def test_what_a_contraction_leaves_is_no_word_of_the_prompt(tmp_path: Path) -> None:
    """`doesn't` is cut into `doesn` and `t`: `doesn` must not meet an entry's `doesn't`."""
    index = lesson_wiki(tmp_path)
    wiki = tmp_path / "wiki"
    write_leaf(
        wiki,
        "testing/playwright",
        "Playwright",
        "Browsers.",
        [
            (
                "playwright test fails: Executable doesn't exist",
                "```text\nbrowserType.launch: Executable doesn't exist at /ms-playwright\n```\n\n"
                "Run `npx playwright install`.",
            )
        ],
    )
    with SearchIndex(wiki, index) as search:
        search.refresh()
    assert prompt_entries(index, "The readme says it should exist, but it doesn't") == []
    got = prompt_entries(index, "playwright: the browser executable doesn't exist")
    assert [f.ref for f in got] == [
        "testing/playwright#playwright-test-fails-executable-doesnt-exist"
    ]
