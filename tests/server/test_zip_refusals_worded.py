"""Every ZIP refusal of the three importers (Skill import, MCP bundle, `.cashagent` agent
package) carries the key and parameters the UI words it from, and its English is unchanged
(issue 41). A hostile corpus goes through each importer's preview route of a real
`cashcode serve` (`POST /api/invoke/<route>`, what the UI calls)."""

from __future__ import annotations

import json
import os
import stat
import struct
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.contracts.error_texts import ERROR_TEXTS
from app.support.ziparchive import TEXTS
from tests.server.process import isolated_env, serve_process

MiB = 1024 * 1024


@dataclass(frozen=True)
class Importer:
    route: str
    suffix: str
    what: str  # the word the archive module names the package by
    prefix: str  # where a package's files sit inside the ZIP
    base: tuple[str, ...]  # the members of an otherwise good package
    first_read: str  # the member the preview decompresses first
    max_file: int  # MiB
    max_members: int
    max_total: int  # MiB


SKILL = Importer(
    "skills.import_preview", ".zip", "Skill", "demo/", ("demo/SKILL.md",), "demo/SKILL.md", 5, 512, 50
)
BUNDLE = Importer(
    "mcp_catalog.bundle_preview", ".mcpb", "bundle", "server/",
    ("manifest.json", "server/index.js"), "manifest.json", 256, 20_000, 1024,
)  # fmt: skip
PACKAGE = Importer(
    "agents.import_preview", ".cashagent", "package", "skills/greeter/",
    ("manifest.json", "skills/greeter/SKILL.md"), "manifest.json", 5, 512, 50,
)  # fmt: skip
IMPORTERS = {"skill": SKILL, "bundle": BUNDLE, "package": PACKAGE}
BODY = b"---\nname: demo\ndescription: A demo.\n---\nHello.\n"


