"""What the Inbox's serve tests share: the CLI in a subprocess, the seeded provider, REST calls
and a bounded wait (a hang check, not a timing assertion)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import httpx2

WAIT_S = 60.0


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], env=env, capture_output=True, text=True, timeout=60
    )


def inbox(env: dict[str, str], *flags: str) -> list[dict[str, Any]]:
    shown = cli(env, "inbox", "--json", *flags)
    assert shown.returncode == 0, shown.stderr
    items: list[dict[str, Any]] = json.loads(shown.stdout)
    return items


def seed(env: dict[str, str], base_url: str) -> None:
    """A provider on the scripted LLM, saved as the desktop tests do."""
    out = subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr


async def invoke(
    client: httpx2.AsyncClient, headers: dict[str, str], route: str, body: dict[str, Any]
) -> Any:
    return (await client.post(f"/api/invoke/{route}", json=body, headers=headers)).json()


async def until(check: Any) -> Any:
    async with asyncio.timeout(WAIT_S):
        while True:
            found = await check()
            if found:
                return found
            await asyncio.sleep(0.2)
