"""Iterator checkpoints: exact round trips over many configurations, and elastic restores.

The exact round trip (`dali.testing.check_save_restore`): an iterator restored
from ``checkpoints()`` gives the same next results (batches, StopIteration, ``len()``) as the
one that saved them. Here it runs at 20 deterministic random cut points spanning several
epochs for every last-batch policy, ``auto_reset`` mode and reader configuration (sharding,
padding, sticking, both kinds of shuffling), with prefetch queues of depth 1 and 4 on either
side of the restore; then for the legacy ``size=`` iterator and a ``size=-1`` iterator whose
external source ends its epochs.

The elastic restore (the rule in `dali.plugin._iterator_core`'s module docstring):
checkpoints of an iterator with ``S`` shards and batch ``B`` restored into ``S'`` shards or
batch ``B'``. The rest of the interrupted epoch — what no old shard has read, in the old
shards' order — is split into ``S'`` near-equal contiguous pieces (the *remainder epoch*),
then every epoch follows the new layout, as a fresh iterator of it would. These tests derive
the expected pieces from an uninterrupted run of the old layout and check them exactly, for a
cut at every step of the first two epochs.

The dataset is 21 files labelled 0..20, so that every label names its sample.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import dali
import numpy as np
import pytest
from dali import fn
from dali.plugin.base_iterator import LastBatchPolicy
from dali.testing import ResetAfterStop
from iterator_utils import (
    STOP,
    NumpyIterator,
    check_save_restore,
    labels_of,
    make_files,
    reader_pipeline,
    step,
)

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL
POLICIES = [FILL, DROP, PARTIAL]
R = "Reader"
N = 21
SEED = 1234

#: Cut points per round trip, drawn from ``range(CUT_RANGE)``, compared over ``N_AFTER`` steps.
CUTS, CUT_RANGE, N_AFTER = 20, 24, 6
#: ``prefetch_queue_depth`` of the saved and of the restored pipelines, cycled over the cuts.
DEPTHS = [(1, 1), (4, 4), (1, 4), (4, 1)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """21 tiny files; the reader labels them 0..20."""
    return make_files(tmp_path_factory.mktemp("checkpoint_files"), N)


# -- making iterators ---------------------------------------------------------------------------


class Layout(NamedTuple):
    """How a job reads the dataset: ``shards`` pipelines of batch ``batch``."""

    shards: int
    batch: int

    def __str__(self) -> str:
        return f"{self.shards}x{self.batch}"


def make_iterator(
    files: Sequence[str],
    layout: Layout,
    policy: LastBatchPolicy = PARTIAL,
    *,
    checkpoints: Sequence[bytes] | None = None,
    auto_reset: bool = False,
    prefetch: int = 2,
    values: bool = False,
    **reader: Any,
) -> NumpyIterator:
    """An iterator over ``layout.shards`` pipelines reading ``files`` with ``fn.readers.file``.

    Pipeline ``i`` is restored from ``checkpoints[i % len(checkpoints)]`` (any checkpoint of
    one step of one job restores any shard). Outputs ``label`` and, with ``values``, ``value``
    (``fn.random.uniform()``); ``reader`` goes to the reader (``pad_last_batch=True``, ...).
    """
    pipes = []
    for i in range(layout.shards):
        pipe = dali.Pipeline(
            batch_size=layout.batch,
            num_threads=1,
            device_id=None,
            seed=SEED,
            prefetch_queue_depth=prefetch,
            enable_checkpointing=True,
            checkpoint=None if checkpoints is None else checkpoints[i % len(checkpoints)],
        )
        with pipe:
            _, labels = fn.readers.file(
                files=list(files),
                labels=list(range(len(files))),
                shard_id=i,
                num_shards=layout.shards,
                name=R,
                **reader,
            )
            pipe.set_outputs(*([labels, fn.random.uniform()] if values else [labels]))
        pipes.append(pipe)
    names = ["label", "value"] if values else ["label"]
    return NumpyIterator(
        pipes, names, reader_name=R, last_batch_policy=policy, auto_reset=auto_reset
    )


def cut_points(tag: str) -> list[int]:
    """``CUTS`` distinct cut points from ``range(CUT_RANGE)``, fixed for a test's ``tag``."""
    return sorted(random.Random(tag).sample(range(CUT_RANGE), CUTS))


def check_cut_coverage(make: Callable[..., Any], cuts: Sequence[int]) -> None:
    """The cuts span 4+ epochs and include cuts just before and just after a StopIteration
    (an uninterrupted run of ``make()`` tells where its epochs end)."""
    it = make()
    trace = [step(it) for _ in range(max(cuts) + 1)]
    epoch_at = [sum(r is STOP for r in trace[:k]) for k in cuts]
    assert epoch_at[-1] >= 3, f"the cuts {cuts} span epochs {sorted(set(epoch_at))} only"
    assert any(k > 0 and trace[k - 1] is STOP for k in cuts), "no cut just after an epoch end"
    assert any(trace[k] is STOP for k in cuts), "no cut just before an epoch end"


