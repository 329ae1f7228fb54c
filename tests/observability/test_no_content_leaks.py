"""Acceptance (issue 13): after chats with tools, errors and approvals, no trace row and no log
line contains a prompt, a reply, a tool argument, a tool result, an approval text or a secret."""

from __future__ import annotations

import base64
import json
import logging
import sys
import urllib.parse
from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired
from app.observability.logs import MASK
from app.settings.secrets import SecretStore, provider_key_name
from tests.api.conftest import VALID_KEY, AppMaker, Recorder, add_provider, ok, send
from tests.observability.conftest import CapturedLogs

PROMPTS = ("PROMPT-read-4411", "PROMPT-write-4412", "PROMPT-exec-4413", "PROMPT-fail-4414")
REPLIES = ("REPLY-first-5511", "REPLY-second-5512", "REPLY-third-5513")
TOOL_ARGS = ("ARG-path-6611.txt", "ARG-content-6612", "ARG-exec-6613", "ARG-missing-6614.txt")
TOOL_RESULT = "RESULT-file-7711"
SECRET_VALUE = "stored-secret-value-8811"
COOKIE_VALUE = "cookie-session-value-3321"
PASSWORD = "url-password-value-4432"
SECRET_B64_LINE = f"key={SECRET_VALUE}\n".encode()  # as `echo key=$SECRET | base64` prints it


async def _answer(app: Any, events: Recorder, turn_id: str, decision: str) -> None:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    pending = [e for e in events.of(ApprovalRequired) if e.turn_id == turn_id]
    await ok(app, "chat.approve", {"approval_id": pending[0].approval_id, "decision": decision})


async def test_traces_and_logs_carry_no_content_and_no_secrets(
    make_app: AppMaker,
    fake_llm: Any,
    workspace: Path,
    secrets: SecretStore,
    captured_logs: CapturedLogs,
) -> None:
    (workspace / TOOL_ARGS[0]).write_text(TOOL_RESULT)
    app, events = await make_app(
        env={"CASHCODE_INPUT_COST_PER_MILLION": "1", "CASHCODE_OUTPUT_COST_PER_MILLION": "1"}
    )
    pid = await add_provider(app, fake_llm, "chat_completions")
    secrets.set(provider_key_name("other"), SECRET_VALUE)
    from app.settings.user_settings import ProviderProfile

    app.ctx.settings._store.update(
        lambda s: s.with_provider(
            ProviderProfile(id="other", name="Other", kind="responses", base_url="http://127.0.0.1:9/v1")
        )
    )
    obs = next(c for c in app.capabilities if c.name == "observability")
    await obs.start()  # long-lived surfaces learn the stored keys for redaction

    fake_llm.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": TOOL_ARGS[0]}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": TOOL_ARGS[3]}}]},
        {"text": REPLIES[0]},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "w.txt", "content": TOOL_ARGS[1]}}]},
        {"text": REPLIES[1]},
        {
            "tool_calls": [
                {"name": "exec", "arguments": {"argv": [sys.executable, "-c", f"print('{TOOL_ARGS[2]}')"]}}
            ]
        },
        {"text": REPLIES[2]},
        {"error": 500, "error_message": "upstream broke"},
        {"error": 500, "error_message": "upstream broke"},
        {"error": 500, "error_message": "upstream broke"},
        {"error": 500, "error_message": "upstream broke"},
    )
    chat = (await ok(app, "chats.create"))["id"]
    assert (await events.turn_end(await send(app, chat, PROMPTS[0], pid))).type == "turn_done"
    turn = await send(app, chat, PROMPTS[1], pid)
    await _answer(app, events, turn, "once")
    assert (await events.turn_end(turn)).type == "turn_done"
    turn = await send(app, chat, PROMPTS[2], pid)
    await _answer(app, events, turn, "deny")
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (await events.turn_end(await send(app, chat, PROMPTS[3], pid), 30)).type == "turn_failed"
    # Code that logs a secret or a key-looking token by mistake is masked too.
    logging.getLogger("tests.careless").warning(
        "calling with %s and Authorization: Bearer abc.def-123 and %s", VALID_KEY, SECRET_VALUE
    )
    careless = logging.getLogger("tests.careless")
    careless.warning("sent Cookie: cashcode_session=%s; theme=dark", COOKIE_VALUE)
    careless.warning("form cookie=%s password=%s", COOKIE_VALUE, PASSWORD)
    careless.warning("fetching https://user:%s@example.invalid/x", PASSWORD)
    careless.warning("a child printed %s", base64.b64encode(SECRET_B64_LINE).decode())
    careless.warning("a child printed %s", urllib.parse.quote(SECRET_VALUE + "/&", safe=""))
    try:
        raise RuntimeError(f"failed with {VALID_KEY}")
    except RuntimeError:
        logging.getLogger("tests.careless").exception("boom")

    rows = app.ctx.db.query("SELECT * FROM traces")
    assert len(rows) == 4
    trace_text = json.dumps([dict(r) for r in rows])
    log_lines = captured_logs.lines()
    assert any("tests.careless" in line for line in log_lines)
    assert any(MASK in line for line in log_lines)
    for line in log_lines:
        json.loads(line)  # structured: one JSON object per line
    assert '"write_file"' in trace_text or "write_file" in trace_text  # names are kept
    secret_b64 = base64.b64encode(SECRET_B64_LINE).decode()[8:-8]  # the part only the secret makes
    forbidden = (
        *(PROMPTS + REPLIES + TOOL_ARGS),
        *(TOOL_RESULT, VALID_KEY, SECRET_VALUE, "abc.def-123", COOKIE_VALUE, PASSWORD, secret_b64),
    )
    for needle in forbidden:
        assert needle not in trace_text, needle
        leaking = [line for line in log_lines if needle in line]
        assert leaking == [], (needle, leaking[:2])
