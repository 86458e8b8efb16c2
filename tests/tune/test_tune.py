"""`sim tune`: the search space's validation, the configs it makes, the verdicts, a planted
problem with a known answer, and an interrupted study that continues."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest
from cli_failures import assert_exit_1
from typer.testing import CliRunner

from reports.verdict import pairs_needed
from sim.cli import app
from sim.engine.cards import AXIS_H, AXIS_V, BLANK, PRINT
from sim.model.config import load as load_config
from sim.runner.run import RunOptions
from sim.store.folder import open_run
from sim.tune import candidate, metrics, objective, space, study, table
from sim.tune.metrics import Value
from sim.tune.report import build_page, load_tuning
from sim.tune.space import Target

# Only BLANK cards and a RUN line that cannot fill (60 slots, at most 24 cards a player):
# every turn plays one card and draws one, so with n cards a player (one set aside, three in
# hand, n - 4 in the pile) the first player's pile is empty at its (n - 3)th turn and the
# game ends deck_out there: 2n - 7 turns, every game. 11 turns is n = 9 and nothing else.
BLANKS = """
description = "only BLANK cards, a RUN line that cannot fill"
[rules]
run_capacity = 60
[[deck]]
kind = "BLANK"
count = 8
"""
PLANTED = """
description = "planted: only 9 BLANKs give 11 turns"
start = "blanks.toml"
matchups = ["random,random"]
[search]
pairs = 10
rungs = 2
startup = 4
confirm_max_pairs = 40
confirm_candidates = 2
[cards]
BLANK = [4, 12]
[rules]
lines = [5, 6]
[[target]]
metric = "turns"
within = [10.5, 11.5]
[[target]]
metric = "draw"
at_most = 100
goal = "constraint"
"""
TURNS = 'metric = "turns"'
SEED = 3
TRIALS = 6  # with seed 3 the answer is trial 6 (t0005); stated in the README


def invoke(*args: str):
    return CliRunner().invoke(app, ["tune", *args], prog_name="sim", env={"COLUMNS": "200"})


def write_space(folder: Path, text: str = PLANTED) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "blanks.toml").write_text(BLANKS)
    path = folder / "planted.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The planted study, uninterrupted."""
    folder = tmp_path_factory.mktemp("planted")
    out = folder / "out"
    result = invoke(str(write_space(folder)), "--out", str(out), "--trials", str(TRIALS),
                    "--seed", str(SEED))  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_planted_problem_is_solved(reference: Path) -> None:
    trials = pl.read_parquet(reference / "trials.parquet")
    assert trials.filter(pl.col("same_as").is_null()).height == TRIALS
    front = pl.read_parquet(reference / "front.parquet")
    assert set(front["cards.BLANK"]) == {9}
    assert front["confirmed"].all()
    files = sorted((reference / "candidates").glob("*.toml"))
    assert files
    for path in files:
        assert Counter(k for k, _ in load_config(str(path)).deck)[BLANK] == 9
    assert not trials.filter((pl.col("cards.BLANK") != 9) & pl.col("confirmed")).height


def test_show_prints_the_front_without_playing(reference: Path) -> None:
    result = invoke(str(reference), "--show")
    assert result.exit_code == 0, result.output
    assert "Pareto front" in result.stdout and "11.0" in result.stdout


def test_a_rerun_of_the_same_study_plays_nothing(reference: Path, tmp_path: Path) -> None:
    before = pl.read_parquet(reference / "trials.parquet").height

    def refuse(*args) -> None:
        raise AssertionError(f"played {args}")

    loaded = space.load(reference.parent / "planted.toml")
    s = study.run(loaded, reference, TRIALS, SEED, refuse)
    assert len(s.trials) == before


