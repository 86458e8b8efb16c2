"""What a run plays: configs x match-ups, games per cell, master seed, seat swapping, chunks."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sim.model.config import Config, ConfigError, read_toml
from sim.model.overlay import OverlayError, derive
from sim.model.overlay import load as load_config
from sim.model.rules import RULES_VERSION
from sim.players.specs import Matchup, PlayerError, parse_matchup
from sim.runner.provenance import source_hash, strategy_version

DEFAULT_CHUNK = 100_000
SLOW_CHUNK = 200  # search and Python strategies: minutes, not hours, of work per part file
FAST = frozenset({"random", "greedy", "heuristic", "cpu"})
MAX_SEED = 2**64 - 1  # seeds are 64-bit words (sim.store.seeds)
MAX_GAMES = 10**12  # per config and match-up; far beyond any run, within int64 game indexes
MAX_CHUNK_SIZE = 1_000_000  # a worker holds a chunk's result arrays in memory
MAX_CHUNKS = 1_000_000  # the plan lists every chunk, and the manifest records each one


class PlanError(ValueError):
    """A run description that cannot be played; the message names the file or option."""


class UsageError(PlanError):
    """An option's value the run cannot take (a usage error: exit 2)."""


@dataclass(frozen=True)
class Cell:
    """One config x match-up: `games` games (seat-swapped pairs when `swap`)."""

    index: int
    config: Config
    players: Matchup
    swapped_pairs: bool = True

    @property
    def swap(self) -> bool:
        """Seat-swapped pairs, unless the CPU plays: it always takes the second seat."""
        return self.swapped_pairs and self.players.second.name != "cpu"

    @property
    def matchup(self) -> str:
        """The match-up's label, as the tables store it."""
        return self.players.text

    @property
    def a(self) -> str:
        """Strategy A's spec, as the tables store it."""
        return self.players.first.text

    @property
    def b(self) -> str:
        """Strategy B's spec, as the tables store it."""
        return self.players.second.text


@dataclass(frozen=True)
class Chunk:
    """Games start..stop-1 of one cell: the unit a worker plays and writes."""

    cell: Cell
    number: int
    start: int
    stop: int

    @property
    def name(self) -> str:
        return f"c{self.cell.index:03d}-{self.number:06d}"


