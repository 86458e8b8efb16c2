"""The shape of a scenario file (RULES.md 13), checked before anything is played.

RULES.md 13 makes the format strict: a field the table does not list, or a value of the
wrong kind, makes the file malformed, and the message names the field, so a typo such as
`expct` can never pass silently.
"""

from __future__ import annotations

import re

# the fields a scenario file may use, by where they stand
FIELDS = {
    "rules", "before", "player", "hand", "opp_hand", "pile", "opp_pile", "cut_pile",
    "forced", "opp_passed", "load", "move", "cpu_digit", "cpu", "after", "expect", "why",
}  # fmt: skip
MOVE_FIELDS = {"card", "line", "dir", "sub"}
SUB_FIELDS = {"card", "dir", "line"}
CPU_FIELDS = {"side", "step", "first_turn", "level"}
EXPECT_FIELDS = {
    "ended", "hand", "opp_hand", "pile", "opp_pile", "cut_pile", "forced", "scores",
    "controllers", "result", "legal", "legal_next", "cpu_side", "cpu_step", "error",
}  # fmt: skip
SIDES = ("NOT WINNING", "WINNING")
END_NAMES = ("run", "deck_out", "stalled", "cpu_out")
OUTCOMES = ("points", "tiebreak", "draw")
DIRECTIONS = ("<", ">", "^", "v")
_SLOT = re.compile(r"^\d+:\d+$")
_CARD_LISTS = ("hand", "opp_hand", "pile", "opp_pile", "cut_pile")


class ScenarioError(ValueError):
    """A scenario file that cannot be read as RULES.md 13 describes."""


def validate(data) -> None:
    """Raise ScenarioError naming the first field that RULES.md 13 does not allow."""
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    _known(data, FIELDS, "")
    if "before" not in data:
        raise ScenarioError("'before' is required")
    _text(data, "before")
    if "after" in data:
        _text(data, "after")
    for key in ("player", "cpu_digit"):
        if key in data:
            _digit(data[key], key)
    for key in _CARD_LISTS:
        if key in data:
            _tokens(data[key], key)
    if "forced" in data:
        _slot(data["forced"], "forced")
    for key in ("opp_passed", "load"):
        if key in data and not isinstance(data[key], bool):
            raise ScenarioError(f"{key}: true or false, not {data[key]!r}")
    if "rules" in data and not isinstance(data["rules"], dict):
        raise ScenarioError("rules: an object of rule options")
    if "why" in data and not isinstance(data["why"], str | list):
        raise ScenarioError("why: a text")
    if "move" in data:
        _move(data["move"])
    if "cpu" in data:
        _cpu(data["cpu"])
    if "expect" in data:
        _expect(data["expect"])


def absent_nulls(data):
    """The file with JSON null read as the field left out (RULES.md 13 omits an optional
    field, e.g. `dir` for an undirected card): at the top level and in rules, move, each
    sub-decision and cpu. Inside expect, null is a value (`ended: null`: the game goes on)."""
    if not isinstance(data, dict):
        return data
    out = _present(data)
    for key in ("rules", "cpu"):
        out[key] = _present(out[key]) if isinstance(out.get(key), dict) else out.get(key)
    move = out.get("move")
    if isinstance(move, dict):
        out["move"] = move = _present(move)
        if isinstance(move.get("sub"), list):
            move["sub"] = [_present(s) if isinstance(s, dict) else s for s in move["sub"]]
    return {k: v for k, v in out.items() if v is not None}


def _present(table: dict) -> dict:
    return {k: v for k, v in table.items() if v is not None}


