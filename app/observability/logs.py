"""Structured, redacted logs: JSON lines to a rotating file in the platform log folder, and to
stderr for the CLI (SPEC S9).

Every handler carries a `RedactionFilter`, so no record leaves the process with an API key, a
bearer token, the serve token or a configured secret value in it — whatever code logged it.
Secret values learnt after set-up (the CLI's key, the serve token, stored provider keys) are
added with `register_secrets`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import logging.handlers
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from app.support.bearer import BEARER, masked_bearer
from app.support.secret_forms import encoded_forms

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
DEFAULT_LEVEL = "WARNING"
ENV_LOG_LEVEL = "CASHCODE_LOG_LEVEL"
LOG_FILE = "cashcode.log"
MAX_BYTES = 2_000_000
BACKUPS = 3
MASK = "********"
_MIN_SECRET_LEN = 4  # shorter "secrets" would mangle ordinary text

# The current HTTP request's id (set by app/observability/request_id.py); log lines repeat it.
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("cashcode_request_id", default=None)

_PATTERNS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    (BEARER, partial(masked_bearer, MASK)),  # a token after "Bearer", never a word of prose
    # The serve start URL carries its token as a query parameter.
    (re.compile(r"([?&#](?:token|api_key|key)=)[^&\s\"']+", re.IGNORECASE), rf"\1{MASK}"),
    (
        re.compile(
            r"((?:api[_-]?key|authorization|x-cashcode-token|password|passwd|pwd|secret|cookie)"
            r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{4,}",
            re.IGNORECASE,
        ),
        rf"\1{MASK}",
    ),
    # A `Cookie:` / `Set-Cookie:` header line: every cookie in it (values hold sessions).
    (re.compile(r"((?:set-)?cookie\s*:\s*)[^\r\n\"]+", re.IGNORECASE), rf"\1{MASK}"),
    # A password in a URL's user info: scheme://user:password@host.
    (re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^\s/:@\"']*:)[^\s/@\"']+@", re.IGNORECASE), rf"\1{MASK}@"),
)


_CONTENT_LOGGERS = ("openai", "httpx", "httpcore", "httpx2", "mcp")


class LogLevelError(ValueError):
    """An unknown log level name (the message names the accepted ones)."""


def parse_level(value: str | None, source: str) -> str:
    """DEBUG|INFO|WARNING|ERROR (case-insensitive); None or "" gives the default."""
    if value is None or not value.strip():
        return DEFAULT_LEVEL
    level = value.strip().upper()
    if level not in LEVELS:
        raise LogLevelError(f"{source} must be one of {', '.join(LEVELS)}, not {value[:20]!r}")
    return level


class Redactor:
    """Replaces known secret values and key-looking tokens with the mask."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: tuple[str, ...] = ()
        self.add(secrets)

    def add(self, secrets: Iterable[str | None]) -> None:
        # Every form a log line may hold the value in: raw, URL-encoded, base64 (secret_forms).
        fresh = {f for s in secrets if s and len(s) >= _MIN_SECRET_LEN for f in encoded_forms(s)}
        with self._lock:
            # Longest first: a secret containing another is masked whole.
            self._secrets = tuple(sorted(fresh | set(self._secrets), key=len, reverse=True))

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text


class RedactionFilter(logging.Filter):
    """Renders the record's message, redacts it (and the traceback) and freezes the result, so
    formatters never see the raw arguments."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redactor(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = self.redactor(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = self.redactor(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redactor(record.stack_info)
        request_id = REQUEST_ID.get()
        if request_id is not None:
            record.request_id = request_id
        return True


_EXTRA_SKIP = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, request_id?, exc?, and extra fields."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self._redact = redactor

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _EXTRA_SKIP and not key.startswith("_"):
                out[key] = value if isinstance(value, int | float | bool | type(None)) else str(value)
        if record.exc_text:
            out["exc"] = record.exc_text
        # Extra fields are redacted here too: the filter only sees the message.
        return self._redact(json.dumps(out, ensure_ascii=False, default=str))


def _handlers() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if getattr(h, "_cashcode", False)]


def register_secrets(values: Iterable[str | None]) -> None:
    """Mask these values in every record from now on (no-op when logging was not set up)."""
    values = list(values)
    for handler in _handlers():
        for flt in handler.filters:
            if isinstance(flt, RedactionFilter):
                flt.redactor.add(values)


class _LazyFileHandler(logging.handlers.RotatingFileHandler):
    """Creates the log folder with the first record it writes, so a command that logs nothing
    creates nothing on disk; a folder that cannot be written is one warning line, once."""

    _warned = False

    def _open(self) -> Any:
        Path(self.baseFilename).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:
        if not self._warned:
            self._warned = True
            where = Path(self.baseFilename).parent
            print(f"cashcode: warning: cannot write logs to {where}", file=sys.stderr)


def setup_logging(
    log_dir: Path | None,
    level: str,
    *,
    stderr: TextIO | None = sys.stderr,
    secrets: Iterable[str | None] = (),
) -> Redactor:
    """Install the file handler (all levels ≥ `level`) and the stderr one; replaces an earlier
    set-up by this function (tests call it more than once per process)."""
    root = logging.getLogger()
    for old in _handlers():
        root.removeHandler(old)
        old.close()
    redactor = Redactor(secrets)
    handlers: list[logging.Handler] = []
    if log_dir is not None:
        handlers.append(
            _LazyFileHandler(
                log_dir / LOG_FILE, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
            )
        )
    if stderr is not None:
        handlers.append(logging.StreamHandler(stderr))
    for handler in handlers:
        handler.setLevel(level)
        handler.addFilter(RedactionFilter(redactor))
        handler.setFormatter(JsonFormatter(redactor))
        handler._cashcode = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    # The OpenAI SDK logs whole request bodies (prompts, tool arguments) at DEBUG; those
    # loggers never go below INFO, whatever the level asked for.
    for name in _CONTENT_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.getLevelName(level), logging.INFO))
    return redactor


def level_from(flag: str | None, env: Mapping[str, str]) -> str:
    """The flag wins over the env variable."""
    if flag is not None:
        return parse_level(flag, "--log-level")
    return parse_level(env.get(ENV_LOG_LEVEL), ENV_LOG_LEVEL)
