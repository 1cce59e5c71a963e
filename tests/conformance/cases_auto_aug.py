"""Conformance cases of the automatic augmentations (``nvidia.dali.auto_aug`` → ``dali.auto_aug``)
against real DALI 2.4 (see README.md).

The cases run through `Case.driver`, which receives the library module: the same graph code
calls each library's own ``auto_aug`` (its ``augmentations``, ``core``, ``rand_augment``,
``trivial_augment``, ``auto_augment``) in a ``pipeline_def`` with ``enable_conditionals=True``
(the augmentation schemes split the batch with ``if``). The images are generated here with
numpy (photo-like gradients, edges and noise, a ragged batch), the same arrays in both
processes.

* Every augmentation of the standard suite with fixed per-sample magnitude bins and signs
  (`signed_bin` with given signs): outputs equal within DALI's tolerance of the operators
  they are built of (warps ±1 with DALI's isolated float32-coordinate outliers, colour
  operators ±1, the rest exact); custom magnitude ranges, `fill_value`/`interp_type`,
  shape-relative translations, videos (``FHWC``).
* The schemes, whose random draws differ by design (our generator is counter-based), by
  statistics: RandAugment, TrivialAugment and AutoAugment over marker augmentations that
  record what they applied (operations, magnitude bins, signs, a policy's outcomes) — each
  library's frequencies within 5 binomial standard deviations of the exact probabilities, and
  of each other's; RandAugment over the standard suite: every output is one of the suite's
  single-augmentation outputs (computed in the same pipeline), chosen uniformly.
"""

from __future__ import annotations

import importlib
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
from cases import Case, add

NUM_BINS = 11


