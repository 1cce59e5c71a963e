"""The save/restore round trip every iterator's tests run, public as `dali.testing`.

A checkpoint must restore to exactly the next result: the same batches, the same epoch ends
(StopIteration counts as a result) and the same ``len()``. `check_save_restore` checks that for
any framework iterator, `check_pipeline_save_restore` for a bare pipeline; a plugin's tests pass
their factory and a ``to_numpy`` for their arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

# Plainly sorted, as every public module's `__all__` (the tests check sorted(__all__)).
__all__ = [  # noqa: RUF022 - ruff would put STOP first
    "ResetAfterStop",
    "STOP",
    "assert_same_batches",
    "check_pipeline_save_restore",
    "check_save_restore",
    "step",
]


class _Stop:
    def __repr__(self) -> str:
        return "STOP"


#: What `step` returns for StopIteration, so that epoch ends are compared too.
STOP = _Stop()


def step(it: Any) -> Any:
    """``next(it)``, or `STOP` where it raises StopIteration."""
    try:
        return next(it)
    except StopIteration:
        return STOP


class ResetAfterStop:
    """An iterator that calls ``reset()`` after each StopIteration (the manual alternative to
    ``auto_reset``), for round trips of iterators made with ``auto_reset=False``: wrap both
    the saved and the restored one. ``len()`` and ``checkpoints()`` pass through."""

    def __init__(self, it: Any) -> None:
        self.it = it

    def __len__(self) -> int:
        return len(self.it)

    def __next__(self) -> Any:
        try:
            return next(self.it)
        except StopIteration:
            self.it.reset()
            raise

    def checkpoints(self) -> list[Any]:
        cps: list[Any] = self.it.checkpoints()
        return cps

    def load_checkpoints(self, checkpoints: Any) -> None:
        self.it.load_checkpoints(checkpoints)


def _leaves(x: Any, path: str) -> list[tuple[str, Any]]:
    if x is STOP or x is None:
        return [(path, x)]
    if isinstance(x, Mapping):
        keys = list(x)
        out: list[tuple[str, Any]] = [(f"{path}.keys", keys)]
        for k in keys:
            out += _leaves(x[k], f"{path}[{k!r}]")
        return out
    if isinstance(x, (list, tuple)):
        out = [(f"{path}.len", len(x))]
        for i, v in enumerate(x):
            out += _leaves(v, f"{path}[{i}]")
        return out
    return [(path, x)]


def assert_same_batches(
    expected: Any, actual: Any, to_numpy: Callable[[Any], np.ndarray] = np.asarray
) -> None:
    """Assert two results (nested lists/tuples/dicts of arrays, or `STOP`) are equal, dtypes
    and shapes too; the message names the first leaf that differs."""
    exp, act = _leaves(expected, "batch"), _leaves(actual, "batch")
    assert [p for p, _ in exp] == [p for p, _ in act], (expected, actual)
    for (path, e), (_, a) in zip(exp, act):
        if e is STOP or a is STOP or e is None or isinstance(e, (int, list, str)):
            assert e == a, f"{path}: expected {e!r}, got {a!r}"
            continue
        e_arr, a_arr = to_numpy(e), to_numpy(a)
        assert e_arr.dtype == a_arr.dtype, f"{path}: dtype {e_arr.dtype} != {a_arr.dtype}"
        np.testing.assert_array_equal(a_arr, e_arr, err_msg=path)


def check_save_restore(
    make_iterator: Callable[..., Any],
    n_before: int,
    n_after: int,
    *,
    to_numpy: Callable[[Any], np.ndarray] = np.asarray,
    in_place: int | None = None,
) -> list[Any]:
    """The save/restore round trip: a restored iterator continues exactly where one stopped.

    ``make_iterator()`` makes a fresh iterator and ``make_iterator(checkpoints=cps)`` one whose
    pipelines are restored from ``cps``. The first iterator takes ``n_before`` steps (a step is
    ``next()``; StopIteration counts as a step, so epoch ends are covered), then saves
    ``checkpoints()`` and takes ``n_after`` more; a restored iterator must give the same
    ``n_after`` results, epoch ends and ``len()`` included.

    Args:
        make_iterator: The factory described above.
        n_before: Steps before saving (0 checks the checkpoints made in the constructor).
        n_after: Steps compared after saving.
        to_numpy: Turns a framework array into numpy (e.g. ``lambda t: t.cpu().numpy()``).
        in_place: Restore with the iterator's ``load_checkpoints(cps)`` instead: into a fresh iterator
            (``make_iterator()``) after it took ``in_place`` steps of its own.

    Returns:
        The checkpoints, for further checks.

    Example:
        >>> import numpy as np, dali, dali.fn as fn
        >>> from dali.author import BaseIterator
        >>> class Iterator(BaseIterator):
        ...     def _convert(self, outputs):
        ...         return [np.array(outs[0].as_tensor()) for outs in outputs]
        >>> def make(checkpoints=None):
        ...     pipe = dali.Pipeline(batch_size=2, num_threads=1, seed=1,
        ...                          enable_checkpointing=True,
        ...                          checkpoint=checkpoints[0] if checkpoints else None)
        ...     with pipe:
        ...         pipe.set_outputs(fn.random.uniform())
        ...     return Iterator(pipe, size=6)
        >>> cps = check_save_restore(make, 2, 4)
        >>> type(cps[0])
        <class 'bytes'>
    """
    it = make_iterator()
    for _ in range(n_before):
        step(it)
    cps: list[Any] = it.checkpoints()
    expected = []
    for _ in range(n_after):
        expected.append((len(it), step(it)))
    if in_place is None:
        restored = make_iterator(checkpoints=cps)
    else:
        restored = make_iterator()
        for _ in range(in_place):
            step(restored)
        restored.load_checkpoints(cps)
    for i, (length, result) in enumerate(expected):
        assert len(restored) == length, f"step {n_before + i}: len {len(restored)} != {length}"
        assert_same_batches(result, step(restored), to_numpy)
    return cps


def _run_pipeline(pipe: Any) -> Any:
    """One `Pipeline.run` as numpy arrays (CPU copies of GPU outputs), or `STOP`."""
    try:
        outs = pipe.run()
    except StopIteration:
        pipe.reset()
        return STOP
    result = []
    for tl in outs:
        cpu = tl.as_cpu() if hasattr(tl, "as_cpu") else tl
        result.append([np.array(cpu[i]) for i in range(len(cpu))])
    return result


def check_pipeline_save_restore(
    make_pipeline: Callable[..., Any], n_before: int, n_after: int
) -> bytes:
    """The round trip for a bare pipeline: ``make_pipeline()`` and
    ``make_pipeline(checkpoint=cpt)`` (made with ``enable_checkpointing=True``) must give the
    same ``n_after`` runs after ``cpt = pipe.checkpoint()`` taken after ``n_before`` runs. A run
    that raises StopIteration counts as a run (and resets the pipeline).

    Returns:
        The checkpoint.
    """
    pipe = make_pipeline()
    for _ in range(n_before):
        _run_pipeline(pipe)
    cpt: bytes = pipe.checkpoint()
    expected = [_run_pipeline(pipe) for _ in range(n_after)]
    restored = make_pipeline(checkpoint=cpt)
    for i, result in enumerate(expected):
        try:
            assert_same_batches(result, _run_pipeline(restored))
        except AssertionError as e:
            raise AssertionError(f"run {n_before + i} after the restore: {e}") from None
    assert restored.is_restored_from_checkpoint
    return cpt