def _write(path: Path, members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore", UserWarning)  # the duplicate name is meant
        for member, data in members:
            archive.writestr(member, data)
            if isinstance(member, zipfile.ZipInfo) and member.comment == b"encrypt":
                # zipfile clears flag_bits while writing: set bit 0 on the central record
                archive.getinfo(member.filename).flag_bits |= 0x1
    return path


def _claim(path: Path, sizes: dict[str, int]) -> Path:
    """Rewrite members' uncompressed sizes in the local headers and the central directory."""
    data = bytearray(path.read_bytes())
    for signature, name_at, size_at, header in ((b"PK\x03\x04", 26, 22, 30), (b"PK\x01\x02", 28, 24, 46)):
        at = data.find(signature)
        while at != -1:
            length = struct.unpack_from("<H", data, at + name_at)[0]
            name = bytes(data[at + header : at + header + length]).decode()
            if name in sizes:
                struct.pack_into("<I", data, at + size_at, sizes[name])
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    return path


def _base(imp: Importer) -> list[tuple[zipfile.ZipInfo | str, bytes]]:
    manifest = json.dumps({"name": "demo"}).encode()
    return [(name, manifest if name.endswith(".json") else BODY) for name in imp.base]


def _info(name: str, mode: int = 0, encrypt: bool = False) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.external_attr = mode << 16
    if encrypt:
        info.comment = b"encrypt"
    return info


@dataclass(frozen=True)
class Case:
    make: Callable[[Importer, Path], Path]
    key: str
    params: Callable[[Importer], dict[str, str]]
    english: Callable[[Importer], str]  # today's sentence, written out


def _oversized(imp: Importer, path: Path) -> Path:
    big = f"{imp.prefix}big.bin"
    _write(path, [*_base(imp), (big, b"x" * 100)])
    return _claim(path, {big: (imp.max_file + 1) * MiB})


def _too_many(imp: Importer, path: Path) -> Path:
    extra = imp.max_members + 1 - len(imp.base)
    return _write(path, [*_base(imp), *[(f"{imp.prefix}f{i}.txt", b"") for i in range(extra)]])


def _total(imp: Importer, path: Path) -> Path:
    names = [f"{imp.prefix}part{i}.bin" for i in range(imp.max_total // imp.max_file + 1)]
    _write(path, [*_base(imp), *[(name, b"x") for name in names]])
    return _claim(path, dict.fromkeys(names, imp.max_file * MiB))


def _ratio_lie(imp: Importer, path: Path) -> Path:
    """The member the preview reads first inflates to 4 MiB while its header claims 1000 bytes."""
    members = [(n, d + b"\0" * (4 * MiB) if n == imp.first_read else d) for n, d in _base(imp)]
    _write(path, list(members))
    return _claim(path, {imp.first_read: 1000})


CASES: dict[str, Case] = {
    "oversized member": Case(
        _oversized,
        "zip.file_size",
        lambda i: {"name": f"{i.prefix}big.bin", "max": str(i.max_file)},
        lambda i: f"'{i.prefix}big.bin' is larger than {i.max_file} MiB.",
    ),
    "too many members": Case(
        _too_many,
        "zip.members",
        lambda i: {"count": str(i.max_members + 1), "max": str(i.max_members)},
        lambda i: f"The ZIP has {i.max_members + 1} entries; the limit is {i.max_members}.",
    ),
    "total too large": Case(
        _total,
        "zip.expanded_size",
        lambda i: {"max": str(i.max_total)},
        lambda i: f"The ZIP expands past {i.max_total} MiB.",
    ),  # fmt: skip
    "ratio lie (bomb)": Case(
        _ratio_lie,
        "zip.corrupt",
        lambda i: {"name": i.first_read, "reason": f"BadZipFile: Bad CRC-32 for file '{i.first_read}'"},
        lambda i: f"'{i.first_read}' cannot be read (BadZipFile: Bad CRC-32 for file '{i.first_read}').",
    ),
    "encrypted": Case(
        lambda i, p: _write(p, [*_base(i), (_info(f"{i.prefix}secret.txt", encrypt=True), b"hidden")]),
        "zip.encrypted",
        lambda i: {"name": f"{i.prefix}secret.txt"},
        lambda i: f"'{i.prefix}secret.txt' is encrypted; password-protected ZIPs are refused.",
    ),
    "traversal": Case(
        lambda i, p: _write(p, [*_base(i), (f"{i.prefix}../../evil.py", b"x")]),
        "zip.traversal",
        lambda i: {"name": f"{i.prefix}../../evil.py", "what": i.what},
        lambda i: f"'{i.prefix}../../evil.py' tries to leave the {i.what} folder ('..').",
    ),
    "link": Case(
        lambda i, p: _write(p, [*_base(i), (_info(f"{i.prefix}link", stat.S_IFLNK | 0o777), b"/etc/passwd")]),
        "zip.symlink",
        lambda i: {"name": f"{i.prefix}link"},
        lambda i: f"'{i.prefix}link' is a symbolic link; links are refused.",
    ),
    "duplicate names": Case(
        lambda i, p: _write(p, [*_base(i), (f"{i.prefix}a.md", b"1"), (f"{i.prefix}a.md", b"2")]),
        "zip.duplicate",
        lambda i: {"name": f"{i.prefix}a.md"},
        lambda i: f"'{i.prefix}a.md' appears twice in the ZIP.",
    ),
    "not a ZIP (system error)": Case(
        lambda i, p: (p.write_bytes(os.urandom(4096)), p)[1],
        "zip.not_zip",
        lambda i: {"reason": "File is not a zip file"},
        lambda i: "The file is not a readable ZIP archive (File is not a zip file).",
    ),
}


def _worded(error: dict[str, Any], label: str) -> tuple[str, str, dict[str, str]]:
    """The refusal's sentence, key and parameters, unwrapped from its importer's frame."""
    params: dict[str, str] = error["params"]
    if label == "skill":  # a Skill import's refusal is the reason itself
        return error["message"], error["key"], params
    frame = {"bundle": "the bundle is refused: ", "package": "The agent package was refused: "}[label]
    assert error["message"].startswith(frame), error
    inner = {k[7:]: v for k, v in params.items() if k.startswith("reason_") and k != "reason_key"}
    assert params["reason"] == error["message"].removeprefix(frame)
    return params["reason"], params["reason_key"], inner


def test_the_archive_modules_english_is_the_catalogs() -> None:
    """app/support cannot import the catalog, so its TEXTS are a copy kept equal here."""
    assert {k: v for k, v in ERROR_TEXTS.items() if k.startswith("zip.")} == TEXTS


@pytest.mark.filterwarnings("ignore:Duplicate name")
async def test_every_zip_refusal_of_every_importer_is_keyed_with_numbers_and_names(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    env = isolated_env(tmp_path, {"CASHCODE_DREAM": "off"})
    failures: list[str] = []
    with serve_process(["--no-open", "--port", "0"], env) as served:
        async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=60) as client:
            for label, imp in IMPORTERS.items():
                for case_name, case in CASES.items():
                    path = case.make(imp, corpus / f"{label}-{len(failures)}-{case_name[:4]}{imp.suffix}")
                    answer = await client.post(
                        f"/api/invoke/{imp.route}", json={"path": str(path)}, headers=served.bearer
                    )
                    envelope = answer.json()
                    assert not envelope["ok"], (label, case_name, envelope)
                    english, key, params = _worded(envelope["error"], label)
                    want = (case.english(imp), case.key, case.params(imp))
                    if (english, key, params) != want:
                        failures.append(f"{label} / {case_name}: got {(english, key, params)}, want {want}")
                    path.unlink()
    assert failures == []
