"""No fixed limits (RULES.md 13): decks built to stress chains play every game to its end.

The engine once forced a CPU chain to its first option after 8 decisions, placed no card
past 256 decision paths, and refused moves of more than 16 sub-decisions. These decks make
long PRINT and PASTE chains (in solo mode the CPU prints straight from its pile), and the
games must end by the rules, never at an engine limit.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.engine.game import R_END, R_ERROR
from sim.engine.state import END_REASONS
from sim.model import config as cfg
from sim.play import batch as game
from sim.players.specs import matchup

STRESS_KINDS = (("PRINT", "H"), ("PRINT", "V"), ("PASTE", "H"), ("CUT", "V"), ("GOSUB", "H"))


def stress_config(counts: dict[tuple[str, str], int], blanks: int, orientation: str):
    """A 6-line, RUN-5 config with the given card counts, loaded as a designer's file is."""
    lines = [
        'description = "stress"',
        f'[rules]\nlines = 6\nrun_capacity = 5\norientation = "{orientation}"',
        f'[[deck]]\nkind = "BLANK"\ncount = {blanks}',
    ]
    lines += [
        f'[[deck]]\nkind = "{kind}"\naxis = "{axis}"\ncount = {n}'
        for (kind, axis), n in counts.items()
        if n
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stress.toml"
        path.write_text("\n".join(lines) + "\n")
        return cfg.load(str(path))


def assert_every_game_ends_by_the_rules(out: np.ndarray) -> None:
    assert not out[:, R_ERROR].any(), "a game stopped at an engine limit"
    assert set(out[:, R_END].tolist()) <= set(range(1, len(END_REASONS)))


@settings(max_examples=12, deadline=None)
@given(
    counts=st.fixed_dictionaries({kind: st.integers(0, 10) for kind in STRESS_KINDS}),
    blanks=st.integers(4, 8),  # the start BLANK and a first hand: a legal deck at any counts
    orientation=st.sampled_from(["free", "printed"]),
    first_seed=st.integers(0, 2**40),
)
def test_stress_decks_play_to_the_end(counts, blanks, orientation, first_seed):
    config = stress_config(counts, blanks, orientation)
    seeds = np.arange(first_seed, first_seed + 40, dtype=np.uint64)
    for level in (0, 1, 2, 3, 4):  # two-player random, then solo at every level
        out, _ = game.play_batch(config, seeds, cpu_level=level)
        assert_every_game_ends_by_the_rules(out)
    out, _ = game.play_matchup(config, matchup("greedy", "heuristic"), seeds[:10])
    assert_every_game_ends_by_the_rules(out)


def cpu_chain_depths(config, level: int, games: int) -> list[int]:
    """Decisions in the chain of the last card of each CPU turn, over whole games."""
    depths = []
    for seed in range(games):
        s = game.start(config, seed, cpu_level=level)
        for _ in game.turns(s, seed):
            if s.mover != s.cpu and s.cpu_log_len:  # the CPU has just moved
                depths.append(int(s.path_pos))
        assert s.error == 0, f"seed {seed}: the game stopped at an engine limit"
    return depths


def test_cpu_chains_go_past_the_old_limit_of_eight():
    """Long runs of PRINT in the CPU's pile make chains deeper than the old fixed 8."""
    long_prints = stress_config(
        {("PRINT", "H"): 40, ("PASTE", "H"): 6, ("CUT", "H"): 6}, 4, "printed"
    )
    wide = stress_config({("PRINT", "H"): 10, ("PRINT", "V"): 8, ("PASTE", "H"): 6}, 6, "free")
    deepest = max(cpu_chain_depths(long_prints, 1, 100) + cpu_chain_depths(wide, 1, 100))
    assert deepest > 8


def test_a_move_may_carry_more_than_sixteen_sub_decisions():
    """The old script held 16 sub-decisions; a PASTE chain through 20 cut PASTEs needs 20."""
    from sim.engine.cards import RIGHT
    from sim.model.moves import Move, SubChoice, apply_move
    from sim.model.notation import parse_display, parse_hand_card
    from sim.model.position import Position, build_state
    from sim.model.rules import RuleOptions

    paste = parse_hand_card("1PSTH")
    pos = Position(
        rules=RuleOptions(),
        rows=parse_display("10: 0\n20: 0", 5),
        mover=1,
        hands=([], [paste]),
        cut=[paste] * 20,
    )
    s = build_state(pos)
    subs = tuple(SubChoice(card=paste, direction=RIGHT) for _ in range(20))
    apply_move(s, 1, Move(card=paste, line=0, direction=RIGHT, subs=subs), load=False)
    # the BLANK, the played PASTE and the 20 pasted ones, each pasting into the next slot
    assert int(s.count[0]) == 22
    assert int(s.cut_len) == 0
