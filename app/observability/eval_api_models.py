"""Request/response models of the evals routes (TypeScript is generated from them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_EVAL_FILE_CHARS = 2_000_000


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class EvalModel(_Model):
    provider_id: str = Field(min_length=1, max_length=64)
    model: str = Field(min_length=1, max_length=200)


class EvalRunStart(_Model):
    """The eval file's text (picked or dropped in the UI) and its name (.yaml, .yml or .json)."""

    content: str = Field(max_length=MAX_EVAL_FILE_CHARS)
    filename: str = Field(min_length=1, max_length=200)
    model: EvalModel | None = None  # default: the last model chosen in the app


class EvalRunRef(_Model):
    id: str = Field(min_length=1, max_length=64)


class EvalCaseResultView(_Model):
    name: str
    passed: bool
    reasons: list[str]
    duration_ms: float
    tools_called: list[str]


class EvalRunView(_Model):
    id: str
    file_name: str
    provider_id: str
    model: str
    status: Literal["running", "done", "failed"]
    error: str | None
    started_at: str
    finished_at: str | None
    total: int
    passed: int
    results: list[EvalCaseResultView]


class EvalModelRate(_Model):
    provider_id: str
    model: str
    runs: int
    cases: int
    passed: int
    pass_rate: float  # 0..1 over every finished case of this model's runs


class EvalRunList(_Model):
    runs: list[EvalRunView]  # newest first, without per-case results
    by_model: list[EvalModelRate]
