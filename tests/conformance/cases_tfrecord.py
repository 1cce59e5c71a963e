"""Conformance cases of `fn.readers.tfrecord` against real DALI 2.4 (see README.md).

The files are `dali._testing.tfrecords`' (written into the ``tfrecord`` folder): an
ImageNet-style set of 21 records in 3 files (JPEG bytes, labels, sizes, boxes as
variable-length float lists), a set of plain features in 2 files (scalars, fixed-size pairs,
variable-length lists, a list read with ``partial_shape``, strings), the same records written
in the legal but unusual protobuf encodings (unpacked numbers, lists split into pieces,
unknown fields), and broken index files.

Compared: the samples and their order over several epochs, values, dtypes, shapes, layouts,
``source_info`` (``"<path> at index <offset>"``), ``reader_meta`` and ``epoch_size`` (sharding,
padding, sticking), reading without an index (ours) against DALI with one, and that both
libraries raise on the error cases. Shuffled orders differ by design: compared are the epochs
(permutations) and the record behind each ``source_info``. Known difference: a record without a
fixed-length feature, which DALI returns as uninitialised memory (and then fails to batch).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cases import GENERATORS, Case, Iters, Value, add, epoch_problems, structure_problems

N_INET = 21  # records of the ImageNet-style set (3 files)
N_PLAIN = 11  # records of the plain set (2 files)


def _plain(i: int) -> dict[str, Any]:
    from dali._testing.tfrecords import float_feature

    return {
        "label": [i],
        "pair": float_feature([0.5 * i, -1.5 * i]),
        "boxes": float_feature([0.25 * (i + k) for k in range(4 * (i % 3))]),
        "ints": list(range(-2, i % 5)),
        "big": [2**40 + i, -(2**35) - i],
        "name": f"record {i}",
        "matrix": [10 * i + k for k in range(6)],
    }


def _odd_encoding(i: int) -> dict[str, Any]:
    from dali._testing.tfrecords import bytes_feature, float_feature, int64_feature

    p = _plain(i)
    return {
        "label": int64_feature(p["label"], packed=False),
        "pair": float_feature(p["pair"].values, packed=False, pieces=2),
        "boxes": p["boxes"],
        "ints": int64_feature(p["ints"], pieces=2),
        "big": int64_feature(p["big"], packed=False, pieces=2),
        "name": bytes_feature([p["name"]], pieces=1),
        "matrix": int64_feature(p["matrix"], pieces=3),
    }


def _generate(folder: Path) -> None:
    from dali._testing import tfrecords

    tfrecords.make_imagenet_tfrecords(folder / "inet", n=N_INET, files=3)
    plain = [_plain(i) for i in range(N_PLAIN)]
    tfrecords.write_tfrecord(folder / "plain-0.tfrecord", plain[:6])
    tfrecords.write_tfrecord(folder / "plain-1.tfrecord", plain[6:])
    odd = [
        tfrecords.encode_example(_odd_encoding(i), unknown_fields=i % 2 == 0)
        for i in range(N_PLAIN)
    ]
    tfrecords.write_tfrecord(folder / "odd.tfrecord", odd)
    spans = tfrecords.write_tfrecord(folder / "missing.tfrecord", [plain[0], {"name": "x"}])
    (folder / "wrong.idx").write_text(f"0 {spans[0][1]}\n{spans[1][0] - 1} {spans[1][1]}\n")
    (folder / "past.idx").write_text(f"0 {spans[0][1]}\n{spans[1][0]} {spans[1][1] + 100}\n")
    (folder / "empty.idx").write_text("")


GENERATORS["tfrecord"] = _generate

TFR = Value(lambda c: c.folder("tfrecord"), "tfr")

# features, written symbolically: (kind, shape or partial shape or None, dtype, default)
INET_FEATURES = {
    "image/encoded": ("fixed", [], "string", ""),
    "image/class/label": ("fixed", [1], "int64", -1),
    "image/height": ("fixed", [], "int64", 0),
    "image/object/bbox/xmin": ("var", None, "float32", 0.0),
    "image/object/bbox/label": ("var", None, "int64", 0),
    "image/filename": ("fixed", [1], "string", ""),
}
PLAIN_FEATURES = {
    "name": ("fixed", [], "string", "none"),
    "label": ("fixed", [1], "int64", -1),
    "pair": ("fixed", [2], "float32", 0.0),
    "boxes": ("var", [4], "float32", 0.0),
    "ints": ("var", None, "int64", 0),
    "big": ("var", None, "int64", 0),
    "matrix": ("fixed", [2, 3], "int64", 0),
}
INET_FILES = [f"inet/train-{j:05d}-of-00003" for j in range(3)]
INET_INDEXES = [f"inet/idx/train-{j:05d}-of-00003.idx" for j in range(3)]
PLAIN_FILES = ["plain-0.tfrecord", "plain-1.tfrecord"]


def _tfrec(fn: Any) -> Any:
    """The running library's tfrecord module."""
    if fn.__name__.startswith("nvidia."):
        import nvidia.dali.tfrecord as tfrec
    else:
        import dali.tfrecord as tfrec
    return tfrec


