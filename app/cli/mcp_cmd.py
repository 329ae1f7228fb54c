"""`cashcode mcp …`: list, add, import, remove, confirm, tools, call, resources, prompts; and the
catalog: catalog, install, uninstall (app/mcp_catalog).

Every command goes through the API facade (mcp.* routes) like the desktop app does. A stdio
server added here runs exactly the argv typed on the command line, so `add` confirms it; an
imported stdio server must be confirmed with `cashcode mcp confirm NAME` after reading its argv.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.mcp_install_flow import confirm_and_install
from app.cli.mcp_registry_cmd import print_apps

if TYPE_CHECKING:
    from app.api.app import CashCodeApp


_SANDBOX_HELP = (
    "run a stdio server confined by the sandbox (Linux Landlock): it reads the system, its own "
    "install folder and the workspace, writes only the workspace and a private temp folder, never "
    "reads ~/.ssh, keyrings or the app's data (default: off for servers you add, on for servers "
    "installed from the catalog, a bundle or the Registry)"
)
_NETWORK_HELP = (
    "let a sandboxed server open TCP connections (Landlock filters TCP by port, not by host: "
    "allowed means any host)"
)


def _sandbox_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sandbox", action=argparse.BooleanOptionalAction, default=None, help=_SANDBOX_HELP)
    parser.add_argument("--network", action=argparse.BooleanOptionalAction, default=None, help=_NETWORK_HELP)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("mcp", help="manage MCP servers (list, add, import, call, …)")
    sub = parser.add_subparsers(dest="mcp_command", required=True)
    listing = sub.add_parser("list", help="list built-in and user MCP servers")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(func=_runner(_list))
    add = sub.add_parser(
        "add",
        help="add a server: NAME --command PROG [ARG ...] [--env K=V ...] [--env-plain K=V ...] | "
        "NAME --url URL [--transport http|sse] [--header K=V ...]",
    )
    add.add_argument("name")
    add.add_argument("--url")
    add.add_argument("--transport", choices=["http", "sse"], default="http")
    add.add_argument("--header", action="append", default=[], metavar="K=V")
    add.add_argument(
        "--env", action="append", default=[], metavar="K=V", help="a variable whose value goes to the keyring"
    )
    add.add_argument(
        "--env-plain",
        action="append",
        default=[],
        metavar="K=V",
        help="a variable that is not secret (stored and shown as typed)",
    )
    add.add_argument(
        "--allow-http-auth",
        action="store_true",
        help="allow credential headers (Authorization, X-Api-Key, Cookie, …) over plain http:// "
        "to another computer",
    )
    add.add_argument("--description", help="what the server does (tool_search finds it by this)")
    _sandbox_flags(add)  # before --command: everything after it is the command line
    add.add_argument("--command", nargs=argparse.REMAINDER, metavar="PROG [ARG ...]")
    add.set_defaults(func=_runner(_add))
    sandbox = sub.add_parser(
        "set", help="change a user stdio server's sandbox: --sandbox/--no-sandbox, --network"
    )
    sandbox.add_argument("name")
    _sandbox_flags(sandbox)
    sandbox.set_defaults(func=_runner(_set))
    imp = sub.add_parser("import", help="import servers from an mcpServers JSON file")
    imp.add_argument("file")
    imp.add_argument("--description", help="for imported servers without one: what they do")
    imp.set_defaults(func=_runner(_import))
    for name, help_text, func in (
        ("remove", "delete a user server", _remove),
        ("confirm", "allow a stdio server's command line to run", _confirm),
        ("resources", "list a server's resources", _resources),
        ("prompts", "list a server's prompts", _prompts),
    ):
        cmd = sub.add_parser(name, help=help_text)
        cmd.add_argument("name")
        cmd.set_defaults(func=_runner(func))
    tools = sub.add_parser("tools", help="connect and list a server's tools")
    tools.add_argument("name")
    tools.add_argument("--json", action="store_true")
    tools.set_defaults(func=_runner(_tools))
    call = sub.add_parser("call", help="call a tool and print its text (exit 1 on a tool error)")
    call.add_argument("name")
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="the arguments as a JSON object")
    call.set_defaults(func=_runner(_call))
    _add_catalog_parsers(sub)


def _add_catalog_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`mcp catalog`, `mcp install`, `mcp uninstall` (issue 28): the curated catalog."""
    catalog = sub.add_parser("catalog", help="list the servers of the MCP catalog")
    catalog.add_argument("--search", default="", metavar="TEXT", help="only servers matching TEXT")
    catalog.add_argument("--json", action="store_true", help="machine-readable output")
    catalog.set_defaults(func=_runner(_catalog))
    install = sub.add_parser(
        "install",
        help="install a server of the MCP catalog or Registry, or an MCP Bundle (.mcpb), into the app cache",
    )
    install.add_argument(
        "name",
        metavar="NAME|FILE.mcpb",
        help="a catalog server (id or package name), an MCP Registry name, or an MCP Bundle file",
    )
    install.add_argument("--input", action="append", default=[], metavar="K=V", help="an input value")
    install.add_argument("--yes", action="store_true", help="install without asking")
    install.add_argument(
        "--allow-loader-env",
        action="store_true",
        help="allow variables that change which code runs (NODE_OPTIONS, PYTHONPATH, …); "
        "never implied by --yes",
    )
    install.add_argument(
        "--allow-http-auth",
        action="store_true",
        help="allow secret headers over plain http:// to another computer (a Registry remote)",
    )
    install.set_defaults(func=_runner(_install))
    uninstall = sub.add_parser(
        "uninstall", help="remove a catalog server or MCP Bundle and what was installed for it"
    )
    uninstall.add_argument("name")
    uninstall.set_defaults(func=_runner(_uninstall))


