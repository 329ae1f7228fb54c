"""`python -m app.desktop` (and the frozen CashCode executable's entry point)."""

import sys

if len(sys.argv) > 1 and (sys.argv[1].startswith("--mcp-") or sys.argv[1] == "--sandbox-launch"):
    # A frozen build runs its MCP child guard, built-in servers and sandbox launcher itself
    # (app/mcp/frozen.py); checked first, so these children never load the desktop.
    from app.mcp.frozen import hidden_entry

    hidden = hidden_entry(sys.argv[1:])
    if hidden is not None:
        sys.exit(hidden)

if sys.argv[1:2] == ["--kb-worker"]:  # an index run's worker (app/knowledge/worker.py)
    from app.knowledge.worker import main

    sys.exit(main())

from app.desktop.launch import run

sys.exit(run())
