"""Weights files: the heuristic's evaluation as data, a `.toml` file as a player."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_failures import assert_clean_failure
from typer.testing import CliRunner

from sim.cli import app
from sim.engine.cards import BLANK, DELETE, GET, IFTHEN, N_KINDS
from sim.engine.game import R_WINNER, WIN_FIRST, WIN_SECOND
from sim.model.config import load
from sim.play.batch import play_matchup
from sim.players.specs import PlayerError, matchup, parse_player
from sim.players.weights import NAMED, PERSONAS, default_weights, read_weights
from strategies.heuristic import (
    W_FLIP,
    W_HAND,
    W_LEAD2,
    W_LEAD3,
    W_POT,
    W_REPLY,
    W_REPLY_LINE,
    W_SAVED,
    W_STOLEN,
)

BASE = load("base")
SEEDS = np.repeat(np.arange(1, 61, dtype=np.uint64), 2)
SWAPPED = np.tile(np.array([0, 1], dtype=np.uint8), 60)


def test_the_shipped_weights_are_the_heuristic_s_tuned_ones():
    """The values the heuristic was tuned with, slot by slot (they were code before)."""
    w = default_weights()
    expected = {W_POT: 0.6, W_LEAD2: 0.15, W_LEAD3: 0.1, W_SAVED: 0.2, W_REPLY: 0.8}
    expected |= {W_STOLEN: 4.0, W_REPLY_LINE: 1.0, W_FLIP: 0.15}
    for slot, value in expected.items():
        assert w[slot] == value
    hand = {kind: 4.0 for kind in range(N_KINDS)} | {BLANK: 0.0, IFTHEN: 6.0}
    assert [w[W_HAND + k] for k in range(N_KINDS)] == [hand[k] for k in range(N_KINDS)]


def write(tmp_path: Path, text: str, name: str = "mine.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_file_that_changes_nothing_plays_the_heuristic_s_games(tmp_path):
    same = write(tmp_path, 'description = "no changes"\n')
    ours = play_matchup(BASE, matchup(same, "greedy"), SEEDS, SWAPPED)
    shipped = play_matchup(BASE, matchup("heuristic", "greedy"), SEEDS, SWAPPED)
    assert all(np.array_equal(x, y) for x, y in zip(ours, shipped, strict=True))


def test_a_file_s_weights_change_the_play(tmp_path):
    reckless = write(tmp_path, "reply = 0.0\npot = 2.0\n[hand]\nDELETE = 0\nIFT = 0\n")
    assert read_weights(Path(reckless))[W_HAND + DELETE] == 0.0
    assert read_weights(Path(reckless))[W_HAND + GET] == 4.0  # unnamed: the shipped value
    ours, _ = play_matchup(BASE, matchup(reckless, "greedy"), SEEDS, SWAPPED)
    shipped, _ = play_matchup(BASE, matchup("heuristic", "greedy"), SEEDS, SWAPPED)
    assert not np.array_equal(ours, shipped)


def test_a_shipped_persona_is_a_player_by_its_name():
    rusher = parse_player("rusher")
    assert rusher.weights == read_weights(PERSONAS / "rusher.toml") and rusher.text == "rusher"
    with pytest.raises(PlayerError, match="available: .*controller.*rusher, saboteur"):
        parse_player("rusherr")


def test_strong_is_a_player_by_its_name_and_draws_numbers_for_its_second_ply():
    strong = parse_player("strong")
    assert strong.weights == read_weights(NAMED["strong"]) and strong.text == "strong"
    assert strong.compiled and not strong.deterministic
    assert not matchup("strong", "strong").replays  # its deals differ with the seats swapped


def test_a_weights_file_is_compiled_deterministic_and_replays_against_itself(tmp_path):
    player = parse_player(write(tmp_path, "flip = 0.5\n"))
    assert player.compiled and player.deterministic and not player.built_in
    assert matchup(player.name, player.name).replays


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("aggression = 1\n", "unknown weight 'aggression'; known: pot,"),
        ('pot = "high"\n', "pot: expected a finite number, got 'high'"),
        ("pot = true\n", "pot: expected a finite number, got True"),
        ("pot = nan\n", "pot: expected a finite number"),
        ("[hand]\nJOKER = 1\n", "hand.JOKER: unknown card kind 'JOKER'"),
        ("hand = 3\n", "hand: expected a table of card kinds"),
        ("pot = \n", "not valid TOML"),
    ],
)
def test_a_malformed_file_is_one_message_naming_the_file_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(PlayerError) as caught:
        parse_player(path)
    assert str(caught.value).startswith(f"{path}: ") and message in str(caught.value)


def test_a_missing_file_or_parameters_are_refused(tmp_path):
    with pytest.raises(PlayerError, match="nope.toml: cannot read the weights file"):
        parse_player(str(tmp_path / "nope.toml"))
    path = write(tmp_path, "pot = 1\n")
    with pytest.raises(PlayerError, match="takes no parameters"):
        parse_player(f"{path}(pot=2)")


def test_the_command_line_refuses_a_bad_weights_file_with_exit_2(tmp_path):
    path = write(tmp_path, "aggression = 1\n")
    args = ["run", "--config", "base", "--players", f"{path},random", "--games", "2"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "run")])
    message = assert_clean_failure(result)
    assert result.exit_code == 2 and "unknown weight 'aggression'" in message


@pytest.mark.parametrize("persona", sorted(p.name for p in PERSONAS.glob("*.toml")))
def test_every_shipped_persona_reads_and_differs_from_the_heuristic(persona):
    weights = read_weights(PERSONAS / persona)
    assert weights != default_weights()


@pytest.mark.parametrize("persona", sorted(p.name for p in PERSONAS.glob("*.toml")))
def test_every_shipped_persona_beats_random(persona):
    """Over 100 seat-swapped pairs, its win share's 95% Wilson interval lies above 50%."""
    from sim.stats import wilson

    seeds = np.repeat(np.arange(1, 101, dtype=np.uint64), 2)
    swapped = np.tile(np.array([0, 1], dtype=np.uint8), 100)
    out, _ = play_matchup(BASE, matchup(str(PERSONAS / persona), "random"), seeds, swapped)
    winner = out[:, R_WINNER]  # A sits first unless swapped
    a_won = np.where(swapped == 1, winner == WIN_SECOND, winner == WIN_FIRST)
    assert wilson(int(a_won.sum()), len(a_won))[0] > 0.5


def test_the_worked_example_of_the_docs_plays_and_keeps_its_deletes():
    """strategies/examples/hoarder.toml values a DELETE in hand at 12 points (3x the
    shipped 4), so it plays fewer of the DELETEs it draws than the heuristic does."""
    from sim.engine.game import C_DRAWN, C_PLAYED

    hoarder = str(Path(__file__).parents[2] / "strategies" / "examples" / "hoarder.toml")
    rates = []
    for spec in (hoarder, "heuristic"):
        _, cards = play_matchup(BASE, matchup(spec, "greedy"), SEEDS, SWAPPED)
        a_seat = np.where(SWAPPED == 1, 1, 0)  # A's row of the [game, seat] card counts
        mine = cards[np.arange(len(SEEDS)), a_seat, DELETE]
        rates.append(mine[:, C_PLAYED].sum() / mine[:, C_DRAWN].sum())
    assert rates[0] < rates[1]
