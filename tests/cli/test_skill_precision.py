"""`sim skill --precision P`: rounds through the runner until every level's first-seat
confidence sequence is at most ±P points, or --max-pairs; read back, resumed and replayed
alike; bad values refused with one line."""

from __future__ import annotations

import json

import pytest
from cli_failures import assert_clean_failure
from typer.testing import CliRunner

from sim.cli import app


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": "80"})


def as_json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


PRECISE = ("skill", "--players", "random,greedy", "--pairs", "50", "--precision", "6",
           "--max-pairs", "2000", "--json", "-q")  # fmt: skip
CAPPED = ("skill", "--players", "random,greedy", "--pairs", "40", "--precision", "0.5",
          "--max-pairs", "100", "--json", "-q")  # fmt: skip


@pytest.fixture(scope="module")
def precise(tmp_path_factory):
    out = tmp_path_factory.mktemp("precise") / "run"
    return out, as_json(invoke(*PRECISE, "--out", str(out), "--workers", "1"))


def halves(doc: dict) -> dict[str, float]:
    (cfg,) = doc["configs"]
    return {lv["player"]: (lv["first_seat"]["hi"] - lv["first_seat"]["lo"]) / 2
            for lv in cfg["levels"]}  # fmt: skip


def test_it_plays_rounds_until_every_level_is_within_the_precision(precise):
    out, doc = precise
    assert all(h <= 6 for h in halves(doc).values()), halves(doc)
    (cfg,) = doc["configs"]
    assert cfg["interval"] == "95% confidence sequence"
    assert doc["precision"] == {"precision": 6.0, "pairs": 50, "max_pairs": 2000, "plan": 316}
    assert (out / "round-2").is_dir()  # 50 pairs cannot give ±6: a pair's spread is ~0.3
    assert all(50 < lv["pairs"] < 2000 for lv in cfg["levels"])
    assert all(lv["arc"]["units"] == lv["pairs"] for lv in cfg["levels"])  # every round's


def test_the_rounds_read_back_and_replay_the_same(precise, tmp_path):
    """RUN reads the rounds; the same command in a new folder on two workers, the same."""
    out, doc = precise
    assert as_json(invoke("skill", str(out), "--json")) == doc
    again = as_json(invoke(*PRECISE, "--out", str(tmp_path / "again"), "--workers", "2"))
    assert again == doc


def test_the_cap_stops_it_and_says_so(tmp_path):
    """±0.5 pts is far out of reach: round 1 plays 40 pairs, round 2 the 60 left to 100."""
    result = invoke(*CAPPED, "--out", str(tmp_path / "run"), "--workers", "1")
    doc = as_json(result)
    (cfg,) = doc["configs"]
    assert [lv["pairs"] for lv in cfg["levels"]] == [100, 100]
    assert "warning: stopped at --max-pairs 100: random ±" in result.stderr
    assert not (tmp_path / "run" / "round-3").exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (("--precision", "0"), "--precision must be between 0 and 50"),
        (("--precision", "-1"), "--precision must be between 0 and 50"),
        (("--precision", "nan"), "--precision must be between 0 and 50"),
        (("--max-pairs", "500"), "give --precision"),
        (("--precision", "1", "--pairs", "500", "--max-pairs", "100"), "below --pairs"),
    ],
)
def test_bad_values_are_one_line_and_exit_2(args, words):
    result = invoke("skill", "--players", "random,greedy", *args)
    line = assert_clean_failure(result)
    assert result.exit_code == 2, result.output
    assert words in line


def test_precision_with_a_run_is_a_usage_error(precise):
    result = invoke("skill", str(precise[0]), "--precision", "1")
    assert result.exit_code == 2 and "RUN reads" in assert_clean_failure(result)


def test_a_folder_played_to_another_precision_is_refused(precise):
    out, _ = precise
    result = invoke("skill", "--players", "random,greedy", "--pairs", "50", "--precision",
                    "5", "--max-pairs", "2000", "--out", str(out), "-q")  # fmt: skip
    assert result.exit_code == 1 and "write these elsewhere" in assert_clean_failure(result)


def test_round_sizes_and_seeds_by_hand():
    """After 100 pairs: a level already within ±P still gets the least round, half again
    (50 pairs: 10% past 100 is only 10 more); a far one gets what is left to the cap; round
    1 plays on the master seed, later rounds on others, the same every time."""
    from sim.cli.rounds import Precision, next_pairs, round_seed
    from sim.stats import Tally

    def coin(units: int, heads: int) -> Tally:
        return Tally(units, heads, units, heads, units, heads)

    target = Precision(points=20.0, first=100, cap=1000)
    assert target.plan == 316  # sqrt(100 * 1000) = 316.2
    assert next_pairs({("c", "x"): (coin(100, 50), 30.0)}, 100, target) == 50
    tight = Precision(points=0.5, first=100, cap=1000)
    assert next_pairs({("c", "x"): (coin(100, 50), 15.0)}, 100, tight) == 900
    assert round_seed(7, 1) == 7
    assert round_seed(7, 2) == round_seed(7, 2) not in (7, round_seed(7, 3), round_seed(8, 2))


def test_the_interval_a_precision_run_stops_on_covers_the_truth():
    """The whole procedure on simulated pairs (a pair's first-seat half-points drawn from a
    fixed law, truth (0.15 + 0.6 + 0.75 + 0.8) / 4 = 57.5%): rounds sized by next_pairs,
    stopping once the sequence is within ±3 pts. Over 2,000 runs the interval it stops on
    misses the truth at most 5% + 1 point (two binomial standard errors) of the time."""
    import numpy as np

    from sim.cli.rounds import Precision, next_pairs
    from sim.stats import confidence_sequence, points

    law, truth = (0.10, 0.15, 0.30, 0.25, 0.20), 0.575
    target = Precision(points=3.0, first=100, cap=20_000)
    rng = np.random.default_rng(32)
    missed, rounds = 0, []
    for _ in range(2000):
        counts, played, k = rng.multinomial(target.first, law), target.first, 1
        while True:
            t = points(tuple(int(c) for c in counts), 2 * played)
            lo, hi = confidence_sequence(t, target.plan)
            if 50 * (hi - lo) <= target.points or played >= target.cap:
                break
            more = next_pairs({("c", "x"): (t, 50 * (hi - lo))}, played, target)
            counts, played, k = counts + rng.multinomial(more, law), played + more, k + 1
        missed += not lo <= truth <= hi
        rounds.append(k)
    assert missed / 2000 <= 0.05 + 0.01
    assert max(rounds) > 1  # it did stop on data it chose to look at


def test_a_league_plays_rounds_until_every_pairing_is_within_the_precision(tmp_path):
    """--precision on sim league: every pairing's score (a confidence sequence) within
    ±10 points; 40 pairs cannot give that (a pair's score spreads ~0.3), so it played on;
    RUN reads the rounds back the same."""
    out = tmp_path / "league"
    args = ("league", "--players", "random,greedy,heuristic", "--pairs", "40", "--precision",
            "10", "--max-pairs", "1000", "--json", "-q")  # fmt: skip
    doc = as_json(invoke(*args, "--out", str(out), "--workers", "1"))
    (cfg,) = doc["configs"]
    assert cfg["interval"] == "95% confidence sequence"
    assert doc["precision"]["precision"] == 10.0
    assert all(50 * (row["hi"] - row["lo"]) <= 10 for row in cfg["crosstable"])
    assert max(row["pairs"] for row in cfg["crosstable"]) > 40
    assert as_json(invoke("league", str(out), "--json")) == doc
