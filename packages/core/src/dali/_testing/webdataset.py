"""Deterministic webdataset shards for `fn.readers.webdataset`: a dataset and its edge cases.

Every function writes the same bytes on every run (`tarfile` with fixed times, owners and
modes; JPEGs from `dali._testing.images`), so tests, the conformance cases against DALI and
benchmarks read the same shards.

* `make_wds_dataset`: ``n`` samples ``NNNNNN`` over ``shards`` tar files, each a JPEG
  (``.jpg``), a text label (``.cls``, missing from every fifth sample) and a JSON document
  (``.json``, missing from every seventh), in a component order that varies by shard, with a
  directory entry and a hidden file in each shard (neither is a component), and the shards'
  index files (DALI's v1.2 format, `dali.tools.wds2idx`). `WdsDataset.samples` says what each
  sample holds, for the tests to compare with.
* `make_wds_edge_cases`: one small archive per case the reader meets (`EDGE_CASES`): hidden
  files, names without a dot, keys that come back, mixed-case and multi-dot extensions, links
  and devices, long GNU/pax/ustar names, typed payloads for ``dtypes``, truncated and broken
  archives, and index files (v1.1, broken, of another shard).

Example:
    >>> import tempfile
    >>> ds = make_wds_dataset(tempfile.mkdtemp(), n=6, shards=2)
    >>> [os.path.basename(p) for p in ds.tars], ds.keys[:3]
    (['shard-000000.tar', 'shard-000001.tar'], ['000000', '000001', '000002'])
    >>> sorted(ds.samples[4]), ds.samples[4]["json"]
    (['jpg', 'json'], b'{"index": 4, "label": 4}')
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = [
    "EDGE_CASES",
    "WdsDataset",
    "make_wds_dataset",
    "make_wds_edge_cases",
    "sample_components",
    "write_tar",
]

#: Fixed metadata of every member, so that the archives are byte-identical between runs.
_MTIME = 1_700_000_000


class WdsDataset(NamedTuple):
    """What `make_wds_dataset` wrote."""

    #: the shards, in order
    tars: list[str]
    #: their index files (empty when written without)
    indices: list[str]
    #: the samples' keys, in dataset order
    keys: list[str]
    #: each sample's components: extension -> bytes
    samples: list[dict[str, bytes]]


Entry = tuple[str, "bytes | str"]
"""A member to write: ``(name, data)``; data ``"dir"``, ``"symlink"``, ``"hardlink"``,
``"fifo"`` or ``"chardev"`` writes such an entry instead of a file."""


def write_tar(
    path: str | os.PathLike[str],
    entries: Sequence[Entry],
    *,
    format: int = tarfile.GNU_FORMAT,
) -> Path:
    """Write ``entries`` (`Entry`) into the tar file ``path``, deterministically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    kinds = {
        "dir": tarfile.DIRTYPE,
        "symlink": tarfile.SYMTYPE,
        "hardlink": tarfile.LNKTYPE,
        "fifo": tarfile.FIFOTYPE,
        "chardev": tarfile.CHRTYPE,
    }
    with tarfile.open(path, "w", format=format) as tar:
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.mtime = _MTIME
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if isinstance(data, str):
                info.type = kinds[data]
                info.mode = 0o755 if data == "dir" else 0o644
                if data in ("symlink", "hardlink"):
                    info.linkname = "000000.jpg"
                tar.addfile(info)
            else:
                info.mode = 0o644
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


# -- the dataset ------------------------------------------------------------------------------


def _jpeg(i: int, size: tuple[int, int] | None) -> bytes:
    from PIL import Image

    from dali._testing.images import photo

    h, w = size if size is not None else (32 + (7 * i) % 33, 48 + (5 * i) % 29)
    buf = io.BytesIO()
    Image.fromarray(photo(h, w, np.random.default_rng([20240817, i]))).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def sample_components(
    i: int, *, image_size: Callable[[int], tuple[int, int]] | None = None
) -> dict[str, bytes]:
    """The components of sample ``i`` of `make_wds_dataset`: ``jpg`` always, ``cls`` (the label
    ``i % 10`` as text) unless ``i % 5 == 4``, ``json`` unless ``i % 7 == 5``."""
    out = {"jpg": _jpeg(i, image_size(i) if image_size is not None else None)}
    if i % 5 != 4:
        out["cls"] = str(i % 10).encode()
    if i % 7 != 5:
        out["json"] = json.dumps({"index": i, "label": i % 10}, sort_keys=True).encode()
    return out


