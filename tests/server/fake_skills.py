"""A small in-memory Skills capability for REST tests (the real one may not be in this build).

It registers route names from CONTRACTS.md through `app/api/extensions.py`, with models of its
own that the tests declare in the route table for the duration of a test.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListReq(_M):
    query: str | None = Field(default=None, max_length=200)
    page: int = Field(default=1, ge=1, le=10_000)
    page_size: int = Field(default=20, ge=1, le=100)


class SkillView(_M):
    name: str
    source: str
    enabled: bool
    hash: str


class SkillPage(_M):
    items: list[SkillView]
    total: int
    page: int
    page_size: int


class NameReq(_M):
    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9._-]*$")


class CreateReq(_M):
    content: str = Field(min_length=1, max_length=80_000)


class SaveReq(NameReq):
    content: str = Field(min_length=1, max_length=80_000)
    base_hash: str


class EnabledReq(NameReq):
    enabled: bool


class RollbackReq(NameReq):
    version: int = Field(ge=1)


class ImportReq(_M):
    path: str | None = None
    data_base64: str | None = None
    filename: str | None = None


class Done(_M):
    ok: bool = True


ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "skills.list": (ListReq, SkillPage),
    "skills.get": (NameReq, SkillView),
    "skills.create": (CreateReq, SkillView),
    "skills.save": (SaveReq, SkillView),
    "skills.delete": (NameReq, Done),
    "skills.set_enabled": (EnabledReq, SkillView),
    "skills.rollback": (RollbackReq, SkillView),
    "skills.import": (ImportReq, Done),
}


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class FakeSkills(Capability):
    name = "fake-skills"

    def __init__(self) -> None:
        self.skills: dict[str, dict[str, Any]] = {
            "builtin-one": {
                "source": "builtin",
                "content": "---\nname: builtin-one\n---\nx",
                "enabled": True,
            },
            "mine": {"source": "user", "content": "---\nname: mine\n---\nbody", "enabled": True},
        }
        self.calls: list[str] = []
        self.imports: list[ImportReq] = []

    def _view(self, name: str) -> SkillView:
        s = self.skills[name]
        return SkillView(name=name, source=s["source"], enabled=s["enabled"], hash=_hash(s["content"]))

    def _find(self, name: str) -> dict[str, Any]:
        if name not in self.skills:
            raise ApiFailure("not_found", f"No Skill named {name!r}.")
        return self.skills[name]

    def _mutable(self, name: str) -> dict[str, Any]:
        skill = self._find(name)
        if skill["source"] == "builtin":
            raise ApiFailure("invalid", "Built-in Skills cannot be modified.")
        return skill

    def routes(self) -> Mapping[str, Handler]:
        async def list_(req: ListReq) -> SkillPage:
            self.calls.append("skills.list")
            names = sorted(n for n in self.skills if req.query is None or req.query in n)
            start = (req.page - 1) * req.page_size
            items = [self._view(n) for n in names[start : start + req.page_size]]
            return SkillPage(items=items, total=len(names), page=req.page, page_size=req.page_size)

        async def get(req: NameReq) -> SkillView:
            self._find(req.name)
            return self._view(req.name)

        async def create(req: CreateReq) -> SkillView:
            name = (
                req.content.split("name:", 1)[-1].split("\n", 1)[0].strip() if "name:" in req.content else ""
            )
            if not name:
                raise ApiFailure("invalid", "SKILL.md needs a `name:` line.")
            NameReq(name=name)  # a bad name is a validation error like any other
            if name in self.skills:
                raise ApiFailure("conflict", f"A Skill named {name!r} already exists.")
            self.skills[name] = {"source": "user", "content": req.content, "enabled": True}
            return self._view(name)

        async def save(req: SaveReq) -> SkillView:
            skill = self._mutable(req.name)
            if _hash(skill["content"]) != req.base_hash:
                raise ApiFailure("conflict", "The Skill changed since it was read.")
            skill["content"] = req.content
            return self._view(req.name)

        async def delete(req: NameReq) -> Done:
            self._mutable(req.name)
            del self.skills[req.name]
            return Done()

        async def set_enabled(req: EnabledReq) -> SkillView:
            self._mutable(req.name)["enabled"] = req.enabled
            return self._view(req.name)

        async def rollback(req: RollbackReq) -> SkillView:
            self._mutable(req.name)
            raise ApiFailure("not_found", f"No version {req.version} of {req.name!r}.")

        async def import_(req: ImportReq) -> Done:
            if (req.path is None) == (req.data_base64 is None):
                raise ApiFailure("invalid", "Give either a path or the uploaded bytes.")
            self.imports.append(req)
            return Done()

        return {
            "skills.import": import_,
            "skills.list": list_,
            "skills.get": get,
            "skills.create": create,
            "skills.save": save,
            "skills.delete": delete,
            "skills.set_enabled": set_enabled,
            "skills.rollback": rollback,
        }
