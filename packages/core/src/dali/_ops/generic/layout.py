"""`fn.transpose`, `fn.reshape` and `fn.pad`: shape and layout operators.

* **transpose** permutes the dimensions by ``perm`` (a copy, C-contiguous); the layout is
  permuted too (``transpose_layout=True``), copied as is (``False``) or set (``output_layout``).
* **reshape** gives the data a new shape without copying: ``shape`` (one extent may be ``-1``,
  the "wildcard" that takes what is left of the volume), ``rel_shape`` (multiples of the input
  extents, optionally of ``src_dims``), ``src_dims`` alone (reorder, drop or insert (``-1``)
  unit dimensions), or a second input holding the shapes. The volume must not change. The layout
  is kept when the number of dimensions is, cleared otherwise, unless ``layout`` is given.
* **pad** extends samples at the end of the chosen ``axes`` (default: all) with ``fill_value``:
  to the largest extent in the batch, or at least to ``shape`` (``-1``: the batch's largest),
  then up to a multiple of ``align``.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.arange(6, dtype=np.int32).reshape(2, 3), layout="HW")
    ...     return (fn.transpose(x, perm=[1, 0]), fn.reshape(x, shape=[-1]),
    ...             fn.pad(x, shape=[3, 4], fill_value=-1))
    >>> t, r, p = pipe().run()
    >>> t.layout(), t.as_array()[0].tolist(), r.as_array()[0].tolist(), p.as_array()[0].tolist()
    ('WH', [[0, 3], [1, 4], [2, 5]], [0, 1, 2, 3, 4, 5], [[0, 1, 2, -1], [3, 4, 5, -1], [-1, -1, -1, -1]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module, convert_sat, host_samples, round_half_away_int
from dali._ops.window.axes import axes_from_args

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Pad", "Reshape", "Transpose"]


# --------------------------------------------------------------------------------------------
# transpose
# --------------------------------------------------------------------------------------------


@register(
    "transpose",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("perm", "int_vec", default=REQUIRED, doc="Permutation of the dimensions."),
        Arg("output_layout", "layout", default="", doc="Sets the output layout."),
        Arg("transpose_layout", "bool", default=True, doc="Permute the layout names too."),
    ],
)
class Transpose(Operator):
    """Permute the dimensions of every sample: ``out.shape[i] = in.shape[perm[i]]``.

    ``fn.transpose(hwc, perm=[2, 0, 1])`` turns HWC into CHW (layout included).
    """

    def setup(self) -> None:
        perm = list(self.arg("perm"))
        if sorted(perm) != list(range(len(perm))):
            raise self.arg_error("perm", f"{perm} is not a permutation of 0..{len(perm) - 1}")
        self._perm = tuple(perm)
        out = self.arg("output_layout")
        if out and len(out) != len(perm):
            raise self.arg_error(
                "output_layout", f"'{out}' has {len(out)} dimensions but perm has {len(perm)}"
            )

    def _layout(self, in_layout: str) -> str:
        out = self.arg("output_layout")
        if out:
            return out
        if self.arg("transpose_layout") and in_layout:
            return "".join(in_layout[p] for p in self._perm)
        return in_layout

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        if tl.sample_ndim != len(self._perm):
            raise self.arg_error(
                "perm",
                f"has {len(self._perm)} elements for {tl.sample_ndim}-dimensional input samples",
            )
        layout = self._layout(tl.layout())
        dense = tl.dense()
        if dense is not None:
            axes = (0, *(p + 1 for p in self._perm))
            return tl_cls.wrap(xp.ascontiguousarray(xp.transpose(dense, axes)), layout)
        samples = [xp.ascontiguousarray(xp.transpose(s, self._perm)) for s in tl.samples()]
        return tl_cls.wrap(samples, layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        perm = node.scalar_args.get("perm", ())
        layout = node.scalar_args.get("output_layout")
        if not layout:
            in_layout = src.layout
            if in_layout and node.scalar_args.get("transpose_layout", True):
                layout = (
                    "".join(in_layout[p] for p in perm) if len(in_layout) == len(perm) else None
                )
            else:
                layout = in_layout
        shape = src.static_shape  # out.shape[i] = in.shape[perm[i]]
        if shape is not None and len(perm) == len(shape) and sorted(perm) == list(range(len(perm))):
            shape = tuple(shape[p] for p in perm)
        else:
            shape = None
        meta = {"dtype": src.dtype, "ndim": len(perm) or src.ndim, "layout": layout}
        return [{**meta, "static_shape": shape}]


# --------------------------------------------------------------------------------------------
# reshape
# --------------------------------------------------------------------------------------------


@register(
    "reshape",
    devices=("cpu", "gpu"),
    inputs=(1, 2),
    input_names=("data", "shape_input"),
    args=[
        Arg("shape", "int_vec", tensor=True, doc="New shape; one extent may be -1."),
        Arg("rel_shape", "float_vec", tensor=True, doc="New shape relative to the input's."),
        Arg("layout", "layout", doc="New layout ('' clears it)."),
        Arg("src_dims", "int_vec", tensor=True, doc="Input dimensions to keep (-1: insert 1)."),
    ],
)
class Reshape(Operator):
    """Treat the data as having another shape and/or layout (no copy).

    ``fn.reshape(x, shape=[240, -1])`` of a ``[480, 640, 3]`` sample gives ``[240, 3840]``;
    ``rel_shape=[0.5, -1]`` does the same relatively; ``src_dims=[-1, 1, 0]`` on ``[300, 200, 1]``
    gives ``[1, 200, 300]``.
    """

    #: What `setup` says when no argument changes anything.
    no_op = "is no-op: arguments specify neither new shape nor layout"

    def _changes_more(self) -> bool:
        """Whether an argument besides the shape changes the data (a subclass adds its own)."""
        return self.has_arg("layout") or self.has_arg("src_dims")

    def setup(self) -> None:
        has_input = len(self.node.inputs) == 2
        given = [n for n in ("shape", "rel_shape") if self.has_arg(n)]
        if has_input + len(given) > 1:
            raise self.arg_error(
                given[-1] if given else "shape",
                "the shape input, `shape` and `rel_shape` are mutually exclusive",
            )
        if not (has_input or given or self._changes_more()):
            raise self.error(self.no_op)
        self._source = "input" if has_input else (given[0] if given else None)
        for name in given:
            if not self.is_tensor_arg(name):
                self._check_extents(name, list(self.arg(name)))

    def _check_extents(
        self, name: str, extents: Sequence[float], sample: int | None = None
    ) -> None:
        where = "" if sample is None else f"sample {sample}: "
        if not extents and name == "rel_shape":
            raise self.arg_error(name, f"{where}`rel_shape` specified as an empty list")
        if sum(1 for e in extents if e < 0) > 1:
            raise self.arg_error(
                name, f"{where}only one negative extent is allowed; got {list(extents)}"
            )
        if any(e == 0 for e in extents):
            raise self.arg_error(name, f"{where}extent of 0 is illegal; got {list(extents)}")

    def _requested(self, ws: Workspace, n: int) -> list[Any] | None:
        if self._source is None:
            return None
        if self._source == "input":
            return [np.asarray(s).reshape(-1) for s in host_samples(ws.inputs[1])]
        dtype = np.float32 if self._source == "rel_shape" else np.int64
        values = ws.arg_vectors(self._source, dtype)
        if ws.is_tensor_arg(self._source):
            for i, v in enumerate(values):
                self._check_extents(self._source, list(v), i)
        return values

    def _out_shape(
        self, i: int, in_shape: tuple[int, ...], req: Any, src_dims: np.ndarray | None
    ) -> tuple[int, ...]:
        name = self._source or "src_dims"
        ndim = len(in_shape)
        if src_dims is not None:
            for d in src_dims:
                if not -1 <= d < ndim:
                    raise self.arg_error(
                        "src_dims",
                        f"index {int(d)} is out of bounds; use valid dimension indices in "
                        f"range [0..{ndim - 1}] or -1 to insert a new dimension",
                    )
        if req is None:  # src_dims alone, or only the layout
            if src_dims is None:
                return in_shape
            out = [1 if d < 0 else in_shape[d] for d in src_dims]
            self._check_volume(i, in_shape, out, "src_dims")
            return tuple(out)
        if self._source == "rel_shape":
            if src_dims is not None and len(src_dims) != len(req):
                raise self.arg_error(
                    "rel_shape",
                    f"`src_dims` and `rel_shape` have different lengths: {len(src_dims)} vs "
                    f"{len(req)}",
                )
            if src_dims is None and len(req) > ndim:
                raise self.arg_error(
                    "rel_shape",
                    f"has more elements ({len(req)}) than there are dimensions in the input "
                    f"({ndim}); use `src_dims` to add dimensions",
                )
            out = []
            for d, e in enumerate(req):
                if e < 0:
                    out.append(-1)
                    continue
                sd = int(src_dims[d]) if src_dims is not None else d
                extent = 1 if sd < 0 else in_shape[sd]
                v = float(np.float32(e) * np.float32(extent))
                out.append(round_half_away_int(v))
        else:
            out = [int(e) for e in req]
            if self._source == "input":
                self._check_extents(name, out, i)
        wild = [d for d, e in enumerate(out) if e < 0]
        if wild:
            rest = math.prod(e for d, e in enumerate(out) if d != wild[0])
            if rest == 0:
                raise SampleFailure(
                    i,
                    self.arg_error(
                        name,
                        f"cannot infer the extent of dimension {wild[0]} when the volume of the "
                        f"other dimensions is 0; input shape {in_shape}",
                    ),
                )
            out[wild[0]] = math.prod(in_shape) // rest
        self._check_volume(i, in_shape, out, name)
        return tuple(out)

    def _check_volume(
        self, i: int, in_shape: tuple[int, ...], out: Sequence[int], name: str
    ) -> None:
        if math.prod(in_shape) != math.prod(out):
            raise SampleFailure(
                i,
                self.arg_error(
                    name,
                    f"the volume of the new shape must match the input's: requested shape "
                    f"{tuple(out)} ({math.prod(out)} elements), input shape {tuple(in_shape)} "
                    f"({math.prod(in_shape)} elements)",
                ),
            )

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        _, tl_cls = array_module(tl)
        shapes = tl.shape()
        n = len(shapes)
        req = self._requested(ws, n)
        src_dims = None
        if self.has_arg("src_dims"):
            src_dims = ws.arg_vectors("src_dims", np.int64)
        outs = [
            self._out_shape(
                i,
                shapes[i],
                None if req is None else req[i],
                None if src_dims is None else src_dims[i],
            )
            for i in range(n)
        ]
        out_ndim = len(outs[0]) if outs else tl.sample_ndim
        if any(len(o) != out_ndim for o in outs):
            raise self.error("all samples must have the same number of dimensions")
        layout = self._layout(tl.layout(), tl.sample_ndim, out_ndim)
        dense = tl.held_dense
        if dense is not None and all(o == outs[0] for o in outs) and n:
            return tl_cls.wrap(dense.reshape((n, *outs[0])), layout)
        samples = tl.samples()
        result = [s.reshape(o) for s, o in zip(samples, outs)]
        return tl_cls.wrap(result, layout, dtype=tl.np_dtype, ndim=out_ndim)

    run_gpu = run_cpu

    def _layout(self, in_layout: str, in_ndim: int, out_ndim: int) -> str:
        if self.has_arg("layout"):
            layout = self.arg("layout")
            if layout and len(layout) != out_ndim:
                raise self.arg_error(
                    "layout", f"'{layout}' is not compatible with a {out_ndim}-D shape"
                )
            return layout
        return in_layout if len(in_layout) == out_ndim else ""

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        args = node.scalar_args
        if "shape" in args:
            ndim = len(args["shape"])
        elif "rel_shape" in args:
            ndim = len(args["rel_shape"])
        elif "src_dims" in args:
            ndim = len(args["src_dims"])
        elif len(node.inputs) == 1 and not node.arg_inputs:
            ndim = src.ndim
        else:
            ndim = None
        if "layout" in args:
            layout = args["layout"]
        elif ndim is not None and src.layout is not None:
            layout = src.layout if len(src.layout) == ndim else ""
        else:
            layout = None
        shape = _static_reshape(node) if ndim is not None else None
        return [{"dtype": src.dtype, "ndim": ndim, "layout": layout, "static_shape": shape}]


def _static_reshape(node: Any) -> tuple[int | None, ...] | None:
    """The shape `Reshape._out_shape` gives every sample, from scalar arguments and the input's
    static shape (None entries where they leave it open; None: not known at all)."""
    args = node.scalar_args
    in_shape: tuple[int | None, ...] | None = node.inputs[0].static_shape
    if len(node.inputs) > 1 or node.arg_inputs or in_shape is None:
        return None
    src_dims = [int(d) for d in args.get("src_dims", range(len(in_shape)))]
    if any(not -1 <= d < len(in_shape) for d in src_dims):
        return None  # an error at run
    picked = [1 if d < 0 else in_shape[d] for d in src_dims]
    out: list[int | None]
    if "shape" in args:
        out = [int(e) for e in args["shape"]]
    elif "rel_shape" in args:
        rel = [float(e) for e in args["rel_shape"]]
        if "src_dims" not in args:
            picked = list(in_shape[: len(rel)])
        if len(picked) != len(rel):
            return None  # an error at run
        out = []
        for e, x in zip(rel, picked):
            if e < 0 or x is None:  # the wildcard, or an extent of the data's
                out.append(-1 if e < 0 else None)
            else:
                out.append(round_half_away_int(float(np.float32(e) * np.float32(x))))
    else:
        return tuple(picked)  # src_dims alone, or only the layout
    wild = [d for d, e in enumerate(out) if e is not None and e < 0]
    if wild:  # what is left of the volume: known where every other extent is
        rest = [e for d, e in enumerate(out) if d != wild[0]]
        volume = _volume(rest)
        total = _volume(in_shape)
        out[wild[0]] = total // volume if total is not None and volume else None
    return tuple(out)


def _volume(shape: Sequence[int | None]) -> int | None:
    known = [e for e in shape if e is not None]
    return math.prod(known) if len(known) == len(shape) else None


# --------------------------------------------------------------------------------------------
# pad
# --------------------------------------------------------------------------------------------


@register(
    "pad",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("fill_value", "float", default=0.0, tensor=True, doc="Value of the padding."),
        Arg("shape", "int_vec", tensor=True, doc="Minimum extents of the padded axes (-1: max)."),
        Arg("axes", "int_vec", tensor=True, doc="Axes to pad (default: all)."),
        Arg("axis_names", "layout", doc="Axes to pad, by layout name."),
        Arg("align", "int_vec", tensor=True, doc="Round the padded extents up to multiples."),
    ],
)
class Pad(Operator):
    """Pad samples at the end of ``axes`` with ``fill_value`` to a common or minimum shape.

    Without ``shape`` each axis is padded to the largest extent in the batch; with it, to at
    least ``shape`` (``-1``: the batch's largest); ``align`` then rounds up to multiples.
    """

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's type, layout and ndim; its static extents padded where they are known
        (each sample is its own batch's largest when the extent is static) and ``shape`` and
        ``align`` are constants."""
        from dali._ops._static_shapes import constant_vector, like_input, static_axes

        meta = like_input(node)
        shape = meta[0]["static_shape"]
        axes = None if shape is None else static_axes(node, len(shape), meta[0]["layout"])
        given = [a for a in ("shape", "align") if a in node.scalar_args or a in node.arg_inputs]
        wanted = None if axes is None else constant_vector(node, "shape", len(axes))
        align = None if axes is None else constant_vector(node, "align", len(axes))
        if (
            axes is None
            or ("shape" in given and wanted is None)
            or ("align" in given and align is None)
        ):
            meta[0]["static_shape"] = None if shape is None else (None,) * len(shape)
            return meta
        out = list(shape)
        for k, d in enumerate(axes):
            e = out[d]
            if e is None:
                continue
            if wanted is not None and wanted[k] > 0:
                e = max(int(wanted[k]), e)
            if align is not None and align[k] > 0 and e % int(align[k]):
                e += int(align[k]) - e % int(align[k])
            out[d] = e
        meta[0]["static_shape"] = tuple(out)
        return meta

    def setup(self) -> None:
        if self.has_arg("axes") and self.has_arg("axis_names"):
            raise self.arg_error("axis_names", "`axes` and `axis_names` are mutually exclusive")
        align = None if self.is_tensor_arg("align") else self.arg("align")
        if align and any(a <= 0 for a in align):
            raise self.arg_error("align", f"values must be positive, got {list(self.arg('align'))}")

    def _per_axis(
        self, ws: Workspace, name: str, i: int, naxes: int, values: list[Any]
    ) -> list[int]:
        v = [int(e) for e in values[i]]
        if len(v) == 1 and naxes != 1:
            v = v * naxes
        if len(v) != naxes:
            raise SampleFailure(
                i,
                self.arg_error(name, f"has {len(v)} values for {naxes} padded axes"),
            )
        return v

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        shapes = tl.shape()
        n, ndim = len(shapes), tl.sample_ndim
        if n == 0:
            return tl_cls.wrap([], tl.layout(), dtype=tl.np_dtype, ndim=ndim)
        largest = [max(s[d] for s in shapes) for d in range(ndim)]
        axes_v = ws.arg_vectors("axes", np.int64) if self.has_arg("axes") else None
        shape_v = ws.arg_vectors("shape", np.int64) if self.has_arg("shape") else None
        align_v = ws.arg_vectors("align", np.int64) if self.has_arg("align") else None
        names = self.arg("axis_names") if self.has_arg("axis_names") else None
        fills = ws.arg_samples("fill_value", np.float64)
        outs = []
        for i, in_shape in enumerate(shapes):
            try:
                axes = axes_from_args(
                    self, None if axes_v is None else axes_v[i], names, ndim, tl.layout()
                )
            except Exception as e:
                raise SampleFailure(i, e) from e
            out = list(in_shape)
            req = None if shape_v is None else self._per_axis(ws, "shape", i, len(axes), shape_v)
            align = None if align_v is None else self._per_axis(ws, "align", i, len(axes), align_v)
            for k, ax in enumerate(axes):
                r = req[k] if req is not None else -1
                out[ax] = max(r, out[ax]) if r > 0 else max(largest[ax], out[ax])
                if align is not None:
                    a = align[k]
                    if a <= 0:
                        raise SampleFailure(i, self.arg_error("align", "values must be positive"))
                    if out[ax] % a:
                        out[ax] += a - out[ax] % a
            outs.append(tuple(out))
        fill_vals = []
        for i, f in enumerate(fills):
            f = np.asarray(f)
            if f.size != 1:
                raise SampleFailure(
                    i, self.arg_error("fill_value", "expected one value per sample")
                )
            fill_vals.append(convert_sat(np, f.reshape(1), tl.np_dtype)[0])
        dense = tl.dense()
        if dense is not None and all(o == outs[0] for o in outs):
            res = xp.empty((n, *outs[0]), dtype=tl.np_dtype)
            if all(f == fill_vals[0] for f in fill_vals):
                res[...] = fill_vals[0]
            else:
                fv = np.asarray(fill_vals, dtype=tl.np_dtype).reshape((n,) + (1,) * ndim)
                res[...] = fv if xp is np else xp.asarray(fv)
            head = (slice(None), *(slice(0, e) for e in shapes[0]))  # every sample's extent
            res[head] = dense
            return tl_cls.wrap(res, tl.layout())
        samples = tl.samples()
        result = []
        for i, s in enumerate(samples):
            r = xp.full(outs[i], fill_vals[i], dtype=tl.np_dtype)
            r[tuple(slice(0, e) for e in s.shape)] = s
            result.append(r)
        return tl_cls.wrap(result, tl.layout(), dtype=tl.np_dtype, ndim=ndim)

    run_gpu = run_cpu
