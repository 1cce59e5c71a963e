"""Conformance cases of `fn.readers.sequence` and `fn.experimental.readers.fits` against real
DALI 2.4 (see README.md).

readers.sequence: the frame folders are `dali._testing.sequences`' (written into the
``sequence`` folder): PNG streams of 10, 5, 2 and 7 frames with the entries the listing must
skip (hidden files and folders, a text file, an image in the root) or keep (an upper-case
extension), JPEG streams, gray, RGBA and 16-bit PNG streams, and broken trees (frames of two
sizes, a corrupt frame, no frames at all). Compared: the sequences, their order and frames
(decoded values exact, every ``image_type``), ``source_info`` (empty in both), ``reader_meta``
and ``epoch_size`` over ``sequence_length``/``step``/``stride`` and a sharding and padding
matrix, the shuffled epochs (the orders differ by design: each epoch must hold every sequence
once, in both), and both libraries raising on the error cases. Known differences: a gray JPEG
frame with ``ANY_DATA`` (DALI 2.4 writes three channels into a one-channel buffer and crashes),
CMYK JPEG and gray+alpha PNG frames with ``ANY_DATA`` (DALI 2.4 fails to decode them) and
EXIF-rotated frames of a non-square size (DALI 2.4 crashes); none is run here.

experimental.readers.fits: see the second half of this file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cases import GENERATORS, Case, Iters, Value, add, epoch_problems, structure_problems

# =============================================================================================
# readers.sequence
# =============================================================================================

#: stream -> frames of the PNG tree (the edge cases add one upper-case frame to "s0")
SEQ_STREAMS = {"s0": 9, "s1": 5, "s2": 2, "s3": 7}
SEQ_FRAMES = {"s0": 10, "s1": 5, "s2": 2, "s3": 7}


def _generate_sequences(folder: Path) -> None:
    from dali._testing.sequences import frame_pixels, make_sequence_tree
    from PIL import Image

    make_sequence_tree(folder / "png", SEQ_STREAMS, edge_cases=True)
    make_sequence_tree(folder / "jpg", {"a": 6, "b": 4}, ext="jpg")
    make_sequence_tree(folder / "gray", {"g": 4}, mode="L")
    make_sequence_tree(folder / "rgba", {"r": 3}, mode="RGBA")
    make_sequence_tree(folder / "png16", {"w": 3}, mode="I;16")
    # frames of two sizes in one stream
    sizes = make_sequence_tree(folder / "sizes", {"m": 3})
    Image.fromarray(frame_pixels(0, 1, (32, 160))).save(sizes["m"][1])
    # a corrupt frame (the third of its stream)
    bad = make_sequence_tree(folder / "corrupt", {"c": 4})
    bad["c"][2].write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    # no frames: a stream folder of text files
    (folder / "empty" / "s").mkdir(parents=True)
    (folder / "empty" / "s" / "a.txt").write_text("no frames\n")


GENERATORS["sequence"] = _generate_sequences

SEQ = Value(lambda c: c.folder("sequence"), "seq")


def n_sequences(frames: dict[str, int], length: int, step: int = 1, stride: int = 1) -> int:
    """How many sequences DALI's ``GenerateSequences`` makes of streams of ``frames``."""
    span = (length - 1) * stride
    return sum(len(range(0, max(n - span, 0), step)) for n in frames.values())


def _sequence_graph(where: str, kw: dict[str, Any]) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        args = dict(kw)
        if "image_type" in args:
            args["image_type"] = getattr(types.DALIImageType, args["image_type"])
        return fn.readers.sequence(file_root=str(Path(root) / where), **args)

    return graph


def sequence_case(
    kw: dict[str, Any],
    *,
    where: str = "png",
    batch_size: int = 4,
    iters: int = 1,
    suffix: str = "",
    **opts: Any,
) -> Case:
    shown = ", ".join(f"{k}={v}" for k, v in kw.items())
    opts.setdefault("source_info", (0,))
    return Case(
        name=f"readers.sequence[{where}]({shown}) b{batch_size}{suffix}",
        graph=_sequence_graph(where, kw),
        inputs=(SEQ,),
        batch_size=batch_size,
        iters=iters,
        labels=("sequences",),
        **opts,
    )


