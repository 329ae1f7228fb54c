"""The environment a model-run command (exec, Skill scripts) gets.

Choice: an allow-list, not a deny-list. Anything a command prints goes to the model, and secret
variables have too many names to list (`PGPASSWORD`, `DATABASE_URL`, `GH_PAT`, `AWS_…`), so only
what programs need to behave as in the user's terminal passes: PATH, HOME, user and shell names,
terminal, locale (LANG, LANGUAGE, LC_*), time zone, temp folders, and the Windows basics. The
user can add names in Settings → Tools (`UserSettings.exec_env`); those pass as they are, except
that a name that looks like a secret is still dropped unless the user listed it explicitly.
Git invocations additionally lose every GIT_* variable (GIT_DIR, GIT_CONFIG_*, GIT_EXEC_PATH…),
which could point git at a repository, config or helper outside the workspace; we add
GIT_OPTIONAL_LOCKS=0 (status does not rewrite the index) and GIT_TERMINAL_PROMPT=0 (never wait
for credentials on a closed stdin).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

_SECRET_NAME = re.compile(
    r"(^|_)(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET|TOKEN|PASSW(OR)?D|CREDENTIALS?)(_|$)", re.IGNORECASE
)
DEFAULT_ALLOWED = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "USERNAME",
        "SHELL",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TMP",
        "TEMP",
        # Windows: programs fail to start without some of these.
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
        "USERPROFILE",
        "HOMEDRIVE",
        "HOMEPATH",
        "APPDATA",
        "LOCALAPPDATA",
        "PROGRAMDATA",
        "PROGRAMFILES",
        "PROGRAMFILES(X86)",
        "NUMBER_OF_PROCESSORS",
        "PROCESSOR_ARCHITECTURE",
        "OS",
    }
)
_ALLOWED_PREFIXES = ("LC_",)
# Read by tools we may run unasked; they could smuggle options such as `rg --pre` in. Never
# passed, even when listed in Settings.
_CONFIG_INDIRECTION = frozenset({"RIPGREP_CONFIG_PATH", "GREP_OPTIONS"})


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def is_allowed(name: str, extra: Collection[str] = ()) -> bool:
    upper = name.upper()
    if upper in _CONFIG_INDIRECTION:
        return False
    if upper in {e.upper() for e in extra}:
        return True
    if is_secret_name(name):
        return False
    return upper in DEFAULT_ALLOWED or upper.startswith(_ALLOWED_PREFIXES)


def command_env(base: Mapping[str, str], *, is_git: bool, extra: Collection[str] = ()) -> dict[str, str]:
    """The allow-listed part of `base`, plus the names in `extra` (the user's Settings)."""
    env = {k: v for k, v in base.items() if is_allowed(k, extra)}
    if is_git:
        env = {k: v for k, v in env.items() if not k.upper().startswith("GIT_")}
        env["GIT_OPTIONAL_LOCKS"] = "0"
        env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def is_git_executable(resolved_argv0: str) -> bool:
    name = resolved_argv0.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in ("git", "git.exe")
