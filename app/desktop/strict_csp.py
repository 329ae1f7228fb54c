"""Let pywebview's bridge work under the UI's strict Content-Security-Policy (no 'unsafe-eval').

pywebview 6.2.1 needs eval twice: `_createApi` builds each `pywebview.api.*` stub with
`new Function(...)`, and every return value is delivered with `window.evaluate_js(...)`, which
wraps the script in `eval(...)`. Under `script-src 'self'` both throw EvalError, so
`pywebview.api.invoke` never appears and `pywebviewready` never fires. Relaxing the CSP would
weaken the UI's defence against injected content (SPEC S13), so instead this module:

1. after each page load, defines the stubs as plain closures (same protocol as api.js) and
   finishes pywebview's start-up (QWebChannel on Qt, then `pywebviewready`), and
2. delivers bridge return values with `run_js`, which runs the script as is (no eval), from a
   daemon thread.

Both steps are no-ops when pywebview's own code already worked (pages without such a CSP).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Sequence
from typing import Any

from webview.errors import WebViewException

from app.desktop.page_hooks import on_each_load

log = logging.getLogger(__name__)

# What js_bridge_call hands to evaluate_js to settle one call's promise; nothing else matches.
_RETURN_VALUE = re.compile(r'^window\.pywebview\._returnValuesCallbacks\["[\w.]+"\]\["\d+"\]\(\{')

_FINISH_API = """(function (names) {
  var pw = window.pywebview;
  if (!pw || (pw.api && typeof pw.api[names[0]] === "function")) return;
  function stub(name) {
    return function () {
      var id = (Math.random() + "").substring(2);
      var args = Array.prototype.slice.call(arguments);
      var promise = new Promise(function (resolve, reject) { pw._checkValue(name, resolve, reject, id); });
      pw._jsApiCallback(name, args, id);
      return promise;
    };
  }
  // The stubs appear only once calls can be delivered: a page that polls for them must not
  // call before the Qt channel is up (pywebview's own retry gives up after 100 ms).
  function ready() {
    for (var i = 0; i < names.length; i++) {
      pw._returnValuesCallbacks[names[i]] = {};
      pw.api[names[i]] = stub(names[i]);
    }
    window.dispatchEvent(new CustomEvent("pywebviewready"));
  }
  if (pw.platform === "qtwebengine") {
    new QWebChannel(qt.webChannelTransport, function (channel) {
      pw._QWebChannel = channel;
      ready();
    });
  } else {
    ready();
  }
})(%s);"""


def public_methods(js_api: object) -> list[str]:
    return sorted(n for n in dir(js_api) if not n.startswith("_") and callable(getattr(js_api, n)))


def _run_js_logged(window: Any, script: str, what: str) -> None:
    try:
        window.run_js(script)
    except (WebViewException, RuntimeError) as exc:
        log.warning("could not %s: %s", what, exc)


def install(window: Any, method_names: Sequence[str]) -> None:
    """Call right after `create_window`, before `webview.start`."""
    script = _FINISH_API % json.dumps(list(method_names))
    on_each_load(window, lambda: _run_js_logged(window, script, "finish the bridge set-up"), "bridge-setup")

    evaluate_js = window.evaluate_js

    def evaluate_without_eval(script: str, callback: Any = None) -> Any:
        if callback is None and _RETURN_VALUE.match(script):
            # Delivered from a daemon thread: pywebview's call thread (not a daemon) would
            # otherwise wait here for a page that may close meanwhile, and keep the process
            # alive (app/desktop/page_hooks.py). Nobody reads the delivery's result.
            args = (window, script, "deliver a bridge reply")
            threading.Thread(target=_run_js_logged, args=args, name="bridge-reply", daemon=True).start()
            return None
        return evaluate_js(script, callback)

    # An instance attribute shadows the method for this window only; js_bridge_call looks it up
    # on the instance at call time.
    window.evaluate_js = evaluate_without_eval
