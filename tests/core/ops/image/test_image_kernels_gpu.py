"""CPU/GPU parity of the batched kernels of crop, crop_mirror_normalize, flip and the colour
operators (`dali._ops.window.extract_gpu`, `dali._ops.image._color_gpu`).

Every parity test runs ONE pipeline body twice, on the CPU and with the data moved to the GPU
(``.gpu()`` after the source), over ragged batches with per-sample arguments, and compares
shapes, dtypes and layouts exactly and the values exactly — except the colour operators' full
3×3 matrices, whose float32 sums the CPU leaves to OpenCV or BLAS (summation order, fused
multiply-adds): there the tolerance is ±1 for integers and 1e-5 relative for floats. Each check
prints ``PARITY <case> max_diff=<d>`` (``-s`` shows them).

The host-side packing (`window_descs`, `color_plan`) is also checked without a GPU.
"""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import _color_gpu
from dali._ops.window import extract_gpu
from parity import assert_same, device_id, to_device

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
SIZES = [(40, 60), (33, 17), (64, 48), (25, 90), (60, 60), (1, 7)]

# -- helpers -------------------------------------------------------------------------------------


def _image(h: int, w: int, c: int = 3, seed: int = 0, dtype=np.uint8) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (h, w, c)).astype(dtype)


def _ragged(sizes=SIZES, c: int = 3, dtype=np.uint8) -> list[np.ndarray]:
    return [_image(h, w, c, seed=i, dtype=dtype) for i, (h, w) in enumerate(sizes)]


def _floats(sizes=SIZES, dtype=np.float32) -> list[np.ndarray]:
    """Values that exercise rounding: halves, negatives, out of range, NaN and inf."""
    special = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.7, -2.7, 255.5, 300.2, -300.0, np.nan, np.inf])
    out = []
    for i, (h, w) in enumerate(sizes):
        rng = np.random.default_rng(100 + i)
        x = rng.uniform(-40, 300, (h, w, 3))
        x.reshape(-1)[: special.size] = special[: min(special.size, x.size)]
        out.append(x.astype(dtype))
    return out


def _per_sample(values, dtype=np.float32):
    return [np.asarray(v, dtype=dtype) for v in values]


def _run(op, batch, layout, device, *, args=None, seed=7, prefetch=2, dense=False):
    batch = list(batch)

    def feeder(values):
        arrays = [np.asarray(x) for x in values]
        return lambda: arrays

    def batch_feeder(values):  # one dense array: the batch stays dense on the GPU too
        array = np.stack([np.asarray(x) for x in values])
        return lambda: array

    @dali.pipeline_def(
        batch_size=len(batch),
        num_threads=2,
        device_id=device_id(device),
        seed=seed,
        prefetch_queue_depth=prefetch,
    )
    def pipe():
        data = fn.external_source(source=(batch_feeder if dense else feeder)(batch), layout=layout)
        data = to_device(data, device)
        nodes = {k: fn.external_source(source=feeder(v)) for k, v in (args or {}).items()}
        out = op(data, **nodes)
        return tuple(out) if isinstance(out, (list, tuple)) else out

    p = pipe()
    p.build()
    return p.run()


def _parity(name, op, batch, layout="HWC", *, tol=0.0, rtol=0.0, args=None, dense=False):
    """Run ``op`` on the CPU and on the GPU; compare every output. Returns the max difference.

    ``dense``: the source gives the batch as one array (uniform shapes), else a list.
    """
    pytest.importorskip("cupy")
    cpu = _run(op, batch, layout, "cpu", args=args, dense=dense)
    gpu = _run(op, batch, layout, "gpu", args=args, dense=dense)
    return assert_same(cpu, gpu, atol=tol, rtol=rtol, name=name)


