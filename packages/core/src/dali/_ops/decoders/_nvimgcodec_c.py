"""A ctypes binding to nvImageCodec's C API: batch image decoding without holding the GIL.

nvImageCodec's Python binding (``nvidia.nvimgcodec.Decoder.decode``) releases and re-takes the
GIL twice per sample inside one batch call. Every re-take waits for Python's switch interval
when any other Python thread is busy, so a busy reader thread slows batch decoding by two
orders of magnitude (18,500 → 153 images/s measured on an H100 with one spinning thread).
This module calls the C library (``libnvimgcodec.so.0`` from the ``nvidia-nvimgcodec-cu12/13``
wheel) directly through ctypes instead. The whole batch is decoded by one
``nvimgcodecDecoderDecode`` and one ``nvimgcodecFutureWaitForAll``, called through
`ctypes.CDLL`, which releases the GIL for the call: every other Python thread runs meanwhile.
The short per-sample calls are made through `ctypes.PyDLL`, which keeps the GIL, so that the
batch needs a handful of GIL re-takes instead of several per sample.

One batch (`Decoder.decode`):

1. Per sample, three short C calls: a code stream over the caller's encoded bytes
   (``nvimgcodecCodeStreamCreateFromHostMem``), the region as a sub code stream with a code
   stream view (``nvimgcodecCodeStreamGetSubCodeStream``; regions are in display coordinates,
   after the EXIF orientation, when the orientation is applied), and the parsed image info
   (``nvimgcodecCodeStreamGetImageInfo``) written straight into one numpy record array laid
   out as ``nvimgcodecImageInfo_t``. The decoders read the EXIF orientation from the *output*
   image's info, so the output info starts as the code stream's.
2. Vectorised over the batch: samples nvImageCodec cannot parse, and samples whose display
   size (or region) disagrees with the caller's output shape, are left out (their result is
   False: nothing is written to their buffers). The records are then rewritten to describe the
   caller's buffers: interleaved RGB or planar Y, uint8, one plane, the given row pitch, host
   or device memory, the CUDA stream.
3. One ``nvimgcodecImageCreate`` per sample, one decode call for the batch, the per-sample
   processing statuses, and every handle destroyed again (also when anything raises).

Host cost outside the decode itself, measured on a 2-core development machine with batches of
256 JPEGs: 7.2 µs per sample for whole images and 9.0 µs with regions, of which the C library
takes 1.5 and 2.1 µs (the same calls made from C); the rest is Python and ctypes.

Decoded pixels equal those of the Python binding for the same backends and options. On the
GPU backends the work is ordered on ``cuda_stream``: the outputs are ready for later work on
that stream when `Decoder.decode` returns, without any host synchronisation.

The library is found as the ``nvidia.nvimgcodec`` package (without importing it) and loaded
once; one process-wide library instance, created on first use, loads its built-in codecs and
the extension modules shipped with the wheel. Set ``DALI_NVIMGCODEC_DEBUG=1`` (warnings and
errors) or ``=all`` (everything) to have nvImageCodec's debug messenger print to stderr.

Example:
    >>> import numpy as np
    >>> from dali._ops.decoders import _nvimgcodec_c as nvc
    >>> data = np.fromfile("image.jpg", dtype=np.uint8)  # doctest: +SKIP
    >>> out = np.empty((480, 640, 3), dtype=np.uint8)  # the image's display size
    >>> with nvc.Decoder(nvc.CPU_ONLY_DEVICE, [("cpu", 1.0)], num_threads=4) as dec:
    ...     ok = dec.decode([data], [None], [(out.ctypes.data, 640 * 3)], [out.shape],
    ...                     gray=False, apply_orientation=True, device=False)  # doctest: +SKIP
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "CPU_ONLY_DEVICE",
    "CURRENT_DEVICE",
    "CodecError",
    "Decoder",
    "available",
    "library_dir",
]

#: ``device_id`` of a decoder that runs only CPU backends (``NVIMGCODEC_DEVICE_CPU_ONLY``); the
#: only device id that works on a machine without a CUDA driver.
CPU_ONLY_DEVICE = -99999
#: ``device_id`` meaning the calling thread's current CUDA device (``NVIMGCODEC_DEVICE_CURRENT``).
CURRENT_DEVICE = -1

_LIBRARY_NAME = "libnvimgcodec.so.0"

# -- the header's constants (nvimgcodec.h, nvImageCodec 0.9.0) --------------------------------

# nvimgcodecStructureType_t, in declaration order (the values are consecutive from 0)
_STRUCTURE_TYPES = (
    "UNKNOWN",
    "PROPERTIES",
    "INSTANCE_CREATE_INFO",
    "DEVICE_ALLOCATOR",
    "PINNED_ALLOCATOR",
    "DECODE_PARAMS",
    "ENCODE_PARAMS",
    "ORIENTATION",
    "REGION",
    "CODE_STREAM_VIEW",
    "CODE_STREAM_INFO",
    "IMAGE_INFO",
    "IMAGE_PLANE_INFO",
    "JPEG_IMAGE_INFO",
    "JPEG_ENCODE_PARAMS",
    "TILE_GEOMETRY_INFO",
    "JPEG2K_ENCODE_PARAMS",
    "BACKEND",
    "IO_STREAM_DESC",
    "FRAMEWORK_DESC",
    "DECODER_DESC",
    "ENCODER_DESC",
    "PARSER_DESC",
    "IMAGE_DESC",
    "CODE_STREAM_DESC",
    "DEBUG_MESSENGER_DESC",
    "DEBUG_MESSAGE_DATA",
    "EXTENSION_DESC",
    "EXECUTOR_DESC",
    "BACKEND_PARAMS",
    "EXECUTION_PARAMS",
    "METADATA",
    "METADATA_KIND",
    "METADATA_FORMAT",
    "TIFF_CODE_STREAM_INFO",
)
_ST = {name: value for value, name in enumerate(_STRUCTURE_TYPES)}

# nvimgcodecStatus_t
_STATUS_NAMES = {
    0: "SUCCESS",
    1: "NOT_INITIALIZED",
    2: "INVALID_PARAMETER",
    3: "BAD_CODESTREAM",
    4: "CODESTREAM_UNSUPPORTED",
    5: "ALLOCATOR_FAILURE",
    6: "EXECUTION_FAILED",
    7: "ARCH_MISMATCH",
    8: "INTERNAL_ERROR",
    9: "IMPLEMENTATION_UNSUPPORTED",
    10: "MISSED_DEPENDENCIES",
    11: "EXTENSION_NOT_INITIALIZED",
    12: "EXTENSION_INVALID_PARAMETER",
    13: "EXTENSION_BAD_CODE_STREAM",
    14: "EXTENSION_CODESTREAM_UNSUPPORTED",
    15: "EXTENSION_ALLOCATOR_FAILURE",
    16: "EXTENSION_ARCH_MISMATCH",
    17: "EXTENSION_INTERNAL_ERROR",
    18: "EXTENSION_IMPLEMENTATION_NOT_SUPPORTED",
    19: "EXTENSION_INCOMPLETE_BITSTREAM",
    20: "EXTENSION_EXECUTION_FAILED",
    21: "EXTENSION_CUDA_CALL_ERROR",
}

#: nvimgcodecBackendKind_t of the backend names `Decoder` accepts
BACKEND_KINDS = {"cpu": 1, "gpu": 2, "hybrid": 3, "hw_gpu": 4}
_LOAD_HINT_POLICY_FIXED = 2
_STATUS_INTERNAL_ERROR = 8
_PROCESSING_STATUS_SUCCESS = 1
_SAMPLE_TYPE_UINT8 = 0x0802
_SAMPLING_NONE = 0
_COLORSPEC_SRGB = 1
_COLORSPEC_GRAY = 2
_SAMPLEFORMAT_P_Y = 3
_SAMPLEFORMAT_I_RGB = 8
_BUFFER_KIND_STRIDED_DEVICE = 1
_BUFFER_KIND_STRIDED_HOST = 2
_DEBUG_SEVERITY_DEFAULT = 0x00001000 | 0x00010000 | 0x00100000  # warning | error | fatal
_DEBUG_SEVERITY_ALL = 0x0FFFFFFF
_DEBUG_CATEGORY_ALL = 0x0FFFFFFF
_MAX_NUM_DIM = 5
_MAX_ROI_FILL_CHANNELS = 5
_MAX_NUM_PLANES = 32
_MAX_CODEC_NAME_SIZE = 256

# -- the structures ----------------------------------------------------------------------------

_c_int = (
    ctypes.c_int
)  # every C enum of the header is an int (they end in ..._FORCE_INT = INT32_MAX)
_c_u32 = ctypes.c_uint32
_c_size = ctypes.c_size_t
_c_ptr = ctypes.c_void_p


def _fields(*fields: tuple[str, Any]) -> list[tuple[str, Any]]:
    """Every structure starts with ``struct_type``, ``struct_size`` and ``struct_next``."""
    return [("struct_type", _c_int), ("struct_size", _c_size), ("struct_next", _c_ptr), *fields]


class _Struct(ctypes.Structure):
    _type = "UNKNOWN"

    @classmethod
    def new(cls, **values: Any) -> Any:
        """An instance with its header filled in and ``values`` set."""
        return cls(struct_type=_ST[cls._type], struct_size=ctypes.sizeof(cls), **values)


class _InstanceCreateInfo(_Struct):
    _type = "INSTANCE_CREATE_INFO"
    _fields_ = _fields(
        ("load_builtin_modules", _c_int),
        ("load_extension_modules", _c_int),
        ("extension_modules_path", ctypes.c_char_p),
        ("create_debug_messenger", _c_int),
        ("debug_messenger_desc", _c_ptr),
        ("message_severity", _c_u32),
        ("message_category", _c_u32),
    )


class _BackendParams(_Struct):
    _type = "BACKEND_PARAMS"
    _fields_ = _fields(("load_hint", ctypes.c_float), ("load_hint_policy", _c_int))


class _Backend(_Struct):
    _type = "BACKEND"
    _fields_ = _fields(("kind", _c_int), ("params", _BackendParams))


class _ExecutionParams(_Struct):
    _type = "EXECUTION_PARAMS"
    _fields_ = _fields(
        ("device_allocator", _c_ptr),
        ("pinned_allocator", _c_ptr),
        ("max_num_cpu_threads", _c_int),
        ("executor", _c_ptr),
        ("device_id", _c_int),
        ("pre_init", _c_int),
        ("skip_pre_sync", _c_int),
        ("num_backends", _c_int),
        ("backends", ctypes.POINTER(_Backend)),
    )


class _DecodeParams(_Struct):
    _type = "DECODE_PARAMS"
    _fields_ = _fields(("apply_exif_orientation", _c_int))


class _OutOfBoundsSample(ctypes.Structure):
    # the union of uint32/int32/float is 4 bytes; read as uint32
    _fields_ = [("value", _c_u32), ("type", _c_int)]


class _Region(_Struct):
    _type = "REGION"
    _fields_ = _fields(
        ("ndim", _c_int),
        ("start", _c_int * _MAX_NUM_DIM),
        ("end", _c_int * _MAX_NUM_DIM),
        ("out_of_bounds_policy", _c_int),
        ("out_of_bounds_samples", _OutOfBoundsSample * _MAX_ROI_FILL_CHANNELS),
    )


class _CodeStreamView(_Struct):
    _type = "CODE_STREAM_VIEW"
    _fields_ = _fields(("image_idx", _c_size), ("region", _Region), ("bitstream_offset", _c_size))


class _Orientation(_Struct):
    _type = "ORIENTATION"
    _fields_ = _fields(("rotated", _c_int), ("flip_x", _c_int), ("flip_y", _c_int))


class _ImagePlaneInfo(_Struct):
    _type = "IMAGE_PLANE_INFO"
    _fields_ = _fields(
        ("width", _c_u32),
        ("height", _c_u32),
        ("row_stride", _c_size),
        ("num_channels", _c_u32),
        ("sample_type", _c_int),
        ("precision", ctypes.c_uint8),
    )


class _ImageInfo(_Struct):
    _type = "IMAGE_INFO"
    _fields_ = _fields(
        ("codec_name", ctypes.c_char * _MAX_CODEC_NAME_SIZE),
        ("color_spec", _c_int),
        ("chroma_subsampling", _c_int),
        ("sample_format", _c_int),
        ("orientation", _Orientation),
        ("num_planes", _c_u32),
        ("plane_info", _ImagePlaneInfo * _MAX_NUM_PLANES),
        ("buffer", _c_ptr),
        ("buffer_kind", _c_int),
        ("cuda_stream", _c_ptr),
    )


#: ``sizeof`` and ``offsetof`` on x86-64 and aarch64 Linux (LP64), from the 0.9.0 header
#: compiled with gcc; `_layout_errors` compares the ctypes structures with them.
_EXPECTED_LAYOUT: dict[type, tuple[int, dict[str, int]]] = {
    _InstanceCreateInfo: (
        64,
        {
            "load_builtin_modules": 24,
            "extension_modules_path": 32,
            "create_debug_messenger": 40,
            "debug_messenger_desc": 48,
            "message_severity": 56,
            "message_category": 60,
        },
    ),
    _ExecutionParams: (
        80,
        {
            "max_num_cpu_threads": 40,
            "executor": 48,
            "device_id": 56,
            "pre_init": 60,
            "skip_pre_sync": 64,
            "num_backends": 68,
            "backends": 72,
        },
    ),
    _BackendParams: (32, {"load_hint": 24, "load_hint_policy": 28}),
    _Backend: (64, {"kind": 24, "params": 32}),
    _DecodeParams: (32, {"apply_exif_orientation": 24}),
    _Region: (
        112,
        {
            "ndim": 24,
            "start": 28,
            "end": 48,
            "out_of_bounds_policy": 68,
            "out_of_bounds_samples": 72,
        },
    ),
    _CodeStreamView: (152, {"image_idx": 24, "region": 32, "bitstream_offset": 144}),
    _Orientation: (40, {"rotated": 24, "flip_x": 28, "flip_y": 32}),
    _ImagePlaneInfo: (
        56,
        {"width": 24, "row_stride": 32, "num_channels": 40, "sample_type": 44, "precision": 48},
    ),
    _ImageInfo: (
        2160,
        {
            "codec_name": 24,
            "color_spec": 280,
            "sample_format": 288,
            "orientation": 296,
            "num_planes": 336,
            "plane_info": 344,
            "buffer": 2136,
            "buffer_kind": 2144,
            "cuda_stream": 2152,
        },
    ),
}


def _layout_errors() -> list[str]:
    """Where the ctypes structures differ from the C header's layout (empty: none)."""
    errors = []
    for cls, (size, offsets) in _EXPECTED_LAYOUT.items():
        if ctypes.sizeof(cls) != size:
            errors.append(f"sizeof({cls.__name__}) = {ctypes.sizeof(cls)}, header: {size}")
        for name, offset in offsets.items():
            got = getattr(cls, name).offset
            if got != offset:
                errors.append(f"offsetof({cls.__name__}.{name}) = {got}, header: {offset}")
    return errors


