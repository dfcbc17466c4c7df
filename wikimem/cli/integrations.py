"""Commands that connect wikimem to agent runners and other machines: install, uninstall,
start (the SessionStart hook), mcp, sync."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click

from wikimem import config
from wikimem.cli.context import Ctx, cli, emit_json, json_option, pass_ctx, warn, workspace_option
from wikimem.lifecycle.sync import sync as do_sync
from wikimem.providers import wiki_only
from wikimem.runners.install import (
    CODEX_HOOKS,
    codex_version,
    drop_git_exclusion,
    entry_point,
    keep_out_of_git,
    moving_reason,
    tracked_in_git,
)
from wikimem.runners.install import install_claude as do_install
from wikimem.runners.install import install_codex as install_codex_hooks
from wikimem.runners.install import install_copilot as install_copilot_hooks
from wikimem.runners.install import install_cursor as install_cursor_hooks
from wikimem.runners.install import install_gemini as install_gemini_hooks
from wikimem.runners.install import install_opencode as install_opencode_plugin
from wikimem.runners.install import uninstall_claude as do_uninstall
from wikimem.runners.install import uninstall_codex as uninstall_codex_hooks
from wikimem.runners.install import uninstall_copilot as uninstall_copilot_hooks
from wikimem.runners.install import uninstall_cursor as uninstall_cursor_hooks
from wikimem.runners.install import uninstall_gemini as uninstall_gemini_hooks
from wikimem.runners.install import uninstall_opencode as uninstall_opencode_plugin


@cli.group()
def install() -> None:
    """Install wikimem's hooks into an agent runner's settings (idempotent)."""


@cli.group()
def uninstall() -> None:
    """Remove what `wikimem install` added to an agent runner's settings."""


def settings_options(project_help: str, user_help: str) -> Any:
    """--settings, --project (the default) and --user for a runner whose hooks live in a
    settings.json: the decorator every such install and uninstall command takes."""

    def decorate(func: Any) -> Any:
        for option in reversed(
            [
                click.option(
                    "--settings",
                    "settings_path",
                    type=click.Path(dir_okay=False, path_type=Path),
                    help="The settings file to edit (overrides --project/--user).",
                ),
                click.option(
                    "--project", "scope", flag_value="project", default=True, help=project_help
                ),
                click.option("--user", "scope", flag_value="user", help=user_help),
                workspace_option,
            ]
        ):
            func = option(func)
        return func

    return decorate


claude_options = settings_options(
    "The workspace's .claude/settings.local.json, Claude Code's per-person "
    "file beside the shared settings.json (default).",
    "$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json: all your projects.",
)
gemini_options = settings_options(
    "The workspace's .gemini/settings.json (default).",
    "~/.gemini/settings.json: all your projects.",
)


def codex_options(func: Any) -> Any:
    func = workspace_option(func)
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="The config.toml to edit (default: $CODEX_HOME/config.toml, else "
        "~/.codex/config.toml); the SessionStart hook goes in hooks.json beside it.",
    )(func)


COMMAND_OPTION = click.option(
    "--command",
    "command",
    metavar="CMD",
    help="The wikimem the runner should run, e.g. `wikimem` to rely on PATH (default: the "
    "absolute path of this wikimem, so the hooks run without its venv).",
)


# A project's hook files (--project, the default) are written only inside a workspace
# (`ctx.found`: exit 1 elsewhere): hooks in a loose folder would record nothing. --user and an
# explicit file work anywhere.


def claude_settings(ctx: Ctx, settings_path: Path | None, scope: str) -> Path:
    if settings_path is not None:
        return settings_path
    if scope == "project":
        return ctx.found.workspace / ".claude" / "settings.local.json"
    folder = config.environ().get("CLAUDE_CONFIG_DIR")
    return (Path(folder).expanduser() if folder else Path.home() / ".claude") / "settings.json"


def gemini_settings(ctx: Ctx, settings_path: Path | None, scope: str) -> Path:
    if settings_path is not None:
        return settings_path
    if scope == "project":
        return ctx.found.workspace / ".gemini" / "settings.json"
    return Path.home() / ".gemini" / "settings.json"


def codex_config(config_path: Path | None) -> Path:
    if config_path is not None:
        return config_path
    home = config.environ().get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "config.toml"


