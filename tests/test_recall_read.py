"""Reading memory back through the CLI: context, search citations, entry versions, pause."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, run_wikimem
from tests.recall_support import BUN, CACHE, PYTEST, learn, setup


@pytest.fixture
def learned(workspace: Path):  # type: ignore[no-untyped-def]
    places, settings = setup(workspace)
    learn(places, settings, "run-1", BUN, CACHE, PYTEST)
    return places, settings


def test_context_profile_then_relevant_entries_within_budget(learned, cli) -> None:
    first = cli("context", "--query", "bun lockfile")
    assert first.code == 0
    assert first.out.startswith("# ws\n")
    assert "## Relevant memory" in first.out and "Lockfile drift on CI" in first.out
    assert "(wikimem show build/bun#lockfile-drift-on-ci)" in first.out
    assert cli("context", "--query", "bun lockfile").out == first.out  # byte-identical

    small = cli("context", "--query", "bun lockfile", "--budget", "300")
    assert len(small.out) <= 300
    assert small.out.rstrip("\n").endswith("wikimem show PATH, wikimem search QUERY")

    data = json.loads(cli("context", "--query", "sqlite", "--format", "json").out)
    assert ("testing/pytest", "parallel-sqlite-locks") in {
        (e["path"], e["entry"]) for e in data["entries"]
    }
    assert {e["path"] for e in data["entries"]} == {"testing/pytest"}
    assert data["chars"] <= data["budget"] == 4000


def test_context_is_silent_when_memory_is_off_or_paused(learned, cli) -> None:
    places, _ = learned
    off = run_wikimem("context", cwd=places.workspace, env={"WIKIMEM_MEMORY": "off"})
    assert off.returncode == 0 and off.stdout == b""
    assert cli("pause").out == "memory paused\n"
    assert places.paused_flag.exists()
    assert cli("pause").out == "memory was already paused\n"
    assert cli("context", "--query", "bun") == type(cli("status"))(0, "", "")
    status = cli("status")
    assert "paused" in status.out
    assert cli("resume").out == "memory resumed\n"
    assert not places.paused_flag.exists()
    assert "Lockfile drift" in cli("context", "--query", "bun").out
    assert not (places.workspace / ".clarvis" / "config.toml").exists()  # settings untouched


def test_search_citation_resolves_with_show(learned, cli) -> None:
    places, _ = learned
    found = cli("search", "frozen", "lockfile", "--why")
    assert found.code == 0
    head = git("rev-parse", "--short", "HEAD", cwd=places.wiki).strip()
    cite = f"build/bun#lockfile-drift-on-ci@{head}"
    assert f"cite: {cite}" in found.out
    assert "why:  score" in found.out and "bm25" in found.out
    shown = cli("show", cite)
    assert shown.code == 0 and shown.out.startswith("## Lockfile drift on CI")

    hits = json.loads(cli("search", "lockfile", "--json", "--limit", "1").out)
    assert len(hits) == 1 and hits[0]["citation"].endswith(f"@{head}")
    assert cli("search", "nothing-like-this").err == "wikimem: no memory matches\n"


def test_an_update_makes_v2_and_superseded_text_is_never_recalled(learned, cli) -> None:
    places, settings = learned
    path, title, _ = BUN
    learn(
        places,
        settings,
        "run-2",
        (path, title, "Since bun 1.2 the text lockfile bun.lock replaced the binary one."),
    )
    versions = cli("log", "build/bun#lockfile-drift-on-ci").out.splitlines()
    assert [line.split()[0] for line in versions] == ["v2", "v1"]
    assert "run run-2" in versions[0] and "run run-1" in versions[1]

    assert json.loads(cli("search", "frozen", "--json").out) == []
    assert "binary" in cli("search", "binary", "lockfile").out
    context = cli("context", "--query", "bun frozen lockfile").out
    assert "frozen-lockfile" not in context and "text lockfile bun.lock" in context
    old = cli("show", f"build/bun#lockfile-drift-on-ci@{versions[1].split()[2]}").out
    assert "frozen-lockfile" in old


def test_commands_reject_bad_arguments_in_one_line(learned, cli) -> None:
    bad = cli("context", "--budget", "-1")
    assert bad.code == 2 and "Traceback" not in bad.err
    missing = cli("search")
    assert missing.code == 2
    for name in (
        "context",
        "search",
        "forget",
        "trash",
        "restore",
        "purge",
        "undo",
        "verify",
        "export",
        "import",
        "pause",
        "resume",
    ):
        helped = cli(name, "--help")
        assert helped.code == 0 and "-C, --workspace DIR" in helped.out, name
