"""`fn.noise.gaussian`, `fn.noise.salt_and_pepper`, `fn.noise.shot`: random noise added to data.

Each operator keeps its input's shape, type and layout and perturbs the values:

* **gaussian** adds ``N(mean, stddev)`` to every value and converts back to the input type with
  saturation (integers round halves away from zero), computing in float32 for types of up to
  16 bits and in float64 for wider integers, as DALI does;
* **salt_and_pepper** replaces a value by ``salt_val`` with probability ``prob * salt_vs_pepper``
  and by ``pepper_val`` with probability ``prob * (1 - salt_vs_pepper)``, once per pixel (every
  channel alike, the channel axis being the first or the last one of the layout) or, with
  ``per_channel=True``, for each value on its own;
* **shot** replaces ``x`` by ``factor * Poisson(max(0, x / factor))``: an image sensor counting
  photons, each of which adds ``factor`` to the value.

The random numbers come from the sample's own counter-based stream (`Workspace.rng`), so a
sample is perturbed the same way whatever the batch it is in, the thread count or the device:
the GPU backends draw on the host from the same streams and copy the draws, so CPU and GPU give
the same values. They are not DALI's numbers (its generators are not counter-based); what
agrees is the distribution.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=7)
    ... def pipe():
    ...     img = fn.external_source(lambda: [np.full((64, 64, 3), 100, np.uint8)] * 2,
    ...                              layout="HWC")
    ...     noisy = fn.noise.gaussian(img, stddev=10)
    ...     spotted = fn.noise.salt_and_pepper(img, prob=0.5)
    ...     return noisy, spotted
    >>> noisy, spotted = pipe().run()
    >>> x = noisy.as_array().astype(float)
    >>> bool(abs(x.mean() - 100) < 1), bool(abs(x.std() - 10) < 0.5), noisy.layout()
    (True, True, 'HWC')
    >>> sorted(np.unique(spotted.as_array()).tolist())  # pepper, kept, salt
    [0, 100, 255]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module, convert_sat

if TYPE_CHECKING:
    from dali._exec.rng import SampleRNG
    from dali.author import Workspace

__all__ = ["GaussianNoise", "SaltAndPepperNoise", "ShotNoise", "c_cast", "poisson"]

_TYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32")
_TYPES_TEXT = "uint8, int8, uint16, int16, uint32, int32, uint64, int64, float"
_U24 = np.float32(2.0**-24)
# the sub-streams of a sample's generator (`SampleRNG.bits(stream=)`): one per kind of draw
_NORMAL_STREAM, _UNIFORM_STREAM, _POISSON_STREAM = 11, 12, 13
_PTRS_ROUNDS = 64  # rejection rounds of the Poisson sampler (each accepts > 90 %)


def c_cast(value: float, dtype: np.dtype[Any]) -> Any:
    """``static_cast<T>(float)`` as DALI's x86 build computes it: toward zero, then wrapped to
    the type's width (``300.0`` → uint8 ``44``, ``-3.7`` → ``253``); floats convert as floats.

    Example:
        >>> [int(c_cast(v, np.dtype(np.uint8))) for v in (2.7, 300.0, -3.7)]
        [2, 44, 253]
    """
    if dtype.kind == "f":
        return dtype.type(np.float32(value))
    return np.array(int(np.trunc(np.float32(value))), np.int64).astype(dtype)[()]


def _halves(rng: SampleRNG, n: int, stream: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` values as two float32 arrays of 24-bit integers (the high and low halves of
    ``ceil(n / 2)`` 64-bit draws)."""
    bits = rng.bits((n + 1) // 2, stream=stream)[0]
    hi = (bits >> np.uint64(40)).astype(np.float32)
    lo = ((bits >> np.uint64(8)) & np.uint64(0xFFFFFF)).astype(np.float32)
    return hi, lo


def uniform32(rng: SampleRNG, n: int) -> np.ndarray:
    """``n`` float32 values uniform in [0, 1) with 24 random bits each."""
    hi, lo = _halves(rng, n, _UNIFORM_STREAM)
    out = np.concatenate([hi, lo])[:n]
    out *= _U24
    return out


def standard_normal(rng: SampleRNG, n: int, dtype: Any) -> np.ndarray:
    """``n`` standard normal values: float32 from both outputs of Box–Muller over 24-bit
    uniforms, or float64 (53-bit uniforms, `SampleRNG.normal`)."""
    if np.dtype(dtype) == np.float64:
        out64: np.ndarray = rng.normal(n, stream=_NORMAL_STREAM)[0]
        return out64
    hi, lo = _halves(rng, n, _NORMAL_STREAM)
    u1 = np.float32(1) - hi * _U24  # (0, 1]: a finite logarithm
    r = np.sqrt(np.float32(-2) * np.log(u1))
    theta = lo * np.float32(2 * math.pi * 2.0**-24)
    out = np.empty(2 * len(r), np.float32)
    np.multiply(r, np.cos(theta), out=out[: len(r)])
    np.multiply(r, np.sin(theta), out=out[len(r) :])
    return out[:n]


_LOG_FACTORIAL = np.array([math.lgamma(k + 1) for k in range(256)])


def _log_factorial(k: np.ndarray) -> np.ndarray:
    """``log(k!)`` of non-negative integer-valued floats: a table, Stirling's series above."""
    small = k < 256
    out = np.empty_like(k)
    out[small] = _LOG_FACTORIAL[k[small].astype(np.int64)]
    n = k[~small] + 1.0
    out[~small] = (
        (n - 0.5) * np.log(n) - n + 0.5 * math.log(2 * math.pi) + 1 / (12 * n) - 1 / (360 * n**3)
    )
    return out


def poisson(rng: SampleRNG, lam: np.ndarray) -> np.ndarray:
    """One Poisson draw per value of ``lam`` (float64 counts), from ``rng``'s stream.

    Means below 10 invert the distribution function with one uniform each; larger ones use
    Hörmann's transformed rejection (PTRS), whose rounds draw for the values still pending, in
    order, from one sub-stream per round: the result is a function of the stream and ``lam``.

    Example:
        >>> from dali._exec.rng import SampleRNG, combine
        >>> x = poisson(SampleRNG(combine(1, [0])), np.full(20000, 30.0))
        >>> bool(abs(x.mean() - 30) < 0.3 and abs(x.var() - 30) < 1.5)
        True
    """
    lam = np.asarray(lam, np.float64).reshape(-1)
    k = np.zeros(lam.shape, np.float64)
    small = np.flatnonzero((lam > 0) & (lam < 10))
    if small.size:
        u = rng.uniform(lam.size, stream=_POISSON_STREAM)[0][small]
        ls = lam[small]
        p = np.exp(-ls)
        cdf = p.copy()
        ks = np.zeros_like(ls)
        act = np.flatnonzero(u > cdf)
        while act.size:
            ks[act] += 1
            p[act] *= ls[act] / ks[act]
            cdf[act] += p[act]
            # the tail's terms underflow long before 60 events: stop there whatever the rounding
            act = act[(u[act] > cdf[act]) & (ks[act] < 60)]
        k[small] = ks
    big = np.flatnonzero(lam >= 10)
    if big.size:
        k[big] = _ptrs(rng, lam[big])
    return k


def _ptrs(rng: SampleRNG, lam: np.ndarray) -> np.ndarray:
    slam, loglam = np.sqrt(lam), np.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = np.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2)
    out = np.floor(lam + 0.5)  # never left: every round accepts most of what is pending
    pending = np.arange(lam.size)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for r in range(_PTRS_ROUNDS):
            if not pending.size:
                break
            m = pending.size
            uv = rng.uniform(2 * m, stream=_POISSON_STREAM + 1 + r)[0]
            u, v = uv[:m] - 0.5, uv[m:]
            pa, pb, pl = a[pending], b[pending], lam[pending]
            us = 0.5 - np.abs(u)
            kk = np.floor((2 * pa / us + pb) * u + pl + 0.43)
            ok = (us >= 0.07) & (v <= vr[pending])
            maybe = ~ok & (kk >= 0) & ~((us < 0.013) & (v > us))
            if maybe.any():
                j = np.flatnonzero(maybe)
                lhs = (
                    np.log(v[j]) + log_inv_alpha[pending[j]] - np.log(pa[j] / (us[j] ** 2) + pb[j])
                )
                rhs = -pl[j] + kk[j] * loglam[pending[j]] - _log_factorial(kk[j])
                ok[j] = lhs <= rhs
            out[pending[ok]] = kk[ok]
            pending = pending[~ok]
    return out


