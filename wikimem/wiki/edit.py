"""An edit of one entry, as the wiki applies it, and the names a wiki path is made of.

The edit plan (indexing) builds and validates these; the wiki only applies them, so the type
lives here, below both.
"""

from __future__ import annotations

import re

from wikimem.frozen import frozen

TYPES = ("semantic", "episodic", "procedural", "working", "identity")  # memory types
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # one segment of a wiki path


@frozen
class Edit:
    action: str
    leaf: str
    entry: str
    title: str = ""
    type: str = "semantic"
    body: str = ""
    reason: str = ""
    leaf_title: str = ""
    leaf_summary: str = ""
    meta: tuple[tuple[str, str], ...] = ()  # entry dates: ("review-by", "2027-03-01"), ...
    # the runs this edit came from, when the rules know it (one pass may read several runs);
    # empty: every run of the pass, as a model's edit of a batch is credited
    runs: tuple[str, ...] = ()
