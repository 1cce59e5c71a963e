"""`fn.lookup_table`: map integer values through a dense table.

The table is built once, at build time, from ``keys`` (integers in ``[0, 65535]``) and
``values`` (floats): an array of 65536 entries of the output type, every entry
``default_value`` except ``table[keys[i]] = values[i]`` (a repeated key keeps its *last*
value). ``values`` and ``default_value`` are float32 numbers converted to the output type
with DALI's saturating rules (``1.6`` → INT32 ``2``, ``-2.5`` → ``-3``, ``300`` → UINT8
``255``). Then every element of the input, an integer of any width, is looked up:
``out = table[x]`` for ``0 <= x <= 65535``, ``default_value`` otherwise (negative values
included). The output has the input's shape and layout, so sequences and volumes work
element-wise; BOOL and floating-point inputs are refused.

The table has one extra entry, the default, where every out-of-range value is sent. On the CPU
a compiled loop (Numba, the ``jit`` extra; it releases the GIL) reads each element once, the
batch split over the pipeline's threads; without Numba, numpy gathers. On the GPU the input is
read as unsigned integers and clamped to 65536 (a negative value is huge once unsigned), then
gathered: two operations on CuPy arrays over the batch's flat buffer (one launch each); the
table is uploaded once per device.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.array([1, 4, 1, 0, 100, 2, 3, -1], np.int32)])
    ...     return fn.lookup_table(x, keys=[0, 2, 3, 4, 5, 3],
    ...                            values=[0.2, 0.4, 0.5, 0.6, 0.7, 0.1], default_value=0.99)
    >>> pipe().run()[0].at(0).astype(float).round(2).tolist()
    [0.99, 0.6, 0.99, 0.2, 0.99, 0.4, 0.1, 0.99]
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, dali_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module, convert_sat
from dali._ops.window.extract import output_dtype_arg
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["LookupTable", "build_table"]

#: Keys are in ``[0, MAX_KEY]``; the table has one more entry, the default, at ``MAX_KEY + 1``.
MAX_KEY = 0xFFFF

#: The output types DALI 2.4 builds tables of (numpy names).
_OUT_TYPES = (
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "bool",
)


def build_table(keys: Any, values: Any, default_value: float, dtype: np.dtype[Any]) -> np.ndarray:
    """The ``(MAX_KEY + 2,)`` table of ``dtype``: ``values`` at ``keys``, the default elsewhere
    and in the last entry (where out-of-range inputs are sent).

    Example:
        >>> t = build_table([0, 2, 2], [1.6, 7.0, -2.5], 300.0, np.dtype(np.uint8))
        >>> t[:4].tolist(), t[-1].item(), len(t)
        ([2, 255, 0, 255], 255, 65537)
    """
    f32 = np.empty(MAX_KEY + 2, np.float32)
    f32[:] = np.float32(default_value)
    # numpy's fancy assignment keeps the last value of a repeated key, as DALI's loop does
    f32[np.asarray(keys, np.int64)] = np.asarray(values, np.float32)
    table: np.ndarray = convert_sat(np, f32, dtype)
    return table


def lookup(xp: Any, table: Any, x: Any) -> Any:
    """``table[x]`` for integers ``x`` of any width, out-of-range ones (``< 0`` or
    ``> MAX_KEY``) sent to the table's last entry.

    Example:
        >>> table = build_table([1], [5.0], -1.0, np.dtype(np.float32))
        >>> lookup(np, table, np.array([1, 0, -3, 70000], np.int64)).tolist()
        [5.0, -1.0, -1.0, -1.0]
    """
    kind, size = x.dtype.kind, x.dtype.itemsize
    if kind == "u" and size <= 2:  # every value is a key: a plain gather (fastest on a slice)
        return table[: 1 << (8 * size)][x]
    if kind == "i" and size < 4:
        x = x.astype(np.int32)  # negative values must not wrap to small unsigned ones
        size = 4
    index = xp.minimum(x.view(f"u{size}"), np.dtype(f"u{size}").type(MAX_KEY + 1))
    return xp.take(table, index)


@functools.cache
def _kernel() -> Any:
    """The compiled lookup loop (Numba, the ``jit`` extra; it releases the GIL), or None."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def lut(src: np.ndarray, table: np.ndarray, dst: np.ndarray) -> None:  # pragma: no cover
        last = table.size - 1
        for i in range(src.size):
            k = src[i]
            dst[i] = table[k] if k >= 0 and k < last else table[last]

    return lut


