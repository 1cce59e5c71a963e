"""Conformance cases of the spectral audio operators against real DALI 2.4 (see README.md).

Inputs are float32 signals fed through ``external_source``: tones (440 Hz, 3 kHz, a chirp)
plus noise at 16 kHz, of several lengths (a ragged batch), 1-D or with an extra dimension of
extent 1, silence around a burst for `nonsilent_region`, and integer versions of them;
spectrogram-like positive arrays for the mel filter bank, decibels and MFCC.

* `preemphasis_filter`, `nonsilent_region`: exact. Every border, input and output type,
  per-sample coefficients; the moving mean square of `nonsilent_region` is DALI's float32
  arithmetic reproduced bit for bit (reset intervals, no reset, 8/16-bit exact sums).
* `spectrogram`, `power_spectrum`: DALI transforms with FFTS, `dali` with numpy's pocketfft:
  every value within ``1e-5`` of the sample's largest value (measured: under 4e-7; DALI's own
  tests allow a mean error of 1e-4). Shapes, layouts and window counts exact.
* `mel_filter_bank`, `mfcc`: exact (bit for bit). The filter weights and cosine tables are
  built as DALI builds them, the sums added in DALI's order, the normalisation (before or
  after the sums, as DALI's frequency- and time-major kernels do) and the lifter in float32.
* `to_decibels`: within 2e-5 dB + 1e-6 relative (measured: 1 float32 ulp; numpy's ``log2``
  against glibc's ``log2f``, which is not correctly rounded either).
* Chained as in an ASR pipeline (preemphasis -> spectrogram -> mel -> dB -> MFCC): within
  1e-3 of the sample's largest value (the FFT's differences amplified by the logarithm of the
  weak bands).
* `power_spectrum` along an axis of extent 2 (``nfft=2``): FFTS cannot plan it and DALI 2.4
  raises; `dali` transforms it (not compared).
* Every error case DALI raises on; cases where DALI 2.4 reads out of bounds or crashes
  (empty signals, ``reflect`` with one sample, a zero window) are ``dali_skip`` cases with the
  error or the output `dali` gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cases import Case, Ext, In, Iters, Ty, add, op, per_sample, structure_problems

_RATE = 16000


def _tones(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n) / _RATE
    chirp = np.sin(2 * np.pi * (200 + 1500 * t) * t)
    x = 0.5 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 3000 * t) + 0.3 * chirp
    return (x + 0.05 * rng.standard_normal(n)).astype(np.float32)


def _burst(n: int, seed: int) -> np.ndarray:
    """Silence (faint noise), a tone burst, silence."""
    rng = np.random.default_rng(seed)
    x = 1e-4 * rng.standard_normal(n)
    a, b = n // 4, n // 4 + n // 3
    x[a:b] += 0.6 * np.sin(2 * np.pi * 330 * np.arange(b - a) / _RATE)
    return x.astype(np.float32)


def _ext(arrays: list[np.ndarray], label: str, layout: str | None = None) -> Ext:
    return Ext(lambda c: [arrays], layout, label)


SIGNALS = _ext([_tones(n, k) for k, n in enumerate((16000, 12345, 4000, 1000))], "tones")
SHORT = _ext([_tones(n, 10 + k) for k, n in enumerate((700, 300, 513))], "short_tones")
COLUMN = _ext([_tones(3000, 20)[:, None], _tones(2000, 21)[:, None]], "tones_n1")
ROW = _ext([_tones(3000, 22)[None, :], _tones(1500, 23)[None, :]], "tones_1n")
BURSTS = _ext([_burst(n, 30 + k) for k, n in enumerate((30000, 20001, 5000, 700))], "bursts")


def _typed(dtype: Any, scale: float, offset: float = 0.0) -> Ext:
    src = [_burst(n, 40 + k) for k, n in enumerate((9000, 4001, 333))]
    info = np.iinfo(dtype)
    data = [np.clip(np.round(x * scale + offset), info.min, info.max).astype(dtype) for x in src]
    return _ext(data, f"bursts_{np.dtype(dtype).name}")


TYPED = {
    "uint8": _typed(np.uint8, 120, 128),
    "int8": _typed(np.int8, 120),
    "uint16": _typed(np.uint16, 30000, 32768),
    "int16": _typed(np.int16, 30000),
    "uint32": _typed(np.uint32, 2e9, 2.1e9),
    "int32": _typed(np.int32, 2e9),
    "uint64": _typed(np.uint64, 1e15, 2e15),
    "int64": _typed(np.int64, 1e15),
}
F64 = _ext([_burst(900, 50).astype(np.float64), _burst(77, 51).astype(np.float64)], "f64")
ONE = _ext([np.array([0.5], np.float32), _tones(10, 52)], "one_sample")


def _power_like(shapes: list[tuple[int, ...]], seed: int, label: str, layout: str | None) -> Ext:
    """Positive values spanning several decades, like a power spectrogram."""
    rng = np.random.default_rng(seed)
    data = [(10 ** rng.uniform(-6, 3, s)).astype(np.float32) for s in shapes]
    return _ext(data, label, layout)


def _signed(shapes: list[tuple[int, ...]], seed: int, label: str, layout: str | None) -> Ext:
    rng = np.random.default_rng(seed)
    return _ext([rng.normal(0, 10, s).astype(np.float32) for s in shapes], label, layout)


SPEC_FT = _power_like([(257, 40), (257, 13), (257, 1)], 60, "spec_ft", "ft")
SPEC_TF = _power_like([(40, 257), (7, 257)], 61, "spec_tf", "tf")
SPEC_129 = _power_like([(129, 30), (129, 9)], 62, "spec129_ft", None)
SPEC_1D = _power_like([(257,), (257,)], 63, "spec_f", "f")
SPEC_3D = _power_like([(2, 65, 11), (3, 65, 4)], 64, "spec_cft", "Cft")
SPEC_3D_NOLAYOUT = _power_like([(2, 65, 11)], 65, "spec_3d", None)
SPEC_RAGGED_F = _power_like([(257, 20), (129, 20)], 66, "spec_two_nfft", "ft")
MEL = _signed([(40, 50), (40, 3)], 70, "logmel", None)
MEL_TF = _signed([(50, 40), (9, 40)], 71, "logmel_tf", "tf")
MEL_3D = _signed([(2, 20, 7), (3, 20, 5)], 72, "logmel_3d", None)
MEL_4D = _signed([(2, 2, 20, 7)], 73, "logmel_4d", None)
MEL_SHORT_AXIS = _signed([(6, 10), (30, 4)], 74, "logmel_short", None)
WAVES_2D = _signed([(3, 64), (2, 100)], 80, "waves_2d", None)
WAVES_3D = _signed([(2, 3, 32)], 81, "waves_3d", "abc")
WAVES_1D = _signed([(50,), (64,), (7,)], 82, "waves_1d", None)
WAVES_COLUMNS = _signed([(16, 3), (9, 2)], 83, "waves_columns", None)
DB_IN = _power_like([(30, 20), (5, 7), (2, 12)], 90, "power_2d", None)
DB_3D = _power_like([(2, 3, 4), (1, 5, 9)], 91, "power_3d", "abc")
DB_EDGE = _ext(
    [
        np.array([0.0, 0.0, 0.0], np.float32),
        np.array([-1.0, -2.0, 0.5], np.float32),
        np.array([np.nan, 1.0, 1e-30, np.inf], np.float32),
        np.zeros(0, np.float32),
    ],
    "db_edges",
)


def _within_max(
    rel: float, atol: float = 0.0, rtol: float = 0.0
) -> Callable[[Iters, Iters], list[str]]:
    """Structure equal (shapes too); every value within ``rel`` of the sample's largest
    magnitude (plus ``atol + rtol * |DALI's value|``)."""

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs, shapes=True)
        if problems:
            return problems
        for it, (oo, tt) in enumerate(zip(ours, theirs)):
            for k, (o, t) in enumerate(zip(oo, tt)):
                for s, (a, b) in enumerate(zip(o.samples, t.samples)):
                    if a.size == 0:
                        continue
                    fa, fb = a.astype(np.float64), b.astype(np.float64)
                    finite = np.isfinite(fb)
                    if not np.array_equal(finite, np.isfinite(fa)) or not np.array_equal(
                        fa[~finite], fb[~finite], equal_nan=True
                    ):
                        problems.append(f"iter {it} out {k} sample {s}: non-finite values differ")
                        continue
                    scale = float(np.abs(fb[finite]).max(initial=0.0))
                    diff = np.abs(fa[finite] - fb[finite])
                    limit = rel * scale + atol + rtol * np.abs(fb[finite])
                    if (diff > limit).any():
                        worst = float(diff.max())
                        problems.append(
                            f"iter {it} out {k} sample {s}: max |diff| {worst:g} "
                            f"({worst / max(scale, 1e-300):.3g} of the largest value {scale:g})"
                        )
        return problems

    return check


