"""readers.nemo_asr: manifests (paths, offsets, durations, filters, skipped lines, several
manifests), outputs (audio as libsndfile reads it, rates, UTF-8 transcripts, indices), decoding
options, sharding, shuffling, checkpoints, errors."""

from __future__ import annotations

import json
import logging
import math
import warnings

import dali
import numpy as np
import pytest
from dali import fn, ops, types
from dali._graph.schema import REQUIRED, UNSET, get_schema
from dali._ops.audio import _resampling as R
from dali._ops.audio.codecs import downmix_channels
from dali._ops.readers.nemo_asr.reader import parse_manifest
from dali._testing.audio import make_nemo_dataset
from dali._testing.checkpoints import check_pipeline_save_restore

sf = pytest.importorskip("soundfile")

N = 7


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("nemo")
    manifest, entries = make_nemo_dataset(root / "a", N, channels=2, seed=1, relative=False)
    offsets, off_entries = make_nemo_dataset(
        root / "b", 4, rate=22050, ext=".flac", seed=2, offsets=True, relative=False
    )
    return {"a": (manifest, entries), "b": (offsets, off_entries), "root": root}


def _pipe(batch_size=3, name="Reader", checkpointing=False, **kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=2,
        device_id=None,
        seed=5,
        enable_checkpointing=checkpointing,
    )
    with pipe:
        out = fn.readers.nemo_asr(name=name, **kw)
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    return pipe


def _read(path, dtype="float32"):
    x, rate = sf.read(str(path), dtype=dtype, always_2d=True)
    return x, rate


def _idx(tl):
    return [int(np.asarray(tl.at(i))[0]) for i in range(len(tl))]


# -- schema -----------------------------------------------------------------------------------


def test_schema_matches_dali():
    schema = get_schema("readers.nemo_asr")
    expected = {
        "manifest_filepaths": REQUIRED,
        "read_sample_rate": True,
        "read_text": True,
        "read_idxs": False,
        "max_duration": 0.0,
        "min_duration": 0.0,
        "sample_rate": -1.0,
        "quality": 50.0,
        "downmix": True,
        "dtype": types.FLOAT,
        "normalize_text": UNSET,
        "shuffle_after_epoch": False,
        "shuffle_after_epoch_seed": UNSET,
        "random_shuffle": False,
        "initial_fill": 1024,
        "shard_id": 0,
        "num_shards": 1,
        "pad_last_batch": False,
        "stick_to_shard": False,
        "dont_use_mmap": False,
        "read_ahead": False,
        "lazy_init": False,
        "prefetch_queue_depth": 1,
        "skip_cached_images": False,
        "tensor_init_bytes": 1048576,
        "seed": -1,
    }
    assert {k: schema.args[k].default for k in expected} == expected
    assert not any(a.tensor for a in schema.args.values())
    assert schema.devices == ("cpu",)


# -- outputs ----------------------------------------------------------------------------------


def test_outputs_in_manifest_order(data):
    manifest, entries = data["a"]
    pipe = _pipe(manifest_filepaths=[str(manifest)], read_idxs=True)
    assert pipe.reader_meta("Reader")["epoch_size"] == N
    seen = []
    for _ in range(3):
        audio, rate, text, idx = pipe.run()
        assert audio.dtype == types.FLOAT and audio.layout() == ""
        assert rate.dtype == types.FLOAT and text.dtype == types.UINT8 and idx.dtype == types.INT64
        for i in range(3):
            k = _idx(idx)[i]
            seen.append(k)
            x, sr = _read(entries[k]["path"])
            np.testing.assert_array_equal(audio.at(i), downmix_channels(x))
            assert rate.at(i).shape == () and float(rate.at(i)) == sr
            assert bytes(text.at(i)) == entries[k]["text"].encode("utf-8")
            assert idx.at(i).shape == (1,)
            assert audio[i].source_info() == entries[k]["audio_filepath"]
    assert seen == [0, 1, 2, 3, 4, 5, 6, 0, 1]


