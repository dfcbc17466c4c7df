"""Sharing one wiki through a bare repository: linear history, nothing lost, pages regenerated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import HAND, ROOT, git, run_wikimem
from wikimem import config
from wikimem.errors import HistoryError
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.lifecycle.sync import sync
from wikimem.wiki import markdown
from wikimem.wiki.workspace import init

ROUNDS = 2  # runs per machine; each round starts a pass and a sync together


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git("init", "--quiet", "--bare", "-b", "main", str(bare), cwd=tmp_path)
    return bare


def make_workspace(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return folder


def remember(*notes: tuple[str, str]) -> dict:
    """A run record whose explicit candidates the offline rules turn into entries."""
    return {
        "run_id": "-".join(title for _, title in notes),
        "task": "share what was learned",
        "memory": [
            {
                "path": path,
                "title": title,
                "type": "semantic",
                "content": f"{title} is a fact worth keeping.",
            }
            for path, title in notes
        ],
    }


def learn(workspace: Path, *notes: tuple[str, str]) -> None:
    places = config.places(workspace, {})
    settings = config.load(places, {})
    enqueue(places, settings, remember(*notes))
    assert [o.outcome for r in drain(places, settings, wait=True) for o in r.outcomes] == [
        "changed"
    ]


def entries(root: Path, leaf: str) -> list[str]:
    text = (root / leaf / "MEMORY.md").read_text(encoding="utf-8")
    return [e.id for e in markdown.parse_page(text).entries]


def checkout(remote: Path, tmp_path: Path, name: str = "check") -> Path:
    target = tmp_path / name
    git("clone", "--quiet", str(remote), str(target), cwd=tmp_path)
    return target


def command(*args: str) -> tuple[list[str], dict[str, str]]:
    """A wikimem command line and environment for Popen, to start several at once."""
    return [sys.executable, "-m", "wikimem", *args], {**os.environ, "PYTHONPATH": str(ROOT)}


def sync_in(workspace: Path, *args: str) -> dict:
    done = run_wikimem("sync", "--json", *args, cwd=workspace)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_sync_needs_a_remote_and_says_how_to_add_one(tmp_path: Path, cli) -> None:
    workspace = make_workspace(tmp_path, "a")
    result = cli("-C", str(workspace), "sync")
    assert result.code == 1  # called rightly; the wiki just has no remote yet
    assert "wikimem sync --remote URL" in result.err and "remote add origin" in result.err


def test_workspace_mode_is_refused_clearly(tmp_path: Path, remote: Path, cli) -> None:
    workspace = make_workspace(tmp_path, "a")
    git("init", "--quiet", cwd=workspace)
    (workspace / ".clarvis").mkdir()
    (workspace / ".clarvis" / "config.toml").write_text('[wiki]\ncommit_into = "workspace"\n')
    result = cli("-C", str(workspace), "sync", "--remote", str(remote))
    assert result.code == 1 and "own repository" in result.err


def test_two_wikis_started_apart_converge_on_one_linear_history(
    tmp_path: Path, remote: Path
) -> None:
    a, b = make_workspace(tmp_path, "a"), make_workspace(tmp_path, "b")
    learn(a, ("build/bun", "Lockfile drift"))
    first = sync_in(a, "--remote", str(remote))
    assert first["pushed"] == 2 and not first["received"]
    # b's wiki was made on its own: its first commits have no history in common with a's.
    learn(b, ("build/bun", "Cache keys"), ("deploy", "Blue green"))
    second = sync_in(b, "--remote", str(remote))
    assert second["received"] and second["pushed"] >= 1
    assert "build/bun/MEMORY.md" in second["merged"]
    assert sync_in(a)["received"]
    wiki_a, wiki_b = a / ".clarvis" / "memory", b / ".clarvis" / "memory"
    assert git("rev-parse", "HEAD", cwd=wiki_a) == git("rev-parse", "HEAD", cwd=wiki_b)
    assert entries(wiki_a, "build/bun") == ["lockfile-drift", "cache-keys"]
    topic = (wiki_a / "build" / "TOPIC.md").read_text()
    profile = (wiki_a / "PROFILE.md").read_text()
    assert "Cache keys" in topic and "Lockfile drift" in topic  # regenerated, not merged text
    assert "deploy/TOPIC.md" in profile and "build/TOPIC.md" in profile
    assert "<<<<<<<" not in topic + profile
    assert git("log", "--merges", "--oneline", cwd=wiki_a) == ""
    assert git("status", "--porcelain", cwd=wiki_a) == ""
    assert sync_in(a) == {**sync_in(a), "pushed": 0, "received": False}


@pytest.mark.slow
def test_a_fleet_indexing_and_syncing_at_once_loses_nothing(tmp_path: Path, remote: Path) -> None:
    seed = make_workspace(tmp_path, "seed")
    run_wikimem("init", cwd=seed)
    sync_in(seed, "--remote", str(remote))
    machines = {}
    for name in ("a", "b"):
        workspace = make_workspace(tmp_path, name)
        git("clone", "--quiet", str(remote), str(workspace / ".clarvis" / "memory"), cwd=tmp_path)
        assert run_wikimem("init", cwd=workspace).returncode == 0
        machines[name] = workspace
    expected: dict[str, list[str]] = {"shared/leaf": []}
    plans = {}
    for name in machines:
        runs = []
        for n in range(ROUNDS):
            notes = [
                ("shared/leaf", f"{name} shared {n}"),
                (f"own-{name}/notes", f"{name} own {n}"),
            ]
            expected["shared/leaf"].append(markdown.slugify(notes[0][1]))
            expected.setdefault(f"own-{name}/notes", []).append(markdown.slugify(notes[1][1]))
            runs.append(remember(*notes))
        plans[name] = runs
    failures: list[str] = []

    def machine(name: str) -> None:
        workspace = machines[name]
        for n, run in enumerate(plans[name]):
            path = workspace / f"run-{n}.json"
            path.write_text(json.dumps(run))
            # A pass and a sync of the same workspace started together: the lock orders them.
            procs = [
                subprocess.Popen(
                    cmd, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
                )
                for cmd, env in (command("hook", "--wait", str(path)), command("sync"))
            ]
            for proc in procs:
                out, err = proc.communicate(timeout=120)
                if proc.returncode != 0 or b"wikimem hook:" in err:
                    failures.append(f"{name}: {proc.args[3:]}: {err.decode()}")
        final = run_wikimem("sync", cwd=workspace)
        if final.returncode != 0:
            failures.append(f"{name}: final sync: {final.stderr.decode()}")

    threads = [threading.Thread(target=machine, args=(name,)) for name in machines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for workspace in machines.values():  # the first to finish had not seen the other's last
        sync_in(workspace)
    check = checkout(remote, tmp_path)
    for leaf, wanted in expected.items():
        assert sorted(entries(check, leaf)) == sorted(wanted), leaf
    assert git("log", "--merges", "--oneline", cwd=check) == ""
    heads = {git("rev-parse", "HEAD", cwd=w / ".clarvis" / "memory") for w in machines.values()}
    assert heads == {git("rev-parse", "HEAD", cwd=check)}
    topic = (check / "shared" / "TOPIC.md").read_text()
    assert all(f"{name} shared {ROUNDS - 1}" in topic for name in machines)


def test_sync_in_process_fast_forwards_a_wiki_that_only_lags(tmp_path: Path, remote: Path) -> None:
    a, b = make_workspace(tmp_path, "a"), make_workspace(tmp_path, "b")
    learn(a, ("build/bun", "Lockfile drift"))
    sync_in(a, "--remote", str(remote))
    git("clone", "--quiet", str(remote), str(b / ".clarvis" / "memory"), cwd=tmp_path)
    init(config.places(b, {}), config.load(config.places(b, {}), {}))
    learn(a, ("build/bun", "Cache keys"))
    sync_in(a)
    places = config.places(b, {})
    done = sync(places, config.load(places, {}))
    assert done.received and done.pushed == 0
    assert entries(places.wiki, "build/bun") == ["lockfile-drift", "cache-keys"]


def test_a_push_that_loses_the_race_fetches_rebuilds_and_pushes_again(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikimem.wiki.history import WikiRepo

    a, b = make_workspace(tmp_path, "a"), make_workspace(tmp_path, "b")
    learn(a, ("shared/leaf", "Start"))
    sync_in(a, "--remote", str(remote))
    git("clone", "--quiet", str(remote), str(b / ".clarvis" / "memory"), cwd=tmp_path)
    learn(a, ("shared/leaf", "From a"))
    learn(b, ("shared/leaf", "From b"))
    real_push = WikiRepo.push
    raced: list[dict] = []

    def push(self: WikiRepo, name: str, sha: str, branch: str) -> bool:
        if not raced:  # b gets there between a's fetch and a's push
            raced.append(sync_in(b))
        return real_push(self, name, sha, branch)

    monkeypatch.setattr(WikiRepo, "push", push)
    places = config.places(a, {})
    done = sync(places, config.load(places, {}))
    assert raced and raced[0]["pushed"] == 1
    assert done.attempts == 2 and done.pushed == 1
    check = checkout(remote, tmp_path)
    assert entries(check, "shared/leaf") == ["start", "from-b", "from-a"]
    assert git("log", "--merges", "--oneline", cwd=check) == ""
    assert git("rev-parse", "HEAD", cwd=places.wiki) == git("rev-parse", "HEAD", cwd=check)


def test_after_pass_pushes_only_when_asked_and_only_warns_on_failure(
    tmp_path: Path, remote: Path
) -> None:
    from wikimem.lifecycle.sync import after_pass

    a = make_workspace(tmp_path, "a")
    learn(a, ("build/bun", "Lockfile drift"))
    places = config.places(a, {})
    settings = config.load(places, {})
    warnings: list[str] = []
    assert after_pass(places, settings, warnings.append) is None  # wiki.push is off
    git("remote", "add", "origin", str(remote), cwd=places.wiki)
    pushing = settings.override("wiki.push", True, "test")
    done = after_pass(places, pushing, warnings.append)
    assert done is not None and done.pushed == 2 and warnings == []
    assert entries(checkout(remote, tmp_path), "build/bun") == ["lockfile-drift"]
    elsewhere = pushing.override("wiki.remote", "nowhere", "test")
    assert after_pass(places, elsewhere, warnings.append) is None
    assert len(warnings) == 1 and "no remote 'nowhere'" in warnings[0]


def test_a_scratch_tree_left_by_a_killed_sync_is_cleaned_up(tmp_path: Path, remote: Path) -> None:
    a = make_workspace(tmp_path, "a")
    learn(a, ("build/bun", "Lockfile drift"))
    places = config.places(a, {})
    # What a sync killed while rebuilding leaves behind: a work tree on a scratch branch.
    git(
        "worktree",
        "add",
        "--quiet",
        "-b",
        "wikimem-sync-1-killed",
        str(tmp_path / "left"),
        cwd=places.wiki,
    )
    assert "wikimem-sync-" in git("branch", cwd=places.wiki)
    sync_in(a, "--remote", str(remote))
    assert "wikimem-sync-" not in git("branch", cwd=places.wiki)
    assert len(git("worktree", "list", cwd=places.wiki).splitlines()) == 1


def diverged(tmp_path: Path, remote: Path) -> tuple[Path, Path]:
    """Machines a and b share a wiki; each learned something the other lacks, both in
    build/bun, so a's sync rebuilds its commit on b's and the move changes that leaf."""
    a, b = make_workspace(tmp_path, "a"), make_workspace(tmp_path, "b")
    learn(a, ("build/bun", "Start"))
    sync_in(a, "--remote", str(remote))
    git("clone", "--quiet", str(remote), str(b / ".clarvis" / "memory"), cwd=tmp_path)
    learn(b, ("build/bun", "From b"), ("deploy/fly", "Regions"))
    sync_in(b)
    learn(a, ("build/bun", "From a"))
    return a, b


def save_during_push(
    monkeypatch: pytest.MonkeyPatch, page: Path, times: int = 1, fail: bool = False
) -> list[str]:
    """The person saves `page` each time sync pushes (up to `times`), after the rebuild and
    before the branch moves; `fail`: the push then breaks (the network went away)."""
    from wikimem.errors import HistoryError
    from wikimem.wiki.history import WikiRepo

    real_push = WikiRepo.push
    lines: list[str] = []

    def push(self: WikiRepo, name: str, sha: str, branch: str) -> bool:
        if len(lines) < times:
            lines.append(f"{HAND} ({len(lines) + 1})")
            page.write_text(page.read_text(encoding="utf-8") + f"\n{lines[-1]}\n")
        if fail:
            raise HistoryError("push: could not resolve host")
        return real_push(self, name, sha, branch)

    monkeypatch.setattr(WikiRepo, "push", push)
    return lines


@pytest.mark.parametrize("page", ["build/bun/MEMORY.md", "PROFILE.md"])
def test_a_save_during_the_push_is_committed_as_theirs_and_shared(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    a, _ = diverged(tmp_path, remote)
    places = config.places(a, {})
    saved = places.wiki / page
    lines = save_during_push(monkeypatch, saved)
    # the move changes the saved page: `reset --keep` would refuse, after the push
    done = sync(places, config.load(places, {}))
    assert done.attempts == 2 and done.pushed == 2  # a's commit, then the save on top
    assert lines[0] in saved.read_text(encoding="utf-8")
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    check = checkout(remote, tmp_path)
    assert git("rev-parse", "HEAD", cwd=places.wiki) == git("rev-parse", "HEAD", cwd=check)
    assert lines[0] in (check / page).read_text(encoding="utf-8")
    assert git("log", "-1", "--format=%an|%s", cwd=check).strip() == (
        "Ada Person|Edit the wiki by hand"
    )
    assert entries(check, "build/bun") == ["start", "from-b", "from-a"]
    assert (
        "Regions"
        in (places.wiki / "PROFILE.md").read_text()
        + (places.wiki / "deploy" / "TOPIC.md").read_text()
    )


def test_a_save_the_move_would_clobber_is_committed_as_theirs_and_rebuilt(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikimem.wiki.history import WikiRepo

    a, _ = diverged(tmp_path, remote)
    places = config.places(a, {})
    saved = places.wiki / "build" / "bun" / "MEMORY.md"
    real_move = WikiRepo.move_to
    moves: list[bool] = []

    def move_to(self: WikiRepo, sha: str) -> bool:
        if not moves:  # saved after sync's last look, right before the branch moves
            saved.write_text(saved.read_text(encoding="utf-8") + f"\n{HAND}\n")
        moves.append(real_move(self, sha))
        return moves[-1]

    monkeypatch.setattr(WikiRepo, "move_to", move_to)
    done = sync(places, config.load(places, {}))
    assert moves == [False, True]  # `reset --keep` refused to clobber the save, nothing moved
    assert done.attempts == 2 and done.pushed == 2
    assert HAND in saved.read_text(encoding="utf-8")
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    check = checkout(remote, tmp_path)
    assert git("rev-parse", "HEAD", cwd=places.wiki) == git("rev-parse", "HEAD", cwd=check)
    assert HAND in (check / "build" / "bun" / "MEMORY.md").read_text(encoding="utf-8")
    assert entries(check, "build/bun") == ["start", "from-b", "from-a"]


def test_a_failed_push_leaves_the_wiki_and_a_save_made_meanwhile_as_they_were(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    a, _ = diverged(tmp_path, remote)
    places = config.places(a, {})
    head = git("rev-parse", "HEAD", cwd=places.wiki)
    saved = places.wiki / "build" / "bun" / "MEMORY.md"
    lines = save_during_push(monkeypatch, saved, fail=True)
    done = cli("-C", str(a), "sync")
    assert done.code == 1 and "could not resolve host" in done.err
    assert git("rev-parse", "HEAD", cwd=places.wiki) == head
    assert git("status", "--porcelain", cwd=places.wiki).split() == ["M", "build/bun/MEMORY.md"]
    assert lines[0] in saved.read_text(encoding="utf-8")
    assert not (places.wiki / "deploy").exists()  # nothing of the remote's came in
    assert "wikimem-sync-" not in git("branch", cwd=places.wiki)


def test_saves_in_every_round_say_the_branch_stayed_behind_and_the_next_sync_settles(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = diverged(tmp_path, remote)
    places = config.places(a, {})
    saved = places.wiki / "build" / "bun" / "MEMORY.md"
    lines = save_during_push(monkeypatch, saved, times=3)
    with pytest.raises(HistoryError, match="run `wikimem sync` again") as failed:
        sync(places, config.load(places, {}), attempts=3)
    assert "pushed 3 commit(s)" in str(failed.value) and "committed as yours" in str(failed.value)
    text = saved.read_text(encoding="utf-8")
    assert all(line in text for line in lines)  # every save on disk, committed as theirs
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    monkeypatch.undo()
    done = sync(places, config.load(places, {}))
    check = checkout(remote, tmp_path)
    assert git("rev-parse", "HEAD", cwd=places.wiki) == git("rev-parse", "HEAD", cwd=check)
    shared = (check / "build" / "bun" / "MEMORY.md").read_text(encoding="utf-8")
    assert [shared.count(line) for line in lines] == [1, 1, 1], shared
    assert entries(check, "build/bun") == ["start", "from-b", "from-a"]
    assert done.pushed == 1  # the last save; what the failed sync pushed is not rebuilt again
    # so no rebuilt commit of wikimem's took the person's lines out and put them back
    assert f"-{HAND}" not in git("log", "-p", "--format=", cwd=check)
    assert "wikimem/sync" not in git("for-each-ref", cwd=places.wiki)


def test_a_sync_that_pushed_and_then_failed_says_the_branch_stayed_behind(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    from wikimem.wiki.history import WikiRepo

    a, _ = diverged(tmp_path, remote)
    places = config.places(a, {})
    head = git("rev-parse", "HEAD", cwd=places.wiki)

    def move_to(self: WikiRepo, sha: str) -> bool:
        raise HistoryError("reset: Unable to create 'index.lock': File exists.")

    monkeypatch.setattr(WikiRepo, "move_to", move_to)
    done = cli("-C", str(a), "sync")
    assert done.code == 1 and "index.lock" in done.err
    assert "pushed 1 commit(s) to origin/main, but the wiki's branch did not follow" in done.err
    assert git("rev-parse", "HEAD", cwd=places.wiki) == head
    assert git("status", "--porcelain", cwd=places.wiki) == ""
    monkeypatch.undo()
    again = sync(places, config.load(places, {}))
    assert again.pushed == 0 and again.received  # the push is not made twice
    check = checkout(remote, tmp_path)
    assert git("rev-parse", "HEAD", cwd=places.wiki) == git("rev-parse", "HEAD", cwd=check)
