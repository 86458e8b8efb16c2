"""`sim show`: one game, turn by turn, in position notation."""

from __future__ import annotations

import typer

from sim import game
from sim.cards import DIR_SYMBOLS
from sim.config import Config
from sim.engine.game import DRAW, R_OUTCOME, R_TIEBREAK_LINE, R_WINNER, record
from sim.engine.score import scores
from sim.notation import MARK, legend, render_card
from sim.players import cpu_level, parse_players
from sim.position import display_rows
from sim.python_loop import Context, config_ref, drive, finish_game, seated_game, seats


def board_text(s) -> str:
    """Every line, empty ones too, so the board keeps its shape from turn to turn."""
    out = []
    for line, row in enumerate(display_rows(s)):
        tokens = ["." if x is None else ".*" if x == MARK else render_card(x, True) for x in row]
        run = "  (RUN)" if line == int(s.lines) - 1 else ""
        out.append(f"  {10 * (line + 1)}: {' '.join(tokens)}{run}".rstrip())
    return "\n".join(out)


def print_game(
    config: Config, seed: int, players: str, swapped: bool = False, with_legend: bool = True
) -> None:
    """Play one game (A first, or B first when swapped, as in a run's pairs) and print it,
    after the notation's legend unless with_legend is False."""
    a, b = parse_players(players)
    context = Context(config_ref(config), seed, swapped, f"{a},{b}")
    seat_a, seat_b = seats(config, a, b, seed, swapped)
    first, second = (seat_b, seat_a) if swapped else (seat_a, seat_b)
    level = cpu_level(b, config.rules.cpu_level)
    arr, strategies = seated_game(config, first, second, level, context)
    s = arr[0]
    digit = int(s.first)
    where = {digit: "first", 1 - digit: "second"}
    swap = " (seats swapped: B first)" if swapped else ""
    typer.echo(f"config {config.name} ({config.hash}), seed {seed}, players {a},{b}{swap}")
    typer.echo(f"first player: digit {digit} ({first.spec})")
    if with_legend:
        typer.echo(legend(config.kinds()))
    typer.echo(board_text(s))
    for turn in drive(s, strategies, context):
        hand = " ".join(render_card(c, False) for c in turn.hand) or "(empty)"
        if turn.cpu_card:
            cards = "; ".join(
                f"{render_card(card, True)} on {10 * (line + 1)}" for card, line in turn.placed
            )
            move = f"CPU card on {turn.cpu_card}: " + (cards or "places nothing")
            hand = "no hand"
        elif turn.card is None:
            move = "passes"
        else:
            move = f"plays {render_card(turn.card, False)} on {10 * (turn.line + 1)}"
            move += f" {DIR_SYMBOLS[turn.direction]}" if turn.direction else ""
        zero, one = scores(s)
        typer.echo(f"\nturn {turn.number}: {turn.digit} ({where[turn.digit]}) holds {hand}; {move}")
        typer.echo(board_text(s))
        typer.echo(f"  score 0: {zero}  1: {one}")
    out, cards = game.result_buffers(1)
    finish_game(s, strategies, context, out[0], cards[0])  # end_game fails here as in a run
    zero, one = scores(s)
    ended = f"ended: {game.end_reason(s)} after {int(s.turns)} turns"
    result = winner_text(s, first.spec, second.spec)
    typer.echo(f"\n{ended}; score 0: {zero}  1: {one}; winner: {result}")


def winner_text(s, first: str, second: str) -> str:
    """The finished game's winner as the engine records it for a run's tables: the
    strategy, its digit and seat, and how it was decided."""
    out, cards = game.result_buffers(1)
    record(s, out[0], cards[0])
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
