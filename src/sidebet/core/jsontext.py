"""Strict JSON for what sidebet writes: a figure with no value (NaN, an infinite one) is
``null``, never the ``NaN`` or ``Infinity`` that strict parsers refuse."""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["finite", "json_text"]


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by ``None``.

    >>> finite({"n0": float("inf"), "ev": [0.5, float("nan")]})
    {'n0': None, 'ev': [0.5, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def json_text(data: Any, indent: int | None = 2) -> str:
    """Strict JSON text of a command's output (:func:`finite`; numpy numbers as plain
    numbers).

    >>> json_text({"ev": float("nan"), "n0": float("inf"), "di": [1.5]}, indent=None)
    '{"ev": null, "n0": null, "di": [1.5]}'
    """
    plain = json.loads(json.dumps(data, ensure_ascii=False, default=float))
    return json.dumps(finite(plain), indent=indent, ensure_ascii=False, allow_nan=False)
