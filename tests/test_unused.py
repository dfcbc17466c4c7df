"""Compaction retires what agents never got or used for `memory.unused_days`: on a real wiki
made by real passes, with deliveries logged by the real prompt hook and a use recorded by a
real run, `compact --dry-run` lists exactly the idle old entry, not the used one, the young
one, the person's or the identity entry; 0 days turns the rule off.

The day is moved, not waited for: the compaction's day (`today`) is 40 days after the passes,
and the young entry is committed with a git date 30 days after them."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.conftest import git
from tests.test_compact import DEPLOY, LOCK, PIN, PORTS, note, remember
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.lifecycle import compact as compaction
from wikimem.recall import injections
from wikimem.recall.delivery import answer
from wikimem.recall.events import read_event
from wikimem.wiki.workspace import init, today

HOOKS = Path(__file__).parent / "fixtures" / "runners" / "hooks"
OWNER = "The owner of this project is Ada; she reviews every change to the deploy pipeline."
MINE = "Never merge on a Friday afternoon: the on-call rota is thin until Monday."


def later(days: int) -> str:
    return (dt.date.fromisoformat(today()) + dt.timedelta(days=days)).isoformat()


def prompt(workspace: Path, session: str, words: str) -> list[str]:
    """The prompt hook's answer for `words`, through the real delivery (which logs it)."""
    data = json.loads((HOOKS / "claude-user-prompt-submit.json").read_text(encoding="utf-8"))
    data.update(session_id=session, prompt=words)
    places = config.places(workspace, {})
    _, refs = answer(read_event(data), places.state / "search.sqlite", places.state, 2000, "claude")
    return refs


@pytest.fixture
def idle_wiki(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[config.Places, config.Settings]:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    remember(
        places,
        settings,
        "r1",
        note("testing/sync", "Flaky sync test", LOCK, "episodic"),
        note("build/ports", "Ports", PORTS, "semantic"),
        note("deploy/fly", "Deploying", DEPLOY),
        note("people/owner", "Owner", OWNER, "identity"),
    )
    # a person's entry, committed by them
    page = places.wiki / "build" / "ports" / "MEMORY.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\n## No Friday merges\n\n{MINE}\n")
    git("commit", "-qam", "my rule", cwd=places.wiki)
    # a young entry: written 30 days after the others
    young = f"{later(30)}T09:00:00+00:00"
    monkeypatch.setenv("GIT_AUTHOR_DATE", young)
    monkeypatch.setenv("GIT_COMMITTER_DATE", young)
    remember(places, settings, "r2", note("build/bun", "Pin bun", PIN))
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    monkeypatch.delenv("GIT_COMMITTER_DATE")

    # session s1 is given the deploy entry and a run of it deploys 35 days later; session s2
    # is given the sync entry and never uses it
    assert prompt(workspace, "s1", "deploy the api to fly staging") == ["deploy/fly#deploying"]
    assert prompt(workspace, "s2", "the sync test flaked again, a race in the file watcher") == [
        "testing/sync#flaky-sync-test"
    ]
    run = {
        "run_id": "s1:turn-2",
        "task": "Ship the API",
        "ended_at": f"{later(35)}T10:00:00Z",
        "evidence": [{"kind": "command", "command": "fly deploy -a api", "exit_code": 0}],
    }
    enqueue(places, settings, run)
    monkeypatch.setattr(compaction, "today", lambda: later(40))
    return places, settings


def test_compact_lists_exactly_the_entries_agents_never_got_or_used(idle_wiki, cli) -> None:  # type: ignore[no-untyped-def]
    places, _ = idle_wiki

    done = cli("compact", "--dry-run", "--no-model")
    data = json.loads(cli("compact", "--dry-run", "--no-model", "--json").out)

    assert done.code == 0, done.err
    assert data["reasons"] == {
        "build/ports#ports": f"not delivered or used in 30 days (created {today()})",
        "testing/sync#flaky-sync-test": (
            f"not delivered or used in 30 days (created {today()}, last delivered {today()})"
        ),
    }
    assert f"remove  build/ports#ports  not delivered or used in 30 days (created {today()})" in (
        done.out
    )
    assert "-## Ports" in done.out and "dry run: nothing changed" in done.out
    assert "deploy/fly" not in done.out and "build/bun" not in done.out  # used; young
    assert "people/owner" not in done.out  # identity

    # applied like any retirement: one commit, the entries in the trash
    applied = cli("compact", "--no-model")
    assert applied.code == 0, applied.err
    assert "2 retired to the trash" in applied.out
    assert "## Ports" in (places.wiki / ".trash" / "build" / "ports" / "MEMORY.md").read_text(
        encoding="utf-8"
    )
    assert "## No Friday merges" in (places.wiki / "build" / "ports" / "MEMORY.md").read_text(
        encoding="utf-8"
    )


