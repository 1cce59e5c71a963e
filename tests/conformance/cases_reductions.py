"""Conformance cases of `fn.reductions.*` against real DALI 2.4 (see README.md).

Inputs: the tree images (a ragged uint8 ``HWC`` batch), uniform noise, float images, a signed
float batch (normal noise: sums with cancellation), volumes (``DHWC``), typed vectors of every
integer type at the edges of their range (wrapping accumulators, truncated means), 0-d and
empty samples, NaN and infinities.

Compared: every operator over all axes, ``axis_names``, negative ``axes``, several axes,
``keep_dims``, ``axes=[]`` and ``axis_names=""`` (no reduction); every ``dtype`` DALI accepts
per input type; ``std_dev``/``variance`` with the mean from ``fn.reductions.mean`` (dropped or
kept axes), per sample from ``external_source`` and as a constant, ``ddof`` up to and past N;
and the errors (bad axis, a name not in the layout, ``axes`` with ``axis_names``, a repeated
axis, BOOL/FLOAT16/FLOAT64 input, a ``dtype`` the input type does not allow, a mean that is not
FLOAT).

Tolerance of float outputs: integer outputs are exact. DALI sums float32 values pairwise in
float32 (32-element runs, then a binary tree: ``reduce_cpu.h``; no Kahan, no double), so its
result carries up to ~(32 + log2 N) float32 roundings of the summed magnitudes; ``dali`` sums in
float64 (exactly in int64 for integer inputs) and rounds once. Seen, relative to DALI's value:
at most 3.1e-7 on sums, means, mean squares and variances of non-negative data (images, 2-4
ulps), 6.5e-7 on means of INT64 (DALI rounds each value to float32 before adding it), and on
the normal noise, whose sums cancel, 6.8e-6 (an absolute 2e-6 on sums of magnitude ~1e2). The
cases allow 2e-6 relative on top of the 4-ulp rule of ``float_exact``, and 1e-5 absolute for
the signed data.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import FIMGS, IMGS, NOISE, Case, Ext, Ty, add, op

#: Float outputs: DALI's float32 pairwise sums against float64 ones (module docstring).
_F = {"rtol": 2e-6}

_OPS = ("min", "max", "sum", "mean", "mean_square", "rms")


def _random(shapes: list[tuple[int, ...]], dtype: Any, seed: int, label: str, layout: str) -> Ext:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        data = [rng.standard_normal(s).astype(dtype) for s in shapes]
    else:
        info = np.iinfo(dtype)
        data = [rng.integers(info.min, info.max, s, dtype=dtype, endpoint=True) for s in shapes]
    return Ext(lambda c: [data], layout, label)


#: Signed float noise, ragged: sums that cancel.
SIGNED = _random([(17, 23, 3), (40, 9, 3), (5, 5, 3)], np.float32, 31, "signed", "HWC")
#: Two volumes, DHWC.
VOLUME = _random([(6, 10, 12, 2), (4, 7, 9, 2)], np.float32, 32, "volume", "DHWC")
#: 0-d samples.
SCALARS = Ext(lambda c: [[np.float32(3.0), np.float32(-2.5), np.float32(0.0)]], None, "scalars")
#: Samples with no elements (0 rows, 0 columns).
EMPTY = Ext(lambda c: [[np.zeros((0, 3), np.float32), np.zeros((2, 0), np.float32)]], "HW", "empty")
#: NaN and infinities in float samples.
SPECIAL = Ext(
    lambda c: [
        [
            np.array([1.0, np.nan, 0.0], np.float32),
            np.array([np.inf, np.inf], np.float32),
            np.array([-np.inf, 2.0], np.float32),
            np.array([np.nan, np.nan], np.float32),
            np.array([np.inf, -np.inf, 1.0], np.float32),
        ]
    ],
    None,
    "special",
)

_INT_TYPES = {
    "uint8": ("UINT8", "UINT64"),
    "int8": ("INT8", "INT64"),
    "uint16": ("UINT16", "UINT64"),
    "int16": ("INT16", "INT64"),
    "uint32": ("UINT32", "UINT64"),
    "int32": ("INT32", "INT64"),
    "uint64": ("UINT64", "UINT64"),
    "int64": ("INT64", "INT64"),
}


def _edges(name: str) -> Ext:
    """Vectors of ``name`` at the edges of its range: accumulators that wrap, squares that
    overflow C's int, means that round up out of the type."""
    t = np.dtype(name)
    info = np.iinfo(t)
    hi, lo = int(info.max), int(info.min)
    samples = [
        [hi, hi, hi],
        [lo, lo + 1, 0],
        [hi - 1, 3, 7, 1],
        [hi // 2 + 7, hi // 3, 5],
        [1, 2, 2],
        [lo // 2 - 1 if lo < 0 else 11, 9],
    ]
    data = [np.array(s, dtype=t) for s in samples]
    return Ext(lambda c: [data], None, f"{name}_edges")


def _random_ints(name: str) -> Ext:
    t = np.dtype(name)
    return _random([(5, 40), (7, 3), (1, 129)], t, 40 + t.itemsize, f"{name}_random", "HW")


def _with_mean(
    kind: str, axes_kw: dict[str, Any], mean_kw: dict[str, Any] | None = None, **kw: Any
):
    """``fn.reductions.<kind>(x, fn.reductions.mean(x, **axes_kw, **mean_kw), **axes_kw, **kw)``."""

    def graph(fn: Any, types: Any, x: Any) -> Any:
        mean = fn.reductions.mean(x, **axes_kw, **(mean_kw or {}))
        return getattr(fn.reductions, kind)(x, mean, **axes_kw, **kw)

    return graph


def _name(kind: str, label: str, kw: dict[str, Any], extra: str = "") -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    return f"reductions.{kind}({label}{'; ' + args if args else ''}){extra}"


# -- min, max, sum, mean, mean_square, rms over axes -------------------------------------------

_AXES = [
    {},
    {"axis_names": "HW"},
    {"axis_names": "C"},
    {"axes": -1},
    {"axes": (0, 2)},
    {"axis_names": "WH", "keep_dims": True},
    {"keep_dims": True},
    {"axes": ()},
    {"axis_names": ""},
]
for _kind in _OPS:
    for _kw in _AXES:
        add(op(f"reductions.{_kind}", [IMGS], _kw, **_F))
    for _kw in ({}, {"axis_names": "HW"}, {"axes": (1,)}):
        add(op(f"reductions.{_kind}", [FIMGS], _kw, **_F))
        add(op(f"reductions.{_kind}", [NOISE], _kw, **_F))
    add(op(f"reductions.{_kind}", [SIGNED], {"axis_names": "HW"}, atol=1e-5, **_F))
    add(op(f"reductions.{_kind}", [VOLUME], {"axis_names": "DHW"}, atol=1e-5, **_F))
    add(op(f"reductions.{_kind}", [VOLUME], {"axes": (0, 3)}, atol=1e-5, **_F))
    add(op(f"reductions.{_kind}", [SCALARS], {}))
    add(op(f"reductions.{_kind}", [SCALARS], {"keep_dims": True}))
    add(op(f"reductions.{_kind}", [EMPTY], {}))
    add(op(f"reductions.{_kind}", [EMPTY], {"axes": 0}))
    add(op(f"reductions.{_kind}", [SPECIAL], {}))
    add(op(f"reductions.{_kind}", [SPECIAL], {"axes": ()}))

# -- types: every input type, every dtype DALI accepts for it -------------------------------------

for _t, (_same, _wide) in _INT_TYPES.items():
    for _data in (_edges(_t), _random_ints(_t)):
        for _kind in _OPS:
            add(op(f"reductions.{_kind}", [_data], {}, **_F))
        small = np.dtype(_t).itemsize < 8
        for _dt in {_same, _wide, "FLOAT"} if small else {_same}:
            add(op("reductions.sum", [_data], {"dtype": Ty(_dt)}, **_F))
        for _dt in (_same, "FLOAT"):
            add(op("reductions.mean", [_data], {"dtype": Ty(_dt)}, **_F))
            add(op("reductions.rms", [_data], {"dtype": Ty(_dt)}, **_F))
        for _dt in (_wide, "FLOAT"):
            add(op("reductions.mean_square", [_data], {"dtype": Ty(_dt)}, **_F))
        add(op("reductions.mean", [_data], {"dtype": Ty(_same), "axes": -1}))
        for _kind in ("std_dev", "variance"):
            add(Case(_name(_kind, _data.label, {}), _with_mean(_kind, {}), (_data,), **_F))

# -- std_dev and variance -------------------------------------------------------------------------

for _kind in ("std_dev", "variance"):
    for _data in (IMGS, FIMGS, SIGNED):
        for _kw in (
            {},
            {"axis_names": "HW"},
            {"axes": (0,)},
            {"axes": -1},
            {"axis_names": "HW", "keep_dims": True},
        ):
            add(Case(_name(_kind, _data.label, _kw), _with_mean(_kind, _kw), (_data,), **_F))
    add(
        Case(
            _name(_kind, "imgs", {"axis_names": "HW"}, " [mean with keep_dims]"),
            _with_mean(_kind, {"axis_names": "HW"}, {"keep_dims": True}),
            (IMGS,),
            **_F,
        )
    )
    add(
        Case(
            _name(_kind, "imgs", {"axis_names": "HW", "keep_dims": True}, " [mean without]"),
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(
                x, fn.reductions.mean(x, axis_names="HW"), axis_names="HW", keep_dims=True
            ),
            (IMGS,),
            **_F,
        )
    )
    add(
        Case(
            _name(_kind, "volume", {"axis_names": "DHW"}),
            _with_mean(_kind, {"axis_names": "DHW"}),
            (VOLUME,),
            atol=1e-5,
            **_F,
        )
    )
    for _ddof in (1, 2, 3, -1):
        add(
            Case(
                _name(_kind, "imgs", {"axes": (0,), "ddof": _ddof}),
                _with_mean(_kind, {"axes": (0,)}, ddof=_ddof),
                (IMGS,),
                **_F,
            )
        )
    # ddof = N and past it: N - ddof = 0 divides by zero (inf, or NaN for a zero sum), below 0
    # gives negative variances (NaN standard deviations)
    _TWO_ROWS = Ext(
        lambda c: [[np.array([[1.0, 2.0], [3.0, 2.0]], np.float32), np.ones((1, 2), np.float32)]],
        "HW",
        "two_rows",
    )
    for _ddof in (2, 3):
        add(
            Case(
                _name(_kind, "two_rows", {"axes": (0,), "ddof": _ddof}),
                _with_mean(_kind, {"axes": (0,)}, ddof=_ddof),
                (_TWO_ROWS,),
            )
        )
    add(
        Case(
            f"reductions.{_kind}(imgs, 0.5) [constant mean]",
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, 0.5),
            (IMGS,),
            **_F,
        )
    )
    add(
        Case(
            f"reductions.{_kind}(imgs, [per-sample means]; axis_names='HW')",
            lambda fn, types, x, m, k=_kind: getattr(fn.reductions, k)(x, m, axis_names="HW"),
            (
                IMGS,
                Ext(
                    lambda c: [
                        [np.array([10.0 * i, 100.0, 50.0 + i], np.float32) for i in range(4)]
                    ],
                    None,
                    "means",
                ),
            ),
            **_F,
        )
    )
    add(
        Case(
            _name(_kind, "scalars", {}),
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, 1.0),
            (SCALARS,),
        )
    )
    add(
        Case(
            _name(_kind, "empty", {}),
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, 0.0),
            (EMPTY,),
        )
    )
    for _kw in ({"axes": ()}, {"axis_names": ""}):
        add(Case(_name(_kind, "imgs", _kw), _with_mean(_kind, _kw), (IMGS,)))

