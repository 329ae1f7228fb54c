"""The 2025-03-26 legacy-path issuer rule (app/mcp/oauth_legacy.py): same origin is accepted,
another origin never; the conformance scenario runs the whole flow (tests/mcp/test_conformance.py)."""

from __future__ import annotations

import json

from app.mcp.oauth_legacy import legacy_issuer_fix

SERVER = "http://localhost:4000/mcp"
WELL_KNOWN = "http://localhost:4000/.well-known/oauth-authorization-server"


def _meta(issuer: str) -> bytes:
    return json.dumps({"issuer": issuer, "token_endpoint": f"{issuer}/token"}).encode()


def test_an_issuer_with_a_path_on_the_servers_origin_becomes_the_origin() -> None:
    fixed = legacy_issuer_fix(SERVER, WELL_KNOWN, 200, _meta("http://localhost:4000/oauth"))
    assert fixed is not None
    data = json.loads(fixed)
    assert data["issuer"] == "http://localhost:4000"
    assert data["token_endpoint"] == "http://localhost:4000/oauth/token"  # endpoints unchanged


def test_other_origins_and_other_answers_are_left_to_the_sdk_to_refuse() -> None:
    assert legacy_issuer_fix(SERVER, WELL_KNOWN, 200, _meta("http://evil.example/oauth")) is None
    assert legacy_issuer_fix(SERVER, WELL_KNOWN, 200, _meta("http://localhost:4001/oauth")) is None
    assert legacy_issuer_fix(SERVER, WELL_KNOWN, 200, _meta("http://localhost:4000")) is None
    assert legacy_issuer_fix(SERVER, WELL_KNOWN, 404, _meta("http://localhost:4000/oauth")) is None
    assert legacy_issuer_fix(SERVER, WELL_KNOWN, 200, b"not json") is None
    other_path = "http://localhost:4000/.well-known/openid-configuration"
    assert legacy_issuer_fix(SERVER, other_path, 200, _meta("http://localhost:4000/oauth")) is None
    elsewhere = "http://evil.example/.well-known/oauth-authorization-server"
    assert legacy_issuer_fix(SERVER, elsewhere, 200, _meta("http://evil.example/oauth")) is None
