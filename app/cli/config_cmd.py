"""`cashcode config show`: the effective, non-secret configuration and where each value comes from."""

from __future__ import annotations

import argparse
import os

from app.cli.runtime import CliError, add_model_flags, fail


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("config", help="show the effective configuration")
    commands = parser.add_subparsers(dest="config_command", required=True)
    show = commands.add_parser("show", help="print the effective configuration (never the key)")
    add_model_flags(show)
    show.set_defaults(func=run_show)


def run_show(args: argparse.Namespace) -> int:
    from app.cli.runtime import paths_from_env, resolve_config
    from app.settings.cli_config import render_config

    try:
        cfg = resolve_config(args, os.environ, paths_from_env(os.environ))
    except CliError as exc:
        return fail(str(exc))
    print(render_config(cfg))
    return 0
