"""`agent_skill_manage`: the agent creates or updates its own Skills (SPEC S7.8).

Drafts are validated by the same loader as every other Skill and published atomically into the
*agent* source through `SkillStore` (staging folder + rename). It can never touch builtin,
external or user Skills. Generic write/exec tools refuse every Skill root, so this tool is the
only way the model writes a Skill. An invalid draft is an error result, never a success.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from app.contracts.tool_args import req_str
from app.contracts.tools import ApprovalInfo, PreparedCall, Tool, ToolContext, ToolError, ToolResult, summary
from app.skills import tool_specs as specs
from app.skills.fsutil import atomic_write_bytes
from app.skills.model import SKILL_FILE, SkillError, SkillInvalid
from app.skills.runtime import SkillRuntime

MAX_FILES = 32
MAX_FILE_BYTES = 256 * 1024


def _checked_files(raw: object) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        raise ToolError("'files' must map relative paths to text contents.")
    if len(raw) > MAX_FILES:
        raise ToolError(f"At most {MAX_FILES} extra files per call.")
    out: dict[str, str] = {}
    for rel, text in raw.items():
        pure = PurePosixPath(rel)
        bad = (
            not rel
            or "\\" in rel
            or "\x00" in rel
            or pure.is_absolute()
            or any(p in ("..", "") or p.startswith(".") for p in pure.parts)
            or ":" in rel
        )
        if bad:
            raise ToolError(f"'{rel[:80]}' is not an allowed relative path inside the Skill.")
        if pure.as_posix() == SKILL_FILE:
            raise ToolError("Give SKILL.md as 'content', not in 'files'.")
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise ToolError(f"'{rel}' is larger than {MAX_FILE_BYTES} bytes.")
        out[pure.as_posix()] = text
    return out


MAX_REASON_CHARS = 200


def _reason(raw: object) -> str:
    """The model's one-line why, shown in the approval prompt; optional."""
    if raw is None:
        return ""
    if not isinstance(raw, str) or "\n" in raw.strip() or len(raw) > MAX_REASON_CHARS:
        raise ToolError(f"'reason' must be one line of text, at most {MAX_REASON_CHARS} characters.")
    return raw.strip()


def write_files(folder: Path, content: str | None, files: Mapping[str, str]) -> None:
    if content is not None:
        atomic_write_bytes(folder / SKILL_FILE, content.encode("utf-8"))
    for rel, text in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, text.encode("utf-8"))


_OS_ERROR_CLASSES: tuple[tuple[type[OSError], str], ...] = (
    (PermissionError, "permission_denied"),
    (FileNotFoundError, "not_found"),
    (FileExistsError, "already_exists"),
    (IsADirectoryError, "is_a_folder"),
    (NotADirectoryError, "not_a_folder"),
)
_ERRNO_CLASSES = {errno.ENOSPC: "disk_full", errno.EDQUOT: "quota_exceeded", errno.EROFS: "read_only"}


def os_error_class(exc: OSError) -> str:
    """A path-free name for an OS error (`permission_denied`, `disk_full`, …)."""
    for kind, label in _OS_ERROR_CLASSES:
        if isinstance(exc, kind):
            return label
    return _ERRNO_CLASSES.get(exc.errno or 0, "os_error")


class AgentSkillManageTool(Tool):
    name = specs.AGENT_SKILL_MANAGE.name
    description = specs.AGENT_SKILL_MANAGE.description
    parameters = specs.AGENT_SKILL_MANAGE.parameters

    def __init__(self, runtime: SkillRuntime) -> None:
        self._rt = runtime

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        action = req_str(args, "action")
        if action not in ("create", "update"):
            raise ToolError("'action' must be 'create' or 'update'.")
        content = args.get("content")
        if content is not None and not isinstance(content, str):
            raise ToolError("'content' must be text.")
        files = _checked_files(args.get("files"))
        name = args.get("name")
        if action == "create" and content is None:
            raise ToolError("'create' needs 'content' (the full SKILL.md).")
        if action == "update" and (not isinstance(name, str) or (content is None and not files)):
            raise ToolError("'update' needs 'name' and 'content' and/or 'files'.")
        why = _reason(args.get("reason"))
        label = name if isinstance(name, str) else "a new Skill"
        detail = (content or "")[:4000] + (f"\n+ files: {', '.join(sorted(files))}" if files else "")
        if why:
            detail = f"Why: {why}\n\n{detail}"
        approval = ApprovalInfo(
            title=f"{action.capitalize()} the agent Skill {label}",
            detail=detail,
            summary=summary(
                "skill_update" if action == "update" else "skill_create", detail, name=name or ""
            ),
        )
        base = args.get("base_hash")
        state = (action, name, content, files, base if isinstance(base, str) and base else None)
        return PreparedCall(tool=self.name, args=args, approval=approval, state=state)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        action, name, content, files, base = call.state
        store = self._rt.services().store
        try:
            if action == "create":
                with store.staging_dir() as work:
                    package = work / "package"
                    package.mkdir()
                    write_files(package, content, files)
                    installed = store.install_folder(package, source="agent")
                skill, sha = installed.name, installed.sha256
            else:
                if base is not None and store.read(name).sha256 != base:
                    raise ToolError(f"'{name}' changed since you read it; read it again and redo the edit.")
                text = store.update_package(name, "agent", lambda folder: write_files(folder, content, files))
                skill, sha = text.name, text.sha256
        except SkillInvalid as exc:
            raise ToolError(f"The draft is not a valid Skill, nothing was saved: {exc}") from None
        except SkillError as exc:
            raise ToolError(f"Nothing was saved: {exc}") from None
        except OSError as exc:  # a class, never the message: it names host paths
            raise ToolError(
                f"Nothing was saved: the disk refused the write ({os_error_class(exc)})."
            ) from None
        verb = "Created" if action == "create" else "Updated"
        return ToolResult(
            ok=True,
            content=f"{verb} the agent Skill '{skill}' (sha256 {sha[:12]}); it is in the catalog now.",
            metadata={"skill": skill},
        )
