"""The running part of a `DALIServer`: two threads in the server's process that feed the
requests of the proxy to the pipeline and keep its outputs until the training loop asks for
them.

* The **listener** thread reads the requests that DataLoader workers send over the socket
  (`dali.plugin.pytorch.experimental._proxy_channel`) into the `Inbox`; requests made in this
  process (``num_workers=0``, deterministic mode) go to the inbox directly.
* The **pipeline** thread takes up to ``depth`` requests (the pipeline's prefetch queue depth),
  feeds each one's inputs with ``feed_input`` and schedules it with ``schedule_run``, then
  takes the oldest iteration's ``outputs()`` and files them under the request's batch id.
  Like DALI's, it blocks only when nothing is in flight.

`Engine.wait` (the training loop's thread) waits for one batch id's outputs. An operator's
error fails its batch alone (raised when that batch is asked for; the pipeline goes on). A
feed that fails after another input of the same request was fed, or a scheduling failure,
leaves the pipeline's inputs out of step: every later batch then fails with that error
(``broken``) instead of returning misaligned data. If the server stops, or a thread dies,
waiters get an error instead of waiting for ever.

Batch ids are ``(generation, worker, nonce, index)``; a DataLoader iterator that is dropped
before its end retires its generation: its requests still queued are not run and its
outputs not kept (`Engine.retire`).
"""

from __future__ import annotations

import collections
import threading
from typing import TYPE_CHECKING, Any

from dali.plugin.pytorch.experimental._proxy_channel import Inbox, Listener

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = ["Engine"]

BatchId = tuple[Any, ...]


