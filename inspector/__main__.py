"""Entry point for ``python -m inspector``."""

from inspector.cli import main

raise SystemExit(main())
