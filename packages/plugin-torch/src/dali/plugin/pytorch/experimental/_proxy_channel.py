"""How the proxy's requests reach the server: an in-process `Inbox`, and a Unix socket from
the DataLoader's worker processes (`Listener` in the server's process, `Sender` in each
worker).

Why a socket and not a ``multiprocessing.Queue``: a queue shared by all workers needs a
process-shared lock whose start method must match the DataLoader's
(``multiprocessing_context``, unknown when the server is made; a fork-made lock cannot go to
a spawned worker), and a queue outside the fork context names a semaphore and starts
multiprocessing's resource tracker process. Here every worker opens its own connection to
one listening socket (in a private temporary folder: only this user's processes can reach
it), so any start method works, a worker that dies mid-message corrupts only its own
connection, and nothing outlives the server: no feeder thread, no semaphore, no helper
process. Messages are pickled with ``multiprocessing.reduction.ForkingPickler``, as queues
do, so torch tensors travel through shared memory.

Example:
    >>> import threading
    >>> inbox = Inbox()
    >>> listener = Listener(inbox.put)
    >>> stop = threading.Event()
    >>> t = threading.Thread(target=listener.serve, args=(stop,))
    >>> t.start()
    >>> Sender(listener.address).send(("batch", [1, 2]))
    >>> inbox.take(4, block=True, stop=stop)
    [('batch', [1, 2])]
    >>> stop.set(); listener.wake(); t.join(); listener.close()
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import selectors
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable
from multiprocessing.reduction import ForkingPickler
from typing import Any

__all__ = ["Inbox", "Listener", "Sender"]

#: Each message is its pickled length (8 bytes, little endian), then the pickle.
_HEADER = 8
#: How much one read takes from a connection.
_CHUNK = 1 << 20
#: The longest path a Unix socket address may have (108 bytes on Linux, 104 on macOS).
_MAX_ADDRESS = 100


class Inbox:
    """The server's queue of requests, oldest first; `take` wakes up when `wake` is called
    (to stop) as well as when a request comes."""

    def __init__(self) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._cond = threading.Condition()

    def put(self, item: Any) -> None:
        with self._cond:
            self._items.append(item)
            self._cond.notify_all()

    def take(self, most: int, *, block: bool, stop: threading.Event) -> list[Any]:
        """Up to ``most`` requests; with ``block``, wait until there is one or ``stop`` is set.
        Nothing is taken once ``stop`` is set (what is left stays for a restarted server)."""
        with self._cond:
            while block and not self._items and not stop.is_set():
                self._cond.wait()
            if stop.is_set():
                return []
            n = min(most, len(self._items))
            return [self._items.popleft() for _ in range(n)]

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


def _private_socket_path() -> tuple[str, str]:
    """A folder only this user can enter, and a socket path in it short enough for AF_UNIX."""
    folder = tempfile.mkdtemp(prefix="dali-proxy-")
    if len(os.path.join(folder, "s").encode()) > _MAX_ADDRESS:  # a long TMPDIR
        os.rmdir(folder)
        folder = tempfile.mkdtemp(prefix="dali-proxy-", dir="/tmp")
    return folder, os.path.join(folder, "s")


class Listener:
    """The listening end, in the server's process: `serve` (on the server's listener thread)
    accepts the workers' connections, reads their messages and hands each, unpickled, to
    ``deliver``. Connections stay open across stops and restarts of the server.

    Args:
        deliver: Called with every message, on the listener thread.
        on_error: Called with the exception when a message cannot be unpickled (the request
            it carried is lost, so the server must fail its waiters); None: raise it.
    """

    def __init__(
        self,
        deliver: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self._deliver = deliver
        self._on_error = on_error
        self._folder, self.address = _private_socket_path()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.bind(self.address)
            self._sock.listen(128)
        except BaseException:
            self._sock.close()
            shutil.rmtree(self._folder, ignore_errors=True)
            raise
        self._sock.setblocking(False)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._sock, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._buffers: dict[socket.socket, bytearray] = {}
        self._closed = False

    def serve(self, stop: threading.Event) -> None:
        """Read messages until ``stop`` is set (`wake` makes the wait notice it at once)."""
        while not stop.is_set():
            for key, _ in self._selector.select():
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is self._wake_r:
                    with contextlib.suppress(BlockingIOError):
                        while self._wake_r.recv(4096):
                            pass
                elif sock is self._sock:
                    self._accept()
                else:
                    self._read(sock)

    def _accept(self) -> None:
        try:
            conn, _ = self._sock.accept()
        except (BlockingIOError, InterruptedError):
            return
        conn.setblocking(False)
        self._buffers[conn] = bytearray()
        self._selector.register(conn, selectors.EVENT_READ, None)

    def _read(self, conn: socket.socket) -> None:
        try:
            chunk = conn.recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:  # the worker ended (a message cut short by its death is dropped)
            self._drop(conn)
            return
        buf = self._buffers[conn]
        buf += chunk
        while len(buf) >= _HEADER:
            size = int.from_bytes(buf[:_HEADER], "little")
            if len(buf) < _HEADER + size:
                break
            payload = bytes(buf[_HEADER : _HEADER + size])
            del buf[: _HEADER + size]
            try:
                message = pickle.loads(payload)  # from this user's own processes only
            except Exception as e:
                if self._on_error is None:
                    raise
                self._on_error(e)
                continue
            self._deliver(message)

    def _drop(self, conn: socket.socket) -> None:
        self._selector.unregister(conn)
        self._buffers.pop(conn, None)
        conn.close()

    def wake(self) -> None:
        """Make `serve` look at its ``stop`` event now."""
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    def close(self) -> None:
        """Close every connection and the socket, and remove its folder (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for conn in list(self._buffers):
            self._drop(conn)
        self._selector.close()
        for s in (self._sock, self._wake_r, self._wake_w):
            s.close()
        shutil.rmtree(self._folder, ignore_errors=True)


class Sender:
    """The sending end, in a worker (or any process): connects to ``address`` on its first
    message in each process. Picklable: the connection stays behind."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._sock: socket.socket | None = None
        self._pid = -1
        self._lock = threading.Lock()

    def send(self, message: Any) -> None:
        """Pickle ``message`` and send it, blocking while the socket's buffer is full.

        Raises:
            RuntimeError: The server's socket is gone (the `DALIServer` was deleted).
        """
        payload = ForkingPickler.dumps(message)
        header = len(payload).to_bytes(_HEADER, "little")
        if self._pid != os.getpid():  # a forked copy: the lock and socket are the parent's
            self._lock = threading.Lock()
            self._sock = None
            self._pid = os.getpid()
        with self._lock:
            if self._sock is None:
                self._sock = self._connect()
            self._sock.sendall(header)
            self._sock.sendall(payload)

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.address)
        except OSError as e:
            sock.close()
            raise RuntimeError(
                f"The DALI proxy cannot reach its DALIServer ({self.address}): {e}. The "
                "server must exist as long as the DataLoader's workers use its proxy."
            ) from e
        return sock

    def __getstate__(self) -> dict[str, Any]:
        return {"address": self.address}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["address"])  # type: ignore[misc]
