"""Helpers for tests of the library's worker processes: which are still running, waiting for
one to end, and a consumer script run in a process of its own.

``tests/`` is on ``sys.path`` (see ``tests/conftest.py``): ``from processes import ...``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

__all__ = ["consumer", "shm_entries", "wait_gone", "worker_pids"]


def worker_pids() -> list[int]:
    """The pipeline worker processes this process started that still run (from /proc)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                ours = b"dali._exec.process.worker" in f.read()
        except OSError:
            continue
        if parent == os.getpid() and ours:
            pids.append(int(entry))
    return pids


def wait_gone(pid: int, seconds: float = 20.0) -> bool:
    """Whether process ``pid`` ends within ``seconds`` (a zombie child of ours is reaped)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


def shm_entries() -> set[str]:
    """The names in ``/dev/shm`` (empty where there is none)."""
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def consumer(script: str, tmp_path: Path, **popen: Any) -> subprocess.Popen[str]:
    """Run ``script`` (Python source, dedented) in a new Python process with this process's
    ``sys.path``; stdout and stderr are pipes. Ctrl-C raises KeyboardInterrupt there whatever
    the disposition this process inherited (a background job starts with SIGINT ignored)."""
    path = tmp_path / "consumer.py"
    prelude = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
    path.write_text(prelude + textwrap.dedent(script))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **popen,
    )
