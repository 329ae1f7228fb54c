from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null
from keyring.compat import properties
from keyring.errors import KeyringLocked

from app.contracts.replies import MASK as API_MASK
from app.settings.secrets import (
    MASK,
    KeyringLockedError,
    KeyringUnavailable,
    SecretStore,
    classify_backend,
    provider_key_name,
    redact,
)
from app.testing.fake_keyring import ENV_FILE, FileKeyring, MemoryKeyring

KEY = provider_key_name("openai")
SECRET = "sk-test-0123456789abcdef"


# Test backends set viable = False so keyring's auto-selection never picks them up in this
# process (defining a subclass registers it globally).


class LowPriorityKeyring(KeyringBackend):
    viable = False

    @properties.classproperty
    def priority(cls) -> float:
        return 0.5

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise AssertionError("must never be called")

    def delete_password(self, service: str, username: str) -> None:
        raise AssertionError("must never be called")


class PlaintextLookalike(LowPriorityKeyring):
    """Stands in for keyrings.alt.file.PlaintextKeyring (which must not be installed)."""

    @properties.classproperty
    def priority(cls) -> float:
        return 5


PlaintextLookalike.__module__ = "keyrings.alt.file"


class LockedKeyring(MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("collection is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("collection is locked")


def test_key_names_follow_the_provider_scheme() -> None:
    assert provider_key_name("deepseek") == "provider:deepseek:api_key"


def test_a_secret_round_trips_through_the_process_keyring(memory_keyring: MemoryKeyring) -> None:
    store = SecretStore()
    assert store.status().available
    assert store.get(KEY) is None

    store.set(KEY, SECRET)

    assert store.get(KEY) == SECRET
    assert memory_keyring.get_password("CashCode", KEY) == SECRET
    assert store.delete(KEY)
    assert not store.delete(KEY)
    assert store.get(KEY) is None


def test_an_injected_backend_is_used_instead_of_the_global_one(memory_keyring: MemoryKeyring) -> None:
    store = SecretStore(service="CashCode-test", backend=MemoryKeyring())
    store.set(KEY, SECRET)
    assert memory_keyring.get_password("CashCode", KEY) is None
    assert store.get(KEY) == SECRET


@pytest.mark.parametrize(
    "backend",
    [fail.Keyring(), null.Keyring(), LowPriorityKeyring(), PlaintextLookalike()],
    ids=["fail", "null", "low-priority", "keyrings.alt"],
)
def test_null_fail_low_priority_and_plaintext_backends_are_unavailable(backend: KeyringBackend) -> None:
    store = SecretStore(backend=backend)
    status = store.status()

    assert not status.available
    assert status.message.startswith("No system keychain found")
    assert "OPENAI_API_KEY" in status.message
    with pytest.raises(KeyringUnavailable, match="Keys are not saved"):
        store.set(KEY, SECRET)
    assert store.get(KEY) is None
    assert not store.delete(KEY)


class InsecureChain(chainer.ChainerBackend):
    viable = False
    backends = [MemoryKeyring(), PlaintextLookalike()]


class SecureChain(chainer.ChainerBackend):
    viable = False
    backends = [MemoryKeyring(), MemoryKeyring()]


def test_a_chain_containing_an_insecure_backend_is_unavailable() -> None:
    assert not classify_backend(InsecureChain()).available
    assert classify_backend(SecureChain()).available


def test_the_status_names_the_backend() -> None:
    status = SecretStore(backend=MemoryKeyring()).status()
    assert status.available and status.backend == "app.testing.fake_keyring.MemoryKeyring"


def test_a_locked_keychain_raises_a_typed_error() -> None:
    store = SecretStore(backend=LockedKeyring())
    with pytest.raises(KeyringLockedError, match="locked"):
        store.get(KEY)
    with pytest.raises(KeyringLockedError):
        store.set(KEY, SECRET)


def test_invalid_names_and_empty_values_are_refused() -> None:
    store = SecretStore(backend=MemoryKeyring())
    for bad in ("", "a b", "../x", "x" * 200):
        with pytest.raises(ValueError):
            store.set(bad, SECRET)
    with pytest.raises(ValueError):
        store.set(KEY, "")


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def _isolated_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "PYTHON_KEYRING", "CASHCODE"))}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_STATE_HOME=str(home / "state"),
        **extra,
    )
    return env


