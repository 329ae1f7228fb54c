"""`python -m app.desktop`."""

import sys

from app.desktop.launch import run

sys.exit(run())
