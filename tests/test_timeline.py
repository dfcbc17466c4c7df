"""Timeline: time expressions, dated history from a real wiki repository, the CLI and MCP tool."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.conftest import git
from wikimem import config
from wikimem.recall.timeline import timeline
from wikimem.recall.when import split_when
from wikimem.wiki.workspace import init

TODAY = dt.date(2026, 12, 1)  # a Tuesday


@pytest.mark.parametrize(
    ("query", "start", "end", "rest"),
    [
        ("flaky sync test in april", "2026-04-01", "2026-04-30", "flaky sync test"),
        ("2026-04", "2026-04-01", "2026-04-30", ""),
        ("deploy last week", "2026-11-23", "2026-11-29", "deploy"),
        ("3 months ago", "2026-09-01", "2026-09-30", ""),
        ("2 weeks ago", "2026-11-16", "2026-11-22", ""),
        ("bun 2026-04-03", "2026-04-03", "2026-04-03", "bun"),
        ("december", "2026-12-01", "2026-12-31", ""),
        ("february", "2026-02-01", "2026-02-28", ""),
        ("yesterday", "2026-11-30", "2026-11-30", ""),
        ("past 10 days lockfile", "2026-11-21", "2026-12-01", "lockfile"),
        ("since 2026-11-20", "2026-11-20", "2026-12-01", ""),
        ("2026-04-15..2026-04-01 sync", "2026-04-01", "2026-04-15", "sync"),
        ("this year", "2026-01-01", "2026-12-01", ""),
        ("in may", "2026-05-01", "2026-05-31", ""),
    ],
)
def test_time_expressions_name_inclusive_day_windows(
    query: str, start: str, end: str, rest: str
) -> None:
    window, words = split_when(query, TODAY)
    assert window is not None
    assert (window.start.isoformat(), window.end.isoformat(), words) == (start, end, rest)


@pytest.mark.parametrize(
    "query", ["the sync may fail", "2026-13-40 crash", "bun lockfile", "april2026", "v2026-04"]
)
def test_words_that_name_no_time_stay_words(query: str) -> None:
    assert split_when(query, TODAY) == (None, query)


def commit_leaf(wiki: Path, path: str, text: str, when: str, subject: str, run: str) -> None:
    """Write a leaf and commit it with a given author date and run trailer, as a pass would."""
    file = wiki / path / "MEMORY.md"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    git("add", "-A", ".", cwd=wiki)
    git("commit", "-q", f"--date={when}", "-m", subject, "-m", f"Wikimem-Run: {run}", cwd=wiki)


SYNC_APRIL = """---
title: Sync
summary: The sync test.
type: episodic
updated: 2026-04-10
---
# Sync

## Flaky sync test

The sync test flaked on CI from a race in the watcher; we added a lock around the rename.
"""
SYNC_NOV = SYNC_APRIL.replace("2026-04-10", "2026-11-25") + (
    "\n## 2026-11-02 Sync test quarantined\n\nQuarantined again after the runner upgrade.\n"
)
BUN = """---
title: Bun
summary: Building with bun.
type: procedural
updated: 2026-11-26
---
# Bun

## Pin bun

