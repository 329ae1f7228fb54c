"""Handlers of the mcp.* routes: validation, views with masked secrets, error mapping."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel

from app.attachments.store import AttachmentStore
from app.contracts import replies as m
from app.contracts.errors import ApiFailure, said, say
from app.contracts.mcp_apps import McpAppsProbe
from app.mcp import api_models as x
from app.mcp import sandboxed
from app.mcp.activations import ActivationStore
from app.mcp.app_probe import Prober
from app.mcp.apps import AppPolicy, declared_policy
from app.mcp.catalog import EntryInput, mask_url
from app.mcp.config import ConfigError, NameTaken, Resolved, ServerEntry
from app.mcp.connection import ResultTooLarge, ServerGone
from app.mcp.elicitation import ElicitationError
from app.mcp.importer import parse_snippet
from app.mcp.resource_attach import ResourceAttachError, ResourcePart, store_parts
from app.mcp.results import DIRECT_CALL_CHARS
from app.mcp.service import McpService, NeedsConfirmation, NotFoundError
from app.mcp.tools import McpDirectory
from app.settings.secrets import MASK
from app.settings.user_settings import SettingsStore

MAX_APP_PREVIEWS = 20  # App pages read for one tool list


class McpRoutes:
    def __init__(
        self,
        service: McpService,
        directory: McpDirectory,
        settings: SettingsStore,
        activations: ActivationStore,
        files: AttachmentStore,
    ) -> None:
        self._files = files
        self._s = service
        self._dir = directory
        self._settings = settings
        self._activations = activations

    def table(self) -> dict[str, Callable[[Any], Awaitable[BaseModel]]]:
        handlers: dict[str, Callable[[Any], Awaitable[BaseModel]]] = {
            "mcp.servers.list": self.list,
            "mcp.servers.get": self.get,
            "mcp.servers.create": self.create,
            "mcp.servers.update": self.update,
            "mcp.servers.delete": self.delete,
            "mcp.servers.confirm": self.confirm,
            "mcp.servers.connect": self.connect,
            "mcp.servers.disconnect": self.disconnect,
            "mcp.servers.sign_out": self.sign_out,
            "mcp.servers.tools": self.tools,
            "mcp.servers.apps_preview": self.apps_preview,
            "mcp.servers.import_preview": self.import_preview,
            "mcp.servers.import": self.import_save,
            "mcp.tools.set_policy": self.set_policy,
            "mcp.tools.call": self.call,
            "mcp.resources.list": self.resources,
            "mcp.resources.read": self.read_resource,
            "mcp.resources.attach": self.attach_resource,
            "mcp.prompts.list": self.prompts,
            "mcp.prompts.get": self.get_prompt,
            "mcp.elicitation.answer": self.answer_elicitation,
        }
        return {name: _mapped(h) for name, h in handlers.items()}

    def view(self, e: ServerEntry, *, preview: bool = False) -> x.McpServerView:
        conn = self._s.status(e.name) if not preview else None
        known = [] if conn is None else conn.tools if conn.status == "connected" else self._s.tools(e.name)
        return x.McpServerView(
            name=e.name,
            display_name=e.display_name or e.name,
            description=e.description,
            transport=e.transport,
            source=e.source,
            status=conn.status if conn else "disconnected",
            error=conn.error if conn else None,
            error_key=conn.error_key if conn else "",
            error_params=conn.error_params if conn else {},
            tool_count=len(known or []),
            diagnostics=self._s.skipped_tools(e.name) if conn is not None else [],
            url=mask_url(e.url),
            headers=dict.fromkeys(e.header_names, MASK),
            command=e.command,
            args=list(e.args),
            env={**dict(e.env), **dict.fromkeys(e.secret_env, MASK)},
            secret_env=list(e.secret_env),
            argv=list(e.argv),
            needs_confirmation=e.needs_confirmation,
            loader_env=e.loader_env(),
            editable=e.source == "user",
            sandbox=e.sandbox,
            network=e.network,
            sandbox_status=self._sandbox_status(e),
            auth=self._s.auth_state(e) if not preview else "none",
        )

    def _sandbox_status(self, e: ServerEntry) -> str:
        if not e.sandboxed:
            return sandboxed.status(e, False, "")
        box = self._s.sandbox() if self._s.sandbox else None
        return sandboxed.status(
            e,
            box is not None and box.spec.available,
            box.spec.reason if box else "no sandbox",
            box is not None and box.spec.namespaces,
        )

    async def list(self, req: m.Empty) -> x.McpServerList:
        return x.McpServerList(servers=[self.view(e) for e in self._s.entries()])

    async def get(self, req: x.McpServerRef) -> x.McpServerView:
        return self.view(self._s.entry(req.name))

    async def create(self, req: x.McpServerCreate) -> x.McpServerView:
        return self.view(self._s.save(EntryInput(**req.model_dump()), create=True))

    async def update(self, req: x.McpServerUpdate) -> x.McpServerView:
        old = self._s.entry(req.name)
        if old.source == "builtin":
            raise ApiFailure("invalid", say("mcp.builtin_edit", name=req.name))
        fields = req.model_dump()
        fields["transport"] = fields["transport"] or old.transport
        await self._s.disconnect(req.name)  # the next connect uses the new settings
        return self.view(self._s.save(EntryInput(**fields), create=False))

    async def delete(self, req: x.McpServerRef) -> m.Ok:
        entry = self._s.entry(req.name)
        if entry.source == "builtin":
            raise ApiFailure("invalid", say("mcp.builtin_delete", name=req.name))
        await self._s.forget(req.name)
        self._s.catalog.delete(entry)
        self._activations.forget_server(req.name)  # a new server of that name starts hidden
        return m.Ok()

    async def confirm(self, req: x.McpServerRef) -> x.McpServerView:
        entry = self._s.entry(req.name)
        if entry.source == "user" and entry.transport == "stdio":
            entry = self._s.catalog.confirm(entry)
        return self.view(entry)

    async def connect(self, req: x.McpServerRef) -> x.McpServerView:
        await self._s.connect(req.name, interactive=True)  # a sign-in may open the browser
        return self.view(self._s.entry(req.name))

    async def disconnect(self, req: x.McpServerRef) -> x.McpServerView:
        await self._s.disconnect(req.name)
        return self.view(self._s.entry(req.name))

    async def sign_out(self, req: x.McpServerRef) -> x.McpServerView:
        await self._s.sign_out(req.name)
        return self.view(self._s.entry(req.name))

    async def tools(self, req: x.McpServerRef) -> x.McpToolList:
        entry = self._s.entry(req.name)
        conn = self._s.status(entry.name)
        known = self._s.tools(entry.name) or []
        d = self._dir.refresh()
        policies = self._settings.load().tool_policies
        views = []
        live = conn.status == "connected"
        declared: dict[str, AppPolicy] = {}
        for t in known:
            exposed = d.names.get((entry.name, t.name), "")
            uri = t.ui_resource_uri
            if live and uri is not None and uri not in declared and len(declared) < MAX_APP_PREVIEWS:
                declared[uri] = await self._app_policy(entry.name, uri)
            app = declared.get(uri or "", AppPolicy())
            views.append(
                x.McpToolView(
                    name=t.name,
                    description=t.description,
                    input_schema=t.input_schema,
                    exposed_name=exposed,
                    read_only_hint=t.read_only_hint,
                    policy=policies.get(exposed, "ask"),
                    diagnostic=t.diagnostic,
                    app_uri=uri,
                    visibility=[v for v in x.VISIBILITIES if v in t.visibility],
                    app_domains=[*app.connect, *app.resources, *app.frames, *app.base_uris],
                    app_permissions=list(app.permissions),
                )
            )
        return x.McpToolList(tools=views, live=live)

    async def apps_preview(self, req: x.McpServerRef) -> McpAppsProbe:
        """The confirm step's Apps: the server started once in the sandbox (app/mcp/app_probe.py),
        before it was ever connected (a separate, confined start even when a connection exists:
        the connected tool list, `mcp.servers.tools`, is the place for a connected server)."""
        entry = self._s.entry(req.name)
        if entry.source == "builtin":
            resolved = Resolved(entry=entry, headers={}, env={})
        else:
            resolved = self._s.catalog.resolve(entry)
        return await Prober(self._s.sandbox, self._s.probe_timeout_s).resolved(resolved)

    async def _app_policy(self, server: str, uri: str) -> AppPolicy:
        """What an App's page declares (domains, permissions), for the tool list: read from the
        server; a page that cannot be read declares nothing."""
        try:
            read = await self._s.request(server, "read_resource", uri)
        except (ConfigError, ServerGone):
            return AppPolicy()
        return declared_policy(read)

    async def import_preview(self, req: x.McpImportText) -> x.McpImportPreview:
        names = {e.name for e in self._s.entries()}
        items = []
        for item in parse_snippet(req.text):
            items.append(
                x.McpImportItem(
                    name=item.name,
                    ok=item.error is None and item.name not in names,
                    error=item.error
                    or (f"a server named {item.name!r} already exists" if item.name in names else None),
                    exists=item.name in names,
                    server=self._preview_view(item.preview) if item.preview else None,
                )
            )
        return x.McpImportPreview(items=items)

    def _preview_view(self, e: ServerEntry) -> x.McpServerView:
        return self.view(e, preview=True)

    async def import_save(self, req: x.McpImportText) -> x.McpImportResult:
        preview = await self.import_preview(req)
        wanted = set(req.names) if req.names is not None else None
        entries = {i.name: i.entry for i in parse_snippet(req.text)}
        created, skipped = [], []
        for item in preview.items:
            if wanted is not None and item.name not in wanted:
                continue
            entry = entries.get(item.name)
            if not item.ok or entry is None:
                skipped.append(item)
                continue
            self._s.save(entry, create=True)
            created.append(item.name)
        return x.McpImportResult(created=created, skipped=skipped)

    async def set_policy(self, req: x.McpToolPolicySet) -> m.Ok:
        self._s.entry(req.server)
        d = self._dir.refresh()
        exposed = d.names.get((req.server, req.tool))
        if exposed is None:
            raise ApiFailure("not_found", say("mcp.unknown_tool", server=req.server, tool=req.tool))
        self._settings.update(
            lambda s: s.model_copy(update={"tool_policies": {**s.tool_policies, exposed: req.policy}})
        )
        return m.Ok()

    async def call(self, req: x.McpCall) -> x.McpCallResult:
        from app.mcp.service import CallSite

        # shown whole to a person (CLI, the tool tester), not paged: kept shorter (decision 361)
        out = await self._s.call(req.name, req.tool, req.arguments, CallSite(), limit=DIRECT_CALL_CHARS)
        return x.McpCallResult(ok=out.ok, text=out.text, truncated=out.truncated)

    async def resources(self, req: x.McpServerRef) -> x.McpResourceList:
        result = await self._s.request(req.name, "list_resources")
        return x.McpResourceList(
            resources=[
                x.McpResourceView(
                    uri=str(r.uri), name=r.name, description=r.description or "", mime_type=r.mime_type
                )
                for r in result.resources
            ]
        )

    async def read_resource(self, req: x.McpResourceRead) -> x.McpResourceContents:
        result = await self._s.request(req.name, "read_resource", req.uri)
        out = []
        for c in result.contents:
            text = getattr(c, "text", None)
            blob = getattr(c, "blob", None)
            out.append(
                x.McpResourceContent(
                    uri=str(c.uri),
                    mime_type=c.mime_type,
                    text=self._s.redact(text)[:1_000_000] if text is not None else None,
                    blob_bytes=len(blob) * 3 // 4 if blob is not None else None,
                )
            )
        return x.McpResourceContents(contents=out)

    async def attach_resource(self, req: x.McpResourceAttach) -> x.McpResourceAttachments:
        result = await self._s.request(req.name, "read_resource", req.uri)
        parts = [
            ResourcePart(
                uri=str(c.uri),
                mime_type=c.mime_type,
                text=self._s.redact(c.text) if getattr(c, "text", None) is not None else None,
                blob=getattr(c, "blob", None),
            )
            for c in result.contents
        ]
        try:
            stored = await store_parts(self._files, req.name, req.title, parts)
        except ResourceAttachError as exc:
            raise ApiFailure("invalid", self._s.redact(str(exc))) from None
        return x.McpResourceAttachments(attachments=stored)

    async def prompts(self, req: x.McpServerRef) -> x.McpPromptList:
        result = await self._s.request(req.name, "list_prompts")
        return x.McpPromptList(
            prompts=[
                x.McpPromptView(
                    name=p.name,
                    description=p.description or "",
                    arguments=[
                        x.McpPromptArgument(
                            name=a.name, description=a.description or "", required=bool(a.required)
                        )
                        for a in (p.arguments or [])
                    ],
                )
                for p in result.prompts
            ]
        )

    async def get_prompt(self, req: x.McpPromptGet) -> x.McpPromptResult:
        # A required argument left out is the person's mistake: say which one, whatever the
        # server answers (a 2026-07-28 SDK server says only "Internal server error").
        listed = await self._s.request(req.name, "list_prompts")
        declared = next((p for p in listed.prompts if p.name == req.prompt), None)
        for argument in (declared.arguments or []) if declared is not None else []:
            if argument.required and argument.name not in req.arguments:
                raise ApiFailure("invalid", say("request.field_missing", field=f"arguments.{argument.name}"))
        result = await self._s.request(req.name, "get_prompt", req.prompt, dict(req.arguments))
        messages = []
        for msg in result.messages:
            content = msg.content
            text = getattr(content, "text", None)
            messages.append(
                x.McpPromptMessage(role=msg.role, text=text if text is not None else f"[{content.type}]")
            )
        return x.McpPromptResult(description=result.description or "", messages=messages)

    async def answer_elicitation(self, req: x.McpElicitationAnswer) -> m.Ok:
        try:
            found = self._s.elicitations.answer(req.id, req.action, req.content)
        except ElicitationError as exc:
            raise ApiFailure("invalid", said(exc)) from None
        if not found:
            raise ApiFailure("not_found", say("mcp.elicitation_gone"))
        return m.Ok()


def _mapped(handler: Callable[[Any], Awaitable[BaseModel]]) -> Callable[[Any], Awaitable[BaseModel]]:
    """Our exceptions -> API error codes (messages are already redacted)."""

    async def run(req: Any) -> BaseModel:
        try:
            return await handler(req)
        except NotFoundError as exc:
            raise ApiFailure("not_found", said(exc)) from None
        except NeedsConfirmation as exc:
            raise ApiFailure("conflict", said(exc)) from None
        except NameTaken as exc:
            raise ApiFailure("conflict", said(exc)) from None
        except ConfigError as exc:
            raise ApiFailure("invalid", said(exc)) from None
        except ResultTooLarge as exc:  # the same call would fail again
            details = {"retryable": "false", "reason": "mcp_result_too_large"}
            raise ApiFailure("provider_error", said(exc), details) from None
        except ServerGone as exc:
            raise ApiFailure("provider_error", said(exc), {"retryable": "true"}) from None

    return run


__all__ = ["McpRoutes", "Mapping"]
