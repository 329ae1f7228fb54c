"""The built-in list of read-only commands that may run without asking (SPEC S4.3).

A call is "safe" only if all of these hold (anything else asks the user):
- argv[0] is exactly a listed name (bare, or an absolute path with that basename);
- it resolved to a file whose real path lies directly in a trusted system directory and that is
  a native executable (ELF / Mach-O / PE), so a wrapper script in the workspace or an odd PATH
  entry never counts;
- every option is on that command's allow-list (exact spelling; GNU/git abbreviations such as
  `--out` for `--output` are therefore refused), option values match their pattern, and options
  that write files, run programs or read other files (`sort -o`, `rg --pre`, `git diff --output`,
  `--ext-diff`, `grep -f`, …) are simply not listed;
- every path argument resolves inside the workspace.
Git calls also get a scrubbed environment and a repository check (see git_guard.py).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.contracts.tools import ToolContext, ToolError
from app.tools.hard_links import TooManyToCheck, any_hard_link, link_into, private_inodes
from app.tools.safe_rules import GIT_SUBCOMMANDS, OPTIONAL_VALUE, RULES, Rule
from app.tools.workspace import (
    active_private_roots,
    hard_link_count,
    private_root_of,
    private_roots_below,
    resolve_in_workspace,
)

# Commands that descend into folders: with this flag (or always, for rg) a path that contains
# one of the app's private folders would read it.
_RECURSIVE_FLAG: dict[str, str | None] = {"rg": None, "grep": "rR", "ls": "R"}
_RECURSIVE_LONG = frozenset({"--recursive", "--dereference-recursive"})

TRUSTED_DIRS: tuple[str, ...] = (
    "/usr/bin",
    "/bin",
    "/usr/local/bin",
    "/usr/sbin",
    "/sbin",
    "/opt/homebrew/bin",
)
_NATIVE_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
    b"MZ",
)


@dataclass(frozen=True)
class Verdict:
    safe: bool
    reason: str  # why it is (not) safe, for logs and the approval card
    is_git: bool = False


def classify(requested: Sequence[str], resolved: Sequence[str], *, cwd: Path, ctx: ToolContext) -> Verdict:
    """Decide statically whether `resolved` (argv with argv[0] resolved) may run unasked."""
    name = requested[0].replace("\\", "/").rsplit("/", 1)[-1]
    key = name
    args = list(resolved[1:])
    if name == "git":
        if not args or args[0] not in GIT_SUBCOMMANDS:
            return Verdict(False, "only `git status`, `git diff` and `git log` run without asking")
        key = f"git {args[0]}"
        args = args[1:]
    rule = RULES.get(key)
    if rule is None:
        return Verdict(False, f"`{name}` is not on the list of safe read-only commands")
    if "/" in requested[0].replace("\\", "/") and not os.path.isabs(requested[0]):
        return Verdict(False, "a relative program path is never auto-approved")
    problem = _check_executable(resolved[0]) or check_arguments(key, args, cwd=cwd, ctx=ctx)
    if problem:
        return Verdict(False, problem)
    return Verdict(True, f"`{key}` with safe arguments", is_git=name == "git")


def _check_executable(path: str) -> str | None:
    real = os.path.realpath(path)
    trusted = {os.path.realpath(d) for d in TRUSTED_DIRS}
    if os.path.dirname(real) not in trusted or os.path.dirname(os.path.abspath(path)) not in (
        trusted | set(TRUSTED_DIRS)
    ):
        return f"`{path}` is not in a trusted system directory"
    try:
        with open(real, "rb") as fh:
            magic = fh.read(4)
    except OSError:
        return f"`{path}` cannot be inspected"
    if not any(magic.startswith(m) for m in _NATIVE_MAGIC):
        return f"`{path}` is not a native executable (a script or wrapper)"
    return None


def check_arguments(key: str, args: Sequence[str], *, cwd: Path, ctx: ToolContext) -> str | None:
    """Why `args` are not safe for command `key` (e.g. "sort", "git diff"), or None if they are."""
    rule = RULES[key]
    try:
        positionals, pattern_given = _parse(rule, args)
    except _Unsafe as exc:
        return str(exc)
    if rule.positionals == "pattern_paths" and not pattern_given and positionals:
        positionals = positionals[1:]  # the first one is the pattern
    if rule.positionals == "none" and positionals:
        return "unexpected arguments"
    if rule.max_paths is not None and len(positionals) > rule.max_paths:
        return f"at most {rule.max_paths} path argument(s) allowed"
    resolved: list[Path] = []
    for p in positionals:
        if p.startswith(":"):
            return f"git pathspec magic `{p}` is not auto-approved"
        try:
            resolved.append(resolve_in_workspace(p if os.path.isabs(p) else str(cwd / p), ctx))
        except ToolError:
            return f"path `{p}` is outside the workspace"
    return _private_problem(key, args, resolved, cwd=cwd, ctx=ctx)


def _private_problem(
    key: str, args: Sequence[str], paths: Sequence[Path], *, cwd: Path, ctx: ToolContext
) -> str | None:
    """The app's own folders and hard-linked files are not read without asking."""
    real_cwd = Path(os.path.realpath(cwd))
    for path in [real_cwd, *paths]:
        if private_root_of(path, ctx) is not None:
            return f"`{path}` is inside CashCode's own data folders"
    for path in paths:
        if _is_special(path):
            # A FIFO blocks a reader forever, a device never ends: not a read-only file read.
            return f"`{path}` is not a regular file or folder"
        if hard_link_count(path) > 1:
            return f"`{path}` is a hard-linked file (another name may be outside the workspace)"
    if key in _RECURSIVE_FLAG and _recurses(key, args):
        for path in paths or [real_cwd]:
            if private_roots_below(path, ctx):
                return f"a recursive `{key}` over `{path}` would enter CashCode's own data folders"
        return _hard_link_problem(key, paths or [real_cwd], ctx)
    return None