Pin bun to 1.1.30; 1.1.31 broke the build.
"""


@pytest.fixture
def history(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    places = config.places(workspace, {})
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-05T08:00:00Z")  # the wiki's first commit
    init(places, config.load(places, {}))
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    wiki = places.wiki
    commit_leaf(wiki, "testing/sync", SYNC_APRIL, "2026-04-10T10:00:00Z", "Record the race", "r-41")
    commit_leaf(wiki, "build/bun", BUN, "2026-11-26T09:00:00Z", "Pin bun", "r-90")
    commit_leaf(wiki, "testing/sync", SYNC_NOV, "2026-11-25T09:00:00Z", "Quarantine", "r-88")
    return workspace


def test_timeline_answers_by_time_and_words_from_the_wiki_history(history: Path) -> None:
    places = config.places(history, {})
    settings = config.load(places, {})

    april = timeline(
        places, settings, "what did we do about the flaky sync test in april", 10, TODAY
    )
    assert [(e.date[:10], e.runs) for e in april.events] == [("2026-04-10", ("r-41",))]
    (change,) = april.events[0].changes
    assert (change.ref, change.action, change.type) == (
        "testing/sync#flaky-sync-test",
        "added",
        "episodic",
    )
    assert "lock around the rename" in change.text  # what happened, from the episodic entry

    # events go by when they were made, not by commit order; a dated entry is its own event
    last = timeline(places, settings, "past 30 days", 10, TODAY)
    assert [e.subject for e in last.events] == [
        "Pin bun",
        "Quarantine",
        "2026-11-02 Sync test quarantined",
    ]
    november = timeline(places, settings, "sync 2026-11", 10, TODAY)
    assert [e.subject for e in november.events] == [
        "Quarantine",
        "2026-11-02 Sync test quarantined",
    ]
    assert [c.action for c in november.events[0].changes] == ["added"]
    assert november.events[1].commit == ""

    assert timeline(places, settings, "bun april", 10, TODAY).events == ()
    assert len(timeline(places, settings, "", 2, TODAY).events) == 2


def test_timeline_cli_prints_and_emits_json(history: Path, cli) -> None:  # type: ignore[no-untyped-def]
    done = cli("timeline", "2026-04")
    assert done.code == 0, done.err
    assert "2026-04: 2026-04-01..2026-04-30" in done.out
    assert "added    testing/sync#flaky-sync-test  Flaky sync test" in done.out
    assert "Pin bun" not in done.out

    data = json.loads(cli("timeline", "--json", "bun").out)
    assert data["window"] is None and data["words"] == ["bun"]
    assert [e["runs"] for e in data["events"]] == [["r-90"]]

    nothing = cli("timeline", "2025-01-01")
    assert nothing.code == 0 and "nothing in the memory's history matches" in nothing.err


def test_timeline_cli_without_a_wiki_is_one_line(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    done = cli("timeline")
    assert done.code == 1 and "wikimem init" in done.err and "Traceback" not in done.err


def test_mcp_timeline_tool_reads_the_history(history: Path) -> None:
    pytest.importorskip("mcp")
    from tests.test_mcp import server, talk, text_of

    tools, (result,) = talk(server(history), [("memory_timeline", {"query": "flaky 2026-04"})])
    assert "memory_timeline" in tools
    data = json.loads(text_of(result))
    assert data["window"] == "2026-04-01..2026-04-30"
    assert [e["commit"] for e in data["events"]] and data["events"][0]["runs"] == ["r-41"]


def test_search_and_context_put_the_named_time_first(history: Path, cli) -> None:  # type: ignore[no-untyped-def]
    plain = json.loads(cli("search", "--json", "bun", "sync").out)
    assert {h["path"] for h in plain} >= {"build/bun", "testing/sync"}

    def refs(*query: str) -> list[str]:
        return [
            h["citation"].split("@")[0] for h in json.loads(cli("search", "--json", *query).out)
        ]

    # April changed only the sync leaf's flaky-test entry; November bun and the quarantine
    april = refs("flaky", "bun", "sync", "2026-04")
    assert set(april[:2]) == {"testing/sync", "testing/sync#flaky-sync-test"}
    assert "build/bun#pin-bun" in april[2:]
    november = refs("flaky", "bun", "sync", "2026-11")
    assert november.index("build/bun#pin-bun") < november.index("testing/sync#flaky-sync-test")

    def context_refs(query: str) -> list[str]:
        data = json.loads(cli("context", "--format", "json", "--query", query).out)
        return [f"{e['path']}#{e['entry']}" if e["entry"] else e["path"] for e in data["entries"]]

    april_ctx = context_refs("pin bun sync 2026-04")
    assert april_ctx.index("testing/sync#flaky-sync-test") < april_ctx.index("build/bun#pin-bun")
    nov_ctx = context_refs("pin bun flaky sync 2026-11")
    assert nov_ctx.index("build/bun#pin-bun") < nov_ctx.index("testing/sync#flaky-sync-test")


def test_the_picture_draws_runs_people_and_wikimems_upkeep_apart() -> None:
    from wikimem.recall.site import draw
    from wikimem.recall.timeline import Event

    events = [
        Event("2026-12-01T10:00:00+00:00", "a1", "Start the wiki", "wikimem"),
        Event("2026-12-02T10:00:00+00:00", "b2", "Add build/bun", "wikimem", ("run-1",)),
        Event("2026-12-03T10:00:00+00:00", "c3", "Fix a typo", "Ada Person"),
    ]
    svg = draw(events)
    assert [part.split('"')[0] for part in svg.split('class="mark ')[1:]] == [
        "wikimem",
        "run",
        "person",
    ]
    assert "Start the wiki" in svg.split('class="mark wikimem"')[1].split("</circle>")[0]