# -- crop_mirror_normalize -------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "UINT8", "INT8"])
@pytest.mark.parametrize("out_layout", ["CHW", "HWC"])
def test_cmn_ragged_per_sample_arguments(dtype, out_layout):
    n = len(SIZES)
    rng = np.random.default_rng(1)
    args = {
        "mirror": _per_sample([1, 0, 1, 1, 0, 1], np.int32),
        "mean": _per_sample(rng.uniform(0, 255, (n, 3))),
        "std": _per_sample(rng.uniform(1, 80, (n, 3))),
        "crop_pos_x": _per_sample(rng.uniform(0, 1, n)),
        "crop_pos_y": _per_sample(rng.uniform(0, 1, n)),
    }

    def op(x, **kw):
        return fn.crop_mirror_normalize(
            x,
            crop=(16, 12),
            out_of_bounds_policy="pad",
            dtype=getattr(types, dtype),
            output_layout=out_layout,
            scale=1.5 if dtype.endswith("INT8") else 1.0,
            shift=20.0 if dtype == "UINT8" else 0.0,
            **kw,
        )

    _parity(f"cmn_{dtype}_{out_layout}", op, _ragged(), args=args)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["UINT8", "INT8"])
def test_cmn_integer_outputs_round_half_away_and_saturate(dtype):
    # (x - 128) / 2 hits every half; scale 3 pushes most values out of range
    for scale in (1.0, 3.0):
        op = lambda x, s=scale: fn.crop_mirror_normalize(
            x, mean=128.0, std=2.0, scale=s, dtype=getattr(types, dtype)
        )
        _parity(f"cmn_round_{dtype}_{scale}", op, _ragged())


@pytest.mark.gpu
def test_cmn_out_of_bounds_fill_and_pad_output():
    args = {"mirror": _per_sample([0, 1, 1, 0, 1, 0], np.int32)}
    for dtype in ("UINT8", "FLOAT16"):
        op = lambda x, d=dtype, **kw: fn.crop_mirror_normalize(
            x,
            crop=(50, 70),
            crop_pos_x=0.2,
            out_of_bounds_policy="pad",
            fill_values=[7.5, -3.0, 300.0],
            mean=MEAN,
            std=STD,
            pad_output=True,
            dtype=getattr(types, d),
            **kw,
        )
        _parity(f"cmn_pad_fill_{dtype}", op, _ragged(), args=args)
    op = lambda x: fn.crop_mirror_normalize(
        x, crop=(20, 20), out_of_bounds_policy="trim_to_shape", pad_output=True, mean=[10.0]
    )
    _parity("cmn_trim_pad_gray", op, _ragged(c=1))


@pytest.mark.gpu
def test_cmn_dense_batch_random_mirror_fp16_chw():
    """The training path: uniform uint8 HWC batch, fp16 CHW out, coin-flip mirror."""
    batch = [_image(32, 32, seed=i) for i in range(8)]
    args = {"mirror": _per_sample([i % 3 == 0 for i in range(8)], np.int32)}
    op = lambda x, **kw: fn.crop_mirror_normalize(
        x, mean=MEAN, std=STD, dtype=types.FLOAT16, output_layout="CHW", **kw
    )
    _parity("cmn_dense_fp16", op, batch, args=args)


@pytest.mark.gpu
def test_cmn_float_inputs_nan_inf():
    for src in (np.float32, np.float64, np.float16):
        batch = _floats(dtype=src)
        for dtype in ("INT8", "UINT8", "FLOAT"):
            op = lambda x, d=dtype: fn.crop_mirror_normalize(
                x, mean=[1.0, 2.0, 3.0], std=[0.5, 2.0, 1.0], dtype=getattr(types, d)
            )
            _parity(f"cmn_{np.dtype(src).name}_{dtype}", op, batch)


