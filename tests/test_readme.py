"""The docs stay true: docs/commands.md is `--help`, docs/configuration.md's table is config's,
and the README keeps its two set-up commands and stays a short front door.

Run `WIKIMEM_UPDATE_README=1 python -m pytest tests/test_readme.py` to regenerate both sections.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from wikimem import config
from wikimem.cli.app import cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GENERATED = {
    "cli-reference": ROOT / "docs" / "commands.md",
    "settings": ROOT / "docs" / "configuration.md",
}


def command_help(
    command: click.Command, name: str, parent: click.Context | None = None
) -> list[tuple[str, str]]:
    """Help exactly as `wikimem ... --help` prints it: each context has its real parent, so
    settings a group passes down (the -h alias, the width) apply as they do for a person."""
    settings = {"terminal_width": 100, "max_content_width": 100, **command.context_settings}
    ctx = click.Context(command, info_name=name, parent=parent, **settings)
    found = [(ctx.command_path, command.get_help(ctx))]
    if isinstance(command, click.Group):
        for sub_name in sorted(command.list_commands(ctx)):
            sub = command.get_command(ctx, sub_name)
            if sub is not None and not sub.hidden:
                found.extend(command_help(sub, sub_name, ctx))
    return found


def cli_reference() -> str:
    parts = []
    for name, text in command_help(cli, "wikimem")[1:]:
        parts.append(f"### `{name}`\n\n```text\n{text.rstrip()}\n```\n")
    return "\n".join(parts)


def settings_table() -> str:
    rows = []
    for key, (default, _, meaning) in sorted(config.SETTINGS.items()):
        shown = ", ".join(default) if isinstance(default, tuple) else default
        if isinstance(shown, bool):
            shown = str(shown).lower()
        shown = "(none)" if shown in (None, "") else f"`{shown}`"
        rows.append(f"| `{key}` | {shown} | {meaning} |")
    return "\n".join(rows)


def section(text: str, name: str) -> re.Match[str]:
    match = re.search(rf"(<!-- {name}:begin -->\n)(.*?)(<!-- {name}:end -->)", text, re.S)
    assert match, f"README lacks the {name} markers"
    return match


def test_docs_match_help_and_settings() -> None:
    wanted = {"cli-reference": cli_reference(), "settings": settings_table()}
    for name, body in wanted.items():
        path = GENERATED[name]
        text = path.read_text(encoding="utf-8")
        if os.environ.get("WIKIMEM_UPDATE_README"):
            match = section(text, name)
            text = text[: match.end(1)] + body.rstrip("\n") + "\n" + text[match.start(3) :]
            path.write_text(text, encoding="utf-8")
        assert section(text, name).group(2).strip() == body.strip(), (
            f"{path.name} section {name} is stale: WIKIMEM_UPDATE_README=1 python -m pytest "
            "tests/test_readme.py"
        )


def test_readme_is_a_front_door_whose_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        body = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#:]+\.md|[^)#:]*\.clarvis/[^)#]*)(?:#[^)]*)?\)", body):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_readme_setup_commands_are_the_ci_commands() -> None:
    text = README.read_text(encoding="utf-8")
    commands = re.findall(r"```sh\n(python3 -m venv .*)\n```", text)
    assert len(commands) == 2, "the README gives exactly two set-up commands"
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    test_command = commands[1].split("&& ", 2)[2]  # after creating and activating the venv
    assert test_command in ci
    assert "wikimem demo" in commands[0]


def test_exit_codes_and_lint_rules_are_documented_once() -> None:
    from wikimem.wiki.lint import RULES

    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    outside = text[: section(text, "cli-reference").start()]
    assert outside.count("## Exit codes") == 1 and "| 130 |" in outside
    assert re.findall(r"`([a-z][a-z0-9-]*)`", outside.split("each line):", 1)[1]) == list(RULES)
    # every command that offers --json says so in the table's introduction
    for name in ("lint", "config get", "listen --status", "show", "log", "context"):
        assert f"`{name}`" in outside


def test_every_read_command_speaks_json() -> None:
    """A command that only reads takes --json (the exit-code table's promise)."""
    # commands that change something or serve, and schema and export, whose output is JSON
    exempt = {
        "config set", "config unset", "demo", "export", "forget", "hook", "index", "init",
        "install", "install claude", "install codex", "install gemini", "mcp", "pause", "purge",
        "queue approve", "queue drop", "queue retry", "restore", "resume", "schema", "undo",
        "uninstall", "uninstall claude", "uninstall codex", "uninstall gemini", "completion",
        "review approve", "review drop", "review edit", "serve", "deliver", "",
        "install cursor", "uninstall cursor", "install opencode", "uninstall opencode",
        "install copilot", "uninstall copilot",
    }  # fmt: skip
    without = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
        flags = {flag for param in command.params for flag in getattr(param, "opts", [])}
        if " ".join(path) not in exempt and "--json" not in flags:
            without.append(" ".join(path))

    walk(cli, [])
    assert not without, without