# numpy views of the per-sample structures, so that a batch of them is one array filled by
# vectorised assignments (numpy takes the field offsets and padding from ctypes)
_INFO_DTYPE = np.dtype(_ImageInfo)
_VIEW_DTYPE = np.dtype(_CodeStreamView)
_INFO_SIZE = _INFO_DTYPE.itemsize
_VIEW_SIZE = _VIEW_DTYPE.itemsize
_HANDLE_SIZE = ctypes.sizeof(_c_ptr)


def _view_template() -> np.ndarray:
    view = np.zeros((), _VIEW_DTYPE)
    view["struct_type"] = _ST["CODE_STREAM_VIEW"]
    view["struct_size"] = _VIEW_SIZE
    region = view["region"]
    region["struct_type"] = _ST["REGION"]
    region["struct_size"] = ctypes.sizeof(_Region)
    region["ndim"] = 2
    return view


_VIEW_TEMPLATE = _view_template()

# -- errors ------------------------------------------------------------------------------------


class CodecError(RuntimeError):
    """An nvImageCodec C function returned a status other than success.

    Attributes:
        function: The C function's name.
        status: The ``nvimgcodecStatus_t`` value.
    """

    def __init__(self, function: str, status: int, detail: str = "") -> None:
        self.function = function
        self.status = status
        name = _STATUS_NAMES.get(status, "UNKNOWN")
        msg = f"{function} failed with NVIMGCODEC_STATUS_{name} ({status})"
        super().__init__(f"{msg}: {detail}" if detail else msg)


