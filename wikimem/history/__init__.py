"""The wiki's git history: the only module that imports GitPython.

Invariant: every change wikimem makes is exactly one commit on the current branch of the wiki's
repository (the wiki's own, or the enclosing workspace's). Commits are built in a private index
with plumbing, so a person's staged changes, current branch and hooks are never involved; a
person's uncommitted edits are committed on their own first, never folded in and never lost.
Paths given and returned are wiki-relative with forward slashes, in both modes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import git

from ..errors import HistoryError, NotFound
from ..fsio import atomic_write_text, checkpoint, read_text


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


WIKIMEM = Identity("wikimem", "wikimem@localhost")
EDITOR = Identity("wiki editor", "editor@localhost")  # a person with no git identity configured
PERSON_EDIT_MESSAGE = "Edit the wiki by hand"
MODES = ("wiki", "workspace")

# The empty tree under SHA-1 and SHA-256: an unborn branch with this tree has nothing to commit.
EMPTY_TREES = frozenset({
    "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
})
BATCH = 500  # pathspecs per git call: far below any platform's command-line limit
FILE_MODE = b"100644"
TREE_MODE = b"40000"
EXCLUDE_HEADER = "# wikimem: its wiki repository and state stay out of this repository"
LOG_FIELDS = ("%H", "%h", "%aI", "%an", "%ae", "%s", "%b", "%(trailers:only,unfold)")
LOG_FORMAT = "%x1e" + "".join(f"{field}%x1f" for field in LOG_FIELDS)
SCRATCH = "wikimem-sync"  # prefix of the throwaway branches `scratch` makes
# What git says when a push lost a race with another push: fetch, rebuild, try again.
PUSH_RACES = ("[rejected]", "non-fast-forward", "fetch first", "cannot lock ref",
              "failed to lock", "incorrect old value", "stale info")


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


def decode(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", "surrogateescape")


def batched(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), BATCH):
        yield items[start:start + BATCH]


def call(cmd: git.Git, args: Sequence[str], env: Mapping[str, str],
         stdin: Path | None = None) -> tuple[int, bytes, str]:
    """Run one git command through GitPython; return (status, stdout bytes, stderr text)."""
    name, *rest = args
    try:
        with contextlib.ExitStack() as stack:
            istream = stack.enter_context(open(stdin, "rb")) if stdin else None
            status, out, err = getattr(cmd, name.replace("-", "_"))(
                *rest, env=dict(env), istream=istream, with_extended_output=True,
                with_exceptions=False, stdout_as_string=False, strip_newline_in_stdout=False)
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


def parse_tree(data: bytes, width: int) -> dict[bytes, tuple[bytes, bytes]]:
    """A raw tree object's entries: name -> (mode, binary object id)."""
    entries = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        entries[data[space + 1:nul]] = (data[at:space], data[nul + 1:nul + 1 + width])
        at = nul + 1 + width
    return entries


def tree_body(entries: Mapping[bytes, tuple[bytes, bytes]]) -> bytes:
    """A raw tree object's content, entries in git's order (a folder sorts as "name/")."""
    def key(name: bytes) -> bytes:
        return name + b"/" if entries[name][0] == TREE_MODE else name

    return b"".join(entries[name][0] + b" " + name + b"\0" + entries[name][1]
                    for name in sorted(entries, key=key))


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

    def env(self, index: str | None = None,
            extra: Mapping[str, str] | None = None) -> dict[str, str]:
        # Pinned so a GIT_DIR or GIT_INDEX_FILE inherited from a git hook that started wikimem
        # can never point these commands at another repository or index.
        return {"GIT_DIR": os.path.abspath(self.repo.git_dir), "GIT_WORK_TREE": str(self.root),
                "GIT_INDEX_FILE": index or self.index, "GIT_OPTIONAL_LOCKS": "0",
                "GIT_LITERAL_PATHSPECS": "1", "GIT_TERMINAL_PROMPT": "0", **(extra or {})}

    def probe(self, *args: str, index: str | None = None,
              extra: Mapping[str, str] | None = None) -> bytes | None:
        status, out, _ = call(self.repo.git, args, self.env(index, extra))
        return out if status == 0 else None

    def run(self, *args: str, index: str | None = None, extra: Mapping[str, str] | None = None,
            stdin: Path | None = None) -> str:
        return decode(self.run_bytes(*args, index=index, extra=extra, stdin=stdin))

    def run_bytes(self, *args: str, index: str | None = None,
                  extra: Mapping[str, str] | None = None, stdin: Path | None = None) -> bytes:
        status, out, err = call(self.repo.git, args, self.env(index, extra), stdin)
        if status != 0:
            raise HistoryError(one_line(args[0], err))
        return out

    def to_repo(self, path: str) -> str:
        rel = wiki_path(path)
        if not self.prefix:
            return rel or "."
        return f"{self.prefix}/{rel}" if rel else self.prefix

    def from_repo(self, path: str) -> str | None:
        if not self.prefix:
            return path
        return path[len(self.prefix) + 1:] if path.startswith(self.prefix + "/") else None

    def wiki_paths(self, repo_paths: Sequence[str]) -> list[str]:
        return [p for p in map(self.from_repo, repo_paths) if p is not None]

    def head(self) -> str | None:
        out = self.probe("rev-parse", "--verify", "-q", "HEAD^{commit}")
        return decode(out).strip() if out else None

    def resolve(self, rev: str) -> str:
        out = None if not rev or rev.startswith("-") else self.probe(
            "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
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
        return split_z(self.run("diff-tree", "-r", "-z", "--name-only", "--no-renames",
                                "--no-commit-id", *base, "--", self.scope,
                                index=self.no_index))


class PersonEdits:
    """A person's uncommitted edits of the wiki, looked for by a `git status` started at once
    and left running in the background; `commit()` waits for it and commits what it found as
    the person's, on its own, before wikimem writes.

    A pass starts the look before it reads the wiki and commits the result before it writes
    anything, so the status sees the same wiki as when it ran in the foreground (reading
    changes no file); the pass just does not wait for it while it reads. Edits made after the
    status looked are left for the next look, as they always were.

    `paths` limits the look to these wiki paths (a pass's own files, looked at again right
    before it writes them): a status with pathspecs, which checks just those files.
    """

    def __init__(self, repo: WikiRepo, paths: Sequence[str] | None = None) -> None:
        self.repo = repo
        self.prefix = ""
        self.process: Any = None  # GitPython's AutoInterrupt around the running status
        self.found: list[str] | None = None
        self.committed = False
        wanted = None if paths is None else {wiki_path(p) for p in paths}
        if wanted is not None and not wanted:
            self.found = []  # no pathspec would mean the whole wiki
            return
        if not repo.has_repo():
            found = repo.files_on_disk(repo.wiki)
            self.found = found if wanted is None else [
                p for p in found if p in wanted or any(p.startswith(f"{w}/") for w in wanted)]
            return
        with repo.session() as s:
            args, extra = WikiRepo.status_command(s, own=repo.mode == "wiki", paths=wanted)
            self.prefix = s.prefix
            name, *rest = args
            try:
                self.process = getattr(s.repo.git, name)(*rest, env=s.env(extra=extra),
                                                         as_process=True)
            except git.GitCommandNotFound as exc:
                raise HistoryError("git is not installed or not on PATH") from exc

    def __enter__(self) -> PersonEdits:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop a look whose result is no longer wanted (the pass failed before committing)."""
        process, self.process = self.process, None
        if process is not None and process.proc is not None:
            proc = process.proc
            if proc.poll() is None:
                proc.kill()
            proc.communicate()

    def paths(self) -> list[str]:
        """Wiki paths with uncommitted changes (staged or not, untracked), ignored files aside;
        waits for the status."""
        if self.found is None:
            process, self.process = self.process, None
            out, err = process.proc.communicate()
            if process.proc.returncode != 0:
                raise HistoryError(one_line("status", decode(err)))
            self.found = WikiRepo.status_result(self.prefix, out)
        return self.found

    def commit(self, message: str = PERSON_EDIT_MESSAGE) -> str | None:
        """Commit what the look found, as the person; None when it found nothing to commit.
        Once only: a second call commits nothing."""
        dirty = self.paths()
        if not dirty or self.committed:
            return None
        self.committed = True
        repo = self.repo
        repo.ensure()
        sha = repo.commit(message, paths=dirty, author=repo.person())
        if sha is None and repo.mode == "wiki" and repo.head() is not None:
            # Dirty with nothing to commit: the files already match HEAD and only the index
            # lags (a pass killed between moving the branch and syncing the index).
            with repo.session() as s:
                s.run("reset", "-q", "HEAD", "--", *[s.to_repo(p) for p in dirty])
        return sha


class IndexUpdate:
    """The wiki's own index taking a by-hand commit's plain files (present or deleted) from the
    work tree, stat data included, in one `update-index` started while the commit is written.

    The index then matches the new commit, since its tree was hashed from the same files at
    the same moment. Should a person edit one in that moment, the index holds their version,
    staged, and the next pass commits it as theirs: nothing is lost or folded into wikimem's
    commit. Only for the wiki's own repository: a person's index in workspace mode gets exactly
    the committed entries (`WikiRepo.sync_index`), after the commit.
    """

    def __init__(self, s: Session, paths: Sequence[str], scratch: Path) -> None:
        self.paths = sorted({s.to_repo(p) for p in paths})
        self.scope = s.scope
        scratch.write_bytes("".join(f"{p}\0" for p in self.paths)
                            .encode("utf-8", "surrogateescape"))
        self.stdin = open(scratch, "rb")  # noqa: SIM115 (closed by wait)
        try:
            self.process: Any = s.repo.git.update_index(
                "--add", "--remove", "-z", "--stdin", env=s.env(), istream=self.stdin,
                as_process=True)
        except git.GitCommandNotFound as exc:
            self.stdin.close()
            raise HistoryError("git is not installed or not on PATH") from exc

    def wait(self) -> str | None:
        """Wait for the update; git's complaint when it failed."""
        try:
            _, err = self.process.proc.communicate()
            status = self.process.proc.returncode
        finally:
            self.stdin.close()
        return None if status == 0 else one_line("update-index", decode(err))

    def finish(self, new: str | None) -> None:
        """Wait for the update of the commit `new` (None: nothing was committed, and the files
        the index took equal HEAD's)."""
        error = self.wait()
        if error and new:
            raise HistoryError(f"committed {new[:12]} but could not update the index for the "
                               f"wiki's files ({error}); run `git reset -q -- {self.scope}`")

    def undo(self, s: Session) -> None:
        """The commit failed after the index took its files: give the index HEAD's back."""
        self.wait()
        for chunk in batched(self.paths):
            s.probe("reset", "-q", "HEAD", "--", *chunk)


class WikiRepo:
    """The wiki's repository: its own (mode "wiki") or the enclosing workspace's ("workspace")."""

    def __init__(self, wiki: Path, workspace: Path, mode: str = "wiki",
                 state: Path | None = None) -> None:
        if mode not in MODES:
            raise HistoryError(f"wiki.commit_into must be 'wiki' or 'workspace', not {mode!r}")
        self.wiki = Path(os.path.abspath(wiki))
        self.workspace = Path(os.path.abspath(workspace))
        self.mode = mode
        self.state = Path(os.path.abspath(state)) if state else self.wiki.parent / "state"

    # -- opening -------------------------------------------------------------------------------

    def has_repo(self) -> bool:
        """Own mode: whether the wiki's repository exists yet (workspace mode: always asked)."""
        return self.mode == "workspace" or (self.wiki / ".git").exists()

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        try:
            if self.mode == "wiki":
                repo = git.Repo(self.wiki)
            else:
                repo = git.Repo(self.workspace, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
            where = self.wiki if self.mode == "wiki" else self.workspace
            raise HistoryError(f"{where} is not a git repository") from exc
        with repo:
            if repo.working_tree_dir is None:
                raise HistoryError(f"{repo.git_dir} is a bare repository")
            # No hook of the person's may run on (or veto) wikimem's own git operations.
            repo.git.set_persistent_git_options(c=f"core.hooksPath={os.devnull}")
            root = Path(os.path.abspath(repo.working_tree_dir))
            yield Session(repo, root, self.relative(self.wiki, root, "the wiki"))

    @staticmethod
    def relative(path: Path, root: Path, what: str) -> str:
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
        if rel == ".." or rel.startswith(".." + os.sep):
            raise HistoryError(f"{what} at {path} is outside the repository at {root}")
        return "" if rel == "." else rel.replace(os.sep, "/")

    def ensure(self) -> None:
        """Make the wiki's repository usable and keep the wiki out of the workspace's status."""
        if self.mode == "wiki":
            if not self.has_repo():
                self.init()
            self.exclude()
            return
        if (self.wiki / ".git").exists():
            raise HistoryError(f"the wiki at {self.wiki} has its own repository; remove its "
                               ".git or set wiki.commit_into = \"wiki\"")
        with self.session() as s:  # fails first when the workspace is not a repository
            self.exclude()
            # Any file inside the wiki will do: ignored, it could never be committed here.
            if s.probe("check-ignore", "-q", "--", s.to_repo("PROFILE.md"),
                       extra={"GIT_LITERAL_PATHSPECS": "0"}) is not None:  # takes no magic
                raise HistoryError(f"the workspace ignores {s.prefix}/, so wiki.commit_into ="
                                   f" \"workspace\" cannot commit it; un-ignore it (for"
                                   f" example `!/{s.prefix}/` in .gitignore) or use \"wiki\"")

    def init(self) -> None:
        self.wiki.mkdir(parents=True, exist_ok=True)
        env = {"GIT_DIR": str(self.wiki / ".git"), "GIT_WORK_TREE": str(self.wiki)}
        cmd = git.Git(str(self.wiki))
        for args in (("init", "--quiet"), ("symbolic-ref", "HEAD", "refs/heads/main")):
            status, _, err = call(cmd, args, env)
            if status != 0:
                raise HistoryError(one_line(args[0], err))

    def exclude(self, files: Sequence[Path] = ()) -> None:
        """Add the wiki (own mode), the state folder and `files` wikimem created (the sample
        policy) to the workspace's info/exclude, once."""
        try:
            repo = git.Repo(self.workspace, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            return
        with repo:
            if repo.working_tree_dir is None:
                return
            root = Path(os.path.abspath(repo.working_tree_dir))
            session = Session(repo, root, "")
            target = root / session.run("rev-parse", "--git-path", "info/exclude").strip()
        pattern = {folder: f"/{self.relative(folder, root, 'folder')}/"
                   for folder in (self.wiki, self.state) if folder.is_relative_to(self.workspace)}
        # Workspace mode commits the wiki into this repository, so it must not stay ignored
        # (as it was in own mode) after a switch.
        keep_out = [self.state] if self.mode == "workspace" else [self.wiki, self.state]
        wanted = [pattern[folder] for folder in keep_out if folder in pattern]
        wanted += [f"/{self.relative(f, root, 'file')}" for f in files
                   if f.is_relative_to(self.workspace)]
        unwanted = set(pattern.values()) - set(wanted)
        text = read_text(target) if target.is_file() else ""
        lines = text.splitlines()
        kept = [line for line in lines if line.strip() not in unwanted]
        missing = [pattern for pattern in wanted if pattern not in {x.strip() for x in kept}]
        if not missing and kept == lines:
            return
        if missing and EXCLUDE_HEADER not in kept:
            kept.append(EXCLUDE_HEADER)
        atomic_write_text(target, "\n".join([*kept, *missing]) + "\n")

    # -- reading -------------------------------------------------------------------------------

    def head(self) -> str | None:
        if not self.has_repo():
            return None
        with self.session() as s:
            return s.head()

    @contextlib.contextmanager
    def history(self, rev: str) -> Iterator[Session]:
        """A session for reading revision `rev`; NotFound while the wiki has no repository."""
        if not self.has_repo():
            raise NotFound(f"no revision {rev!r}: the wiki has no history yet")
        with self.session() as s:
            yield s

    def resolve(self, rev: str) -> str:
        with self.history(rev) as s:
            return s.resolve(rev)

    def changes_since(self, old: str | None) -> tuple[str | None, list[str] | None]:
        """(HEAD, wiki paths that differ between `old` and HEAD); the paths are None when `old`
        is None or not a commit of this repository (any more)."""
        if not self.has_repo():
            return None, None
        with self.session() as s:
            head = s.head()
            if head is None or old is None:
                return head, None
            if old == head:
                return head, []
            try:
                return head, s.wiki_paths(s.diff_names(old, head))
            except HistoryError:
                return head, None

    def dirty_paths(self) -> list[str]:
        """Wiki paths with uncommitted changes (staged or not, untracked), ignored files aside."""
        if not self.has_repo():
            return self.files_on_disk(self.wiki)
        with self.session() as s:
            return self.status_paths(s, own=self.mode == "wiki")

    @staticmethod
    def status_paths(s: Session, own: bool = False) -> list[str]:
        args, extra = WikiRepo.status_command(s, own)
        return WikiRepo.status_result(s.prefix, s.run(*args, extra=extra))

    @staticmethod
    def status_command(s: Session, own: bool = False, paths: Collection[str] | None = None
                       ) -> tuple[list[str], dict[str, str]]:
        """The `git status` listing the wiki's uncommitted paths (or those among `paths`), and
        its extra environment."""
        # In the wiki's own repository, status may write back what it learnt: refreshed stat
        # data (otherwise, once the index's stat data is stale, as after a copy or a restore,
        # every status re-hashes every file) and the untracked cache (no re-listing of folders
        # that did not change). The lock is optional: when someone holds it, status just does
        # not write. git consults that cache only for a whole-tree status (no pathspec) whose
        # untracked mode is the configured one, hence the second setting and no "--" here.
        # A person's repository (workspace mode) is left alone.
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]
        if paths and len(paths) <= BATCH:
            # Literal pathspecs (Session.env): git stats just these files and lists untracked
            # ones only in their folders, however large the wiki.
            return [*args, "--", *sorted(s.to_repo(p) for p in paths)], {}
        if own and not s.prefix:
            return args, {"GIT_OPTIONAL_LOCKS": "1", "GIT_CONFIG_COUNT": "2",
                          "GIT_CONFIG_KEY_0": "core.untrackedCache",
                          "GIT_CONFIG_VALUE_0": "true",
                          "GIT_CONFIG_KEY_1": "status.showUntrackedFiles",
                          "GIT_CONFIG_VALUE_1": "all"}
        return [*args, "--", s.scope], {}

    @staticmethod
    def status_result(prefix: str, out: bytes | str) -> list[str]:
        repo_paths = [entry[3:] for entry in split_z(decode(out))]
        if prefix:
            repo_paths = [p[len(prefix) + 1:] for p in repo_paths if p.startswith(prefix + "/")]
        return sorted(repo_paths)

    def files_on_disk(self, folder: Path) -> list[str]:
        found = []
        for top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != ".git"]
            found += [Path(top, name).relative_to(self.wiki).as_posix() for name in files]
        return sorted(found)

    def person(self) -> Identity:
        """The identity git would use for the person, as configured for this repository."""
        if not self.has_repo():
            return EDITOR
        with self.session() as s:
            name, email = (s.probe("config", "--get", key) for key in ("user.name", "user.email"))
        return Identity(decode(name).strip() if name else EDITOR.name,
                        decode(email).strip() if email else EDITOR.email)

    def log(self, path: str | None = None, limit: int = 50,
            with_paths: bool = False) -> list[Commit]:
        """Commits touching the wiki (or `path` within it), newest first."""
        if not self.has_repo():
            return []
        with self.session() as s:
            if s.head() is None:
                return []
            args = ["log", "-z", f"--max-count={limit}", f"--format={LOG_FORMAT}"]
            if with_paths:
                args += ["--name-only", "--no-renames", "--full-diff"]
            out = s.run(*args, "--", s.to_repo(path) if path else s.scope)
            return [self.parse_commit(s, chunk) for chunk in out.split("\x1e") if chunk]

    @staticmethod
    def parse_commit(s: Session, chunk: str) -> Commit:
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

    def show(self, rev: str, path: str) -> str:
        """A wiki file's content at a revision, byte for byte (no newline translation)."""
        with self.history(rev) as s:
            sha = s.resolve(rev)
            out = s.probe("cat-file", "blob", f"{sha}:{s.to_repo(path)}")
        if out is None:
            raise NotFound(f"{path} does not exist at {rev}")
        return decode(out)

    def changed_paths(self, rev: str) -> list[str]:
        """Wiki paths one commit changed (against its first parent)."""
        with self.history(rev) as s:
            sha = s.resolve(rev)
            return s.wiki_paths(s.diff_names(s.first_parent(sha), sha))

    # -- writing -------------------------------------------------------------------------------

    def commit_person_edits(self, message: str = PERSON_EDIT_MESSAGE,
                            paths: Sequence[str] | None = None) -> str | None:
        """Commit what a person left uncommitted in the wiki (or in just these wiki paths), as
        theirs, before wikimem writes."""
        with self.person_edits(paths) as edits:
            return edits.commit(message)

    def person_edits(self, paths: Sequence[str] | None = None) -> PersonEdits:
        """Start looking for a person's uncommitted edits (of the whole wiki, or of `paths`);
        `commit()` the result before writing. The look (`git status`) runs in the background
        meanwhile: see `PersonEdits`."""
        return PersonEdits(self, paths)

    def commit(self, message: str, paths: Sequence[str] | None = None,
               author: Identity = WIKIMEM, committer: Identity = WIKIMEM) -> str | None:
        """Commit the given wiki paths (or the whole wiki) as one commit; None if nothing changed.

        The commit is built with plumbing (read-tree, add, write-tree, commit-tree, update-ref)
        in a private index rather than `git commit`: no commit hook runs, because a person's
        pre-commit hook must neither block memory nor judge memory the person did not write, and
        the person's staged changes never leak into (or out of) wikimem's commit.
        """
        if not message.strip():
            raise HistoryError("refusing to commit with an empty message")
        if not self.has_repo():
            self.ensure()
        with self.session() as s, tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
            branch = s.probe("symbolic-ref", "-q", "HEAD")
            if not branch:
                raise HistoryError(f"HEAD of {s.root} is detached; wikimem commits only onto a "
                                   "branch (finish the rebase or check out a branch)")
            # One process for the parent commit and its tree (none on an unborn branch).
            found = decode(s.probe("log", "-1", "--format=%H %T", "HEAD") or b"").split()
            old, old_tree = (found[0], found[1]) if len(found) == 2 else (None, None)
            # The person's index holds stat data, so asking status what changed is far cheaper
            # than re-hashing every file of the wiki into the fresh private index.
            todo = self.status_paths(s) if paths is None else paths
            if not todo:
                return None
            # A few paths on top of a parent: build only the trees above them, because reading
            # a whole large wiki into a private index costs more than all the rest of a commit.
            # Then, in the wiki's own repository, the index takes the same files meanwhile.
            update: IndexUpdate | None = None

            def start_update() -> None:
                nonlocal update
                if self.mode == "wiki":
                    update = IndexUpdate(s, todo, Path(tmp, "index-paths"))

            new: str | None = None
            try:
                tree = (self.tree_by_hand(s, old_tree, todo, Path(tmp), start_update)
                        if old_tree and len(todo) <= BATCH else None)
                if tree is None:
                    index = os.path.join(tmp, "index")
                    s.run("read-tree", *([old] if old else ["--empty"]), index=index)
                    if paths is None and len(todo) > BATCH:
                        # Matching thousands of pathspecs costs more than hashing the whole wiki.
                        s.run("add", "-A", "--", s.scope, index=index)
                    else:
                        self.stage(s, todo, index)
                    tree = s.run("write-tree", index=index).strip()
                if not (old and tree == old_tree) and not (not old and tree in EMPTY_TREES):
                    new = self.write_commit(s, message, tree, old, decode(branch).strip(),
                                            author, committer, Path(tmp, "message"))
            except BaseException:
                if update is not None:
                    update.undo(s)
                raise
            if update is not None:
                update.finish(new)
            elif new is not None:
                # by hand in a person's repository, or through a private index: exactly the
                # committed entries, so nothing a person staged is touched
                self.sync_index(s, old, new, Path(tmp, "index-info"))
            return new

    @staticmethod
    def write_commit(s: Session, message: str, tree: str, old: str | None, branch: str,
                     author: Identity, committer: Identity, message_file: Path) -> str:
        """Write the commit object and move the branch to it; the commit's id."""
        message_file.write_bytes(message.encode("utf-8", "surrogateescape")
                                 + (b"" if message.endswith("\n") else b"\n"))
        identity = {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email,
                    "GIT_COMMITTER_NAME": committer.name, "GIT_COMMITTER_EMAIL": committer.email}
        checkpoint("before commit-tree")
        # Never signed: a background pass cannot answer a passphrase prompt.
        new = s.run("commit-tree", "--no-gpg-sign", tree, *(["-p", old] if old else []),
                    "-F", str(message_file), extra=identity).strip()
        subject = message.strip().splitlines()[0]
        checkpoint("before update-ref")
        # The old value guards against a commit made meanwhile by someone else.
        s.run("update-ref", "-m", f"wikimem: {subject}", branch, new, old or "")
        return new

    @staticmethod
    def tree_by_hand(s: Session, old_tree: str, paths: Sequence[str], tmp: Path,
                     sure: Callable[[], None] = lambda: None) -> str | None:
        """The tree `old_tree` with these paths as they are in the work tree, written without an
        index: new blobs, then new trees for just the folders above them, bottom up.

        The result is the tree `git add -A -- paths` would give. None when a path needs git's
        general handling (a folder, a symlink, an executable or ignored new file, a file
        where a folder must be, ...): the caller then builds the tree in a private index.
        Every path it accepts is a plain file, present or deleted, so `IndexUpdate` can
        bring an index up to date with the result; `sure` is called once nothing can make it
        return None any more, before the files are hashed.
        """
        wanted = sorted({s.to_repo(p) for p in paths})
        on_disk: dict[str, bool] = {}
        folders = {""}
        for path in wanted:
            if path == "." or "\n" in path:
                return None
            try:
                mode = os.lstat(s.root / path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                on_disk[path] = False
            else:
                if not stat.S_ISREG(mode) or mode & 0o111:
                    return None
                on_disk[path] = True
            parts = path.split("/")
            folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
        if any(not on_disk[f] for f in folders if f in on_disk):
            return None  # a vanished folder and paths inside it: git's rules, not these
        order = sorted(folders)
        query = Path(tmp, "trees")
        query.write_bytes("".join(f"{old_tree}:{f}\n" if f else f"{old_tree}\n"
                                  for f in order).encode("utf-8", "surrogateescape"))
        out = s.run_bytes("cat-file", "--batch", stdin=query)
        width = len(old_tree) // 2  # bytes of one object id: SHA-1 or SHA-256
        trees: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
        at = 0
        for folder in order:
            end = out.index(b"\n", at)
            header = out[at:end].split(b" ")
            at = end + 1
            if header[-1] == b"missing":
                trees[folder] = {}
                continue
            if header[1] != b"tree":
                return None  # a file, or a link, stands where the folder must be
            size = int(header[2])
            trees[folder] = parse_tree(out[at:at + size], width)
            at += size + 1
        present = [p for p in wanted if on_disk[p]]
        new = []
        for path in wanted:
            folder, _, name = path.rpartition("/")
            entry = trees[folder].get(name.encode("utf-8", "surrogateescape"))
            if entry is None:
                new += [path] if on_disk[path] else []
            elif entry[0] != FILE_MODE:
                # an executable, a link, a submodule, or a whole folder replaced or deleted
                return None
        if new:
            listing = Path(tmp, "new")
            listing.write_bytes("".join(f"{p}\0" for p in new).encode("utf-8", "surrogateescape"))
            status, _, _ = call(s.repo.git, ("check-ignore", "-q", "-z", "--stdin"),
                                s.env(extra={"GIT_LITERAL_PATHSPECS": "0"}), listing)
            if status != 1:  # something is ignored (git add refuses it), or git failed
                return None
        sure()
        if present:
            listing = Path(tmp, "blobs")
            listing.write_bytes("".join(f"{p}\n" for p in present)
                                .encode("utf-8", "surrogateescape"))
            blobs = s.run("hash-object", "-w", "--stdin-paths", stdin=listing).split()
            if len(blobs) != len(present):
                raise HistoryError("git hash-object failed: it hashed "
                                   f"{len(blobs)} of {len(present)} files")
            for path, blob in zip(present, blobs, strict=True):
                folder, _, name = path.rpartition("/")
                trees[folder][name.encode("utf-8", "surrogateescape")] = (
                    FILE_MODE, bytes.fromhex(blob))
        for path in wanted:
            if not on_disk[path]:  # a deleted file, or nothing at all
                folder, _, name = path.rpartition("/")
                trees[folder].pop(name.encode("utf-8", "surrogateescape"), None)
        algorithm = "sha1" if width == 20 else "sha256"
        built: list[tuple[str, Path]] = []
        root = ""
        for folder in sorted(order, key=lambda f: f.count("/") + bool(f), reverse=True):
            entries = trees[folder]
            parent, _, name = folder.rpartition("/")
            if folder and not entries:  # git keeps no empty folders
                trees[parent].pop(name.encode("utf-8", "surrogateescape"), None)
                continue
            body = tree_body(entries)
            sha = hashlib.new(algorithm, b"tree %d\0" % len(body) + body).hexdigest()
            file = Path(tmp, f"tree-{len(built)}")
            file.write_bytes(body)
            built.append((sha, file))
            if folder:
                trees[parent][name.encode("utf-8", "surrogateescape")] = (
                    TREE_MODE, bytes.fromhex(sha))
            else:
                root = sha
        listing = Path(tmp, "tree-files")
        listing.write_bytes("".join(f"{file}\n" for _, file in built).encode(
            "utf-8", "surrogateescape"))
        # hash-object checks each tree's format as it writes it; the ids must be ours
        written = s.run("hash-object", "-w", "-t", "tree", "--stdin-paths",
                        stdin=listing).split()
        if written != [sha for sha, _ in built]:
            raise HistoryError("git hash-object wrote trees other than the ones built")
        return root

    @staticmethod
    def stage(s: Session, paths: Sequence[str], index: str) -> None:
        wanted = sorted({s.to_repo(p) for p in paths})
        present = [p for p in wanted if os.path.lexists(s.root / p)]
        gone = [p for p in wanted if not os.path.lexists(s.root / p)]
        # `git add` rejects a pathspec matching nothing: keep a vanished path only if it was
        # tracked (its deletion is the change), drop it if it never existed.
        tracked: set[str] = set()
        for chunk in batched(gone):
            tracked.update(split_z(s.run("ls-files", "-z", "--", *chunk, index=index)))
        present += [p for p in gone if p in tracked or any(t.startswith(p + "/") for t in tracked)]
        for chunk in batched(present):
            s.run("add", "-A", "--", *chunk, index=index)

    @staticmethod
    def sync_index(s: Session, old: str | None, new: str, scratch: Path) -> None:
        """Make the person's index agree with the new commit for exactly the paths it changed."""
        base = [old, new] if old else ["--root", new]
        raw = split_z(s.run("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", *base,
                            "--", s.scope, index=s.no_index))
        # Raw diff records alternate ":oldmode newmode oldsha newsha status" and the path; the
        # new side is exactly an index-info line (mode 0 removes the entry). One linear call
        # instead of pathspec matching, which is quadratic on a large first commit.
        entries = []
        present = []
        for meta, path in zip(raw[::2], raw[1::2], strict=True):
            _, mode, _, sha, _ = meta.lstrip(":").split(" ")
            entries.append(f"{mode} {sha}\t{path}\0")
            if mode.strip("0"):
                present.append(path)
        scratch.write_bytes("".join(entries).encode("utf-8", "surrogateescape"))
        try:
            s.run("update-index", "-z", "--index-info", stdin=scratch)
            # index-info entries carry no stat data; without a refresh every later status would
            # re-hash them. Only these paths: refreshing the whole index stats every file of a
            # large wiki. A failure only means a file differs again, which is not ours to fix.
            for chunk in batched(present):
                s.probe("add", "--refresh", "--", *chunk)
        except HistoryError as exc:
            raise HistoryError(f"committed {new[:12]} but could not update the index for the "
                               f"wiki's files ({exc}); run `git reset -q -- {s.scope}`") from exc

    def restore(self, paths: Sequence[str]) -> None:
        """Put these wiki paths back as they are in HEAD: roll back a failed or crashed pass."""
        wanted = sorted({wiki_path(p) for p in paths})
        tracked: set[str] = set()
        if wanted and self.has_repo():
            with self.session() as s:
                if s.head():
                    for chunk in batched([s.to_repo(p) for p in wanted]):
                        tracked.update(s.wiki_paths(split_z(s.run(
                            "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *chunk))))
        for path in wanted:
            self.remove_untracked(path, tracked)
        if tracked:
            with self.session() as s:
                for chunk in batched([s.to_repo(p) for p in sorted(tracked)]):
                    s.run("restore", "--source=HEAD", "--worktree", "--", *chunk)

    def remove_untracked(self, path: str, tracked: set[str]) -> None:
        target = self.wiki / path if path else self.wiki
        if target.is_dir() and not target.is_symlink():
            for rel in self.files_on_disk(target):
                if rel not in tracked:
                    (self.wiki / rel).unlink()
            for top, _, _ in os.walk(target, topdown=False):
                if Path(top) != self.wiki and ".git" not in Path(top).relative_to(self.wiki).parts:
                    with contextlib.suppress(OSError):
                        os.rmdir(top)  # only succeeds on an empty folder
        elif os.path.lexists(target) and path not in tracked:
            target.unlink()
        self.prune_parents(target)

    def prune_parents(self, target: Path) -> None:
        """Remove folders left empty above `target`, up to but excluding the wiki itself."""
        for parent in target.parents:
            if parent == self.wiki or not parent.is_relative_to(self.wiki):
                return
            try:
                os.rmdir(parent)
            except OSError:
                return

    def revert(self, rev: str, message: str, author: Identity = WIKIMEM) -> str | None:
        """Commit the undoing of one commit's changes to the wiki; None if already undone."""
        self.commit_person_edits()
        with self.history(rev) as s, tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
            sha = s.resolve(rev)
            parent = s.first_parent(sha)
            base = [parent, sha] if parent else ["--root", sha]
            patch = s.run("diff-tree", "-p", "--binary", "--full-index", "--no-renames",
                          "--no-commit-id", *base, "--", s.scope)
            if not patch.strip():
                return None
            patch_file = Path(tmp, "patch")
            patch_file.write_bytes(patch.encode("utf-8", "surrogateescape"))
            apply = ("apply", "--whitespace=nowarn")  # a person's apply.whitespace=fix must not
            if s.probe(*apply, "--check", "-R", str(patch_file)) is None:  # rewrite the undo
                if s.probe(*apply, "--check", str(patch_file)) is not None:
                    return None  # the tree already looks like the commit was undone
                raise HistoryError(f"cannot revert {sha[:12]}: later edits changed the same "
                                   "lines; edit the wiki by hand instead")
            s.run(*apply, "-R", str(patch_file))
            changed = s.wiki_paths(s.diff_names(parent, sha))
        return self.commit(message, paths=changed, author=author)

    # -- sharing through a remote --------------------------------------------------------------

    def branch(self) -> str:
        """The short name of the branch the wiki is on; HistoryError when HEAD is detached."""
        with self.session() as s:
            ref = s.probe("symbolic-ref", "-q", "--short", "HEAD")
        if not ref:
            raise HistoryError(f"HEAD of {self.wiki} is detached; check out a branch first")
        return decode(ref).strip()

    @staticmethod
    def checked_remote(remote: str) -> str:
        if not remote or remote.startswith("-") or any(c.isspace() for c in remote):
            raise HistoryError(f"not a usable remote name: {remote!r}")
        return remote

    def remote_url(self, remote: str) -> str | None:
        if not self.has_repo():
            return None
        with self.session() as s:
            out = s.probe("remote", "get-url", self.checked_remote(remote))
        return decode(out).strip() if out else None

    def set_remote(self, remote: str, url: str) -> bool:
        """Point `remote` at `url` (adding it when missing); return whether anything changed."""
        current = self.remote_url(remote)
        if current == url:
            return False
        with self.session() as s:
            s.run("remote", "set-url" if current is not None else "add",
                  self.checked_remote(remote), url)
        return True

    def fetch(self, remote: str, branch: str) -> str | None:
        """Fetch `branch` from `remote`; its commit there, or None when the remote lacks it."""
        with self.session() as s:
            tracking = f"refs/remotes/{self.checked_remote(remote)}/{branch}"
            status, _, err = call(s.repo.git, ("fetch", "--quiet", "--no-tags", remote,
                                               f"+refs/heads/{branch}:{tracking}"), s.env())
            if status != 0:
                if "couldn't find remote ref" in err.lower():
                    return None
                raise HistoryError(one_line("fetch", err))
            return s.resolve(tracking)

    def push(self, remote: str, sha: str, branch: str) -> bool:
        """Push `sha` as the remote's `branch`; False when refused because the remote moved."""
        with self.session() as s:
            status, out, err = call(s.repo.git, ("push", "--porcelain", "--quiet",
                                                 self.checked_remote(remote),
                                                 f"{sha}:refs/heads/{branch}"), s.env())
        if status == 0:
            return True
        said = f"{decode(out)}\n{err}".lower()
        if any(sign in said for sign in PUSH_RACES):
            return False
        raise HistoryError(one_line("push", err or decode(out)))

    def is_ancestor(self, older: str, newer: str) -> bool:
        with self.session() as s:
            return s.probe("merge-base", "--is-ancestor", older, newer) is not None

    def commits_since(self, upstream: str) -> list[Commit]:
        """Commits on the wiki's branch that `upstream` lacks, oldest first, with their paths."""
        with self.session() as s:
            if s.head() is None:
                return []
            out = s.run("log", "-z", "--reverse", "--first-parent", "--no-merges",
                        f"--format={LOG_FORMAT}", "--name-only", "--no-renames",
                        "HEAD", f"^{upstream}", "--", s.scope)
            return [self.parse_commit(s, chunk) for chunk in out.split("\x1e") if chunk]

    def message(self, rev: str) -> str:
        """A commit's whole message, trailers included, exactly as written."""
        with self.history(rev) as s:
            return s.run("log", "-1", "--format=%B", s.resolve(rev))

    def parent(self, rev: str) -> str | None:
        with self.history(rev) as s:
            return s.first_parent(s.resolve(rev))

    def read(self, rev: str | None, path: str) -> str | None:
        """A wiki file at a revision, or None when it does not exist there (or rev is None)."""
        if rev is None:
            return None
        try:
            return self.show(rev, path)
        except NotFound:
            return None

    def merge_text(self, base: str | None, ours: str, theirs: str) -> str | None:
        """git's three-way line merge of one file's versions; None when lines conflict."""
        with self.session() as s, tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
            names = []
            for name, text in (("ours", ours), ("base", base or ""), ("theirs", theirs)):
                Path(tmp, name).write_bytes(text.encode("utf-8", "surrogateescape"))
                names.append(str(Path(tmp, name)))
            status, out, err = call(s.repo.git, ("merge-file", "-p", "--quiet", *names), s.env())
        if status < 0 or status > 127:
            raise HistoryError(one_line("merge-file", err))
        return decode(out) if status == 0 else None

    def move_to(self, sha: str) -> None:
        """Move the wiki's branch and files to `sha`, keeping (or refusing to clobber) edits."""
        with self.session() as s:
            s.run("reset", "--quiet", "--keep", sha)

    @contextlib.contextmanager
    def scratch(self, rev: str) -> Iterator[WikiRepo]:
        """A throwaway work tree of this repository on a branch of its own starting at `rev`,
        so commits can be rebuilt on top of another history without touching the wiki."""
        self.drop_scratches()
        folder = tempfile.mkdtemp(prefix="wikimem-sync-")
        branch = f"{SCRATCH}-{os.getpid()}-{os.path.basename(folder)[-8:]}"
        try:
            with self.session() as s:
                # git checks the new tree out in a child process that inherits the index
                # variable: point it at the new work tree's own index, never at the wiki's.
                index = os.path.join(os.path.abspath(s.repo.common_dir), "worktrees",
                                     os.path.basename(folder), "index")
                s.run("worktree", "add", "--quiet", "-b", branch, folder, rev, index=index)
            yield WikiRepo(Path(folder), Path(folder), "wiki", Path(folder, ".state"))
        finally:
            with self.session() as s:
                s.probe("worktree", "remove", "--force", folder)
                s.probe("branch", "-D", "--", branch)
            shutil.rmtree(folder, ignore_errors=True)

    def drop_scratches(self) -> None:
        """Remove scratch trees and branches a killed sync left (callers hold the lock, so no
        scratch in use can exist)."""
        if not self.has_repo():
            return
        with self.session() as s:
            listing = decode(s.probe("worktree", "list", "--porcelain", "-z") or b"")
            folder = ""
            for field in split_z(listing):
                folder = field[len("worktree "):] if field.startswith("worktree ") else folder
                if field.startswith(f"branch refs/heads/{SCRATCH}-"):
                    s.probe("worktree", "remove", "--force", folder)  # left by a killed sync
            s.probe("worktree", "prune")
            for stale in split_z(decode(s.probe("for-each-ref", "--format=%(refname:short)%00",
                                                f"refs/heads/{SCRATCH}-*") or b"")):
                s.probe("branch", "-D", "--", stale.strip())