class _Noise(Operator):
    """What the three noise operators share: the type check, per-sample draws on the host
    (`draw`) and their application (`apply`), the same code on numpy and CuPy arrays."""

    def check_type(self, tl: Any) -> None:
        if tl.np_dtype.name not in _TYPES:
            raise self.error(
                f"Data type {type_name(tl.np_dtype)} is currently not supported. "
                f"Supported types are : {_TYPES_TEXT}"
            )

    def params(self, ws: Workspace) -> Any:
        """The per-sample arguments, read and checked once per batch."""
        return None

    def draw(self, ws: Workspace, i: int, shape: tuple[int, ...], params: Any) -> Any:
        """Sample ``i``'s random draws (host arrays), from its own stream."""
        raise NotImplementedError

    def apply(self, xp: Any, x: Any, draws: Any, i: Any, params: Any) -> Any:
        """The output of ``x`` given the draws. ``i`` is a sample index, or a slice of the
        batch when ``x`` is the batch as one array (its first axis the samples)."""
        raise NotImplementedError

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self.check_type(tl)
        params = self.params(ws)
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            x = samples[i]
            return self.apply(np, x, self.draw(ws, i, x.shape, params), i, params)

        out = ws.map(one)
        return type(tl).wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        xp, cls = array_module(ws.inputs[0])
        tl = ws.inputs[0]
        self.check_type(tl)
        params = self.params(ws)
        shapes = [tuple(s.shape) for s in tl.samples()]
        draws = ws.map(lambda i: self.draw(ws, i, shapes[i], params))
        dense = tl.dense()
        if dense is not None and len(shapes):  # one copy, one launch for the batch
            out = self.apply(xp, dense, xp.asarray(np.stack(draws)), slice(None), params)
            return cls.wrap(out, tl.layout())
        out = [
            self.apply(xp, x, xp.asarray(d), i, params)
            for i, (x, d) in enumerate(zip(tl.samples(), draws))
        ]
        return cls.wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)


