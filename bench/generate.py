"""Synthetic wikis for the benchmarks: deterministic, realistic in page sizes and topic fan-out.

A wiki of N leaves has about N**0.6 topics (6 at 20 leaves, 250 at 10,000), leaves spread over
them with a mild Zipf skew (the largest topic holds a few times the median), one leaf in seven
nested one level deeper, 1-8 entries a leaf (about 2.6 on average), bodies of 150-1,500
characters with the odd code block, table or meta line: 1-6 KB a page, like hand-kept notes.
TOPIC.md and PROFILE.md are compiled by wikimem itself, so a pass starts from a steady state.

The prose of the bodies comes from one of two vocabularies. "lessons" (the default) draws each
word uniformly from `WORDS`, the replayed lessons' own words (lockfile, deploy, port...): at
10,000 leaves every such word is in half the index's rows, a worst case for recall. "wide" draws
each word by its count in `bench/data/stdlib_words.tsv` (the standard library's docstrings,
`bench.stdlib_words`), the long tail of real technical prose; headings, summaries, tools,
aspects, cited files, tables and command blocks stay as they are, and so do the paths.

Invariant: the same (leaves, seed, vocabulary) always gives the same files; a generated wiki is
built once with plain file writes and one `git add -A && git commit`, then kept under
`bench/.cache/` and copied for every measurement that writes.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from wikimem import config
from wikimem.wiki.compile import compile_profile, compile_topic
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import init

GENERATOR_VERSION = 2  # 2: the sample leaf is never an identity leaf
CACHE = Path(__file__).resolve().parent / ".cache"
STDLIB_WORDS = Path(__file__).resolve().parent / "data" / "stdlib_words.tsv"
VOCABULARIES = ("lessons", "wide")
DATE = "2026-11-28"

AREAS = (
    "build",
    "deploy",
    "testing",
    "ci",
    "database",
    "auth",
    "api",
    "frontend",
    "infra",
    "payments",
    "search",
    "docs",
    "release",
    "observability",
    "security",
    "mobile",
    "data",
    "billing",
    "email",
    "queue",
    "cache",
    "storage",
    "networking",
    "tooling",
    "design",
)
TOOLS = (
    "bun",
    "vite",
    "pytest",
    "postgres",
    "redis",
    "docker",
    "terraform",
    "kubernetes",
    "nginx",
    "celery",
    "kafka",
    "webpack",
    "jest",
    "playwright",
    "sentry",
    "grafana",
    "alembic",
    "django",
    "fastapi",
    "react",
    "uv",
    "poetry",
    "node",
    "go",
    "rust",
    "helm",
    "fly",
    "cloud-run",
    "s3",
    "sqlite",
    "openapi",
    "graphql",
    "stripe",
    "oauth",
    "jwt",
    "cron",
    "github-actions",
    "gitlab",
    "mypy",
    "ruff",
    "eslint",
    "tailwind",
    "storybook",
)
ASPECTS = (
    "lockfile",
    "caching",
    "migrations",
    "timeouts",
    "flaky-tests",
    "versions",
    "secrets",
    "ports",
    "retries",
    "logging",
    "permissions",
    "upgrades",
    "fixtures",
    "config",
    "rollback",
    "monitoring",
    "rate-limits",
    "encoding",
    "time-zones",
    "memory",
    "concurrency",
    "schema",
    "indexes",
    "backups",
    "certificates",
    "dns",
    "layout",
)
VERBS = (
    "fails",
    "hangs",
    "drifts",
    "breaks",
    "needs",
    "skips",
    "times out",
    "leaks",
    "retries",
    "caches",
    "pins",
    "rejects",
    "rewrites",
    "ignores",
    "expects",
)
WORDS = (
    "the",
    "build",
    "step",
    "on",
    "ci",
    "runner",
    "when",
    "lockfile",
    "changes",
    "without",
    "commit",
    "run",
    "install",
    "locally",
    "because",
    "version",
    "pinned",
    "upgrade",
    "breaks",
    "resolution",
    "module",
    "cache",
    "key",
    "includes",
    "hash",
    "of",
    "config",
    "file",
    "database",
    "migration",
    "order",
    "matters",
    "test",
    "fixture",
    "shared",
    "state",
    "between",
    "workers",
    "timeout",
    "seconds",
    "retry",
    "request",
    "token",
    "scope",
    "deploy",
    "region",
    "port",
    "environment",
    "variable",
    "default",
    "value",
    "service",
    "account",
    "permission",
    "denied",
    "error",
    "message",
    "says",
    "really",
    "means",
    "check",
    "first",
    "then",
    "restart",
    "worker",
    "queue",
    "drain",
    "index",
    "query",
    "slow",
    "plan",
    "uses",
    "sequential",
    "scan",
    "add",
    "an",
    "for",
    "column",
)
TYPES = ("procedural", "semantic", "semantic", "episodic", "procedural", "working", "identity")
# Files a project's notes cite (`build(..., cites=True)`): the hubs every change touches, in
# the layouts of the replay's corpora (a Phoenix app, a Python package, a web front end), and
# files named by the entry's tool and aspect. The delivery replay's distractors cite them, so a
# rule that reads the session's paths meets entries naming the same files, not about them.
HUBS = (
    "mix.exs",
    "mix.lock",
    "config/config.exs",
    "config/test.exs",
    "config/dev.exs",
    "config/runtime.exs",
    "lib/spotter/application.ex",
    "lib/spotter_web/router.ex",
    "lib/spotter_web/endpoint.ex",
    "lib/spotter/repo.ex",
    "test/test_helper.exs",
    "test/support/conn_case.ex",
    ".beads/issues.jsonl",
    ".pre-commit-config.yaml",
    ".github/workflows/ci.yml",
    "assets/js/app.js",
    "assets/css/app.css",
    "assets/package.json",
    "priv/repo/seeds.exs",
    "package.json",
    "web/package.json",
    "web/bun.lock",
    "pyproject.toml",
    "alembic.ini",
    "tests/conftest.py",
    "Dockerfile",
    "docker-compose.yml",
    "Makefile",
    "README.md",
)
CITING = (
    "lib/spotter/{aspect}.ex",
    "lib/spotter/services/{tool}_{aspect}.ex",
    "lib/spotter_web/live/{aspect}_live.ex",
    "test/spotter/{aspect}_test.exs",
    "src/{tool}/{aspect}.py",
    "tests/test_{aspect}.py",
    "web/src/{aspect}.ts",
    "config/{tool}.yml",
    "scripts/{tool}-{aspect}.sh",
)


@dataclass(frozen=True)
class Generated:
    """A generated workspace and what the benchmarks need to know about it."""

    workspace: Path
    leaves: int
    topics: int
    entries: int
    bytes: int
    median_topic: str  # a typical topic: where the one-entry change lands
    largest_topic: str
    sample_leaf: str  # a leaf of the median topic


@functools.cache
def _stdlib_words() -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The committed word list and its cumulative counts, for `random.choices`."""
    rows = [line.split("\t") for line in STDLIB_WORDS.read_text(encoding="utf-8").splitlines()]
    return tuple(w for w, _ in rows), tuple(itertools.accumulate(int(n) for _, n in rows))


