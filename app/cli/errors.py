"""Turn any failure that reaches the top of a CLI command into one plain line (never a traceback).

Known causes get their own words: a damaged or newer database, a settings problem, a read-only or
full data folder. Anything else is still one line, naming the exception type for a bug report.
"""

from __future__ import annotations

import errno
import os
import sys


def describe(exc: BaseException) -> str:
    from app.settings.config_errors import ConfigError
    from app.settings.user_settings import SettingsError
    from app.store.errors import StoreError, classify_sqlite_error

    if isinstance(exc, StoreError | SettingsError | ConfigError):
        return str(exc)
    import sqlite3

    if isinstance(exc, sqlite3.Error):
        return str(classify_sqlite_error(exc, "the data folder", "use"))
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno == errno.ENOSPC or exc.errno == getattr(errno, "EDQUOT", -1):
            return f"the disk is full{where}; free some space and try again"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"cannot write{where}: {exc.strerror}; check the folder's permissions"
        return f"{exc.strerror or exc}{where}"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to be processed"
    return f"unexpected {type(exc).__name__}: {exc} — please report this"


def one_line(message: str) -> str:
    return "cashcode: error: " + " ".join(message.split())


def silence_stdout() -> None:
    """After a broken pipe (`cashcode … | head`): point stdout at the null device so the final
    flush at exit does not print "Exception ignored … BrokenPipeError"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
