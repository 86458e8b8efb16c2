"""One game, turn by turn, in position notation (`sim show`): from a config, seed and
players, or a run folder's game (its seed derived as the run dealt it)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typer

from sim.engine.cards import DIR_SYMBOLS
from sim.engine.game import DRAW, R_OUTCOME, R_TIEBREAK_LINE, R_WINNER, record
from sim.engine.score import scores
from sim.model.config import Config
from sim.model.notation import MARK, legend, render_card
from sim.model.position import display_rows
from sim.play import batch as game
from sim.play.stepped import (
    OUTCOMES,
    Context,
    config_ref,
    drive,
    finish_game,
    seated_game,
    seats,
)
from sim.players.specs import Matchup, parse_matchup, read_matchup


def board_text(s) -> str:
    """Every line, empty ones too, so the board keeps its shape from turn to turn."""
    out = []
    for line, row in enumerate(display_rows(s)):
        tokens = ["." if x is None else ".*" if x == MARK else render_card(x, True) for x in row]
        run = "  (RUN)" if line == int(s.lines) - 1 else ""
        out.append(f"  {10 * (line + 1)}: {' '.join(tokens)}{run}".rstrip())
    return "\n".join(out)


def print_game(
    config: Config, seed: int, players: Matchup, swapped: bool = False, with_legend: bool = True
) -> np.record:
    """Play one game (A first, or B first when swapped, as in a run's pairs) and print it,
    after the notation's legend unless with_legend is False; its final state."""
    game_of = dealt(config, seed, players, swapped)
    s, first, where = game_of.s, game_of.first, game_of.where
    digit = int(s.first)
    swap = " (seats swapped: B first)" if swapped else ""
    typer.echo(f"config {config.name} ({config.hash}), seed {seed}, players {players.text}{swap}")
    typer.echo(f"first player: digit {digit} ({first.spec})")
    if with_legend:
        typer.echo(legend(config.kinds()))
    typer.echo(board_text(s))
    for turn in drive(s, game_of.strategies, game_of.context):
        hand = " ".join(render_card(c, False) for c in turn.hand) or "(empty)"
        hand = "no hand" if turn.cpu_card else hand
        zero, one = scores(s)
        typer.echo(
            f"\nturn {turn.number}: {turn.digit} ({where[turn.digit]}) holds {hand}; "
            f"{move_text(turn)}"
        )
        typer.echo(board_text(s))
        typer.echo(f"  score 0: {zero}  1: {one}")
    game_of.finish()
    zero, one = scores(s)
    ended = f"ended: {game.end_reason(s)} after {int(s.turns)} turns"
    result = winner_text(s, first.spec, game_of.second.spec)
    typer.echo(f"\n{ended}; score 0: {zero}  1: {one}; winner: {result}")
    return s


@dataclass
class Dealt:
    """A game set up for a replay: its state, seats, Python strategies and context."""

    arr: np.ndarray
    strategies: list
    context: Context
    first: object  # specs.Seat
    second: object

    @property
    def s(self):
        return self.arr[0]

    @property
    def where(self) -> dict[int, str]:
        digit = int(self.s.first)
        return {digit: "first", 1 - digit: "second"}

    def finish(self) -> np.ndarray:
        """The result row, telling Python strategies the end (end_game fails here as in a
        run)."""
        out, cards = game.result_buffers(1)
        finish_game(self.s, self.strategies, self.context, out[0], cards[0])
        return out[0]


def dealt(config: Config, seed: int, players: Matchup, swapped: bool) -> Dealt:
    """The game dealt and seated as a run's pair would play it (B first when swapped)."""
    context = Context(config_ref(config), seed, swapped, players.text)
    seat_a, seat_b = seats(config, players, seed, swapped)
    first, second = (seat_b, seat_a) if swapped else (seat_a, seat_b)
    level = players.cpu_level(config.rules.cpu_level)
    arr, strategies = seated_game(config, first, second, level, context)
    return Dealt(arr, strategies, context, first, second)


def move_text(turn) -> str:
    """What a turn did, in words and position notation: `plays 1P on 20 →`, `passes`, ..."""
    if turn.cpu_card:
        cards = "; ".join(
            f"{render_card(card, True)} on {10 * (line + 1)}" for card, line in turn.placed
        )
        return f"CPU card on {turn.cpu_card}: " + (cards or "places nothing")
    if turn.card is None:
        return "passes"
    move = f"plays {render_card(turn.card, False)} on {10 * (turn.line + 1)}"
    return move + (f" {DIR_SYMBOLS[turn.direction]}" if turn.direction else "")


def game_json(config: Config, seed: int, players: Matchup, swapped: bool = False) -> tuple:
    """Play one game as print_game does; (its JSON document, its final state): every turn's
    mover, move and the scores after it, then the result (docs/designer-guide.md)."""
    game_of = dealt(config, seed, players, swapped)
    s, where = game_of.s, game_of.where
    turns = []
    for turn in drive(s, game_of.strategies, game_of.context):
        zero, one = scores(s)
        turns.append(
            {
                "turn": turn.number,
                "mover": turn.digit,
                "seat": where[turn.digit],
                "move": move_text(turn),
                "scores": [int(zero), int(one)],
            }
        )
    out = game_of.finish()
    zero, one = scores(s)
    seat = int(out[R_WINNER])
    outcome = OUTCOMES[int(out[R_OUTCOME])]
    document = {
        "shape": 1,
        "config": config.name,
        "config_hash": config.hash,
        "seed": int(seed),
        "players": players.text,
        "swapped": bool(swapped),
        "first": int(s.first),
        "turns": turns,
        "result": {
            "winner": None if seat == DRAW else int(s.first) ^ seat,
            "outcome": outcome,
            "scores": [int(zero), int(one)],
            "end_reason": game.end_reason(s),
            "turns": int(s.turns),
        },
    }
    return document, s


def winner_text(s, first: str, second: str) -> str:
    """The finished game's winner as the engine records it for a run's tables: the
    strategy, its digit and seat, and how it was decided."""
    out, cards = game.result_buffers(1)
    record(s, out[0], cards[0], game.lead_buffer())
    seat = int(out[0, R_WINNER])
    if seat == DRAW:
        return "draw (no line controlled)"
    digit = int(s.first) ^ seat
    name, place = (first, "first") if seat == 0 else (second, "second")
    how = ""
    if int(out[0, R_OUTCOME]) == 1:  # engine/game.py OUTCOME_TIEBREAK
        line = int(out[0, R_TIEBREAK_LINE])
        how = f" on the tie-break, line {line}" if line else " as equal scores lose for the CPU"
    return f"{name} (digit {digit}, the {place} seat){how}"


# --- a game of a run folder ----------------------------------------------------------------


class RunGameError(ValueError):
    """A run folder, cell or game that `sim show --run` cannot find (a usage error)."""


class ReplayError(RuntimeError):
    """A run's game that cannot be replayed as it was played (its config has changed)."""


@dataclass(frozen=True)
class RunGame:
    """One game of a run folder: what replaying it takes, and what the run recorded."""

    config: Config
    players: str
    seed: int
    swapped: bool
    recorded: dict  # the games row's turns, score_first and score_second


RECORDED = ("turns", "score_first", "score_second")


def print_run_game(
    path: Path,
    game: int,
    config: str | None,
    players: Matchup | None,
    with_legend: bool = True,
    trust: bool = False,
    as_json: bool = False,
) -> None:
    """Replay and print game `game` of the run's cell (as_json: print game_json's document,
    with the run and game) (--config and --players choose it
    when the run has several), then check the replay against the run's record. A Python
    strategy the run names is loaded only when the user named it (players) or trusts the
    run (trust): a run folder from elsewhere never runs code by being read."""
    found = run_game(path, game, config, players)
    if not trust:
        _named_by_the_user(path, found.players, players)
    # the user's own match-up, or (trusted) the run's, whose Python strategies load here
    seats = players if players is not None else parse_matchup(found.players)
    if as_json:
        document, s = game_json(found.config, found.seed, seats, found.swapped)
    else:
        typer.echo(f"game {game} of {path} ({found.config.name} · {found.players})")
        s = print_game(found.config, found.seed, seats, found.swapped, with_legend)
    by_digit = [int(v) for v in scores(s)]
    first = int(s.first)
    replayed = {"turns": int(s.turns), "score_first": by_digit[first]}
    replayed["score_second"] = by_digit[1 - first]
    if replayed != found.recorded:
        raise ReplayError(
            f"the replay differs from the run's record of game {game} ({found.recorded} "
            f"recorded, {replayed} replayed): the strategies or sim have changed since"
        )
    if as_json:
        typer.echo(json.dumps({"run": str(path), "game": game, **document}, indent=2))


def run_game(path: Path, game: int, config: str | None, players: Matchup | None) -> RunGame:
    """Game `game` of the run's chosen cell with its seed and seats as the run played it;
    RunGameError when the folder, cell or game is not there."""
    import polars as pl

    from sim.store.folder import RunFolderError, open_run

    try:
        run = open_run(path)
        cell = _pick_cell(path, run.cells, config, players)
        rows = (
            run.seeded()
            .filter(
                (pl.col("config").cast(pl.String) == cell[0])
                & (pl.col("matchup").cast(pl.String) == cell[1])
                & (pl.col("game") == game)
            )
            .select("config_hash", "seed", "swapped", *RECORDED)
            .collect()
        )
    except (RunFolderError, pl.exceptions.PolarsError, OSError) as exc:
        raise RunGameError(str(exc).splitlines()[0]) from None
    if rows.height == 0:
        raise RunGameError(_absent(path, run.manifest, cell, game))
    row = rows.row(0, named=True)
    loaded = played_config(path, run.manifest, cell[0], row["config_hash"])
    recorded = {k: int(row[k]) for k in RECORDED}
    return RunGame(loaded, cell[1], int(row["seed"]), bool(row["swapped"]), recorded)


def _named_by_the_user(path: Path, matchup: str, players: Matchup | None) -> None:
    """RunGameError unless every Python strategy of the match-up was named on the command
    line (--players, which chose this cell); built-ins and weights files (strong, a persona,
    a .toml: data, read as such) run no one's code."""
    seats = read_matchup(matchup)
    foreign = list(dict.fromkeys(p.text for p in (seats.first, seats.second) if not p.compiled))
    if foreign and players is None:
        raise RunGameError(
            f"{path} was played by {' and '.join(foreign)}: replaying it runs that Python "
            f"code, which sim does only when you name it: add --players {matchup} "
            "(or --trust-run)"
        )


def _pick_cell(path: Path, cells, config: str | None, players: Matchup | None) -> tuple[str, str]:
    """The one (config, match-up) of the run that --config and --players leave."""
    left = list(cells)
    if config is not None:
        left = [c for c in left if c[0] in (config, Path(config).stem)]
    if players is not None:
        left = [c for c in left if c[1] == players.text]
    if len(left) == 1:
        return left[0]
    held = "; ".join(f"--config {c} --players {m}" for c, m in cells)
    if left:
        raise RunGameError(f"{path} holds {len(left)} such cells; choose one: {held}")
    raise RunGameError(f"{path} holds no such config and match-up; it holds: {held}")


def _absent(path: Path, manifest: dict, cell: tuple[str, str], game: int) -> str:
    """Why a cell has no row for the game: out of range, or its chunk is not on disk."""
    total = manifest.get("games_per_cell")
    where = f"{cell[0]} · {cell[1]}"
    if isinstance(total, int) and not 0 <= game < total:
        return f"--game {game}: out of range; {where} in {path} has games 0..{total - 1:,}"
    return (
        f"--game {game}: not on disk in {path} ({where}): its chunk is unplayed, damaged or "
        "missing; rerun the run's `sim run` command to play it"
    )


def played_config(path: Path, manifest: dict, name: str, played: str) -> Config:
    """The config the run played, loaded from where the run found it; ReplayError if its
    content has changed since (the replay would be another game)."""
    from sim.model.config import ConfigError, load
    from sim.model.overlay import derive

    recorded = (manifest.get("configs") or {}).get(name) or {}
    where = str(recorded.get("path", ""))
    overlay = recorded.get("overlay") or []
    base = name.split("+", 1)[0] if overlay else name  # a derived config: its base's name
    try:
        if not isinstance(overlay, list) or not all(isinstance(i, str) for i in overlay):
            raise ConfigError(f"overlay: expected a list of KEY=VALUE strings, got {overlay!r}")
        config = derive(load(where if where and Path(where).is_file() else base), overlay)
    except ConfigError as exc:
        raise ReplayError(
            f"{path}: cannot load config {name}, which the run played: {exc}"
        ) from None
    if config.hash != played:
        raise ReplayError(
            f"{path}: config {name} ({config.path}) has changed since the run played it "
            f"(hash {played} then, {config.hash} now), so its games cannot be replayed"
        )
    return config
