"""How a command-line failure must look: one `error:` line on stderr, no traceback."""

from __future__ import annotations


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error:")]


def assert_clean_failure(result) -> str:
    """Non-zero exit through typer.Exit, one `error:` line, no traceback; returns that line."""
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit), result.exception
    return _one_error(result)


def assert_exit_1(result) -> str:
    """Exit code 1, one `error:` line, no traceback; returns that line."""
    assert result.exit_code == 1, result.output
    return _one_error(result)


def _one_error(result) -> str:
    assert "Traceback" not in result.output
    lines = error_lines(result)
    assert len(lines) == 1, result.output
    return lines[0]
