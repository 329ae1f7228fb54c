"""The fake server as a plain ASGI app: routing, auth, recording, scripted answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple

from pydantic import ValidationError

from app.testing.fake_llm import embeddings, errors, quirks, wire_chat, wire_ollama, wire_responses
from app.testing.fake_llm.one_slot import OneSlot
from app.testing.fake_llm.replies import JsonReply, Receive, Reply, Send, StreamReply, send_json, send_stream
from app.testing.fake_llm.script import Step, WireChunk, cut_with_error, parse_steps
from app.testing.fake_llm.state import FakeState, RecordedRequest, key_id

_SSE = "text/event-stream"
_NDJSON = "application/x-ndjson"
# Ollama's /v1 ignores the key; its clients send this placeholder, so it always passes.
OLLAMA_KEY = "ollama"
MODEL_PATHS = frozenset({"/v1/chat/completions", "/v1/responses", "/api/chat"})


@dataclass(frozen=True)
class Incoming:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    key: str | None
    rec: int = -1  # index in the recorded requests


Handler = Callable[["FakeLLMApp", Incoming], Reply]


class FakeLLMApp:
    def __init__(self, state: FakeState) -> None:
        self.state = state
        self._slot = OneSlot() if state.config.one_slot else None
        self._routes: dict[tuple[str, str], Handler] = {
            ("POST", "/v1/chat/completions"): FakeLLMApp._chat,
            ("POST", "/v1/responses"): FakeLLMApp._responses,
            ("GET", "/v1/models"): FakeLLMApp._models,
            ("GET", "/"): lambda _s, _r: JsonReply(200, "Ollama is running"),
            ("GET", "/api/version"): lambda _s, _r: JsonReply(200, {"version": "0.13.3"}),
            ("GET", "/api/tags"): FakeLLMApp._tags,
            ("POST", "/api/show"): FakeLLMApp._show,
            ("POST", "/api/chat"): FakeLLMApp._ollama_chat,
            ("POST", "/v1/embeddings"): FakeLLMApp._embeddings,
            ("POST", "/api/embed"): FakeLLMApp._ollama_embed,
        }

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        incoming = _parse(scope, await _read_body(receive))
        if incoming.path.startswith("/_control/"):
            await send_json(self._control(incoming), send)
            return
        rec = self.state.record(_record(incoming, self.state))
        incoming = replace(incoming, rec=rec)
        handler = self._routes.get((incoming.method, incoming.path))
        if handler is None:
            reply: Reply = errors.openai_error(404, f"Unknown path {incoming.method} {incoming.path}")
        elif incoming.path.startswith("/v1/") and (auth := self._check_key(incoming)) is not None:
            reply = auth
        elif (refused := quirks.refusal(self.state.config.quirks, incoming.path, incoming.body)) is not None:
            reply = refused  # a quirky server's refusal takes no scripted step
        else:
            reply = handler(self, incoming)
        slot = self._slot if incoming.path in MODEL_PATHS else None
        cut = slot.begin(rec) if slot is not None else None
        try:
            if isinstance(reply, JsonReply):
                self.state.update(rec, status=reply.status)
                await send_json(reply, send)
                self.state.update(rec, completed=True)
            else:
                self.state.update(rec, status=200)
                await send_stream(reply, send, receive, self.state, rec, cut=cut)
        finally:
            if slot is not None:
                slot.end(rec)

    # ---- auth and models -----------------------------------------------------------------

    def _check_key(self, req: Incoming) -> JsonReply | None:
        if not req.key:
            return errors.openai_error(401, "You didn't provide an API key.", "invalid_api_key")
        valid = self.state.config.valid_keys
        if valid is not None and req.key not in valid and req.key != OLLAMA_KEY:
            # Echo the key like a careless server would: clients must never surface it.
            return errors.openai_error(401, f"Incorrect API key provided: {req.key}.", "invalid_api_key")
        return None

    def _known(self, model: object) -> bool:
        return isinstance(model, str) and model in self.state.config.models

    # ---- embeddings (deterministic vectors: app/testing/fake_llm/embeddings.py) ---------------

    def _embeddings(self, req: Incoming) -> Reply:
        texts = embeddings.inputs(req.body)
        model = req.body.get("model") if isinstance(req.body, dict) else None
        if texts is None or not isinstance(model, str):
            return errors.openai_error(
                400, "'model' and 'input' (a string or a list of strings) are required."
            )
        data = [
            {"object": "embedding", "index": i, "embedding": embeddings.fake_embedding(t)}
            for i, t in enumerate(texts)
        ]
        tokens = sum(len(t.split()) for t in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return JsonReply(200, {"object": "list", "data": data, "model": model, "usage": usage})

    def _ollama_embed(self, req: Incoming) -> Reply:
        texts = embeddings.inputs(req.body)
        model = req.body.get("model") if isinstance(req.body, dict) else None
        if texts is None or not isinstance(model, str):
            return JsonReply(400, {"error": "model and input are required"})
        return JsonReply(200, {"model": model, "embeddings": [embeddings.fake_embedding(t) for t in texts]})

    # ---- OpenAI-compatible -----------------------------------------------------------------

    def _chat(self, req: Incoming) -> Reply:
        turn = self._openai_turn(req)
        if not isinstance(turn, _Turn):
            return turn
        step, step_no, model = turn
        step = quirks.offered_step(self.state.config.quirks, req.body, step)
        if not req.body.get("stream"):
            return JsonReply(200, wire_chat.chat_completion_body(step, step_no, model))
        include_usage = bool((req.body.get("stream_options") or {}).get("include_usage"))
        chunks = wire_chat.chat_stream_chunks(step, step_no, model, include_usage)
        media = quirks.stream_type(self.state.config.quirks, _SSE)
        return _streamed(media, step, chunks, partial(wire_chat.chat_stream_error, step))

    def _responses(self, req: Incoming) -> Reply:
        turn = self._openai_turn(req)
        if not isinstance(turn, _Turn):
            return turn
        step, step_no, model = turn
        if not req.body.get("stream"):
            return JsonReply(200, wire_responses.response_body(step, step_no, model))
        chunks = wire_responses.responses_stream_events(step, step_no, model)
        error = partial(wire_responses.responses_stream_error, step, step_no, model)
        return _streamed(quirks.stream_type(self.state.config.quirks, _SSE), step, chunks, error)

    def _openai_turn(self, req: Incoming) -> Reply | _Turn:
        """What both OpenAI routes do first: check the model, take the next step, fail if
        the step is a scripted error."""
        model = req.body.get("model")
        if not self._known(model):
            return errors.unknown_model(str(model))
        step, no = self._mark_step(req)
        if step.error is not None:
            return errors.scripted_error(step, native_ollama=False)
        if step.raw_body is not None:
            return StreamReply(step.raw_content_type, [WireChunk(data=step.raw_body.encode())])
        return _Turn(step, no if no is not None else 0, str(model))

    def _models(self, _req: Incoming) -> Reply:
        if (broken := quirks.model_list(self.state.config.quirks, ollama=False)) is not None:
            return broken
        data = [
            {"id": m, "object": "model", "created": 1_700_000_000, "owned_by": "fake"}
            for m in self.state.config.models
        ]
        return JsonReply(200, {"object": "list", "data": data})

    # ---- Ollama native ---------------------------------------------------------------------

    def _tags(self, _req: Incoming) -> Reply:
        if (broken := quirks.model_list(self.state.config.quirks, ollama=True)) is not None:
            return broken
        return JsonReply(200, wire_ollama.tags_body(list(self.state.config.models)))

    def _show(self, req: Incoming) -> Reply:
        model = req.body.get("model") or req.body.get("name")
        if not self._known(model):
            return errors.ollama_unknown_model(str(model))
        config = self.state.config
        return JsonReply(200, wire_ollama.show_body(config.capabilities_of(model), config.context_length))

    def _ollama_chat(self, req: Incoming) -> Reply:
        model = req.body.get("model")
        if not self._known(model):
            return errors.ollama_unknown_model(str(model))
        step, _no = self._mark_step(req)
        if step.error is not None:
            return errors.scripted_error(step, native_ollama=True)
        if req.body.get("stream") is False:  # Ollama streams unless told otherwise
            return JsonReply(200, wire_ollama.chat_body(step, model))
        chunks = wire_ollama.chat_stream_lines(step, model)
        return _streamed(_NDJSON, step, chunks, partial(wire_ollama.chat_stream_error, step))

    def _mark_step(self, req: Incoming) -> tuple[Step, int | None]:
        step, index = self.state.next_step()
        self.state.update(req.rec, step=index)
        return step, index

    # ---- control ---------------------------------------------------------------------------

    def _control(self, req: Incoming) -> JsonReply:
        if (req.method, req.path) == ("POST", "/_control/script"):
            try:
                # A bare JSON list arrives wrapped as {"_value": [...]} (see _parse).
                steps = parse_steps(req.body.get("_value", req.body))
            except (ValidationError, ValueError) as exc:
                return JsonReply(400, {"error": str(exc)})
            self.state.add_steps(steps)
            return JsonReply(200, {"queued": self.state.pending_steps()})
        if (req.method, req.path) == ("POST", "/_control/reset"):
            self.state.reset()
            return JsonReply(200, {"ok": True})
        if (req.method, req.path) == ("GET", "/_control/requests"):
            return JsonReply(200, {"requests": [r.model_dump(mode="json") for r in self.state.requests()]})
        return JsonReply(404, {"error": f"unknown control path {req.path}"})


async def _read_body(receive: Receive) -> bytes:
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return body
        body += bytes(message.get("body", b""))
        if not message.get("more_body"):
            return body


class _Turn(NamedTuple):
    step: Step
    step_no: int
    model: str


def _streamed(
    media_type: str, step: Step, chunks: list[WireChunk], error: Callable[[], WireChunk]
) -> StreamReply:
    """A streamed answer, cut short with an in-stream error when the step says `fail_after`."""
    if step.fail_after is not None:
        chunks = cut_with_error(chunks, step.fail_after, error())
    return StreamReply(media_type, chunks, step.delay_s, step.disconnect_after, step.hang_s)


def _parse(scope: dict[str, Any], raw: bytes) -> Incoming:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    auth = headers.pop("authorization", "")
    key = auth[7:].strip() if auth.lower().startswith("bearer ") else None
    try:
        body = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        body = {"_raw": raw.decode("utf-8", "replace")}
    if not isinstance(body, dict):
        body = {"_value": body}
    return Incoming(scope["method"], scope["path"], headers, body, key or None)


def _record(req: Incoming, state: FakeState) -> RecordedRequest:
    valid = state.config.valid_keys
    key_ok = bool(req.key) and (valid is None or req.key in valid or req.key == OLLAMA_KEY)
    return RecordedRequest(
        method=req.method,
        path=req.path,
        headers=req.headers,
        has_key=bool(req.key),
        key_valid=key_ok,
        key_id=key_id(req.key) if req.key else None,
        body=req.body,
    )
