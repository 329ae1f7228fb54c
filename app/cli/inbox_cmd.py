"""`cashcode inbox [--json]`, `inbox approve ID [--always]`, `inbox deny ID`, `inbox answer ID
--field NAME=VALUE …` (issue 35 item 5): the questions runs wait on, answered from any terminal.

Everything goes through the `inbox.*` routes of a plain app on the same database: the answer is
written to the item's row and the process whose run waits (`serve`, the desktop, `ask --wait`)
picks it up within a second (app/api/inbox.py). An ID may be given as a unique prefix.

Exit codes: 0 done; 1 other errors; 2 bad usage; 3 no such item; 4 already answered (the
message names who answered)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from app.cli.memories_cmd import error, reader, runner

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

EXIT_UNKNOWN = 3
EXIT_ANSWERED = 4


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("inbox", help="the questions runs wait on; answer them here")
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    parser.add_argument("--all", action="store_true", help="also the recently answered items")
    parser.set_defaults(func=reader(_list, _nothing))
    commands = parser.add_subparsers(dest="inbox_command")
    approve = commands.add_parser("approve", help="allow the call (a memory proposal: accept it)")
    approve.add_argument("id")
    approve.add_argument("--always", action="store_true", help="and allow it from now on")
    approve.set_defaults(func=runner(_approve))
    deny = commands.add_parser("deny", help="refuse the call (a form: decline it; a proposal: reject it)")
    deny.add_argument("id")
    deny.set_defaults(func=runner(_deny))
    answer = commands.add_parser("answer", help="fill in and send a form an MCP server asks for")
    answer.add_argument("id")
    answer.add_argument(
        "--field", action="append", default=[], metavar="NAME=VALUE", help="one field (repeat for more)"
    )
    answer.set_defaults(func=runner(_answer))


def _nothing(args: argparse.Namespace) -> int:
    print("[]" if args.json else "Nothing waits for an answer.")
    return 0


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    listed = await app.invoke("inbox.list", {"include_answered": args.all})
    if not listed["ok"]:
        return error(listed)
    items: list[dict[str, Any]] = listed["data"]["items"]
    now = datetime.now(UTC)
    rows = [_row(item, now) for item in items]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("Nothing waits for an answer.")
        return 0
    for row in rows:
        state = "" if row["status"] == "pending" else f"  [{row['status']} by {row['answered_by']}]"
        print(f"{row['id']}  {row['kind']}  {row['who']}  {row['summary']}  {_age(row['age'])}{state}")
    if any(r["status"] == "pending" for r in rows):
        print("\nAnswer with: cashcode inbox approve ID [--always] | deny ID | answer ID --field NAME=VALUE")
    return 0


def _row(item: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The JSON of one item: id, kind, who, summary (one line), age (seconds), then the rest."""
    created = datetime.fromisoformat(item["created_at"].replace("Z", "+00:00"))
    summary = item["title"]
    detail = " ".join(str(item["detail"]).split())
    if detail:
        summary = f"{summary}: {detail}" if summary else detail
    return {
        "id": item["id"],
        "kind": item["kind"],
        "who": item["who"],
        "summary": summary[:200],
        "age": max(0, int((now - created).total_seconds())),
        "origin": item["origin"],
        "tool": item["tool"],
        "argv": item["argv"],
        "warnings": item["warnings"],
        "can_always": item["can_always"],
        "fields": item["fields"],
        "chat_id": item["chat_id"],
        "task_id": item["task_id"],
        "created_at": item["created_at"],
        "status": item["status"],
        "answered_by": item["answered_by"],
    }


def _age(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86_400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86_400}d"


async def _approve(app: CashCodeApp, args: argparse.Namespace) -> int:
    return await _send(app, args.id, {"decision": "always" if args.always else "once"})


async def _deny(app: CashCodeApp, args: argparse.Namespace) -> int:
    return await _send(app, args.id, {"decision": "deny"})


async def _answer(app: CashCodeApp, args: argparse.Namespace) -> int:
    fields: dict[str, str] = {}
    for given in args.field:
        name, sep, value = given.partition("=")
        if not sep or not name.strip():
            print(f"cashcode: error: --field wants NAME=VALUE, got {given[:80]!r}", file=sys.stderr)
            return 2
        fields[name.strip()] = value
    return await _send(app, args.id, {"fields": fields})


async def _send(app: CashCodeApp, given: str, answer: dict[str, Any]) -> int:
    item_id = await _resolve(app, given)
    if isinstance(item_id, int):
        return item_id
    sent = await app.invoke("inbox.answer", {"id": item_id, "via": "cli", **answer})
    if not sent["ok"]:
        code = sent["error"]["code"]
        error(sent)
        return EXIT_ANSWERED if code == "conflict" else EXIT_UNKNOWN if code == "not_found" else 1
    print(f"Answered {item_id}.")
    return 0


async def _resolve(app: CashCodeApp, given: str) -> str | int:
    """The full id for a full id or a unique prefix of one (ids are long to type on a phone)."""
    listed = await app.invoke("inbox.list", {"include_answered": True})
    if not listed["ok"]:
        return error(listed)
    ids: list[str] = [i["id"] for i in listed["data"]["items"]]
    if given in ids:
        return given
    matches = [i for i in ids if i.startswith(given)] if given else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        print(f"cashcode: error: no Inbox item {given[:80]!r} (see `cashcode inbox`)", file=sys.stderr)
        return EXIT_UNKNOWN
    print(
        f"cashcode: error: {len(matches)} Inbox items start with {given!r}; give more of the id",
        file=sys.stderr,
    )
    return 1
