"""`cashcode config show|trust|provider|sandbox`: the effective, non-secret configuration and
where each value comes from; trusting a workspace's config file to receive the environment API
key; saved providers (app/cli/provider_cmd.py); what this machine supports for the Sandboxed
mode and what the app does with it."""

from __future__ import annotations

import argparse
import os

from app.cli.runtime import CliError, add_model_flags, fail


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("config", help="show the effective configuration")
    commands = parser.add_subparsers(dest="config_command", required=True)
    show = commands.add_parser("show", help="print the effective configuration (never the key)")
    add_model_flags(show)
    show.set_defaults(func=run_show)
    trust = commands.add_parser(
        "trust",
        help="let this workspace's .cashcode/config.yaml base URL receive your OPENAI_API_KEY "
        "(until the file changes)",
    )
    trust.add_argument("--workspace", help="workspace folder (default: current folder)")
    trust.add_argument("--revoke", action="store_true", help="forget the trust of this workspace")
    trust.set_defaults(func=run_trust)
    from app.cli import provider_cmd

    provider_cmd.add_parser(commands)
    sandbox = commands.add_parser(
        "sandbox", help="what this machine supports for the Sandboxed mode and what the app will do"
    )
    sandbox.add_argument("--json", action="store_true", help="print it as JSON")
    sandbox.set_defaults(func=run_sandbox)


def run_sandbox(args: argparse.Namespace) -> int:
    from app.api.sandbox_setup import sandbox_report
    from app.cli.runtime import paths_from_env
    from app.settings.user_settings import SettingsError, SettingsStore

    paths = paths_from_env(os.environ)
    try:
        user = SettingsStore(paths.settings_path).load()
    except SettingsError as exc:
        return fail(str(exc))
    report = sandbox_report(paths, user, os.environ)
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    print(f"Landlock:        {report.reason if report.available else f'no ({report.reason})'}")
    print(f"TCP rules:       {'yes' if report.tcp_rules else 'no'}")
    private = "yes: a private network and /tmp for each program"
    print(f"User namespaces: {private if report.user_namespaces else f'no ({report.namespaces_reason})'}")
    print(f"bwrap:           {report.bwrap or 'not installed'}")
    print(f"Sandboxed mode:  {report.plan}")
    print("Never readable:  " + ", ".join(report.never_readable))
    if report.readable:
        print("Also readable:   " + ", ".join(report.readable))
    return 0


def run_show(args: argparse.Namespace) -> int:
    from app.cli.runtime import paths_from_env, resolve_config
    from app.settings.cli_config import render_config

    try:
        cfg = resolve_config(args, os.environ, paths_from_env(os.environ))
    except CliError as exc:
        return fail(str(exc))
    print(render_config(cfg))
    return 0


def run_trust(args: argparse.Namespace) -> int:
    from urllib.parse import urlsplit

    from app.cli.runtime import paths_from_env
    from app.settings.cli_config import CliFlags, resolve_workspace
    from app.settings.config_errors import ConfigError
    from app.settings.user_settings import SettingsError, SettingsStore
    from app.settings.workspace_config import read_workspace_config
    from app.settings.workspace_trust import WorkspaceTrust, ascii_host

    paths = paths_from_env(os.environ)
    try:  # the same folder `ask`/`chat` would use
        user = SettingsStore(paths.settings_path).load()
        folder, _ = resolve_workspace(CliFlags(workspace=args.workspace), os.environ, user, None)
    except (SettingsError, ConfigError) as exc:
        return fail(str(exc))
    trust = WorkspaceTrust.in_config_dir(paths.config_dir)
    if args.revoke:
        removed = trust.revoke(folder)
        print(f"{folder}: {'no longer trusted' if removed else 'was not trusted'}")
        return 0
    config_file = folder / ".cashcode" / "config.yaml"
    try:
        ws, digest = read_workspace_config(config_file)
    except ConfigError as exc:
        return fail(str(exc))
    if digest is None:
        return fail(f"{config_file} does not exist: there is nothing to trust")
    if ws.base_url is None:
        return fail(f"{config_file} sets no base_url: your key goes where you configured it already")
    host = ascii_host(urlsplit(ws.base_url).netloc)
    trust.trust(folder, digest, host)
    print(f"Trusted {config_file}: your API key from OPENAI_API_KEY will be sent to {host} ({ws.base_url})")
    print("Any change to the file needs `cashcode config trust` again; undo with --revoke.")
    return 0
