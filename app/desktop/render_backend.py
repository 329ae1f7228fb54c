"""Which Qt Quick scene-graph backend draws the web views on Linux.

Qt WebEngine's view is a Qt Quick item. By default Qt Quick draws it with OpenGL; on a machine
without a GPU that OpenGL is Mesa's llvmpipe, a software rasteriser that composites the whole
window on every frame. Measured during a 500 tok/s stream in the 1200x800 window on the 2-core
Xvfb box: llvmpipe's two threads took ~0.67 s of CPU each in a 3 s stream, and each `run_js`
round trip (it waits for the GUI thread) took ~30-40 ms at the median. Qt Quick's own software
backend draws with QPainter instead: no llvmpipe threads and a ~10 ms round trip in the same
run (bench/README.md, "Tokens on screen").

With a GPU, OpenGL is the better choice, so the software backend is only picked when the
process has no GPU render node to use. A backend the user chose (`QT_QUICK_BACKEND`, or the
RHI backend `QSG_RHI_BACKEND`) always wins.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path
from typing import Final

QUICK_BACKEND_VAR: Final = "QT_QUICK_BACKEND"
RHI_BACKEND_VAR: Final = "QSG_RHI_BACKEND"
DRI_DIR: Final = Path("/dev/dri")


def has_gpu_render_node(dri_dir: Path = DRI_DIR) -> bool:
    """A DRM render node (`renderD128`, ...) is what Mesa needs for hardware OpenGL."""
    try:
        return any(entry.name.startswith("renderD") for entry in dri_dir.iterdir())
    except OSError:
        return False  # no /dev/dri at all: containers, VMs without a virtual GPU, CI


def choose_quick_backend(env: MutableMapping[str, str], dri_dir: Path = DRI_DIR) -> str | None:
    """Set `QT_QUICK_BACKEND=software` in `env` when there is no GPU; return what was set.

    Must run before the first Qt Quick window exists (Qt reads the variable once)."""
    if env.get(QUICK_BACKEND_VAR) or env.get(RHI_BACKEND_VAR):
        return None
    if has_gpu_render_node(dri_dir):
        return None
    env[QUICK_BACKEND_VAR] = "software"
    return "software"