def make_wds_dataset(
    root: str | os.PathLike[str],
    n: int = 24,
    *,
    shards: int = 3,
    index: bool = True,
    image_size: Callable[[int], tuple[int, int]] | None = None,
) -> WdsDataset:
    """Write ``n`` samples over ``shards`` tar files ``<root>/shard-NNNNNN.tar`` (and ``.idx``).

    Sample ``i`` (key ``f"{i:06d}"``) holds `sample_components` ``(i)``; shard ``s`` holds the
    samples ``s*n//shards`` to ``(s+1)*n//shards - 1``. Shard ``s`` writes its components in the
    order ``jpg, cls, json`` (even ``s``) or ``json, jpg, cls`` (odd), and after its first sample
    a directory entry ``NNNNNN_dir/`` and a hidden file ``.meta_NNNNNN`` (not components).

    Args:
        root: The folder to write into (created if needed).
        n: Number of samples.
        shards: Number of tar files (each gets at least one sample).
        index: Also write each shard's index file (v1.2, `dali.tools.wds2idx.write_index`).
        image_size: ``(height, width)`` of sample ``i``'s JPEG (default: small, 32-64 px).
    """
    if not 1 <= shards <= n:
        raise ValueError(f"need 1 <= shards <= n, got shards={shards}, n={n}")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    tars, indices, keys, samples = [], [], [], []
    for s in range(shards):
        entries: list[Entry] = []
        order = ("jpg", "cls", "json") if s % 2 == 0 else ("json", "jpg", "cls")
        for i in range(s * n // shards, (s + 1) * n // shards):
            key = f"{i:06d}"
            comps = sample_components(i, image_size=image_size)
            entries += [(f"{key}.{ext}", comps[ext]) for ext in order if ext in comps]
            if i == s * n // shards:
                entries += [(f"{s:06d}_dir/", "dir"), (f".meta_{s:06d}", b"hidden")]
            keys.append(key)
            samples.append(comps)
        tar = write_tar(root / f"shard-{s:06d}.tar", entries)
        tars.append(str(tar))
        if index:
            from dali.tools.wds2idx import write_index

            idx = root / f"shard-{s:06d}.idx"
            write_index(str(tar), str(idx))
            indices.append(str(idx))
    return WdsDataset(tars, indices, keys, samples)


# -- edge cases -------------------------------------------------------------------------------

#: The archives of `make_wds_edge_cases`, with what each holds.
EDGE_CASES = {
    "hidden": "hidden files at the top and in a directory, and directory entries",
    "hidden_first": "a hidden file as the first member",
    "no_dot": "a member without a dot in its name (README)",
    "regroup": "a key that comes back after another (000, 001, 000): three samples",
    "case": "extensions in mixed case (JPG, jpg, Jpg, CLS)",
    "multi_dot": "multi-dot extensions (left.png, right.png) and a .cls",
    "both": "samples with a .cls and a .json, in both orders",
    "special": "a symlink, a hard link, a FIFO and a character device among the files",
    "typed": "payloads for dtypes: float32 (.f32), int16 (.i16), float64 (.f64), 3 bytes (.odd)",
    "zero_size": "zero-length components",
    "gnu_long": "names of more than 100 bytes (GNU ././@LongLink)",
    "pax": "pax headers: long and non-ASCII names",
    "ustar": "ustar names split into prefix and name",
    "spaces": "a member name with a space",
    "only_dirs": "no regular file (directories and a hidden file)",
    "truncated_header": "a tar cut inside a header",
    "truncated_data": "a tar cut inside a member's data",
    "not_tar": "a file that is not a tar archive",
    "empty": "an empty file",
}


def _payloads() -> dict[str, bytes]:
    rng = np.random.default_rng(77)
    return {
        "f32": rng.normal(size=6).astype("<f4").tobytes(),
        "i16": rng.integers(-3000, 3000, size=5).astype("<i2").tobytes(),
        "f64": rng.normal(size=3).astype("<f8").tobytes(),
        "odd": b"abc",
    }


def make_wds_edge_cases(root: str | os.PathLike[str]) -> dict[str, Path]:
    """Write one archive per entry of `EDGE_CASES` (``<root>/<name>.tar``) and index files.

    The index files (beside them): ``gnu_long.idx`` (v1.2), ``multi_dot_v11.idx`` (v1.1, no
    member names), ``wrong.idx`` (the index of ``typed``, for ``multi_dot``),
    ``bad_version.idx``, ``bad_offset.idx`` (an offset not a multiple of 512),
    ``short.idx`` (fewer lines than its count) and ``bad_field.idx`` (a size that is not a
    number).

    Returns:
        The path of each archive and index, by name (``"typed"``, ``"multi_dot_v11.idx"``).
    """
    from dali.tools.wds2idx import write_index

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    typed = _payloads()
    long_dir = "d" * 60 + "/" + "e" * 60
    cases: dict[str, list[Entry]] = {
        "hidden": [
            ("000.jpg", b"J0"),
            ("000.cls", b"0"),
            (".hidden.jpg", b"top-level hidden"),
            ("sub/", "dir"),
            ("sub/.keep", b"hidden in a directory"),
            ("sub/001.jpg", b"J1"),
            ("sub/001.cls", b"1"),
            ("002.jpg", b"J2"),
        ],
        "hidden_first": [(".hidden", b"x"), ("000.jpg", b"J0"), ("001.jpg", b"J1")],
        "no_dot": [("000.jpg", b"J0"), ("README", b"read me"), ("001.jpg", b"J1")],
        "regroup": [("000.jpg", b"J0"), ("001.jpg", b"J1"), ("000.cls", b"0")],
        "case": [
            ("000.JPG", b"J0"),
            ("000.cls", b"0"),
            ("001.jpg", b"J1"),
            ("001.CLS", b"1"),
            ("002.Jpg", b"J2"),
        ],
        "multi_dot": [
            ("000.left.png", b"L0"),
            ("000.right.png", b"R0"),
            ("000.cls", b"0"),
            ("001.left.png", b"L1"),
            ("001.cls", b"1"),
            ("002.right.png", b"R2"),
        ],
        "both": [
            ("000.cls", b"0"),
            ("000.json", b'{"l": 0}'),
            ("001.json", b'{"l": 1}'),
            ("001.cls", b"1"),
            ("002.json", b'{"l": 2}'),
        ],
        "special": [
            ("000.jpg", b"J0"),
            ("000.lnk", "symlink"),
            ("001.jpg", "hardlink"),
            ("002.fifo", "fifo"),
            ("003.dev", "chardev"),
            ("004.jpg", b"J4"),
        ],
        "typed": [
            ("000.f32", typed["f32"]),
            ("000.i16", typed["i16"]),
            ("000.f64", typed["f64"]),
            ("000.odd", typed["odd"]),
            ("001.f32", typed["f32"][:8]),
            ("001.i16", typed["i16"][:4]),
        ],
        "zero_size": [("000.jpg", b""), ("000.cls", b"0"), ("001.jpg", b"J1"), ("001.cls", b"")],
        "gnu_long": [
            (f"{long_dir}/000.jpg", b"J0"),
            (f"{long_dir}/000.cls", b"0"),
            ("001.jpg", b"J1"),
        ],
        "spaces": [("000.jpg", b"J0"), ("my sample.jpg", b"J1")],
        "only_dirs": [("a/", "dir"), ("a/b/", "dir"), (".hidden", b"x")],
    }
    out: dict[str, Path] = {}
    for name, entries in cases.items():
        out[name] = write_tar(root / f"{name}.tar", entries)
    out["pax"] = write_tar(
        root / "pax.tar",
        [
            (f"{long_dir}/000.jpg", b"J0"),
            (f"{long_dir}/000.cls", b"0"),
            ("001.jpg", b"J1"),
            ("caf\u00e9/002.jpg", b"J2"),
        ],
        format=tarfile.PAX_FORMAT,
    )
    out["ustar"] = write_tar(
        root / "ustar.tar",
        [(f"{'p' * 90}/{'q' * 20}/000.jpg", b"J0"), (f"{'p' * 90}/{'q' * 20}/000.cls", b"0")],
        format=tarfile.USTAR_FORMAT,
    )
    whole = (root / "gnu_long.tar").read_bytes()
    out["truncated_header"] = root / "truncated_header.tar"
    # two long-named members (a @LongLink header, its name block, the header, the data),
    # then the header of 001.jpg at byte 4096: cut inside it
    out["truncated_header"].write_bytes(whole[: 512 * 8 + 100])
    out["truncated_data"] = root / "truncated_data.tar"
    big = write_tar(root / "_big.tar", [("000.jpg", bytes(range(256)) * 8), ("001.jpg", b"J1")])
    out["truncated_data"].write_bytes(big.read_bytes()[: 512 + 1000])
    big.unlink()
    out["not_tar"] = root / "not_tar.tar"
    out["not_tar"].write_bytes(bytes(np.random.default_rng(5).integers(0, 256, 2048, np.uint8)))
    out["empty"] = root / "empty.tar"
    out["empty"].write_bytes(b"")

    # index files
    for name in ("gnu_long", "multi_dot", "case", "typed"):
        idx = root / f"{name}.idx"
        write_index(str(out[name]), str(idx))
        out[f"{name}.idx"] = idx
    v12 = out["multi_dot.idx"].read_text().splitlines()
    count = v12[0].split()[1]
    v11 = [f"v1.1 {count}"]
    for line in v12[1:]:
        t = line.split()
        v11.append(" ".join(" ".join(t[k : k + 3]) for k in range(0, len(t), 4)))
    indices = {
        "multi_dot_v11.idx": "\n".join(v11) + "\n",
        "wrong.idx": out["typed.idx"].read_text(),
        "bad_version.idx": "v9.9 1\njpg 512 2 000.jpg\n",
        "bad_offset.idx": "v1.2 1\njpg 513 2 000.jpg\n",
        "short.idx": "v1.2 3\njpg 512 2 000.jpg\n",
        "bad_field.idx": "v1.2 1\njpg 512 two 000.jpg\n",
    }
    for name, text in indices.items():
        out[name] = root / name
        out[name].write_text(text)
    return out