def _lookup_host(table: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = lookup(np, table, x)`` (``x`` and ``out`` C-contiguous, same shape)."""
    kernel = _kernel()
    if kernel is None:
        out[...] = lookup(np, table, x)
    elif table.dtype == np.float16:  # Numba has no float16: copy the values as their bits
        kernel(x.reshape(-1), table.view(np.uint16), out.reshape(-1).view(np.uint16))
    else:
        kernel(x.reshape(-1), table, out.reshape(-1))


@register(
    "lookup_table",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("keys", "int_vec", default=(), doc="Input values (keys), in [0, 65535]."),
        Arg("values", "float_vec", default=(), doc="The value of each key."),
        Arg("default_value", "float", default=0.0, doc="The value of every other input."),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="Output data type."),
        Arg("output_dtype", "dtype", doc="Deprecated alias of `dtype`."),
    ],
)
class LookupTable(Operator):
    """Maps integer inputs through the table given by ``keys`` and ``values``:
    ``out[i] = values[keys.index(in[i])]``, or ``default_value`` for any other input."""

    def setup(self) -> None:
        dtype = output_dtype_arg(self, _OUT_TYPES)
        self.out_dtype: np.dtype[Any] = np.dtype(np.float32) if dtype is None else dtype
        keys = [int(k) for k in self.arg("keys")]
        values = [float(v) for v in self.arg("values")]
        if keys and (min(keys) < 0 or max(keys) > MAX_KEY):
            raise self.arg_error("keys", f"`keys` should be in the range [0, {MAX_KEY}]")
        if len(keys) != len(values):
            raise self.arg_error(
                "values",
                f"`keys` size should match `values` size (got {len(keys)} keys and "
                f"{len(values)} values)",
            )
        self.table = build_table(keys, values, self.arg("default_value"), self.out_dtype)
        self._gpu_tables: dict[int, Any] = {}

    def _check_input(self, dtype: np.dtype[Any]) -> None:
        if dtype.kind not in "iu":
            raise self.error(
                f"Unsupported input type: {type_name(dtype)}; the input must be of an integer "
                "type (INT8..INT64, UINT8..UINT64)"
            )

    def _table(self, xp: Any) -> Any:
        if xp is np:
            return self.table
        from dali._ops.gpu import kernels as g

        device = g.device_id()
        table = self._gpu_tables.get(device)
        if table is None:
            table = self._gpu_tables[device] = xp.asarray(self.table)
        return table

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self._check_input(tl.np_dtype)
        dense = tl.held_dense
        if dense is not None and dense.flags.c_contiguous:
            # the batch in one buffer: one chunk of it per thread
            out = np.empty(dense.shape, self.out_dtype)
            src, dst = dense.reshape(-1), out.reshape(-1)
            bounds = np.linspace(0, src.size, ws.num_threads + 1).astype(np.int64)
            ws.map(
                lambda k: _lookup_host(
                    self.table, src[bounds[k] : bounds[k + 1]], dst[bounds[k] : bounds[k + 1]]
                ),
                ws.num_threads,
            )
            return TensorListCPU.wrap(out, tl.layout())
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            s = np.ascontiguousarray(samples[i])
            out = np.empty(s.shape, self.out_dtype)
            _lookup_host(self.table, s, out)
            return out

        return TensorListCPU.wrap(
            ws.map(one), tl.layout(), dtype=self.out_dtype, ndim=tl.sample_ndim
        )

    def run_gpu(self, ws: Workspace) -> Any:
        """The same gather on CuPy arrays: one for the batch (dense or flat), else per sample."""
        tl = ws.inputs[0]
        self._check_input(tl.np_dtype)
        xp, tl_cls = array_module(tl)
        table = self._table(xp)
        dense = tl.dense()
        if dense is not None:
            return tl_cls.wrap(lookup(xp, table, dense), tl.layout())
        flat = tl.flat()
        if flat is not None:
            buf, shapes = flat
            return tl_cls.wrap_flat(lookup(xp, table, buf), shapes, tl.layout(), tl.sample_ndim)
        out = [lookup(xp, table, s) for s in tl.samples()]
        return tl_cls.wrap(out, tl.layout(), dtype=self.out_dtype, ndim=tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        dtype = node.scalar_args.get("dtype") or node.scalar_args.get("output_dtype") or "FLOAT"
        try:
            return like_input(node, dtype=dali_dtype(dtype))
        except (TypeError, ValueError, KeyError):
            return like_input(node, dtype=None)
