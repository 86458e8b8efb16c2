"""reports/html.py: numbers against the raw tables, samples, self-containment, a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from card_reference import long_cards
from scipy import stats as sps
from typer.testing import CliRunner

from reports.html import (
    MIN_SEEDS,
    ReportError,
    advantage,
    build_report,
    card_table,
    card_verdicts,
    load_run,
    report_counts,
    winrate_table,
    write_report,
)
from reports.stats import Difference
from sim.cli import app
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.stats import Estimate

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


def make_run(folder: Path, games: int, configs=("base",)) -> Path:
    plan = make_plan(list(configs), ["random,random"], games, 1, True, 1000, per_game_cards=True)
    return execute(plan, folder, RunOptions(workers=1)).out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("run") / "r", 2000, ("base", "101"))


@pytest.fixture(scope="module")
def page(run_dir: Path) -> str:
    return build_report(load_run(run_dir))


@pytest.fixture(scope="module")
def games(run_dir: Path) -> pl.DataFrame:
    frame = pl.read_parquet(run_dir / "games" / "*.parquet")
    return frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))


COPY = ["winner", "turns", "score_first"]  # a pair whose games agree on these: a copy


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def section(page: str, title: str) -> str:
    """The HTML of the section whose heading is title."""
    match = re.search(rf"<h2>{re.escape(title)}</h2>(.*?)</section>", page, re.S)
    assert match, title
    return match.group(1)


# Numbers against the raw tables


def test_win_rates_match_a_direct_count(run_dir: Path, games: pl.DataFrame) -> None:
    table = winrate_table(load_run(run_dir))
    assert table["config"].to_list() == ["101", "base"]
    for row in table.iter_rows(named=True):
        cell = games.filter(pl.col("config") == row["config"])
        winner = cell["winner"].to_numpy()
        swapped = cell["swapped"].to_numpy()
        assert row["games"] == cell.height == 2000
        assert row["seeds"] == cell["pair"].n_unique() == 1000
        assert row["first_wins"] == (winner == "first").sum()
        assert row["draws"] == (winner == "draw").sum()
        a_won = np.where(swapped, winner == "second", winner == "first")
        assert row["a_wins"] == a_won.sum()


def test_win_rate_intervals_take_the_pair_as_the_unit(page: str, games: pl.DataFrame) -> None:
    """The shown first-seat interval is Wilson's on the effective size p(1-p) / var, var the
    variance of the rate clustered by seat-swapped pair (written out here)."""
    cell = games.filter(pl.col("config") == "base")
    s = cell.group_by("pair").agg((pl.col("winner") == "first").sum())["winner"].to_numpy()
    n, p = 2 * s.size, s.sum() / (2 * s.size)
    n_eff = p * (1 - p) / (((s - 2 * p) ** 2).sum() / n**2)
    z = sps.norm.ppf(0.975)
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * np.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2))
    shown = f"{100 * p:.1f}% [{100 * (centre - half):.1f}, {100 * (centre + half):.1f}]"
    assert shown in section(page, "Balance and win rates")


def test_line_control_shares_match_a_direct_count(page: str, games: pl.DataFrame) -> None:
    body = section(page, "Line control")
    base = games.filter(pl.col("config") == "base")
    for line in ("line_10", "line_30", "line_50"):
        first = (base[line] == "first").sum() / base.height
        second = (base[line] == "second").sum() / base.height
        assert f">{100 * first:.1f}%<" in body
        assert f">{100 * second:.1f}%<" in body
    assert ">n/a<" in body  # base has no 60 line, 101 has
    assert "line_60" not in body and ">60<" in body


def test_card_impact_counts_match_a_direct_count(run_dir: Path, games: pl.DataFrame) -> None:
    wide = pl.read_parquet(run_dir / "cards" / "*.parquet")
    cards = long_cards(wide, ["PRINT", "GOSUB"])
    winner = dict(
        zip(zip(games["config"], games["game"], strict=True), games["winner"], strict=True)
    )
    table = card_table(load_run(run_dir))
    for config, kind in (("base", "PRINT"), ("101", "GOSUB")):
        rows = cards.filter((pl.col("config") == config) & (pl.col("kind") == kind))
        played = rows["played"].to_numpy() > 0
        won = np.array(
            [winner[(config, g)] == s for g, s in zip(rows["game"], rows["seat"], strict=True)]
        )
        row = table.filter((pl.col("config") == config) & (pl.col("kind") == kind)).row(
            0, named=True
        )
        assert (row["n_played"], row["k_played"]) == (played.sum(), (won & played).sum())
        assert (row["n_not"], row["k_not"]) == ((~played).sum(), (won & ~played).sum())
        assert row["n_played"] + row["n_not"] == 2 * 2000


# Samples and plain verdicts


def test_every_section_states_its_sample(page: str) -> None:
    for title in ("Balance and win rates", "Scores and game length", "Line control", "Cards"):
        assert "Sample: " in section(page, title), title
    assert "Sample: 4,000 games from 2,000 independent seeds (seat-swapped pairs" in section(
        page, "Balance and win rates"
    )
    assert "Too small to tell" not in page
    assert "each of the 2,000 seat-swapped pairs share a deal" in page


def test_seat_verdicts_follow_the_interval() -> None:
    """A share is favoured only when its whole interval is above (or below) 50%."""

    def share(value: float, low: float, high: float, units: int = 500) -> Estimate:
        return Estimate(value, low, high, units, 2 * units, "pair", 2.0 * units)

    text = advantage(share(0.6, 0.55, 0.65), "first seat", "second seat")
    assert text == "first seat favoured: first seat takes 60.0% [55.0, 65.0] of decided games"
    assert advantage(share(0.4, 0.35, 0.45), "A", "B").startswith("B favoured")
    assert advantage(share(0.52, 0.49, 0.55), "A", "B").startswith("no difference detectable")
    few = share(1.0, 0.7, 1.0, units=10)
    assert advantage(few, "A", "B") == f"too few seeds to tell (10 < {MIN_SEEDS})"


def test_card_verdicts_are_holm_adjusted_over_the_kinds() -> None:
    """p 0.01, 0.04, 0.03 -> Holm 0.03, 0.06, 0.06 (by hand): only the first stands."""
    diffs = [Difference(e, e - 0.01, e + 0.01, p, False, 100, 100)
             for e, p in ((0.05, 0.01), (-0.04, 0.04), (0.03, 0.03))]  # fmt: skip
    verdicts = card_verdicts([diffs[0], "too few to tell", diffs[1], diffs[2]])
    assert verdicts[0].startswith("seats that played it won more often (+5.0 pts")
    assert "Holm-adjusted p = 0.03)" in verdicts[0]
    assert verdicts[1] == "too few to tell"
    assert verdicts[2].startswith("no difference detectable") and "p = 0.06)" in verdicts[2]
    assert verdicts[3].startswith("no difference detectable") and "p = 0.06)" in verdicts[3]


def test_a_tiny_run_says_it_is_too_small(tmp_path: Path) -> None:
    page = build_report(load_run(make_run(tmp_path / "tiny", 20)))
    assert page.count("Too small to tell") >= 4  # every section
    assert f"too few seeds to tell (10 &lt; {MIN_SEEDS})" in page
    assert "too few to tell" in section(page, "Cards")


def test_an_incomplete_run_is_flagged(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "r", 40)
    manifest = (folder / "manifest.json").read_text()
    (folder / "manifest.json").write_text(manifest.replace('"complete"', '"interrupted"'))
    assert "The run is not complete (status interrupted)" in build_report(load_run(folder))


# Self-contained file


def test_the_page_needs_no_network(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 6
    assert not re.search(r"\b(src|href)\s*=\s*['\"](?!#)", page)  # only the page's own ids
    assert not re.search(r"@import|url\((?!#)", page)
    urls = set(re.findall(r"https?://[^\s'\"<>]+", page))
    namespaces = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert urls <= namespaces  # namespace names, never fetched


def test_text_from_the_run_is_escaped(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "r", 40)
    text = (folder / "manifest.json").read_text()
    (folder / "manifest.json").write_text(text.replace('"created": "', '"created": "<b>x</b>'))
    page = build_report(load_run(folder))
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page


def chromium() -> str | None:
    return next((path for b in BROWSERS if (path := shutil.which(b))), None)


CHECK = """<script>
const out = {texts: 0, clipped: [], labels: []};
for (const svg of document.querySelectorAll("svg")) {
  const box = svg.getBoundingClientRect();
  for (const t of svg.querySelectorAll("text")) {
    const r = t.getBoundingClientRect();
    out.texts += 1;
    out.labels.push(t.textContent.trim());
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
        r.bottom > box.bottom + 1) out.clipped.push(t.textContent.trim());
  }
}
const pre = document.createElement("pre");
pre.id = "sim-check";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


