"""fn.debayer (and its deprecated alias fn.experimental.debayer): every pattern and algorithm
against OpenCV, the bilinear arithmetic without OpenCV, uint8/uint16, sequences, per-sample
blue positions, errors and CPU/GPU parity."""

from __future__ import annotations

import warnings

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import _common
from dali._ops.image.debayer import debayer_bilinear
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(5)
M8 = RNG.integers(0, 256, (12, 18)).astype(np.uint8)
M16 = RNG.integers(0, 65536, (10, 8)).astype(np.uint16)
PATTERNS = {(0, 0): "BG", (0, 1): "GB", (1, 0): "GR", (1, 1): "RG"}


def _run(batch, layout="HW", op=None, **kw):
    op = op or fn.debayer
    pipe = dali.Pipeline(batch_size=len(batch), num_threads=2, device_id=None)
    with pipe:
        src = fn.external_source(lambda: batch, layout=layout)
        pipe.set_outputs(op(src, **kw))
    return pipe.run()[0]


def _ref_bilinear(x, by, bx):
    """Bilinear demosaicing written out pixel by pixel (OpenCV's rules)."""
    h, w = x.shape
    v = x.astype(np.int64)
    out = np.zeros((h, w, 3), np.int64)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            blue_row = i % 2 == (1 + by) % 2
            blue_col = j % 2 == (1 + bx) % 2
            cross = (v[i - 1, j] + v[i + 1, j] + v[i, j - 1] + v[i, j + 1] + 2) >> 2
            diag = (v[i - 1, j - 1] + v[i - 1, j + 1] + v[i + 1, j - 1] + v[i + 1, j + 1] + 2) >> 2
            hor = (v[i, j - 1] + v[i, j + 1] + 1) >> 1
            ver = (v[i - 1, j] + v[i + 1, j] + 1) >> 1
            if blue_row and blue_col:
                out[i, j] = (diag, cross, v[i, j])
            elif not blue_row and not blue_col:
                out[i, j] = (v[i, j], cross, diag)
            elif blue_row:  # green between blues
                out[i, j] = (ver, v[i, j], hor)
            else:
                out[i, j] = (hor, v[i, j], ver)
    out[1:-1, 0], out[1:-1, -1] = out[1:-1, 1], out[1:-1, -2]
    out[0], out[-1] = out[1], out[-2]
    return out.astype(x.dtype)


@pytest.mark.parametrize("pos", list(PATTERNS))
@pytest.mark.parametrize("data", [M8, M16], ids=["u8", "u16"])
def test_bilinear_default(pos, data):
    out = _run([data], blue_position=pos)
    assert out.layout() == "HWC"
    assert out.dtype == (types.UINT8 if data.dtype == np.uint8 else types.UINT16)
    np.testing.assert_array_equal(out.samples()[0], _ref_bilinear(data, *pos))
    np.testing.assert_array_equal(debayer_bilinear(np, data, *pos), _ref_bilinear(data, *pos))


@pytest.mark.parametrize("pos", list(PATTERNS))
@pytest.mark.parametrize(
    ("alg", "suffix"),
    [
        ("bilinear_ocv", "2RGB"),
        ("edgeaware_ocv", "2RGB_EA"),
        ("vng_ocv", "2RGB_VNG"),
        ("gray_ocv", "2GRAY"),
        ("EdgeAware_OCV", "2RGB_EA"),
    ],
)
def test_opencv_algorithms(pos, alg, suffix):
    cv2 = pytest.importorskip("cv2")
    out = _run([M8], blue_position=pos, algorithm=alg).samples()[0]
    ref = cv2.demosaicing(M8, getattr(cv2, f"COLOR_Bayer{PATTERNS[pos]}{suffix}"))
    np.testing.assert_array_equal(out, ref.reshape(out.shape))
    assert out.shape[-1] == (1 if alg == "gray_ocv" else 3)


def test_without_opencv(monkeypatch):
    monkeypatch.setattr(_common, "_CV2", [None])
    out = _run([M8, M16[:6, :4].astype(np.uint8)], blue_position=(0, 1))
    np.testing.assert_array_equal(out.samples()[0], _ref_bilinear(M8, 0, 1))
    with pytest.raises(Exception, match="needs OpenCV"):
        _run([M8], blue_position=(0, 1), algorithm="vng_ocv")


def test_small_images():
    for shape in [(2, 2), (2, 6), (4, 2)]:
        out = _run([np.full(shape, 9, np.uint8)], blue_position=(0, 0)).samples()[0]
        assert out.shape == (*shape, 3)
        np.testing.assert_array_equal(out, np.zeros((*shape, 3), np.uint8))


