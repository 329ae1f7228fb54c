"""`--agent NAME` on `ask`, `chat`, `tasks add` and the memory commands: the agent's id, or the
command's exit code after saying why not (issue 38). A module of its own so that every command
can use it without importing another command's module."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


async def agent_id(app: CashCodeApp, name: str) -> str | int:
    """The id of the agent NAME, or 1 after printing the error (an unknown name says so)."""
    from app.cli.render import error_line

    found = await app.invoke("agents.get", {"agent_id": name})
    if not found["ok"]:
        print(error_line(found["error"]), file=sys.stderr)
        return 1
    found_id: str = found["data"]["id"]
    return found_id
