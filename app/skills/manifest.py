"""Frontmatter field rules (SPEC S7.1): turn the YAML mapping into a SkillManifest or problems."""

from __future__ import annotations

import re

from app.skills.model import (
    MAX_COMPATIBILITY_CHARS,
    MAX_DESCRIPTION_CHARS,
    MAX_DISPLAY_NAME_CHARS,
    MAX_NAME_CHARS,
    SkillManifest,
    SkillProblem,
    SkillRequirements,
)

MAX_BODY_LINES = 500
_NAME_CHARS = re.compile(r"[a-z0-9-]+")
KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "display_name",
        "version",
        "tags",
        "triggers",
        "requires",
        "optional",
    }
)
_REQUIREMENT_KEYS = ("tools", "mcp_servers", "bins", "env")


def name_problems(name: object) -> list[SkillProblem]:
    """The name rules alone; also used to check folder names and CLI input."""
    if name is None or name == "":
        return [SkillProblem("name.required", "The frontmatter needs a 'name'.")]
    if not isinstance(name, str):
        return [SkillProblem("name.type", "'name' must be text.")]
    problems: list[SkillProblem] = []
    if len(name) > MAX_NAME_CHARS:
        problems.append(
            SkillProblem("name.length", f"'name' is {len(name)} characters; the limit is {MAX_NAME_CHARS}.")
        )
    if not _NAME_CHARS.fullmatch(name):
        problems.append(
            SkillProblem(
                "name.charset",
                "'name' may only use lowercase ASCII letters (a-z), digits and hyphens.",
            )
        )
    if name.startswith("-") or name.endswith("-"):
        problems.append(SkillProblem("name.hyphen_edge", "'name' must not start or end with a hyphen."))
    if "--" in name:
        problems.append(SkillProblem("name.double_hyphen", "'name' must not contain two hyphens in a row."))
    return problems


def _text(data: dict[str, object], key: str, limit: int | None, problems: list[SkillProblem]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        problems.append(SkillProblem(f"{key}.type", f"'{key}' must be text."))
        return None
    if limit is not None and len(value) > limit:
        problems.append(
            SkillProblem(f"{key}.length", f"'{key}' is {len(value)} characters; the limit is {limit}.")
        )
    return value


def _string_list(value: object, key: str, problems: list[SkillProblem]) -> tuple[str, ...]:
    """A list of strings; a single string is accepted as a one-item list."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    problems.append(SkillProblem(f"{key}.type", f"'{key}' must be a list of text items."))
    return ()


def _non_blank(items: tuple[str, ...], key: str, problems: list[SkillProblem]) -> tuple[str, ...]:
    """A blank tag or trigger matches nothing and shows as an empty chip: refused."""
    if any(not item.strip() for item in items):
        problems.append(SkillProblem(f"{key}.blank", f"'{key}' must not hold an empty item."))
    return items


def _version(data: dict[str, object], problems: list[SkillProblem]) -> str | None:
    value = data.get("version")
    if value is None:
        return None
    # `version: 1.0` is written by hand all the time; YAML makes it a float, so accept numbers.
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        problems.append(SkillProblem("version.type", "'version' must be text such as '1.2.0'."))
        return None
    return str(value)


def _metadata(data: dict[str, object], problems: list[SkillProblem]) -> dict[str, str]:
    value = data.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        problems.append(
            SkillProblem("metadata.type", "'metadata' must map text keys to text values (quote numbers).")
        )
        return {}
    return dict(value)


def _requirements(data: dict[str, object], key: str, problems: list[SkillProblem]) -> SkillRequirements:
    value = data.get(key)
    if value is None:
        return SkillRequirements()
    if not isinstance(value, dict):
        problems.append(
            SkillProblem(f"{key}.type", f"'{key}' must be a mapping with tools, mcp_servers, bins or env.")
        )
        return SkillRequirements()
    lists = {k: _string_list(value.get(k), f"{key}.{k}", problems) for k in _REQUIREMENT_KEYS}
    return SkillRequirements(**lists)


def advisory_warnings(manifest: SkillManifest, body: str = "") -> list[str]:
    """Limits the Agent Skills spec recommends: reported (validate, preview, Market), never
    refused, so Skills from other tools import as they are."""
    out: list[str] = []
    if len(manifest.description) > MAX_DESCRIPTION_CHARS:
        out.append(
            f"The description is {len(manifest.description)} characters; the recommended limit is "
            f"{MAX_DESCRIPTION_CHARS} (the model's Skill list shows it shortened)."
        )
    if manifest.compatibility is not None and len(manifest.compatibility) > MAX_COMPATIBILITY_CHARS:
        out.append(
            f"'compatibility' is {len(manifest.compatibility)} characters; the recommended limit is "
            f"{MAX_COMPATIBILITY_CHARS}."
        )
    lines = body.count("\n")
    if lines > MAX_BODY_LINES:
        out.append(
            f"The instructions are {lines} lines long; keep SKILL.md under {MAX_BODY_LINES} lines "
            "and move details into reference files."
        )
    return out


def build_manifest(data: dict[str, object]) -> SkillManifest | list[SkillProblem]:
    problems = name_problems(data.get("name"))
    description = data.get("description")
    if description is None or (isinstance(description, str) and not description.strip()):
        problems.append(SkillProblem("description.required", "The frontmatter needs a 'description'."))
    else:
        # Advisory in the Agent Skills spec: real Skills exceed it, so it is a warning
        # (`advisory_warnings`), not a refusal. SKILL.md's 256 KiB cap still bounds it.
        _text(data, "description", None, problems)
    license_ = _text(data, "license", None, problems)
    compatibility = _text(data, "compatibility", None, problems)
    display_name = _text(data, "display_name", MAX_DISPLAY_NAME_CHARS, problems)
    if display_name is not None and ("\n" in display_name or "\r" in display_name):
        problems.append(SkillProblem("display_name.lines", "'display_name' must be one line."))
    metadata = _metadata(data, problems)
    allowed_tools = _string_list(data.get("allowed-tools"), "allowed-tools", problems)
    version = _version(data, problems)
    tags = _non_blank(_string_list(data.get("tags"), "tags", problems), "tags", problems)
    triggers = _non_blank(_string_list(data.get("triggers"), "triggers", problems), "triggers", problems)
    requires = _requirements(data, "requires", problems)
    optional = _requirements(data, "optional", problems)
    name = data.get("name")
    if problems or not isinstance(name, str) or not isinstance(description, str):
        return problems
    return SkillManifest(
        name=name,
        description=description,
        license=license_,
        compatibility=compatibility,
        metadata=metadata,
        allowed_tools=allowed_tools,
        display_name=display_name,
        version=version,
        tags=tags,
        triggers=triggers,
        requires=requires,
        optional=optional,
        extra_keys=tuple(sorted(k for k in data if k not in KNOWN_KEYS)),
    )
