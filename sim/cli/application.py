"""The `sim` app: its commands, registered here in the order `sim --help` lists them, and
how it reports typer's own usage errors. Each command lives in the module of its group."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from sim.cli import analysis, configs, history, play, rules, runs, show, skill, strategies, tune
from sim.cli.common import FAILURE


class SimGroup(TyperGroup):
    """typer's own usage errors (unknown option, bad number) as one `error:` line, exit 2,
    like sim's own option checks (usage) instead of typer's boxed report."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(FAILURE)
        except click_exception() as exc:
            sys.exit(_report_click_error(exc))
        sys.exit(code if isinstance(code, int) else 0)


def click_exception() -> type[Exception]:
    """The ClickException class typer raises (typer vendors its own click)."""
    from typer import _click

    return _click.exceptions.ClickException


def _report_click_error(exc) -> int:
    """Print a click error as one line naming the --help to read; its exit code. A bare
    group (`sim`, `sim configs`) has printed its help instead: nothing to add."""
    message = " ".join(exc.format_message().split())
    if not message:
        return exc.exit_code
    context = getattr(exc, "ctx", None)
    hint = f" (see {context.command_path} --help)" if context is not None else ""
    typer.echo(f"error: {message}{hint}", err=True)
    return exc.exit_code


def _shown_type(original):
    """typer's type column without its placeholders: none for a flag, which takes no value
    (typer prints <bool>), and <str>... for a repeatable value (not <list[str]>)."""

    def shown(self, ctx) -> str | None:
        if getattr(self, "is_flag", False):
            return None
        text = original(self, ctx)
        if text and text.startswith("<list[") and text.endswith("]>"):
            return f"<{text[6:-2].lower()}>..."
        return text

    return shown


def _hide_placeholders() -> None:
    """The one place sim changes typer's internals: the type column of --help (tested in
    tests/cli/test_cli.py)."""
    for param in (TyperOption, TyperArgument):
        if not getattr(param.display_type_rich, "sim_shown", False):
            param.display_type_rich = _shown_type(param.display_type_rich)
            param.display_type_rich.sim_shown = True


_hide_placeholders()

app = typer.Typer(
    cls=SimGroup,
    help="Simulate and analyse the card game One Zero One (rules: docs/RULES.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from sim.runner.provenance import source_hash

        try:
            number = version("one-zero-one-sim")
        except PackageNotFoundError:
            number = "(not installed)"
        typer.echo(f"sim {number} (source {source_hash()})")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print sim's version and exit"
        ),
    ] = False,
) -> None:
    """Simulate and analyse the card game One Zero One (rules: docs/RULES.md)."""


for command in (
    play.run, runs.summary, runs.compare, history.history, analysis.report, show.show,
    play.verify, play.bench, play.solo, skill.skill, skill.league, analysis.sprt,
    analysis.card_impact, tune.tune,
):  # fmt: skip
    app.command(command.__name__.replace("_", "-"))(command)
app.add_typer(configs.app, name="configs")
app.add_typer(rules.app, name="rules")
app.add_typer(strategies.app, name="strategies")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