# -- errors ---------------------------------------------------------------------------------------

_ERR = {"expect_error": True}
for _kind in _OPS:
    add(op(f"reductions.{_kind}", [IMGS], {"axes": 3}, **_ERR))
    add(op(f"reductions.{_kind}", [IMGS], {"axes": -4}, **_ERR))
    add(op(f"reductions.{_kind}", [IMGS], {"axes": (1, -2)}, **_ERR))
    add(op(f"reductions.{_kind}", [IMGS], {"axis_names": "F"}, **_ERR))
    add(op(f"reductions.{_kind}", [IMGS], {"axis_names": "HH"}, **_ERR))
    add(op(f"reductions.{_kind}", [IMGS], {"axes": 0, "axis_names": "H"}, **_ERR))
    add(op(f"reductions.{_kind}", [IMGS], {"axes": (), "axis_names": ""}, **_ERR))
    add(op(f"reductions.{_kind}", [SCALARS], {"axes": 0}, **_ERR))
    for _t in (np.bool_, np.float16, np.float64):
        _bad = Ext(lambda c, t=_t: [[np.ones((2, 3), t)]], None, np.dtype(_t).name)
        add(op(f"reductions.{_kind}", [_bad], {}, **_ERR))
for _data, _dt in (
    (_random_ints("uint64"), "FLOAT"),
    (_random_ints("uint8"), "INT64"),
    (_random_ints("int8"), "UINT8"),
    (FIMGS, "INT32"),
    (IMGS, "FLOAT64"),
):
    add(op("reductions.sum", [_data], {"dtype": Ty(_dt)}, **_ERR))
