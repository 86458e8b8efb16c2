"""The suite's ordering names real files: a renamed long file would silently start last."""

from __future__ import annotations

from pathlib import Path

from conftest import LONGEST


def test_every_file_started_first_exists():
    here = Path(__file__).resolve().parent
    assert [name for name in LONGEST if not (here / name).is_file()] == []
