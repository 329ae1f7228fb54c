"""Scripted fake LLM server (OpenAI Chat Completions, Responses, /v1/models, Ollama native).

    with FakeLLMServer() as server:
        server.script({"text": "Hello", "chunk_size": 2}, {"error": 429, "retry_after": 0})
        ... point a client at server.openai_base_url (or server.base_url for Ollama) ...
        assert server.requests[0].body["model"] == "fake-model"

Run as a process: `python -m app.testing.fake_llm --port 0 --print-port [--script FILE.json]`.
"""

from app.testing.fake_llm.script import ScriptedToolCall, ScriptedUsage, Step, parse_steps
from app.testing.fake_llm.server import FakeLLMServer
from app.testing.fake_llm.state import DEFAULT_TEXT, FakeLLMConfig, RecordedRequest, key_id

__all__ = [
    "DEFAULT_TEXT",
    "FakeLLMConfig",
    "FakeLLMServer",
    "RecordedRequest",
    "ScriptedToolCall",
    "ScriptedUsage",
    "Step",
    "key_id",
    "parse_steps",
]