def _photo(h: int, w: int, seed: int, lo: int = 30, hi: int = 220) -> np.ndarray:
    """A deterministic photo-like uint8 HWC image (values in ``[lo, hi]``: not full range, so
    that auto_contrast and equalize change it)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    yy, xx = yy / h, xx / w
    planes = []
    for _ in range(3):
        a, b, c, d = rng.uniform(-1, 1, 4)
        f1, f2 = rng.uniform(1, 6, 2)
        plane = a * xx + b * yy + 0.3 * np.sin(f1 * np.pi * xx + c) * np.cos(f2 * np.pi * yy + d)
        plane += (xx > rng.uniform(0.3, 0.7)) * rng.uniform(-0.5, 0.5)  # an edge
        plane += rng.normal(0, 0.04, (h, w))
        planes.append(plane)
    img = np.stack(planes, -1)
    img = (img - img.min()) / (img.max() - img.min())
    return np.round(lo + (hi - lo) * img).astype(np.uint8)


#: A ragged batch of four photo-like images.
PHOTOS = [_photo(48 + 8 * (i % 3), 64 + 12 * (i % 2), 100 + i) for i in range(4)]


def _libs(lib: Any) -> SimpleNamespace:
    """The library's ``auto_aug`` modules (DALI's ``__init__`` imports none of them)."""
    base = f"{lib.__name__}.auto_aug"
    names = ("augmentations", "core", "rand_augment", "trivial_augment", "auto_augment")
    return SimpleNamespace(**{n: importlib.import_module(f"{base}.{n}") for n in names})


def _driver(
    body: Callable[..., Any],
    batch: Callable[[], Sequence[np.ndarray]],
    *,
    iters: int = 1,
    seed: int = 1234,
    layout: str | None = "HWC",
    sources: Sequence[Callable[[], Sequence[np.ndarray]]] = (),
) -> Callable[[Any, Callable[[Any], None]], dict[str, Any]]:
    """A driver running ``body(fn, types, aa, data, *extra)`` (``aa``: the `_libs` modules;
    ``data`` and ``extra``: external sources of ``batch()`` and ``sources``) with
    conditionals, ``iters`` times.

    ``body`` must be a ``def`` function (calls inside a lambda are not converted for
    conditionals in ``dali``)."""

    def driver(lib: Any, keep: Callable[[Any], None]) -> dict[str, Any]:
        aa = _libs(lib)
        samples = list(batch())

        @lib.pipeline_def(
            batch_size=len(samples),
            num_threads=2,
            device_id=None,
            seed=seed,
            enable_conditionals=True,
        )
        def pipe() -> Any:
            kw = {"layout": layout} if layout else {}
            data = lib.fn.external_source(source=lambda: samples, batch=True, **kw)
            extra = [lib.fn.external_source(source=s, batch=True) for s in sources]
            return body(lib.fn, lib.types, aa, data, *extra)

        p = pipe()
        p.build()
        for _ in range(iters):
            keep(p.run())
        return {}

    return driver


# =============================================================================================
# every augmentation, fixed magnitude bins and signs
# =============================================================================================

#: Per-sample magnitude bins and signs (0: +, 1: −) of the four photos.
BINS = [np.int32(b) for b in (0, 3, 7, 10)]
SIGNS = [np.int32(s) for s in (0, 1, 0, 1)]

_GEOMETRY = {"atol": 1, "outliers": 1e-3, "outlier_atol": 4}
_COLOUR = {"atol": 1}
_TOLERANCE = {
    "shear_x": _GEOMETRY,
    "shear_y": _GEOMETRY,
    "translate_x": _GEOMETRY,
    "translate_y": _GEOMETRY,
    "translate_x_no_shape": _GEOMETRY,
    "translate_y_no_shape": _GEOMETRY,
    "rotate": _GEOMETRY,
    "brightness": _COLOUR,
    "contrast": _COLOUR,
    "color": _COLOUR,
    "sharpness": _COLOUR,
    "auto_contrast": _COLOUR,
}


def _augmentation_case(
    name: str,
    label: str = "",
    *,
    setup: dict[str, Any] | None = None,
    kwargs: dict[str, Any] | None = None,
    batch: Callable[[], Sequence[np.ndarray]] = lambda: PHOTOS,
    layout: str = "HWC",
    per_sample: bool = True,
) -> Case:
    """``augmentations.<name>`` (updated with ``setup``) on ``batch`` with the bins `BINS` and
    signs `SIGNS` (or, without ``per_sample``, bin 7 and sign 1 for every sample);
    ``kwargs`` values ``"shape"`` are the images' shapes (``HWC``)."""
    setup = setup or {}
    kwargs = kwargs or {}

    def body(fn: Any, types: Any, aa: Any, data: Any, bins: Any, signs: Any) -> Any:
        aug = getattr(aa.augmentations, name)
        if setup:
            aug = aug.augmentation(**{k: _resolve(v, types) for k, v in setup.items()})
        kw = {
            k: (data.shape()[-3:] if v == "shape" else _resolve(v, types))
            for k, v in kwargs.items()
        }
        # (no annotated locals: DALI's AutoGraph does not convert a function that has them)
        bin_arg = bins if per_sample else 7
        if aug.randomly_negate:
            bin_arg = aa.core.signed_bin(bin_arg, random_sign=signs)
        return aug(data, magnitude_bin=bin_arg, num_magnitude_bins=NUM_BINS, **kw)

    n = len(batch())
    opts = dict(_TOLERANCE.get(name, {}))
    if kwargs.get("interp_type") == "types.INTERP_NN":
        # nearest neighbour: where DALI's float32 source coordinate lands within ~0.01 px of a
        # pixel edge, the two libraries may pick neighbouring pixels (isolated values)
        opts["outlier_atol"] = 255
    return Case(
        name=f"auto_aug: augmentations.{name}{label}",
        graph=None,
        driver=_driver(
            body,
            batch,
            layout=layout,
            sources=[lambda: (BINS * n)[:n], lambda: (SIGNS * n)[:n]],
        ),
        **opts,
    )


def _resolve(value: Any, types: Any) -> Any:
    """``"types.NAME"`` strings as the library's ``types.NAME``."""
    if isinstance(value, str) and value.startswith("types."):
        return getattr(types, value[len("types.") :])
    return value


