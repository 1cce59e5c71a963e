"""Segmentation operators: random_object_bbox, random_mask_pixel, select_masks,
roi_random_crop, random_crop_generator (CPU only, as DALI 2.4)."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._ops.segmentation._labeling import blob_boxes, label_values, numba_available


def _feed(batch):
    return lambda: list(batch)


def _run(graph, *batches, batch_size=None, seed=5, iterations=1):
    n = batch_size or len(batches[0])

    @pipeline_def(batch_size=n, num_threads=2, device_id=None, seed=seed)
    def pipe():
        nodes = [fn.external_source(source=_feed(b)) for b in batches]
        out = graph(*nodes)
        return tuple(out) if isinstance(out, (list, tuple)) else out

    p = pipe()
    return (
        [[np.array(o.at(i)) for i in range(len(o))] for o in p.run()]
        if iterations == 1
        else [
            [[np.array(o.at(i)) for i in range(len(o))] for o in p.run()] for _ in range(iterations)
        ]
    )


# -- connected components --------------------------------------------------------------------


def _flood_boxes(mask: np.ndarray, fg: np.ndarray) -> list[list[int]]:
    """Reference: face-connected blobs by flood fill, boxes ordered by first element."""
    seen = np.zeros(mask.shape, bool)
    out = []
    for start in np.argwhere(fg):
        t = tuple(start)
        if seen[t]:
            continue
        stack, pts = [t], [t]
        seen[t] = True
        while stack:
            p = stack.pop()
            for d in range(mask.ndim):
                for step in (-1, 1):
                    q = list(p)
                    q[d] += step
                    q = tuple(q)
                    if 0 <= q[d] < mask.shape[d] and fg[q] and not seen[q] and mask[q] == mask[t]:
                        seen[q] = True
                        stack.append(q)
                        pts.append(q)
        a = np.array(pts)
        out.append([*a.min(axis=0), *(a.max(axis=0) + 1)])
    return out


@pytest.mark.parametrize("use_numba", [False, True])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_blob_boxes_match_flood_fill(use_numba, ndim):
    if use_numba and not numba_available():
        pytest.skip("no numba")
    rng = np.random.default_rng(ndim)
    for _ in range(30):
        shape = tuple(int(s) for s in rng.integers(1, 8, ndim))
        m = rng.integers(0, 3, shape).astype(np.int16)
        got = blob_boxes(m, target=1, use_numba=use_numba).tolist()
        assert got == _flood_boxes(m, m == 1)
        got = blob_boxes(m, background=0, use_numba=use_numba).tolist()
        assert got == _flood_boxes(m, m != 0)


def test_blob_boxes_diagonal_is_not_connected():
    m = np.eye(4, dtype=np.uint8)
    assert len(blob_boxes(m, target=1)) == 4
    v = np.zeros((2, 2, 2), np.int32)
    v[0, 0, 0] = v[1, 1, 0] = 1
    assert len(blob_boxes(v, target=1)) == 2


def test_label_values():
    m = np.array([[-3, 0], [5, 5]], np.int8)
    assert label_values(m).tolist() == [-3, 0, 5]
    assert label_values(np.array([70000, 1, 1], np.int32)).tolist() == [1, 70000]
    assert label_values(np.array([True, False])).tolist() == [0, 1]


# -- random_object_bbox ----------------------------------------------------------------------


def _two_objects():
    m = np.zeros((10, 12), np.uint8)
    m[1:4, 2:6] = 1  # 3x4
    m[6:9, 7:12] = 2  # 3x5
    m[8, 0] = 2  # a 1x1 blob of class 2
    return m


@pytest.mark.parametrize(("fmt", "n_out"), [("anchor_shape", 3), ("start_end", 3), ("box", 2)])
def test_object_bbox_formats(fmt, n_out):
    m = _two_objects()
    outs = _run(
        lambda x: fn.segmentation.random_object_bbox(x, format=fmt, classes=[1], output_class=True),
        [m],
    )
    assert len(outs) == n_out
    assert all(o[0].dtype == np.int32 for o in outs)
    expected = {
        "anchor_shape": [[1, 2], [3, 4]],
        "start_end": [[1, 2], [4, 6]],
        "box": [[1, 2, 4, 6]],
    }[fmt]
    assert [o[0].tolist() for o in outs[:-1]] == expected
    assert outs[-1][0].shape == () and int(outs[-1][0]) == 1


def test_object_bbox_box_is_a_blob_of_the_class():
    m = _two_objects()
    boxes = {(1, 2, 3, 4, 1), (6, 7, 3, 5, 2), (8, 0, 1, 1, 2)}
    seen = set()
    for seed in range(40):
        a, s, c = _run(
            lambda x: fn.segmentation.random_object_bbox(x, output_class=True), [m], seed=seed
        )
        key = (*a[0].tolist(), *s[0].tolist(), int(c[0]))
        assert key in boxes
        seen.add(key)
    assert seen == boxes  # every blob is reachable


def test_object_bbox_threshold_k_largest_and_background():
    m = _two_objects()
    for seed in range(10):
        a, s = _run(
            lambda x: fn.segmentation.random_object_bbox(x, threshold=[2, 5]), [m], seed=seed
        )
        assert (a[0].tolist(), s[0].tolist()) == ([6, 7], [3, 5])
        a, s = _run(
            lambda x: fn.segmentation.random_object_bbox(x, classes=[2], k_largest=1),
            [m],
            seed=seed,
        )
        assert (a[0].tolist(), s[0].tolist()) == ([6, 7], [3, 5])
    # nothing meets the threshold: the whole input, the background as class
    a, s, c = _run(
        lambda x: fn.segmentation.random_object_bbox(
            x, threshold=20, output_class=True, background=7
        ),
        [m],
    )
    assert (a[0].tolist(), s[0].tolist(), int(c[0])) == ([0, 0], [10, 12], 7)
    # foreground_prob=0: whole input; classes containing the default background 0: bg -1
    a, s, c = _run(
        lambda x: fn.segmentation.random_object_bbox(
            x, foreground_prob=0.0, classes=[0, 1], output_class=True
        ),
        [m],
    )
    assert (s[0].tolist(), int(c[0])) == ([10, 12], -1)


def test_object_bbox_class_weights_only_skip_background():
    m = np.array([0, 1, 2, 2, 0, 1], np.int32)
    # weights for classes 0, 2, 3 (1 is the background); only class 3 weighs, and is absent
    a, s, c = _run(
        lambda x: fn.segmentation.random_object_bbox(
            x, class_weights=[0, 0, 1], background=1, output_class=True
        ),
        [m],
    )
    assert (a[0].tolist(), s[0].tolist(), int(c[0])) == ([0], [6], 1)
    a, s, c = _run(
        lambda x: fn.segmentation.random_object_bbox(x, class_weights=[0, 1], output_class=True),
        [m],
    )
    assert (a[0].tolist(), s[0].tolist(), int(c[0])) == ([2], [2], 2)


def test_object_bbox_volume_ignore_class_and_cache():
    v = np.zeros((6, 7, 8), np.int32)
    v[1:3, 2:6, 0:4] = 4
    v[3:5, 2:6, 0:4] = 5  # touches the first box, another label: a separate blob
    graph = lambda x: fn.segmentation.random_object_bbox(
        x, ignore_class=True, format="box", cache_objects=True
    )
    got = {tuple(_run(graph, [v], seed=s)[0][0].tolist()) for s in range(20)}
    assert got == {(1, 2, 0, 3, 6, 4), (3, 2, 0, 5, 6, 4)}


def test_object_bbox_deterministic_per_seed():
    rng = np.random.default_rng(0)
    masks = [rng.integers(0, 3, (12, 12)).astype(np.uint8) for _ in range(4)]
    graph = lambda x: fn.segmentation.random_object_bbox(x, format="box")
    first = [b.tolist() for b in _run(graph, masks, seed=11)[0]]
    assert first == [b.tolist() for b in _run(graph, masks, seed=11)[0]]
    others = [[b.tolist() for b in _run(graph, masks, seed=s)[0]] for s in range(12, 16)]
    assert any(o != first for o in others)


@pytest.mark.parametrize(
    ("kw", "dtype", "text"),
    [
        ({"format": "xywh"}, np.uint8, "Invalid output format"),
        ({"ignore_class": True, "classes": [1]}, np.uint8, "ignore_class"),
        ({"k_largest": 0}, np.uint8, "at least 1"),
        ({"classes": [0, 1], "background": 0}, np.uint8, "coincides with background"),
        ({"classes": [1, 2], "class_weights": [1.0]}, np.uint8, "shapes must match"),
        ({"threshold": [1, 2, 3]}, np.uint8, "threshold"),
        ({}, np.float32, "Unsupported input type: float"),
        ({}, np.int64, "Unsupported input type: int64"),
    ],
)
def test_object_bbox_errors(kw, dtype, text):
    with pytest.raises(Exception, match=text):
        _run(lambda x: fn.segmentation.random_object_bbox(x, **kw), [np.ones((3, 4), dtype)])


# -- random_mask_pixel -------------------------------------------------------------------------


def test_mask_pixel_foreground_value_threshold():
    m = np.zeros((5, 6, 7), np.uint16)
    m[3, 1, 4] = 9
    m[0, 5, 6] = 2
    for kw, want in (({"value": 9}, [3, 1, 4]), ({"threshold": 5.0}, [3, 1, 4])):
        (pos,) = _run(
            lambda x, kw=kw: fn.segmentation.random_mask_pixel(x, foreground=1, **kw), [m]
        )
        assert pos[0].dtype == np.int64 and pos[0].tolist() == want
    hits = set()
    for seed in range(30):
        (pos,) = _run(lambda x: fn.segmentation.random_mask_pixel(x, foreground=1), [m], seed=seed)
        hits.add(tuple(pos[0].tolist()))
    assert hits == {(3, 1, 4), (0, 5, 6)}


def test_mask_pixel_any_pixel_and_unrepresentable_value():
    m = np.zeros((4, 9), np.uint8)
    for kw in ({}, {"foreground": 1, "value": 256}, {"foreground": 1}):
        seen = set()
        for seed in range(60):
            (pos,) = _run(
                lambda x, kw=kw: fn.segmentation.random_mask_pixel(x, **kw), [m], seed=seed
            )
            assert 0 <= pos[0][0] < 4 and 0 <= pos[0][1] < 9
            seen.add(tuple(pos[0].tolist()))
        assert len(seen) > 20


def test_mask_pixel_errors():
    with pytest.raises(Exception, match="can not be provided together"):
        _run(
            lambda x: fn.segmentation.random_mask_pixel(x, value=1, threshold=0.5),
            [np.zeros((2, 2), np.uint8)],
        )
    with pytest.raises(Exception, match="Unexpected data type: float16"):
        _run(lambda x: fn.segmentation.random_mask_pixel(x), [np.zeros((2, 2), np.float16)])


# -- select_masks ---------------------------------------------------------------------------

POLYS = np.array([[0, 0, 3], [1, 3, 7], [2, 7, 10]], np.int32)
VERTS = np.arange(20, dtype=np.float32).reshape(10, 2)


def _select(ids, polys=POLYS, verts=VERTS, **kw):
    return _run(
        lambda i, p, v: fn.segmentation.select_masks(i, p, v, **kw),
        [np.array(ids, np.int32)],
        [polys],
        [verts],
    )


def test_select_masks_documented_examples():
    p, v = _select([1])
    assert p[0].tolist() == [[1, 0, 4]] and v[0].tolist() == VERTS[3:7].tolist()
    p, v = _select([2, 0], reindex_masks=True)
    assert p[0].tolist() == [[0, 0, 3], [1, 3, 6]]
    assert v[0].tolist() == np.concatenate([VERTS[7:10], VERTS[0:3]]).tolist()
    assert p[0].dtype == np.int32 and v[0].dtype == np.float32


def test_select_masks_last_polygon_of_a_mask_and_types():
    polys = np.array([[0, 0, 3], [1, 3, 7], [0, 7, 10]], np.int32)
    p, v = _select([0, 1], polys=polys)
    assert p[0].tolist() == [[0, 0, 3], [1, 3, 7]]
    assert v[0][:, 0].tolist() == [14, 16, 18, 6, 8, 10, 12]
    p, v = _select([], verts=VERTS.astype(np.int16))
    assert p[0].shape == (0, 3) and v[0].shape == (0, 2) and v[0].dtype == np.int16


@pytest.mark.parametrize(
    ("ids", "polys", "text"),
    [
        ([1, 1], POLYS, "duplicated"),
        ([5], POLYS, "not present"),
        ([2], np.array([[2, 7, 11]], np.int32), "out of bounds"),
        ([2], np.array([[2, 7, 5]], np.int32), "after end index"),
        ([2], np.zeros((2, 4), np.int32), "3 columns"),
        ([2], POLYS.astype(np.int64), "int32"),
    ],
)
def test_select_masks_errors(ids, polys, text):
    with pytest.raises(Exception, match=text):
        _select(ids, polys=polys)


# -- roi_random_crop ---------------------------------------------------------------------------


def test_roi_random_crop_ranges():
    x = np.zeros((40, 60, 3), np.uint8)
    for seed in range(20):
        (start,) = _run(
            lambda d: fn.roi_random_crop(
                d, crop_shape=[10, 30], roi_start=[5, 20], roi_shape=[20, 10]
            ),
            [x],
            seed=seed,
        )
        s = start[0]
        assert start[0].dtype == np.int64 and s.shape == (2,)
        assert 5 <= s[0] <= 15  # the ROI is longer: a sub-window of it
        assert 0 <= s[1] and s[1] <= 20 and s[1] + 30 >= 30 and s[1] + 30 <= 60  # holds it
    (start,) = _run(
        lambda d: fn.roi_random_crop(crop_shape=[4, 4, 4], roi_start=[2, 3, 1], roi_shape=4), [x]
    )
    assert start[0].tolist() == [2, 3, 1]


def test_roi_random_crop_per_sample_and_errors():
    crops = [np.array([4, 4], np.int32), np.array([8, 2], np.int32)]
    (start,) = _run(
        lambda c: fn.roi_random_crop(
            crop_shape=c, roi_start=[0, 0], roi_end=[8, 2], in_shape=[8, 8]
        ),
        crops,
    )
    assert start[1].tolist() == [0, 0] and 0 <= start[0][0] <= 4
    x = np.zeros((10, 20), np.uint8)
    for kw, text in (
        ({"crop_shape": [4, 4], "roi_start": [1, 1]}, "Either ROI end or ROI shape"),
        ({"crop_shape": [11, 4], "roi_start": [1, 1], "roi_end": [2, 2]}, "bigger than"),
        ({"crop_shape": [4, 4], "roi_start": [1, 1], "roi_end": [2, 21]}, "out of bounds"),
    ):
        with pytest.raises(Exception, match=text):
            _run(lambda d, kw=kw: fn.roi_random_crop(d, **kw), [x])
    with pytest.raises(Exception, match="incompatible with providing an input"):
        _run(
            lambda d: fn.roi_random_crop(
                d, crop_shape=[2, 2], roi_start=[0, 0], roi_end=[1, 1], in_shape=[10, 20]
            ),
            [x],
        )


# -- random_crop_generator ---------------------------------------------------------------------


def test_random_crop_generator():
    shapes = [np.array([375, 500, 3], np.int64), np.array([100, 100], np.int32)]
    for seed in range(10):
        a, s = _run(lambda x: fn.random_crop_generator(x), shapes[:1], seed=seed)
        a, s = a[0], s[0]
        assert a.dtype == np.int32 and s.dtype == np.int32
        assert (a >= 0).all() and (a + s <= [375, 500]).all()
        assert 0.07 <= s[0] * s[1] / (375 * 500) <= 1.01
    a, s = _run(
        lambda x: fn.random_crop_generator(x, random_area=1.0, random_aspect_ratio=1.0), shapes[1:]
    )
    assert a[0].tolist() == [0, 0] and s[0].tolist() == [100, 100]
    a, s = _run(lambda x: fn.random_crop_generator(x, num_attempts=0), shapes[1:])
    assert s[0].tolist() == [100, 100]  # straight to the fallback: the whole (square) image


@pytest.mark.parametrize(
    ("data", "kw", "text"),
    [
        (np.array([1.0, 2.0], np.float32), {}, "Only integer types"),
        (np.array([1, 2, 3, 4], np.int32), {}, "2 or 3 values"),
        (np.array([10, 20], np.int32), {"random_area": [0.5, 0.1]}, "empty range"),
        (np.array([10, 20], np.int32), {"random_area": [0.1, 0.2, 0.3]}, "2 elements"),
    ],
)
def test_random_crop_generator_errors(data, kw, text):
    with pytest.raises(Exception, match=text):
        _run(lambda x: fn.random_crop_generator(x, **kw), [data])


def test_static_meta():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        m = types.Constant(np.zeros((4, 5), np.uint8))
        a, s, c = fn.segmentation.random_object_bbox(m, output_class=True)
        assert a.dtype == types.INT32 and c.ndim == 0
        p = fn.segmentation.random_mask_pixel(m)
        assert p.dtype == types.INT64
        return a, s, c, p

    pipe().run()
