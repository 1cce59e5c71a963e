"""A pipeline run by a worker process of its own: the host work off the consumer's GIL.

One process feeding several GPUs runs one pipeline per GPU, and every pipeline's host work
(reading, planning, codec calls, kernel launches) is Python: in one interpreter they share one
GIL, and two pipelines ran no faster than one (``benchmarks/RESULTS.md``, "One process, several
GPUs"). With ``Pipeline(worker_process=True)`` (the iterators choose it for several GPU
pipelines) the pipeline's `Executor` runs in a process of its own instead, and the consumer's
`Pipeline` drives it through a `ProcessExecutor` with the same interface:

* ``spec``      what crosses the process boundary once: the traced graph (`OpNode` records, the
                schemas by name, Python sources without their callbacks), the seed, the
                operators' states, the pipeline's settings. `WorkerSpec`, `NotShippable`.
* ``buffers``   the outputs of each iteration: GPU batches are copied (on the GPU) into a
                ring of device buffers that the worker exports once each through CUDA IPC and
                the consumer maps once each, so that a batch crosses as offsets and shapes and
                the consumer only wraps device memory (no copy); CPU batches are pickled.
* ``worker``    the worker process (``python -m dali._exec.process.worker``): builds the plan,
                runs the iterations the consumer submits, sends their outputs or their errors.
* ``executor``  `ProcessExecutor`, the consumer's side: submit, get, checkpoint states,
                errors, death of the worker, shutdown.
* ``shm``, ``feed``  host batches in anonymous shared memory: outputs of CPU work, and the
                Python sources' batches on their way to a worker.
* ``pool``      `PoolExecutor`: a CPU pipeline's iterations on several workers (iteration k on
                worker k mod P), the readers planned by the consumer.
* ``stage``     `CpuStageWorkers`: a GPU pipeline's CPU stage on such a pool; the process that
                owns the GPU runs the decoders and the GPU work on what comes back.

The consumer still schedules: it calls the Python sources (external_source callbacks) in its
own thread, keeps the schedule position and the checkpoint documents, and sends each iteration
request with the sources' batches; the worker's executor runs the same plan with the same
seed, so the batches are those of the pipeline run in-process.
"""
