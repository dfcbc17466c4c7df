"""The command line. `main` is the one place that turns errors into exit codes and messages.

Exit codes: 0 ok, 1 failure, 2 usage, 130 interrupted. An unexpected error prints one line and
the path of a log holding the traceback. `wikimem hook` takes a fast path without click, because
agent runners wait for it.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the hook's fast path does not import typing or collections
if TYPE_CHECKING:
    from collections.abc import Sequence


def crash_log(exc: BaseException) -> str:
    """Write the traceback somewhere a person can find it; return that path."""
    # only after a crash: this module is on the hook's fast path
    import tempfile
    import time
    import traceback
    from pathlib import Path

    from wikimem.config import global_dir

    # the person's own folder, not a shared temp dir: a traceback can quote their data
    for folder in (global_dir() / "logs", Path(tempfile.gettempdir()) / "wikimem-logs"):
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log"
            path.touch(mode=0o600)
            path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
            return str(path)
        except OSError:
            continue
    return "(no writable log folder)"


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    private_umask()
    lead = workspace_prefix(args)
    if args[len(lead) : len(lead) + 1] == ["hook"] and not {"--help", "-h"} & set(args):
        from wikimem.cli.hook import fast_hook  # the hook's fast path: no click

        sys.exit(fast_hook([*lead, *args[len(lead) + 1 :]]))
    if args[len(lead) : len(lead) + 1] == ["start"] and not {"--help", "-h"} & set(args):
        from wikimem.cli.start import fast_start  # a session start waits for it: no click

        sys.exit(fast_start([*lead, *args[len(lead) + 1 :]]))
    if args[len(lead) : len(lead) + 1] == ["deliver"] and not {"--help", "-h"} & set(args):
        from wikimem.cli.deliver import fast_deliver  # inside the agent's loop: no click

        sys.exit(fast_deliver([*lead, *args[len(lead) + 1 :]]))
    sys.exit(run(args))


def private_umask() -> None:
    """Nothing wikimem or the git it runs creates is writable by group or others, whatever
    the umask it was started with (under umask 0, `git init` would leave .git/config 0666 and
    the wiki's folders 0777); a stricter umask is kept."""
    os.umask(os.umask(0o022) | 0o022)


def workspace_prefix(args: list[str]) -> list[str]:
    """The global `-C DIR` / `--workspace DIR` before a command, so `wikimem -C DIR hook`
    takes the fast path too."""
    if args[:1] in (["-C"], ["--workspace"]) and len(args) > 1:
        return args[:2]
    if args and args[0].startswith("--workspace="):
        return args[:1]
    return []


def run(args: list[str]) -> int:
    # every command but the hook: click and the commands would cost a hook ~100 ms
    from wikimem.cli.terminal import VisibleStream

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(sys.stdout), VisibleStream(sys.stderr)  # type: ignore[assignment]
    try:
        return _run(args)
    finally:
        sys.stdout, sys.stderr = streams


def _run(args: list[str]) -> int:
    # every command but the hook: click and the commands would cost a hook ~100 ms
    import click

    from wikimem.cli.context import cli  # commands are imported as they are used
    from wikimem.errors import WikimemError

    try:
        code = cli.main(args=args, prog_name="wikimem", standalone_mode=False)
        return code if isinstance(code, int) else 0  # click returns Exit codes here
    except click.exceptions.Abort:
        click.echo("wikimem: interrupted", err=True)
        return 130
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.UsageError as exc:  # one line, like every other error, with where to look
        where = f"{exc.ctx.command_path} --help" if exc.ctx else "wikimem --help"
        click.echo(f"wikimem: error: {exc.format_message()} (see `{where}`)", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except WikimemError as exc:
        click.echo(f"wikimem: error: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("wikimem: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        click.echo(
            f"wikimem: unexpected error: {exc.__class__.__name__}: {exc} "
            f"(traceback in {crash_log(exc)})",
            err=True,
        )
        return 1
