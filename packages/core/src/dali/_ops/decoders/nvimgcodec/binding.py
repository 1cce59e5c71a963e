"""A ctypes binding to nvImageCodec's C API: batch image decoding without holding the GIL.

nvImageCodec's Python binding (``nvidia.nvimgcodec.Decoder.decode``) releases and re-takes the
GIL twice per sample inside one batch call. Every re-take waits for Python's switch interval
when any other Python thread is busy, so a busy reader thread slows batch decoding by two
orders of magnitude (``benchmarks/RESULTS.md``, "nvImageCodec C API").
This module calls the C library (``libnvimgcodec.so.0`` from the ``nvidia-nvimgcodec-cu12/13``
wheel) directly through ctypes instead. The whole batch is decoded by one
``nvimgcodecDecoderDecode`` and one ``nvimgcodecFutureWaitForAll``, without the GIL: every
other Python thread runs meanwhile. The short per-sample calls (about eight a sample) are two
compiled loops (`_calls_jit`, with Numba) that release the GIL too, the second one with the
decode and the wait in it: two GIL re-takes a batch, and no Python work per sample. Without
Numba the calls go through ctypes: the short ones through `ctypes.PyDLL`, which keeps the GIL
(releasing it in each would cost a re-take, up to the switch interval, per call), the decode
and the wait through `ctypes.CDLL`, which releases it.

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

Host cost outside the decode itself: a few microseconds per sample, through ctypes most of it
Python rather than the C library (``benchmarks/RESULTS.md``, "nvImageCodec C API").

Decoded pixels equal those of the Python binding for the same backends and options. On the
GPU backends the work is ordered on ``cuda_stream``: the outputs are ready for later work on
that stream when `Decoder.decode` returns, without any host synchronisation.

The C declarations and the loaded library live in `_nvimgcodec_capi`: the library is found as
the ``nvidia.nvimgcodec`` package (without importing it) and loaded once; one process-wide
library instance, created on first use, loads its built-in codecs and the extension modules
shipped with the wheel (which find nvJPEG through their own run paths); the CPU-only decoders
come from a second instance with the libjpeg-turbo extension only. Set
``DALI_NVIMGCODEC_DEBUG=1`` (warnings and errors) or ``=all`` (everything) to have
nvImageCodec's debug messenger print to stderr.

Example:
    >>> import io
    >>> import numpy as np
    >>> from PIL import Image
    >>> from dali._ops.decoders.nvimgcodec import binding as nvc
    >>> jpeg = io.BytesIO()
    >>> Image.new("RGB", (64, 48), (200, 100, 50)).save(jpeg, "JPEG")
    >>> data = np.frombuffer(jpeg.getvalue(), dtype=np.uint8)
    >>> out = np.empty((48, 64, 3), dtype=np.uint8)  # the image's display size
    >>> if nvc.available():  # nvImageCodec's wheel is installed
    ...     with nvc.Decoder(nvc.CPU_ONLY_DEVICE, [("cpu", 1.0)], num_threads=4) as dec:
    ...         ok = dec.decode([data], [None], [(out.ctypes.data, 64 * 3)], [out.shape],
    ...                         gray=False, apply_orientation=True, device=False)
    ...     assert ok.all() and np.abs(out.astype(int) - (200, 100, 50)).max() <= 2
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options
from dali._exec import gil
from dali._ops.decoders.nvimgcodec.capi import (
    BACKEND_KINDS,
    BUFFER_KIND_STRIDED_DEVICE,
    BUFFER_KIND_STRIDED_HOST,
    COLORSPEC_GRAY,
    COLORSPEC_SRGB,
    CPU_ONLY_DEVICE,
    CURRENT_DEVICE,
    HANDLE_SIZE,
    INFO_DTYPE,
    INFO_SIZE,
    LOAD_HINT_POLICY_FIXED,
    PROCESSING_STATUS_SUCCESS,
    SAMPLE_TYPE_UINT8,
    SAMPLEFORMAT_I_RGB,
    SAMPLEFORMAT_P_Y,
    SAMPLING_NONE,
    ST,
    STATUS_INTERNAL_ERROR,
    VIEW_DTYPE,
    VIEW_SIZE,
    VIEW_TEMPLATE,
    Backend,
    BackendParams,
    CodecError,
    DecodeParams,
    ExecutionParams,
    ImagePlaneInfo,
    available,
    c_ptr,
    c_size,
    check_status,
    library,
    library_dir,
)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "BACKEND_KINDS",
    "CPU_ONLY_DEVICE",
    "CURRENT_DEVICE",
    "CodecError",
    "Decoder",
    "available",
    "library_dir",
]

# -- the decoder -------------------------------------------------------------------------------


_VIEW_TEMPLATE_BYTES = VIEW_TEMPLATE.tobytes()
_INT32_MAX = int(np.iinfo(np.int32).max)
#: ``addressof(from_buffer(data))``: the address of a writable, non-empty array's first byte.
#: Typed to take any object: numpy's stubs make an array a `Buffer` only from Python 3.12.
_from_buffer: Callable[[Any], ctypes.c_char] = ctypes.c_char.from_buffer
_addressof = ctypes.addressof


def _records(data: bytes | int, dtype: np.dtype) -> np.ndarray:
    """A writable record array over a copy of ``data`` (an int: that many zero bytes), made
    without releasing the GIL.

    ``np.zeros(n, dtype)`` of a large record dtype and broadcasting a template record into an
    array release the GIL (numpy does so around bulk zeroing and copying). Taking it back
    waits for Python's switch interval (5 ms) whenever another Python thread is busy, which
    made a large batch's host part ten times slower (``benchmarks/RESULTS.md``, "nvImageCodec C
    API"). Python's ``bytes``/``bytearray`` build the same memory while keeping the GIL (a few
    microseconds).
    """
    return np.frombuffer(bytearray(data), dtype=dtype)


class Decoder:
    """An nvImageCodec decoder that decodes a batch into the caller's buffers without the GIL.

    Args:
        device_id: The CUDA device to decode on, `CURRENT_DEVICE`, or `CPU_ONLY_DEVICE` for a
            decoder with CPU backends only (no CUDA needed), which decodes JPEG only, with
            libjpeg-turbo (the library instance it is created from loads only that extension:
            `_nvimgcodec_capi._Library.cpu_instance`).
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
        lib = library()
        instance = lib.cpu_instance() if device_id == CPU_ONLY_DEVICE else lib.instance()
        kinds = []
        for kind, load in backends:
            if kind not in BACKEND_KINDS:
                raise ValueError(
                    f"unknown backend {kind!r}; expected one of {sorted(BACKEND_KINDS)}"
                )
            kinds.append((BACKEND_KINDS[kind], float(load)))
        array = (Backend * max(1, len(kinds)))()
        for slot, (kind_value, load) in zip(array, kinds):
            slot.struct_type = ST["BACKEND"]
            slot.struct_size = ctypes.sizeof(Backend)
            slot.kind = kind_value
            slot.params = BackendParams.new(load_hint=load, load_hint_policy=LOAD_HINT_POLICY_FIXED)
        params = ExecutionParams.new(
            max_num_cpu_threads=int(num_threads),
            device_id=int(device_id),
            num_backends=len(kinds),
            backends=array if kinds else None,
        )
        handle = c_ptr()
        status = lib.DecoderCreate(
            instance, ctypes.byref(handle), ctypes.byref(params), options.encode()
        )
        check_status("nvimgcodecDecoderCreate", status)
        if not handle.value:
            raise CodecError("nvimgcodecDecoderCreate", STATUS_INTERNAL_ERROR, "null decoder")
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
        # (the checks column by column, and no casting copy: numpy gives the GIL up in
        # operations over more than 500 values, `dali._exec.gil`)
        shape = np.asarray(shapes, dtype=np.int64).reshape(n, 3)
        out = np.asarray(outputs).reshape(n, 2)
        if out.dtype == np.int64:
            out = out.view(np.uint64)
        elif out.dtype != np.uint64:
            out = out.astype(np.uint64)
        if (shape[:, 2] != channels).any():
            raise ValueError(f"output channels must be {channels} (gray={gray})")
        if (shape[:, 0] <= 0).any() or (shape[:, 1] <= 0).any():
            raise ValueError("output heights and widths must be positive")
        if (out[:, 0] == 0).any():
            raise ValueError("null output pointer")
        if (out[:, 1] < (shape[:, 1] * channels).astype(np.uint64)).any():
            raise ValueError("row pitch smaller than width * channels")
        with self._lock:
            if self._handle is None:
                raise ValueError("decode on a closed nvImageCodec decoder")
            if n <= _options.MAX_CALL:
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
            oks, statuses = [], []
            for a in range(0, n, _options.MAX_CALL):
                b = min(n, a + _options.MAX_CALL)
                oks.append(
                    self._decode(
                        self._handle,
                        datas[a:b],
                        regions[a:b],
                        out[a:b],
                        shape[a:b],
                        gray,
                        apply_orientation,
                        device,
                        cuda_stream,
                    )
                )
                statuses.append(self.last_status)
            self.last_status = np.concatenate(statuses)
            return np.concatenate(oks)

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
        n = len(datas)

        # the regions as code stream views, one record each
        has_region = [r is not None for r in regions]
        whole = ~np.asarray(has_region, dtype=bool)
        k = n - int(whole.sum())
        # (the record arrays are built from Python bytes: numpy's own zeroing and broadcast
        # copies release the GIL, and each costs a switch interval to take it back while
        # another Python thread is busy; see `_records`)
        views = _records(_VIEW_TEMPLATE_BYTES * k, VIEW_DTYPE)
        box = np.zeros((0, 4), dtype=np.int64)
        if k:
            box = np.asarray([r for r in regions if r is not None], dtype=np.int64).reshape(k, 4)
            if any((box[:, c] < 0).any() or (box[:, c] > _INT32_MAX).any() for c in range(4)):
                raise ValueError("region coordinates must be non-negative 32-bit integers")
            region = views["region"]
            # column by column: a casting copy of over 500 values gives the GIL up
            for field, at in (("start", 0), ("end", 2)):
                for axis in (0, 1):
                    region[field][:, axis] = box[:, at + axis]

        infos = _records(n * INFO_SIZE, INFO_DTYPE)
        infos["struct_type"] = ST["IMAGE_INFO"]
        infos["struct_size"] = INFO_SIZE
        # each sample's image info record, and its region's view (packed, one per region; 0
        # for a whole image)
        info_at = gil.arange(n, np.uint64) * np.uint64(INFO_SIZE) + np.uint64(infos.ctypes.data)
        view_at = (np.cumsum(~whole) - 1) * VIEW_SIZE + views.ctypes.data
        view_at = np.where(whole, 0, view_at).astype(np.uint64)
        jit = compiled_calls()
        calls = _CtypesCalls(self._lib, n) if jit is None else _CompiledCalls(self._lib, jit, n)
        status = gil.zeros(n, np.uint32)
        ok = gil.zeros(n, np.bool_)
        try:
            # 1. code streams, regions and the parsed image infos
            parsed = calls.open(self._instance, datas, view_at, info_at)

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
            if go.size:
                # keep codec_name and the orientation (the decoders read the EXIF orientation
                # from the output's info); describe our buffer in the rest
                infos["struct_next"] = 0
                infos["color_spec"] = COLORSPEC_GRAY if gray else COLORSPEC_SRGB
                infos["chroma_subsampling"] = SAMPLING_NONE
                infos["sample_format"] = SAMPLEFORMAT_P_Y if gray else SAMPLEFORMAT_I_RGB
                infos["num_planes"] = 1
                plane["struct_type"] = ST["IMAGE_PLANE_INFO"]
                plane["struct_size"] = ctypes.sizeof(ImagePlaneInfo)
                plane["struct_next"] = 0
                plane["width"] = want_w
                plane["height"] = want_h
                plane["row_stride"] = out[:, 1]
                plane["num_channels"] = 1 if gray else 3
                plane["sample_type"] = SAMPLE_TYPE_UINT8
                plane["precision"] = 0  # the full range of the type
                infos["buffer"] = out[:, 0]
                infos["buffer_kind"] = (
                    BUFFER_KIND_STRIDED_DEVICE if device else BUFFER_KIND_STRIDED_HOST
                )
                infos["cuda_stream"] = cuda_stream

                # 3. images, one decode call for the batch, the statuses
                params = DecodeParams.new(apply_exif_orientation=int(apply_orientation))
                got = calls.decode(self._instance, handle, go, whole, info_at, params)
                status[go[: got.size]] = got
                ok = status == PROCESSING_STATUS_SUCCESS
        finally:
            calls.close()
        self.last_status = status
        return ok


