"""Every command's change keeps a page a person saves while it runs, whether it succeeds or fails.

The person saves (an editor's atomic save) the first time the change recompiles, after it wrote
its own pages and before it commits. On success the save is on disk and in no commit of
wikimem's (left for the person, or committed on its own as theirs); on failure the history and
every other file are as before the command, and the save is still there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import HAND, Result, git, save_during_compile
from tests.openai_server import Reply
from tests.recall_support import BUN, CACHE, PYTEST, learn, setup
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue
from wikimem.wiki.history.person_edits import PERSON_EDIT_MESSAGE

UNTOUCHED = "testing/pytest/MEMORY.md"  # a page none of the changes below writes
PROFILE = "PROFILE.md"


@dataclass
class Scene:
    """A workspace whose wiki learned BUN, CACHE and PYTEST, where a command is set up."""

    places: config.Places
    settings: config.Settings
    cli: Callable[..., Result]
    tmp_path: Path
    request: pytest.FixtureRequest


def forget(w: Scene) -> list[str]:
    return ["forget", "build/bun#cache-key"]


def restore(w: Scene) -> list[str]:
    assert w.cli("forget", "build/bun#cache-key").code == 0
    return ["restore", "build/bun#cache-key"]


def purge(w: Scene) -> list[str]:
    assert w.cli("forget", "build/bun#cache-key").code == 0
    return ["purge", "--yes"]


def undo(w: Scene) -> list[str]:
    sha = learn(w.places, w.settings, "run-2", ("deploy/cloud-run", "Port", "Listen on $PORT."))
    assert sha
    return ["undo", sha[:7]]


def import_(w: Scene) -> list[str]:
    lines = [json.loads(x) for x in w.cli("export").out.splitlines()]
    cache = next(x for x in lines if x["entry"] == "cache-key")
    cache["body"] = "The cache key is per OS and per lockfile hash."
    file = w.tmp_path / "in.jsonl"
    file.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return ["import", str(file)]


def approve(w: Scene) -> list[str]:
    """A plan held for review (every removal is, with review.max_remove_share = 0)."""
    server = w.request.getfixturevalue("openai_server")
    env = {
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }
    settings = config.load(w.places, env).override("review.max_remove_share", 0.0, "test")
    server.default = Reply.plan(
        {
            "summary": "Drop the stale cache key",
            "edits": [
                {
                    "action": "remove",
                    "leaf": "build/bun",
                    "entry": "cache-key",
                    "reason": "the cache key moved to the CI config",
                }
            ],
        }
    )
    run = {
        "run_id": "run-held",
        "task": "Move the bun cache key into the CI config",
        "status": "succeeded",
        "result": "The cache key now lives in .github/workflows/ci.yml; the wiki entry is stale. "
        * 4,
    }
    job = enqueue(w.places, settings, run)
    assert [o.outcome for r in drain(w.places, settings) for o in r.outcomes] == ["held"]
    assert Queue(w.places.queue).state_of(job.job_id) == "review"
    return ["queue", "approve", job.job_id[:8]]


def sync(w: Scene) -> list[str]:
    """Another machine pushed while this one learned: `sync` replays our commit on theirs."""
    remote = w.tmp_path / "remote.git"
    git("init", "--quiet", "--bare", "-b", "main", str(remote), cwd=w.tmp_path)
    assert w.cli("sync", "--remote", str(remote)).code == 0
    other = w.tmp_path / "other"
    git("clone", "--quiet", str(remote), str(other / ".clarvis" / "memory"), cwd=w.tmp_path)
    places, settings = setup(other)
    learn(places, settings, "run-b", ("deploy/fly", "Regions", "Deploy to two regions."))
    assert w.cli("-C", str(other), "sync").code == 0
    learn(w.places, w.settings, "run-2", ("build/bun", "Workspaces", "Use bun workspaces."))
    return ["sync"]


COMMANDS = [forget, restore, purge, undo, import_, approve, sync]


@pytest.mark.parametrize("fail", [False, True], ids=["success", "failure"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.__name__.strip("_"))
def test_a_save_during_the_change_survives_success_and_failure(
    workspace: Path,
    cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    command: Callable[[Scene], list[str]],
    fail: bool,
) -> None:
    places, settings = setup(workspace)
    learn(places, settings, "run-1", BUN, CACHE, PYTEST)
    args = command(Scene(places, settings, cli, tmp_path, request))
    # the page the change never writes on success; on failure, PROFILE.md, which it was about
    # to write when it broke
    relpath = PROFILE if fail else UNTOUCHED
    saved = places.wiki / relpath
    before = git("rev-parse", "HEAD", cwd=places.wiki).strip()
    save_during_compile(monkeypatch, saved, fail)

    done = cli(*args)

    assert HAND in saved.read_text(encoding="utf-8")  # on disk, whatever happened
    status = git("status", "--porcelain", cwd=places.wiki).split()
    if fail:
        assert done.code == 1, done.err
        # nothing of wikimem's change remains: the history and every file but the save as before
        assert git("rev-parse", "HEAD", cwd=places.wiki).strip() == before
        assert status == ["M", relpath]
        assert HAND not in git("show", f"HEAD:{relpath}", cwd=places.wiki)
        return
    assert done.code == 0, done.err
    assert git("rev-list", f"{before}..HEAD", cwd=places.wiki).split()  # the change committed
    # no commit of wikimem's holds the save: it is left for the person, or committed on its
    # own as theirs (sync, before it moves the branch)
    carriers = git("log", "--format=%H %s", "-S", HAND, f"{before}..HEAD", cwd=places.wiki)
    for line in carriers.splitlines():
        sha, subject = line.split(" ", 1)
        assert subject == PERSON_EDIT_MESSAGE
        assert git("show", "--name-only", "--format=", sha, cwd=places.wiki).split() == [relpath]
    assert status == ([] if carriers else ["M", relpath])
