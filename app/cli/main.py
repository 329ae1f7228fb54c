"""The `cashcode` command. Sub-command modules are imported only when used (start-up cost)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from app.cli.startup_gc import StartupGc

EXIT_CANCELLED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a killed writer


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
    "import": ("app.cli.import_cmd", "import chats, memories and Skills from CashCode or cdy-agent folders"),
    "mcp": ("app.cli.mcp_cmd", "manage MCP servers (list, add, import, tools, call, …)"),
    "memories": ("app.cli.memories_cmd", "manage explicit memories (add, list, search, update, delete)"),
    "memory": ("app.cli.memory_cmd", "show MEMORY.md, its versions, or revert it"),
    "dream": ("app.cli.dream_cmd", "distil new chat history into MEMORY.md (dream --now)"),
    "traces": ("app.cli.traces_cmd", "list or show the traces of past turns"),
    "evals": ("app.cli.evals_cmd", "run eval cases from a YAML or JSON file"),
    "kb": ("app.cli.kb_cmd", "knowledge bases: add folders, list, search, remove, reindex"),
    "tasks": ("app.cli.tasks_cmd", "scheduled tasks (add, edit, list, run, history, enable, disable, …)"),
    "inbox": ("app.cli.inbox_cmd", "the questions runs wait on: list, approve, deny, answer"),
    "agents": ("app.cli.agents_cmd", "agents: personas with their own model, Skills and tools"),
}


class _VersionAction(argparse.Action):
    """Like argparse's "version" action, but the version is looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=kwargs.get("help"))  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kw: object) -> None:
        from app.support.version import app_version

        print(f"cashcode {app_version()}")
        parser.exit()


def build_parser(command: str | None) -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="cashcode", description="CashCode — a local-first AI agent")
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    parser.add_argument("--log-level", help="DEBUG|INFO|WARNING|ERROR (default WARNING)")
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


# Commands that keep the collector paused until the model's first reply (app/cli/startup_gc.py).
GC_DEFERRED = {"ask", "chat"}


def main(argv: Sequence[str] | None = None) -> int:
    startup_gc = StartupGc()
    if argv is None:  # the process's own command line; in-process callers (tests) keep theirs
        startup_gc.pause()
    try:
        return _main(argv, startup_gc)
    finally:
        startup_gc.resume()


def _main(argv: Sequence[str] | None, startup_gc: StartupGc) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "--kb-worker":  # a frozen build's index worker (app/knowledge/worker.py)
        startup_gc.resume()
        from app.knowledge.worker import main as kb_worker

        return kb_worker()
    # a frozen build's MCP children and sandbox launcher (app/mcp/frozen.py)
    if args_list and (args_list[0].startswith("--mcp-") or args_list[0] == "--sandbox-launch"):
        startup_gc.resume()
        from app.mcp.frozen import hidden_entry

        if (hidden := hidden_entry(args_list)) is not None:
            return hidden
    from app.observability.cli_logging import configure, split_log_level

    log_level, args_list = split_log_level(args_list)
    if args_list and args_list[0] != "desktop" and (problem := configure(log_level, os.environ)) is not None:
        print(f"cashcode: error: {problem}", file=sys.stderr)
        return 2
    if not args_list or args_list[0] in EXTERNAL:
        startup_gc.resume()  # long-lived processes: the collector as always
        return _external(args_list[0] if args_list else "desktop", args_list[1:])
    command = _command(args_list)
    from app.cli.safe_text import SafeStream

    # Every line a command prints goes through the one sanitiser (untrusted text: issue 23.7).
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)
    try:
        return _run_command(args_list, command, startup_gc)
    finally:
        sys.stdout, sys.stderr = saved


def _run_command(args_list: list[str], command: str | None, startup_gc: StartupGc) -> int:
    if command not in GC_DEFERRED:
        startup_gc.resume()
    parser = build_parser(command)
    args = parser.parse_args(args_list)
    args.startup_gc = startup_gc
    func = getattr(args, "func", None)
    if func is None:
        parser.parse_args([args.command, "--help"])
        return 2
    try:
        return int(func(args))
    except KeyboardInterrupt:
        print("\nCancelled.", file=sys.stderr)
        return EXIT_CANCELLED
    except BrokenPipeError:
        from app.cli.errors import silence_stdout

        silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # the CLI's outer boundary: one clear line, never a traceback
        from app.cli.errors import describe, one_line

        print(one_line(describe(exc)), file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
