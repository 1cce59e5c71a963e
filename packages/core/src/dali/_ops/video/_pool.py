"""Open video decoders kept per file and shared by the threads of an operator.

Opening a decoder costs (a container parse on the CPU, a hardware session on the GPU), and a
decoder that stands just before the next wanted frame decodes forward without seeking. So the
video operators keep their decoders here between batches: a thread takes one (`take`) for a file,
preferring the one standing closest before its first frame, and gives it back (`give`); one decoder
is used by one thread at a time, and the pool is bounded (least recently used files closed).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["DecoderPool"]

_D = TypeVar("_D")
_R = TypeVar("_R")


class DecoderPool(Generic[_D]):
    """Open decoders per file, shared by threads: one thread uses a decoder at a time.

    `take` prefers the decoder standing closest before the wanted frame (it continues without
    seeking); at most ``per_file`` idle decoders are kept per file and ``files`` files in all
    (least recently used ones are closed).
    """

    def __init__(
        self,
        make: Callable[[str], _D],
        position: Callable[[_D], int],
        close: Callable[[_D], None],
        *,
        per_file: int = 4,
        files: int = 32,
    ) -> None:
        self._make, self._position, self._close = make, position, close
        self._per_file, self._files = per_file, files
        self._idle: collections.OrderedDict[str, list[_D]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def take(self, path: str, first_frame: int) -> _D:
        with self._lock:
            idle = self._idle.get(path)
            if idle:
                ahead = [d for d in idle if 0 <= self._position(d) <= first_frame]
                best = max(ahead, key=self._position) if ahead else idle[-1]
                idle.remove(best)
                return best
        return self._make(path)

    def use(self, path: str, first_frame: int, work: Callable[[_D], _R]) -> _R:
        """``work(decoder)`` with a decoder of ``path`` (`take`), given back after (`give`); a
        decoder whose work failed is closed instead (its position is unknown)."""
        decoder = self.take(path, first_frame)
        try:
            result = work(decoder)
        except BaseException:
            self._close(decoder)
            raise
        self.give(path, decoder)
        return result

    def give(self, path: str, decoder: _D) -> None:
        closing: list[_D] = []
        with self._lock:
            idle = self._idle.setdefault(path, [])
            self._idle.move_to_end(path)
            idle.append(decoder)
            if len(idle) > self._per_file:
                closing.append(idle.pop(0))
            while len(self._idle) > self._files:
                _, old = self._idle.popitem(last=False)
                closing.extend(old)
        for d in closing:
            self._close(d)

    def close(self) -> None:
        with self._lock:
            all_idle = [d for ds in self._idle.values() for d in ds]
            self._idle.clear()
        for d in all_idle:
            self._close(d)
