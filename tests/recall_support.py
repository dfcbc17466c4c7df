"""Wikis for the recall tests, built by real passes (offline rules, explicit candidates)."""

from __future__ import annotations

from pathlib import Path

from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.wiki.workspace import init

Memory = tuple[str, str, str]  # path, title, content


def setup(workspace: Path) -> tuple[config.Places, config.Settings]:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    return places, settings


def learn(
    places: config.Places, settings: config.Settings, run_id: str, *memories: Memory
) -> str | None:
    """Run one pass over a run that asks to remember `memories`; return its commit."""
    run = {
        "run_id": run_id,
        "task": f"Task of {run_id}",
        "status": "succeeded",
        "memory": [
            {"path": p, "title": t, "content": c, "type": "procedural"} for p, t, c in memories
        ],
    }
    enqueue(places, settings, run)
    reports = drain(places, settings)
    assert [o.outcome for r in reports for o in r.outcomes] == ["changed"], reports
    return reports[-1].commit


BUN = (
    "build/bun",
    "Lockfile drift on CI",
    "`bun install --frozen-lockfile` fails when package.json changed; run `bun install`.",
)
CACHE = ("build/bun", "Cache key", "The lockfile hash is the CI cache key for bun.")
PYTEST = (
    "testing/pytest",
    "Parallel sqlite locks",
    "pytest-xdist workers share one sqlite file; give each worker its own database.",
)
