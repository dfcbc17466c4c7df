"""One open repository, and the only module that imports GitPython.

Invariant: every git command wikimem runs goes through `call` (or `Session.start`, for the two
that run in the background) with an environment pinned to this repository, its index and
literal pathspecs, and with every program the repository's config could start switched off
(`overrides`); a repository another user owns is refused. A failure is a HistoryError carrying
git's own first complaint.
"""

from __future__ import annotations

import configparser
import contextlib
import hashlib
import os
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

import git

from wikimem.errors import HistoryError, NotFound
from wikimem.wiki.history.overrides import ALWAYS, check_owner, overrides

BATCH = 500  # pathspecs per git call: far below any platform's command-line limit
MAX_REF = 1024  # bytes read of HEAD or a ref file: more is no ref git wrote
HEX = frozenset("0123456789abcdef")
MAX_COMMIT = 1 << 20  # bytes of a loose commit object read; a larger one is left to git


def decode(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", "surrogateescape")


def batched(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), BATCH):
        yield items[start : start + BATCH]


def call(
    cmd: git.Git, args: Sequence[str], env: Mapping[str, str], stdin: Path | None = None
) -> tuple[int, bytes, str]:
    """Run one git command through GitPython; return (status, stdout bytes, stderr text)."""
    name, *rest = args
    try:
        with contextlib.ExitStack() as stack:
            istream = stack.enter_context(open(stdin, "rb")) if stdin else None
            status, out, err = getattr(cmd, name.replace("-", "_"))(
                *rest,
                env=dict(env),
                istream=istream,
                with_extended_output=True,
                with_exceptions=False,
                stdout_as_string=False,
                strip_newline_in_stdout=False,
            )
    except git.GitCommandNotFound as exc:
        raise HistoryError("git is not installed or not on PATH") from exc
    return status, out, decode(err)


def one_line(name: str, err: str) -> str:
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    for n, line in enumerate(lines[:-1]):
        if line.endswith(":"):  # "... ignored by one of your .gitignore files:" then the path
            lines[n] = f"{line} {lines[n + 1]}"
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return f"git {name} failed: {(fatal or lines or ['no message'])[0]}"


def split_z(out: str) -> list[str]:
    return [item for item in out.split("\0") if item]


def wiki_path(path: str) -> str:
    """Normalise a wiki-relative path ("" is the wiki itself); refuse anything leaving it."""
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or ".git" in pure.parts:
        raise HistoryError(f"not a wiki path: {path!r}")
    return "" if str(pure) == "." else str(pure)


