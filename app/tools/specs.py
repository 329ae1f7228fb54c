"""Names, descriptions and parameter schemas of the built-in tools, in a module with no heavy
imports: the model is offered these in every turn, while a tool's code (processes, HTML
parsing, file walking) is imported only when the tool is first called (`cashcode ask`
start-up budget, SPEC S14). The tool classes take their attributes from here.
"""

from __future__ import annotations

from app.contracts.messages import ToolSpec

DEFAULT_TIMEOUT_S = 30  # exec
MAX_TIMEOUT_S = 300

READ_FILE = ToolSpec(
    name="read_file",
    description="Read a UTF-8 text file inside the workspace, one page at a time: a page ends where the "
    "output budget is full and a [truncated …] marker says which `offset` to continue from. Binary "
    "files are refused.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace."},
            "offset": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines."},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
)


WRITE_FILE = ToolSpec(
    name="write_file",
    description="Create a UTF-8 text file inside the workspace (the parent folder must already exist). "
    "Replacing an existing file requires overwrite: true.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace."},
            "content": {"type": "string", "description": "Full file content."},
            "overwrite": {"type": "boolean", "description": "Replace an existing file.", "default": False},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
)


EDIT_FILE = ToolSpec(
    name="edit_file",
    description="Replace one unique occurrence of old_string with new_string in a UTF-8 file inside the "
    "workspace. Fails if old_string occurs zero or several times (add surrounding context).",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace."},
            "old_string": {"type": "string", "description": "Exact text to replace; must occur once."},
            "new_string": {"type": "string", "description": "Replacement text."},
        },
        "required": ["path", "old_string", "new_string"],
        "additionalProperties": False,
    },
)


LIST_DIR = ToolSpec(
    name="list_dir",
    description="List a folder inside the workspace, sorted by name. Markers: 'name/' folder, "
    "'name@' symlink, otherwise a file with its size in bytes.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Folder, relative to the workspace.", "default": "."},
        },
        "additionalProperties": False,
    },
)


GLOB = ToolSpec(
    name="glob",
    description="Find files and folders inside the workspace whose path matches a glob pattern "
    "(e.g. 'src/**/*.py'). At most 100 results; symlinked folders are not followed.",
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob relative to `path`; '**' spans folders."},
            "path": {"type": "string", "description": "Folder to search in (default: workspace root)."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
)


GREP = ToolSpec(
    name="grep",
    description="Search file contents inside the workspace with a Python regular expression. Returns up "
    "to 50 'path:line: text' matches; binary and very large files are skipped.",
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Python regular expression."},
            "path": {"type": "string", "description": "File or folder to search (default: workspace root)."},
            "glob": {"type": "string", "description": "Only files matching this glob, e.g. '*.py'."},
            "ignore_case": {"type": "boolean", "default": False},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
)


EXEC = ToolSpec(
    name="exec",
    description="Run a program inside the workspace. `argv` is a list: the program name then its arguments "
    "(no shell: no pipes, globs, redirections or variables). stdin is closed. stdout and stderr "
    "are capped at 64 KiB each. Timeout 1–300 s (default 30).",
    parameters={
        "type": "object",
        "properties": {
            "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "cwd": {"type": "string", "description": "Working folder, relative to the workspace."},
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_S,
                "default": DEFAULT_TIMEOUT_S,
            },
        },
        "required": ["argv"],
        "additionalProperties": False,
    },
)


WEB_FETCH = ToolSpec(
    name="web_fetch",
    description="Fetch a public http(s) URL and return its readable text (HTML is converted to text; JSON "
    "and plain text pass through), one page at a time: when the text goes on, a [truncated …] marker "
    "says which `offset` to fetch next. Downloads are capped at 2 MiB. Private and local network "
    "addresses are refused.",
    parameters={
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "http:// or https:// URL"},
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "First character of the text to return (0-based, from a [truncated …] "
                "marker).",
            },
        },
        "required": ["url"],
        "additionalProperties": False,
    },
)
