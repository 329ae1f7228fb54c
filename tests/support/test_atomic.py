"""The one atomic write (app/support/atomic.py), and that no writer has its own copy again."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

import pytest

from app.support.atomic import KEEP_MODE, NEW_FILE_MODE, atomic_target, atomic_write_bytes, atomic_write_with

APP = Path(__file__).resolve().parents[2] / "app"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_writes_the_content_owner_only_by_default_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    atomic_write_bytes(target, b"one")
    atomic_write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    assert _mode(target) == 0o600
    assert os.listdir(tmp_path) == ["f.json"]


def test_modes_given_kept_or_as_a_new_file(tmp_path: Path) -> None:
    target = tmp_path / "f"
    atomic_write_bytes(target, b"x", mode=0o640)
    assert _mode(target) == 0o640
    atomic_write_bytes(target, b"y", mode=KEEP_MODE)
    assert _mode(target) == 0o640
    fresh = tmp_path / "new"
    umask = os.umask(0o027)
    try:
        atomic_write_bytes(fresh, b"z", mode=NEW_FILE_MODE)
    finally:
        os.umask(umask)
    assert _mode(fresh) == 0o640


def test_a_writer_that_fails_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"old")

    def half(fh: BinaryIO) -> None:
        fh.write(b"new but not fin")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        atomic_write_with(target, half)
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["settings.json"]


def test_no_clobber_refuses_a_file_that_exists(tmp_path: Path) -> None:
    target = tmp_path / "f"
    atomic_write_bytes(target, b"mine", replace=False)
    with pytest.raises(FileExistsError):
        atomic_write_bytes(target, b"theirs", replace=False)
    assert target.read_bytes() == b"mine"
    assert os.listdir(tmp_path) == ["f"]


def test_a_named_temp_target_is_moved_in_only_when_the_block_succeeds(tmp_path: Path) -> None:
    target = tmp_path / "export.zip"
    with atomic_target(target) as tmp:
        tmp.write_bytes(b"zip")
        assert not target.exists()
    assert target.read_bytes() == b"zip"
    with pytest.raises(RuntimeError), atomic_target(target) as tmp:
        tmp.write_bytes(b"broken")
        raise RuntimeError("writer failed")
    assert target.read_bytes() == b"zip"
    assert os.listdir(tmp_path) == ["export.zip"]


def test_a_symlink_planted_at_the_target_is_replaced_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    target = tmp_path / "f"
    target.symlink_to(outside)
    atomic_write_bytes(target, b"new")
    assert outside.read_bytes() == b"keep"
    assert not target.is_symlink() and target.read_bytes() == b"new"


def test_no_module_writes_files_atomically_on_its_own() -> None:
    # Every temp-file + fsync + os.replace belongs to app/support/atomic.py; an os.replace
    # elsewhere must say why it is not a write (moving a damaged file aside).
    offenders = []
    for path in APP.rglob("*.py"):
        if path == APP / "support" / "atomic.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bos\.replace\(", line) and "# not a write:" not in line:
                offenders.append(f"{path.relative_to(APP)}:{n}")
            if re.search(r"\bos\.fsync\(", line) and "# not a write:" not in line:
                offenders.append(f"{path.relative_to(APP)}:{n} (fsync)")
    assert offenders == []
