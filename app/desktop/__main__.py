"""`python -m app.desktop`."""

import sys

from app.desktop.main import run

sys.exit(run())
