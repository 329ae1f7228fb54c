"""ToolRegistry and the built-in tool set."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.contracts.tools import Tool
from app.tools.fs import ReadFileTool
from app.tools.registry import ToolRegistry, builtin_entries, builtin_tools

EXPECTED = ["read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "exec", "web_fetch"]


def test_builtin_tools_cover_the_file_search_exec_and_web_tools() -> None:
    registry = ToolRegistry(builtin_tools())
    assert registry.names == EXPECTED
    assert all(isinstance(registry.get(n), Tool) for n in EXPECTED)
    assert registry.get("nope") is None and "exec" in registry


def test_every_builtin_spec_has_an_object_json_schema() -> None:
    for spec in ToolRegistry(builtin_tools()).specs():
        assert spec.description and spec.parameters["type"] == "object"
        required, properties = spec.parameters.get("required", []), spec.parameters["properties"]
        assert isinstance(required, list) and isinstance(properties, dict)
        assert set(required) <= set(properties)


def test_registering_two_tools_with_the_same_name_is_an_error() -> None:
    registry = ToolRegistry([ReadFileTool()])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(ReadFileTool())


def test_importing_the_registry_does_not_import_the_http_client() -> None:
    code = "import sys, app.tools.registry; print('httpx2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_static_entries_match_the_tools_they_load() -> None:
    entries = builtin_entries()
    assert [e.name for e in entries] == EXPECTED
    for entry in entries:
        tool = entry.tool()
        assert (tool.name, tool.description, tool.parameters, tool.read_only) == (
            entry.spec.name,
            entry.spec.description,
            entry.spec.parameters,
            entry.read_only,
        )
        assert entry.tool() is tool  # built once


def test_listing_the_builtin_tools_imports_none_of_their_code() -> None:
    code = (
        "import sys\n"
        "from app.tools.registry import ToolRegistry, builtin_entries\n"
        "registry = ToolRegistry(builtin_entries())\n"
        "registry.specs(); registry.entry('exec')\n"
        "print(sorted(m for m in sys.modules if m in ('app.tools.fs', 'app.tools.exec', 'app.tools.web',"
        " 'app.tools.search')))\n"
        "registry.get('exec')\n"
        "print('app.tools.exec' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]
