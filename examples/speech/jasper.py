"""Jasper/QuartzNet speech features, as NVIDIA's Jasper recipe builds them with DALI, fed to
PyTorch; saves a picture of a few log-mel spectrograms.

The pipeline is the recipe's training one (DeepLearningExamples,
``PyTorch/SpeechRecognition/Jasper/common/dali/pipeline.py``):

1. ``readers.nemo_asr`` reads a NeMo manifest (JSON lines: ``audio_filepath``, ``duration``,
   ``text``) and decodes each clip to mono float at 16 kHz; ``read_idxs=True`` gives each
   sample's manifest line, so the transcripts stay in Python (they are ragged byte strings,
   which a batch of tensors cannot hold);
2. ``nonsilent_region`` (-60 dB below the clip's loudest 2048-sample window) and ``slice``
   trim the leading and trailing silence (``--no-trim`` keeps it);
3. dither: Gaussian noise of ``--dither`` (1e-5) times ``random.normal``, so that digital
   silence does not give ``log(0)``;
4. ``preemphasis_filter`` (0.97) lifts the high frequencies;
5. ``spectrogram``: power spectrum, ``nfft`` 512, Hann window of 20 ms (320 samples), step
   10 ms (160 samples): ``(257, frames)``;
6. ``mel_filter_bank``: 64 triangular mel filters (Slaney): ``(64, frames)``;
7. ``to_decibels`` with ``multiplier=ln 10``, ``reference=1``: the natural log of the energies
   (floored at ``ln 1e-20``), what Jasper calls "logfbank";
8. ``normalize`` over time (``axes=[1]``): zero mean and unit variance per mel band and clip
   (NeMo's ``normalize: per_feature``);
9. ``pad`` along time to a multiple of 16 frames (``align=16``; every clip of the batch is
   padded to the longest, then rounded up), what Jasper's strided convolutions want.

The number of frames before padding (``shape()`` of the log-mel spectrogram) comes out too, as
the model's sequence lengths. `DALIGenericIterator` (``reader_name`` and
``LastBatchPolicy.PARTIAL``: an epoch is the manifest, each clip once in a new order, the short
last batch as it is) turns
the outputs into ``torch.Tensor`` batches.

The clips are generated (`dali._testing.audio.write_clip`: a few harmonics and a little noise,
0.5-2 s at 16 kHz, with up to 0.25 s of exact silence at each end) with a NeMo manifest in a
temporary folder (``--data`` keeps them).

Run: ``python examples/speech/jasper.py --out jasper_mels.png`` (``--device gpu`` on a GPU:
the reader and the silence detection stay on the CPU, the audio moves to the GPU with
``.gpu()`` and slicing, dither and every spectral step run there, batches on ``cuda:0``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _show import save_grid
from dali import fn, pipeline_def, types
from dali._testing.audio import write_clip

SAMPLE_RATE = 16000
#: Jasper's features: 20 ms Hann windows every 10 ms, 512-point FFT, 64 mel bands.
WINDOW_SIZE, WINDOW_STRIDE, NFFT, NFILTER = 0.02, 0.01, 512, 64
PREEMPH, SILENCE_DB, PAD_ALIGN = 0.97, -60.0, 16


def make_manifest(root: str, n: int, seed: int = 0) -> tuple[str, list[dict]]:
    """Write ``n`` speech-length clips with silent ends under ``root`` and a NeMo manifest."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    words = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
    entries = []
    for i in range(n):
        frames = int(rng.integers(SAMPLE_RATE // 2, 2 * SAMPLE_RATE + 1))
        silence = int(rng.integers(0, SAMPLE_RATE // 4 + 1))
        path = write_clip(
            os.path.join(root, f"clip_{i:03d}.wav"),
            length=frames,
            rate=SAMPLE_RATE,
            seed=seed * 1000 + i,
            silence=silence,
        )
        text = " ".join(words[int(k)] for k in rng.integers(0, len(words), 1 + i % 3))
        entries.append(
            {"audio_filepath": str(path), "duration": frames / SAMPLE_RATE, "text": text}
        )
    manifest = os.path.join(root, "manifest.json")
    with open(manifest, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(e) + "\n" for e in entries)
    return manifest, entries


def jasper_features(
    fn,
    types,
    manifest: str,
    device: str = "cpu",
    trim: bool = True,
    dither: float = 1e-5,
    shuffle: bool = False,
):
    """The Jasper recipe's feature pipeline's graph; call it inside a pipeline definition.

    ``fn`` and ``types`` are parameters so that the benchmark builds the very same graph with
    NVIDIA DALI's modules. Returns ``(features, frames, index)``: the normalised log-mel
    spectrograms ``(64, T)`` padded to a multiple of 16 frames, the frames before padding and
    each sample's manifest line. ``shuffle``: a new permutation of the manifest every epoch
    (``shuffle_after_epoch``: each clip once per epoch, unlike ``random_shuffle``'s buffer). ``pad_last_batch``
    fills the last batch with copies of the epoch's last clip (which the iterator drops)
    instead of the next epoch's first clips, so that every epoch starts at its beginning.
    """
    audio, index = fn.readers.nemo_asr(
        manifest_filepaths=[manifest],
        sample_rate=SAMPLE_RATE,
        dtype=types.FLOAT,
        downmix=True,
        read_sample_rate=False,
        read_text=False,
        read_idxs=True,
        shuffle_after_epoch=shuffle,
        pad_last_batch=True,
        name="Reader",
    )
    if trim:
        # on the CPU in the recipe; the slice takes its (CPU) begin and length on either device
        begin, length = fn.nonsilent_region(audio, cutoff_db=SILENCE_DB)
    if device == "gpu":
        audio = audio.gpu()
    if trim:
        audio = fn.slice(audio, begin, length, axes=[0])
    if dither:
        audio = audio + fn.random.normal(audio, device=device) * dither
    audio = fn.preemphasis_filter(audio, preemph_coeff=PREEMPH)
    spec = fn.spectrogram(
        audio,
        nfft=NFFT,
        window_length=round(WINDOW_SIZE * SAMPLE_RATE),
        window_step=round(WINDOW_STRIDE * SAMPLE_RATE),
    )
    mel = fn.mel_filter_bank(spec, sample_rate=SAMPLE_RATE, nfilter=NFILTER)
    logmel = fn.to_decibels(mel, multiplier=math.log(10), reference=1.0, cutoff_db=math.log(1e-20))
    frames = logmel.shape(device="cpu")
    features = fn.normalize(logmel, axes=[1])
    features = fn.pad(features, axes=[1], fill_value=0, align=PAD_ALIGN)
    return features, frames, index


def picture(features: np.ndarray, frames: np.ndarray, path: str, scale: int = 3) -> None:
    """Save log-mel spectrograms (N, 64, T) one under another, low bands at the bottom; the
    padding past each clip's frames stays black (the darkest colour of the ramp is not)."""
    lo, hi = -2.5, 2.5  # the features are normalised: ±2.5 standard deviations
    # black -> purple -> orange -> pale yellow, a magma-like ramp
    stops = np.array([[20, 10, 40], [120, 28, 109], [237, 105, 37], [252, 253, 191]], float)
    images = []
    for f, n in zip(features, frames):
        level = np.clip((f[::-1, :n] - lo) / (hi - lo), 0, 1) * (len(stops) - 1)
        k = np.minimum(level.astype(int), len(stops) - 2)
        t = (level - k)[..., None]
        rgb = np.zeros((*f.shape, 3), np.uint8)
        rgb[:, :n] = np.round(stops[k] * (1 - t) + stops[k + 1] * t)
        images.append(np.repeat(np.repeat(rgb, scale, axis=0), scale, axis=1))
    save_grid(np.stack(images), path, columns=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="jasper_mels.png")
    parser.add_argument("--data", default=None, help="where clips go (default: a temp folder)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--clips", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--dither", type=float, default=1e-5)
    parser.add_argument("--no-trim", action="store_true", help="keep the silent ends")
    parser.add_argument("--show", type=int, default=4, help="spectrograms in the picture")
    args = parser.parse_args()
    # here, not at the top: benchmarks/speech_pipeline.py imports the graph without torch
    from dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

    data = args.data or tempfile.mkdtemp(prefix="jasper-clips-")
    manifest, entries = make_manifest(data, args.clips)
    seconds = sum(e["duration"] for e in entries)
    print(f"{len(entries)} clips, {seconds:.1f} s of audio at {SAMPLE_RATE} Hz in {data}")

    @pipeline_def(
        batch_size=args.batch_size,
        num_threads=args.threads,
        device_id=0 if args.device == "gpu" else None,
        seed=7,
    )
    def pipe():
        return jasper_features(
            fn, types, manifest, args.device, not args.no_trim, args.dither, shuffle=True
        )

    loader = DALIGenericIterator(
        [pipe()],
        ["audio", "frames", "index"],
        reader_name="Reader",
        last_batch_policy=LastBatchPolicy.PARTIAL,
        auto_reset=True,
    )
    first = None
    for epoch in range(args.epochs):
        seen: list[int] = []
        for step, (batch,) in enumerate(loader):
            audio, lengths = batch["audio"], batch["frames"][:, 1]
            index = batch["index"].view(-1)
            seen += index.tolist()
            print(
                f"epoch {epoch} step {step}: audio {tuple(audio.shape)} {audio.dtype} on "
                f"{audio.device}, frames {lengths.tolist()}"
            )
            assert audio.shape[2] % PAD_ALIGN == 0 and audio.shape[2] >= int(lengths.max())
            if first is None:
                first = (audio.cpu().numpy(), lengths.cpu().numpy(), index.cpu().numpy())
        every = sorted(seen) == list(range(len(entries)))
        print(f"epoch {epoch}: {len(seen)} clips, every clip once: {every}")

    assert first is not None
    features, lengths, index = first
    for i in range(min(args.show, len(index))):
        entry = entries[int(index[i])]
        full = math.floor(entry["duration"] * SAMPLE_RATE)
        print(
            f"clip {int(index[i])} ({entry['text']!r}): {full} samples, {int(lengths[i])} frames; "
            f"band means {np.abs(features[i, :, : lengths[i]].mean(axis=1)).max():.1e}, "
            f"stds {features[i, :, : lengths[i]].std(axis=1).mean():.3f}"
        )
    picture(features[: args.show], lengths[: args.show], args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
