"""A stand-in for `dali._exec.device.CudaContext` without CUDA, for the executor tests that run
GPU pipelines' stages (their mixed and GPU steps are test operators that need no GPU)."""

from __future__ import annotations

import contextlib
from typing import Any


class NoCuda:
    """The parts of `CudaContext` the executor calls, doing nothing."""

    stream = None

    def activate(self) -> Any:
        return contextlib.nullcontext(self)

    def record(self, stream: Any = None) -> None:
        return None

    def lease(self, tl: Any) -> None:
        pass

    def reap(self) -> None:
        pass

    def error_hint(self, error: BaseException) -> str:
        return ""

    def close(self) -> None:
        pass
