"""The memory routes' contract (CONTRACTS.md, section Memory): shapes, bad input, stale writes."""

from __future__ import annotations

from tests.api.conftest import AppMaker, err, ok


async def test_memories_routes_follow_the_contract(make_app: AppMaker) -> None:
    app, _ = await make_app()
    added = await ok(app, "memories.add", {"content": "Prefers uv", "tags": ["Python", "tooling"]})
    fields = {"id", "content", "tags", "created_at", "updated_at", "asked_by"}
    assert set(added) == fields and added["tags"] == [
        "python",
        "tooling",
    ]
    assert (await err(app, "memories.add", {"content": "x", "tags": ["a b"]}))["code"] == "invalid"
    assert (await err(app, "memories.add", {"content": "  "}))["code"] == "invalid"
    assert (await err(app, "memories.add", {"content": "x", "extra": 1}))["code"] == "invalid"

    found = await ok(app, "memories.search", {"words": ["UV"], "tags": ["python"]})
    assert [m["id"] for m in found["memories"]] == [added["id"]] and found["more"] is False
    assert (await ok(app, "memories.search", {"words": ["uv", "pip"], "tags": []}))["memories"] == []
    # Issue 39 item 5: the same errors as the CLI and the tool.
    for words, said in (
        ([], "say what to search for: give at least one word or tag"),
        (["  "], "a search word must not be blank"),
        (["x" * 501], "a search is limited to 500 characters"),
    ):
        refused = await err(app, "memories.search", {"words": words, "tags": []})
        assert refused["code"] == "invalid" and refused["message"] == said

    updated = await ok(app, "memories.update", {"id": added["id"], "content": "Prefers uv sync", "tags": []})
    stale = await err(
        app,
        "memories.update",
        {"id": added["id"], "content": "lost", "tags": [], "expected_updated_at": added["updated_at"]},
    )
    assert stale["code"] == "conflict"
    assert (await ok(app, "memories.get", {"id": added["id"]}))["content"] == "Prefers uv sync"
    assert (await err(app, "memories.delete", {"id": added["id"][:8]}))["code"] == "invalid"
    await ok(app, "memories.delete", {"id": added["id"], "expected_updated_at": updated["updated_at"]})
    assert (await err(app, "memories.delete", {"id": added["id"]}))["code"] == "not_found"

    for i in range(3):
        await ok(app, "memories.add", {"content": f"fact {i}", "tags": []})
    page = await ok(app, "memories.list", {"limit": 2})
    assert (
        [m["content"] for m in page["memories"]] == ["fact 2", "fact 1"]
        and page["more"]
        and page["total"] == 3
    )


async def test_memory_md_routes_save_conflict_and_revert(make_app: AppMaker) -> None:
    app, _ = await make_app()
    first = await ok(app, "memory.save", {"text": "- a"})
    await ok(app, "memory.save", {"text": "- b", "base_hash": first["hash"]})
    stale = await err(app, "memory.save", {"text": "- c", "base_hash": first["hash"]})
    assert stale["code"] == "conflict"
    versions = (await ok(app, "memory.versions"))["versions"]
    assert [v["author"] for v in versions] == ["user", "user"]
    assert (await ok(app, "memory.version", {"version_id": versions[-1]["id"]}))["text"] == "- a\n"
    reverted = await ok(app, "memory.revert", {"version_id": versions[-1]["id"]})
    assert reverted["text"] == "- a\n" and (await ok(app, "memory.get"))["text"] == "- a\n"
    assert (await err(app, "memory.revert", {"version_id": 999}))["code"] == "not_found"
    settings = await ok(app, "memory.settings")
    assert settings == {
        "consolidation_chars": 40000,
        "dream_enabled": True,
        "dream_interval_minutes": 5,
        "dream_review": False,
    }
    assert (await err(app, "memory.settings_update", {"consolidation_chars": 10}))["code"] == "invalid"
