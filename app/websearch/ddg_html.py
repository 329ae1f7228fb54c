"""Results from DuckDuckGo's HTML endpoint (`html.duckduckgo.com/html/`).

Result links are `<a class="result__a" href=…>` (often a `/l/?uddg=<url>` redirect, decoded
here) and snippets `<a|div class="result__snippet">`. Parsed with the standard library's
tolerant HTML parser; markup changes give fewer results, never an exception.
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

from app.websearch.model import SearchResult


def real_url(href: str) -> str:
    absolute = urljoin("https://duckduckgo.com/", href)
    parts = urlsplit(absolute)
    if parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg", [""])[0]
        if target:
            return target
    return absolute


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.results: list[SearchResult] = []
        self._field: str | None = None  # "title" or "snippet" while inside one
        self._depth = 0
        self._title: list[str] = []
        self._snippet: list[str] = []
        self._url = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._field is not None:
            self._depth += 1
            return
        classes = (dict(attrs).get("class") or "").split()
        if "result__a" in classes:
            self._flush()
            self._url = real_url(dict(attrs).get("href") or "")
            self._field, self._depth = "title", 0
        elif "result__snippet" in classes and self._url:
            self._field, self._depth = "snippet", 0

    def handle_endtag(self, tag: str) -> None:
        if self._field is None:
            return
        if self._depth == 0:
            self._field = None
        else:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._field == "title":
            self._title.append(data)
        elif self._field == "snippet":
            self._snippet.append(data)

    def _flush(self) -> None:
        title = " ".join("".join(self._title).split())
        if self._url and title:
            snippet = " ".join("".join(self._snippet).split())
            self.results.append(SearchResult(title=title, url=self._url, snippet=snippet))
        self._title, self._snippet, self._url = [], [], ""

    def finish(self) -> list[SearchResult]:
        self.close()
        self._flush()
        return self.results


def parse_results(html: str) -> list[SearchResult]:
    parser = _Parser()
    parser.feed(html)
    seen: set[str] = set()
    unique = []
    for r in parser.finish():
        # Ads link through /y.js; skip them and duplicates.
        if r.url in seen or "duckduckgo.com/y.js" in r.url:
            continue
        seen.add(r.url)
        unique.append(r)
    return unique
