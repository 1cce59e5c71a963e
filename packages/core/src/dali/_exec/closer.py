"""Closing what the garbage collector dropped, on a thread of its own (``dali-close``).

A pipeline that is dropped without `Pipeline.close` is closed by its finalizer, and the garbage
collector runs finalizers wherever an allocation triggers it: inside `threading.enumerate`
(which holds the lock every starting and ending thread needs), on one of the pipeline's own
threads, or while another lock is held. Closing means joining the pipeline's threads, which
there can deadlock: seen in CI as a test process stuck in ``threading.enumerate()`` → finalizer
→ ``ThreadPoolExecutor.shutdown`` joining a pool thread that was waiting, in
``Thread._delete``, for the lock ``enumerate`` held.

So finalizers only `defer` the closing: a lock-free hand-off (`queue.SimpleQueue.put` is safe in
finalizers and signal handlers) to one daemon thread per process, started by `start` from
ordinary code (`Pipeline.build`). An explicit ``close()`` still closes at once.

At interpreter exit every pipeline thread must be stopped and joined *before* Python stops its
daemon threads: a daemon thread that comes back from C code (an OpenCV resize, say) after that
is ended with ``pthread_exit`` inside the C++ frames, and the process aborts ("terminate called
without an active exception"; seen in 13 of 20 runs of a reader → decode → resize pipeline
dropped just before exit). `atexit` handlers run before that, so the exit handler here (in the
exiting thread) lets the closing thread finish what it was given, the close in progress
included, and stops it; then closes whatever is still queued, and every `track`-ed executor
still open, waiting for closes that other threads have in progress (`Executor.close`). This
holds whichever of this module's and `weakref.finalize`'s exit handlers runs first.

Example:
    >>> import threading
    >>> done = threading.Event()
    >>> start()
    >>> defer(done.set)
    >>> done.wait(5)
    True
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

from dali import _options as options

__all__ = ["defer", "start", "track"]

_log = logging.getLogger("dali")
#: closes to run; None stops the closing thread (at exit)
_pending: queue.SimpleQueue[Callable[[], object] | None] = queue.SimpleQueue()
_lock = threading.Lock()
_thread: threading.Thread | None = None
#: open executors, closed at exit if still open
_tracked: weakref.WeakSet[Any] = weakref.WeakSet()


def start() -> None:
    """Start the closing thread if it is not running (also after a fork: the child has none).

    Call it from ordinary code before anything may be deferred; never from a finalizer.
    """
    global _thread
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_loop, name="dali-close", daemon=True)
            _thread.start()


def track(closable: Any) -> None:
    """Close ``closable`` (anything with an idempotent ``close()``) at exit if it is still open."""
    _tracked.add(closable)


def defer(close: Callable[[], object]) -> None:
    """Have ``close()`` called on the closing thread; returns at once (safe in finalizers)."""
    _pending.put(close)


def _call(close: Callable[[], object]) -> None:
    try:
        close()
    except Exception:  # noqa: BLE001 - one failed close must not stop the others
        _log.warning("closing a dropped pipeline failed", exc_info=True)


def _loop() -> None:
    while True:
        close = _pending.get()
        if close is None:
            return
        _call(close)
        del close  # drop the closed object before waiting for the next


@atexit.register
def _drain() -> None:
    """Stop the closing thread once it has done what it was given; then close what is still
    queued, and every tracked object, in the exiting thread."""
    with _lock:
        thread = _thread
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        _pending.put(None)
        thread.join(options.JOIN_TIMEOUT)
    while True:
        try:
            close = _pending.get_nowait()
        except queue.Empty:
            break
        if close is not None:
            _call(close)
    for closable in list(_tracked):
        _call(closable.close)
