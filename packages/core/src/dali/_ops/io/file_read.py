"""`fn.io.file.read`: the bytes of the files whose paths a batch holds (DALI's ``io.file.read``).

Where a reader lists its files at build, ``io.file.read`` reads files named by the data: each
input sample is one path, encoded as a 1-D ``uint8`` (or ``int8``) array of its UTF-8 bytes,
and each output sample is that file's contents as a 1-D ``uint8`` array. A path is the bytes up
to the first NUL, if any (DALI reads it as a C string), relative to the working directory or
absolute; ``file://`` paths are local, and any fsspec URL (``s3://bucket/key``, ``gs://``...)
is read through the library's one door to bytes (`dali._ops.readers.storage.access`), with the
``[s3]``/``[gcs]``/``[remote]`` extras installed. The files of a batch are read in parallel
on the pipeline's threads (a batch's URLs as concurrent requests).

To encode a path in Python (an ``external_source`` callback, say)::

    np.frombuffer(path.encode("utf-8"), dtype=np.uint8)

``dont_use_mmap=False`` (the default) maps large local files instead of reading them (zero
copy: the sample is a private copy-on-write mapping); ``use_o_direct`` is accepted and has no
effect here (the reads go through the page cache). DALI 2.4 has this operator on the CPU only,
and so does this library. Unlike DALI 2.4, an empty file gives an empty sample with the
default ``dont_use_mmap=False`` too (DALI fails to map it), and a 0-d or 2-D path sample is an
error (DALI crashes or reads its first row).

Errors name the operator, the sample and the file: a missing file, a folder, a file that cannot
be read, an input that is not a 1-D byte array.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> folder = tempfile.mkdtemp()
    >>> for name, text in (("a.txt", b"hello"), ("b.txt", b"DALI!")):
    ...     with open(os.path.join(folder, name), "wb") as f:
    ...         _ = f.write(text)
    >>> paths = [os.path.join(folder, n).encode() for n in ("a.txt", "b.txt")]
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     names = fn.external_source(lambda: [np.frombuffer(p, np.uint8) for p in paths])
    ...     return fn.io.file.read(names)
    >>> out, = pipe().run()
    >>> [s.tobytes() for s in out.as_cpu().samples()]
    [b'hello', b'DALI!']
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.readers.storage import access as _storage
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali._graph.node import OpNode
    from dali.author import Workspace

__all__ = ["FileRead", "decode_path"]

_BYTES = (np.dtype(np.uint8), np.dtype(np.int8))


def decode_path(sample: np.ndarray) -> str:
    """The path a 1-D byte sample encodes: its bytes up to the first NUL, decoded as the OS
    decodes file names (UTF-8, undecodable bytes kept as surrogates).

    Example:
        >>> decode_path(np.frombuffer(b"/data/x.jpg\\0junk", np.uint8))
        '/data/x.jpg'
    """
    raw = sample.tobytes()
    end = raw.find(b"\0")
    return os.fsdecode(raw if end < 0 else raw[:end])


@register(
    "io.file.read",
    devices=("cpu",),
    inputs=1,
    input_names=("filepaths",),
    args=[
        Arg(
            "dont_use_mmap",
            "bool",
            default=False,
            doc="Read with plain file I/O instead of mapping the file into memory.",
        ),
        Arg(
            "use_o_direct",
            "bool",
            default=False,
            doc="Bypass the system cache (accepted; no effect here).",
        ),
    ],
)
class FileRead(Operator):
    """Reads raw file contents from an encoded filename represented by a 1-D byte array.

    Each input sample is a path (its UTF-8 bytes as ``uint8`` or ``int8``); each output sample
    is the file's bytes (1-D ``uint8``). Local paths, ``file://`` and fsspec URLs (``s3://``)
    are read. Encode a path with ``np.frombuffer(path.encode("utf-8"), dtype=np.uint8)``.
    """

    def setup(self) -> None:
        self._use_mmap = not self.arg("dont_use_mmap")

    def _paths(self, ws: Workspace) -> list[str]:
        tl = ws.inputs[0]
        if tl.np_dtype not in _BYTES:
            from dali._dtypes import type_name

            raise self.error(
                f"Unexpected input data type: expected file paths as uint8 or int8 bytes, "
                f"got {type_name(tl.np_dtype)}"
            )
        if tl.sample_ndim != 1:
            raise self.error(
                "expected file paths as 1-D arrays of bytes, got "
                f"{tl.sample_ndim}-dimensional samples"
            )
        return [decode_path(s) for s in tl.samples()]

    def run_cpu(self, ws: Workspace) -> Any:
        paths = self._paths(ws)
        extents = [_storage.Extent(p) for p in paths]
        data = _storage.read_extents(extents, use_mmap=self._use_mmap, parallel_map=ws.map)
        for i, d in enumerate(data):
            if isinstance(d, OSError):
                what = d.strerror or str(d)
                err = self.error(f"cannot read file '{paths[i]}': {what}")
                err.__cause__ = d
                raise SampleFailure(i, err)
        return TensorListCPU.wrap(data, "", dtype=np.uint8, ndim=1)

    @staticmethod
    def static_meta(node: OpNode) -> list[dict[str, Any]]:
        return [{"dtype": DALIDataType.UINT8, "static_shape": (None,), "layout": ""}]
