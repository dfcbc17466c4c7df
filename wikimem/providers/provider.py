"""The provider interface: what wikimem asks of a memory backend, and what one can do.

Invariants: a provider says what it can do (`Capabilities`) and is never asked for more (`Checked`
refuses it in one line); whatever goes wrong inside a provider reaches the user as one
ProviderError line; edits reaching `apply` have been validated like any plan bound for the wiki;
a command that works on the wiki's own files or history refuses, in one line, when another
provider owns the memory (`wiki_only`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from wikimem.config import WIKI_PROVIDER, Settings, provider_name
from wikimem.errors import WikimemError
from wikimem.wiki.edit import Edit

ENTRY_POINTS = "wikimem.providers"
WIKI = WIKI_PROVIDER
MCP = "mcp"
T = TypeVar("T")


class ProviderError(WikimemError):
    """A memory provider failed (a server that did not start, a plugin that raised), or was
    asked for what it cannot do."""


@dataclass(frozen=True)
class Capabilities:
    read: bool = True
    search: bool = True
    context: bool = True
    write: bool = False  # add and update entries
    remove: bool = False  # remove entries


@dataclass(frozen=True)
class Found:
    """One search result, in any provider's terms: a ref its `read` takes."""

    ref: str
    title: str
    snippet: str


@runtime_checkable
class Provider(Protocol):
    """What wikimem asks of a memory backend."""

    name: str

    def capabilities(self) -> Capabilities: ...

    def read(self, ref: str) -> str:
        """The memory `ref` names, as text (Markdown for the wiki)."""
        ...

    def search(self, query: str, limit: int) -> list[Found]: ...

    def context(self, query: str, budget: int) -> str:
        """Start-of-task memory for `query`, at most `budget` characters."""
        ...

    def apply(self, edits: Sequence[Edit], summary: str) -> str | None:
        """Store validated edits; an id of the change (a commit for the wiki), None if none."""
        ...


def wiki_only(settings: Settings, command: str) -> None:
    """Refuse `command` in one line when the memory is not the wiki: it works on the wiki's
    files or git history, which another provider does not have."""
    name = provider_name(settings)
    if name != WIKI:
        raise ProviderError(
            f"memory.provider is {name!r}: `{command}` works on the wiki provider only"
        )


class Checked:
    """A provider other than the wiki, held to its word: a call its capabilities deny is
    refused before it reaches the provider, a context is cut to its budget, and any failure
    inside it (a plugin's exception, a server that died) is one ProviderError line."""

    def __init__(self, inner: Provider, enforces: bool = False) -> None:
        """`enforces`: the provider itself refuses what it cannot do, in one line, so its
        capabilities need not be asked first (the MCP adapter learns them in the session of
        the call; asking first would start its server twice)."""
        self.inner = inner
        self.name = str(inner.name)
        self.enforces = enforces
        self._can: Capabilities | None = None

    def capabilities(self) -> Capabilities:
        if self._can is None:
            self._can = self._run(self.inner.capabilities)
        return self._can

    def read(self, ref: str) -> str:
        self._need("read", "read memory")
        return str(self._run(self.inner.read, ref))

    def search(self, query: str, limit: int) -> list[Found]:
        self._need("search", "search memory")
        return list(self._run(self.inner.search, query, limit))[:limit]

    def context(self, query: str, budget: int) -> str:
        self._need("context", "give a start-of-task context")
        return str(self._run(self.inner.context, query, budget))[: max(0, budget)]

    def apply(self, edits: Sequence[Edit], summary: str) -> str | None:
        self._need("write", "store memory (it is read-only)")
        if any(e.action == "remove" for e in edits):
            self._need("remove", "remove memory")
        return self._run(self.inner.apply, edits, summary)

    def _need(self, capability: str, what: str) -> None:
        if not self.enforces and not getattr(self.capabilities(), capability):
            raise ProviderError(f"memory provider {self.name!r} cannot {what}")

    def _run(self, work: Callable[..., T], *args: object) -> T:
        try:
            return work(*args)
        except WikimemError:
            raise
        except Exception as exc:  # a plugin's failure is one line, never a traceback
            raise ProviderError(f"memory provider {self.name!r} failed: {first_line(exc)}") from exc


def first_line(exc: object) -> str:
    """An exception as one short line (anyio wraps what went wrong in a task group)."""
    text = str(exc).strip() or type(exc).__name__
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, (list, tuple)) and inner:
        text = "; ".join(first_line(e) for e in inner)
    return text.splitlines()[0][:200] if text else type(exc).__name__
