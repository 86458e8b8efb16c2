"""The swap note of a `sim card-impact` run folder: which card was swapped for which, on
which config and match-up, and the dominant threshold the result was judged by. It lies
beside the manifest (impact.json) and names the run it belongs to, so a summary of the
folder can show the card's flag under the board; a folder without one shows nothing."""

from __future__ import annotations

import math
from pathlib import Path

from sim.store import layout

NOTE = "impact.json"
FIELDS: dict[str, type] = {
    "run_id": str,  # the manifest's: a note from another run is refused
    "card": str,  # the kind taken out, by name
    "replacement": str,  # the kind put in its place
    "dominant_pts": float,
    "cells": list,  # each compared cell: CELL_FIELDS
}
CELL_FIELDS: dict[str, type] = {
    "original": str,  # the original deck's config name
    "swapped": str,  # the swapped deck's config name (a config of this folder's run)
    "matchup": str,
    "copies": int,  # copies of the card swapped per deck
}
"""original_run: None when the original decks are configs of this folder's run too (`sim
card-impact --config`), else the run_id of the run they are in (`sim card-impact --run
RUN`, whose folder holds this one as impact/CARD-REPLACEMENT)."""


class ImpactNoteError(ValueError):
    """A swap note that cannot be used; the message names the file and the field."""


def write_note(out: Path, note: dict) -> None:
    """The note, checked first, written atomically beside the manifest."""
    check(out / NOTE, note)
    layout.write_json(note, out / NOTE)


def read_note(out: Path, manifest: dict, originals: dict | None = None) -> dict | None:
    """The folder's swap note, None when it has none; ImpactNoteError when it is damaged,
    belongs to another run than the manifest's, or names a cell its runs lack (originals:
    the manifest of the run the original decks are in, when not this one)."""
    path = out / NOTE
    note = layout.read_json(path, ImpactNoteError)
    if note is None:
        return None
    check(path, note)
    _same_run(path, "run_id", note["run_id"], manifest)
    original_run = note.get("original_run")
    if (original_run is None) != (originals is None):
        raise ImpactNoteError(f"{path}: original_run: {original_run!r} is not its run")
    if originals is not None:
        _same_run(path, "original_run", original_run, originals)
    for field, where in (("original", originals or manifest), ("swapped", manifest)):
        cells = {(c.get("config"), c.get("matchup")) for c in where.get("cells", [])}
        for cell in note["cells"]:
            if (cell[field], cell["matchup"]) not in cells:
                raise ImpactNoteError(
                    f"{path}: {field}: the run holds no cell {cell[field]} · {cell['matchup']}"
                )
    return note


def _same_run(path: Path, field: str, run_id: str, manifest: dict) -> None:
    if run_id != manifest.get("run_id"):
        raise ImpactNoteError(
            f"{path}: {field} {run_id} is not the folder's run ({manifest.get('run_id')}); "
            "rerun its `sim card-impact` command"
        )


def check(path: Path, note: object) -> None:
    """Every field present with its type (a whole number also counts as a float)."""
    if not isinstance(note, dict):
        raise ImpactNoteError(f"{path} is corrupt (not a swap note)")
    _fields(path, note, FIELDS, "")
    if not note["cells"]:
        raise ImpactNoteError(f"{path}: cells: expected at least one cell")
    for i, cell in enumerate(note["cells"]):
        if not isinstance(cell, dict):
            raise ImpactNoteError(f"{path}: cells[{i}]: expected an object, got {cell!r}")
        _fields(path, cell, CELL_FIELDS, f"cells[{i}].")
    if not isinstance(note.get("original_run"), str | None):
        raise ImpactNoteError(f"{path}: original_run: expected str or null")
    pts = float(note["dominant_pts"])
    if not (math.isfinite(pts) and 0 < pts < 100):
        raise ImpactNoteError(f"{path}: dominant_pts: expected 0..100 points, got {pts:g}")


def _fields(path: Path, record: dict, fields: dict[str, type], where: str) -> None:
    for field, kind in fields.items():
        value = record.get(field)
        whole = isinstance(value, int) and not isinstance(value, bool)
        ok = whole if kind is int else isinstance(value, kind) or (kind is float and whole)
        if not ok:
            raise ImpactNoteError(
                f"{path}: {where}{field}: expected {kind.__name__}, got {value!r}"
            )