def test_an_interrupted_study_continues_as_if_uninterrupted(
    reference: Path, tmp_path: Path, monkeypatch
) -> None:
    path, out = write_space(tmp_path), tmp_path / "out"
    real = objective.runner_for
    calls = []

    def interrupting(options):
        run = real(options)

        def play(*args) -> None:
            calls.append(args)
            if len(calls) == 3:  # inside the third run folder: trial 1's second rung or trial 2
                raise KeyboardInterrupt
            run(*args)

        return play

    monkeypatch.setattr(objective, "runner_for", interrupting)
    args = (str(path), "--out", str(out), "--trials", "4", "--seed", str(SEED))
    stopped = invoke(*args)
    assert stopped.exit_code == 130
    assert "rerun the same command" in stopped.stderr
    monkeypatch.setattr(objective, "runner_for", real)
    assert invoke(*args).exit_code == 0
    resumed = pl.read_parquet(out / "trials.parquet").sort("trial")
    whole = pl.read_parquet(reference / "trials.parquet").sort("trial").head(resumed.height)
    keep = ["trial", "cards.BLANK", "rules.lines", "turns[random,random]", "same_as"]
    assert resumed.select(keep).equals(whole.select(keep))
    assert resumed.filter(pl.col("same_as").is_null()).height == 4
    more = invoke(str(path), "--out", str(out), "--trials", "5", "--seed", str(SEED))
    assert more.exit_code == 0, more.output  # a larger N adds trials, the same ones
    grown = pl.read_parquet(out / "trials.parquet").sort("trial")
    assert grown.filter(pl.col("same_as").is_null()).height == 5
    assert grown.select(keep).equals(
        pl.read_parquet(reference / "trials.parquet").sort("trial").head(grown.height).select(keep)
    )


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (PLANTED.replace('start = "blanks.toml"', 'start = "nope"'), "start"),
        (PLANTED.replace("BLANK = [4, 12]", "BLANK = [0, 12]"), "cards.BLANK"),
        (PLANTED.replace("BLANK = [4, 12]", "BLANK = [12, 4]"), "cards.BLANK"),
        (PLANTED.replace("BLANK = [4, 12]", "PRONT = [0, 2]"), "cards.PRONT"),
        (PLANTED.replace("lines = [5, 6]", "lines = [5, 7]"), "rules.lines"),
        (PLANTED.replace('metric = "turns"', 'metric = "length"'), "target[0].metric"),
        (PLANTED.replace("within = [10.5, 11.5]", "within = [12, 11]"), "target[0].within"),
        (PLANTED.replace('goal = "constraint"', 'goal = "maybe"'), "target[1].goal"),
        (PLANTED.replace("pairs = 10", "pairs = 0"), "search.pairs"),
        (PLANTED.replace("[search]", "[serch]"), "'serch'"),
        (PLANTED.replace('["random,random"]', '["random,nobody"]'), "matchups[0]"),
        (PLANTED + '[[swap]]\ncard = "SAVE V"\nchoices = ["CUT V"]\n', "swap[0].card"),
        (PLANTED.replace(TURNS, TURNS + '\nlevels = ["greedy"]'), "target[0].levels"),
        (PLANTED.replace(TURNS, TURNS + "\nlevels = []"), "target[0].levels"),
        (PLANTED.replace(TURNS, TURNS + '\nlevels = ["nobody"]'), "target[0].levels"),
        (PLANTED.replace(TURNS, TURNS + '\nlevels = ["random", "random"]'), "target[0].levels"),
        (PLANTED.replace(TURNS, TURNS + '\nlevels = "each"'), "target[0].levels"),
        (
            PLANTED.replace(TURNS, TURNS + '\nmatchup = "random,random"\nlevels = ["random"]'),
            "target[0].levels",
        ),
        (
            PLANTED.replace(TURNS, TURNS + '\nlevels = "every"').replace(
                '["random,random"]', '["greedy,random"]'
            ),
            "target[0].levels",
        ),
    ],
    ids=lambda value: value if len(value) < 40 else "",
)
def test_a_bad_space_is_one_error_naming_file_and_field(tmp_path: Path, text, where) -> None:
    path, out = write_space(tmp_path, text), tmp_path / "out"
    line = assert_exit_1(invoke(str(path), "--out", str(out), "--trials", "2"))
    assert "planted.toml" in line and where in line, line
    assert not out.exists()


def test_missing_options_are_usage_errors(tmp_path: Path) -> None:
    path = write_space(tmp_path)
    assert invoke(str(path), "--trials", "2").exit_code == 2
    assert invoke(str(path), "--out", str(tmp_path / "o")).exit_code == 2
    assert not (tmp_path / "o").exists()