@pytest.mark.gpu
def test_cmn_other_layouts_take_the_generic_kernel():
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in _ragged()]
    op = lambda x: fn.crop_mirror_normalize(
        x, crop=(10, 9), mean=MEAN, std=STD, mirror=1, out_of_bounds_policy="pad"
    )
    _parity("cmn_CHW_in", op, chw, "CHW")
    seq = [np.stack([x, 255 - x, x // 2]) for x in _ragged(SIZES[:4])]
    op = lambda x: fn.crop_mirror_normalize(
        x, crop=(12, 14), mean=MEAN, std=STD, mirror=1, out_of_bounds_policy="pad"
    )
    _parity("cmn_FHWC_to_FCHW", op, seq, "FHWC")
    rng = np.random.default_rng(3)
    vols = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(10, 20, 30, 3), (7, 9, 5, 3)]]
    op = lambda x: fn.crop_mirror_normalize(
        x,
        crop_d=5,
        crop_h=6,
        crop_w=8,
        crop_pos_z=0.3,
        out_of_bounds_policy="pad",
        fill_values=[9.0, 4.0, -1.0],
        mean=[100.0, 50.0, 0.0],
        dtype=types.INT8,
        mirror=1,
        pad_output=True,
    )
    _parity("cmn_DHWC_to_CDHW", op, vols, "DHWC")
    op = lambda x: fn.crop_mirror_normalize(x, output_layout="WCH", mean=[3.0], std=[2.0])
    _parity("cmn_HWC_to_WCH", op, _ragged())


# -- crop ------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [None, "FLOAT", "FLOAT16", "UINT8"])
def test_crop_ragged_per_sample_windows_and_fill(dtype):
    n = len(SIZES)
    rng = np.random.default_rng(2)
    args = {
        "crop_pos_x": _per_sample(rng.uniform(0, 1, n)),
        "crop_pos_y": _per_sample(rng.uniform(0, 1, n)),
        "crop_w": _per_sample(rng.integers(5, 80, n)),
        "crop_h": _per_sample(rng.integers(5, 80, n)),
    }
    kw = {} if dtype is None else {"dtype": getattr(types, dtype)}
    op = lambda x, **a: fn.crop(
        x, out_of_bounds_policy="pad", fill_values=[1.0, 2.5, 300.0], **kw, **a
    )
    _parity(f"crop_{dtype}", op, _ragged(), args=args)


@pytest.mark.gpu
def test_crop_truncates_floats_and_saturates():
    for src in (np.float32, np.float64, np.float16):
        op = lambda x: fn.crop(x, crop=(20, 10), dtype=types.UINT8, out_of_bounds_policy="pad")
        _parity(f"crop_{np.dtype(src).name}_to_u8", op, _floats(dtype=src))
        op = lambda x: fn.crop(x, crop=(9, 9), dtype=types.FLOAT16, out_of_bounds_policy="pad")
        _parity(f"crop_{np.dtype(src).name}_to_f16", op, _floats(dtype=src))
    wide = [(x.astype(np.int32) * 300 - 20000) for x in _ragged()]
    op = lambda x: fn.crop(x, crop=(8, 8), dtype=types.UINT8, out_of_bounds_policy="pad")
    _parity("crop_i32_to_u8", op, wide)
    op = lambda x: fn.crop(x, crop=(8, 8), out_of_bounds_policy="pad", fill_values=-7.0)
    _parity("crop_i32_keep", op, wide)


@pytest.mark.gpu
def test_crop_layouts_volumes_sequences_trim():
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in _ragged()]
    op = lambda x: fn.crop(x, crop=(30, 30), out_of_bounds_policy="pad", fill_values=[1, 2, 3])
    _parity("crop_CHW", op, chw, "CHW")
    op = lambda x: fn.crop(x, crop=(30, 30), out_of_bounds_policy="trim_to_shape")
    _parity("crop_trim", op, _ragged())
    seq = [np.stack([x, 255 - x]) for x in _ragged(SIZES[:4])]
    op = lambda x: fn.crop(x, crop=(3, 10, 10), out_of_bounds_policy="pad")
    _parity("crop_FHWC", op, seq, "FHWC")
    rng = np.random.default_rng(4)
    vols = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(10, 20, 30, 2), (7, 9, 5, 2)]]
    op = lambda x: fn.crop(x, crop=(6, 8, 10), crop_pos_z=0.8, out_of_bounds_policy="pad")
    _parity("crop_DHWC", op, vols, "DHWC")


@pytest.mark.gpu
def test_crop_dense_batches_one_window():
    """A dense batch: one window inside takes one strided copy; with a conversion, or reaching
    outside, the kernel."""
    batch = [_image(30, 40, seed=i) for i in range(5)]
    cases = {
        "inside_same_type": lambda x: fn.crop(x, crop=(20, 21)),
        "inside_to_f16": lambda x: fn.crop(x, crop=(20, 21), dtype=types.FLOAT16),
        "outside": lambda x: fn.crop(x, crop=(35, 21), out_of_bounds_policy="pad"),
    }
    for name, op in cases.items():
        _parity(f"crop_dense_{name}", op, batch, dense=True)


