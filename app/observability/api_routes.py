"""Route types of the observability capability (merged in app/api/route_types.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.contracts.replies import Empty
from app.observability import api_models as am
from app.observability import eval_api_models as em

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "traces.list": (am.TracesQuery, am.TraceList),
    "traces.get": (am.TraceRef, am.TraceView),
    "usage.summary": (am.UsageRange, am.UsageSummary),
    "evals.run": (em.EvalRunStart, em.EvalRunView),
    "evals.runs": (Empty, em.EvalRunList),
    "evals.get": (em.EvalRunRef, em.EvalRunView),
}