def test_transcripts_are_utf8_without_terminator(data):
    manifest, entries = data["a"]
    pipe = _pipe(batch_size=N, manifest_filepaths=[str(manifest)])
    text = pipe.run()[2]
    cafe = [i for i, e in enumerate(entries) if "é" in e["text"]]
    assert cafe and all(bytes(text.at(i)).endswith("é".encode()) for i in cafe)
    assert all(text.at(i).size == len(entries[i]["text"].encode()) for i in range(N))


@pytest.mark.parametrize(
    "kw, count",
    [
        ({}, 3),
        ({"read_text": False}, 2),
        ({"read_sample_rate": False, "read_text": False}, 1),
        ({"read_idxs": True, "read_sample_rate": False}, 3),
    ],
)
def test_number_of_outputs(data, kw, count):
    pipe = _pipe(manifest_filepaths=[str(data["a"][0])], **kw)
    assert len(pipe.run()) == count


def test_no_downmix_and_integer_types(data):
    manifest, entries = data["a"]
    pipe = _pipe(manifest_filepaths=[str(manifest)], downmix=False, dtype=types.INT16)
    audio = pipe.run()[0]
    for i in range(3):
        np.testing.assert_array_equal(audio.at(i), _read(entries[i]["path"], "int16")[0])
    pipe = _pipe(manifest_filepaths=[str(manifest)], dtype=types.INT32)
    audio = pipe.run()[0]
    x = downmix_channels(_read(entries[0]["path"])[0]).astype(np.float64)
    np.testing.assert_allclose(audio.at(0) / 2**31, x, atol=1e-7)


def test_sample_rate_resamples_and_reports_the_files_rate(data):
    manifest, entries = data["a"]
    pipe = _pipe(manifest_filepaths=[str(manifest)], sample_rate=8000.0, quality=25.0)
    audio, rate, _ = pipe.run()
    w = R.window_for_quality(25)
    for i in range(3):
        x, sr = _read(entries[i]["path"])
        n = math.ceil(x.shape[0] * 8000 / sr)
        assert float(rate.at(i)) == sr == 16000  # DALI reports the file's rate
        expected = R.resample_numpy(downmix_channels(x), float(sr), 8000.0, n, w)
        np.testing.assert_array_equal(audio.at(i), expected)


def test_offsets_and_durations(data):
    manifest, entries = data["b"]
    pipe = _pipe(batch_size=4, manifest_filepaths=[str(manifest)])
    audio, rate, _ = pipe.run()
    assert [float(rate.at(i)) for i in range(4)] == [22050.0] * 4
    for i, e in enumerate(entries):
        x, sr = _read(e["path"])
        start = int(e["offset"] * sr)
        length = min(int(e["duration"] * sr), x.shape[0] - start)
        assert audio.at(i).shape == (length,)
        np.testing.assert_array_equal(audio.at(i), x[start : start + length, 0])


def test_offset_without_duration_reads_to_the_end(data, tmp_path):
    _, entries = data["a"]
    line = {"audio_filepath": entries[0]["path"], "offset": 0.01}
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps(line) + "\n")
    audio = _pipe(batch_size=1, manifest_filepaths=[str(manifest)]).run()[0]
    x, sr = _read(entries[0]["path"])
    np.testing.assert_array_equal(audio.at(0), downmix_channels(x)[int(0.01 * sr) :])


def test_relative_paths_are_opened_from_the_current_folder(tmp_path, monkeypatch):
    manifest, entries = make_nemo_dataset(tmp_path / "rel", 4, seed=3)  # odd entries: names
    monkeypatch.chdir(tmp_path / "rel")
    audio = _pipe(batch_size=4, manifest_filepaths=[str(manifest)]).run()[0]
    assert [audio.at(i).shape[0] for i in range(4)] == [e["frames"] for e in entries]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Exception, match=r"clip_001\.wav"):
        _pipe(batch_size=4, manifest_filepaths=[str(manifest)]).run()