for _name in (
    "shear_x",
    "shear_y",
    "translate_x_no_shape",
    "translate_y_no_shape",
    "rotate",
    "brightness",
    "contrast",
    "color",
    "sharpness",
    "posterize",
    "solarize",
    "solarize_add",
    "invert",
    "equalize",
    "auto_contrast",
    "identity",
):
    add(_augmentation_case(_name))

add(
    _augmentation_case("translate_x", kwargs={"shape": "shape"}),
    _augmentation_case("translate_y", kwargs={"shape": "shape"}),
    _augmentation_case(
        "rotate",
        "(fill_value=None, interp_type=NN, keep_size=False)",
        kwargs={"fill_value": None, "interp_type": "types.INTERP_NN", "rotate_keep_size": False},
    ),
    _augmentation_case("shear_x", "(fill_value=0)", kwargs={"fill_value": 0}),
    _augmentation_case("rotate", "(mag_range=(0, 135))", setup={"mag_range": (0, 135)}),
    _augmentation_case("translate_y_no_shape", "(mag_range=(0, 32))", setup={"mag_range": (0, 32)}),
    _augmentation_case(
        "brightness",
        "(AutoAugment's (0.1, 1.9), not negated)",
        setup={"mag_range": (0.1, 1.9), "randomly_negate": False, "mag_to_param": None},
    ),
    _augmentation_case("posterize", "(RandAugment's (8, 4))", setup={"mag_range": (8, 4)}),
    _augmentation_case(
        "solarize", "(explicit magnitudes)", setup={"mag_range": np.linspace(0, 250, 11)}
    ),
)


def _video() -> list[np.ndarray]:
    return [np.stack([PHOTOS[0], PHOTOS[0][::-1]]), np.stack([PHOTOS[2]] * 3)]


for _name in ("shear_y", "rotate", "contrast", "color", "equalize", "auto_contrast"):
    add(_augmentation_case(_name, " (FHWC videos)", batch=_video, layout="FHWC", per_sample=False))


# =============================================================================================
# the schemes: statistics
# =============================================================================================


def _values(iters: list[list[Any]]) -> list[float]:
    """The first output's samples (scalars) of every iteration, as floats."""
    return [float(np.asarray(s)) for it in iters for s in it[0].samples]


def _frequency_problems(
    observed: dict[str, Counter[Any]], expected: dict[Any, float], what: str
) -> list[str]:
    """Each library's frequency of each outcome within 5 binomial standard deviations of the
    exact probability, and of the other library's."""
    problems = []
    totals = {lib: sum(c.values()) for lib, c in observed.items()}
    for lib, counts in observed.items():
        unexpected = set(counts) - set(expected)
        if unexpected:
            problems.append(f"{lib}: {what} outcomes that cannot occur: {sorted(unexpected)[:5]}")
    for outcome, p in expected.items():
        freqs = {}
        for lib, counts in observed.items():
            n = totals[lib]
            f = counts[outcome] / n
            freqs[lib] = f
            if abs(f - p) > 5 * math.sqrt(p * (1 - p) / n) + 1e-12:
                problems.append(f"{lib}: {what} {outcome!r}: frequency {f:.4f}, expected {p:.4f}")
        (la, fa), (lb, fb) = freqs.items()
        bound = 5 * math.sqrt(p * (1 - p) * (1 / totals[la] + 1 / totals[lb]))
        if abs(fa - fb) > bound + 1e-12:
            problems.append(f"{what} {outcome!r}: {la} {fa:.4f}, {lb} {fb:.4f}")
    return problems


def _stats_case(
    name: str,
    body: Callable[..., Any],
    outcome: Callable[[float], Any],
    expected: dict[Any, float] | Callable[[], dict[Any, float]],
    *,
    batch_size: int = 512,
    iters: int = 4,
) -> Case:
    """``body`` on float32 zeros (one scalar per sample); the outcomes read from the outputs
    (``outcome(value)``) against ``expected`` probabilities."""

    def check(ours: list[list[Any]], theirs: list[list[Any]]) -> list[str]:
        exp = expected() if callable(expected) else expected
        observed = {
            "dali": Counter(outcome(v) for v in _values(ours)),
            "DALI": Counter(outcome(v) for v in _values(theirs)),
        }
        return _frequency_problems(observed, exp, name)

    return Case(
        name=f"auto_aug: {name}",
        graph=None,
        driver=_driver(
            body, lambda: [np.float32(0)] * batch_size, iters=iters, layout=None, seed=2024
        ),
        check=check,
    )


