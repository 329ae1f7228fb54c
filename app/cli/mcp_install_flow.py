"""The install step shared by `cashcode mcp install` of a catalog server, a Registry entry and an
MCP Bundle: ask (unless --yes), then run the install route while printing its progress."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

Call = Callable[["CashCodeApp", str, dict[str, Any]], Awaitable[Any]]


async def confirm_and_install(
    app: CashCodeApp,
    server_id: str,
    route: str,
    payload: dict[str, Any],
    *,
    yes: bool,
    call: Call,
    failure: type[Exception],
) -> dict[str, Any] | None:
    """The install route's answer, or None when the user said no (already told)."""
    if not yes:
        if not sys.stdin.isatty():
            raise failure("add --yes to install without a question (standard input is not a terminal)")
        answer = await asyncio.to_thread(input, "Install? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was installed.")
            return None

    def show(event: Any) -> None:
        if getattr(event, "type", "") == "mcp_catalog_progress" and event.server == server_id:
            if event.kind == "command":
                print(f"$ {event.text}", flush=True)
            elif event.kind == "output":
                print(f"  {event.text}", flush=True)

    stop = app.subscribe(show)
    try:
        done: dict[str, Any] = await call(app, route, payload)
    finally:
        stop()
    return done


async def separately(
    names: list[str], flag: bool, flag_name: str, question: str, failure: type[Exception]
) -> bool | None:
    """A confirmation of its own for what the plan called out (never implied by --yes): the
    flag, or a question on a terminal. None: the user said no."""
    if not names or flag:
        return bool(names)
    if not sys.stdin.isatty():
        raise failure(f"{', '.join(names)}: confirm with {flag_name} (standard input is not a terminal)")
    answer = await asyncio.to_thread(input, f"{question} ({', '.join(names)}) [y/N] ")
    return True if answer.strip().lower() in ("y", "yes") else None
