"""The text of a PDF (pypdf, pure Python). Scanned PDFs without a text layer give no text."""

from __future__ import annotations

import io
import logging

_log = logging.getLogger(__name__)


class PdfUnreadable(ValueError):
    pass


TOO_COMPLEX = "this PDF is too complex to read"


def pdf_text(data: bytes, max_chars: int) -> str:
    from pypdf import PdfReader  # lazy: only when a PDF is attached
    from pypdf.errors import LimitReachedError, PdfReadError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise PdfUnreadable("the PDF is encrypted")
        pages: list[str] = []
        size = 0
        for number, page in enumerate(reader.pages, start=1):
            text = (page.extract_text() or "").strip()
            pages.append(f"[page {number}]\n{text}")
            size += len(text)
            if size >= max_chars:
                break
    except (LimitReachedError, RecursionError, MemoryError) as exc:
        # A decompression bomb or a structure nested past reason: pypdf stops at its limits,
        # and the model (and the user) are told in words, not with the exception's name.
        _log.info("PDF refused as too complex: %s", type(exc).__name__)
        raise PdfUnreadable(TOO_COMPLEX) from exc
    except (PdfReadError, PyPdfError) as exc:
        raise PdfUnreadable(f"the PDF could not be read ({exc})") from exc
    return "\n\n".join(pages)[:max_chars]
