"""`cashcode mcp install FILE.mcpb [--input K=V ...] [--yes]`: an MCP Bundle.

Shows the preview (name, author, tools, the exact command line), asks on a terminal for the
required options not given with --input (a sensitive one without echo), then installs through
the mcp_catalog.bundle_* routes with the install's progress.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.mcp_install_flow import confirm_and_install, separately

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


# mcp_cmd's route call and error (passed in: that module imports this one).
Call = Callable[["CashCodeApp", str, dict[str, Any]], Awaitable[Any]]


def is_bundle_path(name: str) -> bool:
    return name.lower().endswith(".mcpb")


async def install_bundle(
    app: CashCodeApp,
    args: argparse.Namespace,
    inputs: dict[str, list[str]],
    _call_route: Call,
    _Failed: type[Exception],
) -> int:
    path = await asyncio.to_thread(lambda: Path(args.name).expanduser().absolute())
    if not await asyncio.to_thread(path.is_file):
        raise _Failed(f"{args.name}: no such file (an MCP Bundle is a .mcpb file)")
    source: dict[str, Any] = {"path": str(path), "inputs": inputs}
    preview = await _call_route(app, "mcp_catalog.bundle_preview", source)
    _show(preview)
    if preview["conflict"]:
        raise _Failed(f"{preview['conflict']}; remove it first (cashcode mcp uninstall {preview['id']})")
    if preview["problem"]:
        raise _Failed(f"this bundle cannot be installed here: {preview['problem']}")
    if sys.stdin.isatty():
        for option in preview["options"]:
            if option["required"] and option["key"] not in inputs:
                inputs[option["key"]] = [await _ask(option)]
        preview = await _call_route(app, "mcp_catalog.bundle_preview", source)
    if preview["input_problem"]:
        missing = preview.get("missing_input")
        raise _Failed(preview["input_problem"] + (f": add --input {missing}=VALUE" if missing else ""))
    print(f"Installing {preview['id']} into {preview['folder']}")
    for command in preview["commands"]:
        print(f"  $ {command}")
    print(f"  it will run: {' '.join(preview['argv'])}")
    for name, value in preview["env"].items():
        print(f"    with {name}={value}")
    if preview["loader_env"]:
        print(f"  WARNING: {', '.join(preview['loader_env'])} change which code the program runs")
    allowed = await separately(
        preview["loader_env"], args.allow_loader_env, "--allow-loader-env",
        "Allow these loader variables?", _Failed,
    )
    if allowed is None:
        print("Nothing was installed.")
        return 1
    source["allow_loader_env"] = allowed
    done = await confirm_and_install(
        app, preview["id"], "mcp_catalog.bundle_install", source,
        yes=args.yes, call=_call_route, failure=_Failed,
    )
    if done is None:
        return 1
    print(f"Installed {done['server']}: {' '.join(done['argv'])}")
    print(f"  try it: cashcode mcp tools {done['server']}")
    return 0


def _show(p: dict[str, Any]) -> None:
    print(f"{p['display_name']} {p['version']} by {p['author']['name']} ({p['server_type']} MCP Bundle)")
    if p["description"]:
        print(f"  {p['description']}")
    tools = ", ".join(t["name"] for t in p["tools"])
    if tools or p["tools_generated"]:
        more = " and more made at run time" if p["tools_generated"] else ""
        print(f"  tools: {tools or '(none listed)'}{more}")
    from app.contracts.mcp_apps import McpAppsProbe, apps_lines

    for line in apps_lines(McpAppsProbe.model_validate(p["apps"])):  # asked of the server (sandboxed)
        print(f"  {line}")
    for o in p["options"]:
        need = "required" if o["required"] else "optional"
        default = f" (default {', '.join(o['default'])})" if o["default"] else ""
        secret = ", kept in the system keychain" if o["sensitive"] else ""
        print(f"  --input {o['key']}=…  {need} {o['type']}{secret}: {o['title']}{default}")


async def _ask(option: dict[str, Any]) -> str:
    prompt = f"{option['title']} ({option['type']}): "
    if option["sensitive"]:
        return await asyncio.to_thread(getpass.getpass, prompt)
    return await asyncio.to_thread(input, prompt)