def _check(function: str, status: int) -> None:
    if status != 0:
        raise CodecError(function, status)


# -- the library -------------------------------------------------------------------------------

# name: (argument types, releases the GIL); every function returns nvimgcodecStatus_t. Declaring
# the arguments is what makes ctypes pass 64-bit handles and pointers (undeclared, a Python int
# becomes a C int).
#
# Only the calls that wait (for the decode, for threads) release the GIL. The per-sample calls
# take microseconds and keep it: a call that releases the GIL must take it back afterwards, and
# while any other Python thread is busy that waits for the switch interval (5 ms), which is
# what makes the Python binding slow. Measured with one spinning thread, a 128-image batch on
# the CPU backend took 0.50 s instead of 0.11 s when every call released the GIL.
_SIGNATURES: dict[str, tuple[list[Any], bool]] = {
    "nvimgcodecGetProperties": ([_c_ptr], False),
    "nvimgcodecInstanceCreate": ([_c_ptr, _c_ptr], True),
    "nvimgcodecInstanceDestroy": ([_c_ptr], True),
    "nvimgcodecDecoderCreate": ([_c_ptr, _c_ptr, _c_ptr, ctypes.c_char_p], True),
    "nvimgcodecDecoderDestroy": ([_c_ptr], True),
    "nvimgcodecDecoderDecode": ([_c_ptr, _c_ptr, _c_ptr, _c_int, _c_ptr, _c_ptr], True),
    "nvimgcodecFutureWaitForAll": ([_c_ptr], True),
    "nvimgcodecCodeStreamCreateFromHostMem": ([_c_ptr, _c_ptr, _c_ptr, _c_size, _c_ptr], False),
    "nvimgcodecCodeStreamGetSubCodeStream": ([_c_ptr, _c_ptr, _c_ptr], False),
    "nvimgcodecCodeStreamGetImageInfo": ([_c_ptr, _c_ptr], False),
    "nvimgcodecCodeStreamDestroy": ([_c_ptr], False),
    "nvimgcodecImageCreate": ([_c_ptr, _c_ptr, _c_ptr], False),
    "nvimgcodecImageDestroy": ([_c_ptr], False),
    "nvimgcodecFutureGetProcessingStatus": ([_c_ptr, _c_ptr, _c_ptr], False),
    "nvimgcodecFutureDestroy": ([_c_ptr], False),
}


