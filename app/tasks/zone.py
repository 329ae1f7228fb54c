"""The user's time zone as an IANA name (daily, weekly and cron times are read in it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def local_zone_name(env: Mapping[str, str], configured: str | None = None) -> str:
    """The configured zone, else $TZ, else the system's (/etc/localtime), else UTC."""
    for name in (configured, env.get("TZ", "").lstrip(":")):
        if name and _valid(name):
            return name
    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        return "UTC"
    marker = "zoneinfo/"
    if marker in target:
        name = target.split(marker, 1)[1]
        if _valid(name):
            return name
    return "UTC"


def _valid(name: str) -> bool:
    if Path(name).is_absolute() or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
