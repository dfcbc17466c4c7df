"""wikimem's benchmark suite: what a pass, a hook and a read cost, against baselines.

Run it from the repository root, in the project's virtualenv, with one command:

    python -m bench.run                     # sizes 20, 200, 2,000, 10,000 leaves; < 10 minutes
    python -m bench.run --profile           # also writes a pyinstrument profile of the 10k pass
    python -m bench.run --sizes 20,200 --repeats 3 --drain 50     # a quick look
    python -m bench.generate 2000           # only build (and cache) a synthetic wiki

Modules, in the order a run uses them:

- `generate`: deterministic synthetic wikis (page sizes, entry counts and topic fan-out like
  hand-kept notes), written with plain file writes and one commit, cached in `bench/.cache/`.
- `measure`: one-entry passes in-process against the loopback model of `tests/openai_server.py`
  (answering at once, so every millisecond is wikimem's), reads (show, search, context), the
  hook and `wikimem index` as processes, peak memory (`probe`), and queue drains.
- `baselines`: the floor (same files, plain writes, `git add` + `git commit`) and a naive pass
  (whole wiki to the model, every page re-rendered, `git add -A`).
- `ratio`: the pass-overhead ratio alone (`python -m bench.ratio`), sizes interleaved in rounds,
  with `--steps` timing the pass's steps; for checking the flat-pass target quickly.
- `replay`: delivery at the moment of need (`python -m bench.replay`): real failures, their
  variants in other projects' words and people's own prompts replayed through the in-loop hooks
  against a wiki an offline pass taught, mixed into a generated one; `--vocabulary wide` writes
  the distractors' prose from `bench/data/stdlib_words.tsv` instead of the lessons' own words.
- `run`: the command line; prints a Markdown report and writes it with the raw JSON to
  `bench/results/` (ignored by git). BENCHMARKS.md holds the recorded results.

Targets are checked as ratios measured in the same run, because the machine may be shared.
"""