def chosen_entry(command: str | None) -> list[str]:
    return shlex.split(command) if command else entry_point()


def warn_if_moving(ctx: Ctx, entry: list[str]) -> None:
    """After an install that wrote something: say when the command written may move."""
    reason = moving_reason(entry, ctx.places.workspace)
    if reason:
        warn(
            f"warning: {reason}; if it moves or is removed the hooks stop working. A tool "
            "install from a clone of wikimem (`pipx install .` or `uv tool install .` in it) has "
            "a stable path; run the install again from there."
        )


def say_written(path: Path, written: dict[str, str]) -> None:
    if not written:
        click.echo(f"already installed in {path}")
        return
    click.echo(f"wrote {path}:")
    for key, value in written.items():
        click.echo(f"  {key}: {value}")


@install.command("claude")
@claude_options
@COMMAND_OPTION
@pass_ctx
def install_claude(ctx: Ctx, settings_path: Path | None, scope: str, command: str | None) -> None:
    """Record each Claude Code turn (Stop, StopFailure, SessionEnd, PreCompact, PostCompact:
    `wikimem hook`), give each session the memory's context when it starts (SessionStart:
    `wikimem start`) and what memory knows on each prompt and failed shell command
    (UserPromptSubmit, PostToolUseFailure: `wikimem deliver`). The project's
    settings.local.json is listed in .git/info/exclude."""
    path = claude_settings(ctx, settings_path, scope)
    entry = chosen_entry(command)
    say_written(path, do_install(path, entry))
    if settings_path is None and scope == "project":
        keep_private(ctx, path, warn_tracked=False)
    warn_if_moving(ctx, entry)


def keep_private(ctx: Ctx, path: Path, warn_tracked: bool) -> None:
    """List a project's hook file, which holds this machine's path, in .git/info/exclude; when
    git tracks it already, say so if `warn_tracked` (a hook was written with that path)."""
    exclude = keep_out_of_git(ctx.places.workspace, path)
    if exclude is not None:
        click.echo(f"  kept out of git (it holds this machine's path): listed in {exclude}")
    elif warn_tracked and tracked_in_git(ctx.places.workspace, path):
        warn(
            f"warning: git tracks {path}, and the hook written holds this machine's path; "
            "commit it only with `--command wikimem` (wikimem on PATH), or install with "
            "--user instead."
        )


def uninstalled(ctx: Ctx, path: Path, removed: list[str], project: bool) -> None:
    """Say what an uninstall removed; a project file no longer needs its git exclusion."""
    if project:
        drop_git_exclusion(ctx.places.workspace, path)
    click.echo(
        f"removed {', '.join(removed)} from {path}" if removed else f"nothing to remove in {path}"
    )


@uninstall.command("claude")
@claude_options
@pass_ctx
def uninstall_claude(ctx: Ctx, settings_path: Path | None, scope: str) -> None:
    """Remove wikimem's hooks from Claude Code's settings; other hooks stay."""
    path = claude_settings(ctx, settings_path, scope)
    uninstalled(ctx, path, do_uninstall(path), project=settings_path is None and scope == "project")


@install.command("codex")
@codex_options
@COMMAND_OPTION
@pass_ctx
def install_codex(ctx: Ctx, config_path: Path | None, command: str | None) -> None:
    """Record each Codex turn (its `notify` program: `wikimem hook`), the turns so far before
    and after a compaction (PreCompact, PostCompact) and give each session the memory's context
    when it starts (SessionStart: `wikimem start`), the hooks in hooks.json beside config.toml.
    Asks `codex --version`: before 0.130 Codex runs hooks only with [features] codex_hooks =
    true, which install then sets; from 0.130 hooks run by default and the line only warns."""
    path = codex_config(config_path)
    hooks = path.parent / "hooks.json"
    entry = chosen_entry(command)
    version = codex_version()
    written = install_codex_hooks(path, hooks, entry, version)
    shown = ".".join(map(str, version)) if version else ""
    if not written:
        click.echo(f"already installed in {path} and {hooks}")
    if "notify" in written:
        say_written(path, {"notify": written["notify"]})
    if written.get("features.codex_hooks") == "true":
        say_written(path, {"features.codex_hooks": "true"})
        click.echo(f"  Codex {shown} runs hooks.json only with it (0.130 and later need no line).")
    elif written.get("features.codex_hooks") == "removed":
        click.echo(
            f"removed the [features] codex_hooks line an earlier install wrote in {path}: "
            f"Codex {shown} runs hooks by default and warns about the line at every start"
        )
    if version is None:
        click.echo(
            "  `codex --version` did not answer: Codex 0.130 and later run these hooks by "
            f"default; an older one needs [features] codex_hooks = true in {path}."
        )
    events = {k: v for k, v in written.items() if k in CODEX_HOOKS}
    if events:
        say_written(hooks, events)
        click.echo("  Codex asks you to trust a new hook once: open /hooks in Codex to review it.")
    warn_if_moving(ctx, entry)


