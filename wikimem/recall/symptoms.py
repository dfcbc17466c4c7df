"""Matching a failed shell command against the failure symptoms the wiki's entries hold.

An entry holds a symptom when it names the failing program and quotes (or paraphrases) the
error: `bun install --frozen-lockfile` failing with `lockfile had changes` matches the entry
that says so, in its title or the output it quotes (the words of its fix are not a symptom).
Lexical and deterministic: the command's program must be in the entry (not as a file's name:
`mix.exs` does not name `mix`), and the error must share with it a run of three words or at
least three telling words (COMMON words such as "error" or "failed" never count), so an error
the wiki does not know gets nothing. A tool run through another (`node test/run.js` driving
Playwright, `uv run pytest`, `yarn playwright test`) counts as run when the command line or the
error names it as a word of its own (not a part of a path: `/app/main.py` names no tool `app`),
the entry is that tool's page (`testing/playwright`) and the two share two runs of three words;
`tf` and `tofu` are `terraform`; a package script (`npm test`, `pnpm testheadless`, `yarn
lint`) runs the programs its `package.json` gives it (`jest --ci`), read from the folder the
command runs in or one under it it `cd`s to (a regular file of at most 1 MiB; nothing outside
the folder is read). A command that runs another program (`poetry run flask db upgrade`, a
package script, `make`) may fail in that program's words: an entry of a tool it never names
counts on three runs of three of the entry's error words. The same kind of failure worded
otherwise (`KINDS`: `no such file or directory` and `not found` are both a file missing) with
a word of its subject in common (`dist`) counts as the failure. An error code the error gives
(`ERR_PNPM_FETCH_404`, `EADDRINUSE`) that the entry's quoted error lacks while it quotes
another code is another failure of the same tool. An entry that quotes no output must share a
run of three of the error's words (its notes' words, scattered, are no symptom).

Invariant: no entry without the program's name but under a launcher; best first, ties on path
and entry id.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat

from wikimem.recall.cues import (
    FENCE,
    Found,
    candidates,
    open_index,
    quoted,
    quoted_error,
    rarest,
    shared,
    telling,
    trigrams,
    words,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# What stands before the program in a command line: variables, wrappers, `cd x &&`.
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
WRAPPERS = frozenset({"sudo", "env", "time", "nice", "command", "exec", "npx", "bunx"})
# Programs that carry another's output or set the scene: never the one that failed.
PLUMBING = frozenset(
    {"cd", "echo", "true", "set", "export", "source", ".", "tee", "head", "tail", "cat", "grep"}
    | {"sort", "xargs", "less", "wc", "sed", "awk", "printf", "test", "["}
)
SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
EXIT_LINE = re.compile(r"^\s*(?:Exit code:?|Process exited with code)\s*-?\d+\s*$", re.I | re.M)
# A file's name (`mix.exs`, `assets/build.js`, `package.json`): naming it is not naming the
# program its first part spells (a note citing `mix.exs` is not about running `mix`).
FILE_NAME = re.compile(r"[\w./-]*[\w-]\.[A-Za-z][\w]*\b")
# Programs known by another name: the same tool and the same failures.
ALIASES = {"tf": "terraform", "tofu": "terraform", "opentofu": "terraform", "k": "kubectl"}
# An error code: `ERR_PNPM_OUTDATED_LOCKFILE`, `EUSAGE`, `ENOSPC`, `E0433`, `TS2307`.
ERROR_CODE = re.compile(
    r"\b(?:ERR_[A-Z0-9_]{3,}|(?!ERRORS?\b|EXCEPTION|EXPECTED|EVENT|ENTRY|EMPTY|ENABLE|ENV)"
    r"E[A-Z]{4,}|E\d{3,5}|TS\d{4}|[A-Z]{2,}\d{3,5})\b"
)
ERROR_TERMS = 10
# What kind of failure an error reports, however the tool words it: Docker's legacy builder
# says `COPY failed: stat …/dist: no such file or directory` where BuildKit says `"/dist": not
# found`. The same kind and the same subject (`dist`) under the same program is the same failure.
KINDS = {
    "missing": r"not found|no such file|\benoent\b|does ?n[o']t exist|"
    r"\b(?:can ?no|can'|could ?n[o']?)t find",
    "refused": r"connection refused|\beconnrefused\b|could not connect|is the server running",
    "in use": r"already in use|\beaddrinuse\b|already allocated|address in use",
    "permission": r"permission denied|\beacces\b|\beperm\b|operation not permitted",
    "space": r"no space left|\benospc\b|disk quota exceeded",
    "memory": r"out of memory|heap limit|\boom\b|killed signal 9|exit code 137",
    "timeout": r"timed? ?out|deadline exceeded|\betimedout\b",
    "outdated": r"out of date|not up to date|\boutdated\b|needs to be updated|had changes|"
    r"inconsistent|does ?n[o']t match",
}
KIND = {name: re.compile(pattern, re.I) for name, pattern in KINDS.items()}


def kinds(text: str) -> set[str]:
    """The kinds of failure `text` reports (`KINDS`)."""
    return {name for name, pattern in KIND.items() if pattern.search(text)}


def unkind(text: str) -> str:
    """`text` without the words that say its kind (`no such file or directory`)."""
    for pattern in KIND.values():
        text = pattern.sub(" ", text)
    return text


LOOKED = 40  # of the error's telling words, and of the command's, counted in the index
CLOSE = 0.5  # a match scoring under this share of the best one is a weaker lead: left out
WRAPPED = 3  # runs of the error's words in the entry's quoted output, under a launcher


def programs(command: str) -> list[str]:
    """The programs a command line runs, in order (`cd web && bun install` -> ["bun"])."""
    found = []
    for part in SEPARATORS.split(command):
        for word in part.split():
            word = word.strip("'\"()")
            if not word or ASSIGNMENT.match(word) or word in WRAPPERS or word.startswith("-"):
                continue
            name = os.path.basename(word).lower()
            if name and name not in PLUMBING:
                found.append(ALIASES.get(name, name))
            break
    return list(dict.fromkeys(found))


# How each package manager names a script: `npm test`, `npm run lint`, `yarn lint`, `bun run x`.
SCRIPT_RUNNERS = {"npm": ("run", "run-script"), "pnpm": ("run",), "yarn": ("run",), "bun": ("run",)}
NPM_OWN = frozenset({"test", "start", "stop", "restart", "t", "tst"})  # npm runs these scripts
PACKAGE_MAX = 1 << 20  # a package.json larger than this is not read


# Commands that run another program, whose failure may be that program's own: a package
# script (`npm test`, `pnpm testheadless`), an environment's runner (`poetry run flask db
# upgrade`, `uv run`, `bundle exec`), a task runner or a shell script (`make`, `sh ci.sh`).
PACKAGE_OWN = frozenset(
    {"install", "i", "ci", "add", "remove", "rm", "uninstall", "update", "upgrade", "up"}
    | {"publish", "pack", "audit", "outdated", "init", "link", "login", "config", "cache"}
)
RUNNERS = frozenset({"poetry", "uv", "pipenv", "pdm", "hatch", "rye", "conda", "mamba"})
TASKS = frozenset({"make", "just", "task", "tox", "nox", "rake", "invoke", "sh", "bash", "zsh"})


def launches(command: str) -> bool:
    """Whether the command line runs another program that may fail in its own words."""
    for part in SEPARATORS.split(command):
        tokens = part.split()
        head = [w for w in tokens if not ASSIGNMENT.match(w) and w not in WRAPPERS][:3]
        if not head:
            continue
        program, rest = os.path.basename(head[0]).lower(), head[1:]
        if program in TASKS or program in {"uvx", "pipx"}:
            return True
        if program in SCRIPT_RUNNERS and rest and rest[0] not in PACKAGE_OWN:
            return True
        if program in RUNNERS and rest[:1] == ["run"] or program == "bundle" and "exec" in tokens:
            return True
    return False


def script_programs(command: str, folder: Path | None) -> list[str]:
    """The programs the package scripts a command runs start (`npm test` with `"test": "jest
    --ci"` -> ["jest"]), from `package.json` in `folder` or the folder under it the line `cd`s
    to (never one outside it: the hook reads nothing of another tree)."""
    if folder is None or not any(
        part.split()[:1] and part.split()[0] in SCRIPT_RUNNERS for part in SEPARATORS.split(command)
    ):
        return []  # most failed commands run no package script: no file is looked at
    try:
        top = folder.resolve()
    except (OSError, RuntimeError):
        return []
    here: Path | None = top
    read: dict[Path, dict[str, object]] = {}  # each folder's scripts, read once
    found: list[str] = []
    for part in SEPARATORS.split(command):
        words = part.split()
        if len(words) >= 2 and words[0] == "cd":
            here = _inside(top, here, words[1].strip("'\""))
            continue
        if here is None or len(words) < 2 or words[0] not in SCRIPT_RUNNERS:
            continue
        tool, rest = words[0], [w for w in words[1:] if not w.startswith("-")]
        if not rest:
            continue
        name = rest[1] if rest[0] in SCRIPT_RUNNERS[tool] and len(rest) > 1 else rest[0]
        if tool == "npm" and rest[0] not in SCRIPT_RUNNERS[tool] and name not in NPM_OWN:
            continue  # `npm ci`, `npm install`: npm itself
        if here not in read:
            read[here] = _scripts(here)
        script = read[here].get(name)
        if isinstance(script, str):
            found += [p for p in programs(script) if p not in SCRIPT_RUNNERS]
    return list(dict.fromkeys(found))


def _inside(top: Path, here: Path | None, target: str) -> Path | None:
    """Where `cd target` from `here` leads, if that is `top` or under it; else None."""
    if here is None or not target or target.startswith(("~", "$", "-")):
        return None
    try:
        went = (here / target).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return went if went == top or top in went.parents else None


def _scripts(folder: Path) -> dict[str, object]:
    """`scripts` of `folder/package.json`: a regular file (not a pipe, a device or a link
    leaving for one), read no further than PACKAGE_MAX bytes."""
    try:
        fd = os.open(folder / "package.json", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return {}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}
        data = os.read(fd, PACKAGE_MAX + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    if len(data) > PACKAGE_MAX:
        return {}
    try:
        scripts = json.loads(data.decode("utf-8")).get("scripts")
    except (ValueError, AttributeError, RecursionError):
        return {}
    return scripts if isinstance(scripts, dict) else {}


# A word standing alone: not part of a path, a file's name or a dotted name (`/app/main.py`
# does not name a tool `app`, `ms-playwright/` not `playwright`).
LONE_WORD = re.compile(r"(?<![\w/.\\-])[A-Za-z][\w+]*(?![\w/.\\-]*[\w/\\])")


def tools_named(text: str) -> set[str]:
    """The words of a command line or an error that stand alone, folded, as a tool's name."""
    return {w.lower() for w in LONE_WORD.findall(text)}


