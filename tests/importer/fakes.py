"""Stand-ins for the capabilities the importer reaches by route (memory, notes, todos, Skills,
MCP), with the payload fields of CONTRACTS.md. They record what they were given."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from app.api import route_types
from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure
from app.core.prompt import DEFAULT_PERSONA


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Empty(_M):
    pass


class Text(_M):
    text: str
    base_hash: str | None = None


class TextView(_M):
    text: str
    hash: str
    is_default: bool = False  # the real soul.get: the built-in persona while no SOUL.md exists


class MemoryAdd(_M):
    content: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)


class NoteCreate(_M):
    title: str = Field(min_length=1)
    content: str


class TodoCreate(_M):
    title: str = Field(min_length=1)


class IdRef(_M):
    id: str


class Summary(_M):
    chat_id: str
    content: str
    keep_from_cursor: int


class McpCreate(_M):
    name: str
    transport: str
    display_name: str | None = None
    description: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None


class SkillImport(_M):
    path: str


class Created(_M):
    id: str = ""


TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "memory.get": (Empty, TextView),
    "memory.save": (Text, TextView),
    "soul.get": (Empty, TextView),
    "soul.save": (Text, TextView),
    "memories.add": (MemoryAdd, Created),
    "notes.create": (NoteCreate, Created),
    "todos.create": (TodoCreate, Created),
    "todos.complete": (IdRef, Created),
    "memory.import_summary": (Summary, Created),
    "mcp.servers.create": (McpCreate, Created),
    "skills.import": (SkillImport, Created),
}


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class FakeTargets(Capability):
    name = "fake-targets"

    def __init__(self, taken_skills: tuple[str, ...] = ()) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.memory_md = ""
        self.soul = ""
        self.skills: dict[str, str] = {}  # name -> SKILL.md text
        self.taken = set(taken_skills)

    def routes(self) -> Mapping[str, Handler]:
        def record(route: str, req: BaseModel) -> None:
            self.calls.append((route, req.model_dump(exclude_none=True)))

        async def memory_get(req: Empty) -> TextView:
            return TextView(text=self.memory_md, hash=_hash(self.memory_md))

        async def memory_save(req: Text) -> TextView:
            record("memory.save", req)
            self.memory_md = req.text
            return TextView(text=req.text, hash=_hash(req.text))

        async def soul_get(req: Empty) -> TextView:
            if not self.soul:  # as the app answers before any SOUL.md: the default persona
                return TextView(text=DEFAULT_PERSONA, hash=_hash(DEFAULT_PERSONA), is_default=True)
            return TextView(text=self.soul, hash=_hash(self.soul))

        async def soul_save(req: Text) -> TextView:
            record("soul.save", req)
            self.soul = req.text
            return TextView(text=req.text, hash=_hash(req.text))

        def creator(route: str) -> Handler:
            async def create(req: Any) -> Created:
                record(route, req)
                return Created(id=str(uuid.uuid4()))

            return create

        async def skills_import(req: SkillImport) -> Created:
            name = Path(req.path).name
            if name in self.taken or name in self.skills:
                raise ApiFailure("conflict", f"A Skill named {name!r} already exists.")
            record("skills.import", req)
            self.skills[name] = (Path(req.path) / "SKILL.md").read_text(encoding="utf-8")
            return Created(id=name)

        handlers: dict[str, Handler] = {
            "memory.get": memory_get,
            "memory.save": memory_save,
            "soul.get": soul_get,
            "soul.save": soul_save,
            "skills.import": skills_import,
        }
        for route in (
            "memories.add",
            "notes.create",
            "todos.create",
            "todos.complete",
            "memory.import_summary",
            "mcp.servers.create",
        ):
            handlers[route] = creator(route)
        return handlers

    def routes_called(self, route: str) -> list[dict[str, Any]]:
        return [payload for name, payload in self.calls if name == route]


@pytest.fixture
def target_routes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Declare the fake routes' types for this test (the real ones may not be in this build)."""
    for name, types in TYPES.items():
        monkeypatch.setitem(route_types.ROUTE_TYPES, name, types)
    yield


def tree_state(root: Path) -> dict[str, tuple[bytes, float]]:
    """Every file's bytes and mtime under root (to prove a source folder is untouched)."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
