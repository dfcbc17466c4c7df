"""Checking what memory cites against the workspace as it is now: files, lines, scripts, targets.

A read path with no model, meant for CI. It is conservative: a false alarm teaches people to
ignore it, so only what clearly names a file of the repository is checked (a `/` or a known
extension, not absolute, no glob or variable), commands only in the shapes listed in `commands`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wikimem.wiki.pages import Wiki

EXTENSIONS = frozenset(
    {
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "json",
        "toml",
        "yaml",
        "yml",
        "md",
        "rst",
        "sh",
        "bash",
        "zsh",
        "ps1",
        "go",
        "rs",
        "rb",
        "java",
        "kt",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "php",
        "swift",
        "sql",
        "lock",
        "lockb",
        "cfg",
        "ini",
        "txt",
        "html",
        "css",
        "scss",
        "vue",
        "svelte",
        "gradle",
        "xml",
        "dockerfile",
        "mk",
        "proto",
        "tf",
    }
)
NAMES = frozenset({"Makefile", "Dockerfile", "Justfile", "Procfile", "Gemfile", "Rakefile"})
SKIPPED_ROOTS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".git",
        "dist",
        "target",
        ".next",
        ".clarvis",
        ".tox",
        ".cache",
    }
)
RUNNERS = frozenset(
    {
        "bash",
        "sh",
        "zsh",
        "python",
        "python3",
        "node",
        "bun",
        "deno",
        "ruby",
        "perl",
        "tsx",
        "ts-node",
        "pwsh",
    }
)
WIKI_FILES = ("MEMORY.md", "TOPIC.md", "PROFILE.md", "memory-policy.md")
PACKAGE_TOOLS = frozenset({"npm", "bun", "pnpm", "yarn"})
MAX_FILES = 200_000

CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
PATH_LINE = re.compile(r"(?P<path>[^\s:]+):(?P<line>\d+)(?::\d+)?")
PATHISH = re.compile(r"(?:\./)?[\w.@+-]+(?:/[\w.@+-]+)*/?")
TARGET = re.compile(r"^([^\s:#=][^:=#]*?)\s*::?(?!=)", re.MULTILINE)


@dataclass(frozen=True)
class Finding:
    ref: str  # wiki path, or wiki path#entry
    message: str

    def line(self) -> str:
        return f"{self.ref}: {self.message}"


class Workspace:
    """The workspace being checked; the names of its files are listed once, when first asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._names: frozenset[str] | None = None

    def names(self) -> frozenset[str]:
        """Base names of the files in the workspace, for names cited without a folder."""
        if self._names is None:
            found: set[str] = set(WIKI_FILES)
            for _top, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if d not in SKIPPED_ROOTS]
                found.update(files)
                if len(found) > MAX_FILES:
                    break
            self._names = frozenset(found)
        return self._names


def extension_known(name: str) -> bool:
    base = name.rstrip("/").rsplit("/", 1)[-1]
    return base in NAMES or (
        "." in base.strip(".") and base.rsplit(".", 1)[1].lower() in EXTENSIONS
    )


def repo_path(text: str, ws: Workspace) -> str | None:
    """`text` as a workspace-relative path when it clearly names one, else None."""
    if not PATHISH.fullmatch(text) or text.startswith(("/", "~", "-")) or "://" in text:
        return None
    rel = text.removeprefix("./")
    first = rel.split("/", 1)[0]
    if first in SKIPPED_ROOTS or first in ("..", ".") or not rel:
        return None
    if "/" in rel.rstrip("/"):
        if extension_known(rel) or text.startswith("./") or (ws.root / first).is_dir():
            return rel
        return None
    return rel if extension_known(rel) else None


def check_path(text: str, ws: Workspace) -> str | None:
    rel = repo_path(text, ws)
    if rel is None:
        return None
    if "/" not in rel.rstrip("/") and not text.startswith("./"):
        return None if rel in ws.names() else f"`{text}` is not a file in the workspace"
    return None if (ws.root / rel).exists() else f"`{text}` does not exist"


def check_path_line(text: str, ws: Workspace) -> str | None:
    match = PATH_LINE.fullmatch(text)
    if match is None or repo_path(match["path"], ws) is None:
        return None
    path = ws.root / match["path"].removeprefix("./")
    if not path.is_file():
        return f"`{text}`: {match['path']} does not exist"
    with open(path, "rb") as handle:
        count = sum(1 for _ in handle)
    wanted = int(match["line"])
    return None if wanted <= count else f"`{text}`: {match['path']} has only {count} lines"


