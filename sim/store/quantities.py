"""The summaries' quantities as data over the tally's codes (sim/store/tallies.py counts
them): a game gets one small code per group (its seat result, its outcome, each line's
controller, ...), a unit is counted at its games' codes, and a quantity is a group with a
game's y and z per code, so its sim.stats.Tally moments follow from the counts (moments).
numpy only: the readers use it without loading the compiled kernel.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from sim.engine import game as eg
from sim.engine.state import MAX_LINES
from sim.store.categories import ENDS, OUTCOMES, WINNERS

COMEBACKS = (10, 20)  # won after trailing by at least a line's worth (the 10 line), and two
GRID = 50  # decided_turn / turns at or below each of GRID + 1 points: steps of 2%
LINES = tuple(10 * (i + 1) for i in range(MAX_LINES))
END_ORDER = ("run", "deck_out", "stalled", "cpu_out")  # how summaries list end reasons

# Groups and their codes, in the order the kernel writes them; sizes are codes per game.
TIE = 2  # outcome codes: points 0, draw 1, a tie-break 2 + 2 * line index + won by second
NO_LINE = TIE + 2 * MAX_LINES  # a tie-break with no deciding line (solo: equal scores)
DECIDED_NAN = GRID + 2  # decided codes: a draw 0, 1 + steps, a game of no turns (0 / 0)
SIZES = {
    "seat": 6,  # winner * 2 + swapped
    "outcome": NO_LINE + 2,
    "end": len(ENDS) + 1,  # 0: none
    **{f"line_{v}": 3 for v in LINES},  # first, second, nobody
    "half": 3,  # no half-time leader, a leader who lost or drew, a leader who won
    "comeback": 2 + len(COMEBACKS),  # a draw, then the winner's deficit band
    "decided": DECIDED_NAN + 1,
}
GROUPS = tuple(SIZES)
# Groups counted per game, not per unit: the report's histograms (too many codes for pairs).
TURN_CODES = 1024  # a game's turns (the rules end every game far sooner)
GAME_SIZES = {"score_first": 22, "score_second": 22, "length": TURN_CODES}  # score / 10; turns
GAME_GROUPS = tuple(GAME_SIZES)
DIRECT = ("turns", "turns_sq", "arc:lead_changes", "copies")  # summed per unit
"""A unit's summed turns, squared turns, lead changes, and 1 for a pair whose two games ended
alike (same winner, turns and first seat's score: a strategy that replays itself)."""
ROOMS = (*GROUPS, *GAME_GROUPS)  # the histogram's groups, in OFFSETS' order
OFFSETS = np.cumsum(
    [0, *(SIZES[g] ** 2 for g in GROUPS), *(GAME_SIZES[g] for g in GAME_GROUPS)]
)  # each group's room: pairs of codes, or one game's code


def _seat_codes() -> tuple[np.ndarray, ...]:
    """Per seat code (winner * 2 + swapped): the winner, swapped, A won, B won, a draw."""
    code = np.arange(SIZES["seat"])
    won, swapped = code // 2, code % 2
    a_won = np.where(swapped == 1, won == eg.WIN_SECOND, won == eg.WIN_FIRST)
    draw = won == eg.DRAW
    return won, swapped, a_won, ~draw & ~a_won, draw


@cache
def quantities() -> dict[str, tuple[str, np.ndarray, np.ndarray | None]]:
    """Every quantity the summaries show, by name: (group, y of a game by code, z by code or
    None when every game counts 1). docs/statistics.md defines each figure."""
    q: dict = {}
    won, _, a_won, _, draw = _seat_codes()
    q["games"] = ("seat", np.ones(len(won)), None)
    q["win:first seat"] = ("seat", won == eg.WIN_FIRST, None)
    q["win:second seat"] = ("seat", won == eg.WIN_SECOND, None)
    q["win:draw"] = ("seat", draw, None)
    q["seat:first score"] = ("seat", (won == eg.WIN_FIRST) + 0.5 * draw, None)
    q["win:A score"] = ("seat", a_won + 0.5 * draw, None)
    outcome = np.arange(SIZES["outcome"])
    tie = outcome >= TIE
    q["outcome:points"] = ("outcome", outcome == 0, None)
    q["outcome:tiebreak"] = ("outcome", tie, None)
    q["outcome:draw"] = ("outcome", outcome == 1, None)
    for i, v in enumerate(LINES):
        on_line = (outcome - TIE) // 2 == i
        on_line &= tie & (outcome < NO_LINE)
        q[f"decided:{v}"] = ("outcome", on_line, tie)
        q[f"first_won:{v}"] = ("outcome", on_line & ((outcome - TIE) % 2 == 0), on_line)
    end = np.arange(SIZES["end"])
    for k in _end_order():
        q[f"end:{ENDS[k]}"] = ("end", end == k + 1, None)
    for v in LINES:
        held = np.arange(3)
        for code, name in enumerate(("first", "second", "nobody")):
            q[f"line:{v}:{name}"] = (f"line_{v}", held == code, None)
    half = np.arange(SIZES["half"])
    q["arc:half_wins"] = ("half", half == 2, half >= 1)
    q["arc:half_leader_won"] = ("half", half == 2, None)  # of all games (sim compare)
    band = np.arange(SIZES["comeback"])
    for j, points in enumerate(COMEBACKS):
        q[f"arc:comeback:{points}"] = ("comeback", band >= 2 + j, band >= 1)
        q[f"arc:from_behind:{points}"] = ("comeback", band >= 2 + j, None)  # of all games
    decided = np.arange(SIZES["decided"])
    for step in range(GRID + 1):
        at_or_below = (decided >= 1) & (decided <= 1 + step)
        q[f"arc:cdf:{step}"] = ("decided", at_or_below, decided >= 1)
    return {name: (g, np.asarray(y, float), None if z is None else np.asarray(z, float))
            for name, (g, y, z) in q.items()}  # fmt: skip


def _end_order() -> list[int]:
    """ENDS' indexes, END_ORDER's first."""
    first = [ENDS.index(e) for e in END_ORDER if e in ENDS]
    return first + [k for k in range(len(ENDS)) if k not in first]


def moments(hist: np.ndarray, direct: np.ndarray, paired: bool) -> dict[str, tuple]:
    """Each quantity's Tally fields (units, y, z, yy, zz, yz) from a cell's summed counts
    (count_chunk's), by name: quantities(), DIRECT, and `pairless` (every game when the
    cell's units are games, else none)."""
    step = 2.0 if paired else 1.0
    units = int(group_counts(hist, "seat", paired).sum())
    out: dict[str, tuple] = {}
    for name, (group, y, z) in quantities().items():
        count = group_counts(hist, group, paired)
        if paired:  # a unit's totals: its two games' values summed
            y = y[:, None] + y[None, :]
            z = None if z is None else z[:, None] + z[None, :]
        weighted = count * y
        if z is None:
            total = float(weighted.sum())
            out[name] = (units, total, units * step, float((weighted * y).sum()),
                         units * step * step, total * step)  # fmt: skip
        else:
            out[name] = (int(count[z > 0].sum()), float(weighted.sum()),
                         float((count * z).sum()), float((weighted * y).sum()),
                         float((count * z * z).sum()), float((weighted * z).sum()))  # fmt: skip
    for d, name in enumerate(DIRECT):
        y, yy = float(direct[d, 0]), float(direct[d, 1])
        out[name] = (units, y, units * step, yy, units * step * step, y * step)
    games = 0.0 if paired else units * step
    out["pairless"] = (units, games, units * step, games, units * step * step, games * step)
    return out


def game_counts(hist: np.ndarray, group: str) -> np.ndarray:
    """A per-game group's counts: games by code (GAME_SIZES)."""
    g = ROOMS.index(group)
    return hist[OFFSETS[g] : OFFSETS[g + 1]]


def group_counts(hist: np.ndarray, group: str, paired: bool) -> np.ndarray:
    """A group's counts in a histogram: units by (first game's code, second's) when
    paired, else games by code (the first SIZES[group] places of the group's room)."""
    g, size = GROUPS.index(group), SIZES[group]
    room = hist[OFFSETS[g] : OFFSETS[g + 1]]
    return room.reshape(size, size) if paired else room[:size]


# --- the run's summary tables' counts (store/summaries.py), from a chunk's or run's counts --


def win_counts(cell, hist: np.ndarray, paired: bool) -> dict:
    """Counts of one cell's units (its `hist`, count_chunk's) for the summary tables: a
    row of summaries.WIN_KEYS and WIN_COUNTS (wins by seat and by strategy, units with the
    same winner in both games, units by A's and by the first seat's half points) and long
    tie-break rows (summaries.TIE_KEYS, a count, the units with it in both games)."""
    seat = group_counts(hist, "seat", paired)
    won, _, a_won, b_won, draw = _seat_codes()
    units = int(seat.sum())

    def games(per_code: np.ndarray) -> int:
        return int(_per_game(seat, per_code, paired).sum())

    def both(per_code: np.ndarray) -> int:
        return int((seat * np.outer(per_code, per_code)).sum()) if paired else 0

    half = 2 * a_won + draw  # A's half points in a game
    first_half = 2 * (won == eg.WIN_FIRST) + draw
    wins = {
        "config": cell.config.name,
        "config_hash": cell.config.hash,
        "matchup": cell.matchup,
        "games": units * (2 if paired else 1),
        "units": units,
        "first_wins": games(won == eg.WIN_FIRST),
        "second_wins": games(won == eg.WIN_SECOND),
        "draws": games(draw),
        "a_wins": games(a_won),
        "b_wins": games(b_won),
        "first_both": both(won == eg.WIN_FIRST),
        "second_both": both(won == eg.WIN_SECOND),
        "draw_both": both(draw),
        **{f"a_points_{h}": n for h, n in enumerate(_by_unit_value(seat, half, paired))},
        **{f"first_points_{h}": n for h, n in enumerate(_by_unit_value(seat, first_half, paired))},
    }
    return {"wins": wins, "ties": _tie_rows(cell, hist, paired)}


def _per_game(counts: np.ndarray, per_code: np.ndarray, paired: bool) -> np.ndarray:
    """Each unit-count weighted by its games' summed per-code values."""
    per_code = np.asarray(per_code, dtype=np.int64)
    return counts * (per_code[:, None] + per_code[None, :]) if paired else counts * per_code


def _by_unit_value(counts: np.ndarray, per_code: np.ndarray, paired: bool) -> list[int]:
    """Units by their games' summed value (0..4 for pairs, 0..2 for games: half points)."""
    per_code = np.asarray(per_code, dtype=np.int64)
    value = (per_code[:, None] + per_code[None, :]) if paired else per_code
    return [int(counts[value == h].sum()) for h in range(5)]


def _tie_rows(cell, hist: np.ndarray, paired: bool) -> list[tuple]:
    """Long tie-break rows: games by outcome, tie-breaks by deciding line (None: none) and
    winning seat, games by end reason (None: none), each with the units having it in both
    of their games."""
    key = (cell.config.name, cell.matchup)
    rows = []
    outcome = group_counts(hist, "outcome", paired)
    codes = np.arange(SIZES["outcome"])
    kind = np.where(codes == 0, eg.OUTCOME_POINTS, eg.OUTCOME_TIEBREAK)
    kind = np.where(codes == 1, eg.OUTCOME_DRAW, kind)
    for k, name in enumerate(OUTCOMES):
        count, both = _count_both(outcome, kind == k, paired)
        if count:
            rows.append((*key, "outcome", name, None, count, both))
    line_value = np.where(codes >= NO_LINE, 0, 10 * ((codes - TIE) // 2 + 1))
    winner = np.where((codes - TIE) % 2 == 1, eg.WIN_SECOND, eg.WIN_FIRST)
    for code in sorted(range(TIE, SIZES["outcome"]), key=lambda c: (line_value[c], winner[c])):
        count, both = _count_both(outcome, codes == code, paired)
        if count:
            line = str(line_value[code]) if line_value[code] else None
            rows.append((*key, "tiebreak_line", line, WINNERS[winner[code]], count, both))
    end = group_counts(hist, "end", paired)
    for code in range(SIZES["end"]):
        count, both = _count_both(end, np.arange(SIZES["end"]) == code, paired)
        if count:
            reason = ENDS[code - 1] if code else None
            rows.append((*key, "end_reason", reason, None, count, both))
    return rows


def _count_both(counts: np.ndarray, has: np.ndarray, paired: bool) -> tuple[int, int]:
    """Games with the property `has` (per code), and units with it in both games."""
    count = int(_per_game(counts, has, paired).sum())
    return count, int((counts * np.outer(has, has)).sum()) if paired else 0


def pairs_by_seat_points(hist: np.ndarray) -> np.ndarray:
    """Seat-swapped pairs (a paired cell's `hist`) by A's half points (0 loss, 1 draw, 2
    win) in the game A sat first and in the game it sat second: a 3 x 3 table."""
    seat = group_counts(hist, "seat", True)
    _, swapped, a_won, _, draw = _seat_codes()
    half = 2 * a_won + draw
    table = np.zeros((3, 3), dtype=np.int64)
    for a, b in zip(*np.nonzero(seat), strict=True):
        if swapped[a] != swapped[b]:  # every runner pair; first the unswapped game's points
            first, second = (a, b) if swapped[b] else (b, a)
            table[half[first], half[second]] += seat[a, b]
    return table
