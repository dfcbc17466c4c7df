"""What memory cites that names a file of the workspace: paths, `path:line`, `path::symbol`.

Conservative: a false alarm teaches people to ignore `wikimem verify`, so only what clearly names
a file of the repository counts (a `/` or a known extension, not absolute, no glob or variable).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

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

PATH_LINE = re.compile(r"(?P<path>[^\s:]+):(?P<line>\d+)(?::\d+)?")
PATHISH = re.compile(r"(?:\./)?[\w.@+-]+(?:/[\w.@+-]+)*/?")
TARGET = re.compile(r"^([^\s:#=][^:=#]*?)\s*::?(?!=)", re.MULTILINE)


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


PATH_SYMBOL = re.compile(r"(?P<path>[^\s:]+)(?P<sep>::?)(?P<symbols>[A-Za-z_]\w*(?:::[\w\[\]-]+)*)")
DEFINES = r"^\s*(?:export\s+)?(?:pub\s+)?(?:async\s+)?(?:def|class|func|fn|function|struct)\s+{}\b"


def check_path_symbol(text: str, ws: Workspace) -> str | None:
    """`tests/test_x.py::test_y` (a test id) or `src/app.py:main`: the file must exist and, for
    a test id, define each name; for `path:name`, mention it."""
    match = PATH_SYMBOL.fullmatch(text)
    if match is None or repo_path(match["path"], ws) is None:
        return None
    if not extension_known(match["path"]):
        return None
    path = ws.root / match["path"].removeprefix("./")
    if not path.is_file():
        return f"`{text}`: {match['path']} does not exist"
    source = path.read_text(encoding="utf-8", errors="replace")
    for symbol in match["symbols"].split("::"):
        symbol = symbol.split("[", 1)[0]
        if match["sep"] == "::":
            found = re.search(DEFINES.format(re.escape(symbol)), source, re.MULTILINE)
        else:
            found = re.search(rf"\b{re.escape(symbol)}\b", source)
        if not found:
            return f"`{text}`: {match['path']} has no {symbol!r}"
    return None


def cited_paths(word: str, ws: Workspace) -> str | None:
    """The workspace path one word names, with any `:line` or `::symbol` removed."""
    name = re.split(r"::|:(?=\d|[A-Za-z_])", word, maxsplit=1)[0]
    rel = repo_path(name, ws)
    if rel is None or ("/" not in rel.rstrip("/") and rel not in ws.names()):
        return None
    return rel.rstrip("/")
