"""What kind of ``source`` the user gave `fn.external_source`, and how to pull from it.

A source is a callable (called with nothing, the iteration index, a `BatchInfo` or a
`SampleInfo`), an iterable, or a generator function; ``cycle`` restarts iterables and
generator functions. `describe_source` classifies a source when the graph is defined, as DALI
does (``get_callback_from_source``), and prepares pulling from it in the pipeline's process.

Example:
    >>> describe_source([1, 2], cycle="quiet").next_item(), accepted_arg_count(lambda i: i)
    (1, 1)
"""

from __future__ import annotations

import concurrent.futures
import functools
import inspect
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dali._ops.python._parallel import is_generator_function

__all__ = ["SourceDesc", "SourceThread", "accepted_arg_count", "describe_source"]


@dataclass(eq=False)
class SourceDesc:
    """The user's ``source`` and how to pull from it in the pipeline's process.

    Attributes:
        kind: ``"callable"``, ``"iterable"`` or ``"genfunc"``.
        source: What the user gave.
        cycle: ``None``, ``"quiet"`` or ``"raise"``.
        accepts_arg: A callable takes the iteration / BatchInfo / SampleInfo.
        next_item: Iterables and generators: returns the next item (applies ``cycle``).
    """

    kind: str
    source: Any
    cycle: str | None = None
    accepts_arg: bool = False
    next_item: Callable[[], Any] | None = None

    def __repr__(self) -> str:  # stable across processes: no addresses (op identities)
        return f"<{self.kind} source>"


class _Cycle:
    """Restart an iterable when it is exhausted: quietly, or after raising StopIteration."""

    def __init__(self, make_iter: Callable[[], Any], mode: str) -> None:
        self._make_iter = make_iter
        self._signal = mode == "raise"
        self._it = make_iter()

    def __call__(self) -> Any:
        try:
            return next(self._it)
        except StopIteration:
            self._it = self._make_iter()
            if self._signal:
                raise
            return next(self._it)


def _cycle_mode(cycle: Any) -> str | None:
    if cycle is None or cycle is False or cycle == "no":
        return None
    if cycle is True or cycle == "quiet":
        return "quiet"
    if cycle == "raise":
        return "raise"
    raise ValueError(
        f"Invalid value {cycle!r} for the argument `cycle`. Valid values are\n"
        '  - "no", False or None - cycling disabled\n'
        '  - "quiet", True - quietly rewind the data\n'
        '  - "raise" - raise StopIteration on each rewind.'
    )


def accepted_arg_count(source: Callable[..., Any]) -> int:
    """The number of positional parameters of a ``source`` callable (0 or 1).

    Parameters with defaults count. Bound methods and callable objects do not count ``self``.

    Raises:
        TypeError: For ``*args``, ``**kwargs``, keyword-only or more than one parameter.
    """
    try:
        signature = inspect.signature(source)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Cannot inspect the parameters of the `source` callable: {e}") from None
    msg = (
        "The `source` callable must accept either 0 or 1 positional arguments to indicate "
        "whether it accepts the batch or sample indexing information."
    )
    for p in signature.parameters.values():
        if p.kind == inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(
                f"{msg} Found var-positional argument `*{p.name}` which is not allowed."
            )
        if p.kind == inspect.Parameter.VAR_KEYWORD:
            raise TypeError(f"{msg} Found var-keyword argument `**{p.name}` which is not allowed.")
        if p.kind == inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{msg} Found keyword-only argument `{p.name}` which is not allowed.")
    n = len(signature.parameters)
    if n > 1:
        raise TypeError(f"{msg} Found more than one positional argument, which is not allowed.")
    return n


def _not_iterable(e: TypeError) -> bool:
    return "not iterable" in str(e)


def describe_source(source: Any, cycle: Any = None) -> SourceDesc:
    """Classify ``source`` and prepare pulling from it (DALI's ``get_callback_from_source``).

    An iterable gets its iterator now, and a generator function (without ``cycle``) is called
    now, as in DALI; a callable is only inspected.

    Raises:
        TypeError: A generator object with ``cycle``, a callable with a wrong signature, or
            something neither callable nor iterable.
        ValueError: An invalid ``cycle``, or ``cycle`` with a callable.
    """
    mode = _cycle_mode(cycle)
    cycle_error = "The argument `cycle` can only be specified if `source` is iterable."
    if mode is not None:
        if inspect.isgenerator(source):
            raise TypeError(
                "Cannot cycle through a generator - if the generator is a result of calling a "
                "generator function, pass that function instead as `source`."
            )
        if is_generator_function(source):
            return SourceDesc("genfunc", source, mode, next_item=_Cycle(lambda: source(), mode))
        try:
            cycler = _Cycle(lambda: iter(source), mode)
        except TypeError as e:
            if not _not_iterable(e):
                raise
            raise ValueError(cycle_error) from None
        return SourceDesc("iterable", source, mode, next_item=cycler)
    if is_generator_function(source):
        gen = source()
        return SourceDesc("genfunc", source, None, next_item=functools.partial(next, gen))
    try:
        it = iter(source)
    except TypeError as e:
        if not _not_iterable(e):
            raise
        if cycle is not None:
            raise ValueError(cycle_error) from None
        if not callable(source):
            raise TypeError(
                "The `source` must be callable, iterable or a parameterless generator function."
            ) from None
        return SourceDesc("callable", source, accepts_arg=accepted_arg_count(source) > 0)
    return SourceDesc("iterable", source, None, next_item=functools.partial(next, it))


class SourceThread:
    """Calls a source on a daemon thread of its own, so that the caller can stop waiting.

    `call` hands the pull to the thread and waits at most ``timeout`` seconds for it. A pull
    that does not come back in time stays with the thread (a stuck callback cannot be
    stopped; being a daemon, the thread never holds up the interpreter's exit). An interrupted
    wait (Ctrl-C) leaves the pull running: calling again with the same ``key`` (the same
    iteration) waits for that same pull, rather than pulling twice.

    Example:
        >>> caller = SourceThread("src")
        >>> caller.call(0, lambda i, e: (i, e), 1.0, 3, 0)
        (3, 0)
        >>> caller.close()
    """

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._pending: tuple[Any, concurrent.futures.Future[Any]] | None = None
        thread = threading.Thread(target=self._loop, name=f"dali-source-{name}", daemon=True)
        thread.start()

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, fn, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as e:  # noqa: BLE001 - raised by `call`, in the caller
                future.set_exception(e)

    def call(self, key: Any, fn: Callable[..., Any], timeout: float, *args: Any) -> Any:
        """``fn(*args)`` on the thread (or the pull already running for ``key``).

        Raises:
            TimeoutError: It did not return within ``timeout`` seconds.
        """
        if self._pending is None or self._pending[0] != key:
            future: concurrent.futures.Future[Any] = concurrent.futures.Future()
            self._pending = (key, future)
            self._jobs.put((future, fn, args))
        future = self._pending[1]
        try:
            result = future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise TimeoutError(f"no result within {timeout:g} s") from None
        except KeyboardInterrupt:
            raise  # (the pull goes on: the next call for this key waits for it)
        except BaseException:
            self._pending = None
            raise
        self._pending = None
        return result

    def close(self) -> None:
        """Let the thread end (once it is done with the pull in progress, if any)."""
        self._jobs.put(None)
