"""Frame folders for `fn.readers.sequence`: ``<root>/<stream>/<frame>.<ext>``.

Every frame shows its own number, ``100 * stream + frame``, as `dali._testing.videos` draws
it (a row of 16x16 black/white blocks spelling the number in binary, which lossy JPEG keeps),
so a test can tell which frame of which stream a reader returned (`frame_id`) whatever the
codec's rounding. PNG frames are lossless: their pixels are exactly `frame_pixels`.

`make_sequence_tree` writes the streams (frames ``00000.<ext>``, ``00001.<ext>``... sorted
by name); with ``edge_cases=True`` it adds what the reader must skip or take as DALI does:
a hidden file and a hidden folder, a text file, an image directly in ``root`` (frames live
one level down only) and a frame whose extension is upper case (extensions match in any
case).

Example:
    >>> import tempfile
    >>> tree = make_sequence_tree(tempfile.mkdtemp(), {"a": 3, "b": 2})
    >>> [p.name for p in tree["a"]], frame_id(frame_pixels(1, 2))
    (['00000.png', '00001.png', '00002.png'], 102)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from dali._testing.videos import frame_image, frame_number

__all__ = ["FRAME_SIZE", "frame_id", "frame_pixels", "make_sequence_tree"]

#: ``(height, width)`` of the frames: the number's 10 blocks of 16 pixels need 160 columns.
FRAME_SIZE = (48, 160)


def frame_pixels(stream: int, frame: int, size: tuple[int, int] = FRAME_SIZE) -> np.ndarray:
    """Frame ``frame`` of stream number ``stream``: HWC uint8 RGB showing ``100*stream+frame``."""
    h, w = size
    return frame_image(100 * stream + frame, w, h)


def frame_id(rgb: np.ndarray) -> int:
    """The number a decoded frame (HWC, RGB or BGR, or 1-channel gray) shows."""
    if rgb.shape[-1] == 1:
        rgb = np.repeat(rgb, 3, axis=-1)
    return frame_number(rgb)


def make_sequence_tree(
    root: str | os.PathLike[str],
    streams: Mapping[str, int] | None = None,
    *,
    ext: str = "png",
    size: tuple[int, int] = FRAME_SIZE,
    mode: str = "RGB",
    edge_cases: bool = False,
) -> dict[str, list[Path]]:
    """Write frame folders: stream ``j`` (in the order of ``streams``) gets ``streams[name]``
    frames showing ``100*j + k``.

    Args:
        root: The folder to fill (created if needed).
        streams: Folder name -> number of frames (default ``{"s0": 9, "s1": 5, "s2": 2}``).
        ext: ``"png"`` (lossless) or ``"jpg"`` (quality 95).
        size: ``(height, width)`` of every frame (width >= 160).
        mode: The frames' Pillow mode: ``"RGB"``, ``"L"`` (gray), ``"RGBA"`` (alpha 200), or
            ``"I;16"`` (16-bit gray PNG: the gray value times 257).
        edge_cases: Add entries the listing must skip or keep (module docstring).

    Returns:
        ``{stream name: frame paths in frame order}``.
    """
    from PIL import Image

    streams = {"s0": 9, "s1": 5, "s2": 2} if streams is None else dict(streams)
    root = Path(root)
    out: dict[str, list[Path]] = {}
    for j, (name, count) in enumerate(streams.items()):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for k in range(count):
            path = folder / f"{k:05d}.{ext}"
            img = Image.fromarray(frame_pixels(j, k, size))
            if mode == "I;16":
                gray = np.asarray(img.convert("L"), dtype=np.uint16) * np.uint16(257)
                img = Image.fromarray(gray)
            elif mode == "RGBA":
                img.putalpha(200)
            elif mode != "RGB":
                img = img.convert(mode)
            if ext == "png":
                img.save(path, "PNG")
            else:
                img.save(path, "JPEG", quality=95)
            paths.append(path)
        out[name] = paths
    if edge_cases:
        first = next(iter(out.values()))
        data = first[0].read_bytes()
        (first[0].parent / ".hidden.png").write_bytes(data)  # glob's * skips dot files
        (first[0].parent / "notes.txt").write_text("not a frame\n")  # no image extension
        (root / "top.png").write_bytes(data)  # frames are one level down only
        hidden = root / ".hidden_stream"
        hidden.mkdir(exist_ok=True)
        (hidden / "00000.png").write_bytes(data)
        # upper case extension: a frame (DALI lower-cases the name before matching)
        upper = first[-1].with_name(first[-1].stem + "_b.PNG")
        upper.write_bytes(first[-1].read_bytes())
        first.append(upper)
    return out
