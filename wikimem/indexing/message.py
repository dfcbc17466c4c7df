"""The commit message of a pass: a subject saying what was applied, the model's summary below.

The subject is built from the edits that survived validation, never from the plan's summary:
a model may summarise what it meant to do ("Update the state lock entry") while validation
turned that edit into an add, or dropped it. Invariant: the subject is one line of at most
SUBJECT_MAX characters, and the same edits give the same subject.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikimem.wiki.edit import Edit

SUBJECT_MAX = 72
VERBS = {"add": "Add", "update": "Update", "remove": "Remove", "confirm": "Confirm"}


def subject(applied: Sequence[Edit], topics: Sequence[str] = ()) -> str:
    """`Add infra/terraform: Error acquiring the state lock`, `Add 2 entries, update 1 (...)`."""
    if not applied:
        names = ", ".join(topics) or "the wiki"
        return _bounded(f"Summarise {'topic' if len(topics) == 1 else 'topics'} {names}")
    if len(applied) == 1:
        edit = applied[0]
        return _bounded(f"{VERBS[edit.action]} {edit.leaf}: {edit.title or edit.entry}")
    counts = {action: sum(e.action == action for e in applied) for action in VERBS}
    done = [(action, n) for action, n in counts.items() if n]
    parts = [f"{action} {n}" for action, n in done]
    parts[0] = f"{VERBS[done[0][0]]} {done[0][1]} {'entry' if done[0][1] == 1 else 'entries'}"
    leaves = list(dict.fromkeys(e.leaf for e in applied))
    where = leaves[0] if len(leaves) == 1 else f"{leaves[0]} and {len(leaves) - 1} more"
    if len(leaves) == 2:
        where = f"{leaves[0]}, {leaves[1]}"
    return _bounded(f"{', '.join(parts)} in {where}")


def _bounded(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= SUBJECT_MAX else line[: SUBJECT_MAX - 1].rstrip() + "…"
