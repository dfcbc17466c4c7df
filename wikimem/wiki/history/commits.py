"""What the history says about a commit: who made it (Identity) and what it was (Commit), read
back from `git log` in one fixed format.

Invariant: a Commit's paths are wiki-relative, and its body never repeats the trailer block,
which is parsed into `trailers` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wikimem.wiki.history.session import Session, split_z


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


WIKIMEM = Identity("wikimem", "wikimem@localhost")
EDITOR = Identity("wiki editor", "editor@localhost")  # a person with no git identity configured
LOG_FIELDS = ("%H", "%h", "%aI", "%an", "%ae", "%s", "%b", "%(trailers:only,unfold)")
LOG_FORMAT = "%x1e" + "".join(f"{field}%x1f" for field in LOG_FIELDS)


@dataclass(frozen=True)
class Commit:
    sha: str
    short: str
    date: str  # ISO 8601 author date
    author: str
    subject: str
    body: str  # the message after the subject, without the trailer block
    trailers: Mapping[str, tuple[str, ...]]
    paths: tuple[str, ...] = ()  # wiki-relative paths the commit touched (when asked)
    email: str = ""


def parse_commit(s: Session, chunk: str) -> Commit:
    """One record of a `git log -z --format=LOG_FORMAT` output (names after it, if asked)."""
    *fields, tail = chunk.split("\x1f")
    sha, short, date, author, email, subject, body, trailer_text = fields
    trailers: dict[str, tuple[str, ...]] = {}
    for line in trailer_text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            trailers[key.strip()] = (*trailers.get(key.strip(), ()), value.strip())
    if trailers:  # git's trailer block is the message's last paragraph
        body = "\n\n".join(body.strip("\n").split("\n\n")[:-1])
    names = tail.lstrip("\0")
    names = names[1:] if names.startswith("\n") else names
    paths = tuple(s.wiki_paths(split_z(names)))
    return Commit(sha, short, date, author, subject, body.strip("\n"), trailers, paths, email)