@uninstall.command("codex")
@codex_options
def uninstall_codex(config_path: Path | None) -> None:
    """Remove wikimem's `notify`, hooks and codex_hooks line from Codex's configuration."""
    path = codex_config(config_path)
    removed = uninstall_codex_hooks(path, path.parent / "hooks.json")
    where = f"{path} and {path.parent / 'hooks.json'}"
    click.echo(
        f"removed {', '.join(removed)} from {where}" if removed else f"nothing to remove in {where}"
    )


@install.command("gemini")
@gemini_options
@COMMAND_OPTION
@pass_ctx
def install_gemini(ctx: Ctx, settings_path: Path | None, scope: str, command: str | None) -> None:
    """Record each Gemini CLI turn (AfterAgent: `wikimem hook`), and the turns no AfterAgent
    reported at a compression or the session's end (PreCompress, SessionEnd); give each session
    the memory's context when it starts (SessionStart: `wikimem start`), and what memory knows
    on each prompt and failed shell command (BeforeAgent, AfterTool: `wikimem deliver`). The
    project's
    .gemini/settings.json is listed in .git/info/exclude unless git tracks it."""
    path = gemini_settings(ctx, settings_path, scope)
    entry = chosen_entry(command)
    written = install_gemini_hooks(path, entry)
    say_written(path, written)
    if settings_path is None and scope == "project":
        keep_private(ctx, path, warn_tracked=bool(written) and command is None)
    warn_if_moving(ctx, entry)


@uninstall.command("gemini")
@gemini_options
@pass_ctx
def uninstall_gemini(ctx: Ctx, settings_path: Path | None, scope: str) -> None:
    """Remove wikimem's hooks from Gemini CLI's settings; other hooks stay."""
    path = gemini_settings(ctx, settings_path, scope)
    uninstalled(
        ctx,
        path,
        uninstall_gemini_hooks(path),
        project=settings_path is None and scope == "project",
    )


cursor_options = settings_options(
    "The workspace's .cursor/hooks.json (default).",
    "~/.cursor/hooks.json: all your projects (each hook goes to $CURSOR_PROJECT_DIR first).",
)


def cursor_hooks_file(ctx: Ctx, settings_path: Path | None, scope: str) -> Path:
    if settings_path is not None:
        return settings_path
    if scope == "project":
        return ctx.found.workspace / ".cursor" / "hooks.json"
    return Path.home() / ".cursor" / "hooks.json"


@install.command("cursor")
@cursor_options
@COMMAND_OPTION
@pass_ctx
def install_cursor(ctx: Ctx, settings_path: Path | None, scope: str, command: str | None) -> None:
    """Record each Cursor agent turn: its prompt, shell commands, file edits and reply
    (beforeSubmitPrompt, afterShellExecution, afterFileEdit, afterAgentResponse: `wikimem
    hook`) become one run when it stops (stop), and turns no stop reported are recorded at a
    compaction or the session's end (preCompact, sessionEnd); give each session the memory's
    context when it starts (sessionStart: `wikimem start`). The project's .cursor/hooks.json is
    listed in .git/info/exclude unless git tracks it."""
    path = cursor_hooks_file(ctx, settings_path, scope)
    entry = chosen_entry(command)
    written = install_cursor_hooks(path, entry, user=settings_path is None and scope == "user")
    say_written(path, written)
    if settings_path is None and scope == "project":
        keep_private(ctx, path, warn_tracked=bool(written) and command is None)
    warn_if_moving(ctx, entry)


