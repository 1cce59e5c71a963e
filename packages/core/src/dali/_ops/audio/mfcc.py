"""`fn.mfcc`: mel-frequency cepstral coefficients, the DCT of a (log) mel spectrogram.

The cepstrum describes the shape of a spectrum's envelope: a discrete cosine transform along
the mel axis (``axis``, the outermost by default) keeps its ``n_mfcc`` first coefficients
(all of them when the axis is shorter). The DCT types 1 to 4 are Wikipedia's formulas, not
scaled (``normalize=False``: librosa's/scipy's values divided by 2) or orthonormal (types 2
to 4); with ``lifter`` > 0 coefficient ``i`` is then multiplied by
``1 + (lifter / 2) * sin(pi * (i + 1) / lifter)``.

The cosine tables are built in double and stored as float32, as DALI builds them
(``dali/kernels/signal/dct/table.h``), and the sums of products are DALI's float32 sums in
DALI's order (`dali._ops.signal._linear`; one kernel launch per batch on the GPU), the lifter
applied to them afterwards: the coefficients are DALI's bit for bit (up to the last bit of the
lifter's sine).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> mel = np.ones((4, 3), np.float32)  # a flat spectrum: only coefficient 0
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.mfcc(fn.external_source(lambda: [mel]), n_mfcc=2)
    >>> out, = pipe().run()
    >>> np.round(out.as_array()[0], 5).tolist()
    [[4.0, 4.0, 4.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module, batch_array
from dali._ops.signal._linear import apply_matrix_cpu, apply_matrix_gpu

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["MFCC", "dct_table", "lifter_coefficients"]

_NDIMS = (2, 3, 4)


@functools.lru_cache(maxsize=32)
def dct_table(dct_type: int, n: int, ndct: int, normalize: bool) -> np.ndarray:
    """The ``(ndct, n)`` float32 cosine table of DALI's DCT (``FillCosineTable``), read-only.

    Example:
        >>> np.round(dct_table(2, 2, 2, False).astype(float), 6).tolist()
        [[1.0, 1.0], [0.707107, -0.707107]]
    """
    k = np.arange(ndct, dtype=np.float64)[:, None]
    i = np.arange(n, dtype=np.float64)[None, :]
    if dct_type == 1:  # n > 1, never normalised
        t = np.cos(math.pi / (n - 1) * k * i)
        t[:, 0] = 0.5
        t[:, n - 1] = np.where(np.arange(ndct) % 2 == 0, 0.5, -0.5)
    elif dct_type == 2:
        t = np.cos(math.pi / n * (i + 0.5) * k)
        if normalize:
            t *= np.where(k == 0, 1.0 / math.sqrt(n), math.sqrt(2.0 / n))
    elif dct_type == 3:
        t = np.cos(math.pi / n * i * (k + 0.5))
        if normalize:
            t[:, 1:] *= math.sqrt(2.0 / n)
            t[:, 0] = 1.0 / math.sqrt(n)
        else:
            t[:, 0] = 0.5
    else:
        t = np.cos(math.pi / n * (i + 0.5) * (k + 0.5))
        if normalize:
            t *= math.sqrt(2.0 / n)
    out = t.astype(np.float32)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=32)
def lifter_coefficients(lifter: float, length: int) -> np.ndarray:
    """DALI's liftering factors ``1 + (lifter / 2) * sin(pi / lifter * (i + 1))``, all in
    float32 as ``LifterCoeffs`` computes them (``sinf``: the sine rounded to float32),
    read-only."""
    f = np.float32
    lf = f(lifter)
    ampl = f(lf / f(2))
    phase = f(f(math.pi) / lf)
    out = np.array(
        [f(f(1) + f(ampl * f(math.sin(float(f(phase * f(i + 1))))))) for i in range(length)],
        np.float32,
    )
    out.flags.writeable = False
    return out


@register(
    "mfcc",
    class_name="MFCC",  # DALI's ops.MFCC
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("n_mfcc", "int", default=20, doc="Number of MFCC coefficients."),
        Arg("dct_type", "int", default=2,
            doc="Discrete Cosine Transform type: 1, 2, 3 or 4 (Wikipedia's formulas)."),
        Arg("normalize", "bool", default=False,
            doc="Use an ortho-normal DCT basis (not supported for dct_type=1)."),
        Arg("axis", "int", default=0, doc="Axis over which the transform will be applied."),
        Arg("lifter", "float", default=0.0,
            doc="Cepstral filtering (liftering) coefficient; 0: none."),
    ],
)  # fmt: skip
class MFCC(Operator):
    """Computes Mel Frequency Cepstral Coefficients (MFCC) from
    a mel spectrogram.

    A DCT of type ``dct_type`` (1, 2, 3 or 4, the formulas of
    https://en.wikipedia.org/wiki/Discrete_cosine_transform; ortho-normal with ``normalize``,
    which type 1 does not support) along ``axis`` (default 0, the outer-most dimension) keeps
    ``n_mfcc`` coefficients (at most the axis' extent). If the lifter coefficient is greater
    than 0, the MFCCs are then scaled as::

        MFFC[i] = MFCC[i] * (1 + sin(pi * (i + 1) / lifter)) * (lifter / 2)

    (that is, ``1 + (lifter / 2) * sin(pi * (i + 1) / lifter)``). The input is float32 with 2
    to 4 dimensions; the output keeps its layout.
    """

    def setup(self) -> None:
        ndct = int(self.arg("n_mfcc"))
        if ndct <= 0:
            raise self.arg_error("n_mfcc", "number of MFCCs should be > 0")
        dct_type = int(self.arg("dct_type"))
        if not 1 <= dct_type <= 4:
            raise self.arg_error(
                "dct_type", f"Unsupported DCT type: {dct_type}. Supported types are: 1, 2, 3, 4."
            )
        normalize = bool(self.arg("normalize"))
        if normalize and dct_type == 1:
            raise self.arg_error(
                "normalize", "Ortho-normalization is not supported for DCT type I."
            )
        axis = int(self.arg("axis"))
        if axis < 0:
            raise self.arg_error("axis", "Provided axis cannot be negative.")
        self._ndct, self._type, self._normalize, self._axis = ndct, dct_type, normalize, axis
        self._lifter = float(np.float32(self.arg("lifter")))

    def _check(self, tl: Any) -> None:
        ndim = tl.sample_ndim
        if not self._axis < ndim:
            raise self.arg_error("axis", f"Axis {self._axis} is out of bounds [0,{ndim})")
        if tl.np_dtype != np.float32:
            raise self.error(f"Unsupported data type: {type_name(tl.np_dtype)}")
        if ndim not in _NDIMS:
            raise self.error(f"Unsupported number of dimensions {ndim}")
        if self._type == 1:
            for shape in tl.shape():
                if shape[self._axis] <= 1:
                    raise self.error("DCT type I requires an input length > 1")

    def _table(self, n: int) -> np.ndarray:
        ndct = min(self._ndct, n)
        return dct_table(self._type, n, ndct, self._normalize)

    def _scale(self, ndct: int) -> np.ndarray | None:
        return lifter_coefficients(self._lifter, ndct) if self._lifter != 0 else None

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self._check(tl)
        _, cls = array_module(tl)
        layout = tl.layout()
        if len(tl) == 0:
            return cls.wrap([], layout, dtype=np.float32, ndim=tl.sample_ndim)
        axis = self._axis
        dense = batch_array(tl, np)
        if dense is not None:  # one product for the batch
            table = self._table(dense.shape[axis + 1])
            out = apply_matrix_cpu(dense, table, axis + 1, self._scale(table.shape[0]))
            return cls.wrap(out, layout)
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            x = np.asarray(samples[i])
            table = self._table(x.shape[axis])
            return apply_matrix_cpu(x, table, axis, self._scale(table.shape[0]))

        return cls.wrap(ws.map(one), layout)

    def run_gpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self._check(tl)
        _, cls = array_module(tl)
        layout = tl.layout()
        if len(tl) == 0:
            return cls.wrap([], layout, dtype=np.float32, ndim=tl.sample_ndim)
        lengths = [int(s[self._axis]) for s in tl.shape()]
        # the kernel takes one number of coefficients: group by it (one launch per group)
        groups: dict[int, list[int]] = {}
        for i, n in enumerate(lengths):
            groups.setdefault(min(self._ndct, n), []).append(i)
        if len(groups) > 1:
            return self._run_groups(ws, tl, lengths, groups, layout)
        distinct = sorted(set(lengths))
        pairs = [(t, self._scale(t.shape[0])) for t in (self._table(n) for n in distinct)]
        which = [distinct.index(n) for n in lengths]
        return apply_matrix_gpu(tl, self._axis, pairs, which, layout)

    def _run_groups(
        self, ws: Workspace, tl: Any, lengths: list[int], groups: dict[int, list[int]], layout: str
    ) -> Any:
        """Samples whose axis is shorter than ``n_mfcc`` keep fewer coefficients: one launch
        per number of coefficients, the outputs reassembled in order."""
        from dali._tensors import TensorListGPU

        samples = tl.samples()
        out: list[Any] = [None] * len(samples)
        for ndct, members in groups.items():
            sub = TensorListGPU.wrap([samples[i] for i in members], layout)
            distinct = sorted({lengths[i] for i in members})
            pairs = [(self._table(n), self._scale(ndct)) for n in distinct]
            which = [distinct.index(lengths[i]) for i in members]
            res = apply_matrix_gpu(sub, self._axis, pairs, which, layout)
            for i, s in zip(members, res.samples()):
                out[i] = s
        return TensorListGPU.wrap(out, layout)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, static_shape=None)
