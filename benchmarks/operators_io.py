"""Rows of `operators.py`: io.file.read and decoders.numpy (raw input), each on a batch of
realistic size. (decoders.inflate has no CPU backend in DALI 2.4: no row to compare.)"""

from __future__ import annotations

import atexit
import io
import shutil
import tempfile
from pathlib import Path

import numpy as np
from operators import Bench

_B = 64


def _paths(size: int) -> list[list[np.ndarray]]:
    """64 files of ``size`` random bytes in a temporary folder, named by their UTF-8 paths."""
    root = Path(tempfile.mkdtemp(prefix="dali-bench-io-"))
    atexit.register(shutil.rmtree, root, True)
    rng = np.random.default_rng(1)
    names = []
    for k in range(_B):
        path = root / f"f{k:02d}.bin"
        path.write_bytes(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
        names.append(np.frombuffer(str(path).encode(), np.uint8))
    return [names]


def _npy_blobs() -> list[list[np.ndarray]]:
    """64 ``.npy`` files of 224x224x3 float32 (588 KiB each), as bytes."""
    rng = np.random.default_rng(2)
    blobs = []
    for _ in range(_B):
        buf = io.BytesIO()
        np.save(buf, rng.random((224, 224, 3), dtype=np.float32))
        blobs.append(np.frombuffer(buf.getvalue(), np.uint8))
    return [blobs]


BENCHES = [
    Bench(
        "io.file.read 64 files x 100 KB",
        lambda fn, types, paths: fn.io.file.read(paths),
        lambda: _paths(100_000),
    ),
    Bench(
        "io.file.read(dont_use_mmap) 64 files x 100 KB",
        lambda fn, types, paths: fn.io.file.read(paths, dont_use_mmap=True),
        lambda: _paths(100_000),
    ),
    Bench(
        "decoders.numpy 64x224x224x3 f32",
        lambda fn, types, blobs: fn.decoders.numpy(blobs),
        _npy_blobs,
    ),
    Bench(
        "decoders.numpy(dtype=FLOAT16) 64x224x224x3 f32",
        lambda fn, types, blobs: fn.decoders.numpy(blobs, dtype=types.FLOAT16),
        _npy_blobs,
    ),
]
