"""Deck and rule configurations: TOML files in configs/, validated once on load."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.engine.cards import (
    AXIS_LETTERS,
    AXIS_NONE,
    BLANK,
    CUT,
    NAMES,
    PASTE,
    UNDIRECTED,
    axis_allowed,
    kind_from_name,
)
from sim.engine.state import MAX_DECK, VISIBILITIES
from sim.model.documents import TooDeep, parse_toml
from sim.model.rules import RuleError, RuleOptions

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "configs"
_TOP_LEVEL = {"description", "extends", "rules", "deck", "deck_extra", "deck_second"}
_DECK_FIELDS = {"kind", "axis", "count"}
MIN_DECK = 4  # the BLANK set aside plus a starting hand of 3
MAX_CARDS = MAX_DECK + 1  # the start card plus the engine's deck


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and field."""


@dataclass(frozen=True)
class Config:
    name: str
    path: Path
    description: str
    rules: RuleOptions
    deck: tuple[tuple[int, int], ...]  # (kind, axis) per card, one player's deck
    warnings: tuple[str, ...] = field(default=())
    overlay: tuple[str, ...] = field(default=())  # the --set items it was derived with

    def kinds(self) -> np.ndarray:
        return np.array([k for k, _ in self.deck], dtype=np.uint8)

    def axes(self) -> np.ndarray:
        return np.array([a for _, a in self.deck], dtype=np.uint8)

    def engine_args(self, cpu_level: int = 0) -> tuple:
        """The deck and rule arguments every engine entry point takes, in its order.

        cpu_level 1-4 puts the CPU card in the second seat (solo mode); 0 plays two humans.
        """
        r = self.rules
        free = int(r.orientation == "free")
        numeric = int(r.cpu_reading == "numeric")
        return (
            self.kinds(),
            self.axes(),
            r.lines,
            r.run_capacity,
            free,
            r.first_option,
            cpu_level,
            numeric,
            VISIBILITIES.index(r.visibility),
        )

    def to_dict(self) -> dict:
        """The resolved content: what the hash covers and what a manifest records."""
        counts: dict[tuple[int, int], int] = {}
        for card in self.deck:
            counts[card] = counts.get(card, 0) + 1
        deck = [
            {"kind": NAMES[k], "axis": AXIS_LETTERS[a], "count": n} for (k, a), n in counts.items()
        ]
        return {"rules": self.rules.__dict__, "deck": deck}

    @property
    def hash(self) -> str:
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def search_dirs() -> list[Path]:
    return [Path.cwd() / "configs", SHIPPED_DIR]


def available() -> list[str]:
    """Names of the configurations found in the search folders."""
    names: set[str] = set()
    for folder in search_dirs():
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.toml"))
    return sorted(names)


def find(name: str, relative_to: Path | None = None) -> Path:
    """A config file by path or by name in the search folders."""
    direct = Path(name)
    file_name = name if direct.suffix == ".toml" else f"{name}.toml"
    candidates = [direct] if direct.suffix == ".toml" else []
    if relative_to is not None:
        candidates.insert(0, relative_to / file_name)
    candidates += [folder / f"{name}.toml" for folder in search_dirs()]
    for path in candidates:
        if path.is_file():
            return path
    raise ConfigError(f"unknown config {name!r}; available: {', '.join(available()) or 'none'}")


def load(name: str) -> Config:
    """Load, resolve 'extends' and validate a configuration."""
    path = find(name)
    table = _resolve(path, ())
    return from_table(path, table)


def read_toml(path: Path, error: type[ValueError]) -> dict:
    """A UTF-8 TOML file's table; unreadable, undecodable or invalid text raises error(msg)."""
    try:
        text = path.read_bytes().decode("utf-8")
        return parse_toml(text)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc
    except (tomllib.TOMLDecodeError, TooDeep) as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None


def _read(path: Path) -> dict:
    table = read_toml(path, ConfigError)
    unknown = set(table) - _TOP_LEVEL
    if unknown:
        raise ConfigError(
            f"{path}: unknown field {sorted(unknown)[0]!r}; known: {', '.join(sorted(_TOP_LEVEL))}"
        )
    _check_shapes(path, table)
    return table


def _check_shapes(path: Path, table: dict) -> None:
    """Each top-level field of one file has its type, before 'extends' merges files."""
    for key in ("description", "extends"):
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{path}: {key}: expected a string, got {table[key]!r}")
    if "rules" in table and not isinstance(table["rules"], dict):
        raise ConfigError(f"{path}: rules: expected a table ([rules]), got {table['rules']!r}")
    for key in ("deck", "deck_extra", "deck_second"):
        if key in table and not isinstance(table[key], list):
            raise ConfigError(
                f"{path}: {key}: expected an array of tables ([[{key}]]), got {table[key]!r}"
            )


