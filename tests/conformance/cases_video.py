"""Conformance cases of the video operators against real DALI 2.4 (see README.md).

DALI 2.4's CPU video backend (``experimental.readers.video``, ``decoders.video``) decodes VP8,
VP9 and MJPEG only (its libavcodec has no H.264/HEVC); the clips here are therefore VP9 in WebM
and MJPEG in AVI, written by `dali._testing.videos` (every frame shows its number) into the
``video`` folder: 50 and 23 frames of 160x128, and a 13-frame MJPEG clip.

Compared: the samples and their order (the sequence rules of ``sequence_length``, ``stride``,
``step``, every ``pad_mode``, ``uniform_sample``), labels, ``frame_num`` (scalar and sequence),
``timestamps``, ``reader_meta`` over shards and padding, and the frames themselves within ±2 per
value: DALI's CPU converts YUV to RGB with FFmpeg's swscale, `dali` with the arithmetic of
DALI's GPU kernel on both backends (bilinear chroma, BT.601); the two differ by at most 2 (mean
0.3). The legacy ``readers.video`` is GPU-only in DALI and not compared here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cases import GENERATORS, Case, Value, _short, add


def _generate(folder: Path) -> None:
    from dali._testing.videos import write_clip

    folder.mkdir(parents=True, exist_ok=True)
    write_clip(str(folder / "a50.webm"), frames=50, codec="vp9", width=160, height=128)
    write_clip(str(folder / "b23.webm"), frames=23, codec="vp9", width=160, height=128)
    write_clip(str(folder / "m13.avi"), frames=13, codec="mjpeg", width=160, height=128)


GENERATORS["video"] = _generate

VIDEOS = Value(lambda c: c.folder("video"), "videos")


def _reader(kw: dict[str, Any], files: list[str]) -> Callable:
    def graph(fn: Any, types: Any, root: str) -> Any:
        out = fn.experimental.readers.video(
            filenames=[str(Path(root) / f) for f in files], device="cpu", **kw
        )
        return tuple(out) if isinstance(out, list) else out

    return graph


def reader_case(
    kw: dict[str, Any], files: tuple[str, ...] = ("a50.webm", "b23.webm"), **opts: Any
) -> Case:
    opts.setdefault("batch_size", 3)
    opts.setdefault("iters", 4)
    name = "experimental.readers.video(" + ", ".join(f"{k}={_short(v)}" for k, v in kw.items())
    name += f", files={len(files)}) b{opts['batch_size']}"
    return Case(name=name, graph=_reader(kw, list(files)), inputs=(VIDEOS,), atol=2, **opts)


FULL = {"labels": [4, 7], "enable_frame_num": "sequence", "enable_timestamps": True}

add(
    reader_case({"sequence_length": 8, "stride": 3, **FULL}),
    reader_case({"sequence_length": 8, "stride": 2, "step": 5, "pad_mode": "edge", **FULL}),
    reader_case(
        {
            "sequence_length": 8,
            "stride": 2,
            "step": 5,
            "pad_mode": "constant",
            "fill_value": [7, 8, 9],
            **FULL,
        },
        iters=5,
    ),
    reader_case(
        {"sequence_length": 8, "stride": 2, "step": 20, "pad_mode": "reflect_1001", **FULL}
    ),
    reader_case({"sequence_length": 6, "stride": 3, "step": 11, "pad_mode": "reflect_101", **FULL}),
    reader_case({"sequence_length": 4, "uniform_sample": True, **FULL}, batch_size=2, iters=2),
    reader_case({"sequence_length": 5, "enable_frame_num": True, "labels": [0, 1]}),
    reader_case({"sequence_length": 5}, files=("m13.avi",), batch_size=2, iters=2),
    reader_case({"sequence_length": 3, "stride": 4, **FULL}, files=("m13.avi", "a50.webm")),
)

# sharding and padding: the stream and reader_meta / epoch_size
for shards, shard_id in ((2, 0), (2, 1), (3, 2)):
    for pad in (False, True):
        add(
            reader_case(
                {
                    "sequence_length": 6,
                    "num_shards": shards,
                    "shard_id": shard_id,
                    "pad_last_batch": pad,
                    "name": "Reader",
                    **FULL,
                },
                batch_size=4,
                iters=3,
                meta="Reader",
            )
        )

# errors both libraries raise
for kw in (
    {"sequence_length": 60},
    {"sequence_length": 4, "labels": [1]},
    {"sequence_length": 4, "pad_mode": "wrap"},
):
    add(reader_case(kw, expect_error=True, iters=1))


def _decoder(kw: dict[str, Any], files: list[str]) -> Callable:
    def graph(fn: Any, types: Any, root: str) -> Any:
        enc, _ = fn.readers.file(files=[str(Path(root) / f) for f in files])
        return fn.decoders.video(enc, **kw)

    return graph


for kw in (
    {},
    {"frames": [5, 0, 5, 12]},
    {"start_frame": 2, "end_frame": 11, "stride": 4},
    {"start_frame": 8, "sequence_length": 8, "stride": 2, "pad_mode": "edge"},
    {"start_frame": 9, "sequence_length": 6, "stride": 2, "fill_value": [1, 2, 3]},
):
    add(
        Case(
            name="decoders.video(" + ", ".join(f"{k}={_short(v)}" for k, v in kw.items()) + ")",
            graph=_decoder(kw, ["b23.webm", "m13.avi"]),
            inputs=(VIDEOS,),
            batch_size=2,
            atol=2,
        )
    )


# -- experimental.inputs.video: fed videos streamed as batches of sequences --------------------


def _inputs_video(policy: str) -> Callable[[Any, Callable[[Any], None]], dict[str, Any]]:
    """A driver: feed two VP9 videos (23 and 12 frames), run until both are used up, keep every
    batch (full, partial, the last sequence short or padded), and report the batch sizes."""

    def driver(lib: Any, keep: Callable[[Any], None]) -> dict[str, Any]:
        import tempfile

        import numpy as np
        from dali._testing.videos import write_clip

        with tempfile.TemporaryDirectory(prefix="dali-video-conf-") as root:
            videos = [
                np.fromfile(
                    write_clip(f"{root}/{n}.webm", frames=n, codec="vp9", width=160, height=128),
                    np.uint8,
                )
                for n in (23, 12)
            ]
        pipe = lib.Pipeline(batch_size=2, num_threads=2, device_id=None, prefetch_queue_depth=1)
        with pipe:
            pipe.set_outputs(
                lib.fn.experimental.inputs.video(
                    sequence_length=5, name="V", last_sequence_policy=policy
                )
            )
        pipe.build()
        for v in videos:
            pipe.feed_input("V", [v])
        sizes = []
        for _ in range(5):
            out = pipe.run()
            sizes.append(len(out[0]))
            keep(out)
        return {"batch sizes": sizes}

    return driver


for policy in ("partial", "pad"):
    add(
        Case(
            name=f"experimental.inputs.video(sequence_length=5, last_sequence_policy={policy!r})",
            graph=None,
            driver=_inputs_video(policy),
            atol=2,
        )
    )
