"""CPU/GPU parity of the batched GPU kernels: resize, random_resized_crop, rotate, warp_affine,
paste (`dali._ops.image.resample.gpu`, `_warp_gpu`).

Every test runs ONE pipeline body twice, on the CPU and with the data moved to the GPU
(``.gpu()`` after the source), and compares: shapes, dtypes and layouts exactly; pixels within
±1 (uint8) where interpolation is involved, exactly otherwise. Batches are ragged. Each parity
check prints ``PARITY <case> max_diff=<d>`` (run with ``-s`` to see them).

A second group checks the kernels against the numpy references directly (bit-exact: the GPU
reproduces the reference's float32 arithmetic), and the host-side helpers run without a GPU.
"""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.gpu import kernels as G
from dali._ops.image.resample import reference as R
from dali._ops.image.resize import axis_plans
from parity import assert_same, device_id, to_device

INTERPS = {
    "NN": types.INTERP_NN,
    "LINEAR": types.INTERP_LINEAR,
    "CUBIC": types.INTERP_CUBIC,
    "LANCZOS3": types.INTERP_LANCZOS3,
    "TRIANGULAR": types.INTERP_TRIANGULAR,
    "GAUSSIAN": types.INTERP_GAUSSIAN,
}

# -- helpers -------------------------------------------------------------------------------------


