"""Where an entry came from, and how strongly it is held, read from the wiki's git history.

Pages stay readable: provenance lives in the commits that wrote each entry. A commit a person
made (any author but wikimem, a compaction aside) is the person's word; a pass's commit names
its runs (`Wikimem-Run`), its model (`Wikimem-Model`), and for each edit a reason, which says
when the edit was an explicit candidate a run asked to remember. Sources rank
person > candidate > model > rule; each later run that wrote or rewrote the entry again
counts as support (of a pass that read several runs, only those the pass names for that
edit in `Wikimem-Edit-Run`, when it knows), and so does a run that proposed it word for
word (the pass records it in the entry's `confirmed` date, see `memory.confirm_days`).
Invariant: nothing here writes; an entry without history has no origin.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from wikimem.config import Places, Settings
from wikimem.wiki import markdown
from wikimem.wiki.history.commits import WIKIMEM, Commit
from wikimem.wiki.pages import LEAF_FILE
from wikimem.wiki.workspace import open_repo

RANK = {"person": 3, "candidate": 2, "model": 1, "rule": 0}
OFFLINE_MODEL = "offline-rules"
CANDIDATE_REASON = "explicit memory candidate"
SCAN = 500  # commits of one leaf read at most


@dataclass(frozen=True)
class Step:
    date: str
    commit: str
    source: str
    runs: tuple[str, ...]
    author: str


@dataclass(frozen=True)
class Origin:
    """An entry's sources, oldest first: `source` is the strongest, `runs` every supporting run."""

    ref: str
    steps: tuple[Step, ...]

    @property
    def source(self) -> str:
        return max((s.source for s in self.steps), key=RANK.__getitem__, default="")

    @property
    def runs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(run for s in self.steps for run in s.runs))

    @property
    def strength(self) -> int:
        """The source's rank, then one more for each run beyond the first that wrote it."""
        return RANK.get(self.source, 0) + max(0, len(self.runs) - 1) if self.steps else 0

    def line(self) -> str:
        if not self.steps:
            return "no history: written before the wiki's commits, or not yet committed"
        runs = f"; runs {', '.join(self.runs)}" if self.runs else ""
        first, last = self.steps[0], self.steps[-1]
        when = first.date[:10] + (f" .. {last.date[:10]}" if last is not first else "")
        return f"source {self.source} (strength {self.strength}){runs}; written {when}"

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data.update(source=self.source, runs=list(self.runs), strength=self.strength)
        return data


def source_of(commit: Commit, ref: str) -> str:
    """What kind of source wrote `ref` in `commit`."""
    action = commit.trailers.get("Wikimem-Action", ())
    if commit.email != WIKIMEM.email and "compact" not in action:
        return "person"
    for line in commit.body.splitlines():
        if f" {ref}:" in line and CANDIDATE_REASON in line:
            return "candidate"
    return "rule" if OFFLINE_MODEL in commit.trailers.get("Wikimem-Model", ()) else "model"


def runs_of(commit: Commit, ref: str) -> tuple[str, ...]:
    """The runs `ref` came from in `commit`: those its `Wikimem-Edit-Run` trailers name when
    the pass read several runs and knew which one taught the edit, else every run of the pass."""
    named = tuple(
        run
        for value in commit.trailers.get("Wikimem-Edit-Run", ())
        for target, _, run in [value.partition(" ")]
        if target == ref and run
    )
    return named or tuple(commit.trailers.get("Wikimem-Run", ()))


def origin(places: Places, settings: Settings, ref: str) -> Origin:
    """The commits that wrote entry `ref` (`leaf#entry`) and what each says of its source."""
    return origins(places, settings, [ref])[ref]


def origins(places: Places, settings: Settings, refs: Iterable[str]) -> dict[str, Origin]:
    repo = open_repo(places, settings)
    wanted: dict[str, list[str]] = {}
    for ref in refs:
        leaf, _, entry = ref.partition("#")
        wanted.setdefault(leaf, []).append(entry)
    found: dict[str, Origin] = {}
    for leaf, entries in wanted.items():
        file = f"{leaf}/{LEAF_FILE}"
        steps: dict[str, list[Step]] = {e: [] for e in entries}
        before: dict[str, tuple[str, str] | None] = dict.fromkeys(entries)
        for commit in reversed(repo.log(file, limit=SCAN)):
            text = repo.read(commit.sha, file)
            page = markdown.parse_page(text) if text is not None else None
            for entry_id in entries:
                now = page.entry(entry_id) if page else None
                # a commit that rewrote the entry, or that recorded a run confirming it
                body = (now.body, now.meta.get("confirmed", "")) if now else None
                if body is not None and body != before[entry_id]:
                    ref = f"{leaf}#{entry_id}"
                    runs = runs_of(commit, ref)
                    steps[entry_id].append(
                        Step(commit.date, commit.short, source_of(commit, ref), runs, commit.author)
                    )
                if body is None:
                    steps[entry_id] = []  # removed: a later entry of that id starts afresh
                before[entry_id] = body
        for entry_id in entries:
            ref = f"{leaf}#{entry_id}" if entry_id else leaf
            found[ref] = Origin(ref, tuple(steps[entry_id]))
    return found


def outranked(places: Places, settings: Settings, edits: Iterable[tuple[str, str]]) -> str:
    """Why a plan must wait for review because an edit of a weaker source would replace or
    remove an entry an explicit candidate wrote (`edits`: (ref, source) of each update and
    removal); "" when none. What a person wrote is the person-first rule's to guard: it looks
    at the lines written since wikimem last wrote, where a rank would hold every later edit.
    """
    edits = list(edits)
    if not edits:
        return ""
    found = origins(places, settings, [ref for ref, _ in edits])
    for ref, source in edits:
        ranks = [s.source for s in found[ref].steps if s.source != "person"]
        held = max(ranks, key=RANK.__getitem__, default="")
        if held and RANK[source] < RANK[held]:
            return f"a {source} edit would replace {ref}, which a {held} wrote"
    return ""


def edit_source(reason: str, model: str) -> str:
    """The source of a pass's edit: its reason says an explicit candidate, else its model."""
    if reason.startswith(CANDIDATE_REASON):
        return "candidate"
    return "rule" if model == OFFLINE_MODEL else "model"
