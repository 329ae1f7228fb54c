"""A long streamed Markdown answer leaves the terminal's scrollback holding it once (issue 41
major 3): `ask` and `chat` on a real pty of 24 rows, the whole buffer (scrollback + screen) read
with the `pyte` terminal emulator. Before, the live re-render of an answer taller than the
screen printed the whole answer again on every refresh: 8-9 copies of its beginning."""

from __future__ import annotations

import subprocess
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from tests.cli.pty_app import on_pty
from tests.cli.test_chat_line_editing import READY, Terminal

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX-only")
pyte = pytest.importorskip("pyte")

ROWS, COLUMNS = 24, 80
FIRST = "Streamed answer FIRSTLINE"


def _answer() -> str:
    """100 lines of Markdown: a heading, paragraphs, a long list, a code block and a table."""
    lines = [f"# {FIRST}", ""]
    for i in range(1, 21):
        lines += [f"Paragraph {i} says a few words about item {i}.", ""]
    lines += [f"- list entry {i}" for i in range(1, 31)]
    lines += ["", "```python", *[f"value_{i} = {i}" for i in range(1, 21)], "```", ""]
    lines += ["| name | value |", "|---|---|", *[f"| row {i} | {i} |" for i in range(1, 7)]]
    lines += ["", "LAST-LINE-MARK ends the answer."]
    assert len(lines) >= 100
    return "\n".join(lines) + "\n"


def _spawn(
    args: list[str], env: dict[str, str], cwd: Path
) -> AbstractContextManager[tuple[subprocess.Popen[bytes], Terminal]]:
    clean = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    return on_pty(args, {**clean, "TERM": "xterm-256color"}, cwd, size=(ROWS, COLUMNS))


def _whole_buffer(data: bytes) -> list[str]:
    """Every line the terminal holds: its scrollback, then the screen."""
    screen = pyte.HistoryScreen(COLUMNS, ROWS, history=100_000, ratio=0.5)
    stream = pyte.ByteStream(screen)
    stream.feed(data)
    top = ["".join(line[x].data for x in range(COLUMNS)) for line in screen.history.top]
    return [line.rstrip() for line in (*top, *screen.display)]


def _check(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert sum(FIRST in line for line in lines) == 1, text
    assert sum("LAST-LINE-MARK" in line for line in lines) == 1, text
    for i in (1, 20):  # every block is there, once
        assert sum(f"Paragraph {i} says" in line for line in lines) == 1, text
    assert sum("list entry 30" in line for line in lines) == 1
    assert sum("value_20 = 20" in line for line in lines) == 1
    assert sum("row 6" in line for line in lines) == 1
    assert "```" not in text and "# Streamed" not in text  # rendered, not raw


@pytest.mark.timeout(180)
def test_ask_leaves_a_long_streamed_answer_once_in_the_scrollback(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": _answer(), "chunk_size": 24, "delay_s": 0.01})
    with _spawn(["ask", "write a long answer"], env, home / "ws") as (proc, term):
        assert proc.wait(timeout=120) == 0, term.output[-2000:]
        term.wait_for(b"LAST-LINE-MARK", 0)
    _check(_whole_buffer(term.output))


@pytest.mark.timeout(180)
def test_chat_leaves_a_long_streamed_answer_once_in_the_scrollback(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": _answer(), "chunk_size": 24, "delay_s": 0.01})
    with _spawn(["chat"], env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"write a long answer\r")
        at = term.wait_for(b"LAST-LINE-MARK", at, limit=120)
        term.wait_for(READY, at)
        term.type(b"/exit\r")
        assert proc.wait(timeout=30) == 0
    _check(_whole_buffer(term.output))
