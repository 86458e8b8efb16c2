"""reports/card_impact.py: building the swapped deck, the paired statistics, the command."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter

import numpy as np
import pytest
from cli_failures import assert_clean_failure
from scipy import stats as sps
from typer.testing import CliRunner

from reports.card_impact import (
    CardImpactError,
    card_impact,
    compare,
    pair_measures,
    swap_card,
)
from reports.sprt import pair_seeds
from sim.cli import app
from sim.engine.cards import (
    AXIS_H,
    AXIS_NONE,
    AXIS_V,
    BLANK,
    GET,
    PRINT,
    SAVE,
    SYNTAX,
    axis_allowed,
)
from sim.engine.game import C_DRAWN, R_TURNS, R_WINNER, RESULT_WIDTH
from sim.model.config import load
from sim.play.batch import play_batch
from sim.players.specs import matchup
from sim.runner.run import RunOptions

RANDOMS = matchup("random", "random")
ONE_WORKER = RunOptions(workers=1)


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def kinds(config) -> Counter:
    return Counter(config.deck)


# Building the swapped deck


def test_print_for_blank_swaps_every_copy_and_nothing_else() -> None:
    base = load("base")
    swap = swap_card(base, "PRINT")
    assert swap.copies == 2 and swap.card == PRINT and swap.replacement == BLANK
    before, after = kinds(base), kinds(swap.config)
    assert after[(BLANK, AXIS_NONE)] == before[(BLANK, AXIS_NONE)] + 2
    assert not any(k == PRINT for k, _ in swap.config.deck)
    assert before - Counter({(PRINT, AXIS_H): 1, (PRINT, AXIS_V): 1}) == after - Counter(
        {(BLANK, AXIS_NONE): 2}
    )
    assert swap.config.hash != base.hash
    assert swap.config.rules == base.rules and swap.notes == ()
    assert any(k == PRINT for k, _ in load("base").deck)  # the loaded config is untouched


def test_directed_for_directed_keeps_each_copys_axis() -> None:
    base = load("base")
    swap = swap_card(base, "PRT", "SAVE")
    old = [a for k, a in base.deck if k == PRINT]
    new = [a for (k, a), (k0, _) in zip(swap.config.deck, base.deck, strict=True) if k0 == PRINT]
    assert new == old == [AXIS_H, AXIS_V]
    assert kinds(swap.config)[(SAVE, AXIS_H)] == 2 and swap.notes == ()


def test_undirected_for_directed_chooses_an_axis_and_says_so() -> None:
    swap = swap_card(load("101"), "GET", "SYNTAX ERROR")
    assert [a for k, a in swap.config.deck if k == SYNTAX] == [AXIS_V]  # SYNTAX's shipped axis
    assert len(swap.notes) == 1 and "axis V" in swap.notes[0]
    swap = swap_card(load("variants"), "IF...THEN...ELSE", "PRINT")
    assert [a for k, a in swap.config.deck if k == PRINT] == [AXIS_H]


def test_blanks_keep_the_start_card_and_alternate_axes() -> None:
    base = load("base")
    swap = swap_card(base, "BLANK", "SAVE")
    assert swap.copies == 6
    assert kinds(swap.config)[(BLANK, AXIS_NONE)] == 1
    assert kinds(swap.config)[(SAVE, AXIS_H)] == 1 + 3 and kinds(swap.config)[(SAVE, AXIS_V)] == 4
    assert any("start card" in n for n in swap.notes) and any("H, V, H" in n for n in swap.notes)
    swap = swap_card(base, "BLANK", "GET")
    assert kinds(swap.config)[(GET, AXIS_NONE)] == 6


def test_every_swapped_card_has_a_valid_axis_and_the_deck_plays() -> None:
    for config, card, new in [
        ("base", "PRINT", "BLANK"),
        ("101", "GET", "ENTER"),
        ("variants", "SYNTAX ERROR", "IF...THEN...ELSE"),
        ("large", "CUT", "GOTO 10"),
    ]:
        swapped = swap_card(load(config), card, new).config
        assert all(axis_allowed(k, a) for k, a in swapped.deck)
        out, _ = play_batch(swapped, np.arange(200, dtype=np.uint64))
        assert (out[:, R_TURNS] > 0).all()


def test_cut_out_of_a_deck_with_paste_is_warned_about() -> None:
    swapped = swap_card(load("large"), "CUT").config
    assert any("PASTE but no CUT" in w for w in swapped.warnings)


@pytest.mark.parametrize(
    ("config", "card", "new", "message"),
    [
        ("base", "FOO", "BLANK", "--card: unknown card kind 'FOO'"),
        ("base", "PRINT", "BAR", "--swap-for: unknown card kind 'BAR'"),
        ("base", "GET", "BLANK", "GET is not in config base's deck; it holds BLANK, DELETE"),
        ("base", "PRINT", "PRT", "is the card itself"),
    ],
)
def test_impossible_swaps_are_refused(config: str, card: str, new: str, message: str) -> None:
    with pytest.raises(CardImpactError, match=re.escape(message)):
        swap_card(load(config), card, new)


def test_a_single_blank_cannot_be_swapped() -> None:
    base = load("base")
    one_blank = dataclasses.replace(base, deck=base.deck[6:])
    with pytest.raises(CardImpactError, match="only BLANK is the start card"):
        swap_card(one_blank, "BLANK", "SAVE")


# The paired statistics


def rows(winners: list[int], turns: list[int]) -> np.ndarray:
    """Crafted engine result rows holding only a winner and a length."""
    out = np.zeros((len(winners), RESULT_WIDTH), dtype=np.int32)
    out[:, R_WINNER], out[:, R_TURNS] = winners, turns
    return out


def test_pair_measures_by_hand() -> None:
    """Pairs (A first, A second): (first, second) A wins both; (second, second) one each;
    (draw, first) a draw (half a point) then a loss."""
    m = pair_measures(rows([0, 1, 1, 1, 2, 0], [10, 12, 20, 20, 30, 31]))
    assert m["first seat wins"].tolist() == [0.5, 0.0, 0.5]
    assert m["A score"].tolist() == [1.0, 0.5, 0.25]
    assert m["draws"].tolist() == [0.0, 0.0, 0.5]
    assert m["mean turns"].tolist() == [11.0, 20.0, 30.5]


def test_compare_matches_scipy_paired_t_on_pairs() -> None:
    """Changes are paired over seed pairs: the t interval and ttest_rel of pair means."""
    original = rows(
        [0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 2, 2], [20, 22, 25, 25, 24, 20, 26, 26, 30, 29, 28, 28]
    )
    swapped = rows(
        [0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 2, 1], [21, 22, 27, 26, 25, 24, 26, 29, 30, 33, 30, 28]
    )
    measures = {m.name: m for m in compare(original, swapped, "x", "y")}  # fmt: skip
    assert set(measures) == {"first seat wins", "x (A) score", "draws", "mean turns"}
    p = [m.change.p_value for m in measures.values()]  # Holm by hand over the four rows
    order = sorted(range(4), key=lambda i: p[i])
    running, adjusted = 0.0, [0.0] * 4
    for rank, i in enumerate(order):
        running = max(running, (4 - rank) * p[i])
        adjusted[i] = min(1.0, running)
    assert [m.holm_p for m in measures.values()] == pytest.approx(adjusted)
    assert [m.significant for m in measures.values()] == [q <= 0.05 for q in adjusted]
    # first-seat win share per pair, computed by hand from the rows above
    before = np.array([1.0, 0.5, 0.5, 0.0, 0.5, 0.0])
    after = np.array([0.5, 1.0, 0.0, 0.5, 1.0, 0.0])
    d = after - before
    half = sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    m = measures["first seat wins"]
    assert (m.original, m.swapped) == pytest.approx((before.mean(), after.mean()))
    assert (m.change.low, m.change.high) == pytest.approx((d.mean() - half, d.mean() + half))
    assert m.change.p_value == pytest.approx(sps.ttest_rel(after, before).pvalue)
    turns = measures["mean turns"]
    t_before = np.array([21, 25, 22, 26, 29.5, 28])
    t_after = np.array([21.5, 26.5, 24.5, 27.5, 31.5, 29])
    assert turns.change.estimate == pytest.approx((t_after - t_before).mean())
    assert turns.change.p_value == pytest.approx(sps.ttest_rel(t_after, t_before).pvalue)


def test_card_impact_replays_the_same_seeds_on_both_decks(tmp_path) -> None:
    """The original half is exactly the engine's games on the runner's pair seeds; the
    swapped half draws no PRINT; seeds are the same on both sides."""
    base = load("base")
    swap = swap_card(base, "PRINT")
    impact = card_impact(base, swap, RANDOMS, 2000, 4, tmp_path / "r", ONE_WORKER)
    assert impact.pairs == 1000 and impact.games == 2000
    seeds = np.repeat(pair_seeds(4, RANDOMS, 0, 1000), 2)
    second_of_pair = np.tile([0, 1], 1000)
    original, _ = play_batch(base, seeds, swapped=second_of_pair)
    swapped, cards = play_batch(swap.config, seeds, swapped=second_of_pair)
    assert cards[:, :, PRINT, C_DRAWN].sum() == 0
    first = {m.name: m for m in impact.measures}["first seat wins"]
    assert first.original == pytest.approx((original[:, R_WINNER] == 0).mean())
    assert first.swapped == pytest.approx((swapped[:, R_WINNER] == 0).mean())
    turns = {m.name: m for m in impact.measures}["mean turns"]
    assert turns.change.estimate == pytest.approx(
        swapped[:, R_TURNS].mean() - original[:, R_TURNS].mean()
    )


def test_card_impact_depends_only_on_its_seed(tmp_path) -> None:
    """The same master seed gives the same comparison; another seed other games."""
    base = load("base")
    swap = swap_card(base, "SAVE")
    one, two = (card_impact(base, swap, RANDOMS, 400, 9, tmp_path / d, ONE_WORKER) for d in "ab")
    other = card_impact(base, swap, RANDOMS, 400, 10, tmp_path / "c", ONE_WORKER)
    assert one.measures == two.measures != other.measures


# The command


def test_cli_reports_changes_with_intervals_and_sample(tmp_path) -> None:
    result = cli("card-impact", "--config", "base", "--card", "PRINT", "--games", "2000",
                 "--out", str(tmp_path / "r"), "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "2 PRINT -> BLANK per deck" in out
    for label in ("first seat wins", "random (A) score", "draws", "mean turns", "Holm p"):
        assert label in out
    assert "Holm-adjusted over the 4 measures" in out
    assert "2,000 games per deck (1,000 seat-swapped seed pairs" in out


def test_cli_notes_an_axis_it_chose(tmp_path) -> None:
    result = cli("card-impact", "--config", "101", "--card", "GET", "--swap-for", "PRINT",
                 "--games", "40", "--out", str(tmp_path / "r"), "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "note: GET has no axis; the new PRINT cards get axis H" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--card", "FOO"], "unknown card kind 'FOO'"),
        (["--card", "GET"], "GET is not in config base's deck"),
        ([], "no card given"),
        (["--card", "PRINT", "--games", "2"], "--games must be at least 4"),
        (["--card", "PRINT", "--players", "random"], "expected two strategies"),
        (["--card", "PRINT", "--config", "nope"], "unknown config 'nope'"),
        (["--card", "PRINT", "--swap-for", "PRINT"], "is the card itself"),
        (["--card", "PRINT", "--players", "random,cpu"], "cannot play seat-swapped pairs"),
    ],
)
def test_cli_mistakes_fail_cleanly(args: list[str], message: str) -> None:
    """An option value the command cannot take is a usage error (exit 2); a config file
    that cannot be used is a failure (exit 1)."""
    result = cli("card-impact", *args)
    line = assert_clean_failure(result)
    assert message in line
    assert result.exit_code == (1 if "unknown config" in message else 2), line
