"""Player specs on the command line: names of strategies for the two seats."""

from __future__ import annotations

BUILT_IN = {"random": "the canonical random strategy of RULES.md 9"}


class PlayerError(ValueError):
    """A player spec that names no known strategy."""


def parse_players(spec: str) -> tuple[str, str]:
    """'random,random' -> the first and second seat's strategy names."""
    names = tuple(part.strip() for part in spec.split(","))
    if len(names) != 2 or not all(names):
        raise PlayerError(
            f"--players {spec!r}: expected two strategies, first,second (e.g. random,random)"
        )
    for name in names:
        if name not in BUILT_IN:
            raise PlayerError(
                f"unknown strategy {name!r}; available: {', '.join(sorted(BUILT_IN))}"
            )
    return names  # type: ignore[return-value]
