"""What a run plays: configs x match-ups, games per cell, master seed, seat swapping, chunks."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sim.config import Config, ConfigError
from sim.config import load as load_config
from sim.players import PlayerError, parse_player, parse_players
from sim.provenance import source_hash, strategy_version
from sim.rules import RULES_VERSION

DEFAULT_CHUNK = 100_000
SLOW_CHUNK = 200  # search and Python strategies: minutes, not hours, of work per part file
FAST = frozenset({"random", "greedy", "heuristic", "cpu"})


class PlanError(ValueError):
    """A run description that cannot be played; the message names the file or option."""


@dataclass(frozen=True)
class Cell:
    """One config x match-up: `games` games (seat-swapped pairs when `swap`)."""

    index: int
    config: Config
    a: str
    b: str
    swapped_pairs: bool = True

    @property
    def swap(self) -> bool:
        """Seat-swapped pairs, unless the CPU plays: it always takes the second seat."""
        return self.swapped_pairs and not self.b.startswith("cpu")

    @property
    def matchup(self) -> str:
        return f"{self.a},{self.b}"


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
    matchups: tuple[tuple[str, str], ...]
    games: int
    seed: int
    swap: bool = True
    chunk_size: int = DEFAULT_CHUNK

    def cells(self) -> list[Cell]:
        return [
            Cell(i * len(self.matchups) + j, config, a, b, self.swap)
            for i, config in enumerate(self.configs)
            for j, (a, b) in enumerate(self.matchups)
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
        specs = sorted({spec for matchup in self.matchups for spec in matchup})
        return {spec: strategy_version(parse_player(spec).name) for spec in specs}

    def params(self) -> dict:
        """Everything that decides the results, code included; a run folder holds one set."""
        return {
            "configs": [{"name": c.name, "hash": c.hash} for c in self.configs],
            "matchups": [f"{a},{b}" for a, b in self.matchups],
            "games": self.games,
            "seed": self.seed,
            "swap": self.swap,
            "chunk_size": self.chunk_size,
            "rules_version": RULES_VERSION,
            "sim_source": source_hash(),
            "strategy_versions": self.strategy_versions,
        }

    @property
    def run_id(self) -> str:
        text = json.dumps(self.params(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def total_games(self) -> int:
        return self.games * len(self.configs) * len(self.matchups)


def default_chunk(matchups) -> int:
    """Part size from the strategies alone (so rerunning a command continues its run):
    large for the compiled fast players, small when a search or Python strategy plays, so
    finished work reaches disk often and every worker gets a share."""
    names = {parse_player(spec).name for matchup in matchups for spec in matchup}
    return DEFAULT_CHUNK if names <= FAST else SLOW_CHUNK


def make_plan(
    configs: list[str],
    players: list[str],
    games: int,
    seed: int,
    swap: bool = True,
    chunk_size: int | None = None,
) -> RunPlan:
    """Validate names and numbers into a plan; every problem is one PlanError.

    chunk_size None: the default for the strategies (default_chunk)."""
    if not configs:
        raise PlanError("no config given (--config NAME, repeatable)")
    if not players:
        raise PlanError("no match-up given (--players A,B, repeatable)")
    if games < 1:
        raise PlanError(f"--games must be at least 1, got {games}")
    try:
        loaded = tuple(load_config(name) for name in dict.fromkeys(configs))
        matchups = tuple(dict.fromkeys(parse_players(spec) for spec in players))
    except (ConfigError, PlayerError) as exc:
        raise PlanError(str(exc)) from exc
    chunk_size = default_chunk(matchups) if chunk_size is None else chunk_size
    if chunk_size < 2:
        raise PlanError(f"chunk size must be at least 2, got {chunk_size}")
    if swap:
        games += games % 2  # whole pairs
        chunk_size += chunk_size % 2  # a pair never straddles two chunks
    if not 0 <= seed < 2**64:
        raise PlanError(f"--seed must be in 0..2**64-1, got {seed}")
    return RunPlan(loaded, matchups, games, seed, swap, chunk_size)


def read_plan_file(path: Path) -> dict:
    """A plan TOML's fields (configs, players, games, seed, swap, chunk_size)."""
    try:
        table = tomllib.loads(path.read_text())
    except OSError as exc:
        raise PlanError(f"{path}: cannot read: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{path}: not valid TOML: {exc}") from exc
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
    if "swap" in table and not isinstance(table["swap"], bool):
        raise PlanError(f"{path}: swap: expected true or false")
    table.pop("description", None)
    return table
