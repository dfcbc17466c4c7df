"""The benchmark suite on a 20-leaf wiki, so it cannot rot: it runs end to end and reports every
figure. No timing is asserted here; targets live in BENCHMARKS.md."""

from __future__ import annotations

import json
from pathlib import Path

from bench import generate
from bench.run import main


def test_generator_is_deterministic_and_committed(tmp_path: Path) -> None:
    first = generate.build(tmp_path / "a", 20)
    second = generate.build(tmp_path / "b", 20)
    assert (first.leaves, first.topics, first.entries, first.bytes) == (
        second.leaves,
        second.topics,
        second.entries,
        second.bytes,
    )
    wiki = first.workspace / ".clarvis" / "memory"
    assert len(list(wiki.rglob("MEMORY.md"))) == 20
    assert (wiki / first.sample_leaf / "MEMORY.md").is_file()
    assert first.sample_leaf.startswith(first.median_topic + "/")
    assert generate.git("status", "--porcelain", cwd=wiki) == ""
    assert "Synthetic wiki of 20 leaves" in generate.git("log", "-1", "--format=%s", cwd=wiki)


def test_bench_runs_end_to_end_on_a_small_wiki(tmp_path: Path) -> None:
    results = main(
        [
            "--sizes",
            "20",
            "--repeats",
            "1",
            "--drain",
            "6",
            "--drain-size",
            "20",
            "--cache",
            str(tmp_path / "cache"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    (size,) = results["sizes"]
    assert size["leaves"] == 20 and size["pass"]["overhead"] > 0
    assert size["naive"]["prompt_chars"] > size["pass"]["prompt_chars"] > 0
    assert size["floor"] > 0 and size["hook"]["ratio"] > 0
    assert size["memory"]["pass"] >= size["memory"]["imports"] > 0
    drained = results["drain"]
    assert drained["batch_1"]["passes"] == 6 and drained["batch_8"]["passes"] == 1
    written = sorted(p.suffix for p in (tmp_path / "out").iterdir())
    assert written == [".json", ".md"]
    report = next((tmp_path / "out").glob("*.md")).read_text()
    assert "| 20 |" in report and "hook wall time" in report
    assert json.loads(next((tmp_path / "out").glob("*.json")).read_text())["sizes"]


def test_the_delivery_replay_runs_on_both_corpora_and_keeps_its_held_apart_part() -> None:
    from bench import replay

    cases = replay.corpus()
    for name in ("lessons", "real"):
        mine = [c for c in cases if c.corpus == name]
        held = [c for c in mine if c.part == "held"]
        keys = {c.key for c in mine}
        assert len({c.key for c in held}) == -(-len(keys) // 3)  # a third of the keys, rounded up
    assert replay.held_apart(["b", "a", "c"]) == replay.held_apart(["c", "b", "a"])
    # each real turn's prompt gets the state the hook read from its transcript at that prompt;
    # before a session's first prompt no tool call had named anything
    state = replay.workspace_state()
    turns = {(c.session, c.turn) for c in cases if c.corpus == "real" and c.turn is not None}
    assert turns and all(turn in state for turn in turns)
    assert all(state[(session, 0)][1] == [] for session, _ in turns)

    picked = ["01-bun-lockfile", "06-fly-port", "push-upstream-gqc", "quiet-did-you-push"]
    args = ["--leaves", "20", "--process-runs", "2"]
    (result,) = replay.main(args + [arg for case in picked for arg in ("--case", case)]).values()

    assert result["corpus"]["cases"] == 4
    failures = [result[f"all/{part}/failure"] for part in ("tuned", "held")]
    assert sum(int(r["events"] or 0) for r in failures) == 3  # bun, fly, git push
    assert sum(int(r["delivered"] or 0) for r in failures) >= 3
    assert all(r["delivered"] == 0 for k, r in result.items() if k.endswith("/success"))
    # in time: `git push` without an upstream is not in the first prompt (`Work on bead ...`),
    # but the lesson comes when the push fails, in the same turn
    turns, prompts = result["all/tuned/turn"], result["all/tuned/prompt"]
    assert turns["recall"] == 1.0 and prompts["recall"] is not None and prompts["recall"] < 1.0
    assert result["process/failure"]["process_p50_ms"] and result["process/prompt"]["cpu_p50_ms"]