class Engine:
    """The threads, queues and finished outputs of one `DALIServer`.

    Args:
        pipeline: The pipeline; its named external sources ``input_names`` are fed.
        input_names: The sources fed from each request's ``call_args``, in feeding order.
    """

    def __init__(self, pipeline: Pipeline, input_names: list[str]) -> None:
        self.pipe = pipeline
        self.input_names = list(input_names)
        self.depth = (
            max(pipeline.cpu_queue_size, pipeline.gpu_queue_size, 1)
            if pipeline.exec_pipelined
            else 1
        )
        self.inbox = Inbox()
        self.listener = Listener(self.inbox.put, on_error=self._lost_request)
        #: Batch ids scheduled in the pipeline and not yet taken, oldest first (kept across
        #: a stop and a restart: the restarted thread takes their outputs).
        self._fed: collections.deque[BatchId] = collections.deque()
        self._cond = threading.Condition()  # guards everything below (reentrant)
        self._done: dict[BatchId, tuple[Any, BaseException | None]] = {}
        self._retired: set[Any] = set()
        self._broken: BaseException | None = None
        self._fatal: BaseException | None = None
        self._serving = False
        self._stop: threading.Event | None = None
        self._threads: tuple[threading.Thread, ...] = ()
        self._control = threading.Lock()  # start/stop/close
        self._closed = False
        self._generations = 0

    # -- the training loop's side -----------------------------------------------------------
    def submit(self, batch_id: BatchId, call_args: dict[str, list[Any]]) -> None:
        """Queue a request made in this process."""
        self.inbox.put((batch_id, call_args))

    def wait(self, batch_id: BatchId) -> tuple[Any, ...]:
        """The pipeline's outputs (a tuple of batches) of ``batch_id``, once produced.

        Raises:
            Exception: The error that failed this batch (the pipeline's, as it raised it),
                or every batch (see the module's docstring).
            RuntimeError: The server is not running, so the batch would never come.
        """
        with self._cond:
            while batch_id not in self._done:
                if self._fatal is not None:
                    raise self._fatal
                if not self._serving:
                    raise RuntimeError(
                        f"The DALIServer is not running, so the batch {batch_id} cannot be "
                        "produced. Use `with DALIServer(pipe) as server:` (or "
                        "server.start_thread()) around the loop that consumes the data; the "
                        "proxy's DataLoader starts it by itself."
                    )
                self._cond.wait()
            outputs, error = self._done.pop(batch_id)
        if error is not None:
            raise error
        assert outputs is not None
        return tuple(outputs)

    def new_generation(self) -> int:
        with self._cond:
            self._generations += 1
            return self._generations

    def retire(self, generation: int) -> None:
        """Forget the batches of ``generation`` (a DataLoader iteration left before its end):
        its queued requests are skipped and its outputs dropped. Safe from any thread."""
        with self._cond:
            self._retired.add(generation)
            for batch_id in [b for b in self._done if b[0] == generation]:
                del self._done[batch_id]

    def pending(self) -> int:
        """Outputs produced and not yet asked for (our extension, for tests and monitoring)."""
        with self._cond:
            return len(self._done)

    # -- start and stop -------------------------------------------------------------------
    @property
    def thread(self) -> threading.Thread | None:
        """The pipeline thread while the server runs, else None."""
        return self._threads[0] if self._threads else None

    def start(self) -> None:
        with self._control:
            if self._threads:
                return
            if self._closed:
                raise RuntimeError("The DALIServer was closed: make a new one.")
            stop = threading.Event()
            threads = (
                threading.Thread(
                    target=self._serve, args=(stop,), name="dali-proxy-pipeline", daemon=True
                ),
                threading.Thread(
                    target=self._listen, args=(stop,), name="dali-proxy-listener", daemon=True
                ),
            )
            with self._cond:
                self._serving = True
            self._stop, self._threads = stop, threads
            for t in threads:
                t.start()

    def stop(self) -> None:
        """Stop both threads and wait for them (the pipeline thread finishes the iteration it
        is taking; requests and scheduled iterations stay for a restart). Idempotent."""
        with self._control:
            if not self._threads:
                return
            stop, threads = self._stop, self._threads
            assert stop is not None
            stop.set()
            self.inbox.wake()
            self.listener.wake()
            me = threading.current_thread()
            for t in threads:
                if t is not me:  # (a collector's finalizer may run on one of them)
                    t.join()
            self._stop, self._threads = None, ()
            with self._cond:
                self._serving = False
                self._cond.notify_all()

    def close(self) -> None:
        """Stop, then close the socket (the server cannot start again). Idempotent."""
        self.stop()
        with self._control:
            if not self._closed:
                self._closed = True
                self.listener.close()

    # -- the threads ------------------------------------------------------------------------
    def _listen(self, stop: threading.Event) -> None:
        try:
            self.listener.serve(stop)
        except BaseException as e:
            self._fail(e)
            raise

    def _serve(self, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                room = self.depth - len(self._fed)
                if room > 0:
                    for request in self.inbox.take(room, block=not self._fed, stop=stop):
                        self._schedule(*request)
                if self._fed and not stop.is_set():
                    self._take_outputs()
        except BaseException as e:
            self._fail(e)
            raise

    def _schedule(self, batch_id: BatchId, call_args: dict[str, list[Any]]) -> None:
        with self._cond:
            if batch_id[0] in self._retired:
                return
            broken = self._broken
        if broken is not None:
            self._publish(batch_id, None, broken)
            return
        fed_some = False
        try:
            for name in self.input_names:
                if name not in call_args:
                    raise RuntimeError(
                        f"The request {batch_id} has no data for the pipeline input {name!r} "
                        f"(inputs: {self.input_names}, given: {sorted(call_args)})."
                    )
                self.pipe.feed_input(name, call_args[name])
                fed_some = True
            self.pipe.schedule_run()
        except Exception as e:  # noqa: BLE001 - whatever failed, it is this batch's error
            if fed_some:  # the pipeline's inputs are out of step: nothing later is right
                with self._cond:
                    self._broken = e
            self._publish(batch_id, None, e)
            return
        self._fed.append(batch_id)

    def _take_outputs(self) -> None:
        batch_id = self._fed.popleft()
        try:
            outputs: Any = self.pipe.outputs()
            error: BaseException | None = None
        except StopIteration:
            outputs, error = None, RuntimeError("The DALIServer's pipeline ran out of data.")
        except Exception as e:  # noqa: BLE001 - the batch's error, raised where it is asked for
            outputs, error = None, e
        self._publish(batch_id, outputs, error)

    def _publish(self, batch_id: BatchId, outputs: Any, error: BaseException | None) -> None:
        with self._cond:
            if batch_id[0] in self._retired:
                return
            self._done[batch_id] = (outputs, error)
            self._cond.notify_all()

    def _lost_request(self, error: BaseException) -> None:
        self._fail(
            RuntimeError(
                f"A request sent by a DataLoader worker to the DALIServer could not be read "
                f"({type(error).__name__}: {error}); its batch is lost."
            )
        )

    def _fail(self, error: BaseException) -> None:
        """Make every waiter, now and later, raise ``error``."""
        with self._cond:
            if self._fatal is None:
                self._fatal = error
            self._cond.notify_all()
