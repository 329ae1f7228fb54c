"""Issue 40 item 1: `chats.delete` racing `chat.send` over the served API is ordered.

One of the two wins, the other is refused (`busy` or `not_found`); no turn starts on a deleted
chat and no turn ends in an internal error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.contracts.events import SessionDeleted, TurnFailed, TurnStarted
from tests.api.conftest import (  # noqa: F401
    AppMaker,
    add_provider,
    fake_llm,
    make_app,
    paths,
    secrets,
    workspace,
)
from tests.server.conftest import Served, serve_built

RACES = 100


async def _invoke(served: Served, client: Any, route: str, payload: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(f"/api/invoke/{route}", json=payload, headers=served.bearer)
    assert response.status_code == 200, response.text
    envelope: dict[str, Any] = response.json()
    return envelope


async def test_delete_and_send_race_never_starts_a_turn_on_a_deleted_chat(
    make_app: AppMaker,  # noqa: F811
    fake_llm: Any,  # noqa: F811
    static_dir: Path,
) -> None:
    app, events = await make_app()
    provider_id = await add_provider(app, fake_llm, "chat_completions")
    model = {"provider_id": provider_id, "model": "fake-model"}
    outcomes: set[tuple[bool, bool]] = set()
    async with serve_built(static_dir, app) as served, served.client() as client:
        for _ in range(RACES):
            chat = await _invoke(served, client, "chats.create", {})
            chat_id = chat["data"]["id"]
            sent, deleted = await asyncio.gather(
                _invoke(served, client, "chat.send", {"chat_id": chat_id, "text": "hi", "model": model}),
                _invoke(served, client, "chats.delete", {"chat_id": chat_id}),
            )
            # Exactly one wins; the loser says why in the agreed codes.
            assert sent["ok"] != deleted["ok"], (sent, deleted)
            loser = deleted if sent["ok"] else sent
            assert loser["error"]["code"] in ("busy", "not_found"), loser
            outcomes.add((sent["ok"], deleted["ok"]))
            if sent["ok"]:
                await events.turn_end(sent["data"]["turn_id"])
                assert (await _invoke(served, client, "chats.delete", {"chat_id": chat_id}))["ok"]
            # No turn event for a chat after its deletion.
            mine = [e for e in events.events if getattr(e, "chat_id", None) == chat_id]
            gone = next(i for i, e in enumerate(mine) if isinstance(e, SessionDeleted))
            assert mine[gone + 1 :] == [], mine[gone:]
            assert len([e for e in mine if isinstance(e, TurnStarted)]) <= 1
    assert events.of(TurnFailed) == []
    assert events.of(TurnStarted), "no send ever won: the race was not exercised"
