"""`fn.readers.sequence` (DALI's deprecated ``readers.sequence``): listing, sequences, frames.

The frames come from `dali._testing.sequences`: each shows its number ``100*stream + frame``
(`frame_id`), PNG frames are exactly `frame_pixels`. Values are checked against Pillow.
"""

from __future__ import annotations

import os
import warnings

import dali
import numpy as np
import pytest
from dali import fn, ops, types
from dali._ops.readers.sequence import IMAGE_EXTENSIONS, list_streams, sequence_starts
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.sequences import frame_id, frame_pixels, make_sequence_tree
from PIL import Image

STREAMS = {"s0": 9, "s1": 5, "s2": 2, "s3": 7}
#: frames per stream once the edge cases add an upper-case frame to "s0"
FRAMES = {"s0": 10, "s1": 5, "s2": 2, "s3": 7}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = tmp_path_factory.mktemp("seq")
    make_sequence_tree(path / "png", STREAMS, edge_cases=True)
    make_sequence_tree(path / "jpg", {"a": 4, "b": 3}, ext="jpg")
    make_sequence_tree(path / "gray", {"g": 3}, mode="L")
    make_sequence_tree(path / "rgba", {"r": 3}, mode="RGBA")
    make_sequence_tree(path / "png16", {"w": 3}, mode="I;16")
    return path


def expected_sequences(frames, length, step=1, stride=1):
    """The frame numbers of every sequence, in DALI's order (stream by stream)."""
    out = []
    for j, n in enumerate(frames.values()):
        ids = [100 * j + min(k, 8 if j == 0 else k) for k in range(n)]  # s0's 10th repeats 8
        for start in range(0, n, step):
            if start + (length - 1) * stride >= n:
                break
            out.append(tuple(ids[start + k * stride] for k in range(length)))
    return out


def _pipeline(batch_size=4, *, seed=7, checkpoint=None, **kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=2,
        device_id=None,
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
        enable_checkpointing=kw.pop("checkpointing", False) or checkpoint is not None,
        checkpoint=checkpoint,
    )
    kw.setdefault("name", "Reader")
    with pipe, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pipe.set_outputs(fn.readers.sequence(**kw))
    return pipe


def _ids(out):
    return [tuple(frame_id(f) for f in out.at(i)) for i in range(len(out))]


def _run_ids(pipe, iters):
    return [s for _ in range(iters) for s in _ids(pipe.run()[0])]


# -- listing ----------------------------------------------------------------------------------


def test_list_streams_skips_what_glob_skips(root):
    streams = list_streams(str(root / "png"))
    assert [s.folder for s in streams] == ["s0", "s1", "s2", "s3"]  # no ".hidden_stream"
    s0 = streams[0].frames
    assert s0[:3] == ["00000.png", "00001.png", "00002.png"]
    assert s0[-1] == "00008_b.PNG"  # upper-case extension kept, sorted by bytes
    assert ".hidden.png" not in s0 and "notes.txt" not in s0
    assert [len(s.frames) for s in streams] == list(FRAMES.values())