# -- flip ------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_flip_per_sample_flags_ragged():
    args = {
        "horizontal": _per_sample([1, 0, 1, 0, 1, 1], np.int32),
        "vertical": _per_sample([0, 0, 1, 1, 1, 0], np.int32),
    }
    _parity("flip_hwc", lambda x, **kw: fn.flip(x, **kw), _ragged(), args=args)
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)).astype(np.float32) for x in _ragged()]
    _parity("flip_chw_f32", lambda x, **kw: fn.flip(x, **kw), chw, "CHW", args=args)
    seq = [np.stack([x, x // 2]).astype(np.int16) for x in _ragged()]
    _parity("flip_fhwc_i16", lambda x, **kw: fn.flip(x, **kw), seq, "FHWC", args=args)


@pytest.mark.gpu
def test_flip_depthwise_volumes_and_no_flip():
    rng = np.random.default_rng(5)
    vols = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(4, 5, 6, 2), (3, 7, 2, 2)]]
    args = {"depthwise": _per_sample([1, 0], np.int32), "horizontal": _per_sample([0, 1], np.int32)}
    _parity("flip_dhwc", lambda x, **kw: fn.flip(x, vertical=1, **kw), vols, "DHWC", args=args)
    _parity("flip_none", lambda x: fn.flip(x, horizontal=0), _ragged())
    batch = [_image(30, 40, seed=i) for i in range(5)]
    for h, v in ((1, 0), (1, 1), (0, 0)):  # the same flags for a dense batch: one copy
        op = lambda x, h=h, v=v: fn.flip(x, horizontal=h, vertical=v)
        _parity(f"flip_dense_{h}{v}", op, batch, dense=True)
    flags = {"horizontal": _per_sample([1, 0, 1, 1, 0], np.int32)}
    _parity(
        "flip_dense_per_sample", lambda x, **kw: fn.flip(x, **kw), batch, args=flags, dense=True
    )


# -- colour operators ------------------------------------------------------------------------------


def _color_args(n):
    rng = np.random.default_rng(6)
    return {
        "hue": _per_sample(rng.uniform(-180, 180, n)),
        "saturation": _per_sample(rng.uniform(0, 2, n)),
        "brightness": _per_sample(rng.uniform(0.5, 1.5, n)),
        "contrast": _per_sample(rng.uniform(0.5, 1.5, n)),
    }


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [None, "FLOAT", "INT16", "FLOAT16"])
def test_color_twist_per_sample_matrices(dtype):
    kw = {} if dtype is None else {"dtype": getattr(types, dtype)}
    op = lambda x, **a: fn.color_twist(x, **kw, **a)
    float_out = dtype in ("FLOAT", "FLOAT16")
    tol, rtol = (1e-3, 1e-3) if dtype == "FLOAT16" else ((1e-4, 1e-5) if float_out else (1, 0))
    _parity(f"color_twist_{dtype}", op, _ragged(), tol=tol, rtol=rtol, args=_color_args(6))


@pytest.mark.gpu
def test_hsv_hue_saturation_float_inputs():
    args = _color_args(6)
    fb = [x.astype(np.float32) / 255 for x in _ragged()]
    op = lambda x, hue, saturation: fn.hsv(x, hue=hue, saturation=saturation, value=0.9)
    _parity("hsv_f32_to_u8", op, fb, tol=1, args={k: args[k] for k in ("hue", "saturation")})
    op = lambda x, hue: fn.hue(x, hue=hue)
    _parity("hue_u8", op, _ragged(), tol=1, args={"hue": args["hue"]})
    op = lambda x, saturation: fn.saturation(x, saturation=saturation, dtype=types.FLOAT)
    _parity("sat_f32", op, _ragged(), tol=1e-4, rtol=1e-5, args={"saturation": args["saturation"]})
    db = [x.astype(np.float64) for x in _ragged()]
    op = lambda x, hue: fn.hue(x, hue=hue)
    _parity("hue_f64", op, db, tol=1e-9, rtol=1e-12, args={"hue": args["hue"]})


