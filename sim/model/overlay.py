"""`--set KEY=VALUE`: a config derived on the fly from a named one, without a file.

Keys: `rules.OPTION=VALUE` (any rule option) and `deck.KIND[.AXIS]=COUNT` (the number of
that card in one player's deck; 0 removes it). The derived config is named after its base
and the changes, `base+run_capacity=5+DELETE=0`, checked as a file would be; that name
loads it again (load), and a run's manifest records the items (reports/replay derives it).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from sim.engine.cards import AXIS_LETTERS, AXIS_NONE, NAMES, UNDIRECTED, kind_from_name
from sim.model.config import MAX_CARDS, Config, ConfigError, describe, from_table
from sim.model.config import load as load_file
from sim.model.rules import RuleError, RuleOptions

RULE_NAMES = tuple(f.name for f in fields(RuleOptions))
FORMS = "rules.OPTION=VALUE or deck.KIND[.AXIS]=COUNT"


class OverlayError(ConfigError):
    """A --set item that cannot be applied: a usage error; the message names the item."""


@dataclass(frozen=True)
class Change:
    """One parsed --set item: a rule option's value, or a card's count in the deck."""

    text: str  # as given, for messages
    rule: str | None = None  # the rule option, or None for a deck change
    value: object = None
    kind: int = -1
    axis: int | None = None  # None: every axis of the kind (only to remove it)

    @property
    def key(self) -> str:
        """The canonical key, e.g. rules.run_capacity or deck.DELETE.H."""
        if self.rule is not None:
            return f"rules.{self.rule}"
        axis = "" if self.axis in (None, AXIS_NONE) else f".{AXIS_LETTERS[self.axis]}"
        return f"deck.{NAMES[self.kind]}{axis}"

    @property
    def item(self) -> str:
        """The canonical KEY=VALUE, re-parseable: what a manifest records."""
        return f"{self.key}={_toml(self.value)}"

    @property
    def short(self) -> str:
        """The change as it appears in the derived name: run_capacity=5, DELETE.H=2."""
        return f"{self.key.split('.', 1)[1]}={_plain(self.value)}"

    def order(self) -> tuple:
        """Rules first in RuleOptions' order, then cards by kind and axis."""
        if self.rule is not None:
            return (0, RULE_NAMES.index(self.rule), 0)
        return (1, self.kind, -1 if self.axis is None else self.axis)


def load(name: str) -> Config:
    """A config by name or path, or a derived config by the name derive gives it
    (base+run_capacity=5+DELETE=0): the name is its own recipe, so it can be played again."""
    try:
        return load_file(name)
    except ConfigError:
        base, plus, rest = name.partition("+")
        if not plus or not base:
            raise
        config = load_file(base)  # an unknown base: its own message
    try:
        return derive(config, [_item(short) for short in rest.split("+")])
    except OverlayError as exc:
        raise OverlayError(f"--config {name}: {str(exc).removeprefix('--set ')}") from None


def _item(short: str) -> str:
    """A change as a name shows it (run_capacity=5, DELETE.H=2) as a --set item."""
    key, equals, _ = short.partition("=")
    if key in RULE_NAMES:
        return f"rules.{short}"
    try:
        kind_from_name(key[:-2] if key[-2:-1] == "." else key)
    except ValueError:
        raise OverlayError(
            f"{short!r}: not a change; after the base's name each +NAME=VALUE names a rule "
            f"option ({', '.join(sorted(RULE_NAMES))}) or a card kind"
        ) from None
    if not equals:
        raise OverlayError(f"{short!r}: not a change; give +{key}=COUNT")
    return f"deck.{short}"


def derive(base: Config, items: Sequence[str]) -> Config:
    """base with the --set items applied, checked as a file would be; OverlayError names the
    item (or the derived config, for a whole-deck problem). No items: base itself."""
    if not items:
        return base
    if base.overlay:  # derived already: one derivation of the file, one canonical name
        return derive(load_file(str(base.path)), [*base.overlay, *items])
    changes = sorted((parse(text) for text in items), key=Change.order)
    _check_distinct(changes)
    rules = dict(base.rules.__dict__)
    for change in (c for c in changes if c.rule is not None):
        rules[change.rule] = change.value
    name = base.name + "".join(f"+{c.short}" for c in changes)
    counts = _apply_cards(base, [c for c in changes if c.rule is None])
    if sum(counts.values()) > MAX_CARDS:  # as the file check says it, not per table entry
        raise OverlayError(
            f"{name}: deck: {sum(counts.values())} cards; at most {MAX_CARDS} per player"
        )
    deck = [{"kind": NAMES[k], "axis": AXIS_LETTERS[a], "count": n} for (k, a), n in counts.items()]
    try:
        config = from_table(base.path, {"rules": rules, "deck": deck}, label=name)
    except ConfigError as exc:  # a whole-deck problem: a usage error like the items'
        raise OverlayError(str(exc)) from None
    kept = tuple(c.item for c in changes)
    words = f"{base.name} with {', '.join(kept)}: {describe(list(config.deck), config.rules)}"
    notes = [
        f"--set {c.text}: {base.name} already has {c.short}; {name} plays the same games"
        for c in changes
        if _unchanged(base, c)
    ]
    return replace(
        config,
        name=name,
        description=words,
        overlay=kept,
        warnings=(*config.warnings, *notes),
    )


