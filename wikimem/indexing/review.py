"""The review inbox: plans that wait for a person, what each would change, and the lessons a
person dropped.

`review.mode` says what waits: `off` (nothing for its size; a person's own text is still
protected), `risky` (the default: mass removals, edits of a person's text, entries a stronger
source wrote), `all` (every plan that changes something). A dropped lesson is remembered by
its fingerprint (leaf, action, title), so the same lesson from a later run is set aside with
that reason instead of waiting again.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.config import Places
from wikimem.errors import NotFound, UsageError
from wikimem.fsio import atomic_write_text
from wikimem.indexing.plan import BY_RULES, RUNS
from wikimem.intake.queue import Job, Queue
from wikimem.wiki.pages import Wiki

MODES = ("off", "risky", "all")
DROPPED_FILE = "review-dropped.json"
DROPPED_REASON = "a person dropped this lesson before (`wikimem review drop`)"
MAX_DROPPED = 5000  # the file stays small; the oldest fingerprints go first
MODEL_KEY = "_model"  # in a held plan: the model (or the offline rules) that proposed it


@dataclass(frozen=True)
class Waiting:
    job: Job

    @property
    def edits(self) -> list[Mapping[str, Any]]:
        plan = self.job.held_plan or {}
        return [e for e in plan.get("edits", []) if isinstance(e, Mapping)]

    @property
    def proposed_by(self) -> str:
        """The model (or `offline-rules`) that proposed the plan; empty for older holds."""
        return str((self.job.held_plan or {}).get(MODEL_KEY) or "")

    def line(self) -> str:
        task = str(self.job.run.get("task", ""))[:60]
        edits = f"{len(self.edits)} edit(s)"
        return f"{self.job.id}  {self.job.run_id}  {edits}  {self.job.held_reason}  {task}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "job": self.job.id,
            "run_id": self.job.run_id,
            "task": self.job.run.get("task", ""),
            "reason": self.job.held_reason,
            "plan": self.job.held_plan,
        }


def waiting(places: Places) -> list[Waiting]:
    return [Waiting(job) for _, job in Queue(places.queue).jobs("review") if job is not None]


def find(places: Places, prefix: str) -> Waiting:
    found = [w for w in waiting(places) if prefix and w.job.id.startswith(prefix)]
    if len(found) != 1:
        raise NotFound(f"no single waiting change matches {prefix!r} (see `wikimem review`)")
    return found[0]


def diff(wiki: Wiki, item: Waiting) -> str:
    """What approving `item` would change, as a unified diff per leaf, with the run and the
    reason it waits, and each edit's own reason and sources."""
    run = item.job.run
    out = [
        f"job     {item.job.id}",
        f"run     {item.job.run_id}  ({run.get('runner', '?')}, {run.get('status', '?')})",
        f"task    {str(run.get('task', ''))[:200]}",
        f"waits   {item.job.held_reason}",
        *([f"by      {item.proposed_by}"] if item.proposed_by else []),
        "",
    ]
    for edit in item.edits:
        leaf, entry = str(edit.get("leaf", "")), str(edit.get("entry", ""))
        action = str(edit.get("action", "?"))
        try:
            bodies = wiki.entry_bodies(leaf) or {}
        except Exception:  # an unreadable leaf: show the edit alone
            bodies = {}
        old = bodies.get(entry, "")
        title = str(edit.get("title") or entry)
        new = "" if action == "remove" else f"## {title}\n\n{edit.get('body', '')}".rstrip()
        before = f"## {entry}\n\n{old}".rstrip() if old else ""
        why = f"  ({edit['reason']})" if edit.get("reason") else ""
        out.append(f"{action} {leaf}#{entry}{why}")
        out.extend(
            difflib.unified_diff(
                before.splitlines(),
                new.splitlines(),
                f"a/{leaf}/MEMORY.md",
                f"b/{leaf}/MEMORY.md",
                lineterm="",
            )
        )
        out.append(f"source  {source_line(edit, item.job.run_id)}")
        out.append("")
    evidence = evidence_lines(run)
    if evidence:
        out.append("evidence (what the run did, as it recorded it)")
        out.extend(f"  {line}" for line in evidence)
    return "\n".join(out).rstrip() + "\n"


CANDIDATE = "explicit memory candidate"  # the reason the rules give a run's own candidate
EVIDENCE_SHOWN = 12  # evidence lines `review show` lists; the rest are counted


def source_line(edit: Mapping[str, Any], run_id: str) -> str:
    """Who proposed an edit (a run's explicit candidate, the offline rules or the model) and
    the runs it came from."""
    if CANDIDATE in str(edit.get("reason", "")):
        who = "explicit memory candidate"
    elif edit.get(BY_RULES):
        who = "offline rules"
    else:
        who = "the model"
    named = edit.get(RUNS)
    runs = [str(r) for r in named] if isinstance(named, list) and named else [run_id]
    return f"{who}; run{'s' if len(runs) > 1 else ''} {', '.join(runs)}"


def evidence_lines(run: Mapping[str, Any]) -> list[str]:
    """The run's evidence a lesson is drawn from: each command with its exit code, each file
    it changed, one line each."""
    lines = []
    for item in run.get("evidence") or ():
        if not isinstance(item, Mapping):
            continue
        if item.get("command"):
            code = item.get("exit_code")
            status = (
                "running" if item.get("running") else f"exit {code}" if code is not None else ""
            )
            command = " ".join(str(item["command"]).split())[:120]
            lines.append(f"$ {command}  ({status or 'no exit code'})")
        elif item.get("path"):
            lines.append(f"{item.get('kind', 'file')} {str(item['path'])[:160]}")
    if len(lines) > EVIDENCE_SHOWN:
        lines[EVIDENCE_SHOWN:] = [f"... and {len(lines) - EVIDENCE_SHOWN} more"]
    return lines


def replace_plan(places: Places, item: Waiting, plan: Any) -> None:
    """A person's edit of a waiting plan: it must still be a plan (validation comes at approval,
    as for any plan)."""
    if not isinstance(plan, Mapping) or not isinstance(plan.get("edits"), list):
        raise UsageError('the edited plan must be a JSON object with an "edits" list')
    queue = Queue(places.queue)
    path = queue.path("review", item.job.id)
    job = item.job
    updated = Job.from_json(json.dumps({**json.loads(job.to_json()), "held_plan": dict(plan)}))
    atomic_write_text(path, updated.to_json())


def fingerprint(edit: Mapping[str, Any]) -> str:
    """The same lesson from another run: same leaf, action and title, whatever the wording."""
    title = re.sub(r"[^a-z0-9]+", " ", str(edit.get("title") or edit.get("entry") or "").lower())
    key = f"{edit.get('leaf', '')}|{edit.get('action', '')}|{title.strip()}"
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def _dropped_path(places: Places) -> Path:
    return places.state / DROPPED_FILE


def dropped(places: Places) -> set[str]:
    try:
        data = json.loads(_dropped_path(places).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(x) for x in data} if isinstance(data, list) else set()


def remember_dropped(places: Places, edits: Iterable[Mapping[str, Any]]) -> int:
    """Remember the lessons of a dropped plan; how many fingerprints are new."""
    path = _dropped_path(places)
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
        known = [str(x) for x in known] if isinstance(known, list) else []
    except (OSError, ValueError):
        known = []
    new = [f for f in dict.fromkeys(fingerprint(e) for e in edits) if f not in known]
    if new:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps((known + new)[-MAX_DROPPED:]))
    return len(new)
