"""Compiled pages: each topic's TOPIC.md from its leaves, and PROFILE.md from the topics.

Only the text between the generated markers is ours; every other byte a person wrote survives.
A page is rewritten only when its generated text changes, so a rerun writes nothing.

A topic's summary is the one a person or the model set (`summary` in its frontmatter); until
there is one, `about` says what the topic's leaves hold, compiled from their summaries within
MAX_ABOUT characters and recompiled as leaves come and go.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.wiki import markdown
from wikimem.wiki.pages import PROFILE_FILE, Wiki, title_from_slug
from wikimem.wiki.render import render

MAX_ENTRIES_LISTED = 12
LISTED = 5  # names in one sentence of a topic's summary
MAX_ABOUT = 300


@dataclass(frozen=True)
class LeafLine:
    path: str  # relative to the topic folder
    title: str
    summary: str
    entries: tuple[tuple[str, str], ...]  # (id, title)
    more: int


@dataclass(frozen=True)
class TopicLine:
    name: str
    title: str
    summary: str
    leaves: int


def _write_generated(
    wiki: Wiki,
    relpath: str,
    content: str,
    meta_new: dict[str, str],
    heading: str,
    today: str,
    updates: dict[str, str],
) -> bool:
    """Put `content` in the page's generated block; create the page when missing."""
    page = wiki.read_page(relpath)
    if page is None:
        page = markdown.new_page({**meta_new, "updated": today}, heading)
        text = page.render()
    else:
        text = page.render()
    nl = page.newline
    body = content.replace("\n", nl) if nl != "\n" else content
    new_text = markdown.replace_generated(text, body, nl)
    if new_text == text and all(str(page.meta.get(k, "")) == v for k, v in updates.items()):
        return False
    new_page = markdown.parse_page(new_text)
    for key, value in updates.items():
        if str(new_page.meta.get(key, "")) != value:
            new_page = markdown.with_meta(new_page, key, value)
    new_page = markdown.with_meta(new_page, "updated", today)
    wiki.write(relpath, new_page.render())
    return True


def topic_lines(wiki: Wiki, topic: str) -> list[LeafLine]:
    lines = []
    for path in wiki.leaves(topic):
        leaf = wiki.read_leaf(path)
        if leaf is None:
            continue
        entries = tuple((e.id, e.title) for e in leaf.page.entries)
        lines.append(
            LeafLine(
                path=path.split("/", 1)[1],
                title=leaf.title,
                summary=leaf.summary,
                entries=entries[:MAX_ENTRIES_LISTED],
                more=max(len(entries) - MAX_ENTRIES_LISTED, 0),
            )
        )
    return lines


def about(leaves: list[LeafLine], cap: int = MAX_ABOUT) -> str:
    """What a topic's leaves hold, from their summaries: each a sentence, named by its leaf when
    the summary does not say it, as many as fit in `cap`, then how many more leaves. Summaries
    that say the same after their leaf's title are one sentence ("Bun, npm and Poetry failures
    and the fixes that worked.", not three that differ in their first word), naming at most
    LISTED of them ("… and 12 more failures and …")."""
    sentences: list[str] = []
    titles_by_tail: dict[str, list[str]] = {}
    for leaf in leaves:
        text = leaf.summary.strip() or leaf.title
        if leaf.title.lower() not in text.lower():
            text = f"{leaf.title}: {text}"
        text = text if text.endswith((".", "!", "?")) else text + "."
        head, tail = text[: len(leaf.title)], text[len(leaf.title) :]
        if head.lower() == leaf.title.lower() and tail.startswith(" ") and len(tail) > 1:
            if tail not in titles_by_tail:
                sentences.append(tail)  # its place, filled with the titles below
            titles_by_tail.setdefault(tail, []).append(head)
        else:
            sentences.append(text)
    # each sentence with the number of leaves it stands for
    counted = [
        (_listed(titles_by_tail[s]) + s, len(titles_by_tail[s])) if s in titles_by_tail else (s, 1)
        for s in sentences
    ]
    shown: list[str] = []
    for k, (sentence, _) in enumerate(counted):
        rest = sum(n for _, n in counted[k + 1 :])
        more = f" And {rest} more." if rest else ""
        if len(" ".join([*shown, sentence]) + more) > cap:
            left = sum(n for _, n in counted[k:])
            return " ".join([*shown, f"And {left} more."]) if shown else sentence[: cap - 1] + "…"
        shown.append(sentence)
    return " ".join(shown)


