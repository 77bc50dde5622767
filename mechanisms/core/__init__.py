"""Layer 0 of the mechanisms: the data model (s-sparse ternary vectors, estimates).

May import: the standard library and numpy; nothing of this project.
"""
