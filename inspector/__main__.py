"""Entry point for ``python -m inspector``."""

from inspector.commands import main

raise SystemExit(main())