def test_another_seed_in_the_same_folder_is_refused(reference: Path) -> None:
    line = assert_exit_1(invoke(str(reference.parent / "planted.toml"), "--out", str(reference),
                                "--trials", "2", "--seed", "4"))  # fmt: skip
    assert "seed" in line


def test_a_bare_directed_kind_alternates_its_axes(tmp_path: Path) -> None:
    text = PLANTED.replace('start = "blanks.toml"', 'start = "base"').replace(
        "BLANK = [4, 12]", "PRINT = [0, 4]"
    )
    loaded = space.load(write_space(tmp_path, text))
    values = {"cards.PRINT": 3, "rules.lines": 6}
    cards = candidate.deck(loaded, values)
    assert [a for k, a in cards if k == PRINT] == [AXIS_H, AXIS_V, AXIS_H]
    assert len(cards) == 17 - 2 + 3  # base has PRINT H and PRINT V
    config = candidate.write(loaded, values, tmp_path / "c.toml", "test")
    assert sorted(config.deck) == sorted(cards) and config.rules.lines == 6


def test_verdicts_from_intervals() -> None:
    band = Target("first_seat", "heuristic,heuristic", -0.5, 0.5)
    assert band.verdict(Value(0.1, -0.3, 0.4, 100)) == "met"
    assert band.verdict(Value(0.1, -0.6, 0.4, 100)) == "open"
    assert band.verdict(Value(0.9, 0.6, 1.2, 100)) == "missed"
    assert band.verdict(Value(0.0, -0.9, 0.9, 100)) == "open"  # wider than the band
    ceiling = Target("tiebreak", "heuristic,heuristic", None, 10.0)
    assert ceiling.verdict(Value(8.0, 7.0, 9.0, 100)) == "met"
    assert ceiling.verdict(Value(12.0, 10.5, 13.0, 100)) == "missed"
    floor = Target("a_score", "heuristic,random", 60.0, None)
    assert floor.verdict(Value(65.0, 61.0, 69.0, 100)) == "met"
    assert floor.verdict(Value(61.0, 58.0, 64.0, 100)) == "open"
    # 0.25 inside the band, spread 50 points a pair: ((1.96 + 0.84) * 50 / 0.25)^2 pairs
    inside = -band.excess(0.25)
    assert pairs_needed(inside, 50.0) == pytest.approx(313_960, rel=1e-3)
    assert pairs_needed(-band.excess(0.75), 50.0) == float("inf")


def test_a_skill_target_is_decided_by_its_worst_level() -> None:
    """Each level's [value, low, high, units, spread] by hand against ±1 point: the entry
    under the target's name is the level that decides it."""
    t = Target("first_seat", "levels:greedy/heuristic", -1.0, 1.0, levels=("greedy", "heuristic"))
    assert t.name == "first_seat[levels:greedy/heuristic]"

    def decided(greedy: list[float], heuristic: list[float]) -> tuple[list[float], str]:
        values = {"first_seat[greedy,greedy]": greedy, "first_seat[heuristic,heuristic]": heuristic}
        entry = objective.with_levels(values, (t,))[t.name]
        return entry, t.verdict(Value(*entry[:4]))

    met_far, met_near = [0.1, -0.2, 0.4, 100, 3], [-0.6, -0.9, -0.3, 100, 3]
    open_, missed = [0.8, 0.5, 1.1, 100, 3], [1.5, 1.2, 1.8, 100, 3]
    assert decided(met_far, met_near) == (met_near, "met")  # 0.4 from the bound, not 0.9
    assert decided(met_far, open_) == (open_, "open")
    assert decided(missed, open_) == (missed, "missed")
    wide_open = [2.0, -0.5, 4.5, 100, 30]  # further out than `missed`, but only open
    assert decided(missed, wide_open) == (missed, "missed")  # any missed level misses it
    assert objective.Evaluation(
        objective.with_levels({"first_seat[greedy,greedy]": open_,
                               "first_seat[heuristic,heuristic]": met_far}, (t,)),
        100, 1, False,
    ).excess(t) == pytest.approx(0.8 - 1.0)  # fmt: skip


