"""The pass-overhead ratio alone: one-entry passes on several sizes, in interleaved rounds.

    python -m bench.ratio                                  # sizes 20, 2,000, 10,000; 4 rounds
    python -m bench.ratio --sizes 20,10000 --rounds 6 --repeats 7

Each round runs `bench.measure.passes` on every size back to back (on fresh copies, after a
cold pass), so a round's ratios are taken within a minute of each other on a noisy machine;
the report gives each round's medians and ratios, then the median and range over rounds.
`--steps` also times the pass's steps (person's edits, search, commit) with a wrapper.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.openai_server import serve

from . import generate, measure
from .run import isolate

# (module, class or None, name): where each timed step is looked up (and patched)
STEPS = (
    ("wikimem.wiki.history", "WikiRepo", "commit_person_edits"),
    ("wikimem.wiki.history", "PersonEdits", "commit"),
    ("wikimem.wiki.history", "WikiRepo", "commit"),
    ("wikimem.wiki.history", "IndexUpdate", "finish"),
    ("wikimem.wiki.history", "WikiRepo", "write_commit"),
    ("wikimem.wiki.history", "WikiRepo", "tree_by_hand"),
    ("wikimem.wiki.history", "WikiRepo", "changes_since"),
    ("wikimem.indexing.indexer", "Pass", "_search"),
    ("wikimem.recall.search", "SearchIndex", "focused"),
    ("wikimem.recall.search", "SearchIndex", "search"),
    ("wikimem.indexing.indexer", None, "compile_profile"),
    ("wikimem.indexing.indexer", None, "compile_topic"),
    ("wikimem.indexing.indexer", None, "build_view"),
    ("wikimem.indexing.indexer", None, "ensure_wiki"),
    ("wikimem.intake.queue", "Queue", "finish"),
    ("wikimem.intake.passlog", None, "append"),
    ("wikimem.indexing.indexer", "Pass", "recover"),
)


@contextlib.contextmanager
def timed_steps() -> Iterator[dict[str, list[float]]]:
    """Seconds spent in each of STEPS, per call, while the block runs."""
    import importlib

    spent: dict[str, list[float]] = defaultdict(list)
    originals = []
    for module_name, cls_name, name in STEPS:
        module = importlib.import_module(module_name)
        cls = getattr(module, cls_name) if cls_name else module
        original = cls.__dict__.get(name) if cls_name else getattr(module, name, None)
        if original is None:
            continue  # not in this version of the code
        originals.append((cls, name, original))
        static = isinstance(original, staticmethod)
        call = original.__func__ if static else original

        label = name if cls_name in (None, "WikiRepo", "Pass") else f"{cls_name}.{name}"

        def wrapper(*args: Any, _f: Any = call, _n: str = label, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return _f(*args, **kwargs)
            finally:
                spent[_n].append(time.perf_counter() - started)

        setattr(cls, name, staticmethod(wrapper) if static else wrapper)
    try:
        yield spent
    finally:
        for cls, name, original in originals:
            setattr(cls, name, original)


def one_round(
    sizes: Sequence[int], work: Path, server: Any, repeats: int, steps: bool
) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    for leaves in sizes:
        copy = generate.copy(generate.cached(leaves), work / f"ws-{leaves}")
        try:
            with timed_steps() if steps else contextlib.nullcontext({}) as spent:
                figures = measure.passes(copy, server, repeats)
            out[leaves] = {"overhead": figures["overhead"]}
            for name, values in spent.items():
                # the cold pass is the first call of each step; skip it like passes() does
                out[leaves][name] = statistics.median(values[1:] or values)
        finally:
            shutil.rmtree(copy.workspace, ignore_errors=True)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ratio", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--sizes", default="20,2000,10000", type=lambda v: [int(x) for x in v.split(",")]
    )
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=7, help="passes per size and round")
    parser.add_argument("--steps", action="store_true", help="also time the pass's steps")
    args = parser.parse_args(argv)
    small, large = min(args.sizes), max(args.sizes)
    ratios = []
    per_size: dict[int, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="wikimem-ratio-") as tmp, serve() as server:
        isolate(Path(tmp, "home"))
        for number in range(1, args.rounds + 1):
            got = one_round(args.sizes, Path(tmp), server, args.repeats, args.steps)
            ratio = got[large]["overhead"] / got[small]["overhead"]
            ratios.append(ratio)
            cells = []
            for leaves in args.sizes:
                per_size[leaves].append(got[leaves]["overhead"])
                extra = "".join(
                    f" {k}={v * 1000:.0f}" for k, v in got[leaves].items() if k != "overhead"
                )
                cells.append(f"{leaves}: {got[leaves]['overhead'] * 1000:.0f} ms{extra}")
            print(
                f"round {number}: " + "; ".join(cells) + f"; {large}/{small} {ratio:.2f}×",
                flush=True,
            )
    summary = "; ".join(
        f"{leaves}: median {statistics.median(v) * 1000:.0f} ms "
        f"({min(v) * 1000:.0f}–{max(v) * 1000:.0f})"
        for leaves, v in per_size.items()
    )
    medians = statistics.median(per_size[large]) / statistics.median(per_size[small])
    print(
        f"over {args.rounds} rounds: {summary}; {large}/{small} median "
        f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f}×), "
        f"ratio of the medians {medians:.2f}×"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
