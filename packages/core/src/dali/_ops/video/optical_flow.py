"""`fn.optical_flow`: dense motion between consecutive frames of each input sequence.

DALI 2.4 runs this operator only on the GPU, through NVIDIA's optical-flow hardware (NVOF,
``libnvidia-opticalflow``), which no pip-installable binding reaches. This implementation keeps
DALI's interface and output format and brings its OWN estimator, coarse-to-fine pyramidal block
matching with integer SSD search and parabolic sub-pixel refinement (`dali._ops.video._flow`
explains it), run by the same integer arithmetic on the CPU (numpy) and on the GPU (CuPy
kernels, `_flow_gpu`): both backends give EQUAL flows. The values are NOT NVOF's: expect the
same format and similar accuracy on textured motion, not the same numbers.

The interface, as DALI's:

* input 0: per sample a sequence ``(F, H, W, C)`` uint8, ``F >= 2``, ``C`` in 1, 3, 4,
  colour space `image_type` (RGB, BGR, GRAY);
* input 1 (only read with ``enable_external_hints=True``, which requires it): per sample hint
  flows, float32 ``(F - 1, ceil(H / hint_grid), ceil(W / hint_grid), 2)`` in pixels, one per
  frame pair (DALI's ``F`` fields are accepted too: then field ``i`` hints pair ``(i - 1, i)``
  and field 0 is unused, as DALI indexes them);
* output: per sample ``F - 1`` flow fields, float32 ``(F - 1, ceil(H / output_grid),
  ceil(W / output_grid), 2)``, ``(dx, dy)`` in pixels of the input frames (DALI's convention:
  divide by ``output_grid`` for vectors in output cells), multiples of 1/32 pixel (NVOF's S10.5
  fixed point); the layout is the input's (``"FHWC"`` when the input has none).

``enable_temporal_hints`` makes each pair's flow a starting candidate for the next pair; hints
help with motion beyond the pyramid's reach (`_flow`). ``preset`` 0 (best) to 1 (fastest) picks
a larger or smaller window and search.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> rng = np.random.default_rng(0)
    >>> tex = rng.integers(0, 256, (72, 88, 3), dtype=np.uint8)
    >>> seq = np.stack([tex[4:68, 4:84], tex[6:70, 1:81]])  # content moves by (+3, -2)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     frames = fn.external_source(lambda: [seq], layout="FHWC")
    ...     return fn.optical_flow(frames, output_grid=4)
    >>> (flow,) = pipe().run()
    >>> out = flow.at(0)
    >>> out.shape, flow.layout(), np.median(out[0, 2:-2, 2:-2], axis=(0, 1)).tolist()
    ((1, 16, 20, 2), 'FHWC', [3.0, -2.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.video._flow import cell_grid, flow_sequence, preset_for
from dali.types import DALIDataType, DALIImageType

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["HINT_GRIDS", "OUTPUT_GRIDS", "OpticalFlow"]

#: Output grids NVOF offers on Ampere and later (Turing: 4 only).
OUTPUT_GRIDS = (1, 2, 4)
#: Hint grids NVOF offers on Ampere and later.
HINT_GRIDS = (1, 2, 4, 8)


@register(
    "optical_flow",
    devices=("cpu", "gpu"),
    inputs=(1, 2),
    input_names=("input", "hints"),
    args=[
        Arg(
            "preset",
            "float",
            default=0.0,
            doc="Speed/quality: 0.0 best quality, 0.5 medium, 1.0 fastest.",
        ),
        Arg("output_grid", "int", default=4, doc="Pixels per output vector side: 1, 2 or 4."),
        Arg("hint_grid", "int", default=4, doc="Pixels per hint vector side: 1, 2, 4 or 8."),
        Arg(
            "enable_temporal_hints",
            "bool",
            default=False,
            doc="Start each frame pair from the previous pair's flow too.",
        ),
        Arg(
            "enable_external_hints",
            "bool",
            default=False,
            doc="Read hint flows from the second input (required then).",
        ),
        Arg("image_type", "image_type", default=DALIImageType.RGB, doc="RGB, BGR or GRAY."),
        Arg("output_format", "int", default=-1, doc="Unused (DALI's legacy argument)."),
    ],
)
class OpticalFlow(Operator):
    """Dense optical flow between consecutive frames of each sequence (FHWC uint8).

    Our pyramidal block-matching estimator, not NVIDIA's hardware (module docstring): equal
    results on CPU and GPU, DALI's argument and output format. On the GPU one kernel launch per
    pyramid level covers the whole batch (per level and pair index with temporal hints).
    """

    def setup(self) -> None:
        grid = int(self.arg("output_grid"))
        if grid not in OUTPUT_GRIDS:
            raise self.arg_error(
                "output_grid",
                f"Output grid size: {grid} is not supported, supported are: "
                + ", ".join(map(str, OUTPUT_GRIDS)),
            )
        hint_grid = int(self.arg("hint_grid"))
        if hint_grid not in HINT_GRIDS:
            raise self.arg_error(
                "hint_grid",
                f"Hint grid size: {hint_grid} is not supported, supported are: "
                + ", ".join(map(str, HINT_GRIDS)),
            )
        preset = float(self.arg("preset"))
        if not 0.0 <= preset <= 1.0:
            raise self.arg_error("preset", f"must be between 0.0 and 1.0, got {preset}")
        image_type = int(self.arg("image_type"))
        if image_type not in (DALIImageType.RGB, DALIImageType.BGR, DALIImageType.GRAY):
            raise self.arg_error(
                "image_type", f"{DALIImageType(image_type).name} is not supported (RGB, BGR, GRAY)"
            )
        if self.arg("enable_external_hints") and len(self.node.inputs) != 2:
            raise self.arg_error(
                "enable_external_hints",
                f"Incorrect number of inputs. Expected: 2, Obtained: {len(self.node.inputs)}",
            )

    # -- validation shared by both backends ------------------------------------------------
    def _check_frames(self, tl: Any) -> list[tuple[int, ...]]:
        if tl.sample_ndim != 4:
            raise self.error(
                "Input for Optical Flow must be a sequence of frames: expected (F, H, W, C) "
                f"samples, got {tl.sample_ndim} dimensions"
            )
        if np.dtype(tl.np_dtype) != np.uint8:
            raise self.error(f"the frames must be uint8, got {np.dtype(tl.np_dtype)}")
        shapes = [tuple(int(v) for v in s) for s in tl.shape()]
        for i, (f, h, w, c) in enumerate(shapes):
            if f < 2:
                what = "One-frame sequence" if f == 1 else "Empty sequence"
                raise self.error(
                    f"sample {i}: {what} encountered. Make sure that all input sequences for "
                    "Optical Flow have at least 2 frames."
                )
            if c not in (1, 3, 4):
                raise self.error(f"sample {i}: frames must have 1, 3 or 4 channels, got {c}")
            if h < 1 or w < 1:
                raise self.error(f"sample {i}: empty frames ({h}x{w})")
        return shapes

    def _hint_slices(self, hints_tl: Any, shapes: list[tuple[int, ...]]) -> list[slice]:
        """Which hint fields serve the pairs of each sample (validates the hints' shapes)."""
        g = int(self.arg("hint_grid"))
        if len(hints_tl) != len(shapes):
            raise self.error(
                f"Number of input sequences and hints must match: {len(shapes)} sequences, "
                f"{len(hints_tl)} hints"
            )
        if np.dtype(hints_tl.np_dtype) != np.float32:
            raise self.error(f"input `hints`: must be float32, got {np.dtype(hints_tl.np_dtype)}")
        out = []
        for i, (hs, (f, h, w, _)) in enumerate(zip(hints_tl.shape(), shapes)):
            want = (*cell_grid(h, w, g), 2)
            hs = tuple(int(v) for v in hs)
            if len(hs) != 4 or hs[1:] != want or hs[0] not in (f - 1, f):
                raise self.error(
                    f"input `hints`, sample {i}: expected ({f - 1} or {f}, {want[0]}, "
                    f"{want[1]}, 2) for {f} frames of {h}x{w} with hint_grid={g}, got {hs}"
                )
            out.append(slice(1, f) if hs[0] == f else slice(0, f - 1))
        return out

    def _layout(self, tl: Any) -> str:
        return tl.layout() or "FHWC"

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        tl = ws.inputs[0]
        shapes = self._check_frames(tl)
        grid = int(self.arg("output_grid"))
        hint_grid = int(self.arg("hint_grid"))
        temporal = bool(self.arg("enable_temporal_hints"))
        image_type = int(self.arg("image_type"))
        preset = float(self.arg("preset"))
        hints = None
        if self.arg("enable_external_hints"):
            slices = self._hint_slices(ws.inputs[1], shapes)
            hints = [np.asarray(s)[sl] for s, sl in zip(ws.inputs[1].samples(), slices)]
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            return flow_sequence(
                np.asarray(samples[i]),
                grid=grid,
                image_type=image_type,
                preset=preset,
                temporal_hints=temporal,
                hints=None if hints is None else hints[i],
                hint_grid=hint_grid,
            )

        results = ws.map(one)
        return TensorListCPU.wrap(results, self._layout(tl))

    def run_gpu(self, ws: Workspace) -> Any:
        """All sequences in one set of launches (`_flow_gpu`). Nothing waits for the GPU; hints
        given on the CPU are copied to the device first."""
        from dali._ops.video._flow_gpu import flow_batch_gpu

        tl = ws.inputs[0]
        shapes = self._check_frames(tl)
        hints = None
        if self.arg("enable_external_hints"):
            hints_tl = ws.inputs[1]
            slices = self._hint_slices(hints_tl, shapes)
            if type(hints_tl).__name__ == "TensorListCPU":
                import cupy

                hints = [
                    cupy.asarray(np.asarray(s)[sl]) for s, sl in zip(hints_tl.samples(), slices)
                ]
            else:
                hints = [s[sl] for s, sl in zip(hints_tl.samples(), slices)]
        return flow_batch_gpu(
            tl,
            grid=int(self.arg("output_grid")),
            image_type=int(self.arg("image_type")),
            preset=preset_for(float(self.arg("preset"))),
            temporal_hints=bool(self.arg("enable_temporal_hints")),
            hints=hints,
            hint_grid=int(self.arg("hint_grid")),
            layout=self._layout(tl),
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        return [{"dtype": DALIDataType.FLOAT, "ndim": 4, "layout": src.layout or "FHWC"}]