def test_every_level_names_each_self_play_matchup(tmp_path: Path) -> None:
    text = PLANTED.replace('["random,random"]', '["random,random", "greedy,random"]').replace(
        TURNS, TURNS + '\nlevels = "every"'
    )
    text = text.replace('metric = "draw"', 'metric = "draw"\nmatchup = "greedy,random"')
    loaded = space.load(write_space(tmp_path, text))
    assert loaded.targets[0].levels == ("random",)
    assert loaded.targets[0].name == "turns[levels:random]"
    plain = space.load(write_space(tmp_path / "plain"))
    assert "levels" not in json.dumps(plain.canonical())  # older studies keep their hash


def test_a_planted_study_on_a_skill_target_finds_the_same_answer(tmp_path: Path) -> None:
    """The planted problem with its turns target on levels = "every" (random's self-play):
    the same trials, the same answer, 9 BLANKs."""
    path = write_space(tmp_path, PLANTED.replace(TURNS, TURNS + '\nlevels = "every"'))
    result = invoke(str(path), "--out", str(tmp_path / "out"), "--trials", str(TRIALS),
                    "--seed", str(SEED))  # fmt: skip
    assert result.exit_code == 0, result.output
    front = pl.read_parquet(tmp_path / "out" / "front.parquet")
    assert set(front["cards.BLANK"]) == {9} and front["confirmed"].all()
    assert "turns[levels:random]" in front.columns


SHIPPED_SPACES = sorted((Path(__file__).resolve().parents[2] / "configs" / "tune").glob("*.toml"))


@pytest.mark.parametrize("path", SHIPPED_SPACES, ids=lambda p: p.name)
def test_the_shipped_spaces_are_valid(path: Path) -> None:
    loaded = space.load(path)
    assert loaded.start_params() is not None  # the start config is trial 0
    assert {t.metric for t in loaded.targets} == {"first_seat", "tiebreak"}


def test_a_storage_that_cannot_be_opened_is_one_error(tmp_path: Path) -> None:
    path, out = write_space(tmp_path), tmp_path / "out"
    line = assert_exit_1(invoke(str(path), "--out", str(out), "--trials", "2",
                                "--storage", "nosuchdb://nowhere"))  # fmt: skip
    assert "--storage nosuchdb://nowhere" in line


def test_a_damaged_study_file_is_one_error(tmp_path: Path) -> None:
    path, out = write_space(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "study.db").write_text("not a database")
    (out / "tune.json").write_text(
        f'{{"space": "{path.resolve()}", "hash": "{space.load(path).hash}", "seed": 0, '
        '"storage": null}'
    )
    line = assert_exit_1(invoke(str(path), "--out", str(out), "--trials", "2"))
    assert "study.db" in line


def fake_trial(number: int, excess: dict[str, float]) -> SimpleNamespace:
    """A finished trial whose estimates put each target exactly `excess` outside it."""
    values = {}
    for name, x in excess.items():
        v = {"first_seat[random,random]": 0.5 + x, "tiebreak[random,random]": 10 + x,
             "draw[random,random]": 1 + x}[name]  # fmt: skip
        values[name] = [v, v, v, 100, 1.0]
    attrs = {"values": values, "pairs": 100, "rungs": 1, "stopped_early": False}
    return SimpleNamespace(number=number, user_attrs=attrs, params={})


def test_the_front_is_the_non_dominated_trials_meeting_the_constraints(tmp_path: Path) -> None:
    text = PLANTED.replace(
        'metric = "turns"\nwithin = [10.5, 11.5]',
        'metric = "first_seat"\n'
        'within = [-0.5, 0.5]\n[[target]]\nmetric = "tiebreak"\nat_most = 10',
    )
    text = text.replace('metric = "draw"\nat_most = 100', 'metric = "draw"\nat_most = 1')
    loaded = space.load(write_space(tmp_path, text))
    names = ["first_seat[random,random]", "tiebreak[random,random]", "draw[random,random]"]
    trials = [
        fake_trial(0, dict(zip(names, (1.0, 1.0, -1), strict=True))),
        fake_trial(1, dict(zip(names, (2.0, 0.5, -1), strict=True))),  # not beaten by 0
        fake_trial(2, dict(zip(names, (2.0, 2.0, -1), strict=True))),  # beaten by 0 and 1
        fake_trial(3, dict(zip(names, (0.0, 0.0, 0.5), strict=True))),  # best, but infeasible
    ]
    assert [t.number for t in table.front(loaded, trials)] == [0, 1]
    assert [t.number for t in table.front(loaded, trials[3:])] == [3]  # none feasible


