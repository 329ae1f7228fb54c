from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from app.settings.paths import AppPaths


def test_env_variables_override_every_directory(tmp_path: Path) -> None:
    env = {
        "CASHCODE_DATA_DIR": str(tmp_path / "d"),
        "CASHCODE_CONFIG_DIR": str(tmp_path / "c"),
        "CASHCODE_LOG_DIR": str(tmp_path / "l"),
        "CASHCODE_CACHE_DIR": str(tmp_path / "k"),
    }
    paths = AppPaths.from_env(env)

    assert paths == AppPaths(tmp_path / "d", tmp_path / "c", tmp_path / "l", tmp_path / "k")
    assert paths.db_path == tmp_path / "d" / "cashcode.sqlite3"
    assert paths.settings_path == tmp_path / "c" / "settings.json"
    assert paths.skills_dir == tmp_path / "d" / "skills"


def test_without_overrides_the_platform_directories_named_cashcode_are_used() -> None:
    paths = AppPaths.from_env({"CASHCODE_DATA_DIR": ""})
    for d in (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir):
        assert "CashCode" in str(d)
        assert d.is_absolute()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_ensure_creates_private_directories(tmp_path: Path) -> None:
    paths = AppPaths(tmp_path / "d", tmp_path / "c", tmp_path / "l" / "deep", tmp_path / "k")
    paths.ensure()
    for d in (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_ensure_leaves_the_permissions_of_existing_folders_alone(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)  # e.g. a data folder the user placed on a shared disk
    paths = AppPaths(shared, tmp_path / "c", tmp_path / "l", tmp_path / "k")
    paths.ensure()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert stat.S_IMODE(paths.config_dir.stat().st_mode) == 0o700  # created by us: private