@uninstall.command("cursor")
@cursor_options
@pass_ctx
def uninstall_cursor(ctx: Ctx, settings_path: Path | None, scope: str) -> None:
    """Remove wikimem's hooks from Cursor's hooks.json; other hooks stay."""
    path = cursor_hooks_file(ctx, settings_path, scope)
    uninstalled(
        ctx,
        path,
        uninstall_cursor_hooks(path),
        project=settings_path is None and scope == "project",
    )


copilot_options = settings_options(
    "The repository's .github/hooks/wikimem.json, which Copilot CLI and the coding agent read "
    "(default; commit it).",
    "$COPILOT_HOME/hooks/wikimem.json, else ~/.copilot/hooks/wikimem.json: Copilot CLI in all "
    "your projects.",
)


def copilot_file(ctx: Ctx, settings_path: Path | None, scope: str) -> Path:
    if settings_path is not None:
        return settings_path
    if scope == "project":
        return ctx.found.workspace / ".github" / "hooks" / "wikimem.json"
    home = config.environ().get("COPILOT_HOME")
    folder = Path(home).expanduser() if home else Path.home() / ".copilot"
    return folder / "hooks" / "wikimem.json"


@install.command("copilot")
@copilot_options
@COMMAND_OPTION
@pass_ctx
def install_copilot(ctx: Ctx, settings_path: Path | None, scope: str, command: str | None) -> None:
    """Record each GitHub Copilot turn (agentStop: `wikimem hook`), and the turns no agentStop
    reported when the next prompt, a compaction, the session's end or its resumption closes
    them (userPromptSubmitted, preCompact, sessionEnd, sessionStart). The project's file is
    meant to be committed, so it runs `wikimem` from PATH (the coding agent's environment needs
    it installed: see docs/integrations.md); --user writes this wikimem's absolute path. Copilot
    ignores session-start output, so the project install puts the memory's profile in
    .github/copilot-instructions.md, between markers each pass rewrites."""
    path = copilot_file(ctx, settings_path, scope)
    shared = settings_path is None and scope == "project"
    entry = shlex.split(command) if command else (["wikimem"] if shared else entry_point())
    say_written(path, install_copilot_hooks(path, entry))
    if shared:
        from wikimem.wiki.instructions import add

        instructions = add(ctx.places.workspace, ctx.places.wiki)
        if instructions is not None:
            click.echo(f"  the memory's profile, kept in step at each pass: {instructions}")
        import shutil

        if Path(entry[0]).is_absolute():
            warn(f"warning: {path} is meant to be committed, and it now holds this machine's path")
        elif shutil.which(entry[0]) is None:
            warn(
                f"warning: `{entry[0]}` is not on PATH here, so Copilot cannot run these hooks; "
                "install wikimem as a tool (docs/integrations.md), or use --user"
            )
        click.echo(
            "  commit it for the coding agent (it reads the default branch's .github/hooks/), "
            "with wikimem installed in .github/workflows/copilot-setup-steps.yml"
        )
    warn_if_moving(ctx, entry)


@uninstall.command("copilot")
@copilot_options
@pass_ctx
def uninstall_copilot(ctx: Ctx, settings_path: Path | None, scope: str) -> None:
    """Remove wikimem's hooks from Copilot's hooks file; other hooks stay."""
    path = copilot_file(ctx, settings_path, scope)
    uninstalled(ctx, path, uninstall_copilot_hooks(path), project=False)
    if settings_path is None and scope == "project":
        from wikimem.wiki.instructions import instructions_file, remove

        if remove(ctx.places.workspace):
            click.echo(
                f"removed the memory's profile from {instructions_file(ctx.places.workspace)}"
            )


def opencode_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--plugin",
                "plugin_path",
                type=click.Path(dir_okay=False, path_type=Path),
                help="The plugin file to write (overrides --project/--user).",
            ),
            click.option(
                "--project",
                "scope",
                flag_value="project",
                default=True,
                help="The workspace's .opencode/plugins/wikimem.js (default).",
            ),
            click.option(
                "--user",
                "scope",
                flag_value="user",
                help="$XDG_CONFIG_HOME/opencode/plugins/wikimem.js, else under ~/.config: all "
                "your projects.",
            ),
            workspace_option,
        ]
    ):
        func = option(func)
    return func


