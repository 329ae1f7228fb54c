"""Where CashCode keeps its files: platformdirs defaults, each overridable by env (SPEC S10.1)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "CashCode"

ENV_DATA_DIR = "CASHCODE_DATA_DIR"
ENV_CONFIG_DIR = "CASHCODE_CONFIG_DIR"
ENV_LOG_DIR = "CASHCODE_LOG_DIR"
ENV_CACHE_DIR = "CASHCODE_CACHE_DIR"


@dataclass(frozen=True)
class AppPaths:
    data_dir: Path
    config_dir: Path
    log_dir: Path
    cache_dir: Path

    @property
    def db_path(self) -> Path:
        return self.data_dir / "cashcode.sqlite3"

    @property
    def settings_path(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def skills_dir(self) -> Path:
        return self.data_dir / "skills"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> AppPaths:
        """Platform defaults, overridden by non-empty `CASHCODE_*_DIR` variables."""
        # Imported here: platformdirs is cheap, but keeping module import free of work helps
        # the CLI start-up budget.
        import platformdirs

        def pick(var: str, default: str) -> Path:
            value = env.get(var, "").strip()
            return Path(value).expanduser().absolute() if value else Path(default)

        return cls(
            data_dir=pick(ENV_DATA_DIR, platformdirs.user_data_dir(APP_NAME, appauthor=False)),
            config_dir=pick(ENV_CONFIG_DIR, platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            log_dir=pick(ENV_LOG_DIR, platformdirs.user_log_dir(APP_NAME, appauthor=False)),
            cache_dir=pick(ENV_CACHE_DIR, platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        )

    def ensure(self) -> AppPaths:
        """Create all directories (private to the user on POSIX). Returns self for chaining."""
        for d in (self.data_dir, self.config_dir, self.log_dir, self.cache_dir):
            if d.is_dir():
                continue  # an existing folder keeps the permissions its owner chose
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            if os.name == "posix":
                # mkdir's mode is masked by umask; tighten only the folder we just created.
                os.chmod(d, 0o700)
        return self
