"""Decoding ahead: the samples of the next batches decoded while the current batch is used.

A batch of consecutive sequences comes from one or two files, and a file's frames decode in
order, so a reader that decodes one batch at a time keeps one or two decoders busy whatever its
threads (on an H200, 917 frames/s against 1,647 for eight NVDEC sessions at once). `DecodeAhead`
lets the video readers keep every decoder busy across batches: each batch hands it the dataset
indices of the batch being read and of the next ones (`IndexedReader.upcoming_batches`); it
returns one future per sample of the batch being read, and has the samples it does not hold yet
decoded on threads of its own, the batch being read first, then the next batches in order.

* **Keys.** A sample's future is held under a key that names what is decoded (the readers use
  the dataset index and the frame numbers), so a cursor that moved elsewhere (a restored
  checkpoint, an epoch's new shuffle) finds either the frames it asks for or none, never others.
  A sample that comes again within the window (``pad_last_batch``, a small dataset) is decoded
  once; `Ahead.shared` says which results are handed out more than once (to be copied by a
  caller that hands out arrays which may be written).
* **Bounded.** Whatever is not a sample of the batch being read or of the next batches given is
  dropped at once (a pending future is cancelled: the thread that comes to it skips it), so at
  most the batch being read and the next ones are held, decoded or in progress.
* **Errors** stay with their sample: a future holds its sample's exception, and the batch that
  contains the sample raises it when it takes its futures, never an earlier one (`VideoFrames`
  makes the failing run go on with a fresh decoder for its later samples).
* **Threads.** ``threads`` daemon threads (``dali-video_N``), started on the first batch,
  stopped and joined by `close` (the operator's, hence the pipeline's ``close()``).

Example:
    >>> ahead = DecodeAhead(2)
    >>> def schedule(samples, futures):  # decode every (batch, position) into its future
    ...     return [lambda: [f.set_result(s) for s, f in zip(samples, futures)]]
    >>> got = ahead.futures([["a", "b"], ["c"]], schedule)
    >>> [f.result() for f in got.futures], sorted(ahead.held())
    ([(0, 0), (0, 1)], ['c'])
    >>> ahead.close()
"""

from __future__ import annotations

import collections
import dataclasses
import queue
import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from typing import Any

from dali import _options as options

__all__ = ["Ahead", "DecodeAhead"]

#: ``schedule(samples, futures)``: tasks that decode ``samples`` (``(batch, position)`` in the
#: window) into ``futures`` (one each), every sample in exactly one task
Schedule = Callable[[list[tuple[int, int]], list["Future[Any]"]], list[Callable[[], None]]]


@dataclasses.dataclass(frozen=True)
class Ahead:
    """The futures of the batch being read (in batch order), and which results are shared."""

    futures: list[Future[Any]]
    #: True for a future that is (or was) also handed out for another place of the window
    shared: list[bool]


class DecodeAhead:
    """Per-sample futures of decoded samples held by key, completed on threads of their own.

    Args:
        threads: The threads that run the decoding tasks.
        name: The threads' name (``name_N``).
    """

    def __init__(self, threads: int, *, name: str = "dali-video") -> None:
        self._size = max(1, threads)
        self._name = name
        self._held: dict[Hashable, Future[Any]] = {}
        #: keys held whose futures were handed out already
        self._handed: set[Hashable] = set()
        self._tasks: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._closed = False

    def held(self) -> list[Hashable]:
        """The keys of the futures held for the next batches."""
        return list(self._held)

    def futures(self, batches: Sequence[Sequence[Hashable]], schedule: Schedule) -> Ahead:
        """The futures of ``batches[0]``'s samples; the samples of ``batches[1:]`` scheduled.

        ``batches`` are the keys of the samples of the batch being read, then of the next
        batches, in order. Futures held for samples of none of them are dropped. The samples
        without a future are given to ``schedule`` at once, in window order (this batch's
        first), and its tasks are queued in the order it returns them.
        """
        if self._closed:
            raise RuntimeError("the decoder threads were closed")
        window = {key for batch in batches for key in batch}
        for key in [k for k in self._held if k not in window]:
            self._held.pop(key).cancel()  # False once running: its result is dropped
            self._handed.discard(key)
        missing: list[tuple[int, int]] = []
        made: list[Future[Any]] = []
        for b, batch in enumerate(batches):
            for p, key in enumerate(batch):
                if key not in self._held:
                    self._held[key] = Future()
                    missing.append((b, p))
                    made.append(self._held[key])
        if missing:
            for task in schedule(missing, made):
                self._submit(task)
        current = list(batches[0]) if batches else []
        later = {key for batch in batches[1:] for key in batch}
        counts = collections.Counter(current)
        shared = [key in self._handed or key in later or counts[key] > 1 for key in current]
        out = Ahead([self._held[key] for key in current], shared)
        self._handed.update(current)
        for key in current:
            if key not in later and key in self._held:
                del self._held[key]
                self._handed.discard(key)
        return out

    def _submit(self, task: Callable[[], None]) -> None:
        self._tasks.put(task)
        if len(self._threads) < self._size:
            thread = threading.Thread(
                target=self._loop, name=f"{self._name}_{len(self._threads)}", daemon=True
            )
            self._threads.append(thread)
            thread.start()

    def _loop(self) -> None:
        while (task := self._tasks.get()) is not None:
            task()  # a task completes its futures, errors included (`VideoFrames`)

    def close(self) -> None:
        """Cancel what is pending, stop the threads and wait for them (idempotent)."""
        self._closed = True
        for future in self._held.values():
            future.cancel()
        self._held.clear()
        self._handed.clear()
        for _ in self._threads:
            self._tasks.put(None)
        for thread in self._threads:
            thread.join(options.JOIN_TIMEOUT)
        self._threads.clear()
