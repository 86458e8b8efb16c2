"""Scenario files (RULES.md 13): load one, apply its move, compare with what it expects."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sim.engine.cards import DIR_NONE, DIR_SYMBOLS
from sim.engine.cpu import cpu_turn
from sim.engine.score import controller, scores
from sim.engine.state import END_REASONS
from sim.model.documents import parse_json
from sim.model.moves import EngineLimit, IllegalMove, Move, SubChoice, apply_move, legal_lines
from sim.model.notation import (
    Card,
    NotationError,
    normalise_display,
    parse_display,
    parse_hand_card,
    render_card,
    render_display,
)
from sim.model.position import (
    Position,
    PositionError,
    build_state,
    cut_cards,
    display_rows,
    hand_cards,
    pile_cards,
)
from sim.model.rules import RuleError, RuleOptions
from sim.model.scenario_format import SIDES, ScenarioError, absent_nulls, validate

_DIRS = {symbol: d for d, symbol in enumerate(DIR_SYMBOLS) if symbol}


@dataclass
class Outcome:
    """What running a scenario produced, and how it differs from what the file expects."""

    path: str
    display: str = ""
    facts: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def load(path: str | Path) -> dict:
    """The file's fields, checked against RULES.md 13 (ScenarioError names file and field)."""
    try:
        return _read(path)
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from exc


