"""File tools: read_file, write_file, edit_file, list_dir. All paths go through the workspace boundary."""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalSummaryCode
from app.contracts.tool_args import opt_bool, opt_int, opt_str, req_str
from app.contracts.tools import ApprovalInfo, PreparedCall, Tool, ToolContext, ToolError, ToolResult, summary
from app.support.paging import LinePage, line_marker, page_chars, page_lines
from app.tools.fileio import BINARY_SNIFF_BYTES, atomic_write, looks_binary, open_regular, read_utf8
from app.tools.specs import EDIT_FILE, LIST_DIR, READ_FILE, WRITE_FILE
from app.tools.workspace import display_path, private_root_of, read_guard_reason, resolve_in_workspace

READ_CAP_BYTES = 256 * 1024  # how much of an over-long line is read at a time while skipping it
EDIT_MAX_BYTES = 8 * 1024 * 1024  # edit_file loads the whole file
WRITE_MAX_BYTES = 8 * 1024 * 1024
LIST_CAP = 500
DIFF_PREVIEW_CHARS = 4000


@dataclass(frozen=True)
class PathState:
    path: Path
    shown: str


def _path_state(args: Mapping[str, Any], ctx: ToolContext, *, for_write: bool) -> PathState:
    path = resolve_in_workspace(req_str(args, "path"), ctx, for_write=for_write)
    return PathState(path=path, shown=display_path(path, ctx))


def _plain_workspace_file(ps: PathState, ctx: ToolContext) -> bool:
    """A write the Sandboxed mode allows unasked: inside the workspace (already checked), not in
    the app's folders or a path the sandbox hides, not a hard link to a file elsewhere."""
    hidden = ctx.sandbox.hidden if ctx.sandbox else ()
    if any(ps.path == h or ps.path.is_relative_to(h) for h in hidden):
        return False
    return read_guard_reason(ps.path, ctx, ps.shown) is None


def guarded_read(path: Path, shown: str, ctx: ToolContext, *, verb: str = "Read") -> ApprovalInfo | None:
    """An approval for reading where the workspace boundary alone is not enough (the app's own
    data folder, hard links); None for ordinary files. No "always": each such read is asked."""
    reason = read_guard_reason(path, ctx, shown)
    if reason is None:
        return None
    code: ApprovalSummaryCode = (
        "protected_private" if private_root_of(path, ctx) is not None else "protected_hardlink"
    )
    return ApprovalInfo(
        title=f"{verb} a protected path",
        detail=f"{verb} {path}\n{reason}",
        summary=summary(code, str(path), verb=verb.lower(), path=shown),
    )


# --------------------------------------------------------------------------- read_file


@dataclass(frozen=True)
class ReadState:
    path: Path
    shown: str
    offset: int
    limit: int | None


class ReadFileTool(Tool):
    name = READ_FILE.name
    description = READ_FILE.description
    parameters = READ_FILE.parameters
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        ps = _path_state(args, ctx, for_write=False)
        offset = opt_int(args, "offset", default=1, lo=1, hi=10**9) or 1
        limit = opt_int(args, "limit", default=None, lo=1, hi=10**9)
        state = ReadState(ps.path, ps.shown, offset, limit)
        approval = guarded_read(ps.path, ps.shown, ctx)
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        st: ReadState = call.state
        page = await asyncio.to_thread(_read_lines, st, page_chars(ctx.output_budget))
        marker = line_marker(page, how=f"read_file path={st.shown!r}")
        if page.next_offset is None and not page.text and st.offset > 1:
            marker = f"[the file has fewer than {st.offset} lines; nothing is left to read]"
        content = page.text + (f"\n{marker}" if marker else "")
        return ToolResult(ok=True, content=content, truncated=marker is not None, metadata={"path": st.shown})


def _read_lines(st: ReadState, max_chars: int) -> LinePage:
    fd = open_regular(st.path, st.shown)
    with os.fdopen(fd, "rb") as raw:
        if looks_binary(raw.read(BINARY_SNIFF_BYTES)):
            raise ToolError(f"'{st.shown}' looks like a binary file; only UTF-8 text files are supported.")
        raw.seek(0)
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="")
        try:
            return page_lines(_lines(text, max_chars), offset=st.offset, limit=st.limit, max_chars=max_chars)
        except UnicodeDecodeError as exc:
            raise ToolError(f"'{st.shown}' is not valid UTF-8 text.") from exc


def _lines(text: io.TextIOWrapper, max_chars: int) -> Iterator[str]:
    """The file's lines, read one at a time; an over-long line yields only its first
    `max_chars + 1` characters (enough to know it does not fit) and the rest is skipped."""
    while line := text.readline(max_chars + 1):
        if len(line) > max_chars and not line.endswith("\n"):
            while (rest := text.readline(READ_CAP_BYTES)) and not rest.endswith("\n"):
                pass
        yield line


# --------------------------------------------------------------------------- write_file


@dataclass(frozen=True)
class WriteState:
    path: Path
    shown: str
    data: bytes
    overwrite: bool


