"""Helpers for tests that edit a run folder's parts by hand."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def record_edited_parts(folder: Path) -> None:
    """Record edited games parts as the run's own: readers count only parts that match
    the size and checksum the manifest records."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest["chunks"].values():
        record = entry["parts"]["games"]
        data = (folder / "games" / record["file"]).read_bytes()
        record.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    (folder / "manifest.json").write_text(json.dumps(manifest))
