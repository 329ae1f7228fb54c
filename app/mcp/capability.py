"""The MCP capability (app/api/extensions.py): per-turn tools, route handlers, shutdown."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app.api.extensions import Capability, Handler, ListedTool
from app.attachments.store import AttachmentStore
from app.core.context import ToolBox, TurnSpec
from app.core.events import AppEvent
from app.mcp.activations import CAPACITY, ActivationStore
from app.mcp.catalog import UserCatalog, builtin_dir
from app.mcp.config import ConfigError
from app.mcp.connection import ServerGone
from app.mcp.service import DEFAULT_CALL_TIMEOUT_S, McpPaths, McpService, NotFoundError
from app.mcp.tools import McpDirectory, McpPrepareTool, McpToolBox, ToolSearchTool
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.settings.user_settings import SettingsStore
from app.store.db import Database

ENV_CALL_TIMEOUT = "CASHCODE_MCP_CALL_TIMEOUT_S"


class McpCapability(Capability):
    name = "mcp"

    def __init__(
        self,
        service: McpService,
        activations: ActivationStore,
        settings: SettingsStore,
        files: AttachmentStore,
    ) -> None:
        self.service = service
        self.activations = activations
        self.directory = McpDirectory(service)
        self._settings = settings
        self._files = files

    @classmethod
    def build(
        cls,
        paths: AppPaths,
        env: Mapping[str, str],
        db: Database,
        secrets: SecretStore,
        settings: SettingsStore,
        publish: Callable[[AppEvent], None],
        builtin: Path | None = None,
    ) -> McpCapability:
        try:
            timeout = float(env.get(ENV_CALL_TIMEOUT, "") or DEFAULT_CALL_TIMEOUT_S)
        except ValueError:
            timeout = DEFAULT_CALL_TIMEOUT_S
        service = McpService(
            McpPaths(
                builtin=builtin or builtin_dir(),
                catalog=paths.data_dir / "mcp" / "servers.json",
                cache=paths.cache_dir / "mcp_cache",
                logs=paths.log_dir / "mcp",
            ),
            UserCatalog(paths.data_dir / "mcp" / "servers.json", secrets),
            publish,
            call_timeout_s=timeout,
        )
        # the same folder as app/api/bootstrap.py's attachments: a resource becomes a file attachment
        return cls(service, ActivationStore(db), settings, AttachmentStore(paths.data_dir / "attachments"))

    def toolset(self, spec: TurnSpec) -> ToolBox:
        mentioned = [m.name for m in spec.mentions if m.kind == "mcp"]
        return McpToolBox(spec.chat_id, self.service, self.directory, self.activations, mentioned)

    def listed_tools(self) -> list[ListedTool]:
        # A server's own tools are listed (and turned on or off) in MCP Market.
        return [ListedTool.of(ToolSearchTool), ListedTool.of(McpPrepareTool)]

    def prompt_section(self, spec: TurnSpec) -> str | None:
        """@-selected MCP servers (SPEC S7.9): their tools are offered directly in this turn;
        a server whose tools are not known yet must be prepared first."""
        mentioned = [m for m in spec.mentions if m.kind == "mcp"]
        if not mentioned:
            return None
        d = self.directory.refresh()
        lines = ["The user selected these MCP servers for this message:"]
        for m in mentioned:
            known = [d.names[p] for p in d.tools if p[0] == m.name and p in d.names]
            if known:
                lines.append(f"- {m.name}: call its tools directly ({', '.join(known[:20])})")
            else:
                lines.append(f"- {m.name}: call mcp_prepare with server={m.name!r} first to use its tools")
        return "\n".join(lines)

    def routes(self) -> Mapping[str, Handler]:
        from app.mcp.api_handlers import McpRoutes  # route code and models: on first use

        return McpRoutes(
            self.service, self.directory, self._settings, self.activations, self._files
        ).table()

    async def start(self) -> None:
        """Long-lived surfaces have a UI that can show a server's form; the CLI never calls
        this, so there elicitation requests are declined."""
        self.service.elicitations.enable()

    async def aclose(self) -> None:
        await self.service.aclose()

    async def prepare_servers(self, chat_id: str, names: Sequence[str]) -> list[str]:
        """A loaded Skill's `requires.mcp_servers` (SPEC S7.4): connect each and activate its
        tools in the chat, so the next model step of the same turn can call them. Returns one
        status line per server; a failure is reported, never raised."""
        lines: list[str] = []
        for name in names:
            try:
                conn = await self.service.connect(name)
            except (NotFoundError, ConfigError, ServerGone) as exc:
                lines.append(f"{name}: not connected ({self.service.redact(str(exc))})")
                continue
            tools = [t.name for t in conn.tools][:CAPACITY]
            if chat_id:
                self.activations.touch(chat_id, [(name, t) for t in tools])
            self.directory.refresh()
            lines.append(f"{name}: connected, {len(tools)} tools activated")
        return lines
