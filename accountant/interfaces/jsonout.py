"""The one JSON encoder of every ``--json`` output and every JSON file (both command lines,
the table files and their sidecars).

JSON has no infinity and no NaN; Python's ``json.dumps`` writes them as ``Infinity`` /
``NaN``, which strict parsers (jq, JavaScript, most JSON libraries) reject.  Here a
non-finite number becomes ``null`` and the object holding it gains a field
``<key>_reason`` that says what the number was (``"log_delta": null,
"log_delta_reason": "-infinity (delta is exactly 0)"``).  The output is then written with
``allow_nan=False``, so it is strict JSON or an error, never something in between.
"""
from __future__ import annotations

import json
import math
from typing import Any

# what a non-finite value means, for the keys where more can be said than its sign
_MEANING = {
    "log_delta": "delta is exactly 0",
    "achieved_log_delta": "the achieved delta is exactly 0",
}


def _what(x: float, key: str = "") -> str:
    if math.isnan(x):
        return "not a number (NaN: no value could be computed)"
    text = "+infinity" if x > 0 else "-infinity"
    base = key.rsplit(".", 1)[-1]
    note = _MEANING.get(base) or ("no finite bound" if x > 0 else "")
    return f"{text} ({note}); JSON has no infinity" if note else f"{text}; JSON has no infinity"


def _number(x: Any):
    """``x`` as a plain Python number if it is a (NumPy) scalar number, else ``x``."""
    if isinstance(x, bool) or x is None or isinstance(x, (int, float, str)):
        return x
    item = getattr(x, "item", None)  # NumPy scalars and 0-d arrays
    if callable(item) and getattr(x, "shape", None) in ((), None):
        try:
            return item()
        except (TypeError, ValueError):
            return x
    return x


def _clean(obj: Any, key: str = "") -> tuple[Any, Any]:
    """(strict-JSON-ready copy of ``obj``, reason or None when ``obj`` itself was replaced)."""
    obj = _number(obj)
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj, None
        return None, _what(obj, key)
    if isinstance(obj, dict):
        out: dict = {}
        reasons: dict = {}
        for k, v in obj.items():
            val, why = _clean(v, str(k))
            out[k] = val
            if why is not None:
                reasons[f"{k}_reason"] = why
        for rk, why in reasons.items():
            if out.get(rk) is None:  # never overwrite a reason the caller gave
                out[rk] = why
        return out, None
    if isinstance(obj, (list, tuple)) or (hasattr(obj, "tolist") and not isinstance(obj, (str, bytes))):
        seq = obj.tolist() if hasattr(obj, "tolist") else obj
        if not isinstance(seq, list):
            seq = list(seq) if isinstance(seq, tuple) else [seq]
        items, bad = [], []
        for i, v in enumerate(seq):
            val, why = _clean(v, key)
            items.append(val)
            if why is not None:
                bad.append(f"[{i}] {why}")
        return items, ("entries set to null: " + "; ".join(bad)) if bad else None
    return obj, None


def jsonable(obj: Any) -> Any:
    """A copy of ``obj`` that strict JSON can hold: NaN/infinity -> ``None`` with a
    ``<key>_reason`` beside it, NumPy scalars and arrays -> Python numbers and lists."""
    return _clean(obj)[0]


def dumps(obj: Any, **kwargs) -> str:
    """``json.dumps`` of :func:`jsonable` ``(obj)`` with ``allow_nan=False``: strict JSON."""
    kwargs.setdefault("allow_nan", False)
    return json.dumps(jsonable(obj), **kwargs)


def strict_loads(text: str) -> Any:
    """Parse ``text`` as strict JSON (raises ValueError on NaN/Infinity): for tests and
    for anyone checking an output."""
    def _reject(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=_reject)
