"""The extractor seam: a model through the openai client, or the offline rules.

Both produce an untrusted RawPlan that the pass validates the same way, except that the edits
the rules propose are marked as theirs (`plan.BY_RULES`) and spared the strict checks meant for
a model's confusion. Explicit `memory` candidates are always proposed by the rules, whether or
not a model resolves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from wikimem.config import ModelSettings
from wikimem.indexing.offline import Known, offline_plan
from wikimem.indexing.plan import SCHEMA, RawPlan, by_rules, parse_answer
from wikimem.indexing.policy import Policy
from wikimem.indexing.prompt import WikiView, messages
from wikimem.intake.record import RunRecord

OFFLINE = "offline-rules"
NO_MODEL_WARNING = (
    "no model configured (set WIKIMEM_MODEL or `wikimem config set model.memory`):"
    " the model cannot learn; offline rules only"
)


@dataclass(frozen=True)
class Extraction:
    plan: RawPlan
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_chars: int = 0
    attempts: tuple[str, ...] = ()
    approved_by: str = ""  # the person who approved a held plan (`wikimem review approve`)


def merge(first: RawPlan, second: RawPlan) -> RawPlan:
    """Edits of `first`, then those of `second` on other entries. The summary is `second`'s
    (the model's) unless only `first` has edits: a model's "nothing durable" is its reason."""
    seen = {(str(e.get("leaf")), str(e.get("entry"))) for e in first.edits}
    extra = tuple(e for e in second.edits if (str(e.get("leaf")), str(e.get("entry"))) not in seen)
    summary = first.summary if first.edits and not second.edits else second.summary
    return RawPlan(summary or first.summary, first.edits + extra, first.topics + second.topics)


def extract(
    runs: Sequence[RunRecord],
    policies: Sequence[Policy],
    view: WikiView,
    model: ModelSettings,
    overrides: Path | None = None,
) -> Extraction:
    """Ask the model for a plan (ModelError when it cannot answer), or apply the rules."""
    if model.model is None:
        known = Known.from_view(view.homes, view.pages)
        return Extraction(by_rules(offline_plan(runs, known)), OFFLINE)
    from wikimem.indexing.model import complete_json  # openai is imported only when a model is used

    prompt = messages(policies, view, runs, overrides)
    completion, raw = complete_json(model, prompt, SCHEMA, parse_answer)
    candidates = by_rules(offline_plan([replace(run, evidence=()) for run in runs]))
    return Extraction(
        plan=merge(candidates, raw),
        model=completion.model,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        prompt_chars=sum(len(m["content"]) for m in prompt),
        attempts=completion.attempts,
    )
