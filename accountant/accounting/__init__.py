"""Layer 3 of the accountant: the user-facing accountant and the inverse question.

:class:`~accountant.accounting.shuffle.ShuffleAccountant` (``get_epsilon`` / ``get_delta``,
proved numbers first) and :func:`~accountant.accounting.calibration.local_epsilon` (the largest
local eps0 that meets a central target).

May import: :mod:`accountant.core`, :mod:`accountant.engines`, :mod:`accountant.bounds.registry`.
"""
