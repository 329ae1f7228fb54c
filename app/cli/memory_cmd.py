"""`cashcode memory show|versions|revert VERSION|why TEXT|forget TEXT|forgotten|unforget ID`
(MEMORY.md, its versions, where its lines came from and what was forgotten; SPEC S5.3, issue 39)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from app.cli.memories_cmd import MemoryApi, agent_option, confirm, error, owned, reader, runner

if TYPE_CHECKING:
    pass


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("memory", help="show MEMORY.md, its versions, or revert it")
    commands = parser.add_subparsers(dest="memory_command", required=True)
    owner = [agent_option()]
    commands.add_parser("show", parents=owner, help="print MEMORY.md").set_defaults(
        func=reader(owned(_show), _show_file)
    )
    versions = commands.add_parser("versions", parents=owner, help="list MEMORY.md versions, newest first")
    versions.add_argument("--diff", action="store_true", help="print each version's diff")
    versions.set_defaults(func=reader(owned(_versions), _no_versions))
    revert = commands.add_parser("revert", parents=owner, help="make an earlier version current again")
    revert.add_argument("version", type=int)
    revert.set_defaults(func=runner(owned(_revert)))
    why = commands.add_parser(
        "why", parents=owner, help="where the MEMORY.md lines containing TEXT came from"
    )
    why.add_argument("text")
    why.set_defaults(func=reader(owned(_why), _why_without_database))
    forget = commands.add_parser(
        "forget", parents=owner, help="remove the lines containing TEXT; Dream never writes them back"
    )
    forget.add_argument("text")
    forget.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    forget.set_defaults(func=runner(owned(_forget)))
    forgotten = commands.add_parser(
        "forgotten", parents=owner, help="list what was forgotten (un-forget by its number)"
    )
    forgotten.set_defaults(func=reader(owned(_forgotten), _nothing_forgotten))
    unforget = commands.add_parser(
        "unforget", parents=owner, help="un-forget: Dream may write that fact again"
    )
    unforget.add_argument("id", type=int)
    unforget.set_defaults(func=runner(owned(_unforget)))


def _show_file(args: argparse.Namespace) -> int:
    """No database yet: print the file as it is (a read creates nothing)."""
    import os

    from app.cli.runtime import paths_from_env
    from app.memory.memory_file import MEMORY_FILE, MemoryFileError, read_memory_text

    path = paths_from_env(os.environ).data_dir / MEMORY_FILE
    try:
        text = read_memory_text(path)
    except MemoryFileError as exc:
        print(f"cashcode: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        print(f"MEMORY.md is empty ({path}).", file=sys.stderr)
    return 0


def _no_versions(args: argparse.Namespace) -> int:
    print("No versions yet.")
    return 0


async def _show(app: MemoryApi, args: argparse.Namespace) -> int:
    doc = await app.invoke("memory.get", {})
    if not doc["ok"]:
        return error(doc)
    text = doc["data"]["text"]
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        print(f"MEMORY.md is empty ({doc['data']['path']}).", file=sys.stderr)
    return 0


async def _versions(app: MemoryApi, args: argparse.Namespace) -> int:
    listed = await app.invoke("memory.versions", {})
    if not listed["ok"]:
        return error(listed)
    versions = listed["data"]["versions"]
    if not versions:
        print("No versions yet.")
    for v in versions:
        note = f"  {v['note']}" if v["note"] else ""
        when = v["created_at"][:19].replace("T", " ")
        print(f"{v['id']:>5}  {when}  {v['author']:<11} {v['chars']:>6} chars{note}")
        if args.diff and v["diff"]:
            sys.stdout.write(v["diff"])
    return 0


async def _revert(app: MemoryApi, args: argparse.Namespace) -> int:
    done = await app.invoke("memory.revert", {"version_id": args.version})
    if not done["ok"]:
        return error(done)
    print(f"MEMORY.md is back to version {args.version} (saved as version {done['data']['version_id']}).")
    return 0


def _source_line(source: dict[str, Any]) -> str:
    when = source["created_at"][:16].replace("T", " ")
    messages = ", ".join(str(c) for c in source["cursors"]) or "?"
    plural = "messages" if len(source["cursors"]) > 1 else "message"
    return f"    {source['author']}, {when}: chat {source['chat_id']}, {plural} {messages}"


async def _why(app: MemoryApi, args: argparse.Namespace) -> int:
    found = await app.invoke("memory.why", {"text": args.text})
    if not found["ok"]:
        return error(found)
    lines = found["data"]["lines"]
    if not lines:
        print(f"No line of MEMORY.md contains {args.text!r}.", file=sys.stderr)
        return 1
    for item in lines:
        print(item["line"].strip())
        if not item["sources"]:
            print("    no source recorded (written by hand)")
        for source in item["sources"]:
            print(_source_line(source))
    return 0


def _why_without_database(args: argparse.Namespace) -> int:
    """No database yet: no line has a recorded source (the file is read, nothing is created)."""
    import os

    from app.cli.runtime import paths_from_env
    from app.memory.memory_file import MEMORY_FILE, MemoryFileError, read_memory_text
    from app.memory.provenance import fact_lines, line_key

    try:
        text = read_memory_text(paths_from_env(os.environ).data_dir / MEMORY_FILE)
    except MemoryFileError as exc:
        print(f"cashcode: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    key = line_key(args.text)
    matched = [ln for ln in fact_lines(text) if key and key in line_key(ln)]
    if not matched:
        print(f"No line of MEMORY.md contains {args.text!r}.", file=sys.stderr)
        return 1
    for line in matched:
        print(f"{line.strip()}\n    no source recorded (written by hand)")
    return 0


async def _forget(app: MemoryApi, args: argparse.Namespace) -> int:
    found = await app.invoke("memory.why", {"text": args.text})
    if not found["ok"]:
        return error(found)
    lines = [item["line"].strip() for item in found["data"]["lines"]]
    if not lines:
        print(f"cashcode: error: no line of MEMORY.md contains {args.text!r}", file=sys.stderr)
        return 1
    print("Forget (remove from MEMORY.md; Dream and save_memory never write it back):")
    for line in lines:
        print(f"  {line}")
    if not await confirm("Forget it?" if len(lines) == 1 else f"Forget these {len(lines)} lines?", args.yes):
        print("Nothing was forgotten.")
        return 1
    done = await app.invoke("memory.forget", {"text": args.text})
    if not done["ok"]:
        return error(done)
    version = done["data"]["version_id"]
    print(f"Forgotten (MEMORY.md version {version}). `cashcode memory forgotten` lists it.")
    return 0


async def _forgotten(app: MemoryApi, args: argparse.Namespace) -> int:
    listed = await app.invoke("memory.forgotten", {})
    if not listed["ok"]:
        return error(listed)
    items = listed["data"]["forgotten"]
    if not items:
        return _nothing_forgotten(args)
    for item in items:
        print(f"{item['id']:>5}  {item['created_at'][:16].replace('T', ' ')}  {item['line']}")
    return 0


def _nothing_forgotten(args: argparse.Namespace) -> int:
    print("Nothing is forgotten.")
    return 0


async def _unforget(app: MemoryApi, args: argparse.Namespace) -> int:
    done = await app.invoke("memory.unforget", {"id": args.id})
    if not done["ok"]:
        return error(done)
    print(f"Un-forgotten: {done['data']['line']} (Dream may write it again).")
    return 0