#: The FFT's results: within 1e-5 of the sample's largest value.
SPECTRAL = _within_max(1e-5)
#: Bit for bit (no ulp allowance).
EXACT_SUMS = _within_max(0.0)

# -- preemphasis_filter ------------------------------------------------------------------------
P = "preemphasis_filter"
for _border in ("clamp", "zero", "reflect"):
    add(op(P, [SIGNALS], {"border": _border}))
    add(op(P, [SIGNALS], {"border": _border, "preemph_coeff": 0.5}))
    add(op(P, [TYPED["int16"]], {"border": _border, "dtype": Ty("INT16")}))
    add(op(P, [COLUMN], {"border": _border}))
add(op(P, [SIGNALS], {"preemph_coeff": 0.0}))
add(op(P, [SIGNALS, per_sample([0.9, 0.0, 0.5, -0.3])], {"preemph_coeff": In(1)}))
add(op(P, [SIGNALS, per_sample([0.97, 0.1, 0.0, 1.5])], {"preemph_coeff": In(1), "border": "zero"}))
add(op(P, [ROW], {"preemph_coeff": 0.8}))
for _name, _src in TYPED.items():
    add(op(P, [_src]))
    add(op(P, [_src], {"dtype": Ty(_name.upper()), "border": "reflect"}))
    add(op(P, [_src], {"dtype": Ty(_name.upper()), "preemph_coeff": 0.0}))