def test_metrics_agree_with_the_games_table_and_the_runners_own_tables(tmp_path: Path) -> None:
    """metrics.py (the workers' tallies) against the games table counted here, and its
    intervals against winrates/tiebreaks.parquet's."""
    run = tmp_path / "run"
    objective.runner_for(RunOptions())(Path("base"), ("greedy,random",), 200, 11, run)
    got = objective.measured(metrics.tallies(run))
    games = open_run(run).games
    winner, swapped = games["winner"], games["swapped"]
    draws = (winner == "draw").mean()
    first = ((winner == "first").mean() + draws / 2) * 100 - 50
    a_won = ((winner == "first") & ~swapped) | ((winner == "second") & swapped)
    assert got["first_seat[greedy,random]"][0] == pytest.approx(first)
    assert got["a_score[greedy,random]"][0] == pytest.approx(100 * (a_won.mean() + draws / 2))
    assert got["draw[greedy,random]"][0] == pytest.approx(100 * draws)
    tiebreak = (games["outcome"] == "tiebreak").mean()
    assert got["tiebreak[greedy,random]"][0] == pytest.approx(100 * tiebreak)
    assert got["turns[greedy,random]"][0] == pytest.approx(games["turns"].mean())
    assert got["turns[greedy,random]"][3] == 200  # the pair is the unit
    wins = pl.read_parquet(run / "winrates.parquet").row(0, named=True)
    assert got["a_score[greedy,random]"][1] == pytest.approx(100 * wins["a_score_low"])
    ties = pl.read_parquet(run / "tiebreaks.parquet").filter(
        (pl.col("category") == "outcome") & (pl.col("value") == "tiebreak")
    )
    if ties.height:
        assert got["tiebreak[greedy,random]"][1] == pytest.approx(100 * ties["share_low"][0])


def test_a_space_smaller_than_the_trials_asked_ends_with_a_note(tmp_path: Path) -> None:
    text = PLANTED.replace("BLANK = [4, 12]", "BLANK = [8, 9]").replace("lines = [5, 6]", "")
    out = tmp_path / "out"
    result = invoke(str(write_space(tmp_path, text)), "--out", str(out), "--trials", "5")
    assert result.exit_code == 0, result.output
    assert "2 distinct points of 5" in result.stdout
    trials = pl.read_parquet(out / "trials.parquet")
    assert sorted(trials.filter(pl.col("same_as").is_null())["cards.BLANK"]) == [8, 9]
    assert [p.name for p in (out / "candidates").glob("*.toml")] == ["t0001.toml"]  # 9 BLANK


class Tags(HTMLParser):
    """Every element closed in order (void elements aside): a page a browser need not repair."""

    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag) -> None:
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
        else:
            self.open.pop()


def report(*args: str):
    return CliRunner().invoke(app, ["report", *args], prog_name="sim")


