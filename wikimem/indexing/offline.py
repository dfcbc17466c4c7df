"""The offline rules extractor: what a run teaches when no model resolves.

Two rules, both conservative, because a wrong lesson is worse than none:

1. each explicit `memory` candidate becomes an `add` at its path;
2. a command that failed and later passed in the same run becomes a procedural entry in the
   leaf that holds its tool (`layout.home`, the same leaf the prompt names to the model): the
   error, why when the output says it, and the fix in a sentence, meaning the files edited and
   the commands that belong to the failure (its tool, a version manager, or words of its
   output) run between the failure and the first success, or the changed command that passed.
   Commands that only look (`ls`, `cat`, `git log/status/diff/show`, `grep`, `kubectl get`,
   `--version`, ...) and commands that failed are not the fix.

Anything else proposes nothing: a failure never followed by success; a flaky retry (the same
command passing with nothing done in between), since the rules cannot tell what changed; a
project script fixed by editing that script (a bug fixed, not a lesson); and a failure an entry
of the wiki already describes under another id (a person's or a model's words stay theirs).
The same failure seen again keys to the same entry id (one-off values are placeholders), so it
updates its entry instead of adding a near-duplicate.

Invariant: the plan is a pure function of the runs and the wiki view (same inputs, same plan,
byte for byte), so indexing a run again proposes exactly the entries it already wrote and
validation turns them into "no change". The plan is as untrusted as a model's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wikimem.indexing.layout import DEFAULT_AREA, area, display_name, file_home, home
from wikimem.indexing.plan import MAX_BODY, TYPES, RawPlan, clean_path, one_line
from wikimem.indexing.prose import code, fenced, joined, placeholders, short_heading
from wikimem.indexing.shell import (
    SCRIPT_SUFFIX,
    command_tool,
    is_changed_command,
    is_inspection,
    normal,
)
from wikimem.intake.record import Candidate, Evidence, RunRecord
from wikimem.wiki import markdown
from wikimem.wiki.markdown import slugify

NO_LESSON = "No durable lesson (offline rules)"
SIGNATURE_MAX = 200
COMMAND_MAX = 300
FIX_COMMANDS_MAX = 8
FILES_MAX = 5
DIFF_MAX = 800

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LABELLED = re.compile(r"^\s*(?:(?i:error|fatal|panic)\b|E {2,}\S|npm ERR!|FAILED |ERR_[A-Z_]+)")
_KEYWORD = re.compile(
    r"\b(?:errors?|failed|failure|fatal|exception|cannot|can't|could not|couldn't|unable to"
    r"|not found|no such|denied|refused|timed out|panic|no required module|unsupported|invalid"
    r"|missing|conflict|forbidden|unauthori[sz]ed)\b",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"^(?:(?i:error|fatal|panic|failed)\s*:|(?:npm ERR!|npm error)(?:\s+[a-z]+\b(?!:))?)\s*"
)
_WRAPPER = re.compile(
    r"^(?:g?make(?:\[\d+\])?: \*\*\*|error: script \"[^\"]*\" exited|ELIFECYCLE\b"
    r"|npm ERR! (?:A complete log|Lifecycle script)|error Command failed with exit code)"
)
_REASON = re.compile(r"\b(?:because|due to|failed to|caused by)\b", re.IGNORECASE)
_ASSERTION = re.compile(
    r"\bAssertionError\b|^\s*E\s+assert\s|\bExpected:|\bexpect\(.*\)\.to", re.MULTILINE
)
_OURS = re.compile(
    r"(?:`.*` fails with exit code \d+[.:]|The output says why: |When it fails this way, "
    r"|`[^`\n]+`:$)"
)
_FENCED = re.compile(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_HINT = re.compile(r"^(?i:note|hint|help|tip|caused by|reason)\s*:\s*\S")
_PYTEST_MARK = re.compile(r"^\s*E {2,}")  # pytest's margin for the failure lines
# Tools that set up another tool's ground: part of a fix whatever the failing tool.
SETUP_TOOLS = frozenset(
    {"nvm", "fnm", "volta", "pyenv", "rbenv", "rustup", "asdf", "mise", "corepack"}
)
# Words too common to tie a command to a failure's output.
_COMMON = frozenset(
    [
        "error",
        "errors",
        "failed",
        "fail",
        "test",
        "tests",
        "file",
        "files",
        "line",
        "run",
        "main",
        "with",
        "from",
        "that",
        "this",
        "none",
        "true",
        "false",
        "exit",
        "code",
        "found",
        "local",
        "http",
        "https",
    ]
)
_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class Fix:
    """A failing command and what made it pass later in the same run."""

    failed: Evidence
    passed: Evidence
    commands: tuple[str, ...]  # in order; when `changed`, the last is the changed command
    files: tuple[Evidence, ...]
    changed: bool


@dataclass(frozen=True)
class Known:
    """What the wiki already holds, as the offline rules need it: each tool's home leaf, and
    the entries of the pages the pass can see, as (leaf, entry id, lower-cased text)."""

    homes: Mapping[str, str]
    entries: tuple[tuple[str, str, str], ...] = ()
    bodies: Mapping[tuple[str, str], str] = field(default_factory=dict)
    existing: frozenset[str] = frozenset()  # homes that are leaves already

    def persons(self, leaf: str, entry: str) -> bool:
        """Whether the entry holds words the rules never write (a person added to it)."""
        body = self.bodies.get((leaf, entry))
        return body is not None and not rules_wrote(body)

    @classmethod
    def from_view(
        cls, homes: Sequence[tuple[str, str, bool]], pages: Sequence[tuple[str, str]]
    ) -> Known:
        entries = []
        bodies = {}
        for path, text in pages:
            leaf = path.removesuffix("/MEMORY.md")
            for item in markdown.parse_page(text).entries:
                entries.append((leaf, item.id, f"{item.title}\n{item.body}".lower()))
                bodies[(leaf, item.id)] = item.body
        existing = frozenset(leaf for _, leaf, exists in homes if exists)
        return cls({tool: leaf for tool, leaf, _ in homes}, tuple(entries), bodies, existing)


# Seam for line ownership: (leaf, entry id) -> whether a person wrote lines of that entry since
# wikimem last wrote it. The rules never update such an entry; until ownership is read from the
# wiki's history, an entry the rules did not write under their own id is left alone anyway.
Owned = Callable[[str, str], bool]


def offline_plan(
    runs: Sequence[RunRecord], known: Known | None = None, owned: Owned | None = None
) -> RawPlan:
    """Propose the edits the rules find in `runs`, one per (leaf, entry), in run order."""
    known = known or Known({})
    edits: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    taught: list[tuple[str, int]] = []
    for run in runs:
        found = 0
        proposed = [candidate_edit(run, c) for c in run.memory]
        told = " ".join(c.content.lower() for c in run.memory)
        for fix in find_fixes(run.evidence):
            edit = fix_edit(run, fix, known.homes)
            if edit["leaf"] in known.existing:  # the page's title and summary are its own
                del edit["leaf_title"], edit["leaf_summary"]
            if _told(told, fix) or described_elsewhere(edit, fix, known):
                continue
            if known.persons(edit["leaf"], edit["entry"]):
                continue
            if owned is not None and owned(edit["leaf"], edit["entry"]):
                continue
            proposed.append(edit)
        for edit in proposed:
            key = (clean_path(edit["leaf"])[0] or edit["leaf"], edit["entry"])
            if key not in seen:
                seen.add(key)
                edits.append(edit)
                found += 1
        if found:
            taught.append((run.run_id, found))
    return RawPlan(summary=_summary(taught), edits=tuple(edits))


def described_elsewhere(edit: Mapping[str, Any], fix: Fix, known: Known) -> bool:
    """Whether another entry already names this failure: the command and the error's words.

    The rules' own entry (same leaf, same id) is not "elsewhere": proposing it again updates it,
    or changes nothing when it already says the same.
    """
    name = command_name(fix.failed.command).lower()
    sig = placeholders(signature(fix.failed.output), fix.failed.output)
    key = _core(sig, command_tool(fix.failed.command)).lower()[:24]
    if not key:
        return False
    for leaf, entry, text in known.entries:
        if (leaf, entry) == (edit["leaf"], edit["entry"]):
            continue
        if name in text and key in text:
            return True
    return False


def rules_wrote(body: str) -> bool:
    """Whether every paragraph of an entry body is of a kind `fix_body` writes, fenced blocks
    aside; a paragraph of any other kind is a person's (or a model's) and makes it theirs."""
    prose = _FENCED.sub("", body)
    return all(_OURS.match(block.strip()) for block in re.split(r"\n\s*\n", prose) if block.strip())


def _told(candidates: str, fix: Fix) -> bool:
    """Whether the run's own memory candidates already state this fix (their words win)."""
    names = [command_name(c) for c in fix.commands if c] if candidates else []
    return any(name.lower() in candidates for name in names if " " in name)


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
    title = short_heading(title)
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
    commands = _fix_commands(failed, between)
    files = tuple(e for e in between if e.kind == "file" and e.path)[:FILES_MAX]
    if not commands and files and (_own_script(failed.command, files) or _ordinary(failed)):
        # A project script failing until the script itself was edited, a test assertion or a
        # linter's complaint until the code was edited: a bug fixed, not a lesson.
        return None
    if changed and _autofix(evidence[end].command):
        return None  # the linter fixing what it reported says nothing a reader needs
    if changed:
        commands += (_bounded_command(evidence[end].command),)
    elif not commands and not files:
        # The same command passed with nothing done in between: a flaky retry, or a fix made
        # outside the run's evidence. Neither is a lesson the rules can state truthfully.
        return None
    return end, Fix(failed, evidence[end], commands, files, changed)


