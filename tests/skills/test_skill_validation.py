"""SPEC S7.1 rules, one table row per rule with its boundary pair."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.skills.model import MAX_SKILL_MD_BYTES
from app.skills.validate import parse_skill_md, validate_package

from .helpers import skill_md


@dataclass(frozen=True)
class Case:
    id: str
    folder: str
    content: bytes
    rules: frozenset[str]  # empty = valid


def case(id: str, text: str, folder: str = "demo", rules: tuple[str, ...] = ()) -> Case:
    return Case(id, folder, text.encode("utf-8"), frozenset(rules))


def sized(total: int) -> bytes:
    """A valid SKILL.md of exactly `total` bytes."""
    head = skill_md("demo", body="# Demo\n\n").encode("utf-8")
    return head + b"x" * (total - len(head))


CASES = [
    case("minimal passes", skill_md()),
    case("64-char name passes", skill_md("a" * 64), folder="a" * 64),
    case("65-char name fails", skill_md("a" * 65), folder="a" * 65, rules=("name.length",)),
    case("digits and single hyphens pass", skill_md("pdf-2-text"), folder="pdf-2-text"),
    case("underscore fails", skill_md("bad_name"), folder="bad_name", rules=("name.charset",)),
    case("leading hyphen fails", skill_md("-bad"), folder="-bad", rules=("name.hyphen_edge",)),
    case("trailing hyphen fails", skill_md("bad-"), folder="bad-", rules=("name.hyphen_edge",)),
    case("double hyphen fails", skill_md("bad--name"), folder="bad--name", rules=("name.double_hyphen",)),
    case("uppercase fails", skill_md("Bad-Name"), folder="Bad-Name", rules=("name.charset",)),
    case("non-ASCII name fails", skill_md("café"), folder="café", rules=("name.charset",)),
    case(
        "quoted name with a space fails", skill_md('"bad name"'), folder="bad name", rules=("name.charset",)
    ),
    case("missing name fails", "---\ndescription: d\n---\nbody\n", rules=("name.required",)),
    case(
        "numeric name fails",
        "---\nname: 123\ndescription: d\n---\nbody\n",
        folder="123",
        rules=("name.type",),
    ),
    case(
        "two name keys fail",
        "---\nname: demo\nname: demo\ndescription: d\n---\nbody\n",
        rules=("yaml.duplicate_key",),
    ),
    case(
        "duplicate nested key fails",
        skill_md(extra="metadata:\n  a: '1'\n  a: '2'\n"),
        rules=("yaml.duplicate_key",),
    ),
    case("name different from folder fails", skill_md("other"), folder="demo", rules=("name.folder",)),
    case("description 1024 passes", skill_md(description="d" * 1024)),
    case("description 1068 passes (advisory limit)", skill_md(description="d" * 1068)),
    case("missing description fails", "---\nname: demo\n---\nbody\n", rules=("description.required",)),
    case("compatibility 500 passes", skill_md(extra=f"compatibility: {'c' * 500}\n")),
    case("compatibility 501 passes (advisory limit)", skill_md(extra=f"compatibility: {'c' * 501}\n")),
    case(
        "display_name on two lines fails",
        skill_md(extra='display_name: "Two\\nlines"\n'),
        rules=("display_name.lines",),
    ),
    case("display_name 80 passes", skill_md(extra=f"display_name: {'D' * 80}\n")),
    case(
        "display_name 81 fails", skill_md(extra=f"display_name: {'D' * 81}\n"), rules=("display_name.length",)
    ),
    case("empty body fails", skill_md(body="\n  \n"), rules=("body.empty",)),
    case("no frontmatter fails", "# Just markdown\n", rules=("frontmatter.missing",)),
    case("unclosed frontmatter fails", "---\nname: demo\ndescription: d\n", rules=("frontmatter.missing",)),
    case("broken YAML fails", "---\nname: [demo\ndescription: d\n---\nbody\n", rules=("yaml.syntax",)),
    case("metadata string map passes", skill_md(extra="metadata:\n  author: me\n  version: '2'\n")),
    case(
        "metadata with a number fails", skill_md(extra="metadata:\n  version: 2\n"), rules=("metadata.type",)
    ),
    case("metadata as a list fails", skill_md(extra="metadata: [a, b]\n"), rules=("metadata.type",)),
    case("unknown keys pass", skill_md(extra="homepage: https://example.com\nx-custom: [1, 2]\n")),
    case(
        "extensions pass",
        skill_md(
            extra=(
                "license: MIT\nallowed-tools: Read Grep\nversion: 1.0\ntags: [a, b]\ntriggers: [make pdf]\n"
                "requires:\n  tools: [fs_read]\n  mcp_servers: [github]\n  bins: [pandoc]\n  env: [TOKEN]\n"
                "optional:\n  bins: [qpdf]\n"
            )
        ),
    ),
    case("tags must be text", skill_md(extra="tags: [1, 2]\n"), rules=("tags.type",)),
    case("requires must be a mapping", skill_md(extra="requires: [pandoc]\n"), rules=("requires.type",)),
    case(
        "requires lists must be text",
        skill_md(extra="requires:\n  bins: [{a: b}]\n"),
        rules=("requires.bins.type",),
    ),
    case("license must be text", skill_md(extra="license: [MIT]\n"), rules=("license.type",)),
    case("BOM and CRLF pass", "\ufeff" + skill_md().replace("\n", "\r\n")),
    Case("SKILL.md of 256 KiB passes", "demo", sized(MAX_SKILL_MD_BYTES), frozenset()),
    Case("SKILL.md one byte over fails", "demo", sized(MAX_SKILL_MD_BYTES + 1), frozenset({"skill_md.size"})),
    Case(
        "non-UTF-8 SKILL.md fails",
        "demo",
        skill_md().encode("utf-8") + b"\xff\xfe latin-1 \xe9",
        frozenset({"skill_md.encoding"}),
    ),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_each_frontmatter_rule_accepts_its_boundary_and_rejects_one_past_it(tmp_path: Path, c: Case) -> None:
    folder = tmp_path / c.folder
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(c.content)
    result = validate_package(folder)
    if not c.rules:
        assert result.kind == "valid", result
        return
    assert result.kind == "invalid"
    assert {p.rule for p in result.problems} == c.rules
    assert all(len(p.message) > 10 for p in result.problems)


def test_a_symlink_leaving_the_package_is_invalid(tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("private")
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md())
    (folder / "ref").mkdir()
    os.symlink("../../outside.txt", folder / "ref" / "leak.md")
    result = validate_package(folder)
    assert result.kind == "invalid"
    assert [p.rule for p in result.problems] == ["path.outside"]
    assert "ref/leak.md" in result.problems[0].message


def test_a_symlink_with_an_absolute_target_is_invalid_even_inside(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md())
    os.symlink(folder / "SKILL.md", folder / "alias.md")
    result = validate_package(folder)
    assert result.kind == "invalid"
    assert [p.rule for p in result.problems] == ["path.absolute"]


def test_a_relative_symlink_that_stays_inside_is_fine(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    (folder / "docs").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md())
    (folder / "docs" / "a.md").write_text("a")
    os.symlink("docs/a.md", folder / "alias.md")
    assert validate_package(folder).kind == "valid"


def test_a_folder_without_skill_md_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    result = validate_package(tmp_path / "demo")
    assert result.kind == "invalid"
    assert [p.rule for p in result.problems] == ["skill_md.missing"]


def test_several_problems_are_all_reported_in_words(tmp_path: Path) -> None:
    parsed = parse_skill_md(skill_md("Bad--", description="d" * 2000, body="").encode(), "Bad--")
    assert isinstance(parsed, list)
    assert {p.rule for p in parsed} == {
        "name.charset",
        "name.hyphen_edge",
        "name.double_hyphen",
        "body.empty",
    }
    assert any("two hyphens" in p.message for p in parsed)


def test_the_manifest_keeps_extensions_typed(tmp_path: Path) -> None:
    text = skill_md(
        extra="version: 1.5\ntags: solo\nrequires:\n  bins: [pandoc]\nx-extra: 1\n"
        "allowed-tools: Bash(git:*) Read\n"
    )
    parsed = parse_skill_md(text.encode(), "demo")
    assert not isinstance(parsed, list)
    m = parsed.manifest
    assert (m.version, m.tags, m.requires.bins, m.extra_keys) == ("1.5", ("solo",), ("pandoc",), ("x-extra",))
    assert m.allowed_tools == ("Bash(git:*) Read",)
