"""CPU affinity: the cores this process may use, and those nearest a pipeline's GPU
(``Pipeline(set_affinity=True)``).

DALI's ``set_affinity`` pins its worker threads to the cores NVML reports as closest to the
GPU. Here the same set comes from the kernel: the GPU's PCI bus id (from the CUDA runtime)
names a sysfs device whose ``local_cpulist`` lists the cores of its NUMA node. The set is
intersected with the cores the process may use (a container's or ``taskset``'s limit), and
every pipeline thread (the per-sample pool and the stage workers) pins itself to it. Native
threads that libraries start from those threads (nvImageCodec's) inherit the mask. Where the
set cannot be found (no sysfs, a virtual GPU) or is empty, nothing is pinned.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

SYSFS_PCI = Path("/sys/bus/pci/devices")


def parse_cpulist(text: str) -> frozenset[int]:
    """The cores of a kernel cpulist such as ``"0-15,32-47"`` (ranges and single cores)."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return frozenset(cpus)


def pci_bus_id(device_id: int) -> str:
    """The GPU's PCI address as sysfs names it (``"0000:18:00.0"``), from the CUDA runtime."""
    from cupy.cuda import runtime

    bus_id: str = runtime.deviceGetPCIBusId(device_id)
    return bus_id.lower()


def gpu_local_cpus(device_id: int, sysfs: Path = SYSFS_PCI) -> frozenset[int] | None:
    """The cores nearest GPU ``device_id`` that this process may use, or None if unknown."""
    try:
        text = (sysfs / pci_bus_id(device_id) / "local_cpulist").read_text()
        local = parse_cpulist(text)
    except Exception:  # noqa: BLE001 - no sysfs entry, no CuPy, a CUDA error: do not pin
        return None
    if hasattr(os, "sched_getaffinity"):
        local &= frozenset(os.sched_getaffinity(0))
    return local or None


def usable_cores() -> int:
    """How many cores this process may run on (a container's or ``taskset``'s limit)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def pin_current_thread(cpus: frozenset[int] | None) -> None:
    """Restrict the calling thread (Linux: pid 0 is the thread) to ``cpus``; None: no-op."""
    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)


def pipeline_cores(info: Any, uses_gpu: bool) -> frozenset[int] | None:
    """The cores a pipeline's threads run on: with ``set_affinity``, a GPU pipeline's are the
    cores nearest its GPU (`gpu_local_cpus`); None (no pinning) otherwise.

    Args:
        info: The pipeline's `dali._pipeline.pipeline.PipelineInfo`.
        uses_gpu: Whether its plan has GPU work.
    """
    if not info.set_affinity or info.device_id is None or not uses_gpu:
        return None
    return gpu_local_cpus(info.device_id)
