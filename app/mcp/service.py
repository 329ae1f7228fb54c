"""McpService: the merged catalog, one Connection per server, schema cache and calls.

Runs on the core asyncio loop. Connecting is always explicit (a route, the CLI, or the model's
`mcp_prepare`); saving an entry never connects.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.contracts.errors import say
from app.contracts.events import AppEvent
from app.mcp import transports
from app.mcp.catalog import EntryInput, UserCatalog, load_builtin
from app.mcp.config import ConfigError, NameTaken, Resolved, ServerEntry
from app.mcp.connection import Connection, ResultTooLarge, ServerGone, ToolDef, describe
from app.mcp.elicitation import Elicitations
from app.mcp.events import McpServerStatus, McpToolProgress
from app.mcp.oauth import AuthState, BrowserSignIn, KeyringTokenStorage, SignIn, oauth_provider
from app.mcp.result_type import default_result_type
from app.mcp.results import MAX_OUTPUT_CHARS, cap, result_text, tool_def
from app.mcp.sandboxed import SandboxSource
from app.mcp.schema_cache import SchemaCache
from app.mcp.stderr_log import useful_line
from app.mcp.tool_listing import list_tools
from app.settings.secrets import SecretStoreError, redact

_log = logging.getLogger(__name__)
DEFAULT_CALL_TIMEOUT_S = 120.0
MAX_TOOLS = 5_000


class NotFoundError(LookupError):
    """No server with that name."""


class NeedsConfirmation(ConfigError):
    """A user stdio entry whose argv has not been confirmed yet."""


@dataclass(frozen=True)
class CallSite:
    """Who is calling, so progress and log notifications reach the right tool card."""

    chat_id: str = ""
    turn_id: str = ""
    tool: str = ""


@dataclass(frozen=True)
class CallOutcome:
    ok: bool
    text: str
    truncated: bool = False
    # The whole result as the server sent it (JSON), for an MCP App's card (app/mcp/app_calls.py);
    # None when asked not to keep it.
    raw: dict[str, Any] | None = None


@dataclass
class McpPaths:
    builtin: Path | None  # None: no built-in (test) servers
    catalog: Path
    cache: Path
    logs: Path


@dataclass
class _State:
    resolved: Resolved | None = None
    interactive: bool = False  # may a sign-in open the browser (the user pressed Connect)
    launched: transports.Launched | None = None
    active_calls: list[CallSite] = field(default_factory=list)
    skipped_tools: list[str] = field(default_factory=list)  # tools the last listing left out
    # The server dropped the connection on the 2026-07-28 `server/discover` probe (some older
    # servers exit on any first message but `initialize`): this process connects it in legacy
    # mode from then on (docs/decisions.md).
    legacy_only: bool = False


class McpService:
    def __init__(
        self,
        paths: McpPaths,
        catalog: UserCatalog,
        publish: Callable[[AppEvent], None],
        *,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        connect_timeout_s: float = transports.CONNECT_TIMEOUT_S,
        sign_in: Callable[[bool], SignIn] | None = None,
        client_metadata_url: str | None = None,
        sandbox: SandboxSource | None = None,
        probe_timeout_s: float = 20.0,
    ) -> None:
        self.probe_timeout_s = probe_timeout_s  # a preview's probe of a server's Apps (app/mcp/app_probe.py)
        self.sandbox = sandbox  # what a sandboxed stdio server is confined by (app/mcp/sandboxed.py)
        self._client_metadata_url = client_metadata_url
        self._sign_in = sign_in or (lambda interactive: BrowserSignIn(interactive))
        self._paths = paths
        self.catalog = catalog
        self._publish = publish
        self.cache = SchemaCache(paths.cache)
        self.call_timeout_s = call_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._builtin = {e.name: e for e in load_builtin(paths.builtin)} if paths.builtin else {}
        self._conns: dict[str, Connection] = {}
        self._state: dict[str, _State] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._known_secrets: set[str] = set()
        self.elicitations = Elicitations(publish)
        self.revision = 0  # bumped when any server's tools change (search index)
        quiet_sdk_loggers()

    # ---- catalog -------------------------------------------------------------------------------

    def entries(self) -> list[ServerEntry]:
        user = [e for e in self.catalog.entries() if e.name not in self._builtin]
        return [*self._builtin.values(), *user]

    def entry(self, name: str) -> ServerEntry:
        found = self._builtin.get(name) or next((e for e in self.catalog.entries() if e.name == name), None)
        if found is None:
            raise NotFoundError(f"there is no MCP server named {name[:60]!r}")
        return found

    def is_builtin(self, name: str) -> bool:
        return name in self._builtin

    def save(self, req: EntryInput, *, create: bool) -> ServerEntry:
        if create:
            # Compared without case: `Foo` and `foo` would share a schema-cache file on a
            # case-insensitive disk and look alike in every list.
            taken = next((e.name for e in self.entries() if e.name.lower() == req.name.lower()), None)
            if taken is not None:
                raise NameTaken(f"the name {req.name!r} is taken: a server named {taken!r} exists already")
        if req.name in self._builtin:
            raise ConfigError(f"{req.name!r} is a built-in server and cannot be changed")
        existing = next((e for e in self.catalog.entries() if e.name == req.name), None)
        if not create and existing is None:
            raise NotFoundError(f"there is no user MCP server named {req.name[:60]!r}")
        saved = self.catalog.save(req, existing=existing)
        if existing is not None and existing.fingerprint() != saved.fingerprint():
            self.cache.drop(saved.name)
            self.revision += 1
        return saved

    def status(self, name: str) -> Connection:
        conn = self._conns.get(name)
        if conn is None:
            conn = Connection(name, lambda: _never(), on_change=self._changed, redact=self.redact)
            self._conns[name] = conn
        return conn

    def tools(self, name: str) -> list[ToolDef] | None:
        """Live tools when connected, else the cached schemas (None: never seen)."""
        conn = self._conns.get(name)
        if conn is not None and conn.status == "connected":
            return conn.tools
        return self.cache.load(name, self.entry(name).fingerprint())

    def is_disconnected(self, name: str) -> bool:
        """Connected earlier in this process and disconnected since (by the user): its tools
        are not offered until the model or the user connects it again."""
        conn = self._conns.get(name)
        return conn is not None and conn.status == "disconnected" and bool(conn.tools)

    # ---- connections ---------------------------------------------------------------------------

    async def connect(self, name: str, *, interactive: bool = False) -> Connection:
        entry = self.entry(name)
        if entry.needs_confirmation:
            raise NeedsConfirmation(
                f"confirm how {name!r} starts before it runs (the command line and its environment "
                f"changed or were never confirmed): {entry.launch_summary()}"
            )
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            conn = self._conns.get(name)
            if conn is not None and conn.status == "connected":
                return conn
            if conn is not None and conn.status != "disconnected":
                await conn.disconnect()
            resolved = (
                self._builtin_resolved(entry) if entry.source == "builtin" else self.catalog.resolve(entry)
            )
            self._known_secrets.update(v for v in resolved.secret_values() if v)
            state = self._state.setdefault(name, _State())
            state.resolved = resolved
            state.interactive = interactive
            conn = Connection(
                name,
                lambda: self._open(resolved, state),
                on_change=self._changed,
                redact=self.redact,
                after_close=lambda: self._stop_launched(state),
            )
            self._conns[name] = conn
            # an interactive connect may include a browser sign-in, which takes minutes
            limit_s = self.connect_timeout_s * (6 if interactive else 1)
            await conn.connect(lambda c: self._list_tools(c, state), limit_s)
            self.cache.save(name, entry.fingerprint(), conn.tools)
            self.revision += 1
            return conn

    def _builtin_resolved(self, entry: ServerEntry) -> Resolved:
        return Resolved(entry=entry, headers={}, env={})

    def _open(self, resolved: Resolved, state: _State) -> Any:
        return _Opening(self, resolved, state)

    async def _stop_launched(self, state: _State) -> None:
        launched, state.launched = state.launched, None
        if launched is not None:
            await launched.stop()

    @staticmethod
    def uses_oauth(entry: ServerEntry) -> bool:
        """OAuth for user HTTP/SSE servers, unless the user set an Authorization header."""
        if entry.source != "user" or entry.transport == "stdio":
            return False
        return not any(h.lower() == "authorization" for h in entry.header_names)

    def auth_state(self, entry: ServerEntry) -> AuthState:
        if not self.uses_oauth(entry):
            return "none"
        try:
            return KeyringTokenStorage(self.catalog.secrets, entry.name).state()
        except SecretStoreError:
            return "none"  # no keychain: nothing can be stored, so nobody is signed in

    async def sign_out(self, name: str) -> None:
        """Disconnect (the live session holds the token in memory) and delete the tokens."""
        entry = self.entry(name)
        if not self.uses_oauth(entry):
            raise ConfigError(f"{name!r} does not sign in with OAuth")
        await self.disconnect(name)
        KeyringTokenStorage(self.catalog.secrets, name).sign_out()

    def auth_for(self, entry: ServerEntry, url: str, state: _State) -> Any:
        if not self.uses_oauth(entry):
            return None
        sign_in = self._sign_in(state.interactive)
        return oauth_provider(entry.name, url, self.catalog.secrets, sign_in, self._client_metadata_url)

    def stderr_path(self, name: str) -> Path:
        return self._paths.logs / f"{name}.stderr.log"

    def client_kwargs(self, name: str, *, legacy: bool = False) -> dict[str, Any]:
        """The SDK `Client`'s options. `auto` probes `server/discover` and speaks the stateless
        2026-07-28 protocol with a server that answers it, else falls back to the `initialize`
        handshake; `legacy` sends only the handshake (see `_Opening`)."""
        from mcp.client.extension import advertise
        from mcp.types import Implementation

        from app.mcp import apps

        async def on_log(params: Any) -> None:
            self._notify(name, "log", message=f"[{params.level}] {_short(params.data)}")

        async def on_elicit(context: Any, params: Any) -> Any:
            return await self._elicit(name, params)

        return {
            "elicitation_callback": on_elicit,
            "mode": "legacy" if legacy else "auto",
            "logging_callback": on_log,
            # 2026-07-28 servers send log lines only to requests that opt in (`_meta` logLevel);
            # "info" keeps what the handshake era showed on the tool card, without debug noise.
            "log_level": "info",
            "client_info": Implementation(name="CashCode", version="1"),
            # MCP Apps: CashCode renders `ui://` pages of tools (app/mcp/apps.py).
            "extensions": [advertise(apps.EXTENSION, apps.EXTENSION_SETTINGS)],
        }

    async def _elicit(self, name: str, params: Any) -> Any:
        from mcp.types import ElicitResult

        schema = getattr(params, "requested_schema", None)
        if getattr(params, "mode", "form") != "form" or schema is None:
            return self._decline_url(name, params)
        schema_dict = dict(schema)
        calls = self._state.get(name, _State()).active_calls
        site = calls[-1] if calls else CallSite()
        action, content = await self.elicitations.ask(
            name,
            self.redact(params.message),
            schema_dict,
            chat_id=site.chat_id,
            turn_id=site.turn_id,
            tool=site.tool,
        )
        return ElicitResult(action=action, content=content)

    def _decline_url(self, name: str, params: Any) -> Any:
        """URL-mode elicitation (spec 2025-11-25) is declined: CashCode never opens a page a
        server chose (docs/decisions.md). The tool card says so, naming only the host."""
        from urllib.parse import urlsplit

        from mcp.types import ElicitResult

        host = urlsplit(str(getattr(params, "url", "") or "")).hostname or "an unknown site"
        reason = (
            f"{name} asked to open a web page on {host} ({_short(getattr(params, 'message', ''))[:200]}); "
            "declined — CashCode does not open links for MCP servers. Open the server's site "
            "yourself if you trust it, then retry."
        )
        _log.info("declined a URL-mode elicitation from %s (%s)", name, host)
        self._notify(name, "log", message=reason)
        return ElicitResult(action="decline")

    async def _list_tools(self, client: Any, state: _State) -> list[ToolDef]:
        listing = await list_tools(client, tool_def, MAX_TOOLS)
        state.skipped_tools = listing.skipped
        return listing.tools

    def skipped_tools(self, name: str) -> list[str]:
        """What the last listing of `name` skipped (a malformed tool), one line each."""
        state = self._state.get(name)
        return list(state.skipped_tools) if state is not None else []

    async def disconnect(self, name: str) -> None:
        self.entry(name)
        conn = self._conns.get(name)
        if conn is not None:
            await conn.disconnect()

    async def aclose(self) -> None:
        await asyncio.gather(*(c.disconnect() for c in self._conns.values()), return_exceptions=True)

    async def forget(self, name: str) -> None:
        await self.disconnect(name)
        self._conns.pop(name, None)
        self._state.pop(name, None)
        self.cache.drop(name)
        self.revision += 1

    def _changed(self, conn: Connection) -> None:
        self._publish(
            McpServerStatus(
                name=conn.name,
                status=conn.status,
                error=conn.error,
                tool_count=len(conn.tools),
                error_key=conn.error_key,
                error_params=conn.error_params,
            )
        )

    # ---- using a connection ---------------------------------------------------------------------

    async def connected(self, name: str) -> Connection:
        conn = self._conns.get(name)
        if conn is None or conn.status != "connected" or conn.client is None:
            conn = await self.connect(name)
        return conn

    async def call(
        self,
        server: str,
        tool: str,
        args: Mapping[str, Any],
        site: CallSite,
        *,
        limit: int = MAX_OUTPUT_CHARS,
        keep_raw: bool = False,
    ) -> CallOutcome:
        """`limit`: the characters kept (the model pages through them; a direct call keeps fewer)."""
        conn = await self.connected(server)
        state = self._state.setdefault(server, _State())
        state.active_calls.append(site)

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            self._notify(server, "progress", message=message or "", progress=progress, total=total, only=site)

        try:
            try:
                result = await self._guarded(
                    conn, conn.client.call_tool(tool, dict(args), self.call_timeout_s, on_progress)
                )
            except _AskedTheOldWay:
                # A tool written for the handshake era asked the user something (elicitation)
                # on a 2026-07-28 connection, which has no channel for it, and failed at that
                # point. Reconnect this server in legacy mode and run the call once more.
                _log.info("MCP server %s asked the handshake way; reconnecting it in legacy mode", server)
                state.legacy_only = True
                await conn.disconnect()
                conn = await self.connected(server)
                result = await self._guarded(
                    conn, conn.client.call_tool(tool, dict(args), self.call_timeout_s, on_progress)
                )
        finally:
            state.active_calls.remove(site)
        text, truncated = cap(self.redact(result_text(result)), limit)
        raw = result.model_dump(by_alias=True, mode="json", exclude_none=True) if keep_raw else None
        return CallOutcome(ok=not bool(result.is_error), text=text, truncated=truncated, raw=raw)

    async def _guarded(self, conn: Connection, request: Any) -> Any:
        """Await a request; a timeout or a dead server becomes a clear error, and a dead server
        is reported (status failed) so it can be reconnected."""
        try:
            async with asyncio.timeout(self.call_timeout_s + 5):
                return await request
        except TimeoutError:
            raise ServerGone(f"the server did not answer within {self.call_timeout_s:.0f} s") from None
        except Exception as exc:
            reason = self.redact(describe(exc))
            if _NO_BACK_CHANNEL in reason and not self._state.get(conn.name, _State()).legacy_only:
                raise _AskedTheOldWay(reason) from exc
            if _is_gone(exc):
                await conn.crashed(say("mcp.stopped", reason=reason))  # waits for the session's end
                if _event_too_large(conn.ended_by):
                    said_too_large = say("mcp.result_too_large", server=conn.name, limit=SSE_EVENT_LIMIT)
                    await conn.crashed(said_too_large)  # the status says the same as the call
                    raise ResultTooLarge(said_too_large) from None
                raise ServerGone(
                    f"the server stopped during the call ({reason}); reconnect to retry"
                ) from None
            if "timed out" in reason.lower() or "timeout" in reason.lower():
                raise ServerGone(f"the server did not answer within {self.call_timeout_s:.0f} s") from None
            raise ServerGone(reason) from None

    async def request(self, server: str, what: str, *args: Any) -> Any:
        """resources/prompts: `what` is a Client method name (list_resources, read_resource,
        list_prompts, get_prompt)."""
        conn = await self.connected(server)
        return await self._guarded(conn, getattr(conn.client, what)(*args))

    def _notify(self, server: str, kind: Any, *, only: CallSite | None = None, **fields: Any) -> None:
        sites = [only] if only is not None else list(self._state.get(server, _State()).active_calls)
        message = self.redact(str(fields.pop("message", "")))[:1_000]
        for site in sites:
            if site.chat_id:
                self._publish(
                    McpToolProgress(
                        chat_id=site.chat_id,
                        turn_id=site.turn_id,
                        tool=site.tool,
                        server=server,
                        kind=kind,
                        message=message,
                        **fields,
                    )
                )

    def redact(self, text: str) -> str:
        return redact(text, self._known_secrets)

    def publish(self, event: AppEvent) -> None:
        self._publish(event)


class _Opening:
    """The async context manager the owner task enters: launch (built-in HTTP) + client."""

    def __init__(self, service: McpService, resolved: Resolved, state: _State) -> None:
        self._s = service
        self._r = resolved
        self._state = state
        self._cm: Any = None

    async def __aenter__(self) -> Any:
        entry = self._r.entry
        url = self._r.target_url
        if entry.launch is not None:
            launched = await transports.launch(
                entry.launch.command, entry.launch.args, self._s.stderr_path(entry.name)
            )
            self._state.launched = launched
            url = url.replace("${port}", str(launched.port))
        try:
            try:
                return await self._enter(url, legacy=self._state.legacy_only)
            except Exception as exc:
                if self._state.legacy_only or not _dropped_on_probe(exc):
                    raise
                # The connection closed before any answer: an older server that takes nothing
                # but `initialize` first. Start it again with the handshake alone.
                _log.info("MCP server %s hung up on the server/discover probe; trying initialize", entry.name)
                client = await self._enter(url, legacy=True)
                self._state.legacy_only = True  # only once the handshake worked
                return client
        except BaseException as exc:
            log = self._s.stderr_path(entry.name)
            line = useful_line(transports.stderr_tail(log)) if entry.transport == "stdio" else ""
            if line and not isinstance(exc, asyncio.CancelledError):
                # One whole line that says why, and where the rest is (app/mcp/stderr_log.py).
                raise ServerGone(
                    say("mcp.failed_start", reason=describe(exc), line=line, log=str(log))
                ) from exc
            raise

    async def _enter(self, url: str, *, legacy: bool) -> Any:
        entry = self._r.entry
        self._cm = transports.open_client(
            self._r,
            url=url,
            stderr_path=self._s.stderr_path(entry.name),
            client_kwargs=self._s.client_kwargs(entry.name, legacy=legacy),
            auth=self._s.auth_for(entry, url, self._state),
            sandbox=self._s.sandbox,
        )
        client = await self._cm.__aenter__()
        default_result_type(client)
        return client

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._cm.__aexit__(*exc)
        return result


# The SDK logs every wire message at DEBUG (tool output included, which a careless server may
# fill with a secret it was given); the HTTP stack logs request details. Keep them above DEBUG
# unless someone set a level on purpose.
_QUIET = {"mcp": logging.INFO, "httpx2": logging.WARNING, "httpcore2": logging.WARNING}


def quiet_sdk_loggers() -> None:
    for name, level in _QUIET.items():
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(level)


SSE_EVENT_LIMIT = "1 MiB"  # what the SDK's SSE client reads per event (httpx2's default)


def _event_too_large(exc: BaseException | None) -> bool:
    """The session ended because one server-sent event was over the SDK's limit."""
    if exc is None:
        return False
    if isinstance(exc, BaseExceptionGroup):
        return any(_event_too_large(e) for e in exc.exceptions)
    return "Server-sent event exceeded" in str(exc) or _event_too_large(exc.__cause__)


# What the SDK's servers answer when a tool sends a server-to-client request (elicitation,
# sampling, roots) on a 2026-07-28 connection, where such requests have no channel.
_NO_BACK_CHANNEL = "no back-channel for server-initiated requests"


class _AskedTheOldWay(Exception):
    """A call failed with `_NO_BACK_CHANNEL` on a connection that was not legacy."""


def _dropped_on_probe(exc: BaseException) -> bool:
    """Opening failed because the other side hung up before answering (the SDK's "Connection
    closed", a closed stream): what a server that refuses a first `server/discover` does. An
    error the server answered, a sign-in or a missing program is not this."""
    import anyio

    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)):
        return True
    return type(exc).__name__ == "MCPError" and str(exc) == "Connection closed"


def _is_gone(exc: BaseException) -> bool:
    import anyio

    if isinstance(
        exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)
    ):
        return True
    text = str(exc).lower()
    return "connection closed" in text or "closed" in text and "stream" in text


def _short(data: Any) -> str:
    return data if isinstance(data, str) else repr(data)[:500]


def _never() -> Any:
    raise ConfigError("not connected")
