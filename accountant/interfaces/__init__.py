"""Top layer of the accountant: what people and files touch.

The command line (:mod:`.cli`, :mod:`.compose_cli`), tables of bounds and their export
(:mod:`.tables`), figures (:mod:`.figure`), whole-or-nothing file writing (:mod:`.fileio`) and
the progress bar (:mod:`.progress`). No formula lives here.

May import: every layer of :mod:`accountant` and of :mod:`mechanisms` below its interfaces.
"""
