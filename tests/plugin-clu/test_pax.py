"""dali.plugin.jax.clu.pax: the Pax input adapter, standalone and mixed into a stand-in of
praxis' ``BaseInput`` (praxis is not installed; the stand-in is a dataclass with its fields and
``__post_init__``, as praxis' fiddle-configured inputs are).

Images: the 21-image tree of `make_image_tree` read through its ``list.txt`` (label ``i`` is
image ``i``); batches of 8, so an epoch is 3 batches (FILL).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("clu")

from dali import fn
from dali.plugin.jax.clu.pax import DaliInput, DaliInputMixin
from dali.plugin.jax.clu.t5x import DaliDatasetConfig, T5xIterator

N = 21


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("PIL")
    from dali._testing.images import make_image_tree

    root = tmp_path_factory.mktemp("pax_images")
    make_image_tree(root)
    return str(root)


def images(file_root, shard_id=0, num_shards=1, pad_last_batch=False):
    jpegs, labels = fn.readers.file(
        file_root=file_root,
        file_list=os.path.join(file_root, "list.txt"),
        name="reader",
        shard_id=shard_id,
        num_shards=num_shards,
        pad_last_batch=pad_last_batch,
    )
    return fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8), labels


def config(image_dir: str, **pipeline_kwargs: Any) -> DaliDatasetConfig:
    return DaliDatasetConfig(
        images,
        ["inputs", "labels"],
        batch_size=8,
        reader_name="reader",
        pipeline_kwargs={"file_root": image_dir, **pipeline_kwargs},
    )


def labels(batch: dict[str, Any]) -> list[int]:
    return np.asarray(batch["labels"]).ravel().tolist()


def test_training_get_next_goes_on_through_epochs(image_dir):
    pax_input = DaliInput(config(image_dir), is_training=True)
    assert isinstance(pax_input.dali_iterator, T5xIterator)
    assert pax_input.batch_size == 8 and pax_input.num_infeed_hosts == 1
    got = []
    for _ in range(8):  # 64 samples, three epoch ends: get_next never raises
        batch = pax_input.get_next()
        assert type(batch["inputs"]) is np.ndarray and batch["inputs"].shape == (8, 8, 8, 3)
        got += labels(batch)
    assert got == [k % N for k in range(64)]


def test_peek_returns_what_get_next_returns(image_dir):
    pax_input = DaliInput(config(image_dir))
    for _ in range(4):  # across the end of the first epoch (after 3 batches)
        peeked = pax_input.peek()
        assert pax_input.peek() is peeked
        assert pax_input.get_next() is peeked


def test_reset_resets_in_place(image_dir):
    """DALI's Pax example stores what DALIGenericIterator.reset() returns (None)."""
    pax_input = DaliInput(config(image_dir))
    iterator = pax_input.dali_iterator
    for _ in range(3):
        pax_input.get_next()
    pax_input.reset()  # at the end of the epoch: the next one
    assert pax_input.dali_iterator is iterator
    assert labels(pax_input.get_next()) == [(24 + k) % N for k in range(8)]


def test_eval_with_reset_for_eval_reads_one_epoch_then_starts_again(image_dir):
    pax_input = DaliInput(
        config(image_dir, pad_last_batch=True), is_training=False, reset_for_eval=True
    )
    for _ in range(2):  # what paxml's eval loop does: get_next until StopIteration, reset
        got, real = [], 0
        while True:
            try:
                batch = pax_input.get_next()
            except StopIteration:
                pax_input.reset()
                break
            got.append(labels(batch))
            real += int(pax_input.dali_iterator.is_nonpadding.sum())
        assert got == [list(range(8)), list(range(8, 16)), [16, 17, 18, 19, 20, 20, 20, 20]]
        assert real == N


def test_eval_without_reset_for_eval_never_ends(image_dir):
    pax_input = DaliInput(config(image_dir), is_training=False)
    assert [labels(pax_input.get_next())[0] for _ in range(5)] == [0, 8, 16, 3, 11]


