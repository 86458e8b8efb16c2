"""The config a point of the search space stands for, written as a TOML file `sim run
--config` takes: the start config's deck and rules with the point's counts, swaps and
rule values applied. Trials play exactly the file written here, so a candidate handed
back is the config that was measured.
"""

from __future__ import annotations

from pathlib import Path

from sim.engine.cards import AXIS_H, AXIS_LETTERS, AXIS_NONE, AXIS_V, NAMES
from sim.model.config import Config
from sim.model.config import load as load_config
from sim.model.rules import RuleOptions
from sim.tune.space import Space, parse_card


def deck(space: Space, values: dict) -> list[tuple[int, int]]:
    """The start deck with each varied card's count set and each swap made, in deck order:
    a varied card's copies sit where its first copy was (at the end if it had none)."""
    cards = list(space.start.deck)
    for (kind, axis), param in space.cards.items():
        n = values[param.name]
        keep = [c for c in cards if not (c[0] == kind and (axis is None or c[1] == axis))]
        at = next((i for i, c in enumerate(cards) if c not in keep), len(cards))
        cards = keep[:at] + _copies(kind, axis, n) + keep[at:]  # cards[:at] are all kept
    for card, param in space.swaps:
        chosen = parse_card(values[param.name], param.name, any_axis=False)
        if chosen != card:
            cards[cards.index(card)] = chosen
    return cards


def _copies(kind: int, axis: int | None, n: int) -> list[tuple[int, int]]:
    """n cards of a kind; a directed kind without an axis alternates H and V (RULES.md 2)."""
    if axis is not None:
        return [(kind, axis)] * n
    return [(kind, AXIS_H if i % 2 == 0 else AXIS_V) for i in range(n)]


def rules(space: Space, values: dict) -> RuleOptions:
    """The start config's rule options with the point's values."""
    chosen = {name: values[p.name] for name, p in space.rules.items()}
    return RuleOptions.from_mapping({**space.start.rules.__dict__, **chosen})


def toml_text(space: Space, values: dict, description: str) -> str:
    """A complete config file (no `extends`: it stands alone wherever it is copied)."""
    options = rules(space, values)
    lines = [f"# Made by sim tune from {space.path.name}: start {space.start.name}, {description}"]
    lines += [f"description = {_quoted(description)}", "", "[rules]"]
    for name, value in options.__dict__.items():
        lines.append(f"{name} = {_quoted(value) if isinstance(value, str) else value}")
    for (kind, axis), n in _runs(deck(space, values)):
        lines += ["", "[[deck]]", f"kind = {_quoted(NAMES[kind])}"]
        if axis != AXIS_NONE:
            lines.append(f'axis = "{AXIS_LETTERS[axis]}"')
        if n > 1:
            lines.append(f"count = {n}")
    return "\n".join(lines) + "\n"


def _runs(cards: list[tuple[int, int]]) -> list[tuple[tuple[int, int], int]]:
    """Consecutive equal cards as (card, count), so the file keeps the deck's order."""
    runs: list[tuple[tuple[int, int], int]] = []
    for card in cards:
        if runs and runs[-1][0] == card:
            runs[-1] = (card, runs[-1][1] + 1)
        else:
            runs.append((card, 1))
    return runs


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write(space: Space, values: dict, path: Path, description: str) -> Config:
    """Write the point's config file and load it back through the config validator."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = toml_text(space, values, description)
    temporary = path.with_suffix(".toml.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
    return load_config(str(path))