add(op("reductions.mean", [IMGS], {"dtype": Ty("INT32")}, **_ERR))
add(op("reductions.mean_square", [IMGS], {"dtype": Ty("UINT8")}, **_ERR))
add(op("reductions.rms", [_random_ints("int16")], {"dtype": Ty("INT64")}, **_ERR))
for _kind in ("std_dev", "variance"):
    add(
        Case(
            f"reductions.{_kind}(imgs) [no mean]",
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x),
            (IMGS,),
            **_ERR,
        )
    )
    add(
        Case(
            f"reductions.{_kind}(imgs, 1) [INT32 mean]",
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, 1),
            (IMGS,),
            **_ERR,
        )
    )
    add(
        Case(
            f"reductions.{_kind}(imgs, max(imgs)) [UINT8 mean]",
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, fn.reductions.max(x)),
            (IMGS,),
            **_ERR,
        )
    )
    add(
        Case(
            f"reductions.{_kind}(imgs, 0.5; axes=5)",
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, 0.5, axes=5),
            (IMGS,),
            **_ERR,
        )
    )
    # DALI 2.4 does not check the mean's shape: it reads the mean's buffer as if it had the
    # output's shape, past its end where it is smaller (values that change from run to run)
    add(
        Case(
            f"reductions.{_kind}(imgs, 0.5; axis_names='HW') [mean of the wrong shape]",
            lambda fn, types, x, k=_kind: getattr(fn.reductions, k)(x, 0.5, axis_names="HW"),
            (IMGS,),
            dali_skip="DALI 2.4 reads past the mean's buffer (no shape check)",
            expect_error=True,
            expect_error_text="the mean (input 1) has shape",
        )
    )
