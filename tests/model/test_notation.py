"""Position notation (RULES.md 12): parsing, rendering and exact round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.engine.cards import AXIS_H, CODES, DELETE, DOWN, LEFT, SAVE, UNDIRECTED, UP
from sim.model.notation import (
    MARK,
    Card,
    NotationError,
    parse_display,
    parse_display_card,
    parse_hand_card,
    render_card,
    render_display,
)


def test_examples_from_rules():
    assert parse_display_card("0DEL>") == Card(0, DELETE, AXIS_H, 2, False)
    assert parse_display_card("1SAV^*") == Card(1, SAVE, 2, UP, True)
    assert parse_hand_card("0DELH") == Card(0, DELETE, AXIS_H)
    assert parse_hand_card("0PRTV").axis == 2
    assert parse_hand_card("1") == Card(1, 0, 0)


def test_display_line_with_gap_and_mark():
    rows = parse_display("30: 1 0DEL> . 1\n10: 0 .*", 5)
    assert rows[2][2] is None and rows[0][1] == MARK
    assert rows[1] == [] and rows[3] == []
    assert render_display(rows) == "10: 0 .*\n30: 1 0DEL> . 1"


def test_trailing_gaps_are_not_written():
    assert render_display(parse_display("20: 1 . .", 5)) == "20: 1"


@pytest.mark.parametrize("bad", ["2", "0XYZ", "0DEL", "0ITE>", "1GET<", "0DEL>>"])
def test_bad_display_cards_are_refused(bad):
    with pytest.raises(NotationError):
        parse_display_card(bad)


@pytest.mark.parametrize("text", ["70: 0", "15: 1", "10 0", "10: 0\n10: 1"])
def test_bad_display_lines_are_refused(text):
    with pytest.raises(NotationError):
        parse_display(text, 6)


def _display_cards():
    kinds = st.integers(0, len(CODES) - 1)

    def build(kind, face, direction, saved):
        if kind in UNDIRECTED:
            return Card(face, kind, 0, 0, saved)
        return Card(face, kind, 1 if direction in (LEFT, LEFT + 1) else 2, direction, saved)

    return st.builds(build, kinds, st.integers(0, 1), st.integers(LEFT, DOWN), st.booleans())


@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.just(MARK), _display_cards()), max_size=8),
        min_size=6,
        max_size=6,
    )
)
def test_display_round_trip(rows):
    text = render_display(rows)
    assert render_display(parse_display(text, 6)) == text


@given(_display_cards())
def test_card_round_trip(card):
    assert parse_display_card(render_card(card, True)) == card
