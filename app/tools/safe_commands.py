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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from app.tools.base import ToolContext, ToolError
from app.tools.workspace import resolve_in_workspace

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

ANY = r"(?s).*"
NUM = r"[+-]?\d+[a-zA-Z]*"
COLOR = r"(always|never|auto)"

Positionals = Literal["none", "paths", "pattern_paths"]


@dataclass(frozen=True)
class Rule:
    """Allowed shape of one command's arguments (GNU-style parsing)."""

    short: str = ""  # single-letter flags without a value; may be clustered (-la)
    short_val: Mapping[str, str] = field(default_factory=dict)  # letter -> value regex
    long: frozenset[str] = frozenset()  # --flags without a value
    long_val: Mapping[str, str] = field(default_factory=dict)  # --flag -> value regex
    exact: frozenset[str] = frozenset()  # whole tokens allowed verbatim (e.g. git's -uno)
    positionals: Positionals = "paths"
    max_paths: int | None = None
    numeric_shorthand: bool = False  # head -5
    pattern_flags: frozenset[str] = frozenset()  # options that supply the pattern (grep -e)


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_GIT_DIFF_COMMON = _f(
    "--stat",
    "--shortstat",
    "--numstat",
    "--name-only",
    "--name-status",
    "--summary",
    "--raw",
    "--patch",
    "--no-patch",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--minimal",
    "--patience",
    "--histogram",
    "--ignore-all-space",
    "--ignore-space-change",
    "--ignore-blank-lines",
    "--word-diff",
    "--no-renames",
    "--check",
    "--full-index",
    "--binary",
    "--abbrev",
    "--relative",
    "--text",
)