def _listed(names: list[str]) -> str:
    if len(names) > LISTED:
        return f"{', '.join(names[:LISTED])} and {len(names) - LISTED} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def topic_summary(meta: Mapping[str, Any]) -> str:
    """The summary a topic shows: the one set by a person or the model, else `about`."""
    return str(meta.get("summary") or meta.get("about") or "")


def topic_block(
    wiki: Wiki, topic: str, summary: str | None = None, overrides: Path | None = None
) -> tuple[str, str, int]:
    """(generated text, summary shown, leaf count) that TOPIC.md should hold now."""
    page = wiki.read_page(wiki.topic_file(topic))
    leaves = topic_lines(wiki, topic)
    # The page's own summary heads the block; `about` is not repeated there, since the leaves
    # listed under it carry the same summaries.
    shown = summary or (str(page.meta.get("summary") or "") if page else "")
    return render("topic.md.j2", overrides, summary=shown, leaves=leaves), shown, len(leaves)


def compile_topic(
    wiki: Wiki, topic: str, today: str, summary: str | None = None, overrides: Path | None = None
) -> str | None:
    """Recompile one TOPIC.md; return its wiki-relative path when it changed."""
    relpath = wiki.topic_file(topic)
    page = wiki.read_page(relpath)
    content, _, count = topic_block(wiki, topic, summary, overrides)
    updates = {"leaves": str(count), "about": about(topic_lines(wiki, topic))}
    if summary:
        updates["summary"] = summary
    title = (page.title if page else "") or title_from_slug(topic)
    meta_new = {"title": title, "leaves": str(count)}
    if summary:
        meta_new["summary"] = summary
    meta_new["about"] = updates["about"]
    changed = _write_generated(wiki, relpath, content, meta_new, title, today, updates)
    return relpath if changed else None


def profile_topics(wiki: Wiki) -> list[TopicLine]:
    lines = []
    for topic in wiki.topics():
        page = wiki.read_page(wiki.topic_file(topic))
        if page is None:
            continue
        try:
            count = int(str(page.meta.get("leaves", "0")))
        except ValueError:
            count = 0
        lines.append(
            TopicLine(
                topic,
                page.title or title_from_slug(topic),
                topic_summary(page.meta),
                count,
            )
        )
    return lines


def profile_block(wiki: Wiki, cap: int, overrides: Path | None = None) -> str:
    """The generated text PROFILE.md should hold now, within `cap` characters."""
    topics = profile_topics(wiki)
    content = render("profile.md.j2", overrides, topics=topics, more=0)
    if len(content) <= cap or not topics:
        return content[:cap]

    def cut(shown: int) -> str:
        return render("profile.md.j2", overrides, topics=topics[:shown], more=len(topics) - shown)

    # The most topics that fit: the length grows with every topic shown, so bisect rather
    # than render once per topic dropped (quadratic on a wiki with hundreds of topics).
    low, high = 0, len(topics) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if len(cut(middle)) <= cap:
            low = middle
        else:
            high = middle - 1
    return cut(low)[:cap]


def compile_profile(
    wiki: Wiki, today: str, cap: int, workspace_name: str, overrides: Path | None = None
) -> str | None:
    """Regenerate PROFILE.md's index within `cap` characters; return its path when changed."""
    content = profile_block(wiki, cap, overrides)
    changed = _write_generated(
        wiki,
        PROFILE_FILE,
        content,
        {"title": workspace_name, "summary": "Project memory kept by wikimem."},
        workspace_name,
        today,
        {},
    )
    return PROFILE_FILE if changed else None
