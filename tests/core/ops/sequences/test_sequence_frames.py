"""Sequences (``F*`` layouts) through the image operators, with per-sample and per-frame
(`fn.per_frame`) arguments: every output frame equals the operator applied to that frame alone.

The reference runs the same operator once on the batch of all frames (``HWC`` images), each
frame with its own argument values (a per-sample value repeated for its frames); the sequence
result must be those frames, grouped back (exactly: the operators are deterministic and see the
same frames). Each case runs on the CPU, and on the GPU through `parity.cpu_gpu`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image.rotate import _canvas_2d, sequence_canvas
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(7)
#: two sequences of 4 frames, 9×12 RGB
SEQ = [RNG.integers(0, 256, (4, 9, 12, 3), dtype=np.uint8) for _ in range(2)]
#: a ragged batch: 3 frames of 8×11, 5 frames of 10×7
RAGGED = [
    RNG.integers(0, 256, (3, 8, 11, 3), dtype=np.uint8),
    RNG.integers(0, 256, (5, 10, 7, 3), dtype=np.uint8),
]
BATCHES = {"uniform": SEQ, "ragged": RAGGED}


def _pipe(build: Callable[..., Any], data: list, layout: str, args: dict, device: str) -> Any:
    """``build(x, **arg_nodes)`` on ``data``; arguments named ``pf:<name>`` go per frame."""

    @dali.pipeline_def(batch_size=len(data), num_threads=2, device_id=device_id(device))
    def pipe():
        x = to_device(fn.external_source(lambda: data, layout=layout, batch=True), device)
        nodes = {}
        for name, values in args.items():
            node = fn.external_source(_feeder(values), batch=True)
            if name.startswith("pf:"):
                nodes[name[3:]] = fn.per_frame(node)
            else:
                nodes[name] = node
        return build(x, **nodes)

    out = pipe().run()[0]
    return out


def _feeder(values: list) -> Callable[[], list]:
    return lambda: values


def _host(out: Any) -> Any:
    return out.as_cpu() if type(out).__name__ == "TensorListGPU" else out


def _frame_args(data: list, args: dict) -> dict:
    """The arguments of the frame batch: per-frame values frame by frame, others repeated."""
    out = {}
    for name, values in args.items():
        frames = []
        for s, v in zip(data, values):
            v = np.asarray(v)
            for k in range(len(s)):
                frames.append(v[k if len(v) > 1 else 0, ...] if name.startswith("pf:") else v)
        out[name.removeprefix("pf:")] = frames
    return out


def check_frames(
    seq_op: Callable[..., Any],
    data: list,
    device: str,
    *,
    frame_op: Callable[..., Any] | None = None,
    layout: str = "FHWC",
    args: dict | None = None,
    to_frames: Callable[[np.ndarray], np.ndarray] = lambda a: a,
    out_layout: str | None = None,
    atol: float = 0,
) -> Any:
    """Run ``seq_op`` on the sequences and ``frame_op`` (default the same) on their frames;
    check that ``to_frames(output sample)`` stacks the frame outputs. Returns the output."""
    args = args or {}
    out = _pipe(seq_op, data, layout, args, device)
    frames = [f for s in data for f in s]
    ref = _host(_pipe(frame_op or seq_op, frames, layout[1:], _frame_args(data, args), device))
    host = _host(out)
    assert host.layout() == (out_layout or layout)
    if device == "gpu" and not atol:  # the frames alone may take other kernels than sequences
        atol = 1 if np.asarray(host.at(0)).dtype.kind in "iu" else 1e-4
    j = 0
    for i, s in enumerate(data):
        got = to_frames(np.asarray(host.at(i)))
        assert got.shape[0] == len(s)
        for k in range(len(s)):
            want = np.asarray(ref.at(j))
            j += 1
            assert got[k].shape == want.shape, (i, k)
            if atol:
                np.testing.assert_allclose(got[k], want, atol=atol, err_msg=f"sample {i} frame {k}")
            else:
                np.testing.assert_array_equal(got[k], want, err_msg=f"sample {i} frame {k}")
    return out


# -- sequences with per-sample arguments ---------------------------------------------------------

_CMN = {"crop": (5, 6), "mean": [10.0, 20.0, 30.0], "std": [40.0, 50.0, 60.0]}
#: name -> check_frames keyword arguments (the sequence op, and how its frames are compared)
SEQUENCE_CASES: dict[str, dict[str, Any]] = {
    "crop": {"seq_op": lambda x: fn.crop(x, crop=(5, 6), crop_pos_x=0.2, crop_pos_y=0.9)},
    "crop_fchw": {
        "seq_op": lambda x: fn.crop(x, crop=(5, 6), crop_pos_x=0.7),
        "layout": "FCHW",
    },
    "resize": {"seq_op": lambda x: fn.resize(x, size=(6, 17))},
    "resize_linear": {
        "seq_op": lambda x: fn.resize(x, resize_x=5, interp_type=types.INTERP_LINEAR),
    },
    "flip": {"seq_op": lambda x: fn.flip(x, horizontal=1, vertical=1)},
    "cmn_cfhw": {
        "seq_op": lambda x: fn.crop_mirror_normalize(x, **_CMN, mirror=1, output_layout="CFHW"),
        "frame_op": lambda x: fn.crop_mirror_normalize(x, **_CMN, mirror=1, output_layout="CHW"),
        "to_frames": lambda a: a.transpose(1, 0, 2, 3),
        "out_layout": "CFHW",
    },
    "cmn_fchw": {
        "seq_op": lambda x: fn.crop_mirror_normalize(x, **_CMN, output_layout="FCHW"),
        "frame_op": lambda x: fn.crop_mirror_normalize(x, **_CMN, output_layout="CHW"),
        "out_layout": "FCHW",
    },
    "brightness_contrast": {
        "seq_op": lambda x: fn.brightness_contrast(x, brightness=1.3, contrast=0.6),
    },
    "hsv": {"seq_op": lambda x: fn.hsv(x, hue=40.0, saturation=0.5, value=1.2)},
    "hue": {"seq_op": lambda x: fn.hue(x, hue=-70.0)},
    "saturation": {"seq_op": lambda x: fn.saturation(x, saturation=0.3)},
    "color_twist": {"seq_op": lambda x: fn.color_twist(x, hue=20.0, contrast=1.3)},
    "transpose": {
        "seq_op": lambda x: fn.transpose(x, perm=[3, 0, 1, 2]),
        "frame_op": lambda x: fn.transpose(x, perm=[2, 0, 1]),
        "to_frames": lambda a: a.transpose(1, 0, 2, 3),
        "out_layout": "CFHW",
    },
    "rotate": {"seq_op": lambda x: fn.rotate(x, angle=30.0, fill_value=0)},
    "rotate_keep": {"seq_op": lambda x: fn.rotate(x, angle=-20.0, keep_size=True)},
    "warp_affine": {
        "seq_op": lambda x: fn.warp_affine(x, matrix=[1, 0.2, -1, 0.1, 0.9, 2], fill_value=0),
    },
}


def _layout_data(data: list, layout: str) -> list:
    return (
        [np.ascontiguousarray(s.transpose(0, 3, 1, 2)) for s in data] if layout == "FCHW" else data
    )


@pytest.mark.parametrize("batch", list(BATCHES))
@pytest.mark.parametrize("case", list(SEQUENCE_CASES))
def test_sequence(case, batch):
    kw = dict(SEQUENCE_CASES[case])
    check_frames(data=_layout_data(BATCHES[batch], kw.get("layout", "FHWC")), device="cpu", **kw)


@pytest.mark.parametrize("case", list(SEQUENCE_CASES))
@cpu_gpu(atol=1)  # resampling and colour sums may round differently on the GPU
def test_sequence_gpu(case, device):
    kw = dict(SEQUENCE_CASES[case])
    data = _layout_data(RAGGED, kw.get("layout", "FHWC"))
    return check_frames(data=data, device=device, **kw)


def test_crop_cfhw():
    data = [np.ascontiguousarray(s.transpose(3, 0, 1, 2)) for s in SEQ]  # CFHW
    out = _pipe(
        lambda x: fn.crop(x, crop=(4, 5), crop_pos_x=0.0, crop_pos_y=1.0), data, "CFHW", {}, "cpu"
    )
    assert out.layout() == "CFHW"
    for i, s in enumerate(data):
        np.testing.assert_array_equal(out.at(i), s[:, :, 5:9, 0:5])


def test_cmn_per_sample_mirror():
    mirror = [np.array(0, np.int32), np.array(1, np.int32)]
    out = check_frames(
        lambda x, mirror: fn.crop_mirror_normalize(x, mirror=mirror, output_layout="FCHW"),
        SEQ,
        "cpu",
        frame_op=lambda x, mirror: fn.crop_mirror_normalize(x, mirror=mirror, output_layout="CHW"),
        args={"mirror": mirror},
        out_layout="FCHW",
    )
    np.testing.assert_array_equal(out.at(1)[:, 0], SEQ[1][:, :, ::-1, 0])


# -- per-frame arguments -------------------------------------------------------------------------


def _pf(values: list[list[float]], shape: tuple[int, ...] = ()) -> list[np.ndarray]:
    return [np.array(v, np.float32).reshape(len(v), *shape) for v in values]


_ANGLES = {
    "uniform": [[0, 90, 180, 30], [10, -20, 45, 270]],
    "ragged": [[0, 90, 33], [5, 60, -45, 180, 12]],
}
_MATS = [
    [1, 0, 0, 0, 1, 0],
    [1, 0.2, -1, 0.1, 0.9, 2],
    [0.8, 0, 1, 0, 1.1, -2],
    [1, -0.3, 2, 0, 1, 0],
    [1, 0, 1, 0, 1, 1],
]


def _per_frame(batch: str, values: dict[str, list[float]]) -> list[list[float]]:
    """Per-frame values for every sequence of ``batch`` (cycled from ``values``)."""
    counts = [len(s) for s in BATCHES[batch]]
    return [[values[(i + k) % len(values)] for k in range(n)] for i, n in enumerate(counts)]


#: name -> (seq_op taking the argument nodes, per-frame args builder(batch), extra args)
PER_FRAME_CASES: dict[str, tuple[Callable[..., Any], Callable[[str], dict]]] = {
    "rotate_keep_size": (
        lambda x, angle: fn.rotate(x, angle=angle, keep_size=True, fill_value=0),
        lambda b: {"pf:angle": _pf(_ANGLES[b])},
    ),
    "rotate_size": (
        lambda x, angle: fn.rotate(x, angle=angle, size=(7, 13)),
        lambda b: {"pf:angle": _pf(_ANGLES[b])},
    ),
    "rotate_one_value": (
        lambda x, angle: fn.rotate(x, angle=angle, fill_value=0),
        lambda b: {"pf:angle": _pf([[25.0], [-40.0]])},
    ),
    "warp_affine": (
        lambda x, matrix: fn.warp_affine(x, matrix=matrix, fill_value=0),
        lambda b: {"pf:matrix": _pf(_per_frame(b, _MATS), (2, 3))},
    ),
    "warp_affine_size": (
        lambda x, matrix, size: fn.warp_affine(x, matrix=matrix, size=size),
        lambda b: {
            "pf:matrix": _pf(_per_frame(b, _MATS), (2, 3)),
            "size": [np.array([6, 9], np.float32), np.array([11, 4], np.float32)],
        },
    ),
    "brightness_contrast": (
        lambda x, brightness, contrast: fn.brightness_contrast(
            x, brightness=brightness, contrast=contrast
        ),
        lambda b: {
            "pf:brightness": _pf(_per_frame(b, [0.5, 1.0, 1.5, 2.0, 0.1])),
            "pf:contrast": _pf(_per_frame(b, [1.0, 0.5, 2.0, 0.0])),
        },
    ),
    "brightness_shift_center": (
        lambda x, brightness_shift, contrast_center, contrast: fn.brightness_contrast(
            x, brightness_shift=brightness_shift, contrast_center=contrast_center, contrast=contrast
        ),
        lambda b: {
            "pf:brightness_shift": _pf(_per_frame(b, [0.0, 0.1, -0.1])),
            "pf:contrast_center": _pf(_per_frame(b, [100.0, 20.0])),
            "contrast": [np.array(1.5, np.float32), np.array(0.5, np.float32)],
        },
    ),
    "brightness": (
        lambda x, brightness: fn.brightness(x, brightness=brightness),
        lambda b: {"pf:brightness": _pf(_per_frame(b, [0.5, 1.0, 1.5]))},
    ),
    "contrast": (
        lambda x, contrast: fn.contrast(x, contrast=contrast),
        lambda b: {"pf:contrast": _pf(_per_frame(b, [0.2, 1.0, 1.7]))},
    ),
    "hue": (
        lambda x, hue: fn.hue(x, hue=hue),
        lambda b: {"pf:hue": _pf(_per_frame(b, [0.0, 45.0, 90.0, -120.0]))},
    ),
    "saturation": (
        lambda x, saturation: fn.saturation(x, saturation=saturation),
        lambda b: {"pf:saturation": _pf(_per_frame(b, [1.0, 0.0, 0.5, 2.0]))},
    ),
    "hsv": (
        lambda x, hue, value: fn.hsv(x, hue=hue, value=value, saturation=0.8),
        lambda b: {
            "pf:hue": _pf(_per_frame(b, [10.0, 20.0, 30.0])),
            "pf:value": _pf(_per_frame(b, [1.0, 0.5, 1.5, 0.9])),
        },
    ),
    "color_twist": (
        lambda x, hue, saturation, brightness: fn.color_twist(
            x, hue=hue, saturation=saturation, brightness=brightness
        ),
        lambda b: {
            "pf:hue": _pf(_per_frame(b, [0.0, 30.0])),
            "pf:saturation": _pf(_per_frame(b, [1.0, 0.3, 1.4])),
            "brightness": [np.array(1.1, np.float32), np.array(0.9, np.float32)],
        },
    ),
}


@pytest.mark.parametrize("batch", list(BATCHES))
@pytest.mark.parametrize("case", list(PER_FRAME_CASES))
def test_per_frame(case, batch):
    op, make_args = PER_FRAME_CASES[case]
    check_frames(op, BATCHES[batch], "cpu", args=make_args(batch))


@pytest.mark.parametrize("case", list(PER_FRAME_CASES))
@cpu_gpu(atol=1)
def test_per_frame_gpu(case, device):
    op, make_args = PER_FRAME_CASES[case]
    return check_frames(op, RAGGED, device, args=make_args("ragged"))


def _rotate_canvas_check(data: list, angles: list[list[float]], device: str) -> Any:
    """Rotation by per-frame angles without a size: one canvas per sequence (DALI's rule), and
    each frame is its rotation on that canvas."""
    args = {"pf:angle": _pf(angles)}
    out = _pipe(
        lambda x, angle: fn.rotate(x, angle=angle, fill_value=0), data, "FHWC", args, device
    )
    host = _host(out)
    for i, (s, a) in enumerate(zip(data, angles)):
        canvas = sequence_canvas([_canvas_2d(s.shape[1], s.shape[2], v) for v in a])
        assert host.shape()[i] == (len(s), *canvas, 3)
        frames = [s[k] for k in range(len(s))]
        ref = _host(
            _pipe(
                lambda x, angle, c=canvas: fn.rotate(x, angle=angle, size=c, fill_value=0),
                frames,
                "HWC",
                {"angle": [np.array(v, np.float32) for v in a]},
                device,
            )
        )
        for k in range(len(s)):
            np.testing.assert_array_equal(np.asarray(host.at(i))[k], ref.at(k))
    return out


@pytest.mark.parametrize("batch", list(BATCHES))
def test_rotate_per_frame_canvas(batch):
    _rotate_canvas_check(BATCHES[batch], _ANGLES[batch], "cpu")


def test_rotate_sequence_canvas_rule():
    # extent-wise maximum of the frames' canvases, parity by majority (DALI's rotate_params.h):
    # 6×5 frames at 0, 90, 180, 30 degrees -> (8, 9), as real DALI 2.4 gives
    canvases = [_canvas_2d(6, 5, a) for a in (0.0, 90.0, 180.0, 30.0)]
    assert sequence_canvas(canvases) == (8, 9)
    # one angle for all frames: the single-image canvas
    assert sequence_canvas([_canvas_2d(40, 60, 45.0)] * 3) == (72, 72)


@cpu_gpu(atol=1)
def test_rotate_per_frame_canvas_gpu(device):
    return _rotate_canvas_check(RAGGED, _ANGLES["ragged"], device)


# -- errors and DALI's rules for per-frame arguments ---------------------------------------------


@pytest.mark.parametrize(
    ("op", "opname", "name"),
    [
        (lambda x, v: fn.rotate(x, angle=v, keep_size=True), "rotate", "angle"),
        (lambda x, v: fn.brightness(x, brightness=v), "brightness", "brightness"),
        (lambda x, v: fn.hue(x, hue=v), "hue", "hue"),
        (lambda x, v: fn.warp_affine(x, matrix=v), "warp_affine", "matrix"),
    ],
)
def test_per_frame_count_mismatch(op, opname, name):
    # sample 0 has 4 frames, not 3
    values = _pf([[1.0] * 3, [1.0] * 4])
    if name == "matrix":
        identity = np.array([1, 0, 0, 0, 1, 0], np.float32).reshape(1, 2, 3)
        values = [np.repeat(identity, n, axis=0) for n in (3, 4)]
    with pytest.raises(Exception) as info:
        _pipe(lambda x, v: op(x, v), SEQ, "FHWC", {"pf:v": values}, "cpu")
    message = str(info.value)
    assert f"Operator `dali.fn.{opname}`" in message and f"argument `{name}`" in message
    assert "sample 0 has 3 per-frame values" in message and "4 frames" in message


def test_per_frame_on_images_is_per_sample():
    # DALI: a per-frame argument of an input that is not a sequence is an ordinary per-sample
    # value: one value works, four are an error
    images = [s[0] for s in SEQ]
    out = _pipe(
        lambda x, v: fn.rotate(x, angle=v, keep_size=True),
        images,
        "HWC",
        {"pf:v": _pf([[30.0], [60.0]])},
        "cpu",
    )
    ref = _pipe(
        lambda x: fn.rotate(x, angle=30.0, keep_size=True), images[:1] * 2, "HWC", {}, "cpu"
    )
    np.testing.assert_array_equal(out.at(0), ref.at(0))
    with pytest.raises(Exception, match="angle"):
        _pipe(
            lambda x, v: fn.rotate(x, angle=v, keep_size=True),
            images,
            "HWC",
            {"pf:v": _pf(_ANGLES["uniform"])},
            "cpu",
        )


@pytest.mark.parametrize(
    "op",
    [
        lambda x, v: fn.flip(x, horizontal=v),
        lambda x, v: fn.crop(x, crop=(4, 4), crop_pos_x=v),
    ],
    ids=["flip", "crop"],
)
def test_per_frame_not_accepted(op):
    # DALI 2.4 takes no per-frame values for flip and crop: a (frames,) value is not a scalar
    values = [np.array([0, 1, 0, 1], np.float32)] * 2
    with pytest.raises(Exception, match="sample 0: expected one value, got 4"):
        _pipe(op, SEQ, "FHWC", {"pf:v": values}, "cpu")
