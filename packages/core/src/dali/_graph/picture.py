"""A pipeline's graph as a picture: Graphviz ``dot`` text, and SVG/PNG rendered from it.

`to_dot` writes the built plan (what runs, after pruning and with the device copies the build
inserted) in the ``dot`` language. Without options it is DALI's picture: one node per operator
and an edge from each operator to every operator that reads one of its outputs. This library
adds what DALI's file does not say:

* the operators grouped in boxes by executor stage (``source``, ``cpu``, ``mixed``, ``gpu``:
  `dali._exec.stages.plan_stages`), so the picture shows which thread runs what;
* edges labelled with the output they carry when the producer has several (``0``, ``1``...),
  and with the argument name when the edge feeds an argument input (``mirror=``);
* the pipeline's outputs as a final ``outputs`` node, edges labelled with their positions.

``show_tensors=True`` draws each operator output as a box of its own (named as DALI names
them: ``<operator>_<output>_<device>``), as DALI's file does; ``use_colors=True`` colours the
operators by device (CPU blue, mixed purple, GPU green, as DALI's file colours them).

`render` turns the text into a picture with Graphviz: the ``graphviz`` Python package when it
is installed, else the ``dot`` program on the ``PATH``; without either it raises a
`RuntimeError` that says what to install.

Example:
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.random.uniform(shape=[2]) * 2
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pipe.dot"
    >>> pipe().save_graph_to_dot_file(path)
    >>> path.read_text().splitlines()[0]
    'digraph graphname {'
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dali._exec.stages import Stage
    from dali._graph.build import Plan

__all__ = ["FORMATS", "render", "to_dot"]

#: The picture formats `render` writes, by file suffix.
FORMATS = ("svg", "png", "pdf")

#: Operator colours by device, as DALI's ``use_colors`` picture has them.
_COLORS = {"cpu": "blue", "mixed": "purple", "gpu": "#76b900"}


def _quote(text: str) -> str:
    """A ``dot`` identifier or label: quoted, with quotes and backslashes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(
    plan: Plan,
    stages: Sequence[Stage] = (),
    *,
    show_tensors: bool = False,
    use_colors: bool = False,
) -> str:
    """The plan in Graphviz's ``dot`` language (see the module docstring).

    Args:
        plan: A built pipeline's plan.
        stages: Its executor stages (`dali._exec.stages.plan_stages`): each becomes a box
            (``cluster_<label>``) holding its operators. Empty: no boxes.
        show_tensors: Draw every operator output as a node of its own, as DALI does.
        use_colors: Colour the operators by device.

    Returns:
        The ``dot`` text, ending with a newline.
    """
    producer: dict[int, tuple[int, int]] = {}  # slot -> (step, output index)
    for si, step in enumerate(plan.steps):
        for k, slot in enumerate(step.outputs):
            producer[slot] = (si, k)
    names = [step.node.name for step in plan.steps]

    def tensor(slot: int) -> str:
        si, k = producer[slot]
        return f"{names[si]}_{k}_{plan.steps[si].device}"

    lines = ["digraph graphname {", "  compound=true;", "  node [shape=ellipse];"]
    grouped: set[int] = set()
    for stage in stages:
        lines.append(f"  subgraph {_quote('cluster_' + stage.label)} {{")
        lines.append(f"    label={_quote(stage.label + ' stage (' + stage.thread + ')')};")
        lines.append("    style=rounded; color=gray;")
        for si in stage.steps:
            grouped.add(si)
            lines.append(f"    {_node(plan, si, use_colors)}")
        lines.append("  }")
    for si in range(len(plan.steps)):
        if si not in grouped:
            lines.append(f"  {_node(plan, si, use_colors)}")

    for si, step in enumerate(plan.steps):
        reads = [(slot, "") for slot in step.inputs]
        reads += [(slot, f"{arg}=") for arg, slot in step.args.items()]
        # the node whose samples give an input-less operator its batch (inside a conditional
        # branch): an edge only when it is not already an input
        if step.batch is not None and all(slot != step.batch for slot, _ in reads):
            reads.append((step.batch, "batch"))
        for slot, arg in reads:
            if slot not in producer:
                continue
            src, k = producer[slot]
            if show_tensors:
                edge = f"  {_quote(tensor(slot))} -> {_quote(names[si])}"
                lines.append(edge + (f" [label={_quote(arg)}];" if arg else ";"))
                continue
            label = arg or (str(k) if len(plan.steps[src].outputs) > 1 else "")
            edge = f"  {_quote(names[src])} -> {_quote(names[si])}"
            lines.append(edge + (f" [label={_quote(label)}];" if label else ";"))
    if show_tensors:
        for slot in sorted(producer):
            src, k = producer[slot]
            lines.append(f"  {_quote(tensor(slot))} [shape=box];")
            lines.append(f"  {_quote(names[src])} -> {_quote(tensor(slot))} [label={k}];")
    lines.append('  outputs [shape=doubleoctagon, label="pipeline outputs"];')
    for k, slot in enumerate(plan.outputs):
        src_name = tensor(slot) if show_tensors else names[producer[slot][0]]
        lines.append(f"  {_quote(src_name)} -> outputs [label={k}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node(plan: Plan, si: int, use_colors: bool) -> str:
    step = plan.steps[si]
    label = f"{step.node.name}\\n{step.node.display_name} ({step.device})"
    attrs = [f'label="{label}"']
    if use_colors:
        attrs.append(f"color={_quote(_COLORS.get(step.device, 'black'))}")
    return f"{_quote(step.node.name)} [{', '.join(attrs)}];"


def render(dot_text: str, filename: str | Path, fmt: str | None = None) -> Path:
    """Write the picture of ``dot_text`` to ``filename`` with Graphviz.

    Args:
        dot_text: Graphviz ``dot`` text (`to_dot`).
        filename: Where to write; its suffix gives the format unless ``fmt`` does.
        fmt: ``"svg"``, ``"png"`` or ``"pdf"``.

    Returns:
        The path written.

    Raises:
        ValueError: An unknown format.
        RuntimeError: Graphviz is not installed, or failed.
    """
    path = Path(filename)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise ValueError(
            f"render: cannot write a picture as {fmt!r} ({path.name}); use one of "
            f"{', '.join(FORMATS)} (or save_graph_to_dot_file for the dot text)"
        )
    try:
        import graphviz  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        graphviz = None
    if graphviz is not None:
        try:
            data = graphviz.Source(dot_text).pipe(format=fmt)
        except Exception as e:
            raise RuntimeError(f"render: Graphviz failed to draw the graph ({e})") from e
        path.write_bytes(data)
        return path
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(
            "render: drawing the graph needs Graphviz: install the `dot` program (Debian/Ubuntu: "
            "`apt install graphviz`, conda: `conda install graphviz`, macOS: `brew install "
            "graphviz`); save_graph_to_dot_file writes the dot text without it"
        )
    done = subprocess.run(
        [dot, f"-T{fmt}", "-o", str(path)],
        input=dot_text.encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"render: Graphviz's dot failed ({done.stderr.decode(errors='replace').strip()})"
        )
    return path
