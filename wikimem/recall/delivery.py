"""What a prompt or failed-command hook answers: the few entries that bear on the event, within
the budget, as the runner's `hookSpecificOutput.additionalContext` JSON, naming each entry
(`path#entry`) so the agent can read more with `wikimem show`.

Nothing is the common answer: a prompt whose words point to no entry, a command that succeeded,
an error the wiki does not know, or entries this session was already given all print nothing.

Invariants: the context never exceeds the budget (entries whole, or the first one's body cut
on a line); the same index, event and log give the same bytes; every delivery is logged.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from wikimem.recall import injections
from wikimem.recall.cues import prompt_entries
from wikimem.recall.symptoms import failure_entries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from wikimem.recall.cues import Found
    from wikimem.recall.events import Event

DEFAULT_BUDGET = 2000
LEADS = {
    # not "the fix": a stopgap or an open failure is recorded too, and its entry says which
    "failure": "Project memory (wikimem) has met this failure before; what it recorded:\n",
    "prompt": "Project memory (wikimem) that bears on this prompt:\n",
}
MORE = "\n(Read more: wikimem show PATH#ENTRY)\n"
COMMENT = re.compile(r"<!--.*?-->", re.S)
BLANKS = re.compile(r"\n{3,}")


def entries_for(event: Event, index_file: Path) -> list[Found]:
    if event.kind == "failure":
        folder = Path(event.cwd) if event.cwd else Path.cwd()  # where the runner ran it
        return failure_entries(index_file, event.command, event.error, folder=folder)
    if event.kind == "prompt":
        return prompt_entries(index_file, event.prompt, branch=event.branch, paths=event.paths)
    return []


def block(item: Found) -> str:
    body = BLANKS.sub("\n\n", COMMENT.sub("", item.body)).strip()
    return f"\n### {item.title.strip()} ({item.ref})\n\n{body}\n"


def compose(kind: str, items: list[Found], budget: int) -> tuple[str, list[Found]]:
    """The context text within `budget`, and the entries it holds."""
    lead = LEADS[kind]
    room = budget - len(lead) - len(MORE)
    kept: list[Found] = []
    parts: list[str] = []
    for item in items:
        text = block(item)
        if len(text) <= room:
            parts.append(text)
            kept.append(item)
            room -= len(text)
        elif not kept and room > 80:  # the best entry, cut on a line: the fix is what matters
            lines, used = [], 0
            for line in text.splitlines(keepends=True):
                if used + len(line) > room - 2:
                    break
                lines.append(line)
                used += len(line)
            parts.append("".join(lines).rstrip("\n") + "\n…\n")
            kept.append(item)
            break
    if not kept:
        return "", []
    return lead + "".join(parts) + MORE, kept


def answer(
    event: Event, index_file: Path, state: Path, budget: int, runner: str
) -> tuple[str, list[str]]:
    """The hook's stdout for `event` ("" when nothing is relevant) and the entries delivered."""
    if event.kind not in LEADS or budget <= 0:
        return "", []
    given = injections.delivered(state, event.session)
    fresh = [f for f in entries_for(event, index_file) if f.ref not in given]
    text, kept = compose(event.kind, fresh, budget)
    if not kept:
        return "", []
    refs = [f.ref for f in kept]
    injections.record(state, event.session, event.name, runner, refs)
    output = {"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": text}}
    return json.dumps(output, ensure_ascii=False) + "\n", refs