def _fix_commands(failed: Evidence, between: Sequence[Evidence]) -> tuple[str, ...]:
    commands: list[str] = []
    for item in between:
        if item.kind != "command" or _failed(item) or not item.command.strip():
            continue
        if is_inspection(item.command) or not belongs(failed, item.command):
            continue
        command = _bounded_command(item.command)
        if command not in commands:
            commands.append(command)
    if len(commands) > FIX_COMMANDS_MAX:
        hidden = len(commands) - FIX_COMMANDS_MAX + 1
        commands = commands[: FIX_COMMANDS_MAX - 1] + [f"# ... and {hidden} more commands"]
    return tuple(commands)


def belongs(failed: Evidence, command: str) -> bool:
    """Whether `command` is part of fixing `failed`: the same tool, a tool that sets up the
    ground (`nvm use 20`), or one naming a word of the failing command or its output."""
    tool = command_tool(command)
    if tool == command_tool(failed.command) or tool in SETUP_TOOLS:
        return True
    if tool in {"git", "gh"}:  # committing and pushing the fix is not the fix
        return False
    words = {w.lower() for w in _WORD.findall(command)}
    seen = {w.lower() for w in _WORD.findall(f"{failed.command}\n{failed.output}")}
    return any(
        w in seen and w not in _COMMON and (len(w) >= 4 or (w.isdigit() and len(w) >= 2))
        for w in words
    )


