"""Adding a capability is one package plus one line in app/api/plugins.py (issue 21).

A temp copy of `app/` gets a throwaway `demo` package and that one line, nothing else; a child
Python then builds the real app from the copy and checks that the capability's route, schema
step, event type, settings section, listed tool and hook order all arrive, and the layer
contracts still hold for the copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

DEMO_PLUGIN = '''
"""A throwaway capability: a route, a table, an event, a settings section and a tool."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from app.contracts.capability import Capability, CapabilityPlugin, Handler, ListedTool, SettingsSection
from app.contracts.events import Event
from app.contracts.messages import ToolSpec
from app.contracts.replies import Empty

if TYPE_CHECKING:
    from app.host.host import Host


class DemoSettings(BaseModel):
    greeting: str = "hello"


class DemoPing(Event):
    type: Literal["demo_ping"] = "demo_ping"
    n: int


class Pong(BaseModel):
    greeting: str
    rows: int


EVENTS = (DemoPing,)
ROUTE_TYPES = {"demo.ping": (Empty, Pong)}
SECTION = SettingsSection("demo", lambda: DemoSettings)


class Demo(Capability):
    name = "demo"

    def __init__(self, host: Host) -> None:
        from app.host.host import SectionStore

        self._host = host
        self._settings = SectionStore(host.settings, "demo", DemoSettings)
        self.mcp_seen = type(host.capability("mcp")).__name__

    def routes(self) -> Mapping[str, Handler]:
        async def ping(req: Any) -> BaseModel:
            with self._host.db.transaction() as conn:
                conn.execute("INSERT INTO demo_things (x) VALUES (1)")
            rows = self._host.db.query("SELECT count(*) FROM demo_things")[0][0]
            self._host.publish(DemoPing(n=rows))
            return Pong(greeting=self._settings.load().greeting, rows=rows)

        return {"demo.ping": ping}

    def listed_tools(self) -> Sequence[ListedTool]:
        return [ListedTool(ToolSpec(name="demo_tool", description="A demo.", parameters={}), True)]


def _table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE demo_things (x INTEGER)")


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="demo",
    build=lambda host: Demo(host),
    routes="app.demo.plugin",
    events="app.demo.plugin",
    migrations=(_table,),
    settings=SECTION,
    after=("mcp",),
)
'''

CHILD = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from pathlib import Path
    from app.api.bootstrap import build_app
    from app.api.tsgen import render
    from app.settings.paths import AppPaths
    from app.settings.user_settings import SettingsStore

    home = Path(sys.argv[1])
    folders = {"DATA": "data", "CONFIG": "cfg", "LOG": "log", "CACHE": "cache"}
    paths = AppPaths.from_env({f"CASHCODE_{k}_DIR": str(home / v) for k, v in folders.items()})

    async def main():
        paths.ensure()
        store = SettingsStore(paths.settings_path)
        store.save(store.load().model_copy(update={"sections": {"demo": {"greeting": "hi there"}}}))
        app = build_app(paths, {"HOME": str(home)})
        seen = []
        app.subscribe(lambda e: seen.append(e.type))
        pong = await app.invoke("demo.ping")
        tools = await app.invoke("tools.list")
        names = [c.name for c in app.capabilities]
        demo = app.capabilities.get("demo")
        await app.aclose()
        ts = render()
        tool = any(t["name"] == "demo_tool" for t in tools["data"]["tools"])
        print(json.dumps({
            "pong": pong, "events": seen, "tool": tool, "order": names, "mcp_seen": demo.mcp_seen,
            "ts_event": "DemoPing" in ts, "ts_route": '"demo.ping"' in ts,
        }))

    asyncio.run(main())
    """
)


def test_a_capability_is_one_package_and_one_line(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "app", copy / "app", ignore=shutil.ignore_patterns("__pycache__", "web"))
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    (copy / "app" / "demo").mkdir()
    (copy / "app" / "demo" / "__init__.py").write_text('"""A throwaway capability."""\n')
    (copy / "app" / "demo" / "plugin.py").write_text(DEMO_PLUGIN)
    plugins = copy / "app" / "api" / "plugins.py"
    text = plugins.read_text()
    # The one line: import the plugin and name it in the list.
    text = text.replace("PLUGINS: tuple[CapabilityPlugin[Host], ...] = (\n",
                        "from app.demo.plugin import PLUGIN as DEMO  # noqa: E402\n\n"
                        "PLUGINS: tuple[CapabilityPlugin[Host], ...] = (\n    DEMO,\n")
    plugins.write_text(text)
    changed = _changed_files(REPO / "app", copy / "app")
    assert changed == {"api/plugins.py", "demo/__init__.py", "demo/plugin.py"}

    keyring = "app.testing.fake_keyring.MemoryKeyring"
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHON_KEYRING_BACKEND": keyring}
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "home")], cwd=copy, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["pong"] == {"ok": True, "data": {"greeting": "hi there", "rows": 1}}
    assert "demo_ping" in got["events"]
    assert got["tool"] and got["ts_event"] and got["ts_route"]
    # Declared `after=("mcp",)`: built after MCP (and could use it), wherever the line is.
    assert got["order"].index("demo") > got["order"].index("mcp") and got["mcp_seen"] == "McpCapability"

    lint = subprocess.run([str(Path(sys.executable).with_name("lint-imports"))], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=300)
    assert lint.returncode == 0, lint.stdout[-3000:]


def _changed_files(before: Path, after: Path) -> set[str]:
    def files(root: Path) -> dict[str, bytes]:
        found = (p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
        return {str(p.relative_to(root)): p.read_bytes() for p in found}

    a, b = files(before), files(after)
    return {name for name in a.keys() | b.keys() if a.get(name) != b.get(name)}
