"""Commands of the indexing pipeline: enqueue, hook, index, queue, status, config, schema, demo."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from wikimem import config
from wikimem.cli.context import (
    Ctx,
    cli,
    echo_paged,
    emit_json,
    json_option,
    pass_ctx,
    warn,
    workspace_option,
)
from wikimem.cli.hook import USAGE
from wikimem.cli.hook import hook as fail_open
from wikimem.demo import run_demo
from wikimem.errors import LockBusy, UsageError, WikimemError
from wikimem.foreground import pusher
from wikimem.foreground import report as report_passes
from wikimem.fsio import workspace_lock
from wikimem.indexing.drain import drain
from wikimem.indexing.indexer import approve
from wikimem.indexing.plan import SCHEMA
from wikimem.intake.accept import decode
from wikimem.intake.accept import enqueue as do_enqueue
from wikimem.intake.hook import HookArgs
from wikimem.intake.passlog import failure_warning
from wikimem.intake.queue import Queue
from wikimem.lifecycle.compact import on_schedule
from wikimem.providers.provider import WIKI, provider_name
from wikimem.settings_file import set_value
from wikimem.status import gather


def _read_source(source: str) -> tuple[bytes, str]:
    if source == "-":
        if sys.stdin.isatty():
            raise UsageError("no run record: pass a FILE or pipe JSON on stdin")
        return sys.stdin.buffer.read(), "stdin"
    try:
        with open(source, "rb") as handle:
            return handle.read(), source
    except OSError as exc:
        raise WikimemError(f"cannot read {source}: {exc.strerror}") from exc


@cli.command()
@click.argument("source", default="-", metavar="[FILE|-]")
@json_option
@workspace_option
@pass_ctx
def enqueue(ctx: Ctx, source: str, as_json: bool) -> None:
    """Queue a run record (JSON, from FILE or stdin): normalise, remove secrets, bound, write
    the job durably, print its id. Strict: bad input exits 1 and queues nothing, and so does
    memory that is off (WIKIMEM_MEMORY=off) or paused here (`wikimem pause`)."""
    if config.memory_disabled():
        raise WikimemError(
            "memory is off for this run (WIKIMEM_MEMORY); nothing queued: "
            "unset WIKIMEM_MEMORY to queue runs"
        )
    if ctx.places.paused_flag.exists():
        raise WikimemError(
            "memory is paused in this workspace; nothing queued: `wikimem resume` turns it back on"
        )
    data, name = _read_source(source)
    done = do_enqueue(ctx.places, ctx.settings, decode(data, name), name)
    if as_json:
        emit_json(
            {
                "job": done.job_id,
                "run_id": done.run_id,
                "duplicate": done.duplicate,
                "redactions": list(done.redactions),
            }
        )
        return
    click.echo(done.job_id)
    if done.duplicate:
        warn(f"wikimem: run {done.run_id} is already queued or indexed; not queued again")


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("source", required=False, metavar="[FILE|-|JSON]")
@click.option(
    "--wait",
    is_flag=True,
    help="Index in the foreground; return once this run is "
    "indexed, whoever runs the pass (for CI).",
)
@click.option(
    "--github",
    is_flag=True,
    help="Read a GitHub Actions agent step's output (run "
    "record, claude -p/codex exec JSON, or a log) and add GITHUB_* provenance.",
)
@click.option(
    "--from-command",
    is_flag=True,
    help="Run `-- CMD ARGS...`, record it as a run, and exit with its status.",
)
@click.option("--task", help="Task text for --from-command.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
@workspace_option
def hook(
    click_ctx: click.Context,
    source: str | None,
    wait: bool,
    github: bool,
    from_command: bool,
    task: str | None,
    quiet: bool,
    command: tuple[str, ...],
) -> None:
    """What agent runners call when a run ends: queue the run and start a background pass.

    Reads a run record, a Claude Code hook payload (Stop, SessionEnd) or a Codex notify/Stop
    payload from FILE, stdin or the last argument. Fails open: always exits 0 and says on stderr
    what went wrong, because memory must never break the agent. At a terminal it says in one
    line what it did with the run (as runners call it, nothing); with --wait, the run's outcome.
    """
    # `wikimem hook` normally never gets here (main() takes the fast path without click); this
    # is the same hook reached through click, e.g. in-process.
    parsed = HookArgs()
    parsed.wait, parsed.github, parsed.quiet, parsed.task = wait, github, quiet, task
    parsed.workspace = click_ctx.ensure_object(Ctx).workspace
    if from_command:  # click took the command's first word for SOURCE
        parsed.command = [*([] if source is None else [source]), *command]
    else:
        parsed.source = source
    wrong = (
        "--from-command needs a command after --"
        if from_command and not parsed.command
        else "a command after -- needs --from-command"
        if command and not from_command
        else None
    )
    if wrong:  # a hook fails open, bad flags included
        warn(f"wikimem hook: {wrong}\n{USAGE}")
        raise click.exceptions.Exit(0)
    raise click.exceptions.Exit(fail_open(parsed))


@cli.command()
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors (background passes).")
@click.option("--wait", is_flag=True, help="Wait for a running pass instead of leaving.")
@click.option(
    "--until-due",
    is_flag=True,
    help="Then stay for failed jobs' retries that come due within queue.retry_wait seconds, "
    "without holding the lock (what the background pass a hook starts does).",
)
@workspace_option
@pass_ctx
def index(ctx: Ctx, quiet: bool, wait: bool, until_due: bool) -> None:
    """Drain the queue in the foreground: one pass per batch of jobs, one commit per pass.
    Returns once no job is ready; a job backing off after a failure is left for later, unless
    --until-due."""
    queue = Queue(ctx.places.queue)
    total = queue.pending_ready()
    bar = None  # (a pass reports "no model configured" itself, once)
    if total > 1 and not quiet and sys.stderr.isatty():
        bar = click.progressbar(length=total, label="indexing", file=sys.stderr)
        bar.__enter__()
    try:
        reports = drain(
            ctx.places,
            ctx.settings,
            wait=wait,
            until_due=until_due,
            progress=bar.update if bar else None,
            warn=lambda m: None if quiet else warn(m),
            after_commits=pusher(ctx.places, ctx.settings, warn),
        )
    except LockBusy:
        if not quiet:
            click.echo(
                "wikimem: a pass is already running in this workspace; it will take the queued jobs"
            )
        return
    finally:
        if bar:
            bar.__exit__(None, None, None)
    report_passes([r for r in reports if r], (lambda _: None) if quiet else warn)
    _compact_on_schedule(ctx, len([r for r in reports if r and r.commit]), quiet)

    alarm = failure_warning(ctx.places.pass_log)
    if alarm:
        warn(alarm)  # shown even with --quiet: it lands in the background log
    if not quiet:
        counts: dict[str, int] = {}
        for report in reports:
            for outcome in report.outcomes:
                counts[outcome.outcome] = counts.get(outcome.outcome, 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "queue empty"
        click.echo(f"wikimem: {summary}")
    if any(o.outcome == "failed" for r in reports for o in r.outcomes):
        raise click.exceptions.Exit(1)


def _compact_on_schedule(ctx: Ctx, changed: int, quiet: bool) -> None:
    """The scheduled compaction (settings compact.*); its failure never fails the passes."""
    if provider_name(ctx.settings) != WIKI:  # compaction works on the wiki provider only
        return
    try:
        done = on_schedule(ctx.places, ctx.settings, changed)
    except WikimemError as exc:
        warn(f"wikimem: scheduled compaction failed: {exc}")
        return
    if done is not None and done.held:
        warn(f"wikimem: scheduled compaction held for review ({done.held}); see `wikimem compact`")
    elif done is not None and done.commit and not quiet:
        click.echo(f"wikimem: compacted in commit {done.commit[:7]}")
    if done is not None and done.waiting:
        warn(f"wikimem: {len(done.waiting)} unused entries wait for review; see `wikimem compact`")


@cli.group(invoke_without_command=True)
@workspace_option
@json_option
@click.pass_context
def queue(click_ctx: click.Context, as_json: bool) -> None:
    """List queued jobs by state (pending, active, failed, review, corrupt, dropped)."""
    if click_ctx.invoked_subcommand is not None:
        return

    ctx = click_ctx.ensure_object(Ctx)
    q = Queue(ctx.places.queue)
    rows = []
    for state in ("pending", "active", "failed", "review", "corrupt", "dropped"):
        for path, job in q.jobs(state):
            rows.append(
                {
                    "state": state,
                    "job": path.stem,
                    "run_id": job.run_id if job else None,
                    "attempts": job.attempts if job else None,
                    "error": (job.last_error or job.held_reason) if job else "unreadable",
                    "task": str(job.run.get("task", ""))[:60] if job else "",
                }
            )
    if as_json:
        emit_json({"jobs": rows, "counts": q.counts()})
        return
    if not rows:
        click.echo(f"queue empty ({q.counts()['done']} done)")
    for row in rows:
        extra = f"  ({row['error']})" if row["error"] else ""
        click.echo(f"{row['state']:8} {row['job']}  {row['run_id']}  {row['task']}{extra}")


@queue.command("retry")
@workspace_option
@pass_ctx
def queue_retry(ctx: Ctx) -> None:
    """Put failed jobs back in the queue (attempts reset)."""
    click.echo(f"re-queued {Queue(ctx.places.queue).retry_failed()} failed job(s)")


@queue.command("drop")
@click.argument("job")
@workspace_option
@pass_ctx
def queue_drop(ctx: Ctx, job: str) -> None:
    """Drop a pending, failed, held or corrupt job (by id or its prefix): it is never indexed,
    and is kept in queue/dropped/ as a record."""
    with workspace_lock(ctx.places.lock, wait=True, timeout=60):
        dropped, state = Queue(ctx.places.queue).drop(job)
    run = f" (run {dropped.run_id})" if dropped else ""
    click.echo(f"dropped {state} job {job}{run}; kept in queue/dropped/")


@queue.command("approve")
@click.argument("job")
@workspace_option
@pass_ctx
def queue_approve(ctx: Ctx, job: str) -> None:
    """Apply a plan held for review, by job id or its prefix (`wikimem review` shows it first)."""
    sha = approve(ctx.places, ctx.settings, job)
    click.echo(f"applied held plan{f' in commit {sha[:7]}' if sha else ' (nothing changed)'}")


@cli.command()
@json_option
@workspace_option
@pass_ctx
def status(ctx: Ctx, as_json: bool) -> None:
    """Which model resolves, queue depth, failed jobs, recent passes, and how many runs changed
    nothing."""
    info = gather(ctx.found, ctx.settings)
    if as_json:
        emit_json(info.as_dict())
        return
    for line in info.lines():
        click.echo(line)


@cli.group("config", invoke_without_command=True)
@click.option("--global", "is_global", is_flag=True, help="The global config instead.")
@json_option
@workspace_option
@click.pass_context
def config_cmd(click_ctx: click.Context, is_global: bool, as_json: bool) -> None:
    """Read and set settings. Without a subcommand: every effective value and its source."""
    click_ctx.ensure_object(Ctx)
    click_ctx.meta["global"] = is_global
    if click_ctx.invoked_subcommand is None:
        if not is_global:
            click_ctx.obj.require()  # outside a workspace only the global config is there to read
        values = sorted(click_ctx.obj.settings.values.items())
        if as_json:
            emit_json({key: setting_json(key, value) for key, value in values})
            return
        lines = []  # some sixty lines: paged on a terminal, as `show` and `log` are
        for key, value in values:
            lines.append(f"{key} = {shown_value(key, value.value)}  # {value.source}")
            lines.append(f"    # {config.SETTINGS[key][2]}")
        echo_paged(lines)


@config_cmd.command("get")
@click.argument("key")
@json_option
@pass_ctx
def config_get(ctx: Ctx, key: str, as_json: bool) -> None:
    """Print one effective value and where it comes from."""
    if key not in config.SETTINGS:
        raise UsageError(config.unknown_setting(key))
    if not click.get_current_context().meta.get("global"):
        ctx.require()  # outside a workspace: `wikimem config --global get KEY`
    value = ctx.settings.values[key]
    if as_json:
        emit_json(setting_json(key, value))
        return
    click.echo(f"{shown_value(key, value.value)}  # {value.source}: {config.SETTINGS[key][2]}")


def setting_json(key: str, value: config.Value) -> dict[str, Any]:
    """One setting for --json: its value as typed (the API key masked) and its source."""
    shown = "***" if key == "model.api_key" and value.value else value.value
    return {"value": list(shown) if isinstance(shown, tuple) else shown, "source": value.source}


def shown_value(key: str, value: Any) -> str:
    """A setting as a TOML value, as config.toml would hold it: the API key masked; a setting
    with no value is a comment, since TOML has no null."""
    import tomli_w

    if key == "model.api_key" and value:
        value = "***"
    if value is None:
        return "# not set"
    if isinstance(value, (tuple, list)):  # on one line, as a person writes a short array
        return "[" + ", ".join(shown_value(key, item) for item in value) + "]"
    return tomli_w.dumps({"v": value}).removeprefix("v = ").strip()


GLOBAL_HELP = "Write the global config (~/.clarvis/config.toml) instead of the workspace's."


# a negative number is a value to check against the setting's bounds, not an unknown option
@config_cmd.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
@click.option("--global", "is_global", is_flag=True, help=GLOBAL_HELP)
@click.pass_context
def config_set(click_ctx: click.Context, key: str, value: str, is_global: bool) -> None:
    """Set KEY to VALUE in the workspace config (or the global one with --global)."""
    ctx = click_ctx.ensure_object(Ctx)
    use_global = is_global or bool(click_ctx.meta.get("global"))
    path = set_value(ctx.places if use_global else ctx.found, key, value, use_global)
    click.echo(f"{key} set in {path}")
    if key == "model.api_key":
        warn(
            f"wikimem: the key is stored in plain text in {path}; prefer OPENAI_API_KEY in "
            "the environment, and never commit that file"
        )


@config_cmd.command("unset")
@click.argument("key")
@click.option("--global", "is_global", is_flag=True, help=GLOBAL_HELP)
@click.pass_context
def config_unset(click_ctx: click.Context, key: str, is_global: bool) -> None:
    """Remove KEY from the workspace config (or the global one with --global)."""
    ctx = click_ctx.ensure_object(Ctx)
    use_global = is_global or bool(click_ctx.meta.get("global"))
    path = set_value(ctx.places if use_global else ctx.found, key, None, use_global)
    click.echo(f"{key} removed from {path}")


@cli.command()
def schema() -> None:
    """Print the edit plan's JSON Schema (what the extraction model must answer)."""
    click.echo(json.dumps(SCHEMA, indent=2, sort_keys=True))


@cli.command()
@click.option(
    "--keep",
    type=click.Path(file_okay=False),
    help="Build the demo workspace here instead of a temporary folder (kept afterwards).",
)
def demo(keep: str | None) -> None:
    """Feed the example runs that ship with wikimem through the offline extractor in a throwaway
    workspace, then show the wiki and its git log. No network, no API key."""
    for line in run_demo(keep):
        click.echo(line)
