"""One rank of the 2-process ``torch.distributed`` (gloo, CPU) test (run by
test_torch_distributed.py through `distributed_utils.run_job`).

Usage: ``python _torch_distributed_worker.py RANK PORT FILES_DIR N_FILES PAD`` (PAD: the
reader's ``pad_last_batch``, ``1`` or ``0``). The rank joins the group the way ``torchrun``
starts it (``RANK``/``WORLD_SIZE``/``MASTER_*`` in the environment), takes its shard from
`dali.plugin.pytorch.distributed.shard_info`, reads one epoch (PARTIAL), all-reduces a tensor
per batch as DDP's gradient sync would (a rank with fewer batches would hang the other), saves ``state_dict()`` mid-epoch and checks a restored
iterator, and prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    rank, port, root, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    pad = sys.argv[5] == "1"
    os.environ.update(MASTER_ADDR="localhost", MASTER_PORT=port, RANK=str(rank), WORLD_SIZE="2")
    import torch
    import torch.distributed as dist
    from dali import fn, pipeline_def
    from dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
    from dali.plugin.pytorch.distributed import shard_info

    dist.init_process_group("gloo")
    info = shard_info()
    files = [os.path.join(root, f"f{i:05d}.bin") for i in range(n)]

    def make(checkpoint=None):
        @pipeline_def(
            batch_size=4,
            num_threads=1,
            device_id=None,
            enable_checkpointing=True,
            checkpoint=checkpoint,
        )
        def pipe():
            _, labels = fn.readers.file(
                files=files,
                labels=list(range(n)),
                shard_id=info.shard_id,
                num_shards=info.num_shards,
                pad_last_batch=pad,
                name="Reader",
            )
            return labels

        return DALIGenericIterator(
            pipe(), ["label"], reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL
        )

    it = make()
    labels, state, after = [], None, []
    for k, batch in enumerate(it):
        x = batch[0]["label"].ravel()
        labels += x.tolist()
        total = torch.tensor([float(x.numel())])
        dist.all_reduce(total)  # every rank must take part in every step
        if k == 0:
            state = it.state_dict()
        elif state is not None:
            after.append(x.tolist())
    restored = make()
    restored.load_state_dict(state)
    replay = [b[0]["label"].ravel().tolist() for b in restored]
    everyone = [None, None]
    dist.all_gather_object(everyone, labels)
    report = {
        "shard": list(info[:2]),
        "device_id": info.device_id,
        "len": len(it),
        "labels": labels,
        "all": everyone,
        "replay_ok": replay == after,
    }
    print(json.dumps(report), flush=True)
    # Out without destroying the group or the interpreter's shutdown: on torch 2.4 the first
    # deadlocks now and then and the second aborts (examples/pytorch/ddp.py's leave_group()
    # says why).
    os._exit(0)


if __name__ == "__main__":
    main()
