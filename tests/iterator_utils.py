"""Helpers shared by the iterator tests of core and of every plugin.

``tests/`` is on ``sys.path`` (pytest puts the directory of ``tests/conftest.py`` there), so any
test module can ``from iterator_utils import ...``.

* `make_files` and `reader_pipeline`: tiny files read by ``fn.readers.file`` with labels
  ``0..n-1``, so every label names its sample.
* `NumpyIterator`: a minimal plugin over `dali.plugin.base_iterator._DaliBaseIterator` (a numpy
  copy of the pytorch iterator: one dict of arrays per pipeline, PARTIAL supported).
* `check_save_restore`, `step`, `STOP`, `assert_same_batches`: the save/restore round trip
  every iterator's tests run, re-exported from `dali.testing` (where plugins find it too).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from dali import Pipeline, fn
from dali.plugin.base_iterator import LastBatchPolicy, _DaliBaseIterator
from dali.tensors import TensorListCPU
from dali.testing import STOP, assert_same_batches, check_save_restore, step

__all__ = [
    "STOP",
    "TREE_IMAGES",
    "NumpyIterator",
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
