"""`fn.decoders.numpy`: ``.npy`` bytes to arrays, compared with ``np.load`` (DALI 2.4's rules
and messages, checked against real DALI by the conformance session: ``cases_io.py``)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from dali import fn, ops, pipeline_def, types
from dali._ops.decoders import numpy as npy_decoder
from hypothesis import given, settings
from hypothesis import strategies as st


def npy(array: np.ndarray, *, fortran: bool = False, version: tuple[int, int] | None = None):
    buf = io.BytesIO()
    if fortran:
        array = np.asfortranarray(array)
    np.lib.format.write_array(buf, array, version=version)
    return np.frombuffer(buf.getvalue(), np.uint8)


def decode(blobs: list[np.ndarray], **kwargs: object) -> list[np.ndarray]:
    @pipeline_def(batch_size=max(len(blobs), 1), num_threads=2, device_id=None)
    def pipe():
        return fn.decoders.numpy(fn.external_source(lambda: blobs), **kwargs)

    (out,) = pipe().run()
    assert out.layout() == ""
    return [np.asarray(s) for s in out.as_cpu().samples()]


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)


DTYPES = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32]
DTYPES += [np.uint64, np.int64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_type_round_trips(dtype):
    rng = np.random.default_rng(1)
    arrays = [(rng.standard_normal((3, 5, 2)) * 100).astype(dtype) for _ in range(3)]
    for got, want in zip(decode([npy(a) for a in arrays]), arrays):
        assert_same(got, want)


@pytest.mark.parametrize("shape", [(), (0,), (7,), (0, 3), (4, 1, 3), (2, 3, 4, 5)])
@pytest.mark.parametrize("fortran", [False, True])
def test_shapes_and_orders_are_np_load(shape, fortran):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    (got,) = decode([npy(a, fortran=fortran)])
    assert_same(got, np.load(io.BytesIO(npy(a, fortran=fortran).tobytes())))


def test_ragged_batch_of_one_rank():
    arrays = [np.ones((2, 3), np.float32), np.zeros((5, 1), np.float32), np.eye(3, dtype="f4")]
    for got, want in zip(decode([npy(a) for a in arrays]), arrays):
        assert_same(got, want)


def test_dtype_converts_with_saturation():
    a = np.array([-1.5, 2.5, 0.5, 300.0, -7.0], np.float32)
    (u8,) = decode([npy(a)], dtype=types.UINT8)
    (i32,) = decode([npy(a)], dtype=types.INT32)
    (b,) = decode([npy(np.array([0.0, 0.3, 0.5, 2.0]))], dtype=types.BOOL)
    (h,) = decode([npy(np.array([70000.0, 1.5]))], dtype=types.FLOAT16)
    assert u8.tolist() == [0, 3, 1, 255, 0] and u8.dtype == np.uint8
    assert i32.tolist() == [-2, 3, 1, 300, -7]
    assert b.tolist() == [False, False, True, True]
    assert h.tolist() == [np.inf, 1.5]


def test_dtype_allows_a_batch_of_mixed_types():
    blobs = [npy(np.array([1.5, 2.0])), npy(np.array([-3, 4], np.int8)), npy(np.array([True]))]
    got = decode(blobs, dtype=types.FLOAT64)
    assert [g.tolist() for g in got] == [[1.5, 2.0], [-3.0, 4.0], [1.0]]
    assert all(g.dtype == np.float64 for g in got)


def test_fortran_with_conversion():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    (got,) = decode([npy(a, fortran=True)], dtype=types.FLOAT)
    assert_same(got, a.astype(np.float32))


def test_int8_and_multidimensional_byte_inputs_are_read_as_bytes():
    a = np.arange(6, dtype=np.uint16).reshape(2, 3)
    blob = npy(a)
    got = decode([blob.view(np.int8)]) + decode([blob.reshape(1, -1)])
    for g in got:
        assert_same(g, a)


def test_the_payload_is_a_view_when_nothing_changes_and_copied_when_unaligned():
    a = np.arange(8, dtype=np.float64)
    blob = npy(a)
    header = npy_decoder.parse_header(blob.tobytes())
    view = npy_decoder.NumpyDecoder._stored(blob, header)
    assert np.shares_memory(view, blob)
    shifted = np.empty(blob.size + 1, np.uint8)[1:]  # the payload at an odd address
    shifted[:] = blob
    moved = npy_decoder.NumpyDecoder._stored(shifted, header)
    assert not np.shares_memory(moved, shifted) and moved.flags.aligned
    np.testing.assert_array_equal(moved, a)


def test_headers_are_parsed_once(monkeypatch):
    calls = []
    real = npy_decoder.parse_header
    monkeypatch.setattr(npy_decoder, "parse_header", lambda h: calls.append(1) or real(h))
    blobs = [npy(np.full((4, 4), k, np.uint8)) for k in range(8)]
    got = decode(blobs)
    assert [int(g[0, 0]) for g in got] == list(range(8))
    assert len(calls) == 1


def test_ops_api_and_static_metadata():
    dec = ops.decoders.Numpy(dtype=types.FLOAT)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        out = dec(fn.external_source(lambda: [npy(np.arange(3, dtype=np.int64))]))
        assert out.dtype == types.FLOAT and out.layout == ""
        return out

    (out,) = pipe().run()
    assert out.as_cpu().samples()[0].tolist() == [0.0, 1.0, 2.0]


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 5), min_size=0, max_size=4),
    dtype=st.sampled_from(DTYPES),
    fortran=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_property_equals_np_load(shape, dtype, fortran, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    blob = npy(a, fortran=fortran)
    (got,) = decode([blob])
    assert_same(got, np.load(io.BytesIO(blob.tobytes())))


# -- errors ------------------------------------------------------------------------------------

A = np.arange(6, dtype=np.float32).reshape(2, 3)


def _raw_header(text: bytes) -> np.ndarray:
    text += b"\n"
    return np.frombuffer(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text, np.uint8)


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (np.zeros(0, np.uint8), "Input sample is empty. Expected a non-empty NPY file."),
        (np.frombuffer(b"hello world 1234", np.uint8), "bad magic string.*0x68656c6c6f20"),
        (npy(A)[:5], "bad magic string for numpy header 0x934e554d50,"),
        (npy(A, version=(2, 0)), "version 2.0. Only major version 1 is supported"),
        (npy(A, version=(3, 0)), "version 3.0. Only major version 1 is supported"),
        (npy(A)[:60], "Header length exceeds input size"),
        (npy(A)[:-4], "Expected data numpy size 152 bytes does not match the actual size 148"),
        (np.concatenate([npy(A), np.zeros(4, np.uint8)]), "152 bytes.*actual size 156"),
        (npy(A.astype(">f4")), "Big Endian files are not supported"),
        (npy(np.array([1j])), "unsupported element type '<c16'"),
        (npy(np.array(["ab"])), "unsupported element type '<U2'"),
        (npy(np.zeros(2, dtype=[("a", "i4")])), "structured arrays are not"),
        (_raw_header(b"{'descr': '<f4', 'fortran_order': False}"), "exactly 'descr'"),
        (_raw_header(b"not a dict"), "not a Python dict literal"),
    ],
)
def test_malformed_files_name_the_problem_and_the_sample(blob, message):
    with pytest.raises(RuntimeError, match=rf"decoders\.numpy.*{message}") as e:
        decode([npy(A), blob])
    assert "sample 1" in str(e.value)


def test_a_batch_must_share_type_and_rank():
    with pytest.raises(RuntimeError, match=r"same data type.*float32 \(sample 0\) and int32"):
        decode([npy(A), npy(A.astype(np.int32))])
    with pytest.raises(RuntimeError, match=r"same number of dimensions.*: 2 and 1"):
        decode([npy(A), npy(A.ravel())])
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        decode([npy(A), npy(A.ravel())], dtype=types.FLOAT)


def test_only_bytes_are_input():
    with pytest.raises(RuntimeError, match=r"decoders\.numpy.*uint8 or int8 samples\), got float"):
        decode([np.zeros(16, np.float32)])


def test_a_non_numeric_dtype_is_an_argument_error():
    with pytest.raises(RuntimeError, match=r"argument `dtype`: Unsupported output type: string"):
        decode([npy(A)], dtype=types.STRING)


def test_cpu_only_as_in_dali():
    with pytest.raises(ValueError, match=r'decoders\.numpy` does not support device="gpu"'):

        @pipeline_def(batch_size=1, num_threads=1, device_id=0)
        def pipe():
            return fn.decoders.numpy(fn.external_source(lambda: [npy(A)]), device="gpu")

        pipe().build()