class _Failed(Exception):
    pass


def _runner(
    body: Callable[[CashCodeApp, argparse.Namespace], Awaitable[int]],
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        async def main() -> int:
            from app.cli.runtime import open_plain_app

            app = open_plain_app(os.environ)
            try:
                return await body(app, args)
            except _Failed as exc:
                print(f"cashcode: error: {exc}", file=sys.stderr)
                return 1
            finally:
                await app.aclose()

        return asyncio.run(main())

    return run


async def _call_route(app: CashCodeApp, route: str, payload: dict[str, Any]) -> Any:
    envelope = await app.invoke(route, payload)
    if not envelope["ok"]:
        error = envelope["error"]
        missing = (error.get("details") or {}).get("missing_input")
        # The API names a required input left empty; how to give one is the CLI's own advice.
        raise _Failed(error["message"] + (f": add --input {missing}=VALUE" if missing else ""))
    return envelope["data"]


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    servers = (await _call_route(app, "mcp.servers.list", {}))["servers"]
    if args.json:
        print(json.dumps(servers, indent=2, ensure_ascii=False))
        return 0
    if not servers:
        print("No MCP servers.")
        return 0
    rows = [("NAME", "TRANSPORT", "SOURCE", "STATUS", "COMMAND OR URL")]
    for s in servers:
        where = " ".join(s["argv"]) if s["transport"] == "stdio" else s["url"]
        flag = " [needs confirmation]" if s["needs_confirmation"] else ""
        flag += f" [{s['sandbox_status']}]" if s["sandbox_status"] else ""
        rows.append((s["name"], s["transport"], s["source"], s["status"], where + flag))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    print("  ".join(cell.ljust(width) for cell, width in zip(rows[0][:4], widths, strict=True)), rows[0][4])
    for s, row in zip(servers, rows[1:], strict=True):
        print("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)), row[4])
        _print_launch_env(s)  # the fixed values are part of what runs (issue 33 item 2)
    return 0


def _print_launch_env(view: dict[str, Any]) -> None:
    """Every variable of a launch (secret values are ******** in the view) and the loader
    variables called out."""
    if view["env"]:
        print("  with env " + " ".join(f"{k}={v}" for k, v in sorted(view["env"].items())))
    if view["loader_env"]:
        print(f"  WARNING: {', '.join(view['loader_env'])} change which code the program loads")


def _pairs(items: Sequence[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise _Failed(f"{what} must look like NAME=VALUE, got {item!r}")
        out[key] = value
    return out


def _split_command(tokens: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """`--command PROG ARG … [--env K=V …] [--env-plain K=V …]`: the pairs may follow the
    program's arguments. Returns argv, secret pairs, plain pairs."""
    argv: list[str] = []
    env: list[str] = []
    plain: list[str] = []
    it = iter(tokens)
    for token in it:
        if token == "--env":
            env.append(next(it, ""))
        elif token == "--env-plain":
            plain.append(next(it, ""))
        else:
            argv.append(token)
    return argv, env, plain


async def _add(app: CashCodeApp, args: argparse.Namespace) -> int:
    if bool(args.command) == bool(args.url):
        raise _Failed("give either --command PROG [ARG ...] or --url URL")
    if args.command:
        argv, more_env, more_plain = _split_command(args.command)
        if not argv:
            raise _Failed("--command needs the program to run")
        # Every --env value is a secret (a name does not tell: DB_PW, GITHUB_PAT); only what
        # the user marks with --env-plain is stored in the catalog file as typed.
        secret = _pairs([*args.env, *more_env], "--env")
        plain = _pairs([*args.env_plain, *more_plain], "--env-plain")
        both = sorted(set(secret) & set(plain))
        if both:
            raise _Failed(f"{both[0]} is given both as --env and --env-plain")
        payload: dict[str, Any] = {
            "name": args.name,
            "transport": "stdio",
            "command": argv[0],
            "args": argv[1:],
            "env": {**plain, **secret},
            "secret_env": list(secret),
        }
        if args.description is not None:
            payload["description"] = args.description
        payload.update(_sandbox_fields(args))
        await _call_route(app, "mcp.servers.create", payload)
        view = await _call_route(app, "mcp.servers.confirm", {"name": args.name})
        print(f"Added {args.name} (stdio): {' '.join(view['argv'])}")
        print(f"  {view['sandbox_status']}")
        _print_launch_env(view)
        return 0
    if args.sandbox or args.network:
        raise _Failed("--sandbox and --network are for stdio servers (--command)")
    payload = {
        "name": args.name,
        "transport": args.transport,
        "url": args.url,
        "headers": _pairs(args.header, "--header"),
        "allow_plain_http_auth": args.allow_http_auth,
    }
    if args.description is not None:
        payload["description"] = args.description
    await _call_route(app, "mcp.servers.create", payload)
    view = await _call_route(app, "mcp.servers.get", {"name": args.name})
    print(f"Added {args.name} ({args.transport}): {view['url']}")
    return 0


def _sandbox_fields(args: argparse.Namespace) -> dict[str, bool]:
    fields = {"sandbox": args.sandbox, "network": args.network}
    return {k: v for k, v in fields.items() if v is not None}


async def _set(app: CashCodeApp, args: argparse.Namespace) -> int:
    fields = _sandbox_fields(args)
    if not fields:
        raise _Failed("give --sandbox/--no-sandbox and/or --network/--no-network")
    view = await _call_route(app, "mcp.servers.get", {"name": args.name})
    if view["transport"] != "stdio" or not view["editable"]:
        raise _Failed(f"{args.name} is not a user stdio server: only those run under the sandbox")
    view = await _call_route(app, "mcp.servers.update", {"name": args.name, **fields})
    print(f"{args.name}: {view['sandbox_status']}")
    return 0


async def _import(app: CashCodeApp, args: argparse.Namespace) -> int:

    from app.cli.input_file import MAX_CONFIG_BYTES, InputFileError, read_input_file

    try:
        text = (await asyncio.to_thread(read_input_file, Path(args.file), MAX_CONFIG_BYTES)).decode("utf-8")
    except InputFileError as exc:
        raise _Failed(str(exc)) from None
    except UnicodeDecodeError:
        raise _Failed(f"cannot read {args.file}: it is not UTF-8 text") from None
    result = await _call_route(app, "mcp.servers.import", {"text": text})
    for name in result["created"]:
        view = await _call_route(app, "mcp.servers.get", {"name": name})
        if args.description is not None and not view.get("description"):
            view = await _call_route(
                app, "mcp.servers.update", {"name": name, "description": args.description}
            )
        where = " ".join(view["argv"]) if view["transport"] == "stdio" else view["url"]
        print(f"Imported {name} ({view['transport']}): {where}")
        _print_launch_env(view)
        if view["needs_confirmation"]:
            # the confirm step's preview: the server asked once, inside the sandbox
            print_apps(await _call_route(app, "mcp.servers.apps_preview", {"name": name}))
            print(f"  check the command above, then allow it: cashcode mcp confirm {name}")
    for item in result["skipped"]:
        print(f"Skipped {item['name']}: {item['error']}", file=sys.stderr)
    return 0 if result["created"] or not result["skipped"] else 1


async def _remove(app: CashCodeApp, args: argparse.Namespace) -> int:
    await _call_route(app, "mcp.servers.delete", {"name": args.name})
    print(f"Removed {args.name}")
    return 0


async def _confirm(app: CashCodeApp, args: argparse.Namespace) -> int:
    view = await _call_route(app, "mcp.servers.confirm", {"name": args.name})
    print(f"Confirmed {args.name}: {' '.join(view['argv']) or view['url']}")
    _print_launch_env(view)
    return 0


async def _tools(app: CashCodeApp, args: argparse.Namespace) -> int:
    await _call_route(app, "mcp.servers.connect", {"name": args.name})
    tools = (await _call_route(app, "mcp.servers.tools", {"name": args.name}))["tools"]
    if args.json:
        print(json.dumps(tools, indent=2, ensure_ascii=False))
        return 0
    for t in tools:
        params = ", ".join((t["input_schema"].get("properties") or {}).keys())
        print(f"{t['name']}({params})  {' '.join(t['description'].split())[:100]}")
        if t.get("app_uri"):  # an MCP App: what its page declared (nothing: no network)
            domains = ", ".join(t["app_domains"]) or "none"
            permissions = ", ".join(t["app_permissions"]) or "none"
            only = "  (App only: not offered to the model)" if t["visibility"] == ["app"] else ""
            print(f"    App {t['app_uri']}: domains {domains}; permissions {permissions}{only}")
    return 0


async def _call(app: CashCodeApp, args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        raise _Failed(f"--args is not valid JSON ({exc.msg})") from None
    if not isinstance(arguments, dict):
        raise _Failed("--args must be a JSON object")
    result = await _call_route(
        app, "mcp.tools.call", {"name": args.name, "tool": args.tool, "arguments": arguments}
    )
    print(result["text"])
    return 0 if result["ok"] else 1


async def _resources(app: CashCodeApp, args: argparse.Namespace) -> int:
    for r in (await _call_route(app, "mcp.resources.list", {"name": args.name}))["resources"]:
        print(f"{r['uri']}  {r['name']}  {r['description']}".rstrip())
    return 0


async def _prompts(app: CashCodeApp, args: argparse.Namespace) -> int:
    for p in (await _call_route(app, "mcp.prompts.list", {"name": args.name}))["prompts"]:
        names = ", ".join(a["name"] + ("" if a["required"] else "?") for a in p["arguments"])
        print(f"{p['name']}({names})  {p['description']}".rstrip())
    return 0


# ---- the MCP catalog (issue 28) -----------------------------------------------------------------


async def _catalog(app: CashCodeApp, args: argparse.Namespace) -> int:
    from app.cli import mcp_registry_cmd as registry

    data = await _call_route(app, "mcp_catalog.list", {"search": args.search})
    found = await registry.registry_part(app, _call_route, args.search)  # after the curated ones
    if args.json:
        data["servers"] = [{**s, "source": "catalog"} for s in data["servers"]] + found.pop("servers")
        data["registry"] = found
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    for s in data["servers"]:
        state = "installed" if s["installed"] else s["registry"]
        access = "read-only" if s["read_only"] else "read-write"
        print(f"{s['id']:<22} {state:<10} {access:<10} {s['package']}=={s['version']}")
        print(f"{'':<22} {s['title']['en']}: {s['description']['en']}")
        for i in s["inputs"]:
            need = "required" if i["required"] else "optional"
            default = f" (default {i['default']})" if i["default"] and not i["secret"] else ""
            print(f"{'':<22}   --input {i['key']}=…  {need}, {i['title']['en']}{default}")
        if s["problem"]:
            print(f"{'':<22}   cannot be installed here: {s['problem']}")
    if not data["servers"]:
        print("No catalog server matches." if args.search else "The MCP catalog is empty.")
    registry.print_registry(found)
    return 0


def _input_pairs(items: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in _pair_list(items):
        out.setdefault(key, []).append(value)
    return out


def _pair_list(items: Sequence[str]) -> list[tuple[str, str]]:
    """Like `_pairs`, keeping repeated keys (`--input folders=/a --input folders=/b`)."""
    out = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise _Failed(f"--input must look like NAME=VALUE, got {item!r}")
        out.append((key, value))
    return out


async def _install(app: CashCodeApp, args: argparse.Namespace) -> int:
    from app.cli.mcp_bundle_cmd import install_bundle, is_bundle_path

    if is_bundle_path(args.name):  # an MCP Bundle file (app/cli/mcp_bundle_cmd.py)
        return await install_bundle(app, args, _input_pairs(args.input), _call_route, _Failed)
    from app.cli import mcp_registry_cmd as registry

    if registry.is_registry_name(args.name):  # io.github.acme/weather: an MCP Registry entry
        return await registry.install_from_registry(app, args, _call_route, _input_pairs(args.input), _Failed)
    inputs = _input_pairs(args.input)
    entry = next(
        (
            s
            for s in (await _call_route(app, "mcp_catalog.list", {}))["servers"]
            if args.name in (s["id"], s["package"])
        ),
        None,
    )
    if entry is not None:
        for item in entry["inputs"]:  # a secret not given on the command line: ask, never echo
            if item["secret"] and item["required"] and item["key"] not in inputs and sys.stdin.isatty():
                import getpass

                inputs[item["key"]] = [await asyncio.to_thread(getpass.getpass, f"{item['title']['en']}: ")]
    plan = await _call_route(app, "mcp_catalog.plan", {"name": args.name, "inputs": inputs})
    print(f"Installing {plan['id']} into {plan['folder']}")
    for command in plan["commands"]:
        print(f"  $ {command}")
    print_apps(plan["apps"])
    done = await confirm_and_install(
        app,
        plan["id"],
        "mcp_catalog.install",
        {"name": args.name, "inputs": inputs},
        yes=args.yes,
        call=_call_route,
        failure=_Failed,
    )
    if done is None:
        return 1
    print(f"Installed {done['server']}: {' '.join(done['argv'])}")
    if done.get("apps"):
        print_apps(done["apps"])
    print(f"  try it: cashcode mcp tools {done['server']}")
    return 0


async def _uninstall(app: CashCodeApp, args: argparse.Namespace) -> int:
    done = await _call_route(app, "mcp_catalog.uninstall", {"name": args.name})
    what = [
        w for w, yes in (("its entry", done["removed_entry"]), ("its files", done["removed_files"])) if yes
    ]
    print(f"Uninstalled {done['server']} ({' and '.join(what)} removed)")
    return 0
