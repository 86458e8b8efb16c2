"""The game state: one NumPy structured record with small fixed-size array fields.

One record (not many arrays) because numba passes it by reference without
per-array reference counting, which is far faster (docs/engine.md).
"""

from __future__ import annotations

import numpy as np

from sim.engine.cards import N_KINDS

MAX_LINES = 6
# A line's width is bounded only by the game's length: pasted and printed cards can hang
# past gaps at the right end (stress decks reached 64 slots). Past this the engine refuses.
MAX_COLS = 256
MAX_CARDS = 128  # card ids over both decks
MAX_DECK = 63
MAX_HAND = 16
NO_CARD = -1

# end reasons
ONGOING, END_RUN, END_DECK_OUT, END_STALLED, END_CPU_OUT = 0, 1, 2, 3, 4
END_REASONS = ("", "run", "deck_out", "stalled", "cpu_out")

# error codes set by the engine instead of raising inside compiled code
OK, ERR_ILLEGAL, ERR_OVERFLOW = 0, 1, 2

# policies a seat can be driven by inside the compiled loop
POLICY_RANDOM, POLICY_SCRIPT, POLICY_PATH, POLICY_GREEDY = 0, 1, 2, 3
POLICY_HEURISTIC, POLICY_MC, POLICY_ISMCTS = 4, 5, 6
VIS_DEFAULT, VIS_OPEN, VIS_CLOSED = 0, 1, 2  # RULES.md 7, as rule option `visibility`
VISIBILITIES = ("default", "open", "closed")
# Decisions in one card's chain (its direction and every nested choice). A chain is linear
# (each card places at most one more, and a CUT, which places none, can only end it), so no
# card is placed twice in one chain: at most MAX_CARDS placements, each with a card choice
# and a direction, and one GOSUB line at the end. So no legal position can need more.
MAX_DEPTH = 2 * MAX_CARDS + 1
MAX_SCRIPT = MAX_DEPTH  # a move's scripted sub-decisions are some of its chain's decisions
EVAL_SLOTS = 40  # per digit: an evaluation's weights (strategies/heuristic.py) and search knobs
# turns whose lead's sign is kept for the half-time leader (game.track): a game of up to
# twice this many turns has one; longer games (none seen) record it as unknown
ARC_TURNS = 1024
# The per-turn lead histogram (game.record_arc; the report's lead bands): the first seat's
# lead after each of the first LEAD_TURNS turns (longer games are cut there), in bins of 10
# points (every line is worth a multiple of 10) from -LEAD_MAX to LEAD_MAX, all the points
# MAX_LINES lines hold (no lead can pass it: record_arc relies on that)
LEAD_TURNS = 128
LEAD_MAX = 10 * MAX_LINES * (MAX_LINES + 1) // 2
LEAD_BINS = 2 * LEAD_MAX // 10 + 1
NO_CPU = -1
SCRIPT_LINE = -2  # kind column of a scripted GOSUB line choice

