"""The measurements: each takes a generated wiki and a loopback model, returns plain numbers.

Timings are wall-clock medians of several repeats; the caller turns them into ratios taken in
the same run, because absolute figures on a shared machine drift by tens of percent from one
minute to the next. Nothing here asserts a target: `bench.run` compares and reports.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.openai_server import OpenAIServer, Reply
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue

from .generate import Generated

ROOT = Path(__file__).resolve().parent.parent


def model_env(server: OpenAIServer) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-bench-0000000000",
        "WIKIMEM_MODEL": "bench-model",
    }


def process_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a measured process: isolated HOME and git config, the repo on path."""
    keep = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    }
    return {
        **keep,
        "HOME": str(home),
        "WIKIMEM_HOME": str(home / ".clarvis"),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "PYTHONPATH": str(ROOT),
        **(extra or {}),
    }


def open_workspace(
    generated: Generated, env: Mapping[str, str]
) -> tuple[config.Places, config.Settings]:
    from .generate import CACHE

    if generated.workspace.resolve().is_relative_to(CACHE.resolve()):
        # a measurement writes: on the cached wiki it would leave jobs that make the next
        # measurement's runs duplicates (nothing to index)
        raise ValueError("measure a copy (bench.generate.copy), not the cached workspace")
    places = config.Places(
        workspace=generated.workspace, global_dir=generated.workspace.parent / "global"
    )
    return places, config.load(places, env)


def tool_of(leaf: str) -> str:
    return leaf.rsplit("/", 1)[-1].split("-")[0]


def change_run(number: int, leaf: str) -> dict[str, Any]:
    """A run that taught one thing about `leaf`: a failing command, the fix, the pass."""
    tool = tool_of(leaf)
    return {
        "run_id": f"bench-{number}",
        "task": f"Fix the failing {tool} step on CI",
        "status": "succeeded",
        "agent": {"name": "bench", "instance_id": "runner-1"},
        "result": f"The {tool} step failed because the cache key missed the config hash; "
        f"adding it fixed the build (run {number}).",
        "evidence": [
            {
                "kind": "command",
                "command": f"{tool} build --frozen",
                "exit_code": 1,
                "output": f"error: {tool} cache is stale: config changed since the last run\n",
            },
            {"kind": "file", "path": f"{tool}.config", "diff": "+cache-key: hash(config)\n"},
            {
                "kind": "command",
                "command": f"{tool} build --frozen",
                "exit_code": 0,
                "output": "built in 41s\n",
            },
        ],
    }


def change_plan(number: int, leaf: str) -> dict[str, Any]:
    tool = tool_of(leaf)
    return {
        "summary": f"Record the {tool} cache key fix",
        "edits": [
            {
                "action": "add",
                "leaf": leaf,
                "entry": f"cache-key-fix-{number}",
                "title": f"Cache key fix {number}",
                "type": "procedural",
                "body": f"`{tool} build --frozen` fails with a stale cache when the "
                "config changed: the cache key must include the config hash. "
                f"Add it in `{tool}.config` (run {number}).",
                "reason": "verified fix, will recur",
            }
        ],
    }


@contextmanager
def timed_model() -> Iterator[list[float]]:
    """Seconds spent inside the model seam, per call, while the block runs."""
    from wikimem.indexing import model

    spent: list[float] = []
    original = model.complete_json

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)

    model.complete_json = wrapper  # type: ignore[assignment]
    try:
        yield spent
    finally:
        model.complete_json = original  # type: ignore[assignment]


def one_pass(
    places: config.Places, settings: config.Settings, server: OpenAIServer, number: int, leaf: str
) -> dict[str, float]:
    """Enqueue one teaching run and drain it; wall time, model time, prompt characters."""
    server.script(Reply.plan(change_plan(number, leaf)))
    enqueue(places, settings, change_run(number, leaf))
    before = len(server.completions)
    with timed_model() as spent:
        started = time.perf_counter()
        reports = drain(places, settings)
        total = time.perf_counter() - started
    outcomes = [o.outcome for r in reports for o in r.outcomes]
    if outcomes != ["changed"]:
        raise RuntimeError(
            f"bench pass {number} did not change the wiki: {outcomes} "
            f"{[o.error for r in reports for o in r.outcomes]}"
        )
    request = server.completions[before]
    prompt = sum(len(str(m.get("content", ""))) for m in request["messages"])
    # The model answers at once, so the whole pass is overhead: the client set-up and the HTTP
    # round trip inside the model seam are wikimem's cost too (reported apart as "model seam").
    return {"total": total, "model": sum(spent), "overhead": total, "prompt_chars": prompt}