def opencode_plugin(ctx: Ctx, plugin_path: Path | None, scope: str) -> Path:
    if plugin_path is not None:
        return plugin_path
    if scope == "project":
        return ctx.found.workspace / ".opencode" / "plugins" / "wikimem.js"
    folder = config.environ().get("XDG_CONFIG_HOME")
    base = Path(folder).expanduser() if folder else Path.home() / ".config"
    return base / "opencode" / "plugins" / "wikimem.js"


def opencode_context(ctx: Ctx, plugin_path: Path | None, scope: str) -> tuple[Path, Path] | None:
    """The project's context file and the OpenCode config whose `instructions` list it; None
    for --user or --plugin (no one project to give context for)."""
    if plugin_path is not None or scope != "project":
        return None
    folder = ctx.found.workspace / ".opencode"
    return folder / "wikimem-context.md", folder / "opencode.json"


@install.command("opencode")
@opencode_options
@COMMAND_OPTION
@pass_ctx
def install_opencode(ctx: Ctx, plugin_path: Path | None, scope: str, command: str | None) -> None:
    """Record each OpenCode 1.x turn: a plugin that, when a session goes idle or is compacted
    (session.idle, session.compacted), hands the session's messages to `wikimem hook`, which
    records every turn not recorded yet (prompt, bash commands with exit codes, edits, reply).
    OpenCode takes no context from a plugin's event, so for a project the plugin also writes
    `wikimem start`'s context to .opencode/wikimem-context.md when OpenCode starts and when a
    session is created, and .opencode/opencode.json lists that file in its `instructions`. The
    project's files are listed in .git/info/exclude unless git tracks them."""
    path = opencode_plugin(ctx, plugin_path, scope)
    entry = chosen_entry(command)
    context = opencode_context(ctx, plugin_path, scope)
    written = install_opencode_plugin(path, entry, *(context or (None, None)))
    hook = shlex.join([*entry, "hook"])
    say_written(path, {"session.idle, session.compacted": hook} if str(path) in written else {})
    if context is not None:
        if str(context[1]) in written:
            click.echo(f"wrote {context[1]}:\n  instructions: {context[0]}")
        for file in (path, *context):
            exclude = keep_out_of_git(ctx.places.workspace, file)
            if exclude is not None:
                click.echo(f"  kept out of git (it holds this machine's path): {file.name}")
        if str(context[1]) in written and tracked_in_git(ctx.places.workspace, context[1]):
            warn(
                f"warning: git tracks {context[1]}; its new instructions entry names this "
                "machine's path"
            )
    click.echo("  OpenCode loads plugins when it starts: restart it to load this one.")
    warn_if_moving(ctx, entry)


@uninstall.command("opencode")
@opencode_options
@pass_ctx
def uninstall_opencode(ctx: Ctx, plugin_path: Path | None, scope: str) -> None:
    """Remove wikimem's OpenCode plugin, its context file and instructions entry (a plugin file
    there that is not wikimem's stays)."""
    path = opencode_plugin(ctx, plugin_path, scope)
    context = opencode_context(ctx, plugin_path, scope)
    removed = ["the plugin"] if uninstall_opencode_plugin(path, *(context or (None, None))) else []
    for file in context or ():
        drop_git_exclusion(ctx.places.workspace, file)
    uninstalled(ctx, path, removed, project=plugin_path is None and scope == "project")


