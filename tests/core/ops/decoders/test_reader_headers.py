"""The JPEG headers `fn.readers.file`'s worker processes walk for the GPU decoders' planning.

Issue 4: the ResNet-50 GPU pipeline is bound by the GIL time of its threads; walking the batch's
JPEG markers (`jpeg_headers`) was ~0.3 ms of it per batch of 256 alone. The worker processes now
walk each file they copy (`_jpeg_walk.header_row`, standard library only) and the batch carries
the rows: they must be exactly `jpeg_headers`' answers, and the planning must be the same.
"""

from __future__ import annotations

from pathlib import Path

import dali
import numpy as np
import pytest
import test_decoders_mixed as mixed_tests
from dali import _options as options
from dali import fn
from dali._ops.decoders.headers import jpeg_header as _jpeg_header
from dali._ops.decoders.headers import jpeg_walk as _jpeg_walk
from dali._ops.decoders.image import mixed_plan as _mixed_plan
from dali._ops.readers.storage import read_worker as _read_worker
from test_decoders_mixed import cpu_decoder, header_corpus, unusual_jpegs

# the image fixtures of the mixed decoder's tests
tree, edge, extra = mixed_tests.tree, mixed_tests.edge, mixed_tests.extra

needs_worker = pytest.mark.skipif(
    not _read_worker.supported(), reason="the read worker needs Linux (memfd, SCM_RIGHTS)"
)


def corpus(tree, edge, extra) -> list[bytes]:
    """Every branch of the walks: plain, unusual and damaged JPEGs, other formats, tiny files."""
    return header_corpus(tree, edge, extra, 120, (11, 12))


def rows_of(hd: _jpeg_header.JpegHeaders) -> np.ndarray:
    return np.stack([getattr(hd, f).astype(np.int64) for f in _jpeg_walk.ROW_FIELDS], axis=1)


def test_header_row_is_the_row_of_jpeg_headers(tree, edge, extra) -> None:
    raw = corpus(tree, edge, extra)
    hd = _jpeg_header.jpeg_headers([np.frombuffer(b, np.uint8) for b in raw], ends=True)
    want = rows_of(hd)
    for i, b in enumerate(raw):
        got = _jpeg_walk.header_row(lambda at, k, b=b: b[at : at + k], len(b))
        assert got == tuple(want[i].tolist()), i
    assert want[:, 1].sum() > len(tree)  # (many found: the corpus is not all rejects)

    back = _jpeg_header.headers_from_rows(want)
    for field in _jpeg_header.JpegHeaders._fields:
        a, b = getattr(back, field), getattr(hd, field)
        assert a.dtype == b.dtype, field
        np.testing.assert_array_equal(a, b, err_msg=field)


@needs_worker
def test_the_workers_walk_what_they_copied(tmp_path, tree, edge, extra) -> None:
    raw = corpus(tree, edge, extra)
    paths = []
    for i, b in enumerate(raw):
        paths.append(tmp_path / f"f{i:04d}")
        paths[-1].write_bytes(b)
    (tmp_path / "dir").mkdir()
    big = tmp_path / "big.jpg"
    limit = max(map(len, raw)) + 1
    big.write_bytes(Path(tree[0]).read_bytes() + bytes(limit))
    names = [str(p) for p in paths] + [str(tmp_path / "missing"), str(tmp_path / "dir"), str(big)]
    workers = _read_worker.ReadWorkers(3)
    try:
        workers.send(names, limit, True)
        data, rows = workers.receive_batch()
        workers.send(names[:5], None)
        plain, none = workers.receive_batch()
    finally:
        workers.close()
    assert none is None and len(plain) == 5
    assert rows.shape == (len(names), 1 + len(_jpeg_walk.ROW_FIELDS)) and rows.dtype == np.int64
    n = len(raw)
    assert rows[:n, 0].all() and not rows[n:].any()  # errors and the file left to map: no row
    assert isinstance(data[n], OSError) and isinstance(data[n + 1], OSError) and data[n + 2] is None
    hd = _jpeg_header.jpeg_headers(data[:n], ends=True)
    np.testing.assert_array_equal(rows[:n, 1:], rows_of(hd))
    assert [d.tobytes() for d in data[:n]] == raw


