"""The run folder: durable atomic writes, part files with their records, and the manifest."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sim.model.documents import TooDeep, parse_json

if TYPE_CHECKING:  # the parent never writes parts: its start-up stays free of numba
    import polars as pl

    from sim.store.parquet import Column

T = TypeVar("T")
MANIFEST, BACKUP = "manifest.json", "manifest.backup.json"
GAMES, CARD_TALLIES, CARDS = "games", "card_tallies", "cards"  # cards: opt-in, per game
LEADS = "leads"  # games by turn and first seat's lead (store/leads.py); none before #34
TALLIES = "tallies"  # units by their games' codes (store/tallies.py); none before it
TABLES = (GAMES, CARD_TALLIES, CARDS, LEADS, TALLIES)
DIGEST = "sha256"  # hashlib's fastest here (OpenSSL's SHA extensions): ~2x blake2b


class StorageError(OSError):
    """The output folder cannot be written (full disk, no permission, ...)."""


class ManifestError(ValueError):
    """manifest.json exists but cannot be read as a manifest; the message says why."""


def atomic_write(path: Path, write: Callable[[Path], T], sync: bool = True) -> T:
    """Write through a temporary file in the same folder, fsync it, rename it into place and
    fsync the folder: readers never see half a file, and neither does anyone after a power
    loss. Returns what `write(tmp)` returns. Without sync the caller must call sync_files
    before anything that trusts the file (a manifest recording it) is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes it 0600: colleagues could not read it
    finally:
        os.close(fd)
    try:
        result = write(Path(tmp))
        if sync:
            _fsync(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if sync:
        _fsync(path.parent)
    return result


def sync_files(paths: list[Path]) -> None:
    """fsync files written without it (atomic_write(sync=False)), then their folders."""
    for path in paths:
        _fsync(path)
    for folder in {path.parent for path in paths}:
        _fsync(folder)


@cache
def _umask() -> int:
    """The process's umask (read by setting it, so read once and put straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync(path: Path) -> None:
    """Flush a file's (or a folder's) data to the disk; any descriptor of it will do."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:  # some file systems cannot fsync a folder: nothing more to do
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP) or not path.is_dir():
            raise
    finally:
        os.close(fd)


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """A summary table; polars' own errors (a full disk among them) become StorageError."""
    import polars as pl

    def write(tmp: Path) -> None:
        try:
            frame.write_parquet(tmp, compression="zstd", statistics=False)
        except pl.exceptions.PolarsError as exc:
            raise StorageError(f"cannot write {path.name}: {_first_line(exc)}") from None

    atomic_write(path, write)


def _first_line(exc: BaseException) -> str:
    """The error's first line; of polars' "... underlying IO error: X", only X."""
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line.rpartition("IO error: ")[2]


def write_part(
    out: Path,
    table_name: str,
    chunk_name: str,
    columns: list[Column],
    schema: bytes,
    sync: bool = True,
) -> dict:
    """A chunk's part file of one table (tables.games_columns, card_tally_columns or
    cards_columns), carrying
    the table's serialized Arrow schema (schema.serialized_schema). Returns its record for
    the manifest: file name, rows, bytes and checksum of exactly the bytes written. Without
    sync, sync_files must flush it before a manifest records it."""
    from sim.store import parquet

    path = part_path(out, table_name, chunk_name)
    blocks = atomic_write(path, lambda tmp: parquet.write(tmp, columns, schema), sync)
    digest = hashlib.new(DIGEST)
    for block in blocks:
        digest.update(block)
    size = sum(len(block) for block in blocks)
    rows = columns[0].rows
    return {"file": path.name, "rows": rows, "bytes": size, DIGEST: digest.hexdigest()}


def write_json(data: dict, path: Path) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(json.dumps(data, indent=2, sort_keys=True)))


def write_manifest(manifest: dict, out: Path) -> None:
    """The manifest, then the same as its backup: a manifest damaged later (an editor, a
    disk) leaves the backup to restore the part records from. An older backup is still
    a true one (a chunk it does not record is only replayed), so failing to update it is
    no failure."""
    write_json(manifest, out / MANIFEST)
    with suppress(OSError):
        write_json(manifest, out / BACKUP)


def part_path(out: Path, table: str, chunk_name: str) -> Path:
    return out / table / f"part-{chunk_name}.parquet"


def read_json(path: Path, error: type[Exception]) -> object | None:
    """A JSON file of the run folder, None when there is none; error(message naming the
    file) when it cannot be read or parsed."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise error(f"{path} cannot be read: {why}") from None
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path} is corrupt ({exc.msg} at line {exc.lineno})") from None
    except TooDeep as exc:
        raise error(f"{path} is corrupt ({exc})") from None


def read_manifest(out: Path) -> dict | None:
    """The folder's manifest, None when it has none; ManifestError when it is damaged."""
    path = out / MANIFEST
    manifest = read_json(path, ManifestError)
    if manifest is None:
        return None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("chunks", {}), dict):
        raise ManifestError(f"{path} is corrupt (not a run manifest)")
    return manifest


def clear_folder(out: Path) -> None:
    """Empty a run folder for --overwrite (only what a run writes)."""
    for name in (*TABLES, "impact"):  # impact: `sim card-impact --run`'s comparisons
        shutil.rmtree(out / name, ignore_errors=True)
    for name in (MANIFEST, BACKUP, "winrates.parquet", "tiebreaks.parquet", "impact.json"):
        (out / name).unlink(missing_ok=True)


def sweep_temporaries(out: Path) -> None:
    """Remove temporary files left by an interrupted write."""
    for tmp in out.rglob(".*.tmp"):
        tmp.unlink(missing_ok=True)
