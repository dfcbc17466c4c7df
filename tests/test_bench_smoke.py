"""The benchmark suite on a 20-leaf wiki, so it cannot rot: it runs end to end and reports every
figure. No timing is asserted here; targets live in BENCHMARKS.md."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bench import generate
from bench.run import main
from wikimem.recall.search import SearchIndex


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


def _pages(made: generate.Generated) -> dict[str, str]:
    wiki = made.workspace / ".clarvis" / "memory"
    return {str(p.relative_to(wiki)): p.read_text() for p in sorted(wiki.rglob("*.md"))}


def _shares(made: generate.Generated, words: tuple[str, ...]) -> tuple[int, dict[str, float]]:
    """The index's distinct terms, and the share of its rows holding each of `words`."""
    index_file = made.workspace / ".clarvis" / "state" / "search.sqlite"
    with SearchIndex(made.workspace / ".clarvis" / "memory", index_file) as index:
        index.refresh()
    db = sqlite3.connect(index_file)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, row)")
        rows = db.execute("SELECT count(*) FROM docs").fetchone()[0]
        terms = db.execute("SELECT count(*) FROM vocab").fetchone()[0]
        doc = "SELECT coalesce(sum(doc), 0) FROM vocab WHERE term = ?"
        return terms, {w: db.execute(doc, (w,)).fetchone()[0] / rows for w in words}
    finally:
        db.close()


def test_the_wide_vocabulary_changes_the_prose_alone_and_dilutes_the_lessons_words(
    tmp_path: Path,
) -> None:
    lessons = generate.build(tmp_path / "lessons" / "ws", 30, cites=True)
    wide = generate.build(tmp_path / "wide" / "ws", 30, cites=True, vocabulary="wide")
    again = generate.build(tmp_path / "again" / "ws", 30, cites=True, vocabulary="wide")
    assert _pages(wide) == _pages(again)
    assert generate.cache_name(30, cites=True) == "wiki-30-s0-g2-cites"  # the figures' wikis
    assert generate.cache_name(30, vocabulary="wide") != generate.cache_name(30)

    plain, rich = _pages(lessons), _pages(wide)
    assert plain.keys() == rich.keys() and len(plain) > 30
    for path in plain:  # the same paths, titles, summaries, headings, tables and commands
        kept = [
            (a, b)
            for a, b in zip(plain[path].split("\n"), rich[path].split("\n"), strict=True)
            if a.startswith(("#", "title:", "summary:", "type:", "|", "```", "<!--"))
        ]
        assert all(a == b for a, b in kept), path
    assert sum(plain[p] != rich[p] for p in plain) >= 30  # every leaf's prose is new

    words = ("lockfile", "migration", "port", "the")
    lessons_terms, lessons_shares = _shares(lessons, words)
    wide_terms, wide_shares = _shares(wide, words)
    assert lessons_terms < 300 < 5 * 300 < wide_terms
    for word in words[:3]:  # the lessons' words, in most rows of the default wiki
        assert lessons_shares[word] > 0.3 > 0.2 > wide_shares[word], word
    assert wide_shares["the"] > 0.7  # real prose: its commonest word is everywhere


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
