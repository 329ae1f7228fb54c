"""Window-wide drops of a Skill .zip or folder (SPEC S7.5) and of an MCP Bundle (.mcpb).

pywebview fills a dropped file's full path only in its Python drop handler, and Qt needs
`dragenter` cancelled too, or the drop becomes a navigation.

Browsers never give a page the full path of a dropped file; pywebview adds
`pywebviewFullPath` to the files, but only inside a *Python* DOM `drop` handler, and native
drops are accepted only while such a handler is registered. So the window binds document-level
handlers once each page has loaded: `dragenter` and `dragover` with preventDefault (without the
`dragenter` one QtWebEngine treats the drop as a navigation and hands the file to the desktop),
and `drop`, which publishes `ImportSkillRequested(path)` on the core loop for every dropped
`.zip` or folder, and `BundleOpenRequested(path)` for every `.mcpb` (anywhere, the composer
too: a bundle is never an attachment). A drop on the Knowledge view (`data-dropzone="knowledge"`
on it or an element above the target; the listener notes the nearest zone on the event as
`cashcodeDropzone`, which pywebview sends along) is `KnowledgeAddRequested(path)` for every
dropped file or folder instead, and nothing else. The UI's previews listen to those events. Propagation is
not stopped, so the page's own handlers still see the drop (overlay, polite refusal of other
files); other drops on the composer are left to the composer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.desktop.page_hooks import on_each_load

if TYPE_CHECKING:
    from app.contracts.events import AppEvent

_log = logging.getLogger(__name__)


def _paths(event: dict[str, Any]) -> list[str]:
    files = (event.get("dataTransfer") or {}).get("files") or []
    found = (item.get("pywebviewFullPath") if isinstance(item, dict) else None for item in files)
    return [path for path in found if isinstance(path, str) and path]


def _on_knowledge(event: dict[str, Any]) -> bool:
    return event.get("cashcodeDropzone") == "knowledge"


def knowledge_paths(event: dict[str, Any]) -> list[str]:
    """Full paths of the files and folders dropped on the Knowledge view, in drop order."""
    if not _on_knowledge(event):
        return []
    return [path for path in _paths(event) if os.path.isdir(path) or os.path.isfile(path)]


def skill_paths(event: dict[str, Any]) -> list[str]:
    """Full paths of the dropped Skill candidates (.zip files and folders), in drop order."""
    if _on_composer(event) or _on_knowledge(event):
        return []
    files = (event.get("dataTransfer") or {}).get("files") or []
    out: list[str] = []
    for item in files:
        path = item.get("pywebviewFullPath") if isinstance(item, dict) else None
        if not isinstance(path, str) or not path:
            continue
        if os.path.isdir(path) or path.lower().endswith(".zip"):
            out.append(path)
    return out


def bundle_paths(event: dict[str, Any]) -> list[str]:
    """Full paths of the dropped MCP Bundles (.mcpb files), in drop order."""
    if _on_knowledge(event):
        return []
    files = (event.get("dataTransfer") or {}).get("files") or []
    out: list[str] = []
    for item in files:
        path = item.get("pywebviewFullPath") if isinstance(item, dict) else None
        if isinstance(path, str) and path.lower().endswith(".mcpb") and os.path.isfile(path):
            out.append(path)
    return out


def _on_composer(event: dict[str, Any]) -> bool:
    target = event.get("target") or {}
    dropzone = (target.get("dataset") or {}).get("dropzone") if isinstance(target, dict) else None
    return dropzone == "composer"


# The page runs under a strict CSP without 'unsafe-eval' (app/desktop/strict_csp.py), and
# pywebview's DOM API (`window.dom.document.events.drop += ...`) goes through `evaluate_js`,
# which wraps every script in eval(). So the listeners are added with `run_js` (no eval) and
# report through the same channel pywebview's own DOM handlers use (`pywebviewEventHandler`,
# which is where the native full paths are filled in). Node id and the three registrations
# below mirror pywebview 6.2's `Element.on` (webview/dom/element.py); the version is pinned.
NODE_ID = "cashcode-skill-drop"

_LISTENERS_JS = """(function (nodeId) {
  var pw = window.pywebview;
  if (!pw || window.__cashcodeSkillDrop) return;
  window.__cashcodeSkillDrop = true;
  document.addEventListener("dragenter", function (e) { e.preventDefault(); });
  document.addEventListener("dragover", function (e) { e.preventDefault(); });
  document.addEventListener("drop", function (e) {
    e.preventDefault();
    var zone = e.target && e.target.closest ? e.target.closest("[data-dropzone]") : null;
    e.cashcodeDropzone = zone ? zone.getAttribute("data-dropzone") : "";
    pw._jsApiCallback("pywebviewEventHandler", { event: e, nodeId: nodeId }, "eventHandler");
  });
})(%s);"""


class _DropTarget:
    """What pywebview's dispatcher looks up by node id: handlers per event type."""

    def __init__(self, on_drop: Callable[[dict[str, Any]], None]) -> None:
        self._event_handlers: dict[str, list[Callable[[dict[str, Any]], None]]] = {"drop": [on_drop]}


def install(window: Any, loop: asyncio.AbstractEventLoop, app_task: asyncio.Future[Any]) -> None:
    """Bind the drop handlers on every page load of `window` (one line in main.py)."""
    from webview.dom import _dnd_state  # lazy: pywebview loads only with the window

    def publish(event: AppEvent) -> None:
        if app_task.done() and not app_task.cancelled() and app_task.exception() is None:
            app_task.result().bus.publish(event)

    def on_drop(event: dict[str, Any]) -> None:  # pywebview runs it on its own thread
        # Imported here, not at the top: the events' pydantic models cost ~0.1 s on the GUI
        # thread, which is installing this before the window is shown.
        from app.contracts.events import BundleOpenRequested, ImportSkillRequested, KnowledgeAddRequested

        for path in knowledge_paths(event):
            loop.call_soon_threadsafe(publish, KnowledgeAddRequested(path=path))
        for path in skill_paths(event):
            loop.call_soon_threadsafe(publish, ImportSkillRequested(path=path))
        for path in bundle_paths(event):
            loop.call_soon_threadsafe(publish, BundleOpenRequested(path=path))

    # Native drops are accepted (and their paths recorded) only while a drop listener exists.
    _dnd_state["num_listeners"] = int(str(_dnd_state["num_listeners"])) + 1
    on_each_load(window, lambda: bind(window, on_drop), "dnd-bind")


def bind(window: Any, on_drop: Callable[[dict[str, Any]], None]) -> None:
    """After each page load (pywebview clears its element table on load, before this runs)."""
    try:
        window.dom._elements[NODE_ID] = _DropTarget(on_drop)
        window.run_js(_LISTENERS_JS % json.dumps(NODE_ID))
    except Exception:  # a page without the bridge (error page) simply has no window drops
        _log.warning("could not bind the window's drop handlers", exc_info=True)
