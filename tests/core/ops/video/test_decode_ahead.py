"""Decoding ahead (`dali._ops.video._ahead`): the video readers decode the next batches while a
batch is used, and give exactly what they give without it.

The readers are compared with ``options.VIDEO_DECODE_AHEAD`` at 0 (each batch decoded when it
is read) and above: over several epochs, with ``random_shuffle``, padded batches (a sample that
comes twice) and a checkpoint restored in place (the cursor moves back under a full window);
errors stay with the batch of their sample; closing the pipeline stops the decoding threads.
`DecodeAhead` itself is checked on its own: keys, the window, cancellation, errors.
"""

from __future__ import annotations

import functools
import itertools
import threading
from concurrent.futures import Future

import numpy as np
import pytest
from dali import _options as options
from dali import fn, pipeline_def
from dali._ops.video._ahead import DecodeAhead
from dali._ops.video._clips import Clip, VideoFrames
from dali._ops.video._container import VideoError
from dali._testing.videos import frame_number, write_clip
from parity import device_id

pytest.importorskip("av")

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("ahead")
    return [
        write_clip(str(root / "a.mp4"), frames=50, width=160, height=144),
        write_clip(str(root / "b.mp4"), frames=23, width=160, height=144, gop=5),
        write_clip(str(root / "c.mp4"), frames=31, width=160, height=144, codec="hevc"),
    ]


def _read_with_restore(device, files, *, shuffle, legacy, batches=14, saved_at=4):
    """Every batch of ``batches`` (video, frame numbers), then the batches after ``saved_at``
    again from a checkpoint restored in place, as numpy arrays."""

    @pipeline_def(
        batch_size=3,
        num_threads=2,
        device_id=device_id(device),
        seed=5,
        enable_checkpointing=True,
    )
    def pipe():
        if legacy:
            video, _label, nums = fn.readers.video(
                device=device,
                filenames=files,
                labels=[0, 1, 2],
                sequence_length=4,
                stride=2,
                step=5,
                pad_sequences=True,
                enable_frame_num=True,
                random_shuffle=shuffle,
                initial_fill=6,
                pad_last_batch=True,
            )
        else:
            video, nums = fn.experimental.readers.video(
                device=device,
                filenames=files,
                sequence_length=5,
                stride=1,
                step=4,
                pad_mode="reflect_101",
                enable_frame_num="sequence",
                random_shuffle=shuffle,
                initial_fill=6,
                pad_last_batch=True,
            )
        return video, nums

    def batch(p):
        video, nums = p.run()
        return [
            (np.asarray(video.as_cpu()[i]), np.asarray(nums.as_cpu()[i])) for i in range(len(nums))
        ]

    p = pipe()
    p.build()
    out, state = [], None
    for k in range(batches):
        if k == saved_at:
            state = p.checkpoint()
        out.append(batch(p))
    p.restore(state)
    again = [batch(p) for _ in range(batches - saved_at)]
    p.close()
    return out, again


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("legacy", [True, False])
@pytest.mark.parametrize("shuffle", [False, True])
def test_decoding_ahead_gives_the_same_batches(device, legacy, shuffle, clips, monkeypatch):
    runs = {}
    # (fewest batches ahead, runs a thread): "wide" grows the window to 16 runs a thread
    for depth, per_thread in ((0, 2), (1, 0), (3, 0), ("wide", 16)):
        monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 1 if depth == "wide" else depth)
        monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_RUNS", per_thread)
        runs[depth] = _read_with_restore(device, clips, shuffle=shuffle, legacy=legacy)
    out, again = runs[0]
    # the reference: what was saved comes back after the restore, every frame the one named
    assert [[n.tolist() for _, n in b] for b in again] == [
        [n.tolist() for _, n in b] for b in out[4:]
    ]
    if not legacy:  # frame numbers of every frame (the legacy reader gives the first)
        for b in out:
            for video, nums in b:
                assert [frame_number(f) for f in video] == nums.tolist()
    for depth in (1, 3, "wide"):
        for name, got, want in (
            ("epochs", runs[depth][0], out),
            ("restored", runs[depth][1], again),
        ):
            assert len(got) == len(want)
            for k, (b_got, b_want) in enumerate(zip(got, want)):
                assert len(b_got) == len(b_want)
                for (v1, n1), (v0, n0) in zip(b_got, b_want):
                    assert np.array_equal(n1, n0), (depth, name, k)
                    assert np.array_equal(v1, v0), (depth, name, k)


