"""Fixtures: a real ``sidebet serve`` process per test module, and Debian's Chromium for
the page tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from .harness import Api, Server, database_url

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("serve"))).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def stacked(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose tables' shoes a test may stack (``--test-stack``), with the test
    module's ``SERVER_ENV`` (house settings) if it has one."""
    srv = Server(database_url(tmp_path_factory.mktemp("stacked")), extra=["--test-stack"],
                 env=getattr(request.module, "SERVER_ENV", None)).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def op(server: Server) -> Api:
    return Api.operator(server.url)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    from .pages import ARGS, CHROMIUM

    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
