"""What a runner's SessionStart hook adds to the agent's context: the bounded profile and the
entries the workspace hints at, none of them contradicted by the code as it is now.

The hints are what the start offers before any prompt: the payload's prompt when a runner
sends one, the branch checked out (read from `.git/HEAD`, without git), and the task of the
newest run queued in this workspace. Entries come from `context.relevant` and are checked with
`verify.check_text`: one citing a file, script or target that no longer exists is left out,
and a last line says how many were, so the agent never starts from a claim the code already
contradicts. The budget follows the start's `source`: a resumed session already holds what its
start printed, so it gets the smaller budget.

Invariants: the text never exceeds the budget; the same wiki, workspace and hints give the
same bytes; reading never writes the wiki (only the derived search index).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.recall.context import ContextEntry, assemble, profile_text, relevant
from wikimem.recall.search import SearchIndex
from wikimem.recall.verify import Workspace, check_text

SOURCES = ("startup", "resume", "clear", "compact")
RESUMED = frozenset({"resume"})
QUERY_WORDS = 12
MAIN_BRANCHES = frozenset({"main", "master", "trunk", "develop", "dev"})
TASK_CHARS = 300
STALE = (
    "\n(Left out {n} memory entr{ies} whose citations no longer match the workspace: "
    "wikimem verify)\n"
)
JOB_STATES = ("pending", "active", "done")


@dataclass(frozen=True)
class Start:
    """The text to print and what was left out, for tests and `--json`."""

    text: str
    entries: tuple[ContextEntry, ...]
    stale: tuple[str, ...]
    query: str


def budget_for(source: Any, start_budget: int, resume_budget: int) -> int:
    """The budget of this start: resumed sessions already hold the context of their start."""
    return resume_budget if source in RESUMED else start_budget


def hints(payload: Mapping[str, Any], workspace: Path, queue: Path) -> str:
    """Words that say what this session is likely about: a prompt, the branch, a recent task."""
    parts = [
        str(payload[k]) for k in ("prompt", "initial_prompt") if isinstance(payload.get(k), str)
    ]
    branch = current_branch(workspace)
    if branch and branch not in MAIN_BRANCHES:
        parts.append(re.sub(r"[/_.-]+", " ", branch))
    task = recent_task(queue)
    if task:
        parts.append(task[:TASK_CHARS])
    return " ".join(p.strip() for p in parts if p.strip())


def current_branch(workspace: Path) -> str | None:
    """The branch checked out in `workspace`, read from its HEAD file (worktrees included)."""
    dot_git = workspace / ".git"
    try:
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            pointer = dot_git.read_text(encoding="utf-8").strip()
            if not pointer.startswith("gitdir:"):
                return None
            dot_git = (workspace / pointer.removeprefix("gitdir:").strip()).resolve()
        head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None


def recent_task(queue: Path) -> str | None:
    """The task of the newest run queued in this workspace (already redacted when queued)."""
    newest: tuple[float, Path] | None = None
    for state in JOB_STATES:
        try:
            with_times = [(p.stat().st_mtime, p) for p in (queue / state).glob("*.json")]
        except OSError:
            continue
        for item in with_times:
            if newest is None or item > newest:
                newest = item
    if newest is None:
        return None
    try:
        task = json.loads(newest[1].read_text(encoding="utf-8"))["run"]["task"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return task if isinstance(task, str) else None


def start_context(
    wiki: Path, workspace: Path, index_file: Path | None, query: str, budget: int
) -> Start:
    """The profile, then the fresh entries `query` finds, within `budget` characters."""
    budget = max(0, budget)
    profile = profile_text(wiki)
    entries: list[ContextEntry] = []
    more = False
    if query.strip() and wiki.is_dir():
        with SearchIndex(wiki, index_file) as index:
            focused = index.focused(query, QUERY_WORDS)
            if focused:
                entries, more = relevant(wiki, index, focused)
    ws = Workspace(workspace)
    fresh = [e for e in entries if not stale(e, ws, wiki)]
    dropped = tuple(e.source for e in entries if e not in fresh)
    note = STALE.format(n=len(dropped), ies="y" if len(dropped) == 1 else "ies") if dropped else ""
    if len(note) > budget:
        note = ""
    built = assemble(profile, fresh, budget - len(note), more)
    return Start(built.text + note, built.entries, dropped, query)


def stale(entry: ContextEntry, ws: Workspace, wiki: Path) -> bool:
    """Whether the entry cites something `wikimem verify` finds broken."""
    return next(check_text(entry.body, ws, wiki / entry.path), None) is not None
