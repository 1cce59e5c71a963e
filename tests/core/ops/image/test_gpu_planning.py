"""Host-side planning of the batched GPU resize, random_resized_crop and crop_mirror_normalize.

The GPU operators plan a batch with numpy, without a per-sample Python loop (`resample.gpu_plan.
plan_batch`, `resize.output_geometry_batch`, `resample.gpu_plan.descs_2d`, `extract_gpu.
WindowArrays`). The kernels must match the CPU backend bit for bit, so what they are given must
equal, byte for byte, what the per-sample reference computes (`output_geometry`, `AxisPlan.make`,
`resample.gpu_plan.Sample`, `descs_2d_reference`): these tests compare the two on randomised
batches (every filter, antialiasing on and off, every way of giving the size, ROIs, flips,
per-sample arguments, empty images).

No GPU is needed: the launchers run with numpy stand-ins for the device buffers (`_Dev`), the
uploads and the launches are recorded instead of being sent to a device. Every test runs twice:
with the planning compiled by Numba (`resample.gpu_plan_jit`, what runs where Numba is
installed) and with its numpy code.
"""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._exec.workspace import BatchMeta, Workspace
from dali._ops.base import OperatorError
from dali._ops.gpu import kernels as G
from dali._ops.image.resample import gpu as RG
from dali._ops.image.resample import gpu_plan as RP
from dali._ops.image.resample import reference as R
from dali._ops.image.resize import axis_plans, output_geometry, output_geometry_batch
from dali._ops.window import extract_gpu as W
from dali._tensors import TensorListCPU, _split_flat

BATCH = 24
INTERPS = list(R.INTERP_NAMES)


@pytest.fixture(autouse=True, params=["compiled", "numpy"])
def planning(request, monkeypatch):
    """Each test once with `gpu_plan_jit` and once with the numpy planning."""
    if request.param == "compiled":
        pytest.importorskip("numba")
        assert RP._compiled() is not None
    else:
        monkeypatch.setattr(RP, "_compiled", lambda: None)
    return request.param


# -- stand-ins for the device -------------------------------------------------------------------


class _Ptr:
    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class _Dev(np.ndarray):
    """A numpy array with CuPy's ``data.ptr`` (what `G.input_batch` reads)."""

    @property
    def data(self):  # type: ignore[override]
        return _Ptr(self.__array_interface__["data"][0])


def _dev(shape, dtype=np.uint8) -> _Dev:
    return np.empty(shape, dtype).view(_Dev)  # never written: the pages stay unallocated


def _batch(shapes, *, layout="HWC", flat=False, dtype=np.uint8) -> TensorListCPU:
    """A batch of empty device stand-ins: ragged views of one buffer (``flat``, as the decoders
    return them), or separate samples."""
    if flat:
        buf = _dev(sum(int(np.prod(s)) for s in shapes), dtype)
        tl = TensorListCPU.wrap(_split_flat(buf, shapes), layout=layout)
        tl._flat_buf = buf
        return tl
    return TensorListCPU.wrap([_dev(s, dtype) for s in shapes], layout=layout)


class _Recorder:
    def __init__(self) -> None:
        self.uploads: list[list[np.ndarray]] = []
        self.launches: list[tuple[str, tuple, tuple, dict]] = []
        self.separable: list[tuple[list, np.ndarray, np.ndarray]] = []


@pytest.fixture
def rec(monkeypatch):
    """The launchers' device calls replaced: uploads and launches are recorded."""
    r = _Recorder()

    def upload(*arrays):
        r.uploads.append([np.array(a, copy=True) for a in arrays])
        return [f"dev{i}" for i in range(len(arrays))]

    def kernel_module(device, source, names):
        def kernel(name):
            return lambda grid, block, args, **kw: r.launches.append((name, grid, args, kw))

        return {n: kernel(n) for n in names}

    def alloc_outputs(shapes, dtype):
        sizes = np.array([int(np.prod(s)) for s in shapes], np.uint64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.uint64)
        return None, np.uint64(1 << 40) + offsets * np.uint64(np.dtype(dtype).itemsize)

    def separable(kernels, samples, in_ptrs, out_ptrs, in_dtype, out_dtype):
        r.separable.append((samples, in_ptrs.copy(), out_ptrs.copy()))

    monkeypatch.setattr(G, "upload", upload)
    monkeypatch.setattr(G, "kernel_module", kernel_module)
    monkeypatch.setattr(G, "device_id", lambda: 0)
    monkeypatch.setattr(G, "alloc_outputs", alloc_outputs)
    monkeypatch.setattr(G, "make_output", lambda flat, shapes, *a: list(shapes))
    monkeypatch.setattr(RG, "filter_tables", lambda: "tables")
    monkeypatch.setattr(RG, "_run_separable", separable)
    return r


