"""The vocabulary of a dispatch on the parameter type: its refusal and its lookups.

Every law or bound that differs between mechanisms is one dispatch on the type of the
parameter object (``functools.singledispatch``, or a table keyed by type), registered in the
layer that owns the law; this module defines the types and knows no law.  A type no law is
registered for is refused with :class:`UnsupportedMechanismError` (the shape of dp_accounting's
``UnsupportedEventError``): a ValueError naming the mechanism and the types that are
registered, never a fall-through to another mechanism's law.

Examples
--------
>>> from functools import singledispatch
>>> from accountant.core.dispatch import supports, unsupported
>>> from accountant.core.params import KRRParams, make_params
>>> @singledispatch
... def law(params):
...     raise unsupported(params, "the example law", law)
>>> @law.register(KRRParams)
... def _(params):
...     return params.k
>>> law(make_params("krr", 1.0, k=3)), supports(law, make_params("oue", 1.0, k=3))
(3, False)
>>> law(make_params("oue", 1.0, k=3))
Traceback (most recent call last):
...
accountant.core.dispatch.UnsupportedMechanismError: the example law is not available for mechanism 'oue' (OUEParams); it is registered for KRRParams
"""
from __future__ import annotations


from accountant.core.finite import FiniteRandomizer
from accountant.core.params import MECHANISM_SPECS, MECHANISMS


class UnsupportedMechanismError(ValueError):
    """A law or bound asked of a parameter type none is registered for (the message names the
    mechanism); a ValueError, so every surface reports it as a bad input."""


def _type(params) -> type:
    return params if isinstance(params, type) else type(params)


def _registered_names(registered) -> list:
    if registered is None:
        return []
    types = registered.registry if hasattr(registered, "registry") else registered
    return sorted(t.__name__ for t in types if t is not object)


def unsupported(params, what: str, registered=None) -> UnsupportedMechanismError:
    """The error for ``what`` asked of ``params`` (a parameter object or type): the mechanism's
    name, its type and, from ``registered`` (a ``singledispatch`` function or the types of a
    table), the types that have one."""
    cls = _type(params)
    name = getattr(params, "name", None)
    who = f"mechanism {name!r} ({cls.__name__})" if isinstance(name, str) else f"parameters of type {cls.__name__}"
    types = _registered_names(registered)
    has = f"; it is registered for {', '.join(types)}" if types else ""
    return UnsupportedMechanismError(f"{what} is not available for {who}{has}")


def supports(registered, params) -> bool:
    """Whether ``registered`` (a ``singledispatch`` function, or a table keyed by parameter
    types) has an entry for the type of ``params`` (an object or a type) or a base of it,
    other than a dispatch's default."""
    cls = _type(params)
    if hasattr(registered, "dispatch"):
        return registered.dispatch(cls) is not registered.dispatch(object)
    return any(base in registered for base in cls.__mro__)


def for_type(table: dict, params, what: str):
    """The entry of ``table`` (keyed by parameter types) for the type of ``params`` or its
    nearest base (an OLH object finds Collision's entry unless OLH has its own); unsupported
    otherwise."""
    for base in _type(params).__mro__:
        if base in table:
            return table[base]
    raise unsupported(params, what, table)


def parameter_type(mechanism) -> type:
    """The parameter type of a mechanism's name (the registry's names and ``"finite"``, a
    matrix), or ``mechanism`` itself when it is a type; ValueError naming the valid names."""
    if isinstance(mechanism, type):
        return mechanism
    if isinstance(mechanism, str) and mechanism == FiniteRandomizer.name:
        return FiniteRandomizer
    if isinstance(mechanism, str) and mechanism in MECHANISM_SPECS:
        return MECHANISM_SPECS[mechanism].type
    shown = repr(mechanism) if len(repr(mechanism)) <= 60 else repr(mechanism)[:57] + "..."
    raise ValueError(f"mechanism must be one of {', '.join(MECHANISMS + (FiniteRandomizer.name,))}, got {shown}")
