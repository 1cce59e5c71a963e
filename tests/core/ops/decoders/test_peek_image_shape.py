"""`fn.peek_image_shape`: the shapes DALI 2.4 reports for every format of the decoder edge
cases (with each ``image_type`` and ``adjust_orientation``), agreement with the decoded
shapes, output types, and the errors for bad files and inputs."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._testing import images


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    root = tmp_path_factory.mktemp("edge")
    images.make_edge_cases(root)
    return root


def _read(edge, name):
    return np.fromfile(edge / name, dtype=np.uint8)


def _peek(samples, **kw):
    @pipeline_def(batch_size=len(samples), num_threads=2, device_id=None)
    def pipe():
        return fn.peek_image_shape(fn.external_source(lambda: samples), **kw)

    (out,) = pipe().run()
    return out


#: DALI 2.4's answers, observed: name -> (default RGB, ANY_DATA, no orientation) shapes
EXPECTED = {
    "bits.pbm": ([48, 64, 3], [48, 64, 1], [48, 64, 3]),
    "cmyk.jpg": ([48, 64, 3], [48, 64, 4], [48, 64, 3]),
    "exif_orientation_3.jpg": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "exif_orientation_6.jpg": ([64, 48, 3], [64, 48, 3], [48, 64, 3]),
    "gray.jpg": ([48, 64, 3], [48, 64, 1], [48, 64, 3]),
    "gray.pgm": ([48, 64, 3], [48, 64, 1], [48, 64, 3]),
    "gray.png": ([48, 64, 3], [48, 64, 1], [48, 64, 3]),
    "lossless.webp": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "palette.png": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "progressive.jpg": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "rgb.bmp": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "rgb.png": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "rgb.ppm": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "rgb.tiff": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "rgb.webp": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
    "rgba.png": ([48, 64, 3], [48, 64, 4], [48, 64, 3]),
    "tall_800x4.jpg": ([800, 4, 3], [800, 4, 3], [800, 4, 3]),
    "tiny_1x1.jpg": ([1, 1, 3], [1, 1, 3], [1, 1, 3]),
    "tiny_1x1.png": ([1, 1, 3], [1, 1, 3], [1, 1, 3]),
    "truncated.jpg": ([120, 160, 3], [120, 160, 3], [120, 160, 3]),
    "wide_4x800.jpg": ([4, 800, 3], [4, 800, 3], [4, 800, 3]),
    "yuv444.jpg": ([48, 64, 3], [48, 64, 3], [48, 64, 3]),
}


def test_every_format_as_dali_reports_it(edge):
    names = sorted(EXPECTED)
    data = [_read(edge, n) for n in names]
    rgb = _peek(data)
    anyd = _peek(data, image_type=types.ANY_DATA)
    raw = _peek(data, adjust_orientation=False)
    gray = _peek(data, image_type=types.GRAY)
    assert rgb.dtype == types.INT64 and rgb.layout() == ""
    for i, n in enumerate(names):
        want_rgb, want_any, want_raw = EXPECTED[n]
        assert rgb.at(i).tolist() == want_rgb, n
        assert anyd.at(i).tolist() == want_any, n
        assert raw.at(i).tolist() == want_raw, n
        assert gray.at(i).tolist() == [*want_rgb[:2], 1], n


@pytest.mark.parametrize("name", ["rgb.png", "exif_orientation_6.jpg", "rgba.png", "gray.jpg"])
def test_agrees_with_the_decoder(edge, name):
    data = [_read(edge, name)]

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: data)
        t = types.ANY_DATA
        return fn.peek_image_shape(x, image_type=t), fn.decoders.image(x, output_type=t)

    peek, decoded = pipe().run()
    assert tuple(peek.at(0).tolist()) == decoded.at(0).shape


@pytest.mark.parametrize(
    "dali_type", [types.INT32, types.UINT32, types.INT64, types.UINT64, types.FLOAT, types.FLOAT64]
)
def test_output_types(edge, dali_type):
    out = _peek([_read(edge, "tall_800x4.jpg")], dtype=dali_type)
    assert out.dtype == dali_type and out.at(0).tolist() == [800, 4, 3]


def test_experimental_alias(edge):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        data = fn.external_source(lambda: [_read(edge, "rgb.bmp")])
        return fn.experimental.peek_image_shape(data)

    with pytest.warns(DeprecationWarning):
        (out,) = pipe().run()
    assert out.at(0).tolist() == [48, 64, 3]


@pytest.mark.parametrize("name", ["empty.jpg", "corrupt.jpg", "not_an_image.jpg"])
def test_unreadable_files(edge, name):
    with pytest.raises(Exception, match="cannot read the image header"):
        _peek([_read(edge, "rgb.png"), _read(edge, name)])


@pytest.mark.parametrize(
    "sample,kw,message",
    [
        (np.zeros(30, np.int32), {}, "flat uint8 array"),
        (np.zeros((1, 30), np.uint8), {}, "flat uint8 array"),
        (np.zeros(30, np.uint8), {"dtype": types.UINT8}, "requested: uint8"),
        (np.zeros(30, np.uint8), {"dtype": types.FLOAT16}, "requested: float16"),
    ],
)
def test_errors(sample, kw, message):
    with pytest.raises(Exception, match=message):
        _peek([sample], **kw)
