"""The one entry point that starts a program confined (exec, approved git, Skill scripts).

`run_confined` builds the workspace policy from the tool context (the workspace, the hidden
and extra readable paths of `ctx.sandbox`, the PATH folders, what the caller adds such as a
Skill's own folder), runs the program under it with a private temp folder, and removes that
folder afterwards. `sandbox_note` is the line tool results show; `blocked_by_sandbox` guesses
from the output whether the sandbox stopped the program, so the user can be asked to let it
run once without (the same heuristic as the Codex CLI's: the kernel does not tell us).
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.contracts.events import ApprovalSummaryCode
from app.contracts.tools import ApprovalInfo, GrantKey, PreparedCall, ToolContext, ToolError, summary
from app.tools.process import ProcessOutcome, run_process

SANDBOXED = "sandboxed (no network; writes only in the workspace and a private temp folder)"
# The status (cards, CLI) when the program also had a private network and /tmp.
PRIVATE = "sandboxed, private network and /tmp"
SANDBOXED_PRIVATE = (
    f"{PRIVATE} (no network at all, UDP included; writes only in the workspace and in /tmp, "
    "which is private to this run)"
)
# What a blocked run seems to have needed, as the question names it (and its summary code).
NETWORK = "network access"
FILES = "file access outside the workspace"
PROGRAM = "reading the program (it is outside the folders the sandbox reads)"
_SUMMARY: dict[str, ApprovalSummaryCode] = {
    NETWORK: "run_unsandboxed_network",
    FILES: "run_unsandboxed_files",
    PROGRAM: "run_unsandboxed_program",
}
_DENIAL = re.compile(
    r"permission denied|operation not permitted|read-only file system|EACCES|EPERM|\[Errno 13\]|\[Errno 1\]",
    re.IGNORECASE,
)
# Words of a failed connection (not "port" inside "report", "import" or "support").
_NETWORK = re.compile(
    r"connect|socket|\bnetwork|urlopen|https?://|\bresolv|\bhost\b|\bport\b|\bdns\b", re.IGNORECASE
)
# In a private network namespace a program fails before any permission check: no name server,
# no route. Only taken as "blocked" for such a run.
_NO_NETWORK = re.compile(
    r"network is unreachable|ENETUNREACH|\[Errno 101\]|temporary failure in name resolution|"
    r"could not resolve host|name or service not known|getaddrinfo|\[Errno -3\]|EAI_AGAIN",
    re.IGNORECASE,
)


async def run_confined(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,  # noqa: ASYNC109  same contract as run_process
    cap: int,
    ctx: ToolContext,
    readable: Sequence[Path] = (),
) -> ProcessOutcome:
    """Run `argv` under the workspace policy, `readable` (a Skill's own folder) readable too.
    Raises ToolError when the sandbox cannot start (the program is then not started at all:
    never silently unconfined)."""
    # Imported here: ctypes costs start-up time every other mode does not need to pay.
    from app.sandbox.confine import SandboxError, confine, private_temp
    from app.sandbox.landlock import Landlock
    from app.sandbox.policy import Policy, path_folders, union

    spec = ctx.sandbox
    if spec is None or not spec.available:
        raise ToolError(f"The sandbox is not available: {spec.reason if spec else 'not in Sandboxed mode'}.")
    lock = Landlock.load()
    abi = lock.abi() if lock is not None else 0
    if lock is None or abi < 1:
        raise ToolError("The sandbox is not available: the kernel has no Landlock.")
    temp = private_temp()
    policy = Policy(
        workspace=ctx.workspace,
        temp=temp,
        readable=path_folders(env.get("PATH", "")),
        exceptions=union(spec.readable, readable),
        hidden=spec.hidden,
    )
    try:
        confinement = confine(policy, lock, abi, private=spec.namespaces)
    except SandboxError as exc:
        policy.temp.rmdir()
        raise ToolError(f"The sandbox could not start: {exc}.") from exc
    try:
        return await run_process(
            argv,
            cwd=cwd,
            env={**env, **confinement.env},
            timeout=timeout,
            cap=cap,
            popen=confinement.popen,
        )
    except SandboxError as exc:  # the starting thread could not confine itself: nothing ran
        raise ToolError(f"The sandbox could not start: {exc}.") from exc
    finally:
        # Removing the temp folder costs a journal write (ms under load): not on the result's path.
        asyncio.get_running_loop().run_in_executor(None, confinement.close)


def runs_confined(call: PreparedCall, ctx: ToolContext) -> bool:
    return call.sandboxed and ctx.sandbox is not None


def sandbox_status(call: PreparedCall, ctx: ToolContext) -> str:
    """ "sandboxed" or "not sandboxed: <why>" in the Sandboxed mode; "" in the other modes."""
    spec = ctx.sandbox
    if spec is None:
        return ""
    if runs_confined(call, ctx):
        return PRIVATE if spec.namespaces else "sandboxed"
    why = spec.reason if not spec.available else "the user allowed it to run without the sandbox"
    return f"not sandboxed: {why}"


def sandbox_note(status: str, blocked: str | None) -> str:
    """The line a result shows the model ("" outside the Sandboxed mode)."""
    if not status:
        return ""
    if not status.startswith("sandboxed"):
        return f"Sandbox: {status}."
    note = f"Sandbox: {SANDBOXED_PRIVATE if status == PRIVATE else SANDBOXED}."
    if blocked:
        note += f" It may have blocked {blocked}; the user was asked whether it may run without the sandbox."
    return note


def blocked_by_sandbox(outcome: ProcessOutcome, status: str = "sandboxed") -> str | None:
    """What the sandbox seems to have blocked ("network", "file access outside the workspace"),
    or None. Only for a failed run whose output names a permission error (or, in a private
    network namespace, no route or no name server: `status` is the run's sandbox status)."""
    if outcome.returncode == 0 or outcome.timed_out:
        return None
    text = (outcome.stderr.data + outcome.stderr.tail + outcome.stdout.tail).decode("utf-8", "replace")
    if status == PRIVATE and _NO_NETWORK.search(text):
        return NETWORK
    if not _DENIAL.search(text):
        return None
    return NETWORK if _NETWORK.search(text) else FILES


def escalation(argv: Sequence[str], cwd: Path, blocked: str, grant: GrantKey | None) -> ApprovalInfo:
    """The question asked after a confined run was blocked: run once more without the sandbox."""
    shown = shlex.join(argv)
    return ApprovalInfo(
        title=f"Run without the sandbox ({blocked})",
        detail=f"The sandbox blocked {blocked} for:\n{shown}\n(in {cwd})\nRun it once more, not sandboxed?",
        argv=tuple(argv),
        grant_key=grant,
        summary=summary(_SUMMARY.get(blocked, "run_unsandboxed_files"), shown, cwd=cwd),
    )