@pytest.mark.gpu
def test_brightness_contrast_exact():
    n = len(SIZES)
    rng = np.random.default_rng(8)
    args = {
        "brightness": _per_sample(rng.uniform(0.25, 2, n)),
        "brightness_shift": _per_sample(rng.uniform(-0.2, 0.2, n)),
        "contrast": _per_sample(rng.uniform(0, 2, n)),
        "contrast_center": _per_sample(rng.uniform(0, 255, n)),
    }
    op = lambda x, **kw: fn.brightness_contrast(x, **kw)
    _parity("bc_u8", op, _ragged(), args=args)
    _parity("bc_gray", op, _ragged(c=1), args=args)
    op = lambda x, **kw: fn.brightness_contrast(x, dtype=types.INT8, **kw)
    _parity("bc_f32_to_i8", op, _floats(), args=args)
    op = lambda x, brightness: fn.brightness(x, brightness=brightness, dtype=types.FLOAT16)
    _parity("brightness_i16_f16", op, [x.astype(np.int16) * 50 for x in _ragged()],
            args={"brightness": args["brightness"]})  # fmt: skip
    op = lambda x, contrast: fn.contrast(x, contrast=contrast)
    _parity("contrast_f64", op, [x.astype(np.float64) for x in _floats()],
            args={"contrast": args["contrast"]})  # fmt: skip
    op = lambda x: fn.brightness(x, brightness=0.5)  # halves: rounded away from zero
    _parity("brightness_half", op, _ragged())


@pytest.mark.gpu
def test_color_identity_is_an_exact_conversion():
    wide = [(x.astype(np.int32) * 70000 - 9000000) for x in _ragged()]
    _parity("twist_identity_i32", lambda x: fn.color_twist(x), wide)
    _parity("twist_identity_to_u8", lambda x: fn.color_twist(x, dtype=types.UINT8), _floats())


# -- one launch per batch --------------------------------------------------------------------------


@pytest.mark.gpu
def test_one_kernel_launch_per_ragged_batch(monkeypatch):
    pytest.importorskip("cupy")
    from dali._ops.gpu import kernels as G

    names: list[str] = []
    original = G.kernel_module

    def counting(device, source, wanted):
        kernels = original(device, source, wanted)

        class Counted:
            def __init__(self, name, k):
                self.name, self.k = name, k

            def __call__(self, *a, **kw):
                names.append(self.name)
                return self.k(*a, **kw)

        return {k: Counted(k, v) for k, v in kernels.items()}

    monkeypatch.setattr(G, "kernel_module", counting)
    args = {"mirror": _per_sample([1, 0, 1, 1, 0], np.int32)}
    cases = {
        "cmn": lambda x, **kw: fn.crop_mirror_normalize(x, crop=(9, 9), dtype=types.FLOAT16, **kw),
        "crop": lambda x, **kw: fn.crop(x, crop=(9, 9)),
        "flip": lambda x, **kw: fn.flip(x, horizontal=kw["mirror"]),
        "twist": lambda x, **kw: fn.color_twist(x, hue=10),
    }
    for case, op in cases.items():
        names.clear()
        _run(op, _ragged(SIZES[:5]), "HWC", "gpu", args=args, prefetch=1)  # one iteration
        ours = [n for n in names if n.startswith(("dali_window", "dali_color"))]
        assert len(ours) == 1, (case, names)


# -- host side (no GPU) ----------------------------------------------------------------------------


def test_struct_sizes():
    assert extract_gpu.desc_size() == 144
    assert _color_gpu.desc_size() == 120


def _interpret(desc, inputs, ndim, fill, cdim):
    """What ``dali_window`` computes from a description, in numpy (reads ``inputs[ptr]``)."""
    outs = []
    for d in desc:
        shape = tuple(int(v) for v in d["out_shape"][:ndim])
        src = inputs[int(d["input"])]
        flat_in = src.reshape(-1)
        out = np.empty(shape, src.dtype)
        for o in np.ndindex(*shape):
            pos, inside, c = 0, True, 0
            for k in range(ndim):
                ok = o[k]
                if (int(d["flip"]) >> k) & 1:
                    ok = shape[k] - 1 - ok
                if k == cdim:
                    c = ok
                p = int(d["anchor"][k]) + ok
                inside = inside and 0 <= p < int(d["in_extent"][k])
                pos += p * int(d["in_stride"][k])
            out[o] = flat_in[pos] if inside else fill[c if fill.size > 1 else 0]
        outs.append(out)
    return outs


