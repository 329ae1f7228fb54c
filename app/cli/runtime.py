"""Shared CLI plumbing: effective config → a CashCodeApp, and one-line errors.

Everything heavy is imported inside functions: `cashcode ask` must start about as fast as a
bare OpenAI SDK script (SPEC S14).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from app.api.app import CashCodeApp
    from app.settings.cli_config import EffectiveConfig, UntrustedWorkspace
    from app.settings.paths import AppPaths

CLI_PROVIDER_ID = "cli"


class CliError(Exception):
    """A problem to report as one `cashcode: error: …` line, exit 1."""


def fail(message: str) -> int:
    print("cashcode: error: " + " ".join(message.split()), file=sys.stderr)
    return 1


def add_model_flags(parser: argparse.ArgumentParser, *, model: bool = True, turn: bool = True) -> None:
    """The provider flags; `model`: the command uses a model; `turn`: it runs agent turns
    (workspace, steps, streaming). A command's --help lists only the flags it takes."""
    if model:
        parser.add_argument("--model", help="model name (env CASHCODE_MODEL)")
    if turn:
        parser.add_argument(
            "--workspace", help="workspace folder (env WORKSPACE_DIR; default: current folder)"
        )
    parser.add_argument(
        "--api-mode", choices=["responses", "chat_completions"], help="API mode (env CASHCODE_API_MODE)"
    )
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (env OPENAI_BASE_URL)")
    parser.add_argument("--provider", help="a saved provider profile (id or name)")
    if not turn:
        return
    parser.add_argument("--max-iterations", type=int, help="model steps per turn (default 20)")
    stream = parser.add_mutually_exclusive_group()
    stream.add_argument(
        "--stream", dest="stream", action="store_true", default=None, help="stream the answer"
    )
    stream.add_argument(
        "--no-stream", dest="stream", action="store_false", help="print the answer at the end"
    )


def add_approval_flag(parser: argparse.ArgumentParser) -> None:
    """`ask` and `chat`: how tool calls are approved in this run (the saved setting is kept)."""
    parser.add_argument(
        "--approval-mode",
        choices=["autonomous", "sandboxed", "ask_writes", "read_only"],
        help="autonomous: run every tool call; sandboxed: run programs confined without asking, "
        "ask for anything more; ask_writes: ask before changes (denied without a terminal); "
        "read_only: refuse changes (default: the saved setting)",
    )


def paths_from_env(env: Mapping[str, str]) -> AppPaths:
    from app.settings.paths import AppPaths

    return AppPaths.from_env(env)


def resolve_config(args: argparse.Namespace, env: Mapping[str, str], paths: AppPaths) -> EffectiveConfig:
    from app.settings.cli_config import CliFlags, resolve_cli_config
    from app.settings.config_errors import ConfigError
    from app.settings.secrets import SecretStore
    from app.settings.user_settings import SettingsError, SettingsStore
    from app.settings.workspace_trust import WorkspaceTrust

    flags = CliFlags(
        provider=getattr(args, "provider", None),
        model=getattr(args, "model", None),
        api_mode=getattr(args, "api_mode", None),
        base_url=getattr(args, "base_url", None),
        stream=getattr(args, "stream", None),
        workspace=getattr(args, "workspace", None),
        max_iterations=getattr(args, "max_iterations", None),
    )
    from app.observability.prices import env_price

    try:
        env_price(env)  # a half-set price pair is a configuration error, before any turn
        user = SettingsStore(paths.settings_path).load()
        cfg = resolve_cli_config(
            flags=flags,
            env=env,
            user=user,
            secrets=SecretStore(),
            trust=WorkspaceTrust.in_config_dir(paths.config_dir),
        )
    except (SettingsError, ConfigError) as exc:
        raise CliError(str(exc)) from exc
    return _ollama_model(cfg)


def _ollama_model(cfg: EffectiveConfig) -> EffectiveConfig:
    """An Ollama provider with no model set anywhere uses its first installed model (as the UI
    does), not the OpenAI default."""
    if cfg.provider_kind != "ollama" or cfg.sources.get("model") != "default":
        return cfg
    from dataclasses import replace

    from app.llm.ollama import ollama_root
    from app.llm.ollama_discovery import first_installed_model

    model = first_installed_model(ollama_root(cfg.base_url))
    if model is None:
        return cfg
    return replace(cfg, model=model, sources={**cfg.sources, "model": "first installed Ollama model"})


@dataclass(frozen=True)
class Session:
    app: CashCodeApp
    config: EffectiveConfig
    model: dict[str, str]  # the ModelRef payload for chat.send


