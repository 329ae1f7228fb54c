"""`run_skill_script`: run a script shipped in a Skill package (SPEC S7.3).

- argv only, never a shell: the interpreter is chosen from the file extension (`.py` → the
  `python3` on PATH, `.sh` → `bash`, `.js`/`.mjs` → `node`), anything else runs directly and
  must be executable.
- Only a Skill loaded in this chat, and only its runnable files (app/skills/runnable.py:
  `scripts/…` and files its SKILL.md names; never `references/` or `assets/`).
- The approval shows the Skill, the script path and its sha256 and the digest of the whole
  package; "Always allow" stores a `skill_script` grant for exactly that package digest, so a
  change to the script or to any helper it imports asks again. Both digests are computed in
  `prepare` and re-checked just before the run: a package changed between approval and run is
  refused. (Between that re-check and the interpreter opening the file there is a
  window of microseconds that portable APIs cannot close; see docs/skills.md.)
- The command runs in the workspace (scripts write their outputs there) with the Skill folder
  in `SKILL_DIR`, under app/tools/process.py: own process group, killed on Stop or timeout.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.contracts.tools import (
    ApprovalInfo,
    GrantKey,
    PreparedCall,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    summary,
)
from app.skills import tool_specs as specs
from app.skills.resources import ResourceError, file_sha256, resolve_package_file
from app.skills.runnable import normalise, package_digest, refusal
from app.skills.runtime import SkillRuntime
from app.skills.tools import loaded_entry, timeout_arg
from app.skills.validate import validate_package
from app.tools.confined import (
    blocked_by_sandbox,
    escalation,
    run_confined,
    runs_confined,
    sandbox_note,
    sandbox_status,
)
from app.tools.exec_env import command_env
from app.tools.process import run_process
from app.tools.process_output import render_outcome

OUTPUT_CAP = 64 * 1024
DEFAULT_TIMEOUT_S = specs.SCRIPT_DEFAULT_TIMEOUT_S
MAX_TIMEOUT_S = specs.SCRIPT_MAX_TIMEOUT_S
MAX_ARGS = 64
_INTERPRETERS = {".py": "python3", ".sh": "bash", ".js": "node", ".mjs": "node"}


@dataclass(frozen=True)
class ScriptPlan:
    skill: str
    rel: str
    skill_dir: Path
    script: Path
    sha256: str
    package_sha256: str  # every file of the package: a script imports its helpers
    argv: tuple[str, ...]
    cwd: Path
    timeout: int


class RunSkillScriptTool(Tool):
    name = specs.RUN_SKILL_SCRIPT.name
    description = specs.RUN_SKILL_SCRIPT.description
    parameters = specs.RUN_SKILL_SCRIPT.parameters

    def __init__(self, runtime: SkillRuntime) -> None:
        self._rt = runtime

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        name, rel = args.get("name"), args.get("path")
        if not isinstance(name, str) or not isinstance(rel, str):
            raise ToolError("Arguments 'name' and 'path' are required strings.")
        extra = args.get("args", [])
        if extra is None:
            extra = []
        if not isinstance(extra, list) or not all(isinstance(a, str) and "\x00" not in a for a in extra):
            raise ToolError("Argument 'args' must be a list of strings.")
        if len(extra) > MAX_ARGS:
            raise ToolError(f"At most {MAX_ARGS} arguments.")
        timeout = timeout_arg(args, DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
        entry = loaded_entry(self._rt, name, ctx)
        checked = validate_package(entry.path)
        if checked.kind == "invalid":
            raise ToolError(f"The Skill '{name}' is no longer valid; load it again.")
        try:
            script = resolve_package_file(entry.path, rel)
            why = refusal(rel, checked.document.body)
            if why is not None:
                raise ToolError(f"Refused to run {name}/{normalise(rel)}: {why}")
            digest = file_sha256(script)
            package = package_digest(entry.path)
        except (ResourceError, OSError) as exc:
            raise ToolError(str(exc)) from None
        argv = (*self._launcher(script), *extra)
        cwd = Path(os.path.realpath(ctx.workspace))  # noqa: ASYNC240  a few lstat calls
        plan = ScriptPlan(name, rel, entry.path, script, digest, package, argv, cwd, timeout)
        approval = ApprovalInfo(
            title="Run a Skill script",
            detail=(
                f"{name}/{rel} (sha256 {digest})\n{shlex.join(argv)}\n(in {plan.cwd})\n"
                f"Skill package sha256 {package}: a change to any file of the Skill asks again."
            ),
            argv=argv,
            grant_key=GrantKey(kind="skill_script", key=(name, rel, package)),
            summary=summary(
                "skill_script",
                f"{name}/{rel} (sha256 {digest})\n{shlex.join(argv)}",
                skill=name,
                script=rel,
                cwd=plan.cwd,
                package=package,
            ),
        )
        return PreparedCall(tool=self.name, args=args, approval=approval, state=plan, confinable=True)

    def _launcher(self, script: Path) -> tuple[str, ...]:
        interpreter = _INTERPRETERS.get(script.suffix.lower())
        if interpreter is None:
            if not os.access(script, os.X_OK):
                raise ToolError(f"'{script.name}' is not executable and has no known interpreter.")
            return (str(script),)
        path = self._rt.config.env.get("PATH", os.environ.get("PATH", ""))
        found = shutil.which(interpreter, path=path)
        if found is None:
            raise ToolError(f"'{interpreter}' (needed for {script.name}) was not found on PATH.")
        return (os.path.abspath(found), str(script))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        plan: ScriptPlan = call.state
        try:
            again = resolve_package_file(plan.skill_dir, plan.rel)
            now, package = file_sha256(again), package_digest(plan.skill_dir)
        except (ResourceError, OSError):
            now, package = "", ""
        if now != plan.sha256:
            raise ToolError(
                f"The script {plan.skill}/{plan.rel} changed after it was approved; it was not run."
            )
        if package != plan.package_sha256:
            raise ToolError(
                f"A file of the Skill {plan.skill} changed after the script was approved; it was not run."
            )
        env = command_env(self._rt.config.env or os.environ, is_git=False)
        env["SKILL_DIR"] = str(plan.skill_dir)
        # Python would write __pycache__ into the package and so change the pinned digest.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        confined = runs_confined(call, ctx)
        try:
            if confined:  # the Skill's own folder readable besides the workspace policy
                outcome = await run_confined(
                    plan.argv,
                    cwd=plan.cwd,
                    env=env,
                    timeout=plan.timeout,
                    cap=OUTPUT_CAP,
                    ctx=ctx,
                    readable=(plan.skill_dir,),
                )
            else:
                outcome = await run_process(
                    plan.argv, cwd=plan.cwd, env=env, timeout=plan.timeout, cap=OUTPUT_CAP
                )
        except (FileNotFoundError, PermissionError) as exc:
            raise ToolError(f"Could not start the script: {exc.strerror or exc}.") from None
        head = (
            f"Timed out after {plan.timeout} s; the script and its children were killed."
            if outcome.timed_out
            else f"Exit code: {outcome.returncode}"
        )
        status = sandbox_status(call, ctx)
        blocked = blocked_by_sandbox(outcome, status) if confined else None
        note = sandbox_note(status, blocked)
        shown = f"{head}\n{note}" if note else head
        content, truncated = render_outcome(outcome, head=shown, budget=ctx.output_budget)
        grant = call.approval.grant_key if call.approval else None
        return ToolResult(
            ok=outcome.returncode == 0 and not outcome.timed_out,
            content=content,
            truncated=truncated,
            metadata={"exit_code": outcome.returncode, "timed_out": outcome.timed_out, "pid": outcome.pid},
            escalation=escalation(plan.argv, plan.cwd, blocked, grant) if blocked else None,
            sandbox=status,
        )
