"""The HTML pages come from autoescaped templates: text from a run (config and strategy
names, folder paths) is shown as text, never run as markup; a missing variable fails."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import jinja2
import polars as pl
import pytest
from hand_runs import manifest, planted, write_run

from reports.html import build_report, load_run
from reports.html_compare import write_comparison
from reports.render import render

EVIL = "<script>alert(1)</script>&\"'"
MATCHUP = f"{EVIL},random"


class Page(HTMLParser):
    """The tags a browser would build from a page, its text and its aria-labels, decoded."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.labels: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        self.labels += [v for k, v in attrs if k == "aria-label"]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def evil_run(folder: Path, p_first: float, matchup: str = MATCHUP) -> Path:
    """A run of 100 seat-swapped pairs whose config (and, by default, A's strategy) is
    named EVIL."""
    games = planted(EVIL, matchup, 100, p_first, 1, seats=matchup.rsplit(",", 1))
    games = games.with_columns(score_first=pl.lit(60), score_second=pl.lit(40))
    about = manifest([EVIL], games.height) | {"params": {"swap": True, "matchups": [matchup]}}
    return write_run(folder, games, None, about)


def assert_shown_as_text(page: str, least: int) -> Page:
    """EVIL is nowhere as markup (no script element, no raw copy) and at least `least` times
    as the text a reader sees."""
    parsed = Page(page)
    assert "script" not in parsed.tags
    assert "<script>" not in page and EVIL not in page
    assert "".join(parsed.text).count(EVIL) >= least
    return parsed


def test_the_run_report_escapes_names_from_the_run(tmp_path: Path) -> None:
    page = build_report(load_run(evil_run(tmp_path / "r", 0.5)))
    parsed = assert_shown_as_text(page, 8)  # overview x2, verdict x2, table x2, tags, lines
    # an attribute holds the name whole: its quotes did not end the attribute early
    assert f"Final scores by seat, {EVIL} · {MATCHUP}, 200 games" in parsed.labels
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#34;&#39;" in page


def test_the_comparison_page_escapes_names_and_paths(tmp_path: Path) -> None:
    """Compared runs name their strategies by specs the comparison reads (no markup gets
    past the spec parser), so here the config and a folder carry the markup."""
    a = evil_run(tmp_path / "a<b>&\"'", 0.6, "greedy,random")
    b = evil_run(tmp_path / "b", 0.5, "greedy,random")
    out = write_comparison(a, b, tmp_path / "cmp.html", 1.0)
    page = out.read_text(encoding="utf-8")
    parsed = assert_shown_as_text(page, 3)  # the balance answer, the rows' cells
    assert f"A = {a}" in "".join(parsed.text)
    assert "a<b>" not in page


def test_a_missing_template_variable_fails_loudly() -> None:
    """StrictUndefined: a page missing `notes` raises instead of rendering an empty list."""
    given = {"title": "t", "names": ("a", "b"), "units": "u", "answers": [], "chart": ""}
    with pytest.raises(jinja2.UndefinedError, match="notes"):
        render("compare.html.j2", **given, rows=[])
    assert "<h2>Every row</h2>" in render("compare.html.j2", **given, rows=[], notes=[])


def test_the_history_page_escapes_names_from_the_runs(tmp_path: Path) -> None:
    from reports.html_history import write_history

    runs = [evil_run(tmp_path / f"n{i}", p) for i, p in enumerate((0.5, 0.5, 0.7))]
    page = write_history(runs, tmp_path / "history.html", 1.0).read_text(encoding="utf-8")
    assert_shown_as_text(page, 3)  # the table names each run's cell
