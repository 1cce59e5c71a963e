"""Rows of `operators.py`: `readers.sequence` on folders of extracted video frames.

Eight streams of 32 photo-like 240x320 JPEG frames (quality 90, `dali._testing.images.photo`)
in a temporary folder; each batch is 4 sequences of 8 frames (the feed is a dummy input,
subtracted as for every row). With ``step=8`` the sequences share no frame; with ``step=1``
consecutive sequences share 7 of their 8 frames, which this library reads and decodes once
per batch and DALI once per sequence.

`experimental.readers.fits` has no row: DALI 2.4's CPU FITS reader cannot run without a CUDA
driver (its samples are allocated in pinned host memory), so there is nothing to compare with
on a CPU-only machine.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import numpy as np
from operators import Bench

_B = 4
_ROOT: list[str] = []


def _frames() -> list[list[np.ndarray]]:
    """The frame folders (written once); a dummy input batch."""
    from dali._testing.images import photo
    from PIL import Image

    if not _ROOT:
        root = Path(tempfile.mkdtemp(prefix="dali-bench-seq-"))
        atexit.register(shutil.rmtree, root, True)
        for s in range(8):
            folder = root / f"stream_{s}"
            folder.mkdir()
            for k in range(32):
                pixels = photo(240, 320, np.random.default_rng([s, k]))
                Image.fromarray(pixels).save(folder / f"{k:05d}.jpg", "JPEG", quality=90)
        _ROOT.append(str(root))
    return [[np.zeros(1, np.uint8)] * _B]


def _sequence(fn, types, dummy, **kw):  # type: ignore[no-untyped-def]
    return fn.readers.sequence(file_root=_ROOT[0], sequence_length=8, **kw)


_S = " 4x8 frames 240x320 jpg"
BENCHES = [
    Bench("readers.sequence(step=8)" + _S, lambda fn, t, x: _sequence(fn, t, x, step=8),
          _frames),
    Bench("readers.sequence(step=1)" + _S, lambda fn, t, x: _sequence(fn, t, x, step=1),
          _frames),
    Bench("readers.sequence(step=8, image_type=GRAY)" + _S,
          lambda fn, t, x: _sequence(fn, t, x, step=8, image_type=t.DALIImageType.GRAY),
          _frames),
]  # fmt: skip
