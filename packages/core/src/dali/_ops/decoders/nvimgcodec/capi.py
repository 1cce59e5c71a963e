"""nvImageCodec's C API through ctypes: constants, structures, signatures, the library.

The declarations of ``nvimgcodec.h`` (nvImageCodec 0.9.0) that `_nvimgcodec_c.Decoder` uses:
status and enum values, the structures as `ctypes.Structure` subclasses (their sizes and field
offsets are checked against the header's, `_layout_errors`, before the library is used), numpy
record dtypes of the per-sample structures, and each function's argument types and whether its
call releases the GIL (``CDLL``) or keeps it (``PyDLL``). The library is found as the
``nvidia.nvimgcodec`` package without importing it (`library_dir`) and loaded once per process
(`library`). Two process-wide instances are created on first use: the GPU decoders' loads the
built-in modules and every extension module shipped with the wheel; the CPU-only decoders' loads
the built-in modules and the libjpeg-turbo extension only (`_Library.cpu_instance`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "BACKEND_KINDS",
    "BUFFER_KIND_STRIDED_DEVICE",
    "BUFFER_KIND_STRIDED_HOST",
    "COLORSPEC_GRAY",
    "COLORSPEC_SRGB",
    "CPU_ONLY_DEVICE",
    "CURRENT_DEVICE",
    "HANDLE_SIZE",
    "INFO_DTYPE",
    "INFO_SIZE",
    "LOAD_HINT_POLICY_FIXED",
    "PROCESSING_STATUS_SUCCESS",
    "SAMPLEFORMAT_I_RGB",
    "SAMPLEFORMAT_P_Y",
    "SAMPLE_TYPE_UINT8",
    "SAMPLING_NONE",
    "ST",
    "STATUS_INTERNAL_ERROR",
    "VIEW_DTYPE",
    "VIEW_SIZE",
    "VIEW_TEMPLATE",
    "Backend",
    "BackendParams",
    "CodecError",
    "DecodeParams",
    "ExecutionParams",
    "ImagePlaneInfo",
    "available",
    "c_ptr",
    "c_size",
    "check_status",
    "library",
    "library_dir",
]

#: ``device_id`` of a decoder that runs only CPU backends (``NVIMGCODEC_DEVICE_CPU_ONLY``); the
#: only device id that works on a machine without a CUDA driver.
CPU_ONLY_DEVICE = -99999
#: ``device_id`` meaning the calling thread's current CUDA device (``NVIMGCODEC_DEVICE_CURRENT``).
CURRENT_DEVICE = -1

_LIBRARY_NAME = "libnvimgcodec.so.0"
#: the CPU-only instance's extension modules (`_Library.cpu_instance`)
_CPU_EXTENSIONS = ("libjpeg_turbo_ext.so*", "libopencv_ext.so*")

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
ST = {name: value for value, name in enumerate(_STRUCTURE_TYPES)}

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
LOAD_HINT_POLICY_FIXED = 2
STATUS_INTERNAL_ERROR = 8
PROCESSING_STATUS_SUCCESS = 1
SAMPLE_TYPE_UINT8 = 0x0802
SAMPLING_NONE = 0
COLORSPEC_SRGB = 1
COLORSPEC_GRAY = 2
SAMPLEFORMAT_P_Y = 3
SAMPLEFORMAT_I_RGB = 8
BUFFER_KIND_STRIDED_DEVICE = 1
BUFFER_KIND_STRIDED_HOST = 2
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
c_size = ctypes.c_size_t
c_ptr = ctypes.c_void_p


def _fields(*fields: tuple[str, Any]) -> list[tuple[str, Any]]:
    """Every structure starts with ``struct_type``, ``struct_size`` and ``struct_next``."""
    return [("struct_type", _c_int), ("struct_size", c_size), ("struct_next", c_ptr), *fields]


class _Struct(ctypes.Structure):
    _type = "UNKNOWN"

    @classmethod
    def new(cls, **values: Any) -> Any:
        """An instance with its header filled in and ``values`` set."""
        return cls(struct_type=ST[cls._type], struct_size=ctypes.sizeof(cls), **values)


class _InstanceCreateInfo(_Struct):
    _type = "INSTANCE_CREATE_INFO"
    _fields_ = _fields(
        ("load_builtin_modules", _c_int),
        ("load_extension_modules", _c_int),
        ("extension_modules_path", ctypes.c_char_p),
        ("create_debug_messenger", _c_int),
        ("debug_messenger_desc", c_ptr),
        ("message_severity", _c_u32),
        ("message_category", _c_u32),
    )


class _ExtensionDesc(_Struct):
    """``nvimgcodecExtensionDesc_t``, filled in by an extension module's entry function."""

    _type = "EXTENSION_DESC"
    _fields_ = _fields(
        ("instance", c_ptr),
        ("id", ctypes.c_char_p),
        ("version", _c_u32),
        ("ext_api_version", _c_u32),
        ("create", c_ptr),
        ("destroy", c_ptr),
    )


