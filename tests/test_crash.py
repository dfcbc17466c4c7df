"""Crash safety: a pass SIGKILLed at every checkpoint, then a clean pass, leaves the wiki whole.

`WIKIMEM_CRASH_AFTER=N` makes a `wikimem index` process kill itself at the Nth checkpoint it
passes (before and after every atomic write, before every queue move, after the commit). For
N = 1, 2, ... until a run completes: right after the kill the wiki's HEAD is a state the
uncrashed run also passes through; after one clean `wikimem index` the wiki is exactly the
uncrashed result, `git fsck` is clean, nothing is uncommitted, history is linear and every job
landed exactly once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, git, run_wikimem
from wikimem import config
from wikimem.cli import run
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import STATES, Queue
from wikimem.wiki.workspace import init

RUNS = 3
WIKI = Path(".clarvis/memory")


def candidate_run(i: int) -> dict:
    return {
        "run_id": f"run-{i}",
        "task": f"Task {i}",
        "agent": "claude-code",
        "memory": [
            {
                "path": f"build/leaf-{i % 2}",
                "title": f"Fact {i}",
                "type": "semantic",
                "content": f"Body of fact {i}, learnt in run {i}.",
            }
        ],
    }


def make_template(folder: Path) -> Path:
    """A workspace with three queued jobs (two passes of two and one) and a person's
    uncommitted edit, which the first pass commits as theirs before its own commit."""
    folder.mkdir()
    places = config.places(folder, {})
    settings = config.load(places, {})
    init(places, settings)
    places.workspace_config.write_text("[queue]\nbatch = 2\n")
    settings = config.load(places, {})
    for i in range(RUNS):
        enqueue(places, settings, candidate_run(i))
    notes = places.wiki / "notes" / "people" / "MEMORY.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(
        "---\ntitle: People\nsummary: Who is who\ntype: identity\n---\n\n"
        "# People\n\n## Ada\n\nOwns the build.\n"
    )
    return folder


@dataclass(frozen=True)
class Reference:
    trees: tuple[str, ...]  # every tree HEAD points at during an uncrashed run, oldest first
    final: str


def reference(template: Path, where: Path) -> Reference:
    shutil.copytree(template, where, symlinks=True)
    proc = run_wikimem("index", "-q", cwd=where)
    assert proc.returncode == 0, proc.stderr
    trees = git("log", "--format=%T", cwd=where / WIKI).split()
    return Reference(tuple(reversed(trees)), trees[0])


def head_tree(ws: Path) -> str:
    return git("rev-parse", "HEAD^{tree}", cwd=ws / WIKI).strip()


def check_whole(ws: Path, ref: Reference) -> None:
    wiki = ws / WIKI
    assert head_tree(ws) == ref.final
    assert git("status", "--porcelain", "--untracked-files=all", cwd=wiki) == ""
    fsck = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=wiki, capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert git("rev-list", "--min-parents=2", "HEAD", cwd=wiki) == ""
    counts = Queue(ws / ".clarvis/state/queue").counts()
    assert counts == {s: (RUNS if s == "done" else 0) for s in STATES}
    assert not (ws / ".clarvis/state/journal.json").exists()
    trailers = git("log", "--format=%(trailers:key=Wikimem-Run,valueonly)", cwd=wiki).split()
    assert sorted(trailers) == [f"run-{i}" for i in range(RUNS)]  # each run in one commit
    text = "".join(p.read_text() for p in wiki.rglob("MEMORY.md"))
    for i in range(RUNS):
        assert text.count(f"## Fact {i}\n") == 1


# A process with wikimem's pass already imported that forks, for each trial, the process that
# runs `wikimem index` (the CLI's `main`, as `python -m wikimem` calls it) and kills itself:
# the kill is real, only the interpreter's start-up (a third of a trial) is shared.
FORKER = """
import os, sys, traceback
from wikimem import fsio
from wikimem.cli import main
import wikimem.cli.pipeline  # the modules of a pass, loaded once
for line in sys.stdin:
    n, where, err = line.rstrip("\\n").split("\\t")
    pid = os.fork()
    if pid == 0:
        fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 2)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.chdir(where)
        os.environ["WIKIMEM_CRASH_AFTER"] = n
        fsio._CRASH_AFTER = int(n)
        code = 1
        try:
            main(["index", "-q"])
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        except BaseException:
            traceback.print_exc()
        sys.stderr.flush()
        os._exit(code)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


