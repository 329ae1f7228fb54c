"""The runtime Skill tools the model uses (SPEC S7.3): search, load, read a resource, run a
script. They are offered by the Skills capability (app/skills/capability.py) in every turn."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from app.contracts.messages import ToolSpec
from app.contracts.tool_args import opt_int, req_str
from app.contracts.tools import PreparedCall, Tool, ToolContext, ToolError, ToolResult
from app.skills import tool_specs as specs
from app.skills.activations import Activation
from app.skills.catalog import CatalogEntry, CatalogSnapshot
from app.skills.resources import (
    MAX_READ_BYTES,
    ResourceError,
    describe_files,
    list_package_files,
    read_resource,
)
from app.skills.runtime import SkillRuntime
from app.skills.search_index import listing_description
from app.skills.validate import validate_package
from app.support.paging import LinePage, line_marker, page_chars, page_lines

SEARCH_LIMIT = 8
MAX_SEARCH_LIMIT = 50


def closest_names(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    return difflib.get_close_matches(name, sorted(set(candidates)), n=n, cutoff=0.5)


def unknown_skill_message(snapshot: CatalogSnapshot, name: str) -> str:
    """An invalid package says why it is invalid; an unknown name offers the closest names."""
    label = name[:80]
    invalid = next((d for d in snapshot.diagnostics if d.dir_name == name), None)
    if invalid is not None:
        return f"The Skill '{label}' is installed but invalid, so it cannot be used: {invalid.reason}"
    close = closest_names(name, (e.name for e in snapshot.active()))
    hint = f" Closest names: {', '.join(close)}." if close else ""
    return f"No Skill named '{label}'.{hint} Use skill_search to find one."


def selectable_entry(runtime: SkillRuntime, name: str, chat_id: str) -> CatalogEntry:
    """The live, enabled, selectable entry for `name`, or a ToolError saying why not. Only the
    Skills the chat's agent allows exist here (issue 38)."""
    snapshot = runtime.snapshot(chat_id)
    entry = snapshot.get(name)
    if entry is None:
        raise ToolError(unknown_skill_message(snapshot, name))
    if not entry.enabled:
        raise ToolError(f"The Skill '{name}' is disabled by the user.")
    missing = runtime.missing(entry)
    if missing:
        raise ToolError(f"The Skill '{name}' has missing dependencies: {', '.join(missing)}.")
    return entry


def loaded_entry(runtime: SkillRuntime, name: str, ctx: ToolContext) -> CatalogEntry:
    """As `selectable_entry`, and the Skill must have been loaded in this chat: its files are
    read and run only as part of following its instructions."""
    entry = selectable_entry(runtime, name, ctx.chat_id)
    if not runtime.is_loaded(ctx.chat_id, ctx.turn_id, entry):
        raise ToolError(f"Load the Skill first: call skill_load with name '{entry.name}'.")
    return entry


def receipt(name: str, version: str | None, sha256: str) -> str:
    return f"[Skill loaded: {name} v{version or '0'} {sha256[:12]}]"


class _ReadingTool(Tool):
    """A read-only Skill tool: name, description and schema from its static spec
    (app/skills/tool_specs.py); its arguments are required strings; nothing to ask."""

    read_only = True
    _string_args: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, *, spec: ToolSpec, string_args: tuple[str, ...], **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.name, cls.description, cls.parameters = spec.name, spec.description, spec.parameters
        cls._string_args = string_args

    def __init__(self, runtime: SkillRuntime) -> None:
        self._rt = runtime

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        values = {k: req_str(args, k) for k in self._string_args}
        return PreparedCall(tool=self.name, args=values, approval=None)


