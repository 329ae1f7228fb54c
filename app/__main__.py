"""`python -m app` is the `cashcode` command."""

from app.cli.main import main

raise SystemExit(main())