def test_window_descs_permute_flip_and_pad():
    """A CHW→HWC crop, mirrored, partly outside: the descriptions give the CPU's windows."""
    rng = np.random.default_rng(0)
    xs = [
        rng.integers(0, 256, (3, 5, 7), dtype=np.uint8),
        rng.integers(0, 256, (3, 4, 4), np.uint8),
    ]
    wins = [([0, 1, 2], [3, 3, 4]), ([0, -1, 1], [3, 4, 5])]
    perm = (1, 2, 0)  # CHW -> HWC
    flips = np.array([[False, False, True], [False, True, True]])
    desc = extract_gpu.window_descs(
        [x.shape for x in xs],
        np.array([0, 1], np.uint64),
        np.zeros(2, np.uint64),
        np.array([w[0] for w in wins]),
        np.array([w[1] for w in wins]),
        flips,
        perm,
        np.array([3, 3]),
    )
    fill = np.array([11, 22, 33], np.uint8)
    got = _interpret(desc, xs, 3, fill, cdim=perm.index(0))
    for i, (x, (anchor, shape)) in enumerate(zip(xs, wins)):
        ref = np.empty(shape, np.uint8)
        for c, y, w in np.ndindex(*shape):
            sy = anchor[1] + (shape[1] - 1 - y if flips[i, 1] else y)
            sx = anchor[2] + (shape[2] - 1 - w if flips[i, 2] else w)
            inside = 0 <= sy < x.shape[1] and 0 <= sx < x.shape[2]
            ref[c, y, w] = x[c, sy, sx] if inside else fill[c]
        np.testing.assert_array_equal(got[i], ref.transpose(perm))


def test_color_plan_modes_follow_the_cpu_path():
    from dali._ops.image.color import color_matrices

    ones, zeros = np.ones(2), np.zeros(2)
    mode, m = _color_gpu.color_plan(ones, zeros, np.dtype(np.uint8))
    assert mode == 0
    mode, m = _color_gpu.color_plan(np.array([0.5, 2.0]), np.array([0.1, 0.0]), np.dtype(np.int16))
    assert mode == 1 and m[:, 0].tolist() == [0.5, 2.0] and m[0, 3] == float(np.float32(0.1))
    diag = np.eye(3)[None] * np.array([0.5, 2.0])[:, None, None]  # a multiple of the identity
    mode, m = _color_gpu.color_plan(diag, np.zeros((2, 3)), np.dtype(np.uint8))
    assert mode == 1 and m[:, 0].tolist() == [0.5, 2.0]
    mats = color_matrices(np.array([30.0, 0.0]), ones, ones, ones, ones)
    mode, m = _color_gpu.color_plan(mats, np.full((2, 3), 0.1), np.dtype(np.uint8))
    assert mode == 2
    assert m[0, 3] == float(np.float32(0.1)) and m[0, 0] == float(np.float32(mats[0, 0, 0]))
    mode, m = _color_gpu.color_plan(mats, np.full((2, 3), 0.1), np.dtype(np.float64))
    assert mode == 2 and m[0, 3] == 0.1 and m[0, 0] == mats[0, 0, 0]


class _ArgsOp:
    """The operator interface `CropAttr` reads, over plain values (per-sample: lists)."""

    def __init__(self, **kw):
        self.kw = kw
        self.defaults = {
            "rounding": "round",
            "out_of_bounds_policy": "error",
            "crop_pos_x": 0.5,
            "crop_pos_y": 0.5,
            "crop_pos_z": 0.5,
            "crop_w": 0.0,
            "crop_h": 0.0,
            "crop_d": 0.0,
        }

    def has_arg(self, name):
        return name in self.kw

    def arg(self, name):
        return self.kw.get(name, self.defaults.get(name))

    def is_tensor_arg(self, name):
        return isinstance(self.kw.get(name), list)

    def arg_error(self, name, message):
        return ValueError(f"`{name}`: {message}")

    def workspace(self, n):
        """A `Workspace` of ``n`` samples whose argument inputs are the per-sample values."""
        from dali._exec.workspace import BatchMeta, Workspace
        from dali._tensors import TensorListCPU

        args = {
            k: TensorListCPU.wrap([np.asarray(x) for x in v], layout="")
            for k, v in self.kw.items()
            if isinstance(v, list)
        }
        return Workspace(self, [], args, BatchMeta.stream(0, n, 0), 0, 0, None, None)


