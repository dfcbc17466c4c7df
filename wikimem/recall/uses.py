"""Whether the agent used what the in-loop hooks delivered: an injected entry counts as used
when a run recorded for the same session ran a command the entry quotes, touched a path it
names, or cited it (`path#entry`) in its result.

Counted when read (and `last_seen` dates the latest delivery and use, for compaction's
`memory.unused_days`), from the injection log and the runs the queue holds (pending, active, done),
never stored: recall never writes, and a pruned run simply stops counting.

Invariant: deterministic for the same log, queue and index; a run, a log line or an index that
cannot be read counts nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikimem.recall import injections
from wikimem.recall.cues import open_index

if TYPE_CHECKING:
    from collections.abc import Mapping

CODE = re.compile(r"`([^`\n]{3,200})`")
JOB_STATES = ("pending", "active", "done")


@dataclass(frozen=True)
class Use:
    ref: str
    delivered: int
    used: int


def cues_of(body: str) -> tuple[list[str], list[str]]:
    """The commands (code spans of two words or more) and paths (a span with / or a dot in
    its one word) an entry quotes."""
    commands, paths = [], []
    for span in CODE.findall(body):
        span = " ".join(span.split())
        if " " in span:
            commands.append(span)
        elif "/" in span or "." in span.strip("."):
            paths.append(span)
    return commands, paths


def runs_by_session(queue: Path) -> dict[str, list[dict[str, Any]]]:
    """The runs the queue holds, by the session their run id or agent instance names."""
    found: dict[str, list[dict[str, Any]]] = {}
    for state in JOB_STATES:
        for path in sorted((queue / state).glob("*.json")):
            try:
                run = json.loads(path.read_text(encoding="utf-8"))["run"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if not isinstance(run, dict):
                continue
            session = str(run.get("run_id", "")).split(":", 1)[0]
            agent = run["agent"] if isinstance(run.get("agent"), dict) else {}
            for key in {session, str(agent.get("instance_id") or "")} - {""}:
                found.setdefault(key, []).append(run)
    return found


def used_in(run: dict[str, Any], ref: str, commands: list[str], paths: list[str]) -> bool:
    result = str(run.get("result") or "")
    if ref in result:
        return True
    for item in run.get("evidence") or []:
        if not isinstance(item, dict):
            continue
        ran = " ".join(str(item.get("command") or "").split())
        if ran and any(c in ran for c in commands):
            return True
        touched = str(item.get("path") or "")
        if touched and any(touched.endswith(p) or p.endswith(touched) for p in paths):
            return True
    return False


def counts(state: Path, queue: Path, index_file: Path) -> list[Use]:
    """Per delivered entry: how many times it was delivered, and in how many of those
    sessions a recorded run used it; best used first."""
    delivered: dict[str, set[str]] = {}
    times: dict[str, int] = {}
    for line in injections.read_all(state):
        for ref in line.get("entries") or ():  # type: ignore[attr-defined]
            times[str(ref)] = times.get(str(ref), 0) + 1
            delivered.setdefault(str(ref), set()).add(str(line.get("session") or ""))
    if not delivered:
        return []
    bodies: dict[str, str] = {}
    db = open_index(index_file)
    if db is not None:
        try:
            for path, entry, body in db.execute(
                "SELECT d.path, d.entry, fts.body FROM docs AS d JOIN fts ON fts.rowid = d.id"
                " WHERE d.entry != ''"
            ):
                if f"{path}#{entry}" in delivered:
                    bodies[f"{path}#{entry}"] = str(body or "")
        finally:
            db.close()
    runs = runs_by_session(queue)
    uses = []
    for ref, sessions in delivered.items():
        commands, paths = cues_of(bodies.get(ref, ""))
        used = sum(
            1
            for s in sessions
            if any(used_in(run, ref, commands, paths) for run in runs.get(s, []))
        )
        uses.append(Use(ref, times[ref], used))
    uses.sort(key=lambda u: (-u.used, -u.delivered, u.ref))
    return uses


@dataclass(frozen=True)
class Seen:
    """When the in-loop hooks were first and last seen delivering (`since`, `latest`: the
    oldest and newest logged days, "" when nothing was ever logged), and per entry the last
    day it was delivered and the last day a run of a session it was delivered to used it."""

    since: str
    latest: str
    delivered: dict[str, str]
    used: dict[str, str]


def last_seen(state: Path, queue: Path, bodies: Mapping[str, str]) -> Seen:
    """The days of `Seen` for the entries whose bodies are given (`path#entry` -> body): the
    caller has the bodies, so no index is read. A run is dated by its `ended_at` (else its
    `started_at`, else the day of the delivery it follows)."""
    since = latest = ""
    delivered: dict[str, str] = {}
    sessions: dict[str, dict[str, str]] = {}  # ref -> session -> the day it was last given
    for line in injections.read_all(state):
        day = str(line.get("at") or "")[:10]
        if not day:
            continue
        since = min(since, day) if since else day
        latest = max(latest, day)
        session = str(line.get("session") or "")
        for ref in line.get("entries") or ():  # type: ignore[attr-defined]
            ref = str(ref)
            if ref not in bodies:
                continue
            delivered[ref] = max(delivered.get(ref, ""), day)
            given = sessions.setdefault(ref, {})
            given[session] = max(given.get(session, ""), day)
    used: dict[str, str] = {}
    runs = runs_by_session(queue) if sessions else {}
    for ref, given in sessions.items():
        commands, paths = cues_of(bodies[ref])
        for session, day in given.items():
            for run in runs.get(session, []):
                if used_in(run, ref, commands, paths):
                    when = str(run.get("ended_at") or run.get("started_at") or "")[:10] or day
                    used[ref] = max(used.get(ref, ""), when)
    return Seen(since, latest, delivered, used)
