"""Pure error-mapping rules: scrubbing and classification."""

from __future__ import annotations

from app.llm.errors import ErrorContext, from_status, retry_after_seconds, scrub

CTX = ErrorContext(
    provider_id="p",
    provider_label="Work",
    base_url="https://user:pw@api.example.com:8443/v1",
    model="m1",
    secret="my-secret-key",
)


def test_scrub_removes_the_configured_secret_and_key_like_tokens() -> None:
    text = scrub("bad key my-secret-key and sk-proj-ABCDEFGHIJKLMNOP", "my-secret-key")
    assert "my-secret-key" not in text and "ABCDEFGHIJKLMNOP" not in text


def test_the_host_shown_to_users_drops_credentials_and_path() -> None:
    assert CTX.host == "https://api.example.com:8443"


def test_server_messages_are_kept_only_scrubbed_in_details() -> None:
    err = from_status(CTX, 400, "Invalid value; your key my-secret-key is fine", None)
    assert err.code == "bad_request"
    assert "my-secret-key" not in err.message and "my-secret-key" not in err.details["server_message"]


def test_context_overflow_is_recognised_by_message_when_no_code_is_sent() -> None:
    assert (
        from_status(CTX, 400, "prompt is too long: 300000 tokens > 200000 maximum").code == "context_length"
    )


def test_a_404_without_a_model_hint_points_at_the_base_url() -> None:
    err = from_status(CTX, 404, "Not Found")
    assert err.code == "not_found" and "base URL" in err.message


def test_retry_after_headers_are_read_in_seconds_or_milliseconds() -> None:
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_seconds({}) is None
