"""Tool registry: name -> Tool, plus the built-in tool set. No global instance (built in bootstrap)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from app.core.messages import ToolSpec
from app.tools.base import Tool
from app.tools.exec import ExecTool
from app.tools.fs import EditFileTool, ListDirTool, ReadFileTool, WriteFileTool
from app.tools.search import GlobTool, GrepTool
from app.tools.web import WebFetchTool


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"A tool named '{tool.name}' is already registered.")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self._tools.values()]


def builtin_tools(*, env: Mapping[str, str] | None = None) -> list[Tool]:
    """Fresh instances of the built-in tools. `env` overrides the environment exec inherits."""
    return [
        ReadFileTool(),
        WriteFileTool(),
        EditFileTool(),
        ListDirTool(),
        GlobTool(),
        GrepTool(),
        ExecTool(env=env),
        WebFetchTool(),
    ]
