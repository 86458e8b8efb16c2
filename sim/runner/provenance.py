"""What produced a run's results besides its parameters: sim's version and source, and each
strategy's version. A run folder is only continued by the same code, so a run never mixes
games from two versions of the engine or of a designer's strategy."""

from __future__ import annotations

import hashlib
import inspect
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.players.specs import Player

PACKAGE = Path(__file__).resolve().parents[1]  # the sim package
BUILT_INS = PACKAGE.parent / "strategies"  # the built-in players' compiled code lives there


def sim_version() -> str:
    try:
        return metadata.version("one-zero-one-sim")
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def source_hash() -> str:
    """A fingerprint of every Python file of the sim package and of the built-in players
    (names and contents): it changes with any edit to the code that deals, plays and records
    games."""
    files = [(p.relative_to(PACKAGE).as_posix(), p) for p in sorted(PACKAGE.rglob("*.py"))]
    # not strategies/examples: a Python strategy is versioned by its own file
    files += [(f"strategies/{p.name}", p) for p in sorted(BUILT_INS.glob("*.py"))]
    # the shipped heuristic's weights are data the built-in plays by (not the personas,
    # which are weights files versioned by their own contents)
    files += [(f"strategies/weights/{p.name}", p) for p in sorted(BUILT_INS.glob("weights/*"))]
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def strategy_version(player: Player) -> str:
    """A built-in's version is sim's; a weights file's is the hash of its weights (with
    sim's, whose heuristic plays them); a Python strategy's is its class's own `version`
    attribute (if any), its package's version (entry points) and the hash of its source file."""
    from sim.players import plugins

    name = player.name
    if player.built_in:
        return f"built-in, sim {sim_version()} source {source_hash()}"
    if player.weights is not None:
        weights = hashlib.sha256(repr(player.weights).encode()).hexdigest()[:16]
        return f"weights sha256 {weights}, sim {sim_version()} source {source_hash()}"
    cls = plugins.strategy_class(name)
    parts = []
    if getattr(cls, "version", None) is not None:
        parts.append(f"version {cls.version}")
    entry_point = plugins.entry_points().get(name)
    if entry_point is not None and entry_point.dist is not None:
        parts.append(f"package {entry_point.dist.name} {entry_point.dist.version}")
    source = inspect.getsourcefile(cls)
    if source:
        file_hash = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]
        parts.append(f"{Path(source).name} sha256 {file_hash}")
    return ", ".join(parts)
