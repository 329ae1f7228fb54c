"""The `exec` tool: run an argv list (never a shell string) inside the workspace.

The program is resolved once, in `prepare`: the approval card shows, an "Always allow" grant
stores, and `execute` launches exactly that absolute argv — PATH is never consulted again.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.contracts.tool_args import opt_int, opt_str, req_str_list
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
from app.tools.confined import (
    PROGRAM,
    blocked_by_sandbox,
    escalation,
    run_confined,
    runs_confined,
    sandbox_note,
    sandbox_status,
)
from app.tools.exec_env import command_env, is_git_executable
from app.tools.git_guard import (
    git_identity,
    git_problem,
    hardened_approved_git_argv,
    hardened_git_argv,
    is_hardened,
)
from app.tools.process import run_process
from app.tools.process_output import render_outcome
from app.tools.safe_commands import Verdict, classify
from app.tools.specs import DEFAULT_TIMEOUT_S, EXEC, MAX_TIMEOUT_S
from app.tools.workspace import display_path, resolve_in_workspace

OUTPUT_CAP = 64 * 1024  # per stream


@dataclass(frozen=True)
class ExecPlan:
    argv: tuple[str, ...]  # argv[0] is the absolute resolved program
    cwd: Path
    timeout: int
    verdict: Verdict


class ExecTool(Tool):
    name = EXEC.name
    description = EXEC.description
    parameters = EXEC.parameters

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        # None: read os.environ at call time (settings may change PATH while the app runs).
        self._env = env

    def _base_env(self) -> Mapping[str, str]:
        return self._env if self._env is not None else os.environ

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        requested = req_str_list(args, "argv")
        if any("\x00" in a for a in requested) or not requested[0]:
            raise ToolError("argv entries must be non-empty strings without NUL bytes.")
        cwd = resolve_in_workspace(opt_str(args, "cwd") or ".", ctx, for_write=True)
        if not cwd.is_dir():
            raise ToolError(f"Working folder '{display_path(cwd, ctx)}' is not a folder.")
        timeout = opt_int(args, "timeout", default=DEFAULT_TIMEOUT_S, lo=1, hi=MAX_TIMEOUT_S)
        program = resolve_program(requested[0], cwd=cwd, path_env=self._base_env().get("PATH", ""))
        argv = (program, *requested[1:])
        verdict = classify(requested, argv, cwd=cwd, ctx=ctx)
        if verdict.safe and verdict.is_git:
            env = command_env(self._base_env(), is_git=True, extra=ctx.env_allow)
            problem = await git_problem(program, cwd=cwd, ctx=ctx, env=env)
            if problem:
                verdict = Verdict(False, problem, is_git=True)
            else:
                argv = hardened_git_argv(argv)
        plan = ExecPlan(argv, cwd, timeout or DEFAULT_TIMEOUT_S, verdict)
        approval = None if verdict.safe else _approval(plan, ctx)
        return PreparedCall(tool=self.name, args=args, approval=approval, state=plan, confinable=True)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        plan: ExecPlan = call.state
        is_git = is_git_executable(plan.argv[0])
        env = command_env(self._base_env(), is_git=is_git, extra=ctx.env_allow)
        # An approved git call runs hardened too; the approval and grant keep the argv as shown.
        argv = hardened_approved_git_argv(plan.argv) if is_git and not is_hardened(plan.argv) else plan.argv
        confined = runs_confined(call, ctx)
        try:
            if confined:
                if is_git:  # its own empty $HOME: who commits comes across, nothing else
                    env.update(await git_identity(plan.argv[0], cwd=plan.cwd, env=env))
                outcome = await run_confined(
                    argv, cwd=plan.cwd, env=env, timeout=plan.timeout, cap=OUTPUT_CAP, ctx=ctx
                )
            else:
                outcome = await run_process(argv, cwd=plan.cwd, env=env, timeout=plan.timeout, cap=OUTPUT_CAP)
        except PermissionError as exc:
            if not confined:
                raise ToolError(f"Could not start {plan.argv[0]}: {exc.strerror or exc}.") from exc
            return _not_started_in_sandbox(call, plan, ctx)
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise ToolError(f"Could not start {plan.argv[0]}: {exc.strerror or exc}.") from exc
        head = (
            f"Timed out after {plan.timeout} s; the process and its children were killed."
            if outcome.timed_out
            else f"Exit code: {outcome.returncode}"
        )
        status = sandbox_status(call, ctx)
        blocked = blocked_by_sandbox(outcome, status) if confined else None
        note = sandbox_note(status, blocked)
        shown = f"{head}\n{note}" if note else head
        content, truncated = render_outcome(outcome, head=shown, budget=ctx.output_budget)
        grant = call.approval.grant_key if call.approval else _approval(plan, ctx).grant_key
        return ToolResult(
            ok=outcome.returncode == 0 and not outcome.timed_out,
            content=content,
            truncated=truncated,
            metadata={
                "exit_code": outcome.returncode,
                "timed_out": outcome.timed_out,
                "pid": outcome.pid,
            },
            escalation=escalation(plan.argv, plan.cwd, blocked, grant) if blocked else None,
            sandbox=status,
        )


def _not_started_in_sandbox(call: PreparedCall, plan: ExecPlan, ctx: ToolContext) -> ToolResult:
    """The program lies outside what the sandbox reads (a toolchain in the home folder): say
    so, and offer the user to run it once without the sandbox."""
    blocked = PROGRAM
    content = (
        f"Could not start {plan.argv[0]} inside the sandbox: permission denied. Its folder is not "
        "readable in the sandbox (the user can add it to the sandbox's readable folders in Settings)."
    )
    grant = call.approval.grant_key if call.approval else _approval(plan, ctx).grant_key
    asked = escalation(plan.argv, plan.cwd, blocked, grant)
    return ToolResult(ok=False, content=content, escalation=asked, sandbox=sandbox_status(call, ctx))


def resolve_program(name: str, *, cwd: Path, path_env: str) -> str:
    """Absolute path of the program to run. Relative PATH entries are ignored (they would depend
    on our own cwd); a name containing '/' is taken relative to the command's cwd."""
    if "/" in name or (os.sep != "/" and os.sep in name):
        candidate = os.path.abspath(name if os.path.isabs(name) else os.path.join(cwd, name))
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            raise ToolError(f"Program '{name}' does not exist or is not executable.")
        return candidate
    search = os.pathsep.join(p for p in path_env.split(os.pathsep) if p and os.path.isabs(p))
    found = shutil.which(name, path=search)
    if found is None:
        raise ToolError(f"Program '{name}' was not found on PATH.")
    return os.path.abspath(found)


def _approval(plan: ExecPlan, ctx: ToolContext) -> ApprovalInfo:
    workspace = str(Path(os.path.realpath(ctx.workspace)))
    return ApprovalInfo(
        title="Run a command",
        detail=f"{shlex.join(plan.argv)}\n(in {plan.cwd})",
        argv=plan.argv,
        summary=summary("run_command", shlex.join(plan.argv), cwd=plan.cwd),
        grant_key=GrantKey(kind="exec", key=plan.argv, workspace=workspace),
    )
