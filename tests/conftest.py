"""Fixtures shared by the test modules."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from sidebet.warm.extension import ensure_built

# A shell without job control starts a background command with Ctrl-C ignored (POSIX), and
# the programs the tests start inherit that: the tests that send Ctrl-C need it delivered.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The fixtures' data and the scripts that write it (``make fixtures``): no tests in there.
collect_ignore = ["fixtures"]


@pytest.fixture(scope="session")
def aot_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding sidebet's compiled extension (:mod:`sidebet.native.extension`), built once
    for the whole session; modules set it as ``SIDEBET_CACHE_DIR`` while they need it."""
    root = tmp_path_factory.mktemp("aot-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIDEBET_CACHE_DIR", str(root))
        mp.delenv("SIDEBET_AOT", raising=False)
        lines: list[str] = []
        path = ensure_built(lines.append)
        assert path is not None and path.is_file(), lines
    return root


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs the compiled extension is ``slow``: :func:`aot_built` builds it once
    a session, with numba's ahead-of-time compiler.

    Under ``pytest -n N --dist loadgroup`` (``make pytest``, pytest-xdist) a test module runs
    whole in one worker, in its order, with its module-wide fixtures (a server shared by
    its tests); the tests that need the compiled extension all run in one worker, so it is
    built once.  The groups are marked first: a worker names each test by its group in its
    own hook, which runs before this conftest's when the conftest was loaded first (a
    command naming test files)."""
    for item in items:
        if "aot_built" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group("aot"))
        elif not any(m.name == "xdist_group" for m in item.iter_markers()):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """Under ``--dist loadgroup`` a worker whose tests do not carry their group
    (pytest-xdist names each ``nodeid@group``; a pytest whose node ids it cannot rename
    drops the groups without a word) stops the run: a module split over the workers would
    start its shared server twice and run its tests out of order."""
    config = getattr(node, "config", None)
    if config is not None and config.getoption("dist", None) == "loadgroup" and any(
            "@" not in nodeid for nodeid in ids):
        raise pytest.UsageError(
            "--dist loadgroup: the tests reached pytest-xdist without their groups (pytest "
            f"{pytest.__version__}; pyproject.toml says which pytest keeps them)")
