"""The REST routes of the earlier CashCode app, each mapped onto one API route name.

Table-driven: a row says which HTTP method and path answer for which `app.invoke` route, where
its payload fields come from (path, query, JSON body) and the success status. A row whose route
is not in this build (its capability is absent) answers 501; nothing here knows the handlers.
Route names are the ones in CONTRACTS.md (Skills, MCP, Skill-evolution proposals).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RestRoute:
    method: str
    path: str  # Starlette syntax: "/api/skills/{name}"
    route: str  # the API route name, e.g. "skills.get"
    summary: str
    query: tuple[str, ...] = ()  # query parameters copied into the payload
    body: bool = False  # a JSON object body is merged into the payload
    upload: bool = False  # also accepts a raw ZIP body (→ data_base64 + filename)
    status: int = 200  # 204: the envelope is dropped, the answer has no body

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(
            part[1:-1] for part in self.path.split("/") if part.startswith("{") and part.endswith("}")
        )

    @property
    def operation_id(self) -> str:
        return self.route.replace(".", "_")


_SKILL = "/api/skills/{name}"
_MCP = "/api/mcp/servers/{name}"
_PROPOSAL = "/api/skill-evolution/proposals/{id}"
_AGENT = "/api/agents/{agent_id}"

REST_ROUTES: tuple[RestRoute, ...] = (
    # Skills
    RestRoute(
        "GET",
        "/api/skills",
        "skills.list",
        "List Skills (paginated search; filter by enabled and availability)",
        query=("query", "page", "page_size", "enabled", "availability"),
    ),
    RestRoute(
        "POST",
        "/api/skills",
        "skills.create",
        "Create a user Skill from SKILL.md text",
        body=True,
        status=201,
    ),
    RestRoute(
        "POST",
        "/api/skills/import",
        "skills.import",
        "Import a Skill ZIP or folder",
        body=True,
        upload=True,
        status=201,
    ),
    RestRoute(
        "DELETE",
        "/api/skills/invalid/{source}/{directory}",
        "skills.invalid_delete",
        "Delete an invalid Skill folder",
        status=204,
    ),
    RestRoute("GET", _SKILL, "skills.get", "View a Skill"),
    RestRoute(
        "PUT",
        _SKILL,
        "skills.save",
        "Replace a Skill's SKILL.md (base_hash guards concurrent edits)",
        body=True,
    ),
    RestRoute("DELETE", _SKILL, "skills.delete", "Delete a Skill", status=204),
    RestRoute("GET", _SKILL + "/content", "skills.content", "Read the full SKILL.md, hash, source and state"),
    RestRoute("POST", _SKILL + "/validate", "skills.validate", "Revalidate a Skill package"),
    RestRoute("PATCH", _SKILL + "/enabled", "skills.set_enabled", "Enable or disable a Skill", body=True),
    RestRoute("GET", _SKILL + "/versions", "skills.versions", "List version snapshots"),
    RestRoute("POST", _SKILL + "/rollback/{version}", "skills.rollback", "Roll back to a version"),
    # MCP servers
    RestRoute("GET", "/api/mcp/servers", "mcp.servers.list", "List MCP servers (built-in and user)"),
    RestRoute(
        "POST", "/api/mcp/servers", "mcp.servers.create", "Create a user MCP server", body=True, status=201
    ),
    RestRoute("PUT", _MCP, "mcp.servers.update", "Edit a user MCP server", body=True),
    RestRoute("DELETE", _MCP, "mcp.servers.delete", "Delete a user MCP server"),
    RestRoute("POST", _MCP + "/connect", "mcp.servers.connect", "Connect and discover tools"),
    RestRoute("POST", _MCP + "/disconnect", "mcp.servers.disconnect", "Disconnect and clear live tools"),
    RestRoute("GET", _MCP + "/tools", "mcp.servers.tools", "List a server's tools"),
    # Agents (issue 38)
    RestRoute("GET", "/api/agents", "agents.list", "List agents (the default agent first) and the last used"),
    RestRoute("POST", "/api/agents", "agents.add", "Add an agent ({spec})", body=True, status=201),
    RestRoute("GET", _AGENT, "agents.get", "View an agent (by id or name)"),
    RestRoute("PUT", _AGENT, "agents.edit", "Replace an agent's spec ({spec})", body=True),
    RestRoute("DELETE", _AGENT, "agents.remove", "Remove an agent (its chats go to the default)", status=204),
    RestRoute(
        "POST",
        _AGENT + "/duplicate",
        "agents.duplicate",
        "Copy an agent ({name} optional)",
        body=True,
        status=201,
    ),
    RestRoute(
        "POST", _AGENT + "/export", "agents.export", "Write an agent as a .cashagent ({path})", body=True
    ),
    RestRoute(
        "POST",
        "/api/agent-packages/preview",
        "agents.import_preview",
        "What a .cashagent can do ({path})",
        body=True,
    ),
    RestRoute(
        "POST",
        "/api/agent-packages/import",
        "agents.import",
        "Install a previewed .cashagent ({path}, {digest}, {secrets})",
        body=True,
        status=201,
    ),
    # Steer and queue a chat's turns (issue 35): the JSON body is the route's payload
    RestRoute("POST", "/api/chats/{chat_id}/steer", "chat.steer", "Steer the chat's running turn", body=True),
    RestRoute(
        "POST",
        "/api/chats/{chat_id}/queue",
        "chat.queue",
        "Queue a message as the chat's next turn",
        body=True,
    ),
    # Skill self-evolution proposals
    RestRoute("GET", "/api/skill-evolution/proposals", "skills.proposals.list", "List Skill proposals"),
    RestRoute("POST", _PROPOSAL + "/approve", "skills.proposals.approve", "Approve a Skill proposal"),
    RestRoute("POST", _PROPOSAL + "/reject", "skills.proposals.reject", "Reject a Skill proposal"),
    # The Inbox: every question a run asks (issue 35)
    RestRoute(
        "GET", "/api/inbox", "inbox.list", "List the questions runs wait on", query=("include_answered",)
    ),
    RestRoute(
        "POST",
        "/api/inbox/{id}/answer",
        "inbox.answer",
        "Answer an Inbox item (the first answer of any surface wins; later ones get 409)",
        body=True,
    ),
)

# Envelope error code → HTTP status for the REST routes (`/api/invoke` keeps 200 + envelope).
ERROR_STATUS: dict[str, int] = {
    "invalid": 400,
    "not_found": 404,
    "conflict": 409,
    "busy": 409,
    "unsupported": 501,
    "provider_error": 502,
    "keyring_unavailable": 503,
    "internal": 500,
}
VALIDATION_STATUS = 422  # `invalid` with per-field details: the payload failed its model
FORBIDDEN_STATUS = 403  # edits of built-in items


def status_for(error: object) -> int:
    if not isinstance(error, dict):
        return 500
    code = str(error.get("code", "internal"))
    message = str(error.get("message", "")).lower()
    details = error.get("details") or {}
    # The capabilities report "built-in, read-only" refusals with their own codes; REST clients
    # of the earlier app expect 403 for them. A name taken by a built-in is a conflict (409).
    if code in ("invalid", "unsupported") and ("built-in" in message or "builtin" in message):
        return FORBIDDEN_STATUS
    if code == "invalid" and details:
        return VALIDATION_STATUS
    return ERROR_STATUS.get(code, 500)
