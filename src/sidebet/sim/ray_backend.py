"""Running chunks on a Ray cluster (optional: ``pip install 'sidebet[cluster]'``).

Without an address a local Ray instance is started for the run: bound to 127.0.0.1,
no dashboard, usage statistics off (``RAY_USAGE_STATS_ENABLED=0``).  With an address
(``ray://host:10001`` or ``host:6379``) the run joins that cluster; every node needs
sidebet installed.  Chunks are the same as for the local backends and are added up in
chunk order, so a seed gives the same results here as on one core.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from sidebet.errors import SidebetError
from sidebet.sim.chunk import run_chunk

__all__ = ["LOCAL_OBJECT_STORE", "RayBackend"]

LOCAL_OBJECT_STORE = 128 * 1024 * 1024
"""Object store of a local instance, bytes."""


class RayBackend:
    """Chunks as Ray tasks."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None,
                 task: Any = run_chunk) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
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
                self._ray.init(address=address, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            else:
                self._ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         configure_logging=False, _node_ip_address="127.0.0.1")
        cpus = int(self._ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(cpus, workers) if workers else cpus)
        self._task = self._ray.remote(num_cpus=1)(task)

    def submit(self, spec: Any, key: tuple[int, int], shoe0: int, nshoes: int,
               max_rounds: int) -> Any:
        return self._task.remote(spec, key, shoe0, nshoes, max_rounds)

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
