"""decide(): read-only and safe commands run unasked, writes ask, grants are exact, modes and policies."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import GrantKey, Tool, ToolContext
from app.tools.approvals import Allow, Ask, Decision, Deny, Mode, Policy, decide
from app.tools.exec import ExecTool
from app.tools.fs import ReadFileTool, WriteFileTool
from app.tools.safe_commands import check_arguments

from .conftest import MemoryLedger


async def decision(
    tool: Tool,
    args: dict[str, Any],
    ctx: ToolContext,
    ledger: MemoryLedger,
    *,
    mode: Mode = "ask_writes",
    policies: dict[str, Policy] | None = None,
) -> Decision:
    prepared = await tool.prepare(args, ctx)
    return decide(tool, prepared, mode=mode, policies=policies or {}, ledger=ledger)


def git(*args: str, cwd: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(workspace: Path) -> Path:
    git("init", "-q", cwd=workspace)
    (workspace / "a.txt").write_text("a\n")
    return workspace


async def test_writes_and_unknown_commands_ask_in_the_default_mode(
    ctx: ToolContext, ledger: MemoryLedger
) -> None:
    write = await decision(WriteFileTool(), {"path": "n.txt", "content": "x"}, ctx, ledger)
    assert isinstance(write, Ask) and "n.txt" in write.approval.detail
    run = await decision(ExecTool(), {"argv": ["python3", "-c", "print(1)"]}, ctx, ledger)
    assert isinstance(run, Ask) and run.approval.grant_key is not None


async def test_read_only_tools_run_without_asking(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    (workspace / "r.txt").write_text("r")
    assert await decision(ReadFileTool(), {"path": "r.txt"}, ctx, ledger) == Allow("read_only")


@pytest.mark.parametrize(
    "argv",
    [
        ["ls"],
        ["ls", "-la", "sub"],
        ["pwd"],
        ["cat", "sub/f.txt"],
        ["cat"],
        ["head", "-n", "5", "sub/f.txt"],
        ["head", "-5", "sub/f.txt"],
        ["tail", "-n5", "sub/f.txt"],
        ["wc", "-l", "sub/f.txt"],
        ["grep", "-rn", "needle", "sub"],
        ["grep", "-e", "needle", "--", "sub/f.txt"],
        ["sort", "-r", "-k", "2", "sub/f.txt"],
        ["uniq", "-c", "sub/f.txt"],
        ["stat", "-c", "%s", "sub/f.txt"],
        ["file", "sub/f.txt"],
        ["/usr/bin/ls", "sub"],
    ],
)
async def test_safe_read_only_commands_run_without_asking(
    argv: list[str], workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "f.txt").write_text("needle\n")
    assert await decision(ExecTool(), {"argv": argv}, ctx, ledger) == Allow("safe_command")


@pytest.mark.parametrize(
    "argv",
    [
        ["ls", "/etc"],
        ["ls", ".."],
        ["ls", "escape"],  # a symlink pointing outside
        ["ls", "-L", "sub"],
        ["cat", "/etc/passwd"],
        ["sort", "-o", "out.txt", "sub/f.txt"],
        ["sort", "--output=out.txt", "sub/f.txt"],
        ["sort", "--out=out.txt", "sub/f.txt"],  # GNU abbreviation of --output
        ["sort", "--compress-program=sh", "sub/f.txt"],
        ["uniq", "sub/f.txt", "out.txt"],  # second operand is an output file
        ["tail", "-f", "sub/f.txt"],
        ["grep", "-f", "/etc/passwd", "sub"],
        ["grep", "-R", "needle"],
        ["python3", "-c", "print(1)"],
        ["touch", "x"],
        ["find", ".", "-delete"],
    ],
)
async def test_unsafe_variants_of_commands_ask(
    argv: list[str], workspace: Path, outside: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "f.txt").write_text("needle\n")
    (workspace / "escape").symlink_to(outside, target_is_directory=True)
    assert isinstance(await decision(ExecTool(), {"argv": argv}, ctx, ledger), Ask)


async def test_an_ls_wrapper_script_in_the_workspace_asks_whether_named_by_path_or_found_on_path(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    bindir = workspace / "bin"
    bindir.mkdir()
    wrapper = bindir / "ls"
    wrapper.write_text('#!/bin/sh\nexec /bin/ls "$@"\n')
    wrapper.chmod(0o755)
    assert isinstance(await decision(ExecTool(), {"argv": ["./bin/ls"]}, ctx, ledger), Ask)
    assert isinstance(await decision(ExecTool(), {"argv": [str(wrapper)]}, ctx, ledger), Ask)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
    on_path = await decision(ExecTool(env=env), {"argv": ["ls"]}, ctx, ledger)
    assert isinstance(on_path, Ask) and on_path.approval.argv == (str(wrapper),)


async def test_relative_path_entries_are_ignored_when_resolving_programs(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    env = dict(os.environ, PATH=f"bin:{os.environ['PATH']}")
    prepared = await ExecTool(env=env).prepare({"argv": ["ls"]}, ctx)
    assert os.path.dirname(prepared.state.argv[0]) in ("/usr/bin", "/bin")


async def test_git_status_diff_and_log_in_a_real_repository_run_without_asking(
    repo: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    for argv in (
        ["git", "status"],
        ["git", "status", "--short"],
        ["git", "diff", "--stat"],
        ["git", "log", "-n", "3"],
    ):
        assert await decision(ExecTool(), {"argv": argv}, ctx, ledger) == Allow("safe_command"), argv


async def test_git_output_writing_and_external_diff_options_ask(
    repo: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    for argv in (
        ["git", "diff", "--output=x"],
        ["git", "diff", "--output", "x"],
        ["git", "diff", "--ext-diff"],
        ["git", "diff", "--no-index", "/etc/passwd", "a.txt"],
        ["git", "log", "--format=%G?"],
        ["git", "-C", "/", "status"],
        ["git", "push"],
        ["git", "status", ":(top)"],
    ):
        assert isinstance(await decision(ExecTool(), {"argv": argv}, ctx, ledger), Ask), argv


async def test_git_status_asks_when_repo_config_could_run_programs(
    repo: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    git("config", "core.fsmonitor", "touch pwned", cwd=repo)
    result = await decision(ExecTool(), {"argv": ["git", "status"]}, ctx, ledger)
    assert isinstance(result, Ask)


async def test_git_status_asks_for_a_textconv_driver_but_not_for_standard_git_lfs_filters(
    repo: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    git("config", "filter.lfs.clean", "git-lfs clean -- %f", cwd=repo)
    git("config", "filter.lfs.process", "git-lfs filter-process", cwd=repo)
    git("config", "core.pager", "less", cwd=repo)
    assert await decision(ExecTool(), {"argv": ["git", "diff"]}, ctx, ledger) == Allow("safe_command")
    git("config", "diff.pdf.textconv", "sh -c 'touch pwned'", cwd=repo)
    assert isinstance(await decision(ExecTool(), {"argv": ["git", "diff"]}, ctx, ledger), Ask)
    git("config", "--unset", "diff.pdf.textconv", cwd=repo)
    git("config", "filter.lfs.smudge", "./evil.sh", cwd=repo)
    assert isinstance(await decision(ExecTool(), {"argv": ["git", "log"]}, ctx, ledger), Ask)


async def test_git_status_asks_when_the_repository_lies_outside_the_workspace(
    tmp_path: Path, ledger: MemoryLedger
) -> None:
    git("init", "-q", cwd=tmp_path)
    ws = tmp_path / "project"
    ws.mkdir()
    ctx = ToolContext(workspace=Path(os.path.realpath(ws)))
    assert isinstance(await decision(ExecTool(), {"argv": ["git", "status"]}, ctx, ledger), Ask)


async def test_git_status_outside_any_repository_asks(ctx: ToolContext, ledger: MemoryLedger) -> None:
    assert isinstance(await decision(ExecTool(), {"argv": ["git", "status"]}, ctx, ledger), Ask)


async def test_git_runs_with_inherited_git_variables_scrubbed(
    repo: Path, ctx: ToolContext, tmp_path: Path
) -> None:
    env = dict(os.environ, GIT_DIR=str(tmp_path / "nowhere"), GIT_WORK_TREE="/")
    tool = ExecTool(env=env)
    prepared = await tool.prepare({"argv": ["git", "status", "--short"]}, ctx)
    assert prepared.approval is None
    result = await tool.execute(prepared, ctx)
    assert result.ok and "?? a.txt" in result.content


def test_rg_preprocessors_and_config_indirection_are_not_safe(workspace: Path, ctx: ToolContext) -> None:
    assert check_arguments("rg", ["--pre", "cat", "x"], cwd=workspace, ctx=ctx) is not None
    assert check_arguments("rg", ["-z", "x"], cwd=workspace, ctx=ctx) is not None
    assert check_arguments("rg", ["--follow", "x"], cwd=workspace, ctx=ctx) is not None
    assert check_arguments("rg", ["-n", "-g", "*.py", "needle", "."], cwd=workspace, ctx=ctx) is None


async def test_an_always_allow_grant_matches_only_the_exact_resolved_argv(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    tool = ExecTool()
    prepared = await tool.prepare({"argv": ["python3", "-c", "print(1)", "a"]}, ctx)
    assert prepared.approval is not None and prepared.approval.grant_key is not None
    key = prepared.approval.grant_key
    assert key == GrantKey(kind="exec", key=prepared.state.argv, workspace=str(workspace))
    grant = ledger.add(key)
    same = await decision(tool, {"argv": ["python3", "-c", "print(1)", "a"]}, ctx, ledger)
    assert same == Allow("granted")
    for argv in (
        ["python3", "-c", "print(1)", "a", "b"],  # extra argument
        ["python3", "a", "-c", "print(1)"],  # different order
        ["python3", "-c", "print(1)"],  # prefix only
        ["python3", "-c", "PRINT(1)", "a"],  # case differs
    ):
        assert isinstance(await decision(tool, {"argv": argv}, ctx, ledger), Ask), argv
    assert ledger.revoke(grant.id)
    assert isinstance(await decision(tool, {"argv": ["python3", "-c", "print(1)", "a"]}, ctx, ledger), Ask)


async def test_a_grant_from_another_workspace_does_not_apply(
    tmp_path: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    prepared = await ExecTool().prepare({"argv": ["python3", "-V"]}, ctx)
    assert prepared.approval is not None and prepared.approval.grant_key is not None
    ledger.add(GrantKey(kind="exec", key=prepared.approval.grant_key.key, workspace=str(tmp_path)))
    assert isinstance(await decision(ExecTool(), {"argv": ["python3", "-V"]}, ctx, ledger), Ask)


async def test_read_only_mode_denies_writes_but_allows_reads_and_safe_commands(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    (workspace / "r.txt").write_text("r")
    ro: Mode = "read_only"
    write = await decision(WriteFileTool(), {"path": "n.txt", "content": "x"}, ctx, ledger, mode=ro)
    assert isinstance(write, Deny) and "read-only mode" in write.message
    forced = await decision(
        WriteFileTool(),
        {"path": "n.txt", "content": "x"},
        ctx,
        ledger,
        mode=ro,
        policies={"write_file": "always"},
    )
    assert isinstance(forced, Deny)
    assert isinstance(await decision(ExecTool(), {"argv": ["python3", "-V"]}, ctx, ledger, mode=ro), Deny)
    assert await decision(ReadFileTool(), {"path": "r.txt"}, ctx, ledger, mode=ro) == Allow("read_only")
    assert await decision(ExecTool(), {"argv": ["ls"]}, ctx, ledger, mode=ro) == Allow("safe_command")


async def test_policy_never_denies_even_read_only_tools(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    (workspace / "r.txt").write_text("r")
    result = await decision(ReadFileTool(), {"path": "r.txt"}, ctx, ledger, policies={"read_file": "never"})
    assert isinstance(result, Deny) and "policy: never" in result.message


async def test_policy_always_and_autonomous_mode_allow_writes(ctx: ToolContext, ledger: MemoryLedger) -> None:
    args = {"path": "n.txt", "content": "x"}
    always = await decision(WriteFileTool(), args, ctx, ledger, policies={"write_file": "always"})
    assert always == Allow("policy_always")
    assert await decision(WriteFileTool(), args, ctx, ledger, mode="autonomous") == Allow("autonomous")
    assert await decision(ExecTool(), {"argv": ["python3", "-V"]}, ctx, ledger, mode="autonomous") == Allow(
        "autonomous"
    )


async def test_an_explicit_ask_policy_asks_even_for_read_only_tools(
    workspace: Path, ctx: ToolContext, ledger: MemoryLedger
) -> None:
    (workspace / "r.txt").write_text("r")
    result = await decision(ReadFileTool(), {"path": "r.txt"}, ctx, ledger, policies={"read_file": "ask"})
    assert isinstance(result, Ask) and "r.txt" in result.approval.detail
    auto = await decision(WriteFileTool(), {"path": "n", "content": ""}, ctx, ledger, mode="autonomous",
                          policies={"write_file": "ask"})  # fmt: skip
    assert isinstance(auto, Ask)


def test_an_optional_option_value_never_hides_a_path_argument(workspace: Path, ctx: ToolContext) -> None:
    assert check_arguments("git log", ["--pretty", "/etc/passwd"], cwd=workspace, ctx=ctx) is not None
    assert check_arguments("ls", ["--color", "/etc"], cwd=workspace, ctx=ctx) is not None
    assert check_arguments("ls", ["--color=never", "."], cwd=workspace, ctx=ctx) is None
    assert check_arguments("git log", ["--pretty=oneline", "-n", "3"], cwd=workspace, ctx=ctx) is None


# ---- the Sandboxed mode (issue 36) -----------------------------------------------------------


async def sandboxed(
    tool: Tool,
    args: dict[str, Any],
    ctx: ToolContext,
    ledger: MemoryLedger,
    *,
    available: bool = True,
    **kw: Any,
) -> Decision:
    prepared = await tool.prepare(args, ctx)
    return decide(
        tool,
        prepared,
        mode="sandboxed",
        policies=kw.get("policies", {}),
        ledger=ledger,
        sandbox_available=available,
    )


async def test_sandboxed_mode_runs_programs_and_workspace_writes_confined_without_asking(
    ctx: ToolContext, ledger: MemoryLedger
) -> None:
    run = await sandboxed(ExecTool(), {"argv": ["python3", "-c", "print(1)"]}, ctx, ledger)
    assert run == Allow("sandboxed", sandboxed=True)
    safe = await sandboxed(ExecTool(), {"argv": ["ls"]}, ctx, ledger)
    assert safe == Allow("sandboxed", sandboxed=True)  # even a vetted command runs confined
    write = await sandboxed(WriteFileTool(), {"path": "n.txt", "content": "x"}, ctx, ledger)
    assert write == Allow("sandboxed", sandboxed=True)


async def test_sandboxed_mode_without_a_sandbox_asks_as_ask_writes_does(
    ctx: ToolContext, ledger: MemoryLedger
) -> None:
    run = await sandboxed(ExecTool(), {"argv": ["python3", "-c", "print(1)"]}, ctx, ledger, available=False)
    assert isinstance(run, Ask) and run.approval.grant_key is not None


async def test_sandboxed_mode_keeps_grants_unconfined_and_the_users_ask_policy(
    ctx: ToolContext, ledger: MemoryLedger
) -> None:
    argv = ["python3", "-c", "print(1)"]
    asked = await decision(ExecTool(), {"argv": argv}, ctx, ledger)
    assert isinstance(asked, Ask) and asked.approval.grant_key is not None
    ledger.add(asked.approval.grant_key)
    granted = await sandboxed(ExecTool(), {"argv": argv}, ctx, ledger)
    assert granted == Allow("granted")  # "Always" was for an unsandboxed run of exactly this argv
    policy = await sandboxed(ExecTool(), {"argv": ["ls"]}, ctx, ledger, policies={"exec": "ask"})
    assert isinstance(policy, Ask)


async def test_sandboxed_mode_asks_for_writes_into_the_apps_folders(
    workspace: Path, ledger: MemoryLedger
) -> None:
    private = workspace / "appdata"
    private.mkdir()
    ctx = ToolContext(workspace=workspace, private_roots=(private,))
    write = await sandboxed(WriteFileTool(), {"path": "appdata/x.txt", "content": "x"}, ctx, ledger)
    assert isinstance(write, Ask)
