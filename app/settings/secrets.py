"""API keys in the OS keychain — the ONLY module that imports `keyring` (SPEC S2.2, S10.2).

`keyring` is imported lazily inside functions: the CLI must not pay for it unless a key is
actually needed. There is no plaintext fallback: if the backend is missing, a null/fail
backend, has priority < 1, or is a keyrings.alt file backend, the store is *unavailable*,
`set` raises `KeyringUnavailable`, and nothing is written anywhere.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from app.support.bearer import BEARER, masked_bearer

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

T = TypeVar("T")

SERVICE = "CashCode"
MASK = "********"  # same value as app.api.models.MASK (settings must not import the api layer)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$")
_NO_KEYCHAIN = (
    "No system keychain found ({backend}). Keys are not saved; set OPENAI_API_KEY for this "
    "session or install/unlock a keychain (GNOME Keyring, KWallet)."
)


class SecretStoreError(Exception):
    """A keychain operation failed; the message is meant for people."""


class KeyringUnavailable(SecretStoreError):
    """No usable (secure) keychain backend exists; nothing was stored."""


class KeyringLockedError(SecretStoreError):
    """The keychain is locked (a normal state: ask the user to unlock it)."""


@dataclass(frozen=True)
class KeyringState:
    available: bool
    backend: str  # e.g. "keyring.backends.SecretService.Keyring"
    message: str  # plain words for Settings → Security


def provider_key_name(provider_id: str) -> str:
    return f"provider:{provider_id}:api_key"


def classify_backend(backend: Any) -> KeyringState:
    """Decide whether a keyring backend may hold secrets (no plaintext, no null/fail)."""
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    insecure = _insecure_reason(backend)
    if insecure is not None:
        return KeyringState(False, name, _NO_KEYCHAIN.format(backend=f"{name}: {insecure}"))
    return KeyringState(True, name, f"API keys are stored in the system keychain ({name}).")


def _insecure_reason(backend: Any) -> str | None:
    # keyring is already imported when we hold one of its backends.
    from keyring.backends import chainer, fail, null

    if type(backend).__module__.startswith("keyrings.alt"):
        return "a plaintext file backend, refused"
    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return "no backend available"
    if isinstance(backend, chainer.ChainerBackend):
        # A chain is only as safe as its weakest member: writes fall through to later ones.
        members = list(backend.backends)
        if not members:
            return "no backend available"
        reasons = [r for r in (_insecure_reason(m) for m in members) if r]
        return reasons[0] if reasons else None
    try:
        priority = float(backend.priority)
    except (AttributeError, RuntimeError, TypeError, ValueError) as exc:
        return f"not usable: {exc}"
    if priority < 1:
        return f"priority {priority} is too low to be trusted"
    return None


class SecretStore:
    """Named secrets in one keychain service. `backend` defaults to keyring's current one.

    Without a keychain, a caller may keep a key for this process only (`set_for_session`,
    memory only, never on disk); `get` returns it until `delete` or exit.
    """

    def __init__(self, service: str = SERVICE, backend: KeyringBackend | None = None) -> None:
        self.service = service
        self._backend = backend
        self._session: dict[str, str] = {}
        self._warming: threading.Thread | None = None

    def warm(self) -> None:
        """Find the keychain backend on a worker thread now. keyring's detection imports every
        backend (the macOS one runs the C compiler to look for libraries, also on Linux): 0.3–0.9 s
        here, which the desktop's first `app.info` would otherwise wait for on the event loop."""
        if self._backend is None and self._warming is None:
            self._warming = threading.Thread(target=self._detect, name="keyring-detect", daemon=True)
            self._warming.start()

    def _current(self) -> Any:
        if self._backend is not None:
            return self._backend
        if self._warming is not None and self._warming is not threading.current_thread():
            self._warming.join()  # keyring's own detection is not thread-safe: never run it twice
        return self._detect()

    def _detect(self) -> Any:
        import keyring  # lazy: see module docstring

        try:
            return keyring.get_keyring()
        except (keyring.errors.KeyringError, ImportError, AttributeError, RuntimeError, ValueError):
            # A broken PYTHON_KEYRING_BACKEND or config; treat as "no keychain".
            from keyring.backends import fail

            return fail.Keyring()  # type: ignore[no-untyped-call]

    def status(self) -> KeyringState:
        return classify_backend(self._current())

    def _usable(self) -> Any:
        backend = self._current()
        state = classify_backend(backend)
        if not state.available:
            raise KeyringUnavailable(state.message)
        return backend

    def get(self, name: str) -> str | None:
        """The secret, or None when it is not stored (or no keychain exists)."""
        _check_name(name)
        if name in self._session:
            return self._session[name]
        try:
            backend = self._usable()
        except KeyringUnavailable:
            return None
        value = self._call(lambda: backend.get_password(self.service, name), "read")
        return value if isinstance(value, str) else None

    def set(self, name: str, value: str) -> None:
        _check_name(name)
        if not value:
            raise ValueError("refusing to store an empty secret; use delete()")
        backend = self._usable()
        self._call(lambda: backend.set_password(self.service, name, value), "save")

    def set_for_session(self, name: str, value: str) -> None:
        """Keep a secret in memory for this process only (the no-keychain fallback)."""
        _check_name(name)
        if not value:
            raise ValueError("refusing to store an empty secret; use delete()")
        self._session[name] = value

    def is_session_only(self, name: str) -> bool:
        return name in self._session

    def delete(self, name: str) -> bool:
        """Remove the secret; False when there was none (or no keychain exists)."""
        _check_name(name)
        if self._session.pop(name, None) is not None:
            return True
        from keyring.errors import PasswordDeleteError

        try:
            backend = self._usable()
        except KeyringUnavailable:
            return False
        if self._call(lambda: backend.get_password(self.service, name), "read") is None:
            return False
        try:
            self._call(lambda: backend.delete_password(self.service, name), "delete")
        except SecretStoreError as exc:
            if isinstance(exc.__cause__, PasswordDeleteError):
                return False
            raise
        return True

    def _call(self, fn: Callable[[], T], verb: str) -> T:
        from keyring.errors import KeyringError, KeyringLocked, NoKeyringError

        try:
            return fn()
        except KeyringLocked as exc:
            raise KeyringLockedError(
                f"The system keychain is locked; unlock it to {verb} API keys ({exc})."
            ) from exc
        except NoKeyringError as exc:
            raise KeyringUnavailable(_NO_KEYCHAIN.format(backend=str(exc)[:120])) from exc
        except KeyringError as exc:
            raise SecretStoreError(f"Could not {verb} the key in the system keychain: {exc}") from exc


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise ValueError(f"invalid secret name {name[:60]!r}")


_TOKEN_PATTERNS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    (BEARER, partial(masked_bearer, MASK)),  # a token after "Bearer", never a word of prose
)
_MIN_SECRET_LEN = 4  # shorter "secrets" would mangle ordinary text


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace known secret values and key-looking tokens (`sk-…`, `Bearer …`) with the mask."""
    known = sorted({s for s in secrets if s and len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True)
    for secret in known:
        text = text.replace(secret, MASK)
    for pattern, replacement in _TOKEN_PATTERNS:
        text = pattern.sub(replacement, text)
    return text