def test_a_sample_that_comes_again_is_not_shared(clips, monkeypatch):
    # pad_last_batch repeats the last sample: decoded once ahead, handed out as three arrays
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 2)

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        return fn.readers.video(filenames=[clips[1]], sequence_length=5, pad_last_batch=True)

    p = pipe()
    p.build()
    p.run()  # sequences 0, 5, 10 of the 23 frames
    (video,) = p.run()  # 15, then 15 twice more (padding)
    samples = [np.asarray(video[i]) for i in range(3)]
    assert [frame_number(s[0]) for s in samples] == [15, 15, 15]
    assert all(np.array_equal(s, samples[0]) for s in samples)
    assert len({s.__array_interface__["data"][0] for s in samples}) == 3
    p.close()


@pytest.mark.parametrize("depth", [0, 3])
def test_a_failing_sample_fails_its_own_batch(depth, clips, monkeypatch):
    from dali._ops.video._decode_cpu import CpuDecoder

    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", depth)
    decode = CpuDecoder.decode

    def failing(self, frames, on_frame):
        if 30 in frames:  # the sample of frames 30..34: the first of the fourth batch
            raise VideoError("injected failure")
        return decode(self, frames, on_frame)

    monkeypatch.setattr(CpuDecoder, "decode", failing)

    @pipeline_def(batch_size=2, num_threads=2, device_id=None, prefetch_queue_depth=2)
    def pipe():
        return fn.experimental.readers.video(
            filenames=[clips[0]], sequence_length=5, enable_frame_num=True
        )

    p = pipe()
    p.build()
    for k in range(3):  # the batches before it are whole, though it failed while they were read
        video, nums = p.run()
        assert np.asarray(nums.as_tensor()).ravel().tolist() == [10 * k, 10 * k + 5]
        for i in range(2):
            assert [frame_number(f) for f in np.asarray(video[i])] == list(
                range(10 * k + 5 * i, 10 * k + 5 * i + 5)
            )
    with pytest.raises(Exception, match=r"cannot decode frames of '.*a\.mp4': injected failure"):
        p.run()
    p.close()


def test_closing_the_pipeline_stops_the_decoding_threads(clips, monkeypatch):
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 2)
    before = set(threading.enumerate())

    @pipeline_def(batch_size=2, num_threads=2, device_id=None)
    def pipe():
        return fn.readers.video(filenames=clips[:2], sequence_length=4)

    p = pipe()
    p.build()
    for _ in range(3):
        p.run()
    decoding = [t for t in threading.enumerate() if t.name.startswith("dali-video")]
    assert len(decoding) == 2  # num_threads
    p.close()
    assert not any(t.is_alive() for t in decoding)
    extra = [t.name for t in set(threading.enumerate()) - before if t.name != "dali-close"]
    assert extra == []


def test_worker_processes_decode_each_batch_on_its_own(clips, monkeypatch):
    # the consumer plans the batches there: no upcoming samples, no decoding threads
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 2)

    @pipeline_def(batch_size=2, num_threads=2, device_id=None, cpu_parallelism="processes")
    def pipe():
        return fn.experimental.readers.video(
            filenames=[clips[0]], sequence_length=5, enable_frame_num=True
        )

    p = pipe()
    p.build()
    got = [np.asarray(p.run()[1].as_tensor()).ravel().tolist() for _ in range(3)]
    assert got == [[0, 5], [10, 15], [20, 25]]
    assert not [t for t in threading.enumerate() if t.name.startswith("dali-video")]
    p.close()


