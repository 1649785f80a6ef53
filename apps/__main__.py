"""``python -m apps``: the same as the ``durak-bot`` command."""

from apps.cli import main

raise SystemExit(main())
