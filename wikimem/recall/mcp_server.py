"""The MCP server: the workspace's memory for any MCP client, over stdio.

`Memory` serves the wiki; when another memory provider owns the memory, the command line
hands in a `Memory` of that provider's (`providers.tools`), which answers from it and names the
tools it cannot serve (`unavailable`): those are not listed, and a call to one is refused with
the reason.

Invariants: the read tools (search, show, context) never write anything but the search cache; the
write tool exists only on a server started with `allow_write`, and even then it never edits the
wiki itself: a remembered note becomes a run record that goes through the queue, the policies and
the plan validation like any agent run. stdout carries JSON-RPC, so nothing here prints.

Works with `mcp` 2.x (`MCPServer`) and 1.x (`FastMCP`); `mcp` is an optional dependency.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from wikimem import config
from wikimem.errors import WikimemError
from wikimem.intake.accept import enqueue
from wikimem.intake.background import spawn_pass
from wikimem.recall.context import DEFAULT_BUDGET, build_context
from wikimem.recall.search import SearchIndex
from wikimem.recall.timeline import time_slice, timeline
from wikimem.wiki.edit import TYPES
from wikimem.wiki.lookup import resolve
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import open_repo

try:  # mcp >= 2
    from mcp.server import MCPServer as Server
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x, or no mcp at all
    try:
        from mcp.server.fastmcp import Context  # type: ignore[no-redef,attr-defined]
        from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef,attr-defined]
        from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]
    except ImportError:
        Server = Context = ToolError = None  # type: ignore[assignment,misc]

NAME = "wikimem"
INSTALL_HINT = "pip install 'wikimem[mcp]'"
MAX_LIMIT = 50
READ_ONLY_REFUSAL = (
    "memory_remember is not available: this wikimem MCP server is read-only; "
    "start it with `wikimem mcp --allow-write` to let agents propose memory"
)
INSTRUCTIONS = (
    "Project memory kept by wikimem: a Markdown wiki of what earlier agent runs "
    "learned here. Call memory_context at the start of a task, memory_search to "
    "look something up, memory_show to read a page or entry (PATH or PATH#entry), "
    "memory_timeline to ask what was done when."
)


@dataclass(frozen=True)
class Memory:
    """What the tools do, without any MCP in it (so it can be tested and reused directly)."""

    places: config.Places
    settings: config.Settings
    agent_id: str | None = None  # the operator's name for the calling agent instance
    instructions: ClassVar[str] = INSTRUCTIONS

    def unavailable(self) -> Mapping[str, str]:
        """Tools this memory cannot serve, each with the line a call to it is refused with."""
        return {}

    def search(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        limit = max(1, min(limit, MAX_LIMIT))
        words, first = time_slice(self.places, self.settings, query)
        with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
            index.refresh()  # a long-lived server must see passes that ran since the last call
            hits = index.search(words, limit * 3 if first else limit)
        if first:  # what changed in the time the query names comes first
            hits = sorted(hits, key=lambda h: h.citation(None) not in first)[:limit]
        return [
            {
                "ref": hit.citation(None),
                "title": hit.title,
                "leaf_title": hit.leaf_title,
                "type": hit.type,
                "snippet": hit.snippet,
                "expired": hit.expired,
                "due_for_review": hit.due,
            }
            for hit in hits
        ]

    def show(self, ref: str) -> str:
        repo = open_repo(self.places, self.settings)
        return resolve(Wiki(self.places.wiki), ref, repo.show).text

    def context(self, query: str = "", budget: int = DEFAULT_BUDGET) -> str:
        query, first = time_slice(self.places, self.settings, query) if query else (query, set())
        with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
            index.refresh()
            built = build_context(
                self.places.wiki,
                index,
                budget=budget,
                query=query,
                first=first,
                state=self.places.state,
            )
            return built.text

    def timeline(self, query: str = "", limit: int = 20) -> dict[str, Any]:
        found = timeline(self.places, self.settings, query, max(1, min(limit, MAX_LIMIT)))
        window = found.window
        return {
            "window": None if window is None else window.label(),
            "words": list(found.words),
            "events": [event.as_dict() for event in found.events],
        }

    def remember(
        self, content: str, path: str, type: str, title: str | None, caller: str | None
    ) -> dict[str, Any]:
        """Queue an explicit memory candidate as a run of its own; start a pass for it."""
        kind = type.strip().lower()
        if kind not in TYPES:
            raise WikimemError(f"type must be one of {', '.join(TYPES)}, not {type!r}")
        path = Wiki(self.places.wiki).check_path(path.strip().lower())
        if not content.strip():
            raise WikimemError("content is empty: nothing to remember")
        if config.memory_disabled(config.environ()) or self.places.paused_flag.exists():
            raise WikimemError(
                "memory is paused in this workspace (`wikimem resume` restarts "
                "it); nothing was queued"
            )
        instance = self.agent_id or caller or "unknown"
        digest = hashlib.sha256(f"{path}\0{title or ''}\0{content}".encode()).hexdigest()[:12]
        record = {
            "run_id": f"mcp-{digest}",  # the same note twice is one job
            "task": "remember",
            "status": "succeeded",
            "agent": {"name": "mcp", "instance_id": instance},
            "memory": [{"path": path, "content": content, "type": kind, "title": title or ""}],
        }
        done = enqueue(self.places, self.settings, record, source="mcp")
        if not done.duplicate:
            spawn_pass(str(self.places.workspace), str(self.places.background_log))
        return {
            "queued": not done.duplicate,
            "job": done.job_id,
            "run_id": done.run_id,
            "path": path,
            "agent": f"mcp/{instance}",
            "note": "queued: the next pass checks it against the memory policy and "
            "validates it before it reaches the wiki",
        }


def caller_of(ctx: Any) -> str | None:
    """`name@version` from the client's initialize request, in 1.x or 2.x spelling."""
    try:
        params = ctx.session.client_params
    except Exception:  # no session details on this transport or protocol version
        return None
    info = getattr(params, "client_info", None) or getattr(params, "clientInfo", None)
    if info is None or not getattr(info, "name", ""):
        return None
    version = getattr(info, "version", "")
    return f"{info.name}@{version}" if version else str(info.name)


