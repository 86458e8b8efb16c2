"""What every `sim` command shares: exit codes, the two ways to stop (`fail`, `usage`), the
seed check, config loading, and the options several commands take, declared once here as
typer `Annotated` types. Only typer is imported, so --help stays instant."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

USAGE = 2  # the exit code of a command line that cannot be run as given
FAILURE = 1  # the exit code of a command that was understood but failed
IN_MEMORY = 5_000_000  # games bench and solo hold at once: about 160 bytes each


# --- options several commands take -----------------------------------------------------------

Config = Annotated[str, typer.Option(help="Config name or .toml path")]
Seed = Annotated[int, typer.Option(help="Master seed, 0..2**64-1")]
Set = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Derive the config without a file: rules.OPTION=VALUE or deck.KIND[.AXIS]=COUNT "
        "(0 removes the card), repeatable; named e.g. base+run_capacity=5",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Machine-readable, to stdout")]
Csv = Annotated[
    bool, typer.Option("--csv", help="The main table as CSV, to stdout (for a spreadsheet)")
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display (cron)")]
Margin = Annotated[
    float,
    typer.Option(
        help="Points either side of 50% that count as balanced: a verdict says balanced "
        "when the 95% interval lies within it (an equivalence test, TOST)"
    ),
]
Workers = Annotated[int | None, typer.Option(help="Processes \\[default: all cores]", min=1)]
Backend = Annotated[str, typer.Option(help="local or dask")]
Scheduler = Annotated[str | None, typer.Option(help="Dask scheduler tcp://HOST:PORT")]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace a different run in --out")]

DecisionTimeout = Annotated[
    float,
    typer.Option(
        help="Seconds a Python strategy may spend in one call (a decision, __init__, "
        "start_game, end_game) before the run stops with its failure; 0: no limit. "
        "Not enforced on the dask backend",
        min=0,
        max=86_400,  # a day; the timer takes no more than the platform's time_t
    ),
]


def fail(message: str) -> NoReturn:
    """One clear line on stderr and exit 1: a command understood but failed (a file that
    cannot be used, a run that stops)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(FAILURE)


def usage(message: str) -> NoReturn:
    """One clear line on stderr and exit 2: an option's value the command cannot take."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(USAGE)


def one_format(**chosen: bool) -> None:
    """At most one output format (e.g. as_json=..., csv=...), or a usage error naming them."""
    given = [f"--{name.removeprefix('as_').replace('_', '-')}" for name, on in chosen.items() if on]
    if len(given) > 1:
        usage(f"choose one of {', '.join(given[:-1])} and {given[-1]}")


def checked_seed(seed: int) -> int:
    """A seed in the one range every command takes (64-bit words), or a usage error."""
    from sim.runner.plan import UsageError, check_numbers

    try:
        check_numbers(seed=seed)
    except UsageError as exc:
        usage(str(exc))
    return seed


def check_backend(backend: str, scheduler: str | None) -> None:
    """--backend and --scheduler as every command that plays through the runner takes them."""
    import importlib.util

    if backend not in ("local", "dask"):
        usage(f"--backend {backend!r}: expected local or dask")
    if backend == "dask" and not scheduler:
        usage("--backend dask needs --scheduler tcp://HOST:PORT")
    if backend == "dask" and importlib.util.find_spec("dask") is None:
        fail("--backend dask needs dask: pip install -e '.[cluster]'")


def load_config(name: str, overlay: list[str] | None = None):
    """The config by name or path (a derived config's name too: base+run_capacity=5),
    derived with the --set items; a file that cannot be used exits 1, a change that cannot
    be applied 2."""
    from sim.model.config import ConfigError
    from sim.model.overlay import OverlayError, derive, load

    try:
        config = derive(load(name), overlay or ())
    except OverlayError as exc:
        usage(str(exc))
    except ConfigError as exc:
        fail(str(exc))
    for warning in config.warnings:
        typer.echo(f"warning: {warning}", err=True)
    return config


def claim_folder(out, state_file: str, state: dict, what: str, verb: str) -> None:
    """out holds this `what` (its state_file records state) or nothing, and then gets the
    state file: another `what`, or a folder holding something else, is refused (exit 1)."""
    import json

    from sim.model.documents import parse_json

    state = json.loads(json.dumps(state))  # as the file reads back
    path = out / state_file
    elsewhere = f"{verb} into another --out DIR"
    if path.exists():
        try:
            old = parse_json(path.read_text())
        except (OSError, ValueError) as exc:
            fail(f"{path}: unreadable ({exc}); {elsewhere}")
        changed = [k for k in state if old.get(k) != state[k]]
        if changed:
            fail(f"{out} holds another {what} ({', '.join(changed)} differ); {elsewhere}")
        return
    if out.exists() and any(out.iterdir()):
        fail(f"{out} is not empty and holds no {what} ({state_file}); {elsewhere}")
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=1) + "\n")
