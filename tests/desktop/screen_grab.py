"""Subprocess helper for window tests: grab the X screen with Qt and print what it shows.

Usage: DISPLAY=:N python -m tests.desktop.screen_grab  → JSON {"width", "height", "colours"}
(`colours`: distinct pixel values on an 8 px grid; a blank or black window gives 1-3).
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    from qtpy.QtWidgets import QApplication

    app = QApplication(sys.argv)
    screen = app.primaryScreen()
    if screen is None:
        raise SystemExit("Qt found no screen on $DISPLAY")
    image = screen.grabWindow().toImage()  # the default window id 0 is the whole screen
    colours = {image.pixel(x, y) for y in range(0, image.height(), 8) for x in range(0, image.width(), 8)}
    print(json.dumps({"width": image.width(), "height": image.height(), "colours": len(colours)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
