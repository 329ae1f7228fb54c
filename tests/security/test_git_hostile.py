"""A downloaded repository must not make auto-approved `git status|diff|log` run its programs.

Every planted program touches a marker file; each case either asks (the config probe saw the
setting) or runs the hardened call, and the marker must never appear.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from app.contracts.tools import ToolContext
from app.tools.exec import ExecTool

GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, timeout=30)


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "PWNED"


@pytest.fixture
def evil(tmp_path: Path, marker: Path) -> Path:
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    return script


@pytest.fixture
def repo(workspace: Path) -> Path:
    git("init", "-q", cwd=workspace)
    (workspace / "a.txt").write_text("a\n")
    (workspace / "b.bin").write_text("b\n")
    git("add", ".", cwd=workspace)
    git("commit", "-qm", "init", cwd=workspace)
    return workspace


@pytest.fixture
def submodule(repo: Path, tmp_path: Path) -> Path:
    """A submodule `sub` whose own config lives in .git/modules/sub/config."""
    source = tmp_path / "subsrc"
    source.mkdir()
    git("init", "-q", cwd=source)
    (source / "f.txt").write_text("f\n")
    git("add", ".", cwd=source)
    git("commit", "-qm", "sub", cwd=source)
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), "sub", cwd=repo)
    git("commit", "-qm", "add sub", cwd=repo)
    return repo / "sub"


async def run_git(argv: list[str], ctx: ToolContext, *, cwd: str = ".") -> bool:
    """Prepare the call; run it when it needs no approval. Returns whether it ran unasked."""
    tool = ExecTool()
    prepared = await tool.prepare({"argv": argv, "cwd": cwd}, ctx)
    if prepared.approval is not None:
        return False
    await tool.execute(prepared, ctx)
    return True


CALLS = (["git", "status"], ["git", "status", "--short"], ["git", "diff"], ["git", "log", "-p", "-n", "2"])


async def test_a_submodule_fsmonitor_hook_never_runs(
    repo: Path, submodule: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    git("config", "-f", str(repo / ".git/modules/sub/config"), "core.fsmonitor", str(evil), cwd=repo)
    (submodule / "f.txt").write_text("changed\n")
    ran = [await run_git(argv, ctx) for argv in CALLS]
    assert all(ran)  # the superproject looks clean, so these are auto-approved…
    assert not marker.exists()  # …and hardened: the submodule is never entered


async def test_submodule_diff_drivers_and_filters_never_run(
    repo: Path, submodule: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    config = str(repo / ".git/modules/sub/config")
    for key in ("diff.external", "diff.x.textconv", "filter.x.clean", "filter.x.smudge", "core.pager"):
        git("config", "-f", config, key, str(evil), cwd=repo)
    (submodule / ".gitattributes").write_text("* diff=x filter=x\n")
    (submodule / "f.txt").write_text("changed\n")
    for argv in CALLS:
        await run_git(argv, ctx)
    assert not marker.exists()


async def test_worktree_config_fsmonitor_never_runs(
    repo: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    git("worktree", "add", "-q", str(repo / "wt"), cwd=repo)
    git("config", "extensions.worktreeConfig", "true", cwd=repo)
    git("config", "--worktree", "core.fsmonitor", str(evil), cwd=repo / "wt")
    (repo / "wt" / "a.txt").write_text("changed\n")
    for argv in CALLS:
        await run_git(argv, ctx, cwd="wt")
    assert not marker.exists()


@pytest.mark.parametrize("how", ["include", "includeIf"])
async def test_included_config_files_are_seen(
    how: str, repo: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    extra = repo / "extra.cfg"
    git("config", "-f", str(extra), "core.fsmonitor", str(evil), cwd=repo)
    git("config", "-f", str(extra), "filter.x.clean", str(evil), cwd=repo)
    (repo / ".gitattributes").write_text("* filter=x\n")
    section = "include.path" if how == "include" else f"includeIf.gitdir:{repo}/.git.path"
    git("config", section, str(extra), cwd=repo)
    (repo / "a.txt").write_text("changed\n")
    ran = [await run_git(argv, ctx) for argv in CALLS]
    assert not any(ran)  # the probe resolves includes and asks
    assert not marker.exists()


@pytest.mark.parametrize(
    ("key", "attributes"),
    [
        ("diff.external", ""),
        ("diff.x.textconv", "* diff=x\n"),
        ("diff.x.command", "* diff=x\n"),
        ("filter.x.clean", "* filter=x\n"),
        ("filter.x.process", "* filter=x\n"),
    ],
)
async def test_repository_programs_ask_or_stay_off(
    key: str, attributes: str, repo: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    git("config", key, str(evil), cwd=repo)
    if attributes:
        (repo / ".gitattributes").write_text(attributes)
    (repo / "a.txt").write_text("changed\n")
    for argv in CALLS:
        assert not await run_git(argv, ctx), argv
    assert not marker.exists()


async def test_hooks_and_pager_from_the_repository_never_run(
    repo: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    hooks = repo / "hooks"
    hooks.mkdir()
    for name in ("post-index-change", "reference-transaction", "post-checkout"):
        target = hooks / name
        target.write_text(evil.read_text())
        target.chmod(0o755)
    git("config", "core.hooksPath", str(hooks), cwd=repo)
    git("config", "core.pager", str(evil), cwd=repo)
    (repo / "a.txt").write_text("changed\n")
    for argv in CALLS:
        assert await run_git(argv, ctx), argv
    assert not marker.exists()


async def run_approved(argv: list[str], ctx: ToolContext, *, cwd: str = ".") -> str:
    """The call as the user approved it at a prompt (prepare, then execute regardless)."""
    tool = ExecTool()
    prepared = await tool.prepare({"argv": argv, "cwd": cwd}, ctx)
    result = await tool.execute(prepared, ctx)
    return result.content


@pytest.mark.parametrize(
    "argv",
    [
        ["git", "log", "-p", "-n", "2"],
        ["git", "-C", ".", "diff"],
        ["git", "show", "HEAD"],
        ["git", "status"],
        ["git", "commit", "-q", "--allow-empty", "-m", "approved"],
    ],
)
async def test_an_approved_git_call_runs_hardened_too(
    argv: list[str], repo: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    """Settings the probe refuses make git ask; the approved call must still not run them."""
    (repo / "a.txt").write_text("changed\n")
    git("add", "a.txt", cwd=repo)  # before the hostile settings: the test's own git must not run them
    hooks = repo / ".git" / "hooks"
    for name in ("pre-commit", "commit-msg", "post-commit", "post-index-change", "reference-transaction"):
        (hooks / name).write_text(evil.read_text())
        (hooks / name).chmod(0o755)
    for key in ("core.fsmonitor", "diff.external", "diff.x.textconv", "core.pager"):
        git("config", key, str(evil), cwd=repo)
    (repo / ".gitattributes").write_text("* diff=x\n")
    await run_approved(argv, ctx)
    assert not marker.exists()


def test_hardening_keeps_the_users_own_switches_once() -> None:
    from app.tools.git_guard import hardened_approved_git_argv, hardened_git_argv

    approved = hardened_approved_git_argv(("/usr/bin/git", "-C", "sub", "diff", "--no-ext-diff", "x"))
    assert approved.count("--no-ext-diff") == 1 and approved.count("--no-textconv") == 1
    assert approved.index("-C") > approved.index("--no-pager")  # global settings before -C
    assert approved[approved.index("diff") + 1 :].count("--no-textconv") == 1
    bare = hardened_approved_git_argv(("/usr/bin/git",))
    assert bare[1] == "--no-pager" and "core.fsmonitor=false" in bare
    auto = hardened_git_argv(("/usr/bin/git", "diff", "--no-ext-diff"))
    assert auto.count("--no-ext-diff") == 1


async def test_a_path_after_double_dash_is_not_read_as_the_switch(
    repo: Path, evil: Path, marker: Path, ctx: ToolContext
) -> None:
    """Issue 33.14: a tracked file named `--no-ext-diff`; `git diff -- --no-ext-diff` names that
    file, so the hardening must still switch the repository's diff driver off."""
    (repo / "--no-ext-diff").write_text("one\n")
    (repo / ".gitattributes").write_text("* diff=x\n")
    git("add", "--", "--no-ext-diff", ".gitattributes", cwd=repo)
    git("commit", "-qm", "a file named like a switch", cwd=repo)
    git("config", "diff.x.command", str(evil), cwd=repo)  # after the test's own git calls
    (repo / "--no-ext-diff").write_text("two\n")
    for argv in (
        ["git", "diff", "--", "--no-ext-diff"],
        ["git", "log", "-p", "-n", "1", "--", "--no-ext-diff"],
        ["git", "diff", "--end-of-options", "HEAD", "--", "--no-ext-diff"],
    ):
        output = await run_approved(argv, ctx)
        assert "+two" in output or "+one" in output, (argv, output)  # git's own diff ran
    assert not marker.exists()


def test_a_switch_that_may_be_an_options_value_does_not_count() -> None:
    from app.tools.git_guard import hardened_approved_git_argv

    grep = hardened_approved_git_argv(("/usr/bin/git", "log", "--grep", "--no-ext-diff", "-p"))
    assert grep[grep.index("log") + 1 : grep.index("--grep")] == ("--no-ext-diff", "--no-textconv")
