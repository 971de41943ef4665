"""A read-only install still runs: neither the package folder nor the home cache is
writable, and numba's cache falls back to a private temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sidebet
from sidebet.native.numba_cache import fallback_dir, writable


def test_writable_looks_at_the_nearest_existing_folder(tmp_path: Path) -> None:
    assert writable(tmp_path / "a" / "b")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert not writable(tmp_path / "file" / "sub")
    folder = fallback_dir()
    assert folder is not None and folder.is_dir() and writable(folder)


def _can_mount_read_only() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount --bind -o ro / / 2>/dev/null"], capture_output=True,
                           check=False)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or not _can_mount_read_only(),
                    reason="needs root and mount namespaces to make folders read-only")
def test_commands_run_from_a_read_only_package_and_home(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    shutil.copytree(Path(sidebet.__file__).parent, pkg / "sidebet",
                    ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    home.mkdir()
    script = ('mount --bind -o ro "$PKG" "$PKG" && mount --bind -o ro "$HOME" "$HOME" '
              '|| exit 99; cd "$HOME" && touch "$PKG/x" 2>/dev/null && exit 98; '
              'exec "$PY" -m sidebet par trilux --decks 1 --format json')
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PKG=str(pkg), HOME=str(home), PY=sys.executable, PYTHONPATH=str(pkg))
    result = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                            capture_output=True, text=True, env=env, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert '"house_edge"' in result.stdout
    assert not list(pkg.rglob("*.nbi"))  # nothing was written into the package
