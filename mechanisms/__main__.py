"""``python -m mechanisms``: see :mod:`mechanisms.cli`."""
from mechanisms.interfaces.cli import main

raise SystemExit(main())
