"""The per-workspace file `.cashcode/config.yaml` (SPEC S2.5): a few non-secret CLI defaults.

Anything that looks like a secret is an error, not ignored: a key in a project folder gets
committed and shared.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from app.settings.config_errors import ConfigError
from app.settings.secrets import redact
from app.settings.user_settings import validate_base_url

# A setting *named* as a secret: one of these words as a whole part of the name (`api_key`,
# `OPENAI_API_KEY`, `authToken`), never a substring (`monkey` is no key; it is an unknown setting).
_SECRET_WORDS = frozenset(
    {
        "key", "keys", "apikey", "token", "tokens", "accesstoken", "authtoken", "secret", "secrets",
        "password", "passwd", "pwd", "passphrase", "credential", "credentials", "auth",
        "authorization", "bearer", "privatekey", "secretkey",
    }
)  # fmt: skip
_NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
MAX_CONFIG_CHARS = 64 * 1024  # a handful of settings; anything bigger is not ours
_URL_CREDENTIALS = re.compile(r"^[a-z]+://[^/?#]*@", re.IGNORECASE)


class WorkspaceConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = Field(default=None, min_length=1, max_length=200)
    api_mode: Literal["chat_completions", "responses"] | None = None
    base_url: str | None = None
    stream: bool | None = None
    max_iterations: int | None = Field(default=None, ge=1, le=200)

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        return None if value is None else validate_base_url(value)


def _secret_name(name: str) -> bool:
    return any(part.lower() in _SECRET_WORDS for part in _NAME_PARTS.findall(name))


def _looks_secret(value: object) -> bool:
    """A key-looking token (`sk-…`) or a URL with credentials (`https://user:pw@host`)."""
    if not isinstance(value, str):
        return False
    return redact(value) != value or _URL_CREDENTIALS.search(value) is not None


def load_workspace_config(path: Path) -> WorkspaceConfig:
    """Parse the file; a missing file means no overrides. Raises ConfigError on any problem."""
    return read_workspace_config(path)[0]


def read_workspace_config(path: Path) -> tuple[WorkspaceConfig, str | None]:
    """The parsed file and the SHA-256 of exactly the bytes parsed (None: no file), so a trust
    decision is about the content that is used, not a copy read a moment earlier."""
    from app.settings.workspace_trust import config_digest

    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return WorkspaceConfig(), None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    return _parse(path, text), config_digest(raw)


def _parse(path: Path, text: str) -> WorkspaceConfig:
    import yaml  # lazy: only workspaces that have the file pay for it

    if len(text) > MAX_CONFIG_CHARS:
        raise ConfigError(f"{path} is too large for a config file (over {MAX_CONFIG_CHARS} characters)")
    try:
        data = yaml.load(text, Loader=_unique_key_loader())  # a SafeLoader: no object tags
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from exc
    except RecursionError as exc:  # deeply nested lists/maps exhaust the parser's stack
        raise ConfigError(f"{path} is nested too deeply to be a config file") from exc
    if data is None:
        return WorkspaceConfig()
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping of settings, not {type(data).__name__}")
    secret_keys = sorted(str(k) for k in data if _secret_name(str(k)) or _looks_secret(data[k]))
    if secret_keys:
        raise ConfigError(
            f"{path} contains {', '.join(secret_keys)}: secrets are not allowed in the workspace "
            "config; use the OPENAI_API_KEY environment variable or save the key in the app"
        )
    unknown = sorted(str(k) for k in data if k not in WorkspaceConfig.model_fields)
    if unknown:
        raise ConfigError(
            f"{path} has unknown settings ({', '.join(unknown)}); the known ones are: "
            + ", ".join(sorted(WorkspaceConfig.model_fields))
        )
    try:
        return WorkspaceConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{path} has invalid settings ({problems})") from exc


def _unique_key_loader() -> type:
    """yaml's SafeLoader, refusing a key given twice in one mapping (safe_load keeps the last
    one silently, so the setting in effect would not be the one the reader sees first)."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
            seen: set[object] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader
