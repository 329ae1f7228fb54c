"""Route types of the observability capability (merged in app/api/route_types.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.observability import api_models as am

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "traces.list": (am.TracesQuery, am.TraceList),
    "traces.get": (am.TraceRef, am.TraceView),
    "usage.summary": (am.UsageRange, am.UsageSummary),
}