class SkillSearchTool(_ReadingTool, spec=specs.SKILL_SEARCH, string_args=("query",)):
    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        raw = args.get("query")
        if isinstance(raw, str) and not raw.strip():
            raise ToolError("The query is blank: say in a few words what the task is about.")
        query = req_str(args, "query")
        limit = opt_int(args, "limit", default=SEARCH_LIMIT, lo=1, hi=MAX_SEARCH_LIMIT) or SEARCH_LIMIT
        return PreparedCall(tool=self.name, args={"query": query, "limit": limit}, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        hits = self._rt.search(call.args["query"], call.args["limit"], chat_id=ctx.chat_id)
        if not hits:
            return ToolResult(ok=True, content="No Skill matches that query.")
        lines = []
        for hit in hits:
            e = hit.entry
            state = "" if e.enabled else " (disabled)"
            missing = self._rt.missing(e) if e.enabled else []
            if missing:
                state = f" (missing dependencies: {', '.join(missing)})"
            desc = listing_description(e.manifest.description)
            lines.append(f"- {e.name} [{e.source}]{state}: {desc}")
        return ToolResult(ok=True, content="\n".join(lines))


class SkillLoadTool(_ReadingTool, spec=specs.SKILL_LOAD, string_args=("name",)):
    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        entry = selectable_entry(self._rt, call.args["name"], ctx.chat_id)
        checked = validate_package(entry.path)  # re-validate: the disk may have changed
        if checked.kind == "invalid":
            reasons = "; ".join(p.message for p in checked.problems)
            raise ToolError(f"The Skill '{entry.name}' is no longer valid: {reasons}")
        doc = checked.document
        m = doc.manifest
        if self._rt.loaded_this_turn(ctx.chat_id, ctx.turn_id, m.name, doc.sha256):
            # Its instructions are already in this turn's context: do not inject them again.
            return ToolResult(
                ok=True,
                content=f"The Skill '{m.name}' is already loaded in this turn; its instructions are above.",
            )
        files, total = list_package_files(entry.path)
        head = receipt(m.name, m.version, doc.sha256)
        listing = [f"Files in the Skill ({total}):", *describe_files(entry.path, files)]
        if total > len(files):
            listing.append(f"[… {total - len(files)} more files not listed]")
        listing = _fit_listing(listing, total, page_chars(ctx.output_budget) // 3)
        room = page_chars(ctx.output_budget, used=len(head) + sum(len(x) + 1 for x in listing) + 200)
        body, more = _body_page(entry.path, doc.body, m.name, room)
        meta = [f"Metadata: {k}: {v}" for k, v in sorted(m.metadata.items())]
        opening = f'<skill name="{m.name}" source="{entry.source}">'
        parts = [head, opening, body, "</skill>", more, *meta, *listing]
        parts.append(await self._mcp_note(ctx.chat_id, m.requires.mcp_servers))
        self._rt.note_loaded(
            ctx.chat_id, ctx.turn_id, Activation(m.name, m.description, m.version or "", doc.sha256)
        )
        return ToolResult(
            ok=True,
            content="\n".join(p for p in parts if p),
            display=head,
            history_content=head,
            metadata={"skill": m.name, "sha256": doc.sha256},
        )

    async def _mcp_note(self, chat_id: str, servers: tuple[str, ...]) -> str:
        if not servers:
            return ""
        if self._rt.mcp is None:
            return f"This Skill uses MCP servers ({', '.join(servers)}); MCP is not available here."
        status = await self._rt.mcp.prepare_servers(chat_id, servers)
        return "MCP servers for this Skill:\n" + "\n".join(f"- {s}" for s in status)


def _fit_listing(listing: list[str], total: int, limit: int) -> list[str]:
    """The file list, shortened to `limit` characters with a note of how many were left out."""
    if sum(len(x) + 1 for x in listing) <= limit:
        return listing
    kept: list[str] = []
    size = 0
    for line in listing[:-1] if listing[-1].startswith("[") else listing:
        if size + len(line) + 1 > limit - 80:
            break
        kept.append(line)
        size += len(line) + 1
    return [*kept, f"[… {total - (len(kept) - 1)} more files not listed]"]


def _body_page(package: Path, body: str, name: str, room: int) -> tuple[str, str]:
    """The first page of the instructions, and when they are longer than one page, the
    marker naming the SKILL.md line to continue from with skill_read_resource."""
    lines = body.rstrip().splitlines(keepends=True)
    page = page_lines(lines, offset=1, limit=None, max_chars=room)
    if page.next_offset is None:
        return page.text.strip(), ""
    try:
        whole = read_resource(package, "SKILL.md").text or ""
    except ResourceError:
        whole = ""
    start = len(whole.splitlines(keepends=True)) - len(body.splitlines(keepends=True))
    page = LinePage(
        page.text, start + 1, start + page.last, start + page.next_offset, page.cut_line, page.by_limit
    )
    marker = line_marker(page, how=f"skill_read_resource name={name!r} path='SKILL.md'")
    return page.text.rstrip(), (
        f"{marker}\nThe instructions go on past this page: read the rest before you act on them."
    )


class SkillReadResourceTool(_ReadingTool, spec=specs.SKILL_READ_RESOURCE, string_args=("name", "path")):
    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        values: dict[str, Any] = {k: req_str(args, k) for k in self._string_args}
        values["offset"] = opt_int(args, "offset", default=1, lo=1, hi=10**9) or 1
        values["limit"] = opt_int(args, "limit", default=None, lo=1, hi=10**9)
        return PreparedCall(tool=self.name, args=values, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        entry = loaded_entry(self._rt, call.args["name"], ctx)
        try:
            res = read_resource(entry.path, call.args["path"])
        except ResourceError as exc:
            raise ToolError(str(exc)) from None
        if res.text is None:
            return ToolResult(
                ok=True,
                content=(
                    f"'{res.rel}' is a binary file ({res.mime}, {res.size} bytes, sha256 {res.sha256}); "
                    "its content is not shown."
                ),
            )
        lines = res.text.splitlines(keepends=True)
        page = page_lines(
            lines,
            offset=call.args["offset"],
            limit=call.args["limit"],
            max_chars=page_chars(ctx.output_budget),
        )
        how = f"skill_read_resource name={entry.name!r} path={res.rel!r}"
        notes = [line_marker(page, how=how, total=len(lines))]
        count = f"{len(lines)} line" + ("" if len(lines) == 1 else "s")
        head = f"[text file '{res.rel}', {res.size:,} bytes, {count}]\n"
        if not page.text and call.args["offset"] > 1:
            notes.append(f"[the file has {len(lines)} lines; nothing is left to read]")
        if res.truncated:
            notes.append(
                f"[the file has {res.size} bytes; only its first {MAX_READ_BYTES} bytes can be read, "
                "the rest is left out]"
            )
        note = "".join(f"\n{n}" for n in notes if n)
        return ToolResult(ok=True, content=head + page.text + note, truncated=bool(note))


def timeout_arg(args: Mapping[str, Any], default: int, hi: int) -> int:
    value = opt_int(args, "timeout", default=default, lo=1, hi=hi)
    return value if value is not None else default
