"""benchmarks/teacher_regret.py: a player's move is found among the teacher's root moves."""

import numpy as np

from benchmarks.teacher_regret import WIDTH, matching_row, regret
from sim.engine.state import MAX_DEPTH
from strategies.search import M_LEN, M_PATH


def move_rows(*rows):
    """Move rows (hand index, line, direction, path) as search.list_moves writes them: no
    tail cleared past M_LEN (filled with 9 here, to show it is never read)."""
    out = np.full((len(rows), WIDTH), 9, np.int16)
    for r, (index, line, direction, path) in enumerate(rows):
        out[r, :3] = index, line, direction
        out[r, M_LEN] = len(path)
        out[r, M_PATH : M_PATH + len(path)] = path
    return out


def path_of(*choices):
    path = np.zeros(MAX_DEPTH, np.int8)
    path[: len(choices)] = choices
    return path


def test_a_move_is_matched_by_card_line_direction_and_its_decisions():
    # a PRINT whose first choice 0 ends the chain and whose choice 1 asks once more
    moves = move_rows((0, 1, 2, ()), (1, 1, 2, (0,)), (1, 1, 2, (1, 0)), (1, 1, 2, (1, 1)))
    assert matching_row(moves, 4, (0, 1, 2), path_of()) == 0
    assert matching_row(moves, 4, (1, 1, 2), path_of(0)) == 1
    assert matching_row(moves, 4, (1, 1, 2), path_of(1, 0)) == 2
    assert matching_row(moves, 4, (1, 1, 2), path_of(1, 1)) == 3
    assert matching_row(moves, 4, (1, 1, 3), path_of(0)) == -1  # another direction
    assert matching_row(moves, 4, (1, 0, 2), path_of(0)) == -1  # another line
    assert matching_row(moves, 4, (1, 1, 2), path_of(1, 2)) == -1  # a decision not listed
    assert matching_row(moves, 4, (1, 1, 2), path_of(0, 0, 1)) == -1  # a longer chain
    assert matching_row(moves, 3, (1, 1, 2), path_of(1, 1)) == -1  # only the first n rows


def test_regret_is_the_teacher_value_lost_and_agreement_the_share_of_its_moves():
    part = {
        "count": np.array([3, 1, 2]),
        "best": np.array([0, 0, 1]),
        "means": np.array([[0.7, 0.5, 0.6], [0.4, 0.0, 0.0], [0.2, 0.3, 0.0]]),
    }
    # position 0: the second-best move (0.7 - 0.6); position 1 has no choice; position 2:
    # the teacher's move (no loss)
    loss, same = regret(part, [2, 0, 1])
    assert np.isclose(loss, (0.1 + 0.0) / 2)
    assert same == 0.5
