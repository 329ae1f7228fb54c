"""`cashcode memories add|list|search|update|delete` (explicit memories, SPEC S5.4).

Writes show the change and ask first (default No; without a terminal the answer is No) unless
`--yes`. `add` shows the full id it will use and writes exactly that id; `update`/`delete`
refuse when the memory changed meanwhile (the user must look again).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

Body = Callable[["CashCodeApp", argparse.Namespace], Awaitable[int]]


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("memories", help="manage explicit memories (add, list, search, …)")
    commands = parser.add_subparsers(dest="memories_command", required=True)
    add = commands.add_parser("add", help="add a memory; prints its id")
    add.add_argument("text")
    add.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    add.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    add.set_defaults(func=runner(_add))
    listing = commands.add_parser("list", help="list memories, newest first")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(func=runner(_list))
    search = commands.add_parser("search", help="memories matching ALL words and ALL tags")
    search.add_argument("words", nargs="*")
    search.add_argument("--tag", action="append", default=[], help="a required tag (repeatable)")
    search.add_argument("--json", action="store_true", help="print a JSON array")
    search.set_defaults(func=runner(_search))
    update = commands.add_parser("update", help="replace a memory's text and tags")
    update.add_argument("id", help="the memory id (or its first characters, when unique)")
    update.add_argument("--content", required=True)
    update.add_argument(
        "--tag", action="append", default=[], help="a tag (repeatable; replaces the old tags)"
    )
    update.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    update.set_defaults(func=runner(_update))
    delete = commands.add_parser("delete", help="delete a memory")
    delete.add_argument("id", help="the memory id (or its first characters, when unique)")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(func=runner(_delete))


def runner(body: Body) -> Callable[[argparse.Namespace], int]:
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


def error(envelope: dict[str, Any]) -> int:
    from app.cli.render import error_line

    print(error_line(envelope["error"]), file=sys.stderr)
    return 1


async def confirm(question: str, yes: bool, *, default: bool = False) -> bool:
    """Ask `question` ([y/N], or [Y/n] when `default`); --yes skips it; no terminal means No.
    Enter alone gives the default: Yes for adding the user's own text, No for changes."""
    if yes:
        return True
    from app.cli.terminal import StdinLines

    if not StdinLines.is_interactive():
        print("No terminal to confirm on; nothing was changed (pass --yes to confirm).", file=sys.stderr)
        return False
    print(f"{question} {'[Y/n]' if default else '[y/N]'} ", end="", flush=True)
    answer = ((await StdinLines().readline()) or "").strip().lower()
    if not answer:
        return default
    return answer in ("y", "yes")


def _shown(content: str, tags: list[str]) -> str:
    return f"  {content}" + (f"\n  tags: {', '.join(tags)}" if tags else "")


def _print_items(items: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(json.dumps(items, ensure_ascii=False, indent=2))
        return
    if not items:
        print("No memories.")
    for m in items:
        tags = f"  [{', '.join(m['tags'])}]" if m["tags"] else ""
        print(f"{m['id']}  {m['updated_at'][:19].replace('T', ' ')}{tags}\n  {m['content']}")


async def _add(app: CashCodeApp, args: argparse.Namespace) -> int:
    from app.store.ids import new_id

    memory_id = new_id()
    print(f"Add memory {memory_id}:\n{_shown(args.text, args.tag)}")
    if not await confirm("Add it?", args.yes, default=True):
        print("Not added.")
        return 1
    added = await app.invoke("memories.add", {"content": args.text, "tags": args.tag, "id": memory_id})
    if not added["ok"]:
        return error(added)
    print(added["data"]["id"])
    return 0


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    listed = await app.invoke("memories.list", {"limit": 100_000})
    if not listed["ok"]:
        return error(listed)
    _print_items(listed["data"]["memories"], args.json)
    return 0


async def _search(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("memories.search", {"words": args.words, "tags": args.tag, "limit": 100_000})
    if not found["ok"]:
        return error(found)
    _print_items(found["data"]["memories"], args.json)
    return 0


async def _by_id_or_prefix(app: CashCodeApp, given: str) -> dict[str, Any]:
    """`memories.get` for a full id, or for the one memory whose id starts with `given` (the
    list shows ids in full; typing the first characters is enough when they are unique)."""
    exact = await app.invoke("memories.get", {"id": given})
    if exact["ok"] or not given.strip():
        return exact
    listed = await app.invoke("memories.list", {"limit": 100_000})
    if not listed["ok"]:
        return exact
    prefix = given.strip().lower()
    matches = [m for m in listed["data"]["memories"] if str(m["id"]).lower().startswith(prefix)]
    if len(matches) == 1:
        return {"ok": True, "data": matches[0]}
    if not matches:
        message = f"no memory id starts with {given!r} (cashcode memories list shows them)"
    else:
        shown = ", ".join(str(m["id"]) for m in matches[:5])
        message = f"{given!r} matches {len(matches)} memories ({shown}); type more of the id"
    return {"ok": False, "error": {"code": "not_found", "message": message}}


async def _update(app: CashCodeApp, args: argparse.Namespace) -> int:
    current = await _by_id_or_prefix(app, args.id)
    if not current["ok"]:
        return error(current)
    old = current["data"]
    print(f"Change memory {old['id']}\nbefore:\n{_shown(old['content'], old['tags'])}")
    print(f"after:\n{_shown(args.content, args.tag)}")
    if not await confirm("Change it?", args.yes):
        print("Not changed.")
        return 1
    payload = {
        "id": old["id"],
        "content": args.content,
        "tags": args.tag,
        "expected_updated_at": old["updated_at"],
    }
    updated = await app.invoke("memories.update", payload)
    if not updated["ok"]:
        return error(updated)
    print(f"Updated memory {old['id']}.")
    return 0


async def _delete(app: CashCodeApp, args: argparse.Namespace) -> int:
    current = await _by_id_or_prefix(app, args.id)
    if not current["ok"]:
        return error(current)
    old = current["data"]
    print(f"Delete memory {old['id']}:\n{_shown(old['content'], old['tags'])}")
    if not await confirm("Delete it?", args.yes):
        print("Not deleted.")
        return 1
    deleted = await app.invoke("memories.delete", {"id": old["id"], "expected_updated_at": old["updated_at"]})
    if not deleted["ok"]:
        return error(deleted)
    print(f"Deleted memory {old['id']}.")
    return 0
