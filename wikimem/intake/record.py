"""The run record: parsed and checked once at the boundary, into frozen dataclasses.

`normalise` turns untrusted JSON (a runner's record, an adapter's output) into a RunRecord; the
same type is redacted and bounded (snapshot), queued, and handed to the pass and the prompt.
Its dict form (`to_dict`, read back by `from_dict`) exists only where a run leaves memory: the
queue's job file and the prompt's JSON. Only `task` is required; unknown fields are kept in
`extra` and ignored, bounded in number and size like the evidence items and candidates.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wikimem.errors import RecordError

EVIDENCE_KINDS = ("command", "file", "note")
ID_MAX = 128  # a run id or agent name rides in commit trailers and the pass log
# What survives of a run id and an agent's name and instance: letters, digits and a few marks;
# never a newline or another control character, which would forge a commit trailer.
UNSAFE_ID = re.compile(r"[^\w.:@+=/-]+")
UNSAFE_NAME = re.compile(r"[^\w .:@+=/()-]+")
KNOWN_FIELDS = {
    "run_id",
    "task",
    "status",
    "result",
    "agent",
    "started_at",
    "ended_at",
    "evidence",
    "memory",
}


# Bounds taken at intake, before anything is redacted, queued or shown to a model.
EXTRA_FIELDS = 16  # unknown top-level fields kept
EXTRA_MAX = 4000  # characters of one unknown field's value (as JSON when not a string)
EVIDENCE_ITEMS = 400  # evidence items kept: the first and the last half of this
MEMORY_ITEMS = 50  # candidates kept (a plan holds at most 20 edits)


@dataclass(frozen=True)
class Evidence:
    kind: str
    command: str = ""
    exit_code: int | None = None
    output: str = ""
    path: str = ""
    diff: str = ""
    text: str = ""
    ran: bool = True  # False: the runner rejected or interrupted the command before it ran
    running: bool = False  # True: still running when the run was recorded (no exit code yet)
    subagent: str = ""  # the subagent that ran it for the run's agent (its type), if one did

    def to_dict(self) -> dict[str, Any]:
        """The fields of its kind only, as normalise writes them."""
        fields: tuple[str, ...]
        if self.kind == "command":
            fields = ("command", "exit_code", "output") + (() if self.ran else ("ran",))
            fields += ("running",) if self.running else ()
            fields += ("subagent",) if self.subagent else ()
        elif self.kind == "file":
            fields = ("path", "diff") + (("subagent",) if self.subagent else ())
        else:
            fields = ("text",)
        return {"kind": self.kind, **{name: getattr(self, name) for name in fields}}


@dataclass(frozen=True)
class Candidate:
    """An explicit "remember this at this path" from a runner or an agent."""

    path: str
    content: str
    title: str = ""
    type: str = ""


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    task: str
    status: str = ""
    result: str = ""
    agent_name: str = ""
    agent_instance: str = ""
    started_at: str = ""
    ended_at: str = ""
    evidence: tuple[Evidence, ...] = ()
    memory: tuple[Candidate, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        """Read a canonical (already normalised) record."""
        agent = data.get("agent") or {}
        return cls(
            run_id=str(data["run_id"]),
            task=str(data["task"]),
            status=str(data.get("status") or ""),
            result=str(data.get("result") or ""),
            agent_name=str(agent.get("name") or ""),
            agent_instance=str(agent.get("instance_id") or ""),
            started_at=str(data.get("started_at") or ""),
            ended_at=str(data.get("ended_at") or ""),
            evidence=tuple(Evidence(**item) for item in data.get("evidence") or ()),
            memory=tuple(Candidate(**item) for item in data.get("memory") or ()),
            extra={k: v for k, v in data.items() if k not in KNOWN_FIELDS},
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical dict: what the queue stores and the prompt shows; from_dict's inverse."""
        return {
            **self.extra,
            "run_id": self.run_id,
            "task": self.task,
            "status": self.status,
            "result": self.result,
            "agent": {"name": self.agent_name, "instance_id": self.agent_instance},
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "evidence": [item.to_dict() for item in self.evidence],
            "memory": [
                {"path": c.path, "content": c.content, "title": c.title, "type": c.type}
                for c in self.memory
            ],
        }

    @property
    def agent(self) -> str:
        """`name/instance` for trailers and the pass log."""
        return "/".join(part for part in (self.agent_name, self.agent_instance) if part)