# -- sequences, order, frames ----------------------------------------------------------------

for _kw, _b, _it in (
    ({"sequence_length": 3, "name": "Reader"}, 4, 5),  # 16 sequences: past the epoch
    ({"sequence_length": 1, "name": "Reader"}, 5, 6),  # every frame
    ({"sequence_length": 2, "step": 3, "name": "Reader"}, 3, 4),
    ({"sequence_length": 3, "stride": 2, "name": "Reader"}, 4, 3),
    ({"sequence_length": 2, "step": 2, "stride": 3, "name": "Reader"}, 2, 4),
    ({"sequence_length": 5, "step": 5, "stride": 2, "name": "Reader"}, 3, 2),
    ({"sequence_length": 7, "name": "Reader"}, 3, 2),  # only streams of 7+ frames
    ({"sequence_length": 10, "name": "Reader"}, 2, 2),  # a single sequence
):
    add(sequence_case(_kw, batch_size=_b, iters=_it, meta="Reader"))

add(
    sequence_case({"sequence_length": 2, "step": 2}, where="jpg", batch_size=4, iters=2),
    sequence_case(
        {
            "sequence_length": 3,
            "dont_use_mmap": True,
            "read_ahead": True,
            "lazy_init": True,
            "prefetch_queue_depth": 2,
            "skip_cached_images": True,
            "tensor_init_bytes": 1000,
        },
        batch_size=4,
        iters=2,
    ),
)
for _t in ("RGB", "BGR", "GRAY", "ANY_DATA"):
    add(sequence_case({"sequence_length": 2, "image_type": _t}, batch_size=3, iters=2))
    add(sequence_case({"sequence_length": 2, "image_type": _t}, where="jpg", batch_size=3))
    for _where in ("rgba", "png16"):
        add(sequence_case({"sequence_length": 2, "image_type": _t}, where=_where, batch_size=2))
for _t in ("RGB", "BGR", "GRAY"):  # (ANY_DATA of a gray JPEG crashes DALI 2.4)
    add(sequence_case({"sequence_length": 2, "image_type": _t}, where="gray", batch_size=3))

# sharding, padding, sticking: the stream and reader_meta/epoch_size
for _shards, _shard_id, _b in ((2, 0, 3), (2, 1, 3), (3, 2, 4), (4, 3, 5)):
    for _pad in (False, True):
        for _stick in (False, True):
            add(
                sequence_case(
                    {
                        "sequence_length": 3,
                        "num_shards": _shards,
                        "shard_id": _shard_id,
                        "pad_last_batch": _pad,
                        "stick_to_shard": _stick,
                        "name": "Reader",
                    },
                    batch_size=_b,
                    iters=5,
                    meta="Reader",
                )
            )


# -- shuffling: orders differ by design; compare epochs and what each sequence holds -----------


def _sequence_keys(iters: Iters) -> list[tuple[int, ...]]:
    """Each sample's frames, by the numbers they show."""
    from dali._testing.sequences import frame_id

    return [tuple(frame_id(f) for f in s) for it in iters for s in it[0].samples]


def _shuffle_check(epoch: int) -> Callable[[Iters, Iters], list[str]]:
    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs, shapes=False)
        mine, real = _sequence_keys(ours), _sequence_keys(theirs)
        problems += [f"dali: {p}" for p in epoch_problems(mine, epoch)]
        problems += [f"real DALI: {p}" for p in epoch_problems(real, epoch)]
        if set(mine) != set(real):
            problems.append(f"different sequences read: {sorted(set(mine) ^ set(real))}")
        return problems

    return check