def compiled_calls() -> ModuleType | None:
    """The compiled per-sample calls (`_calls_jit`), or None without Numba."""
    try:
        from dali._ops.decoders.nvimgcodec import _calls_jit
    except ImportError:
        return None
    return _calls_jit


def _pointers(datas: Sequence[np.ndarray]) -> tuple[list[int], list[int]]:
    """Each sample's address and size in bytes; C-contiguous data only."""
    ptrs, sizes = [], []
    for i, data in enumerate(datas):
        flags = data.flags
        if not flags.c_contiguous:
            raise ValueError(f"sample {i}: encoded data must be C-contiguous")
        size = data.nbytes
        if size and flags.writeable:  # ``data.ctypes.data``, in a fifth of the time
            ptrs.append(_addressof(_from_buffer(data)))
        else:
            ptrs.append(data.ctypes.data)
        sizes.append(size)
    return ptrs, sizes


class _CompiledCalls:
    """The per-sample C calls of one batch as two compiled loops without the GIL
    (`_calls_jit`); the handles in numpy arrays, destroyed by `close`."""

    def __init__(self, lib: Any, jit: ModuleType, n: int) -> None:
        self.lib, self.jit = lib, jit
        self.fn = lib.address
        self.streams = gil.zeros(n, np.uint64)
        self.subs = gil.zeros(n, np.uint64)
        self.images = gil.zeros(n, np.uint64)
        self.future = gil.zeros(1, np.uint64)

    def open(
        self, instance: int, datas: Sequence[np.ndarray], view_at: np.ndarray, info_at: np.ndarray
    ) -> np.ndarray:
        ptrs, sizes = _pointers(datas)
        parsed = gil.zeros(len(datas), np.bool_)
        fn = self.fn
        self.jit.open_streams(
            fn["CodeStreamCreateFromHostMem"],
            fn["CodeStreamGetSubCodeStream"],
            fn["CodeStreamGetImageInfo"],
            np.uint64(instance),
            np.array(ptrs, dtype=np.uint64),
            np.array(sizes, dtype=np.uint64),
            view_at,
            info_at,
            self.streams,
            self.subs,
            parsed,
        )
        return parsed

    def decode(
        self,
        instance: int,
        handle: int,
        go: np.ndarray,
        whole: np.ndarray,
        info_at: np.ndarray,
        params: DecodeParams,
    ) -> np.ndarray:
        fn = self.fn
        got = gil.zeros(go.size, np.uint32)
        reported = gil.full(1, go.size, np.uint64)  # (as the ctypes calls pass it)
        batch_streams = np.where(whole, self.streams, self.subs)[go]
        step, status = self.jit.decode_images(
            fn["ImageCreate"],
            fn["DecoderDecode"],
            fn["FutureWaitForAll"],
            fn["FutureGetProcessingStatus"],
            fn["FutureDestroy"],
            fn["ImageDestroy"],
            fn["CodeStreamDestroy"],
            np.uint64(instance),
            np.uint64(handle),
            go.astype(np.int64),
            info_at,
            self.images,
            batch_streams,
            np.uint64(ctypes.addressof(params)),
            self.future,
            got,
            reported,
            self.streams,
            self.subs,
        )
        if step:
            check_status(_STEPS[step], int(status))
        return got[: int(reported[0])]

    def close(self) -> None:
        if not (self.future[0] or self.streams.any() or self.subs.any() or self.images.any()):
            return  # `decode` closed everything (a GIL-free call costs a GIL re-take)
        fn = self.fn
        self.jit.close_all(
            fn["ImageDestroy"],
            fn["CodeStreamDestroy"],
            fn["FutureDestroy"],
            fn["FutureWaitForAll"],
            self.images,
            self.subs,
            self.streams,
            self.future,
            False,
        )


