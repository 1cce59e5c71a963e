"""Thread-local tracing context: the current pipeline and the conditional scope stack."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dali._pipeline.pipeline import Pipeline

__all__ = ["current_pipeline", "current_scope", "pop_pipeline", "push_pipeline", "scope_stack"]

_local = threading.local()


def _pipelines() -> list[Pipeline]:
    stack: list[Pipeline] | None = getattr(_local, "pipelines", None)
    if stack is None:
        stack = _local.pipelines = []
    return stack


def push_pipeline(pipe: Pipeline) -> None:
    _pipelines().append(pipe)


def pop_pipeline() -> Pipeline | None:
    stack = _pipelines()
    return stack.pop() if stack else None


def current_pipeline() -> Pipeline | None:
    stack = _pipelines()
    return stack[-1] if stack else None


def scope_stack() -> list[Any]:
    """The stack of open conditional branches (see `_pipeline.conditionals`)."""
    stack = getattr(_local, "scopes", None)
    if stack is None:
        stack = _local.scopes = []
    return stack


def current_scope() -> Any:
    stack = scope_stack()
    return stack[-1] if stack else None
