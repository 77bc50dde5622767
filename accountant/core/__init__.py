"""Layer 0 of the accountant: the vocabulary every other layer speaks.

Holds the local randomizers as frozen, validated parameter types (:mod:`.randomizers`) and the
mechanism registry that names them, with each one's options and capabilities as data
(:mod:`.params`: ``make_params``, ``mechanism_names``), their
default output sizes (:mod:`.rules`), what is not proved about the pair bounds as text
(:mod:`.caveats`), the value every bound returns (:mod:`.result`) and the input limits with the
error contract shared by the library, both command lines and the dashboard (:mod:`.limits`).
Any finite randomizer is its validated probability matrix (:mod:`.finite`), and the named
frequency oracles written as such matrices are built in :mod:`.catalogue` (so that the command
line and the pages of the accountant can name them; ``mechanisms`` re-exports it).

May import: the standard library, numpy, scipy, mpmath. Nothing else of this project.
"""
