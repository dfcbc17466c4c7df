"""Checking what memory cites against the workspace as it is now: files, lines, symbols,
scripts, targets; and which entries a change of the project touched.

A read path with no model, meant for CI (and the session-start hook, which leaves out entries
this finds broken). The rules for what counts as a path are in `citations`, for commands in
`commands`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from wikimem.recall.citations import (
    Workspace,
    check_path,
    check_path_line,
    check_path_symbol,
    cited_paths,
)
from wikimem.recall.commands import command_paths, commands
from wikimem.wiki.pages import Wiki

CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")

__all__ = ["Finding", "Workspace", "check_text", "touched", "verify"]


@dataclass(frozen=True)
class Finding:
    ref: str  # wiki path, or wiki path#entry
    message: str

    def line(self) -> str:
        return f"{self.ref}: {self.message}"


def pieces(text: str) -> Iterator[tuple[str, str]]:
    """The parts of an entry that can cite something: ("command", a fenced line or a code span
    with a space), ("word", a code span without one), ("link", a link target)."""
    fence = ""
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            else:
                yield "command", line
            continue
        if opened:
            fence = opened.group(1)
            continue
        for match in CODE.finditer(line):
            span = match.group(2).strip()
            yield ("command" if " " in span else "word"), span
        for match in LINK.finditer(CODE.sub("", line)):
            yield "link", match.group(1).split("#", 1)[0]


def check_text(text: str, ws: Workspace, page_dir: Path) -> Iterator[str]:
    """What is wrong in one entry body or page head (links may also be relative to the page)."""
    for kind, piece in pieces(text):
        if kind == "command":
            yield from commands(piece, ws)
        elif kind == "word":
            problem = (
                check_path_line(piece, ws)
                or check_path_symbol(piece, ws)
                or check_path(piece, ws)
                or next(commands(piece, ws), None)
            )
            if problem:
                yield problem
        elif piece and not (page_dir / piece).exists():
            problem = check_path(piece, ws)
            if problem:
                yield problem


def cited(text: str, ws: Workspace) -> set[str]:
    """The workspace paths one entry cites, whether or not they exist."""
    found: set[str] = set()
    for kind, piece in pieces(text):
        if kind == "link":
            rel = cited_paths(piece, ws)
            found.update([rel] if rel else [])
        else:
            found.update(command_paths(piece, ws))
    return found


def entries(wiki: Wiki) -> Iterator[tuple[str, str, Path]]:
    """(ref, text, page folder) of every page head and entry of the wiki."""
    for path in wiki.leaves():
        leaf = wiki.read_leaf(path)
        if leaf is None:
            continue
        page_dir = wiki.root / path
        yield path, leaf.page.head, page_dir
        for entry in leaf.page.entries:
            yield f"{path}#{entry.id}", entry.body, page_dir


def verify(wiki: Wiki, workspace: Path) -> list[Finding]:
    """Every cited file, line, symbol, script or target that no longer matches the workspace."""
    ws = Workspace(Path(workspace))
    return [
        Finding(ref, problem)
        for ref, text, page_dir in entries(wiki)
        for problem in dict.fromkeys(check_text(text, ws, page_dir))
    ]


def touched(wiki: Wiki, workspace: Path, changed: list[str], base: str) -> list[Finding]:
    """The entries citing a path that `changed` (workspace-relative paths a change touched)
    holds, or a folder holding one; a bare file name matches that name in any folder."""
    ws = Workspace(Path(workspace))
    names = {PurePosixPath(p).name for p in changed}
    found: list[Finding] = []
    for ref, text, _page_dir in entries(wiki):
        hits = sorted(
            rel
            for rel in cited(text, ws)
            if rel in changed
            or any(p.startswith(rel + "/") for p in changed)
            or ("/" not in rel and rel in names)
        )
        if hits:
            what = ", ".join(f"`{rel}`" for rel in hits)
            found.append(Finding(ref, f"cites {what}, changed since {base}"))
    return found
