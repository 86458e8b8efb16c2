"""JSON and TOML text from files a user hands sim (scenarios, configs, plans, tune spaces,
run manifests), parsed so that input nested too deeply for Python's parsers is one
ValueError like any other malformed text, never a RecursionError and its traceback."""

from __future__ import annotations

import json
import tomllib

TOO_DEEP = "nested too deeply to read"


class TooDeep(ValueError):
    """Text nested deeper than the parser's recursion allows."""


def parse_json(text: str | bytes):
    """json.loads; json.JSONDecodeError or TooDeep (both ValueErrors) when it cannot."""
    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None


def parse_toml(text: str) -> dict:
    """tomllib.loads; tomllib.TOMLDecodeError or TooDeep (both ValueErrors) when it cannot."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None
