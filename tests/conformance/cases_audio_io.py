"""Conformance cases of audio decoding, resampling and the NeMo ASR reader against real DALI 2.4
(see README.md).

The clips are `dali._testing.audio`'s (written into the ``audio_io`` folder): WAV (16-, 24-,
32-bit PCM, unsigned 8-bit, float), FLAC and OGG/Vorbis, mono to 4 channels, 8 to 44.1 kHz,
and NeMo manifests over them (absolute paths, with and without offsets, lines to skip).

* `decoders.audio` (and its alias `audio_decoder`): every output type, downmixing, resampling
  (constant and per-sample rates, qualities 0/50/100): exact for WAV and FLAC (libsndfile in
  both libraries; DALI's resampler arithmetic reproduced bit for bit); OGG/Vorbis within 1 of
  int16 and 1024 of int32 (the two libraries bundle different Vorbis decoders, whose float
  output differs in the last bit);
* `audio_resample` (and `experimental.audio_resample`): every input and output type DALI
  takes, rates / scale / out_length (constant and per sample), qualities, 1-D and multi-channel
  signals, layouts: exact;
* `readers.nemo_asr`: samples, order, values, transcripts, sample rates, indices, offsets and
  durations, duration filters, several manifests, ``reader_meta`` over a sharding and padding
  matrix; the shuffles compared as permutations (each epoch reads each entry once, with the
  same content in both libraries);
* both libraries raise on the error cases.

Not compared: the reader's ``source_info``, which DALI 2.4 leaves empty and `dali` sets to the
audio file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from cases import (
    GENERATORS,
    Case,
    Ext,
    In,
    Iters,
    Ty,
    Value,
    add,
    op,
    per_sample,
    structure_problems,
)

# -- the files ------------------------------------------------------------------------------

#: name -> (frames, rate, channels, subtype)
CLIPS: dict[str, tuple[int, int, int, str | None]] = {
    "m16.wav": (1000, 16000, 1, None),
    "s16.wav": (1234, 22050, 2, None),
    "q4.wav": (777, 12347, 4, None),
    "s24.flac": (900, 44100, 2, "PCM_24"),
    "m.flac": (1500, 16000, 1, None),
    "f32.wav": (800, 8000, 2, "FLOAT"),
    "i32.wav": (800, 8000, 1, "PCM_32"),
    "u8.wav": (600, 8000, 1, "PCM_U8"),
    "long.wav": (20000, 48000, 2, None),
}
OGG = {"s.ogg": (3000, 44100, 2, None), "m.ogg": (2000, 16000, 1, None)}
N_A, N_B = 7, 5  # entries of the two NeMo datasets


def _generate(folder: Path) -> None:
    from dali._testing import audio

    folder.mkdir(parents=True, exist_ok=True)
    for k, (name, (frames, rate, channels, subtype)) in enumerate({**CLIPS, **OGG}.items()):
        audio.write_clip(
            folder / name, length=frames, rate=rate, channels=channels, subtype=subtype, seed=k
        )
    audio.make_nemo_dataset(folder / "nemo_a", N_A, channels=2, seed=1, relative=False)
    audio.make_nemo_dataset(
        folder / "nemo_b", N_B, rate=22050, ext=".flac", seed=2, offsets=True, relative=False
    )
    a = (folder / "nemo_a" / "manifest.json").read_text().splitlines()
    # lines DALI skips (with a warning), a line without duration, unknown fields
    weird = [
        a[0],
        "",
        "not json",
        '{"duration": 1.0, "text": "no path"}',
        "[1, 2]",
        a[1][:-1] + ', "extra": [1, {"b": 2}]}',
        '{"audio_filepath": "' + str(folder / "nemo_a" / "clip_002.wav") + '"}',
    ]
    (folder / "nemo_a" / "weird.json").write_text("\n".join(weird) + "\n")


GENERATORS["audio_io"] = _generate

ROOT = Value(lambda c: c.folder("audio_io"), "audio")


# -- decoders.audio ---------------------------------------------------------------------------


def _decode(files: list[str], kw: dict[str, Any], opname: str = "decoders.audio") -> Any:
    def graph(fn: Any, types: Any, root: str, *nodes: Any) -> Any:
        encoded, _ = fn.readers.file(files=[str(Path(root) / f) for f in files])
        args = {k: (nodes[v.index - 1] if isinstance(v, In) else v) for k, v in kw.items()}
        args = {k: (v.resolve(types) if isinstance(v, Ty) else v) for k, v in args.items()}
        node = fn
        for part in opname.split("."):
            node = getattr(node, part)
        return tuple(node(encoded, **args))

    return graph


def decode_case(
    kw: dict[str, Any],
    files: list[str],
    *,
    inputs: tuple[Any, ...] = (),
    opname: str = "decoders.audio",
    label: str = "clips",
    **opts: Any,
) -> Case:
    shown = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    return Case(
        name=f"{opname}[{label}]({shown})",
        graph=_decode(files, kw, opname),
        inputs=(ROOT, *inputs),
        batch_size=len(files),
        **opts,
    )


WAVS = list(CLIPS)
for _dtype in ("FLOAT", "INT16", "INT32"):
    for _downmix in (False, True):
        for _rate in (None, 16000.0, 12999.0):
            _kw: dict[str, Any] = {"dtype": Ty(_dtype), "downmix": _downmix}
            if _rate is not None:
                _kw["sample_rate"] = _rate
            add(decode_case(_kw, WAVS))
            _tol = {"FLOAT": 0.0, "INT16": 1.0, "INT32": 1024.0}[_dtype]
            add(decode_case(_kw, list(OGG), label="ogg", atol=_tol))
add(
    decode_case({"sample_rate": 22050.0, "quality": 0.0}, WAVS),
    decode_case({"sample_rate": 8000.0, "quality": 100.0, "downmix": True}, WAVS),
    decode_case({"sample_rate": 44100.0, "quality": 25.0, "dtype": Ty("INT16")}, WAVS),
    decode_case({"sample_rate": 0.0}, WAVS),  # given: the output rate is 0, nothing resampled
    decode_case({"sample_rate": -5.0}, WAVS),
    decode_case({"quality": 101.0}, WAVS),  # quality is checked only when resampling
    decode_case(
        {"sample_rate": In(1)},
        WAVS,
        inputs=(per_sample([16000, 8000, 22050, 11025, 48000, 16000, 9000, 8000, 24000]),),
    ),
    decode_case({"downmix": True, "sample_rate": 16000.0}, WAVS, opname="audio_decoder"),
)
_BYTES = Ext(lambda c: [[np.arange(100, dtype=np.uint8)]], None, "garbage")
_FLOATS = Ext(lambda c: [[np.zeros(100, np.float32)]], None, "floats")
_ROWS = Ext(lambda c: [[np.zeros((2, 50), np.uint8)]], None, "rows")
add(
    op("decoders.audio", [_BYTES], {}, expect_error=True),
    op(
        "decoders.audio",
        [Ext(lambda c: [[np.zeros(0, np.uint8)]], None, "empty")],
        {},
        expect_error=True,
    ),
    op("decoders.audio", [_FLOATS], {}, expect_error=True),
    op("decoders.audio", [_ROWS], {}, expect_error=True),
    decode_case({"dtype": Ty("UINT8")}, WAVS[:2], expect_error=True),
    decode_case({"dtype": Ty("FLOAT64")}, WAVS[:2], expect_error=True),
    decode_case({"sample_rate": 8000.0, "quality": 101.0}, WAVS[:2], expect_error=True),
)


# -- audio_resample ---------------------------------------------------------------------------


def _signal(shapes: list[tuple[int, ...]], dtype: Any, seed: int, layout: str | None = None) -> Ext:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    data = []
    for s in shapes:
        t = np.arange(s[0], dtype=np.float64)[:, None] if len(s) == 2 else np.arange(s[0])
        tone = np.sin(t * 0.05 * (1 + np.arange(s[1]) if len(s) == 2 else 1.0))
        v = 0.6 * tone + 0.3 * rng.standard_normal(s)
        if dt.kind == "f":
            data.append(np.clip(v, -1.2, 1.2).astype(dt))
        else:
            info = np.iinfo(dt)
            mid = (int(info.max) + int(info.min)) / 2
            half = (int(info.max) - int(info.min)) / 2
            data.append(np.clip(np.round(mid + v * half), info.min, info.max).astype(dt))
    label = f"{dt.name}{'x'.join(str(d) for d in shapes[0])}" + (f"_{layout}" if layout else "")
    return Ext(lambda c: [data], layout, label)


MONO = _signal([(3000,), (1234,), (17,), (1,)], np.float32, 1)
STEREO = _signal([(2000, 2), (999, 2)], np.float32, 2, "TC")
MANY = _signal([(700, 5), (300, 5)], np.float32, 3)
EMPTY = Ext(lambda c: [[np.zeros(0, np.float32), np.zeros((0,), np.float32)]], None, "empty")
R = "audio_resample"
for _ext in (MONO, STEREO, MANY):
    add(
        op(R, [_ext], {"in_rate": 44100.0, "out_rate": 16000.0}),
        op(R, [_ext], {"in_rate": 16000.0, "out_rate": 44100.0}),
        op(R, [_ext], {"in_rate": 12999.0, "out_rate": 16000.0, "quality": 0.0}),
        op(R, [_ext], {"scale": 0.37, "quality": 100.0}),
        op(R, [_ext], {"scale": 3.7}),
        op(R, [_ext], {"out_length": 555}),
        op(R, [_ext], {"scale": 1.0}),
        op(R, [_ext], {"scale": 0.0}),
        op(R, [_ext], {"in_rate": 1.0, "out_rate": 0.0}),
    )
for _k, _t in enumerate((np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32)):
    _x = _signal([(900,), (400,)], _t, 10 + _k)
    add(op(R, [_x], {"scale": 1.5}), op(R, [_x], {"scale": 0.6, "dtype": Ty("FLOAT")}))
    add(op(R, [_signal([(500, 2)], _t, 20 + _k)], {"in_rate": 3.0, "out_rate": 2.0}))
for _src, _dst in (
    (np.float32, "INT16"),
    (np.float32, "UINT8"),
    (np.float32, "UINT32"),
    (np.float32, "INT32"),
    (np.uint8, "INT16"),
    (np.int16, "UINT8"),
    (np.uint16, "INT8"),
    (np.int32, "UINT16"),
    (np.uint32, "INT32"),
):
    add(op(R, [_signal([(800,), (300,)], _src, 30)], {"scale": 1.25, "dtype": Ty(_dst)}))
add(
    op(
        R,
        [MONO, per_sample([44100, 8000, 16000, 3]), per_sample([16000, 8000, 48000, 7])],
        {"in_rate": In(1), "out_rate": In(2)},
    ),
    op(R, [MONO, per_sample([0.5, 2.0, 1.1, 9.0])], {"scale": In(1)}),
    op(R, [MONO, per_sample([100, 7000, 0, 5], np.int64)], {"out_length": In(1)}),
    op(R, [EMPTY], {"scale": 2.0}),
    op(R, [EMPTY], {"out_length": 0}),
    op("experimental.audio_resample", [STEREO], {"scale": 0.5}),
)
_F64 = Ext(lambda c: [[np.zeros(10, np.float64)]], None, "float64")
_I64 = Ext(lambda c: [[np.zeros(10, np.int64)]], None, "int64")
_3D = Ext(lambda c: [[np.zeros((3, 4, 5), np.float32)]], None, "3d")
add(
    op(R, [MONO], {}, expect_error=True),
    op(R, [MONO], {"in_rate": 1.0}, expect_error=True),
    op(R, [MONO], {"out_rate": 1.0}, expect_error=True),
    op(R, [MONO], {"scale": 1.0, "out_length": 5}, expect_error=True),
    op(R, [MONO], {"scale": 1.0, "in_rate": 1.0, "out_rate": 2.0}, expect_error=True),
    op(R, [MONO], {"scale": 2.0, "quality": -1.0}, expect_error=True),
    op(R, [MONO], {"scale": 2.0, "quality": 100.5}, expect_error=True),
    op(R, [MONO], {"scale": 2.0, "dtype": Ty("FLOAT64")}, expect_error=True),
    op(R, [MONO], {"scale": 2.0, "dtype": Ty("INT64")}, expect_error=True),
    op(R, [_F64], {"scale": 2.0}, expect_error=True),
    op(R, [_I64], {"scale": 2.0}, expect_error=True),
    op(R, [_3D], {"scale": 2.0}, expect_error=True),
    op(R, [MONO], {"in_rate": 0.0, "out_rate": 1.0}, expect_error=True),
    op(R, [MONO], {"in_rate": 1.0, "out_rate": -1.0}, expect_error=True),
    op(R, [MONO], {"scale": -1.0}, expect_error=True),
    op(
        R,
        [MONO, per_sample([1.0, 1.0, -2.0, 1.0])],
        {"scale": In(1)},
        name="audio_resample(float323000; scale=<per-sample, one negative>)",
        expect_error=True,
    ),
    op(R, [EMPTY], {"out_length": 5}, expect_error=True),
)


# -- readers.nemo_asr -------------------------------------------------------------------------


def _nemo(kw: dict[str, Any], manifests: list[str]) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        args = {k: (v.resolve(types) if isinstance(v, Ty) else v) for k, v in kw.items()}
        paths = [str(Path(root) / m) for m in manifests]
        out = fn.readers.nemo_asr(manifest_filepaths=paths, **args)
        return tuple(out) if isinstance(out, (list, tuple)) else out

    return graph


def nemo_case(
    kw: dict[str, Any],
    manifests: tuple[str, ...] = ("nemo_a/manifest.json",),
    *,
    batch_size: int = 3,
    iters: int = 3,
    suffix: str = "",
    **opts: Any,
) -> Case:
    shown = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    where = "+".join(
        m.split("/")[0] + ("" if m.endswith("manifest.json") else "/" + m.split("/")[1])
        for m in manifests
    )
    return Case(
        name=f"readers.nemo_asr[{where}]({shown}) b{batch_size}{suffix}",
        graph=_nemo(kw, list(manifests)),
        inputs=(ROOT,),
        batch_size=batch_size,
        iters=iters,
        **opts,
    )


add(
    nemo_case({"name": "Reader", "read_idxs": True}, meta="Reader", iters=4),
    nemo_case({"downmix": False, "dtype": Ty("INT16")}),
    nemo_case({"dtype": Ty("INT32"), "read_text": False}),
    nemo_case({"sample_rate": 8000.0, "read_idxs": True}),
    nemo_case({"sample_rate": 22050.0, "quality": 0.0, "downmix": False}),
    nemo_case({"read_sample_rate": False, "read_text": False}),
    nemo_case({"read_idxs": True}, ("nemo_b/manifest.json",), batch_size=5, iters=2),  # offsets
    nemo_case({"read_idxs": True, "sample_rate": 16000.0}, ("nemo_b/manifest.json",), batch_size=2),
    nemo_case(
        {"min_duration": 0.2, "max_duration": 0.35, "read_idxs": True, "name": "Reader"},
        meta="Reader",
        batch_size=2,
    ),
    nemo_case({"min_duration": 0.3, "read_idxs": True}, batch_size=2),
    nemo_case({"max_duration": 0.2, "read_idxs": True}, batch_size=2),
    nemo_case(
        {"read_idxs": True, "name": "Reader"},
        ("nemo_a/manifest.json", "nemo_b/manifest.json"),
        batch_size=5,
        iters=4,
        meta="Reader",
    ),
    nemo_case(
        {"read_idxs": True, "name": "Reader"}, ("nemo_a/weird.json",), batch_size=2, meta="Reader"
    ),
    nemo_case(
        {"dont_use_mmap": True, "lazy_init": True, "read_ahead": True, "prefetch_queue_depth": 2},
        batch_size=4,
    ),
)
for _shards, _shard, _batch in ((2, 0, 3), (2, 1, 2), (3, 2, 2), (4, 3, 3)):
    for _pad in (False, True):
        for _stick in (False, True):
            add(
                nemo_case(
                    {
                        "num_shards": _shards,
                        "shard_id": _shard,
                        "pad_last_batch": _pad,
                        "stick_to_shard": _stick,
                        "read_idxs": True,
                        "name": "Reader",
                    },
                    batch_size=_batch,
                    iters=5,
                    meta="Reader",
                )
            )


def _idx_of(s: np.ndarray) -> int:
    return int(np.asarray(s).reshape(-1)[0])


def _permutations(epoch: int) -> Callable[[Iters, Iters], list[str]]:
    """Every epoch of ``epoch`` samples reads each entry once (by ``read_idxs``: the last
    output) in both libraries, and an entry has the same audio and text in both."""

    def problems_of(iters: Iters) -> list[str]:
        idx = [_idx_of(s) for it in iters for s in it[-1].samples]
        out = []
        for e in range(len(idx) // epoch):
            chunk = idx[e * epoch : (e + 1) * epoch]
            if sorted(chunk) != list(range(epoch)):
                out.append(f"epoch {e} is not a permutation: {chunk}")
        return out

    def content(iters: Iters) -> dict[int, bytes]:
        found: dict[int, bytes] = {}
        for it in iters:
            for k, i in enumerate(it[-1].samples):
                found[_idx_of(i)] = it[0].samples[k].tobytes() + it[2].samples[k].tobytes()
        return found

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs, shapes=False)
        problems += [f"dali: {p}" for p in problems_of(ours)]
        problems += [f"real DALI: {p}" for p in problems_of(theirs)]
        o, t = content(ours), content(theirs)
        problems += [f"entry {k}: different audio or text" for k in set(o) & set(t) if o[k] != t[k]]
        return problems

    return check


add(
    nemo_case(
        {"shuffle_after_epoch": True, "read_idxs": True},
        batch_size=N_A,
        iters=3,
        check=_permutations(N_A),
    ),
    nemo_case(
        {"random_shuffle": True, "initial_fill": 3, "read_idxs": True},
        batch_size=N_A,
        iters=3,
        check=_permutations(N_A),
    ),
    nemo_case(
        {"shuffle_after_epoch": True, "shuffle_after_epoch_seed": 7, "read_idxs": True},
        batch_size=N_A,
        iters=2,
        check=_permutations(N_A),
    ),
)
add(
    nemo_case({}, ("nemo_a/nothere.json",), expect_error=True),
    nemo_case({"dtype": Ty("UINT8")}, expect_error=True),
    nemo_case({"quality": 200.0}, expect_error=True),
    nemo_case({"shuffle_after_epoch": True, "random_shuffle": True}, expect_error=True),
    nemo_case({"shuffle_after_epoch": True, "stick_to_shard": True}, expect_error=True),
    nemo_case({"num_shards": 2, "shard_id": 2}, expect_error=True),
    Case(
        "readers.nemo_asr(manifest_filepaths=[])",
        lambda fn, types: tuple(fn.readers.nemo_asr(manifest_filepaths=[])),
        batch_size=2,
        expect_error=True,
    ),
)
