"""The local randomizers Collision and CoCo, and the hash family they share.

May import: :mod:`accountant.core`, :mod:`mechanisms.core`, :mod:`mechanisms.analysis`.
"""