def test_duration_filters_and_indices(data):
    manifest, entries = data["a"]
    durations = [e["duration"] for e in entries]
    kept = [i for i, d in enumerate(durations) if 0.2 <= d <= 0.35]
    pipe = _pipe(
        batch_size=len(kept),
        manifest_filepaths=[str(manifest)],
        min_duration=0.2,
        max_duration=0.35,
        read_idxs=True,
    )
    assert pipe.reader_meta("Reader")["epoch_size"] == len(kept)
    _, _, text, idx = pipe.run()
    # indices count the kept entries, not the manifest's lines
    assert _idx(idx) == list(range(len(kept)))
    assert [bytes(text.at(i)).decode() for i in range(len(kept))] == [
        entries[k]["text"] for k in kept
    ]


def test_entries_without_duration_are_dropped_by_min_duration_only(tmp_path, data):
    path = data["a"][1][0]["path"]
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"audio_filepath": path}) + "\n")
    assert _pipe(batch_size=1, manifest_filepaths=[str(manifest)], max_duration=0.01).run()
    with pytest.raises(Exception, match="No files found"):
        _pipe(batch_size=1, manifest_filepaths=[str(manifest)], min_duration=0.01).build()


def test_several_manifests_restart_the_index(data):
    a, b = data["a"][0], data["b"][0]
    pipe = _pipe(batch_size=N + 4, manifest_filepaths=[str(a), str(b)], read_idxs=True)
    assert pipe.reader_meta("Reader")["epoch_size"] == N + 4
    idx = pipe.run()[3]
    assert _idx(idx) == list(range(N)) + list(range(4))


def test_invalid_lines_are_skipped_with_a_warning(data, tmp_path, caplog):
    _, entries = data["a"]
    lines = [
        json.dumps({"audio_filepath": entries[0]["path"], "text": "one", "x": [1, {"y": 2}]}),
        "",
        "not json",
        json.dumps({"duration": 1.0, "text": "no path"}),
        "[1, 2]",
        json.dumps({"audio_filepath": entries[1]["path"]}),
    ]
    manifest = tmp_path / "weird.json"
    manifest.write_text("\n".join(lines) + "\n")
    with caplog.at_level(logging.WARNING, logger="dali"):
        pipe = _pipe(batch_size=2, manifest_filepaths=[str(manifest)], read_idxs=True)
        pipe.build()
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "invalid manifest line 2" in messages and "line 3: not json" in messages
    assert "line 4 without an audio filepath" in messages and "line 5: [1, 2]" in messages
    _, _, text, idx = pipe.run()
    assert [bytes(text.at(i)) for i in range(2)] == [b"one", b""]
    assert _idx(idx) == [0, 1]


def test_parse_manifest_rules():
    text = '{"audio_filepath": "a.wav", "duration": 2}\n{"audio_filepath": "b.wav", "text": "t"}'
    entries, skipped = parse_manifest(text, read_text=False)
    assert [(e.audio_filepath, e.duration, e.offset, e.idx, e.text) for e in entries] == [
        ("a.wav", 2.0, 0.0, 0, ""),
        ("b.wav", -1.0, 0.0, 1, ""),
    ]
    assert skipped == []
    with pytest.raises(ValueError, match="line 1: `text` must be a string"):
        parse_manifest('{"audio_filepath": "a.wav", "text": 5}')
    with pytest.raises(ValueError, match="line 1: `duration` must be a number"):
        parse_manifest('{"audio_filepath": "a.wav", "duration": "1"}')


# -- sharding, shuffling, checkpoints ---------------------------------------------------------


def test_shards_cover_the_dataset_and_pad(data):
    manifest = str(data["a"][0])
    seen = []
    for shard in range(2):
        pipe = _pipe(
            batch_size=2,
            manifest_filepaths=[manifest],
            num_shards=2,
            shard_id=shard,
            read_idxs=True,
            pad_last_batch=True,
            stick_to_shard=True,
        )
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["epoch_size_padded"] == 8
        assert meta["number_of_shards"] == 2 and meta["shard_id"] == shard
        batches = [_idx(pipe.run()[3]) for _ in range(2)]
        seen.append(batches)
    assert seen[0] == [[0, 1], [2, 2]]
    assert seen[1] == [[3, 4], [5, 6]]


