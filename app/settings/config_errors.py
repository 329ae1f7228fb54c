"""The one error type for CLI configuration problems (flags, env, workspace file)."""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration value is invalid; the message says which and where."""
