"""Suite-wide guards: nothing reaches a real provider, and no test inherits a user's config."""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from typing_extensions import Buffer

# Variables that would point the app at a real provider or a user's real data.
_SCRUBBED = (
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "DEEPSEEK_API_KEY", "DEEPSEEK_API_BASE",
    "CASHCODE_MODEL", "CASHCODE_API_MODE", "CASHCODE_STREAM", "CASHCODE_DATA_DIR",
    "CASHCODE_CONFIG_DIR", "CASHCODE_LOG_DIR", "CASHCODE_CACHE_DIR", "WORKSPACE_DIR", "OLLAMA_HOST",
    "PYTHON_KEYRING_BACKEND", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
)
for _name in _SCRUBBED:
    os.environ.pop(_name, None)
# Subprocesses started by tests must not talk to a proxy either.
os.environ["NO_PROXY"] = "*"
# `cashcode serve` publishes serve.json in the runtime folder: never the user's real one.
os.environ["CASHCODE_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="cashcode-test-runtime-")
# No Dream timer in app processes started by tests (memory tests run Dream explicitly).
os.environ["CASHCODE_DREAM"] = "off"
# The built-in test MCP servers are listed only with this set (app/mcp/capability.py).
os.environ["CASHCODE_MCP_TEST_SERVERS"] = "1"


def _is_loopback(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and the like
    host = str(address[0])
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
# What socket.connect accepts (typeshed's private `_socket._Address`).
_Address = tuple[Any, ...] | str | Buffer


def _guarded_connect(self: socket.socket, address: _Address) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may only connect to loopback, not {address!r}")
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: _Address) -> int:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may only connect to loopback, not {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    """Kill switch: any in-process connection to a non-loopback address fails loudly."""
    with pytest.MonkeyPatch.context() as patch:  # session-wide, restored at the end
        patch.setattr(socket.socket, "connect", _guarded_connect)
        patch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
        yield
