"""Conformance cases of a group of small operators against real DALI 2.4 (see README.md).

Deterministic, compared exactly: `fn.lookup_table` (every integer input type, the output
types, out-of-range and negative keys, repeated keys, saturating conversions), `fn.coord_flip`
(2-D and 3-D points, layouts, centres, per-sample flags and centres), `fn.permute_batch`
(constant and per-sample indices) and `fn.peek_image_shape` (every format of the decoder edge
cases, with each ``image_type``, ``adjust_orientation`` and ``dtype``), with the errors of each.

Random, compared by structure and invariants (the values come from our counter-based streams,
not DALI's generator): `fn.batch_permutation` gives a permutation (without fixed points when
asked; indices in range with repetitions), `fn.random.choice` draws only allowed values, with
empirical frequencies within 5 binomial standard deviations of ``p`` over 4096 draws, and
`fn.random.beta` stays in ``[0, 1]`` with a mean within 5 standard errors of
``alpha / (alpha + beta)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from cases import Case, Ext, In, Iters, Ty, add, arrays, op, per_sample, random_checks

F = np.float32

# -- lookup_table ---------------------------------------------------------------------------------

_KEYS = {"keys": [0, 2, 3, 4, 5, 3], "values": [0.2, 0.4, 0.5, 0.6, 0.7, 0.1]}
_LUT_IN = [[1, 4, 1, 0, 100, 2, 3, 4], [5, 70000, -1, 65535, 3]]
for dtype in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
    values = [[v for v in s if np.can_cast(np.min_scalar_type(v), dtype)] for s in _LUT_IN]
    if dtype.startswith("u"):
        values = [[v for v in s if v >= 0] for s in values]
    data = [np.array(v).astype(dtype) for v in values]
    add(op("lookup_table", [arrays(data, dtype)], {**_KEYS, "default_value": 0.99}))
_I32 = arrays([np.array(s, np.int32) for s in _LUT_IN], np.int32, label="i32")
for out in ("UINT8", "INT8", "INT16", "INT32", "INT64", "UINT64", "FLOAT16", "FLOAT64", "BOOL"):
    add(
        op(
            "lookup_table",
            [_I32],
            {
                "keys": [0, 2, 4],
                "values": [1.6, -2.5, 300.0],
                "default_value": 7.0,
                "dtype": Ty(out),
            },
        )
    )
add(
    op("lookup_table", [_I32], {}),  # an empty table: every value is the default
    op("lookup_table", [_I32], {"keys": [1, 1], "values": [5.0, 6.0]}),  # the last one wins
    op(
        "lookup_table",
        [_I32],
        {"keys": [1], "values": [9.0], "default_value": 3e30, "dtype": Ty("INT64")},
    ),
    op("lookup_table", [_I32], {"keys": 4, "values": 2.5}),
    op(
        "lookup_table",
        [arrays([np.arange(24, dtype=np.int16).reshape(2, 3, 4)] * 2, np.int16, "DHW", "vol")],
        {"keys": [1, 5, 23], "values": [1.0, 5.0, 23.0]},
    ),
    op("lookup_table", [_I32], {"keys": [0, 2], "values": [1.0]}, expect_error=True),
    op("lookup_table", [_I32], {"keys": [0, 65536], "values": [1.0, 2.0]}, expect_error=True),
    op("lookup_table", [_I32], {"keys": [-1], "values": [1.0]}, expect_error=True),
    op(
        "lookup_table",
        [_I32],
        {"keys": [1], "values": [1.0], "dtype": Ty("STRING")},
        expect_error=True,
    ),
    op(
        "lookup_table", [arrays([[1.0, 2.0]], F)], {"keys": [1], "values": [1.0]}, expect_error=True
    ),
    op(
        "lookup_table",
        [arrays([[True, False]], np.bool_)],
        {"keys": [1], "values": [1.0]},
        expect_error=True,
    ),
)

# -- coord_flip -----------------------------------------------------------------------------------

_P3 = arrays(
    [[[0.1, 0.2, 0.3], [0.9, 0.5, -1.0]], [[0.25, 0.75, 0.0]], np.zeros((0, 3))], F, label="p3"
)
_P2 = arrays([[[0.1, 0.2], [0.9, 0.5], [0.3, 0.7]], [[0.6, 0.4]]], F, label="p2")
_P1 = arrays([[[0.1], [0.9]], [[0.3]]], F, label="p1")
add(
    op("coord_flip", [_P2], {}),
    op("coord_flip", [_P1], {}),
    op("coord_flip", [_P3], {}),
    op("coord_flip", [_P2], {"flip_x": 0, "flip_y": 1}),
    op("coord_flip", [_P2], {"layout": "yx", "flip_y": 1, "center_x": 0.0}),
    op("coord_flip", [_P2], {"layout": "xyz", "flip_z": 1}),
    op(
        "coord_flip",
        [_P3],
        {
            "layout": "xyz",
            "flip_y": 1,
            "flip_z": 1,
            "center_x": 0.0,
            "center_y": 2.0,
            "center_z": 1.0,
        },
    ),
    op("coord_flip", [_P3], {"layout": "zyx", "flip_z": 1, "center_z": 0.0}),
    op(
        "coord_flip",
        [
            _P2,
            per_sample([0, 1], np.int32),
            per_sample([1, 1], np.int32),
            per_sample([0.0, 2.5]),
            per_sample([1.0, -1.0]),
        ],
        {"flip_x": In(1), "flip_y": In(2), "center_x": In(3), "center_y": In(4)},
    ),
    op("coord_flip", [_P2], {"layout": "xw"}, expect_error=True),
    op("coord_flip", [_P3], {"layout": "xy"}, expect_error=True),
    op("coord_flip", [arrays([np.zeros((1, 4))], F, label="p4")], {}, expect_error=True),
    op("coord_flip", [arrays([np.zeros(2)], F, label="flat")], {}, expect_error=True),
    op("coord_flip", [arrays([np.zeros((1, 2))], np.float64, label="f64")], {}, expect_error=True),
    op("coord_flip", [_P2, per_sample([0.5, 1.0])], {"flip_x": In(1)}, expect_error=True),
)

# -- permute_batch --------------------------------------------------------------------------------

_RAGGED = arrays(
    [np.arange(k + 1, dtype=np.int16) * (k + 1) for k in range(4)], np.int16, label="ragged"
)
_IMGS = Ext(lambda c: [[np.full((3, 2, 3), k, np.uint8) for k in range(4)]], "HWC", "imgs4")
add(
    op("permute_batch", [_RAGGED], {"indices": [3, 0, 0, 2]}),
    op("permute_batch", [_IMGS], {"indices": [1, 2, 3, 0]}),
    op("permute_batch", [_IMGS, per_sample([1, 1, 3, 0], np.int32)], {"indices": In(1)}),
    op(
        "permute_batch",
        [_RAGGED, per_sample([2, 2, 2, 2], np.int32)],
        {"indices": In(1)},
        name="permute_batch(ragged; indices=[2,2,2,2] per sample)",
    ),
    op("permute_batch", [_RAGGED], {"indices": [3, 0, 0]}, expect_error=True),
    op("permute_batch", [_RAGGED], {"indices": [3, 0, 0, 4]}, expect_error=True),
    op("permute_batch", [_RAGGED], {"indices": [3, 0, -1, 1]}, expect_error=True),
    op(
        "permute_batch",
        [_RAGGED, per_sample([1, 1, 3, 7], np.int32)],
        {"indices": In(1)},
        name="permute_batch(ragged; indices=[1,1,3,7] per sample) error",
        expect_error=True,
    ),
    op(
        "permute_batch",
        [_RAGGED, per_sample([1, 1, 3, 0], np.int64)],
        {"indices": In(1)},
        name="permute_batch(ragged; indices=int64 per sample) error",
        expect_error=True,
    ),
)


# -- batch_permutation ----------------------------------------------------------------------------


def _permutations(*, repeats: bool, no_fixed: bool) -> Callable[[Iters], list[str]]:
    def predicate(iters: Iters) -> list[str]:
        problems = []
        for it, outs in enumerate(iters):
            p = np.array([int(s) for s in outs[0].samples])
            n = len(p)
            if any(s.shape != () or s.dtype != np.int32 for s in outs[0].samples):
                problems.append(f"iter {it}: not INT32 scalars")
            if not repeats and sorted(p.tolist()) != list(range(n)):
                problems.append(f"iter {it}: {p.tolist()} is not a permutation")
            if np.any((p < 0) | (p >= n)):
                problems.append(f"iter {it}: index out of range in {p.tolist()}")
            if no_fixed and n > 1 and np.any(p == np.arange(n)):
                problems.append(f"iter {it}: fixed point in {p.tolist()}")
        return problems

    return predicate


for bs in (1, 2, 7, 32):
    for rep in (False, True):
        for nfp in (False, True):
            add(
                op(
                    "batch_permutation",
                    [],
                    {"allow_repetitions": rep, "no_fixed_points": nfp},
                    name=f"batch_permutation(bs={bs}, allow_repetitions={rep}, "
                    f"no_fixed_points={nfp})",
                    batch_size=bs,
                    iters=4,
                    check=random_checks(_permutations(repeats=rep, no_fixed=nfp), shapes=True),
                )
            )


def _mix(fn: Any, types: Any, data: Any) -> Any:
    perm = fn.batch_permutation(no_fixed_points=True)
    return fn.permute_batch(data, indices=perm), perm


def _mixed_check(iters: Iters) -> list[str]:
    problems = []
    for it, (mixed, perm) in enumerate(iters):
        for i, (s, p) in enumerate(zip(mixed.samples, perm.samples)):
            if int(s.ravel()[0]) != int(p) or int(p) == i:
                problems.append(f"iter {it} sample {i}: got image {s.ravel()[0]}, index {p}")
    return problems


add(
    Case(
        "batch_permutation→permute_batch",
        _mix,
        (_IMGS,),
        iters=3,
        check=random_checks(_mixed_check, shapes=True),
    )
)


# -- random.choice ----------------------------------------------------------------------------

_DRAWS = 4096


def _frequencies(values: Sequence[Any], p: Sequence[float] | None) -> Callable[[Iters], list[str]]:
    """Every draw is one of ``values``; each value's frequency is within 5 binomial standard
    deviations of its probability (uniform without ``p``)."""
    probs = np.full(len(values), 1 / len(values)) if p is None else np.asarray(p, np.float64)

    def predicate(iters: Iters) -> list[str]:
        draws = np.concatenate([s.ravel() for it in iters for s in it[0].samples])
        problems = []
        if not np.isin(draws, values).all():
            problems.append(f"values outside {list(values)}: {draws[~np.isin(draws, values)][:5]}")
        n = draws.size
        for v, q in zip(values, probs):
            freq = np.count_nonzero(draws == v) / n
            bound = 5 * np.sqrt(q * (1 - q) / n)
            if abs(freq - q) > bound + 1e-12:
                problems.append(f"value {v}: frequency {freq:.4f}, p {q:.4f} (bound {bound:.4f})")
        return problems

    return predicate


def _choice(
    kind: str, kw: dict[str, Any], values: Sequence[Any], p: Any, inputs=(), bs=4, **options: Any
) -> None:
    add(
        op(
            "random.choice",
            list(inputs),
            kw,
            name=f"random.choice[{kind}]({', '.join(f'{k}={v}' for k, v in kw.items())})",
            batch_size=bs,
            iters=2,
            check=random_checks(_frequencies(values, p), shapes=True),
            **options,
        )
    )


_WORDS = arrays([np.array([10, 20, 30, 40], np.int16)] * 4, np.int16, label="words")
_FLOATS = arrays([np.array([0.5, -1.5, 7.25], np.float64)] * 4, np.float64, label="f64")
_choice("words", {"shape": _DRAWS // 8}, [10, 20, 30, 40], None, [_WORDS])
_choice(
    "words",
    {"shape": (16, _DRAWS // 128), "p": [0.1, 0.2, 0.3, 0.4]},
    [10, 20, 30, 40],
    [0.1, 0.2, 0.3, 0.4],
    [_WORDS],
)
_choice(
    "words",
    {"shape": _DRAWS // 8, "p": [0.0, 0.5, 0.0, 0.5]},
    [10, 20, 30, 40],
    [0.0, 0.5, 0.0, 0.5],
    [_WORDS],
)
_choice("f64", {"shape": _DRAWS // 8}, [0.5, -1.5, 7.25], None, [_FLOATS])
_choice(
    "words+p per sample",
    {"shape": _DRAWS // 8, "p": In(1)},
    [10, 20, 30, 40],
    [0.25, 0.0, 0.75, 0.0],
    [_WORDS, arrays([np.array([0.25, 0.0, 0.75, 0.0], F)] * 4, F, label="p")],
)
_choice(
    "words+shape_like",
    {},
    [10, 20, 30, 40],
    None,
    [_WORDS, arrays([np.zeros((32, 16))] * 4, np.uint8, "AB", "like")],
)
_choice(
    "words+shape per sample",
    {"shape": In(1)},
    [10, 20, 30, 40],
    None,
    [_WORDS, arrays([np.array([k + 1, 64], np.int32) for k in range(4)], np.int32, label="sh")],
)
for n in (5, 2):
    add(
        Case(
            f"random.choice[scalar {n}](shape={_DRAWS // 8})",
            lambda fn, types, n=n: fn.random.choice(n, shape=_DRAWS // 8),
            batch_size=4,
            iters=2,
            check=random_checks(_frequencies(list(range(n)), None), shapes=True),
        )
    )
add(
    Case(
        "random.choice[scalar 3](p=(0.7,0.3,0), uint8)",
        lambda fn, types: fn.random.choice(
            types.Constant(3, dtype=types.UINT8), p=[0.7, 0.3, 0.0], shape=_DRAWS // 4
        ),
        batch_size=4,
        iters=1,
        check=random_checks(_frequencies([0, 1, 2], [0.7, 0.3, 0.0]), shapes=True),
    ),
    Case(
        "random.choice[rows of a 2-D input]",
        lambda fn, types, a: fn.random.choice(a, shape=(64, 8)),
        (arrays([np.array([[1, 2], [3, 4], [5, 6]], np.int32)] * 2, np.int32, label="rows"),),
        check=random_checks(
            lambda iters: [
                "rows mixed"
                for it in iters
                for s in it[0].samples
                if not np.all(s[..., 1] == s[..., 0] + 1)
            ],
            shapes=True,
        ),
    ),
    Case(
        "random.choice[scalar per sample]",
        lambda fn, types, a: fn.random.choice(a, shape=256),
        (per_sample([3, 1, 7], np.int32),),
        check=random_checks(
            lambda iters: [
                f"sample {i}: value out of range"
                for it in iters
                for i, s in enumerate(it[0].samples)
                if not np.all((s >= 0) & (s < [3, 1, 7][i]))
            ],
            shapes=True,
        ),
    ),
)
_ERR = {"batch_size": 2, "expect_error": True}
add(
    Case("random.choice(0) error", lambda fn, types: fn.random.choice(0), **_ERR),
    Case("random.choice(-2) error", lambda fn, types: fn.random.choice(-2), **_ERR),
    Case("random.choice(5.0) error", lambda fn, types: fn.random.choice(5.0), **_ERR),
    Case(
        "random.choice p count error", lambda fn, types: fn.random.choice(3, p=[0.5, 0.5]), **_ERR
    ),
    Case(
        "random.choice p sum error",
        lambda fn, types: fn.random.choice(3, p=[0.5, 0.6, 0.1]),
        **_ERR,
    ),
    Case(
        "random.choice p range error",
        lambda fn, types: fn.random.choice(3, p=[0.5, 0.6, -0.1]),
        **_ERR,
    ),
    Case(
        "random.choice shape+shape_like error",
        lambda fn, types, a: fn.random.choice(3, a, shape=2),
        (arrays([np.zeros(3)] * 2, np.uint8),),
        expect_error=True,
    ),
    Case(
        "random.choice empty input error",
        lambda fn, types, a: fn.random.choice(a),
        (arrays([np.zeros(0)] * 2, np.int32, label="empty"),),
        expect_error=True,
    ),
    Case(
        "random.choice constant p on ragged input error",
        lambda fn, types, a: fn.random.choice(a, p=[0.5, 0.5]),
        (arrays([np.arange(2), np.arange(3)], np.int32, label="ragged"),),
        expect_error=True,
    ),
    Case(
        "random.choice p per sample of the wrong size error",
        lambda fn, types, a, p: fn.random.choice(a, p=p),
        (arrays([np.arange(3)] * 2, np.int32), arrays([[0.5, 0.5]] * 2, F, label="p2")),
        expect_error=True,
    ),
)


# -- random.beta ----------------------------------------------------------------------------------


def _beta_stats(alpha: float, beta: float) -> Callable[[Iters], list[str]]:
    mean = alpha / (alpha + beta)
    var = alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1))

    def predicate(iters: Iters) -> list[str]:
        xs = np.concatenate([s.ravel().astype(np.float64) for it in iters for s in it[0].samples])
        problems = []
        if np.any((xs < 0) | (xs > 1)) or np.isnan(xs).any():
            problems.append(f"values outside [0, 1]: {xs[(xs < 0) | (xs > 1)][:5]}")
        bound = 5 * np.sqrt(var / xs.size)
        if abs(xs.mean() - mean) > bound:
            problems.append(f"mean {xs.mean():.4f}, expected {mean:.4f} ± {bound:.4f}")
        return problems

    return predicate


for a, b, extra in (
    (1.0, 1.0, {}),
    (2.0, 5.0, {"dtype": Ty("FLOAT64")}),
    (0.5, 0.5, {}),
    (0.05, 0.2, {}),
    (30.0, 3.0, {}),
):
    add(
        op(
            "random.beta",
            [],
            {"alpha": a, "beta": b, "shape": (_DRAWS // 4,), **extra},
            batch_size=4,
            iters=2,
            check=random_checks(_beta_stats(a, b), shapes=True),
        )
    )
add(
    op(
        "random.beta",
        [],
        {},
        batch_size=8,
        iters=2,
        check=random_checks(_beta_stats(1.0, 1.0), shapes=True),
    ),
    op(
        "random.beta",
        [per_sample([2.0, 2.0, 2.0, 2.0]), per_sample([2.0, 2.0, 2.0, 2.0])],
        {"alpha": In(0), "beta": In(1), "shape": 1024},
        check=random_checks(_beta_stats(2.0, 2.0), shapes=True),
    ),
    op(
        "random.beta",
        [arrays([np.zeros((32, 16)), np.zeros((8, 4))], np.uint8, "AB", "like")],
        {"alpha": 3.0},
        check=random_checks(_beta_stats(3.0, 1.0), shapes=True),
    ),
    op("random.beta", [], {"dtype": Ty("INT32")}, **_ERR),
    op("random.beta", [], {"dtype": Ty("FLOAT16")}, **_ERR),
    op("random.beta", [], {"alpha": 0.0}, **_ERR),
    op("random.beta", [], {"beta": -1.0}, **_ERR),
    op("random.beta", [per_sample([2.0, -3.0])], {"alpha": In(0)}, expect_error=True),
    op("random.beta", [arrays([np.zeros(2)] * 2, np.uint8)], {"shape": 3}, expect_error=True),
)


# -- peek_image_shape -------------------------------------------------------------------------

_FILES = (
    "bits.pbm",
    "cmyk.jpg",
    "exif_orientation_3.jpg",
    "exif_orientation_6.jpg",
    "gray.jpg",
    "gray.pgm",
    "gray.png",
    "lossless.webp",
    "palette.png",
    "progressive.jpg",
    "rgb.bmp",
    "rgb.png",
    "rgb.ppm",
    "rgb.tiff",
    "rgb.webp",
    "rgba.png",
    "tall_800x4.jpg",
    "tiny_1x1.jpg",
    "tiny_1x1.png",
    "truncated.jpg",
    "wide_4x800.jpg",
    "yuv444.jpg",
)


def _encoded(files: Sequence[str], label: str) -> Ext:
    return Ext(
        lambda c: [[np.fromfile(Path(c.edge) / f, dtype=np.uint8) for f in files]], None, label
    )


_EDGE = _encoded(_FILES, "edge_files")
for kw in (
    {},
    {"image_type": Ty("GRAY")},
    {"image_type": Ty("ANY_DATA")},
    {"image_type": Ty("BGR")},
    {"image_type": Ty("YCbCr")},
    {"adjust_orientation": False},
    {"image_type": Ty("ANY_DATA"), "adjust_orientation": False},
):
    add(op("peek_image_shape", [_EDGE], kw))
for dt in ("INT32", "UINT32", "UINT64", "FLOAT", "FLOAT64"):
    add(op("peek_image_shape", [_EDGE], {"dtype": Ty(dt)}))
add(op("experimental.peek_image_shape", [_EDGE], {"dtype": Ty("INT32")}))
for bad in ("empty.jpg", "corrupt.jpg", "not_an_image.jpg"):
    add(op("peek_image_shape", [_encoded([bad], bad)], {}, expect_error=True))
add(
    op("peek_image_shape", [_EDGE], {"dtype": Ty("UINT8")}, expect_error=True),
    op("peek_image_shape", [_EDGE], {"dtype": Ty("FLOAT16")}, expect_error=True),
    op("peek_image_shape", [arrays([np.zeros(30)], np.int32, label="i32")], {}, expect_error=True),
)