class _Library:
    """The loaded ``libnvimgcodec.so.0`` with typed functions and the process-wide instance."""

    def __init__(self, directory: Path) -> None:
        errors = _layout_errors()
        if errors:  # a platform whose C layout differs from LP64 Linux
            raise OSError("nvImageCodec structure layout mismatch: " + "; ".join(errors))
        self.directory = directory
        path = str(directory / _LIBRARY_NAME)
        # one library, two views: CDLL's functions release the GIL, PyDLL's keep it
        self.dll = ctypes.CDLL(path)
        self.pydll = ctypes.PyDLL(path)
        for name, (argtypes, releases_gil) in _SIGNATURES.items():
            fn = getattr(self.dll if releases_gil else self.pydll, name)
            fn.argtypes = argtypes
            fn.restype = _c_int
            setattr(self, name.removeprefix("nvimgcodec"), fn)
        self._instance: int | None = None
        self._lock = threading.Lock()

    def instance(self) -> int:
        """The process-wide ``nvimgcodecInstance_t``, created on first use.

        It lives until the process exits: decoders created from it may still be in use by
        other threads at interpreter shutdown, when destroying it could crash them.
        """
        if self._instance is None:
            with self._lock:
                if self._instance is None:
                    self._instance = self._create_instance()
        return self._instance

    def _create_instance(self) -> int:
        debug = os.environ.get("DALI_NVIMGCODEC_DEBUG", "").strip().lower()
        info = _InstanceCreateInfo.new(
            load_builtin_modules=1,
            load_extension_modules=1,
            extension_modules_path=str(self.directory / "extensions").encode(),
            create_debug_messenger=int(debug not in ("", "0")),
            message_severity=_DEBUG_SEVERITY_ALL if debug == "all" else _DEBUG_SEVERITY_DEFAULT,
            message_category=_DEBUG_CATEGORY_ALL,
        )
        handle = _c_ptr()
        _check(
            "nvimgcodecInstanceCreate",
            self.InstanceCreate(ctypes.byref(handle), ctypes.byref(info)),
        )
        if not handle.value:
            raise CodecError("nvimgcodecInstanceCreate", _STATUS_INTERNAL_ERROR, "null instance")
        return handle.value


