"""One Zero One simulator. `import sim` gives the notebook API (sim.api): sim.run(...) and
sim.open_run(path); the rest loads only when used."""

from __future__ import annotations

__all__ = ["open_run", "run"]


def __getattr__(name: str):
    if name in __all__:
        from sim import api

        return getattr(api, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