def _features(fn: Any, spec: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    tfrec = _tfrec(fn)
    out = {}
    for name, (kind, shape, dtype, default) in spec.items():
        t = getattr(tfrec, dtype)
        if kind == "fixed":
            out[name] = tfrec.FixedLenFeature(shape, t, default)
        elif shape is None:
            out[name] = tfrec.VarLenFeature(t, default)
        else:
            out[name] = tfrec.VarLenFeature(shape, t, default)
    return out


def _graph(
    files: list[str],
    features: dict[str, tuple[Any, ...]],
    indexes: list[str] | None,
    kw: dict[str, Any],
    *,
    index_for_dali_only: bool = False,
) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        args = dict(kw)
        args["path"] = [str(Path(root) / f) for f in files]
        real = fn.__name__.startswith("nvidia.")
        if indexes is not None and (real or not index_for_dali_only):
            args["index_path"] = [str(Path(root) / f) for f in indexes]
        out = fn.readers.tfrecord(features=_features(fn, features), **args)
        return tuple(out.values())

    return graph


def tfrecord_case(
    kw: dict[str, Any],
    *,
    files: list[str] | None = None,
    features: dict[str, tuple[Any, ...]] | None = None,
    indexes: list[str] | None = None,
    index_for_dali_only: bool = False,
    batch_size: int = 4,
    iters: int = 1,
    suffix: str = "",
    **opts: Any,
) -> Case:
    files = INET_FILES if files is None else files
    features = INET_FEATURES if features is None else features
    if indexes is None:
        indexes = INET_INDEXES if files is INET_FILES else [f + ".idx" for f in files]
    where = "inet" if files is INET_FILES else ",".join(Path(f).stem for f in files)
    shown = ", ".join(f"{k}={v}" for k, v in kw.items())
    name = f"readers.tfrecord[{where}]({shown}) b{batch_size}{suffix}"
    opts.setdefault("source_info", tuple(range(len(features))))
    return Case(
        name=name,
        graph=_graph(files, features, indexes, kw, index_for_dali_only=index_for_dali_only),
        inputs=(TFR,),
        batch_size=batch_size,
        iters=iters,
        labels=tuple(features),
        **opts,
    )


# -- records, order, values ------------------------------------------------------------------

add(
    tfrecord_case({"name": "Reader"}, batch_size=4, iters=7, meta="Reader"),
    tfrecord_case({"name": "Reader"}, files=PLAIN_FILES, features=PLAIN_FEATURES, iters=4),
    tfrecord_case({}, files=["odd.tfrecord"], features=PLAIN_FEATURES, batch_size=6, iters=2),
    tfrecord_case(
        {},
        files=PLAIN_FILES[1:],
        features={"label": ("fixed", [], "int64", 0)},
        suffix=" [a scalar: shape []]",
    ),
    tfrecord_case(
        {"dont_use_mmap": True, "use_o_direct": True, "read_ahead": True},
        batch_size=5,
        iters=5,
    ),
    tfrecord_case({"lazy_init": True, "prefetch_queue_depth": 3}, batch_size=8, iters=3),
    # beyond DALI: no index (the files are scanned), compared with DALI reading with one
    tfrecord_case(
        {"name": "Reader"},
        index_for_dali_only=True,
        batch_size=5,
        iters=5,
        meta="Reader",
        suffix=" [dali without index_path]",
    ),
    tfrecord_case(
        {},
        files=PLAIN_FILES,
        features=PLAIN_FEATURES,
        index_for_dali_only=True,
        batch_size=3,
        iters=4,
        suffix=" [dali without index_path]",
    ),
)

# sharding, padding, sticking: the stream and reader_meta/epoch_size
for shards, shard_id, batch in ((2, 0, 4), (2, 1, 3), (3, 2, 4), (4, 3, 5)):
    for pad in (False, True):
        for stick in (False, True):
            add(
                tfrecord_case(
                    {
                        "num_shards": shards,
                        "shard_id": shard_id,
                        "pad_last_batch": pad,
                        "stick_to_shard": stick,
                        "name": "Reader",
                    },
                    features={"image/class/label": ("fixed", [1], "int64", -1)},
                    batch_size=batch,
                    iters=6,
                    meta="Reader",
                )
            )


# -- shuffling: orders differ by design; compare epochs and the record behind each source -------


def _archive_of(info: str) -> tuple[str, int]:
    path, offset = info.rsplit(" at index ", 1)
    return path, int(offset)


def _shuffle_check(epoch: int, whole_files: bool = False) -> Callable[[Iters, Iters], list[str]]:
    """Every epoch of ``epoch`` samples is a permutation of the records (with
    ``whole_files``: of the files, each read whole and in order), and a record (by
    ``source_info``) has the same bytes in both libraries."""

    def predicate(iters: Iters) -> list[str]:
        infos = [i for it in iters for i in (it[0].infos or [])]
        return epoch_problems(infos, epoch, _archive_of if whole_files else None)

    def content(iters: Iters) -> dict[str, bytes]:
        return {
            info: b"".join(o.samples[k].tobytes() for o in it)
            for it in iters
            for k, info in enumerate(it[0].infos or [])
        }

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs)
        problems += [f"dali: {p}" for p in predicate(ours)]
        problems += [f"real DALI: {p}" for p in predicate(theirs)]
        o, t = content(ours), content(theirs)
        problems += [f"{k}: different values" for k in sorted(set(o) & set(t)) if o[k] != t[k]]
        if set(o) != set(t):
            problems.append(f"different records read: {sorted(set(o) ^ set(t))}")
        return problems

    return check


