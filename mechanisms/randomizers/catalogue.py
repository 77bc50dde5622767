"""The catalogue of frequency oracles as probability matrices, re-exported from
:mod:`accountant.core.catalogue` (one implementation, which the accountant's command line uses too).
"""
from accountant.core.catalogue import (  # noqa: F401  (re-exported)
    CATALOGUE,
    catalogue_randomizer,
    hadamard_response,
    krr,
    local_hashing,
    optimized_unary_encoding,
    subset_selection,
    symmetric_unary_encoding,
    unary_encoding,
)
