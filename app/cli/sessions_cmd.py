"""`cashcode sessions list|show ID|delete ID [--yes]`."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("sessions", help="list, show or delete stored chats")
    commands = parser.add_subparsers(dest="sessions_command", required=True)
    commands.add_parser("list", help="list chats, most recent first").set_defaults(func=_runner(_list))
    show = commands.add_parser("show", help="print a chat")
    show.add_argument("id")
    show.set_defaults(func=_runner(_show))
    delete = commands.add_parser("delete", help="delete a chat")
    delete.add_argument("id")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(func=_runner(_delete))


def _runner(
    body: Callable[[CashCodeApp, argparse.Namespace], Awaitable[int]],
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        async def main() -> int:
            from app.cli.runtime import open_plain_app

            app = open_plain_app(os.environ)
            try:
                return await body(app, args)
            finally:
                await app.aclose()

        return asyncio.run(main())

    return run


def _error(envelope: dict[str, Any]) -> int:
    from app.cli.render import error_line

    print(error_line(envelope["error"]), file=sys.stderr)
    return 1


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    chats = (await app.invoke("chats.list", {}))["data"]["chats"]
    if not chats:
        print("No chats yet.")
    for chat in chats:
        print(f"{chat['id']}  {chat['updated_at'][:19].replace('T', ' ')}  {chat['title'] or '(untitled)'}")
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
