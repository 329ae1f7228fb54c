"""The folder the knowledge tests index, made in the test: Markdown with headings, code, a PDF
and a .docx (real files, built here), Chinese text, a 25 MB file, a `.gitignore`d folder, a
hidden folder and a binary."""

from __future__ import annotations

from pathlib import Path

from tests.attachments.helpers import pdf

GUIDE = """# Guide

Intro paragraph about the project.

## Install

Run the installer with the flag --quiet to install silently.
The frobnicator needs Python.

## Usage

```python
def frobnicate(widget):
    return widget * 2
```

Call frobnicate on every widget.
"""

CODE = '''"""Helpers."""


def parse_config_file(path):
    """Read the zanzibar settings."""
    return open(path).read()


class HttpResponseParser:
    pass
'''

CHINESE = "第一行\n\n知识库可以离线搜索文件。\n\n最后一行\n"


def docx_bytes(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    document.add_paragraph("Revenue grew thanks to the marmalade line.")
    document.add_heading("Risks", level=2)
    document.add_paragraph("Supply of oranges is uncertain.")
    document.save(str(path))


def build(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "config.py").write_text(CODE, encoding="utf-8")
    (root / "notes-zh.txt").write_text(CHINESE, encoding="utf-8")
    (root / "paper.pdf").write_bytes(pdf("Quantum pineapple results"))
    docx_bytes(root / "report.docx")
    with (root / "huge.txt").open("wb") as f:  # 25 MB: over the 20 MB cap
        f.truncate(25 * 1024 * 1024)
    (root / "page.html").write_text(
        "<html><head><title>t</title><style>.x{}</style></head>\n<body>\n<p>Visible &amp; kumquat</p>\n"
        "<script>var hidden = 'kumquat script';</script>\n</body></html>\n",
        encoding="utf-8",
    )
    (root / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    (root / "build").mkdir()
    (root / "build" / "out.md").write_text("ignored rhubarb\n", encoding="utf-8")
    (root / "debug.log").write_text("ignored rhubarb log\n", encoding="utf-8")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.md").write_text("hidden rhubarb\n", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (root / "blob").write_bytes(b"\0\1\2rhubarb\0")
    return root