# -- operators and their per-sample reference ---------------------------------------------------


def _step(op, layout, arg_names=(), *, seed=11):
    """The built implementation of ``op`` (applied to a source of ``layout``) and its key."""

    @dali.pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, seed=seed)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)], layout=layout)
        nodes = {k: fn.external_source(source=lambda: [np.zeros(1)]) for k in arg_names}
        return op(x, **nodes)

    p = pipe()
    p.build()
    return [s for s in p._plan.steps if not s.impl.node.schema.source][-1]


def _ws(step, tl, targs=None):
    targs = {k: TensorListCPU.wrap(list(v)) for k, v in (targs or {}).items()}
    return Workspace(step.impl, [tl], targs, BatchMeta.stream(0, len(tl), 0), 0, 0, None, step.key)


def _reference_descs(shapes, axes, plans, in_ptrs, out_ptrs):
    """What the per-sample launcher uploaded: (desc, starts) and the tiles, or the separable
    samples."""
    samples = [RP.Sample(s, axes, p) for s, p in zip(shapes, plans)]
    if not any(s.out_elements for s in samples):
        return None, None
    tiles = RP.choose_tiles_reference(samples) if len(axes) == 2 else None
    if tiles is None:
        return None, samples
    desc, blocks = RP.descs_2d_reference(samples, in_ptrs, out_ptrs, tiles[0], tiles[1])
    starts, total = G.block_starts(blocks)
    return (desc, starts, tiles, total), samples


def _pointers(tl, shapes, axes, plans):
    """The input addresses and the output addresses the stand-in allocator gives."""
    _, in_ptrs, _ = G.input_pointers(tl)
    out_shapes = []
    for s, p in zip(shapes, plans):
        o = list(s)
        for a, plan in zip(axes, p):
            o[a] = plan.out_size
        out_shapes.append(tuple(o))
    return in_ptrs, G.alloc_outputs(out_shapes, np.uint8)[1]


def _check_launch(rec, ref, samples, tl):
    """The recorded launch of the new planning equals the per-sample reference."""
    if ref is None and samples is None:  # nothing to compute
        assert not rec.launches and not rec.separable
        return
    _, in_ptrs, _ = G.input_pointers(tl)
    if ref is None:  # the separable passes get the same samples
        ((got, got_in, _),) = rec.separable
        assert [s.plans for s in got] == [s.plans for s in samples]
        assert [s.axes for s in got] == [s.axes for s in samples]
        np.testing.assert_array_equal(got_in, in_ptrs)
        return
    desc, starts, (th, tw, floats), total = ref
    ((got_desc, got_starts),) = rec.uploads
    assert got_desc.dtype == desc.dtype
    assert got_desc.tobytes() == desc.tobytes()
    assert got_starts.tobytes() == starts.tobytes()
    ((name, grid, args, kw),) = rec.launches
    assert name.startswith("dali_resample_2d<")
    assert grid == (total,)
    assert [int(a) for a in args[-3:]] == [th, tw, floats]
    assert kw == {"shared_mem": 4 * floats}


def _old_resize_plans(impl, ws, shapes, axes):
    """`Resize.run_gpu`'s planning, one sample at a time (the reference)."""
    geoms = impl.geometry(ws, shapes, axes)
    filters = impl.filters(ws)
    aa = impl.arg("antialias")
    return [axis_plans([s[a] for a in axes], *g, *f, aa) for s, g, f in zip(shapes, geoms, filters)]


def _random_shapes(rng, n, *, layout="HWC", lo=1, hi=600, empty=False, thin=True):
    shapes = []
    for i in range(n):
        h, w = (int(v) for v in rng.integers(lo, hi + 1, 2))
        if thin and rng.random() < 0.15:  # very thin images
            h = int(rng.integers(1, 4))
        if empty and i % 7 == 3:
            h = 0
        shapes.append(
            {"HWC": (h, w, 3), "HW": (h, w), "CHW": (3, h, w), "FHWC": (2, h, w, 1)}[layout]
        )
    return shapes


def _filter_args(rng):
    choice = int(rng.integers(0, 3))
    if choice == 0:
        return {"interp_type": INTERPS[int(rng.integers(0, 6))]}
    if choice == 1:
        return {
            "min_filter": INTERPS[int(rng.integers(0, 6))],
            "mag_filter": INTERPS[int(rng.integers(0, 6))],
        }
    return {}


