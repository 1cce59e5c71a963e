"""Conformance cases of the raw-input operators against real DALI 2.4 (see README.md):
`fn.io.file.read`, `fn.decoders.numpy` and `fn.decoders.inflate`.

``io.file.read`` reads the files of the ``io`` folder (`_generate`: sizes from 0 bytes to
above the mapping threshold, ``.npy`` files) named by ``external_source`` byte arrays, with
and without mapping, ``int8`` paths, ``file://`` paths, NUL-terminated paths, and its errors.
``decoders.numpy`` decodes ``.npy`` bytes of every type, shape and order, with ``dtype``
conversions and every error DALI reports. Compared exactly: bytes, dtypes, shapes, layouts.

``decoders.inflate`` has no CPU backend in DALI 2.4 (nvCOMP on the GPU only), so real DALI
is not run for it (``dali_skip``): our CPU backend is compared with the arrays the chunks were
compressed from (``reference``), and its error cases must raise DALI's messages.

Known differences: an empty file with the default ``dont_use_mmap=False`` (DALI 2.4 cannot map
it and raises; `dali` gives an empty sample, as DALI does with ``dont_use_mmap=True``), reads
with ``use_o_direct`` and ``dont_use_mmap`` (DALI 2.4's O_DIRECT read fails with EINVAL on
ext4, where an aligned O_DIRECT read succeeds; `dali` reads through the page cache) and
``fortran_order`` arrays of two or more dimensions (DALI 2.4's CPU build transposes them with CUDA and fails without a
GPU driver; `dali` gives ``np.load``'s array).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np
from cases import GENERATORS, Case, Context, Ext, In, Ty, add, op

FOLDER = "io"
#: The files of `_generate`: name -> size (``big.bin`` is above the 1 MiB mapping threshold).
SIZES = {"empty.bin": 0, "one.bin": 1, "text.txt": 5, "page.bin": 4096, "big.bin": 3 << 20}


def _npy(array: np.ndarray, *, fortran: bool = False, version: Any = None) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asfortranarray(array) if fortran else array, version=version)
    return buf.getvalue()


def _blob(array: np.ndarray, **kw: Any) -> np.ndarray:
    return np.frombuffer(_npy(array, **kw), np.uint8)


def _generate(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    for name, size in SIZES.items():
        (folder / name).write_bytes(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
    for k in range(3):
        (folder / f"a{k}.npy").write_bytes(_npy(rng.standard_normal((k + 2, 3)).astype("f4")))


GENERATORS[FOLDER] = _generate


def _path(c: Context, name: str) -> str:
    return os.path.join(c.folder(FOLDER), name)


def _paths(names: list[str], dtype: Any = np.uint8, wrap: str = "{}", label: str = "") -> Ext:
    """A batch of encoded paths of files in the folder."""

    def make(c: Context) -> list[list[np.ndarray]]:
        return [[np.frombuffer(wrap.format(_path(c, n)).encode(), dtype) for n in names]]

    return Ext(make, None, label or "paths(" + ",".join(names) + ")")


def _raw(samples: list[np.ndarray], label: str) -> Ext:
    return Ext(lambda c: [samples], None, label)


# -- io.file.read ------------------------------------------------------------------------------

ALL = ["one.bin", "text.txt", "page.bin", "big.bin", "a0.npy"]
add(
    op("io.file.read", [_paths(ALL)]),
    op("io.file.read", [_paths(ALL)], {"dont_use_mmap": True}),
    op("io.file.read", [_paths(["text.txt", "big.bin"], np.int8, label="int8_paths")]),
    op("io.file.read", [_paths(["page.bin"], wrap="file://{}", label="file_url")]),
    op("io.file.read", [_paths(["text.txt"], wrap="{}\0junk", label="nul_terminated")]),
    op("io.file.read", [_paths(["empty.bin", "one.bin"])], {"dont_use_mmap": True}),
    op("io.file.read", [_paths(["page.bin"])], {"use_o_direct": True}),
    op(
        "io.file.read",
        [_paths(["empty.bin"])],
        known="DALI 2.4 cannot map an empty file (File mapping failed); dali reads it as empty, "
        "as DALI does with dont_use_mmap=True",
    ),
    op(
        "io.file.read",
        [_paths(["page.bin", "big.bin"])],
        {"dont_use_mmap": True, "use_o_direct": True},
        known="DALI 2.4's O_DIRECT read fails with EINVAL (Read operation failed: Invalid "
        "argument) on this machine's ext4, where an aligned O_DIRECT read succeeds; dali "
        "accepts use_o_direct and reads through the page cache",
    ),
    # errors
    op("io.file.read", [_paths(["one.bin", "missing.bin"])], expect_error=True),
    op("io.file.read", [_paths(["missing.bin"])], {"dont_use_mmap": True}, expect_error=True),
    op("io.file.read", [_paths([""], label="folder")], {"dont_use_mmap": True}, expect_error=True),
    op("io.file.read", [_paths(["one.bin"], np.int32, label="int32")], expect_error=True),
    op(
        "io.file.read",
        [
            Ext(
                lambda c: [[np.frombuffer(_path(c, "one.bin").encode(), np.uint8)[None]]],
                None,
                "2d",
            )
        ],
        expect_error=True,
    ),
)


def _read_and_decode(fn: Any, types: Any, paths: Any) -> Any:
    data = fn.io.file.read(paths)
    return data, fn.decoders.numpy(data)


add(
    Case(
        "io.file.read -> decoders.numpy (a0..a2.npy)",
        _read_and_decode,
        (_paths(["a0.npy", "a1.npy", "a2.npy"]),),
    )
)

# -- decoders.numpy ----------------------------------------------------------------------------

_R = np.random.default_rng(5)
A = (_R.standard_normal((2, 3)) * 100).astype(np.float32)
TYPED = {
    name: [_blob((_R.standard_normal((4, 3)) * 100).astype(name)) for _ in range(2)]
    for name in ("uint8", "int8", "uint16", "int16", "uint32", "int32", "int64", "uint64")
}
TYPED["float16"] = [_blob(_R.standard_normal((5,)).astype("f2")) for _ in range(2)]
TYPED["float64"] = [_blob(_R.standard_normal((2, 2, 2))) for _ in range(2)]
TYPED["bool"] = [_blob(_R.standard_normal((3, 3)) > 0) for _ in range(2)]

for name, blobs in TYPED.items():
    add(op("decoders.numpy", [_raw(blobs, f"npy_{name}")]))

RAGGED = [_blob(np.arange(n * 3, dtype=np.int16).reshape(n, 3)) for n in (1, 4, 2)]
SHAPES = {
    "ragged": RAGGED,
    "scalar": [_blob(np.array(7, np.int32)), _blob(np.array(-1, np.int32))],
    "empty_array": [_blob(np.zeros((0, 3), np.float32)), _blob(np.ones((2, 3), np.float32))],
    "4d": [_blob(np.arange(120, dtype=np.uint8).reshape(2, 3, 4, 5))],
    "fortran_1d": [_blob(np.arange(5, dtype=np.int64), fortran=True)],
    "fortran_1x1": [_blob(np.ones((1, 1), np.float32), fortran=True)],
    "fortran_0x3": [_blob(np.zeros((0, 3), np.float32), fortran=True)],
    "int8_bytes": [_blob(A).view(np.int8)],
    "2d_bytes": [_blob(A)[None]],
}
for name, blobs in SHAPES.items():
    add(op("decoders.numpy", [_raw(blobs, f"npy_{name}")]))

FLOATS = [_blob(np.array([-1.5, 2.5, 0.5, -0.5, 0.3, 300.0, -7.0, 70000.0], np.float32))]
for ty in ("UINT8", "INT8", "INT32", "UINT16", "FLOAT16", "FLOAT64", "BOOL"):
    add(op("decoders.numpy", [_raw(FLOATS, "npy_floats")], {"dtype": Ty(ty)}))
INTS = [_blob(np.array([-300, -5, 0, 5, 300, 70000], np.int64))]
for ty in ("UINT8", "INT16", "FLOAT", "BOOL"):
    add(op("decoders.numpy", [_raw(INTS, "npy_ints")], {"dtype": Ty(ty)}))
MIXED = [_blob(np.array([1.5, 2.0])), _blob(np.array([-3, 4], np.int8)), _blob(np.array([True]))]
add(op("decoders.numpy", [_raw(MIXED, "npy_mixed_types")], {"dtype": Ty("FLOAT")}))

for name, arr in (
    ("fortran_2d", np.arange(12, dtype=np.int32).reshape(3, 4)),
    ("fortran_3d", np.arange(24, dtype=np.uint8).reshape(2, 3, 4)),
):
    add(
        op(
            "decoders.numpy",
            [_raw([_blob(arr, fortran=True)], f"npy_{name}")],
            known="DALI 2.4's CPU build transposes fortran_order arrays with CUDA: without a GPU "
            "driver it raises (cudaErrorInsufficientDriver); dali gives np.load's array",
        )
    )

# the errors DALI reports (ours say the same, naming the sample)
_HDR = b"{'descr': '<f4', 'fortran_order': False}\n"
ERRORS = {
    "empty": np.zeros(0, np.uint8),
    "bad_magic": np.frombuffer(b"hello world 1234", np.uint8),
    "short": _blob(A)[:5],
    "version2": _blob(A, version=(2, 0)),
    "version3": _blob(A, version=(3, 0)),
    "header_past_end": _blob(A)[:60],
    "truncated": _blob(A)[:-4],
    "trailing_bytes": np.concatenate([_blob(A), np.zeros(4, np.uint8)]),
    "big_endian": _blob(A.astype(">f4")),
    "complex": _blob(np.array([1j])),
    "unicode": _blob(np.array(["ab"])),
    "structured": _blob(np.zeros(2, dtype=[("a", "i4")])),
    "no_shape": np.frombuffer(b"\x93NUMPY\x01\x00" + bytes([len(_HDR), 0]) + _HDR, np.uint8),
    "float_input": np.zeros(16, np.float32),
}
for name, blob in ERRORS.items():
    add(op("decoders.numpy", [_raw([_blob(A), blob], f"npy_error_{name}")], expect_error=True))
add(
    op(
        "decoders.numpy",
        [_raw([_blob(A), _blob(A.astype("i4"))], "npy_two_types")],
        expect_error=True,
    ),
    op("decoders.numpy", [_raw([_blob(A), _blob(A.ravel())], "npy_two_ranks")], expect_error=True),
    op("decoders.numpy", [_raw([_blob(A)], "npy")], {"dtype": Ty("STRING")}, expect_error=True),
)

# -- decoders.inflate: DALI 2.4 has no CPU backend; the reference is what was compressed --------

_NO_CPU = "DALI 2.4 has decoders.inflate on the GPU only (nvCOMP); dali's CPU backend is compared"


def _lz4(array: np.ndarray) -> np.ndarray:
    """An LZ4 block of ``array``'s bytes (literals only where the lz4 package is missing)."""
    try:
        import lz4.block
    except ImportError:
        from dali._ops.decoders.inflate import lz4_block

        return np.frombuffer(lz4_block(array.tobytes()), np.uint8)
    return np.frombuffer(lz4.block.compress(array.tobytes(), store_size=False), np.uint8)