def _reference_window(in_shape, layout, size, pos, truncate, policy):
    """One sample's window, computed as DALI does (scalar double arithmetic)."""
    from dali._ops.numeric import round_half_away_int
    from dali._ops.window.out_of_bounds import apply_policy

    crop = list(in_shape)
    norm = [0.5] * len(in_shape)
    cd, ch, cw = size
    d_dim = layout.find("D") if "D" in layout else layout.find("F")
    for dim, c, p in ((layout.find("H"), ch, pos[1]), (layout.find("W"), cw, pos[2])):
        if c > 0:
            crop[dim], norm[dim] = c, p
    if cd > 0 and d_dim >= 0:
        crop[d_dim], norm[d_dim] = cd, pos[0]
    anchor = []
    for d, extent in enumerate(in_shape):
        a = float(np.float32(norm[d])) * (extent - crop[d])
        anchor.append(int(a) if truncate else round_half_away_int(a))
    return apply_policy(policy, anchor, crop, in_shape)


@pytest.mark.parametrize("policy", ["pad", "trim_to_shape", "error"])
@pytest.mark.parametrize("rounding", ["round", "truncate"])
@pytest.mark.parametrize("layout", ["HWC", "CHW", "FHWC", "DHWC"])
def test_batched_windows_equal_the_per_sample_arithmetic(policy, rounding, layout):
    from dali._exec.workspace import SampleFailure
    from dali._ops.window.crop_attr import CropAttr

    rng = np.random.default_rng(len(policy) * 7 + len(rounding) + len(layout))
    n = 64
    shapes = []
    for _ in range(n):
        dims = {"H": int(rng.integers(1, 60)), "W": int(rng.integers(1, 60)), "C": 3}
        dims["D"] = dims["F"] = int(rng.integers(1, 9))
        shapes.append(tuple(dims[a] for a in layout))
    # positions that make halves: (extent - crop) even/odd times 0.5, and float32 roundings
    grid = np.array([0.0, 0.25, 0.5, 0.7, 1.0, 0.1], np.float32)
    kw = {
        "crop_w": [np.float32(v) for v in rng.integers(0, 70, n)],
        "crop_h": [np.float32(v) for v in rng.integers(0, 70, n)],
        "crop_pos_x": [grid[i % grid.size] for i in range(n)],
        "crop_pos_y": [np.float32(v) for v in rng.uniform(0, 1, n)],
        "rounding": rounding,
        "out_of_bounds_policy": policy,
    }
    if len(layout) == 4:
        kw["crop_d"] = [np.float32(v) for v in rng.integers(0, 10, n)]
        kw["crop_pos_z"] = [np.float32(v) for v in rng.uniform(0, 1, n)]
    op = _ArgsOp(**kw)
    wins = CropAttr(op)
    refs = []
    for i, s in enumerate(shapes):
        size = (int(kw["crop_d"][i]) if "crop_d" in kw else -1, int(kw["crop_h"][i]),
                int(kw["crop_w"][i]))  # fmt: skip
        pos = (kw.get("crop_pos_z", [0.5] * n)[i], kw["crop_pos_y"][i], kw["crop_pos_x"][i])
        refs.append(_reference_window(s, layout, size, pos, rounding == "truncate", policy))
    bad = [i for i, r in enumerate(refs) if isinstance(r, str)]
    if bad:
        with pytest.raises(SampleFailure) as e:
            wins.windows(op.workspace(n), shapes, layout)
        assert e.value.index == bad[0] and refs[bad[0]] in str(e.value.error)
        keep = [i for i in range(n) if i not in bad]
        shapes = [shapes[i] for i in keep]
        refs = [refs[i] for i in keep]
        kw = {k: [v[i] for i in keep] if isinstance(v, list) else v for k, v in kw.items()}
        op = _ArgsOp(**kw)
        wins = CropAttr(op)
    got = wins.windows(op.workspace(len(shapes)), shapes, layout)
    assert [(list(a), list(s)) for a, s in got] == [(list(a), list(s)) for a, s in refs]
