"""`cashcode sessions list|show ID|delete ID [--yes]|export ID [--format md|json] [--output FILE]|
import FILE`.

Reading commands on a data folder without a database create nothing (no folders, no files)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


LIST_DEFAULT = 50
LIST_PAGE = 500  # the largest page `chats.list` returns


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("sessions", help="list, show or delete stored chats")
    commands = parser.add_subparsers(dest="sessions_command", required=True)
    listing = commands.add_parser("list", help="list chats, most recent first (the newest 50 by default)")
    listing.add_argument(
        "--limit", "-n", type=_positive, default=LIST_DEFAULT, help="how many chats (default 50)"
    )
    listing.add_argument("--all", action="store_true", help="list every chat (fetched page by page)")
    listing.set_defaults(func=_runner(_list, reads=True))
    show = commands.add_parser("show", help="print a chat")
    show.add_argument("id")
    show.set_defaults(func=_runner(_show, reads=True))
    delete = commands.add_parser("delete", help="delete a chat")
    delete.add_argument("id")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(func=_runner(_delete))
    export = commands.add_parser("export", help="export a chat as Markdown or JSON")
    export.add_argument("id")
    export.add_argument("--format", choices=["md", "json"], default="md", help="md (default) or json")
    export.add_argument("--output", "-o", help="write to this file instead of standard output")
    export.set_defaults(func=_runner(_export, reads=True))
    imp = commands.add_parser("import", help="import a chat exported as JSON")
    imp.add_argument("file")
    imp.set_defaults(func=_runner(_import, creates=True))


def _runner(
    body: Callable[[CashCodeApp, argparse.Namespace], Awaitable[int]],
    *,
    creates: bool = False,
    reads: bool = False,
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if not creates and not _has_database(os.environ):
            return _nothing_stored(args)
        if reads and (refused := _older_database(os.environ)):
            print(f"cashcode: error: {refused}", file=sys.stderr)
            return 1

        async def main() -> int:
            from app.cli.runtime import open_plain_app

            app = open_plain_app(os.environ)
            try:
                return await body(app, args)
            finally:
                await app.aclose()

        return asyncio.run(main())

    return run


def _older_database(env: Mapping[str, str]) -> str:
    """Why a read may not open the database (an older layout it would convert), or ""."""
    from app.api.plugins import database_state
    from app.cli.runtime import paths_from_env

    state = database_state(paths_from_env(env).db_path)
    return state.message if state.kind == "older" else ""


def _has_database(env: Mapping[str, str]) -> bool:
    from app.cli.runtime import paths_from_env

    return paths_from_env(env).db_path.is_file()


def _nothing_stored(args: argparse.Namespace) -> int:
    """No database yet: answer without building the app (which would create the data folder)."""
    if args.sessions_command == "list":
        print("No chats yet.")
        return 0
    print(f"cashcode: error: chat {args.id} not found (no chats are stored yet)", file=sys.stderr)
    return 1


def _error(envelope: dict[str, Any]) -> int:
    from app.cli.render import error_line

    print(error_line(envelope["error"]), file=sys.stderr)
    return 1


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    """Pages through `chats.list`, printing as it goes, so `--all` over 10,000 chats never holds
    them all and the default prints the newest 50 at once."""
    wanted = None if args.all else args.limit
    printed = 0
    before: str | None = None
    while wanted is None or printed < wanted:
        size = LIST_PAGE if wanted is None else min(LIST_PAGE, wanted - printed)
        query: dict[str, Any] = {"limit": size} | ({"before": before} if before else {})
        page = (await app.invoke("chats.list", query))["data"]
        for chat in page["chats"]:
            when = chat["updated_at"][:19].replace("T", " ")
            preview = f"  — {chat['preview']}" if chat.get("preview") else ""
            print(f"{chat['id']}  {when}  {chat['title'] or '(untitled)'}{preview}")
        printed += len(page["chats"])
        before = page["next_before"]
        if before is None:
            break
    if printed == 0:
        print("No chats yet.")
    elif before is not None:
        print(f"(newest {printed} shown; --limit N for more, --all for every chat)", file=sys.stderr)
    return 0


async def _show(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("chats.get", {"chat_id": args.id, "limit": 1000})
    if not found["ok"]:
        return _error(found)
    detail = found["data"]
    print(f"# {detail['chat']['title'] or '(untitled)'}  ({detail['chat']['id']})")
    if detail["has_more"]:
        print("(older messages not shown)")
    for message in detail["messages"]:
        print(_render_message(message))
    return 0


def _render_message(message: dict[str, Any]) -> str:
    role = message["role"]
    if role == "tool":
        return f"[tool {message.get('name') or ''} result]\n{message['content']}\n"
    parts = [f"{role}: {message['content']}" if message["content"] else f"{role}:"]
    parts += [f"  → {c['name']} {c['arguments']}" for c in message["tool_calls"]]
    if message.get("stopped"):
        parts.append("  [stopped: the answer was cut short by Stop]")
    return "\n".join(parts) + "\n"


async def _delete(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("chats.get", {"chat_id": args.id, "limit": 1})
    if not found["ok"]:
        return _error(found)
    if not args.yes:
        if not sys.stdin.isatty():
            print("cashcode: error: refusing to delete without confirmation; pass --yes", file=sys.stderr)
            return 1
        title = found["data"]["chat"]["title"] or "(untitled)"
        from app.cli.terminal import StdinLines

        print(f"Delete chat {args.id} “{title}”? [y/N] ", end="", flush=True)
        answer = ((await StdinLines().readline()) or "").strip().lower()
        if answer not in ("y", "yes"):
            print("Not deleted.")
            return 1
    deleted = await app.invoke("chats.delete", {"chat_id": args.id})
    if not deleted["ok"]:
        return _error(deleted)
    print(f"Deleted chat {args.id}.")
    return 0


async def _export(app: CashCodeApp, args: argparse.Namespace) -> int:
    exported = await app.invoke("chats.export", {"chat_id": args.id, "format": args.format})
    if not exported["ok"]:
        return _error(exported)
    content: str = exported["data"]["content"]
    if not args.output:
        sys.stdout.write(content)
        return 0
    from pathlib import Path

    from app.cli.runtime import fail

    target = Path(args.output).expanduser()  # noqa: ASYNC240  only reads $HOME
    try:
        _write_atomic(target, content)
    except OSError as exc:
        return fail(f"cannot write {target}: {exc.strerror or exc}")
    print(f"Exported chat {args.id} to {target}.")
    return 0


def _write_atomic(target: Any, content: str) -> None:
    from app.support.atomic import atomic_write_text

    atomic_write_text(target, content)


async def _import(app: CashCodeApp, args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.cli.input_file import MAX_EXPORT_BYTES, InputFileError, read_input_file
    from app.cli.runtime import fail

    source = Path(args.file).expanduser()  # noqa: ASYNC240  only reads $HOME
    try:
        content = (await asyncio.to_thread(read_input_file, source, MAX_EXPORT_BYTES)).decode("utf-8")
    except InputFileError as exc:
        return fail(str(exc))
    except UnicodeDecodeError:
        return fail(f"cannot read {source}: it is not UTF-8 text")
    imported = await app.invoke("chats.import", {"content": content})
    if not imported["ok"]:
        return _error(imported)
    chat = imported["data"]
    title = chat["title"] or "(untitled)"
    print(f"Imported chat {chat['id']} “{title}” ({chat['message_count']} messages).")
    return 0
