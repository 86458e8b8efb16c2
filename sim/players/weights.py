"""Weights files: the heuristic player's evaluation as data, so a `.toml` file is a player,
and so is a shipped persona by its name (strategies/personas/rusher.toml is `rusher`).

A file names weights (strategies/weights/heuristic.toml lists each with a line on what it
values) and optionally a [hand] table of points per card kind held; whatever it leaves out is
the shipped heuristic's. It is read and checked once, when the player spec is parsed, into a
tuple of EVAL_SLOTS numbers that the compiled loops put in the seat's state.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from sim.engine.cards import NAMES, kind_from_name
from sim.engine.state import EVAL_SLOTS
from sim.model.documents import parse_toml
from strategies import heuristic
from strategies.heuristic import FEATURES, W_HAND

SHIPPED = Path(heuristic.__file__).parent / "weights" / "heuristic.toml"
PERSONAS = Path(heuristic.__file__).parent / "personas"
SUFFIX = ".toml"
NAMED = {"strong": SHIPPED.parent / "strong.toml"}
"""Built-in names that are weights files: `strong`, trained weights with a second ply."""
GUIDE = SHIPPED.parent / "guide.toml"
"""The searches' evaluation (mc and ismcts's guided rollouts), trained weights of its own."""


class WeightsError(ValueError):
    """A weights file that cannot be read; the message names the file and the field."""


def weights_path(name: str) -> Path | None:
    """The weights file a player name stands for: a path ending in .toml, a NAMED one
    (strong) or a shipped persona's name; None for any other name."""
    if name.strip().lower().endswith(SUFFIX):
        return Path(name.strip())
    if name in NAMED:
        return NAMED[name]
    return PERSONAS / f"{name}{SUFFIX}" if name in persona_names() else None


def is_weights_spec(name: str) -> bool:
    """Whether a player name stands for a weights file."""
    return weights_path(name) is not None


@cache
def persona_names() -> tuple[str, ...]:
    """The shipped personas, by name."""
    return tuple(sorted(p.stem for p in PERSONAS.glob(f"*{SUFFIX}")))


def read_weights(path: Path) -> tuple[float, ...]:
    """The file's weights over the shipped ones, in slot order; WeightsError naming the
    file and field for a missing file, an unknown name or a value that is not a number."""
    return _overlay(_table(path), path, default_weights())


@cache
def default_weights() -> tuple[float, ...]:
    """The shipped heuristic's weights (every name must be given there)."""
    table = _table(SHIPPED)
    missing = [n for n in FEATURES if n not in table]
    missing += [f"hand.{NAMES[k]}" for k in range(len(NAMES)) if NAMES[k] not in table["hand"]]
    if missing:
        raise WeightsError(f"{SHIPPED}: missing {', '.join(missing)}")
    return _overlay(table, SHIPPED, (0.0,) * EVAL_SLOTS)


def description(path: Path) -> str:
    """The file's `description`, or '' when it has none."""
    return str(_table(path).get("description", ""))


def _table(path: Path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise WeightsError(f"{path}: cannot read the weights file: {exc.strerror}") from None
    try:
        return parse_toml(text)
    except ValueError as exc:
        raise WeightsError(f"{path}: not valid TOML: {exc}") from None


def _overlay(table: dict, path: Path, base: tuple[float, ...]) -> tuple[float, ...]:
    slots = list(base)
    for name, value in table.items():
        if name == "description":
            if not isinstance(value, str):
                raise WeightsError(f"{path}: description: expected text")
        elif name == "hand":
            _hand(value, path, slots)
        elif name in FEATURES:
            slots[FEATURES[name]] = _number(value, path, name)
        else:
            known = ", ".join([*FEATURES, "hand", "description"])
            raise WeightsError(f"{path}: unknown weight {name!r}; known: {known}")
    return tuple(slots)


def _hand(table, path: Path, slots: list[float]) -> None:
    if not isinstance(table, dict):
        raise WeightsError(f"{path}: hand: expected a table of card kinds, e.g. [hand] GET = 5")
    for name, value in table.items():
        try:
            kind = kind_from_name(name)
        except ValueError as exc:
            raise WeightsError(f"{path}: hand.{name}: {exc}") from None
        slots[W_HAND + kind] = _number(value, path, f"hand.{name}")


def _number(value, path: Path, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise WeightsError(f"{path}: {field}: expected a finite number, got {value!r}")
    return float(value)
