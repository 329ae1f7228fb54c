"""Import of an earlier CashCode data folder, built from the layout its README documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.importer.api_routes import ImportCapability
from app.importer.models import ImportPath, ImportReport
from tests.api.conftest import AppMaker, err, ok
from tests.importer.fakes import FakeTargets, tree_state

CHAT = "3f2c1a7e-9b8d-4c6e-a5f4-0123456789ab"
SKILL = "---\nname: {name}\ndescription: Review code carefully.\n---\n# {name}\nSteps.\n"


def _history(records: list[Any]) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


@pytest.fixture
def cashcode_folder(tmp_path: Path) -> Path:
    root = tmp_path / "old-cashcode"
    memory = root / "server" / "memory"
    (memory / CHAT).mkdir(parents=True)
    calls = [
        {"id": "call_1", "type": "function", "function": {"name": "web_fetch", "arguments": '{"url": "x"}'}}
    ]
    (memory / CHAT / "history.jsonl").write_text(
        _history(
            [
                {"cursor": 1, "role": "user", "content": "hello"},
                {"cursor": 2, "role": "assistant", "content": "hello!"},
                {"cursor": 3, "role": "user", "content": "fetch the page"},
                {
                    "cursor": 4,
                    "role": "tool_calls",
                    "content": "[TOOL_CALLS: web_fetch]",
                    "tool_calls": calls,
                },
                {"cursor": 5, "role": "tool", "content": "fetch result...", "tool_call_id": "call_1"},
                '{"cursor": 6, "role": "assistant", "content": "broken',
                {"cursor": 7, "role": "assistant", "content": "based on the page content..."},
                {
                    "cursor": 8,
                    "role": "summary",
                    "content": "They said hello, then fetched a page.",
                    "keep_from_cursor": 3,
                },
            ]
        ),
        encoding="utf-8",
    )
    (memory / "notes-chat").mkdir()
    (memory / "notes-chat" / "history.jsonl").write_text(
        _history(
            [
                {"cursor": 1, "role": "user", "content": "second chat"},
                {"cursor": 2, "role": "assistant", "content": "ok"},
            ]
        ),
        encoding="utf-8",
    )
    (memory / ".dream_cursor").write_text("{}", encoding="utf-8")
    (memory / "MEMORY.md").write_text("# Memory\n- The user's name is Cash.\n", encoding="utf-8")
    (memory / "SOUL.md").write_text("You are calm and precise.\n", encoding="utf-8")
    skills = root / "server" / "data" / "skills"
    for source, name, text in (
        ("user", "code-review", SKILL.format(name="code-review")),
        ("user", "renzhi-niuqu", SKILL.format(name="认知扭曲")),  # invalid: name is not the folder's
        ("agent", "taken", SKILL.format(name="taken")),  # conflicts with an existing Skill
    ):
        (skills / source / name).mkdir(parents=True)
        (skills / source / name / "SKILL.md").write_text(text, encoding="utf-8")
    mcp = root / "server" / "data" / "mcp"
    mcp.mkdir(parents=True)
    servers = {
        "servers": [
            {
                "name": "github",
                "title": "GitHub",
                "description": "Issues",
                "url": "https://mcp.example/sse",
                "headers": {"Authorization": "Bearer ghp_secret_value_123"},
            },
            {"name": "broken", "url": "ftp://nope"},
        ]
    }
    (mcp / "servers.json").write_text(json.dumps(servers), encoding="utf-8")
    return root


def _by(report: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in report["items"] if i["kind"] == kind]


async def test_a_cashcode_folder_is_imported_once_with_everything_reported(
    make_app: AppMaker,
    cashcode_folder: Path,
    target_routes: None,
) -> None:
    fakes = FakeTargets(taken_skills=("taken",))
    app, _ = await make_app(capabilities=[fakes])
    before = tree_state(cashcode_folder)

    preview = await ok(app, "import.preview", {"path": str(cashcode_folder)})
    assert preview["source"] == "cashcode" and preview["dry_run"] is True
    assert fakes.calls == [] and (await ok(app, "chats.list"))["chats"] == []
    report = await ok(app, "import.run", {"path": str(cashcode_folder)})

    chats = {c["id"]: c for c in (await ok(app, "chats.list"))["chats"]}
    assert CHAT in chats and len(chats) == 2
    messages = (await ok(app, "chats.get", {"chat_id": CHAT}))["messages"]
    assert [(m["cursor"], m["role"], m["content"]) for m in messages] == [
        (1, "user", "hello"),
        (2, "assistant", "hello!"),
        (3, "user", "fetch the page"),
        (4, "assistant", ""),
        (5, "tool", "fetch result..."),
        (6, "assistant", "based on the page content..."),
    ]
    assert messages[3]["tool_calls"][0]["name"] == "web_fetch"
    assert messages[4]["tool_call_id"] == "call_1"
    # The corrupt line is reported, the rest of the chat is kept.
    assert [i["status"] for i in _by(report, "message")] == ["invalid"]
    assert "line 6" in _by(report, "message")[0]["reason"]
    assert fakes.routes_called("memory.import_summary") == [
        {"chat_id": CHAT, "content": "They said hello, then fetched a page.", "keep_from_cursor": 3}
    ]
    assert fakes.memory_md.startswith("# Memory") and fakes.soul == "You are calm and precise.\n"
    skills = {i["name"]: i for i in _by(report, "skill")}
    assert skills["code-review"]["status"] == "imported"
    assert skills["renzhi-niuqu"]["status"] == "invalid" and "name" in skills["renzhi-niuqu"]["reason"]
    assert skills["taken"]["status"] == "conflict"
    assert list(fakes.skills) == ["code-review"]
    servers = {i["name"].split(" (")[0]: i for i in _by(report, "mcp_server")}
    assert servers["github"]["status"] == "imported" and servers["broken"]["status"] == "invalid"
    assert servers["github"]["name"] == "github (https://mcp.example/sse)"  # the plan says where it is
    created = fakes.routes_called("mcp.servers.create")
    assert created == [
        {
            "name": "github",
            "transport": "sse",
            "url": "https://mcp.example/sse",
            "display_name": "GitHub",
            "description": "Issues",
            "headers": {"Authorization": "Bearer ghp_secret_value_123"},
        }
    ]
    assert "ghp_secret" not in json.dumps(report)  # the report never shows header values
    assert report["imported"] == 2 + 1 + 2 + 1 + 1  # chats, summary, MEMORY+SOUL, Skill, MCP server
    assert report["skipped"] == len(report["items"]) - report["imported"]

    again = await ok(app, "import.run", {"path": str(cashcode_folder)})
    assert again["imported"] == 0
    statuses = {i["status"] for i in again["items"]}
    assert statuses <= {"already_imported", "invalid", "conflict"}
    assert len(fakes.routes_called("mcp.servers.create")) == 1
    assert len((await ok(app, "chats.list"))["chats"]) == 2
    assert tree_state(cashcode_folder) == before


async def test_existing_memory_is_never_overwritten_and_absent_capabilities_are_reported(
    make_app: AppMaker,
    cashcode_folder: Path,
    target_routes: None,
) -> None:
    fakes = FakeTargets()
    fakes.memory_md = "Something the user wrote in this app."
    app, _ = await make_app(capabilities=[fakes])
    # Only memory and Skills "exist" in this build: everything else is reported, not faked.
    narrowed = ImportCapability(
        app,
        app.ctx.db,
        app.ctx.chats,
        app.ctx.ledger,
        available=lambda route: route.startswith(("memory.get", "memory.save", "skills.")),
    )
    report = await narrowed.routes()["import.run"](ImportPath(path=str(cashcode_folder)))
    assert isinstance(report, ImportReport)
    items = {(i.kind, i.name): i for i in report.items}
    assert items[("memory_file", "MEMORY.md")].status == "conflict"
    assert fakes.memory_md == "Something the user wrote in this app."
    for kind in ("soul", "summary", "mcp_server"):
        found = [i for i in report.items if i.kind == kind and i.status == "unavailable"]
        assert found and "route" in found[0].reason, kind
    assert items[("skill", "code-review")].status == "imported"
    # Chats are core: always imported.
    assert sum(1 for i in report.items if i.kind == "chat" and i.status == "imported") == 2


async def test_a_path_that_is_not_a_known_folder_is_refused_and_changes_nothing(
    make_app: AppMaker,
    tmp_path: Path,
) -> None:
    app, _ = await make_app()
    (tmp_path / "empty").mkdir()
    for path in (str(tmp_path / "empty"), "/dev/zero", str(tmp_path / "missing"), "relative/path"):
        error = await err(app, "import.preview", {"path": path})
        assert error["code"] == "invalid", path
    assert (await ok(app, "chats.list"))["chats"] == []


async def test_a_chat_an_older_build_left_partial_is_completed_and_reported(
    make_app: AppMaker,
    cashcode_folder: Path,
    target_routes: None,
) -> None:
    """Issue 24 item 1: an older build wrote turn by turn; killed after the first turn it left
    a chat that every later run skipped as "exists already". Now it is completed in one write."""
    from app.contracts.messages import Message

    app, _ = await make_app(capabilities=[FakeTargets()])
    chats = app.ctx.chats
    chats.create("hello", chat_id=CHAT)  # what the older build did first: the chat, then turns
    chats.append_turn(
        CHAT, "import-1", [Message(role="user", content="hello"), Message(role="assistant", content="hello!")]
    )
    report = await ok(app, "import.run", {"path": str(cashcode_folder)})
    chat = next(i for i in report["items"] if i["kind"] == "chat" and i["name"] == "hello")
    assert chat["status"] == "imported" and "completed" in chat["reason"] and "2 of its 6" in chat["reason"]
    messages = (await ok(app, "chats.get", {"chat_id": CHAT}))["messages"]
    assert [m["content"] for m in messages][-1] == "based on the page content..." and len(messages) == 6


async def test_a_summary_without_keep_from_cursor_is_kept_before_the_message_after_it(
    make_app: AppMaker, tmp_path: Path
) -> None:
    """Issue 39 item 4: an older CashCode wrote summaries without keep_from_cursor; the summary
    is imported (not dropped) and the model's context begins at the first message after it."""
    folder = tmp_path / "old" / "memory" / CHAT
    folder.mkdir(parents=True)
    (folder / "history.jsonl").write_text(
        _history(
            [
                {"cursor": 1, "role": "user", "content": "hello"},
                {"cursor": 2, "role": "assistant", "content": "hello!"},
                {"cursor": 3, "role": "summary", "content": "They greeted each other."},
                {"cursor": 4, "role": "user", "content": "what next?"},
                {"cursor": 5, "role": "assistant", "content": "anything"},
            ]
        ),
        encoding="utf-8",
    )
    app, _ = await make_app()
    report = await ok(app, "import.run", {"path": str(tmp_path / "old")})
    assert [i["status"] for i in _by(report, "summary")] == ["imported"]
    shown = await ok(app, "memory.summaries", {"chat_id": CHAT})
    assert shown["latest"]["content"] == "They greeted each other."
    assert shown["latest"]["keep_from_cursor"] == 3  # the imported "what next?" (1, 2, then 3)
    messages = (await ok(app, "chats.get", {"chat_id": CHAT}))["messages"]
    assert [(m["cursor"], m["content"]) for m in messages][2] == (3, "what next?")
