"""Running chunks on a Ray cluster (optional: ``pip install 'sidebet[cluster]'``).

Without an address a local Ray instance is started for the run: bound to 127.0.0.1,
no dashboard, usage statistics off (``RAY_USAGE_STATS_ENABLED=0``).  With an address
(``ray://host:10001`` or ``host:6379``) the run joins that cluster; every node needs
sidebet installed.  Chunks are the same as for the local backends and are added up in
chunk order, so a seed gives the same results here as on one core.  Chunks played on a
GPU (:func:`sidebet.sim.device.run_chunk_gpu`) ask Ray for one GPU a task (``num_gpus=1``),
as many at once as the cluster has GPUs.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from typing import Any

from sidebet.core.errors import SidebetError
from sidebet.sim.chunk import run_chunk

__all__ = ["LOCAL_OBJECT_STORE", "RayBackend"]

LOCAL_OBJECT_STORE = 128 * 1024 * 1024
"""Object store of a local instance, bytes."""


PROBE_SECONDS = 5.0
"""How long an address is given to answer before the run fails."""


def probe_address(address: str, timeout: float = PROBE_SECONDS) -> None:
    """Fail within ``timeout`` seconds, with one line, when nothing answers at a Ray
    address (``ray://host:port`` or ``host:port``; ``auto`` and ``local`` are left to
    Ray).

    >>> probe_address("not an address")
    Traceback (most recent call last):
    ...
    sidebet.core.errors.SidebetError: --address 'not an address' is not HOST:PORT or ray://HOST:PORT
    """
    if address in ("auto", "local"):
        return
    rest = address.removeprefix("ray://")
    host, sep, port_text = rest.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536 \
            or any(c.isspace() for c in rest):
        raise SidebetError(f"--address {address!r} is not HOST:PORT or ray://HOST:PORT")
    try:
        with socket.create_connection((host.strip("[]"), int(port_text)), timeout=timeout):
            pass
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise SidebetError(f"cannot reach the Ray cluster at {address}: {reason}") from None


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _call(task: Callable[..., Any], spec: Any, key: tuple[int, int], shoe0: int,
          nshoes: int, max_rounds: int) -> Any:
    """A Ray task: one chunk by ``task``."""
    return task(spec, key, shoe0, nshoes, max_rounds)


class RayBackend:
    """Chunks as Ray tasks."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None,
                 task: Any = run_chunk, gpu: bool = False) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        # a few one-second tries to reach a cluster's GCS, not Ray's twenty
        os.environ.setdefault("RAY_NUM_REDIS_GET_RETRIES", "3")
        if address:
            probe_address(address)
        try:
            import ray
        except ImportError:
            raise SidebetError(
                "the Ray backend needs Ray: pip install 'sidebet[cluster]'"
            ) from None
        self._ray: Any = ray
        self._owned = not self._ray.is_initialized()
        if self._owned:
            if address:
                try:
                    with _quiet_stderr():  # Ray's C++ client logs every retry there
                        self._ray.init(address=address, include_dashboard=False,
                                       log_to_driver=False, configure_logging=False)
                except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ...
                    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    raise SidebetError(f"cannot join the Ray cluster at {address}: "
                                       f"{first}") from None
            else:
                self._ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         configure_logging=False, _node_ip_address="127.0.0.1")
        if gpu:
            slots = int(self._ray.cluster_resources().get("GPU", 0))
            if slots < 1:
                self.close()
                raise SidebetError("--device gpu --backend ray: the Ray cluster has no GPU")
        else:
            slots = int(self._ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(slots, workers) if workers else slots)
        # the task may be any callable (a partial: the advantage run's), so each Ray task
        # calls it through a plain function, the callable stored once in Ray's object store
        self._task = self._ray.remote(num_cpus=1, num_gpus=1 if gpu else 0)(_call)
        self._chunk = self._ray.put(task)

    def submit(self, spec: Any, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> Any:
        return self._task.remote(self._chunk, spec, key, shoe0, nshoes, max_rounds)

    def result(self, handle: Any) -> Any:
        out: Any = self._ray.get(handle)
        return out

    def cancel(self, handle: Any) -> None:
        # a task that already finished cannot be cancelled; nothing to do then
        with contextlib.suppress(Exception):
            self._ray.cancel(handle)

    def close(self) -> None:
        if self._owned:
            self._ray.shutdown()