def _per_sample(values: np.ndarray, i: Any, ndim: int) -> Any:
    """Per-sample values for sample ``i``, or, for the whole batch (``i`` a slice), as a
    ``(B, 1, ..., 1)`` array broadcasting over samples of ``ndim`` dimensions."""
    if isinstance(i, slice):
        return values.reshape(-1, *([1] * ndim))
    return values[i]


@register(
    "noise.gaussian",
    devices=("cpu", "gpu"),
    args=[
        Arg("mean", "float", default=0.0, tensor=True, doc="Mean of the distribution."),
        Arg(
            "stddev",
            "float",
            default=1.0,
            tensor=True,
            doc="Standard deviation of the distribution.",
        ),
    ],
    random=True,
)
class GaussianNoise(_Noise):
    """Applies gaussian noise to the input.

    The shape and data type of the output will match the input.
    """

    @staticmethod
    def float_type(dtype: np.dtype[Any]) -> Any:
        """float64 for integers of 32 bits and more (DALI's choice), else float32."""
        return np.float64 if dtype.kind in "iu" and dtype.itemsize >= 4 else np.float32

    def params(self, ws: Workspace) -> Any:
        return ws.arg_scalars("mean", np.float32), ws.arg_scalars("stddev", np.float32)

    def draw(self, ws: Workspace, i: int, shape: tuple[int, ...], params: Any) -> np.ndarray:
        ftype = self.float_type(ws.inputs[0].np_dtype)
        mean, std = params
        z = standard_normal(ws.rng.subset([i]), math.prod(shape), ftype)
        z *= ftype(std[i])
        z += ftype(mean[i])
        return z.reshape(shape)

    def apply(self, xp: Any, x: Any, draws: Any, i: Any, params: Any) -> Any:
        return convert_sat(xp, x.astype(draws.dtype) + draws, x.dtype)


