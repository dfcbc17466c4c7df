"""The offline rules extractor: what a run teaches when no model resolves.

Two rules, both conservative, because a wrong lesson is worse than none:

1. each explicit `memory` candidate becomes an `add` at its path;
2. a command that failed and later passed in the same run becomes a procedural entry in
   `<tool>/troubleshooting`: the error signature, and the fix, meaning the commands run and the
   files edited between the failure and the first success, or the changed command that passed.
   Commands that only look (`ls`, `cat`, `git log/status/diff/show`, `grep`, `echo`, `which`,
   `head`, `tail`, `kubectl get`, `--version`, ...) and commands that failed are not the fix.

Anything else proposes nothing: a failure never followed by success, and a flaky retry (the same
command passing with nothing done in between), since the rules cannot tell what changed.

Invariant: the plan is a pure function of the runs (same runs, same plan, byte for byte), so
indexing a run again proposes exactly the entries it already wrote and validation turns them
into "no change". The plan is as untrusted as a model's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wikimem.indexing.plan import MAX_BODY, MAX_TITLE, TYPES, RawPlan, clean_path, one_line
from wikimem.indexing.shell import command_tool, is_changed_command, is_inspection, normal
from wikimem.intake.record import Candidate, Evidence, RunRecord
from wikimem.wiki.markdown import slugify

NO_LESSON = "No durable lesson (offline rules)"
SIGNATURE_MAX = 200
COMMAND_MAX = 300
TITLE_COMMAND_MAX = 60
FIX_COMMANDS_MAX = 8
FILES_MAX = 5
DIFF_MAX = 800

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LABELLED = re.compile(r"^\s*(?:(?i:error|fatal|panic)\b|E {2,}\S|npm ERR!|FAILED |ERR_[A-Z_]+)")
_KEYWORD = re.compile(
    r"\b(?:errors?|failed|failure|fatal|exception|cannot|can't|could not|couldn't|unable to"
    r"|not found|no such|denied|refused|timed out|panic)\b",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^(?:(?i:error|fatal|panic)\s*:|npm ERR!|npm error\b)\s*")
_PYTEST_MARK = re.compile(r"^\s*E {2,}")  # pytest's margin for the failure lines


@dataclass(frozen=True)
class Fix:
    """A failing command and what made it pass later in the same run."""

    failed: Evidence
    passed: Evidence
    commands: tuple[str, ...]  # in order; when `changed`, the last is the changed command
    files: tuple[Evidence, ...]
    changed: bool


def offline_plan(runs: Sequence[RunRecord]) -> RawPlan:
    """Propose the edits the rules find in `runs`, one per (leaf, entry), in run order."""
    edits: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    taught: list[tuple[str, int]] = []
    for run in runs:
        found = 0
        proposed = [candidate_edit(run, c) for c in run.memory]
        proposed += [fix_edit(run, fix) for fix in find_fixes(run.evidence)]
        for edit in proposed:
            key = (clean_path(edit["leaf"])[0] or edit["leaf"], edit["entry"])
            if key not in seen:
                seen.add(key)
                edits.append(edit)
                found += 1
        if found:
            taught.append((run.run_id, found))
    return RawPlan(summary=_summary(taught), edits=tuple(edits))


def _summary(taught: list[tuple[str, int]]) -> str:
    if not taught:
        return NO_LESSON
    count = sum(n for _, n in taught)
    lessons = "lesson" if count == 1 else "lessons"
    if len(taught) == 1:
        return f"Record {count} {lessons} from run {taught[0][0]}"
    return f"Record {count} {lessons} from {len(taught)} runs"


# -- rule 1: explicit candidates ---------------------------------------------------------------


def candidate_edit(run: RunRecord, candidate: Candidate) -> dict[str, Any]:
    content = candidate.content.strip()
    first = next((line for line in content.splitlines() if line.strip()), "")
    title = candidate.title.strip() or first.lstrip("#").strip().rstrip(".:")
    title = _bounded_title(title)
    entry = slugify(title) or "note-" + hashlib.sha256(content.encode()).hexdigest()[:8]
    kind = candidate.type.strip().lower()
    return {
        "action": "add",
        "leaf": candidate.path,
        "entry": entry,
        "title": title,
        "type": kind if kind in TYPES else "semantic",
        "body": content,
        "reason": f"explicit memory candidate from run {run.run_id}",
    }


# -- rule 2: a failure fixed later in the run ----------------------------------------------------


def find_fixes(evidence: Sequence[Evidence]) -> list[Fix]:
    """Each failing command that later passed, with what happened in between.

    Failures of the same tool inside an already explained episode are part of it, not lessons
    of their own (the retries an agent makes on the way to the fix).
    """
    fixes: list[Fix] = []
    explained: set[int] = set()
    for i, item in enumerate(evidence):
        if i in explained or not _failed(item) or not command_tool(item.command):
            continue
        if is_inspection(item.command):
            continue  # `grep` finding nothing or `ls` of a missing path is not a failure to learn
        found = _fix_after(evidence, i)
        if found is None:
            continue
        end, fix = found
        tool = command_tool(item.command)
        explained.update(
            k
            for k in range(i + 1, end)
            if _failed(evidence[k]) and command_tool(evidence[k].command) == tool
        )
        fixes.append(fix)
    return fixes


def _fix_after(evidence: Sequence[Evidence], i: int) -> tuple[int, Fix] | None:
    failed = evidence[i]
    same = normal(failed.command)
    later = list(enumerate(evidence))[i + 1 :]
    passed = [(k, e) for k, e in later if e.kind == "command" and e.exit_code == 0]
    end = next((k for k, e in passed if normal(e.command) == same), None)
    changed = False
    if end is None:
        end = next((k for k, e in passed if is_changed_command(failed.command, e.command)), None)
        changed = True
    if end is None:
        return None
    between = evidence[i + 1 : end]
    commands = _fix_commands(between)
    files = tuple(e for e in between if e.kind == "file" and e.path)[:FILES_MAX]
    if changed:
        commands += (_bounded_command(evidence[end].command),)
    elif not commands and not files:
        # The same command passed with nothing done in between: a flaky retry, or a fix made
        # outside the run's evidence. Neither is a lesson the rules can state truthfully.
        return None
    return end, Fix(failed, evidence[end], commands, files, changed)


def _fix_commands(between: Sequence[Evidence]) -> tuple[str, ...]:
    commands: list[str] = []
    for item in between:
        if item.kind != "command" or _failed(item) or not item.command.strip():
            continue
        if is_inspection(item.command):
            continue
        command = _bounded_command(item.command)
        if command not in commands:
            commands.append(command)
    if len(commands) > FIX_COMMANDS_MAX:
        hidden = len(commands) - FIX_COMMANDS_MAX + 1
        commands = commands[: FIX_COMMANDS_MAX - 1] + [f"# ... and {hidden} more commands"]
    return tuple(commands)


def _failed(item: Evidence) -> bool:
    return item.kind == "command" and item.exit_code is not None and item.exit_code != 0


def fix_edit(run: RunRecord, fix: Fix) -> dict[str, Any]:
    tool = command_tool(fix.failed.command)
    sig = signature(fix.failed.output)
    title = _bounded_title(
        f"{_code(_short(fix.failed.command))} fails: "
        f"{_LABEL.sub('', sig) or f'exit code {fix.failed.exit_code}'}"
    )
    body = fix_body(run.run_id, fix, sig, with_diffs=True)
    if len(body) > MAX_BODY:
        body = fix_body(run.run_id, fix, sig, with_diffs=False)
    return {
        "action": "add",
        "leaf": f"{tool}/troubleshooting",
        "entry": slugify(title),
        "title": title,
        "type": "procedural",
        "body": body,
        "reason": "a failing command passed later in the same run (offline rules)",
        "leaf_title": f"{tool} troubleshooting",
        "leaf_summary": f"Failures of {tool} seen in agent runs, and what fixed them.",
    }


def fix_body(run_id: str, fix: Fix, sig: str, *, with_diffs: bool) -> str:
    failed = _code(normal(fix.failed.command))
    blocks = [
        f"**Symptom:** {failed} exited with code {fix.failed.exit_code}" + (":" if sig else ".")
    ]
    if sig:
        blocks.append(_fenced(sig, "text"))
    if fix.changed:
        last = " (the last command below)" if len(fix.commands) > 1 else ""
        blocks.append(f"**Fix:** the command, changed, passed{last}.")
    else:
        blocks.append("**Fix:** what the run did before the same command passed.")
    # Files first: an edit is usually what the commands after it (commit, deploy) carry.
    for item in fix.files:
        diff = item.diff.strip("\n")
        if with_diffs and diff and len(diff) <= DIFF_MAX:
            blocks += [f"Edited {_code(item.path)}:", _fenced(diff, "diff")]
        else:
            blocks.append(f"Edited {_code(item.path)}.")
    if fix.commands:
        blocks += ["Ran:", _fenced("\n".join(fix.commands), "sh")]
    # The run is named in the commit's trailers, not here: the same lesson from another run
    # must render the same bytes, so indexing it again changes nothing.
    return "\n\n".join(blocks)


def signature(output: str) -> str:
    """The most telling line of a failing command's output, on one line, bounded."""
    lines = [_ANSI.sub("", line).rstrip() for line in output.splitlines()]
    lines = [line for line in lines if line.strip() and not _decoration(line)]
    if not lines:
        return ""
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        # Python puts the exception last; the lines before it are the stack.
        line = next(line for line in reversed(lines) if not line[0].isspace())
    else:
        line = (
            next((line for line in lines if _LABELLED.match(line)), None)
            or next((line for line in lines if _KEYWORD.search(line)), None)
            or lines[-1]
        )
    return one_line(_PYTEST_MARK.sub("", line), SIGNATURE_MAX)