class BackendParams(_Struct):
    _type = "BACKEND_PARAMS"
    _fields_ = _fields(("load_hint", ctypes.c_float), ("load_hint_policy", _c_int))


class Backend(_Struct):
    _type = "BACKEND"
    _fields_ = _fields(("kind", _c_int), ("params", BackendParams))


class ExecutionParams(_Struct):
    _type = "EXECUTION_PARAMS"
    _fields_ = _fields(
        ("device_allocator", c_ptr),
        ("pinned_allocator", c_ptr),
        ("max_num_cpu_threads", _c_int),
        ("executor", c_ptr),
        ("device_id", _c_int),
        ("pre_init", _c_int),
        ("skip_pre_sync", _c_int),
        ("num_backends", _c_int),
        ("backends", ctypes.POINTER(Backend)),
    )


class DecodeParams(_Struct):
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
    _fields_ = _fields(("image_idx", c_size), ("region", _Region), ("bitstream_offset", c_size))


class _Orientation(_Struct):
    _type = "ORIENTATION"
    _fields_ = _fields(("rotated", _c_int), ("flip_x", _c_int), ("flip_y", _c_int))


class ImagePlaneInfo(_Struct):
    _type = "IMAGE_PLANE_INFO"
    _fields_ = _fields(
        ("width", _c_u32),
        ("height", _c_u32),
        ("row_stride", c_size),
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
        ("plane_info", ImagePlaneInfo * _MAX_NUM_PLANES),
        ("buffer", c_ptr),
        ("buffer_kind", _c_int),
        ("cuda_stream", c_ptr),
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
    ExecutionParams: (
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
    _ExtensionDesc: (
        64,
        {
            "instance": 24,
            "id": 32,
            "version": 40,
            "ext_api_version": 44,
            "create": 48,
            "destroy": 56,
        },
    ),
    BackendParams: (32, {"load_hint": 24, "load_hint_policy": 28}),
    Backend: (64, {"kind": 24, "params": 32}),
    DecodeParams: (32, {"apply_exif_orientation": 24}),
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
    ImagePlaneInfo: (
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
INFO_DTYPE = np.dtype(_ImageInfo)
VIEW_DTYPE = np.dtype(_CodeStreamView)
INFO_SIZE = INFO_DTYPE.itemsize
VIEW_SIZE = VIEW_DTYPE.itemsize
HANDLE_SIZE = ctypes.sizeof(c_ptr)


def _view_template() -> np.ndarray:
    view = np.zeros((), VIEW_DTYPE)
    view["struct_type"] = ST["CODE_STREAM_VIEW"]
    view["struct_size"] = VIEW_SIZE
    region = view["region"]
    region["struct_type"] = ST["REGION"]
    region["struct_size"] = ctypes.sizeof(_Region)
    region["ndim"] = 2
    return view


VIEW_TEMPLATE = _view_template()

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


def check_status(function: str, status: int) -> None:
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
# what makes the Python binding slow (releasing it in every call made a batch several times
# slower beside one busy thread: ``benchmarks/RESULTS.md``, "nvImageCodec C API").
_SIGNATURES: dict[str, tuple[list[Any], bool]] = {
    "nvimgcodecGetProperties": ([c_ptr], False),
    "nvimgcodecInstanceCreate": ([c_ptr, c_ptr], True),
    "nvimgcodecInstanceDestroy": ([c_ptr], True),
    "nvimgcodecExtensionCreate": ([c_ptr, c_ptr, c_ptr], True),
    "nvimgcodecDecoderCreate": ([c_ptr, c_ptr, c_ptr, ctypes.c_char_p], True),
    "nvimgcodecDecoderDestroy": ([c_ptr], True),
    "nvimgcodecDecoderDecode": ([c_ptr, c_ptr, c_ptr, _c_int, c_ptr, c_ptr], True),
    "nvimgcodecFutureWaitForAll": ([c_ptr], True),
    "nvimgcodecCodeStreamCreateFromHostMem": ([c_ptr, c_ptr, c_ptr, c_size, c_ptr], False),
    "nvimgcodecCodeStreamGetSubCodeStream": ([c_ptr, c_ptr, c_ptr], False),
    "nvimgcodecCodeStreamGetImageInfo": ([c_ptr, c_ptr], False),
    "nvimgcodecCodeStreamDestroy": ([c_ptr], False),
    "nvimgcodecImageCreate": ([c_ptr, c_ptr, c_ptr], False),
    "nvimgcodecImageDestroy": ([c_ptr], False),
    "nvimgcodecFutureGetProcessingStatus": ([c_ptr, c_ptr, c_ptr], False),
    "nvimgcodecFutureDestroy": ([c_ptr], False),
}


class _Library:
    """The loaded ``libnvimgcodec.so.0`` with typed functions and the process-wide instance."""

    # The functions of `_SIGNATURES`, set by `__init__` without the "nvimgcodec" prefix; each
    # returns an nvimgcodecStatus_t.
    GetProperties: Callable[..., int]
    InstanceCreate: Callable[..., int]
    InstanceDestroy: Callable[..., int]
    ExtensionCreate: Callable[..., int]
    DecoderCreate: Callable[..., int]
    DecoderDestroy: Callable[..., int]
    DecoderDecode: Callable[..., int]
    FutureWaitForAll: Callable[..., int]
    CodeStreamCreateFromHostMem: Callable[..., int]
    CodeStreamGetSubCodeStream: Callable[..., int]
    CodeStreamGetImageInfo: Callable[..., int]
    CodeStreamDestroy: Callable[..., int]
    ImageCreate: Callable[..., int]
    ImageDestroy: Callable[..., int]
    FutureGetProcessingStatus: Callable[..., int]
    FutureDestroy: Callable[..., int]

    def __init__(self, directory: Path) -> None:
        errors = _layout_errors()
        if errors:  # a platform whose C layout differs from LP64 Linux
            raise OSError("nvImageCodec structure layout mismatch: " + "; ".join(errors))
        self.directory = directory
        path = str(directory / _LIBRARY_NAME)
        # one library, two views: CDLL's functions release the GIL, PyDLL's keep it
        self.dll = ctypes.CDLL(path)
        self.pydll = ctypes.PyDLL(path)
        #: each function's address, by short name: what the compiled calls (`_calls_jit`)
        #: call, as the uint64 they take
        self.address: dict[str, np.uint64] = {}
        for name, (argtypes, releases_gil) in _SIGNATURES.items():
            fn = getattr(self.dll if releases_gil else self.pydll, name)
            fn.argtypes = argtypes
            fn.restype = _c_int
            short = name.removeprefix("nvimgcodec")
            setattr(self, short, fn)
            self.address[short] = np.uint64(ctypes.cast(fn, ctypes.c_void_p).value or 0)
        self._instance: int | None = None
        self._cpu_instance: int | None = None
        #: the CPU instance's extension: its module and description live as long as the process
        self._cpu_extension: tuple[Any, ...] = ()
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

    def cpu_instance(self) -> int:
        """The process-wide instance of the CPU-only decoders, created on first use.

        It loads the built-in modules (the code stream parsers) and one extension, the
        libjpeg-turbo decoder, registered from its module's entry function. Loading every
        extension, as `instance` does, probes for nvJPEG, nvJPEG2000 and nvTIFF, and each
        extension whose CUDA library is missing prints a message to stdout: on a machine without
        CUDA libraries (a CPU pipeline's usual home) that would be three messages per process.
        """
        if self._cpu_instance is None:
            with self._lock:
                if self._cpu_instance is None:
                    handle = self._create_instance(extensions=False)
                    self._cpu_extension = tuple(
                        self._add_extension(handle, pattern) for pattern in _CPU_EXTENSIONS
                    )
                    self._cpu_instance = handle
        return self._cpu_instance

    def _add_extension(self, instance: int, pattern: str) -> tuple[Any, ...]:
        """Register the extension module matching ``pattern`` (in ``extensions/``) with
        ``instance``; returns what must stay alive with it (the module, its description)."""
        paths = sorted((self.directory / "extensions").glob(pattern))
        if not paths:
            raise OSError(f"nvImageCodec's extension {pattern} is not in {self.directory}")
        module = ctypes.CDLL(str(paths[-1]))
        desc = _ExtensionDesc.new()
        check_status(
            "nvimgcodecExtensionModuleEntry",
            module.nvimgcodecExtensionModuleEntry(ctypes.byref(desc)),
        )
        handle = c_ptr()
        check_status(
            "nvimgcodecExtensionCreate",
            self.ExtensionCreate(instance, ctypes.byref(handle), ctypes.byref(desc)),
        )
        return module, desc, handle

    def _create_instance(self, extensions: bool = True) -> int:
        debug = os.environ.get("DALI_NVIMGCODEC_DEBUG", "").strip().lower()
        info = _InstanceCreateInfo.new(
            load_builtin_modules=1,
            load_extension_modules=int(extensions),
            extension_modules_path=str(self.directory / "extensions").encode()
            if extensions
            else None,
            create_debug_messenger=int(debug not in ("", "0")),
            message_severity=_DEBUG_SEVERITY_ALL if debug == "all" else _DEBUG_SEVERITY_DEFAULT,
            message_category=_DEBUG_CATEGORY_ALL,
        )
        handle = c_ptr()
        check_status(
            "nvimgcodecInstanceCreate",
            self.InstanceCreate(ctypes.byref(handle), ctypes.byref(info)),
        )
        if not handle.value:
            raise CodecError("nvimgcodecInstanceCreate", STATUS_INTERNAL_ERROR, "null instance")
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


#: The nvImageCodec minor version whose C API this binding is written for (its structs' layouts).
SUPPORTED_VERSION = "0.9"


def installed_version() -> str | None:
    """The version of the installed ``nvidia-nvimgcodec-cu13`` (or ``-cu12``) distribution."""
    import importlib.metadata

    for dist in ("nvidia-nvimgcodec-cu13", "nvidia-nvimgcodec-cu12"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _check_version() -> None:
    """Refuse an nvImageCodec of another minor version: the ctypes structs are 0.9's, and a
    changed layout would be read wrong (garbage, or a crash) rather than fail."""
    version = installed_version()
    if version is not None and not version.startswith(SUPPORTED_VERSION + "."):
        raise ImportError(
            f"nvImageCodec {version} is installed, but dali's binding is written for its "
            f"{SUPPORTED_VERSION} C API: pip install 'nvidia-nvimgcodec-cu13>=0.9,<0.10' (or "
            "-cu12), or DALI_CPU_JPEG_DECODER=opencv to decode without it on the CPU"
        )


def library() -> _Library:
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
                _check_version()
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
        library()
    except (ImportError, OSError):
        return False
    return True
