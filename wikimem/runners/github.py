"""GitHub Actions adapter: an agent step's output file plus the run's provenance.

A CI step hands wikimem whatever the agent step left behind, and this module recognises it:
a run record, `claude -p --output-format json` (or its `--verbose` array, which is also the
shape of claude-code-action's execution file), `--output-format stream-json`, a Claude Code
transcript, `codex exec --json` events, a Codex rollout, or else a plain log, kept as a note.
Formats that do not carry the task take it from `WIKIMEM_TASK`, else name the step.

Invariant: every output yields a record (a log at worst), stamped with the run's provenance
under `source.github` and, unless the input names its own, run_id `gh-<run id>-<attempt>`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from wikimem.runners import claude, codex
from wikimem.runners.transcripts import OUTPUT_LIMIT, parse_jsonl

PROVENANCE = {
    "run_id": "GITHUB_RUN_ID",
    "run_attempt": "GITHUB_RUN_ATTEMPT",
    "run_number": "GITHUB_RUN_NUMBER",
    "repository": "GITHUB_REPOSITORY",
    "workflow": "GITHUB_WORKFLOW",
    "job": "GITHUB_JOB",
    "sha": "GITHUB_SHA",
    "ref": "GITHUB_REF",
    "event": "GITHUB_EVENT_NAME",
    "actor": "GITHUB_ACTOR",
    "runner_name": "RUNNER_NAME",
}
CODEX_EXEC = {
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.completed",
}
ROLLOUT = {"session_meta", "response_item", "event_msg", "turn_context"}


def provenance_from_env(env: Mapping[str, str]) -> dict[str, str]:
    """Who ran what, where: the GITHUB_* variables that are set, and a link to the run."""
    found = {key: env[name] for key, name in PROVENANCE.items() if env.get(name)}
    server, repo, run = (
        env.get("GITHUB_SERVER_URL"),
        env.get("GITHUB_REPOSITORY"),
        env.get("GITHUB_RUN_ID"),
    )
    if server and repo and run:
        found["url"] = f"{server.rstrip('/')}/{repo}/actions/runs/{run}"
    return found


def record_from_output(text: str, env: Mapping[str, str]) -> dict[str, Any]:
    """A run record from an agent step's output file, stamped with the run's provenance."""
    record = _from_json(text, env) or _from_jsonl(text, env) or _from_log(text, env)
    provenance = provenance_from_env(env)
    if provenance.get("run_id") and not record.get("run_id"):
        record["run_id"] = f"gh-{provenance['run_id']}-{provenance.get('run_attempt', '1')}"
    source = record.get("source")
    record["source"] = dict(source) if isinstance(source, Mapping) else {}
    if provenance:
        record["source"]["github"] = provenance
    return record


def _from_json(text: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, list):
        events = [e for e in value if isinstance(e, dict)]
        return _from_events(events, env) if events else None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("task"), str):
        return value
    if value.get("type") == "result":
        return _from_events([value], env)
    return None


def _from_jsonl(text: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    first = text.lstrip().split("\n", 1)[0]
    if not first.startswith("{"):
        return None
    events = list(parse_jsonl(text.splitlines()))
    return _from_events(events, env) if events else None


def _from_events(events: Sequence[dict[str, Any]], env: Mapping[str, str]) -> dict | None:
    kinds = {event.get("type") for event in events}
    if kinds & CODEX_EXEC:
        return _from_codex(codex.summarise_exec_events(events), "codex-exec-json", env)
    if "session_meta" in kinds or kinds <= ROLLOUT:
        return _from_codex(codex.summarise_rollout(events), "codex-rollout", env)
    if any("parentUuid" in e for e in events if e.get("type") in ("user", "assistant")):
        entries = claude.active_branch(e for line in events if (e := claude.entry_from_line(line)))
        return _from_claude(claude.summarise(entries), events, "claude-transcript", env)
    if kinds & {"result", "system", "assistant", "user"}:
        entries = [
            e
            for line in events
            if line.get("type") in ("user", "assistant")
            and not line.get("parent_tool_use_id")
            and (e := claude.entry_from_line(line))
        ]
        init = next((e for e in events if e.get("subtype") == "init"), {})
        turn = claude.summarise(entries, init.get("cwd") if isinstance(init, dict) else None)
        fmt = "claude-json" if len(events) == 1 else "claude-stream-json"
        return _from_claude(turn, events, fmt, env)
    return None


def _from_claude(
    turn: claude.Turn, events: Sequence[dict[str, Any]], fmt: str, env: Mapping[str, str]
) -> dict[str, Any]:
    final: Mapping[str, Any] = next((e for e in reversed(events) if e.get("type") == "result"), {})
    session = next(
        (e["session_id"] for e in events if isinstance(e.get("session_id"), str)),
        next((e["sessionId"] for e in events if isinstance(e.get("sessionId"), str)), ""),
    )
    record: dict[str, Any] = {
        "task": turn.task or _task(env),
        "agent": {"name": "claude-code", "instance_id": session},
    }
    if final:
        failed = final.get("is_error") or final.get("subtype") not in (None, "success")
        record["status"] = "failed" if failed else "succeeded"
    result = final.get("result") if isinstance(final.get("result"), str) else None
    if result or turn.result:
        record["result"] = result or turn.result
    notes = []
    if final.get("subtype") not in (None, "success"):
        notes.append({"kind": "note", "text": f"Claude Code ended with {final['subtype']}."})
    record["evidence"] = notes + turn.evidence
    record["source"] = {"format": fmt, "session_id": session}
    return record


def _from_codex(summary: codex.Summary, fmt: str, env: Mapping[str, str]) -> dict[str, Any]:
    summary.task = summary.task or _task(env)
    summary.cwd = summary.cwd or env.get("GITHUB_WORKSPACE")
    record = codex.record_from_summary(summary) or {"task": summary.task}
    record["status"] = "failed" if summary.failed else "succeeded"
    record["source"] = {"format": fmt, "thread_id": summary.thread_id or ""}
    return record


def _from_log(text: str, env: Mapping[str, str]) -> dict[str, Any]:
    tail = text[-OUTPUT_LIMIT:]
    if len(text) > OUTPUT_LIMIT and "\n" in tail:
        tail = tail.split("\n", 1)[1]  # start on a whole line
    record: dict[str, Any] = {"task": _task(env), "source": {"format": "log"}}
    if tail.strip():
        record["evidence"] = [{"kind": "note", "text": f"End of the agent step's log:\n{tail}"}]
    return record


def _task(env: Mapping[str, str]) -> str:
    if env.get("WIKIMEM_TASK"):
        return env["WIKIMEM_TASK"]
    step = "/".join(v for v in (env.get("GITHUB_WORKFLOW"), env.get("GITHUB_JOB")) if v)
    return f"CI agent step {step}" if step else "CI agent step"