for _out in ("UINT8", "INT16", "INT32", "INT64", "FLOAT64"):
    add(op(P, [SIGNALS], {"dtype": Ty(_out), "preemph_coeff": 0.9}, prefix="scaled "))
add(op(P, [F64]))
add(op(P, [F64], {"dtype": Ty("FLOAT64"), "border": "reflect"}))
add(op(P, [SIGNALS], {"border": "foo"}, expect_error=True))
add(op(P, [SIGNALS], {"dtype": Ty("FLOAT16")}, expect_error=True))
add(op(P, [SIGNALS], {"dtype": Ty("BOOL")}, expect_error=True))
add(
    op(
        P,
        [_ext([np.zeros(5, np.float16)], "f16")],
        expect_error=True,
    )
)
_ONE_REF = [np.array([0.5 - np.float32(0.97) * np.float32(0.5)], np.float32)]
add(
    Case(
        name="preemphasis_filter(one sample, reflect)",
        graph=lambda fn, types, x: fn.preemphasis_filter(x, border="reflect"),
        inputs=(_ext([np.array([0.5], np.float32)], "one"),),
        dali_skip="DALI 2.4 reads X[1] past the end of a one-sample signal; `dali` uses X[0]",
        reference=lambda c: _ONE_REF,
    )
)
add(
    Case(
        name="preemphasis_filter(empty)",
        graph=lambda fn, types, x: fn.preemphasis_filter(x),
        inputs=(_ext([np.zeros(0, np.float32)], "empty"),),
        dali_skip="DALI 2.4 reads X[0] of an empty signal and crashes; `dali` returns it empty",
        reference=lambda c: [np.zeros(0, np.float32)],
    )
)

# -- spectrogram -----------------------------------------------------------------------------
S = "spectrogram"
_SPEC_ARGS: list[dict[str, Any]] = [
    {},
    {"nfft": 512, "window_length": 400, "window_step": 160},
    {"nfft": 400, "window_length": 400, "window_step": 160},
    {"window_length": 256, "window_step": 128, "center_windows": False},
    {"window_length": 256, "window_step": 100, "reflect_padding": False},
    {"nfft": 1000, "window_length": 300, "window_step": 77, "power": 1},
    {"window_length": 320, "window_step": 160, "layout": "tf"},
    {"nfft": 64, "window_length": 10, "window_step": 5, "layout": "tf", "power": 1},
    {"window_length": 16, "window_step": 8, "window_fn": [float(v) for v in np.kaiser(16, 6)]},
    {"nfft": 30, "window_length": 30, "window_step": 7, "center_windows": False},
]
for _kw in _SPEC_ARGS:
    add(op(S, [SIGNALS], _kw, check=SPECTRAL))
