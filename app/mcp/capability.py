"""The MCP capability (app/api/extensions.py): per-turn tools, route handlers, shutdown.

The MCP service (catalog files, schema cache, connections) and the tool code are built on first
need: a turn in a chat without activated MCP tools and without an @-selected server sees only
the two static tool specs (app/mcp/tool_specs.py), so `cashcode ask` never loads them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.contracts.agents import ALL, Allowed
from app.contracts.capability import Capability, Handler, ListedTool
from app.contracts.messages import Message, ToolSpec
from app.contracts.tools import Tool
from app.contracts.turn import ToolBox, TurnSpec
from app.mcp.activations import CAPACITY, ActivationStore
from app.mcp.tool_specs import BASE_TOOLS
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.settings.user_settings import SettingsStore
from app.store.db import Database

if TYPE_CHECKING:
    from app.contracts.events import AppEvent
    from app.contracts.tools import ApprovalLedger
    from app.host.host import ToolRunner
    from app.mcp.app_calls import AppCallStore
    from app.mcp.app_pages import AppPages
    from app.mcp.apps_routes import AppContexts
    from app.mcp.result_pages import ResultPages
    from app.mcp.sandboxed import SandboxSource
    from app.mcp.service import McpService
    from app.mcp.tools import McpDirectory

ENV_CALL_TIMEOUT = "CASHCODE_MCP_CALL_TIMEOUT_S"
# The three built-in *test* servers (resources/mcp_servers) are not in the user's Market; tests
# and `cashcode mcp` reach them with this variable set to 1 (docs/decisions.md 141).
ENV_TEST_SERVERS = "CASHCODE_MCP_TEST_SERVERS"


@dataclass(frozen=True)
class _ServiceArgs:
    """What McpService needs, kept until the service is first used."""

    paths: AppPaths
    secrets: SecretStore
    publish: Callable[[AppEvent], None]
    call_timeout: str  # the raw ENV_CALL_TIMEOUT value ("" = the default)
    builtin: Path | None
    test_servers: bool  # ENV_TEST_SERVERS is "1": the built-in test servers are listed
    sandbox: SandboxSource | None = None  # for servers set to run sandboxed
    probe_timeout_s: float = 20.0  # a preview's probe of a server's Apps


class McpCapability(Capability):
    name = "mcp"

    def __init__(
        self,
        make_service: Callable[[], McpService],
        activations: ActivationStore,
        settings: SettingsStore,
        attachments_dir: Path,
        catalogs: tuple[Path | None, Path] | None = None,  # (built-in, user) for the prompt's server list
        *,
        db: Database | None = None,
        run_tool: ToolRunner | None = None,
        ledger: ApprovalLedger | None = None,
    ) -> None:
        self._db = db
        self._run_tool = run_tool
        self._ledger = ledger
        self._catalogs = catalogs
        self._make_service = make_service
        self.activations = activations
        self._settings = settings
        self._attachments_dir = attachments_dir
        self._allowed: dict[str, Allowed] = {}  # chat -> the servers its agent allows (this turn)

    @functools.cached_property
    def service(self) -> McpService:
        return self._make_service()

    @functools.cached_property
    def directory(self) -> McpDirectory:
        from app.mcp.tools import McpDirectory

        return McpDirectory(self.service)

    @functools.cached_property
    def pages(self) -> ResultPages:
        from app.mcp.result_pages import ResultPages

        return ResultPages()

    @functools.cached_property
    def app_calls(self) -> AppCallStore | None:
        from app.mcp.app_calls import AppCallStore

        return AppCallStore(self._db) if self._db is not None else None

    @functools.cached_property
    def app_pages(self) -> AppPages:
        from app.mcp.app_pages import AppPages

        return AppPages()

    @functools.cached_property
    def app_contexts(self) -> AppContexts:
        from app.mcp.apps_routes import AppContexts

        return AppContexts()

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
        workspace: Callable[[], Path] | None = None,
        run_tool: ToolRunner | None = None,
        ledger: ApprovalLedger | None = None,
    ) -> McpCapability:
        test_servers = env.get(ENV_TEST_SERVERS, "") == "1"
        from app.contracts.mcp_apps import probe_timeout
        from app.mcp.sandboxed import sandbox_source

        source = sandbox_source(paths, settings, env, workspace) if workspace is not None else None
        args = _ServiceArgs(
            paths,
            secrets,
            publish,
            env.get(ENV_CALL_TIMEOUT, ""),
            builtin,
            test_servers,
            source,
            probe_timeout(env),
        )
        # the same folder as app/api/bootstrap.py's attachments: a resource becomes a file attachment
        from app.mcp.frozen import builtin_root

        # The built-in catalog holds only the test servers: listed in the prompt only when the
        # service knows them (a user's prompt carried three unusable servers, issue 34).
        catalogs = (
            (builtin or builtin_root()) / "mcp_config.json" if test_servers else None,
            paths.data_dir / "mcp" / "servers.json",
        )
        return cls(
            lambda: _service(args),
            ActivationStore(db),
            settings,
            paths.data_dir / "attachments",
            catalogs,
            db=db,
            run_tool=run_tool,
            ledger=ledger,
        )

    def toolset(self, spec: TurnSpec) -> ToolBox:
        allowed = spec.scope.mcp_servers
        if allowed.everything:
            self._allowed.pop(spec.chat_id, None)
        else:  # for a loaded Skill's servers (prepare_servers) during this turn
            self._allowed[spec.chat_id] = allowed
        mentioned = [m.name for m in spec.mentions if m.kind == "mcp" and allowed.allows(m.name)]
        return _TurnTools(
            spec.chat_id,
            mentioned,
            self.activations,
            lambda: self._toolbox(spec.chat_id, mentioned, allowed),
            allowed,
        )

    def _toolbox(self, chat_id: str, mentioned: Sequence[str], allowed: Allowed = ALL) -> ToolBox:
        from app.mcp.tools import McpToolBox

        return McpToolBox(
            chat_id,
            self.service,
            self.directory,
            self.activations,
            self.pages,
            mentioned,
            self.app_calls,
            allowed,
        )

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        # A reserved chat (`cashcode ask`) is stored with its first turn: now its activations can be.
        self.activations.flush(spec.chat_id)
        if "app_calls" in self.__dict__ and self.app_calls is not None:
            self.app_calls.flush(spec.chat_id)

    def tool_result_notes(self, chat_id: str) -> Mapping[str, str]:
        """Exports show an App as this line above its tool result (never its page)."""
        if self.app_calls is None:
            return {}
        return {
            c.call_id: f"MCP App of {c.tool} ({c.server}, {c.uri}): interactive, shown in CashCode only."
            for c in self.app_calls.list(chat_id)
        }

    def turn_context(self, spec: TurnSpec) -> str | None:
        """The latest model-context update of each MCP App shown in this chat (data the Apps
        sent; each was shown on its App's card when it arrived)."""
        if "app_contexts" not in self.__dict__:
            return None
        return self.app_contexts.block(spec.chat_id)

    def listed_tools(self) -> list[ListedTool]:
        # A server's own tools are listed (and turned on or off) in MCP Market.
        return [ListedTool(spec, read_only=True) for spec in BASE_TOOLS]

    def prompt_section(self, spec: TurnSpec) -> str | None:
        """@-selected MCP servers (SPEC S7.9): their tools are offered directly in this turn;
        a server whose tools are not known yet must be prepared first."""
        from app.mcp.server_list import configured_servers, prompt_lines

        allowed = spec.scope.mcp_servers  # another agent's servers are not listed (issue 38)
        servers = (
            [s for s in configured_servers(*self._catalogs) if allowed.allows(s[0])] if self._catalogs else []
        )
        listed = prompt_lines(servers)
        mentioned = [m for m in spec.mentions if m.kind == "mcp"]
        if not mentioned:
            return "\n".join(listed) or None
        d = self.directory.refresh()
        lines = [*listed, "The user selected these MCP servers for this message:"]
        for m in mentioned:
            known = [
                d.names[p] for p in d.tools if p[0] == m.name and p in d.names and allowed.allows(m.name)
            ]
            if known:
                lines.append(f"- {m.name}: call its tools directly ({', '.join(known[:20])})")
            else:
                lines.append(f"- {m.name}: call mcp_prepare with server={m.name!r} first to use its tools")
        return "\n".join(lines)

    def routes(self) -> Mapping[str, Handler]:
        from app.attachments.store import AttachmentStore
        from app.mcp.api_handlers import McpRoutes, _mapped  # route code and models: on first use

        files = AttachmentStore(self._attachments_dir)
        table = McpRoutes(self.service, self.directory, self._settings, self.activations, files).table()
        if self.app_calls is not None and self._run_tool is not None and self._ledger is not None:
            from app.mcp.apps_routes import AppRoutes

            app_routes = AppRoutes(
                self.service,
                self.directory,
                self.activations,
                self.pages,
                self.app_calls,
                self.app_pages,
                self.app_contexts,
                self._run_tool,
                self._ledger,
            )
            table.update({name: _mapped(h) for name, h in app_routes.table().items()})
        return table

    async def start(self) -> None:
        """Long-lived surfaces have a UI that can show a server's form; the CLI never calls
        this, so there elicitation requests are declined."""
        self.service.elicitations.enable()

    async def aclose(self) -> None:
        if "service" in self.__dict__:  # never built: nothing was connected
            await self.service.aclose()

    async def prepare_servers(self, chat_id: str, names: Sequence[str]) -> list[str]:
        """A loaded Skill's `requires.mcp_servers` (SPEC S7.4): connect each and activate its
        tools in the chat, so the next model step of the same turn can call them. Returns one
        status line per server; a failure is reported, never raised."""
        from app.mcp.config import ConfigError
        from app.mcp.connection import ServerGone
        from app.mcp.service import NotFoundError

        lines: list[str] = []
        allowed = self._allowed.get(chat_id, ALL) if chat_id else ALL
        for name in names:
            if not allowed.allows(name):  # as a server never configured
                lines.append(f"{name}: not connected (there is no MCP server named {name[:60]!r})")
                continue
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


class _TurnTools:
    """One turn's MCP tools. With nothing activated in the chat and no @-selected server they
    are the two static specs; otherwise, and as soon as one of them is called, the real
    toolbox (service, catalog, activated tools) is built and answers from then on."""

    def __init__(
        self,
        chat_id: str,
        mentioned: Sequence[str],
        activations: ActivationStore,
        full: Callable[[], ToolBox],
        allowed: Allowed = ALL,
    ) -> None:
        self._allowed = allowed
        self._chat_id = chat_id
        self._mentioned = tuple(mentioned)
        self._activations = activations
        self._make_full = full
        self._full: ToolBox | None = None

    def _box(self) -> ToolBox:
        if self._full is None:
            self._full = self._make_full()
        return self._full

    def specs(self) -> Sequence[ToolSpec]:
        if (
            self._full is None
            and not self._mentioned
            and not (
                self._chat_id
                and any(self._allowed.allows(server) for server, _ in self._activations.list(self._chat_id))
            )
        ):
            return BASE_TOOLS
        return self._box().specs()

    def get(self, name: str) -> Tool | None:
        return self._box().get(name)


def _service(args: _ServiceArgs) -> McpService:
    from app.mcp.catalog import UserCatalog, builtin_dir
    from app.mcp.service import DEFAULT_CALL_TIMEOUT_S, McpPaths, McpService

    try:
        timeout = float(args.call_timeout or DEFAULT_CALL_TIMEOUT_S)
    except ValueError:
        timeout = DEFAULT_CALL_TIMEOUT_S
    paths = args.paths
    return McpService(
        McpPaths(
            builtin=(args.builtin or builtin_dir()) if args.test_servers else None,
            catalog=paths.data_dir / "mcp" / "servers.json",
            cache=paths.cache_dir / "mcp_cache",
            logs=paths.log_dir / "mcp",
        ),
        UserCatalog(paths.data_dir / "mcp" / "servers.json", args.secrets),
        args.publish,
        call_timeout_s=timeout,
        sandbox=args.sandbox,
        probe_timeout_s=args.probe_timeout_s,
    )
