"""One chunk of games: play it (compiled loop, or Python loop for Python strategies), write
its two part files, report back. A deterministic built-in playing itself plays each
seat-swapped pair once: the swapped game would replay it exactly."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from sim.runner.plan import Chunk


@dataclass(frozen=True)
class Task:
    """Everything a worker needs, picklable, so any process or cluster node can play it."""

    out: str
    run_id: str
    chunk: Chunk
    key: int  # the cell's seed key
    swap: bool
    sim_source: str = ""  # the parent's provenance.source_hash(): every worker must match it
    schemas: dict[str, bytes] = field(default_factory=dict)  # table -> its Arrow schema
    per_game_cards: bool = False  # also write the wide per-game cards table
    sync: bool = True  # fsync the parts here; False: the parent does, before recording them


@dataclass(frozen=True)
class Done:
    chunk: str
    games: int
    seconds: float
    counts: dict | None = None  # quantities.win_counts of the chunk, for the run's summaries
    write_seconds: float = 0.0  # of seconds, those spent building and writing the parts
    parts: dict | None = None  # table -> its part's record (layout.write_part), for the manifest


class ChunkError(RuntimeError):
    """A chunk's games could not be played; the message names config, match-up and seeds."""


def _check_source(task: Task) -> None:
    """A cluster worker with other sim code would play other games: refuse, naming it."""
    import socket

    from sim.runner.provenance import sim_version, source_hash

    if task.sim_source and task.sim_source != source_hash():
        raise ChunkError(
            f"the worker on {socket.gethostname()} runs other sim code (sim {sim_version()}, "
            f"source {source_hash()}) than the run (source {task.sim_source}): install the "
            "same sim on every worker"
        )


