"""Shell command lines as evidence records them: which tool runs, and what kind of step it is.

Reading only, never running: a line is split the way a POSIX shell would (quotes, `&&`, `|`,
redirections) and interpreted by rules of thumb. Invariant: every function is pure and total;
a line it cannot parse is read as plain words, never an error.
"""

from __future__ import annotations

import re
import shlex

from wikimem.wiki.markdown import slugify

# Tools that only look at things (an agent inspecting is not an agent fixing).
INSPECTION_TOOLS = frozenset(
    {
        "ls",
        "cat",
        "less",
        "more",
        "head",
        "tail",
        "grep",
        "egrep",
        "rg",
        "ag",
        "find",
        "fd",
        "tree",
        "wc",
        "echo",
        "printf",
        "pwd",
        "which",
        "whereis",
        "type",
        "file",
        "stat",
        "env",
        "printenv",
        "whoami",
        "id",
        "date",
        "ps",
        "df",
        "du",
        "sort",
        "uniq",
        "cut",
        "jq",
        "column",
        "true",
        "cd",
        "pushd",
        "popd",
        "clear",
        "lsof",
        "netstat",
        "ss",
        "dig",
        "nslookup",
        "host",
        "ping",
        "traceroute",
        "uname",
        "hostname",
        "nproc",
        "free",
        "uptime",
        "xxd",
        "od",
        "strings",
        "cmp",
        "sha256sum",
        "md5sum",
        "realpath",
        "readlink",
        "basename",
        "dirname",
    }
)
# Subcommands that only read, for tools whose other subcommands change things.
TOOL_READS = {
    "git": frozenset(
        {
            "log",
            "status",
            "diff",
            "show",
            "blame",
            "rev-parse",
            "ls-files",
            "describe",
            "shortlog",
            "reflog",
            "grep",
        }
    ),
    "kubectl": frozenset({"get", "top", "explain", "events"}),
    "docker": frozenset({"ps", "images", "top", "stats"}),
}
# Any tool's reading verbs: `fly status`, `gh run view`, `gcloud run services logs read`.
READ_VERBS = frozenset(
    {
        "logs",
        "log",
        "describe",
        "inspect",
        "status",
        "show",
        "list",
        "ls",
        "view",
        "info",
        "version",
        "help",
    }
)
WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "exec", "command", "nice", "stdbuf"})
RUNNERS = frozenset({"npx", "uvx", "bunx", "pnpx"})
SUB_RUNNERS = frozenset(
    {
        ("uv", "run"),
        ("poetry", "run"),
        ("pipenv", "run"),
        ("pdm", "run"),
        ("pipx", "run"),
        ("pnpm", "exec"),
        ("pnpm", "dlx"),
        ("yarn", "dlx"),
        ("npm", "exec"),
        ("bundle", "exec"),
    }
)
INTERPRETERS = frozenset({"bash", "sh", "zsh", "node", "python", "ruby", "perl", "deno", "bun"})
SEPARATORS = frozenset({"&&", "||", "|", ";", "&", "(", ")", "|&"})
SCRIPT_SUFFIX = re.compile(r"\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|ps1|cmd|bat)$")
PATH_LIKE = re.compile(r"/|::|\.[A-Za-z]{1,5}$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def normal(command: str) -> str:
    """The line with its whitespace collapsed, for comparing commands."""
    return " ".join(command.split())


def _segments(command: str) -> list[tuple[list[str], bool]]:
    """Words of each simple command in a shell line, and whether it writes a file."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: a plain split is the best reading left
        tokens = command.split()
    segments: list[tuple[list[str], bool]] = [([], False)]
    redirect = ""
    for token in tokens:
        if token in SEPARATORS:
            segments.append(([], False))
        elif token.strip("0123456789&") in {">", ">>", "<", "<<", ">|", "<>", "&>"}:
            redirect = token
            if segments[-1][0] and segments[-1][0][-1].isdigit():
                segments[-1][0].pop()  # the `2` of `2>&1`, which shlex splits off
        elif redirect:
            if ">" in redirect and not token.isdigit() and token != "/dev/null":
                segments[-1] = (segments[-1][0], True)
            redirect = ""
        else:
            segments[-1][0].append(token)
    return [s for s in segments if s[0]]


def _tool_words(words: list[str]) -> tuple[str, list[str]]:
    """The tool a simple command runs and the words after it, wrappers and runners skipped."""
    rest = list(words)
    while rest:
        head = rest[0]
        if ASSIGNMENT.match(head):
            rest.pop(0)
        elif head in WRAPPERS and len(rest) > 1:
            rest.pop(0)
            while rest and rest[0].startswith("-"):
                rest.pop(0)
        else:
            break
    if not rest:
        return "", []
    head, args = _base(rest[0]), rest[1:]
    if head in RUNNERS or (args and (head, args[0]) in SUB_RUNNERS):
        args = args if head in RUNNERS else args[1:]
        while args and args[0].startswith("-"):
            args = args[1:]
        return _tool_words(args) if args else (head, [])
    if head in INTERPRETERS and args:
        if args[0] == "-m" and len(args) > 1:
            return _base(args[1]), args[2:]
        if args[0] == "-c" and len(args) > 1:
            inner = _segments(args[1])
            return _tool_words(inner[0][0]) if inner else ("", [])
        if not args[0].startswith("-") and SCRIPT_SUFFIX.search(args[0]):
            return _base(args[0]), args[1:]
    return head, args


def _base(word: str) -> str:
    name = word.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    name = SCRIPT_SUFFIX.sub("", name)
    return re.sub(r"^(python|pip)[0-9.]*$", r"\1", name.lower())


def main_segment(command: str) -> tuple[str, list[str]]:
    for words, _ in _segments(command):
        tool, args = _tool_words(words)
        if tool and tool not in {"cd", "pushd", "popd", "export", "source", ".", "set"}:
            return tool, args
    return "", []


def command_tool(command: str) -> str:
    """The slug of the tool a command runs: `FOO=1 npx vitest run` is `vitest`; "" if none."""
    tool, _ = main_segment(command)
    slug = re.sub(r"-{2,}", "-", slugify(tool.replace("_", "-").replace(".", "-"))).strip("-")
    return slug if re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug) else ""


def is_inspection(command: str) -> bool:
    """Whether every part of a shell line only reads (and none writes a file)."""
    segments = _segments(command)
    if not segments:
        return True
    for words, writes in segments:
        tool, args = _tool_words(words)
        if writes:
            return False
        if tool in INSPECTION_TOOLS or not tool:
            continue
        if tool in {"sed", "awk"} and not any(a.startswith(("-i", "--in-place")) for a in args):
            continue  # printing lines (`sed -n 30,80p f`); with -i it edits
        verbs = [a for a in args if not _flag(a)][:3]
        if verbs and verbs[0] in TOOL_READS.get(tool, ()):
            continue
        if any(v in READ_VERBS for v in verbs) or any(a in {"--version", "--help"} for a in args):
            continue
        return False
    return True


def is_changed_command(failed: str, passed: str) -> bool:
    """Whether `passed` is `failed` run differently (env, flags, option values), same targets.

    Targets (positional words, and any word that looks like a path) must match both ways, so
    `pytest tests/a` then `pytest tests/b` is another command, not a fix.
    """
    if normal(failed) == normal(passed):
        return False
    tool_a, args_a = main_segment(failed)
    tool_b, args_b = main_segment(passed)
    if not tool_a or tool_a != tool_b:
        return False
    targets_a, targets_b = targets(args_a), targets(args_b)
    return targets_a <= set(args_b) and targets_b <= set(args_a)


def targets(args: list[str]) -> set[str]:
    targets = set()
    for k, word in enumerate(args):
        if _flag(word):
            continue
        after_flag = k > 0 and args[k - 1].startswith("-") and "=" not in args[k - 1]
        if not after_flag or PATH_LIKE.search(word):
            targets.add(word)
    return targets


def _flag(word: str) -> bool:
    """`-x`, `--name=v`, and `+toolchain` selectors (`cargo +1.83 build`) are options."""
    return word.startswith(("-", "+"))