# -- DecodeAhead, the window and VideoFrames' runs, alone -----------------------------------------


def _batches(runs_each, frames=4, size=(8, 10)):
    """An endless reader's next batches: batch ``k`` holds ``runs_each[k % len]`` files of one
    sample each (one run each), ``frames`` frames of ``size`` (WxH)."""
    k = 0
    while True:
        n = runs_each[k % len(runs_each)]
        clips = []
        for f in range(n):
            index = type(
                "I",
                (),
                {
                    "path": f"{k}-{f}.mp4",
                    "width": size[0],
                    "height": size[1],
                    "key_frame_before": staticmethod(lambda frame: 0),
                },
            )()
            clips.append(Clip(index, np.arange(frames)))
        yield [(k, f) for f in range(n)], clips
        k += 1


def _rgb(index):
    return 3.0 * index.width * index.height


@pytest.mark.parametrize(
    ("threads", "runs_each", "least", "per_thread", "want"),
    [
        (8, [1], 2, 2, 16),  # a run a batch: 16 batches give 8 threads 2 runs each
        (8, [4], 2, 2, 4),  # four runs a batch: four batches
        (8, [4], 2, 1, 2),  # never fewer than the fewest batches
        (2, [3, 1], 1, 2, 2),  # 3 + 1 runs
        (4, [1], 0, 2, 0),  # 0: nothing decoded ahead, whatever the runs
    ],
)
def test_the_window_grows_until_each_thread_has_its_runs(
    threads, runs_each, least, per_thread, want, monkeypatch
):
    from dali._ops.video._clips import window_ahead

    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", least)
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_RUNS", per_thread)
    taken = window_ahead(_batches(runs_each), threads, _rgb)
    assert [keys[0][0] for keys, _ in taken] == list(range(want))  # the next ones, in order


def test_the_window_stays_within_its_bytes(monkeypatch):
    from dali._ops.video._clips import window_ahead

    # a batch of one run: 4 frames of 8x10 RGB = 960 bytes
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 2)
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_RUNS", 100)
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_BYTES", 5 * 960 + 959)
    assert len(window_ahead(_batches([1]), 4, _rgb)) == 5
    # NV12 frames are half the bytes: twice the batches
    assert len(window_ahead(_batches([1]), 4, lambda i: _rgb(i) / 2)) == 11
    # the fewest batches are taken even past the bytes
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_BYTES", 0)
    assert len(window_ahead(_batches([1]), 4, _rgb)) == 2


def test_a_reader_decodes_ahead_as_many_batches_as_its_threads_need(clips, monkeypatch):
    # one file, sequences of 5 frames each one key frame apart (gop 5): a sample is a run
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 1)
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_RUNS", 2)
    scheduled = []
    futures = DecodeAhead.futures

    def spy(self, batches, schedule):
        scheduled.append(len(batches) - 1)  # the batches ahead of the one being read
        return futures(self, batches, schedule)

    monkeypatch.setattr(DecodeAhead, "futures", spy)

    @pipeline_def(batch_size=1, num_threads=3, device_id=None)
    def pipe():
        return fn.experimental.readers.video(filenames=[clips[1]], sequence_length=5)

    p = pipe()
    p.build()
    p.run()
    p.close()
    assert scheduled and set(scheduled) == {6}  # 3 threads x 2 runs, a run a batch


