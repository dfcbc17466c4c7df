"""Places and settings: the only module that reads the environment or config files.

Settings resolve in this order, last wins: built-in defaults, the global config
(`$WIKIMEM_HOME/config.toml` or `~/.clarvis/config.toml`), the workspace config
(`<workspace>/.clarvis/config.toml`), then environment variables. Each effective value
remembers where it came from so `wikimem config` can say so. The workspace file's settings that
run programs or send data elsewhere apply only while the file is trusted (see `trust`).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

from wikimem import locate, trust
from wikimem.errors import ConfigError
from wikimem.frozen import frozen

TYPE_CHECKING = False  # every hook imports this module: no typing at run time
if TYPE_CHECKING:
    from typing import Any, TypeVar

    S = TypeVar("S")

CLARVIS = locate.CLARVIS

# key: (default, type, description). Dotted keys map to TOML tables.
SETTINGS: dict[str, tuple[Any, type, str]] = {
    "model.memory": (None, str, "model that extracts memory (WIKIMEM_MODEL overrides)"),
    "model.default": (None, str, "default model, used when no memory model is set"),
    "model.base_url": (None, str, "OpenAI-compatible endpoint (OPENAI_BASE_URL overrides)"),
    "model.api_key": (None, str, "API key (OPENAI_API_KEY overrides; prefer the variable)"),
    "model.fallbacks": ((), list, "models tried in order when the memory model fails"),
    "model.timeout": (60.0, float, "seconds before one model request times out"),
    "model.max_retries": (2, int, "retries of one request on 429/5xx/timeouts"),
    "model.offline": (False, bool, "no model on purpose: the offline rules, without the warning"),
    "capture.output_head": (2000, int, "characters kept from the start of each evidence output"),
    "capture.output_tail": (2000, int, "characters kept from the end of each evidence output"),
    "capture.snapshot_max": (60000, int, "characters a whole run snapshot may hold"),
    "prompt.budget": (24000, int, "characters of wiki context sent to the model per pass"),
    "wiki.commit_into": ("wiki", str, "'wiki' (own repository) or 'workspace' (enclosing one)"),
    "wiki.profile_max": (4000, int, "characters PROFILE.md's generated block may hold"),
    "wiki.push": (False, bool, "push the wiki's repository after every pass"),
    "wiki.remote": ("origin", str, "remote used by sync and push"),
    "queue.max_attempts": (5, int, "failed passes before a job moves to the failed state"),
    "queue.batch": (8, int, "jobs one pass may send to the model together"),
    "queue.done_days": (30, int, "days a finished job stays in queue/done/ (0: no limit)"),
    "queue.done_max": (1000, int, "finished jobs kept in queue/done/ (0: no limit)"),
    "queue.retry_wait": (
        600,
        int,
        "seconds a background pass stays for a retry coming due (0: never; WIKIMEM_RETRY_WAIT)",
    ),
    "hook.linger": (600, int, "seconds a warm intake listener waits for the next run (0: none)"),
    "hook.start_budget": (6000, int, "characters the SessionStart hook prints (0: nothing)"),
    "hook.resume_budget": (1500, int, "characters it prints when a session resumes (0: nothing)"),
    "recall.budget": (
        2000,
        int,
        "characters a prompt or failed-command hook adds to the agent's context (0: nothing)",
    ),
    "review.max_remove_share": (0.5, float, "share of entries a plan may remove before review"),
    "review.mode": ("risky", str, "what waits for a person: 'off', 'risky' (holds) or 'all'"),
    "memory.provider": ("wiki", str, "where memory goes: 'wiki', 'mcp', or a plugin's name"),
    "memory.command": (None, str, "the MCP memory server to start, with 'mcp' (a command line)"),
    "memory.confirm_days": (
        7,
        int,
        "days after an entry was written or confirmed before a run repeating it counts as support",
    ),
    "memory.unused_days": (
        30,
        int,
        "days an entry may go undelivered and unused by agents before compact retires it (0: off)",
    ),
    "compact.every_passes": (
        0,
        int,
        "compact after this many passes changed the wiki (0: off)",
    ),
    "compact.every_hours": (
        0.0,
        float,
        "compact when this many hours passed since the last (0: off)",
    ),
}

ENV_KEYS = {
    "model.memory": "WIKIMEM_MODEL",
    "model.base_url": "OPENAI_BASE_URL",
    "model.api_key": "OPENAI_API_KEY",
    "model.fallbacks": "WIKIMEM_FALLBACK_MODELS",
    "hook.linger": "WIKIMEM_LINGER",
    "queue.retry_wait": "WIKIMEM_RETRY_WAIT",
}


@frozen
class Places:
    """Where a workspace keeps its wiki, state and settings."""

    workspace: Path
    global_dir: Path
    found: bool = True  # False: no project up from the current folder (the folder itself)

    @property
    def clarvis(self) -> Path:
        return self.workspace / CLARVIS

    @property
    def wiki(self) -> Path:
        return self.clarvis / "memory"

    @property
    def state(self) -> Path:
        """Queue, pass log, lock and caches: outside the wiki, never committed."""
        return self.clarvis / "state"

    @property
    def queue(self) -> Path:
        return self.state / "queue"

    @property
    def pass_log(self) -> Path:
        return self.state / "passes.jsonl"

    @property
    def lock(self) -> Path:
        return self.state / "pass.lock"

    @property
    def workspace_policy(self) -> Path:
        return self.clarvis / "memory-policy.md"

    @property
    def global_policy(self) -> Path:
        return self.global_dir / "memory-policy.md"

    @property
    def workspace_config(self) -> Path:
        return self.clarvis / "config.toml"

    @property
    def global_config(self) -> Path:
        return self.global_dir / "config.toml"

    @property
    def templates(self) -> Path:
        return self.clarvis / "templates"

    @property
    def paused_flag(self) -> Path:
        return self.state / locate.PAUSED

    @property
    def intake_socket(self) -> Path:
        """Where a warm intake listener takes runs (see intake/listener.py)."""
        return self.state / locate.SOCKET

    @property
    def listener_lock(self) -> Path:
        return self.state / "listener.lock"

    @property
    def background_log(self) -> Path:
        """stderr of detached passes and listeners."""
        return self.state / "background.log"


@frozen
class ModelSettings:
    """What the model seam needs; `model` is None when no model resolves (offline rules)."""

    model: str | None
    base_url: str | None = None
    api_key: str | None = None
    fallbacks: tuple[str, ...] = ()
    timeout: float = 60.0
    max_retries: int = 2


@frozen
class Value:
    key: str
    value: Any
    source: str  # "default", a config file path, or "env VAR"


@frozen
class ModelSection:
    memory: str | None
    default: str | None
    base_url: str | None
    api_key: str | None
    fallbacks: tuple[str, ...]
    timeout: float
    max_retries: int
    offline: bool


@frozen
class CaptureSection:
    output_head: int
    output_tail: int
    snapshot_max: int


@frozen
class PromptSection:
    budget: int


@frozen
class WikiSection:
    commit_into: str
    profile_max: int
    push: bool
    remote: str


@frozen
class QueueSection:
    max_attempts: int
    batch: int
    done_days: int
    done_max: int
    retry_wait: int


@frozen
class HookSection:
    linger: int
    start_budget: int
    resume_budget: int


@frozen
class RecallSection:
    budget: int


@frozen
class ReviewSection:
    max_remove_share: float
    mode: str


@frozen
class MemorySection:
    provider: str
    command: str | None
    confirm_days: int
    unused_days: int


@frozen
class CompactSection:
    every_passes: int
    every_hours: float


# Each TOML table of SETTINGS and the typed section it is read into.
SECTIONS: dict[str, type] = {
    "model": ModelSection,
    "capture": CaptureSection,
    "prompt": PromptSection,
    "wiki": WikiSection,
    "queue": QueueSection,
    "hook": HookSection,
    "recall": RecallSection,
    "review": ReviewSection,
    "memory": MemorySection,
    "compact": CompactSection,
}


@frozen
class Settings:
    """Effective settings: typed sections (`settings.queue.batch`) for the code, and each
    value with where it came from (`values`) for `wikimem config`."""

    values: Mapping[str, Value] = MappingProxyType({})
    # settings of an untrusted workspace file left at their defaults, and why (`trust`)
    ignored: tuple[str, ...] = ()
    ignored_why: str = ""

    def _section(self, name: str, kind: type[S]) -> S:
        """The table `name` of SETTINGS, read into its typed section `kind`."""
        prefix = f"{name}."
        defaults = {k: d for k, (d, _, _) in SETTINGS.items() if k.startswith(prefix)}
        chosen = {k: (self.values[k].value if k in self.values else d) for k, d in defaults.items()}
        return kind(**{k[len(prefix) :]: v for k, v in chosen.items()})

    @cached_property
    def model(self) -> ModelSection:
        return self._section("model", ModelSection)

    @cached_property
    def capture(self) -> CaptureSection:
        return self._section("capture", CaptureSection)

    @cached_property
    def prompt(self) -> PromptSection:
        return self._section("prompt", PromptSection)

    @cached_property
    def wiki(self) -> WikiSection:
        return self._section("wiki", WikiSection)

    @cached_property
    def queue(self) -> QueueSection:
        return self._section("queue", QueueSection)

    @cached_property
    def hook(self) -> HookSection:
        return self._section("hook", HookSection)

    @cached_property
    def recall(self) -> RecallSection:
        return self._section("recall", RecallSection)

    @cached_property
    def review(self) -> ReviewSection:
        return self._section("review", ReviewSection)

    @cached_property
    def memory(self) -> MemorySection:
        return self._section("memory", MemorySection)

    @cached_property
    def compact(self) -> CompactSection:
        return self._section("compact", CompactSection)

    def override(self, key: str, value: Any, source: str) -> Settings:
        """A copy with one value replaced (checked like any other)."""
        value = Value(key, coerce(key, value, source), source)
        return Settings({**self.values, key: value}, self.ignored, self.ignored_why)

    def model_settings(self) -> ModelSettings:
        """What the model seam needs: the memory model, else the default one."""
        model = self.model
        return ModelSettings(
            model=model.memory or model.default,
            base_url=model.base_url,
            api_key=model.api_key,
            fallbacks=tuple(model.fallbacks),
            timeout=float(model.timeout),
            max_retries=int(model.max_retries),
        )


def environ() -> Mapping[str, str]:
    """The process environment; other modules take values, not `os.environ`."""
    return os.environ


def find_workspace(
    explicit: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Path:
    """--workspace, else WIKIMEM_WORKSPACE, else nearest folder up with .clarvis/ or .git."""
    return Path(locate.workspace_dir(explicit, env, None if cwd is None else str(cwd)))


def global_dir(env: Mapping[str, str] | None = None) -> Path:
    """$WIKIMEM_HOME, else ~/.clarvis, where `~` is the HOME of `env`: a listener serving a
    hook reads the hook's global settings, not its own."""
    env = os.environ if env is None else env
    home = env.get("HOME")
    raw = env.get("WIKIMEM_HOME")
    if raw:
        if home and (raw == "~" or raw.startswith("~/")):
            return Path(home + raw[1:])
        return Path(raw).expanduser()
    return (Path(home) if home else Path.home()) / CLARVIS


