"""Notes and todo tools for the model. Create/complete/delete are asked; list/get are read-only."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, ClassVar

from app.contracts.events import ApprovalSummaryCode
from app.contracts.tool_args import opt_str, req_str
from app.contracts.tools import ApprovalInfo, PreparedCall, Tool, ToolContext, ToolResult, summary
from app.memory.notes import NotesRepository
from app.memory.tool_base import guarded, string_prop

_ID = {
    "type": "object",
    "properties": {"id": string_prop("The full id.")},
    "required": ["id"],
    "additionalProperties": False,
}
_NONE = {"type": "object", "properties": {}, "additionalProperties": False}


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


class _NotesTool(Tool):
    def __init__(self, repo: NotesRepository) -> None:
        self._repo = repo


class _ListingTool(_NotesTool):
    """No arguments, nothing to ask: returns the listing as JSON."""

    parameters = _NONE
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(self.name, args, None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        return ToolResult(ok=True, content=_json(self._listing()))

    @abstractmethod
    def _listing(self) -> dict[str, object]: ...


class _ByIdTool(_NotesTool):
    """Changes one record named by its full id; the approval names the record (looked up in
    `prepare`, so a wrong id is an error before anything is asked)."""

    parameters = _ID
    approval_title: ClassVar[str]
    approval_code: ClassVar[ApprovalSummaryCode]

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        record_id, detail = guarded(lambda: self._describe(req_str(args, "id")))
        shown = summary(self.approval_code, detail)
        info = ApprovalInfo(title=self.approval_title, detail=detail, summary=shown)
        return PreparedCall(self.name, args, info, state=record_id)

    @abstractmethod
    def _describe(self, record_id: str) -> tuple[str, str]:
        """(the record's id, what the approval shows); raises NotFound for a wrong id."""


class CreateNoteTool(_NotesTool):
    name = "create_note"
    description = "Create a note (a title and Markdown content)."
    parameters = {
        "type": "object",
        "properties": {"title": string_prop("Short title."), "content": string_prop("Note text.")},
        "required": ["title"],
        "additionalProperties": False,
    }

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        title, content = req_str(args, "title"), opt_str(args, "content") or ""
        detail = f"{title}\n\n{content}".strip()
        info = ApprovalInfo(title="Create a note", detail=detail, summary=summary("note_create", detail))
        return PreparedCall(self.name, args, info, state=(title, content))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        note = guarded(lambda: self._repo.create_note(*call.state))
        return ToolResult(ok=True, content=_json({"created": asdict(note)}))


class ListNotesTool(_ListingTool):
    name = "list_notes"
    description = "List notes (id, title, time)."

    def _listing(self) -> dict[str, object]:
        notes = self._repo.list_notes()
        return {"notes": [{"id": n.id, "title": n.title, "updated_at": n.updated_at} for n in notes]}


class GetNoteTool(_NotesTool):
    name = "get_note"
    description = "Read one note by its full id."
    parameters = _ID
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(self.name, args, None, state=req_str(args, "id"))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        note = guarded(lambda: self._repo.get_note(call.state))
        return ToolResult(ok=True, content=_json(asdict(note)))


class DeleteNoteTool(_ByIdTool):
    name = "delete_note"
    description = "Delete a note by its full id."
    approval_title = "Delete a note"
    approval_code = "note_delete"

    def _describe(self, record_id: str) -> tuple[str, str]:
        note = self._repo.get_note(record_id)
        return note.id, f"{note.id}: {note.title}"

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        guarded(lambda: self._repo.delete_note(call.state))
        return ToolResult(ok=True, content=_json({"deleted": call.state}))


class CreateTodoTool(_NotesTool):
    name = "create_todo"
    description = "Add a todo item."
    parameters = {
        "type": "object",
        "properties": {"title": string_prop("What to do.")},
        "required": ["title"],
        "additionalProperties": False,
    }

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        title = req_str(args, "title")
        info = ApprovalInfo(title="Add a todo", detail=title, summary=summary("todo_add", title))
        return PreparedCall(self.name, args, info, state=title)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        todo = guarded(lambda: self._repo.create_todo(call.state))
        return ToolResult(ok=True, content=_json({"created": asdict(todo)}))


class ListTodosTool(_ListingTool):
    name = "list_todos"
    description = "List todo items (open first)."

    def _listing(self) -> dict[str, object]:
        return {"todos": [asdict(t) for t in self._repo.list_todos()]}


class _TodoByIdTool(_ByIdTool):
    def _describe(self, record_id: str) -> tuple[str, str]:
        todo = self._repo.get_todo(record_id)
        return todo.id, todo.title


class CompleteTodoTool(_TodoByIdTool):
    name = "complete_todo"
    description = "Mark a todo item done by its full id."
    approval_title = "Complete a todo"
    approval_code = "todo_complete"

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        todo = guarded(lambda: self._repo.complete_todo(call.state))
        return ToolResult(ok=True, content=_json({"completed": asdict(todo)}))


class DeleteTodoTool(_TodoByIdTool):
    name = "delete_todo"
    description = "Delete a todo item by its full id."
    approval_title = "Delete a todo"
    approval_code = "todo_delete"

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        guarded(lambda: self._repo.delete_todo(call.state))
        return ToolResult(ok=True, content=_json({"deleted": call.state}))


NOTES_TOOLS = (
    CreateNoteTool,
    ListNotesTool,
    GetNoteTool,
    DeleteNoteTool,
    CreateTodoTool,
    ListTodosTool,
    CompleteTodoTool,
    DeleteTodoTool,
)
