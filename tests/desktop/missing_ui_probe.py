"""Subprocess program: the real desktop app pointed at a UI build that does not exist."""

from __future__ import annotations

import sys
from pathlib import Path

from app.desktop.main import run

if __name__ == "__main__":
    sys.exit(run([], index=Path(sys.argv[1])))