RESIZE_CASES = {
    "xy": {"resize_x": 224, "resize_y": 224},
    "x_only": {"resize_x": 224},
    "y_only_fraction": {"resize_y": 100.5},
    "size": {"size": (224, 224)},
    "size_w_only": {"size": (0, 300)},
    "shorter": {"resize_shorter": 256},
    "shorter_max": {"resize_shorter": 256, "max_size": 400},
    "longer": {"resize_longer": 300.7},
    "not_larger": {"size": (200, 300), "mode": "not_larger"},
    "not_larger_one": {"size": (0, 300), "mode": "not_larger", "max_size": (250, 0)},
    "not_smaller_max": {"size": (200, 300), "mode": "not_smaller", "max_size": (350, 0)},
    "stretch": {"size": (200, 300), "mode": "stretch"},
    "stretch_max": {"resize_x": 150, "mode": "stretch", "max_size": 120},
    "default_max": {"resize_x": 500, "max_size": (300, 450)},
    "flip": {"resize_x": -120, "resize_y": 90},
    "flip_one": {"resize_y": -77.7},
    "subpixel_off": {"resize_x": 33.3, "subpixel_scale": False},
    "subpixel": {"resize_x": 33.3, "resize_y": 250.25},
    "roi_flip": {"size": (64, 64), "roi_start": (10.5, 20), "roi_end": (100, 5.25)},
    "roi_rel": {
        "size": (64, 64),
        "roi_start": (0.1, 0.9),
        "roi_end": (0.8, 0.2),
        "roi_relative": True,
    },
    "roi_point": {"size": (64, 64), "roi_start": (30, 30), "roi_end": (30, 30.0001)},
    "roi_outside": {"resize_shorter": 50, "roi_start": (-20, -10), "roi_end": (600, 700)},
    "roi_one_value": {
        "resize_x": 40,
        "roi_start": (0.25,),
        "roi_end": (0.75,),
        "roi_relative": True,
    },
    "upscale": {"size": (900, 1000)},
    "huge_downscale": {"size": (3, 2)},
}


@pytest.mark.parametrize("case", sorted(RESIZE_CASES))
@pytest.mark.parametrize("seed", range(3))
def test_resize_plans_equal_the_per_sample_reference(rec, case, seed):
    index = sorted(RESIZE_CASES).index(case)
    rng = np.random.default_rng(seed * 100 + index)
    layout = ["HWC", "HWC", "CHW", "FHWC", "HW"][(seed + index) % 5]
    kwargs = {**RESIZE_CASES[case], **_filter_args(rng), "antialias": bool(seed % 2 == 0)}
    step = _step(lambda x, kw=kwargs: fn.resize(x, **kw), layout)
    shapes = _random_shapes(rng, BATCH, layout=layout)
    axes = tuple(i for i, c in enumerate(layout) if c in "HW")
    tl = _batch(shapes, layout=layout, flat=seed % 2 == 1)
    step.impl.run_gpu(_ws(step, tl))
    plans = _old_resize_plans(step.impl, _ws(step, tl), shapes, axes)
    ref, samples = _reference_descs(shapes, axes, plans, *_pointers(tl, shapes, axes, plans))
    _check_launch(rec, ref, samples, tl)


def _per_sample_values(rng, name, n):
    if name in ("resize_x", "resize_y", "resize_shorter"):
        # negative: a flip for resize_x/y (DALI's documented meaning); an error for
        # resize_shorter (test_resize.test_negative_shorter_or_longer_side_is_an_error)
        flip = [] if name == "resize_shorter" else [-64.0]
        v = rng.choice([0.0, 50.0, 224.0, 33.3, 1000.0, *flip], n)
        return [np.float32(x) for x in v]
    if name == "size":
        return [np.array(rng.choice([0.0, 20.5, 224.0, -90.0], 2), np.float32) for _ in range(n)]
    if name == "roi_start":
        return [np.array(rng.uniform(-0.2, 0.6, 2), np.float32) for _ in range(n)]
    if name == "roi_end":
        return [np.array(rng.uniform(0.3, 1.2, 2), np.float32) for _ in range(n)]
    if name in ("interp_type", "min_filter", "mag_filter"):
        return [np.int32(v) for v in rng.integers(0, 6, n)]
    raise AssertionError(name)


TENSOR_CASES = {
    "x": ("resize_x",),
    "xy": ("resize_x", "resize_y"),
    "size": ("size",),
    "shorter": ("resize_shorter",),
    "roi": ("size", "roi_start", "roi_end"),
    "interp": ("resize_x", "interp_type"),
    "min_mag": ("size", "min_filter", "mag_filter"),
}


