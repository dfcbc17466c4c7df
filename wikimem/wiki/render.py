"""The one jinja2 environment. Templates ship inside the package; a workspace may override any
of them by name in `<workspace>/.clarvis/templates/`.

Rendering is strict (an undefined name is an error) and deterministic, so a rerun renders the
same bytes and has nothing to commit. It is sandboxed: an override comes with the workspace (a
cloned repository can ship one), and a plain jinja2 template can reach Python's `os` through
any object's attributes (`cycler.__init__.__globals__`) and run programs.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from wikimem.errors import WikimemError

PACKAGED = Path(__file__).parent.parent / "templates"
SOURCE_TREE = Path(__file__).parent.parent.parent / "templates"  # editable installs and checkouts


def packaged_dir() -> Path:
    return PACKAGED if PACKAGED.is_dir() else SOURCE_TREE


@lru_cache(maxsize=8)
def environment(overrides: Path | None = None) -> ImmutableSandboxedEnvironment:
    loaders: list[jinja2.BaseLoader] = []
    if overrides is not None and overrides.is_dir():
        loaders.append(jinja2.FileSystemLoader(str(overrides)))
    loaders.append(jinja2.FileSystemLoader(str(packaged_dir())))
    return ImmutableSandboxedEnvironment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(name: str, overrides: Path | None = None, **context: Any) -> str:
    try:
        # Without an overrides folder every workspace shares one environment (and its
        # compiled templates); a folder created later is seen at the next render.
        where = overrides if overrides is not None and overrides.is_dir() else None
        return environment(where).get_template(name).render(**context)
    except jinja2.TemplateError as exc:
        note = f" (override in {overrides})" if overrides and (overrides / name).exists() else ""
        raise WikimemError(f"template {name}{note}: {exc}") from exc


def template_names() -> list[str]:
    return sorted(p.name for p in packaged_dir().glob("*.j2"))
