"""`cashcode memory show|versions|revert VERSION` (MEMORY.md and its versions, SPEC S5.3)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.cli.memories_cmd import error, reader, runner

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("memory", help="show MEMORY.md, its versions, or revert it")
    commands = parser.add_subparsers(dest="memory_command", required=True)
    commands.add_parser("show", help="print MEMORY.md").set_defaults(func=reader(_show, _show_file))
    versions = commands.add_parser("versions", help="list MEMORY.md versions, newest first")
    versions.add_argument("--diff", action="store_true", help="print each version's diff")
    versions.set_defaults(func=reader(_versions, _no_versions))
    revert = commands.add_parser("revert", help="make an earlier version current again")
    revert.add_argument("version", type=int)
    revert.set_defaults(func=runner(_revert))


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


async def _show(app: CashCodeApp, args: argparse.Namespace) -> int:
    doc = await app.invoke("memory.get", {})
    if not doc["ok"]:
        return error(doc)
    text = doc["data"]["text"]
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        print(f"MEMORY.md is empty ({doc['data']['path']}).", file=sys.stderr)
    return 0


async def _versions(app: CashCodeApp, args: argparse.Namespace) -> int:
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


async def _revert(app: CashCodeApp, args: argparse.Namespace) -> int:
    done = await app.invoke("memory.revert", {"version_id": args.version})
    if not done["ok"]:
        return error(done)
    print(f"MEMORY.md is back to version {args.version} (saved as version {done['data']['version_id']}).")
    return 0
