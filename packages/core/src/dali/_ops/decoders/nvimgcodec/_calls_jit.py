"""The per-sample C calls of a batch decode, compiled with Numba, without the GIL (importing
this module needs Numba).

`binding.Decoder.decode` makes about eight short C calls a sample: a code stream over the bytes,
a sub code stream for the region, the parsed image info, an image over the output, and their
destruction. Through ctypes each call holds the GIL (a call that released it would have to take
it back, waiting up to Python's switch interval behind any busy thread), so that a batch of 256
JPEGs held it ~3.5 ms: the largest single piece of Python work per batch in a GPU training
pipeline, whose stage threads share the one interpreter lock.

Here the same calls are loops in compiled functions that call the library by address (`ccall`:
an LLVM call through the function's address, so the compiled code does not depend on where the
library was loaded and Numba can cache it) and release the GIL for their whole duration: two
GIL-free calls a batch (`open_streams`, then `decode_images` with the decode, the wait and the
cleanup) instead of eight GIL-held calls a sample. Without Numba the binding makes the calls
through ctypes, one by one, with the same results. The functions live at module level (Numba's
disk cache finds them in a later process: `dali._ops.image.resample.jit_kernels` explains why).

Every argument is an unsigned 64-bit integer (handles, addresses, sizes; a C ``int`` argument
takes the low half of its register on the 64-bit ABIs the library is built for) and every
function returns ``nvimgcodecStatus_t`` (int32).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["close_all", "decode_images", "open_streams"]


def _ccall_typing(typingctx: Any, fn: Any, args: Any) -> Any:
    """``ccall(fn, args)``: the C function at address ``fn`` (uint64) called with a tuple of
    uint64 arguments; returns its int32 status."""
    if fn != types.uint64 or not (isinstance(args, types.UniTuple) and args.dtype == types.uint64):
        return None
    count = len(args)

    def codegen(context: Any, builder: Any, signature: Any, llargs: Any) -> Any:
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(64)] * count)
        target = builder.inttoptr(llargs[0], fnty.as_pointer())
        return builder.call(target, [builder.extract_value(llargs[1], k) for k in range(count)])

    return types.int32(types.uint64, args), codegen


ccall: Any = intrinsic(_ccall_typing)

_ZERO = np.uint64(0)
_WORD = np.uint64(8)  # bytes of a handle


@numba.njit(nogil=True, cache=True)
def open_streams(  # type: ignore[no-untyped-def]  # pragma: no cover
    create, get_sub, get_info, instance, ptrs, sizes, view_at, info_at, streams, subs,
    parsed,
):  # fmt: skip
    """Per sample, a code stream over ``sizes[i]`` bytes at ``ptrs[i]`` (into ``streams[i]``),
    the sub code stream of its view when ``view_at[i]`` is not 0 (into ``subs[i]``) and its
    image info into the record at ``info_at[i]``; ``parsed[i]``: all of it succeeded."""
    stream_base, sub_base = np.uint64(streams.ctypes.data), np.uint64(subs.ctypes.data)
    for i in range(ptrs.shape[0]):
        slot = _WORD * np.uint64(i)
        if ccall(create, (instance, stream_base + slot, ptrs[i], sizes[i], _ZERO)) != 0:
            continue
        cs = streams[i]
        if view_at[i] != 0:
            if ccall(get_sub, (cs, sub_base + slot, view_at[i])) != 0:
                continue
            cs = subs[i]
        # a stream the parser rejects must never reach the decoder
        parsed[i] = ccall(get_info, (cs, info_at[i])) == 0


@numba.njit(nogil=True, cache=True)
def close_all(  # type: ignore[no-untyped-def]  # pragma: no cover
    image_destroy, stream_destroy, future_destroy, wait, images, subs, streams, future,
    waited,
):  # fmt: skip
    """Every handle still open destroyed and zeroed (the future first waited for, unless
    ``waited``)."""
    if future[0] != 0:
        if not waited:  # (waiting twice is an error)
            ccall(wait, (future[0],))
        ccall(future_destroy, (future[0],))
        future[0] = 0
    for i in range(images.shape[0]):
        if images[i] != 0:
            ccall(image_destroy, (images[i],))
            images[i] = 0
    for i in range(subs.shape[0]):  # a sub code stream before the stream it views
        if subs[i] != 0:
            ccall(stream_destroy, (subs[i],))
            subs[i] = 0
    for i in range(streams.shape[0]):
        if streams[i] != 0:
            ccall(stream_destroy, (streams[i],))
            streams[i] = 0


@numba.njit(nogil=True, cache=True)
def decode_images(  # type: ignore[no-untyped-def]  # pragma: no cover
    image_create, decode, wait, get_status, future_destroy, image_destroy,
    stream_destroy, instance, handle, go, info_at, images, batch_streams, params, future,
    got, reported, streams, subs,
):  # fmt: skip
    """An image per submitted sample ``go`` (into ``images``, from its info record), one decode
    call for them with their code streams ``batch_streams``, the wait, the statuses into
    ``got`` (``reported[0]`` of them); then every handle destroyed (`close_all`).

    Returns ``(step, status)``: the call that failed (0: none; 1 image create, 2 decode,
    3 wait, 4 processing status) and its status.
    """
    step, status = 0, np.int32(0)
    m = go.shape[0]
    image_base = np.uint64(images.ctypes.data)
    for k in range(m):
        i = go[k]
        status = ccall(image_create, (instance, image_base + _WORD * np.uint64(i), info_at[i]))
        if status != 0:
            step = 1
            break
    if step == 0:
        batch_images = np.empty(m, np.uint64)
        for k in range(m):
            batch_images[k] = images[go[k]]
        status = ccall(
            decode,
            (
                handle,
                np.uint64(batch_streams.ctypes.data),
                np.uint64(batch_images.ctypes.data),
                np.uint64(m),
                params,
                np.uint64(future.ctypes.data),
            ),
        )
        if status != 0:
            step = 2
        else:
            status = ccall(wait, (future[0],))
            if status != 0:
                step = 3
            else:
                status = ccall(
                    get_status,
                    (future[0], np.uint64(got.ctypes.data), np.uint64(reported.ctypes.data)),
                )
                if status != 0:
                    step = 4
    waited = step == 0 or step >= 3
    close_all(
        image_destroy, stream_destroy, future_destroy, wait, images, subs, streams, future,
        waited,
    )  # fmt: skip
    return step, status
