"""Render the app icon (resources/icons/cashcode.svg) into every file the installers need.

    python packaging/make_icons.py        # rewrites resources/icons/*.png, cashcode.ico, cashcode.icns

PNG at 16…512 px (Linux hicolor theme, tray, window), a multi-size .ico (Windows, PNG entries as
Windows Vista and later read them) and an .icns (macOS, PNG entries). Qt's SVG renderer from the
desktop dependencies draws the PNGs; the .ico and .icns containers are written here by hand
(both are a short header and a table of PNG blobs), so no image tool is needed.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# icns element types holding PNG data, by pixel size (Apple's "ic07".."ic10", "icp4".."icp6").
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render_pngs(svg: Path, sizes: tuple[int, ...]) -> dict[int, bytes]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PyQt6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PyQt6.QtGui import QGuiApplication, QImage, QPainter
    from PyQt6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    out: dict[int, bytes] = {}
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        out[size] = bytes(data.data())
    return out


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    table, blobs = b"", b""
    for size, png in sorted(pngs.items()):
        dim = 0 if size >= 256 else size  # 0 means 256 in the ICO directory
        table += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset + len(blobs))
        blobs += png
    return header + table + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
                    for size, kind in sorted(ICNS_TYPES.items()))
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def main() -> int:
    pngs = render_pngs(HERE / "cashcode.svg", SIZES)
    for size, png in pngs.items():
        write_atomic(HERE / f"cashcode-{size}.png", png)
    write_atomic(HERE / "cashcode.png", pngs[256])
    write_atomic(HERE / "cashcode.ico", ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    write_atomic(HERE / "cashcode.icns", icns_bytes(pngs))
    print(f"wrote {len(pngs) + 3} icon files into {HERE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
