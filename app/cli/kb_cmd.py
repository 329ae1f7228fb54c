"""`cashcode kb add|list|search|remove|reindex` (knowledge bases, issue 26).

Every command calls the `knowledge.*` routes of the app. `add` and `reindex` draw a progress
bar (files done / total, the current file) on stderr when it is a terminal, from the app's
`knowledge_progress` events; without a terminal they print only the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from app.cli.memories_cmd import error, runner

if TYPE_CHECKING:
    from app.api.app import CashCodeApp
    from app.contracts.events import AppEvent

BAR_WIDTH = 30


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("kb", help="knowledge bases: local folders the agent can search")
    commands = parser.add_subparsers(dest="kb_command", required=True)
    add = commands.add_parser("add", help="add a folder or file to a knowledge base and index it")
    add.add_argument("path")
    add.add_argument("--name", help="the knowledge base (created if needed; default: the folder's name)")
    add.set_defaults(func=runner(_add))
    listing = commands.add_parser("list", help="list knowledge bases")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(func=runner(_list))
    search = commands.add_parser("search", help="search knowledge bases")
    search.add_argument("query")
    search.add_argument("--kb", help="only this knowledge base")
    search.add_argument("--limit", type=int, default=10, help="results (1-100, default 10)")
    search.add_argument("--json", action="store_true", help="print a JSON array")
    search.set_defaults(func=runner(_search))
    remove = commands.add_parser("remove", help="delete a knowledge base and its index (not your files)")
    remove.add_argument("name")
    remove.set_defaults(func=runner(_remove))
    reindex = commands.add_parser("reindex", help="re-read every file of a knowledge base (default: all)")
    reindex.add_argument("name", nargs="?")
    reindex.set_defaults(func=runner(_reindex))


class _Bar:
    """A one-line progress bar on a terminal's stderr; nothing when stderr is not a terminal."""

    def __init__(self) -> None:
        self._on = sys.stderr.isatty()
        self._drawn = False

    def __call__(self, event: AppEvent) -> None:
        if not self._on or event.type != "knowledge_progress":
            return
        from app.cli.safe_text import raw_stream, visible

        done, total = int(getattr(event, "done", 0)), int(getattr(event, "total", 0))
        if getattr(event, "finished", False):
            self.close()
            return
        filled = BAR_WIDTH * done // total if total else 0
        name = os.path.basename(str(getattr(event, "current", "")))
        line = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} {visible(name)}"
        # The bar's own erase-line sequence goes to the raw stream (stderr sanitises writes).
        out = raw_stream(sys.stderr)
        out.write("\r\x1b[2K" + line[: _columns() - 1])
        out.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            from app.cli.safe_text import raw_stream

            out = raw_stream(sys.stderr)
            out.write("\r\x1b[2K")
            out.flush()
            self._drawn = False


def _columns() -> int:
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


async def _with_bar(app: CashCodeApp, route: str, payload: dict[str, Any]) -> dict[str, Any]:
    bar = _Bar()
    unsubscribe = app.subscribe(bar)
    try:
        return await app.invoke(route, payload)
    finally:
        unsubscribe()
        bar.close()


def _absolute(path: str) -> str:
    """The route wants an absolute path; the user's is relative to their current folder."""
    return os.path.abspath(os.path.expanduser(path))


def _run_line(run: dict[str, Any]) -> str:
    return (
        f"{run['name']}: {run['indexed']} file(s) indexed, {run['unchanged']} unchanged,"
        f" {run['removed']} removed, {run['skipped']} skipped"
    )


async def _add(app: CashCodeApp, args: argparse.Namespace) -> int:
    payload: dict[str, Any] = {"path": _absolute(args.path)}
    if args.name is not None:
        payload["name"] = args.name
    added = await _with_bar(app, "knowledge.add", payload)
    if not added["ok"]:
        return error(added)
    base = added["data"]["base"]
    print(_run_line(added["data"]["run"]))
    print(f"Knowledge base {base['name']!r}: {base['files']} file(s), {base['chunks']} chunk(s).")
    return 0


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    listed = await app.invoke("knowledge.list")
    if not listed["ok"]:
        return error(listed)
    bases = [{k: v for k, v in b.items() if k != "progress"} for b in listed["data"]["bases"]]
    if args.json:
        print(json.dumps(bases, ensure_ascii=False, indent=2))
        return 0
    if not bases:
        print("No knowledge bases (add one with `cashcode kb add PATH`).")
    for b in bases:
        state = "indexing not finished" if b["pending"] else f"indexed {str(b['indexed_at'])[:19]}"
        print(f"{b['name']}  {b['files']} file(s), {b['chunks']} chunk(s), {b['skipped']} skipped, {state}")
        for root in b["roots"]:
            print(f"  {root}")
    return 0


async def _search(app: CashCodeApp, args: argparse.Namespace) -> int:
    payload: dict[str, Any] = {"query": args.query, "limit": args.limit}
    if args.kb is not None:
        payload["kb"] = args.kb
    found = await app.invoke("knowledge.search", payload)
    if not found["ok"]:
        return error(found)
    hits = found["data"]["hits"]
    if args.json:
        keys = ("path", "start_line", "end_line", "score", "text")
        print(json.dumps([{k: h[k] for k in keys} for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("No matches.")
    for h in hits:  # stdout sanitises every write (app/cli/safe_text.py)
        trail = f"  ({h['heading']})" if h["heading"] else ""
        print(f"{h['citation']}  {h['score']:.3f}{trail}")
        for line in h["text"].splitlines()[:4]:
            print(f"    {line}")
    return 0


async def _remove(app: CashCodeApp, args: argparse.Namespace) -> int:
    removed = await app.invoke("knowledge.delete", {"name": args.name})
    if not removed["ok"]:
        return error(removed)
    print(f"Removed knowledge base {args.name!r} (your files were not touched).")
    return 0


async def _reindex(app: CashCodeApp, args: argparse.Namespace) -> int:
    done = await _with_bar(app, "knowledge.reindex", {"name": args.name})
    if not done["ok"]:
        return error(done)
    runs = done["data"]["runs"]
    if not runs:
        print("No knowledge bases.")
    for run in runs:
        print(_run_line(run))
    return 0
