"""The mechanisms' command line. No formula lives here.

May import: everything below it in :mod:`accountant` and :mod:`mechanisms`.
"""
