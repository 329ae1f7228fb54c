"""The environment a model-run command gets.

Choice: inherit the user's environment (PATH, locale, HOME, SSH agent… so commands behave as in
the user's terminal) but drop variables whose *names* look like secrets (API keys, tokens,
passwords), because anything the command prints goes to the model. Git invocations additionally
lose every inherited GIT_* variable (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_*, GIT_EXEC_PATH, …),
which could otherwise point git at a repository, config or helper outside the workspace; we add
GIT_OPTIONAL_LOCKS=0 (status does not rewrite the index) and GIT_TERMINAL_PROMPT=0 (never wait
for credentials on a closed stdin).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(
    r"(^|_)(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET|TOKEN|PASSW(OR)?D|CREDENTIALS?)(_|$)", re.IGNORECASE
)
# Read by tools we may run unasked; they could smuggle options such as `rg --pre` in.
_CONFIG_INDIRECTION = frozenset({"RIPGREP_CONFIG_PATH", "GREP_OPTIONS"})


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def command_env(base: Mapping[str, str], *, is_git: bool) -> dict[str, str]:
    env = {k: v for k, v in base.items() if not is_secret_name(k) and k not in _CONFIG_INDIRECTION}
    if is_git:
        env = {k: v for k, v in env.items() if not k.upper().startswith("GIT_")}
        env["GIT_OPTIONAL_LOCKS"] = "0"
        env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def is_git_executable(resolved_argv0: str) -> bool:
    name = resolved_argv0.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in ("git", "git.exe")
