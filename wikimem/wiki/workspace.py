"""A workspace's wiki and repository, opened together; `init` creates them.

Orchestration shared by the pass and the read paths: which repository mode applies, and the
first commit of a new wiki. Running `init` again changes nothing.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from wikimem.config import Places, Settings
from wikimem.errors import UsageError
from wikimem.fsio import atomic_write_text
from wikimem.wiki.compile import compile_profile
from wikimem.wiki.history import WikiRepo
from wikimem.wiki.pages import PROFILE_FILE, Wiki
from wikimem.wiki.render import render

if TYPE_CHECKING:
    from wikimem.wiki.history import WikiRepo


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def open_repo(places: Places, settings: Settings) -> WikiRepo:
    return WikiRepo(places.wiki, places.workspace, settings.wiki.commit_into)


def ensure_wiki(places: Places, settings: Settings, repo: WikiRepo) -> str | None:
    """Create the wiki, its PROFILE.md and its repository when missing; commit them once."""
    wiki = Wiki(places.wiki)
    places.wiki.mkdir(parents=True, exist_ok=True)
    repo.ensure()
    created = None
    if not (places.wiki / PROFILE_FILE).exists():
        created = compile_profile(
            wiki, today(), settings.wiki.profile_max, places.workspace.name, places.templates
        )
    if created or repo.head() is None:
        return repo.commit("Start the wiki\n\nCreated by `wikimem init`.\n")
    return None


def init(places: Places, settings: Settings) -> list[str]:
    """Create what is missing; return what was created (empty on a second run). Refuses the
    folder whose `.clarvis` is the global one (HOME, usually): a wiki there would sit inside
    the global folder, and its sample policy would overwrite the global policy's place."""
    if places.clarvis.resolve() == places.global_dir.resolve():
        raise UsageError(
            f"{places.workspace}'s .clarvis is the global folder (global policy and config); "
            "run `wikimem init` in a project folder, or pass -C DIR"
        )
    made: list[str] = []
    repo = open_repo(places, settings)
    if not places.workspace_policy.exists():
        atomic_write_text(places.workspace_policy, render("memory-policy.md.j2", places.templates))
        made.append(str(places.workspace_policy))
        # A sample the owner has not chosen to version stays out of the project's git status
        # (`git add -f` it to share it; once tracked, the exclude no longer applies).
        repo.exclude([places.workspace_policy])
    had_wiki = (places.wiki / PROFILE_FILE).exists()
    sha = ensure_wiki(places, settings, repo)
    if not had_wiki:
        made.append(str(places.wiki / PROFILE_FILE))
    if sha:
        made.append(f"commit {sha[:7]}")
    return made
