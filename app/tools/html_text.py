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


# Marked sections (`<![CDATA[ … ]]>`, `<![if …]>`) as html.parser (_markupbase) reads them: the
# keyword decides the end it looks for; any other `<![` makes it raise AssertionError.
_SECTION = re.compile(r"<!\[(cdata|temp|ignore|include|rcdata|if|else|endif)(?![-_.a-zA-Z0-9])", re.I)
_SECTION_ENDS = {"if": re.compile(r"\]\s*>"), "other": re.compile(r"\]\s*\]\s*>")}


def _defuse(html: str) -> str:
    """`html` with every `<` that opens nothing closed later written as `&lt;` (the text shown
    stays the same). html.parser searches to the end of the page from each unclosed `<`,
    `<!--` or `<![`: a page of them took time quadratic in its size (a 50 KB one 3 s, a
    5 MiB one hours; issue 33.6). One pass: where each kind of end was last found (or that it
    was not found) is remembered, so every search starts past the previous one."""
    out: list[str] = []
    found_at: dict[str | re.Pattern[str], int] = {}  # where an end was found; -1: nowhere after

    def ends(end: str | re.Pattern[str], start: int) -> bool:
        known = found_at.get(end)
        if known is not None and (known < 0 or known >= start):
            return known >= 0
        if isinstance(end, re.Pattern):
            match = end.search(html, start)
            found_at[end] = match.start() if match else -1
        else:
            found_at[end] = html.find(end, start)
        return found_at[end] >= 0

    i = 0
    while (lt := html.find("<", i)) >= 0:
        out.append(html[i:lt])
        if html.startswith("<!--", lt):
            closed = ends("-->", lt + 4)
        elif html.startswith("<![", lt):
            section = _SECTION.match(html, lt)
            kind = "if" if section and section.group(1).lower() in ("if", "else", "endif") else "other"
            closed = section is not None and ends(_SECTION_ENDS[kind], section.end())
        else:
            closed = ends(">", lt + 1)
        out.append("<" if closed else "&lt;")
        i = lt + 1
    out.append(html[i:])
    return "".join(out)


def html_to_text(html: str, base_url: str = "") -> str:
    parser = _Extractor(base_url)
    parser.feed(_defuse(html))
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.parts).split("\n")]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    title = " ".join(parser.title.split())
    return f"# {title}\n\n{body}" if title else body
