"""`cashcode skills …` through main([...]) in a real subprocess with its own data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .helpers import REPO, skill_md, tree_digest, write_skill, zip_folder


class Cli:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.data = base / "data"
        self.home = base / "home"
        self.workspace = base / "ws"
        for folder in (self.home, self.workspace):
            folder.mkdir(parents=True, exist_ok=True)

    def __call__(self, *argv: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "CASHCODE_DATA_DIR": str(self.data),
            "HOME": str(self.home),  # keep the real ~/.claude/skills out of the test
            "WORKSPACE_DIR": str(self.workspace),
            "PYTHONPATH": str(REPO),
        }
        code = f"from app.cli.skills_cmd import main; raise SystemExit(main({list(argv)!r}))"
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=self.base,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_list_shows_the_builtin_skill_external_skills_and_invalid_ones(cli: Cli) -> None:
    write_skill(cli.home / ".claude" / "skills", "from-claude")
    write_skill(cli.workspace / ".agents" / "skills", "from-workspace")
    write_skill(cli.data / "skills" / "user", "broken", skill_md("broken", body=""))
    result = cli("list")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "cashcode-skill-creator" in out and "builtin" in out
    assert "from-claude" in out and "from-workspace" in out
    assert "Invalid Skills" in out and "user/broken" in out


def test_validate_accepts_a_good_folder_and_refuses_a_bad_one_in_one_line(cli: Cli, tmp_path: Path) -> None:
    good = write_skill(tmp_path / "src", "good")
    assert cli("validate", str(good)).stdout.startswith("valid: good")
    assert cli("validate", str(good / "SKILL.md")).returncode == 0
    bad = write_skill(tmp_path / "src", "Bad", skill_md("Bad", description="d" * 1025))
    line = one_error_line(cli("validate", str(bad)))
    assert "lowercase" in line
    long = write_skill(tmp_path / "src", "long", skill_md("long", description="d" * 1068))
    result = cli("validate", str(long))
    assert result.returncode == 0 and result.stdout.startswith("valid: long")
    assert "warning: The description is 1068 characters; the recommended limit is 1024" in result.stdout


def test_validate_checks_a_zip_without_importing_it(cli: Cli, tmp_path: Path) -> None:
    archive = zip_folder(write_skill(tmp_path / "src", "zipped"), tmp_path / "z.zip", prefix="zipped")
    assert cli("validate", str(archive)).returncode == 0
    assert not (cli.data / "skills" / "user" / "zipped").exists()


def test_import_export_versions_delete_and_rollback_round_trip(cli: Cli, tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "roundtrip", files={"assets/x.bin": os.urandom(3000)})
    archive = zip_folder(source, tmp_path / "in.zip", prefix="roundtrip")
    imported = cli("import", str(archive))
    assert imported.returncode == 0 and "Imported 'roundtrip'" in imported.stdout, imported.stderr
    assert "roundtrip" in cli("list").stdout

    out = tmp_path / "out.zip"
    assert cli("export", "roundtrip", "-o", str(out)).returncode == 0
    assert zipfile.ZipFile(out).namelist()[0] == "roundtrip/"

    assert "no saved versions" in cli("versions", "roundtrip").stdout
    deleted = cli("delete", "roundtrip", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert "roundtrip" not in cli("list").stdout
    versions = cli("versions", "roundtrip").stdout.strip().splitlines()
    assert len(versions) == 1 and "delete" in versions[0]
    version_id = versions[0].split()[0]
    assert cli("rollback", "roundtrip", version_id).returncode == 0
    assert tree_digest(cli.data / "skills" / "user" / "roundtrip") == tree_digest(source)


def test_show_prints_the_skill_md_and_its_hash(cli: Cli) -> None:
    result = cli("show", "cashcode-skill-creator")
    assert result.returncode == 0
    assert "sha256:" in result.stdout and "# Skill Creator" in result.stdout


def test_disable_and_enable_are_persisted(cli: Cli) -> None:
    assert cli("disable", "cashcode-skill-creator").returncode == 0
    assert "disabled" in cli("list").stdout
    assert cli("enable", "cashcode-skill-creator").returncode == 0
    assert "disabled" not in cli("list").stdout


def test_delete_without_yes_and_without_a_terminal_refuses(cli: Cli, tmp_path: Path) -> None:
    write_skill(cli.data / "skills" / "user", "keep-me")
    line = one_error_line(cli("delete", "keep-me"))
    assert "--yes" in line
    assert (cli.data / "skills" / "user" / "keep-me" / "SKILL.md").exists()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("show", "nope"), "No Skill named 'nope'"),
        (("import", "missing.zip"), "ZIP refused"),
        (("delete", "cashcode-skill-creator", "--yes"), "read-only"),
        (("rollback", "cashcode-skill-creator", "20240101T000000000000Z-abcdef"), "builtin"),
        (("export", "nope"), "No Skill named"),
    ],
)
def test_bad_input_exits_1_with_one_clear_line(cli: Cli, argv: tuple[str, ...], needle: str) -> None:
    assert needle in one_error_line(cli(*argv))


def test_importing_a_hostile_zip_exits_1_and_names_the_reason(cli: Cli, tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("SKILL.md", skill_md("evil"))
        z.writestr("../escape.txt", "x")
    line = one_error_line(cli("import", str(archive)))
    assert "leave the Skill folder" in line
    assert not (tmp_path / "escape.txt").exists()


def test_importing_a_file_not_named_zip_is_refused(cli: Cli, tmp_path: Path) -> None:
    archive = zip_folder(write_skill(tmp_path / "src", "fine"), tmp_path / "fine.tar", prefix="fine")
    line = one_error_line(cli("import", str(archive)))
    assert "Only .zip files" in line
    assert "fine" not in cli("list").stdout


def test_importing_a_duplicate_name_is_a_conflict(cli: Cli, tmp_path: Path) -> None:
    archive = zip_folder(
        write_skill(tmp_path / "src", "cashcode-skill-creator"),
        tmp_path / "d.zip",
        prefix="cashcode-skill-creator",
    )
    assert "already exists" in one_error_line(cli("import", str(archive)))


def test_search_prints_a_json_array_best_match_first(cli: Cli) -> None:
    write_skill(
        cli.data / "skills" / "user",
        "pdf-forms",
        skill_md("pdf-forms", description="Fill PDF forms.", extra="tags: [pdf, forms]\n"),
    )
    write_skill(cli.data / "skills" / "user", "docx", skill_md("docx", description="Word files; not PDF."))
    zh = skill_md("zh-tables", description="处理表格文件")
    write_skill(cli.home / ".claude" / "skills", "zh-tables", zh)
    result = cli("search", "pdf forms", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows] == ["pdf-forms", "docx"]
    assert set(rows[0]) == {"name", "source", "description", "score"}
    assert rows[0]["source"] == "user" and rows[0]["score"] > rows[1]["score"] > 0
    assert json.loads(cli("search", "zzqx", "--json").stdout) == []
    assert [r["name"] for r in json.loads(cli("search", "表格", "--json").stdout)] == ["zh-tables"]
    human = cli("search", "pdf")
    assert human.returncode == 0 and "pdf-forms [user]" in human.stdout
