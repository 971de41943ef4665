"""Fixtures: a real ``sidebet serve`` process per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import Api, Server, database_url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("serve"))).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def op(server: Server) -> Api:
    return Api.operator(server.url)