def round_trips(make: Callable[..., Any], tag: str) -> None:
    """`check_save_restore` of ``make(prefetch=d, checkpoints=...)`` at the cuts of ``tag``,
    the saved and the restored pipelines with the queue depths of `DEPTHS` in turn."""
    cuts = cut_points(tag)
    check_cut_coverage(lambda: make(prefetch=2), cuts)
    for i, n_before in enumerate(cuts):
        saved_depth, restored_depth = DEPTHS[i % len(DEPTHS)]

        def factory(checkpoints=None, saved_depth=saved_depth, restored_depth=restored_depth):
            if checkpoints is None:
                return make(prefetch=saved_depth)
            return make(prefetch=restored_depth, checkpoints=checkpoints)

        try:
            check_save_restore(factory, n_before, N_AFTER)
        except AssertionError as e:
            raise AssertionError(
                f"cut after {n_before} steps, prefetch {saved_depth} -> {restored_depth}: {e}"
            ) from None


# -- 1. exact round trips -----------------------------------------------------------------------

READERS = {
    "2 shards": (2, {}),
    "pad_last_batch": (2, {"pad_last_batch": True}),
    "stick_to_shard": (2, {"stick_to_shard": True}),
    "shuffle_after_epoch": (2, {"shuffle_after_epoch": True}),
    "random_shuffle": (2, {"random_shuffle": True, "initial_fill": 8}),
    "3 shards": (3, {}),
}


@pytest.mark.parametrize("auto_reset", [True, False])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
@pytest.mark.parametrize("config", list(READERS))
def test_round_trip(files, config, policy, auto_reset):
    shards, reader = READERS[config]

    def make(prefetch, checkpoints=None):
        it = make_iterator(
            files,
            Layout(shards, 4),
            policy,
            checkpoints=checkpoints,
            auto_reset=auto_reset,
            prefetch=prefetch,
            **reader,
        )
        return it if auto_reset else ResetAfterStop(it)

    round_trips(make, f"{config}/{policy.name}/{auto_reset}")


@pytest.mark.filterwarnings("ignore:Please set `reader_name`")
@pytest.mark.parametrize("auto_reset", [True, False])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_round_trip_legacy_size(files, policy, auto_reset):
    # two shard pipelines counted together: 21 samples per epoch, 8 per step
    def make(prefetch, checkpoints=None):
        pipes = [
            reader_pipeline(
                files,
                4,
                shard_id=i,
                num_shards=2,
                prefetch_queue_depth=prefetch,
                enable_checkpointing=True,
                checkpoint=None if checkpoints is None else checkpoints[i],
            )
            for i in range(2)
        ]
        it = NumpyIterator(
            pipes, ["label"], size=N, last_batch_policy=policy, auto_reset=auto_reset
        )
        return it if auto_reset else ResetAfterStop(it)

    round_trips(make, f"legacy/{policy.name}/{auto_reset}")


def epoch_source(info):
    """A batch source (``batch_info=True``) whose epoch ``e`` has ``2 + e % 3`` batches, each
    sample valued ``100·e + iteration``; StopIteration ends the epoch."""
    if info.iteration >= 2 + info.epoch_idx % 3:
        raise StopIteration
    return np.full((2, 1), 100 * info.epoch_idx + info.iteration, dtype=np.int32)


@pytest.mark.parametrize("auto_reset", [True, False])
def test_round_trip_external_source_epochs(auto_reset):
    def make(prefetch, checkpoints=None):
        pipe = dali.Pipeline(
            batch_size=2,
            num_threads=1,
            device_id=None,
            seed=SEED,
            prefetch_queue_depth=prefetch,
            enable_checkpointing=True,
            checkpoint=None if checkpoints is None else checkpoints[0],
        )
        with pipe:
            pipe.set_outputs(
                fn.external_source(epoch_source, batch=True, batch_info=True),
                fn.random.uniform(),
            )
        it = NumpyIterator(pipe, ["label", "value"], auto_reset=auto_reset)
        return it if auto_reset else ResetAfterStop(it)

    # the source shapes the epochs as it says (so the round trips cross those ends)
    it = make(2)
    firsts = [labels_of(b)[0][0] if b is not STOP else b for b in (step(it) for _ in range(8))]
    assert firsts == [0, 1, STOP, 100, 101, 102, STOP, 200]
    round_trips(make, f"external_source/{auto_reset}")


# -- 2. elastic restore: running and checking ---------------------------------------------------


