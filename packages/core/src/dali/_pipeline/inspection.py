"""Seeing a pipeline: its summary (``repr``), its graph as ``dot`` text and as a picture.

A mixin of `Pipeline`. `Inspection.save_graph_to_dot_file` is DALI's method (same arguments,
``show_ids`` deprecated as in DALI); `Inspection.save_graph_picture` (our extension) renders the
same graph to SVG, PNG or PDF through Graphviz (`dali._graph.picture`).

Example:
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=1)
    ... def pipe():
    ...     return fn.random.uniform(range=(0, 1), name="u") * 2
    >>> p = pipe()
    >>> p
    <Pipeline: not built, batch_size=4, num_threads=1, device_id=None, seed=1>
    >>> p.build()
    >>> print(repr(p).splitlines()[0])
    <Pipeline: 2 operators (cpu 2), 1 output, batch_size=4, num_threads=1, device_id=None, seed=1, built>
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dali._exec.stages import Stage
    from dali._graph.build import Plan

__all__ = ["Inspection"]


class Inspection:
    """`Pipeline`'s summary and graph pictures (a mixin; see the module docstring)."""

    _plan: Plan | None
    _executor: Any
    _max_batch_size: int | None
    _num_threads: int | None
    _device_id: int | None
    _seed: int | None

    if TYPE_CHECKING:

        def build(self) -> None: ...

    def _plan_stages(self) -> list[Stage]:
        """The executor stages of the built plan (what each executor thread runs)."""
        from dali._exec.stages import plan_stages

        self.build()
        assert self._plan is not None
        return plan_stages(self._plan, self._plan.uses_gpu)

    def _built_plan(self, action: str) -> Plan:
        try:
            self.build()
        except Exception as e:
            raise RuntimeError(f"Pipeline.{action}: the pipeline cannot be built ({e})") from e
        assert self._plan is not None
        return self._plan

    def save_graph_to_dot_file(
        self,
        filename: str | Path,
        show_tensors: bool = False,
        show_ids: bool | None = None,
        use_colors: bool = False,
    ) -> None:
        """Write the pipeline's graph to ``filename`` in Graphviz's ``dot`` language.

        As DALI's: one node per operator, an edge to each operator that reads its output;
        ``show_tensors`` draws the outputs as nodes of their own, ``use_colors`` colours the
        operators by device. Beyond DALI's file, the operators are grouped by executor stage
        and the edges name the output or argument they carry. ``dot -Tsvg file.dot`` draws it;
        `save_graph_picture` does that in one step.

        Args:
            filename: The file to write.
            show_tensors: Draw every operator output as a node (boxes), as DALI does.
            show_ids: Deprecated in DALI and without effect there and here.
            use_colors: Colour the operators by device (CPU blue, mixed purple, GPU green).
        """
        from dali._graph.picture import to_dot

        if show_ids is not None:
            warnings.warn(
                'The argument "show_ids" is deprecated because it no longer has any effect.',
                DeprecationWarning,
                stacklevel=2,
            )
        plan = self._built_plan("save_graph_to_dot_file")
        text = to_dot(plan, self._plan_stages(), show_tensors=show_tensors, use_colors=use_colors)
        Path(filename).write_text(text)

    def save_graph_picture(
        self,
        filename: str | Path,
        *,
        show_tensors: bool = False,
        use_colors: bool = True,
        format: str | None = None,
    ) -> Path:
        """Draw the pipeline's graph (our extension): `save_graph_to_dot_file`'s graph as an
        SVG, PNG or PDF picture, through Graphviz.

        Args:
            filename: The picture to write; its suffix (``.svg``, ``.png``, ``.pdf``) gives the
                format unless ``format`` does.
            show_tensors: Draw every operator output as a node.
            use_colors: Colour the operators by device.
            format: ``"svg"``, ``"png"`` or ``"pdf"``.

        Returns:
            The path written.

        Raises:
            RuntimeError: Graphviz is not installed (the message says how to install it).
        """
        from dali._graph.picture import render, to_dot

        plan = self._built_plan("save_graph_picture")
        text = to_dot(plan, self._plan_stages(), show_tensors=show_tensors, use_colors=use_colors)
        return render(text, filename, format)

    def __repr__(self) -> str:
        settings = (
            f"batch_size={self._max_batch_size}, num_threads={self._num_threads}, "
            f"device_id={self._device_id}, seed={self._seed}"
        )
        if self._plan is None:  # a repr never builds (tracing, checkpoints): it says so
            return f"<Pipeline: not built, {settings}>"
        plan = self._plan
        devices: dict[str, int] = {}
        for step in plan.steps:
            devices[step.device] = devices.get(step.device, 0) + 1
        by_device = ", ".join(f"{d} {n}" for d, n in sorted(devices.items()))
        n_out = len(plan.outputs)
        state = "running" if self._executor is not None else "built"
        head = (
            f"<Pipeline: {len(plan.steps)} operators ({by_device}), {n_out} "
            f"output{'s' if n_out != 1 else ''}, {settings}, {state}>"
        )
        lines = [head]
        for stage in self._plan_stages():
            ops = ", ".join(plan.steps[si].node.name for si in stage.steps)
            lines.append(f"  {stage.label} stage ({stage.thread}): {ops}")
        return "\n".join(lines)