def _ordinary(failed: Evidence) -> bool:
    """A failure that is the tool doing its job: an assertion, or a linter's finding."""
    return area(command_tool(failed.command)) == "lint" or bool(_ASSERTION.search(failed.output))


def _autofix(command: str) -> bool:
    return bool(
        area(command_tool(command)) == "lint"
        and re.search(r"(?:^|\s)(?:--fix|--write|-w|format)(?:\s|$)", command)
    )


def _own_script(command: str, files: Sequence[Evidence]) -> bool:
    """Whether the command runs a script of the project and the edits are to that script only."""
    scripts = {w.removeprefix("./") for w in normal(command).split(" ") if SCRIPT_SUFFIX.search(w)}
    return bool(scripts) and all(f.path.removeprefix("./") in scripts for f in files)


def _failed(item: Evidence) -> bool:
    return item.kind == "command" and item.exit_code is not None and item.exit_code != 0


def fix_edit(run: RunRecord, fix: Fix, homes: Mapping[str, str] | None = None) -> dict[str, Any]:
    tool = command_tool(fix.failed.command)
    sig = placeholders(signature(fix.failed.output), fix.failed.output)
    written = _written_tool(fix.failed.command, tool)
    name = display_name(tool, written)
    leaf = (homes or {}).get(tool) or home(tool, ())
    if area(tool) == DEFAULT_AREA:  # a generic tool (`curl`): the files it was fixed in say where
        where, what = file_home([f.path for f in fix.files])
        if where:
            leaf, name = where, what
    body = fix_body(fix, sig, with_diffs=True)
    if len(body) > MAX_BODY:
        body = fix_body(fix, sig, with_diffs=False)
    return {
        "action": "add",
        "leaf": leaf,
        "entry": slugify(fix_title(fix, sig)),
        "title": fix_title(fix, sig),
        "type": "procedural",
        "body": body,
        "reason": "a failing command passed later in the same run (offline rules)",
        "leaf_title": name,
        "leaf_summary": f"{name} failures and the fixes that worked.",
    }


def fix_title(fix: Fix, sig: str) -> str:
    """The error in the tool's words, short enough for a 48-character id: the leaf is named
    after the tool and the entry's first sentence names the command."""
    what = _core(sig, command_tool(fix.failed.command))
    if not what:
        return short_heading(
            f"{code(command_name(fix.failed.command))} exits with code {fix.failed.exit_code}"
        )
    return short_heading(what[0].upper() + what[1:] if what[0].islower() else what)


