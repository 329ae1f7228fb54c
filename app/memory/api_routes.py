"""The memory routes' types (merged into app/api/route_types.py with one line)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from app.contracts import replies as m
from app.memory import api_models as a

ROUTE_TYPES: Mapping[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "memories.add": (a.MemoriesAdd, a.MemoryItem),
    "memories.list": (a.MemoriesList, a.MemoryItems),
    "memories.get": (a.MemoryRef, a.MemoryItem),
    "memories.search": (a.MemoriesSearch, a.MemoryItems),
    "memories.update": (a.MemoriesUpdate, a.MemoryItem),
    "memories.delete": (a.MemoriesDelete, a.MemoryItem),
    "memory.get": (a.MemoryOwner, a.MemoryDoc),
    "memory.save": (a.MemorySave, a.MemoryDoc),
    "memory.versions": (a.MemoryOwner, a.MemoryVersionList),
    "memory.version": (a.MemoryVersionRef, a.MemoryVersionText),
    "memory.revert": (a.MemoryVersionRef, a.MemoryDoc),
    "memory.why": (a.LineText, a.MemoryWhy),
    "memory.forget": (a.LineText, a.ForgetResult),
    "memory.forgotten": (a.MemoryOwner, a.ForgottenList),
    "memory.unforget": (a.ForgottenRef, a.ForgottenItem),
    "memory.summaries": (a.SummariesQuery, a.SummaryList),
    "memory.import_summary": (a.ImportSummary, a.SummaryItem),
    "memory.settings": (m.Empty, a.MemorySettings),
    "memory.settings_update": (a.MemorySettingsPatch, a.MemorySettings),
    "dream.run": (a.DreamRun, a.DreamResult),
    "dream.proposals": (m.Empty, a.DreamProposalList),
    "dream.accept": (a.DreamProposalRef, a.MemoryDoc),
    "dream.reject": (a.DreamProposalRef, m.Ok),
    "soul.get": (m.Empty, a.SoulDoc),
    "soul.save": (a.SoulSave, a.SoulDoc),
    "notes.create": (a.NoteCreate, a.NoteItem),
    "notes.list": (m.Empty, a.NoteList),
    "notes.get": (a.ItemRef, a.NoteItem),
    "notes.delete": (a.ItemRef, m.Ok),
    "todos.create": (a.TodoCreate, a.TodoItem),
    "todos.list": (m.Empty, a.TodoList),
    "todos.complete": (a.ItemRef, a.TodoItem),
    "todos.delete": (a.ItemRef, m.Ok),
}
