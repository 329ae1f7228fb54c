"""Data: the built-in safe read-only commands and the argument shapes they may take.

Each Rule is an allow-list. Options that write files (`sort -o`, `git diff --output`), run other
programs (`rg --pre`, `sort --compress-program`, `--ext-diff`), read other files (`grep -f`,
`wc --files0-from`), follow symlinks out (`ls -L`, `grep -R`, `rg -L`) or never end (`tail -f`)
are simply not listed. Option values must fully match their pattern.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

ANY = r"(?s).*"
NUM = r"[+-]?\d+[a-zA-Z]*"
COLOR = r"(always|never|auto)"

Positionals = Literal["none", "paths", "pattern_paths"]

# Options whose value is optional and must then be attached (`--color=never`). Without `=`, the
# next token is *not* their value, so it is checked as a positional (path) like the program sees it.
OPTIONAL_VALUE = frozenset({"--color", "--pretty", "--untracked-files", "--porcelain"})


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
