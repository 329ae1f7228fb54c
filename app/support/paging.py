"""Pages of tool output that fit the one output budget (app/contracts/tools.py), and cuts that
say what they left out. Shared by the file, web, process, Skill and MCP tools and the loop.

A page leaves MARKER_RESERVE characters of the budget free for the tool's header and the marker
that says how to get the next page, so the loop's own cut (`cut_middle`) never eats the marker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MARKER_RESERVE = 600
MIN_PAGE = 1_000


def page_chars(budget: int, used: int = 0) -> int:
    """Characters a page may have when `used` characters of the budget are already taken."""
    return max(MIN_PAGE, budget - MARKER_RESERVE - used)


@dataclass(frozen=True)
class LinePage:
    text: str
    first: int  # 1-based number of the first line shown (offset)
    last: int  # number of the last line shown, whole or cut; first - 1 when nothing is shown
    next_offset: int | None  # where the next page starts; None: the end was reached
    cut_line: bool  # the last line shown was longer than a page: only its beginning is shown
    by_limit: bool  # the page ended at the caller's line limit, not at the budget


def page_lines(lines: Iterable[str], *, offset: int, limit: int | None, max_chars: int) -> LinePage:
    """Lines `offset`.. (1-based, each with its newline) up to `limit` lines and `max_chars`
    characters. Only whole lines, except a single line longer than a page (its beginning)."""
    out: list[str] = []
    size = 0
    number = 0
    for line in lines:
        number += 1
        if number < offset:
            continue
        if limit is not None and len(out) >= limit:
            return LinePage("".join(out), offset, number - 1, number, cut_line=False, by_limit=True)
        if size + len(line) > max_chars:
            if out:
                return LinePage("".join(out), offset, number - 1, number, cut_line=False, by_limit=False)
            return LinePage(line[:max_chars], offset, number, number + 1, cut_line=True, by_limit=False)
        out.append(line)
        size += len(line)
    return LinePage("".join(out), offset, offset + len(out) - 1, None, cut_line=False, by_limit=False)


def line_marker(page: LinePage, *, how: str, total: int | None = None) -> str | None:
    """What the model reads after a page: which lines it got and exactly how to get the next.
    `how` names the call with everything but the offset, e.g. "read_file path='a.txt'"."""
    if page.next_offset is None:
        return None
    of = f" of {total}" if total is not None else ""
    shown = f"lines {page.first}–{page.last}{of} shown"
    if page.cut_line:
        shown += (
            f"; line {page.last} is longer than one page, only its first {len(page.text)} characters are "
            "shown and the rest of that line is left out"
        )
    why = "the line limit was reached" if page.by_limit else "the output budget is full"
    return f"[truncated: {shown} ({why}); continue with {how} offset={page.next_offset}]"


def char_page(text: str, offset: int, max_chars: int) -> tuple[str, int | None]:
    """Characters `offset`.. of `text` (0-based), at most `max_chars`, and the next offset
    (None: the end was reached). A page ends at a line break when one is near the end."""
    end = offset + max_chars
    if end >= len(text):
        return text[offset:], None
    brk = text.rfind("\n", offset + max_chars // 2, end)
    if brk != -1:
        end = brk + 1
    return text[offset:end], end


def char_marker(offset: int, shown: int, total: int, next_offset: int | None, *, how: str) -> str | None:
    if next_offset is None:
        return None
    return (
        f"[truncated: characters {offset}–{offset + shown} of {total} shown; "
        f"continue with {how} offset={next_offset}]"
    )


def cut_middle(text: str, max_chars: int, *, what: str = "output") -> tuple[str, bool]:
    """At most `max_chars` (plus the marker): the head and the tail, with a marker in the
    middle saying how many characters were left out. The tail is kept because tools put their
    "continue with …" markers, exit codes and errors last."""
    if len(text) <= max_chars:
        return text, False
    tail = max_chars // 4
    head = max_chars - tail
    left_out = len(text) - head - tail
    marker = (
        f"\n[… {left_out} characters of the {what} left out here ({len(text)} in all; "
        f"the first {head} and the last {tail} are shown)]\n"
    )
    return text[:head] + marker + text[-tail:], True
