"""Issue 41 item 1 in real Chromium over `cashcode serve`: a diagram shows exactly the text of
its source. Mermaid's SVG labels dropped every `>` (`B{Rate > 0?}` was drawn "Rate 0?", `a >= b`
"a = b") and showed `#quot;` as `&quot;`. A corpus of labels with `> < >= <= & " ' #`, CJK and
emoji is read back from the SVG text where diagrams appear: the answer in the chat, the saved
SVG file and the HTML export."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# (label as written in the Mermaid source, the text the diagram must show)
FLOWCHART_LABELS = [
    ("A[Rate > 0?]", "Rate > 0?"),
    ("B{a >= b}", "a >= b"),
    ("C[a <= b]", "a <= b"),
    ("D[x < y]", "x < y"),
    ("E[Tom & Jerry]", "Tom & Jerry"),
    ('F["say #quot;hi#quot;"]', 'say "hi"'),
    ("G[it's fine]", "it's fine"),
    ("H[#1 item]", "#1 item"),
    ("I[你好，世界]", "你好，世界"),
    ("J[🚀 发射 > 0]", "🚀 发射 > 0"),
]
EDGE_LABEL = ("x > y & z", "x > y & z")
# In a sequence diagram a bare `#` starts a comment: Mermaid's code for it is `#35;`.
SEQUENCE_TEXT = ("Rate > 0? a >= b & 'q' \"x\" #35;2 好 🚀", "Rate > 0? a >= b & 'q' \"x\" #2 好 🚀")


def diagram_answer() -> str:
    nodes = [label for label, _ in FLOWCHART_LABELS]
    chain = [f"  {nodes[0]} -->|{EDGE_LABEL[0]}| {nodes[1]}"]
    ids = [label.split("[")[0].split("{")[0] for label in nodes]
    chain += [f"  {a} --> {b}" for a, b in zip(ids[1:], nodes[2:], strict=False)]
    flowchart = "\n".join(["```mermaid", "flowchart TD", *chain, "```"])
    sequence = "\n".join(["```mermaid", "sequenceDiagram", f"  Alice->>Bob: {SEQUENCE_TEXT[0]}", "```"])
    return f"Two diagrams:\n\n{flowchart}\n\n{sequence}\n\nDone."


WANTED = [shown for _, shown in FLOWCHART_LABELS] + [EDGE_LABEL[1], SEQUENCE_TEXT[1]]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def svg_texts(svg: Locator) -> list[str]:
    """The text of every `<text>` element of a drawn diagram (Mermaid's SVG labels)."""
    texts: list[str] = svg.evaluate("s => [...s.querySelectorAll('text')].map(t => t.textContent)")
    return [_normal(t) for t in texts]


def file_svg_texts(markup: str) -> list[str]:
    root = ET.fromstring(markup)
    return [_normal("".join(el.itertext())) for el in root.iter("{http://www.w3.org/2000/svg}text")]


def assert_verbatim(texts: list[str], where: str) -> None:
    missing = [label for label in WANTED if label not in texts]
    assert not missing, f"{where}: labels not shown verbatim: {missing}; the SVG says {texts}"


def test_diagram_labels_show_their_source_text_in_the_chat_the_svg_file_and_the_export(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    tmp_path: Path,
) -> None:
    page, _, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    fresh_llm.script({"text": diagram_answer()})
    send(page, "Draw it")
    answer = last(page, "message-assistant")
    expect(answer).to_have_attribute("data-state", "done")
    diagrams = answer.locator(".diagram-block")
    expect(diagrams).to_have_count(2)
    for i in range(2):
        expect(diagrams.nth(i)).to_have_attribute("data-state", "rendered")

    # 1. The chat.
    chat_texts = svg_texts(diagrams.nth(0).locator(".diagram-view svg")) + svg_texts(
        diagrams.nth(1).locator(".diagram-view svg")
    )
    assert_verbatim(chat_texts, "chat")

    # 2. The saved SVG file of each diagram.
    saved: list[str] = []
    for i in range(2):
        with page.expect_download() as info:
            diagrams.nth(i).locator(".diagram-svg").click()
        path = tmp_path / f"diagram-{i}.svg"
        info.value.save_as(path)
        saved += file_svg_texts(path.read_text(encoding="utf-8"))
    assert_verbatim(saved, "saved SVG")

    # 3. The HTML export, opened on its own.
    page.get_by_test_id("export-menu").click()
    with page.expect_download() as html_info:
        page.get_by_test_id("export-html").click()
    html_path = tmp_path / "chat.html"
    html_info.value.save_as(html_path)
    page.goto(html_path.as_uri())
    exported = page.locator(".diagram-view svg")
    expect(exported).to_have_count(2)
    assert_verbatim(svg_texts(exported.nth(0)) + svg_texts(exported.nth(1)), "HTML export")