def test_report_renders_a_tuning_folder(reference: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "tune.html"
    result = report(str(reference), "--out", str(page_path))
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    tags = Tags()
    tags.feed(page)
    assert not tags.errors and not tags.open, (tags.errors, tags.open)
    front = pl.read_parquet(reference / "front.parquet")
    rows = re.findall(r"<tr><td class='l'>(t\d{4})[^<]*</td><td>(\d+)</td><td>(\d+)</td>", page)
    front_rows = {(f"t{r['trial']:04d}", str(r["cards.BLANK"]), str(r["rules.lines"]))
                  for r in front.iter_rows(named=True)}  # fmt: skip
    assert set(rows[: front.height]) == front_rows  # the front table comes first
    assert "11.0 [11.0, 11.0] met" in page  # 9 BLANKs: 2 * 9 - 7 turns, every game
    assert "yes (" in page  # confirmed on fresh seeds
    assert "blanks (start)" in page  # the start config beside the candidates
    assert page.count("<svg") == 2  # one figure per target
    assert "aria-label='turns[random,random] against the parameters'" in page
    assert "aria-label='draw[random,random] against the parameters'" in page
    assert "cards.BLANK" in page and "rules.lines" in page  # every varied parameter's panel
    assert not re.search(r"\b(src|href)\s*=\s*['\"](?!#)", page)  # self-contained


def test_report_of_a_tuning_folder_escapes_its_text(reference: Path) -> None:
    """The space's description, the start config's name, the match-ups, a note and the
    folder are text from the user: the page (an autoescaped template) shows them as text."""
    evil = "<script>alert(1)</script>&\"'"
    t = load_tuning(reference)
    s = t.space
    s = replace(s, description=evil, start=replace(s.start, name=evil), matchups=(evil,))
    t = replace(t, space=s, notes=(evil,), folder=Path("a<b>&\"'"))
    page = build_page(t)
    assert "<script>" not in page and evil not in page and "a<b>" not in page
    text = []
    tags = Tags()
    tags.handle_data = text.append
    tags.feed(page)
    assert not tags.errors and not tags.open, (tags.errors, tags.open)
    assert "".join(text).count(evil) >= 5  # description, start, match-ups, note, start row
    assert "from a<b>&\"'." in "".join(text)  # the footer's folder


def test_report_of_a_tuning_folder_as_json(reference: Path, tmp_path: Path) -> None:
    result = report(str(reference), "--out", str(tmp_path / "t.html"), "--json")
    assert result.exit_code == 0, result.output
    said = json.loads(result.stdout)
    assert said["tuning"] is True and said["figures"] == 2


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda out: (out / "front.parquet").unlink(), "no front.parquet yet"),
        (lambda out: (out / "trials.parquet").write_text("garbage"), "trials.parquet"),
        (lambda out: (out / "tune.json").unlink(), "no tune.json"),
        (lambda out: (out / "tune.json").write_text("{"), "tune.json: unreadable"),
    ],
    ids=["no-front", "bad-trials", "no-record", "bad-record"],
)
def test_report_of_a_bad_tuning_folder_is_one_usage_error(
    reference: Path, tmp_path: Path, damage, words
) -> None:
    out = tmp_path / "out"
    shutil.copytree(reference, out, ignore=shutil.ignore_patterns("trials", "confirm"))
    damage(out)
    result = report(str(out), "--out", str(tmp_path / "t.html"))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines
    assert "Traceback" not in result.output
    assert not (tmp_path / "t.html").exists()


def test_report_of_a_tuning_folder_whose_space_changed_is_refused(tmp_path: Path) -> None:
    """The page draws each target's bounds from the space file; a changed file would draw
    the wrong ones, so it is refused (exit 2)."""
    path = write_space(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "tune.json").write_text(json.dumps(
        {"space": str(path.resolve()), "hash": "0" * 16, "seed": 0, "storage": None}))  # fmt: skip
    result = report(str(out), "--out", str(tmp_path / "t.html"))
    assert result.exit_code == 2
    assert "has changed since" in result.stderr


def _study_points(url: str, loaded) -> list[tuple[int, dict]]:
    """(trial number, point) of every finished trial measured (not a repeat), from the study."""
    import optuna

    s = optuna.load_study(study_name=study.study_name(loaded, SEED), storage=url)
    return sorted((t.number, t.params) for t in s.trials
                  if t.state.name == "COMPLETE" and "same_as" not in t.user_attrs)  # fmt: skip


def test_a_shared_storage_holds_one_study_for_two_folders(reference: Path, tmp_path: Path) -> None:
    """Two sequential invocations, each with its own --out (two machines), on one --storage
    URL: the second continues the first's study, which then asks the very points the local
    reference study asked (the sampler depends on the trial number and the history only)."""
    path = write_space(tmp_path)
    url = f"sqlite:///{(tmp_path / 'shared.db').resolve()}"
    for out, n in (("one", 2), ("two", 3)):
        result = invoke(str(path), "--out", str(tmp_path / out), "--trials", str(n),
                        "--seed", str(SEED), "--storage", url)  # fmt: skip
        assert result.exit_code == 0, result.output
    assert not (tmp_path / "one" / "study.db").exists()  # the study is in the shared database
    loaded = space.load(path)
    points = _study_points(url, loaded)
    assert len(points) == 3
    whole = pl.read_parquet(reference / "trials.parquet").filter(pl.col("same_as").is_null())
    expected = [(r["trial"], {"cards.BLANK": r["cards.BLANK"], "rules.lines": r["rules.lines"]})
                for r in whole.sort("trial").head(3).iter_rows(named=True)]  # fmt: skip
    assert points == expected
    # the second folder played only the trial it added; the first folder's trials stay there
    assert sorted(p.name for p in (tmp_path / "two" / "trials").iterdir()) == ["t0002"]
    assert len(list((tmp_path / "one" / "trials").iterdir())) == 2