def _marker(aa: Any, code: int, **setup: Any) -> Any:
    """An augmentation appending a digit pair: ``100 * x + code (+ parameter)``."""

    def mark(data: Any, param: Any) -> Any:
        return data * 100 + code + (0 if param is None else param)

    return aa.core.augmentation(mark, name=f"mark{code}", **setup)


def _pairs(value: float) -> tuple[int, ...]:
    """The digit pairs of ``value``, first appended first."""
    v = round(value)
    pairs = []
    while v > 0:
        pairs.append(v % 100)
        v //= 100
    return tuple(reversed(pairs))


def _rand_ops(fn: Any, types: Any, aa: Any, data: Any) -> Any:
    augs = [_marker(aa, 10 * (k + 1)) for k in range(4)]
    return aa.rand_augment.apply_rand_augment(augs, data, n=2, m=5)


def _rand_signs(fn: Any, types: Any, aa: Any, data: Any) -> Any:
    # magnitudes linspace(0, 30, 31): bin m = 7 gives ±7 around 50 at each of 3 steps
    signed = _marker(aa, 50, mag_range=(0, 30), randomly_negate=True)
    return aa.rand_augment.apply_rand_augment([signed], data, n=3, m=7)


def _trivial(fn: Any, types: Any, aa: Any, data: Any) -> Any:
    # A: ±(bin + 1) (magnitudes 1..31, negated at random); B: 1000 + bin
    aug_a = _marker(aa, 0, mag_range=(1, 31), randomly_negate=True)
    aug_b = _marker(aa, 1000, mag_range=(0, 30))
    return aa.trivial_augment.apply_trivial_augment([aug_a, aug_b], data)


def _trivial_outcome(v: float) -> tuple[str, int]:
    if v >= 1000:
        return ("B", round(v) - 1000)
    return ("A+" if v > 0 else "A-", round(abs(v)) - 1)


#: AutoAugment's test policy: (marker code or "signed", probability, bin) per step.
_POLICY: list[list[tuple[Any, float, int]]] = [
    [(10, 0.2, 3), (20, 0.7, 1)],
    [(30, 0.5, 2)],
    [(20, 1.0, 0), ("signed", 0.6, 5)],
    [(10, 0.9, 9), (30, 0.3, 4)],
]


def _auto(fn: Any, types: Any, aa: Any, data: Any) -> Any:
    markers = {c: _marker(aa, c, mag_range=(0, 10)) for c in (10, 20, 30)}

    def sign_op(data: Any, param: Any) -> Any:
        return data * 100 + 40 + (param > 0)

    markers["signed"] = aa.core.augmentation(
        sign_op, mag_range=(1, 11), randomly_negate=True, name="signed"
    )
    subs = [[(markers[c], p, b) for c, p, b in sub] for sub in _POLICY]
    policy = aa.core.Policy("test", NUM_BINS, subs)
    return aa.auto_augment.apply_auto_augment(policy, data)


def _auto_expected() -> dict[Any, float]:
    expected: Counter[Any] = Counter()
    for sub in _POLICY:
        for mask in itertools.product((0, 1), repeat=len(sub)):
            p = 1 / len(_POLICY)
            seq: list[Any] = []
            for applied, (code, prob, b) in zip(mask, sub):
                p *= prob if applied else 1 - prob
                if applied:
                    seq.append(None if code == "signed" else code + b)
            if None in seq:
                for sign in (0, 1):
                    expected[tuple(40 + sign if s is None else s for s in seq)] += p / 2
            else:
                expected[tuple(seq)] += p
    return {k: v for k, v in expected.items() if v > 0}


