"""The wiki as a small read-only web site: PROFILE → topics → leaves with working links, search,
each entry's provenance and history, and the timeline drawn as a picture.

Pages are served at the wiki path of their file (`/build/bun/MEMORY.md`), so the relative links
people and wikimem write work as they are. Markdown is rendered by markdown-it with raw HTML
off (a page's text is data, never markup that runs), and every value reaches the HTML through
jinja2's autoescape. Nothing here writes: it is a recall module.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

import jinja2
from markdown_it import MarkdownIt

from wikimem.config import Places, Settings
from wikimem.errors import NotFound, WikimemError
from wikimem.wiki import markdown
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, Wiki

TEMPLATE = "site.html.j2"
MAX_EVENTS = 200  # commits drawn on the timeline at most
_HEADING_ID = re.compile(r"<h2>(.*?)</h2>")
_COMMENT = re.compile(r"<!--.*?-->", re.S)  # entry dates and generated-block markers


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    kind: str = "text/html; charset=utf-8"


def _environment() -> jinja2.Environment:
    from jinja2.sandbox import SandboxedEnvironment

    from wikimem.wiki.render import packaged_dir

    # the view's template is the packaged one only: a workspace cannot restyle it into a trap
    loader = jinja2.FileSystemLoader(str(packaged_dir()))
    return SandboxedEnvironment(loader=loader, autoescape=True)


def _markdown() -> MarkdownIt:
    # commonmark with tables; html off: a page cannot inject script or markup into the view
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


class Site:
    """Renders one workspace's wiki; `respond(path)` answers one GET."""

    def __init__(self, places: Places, settings: Settings) -> None:
        self.places = places
        self.settings = settings
        self.wiki = Wiki(places.wiki)
        self.env = _environment()
        self.md = _markdown()

    def respond(self, target: str) -> Response:
        parts = urlsplit(target)
        path = unquote(parts.path)
        query = parse_qs(parts.query)
        try:
            if path in ("", "/"):
                return self._page(PROFILE_FILE)
            if path == "/search":
                return self._search(query.get("q", [""])[0])
            if path == "/timeline":
                return self._timeline()
            if path.startswith("/history/"):
                return self._history(path.removeprefix("/history/"))
            if path.endswith(".md"):
                return self._page(path.lstrip("/"))
            if path == "/favicon.ico":
                return Response(204, b"", "image/x-icon")
        except NotFound as exc:
            return self._render(404, "Not found", body=f"<p>{html.escape(str(exc))}</p>")
        except WikimemError as exc:
            return self._render(500, "Error", body=f"<p>{html.escape(str(exc))}</p>")
        return self._render(404, "Not found", body="<p>No such page.</p>")

    # pages

    def _render(self, status: int, title: str, **context: Any) -> Response:
        crumbs = context.pop("crumbs", [])
        page = self.env.get_template(TEMPLATE).render(
            title=title, crumbs=crumbs, workspace=self.places.workspace.name, **context
        )
        return Response(status, page.encode("utf-8"))

    def _page(self, relpath: str) -> Response:
        if ".." in relpath.split("/"):
            raise NotFound(f"{relpath}: outside the wiki")
        page = self.wiki.read_page(relpath)
        if page is None:
            raise NotFound(f"no page {relpath}")
        text = page.render()
        body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
        rendered = self.md.render(_COMMENT.sub("", body))
        entries: list[dict[str, Any]] = []
        if relpath.endswith("/" + LEAF_FILE):
            leaf = relpath.removesuffix("/" + LEAF_FILE)
            entries = self._provenance(leaf, page)
            rendered = self._anchor(rendered, page)
        meta = {
            k: str(v) for k, v in dict(page.meta).items() if k in ("summary", "updated", "type")
        }
        return self._render(
            200,
            page.title or relpath,
            crumbs=_crumbs(relpath),
            content=jinja2.filters.Markup(rendered),  # markdown-it escaped the text (html off)
            meta=meta,
            entries=entries,
            history=relpath.removesuffix("/" + LEAF_FILE) if entries else "",
        )

    def _anchor(self, rendered: str, page: markdown.Page) -> str:
        """Give each entry heading its entry id, so `MEMORY.md#pin-bun` links land on it."""
        ids = iter([e.id for e in page.entries])

        def tag(m: re.Match[str]) -> str:
            entry = next(ids, "")
            return f'<h2 id="{html.escape(entry)}">{m.group(1)}</h2>' if entry else m.group()

        return _HEADING_ID.sub(tag, rendered)

    def _provenance(self, leaf: str, page: markdown.Page) -> list[dict[str, Any]]:
        try:
            from wikimem.recall.provenance import origins

            found = origins(self.places, self.settings, [f"{leaf}#{e.id}" for e in page.entries])
        except WikimemError:
            found = {}
        out = []
        for entry in page.entries:
            origin = found.get(f"{leaf}#{entry.id}")
            out.append(
                {
                    "id": entry.id,
                    "title": entry.title,
                    "source": origin.source if origin else "",
                    "runs": list(origin.runs)[:5] if origin else [],
                }
            )
        return out

    def _search(self, q: str) -> Response:
        hits: list[Any] = []
        if q.strip():
            from wikimem.recall.search import SearchIndex

            with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
                hits = index.search(q, 20)
        rows = [
            {
                "href": "/" + quote(f"{h.path}/{LEAF_FILE}") + (f"#{h.entry}" if h.entry else ""),
                "ref": h.path + (f"#{h.entry}" if h.entry else ""),
                "title": h.title,
                "snippet": " ".join(h.snippet.split()),
            }
            for h in hits
        ]
        return self._render(
            200, f"Search: {q}" if q else "Search", query=q, hits=rows, searched=True
        )

    def _history(self, ref: str) -> Response:
        from wikimem.recall.versions import history_of

        rows = history_of(self.places, self.settings, ref, 50)
        lines = [row.line() for row in rows]
        return self._render(
            200, f"History of {ref}", crumbs=_crumbs(ref + "/" + LEAF_FILE), lines=lines
        )

    def _timeline(self) -> Response:
        from wikimem.recall.timeline import timeline

        found = timeline(self.places, self.settings, "", limit=MAX_EVENTS)
        events = list(reversed(found.events))  # oldest first, left to right
        return self._render(
            200, "Timeline", picture=jinja2.filters.Markup(draw(events)), events=found.events
        )


