"""Knowledge embeddings are background work of their provider (issue 34): on a local provider
(the scripted LLM on loopback: one call at a time) a folder added while a turn streams is
indexed at once, but its vectors are asked for only after the turn, never beside it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.api.conftest import AppMaker, add_provider, ok, send

SLOW = {"text": "slow " * 400, "chunk_size": 5, "delay_s": 0.1}
QUIET_S = 1.5  # time the old code needed to send its embeddings request after indexing


def _embeddings(fake_llm: Any) -> list[Any]:
    return [r for r in fake_llm.requests if r.path == "/v1/embeddings"]


async def test_embeddings_wait_for_the_turn_of_their_local_provider(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(3):
        (root / f"n{i}.txt").write_text(f"note number {i} about apples\n", encoding="utf-8")
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "knowledge.settings.save", {"embeddings_provider": pid, "embeddings_model": "fake-embed"})
    fake_llm.script(SLOW)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "talk slowly", pid)
    await events.until(lambda: "delta" in events.types(turn))

    added = await ok(app, "knowledge.add", {"path": str(root)})  # answers while the turn streams
    assert added["base"]["chunks"] == 3 and added["run"]["indexed"] == 3
    await asyncio.sleep(QUIET_S)
    assert "turn_done" not in events.types(turn) and "turn_cancelled" not in events.types(turn)
    assert _embeddings(fake_llm) == []  # nothing beside the turn
    listed = await ok(app, "knowledge.list")
    assert [(b["embedded"], b["chunks"]) for b in listed["bases"]] == [(0, 3)]

    await ok(app, "chat.cancel", {"chat_id": chat["id"]})
    await events.until(lambda: "turn_cancelled" in events.types(turn))
    ended = len(fake_llm.requests)

    async def embedded() -> bool:
        bases = (await ok(app, "knowledge.list"))["bases"]
        return [(b["embedded"], b["chunks"]) for b in bases] == [(3, 3)]

    for _ in range(200):
        if await embedded():
            break
        await asyncio.sleep(0.05)
    assert await embedded()
    after = _embeddings(fake_llm)
    assert after and all(fake_llm.requests.index(r) >= ended for r in after)