def play_chunk(task: Task) -> Done:
    """Play and write one chunk; the parent only ever sees this small summary."""
    import numpy as np

    from sim.engine.game import R_ERROR
    from sim.play.batch import lead_buffer, play_matchup
    from sim.play.stepped import StrategyError
    from sim.store.seeds import played_seeds

    started = time.perf_counter()
    _check_source(task)
    chunk, cell = task.chunk, task.chunk.cell
    index_start, index_stop = chunk.start, chunk.stop
    seeds = played_seeds(task.key, index_start, index_stop, task.swap)
    level = cell.players.cpu_level(cell.config.rules.cpu_level)
    swapped = (np.arange(index_start, index_stop) % 2 == 1) if task.swap else None
    leads = lead_buffer()
    try:
        if task.swap and cell.players.replays:  # each odd game is the even one replayed
            buffers = _zeroed_buffers(len(seeds) // 2)
            out, cards = play_matchup(
                cell.config, cell.players, seeds[::2], None, level, None, buffers, leads
            )
            out, cards = out.repeat(2, axis=0), cards.repeat(2, axis=0)
            leads *= 2  # the first seat's lead: the same in a game and its replay
        else:
            buffers = _zeroed_buffers(len(seeds))
            out, cards = play_matchup(
                cell.config, cell.players, seeds, swapped, level, None, buffers, leads
            )
    except StrategyError as exc:
        raise ChunkError(str(exc)) from None
    bad = out[:, R_ERROR].nonzero()[0]
    if len(bad):
        raise ChunkError(
            f"config {cell.config.name}, players {cell.matchup}: game seed {int(seeds[bad[0]])} "
            "stopped at an engine limit"
        )
    played = time.perf_counter()
    parts, counts = _recorded(task, out, cards, swapped, leads)
    now = time.perf_counter()
    return Done(chunk.name, len(seeds), now - started, counts, now - played, parts)


def _recorded(task: Task, out, cards, swapped, leads) -> tuple[dict, dict]:
    """Write a chunk's results as its part files (leads: its lead_buffer), and count them
    for the summaries."""
    import numpy as np

    from sim.store import tables, tallies
    from sim.store.quantities import win_counts

    fields = tables.result_fields(out)
    swapped = np.zeros(len(out), dtype=bool) if swapped is None else swapped
    counted = tallies.count_chunk(fields, swapped, task.swap)
    parts = _write_parts(task, fields, cards, swapped, leads, counted)
    return parts, win_counts(task.chunk.cell, counted[0], task.swap)


def record_blank(task: Task) -> None:
    """Write and count a chunk of blank results (every field zero) as play_chunk does a
    played one, into task.out: compiles the writer's and tallies' kernels for the chunk's
    column sizes, which set their argument types, without playing a game."""
    import numpy as np

    from sim.play.batch import lead_buffer, result_buffers

    games = task.chunk.stop - task.chunk.start
    swapped = np.arange(games) % 2 == 1 if task.swap else None
    _recorded(task, *result_buffers(games), swapped, lead_buffer())


def warm(chunks: list[Chunk]) -> None:
    """Load what these chunks will need from the cache while the parent still prepares the
    run: the compiled loop of each chunk's match-up and the part writer. Loads only, never a
    compile: what is not cached yet the parent compiles meanwhile, and the first chunk loads."""
    import tempfile

    from sim.engine.jit import cached
    from sim.play.batch import game_loop, prepare

    loaded = set()
    for chunk in chunks:
        config, players = chunk.cell.config, chunk.cell.players
        if not players.compiled:
            continue
        level, codes = players.cpu_level(config.rules.cpu_level), players.policy_codes()
        loop = game_loop(codes, level)
        if loop not in loaded and cached(loop):
            prepare(config, codes, players.budgets(), level)
            loaded.add(loop)
    if chunks and kernels_cached():
        from sim.store.layout import TABLES

        with tempfile.TemporaryDirectory(prefix="sim-warm-") as folder:
            schemas = dict.fromkeys(TABLES, b"")  # the blank parts are thrown away
            record_blank(Task(folder, "warm", chunks[0], 0, chunks[0].cell.swap, "", schemas))


def kernels_cached() -> bool:
    """Whether the compiled kernels every chunk's writing runs are on disk (a load in each
    worker, not a compile)."""
    from sim.engine.jit import cached
    from sim.store import parquet, tables, tallies

    used = (
        tables._transpose,
        tables._card_tally,
        tallies._codes,
        tallies._scatter,
        tallies._direct,
        parquet._hybrid_into,
        parquet._used,
    )
    return all(cached(kernel) for kernel in used)


def _zeroed_buffers(games: int):
    """This thread's result buffers for a chunk of that many games, zeroed (reused: fresh
    ones cost about 1% of the playing in page faults)."""
    from sim.play.batch import result_buffers
    from sim.store.tables import reused

    buffers = reused("results", games, lambda: result_buffers(games))
    for array in buffers:
        array.fill(0)
    return buffers


def _write_parts(task: Task, fields, cards, swapped, leads, counted) -> dict[str, dict]:
    """The chunk's part files (games, card tallies, lead tallies, its tallies `counted`,
    per-game cards if asked for), and their records; a full disk or a lost folder is a
    ChunkError naming the folder (the atomic writes leave no half part behind)."""
    from sim.engine.game import R_WINNER
    from sim.store import layout, tables, tallies
    from sim.store.leads import lead_columns

    chunk, cell, folder = task.chunk, task.chunk.cell, Path(task.out)
    try:
        games = tables.games_columns(task.run_id, cell, chunk.start, task.swap, fields)
        tally = tables.card_tally_columns(cell, task.swap, cards, fields[R_WINNER], swapped)
        parts = [(layout.GAMES, games), (layout.CARD_TALLIES, tally)]
        parts.append((layout.LEADS, lead_columns(cell, leads)))
        parts.append((layout.TALLIES, tallies.tally_columns(cell, counted)))
        if task.per_game_cards:
            parts.append((layout.CARDS, tables.cards_columns(cell, chunk.start, task.swap, cards)))
        return {
            table: layout.write_part(
                folder, table, chunk.name, columns, task.schemas[table], task.sync
            )
            for table, columns in parts
        }
    except OSError as exc:
        raise ChunkError(
            f"cannot write chunk {chunk.name}'s part files to {folder}: {exc.strerror or exc}"
        ) from None