def test_list_streams_byte_order(tmp_path):
    # "a-b/" sorts before "a/" ('-' < '/'): the order of the paths, not of the folder names
    for name in ("a/1.png", "a-b/2.png", "B/3.jpeg", "a/0.PNG"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    assert [(s.folder, s.frames) for s in list_streams(str(tmp_path))] == [
        ("B", ["3.jpeg"]),
        ("a-b", ["2.png"]),
        ("a", ["0.PNG", "1.png"]),
    ]


def test_known_extensions():
    assert IMAGE_EXTENSIONS == (
        ".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff",
        ".pnm", ".ppm", ".pgm", ".pbm", ".jp2", ".webp",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("frames", "length", "step", "stride", "starts"),
    [
        (10, 3, 1, 1, list(range(8))),
        (10, 3, 2, 2, [0, 2, 4]),
        (10, 10, 1, 1, [0]),
        (10, 11, 1, 1, []),
        (5, 1, 3, 7, [0, 3]),
        (0, 1, 1, 1, []),
    ],
)
def test_sequence_starts(frames, length, step, stride, starts):
    assert list(sequence_starts(frames, length, step, stride)) == starts


# -- sequences and order ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "step", "stride", "batch"),
    [(3, 1, 1, 4), (1, 1, 1, 5), (2, 3, 1, 3), (3, 1, 2, 4), (2, 2, 3, 2), (7, 1, 1, 3)],
)
def test_sequences_in_order_over_epochs(root, length, step, stride, batch):
    expected = expected_sequences(FRAMES, length, step, stride)
    pipe = _pipeline(
        batch, file_root=str(root / "png"), sequence_length=length, step=step, stride=stride
    )
    n = len(expected)
    assert pipe.epoch_size("Reader") == n
    iters = -(-2 * n // batch) + 1
    got = _run_ids(pipe, iters)
    assert got == [expected[k % n] for k in range(iters * batch)]


def test_output_layout_shape_dtype_and_pixels(root):
    pipe = _pipeline(2, file_root=str(root / "png"), sequence_length=3, step=4)
    (out,) = pipe.run()
    assert out.layout() == "FHWC" and out.at(0).dtype == np.uint8
    assert out.at(0).shape == (3, 48, 160, 3)
    np.testing.assert_array_equal(out.at(1), np.stack([frame_pixels(0, k) for k in (4, 5, 6)]))
    assert out[0].source_info() == ""  # as DALI: the sequences carry none


@pytest.mark.parametrize(
    ("image_type", "mode", "channels"),
    [("RGB", "RGB", 3), ("BGR", "RGB", 3), ("GRAY", "L", 1)],
)
def test_image_types_match_pillow(root, image_type, mode, channels):
    pipe = _pipeline(
        2,
        file_root=str(root / "jpg"),
        sequence_length=2,
        image_type=getattr(types.DALIImageType, image_type),
    )
    (out,) = pipe.run()
    frames = sorted((root / "jpg" / "a").iterdir())
    for f, path in enumerate(frames[:2]):
        with Image.open(path) as im:
            ref = np.asarray(im.convert(mode)).reshape(48, 160, channels)
        if image_type == "BGR":
            ref = ref[..., ::-1]
        assert out.at(0).shape == (2, 48, 160, channels)
        assert np.abs(out.at(0)[f].astype(int) - ref).max() <= (1 if mode == "L" else 0)


def test_any_data_keeps_the_channels(root):
    for where, channels in (("gray", 1), ("rgba", 4), ("png", 3)):
        pipe = _pipeline(
            1,
            file_root=str(root / where),
            sequence_length=2,
            image_type=types.DALIImageType.ANY_DATA,
        )
        (out,) = pipe.run()
        assert out.at(0).shape == (2, 48, 160, channels), where
    (rgba,) = _pipeline(
        1, file_root=str(root / "rgba"), sequence_length=1, image_type=types.ANY_DATA
    ).run()
    assert (rgba.at(0)[..., 3] == 200).all()
    np.testing.assert_array_equal(rgba.at(0)[0, ..., :3], frame_pixels(0, 0))


def test_16_bit_frames_keep_the_high_byte(root):
    (out,) = _pipeline(
        1, file_root=str(root / "png16"), sequence_length=1, image_type=types.GRAY
    ).run()
    with Image.open(root / "png16" / "w" / "00000.png") as im:
        raw = np.asarray(im, dtype=np.uint16)
    np.testing.assert_array_equal(out.at(0)[0, ..., 0], (raw >> 8).astype(np.uint8))


def test_shared_frames_decoded_once_give_the_same_values(root):
    # step 1: consecutive sequences share frames; each sample still holds its own array
    (out,) = _pipeline(3, file_root=str(root / "png"), sequence_length=3).run()
    np.testing.assert_array_equal(out.at(0)[1], out.at(1)[0])
    out.at(0)[1][...] = 0
    assert out.at(1)[0].any()


# -- the loader -------------------------------------------------------------------------------


@pytest.mark.parametrize(("shards", "pad"), [(2, False), (3, True), (4, False)])
def test_sharding_and_padding(root, shards, pad):
    expected = expected_sequences(FRAMES, 3)
    n = len(expected)
    for shard in range(shards):
        pipe = _pipeline(
            3,
            file_root=str(root / "png"),
            sequence_length=3,
            num_shards=shards,
            shard_id=shard,
            pad_last_batch=pad,
        )
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == n and meta["number_of_shards"] == shards
        lo, hi = n * shard // shards, n * (shard + 1) // shards
        got = _run_ids(pipe, -(-(hi - lo) // 3))
        assert got[: hi - lo] == expected[lo:hi]


def test_random_shuffle_visits_every_sequence_once_per_epoch(root):
    expected = expected_sequences(FRAMES, 2, 2)
    n = len(expected)
    pipe = _pipeline(
        5,
        file_root=str(root / "png"),
        sequence_length=2,
        step=2,
        random_shuffle=True,
        initial_fill=6,
    )
    got = _run_ids(pipe, -(-2 * n // 5))
    for e in range(2):
        assert sorted(got[e * n : (e + 1) * n]) == sorted(expected)
    assert got[:n] != expected


def test_checkpoint_round_trip(root):
    def make(checkpoint=None):
        return _pipeline(
            3,
            file_root=str(root / "png"),
            sequence_length=2,
            random_shuffle=True,
            initial_fill=5,
            checkpoint=checkpoint,
            checkpointing=True,
        )

    check_pipeline_save_restore(make, 4, 6)


def test_ops_api_and_deprecation_warning(root):
    fn_pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with fn_pipe, pytest.warns(DeprecationWarning, match=r"readers.sequence` is now deprecated"):
        fn_pipe.set_outputs(fn.readers.sequence(file_root=str(root / "png"), sequence_length=2))
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        reader = ops.readers.Sequence(file_root=str(root / "png"), sequence_length=2)
        pipe.set_outputs(reader())
    assert _ids(pipe.run()[0]) == _ids(fn_pipe.run()[0])


def test_static_meta(root):
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = fn.readers.sequence(
            file_root=str(root / "png"), sequence_length=4, image_type=types.GRAY
        )
    assert out.layout == "FHWC" and out.dtype == types.UINT8
    assert out.static_shape == (4, None, None, 1)


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"sequence_length": 0}, "sequence_length.*Sequence length must be positive"),
        ({"sequence_length": 2, "step": 0}, "step.*Step must be positive"),
        ({"sequence_length": 2, "stride": -1}, "stride.*Stride must be positive"),
        ({"sequence_length": 2, "image_type": types.YCbCr}, "Only RGB, BGR, GRAY or ANY_DATA"),
        ({"sequence_length": 11}, "no stream .* is long enough.*longest of the 4 stream"),
        ({"sequence_length": 2, "num_shards": 40}, "fewer than num_shards=40"),
    ],
)
def test_argument_errors(root, kw, match):
    with pytest.raises(Exception, match=match):
        _pipeline(2, file_root=str(root / "png"), **kw).build()


def test_missing_and_empty_roots(root, tmp_path):
    with pytest.raises(Exception, match=r"file_root.*is not a directory"):
        _pipeline(2, file_root=str(root / "nope"), sequence_length=1).build()
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.txt").write_text("x")
    with pytest.raises(Exception, match=r"file_root.*holds no frames"):
        _pipeline(2, file_root=str(tmp_path), sequence_length=1).build()


def test_frames_of_different_shapes(tmp_path):
    tree = make_sequence_tree(tmp_path, {"m": 3})
    Image.fromarray(frame_pixels(0, 1, (32, 160))).save(tree["m"][1])
    pipe = _pipeline(2, file_root=str(tmp_path), sequence_length=3)
    with pytest.raises(Exception, match=r"same shape. \(32, 160, 3\) != \(48, 160, 3\)"):
        pipe.run()


def test_corrupt_and_vanished_frames(tmp_path):
    tree = make_sequence_tree(tmp_path / "bad", {"c": 4})
    tree["c"][2].write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    pipe = _pipeline(1, file_root=str(tmp_path / "bad"), sequence_length=2)
    assert _ids(pipe.run()[0]) == [(0, 1)]
    with pytest.raises(Exception, match=r"Failed to decode the frame '.*00002.png'"):
        pipe.run()  # (1, 2)
    tree = make_sequence_tree(tmp_path / "gone", {"c": 4})
    pipe = _pipeline(3, file_root=str(tmp_path / "gone"), sequence_length=1)
    pipe.build()
    os.remove(tree["c"][2])
    with pytest.raises(Exception, match=r"cannot read the frame '.*00002.png'"):
        pipe.run()
