"""Issue 40 item 6: `.cashcode/config.yaml` through `cashcode config show` (a subprocess): an
unknown setting lists the known ones, a key given twice is refused, and only settings *named*
as secrets count as secrets (`monkey` is an unknown setting, not a key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import cashcode

KNOWN = "api_mode, base_url, max_iterations, model, stream"


def _show(env: dict[str, str], home: Path, yaml_text: str) -> tuple[int, str, str]:
    (home / "ws" / ".cashcode").mkdir(exist_ok=True)
    (home / "ws" / ".cashcode" / "config.yaml").write_text(yaml_text)
    result = cashcode("config", "show", env=env, cwd=home / "ws")
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("yaml_text", "said"),
    [
        ("colour: blue\n", f"unknown settings (colour); the known ones are: {KNOWN}"),
        ("monkey: banana\n", f"unknown settings (monkey); the known ones are: {KNOWN}"),
        ("model: first\nstream: true\nmodel: second\n", "the key 'model' is given twice"),
        ("apiKey: abc\n", "apiKey: secrets are not allowed"),
        ("auth_token: abc\n", "auth_token: secrets are not allowed"),
    ],
)
def test_the_workspace_file_is_refused_with_a_reason(
    env: dict[str, str], home: Path, yaml_text: str, said: str
) -> None:
    code, out, err = _show(env, home, yaml_text)
    assert code == 1 and out == ""
    assert err.startswith("cashcode: error:") and said in " ".join(err.split())
    assert "abc" not in err and "banana" not in err  # values are never echoed


def test_a_valid_workspace_file_is_used(env: dict[str, str], home: Path) -> None:
    code, out, err = _show(env, home, "max_iterations: 7\n")
    assert code == 0, err
    assert "max_iterations: 7  (" in out