def _resolve(path: Path, chain: tuple[Path, ...]) -> dict:
    """The file's table with its parent's rules and deck merged in."""
    if path.resolve() in chain:
        raise ConfigError(f"{path}: extends itself through {' -> '.join(p.name for p in chain)}")
    table = _read(path)
    parent_name = table.get("extends")
    if parent_name is None:
        return table
    try:
        parent_path = find(parent_name, path.parent)
    except ConfigError as exc:
        raise ConfigError(f"{path}: extends: {exc}") from exc
    parent = _resolve(parent_path, (*chain, path.resolve()))
    merged = dict(parent)
    merged["rules"] = {**parent.get("rules", {}), **table.get("rules", {})}
    if "deck" in table:
        merged["deck"] = table["deck"]
    merged["deck_extra"] = parent.get("deck_extra", []) + table.get("deck_extra", [])
    merged.pop("deck_second", None)  # a pairing check belongs to the file that states it
    if _content(merged) != _content(parent):
        merged.pop("description", None)  # the parent's words no longer describe this config
    for key in ("description", "deck_second"):
        if key in table:
            merged[key] = table[key]
    return merged


def _content(table: dict) -> tuple:
    """What a config plays: its rules and decks, missing parts as empty."""
    return tuple(table.get(key) or {} for key in ("rules", "deck", "deck_extra"))


def from_table(path: Path, table: dict, label: str | None = None) -> Config:
    """The checked Config of a resolved table; messages start with label (default: path)."""
    where = label or str(path)
    rules_table = table.get("rules", {})
    if not isinstance(rules_table, dict):
        raise ConfigError(f"{where}: rules: expected a table")
    try:
        rules = RuleOptions.from_mapping(rules_table, "rules")
    except (RuleError, TypeError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    deck = _deck(where, "deck", table.get("deck", [])) + _deck(
        where, "deck_extra", table.get("deck_extra", [])
    )
    if "deck_second" in table:
        second = _deck(where, "deck_second", table["deck_second"])
        if sorted(second) != sorted(deck):
            raise ConfigError(
                f"{where}: deck_second: the two players' decks differ; both must be identical"
            )
    _check_deck(where, deck)
    warnings = []
    kinds = {k for k, _ in deck}
    if PASTE in kinds and CUT not in kinds:
        warnings.append(f"{where}: deck has PASTE but no CUT; PASTE will never find a card")
    return Config(
        name=path.stem,
        path=path,
        description=str(table.get("description") or describe(deck, rules)),
        rules=rules,
        deck=tuple(deck),
        warnings=tuple(warnings),
    )


def describe(deck: list, rules: RuleOptions) -> str:
    """A config's description from what it is, for one that gives none (or inherits one
    its own deck or rules made untrue): '60-card decks, 5 lines (10-50), RUN capacity 3'."""
    return (
        f"{len(deck)}-card decks, {rules.lines} lines (10-{10 * rules.lines}), "
        f"RUN capacity {rules.run_capacity}"
    )


def _deck(path: Path | str, where: str, entries) -> list[tuple[int, int]]:
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: {where}: expected an array of tables ([[{where}]])")
    cards = []
    for i, entry in enumerate(entries):
        at = f"{path}: {where}[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{at}: expected a table with kind, axis and count")
        unknown = set(entry) - _DECK_FIELDS
        if unknown:
            raise ConfigError(f"{at}.{sorted(unknown)[0]}: unknown field; known: axis, count, kind")
        if "kind" not in entry:
            raise ConfigError(f"{at}.kind: missing")
        try:
            kind = kind_from_name(str(entry["kind"]))
        except ValueError as exc:
            raise ConfigError(f"{at}.kind: {exc}") from exc
        axis = _axis(at, kind, entry.get("axis"))
        count = entry.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_CARDS:
            raise ConfigError(f"{at}.count: expected a whole number 1-{MAX_CARDS}, got {count!r}")
        if len(cards) + count > MAX_CARDS:
            raise ConfigError(f"{at}.count: more than {MAX_CARDS} cards in {where}")
        cards += [(kind, axis)] * count
    return cards


def _axis(at: str, kind: int, letter) -> int:
    if kind in UNDIRECTED:
        if letter not in (None, "-"):
            raise ConfigError(
                f"{at}.axis: {NAMES[kind]} has no direction, so no axis (got {letter!r})"
            )
        return AXIS_NONE
    if letter not in ("H", "V"):
        raise ConfigError(f'{at}.axis: {NAMES[kind]} needs axis "H" or "V" (got {letter!r})')
    axis = AXIS_LETTERS.index(letter)
    assert axis_allowed(kind, axis)
    return axis


def _check_deck(path: Path | str, deck: list[tuple[int, int]]) -> None:
    if not any(kind == BLANK for kind, _ in deck):
        raise ConfigError(f"{path}: deck: no BLANK card to set aside as the start card")
    if len(deck) < MIN_DECK:
        raise ConfigError(
            f"{path}: deck: {len(deck)} cards; at least {MIN_DECK} needed "
            "(the BLANK set aside and a starting hand of 3)"
        )
    if len(deck) > MAX_CARDS:
        raise ConfigError(f"{path}: deck: {len(deck)} cards; at most {MAX_CARDS} per player")
