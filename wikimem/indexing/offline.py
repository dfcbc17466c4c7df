"""The offline rules extractor: what a run teaches when no model resolves.

Three rules, all conservative, because a wrong lesson is worse than none:

1. each explicit `memory` candidate becomes an `add` at its path;
2. each failure of the run that went away (`episodes`: a failing command, then the edits and
   commands up to the step that made it pass) becomes a procedural entry in the leaf that holds
   its tool (`layout.home`, the same leaf the prompt names to the model), titled as a person
   titles it (`bun install fails: lockfile had changes`): the error, why when the output says
   it, and the fix, meaning the files edited and the commands that changed something inside
   that episode, or the changed command that passed. A changed command that passed before code
   was edited is a workaround, and the edit is the fix. Commands that only look (`ls`, `cat`,
   `git log/status/diff/show`, `grep`, `kubectl get`, `--version`, ...), checks of another
   tool, commits, and commands that failed are not the fix. A changed command that the run
   itself calls temporary ("for now", "until the fixture ...") is a stopgap (`stopgap`): a
   `working` entry that says it only works around the failure, with the run's cause and what
   is left to do, due for review;
3. a failed run's failure that its output names a cause for, and that nothing fixed, becomes a
   `working` entry due for review two weeks after the run.

Anything else proposes nothing: a failure never followed by success in a run that did not fail;
a flaky retry (the same command passing with nothing done in between), since the rules cannot
tell what changed; a project script fixed by editing that script, or a test assertion or a
linter's finding fixed by editing code (a bug fixed, not a lesson); and a lesson an entry of the
wiki already holds under another id, meaning the same command, the same error and the same fix
(a person's or a model's words stay theirs; the plan's summary names that entry). The same
failure seen again keys to the same entry id (one-off values are placeholders, paths are
relative to the run's `cwd`), so it updates its entry instead of adding a near-duplicate.

Invariant: the plan is a pure function of the runs and the wiki view (same inputs, same plan,
byte for byte), so indexing a run again proposes exactly the entries it already wrote and
validation turns them into "no change". The plan is as untrusted as a model's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from wikimem.indexing.episodes import Episode, fixing, split
from wikimem.indexing.layout import DEFAULT_AREA, area, display_name, file_home, home
from wikimem.indexing.plan import (
    ALREADY_IN,
    MAX_BODY,
    RUNS,
    TYPES,
    RawPlan,
    clean_path,
    one_line,
)
from wikimem.indexing.prose import code, fenced, joined, placeholders, short_heading
from wikimem.indexing.shell import (
    SCRIPT_SUFFIX,
    command_tool,
    normal,
)
from wikimem.indexing.stopgap import Account, Stopgap, account, changed_words, stopgap
from wikimem.intake.record import Candidate, Evidence, RunRecord
from wikimem.wiki import markdown
from wikimem.wiki.markdown import slugify

NO_LESSON = "No durable lesson (offline rules)"
SIGNATURE_MAX = 200
COMMAND_MAX = 300
FIX_COMMANDS_MAX = 8
FILES_MAX = 5
TITLE_WORDS = 80  # the longest slug (entry id) of a title the rules write
REVIEW_DAYS = 14  # an open failure's entry asks for review after this long
DIFF_MAX = 800

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LABELLED = re.compile(
    r"^\s*(?:(?i:error|fatal|panic)\b|E {2,}\S|npm ERR!|FAILED |ERR_[A-Z_]+|\*\* \([\w.]+\) )"
)
_KEYWORD = re.compile(
    r"\b(?:errors?|failed|failure|fatal|exception|cannot|can't|could not|couldn't|unable to"
    r"|not found|no such|denied|refused|timed out|panic|no required module|unsupported|invalid"
    r"|missing|conflict|forbidden|unauthori[sz]ed|(?:is|are) ignored by)\b",
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
    r"\bAssertionError\b|^\s*E\s+assert\s|\bExpected:|\bexpect\(.*\)\.to"
    r"|^\S+:\d+: assert |^FAILED \S+::\S+ - assert |\bassertion `[^`]*` failed|\bpanicked at\b"
    r"|^--- FAIL: Test|^\s*\d+\) .*\n\s*(?:Failure/Error|Expected)"
    r"|^\s*Assertion with \S+ failed",
    re.MULTILINE,
)
# Lines a tool prints on every failure of a kind: advice, never the cause.
_GENERIC_HINT = re.compile(
    r"make sure your test modules/packages have valid Python names"
    r"|rerun with --verbose|run with --stacktrace|for more information about this error",
    re.IGNORECASE,
)
_OURS = re.compile(
    r"(?:`.*` fails with exit code \d+[.:]|The output says why: |When it fails this way, "
    r"|`[^`\n]+`:$|`.*` passes, but only works around it\.$|The fix: |Decided in the run: "
    r"|Still open: the run ended failed|Tried without success: |Tried, and it still fails: "
    r"|(?:Run .*: that|`.*`) passes, but it only works around the failure\.$"
    r"|The run says so: |Why it fails, as the run found: |Still to do(?:, as the run says)?: )"
)
_ACCOUNT = ("Why it fails, as the run found: ", "Still to do, as the run says: ")
_FENCED = re.compile(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_HINT = re.compile(r"^(?i:note|hint|help|tip|caused by|reason)\s*:\s*\S")
_PYTEST_MARK = re.compile(r"^\s*E {2,}")  # pytest's margin for the failure lines
# Tools whose verbs come in groups: `gcloud run deploy`, `aws s3 cp`, `gh pr create`.
GROUPED = frozenset({"gcloud", "aws", "az", "gh"})
# Test and lint tools whose first word is a verb (for the rest it names tests or paths).
VERBED = frozenset({"playwright", "ruff", "golangci-lint", "biome", "vitest"})
# Words too common to tell one error from another.
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
    passed: Evidence | None  # None: the same command failed next with another error
    commands: tuple[str, ...]  # in order; when `changed`, the last is the changed command
    files: tuple[Evidence, ...]
    changed: bool
    workaround: str = ""  # a changed command that passed before the edit that fixed it
    confirmed: str = ""  # the command that passed after that edit


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
    seen: dict[tuple[str, str], dict[str, Any]] = {}  # (leaf, entry): its edit
    taught: list[tuple[str, int]] = []
    already: list[str] = []
    for run in runs:
        run = localised(run)
        found = 0
        proposed = [candidate_edit(run, c) for c in run.memory]
        told = " ".join(c.content.lower() for c in run.memory)
        fixes = find_fixes(run.evidence)
        lessons = [
            (fix, fix_edit(run, fix, known.homes, others=[f for f in fixes if f is not fix]))
            for fix in fixes
        ]
        lessons += open_edits(run, known.homes)
        for fix, edit in lessons:
            if edit["leaf"] in known.existing:  # the page's title and summary are its own
                del edit["leaf_title"], edit["leaf_summary"]
            if _told(told, fix):
                continue
            same = described_elsewhere(edit, fix, known)
            if same:
                already.append(same)
                continue
            if known.persons(edit["leaf"], edit["entry"]):
                continue
            if owned is not None and owned(edit["leaf"], edit["entry"]):
                continue
            stored = known.bodies.get((edit["leaf"], edit["entry"]))
            if stored is not None and _unsaid(stored) == _unsaid(edit["body"]):
                edit["body"] = stored  # the same lesson in another run's words: keep the first's
            proposed.append(edit)
        for edit in proposed:
            key = (clean_path(edit["leaf"])[0] or edit["leaf"], edit["entry"])
            if key not in seen:
                seen[key] = {**edit, RUNS: [run.run_id]}
                edits.append(seen[key])
                found += 1
            elif run.run_id not in seen[key][RUNS]:
                # the same lesson from a later run of the batch: that run supports it too
                seen[key][RUNS].append(run.run_id)
        if found:
            taught.append((run.run_id, found))
    summary = _summary(taught)
    if not edits and already:
        summary = ALREADY_IN + ", ".join(dict.fromkeys(already))
    return RawPlan(summary=summary, edits=tuple(edits))


def _unsaid(body: str) -> str:
    """A body without the run's own account of the failure: what another run of the same
    lesson renders the same (the account is in each run's words)."""
    blocks = re.split(r"\n\s*\n", body.strip())
    return "\n\n".join(b for b in blocks if not b.startswith(_ACCOUNT))


def localised(run: RunRecord) -> RunRecord:
    """The run with paths under its own `cwd` written relative to it, as a reader's checkout
    has them: `/home/ci/wt/app-7f3a/lib/app.ex` is `lib/app.ex` in every checkout. The runner
    adapters record the folder in `source.cwd`; a hand-written record may give it at the top."""
    source = run.extra.get("source")
    cwd = run.extra.get("cwd") or (source.get("cwd") if isinstance(source, dict) else "")
    cwd = str(cwd or "").rstrip("/")
    if len(cwd) < 2:
        return run

    # the same folder as a shell writes it from HOME (`~/projects/app` for /home/ada/projects/app)
    home = re.match(r"^/(?:home|Users)/[^/]+(/.+)$", cwd)
    tilde = "~" + home.group(1) if home else ""

    def rel(text: str) -> str:
        text = text.replace(cwd + "/", "").replace(cwd, ".")
        return text.replace(tilde + "/", "").replace(tilde, ".") if tilde else text

    evidence = tuple(
        replace(
            e,
            command=rel(e.command),
            output=rel(e.output),
            path=rel(e.path),
            diff=rel(e.diff),
            text=rel(e.text),
        )
        for e in run.evidence
    )
    return replace(run, evidence=evidence, result=rel(run.result))


def described_elsewhere(edit: Mapping[str, Any], fix: Fix, known: Known) -> str:
    """The ref (`leaf#entry`) of another entry that already holds this lesson: the same
    command, the same failure and the same fix; "" when none does.

    A stored entry about the same command whose error or fix differs does not silence a new
    lesson (another missing module is another lesson). The rules' own entry (same leaf, same
    id) is not "elsewhere": proposing it again updates it, or changes nothing.
    """
    name = command_label(fix.failed.command).lower()
    what = symptom(placeholders(signature(fix.failed.output), fix.failed.output), fix)
    words = _meaning_words(what)
    if not words:
        return ""
    parts = [_meaning_words(part) for part in re.split(r":\s+", what)]
    clauses = [words] + [part for part in parts if len(part) >= 3]
    keys = _fix_keys(fix)
    for leaf, entry, text in known.entries:
        if (leaf, entry) == (edit["leaf"], edit["entry"]):
            continue
        if name not in text:
            continue
        held = set(_WORD.findall(text))
        if not any(
            sum(w in held for w in clause) >= max(1, round(0.8 * len(clause))) for clause in clauses
        ):
            continue  # the error, or one clause of it (`port is already allocated`), is there
        if any(w not in held for w in _quoted_words(what)):
            continue  # `No module named 'yaml'` is not `No module named 'build'`
        said = text.replace(normal(fix.failed.command).lower(), " ")
        if all(key in said for key in keys):
            return f"{leaf}#{entry}"
    return ""


def _meaning_words(text: str) -> list[str]:
    found = [w for w in _WORD.findall(re.sub(r"<[A-Z_]+>", " ", text.lower())) if len(w) > 2]
    return [w for w in dict.fromkeys(found) if w not in _COMMON or len(found) < 3]


def _quoted_words(text: str) -> list[str]:
    quoted = re.findall(r"['\"`]([^'\"`]+)['\"`]", text.lower())
    quoted += re.findall(r"\bnamed (\S+)", text.lower())
    return [w for q in quoted for w in _WORD.findall(q)]


def _fix_keys(fix: Fix) -> list[str]:
    """What a stored entry must say to hold the same fix: each command, each file edited."""
    context = fix.failed.output
    keys = [placeholders(normal(c), context).lower() for c in fix.commands if not c.startswith("#")]
    keys += [f.path.lower() for f in fix.files]
    return keys


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


def find_fixes(evidence: Sequence[Evidence], cwd: str = "") -> list[Fix]:
    """Each failure of the run that went away, with its own fix (see `episodes`)."""
    fixes: list[Fix] = []
    for episode in split(evidence, signature):
        fix = _fix(episode)
        if fix is not None:
            fixes.append(fix)
    return fixes


def _fix(episode: Episode) -> Fix | None:
    if not episode.resolved:
        return None
    failed = episode.failed
    commands = _fix_commands(failed, episode.commands)
    files = episode.files[:FILES_MAX]
    workaround = episode.workaround
    if (workaround is None and not commands and files) and (
        _own_script(failed.command, files) or _ordinary(failed)
    ):
        # A project script failing until the script itself was edited, a test assertion or a
        # linter's complaint until the code was edited: a bug fixed, not a lesson. (A command
        # that passed run differently first says it is more than a bug.)
        return None
    passing = episode.passed
    if episode.changed and passing is not None:
        if _autofix(passing.command):
            return None  # the linter fixing what it reported says nothing a reader needs
        commands += (_bounded_command(passing.command),)
    elif not commands and not files:
        # The same command passed with nothing done in between: a flaky retry, or a fix made
        # outside the run's evidence. Neither is a lesson the rules can state truthfully.
        return None
    return Fix(
        failed,
        passing,
        commands,
        files,
        episode.changed,
        workaround.command if workaround is not None else "",
        passing.command if passing is not None and workaround is not None else "",
    )


def _fix_commands(failed: Evidence, between: Sequence[Evidence]) -> tuple[str, ...]:
    commands: list[str] = []
    for item in between:
        if not fixing(failed, item.command):
            continue
        command = _bounded_command(item.command)
        if command not in commands:
            commands.append(command)
    if len(commands) > FIX_COMMANDS_MAX:
        hidden = len(commands) - FIX_COMMANDS_MAX + 1
        commands = commands[: FIX_COMMANDS_MAX - 1] + [f"# ... and {hidden} more commands"]
    return tuple(commands)


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


def fix_edit(
    run: RunRecord,
    fix: Fix,
    homes: Mapping[str, str] | None = None,
    *,
    others: Sequence[Fix] = (),
) -> dict[str, Any]:
    tool = command_tool(fix.failed.command)
    sig = placeholders(signature(fix.failed.output), fix.failed.output)
    leaf, name = _where(fix, homes)
    gap = _stopgap(run, fix, others)
    decision = _decision(run) if fix.workaround else ""
    told = None if gap else _account(run, fix.failed, [f.failed for f in others], fixed=True)
    body = fix_body(fix, sig, with_diffs=True, decision=decision, gap=gap, told=told)
    if len(body) > MAX_BODY:
        body = fix_body(fix, sig, with_diffs=False, gap=gap, told=told)
    title = fix_title(fix, sig)
    edit: dict[str, Any] = {
        "action": "add",
        "leaf": leaf,
        "entry": entry_id(title),
        "title": title,
        "type": "procedural",
        "body": body,
        "reason": "a failing command passed later in the same run (offline rules)" if tool else "",
        "leaf_title": name,
        "leaf_summary": f"{name} failures and the fixes that worked.",
    }
    if gap is not None:
        # What works today is known; the fix is not: a working note, due for review.
        edit["type"] = "working"
        edit["reason"] = "a failing command passed run differently, as a stopgap (offline rules)"
        review = _review_by(run)
        if review:
            edit["meta"] = {"review-by": review}
    return edit


def _account(
    run: RunRecord, failed: Evidence, others: Sequence[Evidence], *, fixed: bool
) -> Account:
    """The run's own words on why `failed` failed (and, left open, what it still needs)."""
    rivals = [f"{o.command} {signature(o.output)}" for o in others if o is not failed]
    return account(
        run,
        failed.command,
        signature(failed.output),
        output=failed.output,
        others=rivals,
        fixed=fixed,
    )


def _stopgap(run: RunRecord, fix: Fix, others: Sequence[Fix]) -> Stopgap | None:
    """The run's own words that the changed command it ended on is only a stopgap."""
    if not fix.changed or fix.workaround or fix.files or fix.passed is None:
        return None
    elsewhere = [
        word
        for other in others
        if other.changed and other.passed is not None
        for word in changed_words(other.failed.command, other.passed.command)
    ]
    error = signature(fix.failed.output)
    return stopgap(run, fix.failed.command, fix.passed.command, error, others=elsewhere)


def _where(fix: Fix, homes: Mapping[str, str] | None) -> tuple[str, str]:
    """The leaf a failure's lesson goes to and the name of its tool."""
    tool = _lesson_tool(fix.failed)
    name = display_name(tool, _written_tool(fix.failed.command, tool) or tool)
    leaf = (homes or {}).get(tool) or home(tool, ())
    if area(tool) == DEFAULT_AREA:  # a generic tool (`curl`): the files it was fixed in say where
        where, what = file_home([f.path for f in fix.files])
        if where:
            leaf, name = where, what
    return leaf, name


def _lesson_tool(failed: Evidence) -> str:
    """The tool a failure belongs to: the command's, or for a project script (`e2e.sh`) the
    known tool its output says it ran (`> playwright test`)."""
    tool = command_tool(failed.command)
    words = normal(failed.command).split(" ")
    if len(words) > 1 and words[0] in {"node", "deno", "bun"} and SCRIPT_SUFFIX.search(words[1]):
        return words[0]  # `node assets/build.js`: a project's script, a lesson about node
    script = any(SCRIPT_SUFFIX.search(w) for w in words[:2])
    if area(tool) != DEFAULT_AREA or not script:
        return tool
    for line in failed.output.splitlines():
        if line.startswith("> ") and not line.startswith("> " + tool):
            named = command_tool(line[2:])
            if named and area(named) != DEFAULT_AREA:
                return named
    return tool


def open_edits(run: RunRecord, homes: Mapping[str, str]) -> list[tuple[Fix, dict[str, Any]]]:
    """What a failed run found and did not fix: a `working` entry per failure whose output
    names its cause, to review in two weeks (the run that fixes it updates the entry)."""
    if run.status.strip().lower() not in {"failed", "failure", "error", "errored"}:
        return []
    out = []
    episodes = split(run.evidence, signature)
    failures = [e.failed for e in episodes]
    for episode in episodes:
        if episode.resolved:
            continue
        sig = placeholders(signature(episode.failed.output), episode.failed.output)
        if not _clear(episode.failed.output):
            continue
        fix = Fix(episode.failed, None, (), (), False)
        leaf, name = _where(fix, homes)
        title = fix_title(fix, sig)
        edit: dict[str, Any] = {
            "action": "add",
            "leaf": leaf,
            "entry": entry_id(title),
            "title": title,
            "type": "working",
            "body": open_body(episode, sig, _account(run, episode.failed, failures, fixed=False)),
            "reason": "a failure the run ended on, with its cause (offline rules)",
            "leaf_title": name,
            "leaf_summary": f"{name} failures and the fixes that worked.",
        }
        review = _review_by(run)
        if review:
            edit["meta"] = {"review-by": review}
        out.append((fix, edit))
    return out


def _clear(output: str) -> bool:
    """Whether a failing output names its cause: a labelled error line or an exception."""
    lines = [_ANSI.sub("", line).strip() for line in output.splitlines()]
    return any(
        _LABELLED.match(line) or re.match(r"^[A-Z]\w*(?:Error|Exception): \S", line)
        for line in lines
    )


def _review_by(run: RunRecord) -> str:
    day = (run.ended_at or run.started_at)[:10]
    try:
        return (date.fromisoformat(day) + timedelta(days=REVIEW_DAYS)).isoformat()
    except ValueError:
        return ""


def open_body(episode: Episode, sig: str, told: Account | None = None) -> str:
    failed = episode.failed
    context = failed.output
    blocks = _failure_blocks(failed, sig)
    blocks.append("Still open: the run ended failed without a fix for it.")
    if told and told.cause:
        blocks.append(f"Why it fails, as the run found: {_quoted(told.cause, context)}")
    if told and told.todo:
        blocks.append(f"Still to do, as the run says: {_quoted(told.todo, context)}")
    tried = [code(placeholders(normal(t.command), t.output)) for t in episode.tried][:4]
    if tried:
        blocks.append(f"Tried without success: {joined(tried)}.")
    done = [code(placeholders(normal(c.command), context)) for c in episode.commands][:4]
    if done:
        blocks.append(f"Tried, and it still fails: {joined(done)}.")
    return "\n\n".join(blocks)


def _decision(run: RunRecord) -> str:
    """A decision the run's result states in so many words (`Decision recorded: ...`)."""
    for sentence in re.split(r"(?<=[.!])\s+", run.result):
        match = re.match(r"^(?:the\s+)?decision(?:\s+\w+){0,4}?\s*:\s*(.+)", sentence, re.I)
        if match:
            return one_line(match.group(1).rstrip("."), SIGNATURE_MAX)
    return ""


def fix_title(fix: Fix, sig: str) -> str:
    """As a person titles a lesson: the command and what goes wrong, `bun install fails:
    lockfile had changes`, short enough for a 48-character id."""
    name = command_label(fix.failed.command)
    what = symptom(sig, fix)
    if not what:
        return short_heading(f"{name} exits with code {fix.failed.exit_code}", TITLE_WORDS)
    return short_heading(f"{name} fails: {what}", TITLE_WORDS)


def entry_id(title: str) -> str:
    """The entry id of a title: its slug, the GitHub anchor of its heading."""
    return slugify(title)


def symptom(sig: str, fix: Fix) -> str:
    """The error in few words: no labels, no leading path, no exception class where its
    message says it (`database is locked`, not `sqlite3.OperationalError: database is locked`)."""
    what = _core(sig, command_tool(fix.failed.command))
    what = re.sub(r"^(?:\S*/\S*|<[A-Z_]+>):\s+(?=\S)", "", what)  # `/usr/bin/python: ...`
    what = re.sub(r"^(?:[A-Z]\w*\.)*[A-Z]\w*(?:Error|Exception):\s+(?=\S+\s+\S+\s+\S)", "", what)
    return what.strip(" .:")


def command_label(command: str) -> str:
    """`python -m build` as written, else the tool and its verb (`command_name`)."""
    words = normal(command).split(" ")
    tool = command_tool(command)
    for k in range(len(words) - 2):
        if (
            words[k + 1] == "-m"
            and _base_word(words[k]).startswith("python")
            and (words[k + 2].lower() == tool)
        ):
            return f"python -m {words[k + 2]}"
    return command_name(command)


def _base_word(word: str) -> str:
    return word.rsplit("/", 1)[-1].lower()


def _failure_blocks(failed_item: Evidence, sig: str) -> list[str]:
    context = failed_item.output
    failed = code(placeholders(normal(failed_item.command), context))
    if sig:
        blocks = [f"{failed} fails with exit code {failed_item.exit_code}:", fenced(sig, "text")]
    else:
        blocks = [f"{failed} fails with exit code {failed_item.exit_code}."]
    hint = _hint(failed_item.output)
    if hint:
        blocks.append(f"The output says why: {code(placeholders(hint, context))}.")
    return blocks


def fix_body(
    fix: Fix,
    sig: str,
    *,
    with_diffs: bool,
    decision: str = "",
    gap: Stopgap | None = None,
    told: Account | None = None,
) -> str:
    context = fix.failed.output
    blocks = _failure_blocks(fix.failed, sig)
    if told and told.cause:
        blocks.append(f"Why it fails, as the run found: {_quoted(told.cause, context)}")
    steps: list[str] = []
    if fix.files:
        steps.append(
            "edit " + joined([code(f.path) for f in fix.files]) + _as_below(fix, with_diffs)
        )
    commands = [placeholders(c, context) for c in fix.commands]
    shown_apart = len(commands) > 3
    if fix.workaround:
        around = code(placeholders(normal(fix.workaround), context))
        blocks.append(f"{around} passes, but only works around it.")
    if fix.changed:
        run_first = commands[:-1]
        if run_first and not shown_apart:
            steps.append("run " + joined([code(c) for c in run_first]))
        if shown_apart:
            steps.append("run the commands below")
        sentence = "When it fails this way, " + (" and ".join(steps) + ", then " if steps else "")
        sentence += f"run it as {code(commands[-1])} instead: that passes."
        if gap is not None:
            sentence = f"{code(commands[-1])} passes, but it only works around the failure."
            if steps:
                first = " and ".join(steps)
                sentence = f"{first[0].upper()}{first[1:]}, then {code(commands[-1])}: that passes,"
                sentence += " but it only works around the failure."
    else:
        if shown_apart:
            steps.append("run the commands below")
        elif commands:
            steps.append("run " + joined([code(c) for c in commands]))
        if fix.passed is None:
            then = "; then it no longer fails this way."
        elif fix.confirmed:
            then = f"; then {code(placeholders(normal(fix.confirmed), context))} passes."
        else:
            then = "; then the same command passes."
        sentence = f"When it fails this way, {' and '.join(steps)}{then}"
        if fix.workaround:
            sentence = "The fix: " + sentence.removeprefix("When it fails this way, ")
    blocks.append(sentence)
    if gap is not None:
        blocks += _gap_blocks(gap, context)
    if decision:
        blocks.append(f"Decided in the run: {placeholders(decision, context)}.")
    for item in fix.files:
        diff = placeholders(item.diff.strip("\n"), context)
        if with_diffs and diff and len(diff) <= DIFF_MAX:
            blocks += [f"{code(item.path)}:", fenced(diff, "diff")]
    if shown_apart:
        blocks.append(fenced("\n".join(commands), "sh"))
    # The run is named in the commit's trailers, not here: the same lesson from another run
    # must render the same bytes, so indexing it again changes nothing.
    return "\n\n".join(blocks)


def _gap_blocks(gap: Stopgap, context: str) -> list[str]:
    blocks = [f"The run says so: {_quoted(gap.said, context)}"]
    if gap.cause:
        blocks.append(f"Why it fails, as the run found: {_quoted(gap.cause, context)}")
    if gap.todo:
        blocks.append(f"Still to do: {_quoted(gap.todo, context)}")
    return blocks


def _quoted(sentence: str, context: str) -> str:
    text = placeholders(sentence, context)
    return text if text.endswith((".", "!", "?", "…", ".)")) else text.rstrip(";:,") + "."


def _as_below(fix: Fix, with_diffs: bool) -> str:
    shown = with_diffs and any(f.diff.strip() and len(f.diff) <= DIFF_MAX for f in fix.files)
    return " as below" if shown else ""


def _hint(output: str) -> str:
    """A line in which the tool itself says what to do or why (`note:`, `hint:`, `help:`)."""
    for line in output.splitlines():
        text = _ANSI.sub("", line).strip()
        if _HINT.match(text) and not _GENERIC_HINT.search(text):
            return one_line(text, SIGNATURE_MAX)
    return ""


def _core(sig: str, tool: str = "") -> str:
    """What failed, without the labels around it: `Error:`, `npm ERR! code`, `(gcloud.run)`."""
    return ": ".join(part for part in (_core_line(x, tool) for x in sig.split("\n")) if part)


def _core_line(line: str, tool: str) -> str:
    message = re.search(r'"message"\s*:\s*"([^"]+)"', line)  # an API's JSON error
    text = message.group(1) if message else _LABEL.sub("", line).strip()
    text = re.sub(r"^\*\* \(([\w.]+)\)\s*", r"\1: ", text)  # Elixir's `** (RuntimeError) ...`
    if tool and text.lower().startswith(tool + ":"):  # `curl: (22) ...`
        text = text[len(tool) + 1 :].strip()
    text = re.sub(r"^\([\w.-]+\)\s*", "", text)  # gcloud's `(gcloud.run.deploy)`, curl's `(22)`
    text = re.sub(r"^(?:[a-z_]\w*\.)+(?=[A-Z]\w*(?:Error|Exception)\b)", "", text)
    sentences = re.split(r"(?<=\w)[.;] ", text)
    # A later sentence that gives the reason says more than "X is not ready".
    text = next((x for x in sentences[1:] if _REASON.search(x)), sentences[0])
    text = re.sub(r"\s\([^()]*\)(?=\s\S)", "", text)  # `ERROR 42P01 (undefined_table) relation`
    text = re.split(r", but | - | \(|: \{", text, maxsplit=1)[0]
    return text.strip(" .:")


def command_name(command: str) -> str:
    """The tool and its subcommand as a person names them: `terraform plan`, `npx playwright`."""
    tool = command_tool(command)
    words = normal(command).split(" ")
    at = next((k for k, w in enumerate(words) if command_tool(w) == tool), None)
    if at is None:
        return tool
    name = [words[at].removeprefix("./")]
    # the verb comes right after the tool (a `+1.83` selector aside); after a flag, a word is
    # the flag's value (`pytest -n auto`), and a test runner's words are test names
    nxt = next((w for w in words[at + 1 :] if not w.startswith("+")), "")
    verb = re.fullmatch(r"[a-z][a-z0-9:._-]*", nxt) and not SCRIPT_SUFFIX.search(nxt)
    if verb and (area(tool) not in {"testing", "lint"} or tool in VERBED):
        name.append(nxt)
        after = words[at + 1 :][words[at + 1 :].index(nxt) + 1 :]
        grouped = tool in GROUPED or (nxt == "run" and tool in {"npm", "pnpm", "yarn", "bun"})
        if grouped and after and re.fullmatch(r"[a-z][a-z0-9:_-]*", after[0]):
            name.append(after[0])  # `gcloud run deploy`, `gh pr create`
    return " ".join(name)


def _written_tool(command: str, tool: str) -> str:
    return next((w for w in normal(command).split(" ") if command_tool(w) == tool), "")


def signature(output: str) -> str:
    """The most telling line of a failing command's output, on one line, bounded."""
    if "\n" not in output and output.count("\\n") >= 2:
        # a message a tool printed JSON-escaped (`failed:\\n\\n[FORMAT] ...`) is lines too
        output = output.replace("\\n", "\n")
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
    at = lines.index(line)
    if _heading(line) and at + 1 < len(lines):
        line = lines[at + 1]  # `● Test suite failed to run`, `Extension error:`: the next line says
    if re.fullmatch(r"[A-Z0-9_]{3,}", _LABEL.sub("", line).strip()):  # `npm ERR! code E...`
        after = lines[lines.index(line) + 1 :]
        # the next labelled line that says something (`npm ERR!` alone says nothing)
        more = next((x for x in after if _LABELLED.match(x) and _LABEL.sub("", x).strip()), "")
        if more:
            line = f"{line}\n{more}"
    return "\n".join(one_line(_PYTEST_MARK.sub("", x), SIGNATURE_MAX) for x in line.split("\n"))


def _heading(line: str) -> bool:
    """A line that only announces the error below it: jest's `● Test suite failed to run`, a
    short `Extension error:`."""
    text = line.strip()
    short = len(text.split()) <= 6
    return short and (text.startswith("●") or (text.endswith(":") and not text.endswith("::")))


def _decoration(line: str) -> bool:
    """`==== FAILURES ====`, rules of dashes and a runner's own `make: *** [build] Error 1` say
    nothing about the failure."""
    text = line.strip()
    return sum(ch.isalnum() for ch in text) * 3 < len(text) or bool(_WRAPPER.match(text))


# -- text --------------------------------------------------------------------------------------


def _bounded_command(command: str) -> str:
    text = command.strip()
    return text if len(text) <= COMMAND_MAX else text[: COMMAND_MAX - 1].rstrip() + "…"
