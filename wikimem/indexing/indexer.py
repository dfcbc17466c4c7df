"""One indexing pass (draining the queue with as many as it takes is `indexing.drain`).

A pass: lock → recover a crashed pass → claim jobs → policies → wiki view → extractor → validate
→ apply → compile → one commit → jobs done → pass log. Invariants: a pass either commits all of
its change or leaves the wiki as it was (a journal names the files it may touch); every job ends
in exactly one state; a job is never dropped.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from wikimem import frozen
from wikimem.config import Places, Settings
from wikimem.errors import ModelError, WikimemError
from wikimem.fsio import atomic_write_text, read_text, workspace_lock
from wikimem.indexing import ownership
from wikimem.indexing import review as review_inbox
from wikimem.indexing.claims import authority_claim
from wikimem.indexing.extractor import NO_MODEL_WARNING, OFFLINE, Extraction, extract
from wikimem.indexing.guard import verified_commands
from wikimem.indexing.message import subject
from wikimem.indexing.plan import DEFAULT_SUMMARY, Note, Plan, parse, validate
from wikimem.indexing.policy import read_policies
from wikimem.indexing.prompt import (
    WikiView,
    build_view,
    provider_view,
    relevant_leaves,
    tools_of,
)
from wikimem.intake import passlog
from wikimem.intake.passlog import Outcome
from wikimem.intake.queue import Job, Queue
from wikimem.intake.record import RunRecord
from wikimem.providers import load
from wikimem.providers.provider import WIKI, provider_name
from wikimem.recall.provenance import edit_source, outranked
from wikimem.recall.search import SearchIndex
from wikimem.wiki.change import wiki_change
from wikimem.wiki.edit import Edit
from wikimem.wiki.pages import PROFILE_FILE, EditConflict, Wiki
from wikimem.wiki.render import render
from wikimem.wiki.workspace import ensure_wiki, open_repo, today

if TYPE_CHECKING:
    from wikimem.recall.search import SearchIndex
    from wikimem.wiki.history import PersonEdits

MIN_RESULT = 200
# The rarest words of a run's query that the pass's search keeps (see SearchIndex.focused).
FOCUS_TERMS = 10
JOURNAL = "journal.json"

Progress = Callable[[int], None]
Warn = Callable[[str], None]


@dataclass
class PassReport:
    pass_id: str
    outcomes: list[Outcome] = field(default_factory=list)
    commit: str | None = None
    warnings: list[str] = field(default_factory=list)


class BatchFailed(Exception):
    """A batch of several jobs failed: retried one job at a time within the same pass."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (WikimemError, ModelError)):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}"
    return f"{type(exc).__name__}: {exc}"