def fix_body(fix: Fix, sig: str, *, with_diffs: bool) -> str:
    context = fix.failed.output
    failed = code(placeholders(normal(fix.failed.command), context))
    if sig:
        blocks = [f"{failed} fails with exit code {fix.failed.exit_code}:", fenced(sig, "text")]
    else:
        blocks = [f"{failed} fails with exit code {fix.failed.exit_code}."]
    hint = _hint(fix.failed.output)
    if hint:
        blocks.append(f"The output says why: {code(placeholders(hint, context))}.")
    steps: list[str] = []
    if fix.files:
        steps.append(
            "edit " + joined([code(f.path) for f in fix.files]) + _as_below(fix, with_diffs)
        )
    commands = [placeholders(c, context) for c in fix.commands]
    shown_apart = len(commands) > 3
    if fix.changed:
        run_first = commands[:-1]
        if run_first and not shown_apart:
            steps.append("run " + joined([code(c) for c in run_first]))
        if shown_apart:
            steps.append("run the commands below")
        sentence = "When it fails this way, " + (" and ".join(steps) + ", then " if steps else "")
        sentence += f"run it as {code(commands[-1])} instead: that passes."
    else:
        if shown_apart:
            steps.append("run the commands below")
        elif commands:
            steps.append("run " + joined([code(c) for c in commands]))
        sentence = f"When it fails this way, {' and '.join(steps)}; then the same command passes."
    blocks.append(sentence)
    for item in fix.files:
        diff = placeholders(item.diff.strip("\n"), context)
        if with_diffs and diff and len(diff) <= DIFF_MAX:
            blocks += [f"{code(item.path)}:", fenced(diff, "diff")]
    if shown_apart:
        blocks.append(fenced("\n".join(commands), "sh"))
    # The run is named in the commit's trailers, not here: the same lesson from another run
    # must render the same bytes, so indexing it again changes nothing.
    return "\n\n".join(blocks)


def _as_below(fix: Fix, with_diffs: bool) -> str:
    shown = with_diffs and any(f.diff.strip() and len(f.diff) <= DIFF_MAX for f in fix.files)
    return " as below" if shown else ""


def _hint(output: str) -> str:
    """A line in which the tool itself says what to do or why (`note:`, `hint:`, `help:`)."""
    for line in output.splitlines():
        text = _ANSI.sub("", line).strip()
        if _HINT.match(text):
            return one_line(text, SIGNATURE_MAX)
    return ""


def _core(sig: str, tool: str = "") -> str:
    """What failed, without the labels around it: `Error:`, `npm ERR! code`, `(gcloud.run)`."""
    return ": ".join(part for part in (_core_line(x, tool) for x in sig.split("\n")) if part)


def _core_line(line: str, tool: str) -> str:
    message = re.search(r'"message"\s*:\s*"([^"]+)"', line)  # an API's JSON error
    text = message.group(1) if message else _LABEL.sub("", line).strip()
    if tool and text.lower().startswith(tool + ":"):  # `curl: (22) ...`
        text = text[len(tool) + 1 :].strip()
    text = re.sub(r"^\([\w.-]+\)\s*", "", text)  # gcloud's `(gcloud.run.deploy)`, curl's `(22)`
    text = re.sub(r"^(?:[a-z_]\w*\.)+(?=[A-Z]\w*(?:Error|Exception)\b)", "", text)
    sentences = re.split(r"(?<=\w)[.;] ", text)
    # A later sentence that gives the reason says more than "X is not ready".
    text = next((x for x in sentences[1:] if _REASON.search(x)), sentences[0])
    text = re.split(r", but | - | \(|: \{", text, maxsplit=1)[0]
    return text.strip(" .:")


def command_name(command: str) -> str:
    """The tool and its subcommand as a person names them: `terraform plan`, `npx playwright`."""
    tool = command_tool(command)
    words = normal(command).split(" ")
    at = next((k for k, w in enumerate(words) if command_tool(w) == tool), None)
    if at is None:
        return tool
    name = [words[at]]
    nxt = next((w for w in words[at + 1 :] if not w.startswith(("-", "+"))), "")
    if nxt and re.fullmatch(r"[a-z][a-z0-9:_-]*", nxt) and not SCRIPT_SUFFIX.search(nxt):
        name.append(nxt)
    return " ".join(name)


def _written_tool(command: str, tool: str) -> str:
    return next((w for w in normal(command).split(" ") if command_tool(w) == tool), "")


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
    if re.fullmatch(r"[A-Z0-9_]{3,}", _LABEL.sub("", line).strip()):  # `npm ERR! code E...`
        after = lines[lines.index(line) + 1 :]
        more = next((x for x in after if _LABELLED.match(x)), "")
        if more:
            line = f"{line}\n{more}"
    return "\n".join(one_line(_PYTEST_MARK.sub("", x), SIGNATURE_MAX) for x in line.split("\n"))


def _decoration(line: str) -> bool:
    """`==== FAILURES ====`, rules of dashes and a runner's own `make: *** [build] Error 1` say
    nothing about the failure."""
    text = line.strip()
    return sum(ch.isalnum() for ch in text) * 3 < len(text) or bool(_WRAPPER.match(text))


# -- text --------------------------------------------------------------------------------------


def _bounded_command(command: str) -> str:
    text = command.strip()
    return text if len(text) <= COMMAND_MAX else text[: COMMAND_MAX - 1].rstrip() + "…"
