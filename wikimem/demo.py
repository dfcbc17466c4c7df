"""The demo: the example runs that ship with wikimem, indexed offline in a fresh workspace.

It needs no network and no key: settings are resolved from an empty environment, so the offline
rules extractor runs whatever the caller's shell says.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import init, open_repo

RUNS = Path(__file__).parent / "data" / "runs"


def example_runs() -> list[Path]:
    return sorted(RUNS.glob("*.json"))


def run_demo(keep: str | None = None) -> Iterator[str]:
    folder = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="wikimem-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    places = config.Places(workspace=folder, global_dir=folder / ".clarvis" / "global")
    # One pass per run, so the log shows which runs taught something and which changed nothing.
    settings = config.load(places, env={}).override("queue.batch", 1, "demo")
    init(places, settings)
    yield f"demo workspace: {folder}"
    for path in example_runs():
        done = enqueue(places, settings, json.loads(path.read_text(encoding="utf-8")), path.name)
        secrets = f", {len(done.redactions)} secret kind(s) removed" if done.redactions else ""
        yield f"queued {path.name} as job {done.job_id}{secrets}"
    for report in drain(places, settings):
        for outcome in report.outcomes:
            commit = f" (commit {outcome.commit[:7]})" if outcome.commit else ""
            yield f"  {outcome.run_id}: {outcome.outcome}{commit}"
    wiki = Wiki(places.wiki)
    yield ""
    yield "wiki:"
    yield "  PROFILE.md"
    for topic in wiki.topics():
        yield f"  {topic}/TOPIC.md"
        for leaf in wiki.leaves(topic):
            yield f"  {leaf}/MEMORY.md"
    yield ""
    yield "git log:"
    for entry in open_repo(places, settings).log(limit=20):
        runs = ", ".join(entry.trailers.get("Wikimem-Run", ()))
        yield f"  {entry.short}  {entry.subject}{'  [' + runs + ']' if runs else ''}"
    yield ""
    yield (wiki.root / "PROFILE.md").read_text(encoding="utf-8")
    yield f"Explore it: wikimem -C {folder} show    (or: wikimem -C {folder} show TOPIC/LEAF)"