add(
    # shuffle_after_epoch permutes the files, each read whole and in order
    tfrecord_case(
        {"shuffle_after_epoch": True}, batch_size=7, iters=6, check=_shuffle_check(N_INET, True)
    ),
    tfrecord_case(
        {"shuffle_after_epoch": True, "shuffle_after_epoch_seed": 5},
        batch_size=5,
        iters=9,
        check=_shuffle_check(N_INET, True),
    ),
    # the shuffle buffer reads the records in order and never mixes epochs
    tfrecord_case(
        {"random_shuffle": True, "initial_fill": 5},
        batch_size=7,
        iters=9,
        check=_shuffle_check(N_INET),
    ),
    tfrecord_case(
        {"random_shuffle": True, "initial_fill": 5, "num_shards": 3, "shard_id": 1},
        batch_size=7,
        iters=6,
        check=_shuffle_check(7),  # (a visit of a shard is the epoch)
    ),
    # both together: permuted files, drawn through the buffer
    tfrecord_case(
        {"random_shuffle": True, "initial_fill": 4, "shuffle_after_epoch": True},
        batch_size=7,
        iters=9,
        check=_shuffle_check(N_INET),
    ),
)


# -- what DALI leaves undefined ----------------------------------------------------------------

add(
    tfrecord_case(
        {},
        files=["missing.tfrecord"],
        features={"label": ("fixed", [1], "int64", -7), "ints": ("var", None, "int64", 0)},
        batch_size=2,
        known="a record without a fixed-length feature: DALI 2.4 returns an uninitialised 0-d "
        "tensor (and fails to batch it); dali returns the default value, with the feature's shape",
    ),
)


# -- errors both libraries raise ------------------------------------------------------------

_LABEL = {"label": ("fixed", [1], "int64", -1)}
add(
    tfrecord_case({}, indexes=INET_INDEXES[:2], expect_error=True, suffix=" [2 index files]"),
    tfrecord_case({}, files=["nonexistent.tfrecord"], expect_error=True, suffix=" [no file]"),
    tfrecord_case(
        {},
        indexes=[INET_INDEXES[0], "nonexistent.idx", INET_INDEXES[2]],
        expect_error=True,
        suffix=" [no index file]",
    ),
    tfrecord_case(
        {},
        files=["missing.tfrecord"],
        indexes=["empty.idx"],
        features=_LABEL,
        expect_error=True,
        suffix=" [an empty index]",
    ),
    tfrecord_case(
        {},
        files=["missing.tfrecord"],
        indexes=["wrong.idx"],
        features=_LABEL,
        batch_size=2,
        expect_error=True,
        suffix=" [an index entry off by one byte]",
    ),
    tfrecord_case(
        {},
        files=["missing.tfrecord"],
        indexes=["past.idx"],
        features=_LABEL,
        batch_size=2,
        expect_error=True,
        suffix=" [an index entry past the end]",
    ),
    tfrecord_case({}, files=[], indexes=[], expect_error=True, suffix=" [no files]"),
    tfrecord_case({"use_o_direct": True}, expect_error=True),
    tfrecord_case({"num_shards": 2, "shard_id": 2}, expect_error=True),
    tfrecord_case({"shuffle_after_epoch": True, "stick_to_shard": True}, expect_error=True),
    tfrecord_case(
        {},
        features={"image/class/text": ("var", None, "string", "")},
        expect_error=True,
        suffix=" [VarLenFeature(string)]",
    ),
    tfrecord_case(
        {},
        features={"image/encoded": ("fixed", [2], "string", "")},
        expect_error=True,
        suffix=" [FixedLenFeature([2], string)]",
    ),
    # more values than the FixedLenFeature's shape holds
    tfrecord_case(
        {},
        files=PLAIN_FILES,
        features={"matrix": ("fixed", [2], "int64", 0)},
        expect_error=True,
        suffix=" [6 values, shape [2]]",
    ),
    tfrecord_case(
        {},
        files=PLAIN_FILES,
        features={"pair": ("fixed", [], "float32", 0.0)},
        expect_error=True,
        suffix=" [2 values, shape []]",
    ),
)
