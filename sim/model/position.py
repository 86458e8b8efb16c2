"""Between notation and the engine: build a state from a position and read one back."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from sim.engine.board import place
from sim.engine.cards import AXIS_H, AXIS_NONE, AXIS_V, DEFAULT_AXIS, UNDIRECTED
from sim.engine.game import clear
from sim.engine.state import (
    MAX_CARDS,
    MAX_COLS,
    MAX_DECK,
    MAX_HAND,
    NO_CARD,
    VISIBILITIES,
    new_state,
)
from sim.model.notation import MARK, Card, Slot
from sim.model.rules import RuleOptions


class PositionError(ValueError):
    """A position larger than the engine's state can hold: refused, never cut short."""


@dataclass
class Position:
    """Everything a scenario can say about a game, by digit (0 and 1)."""

    rules: RuleOptions
    rows: list[list[Slot]]
    mover: int = 0
    hands: tuple[list[Card], list[Card]] = field(default_factory=lambda: ([], []))
    piles: tuple[list[Card], list[Card]] = field(default_factory=lambda: ([], []))
    cut: list[Card] = field(default_factory=list)
    forced: tuple[int, int] | None = None  # (line index, column)
    passed: tuple[bool, bool] = (False, False)
    cpu: int = -1  # solo mode: the CPU's digit
    cpu_side: int = 0  # 1 WINNING, 0 NOT WINNING
    cpu_step: int = 1
    cpu_first: bool = False


def build_state(pos: Position):
    """A fresh engine state holding the position (card owners are taken to be their faces)."""
    check_fits(pos)
    s = new_state()
    free = pos.rules.orientation == "free"
    clear(s, pos.rules.lines, pos.rules.run_capacity, int(free))
    ids = _Allocator(s, free)
    for line, row in enumerate(pos.rows):
        for col, slot in enumerate(row):
            if slot == MARK:
                s.mark[line, col] = 1
                s.span = max(s.span, col + 1)  # columns from span on stay empty (clear, clone)
            elif slot is not None:
                place(s, ids.new(slot), line, col)
                if slot.saved:
                    s.saved[s.grid[line, col]] = 1
    for digit in (0, 1):
        for card in pos.hands[digit]:
            s.hand[digit, s.hand_len[digit]] = ids.new(card)
            s.hand_len[digit] += 1
        for i, card in enumerate(pos.piles[digit]):
            s.pile[digit, i] = ids.new(card)
        s.pile_top[digit] = 0
        s.pile_len[digit] = len(pos.piles[digit])
        s.passed[digit] = pos.passed[digit]
    for card in pos.cut:
        s.cut[s.cut_len] = ids.new(card)
        s.cut_len += 1
    if pos.forced:
        s.forced_line, s.forced_col = pos.forced
    s.mover = pos.mover
    s.first = pos.mover
    s.cpu = pos.cpu
    s.visibility = VISIBILITIES.index(pos.rules.visibility)
    if pos.cpu >= 0:
        s.first = 1 - pos.cpu  # the human always plays first
        s.cpu_level = pos.rules.cpu_level
        s.cpu_numeric = int(pos.rules.cpu_reading == "numeric")
        s.cpu_side, s.cpu_step, s.cpu_first = pos.cpu_side, pos.cpu_step, int(pos.cpu_first)
    return s


def check_fits(pos: Position) -> None:
    """PositionError unless the engine's state can hold the position (state.MAX_*)."""
    for line, row in enumerate(pos.rows):
        if len(row) > MAX_COLS:
            raise PositionError(
                f"line {10 * (line + 1)} is {len(row)} slots wide; the engine holds {MAX_COLS}"
            )
    for digit in (0, 1):
        if len(pos.hands[digit]) > MAX_HAND:
            raise PositionError(
                f"digit {digit} holds {len(pos.hands[digit])} cards in hand; "
                f"the engine holds at most {MAX_HAND}"
            )
        if len(pos.piles[digit]) > MAX_DECK:
            raise PositionError(
                f"digit {digit}'s pile has {len(pos.piles[digit])} cards; "
                f"the engine holds at most {MAX_DECK}"
            )
    shown = sum(isinstance(slot, Card) for row in pos.rows for slot in row)
    total = shown + sum(map(len, pos.hands)) + sum(map(len, pos.piles)) + len(pos.cut)
    if total > MAX_CARDS:
        raise PositionError(f"the position has {total} cards; the engine holds at most {MAX_CARDS}")