def _decoration(line: str) -> bool:
    """`==== FAILURES ====` and rules of dashes say nothing about the failure."""
    text = line.strip()
    return sum(ch.isalnum() for ch in text) * 3 < len(text)


# -- text --------------------------------------------------------------------------------------


def _bounded_title(text: str) -> str:
    """A one-line heading that validation keeps as it is, so the entry id stays its slug."""
    title = " ".join(text.split())
    if len(title) > MAX_TITLE:
        cut = title[: MAX_TITLE - 1]
        space = cut.rfind(" ")
        title = (cut[:space] if space > MAX_TITLE // 2 else cut).rstrip(" ,;:") + "…"
    if title.count("`") % 2:  # a cut inside a code span would swallow the rest of the heading
        head, _, tail = title.rpartition("`")
        title = head + tail
    return title


def _bounded_command(command: str) -> str:
    text = command.strip()
    return text if len(text) <= COMMAND_MAX else text[: COMMAND_MAX - 1].rstrip() + "…"


def _short(command: str) -> str:
    """A command cut on a word boundary (never right after a flag) to fit in a title."""
    line = normal(command)
    if len(line) <= TITLE_COMMAND_MAX:
        return line
    words: list[str] = []
    for word in line.split(" "):
        if len(" ".join([*words, word])) > TITLE_COMMAND_MAX - 2:
            break
        words.append(word)
    if len(words) > 1 and words[-1].startswith("-"):
        words.pop()
    return " ".join(words) + " …" if words else line[: TITLE_COMMAND_MAX - 1] + "…"


def _code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _fenced(text: str, lang: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"
