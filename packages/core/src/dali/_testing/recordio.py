"""Deterministic MXNet RecordIO files (``.rec`` with ``.idx`` index files), written without MXNet.

The records are packed and framed byte for byte as MXNet writes them: ``mx.recordio.pack``
(the 24-byte ``IRHeader`` ``flag, label, id, id2``, then the float32 labels of a multi-label
record, then the image; `dali._ops.readers.recordio.format.pack`) and dmlc-core's
``RecordIOWriter`` (the magic number ``0xced7230a``, the ``lrec`` word with its continuation
flag, a payload cut into parts wherever it holds the magic number at an aligned position, and
zero padding to 4 bytes; `dali._ops.readers.recordio.format.frame`). The index files are
``MXIndexedRecordIO``'s: one ``key<TAB>offset`` line per record.

* `pack_img`: an image record of a numpy image, encoded with OpenCV (``mx.recordio.pack_img``).
* `write_recordio`: any records (payloads, or ``(header, image bytes)`` pairs) into one file,
  with its index.
* `magic_payload`: image bytes that hold the magic number at aligned places, so that the
  record is written in several parts (the case readers most often get wrong).
* `make_imagenet_recordio`: an ImageNet-style set as ``im2rec.py`` writes it (label ``i %
  classes``, ``id = i``), in several ``.rec`` files with one index of offsets into the files
  concatenated (what DALI's ``index_path`` takes for several files) and an index per file;
  optionally multi-label and multi-part records. Small images for tests, ImageNet-sized ones
  for benchmarks. `imagenet_label` and `imagenet_image` give record ``i``'s content for checks.

Example:
    >>> import tempfile, os
    >>> from dali._ops.readers.recordio.format import IRHeader
    >>> path = os.path.join(tempfile.mkdtemp(), "small.rec")
    >>> write_recordio(path, [(IRHeader(0, 1.0, 0, 0), b"ab"), (IRHeader(0, [2, 3], 1, 0), b"")])
    [0, 36]
    >>> open(os.path.splitext(path)[0] + ".idx").read().splitlines()
    ['0\\t0', '1\\t36']
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dali._ops.readers.recordio.format import MAGIC, IRHeader, frame, pack
from dali._ops.readers.recordio.index import format_index

__all__ = [
    "imagenet_image",
    "imagenet_label",
    "magic_payload",
    "make_imagenet_recordio",
    "pack_img",
    "write_recordio",
]

#: Bump when the generated content changes, so cached sets are rewritten.
_GENERATOR_VERSION = 1


def pack_img(
    header: IRHeader | tuple[Any, ...], img: np.ndarray, quality: int = 95, img_fmt: str = ".jpg"
) -> bytes:
    """An image record's payload: ``img`` (HWC, BGR as OpenCV takes it) encoded with OpenCV.

    MXNet's ``mx.recordio.pack_img``: ``quality`` is the JPEG quality for ``.jpg``/``.jpeg``,
    the PNG compression level for ``.png``.
    """
    import cv2

    params: list[int] = []
    if img_fmt.upper() in (".JPG", ".JPEG"):
        params = [cv2.IMWRITE_JPEG_QUALITY, quality]
    elif img_fmt.upper() == ".PNG":
        params = [cv2.IMWRITE_PNG_COMPRESSION, quality]
    ok, buf = cv2.imencode(img_fmt, img, params)
    if not ok:
        raise ValueError(f"OpenCV cannot encode the image as {img_fmt}")
    return pack(IRHeader(*header), buf.tobytes())


def write_recordio(
    path: str | os.PathLike[str],
    records: Iterable[bytes | tuple[IRHeader | tuple[Any, ...], bytes]],
    *,
    index_path: str | os.PathLike[str] | None = None,
    index: bool = True,
    keys: Sequence[int] | None = None,
) -> list[int]:
    """Write a RecordIO file of ``records`` and, with ``index``, its index file.

    Args:
        path: The ``.rec`` file to write.
        records: Payloads (bytes, written as they are) or ``(header, image bytes)`` pairs
            (packed with `pack`).
        index_path: Where the index goes (default: ``path`` with the extension ``.idx``, as
            ``im2rec.py`` names it).
        index: Write the index file.
        keys: The index's keys (default: 0, 1, 2...).

    Returns:
        Each record's offset, as the index lists them.
    """
    offsets: list[int] = []
    offset = 0
    with open(path, "wb") as f:
        for record in records:
            payload = record if isinstance(record, bytes) else pack(IRHeader(*record[0]), record[1])
            data = frame(payload)
            f.write(data)
            offsets.append(offset)
            offset += len(data)
    if index:
        idx = Path(index_path) if index_path is not None else Path(path).with_suffix(".idx")
        idx.write_text(format_index(offsets, keys))
    return offsets


def magic_payload(data: bytes, every: int = 16) -> bytes:
    """``data`` with the magic number written at every ``every``-th aligned word (from the
    first), so that the record's payload is framed in several parts.

    The result is ``data``'s length rounded up to 4 bytes, plus the magic numbers: a record
    holding it right after an ``IRHeader`` (24 bytes, aligned) and no labels keeps them
    aligned.
    """
    data = data + b"\0" * (-len(data) % 4)
    magic = MAGIC.to_bytes(4, "little")
    words = [data[i : i + 4] for i in range(0, len(data), 4)]
    out = []
    for k, w in enumerate(words):
        if k % every == 0:
            out.append(magic)
        out.append(w)
    out.append(magic)  # and at the very end: an empty last part
    return b"".join(out)


# -- an ImageNet-style set --------------------------------------------------------------------


def imagenet_label(i: int, *, classes: int = 10, multi_label: bool = False) -> list[float]:
    """Record ``i``'s labels: ``[i % classes]``; with ``multi_label``, every third record has
    ``1 + i % 4`` labels (``k, k + 0.5, ...``) written after its header (``flag`` > 0)."""
    k = float(i % classes)
    if multi_label and i % 3 == 1:
        return [k + 0.5 * j for j in range(1 + i % 4)]
    return [k]


def imagenet_image(i: int, *, seed: int = 0, multi_part: bool = False) -> bytes:
    """Record ``i``'s image bytes in the small set: a 16-47 px JPEG (the one of
    `dali._testing.tfrecords.imagenet_record`); with ``multi_part``, every fourth one holds
    the magic number (`magic_payload`: the record is written in several parts)."""
    from dali._testing.tfrecords import imagenet_record

    data: bytes = imagenet_record(i, seed=seed)["image/encoded"]
    if multi_part and i % 4 == 2:
        return magic_payload(data, every=8 + i % 8)
    return data


def _payload(i: int, image: bytes, classes: int, multi_label: bool) -> bytes:
    labels = imagenet_label(i, classes=classes, multi_label=multi_label)
    label: float | list[float] = labels if multi_label and i % 3 == 1 else labels[0]
    return pack(IRHeader(0, label, i, 0), image)


def make_imagenet_recordio(
    root: str | os.PathLike[str],
    n: int = 32,
    files: int = 1,
    *,
    seed: int = 0,
    classes: int = 10,
    multi_label: bool = False,
    multi_part: bool = False,
    imagenet_size: bool = False,
    processes: int | None = None,
) -> tuple[list[Path], Path]:
    """Write ``n`` ImageNet-style records in ``files`` RecordIO files, with their index files.

    Files are ``<root>/train-<j>.rec`` (the records in order, split into near-equal contiguous
    parts, the larger ones first), each with its own index ``<root>/train-<j>.idx``, and
    ``<root>/train.idx``: one index of them all, offsets counted in the files concatenated
    (DALI's ``index_path`` for several files; for one file, the same as ``train-0.idx``).
    Record ``i`` has the header ``IRHeader(0, i % classes, i, 0)`` (`imagenet_label`) and the
    image `imagenet_image` (or, with ``imagenet_size``, the ``i``-th JPEG of
    `dali._testing.images.make_imagenet_like` under ``<root>/jpeg``). A manifest records the
    parameters; calling again with the same ones returns at once.

    Args:
        root: The folder to fill.
        n: Number of records.
        files: Number of ``.rec`` files.
        seed: Seed of the content.
        classes: Number of classes.
        multi_label: Every third record has several labels (`imagenet_label`).
        multi_part: Every fourth image holds the magic number (`imagenet_image`).
        imagenet_size: ImageNet-sized JPEGs (300-500 px), for benchmarks.
        processes: Worker processes for the ImageNet-sized JPEGs.

    Returns:
        ``(.rec paths, the index of them all)``.
    """
    if not 1 <= files <= n:
        raise ValueError(f"need 1 <= files <= n, got files={files}, n={n}")
    root = Path(root)
    paths = [root / f"train-{j}.rec" for j in range(files)]
    index = root / "train.idx"
    manifest = root / "manifest.json"
    params = {
        "n": n,
        "files": files,
        "seed": seed,
        "classes": classes,
        "multi_label": multi_label,
        "multi_part": multi_part,
        "imagenet_size": imagenet_size,
        "version": _GENERATOR_VERSION,
    }
    cached = manifest.exists() and json.loads(manifest.read_text()) == params
    if cached and index.exists() and all(p.exists() for p in paths):
        return paths, index
    root.mkdir(parents=True, exist_ok=True)
    jpegs: list[Path] | None = None
    if imagenet_size:
        from dali._testing.images import make_imagenet_like

        jpegs = make_imagenet_like(root / "jpeg", n, seed, classes=classes, processes=processes)

    def image(i: int) -> bytes:
        if jpegs is None:
            return imagenet_image(i, seed=seed, multi_part=multi_part)
        return jpegs[i].read_bytes()

    lines: list[str] = []
    base = 0
    for j, path in enumerate(paths):
        lo, hi = -(-j * n // files), -(-(j + 1) * n // files)
        payloads = (_payload(i, image(i), classes, multi_label) for i in range(lo, hi))
        offsets = write_recordio(path, payloads, keys=list(range(lo, hi)))
        lines.append(format_index([base + o for o in offsets], list(range(lo, hi))))
        base += path.stat().st_size
    index.write_text("".join(lines))
    manifest.write_text(json.dumps(params))
    return paths, index
