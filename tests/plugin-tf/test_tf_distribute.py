"""tf.distribute: one pipeline per replica through ``distribute_datasets_from_function``, with
MirroredStrategy over the two logical CPU devices that conftest.py makes.

DALI's recipe places each replica's dataset on its device (``InputReplicationMode.PER_REPLICA``).
The default ``PER_WORKER`` mode feeds the replicas through TensorFlow's MultiDeviceIterator,
whose background thread keeps calling the dataset's ``py_function``: deleting it can deadlock
with the Python thread that deletes it (it holds the GIL that the background call waits for),
for every ``py_function`` dataset, ``from_generator`` ones too; it is not tested here.
"""

from __future__ import annotations

import pytest
import tensorflow as tf
from dali import fn, pipeline_def
from dali.plugin.tf import DALIDataset, dataset_distributed_compatible_tensorflow

N_FILES = 16
PER_REPLICA = 2


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    paths = []
    for i in range(N_FILES):
        path = root / f"f{i:02d}.bin"
        path.write_bytes(b"x")
        paths.append(str(path))
    return paths


@pytest.fixture
def strategy():
    """A new strategy per test: one remembers the input options of its last distribution."""
    cpus = tf.config.list_logical_devices("CPU")
    if len(cpus) < 2:
        pytest.skip("TensorFlow was initialised before conftest.py could split the CPU")
    return tf.distribute.MirroredStrategy([d.name for d in cpus[:2]])


def dataset_fn(files):
    """DALI's recipe: each input pipeline reads its own shard (``shard_id`` =
    ``input_pipeline_id``), with the per-replica batch size."""

    def make(ctx: tf.distribute.InputContext):
        batch = ctx.get_per_replica_batch_size(PER_REPLICA * ctx.num_replicas_in_sync)

        @pipeline_def(batch_size=batch, num_threads=1, device_id=None)
        def pipe():
            _, labels = fn.readers.file(
                files=files,
                labels=list(range(N_FILES)),
                shard_id=ctx.input_pipeline_id,
                num_shards=ctx.num_input_pipelines,
                name="Reader",
            )
            return labels

        return DALIDataset(
            pipe(), output_dtypes=tf.int32, output_shapes=(batch,), batch_size=batch, device_id=None
        )

    return make


def test_versions_say_yes():
    assert dataset_distributed_compatible_tensorflow()


#: DALI's recipe: each replica's dataset on its device, fetched there.
DALI_RECIPE = tf.distribute.InputOptions(
    experimental_place_dataset_on_device=True,
    experimental_fetch_to_device=False,
    experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA,
)


def test_one_pipeline_per_replica(files, strategy):
    dist = strategy.distribute_datasets_from_function(dataset_fn(files), DALI_RECIPE)
    it = iter(dist)
    per_replica = [[], []]
    for _ in range(3):
        (labels,) = next(it)
        for k, t in enumerate(strategy.experimental_local_results(labels)):
            per_replica[k] += t.numpy().tolist()
    # replica k reads shard k: files [8k, 8k + 8)
    assert per_replica == [[0, 1, 2, 3, 4, 5], [8, 9, 10, 11, 12, 13]]


def test_a_distributed_training_step(files, strategy):
    dist = strategy.distribute_datasets_from_function(dataset_fn(files), DALI_RECIPE)

    with strategy.scope():
        weight = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)

    @tf.function
    def train_step(iterator):
        def step(labels):
            update = tf.reduce_sum(tf.cast(labels, tf.float32))
            weight.assign_add(update)
            return update

        per_replica = strategy.run(step, args=next(iterator))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    it = iter(dist)
    totals = [float(train_step(it)) for _ in range(2)]
    assert totals == [0 + 1 + 8 + 9, 2 + 3 + 10 + 11]
    assert float(weight.read_value()) == sum(totals)  # the replicas' updates, summed
