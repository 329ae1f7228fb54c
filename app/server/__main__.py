"""`python -m app.server` = `cashcode serve` (handy before the CLI wires it, and in tests)."""

import sys

from app.server.main import run

sys.exit(run())
