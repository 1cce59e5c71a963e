"""T5X's data-source entry points over DALI graph functions.

T5X asks for its data through two gin-bound callables with fixed signatures, and, in the
DALI-patched T5X of NVIDIA's JAX-Toolbox, one more that turns their result into the training
iterator once the device mesh is known:

* `get_dataset` (``train.get_dataset_fn``): this host's share of the data as a
  `T5xIterator` of host-local NumPy batches, ``cfg.batch_size // num_shards`` samples each,
  one endless pass (T5X's ``repeat()``). Upstream T5X's ``utils.prepare_train_iter`` accepts
  it (it is a CLU ``DatasetIterator``) and shards the batches itself.
* `get_eval_datasets` (``train.train_eval_get_dataset_fn``): ``{cfg.name: iterator}`` whose
  iterator returns ``eval_steps`` batches (one epoch when None, padded and flagged by
  ``is_nonpadding``), the same batches at every evaluation.
* `create_sharded_iterator` (``train.prepare_train_iter_fn`` / ``prepare_eval_iter_fn``,
  rosetta's ``prepare_dali_iterator``): rebuilds either of them as one pipeline per batch shard
  of ``NamedSharding(partitioner.mesh, partitioner.data_partition_spec)`` returning global
  ``jax.Array`` batches, enables checkpointing when T5X saves or restores the data set, and
  restores the dataset checkpoint the restore config names. `sharded_iterator` is the same
  from a mesh and a partition spec, without T5X's objects.

The data set is a `DaliDatasetConfig`: the graph function (what `peekable_data_iterator`
decorates) and the iterator's arguments. Nothing here imports T5X, seqio or gin.

**Gin.** T5X's gin files use dynamic registration, under which nothing needs registering::

    from __gin__ import dynamic_registration
    import __main__ as train_script
    import dali.plugin.jax.clu.t5x
    import my_pipelines

    train_script.train:
      get_dataset_fn = @dali.plugin.jax.clu.t5x.get_dataset
      train_dataset_cfg = @train/dali.plugin.jax.clu.t5x.DaliDatasetConfig()
    train/dali.plugin.jax.clu.t5x.DaliDatasetConfig:
      pipeline = @my_pipelines.image_pipeline
      output_map = ["images", "labels"]
      batch_size = 128

For gin files without ``dynamic_registration``, `register_gin_configurables` registers the
same names (``gin.external_configurable``). ``examples/t5x/`` has complete gin files.

**Limits of T5X itself.** T5X's training-eval compiles from
``utils.get_zeros_batch_like_dataset``, which reads ``element_spec[k].dtype.as_numpy_dtype``,
a TensorFlow ``DType`` attribute that a CLU ``ArraySpec`` (NumPy dtype) lacks; the
JAX-Toolbox's ``run_dali_eval`` reads rosetta's own iterator internals. Evaluating with
`get_eval_datasets` therefore needs a trainer that takes a CLU ``element_spec``.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax.clu._t5x_iterator import T5xIterator
from dali.plugin.jax.iterator import data_iterator_for

__all__ = [
    "DaliDatasetConfig",
    "Recipe",
    "build_iterator",
    "create_sharded_iterator",
    "dataset_checkpoint",
    "get_dataset",
    "get_eval_datasets",
    "register_gin_configurables",
    "sharded_iterator",
]

_logger = logging.getLogger(__name__)

#: T5X's name of the per-host dataset checkpoint in a checkpoint directory
#: (``train_ds-{shard_id:03}-of-{num_shards:03}``, t5x/checkpoints.py).
_TRAIN_DS_PREFIX = "train_ds"

#: Pipeline arguments the factories set themselves (from the config or T5X's arguments).
_RESERVED = ("batch_size", "checkpoint", "enable_checkpointing", "num_shards", "shard_id")


@dataclasses.dataclass
class DaliDatasetConfig:
    """A data set for T5X or Pax: a DALI graph function and its iterator's arguments.

    Gin-configurable by reference, ``@dali.plugin.jax.clu.t5x.DaliDatasetConfig()`` (see the
    module docstring).

    Args:
        pipeline: The graph function, as `peekable_data_iterator` decorates it (not wrapped
            in ``pipeline_def``). To read a share of the data it takes ``shard_id`` and
            ``num_shards`` and passes them to its reader; needed with several hosts or a
            sharded iterator.
        output_map: One name per output: the keys of every batch (the model's features).
        batch_size: The global batch size (T5X's ``DatasetConfig.batch_size``); every host
            reads ``batch_size // num_shards`` samples a batch.
        reader_name: The reader that sets the epoch (shards, padding, ``is_nonpadding``).
        seed: The pipelines' seed; None: DALI's default (a different one every run).
        num_threads: CPU threads per pipeline; None: `data_iterator`'s default (4).
        pipeline_kwargs: More keyword arguments for the graph function and the `Pipeline`
            (``file_root``, ``prefetch_queue_depth``, ``device_id``, ...).
        last_batch_policy: ``LastBatchPolicy.FILL`` (default) or ``DROP``, or its name.
        prepare_first_batch: Run the pipelines once when the iterator is made. False suits
            iterators that `create_sharded_iterator` rebuilds anyway.
        name: The key of this data set in `get_eval_datasets`' mapping.

    Raises:
        ValueError: A bad batch size, output map or policy, or ``pipeline_kwargs`` setting what
            the factories set (``batch_size``, ``shard_id``, ...).
        TypeError: ``pipeline`` is not callable, or already wrapped in ``pipeline_def``.

    Example:
        >>> import dali.fn as fn
        >>> def images(file_root, shard_id=0, num_shards=1):
        ...     jpegs, labels = fn.readers.file(file_root=file_root, shard_id=shard_id,
        ...                                     num_shards=num_shards, name="reader")
        ...     return fn.resize(fn.decoders.image(jpegs), size=(64, 64)), labels
        >>> cfg = DaliDatasetConfig(images, ["images", "labels"], batch_size=32,
        ...                         reader_name="reader", pipeline_kwargs={"file_root": "/data"})
        >>> cfg.last_batch_policy
        <LastBatchPolicy.FILL: 0>
    """

    pipeline: Callable[..., Any]
    output_map: Sequence[str]
    batch_size: int
    reader_name: str | None = None
    seed: int | None = None
    num_threads: int | None = None
    pipeline_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    last_batch_policy: LastBatchPolicy | str = LastBatchPolicy.FILL
    prepare_first_batch: bool = True
    name: str = "validation"

    def __post_init__(self) -> None:
        if not callable(self.pipeline):
            raise TypeError(f"pipeline must be a graph function, got {self.pipeline!r}")
        if getattr(self.pipeline, "_is_pipeline_def", False):
            raise TypeError(
                "pipeline is the graph function itself: remove @pipeline_def (the iterator "
                "gives the Pipeline its batch_size, num_threads, device_id, ...)"
            )
        if isinstance(self.output_map, str) or not all(isinstance(n, str) for n in self.output_map):
            raise ValueError(f"output_map must be a list of names, got {self.output_map!r}")
        self.output_map = list(self.output_map)
        if not self.output_map:
            raise ValueError("output_map names no output")
        if int(self.batch_size) < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")
        if isinstance(self.last_batch_policy, str):
            try:
                self.last_batch_policy = LastBatchPolicy[self.last_batch_policy.upper()]
            except KeyError:
                raise ValueError(
                    f"last_batch_policy {self.last_batch_policy!r} is not one of FILL, DROP"
                ) from None
        if self.last_batch_policy == LastBatchPolicy.PARTIAL:
            raise ValueError("JAX iterators do not support LastBatchPolicy.PARTIAL")
        reserved = sorted(set(self.pipeline_kwargs) & set(_RESERVED))
        if reserved:
            raise ValueError(
                f"pipeline_kwargs sets {reserved}: the factories set those (batch_size is the "
                "config's, shard_id and num_shards T5X's, checkpointing from T5X's "
                "checkpoint config)"
            )


@dataclasses.dataclass(frozen=True)
class Recipe:
    """What an iterator is made of: a config, this host's shard and the passes.

    ``epochs``, ``steps`` and ``rewind`` are `T5xIterator.bound`'s; ``checkpointing`` makes
    the pipelines with ``enable_checkpointing=True``.
    """

    config: DaliDatasetConfig
    shard_id: int = 0
    num_shards: int = 1
    epochs: int | None = None
    steps: int | None = None
    rewind: bool = False
    checkpointing: bool = True

    @property
    def evaluation(self) -> bool:
        """Whether this is an evaluation data set (passes that rewind)."""
        return self.rewind


def _graph_params(fn: Callable[..., Any]) -> set[str]:
    return set(inspect.signature(fn).parameters)


def build_iterator(recipe: Recipe, sharding: Any = None) -> T5xIterator:
    """Make the iterator of ``recipe``: host-local (one pipeline reading shard ``shard_id``
    of ``num_shards``, ``batch_size // num_shards`` samples a batch) without ``sharding``;
    with it, one pipeline per batch shard and global arrays of ``batch_size`` samples.

    Raises:
        ValueError: ``batch_size`` not divisible by ``num_shards``, or a bad shard.
        TypeError: The graph function does not take ``shard_id`` and ``num_shards`` where
            it must read a share of the data.
    """
    cfg = recipe.config
    params = _graph_params(cfg.pipeline)
    takes_shards = {"shard_id", "num_shards"} <= params
    kwargs: dict[str, Any] = dict(cfg.pipeline_kwargs)
    if sharding is None:
        if not 0 <= recipe.shard_id < recipe.num_shards:
            raise ValueError(f"shard_id {recipe.shard_id} is not in [0, {recipe.num_shards})")
        if cfg.batch_size % recipe.num_shards:
            raise ValueError(
                f"Batch size ({cfg.batch_size}) must be divisible by number of shards "
                f"({recipe.num_shards})."
            )
        if recipe.num_shards > 1 and not takes_shards:
            raise TypeError(
                f"{cfg.pipeline.__name__}() must take shard_id and num_shards (and pass them "
                f"to its reader) to read shard {recipe.shard_id} of {recipe.num_shards}"
            )
        if takes_shards:
            kwargs.update(shard_id=recipe.shard_id, num_shards=recipe.num_shards)
        batch_size = cfg.batch_size // recipe.num_shards
    else:
        if not takes_shards:
            raise TypeError(
                f"{cfg.pipeline.__name__}() must take shard_id and num_shards (and pass them "
                "to its reader): a sharded iterator runs one pipeline per batch shard"
            )
        batch_size = cfg.batch_size
    if cfg.seed is not None:
        kwargs["seed"] = cfg.seed
    if cfg.num_threads is not None:
        kwargs["num_threads"] = cfg.num_threads
    if recipe.checkpointing:
        kwargs["enable_checkpointing"] = True
    assert isinstance(cfg.last_batch_policy, LastBatchPolicy)  # (normalised by the config)
    factory = data_iterator_for(
        T5xIterator,
        cfg.pipeline,
        output_map=list(cfg.output_map),
        reader_name=cfg.reader_name,
        auto_reset=False,
        last_batch_policy=cfg.last_batch_policy,
        prepare_first_batch=cfg.prepare_first_batch,
        sharding=sharding,
    )
    iterator: T5xIterator = factory(batch_size=batch_size, **kwargs)
    iterator.bound(epochs=recipe.epochs, steps=recipe.steps, rewind=recipe.rewind)
    iterator.dataset_recipe = recipe
    return iterator


def _check_feature_converter(feature_converter_cls: Any) -> None:
    if feature_converter_cls is not None:
        # A seqio feature converter maps tf.data text features; DALI's outputs are already
        # the model's features, named by output_map.
        _logger.warning(
            "dali-clu does not apply feature_converter_cls=%r: the pipeline's outputs (named "
            "by output_map) are the model's features",
            feature_converter_cls,
        )


def get_dataset(
    cfg: DaliDatasetConfig,
    shard_id: int,
    num_shards: int,
    feature_converter_cls: Any = None,
    num_epochs: int | None = None,
    continue_from_last_checkpoint: bool = True,
) -> T5xIterator:
    """T5X's ``get_dataset_fn``: this host's training data as a CLU ``DatasetIterator``.

    Args:
        cfg: The data set.
        shard_id: This host's shard (T5X: ``data_layout.shard_id``).
        num_shards: How many hosts share the data (``data_layout.num_shards``).
        feature_converter_cls: T5X passes the model's; not applied (a warning says so).
        num_epochs: Epochs before StopIteration; None: endless, as T5X trains.
        continue_from_last_checkpoint: Make the pipelines with checkpointing, so that
            T5X's ``save_dataset`` / ``restore_dataset`` can save and restore the iterator.

    Returns:
        A `T5xIterator` of ``{name: numpy.ndarray}`` with ``cfg.batch_size // num_shards``
        samples each; T5X's ``prepare_train_iter`` shards them over the devices.

    Raises:
        ValueError: ``cfg.batch_size`` not divisible by ``num_shards``.
        TypeError: ``num_shards > 1`` and the graph function takes no ``shard_id`` and
            ``num_shards``.

    Example:
        >>> import tempfile, dali.fn as fn
        >>> from dali._testing.images import make_image_tree
        >>> root = tempfile.mkdtemp(); _ = make_image_tree(root)
        >>> def images(shard_id=0, num_shards=1):
        ...     jpegs, labels = fn.readers.file(file_root=root, name="reader",
        ...                                     shard_id=shard_id, num_shards=num_shards)
        ...     return fn.resize(fn.decoders.image(jpegs), size=(32, 32)), labels
        >>> cfg = DaliDatasetConfig(images, ["images", "labels"], batch_size=8,
        ...                         reader_name="reader")
        >>> it = get_dataset(cfg, shard_id=1, num_shards=2)
        >>> it.element_spec["images"]
        ArraySpec(dtype=uint8, shape=(4, 32, 32, 3))
    """
    _check_feature_converter(feature_converter_cls)
    recipe = Recipe(
        cfg,
        shard_id=int(shard_id),
        num_shards=int(num_shards),
        epochs=num_epochs,
        checkpointing=bool(continue_from_last_checkpoint),
    )
    return build_iterator(recipe)


def get_eval_datasets(
    cfg: DaliDatasetConfig,
    shard_id: int,
    num_shards: int,
    eval_steps: int | None,
    feature_converter_cls: Any = None,
) -> dict[str, T5xIterator]:
    """T5X's ``train_eval_get_dataset_fn``: ``{cfg.name: iterator}`` for evaluation.

    The iterator returns ``eval_steps`` batches (going on into the next epoch if one is
    shorter, as T5X's ``repeat().take(eval_steps)``), or with ``eval_steps=None`` one epoch;
    then StopIteration. Every pass returns the same batches: ``iter()`` (a ``for`` loop) and
    ``reset()`` rewind it. ``is_nonpadding`` flags the samples of the last batch read that
    are real (needs ``cfg.reader_name``): give the reader ``pad_last_batch=True`` to evaluate
    every sample once.

    Args:
        cfg: The data set; its ``name`` is the key.
        shard_id: This host's shard.
        num_shards: How many hosts share the data.
        eval_steps: Batches per evaluation; None: one epoch.
        feature_converter_cls: Not applied (see `get_dataset`).

    Returns:
        One host-local `T5xIterator` under ``cfg.name``.
    """
    _check_feature_converter(feature_converter_cls)
    if eval_steps is not None and int(eval_steps) < 1:
        raise ValueError(f"eval_steps must be at least 1 (or None), got {eval_steps}")
    recipe = Recipe(
        cfg,
        shard_id=int(shard_id),
        num_shards=int(num_shards),
        epochs=None if eval_steps else 1,
        steps=None if eval_steps is None else int(eval_steps),
        rewind=True,
        checkpointing=True,  # rewinding restores the first checkpoints
    )
    return {cfg.name: build_iterator(recipe)}


# -- sharded (global jax.Array) iterators --------------------------------------------------------


def _recipe_of(source: Any) -> Recipe:
    """The recipe of an iterator made here, or a training recipe for a config."""
    if isinstance(source, DaliDatasetConfig):
        return Recipe(source)
    if isinstance(source, Recipe):
        return source
    recipe = getattr(source, "dataset_recipe", None)
    if isinstance(recipe, Recipe):
        return recipe
    raise TypeError(
        "expected what dali.plugin.jax.clu.t5x.get_dataset or get_eval_datasets returned (or "
        f"a DaliDatasetConfig), got {type(source).__name__}"
    )


def _release(source: Any) -> None:
    """Close the pipelines of a host-local iterator that a sharded one replaces."""
    if isinstance(source, T5xIterator):
        for pipe in source.pipelines:
            pipe.close()


def sharded_iterator(
    source: DaliDatasetConfig | T5xIterator,
    mesh: Any,
    data_partition_spec: Any,
    *,
    restore_from: Any = None,
    checkpointing: bool | None = None,
) -> T5xIterator:
    """The data set as global ``jax.Array`` batches laid out as
    ``NamedSharding(mesh, data_partition_spec)``: one pipeline per batch shard on this
    process's devices (`peekable_data_iterator` with ``sharding=``).

    Args:
        source: A config (an endless training stream), or an iterator from `get_dataset`
            or `get_eval_datasets`, rebuilt with the same passes (its pipelines are closed).
        mesh: The device mesh (T5X: ``partitioner.mesh``).
        data_partition_spec: How the batch axis is split over it
            (``partitioner.data_partition_spec``).
        restore_from: A file `T5xIterator.save` wrote (T5X's dataset checkpoint) to continue
            from, or None.
        checkpointing: Make the pipelines with checkpointing; None: as ``source`` was (a
            config: yes).

    Returns:
        A `T5xIterator` of global arrays of ``batch_size`` samples.

    Example:
        >>> import jax, numpy as np, dali.fn as fn
        >>> from jax.sharding import Mesh, PartitionSpec
        >>> def numbers(shard_id=0, num_shards=1):
        ...     return fn.external_source(lambda i: np.full((2, 3), shard_id, np.int32),
        ...                               batch=True)
        >>> cfg = DaliDatasetConfig(numbers, ["x"], batch_size=2)
        >>> mesh = Mesh(jax.devices()[:1], ("data",))
        >>> batch = next(sharded_iterator(cfg, mesh, PartitionSpec("data")))
        >>> type(batch["x"]).__name__, batch["x"].shape
        ('ArrayImpl', (2, 3))
    """
    from jax.sharding import NamedSharding

    recipe = _recipe_of(source)
    if checkpointing is not None:
        recipe = dataclasses.replace(recipe, checkpointing=bool(checkpointing or recipe.rewind))
    if restore_from is not None and not recipe.checkpointing:
        recipe = dataclasses.replace(recipe, checkpointing=True)
    _release(source)
    iterator = build_iterator(recipe, sharding=NamedSharding(mesh, data_partition_spec))
    if restore_from is not None:
        iterator.restore(restore_from)
    return iterator


def _saves_or_restores_dataset(checkpoint_cfg: Any) -> bool:
    save = getattr(checkpoint_cfg, "save", None)
    restore = getattr(checkpoint_cfg, "restore", None)
    return bool(getattr(save, "save_dataset", False) or getattr(restore, "restore_dataset", False))


def _checkpoint_step(path: Any) -> int | None:
    match = re.fullmatch(r"checkpoint_(\d+)", path.name)
    return int(match.group(1)) if match else None


def dataset_checkpoint(checkpoint_cfg: Any, data_layout: Any) -> Any:
    """The dataset checkpoint file T5X's restore config asks for, or None.

    With ``checkpoint_cfg.restore.restore_dataset``: in the checkpoint directory
    ``restore.path`` names (mode ``"specific"``; a path to a ``checkpoint`` file names its
    directory) or in the newest ``checkpoint_<step>`` directory under it (``"latest"``,
    ``"all"``), the file ``train_ds-{shard_id:03}-of-{num_shards:03}`` of this host.
    Nothing to restore (no restore config, no ``restore_dataset``, no checkpoint yet under a
    ``"latest"`` path) is None.

    Raises:
        FileNotFoundError: The checkpoint directory has no dataset file for this host (T5X
            fails the same way).
    """
    from etils import epath

    restore = getattr(checkpoint_cfg, "restore", None)
    if restore is None or not getattr(restore, "restore_dataset", False):
        return None
    paths = restore.path
    if paths is None:
        return None
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [p for p in paths if p]
    if not paths:
        return None  # T5X: path=[] initialises from scratch
    if data_layout is not None:
        shard_id, num_shards = int(data_layout.shard_id), int(data_layout.num_shards)
    else:
        import jax

        shard_id, num_shards = jax.process_index(), jax.process_count()
    name = f"{_TRAIN_DS_PREFIX}-{shard_id:03}-of-{num_shards:03}"
    mode = getattr(restore, "mode", "latest")
    path = epath.Path(paths[0])
    if mode == "specific":
        directory = path if path.is_dir() else path.parent  # (T5X's rule)
    else:
        found = {}
        for candidate in path.glob("checkpoint_*") if path.exists() else ():
            step = _checkpoint_step(candidate)
            if step is not None and candidate.is_dir():
                found[step] = candidate
        if not found:
            return None  # a fresh start
        directory = found[max(found)]
    file = directory / name
    if not file.exists():
        raise FileNotFoundError(
            f"restore_dataset is set, but the checkpoint {directory} has no dataset "
            f"checkpoint {name}"
        )
    return file


def create_sharded_iterator(
    iterator_args: Any,
    partitioner: Any,
    checkpoint_cfg: Any = None,
    data_layout: Any = None,
) -> T5xIterator:
    """T5X's ``prepare_train_iter_fn`` / ``prepare_eval_iter_fn`` (JAX-Toolbox's patched
    T5X; rosetta's ``prepare_dali_iterator``): `sharded_iterator` over the partitioner's mesh.

    Args:
        iterator_args: What ``get_dataset_fn`` (`get_dataset`) or an entry of
            ``train_eval_get_dataset_fn`` (`get_eval_datasets`) returned, or a config.
        partitioner: T5X's partitioner: its ``mesh`` and ``data_partition_spec``.
        checkpoint_cfg: T5X's ``CheckpointConfig``: pipelines are made with checkpointing
            when it saves or restores the data set, and a training iterator continues from
            the dataset checkpoint its ``restore`` names (`dataset_checkpoint`).
        data_layout: T5X's ``DataLayout``: its ``batch_size`` must be the config's; its
            ``shard_id``/``num_shards`` name this host's dataset checkpoint.

    Returns:
        A `T5xIterator` of global ``jax.Array`` batches (T5X's own sharding is bypassed).

    Raises:
        ValueError: ``data_layout.batch_size`` differs from the config's ``batch_size``.
        FileNotFoundError: See `dataset_checkpoint`.
    """
    recipe = _recipe_of(iterator_args)
    batch = getattr(data_layout, "batch_size", None)
    if batch is not None and int(batch) != recipe.config.batch_size:
        raise ValueError(
            f"T5X's data layout has batch_size={batch}, the data set "
            f"batch_size={recipe.config.batch_size}: set the same global batch size"
        )
    restore_from = None if recipe.evaluation else dataset_checkpoint(checkpoint_cfg, data_layout)
    checkpointing = recipe.checkpointing or _saves_or_restores_dataset(checkpoint_cfg)
    return sharded_iterator(
        iterator_args,
        partitioner.mesh,
        partitioner.data_partition_spec,
        restore_from=restore_from,
        checkpointing=checkpointing,
    )


# -- gin without dynamic registration -------------------------------------------------------------

_GIN_MODULE = "dali.plugin.jax.clu.t5x"
_gin_registered: list[Any] = []


def register_gin_configurables() -> None:
    """Register `DaliDatasetConfig` and the factories with gin under
    ``dali.plugin.jax.clu.t5x`` (``gin.external_configurable``), for gin files without
    ``from __gin__ import dynamic_registration``; once per process.

    Raises:
        ImportError: gin (``pip install gin-config``) is not installed.
    """
    import gin

    if _gin_registered:
        return
    for obj in (
        DaliDatasetConfig,
        create_sharded_iterator,
        get_dataset,
        get_eval_datasets,
        sharded_iterator,
    ):
        _gin_registered.append(gin.external_configurable(obj, module=_GIN_MODULE))
