"""The card tallies a run stores (sim.store.tables.card_tally_columns), computed another
way: with polars, by reports.tally.tallies, from cards one row per game, seat and kind.
Tests hold the runner's compiled tallies to this and build hand-made runs' tallies with it."""

from __future__ import annotations

import polars as pl
from frame_tallies import tallies

from sim.store.categories import CARD_CODES, COUNT_NAMES, KINDS

RATES = ("any_played", "won_played", "won_unplayed")
MOMENTS = ("units", "y", "z", "yy", "zz", "yz")
KEYS = ["config", "matchup", "seats", "strategy", "kind"]


def long_cards(wide: pl.DataFrame, kinds: list[str]) -> pl.DataFrame:
    """The per-game cards table (one row per game and seat) as one row per game, seat and
    kind, for the kinds given."""
    frames = []
    for kind in kinds:
        code = CARD_CODES[KINDS.index(kind)]
        frames.append(
            wide.select(
                "config", "matchup", "game", "seat", "strategy", pl.lit(kind).alias("kind"),
                *(pl.col(f"{code}_{c}").alias(c) for c in COUNT_NAMES),
            )
        )  # fmt: skip
    return pl.concat(frames).with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))


def reference_tallies(games: pl.DataFrame, cards: pl.DataFrame) -> pl.DataFrame:
    """Summed card tallies of a run from its games (config, matchup, game, pair, winner) and
    long cards (config, matchup, game, seat, strategy, kind, drawn, played[, took_effect])."""
    games = games.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
    if "took_effect" not in cards.columns:
        cards = cards.with_columns(pl.lit(0).alias("took_effect"))
    keys = ["config", "matchup", "game"]
    joined = cards.join(games.select(*keys, "pair", "winner"), on=keys)
    won, played = pl.col("winner") == pl.col("seat"), pl.col("played") > 0
    quantities = {
        "any_played": (played, None),
        "won_played": (won & played, played),
        "won_unplayed": (won & ~played, ~played),
    }
    a = pl.col("matchup").str.split(",").list.first()
    b = pl.col("matchup").str.split(",").list.last()
    joined = joined.with_columns(
        pl.when(a == b).then(pl.lit("both")).when(pl.col("strategy") == a)
        .then(pl.lit("a")).otherwise(pl.lit("b")).alias("seats")
    )  # fmt: skip
    per_side = _tallied(joined, ["config", "matchup", "seats", "strategy", "kind"], quantities)
    mixed = joined.filter(pl.col("seats") != "both")
    every = _tallied(mixed, ["config", "matchup", "kind"], quantities).with_columns(
        pl.lit("both").alias("seats"), pl.lit(None, pl.String).alias("strategy")
    )
    return pl.concat([per_side, every.select(per_side.columns)]).sort(KEYS, nulls_last=True)


def _tallied(frame: pl.DataFrame, keys: list[str], quantities: dict) -> pl.DataFrame:
    counted = tallies(frame, keys, quantities).rename(
        {f"{q}:{m}": f"{q}_{m}" for q in RATES for m in MOMENTS}
    )
    sums = frame.group_by(keys).agg(
        pl.len().alias("seat_games"), *(pl.col(c).cast(pl.Int64).sum() for c in COUNT_NAMES)
    )
    columns = [*keys, "seat_games", *COUNT_NAMES, *(f"{q}_{m}" for q in RATES for m in MOMENTS)]
    return counted.join(sums, on=keys).select(columns)


def stored_tallies(out) -> pl.DataFrame:
    """A run folder's card tallies summed over its chunks, in the reference's layout."""
    frame = pl.read_parquet(out / "card_tallies" / "*.parquet")
    frame = frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
    return frame.group_by(KEYS).agg(pl.exclude(KEYS).sum()).sort(KEYS, nulls_last=True)


def write_tallies(folder, games: pl.DataFrame, cards: pl.DataFrame) -> None:
    """A hand-made run's card_tallies part, from its games and long cards."""
    (folder / "card_tallies").mkdir(parents=True, exist_ok=True)
    table = reference_tallies(games, cards).with_columns(pl.exclude(pl.String).cast(pl.UInt64))
    table.write_parquet(folder / "card_tallies" / "part-0.parquet")
