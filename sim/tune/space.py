"""The search space of `sim tune`: a TOML file naming the config it starts from, the card
counts, card swaps and rule options to vary, the match-ups to play and the targets to meet.

Validated once, like a config: every problem is one SpaceError naming the file and field.
Every point of a valid space is a valid config (checked at the deck's extremes here).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from reports.verdict import against
from sim.engine.cards import (
    AXIS_H,
    AXIS_LETTERS,
    AXIS_NONE,
    AXIS_V,
    BLANK,
    NAMES,
    UNDIRECTED,
    kind_from_name,
)
from sim.model.config import MAX_CARDS, MIN_DECK, Config, ConfigError, find, read_toml
from sim.model.config import load as load_config
from sim.model.rules import RuleError, RuleOptions
from sim.players.specs import PlayerError, parse_matchup, parse_player, read_matchup
from sim.tune.metrics import Value

METRICS = {
    "first_seat": "first seat's score - 50%, points (a draw half a win)",
    "a_score": "A's score against B, % (a draw half a win)",
    "tiebreak": "games decided by tie-break, %",
    "draw": "drawn games, %",
    "turns": "mean turns a game",
}
_TOP = {"description", "start", "matchups", "search", "cards", "swap", "rules", "target"}
_SEARCH = {
    "pairs": (1, 10**7, 1000),
    "rungs": (1, 8, 3),
    "startup": (1, 1000, 6),
    "confirm_max_pairs": (1, 10**8, 50_000),
    "confirm_candidates": (0, 100, 3),
}
_TARGET = {"metric", "matchup", "levels", "within", "at_most", "at_least", "goal"}


class SpaceError(ValueError):
    """A search space that cannot be used; the message names the file and field."""


Card = tuple[int, int | None]
"""(kind, axis); axis None: every copy of a directed kind, alternating H and V."""


@dataclass(frozen=True)
class Param:
    """One dimension optuna samples: a whole-number range (low, high) or a list of choices."""

    name: str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def contains(self, value) -> bool:
        if self.choices:
            return value in self.choices
        return isinstance(value, int) and self.low <= value <= self.high


@dataclass(frozen=True)
class Target:
    """A bound on one metric of one match-up: value in [low, high] (either may be None).
    An objective is minimised by optuna; a constraint only has to hold."""

    metric: str
    matchup: str
    low: float | None
    high: float | None
    goal: str = "objective"
    levels: tuple[str, ...] = ()  # a skill target: every level's self-play meets the bound

    @property
    def name(self) -> str:
        return f"{self.metric}[{self.matchup}]"

    def canonical(self) -> dict:
        """The fields that decide results (levels only when given: older studies' hashes
        stay)."""
        return {k: v for k, v in self.__dict__.items() if k != "levels" or v}

    def excess(self, value: float) -> float:
        """How far value lies outside the target, in the metric's units; <= 0 when inside
        (the more negative, the further inside)."""
        if self.low is not None and self.high is not None:
            centre, half = (self.low + self.high) / 2, (self.high - self.low) / 2
            return abs(value - centre) - half
        return value - self.high if self.high is not None else self.low - value

    def verdict(self, v: Value) -> str:
        """'met', 'missed' or 'open' for the metric's 95% interval, by the board's rule
        (reports/verdict.py), so `sim tune` and `sim summary` never disagree."""
        return against(v.low, v.high, self.low, self.high)

    def text(self) -> str:
        """'first_seat[heuristic,heuristic] in [-0.5, 0.5]' etc."""
        if self.low is not None and self.high is not None:
            bound = f"in [{self.low:g}, {self.high:g}]"
        else:
            bound = f"<= {self.high:g}" if self.high is not None else f">= {self.low:g}"
        return f"{self.name} {bound}"


@dataclass(frozen=True)
class Space:
    path: Path
    description: str
    start: Config
    matchups: tuple[str, ...]
    cards: dict[Card, Param]
    swaps: tuple[tuple[Card, Param], ...]
    rules: dict[str, Param]
    targets: tuple[Target, ...]
    search: dict[str, int] = field(default_factory=dict)

    @property
    def params(self) -> list[Param]:
        return [*self.cards.values(), *(p for _, p in self.swaps), *self.rules.values()]

    @property
    def objectives(self) -> list[Target]:
        return [t for t in self.targets if t.goal == "objective"]

    @property
    def constraints(self) -> list[Target]:
        return [t for t in self.targets if t.goal == "constraint"]

    @property
    def hash(self) -> str:
        """What decides a study's results: a study holds one space."""
        text = json.dumps(self.canonical(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def canonical(self) -> dict:
        return {
            "start": self.start.hash,
            "matchups": self.matchups,
            "params": [p.__dict__ for p in self.params],
            "targets": [t.canonical() for t in self.targets],
            "search": self.search,
        }

    def start_params(self) -> dict | None:
        """The start config as a point of the space, or None when it lies outside."""
        counts = {name: count(self.start.deck, card) for card, name in self._card_names()}
        values = {**counts, **{p.name: p.choices[0] for _, p in self.swaps}}
        values |= {name: getattr(self.start.rules, name[6:]) for name in self._rule_names()}
        by_name = {p.name: p for p in self.params}
        return values if all(by_name[k].contains(v) for k, v in values.items()) else None

    def _card_names(self):
        return [(card, p.name) for card, p in self.cards.items()]

    def _rule_names(self):
        return [p.name for p in self.rules.values()]


def card_text(card: Card) -> str:
    """'PRINT', 'PRINT H' or 'GET'."""
    kind, axis = card
    return NAMES[kind] if axis in (None, AXIS_NONE) else f"{NAMES[kind]} {AXIS_LETTERS[axis]}"


def count(deck, card: Card) -> int:
    """Copies of card in a deck of (kind, axis); every axis when card's axis is None."""
    kind, axis = card
    return sum(1 for k, a in deck if k == kind and (axis is None or a == axis))


def parse_card(text, where: str, any_axis: bool) -> Card:
    """'PRINT H', 'PRT V', 'GET', 'GOTO 10 H'; a bare directed kind only where any_axis."""
    if not isinstance(text, str):
        raise SpaceError(f'{where}: expected a card such as "PRINT H", got {text!r}')
    words = text.split()
    axis = words[-1].upper() if len(words) > 1 and words[-1].upper() in ("H", "V") else None
    name = " ".join(words[:-1]) if axis else text
    try:
        kind = kind_from_name(name)
    except ValueError as exc:
        raise SpaceError(f"{where}: {exc}") from None
    if kind in UNDIRECTED:
        if axis:
            raise SpaceError(f"{where}: {NAMES[kind]} has no direction, so no axis ({text!r})")
        return kind, AXIS_NONE
    if axis is None and not any_axis:
        raise SpaceError(f'{where}: {NAMES[kind]} needs an axis here ("{NAMES[kind]} H" or V)')
    return kind, None if axis is None else (AXIS_H if axis == "H" else AXIS_V)


def load(path: Path) -> Space:
    """Read and validate a search space file."""
    table = read_toml(path, SpaceError)
    unknown = sorted(set(table) - _TOP)
    if unknown:
        raise SpaceError(f"{path}: unknown field {unknown[0]!r}; known: {', '.join(sorted(_TOP))}")
    start = _start(path, table.get("start"))
    matchups = _matchups(path, table.get("matchups", ["random,random"]))
    cards = _cards(path, _table(path, table, "cards"))
    swaps = _swaps(path, table.get("swap", []), start, cards)
    rules = _rules(path, _table(path, table, "rules"), start)
    targets = _targets(path, table.get("target"), matchups)
    if not (cards or swaps or rules):
        raise SpaceError(f"{path}: nothing to vary: give [cards], [[swap]] or [rules]")
    search = _search(path, _table(path, table, "search"))
    description = table.get("description", "")
    if not isinstance(description, str):
        raise SpaceError(f"{path}: description: expected a string")
    space = Space(path, description, start, matchups, cards, swaps, rules, targets, search)
    _check_extremes(space)
    return space


def _table(path: Path, table: dict, key: str) -> dict:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise SpaceError(f"{path}: {key}: expected a table ([{key}]), got {value!r}")
    return value


def _start(path: Path, name) -> Config:
    if not isinstance(name, str):
        raise SpaceError(f"{path}: start: expected the name or .toml of the config to start from")
    try:
        return load_config(str(find(name, path.parent)))
    except ConfigError as exc:
        raise SpaceError(f"{path}: start: {exc}") from None


def _matchups(path: Path, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SpaceError(f'{path}: matchups: expected a list such as ["heuristic,heuristic"]')
    out = []
    for i, spec in enumerate(value):
        try:
            matchup = parse_matchup(spec)
        except PlayerError as exc:
            raise SpaceError(f"{path}: matchups[{i}]: {exc}") from None
        if matchup.second.name == "cpu":
            raise SpaceError(f"{path}: matchups[{i}]: the CPU card plays solo mode, not a pair")
        if matchup.text in out:
            raise SpaceError(f"{path}: matchups[{i}]: {matchup.text} given twice")
        out.append(matchup.text)
    return tuple(out)


def _int_range(where: str, value, low: int, high: int) -> Param:
    ok = isinstance(value, list) and len(value) == 2
    ok = ok and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    if not ok or not low <= value[0] <= value[1] <= high:
        raise SpaceError(
            f"{where}: expected [min, max], whole numbers {low}-{high} with min <= max, "
            f"got {value!r}"
        )
    return Param(where.split(": ", 1)[1], value[0], value[1])


def _cards(path: Path, table: dict) -> dict[Card, Param]:
    cards: dict[Card, Param] = {}
    for text, value in table.items():
        where = f"{path}: cards.{text}"
        card = parse_card(text, where, any_axis=True)
        clash = [c for c in cards if c[0] == card[0] and None in (c[1], card[1])]
        if card in cards or clash:
            raise SpaceError(f"{where}: {NAMES[card[0]]} is varied twice; give it once")
        param = _int_range(where, value, 0, MAX_CARDS)
        cards[card] = Param(f"cards.{text}", param.low, param.high)
    return cards


def _swaps(path: Path, entries, start: Config, cards: dict[Card, Param]):
    if not isinstance(entries, list):
        raise SpaceError(f"{path}: swap: expected an array of tables ([[swap]])")
    swaps: list[tuple[Card, Param]] = []
    for i, entry in enumerate(entries):
        where = f"{path}: swap[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"card", "choices"}:
            raise SpaceError(f'{where}: expected card = "KIND AXIS" and choices = [...]')
        card = parse_card(entry["card"], f"{where}.card", any_axis=False)
        if card[0] == BLANK or any(c[0] == card[0] for c in cards):
            raise SpaceError(
                f"{where}.card: {card_text(card)} is a BLANK or has its count varied in "
                "[cards]; swap another card"
            )
        if count(start.deck, card) <= sum(1 for c, _ in swaps if c == card):
            raise SpaceError(
                f"{where}.card: the start config {start.name} has no (more) {card_text(card)}"
            )
        choices = entry["choices"]
        if not isinstance(choices, list) or not choices:
            raise SpaceError(f"{where}.choices: expected a list of cards")
        parsed = [parse_card(c, f"{where}.choices[{j}]", False) for j, c in enumerate(choices)]
        if card in parsed or len(set(parsed)) < len(parsed):
            raise SpaceError(f"{where}.choices: each choice once, and not the card itself")
        n = sum(1 for c, _ in swaps if c == card)
        name = f"swap.{card_text(card)}" + (f"#{n + 1}" if n else "")
        swaps.append((card, Param(name, choices=tuple(map(card_text, [card, *parsed])))))
    return tuple(swaps)


def _rules(path: Path, table: dict, start: Config) -> dict[str, Param]:
    rules = {}
    for name, value in table.items():
        where = f"{path}: rules.{name}"
        if isinstance(value, dict) and set(value) == {"choices"}:
            value = value["choices"]
            is_range = False
        else:
            is_range = isinstance(value, list) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            )
        if not isinstance(value, list) or not value:
            raise SpaceError(f"{where}: expected [min, max] or a list of choices")
        if is_range:
            param = _int_range(where, value, 0, 10**6)
            ends = [param.low, param.high]
        else:
            if len(set(map(repr, value))) < len(value):
                raise SpaceError(f"{where}: each choice once, got {value!r}")
            param, ends = Param(f"rules.{name}", choices=tuple(value)), value
        for v in ends:
            try:
                RuleOptions.from_mapping({**start.rules.__dict__, name: v}, f"rules.{name}")
            except RuleError as exc:
                raise SpaceError(f"{path}: {exc}") from None
        rules[name] = param
    return rules


def _bound(where: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpaceError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _targets(path: Path, entries, matchups: tuple[str, ...]) -> tuple[Target, ...]:
    if not isinstance(entries, list) or not entries:
        raise SpaceError(f"{path}: target: give at least one [[target]] (metric and a bound)")
    targets = []
    for i, entry in enumerate(entries):
        where = f"{path}: target[{i}]"
        if not isinstance(entry, dict):
            raise SpaceError(f"{where}: expected a table")
        unknown = sorted(set(entry) - _TARGET)
        if unknown:
            raise SpaceError(f"{where}.{unknown[0]}: unknown field; known: {', '.join(_TARGET)}")
        metric = entry.get("metric")
        if metric not in METRICS:
            known = ", ".join(METRICS)
            raise SpaceError(f"{where}.metric: expected one of {known}, got {metric!r}")
        levels = _target_levels(where, entry, matchups) if "levels" in entry else ()
        matchup = LEVELS + "/".join(levels) if levels else _target_matchup(where, entry, matchups)
        low, high = _target_bounds(where, entry)
        goal = entry.get("goal", "objective")
        if goal not in ("objective", "constraint"):
            raise SpaceError(f'{where}.goal: expected "objective" or "constraint", got {goal!r}')
        target = Target(metric, matchup, low, high, goal, levels)
        if any(t.name == target.name for t in targets):
            raise SpaceError(f"{where}: a second target on {target.name}; join them in one")
        targets.append(target)
    if not any(t.goal == "objective" for t in targets):
        raise SpaceError(f'{path}: target: at least one target needs goal = "objective"')
    return tuple(targets)


def _target_matchup(where: str, entry: dict, matchups: tuple[str, ...]) -> str:
    if "matchup" not in entry:
        if len(matchups) > 1:
            raise SpaceError(f"{where}.matchup: missing; one of {', '.join(matchups)}")
        return matchups[0]
    try:
        label = read_matchup(entry["matchup"]).text if isinstance(entry["matchup"], str) else ""
    except PlayerError as exc:
        raise SpaceError(f"{where}.matchup: {exc}") from None
    if label not in matchups:
        raise SpaceError(f"{where}.matchup: {entry['matchup']!r} is not in matchups")
    return label


LEVELS = "levels:"
"""A skill target's match-up label: 'levels:greedy/heuristic' (its name
'first_seat[levels:greedy/heuristic]')."""


def _target_levels(where: str, entry: dict, matchups: tuple[str, ...]) -> tuple[str, ...]:
    """A skill target's levels: strategies whose self-play (A,A) is among the matchups, or
    "every" for each self-play match-up there; never beside a matchup."""
    value, where = entry["levels"], f"{where}.levels"
    if "matchup" in entry:
        raise SpaceError(f"{where}: give matchup or levels, not both")
    selves = [m for m in matchups if len(set(read_matchup(m).specs)) == 1]
    if value == "every":
        if not selves:
            raise SpaceError(f'{where}: "every" needs a self-play match-up (A,A) in matchups')
        return tuple(read_matchup(m).specs[0] for m in selves)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SpaceError(f'{where}: expected a list of strategies or "every", got {value!r}')
    levels = []
    for v in value:
        try:
            spec = parse_player(v).text
        except PlayerError as exc:
            raise SpaceError(f"{where}: {exc}") from None
        if f"{spec},{spec}" not in matchups:
            raise SpaceError(f"{where}: {spec} needs its self-play {spec},{spec} in matchups")
        if spec in levels:
            raise SpaceError(f"{where}: {spec} is given twice")
        levels.append(spec)
    return tuple(levels)


def _target_bounds(where: str, entry: dict) -> tuple[float | None, float | None]:
    given = [k for k in ("within", "at_most", "at_least") if k in entry]
    if len(given) != 1:
        raise SpaceError(f"{where}: give exactly one of within = [low, high], at_most, at_least")
    key = given[0]
    if key == "at_most":
        return None, _bound(f"{where}.at_most", entry[key])
    if key == "at_least":
        return _bound(f"{where}.at_least", entry[key]), None
    value = entry[key]
    if not isinstance(value, list) or len(value) != 2:
        raise SpaceError(f"{where}.within: expected [low, high], got {value!r}")
    low, high = (_bound(f"{where}.within", v) for v in value)
    if not low < high:
        raise SpaceError(f"{where}.within: expected low < high, got {value!r}")
    return low, high


def _search(path: Path, table: dict) -> dict[str, int]:
    out = {}
    for key in table:
        if key not in _SEARCH:
            raise SpaceError(f"{path}: search.{key}: unknown field; known: {', '.join(_SEARCH)}")
    for key, (low, high, default) in _SEARCH.items():
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise SpaceError(f"{path}: search.{key}: expected a whole number {low}-{high}")
        out[key] = value
    return out


def _check_extremes(space: Space) -> None:
    """The smallest and largest decks the space can deal must both be legal decks."""
    fixed = [c for c in space.start.deck if not any(_varies(card, c) for card in space.cards)]
    low = len(fixed) + sum(p.low for p in space.cards.values())
    high = len(fixed) + sum(p.high for p in space.cards.values())
    where = f"{space.path}: cards"
    blank = space.cards.get((BLANK, AXIS_NONE))
    if blank is not None and blank.low < 1:
        raise SpaceError(f"{where}.BLANK: at least 1 (the start card), got {blank.low}")
    if low < MIN_DECK:
        raise SpaceError(f"{where}: the smallest deck has {low} cards; at least {MIN_DECK}")
    if high > MAX_CARDS:
        raise SpaceError(f"{where}: the largest deck has {high} cards; at most {MAX_CARDS}")


def _varies(card: Card, deck_card: tuple[int, int]) -> bool:
    kind, axis = card
    return deck_card[0] == kind and (axis is None or deck_card[1] == axis)