_lib: _Library | None = None
_lib_error: BaseException | None = None
_lib_lock = threading.Lock()


def library_dir() -> Path | None:
    """The installed ``nvidia.nvimgcodec`` package directory holding the C library, or None.

    The package is located without importing it (its import creates a second library instance
    and loads every extension).
    """
    try:
        spec = importlib.util.find_spec("nvidia.nvimgcodec")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        if (Path(location) / _LIBRARY_NAME).is_file():
            return Path(location)
    return None


def _library() -> _Library:
    """The loaded library (once per process); raises ImportError or OSError when it cannot be."""
    global _lib, _lib_error
    if _lib is not None:
        return _lib
    with _lib_lock:
        if _lib is None:
            if _lib_error is not None:
                raise _lib_error
            directory = library_dir()
            try:
                if directory is None:
                    raise ImportError(
                        "nvImageCodec's C library was not found: pip install "
                        '"dali-core[cuda13]" (or "dali-core[cuda12]"), which installs '
                        "nvidia-nvimgcodec-cu13 and nvJPEG"
                    )
                _lib = _Library(directory)
            except (ImportError, OSError) as e:
                _lib_error = e
                raise
    return _lib


def available() -> bool:
    """Whether nvImageCodec's C library is installed and loads (the instance is not created)."""
    try:
        _library()
    except (ImportError, OSError):
        return False
    return True


# -- the decoder -------------------------------------------------------------------------------