@pytest.mark.parametrize("case", sorted(TENSOR_CASES))
@pytest.mark.parametrize("seed", range(3))
def test_resize_per_sample_arguments(rec, case, seed):
    rng = np.random.default_rng(seed + 1000)
    names = TENSOR_CASES[case]
    extra = {"roi_relative": True} if "roi_start" in names else {}
    step = _step(lambda x, **kw: fn.resize(x, **kw, **extra), "HWC", names)
    shapes = _random_shapes(rng, BATCH)
    targs = {k: _per_sample_values(rng, k, BATCH) for k in names}
    if case == "size" and seed == 1:  # one value per sample (repeated for both axes)
        targs["size"] = [np.array([v], np.float32) for v in rng.choice([30.0, 224.0], BATCH)]
    tl = _batch(shapes, flat=True)
    step.impl.run_gpu(_ws(step, tl, targs))
    plans = _old_resize_plans(step.impl, _ws(step, tl, targs), shapes, (0, 1))
    ref, samples = _reference_descs(shapes, (0, 1), plans, *_pointers(tl, shapes, (0, 1), plans))
    _check_launch(rec, ref, samples, tl)


def test_resize_ragged_per_sample_sizes_take_the_per_sample_helpers(rec):
    """Samples with 1 or 2 values of ``size`` (not one array): same plans as the reference."""
    step = _step(lambda x, size: fn.resize(x, size=size), "HWC", ("size",))
    shapes = [(100, 200, 3), (50, 60, 3), (300, 20, 3)]
    targs = {"size": [np.array([40.0], np.float32), np.array([10.0, 30.0], np.float32),
                      np.array([7.5], np.float32)]}  # fmt: skip
    tl = _batch(shapes)
    step.impl.run_gpu(_ws(step, tl, targs))
    plans = _old_resize_plans(step.impl, _ws(step, tl, targs), shapes, (0, 1))
    ref, samples = _reference_descs(shapes, (0, 1), plans, *_pointers(tl, shapes, (0, 1), plans))
    _check_launch(rec, ref, samples, tl)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"resize_x": 100},
        {"size": (20, 20), "mode": "stretch"},
        {"resize_shorter": 20, "max_size": 30},
        {"size": (20, 30), "roi_start": (0.5, 0.0), "roi_end": (0.5, 1.0), "roi_relative": True},
    ],
)
def test_resize_empty_images_and_errors(rec, kwargs):
    """Empty images take the per-sample path: the same plans, or the same error."""
    rng = np.random.default_rng(5)
    shapes = _random_shapes(rng, BATCH, empty=True)
    tl = _batch(shapes)
    step = _step(lambda x: fn.resize(x, **kwargs), "HWC")
    try:
        plans = _old_resize_plans(step.impl, _ws(step, tl), shapes, (0, 1))
    except (OperatorError, ZeroDivisionError) as e:  # so must the batch planning, identically
        with pytest.raises(type(e)) as new:
            step.impl.run_gpu(_ws(step, tl))
        assert str(new.value) == str(e)
        return
    step.impl.run_gpu(_ws(step, tl))
    ref, samples = _reference_descs(shapes, (0, 1), plans, *_pointers(tl, shapes, (0, 1), plans))
    _check_launch(rec, ref, samples, tl)
    assert min(p[0].out_size for p in plans) == 0


def test_resize_all_empty_batch_and_volumes_take_the_reference_path(rec):
    step = _step(lambda x: fn.resize(x, resize_x=10), "HWC")
    tl = _batch([(0, 5, 3), (0, 7, 3)])
    out = step.impl.run_gpu(_ws(step, tl))
    assert out == [(0, 10, 3), (0, 10, 3)]  # the stand-in's output: the shapes
    assert not rec.launches and not rec.separable
    step = _step(lambda x: fn.resize(x, size=(4, 5, 6)), "DHWC")
    shapes = [(8, 9, 10, 1), (3, 4, 5, 1)]
    tl = _batch(shapes, layout="DHWC")
    step.impl.run_gpu(_ws(step, tl))
    ((samples, _, _),) = rec.separable
    assert [s.plans for s in samples] == _old_resize_plans(
        step.impl, _ws(step, tl), shapes, (0, 1, 2)
    )


def test_separable_fallback_gets_the_reference_samples(rec):
    """Too many channels for the tiled kernel: the separable passes get the same samples."""
    step = _step(lambda x: fn.resize(x, resize_x=30, resize_y=20), "HWC")
    shapes = [(50, 60, 80), (31, 17, 80)]
    tl = _batch(shapes)
    step.impl.run_gpu(_ws(step, tl))
    plans = _old_resize_plans(step.impl, _ws(step, tl), shapes, (0, 1))
    ref, samples = _reference_descs(shapes, (0, 1), plans, None, None)
    assert ref is None
    _check_launch(rec, None, samples, tl)


