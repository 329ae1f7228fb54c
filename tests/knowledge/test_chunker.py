"""Chunk sizes, seams and overlap on long text (the corpus files are each one chunk)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from app.knowledge.chunker import MAX_CHARS, chunk, markdown_heading
from app.knowledge.extract import Document


def _doc(text: str, kind: str = "markdown") -> Document:
    return Document(tuple(text.split("\n")), kind)  # type: ignore[arg-type]


def _lines_of(doc: Document, start: int, end: int) -> str:
    return "\n".join(doc.lines[start - 1 : end])


def test_long_sections_are_cut_at_paragraphs_with_overlap() -> None:
    paragraphs = [f"Paragraph {n} " + "word " * 60 for n in range(40)]  # ~310 chars each
    doc = _doc("# Title\n\n" + "\n\n".join(paragraphs) + "\n\n## Next\n\nshort tail")
    chunks = chunk(doc)
    body = [c for c in chunks if c.heading == "Title"]
    assert len(body) > 3
    for c in chunks:
        assert len(c.text) <= MAX_CHARS
        assert c.text == _lines_of(doc, c.start_line, c.end_line)  # the range is exactly the text
        assert doc.lines[c.start_line - 1].strip() and doc.lines[c.end_line - 1].strip()
    for c in body[:-1]:
        assert 1000 <= len(c.text) <= MAX_CHARS
    for a, b in zip(body, body[1:], strict=False):
        assert b.start_line <= a.end_line  # overlap: the next chunk repeats the previous one's end
    assert chunks[-1].heading == "Title > Next" and chunks[-1].text == "## Next\n\nshort tail"


def test_a_code_fence_is_not_split_at_its_blank_lines_and_a_huge_line_is_cut() -> None:
    doc = _doc("# Code\n\n```\nline one\n\nline two\n```\n\n" + "x" * 5000)
    chunks = chunk(doc)
    assert chunks[0].text == "# Code\n\n```\nline one\n\nline two\n```"
    long = [c for c in chunks if "xxx" in c.text]
    assert all(c.start_line == c.end_line == 9 for c in long)
    assert sum(len(c.text) for c in long) >= 5000 and all(len(c.text) <= MAX_CHARS for c in long)


def test_hash_lines_in_code_are_not_headings() -> None:
    doc = _doc("# a comment\nx = 1\n\n# another\ny = 2", kind="code")
    assert [(c.heading, c.start_line, c.end_line) for c in chunk(doc)] == [("", 1, 5)]


# The regex the linear heading parser replaced (issue 33.6); kept here as the specification.
_OLD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(["#", " ", "\t", "a", "b", "\u3000", "\x1c", "\xa0"]), max_size=14))
def test_the_heading_parser_reads_what_the_regex_read(line: str) -> None:
    match = _OLD_HEADING.match(line)
    assert markdown_heading(line) == ((len(match.group(1)), match.group(2)) if match else None)


def test_a_heading_with_a_long_run_of_spaces_is_read_at_once() -> None:
    """That regex backtracked in cubic time here (100 KB: hours); the parser is linear."""
    line = "# alpha" + " " * 100_000 + "omega   ##  "
    assert markdown_heading(line) == (1, "alpha" + " " * 100_000 + "omega")