def test_a_tune_on_the_dask_backend_asks_and_measures_as_the_local_one(
    reference: Path, tmp_path: Path
) -> None:
    """`--backend dask` on an in-process cluster (as tests/runner/test_runner.py starts one): the
    same trials, the same measurements as the local backend's reference study."""
    distributed = pytest.importorskip("dask.distributed")
    path, out = write_space(tmp_path), tmp_path / "out"
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with cluster:
        result = invoke(str(path), "--out", str(out), "--trials", "2", "--seed", str(SEED),
                        "--backend", "dask", "--scheduler", cluster.scheduler_address)  # fmt: skip
    assert result.exit_code == 0, result.output
    keep = ["trial", "cards.BLANK", "rules.lines", "turns[random,random]",
            "draw[random,random]", "draw[random,random]:high", "pairs"]  # fmt: skip
    got = pl.read_parquet(out / "trials.parquet").sort("trial").select(keep)
    whole = pl.read_parquet(reference / "trials.parquet").sort("trial").head(got.height)
    assert got.height == 2 and got.equals(whole.select(keep))


def test_two_concurrent_processes_on_one_study_lose_no_trial(tmp_path: Path) -> None:
    """Two `sim tune` processes started at once on one new shared database: its tables are
    made once, the start config is played once, and the trials add up to --trials, each
    played in exactly one folder, none left running (a late ask gives its place back)."""
    import optuna

    path = write_space(tmp_path)
    url = f"sqlite:///{(tmp_path / 'shared.db').resolve()}"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sim",
                "tune",
                str(path),
                "--out",
                str(tmp_path / name),
                "--trials",
                "4",
                "--seed",
                str(SEED),
                "--storage",
                url,
                "--workers",
                "1",
            ],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for name in ("a", "b")
    ]
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, stderr
    s = optuna.load_study(study_name=study.study_name(space.load(path), SEED), storage=url)
    states = Counter(t.state.name for t in s.trials)
    assert states["RUNNING"] == 0 and states["WAITING"] == 0, states
    played = [t for t in s.trials if t.state.name == "COMPLETE" and "same_as" not in t.user_attrs]
    assert len(played) == 4
    assert sum(bool(t.user_attrs.get("start")) for t in played) == 1
    folders = Counter(p.name for name in ("a", "b") for p in (tmp_path / name / "trials").iterdir()
                      if (p / "r0").exists())  # fmt: skip
    assert folders == Counter(f"t{t.number:04d}" for t in played)  # each in one folder only


def test_a_late_ask_gives_way_and_a_second_start_is_given_back() -> None:
    """The two give-backs of a shared study, on an in-memory one: of two trials asked at
    once for the last place, the later (higher number) gives way; of two enqueued start
    configs, the later is the duplicate."""
    import optuna

    s = optuna.create_study(directions=["minimize"])
    s.enqueue_trial({"x": 1}, user_attrs={"start": True})
    s.enqueue_trial({"x": 1}, user_attrs={"start": True})  # a second machine, at once
    first, second, third = s.ask(), s.ask(), s.ask()
    assert not study._second_start(s, first) and study._second_start(s, second)
    assert not study._second_start(s, third)  # not a start config at all
    # three running, none done: with room for two, only the third ask is past it
    assert not study._taken(s, first.number, 2) and not study._taken(s, second.number, 2)
    assert study._taken(s, third.number, 2)
    s.tell(first, 1.0)  # one point done, two running: room for three takes both
    assert not study._taken(s, third.number, 3) and study._taken(s, third.number, 2)
