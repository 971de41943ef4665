"""Command-line values converted without pydantic: the lean path of every command.

Typer converts each option's text by a pydantic ``TypeAdapter`` built when the option is
first read; importing pydantic and building the adapters costs a command more than many
of them compute.  The options of sidebet's commands are all of a few plain kinds (``int``,
``float``, ``str``, ``bool``, ``Path``, an ``Enum``, or a list of these, none with a range
or a parser of its own), so :func:`lean` gives each such option a converter of its own
before the command line is parsed.  Enum choices and paths go through typer's own
functions (``coerce_cli_choice``, ``coerce_cli_path``); numbers accept exactly the text
pydantic's lax mode accepts, with its messages (``tests/test_cli_coercion.py`` checks
every option of every command against typer's adapters).  An option of another kind
keeps typer's adapter.  Should typer's internals change, :func:`lean` leaves every
option to typer.

>>> convert_int("1_000"), convert_int(" 10.0 "), convert_float("1e6")
(1000, 10, 1000000.0)
>>> convert_int("1e6")
Traceback (most recent call last):
...
ValueError: Input should be a valid integer, unable to parse string as an integer
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

__all__ = ["convert_bool", "convert_float", "convert_int", "converter", "lean"]

_INT = re.compile(r"\s*([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0+)?\s*", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf|infinity|nan)",
                    re.ASCII | re.IGNORECASE)
_INT_MESSAGE = "Input should be a valid integer, unable to parse string as an integer"
_FLOAT_MESSAGE = "Input should be a valid number, unable to parse string as a number"
_INT_DIGITS = 4300
"""Python's limit on the digits of an integer read from text (and pydantic's)."""


def convert_int(value: Any) -> int:
    """An ``int`` option's value, as pydantic's lax mode reads it."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(_INT_MESSAGE)
    if isinstance(value, int):
        return value
    match = _INT.fullmatch(value)
    if match is None:
        raise ValueError(_INT_MESSAGE)
    digits = match.group(1)
    if len(digits.lstrip("+-").replace("_", "")) > _INT_DIGITS:
        raise ValueError("Unable to parse input string as an integer, exceeded maximum size")
    return int(digits)


def convert_float(value: Any) -> float:
    """A ``float`` option's value, as pydantic's lax mode reads it."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(_FLOAT_MESSAGE)
    if isinstance(value, int | float):
        return float(value)
    text = value.strip()
    # an underscore only between two other characters, never two together (as pydantic)
    if text.startswith("_") or text.endswith("_") or "__" in text:
        raise ValueError(_FLOAT_MESSAGE)
    text = text.replace("_", "")
    if not _FLOAT.fullmatch(text):
        raise ValueError(_FLOAT_MESSAGE)
    return float(text)


_TRUE = frozenset(("1", "on", "t", "true", "y", "yes"))
_FALSE = frozenset(("0", "off", "f", "false", "n", "no", ""))


def convert_bool(value: Any) -> bool:
    """A ``bool`` option's value, as typer and pydantic's lax mode read it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
    raise ValueError("Input should be a valid boolean, unable to interpret input")


def _convert_str(value: Any) -> str:
    if value is None:
        raise ValueError("None is not a valid string")
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def converter(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
    """The converter ``(value, param, ctx) -> value`` of an option of type ``annotation``
    with typer's ``ParameterInfo`` ``info``, or ``None`` where typer's adapter must stay."""
    from typer._param_types import coerce_cli_choice, coerce_cli_path

    if (getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None
            or getattr(info, "min", None) is not None or getattr(info, "max", None) is not None):
        return None
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        one = converter(item, info)
        if one is None:
            return None
        return lambda value, param, ctx: [one(v, param, ctx) for v in value]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        choices = list(annotation)
        sensitive = bool(info.case_sensitive)
        return lambda value, param, ctx: coerce_cli_choice(
            value, choices=choices, case_sensitive=sensitive, ctx=ctx)
    if annotation is Path:
        return lambda value, param, ctx: coerce_cli_path(
            value if isinstance(value, Path) else Path(_convert_str(value)), info,
            path_type=Path, param=param, ctx=ctx)
    plain: dict[Any, Callable[[Any], Any]] = {int: convert_int, float: convert_float,
                                              str: _convert_str, bool: convert_bool}
    if annotation in plain:
        one_value = plain[annotation]
        return lambda value, param, ctx: one_value(value)
    return None


def lean(command: Any) -> None:
    """Give each option of ``command`` (a typer command) its converter (:func:`converter`),
    so that reading its command line imports no pydantic."""
    try:
        from typer._click.exceptions import BadParameter
        from typer._coercion import RuntimeParam
    except ImportError:  # another typer: its own adapters stay
        return

    @dataclass(frozen=True)
    class Lean(RuntimeParam):
        convert: Callable[[Any, Any, Any], Any] = lambda value, param, ctx: value

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return self.convert(value, param, ctx)
            except ValueError as exc:
                raise BadParameter(str(exc), ctx=ctx, param=param) from None

    params = list(getattr(command, "params", ()))
    try:  # the --help option, made once per command and kept
        from typer._click import Context

        params.append(command.get_help_option(Context(command)))
    except (ImportError, AttributeError, TypeError):
        pass
    for param in params:
        desc = getattr(param, "type_descriptor", None)
        if desc is None or getattr(param, "_runtime_param", 0) is not None:
            continue
        if desc.file_annotation is not None:
            continue
        convert = converter(desc.annotation, desc.parameter_info)
        if convert is not None:
            param._runtime_param = Lean(parameter_info=desc.parameter_info,
                                        annotation=desc.annotation, convert=convert)
