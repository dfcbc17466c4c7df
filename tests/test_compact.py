"""Compaction on real wikis built by real passes: rules, review holds, the person-first rule,
the trash, a model over the loopback server (one call per topic), and the schedule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import git
from tests.openai_server import Reply
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.lifecycle.compact import compact, on_schedule
from wikimem.wiki.workspace import init, open_repo

LOCK = (
    "The sync test flaked on CI from a race in the file watcher; a lock around the rename fixed it."
)
PIN = "Pin bun to 1.1.30 in .tool-versions: 1.1.31 broke `bun run build` with an ESM error."
PIN_AGAIN = "Pin bun to 1.1.30 in .tool-versions, because 1.1.31 broke `bun run build`."
PORTS = "The dev server listens on port 5173 and the API on 8080; both bind to localhost only."
DEPLOY = "Deploy the API with `fly deploy -a api`; staging is `api-staging` and needs no approval."


def remember(places: config.Places, settings: config.Settings, run: str, *memory: dict) -> None:
    enqueue(places, settings, {"run_id": run, "task": "remember", "memory": list(memory)})
    outcomes = [o.outcome for r in drain(places, settings) for o in r.outcomes]
    assert outcomes == ["changed"], outcomes


def note(path: str, title: str, content: str, kind: str = "procedural") -> dict[str, str]:
    return {"path": path, "title": title, "content": content, "type": kind}


def build(workspace: Path, env: dict[str, str] | None = None) -> tuple[Any, Any]:
    """A wiki made by passes: 6 entries in 3 leaves, one exact and one near duplicate."""
    places = config.places(workspace, env or {})
    settings = config.load(places, env or {})
    init(places, settings)
    remember(
        places,
        settings,
        "r1",
        note("testing/sync", "Flaky sync test", LOCK, "episodic"),
        note("build/bun", "Pin bun", PIN),
        note("build/ports", "Ports", PORTS, "semantic"),
    )
    remember(
        places,
        settings,
        "r2",
        note("testing/sync", "Sync test flaked again", LOCK, "episodic"),
        note("build/bun", "Bun version pinned", PIN_AGAIN),
        note("deploy/fly", "Deploying", DEPLOY),
    )
    return places, settings


def entries(wiki: Path, leaf: str) -> list[str]:
    if not (wiki / leaf / "MEMORY.md").exists():
        return []  # a leaf left with no entry and no text of its own goes
    text = (wiki / leaf / "MEMORY.md").read_text(encoding="utf-8")
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def subjects(wiki: Path) -> list[str]:
    return git("log", "--format=%s", cwd=wiki).splitlines()


def test_rules_retire_duplicates_to_the_trash_in_one_commit(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    before = subjects(places.wiki)

    dry = cli("compact", "--dry-run")
    assert dry.code == 0, dry.err
    assert (
        "-## Sync test flaked again" in dry.out and "+++ b/.trash/testing/sync/MEMORY.md" in dry.out
    )
    assert "exact duplicate of testing/sync#flaky-sync-test" in dry.out
    assert "near duplicate of build/bun#pin-bun" in dry.out
    assert subjects(places.wiki) == before and not (places.wiki / ".trash").exists()

    done = compact(places, settings, use_model=False)
    assert done.commit and done.held == ""
    assert set(done.retired) == {
        "testing/sync#sync-test-flaked-again",
        "build/bun#bun-version-pinned",
    }
    assert subjects(places.wiki) == ["Compact the wiki", *before]
    assert entries(places.wiki, "testing/sync") == ["Flaky sync test"]
    assert entries(places.wiki, "build/bun") == ["Pin bun"]
    assert entries(places.wiki, "build/ports") == ["Ports"]  # unrelated entries stay
    trailers = git("log", "-1", "--format=%(trailers:only)", cwd=places.wiki)
    assert "Wikimem-Action: compact" in trailers

    listed = cli("trash").out
    assert "testing/sync#sync-test-flaked-again" in listed
    assert cli("restore", "build/bun#bun-version-pinned").code == 0
    assert entries(places.wiki, "build/bun") == ["Pin bun", "Bun version pinned"]

    again = compact(places, settings, use_model=False)  # restored by a person: kept, but
    assert again.held.startswith("changes entries a person wrote")  # the restore is theirs
    assert again.commit is None


def test_expired_entries_retire_and_search_loses_them(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    compact(places, settings, use_model=False)
    leaf = places.wiki / "build" / "ports" / "MEMORY.md"
    text = leaf.read_text(encoding="utf-8")
    leaf.write_text(text.replace("## Ports\n", "## Ports\n<!-- wikimem: expires=2026-01-31 -->\n"))
    git(
        "commit",
        "-qam",
        "an expiry, set by a pass",
        "--author=wikimem <wikimem@localhost>",
        cwd=places.wiki,
    )

    done = compact(places, settings, use_model=False, day="2026-02-01")
    assert done.retired == ("build/ports#ports",) and done.commit
    assert not (
        places.wiki / "build" / "ports" / "MEMORY.md"
    ).exists()  # its only entry: empty leaves go
    assert "5173" not in cli("search", "port", "5173").out
    assert compact(places, settings, use_model=False, day="2026-02-01").plan.edits == ()


def test_mass_removal_is_held_until_approved(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    toml = places.workspace_config
    toml.write_text("[review]\nmax_remove_share = 0.2\n")
    before = subjects(places.wiki)

    held = cli("compact")
    assert held.code == 1 and "held for review (removes 1 of 2 entries in build/bun)" in held.err
    assert subjects(places.wiki) == before

    data = json.loads(cli("compact", "--json", "--dry-run").out)
    assert data["held"] and data["commit"] is None and len(data["retired"]) == 2

    done = cli("compact", "--approve")
    assert done.code == 0 and "2 retired to the trash" in done.out
    assert subjects(places.wiki)[0] == "Compact the wiki"


def test_an_entry_a_person_edited_is_never_retired_without_approval(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    leaf = places.wiki / "testing" / "sync" / "MEMORY.md"
    text = leaf.read_text(encoding="utf-8")
    head, _, tail = text.rpartition("fixed it.")  # the later entry: same words, Ada's stress
    leaf.write_text(head + "fixed it!" + tail)  # saved, not committed

    done = compact(places, settings, use_model=False)
    assert done.commit is None
    assert done.held == "changes entries a person wrote: testing/sync#sync-test-flaked-again"
    assert "fixed it!" in leaf.read_text(encoding="utf-8")

    # committed by the person: still theirs
    git("commit", "-qam", "my note", cwd=places.wiki)
    assert compact(places, settings, use_model=False).held.startswith("changes entries a person")

    approved = compact(places, settings, use_model=False, approve=True)
    assert approved.commit
    trash = (places.wiki / ".trash" / "testing" / "sync" / "MEMORY.md").read_text()
    assert "fixed it!" in trash  # retired to the trash, restorable, never lost


def test_a_model_plan_is_one_call_per_topic_and_validated(workspace: Path, openai_server) -> None:  # type: ignore[no-untyped-def]
    env = {
        "OPENAI_BASE_URL": openai_server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }
    # the passes that build the wiki use the model too: script their plans from the candidates
    openai_server.default = Reply.plan({"summary": "no change", "edits": []})
    places, settings = build(workspace, env)
    openai_server.reset()
    merged = {
        "summary": "Merge the bun pins",
        "edits": [
            {"action": "update", "leaf": "build/ports", "entry": "ports", "type": "semantic",
             "title": "Ports", "body": "Dev server 5173, API 8080, localhost only.",
             "reason": "tighter"},
            {"action": "remove", "leaf": "deploy/fly", "entry": "deploying", "reason": "not mine"},
            {"action": "remove", "leaf": "build/ports", "entry": "../../x", "reason": "bad"},
        ],
    }  # fmt: skip
    openai_server.script(Reply.plan(merged))
    openai_server.default = Reply.plan({"summary": "", "edits": []})

    done = compact(places, settings)
    # build holds 2 entries once the near duplicate is ruled out, deploy 1, testing 1:
    # only build has anything to merge, so one call
    assert done.model_calls == 1 and len(openai_server.completions) == 1
    assert "build/ports#ports" in openai_server.completions[0]["messages"][1]["content"]
    assert done.updated == ("build/ports#ports",)
    assert "deploy/fly#deploying" not in done.retired  # another topic's entry: dropped
    assert done.commit
    text = (places.wiki / "build" / "ports" / "MEMORY.md").read_text()
    assert "Dev server 5173, API 8080, localhost only." in text
    # wikimem's commit, naming the person who asked: the merged text is not the person's
    # words, so the next pass may rewrite it without a review hold
    assert git("log", "-1", "--format=%ae", cwd=places.wiki).strip() == "wikimem@localhost"
    trailers = git("log", "-1", "--format=%(trailers:only)", cwd=places.wiki)
    assert "Wikimem-Requested-By: " in trailers
    lines = open_repo(places, settings).person_lines("build/ports/MEMORY.md")
    assert lines is not None and not any(lines)


def test_schedule_compacts_after_n_changing_passes(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    places.workspace_config.write_text("[compact]\nevery_passes = 2\n")
    settings = config.load(places, {})
    assert on_schedule(places, settings, 1, now=1000.0) is None
    state = json.loads((places.state / "compact.json").read_text())
    assert state["passes"] == 1
    done = on_schedule(places, settings, 1, now=1001.0)
    assert done is not None and done.commit
    trailers = git("log", "-1", "--format=%(trailers:only)", cwd=places.wiki)
    assert "Wikimem-Action: compact" in trailers and "Requested-By" not in trailers
    assert json.loads((places.state / "compact.json").read_text())["passes"] == 0

    hourly = settings.override("compact.every_passes", 0, "test").override(
        "compact.every_hours", 1.0, "test"
    )
    assert on_schedule(places, hourly, 0, now=1001.0 + 3599) is None  # an hour after the last
    assert on_schedule(places, hourly, 0, now=1001.0 + 3600) is not None
    (places.state / "compact.json").unlink()
    assert on_schedule(places, hourly, 0, now=9000.0) is None  # no record: the clock starts
    assert on_schedule(places, hourly, 0, now=9000.0 + 3600) is not None


def test_in_review_mode_all_a_scheduled_compaction_waits_for_a_person(workspace: Path) -> None:
    places, settings = build(workspace)
    places.workspace_config.write_text('[compact]\nevery_passes = 1\n[review]\nmode = "all"\n')
    settings = config.load(places, {})
    head = git("rev-parse", "HEAD", cwd=places.wiki)
    done = on_schedule(places, settings, 1, now=1000.0)
    assert done is not None and done.commit is None and "review.mode is all" in done.held
    assert git("rev-parse", "HEAD", cwd=places.wiki) == head  # nothing written
    from wikimem.lifecycle.compact import held_compaction

    held = held_compaction(places)  # `wikimem review` lists it beside held plans
    assert held is not None and held["edits"] == len(done.plan.edits) > 0
    assert on_schedule(places, settings, 0, now=1001.0) is None  # not due: it still waits
    assert held_compaction(places) == held
    asked = compact(places, settings)  # a person running `wikimem compact` asked for it
    assert asked.commit and not asked.held
    assert held_compaction(places) is None


def test_review_lists_a_scheduled_compaction_that_waits(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    places.workspace_config.write_text('[compact]\nevery_passes = 1\n[review]\nmode = "all"\n')
    settings = config.load(places, {})
    done = on_schedule(places, settings, 1, now=1000.0)
    assert done is not None and done.held
    listed = cli("review")
    assert listed.code == 0 and listed.out.startswith("compaction  "), listed.out
    assert "wikimem review show compaction" in listed.out
    shown = cli("review", "show", "compaction")
    assert shown.code == 0 and shown.out.startswith("waits   review.mode is all"), shown.out
    assert "remove " in shown.out and "\n---" in shown.out  # its edits, then the diff
    head = git("rev-parse", "HEAD", cwd=places.wiki)
    approved = cli("review", "approve", "compaction")
    assert approved.code == 0 and "approved the compaction in commit" in approved.out
    assert git("rev-parse", "HEAD", cwd=places.wiki) != head
    assert cli("review").out.startswith("nothing waits for review")
    gone = cli("review", "show", "compaction")
    assert gone.code == 1 and "no compaction waits for review" in gone.err


def test_index_runs_the_scheduled_compaction(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = build(workspace)
    places.workspace_config.write_text("[compact]\nevery_passes = 1\n")
    regions = note("deploy/fly", "Regions", "Deploy to ams and iad.")
    enqueue(places, settings, {"run_id": "r3", "task": "x", "memory": [regions]})
    done = cli("index")
    assert done.code == 0, done.err
    assert "compacted in commit" in done.out
    assert subjects(places.wiki)[0] == "Compact the wiki"
    assert entries(places.wiki, "build/bun") == ["Pin bun"]


def test_compact_without_a_wiki_or_with_a_bad_topic_is_one_line(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    missing = cli("compact")
    assert missing.code == 1 and "wikimem init" in missing.err
    build(workspace)
    bad = cli("compact", "--topic", "nope")
    assert bad.code == 2 and "no topic 'nope'" in bad.err and "Traceback" not in bad.err
    only = cli("compact", "--topic", "deploy", "--no-model")
    assert only.code == 0 and "nothing to compact" in only.out


def test_an_entry_holding_a_sync_conflict_is_never_compacted_without_approval(
    workspace: Path,
) -> None:
    places, settings = build(workspace)
    leaf = places.wiki / "build" / "ports" / "MEMORY.md"
    note = "<!-- sync conflict to settle: Ada (abc1234, x) changed the lines above differently -->"
    text = leaf.read_text(encoding="utf-8")
    marked = text.replace(
        f"## Ports\n\n{PORTS}",
        f"## Ports\n<!-- wikimem: expires=2026-01-31 -->\n\n{PORTS}\n{note}\n"
        "The API listens on 8081 on staging.\n<!-- end of sync conflict -->",
    )
    assert marked != text
    leaf.write_text(marked, encoding="utf-8")
    git("commit", "-qam", "a sync's merge", "--author=wikimem <wikimem@localhost>",
        cwd=places.wiki)  # fmt: skip

    done = compact(places, settings, use_model=False, day="2026-02-01")
    assert "build/ports#ports" in done.retired  # expired: the rules would retire it, but
    assert done.held.startswith("changes entries holding a sync conflict to settle: ")
    assert "build/ports#ports" in done.held
    assert done.commit is None and "8081 on staging" in leaf.read_text(encoding="utf-8")


# -- duplicates: the person's words stay, and the search is linear ------------------------------

RULES_BODY = (
    "`python -m build` fails with exit code 1:\n\n```text\n~/.venv/bin/python: No module named"
    " build\n```\n\nWhen it fails this way, run `pip install build`; then the same command passes."
)


def page_items(text: str, leaf: str = "tools/build") -> list[Any]:
    from wikimem.lifecycle.compact import Item
    from wikimem.wiki.markdown import parse_page

    return [Item(leaf, e, "procedural", "", e.body) for e in parse_page(text).entries]


def test_a_persons_entry_is_never_retired_for_an_automated_duplicate() -> None:
    from wikimem.lifecycle.compact import rule_edits

    person = "Run `pip install build` first: `python -m build` needs the build package."
    text = (
        "---\ntitle: build\n---\n# build\n\n"
        f"## Build needs its package\n\n{RULES_BODY}\n\n"  # the same words, a person's heading:
        f"## python -m build fails\n\n{RULES_BODY}\n\n"  # the text decides whose they are
        f"## Build the wheel\n\n{person} {RULES_BODY}\n\n"
    )
    retired = {e["entry"] for e in rule_edits(page_items(text), "2026-12-02")}

    # the two rules' entries are exact duplicates of each other and near duplicates of the
    # person's longer one: both go, the person's stays
    assert retired == {"build-needs-its-package", "python--m-build-fails"}

    # a person's shorter entry contained in a rules' longer one is not retired for it
    text = (
        "---\ntitle: build\n---\n# build\n\n"
        "## Install build\n\nNote: `python -m build` fails with exit code 1 as"
        " `~/.venv/bin/python: No module named build`. When it fails this way, run"
        " `pip install build`; then the same command passes.\n\n"
        f"## python -m build fails\n\n{RULES_BODY}\n\n`pyproject.toml`:\n\n```diff\n"
        '+requires = ["setuptools", "build"]\n+build-backend = "setuptools.build_meta"\n```\n'
    )
    assert rule_edits(page_items(text), "2026-12-02") == []

    # a rules' entry contained in a person's longer one is the one that goes
    text = (
        "---\ntitle: build\n---\n# build\n\n"
        f"## python -m build fails\n\n{RULES_BODY}\n\n"
        f"## Mine\n\n{RULES_BODY}\n\nAsk in #builds first.\n"
    )
    assert [e["entry"] for e in rule_edits(page_items(text), "2026-12-02")] == [
        "python--m-build-fails"
    ]


def test_a_thousand_duplicate_headings_compact_in_seconds(workspace: Path) -> None:
    import time

    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    body = "`bun install --frozen-lockfile` fails with `lockfile had changes`: run `bun install`."
    leaf = places.wiki / "build" / "bun"
    leaf.mkdir(parents=True)
    entries = "".join(f"## Lockfile drift\n\n{body}\n\n" for _ in range(1000))
    (leaf / "MEMORY.md").write_text(f"---\ntitle: Bun\n---\n# Bun\n\n{entries}", encoding="utf-8")

    started = time.monotonic()
    done = compact(places, settings, use_model=False, dry_run=True, day="2026-12-02")
    took = time.monotonic() - started

    assert len(done.retired) == 999
    assert took < 20, f"{took:.1f} s"  # 270 s when each retirement re-read the page
