"""Who last wrote each line of a page: `git blame` of the file as it is on disk.

Invariant: a line is the person's when the commit that last changed it was not made by wikimem
(its author is not WIKIMEM), or when it is not committed yet; every other line is wikimem's.
"""

from __future__ import annotations

from wikimem.wiki.history.commits import WIKIMEM
from wikimem.wiki.history.session import Session, decode

NOT_COMMITTED = "0" * 40


def person_lines(s: Session, path: str) -> list[bool] | None:
    """For each line of the wiki file `path` (as the disk has it), whether a person wrote it;
    None when git cannot say (no commit yet, a file it does not track)."""
    if s.head() is None:
        return None
    status, out, _ = s.attempt("blame", "--no-textconv", "--line-porcelain", "--", s.to_repo(path))
    if status != 0:
        return None
    owners: list[bool] = []
    sha, mail = "", ""
    for line in decode(out).split("\n"):
        if line.startswith("\t"):  # the line itself closes its record
            owners.append(sha == NOT_COMMITTED or mail != f"<{WIKIMEM.email}>")
            sha, mail = "", ""
        elif not sha:
            sha = line.split(" ", 1)[0]
        elif line.startswith("author-mail "):
            mail = line.removeprefix("author-mail ").strip()
    return owners