class WriteFileTool(Tool):
    name = WRITE_FILE.name
    description = WRITE_FILE.description
    parameters = WRITE_FILE.parameters

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        ps = _path_state(args, ctx, for_write=True)
        data = req_str(args, "content", allow_empty=True).encode("utf-8")
        overwrite = opt_bool(args, "overwrite")
        if len(data) > WRITE_MAX_BYTES:
            raise ToolError(f"Content is larger than {WRITE_MAX_BYTES} bytes.")
        exists = _check_write_target(ps)
        if exists and not overwrite:
            raise ToolError(f"'{ps.shown}' already exists; pass overwrite: true to replace it.")
        what = "overwrite existing file" if exists else "new file"
        approval = ApprovalInfo(
            title="Write a file",
            detail=f"Write {len(data)} bytes to {ps.path} ({what})",
            summary=summary(
                "write_file_overwrite" if exists else "write_file_new", str(ps.path), bytes=len(data)
            ),
        )
        state = WriteState(ps.path, ps.shown, data, overwrite)
        confinable = _plain_workspace_file(ps, ctx)
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state, confinable=confinable)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        st: WriteState = call.state
        _recheck(st.path, st.shown, ctx)
        _check_write_target(PathState(st.path, st.shown))
        try:
            await asyncio.to_thread(atomic_write, st.path, st.data, overwrite=st.overwrite)
        except OSError as exc:
            raise ToolError(f"Could not write '{st.shown}': {exc.strerror or exc}.") from exc
        done = f"Wrote {len(st.data)} bytes to {st.shown}."
        return ToolResult(ok=True, content=done, metadata={"path": st.shown})


def _check_write_target(ps: PathState) -> bool:
    """Validate the parent and target kind; return whether the target exists."""
    if not ps.path.parent.is_dir():
        raise ToolError(
            f"Parent folder of '{ps.shown}' does not exist; parent folders are not created implicitly."
        )
    if ps.path.is_dir():
        raise ToolError(f"'{ps.shown}' is a directory.")
    if ps.path.exists() and not ps.path.is_file():
        raise ToolError(f"'{ps.shown}' is not a regular file.")
    return ps.path.exists()


def _recheck(path: Path, shown: str, ctx: ToolContext) -> None:
    """The world may have changed between prepare and execute (approval can take minutes)."""
    again = resolve_in_workspace(str(path), ctx, for_write=True)
    if again != path:
        raise ToolError(f"'{shown}' changed location since the call was prepared; please retry.")


# --------------------------------------------------------------------------- edit_file


@dataclass(frozen=True)
class EditState:
    path: Path
    shown: str
    before_sha: str
    new_text: str


class EditFileTool(Tool):
    name = EDIT_FILE.name
    description = EDIT_FILE.description
    parameters = EDIT_FILE.parameters

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        ps = _path_state(args, ctx, for_write=True)
        old = req_str(args, "old_string")
        new = req_str(args, "new_string", allow_empty=True)
        text = await asyncio.to_thread(read_utf8, ps.path, ps.shown, max_bytes=EDIT_MAX_BYTES)
        count = text.count(old)
        if count == 0:
            raise ToolError(f"old_string was not found in '{ps.shown}'; nothing was changed.")
        if count > 1:
            raise ToolError(
                f"old_string occurs {count} times in '{ps.shown}'; include more surrounding text so "
                "it matches exactly once. Nothing was changed."
            )
        new_text = text.replace(old, new, 1)
        diff = "".join(
            difflib.unified_diff(
                text.splitlines(keepends=True), new_text.splitlines(keepends=True), ps.shown, ps.shown, n=2
            )
        )
        if len(diff) > DIFF_PREVIEW_CHARS:
            diff = diff[:DIFF_PREVIEW_CHARS] + "\n[diff truncated]"
        approval = ApprovalInfo(
            title="Edit a file",
            detail=f"Edit {ps.path}\n{diff}",
            summary=summary("edit_file", diff, path=ps.path),
        )
        state = EditState(ps.path, ps.shown, _sha(text), new_text)
        confinable = _plain_workspace_file(ps, ctx)
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state, confinable=confinable)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        st: EditState = call.state
        _recheck(st.path, st.shown, ctx)
        current = await asyncio.to_thread(read_utf8, st.path, st.shown, max_bytes=EDIT_MAX_BYTES)
        if _sha(current) != st.before_sha:
            raise ToolError(f"'{st.shown}' changed since the edit was prepared; read it again and retry.")
        try:
            await asyncio.to_thread(atomic_write, st.path, st.new_text.encode("utf-8"), overwrite=True)
        except OSError as exc:
            raise ToolError(f"Could not write '{st.shown}': {exc.strerror or exc}.") from exc
        return ToolResult(ok=True, content=f"Edited {st.shown} (1 replacement).", metadata={"path": st.shown})


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- list_dir


class ListDirTool(Tool):
    name = LIST_DIR.name
    description = LIST_DIR.description
    parameters = LIST_DIR.parameters
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        path = resolve_in_workspace(opt_str(args, "path") or ".", ctx)
        state = PathState(path, display_path(path, ctx))
        approval = guarded_read(path, state.shown, ctx, verb="List")
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        st: PathState = call.state
        lines, more = await asyncio.to_thread(_list, st)
        body = "\n".join(lines) if lines else "(empty)"
        if more:
            body += f"\n[truncated: {more} more entries]"
        return ToolResult(ok=True, content=body, truncated=more > 0, metadata={"path": st.shown})


def _list(st: PathState) -> tuple[list[str], int]:
    try:
        with os.scandir(st.path) as it:
            entries = sorted(it, key=lambda e: e.name)
    except FileNotFoundError as exc:
        raise ToolError(f"Folder '{st.shown}' does not exist.") from exc
    except NotADirectoryError as exc:
        raise ToolError(f"'{st.shown}' is not a folder.") from exc
    except OSError as exc:
        raise ToolError(f"Cannot list '{st.shown}': {exc.strerror}.") from exc
    lines = [_entry_line(e) for e in entries[:LIST_CAP]]
    return lines, max(0, len(entries) - LIST_CAP)


def _entry_line(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return f"{entry.name}@"
    if entry.is_dir(follow_symlinks=False):
        return f"{entry.name}/"
    try:
        size = entry.stat(follow_symlinks=False).st_size
    except OSError:
        return entry.name
    return f"{entry.name}  ({size} bytes)"
