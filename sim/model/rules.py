"""Rule options (docs/RULES.md 11), validated once."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

RULES_VERSION = "1"  # bumped only when the engine's behaviour changes


class RuleError(ValueError):
    """A rule option with a value the rules do not allow; .field names it."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class RuleOptions:
    lines: int = 5
    run_capacity: int = 3
    orientation: str = "printed"
    visibility: str = "default"
    first_player: str = "random"
    cpu_level: int = 1
    cpu_reading: str = "glossary"

    @classmethod
    def from_mapping(cls, values: dict, where: str = "rules") -> RuleOptions:
        """Build from a config or scenario table, refusing unknown names and bad values."""
        known = {f.name for f in fields(cls)}
        for name in values:
            if name not in known:
                raise RuleError(
                    f"{where}.{name}", f"unknown rule option; known: {', '.join(sorted(known))}"
                )
        merged = {**asdict(cls()), **values}
        if merged["first_player"] in (0, 1):
            merged["first_player"] = str(merged["first_player"])
        options = cls(**merged)
        options.check(where)
        return options

    def check(self, where: str = "rules") -> None:
        _expect(where, "lines", self.lines, lambda v: _whole(v) and v in (5, 6), "5 or 6")
        _expect(
            where,
            "run_capacity",
            self.run_capacity,
            lambda v: _whole(v) and 1 <= v <= 60,
            "a whole number 1-60",
        )
        _expect(
            where,
            "orientation",
            self.orientation,
            ("printed", "free").__contains__,
            '"printed" or "free"',
        )
        _expect(
            where,
            "visibility",
            self.visibility,
            ("default", "open", "closed").__contains__,
            '"default", "open" or "closed"',
        )
        _expect(
            where,
            "first_player",
            self.first_player,
            ("random", "0", "1").__contains__,
            '"random", 0 or 1',
        )
        _expect(
            where,
            "cpu_level",
            self.cpu_level,
            lambda v: _whole(v) and v in (1, 2, 3, 4),
            "1, 2, 3 or 4",
        )
        _expect(
            where,
            "cpu_reading",
            self.cpu_reading,
            ("glossary", "numeric").__contains__,
            '"glossary" or "numeric"',
        )

    @property
    def first_option(self) -> int:
        """The engine's code for first_player: -1 random, else the digit."""
        return -1 if self.first_player == "random" else int(self.first_player)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expect(where, name, value, ok, wanted):
    if isinstance(value, bool) or not isinstance(value, int | str) or not ok(value):
        raise RuleError(f"{where}.{name}", f"{value!r} is not allowed; expected {wanted}")
