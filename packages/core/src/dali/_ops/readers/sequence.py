"""`fn.readers.sequence` (deprecated in DALI, still in user code): sequences of frames read
from folders of extracted frames, ``file_root/<stream>/<frame>``.

Each subfolder of ``file_root`` is one stream, a video extracted as one image file per frame;
its frames are its image files in name order. A sample is ``sequence_length`` frames of one
stream: frame ``start + k * stride`` for ``k < sequence_length``, the starts of a stream
``0, step, 2 * step, ...`` as long as the whole sequence fits (sequences never cross streams
and are never padded). The dataset is the list of those sequences, stream by stream; sharding,
shuffling and padding are every reader's (`IndexedReader`), so the samples, their order and the
epochs are DALI's.

The listing is DALI's (``GatherExtractedStreams``: the glob ``file_root/*/*``): names starting
with a dot are skipped at both levels, files directly in ``file_root`` are not frames, and a
frame is a name ending with a known image extension (``.jpg .jpeg .png .bmp .tif .tiff .pnm
.ppm .pgm .pbm .jp2 .webp``, any case). Streams and frames are sorted by their path's bytes.

Frames are decoded with the CPU image decoders of `fn.decoders.image` (`codecs.decode`, EXIF
orientation applied) into ``image_type`` (``RGB``, ``BGR``, ``GRAY`` or ``ANY_DATA``: DALI's
sequence reader takes no other), always uint8: 16-bit images keep their high byte, as
nvImageCodec converts them. The output is ``FHWC``; all frames of a sequence must have the same
shape. A frame shared by sequences of one batch (``step < sequence_length * stride``) is read
and decoded once. Like DALI's, the samples carry no ``source_info`` (empty strings); errors name
the frame's file.

Example:
    >>> import tempfile, warnings
    >>> import dali, dali.fn as fn
    >>> from dali._testing.sequences import frame_id, make_sequence_tree
    >>> root = tempfile.mkdtemp()
    >>> _ = make_sequence_tree(root, {"a": 5, "b": 3})  # frames 0..4 and 100..102
    >>> pipe = dali.Pipeline(batch_size=4, num_threads=1, device_id=None)
    >>> with pipe, warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     pipe.set_outputs(fn.readers.sequence(file_root=root, sequence_length=3, step=2))
    >>> seqs, = pipe.run()
    >>> seqs.layout(), seqs.at(0).shape, [[frame_id(f) for f in seqs.at(i)] for i in range(4)]
    ('FHWC', (3, 48, 160, 3), [[0, 1, 2], [2, 3, 4], [100, 101, 102], [0, 1, 2]])
"""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._dtypes import DALIDataType, DALIImageType
from dali._ops.decoders.image import codecs as _codecs
from dali._ops.readers.loader.indexed import NON_SEMANTIC, READER_ARGS, IndexedReader
from dali._ops.readers.storage import access as _storage
from dali.author import REQUIRED, Arg, SampleFailure, TensorListCPU, call_operator, register

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["IMAGE_EXTENSIONS", "Sequence", "Stream", "list_streams", "sequence_starts"]

#: DALI's ``kKnownImageExtensions`` (``dali/operators/reader/loader/utils.h``): a frame's name
#: ends with one of them, compared in lower case.
IMAGE_EXTENSIONS = (
    ".jpg",
    ".jpeg",
    ".png",
    ".bmp",
    ".tif",
    ".tiff",
    ".pnm",
    ".ppm",
    ".pgm",
    ".pbm",
    ".jp2",
    ".webp",
)

#: ``image_type`` -> the decoders' mode (DALI's sequence parser refuses YCbCr).
_MODES = {
    DALIImageType.RGB: "rgb",
    DALIImageType.BGR: "bgr",
    DALIImageType.GRAY: "gray",
    DALIImageType.ANY_DATA: "any",
}
_CHANNELS = {DALIImageType.RGB: 3, DALIImageType.BGR: 3, DALIImageType.GRAY: 1}

_DISPLAY = "readers.sequence"

#: DALI's deprecation text (``sequence_reader_op.cc``).
_DEPRECATION = (
    "WARNING: `dali.fn.readers.sequence` is now deprecated.\n"
    "This operator may be removed in future releases.\n\n"
    "`dali.fn.external_source` can be used to implement custom reading patterns. For reading "
    "video sequences, one of `dali.fn.readers.video`, `dali.fn.experimental.readers.video`, "
    "`dali.fn.experimental.decoders.video` or `dali.fn.experimental.inputs.video` can be used."
)