def failure_entries(
    index_file: Path, command: str, error: str, limit: int = 2, folder: Path | None = None
) -> list[Found]:
    """The entries whose symptom this failure shows, best first; `folder` is where the command
    ran (its `package.json` names what a package script runs)."""
    names = [p for p in programs(command) + script_programs(command, folder) if len(p) >= 2]
    names = list(dict.fromkeys(names))
    error = EXIT_LINE.sub("", error)
    said = [t for t in telling(error) if t not in names]
    asked = [t for t in telling(command) if t not in names]
    if not names or not said:
        return []
    db = open_index(index_file)
    if db is None:
        return []
    try:
        # The error's last telling words (where its telling lines are), and the command's.
        looked = list(dict.fromkeys(said[-LOOKED:] + asked[:LOOKED]))
        focus = rarest(db, looked, ERROR_TERMS)
        if not set(focus) & set(said):
            return []  # the error's words are nowhere in the wiki: an unknown failure
        program = " OR ".join(f'"{n}"' for n in names)
        expression = f"({program}) AND ({quoted(focus, 'OR')})"
        runs, codes = trigrams(error), set(ERROR_CODE.findall(error))
        sort = kinds(error)
        found = score(candidates(db, expression), names, said, asked, runs, codes, 0, sort)
        if not found:
            # the tool may run through another (`node test/run.js`, `uv run pytest`, `yarn
            # playwright test`): a tool whose page the entry is on, named by the command line
            # or the error as a word of its own, is the program, given two runs of the error's
            # words as well
            told = tools_named(f"{command}\n{error}")
            launched = launches(command)
            for item in candidates(db, quoted(focus, "OR")):
                tool = item.path.rsplit("/", 1)[-1]
                if tool in told and tool not in names:
                    found += score([item], [tool], said, asked, runs, codes, least_runs=2)
                elif tool not in names and launched:
                    # or, when the command runs another program (`poetry run flask db
                    # upgrade` runs alembic), the entry's failure in more of its own words
                    found += score([item], [tool], said, asked, runs, codes, least_runs=WRAPPED)
    except sqlite3.Error:
        return []
    finally:
        db.close()
    found.sort(key=lambda f: (-f.score, f.path, f.entry))
    return [f for f in found if f.score >= found[0].score * CLOSE][:limit]


