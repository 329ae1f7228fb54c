"""How MCP child processes are started from source and from a frozen (PyInstaller) build.

From source, "Python" is `sys.executable`: the guard runs as `python -I -S child_guard.py` and a
built-in server as `python -I resources/mcp_servers/<name>/server.py` (isolated from the current
folder and the user's environment: app/support/child_python.py). A frozen build has no
Python of its own to hand out — `sys.executable` is the CashCode executable — and a Python the
user installed must never be used instead (other version, no MCP SDK). So the frozen executable
runs them itself, through two hidden arguments its entry point checks before anything else
(app/desktop/__main__.py and app/cli/main.py call `hidden_entry`):

- `CashCode --mcp-guard PARENT_PID PROG [ARG ...]` — app/mcp/child_guard.py's `main`;
- `CashCode --sandbox-launch …` — app/sandbox/launch.py's `main` (a confined program's private
  network and /tmp, then Landlock, then the program);
- `CashCode --mcp-builtin SCRIPT [ARG ...]` — runs SCRIPT (a .py file inside the bundled
  `resources/mcp_servers`, nothing else) as `__main__` with the bundled interpreter.

Standard library only: the guard must start fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from app.support import child_python

GUARD_FLAG = "--mcp-guard"
BUILTIN_FLAG = "--mcp-builtin"
LAUNCH_FLAG = "--sandbox-launch"  # = app/sandbox/launch.py LAUNCH_FLAG (not imported: ctypes at every start)
GUARD = Path(__file__).with_name("child_guard.py")


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def builtin_root() -> Path:
    """`resources/mcp_servers`: beside the `app` package from source and in the bundle
    (app/ and resources/ both sit at the bundle's top, packaging/cashcode.spec)."""
    return Path(__file__).resolve().parents[2] / "resources" / "mcp_servers"


def guard_argv(parent_pid: int, argv: Sequence[str]) -> list[str]:
    """The command line that runs `argv` under the child guard."""
    if is_frozen():
        return [sys.executable, GUARD_FLAG, str(parent_pid), *argv]
    return child_python.script_argv(GUARD, [str(parent_pid), *argv], no_site=True)


def script_argv(script: str, args: Sequence[str]) -> list[str]:
    """The command line that runs a built-in server script with this app's Python."""
    if is_frozen():
        return [sys.executable, BUILTIN_FLAG, script, *args]
    return child_python.script_argv(script, args)  # isolated: issue 33.1


def hidden_entry(argv: Sequence[str]) -> int | None:
    """Run a hidden sub-command when `argv` (without the program) starts with one; None when
    it does not (the caller goes on with its normal start)."""
    if not argv or argv[0] not in (GUARD_FLAG, BUILTIN_FLAG, LAUNCH_FLAG):
        return None
    if argv[0] == LAUNCH_FLAG:
        from app.sandbox import launch

        return launch.main(list(argv[1:]))
    if argv[0] == GUARD_FLAG:
        from app.mcp import child_guard

        return child_guard.main(list(argv[1:]))
    return _run_builtin(argv[1:], builtin_root())


def _run_builtin(argv: Sequence[str], root: Path) -> int:
    import runpy

    script = Path(argv[0]).resolve() if argv else None
    if (
        script is None
        or script.suffix != ".py"
        or not script.is_file()
        or not script.is_relative_to(root.resolve())
    ):
        print(f"{BUILTIN_FLAG}: not a built-in MCP server script: {argv[:1]!r}", file=sys.stderr)
        return 2
    sys.argv = [str(script), *argv[1:]]
    runpy.run_path(str(script), run_name="__main__")
    return 0
