"""Names, descriptions and parameter schemas of the Skill tools, in a module with no heavy
imports: the model sees these in every turn, while the tool code (YAML parsing, archives)
loads only when a Skill tool is first called (`cashcode ask` start-up budget)."""

from __future__ import annotations

from app.contracts.messages import ToolSpec

SCRIPT_DEFAULT_TIMEOUT_S = 60
SCRIPT_MAX_TIMEOUT_S = 300

SKILL_SEARCH = ToolSpec(
    name="skill_search",
    description=(
        "Search the installed Skills (packaged instructions for specific tasks) by words. "
        "Returns the best matches with their descriptions; load one with skill_load before use."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the task is about."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 8},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)

SKILL_LOAD = ToolSpec(
    name="skill_load",
    description=(
        "Load a Skill's full instructions into this turn and list its files (instructions longer "
        "than one page end with a marker saying how to read the rest). Follow the instructions; "
        "read its files with skill_read_resource and run its scripts with run_skill_script."
    ),
    parameters={
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
    },
)

SKILL_READ_RESOURCE = ToolSpec(
    name="skill_read_resource",
    description=(
        "Read a file of a Skill package (path relative to the Skill folder, e.g. "
        "'reference/forms.md') after skill_load, one page at a time: when a page ends before the "
        "file does, a [truncated …] marker says which `offset` to continue from. Binary files "
        "only as metadata."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines."},
        },
        "required": ["name", "path"],
        "additionalProperties": False,
    },
)

RUN_SKILL_SCRIPT = ToolSpec(
    name="run_skill_script",
    description=(
        "Run a script from a loaded Skill: `path` relative to the Skill folder, `args` a list of "
        "arguments (no shell). Runs in the workspace; SKILL_DIR points at the Skill folder. "
        "The exit code, the end of stderr and the beginning and end of stdout are shown; "
        "timeout 1–300 s (default 60)."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "path": {"type": "string"},
            "args": {"type": "array", "items": {"type": "string"}, "default": []},
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": SCRIPT_MAX_TIMEOUT_S,
                "default": SCRIPT_DEFAULT_TIMEOUT_S,
            },
        },
        "required": ["name", "path"],
        "additionalProperties": False,
    },
)

AGENT_SKILL_MANAGE = ToolSpec(
    name="agent_skill_manage",
    description=(
        "Create or update one of your own Skills (the agent source). action='create' needs "
        "'content' (the full SKILL.md: YAML frontmatter with name and description, then "
        "Markdown instructions) and optional 'files' (relative path → text). action='update' "
        "needs 'name' and 'content' and/or 'files'. Load 'cashcode-skill-creator' first for the "
        "format. Say why in 'reason'. The draft is validated; an invalid one is rejected with the "
        "reasons."
    ),
    parameters={
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["create", "update"]},
            "name": {"type": "string", "description": "The Skill to update (update only)."},
            "content": {"type": "string", "description": "The full SKILL.md text."},
            "files": {"type": "object", "additionalProperties": {"type": "string"}},
            "base_hash": {"type": "string", "description": "update: the SKILL.md sha256 you read."},
            "reason": {
                "type": "string",
                "maxLength": 200,
                "description": "One line saying why (shown to the user when they are asked).",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
)

ALL = (SKILL_SEARCH, SKILL_LOAD, SKILL_READ_RESOURCE, RUN_SKILL_SCRIPT, AGENT_SKILL_MANAGE)
# The tools that change nothing (the tool classes say the same; a test checks).
READ_ONLY = frozenset({SKILL_SEARCH.name, SKILL_LOAD.name, SKILL_READ_RESOURCE.name})
