"""An external MCP memory server as the provider: started from `memory.command` over stdio.

Its tools are mapped by name: search (`search_nodes`, `memory_search`, `search`), read
(`open_nodes`, `memory_show`, `read`), overview (`read_graph`, a context without a query),
write (`create_entities`, `memory_remember`, `write`) and remove (`delete_entities`). A server
without a write tool is read-only: the indexer never sends it a plan. Every operation starts
the server, talks over one session and closes it: nothing outlives the call.

Invariants: a tool error or a server that fails to start is one ProviderError line; an entry is
named `leaf#entry` on the server, so what wikimem wrote can be found and removed again.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from wikimem.config import Settings
from wikimem.errors import ConfigError, NotFound, WikimemError
from wikimem.providers.provider import MCP, Capabilities, Found, ProviderError, first_line
from wikimem.wiki.edit import Edit

T = TypeVar("T")
SEARCH = ("search_nodes", "memory_search", "search")
READ = ("open_nodes", "memory_show", "read")
WRITE = ("create_entities", "memory_remember", "write")
REMOVE = ("delete_entities",)
OVERVIEW = ("read_graph",)
PASSED_ENV = ("HOME", "PATH", "LANG", "SYSTEMROOT", "TMPDIR")
CONTEXT_ENTRIES = 10
CONTEXT_WORDS = 6  # searches after the whole query, for a start-of-task context


class McpProvider:
    name = MCP

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = env
        self._tools: frozenset[str] | None = None
        self.server = os.path.basename(self.argv[0]) if self.argv else "?"  # then as it says

    @classmethod
    def from_settings(cls, settings: Settings) -> McpProvider:
        command = settings.memory.command
        if not command or not command.strip():
            raise ConfigError("memory.provider = 'mcp' needs memory.command (the server to start)")
        return cls(shlex.split(command))

    # -- talking to the server --------------------------------------------------------------

    def _session(self, work: Callable[[Any], Awaitable[T]]) -> T:
        try:
            import anyio
            from mcp import ClientSession, StdioServerParameters
            from mcp.client.stdio import stdio_client
        except ImportError as exc:
            raise ConfigError("memory.provider = 'mcp' needs the MCP SDK: pip install mcp") from exc
        env = self.env or {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        params = StdioServerParameters(command=self.argv[0], args=self.argv[1:], env=env)

        async def main() -> T:
            with open(os.devnull, "w") as errlog:
                async with (
                    stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    started = await session.initialize()
                    # the SDK spells it server_info since 2.0, serverInfo before
                    info = getattr(started, "server_info", None) or getattr(
                        started, "serverInfo", None
                    )
                    self.server = getattr(info, "name", "") or self.server
                    if self._tools is None:
                        listed = await session.list_tools()
                        self._tools = frozenset(tool.name for tool in listed.tools)
                    return await work(session)

        try:
            return _run(anyio.run, main)
        except WikimemError:
            raise
        except Exception as exc:  # the SDK's and the process's failures, one line each
            ours = _ours(exc)
            if ours is not None:  # our own refusal, wrapped by the session's task group
                raise ours from exc
            raise ProviderError(f"MCP memory server {self.argv[0]!r}: {first_line(exc)}") from exc

    def tools(self) -> frozenset[str]:
        if self._tools is None:
            self._session(_nothing)
        return self._tools or frozenset()

    def _pick(self, names: Sequence[str]) -> str | None:
        return next((n for n in names if n in self.tools()), None)

    def _tool(self, names: Sequence[str], what: str) -> str:
        """The server's tool for `what`, once its tools are known (inside a session)."""
        tool = next((n for n in names if n in (self._tools or ())), None)
        if tool is None:
            raise ProviderError(f"the MCP memory server has no {what} tool")
        return tool

    # -- the provider interface -----------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        return Capabilities(
            read=self._pick(READ) is not None,
            search=self._pick(SEARCH) is not None,
            context=self._pick(SEARCH) is not None,
            write=self._pick(WRITE) is not None,
            remove=self._pick(REMOVE) is not None,
        )

    def search(self, query: str, limit: int) -> list[Found]:
        async def work(session: Any) -> list[Found]:
            tool = self._tool(SEARCH, "search")
            return found_in(await _checked(session, tool, search_arguments(tool, query, limit)))

        return self._session(work)[:limit]

    def read(self, ref: str) -> str:
        async def work(session: Any) -> Any:
            tool = self._tool(READ, "read")
            args = {"names": [ref]} if tool == "open_nodes" else {"ref": ref}
            return await _checked(session, tool, args)

        return shown(self._session(work), ref)

    def context(self, query: str, budget: int) -> str:
        """The entries the query finds, then those its distinctive words find (a memory
        server's search often matches the query as one phrase), at most CONTEXT_ENTRIES,
        all asked in one session; with no query, the server's whole graph (`read_graph`)."""

        async def work(session: Any) -> list[Found]:
            if not query.strip():  # the whole memory, when the server can give it
                overview = next((n for n in OVERVIEW if n in (self._tools or ())), None)
                return found_in(await _checked(session, overview, {})) if overview else []
            tool = self._tool(SEARCH, "search")
            found: dict[str, Found] = {}
            for asked in queries(query):
                result = await _checked(session, tool, search_arguments(tool, asked, 10))
                for item in found_in(result):
                    found.setdefault(item.ref, item)
                if len(found) >= CONTEXT_ENTRIES:
                    break
            return list(found.values())[:CONTEXT_ENTRIES]

        found = self._session(work)
        lines = [f"- {f.title}: {' '.join(f.snippet.split())}" for f in found]
        text = "# Memory\n\n" + "\n".join(lines) + ("\n" if lines else "")
        return text[: max(0, budget)]

    def apply(self, edits: Sequence[Edit], summary: str) -> str | None:
        async def work(session: Any) -> str | None:
            if not any(n in (self._tools or ()) for n in WRITE):
                raise ProviderError("the MCP memory server is read-only: it has no write tool")
            write = self._tool(WRITE, "write")
            remove = next((n for n in REMOVE if n in (self._tools or ())), None)
            done = 0
            for edit in edits:
                name = f"{edit.leaf}#{edit.entry}"
                # An add replaces too: the plan is validated against the wiki, where the
                # entry may be missing (an update becomes an add), and a memory server skips
                # an entity whose name it already holds.
                if remove is not None:
                    await _checked(session, remove, {"entityNames": [name]})
                elif edit.action == "remove":
                    raise ProviderError("the MCP memory server cannot remove entries")
                if edit.action != "remove":
                    await _checked(session, write, write_arguments(write, name, edit))
                done += 1
            return f"{done} edit(s) to the MCP memory server {self.server!r}" if done else None

        if self._tools is not None and self._pick(WRITE) is None:
            raise ProviderError("the MCP memory server is read-only: it has no write tool")
        return self._session(work)


