"""Whether a provider is local (a server on this computer, or an Ollama kind) and what follows
from it: one model call at a time unless its settings say otherwise (decision 307), and the
lean request (decision 309)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from app.contracts.provider import ProviderConfig, ProviderKind

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback_url(base_url: str) -> bool:
    host = (urlsplit(base_url.strip()).hostname or "").lower()
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local(config: ProviderConfig) -> bool:
    """An Ollama provider (wherever it runs: one process serving from a few slots) or any
    provider whose base URL is on the loopback interface."""
    return config.kind is ProviderKind.OLLAMA or is_loopback_url(config.base_url)


def parallel_limit(config: ProviderConfig) -> int | None:
    """How many model calls may run at once; None: no limit. `parallel_requests` None is the
    default (1 for a local provider, no limit for a remote one), 0 means no limit."""
    setting = config.parallel_requests
    if setting is None:
        return 1 if is_local(config) else None
    return setting or None


def wants_lean_tools(config: ProviderConfig) -> bool:
    """Whether turns get the lean tool set (app/api/lean_tools.py): the setting, else local."""
    return is_local(config) if config.lean_tools is None else config.lean_tools
