"""Route types of the Skills capability, merged into app/api/route_types.py with one line."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from app.contracts import replies as m
from app.skills import api_models as am

ROUTE_TYPES: Mapping[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "skills.list": (am.SkillListQuery, am.SkillListResult),
    "skills.get": (am.SkillName, am.SkillDetail),
    "skills.content": (am.SkillName, am.SkillContent),
    "skills.create": (am.SkillCreate, am.SkillItem),
    "skills.save": (am.SkillSave, am.SkillContent),
    "skills.delete": (am.SkillName, m.Ok),
    "skills.set_enabled": (am.SkillSetEnabled, am.SkillItem),
    "skills.validate": (am.SkillName, am.SkillValidation),
    "skills.versions": (am.SkillName, am.SkillVersionList),
    "skills.rollback": (am.SkillRollback, am.SkillContent),
    "skills.import_preview": (am.SkillImportSource, am.SkillImportPreview),
    "skills.import": (am.SkillImportSource, am.SkillItem),
    "skills.export": (am.SkillName, am.SkillExport),
    "skills.invalid_delete": (am.SkillInvalidRef, m.Ok),
    "skills.proposals.list": (m.Empty, am.ProposalList),
    "skills.proposals.approve": (am.ProposalRef, am.ProposalView),
    "skills.proposals.reject": (am.ProposalRef, am.ProposalView),
}
