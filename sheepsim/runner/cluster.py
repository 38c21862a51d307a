"""The Dask distributed backend (optional extra: pip install 'sheepsim[dask]').

Chunks are tasks running `chunk.compute` on the workers; results come back to this
process, which alone writes the output folder (workers need no shared disk). A window
bounds how far ahead of the lowest unfinished chunk tasks are submitted, so the
results waiting to be merged in order stay few (flat memory) and a sequential stop
wastes little. A lost worker's tasks are recomputed by Dask; since a chunk's result
depends only on its games' indices, the recomputed result is the same.

Numba threads: numba's thread count is per thread of a process and Dask does not set
it, so every task sets it (job.threads) in the thread that plays; a LocalCluster's
workers are also started with NUMBA_NUM_THREADS so their pools are no larger.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import SheepsimError
from ..results.store import Payload
from .chunk import ChunkJob, compute

CONNECT_TIMEOUT = 3.0        # seconds: a wrong address fails fast, before anything is written


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise SheepsimError("--backend dask needs Dask: pip install 'sheepsim[dask]'")
    return distributed


def check_scheduler(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fail in one line unless a Dask scheduler answers at `address` within `timeout`."""
    from distributed.comm import connect
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            # a refused port fails at once here; Dask's own connect retries until the timeout
            host, port = parse_host_port(location)
            socket.create_connection((host, port), timeout=timeout).close()
    except (ValueError, TypeError) as exc:
        raise SheepsimError(f"--scheduler {address!r} is not a Dask address ({exc}); "
                            f"give tcp://HOST:PORT as printed by `dask scheduler`")
    except OSError as exc:
        raise SheepsimError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}; "
                            f"check the address and that the scheduler is running")

    async def identity():
        try:
            comm = await connect(address, timeout=timeout)
        except OSError as exc:
            raise SheepsimError(f"cannot reach the Dask scheduler at {address}: {exc}; check the address and "
                                f"that the scheduler is running")
        except Exception:             # the handshake failed: something else listens there
            return None
        try:
            await comm.write({"op": "identity", "reply": True})
            return await asyncio.wait_for(comm.read(), timeout)
        except Exception:             # e.g. another service whose bytes do not decode
            return None
        finally:
            comm.abort()
    reply = asyncio.run(identity())
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise SheepsimError(f"{address} answered but is not a Dask scheduler; check the address")


class DaskBackend:
    """Chunks as tasks on a Dask cluster: an existing one, or a LocalCluster we start."""

    name = "dask"

    def __init__(self, scheduler: str | None, workers: int | None, threads: int | None):
        distributed = _import_distributed()
        self.cluster = None
        if scheduler is not None:
            check_scheduler(scheduler)
            self.address, self.threads = scheduler, threads
        else:
            workers = workers or os.cpu_count() or 1
            # default: share this machine's cores between the workers
            self.threads = threads or max(1, (os.cpu_count() or 1) // workers)
            try:
                self.cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                    silence_logs=logging.ERROR, env={"NUMBA_NUM_THREADS": str(self.threads)})
            except Exception as exc:      # e.g. a script without `if __name__ == "__main__":`
                raise SheepsimError(f"could not start a local Dask cluster of {workers} workers: "
                                    f"{type(exc).__name__}: {exc}")
            self.address = self.cluster.scheduler_address
        try:
            self.client = distributed.Client(self.address, timeout=f"{max(10, CONNECT_TIMEOUT)}s",
                                             set_as_default=False)
        except Exception as exc:
            self._close_cluster()
            raise SheepsimError(f"cannot connect to the Dask scheduler at {self.address}: {exc}")

    def info(self) -> dict[str, Any]:
        nthreads = self.client.nthreads()
        return {"backend": "dask", "scheduler": None if self.cluster else self.address,
                "workers": len(nthreads), "threads": self.threads}

    def _window(self) -> int:
        return max(2, 2 * sum(self.client.nthreads().values()))

    def warm(self, job: ChunkJob, prepared: tuple, notify) -> None:
        """Each worker compiles its own kernels, inside the timed run (nothing to do here)."""
        return None

    def run(self, job: ChunkJob, indices: Iterable[int], prepared: tuple | None = None
            ) -> Iterator[tuple[int, Payload]]:
        """(index, payload) of every chunk in `indices` (ascending), as tasks finish."""
        from distributed import as_completed

        window = self._window()
        ahead = 2 * window            # results held for the in-order merge stay below this
        todo = iter(indices)
        upcoming = next(todo, None)
        running: dict[Any, int] = {}
        done = as_completed(loop=self.client.loop)

        def fill() -> None:
            nonlocal upcoming
            while upcoming is not None and len(running) < window and (
                    not running or upcoming < min(running.values()) + ahead):
                future = self.client.submit(compute, job, upcoming, key=f"sheepsim-{job.task_key[:16]}-{upcoming}")
                running[future] = upcoming
                done.add(future)
                upcoming = next(todo, None)

        try:
            fill()
            for future in done:
                index = running.pop(future)
                try:
                    payload = future.result()
                except SheepsimError:
                    raise
                except Exception as exc:
                    raise SheepsimError(f"chunk {index} failed on the Dask cluster: {type(exc).__name__}: "
                                        f"{str(exc)[:200]}; run the same command again to resume")
                future.release()
                fill()
                yield index, payload
        finally:
            for future in running:
                future.cancel()

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            self._close_cluster()
