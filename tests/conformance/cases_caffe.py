"""Conformance cases of `fn.readers.caffe` and `fn.readers.caffe2` against real DALI 2.4.

The databases are `dali._testing.lmdb_data`'s (written into the ``caffe`` folder): Caffe
``Datum`` databases of JPEGs (two, read together), of raw HWC images, in the legal but unusual
protobuf encodings (unknown fields of every wire type, optional fields written twice, unpacked
numbers), with records lacking the image or the label; Caffe2 ``TensorProtos`` databases for
every ``label_type`` (int32 and float labels, encoded, raw and 2-D raw images, additional
tensors of each type, boxes), some in the unusual encodings; and broken ones (an empty
database, a malformed record, mixed image kinds, mixed label types).

Compared: the samples and their order over several epochs (key order, the databases in
``path`` order), values, dtypes, shapes, layouts, ``source_info`` (``"<path> at key <key>"``
on the image, empty on the other outputs), ``reader_meta`` and ``epoch_size`` (sharding,
padding, sticking), and that both libraries raise on the error cases. Shuffled orders differ
by design: compared are the epochs (permutations) and the record behind each
``source_info``. Not run on DALI: ``label_type=3`` (DALI 2.4 fails on every record: its
weighted label output is never given a type), compared with the writer's expected values, and
a raw image whose bytes do not fill its shape (DALI returns uninitialised memory).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from cases import GENERATORS, Case, Context, Iters, Value, add, epoch_problems, structure_problems

N_JPEG, N_JPEG2 = 13, 6  # records of the two JPEG databases
N_C2 = 9  # records of every Caffe2 database


def _layouts() -> dict[str, Any]:
    from dali._testing.lmdb_data import Caffe2Layout as L

    return {
        "single_int": L(0, 10, 0, False, "encoded", "int32"),
        "single_float_raw": L(0, 10, 2, True, "raw", "float"),
        "sparse_int": L(1, 6, 2, False, "encoded", "int32"),
        "sparse_float_gray": L(1, 4, 0, False, "gray", "float"),
        "dense_float": L(2, 5, 3, True, None, "float"),
        "dense_int_raw": L(2, 3, 1, False, "raw", "int32"),
        "none": L(4, 1, 0, False, "encoded"),
        "none_extras": L(4, 1, 2, True, None),
        "weighted": L(3, 6, 1, False, "encoded", "int32"),
    }


ODD_LAYOUTS = ("single_int", "sparse_int", "dense_float")


def _generate(folder: Path) -> None:
    from dali._testing import lmdb_data as lm

    lm.make_caffe_lmdb(folder / "jpeg", N_JPEG)
    lm.make_caffe_lmdb(folder / "jpeg2", N_JPEG2, seed=1, classes=3)
    lm.make_caffe_lmdb(folder / "raw", 5, raw=True)
    lm.make_caffe_lmdb(folder / "odd", 7, odd=True)
    lm.make_caffe_lmdb(folder / "raw_odd", 5, raw=True, odd=True)
    datum = lm.encode_datum
    lm.write_lmdb(
        folder / "missing",
        {
            "a": datum(data=b"xyz", label=1),
            "b": datum(label=2),  # no image data: an empty image
            "c": datum(data=b"pq"),  # no label: an empty label
            "d": datum(data=b"q", label=-7, encoded=True),
        },
    )
    lm.write_lmdb(folder / "bad", {"a": datum(data=b"x", label=1), "b": b"\xff\xff\xff"})
    raw = datum(data=bytes(12), label=1, channels=1, height=3, width=4, encoded=False)
    lm.write_lmdb(folder / "mixed", {"a": datum(data=b"jpeg", label=0), "b": raw})
    short = datum(data=bytes(10), label=1, channels=1, height=3, width=4, encoded=False)
    lm.write_lmdb(folder / "raw_short", {"a": short})
    lm.write_lmdb(folder / "empty", {})
    for name, layout in _layouts().items():
        lm.make_caffe2_lmdb(folder / f"c2_{name}", N_C2, layout)
        if name in ODD_LAYOUTS:
            lm.make_caffe2_lmdb(folder / f"c2_{name}_odd", N_C2, layout, odd=True)
    tensor, protos = lm.encode_tensor, lm.encode_tensor_protos
    image = tensor(b"jpeg")
    lm.write_lmdb(
        folder / "c2_mixed_labels",
        {"a": protos([image, tensor([1])]), "b": protos([image, tensor([1.5])])},
    )
    lm.write_lmdb(folder / "c2_bad", {"a": protos([image, tensor([1])]), "b": b"\x0a\x05ab"})


GENERATORS["caffe"] = _generate

LMDB = Value(lambda c: c.folder("caffe"), "lmdb")


def _tuple(out: Any) -> Any:
    return tuple(out) if isinstance(out, (list, tuple)) else out


def _graph(op: str, dbs: list[str], kw: dict[str, Any], pick: int | None) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        paths = [str(Path(root) / d) for d in dbs]
        out = _tuple(getattr(fn.readers, op)(path=paths if len(paths) > 1 else paths[0], **kw))
        return out[pick] if pick is not None else out

    return graph


def lmdb_case(
    op: str,
    dbs: list[str],
    kw: dict[str, Any],
    *,
    batch_size: int = 4,
    iters: int = 1,
    outputs: int = 2,
    suffix: str = "",
    pick: int | None = None,
    **opts: Any,
) -> Case:
    shown = ", ".join(f"{k}={v}" for k, v in kw.items())
    name = f"readers.{op}[{','.join(dbs)}]({shown}) b{batch_size}{suffix}"
    opts.setdefault("source_info", tuple(range(outputs)))
    return Case(
        name=name,
        graph=_graph(op, dbs, kw, pick),
        inputs=(LMDB,),
        batch_size=batch_size,
        iters=iters,
        **opts,
    )


def caffe2_case(layout_name: str, kw: dict[str, Any] | None = None, **opts: Any) -> Case:
    """``readers.caffe2`` reading the database of ``layout_name`` with the layout's arguments
    (updated by ``kw``)."""
    layout = _layouts()[layout_name]
    args = {**layout.reader_args(), **(kw or {})}
    outputs = (
        int(args["image_available"])
        + (0 if args["label_type"] == 4 else 2 if args["label_type"] in (1, 3) else 1)
        + args["additional_inputs"]
        + int(args["bbox"])
    )
    db = opts.pop("db", f"c2_{layout_name}")
    return lmdb_case("caffe2", [db], args, outputs=outputs, **opts)


# -- readers.caffe: records, order, values ------------------------------------------------------

JPEGS = ["jpeg", "jpeg2"]
add(
    lmdb_case("caffe", ["jpeg"], {"name": "Reader"}, batch_size=5, iters=4, meta="Reader"),
    lmdb_case("caffe", JPEGS, {"name": "Reader"}, batch_size=4, iters=6, meta="Reader"),
    lmdb_case("caffe", ["raw"], {}, batch_size=3, iters=3),
    lmdb_case("caffe", ["odd"], {}, batch_size=7, iters=2),
    lmdb_case("caffe", ["raw_odd"], {}, batch_size=5, iters=1),
    lmdb_case("caffe", ["missing"], {}, batch_size=4, iters=2),
    lmdb_case("caffe", JPEGS, {"image_available": False}, batch_size=6, iters=4, outputs=1),
    lmdb_case("caffe", ["jpeg"], {"label_available": False}, batch_size=6, iters=3, outputs=1),
    lmdb_case(
        "caffe",
        ["jpeg"],
        {
            "dont_use_mmap": True,
            "read_ahead": True,
            "lazy_init": True,
            "prefetch_queue_depth": 3,
            "skip_cached_images": True,
        },
        batch_size=5,
        iters=3,
    ),
)

# sharding, padding, sticking over two databases: the stream and reader_meta/epoch_size
for shards, shard_id, batch in ((2, 0, 4), (2, 1, 3), (3, 2, 4), (4, 3, 5)):
    for pad in (False, True):
        for stick in (False, True):
            add(
                lmdb_case(
                    "caffe",
                    JPEGS,
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


# -- shuffling: orders differ by design; compare epochs and the record behind each source -------


def _shuffle_check(epoch: int) -> Callable[[Iters, Iters], list[str]]:
    """Every epoch of ``epoch`` samples is a permutation of the records, and a record (by
    ``source_info``) has the same outputs in both libraries."""

    def content(iters: Iters) -> dict[str, bytes]:
        return {
            info: b"".join(o.samples[k].tobytes() for o in it)
            for it in iters
            for k, info in enumerate(it[0].infos or [])
        }

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs)
        for who, iters in (("dali", ours), ("real DALI", theirs)):
            infos = [i for it in iters for i in (it[0].infos or [])]
            problems += [f"{who}: {p}" for p in epoch_problems(infos, epoch)]
        o, t = content(ours), content(theirs)
        problems += [f"{k}: different values" for k in sorted(set(o) & set(t)) if o[k] != t[k]]
        if set(o) != set(t):
            problems.append(f"different records read: {sorted(set(o) ^ set(t))}")
        return problems

    return check


add(
    lmdb_case(
        "caffe",
        JPEGS,
        {"random_shuffle": True, "initial_fill": 5},
        batch_size=7,
        iters=8,
        check=_shuffle_check(N_JPEG + N_JPEG2),
    ),
    lmdb_case(
        "caffe",
        JPEGS,
        {"random_shuffle": True, "initial_fill": 3, "num_shards": 3, "shard_id": 1},
        batch_size=4,
        iters=6,
        check=_shuffle_check(6),  # (a visit of a shard is the epoch: records 6..11)
    ),
    caffe2_case(
        "sparse_int",
        {"random_shuffle": True, "initial_fill": 4},
        batch_size=4,
        iters=6,
        check=_shuffle_check(N_C2),
    ),
)


# -- readers.caffe2: every label type, image kind, extra tensors, encodings -----------------------

for layout_name in _layouts():
    if layout_name == "weighted":
        continue
    add(caffe2_case(layout_name, {"name": "Reader"}, batch_size=4, iters=4, meta="Reader"))
for layout_name in ODD_LAYOUTS:
    add(caffe2_case(layout_name, batch_size=5, iters=2, db=f"c2_{layout_name}_odd"))
add(
    caffe2_case(
        "single_int",
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True, "name": "Reader"},
        batch_size=3,
        iters=5,
        meta="Reader",
    ),
    caffe2_case(
        "dense_int_raw",
        {"num_shards": 3, "shard_id": 2, "stick_to_shard": True, "name": "Reader"},
        batch_size=2,
        iters=4,
        meta="Reader",
    ),
    # sparse label indices read as a dense label (the tensor after them is then an output)
    caffe2_case("sparse_int", {"label_type": 2}, batch_size=3, iters=3),
)


def _weighted_reference(ctx: Context) -> list[np.ndarray]:
    from dali._testing.lmdb_data import caffe2_sample

    layout = _layouts()["weighted"]
    return [caffe2_sample(i, layout)[1] for i in range(4)]


add(
    caffe2_case(
        "weighted",
        batch_size=4,
        pick=1,  # the label: float32 weights at the active indices
        dali_skip="DALI 2.4 fails on every record with label_type=3 (its weighted label "
        "output is never given a type)",
        reference=_weighted_reference,
    ),
    lmdb_case(
        "caffe",
        ["raw_short"],
        {},
        batch_size=1,
        expect_error=True,
        expect_error_text="does not fill its height x width x channels",
        dali_skip="a raw image of fewer bytes than its shape: DALI 2.4 returns the bytes it has "
        "and uninitialised memory after them",
    ),
)


# -- errors both libraries raise ------------------------------------------------------------------

add(
    lmdb_case("caffe", ["empty"], {}, expect_error=True, suffix=" [an empty database]"),
    lmdb_case("caffe", ["nonexistent"], {}, expect_error=True, suffix=" [no database]"),
    lmdb_case("caffe", ["jpeg", "nonexistent"], {}, expect_error=True, suffix=" [one missing]"),
    lmdb_case("caffe", ["bad"], {}, batch_size=2, expect_error=True, suffix=" [malformed]"),
    lmdb_case("caffe", ["mixed"], {}, batch_size=2, expect_error=True, suffix=" [raw + encoded]"),
    lmdb_case("caffe", ["jpeg"], {"num_shards": 2, "shard_id": 2}, expect_error=True),
    lmdb_case("caffe2", ["c2_bad"], {}, batch_size=2, expect_error=True, suffix=" [malformed]"),
    lmdb_case(
        "caffe2", ["c2_mixed_labels"], {}, batch_size=2, expect_error=True, suffix=" [int+float]"
    ),
    # a box the arguments do not take, and a box the records do not have
    caffe2_case("single_float_raw", {"bbox": False}, expect_error=True),
    caffe2_case("single_int", {"bbox": True}, expect_error=True),
    # sparse labels: the box is the last output; bbox=True cannot be read
    caffe2_case("sparse_int", {"bbox": True}, expect_error=True),
    # a dense label vector read as a single label; a label tensor read as the image
    caffe2_case("dense_int_raw", {"label_type": 0}, expect_error=True),
    caffe2_case("dense_float", {"image_available": True}, expect_error=True),
    caffe2_case("single_int", {"label_type": 7}, expect_error=True),
)
