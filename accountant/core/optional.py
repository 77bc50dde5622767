"""Optional engines: import them with a one-line message naming what to install.

``require("distributed", "--scheduler", "dask")`` returns the module or raises
:class:`MissingDependency` (an ``ImportError``) whose message names the feature, the
PyPI package and the package extra that installs it; the command lines report it in one
line with exit status 2 (:func:`accountant.core.limits.guarded`), before any work.
"""
from __future__ import annotations

import importlib
from types import ModuleType

# module -> (PyPI name, extra of this package that installs it)
PACKAGES = {
    "flint": ("python-flint", "certified"),
    "distributed": ("dask[distributed]", "dask"),
    "dask": ("dask[distributed]", "dask"),
    "dp_accounting": ("dp-accounting", "pld"),
}


class MissingDependency(ImportError):
    """An optional package needed by the requested feature is not installed."""


def missing_message(module: str, feature: str) -> str:
    pypi, extra = PACKAGES[module]
    return (f"{feature} needs the Python package {pypi}, which is not installed: "
            f"pip install '{pypi}' (or this package's extra: pip install -e '.[{extra}]')")


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependency` naming what to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependency(missing_message(module, feature)) from None