@register(
    "noise.salt_and_pepper",
    devices=("cpu", "gpu"),
    args=[
        Arg(
            "prob",
            "float",
            default=0.05,
            tensor=True,
            doc="Probability of an output value to take a salt or pepper value.",
        ),
        Arg(
            "salt_vs_pepper",
            "float",
            default=0.5,
            tensor=True,
            doc="Probability of a corrupted output value to take a salt value.",
        ),
        Arg(
            "salt_val",
            "float",
            tensor=True,
            doc="Value of salt (default: 1.0 for floats, else the type's maximum).",
        ),
        Arg(
            "pepper_val",
            "float",
            tensor=True,
            doc="Value of pepper (default: -1.0 for floats, else the type's minimum).",
        ),
        Arg(
            "per_channel",
            "bool",
            default=False,
            doc="Draw for every channel on its own (else once per pixel, for all channels).",
        ),
    ],
    random=True,
)
class SaltAndPepperNoise(_Noise):
    """Applies salt-and-pepper noise to the input.

    The shape and data type of the output will match the input. Without ``per_channel``, the
    channel axis ('C', or the last one when the layout is empty) must be the first or the last
    axis: a pixel is kept whole, or all its channels become salt, or pepper.
    """

    def channel_axis(self, tl: Any) -> int | None:
        """The axis a pixel's draw is shared along (None: ``per_channel``)."""
        if self.arg("per_channel"):
            return None
        layout, ndim = tl.layout(), tl.sample_ndim
        axis = ndim - 1 if not layout else layout.find("C")
        if axis != 0 and axis != ndim - 1:
            raise self.error(
                "'C' should be the first or the last dimension in the layout, except for "
                f'empty layouts where channel-last is assumed. Got layout: "{layout}".'
            )
        return axis

    def params(self, ws: Workspace) -> Any:
        dtype = ws.inputs[0].np_dtype
        prob = ws.arg_scalars("prob", np.float32)
        svp = ws.arg_scalars("salt_vs_pepper", np.float32)
        for p in prob:
            if not 0 <= p <= 1:
                raise self.arg_error(
                    "prob", f"Noise probability should be a value within [0.0, 1.0]. Got: {p:g}"
                )
        for p in svp:
            if not 0 <= p <= 1:
                raise self.arg_error(
                    "salt_vs_pepper",
                    f"Salt-vs-pepper probability should be a value within [0.0, 1.0]. Got: {p:g}",
                )
        floating = dtype.kind == "f"
        values = []
        for name, default in (
            ("salt_val", 1.0 if floating else np.iinfo(dtype).max),
            ("pepper_val", -1.0 if floating else np.iinfo(dtype).min),
        ):
            if self.has_arg(name):
                v = np.array([c_cast(s, dtype) for s in ws.arg_scalars(name, np.float32)], dtype)
            else:
                v = np.full(ws.batch_size, default, dtype)
            values.append(v)
        return prob, prob * svp, values[0], values[1], self.channel_axis(ws.inputs[0])

    def draw(self, ws: Workspace, i: int, shape: tuple[int, ...], params: Any) -> np.ndarray:
        """A code per value: 0 kept, 1 pepper, 2 salt (one byte to copy to the GPU)."""
        prob, salt_p, _, _, axis = params
        if axis is not None and len(shape):
            shape = tuple(1 if d == axis else n for d, n in enumerate(shape))
        u = uniform32(ws.rng.subset([i]), math.prod(shape)).reshape(shape)
        return (u < prob[i]).view(np.uint8) + (u < salt_p[i]).view(np.uint8)

    def apply(self, xp: Any, x: Any, draws: Any, i: Any, params: Any) -> Any:
        _, _, salt, pepper, _ = params
        nd = x.ndim - (1 if isinstance(i, slice) else 0)
        s = xp.asarray(_per_sample(salt, i, nd))
        p = xp.asarray(_per_sample(pepper, i, nd))
        return xp.where(draws == 2, s, xp.where(draws == 1, p, x)).astype(x.dtype, copy=False)


@register(
    "noise.shot",
    devices=("cpu", "gpu"),
    args=[Arg("factor", "float", default=20.0, tensor=True, doc="Factor parameter.")],
    random=True,
)
class ShotNoise(_Noise):
    """Applies shot noise to the input.

    The shot noise is generated by applying the following formula::

        output[:] = poisson_dist(max(0, input[:] / factor)) * factor) if factor != 0
        output[:] = input[:]                                          if factor == 0

    where ``poisson_dist`` represents a poisson distribution. Each event increases the output
    value by ``factor``, and the input holds the expected values; the output is quantized to
    multiples of ``factor``. The shape and data type of the output will match the input.
    """

    def params(self, ws: Workspace) -> Any:
        return ws.arg_scalars("factor", np.float32)

    def draw(self, ws: Workspace, i: int, shape: tuple[int, ...], params: Any) -> Any:
        raise NotImplementedError  # the draws depend on the input: see `shot`

    def shot(self, ws: Workspace, x: np.ndarray, i: int, factor: np.float32) -> np.ndarray:
        if factor == 0:  # documented as the identity
            return x.copy()
        lam = np.maximum(np.float32(0), x.astype(np.float32) * (np.float32(1) / factor))
        counts = poisson(ws.rng.subset([i]), lam).astype(np.float32).reshape(x.shape)
        return convert_sat(np, counts * factor, x.dtype)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self.check_type(tl)
        factor = self.params(ws)
        samples = tl.samples()
        out = ws.map(lambda i: self.shot(ws, samples[i], i, factor[i]))
        return type(tl).wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        """The Poisson means are the data: the batch is copied to the host, perturbed there
        from the samples' streams, and copied back (the copy to the host waits for the data:
        it synchronizes the stream)."""
        from dali._ops.transfer import to_gpu

        self.check_type(ws.inputs[0])
        host = ws.inputs[0].as_cpu()  # synchronize!
        return to_gpu(self.run_cpu(ws.with_batch([host], ws.arg_inputs, ws.meta)))
