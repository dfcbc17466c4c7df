"""The default provider: the workspace's Markdown wiki in git, as every command uses it.

Reads go through `recall` (search index, context, lookup); a write is one commit through the
wiki's change transaction. The indexer writes the wiki through its own pass; this is the same
store seen through the provider interface, for plugins and tools that speak only that.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikimem.config import Places, Settings
from wikimem.providers.provider import WIKI, Capabilities, Found
from wikimem.recall.context import build_context
from wikimem.recall.search import SearchIndex
from wikimem.wiki.change import wiki_change
from wikimem.wiki.edit import Edit
from wikimem.wiki.lookup import resolve
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import open_repo


class WikiProvider:
    name = WIKI

    def __init__(self, places: Places, settings: Settings) -> None:
        self.places = places
        self.settings = settings

    def capabilities(self) -> Capabilities:
        return Capabilities(write=True, remove=True)

    def read(self, ref: str) -> str:
        repo = open_repo(self.places, self.settings)
        return resolve(Wiki(self.places.wiki), ref, repo.show).text

    def search(self, query: str, limit: int) -> list[Found]:
        with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
            hits = index.search(query, limit)
        return [Found(hit.citation(None), hit.title, hit.snippet) for hit in hits]

    def context(self, query: str, budget: int) -> str:
        with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
            return build_context(
                self.places.wiki, index, budget=budget, query=query, state=self.places.state
            ).text

    def apply(self, edits: Sequence[Edit], summary: str) -> str | None:
        with wiki_change(self.places, self.settings) as change:
            change.apply(edits)
            return change.commit(f"{summary}\n")
