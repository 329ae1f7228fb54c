"""`cashcode import PATH [--dry-run] [--yes]`: bring in an earlier CashCode data folder or a
cdy-agent workspace. Shows what would be imported first; asks before importing (without a
terminal, `--yes` is required)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

_STATUS_WORDS = {
    "imported": "imported",
    "would_import": "to import",
    "already_imported": "already imported",
    "conflict": "skipped (conflict)",
    "invalid": "skipped (invalid)",
    "unavailable": "skipped (not in this build)",
    "failed": "skipped (refused)",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "import", help="import chats, memories and Skills from CashCode or cdy-agent folders"
    )
    parser.add_argument("path", help="a CashCode data folder or a cdy-agent workspace (with .cdy-agent/)")
    parser.add_argument("--dry-run", action="store_true", help="only show what would be imported")
    parser.add_argument("--yes", "-y", action="store_true", help="import without asking")
    parser.set_defaults(func=run)


def print_report(report: dict[str, Any]) -> None:
    source = "cdy-agent workspace" if report["source"] == "cdy_agent" else "CashCode data folder"
    print(f"{source}: {report['path']}")
    for item in report["items"]:
        status = _STATUS_WORDS.get(item["status"], item["status"])
        reason = f" — {item['reason']}" if item["reason"] else ""
        print(f"  [{status}] {item['kind']}: {item['name']}{reason}")
    verb = "to import" if report["dry_run"] else "imported"
    print(f"{report['imported']} {verb}, {report['skipped']} skipped.")


def _confirm(count: int) -> bool:
    if not sys.stdin.isatty():
        print("cashcode: error: not a terminal; re-run with --yes to import", file=sys.stderr)
        return False
    answer = input(f"Import {count} item{'s' if count != 1 else ''}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


async def _main(args: argparse.Namespace) -> int:
    from app.cli.render import error_line
    from app.cli.runtime import open_plain_app

    path = str(Path(args.path).expanduser().absolute())  # noqa: ASYNC240  only $HOME and the cwd
    app = open_plain_app(os.environ)
    try:
        preview = await app.invoke("import.preview", {"path": path})
        if not preview["ok"]:
            print(error_line(preview["error"]), file=sys.stderr)
            return 1
        print_report(preview["data"])
        count = preview["data"]["imported"]
        if args.dry_run or count == 0:
            return 0
        if not args.yes and not _confirm(count):
            return 1
        result = await app.invoke("import.run", {"path": path})
        if not result["ok"]:
            print(error_line(result["error"]), file=sys.stderr)
            return 1
        print()
        print_report(result["data"])
        return 0
    finally:
        await app.aclose()


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))
