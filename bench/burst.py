"""A burst of hooks: N `wikimem hook` processes at once on one temp workspace.

Run `python -m bench.burst [--hooks 50] [--linger 0|300] [--source DIR]`. Prints the hooks' wall
times (p50, p90, p99, max), their CPU time (user + system, from wait4: the part no other load
on the machine changes), the load average, how many `wikimem index` processes ran (distinct and
at most at once, sampled from /proc every 10 ms) and whether every run landed exactly once.
`--source` runs another checkout of the package (to compare with an older commit). No model is
configured: passes use the offline rules, so the figures are of intake and process start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sample_passes(workspace: str, stop: threading.Event, seen: set[int], peak: list[int]) -> None:
    while not stop.is_set():
        alive = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"wikimem" in cmd and b"index" in cmd and workspace.encode() in cmd:
                alive += 1
                seen.add(int(pid))
        peak[0] = max(peak[0], alive)
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hooks", type=int, default=50)
    parser.add_argument("--linger", type=int, default=0)
    parser.add_argument("--source", default=str(ROOT))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        workspace = Path(tmp) / "ws"
        home.mkdir()
        workspace.mkdir()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "WIKIMEM_"))},
            "HOME": str(home),
            "WIKIMEM_HOME": str(home / ".clarvis"),
            "PYTHONPATH": args.source,
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        }
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
        subprocess.run(["git", "init", "-q"], cwd=workspace, check=True, env=env)
        wm = [sys.executable, "-m", "wikimem"]
        subprocess.run([*wm, "init"], cwd=workspace, check=True, env=env, capture_output=True)
        (workspace / ".clarvis" / "config.toml").write_text(f"[hook]\nlinger = {args.linger}\n")
        stop, seen, peak = threading.Event(), set(), [0]
        sampler = threading.Thread(
            target=sample_passes, args=(str(workspace), stop, seen, peak), daemon=True
        )
        sampler.start()
        times: list[float] = []
        cpu: list[float] = []
        lock = threading.Lock()
        load = os.getloadavg()[0]

        def one(i: int) -> None:
            run = {
                "run_id": f"burst-{i}",
                "task": f"Fix build {i}",
                "status": "succeeded",
                "result": f"Pinned the tool to 1.{i}.0 because the lockfile drifted.",
                "evidence": [
                    {"kind": "command", "command": "make", "exit_code": 1, "output": "x" * 4000},
                    {"kind": "command", "command": "make", "exit_code": 0, "output": "ok"},
                ],
            }
            started = time.perf_counter()
            child = subprocess.Popen(
                [*wm, "hook", "-q"],
                cwd=workspace,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
            assert child.stdin is not None
            child.stdin.write(json.dumps(run).encode())
            child.stdin.close()
            _, _, usage = os.wait4(child.pid, 0)
            child.returncode = 0  # reaped here, so Popen must not wait for it again
            with lock:
                times.append(time.perf_counter() - started)
                cpu.append(usage.ru_utime + usage.ru_stime)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(args.hooks)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        state = workspace / ".clarvis" / "state" / "queue"
        deadline = time.time() + 300
        while time.time() < deadline and (
            any((state / "pending").glob("*.json")) or any((state / "active").glob("*.json"))
        ):
            time.sleep(0.2)
        time.sleep(1.0)
        stop.set()
        sampler.join()
        subprocess.run([*wm, "listen", "--stop"], cwd=workspace, env=env, capture_output=True)
        done = len(list((state / "done").glob("*.json")))
        times.sort()
        q = statistics.quantiles(times, n=100)
        print(
            f"{args.hooks} hooks, linger {args.linger}: wall p50 {q[49]:.2f} s, p90 {q[89]:.2f} s, "
            f"p99 {q[98]:.2f} s, max {times[-1]:.2f} s; CPU per hook p50 "
            f"{statistics.median(cpu) * 1000:.0f} ms, all hooks {sum(cpu):.1f} s; load average "
            f"{load:.1f}; index processes: {len(seen)} (at most {peak[0]} at once); "
            f"jobs done {done}/{args.hooks}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
