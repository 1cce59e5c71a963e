"""`fn.decoders.inflate`: tensors from LZ4-compressed bytes (DALI's ``decoders.inflate``).

Each input sample is a 1-D ``uint8`` buffer of LZ4 *block*-format data (no frame header: what
``lz4.block.compress(data, store_size=False)`` and nvCOMP write); the caller says what it
inflates to with ``shape`` and ``dtype`` (default ``UINT8``), which LZ4 does not record. A
sample is either one compressed chunk, inflated to one tensor of ``shape``, or several chunks
back to back (say, the frames of a video compressed one by one), named by ``chunk_offsets``
and/or ``chunk_sizes``: each chunk inflates to a tensor of ``shape`` and the sample to their
stack, of shape ``(number of chunks, *shape)``. With offsets alone a chunk ends where the next
begins (the last at the sample's end); with sizes alone the chunks are packed from the start.
An empty list of chunks gives an empty ``(0, *shape)`` sample.

``shape``, ``chunk_offsets`` and ``chunk_sizes`` are constants or per-sample inputs (a scalar
``shape`` is a 1-D shape; every sample's shape has the same number of extents). ``layout``
names the chunk's dimensions; a sample of chunks gets ``sequence_axis_name`` (``"F"``) in front
of it. A chunk that inflates to fewer bytes than ``shape`` asks for is padded with zeros; one
that inflates to more is cut to the requested size, or, with ``check_output_size=True``, is an
error that says how large it is. A chunk that is not a valid LZ4 block is an error (DALI's
GPU backend leaves its output unspecified).

Backends: DALI 2.4 has only ``device="gpu"`` (nvCOMP's batched LZ4 on the GPU). Here the GPU
backend decompresses on the host and copies the result to the device: the compressed batch
comes to the host first, which waits for the pipeline's stream (a synchronisation), and the
inflated batch goes back with one staged copy. ``device="cpu"`` is an extension of this
library (DALI has no CPU backend): the same decompression, without the copies.

Decompression uses the ``lz4`` package (``pip install "dali-core[inflate]"``: LZ4's own C
decoder) when it is installed, and otherwise a Numba-compiled decoder (`_lz4`, several times
slower); with neither the operator raises an error naming the extra at build. Element types:
``bool``, ``(u)int8..64``, ``float16`` and ``float32`` (DALI's GPU list: no ``float64``).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> frames = [np.full((2, 3), k, np.int16) for k in range(3)]
    >>> chunks = [np.frombuffer(lz4_block(f.tobytes()), np.uint8) for f in frames]
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     data = fn.external_source(lambda: [np.concatenate(chunks)])
    ...     sizes = fn.external_source(lambda: [np.array([len(c) for c in chunks], np.int32)])
    ...     return fn.decoders.inflate(data, device="cpu", shape=[2, 3], dtype=types.INT16,
    ...                                chunk_sizes=sizes, layout="HW")
    >>> out, = pipe().run()
    >>> out.layout(), out.at(0).shape, out.at(0)[:, 0, 0].tolist()
    ('FHW', (3, 2, 3), [0, 1, 2])

    (``lz4_block`` here is a minimal LZ4 writer, literals only; real data comes from
    ``lz4.block.compress(..., store_size=False)`` or nvCOMP.)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.decoders import _lz4
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali._graph.node import OpNode
    from dali.author import Workspace

__all__ = ["Inflate", "lz4_block"]

#: DALI's ``INFLATE_SUPPORTED_TYPES`` (the GPU LZ4 backend's): no float64.
_SUPPORTED = frozenset(
    np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
    )
)

_INPUT = "Input must be a buffer with compressed data/data chunks represented as a 1D tensor"


def lz4_block(data: bytes) -> bytes:
    """``data`` as an LZ4 block of literals only: valid, uncompressed (for examples and tests).

    Example:
        >>> lz4_block(b"abc")
        b'0abc'
    """
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    rest, extra = n - 15, bytearray()
    while rest >= 255:
        extra.append(255)
        rest -= 255
    return bytes([0xF0]) + bytes(extra) + bytes([rest]) + data


class _Plan:
    """One sample's chunks: where each lies in the input and the output's shape."""

    __slots__ = ("chunk_shape", "offsets", "shape", "sizes")

    def __init__(
        self, offsets: list[int], sizes: list[int], chunk_shape: tuple[int, ...], chunks: bool
    ) -> None:
        self.offsets = offsets
        self.sizes = sizes
        self.chunk_shape = chunk_shape
        self.shape = (len(offsets), *chunk_shape) if chunks else chunk_shape


@register(
    "decoders.inflate",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "shape",
            "int_vec",
            default=REQUIRED,
            tensor=True,
            doc="The shape of the output (inflated) chunk.",
        ),
        Arg("dtype", "dtype", default=DALIDataType.UINT8, doc="The output (inflated) type."),
        Arg(
            "chunk_offsets",
            "int_vec",
            tensor=True,
            doc="Where the chunks begin in the input sample (sizes inferred if not given).",
        ),
        Arg(
            "chunk_sizes",
            "int_vec",
            tensor=True,
            doc="The sizes of the input chunks (densely packed if no offsets are given).",
        ),
        Arg("algorithm", "str", default="LZ4", doc='The decompression algorithm: "LZ4".'),
        Arg("layout", "layout", default="", doc="Layout of the output (inflated) chunk."),
        Arg(
            "sequence_axis_name",
            "layout",
            default="F",
            doc="The name of the chunks' axis (with layout, for samples of chunks).",
        ),
        Arg(
            "check_output_size",
            "bool",
            default=False,
            doc="A chunk that inflates to more than the output chunk is an error.",
        ),
    ],
)
class Inflate(Operator):
    """Decompresses the input using the specified decompression algorithm (LZ4 blocks).

    The input is 1-D ``uint8``; ``shape`` and ``dtype`` give what one chunk inflates to. A
    sample of several chunks (``chunk_offsets``/``chunk_sizes``) becomes their stack, with
    ``sequence_axis_name`` in front of ``layout``. DALI 2.4: GPU only; the CPU backend is an
    extension of this library, and the GPU backend decompresses on the host.
    """

    def setup(self) -> None:
        from dali._dtypes import np_dtype, type_name

        algorithm = str(self.arg("algorithm")).lower()
        if algorithm != "lz4":
            raise self.arg_error("algorithm", f'Unknown inflate algorithm "{algorithm}".')
        dtype = self.arg("dtype")
        try:
            out_dtype: np.dtype[Any] | None = np_dtype(dtype)
        except TypeError:
            out_dtype = None
        if out_dtype is None or out_dtype.kind not in "biuf":
            raise self.arg_error(
                "dtype",
                "The inflate output type must have floating point or integral type, got "
                f"`{type_name(dtype)}` instead.",
            )
        self._dtype: np.dtype[Any] = out_dtype
        if self._dtype not in _SUPPORTED:
            raise self.arg_error(
                "dtype",
                "Unsupported output type was specified for GPU inflate LZ4 operator: "
                f"`{type_name(dtype)}`.",
            )
        seq = self.arg("sequence_axis_name")
        if len(seq) != 1:
            raise self.arg_error(
                "sequence_axis_name",
                f'The `sequence_axis_name` must be a single character, got "{seq}".',
            )
        if not _lz4.available():
            raise self.error(
                'decompressing LZ4 needs the lz4 package: pip install "dali-core[inflate]"'
                " (or Numba, which this platform has not)"
            )
        self._chunks = self.has_arg("chunk_offsets") or self.has_arg("chunk_sizes")
        self._check = bool(self.arg("check_output_size"))

    # -- arguments -------------------------------------------------------------------------
    def _chunk_shapes(self, ws: Workspace) -> list[tuple[int, ...]]:
        """Each sample's chunk shape: ``shape`` as DALI reads it (a scalar is one extent)."""
        values = ws.arg_samples("shape", np.int64)
        shapes: list[tuple[int, ...]] = []
        for i, v in enumerate(values):
            if v.ndim > 1:
                raise self.arg_error(
                    "shape",
                    "The shape argument must be a scalar or a 1D tensor, got tensor with "
                    f"{v.ndim} extents.",
                )
            shape = tuple(int(e) for e in v.reshape(-1))
            if shapes and len(shape) != len(shapes[0]):
                raise self.arg_error(
                    "shape",
                    f"every sample's shape must have the same number of extents: sample 0 "
                    f"has {len(shapes[0])}, sample {i} has {len(shape)}",
                )
            if any(e < 0 for e in shape):
                raise self.arg_error(
                    "shape",
                    "Extents of the output shape must be non-negative integers. Please verify "
                    f"the sample of idx {i} passed as the argument `shape`.",
                )
            shapes.append(shape)
        return shapes

    def _chunk_lists(self, ws: Workspace, sizes_in: list[int]) -> list[tuple[list[int], list[int]]]:
        """Each sample's chunks as (offsets, sizes), checked as DALI checks them."""
        if not self._chunks:
            return [([0], [n]) for n in sizes_in]
        has_off, has_size = self.has_arg("chunk_offsets"), self.has_arg("chunk_sizes")
        offs = ws.arg_vectors("chunk_offsets", np.int64) if has_off else None
        sizes = ws.arg_vectors("chunk_sizes", np.int64) if has_size else None
        out = []
        for i, total in enumerate(sizes_in):
            o = [int(x) for x in offs[i]] if offs is not None else None
            s = [int(x) for x in sizes[i]] if sizes is not None else None
            for x in o or ():
                if x < 0:
                    raise self.arg_error(
                        "chunk_offsets",
                        f"Input chunks offsets must be non-negative. Got {x} offset for sample "
                        f"of idx {i}.",
                    )
                if x >= total:
                    raise self.arg_error(
                        "chunk_offsets",
                        "Input chunks offsets cannot point past the last byte. Got chunk offset "
                        f"{x} while the sample size is {total} for sample of idx {i}.",
                    )
            for x in s or ():
                if x <= 0:
                    raise self.arg_error(
                        "chunk_sizes",
                        f"Input chunk size must be positive. Got chunk size {x} for sample of "
                        f"idx {i}.",
                    )
                if x > total:
                    raise self.arg_error(
                        "chunk_sizes",
                        "Input chunk size cannot exceed the sample size. Got chunk of size "
                        f"{x} while the sample size is {total} for sample of idx {i}.",
                    )
            out.append(self._infer(i, total, o, s))
        return out

    def _infer(
        self, i: int, total: int, offs: list[int] | None, sizes: list[int] | None
    ) -> tuple[list[int], list[int]]:
        if offs is not None and sizes is not None:
            if len(offs) != len(sizes):
                raise self.arg_error(
                    "chunk_sizes",
                    "The number of elements passed as `chunk_offsets` and `chunk_sizes` must "
                    f"match for corresponding samples. However for sample of idx {i} there are "
                    f"{len(offs)} offsets and {len(sizes)} sizes.",
                )
            for o, s in zip(offs, sizes):
                if o + s > total:
                    raise self.arg_error(
                        "chunk_sizes",
                        "Input chunk cannot exceed the sample size. However, for a sample of "
                        f"idx {i}, got a chunk that starts at the position {o} and has size {s} "
                        f"while the sample contains only {total} bytes.",
                    )
            return offs, sizes
        if offs is not None:  # each chunk ends where the next begins, the last at the end
            ends = [*offs[1:], total]
            sizes = [e - o for o, e in zip(offs, ends)]
            if any(s <= 0 for s in sizes):
                raise self.arg_error(
                    "chunk_offsets",
                    "If the `chunk_offsets` argument is specified and the `chunk_sizes` is not, "
                    "the offsets must be strictly increasing. The inferred size of a chunk "
                    f"would be non-positive for sample of idx {i}.",
                )
            return offs, sizes
        assert sizes is not None
        offs, at = [], 0
        for s in sizes:  # packed from the start
            offs.append(at)
            at += s
        if at > total:
            raise self.arg_error(
                "chunk_sizes",
                f"The sum of chunk sizes for sample of idx {i} exceeds the total size of the "
                "sample.",
            )
        return offs, sizes

    def _layout(self, ndim: int) -> str:
        layout = self.arg("layout")
        if not layout:
            return ""
        if len(layout) != ndim:
            raise self.arg_error(
                "layout",
                f'The layout "{layout}" has a different number of dimensions ({len(layout)}) '
                f"than the requested output shape ({ndim}).",
            )
        return str(self.arg("sequence_axis_name")) + layout if self._chunks else layout

    def _plan(self, ws: Workspace, tl: Any) -> tuple[list[_Plan], str]:
        from dali._dtypes import type_name

        if tl.np_dtype != np.uint8:
            raise self.error(
                f"{_INPUT} of bytes (uint8). Got tensor of type `{type_name(tl.np_dtype)}` instead."
            )
        if tl.sample_ndim != 1:
            raise self.error(
                f"{_INPUT} of uint8. Got input with {tl.sample_ndim} dimensions instead."
            )
        totals = [int(s[0]) for s in tl.shape()]
        for i, n in enumerate(totals):
            if n == 0:
                raise self.error(
                    f"Input sample cannot be empty, but the sample at index {i} has volume 0."
                )
        chunks = self._chunk_lists(ws, totals)
        shapes = self._chunk_shapes(ws)
        plans = [_Plan(o, s, shape, self._chunks) for (o, s), shape in zip(chunks, shapes)]
        layout = self._layout(len(shapes[0]) if shapes else len(self.arg("layout")))
        return plans, layout

    # -- decompression ---------------------------------------------------------------------
    def _inflate(self, src: np.ndarray, plan: _Plan) -> np.ndarray:
        out = np.empty(plan.shape, self._dtype)
        flat = out.reshape(-1).view(np.uint8)
        step = math.prod(plan.chunk_shape) * self._dtype.itemsize
        for j, (o, s) in enumerate(zip(plan.offsets, plan.sizes)):
            chunk = src[o : o + s]
            dst = flat[j * step : (j + 1) * step]
            status, written = _lz4.decompress_into(chunk, dst)
            if status == _lz4.CORRUPT:
                raise self.error(
                    f"chunk {j} (bytes {o}..{o + s} of the sample) is not a valid LZ4 block: "
                    "corrupt or truncated"
                )
            if status == _lz4.OVERFLOW and self._check:
                raise self.arg_error(
                    "check_output_size",
                    f"Output buffer for inflated chunk {j} has {step} bytes, but the compressed "
                    f"input expands to {_lz4.decompressed_size(chunk)} bytes. Check the `shape` "
                    "and `dtype` arguments.",
                )
            dst[written:] = 0  # a chunk shorter than requested: zeros, as DALI's GPU fills
        return out

    def _run_host(self, ws: Workspace, tl: TensorListCPU) -> TensorListCPU:
        plans, layout = self._plan(ws, tl)
        samples = tl.samples()
        out = ws.map(lambda i: self._inflate(samples[i], plans[i]), len(plans))
        ndim = len(plans[0].shape) if plans else len(self.arg("layout")) + self._chunks
        return TensorListCPU.wrap(out, layout, dtype=self._dtype, ndim=ndim)

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run_host(ws, ws.inputs[0])

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.transfer import to_gpu

        # No nvCOMP here: the compressed bytes come to the host (waiting for the stream),
        # are inflated there, and the batch goes back in one staged copy.
        host = ws.inputs[0].as_cpu()  # synchronize!
        return to_gpu(self._run_host(ws, host))

    @staticmethod
    def static_meta(node: OpNode) -> list[dict[str, Any]]:
        args = node.scalar_args
        chunks = any(n in args or n in node.arg_inputs for n in ("chunk_offsets", "chunk_sizes"))
        meta: dict[str, Any] = {"dtype": args.get("dtype", DALIDataType.UINT8)}
        if "shape" in args:
            meta["ndim"] = len(args["shape"]) + chunks
        layout = args.get("layout", "")
        if layout and chunks:
            layout = args.get("sequence_axis_name", "F") + layout
        meta["layout"] = layout
        return [meta]