_F = np.random.default_rng(9)
FRAMES = [(_F.standard_normal((n, 6, 5)) * 50).astype(np.int16) for n in (3, 1, 4)]
SINGLE = [(_F.standard_normal((6, 5)) * 50).astype(np.float32) for _ in range(3)]


def _sequences(c: Context) -> list[list[np.ndarray]]:
    return [[np.concatenate([_lz4(f) for f in frames]) for frames in FRAMES]]


def _sizes(c: Context) -> list[list[np.ndarray]]:
    return [[np.array([len(_lz4(f)) for f in frames], np.int32) for frames in FRAMES]]


def _offsets(c: Context) -> list[list[np.ndarray]]:
    return [[np.concatenate([[0], np.cumsum(s)[:-1]]).astype(np.int32) for s in _sizes(c)[0]]]


SEQ = Ext(_sequences, None, "lz4_sequences")
SIZES_ARG = Ext(_sizes, None, "chunk_sizes")
OFFSETS_ARG = Ext(_offsets, None, "chunk_offsets")
SINGLE_EXT = Ext(lambda c: [[_lz4(a) for a in SINGLE]], None, "lz4_single")


def _padded(shape: tuple[int, ...]) -> Any:
    """The frames inflated into chunks of ``shape`` (more elements): zeros after each."""

    def reference(c: Context) -> list[np.ndarray]:
        out = []
        for frames in FRAMES:
            padded = np.zeros((len(frames), int(np.prod(shape))), np.int16)
            padded[:, : frames[0].size] = frames.reshape(len(frames), -1)
            out.append(padded.reshape(len(frames), *shape))
        return out

    return reference


