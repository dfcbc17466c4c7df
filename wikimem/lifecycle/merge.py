"""One file both sides of a sync changed: its content after our change is applied to theirs.

Invariant: no line of a page's text either side wrote is dropped. git's line merge first; when
lines conflict, a leaf is merged entry by entry, and the text a person writes (a page's head, an
entry both sides changed, the text outside a TOPIC.md's or PROFILE.md's generated block) keeps
both versions where they conflict: the remote's, then ours between two notes (`<!-- sync
conflict to settle ... -->`, `<!-- end of sync conflict -->`) that `wikimem lint` reports until
a person settles them. The generated block is theirs, regenerated from the merged leaves right
after; frontmatter (YAML, no room for two values of a key) is merged by line, theirs where it
conflicts, with ours kept below as YAML comments under the same note.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from wikimem.wiki import markdown
from wikimem.wiki.history import Commit, WikiRepo
from wikimem.wiki.history.sharing import CONFLICT, CONFLICT_SIZE
from wikimem.wiki.lint import SYNC_NOTE
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, TOPIC_FILE

GENERATED = (TOPIC_FILE, PROFILE_FILE)
END_NOTE = "<!-- end of sync conflict -->"
UPDATED = re.compile(r"^updated:.*$", re.M)  # set after a merge, never a conflict


@dataclass
class Merger:
    """The merges of one replayed commit (ours), on top of the remote's files (theirs)."""

    repo: WikiRepo
    commit: Commit
    merged: list[str] = field(default_factory=list)  # files both sides changed
    conflicts: list[str] = field(default_factory=list)  # files now holding a kept conflict
    kept: int = 0  # conflicts kept with both versions

    def merge(
        self, path: str, base: str | None, ours: str | None, theirs: str | None
    ) -> str | None:
        """The content `path` should have after applying our change (base -> ours) to theirs."""
        if theirs in (base, ours):
            return ours
        if ours == base:
            return theirs
        self.merged.append(path)
        if ours is None or theirs is None:
            # One side deleted what the other changed: keep the changed version, lose nothing.
            return theirs if ours is None else ours
        text = self.repo.merge_text(base, ours, theirs)
        if text is not None:
            return text
        name = path.rsplit("/", 1)[-1]
        kept = self.kept
        if name in GENERATED:
            text = self.merge_generated(base or "", ours, theirs)
        elif name == LEAF_FILE:
            text = self.merge_entries(base, ours, theirs)
        else:
            return ours  # a file wikimem does not understand: the commit being replayed wins
        if self.kept > kept:
            self.conflicts.append(path)
        return text

    def merge_generated(self, base: str, ours: str, theirs: str) -> str:
        """The person's text outside the generated block merged; the block is theirs (it is
        regenerated from the merged leaves right after), so only the person's text conflicts."""
        block = markdown.generated_block(theirs)

        def aligned(text: str) -> str:
            span = markdown.generated_block(text)
            if block is None or span is None:
                return text
            return text[: span[0]] + theirs[block[0] : block[1]] + text[span[1] :]

        parts = [markdown.parse_page(aligned(t)) for t in (base, ours, theirs)]
        frontmatter = merge_frontmatter(self, *(p.frontmatter for p in parts))
        rest = [p.render()[len(p.frontmatter) :] for p in parts]
        return frontmatter + self.keep_both(*rest)

    def merge_entries(self, base: str | None, ours: str, theirs: str) -> str:
        """A leaf whose lines conflict: theirs, with the entries our commit added put in and
        the ones it removed (unchanged on their side) taken out; an entry or page head both
        sides changed is merged by line, keeping both versions where lines conflict."""
        old = markdown.parse_page(base) if base else None
        mine = markdown.parse_page(ours)
        page = markdown.parse_page(theirs)
        nl = page.newline
        # An entry's trailing blank lines belong to its position on the page, not its content.
        before = {e.id: e.text.rstrip() + nl for e in old.entries} if old else {}
        texts = {e.id: e.text for e in page.entries}
        order = [e.id for e in page.entries]
        for entry in mine.entries:
            text = entry.text.rstrip() + nl
            if before.get(entry.id) == text:
                continue
            if entry.id not in texts:
                order.append(entry.id)
                texts[entry.id] = entry.text
            else:
                theirs_text = texts[entry.id].rstrip() + nl
                texts[entry.id] = self.keep_both(before.get(entry.id), text, theirs_text)
        for gone in set(before) - {e.id for e in mine.entries}:
            if gone in texts and texts[gone].rstrip() + nl == before[gone]:
                order.remove(gone)
        body = ""
        for entry_id in order:
            if body and not body.endswith(nl + nl):
                body += nl if body.endswith(nl) else nl + nl
            body += texts[entry_id]
        head = self.keep_both(old.head if old else None, mine.head, page.head)
        if body and head.strip() and not head.endswith(nl + nl):
            head += nl if head.endswith(nl) else nl + nl
        frontmatter = merge_frontmatter(
            self, old.frontmatter if old else "", mine.frontmatter, page.frontmatter
        )
        result = markdown.parse_page(frontmatter + head + body)
        newer = max(str(mine.meta.get("updated") or ""), str(page.meta.get("updated") or ""))
        if newer and str(result.meta.get("updated") or "") != newer:
            result = markdown.with_meta(result, "updated", newer)
        return result.render()

    def keep_both(self, base: str | None, ours: str, theirs: str) -> str:
        """git's line merge of a person's text; where lines conflict, theirs then ours between
        the notes (ours left out when it only removed lines: nothing of a person's is lost)."""
        if theirs in (base, ours):
            return ours
        if ours == base:
            return theirs
        nl = markdown.parse_page(theirs).newline
        return self._resolved(
            base, ours, theirs, lambda mine: [self.note() + nl, *mine, END_NOTE + nl]
        )

    def keep_both_yaml(self, base: str, ours: str, theirs: str) -> str:
        """Frontmatter merged by line; where lines conflict, theirs stand and ours follow as
        YAML comments under the note (YAML has no room for two values of one key)."""
        if theirs in (base, ours):
            return ours
        if ours == base:
            return theirs
        nl = "\r\n" if "\r\n" in theirs else "\n"
        return self._resolved(
            base, ours, theirs, lambda mine: [f"# {self.note()}{nl}", *(f"# {m}" for m in mine)]
        )

    def _resolved(
        self,
        base: str | None,
        ours: str,
        theirs: str,
        placed: Callable[[list[str]], list[str]],
    ) -> str:
        """git's line merge, each conflict resolved as theirs followed by `placed(ours)`
        (nothing when ours only removed lines)."""
        text = self.repo.merge_text(base, ours, theirs, marked=True)
        assert text is not None  # marked: a merge with its conflicts in it
        nl = markdown.parse_page(theirs).newline
        out: list[str] = []
        mine: list[str] = []
        side: list[str] | None = None  # where the lines of a conflict go: ours aside, theirs out
        for line in text.splitlines(keepends=True):
            bare = line.rstrip("\r\n")
            if side is None and bare == CONFLICT[0]:
                mine = []
                side = mine
            elif side is mine and bare.startswith("|" * CONFLICT_SIZE):
                side = []  # the base's lines, when git's config asks for them (diff3)
            elif side is not None and side is not out and bare == CONFLICT[1]:
                side = out
            elif side is out and bare == CONFLICT[2]:
                side = None
                if any(m.strip() for m in mine):
                    self.kept += 1
                    if mine and not mine[-1].endswith(("\n", "\r")):
                        mine[-1] += nl
                    if out and not out[-1].endswith(("\n", "\r")):
                        out[-1] += nl
                    out.extend(placed(mine))
            else:
                (out if side is None else side).append(line)
        return "".join(out)

    def note(self) -> str:
        who = markdown.plain_line(
            f"{self.commit.author} ({self.commit.short}, {self.commit.subject})", 120
        ).replace("--", "-")
        return (
            f"<!-- {SYNC_NOTE}: {who} changed the lines above differently; their version follows, "
            "up to the end note: keep what is right and delete both notes -->"
        )


def merge_frontmatter(merger: Merger, base: str, ours: str, theirs: str) -> str:
    """Both sides' frontmatter merged by line, `updated` left as theirs (the caller sets it);
    where lines conflict, theirs stand and ours follow as YAML comments under a sync note."""
    if ours == base or not ours or not theirs:
        return theirs
    found = UPDATED.search(theirs)
    if found is not None:
        line = found.group(0)
        base, ours = (UPDATED.sub(lambda _: line, t, count=1) for t in (base, ours))
    return merger.keep_both_yaml(base, ours, theirs)