STATE_DTYPE = np.dtype(
    [
        ("count", np.int16, (MAX_LINES,)),  # cards per line
        # cards per line showing 1, kept by place, lift and turn_over: who controls a line
        # without REM is then two loads, not a walk over its slots (board.py)
        ("ones", np.int16, (MAX_LINES,)),
        # REM cards per line, kept by place and lift (0 in decks without REM): control
        # (score.py) walks only the lines holding one, not every slot of every line
        ("rems", np.int16, (MAX_LINES,)),
        ("width", np.int16, (MAX_LINES,)),  # 1 + right-most occupied column
        ("gap", np.int16, (MAX_LINES,)),  # left-most empty column, kept up to date to avoid scans
        ("shut", np.int64),  # bit per line: shut by an END (5.10), kept up to date by place/lift
        # bit per line holding at least 3 cards, kept by place/lift: the open-line rule (4.1)
        # becomes one table lookup instead of a walk over the lines with a random exit
        ("full3", np.int64),
        # the display's used columns, so a new game clears those, not all MAX_COLS: tidy is
        # 1 once a clear left every column from span on empty and unmarked (0 in a new state)
        ("span", np.int16),
        ("tidy", np.uint8),
        ("far", np.uint8),  # some line reached MAX_COLS: line_masks takes its checking walk
        ("kind", np.uint8, (MAX_CARDS,)),
        ("axis", np.uint8, (MAX_CARDS,)),
        ("face", np.uint8, (MAX_CARDS,)),
        ("dirn", np.uint8, (MAX_CARDS,)),
        ("saved", np.uint8, (MAX_CARDS,)),
        ("owner", np.uint8, (MAX_CARDS,)),
        ("by", np.uint8, (MAX_CARDS,)),  # digit that last put the card into the display
        ("n_cards", np.int16),
        # deck index of the BLANK each player sets aside (its first, RULES.md 3): the pile
        # before shuffling is every other card in deck order; written once by load_deck
        ("aside", np.int16),
        # what the dealt decks lack, so turns and the record skip work for those cards (0 in
        # a state not dealt, e.g. built from a position: then nothing is skipped)
        ("no_lasting", np.uint8),  # no REM, END or CONT: no lasting effects to count
        ("no_end", np.uint8),  # no END: no line is ever shut
        ("no_rem", np.uint8),  # no REM: every card in a line counts for control
        ("pile", np.int16, (2, MAX_DECK)),  # per digit; top card at pile_top
        ("pile_top", np.int16, (2,)),
        ("pile_len", np.int16, (2,)),
        ("hand", np.int16, (2, MAX_HAND)),
        ("hand_len", np.int16, (2,)),
        ("cut_len", np.int16),
        ("removed_len", np.int16),
        ("lines", np.int8),
        ("capacity", np.int8),
        ("free", np.int8),  # orientation = "free"
        ("forced_line", np.int8),  # NEXT-forced slot for the player about to move
        ("forced_col", np.int16),
        ("passed", np.uint8, (2,)),
        ("mover", np.int8),  # digit of the player to move
        ("first", np.int8),  # digit of the first player
        ("turns", np.int32),
        ("ended", np.int8),
        ("error", np.int8),
        ("chance", np.uint64),  # the deal's random stream (shuffles, GET)
        ("srng", np.uint64, (2,)),  # each digit's strategy stream
        ("policy", np.int8, (2,)),
        ("budget", np.int32, (2,)),  # per digit: a search strategy's budget (rollouts, iterations)
        ("script_len", np.int16),
        ("script_pos", np.int16),
        # per digit and card kind, for the cards table: drawn, played from hand, took effect
        ("drawn", np.uint8, (2, N_KINDS)),
        ("played", np.uint8, (2, N_KINDS)),
        ("effect", np.uint8, (2, N_KINDS)),
        # solo mode (RULES.md 8): the CPU's digit (NO_CPU without one) and its card's state
        (
            "visibility",
            np.int8,
        ),  # VIS_*: what a strategy may see (search strategies sample the rest)
        ("cpu", np.int8),
        ("cpu_level", np.int8),
        ("cpu_numeric", np.int8),
        ("cpu_side", np.int8),  # 1 WINNING, 0 NOT WINNING
        ("cpu_step", np.int8),
        ("cpu_first", np.uint8),  # its first turn is still to come
        ("cpu_log_len", np.int16),
        # a decision path being followed or explored (POLICY_PATH); an option index is below
        # 128 (at most MAX_CARDS - 1 cut cards), a count of options may be 128
        ("path_pos", np.int16),  # (path and path_options are with the last arrays below)
        ("path_ask", np.int16),  # 1 + the depth at which to stop and ask Python (0: never)
        ("ask", np.int16, (4,)),  # what the next decision is about: ASK_*, card id, line, col
        ("last", np.int16, (3,)),  # the latest hand card played: card id, line, direction
        # the display as one decision (at depth snap_at, -1 for none) saw it, for the CPU's
        # ranking; one snapshot, not one per depth, keeps the record small at any depth
        ("snap_at", np.int16),
        # the game's arc (#34). The lead, score of digit 0 minus digit 1, is kept where a
        # line's controller can change (board.keep_lead: a card placed, lifted or turned
        # over) as each line's signed points (+value held by digit 0, -value by digit 1);
        # arc_leads, below, holds their sum at each turn's end (game.track)
        ("arc_points", np.int16, (MAX_LINES,)),
        # Last, the arrays of which a game uses a known part (the first cut_len cards, ...):
        # clone copies the fields above in one block and of these only that part (clone.py)
        ("path_options", np.int16, (MAX_DEPTH,)),  # options met, below path_pos
        ("path", np.int8, (MAX_DEPTH,)),  # read only by a seat not on POLICY_RANDOM
        ("snap_line", np.int8, (MAX_CARDS,)),  # card's line at that decision, -1 if none
        ("snap_own", np.uint8, (MAX_CARDS,)),  # card then showed the CPU's digit
        ("cut", np.int16, (MAX_CARDS,)),  # oldest first
        ("removed", np.int16, (MAX_CARDS,)),
        ("cpu_log", np.int16, (MAX_CARDS, 2)),  # this CPU turn's placements: card id, line
        # per card: a REM, END or CONT card's slot, line * MAX_COLS + col, while it lies in the
        # display, else -1 (kept by place and lift): the end's count of their effects looks at
        # these few cards, not at every slot (that walk was 6% of a random game in 101, perf)
        ("lasting_at", np.int16, (MAX_CARDS,)),
        # card id per slot, NO_CARD if empty (ids are below MAX_CARDS = 128: one byte a slot)
        ("grid", np.int8, (MAX_LINES, MAX_COLS)),
        ("mark", np.uint8, (MAX_LINES, MAX_COLS)),  # 1 where a pending SAVE marks an empty slot
        # scripted sub-decisions: kind, axis, face, dir, line (all small: int8 keeps it compact)
        ("script", np.int8, (MAX_SCRIPT, 5)),
        # per digit: the evaluation weights of a seat that values positions (the heuristic
        # and weights-file players; strategies/heuristic.py names the slots), set per game.
        # Read only by that seat's own turn on the state a loop plays, never on a search's
        # copy, so clone leaves them out (512 bytes more per copy cost heuristic 20%)
        ("weights", np.float64, (2, EVAL_SLOTS)),
        # the lead at the end of each turn (index 0: before the first), for the arc
        # columns (game.track, record_arc); read only by record, never by play: clone
        # leaves it out
        ("arc_leads", np.int16, (ARC_TURNS,)),
    ],
    align=True,
)


def new_state() -> np.record:
    """A zeroed state record (usable both compiled and with NUMBA_DISABLE_JIT=1)."""
    return np.zeros(1, dtype=STATE_DTYPE).view(np.recarray)[0]
