"""Split SKILL.md into YAML frontmatter and Markdown body; load YAML refusing duplicate keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode

from app.skills.model import SkillProblem


class DuplicateKeyError(ConstructorError):
    pass


class UniqueKeySafeLoader(yaml.SafeLoader):
    """SafeLoader that rejects a mapping with the same key twice (PyYAML keeps the last silently)."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[object] = set()
        for key_node, _value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                hashable = key in seen
            except TypeError:
                continue  # unhashable keys are reported by the base class
            if hashable:
                raise DuplicateKeyError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key!r}",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


@dataclass(frozen=True)
class Frontmatter:
    data: dict[str, object]
    body: str


def _split(text: str) -> tuple[str, str] | None:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    return None


def parse_frontmatter(text: str) -> Frontmatter | SkillProblem:
    """Returns the frontmatter mapping and body, or the one problem that stops parsing."""
    if text.startswith("\ufeff"):
        text = text[1:]  # editors on Windows add a BOM; it is not content
    parts = _split(text)
    if parts is None:
        return SkillProblem(
            "frontmatter.missing",
            "SKILL.md must start with YAML frontmatter between two '---' lines.",
        )
    raw_yaml, body = parts
    try:
        data = yaml.load(raw_yaml, Loader=UniqueKeySafeLoader)  # a SafeLoader subclass
    except DuplicateKeyError as exc:
        return SkillProblem("yaml.duplicate_key", f"The frontmatter has a key twice: {exc.problem}.")
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 2})" if where is not None else ""
        return SkillProblem("yaml.syntax", f"The frontmatter is not valid YAML{line}.")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return SkillProblem("yaml.mapping", "The frontmatter must be a YAML mapping of keys to values.")
    if not all(isinstance(key, str) for key in data):
        return SkillProblem("yaml.keys", "Every frontmatter key must be text.")
    return Frontmatter(data=data, body=body)
