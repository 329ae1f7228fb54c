"""The App pages ready to be framed: a random token per render → the page and its declared
policy. The frame loads `/mcp-app/<token>` from the server's root (outside `serve`'s secret
prefix, so its `location` holds no secret); the server adapter asks for the page by token and
sends it with a policy built only from what the resource declared (app/server/app_frames.py).

Kept in memory, newest last, at most MAX_PAGES: a token only names a page the person's own UI
asked for, and it grants nothing but that page again."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass

from app.mcp.apps import FEATURE, AppPolicy, Permission

MAX_PAGES = 64
PAGE_PATH = "/mcp-app/"


@dataclass(frozen=True)
class AppPage:
    html: str
    policy: AppPolicy
    allowed: tuple[Permission, ...] = ()  # declared and allowed by the person

    @property
    def features(self) -> list[str]:
        return [FEATURE[p] for p in self.allowed]


class AppPages:
    def __init__(self, limit: int = MAX_PAGES) -> None:
        self._limit = limit
        self._pages: OrderedDict[str, AppPage] = OrderedDict()

    def add(self, page: AppPage) -> str:
        """The page's address (from the server's root)."""
        token = secrets.token_urlsafe(24)
        self._pages[token] = page
        while len(self._pages) > self._limit:
            self._pages.popitem(last=False)
        return PAGE_PATH + token

    def get(self, token: str) -> AppPage | None:
        return self._pages.get(token)
