"""Error bodies in the shapes real servers use (OpenAI JSON error object; Ollama `{"error": str}`)."""

from __future__ import annotations

from app.testing.fake_llm.replies import JsonReply
from app.testing.fake_llm.script import Step

_DEFAULTS: dict[int, tuple[str, str, str | None]] = {
    400: ("Bad request.", "invalid_request_error", None),
    401: ("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
    403: ("You are not allowed to use this model.", "invalid_request_error", None),
    404: ("Not found.", "invalid_request_error", None),
    429: ("Rate limit reached for requests.", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request.", "server_error", None),
    503: ("The server is overloaded.", "server_error", None),
}


def _retry_header(retry_after: float | None) -> dict[str, str]:
    if retry_after is None:
        return {}
    text = str(int(retry_after)) if float(retry_after).is_integer() else str(retry_after)
    return {"retry-after": text}


def openai_error(
    status: int, message: str | None = None, code: str | None = None, retry_after: float | None = None
) -> JsonReply:
    default_message, kind, default_code = _DEFAULTS.get(status, ("Error.", "server_error", None))
    body = {
        "error": {
            "message": message or default_message,
            "type": kind,
            "param": None,
            "code": code if code is not None else default_code,
        }
    }
    return JsonReply(status, body, _retry_header(retry_after))


def ollama_error(status: int, message: str | None = None, retry_after: float | None = None) -> JsonReply:
    default_message = _DEFAULTS.get(status, ("error",))[0]
    return JsonReply(status, {"error": message or default_message}, _retry_header(retry_after))


def scripted_error(step: Step, native_ollama: bool) -> JsonReply:
    assert step.error is not None
    if native_ollama:
        return ollama_error(step.error, step.error_message, step.retry_after)
    return openai_error(step.error, step.error_message, step.error_code, step.retry_after)


def unknown_model(model: str) -> JsonReply:
    return openai_error(
        404, f"The model `{model}` does not exist or you do not have access to it.", "model_not_found"
    )


def ollama_unknown_model(model: str) -> JsonReply:
    return ollama_error(404, f'model "{model}" not found, try pulling it first')
