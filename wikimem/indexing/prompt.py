"""The prompt: policies, a bounded view of the wiki, and the runs fenced as untrusted data.

Invariant: the wiki part of the prompt never exceeds the configured budget, whatever the size of
the wiki: PROFILE.md (the person's words and the generated index), the topics, the relevant
TOPIC.md pages (the person's words first), where the runs' tools keep their lessons, the most
relevant leaves' summaries, then the full text of the most relevant leaves, each cut to what is
left, until the budget is spent. What a person wrote outside the generated markers is shown as
theirs, so the model can follow it and not repeat it.

When another memory provider owns the memory (`memory.provider`), the model is shown that
provider's view instead (`provider_view`): its context for the runs' tasks and candidates,
within the same budget, or a note that it gives none; never the wiki, which is not the memory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.indexing.layout import home
from wikimem.indexing.plan import SCHEMA, one_line
from wikimem.indexing.policy import Policy
from wikimem.indexing.shell import command_tool
from wikimem.intake.record import RunRecord
from wikimem.providers.provider import Provider
from wikimem.wiki import markdown
from wikimem.wiki.compile import topic_summary
from wikimem.wiki.pages import PROFILE_FILE, Wiki
from wikimem.wiki.render import render

MAX_LEAVES_LISTED = 30
# Full pages fill what the budget has left after the profile, topics and listing, in order of
# relevance: a small wiki (short profile and topic list) shows more of its relevant pages, so
# the prompt is about the same size whatever the size of the wiki.
MAX_LEAVES_IN_FULL = 12
QUERY_WORDS = 60
MAX_TOPIC_PAGES = 4
MAX_TOOLS = 12


@dataclass(frozen=True)
class LeafView:
    path: str
    title: str
    summary: str
    entries: tuple[str, ...]


@dataclass(frozen=True)
class PersonText:
    """A compiled page as the model sees it: its summary, what a person wrote (the text outside
    the generated markers) apart from what wikimem generated."""

    file: str
    summary: str
    person: str
    generated: str

    @property
    def chars(self) -> int:
        return len(self.file) + len(self.summary) + len(self.person) + len(self.generated)


@dataclass(frozen=True)
class WikiView:
    profile: str
    topics: tuple[tuple[str, str], ...]  # (name, summary)
    leaves: tuple[LeafView, ...]
    pages: tuple[tuple[str, str], ...]  # (wiki-relative file, full text)
    written: tuple[PersonText, ...] = ()  # PROFILE.md, then the relevant TOPIC.md pages
    homes: tuple[tuple[str, str, bool], ...] = ()  # (tool, its lessons' leaf, leaf exists)
    # (file, ids of its entries holding lines a person wrote since wikimem last wrote them)
    persons: tuple[tuple[str, tuple[str, ...]], ...] = ()
    provider: str = ""  # the memory provider whose view this is, when not the wiki
    memory: str = ""  # that provider's context for the runs

    def person_entries(self, file: str) -> tuple[str, ...]:
        return next((ids for path, ids in self.persons if path == file), ())

    @property
    def chars(self) -> int:
        return (
            len(self.profile)
            + sum(len(a) + len(b) for a, b in self.topics)
            + sum(len(p.path) + len(p.summary) + sum(map(len, p.entries)) for p in self.leaves)
            + sum(len(b) for _, b in self.pages)
            + sum(w.chars for w in self.written)
            + sum(len(a) + len(b) for a, b, _ in self.homes)
            + len(self.memory)
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


def tools_of(runs: Sequence[RunRecord]) -> list[str]:
    """The tools the runs' commands ran, in first-seen order, capped."""
    found: list[str] = []
    for run in runs:
        for item in run.evidence:
            tool = command_tool(item.command) if item.kind == "command" else ""
            if tool and tool not in found:
                found.append(tool)
    return found[:MAX_TOOLS]


