"""What the MCP server's tools read when another provider owns the memory.

`memory_for` gives `wikimem mcp` its memory: the wiki's (`recall.mcp_server.Memory`) or, when
`memory.provider` names another, a `ProviderMemory` whose search, show and context ask that
provider. The timeline reads the wiki's git history, which another provider does not have:
that tool is not offered, and a call to it is refused with the reason. `memory_remember`
queues a run like on the wiki; the pass hands its plan to the provider (or holds it when the
provider is read-only).

Invariant: a provider's failure, or a call its capabilities deny, is one line in the tool's
error, never a traceback (`Checked`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wikimem import config
from wikimem.providers import load
from wikimem.providers.provider import WIKI, Provider, provider_name
from wikimem.recall.context import DEFAULT_BUDGET
from wikimem.recall.mcp_server import MAX_LIMIT, Memory

INSTRUCTIONS = (
    "Project memory, kept for wikimem by the memory provider {name!r}. Call memory_context "
    "at the start of a task, memory_search to look something up, memory_show to read what a "
    "search found (its ref)."
)


def memory_for(
    places: config.Places, settings: config.Settings, agent_id: str | None = None
) -> Memory:
    """The memory `wikimem mcp` serves: the wiki's, or the effective provider's."""
    if provider_name(settings) == WIKI:
        return Memory(places, settings, agent_id)
    return ProviderMemory(places, settings, agent_id, load(places, settings))


@dataclass(frozen=True)
class ProviderMemory(Memory):
    """The tools' memory, answered by a provider other than the wiki."""

    provider: Provider | None = None

    @property
    def source(self) -> Provider:
        assert self.provider is not None, "a ProviderMemory is made with its provider"
        return self.provider

    @property
    def instructions(self) -> str:  # type: ignore[override]
        return INSTRUCTIONS.format(name=self.source.name)

    def unavailable(self) -> Mapping[str, str]:
        name = self.source.name
        return {
            "memory_timeline": f"memory.provider is {name!r}: memory_timeline works on the "
            "wiki provider only (it reads the wiki's git history)"
        }

    def search(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        found = self.source.search(query, max(1, min(limit, MAX_LIMIT)))
        return [{"ref": f.ref, "title": f.title, "snippet": f.snippet} for f in found]

    def show(self, ref: str) -> str:
        """The memory `ref` names; with no ref, the provider's context (its overview)."""
        if not ref.strip():
            return self.source.context("", DEFAULT_BUDGET)
        return self.source.read(ref)

    def context(self, query: str = "", budget: int = DEFAULT_BUDGET) -> str:
        return self.source.context(query, max(0, budget))
