"""The MCP Registry in `cashcode mcp catalog` (its entries after the curated ones, marked as from
the registry) and `cashcode mcp install NAME` for a registry name (`io.github.acme/weather`).
Called from app/cli/mcp_cmd.py; the routes are app/mcp_catalog/registry_service.py's."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from app.cli.mcp_install_flow import confirm_and_install, separately

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

# app/cli/mcp_cmd.py's route caller (it raises that module's failure, printed as an error line)
Call = Callable[["CashCodeApp", str, dict[str, Any]], Awaitable[Any]]


def is_registry_name(name: str) -> bool:
    """Registry names are `namespace/name` in reverse-DNS form; npm scopes start with `@`."""
    return name.count("/") == 1 and not name.startswith("@") and not name.lower().endswith(".mcpb")


async def registry_part(app: CashCodeApp, call: Call, search: str) -> dict[str, Any]:
    return dict(await call(app, "mcp_catalog.registry.search", {"search": search}))


def print_registry(data: dict[str, Any]) -> None:
    state = data["state"]
    print()
    if state == "unset":
        print(f"MCP Registry: {data['notice']}")
        return
    if state == "offline":
        print(f"MCP Registry offline: {data['notice']}")
        return
    if state == "cached" and data["notice"]:
        print(f"MCP Registry: {data['notice']}")
    saved = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(data["fetched_at"]))
    when = f", saved results from {saved}" if state == "cached" else ""
    print(f"From the MCP Registry ({data['base_url']}{when}):")
    for s in data["servers"]:
        opt = s["options"][s["install_option"]] if s["install_option"] >= 0 else None
        if opt is None:
            how = "cannot be installed here"
        elif opt["kind"] == "remote":
            how = f"remote {opt['transport']} {opt['url']}"
        else:
            how = f"{opt['registry']} {opt['identifier']}=={opt['version']}"
        state_word = "installed" if s["installed"] else "registry"
        print(f"{s['name']:<40} {state_word:<10} {how}")
        if s["description"]:
            print(f"{'':<40} {s['description'][:200]}")
        for i in opt["inputs"] if opt else ():
            need = "required" if i["required"] else "optional"
            secret = ", secret (keychain)" if i["secret"] else ""
            print(f"{'':<40}   --input {i['key']}=…  {need}{secret}, {i['description'][:100]}")
        if opt is None:
            for o in s["options"]:
                print(f"{'':<40}   {o['kind']} {o['registry'] or o['transport']}: {o['problem']}")
    if not data["servers"]:
        print("No registry server matches.")
    if data["next_cursor"]:
        print("More results in the registry: narrow them with --search TEXT (or page on in the Market).")
    for line in data["skipped"]:
        print(f"skipped a malformed registry entry: {line}", file=sys.stderr)


ADDRESS_NOTES = {
    "loopback": "this server is on this computer (a loopback address)",
    "link_local": "this server is at a link-local address (this network segment, e.g. 169.254.x.x)",
    "private": "this server is on a private network (a LAN address)",
}


def print_apps(probe: dict[str, Any]) -> None:
    """A preview's MCP Apps lines (app/contracts/mcp_apps.py), indented under the plan."""
    from app.contracts.mcp_apps import McpAppsProbe, apps_lines

    for line in apps_lines(McpAppsProbe.model_validate(probe)):
        print(f"  {line}")


def print_launch(plan: dict[str, Any]) -> None:
    """Exactly what the install writes (issue 33 item 2): the pinned package, the program with
    every argument, every variable (secret values ********), loader variables called out."""
    if plan["kind"] == "remote":
        print(f"  it will connect to: {plan['url']} ({plan['transport']})")
        for name, value in sorted(plan["headers"].items()):
            print(f"    with header {name}: {value}")
        if plan["address"]:
            print(f"  NOTE: {ADDRESS_NOTES[plan['address']]}")
        for name in plan["plain_http_secrets"]:
            print(f"  WARNING: the {name} header would cross the network unencrypted (plain http://)")
        return
    pinned = f"{plan['registry']} {plan['identifier']}=={plan['version']}"
    sha = f" (sha256 {plan['file_sha256']})" if plan["file_sha256"] else ""
    print(f"  package: {pinned}{sha}")
    print(f"  it will run: {' '.join(plan['argv'])}")
    for name, value in sorted(plan["env"].items()):
        print(f"    with {name}={value}")
    if plan["loader_env"]:
        print(f"  WARNING: {', '.join(plan['loader_env'])} change which code the program runs")


async def install_from_registry(
    app: CashCodeApp,
    args: argparse.Namespace,
    call: Call,
    inputs: dict[str, list[str]],
    failure: type[Exception],
) -> int:
    request: dict[str, Any] = {"name": args.name, "inputs": inputs}
    plan = await call(app, "mcp_catalog.registry.plan", request)
    where = f" into {plan['folder']}" if plan["folder"] else ""
    print(f"Installing {args.name} from the MCP Registry as {plan['id']}{where}")
    for command in plan["commands"]:
        print(f"  $ {command}")
    print_launch(plan)
    print_apps(plan["apps"])
    allow_loader = await separately(
        plan["loader_env"], args.allow_loader_env, "--allow-loader-env",
        "Allow these loader variables?", failure,
    )
    allow_http = await separately(
        plan["plain_http_secrets"], args.allow_http_auth, "--allow-http-auth",
        "Send these headers unencrypted?", failure,
    )
    if allow_loader is None or allow_http is None:
        print("Nothing was installed.")
        return 1
    # the install confirms exactly the launch shown above (the plan's digest)
    install = {
        **request,
        "confirm": plan["confirm"],
        "allow_loader_env": allow_loader,
        "allow_plain_http_auth": allow_http,
    }
    done = await confirm_and_install(
        app, plan["id"], "mcp_catalog.registry.install", install, yes=args.yes, call=call, failure=failure
    )
    if done is None:
        return 1
    what = " ".join(done["argv"]) if done["argv"] else "a URL server"
    print(f"Installed {done['server']}: {what}")
    if done.get("apps") and plan["kind"] != "remote":
        print_apps(done["apps"])
    print(f"  try it: cashcode mcp tools {done['server']}")
    return 0
