"""The @-selections of a message (SPEC S7.9) as the app accepts them from any surface: names by
the rules of their kind, labels trimmed, each capability once."""

from __future__ import annotations

import re

from app.contracts.messages import Mention

LABEL_MAX = 80
# A knowledge base name (app/knowledge/store.py `check_name`): printable, at most 64 characters.
_KNOWLEDGE_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,64}")
_WHAT = {"skill": "Skill", "mcp": "MCP server", "knowledge": "knowledge base"}


def clean_mentions(mentions: list[Mention]) -> list[Mention]:
    """Raises ValueError on a name its kind does not allow; duplicates keep the first."""
    if not mentions:
        return mentions  # the usual message: the name rules' modules stay unloaded (`ask` start-up)
    from app.mcp.config import NAME_RE as MCP_NAME_RE
    from app.skills.api_models import NAME_PATTERN

    skill_name_re = re.compile(NAME_PATTERN)
    seen: set[tuple[str, str]] = set()
    out: list[Mention] = []
    for mention in mentions:
        rules = {"skill": skill_name_re, "mcp": MCP_NAME_RE, "knowledge": _KNOWLEDGE_NAME}
        if not rules[mention.kind].fullmatch(mention.name):
            raise ValueError(f"{mention.name[:64]!r} is not a valid {_WHAT[mention.kind]} name")
        key = (mention.kind, mention.name)
        if key in seen:
            continue
        seen.add(key)
        label = " ".join(mention.label.split())[:LABEL_MAX] or mention.name
        out.append(Mention(kind=mention.kind, name=mention.name, label=label))
    return out
