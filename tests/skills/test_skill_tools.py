"""The Skill tools called directly: MCP preparation after load (the McpPreparer protocol),
resource paths (links, escapes, binary, caps) and dependency checks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.contracts.tools import ToolContext, ToolError
from app.skills.resources import ResourceError, read_resource, resolve_package_file
from app.skills.runtime import RuntimeConfig, SkillRuntime
from app.skills.tools import SkillLoadTool

from .helpers import skill_md, write_skill


class FakeMcp:
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def prepare_servers(self, chat_id: str, names: Sequence[str]) -> list[str]:
        self.asked.append(list(names))
        return [f"{n}: connected (3 tools)" for n in names]


def _runtime(tmp_path: Path, mcp: FakeMcp | None = None, env: dict[str, str] | None = None) -> SkillRuntime:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    config = RuntimeConfig(
        data_dir=tmp_path / "data",
        home=tmp_path / "home",
        workspace=lambda: ws,
        env=env or {"PATH": os.environ.get("PATH", "")},
        builtin_dir=tmp_path / "builtin",
    )
    return SkillRuntime(config, None, mcp=mcp)


async def _load(rt: SkillRuntime, name: str, tmp_path: Path) -> str:
    tool = SkillLoadTool(rt)
    ctx = ToolContext(workspace=tmp_path / "ws", chat_id="c", turn_id="t")
    call = await tool.prepare({"name": name}, ctx)
    return (await tool.execute(call, ctx)).content


async def test_required_mcp_servers_are_prepared_after_load(tmp_path: Path) -> None:
    user = tmp_path / "data" / "skills" / "user"
    write_skill(user, "gh", skill_md("gh", extra="requires:\n  mcp_servers: [github, linear]\n"))
    mcp = FakeMcp()
    text = await _load(_runtime(tmp_path, mcp), "gh", tmp_path)
    assert mcp.asked == [["github", "linear"]]
    assert "- github: connected (3 tools)" in text and "- linear: connected" in text
    without = await _load(_runtime(tmp_path), "gh", tmp_path)
    assert "MCP is not available here" in without


async def test_missing_dependencies_refuse_a_load(tmp_path: Path) -> None:
    user = tmp_path / "data" / "skills" / "user"
    write_skill(user, "needs", skill_md("needs", extra="requires:\n  env: [NEEDED_VAR_XYZ]\n"))
    with pytest.raises(ToolError, match="missing dependencies: environment variable 'NEEDED_VAR_XYZ'"):
        await _load(_runtime(tmp_path), "needs", tmp_path)
    assert "# Demo" in await _load(_runtime(tmp_path, env={"NEEDED_VAR_XYZ": "1"}), "needs", tmp_path)


def test_resource_paths_refuse_links_escapes_and_specials(tmp_path: Path) -> None:
    pkg = write_skill(tmp_path, "pkg", files={"ref/a.md": b"A" * 100, "font.ttf": b"\x00\x01" * 10})
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, pkg / "link.txt")
    os.symlink(pkg / "ref", pkg / "reflink")
    for bad in (
        "../secret.txt",
        "/etc/passwd",
        "ref\\a.md",
        "link.txt",
        "reflink/a.md",
        "ref",
        "nope.md",
        "",
        "C:/x",
    ):
        with pytest.raises(ResourceError):
            resolve_package_file(pkg, bad)
    assert resolve_package_file(pkg, "./ref/a.md") == pkg / "ref" / "a.md"
    text = read_resource(pkg, "ref/a.md")  # whole: the tool pages it within the output budget
    assert text.text == "A" * 100 and not text.truncated and text.size == 100
    binary = read_resource(pkg, "font.ttf")
    assert binary.text is None and binary.size == 20 and len(binary.sha256) == 64


async def test_an_invalid_skill_says_why_and_an_unknown_one_offers_the_closest_names(tmp_path: Path) -> None:
    user = tmp_path / "data" / "skills" / "user"
    write_skill(user, "pdf-tools")
    write_skill(user, "broken", skill_md("broken", description=""))
    rt = _runtime(tmp_path)
    with pytest.raises(ToolError) as invalid:
        await _load(rt, "broken", tmp_path)
    assert "installed but invalid" in str(invalid.value) and "description" in str(invalid.value)
    assert str(tmp_path) not in str(invalid.value)
    with pytest.raises(ToolError) as unknown:
        await _load(rt, "pdf-tool", tmp_path)
    message = str(unknown.value)
    assert "No Skill named 'pdf-tool'" in message and "Closest names: pdf-tools" in message
    with pytest.raises(ToolError) as far:
        await _load(rt, "zzzz", tmp_path)
    assert "Closest" not in str(far.value)


@pytest.mark.parametrize(
    ("text", "rel", "named"),
    [
        ("run `eval-viewer/generate_review.py` now", "eval-viewer/generate_review.py", True),
        ("python ./tools/x.py.", "tools/x.py", True),
        ("see lib/tools.py", "tools.py", False),  # the tail of a longer path
        ("see tools.py.bak", "tools.py", False),  # the head of a longer name
        ("see tools.pyc", "tools.py", False),
        ("mytools.py", "tools.py", False),
        ("(tools.py)", "tools.py", True),
    ],
)
def test_a_file_counts_as_named_only_as_a_path_of_its_own(text: str, rel: str, named: bool) -> None:
    from app.skills.runnable import named_in

    assert named_in(text, rel) is named


def test_the_package_digest_covers_every_file_and_link(tmp_path: Path) -> None:
    from app.skills.runnable import package_digest

    files = {"scripts/a.py": b"a", "scripts/lib/h.py": b"h", ".hidden": b"x"}
    pkg = write_skill(tmp_path, "pkg", files=files)
    first = package_digest(pkg)
    assert package_digest(pkg) == first
    (pkg / "scripts" / "lib" / "h.py").write_bytes(b"h2")
    second = package_digest(pkg)
    assert second != first
    (pkg / ".hidden").write_bytes(b"y")
    assert package_digest(pkg) != second
    third = package_digest(pkg)
    os.symlink("a.py", pkg / "scripts" / "b.py")
    assert package_digest(pkg) != third


async def test_agent_skill_manage_reports_an_os_error_as_a_class_without_paths(tmp_path: Path) -> None:
    import errno

    from app.skills.manage_tool import AgentSkillManageTool, os_error_class

    agent_root = tmp_path / "data" / "skills" / "agent"
    agent_root.parent.mkdir(parents=True)
    agent_root.write_text("a file where the agent Skills folder should be")
    tool = AgentSkillManageTool(_runtime(tmp_path))
    ctx = ToolContext(workspace=tmp_path / "ws", chat_id="c", turn_id="t")
    draft = "---\nname: weekly\ndescription: Weekly report.\n---\n# Weekly\n"
    call = await tool.prepare({"action": "create", "content": draft}, ctx)
    with pytest.raises(ToolError) as caught:
        await tool.execute(call, ctx)
    message = str(caught.value)
    assert "Nothing was saved" in message and str(tmp_path) not in message and "/" not in message
    assert os_error_class(PermissionError(errno.EACCES, "denied", "/home/u/x")) == "permission_denied"
    assert os_error_class(OSError(errno.ENOSPC, "full", "/x")) == "disk_full"
    assert os_error_class(OSError(errno.EIO, "io")) == "os_error"