@cli.command()
@click.option(
    "--runner",
    type=click.Choice(["claude", "codex", "gemini", "cursor", "opencode"]),
    help="The runner whose hook calls this: its output cap bounds the budget "
    "(Claude Code about 10,000 characters, Codex 2,500 tokens); for gemini the context is "
    "printed as the JSON Gemini CLI takes (hookSpecificOutput.additionalContext), for cursor "
    "as Cursor's (additional_context).",
)
@click.option(
    "--source",
    metavar="SOURCE",
    help="How the session started (startup, resume, clear, compact); default: the payload's "
    "`source`. A resumed session gets hook.resume_budget, any other hook.start_budget.",
)
@click.option("--budget", type=click.IntRange(min=0), metavar="CHARS", help="Override the budget.")
@click.option("--query", metavar="TEXT", help="Also look for entries relevant to TEXT.")
@click.option("--json", "as_json", is_flag=True, help="The context and what was left out, as JSON.")
@workspace_option
@pass_ctx
def start(
    ctx: Ctx,
    runner: str | None,
    source: str | None,
    budget: int | None,
    query: str | None,
    as_json: bool,
) -> None:
    """Print the context a session starts with (what a runner's SessionStart hook runs):
    PROFILE.md's summary, then the entries the branch, the newest run's task or --query point
    to, then the strongest entries (a person's first), each marked with where it came from,
    leaving out any whose citations `wikimem verify` finds broken. Reads the hook's JSON on
    stdin; prints nothing when memory is off, paused or empty, and never fails."""
    from wikimem.cli.start import fast_start

    args = ["-C", str(ctx.places.workspace)]
    for name, value in (("--runner", runner), ("--source", source), ("--query", query)):
        if value:
            args += [name, value]
    if budget is not None:
        args += ["--budget", str(budget)]
    fast_start(args + (["--json"] if as_json else []))


@cli.command()
@click.option(
    "--runner",
    type=click.Choice(["claude", "codex", "gemini"]),
    help="The runner whose hook calls this (recorded in the injection log).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    metavar="CHARS",
    help="Override recall.budget.",
)
@workspace_option
@pass_ctx
def deliver(ctx: Ctx, runner: str | None, budget: int | None) -> None:
    """Answer a prompt or a failed shell command with what memory knows (what a runner's
    UserPromptSubmit and PostToolUse/PostToolUseFailure hooks run): reads the hook's JSON on
    stdin and prints, as hookSpecificOutput.additionalContext, the few entries the prompt's
    words or the failure's command and error point to, within recall.budget, each named
    PATH#ENTRY. Prints nothing when nothing is relevant (the common case); never fails.
    Each delivery is logged under .clarvis/state/injections/."""
    from wikimem.cli.deliver import fast_deliver

    args = ["-C", str(ctx.places.workspace)]
    if runner:
        args += ["--runner", runner]
    if budget is not None:
        args += ["--budget", str(budget)]
    fast_deliver(args)


@cli.command()
@click.option(
    "--allow-write",
    is_flag=True,
    help="Also offer memory_remember, which queues a memory like any run "
    "(policy and validation apply). Without it the server is read-only.",
)
@click.option(
    "--agent-id",
    metavar="ID",
    help="Instance id recorded for memories this server queues (default: "
    "WIKIMEM_AGENT_ID, else the client's name and version).",
)
@workspace_option
@pass_ctx
def mcp(ctx: Ctx, allow_write: bool, agent_id: str | None) -> None:
    """Serve this workspace's memory to MCP clients over stdio: memory_search, memory_show,
    memory_context and memory_timeline (read-only), and memory_remember with --allow-write.
    Under another memory provider the reads go to it, and memory_timeline is not offered."""
    # the MCP SDK is an optional extra, and importing it costs every other command
    from wikimem.providers.tools import memory_for
    from wikimem.recall.mcp_server import serve

    agent = agent_id or config.environ().get("WIKIMEM_AGENT_ID") or None
    serve(memory_for(ctx.places, ctx.settings, agent), allow_write=allow_write)


@cli.command()
@click.option(
    "--remote",
    "url",
    metavar="URL",
    help="Set the wiki's remote (setting wiki.remote, default origin) to URL first.",
)
@json_option
@workspace_option
@pass_ctx
def sync(ctx: Ctx, url: str | None, as_json: bool) -> None:
    """Share the wiki through its git remote: fetch, rebuild wikimem's commits on top of the
    remote's (leaves merged entry by entry, TOPIC.md and PROFILE.md regenerated), push.

    The history stays linear. With `wiki.push = true` every pass does this after committing.
    """
    wiki_only(ctx.settings, "wikimem sync")
    done = do_sync(ctx.places, ctx.settings, url=url)
    if as_json:
        emit_json(
            {
                "remote": done.remote,
                "branch": done.branch,
                "head": done.head,
                "pushed": done.pushed,
                "received": done.received,
                "attempts": done.attempts,
                "merged": list(done.merged),
                "conflicts": list(done.conflicts),
            }
        )
    else:
        click.echo(done.line())