for _src in (SHORT, COLUMN, ROW):
    add(op(S, [_src], {"window_length": 256, "window_step": 64}, check=SPECTRAL))
    add(op(S, [_src], {"window_length": 256, "window_step": 64, "center_windows": False},
           check=SPECTRAL))  # fmt: skip
# windows wider than the signal: reflected more than once, or (not centred) one window padded
add(op(S, [SHORT], {"window_length": 512, "window_step": 100}, check=SPECTRAL))
add(op(S, [SHORT], {"window_length": 512, "window_step": 100, "reflect_padding": False},
       check=SPECTRAL))  # fmt: skip
add(op(S, [_ext([_tones(510, 90)], "510")], {"window_length": 512, "window_step": 3,
                                             "center_windows": False}, check=SPECTRAL))  # fmt: skip
add(op(S, [ONE], {"window_length": 8, "window_step": 3}, check=SPECTRAL))
for _kw in (
    {"nfft": 20, "window_length": 30},
    {"power": 3},
    {"layout": "xy"},
    {"window_length": 0},
    {"window_step": 0},
    {"window_fn": [1.0, 2.0], "window_length": 3},
    {"window_length": 1030, "window_step": 20, "center_windows": False},
):
    add(op(S, [SIGNALS], _kw, expect_error=True))
add(op(S, [_ext([np.zeros((3, 4), np.float32)], "3x4")], expect_error=True))
add(op(S, [_ext([np.zeros(400, np.float64)], "f64_400")], expect_error=True))
add(op(S, [_ext([np.zeros(400, np.int16)], "i16_400")], expect_error=True))
add(op(S, [_ext([np.zeros(0, np.float32)], "empty")], expect_error=True))
add(op(S, [_ext([np.zeros(1, np.float32)], "one")], {"center_windows": False},
       expect_error=True))  # fmt: skip

# -- power_spectrum --------------------------------------------------------------------------
PS = "power_spectrum"
for _src in (WAVES_2D, WAVES_3D, WAVES_1D):
    add(op(PS, [_src], check=SPECTRAL))
    add(op(PS, [_src], {"power": 1}, check=SPECTRAL))
    add(op(PS, [_src], {"nfft": 128}, check=SPECTRAL))
    add(op(PS, [_src], {"nfft": 16}, check=SPECTRAL))  # keeps the first 16 values
add(op(PS, [WAVES_COLUMNS], {"axis": 0}, check=SPECTRAL))
add(op(PS, [WAVES_COLUMNS], {"axis": 0, "nfft": 32, "power": 1}, check=SPECTRAL))
add(op(PS, [WAVES_2D], {"axis": -2}, check=SPECTRAL))  # DALI: any negative axis is the last
add(op(PS, [WAVES_3D], {"axis": 1, "nfft": 5}, check=SPECTRAL))
add(op(PS, [WAVES_2D], {"nfft": 0}, check=SPECTRAL))
add(op(PS, [SIGNALS], {"nfft": 512}, check=SPECTRAL))
add(op(PS, [WAVES_2D], {"power": 3}, expect_error=True))
add(op(PS, [WAVES_2D], {"axis": 2}, expect_error=True))
add(op(PS, [_ext([np.zeros((2, 2, 2, 2), np.float32)], "4d")], expect_error=True))
add(op(PS, [_ext([np.zeros(4, np.float64)], "f64_4")], expect_error=True))

# -- mel_filter_bank -------------------------------------------------------------------------
M = "mel_filter_bank"
_MEL_ARGS: list[dict[str, Any]] = [
    {},
    {"nfilter": 40, "sample_rate": 16000.0},
    {"nfilter": 80, "sample_rate": 16000.0, "mel_formula": "htk"},
    {"nfilter": 64, "sample_rate": 16000.0, "normalize": False},
    {"nfilter": 64, "sample_rate": 16000.0, "mel_formula": "htk", "normalize": False},
    {"nfilter": 128, "sample_rate": 48000.0, "freq_low": 4000.0, "freq_high": 24000.0},
    {"nfilter": 32, "sample_rate": 44100.0, "freq_low": 1000.0, "freq_high": 8000.0},
    {"nfilter": 20, "sample_rate": 16000.0, "freq_low": 300.0, "freq_high": 9000.0},
    {"nfilter": 4, "sample_rate": 16000.0, "freq_high": 8000.0},
    {"nfilter": 300, "sample_rate": 16000.0},  # more filters than bins: some stay empty
]
for _kw in _MEL_ARGS:
    add(op(M, [SPEC_FT], _kw, check=EXACT_SUMS))
