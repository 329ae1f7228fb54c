"""Seed a CashCode data/config dir through the real API, in its own process (so the keyring
backend selected by the environment — FileKeyring in tests — holds the key).

Usage: python -m tests.desktop.seed --base-url http://127.0.0.1:N/v1 [--model M] [--workspace DIR]
Prints {"provider_id": ...} as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from app.api.bootstrap import build_app
from app.settings.paths import AppPaths


async def seed(base_url: str, model: str, workspace: str | None, api_key: str) -> str:
    app = build_app(AppPaths.from_env(os.environ), os.environ)
    try:
        saved = await app.invoke(
            "providers.save",
            {"name": "Fake LLM", "kind": "chat_completions", "base_url": base_url, "api_key": api_key},
        )
        if not saved["ok"]:
            raise SystemExit(f"providers.save failed: {saved}")
        provider_id: str = saved["data"]["id"]
        # No route sets the model choice directly (chat.send remembers it); seed it like one did.
        app.ctx.settings.remember_model(provider_id, model)
        if workspace is not None:
            updated = await app.invoke("settings.update", {"workspace": workspace})
            if not updated["ok"]:
                raise SystemExit(f"settings.update failed: {updated}")
        return provider_id
    finally:
        await app.aclose()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--workspace")
    parser.add_argument("--api-key", default="sk-test-0123456789")
    args = parser.parse_args()
    provider_id = asyncio.run(seed(args.base_url, args.model, args.workspace, args.api_key))
    print(json.dumps({"provider_id": provider_id}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
