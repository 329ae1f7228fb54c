"""Request/response models of the mcp.* routes (CONTRACTS.md). Secret values never appear in a
response: header values and secret env values are always `********`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.attachments.api_models import UploadedAttachment
from app.contracts.replies import ApiModel as _Model
from app.contracts.replies import Ok, ToolPolicy

TransportName = Literal["stdio", "sse", "http"]
Visibility = Literal["model", "app"]
VISIBILITIES: tuple[Visibility, ...] = ("model", "app")
StatusName = Literal["disconnected", "connecting", "connected", "failed"]


class McpServerView(_Model):
    name: str
    display_name: str
    description: str
    transport: TransportName
    source: Literal["builtin", "user"]
    status: StatusName
    error: str | None = None
    error_key: str = ""  # the error's catalog entry and what it names (see McpServerStatus)
    error_params: dict[str, str] = Field(default_factory=dict)
    tool_count: int = 0
    diagnostics: list[str] = Field(default_factory=list)  # e.g. a malformed tool that was skipped
    url: str = ""
    headers: dict[str, str] = Field(default_factory=dict)  # values are always ********
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)  # secret values are ********
    secret_env: list[str] = Field(default_factory=list)
    argv: list[str] = Field(default_factory=list)  # stdio: exactly what will run
    needs_confirmation: bool = False  # the launch spec (argv, env, secret env names) changed
    loader_env: list[str] = Field(default_factory=list)  # set variables like PATH, LD_PRELOAD
    editable: bool = False
    # stdio: confined by the Landlock sandbox; `network`: TCP allowed (by port, not by host)
    sandbox: bool = False
    network: bool = False
    sandbox_status: str = ""  # "sandboxed" / "not sandboxed (why)"; "" for remote servers
    # OAuth sign-in, separate from `status` (none: this server never asked for a sign-in)
    auth: Literal["none", "signed_in", "signed_out", "expired"] = "none"


class McpServerList(_Model):
    servers: list[McpServerView]


class McpServerRef(_Model):
    name: str = Field(min_length=1, max_length=100)


class _McpServerFields(_Model):
    """What a create or update may set (None: not given); catalog.py validates the values."""

    display_name: str | None = None
    description: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None
    secret_env: list[str] | None = None
    # A credential header (Authorization, X-Api-Key, Cookie, …) over plain http:// to a host
    # other than this computer is refused
    # unless the user confirms it here (the credential would cross the network unencrypted).
    allow_plain_http_auth: bool = False
    # stdio only: run confined by the sandbox; `network` lets it open TCP connections (Landlock
    # filters TCP by port, not by host: allowed means any host)
    sandbox: bool | None = None
    network: bool | None = None


class McpServerCreate(_McpServerFields):
    name: str = Field(min_length=1, max_length=100)
    transport: str = Field(min_length=1, max_length=40)


class McpServerUpdate(_McpServerFields):
    name: str = Field(min_length=1, max_length=100)
    transport: str | None = None  # None: keep the current transport


class McpToolView(_Model):
    name: str
    description: str
    input_schema: dict[str, Any]
    exposed_name: str
    read_only_hint: bool | None = None
    policy: ToolPolicy = "ask"
    diagnostic: str | None = None
    # MCP Apps: the tool's page, who may call it, and (server connected) what the page declared.
    app_uri: str | None = None
    visibility: list[Visibility] = Field(default_factory=lambda: list(VISIBILITIES))
    app_domains: list[str] = Field(default_factory=list)
    app_permissions: list[str] = Field(default_factory=list)


class McpToolList(_Model):
    tools: list[McpToolView]
    live: bool = False  # False: from the schema cache (not connected now)


class McpToolPolicySet(_Model):
    server: str = Field(min_length=1, max_length=100)
    tool: str = Field(min_length=1, max_length=200)
    policy: ToolPolicy


class McpImportText(_Model):
    text: str = Field(max_length=1_000_000)
    names: list[str] | None = None  # import only these (default: every valid one)


class McpImportItem(_Model):
    name: str
    ok: bool
    error: str | None = None
    exists: bool = False
    server: McpServerView | None = None


class McpImportPreview(_Model):
    items: list[McpImportItem]


class McpImportResult(_Model):
    created: list[str]
    skipped: list[McpImportItem]


class McpResourceView(_Model):
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None


class McpResourceList(_Model):
    resources: list[McpResourceView]


class McpResourceRead(_Model):
    name: str = Field(min_length=1, max_length=100)
    uri: str = Field(min_length=1, max_length=4_000)


class McpResourceContent(_Model):
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob_bytes: int | None = None


class McpResourceContents(_Model):
    contents: list[McpResourceContent]


class McpResourceAttach(McpResourceRead):
    title: str = Field(default="", max_length=200)  # the resource's name, shown on the chip


class McpResourceAttachments(_Model):
    """Stored references to pass in `chat.send` `attachments` (one per content part)."""

    attachments: list[UploadedAttachment]


class McpPromptArgument(_Model):
    name: str
    description: str = ""
    required: bool = False


class McpPromptView(_Model):
    name: str
    description: str = ""
    arguments: list[McpPromptArgument] = Field(default_factory=list)


class McpPromptList(_Model):
    prompts: list[McpPromptView]


class McpPromptGet(_Model):
    name: str = Field(min_length=1, max_length=100)
    prompt: str = Field(min_length=1, max_length=200)
    arguments: dict[str, str] = Field(default_factory=dict)


class McpPromptMessage(_Model):
    role: str
    text: str


class McpPromptResult(_Model):
    description: str = ""
    messages: list[McpPromptMessage]


class McpCall(_Model):
    name: str = Field(min_length=1, max_length=100)
    tool: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)


class McpCallResult(_Model):
    ok: bool
    text: str
    truncated: bool = False


class McpElicitationAnswer(_Model):
    id: str = Field(min_length=1, max_length=64)
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


__all__ = ["Ok"]