def can_teach(run: RunRecord) -> bool:
    return bool(run.evidence or run.memory or len(run.result) >= MIN_RESULT)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Pass:
    """The state one pass works with; created under the lock."""

    def __init__(self, places: Places, settings: Settings, warn: Warn) -> None:
        self.places = places
        self.settings = settings
        self.warn = warn
        self.queue = Queue(places.queue)
        self.wiki = Wiki(places.wiki)
        self.repo = open_repo(places, settings)
        self.journal = places.state / JOURNAL

    # ---- crash recovery ----------------------------------------------------------------------
    def recover(self) -> None:
        """Finish or undo what a killed pass left: the journal says which files and jobs."""
        if self.journal.exists():
            try:
                data = json.loads(self.journal.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            self._remove_temp_files(data.get("files", []))
            landed = (
                any(
                    data.get("pass_id") in c.trailers.get("Wikimem-Pass", ())
                    for c in self.repo.log(limit=3)
                )
                if data.get("pass_id")
                else False
            )
            if landed:
                for jid in data.get("jobs", []):
                    path = self.queue.path("active", jid)
                    if path.exists():
                        self.queue.finish(Job.from_json(path.read_text(encoding="utf-8")))
            else:
                self.repo.restore(data.get("files", []))
            self.journal.unlink()
        count = self.queue.recover(self.settings.queue.max_attempts)
        if count:
            self.warn(
                f"wikimem: took back {count} job(s) from an interrupted pass "
                "(counted as a failed attempt)"
            )

    def _remove_temp_files(self, files: Sequence[str]) -> None:
        """A kill between an atomic write's temp file and its rename leaves the temp file in
        the wiki; left there, the next pass would commit it as a person's edit."""
        for relpath in files:
            try:
                target = self.wiki.confine(relpath)
            except WikimemError:
                continue
            for temp in target.parent.glob(f".{target.name}.*.tmp"):
                temp.unlink(missing_ok=True)

    # ---- one batch ---------------------------------------------------------------------------
    def run(self, jobs: Sequence[Job]) -> PassReport:
        report = PassReport(pass_id=uuid.uuid4().hex[:12])
        started = time.monotonic()
        jobs = self._for_this_provider(report, jobs, started)
        runs = [RunRecord.from_dict(job.run) for job in jobs]
        teach = [(j, r) for j, r in zip(jobs, runs, strict=True) if can_teach(r)]
        for job, run in zip(jobs, runs, strict=True):
            if not can_teach(run):
                self.queue.finish(job)
                report.outcomes.append(
                    self._outcome(
                        report,
                        job,
                        "skipped",
                        started,
                        note="nothing to learn from: no evidence, no candidates, short result",
                    )
                )
        if teach:
            try:
                self._learn(report, [j for j, _ in teach], [r for _, r in teach], started)
            except BatchFailed as exc:
                # One job's run (an answer that is not JSON, an edit that cannot be written)
                # must not fail the others: each is tried alone, so only the culprit is charged.
                self.warn(f"wikimem: a batch of {len(teach)} failed ({exc}); trying each alone")
                for job, run in teach:
                    self._learn(report, [job], [run], time.monotonic())
        passlog.append(self.places.pass_log, report.outcomes)
        return report

    def _outranked(self, plan: Plan, model: str) -> str:
        """Held when a weaker source would replace a stronger entry (see recall.provenance)."""
        changing = [
            (f"{e.leaf}#{e.entry}", edit_source(e.reason, model))
            for e in plan.edits
            if e.action in ("update", "remove")
        ]
        return outranked(self.places, self.settings, changing) if changing else ""

    def _identity(self, plan: Plan) -> str:
        """Held when a model would add or rewrite identity memory (an entry of that type, or
        any entry of a leaf of that type): who the person is and what they allow ("the owner
        allows pushing to main without review") is printed at every session start, so a
        talked-into model must not be able to say it for them."""
        found = []
        for edit in plan.edits:
            if edit.action == "remove":
                continue
            if edit.type != "identity":
                try:
                    page = self.wiki.read_page(self.wiki.leaf_file(edit.leaf))
                except (WikimemError, OSError, UnicodeError):
                    page = None
                if page is None or str(page.meta.get("type") or "") != "identity":
                    continue
            found.append(f"{edit.leaf}#{edit.entry}")
        if found:
            return f"writes identity memory ({', '.join(found[:3])}): a person decides"
        # whatever type it is given, a sentence saying what a person allows is identity memory,
        # and topic summaries reach every session start through PROFILE
        for text in (
            *(f"{e.title}\n{e.body}" for e in plan.edits if e.action != "remove"),
            *(t.summary for t in plan.topics),
        ):
            claim = authority_claim(text)
            if claim:
                return f"claims what a person allows ({claim!r}): a person decides"
        return ""

    def _persons(self, plan: Plan) -> str:
        """Held when an update or remove would drop or rewrite lines a person wrote in the
        entry since wikimem last wrote it (see `ownership`), or touch an entry holding a sync
        conflict nobody settled yet (two versions kept; whichever it dropped could be the
        person's); the whole plan waits."""
        reasons = []
        owners: dict[str, list[bool] | None] = {}
        texts: dict[str, str] = {}
        for edit in plan.edits:
            if edit.action not in ("update", "remove"):
                continue
            page = self.wiki.leaf_file(edit.leaf)
            if page not in texts:
                path = self.wiki.confine(page)
                texts[page] = read_text(path) if path.is_file() else ""
            text = texts[page]
            if ownership.unsettled(text, edit.entry):
                where = f"{edit.leaf}#{edit.entry}"
                reasons.append(f"{where} holds a sync conflict to settle first (`wikimem lint`)")
                continue
            if page not in owners:
                owners[page] = self.repo.person_lines(page)
            lines = owners[page]
            if not lines or not any(lines):
                continue
            person = ownership.entry_person_lines(text, lines, edit.entry)
            lost = ownership.dropped(person, edit.body if edit.action == "update" else None)
            if lost:
                reasons.append(ownership.hold_reason(f"{edit.leaf}#{edit.entry}", lost))
        return "; ".join(reasons)

    def _confirmations(self, plan: Plan) -> tuple[Edit, ...]:
        """A run that proposes an entry word for word confirms it: record that support (the
        entry's `confirmed` date, and this pass's runs in the commit) unless its leaf was
        written or the entry confirmed within `memory.confirm_days`: runs that repeat a fresh
        lesson change nothing, and support is what holds across time."""
        day = today()
        found = []
        for edit in plan.confirmed:
            page = self.wiki.read_page(self.wiki.leaf_file(edit.leaf))
            entry = page.entry(edit.entry) if page else None
            if page is None or entry is None:
                continue
            last = max(entry.meta.get("confirmed", ""), str(page.meta.get("updated") or ""))
            if not _confirm_due(last, day, self.settings.memory.confirm_days):
                continue
            reason = (
                f"confirmed by a later run ({edit.reason})"
                if edit.reason
                else "confirmed by a later run"
            )
            found.append(frozen.replace(edit, reason=reason, meta=(("confirmed", day),)))
        return tuple(found)

    def _for_this_provider(
        self, report: PassReport, jobs: Sequence[Job], started: float
    ) -> list[Job]:
        """Jobs made for another memory provider are never replayed into this one: held."""
        provider = provider_name(self.settings)
        for job in jobs:
            if job.provider != provider:
                note = (
                    f"made for memory provider {job.provider!r}; this workspace now uses "
                    f"{provider!r}: not replayed into it"
                )
                self.queue.hold(job, {"summary": "", "edits": []}, note)
                report.outcomes.append(self._outcome(report, job, "held", started, note=note))
        return [job for job in jobs if job.provider == provider]

    def _elsewhere(self, plan: Plan, jobs: list[Job], raw: dict[str, Any]) -> tuple[str, Any]:
        """Hand a validated plan to a provider other than the wiki: ("held", why) when it
        cannot take it (read-only), else ("changed", its change id)."""
        provider = load(self.places, self.settings)
        can = provider.capabilities()
        if not can.write or (any(e.action == "remove" for e in plan.edits) and not can.remove):
            why = f"memory provider {provider.name!r} is read-only: plan kept for review"
            for job in jobs:
                self.queue.hold(job, raw, why)
            return "held", why
        return "changed", provider.apply(plan.edits, plan.summary)

    def _outcome(
        self, report: PassReport, job: Job, outcome: str, started: float, **fields: Any
    ) -> Outcome:
        return Outcome(
            time=_now(),
            pass_id=report.pass_id,
            job=job.id,
            run_id=job.run_id,
            outcome=outcome,
            seconds=round(time.monotonic() - started, 3),
            **fields,
        )

    def _learn(
        self, report: PassReport, jobs: list[Job], runs: list[RunRecord], started: float
    ) -> None:
        model = self.settings.model_settings()
        if model.model is None and not self.settings.model.offline:
            report.warnings.append(NO_MODEL_WARNING)
        self._warned: set[str] = set()
        try:
            if provider_name(self.settings) == WIKI:  # another provider holds the memory
                ensure_wiki(self.places, self.settings, self.repo)
            # The person's edits are looked for (git status) while the pass reads the wiki and
            # asks the model, and committed before anything is written (or the pass fails).
            # When there were some, the wiki is read again, its search following their commit
            # as when they were committed first, and the model is asked again only if that
            # changed what it is shown.
            with self.repo.person_edits() as edits:
                policies = read_policies(self.places.global_policy, self.places.workspace_policy)
                view = self._view(runs)
                try:
                    extraction = extract(runs, policies, view, model, self.places.templates)
                except (ModelError, WikimemError, OSError):
                    self._commit_person_edits(edits)
                    raise
                if self._commit_person_edits(edits):
                    again = self._view(runs)
                    if again != view:
                        extraction = extract(
                            runs,
                            policies,
                            again,
                            model,
                            self.places.templates,
                        )
        except BatchFailed:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure is an attempt of these jobs
            self._fail(report, jobs, _reason(exc), started)
            return
        try:
            self.settle(report, jobs, runs, extraction, started)
        except BatchFailed:
            raise
        except Exception as exc:  # noqa: BLE001 - e.g. validation crashing on a path
            self._fail(report, jobs, _reason(exc), started)

    def settle(
        self,
        report: PassReport,
        jobs: list[Job],
        runs: list[RunRecord],
        extraction: Extraction,
        started: float,
        review: bool = True,
    ) -> None:
        """Validate the plan, then hold it for review, or write and commit it. When a person
        saves a page the pass is writing, their save is committed as theirs and the plan is
        validated and applied once more on top of it; a second clash fails the pass (retried)."""
        verified = verified_commands(runs)
        for attempt in (1, 2):
            try:
                if self._settle_once(report, jobs, runs, extraction, started, review, verified):
                    return
            except EditConflict as exc:
                if attempt == 2:
                    self._fail(report, jobs, f"could not write the wiki: {exc}", started)
                    return
                self.warn(f"wikimem: {exc}; keeping that save and applying the plan again")
                try:
                    self.repo.commit_person_edits()
                except WikimemError as again:
                    self._fail(report, jobs, f"could not commit a person's save: {again}", started)
                    return

    def _without_dropped(self, extraction: Extraction) -> tuple[Extraction, list[Note]]:
        """The plan without the lessons a person dropped before, and a note for each."""
        gone = review_inbox.dropped(self.places)
        if not gone:
            return extraction, []
        kept, notes = [], []
        for index, edit in enumerate(extraction.plan.edits):
            if review_inbox.fingerprint(edit) in gone:
                what = f"{edit.get('action', '?')} {edit.get('leaf', '?')}#{edit.get('entry', '?')}"
                notes.append(Note(index, what, review_inbox.DROPPED_REASON))
            else:
                kept.append(edit)
        if not notes:
            return extraction, []
        plan = replace(extraction.plan, edits=tuple(kept))
        return replace(extraction, plan=plan), notes

    def _settle_once(
        self,
        report: PassReport,
        jobs: list[Job],
        runs: list[RunRecord],
        extraction: Extraction,
        started: float,
        review: bool,
        verified: frozenset[str],
    ) -> bool:
        """One try at settling; EditConflict when a page changed under the pass."""
        mode = self.settings.review.mode
        set_aside: list[Note] = []
        if review:
            extraction, set_aside = self._without_dropped(extraction)
        share = self.settings.review.max_remove_share if review and mode != "off" else 1.0
        elsewhere = provider_name(self.settings) != WIKI
        plan = validate(
            extraction.plan,
            self.wiki.entry_bodies,
            total_entries=self._total_if_removing(extraction),
            max_remove_share=share,
            verified=verified,
            confine=self.wiki.confine,
            entries_known=not elsewhere,
            strict=True,
            topics=None if elsewhere else self.wiki.topics(),
            new_topics=max(len(runs), 1),
            run_text=run_text(runs),
            namesakes=None if elsewhere else self.wiki.namesakes,
        )
        if review and elsewhere and not plan.held and any(e.action == "remove" for e in plan.edits):
            # wikimem cannot count what another provider holds, so cannot tell a mass removal
            held = "removes memory another provider holds; wikimem cannot tell how much of it"
            plan = replace(plan, held=held)
        common = {
            "model": extraction.model,
            "prompt_tokens": extraction.prompt_tokens,
            "completion_tokens": extraction.completion_tokens,
            "rejected": [asdict(n) for n in (*set_aside, *plan.rejected)],
            "repaired": [asdict(n) for n in plan.repaired],
        }
        if review and not plan.held:
            plan = replace(plan, held=self._outranked(plan, extraction.model))
        if review and not plan.held:
            plan = replace(plan, held=self._persons(plan))
        if review and not plan.held and extraction.model != OFFLINE:
            plan = replace(plan, held=self._identity(plan))
        if review and not plan.held and mode == "all" and plan.edits:
            plan = replace(plan, held="review.mode is all: every change waits for a person")
        if plan.held:
            for job in jobs:
                # the plan keeps who proposed it, so its approval is committed as theirs
                kept = {**extraction.plan.to_dict(), review_inbox.MODEL_KEY: extraction.model}
                self.queue.hold(job, kept, plan.held)
                report.outcomes.append(
                    self._outcome(report, job, "held", started, note=plan.held, **common)
                )
            report.warnings.append(
                f"wikimem: plan held for review ({plan.held}); see `wikimem review`"
            )
            return True
        if plan.edits and provider_name(self.settings) != WIKI:
            try:
                outcome, said = self._elsewhere(plan, jobs, extraction.plan.to_dict())
            except (WikimemError, OSError) as exc:
                self._fail(report, jobs, f"could not write memory: {exc}", started, **common)
                return True
            for job in jobs:
                if outcome == "changed":
                    self.queue.finish(job)
                extra = {"note": said or "no change"}
                report.outcomes.append(
                    self._outcome(report, job, outcome, started, **extra, **common)
                )
            return True
        plan = replace(plan, edits=plan.edits + self._confirmations(plan))
        try:
            sha = self._write(report, plan, jobs, runs, extraction) if not plan.empty else None
        except EditConflict:
            raise
        except (WikimemError, OSError) as exc:
            self._fail(report, jobs, f"could not write the wiki: {exc}", started, **common)
            return True
        outcome = "changed" if sha else "no change"
        # a plan with no edit says why in its summary (validated like any line of the plan)
        why = plan.summary if plan.empty and plan.summary != DEFAULT_SUMMARY else ""
        report.commit = sha
        if sha:
            self._index_commit()
        for job in jobs:
            self.queue.finish(job)
            report.outcomes.append(
                self._outcome(
                    report,
                    job,
                    outcome,
                    started,
                    commit=sha,
                    edits=len(plan.edits),
                    note=why,
                    **common,
                )
            )
        if self.journal.exists():
            self.journal.unlink()
        return True

    def _view(self, runs: list[RunRecord]) -> WikiView:
        if provider_name(self.settings) != WIKI:  # the model sees the memory's owner's view
            return provider_view(
                load(self.places, self.settings), runs, self.settings.prompt.budget
            )
        relevant = [p for p in relevant_leaves(self._search, runs, self.wiki) if self._readable(p)]
        view = build_view(self.wiki, self.settings.prompt.budget, relevant, tools_of(runs))
        persons = []
        for file, text in view.pages:
            owners = self.repo.person_lines(file)
            if owners and any(owners):
                ids = ownership.person_entries(text, owners)
                if ids:
                    persons.append((file, ids))
        return replace(view, persons=tuple(persons))

    def _commit_person_edits(self, edits: PersonEdits) -> bool:
        """Commit what the look found; whether it committed anything. The search index was
        just told the wiki equals HEAD: if the person's edits cannot be committed, that word
        is taken back, so an edit undone before the next pass cannot stay indexed."""
        try:
            return edits.commit() is not None
        except BaseException:
            self._forget_index_head()
            raise

    def _index_commit(self) -> None:
        """Bring the search index to the commit just made: the in-loop hooks (session start,
        prompt, failed command) read it without refreshing, so a lesson learned in this pass
        reaches the very next session; git names the few leaves to re-read."""
        try:
            with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
                self._refresh_index(index)
        except Exception as exc:  # a cache: the next search or pass rebuilds it
            self.warn(f"wikimem: search index not refreshed ({exc})")

    def _forget_index_head(self) -> None:
        try:
            with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
                index.forget_head()
        except Exception:  # a cache: a broken one is rebuilt by the next full check
            pass

    def _readable(self, path: str) -> bool:
        """Whether a leaf can go into the prompt: one oversized, symlinked-out or misnamed
        leaf must not stop every pass from learning."""
        try:
            self.wiki.read_leaf(path)
        except WikimemError as exc:
            message = f"wikimem: left out of the prompt: {exc}"
            if message not in self._warned:  # the wiki may be read twice in a pass
                self._warned.add(message)
                self.warn(message)
            return False
        return True

    def _search(self, query: str, limit: int) -> list[str]:
        try:
            with SearchIndex(self.places.wiki, self.places.state / "search.sqlite") as index:
                self._refresh_index(index)
                paths: list[str] = []
                for hit in index.search(index.focused(query, FOCUS_TERMS), limit):
                    if hit.path not in paths:
                        paths.append(hit.path)
                return paths[:limit]
        except Exception as exc:  # the index is a cache: a broken one must not stop learning
            self.warn(f"wikimem: search index unavailable ({exc}); using no relevance")
            return []

    def _refresh_index(self, index: SearchIndex) -> None:
        """Bring the search index up to date; called right after the person's edits were
        committed, so the wiki's files equal HEAD: only what git says changed since the
        commit the index last matched needs a look, not every leaf of the wiki."""
        head, changed = self.repo.changes_since(index.head())
        index.refresh(changed, head=head)

    def _total_if_removing(self, extraction: Extraction) -> int:
        if any(e.get("action") == "remove" for e in extraction.plan.edits):
            return self.wiki.count_entries()
        return 0

    def _fail(
        self, report: PassReport, jobs: list[Job], error: str, started: float, **fields: Any
    ) -> None:
        """Charge each job one attempt; a batch of several is not charged but tried again one
        job at a time (BatchFailed), so a job is charged only for its own failure."""
        if len(jobs) > 1:
            raise BatchFailed(error)
        attempts = self.settings.queue.max_attempts
        for job in jobs:
            state = self.queue.fail(job, error, attempts)
            note = "moved to failed" if state == "failed" else "will be retried"
            report.outcomes.append(
                self._outcome(report, job, "failed", started, error=error, note=note, **fields)
            )
        report.warnings.append(f"wikimem: pass failed: {error}")

    def _write(
        self,
        report: PassReport,
        plan: Plan,
        jobs: list[Job],
        runs: list[RunRecord],
        extraction: Extraction,
    ) -> str | None:
        files = sorted(
            {self.wiki.leaf_file(e.leaf) for e in plan.edits}
            | {self.wiki.topic_file(e.leaf.split("/")[0]) for e in plan.edits}
            | {self.wiki.topic_file(t.topic) for t in plan.topics}
            | {PROFILE_FILE}
        )
        atomic_write_text(
            self.journal,
            json.dumps({"pass_id": report.pass_id, "files": files, "jobs": [j.id for j in jobs]}),
        )
        try:
            # The person's edits were committed by the look; the change holds the pages it
            # writes (committing saves of them made since as theirs), writes, recompiles and
            # commits what it wrote, or puts back only what nobody saved since.
            with wiki_change(
                self.places,
                self.settings,
                create=True,
                locked=True,
                repo=self.repo,
                wiki=self.wiki,
                looked=True,
            ) as change:
                applied = change.apply(plan.edits)
                for topic in plan.topics:
                    change.summarise(topic.topic, topic.summary)
                return change.commit(self._message(report, plan, applied.done, runs, extraction))
        except BaseException:
            if self.journal.exists():
                self.journal.unlink()
            raise

    def _message(
        self,
        report: PassReport,
        plan: Plan,
        done: list[Edit],
        runs: list[RunRecord],
        extraction: Extraction,
    ) -> str:
        """The pass's commit message: the one place it is rendered."""
        return render(
            "commit.j2",
            self.places.templates,
            subject=subject(done, sorted(t.topic for t in plan.topics)),
            summary=plan.summary,
            edits=done,
            topics=sorted(t.topic for t in plan.topics),
            rejected=plan.rejected,
            pass_id=report.pass_id,
            runs=[r.run_id for r in runs],
            agents=sorted({r.agent for r in runs if r.agent}),
            model=extraction.model if extraction.model != OFFLINE else OFFLINE,
            approved_by=extraction.approved_by,
        )


def _confirm_due(last: str, day: str, every: int) -> bool:
    """Whether a confirmation on `day` is recorded, the entry last refreshed on `last`."""
    if last == day:
        return False
    try:
        return (date.fromisoformat(day) - date.fromisoformat(last)).days >= every
    except ValueError:  # never confirmed, or a date a person mistyped
        return True


def recompile(places: Places, settings: Settings) -> str | None:
    """Recompile every TOPIC.md and PROFILE.md (after hand edits); one commit if anything moved.

    A page saved during the recompile is never built on (EditConflict): the recompile is
    tried once more on top of that save, committed as the person's."""
    for attempt in (1, 2):
        try:
            with wiki_change(places, settings) as change:
                change.everything = True
                return change.commit(
                    "Recompile topics and profile\n\nGenerated blocks refreshed after hand edits.\n"
                )
        except EditConflict:
            if attempt == 2:
                raise
    return None  # not reached: the second attempt returns or raises


def approve(places: Places, settings: Settings, job_prefix: str) -> str | None:
    """Apply a plan that was held for review, as a person's explicit decision."""
    with workspace_lock(places.lock, wait=True, timeout=60):
        work = Pass(places, settings, lambda _: None)
        job = work.queue.take_held(job_prefix)
        report = PassReport(pass_id=uuid.uuid4().hex[:12])
        held = job.held_plan or {"edits": []}
        # the commit names who proposed the plan (the offline rules or the model, so an entry's
        # source stays what it was) and the person who approved it
        proposed = str(held.get(review_inbox.MODEL_KEY) or "") or "approved by a person"
        person = work.repo.person()
        extraction = Extraction(
            parse(held), proposed, approved_by=one_line(f"{person.name} <{person.email}>")
        )
        work.repo.commit_person_edits()
        work.settle(
            report,
            [job],
            [RunRecord.from_dict(job.run)],
            extraction,
            time.monotonic(),
            review=False,
        )
        passlog.append(places.pass_log, report.outcomes)
        if any(o.outcome == "failed" for o in report.outcomes):
            raise WikimemError(f"could not apply the held plan: {report.outcomes[0].error}")
        return report.commit


def one_line(text: str) -> str:
    """`text` safe as a commit trailer's value: one line, no control characters."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def run_text(runs: Sequence[RunRecord]) -> str:
    """Everything the runs say: what a lesson must be drawn from. Values only: the record's
    field names (`command`, `output`, `result`) are words every run has, so a body made of them
    ("the command's output was ok") must not pass for one drawn from the run."""
    said: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            said.append(value)
        elif value is not None and not isinstance(value, bool):
            said.append(str(value))

    for run in runs:
        walk(run.to_dict())
    return "\n".join(said)