def run(it: Any, *, steps: int | None = None, stops: int | None = None, reset: bool = True):
    """Step ``it`` ``steps`` times, or until ``stops`` StopIterations; ``reset()`` after each
    StopIteration (unless the iterator resets itself: ``reset=False``).

    Returns:
        ``(results, lens)``: per step `STOP` or the batch's labels per pipeline (with
        ``(label, value)`` pairs when the iterator has a ``value`` output), and ``len(it)``
        before each step.
    """
    results: list[Any] = []
    lens: list[int] = []
    while (steps is None or len(results) < steps) and (
        stops is None or sum(r is STOP for r in results) < stops
    ):
        lens.append(len(it))
        batch = step(it)
        if batch is STOP:
            if reset:
                it.reset()
            results.append(STOP)
        elif "value" in batch[0]:
            results.append(
                [list(zip(b["label"].ravel().tolist(), b["value"].ravel().tolist())) for b in batch]
            )
        else:
            results.append(labels_of(batch))
    return results, lens


def split_epochs(results: Sequence[Any]) -> list[list[Any]]:
    """The batches of every epoch (the last one possibly unfinished)."""
    epochs: list[list[Any]] = [[]]
    for r in results:
        if r is STOP:
            epochs.append([])
        else:
            epochs[-1].append(r)
    return epochs


def columns(batches: Sequence[Any], shards: int) -> list[list[Any]]:
    """Every pipeline's samples over ``batches``, in order."""
    cols: list[list[Any]] = [[] for _ in range(shards)]
    for batch in batches:
        assert len(batch) == shards
        for col, samples in zip(cols, batch):
            col.extend(samples)
    return cols


def flat(cols: Sequence[Sequence[Any]]) -> list[Any]:
    return [x for col in cols for x in col]


class Epochs(NamedTuple):
    """An uninterrupted run, epoch by epoch: every pipeline's samples and ``len()``."""

    cols: list[list[list[Any]]]
    lens: list[int]


def uninterrupted(
    files: Sequence[str], layout: Layout, policy: LastBatchPolicy, n_epochs: int, **kw: Any
) -> Epochs:
    it = make_iterator(files, layout, policy, **kw)
    results, lens = run(it, stops=n_epochs)
    # len() at the first step of every epoch
    firsts = [0, *[i + 1 for i, r in enumerate(results) if r is STOP][:-1]]
    return Epochs(
        [columns(e, layout.shards) for e in split_epochs(results)[:n_epochs]],
        [lens[i] for i in firsts],
    )


