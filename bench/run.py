"""Run the benchmark suite and report every figure next to its target.

    /work/venv/bin/python -m bench.run                  # from the repository root, < 10 min
    python -m bench.run --sizes 20,200 --repeats 3      # a quicker look
    python -m bench.run --profile                       # also profile the 10,000-leaf pass

The model is the loopback server of `tests/openai_server.py`, answering at once, so every
figure is wikimem's own cost. Targets are checked as ratios measured in the same run (the
machine may be shared and noisy), and absolute figures are reported for the record. Results go
to `bench/results/<stamp>.json` and `.md` (ignored by git); copy the table into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.openai_server import serve

from . import baselines, generate, measure

RESULTS = Path(__file__).resolve().parent / "results"


def isolate(home: Path) -> None:
    """Keep the person's HOME, git identity and model settings out of every measurement."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Bench Person\n\temail = bench@example."
        "test\n[init]\n\tdefaultBranch = main\n",
        encoding="utf-8",
    )
    os.environ.update(
        {
            "HOME": str(home),
            "WIKIMEM_HOME": str(home / ".clarvis"),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )
    for name in (
        "WIKIMEM_MODEL",
        "WIKIMEM_WORKSPACE",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "WIKIMEM_FALLBACK_MODELS",
        "WIKIMEM_MEMORY",
        "GIT_DIR",
        "GIT_WORK_TREE",
    ):
        os.environ.pop(name, None)


def machine() -> dict[str, Any]:
    def first_line(args: list[str]) -> str:
        try:
            return subprocess.run(args, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"

    memory = first_line(["free", "-h"]).splitlines()
    return {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "memory": memory[1].split()[1] if len(memory) > 1 else "?",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git": first_line(["git", "--version"]),
        "command": "python -m bench.run " + " ".join(sys.argv[1:]),
    }


def step(label: str, action: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    print(f"  {label} ...", end="", flush=True, file=sys.stderr)
    value = action()
    print(f" {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return value


def measure_size(
    leaves: int, cache: Path, work: Path, server: Any, home: Path, args: argparse.Namespace
) -> dict[str, Any]:
    print(f"{leaves} leaves", file=sys.stderr)
    made = step("generate (cached)", lambda: generate.cached(leaves, cache=cache))
    copy = step("copy", lambda: generate.copy(made, work / f"ws-{leaves}"))
    out: dict[str, Any] = {
        "leaves": leaves,
        "topics": made.topics,
        "entries": made.entries,
        "mbytes": round(made.bytes / 1e6, 2),
        "median_topic": made.median_topic,
    }
    out["pass"] = step("passes", lambda: measure.passes(copy, server, args.repeats))
    out["floor"] = step("floor", lambda: baselines.floor(copy, args.repeats))
    out["largest_topic_overhead"] = step(
        "largest topic", lambda: measure.largest_topic_pass(copy, server, args.repeats)
    )
    out["naive"] = step("naive", lambda: baselines.naive(copy, server))
    out["reads"] = step("reads", lambda: measure.reads(copy, max(args.repeats, 5)))
    out["show_process"] = step(
        "show process", lambda: measure.show_process(copy, home, args.repeats)
    )
    out["index_process"] = step("index process", lambda: measure.index_process(copy, server, home))
    out["memory"] = step("peak memory", lambda: measure.peak_memory(copy, server, home))
    out["hook"] = step("hook", lambda: measure.hook(copy, server, home, args.repeats))
    if args.profile and leaves == max(args.sizes):
        step("profile", lambda: profile(copy, server, args.out))
    shutil.rmtree(copy.workspace, ignore_errors=True)
    return out


def profile(made: generate.Generated, server: Any, out: Path) -> None:
    """pyinstrument's view of one one-entry pass on this wiki, as text and HTML."""
    from pyinstrument import Profiler

    places, settings = measure.open_workspace(made, measure.model_env(server))
    profiler = Profiler(interval=0.0005)
    with profiler:
        measure.one_pass(places, settings, server, 9500, made.sample_leaf)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"profile-{made.leaves}.txt").write_text(
        profiler.output_text(show_all=False), encoding="utf-8"
    )
    (out / f"profile-{made.leaves}.html").write_text(profiler.output_html(), encoding="utf-8")


def measure_drain(leaves: int, cache: Path, work: Path, server: Any, jobs: int) -> dict[str, Any]:
    print(f"queue drain of {jobs} jobs on {leaves} leaves", file=sys.stderr)
    made = generate.cached(leaves, cache=cache)
    out = {}
    for batch in (1, 8):
        copy = generate.copy(made, work / f"drain-{batch}")
        out[f"batch_{batch}"] = step(
            f"batch {batch}", lambda c=copy, b=batch: measure.queue_drain(c, server, jobs, b)
        )
        shutil.rmtree(copy.workspace, ignore_errors=True)
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def report(results: dict[str, Any]) -> str:
    """The Markdown written to BENCHMARKS.md: machine, command, per-size table, targets."""
    info, sizes = results["machine"], results["sizes"]
    lines = [
        f"- date: {info['date']}",
        f"- machine: {info['cpus']} CPUs, {info['memory']} RAM, {info['platform']}",
        f"- python {info['python']}, {info['git']}",
        f"- command: `{info['command']}`",
        "",
        "Passes (one-entry change, loopback model answering at once; medians):",
        "",
        "| leaves | topics | MB | pass | of which model seam | cold first pass | "
        "largest-topic pass | floor | naive | wikimem/floor | naive/wikimem | "
        "prompt chars | naive prompt chars | peak RSS (imports alone) |",
        "|" + " --- |" * 14,
    ]
    for s in sizes:
        p = s["pass"]
        lines.append(
            f"| {s['leaves']:,} | {s['topics']} | {s['mbytes']} | {ms(p['overhead'])} | "
            f"{ms(p['model'])} | {ms(p['cold_total'])} | {ms(s['largest_topic_overhead'])} | "
            f"{ms(s['floor'])} | {ms(s['naive']['seconds'])} | "
            f"{p['overhead'] / s['floor']:.1f}× | {s['naive']['seconds'] / p['overhead']:.1f}× | "
            f"{p['prompt_chars']:,.0f} | {s['naive']['prompt_chars']:,} | "
            f"{s['memory']['pass']:.0f} MB ({s['memory']['imports']:.0f} MB) |"
        )
    lines += [
        "",
        "Reads and processes (medians):",
        "",
        "| leaves | show | search | search (query only) | context | `show` process | "
        "`index` process | hook, warm listener | hook, cold | `python -c pass` | "
        "hook/python warm | cold |",
        "|" + " --- |" * 12,
    ]
    for s in sizes:
        r, h = s["reads"], s["hook"]
        lines.append(
            f"| {s['leaves']:,} | {ms(r['show'])} | {ms(r['search'])} | "
            f"{ms(r['search_query_only'])} | {ms(r['context'])} | {ms(s['show_process'])} | "
            f"{ms(s['index_process'])} | {ms(h['hook'])} | {ms(h['cold']['hook'])} | "
            f"{ms(h['python'])} | {h['ratio']:.1f}× | {h['cold']['ratio']:.1f}× |"
        )
    lines += ["", "| target | measured | verdict |", "| --- | --- | --- |"]
    for name, measured, ok in targets(sizes):
        lines.append(f"| {name} | {measured} | {verdict(ok)} |")
    drain = results.get("drain")
    if drain:
        lines += [
            "",
            f"Queue drain of {drain['jobs']} jobs on a {drain['leaves']}-leaf wiki "
            "(one pass in four teaches):",
            "",
            "| queue.batch | seconds | passes | commits | jobs/s |",
            "| --- | --- | --- | --- | --- |",
        ]
        for batch in (1, 8):
            d = drain[f"batch_{batch}"]
            lines.append(
                f"| {batch} | {d['seconds']:.1f} | {d['passes']} | {d['commits']} | "
                f"{d['jobs_per_s']:.1f} |"
            )
    return "\n".join(lines) + "\n"


def targets(sizes: Sequence[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    by = {s["leaves"]: s for s in sizes}
    found: list[tuple[str, str, bool]] = []
    worst_hook = max(s["hook"]["ratio"] for s in sizes)
    worst_cold = max(s["hook"]["cold"]["ratio"] for s in sizes)
    found.append(
        (
            "hook wall time ≤ 4× `python -c pass`",
            f"{worst_hook:.1f}× with the warm listener, {worst_cold:.1f}× without (worst size)",
            worst_hook <= 4,
        )
    )
    small, large = min(by), max(by)
    if small != large:
        ratio = by[large]["pass"]["overhead"] / by[small]["pass"]["overhead"]
        found.append(
            (f"pass overhead at {large:,} ≤ 2× at {small:,} leaves", f"{ratio:.2f}×", ratio <= 2)
        )
    if 2000 in by:
        overhead = by[2000]["pass"]["overhead"]
        found.append(("pass overhead at 2,000 leaves < 300 ms", ms(overhead), overhead < 0.3))
    mid = 200 if 200 in by else small
    if mid != large:
        a, b = by[mid]["pass"]["prompt_chars"], by[large]["pass"]["prompt_chars"]
        found.append(
            (
                f"prompt size {mid:,} vs {large:,} leaves within 10 %",
                f"{a:,.0f} vs {b:,.0f} ({(b - a) / a:+.1%})",
                abs(b - a) / a <= 0.10,
            )
        )
    search = by[large]["reads"]["search"]
    found.append((f"search < 200 ms at {large:,} leaves (warm index)", ms(search), search < 0.2))
    return found


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--sizes", default="20,200,2000,10000", type=lambda v: [int(x) for x in v.split(",")]
    )
    parser.add_argument("--repeats", type=int, default=5, help="repeats per timing (median)")
    parser.add_argument("--drain", type=int, default=500, help="jobs in the queue drain (0: skip)")
    parser.add_argument("--drain-size", type=int, default=200, help="leaves of the drain's wiki")
    parser.add_argument("--profile", action="store_true", help="profile the largest pass")
    parser.add_argument(
        "--cache", type=Path, default=generate.CACHE, help="where generated wikis are kept"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where results are written")
    args = parser.parse_args(argv)
    # Processes are timed as installed: pip writes byte code at install; a checkout (or
    # PYTHONDONTWRITEBYTECODE) may not, and compiling at every start-up is not wikimem's cost.
    import compileall

    compileall.compile_dir(str(measure.ROOT / "wikimem"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="wikimem-bench-") as tmp:
        work = Path(tmp)
        isolate(work / "home")
        results: dict[str, Any] = {"machine": machine(), "sizes": []}
        with serve() as server:
            for leaves in args.sizes:
                results["sizes"].append(
                    measure_size(leaves, args.cache, work, server, work / "home", args)
                )
            if args.drain:
                results["drain"] = {
                    "jobs": args.drain,
                    "leaves": args.drain_size,
                    **measure_drain(args.drain_size, args.cache, work, server, args.drain),
                }
    text = report(results)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (args.out / f"{stamp}.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    (args.out / f"{stamp}.md").write_text(text, encoding="utf-8")
    print(text)
    return results


if __name__ == "__main__":
    main()
