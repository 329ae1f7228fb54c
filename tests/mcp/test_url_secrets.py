"""A credential in a server URL's query (`?token=…`) lives in the keyring, not in servers.json;
the connection gets it back, an edit that sends the mask keeps it, an older build's file moves it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.mcp.catalog import EntryInput, UserCatalog
from app.mcp.config import ConfigError
from app.settings.secrets import MASK, SecretStore

TOKEN = "tok-in-the-query-8842"


def _catalog(tmp_path: Path, secrets: SecretStore) -> tuple[UserCatalog, Path]:
    path = tmp_path / "servers.json"
    return UserCatalog(path, secrets), path


def test_the_query_token_goes_to_the_keyring_and_comes_back_for_the_connection(
    tmp_path: Path, secrets: SecretStore
) -> None:
    catalog, path = _catalog(tmp_path, secrets)
    entry = catalog.save(
        EntryInput(name="remote", transport="http", url=f"https://mcp.example.test/mcp?api_key={TOKEN}&v=2"),
        existing=None,
    )
    assert TOKEN not in path.read_text(encoding="utf-8")
    assert entry.url == "https://mcp.example.test/mcp?api_key=********&v=2"
    assert secrets.get("mcp:remote:query:api_key") == TOKEN
    resolved = catalog.resolve(catalog.entries()[0])
    assert resolved.target_url == f"https://mcp.example.test/mcp?api_key={TOKEN}&v=2"
    assert TOKEN in resolved.secret_values()

    # the edit form sends the mask back: the stored value stays; a new value replaces it
    kept = catalog.save(EntryInput(name="remote", transport="http", url=entry.url), existing=entry)
    assert secrets.get("mcp:remote:query:api_key") == TOKEN
    catalog.save(
        EntryInput(name="remote", transport="http", url="https://mcp.example.test/mcp?api_key=new-one&v=2"),
        existing=kept,
    )
    assert secrets.get("mcp:remote:query:api_key") == "new-one"
    assert "new-one" not in path.read_text(encoding="utf-8")

    # dropping the parameter forgets its value; deleting the entry forgets everything
    latest = catalog.entries()[0]
    bare = EntryInput(name="remote", transport="http", url="https://mcp.example.test/mcp")
    plain = catalog.save(bare, existing=latest)
    assert secrets.get("mcp:remote:query:api_key") is None
    catalog.delete(plain)
    assert catalog.entries() == []


def test_a_mask_for_a_parameter_that_was_never_given_is_refused(tmp_path: Path, secrets: SecretStore) -> None:
    catalog, path = _catalog(tmp_path, secrets)
    for url, reason in [(f"https://h.test/sse?token={MASK}", "URL parameter token"),
                        ("https://h.test/sse?token=a&token=b", "twice")]:
        with pytest.raises(ConfigError, match=reason):
            catalog.save(EntryInput(name="r", transport="sse", url=url), existing=None)
    assert not path.exists()


def test_an_older_builds_plain_query_token_moves_to_the_keyring_on_the_next_save(
    tmp_path: Path, secrets: SecretStore
) -> None:
    catalog, path = _catalog(tmp_path, secrets)
    legacy = {"transport": "http", "url": f"https://h.test/mcp?token={TOKEN}", "header_names": []}
    path.write_text(json.dumps({"version": 1, "servers": {"old": legacy}}), encoding="utf-8")
    old = catalog.entries()[0]
    assert catalog.resolve(old).target_url == f"https://h.test/mcp?token={TOKEN}"  # still connects
    masked = EntryInput(name="old", transport="http", url=f"https://h.test/mcp?token={MASK}")
    catalog.save(masked, existing=old)
    assert TOKEN not in path.read_text(encoding="utf-8")
    assert catalog.resolve(catalog.entries()[0]).target_url == f"https://h.test/mcp?token={TOKEN}"
