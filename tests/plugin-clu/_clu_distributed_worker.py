"""One process of the 2-process dali-clu test (run by test_clu_distributed.py).

Usage: ``python _clu_distributed_worker.py PROCESS_ID PORT FILES_DIR STATE_DIR``, with
``XLA_FLAGS`` giving this process 2 fake CPU devices. ``FILES_DIR`` holds the test's label
files (file ``i`` of the sorted names has label ``i``). Prints one JSON line describing what
the process saw; each list of shards is ``[[global device index, first row, values], ...]``
for this process's devices, a step that raised StopIteration is ``"STOP"``.

The process makes a `peekable_data_iterator` sharded over the 4 devices of both processes
(FILL with ``pad_last_batch``: shards of 7, 7, 7 and 8 samples, 2 per device and batch, so
4 batches an epoch), reads its ``element_spec``, peeks and steps, saves its own state file
with a peeked element pending, goes on, then restores a fresh iterator from that file and
takes the same steps again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: Steps before the save, and compared after it (through the first epoch's end).
BEFORE, AFTER = 2, 6


def main() -> None:
    process_id, port = int(sys.argv[1]), int(sys.argv[2])
    files_dir, state_dir = Path(sys.argv[3]), Path(sys.argv[4])
    import jax

    try:  # newer JAX
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    except AttributeError:  # old JAX: a boolean flag (no computation here needs more)
        jax.config.update("jax_cpu_enable_gloo_collectives", True)
    jax.distributed.initialize(
        coordinator_address=f"localhost:{port}", num_processes=2, process_id=process_id
    )
    import numpy as np
    from dali import fn
    from dali.plugin.jax.clu import peekable_data_iterator
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    files = sorted(str(p) for p in files_dir.iterdir())
    sharding = NamedSharding(Mesh(np.array(jax.devices()), ("batch",)), PartitionSpec("batch"))

    @peekable_data_iterator(
        output_map=["labels", "random"], reader_name="reader", sharding=sharding, auto_reset=True
    )
    def iterator_fn(num_shards=1, shard_id=0):
        _, labels = fn.readers.file(
            files=files,
            labels=list(range(len(files))),
            name="reader",
            num_shards=num_shards,
            shard_id=shard_id,
            pad_last_batch=True,
        )
        return labels, fn.random.uniform(range=[0.0, 1.0])

    def make():
        return iterator_fn(batch_size=8, num_threads=1, seed=42, enable_checkpointing=True)

    def shards(array):
        return sorted(
            [
                jax.devices().index(s.device),
                s.index[0].start or 0,
                np.asarray(s.data).ravel().tolist(),
            ]
            for s in array.addressable_shards
        )

    def take(it):
        """One step: the shards of both outputs and of is_nonpadding, or "STOP"."""
        try:
            element = next(it)
        except StopIteration:
            return "STOP"
        mask = it.is_nonpadding
        return {
            "labels": shards(element["labels"]),
            "random": shards(element["random"]),
            "mask": shards(mask),
            "mask_shape": list(mask.shape),
        }

    it = make()
    spec = {k: [list(v.shape), str(v.dtype)] for k, v in it.element_spec.items()}
    first = it.peek()
    peek_is_next = next(it) is first
    labels = first["labels"]
    before = [
        {"labels": shards(labels), "random": shards(first["random"])},
        *(take(it) for _ in range(BEFORE - 1)),
    ]
    pending = it.peek()  # pending while the state is saved
    state = state_dir / f"process_{process_id}.json"
    it.save(state)
    pending_is_next = next(it) is pending
    after = [
        {
            "labels": shards(pending["labels"]),
            "random": shards(pending["random"]),
            "mask": shards(it.is_nonpadding),
            "mask_shape": list(it.is_nonpadding.shape),
        },
        *(take(it) for _ in range(AFTER - 1)),
    ]

    restored = make()
    restored.restore(state)
    restored_after = [take(restored) for _ in range(AFTER)]
    print(
        json.dumps(
            {
                "process": jax.process_index(),
                "device_count": jax.device_count(),
                "local_device_count": jax.local_device_count(),
                "pipelines": len(it.pipelines),
                "spec": spec,
                "shape": list(labels.shape),
                "fully_addressable": labels.is_fully_addressable,
                "sharding_ok": labels.sharding == sharding,
                "peek_is_next": peek_is_next,
                "pending_is_next": pending_is_next,
                "state_file": state.name,
                "state_bytes": state.stat().st_size,
                "before": before,
                "after": after,
                "restored_after": restored_after,
            }
        ),
        flush=True,
    )
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
