"""Builds the capabilities from their plugins, in hook order.

Hook order = each plugin's declared `after` dependencies first, then the name: never the
position in app/api/plugins.py. A plugin declaring an unknown or cyclic dependency is a
programming error and fails at start-up with its name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from app.contracts.capability import Capability, CapabilityPlugin, DeferredCapability
from app.host.host import Host


class PluginOrderError(ValueError):
    """Plugins whose declared dependencies cannot be satisfied."""


def hook_order(plugins: Sequence[CapabilityPlugin[Host]]) -> list[CapabilityPlugin[Host]]:
    by_name = {p.name: p for p in plugins}
    if len(by_name) != len(plugins):
        raise PluginOrderError("two capability plugins share a name")
    for p in plugins:
        missing = [d for d in p.after if d not in by_name]
        if missing:
            raise PluginOrderError(f"capability {p.name!r} comes after unknown {', '.join(missing)}")
    done: list[CapabilityPlugin[Host]] = []
    placed: set[str] = set()
    pending = sorted(plugins, key=lambda p: p.name)
    while pending:
        ready = next((p for p in pending if all(d in placed for d in p.after)), None)
        if ready is None:
            names = ", ".join(p.name for p in pending)
            raise PluginOrderError(f"capability dependencies form a cycle: {names}")
        done.append(ready)
        placed.add(ready.name)
        pending.remove(ready)
    return done


class CapabilitySet(Sequence[Capability]):
    """The built capabilities in hook order (then any extra ones, e.g. tests' fakes)."""

    def __init__(
        self,
        plugins: Sequence[CapabilityPlugin[Host]],
        host: Callable[[Callable[[str], Capability]], Host],
        extra: Sequence[Capability] = (),
    ) -> None:
        self._by_name: dict[str, Capability] = {}
        self.plugins = tuple(hook_order(plugins))
        made = host(self.get)
        built: list[Capability] = []
        for plugin in self.plugins:
            cap = _instantiate(plugin, made)
            self._by_name[plugin.name] = cap
            built.append(cap)
        self._all = (*built, *extra)

    def get(self, name: str) -> Capability:
        """A built capability by name (a plugin reaches only those it declared in `after`)."""
        cap = self._by_name.get(name)
        if cap is None:
            raise KeyError(f"no capability named {name!r} has been built yet")
        return cap.get() if isinstance(cap, DeferredCapability) else cap

    def __getitem__(self, index: int) -> Capability:  # type: ignore[override]
        return self._all[index]

    def __len__(self) -> int:
        return len(self._all)

    def __iter__(self) -> Iterator[Capability]:
        return iter(self._all)


def _instantiate(plugin: CapabilityPlugin[Host], host: Host) -> Capability:
    if plugin.deferred:
        return DeferredCapability(plugin.name, lambda: plugin.build(host))
    return plugin.build(host)
