"""The observability capability: one trace per turn from the event bus, and the traces/usage
routes. The core loop knows nothing of it (app/api/extensions.py)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Protocol

from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure, say
from app.contracts.events import AppEvent, TurnCancelled, TurnDone, TurnFailed, TurnStarted
from app.observability.fold import TurnFold
from app.observability.prices import PriceTable, estimate_cost
from app.observability.store import TraceRepository, totals_of, valid_trace_id
from app.observability.trace_model import TraceRecord

if TYPE_CHECKING:  # the route models load with the first route call (`ask` start-up)
    from app.observability import api_models as am

_log = logging.getLogger(__name__)
TRACE_WRITE_WARNING = "the trace of a turn could not be saved; the answer is not affected"
TOP_TURNS = 10


@dataclass(frozen=True)
class Bus:
    """The event bus as this capability uses it (the app's, or a test's `EventBus`)."""

    publish: Callable[[AppEvent], None]
    subscribe: Callable[[Callable[[AppEvent], None]], Callable[[], None]]


class _Subscribable(Protocol):
    def subscribe(self, callback: Callable[[AppEvent], None]) -> Callable[[], None]: ...


class TraceCapability(Capability):
    name = "observability"

    def __init__(
        self,
        bus: _Subscribable,
        traces: TraceRepository,
        prices: Callable[[], PriceTable],
        api_mode: Callable[[str], str | None],
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._traces = traces
        self._prices = prices
        self._api_mode = api_mode
        self._clock = clock
        self._open: dict[str, TurnFold] = {}
        self._unsubscribe = bus.subscribe(self._on_event)

    # ---- traces ------------------------------------------------------------------------------

    def _on_event(self, event: AppEvent) -> None:
        if isinstance(event, TurnStarted):
            self._open[event.turn_id] = TurnFold(event, self._safe_api_mode(event.provider_id), self._clock)
            return
        turn_id = getattr(event, "turn_id", None)
        fold = self._open.get(turn_id) if turn_id is not None else None
        if fold is None:
            return
        fold.feed(event)
        if isinstance(event, TurnDone | TurnFailed | TurnCancelled):
            del self._open[fold.turn_id]
            self._write(fold, event)

    def _safe_api_mode(self, provider_id: str) -> str | None:
        try:
            return self._api_mode(provider_id)
        except Exception:  # an unreadable settings file must not cost the trace
            return None

    def _write(self, fold: TurnFold, end: TurnDone | TurnFailed | TurnCancelled) -> None:
        # The turn is over whatever happens here: one generic warning, never the details
        # (an exception text could quote a value), never raised into the turn.
        try:
            price = self._prices().lookup(fold.provider_id, fold.model)
            record = fold.finish(end, lambda i, o: estimate_cost(price, i, o))
            self._traces.add(record)
        except Exception:
            _log.warning(TRACE_WRITE_WARNING)

    async def aclose(self) -> None:
        self._unsubscribe()

    # ---- routes ------------------------------------------------------------------------------

    def routes(self) -> Mapping[str, Handler]:
        return {
            "traces.list": self.traces_list,
            "traces.get": self.traces_get,
            "usage.summary": self.usage_summary,
        }

    async def traces_list(self, req: am.TracesQuery) -> am.TraceList:
        from app.observability import api_models as am

        return am.TraceList(traces=[trace_view(t) for t in self._traces.recent(req.limit)])

    async def traces_get(self, req: am.TraceRef) -> am.TraceView:
        found = self._traces.get(req.id) if valid_trace_id(req.id) else None
        if found is None:
            raise ApiFailure("not_found", say("trace.not_found", id=req.id[:64]))
        return trace_view(found)

    async def usage_summary(self, req: am.UsageRange) -> am.UsageSummary:
        since, until = day_range(req.first_day, req.last_day)
        buckets = self._traces.by_day_and_model(since, until)
        totals = totals_of(buckets)
        from app.observability import api_models as am

        return am.UsageSummary(
            buckets=[
                am.UsageBucketView(
                    day=b.day,
                    provider_id=b.provider_id,
                    model=b.model,
                    turns=b.turns,
                    input_tokens=b.input_tokens,
                    output_tokens=b.output_tokens,
                    cost=b.cost,
                )
                for b in buckets
            ],  # fmt: skip
            totals=am.UsageTotalsView(
                turns=totals.turns,
                input_tokens=totals.input_tokens,
                output_tokens=totals.output_tokens,
                cost=totals.cost,
                unknown_cost_turns=totals.unknown_cost_turns,
            ),
            slowest=[trace_view(t) for t in self._traces.top("total_ms", TOP_TURNS, since, until)],
            most_expensive=[trace_view(t) for t in self._traces.top("cost", TOP_TURNS, since, until)],
        )


def day_range(first_day: str, last_day: str) -> tuple[str, str]:
    """[since, until) ISO bounds for inclusive UTC days; a clear error for impossible ones."""
    try:
        first, last = date.fromisoformat(first_day), date.fromisoformat(last_day)
    except ValueError as exc:
        raise ApiFailure("invalid", say("usage.bad_day", reason=exc)) from None
    if last < first:
        raise ApiFailure("invalid", say("usage.bad_range"))
    return first.isoformat(), (last + timedelta(days=1)).isoformat()


def trace_view(t: TraceRecord) -> am.TraceView:
    from app.observability import api_models as am

    return am.TraceView(
        id=t.id,
        chat_id=t.chat_id,
        turn_id=t.turn_id,
        provider_id=t.provider_id,
        api_mode=t.api_mode,
        model=t.model,
        status=t.status,
        error_code=t.error_code,
        started_at=t.started_at,
        ttft_ms=t.ttft_ms,
        total_ms=t.total_ms,
        model_calls=t.model_calls,
        input_tokens=t.input_tokens,
        output_tokens=t.output_tokens,
        cost=t.cost,
        tool_calls=[
            am.ToolCallTraceView(
                name=c.name, duration_ms=c.duration_ms, outcome=c.outcome, approval=c.approval
            )
            for c in t.tool_calls
        ],
    )
