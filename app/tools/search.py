"""Search tools: glob (file names) and grep (file contents), bounded and workspace-only.

Both walk in a worker thread; cancellation sets a stop flag checked between files and folders.
Known limit: a pathological regex (catastrophic backtracking) inside one file cannot be
interrupted — Python's `re` has no timeout; file size (2 MiB) bounds the damage.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.contracts.tool_args import opt_bool, opt_str, req_str
from app.contracts.tools import PreparedCall, Tool, ToolContext, ToolError, ToolResult
from app.tools.fileio import BINARY_SNIFF_BYTES, looks_binary
from app.tools.fs import guarded_read
from app.tools.specs import GLOB, GREP
from app.tools.walk import compile_glob, walk
from app.tools.workspace import active_private_roots, display_path, hard_link_count, resolve_in_workspace

GLOB_CAP = 100
GREP_CAP = 50
GREP_MAX_FILE_BYTES = 2 * 1024 * 1024  # bigger files are skipped: likely data, not source
GREP_LINE_CHARS = 400


@dataclass(frozen=True)
class GlobState:
    base: Path
    workspace: Path
    pattern: re.Pattern[str]
    prefix: str  # base shown relative to the workspace, for result paths
    skip: tuple[Path, ...] = ()  # the app's private folders: never entered


class GlobTool(Tool):
    name = GLOB.name
    description = GLOB.description
    parameters = GLOB.parameters
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        pattern = compile_glob(req_str(args, "pattern"))
        base = _base_dir(args, ctx)
        workspace = Path(os.path.realpath(ctx.workspace))  # noqa: ASYNC240  a few lstat calls
        state = GlobState(base, workspace, pattern, _prefix(base, ctx), _skip(base, ctx))
        approval = guarded_read(base, display_path(base, ctx), ctx, verb="Search")
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        st: GlobState = call.state
        stop = threading.Event()
        try:
            found, more = await asyncio.to_thread(_glob, st, stop)
        finally:
            stop.set()  # lets the worker thread finish early if we were cancelled
        body = "\n".join(found) if found else "No matches."
        if more:
            body += f"\n[truncated: more than {GLOB_CAP} matches; narrow the pattern]"
        return ToolResult(ok=True, content=body, truncated=more)


def _glob(st: GlobState, stop: threading.Event) -> tuple[list[str], bool]:
    found: list[str] = []
    for entry in walk(st.base, st.workspace, stop, st.skip):
        if st.pattern.match(entry.rel):
            if len(found) == GLOB_CAP:
                return sorted(found), True
            found.append(st.prefix + entry.rel + ("/" if entry.is_dir else ""))
    return sorted(found), False


def _skip(base: Path, ctx: ToolContext) -> tuple[Path, ...]:
    """The app's folders a walk from `base` must not enter (none when the user approved searching
    inside one of them explicitly: then `base` itself lies in it)."""
    return tuple(r for r in active_private_roots(ctx) if not (base == r or base.is_relative_to(r)))


def _base_dir(args: Mapping[str, Any], ctx: ToolContext) -> Path:
    base = resolve_in_workspace(opt_str(args, "path") or ".", ctx)
    if not base.is_dir():
        raise ToolError(f"'{display_path(base, ctx)}' is not a folder.")
    return base


def _prefix(base: Path, ctx: ToolContext) -> str:
    shown = display_path(base, ctx)
    return "" if shown == "." else shown + "/"


@dataclass(frozen=True)
class GrepState:
    target: Path
    workspace: Path
    regex: re.Pattern[str]
    name_filter: re.Pattern[str] | None
    filter_on_path: bool
    prefix: str
    skip: tuple[Path, ...] = ()


class GrepTool(Tool):
    name = GREP.name
    description = GREP.description
    parameters = GREP.parameters
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        flags = re.IGNORECASE if opt_bool(args, "ignore_case") else 0
        try:
            regex = re.compile(req_str(args, "pattern"), flags)
        except re.error as exc:
            raise ToolError(f"Invalid regular expression: {exc}.") from exc
        target = resolve_in_workspace(opt_str(args, "path") or ".", ctx)
        if not target.exists():
            raise ToolError(f"'{display_path(target, ctx)}' does not exist.")
        glob_arg = opt_str(args, "glob")
        name_filter = compile_glob(glob_arg) if glob_arg else None
        base = target if target.is_dir() else target.parent
        state = GrepState(
            target=target,
            workspace=Path(os.path.realpath(ctx.workspace)),  # noqa: ASYNC240  a few lstat calls
            regex=regex,
            name_filter=name_filter,
            filter_on_path=bool(glob_arg and "/" in glob_arg),
            prefix=_prefix(base, ctx),
            skip=_skip(base, ctx),
        )
        approval = guarded_read(target, display_path(target, ctx), ctx, verb="Search")
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        st: GrepState = call.state
        stop = threading.Event()
        try:
            hits, more = await asyncio.to_thread(_grep, st, stop)
        finally:
            stop.set()
        body = "\n".join(hits) if hits else "No matches."
        if more:
            body += f"\n[truncated: more than {GREP_CAP} matches; narrow the pattern or path]"
        return ToolResult(ok=True, content=body, truncated=more)


def _grep(st: GrepState, stop: threading.Event) -> tuple[list[str], bool]:
    hits: list[str] = []
    for path, rel in _grep_files(st, stop):
        for line_no, line in _matching_lines(path, st.regex):
            if len(hits) == GREP_CAP:
                return hits, True
            hits.append(f"{st.prefix}{rel}:{line_no}: {line[:GREP_LINE_CHARS]}")
    return hits, False


def _grep_files(st: GrepState, stop: threading.Event) -> Iterator[tuple[Path, str]]:
    if st.target.is_file():
        yield st.target, st.target.name
        return
    for entry in walk(st.target, st.workspace, stop, st.skip):
        if entry.is_dir or hard_link_count(entry.path) > 1:  # see read_guard_reason
            continue
        if st.name_filter is not None:
            subject = entry.rel if st.filter_on_path else entry.rel.rsplit("/", 1)[-1]
            if not st.name_filter.match(subject):
                continue
        yield entry.path, entry.rel


def _matching_lines(path: Path, regex: re.Pattern[str]) -> list[tuple[int, str]]:
    try:
        if not path.is_file() or path.stat().st_size > GREP_MAX_FILE_BYTES:
            return []
        data = path.read_bytes()
    except OSError:
        return []  # unreadable files are skipped, like grep -s
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        return []
    text = data.decode("utf-8", errors="replace")
    return [(i, line.rstrip("\r")) for i, line in enumerate(text.split("\n"), 1) if regex.search(line)]
