"""What `wikimem compact` costs on a synthetic wiki: the rules' plan (a dry run) and the commit.

The generated wiki has no duplicates and no expired entries, so a measured copy first gets some,
as passes would leave them: `--dupes` entries copied word for word into another leaf of their
topic, as many with their last sentence cut (near duplicates), and as many copies given a past
`expires` date, committed as wikimem. The rules only (no model): a model's cost is its calls,
one per topic.

    python -m bench.compact --leaves 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.generate import cached, copy, git
from wikimem import config
from wikimem.lifecycle.compact import compact
from wikimem.wiki import markdown
from wikimem.wiki.pages import Wiki


def seed_debris(workspace: Path, dupes: int, seed: int = 1) -> int:
    """Add exact duplicates, near duplicates and expired entries; return how many were added."""
    places = config.places(workspace, {})
    wiki = Wiki(places.wiki)
    rng = random.Random(seed)
    by_topic: dict[str, list[str]] = {}
    for leaf in wiki.leaves():
        by_topic.setdefault(leaf.split("/", 1)[0], []).append(leaf)
    topics = [t for t, members in sorted(by_topic.items()) if len(members) >= 2]
    added = 0
    for n in range(dupes * 3):
        source, target = rng.sample(by_topic[rng.choice(topics)], 2)  # passes file by topic
        page = wiki.read_page(wiki.leaf_file(source))
        host = wiki.read_page(wiki.leaf_file(target))
        if page is None or host is None or not page.entries:
            continue
        entry = rng.choice(page.entries)
        body = entry.body
        kind = entry.meta.get("type") or str(page.meta.get("type") or "semantic")
        meta = {"type": kind}
        if n % 3 == 1:  # near: the last sentence cut
            body = body.rsplit(". ", 1)[0] + "."
        elif n % 3 == 2:
            body, meta = f"Stale note {n}: {body}", {**meta, "expires": "2026-01-01"}
        title = f"{entry.title} copy {n}"
        host = markdown.add_entry(host, title, body, meta)
        (places.wiki / wiki.leaf_file(target)).write_text(host.render(), encoding="utf-8")
        added += 1
    git("add", "-A", cwd=places.wiki)
    git("commit", "-q", "--author=wikimem <wikimem@localhost>", "-m", "debris", cwd=places.wiki)
    return added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=2000)
    parser.add_argument("--dupes", type=int, default=20, help="of each kind")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    made = cached(args.leaves)
    plans, commits = [], []
    retired = 0
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            ws = copy(made, Path(tmp) / "ws").workspace
            added = seed_debris(ws, args.dupes)
            places = config.places(ws, {})
            settings = config.load(places, {})
            started = time.perf_counter()
            dry = compact(places, settings, use_model=False, dry_run=True)
            plans.append(time.perf_counter() - started)
            started = time.perf_counter()
            done = compact(places, settings, use_model=False, approve=True)
            commits.append(time.perf_counter() - started)
            retired = len(done.retired)
            assert done.commit and len(dry.retired) == retired
    print(
        f"{made.leaves} leaves, {made.entries + added} entries ({added} seeded): "
        f"{retired} retired; dry run median {statistics.median(plans) * 1000:.0f} ms "
        f"({min(plans) * 1000:.0f}-{max(plans) * 1000:.0f}), compaction with its commit "
        f"median {statistics.median(commits) * 1000:.0f} ms "
        f"({min(commits) * 1000:.0f}-{max(commits) * 1000:.0f})"
    )


if __name__ == "__main__":
    main()
