"""`cashcode agents list|show|add|edit|remove` and `--agent` on `ask`, `chat` and `tasks add`,
in real subprocesses against the scripted LLM (the exact syntax of issue 38)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode, env, fake_llm, home

__all__ = ["env", "fake_llm", "home"]


def _system(fake_llm: Any, index: int = -1) -> str:
    content: str = fake_llm.model_requests()[index].body["messages"][0]["content"]
    return content


def _owners(home: Path) -> list[str]:
    """The agents chats belong to, read from the real database (a chat without a row: default)."""
    with contextlib.closing(sqlite3.connect(home / "data" / "cashcode.sqlite3")) as db:
        return [r[0] for r in db.execute("SELECT agent_id FROM agent_chats ORDER BY assigned_at")]


def test_agents_add_list_show_edit_remove(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    ws = home / "ws"
    added = cashcode(
        "agents", "add", "reviewer", "--persona", "You are REVIEWER-PERSONA.", "--skills", "pdf-tools,lint",
        "--mcp", "test_stdio_mcp", "--kb", "", "--approval-mode", "read_only", env=env, cwd=ws,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = json.loads(cashcode("agents", "list", "--json", env=env, cwd=ws).stdout)
    assert [a["spec"]["name"] for a in listed] == ["default", "reviewer"]
    spec = listed[1]["spec"]
    assert spec["skills"] == ["pdf-tools", "lint"] and spec["mcp_servers"] == ["test_stdio_mcp"]
    assert spec["knowledge_bases"] == [] and spec["tools"] is None and spec["approval_mode"] == "read_only"

    again = cashcode("agents", "add", "Reviewer", "--persona", "x", env=env, cwd=ws)
    assert again.returncode == 1 and "already exists" in again.stderr
    bad = cashcode("agents", "add", "x", "--persona", "x", "--skills", "Not A Name", env=env, cwd=ws)
    assert bad.returncode == 1 and "not a valid Skill name" in bad.stderr
    assert len(json.loads(cashcode("agents", "list", "--json", env=env, cwd=ws).stdout)) == 2

    edited = cashcode("agents", "edit", "reviewer", "--skills", "all", "--rename", "critic", env=env, cwd=ws)
    assert edited.returncode == 0, edited.stderr
    shown = json.loads(cashcode("agents", "show", "critic", "--json", env=env, cwd=ws).stdout)
    assert shown["spec"]["skills"] is None and shown["spec"]["persona"] == "You are REVIEWER-PERSONA."
    assert "REVIEWER-PERSONA" in cashcode("agents", "show", "critic", env=env, cwd=ws).stdout
    fixed = cashcode("agents", "edit", "default", "--persona", "x", env=env, cwd=ws)
    assert fixed.returncode == 1 and "default agent" in fixed.stderr

    fake_llm.script({"text": "As the critic."})
    asked = cashcode("ask", "--agent", "critic", "hello", env=env, cwd=ws)
    assert (asked.returncode, asked.stdout) == (0, "As the critic.\n"), asked.stderr
    assert _system(fake_llm).startswith("You are REVIEWER-PERSONA.")
    assert _owners(home) == [shown["id"]]  # the reserved chat was stored with its agent

    fake_llm.script({"text": "In chat."})
    chatted = cashcode("chat", "--agent", "critic", env=env, cwd=ws, stdin="hi\n")
    assert chatted.returncode == 0, chatted.stderr
    assert _system(fake_llm).startswith("You are REVIEWER-PERSONA.")

    missing = cashcode("ask", "--agent", "nobody", "hello", env=env, cwd=ws)
    assert missing.returncode == 1 and "no agent named 'nobody'" in missing.stderr

    task = cashcode(
        "tasks", "add", "t", "--prompt", "Go", "--daily", "07:30", "--agent", "critic", env=env, cwd=ws
    )
    assert task.returncode == 0, task.stderr
    assert (
        json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)[0]["agent_id"] == shown["id"]
    )
    # `tasks edit` (issue 35) keeps the task's agent while it changes what it was told to.
    kept = cashcode("tasks", "edit", "t", "--wait-for-answers", "60", env=env, cwd=ws)
    assert kept.returncode == 0, kept.stderr
    edited_task = json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)[0]
    assert (edited_task["agent_id"], edited_task["wait_for_answers_s"]) == (shown["id"], 60)
    fake_llm.script({"text": "Task done."})
    ran = cashcode("tasks", "run", "t", env=env, cwd=ws)
    assert ran.returncode == 0, ran.stderr
    assert _system(fake_llm).startswith("You are REVIEWER-PERSONA.")

    removed = cashcode("agents", "remove", "critic", env=env, cwd=ws)
    assert removed.returncode == 0, removed.stderr
    assert [a["id"] for a in json.loads(cashcode("agents", "list", "--json", env=env, cwd=ws).stdout)] == [
        "default"
    ]
    assert _owners(home) == []  # its chats went back to the default agent (no row: default)


def test_ask_and_chat_with_an_agent_use_its_model_unless_a_flag_says_otherwise(
    home: Path, fake_llm: Any
) -> None:
    """`--agent NAME` sends the agent's default provider and model (read in the request log);
    an explicit --model or --provider still wins."""
    from tests.cli.conftest import VALID_KEY, base_env

    env = base_env(home)  # no OPENAI_* variables: the saved providers decide
    ws = home / "ws"
    for name, temperature in (("Plain", "0.9"), ("Agentish", "0.2")):
        added = cashcode(
            "config", "provider", "add", "--name", name, "--kind", "chat_completions",
            "--base-url", fake_llm.openai_base_url, "--model", "fake-model", "--temperature", temperature,
            env=env, cwd=ws, stdin=VALID_KEY + "\n",
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
    made = cashcode(
        "agents", "add", "coder", "--persona", "You code.", "--model", "fake-tools", "--provider", "Agentish",
        env=env, cwd=ws,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr

    def sent() -> tuple[str, float]:
        body = fake_llm.model_requests()[-1].body
        return body["model"], body["temperature"]

    fake_llm.script({"text": "plain"})
    assert cashcode("ask", "--provider", "Plain", "hi", env=env, cwd=ws).returncode == 0
    assert sent() == ("fake-model", 0.9)  # the CLI's own choice, for comparison

    fake_llm.script({"text": "as the agent"})
    asked = cashcode("ask", "--agent", "coder", "hi", env=env, cwd=ws)
    assert (asked.returncode, asked.stdout) == (0, "as the agent\n"), asked.stderr
    assert sent() == ("fake-tools", 0.2)

    fake_llm.script({"text": "in chat"})
    chatted = cashcode("chat", "--agent", "coder", env=env, cwd=ws, stdin="hi\n")
    assert chatted.returncode == 0, chatted.stderr
    assert sent() == ("fake-tools", 0.2)
    assert "fake-tools" in chatted.stderr  # the banner names the model in use

    fake_llm.script({"text": "flag model"})
    flagged = cashcode("ask", "--agent", "coder", "--model", "fake-vision", "hi", env=env, cwd=ws)
    assert flagged.returncode == 0, flagged.stderr
    assert sent() == ("fake-vision", 0.2)  # the agent's provider, the flag's model

    fake_llm.script({"text": "flag provider"})
    assert cashcode("ask", "--agent", "coder", "--provider", "Plain", "hi", env=env, cwd=ws).returncode == 0
    assert sent() == ("fake-model", 0.9)  # the flag's provider and its own model
