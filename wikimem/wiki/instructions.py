"""The memory's profile where GitHub Copilot reads a repository's instructions: a block of
`.github/copilot-instructions.md` between wikimem's two marker lines.

Copilot ignores what a sessionStart hook prints, so a session cannot be handed the memory's
context the way Claude Code's or Gemini CLI's are; it does read `.github/copilot-instructions.md`
(Copilot CLI and the coding agent alike). `wikimem install copilot` adds the block there, every
commit to the wiki (a pass, a recompile, an approval, a sync) rewrites what stands between the
markers from PROFILE.md, and `wikimem uninstall copilot` removes it.

Invariant: only a file that already holds both markers is rewritten, and only between them (a
person's own instructions around the block stay as they are); removing the block gives the file
back byte for byte as it was before the block was added. The block is bounded: PROFILE.md's
generated part is capped by `wiki.profile_max`, and the block by BLOCK_MAX.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from wikimem.fsio import atomic_write_text, read_text
from wikimem.wiki import markdown
from wikimem.wiki.pages import PROFILE_FILE

START = (
    "<!-- wikimem:memory start (written by wikimem at each pass: edits in here are replaced) -->"
)
END = "<!-- wikimem:memory end -->"
BLOCK_MAX = 6000  # characters between the markers


def instructions_file(workspace: Path) -> Path:
    return workspace / ".github" / "copilot-instructions.md"


def block(workspace: Path, wiki_root: Path) -> str:
    """What stands between the markers: where the memory is, then PROFILE.md's summary and
    generated index."""
    try:
        where = wiki_root.resolve().relative_to(workspace.resolve()).as_posix()
    except (OSError, ValueError):
        where = wiki_root.as_posix()
    lines = [
        "## Project memory",
        "",
        f"This project keeps a memory of what earlier agent runs learned, in `{where}/` "
        f"(kept by wikimem). Read `{where}/PROFILE.md` and the pages it links (paths relative "
        "to that folder) when they bear on the task; trust an entry only while the files it "
        "cites still say so.",
    ]
    try:
        text = read_text(wiki_root / PROFILE_FILE).replace("\r\n", "\n")
    except OSError:
        text = ""
    if text:
        page = markdown.parse_page(text)
        summary = page.meta.get("summary") if isinstance(page.meta, Mapping) else None
        span = markdown.generated_block(text)
        index = text[span[0] : span[1]] if span else ""
        # its headings one level down, under the block's own
        index = "\n".join(
            "#" + line if line.startswith("#") else line for line in index.split("\n")
        )
        for part in (str(summary or "").strip(), index.strip()):
            if part:
                lines += ["", part]
    body = "\n".join(lines)
    if len(body) > BLOCK_MAX:
        body = body[: BLOCK_MAX - 2].rstrip() + " …"
    return body + "\n"


def add(workspace: Path, wiki_root: Path) -> Path | None:
    """Add the block at the end of the instructions file (made when missing); the file, when
    written. A file that holds the markers already is only brought up to date."""
    path = instructions_file(workspace)
    text = read_text(path) if path.exists() else ""
    if START in text:
        return path if refresh(workspace, wiki_root) else None
    content = START + "\n" + block(workspace, wiki_root) + END
    # after a last line with no newline, the block ends with none: removing it gives the file back
    closed = not text or text.endswith("\n")
    updated = text + content + "\n" if closed else text + "\n" + content
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, updated)
    return path


def refresh(workspace: Path, wiki_root: Path) -> bool:
    """Rewrite what stands between the markers, when the file has them and it changed."""
    path = instructions_file(workspace)
    if not path.is_file():
        return False
    text = read_text(path)
    span = _span(text)
    if span is None:
        return False
    inner_start = span[0] + len(START) + 1
    inner_end = span[1] - len(END)
    updated = text[:inner_start] + block(workspace, wiki_root) + text[inner_end:]
    if updated == text:
        return False
    atomic_write_text(path, updated)
    return True


def remove(workspace: Path) -> bool:
    """Remove the block as `add` wrote it; the file, and a `.github/` left empty, when nothing
    else is left."""
    path = instructions_file(workspace)
    if not path.is_file():
        return False
    text = read_text(path)
    span = _span(text)
    if span is None:
        return False
    start, end = span
    if text[end : end + 1] == "\n":
        end += 1
    elif start > 0 and text[start - 1] == "\n":
        start -= 1  # the newline added after a last line that had none
    updated = text[:start] + text[end:]
    if updated:
        atomic_write_text(path, updated)
    else:
        path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty
    return True


def _span(text: str) -> tuple[int, int] | None:
    """Where the block starts (its START line) and ends (just after END)."""
    start = text.find(START + "\n")
    if start < 0 or (start > 0 and text[start - 1] != "\n"):
        return None
    end = text.find(END, start)
    return None if end < 0 else (start, end + len(END))
