"""The prompt hook reads the workspace's state: files the session is working on point to the
entry that cites them even when the prompt says nothing telling, through the installed
command under `env -i`, with a real transcript file and a wiki a person wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_deliver import context_of, deliver, payload
from tests.test_search import write_leaf
from wikimem import config
from wikimem.recall.cues import prompt_entries
from wikimem.recall.search import SearchIndex
from wikimem.wiki.workspace import init

FENCE = "```"
HOOK_CHECK = (
    "`git commit` fails with exit code 1 when the pre-commit check finds unformatted code:\n\n"
    f"{FENCE}text\nPre-commit validation failed:\n[FORMAT] lib/app/web/hooks_controller.ex\n"
    f"[FORMAT] lib/app/web/session_controller.ex\n{FENCE}\n\n"
    "Run `mix format` on lib/app/web/hooks_controller.ex and "
    "lib/app/web/session_controller.ex before committing; `--no-verify` hides it."
)
ROUTER = "The router lives in lib/app/web/router.ex; scopes are declared there."
SPLIT = "The web layer was split in eight files, one controller each: " + ", ".join(
    f"lib/app/web/{name}.ex" for name in "abcdefgh"
)


@pytest.fixture
def state_wiki(workspace: Path, isolated_env: Path) -> config.Places:
    places = config.places(workspace, {})
    init(places, config.load(places, {}))
    write_leaf(
        places.wiki,
        "tools/git",
        "Git",
        "Committing here.",
        [("git commit fails: pre-commit validation failed", HOOK_CHECK)],
    )
    write_leaf(places.wiki, "web/router", "Router", "Routes.", [("Where routes go", ROUTER)])
    write_leaf(places.wiki, "web/layout", "Layout", "Files.", [("The split controllers", SPLIT)])
    write_leaf(
        places.wiki,
        "build/bun",
        "Bun",
        "The web build.",
        [("bun install fails: lockfile had changes", "Run `bun install` in web/, commit it.")],
    )
    with SearchIndex(places.wiki, places.state / "search.sqlite") as index:
        index.refresh()
    return places


def transcript(folder: Path, workspace: Path, *files: str) -> Path:
    """A Claude Code transcript whose last turn edited `files` of `workspace`."""
    lines: list[dict[str, object]] = [
        {"type": "user", "message": {"role": "user", "content": "go"}}
    ]
    for name in files:
        call = {"type": "tool_use", "name": "Edit", "input": {"file_path": str(workspace / name)}}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [call]}})
    path = folder / f"session-{len(files)}-{abs(hash(files))}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_two_files_the_session_edits_point_to_the_entry_citing_them_whatever_the_prompt(
    state_wiki: config.Places, isolated_env: Path, tmp_path: Path
) -> None:
    ws = state_wiki.workspace
    both = ("lib/app/web/hooks_controller.ex", "lib/app/web/session_controller.ex")
    data = payload("claude-user-prompt-submit.json", prompt="continue until all are done")
    data["transcript_path"] = str(transcript(tmp_path, ws, *both))

    out, err = deliver(ws, isolated_env, data)

    assert err == ""
    text = context_of(out, "UserPromptSubmit")
    assert "tools/git#git-commit-fails-pre-commit-validation-failed" in text
    assert "mix format" in text and "web/router" not in text and "build/bun" not in text
    # one file of the two is a hub any change touches: not enough on its own
    one = dict(data, session_id="one", transcript_path=str(transcript(tmp_path, ws, both[0])))
    assert deliver(ws, isolated_env, one) == ("", "")
    # files no entry cites: nothing, however many
    other = ("lib/app/accounts.ex", "lib/app/accounts/user.ex", "test/app/accounts_test.exs")
    elsewhere = dict(
        data, session_id="other", transcript_path=str(transcript(tmp_path, ws, *other))
    )
    assert deliver(ws, isolated_env, elsewhere) == ("", "")


def test_the_workspace_state_rule_counts_files_cited_whole_not_folders(
    state_wiki: config.Places,
) -> None:
    index = state_wiki.state / "search.sqlite"

    def refs(paths: list[str], prompt: str = "keep going") -> list[str]:
        return [f.ref.split("#")[0] for f in prompt_entries(index, prompt, paths=paths)]

    assert refs(["lib/app/web/hooks_controller.ex", "lib/app/web/session_controller.ex"]) == [
        "tools/git"
    ]
    assert refs(["lib/app/web/session_controller.ex", "lib/app/web/router.ex"]) == []  # 1 each
    assert refs(["lib/app/web", "lib/app/web/templates"]) == []  # folders are not files
    assert refs(["lib/app/web/hooks_controller.ex"]) == []
    # the files beside a prompt that points elsewhere: both leads, the prompt's too
    found = refs(
        ["lib/app/web/hooks_controller.ex", "lib/app/web/session_controller.ex"],
        prompt="bun install says the lockfile had changes",
    )
    assert set(found) == {"tools/git", "build/bun"}
    # many files cited on the side never push out what the prompt's own words point to
    split = [f"lib/app/web/{name}.ex" for name in "abcdefgh"]
    assert refs(split) == ["web/layout"]
    assert set(refs(split, prompt="the bun lockfile")) == {
        "web/layout",
        "build/bun",
    }


def test_a_prompt_word_asks_for_the_commands_that_do_it_but_never_alone(
    workspace: Path, isolated_env: Path
) -> None:
    places = config.places(workspace, {})
    init(places, config.load(places, {}))
    write_leaf(
        places.wiki,
        "database/alembic",
        "Alembic",
        "Schema changes.",
        [("alembic upgrade fails: DATABASE_URL is not set", "`alembic upgrade head` fails.")],
    )
    write_leaf(
        places.wiki,
        "build/python",
        "Python packaging",
        "Wheels.",
        [("python -m build fails: No module named build", "Run `pip install build`.")],
    )
    write_leaf(
        places.wiki,
        "build/poetry",
        "Poetry",
        "The lock.",
        [("poetry install fails: pyproject changed", "Run `poetry lock`, commit it.")],
    )
    with SearchIndex(places.wiki, places.state / "search.sqlite") as index:
        index.refresh()

    def refs(prompt: str) -> list[str]:
        found = prompt_entries(places.state / "search.sqlite", prompt)
        return [f.ref.split("#")[0] for f in found]

    # "migrations" asks for `alembic upgrade`; "database" is the entry's own word
    assert refs("Run the database migrations on the staging preview") == ["database/alembic"]
    # "wheel" asks for `python -m build`, quoted in the entry's title, not `build/poetry`'s name
    assert refs("Build the wheel") == ["build/python"]
    # a command asked for is one piece: the prompt must also share a word with the entry
    assert refs("Run the migrations") == []


def test_files_every_note_cites_are_no_lead_on_their_own(
    workspace: Path, isolated_env: Path
) -> None:
    places = config.places(workspace, {})
    init(places, config.load(places, {}))
    hubs = "lib/app/application.ex and lib/app_web/router.ex"
    for n in range(12):
        write_leaf(
            places.wiki,
            f"notes/topic{n}",
            f"Topic {n}",
            "Notes.",
            [(f"Note {n} on {word}", f"Seen in {hubs}.") for word in ("caching", "timeouts")],
        )
    write_leaf(places.wiki, "tools/git", "Git", "Commits.", [("git commit fails", HOOK_CHECK)])
    with SearchIndex(places.wiki, places.state / "search.sqlite") as index:
        index.refresh()
    index_file = places.state / "search.sqlite"

    def refs(*paths: str) -> list[str]:
        found = prompt_entries(index_file, "continue until all are done", paths=list(paths))
        return [f.ref.split("#")[0] for f in found]

    # 24 of 25 entries cite the two hubs: the session working on them points nowhere
    assert refs("lib/app/application.ex", "lib/app_web/router.ex") == []
    # the two files only the pre-commit entry cites point to it, the hubs beside them or not
    rare = ("lib/app/web/hooks_controller.ex", "lib/app/web/session_controller.ex")
    assert refs(*rare) == ["tools/git"]
    assert refs("lib/app/application.ex", "lib/app_web/router.ex", *rare) == ["tools/git"]


def test_a_note_citing_mix_exs_is_not_about_a_failing_mix_command(
    workspace: Path, isolated_env: Path
) -> None:
    from wikimem.recall.symptoms import failure_entries

    places = config.places(workspace, {})
    init(places, config.load(places, {}))
    design = "Nested modules could be aliased at the top of the invoking module"
    write_leaf(
        places.wiki,
        "design/modules",
        "Modules",
        "Layout.",
        [("Module layout", f"{design}, we agreed; the deps are pinned in `mix.exs`.")],
    )
    write_leaf(
        places.wiki,
        "tools/credo",
        "Credo",
        "The linter.",
        [("mix credo fails: nested modules", f"{FENCE}text\n{design}.\n{FENCE}\nAdd an alias.")],
    )
    with SearchIndex(places.wiki, places.state / "search.sqlite") as index:
        index.refresh()

    error = f"Exit code 2\nChecking 1 source file ...\n[D] {design}.\n"
    found = failure_entries(places.state / "search.sqlite", "mix credo --strict lib/a.ex", error)
    assert [f.ref.split("#")[0] for f in found] == ["tools/credo"]
