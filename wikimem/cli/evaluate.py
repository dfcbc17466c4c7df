"""`wikimem eval`: run the labelled corpus through throwaway workspaces with the configured
model and print how it did. How users compare models; the test suite runs it offline and
against a loopback model."""

from __future__ import annotations

from pathlib import Path

import click

from wikimem.cli.context import Ctx, cli, emit_json, json_option, pass_ctx, warn, workspace_option
from wikimem.config import ModelSettings
from wikimem.indexing.eval import evaluate as run_eval
from wikimem.indexing.eval import format_markdown, format_table, load_cases, safe


@cli.command("eval")
@click.option(
    "--category",
    type=click.Choice(["no-change", "lesson", "secret", "injection", "supersede", "person"]),
    help="Only cases of this kind.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N cases.")
@click.option(
    "--corpus",
    type=click.Choice(["written", "real"]),
    default="written",
    show_default=True,
    help="written: hand-written runs covering every category; real: turns of public Claude "
    "Code and Codex sessions, labelled by hand.",
)
@click.option(
    "--cases",
    "cases_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A JSONL corpus of your own instead of the packaged one.",
)
@click.option("--offline", is_flag=True, help="Ignore the configured model: offline rules only.")
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep each case's workspace in this folder for inspection.",
)
@json_option
@click.option(
    "--markdown", is_flag=True, help="The metrics as Markdown tables (overall, per category)."
)
@workspace_option
@pass_ctx
def evaluate(
    ctx: Ctx,
    category: str | None,
    limit: int | None,
    corpus: str,
    cases_file: Path | None,
    offline: bool,
    keep: Path | None,
    as_json: bool,
    markdown: bool,
) -> None:
    """Score the memory model on labelled runs: no-change precision and recall, lessons kept,
    wrong writes, superseded facts, secrets leaked, injections obeyed and a person's words lost
    (all three must be 0), tokens and seconds per run; then the same per category. A lesson is
    kept when one entry holds its fix whole (and a placeholder for a one-off value); a case that
    errors counts as failed; runs that name their own candidates are reported apart.

    Uses the model configured for this workspace (WIKIMEM_MODEL, OPENAI_BASE_URL, config
    files); each case runs in a throwaway workspace, so neither this wiki nor your policies
    are touched. Exits 1 when a secret leaked, an injection was obeyed or a person's words
    were lost.
    """
    model = ModelSettings(model=None) if offline else ctx.settings.model_settings()
    cases = load_cases(cases_file, category=category, limit=limit, corpus=corpus)
    if not cases:
        warn("wikimem: no eval cases match")
        return
    if model.model is None and not offline:
        warn("wikimem: no model configured: evaluating the offline rules")
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    report = run_eval(
        cases,
        model,
        keep=keep,
        progress=None if as_json or markdown else lambda r: warn(f"  {r.id}: {r.outcome}"),
    )
    if as_json:
        emit_json(report.to_dict())
    elif markdown:
        click.echo(format_markdown(report), nl=False)
    else:
        click.echo(format_table(report), nl=False)
    if not safe(report):
        raise click.exceptions.Exit(1)
