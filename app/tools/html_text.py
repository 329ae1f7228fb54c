"""HTML -> readable plain text with the stdlib parser (no scripts, styles or markup).

Block elements become line breaks, whitespace is collapsed as a browser would (except inside
<pre>), and links keep their target as Markdown `[text](url)` so the model can follow them.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head"})
_BLOCK = frozenset(
    {
        "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer",
        "nav", "aside", "main", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr",
        "dt", "dd", "figure", "figcaption", "form", "title",
    }
)  # fmt: skip
_WS = re.compile(r"\s+")


class _Extractor(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._base = base_url
        self._skip_depth = 0
        self._pre_depth = 0
        self._in_title = False
        self._link: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip_depth += 1
        elif tag == "pre":
            self._pre_depth += 1
        elif tag == "a" and not self._skip_depth:
            href = dict(attrs).get("href") or ""
            url = urljoin(self._base, href) if href else ""
            if url.startswith(("http://", "https://")):
                self._link = url
                self.parts.append("[")
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP and self._skip_depth:
            self._skip_depth -= 1
        elif tag == "pre" and self._pre_depth:
            self._pre_depth -= 1
        elif tag == "a" and self._link is not None:
            self.parts.append(f"]({self._link})")
            self._link = None
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif self._skip_depth:
            return
        elif self._pre_depth:
            self.parts.append(data)
        else:
            text = _WS.sub(" ", data)
            if not self.parts or self.parts[-1].endswith("\n"):
                text = text.lstrip()
            if text:
                self.parts.append(text)


def html_to_text(html: str, base_url: str = "") -> str:
    parser = _Extractor(base_url)
    parser.feed(html)
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.parts).split("\n")]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    title = " ".join(parser.title.split())
    return f"# {title}\n\n{body}" if title else body
