"""Small real files for attachment tests: a PNG and a one-page PDF with a text layer."""

from __future__ import annotations

import struct
import zlib


def png(width: int = 2, height: int = 2, extra: int = 0) -> bytes:
    """A valid RGB PNG; `extra` bytes of a private ancillary chunk make it as large as needed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(
        b"IDAT", zlib.compress(raw)
    )
    if extra:
        body += chunk(b"prVt", b"\x00" * extra)
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")


def pdf(text: str) -> bytes:
    """A minimal one-page PDF whose text layer is `text` (ASCII)."""
    return _pdf_with_contents(b"", f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())


def pdf_bomb(expanded_mb: int = 100) -> bytes:
    """A one-page PDF whose ~100 KB content stream inflates to `expanded_mb` MB of spaces:
    past pypdf's decompression limit (a decompression bomb)."""
    squeezer = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    packed = b"".join(squeezer.compress(chunk) for _ in range(expanded_mb)) + squeezer.flush()
    return _pdf_with_contents(b"/Filter /FlateDecode ", packed)


def _pdf_with_contents(stream_keys: bytes, stream: bytes) -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< %s/Length %d >>\nstream\n" % (stream_keys, len(stream)) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out