# -- random_resized_crop ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_random_resized_crop_plans_equal_the_per_sample_reference(rec, seed):
    rng = np.random.default_rng(seed + 77)
    layout = ["HWC", "CHW", "FHWC"][seed % 3]
    size = [(224, 224), (100, 37), (400, 500)][seed % 3]
    kwargs = {"size": size, **_filter_args(rng), "antialias": seed % 2 == 0}
    names = ("interp_type",) if seed == 5 else ()
    step = _step(lambda x, kw=kwargs, **t: fn.random_resized_crop(x, **kw, **t), layout, names)
    shapes = _random_shapes(rng, BATCH, layout=layout)
    targs = {k: _per_sample_values(rng, k, BATCH) for k in names}
    tl = _batch(shapes, layout=layout, flat=True)
    step.impl.run_gpu(_ws(step, tl, targs))
    # the reference: RandomResizedCrop.run_gpu before the batch planning
    impl, ws = step.impl, _ws(step, tl, targs)
    axes = tuple(i for i, c in enumerate(layout) if c in "HW")
    filters = impl.filters(ws)
    windows = impl.crop_windows(ws, shapes, axes)
    plans = []
    for s, (y0, x0, h, w), (mn, mg) in zip(shapes, windows, filters):
        aa = impl.arg("antialias")
        plans.append([
            R.AxisPlan.make(s[axes[0]], size[0], y0, y0 + h, mn, mag_interp=mg, antialias=aa),
            R.AxisPlan.make(s[axes[1]], size[1], x0, x0 + w, mn, mag_interp=mg, antialias=aa),
        ])  # fmt: skip
    ref, samples = _reference_descs(shapes, axes, plans, *_pointers(tl, shapes, axes, plans))
    _check_launch(rec, ref, samples, tl)


def test_random_resized_crop_empty_image_error(rec):
    step = _step(lambda x: fn.random_resized_crop(x, size=10), "HWC")
    tl = _batch([(10, 10, 3), (0, 4, 3)])
    with pytest.raises(Exception, match=r"sample 1: cannot crop an empty image \(0x4\)"):
        step.impl.run_gpu(_ws(step, tl))


# -- the building blocks ------------------------------------------------------------------------


