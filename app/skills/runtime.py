"""What the Skill tools, prompt section and routes share: the services for the current
workspace, the search index, dependency checks and the activations of each chat.

Nothing here is global: the capability builds one `SkillRuntime` and passes it to its tools.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from app.contracts.agents import ALL, Allowed
from app.skills.activations import Activation, ActivationRepository

if TYPE_CHECKING:  # the catalog parses YAML: loaded on first use, not at start-up
    from app.skills.catalog import CatalogEntry, CatalogSnapshot
    from app.skills.search_index import SearchHit, SkillSearchIndex
    from app.skills.wiring import SkillServices


_MAX_CUTS = 64  # agents' cuts of the catalog kept at once (cleared when more are asked for)


@runtime_checkable
class McpPreparer(Protocol):
    """What the Skills runtime asks of an MCP capability (when one is wired): connect the
    servers a loaded Skill requires. Returns one human-readable status line per server."""

    async def prepare_servers(self, chat_id: str, names: Sequence[str]) -> list[str]: ...


@dataclass(frozen=True)
class RuntimeConfig:
    data_dir: Path
    home: Path
    workspace: Callable[[], Path]
    env: Mapping[str, str]
    builtin_dir: Path | None = None


class SkillRuntime:
    def __init__(
        self,
        config: RuntimeConfig,
        activations: ActivationRepository | None,
        *,
        known_tools: Callable[[], frozenset[str]] = frozenset,
        mcp: McpPreparer | None = None,
    ) -> None:
        self.config = config
        self.activations = activations
        self.known_tools = known_tools
        self.mcp = mcp
        self._index: SkillSearchIndex | None = None
        self._lock = threading.Lock()
        self._services: dict[Path, SkillServices] = {}
        self._pending: dict[str, dict[str, list[Activation]]] = {}  # chat -> turn -> loaded
        self._allowed: dict[str, Allowed] = {}  # chat -> the Skills its agent allows (this turn)
        # Each agent's cut of the catalog, by its Allowed, made again only when the catalog's
        # entries change (an unchanged refresh keeps them): not 500 checks on every snapshot.
        self._cuts: dict[Allowed, tuple[CatalogSnapshot, CatalogSnapshot]] = {}

    # -- services --------------------------------------------------------------------------------

    def services(self) -> SkillServices:
        """The Skill services of the current workspace (cached per workspace folder)."""
        workspace = self.config.workspace()
        with self._lock:
            found = self._services.get(workspace)
            if found is None:
                from app.skills.wiring import build_skill_services

                found = build_skill_services(
                    self.config.data_dir, self.config.home, workspace, builtin_dir=self.config.builtin_dir
                )
                self._services[workspace] = found
            return found

    def snapshot(self, chat_id: str | None = None) -> CatalogSnapshot:
        """The catalog; for a chat, only the Skills its agent allows (issue 38): the others are
        not there at all, so no tool, prompt line or "closest names" hint can show them."""
        snap = self.services().catalog.refresh()
        allowed = self._allowed.get(chat_id, ALL) if chat_id else ALL
        if allowed.everything:
            return snap
        from dataclasses import replace

        cut = self._cuts.get(allowed)
        if cut is None or cut[0].entries is not snap.entries or cut[0].diagnostics is not snap.diagnostics:
            mine = replace(
                snap,
                entries=tuple(e for e in snap.entries if allowed.allows(e.name)),
                diagnostics=tuple(d for d in snap.diagnostics if allowed.allows(d.dir_name)),
            )
            with self._lock:
                if len(self._cuts) >= _MAX_CUTS:
                    self._cuts.clear()
                self._cuts[allowed] = cut = (snap, mine)
        return replace(cut[1], revision=snap.revision)

    def allowed(self, chat_id: str) -> Allowed:
        return self._allowed.get(chat_id, ALL)

    def has_activations(self, chat_id: str) -> bool:
        return self.activations is not None and bool(chat_id) and self.activations.any(chat_id)

    def search(
        self,
        query: str,
        limit: int = 10,
        snapshot: CatalogSnapshot | None = None,
        *,
        chat_id: str | None = None,
    ) -> list[SearchHit]:
        """Best first; for a chat, only the Skills its agent allows. One index over the whole
        catalog serves every agent (it is cached per catalog, not per agent)."""
        from app.skills.search_index import SkillSearchIndex

        snap = snapshot or self.services().catalog.refresh()
        with self._lock:
            if self._index is None:
                self._index = SkillSearchIndex()
            index = self._index
        allowed = self.allowed(chat_id) if chat_id else ALL
        if allowed.everything:
            return index.search(snap.entries, query, limit)
        # The ranking itself steps past the other Skills (asking for more and filtering after,
        # widening when too few were the agent's, put the p95 at ~5 ms for 500 of 2,000).
        return index.search(snap.entries, query, limit, keep=allowed.allows)

    def protected_roots(self) -> tuple[Path, ...]:
        """Every Skill root (builtin, external, user, agent) and the store's own folders."""
        services = self.services()
        roots = [r.path for r in services.roots.ordered()]
        roots += [services.paths.staging, services.paths.snapshots]
        return tuple(dict.fromkeys(roots))

    # -- dependencies ----------------------------------------------------------------------------

    def missing(self, entry: CatalogEntry) -> list[str]:
        """Required bins, env variables and tools that are absent ("missing dependencies")."""
        req = entry.manifest.requires
        path = self.config.env.get("PATH", os.environ.get("PATH", ""))
        out = [f"program '{b}'" for b in req.bins if shutil.which(b, path=path) is None]
        out += [f"environment variable '{v}'" for v in req.env if not self.config.env.get(v)]
        known = self.known_tools()
        out += [f"tool '{t}'" for t in req.tools if t not in known]
        return out

    # -- activations -----------------------------------------------------------------------------

    def begin_turn(self, chat_id: str, turn_id: str, allowed: Allowed = ALL) -> None:
        """Loads of earlier, unfinished turns of this chat are dropped (they were not stored).
        `allowed`: the Skills the chat's agent may use, from now until its next turn."""
        with self._lock:
            self._pending[chat_id] = {turn_id: []}
            if allowed.everything:
                self._allowed.pop(chat_id, None)
            else:
                self._allowed[chat_id] = allowed

    def note_loaded(self, chat_id: str, turn_id: str, item: Activation) -> None:
        with self._lock:
            turns = self._pending.setdefault(chat_id, {})
            turns.setdefault(turn_id, []).append(item)

    def turn_stored(self, chat_id: str, turn_id: str) -> None:
        with self._lock:
            items = self._pending.get(chat_id, {}).pop(turn_id, [])
        if self.activations is not None and items:
            self.activations.record(chat_id, items)

    def loaded_this_turn(self, chat_id: str, turn_id: str, name: str, sha256: str) -> bool:
        with self._lock:
            items = self._pending.get(chat_id, {}).get(turn_id, [])
            return any(a.name == name and a.sha256 == sha256 for a in items)

    def is_loaded(self, chat_id: str, turn_id: str, entry: CatalogEntry) -> bool:
        """Loaded in this chat: in this turn, or in a stored earlier turn, with today's SKILL.md."""
        if self.loaded_this_turn(chat_id, turn_id, entry.name, entry.sha256):
            return True
        if self.activations is None or not chat_id:
            return False
        return any(a.name == entry.name and a.sha256 == entry.sha256 for a in self.activations.list(chat_id))

    def loaded(self, chat_id: str, snapshot: CatalogSnapshot) -> list[Activation]:
        """The chat's activations that still hold: same SKILL.md hash, enabled, selectable."""
        if self.activations is None or not chat_id:
            return []
        out: list[Activation] = []
        for item in self.activations.list(chat_id):
            entry = snapshot.get(item.name)
            if (
                entry is not None
                and entry.selectable
                and entry.sha256 == item.sha256
                and self.allowed(chat_id).allows(item.name)
            ):
                out.append(item)
        return out
