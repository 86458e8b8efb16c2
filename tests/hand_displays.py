"""Displays set by hand on an engine state, for the arc's tests: which digit controls which
line, with the lead the board keeps brought up to date as a placement would."""

from __future__ import annotations

from sim.engine.board import keep_lead


def controlled(s, lines: dict[int, int]) -> None:
    """A display where digit lines[v] controls the line worth v and no other line is
    controlled: 3 cards showing that digit (the engine's kept counts), other lines empty;
    the lead brought up to date line by line as the board does (board.keep_lead)."""
    for line in range(int(s.lines)):
        who = lines.get(10 * (line + 1))
        s.count[line] = 0 if who is None else 3
        s.ones[line] = 3 * (who or 0)
        s.rems[line] = 0
        keep_lead(s, line)
