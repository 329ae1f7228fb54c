"""The Skills capability (app/api/extensions.py): runtime tools, the Skills part of the system
prompt, the per-chat activations and the `skills.*` routes."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.contracts.capability import Capability, Handler, ListedTool
from app.contracts.messages import Message, ToolSpec
from app.contracts.tools import Tool
from app.contracts.turn import ToolBox, TurnSpec
from app.skills import tool_specs
from app.skills.activations import ActivationRepository
from app.skills.runtime import McpPreparer, RuntimeConfig, SkillRuntime
from app.skills.search_index import listing_description

if TYPE_CHECKING:
    from app.host.host import Host
    from app.skills.catalog import CatalogSnapshot
    from app.skills.evolver import SkillEvolver

LISTED_IN_PROMPT = 30
MAX_MENTIONS = 8
# `@name` selects a Skill only at the start of the message or after whitespace ("me@host" does not).
_TYPED_MENTION = re.compile(r"(?:^|(?<=\s))@([a-z0-9][a-z0-9-]{0,63})(?![\w-])")


class SkillToolBox:
    """The Skill tools. Their specs are static (app/skills/tool_specs.py); the tool objects,
    which need the YAML loader, are built on the first call of any of them."""

    def __init__(self, runtime: SkillRuntime) -> None:
        self._runtime = runtime
        self._tools: dict[str, Tool] | None = None

    def specs(self) -> Sequence[ToolSpec]:
        return tool_specs.ALL

    def get(self, name: str) -> Tool | None:
        if name not in self.names():
            return None
        if self._tools is None:
            from app.skills.manage_tool import AgentSkillManageTool
            from app.skills.script_tool import RunSkillScriptTool
            from app.skills.tools import SkillLoadTool, SkillReadResourceTool, SkillSearchTool

            classes = (
                SkillSearchTool,
                SkillLoadTool,
                SkillReadResourceTool,
                RunSkillScriptTool,
                AgentSkillManageTool,
            )
            self._tools = {c.name: c(self._runtime) for c in classes}
        return self._tools.get(name)

    def names(self) -> frozenset[str]:
        return frozenset(s.name for s in tool_specs.ALL)


class SkillsCapability(Capability):
    name = "skills"

    def __init__(
        self,
        runtime: SkillRuntime,
        make_evolver: Callable[[], SkillEvolver] | None = None,
        evolution_enabled: Callable[[], bool] = lambda: False,
    ) -> None:
        self.runtime = runtime
        self._make_evolver = make_evolver
        self._evolver: SkillEvolver | None = None
        self._evolution_enabled = evolution_enabled
        self._box = SkillToolBox(runtime)
        self._warm = False
        self._api: Mapping[str, Handler] | None = (
            None  # long-lived surfaces scan the catalog at start; `ask` does not
        )

    @property
    def evolver(self) -> SkillEvolver | None:
        """Built on first use: self-evolution is off by default, so most processes (every
        `cashcode ask` with it off) never load its code."""
        if self._evolver is None and self._make_evolver is not None:
            self._evolver = self._make_evolver()
        return self._evolver

    def tool_names(self) -> frozenset[str]:
        return self._box.names()

    def routes(self) -> Mapping[str, Handler]:
        from app.skills.api_routes import ROUTE_TYPES

        return {name: self._lazy_handler(name) for name in ROUTE_TYPES}

    def _lazy_handler(self, route: str) -> Handler:
        """The route code (archives, YAML) loads on the first Skills request, not at start-up."""

        async def handle(req: Any) -> Any:
            if self._api is None:
                from app.skills.api_service import SkillsApi

                self._api = SkillsApi(self.runtime, self.evolver).handlers()
            return await self._api[route](req)

        return handle

    async def start(self) -> None:
        self._warm = True

    def toolset(self, spec: TurnSpec) -> ToolBox:
        self.runtime.begin_turn(spec.chat_id, spec.turn_id, spec.scope.skills)
        return self._box

    def listed_tools(self) -> list[ListedTool]:
        return [ListedTool(s, s.name in tool_specs.READ_ONLY) for s in tool_specs.ALL]

    def prompt_section(self, spec: TurnSpec) -> str:
        # Scan the catalog only when it is needed: in long-lived surfaces (listing), or when the
        # chat has activations or the message selects Skills. A plain `cashcode ask` stays cheap.
        wanted = self._warm or "@" in spec.user_text or bool(spec.mentions)
        chat = spec.chat_id
        snapshot = self.runtime.snapshot(chat) if wanted or self.runtime.has_activations(chat) else None
        if snapshot is None:
            return (
                "## Skills\nSkills are packaged instructions for specific tasks: find one with "
                "skill_search, then call skill_load before following it."
            )
        parts = [
            "## Skills",
            "Skills are packaged instructions for specific tasks. Find one with skill_search, "
            "then call skill_load before following it (its files: skill_read_resource, "
            "run_skill_script). To write a Skill, load cashcode-skill-creator and use "
            "agent_skill_manage.",
            self._listing(snapshot),
            self._loaded(spec.chat_id, snapshot),
            self._mentioned(spec, snapshot),
        ]
        return "\n\n".join(p for p in parts if p)

    def _listing(self, snapshot: CatalogSnapshot) -> str:
        active = snapshot.active()
        usable = [e for e in active if e.enabled]
        if not active:
            return "No Skills are installed."
        if not usable:
            # Not "none installed": the model would offer to write one the user already has.
            return (
                f"All {len(active)} installed Skills are disabled by the user, so none can be "
                "loaded; the user can enable them in the Skills view."
            )
        lines = [f"Available Skills ({len(usable)}):"]
        for e in usable[:LISTED_IN_PROMPT]:
            lines.append(f"- {e.name}: {listing_description(e.manifest.description)}")
        if len(usable) > LISTED_IN_PROMPT:
            lines.append(f"- … {len(usable) - LISTED_IN_PROMPT} more: use skill_search.")
        return "\n".join(lines)

    def _loaded(self, chat_id: str, snapshot: CatalogSnapshot) -> str:
        items = self.runtime.loaded(chat_id, snapshot)
        if not items:
            return ""
        lines = [
            "Skills activated earlier in this chat (history keeps only a receipt: call skill_load "
            "again before relying on their details):"
        ]
        lines += [
            f"- {a.name} v{a.version or '0'} {a.sha256[:12]}: {listing_description(a.description, 160)}"
            for a in items
        ]
        return "\n".join(lines)

    def _mentioned(self, spec: TurnSpec, snapshot: CatalogSnapshot) -> str:
        names = [m.name for m in spec.mentions if m.kind == "skill"]
        others = {m.name for m in spec.mentions if m.kind != "skill"}  # e.g. an MCP server
        names += [n for n in _TYPED_MENTION.findall(spec.user_text) if n not in others]
        # A Skill the agent does not allow is not in this chat's snapshot: it reads exactly as a
        # name that was never installed (issue 38), so nothing tells the two apart.
        names = list(dict.fromkeys(names))[:MAX_MENTIONS]
        if not names:
            return ""
        lines = ["The user selected these Skills for this message; call skill_load for each first:"]
        for name in names:
            entry = snapshot.get(name)
            if entry is None:
                lines.append(f"- {name}: {_not_installed(snapshot, name)}")
            elif not entry.enabled:
                lines.append(f"- {name}: disabled by the user (tell the user).")
            elif missing := self.runtime.missing(entry):
                lines.append(f"- {name}: missing dependencies ({', '.join(missing)}).")
            else:
                lines.append(f"- {name}: {listing_description(entry.manifest.description, 200)}")
        return "\n".join(lines)

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        self.runtime.turn_stored(spec.chat_id, spec.turn_id)
        # The evolver checks the setting again; this check only spares building it when off.
        wanted = self._evolver is not None or self._evolution_enabled()
        if wanted and (evolver := self.evolver) is not None:
            evolver.after_turn(spec, messages)

    async def aclose(self) -> None:
        if self._evolver is not None:
            await self._evolver.aclose()


def _not_installed(snapshot: CatalogSnapshot, name: str) -> str:
    """An invalid package says so; an unknown name comes with the closest installed names."""
    if any(d.dir_name == name for d in snapshot.diagnostics):
        return "installed but invalid, so it cannot be used (tell the user)."
    close = difflib.get_close_matches(name, sorted(e.name for e in snapshot.active()), n=3, cutoff=0.5)
    hint = f"; closest names: {', '.join(close)}" if close else ""
    return f"no installed Skill has this name{hint} (tell the user)."


def build_skills_capability(host: Host) -> SkillsCapability:
    """From the host's services (app/skills/plugin.py). Skills that require MCP servers are
    connected through the MCP capability when one is built (declared `after` it)."""
    env = host.env
    config = RuntimeConfig(
        data_dir=host.paths.data_dir,
        home=Path(env.get("HOME") or Path.home()),
        workspace=host.workspace,
        env=env,
    )
    mcp = _mcp_preparer(host)
    own_names: list[Callable[[], frozenset[str]]] = []
    runtime = SkillRuntime(
        config, ActivationRepository(host.db), known_tools=_known_tools(env, own_names), mcp=mcp
    )
    settings = host.settings

    def enabled() -> bool:
        return settings.load().skill_evolution

    def make_evolver() -> SkillEvolver:
        from app.skills.evolution import EvolutionRepository
        from app.skills.evolver import SkillEvolver

        repo = EvolutionRepository(host.db)
        return SkillEvolver(repo, runtime, enabled=enabled, provider_for=host.provider)

    cap = SkillsCapability(runtime, make_evolver, enabled)
    own_names.append(cap.tool_names)
    return cap


def _mcp_preparer(host: Host) -> McpPreparer | None:
    try:
        mcp = host.capability("mcp")
    except KeyError:
        return None
    return mcp if isinstance(mcp, McpPreparer) else None


def _known_tools(
    env: Mapping[str, str], own: list[Callable[[], frozenset[str]]]
) -> Callable[[], frozenset[str]]:
    """Built-in tool names plus the Skill tools (tools of other capabilities are not known)."""
    cache: list[frozenset[str]] = []

    def names() -> frozenset[str]:
        if not cache:
            from app.tools.registry import builtin_entries

            mine = own[0]() if own else frozenset()
            cache.append(frozenset(t.name for t in builtin_entries(env=env)) | mine)
        return cache[0]

    return names