def _image(h: int, w: int, c: int = 3, seed: int = 0, dtype=np.uint8) -> np.ndarray:
    """Smooth structure plus noise: exercises both flat areas and sharp edges."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    base = 127 + 100 * np.sin(xx / 5.0 + seed) * np.cos(yy / 4.0)
    img = base[..., None] + rng.normal(0, 25, (h, w, c))
    return np.clip(img, 0, 255).astype(dtype)


def _ragged(sizes, c: int = 3, dtype=np.uint8) -> list[np.ndarray]:
    return [_image(h, w, c, seed=i, dtype=dtype) for i, (h, w) in enumerate(sizes)]


RAGGED = [(40, 60), (33, 17), (64, 48), (25, 90), (60, 60)]


def _run(op, batch, layout, device, *, args=None, inputs=None, seed=7):
    batch = list(batch)

    def feeder(values):
        arrays = [np.asarray(x) for x in values]
        return lambda: arrays

    @dali.pipeline_def(
        batch_size=len(batch),
        num_threads=2,
        device_id=device_id(device),
        seed=seed,
    )
    def pipe():
        data = fn.external_source(source=feeder(batch), layout=layout)
        data = to_device(data, device)
        extra = [fn.external_source(source=feeder(v)) for v in (inputs or [])]
        nodes = {k: fn.external_source(source=feeder(v)) for k, v in (args or {}).items()}
        out = op(data, *extra, **nodes)
        return tuple(out) if isinstance(out, (list, tuple)) else out

    p = pipe()
    p.build()
    return p.run()


def _parity(name, op, batch, layout="HWC", *, tol=0.0, args=None, inputs=None, seed=7):
    """Run ``op`` on the CPU and on the GPU; compare every output. Returns the max difference."""
    pytest.importorskip("cupy")
    cpu = _run(op, batch, layout, "cpu", args=args, inputs=inputs, seed=seed)
    gpu = _run(op, batch, layout, "gpu", args=args, inputs=inputs, seed=seed)
    return assert_same(cpu, gpu, atol=tol, name=name)


# -- resize --------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("interp", sorted(INTERPS))
def test_resize_ragged_all_filters(interp):
    # mixed down- and upscaling in one batch; the same size request for every sample
    op = lambda x: fn.resize(x, resize_x=37, resize_y=29, interp_type=INTERPS[interp])
    _parity(f"resize_{interp}", op, _ragged(RAGGED), tol=0 if interp == "NN" else 1)


@pytest.mark.gpu
@pytest.mark.parametrize("interp", ["LINEAR", "CUBIC", "LANCZOS3"])
def test_resize_upscale_and_no_antialias(interp):
    op = lambda x: fn.resize(x, size=(71, 95), interp_type=INTERPS[interp], antialias=False)
    _parity(f"resize_noaa_{interp}", op, _ragged(RAGGED), tol=1)


@pytest.mark.gpu
def test_resize_float_output_and_float_input():
    batch = _ragged(RAGGED)
    op = lambda x: fn.resize(x, resize_shorter=21, dtype=types.FLOAT)
    _parity("resize_u8_to_f32", op, batch, tol=0.01)
    fbatch = [(x.astype(np.float32) / 255.0) for x in batch]
    op = lambda x: fn.resize(x, resize_longer=50, interp_type=types.INTERP_CUBIC)
    _parity("resize_f32_cubic", op, fbatch, tol=2e-3)


@pytest.mark.gpu
def test_resize_int16_and_float16():
    batch = [(x.astype(np.int16) * 100 - 9000) for x in _ragged(RAGGED[:3])]
    _parity("resize_i16", lambda x: fn.resize(x, size=(20, 30)), batch, tol=1)
    hbatch = [(x.astype(np.float16) / 8) for x in _ragged(RAGGED[:3])]
    _parity("resize_f16", lambda x: fn.resize(x, size=(20, 30)), hbatch, tol=0.02)


@pytest.mark.gpu
def test_resize_per_sample_sizes_and_filters():
    batch = _ragged(RAGGED)
    args = {
        "resize_x": [np.float32(v) for v in (20, 50, 7.5, 91, 33.3)],
        "interp_type": [
            np.int32(v)
            for v in (
                types.INTERP_NN,
                types.INTERP_CUBIC,
                types.INTERP_LINEAR,
                types.INTERP_LANCZOS3,
                types.INTERP_GAUSSIAN,
            )
        ],
    }
    op = lambda x, **kw: fn.resize(x, **kw)
    _parity("resize_per_sample", op, batch, tol=1, args=args)
    mag = {"min_filter": types.INTERP_NN, "mag_filter": types.INTERP_CUBIC}
    op = lambda x: fn.resize(x, size=(30, 30), **mag)
    _parity("resize_min_nn_mag_cubic", op, batch, tol=1)


@pytest.mark.gpu
def test_resize_roi_flips_and_modes():
    batch = _ragged(RAGGED)
    cases = {
        "roi_abs": lambda x: fn.resize(x, size=(20, 30), roi_start=(3, 5), roi_end=(20, 15.5)),
        "roi_rel_flip": lambda x: fn.resize(
            x, size=(25, 25), roi_start=(0.9, 0.1), roi_end=(0.2, 0.7), roi_relative=True
        ),
        "neg_size": lambda x: fn.resize(x, resize_x=-30, resize_y=-20),
        "shorter_max": lambda x: fn.resize(x, resize_shorter=40, max_size=60),
        "not_larger": lambda x: fn.resize(x, size=(30, 30), mode="not_larger"),
        "subpixel_off": lambda x: fn.resize(x, resize_x=33.3, subpixel_scale=False),
        "nn_flip": lambda x: fn.resize(x, resize_x=-45, interp_type=types.INTERP_NN),
    }
    for name, op in cases.items():
        tol = 0 if name.startswith("nn") else 1
        _parity(f"resize_{name}", op, batch, tol=tol)


@pytest.mark.gpu
def test_resize_layouts_and_volumes():
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in _ragged(RAGGED)]
    _parity("resize_CHW", lambda x: fn.resize(x, size=(21, 34)), chw, "CHW", tol=1)
    fhwc = [np.stack([x, 255 - x]) for x in _ragged(RAGGED[:3])]
    _parity("resize_FHWC", lambda x: fn.resize(x, resize_x=40), fhwc, "FHWC", tol=1)
    rng = np.random.default_rng(3)
    vols = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(10, 20, 30, 2), (7, 9, 5, 2)]]
    for interp in ("LINEAR", "NN", "CUBIC"):
        op = lambda x, i=interp: fn.resize(x, size=(6, 15, 11), interp_type=INTERPS[i])
        _parity(f"resize_DHWC_{interp}", op, vols, "DHWC", tol=0 if interp == "NN" else 1)


@pytest.mark.gpu
def test_resize_large_downscale_takes_the_separable_passes():
    batch = _ragged([(600, 800), (500, 300)])
    op = lambda x: fn.resize(x, size=(12, 16), interp_type=types.INTERP_LANCZOS3)
    _parity("resize_lanczos_25x_down", op, batch, tol=1)


@pytest.mark.gpu
def test_resize_save_attrs_on_gpu():
    op = lambda x: fn.resize(x, resize_x=10, save_attrs=True)
    _parity("resize_save_attrs", op, _ragged(RAGGED[:3]), tol=1)


# -- random_resized_crop ---------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("interp", ["LINEAR", "NN", "CUBIC"])
def test_rrc_same_windows_and_pixels(interp):
    op = lambda x: fn.random_resized_crop(x, size=(24, 32), interp_type=INTERPS[interp])
    batch = _ragged([*RAGGED, (120, 160), (80, 200), (150, 90)])
    _parity(f"rrc_{interp}", op, batch, tol=0 if interp == "NN" else 1)


@pytest.mark.gpu
def test_rrc_layouts_float_output_and_per_sample_filters():
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in _ragged(RAGGED)]
    op = lambda x: fn.random_resized_crop(x, size=(20, 20), dtype=types.FLOAT)
    _parity("rrc_CHW_float", op, chw, "CHW", tol=0.01)
    fhwc = [np.stack([x, x[::-1]]) for x in _ragged(RAGGED[:3])]
    op = lambda x: fn.random_resized_crop(x, size=(16, 16))
    _parity("rrc_FHWC", op, fhwc, "FHWC", tol=1)
    args = {"interp_type": [np.int32(v) for v in (0, 1, 2, 3, 5)]}
    op = lambda x, **kw: fn.random_resized_crop(x, size=(30, 20), **kw)
    _parity("rrc_per_sample_interp", op, _ragged(RAGGED), tol=1, args=args)


# -- rotate / warp_affine ----------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("interp", ["NN", "LINEAR"])
@pytest.mark.parametrize("fill", [None, 0.0])
def test_rotate_per_sample_angles(interp, fill):
    kw = {} if fill is None else {"fill_value": fill}
    angles = [np.float32(a) for a in (10.0, 45.0, -33.3, 90.0, 181.5)]

    def op(x, angle):
        return fn.rotate(x, angle=angle, interp_type=INTERPS[interp], **kw)

    _parity(
        f"rotate_{interp}_fill{fill}",
        op,
        _ragged(RAGGED),
        tol=0 if interp == "NN" else 1,
        args={"angle": angles},
    )


@pytest.mark.gpu
def test_rotate_sizes_dtype_frames_and_volumes():
    batch = _ragged(RAGGED)
    op = lambda x: fn.rotate(x, angle=30, keep_size=True, dtype=types.FLOAT)
    _parity("rotate_keep_size_float", op, batch, tol=0.01)
    op = lambda x: fn.rotate(x, angle=-20, size=(50, 40), fill_value=3)
    _parity("rotate_size", op, batch, tol=1)
    frames = [np.stack([x, 255 - x]) for x in _ragged(RAGGED[:3])]
    op = lambda x: fn.rotate(x, angle=15, interp_type=types.INTERP_NN)
    _parity("rotate_FHWC_nn", op, frames, "FHWC", tol=0)
    rng = np.random.default_rng(5)
    vols = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(8, 10, 12, 1), (6, 7, 5, 2)]]
    for interp in ("NN", "LINEAR"):
        op = lambda x, i=interp: fn.rotate(x, angle=30, axis=(1, 1, 0.5), interp_type=INTERPS[i])
        _parity(f"rotate_DHWC_{interp}", op, vols, "DHWC", tol=0 if interp == "NN" else 1)


@pytest.mark.gpu
@pytest.mark.parametrize("interp", ["NN", "LINEAR"])
def test_warp_affine_matrices(interp):
    batch = _ragged(RAGGED)
    it = INTERPS[interp]
    tol = 0 if interp == "NN" else 1
    shear = [0.9, 0.2, -3.0, -0.1, 1.1, 4.5]
    op = lambda x: fn.warp_affine(x, matrix=shear, interp_type=it)
    _parity(f"warp_{interp}_const", op, batch, tol=tol)
    op = lambda x: fn.warp_affine(
        x, matrix=shear, inverse_map=False, size=(45, 70), fill_value=9, interp_type=it
    )
    _parity(f"warp_{interp}_inverse_size_fill", op, batch, tol=tol)
    # NN ties: a 0.37 scale stepped along rows wider than 256 pixels
    wide = _ragged([(12, 700), (5, 300)], c=1)
    op = lambda x: fn.warp_affine(
        x, matrix=[0.37, 0, 0.1, 0, 1, 0], size=(10, 1500), interp_type=it
    )
    _parity(f"warp_{interp}_wide_rows", op, wide, tol=tol)
    mats = [np.array([[1, 0.1 * i, i], [-0.05 * i, 1, 2 - i]], dtype=np.float32) for i in range(5)]
    op = lambda x, mtx: fn.warp_affine(x, mtx, interp_type=it, fill_value=0)
    _parity(f"warp_{interp}_mtx_input", op, batch, tol=tol, inputs=[mats])
    per_sample = {"matrix": [m.reshape(-1) for m in mats]}
    op = lambda x, matrix: fn.warp_affine(x, matrix=matrix, interp_type=it)
    _parity(f"warp_{interp}_per_sample_matrix", op, batch, tol=tol, args=per_sample)


@pytest.mark.gpu
def test_warp_affine_volumes_and_types():
    rng = np.random.default_rng(6)
    vols = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(8, 10, 12, 1), (6, 7, 5, 2)]]
    m3 = [0.9, 0.1, 0, 1, -0.1, 1, 0.05, 0, 0, 0.02, 1.1, -1]
    op = lambda x: fn.warp_affine(x, matrix=m3, fill_value=0)
    _parity("warp_DHWC", op, vols, "DHWC", tol=1)
    batch = [x.astype(np.int16) - 100 for x in _ragged(RAGGED[:3])]
    op = lambda x: fn.warp_affine(x, matrix=[1, 0.3, 0, 0, 1, 0], dtype=types.FLOAT)
    _parity("warp_i16_to_f32", op, batch, tol=0.01)


# -- paste -------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_paste_ragged_per_sample_arguments():
    batch = _ragged(RAGGED)
    op = lambda x: fn.paste(x, ratio=1.55, fill_value=(1, 2, 3), paste_x=0, paste_y=1)
    _parity("paste_const", op, batch)
    args = {
        "ratio": [np.float32(v) for v in (1.0, 1.3, 2.0, 1.55, 3.1)],
        "paste_x": [np.float32(v) for v in (0.0, 0.25, 0.5, 1.0, 0.9)],
        "paste_y": [np.float32(v) for v in (1.0, 0.5, 0.1, 0.0, 0.3)],
        "min_canvas_size": [np.float32(v) for v in (0, 100.7, 0, 0, 10)],
    }
    op = lambda x, **kw: fn.paste(x, fill_value=(7,), n_channels=3, **kw)
    _parity("paste_per_sample", op, batch, args=args)


# -- the kernels against the numpy references (bit-exact) -----------------------------------------


def _to_gpu(arrays, layout):
    import cupy
    from dali._tensors import TensorListGPU

    return TensorListGPU.wrap([cupy.asarray(a) for a in arrays], layout=layout)


@pytest.mark.gpu
@pytest.mark.parametrize("separable", [False, True])
def test_resample_kernels_equal_the_reference(separable, monkeypatch):
    """Same weights, same order of float32 operations: equal to `resample_reference`."""
    pytest.importorskip("cupy")
    from dali._ops.image.resample import gpu as resample_gpu

    if separable:
        monkeypatch.setattr(resample_gpu, "choose_tiles", lambda samples: None)
    imgs = _ragged([(40, 60), (33, 17), (100, 90)])
    outs = [(24, 32), (50, 40), (21, 31)]
    for interp in INTERPS.values():
        for lo, hi in [(None, None), ((30.5, 2.0), (3.25, 15.0))]:
            plans = []
            for x, o in zip(imgs, outs):
                h, w = x.shape[:2]
                plans.append(
                    axis_plans((h, w), o, lo or (0.0, 0.0), hi or (h, w), interp, interp, True)
                )
            out = resample_gpu.resample_batch(_to_gpu(imgs, "HWC"), (0, 1), plans, np.uint8, "HWC")
            got = out.as_cpu()
            for i, (x, p) in enumerate(zip(imgs, plans)):
                ref = R.resample_reference(x, (0, 1), p, np.uint8)
                np.testing.assert_array_equal(np.asarray(got.at(i)), ref)


@pytest.mark.gpu
@pytest.mark.parametrize("interp", [0, 1])
@pytest.mark.parametrize("fill", [None, 7.6])
def test_warp_kernel_equals_the_reference(interp, fill):
    pytest.importorskip("cupy")
    from dali._ops.image import _warp_gpu
    from dali._ops.image.rotate import rotated_canvas_size, rotation_matrix_2d
    from dali._ops.image.warp_affine import warp_sample

    imgs = _ragged([(40, 60), (33, 17), (30, 300)])
    angles = [10.0, 45.0, -33.3]
    outs = [rotated_canvas_size(x.shape[0], x.shape[1], a) for x, a in zip(imgs, angles)]
    mats = [rotation_matrix_2d(x.shape[:2], o, a) for x, o, a in zip(imgs, outs, angles)]
    for dtype in (np.uint8, np.float32):
        out = _warp_gpu.warp_batch(
            _to_gpu(imgs, "HWC"),
            mats,
            outs,
            nsp=2,
            frames=False,
            interp=interp,
            fill=fill,
            out_dtype=dtype,
            layout="HWC",
        ).as_cpu()
        for i, x in enumerate(imgs):
            ref = warp_sample(x, mats[i], outs[i], interp=interp, fill=fill, out_dtype=dtype)
            np.testing.assert_array_equal(np.asarray(out.at(i)), ref)


# -- host-side helpers (no GPU needed) ---------------------------------------------------------------


def test_block_starts_skip_empty_samples():
    starts, total = G.block_starts([3, 0, 2, 0])
    assert starts.tolist() == [0, 3, 3, 5] and total == 5
    assert G.block_starts([])[1] == 0
    starts, total = G.block_starts(np.array([[1, 2], [3, 4]]))  # any shape, read flat
    assert starts.dtype == np.int32 and starts.tolist() == [0, 1, 3, 6] and total == 10
    with pytest.raises(ValueError, match="too large for one kernel launch"):
        G.block_starts([2**30, 2**30])


def test_c_types_cover_every_dali_type_but_strings():
    for name in ("UINT8", "INT16", "FLOAT", "FLOAT16", "FLOAT64", "INT64", "BOOL"):
        dtype = np.dtype(dali._dtypes.np_dtype(getattr(types, name)))
        assert G.c_type(dtype)
    with pytest.raises(TypeError, match="unsupported element type"):
        G.c_type(np.complex64)


def test_axis_records_match_axis_weights_geometry():
    """The kernels get the same float32 start/scale/support that `axis_weights` uses."""
    from dali._ops.image.resample.gpu_plan import axis_record

    for interp in (R.LINEAR, R.CUBIC, R.LANCZOS3, R.GAUSSIAN):
        plan = R.AxisPlan.make(in_size=500, out_size=224, lo=3.5, hi=480.0, interp=interp)
        rec = axis_record(plan, accumulate=False)
        idx, _ = R.axis_weights(plan)
        assert int(rec["support"]) == idx.shape[1]
        # the first tap of output x is ceil(x * scale + start), clamped
        f32 = np.float32
        for x in (0, 100, 223):
            first = np.ceil(f32(f32(x) * f32(rec["scale"])) + f32(rec["start"]))
            assert int(np.clip(first, 0, 499)) == idx[x, 0]
    nn = axis_record(R.AxisPlan.make(100, 45, 0.0, 100.0, interp=R.NN), accumulate=True)
    assert int(nn["table"]) == -1 and int(nn["support"]) == 1 and int(nn["accumulate"]) == 1


def test_struct_layouts_match_the_cuda_structs():
    from dali._ops.image import _warp_gpu
    from dali._ops.image.resample import gpu as resample_gpu
    from dali._ops.image.resample import gpu_plan

    # the CUDA sources static_assert the same sizes
    assert "sizeof(dali_resample2d_desc) == 136" in resample_gpu._resample_source
    assert gpu_plan.DESC_2D.itemsize == 136
    assert _warp_gpu.warp_desc_size() == 112
    assert "sizeof(dali_warp_desc) == 112" in _warp_gpu._warp_source