def test_output_geometry_batch_equals_output_geometry():
    rng = np.random.default_rng(3)
    n = 4000
    shapes = rng.integers(0, 700, (n, 2))
    shapes[rng.random((n, 2)) < 0.3] = 1
    choices = np.array([0.0, 1.0, 0.5, 2.5, 33.3, 224.0, 1e-7, -50.0, 899.9, 3e8])
    for mode in ("default", "stretch", "not_larger", "not_smaller"):
        for max_size in (None, [300.0, 0.0], [120.0, 120.0]):
            for roi in (False, True):
                req = rng.choice(choices, (n, 2)).astype(np.float32).astype(np.float64)
                req[: n // 2] = rng.uniform(-900, 900, (n // 2, 2))
                lo = hi = None
                if roi:
                    lo = rng.uniform(-50, 700, (n, 2)).astype(np.float32).astype(np.float64)
                    hi = rng.uniform(-50, 700, (n, 2)).astype(np.float32).astype(np.float64)
                    hi[::5] = lo[::5]  # point ROIs
                for sub in (True, False):
                    out, glo, ghi, rare = output_geometry_batch(
                        shapes, req, mode=mode, max_size=max_size, roi_start=lo, roi_end=hi,
                        subpixel_scale=sub,
                    )  # fmt: skip
                    assert rare.mean() < 0.5
                    for i in np.flatnonzero(~rare)[:: 3 if sub else 7]:
                        ref = output_geometry(
                            shapes[i].tolist(), req[i].tolist(), mode=mode, max_size=max_size,
                            roi_start=None if lo is None else lo[i].tolist(),
                            roi_end=None if hi is None else hi[i].tolist(), subpixel_scale=sub,
                        )  # fmt: skip
                        got = (out[i].tolist(), glo[i].tolist(), ghi[i].tolist())
                        assert got == ref, (i, mode, max_size, roi, sub)


@pytest.mark.parametrize("mode", ["default", "stretch"])
@pytest.mark.parametrize("request_", [(224, 224), (300, -17), (-1, 5000), (1, 1)])
def test_a_fixed_whole_size_request_equals_output_geometry(mode, request_):
    """One whole-number size for every sample (resize_x and resize_y given) takes a shortcut:
    its rows equal `output_geometry`'s, and those of the general batch path."""
    from dali._ops.image.resample import geometry

    rng = np.random.default_rng(5)
    n = 700
    shapes = rng.integers(1, 3000, (n, 2))
    shapes[::7] = 1
    shapes[3] = (0, 40)  # empty: rare, as in the general path
    shapes[4] = (2**24, 3)  # beyond float32's whole numbers: rare too
    req = np.tile(np.array(request_, np.float64), (n, 1))
    assert geometry._plain_request(shapes, req, mode, None, None, None) is not None
    out, lo, hi, rare = output_geometry_batch(shapes, req, mode=mode)
    assert rare[[3, 4]].all() and rare.sum() == 2
    general = geometry.gil.by_rows(
        lambda e, r: geometry._geometry_rows(e, r, mode, None, None, None, False, True),
        n, 2, shapes, req,
    )  # fmt: skip
    keep = ~rare
    for got, want in zip((out, lo, hi), general[:3]):
        np.testing.assert_array_equal(got[keep], want[keep])
    for i in np.flatnonzero(keep)[::11]:
        ref = output_geometry(shapes[i].tolist(), list(request_), mode=mode)
        assert (out[i].tolist(), lo[i].tolist(), hi[i].tolist()) == ref, i


def test_the_shortcut_is_only_for_fixed_whole_sizes():
    from dali._ops.image.resample import geometry

    shapes = np.full((4, 2), 100)
    plain = np.full((4, 2), 50.0)
    assert geometry._plain_request(shapes, plain, "default", None, None, None) is not None
    varying = plain.copy()
    varying[2, 1] = 51.0
    for req, mode, max_size, roi in [
        (varying, "default", None, None),  # not the same for every sample
        (np.full((4, 2), 50.5), "default", None, None),  # not whole
        (np.array([[50.0, 0.0]] * 4), "default", None, None),  # one extent not given
        (plain, "not_larger", None, None),
        (plain, "default", [40.0, 0.0], None),
        (plain, "default", None, np.zeros((4, 2))),
    ]:
        got = geometry._plain_request(shapes, req, mode, max_size, roi, roi)
        assert got is None, (req, mode, max_size, roi)


def test_output_geometry_batch_flags_the_rare_rows():
    out, _lo, _hi, rare = output_geometry_batch(
        np.array([[0, 10], [10, 10], [10, 10], [10, 10]]),
        np.array([[5.0, 5.0], [np.nan, 3.0], [5.0, 3.0], [1e12, 1.0]]),
        roi_start=np.array([[0.0, 0.0], [0.0, 0.0], [4.0, 0.0], [0.0, 0.0]]),
        roi_end=np.array([[0.0, 10.0], [10.0, 10.0], [4.0, 10.0], [10.0, 10.0]]),
    )
    # empty input, NaN, an (unadjusted) empty ROI would be non-rare only for point ROIs
    assert rare.tolist() == [True, True, False, True]
    assert out[2].tolist() == [5, 3]


@pytest.mark.parametrize("antialias", [True, False])
def test_plan_batch_equals_axis_plan_make(antialias):
    rng = np.random.default_rng(1)
    n = 3000
    in_size = rng.integers(0, 900, (n, 2))
    out_size = rng.integers(0, 900, (n, 2))
    out_size[::4] = 224
    lo = rng.uniform(-100, 900, (n, 2)).astype(np.float32).astype(np.float64)
    hi = rng.uniform(-100, 900, (n, 2)).astype(np.float32).astype(np.float64)
    hi[::6] = lo[::6]  # degenerate: the whole axis
    lo[1::6], hi[1::6] = 0.0, in_size[1::6]
    mins = rng.integers(0, 6, (n, 1))
    mags = rng.integers(0, 6, (n, 1))
    pb = RP.plan_batch(in_size, out_size, lo, hi, mins, mags, antialias)
    got = pb.plans()
    for i in range(n):
        ref = [
            R.AxisPlan.make(
                int(in_size[i, d]), int(out_size[i, d]), float(lo[i, d]), float(hi[i, d]),
                int(mins[i, 0]), mag_interp=int(mags[i, 0]), antialias=antialias,
            )
            for d in range(2)
        ]  # fmt: skip
        assert got[i] == ref, i
    assert RP.PlanBatch.from_plans(got, 2).plans() == got
    with pytest.raises(ValueError, match="unknown interpolation type 9"):
        RP.plan_batch([[4, 4]], [[2, 2]], [[0, 0]], [[4, 4]], 9, 9, True)


@pytest.mark.parametrize("inner", [1, 3, 4, 7, 64, 65])
def test_descs_and_tiles_equal_the_per_sample_reference(inner):
    """`_Images` + `_descs_2d` + `_choose_tiles` against `_Sample` & co. on random plans,
    including NN rows (accumulated coordinates), flips, empty samples and wide filters."""
    rng = np.random.default_rng(inner)
    n = 300
    hw = rng.integers(1, 800, (n, 2))
    hw[5] = (0, 40)
    out = rng.integers(1, 400, (n, 2))
    out[::9] = rng.integers(1, 6, (len(out[::9]), 2))  # large downscales: wide filters
    lo = rng.uniform(-20, 400, (n, 2))
    hi = rng.uniform(-20, 800, (n, 2))
    pb = RP.plan_batch(hw, out, lo.astype(np.float32), hi.astype(np.float32),
                       rng.integers(0, 6, (n, 1)), rng.integers(0, 6, (n, 1)), True)  # fmt: skip
    for take in (slice(None), slice(0, 40), slice(100, 101)):
        sub = RP.PlanBatch(*(a[take] for a in pb))
        shapes = np.concatenate([hw[take], np.full((len(sub.in_size), 1), inner)], axis=1)
        geo = RP.Images(shapes, (0, 1), sub)
        samples = [RP.Sample(tuple(s), (0, 1), p) for s, p in zip(shapes.tolist(), sub.plans())]
        assert geo.out_shapes() == [s.out_shape for s in samples]
        tiles = RP.choose_tiles(geo)
        assert tiles == RP.choose_tiles_reference(samples)
        in_ptrs = np.arange(len(samples), dtype=np.uint64) * np.uint64(1000)
        out_ptrs = in_ptrs + np.uint64(7)
        for th, tw in [(32, 64), (8, 8), (2, 4)]:
            desc, blocks = RP.descs_2d(geo, in_ptrs, out_ptrs, th, tw)
            ref, ref_blocks = RP.descs_2d_reference(samples, in_ptrs, out_ptrs, th, tw)
            assert desc.tobytes() == ref.tobytes()
            assert blocks.tolist() == ref_blocks.tolist()
    if inner > 64:
        assert tiles is None


def test_input_batch_addresses_dense_flat_and_separate_samples():
    shapes = [(3, 4, 3), (5, 2, 3), (1, 1, 3)]
    for tl in (_batch(shapes, flat=True), _batch(shapes)):
        got_shapes, arr, ptrs, keep = G.input_batch(tl)
        assert got_shapes == shapes and arr.tolist() == [list(s) for s in shapes]
        assert ptrs.tolist() == [s.data.ptr for s in tl.samples()]
        assert keep
    dense = TensorListCPU.wrap(_dev((4, 2, 3, 1)), layout="HWC")
    got_shapes, arr, ptrs, _ = G.input_batch(dense)
    assert got_shapes == [(2, 3, 1)] * 4 and arr.shape == (4, 3)
    assert ptrs.tolist() == [dense._dense_arr.data.ptr + 6 * i for i in range(4)]
    assert (
        G.is_uniform([(1, 2)] * 3) and not G.is_uniform([(1, 2), (2, 1)]) and not G.is_uniform([])
    )


# -- crop_mirror_normalize ----------------------------------------------------------------------

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

CMN_CASES = {
    "resnet": (
        {"dtype": types.FLOAT16, "output_layout": "CHW", "mean": MEAN, "std": STD},
        ("mirror",),
    ),
    "resnet_const_mirror": ({"dtype": types.FLOAT16, "mean": MEAN, "std": STD, "mirror": 1}, ()),
    "crop_hwc": (
        {"crop": (20, 30), "output_layout": "HWC", "mean": [1.0], "std": [2.0]},
        ("mirror",),
    ),
    "crop_pos_pad": (
        {
            "crop": (50, 10),
            "crop_pos_x": 0.2,
            "out_of_bounds_policy": "pad",
            "fill_values": [1, 2, 3],
            "pad_output": True,
            "dtype": types.UINT8,
        },
        ("mirror",),
    ),
    "per_sample_norm": ({"output_layout": "CHW"}, ("mirror", "mean", "std")),
    "chw_in": ({"mean": MEAN, "std": STD, "output_layout": "HWC"}, ("mirror",)),
}


def _cmn_args(rng, names, n, ragged_mirror):
    out = {}
    for k in names:
        if k == "mirror":
            flags = rng.integers(0, 2, n).astype(np.int32)
            out[k] = [np.array([f], np.int32) for f in flags] if ragged_mirror else flags
        elif k == "mean":
            out[k] = [np.array(rng.uniform(0, 200, 3), np.float32) for _ in range(n)]
        elif k == "std":
            out[k] = [np.array(rng.uniform(1, 90, 1), np.float32) for _ in range(n)]
    return out


def _old_cmn(impl, ws, tl):
    """`CropMirrorNormalize.run_gpu` before the batch planning (per-sample windows, flags)."""
    from dali._ops.image.crop_mirror_normalize import _next_pow2

    in_layout = tl._layout
    out_layout = impl._out_layout(in_layout)
    shapes, ptrs, keep = G.input_pointers(tl)
    src = W.GpuBatch(shapes, ptrs, keep, np.dtype(tl.np_dtype), int(tl.sample_ndim))  # no array
    c_axis = in_layout.find("C")
    channels = [s[c_axis] for s in src.shapes]
    wins = impl._win.windows(ws, src.shapes, in_layout)
    mean, inv, same_norm = impl._norm_params(ws, channels)
    pad = bool(impl.arg("pad_output"))
    return W.cmn_batch(
        src, wins, in_layout=in_layout, out_layout=out_layout, out_dtype=impl._dtype,
        mirror=ws.arg_scalars("mirror", np.int64) != 0, mean=mean, inv=inv,
        uniform_norm=same_norm, out_channels=[_next_pow2(c) if pad else c for c in channels],
        fill=impl._gpu_fill(src.shapes, wins, channels, in_layout),
    ), (mean, inv, same_norm)  # fmt: skip


@pytest.mark.parametrize("case", sorted(CMN_CASES))
@pytest.mark.parametrize("ragged", [False, True])
def test_crop_mirror_normalize_descs_equal_the_per_sample_reference(rec, case, ragged):
    rng = np.random.default_rng(len(case) + ragged)
    kwargs, names = CMN_CASES[case]
    layout = "CHW" if case == "chw_in" else "HWC"
    step = _step(lambda x, kw=kwargs, **t: fn.crop_mirror_normalize(x, **kw, **t), layout, names)
    if ragged:
        shapes = _random_shapes(rng, BATCH, layout=layout, lo=30, hi=80, thin=False)
        tl = _batch(shapes, layout=layout, flat=True)
    else:
        shape = (3, 224, 224) if layout == "CHW" else (224, 224, 3)
        tl = TensorListCPU.wrap(_dev((BATCH, *shape)), layout=layout)
    targs = _cmn_args(rng, names, BATCH, ragged)
    new_out = step.impl.run_gpu(_ws(step, tl, targs))
    new_uploads, new_launches = rec.uploads[:], rec.launches[:]
    rec.uploads.clear()
    rec.launches.clear()
    old_out, (mean, inv, same) = _old_cmn(step.impl, _ws(step, tl, targs), tl)
    assert new_out == old_out  # the output shapes
    assert len(new_uploads) == len(rec.uploads) == 1
    for got, ref in zip(new_uploads[0], rec.uploads[0]):
        assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()
    # the normalisation rows: one row when uniform, else one per sample
    rows = np.stack([mean, inv], axis=1).astype(np.float32)
    assert new_uploads[0][2].tobytes() == (rows[:1] if same else rows).tobytes()
    assert [(n, g) for n, g, _, _ in new_launches] == [(n, g) for n, g, _, _ in rec.launches]
    for (_, _, a, _), (_, _, b, _) in zip(new_launches, rec.launches):
        assert [x for x in a if not isinstance(x, str)] == [x for x in b if not isinstance(x, str)]


def test_crop_mirror_normalize_mirror_flags(rec):
    """Integer flags are read in one go; other per-sample values are checked one by one."""
    step = _step(lambda x, mirror: fn.crop_mirror_normalize(x, mirror=mirror), "HWC", ("mirror",))
    tl = TensorListCPU.wrap(_dev((3, 4, 4, 3)), layout="HWC")
    for flags in ([np.int32(2), np.int32(0), np.int32(-1)], np.array([1, 0, 1], np.uint8),
                  [np.float32(0.5), np.float32(1.0), np.float32(0.0)]):  # fmt: skip
        ws = _ws(step, tl, {"mirror": flags})
        ref = _ws(step, tl, {"mirror": flags}).arg_scalars("mirror", np.int64)
        assert step.impl._mirror(ws).tolist() == (ref != 0).tolist()
    ws = _ws(step, tl, {"mirror": [np.zeros(2, np.int32)] * 3})
    with pytest.raises(Exception, match="sample 0: expected one value"):
        step.impl._mirror(ws)


def test_window_arrays_are_accepted_by_crop_batch(rec):
    tl = _batch([(5, 6, 3), (7, 8, 3)])
    wins = [([1, 2, 0], [3, 3, 3]), ([0, 0, 0], [7, 8, 3])]
    W.crop_batch(W.gpu_batch(tl), wins, layout="HWC", out_dtype=np.uint8, fill=np.zeros(1))
    arrays = W.WindowArrays(np.array([w[0] for w in wins]), np.array([w[1] for w in wins]))
    W.crop_batch(W.gpu_batch(tl), arrays, layout="HWC", out_dtype=np.uint8, fill=np.zeros(1))
    (a_desc, *a_rest), (b_desc, *b_rest) = rec.uploads
    assert a_desc.tobytes() == b_desc.tobytes()
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a_rest, b_rest))
