"""CLI start-up: importing the factory must not import openai or httpx2."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_provider_factory_does_not_import_the_sdk() -> None:
    code = (
        "import sys, app.llm.factory, app.llm.chat_completions, app.llm.responses, app.llm.ollama\n"
        "print(sorted(m for m in ('openai', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