RULES: Mapping[str, Rule] = {
    "pwd": Rule(short="LP", positionals="none"),
    "ls": Rule(
        short="aAlhR1FdtSrisnpgGoUXcuvmx",
        long=_f(
            "--all",
            "--almost-all",
            "--human-readable",
            "--recursive",
            "--directory",
            "--classify",
            "--reverse",
            "--size",
            "--numeric-uid-gid",
            "--group-directories-first",
        ),
        long_val={"--color": COLOR, "--sort": r"[a-z]+", "--time-style": r"[+%A-Za-z:_ .\-/]+"},
    ),
    "cat": Rule(short="nbAETvset", long=_f("--number", "--number-nonblank", "--show-all", "--squeeze-blank")),
    "head": Rule(
        short="qvz",
        short_val={"n": NUM, "c": NUM},
        numeric_shorthand=True,
        long=_f("--quiet", "--silent", "--verbose"),
        long_val={"--lines": NUM, "--bytes": NUM},
    ),
    "tail": Rule(
        short="qvz",
        short_val={"n": NUM, "c": NUM},
        numeric_shorthand=True,
        long=_f("--quiet", "--silent", "--verbose"),
        long_val={"--lines": NUM, "--bytes": NUM},
    ),
    "wc": Rule(short="lwcmL", long=_f("--lines", "--words", "--bytes", "--chars", "--max-line-length")),
    "sort": Rule(
        short="bdfghiMnrsuVz",
        short_val={"k": r"[0-9.,a-zA-Z]+", "t": r"(?s).{1,2}"},
        long=_f(
            "--reverse",
            "--numeric-sort",
            "--unique",
            "--ignore-case",
            "--human-numeric-sort",
            "--version-sort",
            "--stable",
            "--ignore-leading-blanks",
            "--general-numeric-sort",
        ),
        long_val={"--key": r"[0-9.,a-zA-Z]+", "--field-separator": r"(?s).{1,2}"},
    ),
    # uniq's second positional is an OUTPUT file, so at most one path.
    "uniq": Rule(
        short="cdDiuz",
        short_val={"f": NUM, "s": NUM, "w": NUM},
        max_paths=1,
        long=_f("--count", "--repeated", "--unique", "--ignore-case"),
    ),
    "file": Rule(short="bihLN", long=_f("--brief", "--mime", "--mime-type", "--mime-encoding")),
    "stat": Rule(
        short="Lft",
        short_val={"c": ANY},
        long=_f("--dereference", "--terse"),
        long_val={"--format": ANY, "--printf": ANY},
    ),
    "grep": Rule(
        short="ivnclLwxrEFGohHsqIa",
        short_val={"e": ANY, "A": NUM, "B": NUM, "C": NUM, "m": NUM},
        long=_f(
            "--ignore-case",
            "--invert-match",
            "--line-number",
            "--count",
            "--files-with-matches",
            "--files-without-match",
            "--word-regexp",
            "--line-regexp",
            "--recursive",
            "--extended-regexp",
            "--fixed-strings",
            "--only-matching",
            "--no-filename",
            "--with-filename",
            "--no-messages",
            "--quiet",
            "--binary-files=without-match",
        ),
        long_val={
            "--regexp": ANY,
            "--include": ANY,
            "--exclude": ANY,
            "--exclude-dir": ANY,
            "--color": COLOR,
            "--max-count": NUM,
            "--context": NUM,
        },
        positionals="pattern_paths",
        pattern_flags=_f("-e", "--regexp"),
    ),
    "rg": Rule(
        short="iSsnNwxvclFoHuU.",
        short_val={
            "e": ANY,
            "g": ANY,
            "t": r"[\w-]+",
            "T": r"[\w-]+",
            "A": NUM,
            "B": NUM,
            "C": NUM,
            "m": NUM,
        },
        long=_f(
            "--ignore-case",
            "--smart-case",
            "--case-sensitive",
            "--line-number",
            "--no-line-number",
            "--word-regexp",
            "--invert-match",
            "--count",
            "--files",
            "--files-with-matches",
            "--fixed-strings",
            "--only-matching",
            "--hidden",
            "--no-ignore",
            "--json",
            "--vimgrep",
            "--no-heading",
            "--heading",
            "--type-list",
            "--with-filename",
            "--no-filename",
            "--multiline",
            "--stats",
        ),
        long_val={
            "--regexp": ANY,
            "--glob": ANY,
            "--iglob": ANY,
            "--type": r"[\w-]+",
            "--type-not": r"[\w-]+",
            "--max-count": NUM,
            "--max-depth": NUM,
            "--color": COLOR,
            "--context": NUM,
            "--sort": r"[a-z]+",
        },
        positionals="pattern_paths",
        pattern_flags=_f("-e", "--regexp"),
    ),
    "git status": Rule(
        short="sbvz",
        long=_f(
            "--short",
            "--branch",
            "--porcelain",
            "--long",
            "--ignored",
            "--show-stash",
            "--ahead-behind",
            "--no-ahead-behind",
            "--renames",
            "--no-renames",
            "--verbose",
        ),
        long_val={"--porcelain": r"v[12]", "--untracked-files": r"(no|normal|all)"},
        exact=_f("-u", "-uno", "-unormal", "-uall"),
    ),
    "git diff": Rule(
        short="pRwbzM",
        short_val={"U": NUM},
        long=_GIT_DIFF_COMMON | _f("--cached", "--staged"),
        long_val={"--unified": NUM, "--color": COLOR, "--diff-filter": r"[ACDMRTUXBacdmrtuxb*]+"},
    ),
    "git log": Rule(
        short="pi",
        short_val={"n": NUM},
        numeric_shorthand=True,
        long=_GIT_DIFF_COMMON
        | _f(
            "--oneline",
            "--graph",
            "--decorate",
            "--all",
            "--no-merges",
            "--merges",
            "--first-parent",
            "--reverse",
            "--abbrev-commit",
            "--follow",
            "--no-decorate",
        ),
        # Signature placeholders (%G…) would run gpg; all other placeholders only format.
        long_val={
            "--max-count": NUM,
            "--skip": NUM,
            "--since": ANY,
            "--until": ANY,
            "--after": ANY,
            "--before": ANY,
            "--author": ANY,
            "--grep": ANY,
            "--date": r"[\w:%-]+",
            "--format": r"(?s)(?!.*%G).*",
            "--pretty": r"(?s)(?!.*%G).*",
            "--color": COLOR,
        },
    ),
}
GIT_SUBCOMMANDS = frozenset(k.split(" ", 1)[1] for k in RULES if k.startswith("git "))


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
    for p in positionals:
        if p.startswith(":"):
            return f"git pathspec magic `{p}` is not auto-approved"
        try:
            resolve_in_workspace(p if os.path.isabs(p) else str(cwd / p), ctx)
        except ToolError:
            return f"path `{p}` is outside the workspace"
    return None


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
