"""One process of the 2-process `jax.distributed` test (run by test_distributed.py).

Usage: ``python _distributed_worker.py PROCESS_ID PORT IMAGE_ROOT``, with ``XLA_FLAGS`` giving
this process 2 fake CPU devices. Prints one JSON line describing what the process holds.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    process_id, port, root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    import jax

    try:  # newer JAX
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        computations = True
    except AttributeError:
        # Old JAX (0.4.26) has a boolean flag; with it a jitted computation over both
        # processes' shards aborts the process in Gloo ("Gloo context initialization
        # failed"), and so does moving data between processes (process_allgather) on a
        # loaded machine: its Gloo context setup deadlocks now and then until the 30 s
        # key-value deadline. Old JAX builds only the sharded global arrays here.
        jax.config.update("jax_cpu_enable_gloo_collectives", True)
        computations = False
    jax.distributed.initialize(
        coordinator_address=f"localhost:{port}", num_processes=2, process_id=process_id
    )
    import numpy as np
    from dali import fn
    from dali.plugin.jax import data_iterator
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()), ("batch",))
    sharded = NamedSharding(mesh, PartitionSpec("batch"))
    replicated = NamedSharding(mesh, PartitionSpec())

    def graph(num_shards=1, shard_id=0):
        jpegs, labels = fn.readers.file(
            file_list=f"{root}/list.txt", name="reader", num_shards=num_shards, shard_id=shard_id
        )
        images = fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8)
        return images, labels, labels

    shardings = {"images": sharded, "labels": sharded, "all_labels": replicated}
    if not computations:  # no cross-process gather: see above
        shardings["all_labels"] = sharded
    it = data_iterator(
        graph,
        output_map=["images", "labels", "all_labels"],
        reader_name="reader",
        sharding=shardings,
    )(batch_size=8)
    batch = next(it)
    labels = batch["labels"]

    def shards(arr):
        return sorted(
            [
                [
                    jax.devices().index(s.device),
                    s.index[0].start or 0,
                    np.asarray(s.data).ravel().tolist(),
                ]
                for s in arr.addressable_shards
            ]
        )

    total = None
    if computations:  # a computation over both processes' shards
        total = int(jax.jit(lambda x: x.sum())(labels).addressable_data(0))
    print(
        json.dumps(
            {
                "process": jax.process_index(),
                "device_count": jax.device_count(),
                "local_device_count": jax.local_device_count(),
                "pipelines": [[p.device_id, p.max_batch_size] for p in it._pipes],
                "len": len(it),
                "shape": list(labels.shape),
                "images_shape": list(batch["images"].shape),
                "fully_addressable": labels.is_fully_addressable,
                "sharding_ok": labels.sharding == sharded,
                "labels": shards(labels),
                "all_labels": shards(batch["all_labels"]) if computations else None,
                "total": total,
            }
        ),
        flush=True,
    )
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