@pytest.mark.parametrize(
    "kw", [{"random_shuffle": True, "initial_fill": 3}, {"shuffle_after_epoch": True}]
)
def test_shuffles_permute_each_epoch(data, kw):
    pipe = _pipe(batch_size=N, manifest_filepaths=[str(data["a"][0])], read_idxs=True, **kw)
    epochs = [_idx(pipe.run()[3]) for _ in range(3)]
    assert all(sorted(e) == list(range(N)) for e in epochs)
    assert any(e != list(range(N)) for e in epochs)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
        {"random_shuffle": True, "initial_fill": 4},
        {"shuffle_after_epoch": True},
    ],
)
def test_checkpoint_round_trip(data, kw):
    manifest = str(data["a"][0])

    def make(checkpoint=None):
        pipe = dali.Pipeline(
            batch_size=3,
            num_threads=1,
            device_id=None,
            seed=3,
            enable_checkpointing=True,
            checkpoint=checkpoint,
        )
        with pipe:
            outs = fn.readers.nemo_asr(
                manifest_filepaths=[manifest], name="Reader", read_idxs=True, **kw
            )
            pipe.set_outputs(*outs)
        return pipe

    check_pipeline_save_restore(make, 4, 5)


def test_ops_class_and_legacy_alias(data):
    for cls in (ops.readers.NemoAsr, ops.NemoAsrReader):
        pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with pipe:
                reader = cls(manifest_filepaths=[str(data["a"][0])], read_text=False)
                audio, rate = reader()
                pipe.set_outputs(audio, rate)
        assert float(pipe.run()[1].at(0)) == 16000.0
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        with pytest.warns(DeprecationWarning, match="nemo_asr"):
            outs = fn.nemo_asr_reader(manifest_filepaths=[str(data["a"][0])])
        pipe.set_outputs(*outs)
    assert len(pipe.run()) == 3


def test_normalize_text_is_deprecated(data):
    pipe = _pipe(manifest_filepaths=[str(data["a"][0])], normalize_text=True)
    with pytest.warns(DeprecationWarning, match="normalize_text"):
        pipe.build()


def test_static_meta(data):
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        audio, rate, text, idx = fn.readers.nemo_asr(
            manifest_filepaths=[str(data["a"][0])], read_idxs=True, downmix=False
        )
        assert (audio.dtype, audio.ndim) == (types.FLOAT, 2)
        assert (rate.dtype, rate.ndim, text.dtype, idx.dtype) == (
            types.FLOAT,
            0,
            types.UINT8,
            types.INT64,
        )


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, text",
    [
        ({"manifest_filepaths": []}, "``manifest_filepaths`` can not be empty"),
        (
            {"manifest_filepaths": ["/nonexistent/m.json"]},
            'Could not open NEMO ASR manifest file: "/nonexistent/m.json"',
        ),
        ({"dtype": types.UINT8}, "Unsupported output type: uint8"),
        ({"quality": 200.0}, r"Resampling quality must be in \[0..100\]"),
        ({"shuffle_after_epoch": True, "random_shuffle": True}, "random_shuffle"),
        ({"shuffle_after_epoch": True, "stick_to_shard": True}, "stick_to_shard"),
        ({"num_shards": 2, "shard_id": 2}, "shard_id"),
    ],
)
def test_build_errors(data, kw, text):
    kw = {"manifest_filepaths": [str(data["a"][0])], **kw}
    with pytest.raises(Exception, match=text) as info:
        _pipe(**kw).build()
    assert "readers.nemo_asr" in str(info.value)


def test_empty_manifest_and_missing_files(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(Exception, match="No files found"):
        _pipe(manifest_filepaths=[str(empty)]).build()
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps({"audio_filepath": str(tmp_path / "nothere.wav")}) + "\n")
    pipe = _pipe(batch_size=1, manifest_filepaths=[str(missing)])
    with pytest.raises(Exception, match=r"nothere\.wav"):
        pipe.run()


def test_offset_beyond_the_end_is_an_error(data, tmp_path):
    path = data["a"][1][0]["path"]
    manifest = tmp_path / "far.json"
    manifest.write_text(json.dumps({"audio_filepath": path, "offset": 100.0}) + "\n")
    with pytest.raises(Exception, match="beyond the end"):
        _pipe(batch_size=1, manifest_filepaths=[str(manifest)]).run()