#: the call `_calls_jit.decode_images` reports failed, by its step number
_STEPS = {
    1: "nvimgcodecImageCreate",
    2: "nvimgcodecDecoderDecode",
    3: "nvimgcodecFutureWaitForAll",
    4: "nvimgcodecFutureGetProcessingStatus",
}


class _CtypesCalls:
    """The per-sample C calls of one batch through ctypes, one by one (without Numba). The
    short calls keep the GIL (`_nvimgcodec_capi`); the decode and the wait release it. The
    handles live in ctypes arrays, so that reading one gives a Python int for the next call;
    `close` destroys them."""

    def __init__(self, lib: Any, n: int) -> None:
        self.lib = lib
        self.streams = (c_ptr * n)()
        self.subs = (c_ptr * n)()
        self.images = (c_ptr * n)()
        self.future = c_ptr()
        self.waited = True

    def open(
        self, instance: int, datas: Sequence[np.ndarray], view_at: np.ndarray, info_at: np.ndarray
    ) -> np.ndarray:
        lib, streams, subs = self.lib, self.streams, self.subs
        create = lib.CodeStreamCreateFromHostMem
        get_sub = lib.CodeStreamGetSubCodeStream
        get_info = lib.CodeStreamGetImageInfo
        slot = gil.arange(len(datas))
        stream_at = (slot * HANDLE_SIZE + ctypes.addressof(streams)).tolist()
        sub_at = (slot * HANDLE_SIZE + ctypes.addressof(subs)).tolist()
        ptrs, sizes = _pointers(datas)
        parsed = [False] * len(datas)
        for i, (ptr, size, view, info) in enumerate(
            zip(ptrs, sizes, view_at.tolist(), info_at.tolist())
        ):
            if create(instance, stream_at[i], ptr, size, None):
                continue
            cs = streams[i]
            if view:
                if get_sub(cs, sub_at[i], view):
                    continue
                cs = subs[i]
            # a stream the parser rejects must never reach the decoder: a batch with an
            # unrecognised stream fails as a whole, and such streams are not decodable
            parsed[i] = get_info(cs, info) == 0
        return np.array(parsed, dtype=bool)

    def decode(
        self,
        instance: int,
        handle: int,
        go: np.ndarray,
        whole: np.ndarray,
        info_at: np.ndarray,
        params: DecodeParams,
    ) -> np.ndarray:
        lib = self.lib
        image_create = lib.ImageCreate
        image_at = (go * HANDLE_SIZE + ctypes.addressof(self.images)).tolist()
        for image, record in zip(image_at, info_at[go].tolist()):
            created = image_create(instance, image, record)
            if created:
                check_status("nvimgcodecImageCreate", created)
        streams = np.frombuffer(memoryview(self.streams), dtype=np.uintp)
        subs = np.frombuffer(memoryview(self.subs), dtype=np.uintp)
        images = np.frombuffer(memoryview(self.images), dtype=np.uintp)
        batch_streams = np.where(whole, streams, subs)[go]
        batch_images = images[go]
        m = go.size
        self.waited = False
        check_status(
            "nvimgcodecDecoderDecode",
            lib.DecoderDecode(
                handle,
                batch_streams.ctypes.data,
                batch_images.ctypes.data,
                m,
                ctypes.byref(params),
                ctypes.byref(self.future),
            ),
        )
        check_status("nvimgcodecFutureWaitForAll", lib.FutureWaitForAll(self.future))
        self.waited = True
        got = gil.zeros(m, np.uint32)
        reported = c_size(m)
        check_status(
            "nvimgcodecFutureGetProcessingStatus",
            lib.FutureGetProcessingStatus(self.future, got.ctypes.data, ctypes.byref(reported)),
        )
        return got[: reported.value]

    def close(self) -> None:
        lib = self.lib
        if self.future.value:
            if not self.waited:  # interrupted between the decode and the wait
                lib.FutureWaitForAll(self.future)
            lib.FutureDestroy(self.future)
            self.future = c_ptr()
        for handles, destroy in (
            (self.images, lib.ImageDestroy),
            (self.subs, lib.CodeStreamDestroy),
            (self.streams, lib.CodeStreamDestroy),
        ):
            for h in handles:
                if h:
                    destroy(h)