def _sequence_call(schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn.readers.sequence(...)``: DALI's deprecation warning, then the operator."""
    warnings.warn(_DEPRECATION, DeprecationWarning, stacklevel=3)
    return call_operator(schema, inputs, kwargs)


class Stream(NamedTuple):
    """One stream: its folder (relative to ``file_root``) and its frames' file names."""

    folder: str
    frames: list[str]


def list_streams(root: str) -> list[Stream]:
    """The streams under ``root`` as DALI's ``GatherExtractedStreams`` finds them.

    The entries of ``glob(root + "/*/*")`` (no name starting with a dot, at either level;
    symbolic links followed) whose names end with an `IMAGE_EXTENSIONS` extension, in any
    case; sorted by their path's bytes, then grouped by folder (in that order, since a
    folder's entries sort together). Streams without a frame do not exist.

    Raises:
        OSError: ``root`` cannot be listed.

    Example:
        >>> import os, tempfile
        >>> root = tempfile.mkdtemp()
        >>> for name in ("b/2.jpg", "b/1.JPG", "a/x.png", "a/.y.png", "a/z.txt", "top.png"):
        ...     os.makedirs(os.path.dirname(os.path.join(root, name)) or root, exist_ok=True)
        ...     open(os.path.join(root, name), "wb").close()
        >>> list_streams(root)
        [Stream(folder='a', frames=['x.png']), Stream(folder='b', frames=['1.JPG', '2.jpg'])]
    """
    entries: list[tuple[bytes, str, str]] = []
    with os.scandir(root) as top:
        folders = [e.name for e in top if not e.name.startswith(".") and e.is_dir()]
    for folder in folders:
        try:
            with os.scandir(os.path.join(root, folder)) as inner:
                names = [e.name for e in inner if not e.name.startswith(".")]
        except OSError:  # glob skips folders it cannot open
            continue
        for name in names:
            if name.lower().endswith(IMAGE_EXTENSIONS):
                entries.append((os.fsencode(f"{folder}/{name}"), folder, name))
    entries.sort()
    streams: list[Stream] = []
    for _, folder, name in entries:
        if not streams or streams[-1].folder != folder:
            streams.append(Stream(folder, []))
        streams[-1].frames.append(name)
    return streams


def sequence_starts(frames: int, length: int, step: int, stride: int) -> range:
    """The first frames of a stream's sequences (DALI's ``GenerateSequences``).

    Example:
        >>> list(sequence_starts(10, 3, 2, 2))  # frames (0,2,4), (2,4,6), (4,6,8)
        [0, 2, 4]
    """
    last = frames - (length - 1) * stride  # a sequence starting here or later does not fit
    return range(0, max(last, 0), step)


@register(
    _DISPLAY,
    devices=("cpu",),
    inputs=0,
    outputs=1,
    source=True,
    random=True,
    non_semantic=NON_SEMANTIC,
    fn=_sequence_call,
    args=[
        Arg(
            "file_root",
            "str",
            default=REQUIRED,
            doc="Folder of the streams: one subfolder of frame images per stream.",
        ),
        Arg("sequence_length", "int", default=REQUIRED, doc="Frames per sequence."),
        Arg(
            "step", "int", default=1, doc="Distance between first frames of consecutive sequences."
        ),
        Arg("stride", "int", default=1, doc="Distance between consecutive frames in a sequence."),
        Arg(
            "image_type",
            "image_type",
            default=DALIImageType.RGB,
            doc="Colour space of the frames: RGB, BGR, GRAY or ANY_DATA.",
        ),
        *READER_ARGS,
    ],
)
class Sequence(IndexedReader):
    """Reads [Frame] sequences from a directory representing a collection of streams.

    .. warning::
        This operator is deprecated (as in DALI) and may be removed in future releases.
        `fn.external_source` can implement custom reading patterns; for video sequences use
        `fn.readers.video`, `fn.experimental.readers.video`, `fn.experimental.decoders.video` or
        `fn.experimental.inputs.video`.

    This operator expects ``file_root`` to contain a set of directories, where each directory
    represents an extracted video stream. This stream is represented by one file for each frame,
    sorted lexicographically. Sequences do not cross the stream boundary and only complete
    sequences are considered, so there is no padding.

    Example directory structure::

      - file_root
        - 0
          - 00001.png
          - 00002.png
          ....
        - 1
          - 00001.png
          - 00002.png
          ....

    Each sample is a uint8 ``FHWC`` sequence of ``sequence_length`` frames decoded into
    ``image_type``; a sequence's frames must all have the same shape. This operator is an
    analogue of the video reader working on frames extracted as separate images; its main
    purpose is a test baseline.
    """

    # -- listing ------------------------------------------------------------------------------
    def check_arguments(self) -> None:
        for name, what in (
            ("sequence_length", "Sequence length"),
            ("step", "Step"),
            ("stride", "Stride"),
        ):
            if self.arg(name) <= 0:
                raise self.arg_error(name, f"{what} must be positive, got {self.arg(name)}")
        image_type = DALIImageType(self.arg("image_type"))
        if image_type not in _MODES:
            raise self.arg_error(
                "image_type",
                f"Format {image_type.name} not supported. Only RGB, BGR, GRAY or ANY_DATA are "
                "supported on this operator",
            )
        self._mode = _MODES[image_type]

    def list_samples(self) -> int:
        root = self.arg("file_root")
        try:
            streams = list_streams(root) if os.path.isdir(root) else []
        except OSError as e:
            raise self.arg_error("file_root", f"cannot list '{root}': {e}") from e
        if not streams:
            what = "is not a directory" if not os.path.isdir(root) else "holds no frames"
            raise self.arg_error(
                "file_root",
                f"'{root}' {what}: expected one subfolder per stream holding its frames "
                f"(image files: {', '.join(IMAGE_EXTENSIONS)})",
            )
        length, step, stride = (self.arg(k) for k in ("sequence_length", "step", "stride"))
        #: every frame's path, stream by stream; a sequence is the index of its first frame
        self._paths = [os.path.join(root, s.folder, f) for s in streams for f in s.frames]
        firsts: list[np.ndarray] = []
        base = 0
        for s in streams:
            starts = sequence_starts(len(s.frames), length, step, stride)
            firsts.append(np.arange(starts.start, starts.stop, starts.step, dtype=np.int64) + base)
            base += len(s.frames)
        self._first = np.concatenate(firsts)
        if not len(self._first):
            longest = max(len(s.frames) for s in streams)
            raise self.arg_error(
                "sequence_length",
                f"no stream of '{root}' is long enough: a sequence spans "
                f"{(length - 1) * stride + 1} frames (sequence_length={length}, stride={stride}) "
                f"and the longest of the {len(streams)} stream(s) has {longest}",
            )
        self._offsets = np.arange(length, dtype=np.int64) * stride
        self._use_mmap = not self.arg("dont_use_mmap")
        return len(self._first)

    def source_info(self, index: int) -> str:
        return ""  # DALI sets none on the sequences (only on the frames it reads)

    # -- reading ------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        ids = self.next_samples(ws)
        frames = self._first[ids][:, None] + self._offsets  # (batch, length) frame indices
        # overlapping sequences share frames: each is read and decoded once per batch
        unique, where = np.unique(frames, return_inverse=True)
        where = where.reshape(frames.shape)
        paths = [self._paths[k] for k in unique.tolist()]
        use_mmap = self._use_mmap

        def decode(j: int) -> np.ndarray | Exception:
            # read and decode in one task: the pool's threads overlap the I/O with the decodes
            try:
                d = _storage.read_bytes(paths[j], use_mmap=use_mmap)
            except OSError as e:
                return self.error(f"cannot read the frame '{paths[j]}': {e.strerror or e}")
            try:
                img = _codecs.decode(d, self._mode)
            except _codecs.DecodeError as e:
                return self.error(f"Failed to decode the frame '{paths[j]}': {e}")
            if img.dtype != np.uint8:  # 16-bit images: the high byte, as nvImageCodec gives
                img = (img >> 8).astype(np.uint8)
            return img

        decoded = ws.map(decode, len(paths))
        out: list[np.ndarray] = []
        for i, row in enumerate(where.tolist()):
            imgs = [decoded[j] for j in row]
            for k, img in enumerate(imgs):
                if isinstance(img, Exception):
                    raise SampleFailure(i, img) from img.__cause__
                if img.shape != imgs[0].shape:
                    raise SampleFailure(i, self._shape_error(paths[row[k]], img, imgs[0]))
            out.append(np.stack(imgs))
        return TensorListCPU.wrap(out, "FHWC", self.batch_infos(ws), dtype=np.uint8, ndim=4)

    def _shape_error(self, path: str, img: np.ndarray, first: np.ndarray) -> Exception:
        return self.error(
            "Expected all frames to have same shape. "
            f"{tuple(img.shape)} != {tuple(first.shape)} (frame '{path}' vs the sequence's "
            "first frame)"
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        image_type = DALIImageType(args.get("image_type", DALIImageType.RGB))
        length = args.get("sequence_length")
        shape = (length, None, None, _CHANNELS.get(image_type))
        return [{"dtype": DALIDataType.UINT8, "static_shape": shape, "layout": "FHWC"}]
