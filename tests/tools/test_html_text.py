"""HTML to text: readable, script-free, links kept, <pre> preserved."""

from __future__ import annotations

from app.tools.html_text import html_to_text


def test_scripts_styles_and_markup_are_dropped_and_whitespace_collapsed() -> None:
    html = "<html><head><title>T</title><script>var x=1</script></head><body><style>p{}</style>" \
        "<div>  a\n  b  </div><p>c&amp;d</p></body></html>"  # fmt: skip
    assert html_to_text(html) == "# T\n\na b\n\nc&d"


def test_links_keep_their_absolute_target_and_pre_blocks_keep_indentation() -> None:
    html = '<p>See <a href="/docs">the docs</a>.</p><pre>def f():\n    return 1</pre>'
    assert html_to_text(html, "https://example.com/page") == (
        "See [the docs](https://example.com/docs).\n\ndef f():\n    return 1"
    )


def test_javascript_links_are_not_rendered_as_links() -> None:
    assert html_to_text('<a href="javascript:alert(1)">click</a>') == "click"
