"""Memory policies: what the owner wants remembered, in plain Markdown.

Read fresh at every pass, global first (`~/.clarvis/memory-policy.md`), then the workspace's
(`<workspace>/.clarvis/memory-policy.md`), so an edit to either takes effect on the next pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikimem.fsio import read_text
from wikimem.redaction.redact import redact

MAX_POLICY = 8000  # characters per policy file sent to the model


@dataclass(frozen=True)
class Policy:
    source: str  # "global" or "workspace"
    path: Path
    text: str


def _strip_comments(text: str) -> str:
    """HTML comments are notes to the person editing the file, not instructions."""
    out, rest = [], text
    while "<!--" in rest:
        before, _, after = rest.partition("<!--")
        out.append(before)
        _, closed, rest = after.partition("-->")
        if not closed:
            rest = ""
    out.append(rest)
    return "".join(out).strip()


def read_policies(global_path: Path, workspace_path: Path) -> list[Policy]:
    policies = []
    for source, path in (("global", global_path), ("workspace", workspace_path)):
        if not path.is_file():
            continue
        try:
            text = _strip_comments(read_text(path))
        except (OSError, UnicodeDecodeError):
            continue
        text, _ = redact(text)
        if text:
            policies.append(Policy(source, path, text[:MAX_POLICY]))
    return policies
