"""Helpers shared by the iterator tests of core and of every plugin (STYLE.md §11).

``tests/`` is on ``sys.path`` (pytest puts the directory of ``tests/conftest.py`` there), so any
test module can ``from iterator_utils import ...``.

* `make_files` and `reader_pipeline`: tiny files read by ``fn.readers.file`` with labels
  ``0..n-1``, so every label names its sample.
* `NumpyIterator`: a minimal plugin over `dali.plugin.base_iterator._DaliBaseIterator` (a numpy
  copy of the pytorch iterator: one dict of arrays per pipeline, PARTIAL supported).
* `check_save_restore`: the one save/restore round trip every iterator's tests run.
* `ReplayPipeline`: a stand-in for pipeline checkpoints until dali-core has them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from dali import Pipeline, fn
from dali.plugin.base_iterator import LastBatchPolicy, _DaliBaseIterator
from dali.tensors import TensorListCPU

__all__ = [
    "STOP",
    "TREE_IMAGES",
    "NumpyIterator",
    "ReplayPipeline",
    "assert_same_batches",
    "check_save_restore",
    "labels_of",
    "make_files",
    "reader_pipeline",
    "step",
]


# -- data -------------------------------------------------------------------------------------

#: Images in the ``image_tree`` fixtures (`dali._testing.images.make_image_tree`'s default);
#: its ``list.txt`` gives image i the label i.
TREE_IMAGES = 21


def make_files(directory: str | os.PathLike[str], n: int) -> list[str]:
    """``n`` files of a few bytes (``f00000.bin``, ...) in ``directory``; returns their paths."""
    paths = []
    for i in range(n):
        path = Path(directory, f"f{i:05d}.bin")
        if not path.exists():
            path.write_bytes(f"sample {i}".encode())
        paths.append(str(path))
    return paths


def reader_pipeline(
    files: Sequence[str],
    batch_size: int,
    *,
    shard_id: int = 0,
    num_shards: int = 1,
    pad_last_batch: bool = False,
    stick_to_shard: bool = False,
    pipe_cls: type[Pipeline] = Pipeline,
    **pipe_kwargs: Any,
) -> Pipeline:
    """A CPU pipeline whose one output is the label (= index) of each sample of ``files``.

    The reader is named ``"Reader"``; ``pipe_kwargs`` go to the pipeline (e.g.
    ``enable_checkpointing=True, checkpoint=...``).
    """
    pipe_kwargs.setdefault("num_threads", 1)
    pipe_kwargs.setdefault("device_id", None)
    pipe = pipe_cls(batch_size=batch_size, **pipe_kwargs)
    with pipe:
        _, labels = fn.readers.file(
            files=list(files),
            labels=list(range(len(files))),
            shard_id=shard_id,
            num_shards=num_shards,
            pad_last_batch=pad_last_batch,
            stick_to_shard=stick_to_shard,
            name="Reader",
        )
        pipe.set_outputs(labels)
    return pipe


# -- a minimal plugin -------------------------------------------------------------------------


def _to_numpy(tl: Any) -> np.ndarray:
    if not isinstance(tl, TensorListCPU):
        tl = tl.as_cpu()
    return np.array(tl.as_tensor())  # a copy: the batch outlives the pipeline's buffers


class NumpyIterator(_DaliBaseIterator):
    """The pytorch iterator's ``__next__`` logic with numpy arrays, for tests.

    Each ``next()`` returns a list with one ``{name: ndarray}`` per pipeline (names from
    ``output_map``), batch axis first; with PARTIAL the arrays of the last batch are cut.

    Example:
        >>> it = NumpyIterator(pipes, ["label"], reader_name="Reader")  # doctest: +SKIP
        >>> [b["label"].ravel().tolist() for b in next(it)]  # doctest: +SKIP
        [[0, 1, 2, 3, 4, 5, 6, 7], [10, 11, 12, 13, 14, 15, 16, 17]]
    """

    def __init__(
        self,
        pipelines: Any,
        output_map: Sequence[str],
        size: int = -1,
        reader_name: str | None = None,
        auto_reset: bool | str | None = False,
        fill_last_batch: bool | None = None,
        last_batch_padded: bool = False,
        last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
        prepare_first_batch: bool = True,
    ) -> None:
        # set before the base constructor: it already converts the first batch
        if len(set(output_map)) != len(output_map):
            raise AssertionError("output_map names should be distinct")
        self.output_map = list(output_map)
        super().__init__(
            pipelines,
            size=size,
            reader_name=reader_name,
            auto_reset=auto_reset,
            fill_last_batch=fill_last_batch,
            last_batch_padded=last_batch_padded,
            last_batch_policy=last_batch_policy,
            prepare_first_batch=prepare_first_batch,
        )

    def _convert(self, outputs: list[tuple[Any, ...]]) -> list[dict[str, np.ndarray]]:
        batches = []
        for outs in outputs:
            if len(outs) != len(self.output_map):
                raise AssertionError(
                    f"output_map names {len(self.output_map)} outputs, the pipeline has {len(outs)}"
                )
            batches.append({name: _to_numpy(tl) for name, tl in zip(self.output_map, outs)})
        return batches


def labels_of(batch: Sequence[Mapping[str, np.ndarray]], name: str = "label") -> list[list[int]]:
    """The labels of a `NumpyIterator` batch, one list per pipeline."""
    return [np.asarray(b[name]).ravel().tolist() for b in batch]


# -- save / restore ---------------------------------------------------------------------------


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


def _leaves(x: Any, path: str) -> list[tuple[str, Any]]:
    if x is STOP or x is None:
        return [(path, x)]
    if isinstance(x, Mapping):
        keys = list(x)
        out = [(f"{path}.keys", keys)]
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
    """Assert two results (nested lists/dicts of arrays, or `STOP`) are equal, dtypes too."""
    exp, act = _leaves(expected, "batch"), _leaves(actual, "batch")
    assert [p for p, _ in exp] == [p for p, _ in act], (expected, actual)
    for (path, e), (_, a) in zip(exp, act):
        if e is STOP or a is STOP or e is None or isinstance(e, (int, list)):
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

    Returns:
        The checkpoints, for further checks.
    """
    it = make_iterator()
    for _ in range(n_before):
        step(it)
    cps = it.checkpoints()
    expected = []
    for _ in range(n_after):
        expected.append((len(it), step(it)))
    restored = make_iterator(checkpoints=cps)
    for i, (length, result) in enumerate(expected):
        assert len(restored) == length, f"step {n_before + i}: len {len(restored)} != {length}"
        assert_same_batches(result, step(restored), to_numpy)
    return cps