def segments(line: str) -> Iterator[list[str]]:
    """The simple commands of a shell line, as word lists (prompt and assignments dropped)."""
    line = line.strip().removeprefix("$ ")
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return
    current: list[str] = []
    for word in words + [";"]:
        if word in {"&&", "||", ";", "|", "&"}:
            while current and re.fullmatch(r"[A-Za-z_]\w*=.*", current[0]):
                current.pop(0)
            if current and current[0] == "sudo":
                current.pop(0)
            if current:
                yield current
            current = []
        else:
            current.append(word)


def commands(line: str, ws: Workspace) -> Iterator[str]:
    """What is wrong with the commands of one shell line, in the shapes this module knows."""
    cwd = ws.root
    for words in segments(line):
        tool, args = words[0], words[1:]
        if tool == "cd" and args:
            cwd = cwd / args[0]
            if not cwd.is_dir():
                return  # somewhere this check cannot follow
            continue
        yield from check_command(tool, args, ws, cwd)


def check_command(tool: str, args: list[str], ws: Workspace, cwd: Path) -> Iterator[str]:
    if tool.startswith("./") and extension_known(tool):
        if not (cwd / tool).exists():
            yield f"`{tool}` does not exist"
    elif tool in PACKAGE_TOOLS and len(args) >= 2 and args[0] in ("run", "run-script"):
        yield from check_script(tool, args[1], ws, cwd)
    elif tool in RUNNERS and args and "/" in args[0] and extension_known(args[0]):
        if repo_path(args[0], ws) and not (cwd / args[0]).exists():
            yield f"`{tool} {args[0]}`: {args[0]} does not exist"
    elif tool == "make":
        yield from check_make(args, cwd)


def check_script(tool: str, name: str, ws: Workspace, cwd: Path) -> Iterator[str]:
    if tool == "bun" and extension_known(name):
        if repo_path(name, ws) and not (cwd / name).exists():
            yield f"`bun run {name}`: {name} does not exist"
        return
    manifest = cwd / "package.json"
    if not manifest.is_file():
        return
    try:
        scripts = json.loads(manifest.read_text(encoding="utf-8")).get("scripts") or {}
    except (ValueError, OSError, AttributeError):
        return
    if isinstance(scripts, dict) and name not in scripts:
        where = (
            manifest.relative_to(ws.root).as_posix()
            if manifest.is_relative_to(ws.root)
            else "package.json"
        )
        yield f"`{tool} run {name}`: {where} has no script {name!r}"


def check_make(args: list[str], cwd: Path) -> Iterator[str]:
    targets = [a for a in args if not a.startswith("-") and "=" not in a]
    if not targets or any(a.startswith(("-C", "-f", "--directory", "--file")) for a in args):
        return
    makefile = next(
        (cwd / n for n in ("GNUmakefile", "makefile", "Makefile") if (cwd / n).is_file()), None
    )
    if makefile is None:
        return
    text = makefile.read_text(encoding="utf-8", errors="replace")
    if re.search(r"^\s*-?include\s|^[^#\n]*%[^=\n]*:", text, re.MULTILINE):
        return  # targets may come from elsewhere or from a pattern: cannot tell
    defined = {name for match in TARGET.finditer(text) for name in match[1].split()}
    for target in targets:
        if target not in defined:
            yield f"`make {target}`: {makefile.name} has no target {target!r}"


def check_text(text: str, ws: Workspace, page_dir: Path) -> Iterator[str]:
    """What is wrong in one entry body or page head (links may also be relative to the page)."""
    fence = ""
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            else:
                yield from commands(line, ws)
            continue
        if opened:
            fence = opened.group(1)
            continue
        for match in CODE.finditer(line):
            span = match.group(2).strip()
            if " " in span:
                yield from commands(span, ws)
            else:
                problem = (
                    check_path_line(span, ws)
                    or check_path(span, ws)
                    or next(commands(span, ws), None)
                )
                if problem:
                    yield problem
        for match in LINK.finditer(CODE.sub("", line)):
            target = match.group(1).split("#", 1)[0]
            if not target or (page_dir / target).exists():
                continue
            problem = check_path(target, ws)
            if problem:
                yield problem


def verify(wiki: Wiki, workspace: Path) -> list[Finding]:
    """Every cited file, line, script or target that no longer matches the workspace."""
    ws = Workspace(Path(workspace))
    findings: list[Finding] = []
    for path in wiki.leaves():
        leaf = wiki.read_leaf(path)
        if leaf is None:
            continue
        page_dir = wiki.root / path
        for problem in dict.fromkeys(check_text(leaf.page.head, ws, page_dir)):
            findings.append(Finding(path, problem))
        for entry in leaf.page.entries:
            for problem in dict.fromkeys(check_text(entry.body, ws, page_dir)):
                findings.append(Finding(f"{path}#{entry.id}", problem))
    return findings
