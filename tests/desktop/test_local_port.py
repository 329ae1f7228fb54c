"""The asset server's port never collides with the DevTools port reserved in the env."""

from __future__ import annotations

import socket

import pytest

from app.desktop.local_port import free_loopback_port, os_loopback_port, reserved_ports


@pytest.mark.parametrize(
    ("value", "expected"),
    [("9222", {9222}), ("127.0.0.1:9333", {9333}), ("", set()), ("not-a-port", set())],
)
def test_the_devtools_port_is_read_from_the_env(value: str, expected: set[int]) -> None:
    assert reserved_ports({"QTWEBENGINE_REMOTE_DEBUGGING": value}) == expected


def test_a_port_reserved_for_devtools_is_skipped() -> None:
    handed_out = iter([40001, 40001, 40002])
    env = {"QTWEBENGINE_REMOTE_DEBUGGING": "40001"}
    assert free_loopback_port(env, pick=lambda: next(handed_out)) == 40002


def test_only_reserved_ports_is_an_error_not_a_collision() -> None:
    env = {"QTWEBENGINE_REMOTE_DEBUGGING": "40001"}
    with pytest.raises(OSError, match="no free loopback port"):
        free_loopback_port(env, pick=lambda: 40001)


def test_the_os_port_is_bindable_on_loopback() -> None:
    port = free_loopback_port({})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))  # released again, so pywebview can take it
    assert os_loopback_port() > 0
