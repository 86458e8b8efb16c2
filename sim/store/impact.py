"""The swap note of a `sim card-impact` run folder: which card was swapped for which, on
which config and match-up, and the dominant threshold the result was judged by. It lies
beside the manifest (impact.json) and names the run it belongs to, so a summary of the
folder can show the card's flag under the board; a folder without one shows nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

from sim.model.documents import parse_json
from sim.store import layout

NOTE = "impact.json"
FIELDS: dict[str, type] = {
    "run_id": str,  # the manifest's: a note from another run is refused
    "card": str,  # the kind taken out, by name
    "replacement": str,  # the kind put in its place
    "copies": int,
    "original": str,  # the original deck's config name (a cell of the run)
    "swapped": str,  # the swapped deck's config name (the other cell)
    "matchup": str,
    "dominant_pts": float,
}


class ImpactNoteError(ValueError):
    """A swap note that cannot be used; the message names the file and the field."""


def write_note(out: Path, note: dict) -> None:
    """The note, checked first, written atomically beside the manifest."""
    check(out / NOTE, note)
    layout.write_json(note, out / NOTE)


def read_note(out: Path, manifest: dict) -> dict | None:
    """The folder's swap note, None when it has none; ImpactNoteError when it is damaged
    or belongs to another run than the manifest's."""
    path = out / NOTE
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ImpactNoteError(f"{path} cannot be read: {getattr(exc, 'strerror', exc)}") from None
    try:
        note = parse_json(text)
    except (json.JSONDecodeError, ValueError) as exc:
        raise ImpactNoteError(f"{path} is corrupt ({exc})") from None
    check(path, note)
    if note["run_id"] != manifest.get("run_id"):
        raise ImpactNoteError(
            f"{path}: run_id {note['run_id']} is not this folder's run "
            f"({manifest.get('run_id')}); rerun its `sim card-impact` command"
        )
    cells = {(c.get("config"), c.get("matchup")) for c in manifest.get("cells", [])}
    for field in ("original", "swapped"):
        if (note[field], note["matchup"]) not in cells:
            raise ImpactNoteError(
                f"{path}: {field}: the run holds no cell {note[field]} · {note['matchup']}"
            )
    return note


def check(path: Path, note: object) -> None:
    """Every field present with its type (a whole number also counts as a float)."""
    if not isinstance(note, dict):
        raise ImpactNoteError(f"{path} is corrupt (not a swap note)")
    for field, kind in FIELDS.items():
        value = note.get(field)
        whole = isinstance(value, int) and not isinstance(value, bool)
        ok = whole if kind is int else isinstance(value, kind) or (kind is float and whole)
        if not ok:
            raise ImpactNoteError(f"{path}: {field}: expected {kind.__name__}, got {value!r}")
    pts = float(note["dominant_pts"])
    if not (math.isfinite(pts) and 0 < pts < 100):
        raise ImpactNoteError(f"{path}: dominant_pts: expected 0..100 points, got {pts:g}")