@dataclass
class Killed:
    returncode: int
    stderr: bytes


class Forker:
    def __init__(self, tmp: Path) -> None:
        # TMPDIR: what a pass killed mid-commit leaves in its temporary folder goes with tmp_path
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
        env.pop("WIKIMEM_CRASH_AFTER", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", FORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, text=True,
        )  # fmt: skip

    def index(self, where: Path, n: int) -> Killed:
        """`wikimem index -q` in `where`, killed at checkpoint `n`."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        err = where.parent / f"{where.name}.stderr"
        self.proc.stdin.write(f"{n}\t{where}\t{err}\n")
        self.proc.stdin.flush()
        code = self.proc.stdout.readline()
        assert code, "the forking process died"
        return Killed(int(code), err.read_bytes())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0


@contextmanager
def forkers(count: int, tmp: Path) -> Iterator[list[Forker]]:
    tmp.mkdir()
    started = [Forker(tmp) for _ in range(count)]
    try:
        yield started
    finally:
        for forker in started:
            forker.close()


def trial(template: Path, where: Path, n: int, ref: Reference, forker: Forker) -> bool:
    """Kill a pass at checkpoint `n` and recover; False when the run finished before `n`."""
    shutil.copytree(template, where, symlinks=True)
    killed = forker.index(where, n)
    if killed.returncode == 0:
        check_whole(where, ref)
        return False
    assert killed.returncode == -9, killed.stderr
    assert f"crash injected at checkpoint {n} (".encode() in killed.stderr
    if (where / WIKI / ".git").exists():
        assert head_tree(where) in ref.trees  # before or after a pass, never in between
    # The clean pass runs in-process (the CLI's own entry point): same code, no second start-up.
    assert run(["index", "-q", "-C", str(where)]) == 0
    check_whole(where, ref)
    return True


@pytest.mark.slow
def test_pass_killed_at_every_checkpoint_recovers_exactly(tmp_path: Path) -> None:
    template = make_template(tmp_path / "template")
    ref = reference(template, tmp_path / "reference")
    assert len(ref.trees) == 4  # start, the person's edit, two passes
    killed = 0
    n = 1
    with ThreadPoolExecutor(max_workers=2) as pool, forkers(2, tmp_path / "tmp") as forker:
        while True:
            batch = (n, n + 1)  # one each: a forker runs one trial at a time
            crashed = list(
                pool.map(
                    lambda k: trial(template, tmp_path / f"kill-{k}", k, ref, forker[k % 2]),
                    batch,
                )
            )
            killed += sum(crashed)
            if not all(crashed):
                break
            n += 2
    print(f"\ncrash safety: {killed} kill points tried, every one recovered exactly")
    assert killed >= 30  # both passes, their writes, queue moves and commits were covered


def test_index_left_behind_head_is_repaired_by_the_next_pass(tmp_path: Path) -> None:
    template = make_template(tmp_path / "template")
    ws = tmp_path / "ws"
    shutil.copytree(template, ws, symlinks=True)
    assert run(["index", "-q", "-C", str(ws)]) == 0
    # exactly what such a kill leaves: HEAD and the files new, the index at the parent commit
    git("read-tree", "HEAD~1", cwd=ws / WIKI)
    places = config.places(ws, {})
    enqueue(places, config.load(places, {}), candidate_run(RUNS))
    assert run(["index", "-q", "-C", str(ws)]) == 0
    assert git("status", "--porcelain", cwd=ws / WIKI) == ""
