"""`wikimem completion SHELL`: the script that teaches a shell to complete wikimem's commands,
options and wiki paths (topics, leaves and, after `#`, a leaf's entries)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from wikimem.cli.context import Ctx, cli

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_WIKIMEM_COMPLETE"


def wiki_paths(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Topics and leaves of this workspace's wiki that start with `incomplete`; after `#`,
    the leaf's entry ids. Nothing (never an error) where there is no wiki."""
    # imported here: `show` and the other commands that name this callback load this module,
    # and click's completion machinery is wanted only when a shell asks for completions
    from click.shell_completion import CompletionItem

    from wikimem.wiki.pages import Wiki

    try:
        wiki = Wiki(ctx.ensure_object(Ctx).places.wiki)
        if "#" in incomplete:
            leaf, _, start = incomplete.partition("#")
            found = wiki.read_leaf(leaf)
            entries = found.page.entries if found is not None else []
            return [
                CompletionItem(f"{leaf}#{entry.id}", help=entry.title)
                for entry in entries
                if entry.id.startswith(start)
            ]
        refs = sorted({ref for leaf in wiki.leaves() for ref in (leaf.split("/")[0], leaf)})
    except Exception:  # completion must never print a traceback into a person's shell
        return []
    return [CompletionItem(ref) for ref in refs if ref.startswith(incomplete)]


@cli.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the shell completion script for SHELL (commands, options, wiki paths).

    bash: `eval "$(wikimem completion bash)"` in ~/.bashrc; zsh: the same with zsh in ~/.zshrc;
    fish: `wikimem completion fish > ~/.config/fish/completions/wikimem.fish`.
    """
    from click.shell_completion import get_completion_class

    found = get_completion_class(shell)
    assert found is not None  # click knows every shell in SHELLS
    click.echo(found(cli, {}, "wikimem", COMPLETE_VAR).source())