def split_written(file: str, text: str, limit: int) -> PersonText:
    """A compiled page split into its summary, the person's words (outside the generated
    markers, frontmatter and title left out) and the generated block, cut to `limit`."""
    page = markdown.parse_page(text.replace("\r\n", "\n"))
    meta = page.meta if isinstance(page.meta, dict) else {}
    summary = one_line(str(meta.get("summary") or meta.get("about") or ""), 400)
    body = text.replace("\r\n", "\n")[len(page.frontmatter) :]
    span = markdown.generated_block(body)
    if span is None:
        person, generated = body, ""
    else:
        begin = body.rfind("\n", 0, max(span[0] - 1, 0)) + 1
        end = body.find("\n", span[1])
        person = body[:begin].strip() + "\n\n" + (body[end + 1 :].strip() if end >= 0 else "")
        generated = body[span[0] : span[1]].strip()
    lines = [line for line in person.strip().split("\n")]
    if lines and lines[0].startswith("# "):
        lines = lines[1:]  # the page's title, which the heading above names
    person = "\n".join(lines).strip()
    room = limit - len(summary)
    person = _cut(person, max(room // 2, room - len(generated))) if person else ""
    generated = _cut(generated, max(room - len(person), 0)) if generated else ""
    return PersonText(file, summary, person, generated)


def build_view(
    wiki: Wiki, budget: int, relevant: Sequence[str], tools: Sequence[str] = ()
) -> WikiView:
    """A bounded view of the wiki: cost depends on the budget, not on the wiki's size."""
    written: list[PersonText] = []
    profile = ""
    profile_page = wiki.read_page(PROFILE_FILE)
    if profile_page is not None:
        view = split_written(PROFILE_FILE, profile_page.render(), budget // 4)
        written.append(view)
        profile = view.generated
    left = budget - sum(w.chars for w in written)
    topics: list[tuple[str, str]] = []
    for name in wiki.topics():
        page = wiki.read_page(wiki.topic_file(name))
        summary = topic_summary(page.meta) if page and isinstance(page.meta, dict) else ""
        if left - len(name) - len(summary) < budget // 2:
            break
        topics.append((name, summary))
        left -= len(name) + len(summary)
    leaf_paths = list(wiki.leaves()) if tools else []
    homes = [
        (tool, leaf, leaf in leaf_paths) for tool, leaf in ((t, home(t, leaf_paths)) for t in tools)
    ]
    homes = [h for h in homes if left - len(h[0]) - len(h[1]) > budget // 3]
    left -= sum(len(a) + len(b) for a, b, _ in homes)
    wanted = [p.split("/", 1)[0] for p in [*relevant[:MAX_LEAVES_LISTED], *(h[1] for h in homes)]]
    for name in list(dict.fromkeys(wanted))[:MAX_TOPIC_PAGES]:
        page = wiki.read_page(wiki.topic_file(name))
        room = min(left - budget // 3, budget // 8)
        if page is None or room < 200:
            continue
        view = split_written(wiki.topic_file(name), page.render(), room)
        written.append(view)
        left -= view.chars
    leaves: list[LeafView] = []
    pages: list[tuple[str, str]] = []
    for path in relevant[:MAX_LEAVES_LISTED]:
        leaf = wiki.read_leaf(path)
        if leaf is None:
            continue
        view_ = LeafView(path, leaf.title, leaf.summary, tuple(e.id for e in leaf.page.entries))
        cost = len(path) + len(view_.summary) + sum(map(len, view_.entries)) + 10
        if cost > left:
            break
        leaves.append(view_)
        left -= cost
    for leaf_view in leaves[:MAX_LEAVES_IN_FULL]:
        if left < 400:
            break
        leaf = wiki.read_leaf(leaf_view.path)
        assert leaf is not None
        text = _cut(leaf.page.render().replace("\r\n", "\n"), left)
        pages.append((wiki.leaf_file(leaf_view.path), text))
        left -= len(text)
    return WikiView(
        profile, tuple(topics), tuple(leaves), tuple(pages), tuple(written), tuple(homes)
    )


def provider_view(provider: Provider, runs: Sequence[RunRecord], budget: int) -> WikiView:
    """The memory as another provider holds it, for the runs at hand: its context for their
    tasks and explicit candidates, at most `budget` characters; empty when it gives no
    context (the prompt then says so)."""
    parts = [run.task for run in runs]
    parts += [f"{c.path.replace('/', ' ')} {c.title}" for run in runs for c in run.memory]
    query = " ".join(" ".join(parts).split()[: QUERY_WORDS * 4])
    memory = provider.context(query, budget) if provider.capabilities().context else ""
    return WikiView("", (), (), (), provider=provider.name, memory=memory[: max(0, budget)])


# What a reader needs first: what was asked and how it ended; the evidence comes last.
LEADING = ("run_id", "task", "status", "result", "agent", "started_at", "ended_at", "memory")


def for_reading(run: RunRecord) -> dict[str, Any]:
    """A run's dict in reading order: the task and the result first, the record's other fields,
    then the evidence as a timeline whose every item carries its `step` number (from 1)."""
    data = run.to_dict()
    ordered = {key: data[key] for key in LEADING if key in data}
    rest = sorted(k for k in data if k not in ordered and k != "evidence")
    ordered.update((key, data[key]) for key in rest)
    ordered["evidence"] = [{"step": n, **item} for n, item in enumerate(data["evidence"], 1)]
    return ordered


def fence(runs: Sequence[RunRecord]) -> tuple[str, str]:
    """Runs as JSON between fences keyed by a digest of their content: JSON never holds a raw
    newline inside a string, so evidence cannot close the fence and speak as the prompt."""
    body = "\n".join(json.dumps(for_reading(run), ensure_ascii=False) for run in runs)
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