class Words:
    """Where a sentence's words come from: `WORDS` drawn uniformly from the leaf's own stream,
    or, given a stream of its own, the standard library's words drawn by their counts."""

    def __init__(self, wide: random.Random | None = None) -> None:
        self.wide = wide

    def draw(self, rng: random.Random, n: int) -> tuple[list[str], int]:
        """`n` words, and the length the lessons' words would give them. The lessons' draws
        happen either way and a paragraph ends by their length, so every later choice of `rng`
        (lengths, headings, tools, paths) is the same in both vocabularies."""
        lessons = [rng.choice(WORDS) for _ in range(n)]
        size = len(" ".join(lessons))
        if self.wide is None:
            return lessons, size
        population, cumulative = _stdlib_words()
        return self.wide.choices(population, cum_weights=cumulative, k=n), size


LESSONS = Words()


def _drawn(rng: random.Random, low: int, high: int, words: Words) -> tuple[str, int]:
    """A sentence, and its length in the lessons' words (`Words.draw`)."""
    drawn, size = words.draw(rng, rng.randint(low, high))
    drawn[0] = drawn[0].capitalize()
    return " ".join(drawn) + ".", size + 1


def _sentence(rng: random.Random, low: int = 8, high: int = 22, words: Words = LESSONS) -> str:
    return _drawn(rng, low, high, words)[0]


def _paragraph(rng: random.Random, chars: int, words: Words = LESSONS) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        sentence, length = _drawn(rng, 8, 22, words)
        out.append(sentence)
        size += length
    return " ".join(out)


def _cited(rng: random.Random, tool: str, words: Words = LESSONS) -> str:
    """A sentence naming 1-3 files, as notes do (`mix.exs`, `lib/spotter/caching.ex`)."""
    files = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            files.append(rng.choice(HUBS))
        else:
            aspect = rng.choice(ASPECTS).replace("-", "_")
            files.append(rng.choice(CITING).format(tool=tool, aspect=aspect))
    named = ", ".join(f"`{f}`" for f in dict.fromkeys(files))
    return f"{_sentence(rng, 4, 9, words)[:-1]} in {named}."


