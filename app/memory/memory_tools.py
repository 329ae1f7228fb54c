"""The model's memory tools: explicit memories (remember/search/update/forget), save_memory,
forgetting a MEMORY.md line (forget_memory with `line`) and a line's source (memory_source).

Writes are asked like any other write (ApprovalInfo shows exactly what changes); search is
read-only. The descriptions tell the model to use them only when the user asks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.contracts.errors import say
from app.contracts.tool_args import req_str
from app.contracts.tools import ApprovalInfo, PreparedCall, Tool, ToolContext, ToolError, ToolResult, summary
from app.memory.explicit import MemoryRecord, MemoryRepository, normalize_content, normalize_tags
from app.memory.lines import MemoryLines, SourcedLine
from app.memory.memory_file import MemoryFile, MemoryFileError
from app.memory.provenance import NewLine, Provenance, Tombstones
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
        "asked_by": record.asked_by,
    }


def _sourced_json(found: list[SourcedLine]) -> str:
    lines = [
        {
            "line": s.line,
            "sources": [
                {"author": x.author, "chat_id": x.chat_id, "messages": list(x.cursors), "date": x.created_at}
                for x in s.sources
            ],
        }
        for s in found
    ]
    return json.dumps({"lines": lines}, ensure_ascii=False)


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
        asked_by = f"chat:{ctx.chat_id}" if ctx.chat_id else ""
        record = guarded(lambda: self._repo.add(content, tags, memory_id=mid, asked_by=asked_by))
        return ToolResult(ok=True, content=json.dumps({"remembered": _as_json(record)}, ensure_ascii=False))


class SearchMemoriesTool(Tool):
    name = "search_memories"
    description = (
        "Search long-term memories. Every keyword must occur in the text or a tag, and every tag "
        "given must be present; give at least one keyword or tag." + ONLY_WHEN_ASKED
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
    description = (
        "Forget something: either an explicit memory (`id`, the full memory id) or a line of "
        "MEMORY.md (`line`, its text or a part of it). A forgotten MEMORY.md line is never written "
        "back by Dream or save_memory." + ONLY_WHEN_ASKED
    )
    parameters = {
        "type": "object",
        "properties": {
            "id": string_prop("The full memory id (an explicit memory)."),
            "line": string_prop("The MEMORY.md line to forget (its text or a part of it)."),
        },
        "additionalProperties": False,
    }

    def __init__(self, repo: MemoryRepository, lines: MemoryLines) -> None:
        self._repo = repo
        self._lines = lines

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        if "line" in args and "id" not in args:
            text = req_str(args, "line")
            found = guarded(lambda: self._lines.matching(text))
            if not found:
                raise ToolError(str(say("memory.line_not_found", text=text.strip()[:80])))
            shown = "\n".join(found)
            info = ApprovalInfo(
                title="Forget MEMORY.md lines",
                detail=f"Remove from MEMORY.md and never write back:\n{shown}",
                summary=summary("memory_file_forget", shown),
            )
            return PreparedCall(self.name, args, info, state=("line", text))
        old = guarded(lambda: self._repo.get(req_str(args, "id")))
        info = ApprovalInfo(
            title="Forget a memory",
            detail=f"Delete memory {old.id}:\n{_shown(old.content, old.tags)}",
            summary=summary("memory_delete", _shown(old.content, old.tags), id=old.id),
        )
        return PreparedCall(self.name, args, info, state=old)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        if isinstance(call.state, tuple):
            try:
                done = guarded(lambda: self._lines.forget(call.state[1]))
            except (MemoryFileError, OSError) as exc:
                raise ToolError(str(exc)) from exc
            forgotten = json.dumps({"forgotten_lines": done.lines}, ensure_ascii=False)
            return ToolResult(ok=True, content=forgotten)
        old = call.state
        guarded(lambda: self._repo.delete(old.id, expected_updated_at=old.updated_at))
        return ToolResult(ok=True, content=json.dumps({"forgotten": old.id}))


class MemorySourceTool(Tool):
    name = "memory_source"
    description = (
        "Where lines of MEMORY.md came from: the chat, its message(s) and the date of each line "
        "containing the text (none: written by hand)."
    )
    parameters = {
        "type": "object",
        "properties": {"text": string_prop("The line, or a part of it.")},
        "required": ["text"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, lines: MemoryLines) -> None:
        self._lines = lines

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(self.name, args, None, state=req_str(args, "text"))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        try:
            found = guarded(lambda: self._lines.why(call.state))
        except (MemoryFileError, OSError) as exc:
            raise ToolError(str(exc)) from exc
        return ToolResult(ok=True, content=_sourced_json(found))


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

    def __init__(
        self, memory: MemoryFile, provenance: Provenance, tombstones: Tombstones, *, own: bool = False
    ) -> None:
        self._memory = memory
        self._provenance = provenance
        self._tombstones = tombstones
        # An agent's own MEMORY.md: the approval says so, not the shared file's name.
        self._own = own

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        fact = " ".join(req_str(args, "fact").split())
        if not fact:
            raise ToolError("Argument 'fact' must not be empty.")
        if self._tombstones.forbids(fact) is not None:
            raise ToolError(str(say("memory.line_forgotten")))
        info = ApprovalInfo(
            title="Save to this agent's own memory" if self._own else "Save to MEMORY.md",
            detail=f"- {fact}",
            summary=summary("memory_file_add_own" if self._own else "memory_file_add", fact),
        )
        return PreparedCall(self.name, args, info, state=fact)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        try:
            written = guarded(lambda: self._memory.append_fact(call.state))
        except (MemoryFileError, OSError) as exc:
            raise ToolError(str(exc)) from exc
        # Its source: this chat and the turn's question, dated.
        line = NewLine(f"- {call.state}", ctx.chat_id, (), ctx.turn_id)
        self._provenance.record("save_memory", written.version_id, [line])
        return ToolResult(ok=True, content=f"Saved to MEMORY.md (version {written.version_id}).")
