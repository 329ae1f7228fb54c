"""CashCode: a local-first personal AI agent for the desktop."""

__version__ = "0.1.0"