@dataclass(frozen=True)
class RunPlan:
    configs: tuple[Config, ...]
    matchups: tuple[Matchup, ...]
    games: int
    seed: int
    swap: bool = True
    chunk_size: int = DEFAULT_CHUNK
    per_game_cards: bool = False  # also write the wide per-game cards table

    def cells(self) -> list[Cell]:
        return [
            Cell(i * len(self.matchups) + j, config, players, self.swap)
            for i, config in enumerate(self.configs)
            for j, players in enumerate(self.matchups)
        ]

    def chunks(self) -> list[Chunk]:
        size = self.chunk_size
        return [
            Chunk(cell, n, start, min(start + size, self.games))
            for cell in self.cells()
            for n, start in enumerate(range(0, self.games, size))
        ]

    @cached_property
    def strategy_versions(self) -> dict[str, str]:
        """Each strategy's version (provenance.strategy_version), by spec."""
        players = {p.text: p for m in self.matchups for p in (m.first, m.second)}
        return {spec: strategy_version(players[spec]) for spec in sorted(players)}

    def params(self) -> dict:
        """Everything that decides the results, code included; a run folder holds one set."""
        return {
            "configs": [{"name": c.name, "hash": c.hash} for c in self.configs],
            "matchups": [m.text for m in self.matchups],
            "games": self.games,
            "seed": self.seed,
            "swap": self.swap,
            "chunk_size": self.chunk_size,
            "rules_version": RULES_VERSION,
            "sim_source": source_hash(),
            "strategy_versions": self.strategy_versions,
            **({"per_game_cards": True} if self.per_game_cards else {}),
        }

    @property
    def run_id(self) -> str:
        text = json.dumps(self.params(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def total_games(self) -> int:
        return self.games * len(self.configs) * len(self.matchups)


def default_chunk(matchups: tuple[Matchup, ...]) -> int:
    """Part size from the strategies alone (so rerunning a command continues its run):
    large for the compiled fast players, small when a search or Python strategy plays, so
    finished work reaches disk often and every worker gets a share."""
    seats = [p for m in matchups for p in (m.first, m.second)]
    fast = all(p.name in FAST or p.weights_file for p in seats)  # a weights file: heuristic
    return DEFAULT_CHUNK if fast else SLOW_CHUNK


def make_plan(
    configs: list[str],
    players: list[str],
    games: int,
    seed: int,
    swap: bool = True,
    chunk_size: int | None = None,
    per_game_cards: bool = False,
    overlay: tuple[str, ...] = (),
) -> RunPlan:
    """Validate names and numbers into a plan; every problem is one PlanError (UsageError
    for an option's value). chunk_size None: the default for the strategies (default_chunk).
    overlay: --set items, applied to every config (sim.model.overlay)."""
    if not configs:
        raise UsageError("no config given (--config NAME, repeatable)")
    if not players:
        raise UsageError("no match-up given (--players A,B, repeatable)")
    check_numbers(games=games, seed=seed, chunk_size=chunk_size)
    try:
        matchups = _matchups(players)
    except PlayerError as exc:
        raise UsageError(str(exc)) from exc
    loaded = _configs(configs, overlay)
    chunk_size = default_chunk(matchups) if chunk_size is None else chunk_size
    if swap and games % 2 and any(m.second.name != "cpu" for m in matchups):
        raise UsageError(
            f"--games {games}: seat swapping plays whole pairs, so give an even number "
            f"({games - 1:,} or {games + 1:,}) or --no-swap"
        )
    if swap:
        chunk_size += chunk_size % 2  # a pair never straddles two chunks
    chunks = len(loaded) * len(matchups) * -(-games // chunk_size)
    if chunks > MAX_CHUNKS:
        raise UsageError(
            f"--games {games:,}: {chunks:,} chunks of {chunk_size:,} games; at most "
            f"{MAX_CHUNKS:,} a run (raise --chunk-size or play fewer games)"
        )
    return RunPlan(loaded, matchups, games, seed, swap, chunk_size, per_game_cards)


def check_numbers(name=lambda field: f"--{field.replace('_', '-')}", **values: int | None) -> None:
    """games, seed and chunk_size within what a run can play; name(field) says where each
    value came from (an option by default)."""
    limits = {
        "games": (1, MAX_GAMES, "1..10**12"),
        "seed": (0, MAX_SEED, "0..2**64-1"),
        "chunk_size": (2, MAX_CHUNK_SIZE, "2..1,000,000"),
    }
    for field, value in values.items():
        low, high, shown = limits[field]
        if value is not None and not low <= value <= high:
            raise UsageError(f"{name(field)} must be in {shown}, got {value}")


def _matchups(players: list[str]) -> tuple[Matchup, ...]:
    """Each match-up once: the same pair twice would count its seeds twice."""
    matchups = tuple(parse_matchup(spec) for spec in players)
    for i, matchup in enumerate(matchups):
        if matchup.text in [m.text for m in matchups[:i]]:
            raise PlayerError(f"--players {players[i]!r}: match-up {matchup.text} given twice")
    return matchups


def _configs(names: list[str], overlay: tuple[str, ...] = ()) -> tuple[Config, ...]:
    """Each config file once (derived with the --set items), under a name no other file of
    the run has: the tables key a config by name, so two of one name would merge."""
    try:
        loaded = tuple(derive(load_config(name), overlay) for name in names)
    except OverlayError as exc:
        raise UsageError(str(exc)) from None
    except ConfigError as exc:
        raise PlanError(str(exc)) from exc
    for i, config in enumerate(loaded):
        for j, other in enumerate(loaded[:i]):
            if (config.path.resolve(), config.overlay) == (other.path.resolve(), other.overlay):
                raise UsageError(
                    f"--config {names[j]!r} and --config {names[i]!r} are the same file "
                    f"({config.path}); give it once"
                )
            if config.name == other.name:
                raise UsageError(
                    f"--config: two configs named {config.name!r}, {other.path} and "
                    f"{config.path}; rename one (a run keys its tables by config name)"
                )
    return loaded


def read_plan_file(path: Path) -> dict:
    """A plan TOML's fields (configs, players, games, seed, swap, chunk_size)."""
    table = read_toml(path, PlanError)
    known = {"configs", "players", "games", "seed", "swap", "chunk_size", "description"}
    for key in table:
        if key not in known:
            raise PlanError(f"{path}: unknown field {key!r}; known: {', '.join(sorted(known))}")
    for key in ("configs", "players"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PlanError(f"{path}: {key}: expected a list of strings")
    for key in ("games", "seed", "chunk_size"):
        if key in table and (not isinstance(table[key], int) or isinstance(table[key], bool)):
            raise PlanError(f"{path}: {key}: expected a whole number")
    numbers = {k: table[k] for k in ("games", "seed", "chunk_size") if k in table}
    try:
        check_numbers(name=lambda field: f"{path}: {field}", **numbers)
    except UsageError as exc:
        raise PlanError(str(exc)) from None
    if "swap" in table and not isinstance(table["swap"], bool):
        raise PlanError(f"{path}: swap: expected true or false")
    table.pop("description", None)
    return table
