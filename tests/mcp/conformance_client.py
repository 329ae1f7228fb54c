"""MCP conformance client built on app/mcp (not on the raw SDK).

The conformance runner (`@modelcontextprotocol/conformance client --command ...`) appends the
scenario server's URL as the last argument and sets MCP_CONFORMANCE_SCENARIO (and, for some
scenarios, MCP_CONFORMANCE_CONTEXT as JSON). We add the URL as a user catalog entry, connect
through `McpService` (which picks the protocol era itself: `server/discover`, else
`initialize`; MCP_CONFORMANCE_PROTOCOL_VERSION is not read), and make the calls the scenario
expects: the calls its context lists, else a scenario's fixed calls, else every tool the app
kept, with placeholder values for required arguments (a tool the app dropped, such as one with
an invalid `x-mcp-header`, is never called). Elicitation requests are accepted with the form's
defaults (what a user pressing Submit on an untouched form sends).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.contracts.events import AppEvent
from app.mcp.catalog import EntryInput, UserCatalog, builtin_dir
from app.mcp.connection import ToolDef
from app.mcp.events import McpElicitation
from app.mcp.service import CallSite, McpPaths, McpService
from app.settings.secrets import SecretStore
from app.testing.fake_keyring import MemoryKeyring

# The Client ID Metadata Document the suite's auth server knows (auth/basic-cimd).
CIMD_URL = "https://conformance-test.local/client-metadata.json"

# What each scenario's server expects the client to call, when its context does not say (the
# others: every tool, so step-up authorization and per-tool checks are exercised).
CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
    "json-schema-ref-no-deref": [],  # only listed: its server answers no tools/call
}
# json-schema-2020-12-preservation: send back the focal tool's input schema as CashCode keeps it.
FOCAL_SCHEMA_TOOL, ECHO_TOOL = "json_schema_2020_12_tool", "json_schema_echo"
PLACEHOLDERS: dict[str, Any] = {"string": "x", "integer": 1, "number": 1, "boolean": True}


class HeadlessSignIn:
    """The conformance auth server approves at once: follow its authorization URL without a
    browser and read the code from the redirect."""

    redirect_uri = "http://127.0.0.1:3999/callback"

    def __init__(self) -> None:
        self._location = ""

    def reuse(self, redirect_uri: str) -> None:
        """Always the same fixed redirect URI: nothing to reuse."""

    async def redirect_handler(self, authorization_url: str) -> None:
        import httpx2

        async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as http:
            response = await http.get(authorization_url)
        self._location = response.headers.get("location", "")

    async def callback_handler(self) -> Any:
        from urllib.parse import parse_qs, urlsplit

        from mcp.shared.auth import AuthorizationCodeResult

        query = {k: v[0] for k, v in parse_qs(urlsplit(self._location).query).items()}
        return AuthorizationCodeResult(
            code=query.get("code", ""), state=query.get("state"), iss=query.get("iss")
        )


def preregister(secrets: SecretStore, context: dict[str, Any]) -> None:
    """auth/pre-registration: the scenario hands us a client id (and secret)."""
    if "client_id" not in context:
        return
    info = {"client_id": context["client_id"], "redirect_uris": [HeadlessSignIn.redirect_uri]}
    if context.get("client_secret"):
        info["client_secret"] = context["client_secret"]
        info["token_endpoint_auth_method"] = "client_secret_basic"
    secrets.set("mcp:conformance:oauth:client", json.dumps(info))


async def run(url: str, scenario: str, context: dict[str, Any]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        service: McpService | None = None

        def publish(event: AppEvent) -> None:
            if isinstance(event, McpElicitation) and not event.closed and service is not None:
                service.elicitations.answer(event.id, "accept", {})

        secrets = SecretStore(backend=MemoryKeyring())
        preregister(secrets, context)
        service = McpService(
            McpPaths(
                builtin=base / "none", catalog=base / "servers.json", cache=base / "cache", logs=base / "logs"
            ),
            UserCatalog(base / "servers.json", secrets),
            publish,
            call_timeout_s=30,
            sign_in=lambda interactive: HeadlessSignIn(),
            client_metadata_url=CIMD_URL,
        )
        service.elicitations.enable()
        service.save(EntryInput(name="conformance", transport="http", url=url), create=True)
        try:
            conn = await service.connect("conformance", interactive=True)
            kept = service.cache.load("conformance", service.entry("conformance").fingerprint()) or []
            for tool, args in calls(scenario, context, kept):
                if tool in {t.name for t in conn.tools}:
                    out = await service.call("conformance", tool, args, CallSite())
                    print(f"{tool}: {'ok' if out.ok else 'error'}: {out.text[:200]}")
        finally:
            await service.aclose()
    return 0


def calls(scenario: str, context: dict[str, Any], kept: list[ToolDef]) -> list[tuple[str, dict[str, Any]]]:
    """The calls to make, in order. `kept`: the tools as the app stored them (schema cache)."""
    listed = context.get("toolCalls")
    if isinstance(listed, list):
        return [(str(c["name"]), dict(c.get("arguments") or {})) for c in listed]
    if scenario in CALLS:
        return CALLS[scenario]
    schemas = {t.name: t.input_schema for t in kept}
    if ECHO_TOOL in schemas and FOCAL_SCHEMA_TOOL in schemas:
        return [(ECHO_TOOL, {"schema": schemas[FOCAL_SCHEMA_TOOL]})]
    return [(name, placeholder_args(schema)) for name, schema in sorted(schemas.items())]


def placeholder_args(schema: dict[str, Any]) -> dict[str, Any]:
    """A value for each required argument of a primitive type (what a model would fill in)."""
    properties = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for key in schema.get("required") or []:
        kind = (properties.get(key) or {}).get("type")
        if isinstance(kind, str) and kind in PLACEHOLDERS:
            out[key] = PLACEHOLDERS[kind]
    return out


def main() -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    return asyncio.run(run(sys.argv[-1], scenario, context))


if __name__ == "__main__":
    _ = builtin_dir
    sys.exit(main())