class _Gate:
    """A `DecodeAhead` schedule: one task per sample, whose result is its ``(batch, position)``
    in the window of the call that scheduled it; the very first task waits for `open`."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.scheduled: list[list[tuple[int, int]]] = []
        self.futures: list[Future] = []

    def open(self) -> None:
        self.opened.set()

    def __call__(self, samples, futures):
        first = not self.scheduled
        self.scheduled.append(list(samples))
        self.futures += futures

        def task(sample, future, wait):
            if wait:
                self.opened.wait(30)
            if future.set_running_or_notify_cancel():
                future.set_result(sample)

        return [
            functools.partial(task, s, f, first and k == 0)
            for k, (s, f) in enumerate(zip(samples, futures))
        ]


def test_futures_are_kept_by_key_and_dropped_with_the_window():
    ahead = DecodeAhead(1)
    gate = _Gate()
    first = ahead.futures([["a", "b"], ["c", "d"], ["e"]], gate)
    assert gate.scheduled == [[(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]]
    assert sorted(ahead.held()) == ["c", "d", "e"]
    # the cursor moved (a restored checkpoint): "c" is still wanted, "d" and "e" are not
    second = ahead.futures([["x", "c"], ["y"]], gate)
    assert gate.scheduled[1] == [(0, 0), (1, 0)]  # "x" and "y": "c" is not decoded again
    assert sorted(ahead.held()) == ["y"]
    d, e = gate.futures[3:5]
    assert d.cancelled() and e.cancelled()  # still queued behind "a": never decoded
    gate.open()
    assert [f.result(30) for f in first.futures] == [(0, 0), (0, 1)]
    assert [f.result(30) for f in second.futures] == [(0, 0), (1, 0)]  # "c" from the first
    ahead.close()
    assert gate.futures[-1].cancelled() or gate.futures[-1].done()


def test_a_sample_twice_in_the_window_is_decoded_once_and_marked_shared():
    ahead = DecodeAhead(2)
    gate = _Gate()
    gate.open()
    one = ahead.futures([["a", "b", "a"], ["c", "b"]], gate)
    assert gate.scheduled == [[(0, 0), (0, 1), (1, 0)]]
    assert one.futures[0] is one.futures[2]
    assert one.shared == [True, True, True]  # "a" twice here, "b" again in the next batch
    two = ahead.futures([["c", "b"], ["d"]], gate)
    assert two.shared == [False, True]
    assert sorted(ahead.held()) == ["d"]
    ahead.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("dali-video")]
    with pytest.raises(RuntimeError, match="closed"):
        ahead.futures([["a"]], gate)


def test_a_run_keeps_each_error_with_its_sample():
    index = type("I", (), {"path": "f.mp4", "key_frame_before": staticmethod(lambda f: 0)})()
    clips = [Clip(index, np.arange(s, s + 2)) for s in (0, 2, 4, 6)]
    futures: list[Future] = [Future() for _ in clips]
    futures[3].cancel()  # no longer wanted: skipped
    opened = []

    def use(clip, work):
        opened.append(int(clip.frames[0]))
        work(object())

    def decode(decoder, clip):
        if clip.frames[0] == 2:
            raise VideoError("bad frames")
        return int(clip.frames[0])

    VideoFrames._run(clips, futures, use, decode)
    assert futures[0].result(0) == 0 and futures[2].result(0) == 4
    with pytest.raises(VideoError, match="bad frames"):
        futures[1].result(0)
    assert futures[3].cancelled()
    assert opened == [0, 4]  # a fresh decoder after the failure


def test_the_window_plans_only_the_batch_that_joins_it(monkeypatch):
    from dali._ops.video import _clips

    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD", 1)
    monkeypatch.setattr(options, "VIDEO_DECODE_AHEAD_RUNS", 1)
    planned = []
    plan = _clips.plan_runs

    def counted(clips, threads, **kw):
        planned.append(clips[0].index.path)
        return plan(clips, threads, **kw)

    monkeypatch.setattr(_clips, "plan_runs", counted)
    counts: dict = {}
    batches = list(itertools.islice(_batches([1]), 10))
    first = _clips.window_ahead(iter(batches), 4, _rgb, counts)
    assert len(first) == 4 and len(planned) == 4
    second = _clips.window_ahead(iter(batches[1:]), 4, _rgb, counts)  # the cursor moved on
    assert [k for k, _ in second] == [k for k, _ in batches[1:5]]
    assert planned[4:] == ["4-0.mp4"]  # the one batch that joined
    assert sorted(counts) == sorted(tuple(k) for k, _ in second)  # the others forgotten
