"""Conformance cases of `fn.readers.numpy` against real DALI 2.4 (see README.md).

The files are `dali._testing.numpy_files`' (written into the ``numpy`` folder): the small tree
(files in the root and in subfolders, C and Fortran order, ``list.txt``), the edge cases (0-d,
empty, bool, float16, uint64, big-endian, version 2.0/3.0 headers, broken files) and small int16
volumes for the regions of interest (C and Fortran order).

Compared: the samples and their order, values, dtypes, shapes, layouts and ``source_info``,
``reader_meta`` and ``epoch_size`` (sharding, padding), the regions of interest (every argument
form, per-sample regions, the three out-of-bounds policies), and that both libraries raise on
the error cases. Known differences: big-endian files and version 2.0/3.0 headers, which DALI
2.4 rejects and `dali` reads as numpy does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from cases import (
    GENERATORS,
    Case,
    In,
    Iters,
    Value,
    _short,
    add,
    arrays,
    epoch_problems,
    structure_problems,
)


def _generate(folder: Path) -> None:
    from dali._testing import numpy_files

    numpy_files.make_numpy_tree(folder)
    numpy_files.make_numpy_edge_cases(folder)
    numpy_files.make_numpy_volumes(folder / "c", 3, (12, 9, 7), "int16", seed=1)
    numpy_files.make_numpy_volumes(folder / "f", 3, (12, 9, 7), "int16", fortran=True, seed=2)


GENERATORS["numpy"] = _generate

NPY = Value(lambda c: c.folder("numpy"), "npy")
N_TREE = 11  # samples of `make_numpy_tree`


def _numpy(
    kw: dict[str, Any], *, where: str = "tree", files: list[str] | None = None
) -> Callable[..., Any]:
    """A graph reading ``fn.readers.numpy(**kw)`` with paths under the folder ``where``."""

    def graph(fn: Any, types: Any, root: str, *nodes: Any) -> Any:
        base = Path(root) / where
        args = {k: (nodes[v.index - 1] if isinstance(v, In) else v) for k, v in kw.items()}
        if "file_list" in args:
            args["file_list"] = str(base / args["file_list"])
        if files is not None:
            args["files"] = [str(base / f) for f in files]
        elif "file_list" not in args or "file_root" in args:
            args["file_root"] = str(base)
        return fn.readers.numpy(**args)

    return graph


def numpy_case(
    kw: dict[str, Any],
    *,
    where: str = "tree",
    files: list[str] | None = None,
    batch_size: int = 4,
    iters: int = 1,
    inputs: tuple[Any, ...] = (),
    suffix: str = "",
    **opts: Any,
) -> Case:
    shown = {**kw, **({"files": files} if files is not None else {})}
    name = f"readers.numpy[{where}](" + ", ".join(f"{k}={_short(v)}" for k, v in shown.items())
    name += f") b{batch_size}{suffix}"
    opts.setdefault("source_info", (0,))
    return Case(
        name=name,
        graph=_numpy(kw, where=where, files=files),
        inputs=(NPY, *inputs),
        batch_size=batch_size,
        iters=iters,
        **opts,
    )


# -- listing, order, values -------------------------------------------------------------------

add(
    numpy_case({"name": "Reader"}, batch_size=4, iters=4, meta="Reader"),
    numpy_case({"file_filter": "*.NPY"}, batch_size=1, iters=2),
    numpy_case({"file_filter": "a0[3-7].npy"}, batch_size=3, iters=2),
    numpy_case({"file_list": "list.txt"}, batch_size=3, iters=3),
    numpy_case({}, files=["c/a09.npy", "a02.npy", "b/a04.npy"], batch_size=2, iters=2),
    numpy_case(
        {"dont_use_mmap": True, "use_o_direct": True, "read_ahead": True}, batch_size=5, iters=3
    ),
    numpy_case({"cache_header_information": True, "lazy_init": True}, batch_size=6, iters=2),
)

# sharding, padding, sticking: the stream and reader_meta/epoch_size
for shards, shard_id, batch in ((2, 0, 4), (2, 1, 3), (3, 2, 4), (4, 3, 2)):
    for pad in (False, True):
        for stick in (False, True):
            add(
                numpy_case(
                    {
                        "num_shards": shards,
                        "shard_id": shard_id,
                        "pad_last_batch": pad,
                        "stick_to_shard": stick,
                        "name": "Reader",
                    },
                    batch_size=batch,
                    iters=6,
                    meta="Reader",
                )
            )

# the element types and shapes DALI reads (one file per case: a batch has one type)
for name in ("scalar", "empty", "bool", "f16", "u64", "fortran3d", "big_endian_fortran"):
    known = None
    if name.startswith("big_endian"):
        known = "DALI 2.4 rejects big-endian files; dali byte-swaps them to native, as numpy reads"
    add(numpy_case({}, where="edge", files=[f"{name}.npy"], batch_size=2, known=known))
for name in ("v2", "v3", "long_header"):
    add(
        numpy_case(
            {},
            where="edge",
            files=[f"{name}.npy"],
            batch_size=1,
            known="DALI 2.4 reads only version 1.0 headers; dali reads 2.0 and 3.0 as numpy does",
        )
    )
add(
    numpy_case(
        {},
        where="edge",
        files=["big_endian.npy"],
        batch_size=1,
        known="DALI 2.4 rejects big-endian files; dali byte-swaps them to native, as numpy reads",
    )
)


# -- shuffling: orders differ by design; compare sets and content ----------------


def _permutation_check(epoch: int) -> Callable[[Iters, Iters], list[str]]:
    """Every epoch of ``epoch`` samples is a permutation of the files (a shuffle buffer too:
    it never mixes epochs), and a file has the same values in both libraries."""

    def predicate(iters: Iters) -> list[str]:
        infos = [i for it in iters for i in (it[0].infos or [])]
        return epoch_problems(infos, epoch)

    def content(iters: Iters) -> dict[str, bytes]:
        return {
            info: s.tobytes() for it in iters for info, s in zip(it[0].infos or [], it[0].samples)
        }

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs)
        problems += [f"dali: {p}" for p in predicate(ours)]
        problems += [f"real DALI: {p}" for p in predicate(theirs)]
        o, t = content(ours), content(theirs)
        problems += [f"{k}: different values" for k in set(o) & set(t) if o[k] != t[k]]
        if set(o) != set(t):
            problems.append(f"different files read: {sorted(set(o) ^ set(t))}")
        return problems

    return check


add(
    numpy_case(
        {"shuffle_after_epoch": True}, batch_size=N_TREE, iters=3, check=_permutation_check(11)
    ),
    numpy_case(
        {"random_shuffle": True, "initial_fill": 4},
        batch_size=N_TREE,
        iters=4,
        check=_permutation_check(N_TREE),
    ),
)


# -- regions of interest ----------------------------------------------------------------------

VOLS = ["volumes/vol_000.npy", "volumes/vol_001.npy", "volumes/vol_002.npy"]
ROIS: list[dict[str, Any]] = [
    {"roi_start": [1, 2, 3], "roi_end": [5, 9, 6]},
    {"roi_start": [2, 0, 1], "roi_shape": [3, 9, 5]},
    {"roi_start": [4]},
    {"roi_end": [3]},
    {"roi_axes": [2], "roi_end": [3]},
    {"roi_axes": [-2, 0], "roi_start": [1, 10]},
    {"rel_roi_start": [0.25, 0.5, 0.0], "rel_roi_shape": [0.5, 0.25, 1.0]},
    {"rel_roi_start": [0.35, 0.1, 0.3], "rel_roi_end": [0.8, 0.93, 0.75]},
    {"rel_roi_end": [0.5, 0.5, 0.5]},
    {"roi_start": [1, 2, 3], "rel_roi_shape": [0.3, 0.5, 0.45]},
    {"rel_roi_start": [0.1, 0.2, 0.3], "roi_shape": [4, 4, 4]},
    {"roi_start": [0, 0, 0], "roi_end": [12, 9, 7]},
    {"roi_start": [11, 8, 6], "roi_end": [11, 8, 7]},
    {"roi_start": [-2, 3, 5], "roi_end": [4, 12, 9], "out_of_bounds_policy": "pad"},
    {
        "roi_start": [10, -1, -3],
        "roi_end": [14, 2, 2],
        "out_of_bounds_policy": "pad",
        "fill_value": -7.6,
    },
    {"roi_start": [-2, 3, 5], "roi_end": [4, 12, 9], "out_of_bounds_policy": "constant"},
    {"roi_start": [20, 0, 0], "roi_end": [22, 9, 7], "out_of_bounds_policy": "pad"},
    {"roi_start": [-2, 3, 5], "roi_shape": [6, 9, 4], "out_of_bounds_policy": "trim_to_shape"},
]
for where in ("c", "f"):
    for roi in ROIS:
        add(numpy_case(roi, where=where, files=VOLS, batch_size=3))

# per-sample regions (argument inputs), an empty value meaning "not given" for its sample
add(
    numpy_case(
        {"roi_start": In(1), "rel_roi_shape": In(2)},
        where="c",
        files=VOLS,
        batch_size=3,
        inputs=(
            arrays([[1, 2, 3], [], [5, 0, 3]], np.int32, label="starts"),
            arrays([[0.5, 0.5, 0.5], [0.25, 1.0, 0.3], [0.5, 0.45, 0.5]], np.float32, label="rel"),
        ),
    ),
    numpy_case(
        {"roi_axes": [1], "roi_start": In(1), "roi_end": In(2), "out_of_bounds_policy": "pad"},
        where="f",
        files=VOLS,
        batch_size=3,
        inputs=(
            arrays([[-2], [3], [8]], np.int32, label="starts"),
            arrays([[4], [9], [12]], np.int32, label="ends"),
        ),
    ),
)


# -- errors both libraries raise ------------------------------------------------------------

add(
    numpy_case({}, where="nonexistent", iters=1, expect_error=True),
    numpy_case({"file_filter": "*.xyz"}, iters=1, expect_error=True),
    numpy_case({"file_list": "list.txt", "files": ["a00.npy"]}, iters=1, expect_error=True),
    numpy_case({}, files=["a00.npy", "ghost.npy"], batch_size=2, expect_error=True),
    numpy_case({}, files=[], batch_size=2, expect_error=True),
    numpy_case({"use_o_direct": True}, iters=1, expect_error=True),
    numpy_case({"num_shards": 2, "shard_id": 2}, iters=1, expect_error=True),
    numpy_case({"shuffle_after_epoch": True, "random_shuffle": True}, expect_error=True),
    numpy_case({"out_of_bounds_policy": "bogus"}, expect_error=True),
    numpy_case({"roi_start": [0, 0], "rel_roi_start": [0.0, 0.0]}, expect_error=True),
    numpy_case({"roi_end": [1, 1], "roi_shape": [1, 1]}, expect_error=True),
    numpy_case({"roi_shape": [-1, 2]}, expect_error=True),
    numpy_case({"roi_start": [1, 2, 3]}, expect_error=True),
    numpy_case({"roi_axes": [2], "roi_start": [1]}, expect_error=True),
    numpy_case({"roi_start": [3, 3], "roi_end": [2, 4]}, expect_error=True),
    numpy_case({"roi_start": [-1, 0], "roi_end": [2, 2]}, expect_error=True),
    # a batch of two numbers of dimensions, and of two types
    numpy_case(
        {}, where=".", files=["tree/a00.npy", "edge/fortran3d.npy"], batch_size=2, expect_error=True
    ),
    numpy_case(
        {}, where=".", files=["tree/a00.npy", "edge/bool.npy"], batch_size=2, expect_error=True
    ),
)
for name in ("truncated", "not_numpy", "bad_header", "complex", "structured"):
    add(numpy_case({}, where="edge", files=[f"{name}.npy"], batch_size=1, expect_error=True))
