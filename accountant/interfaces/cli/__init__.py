"""Command line: ``python -m accountant epsilon|delta|local-epsilon ...``.

Thin: parses, calls the library, prints.  Bad input: one line on stderr naming
the parameter and its valid range, exit status 2.
"""
from accountant.interfaces.cli.arguments import (  # noqa: F401
    T_MAX,
    UsageError,
    VR_P_MAX,
)
from accountant.interfaces.cli.parser import (  # noqa: F401
    BIB_RHO_MAX,
    BOUND_CHOICES,
    COMMON,
    DEFAULTS_NOTE,
    DELTA_ARG,
    EPS0_ARG,
    EXAMPLES,
    INVERSE_CHOICES,
    LOG_DELTA_ARG,
    NOTES,
    N_ARG,
    RTOL_ARG,
    build_parser,
    no_command_text,
)
from accountant.interfaces.cli.main import (  # noqa: F401
    main,
    run,
)

__all__ = [
    'BIB_RHO_MAX',
    'BOUND_CHOICES',
    'COMMON',
    'DEFAULTS_NOTE',
    'DELTA_ARG',
    'EPS0_ARG',
    'EXAMPLES',
    'INVERSE_CHOICES',
    'LOG_DELTA_ARG',
    'NOTES',
    'N_ARG',
    'RTOL_ARG',
    'T_MAX',
    'UsageError',
    'VR_P_MAX',
    'build_parser',
    'main',
    'no_command_text',
    'run',
]
