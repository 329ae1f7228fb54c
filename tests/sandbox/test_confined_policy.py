"""The workspace policy through the one entry point (app/tools/confined.py run_confined): the
listed secrets and the app's folders stay unreadable even when the workspace contains them, a
Skill's folder inside the app's data folder is readable without the rest of it, symlinks are
checked where they point, and a workspace inside a private folder refuses to start."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from app.contracts.tools import SandboxSpec, ToolContext, ToolError
from app.sandbox.policy import path_folders
from app.sandbox.probe import landlock_abi
from app.sandbox.secrets import never_readable
from app.tools.confined import run_confined

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or landlock_abi({})[0] < 1, reason="needs Landlock"
)


def _run(ctx: ToolContext, script: str, *, readable: tuple[Path, ...] = ()) -> tuple[int | None, str]:
    async def go() -> tuple[int | None, str]:
        outcome = await run_confined(
            ["/bin/sh", "-c", script],
            cwd=ctx.workspace,
            env={"PATH": "/usr/bin:/bin"},
            timeout=30,
            cap=65536,
            ctx=ctx,
            readable=readable,
        )
        return outcome.returncode, (outcome.stdout.data + outcome.stderr.data).decode()

    return asyncio.run(go())


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home folder that is also the workspace, with secrets and the app's data inside."""
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_ed25519").write_text("SSH-SECRET\n")
    (h / ".local" / "share" / "keyrings").mkdir(parents=True)
    (h / ".local" / "share" / "keyrings" / "login.keyring").write_text("KEYRING-SECRET\n")
    (h / ".local" / "share" / "other.txt").write_text("plain\n")
    data = h / ".local" / "share" / "CashCode"
    (data / "skills" / "user" / "tool").mkdir(parents=True)
    (data / "skills" / "user" / "tool" / "run.sh").write_text("echo skill-ran\n")
    (data / "cashcode.sqlite3").write_text("SQLite format 3 DB-SECRET\n")
    (h / "project").mkdir()
    (h / "project" / "notes.txt").write_text("notes\n")
    return h


def _ctx(home: Path, workspace: Path | None = None) -> ToolContext:
    hidden = never_readable(home, {}, (home / ".local" / "share" / "CashCode",))
    return ToolContext(workspace=workspace or home, sandbox=SandboxSpec(True, "Landlock", hidden=hidden))


def test_a_workspace_that_is_home_keeps_the_secrets_and_the_app_data_out(home: Path) -> None:
    code, out = _run(
        _ctx(home),
        "cat .ssh/id_ed25519 .local/share/keyrings/login.keyring .local/share/CashCode/cashcode.sqlite3; "
        "cat project/notes.txt .local/share/other.txt; echo more >> project/notes.txt; "
        "ls .ssh; echo x > .ssh/authorized_keys",
    )
    assert "SSH-SECRET" not in out and "KEYRING-SECRET" not in out and "DB-SECRET" not in out
    assert "notes\n" in out and "plain\n" in out
    assert (home / "project" / "notes.txt").read_text() == "notes\nmore\n"  # the rest stays writable
    assert not (home / ".ssh" / "authorized_keys").exists()
    assert out.count("Permission denied") >= 5, out


def test_a_skill_folder_inside_the_app_data_is_readable_without_the_rest(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    skill = home / ".local" / "share" / "CashCode" / "skills" / "user" / "tool"
    code, out = _run(
        _ctx(home, ws), f"sh {skill}/run.sh; cat {skill}/../../../cashcode.sqlite3", readable=(skill,)
    )
    assert "skill-ran" in out
    assert "DB-SECRET" not in out and "Permission denied" in out


def test_symlinks_are_checked_where_they_point(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("OUTSIDE-DATA\n")
    (ws / "out").symlink_to(outside)
    (ws / "key").symlink_to(home / ".ssh" / "id_ed25519")
    code, out = _run(_ctx(home, ws), "cat out/data.txt key; echo x > out/new.txt; ln -s /etc/passwd ok-link")
    assert "OUTSIDE-DATA" not in out and "SSH-SECRET" not in out
    assert not (outside / "new.txt").exists()
    assert (ws / "ok-link").is_symlink()  # making a symlink in the workspace is ordinary work


def test_a_workspace_inside_a_private_folder_refuses_to_start(home: Path) -> None:
    with pytest.raises(ToolError, match="could not start.*keeps private"):
        _run(_ctx(home, home / ".local" / "share" / "CashCode"), "true")


def test_an_unavailable_sandbox_never_runs_the_program(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, sandbox=SandboxSpec(False, "disabled by CASHCODE_SANDBOX"))
    with pytest.raises(ToolError, match="not available: disabled by CASHCODE_SANDBOX"):
        _run(ctx, "touch ran")
    assert not (tmp_path / "ran").exists()


def test_a_version_manager_shim_on_path_runs_its_tool_in_the_sandbox(home: Path, tmp_path: Path) -> None:
    """A pyenv-style shim (`~/.pyenv/shims/tool` running `~/.pyenv/versions/…`) works confined:
    the manager's folder is readable with its shims folder on PATH; its secrets beside it are not."""
    manager = tmp_path / "mgr" / ".pyenv"
    real = manager / "versions" / "3.11" / "bin"
    real.mkdir(parents=True)
    (real / "tool").write_text("#!/bin/sh\necho real-tool-ran\n")
    (real / "tool").chmod(0o755)
    (manager / "shims").mkdir()
    (manager / "shims" / "tool").write_text(f"#!/bin/sh\nexec {real}/tool \"$@\"\n")
    (manager / "shims" / "tool").chmod(0o755)
    ctx = _ctx(home, home / "project")

    async def go(path: str) -> tuple[int | None, str]:
        outcome = await run_confined(
            ["tool"], cwd=ctx.workspace, env={"PATH": path}, timeout=30, cap=65536, ctx=ctx
        )
        return outcome.returncode, (outcome.stdout.data + outcome.stderr.data).decode()

    code, out = asyncio.run(go(f"{manager / 'shims'}:/usr/bin:/bin"))
    assert (code, out.strip()) == (0, "real-tool-ran")
    assert path_folders(f"{manager / 'shims'}:/usr/bin") == (manager / "shims", manager, Path("/usr/bin"))