_N3 = n_sequences(SEQ_FRAMES, 3)
add(
    sequence_case(
        {"sequence_length": 3, "random_shuffle": True, "initial_fill": 4},
        batch_size=4,
        iters=3 * _N3 // 4,
        check=_shuffle_check(_N3),
    ),
    sequence_case(
        {"sequence_length": 2, "step": 2, "random_shuffle": True, "initial_fill": 100},
        batch_size=5,
        iters=2 * n_sequences(SEQ_FRAMES, 2, 2) // 5 + 1,
        check=_shuffle_check(n_sequences(SEQ_FRAMES, 2, 2)),
    ),
)


# -- errors both libraries raise ------------------------------------------------------------

add(
    sequence_case({"sequence_length": 0}, expect_error=True),
    sequence_case({"sequence_length": 50, "step": 0}, expect_error=True),  # (fitting: DALI hangs)
    sequence_case({"sequence_length": 2, "stride": 0}, expect_error=True),
    sequence_case({"sequence_length": 2, "stride": -1}, expect_error=True),
    sequence_case({"sequence_length": 11}, expect_error=True, suffix=" [longer than any stream]"),
    sequence_case({"sequence_length": 2, "image_type": "YCbCr"}, expect_error=True),
    sequence_case({"sequence_length": 2}, where="missing", expect_error=True),
    sequence_case({"sequence_length": 1}, where="empty", expect_error=True),
    sequence_case({"sequence_length": 3}, where="sizes", expect_error=True),
    sequence_case({"sequence_length": 2}, where="corrupt", batch_size=3, expect_error=True),
    sequence_case({"sequence_length": 3, "num_shards": 17}, expect_error=True),
    sequence_case({"sequence_length": 3, "num_shards": 2, "shard_id": 2}, expect_error=True),
)


# =============================================================================================
# experimental.readers.fits
# =============================================================================================
#
# DALI 2.4's CPU FITS reader cannot run on a machine without a CUDA driver: its loader
# allocates the samples in pinned host memory, and the first batch fails with
# "cudaErrorInsufficientDriver" (checked with the installed DALI 2.4). So these cases do not run
# real DALI (``dali_skip``); each compares our first batch with the arrays the generator wrote
# (`dali._testing.fits` writes the plain files byte by byte) or, for the tile-compressed
# files, with cfitsio's own reading of them (``fitsio``: DALI reads FITS with cfitsio), and
# the error cases check that we raise DALI's message. The semantics (HDU indices, the
# equivalent type, shapes, no ``source_info``, ``dtypes`` checked but not applied, the batch
# checks and their messages) are those of DALI's sources: ``fits_reader_op.h``,
# ``loader/fits_loader.h``, ``util/fits.cc``.

N_FITS = 5
_NO_DALI = (
    "DALI 2.4's CPU FITS reader needs a CUDA driver (its samples are in pinned host memory); "
    "compared with the written arrays / cfitsio"
)


def _generate_fits(folder: Path) -> None:
    from dali._testing.fits import make_fits_tree

    make_fits_tree(folder, n=N_FITS, compressed=True)


GENERATORS["fits"] = _generate_fits

FITS = Value(lambda c: c.folder("fits"), "fits")


def _fits_expected(i: int, k: int) -> Any:
    """What HDU ``k + 2`` of file ``i`` of the tree reads as (the generator's arrays)."""
    import numpy as np
    from dali._testing.fits import tree_arrays

    spec = tree_arrays(i)[k]
    if spec.scale is None:
        return spec.array
    bscale, bzero = spec.scale
    return (spec.array.astype(np.float64) * bscale + bzero).astype(np.float32)


def _fits_graph(kw: dict[str, Any], where: str) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        args = dict(kw)
        base = Path(root) / where
        if "files" in args:
            args["files"] = [str(base / f) for f in args["files"]]
        elif "file_list" in args:
            args["file_list"] = str(base / args["file_list"])
        else:
            args["file_root"] = str(base)
        if "dtypes" in args:
            args["dtypes"] = [getattr(types, t) for t in args["dtypes"]]
        out = fn.experimental.readers.fits(**args)
        return tuple(out) if isinstance(out, list) else out

    return graph


