"""Failures end in a ProviderError with the right code and a message a user can act on,
and the API key never appears in it."""

from __future__ import annotations

import traceback

import pytest

from app.contracts.provider import Provider, ProviderError, TextDelta
from app.testing.fake_llm import FakeLLMServer
from tests.llm.conftest import (
    API_KEY,
    OLLAMA_VARIANTS,
    OPENAI_VARIANTS,
    VARIANTS,
    ProviderMaker,
    closed_port_url,
    collect,
    fast_retry,
    user_request,
)


async def _fail(provider: Provider, model: str = "fake-model") -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await collect(provider, user_request(model=model))
    err = info.value
    assert API_KEY not in err.message and API_KEY not in str(err.details)
    return err


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_a_rejected_key_is_an_auth_error_naming_where_to_fix_it(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    # The fake echoes the wrong key back in its error body, as careless servers do.
    wrong = "sk-wrong-KEY-abcdef0123456789"
    err = await _fail(make_provider(variant, api_key=wrong))
    assert err.code == "auth" and err.status == 401
    assert "Settings → Providers" in err.message and "Fake Cloud" in err.message
    assert wrong not in err.message and wrong not in str(err.details)
    assert len(server.model_requests()) == 1  # auth failures are not retried


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_a_missing_key_for_a_remote_host_fails_before_any_request(
    variant: str, make_provider: ProviderMaker
) -> None:
    # .invalid never resolves; nothing may be sent anywhere without a key.
    err = await _fail(make_provider(variant, api_key=None, base_url="https://api.example.invalid"))
    assert err.code == "no_api_key"
    assert err.message == (
        "No API key for provider Fake Cloud. Add one in Settings → Providers or set OPENAI_API_KEY."
    )


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_a_local_server_that_wants_a_key_reports_a_missing_key_not_a_bad_one(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    err = await _fail(make_provider(variant, api_key=None))
    assert err.code == "no_api_key"
    assert len(server.model_requests()) == 1


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_a_keyless_local_server_is_used_without_a_key(variant: str) -> None:
    with FakeLLMServer(valid_keys=None) as keyless:
        keyless.script({"text": "no key needed"})
        config = keyless.provider_config(variant, api_key=None)
        from app.llm.factory import create_provider

        provider = create_provider(config)
        try:
            events = await collect(provider, user_request())
        finally:
            await provider.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "no key needed"


@pytest.mark.parametrize("variant", VARIANTS)
async def test_an_unknown_model_names_the_model_and_how_to_list_models(
    variant: str, make_provider: ProviderMaker
) -> None:
    err = await _fail(make_provider(variant), model="gpt-9-imaginary")
    assert err.code == "model_not_found" and err.status == 404
    assert "gpt-9-imaginary" in err.message
    hint = "ollama pull gpt-9-imaginary" if variant in OLLAMA_VARIANTS else "cashcode models"
    assert hint in err.message


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_429_with_retry_after_is_retried_after_that_delay_and_then_succeeds(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    slept: list[float] = []

    async def record_sleep(seconds: float) -> None:
        slept.append(seconds)

    server.script({"error": 429, "retry_after": 0.25}, {"text": "finally"})
    provider = make_provider(variant, retry=fast_retry(sleep=record_sleep))
    events = await collect(provider, user_request())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "finally"
    assert slept == [0.25]
    assert len(server.model_requests()) == 2


async def test_a_huge_retry_after_is_capped(server: FakeLLMServer, make_provider: ProviderMaker) -> None:
    slept: list[float] = []

    async def record_sleep(seconds: float) -> None:
        slept.append(seconds)

    server.script({"error": 429, "retry_after": 3600})
    await collect(make_provider("chat_completions", retry=fast_retry(sleep=record_sleep)), user_request())
    assert slept == [30.0]


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_persisting_429_ends_as_rate_limit_after_the_configured_retries(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script(*[{"error": 429, "retry_after": 0}] * 3)
    err = await _fail(make_provider(variant, retry=fast_retry(max_retries=2)))
    assert err.code == "rate_limit" and err.status == 429
    assert "try again" in err.message.lower()
    assert err.details["attempts"] == "3"
    assert len(server.model_requests()) == 3


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_500_is_retried(variant: str, server: FakeLLMServer, make_provider: ProviderMaker) -> None:
    server.script({"error": 500}, {"error": 503}, {"text": "recovered"})
    events = await collect(make_provider(variant), user_request())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "recovered"
    assert len(server.model_requests()) == 3


async def test_a_persisting_500_is_a_server_error(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script(*[{"error": 500}] * 2)
    err = await _fail(make_provider("chat_completions", retry=fast_retry(max_retries=1)))
    assert err.code == "server" and err.status == 500 and "try again" in err.message.lower()


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_mid_stream_disconnect_raises_disconnected_and_is_not_retried(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "This answer is cut short.", "chunk_size": 4, "disconnect_after": 2})
    seen: list[str] = []
    with pytest.raises(ProviderError) as info:
        async for event in make_provider(variant).stream(user_request()):
            if isinstance(event, TextDelta):
                seen.append(event.text)
    assert info.value.code == "disconnected"
    assert "dropped" in info.value.message
    assert seen == ["This", " ans"]
    assert len(server.model_requests()) == 1


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_disconnect_before_the_first_token_is_retried(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "lost", "disconnect_after": 0}, {"text": "second try"})
    events = await collect(make_provider(variant), user_request())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "second try"


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_a_closed_port_is_unreachable_and_names_the_host(
    variant: str, make_provider: ProviderMaker
) -> None:
    url = closed_port_url()
    err = await _fail(make_provider(variant, base_url=url))
    assert err.code == "unreachable"
    assert url in err.message and "base URL" in err.message
    # A refused connection is retried once, not max_retries times: a wrong host fails fast.
    assert err.details["attempts"] == "2"


@pytest.mark.parametrize("variant", OLLAMA_VARIANTS)
async def test_ollama_on_a_closed_port_says_how_to_start_it(
    variant: str, make_provider: ProviderMaker
) -> None:
    url = closed_port_url()
    err = await _fail(make_provider(variant, base_url=url))
    assert err.code == "ollama_not_running"
    assert "ollama serve" in err.message and url in err.message


async def test_ollama_discovery_on_a_closed_port_says_ollama_is_not_running(
    make_provider: ProviderMaker,
) -> None:
    with pytest.raises(ProviderError) as info:
        await make_provider("ollama_v1", base_url=closed_port_url()).list_models()
    assert info.value.code == "ollama_not_running"


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_an_overlong_conversation_is_a_context_length_error(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script(
        {
            "error": 400,
            "error_code": "context_length_exceeded",
            "error_message": "This model's maximum context length is 8192 tokens.",
        }
    )
    err = await _fail(make_provider(variant))
    assert err.code == "context_length"
    assert "new chat" in err.message and "fake-model" in err.message
    assert len(server.model_requests()) == 1


async def test_a_read_timeout_is_reported_as_timeout(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "slow", "chunk_size": 1, "delay_s": 0.5})
    err = await _fail(make_provider("chat_completions", timeout_s=0.05))
    assert err.code == "timeout"


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_a_logged_traceback_of_an_auth_error_does_not_leak_the_echoed_key(
    variant: str, make_provider: ProviderMaker
) -> None:
    wrong = "sk-wrong-KEY-abcdef0123456789"
    err = await _fail(make_provider(variant, api_key=wrong))
    assert wrong not in "".join(traceback.format_exception(err))


@pytest.mark.parametrize("variant", VARIANTS)
async def test_an_error_reported_inside_the_stream_after_tokens_is_raised_at_once(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "partial answer", "fail_after": 1, "error_message": "overloaded"})
    seen: list[str] = []
    with pytest.raises(ProviderError) as info:
        async for event in make_provider(variant).stream(user_request()):
            if isinstance(event, TextDelta):
                seen.append(event.text)
    assert info.value.code == "server" and "overloaded" in info.value.message
    assert seen == ["part"]
    assert len(server.model_requests()) == 1


@pytest.mark.parametrize("variant", OPENAI_VARIANTS + ["ollama_v1"])
async def test_a_context_overflow_reported_inside_the_stream_is_a_context_length_error(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script(
        {
            "text": "x",
            "fail_after": 0,
            "error_code": "context_length_exceeded",
            "error_message": "maximum context length exceeded",
        }
    )
    err = await _fail(make_provider(variant))
    assert err.code == "context_length"
