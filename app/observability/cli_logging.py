"""Logging set-up for `cashcode …` processes: `--log-level` (before the command) or
`CASHCODE_LOG_LEVEL`, JSON lines to stderr and to the rotating file in the log folder."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

FLAG = "--log-level"


def split_log_level(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """Take `--log-level X` / `--log-level=X` from the front of the command line."""
    rest = list(argv)
    if rest and rest[0].startswith(FLAG + "="):
        return rest[0].split("=", 1)[1], rest[1:]
    if rest and rest[0] == FLAG:
        return (rest[1] if len(rest) > 1 else ""), rest[2:]
    return None, rest


def configure(flag: str | None, env: Mapping[str, str], *, stderr: bool = True) -> str | None:
    """Install the handlers; returns an error message for a bad level (nothing installed)."""
    from app.observability.logs import LogLevelError, level_from, setup_logging
    from app.settings.paths import AppPaths

    try:
        level = level_from(flag, env)
    except LogLevelError as exc:
        return str(exc)
    setup_logging(AppPaths.from_env(env).log_dir, level, stderr=sys.stderr if stderr else None)
    return None
