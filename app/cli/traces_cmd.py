"""`cashcode traces list|show`: the stored per-turn traces (never any prompt or reply text)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from app.cli.runtime import fail


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("traces", help="list or show the traces of past turns")
    sub = parser.add_subparsers(dest="traces_command", required=True)
    listing = sub.add_parser("list", help="the most recent traces, newest first")
    listing.add_argument("--limit", type=int, default=20, help="how many (1-500, default 20)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)
    show = sub.add_parser("show", help="one trace in detail")
    show.add_argument("id", help="the trace id (from `cashcode traces list`)")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(func=run_show)


def _invoke(route: str, payload: dict[str, Any]) -> dict[str, Any]:
    from app.cli.runtime import open_plain_app

    async def go() -> dict[str, Any]:
        app = open_plain_app(os.environ)
        try:
            return await app.invoke(route, payload)
        finally:
            await app.aclose()

    return asyncio.run(go())


def _unknown(value: object, fmt: str = "{}") -> str:
    return "unknown" if value is None else fmt.format(value)


def run_list(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 500:
        return fail("--limit must be between 1 and 500")
    answer = _invoke("traces.list", {"limit": args.limit})
    if not answer["ok"]:
        return fail(answer["error"]["message"])
    traces = answer["data"]["traces"]
    if args.json:
        print(json.dumps(traces, indent=2, ensure_ascii=False))
        return 0
    if not traces:
        print("No traces yet.", file=sys.stderr)
        return 0
    for t in traces:
        tokens = f"{_unknown(t['input_tokens'])}/{_unknown(t['output_tokens'])}"
        print(
            f"{t['id']}  {t['started_at'][:19]}  {t['status']:<9}  {t['model']}  "
            f"{t['total_ms'] / 1000:.2f}s  tokens {tokens}  cost {_unknown(t['cost'], '{:.6f}')}"
        )
    return 0


def run_show(args: argparse.Namespace) -> int:
    answer = _invoke("traces.get", {"id": args.id})
    if not answer["ok"]:
        return fail(answer["error"]["message"])
    t = answer["data"]
    if args.json:
        print(json.dumps(t, indent=2, ensure_ascii=False))
        return 0
    rows = [
        ("trace", t["id"]),
        ("chat", t["chat_id"]),
        ("turn", t["turn_id"]),
        ("status", t["status"] + (f" ({t['error_code']})" if t["error_code"] else "")),
        ("provider", t["provider_id"]),
        ("api mode", _unknown(t["api_mode"])),
        ("model", t["model"]),
        ("started", t["started_at"]),
        ("first token", _unknown(t["ttft_ms"], "{:.0f} ms")),
        ("total", f"{t['total_ms']:.0f} ms"),
        ("model calls", str(t["model_calls"])),
        ("input tokens", _unknown(t["input_tokens"])),
        ("output tokens", _unknown(t["output_tokens"])),
        ("cost", _unknown(t["cost"], "{:.6f}")),
    ]
    for label, value in rows:
        print(f"{label + ':':<15}{value}")
    for call in t["tool_calls"]:
        approval = f", approval {call['approval']}" if call["approval"] else ""
        took = _unknown(call["duration_ms"], "{:.0f} ms")
        print(f"  tool {call['name']}: {call['outcome']}, {took}{approval}")
    return 0