def test_the_report_renders_in_headless_chromium(run_dir: Path, tmp_path: Path) -> None:
    """Chromium draws the page: every plot's labels are text inside its figure (none clipped
    by the figure's edge), the axis titles and sample sizes are there, and a screenshot is a
    drawn page."""
    import json

    out = write_report(run_dir, tmp_path / "report.html")
    browser = chromium()
    assert browser is not None, "this test needs headless Chromium: apt-get install chromium"
    checked = tmp_path / "checked.html"
    checked.write_text(out.read_text().replace("</body>", CHECK + "</body>"))
    base = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*base, "--dump-dom", checked.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    run_id = load_run(run_dir).manifest["run_id"]
    assert f"<title>One Zero One run report {run_id}</title>" in dom
    found = json.loads(re.search(r'<pre id="sim-check">(.*?)</pre>', dom, re.S).group(1))
    assert found["texts"] > 50 and found["clipped"] == []
    labels = " ".join(found["labels"])
    for label in ("first-seat advantage", "final score (points)", "game length (turns)",
                  "share of games (%)", "win rate when played minus when not",
                  "balanced: ±1 pts", "2,000 games", "base · random,random"):  # fmt: skip
        assert label in labels, label
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*base, "--window-size=1200,2400", f"--screenshot={shot}", out.resolve().as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    png = shot.read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000  # a drawn page, not a blank one


