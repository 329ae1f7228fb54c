"""The plugin list and its rules: declarations stay cheap, names are unique, order is declared."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from app.api.capabilities import PluginOrderError, hook_order
from app.api.plugins import PLUGINS, registered_events
from app.contracts.capability import Capability, CapabilityPlugin
from app.contracts.events import CORE_EVENTS

APP = Path(__file__).resolve().parents[2] / "app"


def test_plugin_modules_import_only_the_contracts_at_module_level() -> None:
    # Every plugin.py is imported at every start (`cashcode ask` too): its capability's code
    # must load inside `build`, not here.
    for path in sorted(APP.glob("*/plugin.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("app."):
                assert node.module.startswith("app.contracts"), f"{path}: imports {node.module}"


def test_every_declared_module_exists_and_holds_what_it_declares() -> None:
    for plugin in PLUGINS:
        if plugin.routes:
            table = importlib.import_module(plugin.routes).ROUTE_TYPES
            assert table and all(name.count(".") >= 1 for name in table), plugin.name
        if plugin.events:
            assert importlib.import_module(plugin.events).EVENTS, plugin.name
    types = [e.model_fields["type"].default for e in registered_events()]
    assert len(types) == len(set(types)) and len(types) > len(CORE_EVENTS)


def _plugin(name: str, after: tuple[str, ...] = ()) -> CapabilityPlugin[object]:
    return CapabilityPlugin(name=name, build=lambda host: Capability(), after=after)


def test_hook_order_follows_dependencies_then_names_not_list_position() -> None:
    a, b, c = _plugin("alpha", after=("charlie",)), _plugin("bravo"), _plugin("charlie")
    for listed in ([a, b, c], [c, b, a], [b, a, c]):
        assert [p.name for p in hook_order(listed)] == ["bravo", "charlie", "alpha"]  # type: ignore[arg-type]


def test_unknown_or_cyclic_dependencies_fail_at_start_up_by_name() -> None:
    with pytest.raises(PluginOrderError, match="ghost"):
        hook_order([_plugin("alpha", after=("ghost",))])  # type: ignore[list-item]
    with pytest.raises(PluginOrderError, match="cycle"):
        hook_order([_plugin("alpha", after=("bravo",)), _plugin("bravo", after=("alpha",))])  # type: ignore[list-item]
    with pytest.raises(PluginOrderError, match="share a name"):
        hook_order([_plugin("alpha"), _plugin("alpha")])  # type: ignore[list-item]
