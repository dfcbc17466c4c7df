"""Lint: what is wrong with the wiki as files, reported as `file:line: message [rule]`.

A read path usable as a pre-commit hook: broken relative links, pages without frontmatter,
leaves without a summary, stale generated blocks, text `wikimem sync` kept from both sides of a
conflict, names that are not slugs (the pages under such a name are still checked), entries
whose headings give the same id, memory past its review or expiry date, bytes that are not
UTF-8 (on each line holding them), and pages or folders it cannot read (a symlink, a loop, a
permission): each is one problem, and the lint goes on with the rest. Every rule is linear in
the page.

Every problem carries a rule id from RULES, stable for scripts and CI (`wikimem lint --json`).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from wikimem.errors import WikiError
from wikimem.wiki import markdown
from wikimem.wiki.compile import profile_block, topic_block
from wikimem.wiki.edit import SLUG
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, TOPIC_FILE, Wiki

RULES = {
    "missing-profile": "the wiki has no PROFILE.md",
    "unreadable": "a page or folder that cannot be read",
    "symlink": "a page or folder that is a symlink (wikimem never reads or writes through one)",
    "no-frontmatter": "a page without YAML frontmatter",
    "bad-frontmatter": "frontmatter that is not valid YAML",
    "no-summary": "a leaf without a summary",
    "expired": "memory past its `expires` date",
    "review-due": "memory past its `review-by` date",
    "duplicate-entry-id": "two entries whose headings give the same id",
    "broken-link": "a relative link to a file or entry that does not exist",
    "link-leaves-wiki": "a relative link to a file outside the project",
    "no-generated-block": "a TOPIC.md or PROFILE.md without its generated block",
    "stale-block": "a generated block that differs from what compiling gives now",
    "not-a-slug": "a folder name that is not a lowercase slug",
    "no-topic-page": "a topic folder without TOPIC.md",
    "sync-conflict": "text two machines changed differently, kept both ways by `wikimem sync`",
    "not-utf8": "bytes that are not UTF-8 (kept as they are; sent to a model as U+FFFD)",
}
# How to fix each rule's problem, naming the command that does it ({file}: the page or folder,
# as the report names it). A rule whose message already names its command (IN_MESSAGE) prints
# no second line; `--json` gives every problem its `fix`.
FIXES = {
    "missing-profile": "`wikimem init`",
    "unreadable": "`chmod u+rX {file}` (`ls -l {file}` shows who may read it)",
    "symlink": "`ls -l {file}` shows where it points: put the real file or folder in its place",
    "no-frontmatter": "`$EDITOR {file}`: start it with `---`, `title: ...`, `summary: ...`, `---`",
    "bad-frontmatter": "`$EDITOR {file}`: make the lines between the two `---` valid YAML",
    "no-summary": "`$EDITOR {file}`: add `summary: <one line>` to its frontmatter",
    "expired": "`wikimem compact`",
    "review-due": "`$EDITOR {file}`: confirm it and move `review-by` on, or `wikimem forget` it",
    "duplicate-entry-id": "`$EDITOR {file}`: give one of the two headings another title",
    "broken-link": "`$EDITOR {file}`: point the link at a file or entry that exists, or drop it",
    "link-leaves-wiki": "`$EDITOR {file}`: link a file inside the project, or name it as text",
    "no-generated-block": "`wikimem lint --fix`",
    "stale-block": "`wikimem lint --fix`",
    "not-a-slug": "`mv {file} <lowercase-slug>` (a-z, 0-9, dashes), then `wikimem lint --fix`",
    "no-topic-page": "`wikimem lint --fix`",
    "sync-conflict": "`$EDITOR {file}`: keep what is right of both versions, delete the notes",
    "not-utf8": "`$EDITOR {file}`: save it as UTF-8",
}
IN_MESSAGE = frozenset(
    {"missing-profile", "expired", "no-generated-block", "stale-block", "no-topic-page"}
)
# Rules that depend on the date: a commit that passes today must not fail tomorrow because time
# passed, so they warn unless `lint --strict` asks for them to fail.
WARNINGS = frozenset({"expired", "review-due"})
# What reading a page can raise besides WikiError: a permission, a symlink loop (RuntimeError
# from Path.resolve), bytes that are not text.
UNREADABLE = (WikiError, OSError, RuntimeError, UnicodeDecodeError)

# Linear in the line: neither the text nor the target may hold a bracket of its own kind, so
# each attempt stops at the next one (400,000 `[` took 109 s when the text could run on).
LINK = re.compile(r"(?<!!)\[[^\[\]\n]*\]\(([^()\s]+)(?:\s+\"[^\"\n]*\")?\)")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
# What opens the text `wikimem sync` kept from both sides of a conflict (lifecycle/merge.py).
SYNC_NOTE = "sync conflict to settle"
# in frontmatter the note is a YAML comment: `# <!-- sync conflict to settle ... -->`
SYNC_CONFLICT = re.compile(rf"^[ \t]*(?:#[ \t]*)?<!--[ \t]*{SYNC_NOTE}\b")


@dataclass(frozen=True)
class Problem:
    file: str  # wiki-relative
    line: int
    rule: str  # a key of RULES
    message: str

    @property
    def level(self) -> str:
        return "warning" if self.rule in WARNINGS else "error"

    def fix(self, prefix: str = "") -> str:
        """The command that fixes this problem (FIXES)."""
        return FIXES[self.rule].format(file=shlex.quote(prefix + self.file))

    def format(self, prefix: str = "") -> str:
        """`file:line: message [rule]`, then `  fix: COMMAND` unless the message names it."""
        level = "warning: " if self.rule in WARNINGS else ""
        line = f"{prefix}{self.file}:{self.line}: {level}{self.message} [{self.rule}]"
        return line if self.rule in IN_MESSAGE else f"{line}\n  fix: {self.fix(prefix)}"

    def as_dict(self, prefix: str = "") -> dict[str, object]:
        return {
            "rule": self.rule,
            "level": self.level,
            "file": prefix + self.file,
            "line": self.line,
            "message": self.message,
            "fix": self.fix(prefix),
        }


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


def _check_link(wiki: Wiki, file: str, target: str) -> tuple[str, str] | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
        return None
    path, _, anchor = target.partition("#")
    resolved = (wiki.root / file).parent / path
    # an entry may cite the project's own files (the workspace holds .clarvis/memory)
    project = wiki.root.parent.parent
    try:
        inside = os.path.commonpath([os.path.normpath(resolved), project]) == str(project)
    except ValueError:
        inside = False
    if not inside:
        return "link-leaves-wiki", f"link to {target} leaves the project"
    if not resolved.exists():
        return "broken-link", f"broken link to {target}"
    if anchor and resolved.name == LEAF_FILE:
        try:
            text = resolved.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None  # the page's own lint says it cannot be read
        if markdown.parse_page(text).entry(anchor) is None:
            return "broken-link", f"broken link to {target}: no such entry"
    return None


def _dates(meta: dict, today: str) -> list[tuple[str, str]]:
    found = []
    for key, word, rule, fix in (
        ("expires", "expired", "expired", "`wikimem compact` retires it"),
        ("review-by", "due for review", "review-due", "confirm it and move review-by on"),
    ):
        value = str(meta.get(key) or "")
        if value and value <= today:
            found.append((rule, f"{word} ({key}: {value}; {fix})"))
    return found


def lint_page(wiki: Wiki, file: str, today: str) -> Iterator[Problem]:
    try:
        page = wiki.read_page(file)
    except UNREADABLE as exc:
        yield unreadable(file, exc)
        return
    if page is None:
        return
    if not page.frontmatter:
        yield Problem(file, 1, "no-frontmatter", "page has no frontmatter")
    elif page.frontmatter_error:
        yield Problem(
            file, 1, "bad-frontmatter", f"frontmatter is not valid YAML: {page.frontmatter_error}"
        )
    if file.endswith(LEAF_FILE) and not str(page.meta.get("summary") or "").strip():
        yield Problem(file, 1, "no-summary", "leaf has no summary")
    for rule, message in _dates(dict(page.meta), today):
        yield Problem(file, 1, rule, f"leaf {message}")
    holder = {entry.id: entry.line for entry in page.entries}
    for entry in page.entries:
        slug = markdown.slugify(entry.title)
        if entry.id != slug and slug in holder:
            # the id depends on the order of the page: it changes when the other entry goes
            yield Problem(
                file,
                entry.line,
                "duplicate-entry-id",
                f"duplicate entry id {slug!r} (also line "
                f"{holder[slug]}): this entry is #{entry.id} for now; rename it",
            )
        for rule, message in _dates(dict(entry.meta), today):
            yield Problem(file, entry.line, rule, f"entry {entry.id} {message}")
    text = page.render()
    yield from _undecodable(file, text)
    for number, line in enumerate(text.splitlines(), 1):
        if SYNC_CONFLICT.match(line):
            yield Problem(
                file,
                number,
                "sync-conflict",
                "sync conflict to settle: keep what is right of both versions, "
                "then delete the two notes",
            )
    for number, target in _links(text):
        problem = _check_link(wiki, file, target)
        if problem:
            yield Problem(file, number, *problem)


UNDECODABLE = re.compile("[\udc80-\udcff]+")  # bytes read as surrogate escapes (fsio.read_text)
UNDECODABLE_LINES = 20  # lines reported one by one; the rest are counted in the last


def _undecodable(file: str, text: str) -> Iterator[Problem]:
    """Each line holding bytes that are not UTF-8, wherever it is (frontmatter or body)."""
    lines: dict[int, str] = {}  # line number -> the undecodable bytes on it
    number, at = 1, 0
    for match in UNDECODABLE.finditer(text):
        number += text.count("\n", at, match.start())  # one pass over the text in all
        at = match.start()
        lines[number] = (lines.get(number, "") + match.group())[:8]
    for n, (number, found) in enumerate(lines.items()):
        if n == UNDECODABLE_LINES:
            more = f"{len(lines) - n} more lines with bytes that are not UTF-8"
            yield Problem(file, number, "not-utf8", more)
            return
        shown = " ".join(f"\\x{ord(c) - 0xDC00:02x}" for c in found[:8])
        yield Problem(file, number, "not-utf8", f"bytes that are not UTF-8 ({shown})")


def unreadable(file: str, exc: BaseException) -> Problem:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return Problem(file, 1, "unreadable", f"cannot read: {reason}")


def _stale(wiki: Wiki, file: str, expected: Callable[[], str]) -> Iterator[Problem]:
    try:
        text = (wiki.root / file).read_text(encoding="utf-8", errors="replace")
        want = expected()
    except UNREADABLE:
        return  # the page's own lint, or its leaves', says what cannot be read
    span = markdown.generated_block(text)
    if span is None:
        yield Problem(
            file,
            1,
            "no-generated-block",
            "no generated block (<!-- wikimem:begin --> ... end; `wikimem lint --fix` adds it)",
        )
        return
    current = text[span[0] : span[1]].replace("\r\n", "\n")
    if current.strip() != want.strip():
        line = text[: span[0]].count("\n") + 1
        yield Problem(
            file,
            line,
            "stale-block",
            "generated block is stale (run `wikimem lint --fix`)",
        )


def lint(
    wiki: Wiki, profile_cap: int, today: str | None = None, overrides: Path | None = None
) -> list[Problem]:
    today = today or _dt.date.today().isoformat()
    profile = wiki.root / PROFILE_FILE
    if profile.is_symlink():
        return [_symlink(PROFILE_FILE)]
    if not profile.is_file():
        return [Problem(PROFILE_FILE, 1, "missing-profile", "missing: run `wikimem init`")]
    problems = list(lint_page(wiki, PROFILE_FILE, today))
    problems.extend(_stale(wiki, PROFILE_FILE, lambda: profile_block(wiki, profile_cap, overrides)))
    for folder, dirs, files in os.walk(
        wiki.root, onerror=lambda e: problems.append(_walk(wiki, e))
    ):
        rel = Path(folder).relative_to(wiki.root).as_posix()
        for name in sorted(d for d in dirs if not d.startswith(".")):
            if os.path.islink(os.path.join(folder, name)):
                problems.append(_symlink(_under(rel, name)))
            elif not SLUG.match(name):
                problems.append(
                    Problem(
                        _under(rel, name), 1, "not-a-slug", "folder name is not a lowercase slug"
                    )
                )
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d))
        )
        if rel == ".":
            continue
        pages = [name for name in sorted(files) if name in (LEAF_FILE, TOPIC_FILE)]
        for name in pages:
            # also under a badly named folder: its name is one problem, the page's are others
            if os.path.islink(os.path.join(folder, name)):
                problems.append(_symlink(_under(rel, name)))
            else:
                problems.extend(lint_page(wiki, _under(rel, name), today))
        is_topic = "/" not in rel and SLUG.match(rel)
        if (
            is_topic
            and TOPIC_FILE in pages
            and not os.path.islink(os.path.join(folder, TOPIC_FILE))
        ):
            problems.extend(
                _stale(
                    wiki,
                    _under(rel, TOPIC_FILE),
                    partial(_topic_text, wiki, rel, overrides),
                )
            )
        elif is_topic and TOPIC_FILE not in pages:
            problems.append(
                Problem(
                    _under(rel, TOPIC_FILE),
                    1,
                    "no-topic-page",
                    "topic has no TOPIC.md (`wikimem lint --fix` writes it)",
                )
            )
    return sorted(problems, key=lambda p: (p.file, p.line, p.rule, p.message))


def _topic_text(wiki: Wiki, topic: str, overrides: Path | None) -> str:
    return topic_block(wiki, topic, None, overrides)[0]


def _under(rel: str, name: str) -> str:
    return name if rel == "." else f"{rel}/{name}"


def _symlink(file: str) -> Problem:
    return Problem(file, 1, "symlink", "a symlink: wikimem neither reads nor writes through it")


def _walk(wiki: Wiki, error: OSError) -> Problem:
    """A folder os.walk could not list."""
    where = Path(error.filename or wiki.root)
    rel = where.relative_to(wiki.root).as_posix() if where.is_relative_to(wiki.root) else "."
    return unreadable(rel, error)
