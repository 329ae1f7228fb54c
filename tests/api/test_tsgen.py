"""The generated TypeScript contract (frontend/src/api/generated.ts) tracks the pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel

from app.api import models as m
from app.api import tsgen
from app.api.route_types import ROUTE_TYPES, RouteTypes


class _Extra(BaseModel):
    """A model that only exists in this test."""

    name: str
    mode: Literal["a", "b"] = "a"
    tags: list[str] | None = None
    scores: dict[str, float] = {}


def test_committed_file_is_up_to_date() -> None:
    assert tsgen.DEFAULT_OUT.read_text(encoding="utf-8") == tsgen.render(), (
        "frontend/src/api/generated.ts is stale: run `python -m app.api.tsgen`"
    )


def test_render_is_deterministic() -> None:
    assert tsgen.render() == tsgen.render()


def test_every_route_and_event_is_declared() -> None:
    text = tsgen.render()
    for route, (request, response) in ROUTE_TYPES.items():
        assert f'"{route}": {{ request: {request.__name__}; response: {response.__name__} }};' in text
    events = ("TurnStarted", "Delta", "ToolCallEvent", "ApprovalRequired", "TurnFailed", "SessionUpdated")
    for event in events:
        assert f"  | {event}\n" in text
    assert "export interface ApiError {" in text


def test_requests_have_optional_defaults_and_responses_required_ones() -> None:
    text = tsgen.render()
    expected = "export interface ChatSend {\n  chat_id: string;\n  text: string;\n"
    expected += "  model?: ModelRef | null;\n  mentions?: MentionInput[];\n"
    expected += "  attachments?: AttachmentRefInput[];\n}"
    assert expected in text
    # `running` has a default but the backend always sends it.
    assert "  running: boolean;\n" in text
    assert "export type Empty = Record<string, never>;" in text


def test_adding_a_model_changes_the_output() -> None:
    routes: dict[str, RouteTypes] = {**ROUTE_TYPES, "test.extra": (_Extra, m.Ok)}
    text = tsgen.render(routes)
    assert text != tsgen.render()
    assert '"test.extra": { request: _Extra; response: Ok };' in text
    assert "/** A model that only exists in this test. */\nexport interface _Extra {" in text
    assert '  mode?: "a" | "b";\n' in text
    assert "  tags?: string[] | null;\n" in text
    assert "  scores?: Record<string, number>;\n" in text


def test_check_detects_drift_on_a_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "generated.ts"
    assert tsgen.main(["--check", "--out", str(target)]) == 1  # missing
    assert tsgen.main(["--out", str(target)]) == 0
    assert tsgen.main(["--check", "--out", str(target)]) == 0
    target.write_text(target.read_text(encoding="utf-8").replace("first_run: boolean", "first_run: string"))
    capsys.readouterr()
    assert tsgen.main(["--check", "--out", str(target)]) == 1
    assert "stale" in capsys.readouterr().err
    assert tsgen.main(["--out", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == tsgen.render()