def passes(generated: Generated, server: OpenAIServer, repeats: int) -> dict[str, Any]:
    """A cold first pass (index built), then `repeats` one-entry passes: medians."""
    env = model_env(server)
    places, settings = open_workspace(generated, env)
    cold = one_pass(places, settings, server, 0, generated.sample_leaf)
    runs = [
        one_pass(places, settings, server, n, generated.sample_leaf) for n in range(1, repeats + 1)
    ]
    return {
        "cold_total": cold["total"],
        "total": statistics.median(r["total"] for r in runs),
        "model": statistics.median(r["model"] for r in runs),
        "overhead": statistics.median(r["overhead"] for r in runs),
        "overhead_min": min(r["overhead"] for r in runs),
        "prompt_chars": statistics.median(r["prompt_chars"] for r in runs),
    }


def largest_topic_pass(generated: Generated, server: OpenAIServer, repeats: int) -> float:
    """Median overhead of a one-entry change in the largest topic (the worst compile)."""
    env = model_env(server)
    places, settings = open_workspace(generated, env)
    from wikimem.wiki.pages import Wiki

    leaf = next(Wiki(places.wiki).leaves(generated.largest_topic))
    return statistics.median(
        one_pass(places, settings, server, 1000 + n, leaf)["overhead"] for n in range(repeats)
    )


