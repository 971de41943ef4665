"""The server's settings: read from ``SIDEBET_<NAME>``, overridden by ``sidebet serve``'s
options, checked, and every one of them documented."""

from __future__ import annotations

import pytest
import typer

from sidebet.cli.serve_cmds import SETTING, register
from sidebet.core.errors import SidebetError
from sidebet.serve.settings import Settings, env_name, load_settings

from .harness import ROOT


def test_environment_then_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIDEBET_PORT", "8123")
    monkeypatch.setenv("SIDEBET_OPERATOR_PASSWORD", "from-the-env")
    monkeypatch.setenv("SIDEBET_TEST_STACK", "true")
    s = load_settings()
    assert s.port == 8123 and s.test_stack
    assert s.operator_password is not None
    assert s.operator_password.get_secret_value() == "from-the-env"
    assert "from-the-env" not in repr(s)
    assert load_settings(port=9000, host=None).port == 9000  # an option wins; None is unset


def test_bad_values_are_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIDEBET_NAME_MAX", "65")  # the accounts' name column is 64 wide
    with pytest.raises(SidebetError, match=r"^settings: name_max: "):
        load_settings()
    monkeypatch.delenv("SIDEBET_NAME_MAX")
    with pytest.raises(SidebetError, match="password_min 300 is above password_max 256"):
        load_settings(password_min=300)


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    missing = [env_name(name) for name in Settings.model_fields if env_name(name) not in text]
    assert missing == []


def test_serve_options_show_the_settings_defaults() -> None:
    """``sidebet serve --help`` shows each option's default; it must be the setting's (an
    option left at its default does not override the environment)."""
    app = typer.Typer()
    register(app)
    serve = typer.main.get_group(app).commands["serve"]
    checked = 0
    for param in serve.params:
        if param.name is None or param.name == "table":
            continue
        field = Settings.model_fields[SETTING.get(param.name, param.name)]
        assert param.default == field.default, param.name
        checked += 1
    assert checked == 8
