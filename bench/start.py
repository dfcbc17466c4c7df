"""What a SessionStart hook costs: `wikimem start` as a runner runs it, on a generated wiki.

    python -m bench.start                    # 10,000 leaves, 15 rounds
    python -m bench.start --leaves 2000 --rounds 5

Each round runs `python -c pass`, then `wikimem start --runner claude` with a startup payload
on stdin (hints: none, so the profile and the strongest entries), then the same with `--query`
(profile and up to 20 entries, each checked against the workspace). Wall time on a shared
machine waits for a CPU; the children's CPU time (user + system) is what the command costs, so
both are printed.
The workspace is a private copy of the cached wiki, with its search index built first, as every
pass leaves it, and its standing refreshed, as the first start's detached refresh leaves it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import generate
from wikimem import config
from wikimem.recall.search import SearchIndex

try:
    from wikimem.recall import standing
except ImportError:  # a checkout from before the start read the standing
    standing = None  # type: ignore[assignment]

PAYLOAD = json.dumps({"hook_event_name": "SessionStart", "source": "startup"}).encode()


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = os.times().elapsed
    subprocess.run(argv, cwd=cwd, env=env, input=PAYLOAD, stdout=subprocess.DEVNULL, check=True)
    wall = (os.times().elapsed - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.start", description=__doc__)
    parser.add_argument("--leaves", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    entry = str(Path(sys.executable).parent / "wikimem")
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        made = generate.copy(generate.cached(args.leaves), Path(tmp) / "ws")
        env = {**os.environ, "HOME": tmp, "WIKIMEM_HOME": str(Path(tmp) / "global")}
        places = config.places(made.workspace, env)
        with SearchIndex(places.wiki, places.state / "search.sqlite") as index:
            index.refresh()
        if standing is not None:  # as the first start's detached refresh leaves it
            standing.refresh(places, config.load(places, env))
        runs = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "wikimem start": [entry, "start", "--runner", "claude"],
            "wikimem start --query": [
                entry,
                "start",
                "--runner",
                "claude",
                "--query",
                "redis cache",
            ],
        }
        got: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, argv in runs.items():
                got[name].append(timed(argv, made.workspace, env))
        shutil.rmtree(places.state, ignore_errors=True)
    print(f"{args.leaves} leaves, {args.rounds} rounds (ms: wall min / wall median / CPU median)")
    for name, samples in got.items():
        walls, cpus = [w for w, _ in samples], [c for _, c in samples]
        print(
            f"  {name:24} {min(walls):6.0f} {statistics.median(walls):6.0f} "
            f"{statistics.median(cpus):6.0f}"
        )


if __name__ == "__main__":
    main()
