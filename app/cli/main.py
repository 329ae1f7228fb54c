"""The `cashcode` command. Sub-command modules are imported only when used (start-up cost)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_CANCELLED = 130


# Sub-commands whose own parser (in their package) handles the rest of the command line.
EXTERNAL = {
    "desktop": ("app.desktop.launch", "the desktop app"),
    "serve": ("app.server.main", "the local server"),
}


def _external(command: str, rest: list[str]) -> int:
    """`desktop` / `serve`: `<module>.run(argv)`; imported only now (pywebview, uvicorn)."""
    import importlib

    module, what = EXTERNAL[command]
    try:
        target = importlib.import_module(module)
    except ImportError as exc:
        print(f"cashcode: error: {what} is not available in this installation ({exc})", file=sys.stderr)
        return 1
    result = target.run(rest)
    return int(result) if isinstance(result, int) else 0


# name -> (module, help). Only the module of the command being run is imported (start-up cost);
# the others get a help-only stub, so `cashcode --help` still lists everything.
COMMANDS = {
    "ask": ("app.cli.ask_cmd", "ask one question and print the answer"),
    "chat": ("app.cli.chat_cmd", "chat interactively (/exit or Ctrl-D to leave)"),
    "sessions": ("app.cli.sessions_cmd", "list, show or delete stored chats"),
    "config": ("app.cli.config_cmd", "show the effective configuration"),
    "models": ("app.cli.models_cmd", "list the models of the configured provider"),
    "skills": ("app.cli.skills_cmd", "manage Skills (list, validate, import, export, …)"),
}


def build_parser(command: str | None) -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="cashcode", description="CashCode — a local-first AI agent")
    subparsers = parser.add_subparsers(dest="command")
    for name, (module, help_text) in COMMANDS.items():
        if name == command:
            importlib.import_module(module).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=help_text, add_help=False)
    # Listed for --help only; main() hands these over before parsing.
    subparsers.add_parser("desktop", help="open the desktop app (default without a command)", add_help=False)
    subparsers.add_parser("serve", help="serve the app in a local browser on 127.0.0.1", add_help=False)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list:
        return _external("desktop", [])
    if args_list[0] in EXTERNAL:
        return _external(args_list[0], args_list[1:])
    parser = build_parser(_command(args_list))
    args = parser.parse_args(args_list)
    func = getattr(args, "func", None)
    if func is None:
        parser.parse_args([args.command, "--help"])
        return 2
    try:
        return int(func(args))
    except KeyboardInterrupt:
        print("\nCancelled.", file=sys.stderr)
        return EXIT_CANCELLED


if __name__ == "__main__":
    raise SystemExit(main())
