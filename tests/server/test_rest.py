"""REST routes and the OpenAPI document over the real app (with a fake Skills capability)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from app.api import route_types
from app.server.rest_table import REST_ROUTES
from tests.api.conftest import AppMaker, make_app, paths, secrets, workspace  # noqa: F401
from tests.server.conftest import Served, serve_built, serve_stub
from tests.server.fake_skills import ROUTE_TYPES as FAKE_SKILL_TYPES
from tests.server.fake_skills import FakeSkills, _hash


@pytest.fixture
async def rest(
    make_app: AppMaker,  # noqa: F811
    static_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[Served, FakeSkills]]:
    for name, types in FAKE_SKILL_TYPES.items():
        monkeypatch.setitem(route_types.ROUTE_TYPES, name, types)
    skills = FakeSkills()
    app, _ = await make_app(capabilities=[skills])
    app.routes()  # binds the capabilities' routes (done on first use) while they are declared
    # Whatever the merged build contains, these two are absent here (checked only when serving).
    for name in ABSENT:
        monkeypatch.delitem(route_types.ROUTE_TYPES, name, raising=False)
    async with serve_built(static_dir, app) as served:
        yield served, skills


ABSENT = ("skills.versions", "mcp.servers.list", "mcp.servers.create")


def _rebase(schema: Any) -> Any:
    """Point the document's local refs at the registered document."""
    if isinstance(schema, dict):
        return {
            k: ("urn:doc" + v if k == "$ref" and isinstance(v, str) and v.startswith("#/") else _rebase(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_rebase(v) for v in schema]
    return schema


def check_against_doc(doc: dict[str, Any], path: str, method: str, response: httpx2.Response) -> None:
    operation = doc["paths"][path][method]
    documented = operation["responses"]
    assert str(response.status_code) in documented, (path, method, response.status_code, response.text)
    if response.status_code == 204:  # documented without a body, and it has none
        assert "content" not in documented["204"] and response.content == b""
        return
    schema = documented[str(response.status_code)]["content"]["application/json"]["schema"]
    registry: Registry[Any] = Registry().with_resource("urn:doc", DRAFT202012.create_resource(doc))
    Draft202012Validator(_rebase(schema), registry=registry).validate(response.json())


async def test_skills_rest_routes_map_onto_the_api_with_http_statuses(
    rest: tuple[Served, FakeSkills],
) -> None:
    served, skills = rest
    h = served.bearer
    async with served.client() as c:
        listed = await c.get("/api/skills", params={"page": "1", "page_size": "1"}, headers=h)
        assert listed.status_code == 200
        assert listed.json()["data"]["total"] == 2 and len(listed.json()["data"]["items"]) == 1
        assert (await c.get("/api/skills/mine", headers=h)).json()["data"]["source"] == "user"
        assert (await c.get("/api/skills/nope", headers=h)).status_code == 404
        created = await c.post("/api/skills", json={"content": "---\nname: fresh\n---\nx"}, headers=h)
        assert created.status_code == 201 and created.json()["data"]["name"] == "fresh"
        again = await c.post("/api/skills", json={"content": "---\nname: fresh\n---\nx"}, headers=h)
        assert again.status_code == 409
        bad_name = await c.post("/api/skills", json={"content": "---\nname: Not Valid\n---\nx"}, headers=h)
        assert bad_name.status_code == 422
        base = _hash(skills.skills["mine"]["content"])
        saved = await c.put("/api/skills/mine", json={"content": "new", "base_hash": base}, headers=h)
        assert saved.status_code == 200
        stale = await c.put("/api/skills/mine", json={"content": "newer", "base_hash": base}, headers=h)
        assert stale.status_code == 409
        assert skills.skills["mine"]["content"] == "new"
        missing_field = await c.put("/api/skills/mine", json={"content": "x"}, headers=h)
        assert missing_field.status_code == 422
        renamed = await c.put(
            "/api/skills/mine", json={"name": "other", "content": "x", "base_hash": "y"}, headers=h
        )
        assert renamed.status_code == 400
        builtin = await c.patch("/api/skills/builtin-one/enabled", json={"enabled": False}, headers=h)
        assert builtin.status_code == 403
        assert skills.skills["builtin-one"]["enabled"] is True
        disabled = await c.patch("/api/skills/mine/enabled", json={"enabled": False}, headers=h)
        assert disabled.status_code == 200 and disabled.json()["data"]["enabled"] is False
        assert (await c.post("/api/skills/mine/rollback/3", headers=h)).status_code == 404
        assert (await c.post("/api/skills/mine/rollback/x", headers=h)).status_code == 422
        assert (await c.delete("/api/skills/builtin-one", headers=h)).status_code == 403
        assert (await c.delete("/api/skills/mine", headers=h)).status_code == 204
        assert "mine" not in skills.skills
        # Routes of capabilities this build lacks: 501, clearly, and the app is never called.
        versions = await c.get("/api/skills/fresh/versions", headers=h)
        assert versions.status_code == 501
        assert "skills.versions" in versions.json()["error"]["message"]


async def test_every_route_is_501_when_its_capability_is_absent(static_dir: Path) -> None:
    async with serve_stub(static_dir, route_types={}) as served, served.client() as c:
        for spec in REST_ROUTES:
            path = spec.path.replace("{version}", "1")
            for param in spec.path_params:
                path = path.replace("{" + param + "}", "x")
            response = await c.request(
                spec.method, path, headers=served.bearer, json={} if spec.body else None
            )
            assert response.status_code == 501, (spec.method, path)
            error = response.json()["error"]
            assert error["code"] == "unsupported" and spec.route in error["message"]
        doc = (await c.get("/api/openapi.json", headers=served.bearer)).json()
    assert served.app.calls == []
    assert doc["paths"] == {}


async def test_rest_and_openapi_need_the_bearer_token_the_right_host_and_no_foreign_origin(
    rest: tuple[Served, FakeSkills],
) -> None:
    served, skills = rest
    async with served.client() as c:
        for path in ("/api/skills", "/api/openapi.json", "/api/skills/mine"):
            assert (await c.get(path)).status_code == 401, path
            assert (await c.get(path, headers=served.cookie_header)).status_code == 401, path
            wrong_host = await c.get(path, headers={"host": f"evil.example:{served.port}", **served.bearer})
            assert wrong_host.status_code == 400, path
            assert (await c.get(path, headers=served.bearer)).status_code == 200, path
        # The browser's cookie works under the UI prefix, but a foreign Origin is refused there.
        ui = served.ui("/api/skills/mine")
        foreign = await c.delete(ui, headers={"origin": "http://evil.example", **served.cookie_header})
        assert foreign.status_code == 403
        same = await c.get(ui, headers={"origin": served.origin, **served.cookie_header})
        assert same.status_code == 200
    assert "mine" in skills.skills


async def test_every_documented_operation_answers_per_its_openapi_entry(
    rest: tuple[Served, FakeSkills],
) -> None:
    served, _ = rest
    async with served.client() as c:
        doc = (await c.get("/api/openapi.json", headers=served.bearer)).json()
        Draft202012Validator.check_schema({"$defs": doc["components"]["schemas"]})
        rest_paths = {spec.path for spec in REST_ROUTES if spec.route in FAKE_SKILL_TYPES}
        assert rest_paths <= set(doc["paths"])
        assert {"/api/skills/{name}/versions", "/api/mcp/servers"}.isdisjoint(doc["paths"])  # absent
        served_routes = served.app.routes()
        for spec in REST_ROUTES:
            present = spec.route in route_types.ROUTE_TYPES and spec.route in served_routes
            assert (spec.method.lower() in doc["paths"].get(spec.path, {})) == present, spec
        for route in route_types.ROUTE_TYPES:
            assert f"/api/invoke/{route}" in doc["paths"], route
        checked = 0
        for path, operations in doc["paths"].items():
            if path.split("/")[-1] in _NETWORK_ROUTES:
                continue
            for method, operation in operations.items():
                url = path
                for param in operation.get("parameters", []):
                    if param["in"] == "path":
                        url = url.replace(
                            "{" + param["name"] + "}", "1" if param["name"] == "version" else "mine"
                        )
                body: dict[str, Any] | None = {} if "requestBody" in operation else None
                response = await c.request(method.upper(), url, json=body, headers=served.bearer)
                check_against_doc(doc, path, method, response)
                checked += 1
    assert checked > len(FAKE_SKILL_TYPES) + 10


# Core routes that reach out to a provider or a local model server: left out of request sweeps.
_NETWORK_ROUTES = {"providers.test", "models.list", "app.detect_ollama", "chat.send", "chat.retry"}


async def test_skill_import_takes_a_json_path_or_a_raw_zip_body(rest: tuple[Served, FakeSkills]) -> None:
    served, skills = rest
    archive = b"PK\x03\x04 not really a zip, the capability validates it"
    async with served.client() as c:
        by_path = await c.post("/api/skills/import", json={"path": "/tmp/x.zip"}, headers=served.bearer)
        raw = await c.post(
            "/api/skills/import",
            params={"filename": "review.zip"},
            content=archive,
            headers={"content-type": "application/zip", **served.bearer},
        )
        neither = await c.post("/api/skills/import", json={}, headers=served.bearer)
    assert [by_path.status_code, raw.status_code, neither.status_code] == [201, 201, 400]
    assert skills.imports[0].path == "/tmp/x.zip"
    assert skills.imports[1].filename == "review.zip"
    assert base64.b64decode(skills.imports[1].data_base64 or "") == archive