class _Allocator:
    """Gives each card of a position the next card id."""

    def __init__(self, s, free: bool):
        self.s = s
        self.free = free

    def new(self, card: Card) -> int:
        s = self.s
        cid = int(s.n_cards)
        s.n_cards += 1
        s.kind[cid] = card.kind
        s.face[cid] = card.face
        s.owner[cid] = card.face
        s.dirn[cid] = card.direction
        s.saved[cid] = 0
        s.axis[cid] = _axis(card)
        return cid


def _axis(card: Card) -> int:
    if card.kind in UNDIRECTED:
        return AXIS_NONE
    if card.axis in (AXIS_H, AXIS_V):
        return card.axis
    return DEFAULT_AXIS[card.kind]


def card_at(s, cid: int, in_display: bool) -> Card:
    """The notation view of one card (one shared Card per value: Cards are immutable, and
    building one is most of the cost of an observation's cards)."""
    key = (
        int(s.face[cid]),
        int(s.kind[cid]),
        int(s.axis[cid]),
        int(s.dirn[cid]) if in_display else 0,
        bool(s.saved[cid]) if in_display else False,
    )
    card = _CARDS.get(key)
    if card is None:
        card = _CARDS[key] = Card(*key)
    return card


_CARDS: dict[tuple[int, int, int, int, bool], Card] = {}  # at most faces*kinds*axes*dirs*2


_VIEW_FIELDS = [
    "grid",
    "mark",
    "width",
    "lines",
    "face",
    "kind",
    "axis",
    "dirn",
    "saved",
    "hand",
    "hand_len",
    "pile",
    "pile_top",
    "pile_len",
    "cut",
    "cut_len",
    "removed",
    "removed_len",
    "forced_line",
    "forced_col",
    "turns",
    "visibility",
]


class Plain:
    """The fields a view of the game reads, as Python lists and ints: reading a NumPy record
    element by element from Python is slow, and observations read hundreds of elements."""

    def __init__(self, s) -> None:
        read = s.__getitem__ if isinstance(s, np.void) else s.__getattribute__
        cols = used_columns(read)
        for name in _VIEW_FIELDS:
            value = read(name)
            if name in _DISPLAY_FIELDS:
                value = value[:, :cols]
            setattr(self, name, value.tolist() if hasattr(value, "tolist") else value)


_DISPLAY_FIELDS = ("grid", "mark")


def used_columns(read) -> int:
    """How many display columns can hold a card or a mark (read: a state's field by name):
    all of them unless the state is tidy, else its span (every column from there on stays
    empty, see engine/clone.py), or a line's width if wider."""
    if not read("tidy"):
        return MAX_COLS
    return max(int(read("span")), *read("width").tolist())


def display_rows(s) -> list[list[Slot]]:
    """The display as rows of notation slots (s: a state or its Plain fields)."""
    rows: list[list[Slot]] = []
    for line in range(int(s.lines)):
        grid, mark = s.grid[line], s.mark[line]
        marks = [c for c in range(len(mark)) if mark[c]]
        width = max([int(s.width[line])] + [c + 1 for c in marks])
        row: list[Slot] = []
        for col in range(width):
            cid = int(grid[col])
            row.append(card_at(s, cid, True) if cid != NO_CARD else MARK if mark[col] else None)
        rows.append(row)
    return rows


def hand_cards(s, digit: int) -> list[Card]:
    return [card_at(s, int(s.hand[digit][i]), False) for i in range(int(s.hand_len[digit]))]


def hand_of(record, digit: int) -> tuple[list[int], list[Card]]:
    """A seat's hand as card ids and cards, read from a state record (np.void): the few
    fields a turn's record needs, not a whole Plain copy of the state each turn."""
    fields = SimpleNamespace(**{f: record[f].tolist() for f in ("face", "kind", "axis")})
    ids = record["hand"][digit][: record["hand_len"][digit]].tolist()
    return ids, [card_at(fields, cid, False) for cid in ids]


def pile_cards(s, digit: int) -> list[Card]:
    return [
        card_at(s, int(s.pile[digit][i]), False)
        for i in range(int(s.pile_top[digit]), int(s.pile_len[digit]))
    ]


def cut_cards(s) -> list[Card]:
    return [card_at(s, int(s.cut[i]), False) for i in range(int(s.cut_len))]