def places(
    workspace: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Places:
    found = locate.project_dir(workspace, env)
    return Places(
        workspace=Path(found) if found is not None else find_workspace(workspace, env),
        global_dir=global_dir(env),
        found=found is not None,
    )


def read_toml(path: Path) -> dict[str, Any]:
    return read_config(path)[0]


def read_config(path: Path) -> tuple[dict[str, Any], tuple[bytes, os.stat_result] | None]:
    """A config file's table, and the bytes and status it was parsed from (None: no file)."""
    if not path.is_file():
        return {}, None
    # imported here: most hooks run where no config file exists, and they must start fast
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        content = trust.read_file(path)
        return tomllib.loads(content[0].decode("utf-8")), content
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from exc


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


@frozen
class Bounds:
    """The values a number setting may take: from `low` (or just above it) up to `high`."""

    low: float = 0
    high: float | None = None
    above: bool = False  # `low` itself is not allowed


# Numbers not listed here only have to be >= 0. Zero is allowed where it means "none" or "off".
BOUNDS: dict[str, Bounds] = {
    "model.timeout": Bounds(0, above=True),
    "model.max_retries": Bounds(0),  # 0: no retries
    "capture.output_head": Bounds(1),
    "capture.output_tail": Bounds(1),
    "capture.snapshot_max": Bounds(1),
    "prompt.budget": Bounds(1),
    "wiki.profile_max": Bounds(1),
    "queue.max_attempts": Bounds(1),
    "queue.batch": Bounds(1),
    "queue.done_days": Bounds(0),
    "queue.done_max": Bounds(0),
    "queue.retry_wait": Bounds(0, 86400),  # 0: a background pass never waits for a retry
    "hook.linger": Bounds(0),  # 0: no warm listener
    "hook.start_budget": Bounds(0),  # 0: the SessionStart hook prints nothing
    "hook.resume_budget": Bounds(0),
    "recall.budget": Bounds(0),  # 0: the prompt and failure hooks print nothing
    "review.max_remove_share": Bounds(0, 1),  # 0: every removal is held for review
    "compact.every_passes": Bounds(0),
    "compact.every_hours": Bounds(0),
    "memory.confirm_days": Bounds(0),  # 0: every confirming run, at most one record a day
    "memory.unused_days": Bounds(0),  # 0: compaction never retires an entry for going unused
}


def to_number(raw: Any, kind: type) -> int | float:
    if isinstance(raw, bool):  # TOML `batch = true` is not 1
        raise ValueError("expected a number")
    try:
        if kind is float or isinstance(raw, float):
            number: int | float = float(raw)
        else:
            try:
                number = int(raw)
            except ValueError:
                number = float(raw)  # "2.5" is a number, just not a whole one
    except (TypeError, ValueError):
        raise ValueError(f"expected a number (got {raw!r})") from None
    if not math.isfinite(number):
        raise ValueError("expected a finite number")
    if kind is int and number != int(number):
        raise ValueError(f"expected a whole number (got {raw})")
    return int(number) if kind is int else number


def check_bounds(key: str, number: int | float) -> int | float:
    bounds = BOUNDS.get(key, Bounds())
    if bounds.above and number <= bounds.low:
        raise ValueError(f"must be more than {bounds.low:g} (got {number:g})")
    if number < bounds.low:
        limit = "must not be negative" if bounds.low == 0 else f"must be at least {bounds.low:g}"
        raise ValueError(f"{limit} (got {number:g})")
    if bounds.high is not None and number > bounds.high:
        raise ValueError(f"must be at most {bounds.high:g} (got {number:g})")
    return number


def coerce(key: str, raw: Any, origin: str) -> Any:
    """Check one setting's value against its declared type and, for numbers, its BOUNDS."""
    if key not in SETTINGS:
        raise ConfigError(f"{origin}: {unknown_setting(key)}")
    _, kind, _ = SETTINGS[key]
    try:
        if kind is list:
            if isinstance(raw, str):
                return tuple(part.strip() for part in raw.split(",") if part.strip())
            if isinstance(raw, (list, tuple)) and all(isinstance(x, str) for x in raw):
                return tuple(raw)
            raise ValueError("expected a list of names")
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off"}:
                return False
            raise ValueError("expected true or false")
        if kind in (int, float):
            return check_bounds(key, to_number(raw, kind))
        text = str(raw).strip()
        if key == "wiki.commit_into" and text not in {"wiki", "workspace"}:
            raise ValueError("expected 'wiki' or 'workspace'")
        if key == "review.mode" and text not in {"off", "risky", "all"}:
            raise ValueError("expected 'off', 'risky' or 'all'")
        return text or None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{origin}: {key}: {exc}") from exc


def load(where: Places, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    values = {key: Value(key, default, "default") for key, (default, _, _) in SETTINGS.items()}
    for key, raw in flatten(read_toml(where.global_config)).items():
        values[key] = Value(
            key, coerce(key, raw, str(where.global_config)), str(where.global_config)
        )
    table, content = read_config(where.workspace_config)
    workspace = flatten(table)
    ignored, why = untrusted(where, workspace, content)
    path = str(where.workspace_config)
    for key, raw in workspace.items():
        if key in ignored:  # what `wikimem config` shows as its source
            values[key] = Value(key, values[key].value, f"{values[key].source}; {path} ignored")
        else:
            values[key] = Value(key, coerce(key, raw, path), path)
    for key, var in ENV_KEYS.items():
        if env.get(var):
            values[key] = Value(key, coerce(key, env[var], var), f"env {var}")
    return Settings(values, ignored, why)


_warned: set[str] = set()  # one warning per file and process: settings load many times


def untrusted(
    where: Places, workspace: Mapping[str, Any], content: tuple[bytes, os.stat_result] | None
) -> tuple[tuple[str, ...], str]:
    """The workspace file's dangerous settings that must be ignored (the file is not trusted
    as it is now), and why; said once on stderr, with how to trust it."""
    dangerous = tuple(key for key, raw in workspace.items() if trust.is_dangerous(key, raw))
    if not dangerous:
        return (), ""
    path = where.workspace_config
    why = trust.distrust_reason(path, trust.store_path(where.global_dir), content)
    if why is None:
        return (), ""
    said = f"{path}:{why}"
    if said not in _warned:
        _warned.add(said)
        sys.stderr.write(
            f"wikimem: ignored {', '.join(dangerous)} from {path}: {why} "
            f"(review it, then run `wikimem trust -C {where.workspace}`)\n"
        )
    return dangerous, why


memory_disabled = locate.memory_disabled


WIKI_PROVIDER = "wiki"


def provider_name(settings: Settings) -> str:
    """The provider `memory.provider` names, as jobs record it (here, below the providers, so a
    command can tell the wiki from another store without importing every provider)."""
    return (settings.memory.provider or WIKI_PROVIDER).strip().lower()


def unknown_setting(key: str) -> str:
    """What to say of a key no setting has: the closest one, if any is close."""
    import difflib

    close = difflib.get_close_matches(key, list(SETTINGS), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown setting {key!r}{hint} (`wikimem config` lists them)"