def fits_case(
    kw: dict[str, Any],
    reference: Callable[[Any], list[Any]] | None,
    *,
    where: str = "tree",
    batch_size: int = N_FITS,
    suffix: str = "",
    **opts: Any,
) -> Case:
    shown = ", ".join(f"{k}={v}" for k, v in kw.items())
    return Case(
        name=f"experimental.readers.fits[{where}]({shown}) b{batch_size}{suffix}",
        graph=_fits_graph(kw, where),
        inputs=(FITS,),
        batch_size=batch_size,
        dali_skip=_NO_DALI,
        reference=reference,
        **opts,
    )


def _tree_ref(files: list[int], k: int = 0) -> Callable[[Any], list[Any]]:
    return lambda ctx: [_fits_expected(i, k) for i in files]


# every HDU of every type, one output at a time (the reference covers the first output)
for _k in range(10):
    add(fits_case({"hdu_indices": [_k + 2]}, _tree_ref(list(range(N_FITS)), _k)))
add(
    fits_case({}, _tree_ref(list(range(N_FITS))), suffix=" [default: HDU 2]"),
    fits_case({"hdu_indices": [4, 2, 3]}, _tree_ref([0, 1, 2], 2), batch_size=3),
    fits_case({"file_list": "list.txt"}, _tree_ref(list(range(N_FITS)))),
    fits_case({"files": ["sub/img_04.fits", "img_00.fits"]}, _tree_ref([4, 0]), batch_size=2),
    fits_case({"file_filter": "img_0[24].fits"}, _tree_ref([2, 4]), batch_size=2),
    fits_case({"dtypes": ["UINT8"]}, _tree_ref([0, 1]), batch_size=2, suffix=" [not applied]"),
    fits_case({"num_shards": 2, "shard_id": 1}, _tree_ref([2, 3]), batch_size=2),
    fits_case(
        {"num_shards": 3, "shard_id": 2, "pad_last_batch": True}, _tree_ref([3, 4, 4]), batch_size=3
    ),
    fits_case({"num_shards": 3, "shard_id": 2}, _tree_ref([3, 4, 0]), batch_size=3),
)


def _cfitsio_ref(names: list[str]) -> Callable[[Any], list[Any]]:
    def reference(ctx: Any) -> list[Any]:
        import fitsio

        return [fitsio.read(str(Path(ctx.folder("fits")) / "compressed" / f"{n}.fits"), ext=1)
                for n in names]  # fmt: skip

    return reference


for _name in ("rice_i16", "rice_i32", "rice_u8", "rice_u16", "rice_tiles", "gzip", "gzip2",
              "plio", "hcompress"):  # fmt: skip
    add(fits_case({"files": [f"{_name}.fits"]}, _cfitsio_ref([_name]), where="compressed",
                  batch_size=1))  # fmt: skip

# errors: we must raise DALI's message
for _kw, _where, _text in (
    ({"files": ["table.fits"]}, "broken", "Only IMAGE_HDUs are supported!"),
    ({"files": ["no_axes.fits"]}, "broken", "NAXIS (image dimensions) value for each HDU"),
    ({"files": ["text.fits"]}, "broken", "Failed to open a file"),
    ({"files": ["primary_only.fits"]}, "broken", "there is no HDU 2"),
    ({"hdu_indices": [0]}, "tree", "numbered from 1"),
    ({"dtypes": ["BOOL"]}, "tree", "Unsupported output dtype"),
    ({"hdu_indices": [2, 3], "dtypes": ["INT16"]}, "tree", "Number of extensions does not match"),
    ({"files": ["../tree/img_00.fits", "other_type.fits"]}, "broken", "same data type"),
    ({"files": ["../tree/img_00.fits", "other_ndim.fits"]}, "broken", "same number of dim"),
    ({"file_filter": "*.none"}, "tree", "no files found"),
    ({"shuffle_after_epoch": True, "stick_to_shard": True}, "tree", "stick_to_shard"),
):
    add(fits_case(_kw, None, where=_where, batch_size=2, expect_error=True,
                  expect_error_text=_text))  # fmt: skip
