"""The lead tally of a chunk: its games by turn and first seat's lead, the histogram the
compiled loop adds up (engine game.record_arc, play.batch.lead_buffer), as a part of a few
hundred rows. The report sums the parts of a cell and reads its lead bands off the sum:
no per-turn rows are stored."""

from __future__ import annotations

import numpy as np

from sim.engine.state import LEAD_MAX
from sim.store.categories import SEATS
from sim.store.parquet import Column


def lead_columns(cell, leads: np.ndarray) -> list[Column]:
    """One row per turn and lead that some game of the chunk had (leads: a lead_buffer):
    the turn (1 for the first), the seat ahead (null when level), by how many points, and
    how many games. Additive over chunks, like the card tallies."""
    turn, index = np.nonzero(leads)
    lead = index.astype(np.int64) * 10 - LEAD_MAX
    n = len(turn)
    return [
        Column("config", np.zeros(n, np.uint8), dictionary=(cell.config.name,)),
        Column("matchup", np.zeros(n, np.uint8), dictionary=(cell.matchup,)),
        Column("turn", (turn + 1).astype(np.uint16), bits=16),
        Column("ahead", (lead < 0).astype(np.uint8), dictionary=SEATS, valid=lead != 0),
        Column("margin", np.abs(lead).astype(np.uint16), bits=16),
        Column("games", leads[turn, index].astype(np.uint64), bits=64),
    ]
