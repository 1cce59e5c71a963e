"""The base class of operator implementations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from dali._graph.schema import REQUIRED, UNSET, Schema

if TYPE_CHECKING:
    from dali._exec.workspace import Workspace
    from dali._graph.node import OpNode

__all__ = ["Operator", "OperatorError"]


class OperatorError(RuntimeError):
    """An invalid argument value or combination, found at build or run time."""


class Operator:
    """One operator instance in a built pipeline.

    Subclasses are declared with `dali._graph.schema.register` and implement `run_cpu`
    (and `run_gpu` / `run_mixed` for the devices they list). `setup` runs once at build to
    validate the scalar arguments; `run_<device>` runs once per iteration with a `Workspace`.
    Operators with state that must survive checkpoints implement `get_state`/`set_state`.
    """

    schema: ClassVar[Schema]

    def __init__(self, node: OpNode, pipeline: Any) -> None:
        self.node = node
        self.pipeline = pipeline
        self.device = node.device
        self.name = node.name

    # -- arguments -------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        return self.schema.display_name

    def has_arg(self, name: str) -> bool:
        """Whether the user gave the argument (as a constant or a per-sample input)."""
        return name in self.node.scalar_args or name in self.node.arg_inputs

    def is_tensor_arg(self, name: str) -> bool:
        return name in self.node.arg_inputs

    def arg(self, name: str) -> Any:
        """The scalar value of an argument (or its default; ``UNSET`` when it has none)."""
        if name in self.node.scalar_args:
            return self.node.scalar_args[name]
        if name in self.node.arg_inputs:
            raise self.arg_error(name, "is a per-sample input here; use ws.arg_samples()")
        default = self.schema.args[name].default
        return UNSET if default is REQUIRED else default

    def arg_error(self, name: str, message: str) -> OperatorError:
        return OperatorError(
            f"Operator `{self.display_name}` ({self.name}), argument `{name}`: {message}"
        )

    def error(self, message: str) -> OperatorError:
        return OperatorError(f"Operator `{self.display_name}` ({self.name}): {message}")

    # -- lifecycle -------------------------------------------------------------------------
    def setup(self) -> None:
        """Validate scalar arguments at build (raise `arg_error`)."""

    def run(self, ws: Workspace) -> Any:
        return getattr(self, f"run_{self.device}")(ws)

    def run_cpu(self, ws: Workspace) -> Any:
        raise NotImplementedError(f"{self.display_name} has no CPU implementation")

    def run_gpu(self, ws: Workspace) -> Any:
        raise NotImplementedError(f"{self.display_name} has no GPU implementation")

    def run_mixed(self, ws: Workspace) -> Any:
        raise NotImplementedError(f"{self.display_name} has no mixed implementation")

    def on_reset(self) -> None:
        """Called by `Pipeline.reset()` after an epoch ended (sources restart)."""

    def get_state(self) -> dict[str, Any] | None:
        """JSON-serialisable state for checkpoints (None: stateless)."""
        return None

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore what `get_state` returned."""

    def close(self) -> None:
        """Release resources (files, worker processes) when the pipeline closes."""