def _hard_link_problem(key: str, trees: Sequence[Path], ctx: ToolContext) -> str | None:
    """A recursive read must not reach a private file through a hard link (hard_links.py)."""
    try:
        inodes = private_inodes(active_private_roots(ctx))
        for tree in trees:
            if not tree.is_dir():
                continue
            if (hit := link_into(tree, inodes)) is not None:
                return (
                    f"a recursive `{key}` would read `{hit}`, a hard link to a file in CashCode's "
                    "own data folders"
                )
            if (hit := any_hard_link(tree)) is not None:
                return (
                    f"a recursive `{key}` would read `{hit}`, a hard-linked file (another name may "
                    "be outside the workspace)"
                )
    except TooManyToCheck:
        return f"too many files to check a recursive `{key}` for links into CashCode's own data folders"
    return None


def _is_special(path: Path) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # missing: the command reports it
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _recurses(key: str, args: Sequence[str]) -> bool:
    letters = _RECURSIVE_FLAG[key]
    if letters is None:
        return True
    for a in args:
        if a == "--":
            break
        short = a.startswith("-") and not a.startswith("--")
        if a in _RECURSIVE_LONG or (short and set(a[1:]) & set(letters)):
            return True
    return False


class _Unsafe(Exception):
    pass


def _parse(rule: Rule, args: Sequence[str]) -> tuple[list[str], bool]:
    """GNU-style walk over args; returns (positionals, whether a pattern option was given)."""
    positionals: list[str] = []
    pattern_given = False
    after_dd = False
    i = 0
    while i < len(args):
        a = args[i]
        if after_dd or a == "-" or not a.startswith("-"):
            positionals.append(a)
        elif a == "--":
            after_dd = True
        elif a in rule.exact or a in rule.long:
            pass
        elif a.startswith("--"):
            name, eq, value = a.partition("=")
            if name not in rule.long_val:
                raise _Unsafe(f"option `{name}` is not on the safe list")
            if not eq and name in OPTIONAL_VALUE:
                i += 1
                continue
            if not eq:
                i += 1
                if i >= len(args):
                    raise _Unsafe(f"option `{name}` needs a value")
                value = args[i]
            _check_value(name, value, rule.long_val[name])
            pattern_given |= name in rule.pattern_flags
        else:
            following = args[i + 1] if i + 1 < len(args) else None
            consumed_next, is_pattern = _parse_short_cluster(rule, a, following)
            pattern_given |= is_pattern
            i += consumed_next
        i += 1
    return positionals, pattern_given


def _parse_short_cluster(rule: Rule, token: str, following: str | None) -> tuple[int, bool]:
    """Check `-abc` / `-n5` / `-n 5`; return (extra args consumed, pattern given)."""
    if rule.numeric_shorthand and token[1:].isdigit():
        return 0, False
    for j, c in enumerate(token[1:], start=1):
        if c in rule.short:
            continue
        if c in rule.short_val:
            attached = token[j + 1 :]
            value = attached or following
            if value is None:
                raise _Unsafe(f"option `-{c}` needs a value")
            _check_value(f"-{c}", value, rule.short_val[c])
            return (0 if attached else 1), f"-{c}" in rule.pattern_flags
        raise _Unsafe(f"option `-{c}` is not on the safe list")
    return 0, False


def _check_value(option: str, value: str, pattern: str) -> None:
    if not re.fullmatch(pattern, value):
        raise _Unsafe(f"value `{value}` for `{option}` is not allowed")
