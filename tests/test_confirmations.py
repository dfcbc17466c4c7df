"""A later run that proposes an entry word for word confirms it: the support is recorded (a
`confirmed` date on the entry, the run in the commit) at most once per `memory.confirm_days`,
provenance counts it, and compaction keeps what was confirmed after its review date."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import git
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.lifecycle.compact import compact
from wikimem.recall.provenance import origin
from wikimem.wiki.workspace import init, today

PIN = "Pin bun to 1.1.30 in .tool-versions: 1.1.31 broke `bun run build` with an ESM error."
PORTS = "The dev server listens on port 5173 and the API on 8080; both bind to localhost only."
LEAF = Path("build") / "bun" / "MEMORY.md"


def start(workspace: Path, settings_toml: str = "") -> tuple[Any, Any]:
    places = config.places(workspace, {})
    if settings_toml:
        places.workspace_config.parent.mkdir(parents=True, exist_ok=True)
        places.workspace_config.write_text(settings_toml)
    settings = config.load(places, {})
    init(places, settings)
    return places, settings


def remember(places: Any, settings: Any, run: str, body: str = PIN) -> list[str]:
    item = {"path": "build/bun", "title": "Pin bun", "content": body, "type": "procedural"}
    enqueue(places, settings, {"run_id": run, "task": "remember", "memory": [item]})
    return [o.outcome for r in drain(places, settings) for o in r.outcomes]


def age(places: Any, leaf: Path = LEAF, day: str = "2020-01-01") -> None:
    """Date the leaf's last write back to `day`, as if written long ago."""
    page = places.wiki / leaf
    page.write_text(
        page.read_text(encoding="utf-8").replace(f"updated: {today()}", f"updated: {day}")
    )
    git("commit", "-qam", "written long ago", "--author=wikimem <wikimem@localhost>",
        cwd=places.wiki)  # fmt: skip


def commits(wiki: Path) -> list[str]:
    return git("log", "--format=%s", cwd=wiki).splitlines()


def test_a_run_repeating_an_entry_is_recorded_once_as_support(workspace: Path) -> None:
    places, settings = start(workspace)
    assert remember(places, settings, "r1") == ["changed"]
    # a run repeating a lesson written within memory.confirm_days changes nothing
    assert remember(places, settings, "r0") == ["no change"]
    age(places)
    before = commits(places.wiki)

    assert remember(places, settings, "r2") == ["changed"]
    assert commits(places.wiki) == ["Confirm build/bun: Pin bun", *before]
    text = (places.wiki / LEAF).read_text(encoding="utf-8")
    assert f"confirmed={today()}" in text
    assert PIN in text and text.count(PIN) == 1  # the words stay as they were
    message = git("log", "-1", "--format=%B", cwd=places.wiki)
    assert "Wikimem-Run: r2" in message
    assert "- confirm build/bun#pin-bun: confirmed by a later run" in message

    found = origin(places, settings, "build/bun#pin-bun")
    assert found.runs == ("r1", "r2") and found.source == "candidate"  # r0 left no record
    assert found.strength == 3  # a candidate (2), confirmed by one more run

    # the same day, and within memory.confirm_days: nothing more to record
    assert remember(places, settings, "r3") == ["no change"]
    assert len(commits(places.wiki)) == len(before) + 1
    assert git("status", "--porcelain", cwd=places.wiki) == ""


def test_an_old_confirmation_is_renewed(workspace: Path) -> None:
    places, settings = start(workspace)
    remember(places, settings, "r1")
    age(places)
    remember(places, settings, "r2")
    leaf = places.wiki / LEAF
    leaf.write_text(
        leaf.read_text(encoding="utf-8")
        .replace(f"confirmed={today()}", "confirmed=2020-01-01")
        .replace(f"updated: {today()}", "updated: 2020-01-01")
    )
    git("commit", "-qam", "an old confirmation", "--author=wikimem <wikimem@localhost>",
        cwd=places.wiki)  # fmt: skip

    assert remember(places, settings, "r3") == ["changed"]
    assert f"confirmed={today()}" in leaf.read_text(encoding="utf-8")
    assert origin(places, settings, "build/bun#pin-bun").runs == ("r1", "r2", "r3")


def test_a_confirmation_keeps_the_line_a_person_added(workspace: Path) -> None:
    places, settings = start(workspace)
    remember(places, settings, "r1")
    age(places)
    leaf = places.wiki / LEAF
    mine = "Checked again by hand on the release branch."
    leaf.write_text(leaf.read_text(encoding="utf-8").replace(PIN, f"{PIN}\n{mine}"))
    body = f"{PIN}\n{mine}"

    # a run proposing the entry as it now stands, the person's line included, confirms it
    assert remember(places, settings, "r2", body) == ["changed"]
    text = leaf.read_text(encoding="utf-8")
    assert mine in text and f"confirmed={today()}" in text
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    authors = git("log", "--format=%ae %s", cwd=places.wiki).splitlines()
    assert authors[0] == "wikimem@localhost Confirm build/bun: Pin bun"
    assert not authors[1].startswith("wikimem@")  # the person's line committed as theirs


def test_compaction_retires_what_nothing_refreshed_after_its_review_date(workspace: Path) -> None:
    places, settings = start(workspace)
    remember(places, settings, "r1")
    item = {"path": "build/ports", "title": "Ports", "content": PORTS, "type": "semantic"}
    enqueue(places, settings, {"run_id": "p1", "task": "remember", "memory": [item]})
    drain(places, settings)
    for leaf, entry in (("build/bun", "## Pin bun\n"), ("build/ports", "## Ports\n")):
        page = places.wiki / leaf / "MEMORY.md"
        text = page.read_text(encoding="utf-8").replace(
            entry, entry + "<!-- wikimem: review-by=2030-01-01 -->\n"
        )
        page.write_text(text.replace(f"updated: {today()}", "updated: 2029-06-01"))
    git("commit", "-qam", "review dates", "--author=wikimem <wikimem@localhost>", cwd=places.wiki)
    # a run confirms the bun pin after its review date (the day is the compaction's)
    bun = places.wiki / LEAF
    bun.write_text(
        bun.read_text(encoding="utf-8").replace(
            "review-by=2030-01-01", "confirmed=2030-02-01 review-by=2030-01-01"
        )
    )
    git("commit", "-qam", "confirmed", "--author=wikimem <wikimem@localhost>", cwd=places.wiki)

    done = compact(places, settings, use_model=False, day="2030-03-01", approve=True)
    assert done.retired == ("build/ports#ports",)
    reasons = {f"{e.leaf}#{e.entry}": e.reason for e in done.plan.edits}
    assert reasons["build/ports#ports"].startswith("past its review date 2030-01-01")
    assert "Pin bun" in bun.read_text(encoding="utf-8")
