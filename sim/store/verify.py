"""Checking a run folder's part files against the records the manifest keeps of them.

A part counts only when the manifest records its chunk as done and the file matches its
record: same size and, in a full check, the same checksum of its bytes. A chunk counts
only when all its parts do (games, card tallies, and per-game cards when the run wrote
them), so the tables always hold the same chunks.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sim.store import layout

TABLES = layout.TABLES
REQUIRED = (layout.GAMES, layout.CARD_TALLIES)  # every chunk writes these
READ_BLOCK = 1 << 20


@dataclass
class FolderCheck:
    """What a check found, by part file (paths relative to the run folder)."""

    fine: list[str] = field(default_factory=list)
    damaged: dict[str, str] = field(default_factory=dict)  # part -> what is wrong with it
    missing: list[str] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)  # part files the manifest does not record
    done: dict[str, dict] = field(default_factory=dict)  # chunk -> its entry, parts verified
    recorded: bool = True  # False: the manifest keeps no records (hand-made or older folder)

    @property
    def clean(self) -> bool:
        return not (self.damaged or self.missing or self.stray)


def file_digest(path: Path) -> str:
    """The checksum the runner records (layout.DIGEST) of a file's bytes."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, layout.DIGEST).hexdigest()


def check_part(path: Path, record: dict, full: bool) -> str | None:
    """What is wrong with a part against its record ("missing", ...), or None if it verifies.
    full: compare checksums too (reads the whole file), not only the size."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return "missing"
    if size != record.get("bytes"):
        what = "truncated" if size < (record.get("bytes") or 0) else "wrong size"
        return f"{what}: {size:,} bytes, {record.get('bytes', 0):,} were written"
    if full and file_digest(path) != record.get(layout.DIGEST):
        return "its bytes have changed (checksum differs)"
    return None


def check_folder(out: Path, manifest: dict, full: bool = True) -> FolderCheck:
    """Check every part the manifest records, and find part files it does not record."""
    check = FolderCheck()
    chunks = manifest.get("chunks") or {}
    check.recorded = manifest.get("checksums") == layout.DIGEST
    expected = set()
    for name, entry in chunks.items():
        done = isinstance(entry, dict) and entry.get("status") == "done"
        parts = entry.get("parts") if done else None
        if not isinstance(parts, dict):
            continue
        problems = {}
        for table in chunk_tables(parts):
            record = parts.get(table) if isinstance(parts.get(table), dict) else {}
            where = f"{table}/{layout.part_path(out, table, name).name}"
            expected.add(where)
            problems[where] = check_part(out / where, record, full)
        for where, problem in problems.items():
            if problem == "missing":
                check.missing.append(where)
            elif problem:
                check.damaged[where] = problem
        if not any(problems.values()):
            check.fine += list(problems)
            check.done[name] = entry
    for table in TABLES:
        for path in sorted((out / table).glob("*.parquet")):
            if f"{table}/{path.name}" not in expected:
                check.stray.append(f"{table}/{path.name}")
    return check


def chunk_tables(parts: dict) -> list[str]:
    """The tables a done chunk must have parts of: games and card tallies always, per-game
    cards and lead tallies when its record says they were written (a run from before the
    lead tallies has none)."""
    return [t for t in TABLES if t in REQUIRED or t in parts]


def counted_parts(out: Path, table: str) -> list[Path]:
    """The part files of `table` readers may count (the one list every reader counts)."""
    check = reader_check(out)
    if not check.recorded:
        return sorted((out / table).glob("*.parquet"))
    return [out / w for w in check.fine if w.startswith(f"{table}/")]


def reader_check(out: Path) -> FolderCheck:
    """The full check readers rely on, made once per state of the folder's files: a command
    asks for the games, the cards and the warnings, and pays for one pass over the bytes."""
    try:
        manifest = layout.read_manifest(out) or {}
    except layout.ManifestError:  # no record can be trusted: nothing counts
        manifest = {"checksums": layout.DIGEST}
    key = (str(out.resolve()), _stat_key(out))
    if key not in _CHECKED:
        _CHECKED.clear()
        _CHECKED[key] = check_folder(out, manifest, full=True)
    return _CHECKED[key]


_CHECKED: dict[tuple, FolderCheck] = {}


def _stat_key(out: Path) -> tuple:
    """Size and modification time of the manifest and of every part file."""
    paths = [out / layout.MANIFEST, *(p for t in TABLES for p in sorted((out / t).glob("*")))]
    stats = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        stats.append((path.name, st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(stats)


def unreadable(out: Path, table: str) -> str | None:
    """Why a table with part files on disk has none a reader may count, or None."""
    check = reader_check(out)
    if any(w.startswith(f"{table}/") for w in check.fine):
        return None
    every = [*check.damaged, *check.missing]
    bad = [w for w in every if w.startswith(f"{table}/")]
    if bad:
        return (
            f"{out}: cannot read the run's tables: every {table} part is damaged or missing "
            f"({_few(bad)}); rerun its `sim run` command to replay them"
        )
    if not every:
        return None
    if not (out / layout.CARD_TALLIES).exists() and (out / layout.CARDS).exists():
        return (
            f"{out} was written by an older sim (per-game cards, no card tallies): replay it "
            "with its `sim run` command and --overwrite"
        )
    return (
        f"{out}: cannot read the run's tables: every chunk has a damaged or missing part "
        f"({_few(every)}); rerun its `sim run` command to replay them"
    )


def reader_warnings(out: Path) -> list[str]:
    """Plain notes for a reading command: parts left out, and a run still live or failed."""
    from sim.store import lock

    try:
        manifest = layout.read_manifest(out) or {}
    except layout.ManifestError:
        manifest = {}
    check, notes = reader_check(out), []
    if not check.recorded:
        notes.append(f"{out}: the manifest records no checksums; its parts are not verified")
    left_out = [*check.damaged, *check.missing]
    if left_out:
        notes.append(
            f"{out}: left out {len(left_out)} damaged or missing part(s) ({_few(left_out)}); "
            "rerun its `sim run` command to replay them"
        )
    if check.recorded and check.stray:
        notes.append(
            f"{out}: ignored {len(check.stray)} part file(s) the manifest does not record "
            f"({_few(check.stray)})"
        )
    holder = lock.holder(out)
    status = manifest.get("status")
    if holder is not None:
        live = lock.describe(holder)
        notes.append(f"{out}: a run is still writing it ({live}); its figures are partial")
    elif status == "failed":
        notes.append(f"{out}: the run failed ({manifest.get('error', 'no reason recorded')})")
    elif status == "running":
        notes.append(f"{out}: the run stopped without finishing (killed or crashed)")
    return notes


def _few(names: list[str], shown: int = 3) -> str:
    more = f", +{len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def report_lines(out: Path, check: FolderCheck, manifest: dict) -> list[str]:
    """`sim verify`'s lines: each problem by file, then what is fine and what is left to do."""
    from sim.store import lock

    lines = [f"damaged  {where}: {problem}" for where, problem in check.damaged.items()]
    lines += [f"missing  {where}" for where in check.missing]
    lines += [f"stray    {where}: not a part the manifest records" for where in check.stray]
    games = sum(entry["parts"][layout.GAMES]["rows"] for entry in check.done.values())
    lines.append(f"fine     {len(check.fine)} parts: {len(check.done)} chunks, {games:,} games")
    unplayed = [n for n, e in (manifest.get("chunks") or {}).items() if e.get("status") != "done"]
    if unplayed:
        lines.append(f"pending  {len(unplayed)} chunks not played yet")
    holder = lock.holder(out)
    status = "being written now by " + lock.describe(holder) if holder else manifest.get("status")
    lines.append(f"run      {manifest.get('run_id', '?')}: {status}")
    if check.damaged or check.missing:
        lines.append("rerun the run's `sim run` command: damaged and missing parts are replayed")
    return lines
