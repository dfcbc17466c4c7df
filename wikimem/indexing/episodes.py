"""Failure episodes: a run's evidence timeline cut into one story per failure.

An episode opens at a failing command and closes at the step that made that failure go away:
the command passing again (as it was, run differently, or run more broadly), or the same
command failing with another error (the steps so far fixed this failure; the new error is an
episode of its own). Only the edits and commands inside an episode are its fix, so a session
that meets four failures on the way tells four lessons, not one joined into a heap.

A changed command that passed is the fix only when nothing was edited afterwards: when the
run went on to edit code and the original command then passed, the changed command was a
workaround and the edit is the fix (`TZ=UTC pytest` passing first, then the test fixed).

Invariant: pure functions of the evidence; every index an episode holds is inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from wikimem.indexing.layout import area
from wikimem.indexing.shell import (
    command_tool,
    is_changed_command,
    is_inspection,
    main_segment,
    normal,
    targets,
)
from wikimem.intake.record import Evidence

# Tools whose usual verbs set up the ground another tool runs on: installing, locking, fetching.
INSTALLERS = frozenset(
    {
        "pip",
        "uv",
        "poetry",
        "pdm",
        "pipx",
        "conda",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "corepack",
        "cargo",
        "rustup",
        "go",
        "gem",
        "bundle",
        "mix",
        "composer",
        "apt",
        "apt-get",
        "brew",
        "dnf",
        "apk",
        "playwright",
        "docker",
        "docker-compose",
        "helm",
        "terraform",
        "dotnet",
        "gradle",
        "mvn",
    }
)
# Git verbs that change what the build sees (the rest of git commits or looks).
_VERB = re.compile(r"[a-z][a-z0-9:._-]*")
GIT_SETUP = frozenset({"submodule", "lfs", "config", "checkout", "restore", "stash", "clean"})


@dataclass(frozen=True)
class Episode:
    """One failure and what happened until it went away (or the run ended)."""

    start: int
    failed: Evidence
    end: int | None  # the step that closed it: a pass, or the next error; None: never closed
    passed: Evidence | None  # the passing command, when a pass closed it
    commands: tuple[Evidence, ...]  # commands that changed something, in order
    files: tuple[Evidence, ...]  # edits, in order
    tried: tuple[Evidence, ...] = ()  # commands that were tried for it and failed too
    changed: bool = False  # the pass is the failing command run differently
    workaround: Evidence | None = None  # a changed command that passed before the real fix
    moved_on: bool = False  # closed by the same command failing with another error

    @property
    def resolved(self) -> bool:
        return self.end is not None


def failed(item: Evidence) -> bool:
    return item.kind == "command" and item.exit_code is not None and item.exit_code != 0


def passed(item: Evidence) -> bool:
    return item.kind == "command" and item.exit_code == 0


def subcommand(command: str) -> str:
    """The verb after the tool, flags skipped: `test` of `mix test`, `install` of `bun install`;
    "" for a test runner, whose words are test names (`pytest -k daily_rollup`)."""
    tool, args = main_segment(command)
    if area(command_tool(command)) == "testing" and tool != "playwright":
        return ""
    word = next((a for a in args if not a.startswith(("-", "+"))), "")
    return word if _VERB.fullmatch(word) else ""


def _targets(command: str) -> set[str]:
    """Positional words (a flag's value aside, unless it is a path): what a command runs on."""
    _, args = main_segment(command)
    return targets(args)


def same_run(failing: str, later: str, suggested: str = "") -> bool:
    """Whether `later` runs what `failing` ran: the same line, run differently, or run more
    broadly (`pytest -q` after `pytest tests/test_a.py -k b`)."""
    if normal(failing) == normal(later) or is_changed_command(failing, later):
        return True
    tool = command_tool(failing)
    if suggested and tool and command_tool(later) == tool:
        head, args = main_segment(later)
        if args and " ".join([head, *args]) in normal(suggested):
            return True  # the failure said to run it so: `git push --set-upstream origin <branch>`
        if _hinted(failing, later, suggested):
            return True
    if not tool or command_tool(later) != tool or is_inspection(later):
        return False
    verb = subcommand(failing)
    if area(tool) != "testing" and verb != "test":
        return False  # only a test run has a broader form (`git rebase --continue` is not one)
    return verb == subcommand(later) and _targets(later) <= _targets(failing)


def symptom_key(signature: str) -> str:
    """What tells one error from another: the signature with digits and quotes dropped."""
    return re.sub(r"[\d'\"`]+", "", signature).strip().lower()


def _hinted(failing: str, later: str, output: str) -> bool:
    """`later` is `failing` with a flag its output advised (`hint: Use -f if you really want to
    add them`), run on what that output named (`git add -f priv/static/assets/app.css`)."""
    _, before = main_segment(failing)
    _, after = main_segment(later)
    if not before or not after or subcommand(failing) != subcommand(later):
        return False
    flags = {a for a in after if a.startswith("-")} - set(before)
    advised = any(re.search(rf"\b[Uu]se {re.escape(flag)}(?![\w-])", output) for flag in flags)
    named = re.findall(r"^\s*(\S+/\S*)\s*$", output, re.MULTILINE)
    places = [a for a in targets(after) if a != subcommand(later)]
    return (
        advised
        and bool(places)
        and all(a in before or any(a.startswith(n.rstrip("/")) for n in named) for a in places)
    )


def fixing(failed_item: Evidence, command: str) -> bool:
    """Whether a command run inside an episode can be part of its fix: it changes something
    and is not a check of its own (a linter, another test run) or a commit of the fix."""
    if not command.strip() or is_inspection(command):
        return False
    tool = command_tool(command)
    if not tool:  # `export NODE_OPTIONS=...`, `FOO=1` alone: an environment setting
        return bool(re.search(r"(?:^|[\s;&|])(?:export\s+)?[A-Za-z_]\w*=", command))
    if tool == command_tool(failed_item.command):
        return True
    if tool in {"git", "gh"}:
        return subcommand(command) in GIT_SETUP
    return area(tool) not in {"lint", "testing"} or tool == "playwright"


def split(evidence: Sequence[Evidence], signature: Callable[[str], str]) -> list[Episode]:
    """Every failure of the run as an episode, in the order they happened.

    `signature` reads a failing output's telling line (the offline rules' reading); a failure
    of the same command with the same signature inside an episode is a retry, part of it.
    """
    found: list[Episode] = []
    explained: set[int] = set()
    for i, item in enumerate(evidence):
        if i in explained or not failed(item) or not command_tool(item.command):
            continue
        if is_inspection(item.command):
            continue  # `grep` finding nothing or `ls` of a missing path is not a failure
        episode, retries = _episode(evidence, i, signature)
        explained.update(retries)
        found.append(episode)
    return found


def _episode(
    evidence: Sequence[Evidence], i: int, signature: Callable[[str], str]
) -> tuple[Episode, set[int]]:
    first = evidence[i]
    key = symptom_key(signature(first.output))
    commands: list[Evidence] = []
    files: list[Evidence] = []
    tried: list[Evidence] = []
    retries: set[int] = set()
    for k in range(i + 1, len(evidence)):
        item = evidence[k]
        if item.kind == "file" and item.path:
            files.append(item)
            continue
        if item.kind != "command" or not item.ran:
            continue
        if same_run(first.command, item.command, first.output):
            if failed(item):
                if symptom_key(signature(item.output)) == key:
                    retries.add(k)
                    continue
                if commands or files:  # what was done fixed this error; the next is its own
                    episode = Episode(
                        i, first, k, None, tuple(commands), tuple(files), tuple(tried)
                    )
                    return replace(episode, moved_on=True), retries
                retries.add(k)  # another error with nothing done: the same trouble
                continue
            if passed(item):
                return _closed(evidence, i, k, commands, files, tried), retries
            continue
        if failed(item):
            if not is_inspection(item.command):
                tried.append(item)
            continue
        if passed(item) and fixing(first, item.command):
            commands.append(item)
    return Episode(i, first, None, None, tuple(commands), tuple(files), tuple(tried)), retries


def _closed(
    evidence: Sequence[Evidence],
    i: int,
    k: int,
    commands: list[Evidence],
    files: list[Evidence],
    tried: list[Evidence],
) -> Episode:
    first, passing = evidence[i], evidence[k]
    changed = normal(first.command) != normal(passing.command) and (
        is_changed_command(first.command, passing.command)
        or same_run(first.command, passing.command, first.output)
    )
    if changed:
        # The command run differently passed. What follows says what that was: the command
        # passing as it was next (the changed one was a step of the fix, `bun install` before
        # `bun install --frozen-lockfile`), or code edited and then the command passing as it
        # was or more broadly (the changed one only worked around what the edit fixed).
        later: list[Evidence] = []
        steps: list[Evidence] = [passing]
        for m in range(k + 1, len(evidence)):
            item = evidence[m]
            if item.kind == "file" and item.path:
                later.append(item)
                continue
            if item.kind != "command" or not item.ran:
                continue
            if same_run(first.command, item.command) and failed(item):
                break  # it fails again: the changed command is where this episode ended
            if not passed(item):
                continue
            if normal(item.command) == normal(first.command) and not later:
                # the changed command was the fix when it was the first thing done (`bun
                # install`); after another step it only checked (`terraform plan -refresh=false`)
                done = tuple(commands + steps) if not commands else tuple(commands + steps[1:])
                return Episode(i, first, m, item, done, tuple(files), tuple(tried))
            if (
                later
                and same_run(first.command, item.command)
                and not is_changed_command(first.command, item.command)
            ):
                done, fix = tuple(commands), tuple(files + later)
                return Episode(i, first, m, item, done, fix, tuple(tried), False, passing)
            if fixing(first, item.command) and not same_run(first.command, item.command):
                steps.append(item)
    return Episode(i, first, k, passing, tuple(commands), tuple(files), tuple(tried), changed)
