"""`fn.decoders.numpy`: arrays from the bytes of ``.npy`` files (DALI's ``decoders.numpy``).

Where `fn.readers.numpy` reads ``.npy`` files by name, this decoder takes their *contents*:
each input sample is the bytes of one ``.npy`` file (a 1-D ``uint8`` array, as `fn.io.file.read`,
`fn.readers.file`, `fn.readers.webdataset` or an ``external_source`` give them), and each
output sample is the array it holds, with its element type and shape (0-d arrays stay 0-d) and
the layout ``""``.

A ``.npy`` file is a short header (a Python dict literal: element type, ``fortran_order`` and
shape; parsed by `dali._ops.readers.numpy.header`) followed by the raw array bytes. A
``fortran_order`` array comes out in C order with its logical shape (``np.load``'s array). The
payload of a C-order array whose type needs no conversion is not copied: the output sample is
a view of the input bytes. Headers are parsed once per distinct header: a batch of arrays of
one shape and type parses one.

As in DALI 2.4:

* only format version 1.0 is read (numpy writes 2.0 and 3.0 only for huge or non-Latin-1
  headers) and big-endian payloads are rejected; the supported element types are ``bool``,
  ``(u)int8..64`` and ``float16/32/64``;
* the input must be exactly one file: header and payload, nothing after it;
* every sample of a batch must have the same number of dimensions, and the same element type
  unless ``dtype`` is given: then each sample is converted to ``dtype`` with DALI's saturating
  rules (`dali._ops.numeric.convert_sat`: floats round half away from zero, integers clamp);
* the operator runs on the CPU only.

Unlike DALI 2.4, whose CPU build transposes ``fortran_order`` arrays on a GPU (without one it
fails), the transposition is done on the CPU; and an input that is not bytes (``uint8`` or
``int8``) is an error (DALI reads the first ``size`` bytes of its buffer).

Example:
    >>> import io
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> def npy_bytes(array):
    ...     buf = io.BytesIO()
    ...     np.save(buf, array)
    ...     return np.frombuffer(buf.getvalue(), np.uint8)
    >>> blobs = [npy_bytes(np.arange(6, dtype=np.int16).reshape(2, 3)),
    ...          npy_bytes(np.asfortranarray(np.ones((3, 2), np.int16)))]
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     data = fn.external_source(lambda: blobs)
    ...     return fn.decoders.numpy(data), fn.decoders.numpy(data, dtype=types.FLOAT)
    >>> arrays, floats = pipe().run()
    >>> arrays.at(0).tolist(), arrays.at(1).shape, floats.at(0).dtype
    ([[0, 1, 2], [3, 4, 5]], (3, 2), dtype('float32'))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import convert_sat
from dali._ops.readers.numpy.header import MAGIC, NpyFormatError, NpyHeader, parse_header
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali._graph.node import OpNode
    from dali.author import Workspace

__all__ = ["NumpyDecoder"]

#: The bytes of a version 1.0 preamble: magic, version, 2-byte header length.
_PREAMBLE = 10

#: How many distinct headers the operator remembers (random shapes would grow it forever).
_HEADERS_KEPT = 1024

_BYTES = (np.dtype(np.uint8), np.dtype(np.int8))


@register(
    "decoders.numpy",
    devices=("cpu",),
    inputs=1,
    input_names=("data",),
    class_name="Numpy",
    args=[
        Arg(
            "dtype",
            "dtype",
            doc="Output type (samples are converted to it); inferred from the data if not set.",
        ),
    ],
)
class NumpyDecoder(Operator):
    """Decodes NumPy arrays from the bytes of serialized ``.npy`` files.

    Each input sample is one file's bytes (1-D ``uint8``); each output sample is its array, C
    order, with the file's type, or converted to ``dtype``. All samples of a batch must have
    the same number of dimensions and, without ``dtype``, the same type. Format version 1.0,
    C or Fortran order, little-endian ``bool``, integer and float types.
    """

    def setup(self) -> None:
        self._dtype: np.dtype[Any] | None = None
        if self.has_arg("dtype"):
            from dali._dtypes import np_dtype, type_name

            dtype = self.arg("dtype")
            try:
                self._dtype = np_dtype(dtype)
            except TypeError:
                raise self.arg_error(
                    "dtype", f"Unsupported output type: {type_name(dtype)}"
                ) from None
        #: header bytes -> parsed header (a batch of one shape and type parses one header)
        self._headers: dict[bytes, NpyHeader] = {}

    # -- parsing ---------------------------------------------------------------------------
    def _header(self, raw: np.ndarray) -> NpyHeader:
        """The header of one file's bytes, checked as DALI checks it (DALI's messages)."""
        n = raw.size
        if n == 0:
            raise self.error("Input sample is empty. Expected a non-empty NPY file.")
        if n < _PREAMBLE or raw[: len(MAGIC)].tobytes() != MAGIC:
            got = raw[: len(MAGIC)].tobytes().hex()
            raise self.error(
                f"Got bad magic string for numpy header 0x{got}, expected 0x{MAGIC.hex()}"
            )
        if raw[6] != 1:
            raise self.error(
                f"Unsupported numpy file version {raw[6]}.{raw[7]}. "
                "Only major version 1 is supported."
            )
        span = _PREAMBLE + int(raw[8]) + (int(raw[9]) << 8)
        if span > n:
            raise self.error(
                f"Header length exceeds input size ({span} bytes of header, {n} bytes given)."
            )
        key = raw[:span].tobytes()
        header = self._headers.get(key)
        if header is None:
            try:
                header = parse_header(key)
            except NpyFormatError as e:
                raise self.error(f"invalid numpy header: {e}") from None
            if header.dtype.byteorder == ">":
                raise self.error(
                    f"Big Endian files are not supported (element type {header.dtype.str!r})."
                )
            if len(self._headers) >= _HEADERS_KEPT:
                self._headers.clear()
            self._headers[key] = header
        expected = header.data_offset + header.nbytes
        if expected != n:
            raise self.error(
                f"Expected data numpy size {expected} bytes does not match the actual size "
                f"{n} bytes."
            )
        return header

    def _headers_of(self, samples: list[np.ndarray]) -> list[NpyHeader]:
        headers = []
        for i, s in enumerate(samples):
            try:
                headers.append(self._header(s))
            except Exception as e:
                raise SampleFailure(i, e) from e
        return headers

    def _check_batch(self, headers: list[NpyHeader]) -> None:
        if not headers:
            return
        first = headers[0]
        if self._dtype is None:
            for i, h in enumerate(headers):
                if h.dtype != first.dtype:
                    raise self.error(
                        "All samples in the dataset must have the same data type, but got "
                        f"differing types: {first.dtype.name} (sample 0) and {h.dtype.name} "
                        f"(sample {i})"
                    )
        ndim = len(first.shape)
        for h in headers:
            if len(h.shape) != ndim:
                raise self.error(
                    "All samples in the dataset must have the same number of dimensions, but "
                    f"got differing sample dimensions: {ndim} and {len(h.shape)}"
                )

    # -- decoding --------------------------------------------------------------------------
    @staticmethod
    def _stored(raw: np.ndarray, header: NpyHeader) -> np.ndarray:
        """The payload as an array of the stored shape (C order), a view of ``raw``."""
        dtype = header.dtype.newbyteorder("=")
        payload = raw[header.data_offset :]
        if payload.ctypes.data % dtype.alignment:  # an unaligned view would slow every reader
            payload = payload.copy()
        return payload.view(dtype).reshape(header.stored_shape)

    def _decode(self, raw: np.ndarray, header: NpyHeader) -> np.ndarray:
        stored = self._stored(raw, header)
        array = stored.T if header.fortran_order else stored
        if self._dtype is not None and self._dtype != array.dtype:
            array = convert_sat(np, array, self._dtype)
        return np.ascontiguousarray(array)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        if tl.np_dtype not in _BYTES:
            from dali._dtypes import type_name

            raise self.error(
                "expected the bytes of .npy files (uint8 or int8 samples), got "
                f"{type_name(tl.np_dtype)}"
            )
        samples = [s.reshape(-1).view(np.uint8) for s in tl.samples()]
        headers = self._headers_of(samples)
        self._check_batch(headers)
        out_dtype = self._dtype or (headers[0].dtype.newbyteorder("=") if headers else None)
        work = [
            h.fortran_order or (self._dtype is not None and h.dtype != self._dtype) for h in headers
        ]
        if any(work):  # transposes and conversions: on the pipeline's threads
            out = ws.map(lambda i: self._decode(samples[i], headers[i]), len(samples))
        else:  # views of the input bytes
            out = [self._stored(s, h) for s, h in zip(samples, headers)]
        ndim = len(headers[0].shape) if headers else 0
        return TensorListCPU.wrap(out, "", dtype=out_dtype, ndim=ndim)

    @staticmethod
    def static_meta(node: OpNode) -> list[dict[str, Any]]:
        return [{"dtype": node.scalar_args.get("dtype"), "layout": ""}]
