"""Conformance cases of `fn.readers.mxnet` against real DALI 2.4 (see README.md).

The files are `dali._testing.recordio`'s (written into the ``mxnet`` folder): an ImageNet-style
set of 21 records in 3 ``.rec`` files with one index of offsets into the files concatenated
(DALI's ``index_path`` for several files), multi-label records (``flag`` > 0) and records
written in several parts (their payload holds the magic number); a set of 11 plain records
in one file; that file cut in two in the middle of a record; index files listing the records
out of order, with repeated offsets, or only every other record; and broken files and indexes.

Compared: the samples and their order over several epochs, the image bytes and the labels
(dtype, shape, values), ``source_info`` of the images (``"<path> at index <offset>"``) and of
the labels (empty), ``reader_meta`` and ``epoch_size`` (sharding, padding, sticking), reading
without an index (ours) against DALI with one, and that both libraries raise on the error
cases. Shuffled orders differ by design: compared are the epochs (permutations) and the record
behind each ``source_info``. Known difference: a last file holding a single record, which
DALI 2.4 attributes to the file before it (its ``source_info`` names that file, at an offset
past its end; the bytes are right).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cases import GENERATORS, Case, Iters, Value, add, epoch_problems, structure_problems

N_INET = 21  # records of the ImageNet-style set (3 files of 7)
N_ONE = 11  # records of the plain set (1 file)


def _generate(folder: Path) -> None:
    from dali._testing.recordio import make_imagenet_recordio

    make_imagenet_recordio(folder / "inet", n=N_INET, files=3, multi_label=True, multi_part=True)
    paths, index = make_imagenet_recordio(folder / "one", n=N_ONE, files=1)
    make_imagenet_recordio(folder / "last", n=5, files=3)  # files of 2, 2 and 1 records
    one = folder / "one"
    lines = index.read_text().splitlines()
    offsets = [int(line.split()[1]) for line in lines]
    (one / "reversed.idx").write_text("\n".join(lines[::-1]) + "\n")
    (one / "every_other.idx").write_text("\n".join(lines[::2]) + "\n")
    (one / "repeats.idx").write_text("\n".join(lines + lines[2:5]) + "\n")
    (one / "past.idx").write_text("\n".join([*lines, f"{N_ONE}\t{10**6}"]) + "\n")
    (one / "off.idx").write_text("\n".join([*lines[:3], f"3\t{offsets[3] + 4}", *lines[4:]]))
    (one / "three_columns.idx").write_text("\n".join(f"{line}\t5" for line in lines) + "\n")
    (one / "empty.idx").write_text("")
    data = paths[0].read_bytes()
    cut = (offsets[5] + offsets[6]) // 2  # inside record 5
    (one / "split-0.rec").write_bytes(data[:cut])
    (one / "split-1.rec").write_bytes(data[cut:])
    bad = bytearray(data)
    bad[offsets[4]] ^= 0xFF  # record 4's magic number
    (one / "bad.rec").write_bytes(bytes(bad))
    (one / "truncated.rec").write_bytes(data[: offsets[-1] + 20])


GENERATORS["mxnet"] = _generate

MX = Value(lambda c: c.folder("mxnet"), "mx")

INET_FILES = [f"inet/train-{j}.rec" for j in range(3)]
ONE = ["one/train-0.rec"]


def _graph(
    files: list[str], index: str | None, kw: dict[str, Any], *, index_for_dali_only: bool
) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        args = dict(kw)
        args["path"] = [str(Path(root) / f) for f in files]
        real = fn.__name__.startswith("nvidia.")
        if index is not None and (real or not index_for_dali_only):
            args["index_path"] = [str(Path(root) / index)]
        return tuple(fn.readers.mxnet(**args))

    return graph


def mxnet_case(
    kw: dict[str, Any],
    *,
    files: list[str] | None = None,
    index: str | None = None,
    index_for_dali_only: bool = False,
    batch_size: int = 4,
    iters: int = 1,
    suffix: str = "",
    **opts: Any,
) -> Case:
    files = INET_FILES if files is None else files
    if index is None:
        index = str(Path(files[0]).parent / "train.idx")
    where = ",".join(Path(f).parent.name + "/" + Path(f).stem for f in files)
    if files is INET_FILES:
        where = "inet"
    shown = ", ".join(f"{k}={v}" for k, v in kw.items())
    name = f"readers.mxnet[{where}]({shown}) b{batch_size}{suffix}"
    opts.setdefault("source_info", (0, 1))
    return Case(
        name=name,
        graph=_graph(files, index, kw, index_for_dali_only=index_for_dali_only),
        inputs=(MX,),
        batch_size=batch_size,
        iters=iters,
        labels=("images", "labels"),
        **opts,
    )


# -- records, order, values ------------------------------------------------------------------

add(
    # multi-label and multi-part records, 3 files read as one stream
    mxnet_case({"name": "Reader"}, batch_size=4, iters=7, meta="Reader"),
    mxnet_case({"name": "Reader"}, files=ONE, batch_size=3, iters=5, meta="Reader"),
    mxnet_case({}, batch_size=21, suffix=" [one batch: every record]"),
    mxnet_case(
        {
            "dont_use_mmap": True,
            "read_ahead": True,
            "lazy_init": True,
            "prefetch_queue_depth": 3,
            "skip_cached_images": True,
            "tensor_init_bytes": 1000,
        },
        batch_size=5,
        iters=5,
    ),
    # the index's lines in any order, offsets repeated, or only some of the records listed
    mxnet_case({}, files=ONE, index="one/reversed.idx", batch_size=11, iters=2),
    mxnet_case({"name": "Reader"}, files=ONE, index="one/repeats.idx", batch_size=6, meta="Reader"),
    mxnet_case(
        {"name": "Reader"},
        files=ONE,
        index="one/every_other.idx",
        batch_size=4,
        iters=3,
        meta="Reader",
        suffix=" [a record spans to the next listed one]",
    ),
    # a .rec file cut in two inside a record: the record is read across the files
    mxnet_case(
        {"name": "Reader"},
        files=["one/split-0.rec", "one/split-1.rec"],
        index="one/train.idx",
        batch_size=11,
        iters=2,
        meta="Reader",
    ),
    # beyond DALI: no index (the data is scanned), compared with DALI reading with one
    mxnet_case(
        {"name": "Reader"},
        index_for_dali_only=True,
        batch_size=5,
        iters=5,
        meta="Reader",
        suffix=" [dali without index_path]",
    ),
    mxnet_case(
        {},
        files=["one/split-0.rec", "one/split-1.rec"],
        index="one/train.idx",
        index_for_dali_only=True,
        batch_size=11,
        suffix=" [dali without index_path]",
    ),
)

# sharding, padding, sticking: the stream and reader_meta/epoch_size
for shards, shard_id, batch in ((2, 0, 4), (2, 1, 3), (3, 2, 4), (4, 3, 5)):
    for pad in (False, True):
        for stick in (False, True):
            add(
                mxnet_case(
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


def _archive_of(info: str) -> tuple[str, int]:
    path, offset = info.rsplit(" at index ", 1)
    return path, int(offset)


def _shuffle_check(epoch: int, whole_files: bool = False) -> Callable[[Iters, Iters], list[str]]:
    """Every epoch of ``epoch`` samples is a permutation of the records (with
    ``whole_files``: of the files, each read whole and in order), and a record (by
    ``source_info``) has the same image and label in both libraries."""

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
    mxnet_case(
        {"shuffle_after_epoch": True}, batch_size=7, iters=6, check=_shuffle_check(N_INET, True)
    ),
    mxnet_case(
        {"shuffle_after_epoch": True, "shuffle_after_epoch_seed": 5},
        batch_size=5,
        iters=9,
        check=_shuffle_check(N_INET, True),
    ),
    # the shuffle buffer reads the records in order and never mixes epochs
    mxnet_case(
        {"random_shuffle": True, "initial_fill": 5},
        batch_size=7,
        iters=9,
        check=_shuffle_check(N_INET),
    ),
    mxnet_case(
        {"random_shuffle": True, "initial_fill": 5, "num_shards": 3, "shard_id": 1},
        batch_size=7,
        iters=6,
        check=_shuffle_check(7),  # (a visit of a shard is the epoch)
    ),
    # both together: permuted files, drawn through the buffer
    mxnet_case(
        {"random_shuffle": True, "initial_fill": 4, "shuffle_after_epoch": True},
        batch_size=7,
        iters=9,
        check=_shuffle_check(N_INET),
    ),
)


# -- what DALI gets wrong -------------------------------------------------------------------------

add(
    mxnet_case(
        {"name": "Reader"},
        files=[f"last/train-{j}.rec" for j in range(3)],
        index="last/train.idx",
        batch_size=5,
        meta="Reader",
        known="a last file holding a single record: DALI 2.4 (recordio_loader.h) never checks "
        "the last offset against the file boundaries, so its source_info names the file before "
        "at an offset past that file's end ('train-1.rec at index 2460'); dali names "
        "'train-2.rec at index 0'. The bytes and labels are the same",
    ),
)


# -- errors both libraries raise ------------------------------------------------------------

add(
    mxnet_case({}, files=ONE, index="one/empty.idx", expect_error=True, suffix=" [empty index]"),
    mxnet_case(
        {}, files=ONE, index="one/nonexistent.idx", expect_error=True, suffix=" [no index file]"
    ),
    mxnet_case(
        {},
        files=["one/nonexistent.rec"],
        index="one/train.idx",
        expect_error=True,
        suffix=" [no .rec file]",
    ),
    mxnet_case(
        {},
        files=ONE,
        index="one/past.idx",
        batch_size=12,  # (DALI raises when it reads the record)
        expect_error=True,
        suffix=" [an offset past the end]",
    ),
    mxnet_case(
        {},
        files=ONE,
        index="one/off.idx",
        batch_size=11,
        expect_error=True,
        suffix=" [an offset 4 bytes off]",
    ),
    mxnet_case(
        {},
        files=ONE,
        index="one/three_columns.idx",
        batch_size=11,
        expect_error=True,
        suffix=" [three columns]",
    ),
    mxnet_case(
        {},
        files=["one/bad.rec"],
        index="one/train.idx",
        batch_size=11,
        expect_error=True,
        suffix=" [a broken magic number]",
    ),
    mxnet_case(
        {},
        files=["one/truncated.rec"],
        index="one/train.idx",
        batch_size=11,
        expect_error=True,
        suffix=" [a truncated last record]",
    ),
    mxnet_case({}, files=[], index="one/train.idx", expect_error=True, suffix=" [no files]"),
    mxnet_case({"num_shards": 2, "shard_id": 2}, expect_error=True),
    mxnet_case({"num_shards": 22}, expect_error=True, suffix=" [more shards than records]"),
    mxnet_case({"shuffle_after_epoch": True, "stick_to_shard": True}, expect_error=True),
)


def _two_indexes(fn: Any, types: Any, root: str) -> Any:
    index = str(Path(root) / "one/train.idx")
    return tuple(fn.readers.mxnet(path=[str(Path(root) / ONE[0])], index_path=[index, index]))


add(
    Case(
        name="readers.mxnet[one](index_path=[2 files]) b4",
        graph=_two_indexes,
        inputs=(MX,),
        batch_size=4,
        expect_error=True,
    )
)
