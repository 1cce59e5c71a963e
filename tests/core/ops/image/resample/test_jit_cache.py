"""The Numba kernels (the `jit` extra) load from the on-disk cache in a later process.

A compiled function whose closure held another compiled function was keyed with that
dispatcher's per-process pickle, so every process recompiled (0.8 s before its first resized
image) and grew the cache files; these tests run the kernels in two fresh processes sharing one
``NUMBA_CACHE_DIR`` and require the second to compile nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

_SCRIPT = r"""
import json
import numpy as np
from dali._ops.image import _cmn_jit
from dali._ops.image.resample import jit, jit_kernels as K
from dali._ops.image.resample import reference as R

img = np.random.default_rng(0).integers(0, 256, (60, 50, 3), dtype=np.uint8)
plans = [R.AxisPlan.make(60, 24, 0.0, 60.0), R.AxisPlan.make(50, 24, 0.0, 50.0)]
jit.resample_2d(img, 0, plans, np.uint8)
jit.resample_2d(img, 0, plans, np.float32)
lut = np.zeros((3, 256), np.float32)
_cmn_jit.normalize(img, lut, True, np.empty((3, 60, 50), np.float32), chw=True)
_cmn_jit.normalize(img, lut, False, np.empty((60, 50, 3), np.float32), chw=False)
cmn_chw, cmn_hwc = _cmn_jit._kernels()
kernels = [K.rows_float, K.rows_int, cmn_chw, cmn_hwc]
print(json.dumps({
    "misses": sum(sum(k.stats.cache_misses.values()) for k in kernels),
    "hits": sum(sum(k.stats.cache_hits.values()) for k in kernels),
}))
"""


def _run(cache_dir) -> dict[str, int]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_loads_every_kernel_from_the_cache(tmp_path):
    first = _run(tmp_path)
    assert first["misses"] >= 4  # compiled and stored
    second = _run(tmp_path)
    assert second == {"misses": 0, "hits": first["misses"]}
