"""The engine also runs as plain Python (NUMBA_DISABLE_JIT=1), for debugging and coverage.

Runs the rule scenarios and a smaller sample of the property tests in a child pytest
with the JIT switched off, so CI checks both modes with one command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SLOW_ENGINE

HERE = Path(__file__).resolve().parents[1]  # tests/


@pytest.mark.timeout(2400)  # plain Python: 75 s alone, 8 min measured on a busy machine
@pytest.mark.skipif(SLOW_ENGINE, reason="already running uncompiled")
def test_rules_hold_with_the_jit_disabled():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    files = [
        "model/test_scenarios.py",
        "engine/test_invariants.py",
        "players/test_observation.py",
        "model/test_notation.py",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *files],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=2300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
