"""Install an agent package in this process and freeze at a named step, so the test can SIGKILL
it there. Usage: python -m tests.agents.package_crash_worker PACKAGE STEP (env: the profile)."""

from __future__ import annotations

import asyncio
import os
import sys
import time


def main(package: str, step: str) -> int:
    from app.agents.capability import AgentsCapability
    from app.cli.runtime import open_plain_app

    async def run() -> int:
        app = open_plain_app(os.environ)
        try:
            agents = app.capabilities.get("agents")
            assert isinstance(agents, AgentsCapability)

            def hook(name: str) -> None:
                if name == step:
                    print(f"PAUSED {name}", flush=True)
                    time.sleep(600)

            agents.packages.hook = hook
            shown = await app.invoke("agents.import_preview", {"path": package})
            done = await app.invoke("agents.import", {"path": package, "digest": shown["data"]["digest"]})
            print("DONE" if done["ok"] else f"FAILED {done}", flush=True)
        finally:
            await app.aclose()
        return 0

    return asyncio.run(run())


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
