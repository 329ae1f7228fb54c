"""Bad input on `/ws` and `/api/invoke` never crashes a connection or leaves debris (issue 24.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import (  # noqa: F401  (fixtures used by name)
    AppMaker,
    fake_llm,
    make_app,
    ok,
    paths,
    secrets,
    workspace,
)
from tests.server.conftest import Served, serve_built
from tests.server.test_script_ws import recv, script_socket, served_app, until_done  # noqa: F401

WRONG_METADATA = [
    {"selected_mcp_connectors": 5},
    {"mentioned_skills": "code-review"},
    {"mentioned_skills": [3]},
    {"mentioned_skills": [{"name": 7}]},
    {"selected_mcp_connectors": [{"server": ["x"]}]},
    "metadata as text",
]


@pytest.mark.parametrize("metadata", WRONG_METADATA)
async def test_wrong_typed_metadata_gets_an_error_frame_and_stores_nothing(
    served_app: Served,  # noqa: F811
    metadata: Any,
) -> None:
    app: Any = served_app.app
    async with script_socket(served_app) as ws:
        chat_id = (await recv(ws))["chat_id"]
        await ws.send(
            json.dumps({"type": "message", "chat_id": chat_id, "content": "hi", "metadata": metadata})
        )
        frame = await recv(ws)
        assert frame["event"] == "error" and frame["chat_id"] == chat_id, frame
        assert "metadata" in frame["detail"]
        await ws.send(json.dumps({"type": "ping"}))  # the socket is still open and answering
        assert (await recv(ws))["event"] == "pong"
    assert (await ok(app, "chats.list"))["chats"] == []


async def test_selections_are_checked_by_name_rules_trimmed_and_collapsed(
    served_app: Served,  # noqa: F811
    fake_llm: Any,  # noqa: F811
) -> None:
    app: Any = served_app.app
    fake_llm.script({"text": "ok"})
    async with script_socket(served_app) as ws:
        chat_id = (await recv(ws))["chat_id"]
        bad = {"mentioned_skills": [{"name": "../etc"}]}
        await ws.send(json.dumps({"type": "message", "chat_id": chat_id, "content": "hi", "metadata": bad}))
        frame = await recv(ws)
        assert frame["event"] == "error", frame
        good = {
            "mentioned_skills": [
                {"name": "code-review", "label": "  Code\n Review " + "x" * 200},
                {"name": "code-review", "label": "again"},
            ],
            "selected_mcp_connectors": [{"server": "github"}, {"server": "github"}],
        }
        await ws.send(json.dumps({"type": "message", "chat_id": chat_id, "content": "hi", "metadata": good}))
        await until_done(ws)
    user = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"][0]
    labels = [(m["kind"], m["name"], m["label"]) for m in user["mentions"]]
    assert labels == [
        ("skill", "code-review", ("Code Review " + "x" * 200)[:80]),
        ("mcp", "github", "github"),
    ]


async def test_chat_cancel_validates_the_chat_id(make_app: AppMaker) -> None:  # noqa: F811
    app, _ = await make_app()
    for bad in ("..", "../x", "not-a-uuid"):
        answer = await app.invoke("chat.cancel", {"chat_id": bad})
        assert answer["ok"] is False and answer["error"]["code"] == "invalid", answer


async def test_a_huge_integer_in_a_body_is_a_400_not_a_500(served: Served) -> None:
    body = b'{"limit": ' + b"9" * 100_000 + b"}"
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chats.list"),
            content=body,
            headers={"origin": served.origin, "content-type": "application/json", **served.cookie_header},
        )
    assert response.status_code == 400
    assert response.json()["ok"] is False and response.json()["error"]["code"] == "invalid"
    assert served.app.calls == []


class _Failing:
    """An app whose routes fail inside: the envelope the real app makes for an unexpected error."""

    def __init__(self) -> None:
        from tests.server.conftest import StubBus

        self.bus = StubBus()

    async def invoke(self, route: str, payload: Any) -> dict[str, Any]:
        message = f"Internal error in {route} (KeyError); see the log for details."
        return {"ok": False, "error": {"code": "internal", "message": message, "details": {}}}

    def routes(self) -> dict[str, Any]:
        return {}

    async def aclose(self) -> None:
        return None


async def test_an_internal_error_is_a_500_naming_the_request_id(static_dir: Path) -> None:
    async with serve_built(static_dir, _Failing()) as served, served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chats.list"),
            json={},
            headers={"origin": served.origin, **served.cookie_header},
        )
    assert response.status_code == 500
    request_id = response.headers["x-request-id"]
    assert response.json()["error"]["details"]["request_id"] == request_id
