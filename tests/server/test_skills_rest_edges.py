"""The Skill REST API of a real `cashcode serve` (issue 40 items 7, 8, 9, 10, 12): diagnostics
without host paths, an unreadable root reported, a flat ZIP's stray root file refused, the
seed's status codes and list filters, `metadata` in the detail, blank tags refused."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.server.process import isolated_env, serve_process

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = "cashcode-skill-creator"


def _skill_md(name: str, *, extra: str = "", body: str = "Do the thing.") -> str:
    return f"---\nname: {name}\ndescription: The {name} Skill for tests.\n{extra}---\n# {name}\n\n{body}\n"


def _zip(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for rel, text in files.items():
            archive.writestr(rel, text)
    return out.getvalue()


def _upload(c: httpx.Client, data: bytes, filename: str) -> httpx.Response:
    return c.post(
        "/api/skills/import",
        params={"filename": filename},
        content=data,
        headers={"content-type": "application/zip"},
    )


def _names(c: httpx.Client, **query: str) -> list[str]:
    answer = c.get("/api/skills", params={"page_size": "200", **query})
    assert answer.status_code == 200, answer.text
    return [item["name"] for item in answer.json()["data"]["items"]]


def _invalid_skill(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: Not_Valid\ndescription: x\n---\nbody\n", encoding="utf-8")


@pytest.fixture
def served_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return isolated_env(tmp_path, {"HOME": str(home)})


def test_diagnostics_codes_filters_and_zip_layout_over_rest(
    tmp_path: Path, served_env: dict[str, str]
) -> None:
    data = Path(served_env["CASHCODE_DATA_DIR"])
    _invalid_skill(data / "skills" / "user" / "broken")
    _invalid_skill(Path(served_env["HOME"]) / ".agents" / "skills" / "bad-one")
    with (
        serve_process(["--no-open", "--port", "0"], served_env) as served,
        httpx.Client(base_url=served.base_url, headers=served.bearer, timeout=60) as c,
    ):
        # Item 7: relative to the Skills root, `~` for the home folder at most.
        listed = c.get("/api/skills").json()["data"]
        shown = {d["directory"]: d["path"] for d in listed["invalid"]}
        assert shown == {"broken": "broken", "bad-one": "~/.agents/skills/bad-one"}, shown
        assert str(tmp_path) not in str(listed)

        # Item 10: import 201, a built-in's name 409, a file not named .zip 422.
        alpha = _upload(c, _zip({"alpha/SKILL.md": _skill_md("alpha")}), "alpha.zip")
        assert alpha.status_code == 201, alpha.text
        taken = _upload(c, _zip({f"{BUILTIN}/SKILL.md": _skill_md(BUILTIN)}), "mine.zip")
        assert taken.status_code == 409, taken.text
        not_zip = _upload(c, _zip({"x/SKILL.md": _skill_md("x")}), "notes.txt")
        assert not_zip.status_code == 422, not_zip.text

        # Item 9: a flat ZIP's root file SKILL.md never names is refused like the wrapped form;
        # one it names (reference.md) stays.
        stray = _upload(c, _zip({"SKILL.md": _skill_md("beta"), "notes.txt": "stray"}), "beta.zip")
        assert stray.status_code == 422 and "notes.txt" in stray.json()["error"]["message"], stray.text
        assert c.get("/api/skills/beta").status_code == 404
        assert not (data / "skills" / "user" / "beta").exists()
        named = _zip(
            {
                "SKILL.md": _skill_md("gamma", extra="metadata:\n  author: Ada\n", body="See reference.md."),
                "reference.md": "# Reference\n",
            }
        )
        assert _upload(c, named, "gamma.zip").status_code == 201
        assert (data / "skills" / "user" / "gamma" / "reference.md").is_file()

        # Item 12: the `metadata` mapping in the detail; a blank tag is refused.
        assert c.get("/api/skills/gamma").json()["data"]["metadata"] == {"author": "Ada"}
        blank = _upload(c, _zip({"SKILL.md": _skill_md("delta", extra='tags: [""]\n')}), "delta.zip")
        assert blank.status_code in (400, 422) and "tags" in blank.text, blank.text
        assert c.get("/api/skills/delta").status_code == 404

        # Item 10: ?enabled= and ?availability= filter the list.
        needs = _skill_md("needs-bin", extra="requires:\n  bins: [no-such-program-cc40]\n")
        assert _upload(c, _zip({"SKILL.md": needs}), "needs.zip").status_code == 201
        assert c.patch("/api/skills/alpha/enabled", json={"enabled": False}).status_code == 200
        assert _names(c, enabled="false") == ["alpha"]
        assert "alpha" not in _names(c, enabled="true") and "gamma" in _names(c, enabled="true")
        assert sorted(_names(c, availability="unavailable")) == ["alpha", "needs-bin"]
        assert _names(c, enabled="true", availability="unavailable") == ["needs-bin"]
        available = _names(c, availability="available")
        assert BUILTIN in available and "alpha" not in available and "needs-bin" not in available
        assert c.get("/api/skills", params={"availability": "maybe"}).status_code == 422

        # Item 10: delete answers 204 with no body.
        deleted = c.delete("/api/skills/alpha")
        assert deleted.status_code == 204 and deleted.content == b""
        assert c.get("/api/skills/alpha").status_code == 404


def _no_dac_override() -> list[str] | None:
    """A prefix that runs a command as root without the capabilities that bypass file modes,
    so `chmod 000` holds as for a normal user (the tests run as root; `runuser -u nobody`
    cannot reach this Python, which lives under /root)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


def test_an_unreadable_skills_root_is_a_diagnostic_not_silence(tmp_path: Path) -> None:
    prefix = _no_dac_override()
    if prefix is None:
        pytest.skip("needs root and setpriv to drop the file-permission override")
    home = tmp_path / "home"
    root = home / ".agents" / "skills"
    (root / "hidden-one").mkdir(parents=True)
    (root / "hidden-one" / "SKILL.md").write_text(_skill_md("hidden-one"), encoding="utf-8")
    env: dict[str, Any] = {
        **os.environ,
        "CASHCODE_DATA_DIR": str(tmp_path / "data"),
        "HOME": str(home),
        "WORKSPACE_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    code = "from app.cli.skills_cmd import main; raise SystemExit(main(['list']))"
    os.chmod(root, 0)
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", code],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.chmod(root, 0o755)
    assert done.returncode == 0, done.stderr
    assert "hidden-one" not in done.stdout  # it cannot be read, so it is not listed …
    assert "external/skills: The Skills folder cannot be read (permission denied)" in done.stdout, done.stdout