add(
    _stats_case(
        "rand_augment(n=2): operations per step",
        _rand_ops,
        _pairs,
        {pair: 1 / 16 for pair in itertools.product((10, 20, 30, 40), repeat=2)},
    ),
    _stats_case(
        "rand_augment(n=3): random signs",
        _rand_signs,
        _pairs,
        {seq: 1 / 8 for seq in itertools.product((43, 57), repeat=3)},
    ),
    _stats_case(
        "trivial_augment: operation, bin, sign",
        _trivial,
        _trivial_outcome,
        {
            **{("B", b): 1 / 62 for b in range(31)},
            **{(s, b): 1 / 124 for s in ("A+", "A-") for b in range(31)},
        },
        batch_size=1024,
    ),
    _stats_case("auto_augment: a policy's outcomes", _auto, _pairs, _auto_expected),
)


# =============================================================================================
# RandAugment over the standard suite: every output one of the suite's, chosen uniformly
# =============================================================================================

_RA_M = 9
#: The batch: the photos, repeated.
_RA_BATCH = PHOTOS * 8


def _rand_suite(fn: Any, types: Any, aa: Any, data: Any) -> Any:
    """Output 0: RandAugment (n=1, m=9) over the standard suite (shape-relative translations);
    then each augmentation of the suite with bin 9 and both signs (the candidates)."""
    shape = data.shape()
    suite = aa.rand_augment.get_rand_augment_suite(use_shape=True)
    out = aa.rand_augment.rand_augment(data, n=1, m=_RA_M, shape=shape)
    candidates = []
    for aug in suite:
        for sign in (0, 1):
            kw = {"shape": shape} if aug.name.startswith("translate") else {}
            if aug.randomly_negate:
                signs = types.Constant(np.int32(sign), device="cpu")
                b = aa.core.signed_bin(_RA_M, random_sign=signs)
            elif sign:
                continue
            else:
                b = _RA_M
            candidates.append(aug(data, magnitude_bin=b, num_magnitude_bins=31, **kw))
    return (out, *candidates)


def _rand_suite_check(ours: list[list[Any]], theirs: list[list[Any]]) -> list[str]:
    problems = []
    observed: dict[str, Counter[Any]] = {}
    for lib, iters in (("dali", ours), ("DALI", theirs)):
        counts: Counter[Any] = Counter()
        for it in iters:
            out, *candidates = it
            for s, sample in enumerate(out.samples):
                matches = [
                    k
                    for k, c in enumerate(candidates)
                    if c.samples[s].shape == sample.shape
                    and np.abs(c.samples[s].astype(int) - sample.astype(int)).max() == 0
                ]
                if not matches:
                    problems.append(f"{lib}: sample {s} is none of the suite's outputs")
                counts[_CANDIDATE_OP[matches[0]] if matches else None] += 1
        observed[lib] = counts
    # the candidates themselves: deterministic, compared between the libraries
    for k in range(1, len(ours[0])):
        for s, (a, b) in enumerate(zip(ours[0][k].samples, theirs[0][k].samples)):
            d = np.abs(a.astype(int) - b.astype(int))
            if a.shape != b.shape or d.max() > 4 or (d > 1).mean() > 1e-3:
                problems.append(f"candidate {k} sample {s} differs between the libraries")
    ops = sorted(set(_CANDIDATE_OP))
    return problems + _frequency_problems(
        observed, {op: 1 / len(ops) for op in ops}, "rand_augment suite op"
    )


#: The operation of each candidate output of `_rand_suite` (signed ones twice).
_CANDIDATE_OP = [
    op
    for op, signed in [
        ("translate_x", True),
        ("translate_y", True),
        ("shear_x", True),
        ("shear_y", True),
        ("rotate", True),
        ("brightness", True),
        ("contrast", True),
        ("color", True),
        ("sharpness", True),
        ("posterize", False),
        ("solarize", False),
        ("equalize", False),
        ("auto_contrast", False),
        ("identity", False),
    ]
    for _ in range(2 if signed else 1)
]

add(
    Case(
        name="auto_aug: rand_augment(n=1, m=9) over the standard suite",
        graph=None,
        driver=_driver(_rand_suite, lambda: _RA_BATCH, iters=3, seed=77),
        check=_rand_suite_check,
    )
)
