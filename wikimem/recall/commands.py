"""The shell commands memory cites, checked against the workspace: scripts run by path, test
files and test ids given to pytest, jest, vitest, `go test` and `bun test`, cargo targets,
make targets, npm/pnpm/yarn/bun scripts. Wrappers (`sudo`, `env`, `VAR=value`) and launchers
(`uv run`, `poetry run`, `npx`, `python -m pytest`) are looked through to the tool they run.
Only the shapes listed here are checked; anything else is taken as fine.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from wikimem.recall.citations import (
    DEFINES,
    PACKAGE_TOOLS,
    RUNNERS,
    SKIPPED_ROOTS,
    TARGET,
    Workspace,
    cited_paths,
    extension_known,
    repo_path,
)

WRAPPERS = frozenset({"sudo", "env", "time", "command", "exec", "nice", "nohup"})
# Launchers that run the command after them: (tool, subcommand) and the options taking a value.
LAUNCHERS = {
    ("uv", "run"): {"--with", "--python", "-p", "--extra", "--group", "--package", "--env-file"},
    ("poetry", "run"): set(),
    ("pipenv", "run"): set(),
    ("pdm", "run"): set(),
    ("hatch", "run"): set(),
    ("pnpm", "exec"): set(),
    ("yarn", "exec"): set(),
    ("npm", "exec"): set(),
}
SHIMS = frozenset({"npx", "bunx", "uvx"})
# Commands a package manager runs as itself, not as a script of package.json.
PNPM_COMMANDS = frozenset(
    [
        "add",
        "i",
        "install",
        "update",
        "up",
        "upgrade",
        "remove",
        "rm",
        "uninstall",
        "link",
        "ln",
        "unlink",
        "import",
        "rebuild",
        "rb",
        "prune",
        "fetch",
        "patch",
        "patch-commit",
        "audit",
        "list",
        "ls",
        "outdated",
        "why",
        "exec",
        "dlx",
        "create",
        "init",
        "publish",
        "pack",
        "store",
        "env",
        "setup",
        "config",
        "c",
        "server",
        "root",
        "bin",
        "licenses",
        "deploy",
        "doctor",
        "help",
        "self-update",
        "dedupe",
    ]
)
YARN_COMMANDS = PNPM_COMMANDS | frozenset(
    [
        "workspace",
        "workspaces",
        "set",
        "info",
        "cache",
        "npm",
        "plugin",
        "constraints",
        "version",
        "node",
        "check",
        "global",
        "generate-lock-entry",
        "login",
        "logout",
        "owner",
        "team",
        "tag",
        "policies",
        "autoclean",
        "explain",
        "search",
        "stage",
        "unplug",
    ]
)
SHORTHAND = {"pnpm": PNPM_COMMANDS, "yarn": YARN_COMMANDS}  # `pnpm X` runs script X
# Tools of node_modules/.bin people run through `yarn X`, `pnpm X` or `bun run X`.
PACKAGE_BINS = frozenset(
    [
        "tsc",
        "jest",
        "vitest",
        "eslint",
        "prettier",
        "next",
        "vite",
        "tsx",
        "webpack",
        "playwright",
        "cypress",
        "turbo",
        "nx",
        "lerna",
        "changeset",
        "biome",
        "astro",
        "nuxt",
        "ng",
        "react-scripts",
        "rollup",
        "esbuild",
        "mocha",
        "ava",
        "tap",
        "nodemon",
        "ts-node",
        "stylelint",
        "svelte-kit",
        "prisma",
        "drizzle-kit",
        "wrangler",
        "expo",
        "electron",
        "tailwindcss",
        "knip",
    ]
)
MAKE_VALUED = frozenset({"-j", "-l", "-o", "-W", "--jobs", "--load-average"})
# pytest options whose value is the next word (so it is not taken for a path).
PYTEST_VALUED = frozenset(
    {
        "-k",
        "-m",
        "-n",
        "-p",
        "-o",
        "-W",
        "--maxfail",
        "--durations",
        "--tb",
        "--dist",
        "--numprocesses",
    }
)
NAME = re.compile(r"[A-Za-z_]\w*")
ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=.*")


def segments(line: str) -> Iterator[list[str]]:
    """The simple commands of a shell line, as word lists (prompt and `VAR=value` prefixes
    dropped)."""
    line = line.strip().removeprefix("$ ")
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return
    current: list[str] = []
    for word in words + [";"]:
        if word in {"&&", "||", ";", "|", "&"}:
            while current and ASSIGNMENT.fullmatch(current[0]):
                current.pop(0)
            if current:
                yield current
            current = []
        else:
            current.append(word)


def unwrap(words: list[str]) -> list[str]:
    """The command a wrapper or launcher runs: `sudo`, `env A=1`, `uv run`, `poetry run`, `npx`,
    `python -m pytest` and the like removed, so what remains is the tool itself."""
    while words:
        tool = words[0]
        if tool in WRAPPERS:
            words = words[1:]
            while words and (ASSIGNMENT.fullmatch(words[0]) or words[0].startswith("-")):
                words = words[1:]
        elif ASSIGNMENT.fullmatch(tool):
            words = words[1:]
        elif len(words) > 1 and (tool, words[1]) in LAUNCHERS:
            valued = LAUNCHERS[(tool, words[1])]
            rest = words[2:]
            while rest and rest[0].startswith("-"):
                rest = rest[2:] if rest[0] in valued else rest[1:]
            words = rest
        elif tool in SHIMS:
            words = [w for w in words[1:2] if not w.startswith("-")] + words[2:]
        elif tool in ("python", "python3") and words[1:3] == ["-m", "pytest"]:
            words = ["pytest", *words[3:]]
        else:
            return words
    return words


def commands(line: str, ws: Workspace) -> Iterator[str]:
    """What is wrong with the commands of one shell line, in the shapes this module knows."""
    cwd = ws.root
    for words in segments(line):
        words = unwrap(words)
        if not words:
            continue
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
    elif tool in PACKAGE_TOOLS:
        yield from check_package_tool(tool, args, ws, cwd)
    elif tool in RUNNERS and args and "/" in args[0] and extension_known(args[0]):
        if repo_path(args[0], ws) and not (cwd / args[0]).exists():
            yield f"`{tool} {args[0]}`: {args[0]} does not exist"
    elif tool == "make":
        yield from check_make(args, cwd)
    elif tool == "pytest":
        yield from check_pytest(args, ws, cwd)
    elif tool in ("jest", "vitest"):
        files = [a for a in args if a not in ("run", "watch") and not a.startswith("-")]
        yield from check_files(tool, files, ws, cwd, extension=True)
    elif tool == "go" and args[:1] == ["test"]:
        yield from check_go_test(args[1:], ws, cwd)
    elif tool == "cargo" and args[:1] and args[0] in ("test", "build", "run", "check", "bench"):
        yield from check_cargo(args, ws)


def check_files(
    tool: str, files: list[str], ws: Workspace, cwd: Path, extension: bool = False
) -> Iterator[str]:
    """Runner arguments naming files of the workspace that are not there."""
    for name in files:
        rel = repo_path(name, ws)
        if rel is None or (extension and not extension_known(rel)):
            continue
        if not (cwd / rel).exists():
            yield f"`{tool} {name}`: {name} does not exist"


def check_package_tool(tool: str, args: list[str], ws: Workspace, cwd: Path) -> Iterator[str]:
    """`npm run X`, `npm test`, `pnpm X`, `yarn X`, `bun run X` against package.json's scripts;
    `bun test FILE` against the files. A workspace or filter flag means another package: skipped."""
    rest = list(args)
    while rest and rest[0] in ("-C", "--dir", "--cwd", "--prefix") and len(rest) > 1:
        cwd = cwd / rest[1]
        rest = rest[2:]
    if (
        not rest
        or rest[0].startswith("-")
        or any(
            a.startswith(("-w", "--workspace", "--filter", "-F", "-r", "--recursive")) for a in rest
        )
    ):
        return
    command, more = rest[0], rest[1:]
    if command in ("run", "run-script"):
        if more and not more[0].startswith("-"):
            yield from check_script(tool, more[0], ws, cwd, f"{tool} run", shorthand=tool != "npm")
    elif tool == "bun" and command == "test":
        yield from check_files(
            "bun test", [a for a in more if not a.startswith("-")], ws, cwd, True
        )
    elif command in ("test", "t") and tool != "bun":
        yield from check_script(tool, "test", ws, cwd, tool, shorthand=False)
    elif tool in SHORTHAND and command not in SHORTHAND[tool]:
        yield from check_script(tool, command, ws, cwd, tool, shorthand=True)


def check_script(
    tool: str, name: str, ws: Workspace, cwd: Path, how: str, shorthand: bool = False
) -> Iterator[str]:
    """A script package.json lacks. `shorthand`: the tool also runs installed binaries by that
    name, so a well-known or installed one is not flagged."""
    if tool == "bun" and extension_known(name):
        if repo_path(name, ws) and not (cwd / name).exists():
            yield f"`bun run {name}`: {name} does not exist"
        return
    manifest = cwd / "package.json"
    if not manifest.is_file():
        return
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        scripts = data.get("scripts") or {}
    except (ValueError, OSError, AttributeError):
        return
    if not isinstance(scripts, dict) or name in scripts:
        return
    if shorthand and (
        name in PACKAGE_BINS
        or (cwd / "node_modules" / ".bin" / name).exists()
        or any(name in (data.get(k) or {}) for k in ("dependencies", "devDependencies"))
    ):
        return
    where = (
        manifest.relative_to(ws.root).as_posix()
        if manifest.is_relative_to(ws.root)
        else "package.json"
    )
    yield f"`{how} {name}`: {where} has no script {name!r}"


def check_pytest(args: list[str], ws: Workspace, cwd: Path) -> Iterator[str]:
    """Files and test ids (`tests/test_x.py::TestY::test_z`) that are no longer there."""
    skip = False
    for arg in args:
        if skip or arg.startswith("-"):
            skip = arg in PYTEST_VALUED
            continue
        name, _, symbols = arg.partition("::")
        rel = repo_path(name, ws)
        if rel is None:
            continue
        path = cwd / rel
        if not path.exists():
            yield f"`pytest {arg}`: {name} does not exist"
        elif symbols and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            for symbol in symbols.split("::"):
                symbol = symbol.split("[", 1)[0]
                if NAME.fullmatch(symbol) and not re.search(
                    DEFINES.format(symbol), text, re.MULTILINE
                ):
                    yield f"`pytest {arg}`: {name} defines no {symbol!r}"


def check_go_test(args: list[str], ws: Workspace, cwd: Path) -> Iterator[str]:
    """`go test ./pkg/...` against the folders, `-run TestName` against the test functions."""
    packages: list[Path] = []
    wanted: str | None = None
    for n, arg in enumerate(args):
        if arg in ("-run", "-bench") and n + 1 < len(args):
            wanted = args[n + 1].strip("^$")
        elif arg.startswith("-run="):
            wanted = arg.split("=", 1)[1].strip("^$")
        elif arg.startswith("./") and (n == 0 or args[n - 1] not in ("-run", "-bench")):
            folder = arg.removesuffix("...").rstrip("/").removeprefix("./")
            if not (cwd / folder).is_dir():
                yield f"`go test {arg}`: {folder} does not exist"
                return
            packages.append(cwd / folder)
    if wanted is None or not re.fullmatch(r"(?:Test|Benchmark|Example|Fuzz)\w+", wanted):
        return
    pattern = re.compile(rf"^func {wanted}\(", re.MULTILINE)
    for top in packages or [cwd]:
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in SKIPPED_ROOTS and d != "vendor"]
            for name in files:
                if name.endswith("_test.go"):
                    text = (Path(folder) / name).read_text(encoding="utf-8", errors="replace")
                    if pattern.search(text):
                        return
    yield f"`go test -run {wanted}`: no test function {wanted} in the packages named"


def check_cargo(args: list[str], ws: Workspace) -> Iterator[str]:
    """`cargo test --test NAME`, `--bin NAME`, `--example NAME`, `-p NAME`, `--manifest-path`."""
    kinds = {"--test": "tests", "--bin": "src/bin", "--example": "examples", "--bench": "benches"}
    asked = [
        (args[n], args[n + 1])
        for n in range(len(args) - 1)
        if args[n] in (*kinds, "-p", "--package", "--manifest-path")
    ]
    if not asked:
        return
    manifests: list[Path] = []
    for folder, dirs, files in os.walk(ws.root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_ROOTS]
        if "Cargo.toml" in files:
            manifests.append(Path(folder) / "Cargo.toml")
    if not manifests:
        return
    texts = [m.read_text(encoding="utf-8", errors="replace") for m in manifests]
    for flag, name in asked:
        if flag == "--manifest-path":
            if not (ws.root / name).is_file():
                yield f"`cargo {args[0]} --manifest-path {name}`: {name} does not exist"
            continue
        declared = any(
            re.search(rf"^\s*name\s*=\s*\"{re.escape(name)}\"", t, re.MULTILINE) for t in texts
        )
        if flag in kinds:
            sub = kinds[flag]
            declared = declared or any(
                (m.parent / sub / f"{name}.rs").is_file()
                or (m.parent / sub / name / "main.rs").is_file()
                for m in manifests
            )
        if not declared:
            what = "package" if flag in ("-p", "--package") else flag.removeprefix("--")
            yield f"`cargo {args[0]} {flag} {name}`: no {what} {name!r} in the workspace"


def check_make(args: list[str], cwd: Path) -> Iterator[str]:
    targets: list[str] = []
    n = 0
    while n < len(args):
        arg = args[n]
        if arg in ("-C", "--directory") and n + 1 < len(args):
            cwd = cwd / args[n + 1]
            n += 2
            continue
        if arg.startswith(("-f", "--file", "--makefile")):
            return
        if arg in MAKE_VALUED:
            n += 2
            continue
        if not arg.startswith("-") and "=" not in arg:
            targets.append(arg)
        n += 1
    if not targets or not cwd.is_dir():
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


def command_paths(line: str, ws: Workspace) -> Iterator[str]:
    """The workspace paths one shell line cites: the files its words name, package.json for a
    script it runs, the Makefile for a target."""
    for words in segments(line):
        words = unwrap(words)
        if not words:
            continue
        if words[0] in PACKAGE_TOOLS:
            yield "package.json"
        elif words[0] == "make":
            yield "Makefile"
        for word in words:
            rel = cited_paths(word, ws)
            if rel:
                yield rel