def test_layouts_and_sequences():
    seq = np.stack([M8, M8[::-1]])
    out = _run([seq], "FHW", blue_position=(1, 0))
    assert out.layout() == "FHWC" and out.samples()[0].shape == (2, 12, 18, 3)
    np.testing.assert_array_equal(out.samples()[0][1], _ref_bilinear(M8[::-1], 1, 0))
    out = _run([seq[..., None]], "FHWC", blue_position=(1, 0))
    assert out.layout() == "FHWC" and out.samples()[0].shape == (2, 12, 18, 3)
    out = _run([M8[..., None]], "HWC", blue_position=(1, 0))
    assert out.layout() == "HWC" and out.samples()[0].shape == (12, 18, 3)
    assert _run([M8], None, blue_position=(0, 0)).layout() == "HWC"
    assert _run([seq[..., None]], None, blue_position=(0, 0)).layout() == "FHWC"


def test_blue_position_single_value_and_per_sample():
    one = _run([M8], blue_position=1).samples()[0]
    np.testing.assert_array_equal(one, _ref_bilinear(M8, 1, 1))
    small = M8[:6, :8].copy()
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [M8, small], layout="HW")
        pos = fn.external_source(lambda: [np.array([0, 1], np.int32), np.array([1, 1], np.int32)])
        pipe.set_outputs(fn.debayer(src, blue_position=pos))
    a, b = pipe.run()[0].samples()
    np.testing.assert_array_equal(a, _ref_bilinear(M8, 0, 1))
    np.testing.assert_array_equal(b, _ref_bilinear(small, 1, 1))


def test_ragged_and_empty():
    out = _run([M8, M8[:4, :6].copy(), np.zeros((0, 4), np.uint8)], blue_position=(0, 0))
    assert [s.shape for s in out.samples()] == [(12, 18, 3), (4, 6, 3), (0, 4, 3)]


def test_deprecated_alias():
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        out = _run([M8], op=fn.experimental.debayer, blue_position=(0, 0))
    np.testing.assert_array_equal(out.samples()[0], _ref_bilinear(M8, 0, 0))


@pytest.mark.parametrize(
    ("batch", "layout", "kw", "text"),
    [
        ([M8], "HW", {"blue_position": (0, 2)}, r"within 2x2 tile, got: 0 x 2"),
        ([M8], "HW", {"blue_position": (0, 1, 1)}, "exactly two values"),
        ([M8], "HW", {"blue_position": (0, 0), "algorithm": "foo"}, "Unsupported debayer"),
        ([M8], "HW", {"blue_position": (0, 0), "algorithm": "bilinear_npp"}, "bilinear_npp"),
        ([M8], "HW", {"blue_position": (0, 0), "algorithm": "default_npp"}, "not supported on CPU"),
        (
            [M16],
            "HW",
            {"blue_position": (0, 0), "algorithm": "vng_ocv"},
            "only supported with UINT8",
        ),
        ([M8.astype(np.float32)], "HW", {"blue_position": (0, 0)}, "uint8 or uint16"),
        ([M8.astype(np.int16)], "HW", {"blue_position": (0, 0)}, "uint8 or uint16"),
        ([M8[:7]], "HW", {"blue_position": (0, 0)}, "must be even.*idx 0 has shape \\(7, 18\\)"),
        ([M8[:, :5]], "HW", {"blue_position": (0, 0)}, "must be even"),
        ([np.stack([M8, M8], -1)], "HWC", {"blue_position": (0, 0)}, "implies 2 channels"),
        ([np.stack([M8, M8])], None, {"blue_position": (0, 0)}, "implies 18 channels"),
        ([M8[None]], "CHW", {"blue_position": (0, 0)}, "unsupported input layout 'CHW'"),
    ],
)
def test_errors(batch, layout, kw, text):
    with pytest.raises(Exception, match=text) as info:
        _run(batch, layout, **kw)
    assert "debayer" in str(info.value)


def test_missing_blue_position():
    with pytest.raises(Exception, match="blue_position"):
        _run([M8])


def test_per_sample_blue_position_errors():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [M8], layout="HW")
        pos = fn.external_source(lambda: [np.array([1], np.int32)])
        pipe.set_outputs(fn.debayer(src, blue_position=pos))
    with pytest.raises(Exception, match="exactly two values"):
        pipe.run()


@cpu_gpu()
def test_gpu_matches_cpu(device):
    seq = np.stack([M16[:8], M16[2:]])
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        a = to_device(fn.external_source(lambda: [M8, M8[:6, :4].copy()], layout="HW"), device)
        b = to_device(fn.external_source(lambda: [seq, seq[:1]], layout="FHW"), device)
        pos = fn.external_source(lambda: [np.array([0, 1], np.int32), np.array([1, 0], np.int32)])
        pipe.set_outputs(fn.debayer(a, blue_position=pos), fn.debayer(b, blue_position=(1, 1)))
    return pipe.run()
