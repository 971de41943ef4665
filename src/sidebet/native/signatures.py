"""The argument types of sidebet's compiled kernels, and the check every call makes.

The compiled wrapper does not check its arguments (a wrong array would crash the
process), so every call is first checked against a table of :class:`ArgType`, the table
the compiled signatures are written from (:func:`signature`); the JIT path gets the same
checks, so both fail alike.

>>> signature((ArgType("uint8"), ArgType("int64", 0), ArgType("float64", 3, written=True)))
'u1[::1], i8, f8[:, :, ::1]'
>>> import numpy as np
>>> check_args("demo", (("x", ArgType("int64")),), (np.zeros(2),))
Traceback (most recent call last):
...
TypeError: demo.x: expected dtype int64, got float64
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ArgType", "check_args", "signature"]


_NUMBA_CODES = {"uint8": "u1", "uint16": "u2", "uint64": "u8", "int8": "i1", "int64": "i8",
                "float64": "f8"}
_BITS = {"uint8": 8, "uint16": 16, "uint64": 64, "int8": 8, "int64": 64}
_BOUNDS = {name: ((0, (1 << bits) - 1) if name.startswith("u")
                  else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1))
           for name, bits in _BITS.items()}
"""Each integer dtype's range (computed once: a kernel may be called thousands of times)."""
_DTYPES: dict[str, Any] = {}
"""numpy's dtype of each name, made on first use (this module does not import numpy)."""


@dataclass(frozen=True, slots=True)
class ArgType:
    """One argument's type: a C-contiguous array of ``dtype`` with ``ndim`` dimensions
    (``ndim`` 0: an integer scalar of ``dtype``); ``written``: the kernel writes it."""

    dtype: str
    ndim: int = 1
    written: bool = False

    @property
    def numba_code(self) -> str:
        """The type in numba's signature notation (``i8``, ``u1[:, ::1]``)."""
        code = _NUMBA_CODES[self.dtype]
        if self.ndim == 0:
            return code
        return f"{code}[{', '.join([':'] * (self.ndim - 1) + ['::1'])}]"

    def check(self, name: str, value: Any) -> Any:
        """``value`` as the kernel may receive it; a :class:`TypeError` or
        :class:`ValueError` naming ``name`` if it is not of this type."""
        np = sys.modules.get("numpy")  # an array or a numpy integer means numpy is loaded
        if self.ndim == 0:
            return self.check_int(name, value)
        if np is None or not isinstance(value, np.ndarray):
            raise TypeError(f"{name}: expected a numpy array, got {type(value).__name__}")
        want = _DTYPES.get(self.dtype)
        if want is None:  # looked up once: a kernel may be called thousands of times
            want = _DTYPES[self.dtype] = np.dtype(self.dtype)
        if value.dtype != want:
            raise TypeError(f"{name}: expected dtype {self.dtype}, got {value.dtype}")
        if value.ndim != self.ndim:
            raise ValueError(f"{name}: expected {self.ndim} dimensions, got {value.ndim}")
        if not value.flags.c_contiguous:
            raise ValueError(f"{name}: the array must be C-contiguous")
        if self.written and not value.flags.writeable:
            raise ValueError(f"{name}: the kernel writes this array; it is read-only")
        return value

    def check_int(self, name: str, value: Any) -> int:
        """A scalar argument (``ndim`` 0) as a Python integer, checked as :meth:`check`."""
        np = sys.modules.get("numpy")
        if type(value) is not int and (isinstance(value, bool) or not (
                isinstance(value, int) or (np is not None and isinstance(value, np.integer)))):
            raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
        low, high = _BOUNDS[self.dtype]
        if not low <= int(value) <= high:
            raise ValueError(f"{name}: {int(value)} does not fit in {self.dtype}")
        return int(value)


def signature(types: Sequence[ArgType]) -> str:
    """The argument list of a compiled signature, in numba's notation."""
    return ", ".join(t.numba_code for t in types)


def check_args(kernel: str, params: Sequence[tuple[str, ArgType]],
               values: Sequence[Any]) -> list[Any]:
    """``values``, the arguments of ``kernel`` in the order of ``params`` (name, type),
    each checked (an error names ``kernel.param``)."""
    if len(values) != len(params):
        raise TypeError(f"{kernel}: expected {len(params)} arguments, got {len(values)}")
    return [t.check(f"{kernel}.{name}", value)
            for (name, t), value in zip(params, values, strict=True)]
