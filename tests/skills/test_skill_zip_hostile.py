"""Hostile ZIPs (SPEC S7.5): each is refused with its reason, and nothing is written outside
the temporary folder."""

from __future__ import annotations

import os
import stat
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from app.skills.model import ArchiveRejected, SkillInvalid

from .helpers import Env, listing, skill_md

MiB = 1024 * 1024
GOOD = skill_md("demo").encode()


def info(name: str, mode: int | None = None) -> zipfile.ZipInfo:
    zi = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    zi.compress_type = zipfile.ZIP_DEFLATED
    if mode is not None:
        zi.external_attr = mode << 16
    return zi


def build(path: Path, members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members:
            archive.writestr(member, data)
    return path


def with_skill(*extra: tuple[zipfile.ZipInfo | str, bytes]) -> list[tuple[zipfile.ZipInfo | str, bytes]]:
    return [("demo/SKILL.md", GOOD), *extra]


def patch_sizes(path: Path, member: str, new_size: int) -> None:
    """Rewrite the uncompressed size in both the local header and the central directory."""
    data = bytearray(path.read_bytes())
    encoded = member.encode()
    local = data.find(b"PK\x03\x04" + b"")
    while local != -1:
        name_len = struct.unpack_from("<H", data, local + 26)[0]
        if bytes(data[local + 30 : local + 30 + name_len]) == encoded:
            struct.pack_into("<I", data, local + 22, new_size)
        local = data.find(b"PK\x03\x04", local + 4)
    central = data.find(b"PK\x01\x02")
    while central != -1:
        name_len = struct.unpack_from("<H", data, central + 28)[0]
        if bytes(data[central + 46 : central + 46 + name_len]) == encoded:
            struct.pack_into("<I", data, central + 24, new_size)
        central = data.find(b"PK\x01\x02", central + 4)
    path.write_bytes(bytes(data))


def encrypted(path: Path) -> Path:
    # zipfile resets flag_bits while writing, so set bit 0 on the central directory record
    # (what readers use) after the data is written, before the archive is closed.
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("demo/SKILL.md", GOOD)
        archive.writestr("demo/secret.txt", b"hidden")
        archive.getinfo("demo/secret.txt").flag_bits |= 0x1
    return path


def lying_small(path: Path) -> Path:
    build(path, with_skill(("demo/big.bin", b"\0" * (4 * MiB))))
    patch_sizes(path, "demo/big.bin", 1000)
    return path


def lying_big(path: Path) -> Path:
    build(path, with_skill(("demo/small.txt", b"tiny content")))
    patch_sizes(path, "demo/small.txt", 4 * MiB)
    return path


def too_big_archive(path: Path) -> Path:
    # Random bytes do not compress, so three 3.7 MiB members make an 11 MiB archive.
    chunks = [(f"demo/blob{i}.bin", os.urandom(int(3.7 * MiB))) for i in range(3)]
    return build(path, with_skill(*chunks))


Builder = Callable[[Path], Path]
HOSTILE: list[tuple[str, Builder, str]] = [
    ("traversal", lambda p: build(p, with_skill(("demo/../../x", b"pwned"))), "zip.traversal"),
    ("top-level traversal", lambda p: build(p, [("SKILL.md", GOOD), ("../x", b"pwned")]), "zip.traversal"),
    ("absolute path", lambda p: build(p, with_skill(("/abs", b"pwned"))), "zip.absolute"),
    ("drive letter with backslash", lambda p: build(p, with_skill(("C:\\x", b"pwned"))), "zip.drive"),
    ("drive letter with slash", lambda p: build(p, with_skill(("C:/x", b"pwned"))), "zip.drive"),
    ("backslash traversal", lambda p: build(p, with_skill(("demo\\..\\..\\x", b"pwned"))), "zip.backslash"),
    (
        "symlink member",
        lambda p: build(p, with_skill((info("demo/link", stat.S_IFLNK | 0o777), b"/etc/passwd"))),
        "zip.symlink",
    ),
    (
        "FIFO member",
        lambda p: build(p, with_skill((info("demo/pipe", stat.S_IFIFO | 0o644), b""))),
        "zip.special",
    ),
    (
        "device member",
        lambda p: build(p, with_skill((info("demo/dev", stat.S_IFCHR | 0o644), b""))),
        "zip.special",
    ),
    (
        "duplicate member",
        lambda p: build(p, with_skill(("demo/a.md", b"1"), ("demo/a.md", b"2"))),
        "zip.duplicate",
    ),
    (
        "duplicate after case folding",
        lambda p: build(p, with_skill(("demo/Read.md", b"1"), ("demo/READ.md", b"2"))),
        "zip.duplicate",
    ),
    (
        "duplicate after NFC normalisation",
        lambda p: build(p, with_skill(("demo/caf\u00e9.md", b"1"), ("demo/cafe\u0301.md", b"2"))),
        "zip.duplicate",
    ),
    (
        "file and folder with one name",
        lambda p: build(p, with_skill(("demo/x", b"1"), ("demo/x/y", b"2"))),
        "zip.duplicate",
    ),
    ("encrypted member", encrypted, "zip.encrypted"),
    (
        "600 members",
        lambda p: build(p, with_skill(*[(f"demo/f{i}.txt", b"x") for i in range(600)])),
        "zip.members",
    ),
    (
        "bomb with honest headers",
        lambda p: build(p, with_skill(*[(f"demo/z{i}.bin", b"\0" * (5 * MiB)) for i in range(11)])),
        "zip.expanded_size",
    ),
    ("header claims fewer bytes than it holds", lying_small, "zip.corrupt"),
    ("header claims more bytes than it holds", lying_big, "zip.size_mismatch"),
    ("11 MiB archive", too_big_archive, "zip.archive_size"),
    ("6 MiB member", lambda p: build(p, with_skill(("demo/big.bin", b"\0" * (6 * MiB)))), "zip.file_size"),
    ("two top-level folders", lambda p: build(p, [("a/SKILL.md", GOOD), ("b/SKILL.md", GOOD)]), "zip.layout"),
    (
        "a stray root file beside the Skill folder",
        lambda p: build(p, [("demo/SKILL.md", GOOD), ("README.md", b"stray")]),
        "zip.layout",
    ),
    ("no SKILL.md", lambda p: build(p, [("demo/README.md", b"hello")]), "zip.no_skill_md"),
    ("SKILL.md too deep", lambda p: build(p, [("demo/inner/SKILL.md", GOOD)]), "zip.no_skill_md"),
    ("not a ZIP at all", lambda p: (p.write_bytes(os.urandom(4096)), p)[1], "zip.not_zip"),
]


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize(("label", "builder", "rule"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_zip_is_refused_with_its_reason_and_writes_nothing(
    tmp_path: Path, env: Env, label: str, builder: Builder, rule: str
) -> None:
    archive = builder(tmp_path / "hostile.zip")
    env.roots.user.mkdir(parents=True)
    before = listing(tmp_path)
    with pytest.raises(ArchiveRejected) as caught:
        env.store.import_zip(archive)
    assert caught.value.problem.rule == rule, caught.value.problem
    assert len(str(caught.value)) > 15
    assert listing(tmp_path) == before  # user root, its parent, home, workspace: all unchanged
    assert not env.paths.staging.exists()
    assert not (tmp_path / "x").exists() and not Path("/abs").exists()


def test_the_bomb_archive_is_small_but_would_expand_past_fifty_mib(tmp_path: Path) -> None:
    builder = next(h[1] for h in HOSTILE if h[0] == "bomb with honest headers")
    archive = builder(tmp_path / "bomb.zip")
    assert archive.stat().st_size < 1 * MiB
    assert sum(i.file_size for i in zipfile.ZipFile(archive).infolist()) > 50 * MiB


def test_a_zip_with_an_invalid_skill_is_refused_and_leaves_nothing(tmp_path: Path, env: Env) -> None:
    archive = build(tmp_path / "bad.zip", [("Bad_Name/SKILL.md", skill_md("Bad_Name").encode())])
    env.roots.user.mkdir(parents=True)
    before = listing(tmp_path)
    with pytest.raises(SkillInvalid) as caught:
        env.store.import_zip(archive)
    assert "name.charset" in {p.rule for p in caught.value.problems}
    assert listing(tmp_path) == before


def test_a_zip_whose_scripts_is_a_file_is_refused_and_leaves_nothing(tmp_path: Path, env: Env) -> None:
    archive = build(
        tmp_path / "s.zip",
        [("tool/SKILL.md", skill_md("tool").encode()), ("tool/scripts", b"print('not a folder')\n")],
    )
    env.roots.user.mkdir(parents=True)
    before = listing(tmp_path)
    with pytest.raises(SkillInvalid) as caught:
        env.store.import_zip(archive)
    assert "layout.scripts" in {p.rule for p in caught.value.problems}
    assert listing(tmp_path) == before
