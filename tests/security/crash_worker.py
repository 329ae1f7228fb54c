"""Worker for the kill -9 tests: keeps writing until it is killed. Not a test module.

`python -m tests.security.crash_worker settings <config_dir>` rewrites settings in a loop;
`python -m tests.security.crash_worker turns <home> <openai_base_url> <key>` runs turns and prints
`DONE <turn_id>` after each completed one (flushed, so the parent knows what must survive).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path


def settings_loop(config_dir: Path) -> None:
    from app.settings.user_settings import SettingsStore, UserSettings

    store = SettingsStore(config_dir / "settings.json")
    i = 0
    while True:
        i += 1
        names = [f"NAME_{j}" for j in range(i % 40)]
        change = {"max_iterations": i % 200 + 1, "exec_env": names}

        def apply(s: UserSettings, change: dict[str, object] = change) -> UserSettings:
            return s.model_copy(update=change)

        store.update(apply)
        print(f"SAVED {i}", flush=True)


async def turns_loop(home: Path, base_url: str, key: str) -> None:
    from app.api.bootstrap import build_app
    from app.contracts.events import TurnDone, TurnFailed
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    paths = AppPaths(home / "data", home / "config", home / "logs", home / "cache")
    ws = home / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.txt").write_text("a\n")
    app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()), workspace=ws)
    saved = await app.invoke(
        "providers.save", {"name": "Fake", "kind": "chat_completions", "base_url": base_url, "api_key": key}
    )
    pid = saved["data"]["id"]
    done: asyncio.Queue[str] = asyncio.Queue()
    app.subscribe(lambda e: done.put_nowait(e.turn_id) if isinstance(e, TurnDone | TurnFailed) else None)
    while True:
        chat = (await app.invoke("chats.create", {}))["data"]["id"]
        for _ in range(3):
            ref = await app.invoke(
                "chat.send",
                {"chat_id": chat, "text": "go", "model": {"provider_id": pid, "model": "fake-model"}},
            )
            turn = ref["data"]["turn_id"]
            while await done.get() != turn:
                pass
            print(f"DONE {turn}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "settings":
        settings_loop(Path(sys.argv[2]))
    else:
        asyncio.run(turns_loop(Path(sys.argv[2]), sys.argv[3], sys.argv[4]))