def test_without_a_keychain_no_file_anywhere_contains_the_secret(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _isolated_env(
        home,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        CASHCODE_DATA_DIR=str(home / "cc-data"),
        CASHCODE_CONFIG_DIR=str(home / "cc-config"),
    )
    result = _run(
        f"""
        from app.settings.secrets import SecretStore, KeyringUnavailable
        store = SecretStore()
        print(store.status().available)
        try:
            store.set("provider:openai:api_key", {SECRET!r})
        except KeyringUnavailable as exc:
            print("REFUSED", exc)
        """,
        env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("False\nREFUSED No system keychain found")

    needles = [SECRET.encode(), base64.b64encode(SECRET.encode())]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(n in data for n in needles), f"secret found in {path}"


def test_the_file_keyring_shares_secrets_with_subprocesses(tmp_path: Path) -> None:
    keyring_file = tmp_path / "keyring.json"
    env = _isolated_env(
        tmp_path,
        PYTHON_KEYRING_BACKEND="app.testing.fake_keyring.FileKeyring",
        **{ENV_FILE: str(keyring_file)},
    )
    writer = _run(f"from app.settings.secrets import SecretStore; SecretStore().set('k', {SECRET!r})", env)
    assert writer.returncode == 0, writer.stderr
    assert json.loads(keyring_file.read_text()) == {"CashCode": {"k": SECRET}}

    reader = _run("from app.settings.secrets import SecretStore; print(SecretStore().get('k'))", env)
    assert reader.stdout.strip() == SECRET


def test_the_file_keyring_is_unusable_without_its_env_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_FILE, raising=False)
    assert not SecretStore(backend=FileKeyring()).status().available


def test_importing_the_settings_package_does_not_import_keyring(tmp_path: Path) -> None:
    result = _run(
        """
        import sys
        import app.settings.secrets, app.settings.cli_config, app.settings.user_settings
        print("keyring" in sys.modules)
        """,
        _isolated_env(tmp_path),
    )
    assert result.stdout.strip() == "False", result.stderr


def test_redaction_masks_known_secrets_and_key_looking_tokens() -> None:
    text = (
        "key=my-custom-secret-value; header Authorization: Bearer abc.def-123; "
        "leaked sk-proj-AbCdEf0123456789 done"
    )
    out = redact(text, ["my-custom-secret-value", "", None, "ab"])

    assert "my-custom-secret-value" not in out and "abc.def-123" not in out and "sk-proj" not in out
    assert out == f"key={MASK}; header Authorization: Bearer {MASK}; leaked {MASK} done"


def test_redaction_leaves_ordinary_text_alone() -> None:
    text = "ask-me about risk-taking, Bearer of news"
    assert redact(text, ["ab"]) == text


def test_the_mask_matches_the_api_mask() -> None:
    assert MASK == API_MASK == "********"


def test_without_a_keychain_a_key_can_be_kept_for_the_session_only() -> None:
    store = SecretStore(backend=fail.Keyring())
    with pytest.raises(KeyringUnavailable):
        store.set(KEY, SECRET)

    store.set_for_session(KEY, SECRET)

    assert store.get(KEY) == SECRET and store.is_session_only(KEY)
    assert SecretStore(backend=fail.Keyring()).get(KEY) is None
    assert store.delete(KEY) and store.get(KEY) is None


def test_prose_around_the_word_bearer_is_left_alone_and_tokens_after_it_are_masked() -> None:
    # Issue 40 item 16: "jwt-bearer grant" became "jwt-bearer ********".
    for prose in (
        "unsupported grant type urn:ietf:params:oauth:grant-type:jwt-bearer grant",
        "a bearer token is required",
        "The bearer authentication failed",
    ):
        assert redact(prose) == prose
    assert redact("Authorization: bearer eyJhbGciOiJIUzI1NiJ9.e30.sig") == f"Authorization: bearer {MASK}"
    assert redact("Bearer ghp_secret_value_123") == f"Bearer {MASK}"
    assert redact("Bearer abcdefghijklmnopqrstuvwxyz") == f"Bearer {MASK}"  # long: a token
