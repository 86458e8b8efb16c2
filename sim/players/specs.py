"""Player specs: which strategy sits in each seat, e.g. `random,random` or `random,cpu(level=3)`.

A spec is a name with optional parameters in parentheses; the registry below says which
names exist and which parameters each takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sim.engine.state import (
    EVAL_SLOTS,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_MC,
    POLICY_RANDOM,
)


@dataclass(frozen=True)
class Param:
    """A whole-number parameter of a built-in strategy; default None: taken from elsewhere."""

    low: int
    high: int
    default: int | None
    help: str


@dataclass(frozen=True)
class BuiltIn:
    """A strategy inside the compiled loop: its engine policy code and its parameters.

    budget names the parameter handed to the engine as the seat's search budget.
    """

    description: str
    code: int
    params: dict[str, Param] = field(default_factory=dict)
    budget: str | None = None
    deterministic: bool = False  # draws no random numbers: the same position, the same move


# the searches' use of the trained evaluation (strategies/guided.py): how their rollouts play
GUIDED = {
    "guide": Param(0, 100, 70, "percent of rollout turns the heuristic plays (0: random)"),
    "depth": Param(0, 1000, 4, "rollout turns before the evaluation scores (0: to the end)"),
}
BUILT_IN: dict[str, BuiltIn] = {
    "random": BuiltIn("the canonical random strategy of docs/RULES.md 9", POLICY_RANDOM),
    "greedy": BuiltIn(
        "one ply: the move (with its sub-decisions) of best immediate score margin",
        POLICY_GREEDY,
        deterministic=True,
    ),
    "heuristic": BuiltIn(
        "a hand-written expert evaluation of each move", POLICY_HEURISTIC, deterministic=True
    ),
    "mc": BuiltIn(
        "determinised Monte Carlo: sample the unseen cards, roll out, best average",
        POLICY_MC,
        {"rollouts": Param(1, 100_000, 200, "rollouts per decision"), **GUIDED},
        "rollouts",
    ),
    "ismcts": BuiltIn(
        "information-set Monte Carlo tree search",
        POLICY_ISMCTS,
        {"iterations": Param(1, 1_000_000, 1500, "search iterations per decision"), **GUIDED},
        "iterations",
    ),
    "cpu": BuiltIn(
        "the solo-mode CPU card (docs/RULES.md 8); second seat only",
        POLICY_RANDOM,
        {"level": Param(1, 4, None, "CPU level; default: the config's cpu_level")},
    ),
}
_SPEC = re.compile(r"^\s*([^()\s][^()]*?)\s*(?:\((.*)\))?\s*$")


class PlayerError(ValueError):
    """A player spec that names no known strategy or gives a bad parameter."""


@dataclass(frozen=True)
class Player:
    """A parsed spec: a built-in or plug-in name (or file.py:Class) and its parameters, or a
    weights file (path.toml: the heuristic with those weights, read once into `weights`)."""

    name: str
    params: dict = field(default_factory=dict, hash=False)
    weights: tuple[float, ...] | None = None

    @property
    def text(self) -> str:
        args = ",".join(f"{k}={_show(v)}" for k, v in sorted(self.params.items()))
        return f"{self.name}({args})" if args else self.name

    @property
    def built_in(self) -> bool:
        return self.name in BUILT_IN

    @property
    def weights_file(self) -> bool:
        """A weights file: the heuristic with its own weights, no Python code."""
        from sim.players.weights import is_weights_spec

        return is_weights_spec(self.name)

    @property
    def compiled(self) -> bool:
        """Plays inside the compiled loop (a built-in or a weights file)."""
        return self.built_in or self.weights_file

    @property
    def code(self) -> int:
        """The engine policy code (Python strategies and the CPU play through random's)."""
        if self.weights_file:
            return POLICY_HEURISTIC
        return BUILT_IN[self.name].code if self.built_in else POLICY_RANDOM

    def evaluation(self) -> tuple[float, ...]:
        """The weights its seat's state holds: its own, a search's (guided_weights), else
        the shipped heuristic's."""
        from sim.players.weights import default_weights

        if self.weights is not None:
            return self.weights
        if self.name in BUILT_IN and "guide" in BUILT_IN[self.name].params:
            return self.guided_weights()
        return default_weights()

    def guided_weights(self) -> tuple[float, ...]:
        """A search's: the trained evaluation of weights/guide.toml, its knobs after
        (strategies/guided.py)."""
        from sim.players.weights import GUIDE, read_weights
        from strategies.guided import S_DEPTH, S_GUIDE

        params = BUILT_IN[self.name].params
        slots = list(read_weights(GUIDE))
        for slot, name in ((S_DEPTH, "depth"), (S_GUIDE, "guide")):
            slots[slot] = float(self.params.get(name, params[name].default))
        return tuple(slots)

    @property
    def budget(self) -> int:
        """The engine search budget (0 for strategies without one)."""
        spec = BUILT_IN.get(self.name)
        if spec is None or spec.budget is None:
            return 0
        return self.params.get(spec.budget, spec.params[spec.budget].default)

    def cpu_level(self, default: int) -> int:
        """The CPU level this seat asks for (its own or the config's), or 0 if not the CPU."""
        return self.params.get("level", default) if self.name == "cpu" else 0

    def seat(self) -> Seat:
        """The strategy ready to sit down (a Python strategy's class is instantiated)."""
        if self.compiled:
            return Seat(self.text, self.code, self.budget, None, self.evaluation())
        from sim.players import plugins

        try:
            instance = plugins.make(self.name, self.params, self.text)
        except plugins.PluginError as exc:
            raise PlayerError(str(exc)) from None
        return Seat(self.text, POLICY_RANDOM, 0, instance, self.evaluation())

    @property
    def deterministic(self) -> bool:
        """Whether the strategy declares it draws no random numbers (built-ins in BUILT_IN,
        Python strategies by a class attribute `deterministic = True`; the conformance suite
        checks it). Such a strategy playing itself plays a seat-swapped pair's second game
        as a replay."""
        if self.weights_file:  # a second ply deals the hidden cards from the seat's stream
            from strategies.heuristic import W_PLY2

            return self.evaluation()[W_PLY2] <= 1
        if self.compiled:
            return BUILT_IN[self.name].deterministic
        return bool(getattr(self.seat().strategy, "deterministic", False))


@dataclass(frozen=True)
class Seat:
    """A strategy ready to sit down: built-ins as an engine code and budget, Python
    strategies as an instance (strategy None for built-ins)."""

    spec: str
    code: int
    budget: int
    strategy: object | None = None
    weights: tuple[float, ...] = (0.0,) * EVAL_SLOTS  # the evaluation's, for the state


def _show(value) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def split_top_level(spec: str) -> list[str]:
    """Split at commas outside parentheses: 'a,cpu(level=3)' -> ['a', 'cpu(level=3)']."""
    parts, depth, current = [], 0, ""
    for ch in spec:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def parse_player(text: str) -> Player:
    """A built-in spec like mc(rollouts=50), or a Python strategy: file.py:Class(x=1) or a
    name from the sim.strategies entry-point group."""
    match = _SPEC.match(text)
    name = match.group(1) if match else text.strip()
    if not match:
        raise PlayerError(f"strategy spec {text!r} is not name or name(key=value, ...)")
    items = [a.strip() for a in split_top_level(match.group(2) or "") if a.strip()]
    if name in BUILT_IN:
        return Player(name, _built_in_params(name, items))
    if Player(name).weights_file:
        return _weights_player(name, items)
    from sim.players import plugins

    try:
        cls = plugins.strategy_class(name)
    except plugins.PluginError as exc:
        if ":" in name or name in plugins.entry_point_names():
            raise PlayerError(str(exc)) from None
        from sim.players.weights import NAMED, persona_names

        names = [*BUILT_IN, *NAMED, *persona_names(), *plugins.entry_point_names()]
        available = sorted(names)
        raise PlayerError(
            f"unknown strategy {name!r}; available: {', '.join(available)}, "
            "path/to/file.py:ClassName or path/to/weights.toml"
        ) from None
    params = dict(_key_value(name, item) for item in items)
    try:
        plugins.check_params(cls, params)
    except plugins.PluginError as exc:
        raise PlayerError(f"{name}: {exc}") from None
    return Player(name, params)


def _weights_player(name: str, items: list[str]) -> Player:
    """A weights file's player: the file read and checked now, once."""
    from sim.players.weights import WeightsError, read_weights, weights_path

    if items:
        raise PlayerError(f"{name}: a weights file takes no parameters; put them in the file")
    try:
        return Player(name, {}, read_weights(weights_path(name)))
    except WeightsError as exc:
        raise PlayerError(str(exc)) from None


def _key_value(name: str, item: str) -> tuple[str, object]:
    import ast

    key, sep, value = item.partition("=")
    if not sep or not key.strip().isidentifier():
        raise PlayerError(f"{name}: parameter {item!r} is not key=value")
    try:
        return key.strip(), ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        return key.strip(), value.strip()


def _built_in_params(name: str, items: list[str]) -> dict[str, int]:
    allowed = BUILT_IN[name].params
    params: dict[str, int] = {}
    for item in items:
        key, _, value = item.partition("=")
        key = key.strip()
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise PlayerError(f"{name}: unknown parameter {key!r}; parameters: {known}")
        try:
            params[key] = int(value)
        except ValueError:
            raise PlayerError(f"{name}: {key} must be a whole number, got {value!r}") from None
        low, high = allowed[key].low, allowed[key].high
        if not low <= params[key] <= high:
            raise PlayerError(f"{name}: {key} must be between {low} and {high}, got {value}")
    return params


@dataclass(frozen=True)
class Matchup:
    """The two seats of a match-up, parsed once: the first seat's player and the second's."""

    first: Player
    second: Player

    @property
    def specs(self) -> tuple[str, str]:
        """The two canonical specs, e.g. ('my.py:Two(a=3,b=4)', 'greedy')."""
        return self.first.text, self.second.text

    @property
    def text(self) -> str:
        """The match-up's label in tables and reports: 'first,second'."""
        return ",".join(self.specs)

    @property
    def compiled(self) -> bool:
        """Both seats are built-ins, so the games run in the compiled loop."""
        return self.first.compiled and self.second.compiled

    @property
    def replays(self) -> bool:
        """A deterministic built-in against itself: a seat-swapped pair's second game is the
        first played again (the conformance suite checks it). Python strategies' claims are
        checked, not trusted to skip games."""
        return self.first == self.second and self.first.compiled and self.first.deterministic

    def policy_codes(self) -> tuple[int, int]:
        """The engine policy codes of both seats (the CPU is not a policy: see cpu_level)."""
        return self.first.code, self.second.code

    def budgets(self) -> tuple[int, int]:
        """The engine search budgets of both seats."""
        return self.first.budget, self.second.budget

    def cpu_level(self, default: int) -> int:
        """The CPU level of the second seat (its own or the config's), or 0 for no CPU."""
        return self.second.cpu_level(default)

    def evaluations(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Both seats' evaluation weights (Player.evaluation)."""
        return self.first.evaluation(), self.second.evaluation()


def _two_seats(spec: str) -> list[str]:
    parts = split_top_level(spec)
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise PlayerError(
            f"--players {spec!r}: expected two strategies, first,second (e.g. random,random)"
        )
    return parts


def parse_matchup(spec: str) -> Matchup:
    """'random,cpu(level=3)' -> both seats checked (a Python strategy's class is loaded)."""
    return matchup(*_two_seats(spec))


def matchup(first: str, second: str) -> Matchup:
    """The match-up of two seats' specs, each checked as parse_matchup checks them."""
    first, second = parse_player(first), parse_player(second)
    if first.name == "cpu":
        raise PlayerError("the CPU always plays second: put cpu in the second seat (random,cpu)")
    return Matchup(first, second)


def read_matchup(label: str) -> Matchup:
    """A match-up label as a run folder stores it, read by its syntax alone: nothing is
    loaded, so reading a run never runs code it names. The comma between the seats is the
    one outside parentheses ('f.py:Two(a=3,b=4),greedy' is f.py:Two's and greedy's)."""
    return Matchup(*(_read_player(p) for p in _two_seats(label)))


def _read_player(text: str) -> Player:
    """A stored seat label as a player; a label that is no spec (a hand-made table's) stays
    whole as the name, so reading a run never fails on its labels."""
    match = _SPEC.match(text)
    if not match:
        return Player(text.strip())
    items = [a.strip() for a in split_top_level(match.group(2) or "") if a.strip()]
    try:
        return Player(match.group(1), dict(_key_value(match.group(1), item) for item in items))
    except PlayerError:
        return Player(text.strip())
