"""Which workspace config files may make wikimem run programs or send data elsewhere.

A workspace's `.clarvis/config.toml` is written by whoever can write the workspace: a
repository that ships one, or another local user of a shared checkout. The settings that start
a program or choose where runs and keys go (DANGEROUS) are honoured from it only when the file
is trusted: its absolute path and SHA-256 are recorded by `wikimem trust` in `trusted.json` in
the user's wikimem home (outside every workspace), it still has that content, and it is owned
by the current user and writable by no one else. Everything else in the file applies as ever.
The global config is the user's own and always trusted. A change to the file needs trusting
again, as with direnv's `allow`.

Imports stay light (hashlib and json only when a check is needed): the hook reads settings.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from wikimem.errors import ConfigError
from wikimem.fsio import atomic_write_text

STORE = "trusted.json"
SCHEMA = 1

# Settings that run a program or send data (runs, keys, the wiki) somewhere else. A value that
# only keeps a default is harmless: memory.provider = "wiki" is the built-in store.
# (The wiki's remote URL lives in its repository's git config, which only its owner can write:
# see wiki/history/session.py.)
DANGEROUS = (
    "memory.provider",
    "memory.command",
    "model.base_url",
    "model.api_key",
    "wiki.push",
    "wiki.remote",
)
HARMLESS_VALUES = {"memory.provider": "wiki", "wiki.remote": "origin", "wiki.push": "false"}


def is_dangerous(key: str, value: object) -> bool:
    """Whether `key = value` in a workspace file needs the file trusted."""
    if key not in DANGEROUS:
        return False
    harmless = HARMLESS_VALUES.get(key)
    return harmless is None or str(value).strip().lower() != harmless


def store_path(global_dir: Path) -> Path:
    return global_dir / STORE


def read_file(path: Path) -> tuple[bytes, os.stat_result]:
    """A file's bytes and the status of the very file they came from: what is checked is what
    is used, however fast someone swaps the file."""
    with open(path, "rb") as handle:
        return handle.read(), os.fstat(handle.fileno())


def digest(path: Path) -> str:
    return digest_of(read_file(path)[0])


def digest_of(data: bytes) -> str:
    import hashlib  # only when a workspace file holds a dangerous setting

    return hashlib.sha256(data).hexdigest()


def unsafe_owner(path: Path) -> str | None:
    """Why another user could have written `path` (or swap it), or None when only we can."""
    try:
        info = os.stat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    return unsafe_status(info)


def unsafe_status(info: os.stat_result) -> str | None:
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"is owned by another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"is writable by group or others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def read_store(store: Path) -> dict[str, str]:
    """{absolute path: sha256} of trusted files; empty when the store is missing or is not
    ours alone (someone else could have trusted anything in it)."""
    if not store.is_file() or unsafe_owner(store) or unsafe_owner(store.parent):
        return {}
    import json

    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {str(k): str(v) for k, v in files.items() if isinstance(v, str)}


def write_store(store: Path, files: dict[str, str]) -> None:
    import json

    tighten(store.parent)

    text = json.dumps({"schema": SCHEMA, "files": dict(sorted(files.items()))}, indent=2)
    atomic_write_text(store, text + "\n", mode=0o600)


def tighten(folder: Path) -> None:
    """A wikimem home of ours that group or others can write (made under umask 002 by an
    older version) would make the store trust nothing: take their write bits away."""
    folder.mkdir(parents=True, exist_ok=True)
    info = os.stat(folder)
    if info.st_mode & 0o022 and (not hasattr(os, "getuid") or info.st_uid == os.getuid()):
        os.chmod(folder, stat.S_IMODE(info.st_mode) & ~0o022)


def key_of(path: Path) -> str:
    return os.path.abspath(path)


def distrust_reason(
    path: Path, store: Path, content: tuple[bytes, os.stat_result] | None = None
) -> str | None:
    """None when `path` is trusted as it is now (as `content`, read by `read_file`, when
    given); else why not, as the end of a sentence."""
    try:
        data, info = content or read_file(path)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"
    unsafe = unsafe_status(info)
    if unsafe:
        return f"it {unsafe}"
    recorded = read_store(store).get(key_of(path))
    if recorded is None:
        return "it is not trusted"
    if recorded != digest_of(data):
        return "it changed since it was trusted"
    return None


def trust(path: Path, store: Path) -> str:
    """Record `path` as trusted with its current content; its sha256. A file someone else
    could have written is refused: trusting it would trust them."""
    if not path.is_file():
        raise ConfigError(f"{path} does not exist; nothing to trust")
    data, info = read_file(path)
    unsafe = unsafe_status(info)
    if unsafe:
        hint = "`chmod go-w` it if it is yours"
        raise ConfigError(f"{path} {unsafe}; refusing to trust it ({hint})")
    files = read_store(store)
    files[key_of(path)] = sha = digest_of(data)
    write_store(store, files)
    return sha


def untrust(path: Path, store: Path) -> bool:
    """Forget `path`; whether it was trusted."""
    files = read_store(store)
    if files.pop(key_of(path), None) is None:
        return False
    write_store(store, files)
    return True


def listing(store: Path) -> list[tuple[str, str, str]]:
    """(path, sha256, state) of each trusted file: "trusted", "changed", "unsafe" (others
    could write it) or "missing"."""
    rows = []
    for name, sha in read_store(store).items():
        path = Path(name)
        if not path.is_file():
            state = "missing"
        else:
            why = distrust_reason(path, store)
            state = "trusted" if why is None else "changed" if "changed" in why else "unsafe"
        rows.append((name, sha, state))
    return rows


def retrust_after_write(path: Path, store: Path, trusted_before: bool) -> None:
    """After wikimem itself rewrote `path` for the user (`config set`): keep it trusted when
    the user's whole file was trusted before (or wikimem created it)."""
    if trusted_before:
        trust(path, store)