def _reader_pipe(root: Path, batch: int) -> tuple[dali.Pipeline, object]:
    pipe = dali.Pipeline(batch_size=batch, num_threads=2, device_id=None, seed=3)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True, name="Reader")
        pipe.set_outputs(jpegs, labels)
    pipe.build()
    impl = pipe._plan.by_name["Reader"].impl
    impl._worker_wanted = True
    return pipe, impl


@needs_worker
@pytest.mark.parametrize("walk", [True, False])
def test_reader_batches_carry_the_rows(image_tree, monkeypatch, walk) -> None:
    monkeypatch.setattr(options, "WALK_HEADERS", walk)
    pipe, _ = _reader_pipe(image_tree, 5)
    with pipe:
        for _ in range(6):  # past the batches read ahead, and over an epoch end
            jpegs, _ = pipe.run()
            derived = getattr(jpegs, "_derived", None)
            if not walk:
                assert derived is None
                continue
            rows = derived["jpeg_header_rows"]
            samples = [jpegs.at(i) for i in range(len(jpegs))]
            assert rows[:, 0].all()
            np.testing.assert_array_equal(
                rows[:, 1:], rows_of(_jpeg_header.jpeg_headers(samples, ends=True))
            )


CASES = [
    ("image", {}),
    ("image_random_crop", {}),
    ("image_crop", {"crop": (40, 70), "crop_pos_x": 0.3, "out_of_bounds_policy": "pad"}),
]


@needs_worker
@pytest.mark.parametrize(("op", "kw"), CASES, ids=lambda v: str(v))
def test_the_plan_from_the_rows_is_the_plan_from_the_bytes(
    tmp_path, monkeypatch, tree, edge, extra, op, kw
) -> None:
    """`plan_batch` on a batch carrying the workers' rows plans exactly what it plans walking
    the bytes itself; a batch with a sample the workers did not read falls back to the walk."""
    from dali._exec.workspace import BatchMeta, SampleFailure, Workspace
    from dali._tensors import TensorListCPU

    files = [*tree[:6], *(edge[k] for k in ("jpeg_cmyk", "truncated", "png_rgb", "jpeg_gray"))]
    files += [edge[k] for k in ("jpeg_progressive", "tiny", "wide", "tall", "corrupt")]
    files += [edge["bmp"], *(extra[f"exif{o}.jpg"] for o in (3, 6, 8))]
    raw = unusual_jpegs(Path(tree[2]).read_bytes())
    for k in ("trailing bytes", "no EOI", "EXIF 6", "fill bytes", "long APP2"):
        files.append(tmp_path / k.replace(" ", "_"))
        files[-1].write_bytes(raw[k])
    workers = _read_worker.ReadWorkers(2)
    try:
        workers.send([str(f) for f in files], None, True)
        samples, rows = workers.receive_batch()
    finally:
        workers.close()

    p, node = cpu_decoder(op, kw, files[0], len(files))
    n = len(samples)

    def plan(rows):
        tl = TensorListCPU.wrap(list(samples))
        if rows is not None:
            tl._derived = {"jpeg_header_rows": rows}
        ws = Workspace(
            node.impl, [tl], {}, BatchMeta.stream(0, n, 0), 0, 0, None, node.key, None, None
        )
        try:
            prep = _mixed_plan.plan_batch(node.impl, ws)
        except SampleFailure as e:
            return ("error", e.index, type(e.error), str(e.error))
        infos = [None if i is None else tuple(i) for _, i in prep.heads]
        return infos, [tuple(g) for g in prep.gpu], prep.cpu

    want = plan(None)
    with monkeypatch.context() as m:  # the rows are what it plans with: no walk here
        m.setattr(_mixed_plan, "jpeg_headers", None)
        assert plan(rows) == want
    partial = rows.copy()
    partial[3] = 0  # a sample the workers did not read: the rows are not used
    partial[0, 1:] = 0
    assert plan(partial) == want
    p.close()
