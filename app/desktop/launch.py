"""`cashcode desktop` entry: hand the request to a running CashCode first, cheaply.

A second launch (double-click, `--quick-ask` bound to a shortcut, "Open with…" on a Skill ZIP)
must be done within a second, so this module imports only what forwarding needs (argument
parsing and the single-instance socket). Only when no CashCode answers does it import the
window machinery (app/desktop/main.py), which claims the socket itself, under a lock, so two
launches racing here still end with one instance.
"""

from __future__ import annotations

import os
import sys

from app.desktop import startup_marks
from app.desktop.launch_args import LaunchArgsError, forwarded_argv, parse
from app.desktop.single_instance import endpoint_for, forward
from app.settings.paths import AppPaths

ALREADY_RUNNING = "CashCode is already running — brought it to the front"


def run(argv: list[str] | None = None) -> int:
    startup_marks.mark("run")
    args_list = sys.argv[1:] if argv is None else argv
    try:
        _args, request = parse(args_list)
    except LaunchArgsError as exc:
        print(f"cashcode desktop: {exc}", file=sys.stderr)
        return 2
    try:
        endpoint = endpoint_for(AppPaths.from_env(os.environ).data_dir, os.environ)
        if forward(endpoint, forwarded_argv(request)):
            startup_marks.mark("forwarded")
            # Said, not silent: a second launch from a terminal otherwise looks like it did
            # nothing (issue 41). The running window shows itself (or Quick Ask).
            print(ALREADY_RUNNING)
            return 0
    except OSError as exc:
        print(f"cashcode desktop: {exc}", file=sys.stderr)
        return 1
    from app.desktop.main import run as run_window  # lazy: Qt, pywebview and the app

    return run_window(args_list)
