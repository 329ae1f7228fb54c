"""The one rule for environment variables of a program the app launches (MCP servers from the
Registry, MCP Bundles, the curated catalog, `mcp import`, `mcp add`), used by every one of them.

Loader variables change which code a program runs rather than what it is told (`NODE_OPTIONS=
--import=data:…` runs code in any Node program; `PYTHONUSERBASE`, `PYTHONPATH`, `LD_PRELOAD`,
`BASH_ENV` load files of someone else's choosing; `npm_config_*`, `UV_*` and `PIP_*` pick the
package index a helper installs from). They are never masked and always called out, and an
install from someone else's content needs a separate confirmation for them (decision 280).

Secret names: values of variables named like a credential are masked in every view; other
values are shown, so a launch is never confirmed blind (decision 283).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Exact names (case-insensitive: Windows' environment is) and prefixes.
_LOADER_NAMES = (
    "PATH",
    "NODE_OPTIONS",
    "NODE_PATH",
    "ELECTRON_RUN_AS_NODE",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUSERBASE",
    "PYTHONPLATLIBDIR",
    "PYTHONWARNINGS",  # `ignore::mod.Cls` imports mod
    "PYTHONBREAKPOINT",
    "BASH_ENV",
    "ENV",
    "PERL5LIB",
    "PERL5OPT",
    "RUBYLIB",
    "RUBYOPT",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "GCONV_PATH",
)
_LOADER_PREFIXES = ("LD_", "DYLD_", "NPM_CONFIG_", "UV_", "PIP_")
LOADER_ENV = re.compile(rf"^(?:{'|'.join(_LOADER_PREFIXES)})|^(?:{'|'.join(_LOADER_NAMES)})$", re.IGNORECASE)

# Names that usually carry a credential (`GITHUB_TOKEN`, `DB_PASSWORD`, `X-Api-Key`, `Cookie`,
# `GITHUB_PAT`, `DB_PW`); also used for credential query parameters and headers.
SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE"
    r"|(?:^|[_-])(?:PW|PWD|PAT|PASS|SIG|SIGNATURE)(?:[_-]|$)",
    re.IGNORECASE,
)


def is_loader_env(name: str) -> bool:
    return LOADER_ENV.search(name) is not None


def loader_names(names: Iterable[str]) -> list[str]:
    """The loader variables among `names`, sorted."""
    return sorted({n for n in names if is_loader_env(n)})


def is_secret_name(name: str) -> bool:
    """A variable (or header, query parameter) whose value is masked in every view. `PWD` alone
    is the working folder, not a password."""
    return name.upper() != "PWD" and SECRET_NAME.search(name) is not None
