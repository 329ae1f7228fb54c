"""`cashcode memories add|list|search|update|delete` (explicit memories, SPEC S5.4).

Writes show the change and ask first unless `--yes` (without a terminal the answer is No):
`add` defaults to Yes (the user's own text, typed just now), `update`/`delete` to No. `update`
and `delete` take a unique start of an id too. `add` shows the full id it will use and writes
exactly that id; `update`/`delete` refuse when the memory changed meanwhile (look again).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


class MemoryApi(Protocol):
    """What the memory commands call: the app's routes (of one agent's memory with --agent)."""

    async def invoke(self, route: str, payload: Mapping[str, Any] | None = None) -> dict[str, Any]: ...


AppBody = Callable[["CashCodeApp", argparse.Namespace], Awaitable[int]]
Body = Callable[[MemoryApi, argparse.Namespace], Awaitable[int]]


def agent_option() -> argparse.ArgumentParser:
    """`--agent NAME` on every memory command: that agent's own memory (issue 38)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--agent", metavar="NAME", help="an agent's own memory (default: the shared memory)")
    return parent


class _OwnMemory:
    """The app's routes with the agent's id in every request: its own memory, nobody else's."""

    def __init__(self, app: CashCodeApp, agent_id: str) -> None:
        self._app = app
        self._agent_id = agent_id

    async def invoke(self, route: str, payload: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return await self._app.invoke(route, {**(payload or {}), "agent_id": self._agent_id})


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("memories", help="manage explicit memories (add, list, search, …)")
    commands = parser.add_subparsers(dest="memories_command", required=True)
    owner = [agent_option()]
    add = commands.add_parser("add", parents=owner, help="add a memory; prints its id")
    add.add_argument("text")
    add.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    add.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    add.set_defaults(func=runner(owned(_add)))
    listing = commands.add_parser("list", parents=owner, help="list memories, newest first")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(func=reader(owned(_list), _no_memories))
    search = commands.add_parser("search", parents=owner, help="memories matching ALL words and ALL tags")
    search.add_argument("words", nargs="*")
    search.add_argument("--tag", action="append", default=[], help="a required tag (repeatable)")
    search.add_argument("--json", action="store_true", help="print a JSON array")
    search.set_defaults(func=reader(owned(_search), _search_nothing))
    update = commands.add_parser("update", parents=owner, help="replace a memory's text and tags")
    update.add_argument("id", help="the memory id (or a unique start of it)")
    update.add_argument("--content", required=True)
    update.add_argument(
        "--tag", action="append", default=[], help="a tag (repeatable; replaces the old tags)"
    )
    update.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    update.set_defaults(func=runner(owned(_update)))
    delete = commands.add_parser("delete", parents=owner, help="delete a memory")
    delete.add_argument("id", help="the memory id (or a unique start of it)")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(func=runner(owned(_delete)))


def runner(body: AppBody) -> Callable[[argparse.Namespace], int]:
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


def reader(
    body: AppBody, nothing: Callable[[argparse.Namespace], int]
) -> Callable[[argparse.Namespace], int]:
    """A read command: it never creates or converts the database (issue 39). No database yet:
    `nothing` answers without building the app; an older one is refused, left as it is."""
    run_body = runner(body)

    def run(args: argparse.Namespace) -> int:
        from app.api.plugins import database_state
        from app.cli.runtime import paths_from_env

        state = database_state(paths_from_env(os.environ).db_path)
        if state.kind == "missing":
            agent = getattr(args, "agent", None)
            if agent is not None:  # no database yet: no agent of that name either
                from app.contracts.errors import say

                print(f"cashcode: error: {say('agent.no_such_name', name=agent)}", file=sys.stderr)
                return 1
            return nothing(args)
        if state.kind == "older":
            print(f"cashcode: error: {state.message}", file=sys.stderr)
            return 1
        return run_body(args)

    return run


def owned(body: Body) -> AppBody:
    """A memory command for the memory `--agent` names (the shared one without it)."""

    async def run(app: CashCodeApp, args: argparse.Namespace) -> int:
        target = await _memory_of(app, getattr(args, "agent", None))
        return target if isinstance(target, int) else await body(target, args)

    return run


async def _memory_of(app: CashCodeApp, agent: str | None) -> MemoryApi | int:
    if agent is None:
        return app
    from app.cli.agent_ref import agent_id

    found = await agent_id(app, agent)
    return found if isinstance(found, int) else _OwnMemory(app, found)


def error(envelope: dict[str, Any]) -> int:
    from app.cli.render import error_line

    print(error_line(envelope["error"]), file=sys.stderr)
    return 1


async def confirm(question: str, yes: bool, *, default: bool = False) -> bool:
    """Ask `question`; Enter gives `default` ([Y/n] or [y/N]); --yes skips it; no terminal
    means No whatever the default (a script must say --yes)."""
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


async def resolve_id(app: MemoryApi, given: str) -> str | dict[str, Any]:
    """The full id for a full id or a unique prefix of one; an error envelope otherwise."""
    listed = await app.invoke("memories.list", {"limit": 100_000})
    if not listed["ok"]:
        return dict(listed)
    ids = [m["id"] for m in listed["data"]["memories"]]
    if given in ids:
        return str(given)
    matches = [i for i in ids if i.startswith(given)] if given else []
    if len(matches) == 1:
        return str(matches[0])
    if not matches:
        message = f"No memory id starts with {given!r} (cashcode memories list shows them)."
        return {"ok": False, "error": {"code": "not_found", "message": message}}
    shown = ", ".join(matches[:5]) + (" …" if len(matches) > 5 else "")
    message = f"{len(matches)} memories start with {given!r} ({shown}); give more of the id."
    return {"ok": False, "error": {"code": "invalid", "message": message}}


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


async def _add(app: MemoryApi, args: argparse.Namespace) -> int:
    from app.store.ids import new_id

    memory_id = new_id()
    print(f"Add memory {memory_id}:\n{_shown(args.text, args.tag)}")
    # The user's own text, typed just now: Enter adds it (the model's writes ask elsewhere).
    if not await confirm("Add it?", args.yes, default=True):
        print("Not added.")
        return 1
    asked_by = "command: cashcode memories add"  # its provenance
    payload = {"content": args.text, "tags": args.tag, "id": memory_id, "asked_by": asked_by}
    added = await app.invoke("memories.add", payload)
    if not added["ok"]:
        return error(added)
    print(added["data"]["id"])
    return 0


async def _list(app: MemoryApi, args: argparse.Namespace) -> int:
    listed = await app.invoke("memories.list", {"limit": 100_000})
    if not listed["ok"]:
        return error(listed)
    _print_items(listed["data"]["memories"], args.json)
    return 0


def _no_memories(args: argparse.Namespace) -> int:
    _print_items([], args.json)
    return 0


def _search_nothing(args: argparse.Namespace) -> int:
    """No database yet: the query is still checked (the same errors as with one)."""
    from app.memory.explicit import check_query

    try:
        check_query(args.words, args.tag)
    except ValueError as exc:
        print(f"cashcode: error: {exc}", file=sys.stderr)
        return 1
    return _no_memories(args)


async def _search(app: MemoryApi, args: argparse.Namespace) -> int:
    found = await app.invoke("memories.search", {"words": args.words, "tags": args.tag, "limit": 100_000})
    if not found["ok"]:
        return error(found)
    _print_items(found["data"]["memories"], args.json)
    return 0


async def _update(app: MemoryApi, args: argparse.Namespace) -> int:
    memory_id = await resolve_id(app, args.id)
    if not isinstance(memory_id, str):
        return error(memory_id)
    current = await app.invoke("memories.get", {"id": memory_id})
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


async def _delete(app: MemoryApi, args: argparse.Namespace) -> int:
    memory_id = await resolve_id(app, args.id)
    if not isinstance(memory_id, str):
        return error(memory_id)
    current = await app.invoke("memories.get", {"id": memory_id})
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
