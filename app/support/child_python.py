"""The one rule for a child process that runs this app's own Python code (issue 33.1).

A plain `python -m pkg.mod` puts the current folder first on `sys.path`, and `python script.py`
still reads PYTHONPATH, PYTHONSTARTUP-like variables and the user's site folder: a cloned repo
holding `json.py` (or a user site `.pth`) would run its code inside the app's helper. So every
helper runs with `-I` (isolated mode: no current folder, no script folder, no PYTHON*
variables, no user site). The site-packages of this interpreter still load (the editable
install's finder lives there); for a source checkout without an install, the app's own root —
computed from this file, never from the current folder — is appended to `sys.path` (appended,
so nothing in it can shadow the standard library).

A frozen build has no Python to hand out: its helpers are its own executable with a hidden
flag (app/cli/main.py and app/desktop/__main__.py check them first).

Standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

ISOLATED = "-I"
# Runs argv[2] as `__main__` after adding argv[1] (the app's root) at the end of sys.path.
_BOOT = (
    "import runpy,sys;"
    "r,m=sys.argv[1],sys.argv[2];"
    "del sys.argv[1:3];"
    "r in sys.path or sys.path.append(r);"
    "runpy.run_module(m,run_name='__main__',alter_sys=True)"
)


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def app_root() -> Path:
    """The folder that holds the `app` package (from source: the checkout)."""
    return Path(__file__).resolve().parents[2]


def module_argv(module: str, args: Sequence[str] = (), *, frozen_flag: str) -> list[str]:
    """The command line that runs this app's `module` as `__main__`, isolated; from a frozen
    build, the executable itself with `frozen_flag`."""
    if is_frozen():
        return [sys.executable, frozen_flag, *args]
    return [sys.executable, ISOLATED, "-c", _BOOT, str(app_root()), module, *args]


def script_argv(script: str | Path, args: Sequence[str] = (), *, no_site: bool = False) -> list[str]:
    """The command line that runs a script file shipped with the app with this Python,
    isolated (`no_site`: without site-packages either, for a standard-library-only script)."""
    flags = [ISOLATED, "-S"] if no_site else [ISOLATED]
    return [sys.executable, *flags, str(script), *args]
