"""Status: what a person needs to know at a glance about a workspace's memory."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from wikimem.config import Places, Settings
from wikimem.indexing.extractor import NO_MODEL_WARNING
from wikimem.intake import passlog
from wikimem.intake.background import RETRY_LOCK, lock_held
from wikimem.intake.listener import ping
from wikimem.intake.queue import Queue
from wikimem.providers.provider import provider_name
from wikimem.recall import injections, uses


@dataclass(frozen=True)
class Status:
    workspace: str
    wiki: str
    model: str | None
    model_source: str
    endpoint: str | None
    paused: bool
    queue: dict[str, int]
    failed_jobs: list[dict[str, Any]] = field(default_factory=list)
    passes: list[dict[str, Any]] = field(default_factory=list)
    runs_seen: int = 0
    no_change_share: float | None = None
    warning: str | None = None
    listener: dict[str, Any] | None = None  # a warm intake listener's pid and runs taken
    provider: str = "wiki"  # memory.provider
    stranded: dict[str, int] = field(default_factory=dict)  # jobs made for another provider
    held_jobs: list[dict[str, Any]] = field(default_factory=list)  # in review, with the reason
    next_retry: float | None = None  # seconds until the first job backing off is due
    retry_waiter: bool = False  # a background pass stays for it (queue.retry_wait)
    # what the in-loop hooks handed agents: injections, distinct entries, the last one's time
    delivered: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        unused = f" (not used: memory goes to provider {self.provider!r})"
        out = [
            f"workspace  {self.workspace}",
            f"wiki       {self.wiki}{unused if self.provider != 'wiki' else ''}",
        ]
        if self.model:
            out.append(
                f"model      {self.model} ({self.model_source})"
                f"{' at ' + self.endpoint if self.endpoint else ''}"
            )
        elif "model.offline" in self.model_source:
            out.append("model      none: the offline rules, on purpose (model.offline)")
        else:
            out.append(f"model      none: {NO_MODEL_WARNING}")
        if self.paused:
            out.append("paused     yes: hooks and context do nothing (`wikimem resume`)")
        if self.listener:
            out.append(
                f"listener   pid {self.listener['pid']}, {self.listener['runs']} run(s) "
                "taken (`wikimem listen --stop`)"
            )
        if self.provider != "wiki":
            out.append(f"provider   {self.provider} (memory.provider)")
        for other, n in sorted(self.stranded.items()):
            out.append(
                f"provider   {n} job(s) made for provider {other!r} are not replayed into "
                f"{self.provider!r} (held in review)"
            )
        depth = ", ".join(f"{n} {s}" for s, n in self.queue.items() if n and s != "done")
        out.append(f"queue      {depth or 'empty'} ({self.queue.get('done', 0)} done)")
        if self.next_retry is not None:
            who = (
                "a background pass waits for it"
                if self.retry_waiter
                else "the next hook or `wikimem index` takes it"
            )
            out.append(f"  retry    the next is due in {max(self.next_retry, 0):.0f} s; {who}")
        for job in self.failed_jobs:
            out.append(f"  failed   {job['job']} {job['run_id']}: {job['error']}")
        for job in self.held_jobs:
            out.append(
                f"  held     {job['job']} {job['run_id']}: {job['reason']} "
                f"(`wikimem review show {job['job']}`, then `wikimem review approve` or "
                "`review drop`)"
            )
        if self.delivered.get("injections"):
            d = self.delivered
            out.append(
                f"delivered  {d['injections']} time(s) to agents, {d['entries']} distinct "
                f"entr{'y' if d['entries'] == 1 else 'ies'} ({d['used']} used by a run"
                f" after), last {d['last']} "
                "(.clarvis/state/injections/)"
            )
        if self.no_change_share is not None:
            out.append(f"no change  {self.no_change_share:.0%} of the last {self.runs_seen} runs")
        if self.passes:
            out.append("last passes:")
        for item in self.passes:
            commit = f" {item['commit'][:7]}" if item.get("commit") else ""
            out.append(f"  {item['time']}  {item['outcomes']}{commit}")
        if self.warning:
            out.append(f"warning    {self.warning}")
        return out


def gather(places: Places, settings: Settings, recent: int = 5) -> Status:
    model = settings.model_settings()
    source = (
        settings.values["model.memory"].source
        if settings.model.memory
        else (settings.values["model.default"].source)
    )
    queue = Queue(places.queue)
    failed = [
        {
            "job": p.stem,
            "run_id": j.run_id if j else "?",
            "error": j.last_error if j else "unreadable",
        }
        for p, j in queue.jobs("failed")
    ]
    held = [
        {"job": p.stem, "run_id": j.run_id, "reason": j.held_reason or "held for review"}
        for p, j in queue.jobs("review")
        if j is not None
    ]
    grouped = passlog.passes(places.pass_log)
    passes = []
    for _, items in grouped[-recent:]:
        kinds: dict[str, int] = {}
        for item in items:
            kinds[item["outcome"]] = kinds.get(item["outcome"], 0) + 1
        passes.append(
            {
                "time": items[-1].get("time", ""),
                "outcomes": ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())),
                "commit": next((i["commit"] for i in items if i.get("commit")), None),
            }
        )
    runs = [i for _, items in grouped for i in items if i.get("outcome") != "failed"]
    share = (
        sum(1 for i in runs if i["outcome"] in ("no change", "skipped")) / len(runs)
        if runs
        else None
    )
    warning = passlog.failure_warning(places.pass_log)
    provider = provider_name(settings)
    stranded: dict[str, int] = {}
    for state in ("pending", "active", "review"):
        for _, job in queue.jobs(state):
            if job is not None and job.provider != provider:
                stranded[job.provider] = stranded.get(job.provider, 0) + 1

    logged = injections.read_all(places.state)
    use = uses.counts(places.state, places.queue, places.state / "search.sqlite")
    delivered = (
        {
            "injections": len(logged),
            "used": sum(1 for u in use if u.used),
            "entries": len({str(r) for i in logged for r in i.get("entries") or ()}),  # type: ignore[attr-defined]
            "last": max(str(i.get("at", "")) for i in logged),
        }
        if logged
        else {}
    )
    alive = ping(str(places.intake_socket))
    due = queue.next_due()
    backing_off = due is not None and due > time.time()
    return Status(
        workspace=str(places.workspace),
        wiki=str(places.wiki),
        model=model.model,
        model_source="offline on purpose (model.offline)" if settings.model.offline else source,
        endpoint=model.base_url,
        paused=places.paused_flag.exists(),
        queue=queue.counts(),
        failed_jobs=failed,
        passes=passes,
        runs_seen=len(runs),
        no_change_share=share,
        warning=warning,
        listener={"pid": alive["pid"], "runs": alive.get("runs", 0)} if alive else None,
        provider=provider,
        stranded=stranded,
        held_jobs=held,
        next_retry=due - time.time() if due is not None and backing_off else None,
        retry_waiter=backing_off and lock_held(str(places.state / RETRY_LOCK)),
        delivered=delivered,
    )
