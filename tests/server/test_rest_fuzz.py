"""Property-based run against `/api/openapi.json` (hypothesis; schemathesis is not a dependency):
requests built from the document's own schemas, plus junk, never get a 5xx, and every documented
answer matches its schema."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api import route_types
from app.server.rest_table import REST_ROUTES
from tests.api.conftest import AppMaker, make_app, paths, secrets, workspace  # noqa: F401
from tests.server.conftest import Served, serve_built
from tests.server.fake_skills import ROUTE_TYPES as FAKE_SKILL_TYPES
from tests.server.fake_skills import FakeSkills
from tests.server.test_rest import check_against_doc

# Core routes that only touch local state (no provider, no network, no settings rewrite).
LOCAL_ROUTES = {
    "app.info",
    "chats.list",
    "chats.create",
    "chats.get",
    "chats.rename",
    "chats.delete",
    "chat.cancel",
    "chat.approve",
    "settings.get",
    "approvals.list",
    "approvals.revoke",
    "tools.list",
    "providers.list",
    "providers.delete",
}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def from_schema(schema: dict[str, Any], components: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """A value shaped like `schema` (not always valid: constraints are ignored on purpose)."""
    if depth > 6:
        return JSON
    if "$ref" in schema:
        return from_schema(components[schema["$ref"].rsplit("/", 1)[-1]], components, depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, components, depth + 1) for s in schema[key]])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return st.text(max_size=40)
    if kind == "integer":
        return st.integers(min_value=-5, max_value=10**9)
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), components, depth + 1), max_size=3)
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v, components, depth + 1) for k, v in props.items() if k in required},
            optional={
                k: from_schema(v, components, depth + 1) for k, v in props.items() if k not in required
            },
        )
    return JSON


@pytest.fixture
async def rest(
    make_app: AppMaker,  # noqa: F811
    static_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Served]:
    for name, types in FAKE_SKILL_TYPES.items():
        monkeypatch.setitem(route_types.ROUTE_TYPES, name, types)
    app, _ = await make_app(capabilities=[FakeSkills()])
    async with serve_built(static_dir, app) as served:
        yield served


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Only operations whose effects stay in this test: the fake Skills rows and local core
    routes (a merged build's MCP rows, for instance, would start whatever command they are given)."""
    fake_rows = {(spec.method.lower(), spec.path) for spec in REST_ROUTES if spec.route in FAKE_SKILL_TYPES}
    ops = []
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            if path.startswith("/api/invoke/"):
                keep = path.removeprefix("/api/invoke/") in LOCAL_ROUTES
            else:
                keep = (method, path) in fake_rows
            if keep:
                ops.append((path, method, op))
    return ops


async def test_generated_requests_never_get_a_server_error(rest: Served) -> None:
    async with rest.client() as c:
        doc = (await c.get("/api/openapi.json", headers=rest.bearer)).json()
    components = doc["components"]["schemas"]
    operations = _operations(doc)
    assert any(p.startswith("/api/skills") for p, _, _ in operations)
    assert any(p == "/api/invoke/chats.rename" for p, _, _ in operations)

    def run() -> None:
        with httpx2.Client(
            base_url=rest.base_url, trust_env=False, timeout=30, headers=rest.bearer
        ) as client:

            @settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
            @given(st.data())
            def check(data: st.DataObject) -> None:
                path, method, op = data.draw(st.sampled_from(operations))
                url = path
                params: dict[str, str] = {}
                for param in op.get("parameters", []):
                    value = data.draw(from_schema(param["schema"], components) | st.text(max_size=12))
                    text = value if isinstance(value, str) else json.dumps(value)
                    if param["in"] == "path":
                        url = url.replace("{" + param["name"] + "}", quote(text or "x", safe=""))
                    elif data.draw(st.booleans()):
                        params[param["name"]] = text
                kwargs: dict[str, Any] = {"params": params}
                if "requestBody" in op:
                    schema = op["requestBody"]["content"]["application/json"]["schema"]
                    body = data.draw(from_schema(schema, components) | JSON)
                    kwargs["content"] = json.dumps(body).encode()
                    kwargs["headers"] = {"content-type": "application/json"}
                response = client.request(method.upper(), url, **kwargs)
                assert response.status_code < 500, (method, url, kwargs, response.text[:300])
                if url == path or response.status_code not in (404, 405):
                    check_against_doc(doc, path, method, response)

            check()

    await asyncio.to_thread(run)