def build_server(memory: Memory, allow_write: bool = False) -> Any:
    """The MCP server object with the read tools, and the write tool when `allow_write`,
    less those `memory` cannot serve."""
    if Server is None:
        raise WikimemError(f"`wikimem mcp` needs the MCP SDK: {INSTALL_HINT}")
    from mcp.types import ToolAnnotations

    refused = dict(memory.unavailable())
    if not allow_write:
        refused.setdefault("memory_remember", READ_ONLY_REFUSAL)

    class WikimemServer(Server):  # type: ignore[misc,valid-type]
        async def call_tool(self, name: str, *args: Any, **kwargs: Any) -> Any:
            # An unknown-tool error would not tell the caller why, nor how to get the tool.
            if name in refused:
                raise ToolError(refused[name])
            return await super().call_tool(name, *args, **kwargs)

    server = WikimemServer(NAME, instructions=memory.instructions)
    # The wire (camelCase) names validate in both SDKs; 2.x renamed the Python attributes.
    reading = ToolAnnotations.model_validate(
        {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
    )

    def guarded(work: Any, *args: Any) -> Any:
        try:
            return work(*args)
        except WikimemError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(title="Search memory", annotations=reading)
    def memory_search(query: str, limit: int = 5) -> list[dict[str, Any]]:
        """Search the project's memory (leaves and entries); best hits first, each with a ref
        to pass to memory_show."""
        return guarded(memory.search, query, limit)

    @server.tool(title="Show memory", annotations=reading)
    def memory_show(ref: str = "") -> str:
        """Show PROFILE (empty ref), a topic, a leaf (`build/bun`), one entry
        (`build/bun#lockfile-drift`) or an older version (`...@COMMIT`), as Markdown."""
        return guarded(memory.show, ref)

    @server.tool(title="Memory context", annotations=reading)
    def memory_context(query: str = "", budget: int = DEFAULT_BUDGET) -> str:
        """The start-of-task context: the memory profile, then entries relevant to `query`,
        never longer than `budget` characters."""
        return guarded(memory.context, query, budget)

    def memory_timeline(query: str = "", limit: int = 20) -> dict[str, Any]:
        """Dated history of the memory, newest first: which run changed which entries, when.
        `query` may hold a time expression ("last week", "april", "2026-04", "3 months ago",
        an ISO date) and words each event must contain."""
        return guarded(memory.timeline, query, limit)

    if "memory_timeline" not in refused:
        server.tool(title="Memory timeline", annotations=reading)(memory_timeline)

    if allow_write and "memory_remember" not in refused:
        writing = ToolAnnotations.model_validate(
            {
                "readOnlyHint": False,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            }
        )

        @server.tool(title="Remember", annotations=writing)
        def memory_remember(
            content: str, path: str, type: str, ctx: Context, title: str | None = None
        ) -> dict[str, Any]:
            """Propose a memory for this project: `content` (Markdown) to keep at wiki `path`
            (1-4 lowercase slug segments, e.g. `build/bun`), of `type` semantic, episodic,
            procedural, working or identity. It is queued and checked against the memory
            policy before it reaches the wiki; nothing is written directly."""
            return guarded(memory.remember, content, path, type, title, caller_of(ctx))

    return server


def serve(memory: Memory, *, allow_write: bool = False) -> None:
    """Serve `memory` over stdio until the client closes the connection."""
    build_server(memory, allow_write).run()
