"""An MCP elicitation form as Inbox fields, and a text answer (`--field NAME=VALUE`, the Inbox
view's inputs) turned into the typed content the server's schema asks for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.contracts.inbox import InboxField

_TRUE = ("true", "yes", "y", "1", "on")
_FALSE = ("false", "no", "n", "0", "off")


class FormError(ValueError):
    """The answer does not fit the form (the message says which field and why)."""


def form_fields(schema: Mapping[str, Any]) -> list[InboxField]:
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    fields: list[InboxField] = []
    for name, prop in props.items():
        if not isinstance(prop, dict):
            continue
        enum = prop.get("enum")
        fields.append(
            InboxField(
                name=str(name),
                title=str(prop.get("title") or prop.get("description") or name),
                type=str(prop.get("type") or "string"),
                required=name in required,
                enum=[str(v) for v in enum] if isinstance(enum, list) else None,
            )
        )
    return fields


def checked_form(schema: Mapping[str, Any], answers: Mapping[str, str]) -> dict[str, Any]:
    """The content to send: the form's defaults, then each answer in its field's type."""
    props = schema.get("properties") or {}
    unknown = sorted(set(answers) - set(props))
    if unknown:
        raise FormError(f"the form has no field {unknown[0]!r}")
    content: dict[str, Any] = {
        k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v
    }
    for name, text in answers.items():
        content[name] = _typed(name, str((props.get(name) or {}).get("type") or "string"), text)
    missing = [n for n in schema.get("required") or () if n not in content]
    if missing:
        raise FormError(f"{missing[0]!r} is required")
    _validate(content, schema)
    return content


def _typed(name: str, kind: str, text: str) -> Any:
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        raise FormError(f"{name!r} must be a {kind}, got {text!r}") from None
    if kind == "boolean":
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise FormError(f"{name!r} must be true or false, got {text!r}")
    return text


def _validate(content: dict[str, Any], schema: Mapping[str, Any]) -> None:
    import jsonschema  # a dependency of the MCP SDK; only loaded when a form is answered

    try:
        jsonschema.validate(content, dict(schema))
    except jsonschema.ValidationError as exc:
        raise FormError(exc.message) from None
    except jsonschema.SchemaError:
        pass  # the server's schema is broken: the server itself checks what it gets
