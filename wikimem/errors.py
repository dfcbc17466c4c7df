"""The one exception tree. Only `wikimem.cli` turns these into exit codes and messages."""

from __future__ import annotations


class WikimemError(Exception):
    """Anything wikimem expects to go wrong; its message is one line meant for a person."""

    exit_code = 1


class UsageError(WikimemError):
    """A command called wrongly: bad option or argument syntax, an unknown name from a fixed
    set, conflicting flags. A well-formed request for something that is not there (a page, an
    entry, a commit, a job, a file) is NotFound or another WikimemError, exit 1."""

    exit_code = 2


class RecordError(WikimemError):
    """A run record (or a queued job) that cannot be parsed."""


class WikiError(WikimemError):
    """A wiki path or page that cannot be read or written as asked."""


class NotFound(WikiError):
    """A wiki path or entry that does not exist."""


class ConfigError(WikimemError):
    """A config file or setting that cannot be read or is invalid."""


class ModelError(WikimemError):
    """The extraction model could not be reached or did not answer usefully."""


class PlanError(WikimemError):
    """An edit plan that is not even structurally a plan (bad JSON, wrong shape)."""


class HistoryError(WikimemError):
    """A git operation on the wiki's repository failed."""


class LockBusy(WikimemError):
    """Another pass holds the workspace lock."""


class UnsafeState(WikimemError):
    """A state folder or file another local user could read, write or redirect."""
