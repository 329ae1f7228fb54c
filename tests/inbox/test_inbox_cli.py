"""`cashcode ask --wait` with no terminal: the question waits in the Inbox and `cashcode inbox`
from a second process answers it (issue 35 item 5). Real processes, the scripted LLM over HTTP,
one SQLite database."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode, env, fake_llm, home

__all__ = ["env", "fake_llm", "home"]

WAIT_S = 60.0  # a hang check, not a timing assertion
WRITE = {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]}


def _ask(env: dict[str, str], cwd: Path, *args: str) -> subprocess.Popen[str]:
    """`echo … | cashcode ask --wait …`: stdin is not a terminal."""
    piped = cwd.parent / "echoed.txt"
    piped.write_text("echoed input\n")
    with piped.open() as stdin:
        return subprocess.Popen(
            [sys.executable, "-m", "app", "ask", "--wait", *args, "write x"],
            env=env, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip


def _pending(env: dict[str, str], cwd: Path) -> list[dict[str, Any]]:
    """The Inbox as `cashcode inbox --json` prints it, once an item is there."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        shown = cashcode("inbox", "--json", env=env, cwd=cwd)
        assert shown.returncode == 0, shown.stderr
        items: list[dict[str, Any]] = json.loads(shown.stdout)
        if items:
            return items
        time.sleep(0.2)
    raise AssertionError("no Inbox item appeared")


def test_ask_wait_is_answered_from_another_process(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script(WRITE, {"text": "Wrote it."})
    asking = _ask(env, home / "ws")
    try:
        items = _pending(env, home / "ws")
        assert len(items) == 1
        item = items[0]
        assert item["kind"] == "approval" and item["who"] == "cashcode ask" and item["origin"] == "cli"
        assert item["tool"] == "write_file" and "x.txt" in item["summary"] and item["age"] >= 0
        assert not (home / "ws" / "x.txt").exists()
        approved = cashcode("inbox", "approve", item["id"][:8], env=env, cwd=home / "ws")
        assert approved.returncode == 0, approved.stderr
        out, err = asking.communicate(timeout=WAIT_S)
    finally:
        if asking.poll() is None:
            asking.kill()
    assert asking.returncode == 0, err
    assert out.endswith("Wrote it.\n") and "cashcode inbox approve" in err
    assert (home / "ws" / "x.txt").read_text() == "x"
    assert len(fake_llm.model_requests()) == 2
    # Answering again: exit 4 and who answered; an unknown id: exit 3. Nothing changes.
    again = cashcode("inbox", "deny", item["id"], env=env, cwd=home / "ws")
    assert again.returncode == 4 and "already answered" in again.stderr and "cli" in again.stderr
    unknown = cashcode("inbox", "approve", "no-such-id", env=env, cwd=home / "ws")
    assert unknown.returncode == 3 and "no Inbox item" in unknown.stderr
    listed = json.loads(cashcode("inbox", "--json", "--all", env=env, cwd=home / "ws").stdout)
    assert [(i["status"], i["answered_by"]) for i in listed] == [("answered", "cli")]


def test_ask_wait_denied_from_the_inbox_tells_the_model(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(WRITE, {"text": "I was not allowed."})
    asking = _ask(env, home / "ws")
    try:
        item = _pending(env, home / "ws")[0]
        denied = cashcode("inbox", "deny", item["id"], env=env, cwd=home / "ws")
        assert denied.returncode == 0, denied.stderr
        out, err = asking.communicate(timeout=WAIT_S)
    finally:
        if asking.poll() is None:
            asking.kill()
    assert asking.returncode == 0, err
    assert out.endswith("I was not allowed.\n")
    assert not (home / "ws" / "x.txt").exists()
    tool = next(m for m in fake_llm.model_requests()[1].body["messages"] if m["role"] == "tool")
    assert "denied" in tool["content"].lower()


def test_ask_wait_timeout_expires_the_item_and_stops_the_turn(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(WRITE, {"text": "never"})
    asking = _ask(env, home / "ws", "--wait-timeout", "1")
    out, err = asking.communicate(timeout=WAIT_S)
    assert asking.returncode != 0 and out == ""
    assert not (home / "ws" / "x.txt").exists()
    assert len(fake_llm.model_requests()) == 1  # stopped, not told "denied" and asked again
    listed = json.loads(cashcode("inbox", "--json", "--all", env=env, cwd=home / "ws").stdout)
    assert [(i["status"], i["answered_by"]) for i in listed] == [("expired", "timeout")]


def test_bad_inbox_usage_gets_a_clear_error(env: dict[str, str], home: Path) -> None:
    empty = cashcode("inbox", env=env, cwd=home / "ws")
    assert empty.returncode == 0 and "Nothing waits" in empty.stdout
    bad = cashcode("inbox", "answer", "x", "--field", "novalue", env=env, cwd=home / "ws")
    assert bad.returncode == 2 and "NAME=VALUE" in bad.stderr
    lone = cashcode("ask", "--wait-timeout", "5", "hi", env=env, cwd=home / "ws")
    assert lone.returncode == 1 and "--wait-timeout needs --wait" in lone.stderr


def test_the_item_of_a_killed_ask_is_no_longer_offered(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(WRITE, {"text": "never"})
    asking = _ask(env, home / "ws")
    try:
        item = _pending(env, home / "ws")[0]
    finally:
        asking.kill()
        asking.communicate(timeout=WAIT_S)
    assert json.loads(cashcode("inbox", "--json", env=env, cwd=home / "ws").stdout) == []
    listed = json.loads(cashcode("inbox", "--json", "--all", env=env, cwd=home / "ws").stdout)
    assert [(i["id"], i["status"]) for i in listed] == [(item["id"], "cancelled")]
    gone = cashcode("inbox", "approve", item["id"], env=env, cwd=home / "ws")
    assert gone.returncode == 3 and "no longer pending" in gone.stderr
    assert not (home / "ws" / "x.txt").exists()
