"""The Python API (sim.run, sim.open_run), each test in a fresh interpreter as a notebook
or script would use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from sim.store.seeds import cell_key, played_seeds

ROOT = Path(__file__).resolve().parents[1]


def python(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300
    )


def test_run_then_open_run_from_a_fresh_interpreter(tmp_path):
    out = tmp_path / "run"
    done = python(
        f"""
        import json
        import polars as pl
        import sim

        if __name__ == "__main__":
            view = sim.run(["base"], ["greedy,random"], games=300, seed=3, out={str(out)!r},
                           workers=1, chunk_size=100)
            again = sim.open_run({str(out)!r})
            games = again.games.collect()
            summary = again.summary()
            first = summary.filter((pl.col("table") == "wins") & (pl.col("name") == "first seat"))
            print(json.dumps({{
                "games": games.height,
                "winner_type": str(games["winner"].dtype),
                "seed_type": str(games["seed"].dtype),
                "seeds": [str(s) for s in games.sort("game")["seed"]],
                "first_wins": int((games["winner"] == "first").sum()),
                "summary_first": first["count"].item(), "summary_of": first["of"].item(),
                "winrates": again.winrates.collect()["first_wins"].item(),
                "tally_rows": again.cards.collect().height,
                "card_rows": again.card_summary().height,
                "per_game": again.per_game_cards is None,
                "same": view.path == again.path,
            }}))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # progress is off by default
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["games"] == 300 and got["winner_type"] == "String"
    assert got["seed_type"] == "UInt64"  # not stored in the parts: derived from the manifest
    pairs = played_seeds(cell_key(3, "greedy,random"), 0, 300, swap=True)
    assert got["seeds"] == [str(s) for s in pairs]
    assert got["summary_first"] == got["first_wins"] == got["winrates"]
    assert got["summary_of"] == 300
    assert got["tally_rows"] == 3 * 3 * 6  # 3 chunks x (A, B, both) x base's six kinds
    assert got["card_rows"] == 2 * 6  # two strategies x six kinds
    assert got["per_game"] and got["same"]


def test_a_script_without_the_main_guard_is_told_so(tmp_path):
    out = tmp_path / "run"
    done = python(
        f"""
        import sim

        sim.run(games=100, out={str(out)!r}, workers=1)
        """,
        tmp_path,
    )
    assert done.returncode != 0
    assert 'if __name__ == "__main__":' in done.stderr
    assert "script.py, line 4" in done.stderr
    assert "killed its worker" not in done.stderr
    assert not out.exists()  # refused before anything was written


def test_import_sim_loads_no_data_library(tmp_path):
    done = python(
        """
        import sys
        import sim

        print(sorted(m for m in ("polars", "pyarrow", "numba") if m in sys.modules))
        print(callable(sim.run), callable(sim.open_run))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "True True"]


def test_run_takes_the_set_items_as_overlay(tmp_path):
    out = tmp_path / "run5"
    done = python(
        f"""
        import sim

        if __name__ == "__main__":
            view = sim.run(["base"], games=100, out={str(out)!r}, workers=1,
                           overlay=["rules.run_capacity=5"])
            print(sorted(set(view.games.collect()["config"])))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['base+run_capacity=5']"