class ReplayPipeline(Pipeline):
    """A Pipeline with DALI's checkpoint hooks, made by replaying (tests only).

    dali-core has no pipeline checkpoints yet. This stand-in implements the contract the
    iterator core relies on: ``_get_checkpoint(iterator_data=...)`` returns the checkpoint
    (here a JSON ``{"iter": batches consumed, "iterator_data": ...}``), a pipeline made with
    ``checkpoint=`` reports ``is_restored_from_checkpoint`` after `build` and exposes
    ``_iterator_data``. Restoring replays ``iter`` iterations at build, so it is exact only for
    graphs whose data depends on the iteration count alone and that never end an epoch
    (readers, random operators).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._consumed = 0

    @property
    def is_restored_from_checkpoint(self) -> bool:
        return self._built and self._checkpoint is not None

    @property
    def _iterator_data(self) -> str | None:
        if self._checkpoint is None:
            return None
        return json.loads(self._checkpoint)["iterator_data"]

    def build(self) -> None:
        if self._built:
            return
        super().build()
        if self._checkpoint is None:
            return
        if not self._enable_checkpointing:
            raise RuntimeError("Cannot restore checkpoint: `enable_checkpointing` is not set")
        consumed = int(json.loads(self._checkpoint)["iter"])
        with self._check_api_type_scope():
            for _ in range(consumed):
                self.run()
        self._consumed = consumed

    def share_outputs(self) -> tuple[Any, ...]:
        out = super().share_outputs()
        self._consumed += 1
        return out

    def _get_checkpoint(self, iterator_data: str | None = None) -> bytes:
        self.build()
        return json.dumps({"iter": self._consumed, "iterator_data": iterator_data}).encode()
