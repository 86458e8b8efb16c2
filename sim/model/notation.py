"""Position notation (docs/RULES.md 12): parse and render cards, hands and displays."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sim.engine.cards import (
    AXIS_H,
    AXIS_LETTERS,
    AXIS_NONE,
    AXIS_V,
    CODES,
    DIR_NONE,
    DIR_SYMBOLS,
    DOWN,
    LEFT,
    NAMES,
    RIGHT,
    UNDIRECTED,
    UP,
)

_CODE_PATTERN = "|".join(code for code in CODES if code)
_DISPLAY_CARD = re.compile(rf"^([01])({_CODE_PATTERN})?([<>^v])?(\*)?$")
_HAND_CARD = re.compile(rf"^([01])({_CODE_PATTERN})?([HV])?$")
_LINE = re.compile(r"^\s*(\d+)\s*:(.*)$")
_KIND_BY_CODE = {code: kind for kind, code in enumerate(CODES)}
_DIR_BY_SYMBOL = {symbol: d for d, symbol in enumerate(DIR_SYMBOLS) if symbol}


class NotationError(ValueError):
    """Text that is not valid position notation."""


@dataclass(frozen=True)
class Card:
    """A card as notation describes it. axis is None when the text leaves it unsaid."""

    face: int
    kind: int
    axis: int | None = None
    direction: int = DIR_NONE
    saved: bool = False

    def matches(self, other: Card) -> bool:
        """Same face and kind, and same axis unless either leaves it unsaid."""
        return (
            self.face == other.face
            and self.kind == other.kind
            and (self.axis is None or other.axis is None or self.axis == other.axis)
        )


MARK = "mark"  # an empty slot marked by a pending SAVE
Slot = Card | None | str


def axis_of_direction(direction: int) -> int:
    return (
        AXIS_H if direction in (LEFT, RIGHT) else AXIS_V if direction in (UP, DOWN) else AXIS_NONE
    )


def parse_display_card(token: str) -> Card:
    match = _DISPLAY_CARD.match(token)
    if not match:
        raise NotationError(f"not a display card: {token!r}")
    face, code, symbol, star = match.groups()
    kind = _KIND_BY_CODE[code or ""]
    direction = _DIR_BY_SYMBOL[symbol] if symbol else DIR_NONE
    if kind in UNDIRECTED and direction != DIR_NONE:
        raise NotationError(f"{token!r}: this card has no direction")
    if kind not in UNDIRECTED and direction == DIR_NONE:
        raise NotationError(f"{token!r}: a card in the display needs a direction (< > ^ v)")
    return Card(int(face), kind, axis_of_direction(direction), direction, bool(star))


def parse_hand_card(token: str) -> Card:
    match = _HAND_CARD.match(token.strip())
    if not match:
        raise NotationError(f"not a hand card: {token!r}")
    face, code, letter = match.groups()
    kind = _KIND_BY_CODE[code or ""]
    if kind in UNDIRECTED:
        if letter:
            raise NotationError(f"{token!r}: this card has no axis")
        return Card(int(face), kind, AXIS_NONE)
    return Card(int(face), kind, AXIS_LETTERS.index(letter) if letter else None)


def render_card(card: Card, in_display: bool) -> str:
    text = f"{card.face}{CODES[card.kind]}"
    if in_display:
        return text + DIR_SYMBOLS[card.direction] + ("*" if card.saved else "")
    if card.kind not in UNDIRECTED and card.axis:
        text += AXIS_LETTERS[card.axis]
    return text


def parse_display(text: str, lines: int) -> list[list[Slot]]:
    """Rows of slots (Card, None for a gap, MARK for a marked gap), one row per line."""
    rows: list[list[Slot]] = [[] for _ in range(lines)]
    seen: set[int] = set()
    for raw in text.replace("\\n", "\n").splitlines():
        if not raw.strip():
            continue
        match = _LINE.match(raw)
        if not match:
            raise NotationError(f"not a display line: {raw!r}")
        value = int(match.group(1))
        if value % 10 or not 1 <= value // 10 <= lines:
            raise NotationError(f"no line {value} in a {lines}-line display")
        if value in seen:
            raise NotationError(f"line {value} written twice")
        seen.add(value)
        rows[value // 10 - 1] = [_parse_slot(token) for token in match.group(2).split()]
    return rows


def _parse_slot(token: str) -> Slot:
    if token == ".":
        return None
    if token == ".*":
        return MARK
    return parse_display_card(token)


def render_display(rows: list[list[Slot]]) -> str:
    """Canonical text: lines with content only, trailing plain gaps dropped."""
    out = []
    for line, row in enumerate(rows):
        while row and row[-1] is None:
            row = row[:-1]
        if row:
            tokens = [
                "." if slot is None else ".*" if slot == MARK else render_card(slot, True)
                for slot in row
            ]
            out.append(f"{10 * (line + 1)}: " + " ".join(tokens))
    return "\n".join(out)


def normalise_display(text: str, lines: int) -> str:
    return render_display(parse_display(text, lines))


def legend(kinds) -> str:
    """A short key to the notation (docs/RULES.md 12), naming the codes of the given kinds."""
    codes = ", ".join(f"{CODES[k] or '(none)'} {NAMES[k]}" for k in sorted({int(k) for k in kinds}))
    return "\n".join(
        (
            "notation (docs/RULES.md 12): a card is its face digit 0/1, then its kind's code,",
            "  then in the display its direction < > (axis H) or ^ v (axis V), and * if saved;",
            "  in a hand the axis follows the code (0DELH); . is an empty slot, .* one marked",
            "  by a pending SAVE; each board row is a line (10: ...), the last one the RUN.",
            f"  codes: {codes}",
        )
    )
