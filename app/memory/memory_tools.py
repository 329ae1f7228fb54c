"""The model's memory tools: explicit memories (remember/search/update/forget) and save_memory.

Writes are asked like any other write (ApprovalInfo shows exactly what changes); search is
read-only. The descriptions tell the model to use them only when the user asks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.contracts.tool_args import req_str
from app.contracts.tools import ApprovalInfo, PreparedCall, Tool, ToolContext, ToolError, ToolResult, summary
from app.memory.explicit import MemoryRecord, MemoryRepository, normalize_content, normalize_tags
from app.memory.memory_file import MemoryFile, MemoryFileError
from app.memory.tool_base import guarded, list_prop, str_list, string_prop
from app.store.ids import new_id

ONLY_WHEN_ASKED = " Use only when the user explicitly asks to remember, recall, change or forget something."


def _as_json(record: MemoryRecord) -> dict[str, object]:
    return {
        "id": record.id,
        "content": record.content,
        "tags": list(record.tags),
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def _shown(content: str, tags: tuple[str, ...]) -> str:
    return content + (f"\nTags: {', '.join(tags)}" if tags else "")


class RememberMemoryTool(Tool):
    name = "remember_memory"
    description = (
        "Store a new long-term memory (a fact, preference or decision) with optional tags." + ONLY_WHEN_ASKED
    )
    parameters = {
        "type": "object",
        "properties": {"content": string_prop("The memory text."), "tags": list_prop("Optional tags.")},
        "required": ["content"],
        "additionalProperties": False,
    }

    def __init__(self, repo: MemoryRepository) -> None:
        self._repo = repo

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        content = guarded(lambda: normalize_content(req_str(args, "content")))
        tags = guarded(lambda: normalize_tags(str_list(args, "tags")))
        guarded(lambda: self._repo.refuse_duplicate(content))  # before the user is asked, not after
        mid = new_id()  # the id shown in the confirmation is the one written
        info = ApprovalInfo(
            title="Remember a memory",
            detail=f"New memory {mid}:\n{_shown(content, tags)}",
            summary=summary("memory_add", _shown(content, tags), id=mid),
        )
        return PreparedCall(self.name, args, info, state=(mid, content, tags))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        mid, content, tags = call.state
        record = guarded(lambda: self._repo.add(content, tags, memory_id=mid))
        return ToolResult(ok=True, content=json.dumps({"remembered": _as_json(record)}, ensure_ascii=False))


class SearchMemoriesTool(Tool):
    name = "search_memories"
    description = (
        "Search long-term memories. Every keyword must occur in the text or a tag, and every tag "
        "given must be present. No keywords and no tags lists the newest memories." + ONLY_WHEN_ASKED
    )
    parameters = {
        "type": "object",
        "properties": {
            "keywords": list_prop("Words that must all match."),
            "tags": list_prop("Required tags."),
        },
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, repo: MemoryRepository) -> None:
        self._repo = repo

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(self.name, args, None, state=(str_list(args, "keywords"), str_list(args, "tags")))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        words, tags = call.state
        found = guarded(lambda: self._repo.search(words, tags, limit=50))
        return ToolResult(
            ok=True, content=json.dumps({"memories": [_as_json(r) for r in found]}, ensure_ascii=False)
        )


class UpdateMemoryTool(Tool):
    name = "update_memory"
    description = "Replace a memory's text and tags entirely (full id required)." + ONLY_WHEN_ASKED
    parameters = {
        "type": "object",
        "properties": {
            "id": string_prop("The full memory id."),
            "content": string_prop("The new text."),
            "tags": list_prop("The new tags (replace the old ones)."),
        },
        "required": ["id", "content"],
        "additionalProperties": False,
    }

    def __init__(self, repo: MemoryRepository) -> None:
        self._repo = repo

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        old = guarded(lambda: self._repo.get(req_str(args, "id")))
        content = guarded(lambda: normalize_content(req_str(args, "content")))
        tags = guarded(lambda: normalize_tags(str_list(args, "tags")))
        guarded(lambda: self._repo.refuse_duplicate(content, memory_id=old.id))
        detail = (
            f"Memory {old.id}\nBefore:\n{_shown(old.content, old.tags)}\n\nAfter:\n{_shown(content, tags)}"
        )
        exact = f"- {_shown(old.content, old.tags)}\n+ {_shown(content, tags)}"
        info = ApprovalInfo(
            title="Change a memory", detail=detail, summary=summary("memory_change", exact, id=old.id)
        )
        return PreparedCall(self.name, args, info, state=(old, content, tags))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        old, content, tags = call.state
        record = guarded(lambda: self._repo.update(old.id, content, tags, expected_updated_at=old.updated_at))
        return ToolResult(ok=True, content=json.dumps({"updated": _as_json(record)}, ensure_ascii=False))


class ForgetMemoryTool(Tool):
    name = "forget_memory"
    description = "Delete a memory (full id required)." + ONLY_WHEN_ASKED
    parameters = {
        "type": "object",
        "properties": {"id": string_prop("The full memory id.")},
        "required": ["id"],
        "additionalProperties": False,
    }

    def __init__(self, repo: MemoryRepository) -> None:
        self._repo = repo

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        old = guarded(lambda: self._repo.get(req_str(args, "id")))
        info = ApprovalInfo(
            title="Forget a memory",
            detail=f"Delete memory {old.id}:\n{_shown(old.content, old.tags)}",
            summary=summary("memory_delete", _shown(old.content, old.tags), id=old.id),
        )
        return PreparedCall(self.name, args, info, state=old)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        old = call.state
        guarded(lambda: self._repo.delete(old.id, expected_updated_at=old.updated_at))
        return ToolResult(ok=True, content=json.dumps({"forgotten": old.id}))


class SaveMemoryTool(Tool):
    name = "save_memory"
    description = (
        "Append one important, durable fact to MEMORY.md (the long-term memory shown in every "
        "conversation) right away."
    )
    parameters = {
        "type": "object",
        "properties": {"fact": string_prop("One short fact, one line.")},
        "required": ["fact"],
        "additionalProperties": False,
    }

    def __init__(self, memory: MemoryFile) -> None:
        self._memory = memory

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        fact = " ".join(req_str(args, "fact").split())
        if not fact:
            raise ToolError("Argument 'fact' must not be empty.")
        info = ApprovalInfo(
            title="Save to MEMORY.md", detail=f"- {fact}", summary=summary("memory_file_add", fact)
        )
        return PreparedCall(self.name, args, info, state=fact)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        try:
            written = guarded(lambda: self._memory.append_fact(call.state))
        except (MemoryFileError, OSError) as exc:
            raise ToolError(str(exc)) from exc
        return ToolResult(ok=True, content=f"Saved to MEMORY.md (version {written.version_id}).")
