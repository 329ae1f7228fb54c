"""Extra checks before `git status|diff|log` may run unasked.

Git reads repository config, and some config makes read-only commands run programs
(core.fsmonitor, diff.external, textconv drivers, clean/smudge filters, signature checks via
gpg). Such config can sit in a workspace the user merely downloaded. So an auto-approved git call
requires: git's own view of git-dir, common-dir and worktree all lies inside the workspace, and
no program-running config key is set (includes resolved). Anything unverifiable asks instead.
Both probes run with the same scrubbed environment as the real command.

The config probe only sees the superproject (and its includes, worktree config); a submodule's
own config (`.git/modules/<sub>/config`) is not visible to it. So the auto-approved call itself is
also hardened (`hardened_git_argv`): fsmonitor off, submodules never entered, hooks pointed at an
empty path, no pager, no external diff, no textconv. Together: git cannot start a program the
repository names. A git call the user approves at a prompt runs with the same settings
(`hardened_approved_git_argv`): the approval is for the command shown, not for programs the
repository's config would add to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from app.contracts.tools import ToolContext
from app.tools.process import run_process
from app.tools.workspace import is_within

PROBE_TIMEOUT_S = 5.0
# core.pager is absent on purpose: output goes to a pipe, so git never starts a pager; and
# gpg.program only matters when signatures are shown (log.showSignature, %G… formats).
_DANGEROUS_CONFIG = (
    r"^(core\.fsmonitor|diff\.external|diff\..+\.(textconv|command)"
    r"|filter\..+\.(clean|smudge|process)|log\.showsignature)$"
)
# What `git lfs install` writes into ~/.gitconfig; common enough that refusing it would make
# git status ask for most users, and it names a well-known program rather than a repo script.
_STANDARD_LFS = frozenset(
    {
        ("filter.lfs.clean", "git-lfs clean -- %f"),
        ("filter.lfs.smudge", "git-lfs smudge -- %f"),
        ("filter.lfs.process", "git-lfs filter-process"),
    }
)


# Built-in fsmonitor settings name no program (and the call below forces it off anyway).
_HARMLESS_VALUES = {"core.fsmonitor": frozenset({"true", "false", "0", "1", "yes", "no", "on", "off"})}

# `-c` settings for every auto-approved git call. They reach child git processes too
# (GIT_CONFIG_PARAMETERS), so a submodule git would see them as well.
HARDENING_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "submodule.recurse=false",
    "status.submoduleSummary=false",
    "diff.submodule=short",
    "core.pager=cat",
    "diff.external=",
    "log.showSignature=false",
    "protocol.allow=never",
)


def _global_options() -> list[str]:
    options = ["--no-pager"]
    for setting in HARDENING_CONFIG:
        options += ["-c", setting]
    return options


def _not_given(flags: tuple[str, ...], args: list[str]) -> list[str]:
    """The flags the caller did not pass already (a duplicated flag reads as a mistake)."""
    return [f for f in flags if not _given(f, args)]


def _given(flag: str, args: list[str]) -> bool:
    """`flag` is among `args` (what follows the sub-command) as a switch: before `--` or
    `--end-of-options` (after them every word is a path or revision: `git diff --
    --no-ext-diff` names a file, issue 33.14), and not where it may be the value of the option
    before it (`git log --grep --no-ext-diff`). When in doubt it counts as not given: our
    flag is added, and a duplicate switch is harmless."""
    for i, arg in enumerate(args):
        if arg in ("--", "--end-of-options"):
            return False
        if arg == flag:
            before = args[i - 1] if i else ""
            if not before.startswith("-") or "=" in before:
                return True
    return False


def hardened_git_argv(argv: tuple[str, ...]) -> tuple[str, ...]:
    """(git, sub, *args) -> the same call with repository-supplied programs switched off."""
    program, sub, *args = argv
    after = _not_given(("--ignore-submodules=all",), args)
    if sub in ("diff", "log"):
        after += _not_given(("--no-ext-diff", "--no-textconv"), args)
    return (program, *_global_options(), sub, *after, *args)


# Global options of git that take a separate value (`git -C dir log`): the sub-command follows.
_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
# Sub-commands that accept the diff machinery's switches (textconv and external diff drivers).
_DIFF_LIKE = frozenset({"diff", "log", "show", "whatchanged"})


def _sub_command(args: tuple[str, ...]) -> int | None:
    """Index of git's sub-command in `args` (after the program), or None (bare `git`, `--version`)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _OPTIONS_WITH_VALUE:
            i += 2
        elif arg.startswith("-"):
            i += 1
        else:
            return i
    return None