def open_session(args: argparse.Namespace, env: Mapping[str, str]) -> Session:
    """Config → checks → app with the CLI's provider as a process-local override."""
    from app.api.bootstrap import build_app, migrate_legacy
    from app.api.providers import profile_config
    from app.contracts.provider import ProviderConfig, ProviderKind
    from app.llm.openai_client import effective_api_key  # a key-less local server needs none
    from app.settings.secrets import SecretStore
    from app.settings.user_settings import SettingsStore

    paths = paths_from_env(env)
    migrate_legacy(env, SettingsStore(paths.settings_path), SecretStore())  # before reading config
    args = _with_agent_model(args, paths)
    cfg = resolve_config(args, env, paths)
    if cfg.untrusted is not None:
        if not _confirm_workspace_trust(cfg.untrusted, paths):
            raise CliError(cfg.untrusted.refusal())
        cfg = resolve_config(args, env, paths)
        if cfg.untrusted is not None:  # the file changed while the user was answering
            raise CliError(cfg.untrusted.refusal())
    if cfg.provider_kind != "ollama" and not effective_api_key(cfg.api_key, cfg.base_url):
        raise CliError(
            f"no API key for {cfg.base_url}: set OPENAI_API_KEY, or save a provider with a key in the app "
            "(cashcode desktop → Settings → Providers)"
        )
    provider_id = cfg.provider_id or CLI_PROVIDER_ID
    fields = {
        "kind": ProviderKind(cfg.provider_kind),
        "base_url": cfg.base_url,
        "api_key": cfg.api_key,
        "name": cfg.provider_name or (urlsplit(cfg.base_url).netloc or cfg.base_url),  # errors say it
    }
    profile = SettingsStore(paths.settings_path).load().provider(cfg.provider_id or "")
    # A saved provider's timeouts and model settings apply in the terminal too.
    override = (
        profile_config(profile, **fields)
        if profile is not None
        else ProviderConfig(id=provider_id, **fields)  # type: ignore[arg-type]
    )
    app = build_app(
        paths,
        env,
        provider_override=override,
        workspace=cfg.workspace,
        max_iterations=cfg.max_iterations,
        stream=cfg.stream,
        approval_mode=getattr(args, "approval_mode", None),
    )
    return Session(app=app, config=cfg, model={"provider_id": provider_id, "model": cfg.model})


def _with_agent_model(args: argparse.Namespace, paths: AppPaths) -> argparse.Namespace:
    """`--agent NAME` on a new chat: the agent's default provider and model, as if given with
    --provider and --model. A flag given wins for its part: --provider or --base-url keeps the
    CLI's own provider choice (and model), --model only the model."""
    ref = getattr(args, "agent", None)
    if ref is None or getattr(args, "resume", None) is not None:
        return args
    if getattr(args, "provider", None) is not None or getattr(args, "base_url", None) is not None:
        return args
    from app.api.agent_model import agent_model

    found = agent_model(paths, ref)
    if found is None:
        return args
    model = getattr(args, "model", None) or found.model
    return argparse.Namespace(**{**vars(args), "provider": found.provider_id, "model": model})


def _confirm_workspace_trust(untrusted: UntrustedWorkspace, paths: AppPaths) -> bool:
    """Ask once, on a terminal only; a yes is stored for this folder and this file's content."""
    from app.settings.workspace_trust import WorkspaceTrust

    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    print(
        f"{untrusted.config_file} sets the base URL to host {untrusted.host}.\n"
        f"Send your API key ({untrusted.key_source}) to {untrusted.host} and trust this workspace "
        "until the file changes? [y/N] ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    if answer.strip().lower() not in ("y", "yes"):
        return False
    trust = WorkspaceTrust.in_config_dir(paths.config_dir)
    trust.trust(untrusted.workspace, untrusted.config_sha256, untrusted.host)
    return True


def open_plain_app(env: Mapping[str, str]) -> CashCodeApp:
    """The app without a CLI provider (sessions commands)."""
    from app.api.bootstrap import build_app

    return build_app(paths_from_env(env), env, workspace=_cwd_workspace(env))


def _cwd_workspace(env: Mapping[str, str]) -> Path:
    # Sessions commands never run tools; avoid creating the default workspace folder for them.
    return Path(env.get("WORKSPACE_DIR") or os.getcwd())


async def discard_if_empty(app: CashCodeApp, chat_id: str) -> None:
    """Remove a chat the CLI created but never completed a turn in (no empty sessions)."""
    detail = await app.invoke("chats.get", {"chat_id": chat_id, "limit": 1})
    if detail["ok"] and not detail["data"]["messages"]:
        await app.invoke("chats.delete", {"chat_id": chat_id})
