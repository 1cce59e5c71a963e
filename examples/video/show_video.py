"""Runs the slides' two video pipelines on generated clips and saves a picture of each.

It writes a few H.264 MP4 clips (`dali._testing.videos`: a moving square over a gradient; each
frame shows its number as a row of black/white blocks), then

* reads sequences with `video_pipelines.VideoCropPipeline` (reader → crop) and saves the frames
  of the first sequences as one grid (``--out``);
* reads sequences from a class tree with `video_pipelines.OpticalFlowPipeline` (reader →
  optical flow, element_extract) and saves each sequence's first frame beside its first flow
  field, coloured by direction (hue) and speed (brightness) (``--flow-out``).

Run: ``python examples/video/show_video.py`` (``--device gpu`` on a GPU; CPU by default).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

from _show import save_grid
from dali._testing.videos import frame_number, write_clip
from video_pipelines import OpticalFlowPipeline, VideoCropPipeline


def make_clips(root: str) -> tuple[list[str], str]:
    """Two clips, and a class tree of two classes of clips with different motions."""
    files = [
        write_clip(os.path.join(root, f"clip{k}.mp4"), frames=40, width=256, height=192)
        for k in range(2)
    ]
    tree = os.path.join(root, "classes")
    for label, motion in enumerate(((4, 0), (0, 3))):
        write_clip(
            os.path.join(tree, f"class{label}", "clip.mp4"),
            frames=24,
            width=256,
            height=192,
            motion=motion,
        )
    return files, tree


def flow_picture(flow: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A flow field (h, w, 2) as an RGB image of ``size``: hue = direction, value = speed."""
    import cv2

    dx, dy = flow[..., 0], flow[..., 1]
    angle = (np.degrees(np.arctan2(dy, dx)) % 360) / 2
    speed = np.hypot(dx, dy)
    hsv = np.empty((*flow.shape[:2], 3), np.uint8)
    hsv[..., 0] = angle.astype(np.uint8)
    hsv[..., 1] = 255
    hsv[..., 2] = np.clip(speed / max(float(speed.max()), 1e-6) * 255, 0, 255).astype(np.uint8)
    rgb = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
    return cv2.resize(rgb, size, interpolation=cv2.INTER_NEAREST)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "gpu"))
    ap.add_argument("--out", default="video_batch.png")
    ap.add_argument("--flow-out", default="video_flow.png")
    ap.add_argument("--data", default=None, help="folder for the clips (default: a temp dir)")
    args = ap.parse_args()
    root = args.data or tempfile.mkdtemp(prefix="dali_video_")
    files, tree = make_clips(root)
    device_id = 0 if args.device == "gpu" else None

    pipe = VideoCropPipeline(2, 2, device_id, files, length=8, crop=(160, 224), device=args.device)
    # (the crop keeps the top left, where each frame shows its number)
    pipe.build()
    (frames,) = pipe.run()
    batch = np.stack([np.asarray(frames.as_cpu()[i]) for i in range(2)])
    print(f"sequences: {batch.shape[0]} x {batch.shape[1:]} layout {frames.layout()}")
    print("frame numbers:", [[frame_number(f) for f in seq] for seq in batch])
    save_grid(batch.reshape(-1, *batch.shape[2:]), args.out, columns=8)
    print(f"saved {args.out}")

    # 4 sequences of each class: a batch of 8 holds both
    flow_pipe = OpticalFlowPipeline(8, 2, device_id, tree, length=6, step=6, device=args.device)
    flow_pipe.build()
    first, flow, labels = flow_pipe.run()
    pictures = []
    for i in (0, 4):
        image = np.asarray(first.as_cpu()[i])
        field = np.asarray(flow.as_cpu()[i])
        vectors = field.reshape(-1, 2)
        moving = vectors[np.hypot(vectors[:, 0], vectors[:, 1]) > 1]
        dx, dy = np.median(moving, axis=0) if len(moving) else (0.0, 0.0)
        print(
            f"label {int(np.asarray(labels.as_cpu()[i])[0])}: first frame {image.shape}, "
            f"flow {field.shape}, the square moves ({dx:.1f}, {dy:.1f}) px/frame"
        )
        pictures += [image, flow_picture(field[0], (image.shape[1], image.shape[0]))]
    save_grid(np.stack(pictures), args.flow_out, columns=2)
    print(f"saved {args.flow_out}")


if __name__ == "__main__":
    main()
