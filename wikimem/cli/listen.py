"""`wikimem listen`: the warm intake listener, in the foreground or as hooks start it."""

from __future__ import annotations

import click

from wikimem.cli.context import Ctx, cli, emit_json, pass_ctx, workspace_option
from wikimem.errors import LockBusy, UsageError
from wikimem.intake import listener


@cli.command()
@click.option(
    "--idle",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Leave after this long without a run (default: the hook.linger setting; "
    "0: stay until stopped).",
)
@click.option("--stop", is_flag=True, help="Ask this workspace's listener to leave.")
@click.option(
    "--status", "show_status", is_flag=True, help="Say whether a listener runs here, and its pid."
)
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors (how hooks start it).")
@click.option("--json", "as_json", is_flag=True, help="With --status: machine-readable output.")
@workspace_option
@pass_ctx
def listen(
    ctx: Ctx, idle: float | None, stop: bool, show_status: bool, quiet: bool, as_json: bool
) -> None:
    """Take runs from hooks over a local socket, so hooks return without loading wikimem.

    Hooks start a listener themselves and it leaves after `hook.linger` seconds without a run
    (0 turns that off); run it in the foreground to watch runs arrive. It does what a hook
    would (redact, bound, queue, start a pass) and answers once the job is on disk. The socket
    is .clarvis/state/intake.sock, mode 0600, for your user only; a listener also leaves when
    wikimem's code changes under it.
    """
    socket_path = str(ctx.places.intake_socket)
    if as_json and not show_status:
        raise UsageError("--json goes with --status")
    if stop or show_status:
        if stop:
            click.echo(
                "wikimem: the listener is leaving"
                if listener.stop(socket_path)
                else "wikimem: no listener runs in this workspace"
            )
        else:
            answer = listener.ping(socket_path)
            if as_json:
                emit_json(
                    {
                        "running": answer is not None,
                        "pid": answer["pid"] if answer else None,
                        "runs": answer.get("runs", 0) if answer else 0,
                    }
                )
                return
            click.echo(
                f"wikimem: a listener runs here (pid {answer['pid']}, "
                f"{answer.get('runs', 0)} run(s) taken)"
                if answer
                else "wikimem: no listener runs in this workspace"
            )
        return
    wait = ctx.settings.hook.linger if idle is None else idle
    say = (lambda message: None) if quiet else (lambda message: click.echo(message))
    try:
        why = listener.serve(
            str(ctx.places.workspace),
            float(wait),
            say,
            lambda message: click.echo(message, err=True),
        )
    except LockBusy:
        if quiet:  # a hook started a second one while the first was starting: nothing to do
            return
        raise
    say(f"wikimem: listener left ({why})")
