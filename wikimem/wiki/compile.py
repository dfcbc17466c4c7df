"""Compiled pages: each topic's TOPIC.md from its leaves, and PROFILE.md from the topics.

Only the text between the generated markers is ours; every other byte a person wrote survives.
A page is rewritten only when its generated text changes, so a rerun writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikimem.wiki import markdown
from wikimem.wiki.pages import PROFILE_FILE, Wiki, title_from_slug
from wikimem.wiki.render import render

MAX_ENTRIES_LISTED = 12
MARKER_BEGIN = "<!-- wikimem:begin -->"
MARKER_END = "<!-- wikimem:end -->"


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


def topic_block(
    wiki: Wiki, topic: str, summary: str | None = None, overrides: Path | None = None
) -> tuple[str, str, int]:
    """(generated text, summary, leaf count) that TOPIC.md should hold now."""
    page = wiki.read_page(wiki.topic_file(topic))
    leaves = topic_lines(wiki, topic)
    summary = summary or (str(page.meta.get("summary") or "") if page else "")
    if not summary and len(leaves) == 1:
        summary = leaves[0].summary  # a one-leaf topic is what its leaf is about
    return render("topic.md.j2", overrides, summary=summary, leaves=leaves), summary, len(leaves)


def compile_topic(
    wiki: Wiki, topic: str, today: str, summary: str | None = None, overrides: Path | None = None
) -> str | None:
    """Recompile one TOPIC.md; return its wiki-relative path when it changed."""
    relpath = wiki.topic_file(topic)
    page = wiki.read_page(relpath)
    content, summary, count = topic_block(wiki, topic, summary, overrides)
    updates = {"leaves": str(count)}
    if summary:
        updates["summary"] = summary
    title = (page.title if page else "") or title_from_slug(topic)
    changed = _write_generated(
        wiki,
        relpath,
        content,
        {"title": title, "summary": summary, "leaves": str(count)},
        title,
        today,
        updates,
    )
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
                str(page.meta.get("summary") or ""),
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
