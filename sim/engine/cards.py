"""Card kinds, axes and directions: small integer codes shared by the engine and the notation."""

from __future__ import annotations

BLANK, DELETE, ENTER, IFTHEN, PRINT, SAVE = 0, 1, 2, 3, 4, 5
CUT, PASTE, GOTO10, IFELSE, REM, SYNTAX = 6, 7, 8, 9, 10, 11
END, CONT, GET, GOSUB, NEXT = 12, 13, 14, 15, 16
N_KINDS = 17

# Notation codes (docs/RULES.md 12), indexed by kind. BLANK has no code.
CODES = (
    "",
    "DEL",
    "ENT",
    "IFT",
    "PRT",
    "SAV",
    "CUT",
    "PST",
    "GTO",
    "ITE",
    "REM",
    "SYN",
    "END",
    "CNT",
    "GET",
    "GSB",
    "NXT",
)
# Names as printed on the cards, used in configs and reports.
NAMES = (
    "BLANK",
    "DELETE",
    "ENTER",
    "IF...THEN",
    "PRINT",
    "SAVE",
    "CUT",
    "PASTE",
    "GOTO 10",
    "IF...THEN...ELSE",
    "REM",
    "SYNTAX ERROR",
    "END",
    "CONT",
    "GET",
    "GOSUB",
    "NEXT",
)
# Kinds whose text has no direction (docs/RULES.md 2).
UNDIRECTED = frozenset({BLANK, IFELSE, GET})

AXIS_NONE, AXIS_H, AXIS_V = 0, 1, 2
AXIS_LETTERS = ("-", "H", "V")

DIR_NONE, LEFT, RIGHT, UP, DOWN = 0, 1, 2, 3, 4
DIR_SYMBOLS = ("", "<", ">", "^", "v")

# Shipped default axis per kind when a single copy is dealt (docs/RULES.md 2 [decision]).
DEFAULT_AXIS = {k: (AXIS_NONE if k in UNDIRECTED else AXIS_H) for k in range(N_KINDS)}
DEFAULT_AXIS[SYNTAX] = AXIS_V


def kind_from_name(name: str) -> int:
    """Look a kind up by its printed name or notation code, ignoring case and dots."""
    key = _normalise(name)
    for kind in range(N_KINDS):
        if key in (_normalise(NAMES[kind]), _normalise(CODES[kind])) and key:
            return kind
    raise ValueError(f"unknown card kind {name!r}; known kinds: {', '.join(NAMES)}")


def _normalise(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())


def axis_allowed(kind: int, axis: int) -> bool:
    """Whether a card of this kind may carry this axis."""
    return (axis == AXIS_NONE) == (kind in UNDIRECTED)
