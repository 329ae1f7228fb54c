"""The lean request's core tools (issue 34, decision 309): what a local model is offered up
front, each described in the fewest words that still say how to call it. The full specs
(app/tools/specs.py) stay what remote models get and what a tool validates against; every other
tool is found through `tool_search` and offered in full once found or called."""

from __future__ import annotations

from app.contracts.messages import ToolSpec


def _spec(name: str, description: str, properties: dict[str, object], required: list[str]) -> ToolSpec:
    parameters: dict[str, object] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return ToolSpec(name=name, description=description, parameters=parameters)


_S = {"type": "string"}
_I = {"type": "integer"}
_PATH = {"type": "string", "description": "relative to the workspace"}

READ_FILE = _spec(
    "read_file",
    "Read a text file, a page at a time (continue from the `offset` line it gives).",
    {"path": _PATH, "offset": _I, "limit": _I},
    ["path"],
)
WRITE_FILE = _spec(
    "write_file",
    "Create a text file; overwrite: true replaces an existing one.",
    {"path": _PATH, "content": _S, "overwrite": {"type": "boolean"}},
    ["path", "content"],
)
EDIT_FILE = _spec(
    "edit_file",
    "Replace the one occurrence of old_string in a file with new_string.",
    {"path": _PATH, "old_string": _S, "new_string": _S},
    ["path", "old_string", "new_string"],
)
LIST_DIR = _spec("list_dir", "List a folder.", {"path": _PATH}, [])
GREP = _spec(
    "grep",
    "Search file contents with a regular expression.",
    {"pattern": _S, "path": _PATH, "glob": _S},
    ["pattern"],
)
EXEC = _spec(
    "exec",
    "Run a program in the workspace: argv is the program then its arguments (no shell).",
    {"argv": {"type": "array", "items": _S}, "cwd": _S, "timeout": _I},
    ["argv"],
)
TOOL_SEARCH = _spec(
    "tool_search",
    "Find more tools (file search, web, memory, notes, todos, skills, MCP servers) by what they "
    "should do. Tools found can be called from the next step.",
    {"query": _S},
    ["query"],
)

CORE = (READ_FILE, WRITE_FILE, EDIT_FILE, LIST_DIR, GREP, EXEC)