def _known(table: dict, allowed: set[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            name = f"{where}.{key}" if where else key
            raise ScenarioError(f"unknown field {name!r}; RULES.md 13 allows {sorted(allowed)}")


def _text(data: dict, key: str) -> None:
    if not isinstance(data[key], str):
        raise ScenarioError(f"{key}: a display text, lines separated by newlines")


def _int(value, where: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ScenarioError(f"{where}: a whole number from {low} to {high}, not {value!r}")


def _digit(value, where: str) -> None:
    if value not in (0, 1) or isinstance(value, bool):
        raise ScenarioError(f"{where}: a digit, 0 or 1, not {value!r}")


def _line(value, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value % 10:
        raise ScenarioError(f"{where}: a line value (10, 20, ...), not {value!r}")


def _tokens(value, where: str) -> None:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ScenarioError(f'{where}: a list of cards in hand notation, such as ["0DELH"]')


def _slot(value, where: str) -> None:
    if value is None and where.startswith("expect"):
        return
    if not isinstance(value, str) or not _SLOT.match(value):
        raise ScenarioError(f'{where}: a slot written LINE:COL, such as "30:2", not {value!r}')
    _line(int(value.split(":")[0]), where)


def _move(move) -> None:
    if move in ("pass", "cpu"):
        return
    if not isinstance(move, dict):
        raise ScenarioError(f'move: an object {{card, line, ...}}, "pass" or "cpu", not {move!r}')
    _known(move, MOVE_FIELDS, "move")
    for key in ("card", "line"):
        if key not in move:
            raise ScenarioError(f"move.{key} is required for a card move")
    if not isinstance(move["card"], str):
        raise ScenarioError("move.card: a card in hand notation")
    _line(move["line"], "move.line")
    _direction(move, "move")
    subs = move.get("sub", [])
    if not isinstance(subs, list):
        raise ScenarioError("move.sub: a list of sub-decisions")
    for sub in subs:
        _sub(sub)


def _sub(sub) -> None:
    if not isinstance(sub, dict):
        raise ScenarioError(f"move.sub: each sub-decision is an object, not {sub!r}")
    _known(sub, SUB_FIELDS, "move.sub")
    if ("line" in sub) == ("card" in sub):
        raise ScenarioError("move.sub: each sub-decision has a card (PRINT, PASTE) or a line")
    if "line" in sub:
        _line(sub["line"], "move.sub.line")
        if "dir" in sub:
            raise ScenarioError("move.sub: a GOSUB line has no direction")
    elif not isinstance(sub["card"], str):
        raise ScenarioError("move.sub.card: a card in hand notation")
    _direction(sub, "move.sub")


def _direction(table: dict, where: str) -> None:
    if "dir" in table and table["dir"] not in DIRECTIONS:
        raise ScenarioError(f"{where}.dir: one of < > ^ v, not {table['dir']!r}")


def _cpu(card) -> None:
    if not isinstance(card, dict):
        raise ScenarioError("cpu: an object {side, step, first_turn, level}")
    _known(card, CPU_FIELDS, "cpu")
    if "side" in card and card["side"] not in SIDES:
        raise ScenarioError(f'cpu.side: "WINNING" or "NOT WINNING", not {card["side"]!r}')
    for key in ("step", "level"):
        if key in card:
            _int(card[key], f"cpu.{key}", 1, 4)
    if "first_turn" in card and not isinstance(card["first_turn"], bool):
        raise ScenarioError("cpu.first_turn: true or false")


def _expect(expect) -> None:
    if not isinstance(expect, dict):
        raise ScenarioError("expect: an object of checks")
    _known(expect, EXPECT_FIELDS, "expect")
    for key, value in expect.items():
        _EXPECT_CHECKS[key](value, f"expect.{key}")


def _one_of(choices: tuple, allow_none: bool = False):
    def check(value, where: str) -> None:
        if value not in choices and not (allow_none and value is None):
            raise ScenarioError(f"{where}: one of {list(choices)}, not {value!r}")

    return check


def _scores(value, where: str) -> None:
    if not isinstance(value, list) or len(value) != 2:
        raise ScenarioError(f"{where}: [score of digit 0, score of digit 1]")
    for score in value:
        _int(score, where, 0, 10**6)


def _controllers(value, where: str) -> None:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: an object from line value to digit or null")
    for line, digit in value.items():
        if not line.isdigit():
            raise ScenarioError(f"{where}: {line!r} is not a line value")
        _line(int(line), where)
        if digit is not None:
            _digit(digit, f"{where}.{line}")


def _result(value, where: str) -> None:
    if not isinstance(value, dict) or set(value) != {"winner", "outcome"}:
        raise ScenarioError(f"{where}: gives both 'winner' and 'outcome', and nothing else")
    if value["winner"] is not None:
        _digit(value["winner"], f"{where}.winner")
    _one_of(OUTCOMES)(value["outcome"], f"{where}.outcome")


def _legal(value, where: str) -> None:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: an object from hand card to its legal line values")
    for card, lines in value.items():
        if not isinstance(lines, list):
            raise ScenarioError(f"{where}.{card}: a list of line values")
        for line in lines:
            _line(line, f"{where}.{card}")


_EXPECT_CHECKS = {
    "ended": _one_of(END_NAMES, allow_none=True),
    "hand": _tokens,
    "opp_hand": _tokens,
    "pile": _tokens,
    "opp_pile": _tokens,
    "cut_pile": _tokens,
    "forced": _slot,
    "scores": _scores,
    "controllers": _controllers,
    "result": _result,
    "legal": _legal,
    "legal_next": _legal,
    "cpu_side": _one_of(SIDES),
    "cpu_step": lambda value, where: _int(value, where, 1, 4),
    "error": _one_of(("IllegalMove",)),
}
