"""The prompt: policies, a bounded view of the wiki, and the runs fenced as untrusted data.

Invariant: the wiki part of the prompt never exceeds the configured budget, whatever the size of
the wiki: PROFILE's generated block, the topics, the most relevant leaves' summaries, then the
full text of the most relevant leaves, each cut to what is left, until the budget is spent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wikimem.indexing.plan import SCHEMA
from wikimem.indexing.policy import Policy
from wikimem.intake.record import RunRecord
from wikimem.wiki import markdown
from wikimem.wiki.pages import PROFILE_FILE, Wiki
from wikimem.wiki.render import render

MAX_LEAVES_LISTED = 30
# Full pages fill what the budget has left after the profile, topics and listing, in order of
# relevance: a small wiki (short profile and topic list) shows more of its relevant pages, so
# the prompt is about the same size whatever the size of the wiki.
MAX_LEAVES_IN_FULL = 12
QUERY_WORDS = 60


@dataclass(frozen=True)
class LeafView:
    path: str
    title: str
    summary: str
    entries: tuple[str, ...]


@dataclass(frozen=True)
class WikiView:
    profile: str
    topics: tuple[tuple[str, str], ...]  # (name, summary)
    leaves: tuple[LeafView, ...]
    pages: tuple[tuple[str, str], ...]  # (wiki-relative file, full text)

    @property
    def chars(self) -> int:
        return (
            len(self.profile)
            + sum(len(a) + len(b) for a, b in self.topics)
            + sum(len(p.path) + len(p.summary) + sum(map(len, p.entries)) for p in self.leaves)
            + sum(len(b) for _, b in self.pages)
        )


def query_text(runs: Sequence[RunRecord]) -> str:
    """What a run is about, for picking relevant leaves: task, commands, failures, paths."""
    parts: list[str] = []
    for run in runs:
        parts.append(run.task)
        parts.extend(c.path for c in run.memory)
        for item in run.evidence:
            parts.append(item.command or item.path)
            if item.exit_code not in (None, 0):
                parts.append(item.output[:300])
        parts.append(run.result[:500])
    words = " ".join(parts).replace("/", " ").split()
    return " ".join(words[: QUERY_WORDS * 4])


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(limit - 40, 0)].rsplit("\n", 1)[0] + "\n[... page cut to fit the budget]\n"


def build_view(wiki: Wiki, budget: int, relevant: Sequence[str]) -> WikiView:
    """A bounded view of the wiki: cost depends on the budget, not on the wiki's size."""
    profile_page = wiki.read_page(PROFILE_FILE)
    profile = ""
    if profile_page is not None:
        text = profile_page.render()
        span = markdown.generated_block(text)
        profile = text[span[0] : span[1]].strip() if span else text
    profile = _cut(profile, budget // 4)
    left = budget - len(profile)
    topics: list[tuple[str, str]] = []
    for name in wiki.topics():
        page = wiki.read_page(wiki.topic_file(name))
        summary = str(page.meta.get("summary") or "") if page else ""
        if left - len(name) - len(summary) < budget // 2:
            break
        topics.append((name, summary))
        left -= len(name) + len(summary)
    leaves: list[LeafView] = []
    pages: list[tuple[str, str]] = []
    for path in relevant[:MAX_LEAVES_LISTED]:
        leaf = wiki.read_leaf(path)
        if leaf is None:
            continue
        view = LeafView(path, leaf.title, leaf.summary, tuple(e.id for e in leaf.page.entries))
        cost = len(path) + len(view.summary) + sum(map(len, view.entries)) + 10
        if cost > left:
            break
        leaves.append(view)
        left -= cost
    for view in leaves[:MAX_LEAVES_IN_FULL]:
        if left < 400:
            break
        leaf = wiki.read_leaf(view.path)
        assert leaf is not None
        text = _cut(leaf.page.render().replace("\r\n", "\n"), left)
        pages.append((wiki.leaf_file(view.path), text))
        left -= len(text)
    return WikiView(profile, tuple(topics), tuple(leaves), tuple(pages))


def fence(runs: Sequence[RunRecord]) -> tuple[str, str]:
    """Runs as JSON between fences keyed by a digest of their content: JSON never holds a raw
    newline inside a string, so evidence cannot close the fence and speak as the prompt."""
    body = "\n".join(json.dumps(run.to_dict(), ensure_ascii=False, sort_keys=True) for run in runs)
    nonce = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return nonce, body


def messages(
    policies: Sequence[Policy],
    view: WikiView,
    runs: Sequence[RunRecord],
    overrides: Path | None = None,
) -> list[dict[str, str]]:
    nonce, body = fence(runs)
    system = render(
        "prompt_system.j2",
        overrides,
        policies=policies,
        schema=json.dumps(SCHEMA, indent=1, sort_keys=True),
    )
    user = render("prompt_user.j2", overrides, view=view, nonce=nonce, runs=body, count=len(runs))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def relevant_leaves(
    search: Callable[[str, int], list[str]] | None, runs: Sequence[RunRecord], wiki: Wiki
) -> list[str]:
    """Leaves worth showing the model: explicit candidate paths first, then search hits."""
    found: list[str] = []
    for run in runs:
        for candidate in run.memory:
            path = candidate.path.strip("/").lower()
            if path.count("/") == 0:
                path = f"{path}/general"
            if path not in found:
                found.append(path)
    if search is not None:
        for path in search(query_text(runs), MAX_LEAVES_LISTED):
            if path not in found:
                found.append(path)
    return found