def run_process(
    args: list[str], env: Mapping[str, str], cwd: Path, input: bytes | None = None
) -> float:
    started = time.perf_counter()
    done = subprocess.run(args, env=dict(env), cwd=cwd, input=input, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{args[:4]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return elapsed


def wait_drained(places: config.Places, timeout: float = 300.0) -> None:
    """Until the background pass a hook started has left nothing pending or active.

    Never by taking the workspace lock: a background pass that finds it held leaves at once
    (another pass will see its jobs), and this poll would then wait for nobody.
    """
    from wikimem.intake.queue import Queue

    queue = Queue(places.queue)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        counts = queue.counts()
        if not counts["pending"] and not counts["active"]:
            return
        failed = [job.last_error for _, job in queue.jobs("pending") if job and job.attempts]
        if failed:
            raise RuntimeError(f"the background pass failed: {failed[0]}")
        time.sleep(0.02)
    raise TimeoutError("the background pass did not drain the queue")


def hook(generated: Generated, server: OpenAIServer, home: Path, repeats: int) -> dict[str, Any]:
    """`python -m wikimem hook FILE` against `python -c pass`, interleaved, same interpreter:
    cold (no listener: the hook redacts and writes the job itself) and warm (a listener runs,
    as it does after a workspace's first hook for `hook.linger` seconds)."""
    cold = _hooks(generated, server, home, repeats, warm=False)
    warm = _hooks(generated, server, home, repeats, warm=True)
    return {"python": warm["python"], "hook": warm["hook"], "ratio": warm["ratio"], "cold": cold}


def _hooks(
    generated: Generated, server: OpenAIServer, home: Path, repeats: int, warm: bool
) -> dict[str, float]:
    env = process_env(home, {**model_env(server), "WIKIMEM_LINGER": "0"})
    places, _ = open_workspace(generated, env)
    bare: list[float] = []
    hooked: list[float] = []
    record = Path(tempfile.mkdtemp(prefix="bench-hook-")) / "run.json"
    listener = None
    if warm:
        listener = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "wikimem",
                "listen",
                "--idle",
                "0",
                "-C",
                str(generated.workspace),
            ],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert listener.stdout is not None
        listener.stdout.readline()  # "listening": ready
    try:
        for n in range(repeats + 1):
            server.default = Reply.plan({"summary": "no change", "edits": []})
            record.write_text(
                json.dumps(change_run((7000 if warm else 5000) + n, generated.sample_leaf))
            )
            wait_drained(places)
            python = run_process([sys.executable, "-c", "pass"], env, generated.workspace)
            wall = run_process(
                [
                    sys.executable,
                    "-m",
                    "wikimem",
                    "hook",
                    str(record),
                    "-q",
                    "-C",
                    str(generated.workspace),
                ],
                env,
                generated.workspace,
            )
            if n:  # the first round warms the page cache and byte-code files
                bare.append(python)
                hooked.append(wall)
        wait_drained(places)
    finally:
        if listener is not None:
            run_process(
                [
                    sys.executable,
                    "-m",
                    "wikimem",
                    "listen",
                    "--stop",
                    "-C",
                    str(generated.workspace),
                ],
                env,
                generated.workspace,
            )
            listener.wait(timeout=60)
        shutil.rmtree(record.parent, ignore_errors=True)
    return {
        "python": statistics.median(bare),
        "hook": statistics.median(hooked),
        "ratio": statistics.median(h / b for h, b in zip(hooked, bare, strict=True)),
    }


def index_process(generated: Generated, server: OpenAIServer, home: Path) -> float:
    """`wikimem index` as a process for one one-entry change (imports and all)."""
    env = process_env(home, model_env(server))
    places, settings = open_workspace(generated, env)
    server.script(Reply.plan(change_plan(7000, generated.sample_leaf)))
    enqueue(places, settings, change_run(7000, generated.sample_leaf))
    return run_process(
        [sys.executable, "-m", "wikimem", "index", "-q", "-C", str(generated.workspace)],
        env,
        generated.workspace,
    )


def peak_memory(generated: Generated, server: OpenAIServer, home: Path) -> dict[str, float]:
    """Peak RSS (MB) of a process running one pass, and of one only importing the same code."""
    env = process_env(home, model_env(server))
    places, settings = open_workspace(generated, env)
    server.script(Reply.plan(change_plan(8000, generated.sample_leaf)))
    enqueue(places, settings, change_run(8000, generated.sample_leaf))
    out = {}
    for what in ("imports", "pass"):
        done = subprocess.run(
            [sys.executable, "-m", "bench.probe", what, str(generated.workspace)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        out[what] = json.loads(done.stdout)["max_rss_mb"]
    return out


def timed(action: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def reads(generated: Generated, repeats: int) -> dict[str, float]:
    """show, search and context as a command does them: a fresh index object over a warm file."""
    from wikimem.recall.context import build_context
    from wikimem.recall.search import SearchIndex
    from wikimem.wiki.lookup import resolve
    from wikimem.wiki.pages import Wiki

    places, _ = open_workspace(generated, {})
    index_file = places.state / "search.sqlite"
    with SearchIndex(places.wiki, index_file) as index:
        index.refresh()  # warm: the file exists and is current
    query = f"{tool_of(generated.sample_leaf)} cache config timeout"
    wiki = Wiki(places.wiki)

    def search() -> object:
        with SearchIndex(places.wiki, index_file) as index:
            return index.search(query, 10)

    def query_only() -> object:
        return warm.search(query, 10)

    def context() -> object:
        with SearchIndex(places.wiki, index_file) as index:
            return build_context(places.wiki, index, query=query)

    with SearchIndex(places.wiki, index_file) as warm:
        warm.refresh()
        return {
            "show": timed(lambda: resolve(wiki, generated.sample_leaf), repeats),
            "search": timed(search, repeats),
            "search_query_only": timed(query_only, repeats),
            "context": timed(context, repeats),
        }


def show_process(generated: Generated, home: Path, repeats: int) -> float:
    env = process_env(home)
    args = [
        sys.executable,
        "-m",
        "wikimem",
        "show",
        generated.sample_leaf,
        "-C",
        str(generated.workspace),
    ]
    run_process(args, env, generated.workspace)
    return timed(lambda: run_process(args, env, generated.workspace), repeats)


def queue_drain(
    generated: Generated, server: OpenAIServer, jobs: int, batch: int
) -> dict[str, float]:
    """Drain `jobs` queued runs with queue.batch = `batch`; one pass in four teaches."""
    env = model_env(server)
    places, _ = open_workspace(generated, env)
    places.workspace_config.write_text(f"[queue]\nbatch = {batch}\n", encoding="utf-8")
    _, settings = open_workspace(generated, env)
    for n in range(jobs):
        enqueue(places, settings, change_run(20000 + n, generated.sample_leaf))
    server.reset()
    server.script(
        *(
            Reply.plan(change_plan(30000 + n, generated.sample_leaf))
            if n % 4 == 0
            else Reply.plan({"summary": "no change", "edits": []})
            for n in range(jobs)
        )
    )
    started = time.perf_counter()
    reports = drain(places, settings)
    seconds = time.perf_counter() - started
    done = sum(1 for r in reports for o in r.outcomes if o.outcome in ("changed", "no change"))
    if done != jobs:
        raise RuntimeError(f"drained {done} of {jobs} jobs")
    server.reset()
    return {
        "seconds": seconds,
        "passes": len(reports),
        "jobs_per_s": jobs / seconds,
        "commits": sum(1 for r in reports if r.commit),
    }
