"""``python -m mechanisms``: see :mod:`mechanisms.cli`."""
from .cli import main

raise SystemExit(main())