def _run(run: Callable[[Callable[[], Awaitable[T]]], T], main: Callable[[], Awaitable[T]]) -> T:
    """Run the session's event loop; in a thread of its own when this thread already runs one
    (an MCP server's tool handler, under SDKs that call sync tools in the loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run(main)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run, main).result()


def _ours(exc: BaseException) -> WikimemError | None:
    """The WikimemError an exception group holds alone, at any depth."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, (list, tuple)) and len(inner) == 1:
        only = inner[0]
        return only if isinstance(only, WikimemError) else _ours(only)
    return None


def queries(query: str) -> list[str]:
    """The query, then its longest distinct words (the most distinctive, as a rule)."""
    words = list(dict.fromkeys(w for w in re.findall(r"[\w./#-]{4,}", query.lower())))
    words.sort(key=len, reverse=True)
    return list(dict.fromkeys([query.strip(), *words[:CONTEXT_WORDS]]))


def search_arguments(tool: str, query: str, limit: int) -> dict[str, Any]:
    return {"query": query} if tool == "search_nodes" else {"query": query, "limit": limit}


def shown(result: Any, ref: str) -> str:
    """What a read tool returned, as Markdown: a knowledge graph's entities as sections of
    their observations, any other answer as its text. NotFound when it holds nothing."""
    data = data_of(result)
    if isinstance(data, dict) and isinstance(data.get("entities"), list):
        parts = [
            f"## {e.get('name', '')}\n\n" + "\n\n".join(map(str, e.get("observations", [])))
            for e in data["entities"]
            if isinstance(e, dict)
        ]
        text = "\n\n".join(parts)
    else:
        text = text_of(result)
    if not text.strip():
        raise NotFound(f"no memory named {ref!r} in the MCP memory server")
    return text.rstrip("\n") + "\n"


def write_arguments(tool: str, name: str, edit: Edit) -> dict[str, Any]:
    text = f"{edit.title}\n\n{edit.body}".strip()
    if tool == "create_entities":
        entity = {"name": name, "entityType": edit.type, "observations": [text]}
        return {"entities": [entity]}
    return {"content": text, "path": edit.leaf, "type": edit.type, "title": edit.title}


async def _nothing(session: Any) -> None:
    return None


async def _checked(session: Any, name: str, arguments: dict[str, Any]) -> Any:
    result = await session.call_tool(name, arguments)
    if getattr(result, "is_error", None) or getattr(result, "isError", None):
        raise ProviderError(f"tool {name} failed: {first_line(text_of(result))}")
    return result


def text_of(result: Any) -> str:
    return "".join(p.text for p in getattr(result, "content", []) if getattr(p, "text", None))


def data_of(result: Any) -> Any:
    """A tool's answer as data: its structured content, else its text read as JSON (None when
    it is not JSON)."""
    data: Any = getattr(result, "structured_content", None) or getattr(
        result, "structuredContent", None
    )
    if data is None:
        try:
            data = json.loads(text_of(result) or "null")
        except ValueError:
            return None
    if isinstance(data, dict) and "result" in data and len(data) == 1:
        data = data["result"]
    return data


def found_in(result: Any) -> list[Found]:
    """Search results of either shape: a knowledge graph ({"entities": [...]}) or a list of
    hits ({"ref", "title", "snippet"})."""
    data = data_of(result)
    if isinstance(data, dict) and isinstance(data.get("entities"), list):
        return [
            Found(
                str(e.get("name", "")), str(e.get("name", "")), " ".join(e.get("observations", []))
            )
            for e in data["entities"]
            if isinstance(e, dict)
        ]
    if isinstance(data, list):
        return [
            Found(str(h.get("ref", "")), str(h.get("title", "")), str(h.get("snippet", "")))
            for h in data
            if isinstance(h, dict)
        ]
    return []
