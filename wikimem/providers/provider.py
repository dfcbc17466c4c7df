"""The provider interface: what wikimem asks of a memory backend, and what one can do.

Invariant: a provider says what it can do (`Capabilities`) and is never asked for more; edits
reaching `apply` have been validated like any plan bound for the wiki.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from wikimem.config import Settings
from wikimem.wiki.edit import Edit

ENTRY_POINTS = "wikimem.providers"
WIKI = "wiki"
MCP = "mcp"


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


def provider_name(settings: Settings) -> str:
    """The provider `memory.provider` names, as jobs record it."""
    return (settings.memory.provider or WIKI).strip().lower()
