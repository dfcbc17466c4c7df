"""What wikimem sets on every git command so a repository's own config runs nothing.

A repository's config (`.git/config`, and the files it includes) can name programs git starts
on its own: a file-system monitor on every status, hooks, clean/smudge filters on every add and
checkout, textconv drivers, the ssh command, credential helpers, upload/receive-pack commands.
wikimem refuses a repository another user owns (see `check_owner`), and on its own repositories
it still runs none of these: each is overridden with `-c` on the command line, which git reads
last. Settings from the person's global config (a credential helper, git-lfs) are left alone
unless the repository's config sets the same thing.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from wikimem.errors import HistoryError

# Always: nothing wikimem runs needs any of these, whoever configured them.
ALWAYS = (
    f"core.hooksPath={os.devnull}",
    "core.fsmonitor=false",
    "core.pager=cat",
    "protocol.ext.allow=never",  # an ext:: URL (or an insteadOf rewriting to one) runs a command
)

# A repository's own value of one of these is replaced by the harmless one.
REPLACED = {
    "core.sshcommand": "core.sshCommand=ssh",
    "core.askpass": "core.askPass=",
    "core.gitproxy": "core.gitProxy=",
    "core.alternaterefscommand": "core.alternateRefsCommand=",
    "credential.helper": "credential.helper=",  # empty: no helper at all
    "gpg.program": "commit.gpgSign=false",
    "diff.external": "diff.external=",
}

# Sections naming a program per driver or remote: `[filter "x"] clean = ...` and the like.
DRIVERS = {
    "filter": ("clean=", "smudge=", "process=", "required=false"),
    "diff": ("textconv=", "command="),
    "remote": ("uploadpack=git-upload-pack", "receivepack=git-receive-pack"),
}
SECTION = re.compile(r'^(\w+)\s+"(.*)"$')


def overrides(sections: Iterable[tuple[str, Iterable[str]]]) -> list[str]:
    """The `-c` values for a repository whose config has these (section, option names)."""
    found = list(ALWAYS)
    for section, options in sections:
        names = {name.lower() for name in options}
        named = SECTION.match(section)
        if named and named.group(1).lower() in DRIVERS:
            kind, name = named.group(1).lower(), named.group(2)
            found += [f"{kind}.{name}.{value}" for value in DRIVERS[kind]]
        elif named and named.group(1).lower() == "credential" and "helper" in names:
            found.append(f"credential.{named.group(2)}.helper=")
        for name in names:
            key = f"{section.split()[0].lower()}.{name}"
            if key in REPLACED and REPLACED[key] not in found:
                found.append(REPLACED[key])
    return found


def check_owner(
    git_dir: Path,
    files: tuple[str, ...] = ("config",),
    safe: Callable[[], list[str]] | None = None,
    work_tree: Path | None = None,
) -> None:
    """Refuse a repository another user owns, as git's `safe.directory` does: its config,
    hooks and objects are theirs to plant. As with git, a repository the person listed in
    `safe.directory` (`safe` reads it from the system and global config) is used. A config of
    ours that others can write (left by `git init` under umask 0) is tightened first."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    for path in (git_dir, *(git_dir / name for name in files)):
        try:
            info = os.stat(path)
        except FileNotFoundError:
            continue
        if uid is not None and info.st_uid != uid:
            if safe is not None and is_listed(work_tree or git_dir, safe()):
                return
            raise HistoryError(
                f"{path} belongs to another user (uid {info.st_uid}); refusing to use the "
                "repository (as git's safe.directory would)"
            )
        if info.st_mode & 0o022:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o022)


def is_listed(folder: Path, safe: list[str]) -> bool:
    """Whether git's `safe.directory` values allow `folder`: `*`, the folder itself, or a
    `prefix/*`; an empty value forgets those before it."""
    allowed: list[str] = []
    for value in safe:
        allowed = [] if value == "" else [*allowed, value]
    here = os.path.realpath(folder)
    for value in allowed:
        if value == "*":
            return True
        if value.endswith("/*") and (here + "/").startswith(os.path.realpath(value[:-2]) + "/"):
            return True
        if os.path.realpath(os.path.expanduser(value)) == here:
            return True
    return False