def aligned(
    files: Sequence[str], layout: Layout, policy: LastBatchPolicy, n_epochs: int, **kw: Any
) -> Epochs:
    """The epochs of ``layout`` as rule 2 starts them after an elastic restore: each at the
    start of its shard visit. A fresh iterator's, except for DROP, whose epochs may lag behind
    the visits (`test_elastic_drop_starts_the_next_epoch_at_its_visit`): there, every
    pipeline's whole batches of the smallest shard of each visit."""
    if policy is not DROP:
        return uninterrupted(files, layout, policy, n_epochs, **kw)
    fresh = uninterrupted(files, layout, DROP, n_epochs, **kw)
    visits = uninterrupted(files, layout, PARTIAL, n_epochs, **kw)
    whole = len(files) // layout.shards // layout.batch * layout.batch
    # epoch 0 is a fresh iterator's in any case (a restore to the start of the data)
    return Epochs(
        [fresh.cols[0]] + [[col[:whole] for col in cols] for cols in visits.cols[1:]],
        [whole // layout.batch] * n_epochs,
    )


def remainder_expected(
    unread: Sequence[Any], layout: Layout, policy: LastBatchPolicy
) -> tuple[list[list[Any]], int]:
    """What the new shards deliver of the unread rest of an epoch, and the remainder epoch's
    ``len()``: near-equal contiguous pieces, one per shard, padded with the piece's last
    sample (or, for an empty piece, the one before it) to whole batches of the largest piece;
    FILL returns the padding, PARTIAL cuts it, DROP returns the whole batches of the smallest
    piece."""
    pieces, pads = [], []
    total, parts = len(unread), layout.shards
    for j in range(parts):
        begin, end = j * total // parts, (j + 1) * total // parts  # as shards split a dataset
        pieces.append(list(unread[begin:end]))
        pads.append(unread[max(end - 1, 0)])
    assert max(map(len, pieces)) - min(map(len, pieces)) <= 1
    b = layout.batch
    if policy is DROP:
        batches = min(len(p) for p in pieces) // b
        return [p[: batches * b] for p in pieces], batches
    batches = -(-max(len(p) for p in pieces) // b)
    if policy is PARTIAL:
        return pieces, batches
    return [p + [pad] * (batches * b - len(p)) for p, pad in zip(pieces, pads)], batches


def check_elastic_cut(
    *,
    before: Sequence[Any],
    old_next: Any,
    old_epoch: Sequence[Sequence[Any]],
    earlier: Sequence[Any],
    epoch: int,
    restored: Any,
    layout: Layout,
    policy: LastBatchPolicy,
    fresh: Epochs,
    later: int = 2,
    auto_reset: bool = False,
) -> tuple[list[Any], list[int]]:
    """Check one elastic restore; returns the restored run.

    Args:
        before: The old iterator's results in the interrupted epoch, up to the cut.
        old_next: The old iterator's next result after the cut (`STOP`: the epoch was over).
        old_epoch: Every old pipeline's samples of the interrupted epoch, uninterrupted
            (real samples only: a PARTIAL run with padding).
        earlier: Samples of the interrupted epoch delivered before the old iterator started
            (by the iterator it was restored from), for the exactly-once check.
        epoch: The interrupted epoch.
        restored: The new iterator, restored from the checkpoints taken at the cut.
        layout, policy: The new iterator's.
        fresh: An uninterrupted run of the new layout, ``epoch + later + 1`` epochs at least.
        later: The epochs after the interrupted one to compare with ``fresh``.
        auto_reset: Whether ``restored`` resets itself.
    """
    first_len = len(restored)
    results, lens = run(restored, stops=later + 1, reset=not auto_reset)
    after = split_epochs(results)
    assert len(after) == later + 2 and after[-1] == [], results
    old_shards = len(old_epoch)
    got = columns(after[0], layout.shards)
    delivered = columns(before, old_shards)
    unread = []
    for i in range(old_shards):
        n = len(delivered[i])
        if policy is not FILL or old_next is not STOP:  # (FILL returns the padding too)
            assert delivered[i] == old_epoch[i][:n], f"old pipeline {i}: not its stream"
        unread += old_epoch[i][n:]
    if old_next is STOP:
        # rule 3: a checkpoint after an epoch's last batch restores to its StopIteration first
        assert results[0] is STOP, f"first result {results[0]}, the saved one's STOP"
    elif not before and not earlier:
        # a cut at the start of an epoch: the epoch is the new layout's
        assert results[0] is not STOP, "STOP first, the saved iterator's next is a batch"
        assert got == fresh.cols[epoch], "an epoch restored at its start"
        assert first_len == fresh.lens[epoch]
    else:
        want, length = remainder_expected(unread, layout, policy)
        assert first_len == length, f"len() of the remainder epoch: {first_len} != {length}"
        # (DROP: no batch at all when the smallest piece is shorter than a batch)
        assert len(after[0]) == length
        if policy is not PARTIAL:
            # no sample of the interrupted epoch twice (FILL's copies of a piece's last sample
            # are padding)
            real = flat(
                g[: len(p)] for g, p in zip(got, remainder_expected(unread, layout, PARTIAL)[0])
            )
            samples = [*earlier, *flat(delivered), *real]
            assert len(set(samples)) == len(samples), "a sample twice in the interrupted epoch"
        assert got == want, "the remainder epoch is not the unread rest, split in order"
    if policy is PARTIAL:
        samples = sorted([*earlier, *flat(delivered), *flat(got)])
        assert samples == list(range(N)), "the interrupted epoch is not the dataset once"
    # the later epochs follow the new layout, as a fresh iterator of it after as many resets
    # (DROP: the first one starts at its shard visit, `aligned`; DROP's lag may shift the
    # ones after it as it shifts a fresh iterator's, so only their samples are compared)
    stops = [i for i, r in enumerate(results) if r is STOP]
    for k in range(1, later + 1):
        cols = columns(after[k], layout.shards)
        if policy is PARTIAL:
            assert sorted(flat(cols)) == list(range(N)), f"epoch {epoch + k}: not the dataset once"
        if policy is DROP and (k > 1 or not before):
            # (restored at the start of an epoch: a fresh iterator's run, lag included)
            assert len(flat(cols)) == len(flat(fresh.cols[epoch + k])), f"epoch {epoch + k}"
        else:
            assert cols == fresh.cols[epoch + k], f"epoch {epoch + k}: not the new layout's"
        assert lens[stops[k - 1] + 1] == fresh.lens[epoch + k], f"len() of epoch {epoch + k}"
    return results, lens


def cut_run(files, layout: Layout, policy: LastBatchPolicy, n_epochs: int, **kw: Any):
    """One run of ``layout`` over ``n_epochs`` epochs and one step more, with the checkpoints
    taken before every step.

    Returns:
        ``(results, checkpoints)`` of the same length: ``checkpoints[k]`` was taken after
        ``k`` steps, ``results[k]`` is the step that followed it.
    """
    it = make_iterator(files, layout, policy, **kw)
    results: list[Any] = []
    cps: list[list[bytes]] = []
    while sum(r is STOP for r in results[:-1]) < n_epochs:
        cps.append(it.checkpoints())
        results += run(it, steps=1)[0]
    return results, cps


def check_elastic(
    files,
    old: Layout,
    new: Layout,
    policy: LastBatchPolicy,
    *,
    auto_reset: bool = False,
    **reader: Any,
) -> int:
    """Cut an ``old`` run at every step of its first 2 epochs, restore each cut into ``new``
    and check it (`check_elastic_cut`). Returns the number of cuts."""
    results, cps = cut_run(files, old, policy, 2, **reader)
    truth = uninterrupted(files, old, PARTIAL, 3, **reader)
    fresh = aligned(files, new, policy, 5, **reader)
    for k in range(len(results)):
        epoch = sum(r is STOP for r in results[:k])
        before = split_epochs(results[:k])[-1]
        restored = make_iterator(
            files, new, policy, checkpoints=cps[k], auto_reset=auto_reset, **reader
        )
        try:
            check_elastic_cut(
                before=before,
                old_next=results[k],
                old_epoch=truth.cols[epoch],
                earlier=[],
                epoch=epoch,
                restored=restored,
                layout=new,
                policy=policy,
                fresh=fresh,
                auto_reset=auto_reset,
            )
        except AssertionError as e:
            raise AssertionError(f"{old} -> {new}, cut after {k} steps: {e}") from None
    return len(results)


def transition_id(t: tuple[Layout, Layout]) -> str:
    return f"{t[0]}->{t[1]}"


#: (old layout, new layout): shards x batch
TRANSITIONS = [
    (Layout(1, 4), Layout(2, 4)),
    (Layout(2, 4), Layout(3, 4)),
    (Layout(4, 4), Layout(1, 4)),
    (Layout(2, 8), Layout(2, 6)),
    (Layout(3, 4), Layout(2, 5)),
]


# -- 2. elastic restore: the tests --------------------------------------------------------------


@pytest.mark.parametrize("auto_reset", [False, True])
@pytest.mark.parametrize("transition", TRANSITIONS, ids=transition_id)
def test_elastic_partial_delivers_every_sample_once(files, transition, auto_reset):
    old, new = transition
    cuts = check_elastic(files, old, new, PARTIAL, auto_reset=auto_reset, pad_last_batch=True)
    assert cuts >= 5


@pytest.mark.parametrize("transition", TRANSITIONS, ids=transition_id)
@pytest.mark.parametrize(
    "reader",
    [{"shuffle_after_epoch": True}, {"stick_to_shard": True}],
    ids=["shuffle_after_epoch", "stick_to_shard"],
)
def test_elastic_partial_with_shuffle_or_sticking(files, transition, reader):
    old, new = transition
    check_elastic(files, old, new, PARTIAL, pad_last_batch=True, **reader)


@pytest.mark.parametrize(
    ("transition", "policy"),
    [
        pytest.param(t, policy, id=f"{transition_id(t)}-{policy.name}")
        for t in TRANSITIONS
        for policy in [FILL, DROP]
    ],
)
def test_elastic_fill_and_drop(files, transition, policy):
    """No sample of the interrupted epoch twice (FILL's padding apart): the remainder epoch is
    the unread rest split in order, FILL padded, DROP cut to the smallest piece's batches."""
    old, new = transition
    check_elastic(files, old, new, policy, pad_last_batch=True)


def test_elastic_drop_empty_piece_then_the_next_epoch(files):
    # 1 shard x 2 -> 4 shards x 2, DROP: cut before the epoch's last whole batch [18, 19]; the
    # unread rest [18, 19, 20] makes pieces [], [18], [19], [20]: no whole batch, so STOP
    reader = {"pad_last_batch": True}
    old = make_iterator(files, Layout(1, 2), DROP, **reader)
    run(old, steps=9)
    restored = make_iterator(files, Layout(4, 2), DROP, checkpoints=old.checkpoints(), **reader)
    assert len(restored) == 0
    assert step(restored) is STOP
    restored.reset()
    fresh = uninterrupted(files, Layout(4, 2), DROP, 2, **reader)
    # epoch 1 of the new layout; got [[7, 8], [12, 13], [17, 18], [2, 3]] (its second batch)
    # and then [[9, 9], [14, 14], [19, 20], [4, 4]] (padding, under DROP)
    assert columns(split_epochs(run(restored, stops=1)[0])[0], 4) == fresh.cols[1]


def test_elastic_drop_end_of_epoch_restores_to_stop_first(files):
    # 4 shards x 4, DROP: one batch per epoch (shards of 5 or 6); the second is dropped
    reader = {"pad_last_batch": True}
    old = make_iterator(files, Layout(4, 4), DROP, **reader)
    run(old, steps=1)
    cps = old.checkpoints()
    assert step(old) is STOP
    restored = make_iterator(files, Layout(1, 4), DROP, checkpoints=cps, **reader)
    # got [[4, 9, 14, 19]]: the samples the saved epoch dropped
    assert step(restored) is STOP


def test_elastic_drop_starts_the_next_epoch_at_its_visit(files):
    # 2 shards x 5, DROP with padding: epoch size 10, shard visits of 15 (11 padded to 3 whole
    # batches). DALI's iterator never reads the third batch, so its epoch 1 lags: it starts
    # with the padding of epoch 0. Rule 2 starts the epoch after an elastic restore at its
    # visit instead (the whole batches of the shard it reads), which DROP's lag never does.
    reader = {"pad_last_batch": True}
    fresh = uninterrupted(files, Layout(2, 5), DROP, 2, **reader)
    assert fresh.cols[1] == [[9, 9, 9, 9, 9, *range(10, 15)], [20] * 5 + [0, 1, 2, 3, 4]]
    old = make_iterator(files, Layout(2, 4), DROP, **reader)
    run(old, steps=1)
    restored = make_iterator(files, Layout(2, 5), DROP, checkpoints=old.checkpoints(), **reader)
    results, _ = run(restored, stops=2)
    assert columns(split_epochs(results)[1], 2) == [[*range(10, 20)], [*range(10)]]


def test_elastic_drop_lag_of_the_old_layout(files):
    # the same lagging 2 x 5 DROP iterator, saved at the start of epoch 1 (nothing consumed):
    # its readers have not read sample 20's padding batch, so the restore takes sample 20 for
    # an unread rest of epoch 0 and gives an empty extra epoch
    reader = {"pad_last_batch": True}
    old = make_iterator(files, Layout(2, 5), DROP, **reader)
    results, _ = run(old, stops=1)
    assert results[-1] is STOP and len(results) == 3
    restored = make_iterator(files, Layout(2, 4), DROP, checkpoints=old.checkpoints(), **reader)
    fresh = uninterrupted(files, Layout(2, 4), DROP, 2, **reader)
    # got STOP first, then [[14..17], [4..7]] and the padding [[18, 19, 20, 20], [8, 9, 9, 9]]
    assert columns(split_epochs(run(restored, stops=1)[0])[0], 2) == fresh.cols[1]


def test_elastic_shuffle_after_epoch_is_not_the_plain_order(files):
    # the shuffled elastic tests above would prove little if the order were the plain one
    plain = uninterrupted(files, Layout(2, 4), PARTIAL, 2, pad_last_batch=True)
    shuffled = uninterrupted(
        files, Layout(2, 4), PARTIAL, 2, pad_last_batch=True, shuffle_after_epoch=True
    )
    assert shuffled.cols[0] != plain.cols[0] and shuffled.cols[1] != shuffled.cols[0]


def test_elastic_end_of_epoch_restores_to_stop_first(files):
    # after the epoch's last batch, before its StopIteration: 2 shards x 4 -> 3 shards x 4
    old = make_iterator(files, Layout(2, 4), PARTIAL, pad_last_batch=True)
    results, _ = run(old, steps=3)
    assert STOP not in results
    cps = old.checkpoints()
    assert step(old) is STOP
    restored = make_iterator(files, Layout(3, 4), PARTIAL, checkpoints=cps, pad_last_batch=True)
    assert step(restored) is STOP
    assert step(restored) is STOP  # until reset(), as any iterator at the end of an epoch
    restored.reset()
    fresh = make_iterator(files, Layout(3, 4), PARTIAL, pad_last_batch=True)
    run(fresh, stops=1)
    assert len(restored) == len(fresh)
    assert run(restored, stops=1)[0] == run(fresh, stops=1)[0]


# -- 3. checkpoints of a remainder epoch ----------------------------------------------------


def elastic_checkpoints(
    files, old: Layout, k: int, policy: LastBatchPolicy = PARTIAL, **reader: Any
) -> list[bytes]:
    """The checkpoints of an ``old`` run after ``k`` steps."""
    it = make_iterator(files, old, policy, **reader)
    run(it, steps=k)
    return it.checkpoints()


@pytest.mark.parametrize(
    ("transition", "policy", "auto_reset"),
    [
        pytest.param(t, policy, auto_reset, id=f"{transition_id(t)}-{policy.name}-{auto_reset}")
        for t in [(Layout(2, 4), Layout(3, 2)), (Layout(4, 2), Layout(1, 4))]
        for policy in POLICIES
        for auto_reset in [True, False]
    ],
)
def test_remainder_epoch_round_trip(files, transition, policy, auto_reset):
    """A checkpoint taken during a remainder epoch restores exactly into the same layout."""
    old, new = transition
    # one batch into epoch 0 of the old layout: a remainder of several batches
    cps_old = elastic_checkpoints(files, old, 1, policy, pad_last_batch=True)

    def make(checkpoints=None):
        it = make_iterator(
            files,
            new,
            policy,
            checkpoints=cps_old if checkpoints is None else checkpoints,
            auto_reset=auto_reset,
            pad_last_batch=True,
        )
        return it if auto_reset else ResetAfterStop(it)

    length = len(make())
    assert length >= 2
    for n_before in range(length + 3):  # every step of the remainder epoch, and past it
        try:
            check_save_restore(make, n_before, 6)
        except AssertionError as e:
            raise AssertionError(f"cut after {n_before} steps: {e}") from None


def test_remainder_epoch_drop_auto_reset_len(files):
    # 4 shards x 2 -> 1 shard x 4, DROP: the remainder epoch's piece has 13 samples, so 3
    # batches (len 3) and a 4th one read and dropped; the new layout's epochs have len 5
    reader = {"pad_last_batch": True}
    cps_old = elastic_checkpoints(files, Layout(4, 2), 1, DROP, **reader)
    it = make_iterator(files, Layout(1, 4), DROP, checkpoints=cps_old, auto_reset=True, **reader)
    results, lens = run(it, steps=3, reset=False)
    assert lens == [3, 3, 3] and STOP not in results
    cps = it.checkpoints()
    assert len(it) == 3 and step(it) is STOP and len(it) == 5
    restored = make_iterator(files, Layout(1, 4), DROP, checkpoints=cps, auto_reset=True, **reader)
    # got 5: the constructor's prepared batch overflowed the epoch and auto-reset it already
    assert len(restored) == 3
    assert step(restored) is STOP


@pytest.mark.parametrize(
    ("middle", "third"),
    [(Layout(3, 3), Layout(1, 5)), (Layout(3, 3), Layout(4, 2)), (Layout(1, 4), Layout(2, 8))],
    ids=lambda x: str(x),
)
@pytest.mark.parametrize("k_old", [1, 2])
def test_remainder_epoch_elastic_into_a_third_layout(files, k_old, middle, third):
    """2 shards x 4, cut in epoch 0, restored into ``middle``; its remainder epoch, cut at
    every step, restored into ``third``: epoch 0 is still the dataset exactly once."""
    old = Layout(2, 4)
    reader = {"pad_last_batch": True}
    first, cps_old = cut_run(files, old, PARTIAL, 1, **reader)
    assert STOP not in first[:k_old]
    earlier = flat(columns(first[:k_old], old.shards))
    # the middle layout's uninterrupted remainder epoch: the old epoch for the third one
    mid_results, cps_mid = cut_run(files, middle, PARTIAL, 1, checkpoints=cps_old[k_old], **reader)
    assert mid_results[-2] is STOP and STOP not in mid_results[:-2]
    mid_epoch = columns(mid_results[:-2], middle.shards)
    fresh = uninterrupted(files, third, PARTIAL, 4, **reader)
    for k in range(len(mid_results)):  # every step of the remainder epoch, its end too
        before = split_epochs(mid_results[:k])[-1]
        epoch = sum(r is STOP for r in mid_results[:k])
        restored = make_iterator(files, third, PARTIAL, checkpoints=cps_mid[k], **reader)
        try:
            check_elastic_cut(
                before=before,
                old_next=mid_results[k],
                old_epoch=mid_epoch if epoch == 0 else [[]] * middle.shards,
                earlier=earlier if epoch == 0 else [],
                epoch=epoch,
                restored=restored,
                layout=third,
                policy=PARTIAL,
                fresh=fresh,
            )
        except AssertionError as e:
            raise AssertionError(f"cut after {k} steps of the remainder epoch: {e}") from None


# -- 4. random values do not depend on the layout -------------------------------------------------


def value_table(results: Sequence[Any]) -> dict[tuple[int, int], float]:
    """``(label, epoch) -> value`` of a PARTIAL run's results (each sample once per epoch)."""
    table: dict[tuple[int, int], float] = {}
    for e, batches in enumerate(split_epochs(results)):
        for batch in batches:
            for label, value in flat(batch):
                assert (label, e) not in table, f"sample {label} twice in epoch {e}"
                table[label, e] = value
    return table


def test_random_values_follow_the_sample_and_the_epoch(files):
    reader = {"pad_last_batch": True}
    old, new = Layout(2, 4), Layout(3, 4)
    whole = make_iterator(files, old, PARTIAL, values=True, **reader)
    expected = value_table(run(whole, stops=3)[0])
    assert len(expected) == 3 * N
    # new values every epoch
    assert all(expected[s, 0] != expected[s, 1] != expected[s, 2] for s in range(N))
    # a fresh run of the new layout draws the same values
    fresh = make_iterator(files, new, PARTIAL, values=True, **reader)
    assert value_table(run(fresh, stops=3)[0]) == expected

    saved = make_iterator(files, old, PARTIAL, values=True, **reader)
    before: list[Any] = []
    cuts = 0
    while sum(r is STOP for r in before) < 2:  # a cut at every step of the first 2 epochs
        restored = make_iterator(
            files, new, PARTIAL, checkpoints=saved.checkpoints(), values=True, **reader
        )
        after, _ = run(restored, stops=3 - sum(r is STOP for r in before))
        assert value_table([*before, *after]) == expected, f"cut after {len(before)} steps"
        before += run(saved, steps=1)[0]
        cuts += 1
    assert cuts >= 6


# -- 5. errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("transition", TRANSITIONS, ids=transition_id)
def test_random_shuffle_restores_elastically(files, transition):
    """A shuffle buffer never mixes epochs, so the rest of the interrupted epoch is known from
    the checkpoint: restored into another layout, the epoch still gives every sample once."""
    old, new = transition
    reader = {"random_shuffle": True, "initial_fill": 8, "pad_last_batch": True}
    results, cps = cut_run(files, old, PARTIAL, 2, **reader)
    for k in range(len(results)):
        before = split_epochs(results[:k])[-1]
        restored = make_iterator(files, new, PARTIAL, checkpoints=cps[k], **reader)
        epochs = split_epochs(run(restored, stops=2)[0])
        if results[k] is STOP:  # cut after the epoch's last batch: its StopIteration first
            assert epochs[0] == []
        interrupted = flat(columns(before, old.shards)) + flat(columns(epochs[0], new.shards))
        assert sorted(interrupted) == list(range(N)), f"{old} -> {new}, cut after {k} steps"
        assert sorted(flat(columns(epochs[1], new.shards))) == list(range(N))


@pytest.mark.parametrize("new", [Layout(3, 4), Layout(2, 3)], ids=str)
def test_elastic_restore_from_checkpoints_of_different_steps(files, new):
    it = make_iterator(files, Layout(2, 4), PARTIAL, pad_last_batch=True)
    next(it)
    cps1 = it.checkpoints()
    next(it)
    cps2 = it.checkpoints()
    with pytest.raises(RuntimeError, match="restored from checkpoints at different positions"):
        make_iterator(files, new, PARTIAL, checkpoints=[cps1[0], cps2[1]], pad_last_batch=True)


# -- 6. restoring into a running iterator (load_checkpoints, our extension) ------------------------------


@pytest.mark.parametrize("auto_reset", [True, False])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
@pytest.mark.parametrize("config", ["2 shards", "pad_last_batch", "random_shuffle"])
def test_restore_in_place(files, config, policy, auto_reset):
    shards, reader = READERS[config]

    def make(checkpoints=None):
        assert checkpoints is None  # in place: restored with it.load_checkpoints(cps)
        it = make_iterator(
            files, Layout(shards, 4), policy, auto_reset=auto_reset, prefetch=3, **reader
        )
        return it if auto_reset else ResetAfterStop(it)

    for n_before in cut_points(f"in place {config}")[:8]:
        try:
            check_save_restore(make, n_before, N_AFTER, in_place=(n_before * 5) % 9)
        except AssertionError as e:
            raise AssertionError(f"cut after {n_before} steps: {e}") from None


def test_restore_in_place_elastic(files):
    # 2 shards x 4 -> 3 shards x 4, PARTIAL with padding: the rest of the epoch, then epoch 1
    old = make_iterator(files, Layout(2, 4), PARTIAL, pad_last_batch=True)
    run(old, steps=2)
    new = make_iterator(files, Layout(3, 4), PARTIAL, pad_last_batch=True)
    run(new, steps=3)
    new.load_checkpoints(old.checkpoints())
    results, _ = run(new, stops=2)
    epochs = split_epochs(results)
    assert columns(epochs[0], 3) == [[8], [9, 18], [19, 20]]
    fresh = uninterrupted(files, Layout(3, 4), PARTIAL, 2, pad_last_batch=True)
    assert columns(epochs[1], 3) == fresh.cols[1]


def test_restore_in_place_needs_checkpointing(files):
    pipes = [dali.Pipeline(batch_size=4, num_threads=1, device_id=None) for _ in range(1)]
    with pipes[0]:
        pipes[0].set_outputs(fn.readers.file(files=list(files), name=R)[1])
    it = NumpyIterator(pipes, ["label"], reader_name=R)
    with pytest.raises(ValueError, match="checkpointing disabled"):
        it.load_checkpoints([b"{}"])
