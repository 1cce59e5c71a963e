"""A two-process ``jax.distributed`` job on localhost, for the plugins' multi-process tests.

``tests/`` is on ``sys.path`` (see `iterator_utils`), so a test module imports `run_job`. Each
process gets 2 fake CPU devices and runs ``worker <process index> <port> <args...>``; the
worker prints its report as JSON on its last line. Where JAX's CPU backend cannot run
multi-process programs the calling test is skipped, with what JAX said.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = ["run_job"]

ROOT = Path(__file__).resolve().parents[1]
#: What JAX says when its CPU backend cannot run multi-process computations.
UNSUPPORTED = ("UNIMPLEMENTED", "not implemented on the CPU backend", "collectives")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def run_job(
    worker: Path, *args: str, packages: Sequence[str], timeout: float = 120
) -> list[dict[str, Any]]:
    """Run ``worker`` in 2 processes of one job; their JSON reports, process 0 first.

    Args:
        worker: The worker script.
        args: Its arguments after the process index and the coordinator's port.
        packages: The distributions it imports, as folders of ``packages/`` (their ``src``
            go on ``PYTHONPATH``, before what is there).
        timeout: Seconds the whole job may take.
    """
    port = _free_port()
    env = dict(os.environ)
    env.update(
        XLA_FLAGS="--xla_force_host_platform_device_count=2",
        JAX_PLATFORMS="cpu",
        PYTHONPATH=os.pathsep.join(
            [*(str(ROOT / "packages" / p / "src") for p in packages), env.get("PYTHONPATH", "")]
        ),
    )
    procs = [
        subprocess.Popen(
            [sys.executable, str(worker), str(i), str(port), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    results = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=timeout)
            results.append((p.returncode, out, err))
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
            p.communicate()
        pytest.fail(f"the 2-process jax.distributed job did not finish in {timeout:.0f} s")
    failed = [(rc, err) for rc, _, err in results if rc != 0]
    if failed:
        err = failed[0][1]
        if any(s in err for s in UNSUPPORTED):
            import jax

            pytest.skip(
                f"jax {jax.__version__}'s CPU backend cannot run multi-process: {err[-300:]}"
            )
        pytest.fail(f"a worker failed ({failed[0][0]}):\n{err[-3000:]}")
    return [json.loads(out.strip().splitlines()[-1]) for _, out, _ in results]
