"""An API process's stop as its live streams see it: set when gunicorn's worker gets SIGTERM."""

from __future__ import annotations

import signal
import threading
import time

_STOPPING = threading.Event()


def stopping() -> bool:
    """Whether this process has been asked to stop."""
    return _STOPPING.is_set()


def end_streams_on_stop(worker) -> None:
    """In a gunicorn worker: on SIGTERM, mark the process stopping and close its streams' waits."""
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        _STOPPING.set()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
    threading.Thread(target=_close_waits_once_stopping, args=(worker.wsgi,), name="ginbox-stream-stop",
                     daemon=True).start()


#: how often the streams' waits are closed again once stopping
CLOSE_AGAIN_S = 0.2


def _close_waits_once_stopping(app) -> None:
    _STOPPING.wait()
    # not in the signal handler itself: closing sockets takes the pool's lock
    store = getattr(getattr(app, "extensions", {}).get("ginbox"), "store", None)
    waits = getattr(store, "waits", None)
    # again and again until the process ends: a stream that was between two waits at the stop
    # starts another one, on a new connection
    while waits is not None:
        waits.connection_pool.disconnect()
        time.sleep(CLOSE_AGAIN_S)
