"""FITS files for `fn.experimental.readers.fits`: plain images written byte by byte, and
tile-compressed ones written with ``fitsio``.

The uncompressed files are written here (`write_fits`, from the FITS standard: 2880-byte
blocks of 80-character cards, big-endian data), independently of the library the reader uses,
so a test compares what the reader gives with the arrays that were written. Unsigned and
signed-byte types are stored as FITS stores them, with ``BZERO`` offsets (uint16, uint32 and
int8; cfitsio reads uint64's offset as int64); a scaled HDU (``BSCALE``/``BZERO`` with a fraction) reads as float32.

`make_fits_tree` writes a dataset: files with one HDU of every supported type (the same
layout in every file, values differing), some in a subfolder, a ``list.txt``; with
``compressed=True`` (needs ``fitsio``) a folder of RICE, GZIP, GZIP_2, PLIO and HCOMPRESS
tile-compressed images; and broken files (a table HDU, a primary HDU only, an image without
axes, text named ``.fits``, files whose HDUs differ in type or dimensions from the others).

Example:
    >>> import tempfile
    >>> tree = make_fits_tree(tempfile.mkdtemp(), n=2)
    >>> len(tree.files), [a.dtype.name for a in tree.arrays[0]][:3]
    (2, ['int16', 'float32', 'uint16'])
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "COMPRESSIONS",
    "FitsTree",
    "HduSpec",
    "fits_image_hdu",
    "make_fits_tree",
    "tree_arrays",
    "write_fits",
]

_BLOCK = 2880

#: numpy dtype -> (BITPIX, BZERO, the stored type): how FITS stores each type.
_STORAGE: dict[str, tuple[int, int | None, str]] = {
    "uint8": (8, None, "u1"),
    "int8": (8, -128, "u1"),
    "int16": (16, None, ">i2"),
    "uint16": (16, 32768, ">i2"),
    "int32": (32, None, ">i4"),
    "uint32": (32, 2147483648, ">i4"),
    "int64": (64, None, ">i8"),
    "uint64": (64, 9223372036854775808, ">i8"),
    "float32": (-32, None, ">f4"),
    "float64": (-64, None, ">f8"),
}


def _card(key: str, value: Any = None) -> bytes:
    """One 80-character header card (fixed format)."""
    if value is None:
        text = key.ljust(80)
    elif isinstance(value, bool):
        text = f"{key:<8}= {('T' if value else 'F'):>20}"
    elif isinstance(value, str):
        text = f"{key:<8}= '{value:<8}'"
    elif isinstance(value, float):
        text = f"{key:<8}= {repr(value).upper():>20}"
    else:
        text = f"{key:<8}= {value:>20}"
    return text.ljust(80).encode("ascii")


def _pad(data: bytes, fill: bytes) -> bytes:
    return data + fill * (-len(data) % _BLOCK)


def _header(cards: list[bytes]) -> bytes:
    return _pad(b"".join([*cards, _card("END")]), b" ")


class HduSpec(NamedTuple):
    """An image HDU to write: ``array`` as ``BITPIX`` (with ``scale``: raw values stored with
    ``BSCALE``/``BZERO``, read back as ``raw * bscale + bzero``)."""

    array: np.ndarray
    scale: tuple[float, float] | None = None


def fits_image_hdu(spec: HduSpec | np.ndarray | None, *, primary: bool = False) -> bytes:
    """The bytes of one image HDU (``None``: no data, ``NAXIS = 0``)."""
    if isinstance(spec, np.ndarray) or spec is None:
        spec = HduSpec(np.empty(0, np.uint8) if spec is None else spec)
    a = spec.array
    first = _card("SIMPLE", True) if primary else _card("XTENSION", "IMAGE")
    ndim = 0 if (spec.array.size == 0 and spec.array.ndim == 1) else a.ndim
    if spec.scale is not None:
        bitpix, bzero, stored = _STORAGE[a.dtype.name][0], None, _STORAGE[a.dtype.name][2]
    else:
        bitpix, bzero, stored = _STORAGE[a.dtype.name]
    cards = [first, _card("BITPIX", bitpix), _card("NAXIS", ndim)]
    cards += [_card(f"NAXIS{k + 1}", n) for k, n in enumerate(a.shape[::-1][:ndim])]
    if primary:
        cards.append(_card("EXTEND", True))
    else:
        cards += [_card("PCOUNT", 0), _card("GCOUNT", 1)]
    if spec.scale is not None:
        cards += [_card("BSCALE", float(spec.scale[0])), _card("BZERO", float(spec.scale[1]))]
        raw = a.astype(stored)
    elif bzero is not None:
        cards += [_card("BSCALE", 1), _card("BZERO", bzero)]
        # the stored value is the value minus BZERO: the top bit flipped, then seen as the
        # stored type (int8: value + 128 as uint8; uint16: value - 32768 as int16, ...)
        top = a.dtype.type(1 << (8 * a.itemsize - 1)) if a.dtype.kind == "u" else np.int8(-128)
        flipped = a ^ top
        raw = flipped.view(np.dtype(stored).newbyteorder("=")).astype(stored)
    else:
        raw = a.astype(stored)
    data = raw.tobytes() if ndim else b""
    return _header(cards) + (_pad(data, b"\0") if data else b"")


def _bintable_hdu(rows: int = 3) -> bytes:
    cards = [
        _card("XTENSION", "BINTABLE"),
        _card("BITPIX", 8),
        _card("NAXIS", 2),
        _card("NAXIS1", 4),
        _card("NAXIS2", rows),
        _card("PCOUNT", 0),
        _card("GCOUNT", 1),
        _card("TFIELDS", 1),
        _card("TTYPE1", "X"),
        _card("TFORM1", "1J"),
    ]
    return _header(cards) + _pad(np.arange(rows, dtype=">i4").tobytes(), b"\0")


def write_fits(
    path: str | os.PathLike[str],
    hdus: Sequence[HduSpec | np.ndarray | str | None],
    *,
    primary: HduSpec | np.ndarray | None = None,
) -> Path:
    """Write a FITS file: the primary HDU (``primary``, no data by default), then ``hdus``
    (image extensions; the string ``"table"`` writes a small binary table)."""
    parts = [fits_image_hdu(primary, primary=True)]
    for h in hdus:
        parts.append(_bintable_hdu() if isinstance(h, str) else fits_image_hdu(h))
    path = Path(path)
    path.write_bytes(b"".join(parts))
    return path


def tree_arrays(i: int) -> list[HduSpec]:
    """The image HDUs (2, 3, ...) of file ``i`` of `make_fits_tree`: one of every type."""
    rng = np.random.default_rng([20251202, i])
    h, w = 5 + i % 3, 7 + i % 2

    def ints(dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    raw16 = ints(np.int16, (h, w))
    return [
        HduSpec(ints(np.int16, (h, w))),  # 2
        HduSpec(rng.standard_normal((h, w)).astype(np.float32)),  # 3
        HduSpec(ints(np.uint16, (h, w))),  # 4
        HduSpec(ints(np.uint8, (w,))),  # 5: 1-D
        HduSpec(ints(np.int32, (2, h, w))),  # 6: 3-D
        HduSpec(rng.standard_normal((h, 3))),  # 7: float64
        HduSpec(ints(np.int64, (4,))),  # 8
        HduSpec(ints(np.uint32, (3, 2))),  # 9
        HduSpec(ints(np.int8, (h, w))),  # 10
        HduSpec(raw16, scale=(0.5, 10.0)),  # 11: scaled -> float32
    ]


def _expected(spec: HduSpec) -> np.ndarray:
    if spec.scale is None:
        return spec.array
    bscale, bzero = spec.scale
    return (spec.array.astype(np.float64) * bscale + bzero).astype(np.float32)


#: The tile compressions written by `make_fits_tree` (``compressed=True``): name -> the HDU's
#: data type and ``fitsio.write`` keywords.
COMPRESSIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "rice_i16": ("int16", {"compress": "RICE"}),
    "rice_i32": ("int32", {"compress": "RICE"}),
    "rice_u8": ("uint8", {"compress": "RICE"}),
    "rice_u16": ("uint16", {"compress": "RICE"}),
    "rice_tiles": ("int16", {"compress": "RICE", "tile_dims": (4, 4)}),
    "gzip": ("int32", {"compress": "GZIP"}),
    "gzip2": ("int16", {"compress": "GZIP_2"}),
    "plio": ("int32", {"compress": "PLIO"}),
    "hcompress": ("int16", {"compress": "HCOMPRESS", "hcomp_scale": 0.0}),
}


class FitsTree(NamedTuple):
    """What `make_fits_tree` wrote."""

    #: the dataset's folder (``<root>/tree``, with ``list.txt``)
    root: Path
    #: the dataset's files, in the order the reader lists them (root files, then ``sub/``)
    files: list[Path]
    #: ``arrays[i][k]``: the values HDU ``k + 2`` of ``files[i]`` reads as
    arrays: list[list[np.ndarray]]
    #: compressed files (``compressed=True``): name -> (path, the values of its HDU 2)
    compressed: dict[str, tuple[Path, np.ndarray]]
    #: broken files, by what is wrong: "table", "primary_only", "no_axes", "text",
    #: "other_type" (HDU 2 is float32), "other_ndim" (HDU 2 is 3-D)
    broken: dict[str, Path]


def make_fits_tree(
    root: str | os.PathLike[str], n: int = 5, *, compressed: bool = False
) -> FitsTree:
    """Write ``n`` files ``<root>/tree/img_XX.fits`` (the last two in ``<root>/tree/sub/``)
    with the HDUs of `tree_arrays` and ``<root>/tree/list.txt`` naming them, the
    ``<root>/broken/`` files and (with ``compressed``) ``<root>/compressed/<name>.fits``."""
    root = Path(root)
    tree = root / "tree"
    (tree / "sub").mkdir(parents=True, exist_ok=True)
    files, arrays = [], []
    for i in range(n):
        folder = tree / "sub" if i >= n - 2 and n > 2 else tree
        specs = tree_arrays(i)
        files.append(write_fits(folder / f"img_{i:02d}.fits", specs))
        arrays.append([_expected(s) for s in specs])
    (tree / "list.txt").write_text("".join(f"{p.relative_to(tree)}\n" for p in files))
    broken_dir = root / "broken"
    broken_dir.mkdir(exist_ok=True)
    broken = {
        "table": write_fits(broken_dir / "table.fits", ["table"]),
        "primary_only": write_fits(broken_dir / "primary_only.fits", []),
        "no_axes": write_fits(broken_dir / "no_axes.fits", [None]),
        "other_type": write_fits(broken_dir / "other_type.fits", [np.zeros((5, 7), np.float32)]),
        "other_ndim": write_fits(broken_dir / "other_ndim.fits", [np.zeros((2, 5, 7), np.int16)]),
    }
    text = broken_dir / "text.fits"
    text.write_text("SIMPLE = not really a FITS file\n")
    broken["text"] = text
    out: dict[str, tuple[Path, np.ndarray]] = {}
    if compressed:
        import fitsio  # type: ignore[import-untyped,import-not-found,unused-ignore]

        folder = root / "compressed"
        folder.mkdir(exist_ok=True)
        rng = np.random.default_rng(7)
        for name, (dtype, kw) in COMPRESSIONS.items():
            # smooth data with noise (what the codecs are for); PLIO takes values < 2**24
            yy, xx = np.mgrid[0:24, 0:33]
            base = (yy * 7 + xx * 3 + rng.integers(0, 9, yy.shape)).astype(np.int64)
            if name == "rice_i16" or name == "gzip2":
                base = base * 97 - 20000
            a = base.astype(dtype)
            path = folder / f"{name}.fits"
            with fitsio.FITS(str(path), "rw", clobber=True) as f:
                f.write(None)
                f.write(a, **kw)
            out[name] = (path, a)
    return FitsTree(tree, files, arrays, out, broken)
