"""Deterministic ``.npy`` datasets for `fn.readers.numpy`: a small tree, edge cases, volumes.

Every function writes the same bytes on every run (numpy's ``.npy`` writer and a seeded
generator; numpy alone, no Pillow), so tests, the conformance cases against DALI and benchmarks
read the same files.

* `make_numpy_tree`: the layout ``fn.readers.numpy(file_root=...)`` traverses: files directly in
  the root and in two subfolders (one level deep), a file deeper than that and files that do not
  match ``*.npy`` (both ignored), C- and Fortran-order arrays of one type and number of
  dimensions, and ``list.txt`` naming some of them. Every file is one DALI 2.4 reads (version
  1.0 headers, little-endian).
* `make_numpy_edge_cases`: one file per case DALI's reader meets: 0-d, empty, bool, float16,
  uint64, big-endian, Fortran 3-D, version 2.0 and 3.0 headers, and broken files (truncated,
  not numpy, complex, structured).
* `make_numpy_volumes`: ``n`` larger 3-D volumes (smooth content plus noise), for the region
  of interest reads and benchmarks.

Example:
    >>> import tempfile
    >>> import numpy as np
    >>> files = make_numpy_tree(tempfile.mkdtemp())
    >>> [p.relative_to(p.parents[1]).as_posix() for p in files[:3]]
    ['tree/a00.npy', 'tree/a01.npy', 'tree/a02.npy']
    >>> np.load(files[0]).shape, np.load(files[0]).dtype
    ((5, 7), dtype('float32'))
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy.lib import format as npy_format

__all__ = [
    "EDGE_CASES",
    "TREE_FILES",
    "make_numpy_edge_cases",
    "make_numpy_tree",
    "make_numpy_volumes",
    "tree_array",
]

#: The samples of `make_numpy_tree` in the order DALI lists them (`fn.readers.numpy` source_info):
#: the root's own files first (``./``), then each subfolder's, sorted.
TREE_FILES = (
    "./a00.npy",
    "./a01.npy",
    "./a02.npy",
    "b/a03.npy",
    "b/a04.npy",
    "b/a05.npy",
    "b/a06.npy",
    "c/a07.npy",
    "c/a08.npy",
    "c/a09.npy",
    "c/a10.npy",
)


def tree_array(i: int) -> np.ndarray:
    """Sample ``i`` of `make_numpy_tree` (in `TREE_FILES` order), as numpy loads it.

    A float32 ``(5 + i % 4, 7 + i % 3)`` array of ``100 * i + index`` values; odd samples are
    stored in Fortran order.
    """
    h, w = 5 + i % 4, 7 + i % 3
    return (np.arange(h * w, dtype=np.float32).reshape(h, w) + 100 * i).astype(np.float32)


def _save(path: Path, array: np.ndarray, *, version: tuple[int, int] = (1, 0)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        npy_format.write_array(f, array, version=version, allow_pickle=False)
    return path


def make_numpy_tree(root: str | os.PathLike[str]) -> list[Path]:
    """Write the small tree ``<root>/tree`` and return its samples' paths in `TREE_FILES` order.

    Also written: ``<root>/tree/list.txt`` (a ``file_list`` of every other sample, relative to
    the tree, in reverse order), ``<root>/tree/b/deeper/a99.npy`` (two levels deep: not a sample),
    ``<root>/tree/c/notes.txt`` and ``<root>/tree/b/UPPER.NPY`` (not matching ``*.npy``).
    """
    tree = Path(root) / "tree"
    out = []
    for i, rel in enumerate(TREE_FILES):
        a = tree_array(i)
        out.append(_save(tree / rel, np.asfortranarray(a) if i % 2 else a))
    _save(tree / "b" / "deeper" / "a99.npy", tree_array(99))
    _save(tree / "b" / "UPPER.NPY", tree_array(98))
    (tree / "c" / "notes.txt").write_text("not a sample\n")
    listed = [p.removeprefix("./") for p in TREE_FILES[::-2]]
    (tree / "list.txt").write_text("".join(f"{p}\n" for p in listed))
    return out


#: The files of `make_numpy_edge_cases`: name -> what numpy loads (None: a broken file).
EDGE_CASES: dict[str, str] = {
    "scalar.npy": "a 0-d int32 array (7)",
    "empty.npy": "a (0, 3) uint8 array",
    "bool.npy": "a (2, 3) bool array",
    "f16.npy": "a (4,) float16 array",
    "u64.npy": "a (2, 2) uint64 array with values over 2**63",
    "big_endian.npy": "a (3, 4) '>i4' array (big-endian)",
    "big_endian_fortran.npy": "a (2, 3, 4) '>f8' array in Fortran order",
    "fortran3d.npy": "a (3, 4, 5) int16 array in Fortran order",
    "v2.npy": "a (3, 2) int8 array with a version 2.0 header",
    "v3.npy": "a (3, 2) int8 array with a version 3.0 header",
    "long_header.npy": "a (2,) float32 array ([1.5, -2]) whose header is over 4 KiB (v2.0)",
    "truncated.npy": "broken: a (4, 4) float32 file cut 5 bytes short",
    "not_numpy.npy": "broken: text",
    "bad_header.npy": "broken: the magic, then a header that is not a dict",
    "complex.npy": "unsupported: complex64",
    "structured.npy": "unsupported: a structured type",
}


def make_numpy_edge_cases(root: str | os.PathLike[str]) -> dict[str, Path]:
    """Write one file per `EDGE_CASES` entry into ``<root>/edge``; returns name -> path."""
    edge = Path(root) / "edge"
    rng = np.random.default_rng(2024)
    paths: dict[str, Path] = {}

    def save(name: str, a: np.ndarray, **kw: tuple[int, int]) -> None:
        paths[name] = _save(edge / name, a, **kw)

    save("scalar.npy", np.array(7, np.int32))
    save("empty.npy", np.zeros((0, 3), np.uint8))
    save("bool.npy", np.array([[True, False, True], [False, False, True]]))
    save("f16.npy", np.array([0.5, -1.25, 65504.0, 1e-3], np.float16))
    save("u64.npy", np.array([[1, 2**63 + 5], [2**64 - 1, 0]], np.uint64))
    save("big_endian.npy", (np.arange(12).reshape(3, 4) * 1000003 - 5).astype(">i4"))
    be = rng.normal(size=(2, 3, 4)).astype(">f8")
    save("big_endian_fortran.npy", np.asfortranarray(be))
    save("fortran3d.npy", np.asfortranarray(np.arange(60, dtype=np.int16).reshape(3, 4, 5)))
    small = np.arange(6, dtype=np.int8).reshape(3, 2) - 3
    save("v2.npy", small, version=(2, 0))
    save("v3.npy", small, version=(3, 0))
    # a version 2.0 header padded past the reader's first 4 KiB read (numpy loads it)
    text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
    text += b" " * (5000 - len(text)) + b"\n"
    paths["long_header.npy"] = edge / "long_header.npy"
    paths["long_header.npy"].write_bytes(
        b"\x93NUMPY\x02\x00"
        + len(text).to_bytes(4, "little")
        + text
        + np.array([1.5, -2.0], np.float32).tobytes()
    )
    good = _save(edge / "truncated.npy", rng.random((4, 4)).astype(np.float32))
    good.write_bytes(good.read_bytes()[:-5])
    paths["truncated.npy"] = good
    paths["not_numpy.npy"] = edge / "not_numpy.npy"
    paths["not_numpy.npy"].write_text("this is not a numpy file, just text\n" * 4)
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,) "
    header += b" " * (118 - len(header)) + b"\n"
    paths["bad_header.npy"] = edge / "bad_header.npy"
    paths["bad_header.npy"].write_bytes(
        b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + bytes(8)
    )
    save("complex.npy", np.arange(4, dtype=np.complex64))
    save("structured.npy", np.zeros(3, dtype=[("x", "<i4"), ("y", "<f4")]))
    return paths


def make_numpy_volumes(
    root: str | os.PathLike[str],
    n: int = 8,
    shape: tuple[int, ...] = (64, 64, 64),
    dtype: str = "float32",
    *,
    fortran: bool = False,
    seed: int = 0,
) -> list[Path]:
    """Write ``n`` volumes ``<root>/volumes/vol_XXX.npy`` of ``shape`` and ``dtype``.

    Smooth content (a sum of low-frequency cosines) plus noise, deterministic per ``seed``;
    rewritten only when missing (benchmarks ask for large sets).
    """
    folder = Path(root) / "volumes"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    grids = np.meshgrid(*[np.linspace(0, 1, s, dtype=np.float32) for s in shape], indexing="ij")
    for i in range(n):
        path = folder / f"vol_{i:03d}.npy"
        out.append(path)
        if path.exists():
            continue
        rng = np.random.default_rng((seed, i))
        field = np.zeros(shape, np.float32)
        for g in grids:
            field += np.cos(g * rng.uniform(1, 6) * np.pi + rng.uniform(0, np.pi))
        field += 0.1 * rng.standard_normal(shape, dtype=np.float32)
        info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
        if info is not None:
            lo, hi = field.min(), field.max()
            field = (field - lo) / max(hi - lo, 1e-6) * min(info.max, 4095)
        a = field.astype(dtype)
        _save(path, np.asfortranarray(a) if fortran else a)
    return out
