"""The command line read without pydantic (:mod:`sidebet.cli.coercion`) against typer's own
pydantic adapters: every option of every command, the same value or the same error."""

from __future__ import annotations

from enum import Enum
from typing import Any, get_args, get_origin

import pytest
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from sidebet.cli.coercion import convert_float, convert_int
from sidebet.cli.main import COMMANDS, load_command

TEXTS = ["10", " 10 ", "+5", "-0", "-7", "1_000", "10.0", "10.", "10.5", "1e3", "1E-2", ".5",
         "5.", "inf", "-Infinity", "nan", "NaN", "x", "", " ", "_1", "1__0", "0x10", "１２",
         "e5", ".", "+", "1_.5", "1e_3", "+_1", "1.5_", "0_0", ".e3", "1.0e", "+.5", "INF", "9" * 4300, "9" * 4301, "9" * 400, "true", "No", "ON", "t", "2",
         "table", "JSON", "composition", "9-11", "local", "always", "a/b.toml", "-"]


def _outcome(run: Any, value: Any) -> tuple[str, Any]:
    try:
        got = run(value)
    except BadParameter as exc:
        # pydantic puts "Value error, " before the message of a choice typer checked
        return "error", exc.format_message().replace("Value error, ", "")
    if isinstance(got, float) and got != got:
        return "nan", None
    return "value", (type(got), got)


def _options() -> list[tuple[str, Any]]:
    out = []
    for name in COMMANDS:
        command = load_command(name)
        help_option = command.get_help_option(Context(command))
        out += [(f"{name} {p.name}", (command, p)) for p in [*command.params, help_option]]
    return out


@pytest.mark.parametrize("label, found", _options(), ids=lambda x: x if isinstance(x, str)
                         else "")
def test_every_option_reads_as_typer_reads_it(label: str, found: tuple[Any, Any]) -> None:
    command, param = found
    lean = param._runtime_param
    assert lean is not None and type(lean).__name__ == "Lean", label  # no pydantic for it
    typer_own = build_runtime_param(param.type_descriptor)
    ctx = Context(command)
    annotation = param.type_descriptor.annotation
    samples: list[Any] = [[t] for t in TEXTS] if get_origin(annotation) is list else TEXTS
    item = get_args(annotation)[0] if get_origin(annotation) is list else annotation
    if item is bool:
        samples = [*samples, True, False]
    if isinstance(item, type) and issubclass(item, Enum):
        samples = [*samples, *list(item), *(m.value.upper() for m in item)]
    for value in samples:
        ours = _outcome(lambda v: lean.coerce(v, param=param, ctx=ctx), value)
        theirs = _outcome(lambda v: typer_own.coerce(v, param=param, ctx=ctx), value)
        assert ours == theirs, (label, value)


def test_numbers_as_pydantic_reads_them() -> None:
    assert convert_int("1_000") == 1000 and convert_int(" -3.00 ") == -3
    assert convert_float("1e6") == 1e6 and convert_float("9" * 400) == float("inf")
    for bad in ("1e6", "10.5", "0x10", "１２", ""):
        with pytest.raises(ValueError, match="valid integer"):
            convert_int(bad)
    with pytest.raises(ValueError, match="exceeded maximum size"):
        convert_int("9" * 4301)