@dataclass(frozen=True)
class Session:
    """One open repository: where its work tree is and where the wiki sits inside it."""

    repo: git.Repo
    root: Path
    prefix: str  # the wiki's folder relative to `root`, "" when the wiki is the repository

    @property
    def scope(self) -> str:
        return self.prefix or "."

    @property
    def index(self) -> str:
        return os.path.join(self.repo.git_dir, "index")

    def env(
        self, index: str | None = None, extra: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        # Pinned so a GIT_DIR or GIT_INDEX_FILE inherited from a git hook that started wikimem
        # can never point these commands at another repository or index.
        return {
            "GIT_DIR": os.path.abspath(self.repo.git_dir),
            "GIT_WORK_TREE": str(self.root),
            "GIT_INDEX_FILE": index or self.index,
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_LITERAL_PATHSPECS": "1",
            "GIT_TERMINAL_PROMPT": "0",
            **(extra or {}),
        }

    def attempt(
        self,
        *args: str,
        index: str | None = None,
        extra: Mapping[str, str] | None = None,
        stdin: Path | None = None,
    ) -> tuple[int, bytes, str]:
        """Run a command whose failure the caller reads: (status, stdout, stderr)."""
        return call(self.repo.git, args, self.env(index, extra), stdin)

    def probe(
        self, *args: str, index: str | None = None, extra: Mapping[str, str] | None = None
    ) -> bytes | None:
        status, out, _ = self.attempt(*args, index=index, extra=extra)
        return out if status == 0 else None

    def run(
        self,
        *args: str,
        index: str | None = None,
        extra: Mapping[str, str] | None = None,
        stdin: Path | None = None,
    ) -> str:
        return decode(self.run_bytes(*args, index=index, extra=extra, stdin=stdin))

    def run_bytes(
        self,
        *args: str,
        index: str | None = None,
        extra: Mapping[str, str] | None = None,
        stdin: Path | None = None,
    ) -> bytes:
        status, out, err = self.attempt(*args, index=index, extra=extra, stdin=stdin)
        if status != 0:
            raise HistoryError(one_line(args[0], err))
        return out

    def start(
        self, *args: str, extra: Mapping[str, str] | None = None, stdin: IO[bytes] | None = None
    ) -> Any:
        """Start a command in the background; GitPython's AutoInterrupt around the process."""
        name, *rest = args
        try:
            return getattr(self.repo.git, name.replace("-", "_"))(
                *rest, env=self.env(extra=extra), istream=stdin, as_process=True
            )
        except git.GitCommandNotFound as exc:
            raise HistoryError("git is not installed or not on PATH") from exc

    def to_repo(self, path: str) -> str:
        rel = wiki_path(path)
        if not self.prefix:
            return rel or "."
        return f"{self.prefix}/{rel}" if rel else self.prefix

    def from_repo(self, path: str) -> str | None:
        if not self.prefix:
            return path
        return path[len(self.prefix) + 1 :] if path.startswith(self.prefix + "/") else None

    def wiki_paths(self, repo_paths: Sequence[str]) -> list[str]:
        return [p for p in map(self.from_repo, repo_paths) if p is not None]

    def head(self) -> str | None:
        found = self.loose_head()
        if found is not None:
            return found
        out = self.probe("rev-parse", "--verify", "-q", "HEAD^{commit}")
        return decode(out).strip() if out else None

    def loose_head(self) -> str | None:
        """HEAD's commit read from git's own files, without starting git (a pass asks several
        times): when HEAD names a branch whose loose ref names a loose object that is a
        commit. None when git keeps it any other way (packed refs or objects, reftable,
        a detached HEAD, SHA-256, anything unreadable or damaged): then git itself is asked."""
        try:
            with open(os.path.join(self.repo.git_dir, "HEAD"), "rb") as file:
                symbolic = file.read(MAX_REF)
            if not symbolic.startswith(b"ref: refs/heads/") or not symbolic.endswith(b"\n"):
                return None
            parts = symbolic[5:-1].decode("utf-8").split("/")
            if any(part in ("", ".", "..") or part.endswith(".lock") for part in parts):
                return None
            common = self.repo.common_dir
            with open(os.path.join(common, *parts), "rb") as file:
                ref = file.read(MAX_REF)
            sha = ref[:-1].decode("ascii")
            if len(ref) != 41 or ref[-1:] != b"\n" or not all(c in HEX for c in sha):
                return None
            with open(os.path.join(common, "objects", sha[:2], sha[2:]), "rb") as file:
                packed = file.read(MAX_COMMIT)
            data = zlib.decompress(packed)
            kind, _, rest = data.partition(b"\0")
            # whole and a commit, as `rev-parse --verify HEAD^{commit}` checks it
            if (
                kind != b"commit %d" % len(rest)
                or hashlib.sha1(data, usedforsecurity=False).hexdigest() != sha
            ):
                return None
            return sha
        except (OSError, ValueError, zlib.error):
            return None

    def resolve(self, rev: str) -> str:
        out = (
            None
            if not rev or rev.startswith("-")
            else self.probe("rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
        )
        if not out:
            raise NotFound(f"no revision {rev!r} in the wiki's history")
        return decode(out).strip()

    def first_parent(self, sha: str) -> str | None:
        parents = self.run("rev-list", "--parents", "-n", "1", sha).split()[1:]
        return parents[0] if parents else None

    @property
    def no_index(self) -> str:
        """An index path that does not exist (an empty index to git, and one it cannot write):
        for commands comparing two commits, which read the whole index only for attributes
        that names and raw modes never use (at 10,000 files, most of such a command's time)."""
        return os.path.join(os.path.abspath(self.repo.git_dir), "wikimem-no-index", "index")

    def diff_names(self, old: str | None, new: str) -> list[str]:
        """Repo-relative paths under the wiki that differ between two commits or trees."""
        base = [old, new] if old else ["--root", new]
        return split_z(
            self.run(
                "diff-tree",
                "-r",
                "-z",
                "--name-only",
                "--no-renames",
                "--no-commit-id",
                *base,
                "--",
                self.scope,
                index=self.no_index,
            )
        )


@contextlib.contextmanager
def open_session(wiki: Path, workspace: Path, mode: str) -> Iterator[Session]:
    """The wiki's repository (its own in mode "wiki", else the workspace's), opened."""
    try:
        if mode == "wiki":
            repo = git.Repo(wiki)
        else:
            repo = git.Repo(workspace, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        where = wiki if mode == "wiki" else workspace
        raise HistoryError(f"{where} is not a git repository") from exc
    with repo:
        if repo.working_tree_dir is None:
            raise HistoryError(f"{repo.git_dir} is a bare repository")
        harden(repo)
        root = Path(os.path.abspath(repo.working_tree_dir))
        yield Session(repo, root, relative(wiki, root, "the wiki"))


def harden(repo: git.Repo) -> None:
    """Refuse another user's repository; run nothing its config names, and no hook of the
    person's on (or vetoing) wikimem's own git operations."""
    tree = Path(repo.working_tree_dir) if repo.working_tree_dir else None
    check_owner(Path(repo.common_dir), safe=safe_directories, work_tree=tree)
    if repo.git_dir != repo.common_dir:
        check_owner(Path(repo.git_dir), safe=safe_directories, work_tree=tree)
    repo.git.set_persistent_git_options(c=overrides(config_sections(repo)))


def safe_directories() -> list[str]:
    """git's `safe.directory` values from the system and global config (git ignores a
    repository's own), asked only when a repository belongs to another user."""
    status, out, _ = call(
        git.Git(os.sep), ("config", "--show-scope", "-z", "--get-all", "safe.directory"), {}
    )
    if status != 0:
        return []
    items = decode(out).split("\0")
    pairs = zip(items[0::2], items[1::2], strict=False)
    return [value for scope, value in pairs if scope in {"system", "global", "command"}]


def config_sections(repo: git.Repo) -> list[tuple[str, list[str]]]:
    """(section, option names) of the repository's own config, includes followed."""
    try:
        reader = repo.config_reader("repository")
        return [(section, list(reader.options(section))) for section in reader.sections()]
    except (configparser.Error, OSError, ValueError):
        # a file GitPython cannot parse: ask git itself, which starts nothing to list it
        cmd = git.Git(repo.working_tree_dir or repo.git_dir)
        env = {"GIT_DIR": str(repo.common_dir)}
        status, out, err = call(cmd, ("config", "--local", "--includes", "-z", "--list"), env)
        if status != 0:
            raise HistoryError(one_line("config", err)) from None
        found: list[tuple[str, list[str]]] = []
        for item in decode(out).split("\0"):
            key = item.split("\n", 1)[0]
            section, _, name = key.rpartition(".")
            head, _, sub = section.partition(".")
            found.append((f'{head} "{sub}"' if sub else head, [name]))
        return found


def relative(path: Path, root: Path, what: str) -> str:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    if rel == ".." or rel.startswith(".." + os.sep):
        raise HistoryError(f"{what} at {path} is outside the repository at {root}")
    return "" if rel == "." else rel.replace(os.sep, "/")


def init_repo(wiki: Path) -> None:
    """Create the wiki's own repository, on branch main."""
    wiki.mkdir(parents=True, exist_ok=True)
    check_owner(wiki, ())  # another user's folder: they could swap in a .git of theirs
    env = {"GIT_DIR": str(wiki / ".git"), "GIT_WORK_TREE": str(wiki)}
    cmd = git.Git(str(wiki))
    cmd.set_persistent_git_options(c=list(ALWAYS))
    for args in (("init", "--quiet"), ("symbolic-ref", "HEAD", "refs/heads/main")):
        status, _, err = call(cmd, args, env)
        if status != 0:
            raise HistoryError(one_line(args[0], err))


def exclude_file(workspace: Path) -> tuple[Path, Path] | None:
    """(work tree root, info/exclude path) of the repository holding `workspace`; None when
    there is none, or it is bare."""
    try:
        repo = git.Repo(workspace, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    with repo:
        if repo.working_tree_dir is None:
            return None
        try:
            check_owner(Path(repo.common_dir))
        except HistoryError:
            return None  # another user's repository: not ours to write
        repo.git.set_persistent_git_options(c=list(ALWAYS))
        root = Path(os.path.abspath(repo.working_tree_dir))
        session = Session(repo, root, "")
        return root, root / session.run("rev-parse", "--git-path", "info/exclude").strip()


def changed_since(workspace: Path, base: str) -> list[str]:
    """Workspace-relative paths `git diff BASE...HEAD` lists in the repository holding the
    workspace (what a pull request changed, counted from where it left BASE); renames count as
    the old path and the new one."""
    try:
        repo = git.Repo(workspace, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise HistoryError(f"{workspace} is not a git repository") from exc
    with repo:
        if repo.working_tree_dir is None:
            raise HistoryError(f"{repo.git_dir} is a bare repository")
        root = Path(os.path.abspath(repo.working_tree_dir))
        prefix = relative(workspace, root, "the workspace")
        env = {
            "GIT_DIR": os.path.abspath(repo.git_dir),
            "GIT_WORK_TREE": str(root),
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_TERMINAL_PROMPT": "0",
        }
        args = ("diff", "--name-only", "-z", "--no-renames", f"{base}...HEAD", "--")
        status, out, err = call(repo.git, (*args, prefix or "."), env)
        if status != 0:
            raise HistoryError(one_line("diff", err))
    lead = f"{prefix}/" if prefix else ""
    return [p.removeprefix(lead) for p in split_z(decode(out)) if p.startswith(lead)]
