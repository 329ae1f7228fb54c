"""A stdio server's stderr log masks the server's secrets in every form it prints them (issue 23
item 10) and is readable by the user only."""

from __future__ import annotations

import base64
import stat
import urllib.parse
from pathlib import Path
from typing import Any

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, ok
from tests.mcp.helpers import add_rough

SECRET = "s3cret/env+value=9931?"


async def test_the_stderr_log_masks_raw_base64_and_url_encoded_secrets(
    make_app: AppMaker, paths: AppPaths
) -> None:
    app, _ = await make_app()
    await add_rough(app, "rough", "--print-token", env={"ROUGH_TOKEN": SECRET}, secret_env=["ROUGH_TOKEN"])
    await ok(app, "mcp.servers.connect", {"name": "rough"})
    log = Path(paths.log_dir) / "mcp" / "rough.stderr.log"
    text = ""
    for _ in range(100):  # the copier thread writes each line as the child prints it
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        if "ready" in text:
            break
        await _sleep()
    await app.aclose()
    assert "ready" in text and "token raw: ********" in text
    forms = (SECRET, urllib.parse.quote(SECRET, safe=""), base64.b64encode(SECRET.encode()).decode()[4:-4])
    for form in forms:
        assert form not in text, (form, text)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


async def _sleep() -> Any:
    import asyncio

    await asyncio.sleep(0.05)
