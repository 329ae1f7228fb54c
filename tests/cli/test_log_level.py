"""`--log-level` / CASHCODE_LOG_LEVEL: JSON lines on stderr and in the rotating log file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import VALID_KEY, cashcode


def test_debug_logs_are_json_lines_without_the_prompt_or_the_key(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": "REPLY-LOG-123"})
    result = cashcode("--log-level", "debug", "ask", "PROMPT-LOG-456", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "REPLY-LOG-123\n"
    stderr_lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert stderr_lines and {r["level"] for r in stderr_lines} <= {"DEBUG", "INFO", "WARNING", "ERROR"}
    file_text = (home / "logs" / "cashcode.log").read_text(encoding="utf-8")
    assert file_text.strip()
    for text in (result.stderr, file_text):
        assert "PROMPT-LOG-456" not in text and "REPLY-LOG-123" not in text and VALID_KEY not in text


def test_the_default_level_keeps_stderr_quiet_and_bad_levels_exit_2(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": "ok"})
    quiet = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert (quiet.returncode, quiet.stderr) == (0, "")
    env["CASHCODE_LOG_LEVEL"] = "LOUD"
    bad = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert (
        bad.returncode == 2 and "CASHCODE_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR" in bad.stderr
    )
    flag = cashcode("--log-level=verbose", "traces", "list", env=env, cwd=home / "ws")
    assert flag.returncode == 2 and "--log-level must be one of" in flag.stderr