for _src in (SPEC_TF, SPEC_129, SPEC_1D, SPEC_3D, SPEC_3D_NOLAYOUT, SPEC_RAGGED_F):
    add(op(M, [_src], {"nfilter": 40, "sample_rate": 16000.0}, check=EXACT_SUMS))
    add(op(M, [_src], {"nfilter": 24, "mel_formula": "htk", "normalize": False},
           check=EXACT_SUMS))  # fmt: skip
for _kw in (
    {"nfilter": 0},
    {"sample_rate": 0.0},
    {"freq_low": -1.0},
    {"freq_high": 30000.0, "sample_rate": 16000.0},
    {"freq_low": 5000.0, "freq_high": 4000.0, "sample_rate": 16000.0},
    {"mel_formula": "foo"},
):
    add(op(M, [SPEC_FT], _kw, expect_error=True))
add(op(M, [_ext([np.ones((5, 17), np.float32)], "layout_ab", "ab")], expect_error=True))
add(op(M, [_ext([np.ones((17, 5), np.float64)], "f64_spec")], expect_error=True))

# -- to_decibels -----------------------------------------------------------------------------
DB = "to_decibels"
_DB_TOL = _within_max(0.0, atol=2e-5, rtol=1e-6)
for _kw in (
    {},
    {"cutoff_db": -80.0},
    {"multiplier": 20.0, "reference": 1.0, "cutoff_db": -200.0},
    {"multiplier": 20.0, "reference": 1e-6, "cutoff_db": -120.0},
    {"multiplier": float(np.log(10)), "reference": 1.0},
    {"reference": 1000.0, "cutoff_db": -30.0},
    {"cutoff_db": -1000.0},
    {"multiplier": 10.0, "cutoff_db": 10.0},
):
    for _src in (SPEC_FT, DB_IN, DB_3D, DB_EDGE):
        add(op(DB, [_src], _kw, check=_DB_TOL))
add(op(DB, [SPEC_FT], {"reference": 0.0}, expect_error=True))
add(op(DB, [_ext([np.ones(10, np.float64)], "f64_10")], expect_error=True))
add(op(DB, [_ext([np.ones(10, np.int16)], "i16_10")], expect_error=True))

# -- mfcc ------------------------------------------------------------------------------------
C = "mfcc"
for _type in (1, 2, 3, 4):
    for _norm in (False, True):
        if _type == 1 and _norm:
            continue
        add(op(C, [MEL], {"dct_type": _type, "normalize": _norm}, check=EXACT_SUMS))
        add(op(C, [MEL_TF], {"dct_type": _type, "normalize": _norm, "axis": 1, "n_mfcc": 13},
               check=EXACT_SUMS))  # fmt: skip
for _kw in (
    {"lifter": 22.0},
    {"lifter": 2.0, "n_mfcc": 40},
    {"lifter": -3.0, "dct_type": 3},
    {"n_mfcc": 60},  # more than the axis: all of them
    {"n_mfcc": 1},
):
    add(op(C, [MEL], _kw, check=EXACT_SUMS))
add(op(C, [MEL_3D], {"axis": 1, "n_mfcc": 8, "lifter": 10.0}, check=EXACT_SUMS))
add(op(C, [MEL_3D], {"axis": 2}, check=EXACT_SUMS))
add(op(C, [MEL_4D], {"axis": 2, "n_mfcc": 12, "dct_type": 4, "normalize": True}, check=EXACT_SUMS))
add(op(C, [MEL_SHORT_AXIS], {"n_mfcc": 8, "lifter": 5.0}, check=EXACT_SUMS))
add(op(C, [MEL_SHORT_AXIS], {"n_mfcc": 8, "axis": 1, "dct_type": 3}, check=EXACT_SUMS))
for _kw in (
    {"n_mfcc": 0},
    {"dct_type": 5},
    {"dct_type": 1, "normalize": True},
    {"axis": -1},
    {"axis": 2},
):
    add(op(C, [MEL], _kw, expect_error=True))