def _read(path: str | Path) -> dict:
    try:
        data = absent_nulls(parse_json(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ScenarioError(str(exc)) from None
    validate(data)
    return data


def run(path: str | Path) -> Outcome:
    """Apply the scenario's move (if any) and check every expectation it states; a file
    that is malformed or holds a position the engine cannot represent fails, with why."""
    outcome = Outcome(str(path))
    try:
        _run(_read(path), outcome)
    except (ScenarioError, NotationError, RuleError) as exc:
        outcome.failures.append(f"malformed: {exc}")
    except (PositionError, EngineLimit) as exc:
        outcome.failures.append(f"cannot run scenario: {exc}")
    return outcome


def _run(data: dict, outcome: Outcome) -> None:
    move_data = data.get("move")
    cpu_move = move_data == "cpu"
    rules = _rules(data)
    mover = _mover(data, move_data)
    card_state = data.get("cpu", {})
    pos = Position(
        cpu=mover if cpu_move else int(data.get("cpu_digit", -1)),
        cpu_side=SIDES.index(card_state.get("side", "NOT WINNING")),
        cpu_step=int(card_state.get("step", rules.cpu_level)),  # the level's first step
        cpu_first=bool(card_state.get("first_turn", True)),
        rules=rules,
        rows=parse_display(data["before"], rules.lines),
        mover=mover,
        hands=_by_digit(mover, _cards(data.get("hand")), _cards(data.get("opp_hand"))),
        piles=_by_digit(mover, _cards(data.get("pile")), _cards(data.get("opp_pile"))),
        cut=_cards(data.get("cut_pile")),
        forced=_slot(data.get("forced"), rules.lines),
        passed=_by_digit(mover, False, bool(data.get("opp_passed", False))),
    )
    s = build_state(pos)
    expect = data.get("expect", {})
    if "legal" in expect:
        _compare(outcome, "legal", _legal(s, mover), _norm_legal(expect["legal"]))
    try:
        _apply(s, data, move_data, mover, rules.lines)
    except IllegalMove as exc:
        outcome.facts["error"] = "IllegalMove"
        if expect.get("error") != "IllegalMove":
            outcome.failures.append(f"move refused: {exc}")
        return
    if expect.get("error"):
        outcome.failures.append(f"expected error {expect['error']}, but the move was accepted")
    outcome.display = render_display(display_rows(s))
    outcome.facts = _facts(s, mover)
    if move_data is None:  # `forced` binds the mover's turn only, which was not played
        s.forced_line = -1
    if "after" in data:
        _compare(outcome, "after", outcome.display, normalise_display(data["after"], rules.lines))
    for key, wanted in expect.items():
        if key not in ("legal", "error"):
            _CHECKS[key](outcome, s, mover, wanted)


def _rules(data: dict) -> RuleOptions:
    """The rule options, with a CPU move's `level` standing for `rules.cpu_level`."""
    values = dict(data.get("rules", {}))
    level = data.get("cpu", {}).get("level")
    if level is not None:
        if values.get("cpu_level", level) != level:
            raise ScenarioError(
                f"cpu.level {level} and rules.cpu_level {values['cpu_level']} disagree"
            )
        values["cpu_level"] = level
    return RuleOptions.from_mapping(values, "rules")


def _apply(s, data: dict, move_data, mover: int, lines: int) -> None:
    """The scenario's move, if it has one; an engine limit is reported, never truncated."""
    if move_data is None:
        return
    if move_data == "cpu":
        cpu_turn(s)
        if s.error:
            raise EngineLimit(f"the CPU's turn went past the engine's limits (error {s.error})")
        return
    apply_move(s, mover, _move(move_data, lines), load=bool(data.get("load", False)))


def _mover(data: dict, move_data) -> int:
    if "player" in data:
        return int(data["player"])
    if isinstance(move_data, dict) and "card" in move_data:
        return parse_hand_card(move_data["card"]).face
    return 0


def _by_digit(mover: int, mine, theirs):
    return (mine, theirs) if mover == 0 else (theirs, mine)


def _cards(tokens) -> list[Card]:
    return [parse_hand_card(t) for t in (tokens or [])]


def _slot(text, lines: int):
    if text is None:
        return None
    line, col = text.split(":")  # scenario_format checked it is LINE:COL
    return _line_index(int(line), lines, "forced"), int(col)


def _line_index(value: int, lines: int, where: str) -> int:
    if value % 10 or not 1 <= value // 10 <= lines:
        raise ScenarioError(f"{where}: no line {value} in a {lines}-line display")
    return value // 10 - 1


def _direction(symbol) -> int:
    if symbol is None:
        return DIR_NONE
    return _DIRS[symbol]


def _move(move_data, lines: int) -> Move:
    if move_data == "pass":
        return Move(card=None)
    subs = tuple(
        SubChoice(line=_line_index(sub["line"], lines, "move.sub.line"))
        if "line" in sub
        else SubChoice(card=parse_hand_card(sub["card"]), direction=_direction(sub.get("dir")))
        for sub in move_data.get("sub", [])
    )
    return Move(
        card=parse_hand_card(move_data["card"]),
        line=_line_index(move_data["line"], lines, "move.line"),
        direction=_direction(move_data.get("dir")),
        subs=subs,
    )


def _legal(s, digit: int) -> dict[str, list[int]]:
    """Each hand card that has a legal line, with its line values (RULES.md 13: a card with
    none is left out, which is what listing it with [] means too)."""
    out: dict[str, list[int]] = {}
    for card, lines in zip(hand_cards(s, digit), legal_lines(s, digit), strict=True):
        values = sorted({10 * (line + 1) for line in lines} | set(out.get(_hand(card), [])))
        if values:
            out[_hand(card)] = values
    return out


def _norm_legal(wanted: dict) -> dict[str, list[int]]:
    return {
        _hand(parse_hand_card(k)): sorted(int(v) for v in lines)
        for k, lines in wanted.items()
        if lines
    }


def _hand(card: Card) -> str:
    return render_card(card, False)


def _facts(s, mover: int) -> dict:
    zero, one = scores(s)
    return {
        "ended": END_REASONS[int(s.ended)] or None,
        "scores": [int(zero), int(one)],
        "hand": [_hand(c) for c in hand_cards(s, mover)],
        "forced": None if s.forced_line < 0 else f"{10 * (s.forced_line + 1)}:{s.forced_col}",
    }


def _compare(outcome: Outcome, what: str, got, wanted) -> None:
    if got != wanted:
        outcome.failures.append(f"{what}: expected {wanted!r}, got {got!r}")


def _compare_cards(outcome, what, got: list[Card], wanted_tokens, ordered: bool) -> None:
    wanted = _cards(wanted_tokens)
    if ordered:
        ok = len(got) == len(wanted) and all(w.matches(g) for g, w in zip(got, wanted, strict=True))
    else:
        remaining = list(got)
        ok = len(got) == len(wanted)
        for w in wanted:
            hit = next((g for g in remaining if w.matches(g)), None)
            if hit is None:
                ok = False
                break
            remaining.remove(hit)
    if not ok:
        outcome.failures.append(
            f"{what}: expected {list(wanted_tokens)}, got {[_hand(c) for c in got]}"
        )


def _result(s) -> dict:
    zero, one = (int(x) for x in scores(s))
    if zero != one:
        return {"winner": 0 if zero > one else 1, "outcome": "points"}
    if s.cpu >= 0:  # solo mode: equal scores lose for the CPU (RULES.md 8)
        return {"winner": 1 - int(s.cpu), "outcome": "tiebreak"}
    if zero == 0:
        return {"winner": None, "outcome": "draw"}
    for line in range(int(s.lines) - 1, -1, -1):
        who = int(controller(s, line))
        if who >= 0:
            return {"winner": who, "outcome": "tiebreak"}
    raise AssertionError("equal non-zero scores with no controlled line")


def _check_controllers(outcome, s, mover, wanted):
    for value, digit in wanted.items():
        who = int(controller(s, int(value) // 10 - 1))
        _compare(outcome, f"controller of {value}", None if who < 0 else who, digit)


def _check_legal_next(outcome, s, mover, wanted):
    _compare(outcome, "legal_next", _legal(s, 1 - mover), _norm_legal(wanted))


_CHECKS = {
    "cpu_side": lambda o, s, m, w: _compare(o, "cpu_side", SIDES[int(s.cpu_side)], w),
    "cpu_step": lambda o, s, m, w: _compare(o, "cpu_step", int(s.cpu_step), w),
    "ended": lambda o, s, m, w: _compare(o, "ended", o.facts["ended"], w),
    "scores": lambda o, s, m, w: _compare(o, "scores", o.facts["scores"], list(w)),
    "forced": lambda o, s, m, w: _compare(o, "forced", o.facts["forced"], w),
    "result": lambda o, s, m, w: _compare(o, "result", _result(s), dict(w)),
    "controllers": _check_controllers,
    "legal_next": _check_legal_next,
    "hand": lambda o, s, m, w: _compare_cards(o, "hand", hand_cards(s, m), w, ordered=False),
    "opp_hand": lambda o, s, m, w: _compare_cards(o, "opp_hand", hand_cards(s, 1 - m), w, False),
    "pile": lambda o, s, m, w: _compare_cards(o, "pile", pile_cards(s, m), w, ordered=True),
    "opp_pile": lambda o, s, m, w: _compare_cards(o, "opp_pile", pile_cards(s, 1 - m), w, True),
    "cut_pile": lambda o, s, m, w: _compare_cards(o, "cut_pile", cut_cards(s), w, ordered=True),
}


def scenario_files(paths: list[str]) -> list[Path]:
    """Every .json file named, or found under a named folder, in a stable order."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(path.rglob("*.json")))
        elif path.exists():
            found.append(path)
        else:
            raise ScenarioError(f"{name}: no such file or folder")
    return found