class Decoder:
    """An nvImageCodec decoder that decodes a batch into the caller's buffers without the GIL.

    Args:
        device_id: The CUDA device to decode on, `CURRENT_DEVICE`, or `CPU_ONLY_DEVICE` for a
            decoder with CPU backends only (no CUDA needed).
        backends: ``(kind, load_hint)`` in order of preference, kind one of ``"hw_gpu"``
            (the hardware JPEG decoder), ``"gpu"`` (CUDA nvJPEG), ``"hybrid"`` (CPU Huffman
            decoding + GPU) and ``"cpu"``; the load hint is the share of a batch the backend
            takes (``FIXED`` policy: computed once per batch), the rest falls through to the
            next backend. Empty: every backend with its defaults.
        num_threads: Most CPU threads of nvImageCodec's own executor (0: one per core).
        options: nvImageCodec decoder options, e.g. ``":fancy_upsampling=1"``.

    Raises:
        ImportError: nvImageCodec is not installed.
        CodecError: The decoder could not be created (no CUDA device for a GPU ``device_id``,
            say).

    Example:
        >>> dec = Decoder(0, [("hw_gpu", 0.9), ("gpu", 1.0), ("hybrid", 1.0)], 4)  # doctest: +SKIP
        >>> dec.close()  # doctest: +SKIP
    """

    def __init__(
        self,
        device_id: int,
        backends: Sequence[tuple[str, float]],
        num_threads: int,
        options: str = "",
    ) -> None:
        self._handle: int | None = None
        self._lock = threading.Lock()
        #: ``nvimgcodecProcessingStatus_t`` of each sample of the last batch; 0 for samples
        #: that were not submitted (unparseable data, size or region mismatch)
        self.last_status = np.zeros(0, dtype=np.uint32)
        lib = _library()
        instance = lib.instance()
        kinds = []
        for kind, load in backends:
            if kind not in BACKEND_KINDS:
                raise ValueError(
                    f"unknown backend {kind!r}; expected one of {sorted(BACKEND_KINDS)}"
                )
            kinds.append((BACKEND_KINDS[kind], float(load)))
        array = (_Backend * max(1, len(kinds)))()
        for slot, (kind_value, load) in zip(array, kinds):
            slot.struct_type = _ST["BACKEND"]
            slot.struct_size = ctypes.sizeof(_Backend)
            slot.kind = kind_value
            slot.params = _BackendParams.new(
                load_hint=load, load_hint_policy=_LOAD_HINT_POLICY_FIXED
            )
        params = _ExecutionParams.new(
            max_num_cpu_threads=int(num_threads),
            device_id=int(device_id),
            num_backends=len(kinds),
            backends=array if kinds else None,
        )
        handle = _c_ptr()
        status = lib.DecoderCreate(
            instance, ctypes.byref(handle), ctypes.byref(params), options.encode()
        )
        _check("nvimgcodecDecoderCreate", status)
        if not handle.value:
            raise CodecError("nvimgcodecDecoderCreate", _STATUS_INTERNAL_ERROR, "null decoder")
        self._lib = lib
        self._instance = instance
        # the library copies the execution parameters; kept anyway, for the decoder's lifetime
        self._keep = (array, params)
        self._handle = handle.value
        self.device_id = int(device_id)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Destroy the decoder (after a decode running in another thread). Idempotent."""
        with self._lock:
            handle, self._handle = self._handle, None
            if handle is not None:
                self._lib.DecoderDestroy(handle)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            try:
                self.close()
            except Exception:  # noqa: BLE001, S110 - nothing to report to at garbage collection
                pass

    def decode(
        self,
        datas: Sequence[np.ndarray],
        regions: Sequence[tuple[int, int, int, int] | None],
        outputs: Sequence[tuple[int, int]],
        shapes: Sequence[tuple[int, int, int]],
        *,
        gray: bool,
        apply_orientation: bool,
        device: bool,
        cuda_stream: int = 0,
    ) -> np.ndarray:
        """Decode a batch into the given buffers with one nvImageCodec call, without the GIL.

        Args:
            datas: Each sample's encoded bytes, C-contiguous (uint8, 1-D). The caller keeps
                them alive during the call.
            regions: ``(y0, x0, y1, x1)`` per sample, half-open, in display coordinates (after
                the EXIF orientation when ``apply_orientation``), or None for the whole image.
            outputs: ``(pointer, row pitch in bytes)`` of each sample's output buffer, which
                receives interleaved uint8 pixels, ``height x width x channels``.
            shapes: ``(height, width, channels)`` of each output: the region's size, or the
                image's display size; channels 1 when ``gray`` else 3.
            gray: Decode to one luma channel (else RGB).
            apply_orientation: Apply the EXIF orientation.
            device: The outputs are device memory (else host memory).
            cuda_stream: The ``cudaStream_t`` the GPU work is ordered on (0: the legacy
                default stream); outputs are ready for later work on it when this returns.

        Returns:
            ``(n,)`` bool: whether each sample was decoded. False (its buffer untouched or
            partly written) for data nvImageCodec cannot parse or decode (corrupt, truncated,
            unsupported), for a display size or region that does not match ``shapes``, and
            for samples no backend of this decoder accepts. `last_status` has the details.

        Raises:
            ValueError: Mismatched argument lengths, bad shapes, pitches or pointers, or a
                closed decoder.
            CodecError: nvImageCodec failed for the whole batch.
        """
        n = len(datas)
        if not len(regions) == len(outputs) == len(shapes) == n:
            raise ValueError(
                f"datas, regions, outputs and shapes differ in length "
                f"({n}, {len(regions)}, {len(outputs)}, {len(shapes)})"
            )
        if n == 0:
            return np.zeros(0, dtype=bool)
        channels = 1 if gray else 3
        shape = np.asarray(shapes, dtype=np.int64).reshape(n, 3)
        out = np.asarray(outputs, dtype=np.uint64).reshape(n, 2)
        if (shape[:, 2] != channels).any():
            raise ValueError(f"output channels must be {channels} (gray={gray})")
        if (shape[:, :2] <= 0).any():
            raise ValueError("output heights and widths must be positive")
        if (out[:, 0] == 0).any():
            raise ValueError("null output pointer")
        if (out[:, 1] < (shape[:, 1] * channels).astype(np.uint64)).any():
            raise ValueError("row pitch smaller than width * channels")
        with self._lock:
            if self._handle is None:
                raise ValueError("decode on a closed nvImageCodec decoder")
            return self._decode(
                self._handle,
                datas,
                regions,
                out,
                shape,
                gray,
                apply_orientation,
                device,
                cuda_stream,
            )

    def _decode(
        self,
        handle: int,
        datas: Sequence[np.ndarray],
        regions: Sequence[tuple[int, int, int, int] | None],
        out: np.ndarray,
        shape: np.ndarray,
        gray: bool,
        apply_orientation: bool,
        device: bool,
        cuda_stream: int,
    ) -> np.ndarray:
        lib = self._lib
        instance = self._instance
        n = len(datas)

        # the regions as code stream views, one record each
        has_region = [r is not None for r in regions]
        whole = ~np.asarray(has_region, dtype=bool)
        k = n - int(whole.sum())
        views = np.empty(k, dtype=_VIEW_DTYPE)
        box = np.zeros((0, 4), dtype=np.int64)
        if k:
            views[...] = _VIEW_TEMPLATE
            box = np.asarray([r for r in regions if r is not None], dtype=np.int64).reshape(k, 4)
            if (box < 0).any() or (box > np.iinfo(np.int32).max).any():
                raise ValueError("region coordinates must be non-negative 32-bit integers")
            region = views["region"]
            region["start"][:, :2] = box[:, :2]
            region["end"][:, :2] = box[:, 2:]
        view_addr = views.ctypes.data

        infos = np.zeros(n, dtype=_INFO_DTYPE)
        infos["struct_type"] = _ST["IMAGE_INFO"]
        infos["struct_size"] = _INFO_SIZE
        info_addr = infos.ctypes.data

        # handles: ctypes arrays, so that reading one gives a Python int (or None) for the next
        # call; numpy views of them select and pass the batch's handles
        streams = (_c_ptr * n)()
        subs = (_c_ptr * n)()
        images = (_c_ptr * n)()
        streams_np = np.frombuffer(streams, dtype=np.uintp)
        subs_np = np.frombuffer(subs, dtype=np.uintp)
        images_np = np.frombuffer(images, dtype=np.uintp)
        streams_addr = ctypes.addressof(streams)
        subs_addr = ctypes.addressof(subs)
        images_addr = ctypes.addressof(images)
        future = _c_ptr()
        waited = True
        parsed = np.zeros(n, dtype=bool)
        status = np.zeros(n, dtype=np.uint32)
        ok = np.zeros(n, dtype=bool)
        try:
            # 1. code streams, regions and the parsed image infos (short calls, with the GIL)
            create = lib.CodeStreamCreateFromHostMem
            get_sub = lib.CodeStreamGetSubCodeStream
            get_info = lib.CodeStreamGetImageInfo
            view = view_addr - _VIEW_SIZE  # the address of the last region's view
            for i, data in enumerate(datas):
                if has_region[i]:
                    view += _VIEW_SIZE
                if not data.flags.c_contiguous:
                    raise ValueError(f"sample {i}: encoded data must be C-contiguous")
                if create(
                    instance, streams_addr + i * _HANDLE_SIZE, data.ctypes.data, data.nbytes, None
                ):
                    continue
                cs = streams[i]
                if has_region[i]:
                    if get_sub(cs, subs_addr + i * _HANDLE_SIZE, view):
                        continue
                    cs = subs[i]
                # a stream the parser rejects must never reach the decoder: a batch with an
                # unrecognised stream fails as a whole, and such streams are not decodable
                parsed[i] = get_info(cs, info_addr + i * _INFO_SIZE) == 0

            # 2. which samples fit their outputs, and the outputs' descriptions (vectorised)
            plane = infos["plane_info"][:, 0]
            height = plane["height"].astype(np.int64)
            width = plane["width"].astype(np.int64)
            if apply_orientation:
                swap = infos["orientation"]["rotated"] % 180 != 0
                height, width = np.where(swap, width, height), np.where(swap, height, width)
            want_h, want_w = shape[:, 0], shape[:, 1]
            fits = parsed & (infos["num_planes"] >= 1)
            fits[whole] &= (want_h[whole] == height[whole]) & (want_w[whole] == width[whole])
            if k:
                sel = ~whole
                y0, x0, y1, x1 = box.T
                fits[sel] &= (
                    (y1 - y0 == want_h[sel])
                    & (x1 - x0 == want_w[sel])
                    & (y1 <= height[sel])
                    & (x1 <= width[sel])
                )
            go = np.flatnonzero(fits)
            m = go.size
            if m:
                # keep codec_name and the orientation (the decoders read the EXIF orientation
                # from the output's info); describe our buffer in the rest
                infos["struct_next"] = 0
                infos["color_spec"] = _COLORSPEC_GRAY if gray else _COLORSPEC_SRGB
                infos["chroma_subsampling"] = _SAMPLING_NONE
                infos["sample_format"] = _SAMPLEFORMAT_P_Y if gray else _SAMPLEFORMAT_I_RGB
                infos["num_planes"] = 1
                plane["struct_type"] = _ST["IMAGE_PLANE_INFO"]
                plane["struct_size"] = ctypes.sizeof(_ImagePlaneInfo)
                plane["struct_next"] = 0
                plane["width"] = want_w
                plane["height"] = want_h
                plane["row_stride"] = out[:, 1]
                plane["num_channels"] = 1 if gray else 3
                plane["sample_type"] = _SAMPLE_TYPE_UINT8
                plane["precision"] = 0  # the full range of the type
                infos["buffer"] = out[:, 0]
                infos["buffer_kind"] = (
                    _BUFFER_KIND_STRIDED_DEVICE if device else _BUFFER_KIND_STRIDED_HOST
                )
                infos["cuda_stream"] = cuda_stream

                # 3. images, one decode call for the batch, the statuses
                image_create = lib.ImageCreate
                for i in go.tolist():
                    _check(
                        "nvimgcodecImageCreate",
                        image_create(
                            instance, images_addr + i * _HANDLE_SIZE, info_addr + i * _INFO_SIZE
                        ),
                    )
                batch_streams = np.where(whole, streams_np, subs_np)[go]
                batch_images = images_np[go]
                params = _DecodeParams.new(apply_exif_orientation=int(apply_orientation))
                waited = False
                _check(
                    "nvimgcodecDecoderDecode",
                    lib.DecoderDecode(
                        handle,
                        batch_streams.ctypes.data,
                        batch_images.ctypes.data,
                        m,
                        ctypes.byref(params),
                        ctypes.byref(future),
                    ),
                )
                _check("nvimgcodecFutureWaitForAll", lib.FutureWaitForAll(future))
                waited = True
                got = np.zeros(m, dtype=np.uint32)
                size = _c_size(m)
                _check(
                    "nvimgcodecFutureGetProcessingStatus",
                    lib.FutureGetProcessingStatus(future, got.ctypes.data, ctypes.byref(size)),
                )
                status[go[: size.value]] = got[: size.value]
                ok = status == _PROCESSING_STATUS_SUCCESS
        finally:
            if future.value:
                if not waited:  # interrupted between the decode and the wait
                    lib.FutureWaitForAll(future)
                lib.FutureDestroy(future)
            destroy_image = lib.ImageDestroy
            for h in images_np[images_np != 0].tolist():
                destroy_image(h)
            destroy_stream = lib.CodeStreamDestroy
            for h in subs_np[subs_np != 0].tolist():
                destroy_stream(h)
            for h in streams_np[streams_np != 0].tolist():
                destroy_stream(h)
        self.last_status = status
        return ok
