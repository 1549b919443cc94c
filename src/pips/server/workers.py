"""Worker processes that never outlive their server, however it ends.

The server does some work in processes of its own (the analyses,
:mod:`pips.server.analyses`; a month's world list, :func:`pips.server.app.publish_monthly`).
A worker spawned by :mod:`multiprocessing` holds both ends of its own queues, so it never
learns that its server is gone: a server killed with ``kill -9`` once left its analysis
worker (about 160 MB, still computing) and multiprocessing's resource tracker running
for good, and so did a server stopped while a worker was busy (it waited for the job,
was killed, and left the worker waiting for the next). So:

* each worker watches its parent from a thread of its own and ends at once when the
  parent is gone (:func:`end_with_parent`): its parent process id changes when the
  parent dies, by any signal. So does each server process of ``pips serve --workers``,
  whose supervisor (uvicorn's) once left them all serving when it was killed: they stop
  as if stopped;
* stopping the server ends its workers there and then, busy or not (:func:`stop_pool`),
  rather than waiting for the job to finish;
* the resource tracker (which multiprocessing starts for the queues' semaphores, and
  which ignores ``SIGINT`` and ``SIGTERM``) ends by itself once every process holding
  its pipe has ended: the server and its workers.

``tests/test_attacks.py`` kills a real server with ``-9`` (and stops one in the middle of
an analysis) and looks for anything left.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

WATCH_EVERY = 0.5
"""Seconds between two looks at the parent: how long a worker may outlive its server."""
GENTLY_FOR = 30.0
"""Seconds a server process whose supervisor is gone has to stop as if stopped."""


def end_with_parent(
    parent: int, then: Callable[[], None] | None = None, *, gently: bool = False
) -> None:
    """In a worker process: end it as soon as the process ``parent`` that made it is
    gone (killed with -9, the parent cannot end it itself); then run ``then``, the
    worker's own initializer. ``gently``: as if stopped (``SIGTERM``: a server process
    of ``pips serve --workers`` hands its tables on), and at once only if that takes
    longer than :data:`GENTLY_FOR`."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_EVERY)
        if gently:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(GENTLY_FOR)
        os._exit(0)

    if os.getppid() != parent:  # gone before the worker started
        os._exit(0)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    if then is not None:
        then()


def worker_pool(workers: int, initializer: Callable[[], None] | None = None) -> ProcessPoolExecutor:
    """``workers`` processes that end with this one (``initializer``, a module-level
    function, runs in each as it starts). Spawned, not forked: the server has threads
    and an event loop running."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=end_with_parent,
        initargs=(os.getpid(), initializer),
    )


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """End ``pool``'s workers now, a job running or not: its futures are cancelled (a
    caller waiting hears so), and nothing waits for a job to finish."""
    # The processes are taken before shutdown, which forgets them.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
