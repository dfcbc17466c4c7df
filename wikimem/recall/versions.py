"""History as people ask for it: commits of the wiki or a page, versions of one entry.

A read path over `history`: the page shows only an entry's current text; earlier versions are
recovered from git, v1 being the oldest.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from wikimem.config import Places, Settings
from wikimem.errors import NotFound, UsageError, WikiError
from wikimem.wiki import markdown
from wikimem.wiki.lookup import suggest
from wikimem.wiki.pages import LEAF_FILE, TOPIC_FILE, Wiki, split_ref
from wikimem.wiki.workspace import open_repo


@dataclass(frozen=True)
class Row:
    date: str
    commit: str
    subject: str
    runs: tuple[str, ...]
    version: str = ""
    author: str = ""

    def line(self) -> str:
        runs = f"  run {', '.join(self.runs)}" if self.runs else ""
        label = f"{self.version}  " if self.version else ""
        return f"{label}{self.date[:10]}  {self.commit}  {self.subject}{runs}"

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _file_of(wiki: Wiki, path: str) -> str:
    if not path:
        return ""
    try:
        path = wiki.check_path(path)
    except WikiError as exc:
        raise UsageError(str(exc)) from exc
    if "/" not in path and (wiki.root / path / TOPIC_FILE).exists():
        return path  # a whole topic folder
    return f"{path}/{LEAF_FILE}"


def history_of(places: Places, settings: Settings, ref: str | None, limit: int) -> list[Row]:
    """Rows newest first; none while the wiki has no history (or the page has none yet)."""
    wiki = Wiki(places.wiki)
    path, entry, _ = split_ref(ref or "")
    file = _file_of(wiki, path)
    repo = open_repo(places, settings)
    if not repo.has_repo() or repo.head() is None:
        return []
    commits = repo.log(file or None, limit=limit if entry is None else 1000)
    if file and not commits and not (wiki.root / file).exists():
        raise NotFound(f"no page at {path} in the wiki or its history{suggest(wiki, path)}")
    if entry is None:
        return [
            Row(c.date, c.short, c.subject, c.trailers.get("Wikimem-Run", ()), author=c.author)
            for c in commits
        ]
    versions: list[Row] = []
    last: str | None = None
    for commit in reversed(commits):
        try:
            page = markdown.parse_page(repo.show(commit.sha, file))
        except NotFound:
            page = None
        found = page.entry(entry) if page else None
        body = found.body if found else None
        if body == last:
            continue
        last = body
        number = sum(1 for v in versions if v.version.startswith("v")) + 1
        label = f"v{number}" if found else "removed"
        versions.append(
            Row(
                commit.date,
                commit.short,
                commit.subject,
                commit.trailers.get("Wikimem-Run", ()),
                version=label,
                author=commit.author,
            )
        )
    if not versions:
        raise NotFound(f"no version of {path}#{entry} in the wiki's history")
    return list(reversed(versions))[:limit]
