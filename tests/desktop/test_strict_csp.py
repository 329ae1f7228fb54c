"""The strict-CSP shim, with a fake window (the real-window test covers it end to end)."""

from __future__ import annotations

from typing import Any

from app.desktop.bridge import Bridge
from app.desktop.strict_csp import install, public_methods
from tests.desktop.harness import wait_until


class _Event:
    def __init__(self) -> None:
        self.handlers: list[Any] = []

    def __iadd__(self, handler: Any) -> _Event:
        self.handlers.append(handler)
        return self


class _Events:
    def __init__(self) -> None:
        self.loaded = _Event()


class FakeWindow:
    def __init__(self) -> None:
        self.events = _Events()
        self.run: list[str] = []
        self.evaluated: list[str] = []

    def run_js(self, script: str) -> None:
        self.run.append(script)

    def evaluate_js(self, script: str, callback: Any = None) -> str:
        self.evaluated.append(script)
        return "evaluated"


def test_bridge_return_values_are_delivered_without_eval() -> None:
    window = FakeWindow()
    install(window, ["invoke"])
    script = 'window.pywebview._returnValuesCallbacks["invoke"]["8123"]({value: \'{"ok": true}\'})'
    window.evaluate_js(script)
    wait_until(lambda: window.run)  # delivered from a daemon thread (see test_page_hooks.py)
    assert window.run == [script]
    assert window.evaluated == []


def test_other_scripts_still_go_through_evaluate_js() -> None:
    window = FakeWindow()
    install(window, ["invoke"])
    assert window.evaluate_js("1 + 1") == "evaluated"
    assert window.evaluate_js('window.pywebview._returnValuesCallbacks["x"]["1"]({})', callback=print)
    assert window.run == []


def test_each_page_load_defines_the_stubs_without_new_function() -> None:
    window = FakeWindow()
    install(window, ["invoke"])
    [handler] = window.events.loaded.handlers
    handler()  # starts the set-up on a daemon thread (app/desktop/page_hooks.py)
    wait_until(lambda: window.run)
    [script] = window.run
    assert '(["invoke"])' in script
    assert "new Function" not in script and "eval(" not in script
    assert "pywebviewready" in script


def test_the_bridge_exposes_only_invoke() -> None:
    assert public_methods(Bridge(object(), None)) == ["invoke"]  # type: ignore[arg-type]
