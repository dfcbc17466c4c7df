"""Lint: what is wrong with the wiki as files, reported as `file:line: message`.

A read path usable as a pre-commit hook: broken relative links, pages without frontmatter,
leaves without a summary, stale generated blocks, names that are not slugs (the pages under such
a name are still checked), entries whose headings give the same id, memory past its review or
expiry date.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wikimem.errors import WikiError
from wikimem.wiki import markdown
from wikimem.wiki.compile import profile_block, topic_block
from wikimem.wiki.edit import SLUG
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, TOPIC_FILE, Wiki

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


@dataclass(frozen=True)
class Problem:
    file: str  # wiki-relative
    line: int
    message: str

    def format(self, prefix: str = "") -> str:
        return f"{prefix}{self.file}:{self.line}: {self.message}"


def _links(text: str) -> Iterator[tuple[int, str]]:
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            yield number, match.group(1)


def _check_link(wiki: Wiki, file: str, target: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
        return None
    path, _, anchor = target.partition("#")
    resolved = (wiki.root / file).parent / path
    try:
        inside = os.path.normpath(resolved).startswith(os.path.normpath(wiki.root))
    except ValueError:
        inside = False
    if not resolved.exists():
        return f"broken link to {target}"
    if not inside:
        return f"link to {target} leaves the wiki"
    if anchor and resolved.name == LEAF_FILE:
        page = markdown.parse_page(resolved.read_text(encoding="utf-8", errors="replace"))
        if page.entry(anchor) is None:
            return f"broken link to {target}: no such entry"
    return None


def _dates(meta: dict, today: str) -> list[str]:
    found = []
    for key, word in (("expires", "expired"), ("review-by", "due for review")):
        value = str(meta.get(key) or "")
        if value and value <= today:
            found.append(f"{word} ({key}: {value})")
    return found


def lint_page(wiki: Wiki, file: str, today: str) -> Iterator[Problem]:
    try:
        page = wiki.read_page(file)
    except (WikiError, UnicodeDecodeError) as exc:
        yield Problem(file, 1, str(exc))
        return
    if page is None:
        return
    if not page.frontmatter:
        yield Problem(file, 1, "page has no frontmatter")
    elif page.frontmatter_error:
        yield Problem(file, 1, f"frontmatter is not valid YAML: {page.frontmatter_error}")
    if file.endswith(LEAF_FILE) and not str(page.meta.get("summary") or "").strip():
        yield Problem(file, 1, "leaf has no summary")
    for message in _dates(dict(page.meta), today):
        yield Problem(file, 1, f"leaf {message}")
    holder = {entry.id: entry.line for entry in page.entries}
    for entry in page.entries:
        slug = markdown.slugify(entry.title)
        if entry.id != slug and slug in holder:
            # the id depends on the order of the page: it changes when the other entry goes
            yield Problem(
                file,
                entry.line,
                f"duplicate entry id {slug!r} (also line "
                f"{holder[slug]}): this entry is #{entry.id} for now; rename it",
            )
        for message in _dates(dict(entry.meta), today):
            yield Problem(file, entry.line, f"entry {entry.id} {message}")
    for number, target in _links(page.render()):
        problem = _check_link(wiki, file, target)
        if problem:
            yield Problem(file, number, problem)


def _stale(wiki: Wiki, file: str, expected: str) -> Iterator[Problem]:
    text = (wiki.root / file).read_text(encoding="utf-8", errors="replace")
    span = markdown.generated_block(text)
    if span is None:
        yield Problem(file, 1, "no generated block (<!-- wikimem:begin --> ... end)")
        return
    current = text[span[0] : span[1]].replace("\r\n", "\n")
    if current.strip() != expected.strip():
        line = text[: span[0]].count("\n") + 1
        yield Problem(
            file, line, "generated block is stale (run `wikimem index` or `wikimem lint --fix`)"
        )


def lint(
    wiki: Wiki, profile_cap: int, today: str | None = None, overrides: Path | None = None
) -> list[Problem]:
    today = today or _dt.date.today().isoformat()
    problems: list[Problem] = []
    if not (wiki.root / PROFILE_FILE).is_file():
        return [Problem(PROFILE_FILE, 1, "missing: run `wikimem init`")]
    problems.extend(lint_page(wiki, PROFILE_FILE, today))
    problems.extend(_stale(wiki, PROFILE_FILE, profile_block(wiki, profile_cap, overrides)))
    for folder, dirs, files in os.walk(wiki.root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = Path(folder).relative_to(wiki.root).as_posix()
        for name in dirs:
            if not SLUG.match(name):
                where = f"{rel}/{name}" if rel != "." else name
                problems.append(Problem(where, 1, "folder name is not a lowercase slug"))
        if rel == ".":
            continue
        for name in sorted(files):
            # also under a badly named folder: its name is one problem, the page's are others
            if name in (LEAF_FILE, TOPIC_FILE):
                problems.extend(lint_page(wiki, f"{rel}/{name}", today))
        if TOPIC_FILE in files and "/" not in rel and SLUG.match(rel):
            expected, _, _ = topic_block(wiki, rel, None, overrides)
            problems.extend(_stale(wiki, f"{rel}/{TOPIC_FILE}", expected))
        elif "/" not in rel and SLUG.match(rel) and not (Path(folder) / TOPIC_FILE).exists():
            problems.append(Problem(f"{rel}/{TOPIC_FILE}", 1, "topic has no TOPIC.md"))
    return sorted(problems, key=lambda p: (p.file, p.line, p.message))
