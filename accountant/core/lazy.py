"""A package's public names resolved on first use (PEP 562): its ``__getattr__`` and ``__dir__``
over a name -> module map, so that importing the package imports no engine (the command lines
parse and refuse, the dashboard's first page shows its text, before any numerics)."""
from __future__ import annotations

import importlib


def lazy_names(namespace: dict, defined_in: dict, public) -> tuple:
    """(name -> module, ``__getattr__``, ``__dir__``) for the package whose ``globals()`` is
    ``namespace``: a public name is imported from its module (``defined_in``: module -> names) on
    first use, then kept in the package; ``public`` is its ``__all__``."""
    home = {name: module for module, names in defined_in.items() for name in names}

    def __getattr__(name: str):
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list:
        return sorted(set(namespace) | set(public))

    return home, __getattr__, __dir__
