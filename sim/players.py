"""Player specs: which strategy sits in each seat, e.g. `random,random` or `random,cpu(level=3)`.

A spec is a name with optional parameters in parentheses; the registry below says which
names exist and which parameters each takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# name -> (description, {parameter: (allowed values, default or None)})
BUILT_IN: dict[str, tuple[str, dict[str, tuple[tuple[int, ...], int | None]]]] = {
    "random": ("the canonical random strategy of RULES.md 9", {}),
    "greedy": ("one ply: the move (with its sub-decisions) of best immediate score margin", {}),
    "cpu": (
        "the solo-mode CPU card (RULES.md 8); second seat only",
        {"level": ((1, 2, 3, 4), None)},  # None: the config's cpu_level
    ),
}
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$")


class PlayerError(ValueError):
    """A player spec that names no known strategy or gives a bad parameter."""


@dataclass(frozen=True)
class Player:
    name: str
    params: dict[str, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        args = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.name}({args})" if args else self.name


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
    match = _SPEC.match(text)
    if not match or match.group(1) not in BUILT_IN:
        name = match.group(1) if match else text
        raise PlayerError(f"unknown strategy {name!r}; available: {', '.join(sorted(BUILT_IN))}")
    name, args = match.group(1), match.group(2)
    allowed = BUILT_IN[name][1]
    params: dict[str, int] = {}
    for item in filter(None, (a.strip() for a in (args or "").split(","))):
        key, _, value = item.partition("=")
        key = key.strip()
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise PlayerError(f"{name}: unknown parameter {key!r}; parameters: {known}")
        try:
            params[key] = int(value)
        except ValueError:
            raise PlayerError(f"{name}: {key} must be a whole number, got {value!r}") from None
        if params[key] not in allowed[key][0]:
            raise PlayerError(f"{name}: {key} must be one of {allowed[key][0]}, got {value}")
    return Player(name, params)


def parse_players(spec: str) -> tuple[str, str]:
    """'random,cpu(level=3)' -> the first and second seat's canonical specs."""
    parts = split_top_level(spec)
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise PlayerError(
            f"--players {spec!r}: expected two strategies, first,second (e.g. random,random)"
        )
    first, second = (parse_player(p) for p in parts)
    if first.name == "cpu":
        raise PlayerError("the CPU always plays second: put cpu in the second seat (random,cpu)")
    return first.text, second.text


_POLICY = {"random": 0, "greedy": 3, "cpu": 0}  # engine policy codes (engine/state.py)


def policy_codes(a: str, b: str) -> tuple[int, int]:
    """The engine policy codes of strategies A and B (the CPU is not a policy: see cpu_level)."""
    return _POLICY[parse_player(a).name], _POLICY[parse_player(b).name]


def cpu_level(second: str, default: int) -> int:
    """The CPU level a second-seat spec asks for (its own or the config's), or 0 for none."""
    player = parse_player(second)
    if player.name != "cpu":
        return 0
    return player.params.get("level", default)