def _inflate(inputs: list[Any], kwargs: dict[str, Any], **case: Any) -> Case:
    return op("decoders.inflate", inputs, {"device": "cpu", **kwargs}, dali_skip=_NO_CPU, **case)


SEQ_KW = {"shape": [6, 5], "dtype": Ty("INT16"), "layout": "HW"}
add(
    _inflate([SINGLE_EXT], {"shape": [6, 5], "dtype": Ty("FLOAT")}, reference=lambda c: SINGLE),
    _inflate(
        [SINGLE_EXT],
        {"shape": 30, "dtype": Ty("FLOAT"), "layout": "X"},
        reference=lambda c: [a.ravel() for a in SINGLE],
    ),
    _inflate([SEQ, SIZES_ARG], {**SEQ_KW, "chunk_sizes": In(1)}, reference=lambda c: list(FRAMES)),
    _inflate(
        [SEQ, OFFSETS_ARG],
        {**SEQ_KW, "chunk_offsets": In(1), "sequence_axis_name": "T"},
        reference=lambda c: list(FRAMES),
    ),
    _inflate(
        [SEQ, OFFSETS_ARG, SIZES_ARG],
        {**SEQ_KW, "chunk_offsets": In(1), "chunk_sizes": In(2)},
        reference=lambda c: list(FRAMES),
    ),
    _inflate(
        [SEQ, SIZES_ARG],
        {"shape": [7, 6], "dtype": Ty("INT16"), "chunk_sizes": In(1)},
        reference=_padded((7, 6)),
    ),
    _inflate(
        [SEQ, SIZES_ARG],
        {"shape": [6, 5], "chunk_sizes": In(1), "algorithm": "zstd"},
        expect_error=True,
        expect_error_text='Unknown inflate algorithm "zstd".',
    ),
    _inflate(
        [SEQ],
        {"shape": [6, 5], "chunk_offsets": [0, 0]},
        expect_error=True,
        expect_error_text="The inferred size of a chunk would be non-positive for sample of idx 0.",
    ),
    _inflate(
        [SEQ],
        {"shape": [6, 5], "chunk_sizes": [1 << 20]},
        expect_error=True,
        expect_error_text="Input chunk size cannot exceed the sample size.",
    ),
    _inflate(
        [SINGLE_EXT],
        {"shape": [2, 5], "dtype": Ty("FLOAT"), "check_output_size": True},
        expect_error=True,
        expect_error_text="has 40 bytes, but the compressed input expands to 120 bytes.",
    ),
    _inflate(
        [_raw([np.zeros(8, np.float32)], "float_input")],
        {"shape": 8},
        expect_error=True,
        expect_error_text="Got tensor of type `float` instead.",
    ),
)
