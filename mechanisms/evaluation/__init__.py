"""Synthetic data, metrics and Monte-Carlo simulation of every mechanism.

May import: :mod:`accountant.core`, :mod:`mechanisms.core`, :mod:`mechanisms.analysis`,
:mod:`mechanisms.randomizers`, :mod:`mechanisms.baselines`, :mod:`mechanisms.frequency`.
"""
