"""What a person waits for before a command does anything: `wikimem --version` and
`wikimem show` against `python -c "import click"`, the floor any click program pays.

    python -m bench.startup               # 15 rounds
    python -m bench.startup --rounds 5

Each round runs the three commands as separate processes in a workspace holding a small wiki;
the children's CPU time (user + system) is what each costs, and wall time is printed beside
it. The target is at most 1.5x the floor for both commands.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.5


def _cost(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1000, wall * 1000


def measure(rounds: int) -> dict[str, dict[str, float]]:
    folder = Path(tempfile.mkdtemp(prefix="wikimem-startup-"))
    (folder / ".clarvis").mkdir()
    env = {**os.environ, "WIKIMEM_HOME": str(folder / "home"), "NO_COLOR": "1"}
    wikimem = [sys.executable, "-m", "wikimem"]
    subprocess.run([*wikimem, "init"], cwd=folder, env=env, check=True, capture_output=True)
    commands = {
        "import click": [sys.executable, "-c", "import click"],
        "wikimem --version": [*wikimem, "--version"],
        "wikimem show": [*wikimem, "show"],
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(rounds + 1):  # the first round warms the file cache and is dropped
        for name, argv in commands.items():
            samples[name].append(_cost(argv, folder, env))
    out = {}
    for name, rows in samples.items():
        cpu = [c for c, _ in rows[1:]]
        wall = [w for _, w in rows[1:]]
        out[name] = {"cpu_ms": statistics.median(cpu), "wall_ms": statistics.median(wall)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    figures = measure(parser.parse_args().rounds)
    floor = figures["import click"]["cpu_ms"]
    print(f"{'command':<20} {'cpu ms (median)':>16} {'wall ms':>8} {'x floor':>8}")
    for name, row in figures.items():
        ratio = row["cpu_ms"] / floor
        mark = "" if name == "import click" else ("  ok" if ratio <= TARGET else "  over target")
        print(f"{name:<20} {row['cpu_ms']:>16.1f} {row['wall_ms']:>8.1f} {ratio:>8.2f}{mark}")


if __name__ == "__main__":
    main()
