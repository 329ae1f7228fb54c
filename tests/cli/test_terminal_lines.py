from __future__ import annotations

import asyncio
import os

from app.cli.terminal import StdinLines


async def test_lines_are_split_and_eof_is_none() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"first\r\nsecond\nlast without newline")
    os.close(write_fd)
    lines = StdinLines(read_fd)
    assert [await lines.readline() for _ in range(4)] == ["first", "second", "last without newline", None]
    os.close(read_fd)


async def test_a_read_cancelled_while_waiting_keeps_its_data_for_the_next_call() -> None:
    read_fd, write_fd = os.pipe()
    lines = StdinLines(read_fd)
    waiting = asyncio.ensure_future(lines.readline())
    await asyncio.sleep(0)  # let the read start
    waiting.cancel()
    os.write(write_fd, b"typed later\n")
    os.close(write_fd)
    async with asyncio.timeout(5):
        assert await lines.readline() == "typed later"
    os.close(read_fd)
