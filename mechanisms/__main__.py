"""``python -m mechanisms``: see :mod:`mechanisms.interfaces.cli`."""
from mechanisms.interfaces.cli import main

raise SystemExit(main())