def _body(
    rng: random.Random,
    tool: str,
    citer: random.Random | None = None,
    words: Words = LESSONS,
    cite_words: Words = LESSONS,
) -> str:
    parts = [_paragraph(rng, rng.choice((150, 250, 400, 600, 900)), words)]
    if citer is not None and citer.random() < 0.6:
        parts.append(_cited(citer, tool, cite_words))
    roll = rng.random()
    if roll < 0.3:
        parts.append(
            f"```sh\n{tool} {rng.choice(ASPECTS)} --{rng.choice(ASPECTS)}\n"
            f"{tool} run {rng.choice(WORDS)}\n```"
        )
    elif roll < 0.4:
        parts.append(
            "| setting | value |\n| --- | --- |\n"
            f"| {rng.choice(ASPECTS)} | {rng.randint(1, 600)} |\n"
            f"| {rng.choice(ASPECTS)} | {rng.choice(WORDS)} |"
        )
    if rng.random() < 0.35:
        parts.append(_paragraph(rng, rng.choice((200, 400, 600)), words))
    return "\n\n".join(parts)


def leaf_text(
    rng: random.Random,
    title: str,
    tool: str,
    citer: random.Random | None = None,
    words: Words = LESSONS,
    cite_words: Words = LESSONS,
) -> tuple[str, int]:
    """A MEMORY.md: frontmatter, a short head, then 1-8 entries; returns (text, entries).
    With `citer`, most entries also name files of the project (`_cited`, its prose drawn from
    `cite_words`); the rest of the prose is drawn from `words`."""
    count = min(1 + int(rng.expovariate(0.6)), 8)
    kind = rng.choice(TYPES)
    lines = [
        "---",
        f"title: {title}",
        f"summary: {tool.capitalize()} {rng.choice(VERBS)} {rng.choice(ASPECTS)}; "
        f"{rng.choice(VERBS)} {rng.choice(ASPECTS)}.",
        f"type: {kind}",
        f"updated: {DATE}",
        "---",
        f"# {title}",
        "",
        _sentence(rng, words=words),
        "",
    ]
    used: set[str] = set()
    for _ in range(count):
        heading = f"{tool.capitalize()} {rng.choice(VERBS)} {rng.choice(ASPECTS).replace('-', ' ')}"
        while heading.lower() in used:
            heading += f" {rng.choice(WORDS)}"
        used.add(heading.lower())
        lines += [f"## {heading}", ""]
        if rng.random() < 0.15:
            lines += [f"<!-- wikimem: type={rng.choice(TYPES)} review-by=2027-03-01 -->", ""]
        lines += [_body(rng, tool, citer, words, cite_words), ""]
    return "\n".join(lines), count


def topic_names(count: int) -> list[str]:
    names = list(AREAS[:count])
    k = 0
    while len(names) < count:
        names.append(
            f"{AREAS[k % len(AREAS)]}-{TOOLS[(k // len(AREAS)) % len(TOOLS)]}"
            + (f"-{k // (len(AREAS) * len(TOOLS))}" if k >= len(AREAS) * len(TOOLS) else "")
        )
        k += 1
    return names


def spread(rng: random.Random, leaves: int, topics: int) -> list[int]:
    """Leaves per topic, mildly skewed, every topic holding at least one."""
    weights = [1 / (rank**0.5) for rank in range(1, topics + 1)]
    total = sum(weights)
    sizes = [max(1, round(leaves * w / total)) for w in weights]
    while sum(sizes) > leaves:
        sizes[sizes.index(max(sizes))] -= 1
    while sum(sizes) < leaves:
        sizes[rng.randrange(topics)] += 1
    return sizes


