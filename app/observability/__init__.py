"""Observability: per-turn traces (no content), usage summaries, redacted logs, evals."""