def parse(text: str) -> Change:
    """One KEY=VALUE item; the value is a TOML value (5, true, "free"), a bare word a string."""
    key, equals, raw = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise OverlayError(f"--set {text}: expected KEY=VALUE ({FORMS}), e.g. rules.run_capacity=5")
    value = _value(raw.strip())
    section, dot, rest = key.partition(".")
    if section == "rules" and dot:
        _check_rule(text, rest, value)
        return Change(text, rule=rest, value=value)
    if section == "deck" and dot:
        return _card_change(text, rest, value)
    raise OverlayError(f"--set {text}: no such key {key!r}; --set takes {FORMS}")


def _card_change(text: str, rest: str, value) -> Change:
    """deck.KIND[.AXIS]=COUNT; a kind's name may itself hold dots (IF...THEN)."""
    name, axis = rest, None
    if len(rest) > 2 and rest[-2] == "." and rest[-1].upper() in ("H", "V", "-"):
        name, axis = rest[:-2], AXIS_LETTERS.index(rest[-1].upper())
    try:
        kind = kind_from_name(name)
    except ValueError as exc:
        raise OverlayError(f"--set {text}: {exc}") from None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_CARDS:
        raise OverlayError(f"--set {text}: expected a whole number 0-{MAX_CARDS}, got {value!r}")
    if kind in UNDIRECTED:
        if axis not in (None, AXIS_NONE):
            raise OverlayError(f"--set {text}: {NAMES[kind]} has no direction, so no axis")
        axis = AXIS_NONE
    elif axis == AXIS_NONE:
        raise OverlayError(f'--set {text}: {NAMES[kind]} needs axis "H" or "V"')
    elif axis is None and value:
        raise OverlayError(
            f"--set {text}: {NAMES[kind]} cards have an axis; give deck.{NAMES[kind]}.H or "
            f"deck.{NAMES[kind]}.V (deck.{NAMES[kind]}=0 removes them all)"
        )
    return Change(text, kind=kind, axis=axis, value=value)


def _value(raw: str):
    """A TOML value, or the text itself when it is not one (a bare word like free)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def _check_distinct(changes: list[Change]) -> None:
    """Each rule and card set once: two values for one key have no order to win by."""
    for i, change in enumerate(changes):
        for other in changes[:i]:
            same = change.key == other.key
            overlap = (
                change.rule is None
                and other.rule is None
                and change.kind == other.kind
                and None in (change.axis, other.axis)
            )
            if same or overlap:
                raise OverlayError(
                    f"--set {other.text} and --set {change.text} set the same "
                    f"{'rule' if change.rule else 'cards'}; give one"
                )


def _check_rule(text: str, name: str, value) -> None:
    """A rule option and its value, checked by RuleOptions (each option is checked on its
    own) and refused with a config file's words: unknown option, or a value not allowed."""
    try:
        RuleOptions.from_mapping({name: value}, "rules")
    except RuleError as exc:
        said = str(exc).removeprefix(f"rules.{name}: ")
        raise OverlayError(f"--set {text}: {said}") from None


def _apply_cards(base: Config, changes: list[Change]) -> dict[tuple[int, int], int]:
    """The base deck's counts by (kind, axis), in deck order, with the changes applied."""
    counts: dict[tuple[int, int], int] = {}
    for card in base.deck:
        counts[card] = counts.get(card, 0) + 1
    for change in changes:
        if change.axis is None:  # every axis of the kind, to remove it
            counts = {card: n for card, n in counts.items() if card[0] != change.kind}
        else:
            counts[(change.kind, change.axis)] = int(change.value)
    return {card: n for card, n in counts.items() if n}


def _unchanged(base: Config, change: Change) -> bool:
    """Whether the change sets what base already has (a warning: the same games)."""
    if change.rule is not None:
        return (
            getattr(base.rules, change.rule)
            == RuleOptions.from_mapping({change.rule: change.value}).__dict__[change.rule]
        )
    held = [card for card in base.deck if card[0] == change.kind]
    if change.axis is not None:
        held = [card for card in held if card[1] == change.axis]
    return len(held) == change.value


def _toml(value) -> str:
    """A value as TOML text: 5, true, "free"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _plain(value) -> str:
    """A value as a name shows it: 5, true, free."""
    return value if isinstance(value, str) else _toml(value)