add(op(C, [_ext([np.zeros(10, np.float32)], "mfcc_1d")], expect_error=True))
add(op(C, [_ext([np.zeros((2, 3, 4, 10, 5), np.float32)], "mfcc_5d")], expect_error=True))
add(op(C, [_ext([np.zeros((10, 5), np.float64)], "mfcc_f64")], expect_error=True))
add(op(C, [_ext([np.zeros((1, 5), np.float32)], "mfcc_1x5")], {"dct_type": 1},
       expect_error=True))  # fmt: skip

# -- nonsilent_region ------------------------------------------------------------------------
N = "nonsilent_region"
_NS_ARGS: list[dict[str, Any]] = [
    {},
    {"cutoff_db": -20.0},
    {"window_length": 512, "reset_interval": 1024},
    {"window_length": 256, "reset_interval": -1, "cutoff_db": -80.0},
    {"window_length": 256, "reset_interval": 4096, "cutoff_db": -80.0},
    {"window_length": 100, "reset_interval": 300, "cutoff_db": -90.0},
    {"reference_power": 0.001},
    {"window_length": 1024, "reset_interval": 1024},
    {"window_length": 5000, "reset_interval": -1},
    {"window_length": 1, "reset_interval": -1, "cutoff_db": -30.0},
]


def _nonsilent(**kw: Any) -> Callable[..., Any]:
    return lambda fn, types, x: tuple(fn.nonsilent_region(x, **kw))


for _kw in _NS_ARGS:
    for _src in (BURSTS, TYPED["int16"], TYPED["uint8"], TYPED["int32"], TYPED["int64"]):
        add(Case(name=f"{N}({_src.label}; {_kw})", graph=_nonsilent(**_kw), inputs=(_src,)))
for _name in ("int8", "uint16", "uint32", "uint64"):
    add(Case(name=f"{N}({_name})", graph=_nonsilent(), inputs=(TYPED[_name],)))
# integers ignore reset_interval (DALI does not check it for them)
add(Case(name=f"{N}(int16; reset 3000)", graph=_nonsilent(reset_interval=3000),
         inputs=(TYPED["int16"],)))  # fmt: skip
_SPIKE = np.zeros(21, np.int16)
_SPIKE[10] = 3000
_BLOCK = _SPIKE.copy()
_BLOCK[10:15] = 3000
for _arr, _w, _cut in ((_SPIKE, 1, -80.0), (_BLOCK, 1, -10.0), (_BLOCK, 5, -10.0)):
    add(Case(name=f"{N}(DALI's test w={_w} cutoff={_cut})",
             graph=_nonsilent(window_length=_w, cutoff_db=_cut),
             inputs=(_ext([_arr], f"spike_w{_w}"),)))  # fmt: skip
for _kw in (
    {"reference_power": 0.0},
    {"reference_power": -1.0},
    {"reset_interval": 3000},
    {"window_length": 10000},  # 8192 is not a multiple of it
    {"reset_interval": -5},
):
    add(Case(name=f"{N}(bursts; {_kw}) error", graph=_nonsilent(**_kw), inputs=(BURSTS,),
             expect_error=True))  # fmt: skip
for _arr in (np.zeros(10, np.float64), np.ones(10, bool), np.zeros((3, 2), np.float32)):
    add(Case(name=f"{N}({_arr.dtype}{_arr.shape}) error", graph=_nonsilent(),
             inputs=(_ext([_arr], "bad"),), expect_error=True))  # fmt: skip
for _kw, _why in (
    ({"window_length": 0}, "DALI 2.4 divides by zero"),
    ({"reset_interval": 0}, "DALI 2.4 loops forever"),
):
    add(Case(name=f"{N}({_kw}) error", graph=_nonsilent(**_kw), inputs=(BURSTS,),
             expect_error=True, dali_skip=_why, expect_error_text="must be positive"))  # fmt: skip

# -- chained, as in an ASR front end ---------------------------------------------------------


def _asr(fn: Any, types: Any, x: Any) -> Any:
    x = fn.preemphasis_filter(x)
    spec = fn.spectrogram(x, nfft=512, window_length=400, window_step=160)
    mel = fn.mel_filter_bank(spec, sample_rate=_RATE, nfilter=64)
    db = fn.to_decibels(mel, multiplier=10.0, cutoff_db=-80.0)
    return fn.mfcc(db, n_mfcc=20, lifter=22.0), mel


add(Case(name="asr front end (preemphasis > spectrogram > mel > dB > mfcc)", graph=_asr,
         inputs=(SIGNALS,), check=_within_max(1e-3)))  # fmt: skip
