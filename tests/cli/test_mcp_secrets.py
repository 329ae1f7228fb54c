"""MCP secrets are not guessed from names (issue 22 item 5): every `--env`/`--header` value
goes to the keyring, and nothing prints or stores it elsewhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import base_env, cashcode


def _files_holding(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_an_env_value_is_in_no_file_but_the_keyring_and_in_no_output(home: Path) -> None:
    env = base_env(home)
    outputs: list[str] = []
    added = cashcode(
        "mcp", "add", "x", "--command", sys.executable, "-c", "pass",
        "--env", "DB_PW=hunter2", "--env", "GITHUB_PAT=ghp-pat-value-1", "--env-plain", "MODE=calm",
        env=env, cwd=home,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = cashcode("mcp", "list", "--json", env=env, cwd=home)
    plain = cashcode("mcp", "list", env=env, cwd=home)
    assert listed.returncode == plain.returncode == 0, listed.stderr
    for run in (added, listed, plain):
        outputs += [run.stdout, run.stderr]
    entry = next(s for s in json.loads(listed.stdout) if s["name"] == "x")
    assert entry["env"] == {"DB_PW": "********", "GITHUB_PAT": "********", "MODE": "calm"}
    for secret in ("hunter2", "ghp-pat-value-1"):
        assert not any(secret in text for text in outputs)
        for folder in ("data", "config", "logs", "cache"):
            assert _files_holding(home / folder, secret.encode()) == [], (folder, secret)
        assert secret.encode() in (home / "keyring.json").read_bytes()  # the test keyring


def test_an_authorization_header_over_plain_http_to_another_host_needs_a_confirmation(home: Path) -> None:
    env = base_env(home)
    args = ("mcp", "add", "far", "--url", "http://192.0.2.7/mcp", "--header", "Authorization=Bearer abc-1")
    refused = cashcode(*args, env=env, cwd=home)
    assert refused.returncode == 1 and "unencrypted" in refused.stderr
    assert "far" not in cashcode("mcp", "list", env=env, cwd=home).stdout  # nothing half-written
    allowed = cashcode(*args, "--allow-http-auth", env=env, cwd=home)
    assert allowed.returncode == 0, allowed.stderr


@pytest.mark.parametrize("header", ["X-Api-Key=k-9", "Cookie=session=s-9", "X-Auth-Token=t-9"])
def test_any_credential_header_over_plain_http_needs_the_same_confirmation(home: Path, header: str) -> None:
    """Issue 33 item 15: not only Authorization; a header that names no credential passes."""
    env = base_env(home)
    args = ("mcp", "add", "far", "--url", "http://192.0.2.7/mcp", "--header", header)
    refused = cashcode(*args, env=env, cwd=home)
    assert refused.returncode == 1 and "unencrypted" in refused.stderr, refused.stderr
    assert "far" not in cashcode("mcp", "list", env=env, cwd=home).stdout
    assert cashcode(*args, "--allow-http-auth", env=env, cwd=home).returncode == 0
    plain = ("mcp", "add", "trace", "--url", "http://192.0.2.7/mcp", "--header", "X-Trace=1")
    assert cashcode(*plain, env=env, cwd=home).returncode == 0
    local = ("mcp", "add", "near", "--url", "http://127.0.0.1:9/mcp", "--header", header)
    assert cashcode(*local, env=env, cwd=home).returncode == 0


def test_header_count_and_size_are_capped_and_url_tokens_are_masked(home: Path) -> None:
    env = base_env(home)
    many = [a for i in range(40) for a in ("--header", f"X-H{i}=v")]
    too_many = cashcode("mcp", "add", "many", "--url", "https://example.test/mcp", *many, env=env, cwd=home)
    assert too_many.returncode == 1 and "too many headers" in too_many.stderr
    big = cashcode(
        "mcp", "add", "big", "--url", "https://example.test/mcp", "--header", "X-Key=" + "a" * 9000,
        env=env, cwd=home,
    )  # fmt: skip
    assert big.returncode == 1 and "too long" in big.stderr
    tokened = cashcode(
        "mcp",
        "add",
        "q",
        "--url",
        "https://example.test/mcp?api_key=qs-secret-77&region=eu",
        env=env,
        cwd=home,
    )
    assert tokened.returncode == 0, tokened.stderr
    listed = cashcode("mcp", "list", "--json", env=env, cwd=home)
    assert "qs-secret-77" not in tokened.stdout + listed.stdout
    assert "region=eu" in listed.stdout
    for folder in ("data", "config", "logs", "cache"):  # the keyring holds it, no file does
        assert _files_holding(home / folder, b"qs-secret-77") == [], folder
    assert b"qs-secret-77" in (home / "keyring.json").read_bytes()
