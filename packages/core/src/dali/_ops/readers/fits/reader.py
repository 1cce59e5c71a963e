"""`fn.experimental.readers.fits`: image HDUs of FITS files, one output per HDU index.

FITS (the astronomers' Flexible Image Transport System) stores a file as a sequence of header
and data units (HDUs): the primary HDU (1), then extensions (2, 3, ...). Each sample is one file;
output ``k`` is the image of HDU ``hdu_indices[k]`` (1-based, default ``[2]``: the first
extension, where most files keep their image) as an array of the HDU's own type and shape:

* the shape is the HDU's axes ``NAXISn`` reversed (``NAXIS1`` varies fastest: it is the last,
  C-order axis), layout ``""``;
* the type is cfitsio's *equivalent* type: ``BITPIX`` with ``BSCALE``/``BZERO`` applied, so the
  offsets that FITS uses for unsigned data give uint16/uint32 (and ``BZERO = -128`` int8),
  and a fractional scaling gives float32 (float64 for 32- and 64-bit data); the values are
  scaled as cfitsio scales them;
* tile-compressed images (``RICE_1``, ``GZIP_1``, ``GZIP_2``, ``PLIO_1``, ``HCOMPRESS_1``,
  quantized floats included) are decompressed.

The files are read with `fitsio <https://github.com/esheldon/fitsio>`_, the Python binding of
cfitsio, the library DALI reads them with (install ``fitsio``; it is imported when a pipeline
with this reader is built). The listing (``file_root`` and ``file_filter``, ``file_list``,
``files``) is `readers.numpy`'s, which is DALI's ``FileLoader``'s for both; sharding,
shuffling, padding and checkpoints are every reader's (`IndexedReader`). As in DALI 2.4, the
samples carry no ``source_info`` and ``dtypes`` is checked (a supported type per HDU index)
but does not convert: the outputs have the files' types. All samples of a batch must have the
same type and number of dimensions per output.

``device="gpu"``: the same reader, reading on the host, each output going to the device in one
staged copy on the pipeline's stream. DALI's GPU backend decompresses ``RICE_1`` tiles with a
CUDA kernel instead; the values are the same where that kernel is right (row tiles of integer
images without ``BSCALE``/``BZERO``): here every compression and scaling is cfitsio's.

Example:
    >>> import tempfile
    >>> import numpy as np
    >>> import dali, dali.fn as fn
    >>> from dali._testing.fits import write_fits
    >>> root = tempfile.mkdtemp()
    >>> for k in range(2):
    ...     _ = write_fits(f"{root}/a{k}.fits", [np.arange(6, dtype=np.int16).reshape(2, 3) + k,
    ...                                           np.full(4, 0.5 * k, np.float32)])
    >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    >>> with pipe:
    ...     img, vec = fn.experimental.readers.fits(file_root=root, hdu_indices=[2, 3])
    ...     pipe.set_outputs(img, vec)
    >>> img, vec = pipe.run()
    >>> img.at(1).tolist(), vec.at(1).tolist(), img.at(0).dtype
    ([[1, 2, 3], [4, 5, 6]], [0.5, 0.5, 0.5, 0.5], dtype('int16'))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, type_name
from dali._ops.readers.loader.indexed import NON_SEMANTIC, READER_ARGS, SHUFFLE_AFTER_EPOCH_ARGS
from dali._ops.readers.numpy.reader import Numpy
from dali._ops.readers.storage import access as _storage
from dali.author import Arg, SampleFailure, TensorListCPU, register

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["SUPPORTED_DTYPES", "Fits", "FitsError", "read_hdus"]

#: DALI's ``fits::supportedTypes`` (``dali/util/fits.h``): what ``dtypes`` may name.
SUPPORTED_DTYPES = (
    DALIDataType.UINT8,
    DALIDataType.UINT16,
    DALIDataType.UINT32,
    DALIDataType.UINT64,
    DALIDataType.INT8,
    DALIDataType.INT16,
    DALIDataType.INT32,
    DALIDataType.INT64,
    DALIDataType.FLOAT16,
    DALIDataType.FLOAT,
    DALIDataType.FLOAT64,
)


#: cfitsio's image type codes (``fits_get_img_equivtype``) -> numpy types.
_IMAGE_TYPES = {
    8: np.dtype(np.uint8),
    10: np.dtype(np.int8),
    16: np.dtype(np.int16),
    20: np.dtype(np.uint16),
    32: np.dtype(np.int32),
    40: np.dtype(np.uint32),
    64: np.dtype(np.int64),
    80: np.dtype(np.uint64),
    -32: np.dtype(np.float32),
    -64: np.dtype(np.float64),
}


class FitsError(Exception):
    """A file that cannot be read as asked: not FITS, no such HDU, not an image, no axes."""


def _fitsio() -> Any:
    try:
        import fitsio  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "fn.experimental.readers.fits reads FITS files with fitsio (cfitsio's binding): "
            "pip install fitsio"
        ) from e
    return fitsio


def read_hdus(path: str, hdu_indices: tuple[int, ...]) -> list[np.ndarray]:
    """The images of the HDUs ``hdu_indices`` (1-based) of the FITS file ``path``.

    Each is cfitsio's ``fits_read_img`` of the HDU in its equivalent type (module docstring),
    C-order, native byte order.

    Raises:
        FitsError: The file is no FITS file, or an HDU is missing, is no image or has no axes.

    Example:
        >>> import tempfile
        >>> from dali._testing.fits import write_fits
        >>> path = write_fits(tempfile.mktemp(suffix=".fits"), [np.arange(3, dtype=np.uint16)])
        >>> read_hdus(str(path), (2,))
        [array([0, 1, 2], dtype=uint16)]
    """
    fitsio = _fitsio()
    try:
        f = fitsio.FITS(path)
    except OSError as e:
        raise FitsError(f"Failed to open a file: {path} ({_first_line(e)})") from e
    with f:
        out = []
        count = len(f)
        for k in hdu_indices:
            if k > count:
                raise FitsError(f"'{path}' has {count} HDU(s): there is no HDU {k}")
            hdu = f[k - 1]
            if hdu.get_exttype() != "IMAGE_HDU":
                raise FitsError(
                    f"Only IMAGE_HDUs are supported! HDU {k} of '{path}' is a {hdu.get_exttype()}"
                )
            info = hdu.get_info()
            if not info.get("ndims"):
                raise FitsError(
                    "NAXIS (image dimensions) value for each HDU has to be greater than 0! "
                    f"HDU {k} of '{path}' has no axes"
                )
            dims = tuple(int(d) for d in info["dims"])
            try:
                data = hdu.read() if all(dims) else None
            except OSError as e:
                raise FitsError(f"cannot read HDU {k} of '{path}': {_first_line(e)}") from e
            if data is None:  # an axis of length 0: an empty array of the HDU's type
                data = np.empty(dims, _IMAGE_TYPES[int(info["img_equiv_type"])])
            out.append(data)
    return out


def _first_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return "; ".join(lines[:3]) or type(e).__name__


def _outputs(args: Any) -> int:
    return len(args.get("hdu_indices") or (2,))


@register(
    "experimental.readers.fits",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=_outputs,
    source=True,
    random=True,
    non_semantic=NON_SEMANTIC,
    args=[
        Arg("file_root", "str", doc="Folder of the files (traversed unless files/file_list)."),
        Arg("file_filter", "str", default="*.fits", doc="Glob for file names under file_root."),
        Arg("file_list", "str", doc="Text file with one path per line."),
        Arg("files", "str_vec", doc="File paths (relative to file_root if given)."),
        Arg(
            "hdu_indices",
            "int_vec",
            default=(2,),
            doc="HDUs to read (1-based: 1 is the primary HDU); one output each.",
        ),
        Arg(
            "dtypes",
            "dtype_vec",
            doc="A type per HDU index, checked but not applied (as in DALI 2.4: the outputs "
            "have the files' types).",
        ),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class Fits(Numpy):
    """Reads Fits image HDUs from a directory.

    This operator can be used in the following modes:

    1. Read all files from a directory indicated by ``file_root`` that match given
       ``file_filter``.
    2. Read file names from a text file indicated in ``file_list`` argument.
    3. Read files listed in ``files`` argument.
    4. Number of outputs per sample corresponds to the length of ``hdu_indices`` argument. By
       default, first HDU with data is read from each file, so the number of outputs defaults
       to 1.

    Each output sample is the image of its HDU: the HDU's type (``BSCALE``/``BZERO`` applied,
    as cfitsio does) and its axes reversed (C order), tile-compressed images decompressed.
    Needs the ``fitsio`` package.
    """

    # -- listing (`readers.numpy`'s) ----------------------------------------------------------
    def check_arguments(self) -> None:
        has = self.has_arg
        if not (has("file_root") or has("file_list") or has("files")):
            raise self.arg_error(
                "file_root", "is required when the files are not given by `files` or `file_list`"
            )
        if has("file_list") and has("files"):
            raise self.arg_error("files", "`files` and `file_list` are mutually exclusive")
        self._hdus = tuple(int(k) for k in self.arg("hdu_indices"))
        if not self._hdus:
            raise self.arg_error("hdu_indices", "give at least one HDU index (one per output)")
        bad = [k for k in self._hdus if k < 1]
        if bad:
            raise self.arg_error(
                "hdu_indices", f"HDUs are numbered from 1 (the primary HDU), got {bad}"
            )
        if has("dtypes"):
            dtypes = tuple(self.arg("dtypes"))
            for dt in dtypes:
                if dt not in SUPPORTED_DTYPES:
                    raise self.arg_error(
                        "dtypes",
                        f"Unsupported output dtype {type_name(dt)}. Supported types are: "
                        + ", ".join(type_name(t) for t in SUPPORTED_DTYPES),
                    )
            if len(dtypes) != len(self._hdus):
                raise self.arg_error(
                    "dtypes",
                    "Number of extensions does not match the number of provided types: "
                    f"{len(self._hdus)} HDU indices, {len(dtypes)} types",
                )
        _fitsio()  # a missing fitsio is a build error, not a first-batch one

    def list_samples(self) -> int:
        n = super().list_samples()
        remote = [p for p in self._full if _storage.is_url(p)]
        if remote:
            where = "file_list" if self.has_arg("file_list") else "files"
            if not (self.has_arg("file_list") or self.has_arg("files")):
                where = "file_root"
            raise self.arg_error(
                where,
                f"FITS files are read with cfitsio, from local paths only; got '{remote[0]}'",
            )
        return n

    def source_info(self, index: int) -> str:
        return ""  # DALI 2.4's FITS loader sets none

    # -- reading ------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:  # type: ignore[override]
        return self._read_fits(ws)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.transfer import to_gpu

        # read on the host, then one staged copy per output on the pipeline's stream
        return tuple(to_gpu(tl) for tl in self._read_fits(ws))

    def _read_fits(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        paths = [self._full[k] for k in ids.tolist()]
        hdus = self._hdus

        def one(i: int) -> list[np.ndarray] | Exception:
            try:
                return read_hdus(paths[i], hdus)
            except FitsError as e:
                return self.error(str(e))

        # on the pool: fitsio releases the GIL around cfitsio (built reentrant in its wheels)
        results = ws.map(one, len(paths))
        for i, r in enumerate(results):
            if isinstance(r, Exception):
                raise SampleFailure(i, r)
        samples: list[list[np.ndarray]] = results
        infos = self.batch_infos(ws)
        outs = []
        for k in range(len(hdus)):
            column = [s[k] for s in samples]
            self._check_output(k, column, paths)
            outs.append(TensorListCPU.wrap(column, "", infos))
        return tuple(outs)

    def _check_output(self, k: int, column: list[np.ndarray], paths: list[str]) -> None:
        """DALI's rule: one type and one number of dimensions per output in a batch."""
        a0 = column[0]
        for i, a in enumerate(column[1:], 1):
            if a.ndim != a0.ndim:
                raise SampleFailure(
                    i,
                    self.error(
                        "Inconsistent data: All samples in the batch must have the same number "
                        f'of dimensions for outputs with the same idx. Got "{paths[0]}" with '
                        f'{a0.ndim} dimensions and "{paths[i]}" with {a.ndim} dimensions on '
                        f"output with idx = {k}"
                    ),
                )
            if a.dtype != a0.dtype:
                raise SampleFailure(
                    i,
                    self.error(
                        "Inconsistent data: All samples in the batch must have the same data "
                        f'type for outputs with the same idx. Got "{paths[0]}" with data type '
                        f'{a0.dtype.name} and "{paths[i]}" with data type {a.dtype.name}'
                    ),
                )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        # the files decide the types and the numbers of dimensions; DALI sets no layout
        return [{"layout": ""} for _ in range(_outputs(node.scalar_args))]
