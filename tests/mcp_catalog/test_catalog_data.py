"""The curated catalog shipped in resources/mcp_catalog loads through its pydantic model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.mcp_catalog.data import CatalogDataError, catalog_path, load_catalog

REFERENCE = {
    "@modelcontextprotocol/server-filesystem": "npm",
    "@modelcontextprotocol/server-memory": "npm",
    "@modelcontextprotocol/server-sequential-thinking": "npm",
    "@modelcontextprotocol/server-everything": "npm",
    "mcp-server-time": "pypi",
    "mcp-server-fetch": "pypi",
    "mcp-server-git": "pypi",
}


def test_the_shipped_catalog_has_the_reference_servers_pinned_in_both_languages() -> None:
    catalog = load_catalog(catalog_path())
    packages = {s.package.name: s.package.registry for s in catalog.servers}
    assert REFERENCE.items() <= packages.items()
    for entry in catalog.servers:
        assert entry.title.en and entry.title.zh_cn and entry.description.zh_cn != entry.description.en
        assert entry.package.version[0].isdigit()  # an exact pin, never a range or a tag
    git = catalog.find("mcp-server-git")
    assert git is not None and not git.read_only
    assert [i.kind for i in git.inputs] == ["folder"] and git.inputs[0].default == "${workspace}"
    assert catalog.find("time") is catalog.find("mcp-server-time")


def _write(tmp_path: Path, server: dict[str, object]) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"version": 1, "servers": [server]}), encoding="utf-8")
    return path


BASE: dict[str, object] = {
    "id": "demo",
    "title": {"en": "Demo", "zh-CN": "演示"},
    "description": {"en": "Demo.", "zh-CN": "演示。"},
    "transport": "stdio",
    "package": {"registry": "pypi", "name": "demo", "version": "1.0", "bin": "demo"},
    "read_only": True,
}
SECRET = {
    "key": "token",
    "kind": "secret",
    "title": {"en": "Token", "zh-CN": "令牌"},
    "description": {"en": "A token.", "zh-CN": "令牌。"},
    "env": "DEMO_TOKEN",
}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"package": {"registry": "pypi", "name": "demo", "version": ">=1.0", "bin": "demo"}}, "pattern"),
        ({"title": {"en": "Demo"}}, "zh-CN"),
        ({"args": [["${input:nope}"]]}, "names no input"),
        ({"inputs": [SECRET], "args": [["--token", "${input:token}"]]}, "keyring"),
        ({"inputs": [{**SECRET, "env": None}]}, "needs `env`"),
        ({"transport": "sse"}, "stdio"),
        # issue 33 item 2: the one loader-variable rule holds for the curated catalog too
        ({"env": {"NODE_OPTIONS": "--import=data:x"}}, "changes which code runs"),
        ({"env": {"npm_config_registry": "http://203.0.113.9/"}}, "changes which code runs"),
        ({"inputs": [{**SECRET, "env": "PYTHONUSERBASE"}]}, "changes which code runs"),
    ],
)
def test_an_invalid_catalog_is_refused_with_the_reason(
    tmp_path: Path, change: dict[str, object], reason: str
) -> None:
    with pytest.raises(CatalogDataError) as caught:
        load_catalog(_write(tmp_path, {**BASE, **change}))
    assert "is invalid" in str(caught.value) and reason in str(caught.value)


def test_a_valid_secret_input_loads(tmp_path: Path) -> None:
    catalog = load_catalog(_write(tmp_path, {**BASE, "inputs": [SECRET]}))
    assert catalog.servers[0].inputs[0].env == "DEMO_TOKEN"


def _chinese_strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [
            s
            for k, v in value.items()
            for s in ([v] if k == "zh-CN" and isinstance(v, str) else _chinese_strings(v))
        ]
    if isinstance(value, list):
        return [s for v in value for s in _chinese_strings(v)]
    return []


def test_the_catalogs_chinese_strings_use_full_width_punctuation() -> None:
    """Chinese text takes ，：；（） and not their ASCII forms (issue 41)."""
    import re

    texts = _chinese_strings(json.loads(catalog_path().read_text(encoding="utf-8")))
    assert len(texts) > 20
    half_width = re.compile(r"[\u4e00-\u9fff][,;:!?()]|[,;:!?()]\s*[\u4e00-\u9fff]|\([^)]*[\u4e00-\u9fff]")
    assert [t for t in texts if half_width.search(t)] == []