def git(*args: str, cwd: Path) -> str:
    who = {"NAME": "Bench Person", "EMAIL": "bench@example.test"}
    env = {
        **os.environ,
        **{f"GIT_{role}_{k}": v for role in ("AUTHOR", "COMMITTER") for k, v in who.items()},
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def build(
    workspace: Path, leaves: int, seed: int = 0, cites: bool = False, vocabulary: str = "lessons"
) -> Generated:
    """Write a wiki of `leaves` leaves into `workspace` (created) and commit it; with `cites`,
    its entries name files (a separate stream of choices: the rest is the same wiki). The
    `vocabulary` of its prose is "lessons" or "wide" (module docstring): same paths either way."""
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"vocabulary {vocabulary!r} is none of {', '.join(VOCABULARIES)}")
    rng = random.Random(f"{seed}-{leaves}")
    citer = random.Random(f"{seed}-{leaves}-cites") if cites else None
    wide = vocabulary == "wide"
    words = Words(random.Random(f"{seed}-{leaves}-wide")) if wide else LESSONS
    cite_words = Words(random.Random(f"{seed}-{leaves}-cites-wide")) if wide else LESSONS
    workspace.mkdir(parents=True, exist_ok=True)
    places = config.Places(workspace=workspace, global_dir=workspace.parent / "global")
    settings = config.load(places, {})
    init(places, settings)
    wiki = Wiki(places.wiki)
    topics = topic_names(max(3, round(leaves**0.6)))
    sizes = spread(rng, leaves, len(topics))
    entries = size = 0
    sample: dict[str, str] = {}
    fallback: dict[str, str] = {}
    for topic, count in zip(topics, sizes, strict=True):
        made: set[str] = set()
        for _ in range(count):
            tool = rng.choice(TOOLS)
            name = f"{tool}-{rng.choice(ASPECTS)}" if rng.random() < 0.8 else tool
            while name in made:
                name = f"{name}-{rng.randint(2, 99)}"
            made.add(name)
            relpath = f"{topic}/{name}"
            if rng.random() < 1 / 7 and count > 4:
                relpath = f"{topic}/{rng.choice(ASPECTS)}/{name}"
            title = name.replace("-", " ").capitalize()
            text, n = leaf_text(rng, title, tool, citer, words, cite_words)
            target = places.wiki / relpath / "MEMORY.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            entries += n
            size += len(text)
            fallback.setdefault(topic, relpath)
            if "\ntype: identity\n" not in text:  # a model's edit there waits for a person
                sample.setdefault(topic, relpath)
    summaries = {
        t: f"{t.replace('-', ' ').capitalize()}: how it works here and the traps on the way."
        for t in topics
    }
    for topic in topics:
        compile_topic(wiki, topic, DATE, summaries[topic])
    compile_profile(wiki, DATE, settings.wiki.profile_max, workspace.name)
    git("add", "-A", cwd=places.wiki)
    git("commit", "-q", "--no-verify", "-m", f"Synthetic wiki of {leaves} leaves", cwd=places.wiki)
    git("repack", "-adq", cwd=places.wiki)
    git("prune", cwd=places.wiki)
    order = sorted(range(len(topics)), key=lambda i: sizes[i])
    median = topics[order[len(order) // 2]]
    return Generated(
        workspace,
        leaves,
        len(topics),
        entries,
        size,
        median,
        topics[order[-1]],
        sample.get(median, fallback[median]),
    )


def cache_name(leaves: int, seed: int = 0, cites: bool = False, vocabulary: str = "lessons") -> str:
    """The folder of a generated wiki in the cache: every input of `build` is in it, and for the
    wide vocabulary the word list's digest, so a regenerated list never meets an old wiki."""
    wide = ""
    if vocabulary != "lessons":
        digest = hashlib.sha256(STDLIB_WORDS.read_bytes()).hexdigest()[:8]
        wide = f"-{vocabulary}-{digest}"
    return f"wiki-{leaves}-s{seed}-g{GENERATOR_VERSION}{wide}{'-cites' if cites else ''}"


def cached(
    leaves: int,
    seed: int = 0,
    cache: Path = CACHE,
    cites: bool = False,
    vocabulary: str = "lessons",
) -> Generated:
    """The generated wiki of this size from `cache` (bench/.cache/), built on first use."""
    folder = cache / cache_name(leaves, seed, cites, vocabulary)
    info = folder / "info.txt"
    if not info.is_file():
        if folder.exists():
            shutil.rmtree(folder)
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f"gen-{leaves}-", dir=cache))
        made = build(tmp / "ws", leaves, seed, cites, vocabulary)
        (tmp / "info.txt").write_text(
            "\n".join(
                str(v)
                for v in (
                    made.leaves,
                    made.topics,
                    made.entries,
                    made.bytes,
                    made.median_topic,
                    made.largest_topic,
                    made.sample_leaf,
                )
            ),
            encoding="utf-8",
        )
        tmp.rename(folder)
    values = info.read_text(encoding="utf-8").split("\n")
    return Generated(
        folder / "ws",
        int(values[0]),
        int(values[1]),
        int(values[2]),
        int(values[3]),
        values[4],
        values[5],
        values[6],
    )


def copy(generated: Generated, target: Path) -> Generated:
    """A private copy of a generated workspace, for a measurement that writes."""
    shutil.copytree(generated.workspace, target, symlinks=True)
    return Generated(
        target,
        generated.leaves,
        generated.topics,
        generated.entries,
        generated.bytes,
        generated.median_topic,
        generated.largest_topic,
        generated.sample_leaf,
    )


def main() -> None:
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Generate (and cache) synthetic wikis.")
    parser.add_argument("sizes", nargs="*", type=int, default=[20, 200, 2000, 10000])
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="lessons")
    args = parser.parse_args()
    for leaves in args.sizes:
        started = time.perf_counter()
        made = cached(leaves, vocabulary=args.vocabulary)
        print(
            f"{leaves:>6} leaves: {made.topics} topics, {made.entries} entries, "
            f"{made.bytes / 1e6:.1f} MB, median topic {made.median_topic}, "
            f"{time.perf_counter() - started:.1f} s -> {made.workspace}"
        )


if __name__ == "__main__":
    main()
