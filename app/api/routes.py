"""The route table: every name in ROUTE_TYPES bound to a CashCodeApp method.

Adapter-only routes (`desktop.*`) answer `unsupported` until an adapter registers a handler
with `CashCodeApp.register_route`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.app import CashCodeApp, Handler

ADAPTER_ONLY_PREFIX = "desktop."


def bind_routes(app: CashCodeApp) -> dict[str, Handler]:
    routes: dict[str, Handler] = {
        "app.info": app.app_info,
        "app.detect_ollama": app.app_detect_ollama,
        "chats.list": app.chats_list,
        "chats.create": app.chats_create,
        "chats.get": app.chats_get,
        "chats.rename": app.chats_rename,
        "chats.delete": app.chats_delete,
        "chat.send": app.chat_send,
        "chat.cancel": app.chat_cancel,
        "chat.steer": app.chat_steer,
        "chat.queue": app.chat_queue,
        "chat.retry": app.chat_retry,
        "chat.approve": app.chat_approve,
        "inbox.list": app.inbox_list,
        "inbox.answer": app.inbox_answer,
        "chat.edit": app.chat_edit,
        "chat.regenerate": app.chat_regenerate,
        "chats.switch_branch": app.chats_switch_branch,
        "providers.list": app.providers_list,
        "providers.save": app.providers_save,
        "providers.delete": app.providers_delete,
        "providers.test": app.providers_test,
        "models.list": app.models_list,
        "settings.get": app.settings_get,
        "settings.update": app.settings_update,
        "approvals.list": app.approvals_list,
        "approvals.revoke": app.approvals_revoke,
        "approvals.enable": app.approvals_enable,
        "tools.list": app.tools_list,
        "desktop.pick_folder": app.unsupported,
        "desktop.pick_file": app.unsupported,
    }
    return routes


def bind_adapter_only(app: CashCodeApp, routes: dict[str, Handler]) -> None:
    """Every other adapter-only route answers `unsupported` until an adapter serves it."""
    from app.api.route_types import ROUTE_TYPES

    for name in ROUTE_TYPES:
        if name.startswith(ADAPTER_ONLY_PREFIX):
            routes.setdefault(name, app.unsupported)