def score(
    items: list[Found],
    names: list[str],
    said: list[str],
    asked: list[str],
    runs: set[tuple[str, str, str]],
    codes: set[str] = frozenset(),  # type: ignore[assignment]
    least_runs: int = 0,
    sort: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Found]:
    """The candidates that show the symptom: the program named, and the error's own words
    (a run of three, or three words, or two with the command's arguments) in the entry's title
    or the output it quotes (its fenced blocks; its whole body when it quotes none)."""
    kept = []
    for item in items:
        text = f"{item.title}\n{item.body}"
        if not set(names) & set(words(FILE_NAME.sub(" ", text))):
            continue  # the leaf's name, or a file's, is not a symptom: the entry must say it
        # the error it quotes, not its fix's words (its whole text when it quotes none)
        quotes = bool(FENCE.search(item.body))
        symptom = quoted_error(item) if quotes else text
        theirs = set(ERROR_CODE.findall(symptom))
        if codes and theirs and not codes & theirs:
            continue  # `ERR_PNPM_FETCH_404` is not the `ERR_PNPM_OUTDATED_LOCKFILE` it quotes
        common_runs = len(runs & trigrams(symptom))
        error_words = shared(said, symptom)
        command_words = shared(asked, text)
        if common_runs < least_runs:
            continue
        if not quotes and not common_runs:
            continue  # an entry quoting no output: its notes' words scattered are no symptom
        matched = common_runs or len(error_words) >= 3 or (len(error_words) >= 2 and command_words)
        if not matched and sort and not least_runs:
            # the same kind of failure, and a word of its subject besides the words of the kind
            matched = bool(sort & kinds(symptom)) and bool(shared(said, unkind(symptom)))
        if matched:
            item.score = 2.0 * common_runs + len(error_words) + 0.5 * len(command_words)
            kept.append(item)
    return kept
