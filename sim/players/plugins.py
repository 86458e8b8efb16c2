"""Loading a designer's own strategy: from path/to/file.py:ClassName, or by name from the
`sim.strategies` entry-point group of an installed package."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import inspect
import sys
from functools import cache
from pathlib import Path

from sim.players import guard

ENTRY_POINT_GROUP = "sim.strategies"


class PluginError(ValueError):
    """A strategy that cannot be found, loaded or constructed; the message says which."""


@cache
def entry_points() -> dict:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def entry_point_names() -> list[str]:
    return sorted(entry_points())


def strategy_class(name: str) -> type:
    """The class a spec name refers to; PluginError if it cannot be loaded."""
    if ":" in name:
        path, _, cls_name = name.rpartition(":")
        return _from_file(str(Path(path).resolve()), path, cls_name)
    if name not in entry_points():
        raise PluginError(f"no strategy named {name!r}")
    try:
        cls = entry_points()[name].load()
    except Exception as exc:
        raise PluginError(f"strategy {name!r} (entry point) failed to load: {exc}") from None
    return _checked(cls, name)


@cache
def _from_file(resolved: str, shown: str, cls_name: str) -> type:
    path = Path(resolved)
    if path.suffix != ".py" or not path.is_file():
        raise PluginError(f"strategy file {shown!r} not found (expected path/to/file.py:Class)")
    module_name = "sim_strategy_" + hashlib.sha1(resolved.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # so instances pickle by reference in this process
    try:
        guard.call(resolved, spec.loader.exec_module, module)  # bounded, SystemExit caught
    except guard.Failure as exc:
        del sys.modules[module_name]
        where = f"\n  where: {exc.where}" if exc.where else ""
        problem = exc.problem("the import") if exc.timed_out else str(exc)
        raise PluginError(f"strategy file {shown} failed to import: {problem}{where}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        found = [n for n, v in vars(module).items() if inspect.isclass(v) and hasattr(v, "choose")]
        raise PluginError(
            f"strategy file {shown} has no class {cls_name!r}"
            + (f"; it defines {', '.join(found)}" if found else "")
        )
    return _checked(cls, f"{shown}:{cls_name}")


def _checked(cls, name: str) -> type:
    if not inspect.isclass(cls) or not callable(getattr(cls, "choose", None)):
        raise PluginError(f"strategy {name} is not a class with a choose(observation, decision)")
    return cls


def check_params(cls: type, params: dict) -> None:
    """Parameters must match the class's constructor; the message names the bad one."""
    try:
        inspect.signature(cls).bind(**params)
    except TypeError as exc:
        raise PluginError(str(exc)) from None


def make(name: str, params: dict, spec: str):
    """A fresh instance for one seat, tagged with its spec for error messages."""
    cls = strategy_class(name)
    try:
        instance = guard.call(cls, cls, **params)
    except guard.Failure as exc:
        where = f"\n  where: {exc.where}" if exc.where else ""
        problem = exc.problem("__init__")
        raise PluginError(f"strategy {spec} could not be created: it {problem}{where}") from None
    instance.spec = spec
    return instance


def describe_entry_points() -> list[tuple[str, str, str]]:
    """(name, parameters, one-line description) of each entry-point strategy that loads."""
    rows = []
    for name in entry_point_names():
        try:
            cls = strategy_class(name)
        except PluginError as exc:
            rows.append((name, "", f"does not load: {exc}"))
            continue
        params = ", ".join(
            f"{p.name}={p.default!r}" if p.default is not p.empty else p.name
            for p in inspect.signature(cls).parameters.values()
        )
        doc = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
        rows.append((name, params, doc))
    return rows
