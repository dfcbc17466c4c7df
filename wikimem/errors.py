"""The one exception tree. Only `wikimem.cli` turns these into exit codes and messages."""

from __future__ import annotations


class WikimemError(Exception):
    """Anything wikimem expects to go wrong; its message is one line meant for a person."""

    exit_code = 1


class UsageError(WikimemError):
    """Bad arguments or input the user can fix by calling again differently."""

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