# Errors and the command


def test_folders_that_hold_no_run_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such folder"):
        load_run(tmp_path / "missing")
    with pytest.raises(ReportError, match="not a run folder"):
        load_run(tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(ReportError, match="no games on disk"):
        load_run(tmp_path)


def test_cli_writes_the_report(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "report.html"
    result = cli("report", str(run_dir), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stdout
    assert "<svg" in out.read_text()


def test_cli_mistakes_fail_cleanly(tmp_path: Path) -> None:
    for args, message in [
        ([str(tmp_path / "missing")], "no such folder"),
        ([str(tmp_path)], "is not a run folder"),
    ]:
        result = cli("report", *args, "--out", str(tmp_path / "x.html"))
        assert result.exit_code == 1 and "Traceback" not in result.output
        lines = [x for x in result.stderr.splitlines() if x.startswith("error:")]
        assert len(lines) == 1 and message in lines[0]


def test_a_corrupt_table_fails_cleanly(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "r", 40)
    next((folder / "games").glob("*.parquet")).write_bytes(b"not parquet")
    result = cli("report", str(folder), "--out", str(tmp_path / "x.html"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cannot read the run's tables" in result.stderr


def test_seeds_of_two_match_ups_add_up(tmp_path: Path) -> None:
    """Pair 0 of random,random and pair 0 of greedy,random are different seeds (each
    match-up has its own seed key), so a config's line control counts both; and the report's
    counts off the tallies are the games table's (games, pairs, copies, histograms)."""
    plan = make_plan(["base"], ["random,random", "greedy,greedy"], 200, 3, True, 100)
    run = load_run(execute(plan, tmp_path / "r", RunOptions(workers=1)).out)
    games = pl.read_parquet(list(run.parts)).with_columns(pl.col(pl.Categorical).cast(pl.String))
    counts = report_counts(run)
    cells = [("base", "random,random"), ("base", "greedy,greedy")]
    assert [counts.seeds([c]) for c in cells] == [100, 100]
    assert counts.seeds(cells) == 200 == counts.pairs and counts.games == 400
    per_pair = games.group_by("matchup", "pair").agg(pl.struct(COPY).n_unique() == 1)
    assert counts.copies == per_pair["winner"].sum()  # greedy replays itself: 100 at least
    assert counts.copies >= 100
    for column in ("score_first", "turns", "end_reason"):
        cell = games.filter(pl.col("matchup") == "random,random")[column].value_counts()
        assert counts.values[("base", "random,random", column)] == dict(cell.iter_rows())