def test_hosts_share_the_data(image_dir):
    """Pax's batch_size is per process; each host reads its shard."""
    inputs = [
        DaliInput(config(image_dir), batch_size=4, num_infeed_hosts=2, infeed_host_index=k)
        for k in range(2)
    ]
    assert [x.dali_iterator.dataset_recipe.config.batch_size for x in inputs] == [8, 8]
    assert [labels(x.get_next()) for x in inputs] == [[0, 1, 2, 3], [10, 11, 12, 13]]
    assert inputs[1].batch_size == 4
    # Pax leaves num_infeed_hosts 0 until the trainer sets it: one host
    assert DaliInput(config(image_dir), num_infeed_hosts=0).num_infeed_hosts == 1


def test_input_random_seed_seeds_the_pipelines(image_dir):
    def noisy():
        return (fn.random.uniform(range=(0.0, 1.0), shape=(3,)),)

    cfg = DaliDatasetConfig(noisy, ["noise"], batch_size=2)
    runs = [DaliInput(cfg, input_random_seed=7).get_next()["noise"] for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    other = DaliInput(cfg, input_random_seed=8).get_next()["noise"]
    assert not np.array_equal(runs[0], other)
    # a seed in the config wins
    pinned = DaliDatasetConfig(noisy, ["noise"], batch_size=2, seed=7)
    np.testing.assert_array_equal(
        DaliInput(pinned, input_random_seed=8).get_next()["noise"], runs[0]
    )


def test_start_dali_errors():
    with pytest.raises(TypeError, match="DaliDatasetConfig"):
        DaliInput({"batch_size": 8})  # type: ignore[arg-type]

    class NotStarted(DaliInputMixin):
        pass

    with pytest.raises(RuntimeError, match="start_dali"):
        NotStarted().get_next()


# -- with praxis: the mixin in a BaseInput subclass -------------------------------------------


@dataclasses.dataclass
class BaseInput:
    """A stand-in of ``praxis.base_input.BaseInput``: its fields, ``get_next`` and ``reset``."""

    batch_size: int | None = None
    num_infeed_hosts: int = 0
    infeed_host_index: int = 0
    input_random_seed: int | None = None
    reset_for_eval: bool = False
    eval_loop_num_batches: int = 1
    is_training: bool = False

    def __post_init__(self) -> None:
        if self.num_infeed_hosts == 0:
            self.num_infeed_hosts = 1

    def get_next(self) -> Any:
        raise NotImplementedError

    def reset(self) -> None:
        pass


@dataclasses.dataclass
class ImageInput(DaliInputMixin, BaseInput):
    """What the pax module's docstring tells a praxis user to write."""

    dali_config: DaliDatasetConfig | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.start_dali(
            self.dali_config,
            batch_size=self.batch_size,
            num_infeed_hosts=self.num_infeed_hosts,
            infeed_host_index=self.infeed_host_index,
            is_training=self.is_training,
            reset_for_eval=self.reset_for_eval,
            input_random_seed=self.input_random_seed,
        )


def test_mixin_in_a_praxis_style_input(image_dir):
    # the mixin adds no dataclass fields of its own
    assert [f.name for f in dataclasses.fields(ImageInput)] == [
        *(f.name for f in dataclasses.fields(BaseInput)),
        "dali_config",
    ]
    train = ImageInput(batch_size=4, is_training=True, dali_config=config(image_dir))
    assert [labels(train.get_next()) for _ in range(2)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    evaluation = ImageInput(
        batch_size=8, reset_for_eval=True, dali_config=config(image_dir, pad_last_batch=True)
    )
    first = [labels(evaluation.get_next()) for _ in range(3)]
    with pytest.raises(StopIteration):
        evaluation.get_next()
    evaluation.reset()
    assert [labels(evaluation.get_next()) for _ in range(3)] == first
