"""numba's caches are dropped when the package's sources change (a kernel that compiles
a helper from another module would otherwise keep the old helper)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sidebet
from sidebet.native.numba_cache import MEMO, STAMP, digest_of, drop_stale, source_digest


def _fake_caches(package: Path) -> list[Path]:
    files = [package / "__pycache__" / "m.k-1.py311.nbi",
             package / "sim" / "__pycache__" / "kernels.k-2.py311.1.nbc"]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"x")
    return files


def test_drop_stale_deletes_only_when_the_stamp_differs(tmp_path: Path) -> None:
    files = _fake_caches(tmp_path)
    assert drop_stale(tmp_path)  # no stamp yet
    assert not any(f.exists() for f in files)
    stamp = tmp_path / "__pycache__" / STAMP
    assert stamp.read_text(encoding="ascii") == source_digest()
    files = _fake_caches(tmp_path)
    assert not drop_stale(tmp_path) and all(f.exists() for f in files)
    stamp.write_text("another", encoding="ascii")
    assert drop_stale(tmp_path) and not any(f.exists() for f in files)


def test_an_edited_source_drops_the_caches_of_a_real_import(tmp_path: Path) -> None:
    pkg = tmp_path / "sidebet"
    shutil.copytree(Path(sidebet.__file__).parent, pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path)

    def imported() -> None:
        # the kernels' packages check numba's caches first (``import sidebet`` does not)
        subprocess.run([sys.executable, "-c", "import sidebet.exact"], env=env, check=True,
                       timeout=120)

    imported()
    files = _fake_caches(pkg)
    imported()
    assert all(f.exists() for f in files)  # same sources: kept
    with (pkg / "regulation" / "base_game" / "payout.py").open("a", encoding="utf-8") as f:
        f.write("\n# edited\n")
    imported()
    assert not any(f.exists() for f in files)  # a helper changed: dropped


def test_the_digest_is_remembered_by_the_sources_sizes_and_times(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    (pkg / "__pycache__").mkdir()
    first = digest_of(pkg)  # read from the files, then remembered
    memo = pkg / "__pycache__" / MEMO
    seen = memo.read_text(encoding="ascii").split()[0]
    memo.write_text(f"{seen} remembered\n", encoding="ascii")
    assert digest_of(pkg) == "remembered"  # same sizes and times: the memo is trusted
    with (pkg / "sub" / "b.py").open("a", encoding="utf-8") as f:
        f.write("# edited\n")
    edited = digest_of(pkg)  # another size: the files are read again
    assert edited not in (first, "remembered")
    memo.write_text(f"{'0' * 64} forged\n", encoding="ascii")
    assert digest_of(pkg) == edited  # a memo of other sources is not trusted
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    assert digest_of(pkg) == first  # the content decides the digest, not the history


@pytest.mark.slow
@pytest.mark.parametrize("module", ["sidebet.sim.kernels", "sidebet.exact.blackjack._kernels",
                                    "sidebet.warm.extension"])
def test_numba_caches_are_checked_before_numba_is_imported(module: str) -> None:
    """Whatever module brings numba, :mod:`sidebet.native.numba_cache` has run first
    (``-X importtime`` lists each module when its import completes)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                          capture_output=True, text=True, timeout=120, check=True)
    names = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
             if line.startswith("import time:")]
    assert "numba" in names
    assert names.index("sidebet.native.numba_cache") < names.index("numba")