def _crumbs(relpath: str) -> list[tuple[str, str]]:
    parts = relpath.split("/")
    crumbs = [("Profile", "/")]
    if len(parts) >= 2:
        crumbs.append((parts[0], f"/{quote(parts[0])}/TOPIC.md"))
    if len(parts) >= 3:
        crumbs.append((parts[1], "/" + quote("/".join(parts[:-1])) + f"/{LEAF_FILE}"))
    return crumbs


LANES = {"run": (55, "#2b6cb0"), "person": (105, "#c05621"), "wikimem": (80, "#718096")}


def draw(events: list[Any]) -> str:
    """The timeline as an SVG: one mark per change, by date, a run's above the line, a
    person's below it and wikimem's own upkeep (starting the wiki, compaction, recompiling:
    its commits that name no run) on it, each with its subject as a tooltip."""
    from wikimem.wiki.history.commits import WIKIMEM

    width, height, pad = 900, 160, 30
    if not events:
        return f'<svg class="timeline" width="{width}" height="{height}" role="img"></svg>'
    days = [_day(e.date) for e in events]
    first, last = min(days), max(days)
    span = max((last - first).days, 1)
    marks = []
    for event, day in zip(events, days, strict=True):
        x = pad + (width - 2 * pad) * (day - first).days / span
        lane = "run" if event.runs else "wikimem" if event.author == WIKIMEM.name else "person"
        y, colour = LANES[lane]
        size = 4 + min(len(event.changes), 6)
        tip = html.escape(
            f"{event.date[:10]} {event.subject}"
            + (f" (run {', '.join(event.runs)})" if event.runs else "")
        )
        marks.append(
            f'<circle class="mark {lane}" '
            f'cx="{x:.1f}" cy="{y}" r="{size}" '
            f'fill="{colour}" fill-opacity="0.75"><title>{tip}</title></circle>'
        )
    axis = (
        f'<line x1="{pad}" y1="80" x2="{width - pad}" y2="80" stroke="#888"/>'
        f'<text x="{pad}" y="{height - 8}" font-size="12">{first.isoformat()}</text>'
        f'<text x="{width - pad}" y="{height - 8}" font-size="12" '
        f'text-anchor="end">{last.isoformat()}</text>'
        f'<text x="{pad}" y="20" font-size="12" fill="#2b6cb0">by a run</text>'
        f'<text x="{pad + 80}" y="20" font-size="12" fill="#c05621">by a person</text>'
        f'<text x="{pad + 180}" y="20" font-size="12" fill="#718096">wikimem upkeep</text>'
    )
    return (
        f'<svg class="timeline" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="What changed when">{axis}{"".join(marks)}</svg>'
    )


def _day(date: str) -> dt.date:
    try:
        return dt.date.fromisoformat(date[:10])
    except ValueError:
        return dt.date.today()
