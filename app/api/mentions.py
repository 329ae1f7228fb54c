"""The @-selections of a message (SPEC S7.9) as the app accepts them from any surface: names by
the rules of their kind, labels trimmed, each capability once."""

from __future__ import annotations

import re

from app.contracts.messages import Mention

LABEL_MAX = 80


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
        rule = skill_name_re if mention.kind == "skill" else MCP_NAME_RE
        if not rule.fullmatch(mention.name):
            what = "Skill" if mention.kind == "skill" else "MCP server"
            raise ValueError(f"{mention.name[:64]!r} is not a valid {what} name")
        key = (mention.kind, mention.name)
        if key in seen:
            continue
        seen.add(key)
        label = " ".join(mention.label.split())[:LABEL_MAX] or mention.name
        out.append(Mention(kind=mention.kind, name=mention.name, label=label))
    return out
