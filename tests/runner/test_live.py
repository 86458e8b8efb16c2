"""The live estimates under the progress bar: each cell's sums as chunks land, the first
seat's advantage and A's score with their confidence sequences, and the lines shown."""

import math

from typer.testing import CliRunner

from sim.cli import app
from sim.cli.progress import LEGEND, cell_line, live_lines
from sim.runner.live import Live, LiveTally
from sim.runner.plan import make_plan
from sim.runner.run import execute


def counts(config: str, matchup: str, games: int, a: list[int], first: list[int]) -> dict:
    """A chunk's counts as the workers send them (only what the live figures read)."""
    wins = {"config": config, "matchup": matchup, "games": games}
    wins |= {f"a_points_{h}": n for h, n in enumerate(a)}
    wins |= {f"first_points_{h}": n for h, n in enumerate(first)}
    return {"wins": wins}


def sequence_half_width(values: list[float], plan: int) -> float:
    """The 95% confidence sequence's half width around the mean of per-unit values, by the
    formula of Waudby-Smith et al. (2021) with rho tuned for plan units, written out."""
    n = len(values)
    mean = sum(values) / n
    sigma2 = sum((v - mean) ** 2 for v in values) / (n - 1)
    log_a = math.log(20)
    rho2 = (2 * log_a + math.log(1 + 2 * log_a)) / plan
    return math.sqrt(
        sigma2 * 2 * (n * rho2 + 1) / (n * n * rho2) * math.log(math.sqrt(n * rho2 + 1) * 20)
    )


def test_a_cell_sums_its_chunks_and_shows_the_first_seat_and_a():
    plan = make_plan(["base"], ["greedy,random"], 8, 0)  # 4 pairs planned
    tally = LiveTally(plan)
    # pairs by the first seat's half points: 0, 2 | 2, 4 -> points 0, 1, 1, 2 of 2 each;
    # by A's: 4, 3 | 4, 2 -> 2, 1.5, 2, 1
    tally.add(counts("base", "greedy,random", 4, [0, 0, 0, 1, 1], [1, 0, 1, 0, 0]))
    tally.add(counts("base", "greedy,random", 4, [0, 0, 1, 0, 1], [0, 0, 1, 0, 1]))
    (live,) = tally.cells()
    assert (live.units, live.unit, live.self_play) == (4, "pair", False)
    first = [0, 0.5, 0.5, 1]  # each pair's first-seat score
    half = sequence_half_width(first, 4)
    assert live.first[0] == 0.0  # 4 of 8 games: +0 points
    assert math.isclose(live.first[1], -half) and math.isclose(live.first[2], half)
    a = [1, 0.75, 1, 0.5]
    a_half = sequence_half_width(a, 4)
    assert math.isclose(live.a_score[0], 3.25 / 4)
    assert math.isclose(live.a_score[1], 3.25 / 4 - a_half)
    assert math.isclose(live.a_score[2], 3.25 / 4 + a_half)


def test_cells_show_in_the_plans_order_once_they_have_a_chunk():
    plan = make_plan(["base", "101"], ["random,random"], 4, 0)
    tally = LiveTally(plan)
    assert tally.cells() == [] and live_lines([]) == []
    tally.add(counts("101", "random,random", 2, [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]))
    tally.add(counts("base", "random,random", 2, [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]))
    assert [c.config for c in tally.cells()] == ["base", "101"]


def test_a_cells_line_reads_in_points_and_leaves_out_a_in_self_play():
    mixed = Live("base", "greedy,random", False, 4000, "pair", (0.015, 0.01, 0.02),
                 (0.786, 0.784, 0.788))  # fmt: skip
    assert cell_line(mixed) == (
        "  base greedy,random: first seat +1.5 [+1.0, +2.0] pts, A 78.6% [78.4, 78.8] (4,000 pairs)"
    )
    same = Live("101", "random,random", True, 1, "pair", (0.5, math.nan, math.nan),
                (0.0, math.nan, math.nan))  # fmt: skip
    assert cell_line(same) == "  101 random,random: first seat +50.0 pts (1 pair)"
    many = [mixed] * 10
    lines = live_lines(many)
    assert lines[0] == LEGEND and len(lines) == 10
    assert lines[-1] == "  and 2 more cells: sim summary when done"


def test_execute_hands_every_chunks_counts_to_watch_those_on_disk_first(tmp_path):
    plan = make_plan(["base"], ["random,random"], 600, 2, True, 200)
    seen: list[dict] = []
    execute(plan, tmp_path / "run", watch=seen.append)
    assert sum(c["wins"]["games"] for c in seen) == 600 and len(seen) == 3
    again: list[dict] = []
    execute(plan, tmp_path / "run", watch=again.append)  # nothing left to play
    key = lambda c: sorted(c["wins"].items())  # noqa: E731
    assert sorted(map(key, again)) == sorted(map(key, seen))


def test_sim_run_shows_the_live_estimates_and_quiet_does_not(tmp_path):
    args = ["run", "--players", "greedy,random", "--games", "400", "--workers", "1"]
    shown = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert shown.exit_code == 0, shown.output
    assert LEGEND in shown.output
    assert "  base greedy,random: first seat " in shown.output
    quiet = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b"), "--quiet"])
    assert LEGEND not in quiet.output


def test_the_progress_display_goes_to_stderr_so_json_stays_clean(tmp_path):
    args = ["skill", "--players", "random,greedy", "--pairs", "50", "--workers", "1", "--json"]
    done = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "s")])
    assert done.exit_code == 0, done.output
    import json

    assert json.loads(done.stdout)["command"] == "skill"
    assert LEGEND in done.stderr
