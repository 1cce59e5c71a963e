"""Conformance cases of `fn.dump_image` against real DALI 2.4 (see README.md).

Each library runs the same pipeline in a fresh temporary directory (`fn.dump_image` writes to
the current one) through a `Case.driver`: the outputs (the input passed on) are compared as
usual, and the files written, by name and text, are the driver's facts, compared exactly:
``P3`` / ``P2`` plain-text images named ``<sample>-<suffix>-0.ppm``. The errors (not 3-D, not 1
or 3 channels, a layout other than ``HWC``) must be raised by both.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from cases import Case, Ext, add, op

_RNG = np.random.default_rng(31)
_IMAGES = [
    _RNG.integers(0, 256, (5, 7, 3)).astype(np.uint8),
    _RNG.integers(0, 256, (2, 9, 3)).astype(np.uint8),
    np.zeros((1, 1, 3), np.uint8),
]
_GRAY = [_RNG.integers(0, 256, (4, 3, 1)).astype(np.uint8), np.full((1, 2, 1), 255, np.uint8)]


def _driver(
    images: list[np.ndarray], suffix: str | None, iters: int = 2
) -> Callable[[Any, Callable[[Any], None]], dict[str, Any]]:
    def driver(lib: Any, keep: Callable[[Any], None]) -> dict[str, Any]:
        old = os.getcwd()
        with tempfile.TemporaryDirectory() as folder:
            os.chdir(folder)
            try:

                @lib.pipeline_def(
                    batch_size=len(images), num_threads=1, device_id=None, exec_pipelined=False
                )
                def pipe() -> Any:
                    x = lib.fn.external_source(source=lambda: images, batch=True, layout="HWC")
                    kw = {} if suffix is None else {"suffix": suffix}
                    return lib.fn.dump_image(x, **kw)

                p = pipe()
                p.build()
                for _ in range(iters):
                    keep(p.run())
                del p
                return {f.name: f.read_text() for f in sorted(Path(folder).iterdir())}
            finally:
                os.chdir(old)

    return driver


add(Case("dump_image(RGB; suffix=conf)", None, driver=_driver(_IMAGES, "conf")))
add(Case("dump_image(gray)", None, driver=_driver(_GRAY, None)))

_ERR = {"expect_error": True}
add(op("dump_image", [Ext(lambda c: [[np.zeros((2, 3), np.uint8)]], label="2-D")], **_ERR))
add(op("dump_image", [Ext(lambda c: [[np.zeros((2, 3, 4), np.uint8)]], label="4ch")], **_ERR))
add(
    op(
        "dump_image",
        [Ext(lambda c: [[np.zeros((2, 3, 3), np.uint8)]], label="img")],
        {"input_layout": "CHW"},
        **_ERR,
    )
)
