"""`cashcode agents list|show|add|edit|remove|export|import` (issue 38): everything through the `agents.*`
routes. NAME is an agent's name (case-insensitive) or id; the default agent is `default`.

List flags (`--skills a,b`, `--mcp x,y`, `--kb k`, `--tools t`) take names separated by
commas; `all` means every one (the default for a new agent), an empty value means none."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from app.cli.memories_cmd import error, runner

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

MODES = ["read_only", "ask_writes", "sandboxed", "autonomous"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("agents", help="agents: personas with their own model, Skills and tools")
    commands = parser.add_subparsers(dest="agents_command", required=True)
    listing = commands.add_parser("list", help="list agents")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(func=runner(_list))
    show = commands.add_parser("show", help="show one agent")
    show.add_argument("name")
    show.add_argument("--json", action="store_true", help="print the agent as JSON")
    show.set_defaults(func=runner(_show))
    add = commands.add_parser("add", help="add an agent")
    add.add_argument("name")
    add.add_argument("--persona", required=True, help="its instructions (its own SOUL text)")
    _spec_flags(add)
    add.set_defaults(func=runner(_add))
    edit = commands.add_parser("edit", help="change an agent (only the flags given)")
    edit.add_argument("name")
    edit.add_argument("--rename", metavar="NEW_NAME", help="a new name")
    edit.add_argument("--persona", help="its instructions (its own SOUL text)")
    _spec_flags(edit)
    edit.set_defaults(func=runner(_edit))
    remove = commands.add_parser("remove", help="remove an agent (its chats go to the default agent)")
    remove.add_argument("name")
    remove.set_defaults(func=runner(_remove))
    export = commands.add_parser("export", help="write an agent as a .cashagent package")
    export.add_argument("name")
    export.add_argument("file")
    export.add_argument("--id", dest="package_id", help="the package id (default: from the name)")
    export.add_argument("--version", type=int, help="the package version (default: 1)")
    export.set_defaults(func=runner(_export))
    imp = commands.add_parser("import", help="show what a .cashagent package can do, then install it")
    imp.add_argument("file")
    imp.add_argument("--yes", action="store_true", help="install without asking (secret inputs stay unset)")
    imp.set_defaults(func=runner(_import))


def _spec_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--emoji", help="an emoji shown with its name")
    parser.add_argument("--model", help="its model (with --provider; default: the model chosen in the app)")
    parser.add_argument("--provider", help="the saved provider of --model (id or name)")
    parser.add_argument("--skills", metavar="A,B", help="the Skills it may use ('all', or names)")
    parser.add_argument("--mcp", metavar="X,Y", help="the MCP servers it may use ('all', or names)")
    parser.add_argument("--kb", metavar="K", help="the knowledge bases it may search ('all', or names)")
    parser.add_argument("--tools", metavar="T", help="the tools it may use ('all', or names)")
    parser.add_argument("--approval-mode", choices=MODES, default=None, help="default: the app's mode")
    parser.add_argument("--workspace", metavar="DIR", help="its default workspace folder")
    parser.add_argument(
        "--memory", choices=["shared", "own"], default=None, help="shared MEMORY.md or its own"
    )


def _names(value: str) -> list[str] | None:
    if value.strip().casefold() == "all":
        return None
    return [n.strip() for n in value.split(",") if n.strip()]


async def _apply(app: CashCodeApp, spec: dict[str, Any], args: argparse.Namespace) -> int | None:
    """The flags given, onto `spec`; an exit code when a flag names something unknown."""
    for flag, key in (
        ("skills", "skills"),
        ("mcp", "mcp_servers"),
        ("kb", "knowledge_bases"),
        ("tools", "tools"),
    ):
        value = getattr(args, flag)
        if value is not None:
            spec[key] = _names(value)
    for flag in ("persona", "emoji", "approval_mode", "memory"):
        value = getattr(args, flag)
        if value is not None:
            spec[flag] = value
    if args.workspace is not None:
        spec["workspace"] = _absolute(args.workspace) if args.workspace else None
    if args.model is not None or args.provider is not None:
        if args.model is None:
            return _fail("--provider needs --model")
        provider = args.provider
        if provider is None:
            settings = await app.invoke("settings.get", {})
            last = settings["data"].get("last_model") if settings["ok"] else None
            provider = last["provider_id"] if last else None
        if provider is None:
            return _fail("no provider: give --provider (see `cashcode config`)")
        listed = await app.invoke("providers.list", {})
        if not listed["ok"]:
            return error(listed)
        found = next((p["id"] for p in listed["data"]["providers"] if provider in (p["id"], p["name"])), None)
        if found is None:
            return _fail(f"no saved provider {provider[:80]!r}")
        spec["provider_id"], spec["model"] = found, args.model
    return None


def _absolute(path: str) -> str:
    """A relative --workspace is read from the current folder (the spec wants a full path)."""
    import os

    return os.path.abspath(os.path.expanduser(path))


def _fail(message: str) -> int:
    print(f"cashcode: error: {message}", file=sys.stderr)
    return 2


def _allowed(names: list[str] | None) -> str:
    return "all" if names is None else (", ".join(names) or "none")


def _line(agent: dict[str, Any]) -> str:
    spec = agent["spec"]
    model = f"{spec['model']}" if spec.get("model") else "app's model"
    icon = f"{spec['emoji']} " if spec.get("emoji") else ""
    return (
        f"{icon}{spec['name']}  model: {model}  skills: {_allowed(spec.get('skills'))}"
        f"  mcp: {_allowed(spec.get('mcp_servers'))}  approval: {spec.get('approval_mode') or 'app'}"
    )


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    listed = await app.invoke("agents.list", {})
    if not listed["ok"]:
        return error(listed)
    agents = listed["data"]["agents"]
    if args.json:
        print(json.dumps(agents, ensure_ascii=False, indent=2))
        return 0
    for agent in agents:
        print(_line(agent))
    return 0


async def _show(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("agents.get", {"agent_id": args.name})
    if not found["ok"]:
        return error(found)
    agent = found["data"]
    if args.json:
        print(json.dumps(agent, ensure_ascii=False, indent=2))
        return 0
    spec = agent["spec"]
    print(_line(agent))
    print(f"id: {agent['id']}")
    print(f"knowledge bases: {_allowed(spec.get('knowledge_bases'))}  tools: {_allowed(spec.get('tools'))}")
    print(f"workspace: {spec.get('workspace') or 'app'}  memory: {spec['memory']}")
    print("persona:")
    print(spec["persona"] or "(SOUL.md)")
    return 0


async def _add(app: CashCodeApp, args: argparse.Namespace) -> int:
    spec: dict[str, Any] = {"name": args.name}
    failed = await _apply(app, spec, args)
    if failed is not None:
        return failed
    saved = await app.invoke("agents.add", {"spec": spec})
    if not saved["ok"]:
        return error(saved)
    print(f"Added agent {saved['data']['spec']['name']!r}.")
    return 0


async def _edit(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("agents.get", {"agent_id": args.name})
    if not found["ok"]:
        return error(found)
    spec: dict[str, Any] = dict(found["data"]["spec"])
    if args.rename is not None:
        spec["name"] = args.rename
    failed = await _apply(app, spec, args)
    if failed is not None:
        return failed
    saved = await app.invoke("agents.edit", {"agent_id": found["data"]["id"], "spec": spec})
    if not saved["ok"]:
        return error(saved)
    print(f"Saved agent {saved['data']['spec']['name']!r}.")
    return 0


async def _remove(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("agents.get", {"agent_id": args.name})
    if not found["ok"]:
        return error(found)
    done = await app.invoke("agents.remove", {"agent_id": found["data"]["id"]})
    if not done["ok"]:
        return error(done)
    print(f"Removed agent {found['data']['spec']['name']!r}; its chats now belong to the default agent.")
    return 0


async def _export(app: CashCodeApp, args: argparse.Namespace) -> int:
    found = await app.invoke("agents.get", {"agent_id": args.name})
    if not found["ok"]:
        return error(found)
    request: dict[str, Any] = {"agent_id": found["data"]["id"], "path": _absolute(args.file)}
    if args.package_id is not None:
        request["package_id"] = args.package_id
    if args.version is not None:
        request["version"] = args.version
    done = await app.invoke("agents.export", request)
    if not done["ok"]:
        return error(done)
    d = done["data"]
    print(
        f"Exported {found['data']['spec']['name']!r} as {d['package_id']} version {d['version']}"
        f" to {d['path']}"
    )
    print(f"sha256 of its manifest: {d['digest']}")
    return 0


_KINDS = {
    "approval_mode": "approval mode",
    "tool": "tool",
    "host": "host it reaches",
    "program": "program it runs",
    "schedule": "schedule",
    "secret_input": "secret input",
}


def print_preview(preview: dict[str, Any]) -> None:
    """The capability preview (also what `--yes` prints, so a log shows what was installed)."""
    icon = f"{preview['emoji']} " if preview["emoji"] else ""
    print(f"Agent package {preview['package_id']} version {preview['version']}: {icon}{preview['name']}")
    print(f"sha256 of its manifest: {preview['digest']}")
    for label, key in (("Skills", "skills"), ("MCP servers", "mcp_servers"),
                       ("Knowledge bases", "knowledge_bases"), ("Scheduled tasks", "tasks")):  # fmt: skip
        print(f"{label}: {', '.join(preview[key]) or 'none'}")
    print(f"Approval mode: {preview['approval_mode']}")
    installed = preview["installed_version"]
    if installed is None:
        print("It can:")
        items = preview["capabilities"]
    else:
        print(f"Update of the installed version {installed}; new or changed since then:")
        items = preview["changes"]
    for item in items:
        print(f"  - {_KINDS[item['kind']]}: {item['label']}")
    if not items:
        print("  (nothing new it can do)")


async def _import(app: CashCodeApp, args: argparse.Namespace) -> int:
    import getpass

    path = _absolute(args.file)
    shown = await app.invoke("agents.import_preview", {"path": path})
    if not shown["ok"]:
        return error(shown)
    preview = shown["data"]
    print_preview(preview)
    terminal = sys.stdin.isatty()
    if not args.yes:
        if not terminal:
            return _fail("no terminal to confirm on: read the preview above, then run again with --yes")
        verb = "Update" if preview["installed_version"] is not None else "Install"
        answer = (await asyncio.to_thread(input, f"{verb} {preview['name']!r}? [y/N] ")).strip().casefold()
        if answer not in ("y", "yes"):
            print("Nothing was installed.")
            return 1
    secrets: dict[str, str] = {}
    asked = {c["key"] for c in preview["changes"] if c["kind"] == "secret_input"}  # an update: new ones
    for item in preview["secret_inputs"]:
        if terminal and f"secret:{item['server']}/{item['name']}" in asked:
            ask = f"{item['server']}: {item['name']} (empty: set it later): "
            value = await asyncio.to_thread(getpass.getpass, ask)
            if value:
                secrets[f"{item['server']}/{item['name']}"] = value
    done = await app.invoke("agents.import", {"path": path, "digest": preview["digest"], "secrets": secrets})
    if not done["ok"]:
        return error(done)
    data = done["data"]
    print(f"Installed agent {data['agent']['spec']['name']!r} (version {data['version']}).")
    for item in data["unset_secrets"]:
        print(
            f"Left unset: {item['server']}: {item['name']} — the server cannot start until it is set"
            " (Settings → MCP servers)."
        )
    return 0
