"""The MCPB manifest rules and the spec's variable substitution (no archive, no process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.mcp_catalog.bundle_inputs import BundleInputError, SystemDirs, check_values, render
from app.mcp_catalog.bundle_manifest import ManifestError, parse_manifest, this_platform


def manifest(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "manifest_version": "0.3",
        "name": "files",
        "version": "1.0.0",
        "description": "d",
        "author": {"name": "a"},
        "server": {
            "type": "node",
            "entry_point": "server/index.js",
            "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js"]},
        },
    }
    base.update(over)
    return base


def parse(data: dict[str, Any]) -> Any:
    return parse_manifest(json.dumps(data).encode())


def test_the_spec_variables_and_user_config_are_filled_in(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    server = {
        "type": "node",
        "entry_point": "server/index.js",
        "mcp_config": {
            "command": "node",
            "args": [
                "${__dirname}/server/index.js",
                "${user_config.dirs}",
                "--limit=${user_config.limit}",
                "--name",
                "${user_config.name}",
                "--home=${HOME}${/}x",
            ],
            "env": {
                "DEBUG": "${user_config.debug}",
                "TOKEN": "Bearer ${user_config.token}",
                "OPT": "${user_config.name}",
            },
            "platform_overrides": {
                this_platform(): {"env": {"DEBUG": "${user_config.debug}", "TOKEN": "${user_config.token}"}}
            },
        },
    }
    user_config = {
        "dirs": {"type": "directory", "title": "D", "description": "", "multiple": True, "required": True},
        "limit": {"type": "number", "title": "L", "description": "", "default": 10, "min": 1, "max": 100},
        "name": {"type": "string", "title": "N", "description": ""},
        "debug": {"type": "boolean", "title": "B", "description": "", "default": False},
        "token": {"type": "string", "title": "T", "description": "", "sensitive": True},
    }
    m = parse(manifest(server=server, user_config=user_config))
    dirs = SystemDirs(home=tmp_path)
    values = check_values(m, {"dirs": [str(tmp_path / "a"), str(tmp_path / "b")], "token": ["s"]}, dirs)
    assert values["limit"] == ["10"] and values["debug"] == ["false"] and values["name"] == []
    out = render(m, m.config, Path("/opt/b"), values, dirs)
    assert out.command == "node"
    # the multi-valued option: one argument per folder; the empty `name` drops its argument only
    assert out.args == (
        "/opt/b/server/index.js",
        str(tmp_path / "a"),
        str(tmp_path / "b"),
        "--limit=10",
        "--name",
        f"--home={tmp_path}/x",
    )
    assert out.env == {"DEBUG": "false"}  # the override replaced env; OPT is gone with it
    assert out.secret_env == {"TOKEN": "s"}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"limit": ["0"]}, "at least 1"),
        ({"limit": ["ten"]}, "is a number"),
        ({"debug": ["maybe"]}, "true or false"),
        ({"where": ["relative/path"]}, "absolute path"),
        ({"where": ["/no/such/folder"]}, "does not exist"),
        ({"nope": ["x"]}, "has no option 'nope'"),
        ({"limit": ["1", "2"]}, "takes one value"),
        ({"limit": ["1\n2"]}, "one line"),
    ],
)
def test_bad_values_are_refused_by_name(given: dict[str, list[str]], message: str) -> None:
    user_config = {
        "limit": {"type": "number", "title": "L", "description": "", "min": 1},
        "debug": {"type": "boolean", "title": "B", "description": ""},
        "where": {"type": "directory", "title": "W", "description": ""},
    }
    m = parse(manifest(user_config=user_config))
    with pytest.raises(BundleInputError, match=message):
        check_values(m, given, SystemDirs(home=Path("/home/u")))


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"manifest_version": "9.9"}, "not a version of the MCPB spec"),
        ({"manifest_version": None}, "no manifest_version"),
        ({"author": None}, "author"),
        ({"surprise": 1}, "surprise: Extra inputs are not permitted"),
        (
            {"server": {"type": "node", "entry_point": "/etc/passwd", "mcp_config": {"command": "node"}}},
            "outside",
        ),
        ({"server": {"type": "node", "entry_point": "a.js"}}, "server.mcp_config: Field required"),
        (
            {
                "server": {
                    "type": "python",
                    "entry_point": "a.py",
                    "mcp_config": {"command": "python", "args": ["${user_config.x}"]},
                }
            },
            "does not declare",
        ),
        (
            {"user_config": {"n": {"type": "number", "title": "N", "description": "", "sensitive": True}}},
            "only a string option",
        ),
        ({"user_config": {"n": {"type": "color", "title": "N", "description": ""}}}, "user_config.n.type"),
    ],
)
def test_manifests_that_break_the_spec_are_refused_with_the_field(over: dict[str, Any], message: str) -> None:
    data = {k: v for k, v in manifest(**over).items() if v is not None}
    with pytest.raises(ManifestError, match=message):
        parse(data)


def test_the_older_dxt_version_field_is_accepted() -> None:
    data = manifest()
    del data["manifest_version"]
    data["dxt_version"] = "0.1"
    assert parse(data).spec_version == "0.1"