def hardened_approved_git_argv(argv: tuple[str, ...]) -> tuple[str, ...]:
    """Any git call the user approved, with the same safety settings as an unasked one.

    Approving `git log` approves that command, not whatever program the repository's config
    names (a downloaded repository's fsmonitor, hooks or diff driver). The global `-c` settings
    go right after the program, so `git -C other …` and bare `git` get them too; the diff
    switches only go to sub-commands that take them, and never twice.
    """
    program, *rest = argv
    args = tuple(rest)
    hardened: list[str] = [program, *_global_options()]
    sub = _sub_command(args)
    if sub is None:
        return (*hardened, *args)
    head, name, tail = list(args[:sub]), args[sub], list(args[sub + 1 :])
    extra = _not_given(("--no-ext-diff", "--no-textconv"), tail) if name in _DIFF_LIKE else []
    return (*hardened, *head, name, *extra, *tail)


def is_hardened(argv: tuple[str, ...]) -> bool:
    return len(argv) > 1 and argv[1] == "--no-pager" and HARDENING_CONFIG[0] in argv


async def git_problem(git: str, *, cwd: Path, ctx: ToolContext, env: Mapping[str, str]) -> str | None:
    """Return why this repository is not safe for an unasked git call, or None if it is."""
    workspace = Path(os.path.realpath(ctx.workspace))  # noqa: ASYNC240  a few lstat calls
    where = await run_process(
        [git, "-c", "core.fsmonitor=false", "rev-parse", "--path-format=absolute"]
        + ["--git-dir", "--git-common-dir", "--show-toplevel"],
        cwd=cwd,
        env=env,
        timeout=PROBE_TIMEOUT_S,
        cap=16384,
    )
    lines = where.stdout.data.decode("utf-8", "replace").splitlines()
    if where.returncode != 0 or len(lines) != 3:
        return "git could not confirm a repository inside the workspace"
    for line in lines:
        if not is_within(Path(os.path.realpath(line)), workspace):  # noqa: ASYNC240  a few lstat calls
            return f"git metadata `{line}` is outside the workspace"
    config = await run_process(
        [git, "config", "--get-regexp", _DANGEROUS_CONFIG],
        cwd=cwd,
        env=env,
        timeout=PROBE_TIMEOUT_S,
        cap=16384,
    )
    if config.returncode not in (0, 1) or config.stdout.truncated:  # 1 = no such keys
        return "git config could not be checked"
    for line in config.stdout.data.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lower() in _HARMLESS_VALUES.get(key, frozenset()):
            continue
        if (key, value) not in _STANDARD_LFS:
            return f"git config `{key}` can make git run other programs"
    return None


_IDENTITY = {
    "user.name": ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"),
    "user.email": ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"),
}


async def git_identity(git: str, *, cwd: Path, env: Mapping[str, str]) -> dict[str, str]:
    """The user's name and e-mail from git's global config, as the variables git reads.

    A sandboxed git gets its own empty $HOME (the real one is not readable there), so `commit`
    would not know who is committing. Only these two values cross, not the file (which may hold
    credentials in URLs or helpers)."""
    found = await run_process(
        [git, "config", "--global", "--get-regexp", r"^user\.(name|email)$"],
        cwd=cwd,
        env=env,
        timeout=PROBE_TIMEOUT_S,
        cap=4096,
    )
    identity: dict[str, str] = {}
    for line in found.stdout.data.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        for name in _IDENTITY.get(key.lower(), ()):
            identity[name] = value
    return identity
