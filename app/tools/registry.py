"""Tool registry: name -> Tool, plus the built-in tool set. No global instance (built in bootstrap).

Built-in tools are registered as `ToolEntry`s: their specs are static (app/tools/specs.py) and
their code is imported on first use, so a turn that calls no tool never loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from app.contracts.messages import ToolSpec
from app.contracts.tools import Tool
from app.tools import specs


@dataclass
class ToolEntry:
    """A tool known by its spec; `load` builds it the first time it is needed."""

    spec: ToolSpec
    read_only: bool
    load: Callable[[], Tool]
    _tool: Tool | None = field(default=None, repr=False)
    group: str = "builtin"  # Settings → Tools groups by it

    @classmethod
    def of(cls, tool: Tool) -> ToolEntry:
        return cls(tool.spec(), tool.read_only, lambda: tool, tool)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def description(self) -> str:
        return self.spec.description

    def tool(self) -> Tool:
        if self._tool is None:
            self._tool = self.load()
        return self._tool


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool | ToolEntry] = ()) -> None:
        self._tools: dict[str, ToolEntry] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool | ToolEntry) -> None:
        entry = tool if isinstance(tool, ToolEntry) else ToolEntry.of(tool)
        if entry.name in self._tools:
            raise ValueError(f"A tool named '{entry.name}' is already registered.")
        self._tools[entry.name] = entry

    def get(self, name: str) -> Tool | None:
        entry = self._tools.get(name)
        return entry.tool() if entry is not None else None

    def entry(self, name: str) -> ToolEntry | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [entry.spec for entry in self._tools.values()]


def builtin_entries(*, env: Mapping[str, str] | None = None) -> list[ToolEntry]:
    """The built-in tools, each imported when first called. `env` overrides the environment
    exec inherits."""

    def fs(name: str) -> Callable[[], Tool]:
        def load() -> Tool:
            from app.tools import fs

            classes: dict[str, type[Tool]] = {
                "read_file": fs.ReadFileTool,
                "write_file": fs.WriteFileTool,
                "edit_file": fs.EditFileTool,
                "list_dir": fs.ListDirTool,
            }
            return classes[name]()

        return load

    def search(name: str) -> Callable[[], Tool]:
        def load() -> Tool:
            from app.tools.search import GlobTool, GrepTool

            return GlobTool() if name == "glob" else GrepTool()

        return load

    def exec_tool() -> Tool:
        from app.tools.exec import ExecTool

        return ExecTool(env=env)

    def web_fetch() -> Tool:
        from app.tools.web import WebFetchTool

        return WebFetchTool()

    return [
        ToolEntry(specs.READ_FILE, True, fs("read_file")),
        ToolEntry(specs.WRITE_FILE, False, fs("write_file")),
        ToolEntry(specs.EDIT_FILE, False, fs("edit_file")),
        ToolEntry(specs.LIST_DIR, True, fs("list_dir")),
        ToolEntry(specs.GLOB, True, search("glob")),
        ToolEntry(specs.GREP, True, search("grep")),
        ToolEntry(specs.EXEC, False, exec_tool),
        ToolEntry(specs.WEB_FETCH, False, web_fetch),
    ]


def builtin_tools(*, env: Mapping[str, str] | None = None) -> list[Tool]:
    """Fresh instances of the built-in tools (imports all their code)."""
    return [entry.tool() for entry in builtin_entries(env=env)]
