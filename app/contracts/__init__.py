"""The shared vocabulary at the bottom of the app (docs/architecture.md, "Layers").

Messages and events, the Tool / Provider / TurnStore protocols, the capability interface, the
API error type and the shared reply models. Everything else imports from here; this package
imports nothing of the app (import-linter checks it in `python build.py test`).
"""