def test_the_rule_waits_for_its_days_and_zero_turns_it_off(
    idle_wiki, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    places, settings = idle_wiki
    # 29 days after the passes nothing is idle for 30 yet
    assert (
        compaction.compact(places, settings, use_model=False, dry_run=True, day=later(29)).retired
        == ()
    )
    # 45 days after: the young entry is 15 days old, the used one idle for 10
    assert set(
        compaction.compact(places, settings, use_model=False, dry_run=True, day=later(45)).retired
    ) == {
        "build/ports#ports",
        "testing/sync#flaky-sync-test",
    }

    (places.workspace / ".clarvis" / "config.toml").write_text("[memory]\nunused_days = 0\n")
    done = cli("compact", "--dry-run", "--no-model")
    assert done.code == 0, done.err
    assert "nothing to compact" in done.out


def test_nothing_is_unused_where_no_delivery_was_ever_logged(idle_wiki, cli) -> None:  # type: ignore[no-untyped-def]
    places, _ = idle_wiki
    for log in (places.state / injections.FOLDER).glob("*.jsonl"):
        log.unlink()
    assert "nothing to compact" in cli("compact", "--dry-run", "--no-model").out


def test_many_unused_entries_wait_apart_and_approve_retires_them(idle_wiki, cli) -> None:  # type: ignore[no-untyped-def]
    """Removing them would hold the whole plan (here more than a tenth of the entries): they
    wait for a person, listed with their reasons, and --approve retires them."""
    places, _ = idle_wiki
    (places.workspace / ".clarvis" / "config.toml").write_text("[review]\nmax_remove_share = 0.1\n")
    before = git("rev-parse", "HEAD", cwd=places.wiki)

    done = cli("compact", "--no-model")
    data = json.loads(cli("compact", "--dry-run", "--no-model", "--json").out)

    assert done.code == 1
    assert f"held    build/ports#ports  not delivered or used in 30 days (created {today()})" in (
        done.out
    )
    assert "2 unused entries wait for review (removes 1 of 2 entries in build/ports)" in done.err
    assert sorted(data["waiting"]) == ["build/ports#ports", "testing/sync#flaky-sync-test"]
    assert data["retired"] == [] and data["held"] == ""
    assert git("rev-parse", "HEAD", cwd=places.wiki) == before

    approved = cli("compact", "--no-model", "--approve")
    assert approved.code == 0, approved.err
    assert "2 retired to the trash" in approved.out


def test_a_later_write_to_its_leaf_does_not_make_an_entry_young(
    idle_wiki, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    places, settings = idle_wiki
    when = f"{later(30)}T09:00:00+00:00"
    monkeypatch.setenv("GIT_AUTHOR_DATE", when)
    monkeypatch.setenv("GIT_COMMITTER_DATE", when)
    proxy = "The dev server proxies /api to port 8080, so the browser never sees a CORS error."
    enqueue(places, settings, {"run_id": "r3", "task": "remember", "memory": [note(
        "build/ports", "Proxy", proxy, "semantic")]})  # fmt: skip
    drain(places, settings)  # the deploying run waiting in the queue goes too, still counted
    page = (places.wiki / "build" / "ports" / "MEMORY.md").read_text(encoding="utf-8")
    assert "## Proxy" in page and "## Ports" in page

    data = json.loads(cli("compact", "--dry-run", "--no-model", "--json").out)

    assert data["reasons"]["build/ports#ports"].endswith(f"(created {today()})")
    assert "build/ports#proxy" not in data["reasons"]
    assert "deploy/fly#deploying" not in data["reasons"]  # its run, now done, still counts
