"""Id validation used at every store boundary (SPEC S8, S13).

Ids are canonical lowercase UUID strings (`str(uuid4())`). Anything else — other spellings of
the same UUID included — is refused, so an id can be used safely in paths, SQL and URLs and
one record never has two names.
"""

from __future__ import annotations

import re
import uuid

from app.store.errors import InvalidId

_CANONICAL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# Turn ids come from the turn manager; any short slug is accepted (a UUID or its hex form).
_TURN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def new_id() -> str:
    return str(uuid.uuid4())


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and _CANONICAL.fullmatch(value) is not None


def validate_id(value: object, what: str = "id") -> str:
    if not is_valid_id(value):
        shown = repr(value)[:60]
        raise InvalidId(f"invalid {what}: {shown} (expected a lowercase UUID)")
    assert isinstance(value, str)
    return value


def validate_chat_id(value: object) -> str:
    return validate_id(value, "chat id")


def validate_turn_id(value: object) -> str:
    if not isinstance(value, str) or _TURN_ID.fullmatch(value) is None:
        raise InvalidId(f"invalid turn id: {repr(value)[:60]}")
    return value