def parse_json(text: str, source: str = "input") -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    except RecursionError as exc:
        raise RecordError(f"{source}: JSON nested too deeply to be a run record") from exc
    if not isinstance(data, dict):
        raise RecordError(f"{source}: a run record must be a JSON object")
    return data


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _exit_code(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _evidence(item: Any) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        return {"kind": "note", "text": _text(item)}
    kind = item.get("kind")
    if kind not in EVIDENCE_KINDS:
        kind = "command" if "command" in item else "file" if "path" in item else "note"
    if kind == "command":
        output = item.get("output")
        if output is None:
            output = "\n".join(_text(item.get(k)) for k in ("stdout", "stderr") if item.get(k))
        command = {
            "kind": "command",
            "command": _text(item.get("command")),
            "exit_code": _exit_code(item.get("exit_code")),
            "output": _text(output),
        }
        if item.get("ran") is False:  # rejected or interrupted: not a failure, no exit code
            command.update(exit_code=None, ran=False)
        elif item.get("running") is True:  # moved to the background: no outcome yet
            command.update(exit_code=None, running=True)
        if isinstance(item.get("subagent"), str) and item["subagent"]:
            command["subagent"] = item["subagent"][:200]
        return command
    if kind == "file":
        change = {"kind": "file", "path": _text(item.get("path")), "diff": _text(item.get("diff"))}
        if isinstance(item.get("subagent"), str) and item["subagent"]:
            change["subagent"] = item["subagent"][:200]
        return change
    text = item.get("text")
    if text is None:
        text = {k: v for k, v in item.items() if k != "kind"}
    return {"kind": "note", "text": _text(text)}


def _candidate(item: Any, index: int) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise RecordError(f"memory[{index}] must be an object with path and content")
    content = item.get("content", item.get("body"))
    if not isinstance(item.get("path"), str) or not isinstance(content, str) or not content.strip():
        raise RecordError(f"memory[{index}] needs a string 'path' and a non-empty 'content'")
    return {
        "path": item["path"],
        "content": content,
        "title": _text(item.get("title")),
        "type": _text(item.get("type")),
    }


def safe_id(value: Any, unsafe: re.Pattern[str] = UNSAFE_ID) -> str:
    """`value` reduced to the safe set: each run of other characters becomes one `-`,
    spaces are collapsed, and the whole is capped at ID_MAX characters."""
    text = " ".join(unsafe.sub("-", _text(value)).split())
    return text.strip("-")[:ID_MAX].strip()


def derive_run_id(data: Mapping[str, Any]) -> str:
    """A stable id for records without one, so the same record enqueued twice is one job."""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    return f"run-{digest[:12]}"


def _extra_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The unknown top-level fields, bounded: they ride along into the queue and the prompt,
    so a runner's 25 MB field must not become a 25 MB prompt. A value is kept whole or
    dropped whole (never cut: a secret cut in half would no longer look like one)."""
    kept: dict[str, Any] = {}
    unknown = [k for k in data if k not in KNOWN_FIELDS]
    for key in unknown[:EXTRA_FIELDS]:
        value = data[key]
        size = _size(value)
        name = str(key)[:ID_MAX]
        kept[name] = value if size <= EXTRA_MAX else f"[dropped: {size} characters]"
    if len(unknown) > EXTRA_FIELDS:
        kept["fields_dropped"] = len(unknown) - EXTRA_FIELDS
    return kept


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    try:
        return len(json.dumps(value, ensure_ascii=False, default=str))
    except (RecursionError, ValueError, TypeError):
        return EXTRA_MAX + 1  # nested past reading, or not JSON: dropped


def normalise(data: Mapping[str, Any], source: str = "input") -> RunRecord:
    """Check an untrusted record and return it typed (not yet redacted or bounded)."""
    task = data.get("task")
    if not isinstance(task, str) or not task.strip():
        raise RecordError(f"{source}: a run record needs a non-empty 'task' string")
    evidence = data.get("evidence") or []
    memory = data.get("memory") or []
    if not isinstance(evidence, list):
        raise RecordError(f"{source}: 'evidence' must be a list")
    if not isinstance(memory, list):
        raise RecordError(f"{source}: 'memory' must be a list")
    agent = data.get("agent") or {}
    if isinstance(agent, str):
        agent = {"name": agent}
    if not isinstance(agent, Mapping):
        raise RecordError(f"{source}: 'agent' must be an object")
    run_id = safe_id(data.get("run_id"))
    canonical = _extra_fields(data)
    if len(evidence) > EVIDENCE_ITEMS:
        # the first and the last items: the failure and how the run ended
        half = EVIDENCE_ITEMS // 2
        canonical["evidence_dropped"] = len(evidence) - 2 * half
        evidence = evidence[:half] + evidence[-half:]
    if len(memory) > MEMORY_ITEMS:
        canonical["memory_dropped"] = len(memory) - MEMORY_ITEMS
        memory = memory[:MEMORY_ITEMS]
    canonical.update(
        {
            "run_id": run_id or derive_run_id(data),
            "task": task.strip(),
            "status": _text(data.get("status")),
            "result": _text(data.get("result")),
            "agent": {
                "name": safe_id(agent.get("name"), UNSAFE_NAME),
                "instance_id": safe_id(agent.get("instance_id"), UNSAFE_NAME),
            },
            "started_at": _text(data.get("started_at")),
            "ended_at": _text(data.get("ended_at")),
            "evidence": [_evidence(item) for item in evidence],
            "memory": [_candidate(item, i) for i, item in enumerate(memory)],
        }
    )
    return RunRecord.from_dict(canonical)
